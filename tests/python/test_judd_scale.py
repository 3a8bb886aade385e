"""judd-scale-table: the scenarios against the chosen setup, the path's RTT and the slide's Min.
Load column by hand, and the analysis and claims on hand inputs."""

from __future__ import annotations

import dataclasses
import json
import math

import pandas as pd
import pytest

from dcsim.experiments import TESTBEDS, Metrics
from dcsim.experiments.judd import scale_table as st
from dcsim.experiments.judd.testbeds import base_rtt_s, queue_delay_s
from dcsim.experiments.scenarios import port_share_bytes
from dcsim.files import plain
from dcsim.scenario import resolved

TESTBED = TESTBEDS["judd_testbed"]
LINK = TESTBED.link
# The Judd testbed with ns-2's links: 25 µs, no framing.
OTHER_LINK = dataclasses.replace(TESTBED, link={"delay_us": 25.0, "framing_bytes": 0}).link
EXPERIMENT = st.EXPERIMENT


def _common_testbed(sc: dict, senders: int) -> None:
    assert sc["topology"] == {
        "kind": "star",
        "hosts": senders + 1,
        "link": {"rate_gbps": 10.0, "delay_us": 5.0, "framing_bytes": 38},
    }
    assert sc["switch"]["buffer"] == {"kind": "per_port", "limit_bytes": 5_500_000}
    assert [(f["src"], f["dst"]) for f in sc["flows"]] == [(i, 0) for i in range(1, senders + 1)]
    assert sc["measure"]["queue_ports"] == ["s0->h0"]
    t = resolved(sc)["tcp"]
    assert t["rto_min_ms"] == 200.0 and t["init_cwnd_segments"] == 10
    assert t["syn_retries"] == 6 and t["dctcp_min_cwnd_segments"] == 2


def test_base_rtt_and_queue_delay_by_hand():
    # 4 × 5 µs + 2 × 1538 B + 2 × 78 B at 10 Gbps = 20 + 2.4608 + 0.1248 µs.
    assert base_rtt_s(LINK) == pytest.approx(22.5856e-6)
    # 9038 B frames: 20 + 14.4608 + 0.1248 µs.
    assert base_rtt_s(LINK, 9000) == pytest.approx(34.5856e-6)
    # 5 MB in 3333 packets: (5,000,000 + 38 × 3333) × 8 / 1e10 = 4.101 ms.
    assert queue_delay_s(5_000_000, 3333, LINK) == pytest.approx(4.1013e-3, rel=1e-4)
    assert queue_delay_s(0.0, 0.0, LINK) == 0.0
    # Another testbed's links: 25 µs and no framing (4 × 25 µs + 2 × 9000 B + 2 × 40 B).
    other = OTHER_LINK
    assert base_rtt_s(other, 9000) == pytest.approx(100e-6 + 2 * 7.2e-6 + 2 * 0.032e-6)
    assert queue_delay_s(5_000_000, 3333, other) == pytest.approx(4e-3)


def test_slide_table_is_verbatim():
    assert st.SLIDE == {
        100: (9901, 1.6, 0, 0, 0, 3.27),
        200: (9900, 3.11, 0, 0, 0, 6.55),
        300: (9901, 4.38, 3, 0, 0, 9.82),
        400: (9894, 4.42, 702, 4.6, 274, 13.09),
        500: (9895, 4.44, 1110, 8.7, 655, 16.36),
    }


@pytest.mark.parametrize(
    "senders, slide",
    # N × 144,000 bit / 4.4 ms: 14.4 Gbit / 4.4 = 3.2727 ... 72 / 4.4 = 16.3636.
    [(100, 3.27), (200, 6.55), (300, 9.82), (400, 13.09), (500, 16.36)],
)
def test_min_load_matches_the_slides_column(senders, slide):
    by_hand = senders * 2 * 9000 * 8 / 0.0044 / 1e9
    assert st.min_load_gbps(senders) == pytest.approx(by_hand)
    assert round(st.min_load_gbps(senders), 2) == slide == st.SLIDE[senders][5]
    # It crosses the 10 Gbps line rate between 300 and 400 senders, where losses start.
    assert (st.min_load_gbps(senders) > 10.0) == (senders >= 400)


@pytest.mark.parametrize("scale, measure", [("quick", 2.0), ("full", 30.0)])
def test_scale_scenarios_are_the_derived_setup(scale, measure):
    plan = dict(EXPERIMENT.scenarios(EXPERIMENT.params(scale), TESTBED))
    # Largest N first: the longest runs start first.
    assert list(plan) == [(n, ramp) for n in (500, 400, 300, 200, 100) for ramp in (False, True)]
    for (n, ramp), sc in plan.items():
        _common_testbed(sc, n)
        t = sc["tcp"]
        assert t["cc"] == "dctcp" and t["mtu_bytes"] == 9000 and t["ect_on_control"] == "all"
        assert sc["switch"]["aqm"]["k_packets"] == 20
        warm = n * 0.005 + 0.5
        assert [f["start_s"] for f in sc["flows"]] == pytest.approx([i * 0.005 for i in range(n)])
        if ramp:
            assert sc["sim"]["duration_s"] == pytest.approx(warm)
            assert sc["sim"]["warmup_s"] == 0.0
        else:
            assert sc["sim"]["warmup_s"] == pytest.approx(warm)
            assert sc["sim"]["duration_s"] == pytest.approx(warm + measure)
            assert sc["measure"]["flow_sample_us"] == pytest.approx(warm * 1e6)

    # The ramp run is the measured run cut at the window's start, nothing else.
    def strip(sc: dict) -> dict:
        return {k: v for k, v in sc.items() if k not in ("name", "sim", "measure")}

    main, ramp = plan[(400, False)], plan[(400, True)]
    assert strip(main) == strip(ramp) and main["sim"]["seed"] == ramp["sim"]["seed"]
    # The last of 500 flows starts 2.495 s in; its window has 0.5 s ≈ 110 RTTs of 4.4 ms.
    assert st.warmup_s(500) == pytest.approx(3.0)


def test_window_counts_subtract_the_ramp():
    main = [
        {"retransmits": 10, "timeouts": 4, "data_packets_sent": 1000},
        {"retransmits": 3, "timeouts": 1, "data_packets_sent": 500},
    ]
    ramp = [
        {"retransmits": 2, "timeouts": 1, "data_packets_sent": 300},
        {"retransmits": 3, "timeouts": 1, "data_packets_sent": 200},
    ]
    assert st.window_counts(main, ramp) == {
        "retransmits": 8,
        "timeouts": 3,
        "data_packets_sent": 1000,
    }
    with pytest.raises(ValueError, match="retransmits"):
        st.window_counts(ramp, main)


def test_row_by_hand():
    r = st.row(
        100,
        [99e6] * 100,
        mean_bytes=1_800_000.0,
        mean_packets=200.0,
        srtts_s=[1.4e-3, 1.6e-3, None, math.nan],
        window={"retransmits": 50, "timeouts": 5, "data_packets_sent": 10_000},
        whole={"retransmits": 70, "timeouts": 9},
        measure_s=2.0,
        link=LINK,
    )
    assert r["total_mbps"] == pytest.approx(9900.0)
    # 34.5856 µs + (1,800,000 + 38 × 200) × 8 / 1e10 s = 34.5856 µs + 1.44608 ms.
    assert r["rtt_ms"] == pytest.approx(1.4806656)
    assert r["srtt_ms"] == pytest.approx(1.5)
    assert r["retrans"] == 50 and r["retrans_pct"] == pytest.approx(0.5)
    assert r["timeouts"] == 5 and r["timeouts_per_s"] == 2.5
    assert r["min_load_gbps"] == pytest.approx(3.2727, abs=1e-4)
    assert (r["slide_total_mbps"], r["slide_rtt_ms"], r["slide_timeouts"]) == (9901, 1.6, 0)
    assert r["whole_run_retrans"] == 70 and r["whole_run_timeouts"] == 9
    assert r["jain"] == pytest.approx(1.0)
    # 10 Gbps × 8960 / 9038.
    assert r["ceiling_mbps"] == pytest.approx(9913.70, abs=0.01)


def test_rtt_shape_on_the_slide_and_counterexamples():
    slide = {n: v[1] for n, v in st.SLIDE.items()}
    sh = st.rtt_shape(slide)
    assert sh["rise_100_200"] == pytest.approx(1.51)
    assert sh["rise_200_300"] == pytest.approx(1.27)
    assert sh["rise_per_100_300_500"] == pytest.approx(0.03)
    assert sh["linear"] and sh["plateau"]
    # Linear all the way: no plateau.
    sh = st.rtt_shape({100: 1.5, 200: 3.0, 300: 4.5, 400: 6.0, 500: 7.5})
    assert sh["linear"] and not sh["plateau"]
    # Flat from the start: not linear.
    sh = st.rtt_shape({n: 4.4 for n in st.SENDERS})
    assert not sh["linear"]
    # Saturating already at 200: the rises disagree.
    assert not st.rtt_shape({100: 1.5, 200: 3.0, 300: 3.3, 400: 3.3, 500: 3.3})["linear"]


def _rows(queue_packets: dict[int, float], timeouts: dict[int, int]) -> pd.DataFrame:
    """The table for queues of ``queue_packets`` jumbo packets and ``timeouts`` in the window."""
    return pd.DataFrame(
        [
            st.row(
                n,
                [9.914e9 / n] * n,
                mean_bytes=queue_packets[n] * 9000.0,
                mean_packets=queue_packets[n],
                srtts_s=[],
                window={"retransmits": 2 * timeouts[n], "timeouts": timeouts[n], "data_packets_sent": 1},
                whole={"retransmits": 0, "timeouts": 0},
                measure_s=2.0,
                link=LINK,
            )
            for n in st.SENDERS
        ]
    )


def test_table_entry_pairs_ours_with_the_slide():
    t = st.table_entry(_rows({n: n * 2.0 for n in st.SENDERS}, dict.fromkeys(st.SENDERS, 0)), 2.0)
    assert t["title"] and len(t["columns"]) == 13
    assert t["columns"][:3] == ["Senders", "Total (Mbps) ours", "Total (Mbps) slide"]
    assert [r[0] for r in t["rows"]] == [100, 200, 300, 400, 500]
    assert all(len(r) == 13 for r in t["rows"])
    assert t["rows"][3][2::2] == [9894, 4.42, 702, 4.6, 274, 13.09]
    assert t["rows"][0][1] == 9914 and t["rows"][0][-2] == 3.27
    json.dumps(plain(t))


def _scale_holds(queue_packets: dict[int, float], timeouts: dict[int, int], consistent: bool = True) -> list[bool]:
    df = _rows(queue_packets, timeouts)
    m = Metrics(
        values={
            "measure_s": 2.0,
            "rtt_shape": st.rtt_shape({int(r.senders): float(r.rtt_ms) for _, r in df.iterrows()}),
            "ramp_consistent": dict.fromkeys(st.SENDERS, consistent),
        },
        tables={"scale_table": df},
    )
    return [c.judge(m)["holds"] for c in EXPERIMENT.claims]


# Queues of jumbo packets (9038 B on the wire: 7.2304 µs each) that drain in the slide's RTT
# less the 34.6-µs base RTT.
SLIDE_QUEUES = {n: (v[1] * 1e-3 - base_rtt_s(LINK, 9000)) / (9038 * 8 / 1e10) for n, v in st.SLIDE.items()}
SLIDE_TIMEOUTS = {100: 0, 200: 0, 300: 0, 400: 274, 500: 655}


def test_scale_claims_by_hand():
    assert _scale_holds(SLIDE_QUEUES, SLIDE_TIMEOUTS) == [True] * 4
    # A timeout at 300 senders; the ramp run disagreeing with the measured run.
    assert _scale_holds(SLIDE_QUEUES, SLIDE_TIMEOUTS | {300: 1})[0] is False
    assert _scale_holds(SLIDE_QUEUES, SLIDE_TIMEOUTS, consistent=False)[0] is False
    # The queue keeps growing with the senders (1.41 ... 6.9 ms): no plateau, and from 400
    # senders on the RTT is more than 15% above the slide's.
    linear = {n: n * 1.9 for n in st.SENDERS}
    assert _scale_holds(linear, SLIDE_TIMEOUTS) == [True, True, False, False]


def test_row_follows_the_testbeds_link():
    """Our RTT and ceiling take another testbed's delay and framing; the slide's numbers and
    its Min. Load (from the slide's 4.4 ms) stay as they are."""
    other = OTHER_LINK
    args = dict(
        mean_bytes=1_800_000.0,
        mean_packets=200.0,
        srtts_s=[],
        window={"retransmits": 0, "timeouts": 0, "data_packets_sent": 1},
        whole={"retransmits": 0, "timeouts": 0},
        measure_s=2.0,
    )
    judd, ns2 = st.row(100, [99e6] * 100, **args, link=LINK), st.row(100, [99e6] * 100, **args, link=other)
    # 100 + 14.4 + 0.064 µs of base RTT, 1.44 ms of queue without framing.
    assert ns2["rtt_ms"] == pytest.approx(0.114464 + 1.44)
    assert judd["rtt_ms"] == pytest.approx(1.4806656)
    # No framing: the payload's share of a 9000-B packet, 10 Gbps × 8960 / 9000.
    assert ns2["ceiling_mbps"] == pytest.approx(9955.56, abs=0.01)
    for k in ("slide_rtt_ms", "min_load_gbps", "slide_total_mbps"):
        assert ns2[k] == judd[k]


def test_port_buffer_follows_the_testbed():
    """The plot's port: the static limit, in jumbo packets where the testbed counts packets,
    or one busy port's share of a shared memory."""
    assert port_share_bytes(TESTBED.buffer(10.0), 9000) == 5_500_000
    assert port_share_bytes({"kind": "per_port", "limit_packets": 600}, 9000) == 600 * 9000
    assert port_share_bytes({"kind": "preset", "name": "scorpion"}, 9000) == 700_000
