"""The Judd pitfall experiments judd-coexistence and judd-red-ecn: the scenarios against the
setup their notes state, and the analysis and claims on hand-computed inputs. Each
experiment runs end to end in the README's `dcsim reproduce` test (test_readme.py)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

import dcsim
from dcsim.experiments import TESTBEDS, Metrics, Runs
from dcsim.experiments.judd import coexistence as coex
from dcsim.experiments.judd import red_ecn as red
from dcsim.experiments.judd.testbeds import FIXED_HOSTS, RFC3168_HOSTS, base_rtt_s, segregated
from dcsim.scenario import resolved

TESTBED = TESTBEDS["judd_testbed"]


def _params(module, scale: str) -> dict:
    return module.EXPERIMENT.params(scale)


def _holds(module, m: Metrics) -> list[bool]:
    return [c.judge(m)["holds"] for c in module.EXPERIMENT.claims]


@pytest.mark.parametrize("module", [coex, red], ids=lambda m: m.EXPERIMENT.id)
def test_the_notes_give_the_setup_and_the_outputs(module):
    for section in ("Paper setup", "Our setup", "Assumptions:", "Outputs:"):
        assert section in module.EXPERIMENT.notes


# --- judd-coexistence: scenarios -----------------------------------------------------------


def test_coexistence_runs_every_mix_in_every_configuration():
    plan = coex.scenarios(_params(coex, "quick"), TESTBED)
    assert list(plan) == [(m, cfg) for m in ("1+1", "4+4") for cfg in ("drop", "enqueue", "segregated")]
    assert len({sc["name"] for sc in plan.values()}) == len(plan)


@pytest.mark.parametrize("mix", [(1, 1), (4, 4)])
def test_coexistence_flows_carry_their_protocol_and_class(mix):
    nd, nt = mix
    for cfg in coex.CONFIGS:
        sc = coex.scenario(cfg, nd, nt, _params(coex, "quick"), TESTBED)
        flows = sc["flows"]
        assert len(flows) == nd + nt and sc["topology"]["hosts"] == nd + nt + 1
        assert [f["cc"] for f in flows] == ["dctcp"] * nd + ["cubic"] * nt
        assert [f["class"] for f in flows] == [0] * nd + [1] * nt
        assert all(f["dst"] == 0 for f in flows)
        assert sorted(f["src"] for f in flows) == list(range(1, nd + nt + 1))
        # Handshakes are over before the first data reach the port.
        assert all(f["start_jitter_us"] <= 5.0 for f in flows)


def test_coexistence_switch_configurations():
    drop, enq, seg = (coex.scenario(cfg, 4, 4, _params(coex, "full"), TESTBED) for cfg in coex.CONFIGS)
    for sc in (drop, enq, seg):
        assert sc["topology"]["link"]["rate_gbps"] == 10.0
        assert sc["topology"]["link"]["delay_us"] == 5.0
        assert sc["switch"]["buffer"] == {"kind": "per_port", "limit_bytes": 5_500_000}
        assert sc["tcp"]["ect_on_control"] == "rfc3168" and "ect_on_syn" not in sc["tcp"]
        assert sc["tcp"]["profile"] == "linux_current" and resolved(sc)["tcp"]["init_cwnd_segments"] == 10
        assert sc["sim"]["duration_s"] == 20.0 and sc["sim"]["warmup_s"] == 0.0
        assert sc["measure"]["queue_ports"] == ["s0->h0"] and sc["measure"]["flow_sample_us"] > 0
    # (a) one queue that drops non-ECT above K; (b) one mark-only queue.
    assert "classes" not in drop["switch"] and "classes" not in enq["switch"]
    assert drop["switch"]["aqm"] == {
        "kind": "threshold",
        "k_packets": 20,
        "count_in_service": True,
        "nonect": "drop",
    }
    assert enq["switch"]["aqm"] | {"nonect": "drop"} == drop["switch"]["aqm"]
    assert enq["switch"]["aqm"]["nonect"] == "enqueue"
    # (c) two classes by flow: DCTCP with RED-ECN at K, TCP drop-tail, half the buffer each.
    cl = seg["switch"]["classes"]
    assert cl["scheduler"] == "drr" and cl["classify"] == {"by": "flow"}
    q0, q1 = cl["queues"]
    assert q0["aqm"]["kind"] == "threshold" and q0["aqm"]["nonect"] == "drop"
    assert q0["aqm"]["k_packets"] == 20
    assert q1["aqm"] == {"kind": "drop_tail"}
    assert q0["limit_bytes"] == q1["limit_bytes"] == 2_750_000
    assert q0.get("weight", 1) == q1.get("weight", 1)


def test_coexistence_measures_after_the_start():
    for s in coex.EXPERIMENT.scales.values():
        assert 0 < s["measure_from_s"] < s["duration_s"]
        assert s["flow_sample_us"] * 1e-6 * 20 <= s["duration_s"] - s["measure_from_s"]


# --- judd-coexistence: analysis ------------------------------------------------------------


def test_base_rtt_by_hand():
    # 4 × 5 µs + data 1538 B and ACK 78 B each serialised twice at 10 Gbps.
    assert base_rtt_s(TESTBED.link) == pytest.approx(20e-6 + 2 * 1.2304e-6 + 2 * 0.0624e-6)
    # The DCTCP testbed's links: 4 × 25 µs.
    assert base_rtt_s(TESTBEDS["dctcp_testbed"].link) == pytest.approx(100e-6 + 2 * 1.2304e-6 + 2 * 0.0624e-6)


def test_coexistence_analysis_takes_the_testbeds_base_rtt():
    """Short runs on 25-µs links: the base RTT the analysis subtracts (Little's law) is that
    path's, 102.6 µs, not the Judd testbed's 22.6 µs."""
    other = dataclasses.replace(TESTBED, link={"delay_us": 25.0, "framing_bytes": 38})
    p = {"duration_s": 0.02, "measure_from_s": 0.01, "queue_sample_us": 1000.0, "flow_sample_us": 1000.0}
    plan = dict(coex.scenarios(p, other))
    assert {sc["topology"]["link"]["delay_us"] for sc in plan.values()} == {25.0}
    m = coex.EXPERIMENT.analyze(Runs("test", p, other, plan, {key: dcsim.run(sc) for key, sc in plan.items()}))
    assert m["base_rtt_us"] == pytest.approx(102.5856)
    for r in m["runs"]:
        # Each DCTCP flow queues (srtt − base RTT) × its packet rate, never below zero.
        assert r["dctcp_queue_packets"] >= 0.0 and r["dctcp_srtt_us"] > 102.5856


# Testbeds that differ from the Judd one in their port buffer only.
BUFFERS = {
    "bytes": ({"kind": "per_port", "limit_bytes": 1_000_000}, {"limit_bytes": 500_000}),
    "packets": ({"kind": "per_port", "limit_packets": 2001}, {"limit_packets": 1000}),
    "shared memory": ({"kind": "preset", "name": "scorpion"}, {}),
}


@pytest.mark.parametrize("buffer, limits", BUFFERS.values(), ids=list(BUFFERS))
def test_class_queues_split_the_testbeds_port(buffer, limits):
    """Each class gets half the port's static limit; a shared memory's classes get none (its
    dynamic threshold holds each class queue)."""
    tb = dataclasses.replace(TESTBED, buffers={10.0: buffer})
    for by in ("flow", "ecn"):
        q0, q1 = segregated(tb, by=by)["queues"]
        assert {k: v for k, v in q0.items() if k != "aqm"} == {k: v for k, v in q1.items() if k != "aqm"} == limits
    seg = coex.scenario(coex.SEGREGATED, 1, 1, _params(coex, "quick"), tb)
    assert seg["switch"]["buffer"] == buffer
    for q in resolved(seg)["switch"]["classes"]["queues"]:
        assert {k: q.get(k) for k in ("limit_bytes", "limit_packets")} == {"limit_bytes": None, "limit_packets": None} | limits
    red_plan = red.scenarios(_params(red, "quick"), tb)
    for cfg, sc in red_plan.items():
        if red.is_segregated(cfg):
            assert all({k: v for k, v in q.items() if k != "aqm"} == limits for q in sc["switch"]["classes"]["queues"])


def test_little_queue_by_hand():
    # 5 Gbps of 1460-B segments = 428,082 packets/s, 50 µs of queueing: 21.4 packets.
    q = coex.little_queue_packets(5e9, 72.5856e-6, 22.5856e-6)
    assert q == pytest.approx(5e9 / (8 * 1460) * 50e-6) and q == pytest.approx(21.404, abs=1e-3)
    assert coex.little_queue_packets(5e9, 10e-6, 22.5856e-6) == 0.0
    assert math.isnan(coex.little_queue_packets(5e9, float("nan"), 22e-6))
    assert math.isnan(coex.little_queue_packets(5e9, None, 22e-6))


def test_shares_and_drop_rate():
    assert coex.shares({"DCTCP": 3.0, "TCP": 1.0}) == {"DCTCP": 0.75, "TCP": 0.25}
    assert all(math.isnan(v) for v in coex.shares({"DCTCP": 0.0, "TCP": 0.0}).values())
    assert coex.drop_rate(5, 200) == 0.025
    assert math.isnan(coex.drop_rate(0, 0))


def test_protocol_throughput_and_series_by_hand():
    # Flow 0 (DCTCP) delivers 1 MB per 10 ms, flows 1 and 2 (TCP) 0.25 MB each.
    t = np.arange(0, 0.101, 0.01)
    fs = pd.concat(
        [
            pd.DataFrame({"flow": f, "t_s": t, "delivered_bytes": (rate * t / 0.01).round()})
            for f, rate in ((0, 1e6), (1, 2.5e5), (2, 2.5e5))
        ],
        ignore_index=True,
    )
    protos = {0: "DCTCP", 1: "TCP", 2: "TCP"}
    tp = coex.protocol_throughput(fs, protos, 0.05, 0.1)
    assert tp["DCTCP"] == pytest.approx(800e6) and tp["TCP"] == pytest.approx(400e6)
    s = coex.protocol_series(fs, protos)
    assert set(s.protocol) == {"DCTCP", "TCP"}
    assert np.allclose(s[s.protocol == "DCTCP"].gbps, 0.8)
    assert np.allclose(s[s.protocol == "TCP"].gbps, 0.4)


def _coex_metrics(override: dict | None = None) -> Metrics:
    """A summary in which every claim holds; ``override[(mix, config, column)] = value``."""
    base = {
        "drop": {
            "tcp_share": 0.001,
            "dctcp_share": 0.999,
            "tcp_gbps": 0.01,
            "dctcp_gbps": 9.48,
            "tcp_drop_rate": 0.4,
            "queue_mean_packets": 20.0,
            "dctcp_queue_packets": 22.0,
            "dctcp_srtt_us": 50.0,
        },
        "enqueue": {
            "tcp_share": 0.99,
            "dctcp_share": 0.01,
            "tcp_gbps": 9.4,
            "dctcp_gbps": 0.1,
            "tcp_drop_rate": 0.002,
            "queue_mean_packets": 2000.0,
            "dctcp_queue_packets": 5.0,
            "dctcp_srtt_us": 3000.0,
        },
        "segregated": {
            "tcp_share": 0.5,
            "dctcp_share": 0.5,
            "tcp_gbps": 4.75,
            "dctcp_gbps": 4.75,
            "tcp_drop_rate": 0.01,
            "queue_mean_packets": 1500.0,
            "dctcp_queue_packets": 21.0,
            "dctcp_srtt_us": 75.0,
        },
    }
    rows = []
    for mix in ("1+1", "4+4"):
        for cfg, vals in base.items():
            r = {"mix": mix, "config": cfg, **vals}
            for (m, c_, col), v in (override or {}).items():
                if (m, c_) == (mix, cfg):
                    r[col] = v
            rows.append(r)
    return Metrics(values={}, tables={"coexistence_summary": pd.DataFrame(rows)})


def test_coexistence_claims_hold_on_the_expected_outcome():
    m = _coex_metrics()
    assert _holds(coex, m) == [True] * 4
    assert "40.00 %" in coex.EXPERIMENT.claims[0].judge(m)["measured"]


@pytest.mark.parametrize(
    "override, failing",
    [
        # TCP drops as much in its own drop-tail class as in the shared RED-ECN queue.
        ({("4+4", "segregated", "tcp_drop_rate"): 0.05}, 0),
        ({("1+1", "drop", "tcp_drop_rate"): 0.0}, 0),
        ({("1+1", "drop", "tcp_share"): 0.3}, 1),
        ({("4+4", "enqueue", "tcp_share"): 0.7}, 2),
        ({("1+1", "enqueue", "queue_mean_packets"): 150.0}, 2),
        ({("4+4", "segregated", "tcp_share"): 0.35}, 3),
        ({("1+1", "segregated", "dctcp_share"): 0.65}, 3),
        ({("1+1", "segregated", "dctcp_queue_packets"): 45.0}, 3),
    ],
)
def test_coexistence_claims_fail_when_the_outcome_differs(override, failing):
    assert _holds(coex, _coex_metrics(override)) == [i != failing for i in range(4)]


# --- judd-red-ecn: scenarios ---------------------------------------------------------------


def test_red_ecn_configurations():
    plan = red.scenarios(_params(red, "quick"), TESTBED)
    assert list(plan) == list(red.CONFIGS)
    for cfg, sc in plan.items():
        seg = cfg in (red.SEG_RFC, red.SEG_FIXED)
        fixed = cfg in (red.SHARED_FIXED, red.SEG_FIXED)
        assert ("classes" in sc["switch"]) == seg
        assert sc["switch"]["aqm"]["nonect"] == "drop" and sc["switch"]["aqm"]["k_packets"] == 20
        if seg:
            q0, q1 = sc["switch"]["classes"]["queues"]
            assert sc["switch"]["classes"]["classify"] == {"by": "flow"}
            assert q0["aqm"]["nonect"] == "drop" and q1["aqm"] == {"kind": "drop_tail"}
        t = sc["tcp"]
        control = t["ect_on_control"]
        # ECT on SYN/SYN-ACK and on pure ACKs: the per-kind switch, else ect_on_control.
        assert t.get("ect_on_syn", control == "all") is fixed
        assert t.get("ect_on_ack", control == "all") is fixed
        assert t.items() >= (FIXED_HOSTS if fixed else RFC3168_HOSTS).items()
        assert fixed or control == "rfc3168"
        assert sc["topology"]["hosts"] == 9 and sc["topology"]["link"]["rate_gbps"] == 10.0


def test_red_ecn_traffic_crosses_the_congested_ports():
    sc = red.scenario(red.SHARED_RFC, _params(red, "quick"), TESTBED)
    dctcp = [(f["src"], f["dst"]) for f in sc["flows"] if f["cc"] == "dctcp"]
    tcp = [f for f in sc["flows"] if f["cc"] == "cubic"]
    # Four DCTCP senders into host 0; two into host 1, one of them host 0 (reverse ACKs).
    assert sorted(d for d in dctcp if d[1] == 0) == [(1, 0), (2, 0), (3, 0), (4, 0)]
    assert sorted(d for d in dctcp if d[1] == 1) == [(0, 1), (5, 1)]
    assert all(f["class"] == 0 for f in sc["flows"] if f["cc"] == "dctcp")
    assert len(tcp) == 1 and tcp[0]["dst"] == 0 and tcp[0]["class"] == 1
    assert tcp[0]["rcv_buffer_bytes"] == 1_000_000
    # Short connections: a SYN into host 0's port (client 7), a SYN-ACK into it (server 8).
    q = sc["queries"]
    assert [(w["client"], w["servers"]) for w in q] == [(7, [0]), (0, [8])]
    for w in q:
        assert w["persistent"] is False and w["cc"] == "dctcp" and w["class"] == 0
        assert w["arrival"] == {"kind": "poisson", "mean_interval_ms": 2.0}
        assert w["response_bytes"] == 2000
        assert 0 < w["start_s"] < w["stop_s"] < sc["sim"]["duration_s"]
        assert w["rounds"] == 450  # 0.9 s at one per 2 ms


# --- judd-red-ecn: analysis ----------------------------------------------------------------


def test_drops_by_kind_by_hand():
    ports = [
        {
            "is_switch": True,
            "drops_nonect": 100,
            "drops_syn": 7,
            "drops_ack": 20,
            "drops_retransmit": 3,
            "drops_aqm": 100,
            "drops_buffer": 0,
            "drops_pool": 0,
        },
        {
            "is_switch": True,
            "drops_nonect": 10,
            "drops_syn": 0,
            "drops_ack": 10,
            "drops_retransmit": 0,
            "drops_aqm": 12,
            "drops_buffer": 2,
            "drops_pool": 1,
        },
        # A host NIC: not counted.
        {
            "is_switch": False,
            "drops_nonect": 50,
            "drops_syn": 0,
            "drops_ack": 50,
            "drops_retransmit": 0,
            "drops_aqm": 0,
            "drops_buffer": 50,
            "drops_pool": 0,
        },
    ]
    assert red.drops_by_kind(ports) == {
        "data": 110 - 7 - 30 - 3,
        "syn": 7,
        "ack": 30,
        "retransmit": 3,
        "nonect": 110,
        "aqm": 112,
        "buffer": 3,
    }
    # Counters missing (an engine without them) read as 0.
    assert red.drops_by_kind([{"is_switch": True, "drops_aqm": 4}])["aqm"] == 4


def test_dctcp_queue_drops_by_hand():
    ports = [
        {"is_switch": True, "drops_aqm": 30},
        {"is_switch": False, "drops_aqm": 9},
        {"is_switch": True, "drops_aqm": 5},
    ]
    assert red.dctcp_queue_nonect_drops(ports, []) == 35
    classes = [
        {"port": 0, "class": 0, "drops_aqm": 4},
        {"port": 0, "class": 1, "drops_aqm": 26},
        {"port": 1, "class": 0, "drops_aqm": 9},  # a host port: not the switch's
        {"port": 2, "class": 0, "drops_aqm": 1},
    ]
    assert red.dctcp_queue_nonect_drops(ports, classes) == 5


def test_handshake_lost():
    assert not red.handshake_lost(30e-6)
    assert not red.handshake_lost(0.2)
    assert red.handshake_lost(1.00003)
    assert red.handshake_lost(None) and red.handshake_lost(float("nan"))


def _red_metrics(override: dict | None = None) -> Metrics:
    base = {
        red.SHARED_RFC: {
            "drops_data": 50,
            "drops_syn": 300,
            "drops_ack": 2000,
            "drops_retransmit": 20,
            "dctcp_queue_nonect_drops": 2370,
        },
        red.SHARED_FIXED: {
            "drops_data": 50,
            "drops_syn": 0,
            "drops_ack": 0,
            "drops_retransmit": 20,
            "dctcp_queue_nonect_drops": 70,
        },
        red.SEG_RFC: {
            "drops_data": 0,
            "drops_syn": 280,
            "drops_ack": 1900,
            "drops_retransmit": 0,
            "dctcp_queue_nonect_drops": 2180,
        },
        red.SEG_FIXED: {
            "drops_data": 0,
            "drops_syn": 0,
            "drops_ack": 0,
            "drops_retransmit": 0,
            "dctcp_queue_nonect_drops": 0,
        },
    }
    rows = []
    for cfg, vals in base.items():
        r = {
            "config": cfg,
            **vals,
            "short_connections": 900,
            "short_handshake_lost": 0,
            "tcp_gbps": 4.7 if cfg.startswith("seg") else 0.001,
            "tcp_retransmits": 0 if cfg.startswith("seg") else 40,
        }
        for (c_, col), v in (override or {}).items():
            if c_ == cfg:
                r[col] = v
        rows.append(r)
    return Metrics(values={}, tables={"red_ecn_drops": pd.DataFrame(rows)})


def test_red_ecn_claims_hold_on_the_expected_outcome():
    assert _holds(red, _red_metrics()) == [True] * 4


@pytest.mark.parametrize(
    "override, failing",
    [
        ({(red.SHARED_RFC, "drops_syn"): 0}, {0}),
        ({(red.SHARED_RFC, "drops_ack"): 0}, {0}),
        ({(red.SHARED_FIXED, "drops_syn"): 1}, {1}),
        ({(red.SEG_FIXED, "drops_ack"): 2, (red.SEG_FIXED, "dctcp_queue_nonect_drops"): 2}, {1, 2}),
        ({(red.SEG_FIXED, "dctcp_queue_nonect_drops"): 1}, {2}),
        ({(red.SEG_RFC, "drops_data"): 1}, {3}),
        ({(red.SHARED_FIXED, "drops_data"): 0}, {3}),
        ({(red.SEG_FIXED, "tcp_retransmits"): 3}, {3}),
        ({(red.SHARED_RFC, "tcp_retransmits"): 0}, {3}),
        # DCTCP's own RFC 3168 retransmissions dropped in its class: not the TCP flow's.
        (
            {(red.SEG_RFC, "drops_retransmit"): 2, (red.SEG_RFC, "dctcp_queue_nonect_drops"): 9},
            set(),
        ),
    ],
)
def test_red_ecn_claims_fail_when_the_outcome_differs(override, failing):
    assert _holds(red, _red_metrics(override)) == [i not in failing for i in range(4)]
