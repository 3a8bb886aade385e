"""judd-rcvbuf-off ("Receive Buffer Tuning Off: TCP"): the scenarios against the stated setup,
the fixed buffer and the B / RTT rate by hand, and the analysis and claims on hand inputs."""

from __future__ import annotations

import copy
import dataclasses
import math

import pandas as pd
import pytest

import dcsim
from dcsim.experiments import TESTBEDS, Metrics, Runs
from dcsim.experiments.judd import rcvbuf_off as m
from dcsim.experiments.judd.testbeds import fanin
from dcsim.experiments.queries import many_to_one_duration_s
from dcsim.experiments.scenarios import DROP_TAIL
from dcsim.scenario import resolved

TESTBED = TESTBEDS["judd_testbed"]
PATH = m.path_of(TESTBED)
EXPERIMENT = m.EXPERIMENT


def test_hosts_refuse_an_unknown_configuration():
    with pytest.raises(ValueError, match="config"):
        m.hosts("tuning maybe", TESTBED)


# --- the path and the fixed buffer, by hand ----------------------------------------------


def test_path_numbers_by_hand():
    # 4 × 5 µs + 2 × 1538 B + 2 × 78 B at 10 Gbps = 20 + 2.4608 + 0.1248 µs.
    assert PATH == {"delay_us": 5.0, "framing_bytes": 38, "tx_jitter_us": 1.0}
    assert m.base_rtt_s(PATH) == pytest.approx(22.5856e-6, rel=1e-9)
    # 10 Gbps × 22.5856 µs / (1538 × 8 bit) = 18.356 packets.
    assert m.bdp_packets(PATH) == pytest.approx(18.3563, abs=1e-3)
    # ⌈18.36 / 19⌉ = 1, raised to the 2-segment delayed-ACK unit.
    assert m.fixed_window_segments(19, 18.36) == 2
    assert m.fixed_window_segments(5, 18.36) == 4  # ⌈3.67⌉
    assert m.fixed_window_segments(1, 18.36) == 19
    assert m.fixed_window_segments(100, 18.36) == 2
    with pytest.raises(ValueError):
        m.fixed_window_segments(0, 18.36)
    assert m.MSS == 1460 and m.fixed_buffer_bytes(PATH) == 2920
    # 19 × 2 − 18.356 packets stand in the queue.
    assert m.predicted_queue_packets(19, 2, 18.3563) == pytest.approx(19.6437, abs=1e-3)
    assert m.predicted_queue_packets(4, 2, 18.36) == 0.0
    # B / RTT: 2920 B over 22.5856 + 1.2304 + 1.0 µs.
    assert m.window_rtt_s(PATH) == pytest.approx(24.816e-6, rel=1e-9)
    assert m.window_limited_bps(2920, 24.816e-6) == pytest.approx(0.94133e9, rel=1e-4)
    ceil = m.ceiling_bps(PATH)
    assert ceil == pytest.approx(10e9 * 1460 / 1538)
    assert m.predicted_total_bps(4, 2920, 24.816e-6, ceil) == pytest.approx(4 * 0.94133e9, rel=1e-4)
    assert m.predicted_total_bps(19, 2920, 24.816e-6, ceil) == ceil
    # 100 × 65536 B at 9.4928 Gbps.
    assert m.ideal_incast_ms(PATH) == pytest.approx(5.52298, abs=1e-4)


# --- scenarios against the setup ---------------------------------------------------------


def _judd_path(sc: dict, hosts: int) -> None:
    assert sc["topology"] == {
        "kind": "star",
        "hosts": hosts,
        "link": {"rate_gbps": 10.0, "delay_us": 5.0, "framing_bytes": 38},
    }
    assert sc["switch"]["buffer"] == {"kind": "per_port", "limit_bytes": 5_500_000}
    assert sc["switch"]["aqm"] == {"kind": "drop_tail"}
    t = resolved(sc)["tcp"]
    assert t["cc"] == "cubic" and t["rto_min_ms"] == 200.0 and t["init_cwnd_segments"] == 10
    assert t["delayed_ack_segments"] == 2


def _tuning(sc: dict, config: str) -> None:
    t = resolved(sc)["tcp"]
    if config == "tuning on":
        assert t["rcv_autotune"] is True
        assert "rcv_buffer_bytes" not in sc["tcp"]  # Linux's default: 43 KB growing to 3 MiB
    else:
        assert t["rcv_autotune"] is False and t["rcv_buffer_bytes"] == 2920


def _plan(scale: str) -> dict:
    return dict(EXPERIMENT.scenarios(EXPERIMENT.params(scale), TESTBED))


def test_plan_covers_both_configurations_and_the_sweep():
    plan = _plan("quick")
    kinds = list(plan)
    assert kinds[:4] == [
        ("long", "tuning on", 19),
        ("long", "tuning off", 19),
        ("startup", "tuning on", 19),
        ("startup", "tuning off", 19),
    ]
    assert [n for w, _, n in kinds if w == "sweep"] == list(m.SWEEP_SENDERS)
    assert all(cf == "tuning off" for w, cf, _ in kinds if w == "sweep")
    assert [(w, cf) for w, cf, _ in kinds[-2:]] == [("incast", "tuning on"), ("incast", "tuning off")]
    assert len({sc["name"] for sc in plan.values()}) == len(plan)


@pytest.mark.parametrize("scale", ["quick", "full"])
def test_long_flows_are_the_19_sender_fan_in(scale):
    p = EXPERIMENT.params(scale)
    for cf in m.CONFIGS:
        sc = m.long_scenario(cf, p, TESTBED)
        _judd_path(sc, 20)
        _tuning(sc, cf)
        assert [(f["src"], f["dst"]) for f in sc["flows"]] == [(i, 0) for i in range(1, 20)]
        assert all("bytes" not in f for f in sc["flows"])  # long-lived
        assert (sc["sim"]["duration_s"], sc["sim"]["warmup_s"]) == (p["duration_s"], p["warmup_s"])
        assert sc["measure"]["queue_ports"] == ["s0->h0"]
        assert sc["measure"]["queue_sample_us"] == 1000.0


def test_startup_run_is_the_same_run_measured_from_zero():
    p = EXPERIMENT.params("quick")
    for cf in m.CONFIGS:
        long = m.long_scenario(cf, p, TESTBED)
        start = m.long_scenario(cf, p, TESTBED, kind="startup")
        assert start["sim"]["warmup_s"] == 0.0
        assert start["sim"]["duration_s"] == long["sim"]["warmup_s"]
        assert start["sim"]["seed"] == long["sim"]["seed"]
        a, b = copy.deepcopy(long), copy.deepcopy(start)
        for x in (a, b):
            del x["name"], x["sim"]["duration_s"], x["sim"]["warmup_s"]
            del x["measure"]["flow_sample_us"]
        assert a == b


def test_sweep_uses_the_same_buffer_with_fewer_senders():
    for (w, _cf, n), sc in _plan("quick").items():
        if w != "sweep":
            continue
        _judd_path(sc, n + 1)
        _tuning(sc, "tuning off")
        assert len(sc["flows"]) == n


@pytest.mark.parametrize("scale", ["quick", "full"])
def test_incast_is_100_by_64_kb_barrier_queries(scale):
    p = EXPERIMENT.params(scale)
    for cf in m.CONFIGS:
        sc = m.incast_scenario(cf, p, TESTBED)
        _judd_path(sc, 101)
        _tuning(sc, cf)
        assert sc["flows"] == []
        (q,) = sc["queries"]
        assert q["client"] == 0 and q["servers"] == list(range(1, 101))
        assert q["response_bytes"] == 65536 and q["rounds"] == p["rounds"]
        assert q["arrival"] == {"kind": "barrier"} and q["persistent"] is True
        assert sc["sim"]["stop_when_queries_done"] is True
        # The horizon allows for the hosts' RTO_min of 200 ms.
        assert sc["sim"]["duration_s"] == many_to_one_duration_s(p["rounds"], 200.0, 100 * 65536, 10.0)


# --- analysis on hand inputs -------------------------------------------------------------


def test_aggregate_series_and_thinning():
    # Two flows, 1-ms samples; flow 0 delivers 1.25 MB per ms (10 Gbps) until 10 ms, then
    # nothing; flow 1 a steady 0.125 MB per ms (1 Gbps).
    rows = []
    for k in range(0, 21):
        t = k * 1e-3
        rows.append({"flow": 0, "t_s": t, "delivered_bytes": 1_250_000 * min(k, 10), "rcv_buffer_bytes": 1000 * k})
        rows.append({"flow": 1, "t_s": t, "delivered_bytes": 125_000 * k, "rcv_buffer_bytes": 2920})
    fs = pd.DataFrame(rows)
    s = m.aggregate_series(fs, bin_s=0.01)
    assert s.t_s.tolist() == pytest.approx([0.01, 0.02])
    assert s.gbps.tolist() == pytest.approx([11.0, 1.0])
    # Total buffers 2920 + 1000 k: first ≥ 10,000 B at k = 8.
    assert m.first_time_at_least(fs, 10_000) == pytest.approx(0.008)
    assert math.isnan(m.first_time_at_least(fs, 1e9))
    # 2-ms samples to 200 ms: all up to 50 ms (26), then the 10-ms grid (60 … 200 ms: 15).
    two_ms = pd.DataFrame({"flow": 0, "t_s": [k * 0.002 for k in range(101)], "rcv_buffer_bytes": 2920})
    thin = m.thin_buffers(two_ms)
    assert len(thin) == 26 + 15
    assert thin.t_s.iloc[26:].tolist() == pytest.approx([k / 100 for k in range(6, 21)])


def _summary(config, **kw):
    base = {
        "config": config,
        "senders": 19,
        "total_gbps": 9.49,
        "per_flow_gbps": 0.4996,
        "jain": 1.0,
        "min_flow_gbps": 0.49,
        "max_flow_gbps": 0.51,
        "queue_mean_packets": 19.0,
        "queue_mean_kb": 28.5,
        "queue_p99_packets": 20,
        "queue_max_packets": 25,
        "queue_max_kb": 37.5,
        "queue_delay_ms": 0.023,
        "queue_p99_delay_ms": 0.025,
        "srtt_mean_ms": 0.047,
        "rcv_buffer_median_kb": 2.92,
        "rcv_buffer_min_kb": 2.92,
        "rcv_buffer_max_kb": 2.92,
        "rcv_buffer_sum_kb": 55.5,
        "drops": 0,
        "retransmits": 0,
        "timeouts": 0,
    }
    if config == "tuning on":
        base.update(
            total_gbps=9.5,
            jain=0.9,
            queue_mean_packets=3300.0,
            queue_mean_kb=4950.0,
            queue_p99_packets=3664,
            queue_delay_ms=4.06,
            srtt_mean_ms=4.1,
            rcv_buffer_median_kb=6291.0,
            rcv_buffer_min_kb=2400.0,
            rcv_buffer_max_kb=6291.0,
            rcv_buffer_sum_kb=95_000.0,
            drops=7000,
            retransmits=7000,
            timeouts=26,
        )
    return base | kw


def _sweep(per_flow=None):
    pred = m.window_limited_bps(2920, m.window_rtt_s(PATH)) / 1e9
    ceil = m.ceiling_bps(PATH) / 1e9
    rows = []
    for n in (1, 2, 4, 8, 10, 12, 16):
        pf = per_flow(n) if per_flow else min(pred, ceil / n)
        rows.append({"senders": n, "per_flow_gbps": pf, "total_gbps": n * pf, "predicted_total_gbps": min(n * pred, ceil)})
    return rows


def _incast(config, **kw):
    base = {
        "issued": 300,
        "completed": 300,
        "p99_ms": 5.55,
        "timeout_fraction": 0.0,
        "timeouts": 0,
        "drops": 0,
        "max_queue_packets": 272,
        "max_queue_kb": 287.0,
    }
    if config == "tuning on":
        base.update(p99_ms=284.7, timeout_fraction=0.09, timeouts=100, drops=700, max_queue_packets=3737, max_queue_kb=5500.0)
    return base | kw


def _metrics(on=None, off=None, sweep=None, inc_on=None, inc_off=None, t_fill=0.0022, port_bytes=5_500_000) -> Metrics:
    """The metrics the claims read, as ``analyze`` gives them: the sweep ends with the
    19-sender long run (which the hand check leaves out)."""
    off = off or _summary("tuning off")
    buf, bdp, rtt = 2920, m.bdp_packets(PATH), m.window_rtt_s(PATH)
    long_off = {"senders": 19, "per_flow_gbps": off["per_flow_gbps"], "total_gbps": off["total_gbps"], "predicted_total_gbps": 9.49}
    return Metrics(
        values={
            "path": PATH,
            "port_buffer_bytes": port_bytes,
            "bdp_packets": bdp,
            "fixed_buffer_bytes": buf,
            "predicted_queue_packets": m.predicted_queue_packets(19, buf / m.MSS, bdp),
            "window_rtt_us": rtt * 1e6,
            "predicted_per_flow_gbps": m.window_limited_bps(buf, rtt) / 1e9,
            "ceiling_gbps": m.ceiling_bps(PATH) / 1e9,
            "buffers_fill_port_at_s": t_fill,
            "long": {"tuning on": on or _summary("tuning on"), "tuning off": off},
            "sweep": (_sweep() if sweep is None else sweep) + [long_off],
            "incast": {"tuning on": inc_on or _incast("tuning on"), "tuning off": inc_off or _incast("tuning off")},
            "incast_ideal_ms": m.ideal_incast_ms(PATH),
        }
    )


def _claims(**kw) -> list[dict]:
    mm = _metrics(**kw)
    return [c.judge(mm) for c in EXPERIMENT.claims]


def test_claims_hold_on_the_expected_picture():
    cl = _claims()
    assert len(cl) == 6
    assert all(x["holds"] for x in cl), [x["claim"] for x in cl if not x["holds"]]
    assert "19.6 packets" in cl[2]["claim"] and "0.941 Gbps" in cl[3]["claim"]
    assert "(291 KB)" in cl[0]["claim"]
    assert cl[5]["paper"] == "300 queries per configuration" and cl[5]["measured"] == "600/600 completed"
    # The hand check lists the sweep's own runs only.
    assert "N=19" not in cl[3]["measured"] and cl[3]["measured"].startswith("N=1: 0.941 Gbps/flow")


@pytest.mark.parametrize(
    ("index", "kw"),
    [
        # Tuning on: buffers no bigger than the fair share of BDP + port (291 KB).
        (0, {"on": _summary("tuning on", rcv_buffer_median_kb=300.0)}),
        (0, {"t_fill": float("nan")}),
        # Tuning on: the queue well below the port, or no timeouts.
        (1, {"on": _summary("tuning on", queue_mean_kb=3000.0)}),
        (1, {"on": _summary("tuning on", timeouts=0)}),
        # Tuning off: the link not full; a queue far from N·w − BDP; drops.
        (2, {"off": _summary("tuning off", total_gbps=9.0)}),
        (2, {"off": _summary("tuning off", queue_mean_packets=40.0)}),
        (2, {"off": _summary("tuning off", drops=3)}),
        # Hand check: flows 10% slower than B / RTT, or the pipe never fills.
        (3, {"sweep": _sweep(lambda n: 0.85)}),
        (3, {"sweep": [r for r in _sweep() if r["senders"] < 10]}),
        # Incast: tuning on without timeouts; tuning off with one, or a slow tail.
        (4, {"inc_on": _incast("tuning on", timeouts=0)}),
        (4, {"inc_off": _incast("tuning off", timeouts=1)}),
        (4, {"inc_off": _incast("tuning off", p99_ms=7.0)}),
        (5, {"inc_off": _incast("tuning off", completed=299)}),
    ],
)
def test_each_claim_can_fail(index, kw):
    cl = _claims(**kw)
    assert not cl[index]["holds"]
    assert all(x["holds"] for i, x in enumerate(cl) if i != index)


# --- a tiny real run: the mechanism the experiment rests on ------------------------------


def test_engine_caps_a_fixed_buffer_flow_at_b_over_rtt_and_tuning_grows_buffers():
    def sc(config, senders):
        return fanin(
            f"t-{config}-{senders}",
            TESTBED,
            senders=senders,
            cc="cubic",
            aqm=dict(DROP_TAIL),
            duration_s=0.02,
            warmup_s=0.005,
            tcp=m.hosts(config, TESTBED),
        )

    off, on = dcsim.run_many([sc("tuning off", 2), sc("tuning on", 2)], jobs=1)
    row = m.sweep_row(2, off, 2920, PATH)
    assert row["per_flow_gbps"] == pytest.approx(row["predicted_per_flow_gbps"], rel=0.05)
    assert all(f["rcv_buffer_bytes"] == 2920 for f in off.rows("flows"))
    # Two flows at ~5 Gbps read far more than 43 KB per RTT: their buffers grow.
    assert all(f["rcv_buffer_bytes"] > 200_000 for f in on.rows("flows"))
    s = m.summarize_long(on, "tuning on", PATH)
    assert s["senders"] == 2 and s["total_gbps"] > 9.0


# --- on another testbed: the path and the port follow it ---------------------------------

# The Judd experiment on the DCTCP testbed's network: 25-µs links and a Scorpion's shared memory.
OTHER = dataclasses.replace(TESTBED, link={"delay_us": 25.0, "framing_bytes": 38}, buffers={10.0: {"kind": "preset", "name": "scorpion"}})


def test_fixed_buffer_follows_the_testbeds_path():
    # 4 × 25 µs + 2.5856 µs = 102.5856 µs: BDP = 83.38 packets, ⌈83.38 / 19⌉ = 5 segments.
    path = m.path_of(OTHER)
    assert path == {"delay_us": 25.0, "framing_bytes": 38, "tx_jitter_us": 1.0}
    assert m.base_rtt_s(path) == pytest.approx(102.5856e-6, rel=1e-9)
    assert m.bdp_packets(path) == pytest.approx(83.3758, abs=1e-3)
    assert m.fixed_buffer_bytes(path) == 5 * 1460
    # Without framing: (20 + 2.4 + 0.064) µs holds 18.72 packets of 1500 B: still 2 segments.
    bare = m.path_of(dataclasses.replace(TESTBED, link={"delay_us": 5.0, "framing_bytes": 0}))
    assert m.bdp_packets(bare) == pytest.approx(18.72, abs=1e-3) and m.fixed_buffer_bytes(bare) == 2920
    assert m.ceiling_bps(bare) == pytest.approx(10e9 * 1460 / 1500)
    # Every tuning-off run of the plan gets the path's buffer: long, startup, sweep and incast.
    plan = EXPERIMENT.scenarios(EXPERIMENT.params("quick"), OTHER)
    off = [sc for (_, cf, _), sc in plan.items() if cf == "tuning off"]
    assert len(off) == 2 + len(m.SWEEP_SENDERS) + 1
    assert {resolved(sc)["tcp"]["rcv_buffer_bytes"] for sc in off} == {7300}
    assert {sc["topology"]["link"]["delay_us"] for sc in plan.values()} == {25.0}


def test_claims_read_the_port_from_the_metrics():
    # A 0.7 MB port: the same 0.60 MB mean queue fills 85% of it, not 11% of 5.5 MB.
    on = _summary("tuning on", queue_mean_kb=600.0, queue_mean_packets=400.0)
    small, big = _claims(on=on, port_bytes=700_000), _claims(on=on)
    assert small[1]["holds"] and "0.7 MB buffer" in small[1]["claim"] and "(86%;" in small[1]["measured"]
    assert not big[1]["holds"] and "5.5 MB buffer" in big[1]["claim"]
    # The fair share of BDP + port: (28.2 KB + 0.7 MB) / 19 = 38 KB.
    assert "(38 KB)" in small[0]["claim"] and "(0.73 MB)" in small[0]["measured"]


def test_analysis_follows_the_testbed():
    """A short run of every scenario on the other testbed, analysed and drawn: the path, the
    buffer, the ceiling and the port are the testbed's (the port: a Scorpion's 4 MB shared
    with α = 0.212 gives one busy port α / (1 + α) of it, 700 KB)."""
    p = {"duration_s": 0.02, "warmup_s": 0.005, "sweep_duration_s": 0.004, "sweep_warmup_s": 0.001, "rounds": 2}
    plan = dict(EXPERIMENT.scenarios(p, OTHER))
    mm = EXPERIMENT.analyze(Runs("test", p, OTHER, plan, {key: dcsim.run(sc) for key, sc in plan.items()}))
    path = m.path_of(OTHER)
    assert mm["path"] == path and mm["port_buffer_bytes"] == 700_000
    assert mm["fixed_buffer_bytes"] == 7300 and mm["base_rtt_us"] == pytest.approx(102.5856)
    assert mm["ceiling_gbps"] == pytest.approx(m.ceiling_bps(path) / 1e9)
    assert mm["window_rtt_us"] == pytest.approx(m.window_rtt_s(path) * 1e6)
    assert all(r["predicted_per_flow_gbps"] == pytest.approx(7300 * 8 / m.window_rtt_s(path) / 1e9) for r in mm["sweep"])
    assert [c.judge(mm)["claim"] for c in EXPERIMENT.claims][1].endswith("of the 0.7 MB buffer, with drops and timeouts")
    EXPERIMENT.plots["rcvbuf_off"](mm)
