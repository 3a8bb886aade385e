"""Shared parts of the experiments on the DCTCP paper's benchmark traffic (§4.3: Figs. 22-24
and its further scaling; §2.3: the production observations of Figs. 7-9, rerun on it).

The traffic is :func:`dcsim.workloads.dctcp_benchmark`: 45 servers on a Triumph at 1 Gbps
and a stand-in for the rest of the datacenter on a 10 Gbps port, each server aggregating
Poisson queries from the 44 others (2 KB responses) beside Poisson background flows with
web-search sizes, 20% of them inter-rack. Every choice the paper leaves open is made there
once; the experiments below differ only in protocol, switch, RTO_min, jitter and scaling.

Protocols (§4.3): TCP = NewReno with SACK over the Triumph's drop-tail shared buffer; DCTCP
with K = 20 on the 1 Gbps ports and 65 on the 10 Gbps one; and, for the scaled benchmark,
TCP on the deep-buffered CAT4948 and TCP with RED-ECN on the Triumph ("min_th = 20,
max_th = 60 and using [7] for the remaining parameters": max_p 0.1, w_q = 2^-9).

Measurement window: flows and queries that start in [warm-up, end of arrivals); the run
goes on for a drain period so that they can finish (those that do not are counted).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from .. import workloads as wl
from ..results import Results
from . import common as c

# protocol -> (congestion control, switch buffer preset, AQM)
PROTOCOLS: dict[str, tuple[str, str, dict]] = {
    "TCP": ("newreno", "triumph", c.DROP_TAIL),
    # No k_packets: the engine's default is the paper's K by line rate (§3.5): 20 at 1 Gbps,
    # 65 on the 10 Gbps port.
    "DCTCP": ("dctcp", "triumph", {"kind": "threshold"}),
    # "CAT4948 does not support ECN" (footnote 12): TCP over drop-tail, 16 MB.
    "TCP CAT4948": ("newreno", "cat4948", c.DROP_TAIL),
    # RED with ECN marks ECT packets: TCP with RFC 3168 ECN.
    "TCP RED": ("tcp_ecn", "triumph", c.red_aqm(20, 60)),
}
COLORS = {"TCP": "tab:red", "DCTCP": "tab:blue", "TCP CAT4948": "tab:green", "TCP RED": "tab:orange"}

# DCTCP §2.3.2: "Most of the production applications ... use the default 300ms" RTO_min;
# the benchmark itself ran with 10 ms (§4.3).
PRODUCTION_RTO_MIN_MS = 300.0
# "Forwarded requests were jittered (deliberately delayed) over a 10ms window" (Fig. 8).
PRODUCTION_JITTER_US = 10_000.0

# Short messages: "flows from 100KB-1MB" (§4.3).
SHORT_MESSAGES = (100e3, 1e6)
# The aggregator whose connections are traced (Figs. 7 and 9).
TRACED_AGGREGATOR = 0

# Durations, seconds of arrivals. The paper's benchmark ran 10 minutes. The scaled (10x)
# benchmark and the sweeps load the links 5-10 times more, so their full runs are 2 minutes
# (≈ 37,000 queries and 7,500 short messages each, against 188,000 and 30,000 in 10).
SCALES = {
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
    scale: str,
    *,
    scaled: bool = False,
    rate_multiplier: float = 1.0,
    size_multiplier: float = 1.0,
    rto_min_ms: float | None = None,
    jitter_us: float = 0.0,
    trace: bool = False,
    seed: int = 1,
) -> dict:
    """The benchmark under ``protocol`` (a key of :data:`PROTOCOLS`) at ``scale``. ``trace``:
    the connections of aggregator 0's queries are traced at their servers. Every argument
    left at its default gives the same scenario, so experiments that share runs share them
    through the simulation cache."""
    s = c.check_scale(scale, SCALES)
    heavy = scaled or rate_multiplier > 1 or size_multiplier > 1
    duration = s["scaled_duration_s"] if heavy else s["duration_s"]
    sc = wl.dctcp_benchmark(
        duration,
        scaled=scaled,
        rate_multiplier=rate_multiplier,
        size_multiplier=size_multiplier,
        drain_s=SCALED_DRAIN_S if heavy else DRAIN_S,
        response_jitter_us=jitter_us,
        seed=seed,
    )
    cc, preset, aqm = PROTOCOLS[protocol]
    sc["tcp"]["cc"] = cc
    if rto_min_ms is not None:
        sc["tcp"]["rto_min_ms"] = float(rto_min_ms)
    sc["switch"] = {"buffer": {"kind": "preset", "name": preset}, "aqm": dict(aqm)}
    sc["sim"]["warmup_s"] = s["warmup_s"]
    if trace:
        sc["measure"]["trace_queries"] = [TRACED_AGGREGATOR]
    parts = [sc["name"], slug(protocol)]
    if rate_multiplier != 1:
        parts.append(f"rate{rate_multiplier:g}x")
    if size_multiplier != 1:
        parts.append(f"size{size_multiplier:g}x")
    if rto_min_ms is not None:
        parts.append(f"rto{rto_min_ms:g}")
    if jitter_us:
        parts.append(f"jitter{jitter_us / 1e3:g}ms")
    sc["name"] = "-".join(parts)
    return sc


def window(sc: dict) -> tuple[float, float]:
    """The measurement window of a benchmark scenario: [warm-up, end of arrivals) (of any
    other scenario: the whole run)."""
    sim = sc.get("sim", {})
    stops = [g["stop_s"] for g in sc.get("traffic", []) if "stop_s" in g]
    return float(sim.get("warmup_s", 0.0)), float(stops[0] if stops else sim.get("duration_s", 1.0))


# ---------------------------------------------------------------------------------------
# Reading a run
# ---------------------------------------------------------------------------------------


def background(res: dict, sc: dict) -> pd.DataFrame:
    """The background flows (short messages and updates) that started in the window."""
    t0, t1 = window(sc)
    f = Results(c.raw(res)).flows
    return f[f["generator"].notna() & (f["start_s"] >= t0) & (f["start_s"] < t1)]


def short_messages(flows: pd.DataFrame) -> pd.DataFrame:
    lo, hi = SHORT_MESSAGES
    return flows[(flows["size_bytes"] >= lo) & (flows["size_bytes"] < hi)]


def fct_table(res: dict, sc: dict) -> pd.DataFrame:
    """Completion-time statistics of the window's background flows per size bucket (the
    DCTCP Fig. 22 buckets), times in ms."""
    table = wl.fct_stats(background(res, sc))
    for col in [k for k in table.columns if k.endswith("_fct_s")]:
        table[col.replace("_fct_s", "_fct_ms")] = table.pop(col) * 1e3
    return table


def short_message_stats(res: dict, sc: dict) -> dict:
    """Short messages (100 KB-1 MB): count, finished, mean and p95 completion time (ms),
    and how many had a retransmission timeout."""
    f = short_messages(background(res, sc))
    done = f["fct_s"].dropna() * 1e3
    return {
        "messages": len(f),
        "finished": len(done),
        "mean_ms": float(done.mean()) if len(done) else math.nan,
        "p95_ms": float(np.percentile(done, 95)) if len(done) else math.nan,
        "timeouts": int((f["timeouts"] > 0).sum()),
    }


def queries(res: dict, sc: dict) -> pd.DataFrame:
    t0, t1 = window(sc)
    q = Results(c.raw(res)).queries
    return q[(q["issued_s"] >= t0) & (q["issued_s"] < t1)]


def query_stats(res: dict, sc: dict) -> dict:
    """The window's queries: issued, completed, completion-time statistics (ms) and the
    fraction with at least one timeout."""
    q = queries(res, sc)
    done = q["qct_s"].dropna().to_numpy() * 1e3
    nan = math.nan
    out: dict[str, Any] = {"issued": len(q), "completed": len(done)}
    out["mean_ms"] = float(done.mean()) if len(done) else nan
    for p in (50, 95, 99, 99.9):
        out[f"p{p:g}_ms"] = float(np.percentile(done, p)) if len(done) else nan
    out["timeout_fraction"] = float((q["timeouts"] > 0).mean()) if len(q) else nan
    return out


def background_timeouts(res: dict, sc: dict) -> dict:
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


def host_link_load(res: dict) -> float:
    """Mean utilisation of the switch ports to the 45 rack servers: the load the benchmark
    put on their 1 Gbps links (payload, headers, framing, ACKs and retransmissions)."""
    p = Results(c.raw(res)).ports
    rack = p[p["name"].str.fullmatch(r"tor->h\d+") & (p["rate_bps"] <= 1e9)]
    return float(rack["utilization"].mean())


def responses(res: dict, sc: dict) -> pd.DataFrame:
    """One row per response of the traced aggregator's queries (DCTCP Figs. 7 and 9), from
    the trace at each server: ``query`` (0-based, within the workload), ``server``,
    ``request_rx_s`` (the request's first segment arriving at the server), ``sent_s`` (the
    response's first segment leaving the server's NIC), ``acked_s`` (the ACK covering the
    whole response arriving back) and ``rtt_queue_ms`` = ``acked_s`` − ``sent_s``: the
    "RTT+Queue" of Fig. 9, "the time between the worker sending its response and receiving
    a TCP ACK from the aggregator" (§2.3.3)."""
    raw = c.raw(res)
    trace = Results(raw).trace
    q = sc["queries"][TRACED_AGGREGATOR]
    resp_bytes, req_bytes = int(q["response_bytes"]), int(q["request_bytes"])
    rows = []
    for conn, t in trace[trace["view"] == "flow"].groupby("flow", sort=True):
        sent = t[(t["event"] == "tx") & (t["len"] > 0)].sort_values("t_s")
        got = t[t["event"] == "rx"].sort_values("t_s")
        if sent.empty:
            continue
        server = int(sent["src"].iloc[0])
        # Byte streams start after the SYN: the first data byte each way is seq 1.
        first = sent.drop_duplicates("seq")  # first transmissions only
        starts = first[(first["seq"] - 1) % resp_bytes == 0]
        k = ((starts["seq"] - 1) // resp_bytes).to_numpy()
        ends = 1 + (k + 1) * resp_bytes
        acks = got[got["flags"] & 2 != 0]
        ack_t, ack_max = acks["t_s"].to_numpy(), np.maximum.accumulate(acks["ack"].to_numpy())
        i = np.searchsorted(ack_max, ends, side="left")
        acked = np.where(i < len(ack_t), ack_t[np.minimum(i, len(ack_t) - 1)], np.nan)
        reqs = got[got["len"] > 0].drop_duplicates("seq")
        req_starts = reqs[(reqs["seq"] - 1) % req_bytes == 0]
        req_t = dict(zip(((req_starts["seq"] - 1) // req_bytes).to_numpy(), req_starts["t_s"].to_numpy()))
        for kk, sent_s, acked_s in zip(k, starts["t_s"].to_numpy(), acked):
            rows.append(
                {
                    "query": int(kk),
                    "server": server,
                    "conn": int(conn),
                    "request_rx_s": float(req_t.get(kk, np.nan)),
                    "sent_s": float(sent_s),
                    "acked_s": float(acked_s),
                    "rtt_queue_ms": float(acked_s - sent_s) * 1e3,
                }
            )
    out = pd.DataFrame(
        rows, columns=["query", "server", "conn", "request_rx_s", "sent_s", "acked_s", "rtt_queue_ms"]
    )
    issued = queries(res, sc)
    issued = issued[issued["workload"] == TRACED_AGGREGATOR]
    return out[out["query"].isin(issued["query"])].reset_index(drop=True)


# ---------------------------------------------------------------------------------------
# Runs shared by several figures
# ---------------------------------------------------------------------------------------


def run_plan(plan: dict[str, dict], jobs: int) -> dict[str, tuple[dict, dict]]:
    """Run ``{label: scenario}``; ``{label: (scenario, raw result)}``."""
    results = c.run_all(list(plan.values()), jobs)
    return {label: (sc, res) for (label, sc), res in zip(plan.items(), results)}


def baseline_plan(scale: str) -> dict[str, dict]:
    """The benchmark as the paper ran it (§4.3), TCP and DCTCP, RTO_min 10 ms, with aggregator
    0's queries traced: the runs of DCTCP Figs. 22, 23 and 9 (one simulation each, shared
    through the cache)."""
    return {p: scenario(p, scale, trace=True) for p in ("TCP", "DCTCP")}


def scaled_plan(scale: str) -> dict[str, dict]:
    """The 10x scaled benchmark (§4.3 "Scaled traffic") in its four configurations (Fig. 24)."""
    return {p: scenario(p, scale, scaled=True) for p in PROTOCOLS}


def production_plan(scale: str) -> dict[str, dict]:
    """The benchmark with the production stack (TCP, RTO_min 300 ms, §2.3.2), responses
    jittered over 10 ms or not, aggregator 0 traced: the runs of DCTCP Figs. 7 and 8."""
    return {
        label: scenario("TCP", scale, rto_min_ms=PRODUCTION_RTO_MIN_MS, jitter_us=jitter, trace=True)
        for label, jitter in (("jitter on", PRODUCTION_JITTER_US), ("jitter off", 0.0))
    }


def bars(ax, groups: list[str], series: dict[str, list[float]], colors: dict[str, str], log: bool = True) -> None:
    """Grouped bars: one group per entry of ``groups``, one bar per series, each labelled
    with its value."""
    n = len(series)
    width = 0.8 / n
    x = np.arange(len(groups))
    for i, (label, values) in enumerate(series.items()):
        pos = x - 0.4 + width * (i + 0.5)
        ax.bar(pos, values, width=width, color=colors.get(label), label=label)
        for px, v in zip(pos, values):
            if v is not None and math.isfinite(v):
                ax.text(px, v, f"{v:.3g}", ha="center", va="bottom", fontsize=6.5)
    ax.set_xticks(x, groups)
    if log:
        ax.set_yscale("log")


def timeout_causes(res: dict, sc: dict) -> dict:
    """Why the traced aggregator's queries timed out: for each query with a timeout, whether a
    request reached some server only after RTO_min (the request was lost in that server's
    port), a response was acknowledged only after RTO_min (lost on its way to the
    aggregator), or neither (a timeout on the connection that delayed nothing)."""
    rto_s = float(sc["tcp"]["rto_min_ms"]) / 1e3
    r = responses(res, sc)
    q = queries(res, sc)
    q = q[(q["workload"] == TRACED_AGGREGATOR) & (q["timeouts"] > 0)]
    issued = dict(zip(q["query"], q["issued_s"]))
    out = {"queries": len(q), "request": 0, "response": 0, "neither": 0}
    for k, g in r[r["query"].isin(issued)].groupby("query"):
        if (g["request_rx_s"] - issued[k]).max() >= rto_s:
            out["request"] += 1
        elif (g["acked_s"] - g["sent_s"]).max() >= rto_s:
            out["response"] += 1
        else:
            out["neither"] += 1
    return out


def under_way(t: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """For each instant of ``t``, how many of the intervals [starts[i], ends[i]) hold it: the
    flows started at or before it and not yet finished."""
    return np.searchsorted(np.sort(starts), t, side="right") - np.searchsorted(np.sort(ends), t, side="right")


def contention(res: dict, sc: dict) -> pd.DataFrame:
    """For each short message of the window: how many update flows (≥ 1 MB) were under way
    to its receiver (``long_at_dst``) and from its sender (``long_at_src``) when it started,
    its completion time and the rate it got (size over completion time, Mb/s)."""
    f = Results(c.raw(res)).flows
    bg = f[f["generator"].notna()]
    long = bg[bg["size_bytes"] >= 1e6]
    end = long["completion_s"].fillna(np.inf)
    sm = short_messages(background(res, sc))

    def active(at: pd.Series, key: str) -> np.ndarray:
        out = np.zeros(len(sm), dtype=int)
        for host, idx in sm.groupby(key).groups.items():
            mine = long[key] == host
            # (A message never counts itself: it is under 1 MB.)
            out[sm.index.get_indexer(idx)] = under_way(
                at.loc[idx].to_numpy(), long.loc[mine, "start_s"].to_numpy(), end[mine].to_numpy()
            )
        return out

    done = sm["fct_s"]
    return pd.DataFrame(
        {
            "long_at_dst": active(sm["start_s"], "dst"),
            "long_at_src": active(sm["start_s"], "src"),
            "fct_ms": done.to_numpy() * 1e3,
            "rate_mbps": (sm["size_bytes"] * 8 / done / 1e6).to_numpy(),
        }
    )
