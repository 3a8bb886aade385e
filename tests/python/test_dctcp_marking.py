"""The DCTCP marking experiments at the switch (dctcp-pi, dctcp-burst-k, dctcp-fig14,
dctcp-fig15): their scenarios against the paper's settings, the PI design by hand, and the
knee and spread by hand. (Each runs end to end at quick scale in test_readme.py.)"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from dcsim.experiments.dctcp import burst_k, bursts, fig14, fig15, pi
from dcsim.experiments.dctcp.testbeds import TESTBED


def plan(experiment, scale: str) -> dict:
    """An experiment's scenarios at ``scale`` on the paper's testbed."""
    return dict(experiment.scenarios(experiment.params(scale), TESTBED))


# ---------------------------------------------------------------------------------------
# Fig. 14 and the knee
# ---------------------------------------------------------------------------------------


def test_knee_is_where_throughput_stays_high():
    ks = [5, 10, 20, 40, 65, 100]
    assert bursts.knee(ks, [5, 8, 9.5, 9.0, 9.5, 9.5], 9.5) == 65
    assert bursts.knee(ks, [9.3] * 6, 9.5) == 5
    assert bursts.knee(ks, [9.5] * 5 + [1.0], 9.5) is None


def test_knees_by_host_and_the_excess_rule():
    rows = [
        {"K": None, "host": "smooth", "protocol": "TCP", "goodput_gbps": 9.5},
        {"K": 5, "host": "smooth", "protocol": "DCTCP", "goodput_gbps": 9.4},
        {"K": 20, "host": "smooth", "protocol": "DCTCP", "goodput_gbps": 9.5},
        {"K": None, "host": "testbed", "protocol": "TCP", "goodput_gbps": 9.0},
        {"K": 5, "host": "testbed", "protocol": "DCTCP", "goodput_gbps": 7.0},
        {"K": 20, "host": "testbed", "protocol": "DCTCP", "goodput_gbps": 8.7},  # 0.967 × TCP
        {"K": 65, "host": "testbed", "protocol": "DCTCP", "goodput_gbps": 8.8},
    ]
    tcp, dct, knees = bursts.by_host(pd.DataFrame(rows))
    assert tcp == {"testbed": 9.0, "smooth": 9.5}
    assert knees == {"testbed": 65, "smooth": 5}
    assert list(dct["testbed"].K) == [5, 20, 65]
    # Between B/2 and 2B, inclusive.
    assert burst_k.excess_in_line(15, 30) and burst_k.excess_in_line(60, 30)
    assert not burst_k.excess_in_line(14, 30) and not burst_k.excess_in_line(61, 30)
    assert not burst_k.excess_in_line(None, 30)


def test_bursts_are_runs_of_back_to_back_packets():
    t = 1.2e-6  # one packet time
    # 3 back to back, a gap, 1 alone, a gap, 2 back to back (1.4 packet times apart).
    times = [0, t, 2 * t, 10 * t, 20 * t, 21.4 * t]
    assert list(bursts.burst_sizes(times, t)) == [3, 1, 2]
    assert list(bursts.burst_sizes([], t)) == []


# ---------------------------------------------------------------------------------------
# Host bursts and K (§3.5)
# ---------------------------------------------------------------------------------------


def test_burst_k_runs_are_fig14s_and_a_traced_run_per_host():
    runs = plan(burst_k.EXPERIMENT, "quick")
    fig14_runs = plan(fig14.EXPERIMENT, "quick")
    assert {h for h, _ in fig14_runs} == {"testbed", "smooth"}
    for key, sc in fig14_runs.items():
        assert runs[key] == sc  # the same runs, so the cache serves both experiments
        assert sc["topology"]["link"]["rate_gbps"] == 10.0
        # The testbed's 10 Gbps host: ixgbe's bulk interrupt rate; the smooth host has none.
        assert sc["host"]["rx_interrupt_interval_us"] == (125.0 if key[0] == "testbed" else 0.0)
    traced = {k: sc for k, sc in runs.items() if k[0] == burst_k.TRACED}
    assert set(traced) == {("traced", "testbed"), ("traced", "smooth")}
    for sc in traced.values():
        assert sc["measure"]["trace_ports"] == ["h1->s0", "h2->s0"]
        assert sc["switch"]["aqm"]["k_packets"] == 65


# ---------------------------------------------------------------------------------------
# Fig. 15
# ---------------------------------------------------------------------------------------


def test_fig15_runs_the_papers_red_settings_on_the_fig14_setup():
    runs = plan(fig15.EXPERIMENT, "full")
    assert list(runs) == list(fig15.SETTINGS)
    dctcp = runs[fig15.DCTCP]
    assert dctcp["tcp"]["cc"] == "dctcp"
    assert dctcp["switch"]["aqm"]["kind"] == "threshold" and dctcp["switch"]["aqm"]["k_packets"] == 65
    guideline, raised = (runs[label] for label, *_ in fig15.RED)
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
    assert [gbps for *_, gbps in fig15.RED] == [7.8, 9.2]
    # The DCTCP run is Fig. 14's K = 65 run on the testbed's host, only named and sampled differently.
    f14 = plan(fig14.EXPERIMENT, "full")[(bursts.TESTBED_HOST, 65)]

    def strip(sc: dict) -> dict:
        return {key: v for key, v in sc.items() if key not in ("name", "measure")}

    assert strip(dctcp) == strip(f14)
    for sc in runs.values():
        assert sc["topology"]["link"]["rate_gbps"] == 10.0 and sc["topology"]["hosts"] == 3
        assert sc["host"]["rx_interrupt_interval_us"] == 125.0
        assert sc["switch"]["buffer"] == {"kind": "preset", "name": "scorpion"}


def test_fig15_spread():
    assert fig15.spread({"p95_packets": 157, "p5_packets": 40}) == 117


# ---------------------------------------------------------------------------------------
# PI
# ---------------------------------------------------------------------------------------


def test_pi_design_rule_on_hollots_example():
    # N⁻ = 60, C = 3750 packets/s, R⁺ = 0.246 s, 160 Hz. z = 120/(0.246² · 3750) = 0.528786;
    # ω_g R⁺ = 0.130081, |·| = √1.016921 = 1.008425; (R⁺C)³ = 922.5³ = 7.850533e8;
    # K_PI = 0.528786 · 1.008425 · 14400/7.850533e8 = 9.78108e-6 (paper: 9.6426e-6, z = 0.53).
    d = pi.pi_design(60, 3750.0, 0.246, 160.0)
    assert math.isclose(d["z"], 0.528786, rel_tol=1e-5)
    assert math.isclose(d["k_pi"], 9.78108e-6, rel_tol=1e-5)
    assert abs(d["k_pi"] / 9.6426e-6 - 1) < 0.02
    # a = K(1/z + T/2) = 9.78108e-6 · (1.891124 + 0.003125) = 1.85278e-5; b with − T/2.
    assert math.isclose(d["a"], 1.85278e-5, rel_tol=1e-5)
    assert math.isclose(d["b"], 1.84667e-5, rel_tol=1e-5)
    assert abs(d["a"] / 1.822e-5 - 1) < 0.02 and abs(d["b"] / 1.816e-5 - 1) < 0.02


# The PI designs of the two links, by hand (rate -> q_ref, R⁺ µs, K_PI, f_s Hz, a, b):
# 1 Gbps: C = 1e9/(1538 · 8) = 81,274.38 packets/s; q_ref = 20; R⁺ = 100 µs + 20/C =
# 346.08 µs; p_tcp = 4/(R⁺² C) = 4/9.73435e-3 = 410.916 rad/s; R⁺C = 28.1274;
# K_PI = 410.916 · √(1 + 0.142210²) · 16/28.1274³ = 410.916 · 1.010061 · 7.18997e-4 =
# 0.298422; f_s = 39.36/R⁺ = 113,731 Hz, T/2 = 4.39634e-6 s;
# a = 0.298422 · (2.433584e-3 + 4.39634e-6) = 7.27547e-4, b = 0.298422 · 2.429188e-3 = 7.24923e-4.
# 10 Gbps: C = 812,743.8; q_ref = 65; R⁺ = 100 µs + 65/C = 179.976 µs; p_tcp =
# 4/(3.23914e-8 · 812,743.8) = 151.942; R⁺C = 146.274; K_PI = 151.942 · √(1 + 0.027346²)
# · 16/146.274³ = 151.942 · 1.000374 · 5.11233e-6 = 7.77060e-4; f_s = 39.36/R⁺ = 218,696 Hz;
# a = 7.77060e-4 · (6.58146e-3 + 2.28628e-6) = 5.11597e-6, b = 5.11242e-6.
PI_BY_HAND = {
    1.0: (20.0, 346.08, 0.298422, 113_731, 7.27547e-4, 7.24923e-4),
    10.0: (65.0, 179.976, 7.77060e-4, 218_696, 5.11597e-6, 5.11242e-6),
}


@pytest.mark.parametrize("rate", sorted(PI_BY_HAND))
def test_pi_gains_of_each_link_by_hand(rate):
    q_ref, rtt_us, k_pi, f_s, a, b = PI_BY_HAND[rate]
    d = pi.design(rate, TESTBED)
    assert d["q_ref_packets"] == q_ref and d["n_min"] == 2
    assert math.isclose(d["rtt_s"], rtt_us * 1e-6, rel_tol=1e-5)
    assert d["p_tcp"] < d["p_queue"]  # the rule's condition: 2N⁻ < R⁺C
    assert math.isclose(d["k_pi"], k_pi, rel_tol=1e-5)
    # The scenarios' PI marks ECT packets with exactly these gains.
    aqm = pi.pi_aqm(rate, TESTBED)
    assert aqm["kind"] == "pi" and aqm["ecn"] is True and aqm["q_ref_packets"] == q_ref
    assert math.isclose(aqm["sample_hz"], f_s, rel_tol=1e-5)
    assert math.isclose(aqm["a"], a, rel_tol=1e-5) and math.isclose(aqm["b"], b, rel_tol=1e-5)


def test_pi_runs_use_the_design_and_dctcp_beside_it():
    runs = plan(pi.EXPERIMENT, "quick")
    assert set(runs) == {(r, a, n) for r in (1.0, 10.0) for a in ("PI", "DCTCP") for n in (2, 3, 5, 10, 20)}
    for (rate, aqm, n), sc in runs.items():
        assert len(sc["flows"]) == n and sc["topology"]["link"]["rate_gbps"] == rate
        if aqm == "PI":
            assert sc["tcp"]["cc"] == "tcp_ecn"
            assert sc["switch"]["aqm"] == pi.pi_aqm(rate, TESTBED)
        else:
            assert sc["tcp"]["cc"] == "dctcp"
            assert sc["switch"]["aqm"]["k_packets"] == (20 if rate == 1.0 else 65)


def test_empty_fraction_is_time_weighted():
    assert pi.empty_fraction([0.2, 0.3, 0.5]) == 0.2
    assert pi.empty_fraction([0.0, 1.5, 0.5]) == 0.0
    assert math.isnan(pi.empty_fraction([]))
