from __future__ import annotations

import copy
import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]

# Small enough (20 ms simulated) to keep the whole suite fast.
SMALL_TOML = """\
name = "small"

[sim]
duration_s = 0.02

[topology]
kind = "star"
hosts = 3

[switch.aqm]
kind = "threshold"
k_packets = 20

[tcp]
cc = "dctcp"

[measure]
queue_sample_us = 500

[[flows]]
src = 1
dst = 0

[[flows]]
src = 2
dst = 0
"""

SMALL = {
    "name": "small",
    "sim": {"duration_s": 0.02},
    "topology": {"kind": "star", "hosts": 3},
    "switch": {"aqm": {"kind": "threshold", "k_packets": 20}},
    "tcp": {"cc": "dctcp"},
    "measure": {"queue_sample_us": 500},
    "flows": [{"src": 1, "dst": 0}, {"src": 2, "dst": 0}],
}


def columns(rows: list[dict]) -> dict[str, np.ndarray]:
    """A raw table (as in ``Results.raw``) from rows written by hand; None stands for NaN."""
    return {key: np.array([np.nan if row[key] is None else row[key] for row in rows]) for key in rows[0]}


def assert_same_raw(first: dict, second: dict) -> None:
    """Two raw results (``Results.raw``) hold the same scalars and the same tables."""
    assert first.keys() == second.keys()
    for key, value in first.items():
        if isinstance(value, dict) and key != "conservation":
            assert value.keys() == second[key].keys(), key
            for column, values in value.items():
                other = second[key][column]
                assert values.dtype == other.dtype, (key, column)
                assert np.array_equal(values, other, equal_nan=values.dtype.kind == "f"), (key, column)
        else:
            assert value == second[key], key


@pytest.fixture(autouse=True, scope="session")
def engine_checks_invariants() -> Iterator[None]:
    """Every simulation the tests run in this process, or in the worker processes it forks
    (local process pools on Linux; not Dask's workers, which are new processes), checks the
    engine's invariants after every event (`sim.check_invariants`): a violation fails the
    test as an engine bug. `_core.run.unchecked` is the engine's own."""
    from dcsim import _core

    unchecked = _core.run

    def run_checked(scenario_json: str, progress: Any = None) -> Any:
        scenario = json.loads(scenario_json)
        scenario.setdefault("sim", {})["check_invariants"] = True
        return unchecked(json.dumps(scenario), progress)

    run_checked.unchecked = unchecked  # type: ignore[attr-defined]
    _core.run = run_checked
    yield
    _core.run = unchecked


@pytest.fixture
def small() -> dict:
    """A fresh copy of the small scenario, free to modify."""
    return copy.deepcopy(SMALL)


@pytest.fixture
def small_toml(tmp_path: Path) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL_TOML)
    return path


def readme_commands() -> list[str]:
    """The `dcsim ...` commands of the README's shell blocks, in order (the `pip install` and
    `make test` around them are what the test set-up itself runs)."""
    readme = (REPO / "README.md").read_text()
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", readme, re.DOTALL):
        for part in re.split(r"&&|\n", block):
            if part.strip().startswith("dcsim "):
                commands.append(part.strip())
    return commands


@pytest.fixture(scope="session")
def readme_workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory where every `dcsim` command of the README's shell blocks has run, as a new
    user runs them (the first one, `dcsim reproduce`, runs the whole quick suite and writes
    dcsim-results/ with its report). Fails on the first command that does not exit 0."""
    cwd = tmp_path_factory.mktemp("readme")
    for command in readme_commands():
        args = [sys.executable, "-c", "from dcsim.cli import main; main()", *shlex.split(command)[1:]]
        done = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
        assert done.returncode == 0, f"README: {command}\n{done.stderr[-3000:]}"
    return cwd
