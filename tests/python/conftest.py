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
# Labels of the project's internal catalogue, which users never see: claim numbers, mechanism
# and assumption labels, the source catalogue's names and files outside the repository.
INTERNAL_LABELS = re.compile(
    r"\(claim \d+|§6 claim|\bspec\b|algorithms\.md|experiments\.md|\bM\d{1,2}\b|\bA\d{1,2}\b|DERIVED|ASSUMPTION|\[EXT\b|\.\./shared"
)

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


# --- what several test files check of the paper experiments -----------------------------


def assert_judd_testbed(sc: dict, hosts: int) -> None:
    """``sc`` runs on the Judd testbed: a 10 Gbps star of ``hosts`` hosts with 5.5 MB ports and
    Linux hosts of the slides' time."""
    from dcsim.scenario import resolved

    assert sc["topology"] == {"kind": "star", "hosts": hosts, "link": {"rate_gbps": 10.0, "delay_us": 5.0, "framing_bytes": 38}}
    assert sc["switch"]["buffer"] == {"kind": "per_port", "limit_bytes": 5_500_000}
    t = resolved(sc)["tcp"]
    assert sc["tcp"]["profile"] == "linux_current"
    assert t["init_cwnd_segments"] == 10 and t["rto_initial_ms"] == 1000.0
    assert t["delayed_ack_segments"] == 2 and t["syn_retries"] == 6


def assert_judd_transport(sc: dict, proto: str) -> None:
    """``sc`` runs the Judd experiments' ``proto``: CUBIC over drop-tail, or DCTCP hosts with
    every fix over RED-ECN marking at K = 20."""
    if proto == "TCP":
        assert sc["tcp"]["cc"] == "cubic" and sc["switch"]["aqm"] == {"kind": "drop_tail"}
        assert "ect_on_control" not in sc["tcp"]  # CUBIC without ECN: no ECT at all
    else:
        assert sc["tcp"]["cc"] == "dctcp"
        assert sc["switch"]["aqm"] == {"kind": "threshold", "k_packets": 20, "count_in_service": True, "nonect": "drop"}
        # Hosts with every fix: ECT on every packet, SYNs and ACKs included.
        assert sc["tcp"]["ect_on_control"] == "all"


def five_flow_samples(windows: list[tuple[float, float]]):
    """Delivered bytes every 0.1 s of flows active over ``windows`` (a five-flow schedule 2 s
    apart): every active flow at 100 Mb/s, except in the 2-flow phase [2, 4] s, where flow 0
    alternates 700/500 Mb/s and flow 1 has 300."""
    import pandas as pd

    rows = []
    for f, (start, stop) in enumerate(windows):
        total = 0.0
        for k in range(181):
            mid = k * 0.1 - 0.05  # the sample covers (t - 0.1, t]
            if k and start < mid < stop:
                rate = 100.0
                if 2.0 < mid < 4.0:
                    rate = (700.0 if k % 2 == 0 else 500.0) if f == 0 else 300.0
                total += rate * 1e6 / 8 * 0.1
            rows.append({"flow": f, "t_s": round(k * 0.1, 10), "delivered_bytes": total})
    return pd.DataFrame(rows)


def assert_smoke_run_writes_outputs(experiment: Any, tmp_path: Path, testbed: Any) -> None:
    """``experiment`` runs at its smoke scale through the runner: plain JSON, every claim judged
    with its id and kind, a CSV, a PNG and an SVG written, and no table empty or with a
    goodput outside (0, 1000) Mb/s."""
    import pandas as pd

    from dcsim.experiments import runner

    summary = runner.run(experiment, "smoke", tmp_path, 2, testbed)
    json.dumps(summary)  # plain JSON
    assert summary["claims"]
    for cl in summary["claims"]:
        assert set(cl) == {"id", "claim", "paper", "measured", "holds", "kind", "quote", "section"}
        assert isinstance(cl["holds"], bool)
        assert cl["paper"] and cl["measured"]
    files = summary["metrics"]["files"]
    for ext in ("csv", "png", "svg"):
        assert any(f.endswith("." + ext) for f in files), ext
    for f in files:
        assert (tmp_path / f).stat().st_size > 0, f
        if f.endswith(".csv"):
            df = pd.read_csv(tmp_path / f)
            assert len(df) > 0
            if "goodput_mbps" in df:
                assert (df.goodput_mbps.dropna() > 0).all()
                assert (df.goodput_mbps.dropna() < 1000).all()
