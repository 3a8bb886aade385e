"""judd-connection-establishment: its four configurations against the stated setup, its
analysis by hand and its claims. It runs end to end in the README's `dcsim reproduce` test
(test_readme.py)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

from dcsim import Results
from dcsim.experiments import TESTBEDS, Metrics
from dcsim.experiments.judd import connection_establishment as ce
from dcsim.experiments.judd.testbeds import red_ecn

EXPERIMENT = ce.EXPERIMENT


@pytest.mark.parametrize("scale", ["quick", "full"])
def test_configurations_differ_only_in_the_handshake_codepoint_and_the_classes(scale):
    p = EXPERIMENT.params(scale)
    plan = ce.scenarios(p, TESTBEDS["judd_testbed"])
    assert list(plan) == list(ce.CONFIGS)
    for sc in plan.values():
        # Four long DCTCP flows into host 0 through RED-ECN at K, stopping together.
        assert sc["switch"]["aqm"] == red_ecn() and sc["tcp"]["cc"] == "dctcp"
        assert [(f["src"], f["dst"], f["stop_s"]) for f in sc["flows"]] == [(h, 0, p["long_stop_s"]) for h in range(1, 5)]
        # Host 5 opens one-shot connections to host 0 at 100 per second.
        (q,) = sc["queries"]
        t0, t1 = p["arrivals_s"]
        assert (q["client"], q["servers"], q["persistent"]) == (5, [0], False)
        assert q["arrival"] == {"kind": "poisson", "mean_interval_ms": 10.0}
        assert q["rounds"] == round((t1 - t0) * 100) and (q["start_s"], q["stop_s"]) == (t0, t1)
        assert q["response_bytes"] == 2000 and sc["topology"]["hosts"] == 6
    t = {cfg: sc["tcp"] for cfg, sc in plan.items()}
    assert t[ce.SHARED]["ect_on_syn"] is False and t[ce.SHARED]["ect_on_control"] == "all"
    assert "ect_on_syn" not in t[ce.ECT_SYN] and t[ce.ECT_SYN]["ect_on_control"] == "all"
    assert "classes" not in plan[ce.SHARED]["switch"] and "classes" not in plan[ce.ECT_SYN]["switch"]
    assert plan[ce.SEG_ECN]["switch"]["classes"]["classify"] == {"by": "ecn", "ect": 0, "not_ect": 1}
    assert plan[ce.SEG_DSCP]["switch"]["classes"]["classify"] == {"by": "flow"}


@pytest.mark.parametrize(
    "buffer, limits",
    [
        ({"kind": "per_port", "limit_bytes": 5_500_000}, {"limit_bytes": 2_750_000}),
        ({"kind": "per_port", "limit_bytes": 1_000_000}, {"limit_bytes": 500_000}),
        ({"kind": "preset", "name": "scorpion"}, {}),
    ],
)
def test_segregated_classes_split_the_testbeds_port(buffer, limits):
    """Half of the testbed's static port limit per class; none on a shared memory."""
    tb = dataclasses.replace(TESTBEDS["judd_testbed"], buffers={10.0: buffer})
    plan = ce.scenarios(EXPERIMENT.params("quick"), tb)
    for cfg in (ce.SEG_ECN, ce.SEG_DSCP):
        assert plan[cfg]["switch"]["buffer"] == buffer
        for q in plan[cfg]["switch"]["classes"]["queues"]:
            assert {k: v for k, v in q.items() if k != "aqm"} == limits


def test_connections_are_the_query_connections_with_their_setup():
    res = Results(
        {
            "flows": {
                "id": np.array([0, 1, 2]),
                "workload": np.array([np.nan, 0, 0]),
                "start_s": np.array([0.0, 0.1, 0.2]),
                "setup_s": np.array([1e-4, 1.0001, np.nan]),
                "syn_retries": np.array([0, 1, 6]),
                "failed": np.array([False, False, True]),
            }
        }
    )
    conns = ce.connections(res, ce.SHARED)
    assert conns.flow.tolist() == [1, 2] and conns.syn_retries.tolist() == [1, 6]
    assert conns.setup_s.iloc[0] == 1.0001 and math.isnan(conns.setup_s.iloc[1])
    assert (conns.config == ce.SHARED).all() and conns.failed.tolist() == [False, True]


def test_summary_by_hand():
    conns = pd.DataFrame(
        {
            "setup_s": [1e-4, 2e-4, 3e-4, 1.0001, np.nan],
            "syn_retries": [0, 0, 0, 1, 6],
            "failed": [False, False, False, False, True],
        }
    )
    s = ce.summarize(conns, syn_drops=8)
    assert s["connections"] == 5 and s["failures"] == 1 and s["syn_drops"] == 8
    assert s["retried_share"] == pytest.approx(2 / 5)
    assert s["median_setup_ms"] == pytest.approx(0.25)  # median of 0.1, 0.2, 0.3, 1000.1 ms
    assert s["max_setup_ms"] == pytest.approx(1000.1) and s["min_retried_setup_s"] == 1.0001


def _summary(retried: float, p99_ms: float, fastest_retried_s: float = 1.0001, failures: int = 0) -> dict:
    return {
        "connections": 100,
        "retried_share": retried,
        "failures": failures,
        "median_setup_ms": 0.045,
        "p99_setup_ms": p99_ms,
        "max_setup_ms": 3000.0,
        "min_retried_setup_s": fastest_retried_s,
        "syn_drops": 60,
    }


def _holds(summary: dict) -> list[bool]:
    m = Metrics(values={"summary": summary})
    return [c.judge(m)["holds"] for c in EXPERIMENT.claims]


def test_claims_on_the_expected_outcome_and_off_it():
    good = {
        ce.SHARED: _summary(0.41, 3000.0),
        ce.ECT_SYN: _summary(0.0, 0.05, float("nan")),
        ce.SEG_ECN: _summary(0.0, 0.02, float("nan")),
        ce.SEG_DSCP: _summary(0.41, 3000.0),
    }
    assert _holds(good) == [True] * 4
    # A retried handshake faster than the 1 s SYN RTO is no SYN drop.
    assert _holds(good | {ce.SHARED: _summary(0.41, 3000.0, 0.2)}) == [False, True, True, True]
    # One fix still retries 1%, the other has a slow p99.
    assert _holds(good | {ce.ECT_SYN: _summary(0.01, 0.05)}) == [True, False, True, True]
    assert _holds(good | {ce.SEG_ECN: _summary(0.0, 1.5)}) == [True, False, True, True]
    # Segregation by DSCP protected the handshakes after all; a connection failed.
    assert _holds(good | {ce.SEG_DSCP: _summary(0.05, 0.05)}) == [True, True, False, True]
    assert _holds(good | {ce.SEG_DSCP: _summary(0.41, 3000.0, failures=1)}) == [True, True, True, False]
