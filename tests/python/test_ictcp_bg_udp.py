"""ictcp-bg-udp: incast beside a 200 Mb/s CBR UDP flow (ICTCP §VII-C). The builder against the
stated setup, and the claim functions on hand-made tables."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from dcsim.experiments import ictcp_bg_udp as m
from dcsim.experiments import ictcp_compare as cmp
from dcsim.experiments import ictcp_fig8 as fig8
from dcsim.experiments import ictcp_fig13 as fig13
from dcsim.experiments import ictcp_testbed as tb

ICTCP, TCP, DCTCP = (v.label for v in (cmp.ICTCP_2MSS, cmp.TCP, cmp.DCTCP))


def test_interface():
    assert m.ID == "ictcp-bg-udp"
    assert m.TITLE and m.DESCRIPTION and callable(m.run)
    assert m.SCALES == fig8.SCALES


@pytest.mark.parametrize("scale", ["quick", "full"])
def test_scenarios_add_the_udp_source_to_fig13s_incast(scale):
    plan = m.scenarios(scale)
    ref = fig13.scenarios(scale)
    assert [p[:3] for p in plan] == [p[:3] for p in ref]
    assert len({sc["name"] for *_, sc in plan}) == len(plan)
    for (v, _w, n, sc), (_, _, _, sc13) in zip(plan, ref):
        # One UDP source: 200 Mb/s of 1500-B IP packets from fig13's background host to the
        # receiver, from t = 0, before the rounds.
        assert sc["udp"] == [
            {
                "src": tb.BACKGROUND_HOST,
                "dst": tb.RECEIVER,
                "rate_gbps": 0.2,
                "packet_bytes": 1500,
                "start_s": 0.0,
            }
        ]
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
    assert {p[0] for p in plan} == {ICTCP, TCP, DCTCP}


def test_ictcp_compare_sweeps_are_untouched():
    # fig13/14 must keep their scenarios: the background TCP flow, no UDP.
    for *_, sc in fig13.scenarios("quick"):
        assert sc["flows"] == [cmp.BACKGROUND_FLOW] and "udp" not in sc


def test_floor_limit_is_eq8_with_the_udp_share():
    # Without UDP, Eq. 8 gives the paper's 47 senders for 128.5 kB; 1538/1500 × 200 Mb/s.
    assert m.floor_limit_senders(0.0) == pytest.approx(47.0)
    assert m.UDP_WIRE_SHARE == pytest.approx(0.2050667, rel=1e-6)
    assert m.floor_limit_senders() == pytest.approx(47.0 * (1 - m.UDP_WIRE_SHARE))


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
    raw = {"udp": {k: np.array(v) for k, v in cols.items()}}
    s = m.udp_stats(raw)
    assert s["udp_receive_mbps"] == pytest.approx(198.0) and s["udp_send_mbps"] == pytest.approx(
        200.0
    )
    assert s["udp_loss"] == pytest.approx(0.01) and s["udp_dropped"] == 10


def table(
    ictcp_to, tcp_to, ictcp_gp=None, tcp_gp=None, ns=(4, 16, 32, 40), **extra
) -> pd.DataFrame:
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
    _, ok = m.timeouts_claim(table([0, 0, 0.05, 0.1], [0, 0.6, 1, 1]))
    assert ok
    text, ok = m.timeouts_claim(table([0, 0, 0.05, 1.0], [0, 0.6, 1, 1]))
    assert not ok and "n=40" in text
    # No incast in TCP: nothing shown, so no claim.
    assert not m.timeouts_claim(table([0] * 4, [0, 0.2, 0.4, 0.5]))[1]


def test_keeps_goodput_claim():
    extra = {
        "goodput_no_bg_mbps": {ICTCP: [900.0] * 4, TCP: [900.0] * 4},
        "timeout_ratio_no_bg": {ICTCP: [0, 0, 0, 1], TCP: [0, 1, 1, 1]},
    }
    df = table([0] * 4, [0] * 4, ictcp_gp=[720, 710, 700, 40], **extra)
    df["goodput_vs_no_bg"] = df.goodput_mbps / df.goodput_no_bg_mbps
    _, ok = m.keeps_goodput_claim(df)
    assert ok  # n=40 is excluded: ICTCP alone times out there
    df.loc[(df.variant == ICTCP) & (df.senders == 16), "goodput_mbps"] = 600.0
    df["goodput_vs_no_bg"] = df.goodput_mbps / df.goodput_no_bg_mbps
    text, ok = m.keeps_goodput_claim(df)
    assert not ok and "n=16" in text


def test_udp_claim():
    extra = {
        "udp_receive_mbps": {
            ICTCP: [199.5, 199.0, 198.5, 195.0],
            TCP: [199.0, 197.0, 196.0, 190.0],
        },
        "udp_dropped": {ICTCP: [0, 0, 0, 30], TCP: [0, 10, 20, 50]},
        "udp_loss": {ICTCP: [0, 0, 0, 0.003], TCP: [0, 0.002, 0.004, 0.01]},
    }
    df = table([0] * 4, [0] * 4, **extra)
    df = pd.concat([df, df[df.variant == TCP].assign(variant=DCTCP)])
    _, ok = m.udp_claim(df)
    assert ok  # n=40 lost packets, so its 195 Mb/s is allowed
    df.loc[(df.variant == ICTCP) & (df.senders == 16), "udp_receive_mbps"] = 197.0
    assert not m.udp_claim(df)[1]  # short of 198 Mb/s without any loss
    df.loc[(df.variant == ICTCP) & (df.senders == 16), "udp_dropped"] = 3
    text, ok = m.udp_claim(df)
    assert ok and "losses from n=16" in text  # a run that lost packets may fall short


def test_floor_claim():
    ns = (8, 24, 32, 36, 38, 40, 46)
    assert m.floor_claim(table([0, 0, 0, 0, 1, 1, 1], [1] * 7, ns=ns), 37.4)[1]
    assert m.floor_claim(table([0, 0, 0, 0, 0, 1, 1], [1] * 7, ns=ns), 37.4)[1]  # 40 = 38 + 2
    assert not m.floor_claim(table([0, 0, 0, 0, 0, 0, 1], [1] * 7, ns=ns), 37.4)[1]  # too late
    assert m.floor_claim(table([0, 0, 0, 0.1, 1, 1, 1], [1] * 7, ns=ns), 37.4)[1]  # 36 = 38 - 2
    assert not m.floor_claim(table([0, 0, 0.1, 1, 1, 1, 1], [1] * 7, ns=ns), 37.4)[1]  # too early
    assert not m.floor_claim(table([0] * 7, [1] * 7, ns=ns), 37.4)[1]  # never
    # On a coarse grid the first point after the limit counts.
    assert m.floor_claim(table([0, 0, 0, 1], [1] * 4, ns=(8, 16, 32, 40)), 37.4)[1]
    assert m.floor_claim(table([0, 0, 0, 1], [1] * 4, ns=(8, 16, 32, 46)), 37.4)[
        1
    ]  # nothing between
    assert not m.floor_claim(table([0, 0, 0, 0, 1], [1] * 5, ns=(8, 16, 32, 40, 46)), 37.4)[1]
    assert math.isfinite(m.floor_limit_senders())


def test_with_reference_merges_by_point():
    df = pd.DataFrame(
        {
            "variant": [ICTCP, TCP],
            "workload": ["w", "w"],
            "senders": [4, 4],
            "goodput_mbps": [400.0, 300.0],
        }
    )
    ref = pd.DataFrame(
        {
            "variant": [TCP, ICTCP],
            "workload": ["w", "w"],
            "senders": [4, 4],
            "goodput_mbps": [600.0, 500.0],
            "timeout_ratio": [0.5, 0.0],
        }
    )
    out = m.with_reference(df, ref)
    assert np.allclose(out.goodput_vs_no_bg, [0.8, 0.5])
    assert list(out.timeout_ratio_no_bg) == [0.0, 0.5]
