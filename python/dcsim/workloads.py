"""Open-loop traffic: builders for ``[[traffic]]`` generators, the flow-size distributions
that ship with dcsim, and flow-completion-time statistics.

A generator starts flows on each of its source hosts by an arrival process (Poisson, or gaps
from an empirical CDF), sizes drawn from a distribution and destinations by a rule::

    sc = star(16)
    sc["traffic"] = [traffic(size=web_search(), load=0.5)]
    res = dcsim.run(sc)
    fct_stats(res.flows)            # per size bucket: mean, median, p95, p99, p99.9, slowdown

Every generated flow is a row of ``Results.flows`` with ``generator``, ``size_bytes``,
``fct_s``, ``ideal_fct_s`` (the same flow alone on the idle network) and ``slowdown``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import _core
from .scenario import read_cdf

# Size buckets of the DCTCP paper's Fig. 22 (§4.3: "short messages (100KB-1MB)"; the other
# edges are a choice, spec experiments.md dctcp-fig22), in bytes.
DCTCP_BUCKETS: tuple[float, ...] = (0, 10e3, 100e3, 1e6, 10e6, float("inf"))

# Percentiles every statistic reports, as the papers report them.
PERCENTILES = (50, 95, 99, 99.9)


def web_search() -> dict[str, Any]:
    """The "web search" flow sizes (pFabric's CDF from the DCTCP paper's measurements; mean
    1.67 MB), as a ``size`` table."""
    return {"kind": "web_search"}


def data_mining() -> dict[str, Any]:
    """The "data mining" flow sizes (VL2, Greenberg et al. 2009), as a ``size`` table."""
    return {"kind": "data_mining"}


def builtin_points(name: str) -> list[list[float]]:
    """The ``[bytes, cdf]`` points of a built-in distribution (``web_search``,
    ``data_mining``), as shipped in ``crates/dcsim/data/``."""
    return [list(p) for p in _core.builtin_cdf(name)]


def cdf(points: Sequence[Sequence[float]] | str | Path) -> dict[str, Any]:
    """An empirical distribution as a ``size`` or ``arrival`` table: its ``[value, cdf]``
    points, or a CSV or TOML file of them (read now)."""
    if isinstance(points, (str, Path)):
        points = read_cdf(points)
    return {"kind": "cdf", "points": [[float(x), float(p)] for x, p in points]}


def cdf_mean(points: Sequence[Sequence[float]]) -> float:
    """The mean of a piecewise-linear CDF (a first point with p > 0 is a point mass)."""
    xs = np.array([p[0] for p in points], dtype=float)
    ps = np.array([p[1] for p in points], dtype=float)
    return float(ps[0] * xs[0] + np.sum(np.diff(ps) * (xs[1:] + xs[:-1]) / 2))


def traffic(
    size: dict[str, Any],
    load: float | None = None,
    mean_interval_ms: float | None = None,
    arrival: dict[str, Any] | None = None,
    sources: Sequence[int] | None = None,
    destinations: Sequence[int] | None = None,
    destination: str | dict[str, Any] = "uniform",
    **fields: Any,
) -> dict[str, Any]:
    """One ``[[traffic]]`` generator. Poisson arrivals at ``load`` (fraction of each source's
    link rate) or every ``mean_interval_ms`` on average, or any ``arrival`` table;
    ``destination`` is ``uniform``, ``in_rack``, ``across_racks`` or a ``mixed`` table; other
    fields (``start_s``, ``stop_s``, ``cc``, ``class``, ``scale_above_bytes``, ...) pass
    through."""
    if arrival is None:
        if (load is None) == (mean_interval_ms is None):
            raise ValueError("give exactly one of load, mean_interval_ms or arrival")
        arrival = {"kind": "poisson"} | ({"load": load} if load is not None else {"mean_interval_ms": mean_interval_ms})
    elif load is not None:
        arrival = arrival | {"load": load}
    table: dict[str, Any] = {"size": size, "arrival": arrival}
    if sources is not None:
        table["sources"] = list(sources)
    if destinations is not None:
        table["destinations"] = list(destinations)
    table["destination"] = {"kind": destination} if isinstance(destination, str) else destination
    return table | fields


def _bucket_labels(edges: Sequence[float]) -> list[str]:
    def human(b: float) -> str:
        if b == float("inf"):
            return "∞"
        for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
            if b >= scale:
                return f"{b / scale:g} {unit}"
        return f"{b:g} B"

    return [f"{human(a)}–{human(b)}" for a, b in zip(edges[:-1], edges[1:], strict=True)]


def fct_stats(
    flows: pd.DataFrame,
    buckets: Sequence[float] = DCTCP_BUCKETS,
    by: str | Sequence[str] | None = None,
) -> pd.DataFrame:
    """Flow-completion-time statistics per size bucket (``buckets``: edges in bytes, a flow
    of s bytes in [a, b) when a ≤ s < b), optionally also per ``by`` column (``cc``,
    ``class``, ``generator``): flows, finished, mean, median, p95, p99 and p99.9 of ``fct_s``
    (seconds) and of ``slowdown``, and the flows with at least one retransmission timeout.

    Only flows with a size take part (generated flows and listed flows with ``bytes``);
    completion-time statistics are over the finished ones."""
    sized = flows[flows["size_bytes"] > 0].copy()
    labels = _bucket_labels(buckets)
    sized["bucket"] = pd.cut(sized["size_bytes"], bins=list(buckets), right=False, labels=labels)
    keys = ["bucket"] + ([by] if isinstance(by, str) else list(by or []))
    rows = []
    for key, group in sized.groupby(keys, observed=True, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        done = group[group["fct_s"].notna()]
        row: dict[str, Any] = dict(zip(keys, key, strict=True))
        row |= {
            "flows": len(group),
            "finished": len(done),
            "timeouts": int((group["timeouts"] > 0).sum()),
            "mean_fct_s": float(done["fct_s"].mean()) if len(done) else float("nan"),
        }
        for q in PERCENTILES:
            name = "median" if q == 50 else f"p{q:g}"
            row[f"{name}_fct_s"] = float(np.percentile(done["fct_s"], q)) if len(done) else float("nan")
        slow = done["slowdown"].dropna()
        row["mean_slowdown"] = float(slow.mean()) if len(slow) else float("nan")
        for q in PERCENTILES:
            name = "median" if q == 50 else f"p{q:g}"
            row[f"{name}_slowdown"] = float(np.percentile(slow, q)) if len(slow) else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


def timeouts_by_class(flows: pd.DataFrame, queries: pd.DataFrame | None = None) -> pd.DataFrame:
    """Timeouts per traffic class: for each class of flows, the flows and the fraction with
    at least one retransmission timeout (or SYN retry); with ``queries``, query traffic as
    its own row (a query times out when any of its connections did while it ran)."""
    rows = []
    sized = flows[flows["size_bytes"] > 0]
    for cls, group in sized.groupby("class", sort=True):
        rows.append(
            {
                "traffic": f"class {cls}",
                "count": len(group),
                "with_timeouts": int((group["timeouts"] + group["syn_retries"] > 0).sum()),
            }
        )
    if queries is not None and len(queries):
        rows.append(
            {"traffic": "queries", "count": len(queries), "with_timeouts": int((queries["timeouts"] > 0).sum())}
        )
    table = pd.DataFrame(rows, columns=["traffic", "count", "with_timeouts"])
    table["fraction"] = table["with_timeouts"] / table["count"].where(table["count"] > 0)
    return table
