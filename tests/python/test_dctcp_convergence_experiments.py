"""The DCTCP fairness and convergence experiments (dctcp-fig15, dctcp-fig16, dctcp-fairness90,
dctcp-convergence-sim): scenarios against the paper's settings, and the analysis by hand.
Each experiment runs end to end in the README's `dcsim reproduce` test (test_readme.py)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dcsim.experiments import common as c
from dcsim.experiments import (
    dctcp_convergence_sim,
    dctcp_fairness90,
    dctcp_fig14,
    dctcp_fig15,
    dctcp_fig16,
)
from dcsim.scenario import resolved

MODULES = [dctcp_fig15, dctcp_fig16, dctcp_fairness90, dctcp_convergence_sim]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.ID)
def test_interface(module):
    assert set(module.SCALES) == {"quick", "full"}
    assert module.__doc__ and "Assumptions:" in module.__doc__ and "Outputs:" in module.__doc__
    with pytest.raises(ValueError, match="scale"):
        module.run("huge", ".", 1)


# --- shared analysis ----------------------------------------------------------------------


def test_jain_by_hand():
    assert c.jain([5.0, 5.0, 5.0]) == 1.0
    assert c.jain([1.0, 0.0]) == 0.5
    # (600 + 300)² / (2 · (600² + 300²)) = 810000 / 900000
    assert c.jain([600.0, 300.0]) == pytest.approx(0.9)
    # 6² / (4 · 12)
    assert c.jain([3.0, 1.0, 1.0, 1.0]) == pytest.approx(0.75)
    assert math.isnan(c.jain([])) and math.isnan(c.jain([0.0, 0.0]))


def test_phases_of_a_schedule():
    assert c.phases([(0.0, 10.0), (5.0, 20.0)]) == [
        (0.0, 5.0, [0]),
        (5.0, 10.0, [0, 1]),
        (10.0, 20.0, [1]),
    ]
    # A stretch with no active flow is left out.
    assert c.phases([(0.0, 1.0), (2.0, 3.0)]) == [(0.0, 1.0, [0]), (2.0, 3.0, [1])]


# --- dctcp-fig15 --------------------------------------------------------------------------


def test_fig15_runs_the_papers_red_settings_on_the_fig14_setup():
    plan = dict(dctcp_fig15.scenarios("full"))
    assert list(plan) == list(dctcp_fig15.SETTINGS)
    dctcp = plan[dctcp_fig15.DCTCP]
    assert dctcp["tcp"]["cc"] == "dctcp"
    assert (
        dctcp["switch"]["aqm"]["kind"] == "threshold" and dctcp["switch"]["aqm"]["k_packets"] == 65
    )
    guideline, raised = (plan[label] for label, *_ in dctcp_fig15.RED)
    for sc, (lo, hi) in ((guideline, (50, 150)), (raised, (150, 450))):
        assert sc["tcp"]["cc"] == "tcp_ecn"
        assert sc["switch"]["aqm"] == {
            "kind": "red",
            "min_th": lo,
            "max_th": hi,
            "max_p": 0.1,
            "weight_log2": 9,  # w_q = 2^-9, "weight = 9"
            "ecn": True,
        }
    assert [gbps for *_, gbps in dctcp_fig15.RED] == [7.8, 9.2]
    # The DCTCP run is Fig. 14's K = 65 run with bursts, only named and sampled differently.
    f14 = {(b, k): sc for b, k, sc in dctcp_fig14.scenarios("full")}[(dctcp_fig14.BURST, 65)]

    def strip(sc: dict) -> dict:
        return {key: v for key, v in sc.items() if key not in ("name", "measure")}

    assert strip(dctcp) == strip(f14)
    for sc in plan.values():
        assert sc["topology"]["link"]["rate_gbps"] == 10.0 and sc["topology"]["hosts"] == 3
        assert sc["host"]["offload_burst_segments"] == 35
        assert sc["switch"]["buffer"] == {"kind": "preset", "name": "scorpion"}


def test_fig15_spread():
    assert dctcp_fig15.spread({"p95_packets": 157, "p5_packets": 40}) == 117


# --- dctcp-fig16 --------------------------------------------------------------------------


def test_fig16_schedule_is_the_papers_last_in_first_out():
    assert dctcp_fig16.windows("full") == [
        (0.0, 270.0),
        (30.0, 240.0),
        (60.0, 210.0),
        (90.0, 180.0),
        (120.0, 150.0),
    ]
    assert [len(a) for *_, a in c.phases(dctcp_fig16.windows("full"))] == [
        1,
        2,
        3,
        4,
        5,
        4,
        3,
        2,
        1,
    ]
    assert dctcp_fig16.windows("quick")[-1] == (8.0, 10.0)
    for scale, end in (("full", 270.0), ("quick", 18.0)):
        for proto, sc in dctcp_fig16.scenarios(scale):
            assert sc["sim"]["duration_s"] == end
            assert sc["topology"]["hosts"] == 6 and sc["topology"]["link"]["rate_gbps"] == 1.0
            assert sc["switch"]["buffer"] == {"kind": "preset", "name": "triumph"}
            assert sc["tcp"]["rto_min_ms"] == 300.0
            assert sc["measure"]["flow_sample_us"] == 100_000.0
            assert [(f["src"], f["dst"]) for f in sc["flows"]] == [(i, 0) for i in range(1, 6)]
            # Flow 1 runs to the end; the others stop last in, first out.
            assert "stop_s" not in sc["flows"][0]
            assert [f["stop_s"] for f in sc["flows"][1:]] == [
                w[1] for w in dctcp_fig16.windows(scale)[1:]
            ]
            if proto == "DCTCP":
                assert sc["tcp"]["cc"] == "dctcp" and sc["switch"]["aqm"]["k_packets"] == 20
            else:
                assert sc["tcp"]["cc"] == "newreno" and sc["switch"]["aqm"] == {"kind": "drop_tail"}


def _fig16_samples() -> pd.DataFrame:
    """Delivered bytes every 0.1 s on the quick schedule: every active flow at 100 Mb/s, except
    in the 2-flow phase [2, 4] s, where flow 0 alternates 700/500 Mb/s and flow 1 has 300."""
    rows = []
    for f, (start, stop) in enumerate(dctcp_fig16.windows("quick")):
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


def test_fig16_phases_by_hand():
    got = dctcp_fig16.phase_rows(_fig16_samples(), "quick")
    assert [r["active"] for r in got] == [1, 2, 3, 4, 5, 4, 3, 2, 1]
    one, two = got[0], got[1]
    assert math.isnan(one["jain"])
    # Phase [2, 4] s settles for 0.4 s: the 16 samples ending at 2.5 ... 4.0 s, eight of each
    # of 700 and 500 Mb/s: mean 600, std 100, CoV 1/6; flow 1 steady (CoV 0).
    assert two["flow_mbps"] == "600.0;300.0"
    assert two["jain"] == pytest.approx(0.9)
    assert two["cov"] == pytest.approx((1 / 6 + 0.0) / 2)
    assert two["fair_share_mbps"] == pytest.approx(450.0)
    for r in got[2:-1]:
        assert r["jain"] == pytest.approx(1.0) and r["cov"] == pytest.approx(0.0, abs=1e-9)
        assert r["total_mbps"] == pytest.approx(100.0 * r["active"])


def test_cov():
    assert dctcp_fig16.cov(np.array([700.0, 500.0])) == pytest.approx(1 / 6)
    assert math.isnan(dctcp_fig16.cov(np.array([])))


# --- dctcp-fairness90 ---------------------------------------------------------------------


def test_fairness90_spreads_the_flows_over_the_five_senders():
    plan = dctcp_fairness90.scenarios("full")
    assert {(p, n) for p, n, _ in plan} == {
        (p, n) for p in ("DCTCP", "TCP") for n in (10, 30, 60, 90)
    }
    for proto, n, sc in plan:
        assert sc["topology"]["hosts"] == 6 and sc["topology"]["link"]["rate_gbps"] == 1.0
        assert len(sc["flows"]) == n and all(f["dst"] == 0 for f in sc["flows"])
        per_sender = np.bincount([f["src"] for f in sc["flows"]], minlength=6)
        assert per_sender[0] == 0 and set(per_sender[1:]) == {n // 5}
        assert sc["sim"]["duration_s"] - sc["sim"]["warmup_s"] == 30.0
        assert all(f["start_s"] == 0.0 and f["start_jitter_us"] == 1000.0 for f in sc["flows"])
        if proto == "DCTCP":
            assert sc["tcp"]["cc"] == "dctcp" and sc["switch"]["aqm"]["k_packets"] == 20
    assert [dctcp_fairness90.sender(i) for i in range(7)] == [1, 2, 3, 4, 5, 1, 2]


# --- dctcp-convergence-sim ----------------------------------------------------------------


def test_convergence_scenarios():
    plan = dctcp_convergence_sim.scenarios("full")
    quick = dctcp_convergence_sim.scenarios("quick")
    # 2 rates × 3 RTTs × 2 protocols, plus the 1 Gbps jitter variant; 10 and 3 seeds.
    assert len(plan) == (12 + 6) * 10 and len(quick) == (12 + 6) * 3
    for rate, rtt, proto, variant, _seed, sc in plan:
        k = {1.0: 20, 10.0: 65}[rate]
        assert sc["switch"]["aqm"] == {
            "kind": "threshold",
            "k_packets": k,
            "count_in_service": False,
        }
        assert sc["tcp"]["cc"] == {"DCTCP": "dctcp", "TCP": "tcp_ecn"}[proto]
        # ns-2's stack: an ACK per segment (the ns2 profile), α from 0.
        assert sc["tcp"]["profile"] == "ns2" and sc["tcp"]["dctcp_alpha_init"] == 0.0
        assert resolved(sc)["tcp"]["delayed_ack_segments"] == 1
        assert sc["tcp"]["ect_on_control"] == "all"
        links = sc["topology"]["host_links"]
        assert [lk["rate_gbps"] for lk in links] == [rate, 10 * rate, 10 * rate]
        assert {lk["delay_us"] for lk in links} == {rtt / 4}
        assert {lk["framing_bytes"] for lk in links} == {0}
        assert sc["switch"]["buffer"] == {"kind": "per_port", "limit_packets": 2000}
        assert (sc["flows"][0]["start_s"], sc["flows"][1]["start_s"]) == (0.0, 0.5)
        assert sc["sim"]["duration_s"] == 1.5
        # Sampled once per loaded RTT: base + K packets at C (1 G: 100 + 20 · 12 = 340 µs).
        assert sc["measure"]["flow_sample_us"] == pytest.approx(rtt + k * 12.0 / rate)
        jitter = sc["host"].get("tx_jitter_us")
        if variant == dctcp_convergence_sim.DEFAULT:
            assert jitter is None
        else:
            assert rate == 1.0 and jitter == pytest.approx(12.0)
    assert {rtt for _, rtt, *_ in plan} == {100.0, 200.0, 300.0}
    assert {sc["sim"]["duration_s"] for *_, sc in quick} == {1.1}


def _cumulative(per_sample: list[float]) -> np.ndarray:
    return np.concatenate([[0.0], np.cumsum(per_sample)])


def test_convergence_time_by_hand():
    # Samples every 1 ms, RTT 1 ms: rates over the trailing 10 samples, held for 10 more.
    # Flow 1 delivers 100 B per sample. Flow 2 joins at 0.1 s: 102 B per sample at samples
    # 111-125, nothing at 126-150, 95 B from 151 on. "Within 10%" needs a window sum in
    # [900, 1111]. Windows ending at 119 ... 126 hold ≥ 9 of the 102s (918 or 1020): 8 samples
    # in a row, fewer than the hold needs (11).
    # From 151 on a window holds m 95s: 95·m ≥ 900 first at m = 10, the window ending at 160.
    n = 300
    b1 = [100.0] * n
    b2 = [0.0] * n
    for k in range(1, n + 1):
        if 111 <= k <= 125:
            b2[k - 1] = 102.0
        elif k >= 151:
            b2[k - 1] = 95.0
    t = np.arange(n + 1) * 1e-3
    d1, d2 = _cumulative(b1), _cumulative(b2)
    ct = dctcp_convergence_sim.convergence_time
    assert ct(t, d1, d2, t_join=0.1, rtt_s=1e-3) == pytest.approx(0.060)
    # A hold of 5 RTTs accepts the early crossing: the window ending at sample 119.
    assert ct(t, d1, d2, t_join=0.1, rtt_s=1e-3, hold_rtts=5) == pytest.approx(0.019)
    # A 5% band: 95 vs 100 never qualifies.
    assert math.isnan(ct(t, d1, d2, t_join=0.1, rtt_s=1e-3, tol=0.05))
    # Windows must start at the join: joining at 0.115 s rules out the crossing's windows.
    assert ct(t, d1, d2, t_join=0.115, rtt_s=1e-3, hold_rtts=5) == pytest.approx(0.045)


def test_trailing_rates():
    t = np.arange(21) * 1e-3
    te, bps, span = dctcp_convergence_sim.trailing_rates(t, _cumulative([100.0] * 20), 1e-3)
    assert span == pytest.approx(0.01) and te[0] == pytest.approx(0.01)
    assert np.allclose(bps, 100 * 8 / 1e-3)


def test_median_counts_never_as_infinite():
    med = dctcp_convergence_sim.median_ms
    assert med([0.01, math.nan, 0.03]) == pytest.approx(30.0)
    assert med([math.nan, math.nan, 0.01]) == math.inf
    assert med([0.02, 0.04]) == pytest.approx(30.0)
