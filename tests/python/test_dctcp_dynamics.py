"""The DCTCP experiments on queue and flow dynamics (dctcp-fig1, dctcp-fig12, dctcp-fig16,
dctcp-fairness90, dctcp-convergence-sim, dctcp-fig17): scenarios against the paper's settings
on their testbeds, and the analysis helpers by hand. Each experiment runs end to end in the
README's `dcsim reproduce` test (test_readme.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dcsim
from conftest import five_flow_samples
from dcsim.experiments import TESTBEDS
from dcsim.experiments.analysis import cov, jain, last_in_first_out, phases, settled_phase_rows
from dcsim.experiments.dctcp import convergence_sim, fairness90, fig1, fig12, fig16, fig17
from dcsim.scenario import resolved

MODULES = [fig1, fig12, fig16, fairness90, convergence_sim, fig17]


def plan(module, scale: str) -> dict:
    e = module.EXPERIMENT
    return dict(e.scenarios(e.params(scale), TESTBEDS[e.testbed]))


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.EXPERIMENT.id)
def test_notes_give_the_setup_the_assumptions_and_the_outputs(module):
    notes = module.EXPERIMENT.notes
    for part in ("Paper setup", "Published", "Our setup", "Assumptions", "Outputs"):
        assert part in notes, part
    assert set(module.EXPERIMENT.scales) == {"quick", "full"}


# --- shared analysis ----------------------------------------------------------------------


def test_jain_by_hand():
    assert jain([5.0, 5.0, 5.0]) == 1.0
    assert jain([1.0, 0.0]) == 0.5
    # (600 + 300)² / (2 · (600² + 300²)) = 810000 / 900000
    assert jain([600.0, 300.0]) == pytest.approx(0.9)
    # 6² / (4 · 12)
    assert jain([3.0, 1.0, 1.0, 1.0]) == pytest.approx(0.75)
    assert math.isnan(jain([])) and math.isnan(jain([0.0, 0.0]))


def test_phases_of_a_schedule():
    assert phases([(0.0, 10.0), (5.0, 20.0)]) == [
        (0.0, 5.0, [0]),
        (5.0, 10.0, [0, 1]),
        (10.0, 20.0, [1]),
    ]
    # A stretch with no active flow is left out.
    assert phases([(0.0, 1.0), (2.0, 3.0)]) == [(0.0, 1.0, [0]), (2.0, 3.0, [1])]


def test_cov():
    assert cov(np.array([700.0, 500.0])) == pytest.approx(1 / 6)
    assert math.isnan(cov(np.array([])))


# --- dctcp-fig1 and dctcp-fig12 -------------------------------------------------------------


def test_fig1_samples_the_two_flow_runs_every_millisecond():
    runs = plan(fig1, "quick")
    assert list(runs) == ["tcp", "dctcp"]
    for name, sc in runs.items():
        assert len(sc["flows"]) == 2 and sc["topology"]["link"]["rate_gbps"] == 1.0
        assert sc["measure"]["queue_sample_us"] == 1000.0
        assert sc["switch"]["buffer"] == {"kind": "preset", "name": "triumph"}
        if name == "dctcp":
            assert sc["tcp"]["cc"] == "dctcp" and sc["switch"]["aqm"]["k_packets"] == 20
        else:
            assert sc["tcp"]["cc"] == "newreno" and sc["switch"]["aqm"] == {"kind": "drop_tail"}


def test_fig12_runs_the_ns2_stack_at_a_10_gbps_bottleneck():
    runs = plan(fig12, "full")
    assert list(runs) == [2, 10, 40]
    for n, sc in runs.items():
        assert len(sc["flows"]) == n
        # ns-2 counts only the waiting packets against K = 40.
        assert sc["switch"]["aqm"] == {"kind": "threshold", "k_packets": 40, "count_in_service": False}
        assert sc["switch"]["buffer"] == {"kind": "per_port", "limit_packets": 2000}
        assert sc["topology"]["link"] == {"rate_gbps": 10.0, "delay_us": 25.0, "framing_bytes": 0}
        assert sc["tcp"]["profile"] == "ns2" and sc["tcp"]["dctcp_alpha_init"] == 0.0
        assert resolved(sc)["tcp"]["delayed_ack_segments"] == 1


# --- dctcp-fig16 --------------------------------------------------------------------------


def test_fig16_schedule_is_the_papers_last_in_first_out():
    full, quick = (fig16.EXPERIMENT.params(s)["spacing_s"] for s in ("full", "quick"))
    assert last_in_first_out(fig16.SENDERS, full) == [
        (0.0, 270.0),
        (30.0, 240.0),
        (60.0, 210.0),
        (90.0, 180.0),
        (120.0, 150.0),
    ]
    assert [len(a) for *_, a in phases(last_in_first_out(fig16.SENDERS, full))] == [1, 2, 3, 4, 5, 4, 3, 2, 1]
    assert last_in_first_out(fig16.SENDERS, quick)[-1] == (8.0, 10.0)
    for scale, spacing, end in (("full", full, 270.0), ("quick", quick, 18.0)):
        for proto, sc in plan(fig16, scale).items():
            assert sc["sim"]["duration_s"] == end
            assert sc["topology"]["hosts"] == 6 and sc["topology"]["link"]["rate_gbps"] == 1.0
            assert sc["switch"]["buffer"] == {"kind": "preset", "name": "triumph"}
            assert sc["tcp"]["rto_min_ms"] == 300.0
            assert sc["measure"]["flow_sample_us"] == 100_000.0
            assert [(f["src"], f["dst"]) for f in sc["flows"]] == [(i, 0) for i in range(1, 6)]
            # Flow 1 runs to the end; the others stop last in, first out.
            assert "stop_s" not in sc["flows"][0]
            assert [f["stop_s"] for f in sc["flows"][1:]] == [w[1] for w in last_in_first_out(fig16.SENDERS, spacing)[1:]]
            if proto == "DCTCP":
                assert sc["tcp"]["cc"] == "dctcp" and sc["switch"]["aqm"]["k_packets"] == 20
            else:
                assert sc["tcp"]["cc"] == "newreno" and sc["switch"]["aqm"] == {"kind": "drop_tail"}


def test_fig16_phases_by_hand():
    spacing = fig16.EXPERIMENT.params("quick")["spacing_s"]
    win = last_in_first_out(fig16.SENDERS, spacing)
    got = settled_phase_rows(five_flow_samples(win), win, fig16.SETTLE_FRACTION, fig16.SAMPLE_S)
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


# --- dctcp-fairness90 ---------------------------------------------------------------------


def test_fairness90_spreads_the_flows_over_the_five_senders():
    runs = plan(fairness90, "full")
    assert set(runs) == {(p, n) for p in ("DCTCP", "TCP") for n in (10, 30, 60, 90)}
    for (proto, n), sc in runs.items():
        assert sc["topology"]["hosts"] == 6 and sc["topology"]["link"]["rate_gbps"] == 1.0
        assert len(sc["flows"]) == n and all(f["dst"] == 0 for f in sc["flows"])
        per_sender = np.bincount([f["src"] for f in sc["flows"]], minlength=6)
        assert per_sender[0] == 0 and set(per_sender[1:]) == {n // 5}
        assert sc["sim"]["duration_s"] - sc["sim"]["warmup_s"] == 30.0
        assert all(f["start_s"] == 0.0 and f["start_jitter_us"] == 1000.0 for f in sc["flows"])
        if proto == "DCTCP":
            assert sc["tcp"]["cc"] == "dctcp" and sc["switch"]["aqm"]["k_packets"] == 20
    assert [fairness90.sender(i) for i in range(7)] == [1, 2, 3, 4, 5, 1, 2]


# --- dctcp-convergence-sim ----------------------------------------------------------------


def test_convergence_scenarios():
    runs = plan(convergence_sim, "full")
    quick = plan(convergence_sim, "quick")
    # 2 rates × 3 RTTs × 2 protocols, plus the 1 Gbps jitter variant; 10 and 3 seeds.
    assert len(runs) == (12 + 6) * 10 and len(quick) == (12 + 6) * 3
    for (rate, rtt, proto, variant, _seed), sc in runs.items():
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
        if variant == convergence_sim.DEFAULT:
            # The testbed's noise floor: half a packet time of the bottleneck C (6 µs at
            # 1 Gbps), never below the engine's 1 µs (10 Gbps: half a packet time is 0.6 µs).
            assert jitter == pytest.approx(6.0 if rate == 1.0 else 1.0)
        else:
            assert rate == 1.0 and jitter == pytest.approx(12.0)
    assert {rtt for _, rtt, *_ in runs} == {100.0, 200.0, 300.0}
    assert {sc["sim"]["duration_s"] for sc in quick.values()} == {1.1}


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
    ct = convergence_sim.convergence_time
    assert ct(t, d1, d2, t_join=0.1, rtt_s=1e-3) == pytest.approx(0.060)
    # A hold of 5 RTTs accepts the early crossing: the window ending at sample 119.
    assert ct(t, d1, d2, t_join=0.1, rtt_s=1e-3, hold_rtts=5) == pytest.approx(0.019)
    # A 5% band: 95 vs 100 never qualifies.
    assert math.isnan(ct(t, d1, d2, t_join=0.1, rtt_s=1e-3, tol=0.05))
    # Windows must start at the join: joining at 0.115 s rules out the crossing's windows.
    assert ct(t, d1, d2, t_join=0.115, rtt_s=1e-3, hold_rtts=5) == pytest.approx(0.045)


def test_trailing_rates():
    t = np.arange(21) * 1e-3
    te, bps, span = convergence_sim.trailing_rates(t, _cumulative([100.0] * 20), 1e-3)
    assert span == pytest.approx(0.01) and te[0] == pytest.approx(0.01)
    assert np.allclose(bps, 100 * 8 / 1e-3)


def test_phase_lock_is_a_fixed_unequal_split():
    # Samples every 1 ms, RTT 0.1 ms (a 1-ms window): flow 1 delivers 100 B a sample.
    t = np.arange(201) * 1e-3
    d1 = _cumulative([100.0] * 200)
    lock = convergence_sim.phase_locked
    # 60 B a sample against 100: apart by 40% and steady: locked.
    assert lock(t, d1, _cumulative([60.0] * 200), t_join=0.0, rtt_s=1e-4)
    # Alternating 40 / 80 B: the share swings by far more than 0.05: not a lock.
    assert not lock(t, d1, _cumulative([40.0, 80.0] * 100), t_join=0.0, rtt_s=1e-4)
    # 95 B against 100: within 10%, so equal, not locked.
    assert not lock(t, d1, _cumulative([95.0] * 200), t_join=0.0, rtt_s=1e-4)
    # Unequal early, equal in the second half: not locked (the second half decides).
    assert not lock(t, d1, _cumulative([60.0] * 100 + [100.0] * 100), t_join=0.0, rtt_s=1e-4)


def test_median_counts_never_as_infinite():
    med = convergence_sim.median_ms
    assert med([0.01, math.nan, 0.03]) == pytest.approx(30.0)
    assert med([math.nan, math.nan, 0.01]) == math.inf
    assert med([0.02, 0.04]) == pytest.approx(30.0)


# --- dctcp-fig17 --------------------------------------------------------------------------


def _fig17(protocol: str) -> dict:
    return fig17.scenario(TESTBEDS["dctcp_testbed"], protocol, 5.0, 2.0)


def test_fig17_groups_and_flows_are_the_papers():
    h = fig17.hosts()
    # S1 and S2 on Triumph 1 (hosts 0..29), S3, R1 and R2 on Triumph 2 (30..60).
    assert h == {
        "S1": list(range(10)),
        "S2": list(range(10, 30)),
        "S3": list(range(30, 40)),
        "R1": [40],
        "R2": list(range(41, 61)),
    }
    sc = _fig17("DCTCP")
    topo = sc["topology"]
    assert (topo["s1"], topo["s2"], topo["s3"], topo["r2"]) == (10, 20, 10, 20)
    assert topo["host_link"]["rate_gbps"] == 1.0 and topo["core_link"]["rate_gbps"] == 10.0
    pairs = [(f["src"], f["dst"]) for f in sc["flows"]]
    # "The senders in the S1 and S3 groups, totaling 20 machines, all send to receiver R1."
    assert sorted(s for s, d in pairs if d == 40) == list(range(10)) + list(range(30, 40))
    # "The 20 senders in S2 each send to an assigned receiver in group R2."
    s2 = {s: d for s, d in pairs if d != 40}
    assert sorted(s2) == list(range(10, 30)) and sorted(s2.values()) == list(range(41, 61))
    assert [g for g, _ in fig17.flows()] == ["S1"] * 10 + ["S3"] * 10 + ["S2"] * 20
    # The two bottleneck ports exist under the names the experiment reads.
    names = dcsim.port_names(sc)
    assert fig17.R1_PORT == "triumph2->h40"
    assert fig17.CORE_PORT in names and fig17.R1_PORT in names
    tcp = _fig17("TCP")
    assert tcp["tcp"]["cc"] == "newreno" and tcp["switch"]["aqm"] == {"kind": "drop_tail"}
    assert sc["tcp"]["cc"] == "dctcp" and sc["tcp"]["rto_min_ms"] == 300.0


def test_fig17_marking_threshold_follows_each_ports_line_rate():
    """Fig. 17's DCTCP AQM leaves K to the engine: 20 on 1 Gbps ports, 65 on 10 Gbps ones.
    A non-ECT sender above K is dropped, so a port fed faster than it drains peaks at
    exactly K + 1 packets (the one being sent counts)."""
    aqm = _fig17("DCTCP")["switch"]["aqm"]
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
    # R1's 1000 Mbps over 20 senders = 50; (10,000 − 10 · 50)/20 = 475.
    assert fig17.fair_shares_mbps() == {"S1": 50.0, "S3": 50.0, "S2": 475.0}
    # No S1: S2 splits the whole core link, 10,000/20 = 500; R1 then has S3 alone, 1000/5 = 200.
    assert fig17.fair_shares_mbps(s1=0, s3=5) == {"S1": 200.0, "S3": 200.0, "S2": 500.0}
    # Five S2 senders would get 1900 each from the core but are capped by their 1 Gbps links.
    assert fig17.fair_shares_mbps(s2=5)["S2"] == 1000.0
    assert fig17.within(45.0, 50.0) and fig17.within(55.0, 50.0)
    assert not fig17.within(44.9, 50.0) and not fig17.within(37.8, 50.0)


def test_fig17_warmup_runs_stop_where_the_measurement_starts():
    for scale in ("quick", "full"):
        s = fig17.EXPERIMENT.params(scale)
        runs = plan(fig17, scale)
        assert list(runs) == [("DCTCP", "run"), ("DCTCP", "warmup"), ("TCP", "run"), ("TCP", "warmup")]
        for (proto, part), sc in runs.items():
            end = s["duration_s"] if part == "run" else s["warmup_s"]
            assert sc["sim"]["duration_s"] == end and sc["sim"]["seed"] == 1
            # Apart from when it stops and measures, the warm-up run is the same scenario.
            twin = runs[(proto, "warmup" if part == "run" else "run")]
            assert {k: v for k, v in sc.items() if k not in ("sim", "name")} == {k: v for k, v in twin.items() if k not in ("sim", "name")}
    full = fig17.EXPERIMENT.params("full")
    assert full["duration_s"] - full["warmup_s"] == 30
