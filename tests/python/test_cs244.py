"""The CS244 '17 reproduction (cs244-fig2, cs244-fig3, cs244-fig4): the hosts run ns-2's stack
with the scripts' agents, Fig. 2 runs end to end through the runner, and the analyses read the
testbed they run on (its framing, its port buffer)."""

from __future__ import annotations

import dataclasses
import json

import pytest

import dcsim
from dcsim.experiments import KINDS, TESTBEDS, Experiment, Runs, declarations, runner
from dcsim.experiments.cs244 import fig2, fig3, fig4
from dcsim.experiments.cs244.testbeds import fanin, port_packets
from dcsim.scenario import resolved

TESTBED = TESTBEDS["cs244_ns2"]
# The scripts' network with Ethernet's framing and a 300-packet port.
FRAMED = dataclasses.replace(
    TESTBED, link={"delay_us": 250.0, "framing_bytes": 38}, buffers={0.1: {"kind": "per_port", "limit_packets": 300}}
)


def test_cs244_hosts_run_ns2_with_the_scripts_agents():
    def tcp(k):
        sc = fanin("t", TESTBED, senders=2, k=k, link_delay_us=250.0, duration_s=1.0, warmup_s=0.5)
        return resolved(sc)["tcp"]

    reno, dctcp = tcp(None), tcp(20)
    for t in (reno, dctcp):  # ns-2.35's defaults, from the profile
        assert (t["ack_counting"], t["delayed_ack_segments"], t["init_cwnd_segments"]) == ("per_ack", 1, 2)
        assert (t["rto_min_ms"], t["rto_initial_ms"], t["cwnd_validation"]) == (200.0, 3000.0, "off")
    # DCTCP: plain FullTcp, tcpTick_ 1 µs; TCP: TCP/Linux to TCPSink/Sack1, maxrto_ 120 s.
    assert (dctcp["sack"], dctcp["timer_tick_ms"], dctcp["rto_max_ms"]) == (False, 0.001, 60_000.0)
    assert (reno["sack"], reno["timer_tick_ms"], reno["rto_max_ms"]) == (True, 10.0, 120_000.0)


def test_cs244_fig2_runs_end_to_end(tmp_path):
    summary = runner.run(fig2.EXPERIMENT, "quick", tmp_path, 2, TESTBED)
    json.dumps(summary)  # JSON-able as is
    assert summary["claims"]
    for row in summary["claims"]:
        assert set(row) == {"id", "claim", "paper", "measured", "holds", "kind", "quote", "section"}
        assert row["id"].startswith("cs244-fig2/") and row["kind"] in KINDS
        assert isinstance(row["holds"], bool)
    m = summary["metrics"]
    assert m["queue_packets"]["tcp"]["max_packets"] > 0
    assert 0 < m["goodput_mbps"]["dctcp"] <= 100
    assert m["files"] == ["cs244_fig2_queue.csv", "cs244_fig2_queue.png", "cs244_fig2_queue.svg"]
    for name in m["files"]:
        assert (tmp_path / name).stat().st_size > 0


def short_runs(experiment: Experiment, tb: declarations.Testbed, **params: object) -> Runs:
    """The experiment's runs on ``tb``, cut to ``params`` (short windows: only what the
    analysis reads from the testbed is under test)."""
    p = {**experiment.params("quick"), **params}
    plan = dict(experiment.scenarios(p, tb))
    return Runs("quick", p, tb, plan, {key: dcsim.run(sc) for key, sc in plan.items()})


def test_the_port_buffer_follows_the_testbed():
    assert port_packets(TESTBED) == 200
    assert port_packets(FRAMED) == 300
    # A shared memory: one busy port's share (the Triumph's 700 KB), in full packets.
    triumph = dataclasses.replace(TESTBED, buffers={1.0: {"kind": "preset", "name": "triumph"}})
    assert port_packets(triumph) == pytest.approx(700_000 / 1500)
    m2, m3 = (e.analyze(short_runs(e, FRAMED, warmup_s=0.05, duration_s=0.1)) for e in (fig2.EXPERIMENT, fig3.EXPERIMENT))
    assert m2["buffer_packets"] == m3["buffer_packets"] == 300
    # Fig. 2 draws the buffer's line and makes room for it; Fig. 3's range ends just past it.
    ax = fig2.plot(m2).axes[0]
    assert ax.get_ylim() == (0, 330) and 300 in [line.get_ydata()[0] for line in ax.lines]
    assert fig3.plot(m3).axes[0].get_xlim() == (0, 310)


def test_fig4_ceiling_and_bdp_follow_the_testbeds_framing():
    own = fig4.EXPERIMENT.analyze(short_runs(fig4.EXPERIMENT, TESTBED, k=(5,), warmup_s=0.1, duration_s=0.3))
    framed = fig4.EXPERIMENT.analyze(short_runs(fig4.EXPERIMENT, FRAMED, k=(5,), warmup_s=0.1, duration_s=0.3))
    # ns-2: 1460/1500 of 100 Mb/s, C·RTT = 100 Mb/s × 40 ms in 1,500-B packets (333.3).
    assert own["goodput_ceiling_mbps"] == pytest.approx(100 * 1460 / 1500)
    assert own["bdp_packets"] == pytest.approx(1e8 * 0.04 / (8 * 1500))
    assert framed["goodput_ceiling_mbps"] == pytest.approx(100 * 1460 / 1538)
    assert framed["bdp_packets"] == pytest.approx(1e8 * 0.04 / (8 * 1538))
    assert framed["k_guideline"] == pytest.approx(framed["bdp_packets"] / 7)
