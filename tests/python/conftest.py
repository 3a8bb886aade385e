from __future__ import annotations

import copy
from pathlib import Path

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


@pytest.fixture
def small() -> dict:
    """A fresh copy of the small scenario, free to modify."""
    return copy.deepcopy(SMALL)


@pytest.fixture
def small_toml(tmp_path: Path) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL_TOML)
    return path
