"""What the checks of the benchmark's workload against the DCTCP paper's measurements (§2.2,
Figs. 3, 4 and 5) share: the distributions the benchmark's generators declare (read from the
scenario, without simulating), the interarrival times and the concurrency of flows counted
from a run's tables, and a Kolmogorov-Smirnov distance between the two.

The benchmark's generators (:func:`dcsim.workloads.dctcp_benchmark`) are open loop: a query is
issued, and a background flow opens its connection, at the instant its generator draws,
whatever the network does (the engine has one random stream per generator). So the runs'
``queries.issued_s`` and ``flows.start_s`` are the generators' draws themselves, the same in
every protocol's run (:func:`same_arrivals`), while completion times, and therefore
concurrency, depend on the protocol.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ... import workloads as wl
from ...results import Results

if TYPE_CHECKING:
    import pandas as pd

# §2.2: "the number of flows active during a 50ms window".
WINDOW_S = 0.050
# §2.2: "When only large flows (> 1MB) are considered"; and the classes of background flows:
# "large, 1MB to 50MB, update flows" and "short message flows, 50KB to 1MB in size".
LARGE_BYTES = 1e6
SHORT_MESSAGE_BYTES = (50e3, 1e6)
UPDATE_BYTES = (1e6, 50e6)
# The paper reads its interarrival times in milliseconds ("the 0ms inter-arrivals"): a gap
# that a log with millisecond resolution writes as 0 ms is one under 1 ms.
ZERO_MS = 1.0
# The Kolmogorov-Smirnov test's level for "the runs' samples are the declared distribution's":
# 0.1%, so that a true check fails once in a thousand runs.
KS_ALPHA = 0.001


# --- what the generators declare ----------------------------------------------------------


def query_means_ms(sc: Mapping[str, Any]) -> dict[int, float]:
    """Mean interval between queries (ms) of each aggregator (query workload) of ``sc``: the
    workload's Poisson arrivals."""
    out = {}
    for w, q in enumerate(sc.get("queries") or []):
        arrival = q.get("arrival") or {}
        if arrival.get("kind") != "poisson" or "mean_interval_ms" not in arrival:
            raise ValueError(f"queries[{w}]: not Poisson arrivals at a mean interval")
        out[w] = float(arrival["mean_interval_ms"])
    return out


def background_means_ms(sc: Mapping[str, Any], hosts: Sequence[int]) -> dict[int, float]:
    """Mean interval (ms) between the background flows each of ``hosts`` starts: for each host,
    the superposition of the Poisson arrivals of every generator of ``sc`` it is a source of."""
    rate: dict[int, float] = dict.fromkeys(hosts, 0.0)
    for g, gen in enumerate(sc.get("traffic") or []):
        arrival = gen.get("arrival") or {}
        if arrival.get("kind") != "poisson" or "mean_interval_ms" not in arrival:
            raise ValueError(f"traffic[{g}]: not Poisson arrivals at a mean interval")
        for s in gen.get("sources") or []:
            if s in rate:
                rate[s] += 1.0 / float(arrival["mean_interval_ms"])
    return {h: 1.0 / r for h, r in rate.items() if r > 0}


def exponential_mixture_cdf(means: Sequence[float]) -> Callable[[np.ndarray], np.ndarray]:
    """The CDF of the gaps of several Poisson processes of the given mean intervals pooled
    together: each process gives gaps in proportion to its rate, so F(x) = Σ λᵢ(1 − e^(−λᵢx)) /
    Σ λᵢ with λᵢ = 1/meanᵢ (one exponential when the means are equal)."""
    lam = 1.0 / np.asarray(means, dtype=float)

    def cdf(x: np.ndarray) -> np.ndarray:
        x = np.maximum(np.asarray(x, dtype=float), 0.0)
        return (lam[:, None] * -np.expm1(-lam[:, None] * x[None, :])).sum(axis=0) / lam.sum()

    return cdf


def exponential_stats(mean: float) -> dict[str, float]:
    """The statistics :func:`gap_stats` reports, for exponential gaps of ``mean`` ms: a
    coefficient of variation of 1, the p-th percentile −mean·ln(1 − p)."""
    q = {p: -mean * math.log1p(-p / 100) for p in (10, 50, 90, 99)}
    return {
        "gaps": math.nan,
        "mean_ms": mean,
        "cv": 1.0,
        **{f"p{p}_ms": v for p, v in q.items()},
        "p99_over_p50": q[99] / q[50],
        "under_zero_ms": -math.expm1(-ZERO_MS / mean),
    }


def size_points(sc: Mapping[str, Any], generator: int = 0) -> list[list[float]]:
    """The ``[bytes, cdf]`` points of the sizes a traffic generator of ``sc`` draws (its
    scaling of large flows left out: the baseline benchmark has none)."""
    gen = sc["traffic"][generator]
    if "scale_above_bytes" in gen:
        raise ValueError(f"traffic[{generator}] scales its large flows: its sizes are not its table's")
    size = gen["size"]
    if size["kind"] in ("web_search", "data_mining"):
        return wl.builtin_points(size["kind"])
    if size["kind"] == "cdf":
        return [list(p) for p in size["points"]]
    raise ValueError(f"traffic[{generator}].size: no table for kind {size['kind']!r}")


def piecewise_cdf(points: Sequence[Sequence[float]]) -> tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray]]:
    """P(X ≤ x) and P(X < x) of a piecewise-linear CDF through ``points`` whose first point,
    if its probability is above 0, is a point mass there (the engine's reading of a size
    table)."""
    xs = np.array([p[0] for p in points], dtype=float)
    ps = np.array([p[1] for p in points], dtype=float)

    def at(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        return np.where(x < xs[0], 0.0, np.interp(x, xs, ps))

    def below(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        return np.where(x <= xs[0], 0.0, np.interp(x, xs, ps))

    return at, below


def size_bins(points: Sequence[Sequence[float]], edges: np.ndarray) -> pd.DataFrame:
    """For the bins ``[edges[i], edges[i+1])``, what the size table ``points`` puts in each:
    ``flows`` (the probability that a flow's size is in it) and ``bytes`` (the probability that
    a randomly chosen byte is in a flow of a size in it: ∫ x dF over the bin, over the mean).
    Within a segment of the table the density is uniform, so a segment's part [a, b] of the bin
    holds ΔF·(b − a)/(x₁ − x₀) of the flows and ΔF·(b² − a²)/(2(x₁ − x₀)) of the bytes."""
    import pandas as pd

    xs = np.array([p[0] for p in points], dtype=float)
    ps = np.array([p[1] for p in points], dtype=float)
    lo, hi = np.asarray(edges[:-1], dtype=float), np.asarray(edges[1:], dtype=float)
    flows = np.zeros(len(lo))
    mass = np.zeros(len(lo))
    # The point mass at the first value.
    inside = (lo <= xs[0]) & (xs[0] < hi)
    flows += np.where(inside, ps[0], 0.0)
    mass += np.where(inside, ps[0] * xs[0], 0.0)
    for x0, x1, dp in zip(xs[:-1], xs[1:], np.diff(ps)):
        if dp <= 0 or x1 <= x0:
            continue
        a, b = np.clip(lo, x0, x1), np.clip(hi, x0, x1)
        flows += dp * (b - a) / (x1 - x0)
        mass += dp * (b * b - a * a) / (2 * (x1 - x0))
    return pd.DataFrame({"lo_bytes": lo, "hi_bytes": hi, "flows": flows, "bytes": mass / wl.cdf_mean(points)})


def log_edges(lo: float, hi: float, per_decade: int) -> np.ndarray:
    """Bin edges from ``lo`` to ``hi``, ``per_decade`` to a factor of 10."""
    decades = math.log10(hi / lo)
    return lo * 10.0 ** (np.arange(round(decades * per_decade) + 1) / per_decade)


# --- what the runs show ---------------------------------------------------------------------


def interarrivals(times: Sequence[float] | np.ndarray, groups: Sequence[Any] | np.ndarray) -> np.ndarray:
    """The times between consecutive arrivals within each group (a server, an aggregator), in
    the units of ``times``, pooled: a group of k arrivals gives k − 1 gaps, in time order,
    groups in sorted order."""
    t = np.asarray(times, dtype=float)
    g = np.asarray(groups)
    if len(t) != len(g):
        raise ValueError("one group per time")
    if not len(t):
        return np.zeros(0)
    order = np.lexsort((t, g))
    t, g = t[order], g[order]
    same = g[1:] == g[:-1]
    return np.diff(t)[same]


def gap_stats(gaps_ms: np.ndarray) -> dict[str, float]:
    """Interarrival statistics (ms): count, mean, coefficient of variation (standard deviation
    over mean: 1 for Poisson arrivals), percentiles, the 99th percentile over the median, and
    the share of gaps under :data:`ZERO_MS` (what a log in milliseconds shows as 0 ms)."""
    x = np.asarray(gaps_ms, dtype=float)
    nan = math.nan
    if not len(x):
        return {
            "gaps": 0,
            "mean_ms": nan,
            "cv": nan,
            "p10_ms": nan,
            "p50_ms": nan,
            "p90_ms": nan,
            "p99_ms": nan,
            "p99_over_p50": nan,
            "under_zero_ms": nan,
        }
    q = {p: float(np.percentile(x, p)) for p in (10, 50, 90, 99)}
    return {
        "gaps": len(x),
        "mean_ms": float(x.mean()),
        "cv": float(x.std() / x.mean()) if x.mean() > 0 else nan,
        **{f"p{p}_ms": v for p, v in q.items()},
        "p99_over_p50": q[99] / q[50] if q[50] > 0 else math.inf,
        "under_zero_ms": float((x < ZERO_MS).mean()),
    }


def ecdf_at(samples: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """The share of ``samples`` at or below each value of ``grid``."""
    s = np.sort(np.asarray(samples, dtype=float))
    return np.searchsorted(s, grid, side="right") / max(len(s), 1)


def ks_distance(
    samples: np.ndarray,
    cdf: Callable[[np.ndarray], np.ndarray],
    cdf_below: Callable[[np.ndarray], np.ndarray] | None = None,
) -> float:
    """sup |Fₙ − F| between the samples' empirical CDF and ``cdf`` (P(X ≤ x)); ``cdf_below``
    (P(X < x)) where F has point masses, else F is taken to be continuous."""
    s = np.sort(np.asarray(samples, dtype=float))
    n = len(s)
    if not n:
        return math.nan
    v = np.unique(s)
    at = np.searchsorted(s, v, side="right") / n
    below = np.searchsorted(s, v, side="left") / n
    f_at = cdf(v)
    f_below = f_at if cdf_below is None else cdf_below(v)
    return float(max(np.abs(at - f_at).max(), np.abs(below - f_below).max()))


def ks_bound(n: int, alpha: float = KS_ALPHA) -> float:
    """The Kolmogorov-Smirnov distance that ``n`` samples of the distribution itself exceed
    with probability ``alpha`` (asymptotic: √(ln(2/α)/2)/√n, 1.95/√n at 0.1%)."""
    return math.sqrt(math.log(2 / alpha) / 2) / math.sqrt(n) if n else math.nan


def same_arrivals(runs: Mapping[Any, Results]) -> bool:
    """Whether every run issued its queries and started its generated flows at the same
    instants, between the same hosts, with the same sizes: the generators' draws do not depend
    on the protocol."""

    def draws(res: Results) -> tuple[np.ndarray, np.ndarray]:
        f = res.flows
        g = f[f["generator"].notna()].sort_values(["start_s", "src", "dst"], kind="stable")
        q = res.queries.sort_values(["workload", "query"], kind="stable")
        return g[["start_s", "src", "dst", "size_bytes"]].to_numpy(dtype=float), q[["workload", "issued_s"]].to_numpy(dtype=float)

    seen = [draws(r) for r in runs.values()]
    return all(
        a[0].shape == seen[0][0].shape and (a[0] == seen[0][0]).all() and a[1].shape == seen[0][1].shape and (a[1] == seen[0][1]).all()
        for a in seen
    )


def window_edges(t0: float, t1: float, width: float = WINDOW_S) -> np.ndarray:
    """Edges of the whole windows of ``width`` seconds that tile [t0, t1) from t0 (a last,
    partial window is left out)."""
    k = int(math.floor((t1 - t0) / width + 1e-9))
    return t0 + width * np.arange(k + 1)


def active_counts(starts: np.ndarray, ends: np.ndarray, edges: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """For each window [edges[k], edges[k+1]), how many of the intervals [starts[i], ends[i])
    (each counted ``weights[i]`` times; once by default) are active during it: started before
    the window ends and not ended by the time it begins. An interval that never ended has
    ``ends[i]`` = inf (or NaN)."""
    a = np.asarray(starts, dtype=float)
    e = np.nan_to_num(np.asarray(ends, dtype=float), nan=math.inf)
    if (e < a).any():
        raise ValueError("an interval ends before it starts")
    w = np.ones(len(a)) if weights is None else np.asarray(weights, dtype=float)
    lo, hi = np.asarray(edges[:-1], dtype=float), np.asarray(edges[1:], dtype=float)

    def weight_before(values: np.ndarray, at: np.ndarray, side: Literal["left", "right"]) -> np.ndarray:
        order = np.argsort(values, kind="stable")
        cum = np.concatenate(([0.0], np.cumsum(w[order])))
        return cum[np.searchsorted(values[order], at, side=side)]

    # Started before the window ends, less those ended at or before it begins (these started
    # before that too).
    return weight_before(a, hi, "left") - weight_before(e, lo, "right")


def concurrency(
    servers: Sequence[int],
    flows: pd.DataFrame,
    queries: pd.DataFrame,
    query_servers: Mapping[int, Sequence[int]],
    edges: np.ndarray,
) -> np.ndarray:
    """The number of flows each of ``servers`` takes part in during each window (DCTCP §2.2's
    concurrency), as an array servers × windows.

    ``flows``: one row per flow with ``src``, ``dst``, ``start_s`` and ``end_s`` (NaN: never
    ended); it counts at both its ends. ``queries``: one row per query with ``workload``,
    ``client``, ``issued_s`` and ``end_s``; ``query_servers[w]`` are the workers of workload
    ``w``. A query is one flow between its aggregator and each of its workers, each active from
    the query's issue to its completion: its aggregator takes part in one flow per worker, each
    worker in one."""
    index = {s: i for i, s in enumerate(servers)}
    out = np.zeros((len(servers), len(edges) - 1))
    for end in ("src", "dst"):
        for host, f in flows.groupby(end):
            if int(host) in index:
                out[index[int(host)]] += active_counts(f["start_s"].to_numpy(), f["end_s"].to_numpy(), edges)
    for w, q in queries.groupby("workload"):
        counts = active_counts(q["issued_s"].to_numpy(), q["end_s"].to_numpy(), edges)
        workers = list(query_servers[int(w)])
        client = int(q["client"].iloc[0])
        if client in index:
            out[index[client]] += len(workers) * counts
        for s in workers:
            if s in index:
                out[index[s]] += counts
    return out


def percentile(values: np.ndarray, p: float) -> float:
    """The empirical p-th percentile: the smallest value with at least p% of the samples at or
    below it (a value the samples take, as a count should be)."""
    x = np.asarray(values, dtype=float)
    return float(np.percentile(x, p, method="inverted_cdf")) if len(x) else math.nan


def integer_cdf(values: np.ndarray) -> pd.DataFrame:
    """The CDF of counts: each value taken and the share of samples at or below it."""
    import pandas as pd

    v, n = np.unique(np.asarray(values), return_counts=True)
    return pd.DataFrame({"value": v, "cdf": np.cumsum(n) / max(int(n.sum()), 1)})


# --- drawing ----------------------------------------------------------------------------------

# Our runs' colours (the benchmark's protocols) and the generators' declared distribution.
GENERATOR_STYLE: dict[str, Any] = {"color": "black", "linestyle": "--", "linewidth": 1.2}
PAPER_COLOR = "#c9a227"


def paper_mark(ax: Any, x: float, y: float, label: str, **kw: Any) -> None:
    """A value the paper's text gives, as a diamond at (x, y) with its words beside it."""
    ax.plot([x], [y], marker="D", color=PAPER_COLOR, markeredgecolor="black", markersize=7, linestyle="none", zorder=5)
    ax.annotate(label, (x, y), xytext=kw.pop("xytext", (6, -10)), textcoords="offset points", fontsize=7, color="#7a5c00", **kw)
