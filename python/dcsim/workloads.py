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

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _core
from .scenario import read_cdf

if TYPE_CHECKING:  # pandas is imported where a table is built: `import dcsim` stays light
    import pandas as pd

# Size buckets of the DCTCP paper's Fig. 22 (§4.3: "short messages (100KB-1MB)"; the other
# edges are our choice), in bytes.
DCTCP_BUCKETS: tuple[float, ...] = (0, 10e3, 100e3, 1e6, 10e6, float("inf"))

# Percentiles every statistic reports, as the papers report them.
PERCENTILES = (50, 95, 99, 99.9)

# Each percentile's name in a statistic's column: median, p95, p99, p99.9.
PERCENTILE_NAMES = tuple("median" if q == 50 else f"p{q:g}" for q in PERCENTILES)

# The statistics `fct_stats` gives per bucket (beside the bucket and any `by` columns).
FCT_COLUMNS: tuple[str, ...] = (
    "flows",
    "finished",
    "unfinished",
    "biased",
    "timeouts",
    *(f"{stat}_{of}" for of in ("fct_s", "slowdown") for stat in ("mean", *PERCENTILE_NAMES)),
)

# A size bucket with more than this share of its flows unfinished at the end of the run is
# flagged (`biased`): its completion-time statistics count finished flows only, and the
# unfinished ones are the slowest, so they understate the tail.
UNFINISHED_FLAG_SHARE = 0.10


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


def bucket_labels(edges: Sequence[float]) -> list[str]:
    """The labels of the size buckets between `edges` (bytes): `0 B–10 kB`, ..., `10 MB–∞`."""

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
    ``class``, ``generator``): flows, finished and unfinished, mean, median, p95, p99 and
    p99.9 of ``fct_s`` (seconds) and of ``slowdown``, and the flows with at least one
    retransmission timeout.

    Only flows with a size take part (generated flows and listed flows with ``bytes``).
    Completion-time statistics are over the finished ones, which biases them low where many
    are unfinished (the unfinished flows are the slow ones): ``biased`` is true for a bucket
    with more than ``UNFINISHED_FLAG_SHARE`` of its flows unfinished. ``sim.drain_s`` stops
    arrivals before the end of the run so that flows can finish."""
    import pandas as pd

    sized = flows[flows["size_bytes"] > 0].copy()
    labels = bucket_labels(buckets)
    sized["bucket"] = pd.cut(sized["size_bytes"], bins=list(buckets), right=False, labels=labels)
    keys = ["bucket"] + ([by] if isinstance(by, str) else list(by or []))
    rows = []
    for key, group in sized.groupby(keys, observed=True, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        done = group[group["fct_s"].notna()]
        row: dict[str, Any] = dict(zip(keys, key, strict=True))
        unfinished = len(group) - len(done)
        row |= {
            "flows": len(group),
            "finished": len(done),
            "unfinished": unfinished,
            "biased": unfinished > UNFINISHED_FLAG_SHARE * len(group),
            "timeouts": int((group["timeouts"] > 0).sum()),
            "mean_fct_s": float(done["fct_s"].mean()) if len(done) else float("nan"),
        }
        for q, name in zip(PERCENTILES, PERCENTILE_NAMES, strict=True):
            row[f"{name}_fct_s"] = float(np.percentile(done["fct_s"], q)) if len(done) else float("nan")
        slow = done["slowdown"].dropna()
        row["mean_slowdown"] = float(slow.mean()) if len(slow) else float("nan")
        for q, name in zip(PERCENTILES, PERCENTILE_NAMES, strict=True):
            row[f"{name}_slowdown"] = float(np.percentile(slow, q)) if len(slow) else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


def timeouts_by_class(flows: pd.DataFrame, queries: pd.DataFrame | None = None) -> pd.DataFrame:
    """Timeouts per traffic class: for each class of flows, the flows and the fraction with
    at least one retransmission timeout (or SYN retry); with ``queries``, query traffic as
    its own row (a query times out when any of its connections did while it ran)."""
    import pandas as pd

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
        rows.append({"traffic": "queries", "count": len(queries), "with_timeouts": int((queries["timeouts"] > 0).sum())})
    table = pd.DataFrame(rows, columns=["traffic", "count", "with_timeouts"])
    table["fraction"] = table["with_timeouts"] / table["count"].where(table["count"] > 0)
    return table


# ---------------------------------------------------------------------------------------
# The DCTCP benchmark (DCTCP paper §2.2 and §4.3)
# ---------------------------------------------------------------------------------------

# The testbed rack of §4.3: "45 servers connected to a Triumph top of rack switch by 1Gbps
# links. An additional server is connected to a 10Gbps port of the Triumph to act as a
# stand-in for the rest of the data center".
BENCHMARK_RACK_HOSTS = 45
# "We generate traffic for 10 minutes, comprising over 200,000 background flows and over
# 188,000 queries" (§4.3): 313 queries and 333 background flows per second (derived;
# lower bounds, since "over"). Queries: one every 600 s / (188,000 / 45) = 143.6 ms per rack
# server.
BENCHMARK_MINUTES = 10.0
BENCHMARK_QUERIES = 188_000
BENCHMARK_FLOWS = 200_000
BENCHMARK_QUERY_INTERVAL_MS = BENCHMARK_MINUTES * 60e3 / (BENCHMARK_QUERIES / BENCHMARK_RACK_HOSTS)
# "queries from MLAs to workers being 1.6KB" (§2.2); each worker "then send[s] back a 2KB
# response" (§4.3).
BENCHMARK_REQUEST_BYTES = 1_600
BENCHMARK_RESPONSE_BYTES = 2_000
# The 10x scaled benchmark (§4.3 "Scaled traffic"): "the total size of each response is 1MB
# (with 44 servers, each individual response is just under 25KB)", and "we increase the size
# of update flows larger than 1MB by a factor of 10".
BENCHMARK_SCALED_QUERY_BYTES = 1_000_000
BENCHMARK_SCALED_ABOVE_BYTES = 1_000_000
BENCHMARK_SCALED_FACTOR = 10.0
# The paper chooses each background flow's endpoint "so the ratio of inter-rack to
# intra-rack flows is the same as measured in the cluster", and does not give the ratio.
# Our choice: 20% of flows leave the rack (Benson, Akella and Maltz, IMC 2010: in the
# cloud datacenters they measured, 80% of the traffic servers originate stays in the rack).
BENCHMARK_ACROSS_RACKS = 0.2
# Our reading of the text: the 200,000 background flows are all of the
# benchmark's, the stand-in's flows into the rack included: with each rack server starting one every g ms and the stand-in 45 × 0.2 as many,
# 45 · 1.2 / g = 200,000 / 600 s gives g = 162 ms per rack server (135 ms if
# no inbound flows were counted). Web-search sizes (mean 1.67 MB) at this rate offer 8.7% of each
# 1 Gbps link; the 10x scaled sizes 83% (at 135 ms they would offer 99%, and with the 10x
# queries more than the link: the paper's DCTCP short messages were "essentially unchanged
# from baseline" there, which an overloaded link rules out).
BENCHMARK_FLOW_INTERVAL_MS = BENCHMARK_MINUTES * 60e3 * BENCHMARK_RACK_HOSTS * (1 + BENCHMARK_ACROSS_RACKS) / BENCHMARK_FLOWS
# Testbed TCP of the benchmark: the testbed's Windows Server 2008 R2 stack (docs/stacks.md: 10 ms
# timer tick, §4.2.1; delayed ACKs every 2 segments, §3.1) with "RTO_min set to 10ms in both"
# (§4.3), g = 1/16 (§3.5), and the DCTCP testbed's hosts as chosen (docs/validation.md, "How the
# testbeds were chosen"; experiments/dctcp/testbeds.py, which a test holds equal): receive
# windows tuned up to 16 MB and F-RTO (RFC 4138), as Windows Server 2008 documents.
BENCHMARK_TCP = {
    "profile": "windows_2008r2",
    "cc": "newreno",
    "rto_min_ms": 10.0,
    "dctcp_g": 1.0 / 16.0,
    "frto": True,
    "rcv_autotune": True,
    "rcv_autotune_initial_bytes": 65_535,
    "rcv_autotune_max_bytes": 16 << 20,
}


def dctcp_benchmark(
    duration_s: float,
    *,
    scaled: bool = False,
    rate_multiplier: float = 1.0,
    size_multiplier: float = 1.0,
    background_rate_multiplier: float = 1.0,
    drain_s: float = 0.5,
    response_jitter_us: float = 0.0,
    seed: int = 1,
) -> dict[str, Any]:
    """The DCTCP paper's benchmark traffic (§4.3) on its testbed rack, as a scenario: TCP
    NewReno over the Triumph's drop-tail shared buffer, RTO_min 10 ms; set ``tcp.cc`` and
    ``switch.aqm`` for the other protocols.

    - Network: a ``rack`` of 45 hosts on 1 Gbps links under ``tor`` (the Triumph preset) and
      host 45, the stand-in for the rest of the datacenter, on a 10 Gbps port; 25 µs per link
      (100 µs intra-rack RTT, §2.3.3), 38 B Ethernet framing.
    - Queries (partition/aggregate): each rack host is an aggregator with Poisson arrivals
      (mean 143.6 ms) that sends a 1.6 KB request to each of the 44 other rack hosts over
      persistent connections; each answers 2 KB (``scaled``: 1 MB / 44 = 22,727 B), after a
      uniform delay in [0, ``response_jitter_us``] (DCTCP §2.3.2's application jitter).
      ``queries`` workload i is host i's.
    - Background (short messages and update flows): ``traffic`` generator 0 starts flows on
      every rack host with Poisson arrivals (mean 162 ms), sizes from the web-search
      distribution, 20% to the stand-in and the rest to another rack host; generator 1 is
      the stand-in's side of the inter-rack traffic, flows into the rack at the same total
      rate as the rack sends out (45 × 0.2 per 162 ms), to uniformly chosen rack hosts.
      ``scaled``: flows over 1 MB are 10 times larger.
    - Arrivals of both kinds run from 0 to ``duration_s``; the run goes on for ``drain_s``
      more so that flows and queries started near the end can finish.
    - ``rate_multiplier`` divides every mean interval and ``size_multiplier`` multiplies every
      background flow and every response (``dctcp-benchmark-more``);
      ``background_rate_multiplier`` divides the background flows' intervals only, the load
      the paper's flow count pins only within a factor of several (DCTCP Figs. 22-24 by load).

    Each choice the paper leaves open is documented in ``docs/workloads.md`` ("The DCTCP
    benchmark"); the experiments built on it (DCTCP Figs. 7-9 and 22-24) name them in their
    Assumptions.
    """
    if duration_s <= 0 or drain_s < 0:
        raise ValueError("duration_s must be > 0 and drain_s ≥ 0")
    if rate_multiplier <= 0 or background_rate_multiplier <= 0 or size_multiplier < 1:
        raise ValueError("rate_multiplier and background_rate_multiplier must be > 0 and size_multiplier ≥ 1")
    n = BENCHMARK_RACK_HOSTS
    stand_in = n
    rack = list(range(n))
    response = BENCHMARK_SCALED_QUERY_BYTES // (n - 1) if scaled else BENCHMARK_RESPONSE_BYTES
    response = int(round(response * size_multiplier))
    query_gap_ms = BENCHMARK_QUERY_INTERVAL_MS / rate_multiplier
    flow_gap_ms = BENCHMARK_FLOW_INTERVAL_MS / (rate_multiplier * background_rate_multiplier)
    # Each aggregator's first query comes one exponential gap after t = 0, like every later
    # one (the engine issues a workload's first query at its start_s), so aggregators do not
    # start in step. Arrivals stop at duration_s; `rounds` is only a bound (the expected
    # count and 8 standard deviations more).
    rng = np.random.default_rng([seed, 0xDC7C9])
    queries = []
    for client in rack:
        first_s = float(rng.exponential(query_gap_ms / 1e3))
        while first_s >= duration_s:  # only in runs of a few mean gaps
            first_s = float(rng.exponential(query_gap_ms / 1e3))
        expected = (duration_s - first_s) * 1e3 / query_gap_ms
        rounds = int(math.ceil(expected + 8 * math.sqrt(expected) + 1))
        queries.append(
            {
                "client": client,
                "servers": [s for s in rack if s != client],
                "request_bytes": BENCHMARK_REQUEST_BYTES,
                "response_bytes": response,
                "rounds": rounds,
                "start_s": first_s,
                "stop_s": float(duration_s),
                "arrival": {"kind": "poisson", "mean_interval_ms": query_gap_ms},
                "response_jitter_us": float(response_jitter_us),
                "persistent": True,
            }
        )
    size: dict[str, Any] = web_search()
    scaling: dict[str, Any] = {}
    if scaled:
        scaling = {"scale_above_bytes": BENCHMARK_SCALED_ABOVE_BYTES, "scale_factor": BENCHMARK_SCALED_FACTOR}
    if size_multiplier != 1:
        if scaled:
            raise ValueError("scaled and size_multiplier do not combine: choose one")
        scaling = {"scale_above_bytes": 1, "scale_factor": float(size_multiplier)}
    p = BENCHMARK_ACROSS_RACKS
    background = [
        traffic(
            size,
            mean_interval_ms=flow_gap_ms,
            sources=rack,
            destination={"kind": "mixed", "across_racks": p},
            stop_s=duration_s,
            **scaling,
        ),
        traffic(
            size,
            mean_interval_ms=flow_gap_ms / (n * p),
            sources=[stand_in],
            destinations=rack,
            destination="uniform",
            stop_s=duration_s,
            **scaling,
        ),
    ]
    link = {"rate_gbps": 1.0, "delay_us": 25.0, "framing_bytes": 38}
    return {
        "name": "dctcp-benchmark" + ("-10x" if scaled else ""),
        "sim": {"seed": int(seed), "duration_s": float(duration_s + drain_s), "warmup_s": 0.0},
        "topology": {
            "kind": "rack",
            "hosts": n,
            "uplinks": 1,
            "host_link": link,
            "uplink": link | {"rate_gbps": 10.0},
        },
        "switch": {"buffer": {"kind": "preset", "name": "triumph"}, "aqm": {"kind": "drop_tail"}},
        "tcp": dict(BENCHMARK_TCP),
        "queries": queries,
        "traffic": background,
        "measure": {"queue_sample_us": 0.0},
    }
