"""judd-connection-establishment: its four configurations against the stated setup, and its
analysis by hand. It runs end to end in the README's `dcsim reproduce` test (test_readme.py)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from dcsim import _core
from dcsim.experiments import judd
from dcsim.experiments import judd_connection_establishment as ce


def test_interface():
    assert set(ce.SCALES) == {"quick", "full"}
    assert ce.__doc__ and "Assumptions:" in ce.__doc__ and "Outputs:" in ce.__doc__
    with pytest.raises(ValueError, match="scale"):
        ce.run("huge", ".", 1)
    with pytest.raises(ValueError, match="config"):
        ce.scenario("two queues", "quick")


@pytest.mark.parametrize("scale", ["quick", "full"])
def test_configurations_differ_only_in_the_handshake_codepoint_and_the_classes(scale):
    plan = dict(ce.scenarios(scale))
    assert list(plan) == list(ce.CONFIGS)
    for sc in plan.values():
        _core.validate_json(json.dumps(sc))
        # Four long DCTCP flows into host 0 through RED-ECN at K, stopping together.
        assert sc["switch"]["aqm"] == judd.red_ecn() and sc["tcp"]["cc"] == "dctcp"
        assert [(f["src"], f["dst"], f["stop_s"]) for f in sc["flows"]] == [
            (h, 0, ce.SCALES[scale]["long_stop_s"]) for h in range(1, 5)
        ]
        # Host 5 opens one-shot connections to host 0 at 100 per second.
        (q,) = sc["queries"]
        t0, t1 = ce.SCALES[scale]["arrivals_s"]
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


def test_connections_are_the_query_connections_with_their_setup():
    res = {
        "flows": {
            "id": np.array([0, 1, 2]),
            "workload": np.array([np.nan, 0, 0]),
            "start_s": np.array([0.0, 0.1, 0.2]),
            "setup_s": np.array([1e-4, 1.0001, np.nan]),
            "syn_retries": np.array([0, 1, 6]),
            "failed": np.array([False, False, True]),
        }
    }
    conns = ce.connections(res, ce.SHARED)
    assert conns.flow.tolist() == [1, 2] and conns.syn_retries.tolist() == [1, 6]
    assert conns.setup_s.iloc[0] == 1.0001 and math.isnan(conns.setup_s.iloc[1])


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
