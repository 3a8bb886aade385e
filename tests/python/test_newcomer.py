"""dctcp-newcomer: the fair-share ideal by hand, the scenarios of the three cases and of the
NIC-backlog counter-run as described, and one tiny run through the analysis of a run and the
rerun rule. The whole experiment runs in the README's `dcsim reproduce` test (test_readme.py)."""

from __future__ import annotations

import json

import pytest

import dcsim
from dcsim import _core
from dcsim.experiments import TESTBEDS
from dcsim.experiments.dctcp import newcomer as nc

TB = TESTBEDS["dctcp_testbed"]


def plan(scale: str = "quick", tb=TB) -> dict:
    return dict(nc.EXPERIMENT.scenarios(nc.EXPERIMENT.params(scale), tb))


def test_fair_share_ideal_by_hand():
    # 500 KB at 1/2 of R's goodput, 1 Gbps × 1460/1538: 4e6 b × 2 × 1538 / 1.46e12 b/s.
    assert nc.fair_share_ms(500_000, 2) == pytest.approx(8.427397, rel=1e-6)
    # 100 KB at a third: 8e5 × 3 × 1538 / 1.46e12.
    assert nc.fair_share_ms(100_000, 3) == pytest.approx(2.528219, rel=1e-6)
    # 1 MB at a half with no framing (ns-2's): 8e6 × 2 × 1500 / 1.46e12.
    assert nc.fair_share_ms(1_000_000, 2, framing_bytes=0) == pytest.approx(16.438356, rel=1e-6)
    # 1 MB alone at 10 Gbps: 8e6 × 1538 / 1.46e13.
    assert nc.fair_share_ms(1_000_000, 1, rate_gbps=10.0) == pytest.approx(0.842740, rel=1e-6)
    # The rule: the long flows and the message share R's port.
    assert [c.sharers for c in nc.CASES] == [2, 3, 2]


def test_notes_give_the_setup_the_assumptions_and_the_outputs():
    e = nc.EXPERIMENT
    for part in ("Paper setup", "Published", "Our setup", "Assumptions", "Known deviation", "Outputs"):
        assert part in e.notes, part
    assert {"quick", "full"} <= set(e.scales)
    assert {c.kind for c in e.claims} <= {"check", "derived"}, "none of these are the paper's own words"


def test_the_runs_of_every_scale_are_valid_and_keyed_as_described():
    for scale in nc.EXPERIMENT.scales:
        reps = nc.EXPERIMENT.params(scale)["reps"]
        runs = plan(scale)
        main = [k for k in runs if k[0] == "main"]
        counter = [k for k in runs if k[0] == "nic-backlog"]
        assert len(main) == 2 * 3 * 3 * reps
        # The counter-run: the limits other than the testbed's own (128 KB), both protocols.
        assert sorted({k[2] for k in counter}) == [0, 16_384] and len(counter) == 2 * 2 * reps
        for sc in runs.values():
            _core.validate_json(json.dumps(sc))
        names = [sc["name"] for sc in runs.values()]
        assert len(set(names)) == len(names)


@pytest.mark.parametrize("case", nc.CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("protocol", nc.PROTOCOLS)
def test_each_case_is_the_star_it_says(case, protocol):
    runs = plan()
    reps = nc.EXPERIMENT.params("quick")["reps"]
    starts = []
    for rep in range(reps):
        sc = runs[("main", protocol, case.name, 500_000, rep)]
        topo = sc["topology"]
        assert topo["kind"] == "star" and topo["hosts"] == len(case.long_rates) + 2
        assert topo["link"] == {"rate_gbps": 1.0, "delay_us": 25.0, "framing_bytes": 38}
        if case.name == "10g-sender":
            assert [link["rate_gbps"] for link in topo["host_links"]] == [1.0, 10.0, 1.0]
        else:
            assert "host_links" not in topo
        *longs, msg = sc["flows"]
        assert [(f["src"], f["dst"], "bytes" in f) for f in longs] == [(h, 0, False) for h in case.long_hosts]
        assert (msg["src"], msg["dst"], msg["bytes"]) == (case.sender, 0, 500_000)
        starts.append(msg["start_s"])
        assert sc["sim"]["seed"] == rep + 1 and sc["sim"]["duration_s"] == pytest.approx(msg["start_s"] + nc.HORIZON_S)
        assert sc["switch"] == {
            "buffer": {"kind": "preset", "name": "triumph"},
            "aqm": {"kind": "drop_tail"} if protocol == "TCP" else {"kind": "threshold", "k_packets": 20, "count_in_service": True},
        }
        assert sc["tcp"]["cc"] == ("newreno" if protocol == "TCP" else "dctcp") and sc["tcp"]["rto_min_ms"] == 10.0
        assert sc["host"] == dict(TB.host)
        assert sc["measure"]["queue_ports"] == ["s0->h0", *(f"h{h}->s0" for h in case.long_hosts)]
    # Every repetition starts its message at another moment, within 20 ms of 0.2 s.
    assert len(set(starts)) == reps and all(0.2 <= t < 0.22 for t in starts)


def test_the_counter_run_is_case_1_at_500_kb_with_only_the_nic_backlog_changed():
    runs = plan()
    for limit in (0, 16_384):
        counter = runs[("nic-backlog", "DCTCP", limit, 3)]
        main = runs[("main", "DCTCP", "nic-limited", 500_000, 3)]
        assert counter["host"] == {**TB.host, "queue_bytes_per_conn": limit}
        assert {k: v for k, v in counter.items() if k not in ("name", "host")} == {
            k: v for k, v in main.items() if k not in ("name", "host")
        }
    # At the testbed's own limit the counter-run would be the main run itself.
    own = nc.newcomer_scenario(TB, "DCTCP", nc.NIC_LIMITED, 500_000, 3, 8, host={"queue_bytes_per_conn": 131_072})
    assert own == runs[("main", "DCTCP", "nic-limited", 500_000, 3)]
    # On hosts with no limit the counter-run takes the other two.
    sourced = plan(tb=TESTBEDS["dctcp_hosts_sourced"])
    assert sorted({k[2] for k in sourced if k[0] == "nic-backlog"}) == [16_384, 131_072]


def test_a_tiny_run_through_the_analysis_and_the_rerun_rule():
    sc = nc.newcomer_scenario(TB, "DCTCP", nc.CASE["10g-sender"], 100_000, 0, 8)
    t0 = sc["flows"][-1]["start_s"]
    sc["sim"]["duration_s"] = t0 + 0.05
    res = dcsim.run(sc)
    assert nc.longer_if_unfinished(sc, res) is None
    row = nc.run_row(res, sc)
    assert 1.0 < row["fct_ms"] < 50.0 and row["alone_ms"] < row["fct_ms"]
    # The 10 Gbps sender's bytes wait at R's port, none in its NIC.
    assert row["long_nic_queue_kb"] == 0.0 and row["switch_queue_kb"] > 0.0 and row["long_cwnd_kb"] > 0.0
    cut = dict(sc, sim=dict(sc["sim"], duration_s=t0 + 0.001))
    longer = nc.longer_if_unfinished(cut, dcsim.run(cut))
    assert longer is not None and longer["sim"]["duration_s"] == pytest.approx(t0 + 0.003)
