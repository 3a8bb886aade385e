"""The Judd stability, timeout and task-completion experiments (judd-stability-tcp,
judd-stability-dctcp, judd-stability-tcp-2flows, judd-impact-of-timeouts,
judd-task-completion-pdf): scenarios against the stated setups, and the analysis and checks
on inputs computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dcsim.experiments import judd
from dcsim.experiments import judd_impact_of_timeouts as it
from dcsim.experiments import judd_stability as js
from dcsim.experiments import judd_stability_dctcp as sd
from dcsim.experiments import judd_stability_tcp as stcp
from dcsim.experiments import judd_stability_tcp_2flows as s2
from dcsim.experiments import judd_task_completion_pdf as tc
from dcsim.scenario import resolved

MODULES = [stcp, sd, s2, it, tc]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.ID)
def test_interface(module):
    assert module.ID.startswith("judd-") and module.TITLE.strip()
    assert set(module.SCALES) == {"quick", "full"}
    assert module.__doc__ and "Assumptions:" in module.__doc__ and "Outputs:" in module.__doc__
    assert module.DESCRIPTION.strip() and "\n" not in module.DESCRIPTION
    with pytest.raises(ValueError, match="scale"):
        module.run("huge", ".", 1)
    with pytest.raises(ValueError, match="scale"):
        module.scenarios("huge")


def _judd_testbed(sc: dict, hosts: int) -> None:
    assert sc["topology"] == {
        "kind": "star",
        "hosts": hosts,
        "link": {"rate_gbps": 10.0, "delay_us": 5.0, "framing_bytes": 38},
    }
    assert sc["switch"]["buffer"] == {"kind": "per_port", "limit_bytes": 5_500_000}
    t = resolved(sc)["tcp"]
    assert sc["tcp"]["profile"] == "linux_current"
    assert t["init_cwnd_segments"] == 10 and t["rto_initial_ms"] == 1000.0
    assert t["delayed_ack_segments"] == 2 and t["syn_retries"] == 6


def _protocol(sc: dict, proto: str) -> None:
    if proto == "TCP":
        assert sc["tcp"]["cc"] == "cubic" and sc["switch"]["aqm"] == {"kind": "drop_tail"}
        assert "ect_on_control" not in sc["tcp"]  # CUBIC without ECN: no ECT at all
    else:
        assert sc["tcp"]["cc"] == "dctcp"
        assert sc["switch"]["aqm"] == {
            "kind": "threshold",
            "k_packets": 20,
            "count_in_service": True,
            "nonect": "drop",
        }
        # Hosts with every fix: ECT on every packet, SYNs and ACKs included.
        assert sc["tcp"]["ect_on_control"] == "all"


# --- judd-stability-tcp / judd-stability-dctcp ------------------------------------------------


def test_five_flow_schedule_is_dctcp_fig16s_last_in_first_out():
    full = [(0.0, 270.0), (30.0, 240.0), (60.0, 210.0), (90.0, 180.0), (120.0, 150.0)]
    assert js.windows("full") == full
    assert js.windows("quick") == [(a / 10, b / 10) for a, b in full]


@pytest.mark.parametrize("scale, end", [("quick", 27.0), ("full", 270.0)])
def test_five_flow_scenarios(scale, end):
    plan = js.scenarios(scale)
    assert [p for p, _ in plan] == ["TCP", "DCTCP"]
    for proto, sc in plan:
        _judd_testbed(sc, 6)
        _protocol(sc, proto)
        assert sc["tcp"]["rto_min_ms"] == 200.0
        assert sc["sim"]["duration_s"] == end and sc["sim"]["warmup_s"] == 0.0
        assert sc["measure"]["flow_sample_us"] == 100_000.0
        assert [(f["src"], f["dst"], f["start_s"]) for f in sc["flows"]] == [
            (i + 1, 0, a) for i, (a, _) in enumerate(js.windows(scale))
        ]
        # Flow 1 runs to the end; the others stop last in, first out; no start jitter.
        assert "stop_s" not in sc["flows"][0]
        assert [f["stop_s"] for f in sc["flows"][1:]] == [b for _, b in js.windows(scale)[1:]]
        assert all("start_jitter_us" not in f for f in sc["flows"])
        # Named after the protocol, not the experiment: the two experiments share the runs.
        assert sc["name"] == f"judd-stability-{proto.lower()}"
    assert stcp.scenarios(scale) == sd.scenarios(scale) == plan


# A five-flow schedule with 2-s phases (dctcp-fig16's quick one).
WIN = [(0.0, 18.0), (2.0, 16.0), (4.0, 14.0), (6.0, 12.0), (8.0, 10.0)]


def _five_flow_samples() -> pd.DataFrame:
    """Delivered bytes every 0.1 s on :data:`WIN`: every active flow at 100 Mb/s, except in the
    2-flow phase [2, 4] s, where flow 0 alternates 700/500 Mb/s and flow 1 has 300."""
    rows = []
    for f, (start, stop) in enumerate(WIN):
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


def test_phase_rows_and_summary_by_hand():
    got = js.phase_rows(_five_flow_samples(), WIN)
    assert [r["active"] for r in got] == [1, 2, 3, 4, 5, 4, 3, 2, 1]
    assert math.isnan(got[0]["jain"])
    two = got[1]
    # Phase [2, 4] s settles for 0.4 s: 16 samples, eight each of 700 and 500 (mean 600,
    # std 100, CoV 1/6) for flow 0; flow 1 steady at 300.
    assert two["flow_mbps"] == "600.0;300.0"
    assert two["jain"] == pytest.approx(0.9)  # 900² / (2 · (600² + 300²))
    assert two["cov"] == pytest.approx(1 / 12)
    assert two["fair_share_mbps"] == pytest.approx(450.0)
    for r in got[2:-1]:
        assert r["jain"] == pytest.approx(1.0) and r["cov"] == pytest.approx(0.0, abs=1e-9)
    df = pd.DataFrame([{"protocol": "TCP", **r} for r in got])
    s = js.summarize(df)["TCP"]
    assert s["worst_jain"] == pytest.approx(0.9)
    assert len(s["jains"]) == 7  # the phases with two or more flows
    assert s["mean_cov"] == pytest.approx((1 / 12) / 7)


def _summary(tcp_jain: float, tcp_cov: float, dctcp_jain: float, dctcp_cov: float) -> dict:
    return {
        "TCP": {
            "worst_jain": tcp_jain,
            "mean_cov": tcp_cov,
            "jains": [tcp_jain],
            "covs": [tcp_cov],
        },
        "DCTCP": {
            "worst_jain": dctcp_jain,
            "mean_cov": dctcp_cov,
            "jains": [dctcp_jain],
            "covs": [dctcp_cov],
        },
    }


def test_stability_checks_hold_and_fail_at_the_stated_thresholds():
    def holds(claims, *summary):
        return [r["holds"] for r in claims(_summary(*summary))]

    assert holds(js.tcp_claims, 0.96, 0.18, 0.9999, 0.036) == [True, True]
    # Unfair phase averages; variation below 2 × DCTCP's.
    assert holds(js.tcp_claims, 0.94, 0.07, 0.9999, 0.036) == [False, False]
    assert holds(js.dctcp_claims, 0.96, 0.18, 0.9999, 0.036) == [True, True, True]
    # Unfair (0.985), rough (0.11) and rougher than TCP.
    assert holds(js.dctcp_claims, 0.96, 0.05, 0.985, 0.11) == [False, False, False]


# --- judd-stability-tcp-2flows -----------------------------------------------------------------


@pytest.mark.parametrize("scale, dur, join", [("quick", 20.0, 2.0), ("full", 120.0, 10.0)])
def test_two_flow_scenarios(scale, dur, join):
    plan = s2.scenarios(scale)
    assert [p for p, _ in plan] == ["TCP", "DCTCP"]
    for proto, sc in plan:
        _judd_testbed(sc, 3)
        _protocol(sc, proto)
        assert sc["sim"]["duration_s"] == dur
        assert sc["flows"] == [
            {"src": 1, "dst": 0, "start_s": 0.0},
            {"src": 2, "dst": 0, "start_s": join},
        ]
        assert sc["measure"]["flow_sample_us"] == 100_000.0
    assert s2.SCALES[scale]["measure_from_s"] > join


def test_two_flow_stats_by_hand():
    # 100-ms samples ending at 0.1 ... 2.0 s: flow 0 alternates 6000/4000 Mb/s, flow 1 has 5000;
    # everything before 1 s is 1 Mb/s and must be left out.
    t = np.round(np.arange(1, 21) * 0.1, 10)
    f0 = np.where(t <= 1.0, 1.0, np.where(np.arange(20) % 2 == 0, 6000.0, 4000.0))
    f1 = np.where(t <= 1.0, 1.0, 5000.0)
    rates = pd.DataFrame(
        {
            "flow": [0] * 20 + [1] * 20,
            "t_s": np.concatenate([t, t]),
            "mbps": np.concatenate([f0, f1]),
        }
    )
    st = s2.two_flow_stats(rates, 1.0, 2.0)
    assert st["samples"] == 10
    assert st["mean_mbps"] == pytest.approx([5000.0, 5000.0])
    assert st["jain_of_means"] == pytest.approx(1.0)
    assert st["covs"] == pytest.approx([0.2, 0.0])
    assert st["mean_cov"] == pytest.approx(0.1)
    # (6000, 5000): 11000² / (2 · 61e6) = 0.991803; (4000, 5000): 9000² / (2 · 41e6) = 0.987805.
    assert st["min_sample_jain"] == pytest.approx(81 / 82)
    assert st["mean_sample_jain"] == pytest.approx((121 / 122 + 81 / 82) / 2)


def test_two_flow_checks():
    tcp = {"jain_of_means": 0.99, "mean_cov": 0.13, "mean_mbps": [4300.0, 5200.0],
           "mean_sample_jain": 0.98, "min_sample_jain": 0.86}
    dctcp = {"jain_of_means": 1.0, "mean_cov": 0.022, "mean_mbps": [4750.0, 4745.0],
             "mean_sample_jain": 0.9995, "min_sample_jain": 0.995}
    assert [r["holds"] for r in s2.claims({"TCP": tcp, "DCTCP": dctcp})] == [True, True]
    tcp |= {"jain_of_means": 0.9, "mean_cov": 0.04}
    assert [r["holds"] for r in s2.claims({"TCP": tcp, "DCTCP": dctcp})] == [False, False]


# --- judd-impact-of-timeouts -------------------------------------------------------------------


def test_timeout_scenarios_are_a_100_server_64kb_incast():
    plan = it.scenarios("full")
    assert [(p, r) for p, r, _ in plan] == [
        ("TCP", 200.0),
        ("TCP", 10.0),
        ("TCP", 1.0),
        ("DCTCP", 200.0),
    ]
    for proto, rto, sc in plan:
        _judd_testbed(sc, 101)
        _protocol(sc, proto)
        assert sc["tcp"]["rto_min_ms"] == rto
        assert sc["flows"] == [] and sc["sim"]["stop_when_queries_done"] is True
        (q,) = sc["queries"]
        assert q["client"] == 0 and q["servers"] == list(range(1, 101))
        assert q["response_bytes"] == 65_536 and q["rounds"] == 2000
        assert q["arrival"] == {"kind": "barrier"} and q["persistent"] is True
        # Generous horizon: every query could take 8 RTO_min.
        assert sc["sim"]["duration_s"] >= 2000 * 8 * rto / 1e3
    assert {sc["queries"][0]["rounds"] for *_, sc in it.scenarios("quick")} == {500}
    # The query overflows the port: 6.55 MB against 5.5 MB.
    assert it.SERVERS * it.RESPONSE_BYTES > judd.PORT_BUFFER_BYTES


def test_ideal_query_time():
    # 6,553,600 B × 8 at 10 Gbps × 1460/1538.
    assert it.ideal_ms() == pytest.approx(6_553_600 * 8 / (10e9 * 1460 / 1538) * 1e3)
    assert it.ideal_ms() == pytest.approx(5.523, abs=1e-3)


def _incast(p50, p99, frac, timeouts, drops=1000, n=500) -> dict:
    return {"p50_ms": p50, "p99_ms": p99, "timeout_fraction": frac, "timeouts": timeouts,
            "completed": n, "issued": n, "drops": drops, "max_queue_bytes": 5_500_000}


def test_timeout_checks_by_hand():
    ideal = 5.52
    good = {
        ("TCP", 200.0): _incast(5.55, 284.7, 0.098, 358),
        ("TCP", 10.0): _incast(5.55, 34.6, 0.088, 300),
        ("TCP", 1.0): _incast(5.83, 5.83, 0.94, 9000),
        ("DCTCP", 200.0): _incast(5.55, 5.55, 0.0, 0, drops=0),
    }
    assert [r["holds"] for r in it.claims(good, ideal)] == [True] * 5
    bad = dict(good)
    bad[("TCP", 200.0)] = _incast(5.55, 5.6, 0.0, 0, drops=0)  # no timeouts, no tail
    bad[("TCP", 1.0)] = _incast(5.83, 12.5, 0.94, 9000)  # tail > 2 × median
    bad[("DCTCP", 200.0)] = _incast(5.55, 205.0, 0.01, 5, n=499) | {"issued": 500}
    holds = [r["holds"] for r in it.claims(bad, ideal)]
    assert holds == [False, False, False, False, False]
    # A tail beyond 4 × RTO_min is not "one timeout".
    far = dict(good)
    far[("TCP", 10.0)] = _incast(5.55, 50.0, 0.088, 300)
    assert [r["holds"] for r in it.claims(far, ideal)][1] is False


# --- judd-task-completion-pdf ------------------------------------------------------------------


def test_task_scenarios():
    plan = tc.scenarios("quick")
    assert [(p, b) for p, b, _ in plan] == [
        ("TCP", False),
        ("TCP", True),
        ("DCTCP", False),
        ("DCTCP", True),
    ]
    for proto, bulk, sc in plan:
        _judd_testbed(sc, 46)
        _protocol(sc, proto)
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
    stops = [sc["queries"][0]["stop_s"] for *_, sc in tc.scenarios("full")]
    assert stops == [pytest.approx(20.1)] * 4


def test_pdf_bins_by_hand():
    edges = tc.log_bins()
    assert len(edges) == 5 * 20 + 1
    assert edges[0] == pytest.approx(0.01) and edges[-1] == pytest.approx(1000.0)
    assert edges[20] == pytest.approx(0.1) and edges[1] / edges[0] == pytest.approx(10 ** 0.05)
    # 0.1 ms falls in bin 20; 3.5 ms in bin 40 + floor(20 · log10 3.5) = 40 + 10 = 50; values
    # beyond the range in the end bins.
    f = tc.pdf([0.1, 0.1, 3.5, 5e-4, 5e4], edges)
    assert f.sum() == pytest.approx(1.0)
    assert f[20] == pytest.approx(0.4) and f[50] == pytest.approx(0.2)
    assert f[0] == pytest.approx(0.2) and f[-1] == pytest.approx(0.2)


def _task(p50, p99=None, bulk=0.0, n=400) -> dict:
    return {"p50_ms": p50, "p99_ms": p99 or p50, "timeout_fraction": 0.0, "bulk_gbps": bulk,
            "completed": n, "issued": n}


def test_task_checks_by_hand():
    good = {
        ("TCP", False): _task(0.099),
        ("TCP", True): _task(3.48, 12.3, bulk=9.38),
        ("DCTCP", False): _task(0.099),
        ("DCTCP", True): _task(0.126, bulk=9.37),
    }
    assert [r["holds"] for r in tc.claims(good)] == [True] * 4
    bad = {
        ("TCP", False): _task(0.099),
        ("TCP", True): _task(0.9, bulk=9.38),  # below a millisecond (9 ×)
        ("DCTCP", False): _task(0.099),
        ("DCTCP", True): _task(0.25, bulk=8.5, n=399) | {"issued": 400},  # 2.5 ×, 91% goodput
    }
    assert [r["holds"] for r in tc.claims(bad)] == [False] * 4
