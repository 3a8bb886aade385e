"""The DCTCP benchmark (§4.3) and the experiments on it (DCTCP Figs. 7-9, 22-24 and the
further scaling): the builder against the paper's numbers, the testbed laid over it, the runs
the experiments share, the measurement of a response's RTT+Queue against a hand-computed
idle-network value, and the analysis helpers by hand. (Each experiment runs end to end at quick
scale in test_readme.py.)"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dcsim
from conftest import columns
from dcsim import experiments
from dcsim import workloads as wl
from dcsim.experiments import Metrics
from dcsim.experiments.dctcp import benchmark as b
from dcsim.experiments.dctcp import benchmark_more, fig7, fig8, fig9, fig22, fig23, fig24
from dcsim.scenario import to_json

MODULES = [fig7, fig8, fig9, fig22, fig23, fig24, benchmark_more]
TESTBED = experiments.TESTBEDS["dctcp_testbed"]
# The rack without framing and with a static 250 KB per port.
UNFRAMED = dataclasses.replace(
    TESTBED, link={"delay_us": 25.0, "framing_bytes": 0}, buffers={1.0: {"kind": "per_port", "limit_bytes": 250_000}}
)
QUICK = b.SCALES["quick"]


@pytest.mark.parametrize("module", MODULES, ids=[m.EXPERIMENT.id for m in MODULES])
def test_interface(module):
    e = module.EXPERIMENT
    for part in ("Paper", "Published", "Our setup", "Assumptions", "Outputs"):
        assert part in e.notes, part
    assert {"quick", "full"} <= set(e.scales)
    assert e.description.strip() and "\n" not in e.description
    assert e.testbed == "dctcp_testbed"


def test_the_benchmark_is_the_papers_rack_and_traffic():
    sc = wl.dctcp_benchmark(10.0)
    topo = sc["topology"]
    # "45 servers connected to a Triumph ... by 1Gbps links. An additional server is connected
    # to a 10Gbps port of the Triumph to act as a stand-in for the rest of the data center."
    assert (topo["kind"], topo["hosts"], topo["uplinks"]) == ("rack", 45, 1)
    assert topo["host_link"]["rate_gbps"] == 1.0 and topo["uplink"]["rate_gbps"] == 10.0
    assert sc["switch"]["buffer"] == {"kind": "preset", "name": "triumph"}
    # "RTO_min set to 10ms in both" (§4.3).
    assert sc["tcp"]["rto_min_ms"] == 10.0
    # Each server queries all 44 others: 1.6 KB requests (§2.2), 2 KB responses (§4.3).
    assert len(sc["queries"]) == 45
    for i, q in enumerate(sc["queries"]):
        assert q["client"] == i and sorted(q["servers"]) == [s for s in range(45) if s != i]
        assert (q["request_bytes"], q["response_bytes"]) == (1600, 2000)
        assert q["persistent"] and q["arrival"]["mean_interval_ms"] == pytest.approx(600e3 / (188_000 / 45))
    # 188,000 queries in 10 minutes: 313 per second in all.
    rate = sum(1e3 / q["arrival"]["mean_interval_ms"] for q in sc["queries"])
    assert rate == pytest.approx(188_000 / 600)
    # 200,000 background flows in 10 minutes, the stand-in's flows into the rack included.
    rack, stand_in = sc["traffic"]
    assert rack["sources"] == list(range(45)) and rack["destination"] == {"kind": "mixed", "across_racks": 0.2}
    assert stand_in["sources"] == [45] and stand_in["destinations"] == list(range(45))
    flows_per_s = 45 * 1e3 / rack["arrival"]["mean_interval_ms"] + 1e3 / stand_in["arrival"]["mean_interval_ms"]
    assert flows_per_s == pytest.approx(200_000 / 600)
    # The stand-in sends into the rack as many flows as the rack sends out of it.
    assert 1e3 / stand_in["arrival"]["mean_interval_ms"] == pytest.approx(45 * 0.2 * 1e3 / rack["arrival"]["mean_interval_ms"])
    assert rack["size"] == {"kind": "web_search"} and rack["stop_s"] == 10.0
    assert sc["sim"]["duration_s"] == pytest.approx(10.5)
    # Aggregators start one exponential gap apart, not in step, and the seed fixes them.
    starts = [q["start_s"] for q in sc["queries"]]
    assert len(set(starts)) == 45 and starts == [q["start_s"] for q in wl.dctcp_benchmark(10.0)["queries"]]
    assert starts != [q["start_s"] for q in wl.dctcp_benchmark(10.0, seed=2)["queries"]]


def test_the_testbed_laid_over_the_benchmark_leaves_it_as_the_paper_ran_it():
    """On its own testbed the experiments' TCP run is the workload's scenario: the testbed's
    stack, links and Triumph are the ones the workload builds, with RTO_min 10 ms (§4.3)."""
    sc = b.scenario("TCP", QUICK, TESTBED)
    own = wl.dctcp_benchmark(QUICK["duration_s"], drain_s=b.DRAIN_S)
    assert sc["topology"] == own["topology"] and sc["switch"] == own["switch"] and sc["tcp"] == own["tcp"]
    assert (sc["traffic"], sc["queries"]) == (own["traffic"], own["queries"])
    assert sc["sim"] == own["sim"] | {"warmup_s": QUICK["warmup_s"]}
    # Other hosts keep the experiment's own settings: RTO_min 10 ms, the protocol, the switch.
    linux = experiments.testbed_for(fig22.EXPERIMENT, "linux_current")
    other = b.scenario("DCTCP", QUICK, linux)
    assert (other["tcp"]["profile"], other["tcp"]["cc"], other["tcp"]["rto_min_ms"]) == ("linux_current", "dctcp", 10.0)
    assert other["switch"] == b.scenario("DCTCP", QUICK, TESTBED)["switch"]
    assert b.scenario("TCP", QUICK, linux, rto_min_ms=b.PRODUCTION_RTO_MIN_MS)["tcp"]["rto_min_ms"] == 300.0


def test_the_scaled_benchmark_and_its_multipliers():
    sc = wl.dctcp_benchmark(5.0, scaled=True)
    # "the total size of each response is 1MB (with 44 servers, each individual response is
    # just under 25KB)"; "the size of update flows larger than 1MB" × 10.
    assert {q["response_bytes"] for q in sc["queries"]} == {1_000_000 // 44} == {22_727}
    for g in sc["traffic"]:
        assert (g["scale_above_bytes"], g["scale_factor"]) == (1_000_000, 10.0)
    base = wl.dctcp_benchmark(5.0)
    fast = wl.dctcp_benchmark(5.0, rate_multiplier=2)
    for g, f in zip(base["traffic"], fast["traffic"]):
        assert f["arrival"]["mean_interval_ms"] == pytest.approx(g["arrival"]["mean_interval_ms"] / 2)
    big = wl.dctcp_benchmark(5.0, size_multiplier=5)
    assert {q["response_bytes"] for q in big["queries"]} == {10_000}
    assert all((g["scale_above_bytes"], g["scale_factor"]) == (1, 5.0) for g in big["traffic"])
    with pytest.raises(ValueError):
        wl.dctcp_benchmark(5.0, scaled=True, size_multiplier=2)
    with pytest.raises(ValueError):
        wl.dctcp_benchmark(0.0)


def test_the_benchmarks_offered_load_by_hand():
    # Web-search sizes, mean 1.666 MB; one flow per 162 ms per server: 1.666e6 × 8 / 0.162 s
    # = 82.3 Mb/s of payload, 86.7 Mb/s on the wire (1538 B per 1460): 8.7% of 1 Gbps.
    mean = wl.cdf_mean(wl.builtin_points("web_search"))
    assert mean == pytest.approx(1_665_830.8)
    gap_s = wl.BENCHMARK_FLOW_INTERVAL_MS / 1e3
    assert gap_s == pytest.approx(0.162)
    assert mean * 8 / gap_s * 1538 / 1460 / 1e9 == pytest.approx(0.0867, abs=5e-4)


def test_the_offered_load_follows_the_links_framing():
    # One 1,460,000-B flow into each of the 45 rack hosts over a 1 s window: 1,000 full
    # segments each, 1,538,000 B on the wire with Ethernet's framing, 1,500,000 B without.
    def load(testbed) -> float:
        sc = b.scenario("TCP", QUICK, testbed)
        t0 = QUICK["warmup_s"]
        flows = [{"generator": 0, "start_s": t0, "src": 45, "dst": h, "size_bytes": 1_460_000} for h in range(45)]
        query = {"workload": 0, "query": 0, "issued_s": -1.0, "qct_s": 0.001, "timeouts": 0}
        res = dcsim.Results({"flows": columns(flows), "queries": columns([query])})
        return b.offered_load(res, sc) * (b.window(sc)[1] - t0)

    assert load(TESTBED) == pytest.approx(1_538_000 * 8 / 1e9)
    assert load(UNFRAMED) == pytest.approx(1_500_000 * 8 / 1e9)


def test_protocols_set_the_switch_and_stack():
    tcp, dctcp, deep, red = (b.scenario(p, QUICK, TESTBED, scaled=True) for p in b.PROTOCOLS)
    assert (tcp["tcp"]["cc"], tcp["switch"]["aqm"]) == ("newreno", {"kind": "drop_tail"})
    # K by line rate: 20 on the 1 Gbps ports, 65 on the 10 Gbps one (§4.3).
    assert (dctcp["tcp"]["cc"], dctcp["switch"]["aqm"]) == ("dctcp", {"kind": "threshold"})
    assert deep["switch"]["buffer"]["name"] == "cat4948" and deep["tcp"]["cc"] == "newreno"
    # "min_th = 20, max_th = 60 and using [7] for the remaining parameters".
    assert red["tcp"]["cc"] == "tcp_ecn"
    assert {k: red["switch"]["aqm"][k] for k in ("min_th", "max_th", "max_p", "weight_log2", "ecn")} == {
        "min_th": 20.0,
        "max_th": 60.0,
        "max_p": 0.1,
        "weight_log2": 9,
        "ecn": True,
    }
    names = {sc["name"] for sc in (tcp, dctcp, deep, red)}
    assert len(names) == 4
    prod = b.production_runs(QUICK, TESTBED)
    assert {sc["tcp"]["rto_min_ms"] for sc in prod.values()} == {300.0}
    assert [sc["queries"][0]["response_jitter_us"] for sc in prod.values()] == [10_000.0, 0.0]


def test_the_experiments_share_their_runs():
    # Figs. 22, 23 and 9 share their runs; Fig. 24's baseline is Fig. 22's DCTCP run, and the
    # benchmark's further scaling at multiplier 1 is Fig. 22's pair.
    runs = {m.EXPERIMENT.id: m.EXPERIMENT.scenarios(QUICK, TESTBED) for m in (fig9, fig22, fig23, fig24)}
    assert runs["dctcp-fig22"] == runs["dctcp-fig23"]
    assert {k: runs["dctcp-fig22"][k] for k in runs["dctcp-fig9"]} == runs["dctcp-fig9"]
    assert runs["dctcp-fig24"][fig24.BASELINE] == runs["dctcp-fig22"]["DCTCP"]
    # The other loads: the background's rate alone scaled, queries as the paper's.
    for experiment, scaled in (("dctcp-fig22", False), ("dctcp-fig24", True)):
        own = runs[experiment]["DCTCP"]
        for level, mult in b.LOAD_LEVELS.items():
            sc = runs[experiment][(level, "DCTCP")]
            assert sc["queries"] == own["queries"]
            own_gap = own["traffic"][0]["arrival"]["mean_interval_ms"]
            assert sc["traffic"][0]["arrival"]["mean_interval_ms"] == pytest.approx(own_gap / mult[scaled])
    red_ect = runs["dctcp-fig24"][fig24.RED_ECT]
    assert red_ect["tcp"]["ect_on_control"] == "all"
    assert {k: v for k, v in red_ect["tcp"].items() if k != "ect_on_control"} == runs["dctcp-fig24"][fig24.RED]["tcp"]
    assert fig7.EXPERIMENT.scenarios(QUICK, TESTBED)["jitter off"] == fig8.EXPERIMENT.scenarios(QUICK, TESTBED)["jitter off"]
    full = benchmark_more.EXPERIMENT
    more = full.scenarios(full.params("full"), TESTBED)
    base = fig22.EXPERIMENT.scenarios(fig22.EXPERIMENT.params("full"), TESTBED)
    assert [more[("size", 1.0, p)] for p in ("TCP", "DCTCP")] == [base["TCP"], base["DCTCP"]]


def test_only_the_runs_that_report_slowdown_run_flows_alone():
    """Each finished flow run alone on the idle network (`measure.ideal_fct`) nearly doubles
    a run's work; only the baseline runs report slowdown (Fig. 22's table), so only they ask."""
    baseline = b.baseline_runs(QUICK, TESTBED)
    assert all(sc["measure"]["ideal_fct"] is True for sc in baseline.values())
    others = 0
    for m in MODULES:
        e = m.EXPERIMENT
        for sc in e.scenarios(e.params("quick"), TESTBED).values():
            if sc not in baseline.values():
                assert sc["measure"]["ideal_fct"] is False, (e.id, sc["name"])
                others += 1
    assert others >= 10


def test_a_responses_rtt_queue_on_an_idle_network_by_hand():
    """One worker answers 2,000 B (1460 + 540) on an idle 1 Gbps rack, 25 µs per link, no
    host noise. From the first segment's last bit leaving the worker's NIC (t = 0):
    the second (618 B on the wire) leaves 4.944 µs later; the switch sends the first
    (1538 B, 12.304 µs) from t = 25 µs to 37.304, the second from 37.304 to 42.248, which
    reaches the aggregator at 67.248 µs; its immediate ACK (m = 2; 78 B, 0.624 µs a hop)
    leaves the aggregator at 67.872, the switch at 93.496, and reaches the worker at
    118.496 µs."""
    sc = {
        "sim": {"duration_s": 0.05},
        "topology": {"kind": "rack", "hosts": 2, "uplinks": 1},
        "host": {"tx_jitter_us": 0.0, "clock_ppm": 0.0},
        "queries": [
            {
                "client": 0,
                "servers": [1],
                "request_bytes": 1600,
                "response_bytes": 2000,
                "rounds": 3,
                "start_s": 0.001,
                "arrival": {"kind": "poisson", "mean_interval_ms": 5.0},
            }
        ],
        "measure": {"trace_queries": [0], "queue_sample_us": 0.0},
    }
    res = dcsim.run(sc)
    r = b.responses(res, sc)
    assert list(r["query"]) == [0, 1, 2] and set(r["server"]) == {1}
    assert r["rtt_queue_ms"].to_numpy() == pytest.approx([0.118496] * 3, abs=1e-9)
    # The request (1600 B: a 1538-B and a 218-B frame) leaves the aggregator's NIC at 12.304
    # and 14.048 µs; the switch sends the first from 37.304 to 49.608 µs and the second, queued
    # behind it, until 51.352 µs; its last byte reaches the worker 25 µs later, at 76.352 µs.
    q = res.queries
    delay = r["request_rx_s"].to_numpy() - q["issued_s"].to_numpy()
    assert delay == pytest.approx([76.352e-6] * 3, abs=1e-9)
    assert not r["retransmitted"].any()


def test_intervals_under_way_at_instants_by_hand():
    starts = np.array([0.0, 1.0, 2.0, 2.5])
    ends = np.array([3.0, 1.5, np.inf, 2.5])  # the last one is empty
    assert b.under_way(np.array([-1.0, 0.0, 1.2, 1.5, 2.5, 3.0, 9.0]), starts, ends).tolist() == [0, 1, 2, 1, 2, 1, 1]


def test_fig9_statistics_by_hand():
    # 12 ms is a response that was lost and resent: loss recovery, not the queue's tail, so
    # the statistics are over the other five.
    rtt = np.array([0.2, 0.5, 0.9, 1.5, 4.0, 12.0])
    st = fig9.stats(rtt, np.array([False] * 5 + [True]))
    assert st["responses"] == 6 and st["retransmitted"] == 1
    assert st["above_1ms"] == pytest.approx(2 / 5) and st["max_ms"] == 4.0
    assert st["p50_ms"] == pytest.approx(0.9)
    # p99 of five values by linear interpolation: 1.5 + 0.96 × (4.0 − 1.5).
    assert st["p99_ms"] == pytest.approx(3.9)
    assert math.isnan(fig9.stats(np.array([]), np.array([], dtype=bool))["above_1ms"])


def test_fig7_transfer_time_by_hand():
    # 44 responses of 2,000 B: a 1538-B and a 618-B frame each, 17.248 µs at 1 Gbps.
    run = fig7.scenarios(QUICK, TESTBED)[fig7.RUN]
    assert fig7.transfer_ms(run) == pytest.approx(44 * 17.248e-3)
    # Without framing: a 1500-B and a 580-B frame, 16.64 µs.
    run = fig7.scenarios(QUICK, UNFRAMED)[fig7.RUN]
    assert fig7.transfer_ms(run) == pytest.approx(44 * 16.64e-3)
    assert b.wire_bytes(run, 2000) == 2080


def test_fig9_port_share_follows_the_switch():
    # The Triumph: one busy port holds ≈ 700 KB, 5.6 ms at 1 Gbps.
    assert fig9.port_drain(b.baseline_runs(QUICK, TESTBED)["TCP"]) == {"port_share_bytes": 700_000, "drain_ms": pytest.approx(5.6)}
    # A static 250 KB per port: 2 ms; the LB4G's 128.5 kB: 1.028 ms.
    assert fig9.port_drain(b.baseline_runs(QUICK, UNFRAMED)["TCP"]) == {"port_share_bytes": 250_000, "drain_ms": pytest.approx(2.0)}
    lb4g = experiments.testbed_for(fig9.EXPERIMENT, "ictcp_testbed")
    assert fig9.port_drain(b.baseline_runs(QUICK, lb4g)["TCP"])["drain_ms"] == pytest.approx(1.028)
    # The claim and its text read them from the metrics.
    stats = {p: {"p99_ms": 1.5, "max_ms": 2.0} for p in ("TCP", "DCTCP")}
    m = Metrics(values={"stats": stats, "port_share_bytes": 250_000, "drain_ms": 2.0})
    tail = fig9.EXPERIMENT.claims[1].judge(m)
    assert tail["holds"] and "half of 250 KB's drain time (1.0 ms)" in tail["claim"]


def test_message_times_from_segments_by_hand():
    # 2,000-B messages from seq 1: message 0 is [1, 2001), 1 is [2001, 4001), 2 is [4001, 6001).
    # The segment at seq 3461 carries bytes of messages 1 and 2; seq 2001 is sent twice.
    seg = pd.DataFrame(
        {
            "t_s": [1.0, 2.0, 3.0, 4.0, 5.0],
            "seq": [1, 1461, 2001, 3461, 2001],
            "len": [1460, 540, 1460, 1000, 1460],
        }
    )
    out = b.first_times(seg, 2000)
    assert out["first_s"].tolist() == [1.0, 3.0, 4.0]
    assert out["last_s"].tolist() == [2.0, 4.0, 4.0]
    assert out["again"].tolist() == [False, True, False]


def test_query_statistics_count_an_unfinished_query_as_timed_out():
    q = pd.DataFrame({"qct_s": [0.001, 0.002, 0.003, np.nan], "timeouts": [0, 1, 0, 0]})
    st = b.stats_of_queries(q)
    assert (st["issued"], st["completed"]) == (4, 3)
    assert st["mean_ms"] == pytest.approx(2.0)
    assert st["timeout_fraction"] == pytest.approx(0.5)
    # Percentiles rank the unfinished query last, at infinity: the empirical quantile of 4
    # values is the 2nd for p50 and the 4th from p75 up.
    assert st["p50_ms"] == pytest.approx(2.0)
    assert math.isinf(st["p95_ms"]) and math.isinf(st["p99_ms"])


def test_the_bench_rack_scenario_is_the_experiments_own() -> None:
    """`make bench`'s `dctcp-benchmark-rack` row runs the committed scenario file: it must be
    what `benchmarks/dctcp_benchmark_rack.py` writes from the experiment today."""
    import importlib.util

    script = Path(__file__).parents[2] / "benchmarks" / "dctcp_benchmark_rack.py"
    spec = importlib.util.spec_from_file_location("dctcp_benchmark_rack", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    experiment = experiments.EXPERIMENTS["dctcp-fig22"]
    scenario = dict(experiment.scenarios(experiment.params("quick"), experiments.TESTBEDS[experiment.testbed]))["DCTCP"]
    assert json.loads(module.OUT.read_text()) == json.loads(to_json(scenario)), "rerun benchmarks/dctcp_benchmark_rack.py"
