"""Results cross from the engine as NumPy columns: the tables' dtypes and lengths, their
values against what the engine counted and against a short transfer worked out by hand, and
`summary()` against the reference written when results still crossed as JSON.

    python tests/python/test_columns.py     rewrites the reference (after a change of the
                                            engine that is meant to change this run)
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dcsim
from dcsim.files import write_columns_csv
from dcsim.results import COLUMN_TABLES
from dcsim.scenario import star

REFERENCE_SUMMARY = Path(__file__).parent / "data" / "reference_summary.json"

# A shared-buffer star with what every table needs: two long flows (never complete), a short
# one, one that never starts, a query workload whose last round is cut off, ICTCP on one
# host, queue, flow and pool samples, a traced port and a traced flow.
REFERENCE = star(5) | {
    "name": "reference",
    "sim": {"duration_s": 0.03, "seed": 7},
    "switch": {
        "aqm": {"kind": "threshold", "k_packets": 5},
        "buffer": {"kind": "preset", "name": "triumph"},
    },
    "tcp": {"cc": "dctcp"},
    "ictcp": {"hosts": [4]},
    "measure": {
        "queue_sample_us": 500.0,
        "queue_ports": ["s0->*"],
        "flow_sample_us": 1000.0,
        "trace_ports": ["s0->h0"],
        "trace_flows": [2],
    },
    "flows": [
        {"src": 1, "dst": 0},
        {"src": 2, "dst": 0},
        {"src": 3, "dst": 4, "bytes": 50000},
        {"src": 3, "dst": 2, "start_s": 0.05},
    ],
    "queries": [{"client": 0, "servers": [1, 2, 3], "response_bytes": 20000, "rounds": 1000, "start_s": 0.002}],
}

I, F, S, B = "int64", "float64", "str", "bool"  # noqa: E741 (the dtypes' initials)
DTYPES = {
    "flows": {
        "id": I, "workload": F, "generator": F, "class": I, "size_bytes": I, "src": I, "dst": I,
        "cc": S, "start_s": F, "established_s": F, "setup_s": F, "failed": B, "completion_s": F, "fct_s": F, "ideal_fct_s": F,
        "slowdown": F, "bytes_delivered": I, "goodput_bps": F, "data_packets_sent": I,
        "retransmits": I, "fast_retransmits": I, "timeouts": I, "spurious_timeouts": I, "syn_retries": I,
        "tail_loss_probes": I, "retransmits_after_warmup": I, "timeouts_after_warmup": I,
        "ecn_reductions": I, "ece_acks": I, "final_cwnd_bytes": F, "final_alpha": F, "srtt_s": F,
        "rcv_buffer_bytes": I,
    },
    "ports": {
        "name": S, "node": S, "peer": S, "is_switch": B, "rate_bps": F, "arrived_packets": I,
        "enqueued_packets": I, "sent_packets": I, "sent_bytes": I, "drops_buffer": I,
        "drops_pool": I, "drops_aqm": I, "drops_dequeue": I, "drops_nonect": I, "drops_syn": I,
        "drops_ack": I, "drops_retransmit": I, "marks": I, "drops_after_warmup": I,
        "marks_after_warmup": I, "queued_at_end": I,
        "max_packets": I, "max_bytes": I, "mean_packets": F, "mean_bytes": F, "utilization": F,
    },
    "classes": {
        "port": I, "class": I, "arrived_packets": I, "enqueued_packets": I, "sent_packets": I,
        "sent_bytes": I, "drops_buffer": I, "drops_aqm": I, "marks": I, "max_packets": I,
        "port_name": S,
    },
    "switches": {"name": S, "shared_bytes": I, "alpha": F, "max_used_bytes": I},
    "queue_occupancy": {"port": I, "port_name": S, "packets": I, "seconds": F},
    "queue_samples": {"port": I, "t_s": F, "packets": I, "bytes": I, "port_name": S},
    "queries": {
        "workload": I, "query": I, "client": I, "servers": I, "issued_s": F, "completed_s": F,
        "qct_s": F, "response_bytes": I, "timeouts": I, "spurious_timeouts": I,
    },
    "pool_samples": {"switch": I, "t_s": F, "bytes": I, "switch_name": S},
    "flow_samples": {
        "flow": I, "t_s": F, "delivered_bytes": I, "cwnd_bytes": F, "alpha": F, "rcv_buffer_bytes": I,
        "ictcp_rwnd_bytes": F, "ictcp_measured_bps": F, "ictcp_expected_bps": F, "ictcp_rtt_s": F,
    },
    "ictcp_samples": {"host": I, "t_s": F, "bw_t_bps": F, "bw_a_bps": F, "quota_bps": F, "subslot_s": F},
    "udp": {
        "id": I, "src": I, "dst": I, "class": I, "echo": B, "rate_bps": F, "packet_bytes": I,
        "sent_packets": I, "received_packets": I, "dropped_packets": I, "replies": I,
        "echoes_dropped": I, "send_rate_bps": F, "receive_rate_bps": F,
    },
    "probes": {"udp": I, "t_s": F, "rtt_s": F},
    "trace": {
        "view": S, "t_s": F, "port": I, "event": S, "flow": I, "from_end": I, "src": I, "dst": I,
        "flags": I, "ecn": I, "seq": I, "ack": I, "rwnd": I, "len": I, "size": I, "port_name": S,
        "sack": "object",
    },
}  # fmt: skip


@pytest.fixture(scope="module")
def reference() -> dcsim.Results:
    return dcsim.run(REFERENCE)


def _summary(results: dcsim.Results) -> dict:
    summary = results.summary()
    del summary["wall_seconds"]
    return summary


def test_summary_is_what_it_was_when_results_were_json(reference: dcsim.Results) -> None:
    expected = json.loads(REFERENCE_SUMMARY.read_text())
    summary = _summary(reference)
    assert list(summary) == list(expected)
    for key, value in expected.items():
        assert summary[key] == value, key
    # Same text, so also the same types (1 is not 1.0) and NaN as null.
    assert json.dumps(summary, allow_nan=False) == json.dumps(expected)


def drops(ports: pd.DataFrame) -> pd.Series:
    """Every port's drops of every cause."""
    return ports.drops_buffer + ports.drops_pool + ports.drops_aqm


def test_counters_after_the_warmup_are_the_whole_runs_minus_those_at_its_end() -> None:
    # An incast of 12 x 64 KB into a 40-packet port (TCP, RTO_min 10 ms, queries every round)
    # drops, marks nothing, retransmits and times out throughout. The run is deterministic, so
    # the same scenario cut off at the warm-up's end has exactly the counts the warm-up
    # leaves behind: the measurement window's counts are the whole run's minus those.
    warmup = 0.0503
    sc = star(13) | {
        "sim": {"duration_s": 0.2, "warmup_s": warmup, "seed": 3},
        "switch": {"buffer": {"kind": "per_port", "limit_packets": 40}},
        "tcp": {"rto_min_ms": 10.0},
        "queries": [{"client": 0, "servers": list(range(1, 13)), "response_bytes": 64_000, "rounds": 40}],
        "measure": {"queue_sample_us": 0.0},
    }
    full = dcsim.run(sc)
    cut = dcsim.run(sc | {"sim": {"duration_s": warmup, "seed": 3}})
    ports, before = full.ports, cut.ports
    assert drops(before).sum() > 0 and drops(ports).sum() > drops(before).sum(), "drops on both sides"
    assert (ports.drops_after_warmup == drops(ports) - drops(before)).all()
    assert (ports.marks_after_warmup == ports.marks - before.marks).all()
    flows, fb = full.flows, cut.flows
    assert fb.timeouts.sum() > 0 and flows.timeouts.sum() > fb.timeouts.sum(), "timeouts on both sides"
    assert (flows.timeouts_after_warmup == flows.timeouts - fb.timeouts).all()
    assert (flows.retransmits_after_warmup == flows.retransmits - fb.retransmits).all()
    summary = full.summary()
    for name in ("drops", "marks", "timeouts", "retransmits"):
        assert summary[f"{name}_after_warmup"] < summary[name] or name == "marks", name
    # Without a warm-up the window is the whole run.
    whole = dcsim.run(sc | {"sim": {"duration_s": 0.2, "seed": 3}})
    assert (whole.flows.timeouts_after_warmup == whole.flows.timeouts).all()
    assert (whole.ports.drops_after_warmup == drops(whole.ports)).all()


def test_spurious_timeouts_are_counted_per_flow_per_query_and_in_the_summary() -> None:
    # 16 servers answer one segment each over 10 Mb/s links into a port that never drops:
    # 16 x 1.23 ms of queue, so the later servers' RTOs (RTO_min 10 ms) fire while their
    # segment is still queued. Nothing is lost, so every timeout is spurious (the first ACK
    # after it echoes the original's timestamp, RFC 3522): every query timed out, none lost.
    sc = star(17, rate_gbps=0.01, delay_us=10.0) | {
        "sim": {"duration_s": 2.0, "stop_when_queries_done": True, "seed": 1},
        "switch": {"buffer": {"kind": "per_port", "limit_packets": 1000}},
        "tcp": {"rto_min_ms": 10.0, "delayed_ack_segments": 1},
        "queries": [{"client": 0, "servers": list(range(1, 17)), "response_bytes": 1460, "rounds": 3, "start_s": 0.001}],
        "measure": {"queue_sample_us": 0.0},
    }
    results = dcsim.run(sc)
    flows, queries = results.flows, results.queries
    assert drops(results.ports).sum() == 0
    assert flows.timeouts.sum() > 0
    assert (flows.spurious_timeouts == flows.timeouts).all()
    assert (queries.timeouts > 0).all() and (queries.spurious_timeouts == queries.timeouts).all()
    summary = results.summary()
    assert summary["spurious_timeouts"] == summary["timeouts"] == int(flows.timeouts.sum())
    assert list(summary).index("spurious_timeouts") == list(summary).index("timeouts") + 1
    assert summary["queries"]["fraction_with_timeout"] == 1.0
    assert summary["queries"]["fraction_with_loss_timeout"] == 0.0
    # The same queries with a 4-packet port: losses, so some timeouts were needed; the
    # fractions still agree with the table.
    lossy = dcsim.run(sc | {"switch": {"buffer": {"kind": "per_port", "limit_packets": 4}}})
    q = lossy.queries
    assert drops(lossy.ports).sum() > 0
    assert (q.spurious_timeouts <= q.timeouts).all()
    s = lossy.summary()
    assert s["spurious_timeouts"] == int(lossy.flows.spurious_timeouts.sum()) <= s["timeouts"]
    done = q[q.qct_s.notna()]
    assert s["queries"]["fraction_with_timeout"] == (done.timeouts > 0).mean()
    assert s["queries"]["fraction_with_loss_timeout"] == (done.timeouts > done.spurious_timeouts).mean()
    assert s["queries"]["fraction_with_loss_timeout"] > 0


def test_tables_have_their_columns_and_dtypes(reference: dcsim.Results) -> None:
    for table, dtypes in DTYPES.items():
        frame = getattr(reference, table)
        assert {c: str(t) for c, t in frame.dtypes.items()} == dtypes, table
        # The reference has no class queues and no UDP sources (see the next test).
        assert len(frame) > 0 or table in ("classes", "udp", "probes"), table


def test_udp_tables_have_their_columns_and_dtypes(small: dict) -> None:
    # An echoed UDP source beside the small scenario's flows: one row per source, one per echo.
    results = dcsim.run(small | {"udp": [{"src": 1, "dst": 0, "rate_gbps": 0.01, "echo": True}]})
    for table in ("udp", "probes"):
        frame = getattr(results, table)
        assert {c: str(t) for c, t in frame.dtypes.items()} == DTYPES[table], table
    assert len(results.udp) == 1 and len(results.probes) == results.udp.replies[0] > 0
    assert results.summary()["udp"][0]["sent_packets"] == results.udp.sent_packets[0]


def test_classes_table_adds_up_to_its_ports(small: dict) -> None:
    # Two class queues per switch port, by packet type: every class row belongs to a switch
    # port, and the port's arrivals and buffer drops are its classes' sums.
    classes = {
        "scheduler": "strict_priority",
        "classify": {"by": "packet_type", "syn": 0, "ack": 0, "data": 1},
        "queues": [{}, {"limit_packets": 10}],
    }
    results = dcsim.run(small | {"switch": small.get("switch", {}) | {"classes": classes}})
    frame, ports = results.classes, results.ports
    assert {c: str(t) for c, t in frame.dtypes.items()} == DTYPES["classes"]
    assert len(frame) == 2 * int(ports["is_switch"].sum())
    assert frame["port_name"].tolist() == ports["name"][frame["port"]].tolist()
    sums = frame.groupby("port")[["arrived_packets", "drops_buffer"]].sum()
    assert sums["arrived_packets"].tolist() == ports["arrived_packets"][sums.index].tolist()
    assert sums["drops_buffer"].tolist() == ports["drops_buffer"][sums.index].tolist()
    assert frame["sent_packets"].sum() > 0


def test_columns_write_the_csv_their_frames_write(reference: dcsim.Results, small: dict, tmp_path: Path) -> None:
    """`dcsim run` writes its tables from `Results.columns`, without pandas: the same columns
    as the frames, and the same bytes as `DataFrame.to_csv`, full and empty, with and without
    labels, UDP and class queues."""
    classes = {"scheduler": "strict_priority", "classify": {"by": "packet_type", "syn": 0, "ack": 0, "data": 1}, "queues": [{}, {}]}
    runs = [
        reference,
        dcsim.run(small | {"udp": [{"src": 1, "dst": 0, "rate_gbps": 0.01, "echo": True}]}),
        dcsim.run(small | {"switch": small.get("switch", {}) | {"classes": classes}}),
        dcsim.run(small | {"measure": {"queue_sample_us": 0.0}}),
    ]
    filled = set()
    for results in runs:
        for name in COLUMN_TABLES:
            frame, columns = getattr(results, name), results.columns(name)
            assert list(columns) == list(frame.columns), name
            write_columns_csv(tmp_path / "ours.csv", columns)
            assert (tmp_path / "ours.csv").read_text() == frame.to_csv(index=False), name
            filled |= {name} if len(frame) else set()
    assert filled == set(COLUMN_TABLES)
    # Cells that quoting, NaN, infinities, signed zeros and large numbers would tell apart.
    odd = {
        "text": np.array(["a,b", 'say "hi"', "line\nbreak", ""], dtype=object),
        "real": np.array([np.nan, np.inf, -0.0, 1e-7]),
        "whole": np.array([0, 2**62, 7, 1], dtype=np.uint64).astype(np.int64),
        "flag": np.array([True, False, True, False]),
    }
    write_columns_csv(tmp_path / "odd.csv", odd)
    assert (tmp_path / "odd.csv").read_text() == pd.DataFrame(odd).to_csv(index=False)
    with pytest.raises(ValueError, match="no table 'trace'"):
        reference.columns("trace")


def test_empty_tables_have_the_same_columns_and_dtypes(small: dict) -> None:
    results = dcsim.run(small | {"measure": {"queue_sample_us": 0.0}})
    tables = ("classes", "queries", "queue_samples", "pool_samples", "flow_samples", "ictcp_samples", "trace")
    for table in tables:
        frame = getattr(results, table)
        assert len(frame) == 0
        assert {c: str(t) for c, t in frame.dtypes.items()} == DTYPES[table], table


def test_table_lengths_follow_the_scenario(reference: dcsim.Results) -> None:
    r, window = reference, REFERENCE["sim"]["duration_s"]
    assert len(r.ports) == 10 and len(r.switches) == 1
    assert len(r.flows) == 4 + 3  # the bulk flows, then one connection per query server
    assert r.flows["workload"].isna().tolist() == [True] * 4 + [False] * 3
    samples = round(window / 500e-6) + 1  # t = 0, 0.5 ms, ..., 30 ms
    assert len(r.queue_samples) == 5 * samples  # every switch port
    assert len(r.pool_samples) == samples
    flow_samples = round(window / 1e-3) + 1
    assert len(r.flow_samples) == 7 * flow_samples
    assert len(r.ictcp_samples) == flow_samples  # one ICTCP host
    # The histograms cover the whole window, port by port.
    per_port = r.queue_occupancy.groupby("port")["seconds"].sum()
    assert per_port.to_numpy() == pytest.approx([window] * 10, rel=1e-9)


def test_tables_agree_with_the_engine_counters(reference: dcsim.Results) -> None:
    r, c = reference, reference.conservation
    assert c["injected"] == c["delivered"] + c["dropped"] + c["in_flight"]
    ports = r.ports
    assert c["dropped"] == (ports.drops_buffer + ports.drops_pool + ports.drops_aqm).sum()
    # The traced port's records: each packet it sent (recorded as it comes off the 25 µs
    # link, which holds at most 3 at the end), each it refused.
    port = ports.set_index("name").loc["s0->h0"]
    mine = r.trace[r.trace.view == "port"]
    assert set(mine.port_name) == {"s0->h0"}
    assert 0 <= port.sent_packets - (mine.event == "tx").sum() <= 3
    assert (mine.event == "drop").sum() == port.drops_buffer + port.drops_pool + port.drops_aqm
    assert r.trace.t_s.is_monotonic_increasing
    # Queries: 25 issued, the last one cut off by the end of the run.
    q = r.queries
    assert q.qct_s.to_numpy() == pytest.approx((q.completed_s - q.issued_s).to_numpy(), nan_ok=True)
    assert q.qct_s.isna().tolist() == [False] * (len(q) - 1) + [True]


def test_a_short_transfer_by_hand(small: dict) -> None:
    # 10 segments of 1460 B from h1 to h0 on an idle 1 Gb/s star, traced at h1.
    scenario = star(2) | {
        "sim": {"duration_s": 0.01},
        "measure": {"queue_sample_us": 1000.0, "trace_flows": [0]},
        "flows": [{"src": 1, "dst": 0, "bytes": 14600}],
    }
    r = dcsim.run(scenario)
    (flow,) = r.summary()["flows"]
    assert flow["bytes_delivered"] == 14600 and flow["data_packets_sent"] == 10
    assert flow["workload"] is None and flow["final_alpha"] is None  # NaN: not DCTCP
    sent = r.trace[(r.trace.event == "tx") & (r.trace.len > 0)]
    assert sent.seq.tolist() == [1 + 1460 * k for k in range(10)]  # the SYN took number 0
    assert set(sent["size"]) == {1500} and set(sent.port_name) == {"h1->s0"}
    assert r.trace["flags"].iloc[0] == 1 and r.trace.sack.map(len).sum() == 0  # a SYN first; no loss
    assert r.trace.sack.iloc[0] == [] and r.trace.sack.iloc[0] is not r.trace.sack.iloc[1]
    acks = r.trace[r.trace.event == "rx"]
    assert acks.ack.iloc[-1] == 14601
    # Both switch ports sampled at 0, 1, ..., 10 ms.
    assert len(r.queue_samples) == 11  # the one port on the data path, s0->h0
    assert r.conservation["in_flight"] == 0 and r.conservation["dropped"] == 0


def test_raw_is_numpy_and_pickles(reference: dcsim.Results) -> None:
    raw = reference.raw
    tables = {k: v for k, v in raw.items() if isinstance(v, dict) and k != "conservation"}
    assert set(tables) == set(DTYPES)
    for name, table in tables.items():
        assert all(isinstance(values, np.ndarray) for values in table.values()), name
        assert len({len(values) for values in table.values()}) == 1, name
    again = pickle.loads(pickle.dumps(raw, protocol=pickle.HIGHEST_PROTOCOL))
    assert _summary(dcsim.Results(again)) == _summary(reference)
    assert dcsim.Results(again).trace.equals(reference.trace)


def test_editing_a_table_leaves_the_results_alone(small: dict) -> None:
    r = dcsim.run(small)
    before = r.summary()
    r.ports.loc[:, "marks"] = -1
    r.ports.loc[0, "mean_packets"] = -1.0
    r.queue_samples.loc[0, "t_s"] = -1.0
    assert r.summary() == before
    assert dcsim.Results(r.raw).queue_samples.t_s.iloc[0] == 0.0


if __name__ == "__main__":
    summary = _summary(dcsim.run(REFERENCE))
    REFERENCE_SUMMARY.write_text(json.dumps(summary, indent=1, allow_nan=False) + "\n")
    print(f"wrote {REFERENCE_SUMMARY}")
