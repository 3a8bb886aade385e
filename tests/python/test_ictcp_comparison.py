"""The ICTCP paper's comparisons of ICTCP, TCP and DCTCP (ictcp-fig8 ... ictcp-fig14 and
ictcp-bg-udp, ICTCP §VII): the sweeps at the paper's scale and the runs the figure pairs share,
the shared analysis, the UDP experiment's builder and claims on hand-made tables, and each
experiment run end to end through the runner at the "smoke" scale."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest

from conftest import assert_smoke_run_writes_outputs, columns
from dcsim import experiments
from dcsim.experiments import Runs
from dcsim.experiments.ictcp import bg_udp, compare, fig8, fig9, fig10, fig11, fig12, fig13, fig14
from dcsim.experiments.ictcp import testbeds as tb
from dcsim.experiments.ictcp.incast import collapse_point
from dcsim.results import Results

MODULES = (fig8, fig9, fig10, fig11, fig12, fig13, fig14, bg_udp)
ICTCP, TCP, DCTCP = (v.label for v in (compare.ICTCP_2MSS, compare.TCP, compare.DCTCP))


def plan(module, scale: str = "full") -> dict:
    e = module.EXPERIMENT
    return dict(e.scenarios(e.params(scale), experiments.testbed_for(e)))


# --- the sweeps ----------------------------------------------------------------------------


def test_comparison_sweeps_are_the_papers_and_shared_by_figure_pairs():
    # §VII: 1 ... 46 senders, 100 rounds, the three transports on the same rounds; each figure
    # pair declares one sweep (identical scenarios, so simulated once through the run cache).
    plan8 = plan(fig8)
    assert plan8 == plan(fig9)
    assert plan(fig11) == plan(fig12)
    assert plan(fig13) == plan(fig14)
    assert {n for *_, n in plan8} == set(range(1, 47))
    assert {v for v, *_ in plan8} == {"ICTCP (2 MSS min)", "TCP", "DCTCP"}
    assert {w for _, w, _ in plan8} == {"64 kB/sender", "128 kB/sender", "256 kB/sender"}
    for (v, w, n), sc in plan8.items():
        q = sc["queries"][0]
        assert q["rounds"] == 100 and len(q["servers"]) == n and q["response_bytes"] == int(w.split()[0]) * 1024
        assert sc["sim"]["stop_when_queries_done"] is True
        assert sc["tcp"]["rto_min_ms"] == 300.0
        assert ("ictcp" in sc) == v.startswith("ICTCP") and sc["tcp"]["cc"] == ("dctcp" if v == "DCTCP" else "newreno")
    plan10 = plan(fig10)
    assert {sc["ictcp"]["min_rwnd_segments"] for (v, *_), sc in plan10.items() if v.startswith("ICTCP")} == {1, 2}
    # Fixed totals: 2 MB and 8 MB split evenly.
    for (_, w, n), sc in plan(fig11).items():
        total = int(w.split()[0]) << 20
        assert sc["queries"][0]["response_bytes"] == total // n
    # Background: one flow from the 48th port to the receiver, ahead of the rounds.
    for sc in plan(fig13).values():
        assert sc["flows"] == [compare.BACKGROUND_FLOW]
        assert sc["flows"][0]["src"] == tb.BACKGROUND_HOST and sc["flows"][0]["dst"] == tb.RECEIVER
        assert sc["queries"][0]["start_s"] == compare.BACKGROUND_LEAD_S


def test_every_comparison_reruns_unfinished_rounds_longer():
    for module in MODULES:
        assert module.EXPERIMENT.rerun is not None and module.EXPERIMENT.reruns == 2, module.EXPERIMENT.id


@pytest.mark.parametrize("scale", ["quick", "full"])
def test_bg_udp_adds_the_udp_source_to_fig13s_incast(scale):
    assert bg_udp.EXPERIMENT.scales == fig8.EXPERIMENT.scales
    runs = plan(bg_udp, scale)
    udp = {k[1:]: sc for k, sc in runs.items() if k[0] == bg_udp.WITH_UDP}
    ref = plan(fig13, scale)
    assert list(udp) == list(ref)
    assert len({sc["name"] for sc in udp.values()}) == len(udp)
    for (v, w, n), sc in udp.items():
        sc13 = ref[(v, w, n)]
        # One UDP source: 200 Mb/s of 1500-B IP packets from fig13's background host to the
        # receiver, from t = 0, before the rounds.
        assert sc["udp"] == [{"src": tb.BACKGROUND_HOST, "dst": tb.RECEIVER, "rate_gbps": 0.2, "packet_bytes": 1500, "start_s": 0.0}]
        assert tb.BACKGROUND_HOST == 47 and tb.RECEIVER == 0
        assert sc["flows"] == []  # no background TCP
        (q,) = sc["queries"]
        assert q == sc13["queries"][0]  # the same incast rounds as fig13
        assert q["start_s"] == pytest.approx(0.2) and q["start_s"] > sc["udp"][0]["start_s"]
        assert q["client"] == tb.RECEIVER and q["servers"] == list(range(1, n + 1))
        assert sc["sim"]["warmup_s"] == q["start_s"]  # rates over the rounds
        assert sc["sim"]["stop_when_queries_done"]
        assert sc["switch"] == sc13["switch"] and sc["tcp"] == sc13["tcp"]
        assert sc.get("ictcp") == sc13.get("ictcp")
        if v == ICTCP:
            assert sc["ictcp"] == {"hosts": [tb.RECEIVER], "min_rwnd_segments": 2}
        elif v == DCTCP:
            assert sc["tcp"]["cc"] == "dctcp" and "ictcp" not in sc
        else:
            assert v == TCP and sc["tcp"]["cc"] == "newreno" and "ictcp" not in sc
        json.dumps(sc)
    assert {v for v, *_ in udp} == {ICTCP, TCP, DCTCP}
    # The reference without background is ictcp-fig8's runs, scenario for scenario.
    assert {k[1:]: sc for k, sc in runs.items() if k[0] == bg_udp.NO_BACKGROUND} == plan(fig8, scale)
    assert {k[0] for k in runs} == {bg_udp.WITH_UDP, bg_udp.NO_BACKGROUND}


def test_fig13s_sweep_keeps_its_background_tcp_flow_and_no_udp():
    for sc in plan(fig13, "quick").values():
        assert sc["flows"] == [compare.BACKGROUND_FLOW] and "udp" not in sc


# --- the shared analysis -------------------------------------------------------------------


def test_collapse_point_and_background_rate():
    df = pd.DataFrame({"senders": [1, 2, 4, 8], "goodput_mbps": [500.0, 900.0, 600.0, 300.0]})
    assert collapse_point(df) == 8  # first n after the peak below 450
    assert math.isnan(collapse_point(df.iloc[:3]))
    # Background flow (connection 0) sampled from the end of the warm-up (0.2 s) on: 20 MB
    # delivered by 0.2 s (800 Mb/s) before the rounds; during them the engine's goodput over
    # the measured window.
    lead = compare.BACKGROUND_LEAD_S
    t = [0.2, 0.4]
    res = Results(
        {
            "flow_samples": {
                "flow": np.array([0, 0, 1, 1]),
                "t_s": np.array(t * 2),
                "delivered_bytes": np.array([20e6, 30e6, 0, 0]),
            },
            "flows": columns([{"workload": None, "goodput_bps": 4e8}, {"workload": 0, "goodput_bps": 1e8}]),
        }
    )
    assert lead == 0.2
    before, during = compare.background_mbps(res)
    assert before == pytest.approx(800.0) and during == pytest.approx(400.0)


def test_published_marks_take_their_variants_colour():
    style = compare.STYLE
    assert compare.reference_color("TCP 879 Mb/s") == style["TCP"][0]
    assert compare.reference_color("ICTCP 607 Mb/s") == style["ICTCP (2 MSS min)"][0]
    assert compare.reference_color("ICTCP 1 MSS 564 Mb/s") == style["ICTCP (1 MSS min)"][0]


# --- ictcp-bg-udp: the floor's limit, the UDP table, the claims on hand-made tables ---------


def test_floor_limit_is_eq8_with_the_udp_share():
    # Without UDP, Eq. 8 gives the paper's 47 senders for 128.5 kB and R·C = 12,500 B;
    # the UDP takes 1538/1500 × 200 Mb/s of the wire.
    assert bg_udp.floor_limit_senders(0.0, 128_500, 12_500) == pytest.approx(47.0)
    u = bg_udp.udp_wire_share(38)
    assert u == pytest.approx(0.2050667, rel=1e-6)
    assert bg_udp.floor_limit_senders(u, 128_500, 12_500) == pytest.approx(47.0 * (1 - u))
    assert bg_udp.udp_wire_share(0) == pytest.approx(0.2)


def test_udp_stats_reads_the_udp_table():
    cols = {
        "id": [0],
        "src": [47],
        "dst": [0],
        "class": [0],
        "echo": [False],
        "rate_bps": [2e8],
        "packet_bytes": [1500],
        "sent_packets": [1000],
        "received_packets": [990],
        "dropped_packets": [10],
        "replies": [0],
        "echoes_dropped": [0],
        "send_rate_bps": [2.0e8],
        "receive_rate_bps": [1.98e8],
    }
    s = bg_udp.udp_stats(Results({"udp": {k: np.array(v) for k, v in cols.items()}}))
    assert s["udp_receive_mbps"] == pytest.approx(198.0) and s["udp_send_mbps"] == pytest.approx(200.0)
    assert s["udp_loss"] == pytest.approx(0.01) and s["udp_dropped"] == 10


def table(ictcp_to, tcp_to, ictcp_gp=None, tcp_gp=None, ns=(4, 16, 32, 40), **extra) -> pd.DataFrame:
    """A one-workload table: timeout ratios (and goodputs) per n for ICTCP and TCP."""
    rows = []
    for label, to, gp in ((ICTCP, ictcp_to, ictcp_gp), (TCP, tcp_to, tcp_gp)):
        for i, n in enumerate(ns):
            row = {
                "variant": label,
                "workload": "64 kB/sender",
                "senders": n,
                "timeout_ratio": to[i],
                "goodput_mbps": (gp or [500.0] * len(ns))[i],
            }
            for k, vals in extra.items():
                row[k] = vals[label][i]
            rows.append(row)
    return pd.DataFrame(rows)


def test_timeouts_claim():
    ok, _ = bg_udp.timeouts_controlled(table([0, 0, 0.05, 0.1], [0, 0.6, 1, 1]))
    assert ok
    ok, text = bg_udp.timeouts_controlled(table([0, 0, 0.05, 1.0], [0, 0.6, 1, 1]))
    assert not ok and "n=40" in text
    # No incast in TCP: nothing shown, so no claim.
    assert not bg_udp.timeouts_controlled(table([0] * 4, [0, 0.2, 0.4, 0.5]))[0]


def test_keeps_goodput_claim():
    extra = {
        "goodput_no_bg_mbps": {ICTCP: [900.0] * 4, TCP: [900.0] * 4},
        "timeout_ratio_no_bg": {ICTCP: [0, 0, 0, 1], TCP: [0, 1, 1, 1]},
    }
    df = table([0] * 4, [0] * 4, ictcp_gp=[720, 710, 700, 40], **extra)
    df["goodput_vs_no_bg"] = df.goodput_mbps / df.goodput_no_bg_mbps
    ok, text = bg_udp.keeps_goodput(df, 0.205, 37.4)
    assert ok  # n=40 is excluded: ICTCP alone times out there
    assert "UDP leaves 0.795 of the wire" in text and "(n < 37.4) 0.78" in text
    df.loc[(df.variant == ICTCP) & (df.senders == 16), "goodput_mbps"] = 600.0
    df["goodput_vs_no_bg"] = df.goodput_mbps / df.goodput_no_bg_mbps
    ok, text = bg_udp.keeps_goodput(df, 0.205, 37.4)
    assert not ok and "n=16" in text


def test_udp_claim():
    extra = {
        "udp_receive_mbps": {ICTCP: [199.5, 199.0, 198.5, 195.0], TCP: [199.0, 197.0, 196.0, 190.0]},
        "udp_dropped": {ICTCP: [0, 0, 0, 30], TCP: [0, 10, 20, 50]},
        "udp_loss": {ICTCP: [0, 0, 0, 0.003], TCP: [0, 0.002, 0.004, 0.01]},
    }
    df = table([0] * 4, [0] * 4, **extra)
    df = pd.concat([df, df[df.variant == TCP].assign(variant=DCTCP)])
    ok, _ = bg_udp.udp_keeps_rate(df)
    assert ok  # n=40 lost packets, so its 195 Mb/s is allowed
    df.loc[(df.variant == ICTCP) & (df.senders == 16), "udp_receive_mbps"] = 197.0
    assert not bg_udp.udp_keeps_rate(df)[0]  # short of 198 Mb/s without any loss
    df.loc[(df.variant == ICTCP) & (df.senders == 16), "udp_dropped"] = 3
    ok, text = bg_udp.udp_keeps_rate(df)
    assert ok and "losses from n=16" in text  # a run that lost packets may fall short


def test_floor_claim():
    ns = (8, 24, 32, 36, 38, 40, 46)
    floor = bg_udp.timeouts_begin_at_floor
    assert floor(table([0, 0, 0, 0, 1, 1, 1], [1] * 7, ns=ns), 37.4)[0]
    assert floor(table([0, 0, 0, 0, 0, 1, 1], [1] * 7, ns=ns), 37.4)[0]  # 40 = 38 + 2
    assert not floor(table([0, 0, 0, 0, 0, 0, 1], [1] * 7, ns=ns), 37.4)[0]  # too late
    assert floor(table([0, 0, 0, 0.1, 1, 1, 1], [1] * 7, ns=ns), 37.4)[0]  # 36 = 38 - 2
    assert not floor(table([0, 0, 0.1, 1, 1, 1, 1], [1] * 7, ns=ns), 37.4)[0]  # too early
    assert not floor(table([0] * 7, [1] * 7, ns=ns), 37.4)[0]  # never
    # On a coarse grid the first point after the limit counts.
    assert floor(table([0, 0, 0, 1], [1] * 4, ns=(8, 16, 32, 40)), 37.4)[0]
    assert floor(table([0, 0, 0, 1], [1] * 4, ns=(8, 16, 32, 46)), 37.4)[0]  # nothing between
    assert not floor(table([0, 0, 0, 0, 1], [1] * 5, ns=(8, 16, 32, 40, 46)), 37.4)[0]


def test_the_floors_terms_follow_the_testbed():
    # The analysis on hand-made rounds: Eq. 8's terms are those of the testbed the runs are on.
    def results(sc: dict) -> Results:
        q = sc["queries"][0]
        row = {"qct_s": 0.01, "response_bytes": q["response_bytes"], "timeouts": 0, "issued_s": q["start_s"]}
        udp = {"sent_packets": 1000, "received_packets": 1000, "dropped_packets": 0, "send_rate_bps": 2e8, "receive_rate_bps": 2e8}
        return Results({"duration_s": 1.0, "queries": columns([row]), "udp": columns([udp])})

    def analyze(testbed) -> dict:
        e = bg_udp.EXPERIMENT
        p = e.params("smoke")
        plan = dict(e.scenarios(p, testbed))
        m = e.analyze(Runs("smoke", p, testbed, plan, {key: results(sc) for key, sc in plan.items()}))
        return {**m.values, "text": e.claims[2].judge(m)["claim"]}

    own = analyze(tb.TESTBED)
    assert (own["udp_wire_share"], own["port_share_bytes"], own["rc_bytes"]) == (bg_udp.udp_wire_share(38), 128_500, 12_500)
    assert own["floor_limit_senders"]["with_udp"] == pytest.approx(37.4, abs=0.05)
    # No framing, 25 µs links, a static 200 kB port.
    other_tb = dataclasses.replace(
        tb.TESTBED, link={"delay_us": 25.0, "framing_bytes": 0}, buffers={1.0: {"kind": "per_port", "limit_bytes": 200_000}}
    )
    other = analyze(other_tb)
    rc = tb.rc_bytes(other_tb)
    assert rc == round((100 + 2 * 1540 * 8e-3) * 125)
    assert (other["udp_wire_share"], other["port_share_bytes"], other["rc_bytes"]) == (pytest.approx(0.2), 200_000, rc)
    assert other["floor_limit_senders"] == {
        "with_udp": pytest.approx((200_000 + rc) * 0.8 / 3000),
        "without": pytest.approx((200_000 + rc) / 3000),
    }
    assert "the UDP takes 0.200 of the wire" in other["text"]


def test_with_reference_merges_by_point():
    df = pd.DataFrame({"variant": [ICTCP, TCP], "workload": ["w", "w"], "senders": [4, 4], "goodput_mbps": [400.0, 300.0]})
    ref = pd.DataFrame(
        {
            "variant": [TCP, ICTCP],
            "workload": ["w", "w"],
            "senders": [4, 4],
            "goodput_mbps": [600.0, 500.0],
            "timeout_ratio": [0.5, 0.0],
        }
    )
    out = bg_udp.with_reference(df, ref)
    assert np.allclose(out.goodput_vs_no_bg, [0.8, 0.5])
    assert list(out.timeout_ratio_no_bg) == [0.0, 0.5]


# --- end to end ------------------------------------------------------------------------------


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.EXPERIMENT.id)
def test_smoke_run_writes_outputs(module, tmp_path):
    assert_smoke_run_writes_outputs(module.EXPERIMENT, tmp_path, experiments.testbed_for(module.EXPERIMENT))
