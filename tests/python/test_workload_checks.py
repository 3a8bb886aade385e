"""The checks of the DCTCP benchmark's workload against the paper's measurements (DCTCP Figs. 3-5,
`dctcp/workload_checks.py`) on hand-computed vectors: interarrival times, flows active in 50 ms
windows, per server with query fan-out, the generators' declared distributions, and the
Kolmogorov-Smirnov distance. (Each experiment runs end to end at quick scale in test_readme.py.)"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dcsim import workloads as wl
from dcsim.experiments.dctcp import workload_checks as wc

# --- interarrival times -----------------------------------------------------------------------


def test_interarrivals_are_the_gaps_within_each_group():
    # a: arrivals at 0.1, 0.3, 0.6 (given out of order) → 0.2, 0.3; b: one arrival, no gap;
    # c: two at one instant → a gap of 0.
    times = [0.3, 0.1, 2.0, 0.6, 1.0, 2.0]
    groups = ["a", "a", "c", "a", "b", "c"]
    assert wc.interarrivals(times, groups) == pytest.approx([0.2, 0.3, 0.0])
    assert len(wc.interarrivals([], [])) == 0
    with pytest.raises(ValueError, match="group"):
        wc.interarrivals([1.0, 2.0], [0])


def test_gap_statistics_by_hand():
    st = wc.gap_stats(np.array([0.5, 2.0, 2.0, 3.5]))
    # Mean 2, population standard deviation √((2.25 + 0 + 0 + 2.25)/4) = 1.0607.
    assert st["gaps"] == 4 and st["mean_ms"] == pytest.approx(2.0)
    assert st["cv"] == pytest.approx(math.sqrt(1.125) / 2)
    assert st["p50_ms"] == pytest.approx(2.0)
    # One gap in four is under 1 ms: what a log in milliseconds writes as 0 ms.
    assert st["under_zero_ms"] == pytest.approx(0.25)
    # Exponential gaps: a coefficient of variation of 1, the 99th percentile ln 100 / ln 2 =
    # 6.64 times the median, and 1 − e^(−1/mean) of them under 1 ms.
    ex = wc.exponential_stats(162.0)
    assert ex["cv"] == 1.0 and ex["p50_ms"] == pytest.approx(162.0 * math.log(2))
    assert ex["p99_over_p50"] == pytest.approx(math.log(100) / math.log(2))
    assert ex["under_zero_ms"] == pytest.approx(1 - math.exp(-1 / 162.0))


def test_pooled_poisson_gaps_are_weighted_by_rate():
    one = wc.exponential_mixture_cdf([2.0, 2.0])
    assert one(np.array([0.0, 2.0]))[1] == pytest.approx(1 - math.exp(-1))
    # Means 1 and 2: rates 1 and 0.5, so the first process gives two thirds of the gaps.
    two = wc.exponential_mixture_cdf([1.0, 2.0])
    assert two(np.array([1.0]))[0] == pytest.approx((1 * (1 - math.exp(-1)) + 0.5 * (1 - math.exp(-0.5))) / 1.5)


def test_the_benchmarks_declared_means():
    sc = wl.dctcp_benchmark(10.0)
    q = wc.query_means_ms(sc)
    assert len(q) == 45 and list(q.values()) == pytest.approx([600e3 / (188_000 / 45)] * 45)
    bg = wc.background_means_ms(sc, list(range(46)))
    # Every rack server starts one flow per 162 ms; the stand-in 45 × 0.2 as many.
    assert bg[0] == pytest.approx(162.0) and bg[44] == pytest.approx(162.0)
    assert bg[45] == pytest.approx(162.0 / 9)


# --- sizes ------------------------------------------------------------------------------------

# A point mass of half the flows at 10 B, the other half uniform on [10, 20]: mean 12.5 B.
POINTS = [[10.0, 0.5], [20.0, 1.0]]


def test_a_size_tables_flows_and_bytes_per_bin():
    bins = wc.size_bins(POINTS, np.array([0.0, 10.0, 15.0, 20.0, 30.0]))
    assert bins["flows"].tolist() == pytest.approx([0.0, 0.75, 0.25, 0.0])
    # Bytes in [10, 15): the mass at 10 (0.5 × 10) and ∫₁₀¹⁵ x · 0.05 dx = 3.125, over 12.5;
    # in [15, 20): ∫₁₅²⁰ x · 0.05 dx = 4.375, over 12.5.
    assert bins["bytes"].tolist() == pytest.approx([0.0, 0.65, 0.35, 0.0])
    at, below = wc.piecewise_cdf(POINTS)
    assert at(np.array([9.0, 10.0, 15.0, 25.0])).tolist() == pytest.approx([0.0, 0.5, 0.75, 1.0])
    assert below(np.array([10.0, 15.0])).tolist() == pytest.approx([0.0, 0.75])


def test_the_kolmogorov_smirnov_distance_by_hand():
    uniform = lambda x: np.clip(x, 0.0, 1.0)  # noqa: E731
    # One sample at 0.5: the empirical CDF jumps from 0 to 1 where F is 0.5.
    assert wc.ks_distance(np.array([0.5]), uniform) == pytest.approx(0.5)
    assert wc.ks_distance(np.array([0.25, 0.75]), uniform) == pytest.approx(0.25)
    # With the point mass: samples 10, 10, 15, 20 agree at 10 and 15, and just below 15 the
    # empirical CDF is 0.5 where the table's is 0.75.
    at, below = wc.piecewise_cdf(POINTS)
    assert wc.ks_distance(np.array([10.0, 10.0, 15.0, 20.0]), at, below) == pytest.approx(0.25)
    # Treated as continuous, the mass at 10 looks like a jump of the samples alone.
    assert wc.ks_distance(np.array([10.0, 10.0, 15.0, 20.0]), at) == pytest.approx(0.5)
    assert wc.ks_bound(10_000) == pytest.approx(math.sqrt(math.log(2000) / 2) / 100)


def test_the_web_search_table_is_the_benchmarks():
    sc = wl.dctcp_benchmark(10.0)
    points = wc.size_points(sc, 0)
    assert points == wc.size_points(sc, 1) == wl.builtin_points("web_search")
    at, _ = wc.piecewise_cdf(points)
    # 70% at 973,820 B and 80% at 1,946,180 B: 1 MB is 2.69% of the way.
    assert at(np.array([1e6]))[0] == pytest.approx(0.7 + 0.1 * (1e6 - 973_820) / (1_946_180 - 973_820))
    bins = wc.size_bins(points, np.array([0.0, 1e6, np.inf]))
    assert bins["flows"].sum() == pytest.approx(1.0) and bins["bytes"].sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="scales"):
        wc.size_points(wl.dctcp_benchmark(10.0, scaled=True), 0)


# --- concurrency --------------------------------------------------------------------------------


def test_windows_are_whole_and_start_at_the_window():
    assert wc.window_edges(1.0, 1.23) == pytest.approx([1.0, 1.05, 1.10, 1.15, 1.20])
    assert wc.window_edges(0.0, 0.2) == pytest.approx([0.0, 0.05, 0.10, 0.15, 0.20])


def test_three_flows_counted_in_each_50ms_window():
    # A in [10, 20) ms: window 0 only. B in [40, 120) ms: windows 0, 1 and 2. C from 100 ms,
    # never finished: it starts as window 2 begins, so windows 2 and 3, not 1.
    edges = wc.window_edges(0.0, 0.2)
    starts = np.array([0.010, 0.040, 0.100])
    ends = np.array([0.020, 0.120, np.inf])
    assert wc.active_counts(starts, ends, edges).tolist() == [2, 1, 2, 1]
    # NaN (the tables' "never ended") counts as never ended; weights count a flow several times.
    ends_nan = np.array([0.020, 0.120, np.nan])
    assert wc.active_counts(starts, ends_nan, edges, weights=np.array([1, 3, 2])).tolist() == [4, 3, 5, 2]


def test_a_flow_ending_as_a_window_begins_is_not_in_it():
    edges = wc.window_edges(0.0, 0.1)
    assert wc.active_counts(np.array([0.030]), np.array([0.050]), edges).tolist() == [1, 0]
    # One starting as a window begins is in it, not in the one before.
    assert wc.active_counts(np.array([0.050]), np.array([0.070]), edges).tolist() == [0, 1]
    with pytest.raises(ValueError, match="ends before"):
        wc.active_counts(np.array([0.06]), np.array([0.05]), edges)


def test_a_server_counts_its_flows_at_either_end_and_a_querys_fan_out():
    # Servers 0, 1, 2; windows [0, 50) and [50, 100) ms.
    # - a background flow 0 → 1 in [10, 60) ms: one flow at 0 and at 1 in both windows;
    # - workload 0: aggregator 2 queries workers 0 and 1, in [70, 80) ms: 2 flows at 2, one
    #   at 0 and at 1, in window 1;
    # - workload 1: aggregator 0 queries workers 1 and 2 from 20 ms, never completed: 2 flows
    #   at 0, one at 1 and at 2, in both windows.
    edges = wc.window_edges(0.0, 0.1)
    flows = pd.DataFrame({"src": [0], "dst": [1], "start_s": [0.010], "end_s": [0.060]})
    queries = pd.DataFrame({"workload": [0, 1], "client": [2, 0], "issued_s": [0.070, 0.020], "end_s": [0.080, np.nan]})
    c = wc.concurrency([0, 1, 2], flows, queries, {0: [0, 1], 1: [1, 2]}, edges)
    assert c.tolist() == [[3, 4], [2, 3], [1, 3]]
    # Servers left out are not counted (the stand-in), and their flows count at the others.
    assert wc.concurrency([1], flows, queries, {0: [0, 1], 1: [1, 2]}, edges).tolist() == [[2, 3]]


def test_percentiles_of_counts_are_counts():
    x = np.array([0, 0, 1, 2])
    assert (wc.percentile(x, 50), wc.percentile(x, 75), wc.percentile(x, 99.99)) == (0.0, 1.0, 2.0)
    cdf = wc.integer_cdf(x)
    assert cdf["value"].tolist() == [0, 1, 2] and cdf["cdf"].tolist() == pytest.approx([0.5, 0.75, 1.0])
