"""The Judd query experiments judd-impact-of-timeouts and judd-task-completion-pdf: scenarios
against the stated setups, and the analysis and claims on inputs computed by hand. Both run
end to end in the README's `dcsim reproduce` test (test_readme.py)."""

from __future__ import annotations

import dataclasses

import pytest

import dcsim
from conftest import assert_judd_testbed, assert_judd_transport
from dcsim.experiments import TESTBEDS, Experiment, Metrics, Runs
from dcsim.experiments.judd import impact_of_timeouts as it
from dcsim.experiments.judd import task_completion_pdf as tc
from dcsim.experiments.judd.testbeds import PORT_BUFFER_BYTES

TESTBED = TESTBEDS["judd_testbed"]


def plan(experiment: Experiment, scale: str) -> dict:
    return dict(experiment.scenarios(experiment.params(scale), TESTBED))


def _holds(experiment: Experiment, m: Metrics) -> list[bool]:
    return [c.judge(m)["holds"] for c in experiment.claims]


# --- judd-impact-of-timeouts -------------------------------------------------------------------


def test_timeout_scenarios_are_a_100_server_64kb_incast():
    runs = plan(it.EXPERIMENT, "full")
    assert list(runs) == [("TCP", 200.0), ("TCP", 10.0), ("TCP", 1.0), ("DCTCP", 200.0)]
    for (proto, rto), sc in runs.items():
        assert_judd_testbed(sc, 101)
        assert_judd_transport(sc, proto)
        assert sc["tcp"]["rto_min_ms"] == rto and sc["tcp"]["timer_tick_ms"] == 0.0
        assert sc["flows"] == [] and sc["sim"]["stop_when_queries_done"] is True
        (q,) = sc["queries"]
        assert q["client"] == 0 and q["servers"] == list(range(1, 101))
        assert q["response_bytes"] == 65_536 and q["rounds"] == 2000
        assert q["arrival"] == {"kind": "barrier"} and q["persistent"] is True
        # Generous horizon: every query could take 8 RTO_min.
        assert sc["sim"]["duration_s"] >= 2000 * 8 * rto / 1e3
    assert {sc["queries"][0]["rounds"] for sc in plan(it.EXPERIMENT, "quick").values()} == {500}
    # The query overflows the port: 6.55 MB against 5.5 MB.
    assert it.SERVERS * it.RESPONSE_BYTES > PORT_BUFFER_BYTES


def test_ideal_query_time():
    # 6,553,600 B × 8 at 10 Gbps × 1460/1538.
    assert it.ideal_ms(38) == pytest.approx(6_553_600 * 8 / (10e9 * 1460 / 1538) * 1e3)
    assert it.ideal_ms(38) == pytest.approx(5.523, abs=1e-3)


def _incast(p50, p99, frac, timeouts, drops=1000, n=500) -> dict:
    return {
        "p50_ms": p50,
        "p99_ms": p99,
        "timeout_fraction": frac,
        "timeouts": timeouts,
        "completed": n,
        "issued": n,
        "drops": drops,
        "max_queue_bytes": 5_500_000,
    }


def _timeout_metrics(stats: dict, ideal: float = 5.52, port_bytes: float = 5_500_000) -> Metrics:
    return Metrics(values={"ideal_ms": ideal, "port_buffer_bytes": port_bytes, "stats": {it.label(*k): v for k, v in stats.items()}})


def test_timeout_claims_by_hand():
    good = {
        ("TCP", 200.0): _incast(5.55, 284.7, 0.098, 358),
        ("TCP", 10.0): _incast(5.55, 34.6, 0.088, 300),
        ("TCP", 1.0): _incast(5.83, 5.83, 0.94, 9000),
        ("DCTCP", 200.0): _incast(5.55, 5.55, 0.0, 0, drops=0),
    }
    assert _holds(it.EXPERIMENT, _timeout_metrics(good)) == [True] * 5
    bad = dict(good)
    bad[("TCP", 200.0)] = _incast(5.55, 5.6, 0.0, 0, drops=0)  # no timeouts, no tail
    bad[("TCP", 1.0)] = _incast(5.83, 12.5, 0.94, 9000)  # tail > 2 × median
    bad[("DCTCP", 200.0)] = _incast(5.55, 205.0, 0.01, 5, n=499) | {"issued": 500}
    assert _holds(it.EXPERIMENT, _timeout_metrics(bad)) == [False] * 5
    # A tail beyond 4 × RTO_min is not "one timeout".
    far = dict(good)
    far[("TCP", 10.0)] = _incast(5.55, 50.0, 0.088, 300)
    assert _holds(it.EXPERIMENT, _timeout_metrics(far))[1] is False


def test_timeouts_analysis_follows_the_testbed():
    """One query per configuration on a testbed without framing and with a 10,000-packet port:
    the ideal time is at 10 Gbps × 1460 / 1500, the port 15 MB, and the claim says so."""
    tb = dataclasses.replace(
        TESTBED, link={"delay_us": 5.0, "framing_bytes": 0}, buffers={10.0: {"kind": "per_port", "limit_packets": 10_000}}
    )
    p = {"rounds": 1}
    plan = dict(it.EXPERIMENT.scenarios(p, tb))
    m = it.EXPERIMENT.analyze(Runs("test", p, tb, plan, {key: dcsim.run(sc) for key, sc in plan.items()}))
    assert m["port_buffer_bytes"] == 15_000_000
    assert m["ideal_ms"] == pytest.approx(6_553_600 * 8 / (10e9 * 1460 / 1500) * 1e3)
    assert it.EXPERIMENT.claims[0].judge(m)["claim"].endswith("the 15.0 MB port having overflowed")
    # On the Judd testbed: its 5.5 MB port.
    stats = {k: _incast(5.55, 5.55, 0.0, 0) for k in it.CONFIGS}
    assert it.EXPERIMENT.claims[0].judge(_timeout_metrics(stats))["claim"].endswith("the 5.5 MB port having overflowed")


def test_the_completion_check_names_the_queries_per_configuration():
    stats = {k: _incast(5.55, 5.55, 0.0, 0) for k in it.CONFIGS}
    row = it.EXPERIMENT.claims[-1].judge(_timeout_metrics(stats))
    assert row["kind"] == "check" and row["paper"] == "500 queries per configuration"
    assert row["measured"] == "2000/2000 completed"


# --- judd-task-completion-pdf ------------------------------------------------------------------


def test_task_scenarios():
    runs = plan(tc.EXPERIMENT, "quick")
    assert set(runs) == {("TCP", False), ("TCP", True), ("DCTCP", False), ("DCTCP", True)}
    for (proto, bulk), sc in runs.items():
        assert_judd_testbed(sc, 46)
        assert_judd_transport(sc, proto)
        assert sc["tcp"]["rto_min_ms"] == 200.0
        assert sc["sim"]["warmup_s"] == 0.1 and sc["sim"]["duration_s"] == pytest.approx(2.6)
        (q,) = sc["queries"]
        assert q["client"] == 0 and q["servers"] == list(range(1, 44))
        assert q["response_bytes"] == 2000 and q["persistent"] is True
        assert q["arrival"] == {"kind": "poisson", "mean_interval_ms": 5.0}
        assert q["start_s"] == 0.1 and q["stop_s"] == pytest.approx(2.1)
        assert q["rounds"] > 2.0 / 0.005 * 2  # the stop time, not the count, ends the tasks
        if bulk:
            # The bulk job's two flows go to the aggregator's host: its port is theirs.
            assert [(f["src"], f["dst"]) for f in sc["flows"]] == [(44, 0), (45, 0)]
            assert all("bytes" not in f and f["start_s"] == 0.0 for f in sc["flows"])
        else:
            assert sc["flows"] == []
    stops = [sc["queries"][0]["stop_s"] for sc in plan(tc.EXPERIMENT, "full").values()]
    assert stops == [pytest.approx(20.1)] * 4


def test_pdf_bins_by_hand():
    edges = tc.log_bins()
    assert len(edges) == 5 * 20 + 1
    assert edges[0] == pytest.approx(0.01) and edges[-1] == pytest.approx(1000.0)
    assert edges[20] == pytest.approx(0.1) and edges[1] / edges[0] == pytest.approx(10**0.05)
    # 0.1 ms falls in bin 20; 3.5 ms in bin 40 + floor(20 · log10 3.5) = 40 + 10 = 50; values
    # beyond the range in the end bins.
    f = tc.pdf([0.1, 0.1, 3.5, 5e-4, 5e4], edges)
    assert f.sum() == pytest.approx(1.0)
    assert f[20] == pytest.approx(0.4) and f[50] == pytest.approx(0.2)
    assert f[0] == pytest.approx(0.2) and f[-1] == pytest.approx(0.2)


def _task(p50, p99=None, bulk=0.0, n=400) -> dict:
    return {"p50_ms": p50, "p99_ms": p99 or p50, "timeout_fraction": 0.0, "bulk_gbps": bulk, "completed": n, "issued": n}


def _task_metrics(stats: dict) -> Metrics:
    return Metrics(values={"stats": {tc.stats_key(*k): v for k, v in stats.items()}})


def test_task_claims_by_hand():
    good = {
        ("TCP", False): _task(0.099),
        ("TCP", True): _task(3.48, 12.3, bulk=9.38),
        ("DCTCP", False): _task(0.099),
        ("DCTCP", True): _task(0.126, bulk=9.37),
    }
    assert _holds(tc.EXPERIMENT, _task_metrics(good)) == [True] * 4
    bad = {
        ("TCP", False): _task(0.099),
        ("TCP", True): _task(0.9, bulk=9.38),  # below a millisecond (9 ×)
        ("DCTCP", False): _task(0.099),
        ("DCTCP", True): _task(0.25, bulk=8.5, n=399) | {"issued": 400},  # 2.5 ×, 91% goodput
    }
    assert _holds(tc.EXPERIMENT, _task_metrics(bad)) == [False] * 4
