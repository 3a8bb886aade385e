"""Carrying out an experiment's declaration: simulate, analyse, judge, draw, write.

:func:`run` is the only code that runs an experiment. Its simulations go through
:func:`dcsim.executor.run_scenarios` (the run cache, local processes or Dask, progress, as
the caller set up); the results reach the experiment as :class:`dcsim.Results`; the tables
it returns are written as CSV and its plots as PNG and SVG; every claim is judged on the
metrics. `dcsim reproduce` (:mod:`dcsim.reproduce`) adds the staging directory and the
summary's provenance around it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..files import plain, write_csv
from ..results import Results
from .declarations import Experiment, Key, Metrics, Runs, Testbed
from .plotting import save_figure


def run(experiment: Experiment, scale: str, out_dir: Path, jobs: int, testbed: Testbed) -> dict[str, Any]:
    """Run ``experiment`` at ``scale`` on ``testbed`` into ``out_dir`` (tables and plots) and
    return its outcome: ``claims`` (each judged on the metrics), ``metrics`` (plain JSON
    data, with the ``files`` written) and ``tables`` (the source's tables beside ours)."""
    runs = simulate(experiment, scale, jobs, testbed)
    metrics = experiment.analyze(runs)
    files = write(experiment, metrics, out_dir)
    return {
        "claims": judge(experiment, metrics),
        "metrics": plain({**metrics.values, "files": files}),
        "tables": plain(list(metrics.published)),
    }


def simulate(experiment: Experiment, scale: str, jobs: int, testbed: Testbed) -> Runs:
    """Every simulation of ``experiment`` at ``scale`` on ``testbed``, run (or read from the
    cache) in parallel, as :class:`Runs` by the keys the experiment gave them."""
    # Imported here: the package's import must not need the executor's machinery.
    from ..executor import run_scenarios

    params = experiment.params(scale)
    plan = dict(experiment.scenarios(params, testbed))
    results: dict[Key, Results] = {}
    todo = dict(plan)
    for attempt in range(1 + (experiment.reruns if experiment.rerun else 0)):
        done = dict(zip(todo, (Results(r) for r in run_scenarios(list(todo.values()), max(1, int(jobs))))))
        results.update(done)
        todo = {}
        if experiment.rerun is not None and attempt < experiment.reruns:
            for key, res in done.items():
                again = experiment.rerun(plan[key], res)
                if again is not None:
                    plan[key] = todo[key] = again
        if not todo:
            break
    return Runs(scale, params, testbed, plan, {key: results[key] for key in plan})


def write(experiment: Experiment, metrics: Metrics, out_dir: Path) -> list[str]:
    """Write the metrics' tables (``NAME.csv``) and the experiment's plots (``STEM.png`` and
    ``STEM.svg``) into ``out_dir``; the names written, in that order."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for name, table in metrics.tables.items():
        write_csv(out / f"{name}.csv", table)
        files.append(f"{name}.csv")
    for stem, draw in experiment.plots.items():
        files += save_figure(draw(metrics), out, stem)
    return files


def judge(experiment: Experiment, metrics: Metrics) -> list[dict[str, Any]]:
    """Every claim's row of summary.json, in the declaration's order, each with its id."""
    return [{"id": experiment.claim_id(claim), **claim.judge(metrics)} for claim in experiment.claims]
