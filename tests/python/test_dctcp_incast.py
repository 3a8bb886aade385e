"""The DCTCP §4.2 incast experiments (Figs. 18-21, Table 2 and the incast variants of §4.2.1):
their scenarios against the paper at every scale, the analysis helpers with hand-computed
values, and each run end to end at a tiny ("smoke") scale into a temporary directory."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pandas as pd
import pytest

from conftest import columns
from dcsim import Results
from dcsim.experiments import TESTBEDS, Experiment, runner
from dcsim.experiments.dctcp import fig18, fig19, fig20, fig21, incast_variants, table2
from dcsim.experiments.dctcp.incast import first_n_with_timeouts
from dcsim.experiments.queries import many_to_one_duration_s, mean_ci90_halfwidth, query_stats
from dcsim.experiments.scenarios import per_port_packets
from dcsim.scenario import resolved

ALL = [e.EXPERIMENT for e in (fig18, fig19, fig20, incast_variants, fig21, table2)]
# Those with a smoke scale (the incast variants run end to end at quick scale in test_readme.py).
SMOKE = [e for e in ALL if "smoke" in e.scales]
TESTBED = TESTBEDS["dctcp_testbed"]


def plan(experiment: Experiment, scale: str, tb=TESTBED) -> dict:
    return dict(experiment.scenarios(experiment.params(scale), tb))


@pytest.mark.parametrize("experiment", ALL, ids=lambda e: e.id)
def test_the_notes_give_the_setup_the_published_numbers_and_the_assumptions(experiment: Experiment):
    for part in ("Paper setup", "Published", "Our setup", "Assumptions", "Outputs"):
        assert part in experiment.notes, part


@pytest.mark.parametrize("experiment", ALL, ids=lambda e: e.id)
def test_every_run_is_a_query_workload_on_the_10ms_tick(experiment: Experiment):
    for scale in experiment.scales:
        for sc in plan(experiment, scale).values():
            assert sc["queries"], "every incast experiment runs a query workload"
            # The stack's tick: the paper's hosts', 10 ms (§4.2.1), not one written in the experiment.
            assert "timer_tick_ms" not in sc["tcp"] and resolved(sc)["tcp"]["timer_tick_ms"] == 10.0
            assert sc["tcp"]["profile"] == TESTBED.tcp["profile"]


def test_paper_setups():
    # Fig. 18: static 100-packet ports, four (protocol, RTO_min) curves, 1 MB / n per server.
    runs = plan(fig18.EXPERIMENT, "full")
    assert {(p, r) for p, r, _ in runs} == set(fig18.CONFIGS)
    assert sorted({n for _, _, n in runs}) == list(range(1, 41))
    sc = next(sc for (p, r, n), sc in runs.items() if n == 40)
    assert sc["switch"]["buffer"] == {"kind": "per_port", "limit_packets": 100}
    assert sc["queries"][0]["response_bytes"] == 25_000 and sc["queries"][0]["rounds"] == 1000
    # The figure sets RTO_min over the testbed's 300 ms.
    assert {sc["tcp"]["rto_min_ms"] for (_, r, _), sc in runs.items() if r == 10.0} == {10.0}
    # Fig. 19: dynamic buffer, RTO_min 10 ms only.
    runs = plan(fig19.EXPERIMENT, "full")
    assert {r for _, r, _ in runs} == {10.0}
    assert all(sc["switch"]["buffer"] == {"kind": "preset", "name": "triumph"} for sc in runs.values())
    # Fig. 20: 41 simultaneous workloads, each client asks the other 40 for 25 KB.
    sc = plan(fig20.EXPERIMENT, "quick")["TCP"]
    assert len(sc["queries"]) == 41
    assert all(len(q["servers"]) == 40 and q["client"] not in q["servers"] for q in sc["queries"])
    # Fig. 21: two long flows into host 0, 20 KB from host 3.
    sc = plan(fig21.EXPERIMENT, "quick")["TCP"]
    assert [(f["src"], f["dst"]) for f in sc["flows"]] == [(1, 0), (2, 0)]
    assert sc["queries"][0]["servers"] == [3] and sc["queries"][0]["response_bytes"] == 20_000
    # Table 2: 66 background flows among the 33 other hosts, each sends 2 and receives 2.
    bg = table2.background_flows()
    assert len(bg) == 66
    hosts = set(range(11, 44))
    assert {f["src"] for f in bg} == hosts and {f["dst"] for f in bg} == hosts
    assert all(f["src"] != f["dst"] for f in bg)
    assert sorted(sum(f["dst"] == h for f in bg) for h in hosts) == [2] * 33
    runs = plan(table2.EXPERIMENT, "quick")
    assert set(runs) == set(table2.RUNS)
    assert runs[("TCP", True)]["flows"] == bg and runs[("TCP", False)]["flows"] == []
    assert runs[("DCTCP", True)]["sim"]["warmup_s"] == table2.QUERY_START_S


def test_scenarios_take_the_testbeds_hosts_and_buffers_but_keep_the_figures_own():
    other = replace(
        TESTBED,
        host={"nic_queue_packets": 7},
        host_by_rate={10.0: {"nic_queue_packets": 9}},
        buffers={1.0: per_port_packets(500), 10.0: per_port_packets(900)},
    )
    for experiment in ALL:
        for sc in plan(experiment, "quick", other).values():
            rate = sc["topology"]["link"]["rate_gbps"]
            assert sc["host"] == {"nic_queue_packets": 9 if rate == 10.0 else 7}
    # Fig. 18's static 100-packet ports and the CAT4948 are the experiments' own.
    assert all(sc["switch"]["buffer"]["limit_packets"] == 100 for sc in plan(fig18.EXPERIMENT, "quick", other).values())
    assert all(sc["switch"]["buffer"]["limit_packets"] == 500 for sc in plan(fig19.EXPERIMENT, "quick", other).values())
    buffers = {st: sc["switch"]["buffer"] for (st, *_), sc in plan(incast_variants.EXPERIMENT, "quick", other).items()}
    assert buffers == {
        "1G Triumph": per_port_packets(500),
        "1G CAT4948": {"kind": "preset", "name": "cat4948"},
        "10G Scorpion": per_port_packets(900),
    }


def test_query_stats_counts_unfinished_and_timeouts():
    res = Results(
        {
            "queries": columns(
                [
                    {"workload": 0, "qct_s": 0.010, "timeouts": 0},
                    {"workload": 0, "qct_s": 0.020, "timeouts": 2},
                    {"workload": 1, "qct_s": None, "timeouts": 1},
                    {"workload": 1, "qct_s": float("nan"), "timeouts": 0},
                ]
            )
        }
    )
    st = query_stats(res)
    assert st["issued"] == 4 and st["completed"] == 2
    assert math.isclose(st["mean_ms"], 15.0) and st["timeout_fraction"] == 0.5
    # 90% CI of the mean of {10, 20} ms: s = 7.0711, half-width = 1.6449 · 7.0711 / √2 = 8.2245.
    assert math.isclose(st["mean_ci90_ms"], 8.2245, rel_tol=1e-4)
    assert math.isnan(mean_ci90_halfwidth([5.0]))
    assert query_stats(res, workloads=[1])["completed"] == 0
    assert first_n_with_timeouts([10, 1, 5], [0.2, 0.0, 0.1]) == 5
    assert first_n_with_timeouts([1, 2], [0.0, 0.0]) is None


@pytest.mark.parametrize("experiment", SMOKE, ids=lambda e: e.id)
def test_runs_at_smoke_scale(experiment: Experiment, tmp_path):
    summary = runner.run(experiment, "smoke", tmp_path, 2, TESTBED)
    assert [c["id"] for c in summary["claims"]] == [experiment.claim_id(c) for c in experiment.claims]
    for cl in summary["claims"]:
        assert isinstance(cl["holds"], bool)
        assert cl["paper"] and cl["measured"]
    json.dumps(summary["metrics"])  # plain JSON
    files = summary["metrics"]["files"]
    assert any(f.endswith(".csv") for f in files)
    assert any(f.endswith(".png") for f in files) and any(f.endswith(".svg") for f in files)
    for f in files:
        assert (tmp_path / f).stat().st_size > 0, f


# ---------------------------------------------------------------------------------------
# Incast variants (§4.2.1)
# ---------------------------------------------------------------------------------------


def test_incast_variants_settings_and_response_sizes():
    runs = plan(incast_variants.EXPERIMENT, "full")
    curves = {(st, t, p) for st, t, p, _, _ in runs}
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
    for (setting, total, proto, rto, n), sc in runs.items():
        q = sc["queries"][0]
        # total/n from each of hosts 1..n to the client, host 0.
        assert q["client"] == 0 and q["servers"] == list(range(1, n + 1))
        assert q["response_bytes"] == total // n and q["rounds"] == 1000
        assert rto == 10.0 and sc["tcp"]["rto_min_ms"] == 10.0 and resolved(sc)["tcp"]["timer_tick_ms"] == 10.0
        rate = sc["topology"]["link"]["rate_gbps"]
        assert (rate, sc["topology"]["hosts"]) == ((10.0, 14) if setting == "10G Scorpion" else (1.0, 41))
        assert n <= sc["topology"]["hosts"] - 1
        preset = {"1G Triumph": "triumph", "1G CAT4948": "cat4948", "10G Scorpion": "scorpion"}
        assert sc["switch"]["buffer"] == {"kind": "preset", "name": preset[setting]}
        if proto == "DCTCP":
            assert sc["switch"]["aqm"]["k_packets"] == (65 if rate == 10.0 else 20)
        else:
            assert sc["switch"]["aqm"] == {"kind": "drop_tail"} and sc["tcp"]["cc"] == "newreno"
    by = {(st, t, n): sc["queries"][0]["response_bytes"] for (st, t, _, _, n), sc in runs.items()}
    assert by[("1G Triumph", 100_000, 40)] == 2_500  # 100 KB/40: two segments each
    assert by[("1G CAT4948", 1_000_000, 20)] == 50_000
    assert by[("10G Scorpion", 10_000_000, 13)] == 769_230


def test_incast_horizon_grows_with_the_response_only_past_a_tenth_of_a_second():
    # 1 MB at 1 Gbps: max(0.1, 8 · 0.01, 4 · 0.008) = 0.1 s a round, as before.
    assert many_to_one_duration_s(1000, 10.0) == pytest.approx(0.01 + 100 + 1)
    # 10 MB at 1 Gbps: 4 · 0.08 = 0.32 s a round; at 10 Gbps 4 · 0.008 < 0.1.
    assert many_to_one_duration_s(1000, 10.0, 10_000_000) == pytest.approx(0.01 + 320 + 1)
    assert many_to_one_duration_s(10, 10.0, 10_000_000, 10.0) == pytest.approx(0.01 + 1 + 1)


def test_worst_timeout_fraction_of_a_curve():
    df = pd.DataFrame(
        [
            {"setting": "1G Triumph", "protocol": "TCP", "total_bytes": 10, "timeout_fraction": 0.1},
            {"setting": "1G Triumph", "protocol": "TCP", "total_bytes": 10, "timeout_fraction": 0.4},
            {"setting": "1G Triumph", "protocol": "TCP", "total_bytes": 20, "timeout_fraction": 0.9},
            {"setting": "1G Triumph", "protocol": "DCTCP", "total_bytes": 10, "timeout_fraction": 0.0},
        ]
    )
    assert incast_variants.worst(df, "1G Triumph", "TCP", 10) == 0.4
    assert incast_variants.worst(df, "1G Triumph", "DCTCP", 10) == 0.0
    assert incast_variants.size_label(100_000) == "100 KB"
    assert incast_variants.size_label(10_000_000) == "10 MB"
    assert incast_variants.where("1G CAT4948", 1_000_000) == "1G CAT4948 1 MB"
