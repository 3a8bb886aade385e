"""The Judd throughput/fairness and Scale experiments (judd-throughput-fairness,
judd-scale-table): scenarios against the chosen setup, the slide's Min. Load column by hand,
and the analysis on hand inputs."""

from __future__ import annotations

import json
import math

import pytest

from dcsim.experiments import common as c
from dcsim.experiments import judd
from dcsim.experiments import judd_scale_table as st
from dcsim.experiments import judd_throughput_fairness as tf
from dcsim.scenario import resolved

MODULES = [tf, st]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.ID)
def test_interface(module):
    assert set(module.SCALES) == {"quick", "full"}
    assert module.__doc__ and "Assumptions:" in module.__doc__ and "Outputs:" in module.__doc__
    assert module.DESCRIPTION.strip() and "\n" not in module.DESCRIPTION
    with pytest.raises(ValueError, match="scale"):
        module.run("huge", ".", 1)
    with pytest.raises(ValueError, match="scale"):
        module.scenarios("huge")


# --- judd-throughput-fairness ----------------------------------------------------------------


def _common_testbed(sc: dict, senders: int, extra_hosts: int = 0) -> None:
    assert sc["topology"] == {
        "kind": "star",
        "hosts": senders + 1 + extra_hosts,
        "link": {"rate_gbps": 10.0, "delay_us": 5.0, "framing_bytes": 38},
    }
    assert sc["switch"]["buffer"] == {"kind": "per_port", "limit_bytes": 5_500_000}
    assert [(f["src"], f["dst"]) for f in sc["flows"]] == [(i, 0) for i in range(1, senders + 1)]
    assert sc["measure"]["queue_ports"] == ["s0->h0"]
    t = resolved(sc)["tcp"]
    assert t["rto_min_ms"] == 200.0 and t["init_cwnd_segments"] == 10
    assert t["syn_retries"] == 6 and t["dctcp_min_cwnd_segments"] == 2


def test_throughput_fairness_scenario_is_the_slides_19_sender_setup():
    for scale, (dur, warm) in (("quick", (5.0, 1.0)), ("full", (32.0, 2.0))):
        plan = dict(tf.scenarios(scale))
        assert list(plan) == ["TCP", "DCTCP+"]
        for proto, sc in plan.items():
            assert sc == tf.scenario(proto, scale)
            _common_testbed(sc, 19, extra_hosts=1)
            assert (sc["sim"]["duration_s"], sc["sim"]["warmup_s"]) == (dur, warm)
            # The latency probe: host 20 answers 64-B pings from the receiver, one per ms
            # on average over the measurement window.
            (probe,) = sc["queries"]
            assert (probe["client"], probe["servers"]) == (0, [20])
            assert probe["request_bytes"] == probe["response_bytes"] == 64
            assert probe["arrival"] == {"kind": "poisson", "mean_interval_ms": 1.0}
            assert (probe["start_s"], probe["stop_s"]) == (warm, dur)
            assert probe["rounds"] == round((dur - warm) * 1000)
            assert "mtu_bytes" not in sc["tcp"]  # 1500-B packets, MSS 1460
            assert sc["measure"]["flow_sample_us"] == 100_000.0
        tcp, dp = plan["TCP"], plan["DCTCP+"]
        assert tcp["tcp"]["cc"] == "cubic" and tcp["switch"]["aqm"] == {"kind": "drop_tail"}
        assert dp["tcp"]["cc"] == "dctcp"
        assert dp["switch"]["aqm"] == {
            "kind": "threshold",
            "k_packets": 20,
            "count_in_service": True,
            "nonect": "drop",
        }
        assert dp["tcp"]["ect_on_control"] == "all"
    plain = tf.scenario("DCTCP", "full")
    assert plain["tcp"]["ect_on_control"] == "rfc3168" and "ect_on_syn" not in plain["tcp"]
    with pytest.raises(ValueError, match="proto"):
        tf.scenario("Reno", "quick")
    # The shared model's constants are not redefined here.
    assert judd.LINUX_TCP["profile"] == "linux_current" and "cc" not in judd.LINUX_TCP


def test_base_rtt_and_queue_delay_by_hand():
    # 4 × 5 µs + 2 × 1538 B + 2 × 78 B at 10 Gbps = 20 + 2.4608 + 0.1248 µs.
    assert tf.base_rtt_s() == pytest.approx(22.5856e-6)
    # 9038 B frames: 20 + 14.4608 + 0.1248 µs.
    assert tf.base_rtt_s(9000) == pytest.approx(34.5856e-6)
    # 5 MB in 3333 packets: (5,000,000 + 38 × 3333) × 8 / 1e10 = 4.101 ms.
    assert tf.queue_delay_s(5_000_000, 3333) == pytest.approx(4.1013e-3, rel=1e-4)
    assert tf.queue_delay_s(0.0, 0.0) == 0.0


def test_fairness_by_hand():
    f = tf.fairness([500e6, 500e6, 500e6, 500e6])
    assert f["jain"] == pytest.approx(1.0) and f["min_over_max"] == 1.0
    assert f["total_gbps"] == pytest.approx(2.0)
    # (600 + 300)² / (2 (600² + 300²)) = 0.9; 300 / 600.
    f = tf.fairness([600e6, 300e6])
    assert f["jain"] == pytest.approx(0.9) and f["min_over_max"] == pytest.approx(0.5)
    assert (f["min_mbps"], f["max_mbps"]) == (300.0, 600.0)


# --- judd-scale-table ------------------------------------------------------------------------


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


def test_scale_scenarios_are_the_derived_setup():
    for scale, measure in (("quick", 2.0), ("full", 30.0)):
        plan = st.scenarios(scale)
        assert [(n, ramp) for n, ramp, _ in plan] == [
            (n, ramp) for n in (100, 200, 300, 400, 500) for ramp in (False, True)
        ]
        for n, ramp, sc in plan:
            _common_testbed(sc, n)
            t = sc["tcp"]
            assert t["cc"] == "dctcp" and t["mtu_bytes"] == 9000 and t["ect_on_control"] == "all"
            assert sc["switch"]["aqm"]["k_packets"] == 20
            warm = n * 0.005 + 0.5
            assert [f["start_s"] for f in sc["flows"]] == pytest.approx(
                [i * 0.005 for i in range(n)]
            )
            if ramp:
                assert sc["sim"]["duration_s"] == pytest.approx(warm)
                assert sc["sim"]["warmup_s"] == 0.0
            else:
                assert sc["sim"]["warmup_s"] == pytest.approx(warm)
                assert sc["sim"]["duration_s"] == pytest.approx(warm + measure)
                assert sc["measure"]["flow_sample_us"] == pytest.approx(warm * 1e6)
        # The ramp run is the measured run cut at the window's start, nothing else.
        main, ramp = (sc for n, _, sc in plan if n == 400)
        def strip(sc: dict) -> dict:
            return {k: v for k, v in sc.items() if k not in ("name", "sim", "measure")}

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


def test_table_entry_pairs_ours_with_the_slide():
    rows = [
        st.row(
            n,
            [9.914e9 / n] * n,
            mean_bytes=n * 2 * 9000.0,
            mean_packets=n * 2.0,
            srtts_s=[],
            window={"retransmits": 0, "timeouts": 0, "data_packets_sent": 1},
            whole={"retransmits": 0, "timeouts": 0},
            measure_s=2.0,
        )
        for n in st.SENDERS
    ]
    import pandas as pd

    t = st.table_entry(pd.DataFrame(rows), 2.0)
    assert t["title"] and len(t["columns"]) == 13
    assert t["columns"][:3] == ["Senders", "Total (Mbps) ours", "Total (Mbps) slide"]
    assert [r[0] for r in t["rows"]] == [100, 200, 300, 400, 500]
    assert all(len(r) == 13 for r in t["rows"])
    assert t["rows"][3][2::2] == [9894, 4.42, 702, 4.6, 274, 13.09]
    assert t["rows"][0][1] == 9914 and t["rows"][0][-2] == 3.27
    json.dumps(c.jsonable(t))
