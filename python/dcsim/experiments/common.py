"""Shared helpers of the paper experiments: scenarios, runs, measurements, analysis, plots.

Every experiment module (``dctcp_fig13.py`` ...) builds plain scenario dicts with
:func:`star`, runs them with :func:`run_all` (across processes, cached), reads the
results with the accessors below, checks the paper's claims with :func:`claim`, and saves
each plot as PNG + SVG with :func:`save_figure`.

Results are read through their ``raw`` dict (``crates/dcsim/src/results.rs``), so these
helpers depend only on the engine's documented JSON, not on how the tables are wrapped.

The DCTCP steady-state analysis (DCTCP paper §3.3, Eqs. 3-13; spec algorithms.md §4.3 M21,
§4.4 M22) is here too, as plain functions of (N, K, C·RTT).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..results import Results, occupancy, rows

# Packet on the wire in the DCTCP analysis (§3.4 "1500 byte packets"; spec M21).
PACKET_BYTES = 1500
MSS = 1460

# ---------------------------------------------------------------------------------------
# Scenarios
# ---------------------------------------------------------------------------------------


def bulk_flows(
    senders: Sequence[int],
    dst: int = 0,
    jitter_us: float = 0.0,
    start_s: float = 0.0,
    cc: str | None = None,
) -> list[dict]:
    """Long-lived, unlimited flows ``sender -> dst`` that send "as fast as they can"."""
    flows = []
    for s in senders:
        f: dict[str, Any] = {"src": int(s), "dst": int(dst), "start_s": float(start_s)}
        if jitter_us:
            f["start_jitter_us"] = float(jitter_us)
        if cc is not None:
            f["cc"] = cc
        flows.append(f)
    return flows


def dctcp_aqm(k: int, count_in_service: bool = True) -> dict:
    """DCTCP marking at the switch: CE when the instantaneous queue exceeds K (M17)."""
    return {"kind": "threshold", "k_packets": int(k), "count_in_service": bool(count_in_service)}


DROP_TAIL = {"kind": "drop_tail"}


def red_aqm(min_th: float, max_th: float, max_p: float = 0.1, weight_log2: int = 9) -> dict:
    """RED on the average queue, marking ECT packets (M16; DCTCP paper footnotes 5, 8): thresholds
    in packets, w_q = 2^-weight_log2 ("weight = 9" in the paper's guideline [7])."""
    return {
        "kind": "red",
        "min_th": float(min_th),
        "max_th": float(max_th),
        "max_p": float(max_p),
        "weight_log2": int(weight_log2),
        "ecn": True,
    }


# The receiver (host 0) hangs off this switch port: where the queue builds.
RECEIVER_PORT = "s0->h0"


def star(
    name: str,
    *,
    senders: int,
    cc: str,
    aqm: dict,
    rate_gbps: float,
    delay_us: float,
    buffer: dict,
    duration_s: float,
    warmup_s: float,
    framing_bytes: int = 38,
    tcp: dict | None = None,
    host: dict | None = None,
    queue_sample_us: float = 0.0,
    flow_sample_us: float = 0.0,
    jitter_us: float = 100.0,
    start_s: float = 0.0,
    seed: int = 1,
) -> dict:
    """A star of ``senders + 1`` hosts: hosts 1..senders each send one bulk flow to host 0.

    The receiver's switch port, where the queue builds, is :data:`RECEIVER_PORT`.
    One-way delay ``delay_us`` per link, so the base RTT is ``4 * delay_us`` (two hops each way).
    """
    tcp_cfg: dict[str, Any] = {"cc": cc}
    tcp_cfg.update(tcp or {})
    return {
        "name": name,
        "sim": {"seed": int(seed), "duration_s": float(duration_s), "warmup_s": float(warmup_s)},
        "topology": {
            "kind": "star",
            "hosts": int(senders) + 1,
            "link": {
                "rate_gbps": float(rate_gbps),
                "delay_us": float(delay_us),
                "framing_bytes": int(framing_bytes),
            },
        },
        "switch": {"buffer": dict(buffer), "aqm": dict(aqm)},
        "host": dict(host or {}),
        "tcp": tcp_cfg,
        "flows": bulk_flows(range(1, senders + 1), 0, jitter_us=jitter_us, start_s=start_s),
        # Only the receiver's port is sampled: the queue the figures show.
        "measure": {
            "queue_sample_us": float(queue_sample_us),
            "queue_ports": [RECEIVER_PORT],
            "flow_sample_us": float(flow_sample_us),
        },
    }


def per_port_packets(limit_packets: int) -> dict:
    return {"kind": "per_port", "limit_packets": int(limit_packets)}


# The DCTCP paper's testbed (§4, §4.1; spec experiments.md "Common defaults"): 1500-B packets
# on Ethernet (38 B framing), base RTT ≈ 100 µs intra-rack (§2.3.3) = 4 hops × 25 µs,
# RTO_min 300 ms up to Fig. 18, delayed ACK m = 2 (§3.1), g = 1/16, TCP = NewReno over
# drop-tail; the hosts' stack is the `windows_2008r2` profile (docs/stacks.md), RTO_min set
# explicitly because experiments vary it. Buffer: the switch's 4 MB shared memory with its dynamic threshold (engine
# preset, spec algorithms.md §2.3 M13), calibrated so that one busy port grabs ~700 KB
# (Fig. 1 caption, §4.1): the Triumph for 1 Gbps ports, the Scorpion (24 × 10 Gbps, same
# memory) for 10 Gbps ones.
TESTBED_DELAY_US = 25.0
TESTBED_TCP = {"profile": "windows_2008r2", "rto_min_ms": 300.0, "dctcp_g": 1.0 / 16.0}


def testbed(
    name: str,
    *,
    senders: int,
    k: int | None,
    rate_gbps: float,
    duration_s: float,
    warmup_s: float,
    host: dict | None = None,
    queue_sample_us: float = 0.0,
    jitter_us: float = 1000.0,
    seed: int = 1,
) -> dict:
    """DCTCP-paper testbed star: DCTCP with marking threshold ``k``, or TCP NewReno over
    drop-tail when ``k`` is None."""
    return star(
        name,
        senders=senders,
        cc="newreno" if k is None else "dctcp",
        aqm=DROP_TAIL if k is None else dctcp_aqm(k),
        rate_gbps=rate_gbps,
        delay_us=TESTBED_DELAY_US,
        buffer={"kind": "preset", "name": "triumph" if rate_gbps <= 1.0 else "scorpion"},
        duration_s=duration_s,
        warmup_s=warmup_s,
        framing_bytes=38,
        tcp=TESTBED_TCP,
        host=host,
        queue_sample_us=queue_sample_us,
        jitter_us=jitter_us,
        seed=seed,
    )


# The CS244 ns-2 reproduction (CS244 post; spec experiments.md §3 and the authors' scripts
# [EXT] sibanez12/dctcp-ns2): every link 100 Mbps, 200-packet queues (switch ports and the
# hosts' link queues alike), no framing (ns-2), ACK every packet (segsperack_ 1), initial
# window 2, 1460-B payload, FTP sources start at 0.1 s, results over t ∈ [4, 9] s. ns-2's DCTCP marking is RED with thresh = maxthresh =
# K on
# the instantaneous queue, which counts only waiting packets: count_in_service = False.
# RTO_min = ns-2's default minrto_ 0.2 s (the scripts do not set it; the `ns2` profile).
# [EXT] ns-2's DCTCP patch ("ecnhat", M. Alizadeh) starts with ecnhat_alpha_ = 0, unlike
# Linux (α = 1, our default): see NS2_DCTCP_TCP.
CS244_RATE_GBPS = 0.1
CS244_BUFFER_PACKETS = 200
CS244_START_S = 0.1

# What the ns-2 DCTCP sender does differently from our (Linux-like) defaults: α starts at 0
# (ns-2 `ecnhat_alpha_ = 0.0`). Used by every experiment whose paper ran ns-2 (DCTCP Fig. 12,
# CS244 Figs. 2-4). It matters after slow start: with α = 1 the first marks halve the window,
# which then climbs back at one packet per RTT (≈ 5 s at the CS244 Fig. 4 RTT of 40 ms).
NS2_DCTCP_TCP = {"dctcp_alpha_init": 0.0}

# ns-2's stack (the `ns2` profile: FullTcp/Sack defaults, an ACK per segment, initial window
# 2, RTO_min 200 ms) with the scripts' own settings [EXT] sibanez12/dctcp-ns2 tcl/run_sim.tcl:
# DCTCP ran plain `Agent/TCP/FullTcp` (no SACK) with `tcpTick_ 0.000001`; TCP ran
# `Agent/TCP/Linux` to a `TCPSink/Sack1`, on the default 10-ms tick, whose `maxrto_` is 120 s
# (ns-default.tcl).
CS244_TCP = {"profile": "ns2", "dctcp_g": 0.0625, **NS2_DCTCP_TCP}
CS244_DCTCP_AGENT = {"sack": False, "timer_tick_ms": 0.001}
CS244_TCP_AGENT = {"rto_max_ms": 120_000.0}


def cs244(
    name: str,
    *,
    senders: int,
    k: int | None,
    link_delay_us: float,
    duration_s: float,
    warmup_s: float,
    queue_sample_us: float = 0.0,
    seed: int = 1,
) -> dict:
    """CS244 ns-2 star: DCTCP with threshold ``k`` on every port, or TCP over drop-tail
    when ``k`` is None."""
    aqm = DROP_TAIL if k is None else dctcp_aqm(k, count_in_service=False)
    return star(
        name,
        senders=senders,
        cc="newreno" if k is None else "dctcp",
        aqm=aqm,
        rate_gbps=CS244_RATE_GBPS,
        delay_us=link_delay_us,
        buffer=per_port_packets(CS244_BUFFER_PACKETS),
        duration_s=duration_s,
        warmup_s=warmup_s,
        framing_bytes=0,
        tcp={**CS244_TCP, **(CS244_TCP_AGENT if k is None else CS244_DCTCP_AGENT)},
        queue_sample_us=queue_sample_us,
        # `Queue set limit_ 200` applies to the hosts' link queues too.
        host={"nic_queue_packets": CS244_BUFFER_PACKETS},
        # ns-2 starts both FTP sources at exactly 0.1 s; a few µs of jitter only breaks the
        # tie in the event order.
        jitter_us=10.0,
        start_s=CS244_START_S,
        seed=seed,
    )


# ---------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------


def run_all(scenarios: list[dict], jobs: int) -> list[dict]:
    """Run scenarios on ``jobs`` processes (:func:`dcsim.executor.run_scenarios`: cached and
    reported as the caller set up); return the raw result dicts in input order."""
    # Imported here, not at the top: dcsim's own import must never depend on this package.
    from ..executor import run_scenarios

    return run_scenarios(list(scenarios), max(1, int(jobs)))


def raw(result: Any) -> dict:
    """The engine's result dict (``Results.raw``), whatever wraps it."""
    return result if isinstance(result, dict) else result.raw


def flows(res: dict) -> list[dict]:
    """One dict per flow, as in ``summary.json`` (``workload`` is None for a bulk flow, a
    NaN time None)."""
    return rows(res["flows"])


def queries(res: dict) -> list[dict]:
    """One dict per query, as in ``summary.json`` (``qct_s`` is None if unfinished)."""
    return rows(res["queries"])


# ---------------------------------------------------------------------------------------
# Reading results
# ---------------------------------------------------------------------------------------


def port(res: dict, name: str = RECEIVER_PORT) -> dict:
    """One port's counters, with its occupancy histogram (``occupancy_time_s``)."""
    names = res["ports"]["name"].tolist()
    if name not in names:
        raise KeyError(f"port {name!r} not in results (have {names})")
    i = names.index(name)
    return rows(res["ports"])[i] | {"occupancy_time_s": occupancy(res)[i]}


def port_index(res: dict, name: str = RECEIVER_PORT) -> int:
    names = res["ports"]["name"].tolist()
    if name not in names:
        raise KeyError(name)
    return names.index(name)


def queue_series(
    res: dict, name: str = RECEIVER_PORT, t_from: float | None = None, t_to: float | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sampled queue of one port: ``(t_s, packets, bytes)``, optionally cut to [t_from, t_to]."""
    qs = res["queue_samples"]
    idx = np.asarray(qs["port"], dtype=np.int64)
    sel = idx == port_index(res, name)
    t = np.asarray(qs["t_s"], dtype=float)[sel]
    pk = np.asarray(qs["packets"], dtype=float)[sel]
    by = np.asarray(qs["bytes"], dtype=float)[sel]
    order = np.argsort(t, kind="stable")
    t, pk, by = t[order], pk[order], by[order]
    keep = np.ones(len(t), dtype=bool)
    if t_from is not None:
        keep &= t >= t_from
    if t_to is not None:
        keep &= t <= t_to
    return t[keep], pk[keep], by[keep]


def goodput_bps(res: dict) -> float:
    """Sum of the flows' goodput over the measurement window, bit/s."""
    return float(sum(res["flows"]["goodput_bps"].tolist()))


def goodput_ceiling_bps(
    rate_gbps: float, framing_bytes: int, mss: int = MSS, header_bytes: int = 40
) -> float:
    """Most payload a link can carry with full-size segments: rate × MSS / wire bytes
    (1 Gbps with Ethernet framing: 1460/1538 = 0.949 Gbps, the DCTCP paper's 0.95)."""
    return rate_gbps * 1e9 * mss / (mss + header_bytes + framing_bytes)


def total(res: dict, field: str) -> int:
    """Sum of a per-flow counter (``timeouts``, ``retransmits`` ...)."""
    return int(sum(res["flows"][field].tolist()))


# Queue occupancy distribution. `occupancy_time_s[n]` = seconds the port held exactly n packets
# in the measurement window: the exact time-weighted distribution that sampling estimates.


def occupancy_pmf(occ: Sequence[float]) -> np.ndarray:
    w = np.asarray(occ, dtype=float)
    s = w.sum()
    if s <= 0:
        return np.zeros(max(len(w), 1))
    return w / s


def occupancy_cdf(occ: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """``(n, P[queue <= n])`` for n = 0..max."""
    p = occupancy_pmf(occ)
    return np.arange(len(p)), np.minimum(np.cumsum(p), 1.0)


def occupancy_quantile(occ: Sequence[float], q: float) -> int:
    """Smallest n with P[queue <= n] >= q (time-weighted)."""
    _, c = occupancy_cdf(occ)
    i = int(np.searchsorted(c, q - 1e-12, side="left"))
    return min(i, len(c) - 1)


def occupancy_mean(occ: Sequence[float]) -> float:
    p = occupancy_pmf(occ)
    return float(np.dot(np.arange(len(p)), p))


def queue_stats(res: dict, name: str = RECEIVER_PORT) -> dict:
    """Time-weighted queue statistics (packets) of one port over the measurement window."""
    p = port(res, name)
    occ = p["occupancy_time_s"]
    return {
        "mean_packets": float(p["mean_packets"]),
        "p1_packets": occupancy_quantile(occ, 0.01),
        "p5_packets": occupancy_quantile(occ, 0.05),
        "median_packets": occupancy_quantile(occ, 0.5),
        "p95_packets": occupancy_quantile(occ, 0.95),
        "p99_packets": occupancy_quantile(occ, 0.99),
        "max_packets": int(p["max_packets"]),
        "max_bytes": int(p["max_bytes"]),
        "drops": int(p["drops_buffer"]) + int(p["drops_aqm"]),
        "marks": int(p["marks"]),
        "utilization": float(p["utilization"]),
    }


def cdf(values: Iterable[float]) -> tuple[np.ndarray, np.ndarray]:
    """Empirical CDF of samples: sorted values and P[X <= x]."""
    x = np.sort(np.asarray(list(values), dtype=float))
    return x, np.arange(1, len(x) + 1) / max(len(x), 1)


# ---------------------------------------------------------------------------------------
# Fairness and per-flow time series (``measure.flow_sample_us``)
# ---------------------------------------------------------------------------------------


def jain(values: Sequence[float] | np.ndarray) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²): 1 when all are equal, 1/n when one has all;
    NaN for no values or all zero."""
    x = np.asarray(values, dtype=float)
    return float(x.sum() ** 2 / (len(x) * (x**2).sum())) if len(x) and (x**2).sum() > 0 else math.nan


def phases(windows: Sequence[tuple[float, float]]) -> list[tuple[float, float, list[int]]]:
    """``(start, end, active flows)`` of each stretch in which the same flows are active, for
    flows active over ``windows[i] = (start_s, stop_s)``; stretches with no flow are left out."""
    edges = sorted({t for w in windows for t in w})
    out = []
    for a, b in itertools.pairwise(edges):
        active = [i for i, (start, stop) in enumerate(windows) if start <= a and b <= stop]
        if active:
            out.append((a, b, active))
    return out


def flow_samples(res: dict) -> pd.DataFrame:
    """The per-flow time series (``flow_samples``) as a pandas frame."""
    return Results(res).flow_samples


def goodput_between_bps(fs: pd.DataFrame, flow: int, t0: float, t1: float) -> float:
    """A flow's goodput between the first sample at or after ``t0`` and the last at or before
    ``t1``, from its delivered bytes, bit/s."""
    g = fs[fs.flow == flow].set_index("t_s").delivered_bytes
    lo = g[g.index >= t0 - 1e-12]
    hi = g[g.index <= t1 + 1e-12]
    return float((hi.iloc[-1] - lo.iloc[0]) * 8 / (hi.index[-1] - lo.index[0]))


def settled_goodputs(
    fs: pd.DataFrame, windows: Sequence[tuple[float, float]], settle_fraction: float
) -> list[dict]:
    """One row per phase (:func:`phases` of the flows' ``windows``): the active flows' goodputs
    from their delivered bytes after the first ``settle_fraction`` of the phase (the flows
    converge there), Mb/s, joined by ";" in ``flow_mbps``; their total; Jain's index (NaN with
    one flow). ``settled_s`` is where the measurement starts, ``flows`` the active flows."""
    out = []
    for k, (a, b, active) in enumerate(phases(windows)):
        t0 = a + settle_fraction * (b - a)
        per = [goodput_between_bps(fs, f, t0, b) / 1e6 for f in active]
        out.append(
            {
                "phase": k,
                "start_s": a,
                "end_s": b,
                "active": len(active),
                "flow_mbps": ";".join(f"{x:.1f}" for x in per),
                "total_mbps": float(sum(per)),
                "jain": jain(per) if len(per) > 1 else math.nan,
                "settled_s": t0,
                "flows": active,
            }
        )
    return out


def phase_tables(
    runs: Iterable[tuple[str, dict]], phase_rows: Any
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """For runs ``(protocol, result)``: the rows ``phase_rows(flow samples)`` of every run, and
    every flow's goodput per sampling interval (:func:`flow_rates`), each with a ``protocol``
    column first."""
    rows, series = [], []
    for proto, res in runs:
        fs = flow_samples(res)
        series.append(flow_rates(fs).assign(protocol=proto))
        rows += [{"protocol": proto, **r} for r in phase_rows(fs)]
    return (
        pd.DataFrame(rows),
        pd.concat(series, ignore_index=True)[["protocol", "flow", "t_s", "mbps"]],
    )


def flow_rates(fs: pd.DataFrame) -> pd.DataFrame:
    """Each flow's goodput in every sampling interval: a frame ``flow, t_s, mbps`` (``t_s`` the
    interval's end)."""
    parts = []
    for f, g in fs.groupby("flow"):
        g = g.sort_values("t_s")
        rate = g.delivered_bytes.diff() * 8 / g.t_s.diff() / 1e6
        parts.append(
            pd.DataFrame(
                {"flow": int(f), "t_s": g.t_s.iloc[1:].to_numpy(), "mbps": rate.iloc[1:].to_numpy()}
            )
        )
    return (
        pd.concat(parts, ignore_index=True)
        if parts
        else pd.DataFrame(columns=["flow", "t_s", "mbps"])
    )


# ---------------------------------------------------------------------------------------
# DCTCP steady-state analysis (DCTCP paper §3.3; spec algorithms.md §4.3 M21, §4.4 M22)
# ---------------------------------------------------------------------------------------


def bdp_packets(rate_gbps: float, rtt_us: float, packet_bytes: int = PACKET_BYTES) -> float:
    """C·RTT in packets (§3.4: C in packets/s, RTT in s)."""
    return rate_gbps * 1e9 * rtt_us * 1e-6 / (8.0 * packet_bytes)


def w_star(n: int, bdp: float, k: float) -> float:
    """Critical window W* = (C·RTT + K)/N: the per-flow window at which the queue reaches K."""
    return (bdp + k) / n


def alpha_exact(ws: float, tol: float = 1e-12) -> float:
    """α solving Eq. (6) α²(1 − α/4) = (2W* + 1)/(W* + 1)² by bisection on [0, 1].

    The left side rises monotonically on [0, 1] to 3/4; for W* ≤ 1 the right side is ≥ 3/4
    and no α ≤ 1 solves it: every packet is marked, α = 1.
    """
    rhs = (2.0 * ws + 1.0) / (ws + 1.0) ** 2
    if rhs >= 0.75:
        return 1.0
    lo, hi = 0.0, 1.0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if mid * mid * (1.0 - mid / 4.0) < rhs:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def alpha_approx(ws: float) -> float:
    """Small-α form of Eq. (6): α ≈ √(2/W*)."""
    return math.sqrt(2.0 / ws)


def amplitude_exact(n: int, ws: float, alpha: float) -> float:
    """Eq. (7)-(8) with exact α: A = N·D = N(W* + 1)α/2 packets."""
    return n * (ws + 1.0) * alpha / 2.0


def amplitude_approx(n: int, bdp: float, k: float) -> float:
    """Eq. (8) closed form: A ≈ ½√(2N(C·RTT + K)) packets."""
    return 0.5 * math.sqrt(2.0 * n * (bdp + k))


def period_rtts_approx(n: int, bdp: float, k: float) -> float:
    """Eq. (9): T_C = D ≈ ½√(2(C·RTT + K)/N), in RTTs."""
    return 0.5 * math.sqrt(2.0 * (bdp + k) / n)


def period_rtts_exact(ws: float, alpha: float) -> float:
    """T_C = D = (W* + 1)α/2 RTTs with exact α (the window grows one packet per RTT)."""
    return (ws + 1.0) * alpha / 2.0


def rtt_with_queue_us(
    rtt_us: float, queue_packets: float, rate_gbps: float, packet_bytes: int = PACKET_BYTES
) -> float:
    """The RTT a packet sees behind ``queue_packets``: the analysis counts the sawtooth's
    period in RTTs (the window grows one packet per RTT), and the RTT includes this
    queueing delay."""
    return rtt_us + queue_packets * packet_bytes * 8.0 / (rate_gbps * 1e3)


def q_max(n: int, k: float) -> float:
    """Eq. (10): Q_max = K + N packets."""
    return k + n


def q_min(n: int, k: float, amplitude: float) -> float:
    """Eq. (11)-(12): Q_min = Q_max − A packets."""
    return q_max(n, k) - amplitude


def k_guideline(bdp: float) -> float:
    """Eq. (13): the queue does not underflow when K > C·RTT/7."""
    return bdp / 7.0


def dctcp_analysis(
    n: int, k: float, rate_gbps: float, rtt_us: float, packet_bytes: int = PACKET_BYTES
) -> dict:
    """All §3.3 predictions for N synchronised flows, as a JSON-able dict."""
    bdp = bdp_packets(rate_gbps, rtt_us, packet_bytes)
    ws = w_star(n, bdp, k)
    a = alpha_exact(ws)
    amp = amplitude_exact(n, ws, a)
    amp_apx = amplitude_approx(n, bdp, k)
    t_exact = period_rtts_exact(ws, a)
    t_apx = period_rtts_approx(n, bdp, k)
    # The RTT during the sawtooth includes the mean predicted queue (Q_max − A/2).
    rtt_eff = rtt_with_queue_us(rtt_us, q_max(n, k) - amp / 2.0, rate_gbps, packet_bytes)
    return {
        "n": int(n),
        "k": float(k),
        "bdp_packets": bdp,
        "w_star": ws,
        "alpha_exact": a,
        "alpha_approx": alpha_approx(ws),
        "amplitude_exact": amp,
        "amplitude_approx": amp_apx,
        "q_max": q_max(n, k),
        "q_min_exact": q_min(n, k, amp),
        "q_min_approx": q_min(n, k, amp_apx),
        "period_rtts_exact": t_exact,
        "period_rtts_approx": t_apx,
        "period_us_exact": t_exact * rtt_us,
        "period_us_approx": t_apx * rtt_us,
        "rtt_eff_us": rtt_eff,
        "period_us_eff": t_exact * rtt_eff,
        "k_guideline": k_guideline(bdp),
    }


def sawtooth(
    t: np.ndarray, q_max_: float, amplitude: float, period_s: float, t_drop: float
) -> np.ndarray:
    """The analytical queue (Fig. 11): rises linearly from Q_min to Q_max over one period,
    then drops back at once; one drop at ``t_drop``."""
    phase = np.mod((np.asarray(t) - t_drop) / period_s, 1.0)
    return (q_max_ - amplitude) + amplitude * phase


def sawtooth_measure(
    t: np.ndarray, q: np.ndarray, rtt_s: float, min_period_rtts: float = 0.3
) -> dict:
    """Period and per-period extremes of a sampled, roughly periodic queue.

    Period: the dominant frequency of the mean-removed series (FFT, ignoring periods shorter
    than ``min_period_rtts`` RTTs or longer than a third of the window). Then the series is cut
    into consecutive windows of one period; Q_max / Q_min are the means of the windows' maxima
    and minima, the amplitude the mean of (max − min).
    """
    t = np.asarray(t, dtype=float)
    q = np.asarray(q, dtype=float)
    out = {
        "period_s": float("nan"),
        "q_max": float("nan"),
        "q_min": float("nan"),
        "amplitude": float("nan"),
        "periods": 0,
    }
    if len(t) < 16:
        return out
    dt = float(np.median(np.diff(t)))
    x = q - q.mean()
    spec = np.abs(np.fft.rfft(x)) ** 2
    freqs = np.fft.rfftfreq(len(x), dt)
    span = t[-1] - t[0]
    ok = (freqs > 3.0 / span) & (freqs < 1.0 / (min_period_rtts * rtt_s))
    if not ok.any():
        return out
    i = int(np.flatnonzero(ok)[np.argmax(spec[ok])])
    f = freqs[i]
    if 0 < i < len(spec) - 1:  # parabolic refinement on the log spectrum
        a, b, c = np.log(spec[i - 1 : i + 2] + 1e-300)
        den = a - 2 * b + c
        if den < 0:
            f = freqs[i] + 0.5 * (a - c) / den * (freqs[1] - freqs[0])
    period = 1.0 / f
    edges = np.arange(t[0], t[-1] - period + 1e-15, period)
    maxima, minima = [], []
    for e in edges:
        w = q[(t >= e) & (t < e + period)]
        if len(w):
            maxima.append(w.max())
            minima.append(w.min())
    if not maxima:
        return out
    mx, mn = np.asarray(maxima), np.asarray(minima)
    out.update(
        period_s=float(period),
        q_max=float(mx.mean()),
        q_min=float(mn.mean()),
        amplitude=float((mx - mn).mean()),
        periods=len(mx),
    )
    return out


# ---------------------------------------------------------------------------------------
# Claims, outputs, plots
# ---------------------------------------------------------------------------------------


def claim(text: str, paper: str, measured: str, holds: Any) -> dict:
    """One row of the summary's claim table. ``holds`` must be an expression over the
    measurement; it is coerced to a plain bool here."""
    return {"claim": text, "paper": paper, "measured": measured, "holds": bool(holds)}


def jsonable(obj: Any) -> Any:
    """Turn numpy scalars/arrays (and NaN) into plain JSON values."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [jsonable(v) for v in obj.tolist()]
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        v = float(obj)
        return v if math.isfinite(v) else None
    return obj


def prepare_out(out_dir: Path) -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return out


def figure(nrows: int = 1, ncols: int = 1, size: tuple[float, float] = (6.4, 4.0), **kw):
    """A matplotlib figure on the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt.subplots(nrows, ncols, figsize=size, **kw)


def save_figure(fig, out_dir: Path, stem: str) -> list[str]:
    """Write ``stem.png`` and ``stem.svg``; close the figure; return the file names."""
    import matplotlib.pyplot as plt

    out = prepare_out(out_dir)
    fig.tight_layout()
    names = []
    for ext in ("png", "svg"):
        fig.savefig(out / f"{stem}.{ext}", dpi=130)
        names.append(f"{stem}.{ext}")
    plt.close(fig)
    return names


def note(ax, text: str, loc: str = "upper right") -> None:
    """The paper's value, boxed inside the axes beside our curves."""
    xy = {
        "upper right": (0.98, 0.97, "right", "top"),
        "upper left": (0.02, 0.97, "left", "top"),
        "lower right": (0.98, 0.03, "right", "bottom"),
        "lower left": (0.02, 0.03, "left", "bottom"),
        "center right": (0.98, 0.5, "right", "center"),
    }[loc]
    ax.text(
        xy[0],
        xy[1],
        text,
        transform=ax.transAxes,
        ha=xy[2],
        va=xy[3],
        fontsize=7.5,
        bbox={"boxstyle": "round,pad=0.3", "fc": "#fff8e0", "ec": "#c9a227", "alpha": 0.9},
    )


def check_scale(scale: str, scales: dict) -> dict:
    if scale not in scales:
        raise ValueError(f"scale must be one of {sorted(scales)}, got {scale!r}")
    return scales[scale]


def fmt(x: float, nd: int = 1) -> str:
    return "nan" if x is None or not math.isfinite(x) else f"{x:.{nd}f}"
