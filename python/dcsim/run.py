"""Running scenarios: one in this process, or many across processes."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from . import _core
from .results import Results
from .scenario import ScenarioError, all_problems, load_scenario, read_scenario, to_json

Scenario = dict[str, Any] | str | Path


def run(scenario: Scenario, progress: Callable[[float], None] | None = None) -> Results:
    """Run one scenario: a dict, or the path of a TOML file.

    ``progress``, if given, is called now and then with the fraction of the simulated time
    done (0 to 1); Ctrl-C then stops the run with KeyboardInterrupt. Raises ScenarioError
    (naming the file or the scenario's name, the field and the reason) if the scenario is
    not valid.
    """
    if isinstance(scenario, (str, Path)):
        source = str(scenario)
        # The engine checks it as it builds the run: checking it here first would build its
        # network twice.
        scenario = read_scenario(scenario)
    elif isinstance(scenario, dict):
        source = scenario.get("name") or "<scenario>"
    else:
        raise TypeError(f"dcsim.run: a scenario is a dict or the path of a TOML file, got {type(scenario).__name__}")
    if progress is not None and not callable(progress):
        raise TypeError(f"dcsim.run: progress must be callable, got {progress!r}")
    return run_loaded(scenario, source, progress)


def run_loaded(scenario: dict[str, Any], source: str, progress: Callable[[float], None] | None) -> Results:
    """Run a scenario read from ``source`` (the file its errors name)."""
    try:
        raw = _core.run(to_json(scenario, source), progress)
    except ScenarioError as e:
        raise all_problems(scenario, e.named(source)) from None
    return Results(raw)


def run_many(scenarios: Iterable[Scenario], jobs: int | None = None, progress: bool = False) -> list[Results]:
    """Run scenarios in parallel, one process per core by default; results in input order.

    One simulation uses one core, so a sweep scales with processes. `jobs=1` runs them
    one after the other in this process (simpler to debug and profile). `progress=True`
    shows a progress bar with the time left when stderr is a terminal. Ctrl-C stops the
    workers too.
    """
    from . import executor

    if jobs is not None and (not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1):
        raise ValueError(f"dcsim.run_many: jobs must be a whole number ≥ 1 (or None for every core), got {jobs!r}")
    # Files are checked before any run starts, so that a mistake names its file at once.
    specs = [load_scenario(s) if isinstance(s, (str, Path)) else s for s in scenarios]
    for i, s in enumerate(specs):
        if not isinstance(s, dict):
            raise TypeError(f"dcsim.run_many: scenarios[{i}] is a {type(s).__name__}, not a dict or a TOML path")
    jobs = jobs or executor.usable_cores()
    if not progress:
        return [Results(raw) for raw in executor.run_scenarios(specs, jobs)]
    from rich.progress import Progress

    with Progress(*executor.progress_columns(), transient=True) as bar:
        task = bar.add_task("simulations", total=len(specs))
        context = executor.RunContext(on_done=lambda: bar.advance(task))
        with executor.using(context):
            raws = executor.run_scenarios(specs, jobs)
    return [Results(raw) for raw in raws]
