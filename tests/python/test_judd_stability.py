"""The Judd stability experiments (judd-stability-tcp, judd-stability-dctcp,
judd-stability-tcp-2flows): scenarios against the stated setups, the five-flow runs the first
two share, and the analysis and claims on inputs computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from conftest import assert_judd_testbed, assert_judd_transport, five_flow_samples
from dcsim import Results
from dcsim.experiments import TESTBEDS, Experiment, Metrics, Runs
from dcsim.experiments.analysis import last_in_first_out, settled_phase_rows
from dcsim.experiments.judd import stability as js
from dcsim.experiments.judd import stability_dctcp as sd
from dcsim.experiments.judd import stability_tcp as stcp
from dcsim.experiments.judd import stability_tcp_2flows as s2

TESTBED = TESTBEDS["judd_testbed"]


def plan(experiment: Experiment, scale: str) -> dict:
    return dict(experiment.scenarios(experiment.params(scale), TESTBED))


def _holds(experiment: Experiment, m: Metrics) -> list[bool]:
    return [c.judge(m)["holds"] for c in experiment.claims]


# --- judd-stability-tcp / judd-stability-dctcp ------------------------------------------------


def test_tcp_and_dctcp_declare_the_same_runs():
    # One builder and one set of scales: the two experiments share their simulations.
    assert stcp.EXPERIMENT.scenarios is sd.EXPERIMENT.scenarios is js.five_flow_scenarios
    assert stcp.EXPERIMENT.scales is sd.EXPERIMENT.scales is js.FIVE_FLOW_SCALES


def test_five_flow_schedule_is_dctcp_fig16s_last_in_first_out():
    full = [(0.0, 270.0), (30.0, 240.0), (60.0, 210.0), (90.0, 180.0), (120.0, 150.0)]
    assert last_in_first_out(js.FLOWS, js.FIVE_FLOW_SCALES["full"]["spacing_s"]) == full
    assert last_in_first_out(js.FLOWS, js.FIVE_FLOW_SCALES["quick"]["spacing_s"]) == [(a / 10, b / 10) for a, b in full]


@pytest.mark.parametrize("scale, end", [("quick", 27.0), ("full", 270.0)])
def test_five_flow_scenarios(scale, end):
    runs = plan(stcp.EXPERIMENT, scale)
    win = last_in_first_out(js.FLOWS, js.FIVE_FLOW_SCALES[scale]["spacing_s"])
    assert list(runs) == ["TCP", "DCTCP"]
    for proto, sc in runs.items():
        assert_judd_testbed(sc, 6)
        assert_judd_transport(sc, proto)
        assert sc["tcp"]["rto_min_ms"] == 200.0
        assert sc["sim"]["duration_s"] == end and sc["sim"]["warmup_s"] == 0.0
        assert sc["measure"]["flow_sample_us"] == 100_000.0
        assert [(f["src"], f["dst"], f["start_s"]) for f in sc["flows"]] == [(i + 1, 0, a) for i, (a, _) in enumerate(win)]
        # Flow 1 runs to the end; the others stop last in, first out; no start jitter.
        assert "stop_s" not in sc["flows"][0]
        assert [f["stop_s"] for f in sc["flows"][1:]] == [b for _, b in win[1:]]
        assert all("start_jitter_us" not in f for f in sc["flows"])
        # Named after the protocol, not the experiment: the two experiments share the runs.
        assert sc["name"] == f"judd-stability-{proto.lower()}"
    assert plan(sd.EXPERIMENT, scale) == runs


def test_an_unknown_protocol_is_refused():
    with pytest.raises(ValueError, match="protocol"):
        js.protocol_setup("Reno")


# A five-flow schedule with 2-s phases (dctcp-fig16's quick one).
WIN = [(0.0, 18.0), (2.0, 16.0), (4.0, 14.0), (6.0, 12.0), (8.0, 10.0)]


def test_phase_rows_and_summary_by_hand():
    got = settled_phase_rows(five_flow_samples(WIN), WIN, js.SETTLE_FRACTION, js.SAMPLE_S)
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


def _results(fs: pd.DataFrame, timeouts: int = 0) -> Results:
    """Results holding only flow samples and per-flow timeout counts."""
    flows = sorted(fs.flow.unique())
    return Results(
        {
            "flow_samples": {c: fs[c].to_numpy() for c in ("flow", "t_s", "delivered_bytes")},
            "flows": {"timeouts": np.array([timeouts] + [0] * (len(flows) - 1))},
        }
    )


def test_five_flow_metrics_write_the_experiments_own_tables():
    fs = five_flow_samples(WIN)
    p = {"spacing_s": 2.0}
    scenarios = js.five_flow_scenarios(p, TESTBED)
    runs = Runs("quick", p, TESTBED, scenarios, {"TCP": _results(fs, timeouts=3), "DCTCP": _results(fs)})
    m = sd.EXPERIMENT.analyze(runs)
    assert list(m.tables) == ["judd_stability_dctcp_phases", "judd_stability_dctcp_series"]
    phases = m.tables["judd_stability_dctcp_phases"]
    assert "flows" not in phases and list(phases.protocol.unique()) == ["TCP", "DCTCP"]
    assert m["spacing_s"] == 2.0 and m["timeouts"] == {"TCP": 3, "DCTCP": 0}
    assert m["summary"]["TCP"]["worst_jain"] == pytest.approx(0.9)
    assert len(m["phases"]) == 2 * 9
    # DCTCP's panel on top.
    fig = sd.EXPERIMENT.plots["judd_stability_dctcp"](m)
    assert [ax.get_title()[:9] for ax in fig.axes] == ["(a) DCTCP", "(b) TCP: "]
    assert fig.axes[-1].get_xlabel() == "Time (s) (flows join 2 s apart, leave last in first out)"


def _summary(tcp_jain: float, tcp_cov: float, dctcp_jain: float, dctcp_cov: float) -> Metrics:
    return Metrics(
        values={
            "summary": {
                "TCP": {"worst_jain": tcp_jain, "mean_cov": tcp_cov, "jains": [tcp_jain], "covs": [tcp_cov]},
                "DCTCP": {"worst_jain": dctcp_jain, "mean_cov": dctcp_cov, "jains": [dctcp_jain], "covs": [dctcp_cov]},
            }
        }
    )


def test_stability_claims_hold_and_fail_at_the_stated_thresholds():
    assert _holds(stcp.EXPERIMENT, _summary(0.96, 0.18, 0.9999, 0.036)) == [True, True]
    # Unfair phase averages; variation below 2 × DCTCP's.
    assert _holds(stcp.EXPERIMENT, _summary(0.94, 0.07, 0.9999, 0.036)) == [False, False]
    assert _holds(sd.EXPERIMENT, _summary(0.96, 0.18, 0.9999, 0.036)) == [True, True, True]
    # Unfair (0.985), rough (0.11) and rougher than TCP.
    assert _holds(sd.EXPERIMENT, _summary(0.96, 0.05, 0.985, 0.11)) == [False, False, False]
    row = stcp.EXPERIMENT.claims[1].judge(_summary(0.96, 0.18, 0.9999, 0.036))
    assert row["measured"] == "mean CoV TCP 0.180 vs DCTCP 0.036 (5.0×)"


# --- judd-stability-tcp-2flows -----------------------------------------------------------------


@pytest.mark.parametrize("scale, dur, join", [("quick", 20.0, 2.0), ("full", 120.0, 10.0)])
def test_two_flow_scenarios(scale, dur, join):
    runs = plan(s2.EXPERIMENT, scale)
    assert list(runs) == ["TCP", "DCTCP"]
    for proto, sc in runs.items():
        assert_judd_testbed(sc, 3)
        assert_judd_transport(sc, proto)
        assert sc["sim"]["duration_s"] == dur
        assert sc["flows"] == [
            {"src": 1, "dst": 0, "start_s": 0.0},
            {"src": 2, "dst": 0, "start_s": join},
        ]
        assert sc["measure"]["flow_sample_us"] == 100_000.0
    assert s2.EXPERIMENT.scales[scale]["measure_from_s"] > join


def _two_flow_rates() -> pd.DataFrame:
    """100-ms samples ending at 0.1 ... 2.0 s: flow 0 alternates 6000/4000 Mb/s, flow 1 has
    5000; everything before 1 s is 1 Mb/s."""
    t = np.round(np.arange(1, 21) * 0.1, 10)
    f0 = np.where(t <= 1.0, 1.0, np.where(np.arange(20) % 2 == 0, 6000.0, 4000.0))
    f1 = np.where(t <= 1.0, 1.0, 5000.0)
    return pd.DataFrame({"flow": [0] * 20 + [1] * 20, "t_s": np.concatenate([t, t]), "mbps": np.concatenate([f0, f1])})


def test_two_flow_stats_by_hand():
    # Everything before 1 s must be left out.
    st = s2.two_flow_stats(_two_flow_rates(), 1.0, 2.0)
    assert st["samples"] == 10
    assert st["mean_mbps"] == pytest.approx([5000.0, 5000.0])
    assert st["jain_of_means"] == pytest.approx(1.0)
    assert st["covs"] == pytest.approx([0.2, 0.0])
    assert st["mean_cov"] == pytest.approx(0.1)
    # (6000, 5000): 11000² / (2 · 61e6) = 0.991803; (4000, 5000): 9000² / (2 · 41e6) = 0.987805.
    assert st["min_sample_jain"] == pytest.approx(81 / 82)
    assert st["mean_sample_jain"] == pytest.approx((121 / 122 + 81 / 82) / 2)


def test_two_flow_analysis_keeps_the_schedule_for_the_plot():
    # Delivered bytes from t = 0 that give :func:`_two_flow_rates` per 100 ms.
    parts = []
    for f, g in _two_flow_rates().groupby("flow"):
        delivered = np.concatenate([[0.0], np.cumsum(g.mbps * 1e6 / 8 * 0.1)])
        parts.append(pd.DataFrame({"flow": f, "t_s": np.concatenate([[0.0], g.t_s]), "delivered_bytes": delivered}))
    fs = pd.concat(parts, ignore_index=True)
    p = {"duration_s": 2.0, "join_s": 0.5, "measure_from_s": 1.0}
    scenarios = s2.EXPERIMENT.scenarios(p, TESTBED)
    runs = Runs("quick", p, TESTBED, scenarios, {"TCP": _results(fs, timeouts=1), "DCTCP": _results(fs)})
    m = s2.EXPERIMENT.analyze(runs)
    assert list(m.tables) == ["judd_stability_tcp_2flows", "judd_stability_tcp_2flows_series", "judd_stability_tcp_2flows_schedule"]
    assert m.tables["judd_stability_tcp_2flows_schedule"].to_dict(orient="records") == [
        {"flow": 0, "src": 1, "start_s": 0.0},
        {"flow": 1, "src": 2, "start_s": 0.5},
    ]
    assert m["window_s"] == [1.0, 2.0] and m["timeouts"] == {"TCP": 1, "DCTCP": 0}
    assert m["stats"]["TCP"]["mean_mbps"] == pytest.approx([5000.0, 5000.0])
    fig = s2.EXPERIMENT.plots["judd_stability_tcp_2flows"](m)
    assert fig.axes[-1].get_xlabel() == "Time (s) (flow 2 joins at 0.5 s; measured from 1 s)"


def test_two_flow_claims():
    tcp = {
        "jain_of_means": 0.99,
        "mean_cov": 0.13,
        "mean_mbps": [4300.0, 5200.0],
        "mean_sample_jain": 0.98,
        "min_sample_jain": 0.86,
    }
    dctcp = {
        "jain_of_means": 1.0,
        "mean_cov": 0.022,
        "mean_mbps": [4750.0, 4745.0],
        "mean_sample_jain": 0.9995,
        "min_sample_jain": 0.995,
    }
    assert _holds(s2.EXPERIMENT, Metrics(values={"stats": {"TCP": tcp, "DCTCP": dctcp}})) == [True, True]
    tcp |= {"jain_of_means": 0.9, "mean_cov": 0.04}
    assert _holds(s2.EXPERIMENT, Metrics(values={"stats": {"TCP": tcp, "DCTCP": dctcp}})) == [False, False]
