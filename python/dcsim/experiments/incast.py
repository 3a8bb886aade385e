"""Shared helpers of the DCTCP-paper incast experiments (§4.2: Figs. 18-21, Table 2).

Scenarios are stars of 1 Gbps hosts on one switch with the DCTCP testbed's TCP
(`common.TESTBED_TCP`: delayed ACK m = 2, g = 1/16) plus the testbed's 10 ms timer tick
(DCTCP paper §4.2.1: "10ms ... is the tick granularity of our system"; spec algorithms.md
§1.5 M5), driven by partition/aggregate query workloads (spec algorithms.md §5.1 M23) and,
where the experiment has them, long-lived background flows.

Query results are read from the engine's raw result dict (``c.queries(res)``; one row per
query with ``qct_s`` NaN/None if unfinished and ``timeouts`` = RTOs on the query's
connections while it ran).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import common as c

K = 20  # DCTCP marking threshold on 1 Gbps ports (§3.5, Table 2 caption)
K_10G = 65  # and on 10 Gbps ports (§3.5)
TIMER_TICK_MS = 10.0  # the testbed's timer granularity (§4.2.1)
REQUEST_BYTES = 100  # request size NOT GIVEN: ASSUMPTION one 100-B segment (spec M23)
QUERY_START_S = 0.01  # persistent connections open at t = 0; first query after the handshakes

TRIUMPH = {"kind": "preset", "name": "triumph"}
STATIC_100 = {"kind": "per_port", "limit_packets": 100}

# protocol label -> (congestion control, switch AQM)
PROTOCOLS: dict[str, tuple[str, dict]] = {
    "TCP": ("newreno", c.DROP_TAIL),
    "DCTCP": ("dctcp", c.dctcp_aqm(K)),
}
COLORS = {"TCP": "tab:red", "DCTCP": "tab:blue"}


def query(
    client: int,
    servers: Sequence[int],
    response_bytes: int,
    rounds: int,
    start_s: float = QUERY_START_S,
) -> dict:
    """One barrier-synchronised query workload over persistent connections (§4.2.1)."""
    return {
        "client": int(client),
        "servers": [int(s) for s in servers],
        "request_bytes": REQUEST_BYTES,
        "response_bytes": int(response_bytes),
        "rounds": int(rounds),
        "start_s": float(start_s),
        "arrival": {"kind": "barrier"},
        "response_jitter_us": 0.0,
        "persistent": True,
    }


def scenario(
    name: str,
    *,
    hosts: int,
    protocol: str,
    rto_min_ms: float,
    buffer: dict,
    duration_s: float,
    queries: list[dict],
    flows: list[dict] | None = None,
    seed: int = 1,
    rate_gbps: float = 1.0,
) -> dict:
    """A DCTCP-testbed star (1 Gbps unless ``rate_gbps`` says otherwise, 25 µs per link =
    100 µs base RTT, 38 B framing) running query workloads and optional long flows;
    TCP = NewReno+SACK over drop-tail, DCTCP = K 20 (K 65 on ports above 1 Gbps)."""
    cc, aqm = PROTOCOLS[protocol]
    if protocol == "DCTCP" and rate_gbps > 1.0:
        aqm = c.dctcp_aqm(K_10G)
    tcp = dict(c.TESTBED_TCP)
    tcp.update({"cc": cc, "rto_min_ms": float(rto_min_ms), "timer_tick_ms": TIMER_TICK_MS})
    return {
        "name": name,
        "sim": {"seed": int(seed), "duration_s": float(duration_s), "warmup_s": 0.0},
        "topology": {
            "kind": "star",
            "hosts": int(hosts),
            "link": {
                "rate_gbps": float(rate_gbps),
                "delay_us": c.TESTBED_DELAY_US,
                "framing_bytes": 38,
            },
        },
        "switch": {"buffer": dict(buffer), "aqm": dict(aqm)},
        "tcp": tcp,
        "flows": list(flows or []),
        "queries": list(queries),
        "measure": {"queue_sample_us": 0.0, "queue_ports": ["s0->h0"], "flow_sample_us": 0.0},
    }


def _num(x: Any) -> float:
    return float("nan") if x is None else float(x)


def qct_ms(res: dict, workloads: Sequence[int] | None = None) -> np.ndarray:
    """Completion times (ms) of the completed queries (optionally of some workloads only)."""
    rows = c.queries(res)
    if workloads is not None:
        w = {int(i) for i in workloads}
        rows = [q for q in rows if int(q["workload"]) in w]
    v = np.array([_num(q["qct_s"]) for q in rows], dtype=float) * 1e3
    return v[np.isfinite(v)]


Z_90 = 1.6449  # two-sided 90% normal quantile (DCTCP Figs. 18-19 give 90% intervals)


def mean_ci90_halfwidth(values) -> float:
    """Half-width of the 90% confidence interval of a mean (normal approximation; with the
    ≥ 40 samples per point used here the Student-t quantile differs by < 2%)."""
    v = np.asarray(values, dtype=float)
    if len(v) < 2:
        return float("nan")
    return float(Z_90 * v.std(ddof=1) / math.sqrt(len(v)))


def query_stats(res: dict, workloads: Sequence[int] | None = None) -> dict:
    """Issued / completed counts, completion-time statistics (ms, with the 90% confidence
    interval of the mean) and the fraction of the completed queries that suffered at least
    one retransmission timeout."""
    rows = c.queries(res)
    if workloads is not None:
        w = {int(i) for i in workloads}
        rows = [q for q in rows if int(q["workload"]) in w]
    done = [q for q in rows if math.isfinite(_num(q["qct_s"]))]
    qct = np.array([_num(q["qct_s"]) for q in done], dtype=float) * 1e3
    to = np.array([int(q["timeouts"]) for q in done], dtype=float)
    nan = float("nan")
    return {
        "issued": len(rows),
        "completed": len(done),
        "mean_ms": float(qct.mean()) if len(qct) else nan,
        "mean_ci90_ms": mean_ci90_halfwidth(qct),
        "p50_ms": float(np.percentile(qct, 50)) if len(qct) else nan,
        "p95_ms": float(np.percentile(qct, 95)) if len(qct) else nan,
        "p99_ms": float(np.percentile(qct, 99)) if len(qct) else nan,
        "min_ms": float(qct.min()) if len(qct) else nan,
        "max_ms": float(qct.max()) if len(qct) else nan,
        "timeout_fraction": float((to > 0).mean()) if len(to) else nan,
        "timeouts": int(to.sum()),
    }


def bulk_goodput_gbps(res: dict) -> float:
    """Summed goodput of the long (non-query) flows, Gbit/s."""
    return float(sum(f["goodput_bps"] for f in c.flows(res) if f["workload"] is None)) / 1e9


def first_n_with_timeouts(ns: Sequence[int], fractions: Sequence[float]) -> int | None:
    """Smallest n whose timeout fraction is > 0 (None if never)."""
    for n, f in sorted(zip(ns, fractions)):
        if f is not None and math.isfinite(f) and f > 0:
            return int(n)
    return None


# ---------------------------------------------------------------------------------------
# Many-to-one incast sweep (Figs. 18 and 19)
# ---------------------------------------------------------------------------------------

TOTAL_RESPONSE_BYTES = 1_000_000  # "The client requests 1MB/n bytes from n different servers"


def many_to_one_duration_s(
    rounds: int,
    rto_min_ms: float,
    total_bytes: int = TOTAL_RESPONSE_BYTES,
    rate_gbps: float = 1.0,
) -> float:
    """A generous horizon: every query fits even with several backed-off timeouts and at a
    quarter of the line rate. Without long flows the event calendar empties once the last
    query completes, so the spare time costs nothing."""
    line_s = total_bytes * 8 / (rate_gbps * 1e9)
    return QUERY_START_S + rounds * max(0.1, 8.0 * rto_min_ms / 1e3, 4.0 * line_s) + 1.0


def many_to_one_plan(
    exp_id: str,
    *,
    configs: Sequence[tuple[str, float]],
    buffer: dict,
    ns: Sequence[int],
    rounds: int,
    total_bytes: int = TOTAL_RESPONSE_BYTES,
    hosts: int = 41,
    rate_gbps: float = 1.0,
) -> list[tuple[str, float, int, dict]]:
    """``(protocol, rto_min_ms, n, scenario)`` for the many-to-one sweep (41 hosts at 1 Gbps
    unless told otherwise): for each (protocol, RTO_min) and each n, the client (host 0)
    requests ``total_bytes``/n (1 MB/n) from hosts 1..n, ``rounds`` times."""
    plan = []
    for proto, rto in configs:
        for n in ns:
            sc = scenario(
                f"{exp_id}-{proto.lower()}-rto{int(rto)}-n{n}",
                hosts=hosts,
                protocol=proto,
                rto_min_ms=rto,
                buffer=buffer,
                duration_s=many_to_one_duration_s(rounds, rto, total_bytes, rate_gbps),
                queries=[query(0, range(1, n + 1), total_bytes // n, rounds)],
                rate_gbps=rate_gbps,
            )
            plan.append((proto, float(rto), int(n), sc))
    return plan


def many_to_one_sweep(plan: list[tuple[str, float, int, dict]], jobs: int):
    """Run a :func:`many_to_one_plan`; a DataFrame with one row per run."""
    import pandas as pd

    results = c.run_all([p[-1] for p in plan], jobs)
    rows = []
    for (proto, rto, n, sc), res in zip(plan, results):
        st = query_stats(res)
        rows.append(
            {
                "protocol": proto,
                "rto_min_ms": rto,
                "servers": n,
                "rounds": sc["queries"][0]["rounds"],
                **st,
            }
        )
    return pd.DataFrame(rows)


def log_ms_axis(ax, values_ms) -> None:
    """A log y axis for completion times; over less than ~a decade the minor ticks are
    labelled too, as plain numbers."""
    ax.set_yscale("log")
    lo, hi = float(np.nanmin(values_ms)), float(np.nanmax(values_ms))
    if lo > 0 and hi / lo < 20:
        from matplotlib.ticker import FuncFormatter

        ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


def plot_many_to_one(
    df, out_dir, stem: str, title: str, paper_note_a: str, paper_note_b: str, paper_ms: float | None = None
):
    """(a) mean query completion time (log y) and (b) timeout fraction vs servers; ``paper_ms``,
    a completion time the paper gives, is drawn as a reference line on (a)."""
    fig, (ax1, ax2) = c.figure(1, 2, size=(10.0, 3.8))
    styles = {300.0: "--", 10.0: "-"}
    for (proto, rto), g in df.groupby(["protocol", "rto_min_ms"], sort=False):
        g = g.sort_values("servers")
        lab = f"{proto} {int(rto)}ms (ours)"
        kw = {"color": COLORS[proto], "ls": styles.get(rto, "-"), "marker": "o", "ms": 3}
        ax1.errorbar(g.servers, g.mean_ms, yerr=g.mean_ci90_ms, capsize=2, label=lab, **kw)
        ax2.plot(g.servers, g.timeout_fraction, label=lab, **kw)
    if paper_ms is not None:
        ax1.axhline(paper_ms, color="k", ls=":", lw=1, label=f"paper: ≈ {paper_ms:g} ms")
    log_ms_axis(ax1, df.mean_ms)
    ax1.set_xlabel("Number of servers")
    ax1.set_ylabel("Query Delay (ms)")
    ax1.set_title("(a) Mean query completion time (90% CI bars)")
    ax1.legend(fontsize=7.5, loc="upper left")
    c.note(ax1, paper_note_a, loc="lower right")
    ax2.set_xlabel("Number of servers")
    ax2.set_ylabel("Fraction of Queries that suffer timeout(s)")
    ax2.set_ylim(-0.02, 1.02)
    ax2.set_title("(b) Queries with ≥ 1 timeout")
    ax2.legend(fontsize=7.5, loc="upper left")
    c.note(ax2, paper_note_b, loc="center right")
    fig.suptitle(title, fontsize=10)
    return c.save_figure(fig, out_dir, stem)


def cdf_plot(ax, values_ms, label: str, color: str) -> None:
    x, y = c.cdf(values_ms)
    ax.step(x, y, where="post", color=color, label=label)


def cdf_rows(protocol: str, values_ms) -> list[dict]:
    """The points of one protocol's completion-time CDF, for the CSV behind a CDF plot."""
    x, y = c.cdf(values_ms)
    return [{"protocol": protocol, "qct_ms": float(a), "cdf": float(b)} for a, b in zip(x, y)]


def all_completed_claim(rounds: int, per: str, completed: int, issued: int) -> dict:
    """A run is only evidence if every query it issued finished inside the horizon."""
    return c.claim(
        "All queries complete within the simulated horizon",
        f"{rounds} queries per {per}",
        f"{completed}/{issued} completed",
        completed == issued,
    )
