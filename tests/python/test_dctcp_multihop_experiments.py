"""DCTCP experiments beyond the single switch: the Fig. 17 multi-bottleneck network, the PI AQM
(§3.5), host bursts and K at 10 Gbps (§3.5) and the incast variants (§4.2.1). Their scenario
builders against the paper, the PI design by hand, and their analysis helpers with
hand-computed values. (Each runs end to end at quick scale in test_readme.py.)"""

from __future__ import annotations

import math

import pandas as pd
import pytest

import dcsim
from dcsim.experiments import (
    dctcp_burst_k,
    dctcp_fig14,
    dctcp_fig17,
    dctcp_incast_variants,
    dctcp_pi,
    incast,
)

MODULES = [dctcp_pi, dctcp_burst_k, dctcp_fig17, dctcp_incast_variants]


@pytest.mark.parametrize("module", MODULES, ids=[m.ID for m in MODULES])
def test_interface(module):
    doc = module.__doc__
    for part in ("Paper setup", "Published", "Our setup", "Assumptions", "Outputs"):
        assert part in doc, part
    assert {"quick", "full"} <= set(module.SCALES)
    assert module.DESCRIPTION.strip() and "\n" not in module.DESCRIPTION


# ---------------------------------------------------------------------------------------
# Fig. 17
# ---------------------------------------------------------------------------------------


def test_fig17_groups_and_flows_are_the_papers():
    h = dctcp_fig17.hosts()
    # S1 and S2 on Triumph 1 (hosts 0..29), S3, R1 and R2 on Triumph 2 (30..60).
    assert h == {
        "S1": list(range(10)),
        "S2": list(range(10, 30)),
        "S3": list(range(30, 40)),
        "R1": [40],
        "R2": list(range(41, 61)),
    }
    sc = dctcp_fig17.scenario("DCTCP", 5.0, 2.0)
    topo = sc["topology"]
    assert (topo["s1"], topo["s2"], topo["s3"], topo["r2"]) == (10, 20, 10, 20)
    assert topo["host_link"]["rate_gbps"] == 1.0 and topo["core_link"]["rate_gbps"] == 10.0
    pairs = [(f["src"], f["dst"]) for f in sc["flows"]]
    # "The senders in the S1 and S3 groups, totaling 20 machines, all send to receiver R1."
    assert sorted(s for s, d in pairs if d == 40) == list(range(10)) + list(range(30, 40))
    # "The 20 senders in S2 each send to an assigned receiver in group R2."
    s2 = {s: d for s, d in pairs if d != 40}
    assert sorted(s2) == list(range(10, 30)) and sorted(s2.values()) == list(range(41, 61))
    assert [g for g, _ in dctcp_fig17.flows()] == ["S1"] * 10 + ["S3"] * 10 + ["S2"] * 20
    # The two bottleneck ports exist under the names the experiment reads.
    names = dcsim.port_names(sc)
    assert dctcp_fig17.R1_PORT == "triumph2->h40"
    assert dctcp_fig17.CORE_PORT in names and dctcp_fig17.R1_PORT in names
    tcp = dctcp_fig17.scenario("TCP", 5.0, 2.0)
    assert tcp["tcp"]["cc"] == "newreno" and tcp["switch"]["aqm"] == {"kind": "drop_tail"}
    assert sc["tcp"]["cc"] == "dctcp" and sc["tcp"]["rto_min_ms"] == 300.0


def test_fig17_marking_threshold_follows_each_ports_line_rate():
    """Fig. 17's DCTCP AQM leaves K to the engine: 20 on 1 Gbps ports, 65 on 10 Gbps ones.
    A non-ECT sender above K is dropped, so a port fed faster than it drains peaks at
    exactly K + 1 packets (the one being sent counts)."""
    aqm = dctcp_fig17.scenario("DCTCP", 5.0, 2.0)["switch"]["aqm"]
    assert aqm == {"kind": "threshold"}
    for port_gbps, k in ((1.0, 20), (10.0, 65)):
        sc = {
            "sim": {"duration_s": 0.005},
            "topology": {
                "kind": "star",
                "hosts": 2,
                "link": {"rate_gbps": 4 * port_gbps},
                "host_links": [{"rate_gbps": port_gbps}, {"rate_gbps": 4 * port_gbps}],
            },
            "switch": {"aqm": aqm, "buffer": {"kind": "per_port", "limit_packets": 1000}},
            "tcp": {"cc": "newreno"},
            "flows": [{"src": 1, "dst": 0}],
        }
        p = dcsim.run(sc).ports.set_index("name").loc["s0->h0"]
        assert p.max_packets == k + 1 and p.drops_aqm > 0 and p.drops_buffer == 0, port_gbps


def test_fig17_fair_shares_by_hand():
    # R1's 1000 Mbps over 20 senders = 50; (10,000 − 10 · 50)/20 = 475 (spec DERIVED).
    assert dctcp_fig17.fair_shares_mbps() == {"S1": 50.0, "S3": 50.0, "S2": 475.0}
    # No S1: S2 splits the whole core link, 10,000/20 = 500; R1 then has S3 alone, 1000/5 = 200.
    assert dctcp_fig17.fair_shares_mbps(s1=0, s3=5) == {"S1": 200.0, "S3": 200.0, "S2": 500.0}
    # Five S2 senders would get 1900 each from the core but are capped by their 1 Gbps links.
    assert dctcp_fig17.fair_shares_mbps(s2=5)["S2"] == 1000.0
    assert dctcp_fig17.within(45.0, 50.0) and dctcp_fig17.within(55.0, 50.0)
    assert not dctcp_fig17.within(44.9, 50.0) and not dctcp_fig17.within(37.8, 50.0)


def test_fig17_warmup_runs_stop_where_the_measurement_starts():
    for scale in ("quick", "full"):
        s = dctcp_fig17.SCALES[scale]
        plan = dctcp_fig17.scenarios(scale)
        assert [(p, part) for p, part, _ in plan] == [
            ("DCTCP", "run"),
            ("DCTCP", "warmup"),
            ("TCP", "run"),
            ("TCP", "warmup"),
        ]
        for proto, part, sc in plan:
            end = s["duration_s"] if part == "run" else s["warmup_s"]
            assert sc["sim"]["duration_s"] == end and sc["sim"]["seed"] == 1
            # Apart from when it stops and measures, the warm-up run is the same scenario.
            twin = next(x for p, pt, x in plan if p == proto and pt != part)
            assert {k: v for k, v in sc.items() if k not in ("sim", "name")} == {
                k: v for k, v in twin.items() if k not in ("sim", "name")
            }
    assert dctcp_fig17.SCALES["full"]["duration_s"] - dctcp_fig17.SCALES["full"]["warmup_s"] == 30


# ---------------------------------------------------------------------------------------
# PI
# ---------------------------------------------------------------------------------------


def test_pi_design_rule_on_hollots_example():
    # N⁻ = 60, C = 3750 packets/s, R⁺ = 0.246 s, 160 Hz. z = 120/(0.246² · 3750) = 0.528786;
    # ω_g R⁺ = 0.130081, |·| = √1.016921 = 1.008425; (R⁺C)³ = 922.5³ = 7.850533e8;
    # K_PI = 0.528786 · 1.008425 · 14400/7.850533e8 = 9.78108e-6 (paper: 9.6426e-6, z = 0.53).
    d = dctcp_pi.pi_design(60, 3750.0, 0.246, 160.0)
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
    d = dctcp_pi.design(rate)
    assert d["q_ref_packets"] == q_ref and d["n_min"] == 2
    assert math.isclose(d["rtt_s"], rtt_us * 1e-6, rel_tol=1e-5)
    assert d["p_tcp"] < d["p_queue"]  # the rule's condition: 2N⁻ < R⁺C
    assert math.isclose(d["k_pi"], k_pi, rel_tol=1e-5)
    # The scenarios' PI marks ECT packets with exactly these gains.
    aqm = dctcp_pi.pi_aqm(rate)
    assert aqm["kind"] == "pi" and aqm["ecn"] is True and aqm["q_ref_packets"] == q_ref
    assert math.isclose(aqm["sample_hz"], f_s, rel_tol=1e-5)
    assert math.isclose(aqm["a"], a, rel_tol=1e-5) and math.isclose(aqm["b"], b, rel_tol=1e-5)


def test_pi_runs_use_the_design_and_dctcp_beside_it():
    plan = dctcp_pi.scenarios("quick")
    assert {(r, a, n) for r, a, n, _ in plan} == {
        (r, a, n) for r in (1.0, 10.0) for a in ("PI", "DCTCP") for n in (2, 3, 5, 10, 20)
    }
    for rate, aqm, n, sc in plan:
        assert len(sc["flows"]) == n and sc["topology"]["link"]["rate_gbps"] == rate
        if aqm == "PI":
            assert sc["tcp"]["cc"] == "tcp_ecn"
            assert sc["switch"]["aqm"] == dctcp_pi.pi_aqm(rate)
        else:
            assert sc["tcp"]["cc"] == "dctcp"
            assert sc["switch"]["aqm"]["k_packets"] == (20 if rate == 1.0 else 65)


def test_empty_fraction_is_time_weighted():
    assert dctcp_pi.empty_fraction([0.2, 0.3, 0.5]) == 0.2
    assert dctcp_pi.empty_fraction([0.0, 1.5, 0.5]) == 0.0
    assert math.isnan(dctcp_pi.empty_fraction([]))


# ---------------------------------------------------------------------------------------
# Host bursts and K (§3.5)
# ---------------------------------------------------------------------------------------


def test_burst_k_runs_are_fig14s_with_more_burst_sizes():
    plan = dctcp_burst_k.scenarios("quick")
    fig14 = {(b, k): sc for b, k, sc in dctcp_fig14.scenarios("quick")}
    assert sorted({b for b, _, _ in plan}) == [0, 30, 35, 40]
    for b, k, sc in plan:
        assert sc["host"]["offload_burst_segments"] == b
        assert sc["topology"]["link"]["rate_gbps"] == 10.0
        if (b, k) in fig14:  # the same runs, so the cache serves both experiments
            assert sc == fig14[(b, k)]
    assert {(b, k) for b, k, _ in plan} >= set(fig14)


def test_knees_by_burst_and_the_excess_rule():
    rows = [
        {"K": None, "bursts": 0, "protocol": "TCP", "goodput_gbps": 9.5},
        {"K": 5, "bursts": 0, "protocol": "DCTCP", "goodput_gbps": 9.4},
        {"K": 20, "bursts": 0, "protocol": "DCTCP", "goodput_gbps": 9.5},
        {"K": None, "bursts": 35, "protocol": "TCP", "goodput_gbps": 9.0},
        {"K": 5, "bursts": 35, "protocol": "DCTCP", "goodput_gbps": 7.0},
        {"K": 20, "bursts": 35, "protocol": "DCTCP", "goodput_gbps": 8.7},  # 0.967 × TCP
        {"K": 65, "bursts": 35, "protocol": "DCTCP", "goodput_gbps": 8.8},
    ]
    tcp, dct, knees = dctcp_fig14.by_burst(pd.DataFrame(rows))
    assert tcp == {0: 9.5, 35: 9.0}
    assert knees == {0: 5, 35: 65}
    assert list(dct[35].K) == [5, 20, 65]
    # Between B/2 and 2B, inclusive.
    assert dctcp_burst_k.excess_in_line(15, 30) and dctcp_burst_k.excess_in_line(60, 30)
    assert not dctcp_burst_k.excess_in_line(14, 30) and not dctcp_burst_k.excess_in_line(61, 30)
    assert not dctcp_burst_k.excess_in_line(None, 30)


# ---------------------------------------------------------------------------------------
# Incast variants (§4.2.1)
# ---------------------------------------------------------------------------------------


def test_incast_variants_settings_and_response_sizes():
    plan = dctcp_incast_variants.scenarios("full")
    curves = {(st, t, p) for st, t, p, _, _, _ in plan}
    assert curves == {
        (st, t, p)
        for st, protos in (
            ("1G Triumph", ("TCP", "DCTCP")),
            ("1G CAT4948", ("TCP",)),  # "CAT4948 does not support ECN"
            ("10G Scorpion", ("TCP", "DCTCP")),
        )
        for t in (100_000, 1_000_000, 10_000_000)
        for p in protos
    }
    for setting, total, proto, rto, n, sc in plan:
        q = sc["queries"][0]
        # total/n from each of hosts 1..n to the client, host 0.
        assert q["client"] == 0 and q["servers"] == list(range(1, n + 1))
        assert q["response_bytes"] == total // n and q["rounds"] == 1000
        assert (
            rto == 10.0 and sc["tcp"]["rto_min_ms"] == 10.0 and sc["tcp"]["timer_tick_ms"] == 10.0
        )
        rate = sc["topology"]["link"]["rate_gbps"]
        assert (rate, sc["topology"]["hosts"]) == (
            (10.0, 14) if setting == "10G Scorpion" else (1.0, 41)
        )
        assert n <= sc["topology"]["hosts"] - 1
        preset = {"1G Triumph": "triumph", "1G CAT4948": "cat4948", "10G Scorpion": "scorpion"}
        assert sc["switch"]["buffer"] == {"kind": "preset", "name": preset[setting]}
        if proto == "DCTCP":
            assert sc["switch"]["aqm"]["k_packets"] == (65 if rate == 10.0 else 20)
        else:
            assert sc["switch"]["aqm"] == {"kind": "drop_tail"} and sc["tcp"]["cc"] == "newreno"
    by = {(st, t, n): sc["queries"][0]["response_bytes"] for st, t, _, _, n, sc in plan}
    assert by[("1G Triumph", 100_000, 40)] == 2_500  # 100 KB/40: two segments each
    assert by[("1G CAT4948", 1_000_000, 20)] == 50_000
    assert by[("10G Scorpion", 10_000_000, 13)] == 769_230


def test_incast_horizon_grows_with_the_response_only_past_a_tenth_of_a_second():
    # 1 MB at 1 Gbps: max(0.1, 8 · 0.01, 4 · 0.008) = 0.1 s a round, as before.
    assert incast.many_to_one_duration_s(1000, 10.0) == pytest.approx(0.01 + 100 + 1)
    # 10 MB at 1 Gbps: 4 · 0.08 = 0.32 s a round; at 10 Gbps 4 · 0.008 < 0.1.
    assert incast.many_to_one_duration_s(1000, 10.0, 10_000_000) == pytest.approx(0.01 + 320 + 1)
    assert incast.many_to_one_duration_s(10, 10.0, 10_000_000, 10.0) == pytest.approx(0.01 + 1 + 1)


def test_worst_timeout_fraction_of_a_curve():
    df = pd.DataFrame(
        [
            {
                "setting": "1G Triumph",
                "protocol": "TCP",
                "total_bytes": 10,
                "timeout_fraction": 0.1,
            },
            {
                "setting": "1G Triumph",
                "protocol": "TCP",
                "total_bytes": 10,
                "timeout_fraction": 0.4,
            },
            {
                "setting": "1G Triumph",
                "protocol": "TCP",
                "total_bytes": 20,
                "timeout_fraction": 0.9,
            },
            {
                "setting": "1G Triumph",
                "protocol": "DCTCP",
                "total_bytes": 10,
                "timeout_fraction": 0.0,
            },
        ]
    )
    assert dctcp_incast_variants.worst(df, "1G Triumph", "TCP", 10) == 0.4
    assert dctcp_incast_variants.worst(df, "1G Triumph", "DCTCP", 10) == 0.0
    assert dctcp_incast_variants.size_label(100_000) == "100 KB"
    assert dctcp_incast_variants.size_label(10_000_000) == "10 MB"
