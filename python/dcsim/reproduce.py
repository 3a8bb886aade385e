"""`dcsim reproduce`: run paper experiments into a results directory, then write its report.

Layout of the directory ``OUT``:

- ``OUT/ID/``: one experiment's ``summary.json``, data files and plots, on its own testbed;
  ``OUT/ID@TESTBED/`` the same on another testbed (``--testbed``). An experiment runs into
  ``OUT/.ID.partial/`` and only a finished one replaces ``OUT/ID/`` (one rename), so an
  interrupted or failed run leaves the previous results whole and no half-written file.
- ``OUT/.cache/``: one entry per simulation (:mod:`dcsim.executor`); a rerun only simulates
  scenarios whose content or engine changed.
- ``OUT/index.html``: the report (:mod:`dcsim.report`).

An experiment whose summary was written by the same engine build, at the same scale, on the
same testbed, by the same experiment code (its cache key) is not run again unless ``force``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import Progress
from rich.table import Table

from . import executor, report
from .experiments import Experiment, paper_of, runner, testbed_for
from .files import plain, write_json

CACHE_DIR = ".cache"


@dataclass
class Outcome:
    exp_id: str  # the directory's name: ID, or ID@TESTBED on another testbed
    status: str  # "ran", "cached" (results kept), "failed"
    held: int = 0  # paper claims holding, of `claims`
    claims: int = 0
    checks_held: int = 0  # our own checks (every other kind) holding, of `checks`
    checks: int = 0
    wall_seconds: float = 0.0
    simulated: int = 0
    from_cache: int = 0
    error: str | None = None


def run(
    registry: dict[str, Experiment],
    selected: list[str],
    scale: str,
    out: Path,
    jobs: int,
    force: bool = False,
    quiet: bool = False,
    scheduler: str | None = None,
    testbeds: Sequence[str | None] = (None,),
) -> tuple[list[Outcome], Path]:
    """Run ``selected`` experiments of ``registry`` into ``out``, each on each of ``testbeds``
    (None: its own); then write the report. Returns the outcomes and the report's path.
    Ctrl-C stops after cleaning up the experiment in progress; the report then covers every
    finished one."""
    console = Console(stderr=True, quiet=quiet)  # progress bars and interruptions
    said = executor.report_console(quiet)  # each experiment's outcome and the closing table
    live = console.is_terminal and not quiet
    outcomes: list[Outcome] = []
    failures: dict[str, str] = {}
    progress = Progress(
        *executor.progress_columns(),
        console=console,
        disable=not live,
        transient=True,
        # On one terminal, lines for stdout print above the bars; into a file they go as they are.
        redirect_stdout=sys.stdout.isatty(),
    )
    # One run per result directory: `--testbeds own,NAME` names an experiment's own twice.
    todo = list({result_dir_name(registry[e], t): (registry[e], t) for e in selected for t in testbeds}.values())
    runs = _Runs(fresh=set(), prefetch=_prefetch(todo, scale, out, jobs, force) if scheduler is None else None)
    try:
        with progress:
            overall = progress.add_task("experiments", total=len(todo))
            for n, (experiment, name) in enumerate(todo, 1):
                dir_name = result_dir_name(experiment, name)
                prefix = f"[{n}/{len(todo)}] {dir_name}"
                sims = progress.add_task(f"{dir_name}: simulations", total=0)
                outcome = _one(experiment, name, scale, out, jobs, force, scheduler, runs, progress, sims, said, prefix)
                progress.remove_task(sims)
                progress.advance(overall)
                outcomes.append(outcome)
                if outcome.status == "failed":
                    failures[dir_name] = outcome.error or "failed"
    except KeyboardInterrupt:
        if any(p.parent.name[:1] != "." for p in out.glob("*/summary.json")):
            _say(console, "interrupted: finished experiments are kept; writing the report")
            report.write_index(out, registry, failures)
        else:
            _say(console, "interrupted before any experiment finished: no report written")
        raise
    finally:
        if runs.prefetch is not None:
            runs.prefetch.close()
    index = report.write_index(out, registry, failures)
    if outcomes:
        said.print(_table(outcomes))
    return outcomes, index


@dataclass
class _Runs:
    """What the experiments of one `reproduce` share: the runs it made so far (cache keys)
    and the runs started ahead."""

    fresh: set[str]
    prefetch: executor.Prefetch | None


def _prefetch(todo: list[tuple[Experiment, str | None]], scale: str, out: Path, jobs: int, force: bool) -> executor.Prefetch | None:
    """With several local workers: every simulation the experiments in ``todo`` will ask for
    first (those kept from an earlier run aside), started now in their order. An experiment
    whose plan fails is left out here: its own run reports the error."""
    if jobs <= 1:
        return None
    prefetch = executor.Prefetch(out / CACHE_DIR, jobs, force)
    try:
        for experiment, name in todo:
            if _kept(experiment, name, scale, out, force) is not None:
                continue
            try:
                plan = dict(experiment.scenarios(experiment.params(scale), testbed_for(experiment, name)))
            except Exception:
                continue
            prefetch.add(plan.values())
    except BaseException:
        prefetch.close()
        raise
    return prefetch


def _kept(experiment: Experiment, testbed_name: str | None, scale: str, out: Path, force: bool) -> dict[str, Any] | None:
    """The summary of the experiment's results in ``out``, if they are kept: not ``force``d,
    from the same code, engine, scale and testbed, with every file still there."""
    final = out / result_dir_name(experiment, testbed_name)
    previous = _read_summary(final)
    key = _experiment_key(scale, testbed_for(experiment, testbed_name).name)
    if force or previous is None or previous.get("cache_key") != key or not _intact(final, previous):
        return None
    return previous


def result_dir_name(experiment: Experiment, testbed: str | None) -> str:
    """Where an experiment's results go in the output directory: ``ID`` on its own testbed,
    ``ID@TESTBED`` on another."""
    name = testbed_for(experiment, testbed).name
    return experiment.id if name == experiment.testbed else f"{experiment.id}@{name}"


def tally(summary: dict[str, Any]) -> tuple[int, int, int, int]:
    """Paper claims holding and counted, then our own checks holding and counted."""
    return (*report.claims_held(summary, True), *report.claims_held(summary, False))


def _one(
    experiment: Experiment,
    testbed_name: str | None,
    scale: str,
    out: Path,
    jobs: int,
    force: bool,
    scheduler: str | None,
    runs: _Runs,
    progress: Progress,
    sims: Any,
    console: Console,
    prefix: str,
) -> Outcome:
    testbed = testbed_for(experiment, testbed_name)
    exp_id = result_dir_name(experiment, testbed_name)
    final = out / exp_id
    key = _experiment_key(scale, testbed.name)
    previous = _kept(experiment, testbed_name, scale, out, force)
    if previous is not None:
        counts = tally(previous)
        _say(console, f"{prefix}: unchanged since its last run, kept ({_counted(*counts)})")
        return Outcome(exp_id, "cached", *counts, float(previous.get("wall_seconds", 0.0)))

    _say(console, f"{prefix}: {experiment.full_title} ({scale}, {testbed.name}) ...")
    staging = out / f".{exp_id}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    ctx = executor.RunContext(
        cache_dir=out / CACHE_DIR,
        force=force,
        scheduler=scheduler,
        fresh=runs.fresh,
        prefetch=runs.prefetch,
        on_planned=lambda n: progress.update(sims, total=_total(progress, sims) + n),
        on_done=lambda: progress.advance(sims),
    )
    start = time.perf_counter()
    try:
        with executor.using(ctx):
            outcome = runner.run(experiment, scale, staging, jobs, testbed)
        paper = paper_of(experiment.id)
        summary = plain(
            {
                "id": experiment.id,
                "title": experiment.full_title,
                "scale": scale,
                "wall_seconds": round(time.perf_counter() - start, 3),
                "claims": outcome["claims"],
                "metrics": outcome["metrics"],
                # Tables the source publishes, with its numbers beside ours (the report shows them).
                "tables": outcome["tables"],
                "paper": paper.short,
                "citation": paper.citation,
                "reproduces": experiment.reproduces,
                # The testbed its scenarios were built for (`dcsim list --testbeds`).
                "testbed": testbed.name,
                "engine": executor.engine_fingerprint(),
                "seeds": sorted(ctx.seeds),
                # The hosts' TCP stack profiles its scenarios ran (docs/stacks.md).
                "stacks": sorted(ctx.stacks),
                "simulations": {"run": ctx.simulated, "from_cache": ctx.from_cache},
                "cache_key": key,
                # What the experiment wrote, with sizes: a kept result must still have it all.
                "outputs": _outputs(staging),
            }
        )
        write_json(staging / "summary.json", summary)
    except (KeyboardInterrupt, executor.SchedulerError):
        shutil.rmtree(staging, ignore_errors=True)
        raise
    except Exception as e:  # an experiment's bug: report it and go on with the others
        shutil.rmtree(staging, ignore_errors=True)
        traceback.print_exc()
        error = f"{type(e).__name__}: {e}"
        # Older results must not be reported as this run's.
        shutil.rmtree(final, ignore_errors=True)
        _say(console, f"{prefix}: FAILED ({error})")
        return Outcome(exp_id, "failed", error=error, simulated=ctx.simulated, from_cache=ctx.from_cache)
    _replace_dir(staging, final)
    counts = tally(summary)
    _say(console, f"{prefix}: done in {summary['wall_seconds']:.1f} s, {_counted(*counts)}")
    return Outcome(exp_id, "ran", *counts, summary["wall_seconds"], ctx.simulated, ctx.from_cache)


def _counted(held: int, claims: int, checks_held: int, checks: int) -> str:
    text = f"{held} of {claims} paper claims hold"
    return text + (f", {checks_held} of {checks} checks" if checks else "")


def _outputs(exp_dir: Path) -> dict[str, int]:
    return {
        p.relative_to(exp_dir).as_posix(): p.stat().st_size for p in sorted(exp_dir.rglob("*")) if p.is_file() and p.name != "summary.json"
    }


def _intact(exp_dir: Path, summary: dict[str, Any]) -> bool:
    """Every file the summary lists is there, with its size."""
    outputs = summary.get("outputs")
    if not isinstance(outputs, dict):
        return False
    for name, size in outputs.items():
        path = exp_dir / name
        if not path.is_file() or path.stat().st_size != size:
            return False
    return True


def _total(progress: Progress, task_id: Any) -> float:
    return next(t.total or 0 for t in progress.tasks if t.id == task_id)


def _replace_dir(staging: Path, final: Path) -> None:
    """Put ``staging`` in ``final``'s place: the old results go only once the new are whole."""
    old = final.with_name(f".{final.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        final.rename(old)
    staging.rename(final)
    shutil.rmtree(old, ignore_errors=True)


def _read_summary(exp_dir: Path) -> dict[str, Any] | None:
    try:
        return json.loads((exp_dir / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _experiment_key(scale: str, testbed: str) -> str:
    """Engine build, scale, testbed and the experiment code: every module of the
    experiments package and of the package's run path (an experiment's results depend on
    its declaration, its paper's shared runs and testbeds, and the runner)."""
    h = hashlib.sha256(f"{executor.engine_fingerprint()}\n{scale}\n{testbed}\n".encode())
    h.update(_package_digest().encode())
    return h.hexdigest()


@cache
def _package_digest() -> str:
    here = Path(__file__).parent
    h = hashlib.sha256()
    sources = [*(here / "experiments").rglob("*.py"), *(here / name for name in ("executor.py", "run.py", "results.py", "files.py"))]
    for path in sorted(sources):
        h.update(path.relative_to(here).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _table(outcomes: list[Outcome]) -> Table:
    table = Table(title="dcsim reproduce", title_justify="left")
    for name, justify in (
        ("experiment", "left"),
        ("paper claims holding", "right"),
        ("checks holding", "right"),
        ("wall s", "right"),
        ("simulations run / cached", "right"),
        ("note", "left"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for o in sorted(outcomes, key=lambda o: (o.status != "failed", (o.held, o.checks_held) == (o.claims, o.checks))):
        note = {"failed": f"[red]failed: {escape(o.error or '')}[/red]", "cached": "unchanged, kept"}.get(o.status, "")
        table.add_row(
            o.exp_id,
            _cell(o, o.held, o.claims),
            _cell(o, o.checks_held, o.checks),
            f"{o.wall_seconds:.1f}",
            f"{o.simulated} / {o.from_cache}",
            note,
        )
    return table


def _cell(o: Outcome, held: int, total: int) -> str:
    if o.status == "failed":
        return ""
    return f"[red]{held} / {total}[/red]" if held < total else f"{held} / {total}"


def _say(console: Console, text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)


__all__ = ["Outcome", "result_dir_name", "run", "tally"]
