"""What the experiments on the DCTCP paper's benchmark traffic share (§4.3: Figs. 22-24 and its
further scaling; §2.3: the production observations of Figs. 7-9, rerun on it): their runs,
declared once, and the reading of those runs.

The traffic is :func:`dcsim.workloads.dctcp_benchmark`: 45 servers on a Triumph at 1 Gbps
and a stand-in for the rest of the datacenter on a 10 Gbps port, each server aggregating
Poisson queries from the 44 others (2 KB responses) beside Poisson background flows with
web-search sizes, 20% of them inter-rack. Every choice the paper leaves open is made there
once; the testbed's stack, links and switch buffer are laid over it, and the experiments
differ only in protocol, switch, RTO_min, jitter and scaling.

Protocols (§4.3): TCP = NewReno with SACK over the Triumph's drop-tail shared buffer; DCTCP
with K = 20 on the 1 Gbps ports and 65 on the 10 Gbps one; and, for the scaled benchmark,
TCP on the deep-buffered CAT4948 and TCP with RED-ECN on the Triumph ("min_th = 20,
max_th = 60 and using [7] for the remaining parameters": max_p 0.1, w_q = 2^-9).

Measurement window: flows and queries that start in [warm-up, end of arrivals); the run
goes on for a drain period so that they can finish (those that do not are counted).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ... import workloads as wl
from ...results import Results
from ..declarations import Params, Testbed
from ..scenarios import DROP_TAIL, red
from ..units import mbps, ms

if TYPE_CHECKING:
    import pandas as pd

# "CAT4948 does not support ECN" (footnote 12): TCP over drop-tail on its 16 MB.
CAT4948: dict[str, Any] = {"kind": "preset", "name": "cat4948"}
# protocol -> (congestion control (None: the stack's TCP, NewReno on the paper's hosts),
# switch buffer (None: the testbed's), AQM)
PROTOCOLS: dict[str, tuple[str | None, dict[str, Any] | None, dict[str, Any]]] = {
    "TCP": (None, None, DROP_TAIL),
    # No k_packets: the engine's default is the paper's K by line rate (§3.5): 20 at 1 Gbps,
    # 65 on the 10 Gbps port.
    "DCTCP": ("dctcp", None, {"kind": "threshold"}),
    "TCP CAT4948": (None, CAT4948, DROP_TAIL),
    # RED with ECN marks ECT packets: TCP with RFC 3168 ECN.
    "TCP RED": ("tcp_ecn", None, red(20, 60)),
}
COLORS = {"TCP": "tab:red", "DCTCP": "tab:blue", "TCP CAT4948": "tab:green", "TCP RED": "tab:orange"}

# §4.3: "RTO_min set to 10ms" for TCP and DCTCP in the benchmark.
RTO_MIN_MS = 10.0
# DCTCP §2.3.2: "In our network stack, the RTO_min is set to 300ms" (production, Figs. 7-8).
PRODUCTION_RTO_MIN_MS = 300.0
# "Forwarded requests were jittered (deliberately delayed) over a 10ms window" (Fig. 8
# caption): uniform over [0, 10 ms]. §2.3.2 says instead "typically a mean value of 10ms";
# the caption is the figure's own setting.
PRODUCTION_JITTER_US = 10_000.0

# Full segments' payload and TCP/IP headers: with the testbed's framing, what a segment takes
# on the wire.
MSS = 1460
HEADER_BYTES = 40

# Short messages: "flows from 100KB-1MB" (§4.3).
SHORT_MESSAGES = (100e3, 1e6)
# The aggregator whose connections are traced (Figs. 7 and 9).
TRACED_AGGREGATOR = 0

# Durations, seconds of arrivals. The paper's benchmark ran 10 minutes. The scaled (10x)
# benchmark and the sweeps load the links 5-10 times more, so their full runs are 2 minutes
# (≈ 37,000 queries and 7,500 short messages each, against 188,000 and 30,000 in 10).
SCALES: dict[str, Params] = {
    "smoke": {"duration_s": 1.0, "scaled_duration_s": 1.0, "warmup_s": 0.2},
    "quick": {"duration_s": 10.0, "scaled_duration_s": 5.0, "warmup_s": 1.0},
    "full": {"duration_s": 600.0, "scaled_duration_s": 120.0, "warmup_s": 10.0},
}
# After the arrivals stop, time for what started in the window to finish (a 29 MB update
# flow alone needs 0.25 s at 1 Gbps; scaled, 2.5 s).
DRAIN_S = 1.0
SCALED_DRAIN_S = 3.0


def slug(label: str) -> str:
    return label.lower().replace(" ", "-")


def scenario(
    protocol: str,
    p: Params,
    tb: Testbed,
    *,
    scaled: bool = False,
    rate_multiplier: float = 1.0,
    size_multiplier: float = 1.0,
    background_multiplier: float = 1.0,
    ect_on_control: bool = False,
    rto_min_ms: float | None = None,
    jitter_us: float = 0.0,
    trace: bool = False,
    ideal_fct: bool = False,
    seed: int = 1,
) -> dict[str, Any]:
    """The benchmark under ``protocol`` (a key of :data:`PROTOCOLS`) at the scale's parameters
    ``p`` on ``tb``: RTO_min 10 ms (§4.3) unless ``rto_min_ms`` says otherwise. ``trace``: the
    connections of aggregator 0's queries are traced at their servers. Every argument left at
    its default gives the same scenario, so experiments that share runs share them through the
    run cache. ``background_multiplier`` scales the background flows' rate only;
    ``ect_on_control`` sends every packet ECT, SYNs, pure ACKs and retransmissions too.
    ``ideal_fct``: each finished flow is also run alone on the idle network, for its slowdown;
    that nearly doubles a run's work, and only the baseline's runs report slowdown (Fig. 22's
    table), so the other runs leave it off."""
    heavy = scaled or rate_multiplier > 1 or size_multiplier > 1
    sc = wl.dctcp_benchmark(
        p["scaled_duration_s"] if heavy else p["duration_s"],
        scaled=scaled,
        rate_multiplier=rate_multiplier,
        size_multiplier=size_multiplier,
        background_rate_multiplier=background_multiplier,
        drain_s=SCALED_DRAIN_S if heavy else DRAIN_S,
        response_jitter_us=jitter_us,
        seed=seed,
    )
    cc, buffer, aqm = PROTOCOLS[protocol]
    topo = sc["topology"]
    host_rate = float(topo["host_link"]["rate_gbps"])
    topo["host_link"] = tb.link_at(host_rate)
    topo["uplink"] = tb.link_at(topo["uplink"]["rate_gbps"])
    sc["host"] = tb.host_at(host_rate)
    sc["tcp"] = tb.tcp_for(cc, rto_min_ms=RTO_MIN_MS if rto_min_ms is None else float(rto_min_ms))
    if ect_on_control:
        sc["tcp"]["ect_on_control"] = "all"
    sc["switch"] = {"buffer": dict(buffer or tb.buffer(host_rate)), "aqm": dict(aqm)}
    sc["sim"]["warmup_s"] = p["warmup_s"]
    if trace:
        sc["measure"]["trace_queries"] = [TRACED_AGGREGATOR]
    sc["measure"]["ideal_fct"] = ideal_fct
    parts = [sc["name"], slug(protocol)]
    if rate_multiplier != 1:
        parts.append(f"rate{rate_multiplier:g}x")
    if size_multiplier != 1:
        parts.append(f"size{size_multiplier:g}x")
    if background_multiplier != 1:
        parts.append(f"background{background_multiplier:.3g}x")
    if ect_on_control:
        parts.append("ect-all")
    if rto_min_ms is not None:
        parts.append(f"rto{rto_min_ms:g}")
    if jitter_us:
        parts.append(f"jitter{jitter_us / 1e3:g}ms")
    sc["name"] = "-".join(parts)
    return sc


# --- runs shared by several figures -------------------------------------------------------


def baseline_runs(p: Params, tb: Testbed) -> dict[str, dict[str, Any]]:
    """The benchmark as the paper ran it (§4.3), TCP and DCTCP, RTO_min 10 ms, with aggregator
    0's queries traced: the runs of DCTCP Figs. 22, 23 and 9 (one simulation each, shared
    through the cache)."""
    return {proto: scenario(proto, p, tb, trace=True, ideal_fct=True) for proto in ("TCP", "DCTCP")}


def scaled_runs(p: Params, tb: Testbed) -> dict[str, dict[str, Any]]:
    """The 10x scaled benchmark (§4.3 "Scaled traffic") in its four configurations (Fig. 24)."""
    return {proto: scenario(proto, p, tb, scaled=True) for proto in PROTOCOLS}


# The benchmark at other loads (Figs. 22-24 by load): "over 200,000 background flows" with
# the web-search sizes pins the load only within a factor of several, so each figure is also
# run, TCP and DCTCP, with the background flows' rate scaled so that the traffic offers about
# 20% and 45% of each rack link (the baseline offers 8.7%, the 10x scaled one 89%; the runs
# report what they offer). level -> background rate multiplier, unscaled and scaled.
LOAD_LEVELS: dict[str, dict[bool, float]] = {
    "~20%": {False: 2.3, True: 1.0 / 6.0},
    "~45%": {False: 5.2, True: 0.5},
}
LOAD_PROTOCOLS = ("TCP", "DCTCP")


def load_runs(p: Params, tb: Testbed, *, scaled: bool) -> dict[tuple[str, str], dict[str, Any]]:
    """``(level, protocol)`` → the benchmark (scaled or not) with its background rate set for
    that load level (:data:`LOAD_LEVELS`), TCP and DCTCP."""
    return {
        (level, proto): scenario(proto, p, tb, scaled=scaled, background_multiplier=mult[scaled])
        for level, mult in LOAD_LEVELS.items()
        for proto in LOAD_PROTOCOLS
    }


def load_row(level: str, proto: str, res: Results, sc: dict[str, Any]) -> dict[str, Any]:
    """One run of a load table: the load it offers, its short messages and its queries."""
    st, qt = short_message_stats(res, sc), query_stats(res, sc)
    return {
        "load_level": level,
        "protocol": proto,
        "offered_load": offered_load(res, sc),
        "short_mean_ms": st["mean_ms"],
        "short_p95_ms": st["p95_ms"],
        "query_p95_ms": qt["p95_ms"],
        "query_p99.9_ms": qt["p99.9_ms"],
        "query_timeout_fraction": qt["timeout_fraction"],
    }


def load_table(runs: Any, own_level: str, own: dict[str, Any]) -> pd.DataFrame:
    """One row per run of an experiment at each load: its own runs (protocol → run key, at
    ``own_level``) and its :func:`load_runs` (keys ``(level, protocol)``)."""
    import pandas as pd

    keys = [(own_level, proto, key) for proto, key in own.items()]
    keys += [(k[0], k[1], k) for k in runs if isinstance(k, tuple) and k[0] in LOAD_LEVELS]
    return pd.DataFrame([load_row(level, proto, runs[key], runs.scenario(key)) for level, proto, key in keys])


def load_published(table: pd.DataFrame, figure: str, paper: str) -> dict[str, Any]:
    """A load table as the report shows it: TCP against DCTCP at each load, the paper's reading
    of ``figure`` beside."""
    rows = []
    for level, g in table.groupby("load_level", sort=False):
        t, d = (g[g.protocol == proto].iloc[0] for proto in LOAD_PROTOCOLS)
        rows.append(
            [
                f"{level} (offers {100 * t.offered_load:.1f}%)",
                f"{t.short_mean_ms:.1f} / {d.short_mean_ms:.1f}",
                f"{t.short_p95_ms:.1f} / {d.short_p95_ms:.1f}",
                f"{t.query_p95_ms:.1f} / {d.query_p95_ms:.1f}",
                f"{100 * t.query_timeout_fraction:.2f}% / {100 * d.query_timeout_fraction:.2f}%",
            ]
        )
    return {
        "title": f"{figure} at other loads (TCP / DCTCP; the paper's reading: {paper})",
        "columns": ["load", "short messages mean (ms)", "short messages p95 (ms)", "queries p95 (ms)", "queries with a timeout"],
        "rows": rows,
    }


def production_runs(p: Params, tb: Testbed) -> dict[str, dict[str, Any]]:
    """The benchmark with the production stack (TCP, RTO_min 300 ms, §2.3.2), responses
    jittered over 10 ms or not, aggregator 0 traced: the runs of DCTCP Figs. 7 and 8."""
    return {
        label: scenario("TCP", p, tb, rto_min_ms=PRODUCTION_RTO_MIN_MS, jitter_us=jitter, trace=True)
        for label, jitter in (("jitter on", PRODUCTION_JITTER_US), ("jitter off", 0.0))
    }


# --- reading a run --------------------------------------------------------------------------


def window(sc: dict[str, Any]) -> tuple[float, float]:
    """The measurement window of a benchmark scenario: [warm-up, end of arrivals) (of any
    other scenario: the whole run)."""
    sim = sc.get("sim", {})
    stops = [g["stop_s"] for g in sc.get("traffic", []) if "stop_s" in g]
    return float(sim.get("warmup_s", 0.0)), float(stops[0] if stops else sim.get("duration_s", 1.0))


def background(res: Results, sc: dict[str, Any]) -> pd.DataFrame:
    """The background flows (short messages and updates) that started in the window."""
    t0, t1 = window(sc)
    f = res.flows
    return f[f["generator"].notna() & (f["start_s"] >= t0) & (f["start_s"] < t1)]


def short_messages(flows: pd.DataFrame) -> pd.DataFrame:
    lo, hi = SHORT_MESSAGES
    return flows[(flows["size_bytes"] >= lo) & (flows["size_bytes"] < hi)]


def fct_table(res: Results, sc: dict[str, Any]) -> pd.DataFrame:
    """Completion-time statistics of the window's background flows per size bucket (the
    DCTCP Fig. 22 buckets), times in ms."""
    table = wl.fct_stats(background(res, sc))
    for col in [k for k in table.columns if k.endswith("_fct_s")]:
        table[col.replace("_fct_s", "_fct_ms")] = ms(table.pop(col))
    return table


def short_message_stats(res: Results, sc: dict[str, Any]) -> dict[str, Any]:
    """Short messages (100 KB-1 MB): count, finished, mean and p95 completion time (ms),
    and how many had a retransmission timeout and how many had to resend their SYN."""
    f = short_messages(background(res, sc))
    done = ms(f["fct_s"].dropna())
    return {
        "messages": len(f),
        "finished": len(done),
        "mean_ms": float(done.mean()) if len(done) else math.nan,
        "p95_ms": float(np.percentile(done, 95)) if len(done) else math.nan,
        "timeouts": int((f["timeouts"] > 0).sum()),
        "syn_retries": int((f["syn_retries"] > 0).sum()),
    }


def queries(res: Results, sc: dict[str, Any]) -> pd.DataFrame:
    """The queries issued in the window."""
    t0, t1 = window(sc)
    q = res.queries
    return q[(q["issued_s"] >= t0) & (q["issued_s"] < t1)]


def query_stats(res: Results, sc: dict[str, Any]) -> dict[str, Any]:
    """:func:`stats_of_queries` of the window's queries."""
    return stats_of_queries(queries(res, sc))


def stats_of_queries(q: pd.DataFrame) -> dict[str, Any]:
    """Issued, completed, completion-time statistics (ms) and the fraction with at least one
    timeout. A query unfinished at the end of the run counts as timed out and as infinitely
    slow in the percentiles (the mean is of the finished ones)."""
    qct = ms(q["qct_s"].to_numpy(dtype=float))
    done = qct[np.isfinite(qct)]
    nan = math.nan
    out: dict[str, Any] = {"issued": len(q), "completed": len(done)}
    out["mean_ms"] = float(done.mean()) if len(done) else nan
    ranked = np.where(np.isfinite(qct), qct, np.inf)
    for p in (50, 95, 99, 99.9):
        # The empirical quantile (the smallest value with at least p% at or below it), so
        # that an unfinished query shows as soon as it is among the slowest p%.
        out[f"p{p:g}_ms"] = float(np.percentile(ranked, p, method="inverted_cdf")) if len(q) else nan
    timed_out = (q["timeouts"] > 0) | q["qct_s"].isna()
    out["timeout_fraction"] = float(timed_out.mean()) if len(q) else nan
    return out


def background_timeouts(res: Results, sc: dict[str, Any]) -> dict[str, Any]:
    """Background flows in the window and those with a retransmission timeout: how many,
    their median size, their mean retransmissions, and the share sent by the stand-in."""
    f = background(res, sc)
    hit = f[f["timeouts"] > 0]
    stand_in = int(sc["topology"]["hosts"])
    return {
        "flows": len(f),
        "with_timeouts": len(hit),
        "median_bytes": float(hit["size_bytes"].median()) if len(hit) else math.nan,
        "mean_retransmits": float(hit["retransmits"].mean()) if len(hit) else math.nan,
        "from_stand_in": float((hit["src"] == stand_in).mean()) if len(hit) else math.nan,
    }


def wire_bytes(sc: dict[str, Any], payload_bytes: int) -> int:
    """Bytes on the rack hosts' links of a ``payload_bytes`` message in full segments: each
    segment's headers and the framing of the links of ``sc`` (2,156 B for a 2,000-B response
    with Ethernet's 38 B: a 1,538-B and a 618-B frame)."""
    framing = int(sc["topology"]["host_link"]["framing_bytes"])
    return payload_bytes + math.ceil(payload_bytes / MSS) * (HEADER_BYTES + framing)


def offered_load(res: Results, sc: dict[str, Any]) -> float:
    """The load the window's traffic offers the rack hosts' links, as a fraction: the bytes of
    background flows to rack hosts, and of the queries' requests and responses, on the wire
    (a full frame per 1460-B segment: 1538 B with Ethernet's framing), over the window and
    the links (45 at 1 Gbps), at the rate and framing of the links of ``sc``."""
    t0, t1 = window(sc)
    n = int(sc["topology"]["hosts"])
    f = background(res, sc)
    into_rack = float(f.loc[f["dst"] < n, "size_bytes"].sum())
    for w, q in queries(res, sc).groupby("workload"):
        spec = sc["queries"][int(w)]
        into_rack += len(q) * len(spec["servers"]) * (spec["request_bytes"] + spec["response_bytes"])
    link = sc["topology"]["host_link"]
    rate = float(link["rate_gbps"]) * 1e9
    return into_rack * (MSS + HEADER_BYTES + int(link["framing_bytes"])) / MSS * 8 / ((t1 - t0) * n * rate)


def rack_ports(res: Results) -> dict[str, int]:
    """The switch's shared memory at its fullest, and the drops at the ports to the rack
    hosts (where the requests and responses of queries are lost)."""
    p = res.ports
    rack = p[p["name"].str.fullmatch(r"tor->h\d+") & (p["rate_bps"] <= 1e9)]
    return {
        "max_shared_bytes_used": int(res.switches["max_used_bytes"].max()),
        "rack_port_drops": int((rack["drops_buffer"] + rack["drops_pool"] + rack["drops_aqm"]).sum()),
    }


def first_times(segments: pd.DataFrame, size: int) -> pd.DataFrame:
    """For byte stream messages of ``size`` bytes from seq 1 on (the k-th covers [1 + k·size,
    1 + (k+1)·size)): per message k, the first and the last of the times at which a segment
    carrying its bytes was first seen, and whether any of its bytes were seen more than once.
    ``segments``: t_s, seq, len, in time order."""
    import pandas as pd

    seen = segments.assign(again=segments.duplicated("seq"))
    lo = (seen["seq"] - 1) // size
    hi = (seen["seq"] + seen["len"] - 2) // size
    spans = seen.assign(k=[list(range(a, b + 1)) for a, b in zip(lo, hi)]).explode("k")
    first = spans[~spans["again"]].groupby("k")["t_s"]
    return pd.DataFrame({"first_s": first.min(), "last_s": first.max(), "again": spans.groupby("k")["again"].any()})


def responses(res: Results, sc: dict[str, Any]) -> pd.DataFrame:
    """One row per response of the traced aggregator's queries (DCTCP Figs. 7 and 9), from
    the trace at each server (its data sender): ``query`` (the k-th response on a persistent
    connection answers the workload's query k), ``server``, ``request_rx_s`` (the last byte of
    the request reaching the server), ``sent_s`` (its first byte leaving the server's NIC),
    ``acked_s`` (the ACK covering the whole response arriving back), ``retransmitted``
    (some byte of it was sent twice: a loss, recovered by fast retransmit or by a timeout)
    and ``rtt_queue_ms`` = ``acked_s`` − ``sent_s``: the "RTT+Queue" of Fig. 9, "the time
    between the worker sending its response and receiving a TCP ACK from the aggregator"
    (§2.3.3). Byte streams start at seq 1, after the SYN."""
    import pandas as pd

    trace = res.trace
    spec = sc["queries"][TRACED_AGGREGATOR]
    resp_bytes, req_bytes = int(spec["response_bytes"]), int(spec["request_bytes"])
    parts = []
    flows = trace[trace["view"] == "flow"].sort_values("t_s", kind="stable")
    for conn, t in flows.groupby("flow", sort=True):
        sent = t[(t["event"] == "tx") & (t["len"] > 0)]
        got = t[t["event"] == "rx"]
        if sent.empty:
            continue
        out = first_times(sent, resp_bytes).rename(columns={"first_s": "sent_s", "again": "retransmitted"})
        # Only whole responses: the last one may still be under way when the run ends.
        out = out[out.index < (sent["seq"] + sent["len"] - 1).max() // resp_bytes]
        req = first_times(got[got["len"] > 0], req_bytes)
        out["request_rx_s"] = req["last_s"].reindex(out.index)
        acks = got[got["flags"] & 2 != 0]
        ack_t, ack_max = acks["t_s"].to_numpy(), np.maximum.accumulate(acks["ack"].to_numpy())
        ends = 1 + (out.index.to_numpy(dtype=np.int64) + 1) * resp_bytes
        i = np.searchsorted(ack_max, ends, side="left")
        out["acked_s"] = np.where(i < len(ack_t), ack_t[np.minimum(i, len(ack_t) - 1)], np.nan)
        out["server"] = int(sent["src"].iloc[0])
        out["conn"] = int(conn)
        parts.append(out.rename_axis("query").reset_index())
    cols = ["query", "server", "conn", "request_rx_s", "sent_s", "acked_s", "retransmitted", "rtt_queue_ms"]
    if not parts:
        return pd.DataFrame(columns=cols)
    out = pd.concat(parts, ignore_index=True)
    out["query"] = out["query"].astype(int)
    out["rtt_queue_ms"] = ms(out["acked_s"] - out["sent_s"])
    issued = queries(res, sc)
    issued = issued[issued["workload"] == TRACED_AGGREGATOR]
    return out.loc[out["query"].isin(issued["query"]), cols].reset_index(drop=True)


def timeout_causes(res: Results, sc: dict[str, Any]) -> dict[str, int]:
    """What the traced aggregator's timed-out queries lost: a request that reached some
    server only RTO_min or more after the query was issued (lost in that server's port; the
    server cannot see a lost copy, only the late one); else a response that was sent twice
    (lost on its way to the aggregator); else nothing of their own: held up behind an
    earlier query's loss on a shared persistent connection."""
    rto_s = float(sc["tcp"]["rto_min_ms"]) / 1e3
    r = responses(res, sc)
    q = queries(res, sc)
    q = q[(q["workload"] == TRACED_AGGREGATOR) & (q["timeouts"] > 0)]
    issued = dict(zip(q["query"], q["issued_s"]))
    out = {"queries": len(q), "request": 0, "response": 0, "blocked": 0}
    for k, g in r[r["query"].isin(issued)].groupby("query"):
        if (g["request_rx_s"] - issued[k]).max() >= rto_s:
            out["request"] += 1
        elif g["retransmitted"].any():
            out["response"] += 1
        else:
            out["blocked"] += 1
    return out


def under_way(t: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """For each instant of ``t``, how many of the intervals [starts[i], ends[i]) hold it: the
    flows started at or before it and not yet finished."""
    return np.searchsorted(np.sort(starts), t, side="right") - np.searchsorted(np.sort(ends), t, side="right")


def contention(res: Results, sc: dict[str, Any]) -> pd.DataFrame:
    """For each short message of the window: how many update flows (≥ 1 MB) were under way
    to its receiver (``long_at_dst``) and from its sender (``long_at_src``) when it started,
    its completion time and the rate it got (size over completion time, Mb/s)."""
    import pandas as pd

    f = res.flows
    bg = f[f["generator"].notna()]
    long = bg[bg["size_bytes"] >= 1e6]
    end = long["completion_s"].fillna(np.inf)
    sm = short_messages(background(res, sc))

    def active(at: pd.Series, key: str) -> np.ndarray:
        out = np.zeros(len(sm), dtype=int)
        for host, idx in sm.groupby(key).groups.items():
            mine = long[key] == host
            # (A message never counts itself: it is under 1 MB.)
            out[sm.index.get_indexer(idx)] = under_way(at.loc[idx].to_numpy(), long.loc[mine, "start_s"].to_numpy(), end[mine].to_numpy())
        return out

    done = sm["fct_s"]
    return pd.DataFrame(
        {
            "long_at_dst": active(sm["start_s"], "dst"),
            "long_at_src": active(sm["start_s"], "src"),
            "fct_ms": ms(done.to_numpy()),
            "rate_mbps": mbps(sm["size_bytes"] * 8 / done).to_numpy(),
        }
    )


# --- drawing ----------------------------------------------------------------------------------


def bars(ax: Any, groups: list[str], series: dict[str, list[float]], colors: dict[str, str], log: bool = True) -> None:
    """Grouped bars: one group per entry of ``groups``, one bar per series, each labelled
    with its value."""
    n = len(series)
    width = 0.8 / n
    x = np.arange(len(groups))
    for i, (label, values) in enumerate(series.items()):
        pos = x - 0.4 + width * (i + 0.5)
        # An infinite value (a percentile among unfinished queries) gets no bar, a label "∞".
        finite = [v if v is not None and math.isfinite(v) else float("nan") for v in values]
        ax.bar(pos, finite, width=width, color=colors.get(label), label=label)
        for px, v, f in zip(pos, values, finite):
            if math.isfinite(f):
                ax.text(px, f, f"{f:.3g}", ha="center", va="bottom", fontsize=6.5)
            elif v is not None and math.isinf(v):
                # At the foot of the axes, whatever the y scale.
                ax.text(px, 0.01, "∞", ha="center", va="bottom", fontsize=8, transform=ax.get_xaxis_transform())
    ax.set_xticks(x, groups)
    if log:
        ax.set_yscale("log")
