"""judd-latency-table and judd-throughput-fairness: the 19-sender runs they share and the probe
they carry, the latency statistics and the fairness summary by hand, and the claims. Both run
end to end in the README's `dcsim reproduce` test (test_readme.py)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import dcsim
from dcsim import Results
from dcsim.experiments import TESTBEDS, Metrics, Runs
from dcsim.experiments.judd import fairness
from dcsim.experiments.judd import latency_table as lt
from dcsim.experiments.judd import throughput_fairness as tf

TESTBED = TESTBEDS["judd_testbed"]


def test_both_measure_the_same_runs():
    # One builder and one set of scales, so the two share their simulations through the cache.
    assert lt.EXPERIMENT.scenarios is tf.EXPERIMENT.scenarios is fairness.scenarios
    assert lt.EXPERIMENT.scales is tf.EXPERIMENT.scales is fairness.SCALES
    assert lt.PROTOCOLS == ("TCP", "DCTCP+")


@pytest.mark.parametrize("scale", ["quick", "full"])
def test_the_19_sender_runs_carry_the_latency_probe(scale):
    p = fairness.SCALES[scale]
    plan = fairness.scenarios(p, TESTBED)
    assert list(plan) == ["TCP", "DCTCP+"]
    for proto, sc in plan.items():
        assert [(f["src"], f["dst"]) for f in sc["flows"]] == [(h, 0) for h in range(1, 20)]
        assert sc["topology"]["hosts"] == 21 and sc["topology"]["link"]["rate_gbps"] == 10.0
        assert (sc["sim"]["duration_s"], sc["sim"]["warmup_s"]) == (p["duration_s"], p["warmup_s"])
        (q,) = sc["queries"]
        assert (q["client"], q["servers"], q["request_bytes"], q["response_bytes"]) == (0, [20], 64, 64)
        assert q["arrival"] == {"kind": "poisson", "mean_interval_ms": 1.0}
        assert (q["start_s"], q["stop_s"]) == (p["warmup_s"], p["duration_s"])
        assert q["rounds"] == math.ceil((p["duration_s"] - p["warmup_s"]) * 1e3)
        if proto == "TCP":
            assert sc["tcp"]["cc"] == "cubic" and sc["switch"]["aqm"] == {"kind": "drop_tail"}
        else:
            assert sc["tcp"]["cc"] == "dctcp" and sc["tcp"]["ect_on_control"] == "all"
            assert sc["switch"]["aqm"]["k_packets"] == 20 and sc["switch"]["aqm"]["nonect"] == "drop"


# --- judd-latency-table --------------------------------------------------------------------


def test_the_slides_table_is_verbatim():
    assert lt.SLIDE_MS["TCP"] == {"Mean": 4.01, "Median": 4.06, "Maximum": 4.20, "Minimum": 3.32, "σ": 0.167}
    assert lt.SLIDE_MS["DCTCP+"]["Mean"] == 0.0422 and lt.SLIDE_MS["DCTCP+"]["σ"] == 0.0106


def test_statistics_by_hand():
    s = lt.statistics(np.array([1.0, 2.0, 3.0, 6.0]))
    # mean 3; median (2 + 3) / 2; σ = sqrt((4 + 1 + 0 + 9) / 4) = sqrt(3.5)
    assert s == {"Mean": 3.0, "Median": 2.5, "Maximum": 6.0, "Minimum": 1.0, "σ": pytest.approx(math.sqrt(3.5))}
    assert all(math.isnan(v) for v in lt.statistics(np.array([])).values())


def test_table_rows_put_the_slide_beside_ours():
    ours = {p: lt.statistics(np.array([v])) for p, v in (("TCP", 4.5), ("DCTCP+", 0.05))}
    rows = lt.table_rows(ours)
    assert [r[0] for r in rows] == list(lt.STATISTICS)
    assert rows[0] == ["Mean", 4.01, 4.5, 0.0422, 0.05]
    assert rows[4] == ["σ", 0.167, 0.0, 0.0106, 0.0]


def test_probes_leave_out_unfinished_and_mark_lost_ones():
    res = Results(
        {
            "queries": {
                "qct_s": np.array([0.004, np.nan, 0.2045, 0.0041]),
                "issued_s": np.array([1.0, 1.001, 1.002, 1.003]),
                "timeouts": np.array([0, 0, 1, 0]),
            }
        }
    )
    p = lt.probes(res, "TCP")
    assert p.latency_ms.tolist() == pytest.approx([4.0, 204.5, 4.1])
    assert p.lost.tolist() == [False, True, False]
    assert (p.protocol == "TCP").all()


def _latency_holds(tcp_ms: list[float], dctcp_ms: list[float]) -> list[bool]:
    stats = {"TCP": lt.statistics(np.array(tcp_ms)), "DCTCP+": lt.statistics(np.array(dctcp_ms))}
    m = Metrics(
        values={
            "statistics_ms": stats,
            "lost_probes": {"TCP": (0, len(tcp_ms)), "DCTCP+": (0, len(dctcp_ms))},
            "ratio": stats["TCP"]["Mean"] / stats["DCTCP+"]["Mean"],
        }
    )
    return [c.judge(m)["holds"] for c in lt.EXPERIMENT.claims]


def test_latency_claims_by_hand():
    assert _latency_holds([4.0, 4.2, 3.5], [0.04, 0.05, 0.03]) == [True] * 4
    # Only 13× apart, DCTCP+'s mean 7× the slide's.
    assert _latency_holds([4.0, 4.2, 3.5], [0.2, 0.3, 0.4]) == [False, True, False, True]
    # TCP's mean 3 ms: 25.2% below the slide's.
    assert _latency_holds([2.9, 3.0, 3.1], [0.04, 0.05, 0.03]) == [True, False, True, True]
    # DCTCP+'s mean 0.1 ms: 2.4× the slide's.
    assert _latency_holds([4.0, 4.2, 3.5], [0.1, 0.1, 0.1]) == [True, True, False, True]
    # One TCP probe faster than DCTCP+'s slowest.
    assert _latency_holds([4.5, 4.5, 4.5, 4.5, 0.06], [0.04, 0.05, 0.03, 0.08]) == [True, True, True, False]


# --- judd-throughput-fairness --------------------------------------------------------------


def test_fairness_by_hand():
    f = tf.fairness([1e9, 1e9, 2e9])
    # (4)² / (3 · 6) = 0.889
    assert f == {"total_gbps": 4.0, "jain": pytest.approx(16 / 18), "min_mbps": 1000.0, "max_mbps": 2000.0, "min_over_max": 0.5}
    assert math.isnan(tf.fairness([])["jain"]) and math.isnan(tf.fairness([])["min_over_max"])


def _row(total_gbps: float, jain: float, mean_kb: float, mean_packets: float) -> dict:
    return {
        "total_gbps": total_gbps,
        "ceiling_gbps": 9.493,
        "jain": jain,
        "min_over_max": 0.9,
        "min_mbps": 450.0,
        "max_mbps": 520.0,
        "queue_mean_kb": mean_kb,
        "queue_mean_packets": mean_packets,
        "queue_delay_ms": mean_kb * 8 / 1e7,
        "queue_max_kb": 5500.0,
        "queue_median_packets": int(mean_packets),
        "queue_p99_packets": int(2 * mean_packets),
    }


def _fairness_holds(tcp: dict, dctcp: dict, port_bytes: float = 5_500_000) -> list[bool]:
    m = Metrics(values={"port_buffer_bytes": port_bytes, "summary": {"TCP": tcp, "DCTCP+": dctcp}})
    return [c.judge(m)["holds"] for c in tf.EXPERIMENT.claims]


def test_throughput_fairness_claims_by_hand():
    tcp, dctcp = _row(9.49, 0.94, 5070.0, 3389.0), _row(9.49, 0.9999, 36.2, 24.2)
    assert _fairness_holds(tcp, dctcp) == [True] * 4
    assert _fairness_holds(tcp, _row(9.2, 0.98, 36.2, 24.2)) == [False, False, True, True]
    # TCP's queue at 70% of the 5.5 MB port; DCTCP+'s at 45 packets, beyond 2K.
    assert _fairness_holds(_row(9.49, 0.94, 3850.0, 2600.0), _row(9.49, 0.9999, 67.5, 45.0)) == [True, True, False, False]
    # The same queue against a 7 MB port (another testbed's): 72%, not about the buffer.
    assert _fairness_holds(tcp, dctcp, port_bytes=7_000_000) == [True, True, False, True]


def test_throughput_fairness_analysis_follows_the_testbed():
    """Short runs on a testbed with 25-µs links, no framing and a 4000-packet port: the
    ceiling, the queueing delay and the RTT from the queue take its path, "the buffer" is its
    port (6 MB), and the claim and the plot say so."""
    tb = dataclasses.replace(
        TESTBED, link={"delay_us": 25.0, "framing_bytes": 0}, buffers={10.0: {"kind": "per_port", "limit_packets": 4000}}
    )
    p = {"duration_s": 0.03, "warmup_s": 0.01}
    plan = dict(tf.EXPERIMENT.scenarios(p, tb))
    m = tf.EXPERIMENT.analyze(Runs("test", p, tb, plan, {key: dcsim.run(sc) for key, sc in plan.items()}))
    assert m["port_buffer_bytes"] == 6_000_000
    for st in m["summary"].values():
        assert st["ceiling_gbps"] == pytest.approx(10 * 1460 / 1500)
        # No framing: the delay is the queue's bytes alone; the base RTT 4 × 25 + 2.4 + 0.064 µs.
        assert st["queue_delay_ms"] == pytest.approx(st["queue_mean_kb"] * 8e3 / 1e10 * 1e3)
        assert st["rtt_from_queue_ms"] == pytest.approx(st["queue_delay_ms"] + 0.102464)
    assert tf.EXPERIMENT.claims[2].judge(m)["claim"].endswith("of the 6.0 MB port")
    tf.EXPERIMENT.plots["throughput_fairness"](m)
