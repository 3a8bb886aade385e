"""Running scenarios: one in this process, or many across processes."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from . import _core
from .results import Results
from .scenario import ScenarioError, load_scenario, to_json

Scenario = dict[str, Any] | str | Path


def run(scenario: Scenario) -> Results:
    """Run one scenario: a dict, or the path of a TOML file.

    Raises ScenarioError (naming the file or the scenario's name, the field and the reason)
    if the scenario is not valid.
    """
    if isinstance(scenario, (str, Path)):
        source = str(scenario)
        scenario = load_scenario(scenario)
    else:
        source = scenario.get("name") or "<scenario>"
    try:
        raw = _core.run_json(to_json(scenario, source))
    except ValueError as e:
        raise ScenarioError.from_engine(source, e) from None
    return Results(json.loads(raw))


def run_many(scenarios: Iterable[Scenario], jobs: int | None = None) -> list[Results]:
    """Run scenarios in parallel, one process per core by default; results in input order.

    One simulation uses one core, so a sweep scales with processes. `jobs=1` runs them
    one after the other in this process (simpler to debug and profile).
    """
    scenarios = list(scenarios)
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or len(scenarios) <= 1:
        return [run(scenario) for scenario in scenarios]
    with ProcessPoolExecutor(max_workers=min(jobs, len(scenarios))) as pool:
        return list(pool.map(run, scenarios))
