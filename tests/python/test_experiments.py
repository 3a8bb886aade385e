"""The paper experiments: registry, the DCTCP §3.3 analysis helpers, the measurement helpers,
and one experiment run end to end at quick scale."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dcsim import experiments
from dcsim.experiments import common as c
from dcsim.experiments import dctcp_fig14

IDS = [
    "dctcp-fig1",
    "dctcp-fig7",
    "dctcp-fig8",
    "dctcp-fig9",
    "dctcp-fig12",
    "dctcp-pi",
    "dctcp-burst-k",
    "dctcp-fig13",
    "dctcp-fig14",
    "dctcp-fig15",
    "dctcp-fig16",
    "dctcp-fairness90",
    "dctcp-convergence-sim",
    "dctcp-fig17",
    "dctcp-fig18",
    "dctcp-fig19",
    "dctcp-fig20",
    "dctcp-incast-variants",
    "dctcp-fig21",
    "dctcp-table2",
    "dctcp-fig22",
    "dctcp-fig23",
    "dctcp-fig24",
    "dctcp-benchmark-more",
    "ictcp-fig3",
    "ictcp-fig4",
    "ictcp-fig5",
    "ictcp-host-calibration",
    "ictcp-fig8",
    "ictcp-fig9",
    "ictcp-fig10",
    "ictcp-fig11",
    "ictcp-fig12",
    "ictcp-fig13",
    "ictcp-fig14",
    "ictcp-bg-udp",
    "ictcp-fig15",
    "ictcp-sec5-buffer",
    "cs244-fig2",
    "cs244-fig3",
    "cs244-fig4",
    "judd-task-completion-pdf",
    "judd-impact-of-timeouts",
    "judd-coexistence",
    "judd-red-ecn",
    "judd-connection-establishment",
    "judd-throughput-fairness",
    "judd-latency-table",
    "judd-stability-tcp",
    "judd-stability-dctcp",
    "judd-stability-tcp-2flows",
    "judd-rcvbuf-off",
    "judd-scale-table",
]


def test_registry_has_every_experiment_in_paper_order():
    assert list(experiments.EXPERIMENTS) == IDS
    for exp_id, module in experiments.EXPERIMENTS.items():
        assert module.ID == exp_id
        assert module.TITLE.strip()
        assert module.DESCRIPTION.strip() and "\n" not in module.DESCRIPTION
        assert callable(module.run)
        assert module.__doc__ and "Assumption" in module.__doc__


def _scenario_dicts(plan: list | dict) -> list[dict]:
    """Experiments list plain scenarios or tuples ending with one, or map labels to them."""
    items = plan.values() if isinstance(plan, dict) else plan
    return [item[-1] if isinstance(item, tuple) else item for item in items]


@pytest.mark.parametrize("exp_id", IDS)
def test_every_scenario_of_every_scale_is_valid(exp_id):
    from dcsim import _core

    module = experiments.EXPERIMENTS[exp_id]
    for scale in ("quick", "full"):
        scenarios = _scenario_dicts(module.scenarios(scale))
        assert scenarios
        for sc in scenarios:
            _core.validate_json(json.dumps(sc))  # raises ValueError naming the field
            assert sc["sim"]["warmup_s"] < sc["sim"]["duration_s"]
    with pytest.raises(ValueError, match="scale"):
        module.scenarios("huge")


# DCTCP paper §3.3 with C = 10 Gbps, RTT = 100 µs, K = 40, 1500-B packets: C·RTT = 83.33
# packets. Hand-computed (spec algorithms.md §4.3, DERIVED table):
#   N=2:  W* = 123.33/2 = 61.67; (2W*+1)/(W*+1)^2 = 124.33/3927.1 = 0.031660; α = 0.1821
#         (0.1821² × (1 − 0.1821/4) = 0.033160 × 0.95448 = 0.031650); A = 2 × 62.67 × α/2 = 11.41;
#         Q_max = 42; Q_min = 30.6; T_C (Eq. 9) = ½√(2 × 123.33/2) = 5.552 RTT.
#   N=10: W* = 12.33, α = 0.401; N=40: W* = 3.083, α = 0.725, A (Eq. 8) = ½√(80 × 123.33) = 49.67.
@pytest.mark.parametrize(
    "n, w_star, alpha, amp_exact, amp_eq8, q_min_exact, period_eq9",
    [
        (2, 61.67, 0.182, 11.4, 11.1, 30.6, 5.55),
        (10, 12.33, 0.401, 26.7, 24.8, 23.3, 2.48),
        (40, 3.08, 0.725, 59.2, 49.7, 20.8, 1.24),
    ],
)
def test_dctcp_analysis_matches_the_derived_table(
    n, w_star, alpha, amp_exact, amp_eq8, q_min_exact, period_eq9
):
    a = c.dctcp_analysis(n, 40, 10.0, 100.0)
    assert a["bdp_packets"] == pytest.approx(83.333, abs=1e-3)
    assert a["w_star"] == pytest.approx(w_star, abs=0.01)
    assert a["alpha_exact"] == pytest.approx(alpha, abs=0.0006)
    assert a["amplitude_exact"] == pytest.approx(amp_exact, abs=0.06)
    assert a["amplitude_approx"] == pytest.approx(amp_eq8, abs=0.06)
    assert a["q_max"] == 40 + n
    assert a["q_min_exact"] == pytest.approx(q_min_exact, abs=0.06)
    assert a["period_rtts_approx"] == pytest.approx(period_eq9, abs=0.006)
    # Exact T_C = D = A/N (spec: 5.71, 2.67, 1.48 RTT).
    assert a["period_rtts_exact"] == pytest.approx(a["amplitude_exact"] / n)


def test_alpha_solves_equation_6_and_saturates():
    for ws in (1.5, 3.0, 12.0, 61.7, 1000.0):
        a = c.alpha_exact(ws)
        assert a * a * (1 - a / 4) == pytest.approx((2 * ws + 1) / (ws + 1) ** 2, rel=1e-9)
    assert c.alpha_exact(1.0) == 1.0  # W* <= 1: every packet is marked
    assert c.alpha_exact(0.5) == 1.0
    assert c.alpha_approx(61.67) == pytest.approx(0.180, abs=0.001)


def test_guidelines():
    assert c.bdp_packets(1.0, 100.0) == pytest.approx(8.333, abs=1e-3)
    assert c.k_guideline(c.bdp_packets(10.0, 100.0)) == pytest.approx(11.9, abs=0.05)
    assert c.k_guideline(c.bdp_packets(0.1, 40_000.0)) == pytest.approx(47.6, abs=0.05)


def test_sawtooth_measure_recovers_a_known_sawtooth():
    rtt = 100e-6
    t = np.arange(0, 0.02, 2e-6)
    q = c.sawtooth(t, q_max_=42.0, amplitude=11.4, period_s=571e-6, t_drop=13e-6)
    m = c.sawtooth_measure(t, q, rtt)
    assert m["period_s"] == pytest.approx(571e-6, rel=0.03)
    assert m["q_max"] == pytest.approx(42.0, abs=0.5)
    assert m["amplitude"] == pytest.approx(11.4, abs=0.8)
    assert m["periods"] >= 30


def test_occupancy_quantiles_are_time_weighted():
    occ = [0.5, 0.0, 0.3, 0.2]  # seconds at 0, 1, 2, 3 packets
    assert c.occupancy_quantile(occ, 0.5) == 0
    assert c.occupancy_quantile(occ, 0.51) == 2
    assert c.occupancy_quantile(occ, 0.95) == 3
    assert c.occupancy_mean(occ) == pytest.approx(0.3 * 2 + 0.2 * 3)
    x, y = c.occupancy_cdf(occ)
    assert list(x) == [0, 1, 2, 3] and y[-1] == pytest.approx(1.0)


def test_knee_is_where_throughput_stays_high():
    ks = [5, 10, 20, 40, 65, 100]
    assert dctcp_fig14.knee(ks, [5, 8, 9.5, 9.0, 9.5, 9.5], 9.5) == 65
    assert dctcp_fig14.knee(ks, [9.3] * 6, 9.5) == 5
    assert dctcp_fig14.knee(ks, [9.5] * 5 + [1.0], 9.5) is None


def test_claim_coerces_holds():
    row = c.claim("x", "p", "m", np.bool_(True))
    assert row == {"claim": "x", "paper": "p", "measured": "m", "holds": True}
    assert type(row["holds"]) is bool
    assert c.jsonable({"a": np.float64(math.nan), "b": np.int64(3)}) == {"a": None, "b": 3}


def _engine_available() -> bool:
    try:
        import dcsim

        return callable(getattr(dcsim, "run_many", None))
    except ImportError:
        return False


@pytest.mark.skipif(not _engine_available(), reason="engine not built")
def test_cs244_hosts_run_ns2_with_the_scripts_agents():
    from dcsim.scenario import resolved

    def tcp(k):
        sc = c.cs244("t", senders=2, k=k, link_delay_us=250.0, duration_s=1.0, warmup_s=0.5)
        return resolved(sc)["tcp"]

    reno, dctcp = tcp(None), tcp(20)
    for t in (reno, dctcp):  # ns-2.35's defaults, from the profile
        assert (t["ack_counting"], t["delayed_ack_segments"], t["init_cwnd_segments"]) == ("per_ack", 1, 2)
        assert (t["rto_min_ms"], t["rto_initial_ms"], t["cwnd_validation"]) == (200.0, 3000.0, "off")
    # DCTCP: plain FullTcp, tcpTick_ 1 µs; TCP: TCP/Linux to TCPSink/Sack1, maxrto_ 120 s.
    assert (dctcp["sack"], dctcp["timer_tick_ms"], dctcp["rto_max_ms"]) == (False, 0.001, 60_000.0)
    assert (reno["sack"], reno["timer_tick_ms"], reno["rto_max_ms"]) == (True, 10.0, 120_000.0)


@pytest.mark.skipif(not _engine_available(), reason="engine not built")
def test_cs244_fig2_runs_end_to_end(tmp_path):
    module = experiments.EXPERIMENTS["cs244-fig2"]
    summary = module.run("quick", tmp_path, jobs=2)
    json.dumps(summary)  # JSON-able as is
    assert summary["claims"]
    for row in summary["claims"]:
        assert set(row) == {"claim", "paper", "measured", "holds"}
        assert isinstance(row["holds"], bool)
    m = summary["metrics"]
    assert m["queue_packets"]["tcp"]["max_packets"] > 0
    assert 0 < m["goodput_mbps"]["dctcp"] <= 100
    for name in ("cs244_fig2_queue.csv", "cs244_fig2_queue.png", "cs244_fig2_queue.svg"):
        assert (tmp_path / name).stat().st_size > 0
