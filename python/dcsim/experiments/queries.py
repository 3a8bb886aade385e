"""Partition/aggregate query workloads as the experiments of several papers run them, and
their statistics: completion times, timeouts, and the check that every query finished.

A query's completion time runs from the request leaving the client to the last byte of the
last response; it timed out when a retransmission timeout fired on any of its connections
while it ran (the engine's ``queries`` table)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..results import Results
from .declarations import Claim, Metrics, Verdict

REQUEST_BYTES = 100  # request size not given in the sources: one 100-B segment
QUERY_START_S = 0.01  # persistent connections open at t = 0; the first query after the handshakes
Z_90 = 1.6449  # two-sided 90% normal quantile (DCTCP Figs. 18-19 give 90% intervals)


def query(client: int, servers: Sequence[int], response_bytes: int, rounds: int, start_s: float = QUERY_START_S) -> dict[str, Any]:
    """One barrier-synchronised query workload over persistent connections (DCTCP §4.2.1:
    "The client waits until it receives all the responses, and then issues another")."""
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


def _num(x: Any) -> float:
    return float("nan") if x is None else float(x)


def _rows(res: Results, workloads: Sequence[int] | None) -> list[dict[str, Any]]:
    rows = res.rows("queries")
    if workloads is not None:
        w = {int(i) for i in workloads}
        rows = [q for q in rows if int(q["workload"]) in w]
    return rows


def qct_ms(res: Results, workloads: Sequence[int] | None = None) -> np.ndarray:
    """Completion times (ms) of the completed queries (optionally of some workloads only)."""
    v = np.array([_num(q["qct_s"]) for q in _rows(res, workloads)], dtype=float) * 1e3
    return v[np.isfinite(v)]


def mean_ci90_halfwidth(values: Sequence[float] | np.ndarray) -> float:
    """Half-width of the 90% confidence interval of a mean (normal approximation; with the
    ≥ 40 samples per point used here the Student-t quantile differs by < 2%)."""
    v = np.asarray(values, dtype=float)
    if len(v) < 2:
        return float("nan")
    return float(Z_90 * v.std(ddof=1) / math.sqrt(len(v)))


def query_stats(res: Results, workloads: Sequence[int] | None = None) -> dict[str, Any]:
    """Issued / completed counts, completion-time statistics (ms, with the 90% confidence
    interval of the mean) and the fraction of the completed queries that suffered at least
    one retransmission timeout."""
    rows = _rows(res, workloads)
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


def bulk_goodput_gbps(res: Results) -> float:
    """Summed goodput of the long (non-query) flows, Gbit/s."""
    return float(sum(f["goodput_bps"] for f in res.rows("flows") if f["workload"] is None)) / 1e9


def completion(completed: int, issued: int) -> Verdict:
    """Whether every query issued completed, and the count: what makes a run evidence."""
    return completed == issued, f"{completed}/{issued} completed"


def counts(m: Metrics) -> tuple[int, int]:
    """``(completed, issued)`` of metrics that hold them at their top level."""
    return int(m["completed"]), int(m["issued"])


def counts_in_stats(m: Metrics) -> tuple[int, int]:
    """``(completed, issued)`` over every run of metrics that keep each run's
    :func:`query_stats` under ``stats``."""
    stats = m["stats"].values()
    return sum(int(s["completed"]) for s in stats), sum(int(s["issued"]) for s in stats)


def all_completed(per: str, rounds: str = "rounds", count: Callable[[Metrics], tuple[int, int]] = counts) -> Claim:
    """The check that every query a run issued finished inside the simulated horizon; the
    metric ``rounds`` is the queries per ``per``, ``count`` reads the totals."""
    return Claim(
        id="all-queries-complete",
        kind="check",
        text="All queries complete within the simulated horizon",
        paper=lambda m: f"{m[rounds]} queries per {per}",
        check=lambda m: completion(*count(m)),
    )


TOTAL_RESPONSE_BYTES = 1_000_000  # DCTCP §4.2.1: "The client requests 1MB/n bytes from n different servers"


def many_to_one_duration_s(
    rounds: int,
    rto_min_ms: float,
    total_bytes: int = TOTAL_RESPONSE_BYTES,
    rate_gbps: float = 1.0,
) -> float:
    """A generous horizon for ``rounds`` many-to-one queries: every query fits even with
    several backed-off timeouts and at a quarter of the line rate. Without long flows the
    event calendar empties once the last query completes, so the spare time costs nothing."""
    line_s = total_bytes * 8 / (rate_gbps * 1e9)
    return QUERY_START_S + rounds * max(0.1, 8.0 * rto_min_ms / 1e3, 4.0 * line_s) + 1.0
