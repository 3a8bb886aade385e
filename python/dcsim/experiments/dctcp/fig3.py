"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), Figure 3: time between arrivals of queries at
an aggregator and of background flows at a server, the benchmark's generators against what
the paper measured.

Paper (§2.2, production measurement over "over 6000 servers in over 150 racks"): Fig. 3 caption:
"Time between arrival of new work for the Aggregator (queries) and between background flows
between servers (update and short message)". (a) "the CDF of time between arrivals of queries
at mid-level aggregators"; (b) "the time between arrival of new background flows", of which
the text says: "(1) the variance in interarrival time is very high, with a very heavy tail;
(2) embedded spikes occur, for example the 0ms inter-arrivals that explain the CDF hugging the
y-axis up to the 50th percentile; and (3) relatively large numbers of outgoing flows occur
periodically, resulting from workers periodically polling a number of peers looking for
updated files." The benchmark (§4.3) draws from these distributions: "each server draw[s]
from the interarrival time distribution and send[s] a query to all other servers in the
rack"; "For the short-message and background traffic, each server draws independently from
the interarrival time and the flow size distributions".

Published numbers: the curves are in the figure only; the text gives the facts above and the
benchmark's volume: "We generate traffic for 10 minutes, comprising over 200,000 background
flows and over 188,000 queries" (§4.3), i.e. over 313 queries and 333 background flows per
second.

Our setup: the benchmark's generators (`dcsim.workloads.dctcp_benchmark`) seen two ways.
Generator: the distribution each generator declares, read from the scenario without
simulating (the engine exposes no draws without a run): every aggregator issues Poisson queries
(exponential gaps, mean 143.6 ms), every rack server starts Poisson background flows (mean
162 ms); the exact exponential CDF is drawn. Runs: the two runs of `dctcp-fig22` (TCP and
DCTCP, the same scenarios, simulated once), their `queries.issued_s` per aggregator and the
`flows.start_s` of the background flows each rack server starts, in the measurement window
(after the warm-up, before arrivals stop); a gap is between two consecutive arrivals of one
aggregator or server, both in the window. The generators are open loop (an arrival never
waits for the network), so these are the generators' own draws and the same in both runs
(checked). Also shown: the gaps between the background flows a rack server takes part in at
either end (its own, those other rack servers send it and those of the stand-in for the rest
of the datacenter), as a socket log at the server would see them.

Claims, with their bounds chosen before the runs: Poisson arrivals have exponential gaps, whose
coefficient of variation (standard deviation over mean) is 1 and whose 99th percentile is
ln 100 / ln 2 = 6.6 times the median. "Very high" variance and "a very heavy tail" are read as
clearly more than Poisson arrivals have: a coefficient of variation above 1.5 and a 99th
percentile over 13.3 times the median (twice the exponential's), margins far beyond the
sampling noise of the thousands of gaps a quick run has (the coefficient's standard error is
≈ 0.03 there). "0ms inter-arrivals ... up to the 50th percentile" is read from a log in
milliseconds: the median gap is under 1 ms. The benchmark's volume is "over" the paper's
counts: the rates must reach 95% of them (5% allows for the Poisson noise of a quick run, whose
counts have a standard deviation of 2%).

Assumptions: those of `dctcp-fig22` (docs/workloads.md "The DCTCP benchmark"): the paper does
not give the interarrival distributions' numbers, so the benchmark draws exponential gaps at
the means its counts give (188,000 queries and 200,000 background flows in 10 minutes, the
stand-in's flows into the rack counted among the 200,000). "At a server" is read as the flows
a server starts, since that is what each server draws in the benchmark (§4.3); the stand-in,
a stand-in for many servers, is not a server here.

Known deviation (by construction): the two claims on background interarrivals fail. The
generator's Poisson arrivals have a coefficient of variation of 1 and a tail 6.6 times the
median, and their median is ln 2 × 162 ms = 112 ms, where the paper's median is about 0 ms:
the generator has no batches of simultaneous flows, no spikes and no periodic polling. Quick
run: over 2,394 gaps a median of 109.5 ms, 0.4% of gaps under 1 ms, a coefficient of variation
of 1.05 and a 99th percentile 7.4 times the median (the declared exponential: 112.3 ms, 0.6%,
1 and 6.6); counting the flows a server receives too halves the gaps but leaves them
exponential. A
generator with those (gaps drawn from an empirical CDF with half its mass at 0, or batches of
flows per arrival) would change the benchmark's burstiness, and so every result of Figs. 7-9
and 22-24; the present runs show how far the benchmark's traffic is from the measured one.

Outputs: fig3_stats.csv (panel, source, scope, gaps, mean, coefficient of variation,
percentiles, 99th/median, share under 1 ms; generator rows exact), fig3_cdf.csv (panel,
source, scope, gap_ms, cdf on a log grid), fig3.png/.svg.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import workloads as wl
from ..analysis import fmt
from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from ..units import ms
from . import benchmark as b
from . import workload_checks as wc

# §4.3: "over 200,000 background flows and over 188,000 queries" in 10 minutes.
PAPER_QUERIES_PER_S = wl.BENCHMARK_QUERIES / (wl.BENCHMARK_MINUTES * 60)
PAPER_FLOWS_PER_S = wl.BENCHMARK_FLOWS / (wl.BENCHMARK_MINUTES * 60)
# The rate our runs must reach, as a share of the paper's ("over"), at a quick run's noise.
RATE_TOLERANCE = 0.95
# "very high" variance, "very heavy tail": clearly more than Poisson arrivals' 1 and ln100/ln2.
CV_BOUND = 1.5
EXPONENTIAL_P99_OVER_P50 = np.log(100) / np.log(2)
TAIL_BOUND = 2 * EXPONENTIAL_P99_OVER_P50
# The CDFs are written on this grid of gaps (ms).
GRID_MS = wc.log_edges(1e-3, 1e5, 40)
# The plot's gap axis (ms): "0 ms" is drawn at its left edge.
XLIM_MS = (1e-2, 1e4)
# Scopes of the series.
PER_AGGREGATOR = "per aggregator"
STARTED = "started by a server"
EITHER_END = "at a server, either end"


def scenarios(p: Params, tb: Testbed) -> dict[str, dict]:
    return b.baseline_runs(p, tb)


def _rack(sc: dict[str, Any]) -> list[int]:
    return list(range(int(sc["topology"]["hosts"])))


def run_gaps(res: Any, sc: dict[str, Any]) -> dict[str, np.ndarray]:
    """The gaps (ms) of one run's window: queries per aggregator, background flows each rack
    server starts, and background flows at a rack server at either end."""
    import pandas as pd

    n = len(_rack(sc))
    q = b.queries(res, sc)
    bg = b.background(res, sc)
    started = bg[bg["src"] < n]
    ends = pd.concat([pd.DataFrame({"t": bg["start_s"], "host": bg[end]}) for end in ("src", "dst")])
    ends = ends[ends["host"] < n]
    return {
        PER_AGGREGATOR: ms(wc.interarrivals(q["issued_s"], q["workload"])),
        STARTED: ms(wc.interarrivals(started["start_s"], started["src"])),
        EITHER_END: ms(wc.interarrivals(ends["t"], ends["host"])),
    }


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    sc = runs.scenario("TCP")
    t0, t1 = b.window(sc)
    rack = _rack(sc)
    q_means = wc.query_means_ms(sc)
    bg_means = wc.background_means_ms(sc, rack)
    declared = {PER_AGGREGATOR: list(q_means.values()), STARTED: list(bg_means.values())}
    stats_rows, cdf_rows = [], []
    for scope, means in declared.items():
        panel = "a" if scope == PER_AGGREGATOR else "b"
        # Equal means (every aggregator, every rack server): the pooled gaps are one exponential.
        st = wc.exponential_stats(float(np.mean(means))) if np.ptp(means) == 0 else {}
        stats_rows.append({"panel": panel, "source": "generator", "scope": scope, **st})
        for x, y in zip(GRID_MS, wc.exponential_mixture_cdf(means)(GRID_MS)):
            cdf_rows.append({"panel": panel, "source": "generator", "scope": scope, "gap_ms": float(x), "cdf": float(y)})
    gaps, rates = {}, {}
    for proto in runs:
        res, s = runs[proto], runs.scenario(proto)
        gaps[proto] = run_gaps(res, s)
        rates[proto] = {
            "queries_per_s": len(b.queries(res, s)) / (t1 - t0),
            "flows_per_s": len(b.background(res, s)) / (t1 - t0),
        }
        for scope, g in gaps[proto].items():
            panel = "a" if scope == PER_AGGREGATOR else "b"
            stats_rows.append({"panel": panel, "source": proto, "scope": scope, **wc.gap_stats(g)})
            for x, y in zip(GRID_MS, wc.ecdf_at(g, GRID_MS)):
                cdf_rows.append({"panel": panel, "source": proto, "scope": scope, "gap_ms": float(x), "cdf": float(y)})
    stats = pd.DataFrame(stats_rows)

    def row(source: str, scope: str) -> dict[str, Any]:
        return stats[(stats["source"] == source) & (stats["scope"] == scope)].iloc[0].to_dict()

    tcp = gaps["TCP"]
    ks = {
        scope: {
            "distance": wc.ks_distance(tcp[scope], wc.exponential_mixture_cdf(means)),
            "bound": wc.ks_bound(len(tcp[scope])),
            "gaps": len(tcp[scope]),
        }
        for scope, means in declared.items()
    }
    declared_rates = {
        "queries_per_s": sum(1e3 / m for m in q_means.values()),
        "flows_per_s": sum(len(g["sources"]) * 1e3 / g["arrival"]["mean_interval_ms"] for g in sc["traffic"]),
    }
    values: dict[str, Any] = {
        "window_s": [t0, t1],
        "queries": {p: row(p, PER_AGGREGATOR) for p in runs} | {"generator": row("generator", PER_AGGREGATOR)},
        "background": {p: row(p, STARTED) for p in runs} | {"generator": row("generator", STARTED)},
        "background_either_end": {p: row(p, EITHER_END) for p in runs},
        "rates": rates,
        "declared_rates": declared_rates,
        "paper_rates": {"queries_per_s": PAPER_QUERIES_PER_S, "flows_per_s": PAPER_FLOWS_PER_S},
        "declared_means_ms": {"query": float(np.mean(declared[PER_AGGREGATOR])), "background": float(np.mean(declared[STARTED]))},
        "ks": ks,
        "same_arrivals": wc.same_arrivals(runs),
        "bounds": {"cv": CV_BOUND, "p99_over_p50": TAIL_BOUND, "zero_ms": wc.ZERO_MS, "rate": RATE_TOLERANCE},
    }
    bgr, gen = values["background"]["TCP"], values["background"]["generator"]
    columns = ["statistic", "paper (§2.2, §4.3)", "generator", "TCP run"]
    published = [
        ["median background gap at a server (ms)", "≈ 0: the CDF hugs the y-axis up to the 50th percentile", gen["p50_ms"], bgr["p50_ms"]],
        ["share of background gaps under 1 ms", "≥ 50% (0 ms)", gen["under_zero_ms"], bgr["under_zero_ms"]],
        ["coefficient of variation of background gaps", "very high variance", gen["cv"], bgr["cv"]],
        ["99th percentile / median of background gaps", "very heavy tail", gen["p99_over_p50"], bgr["p99_over_p50"]],
        [
            "queries per second (45 aggregators)",
            f"over {PAPER_QUERIES_PER_S:.1f}",
            declared_rates["queries_per_s"],
            rates["TCP"]["queries_per_s"],
        ],
        ["background flows per second", f"over {PAPER_FLOWS_PER_S:.1f}", declared_rates["flows_per_s"], rates["TCP"]["flows_per_s"]],
    ]
    return Metrics(
        values=values,
        tables={"fig3_stats": stats, "fig3_cdf": pd.DataFrame(cdf_rows)},
        published=(
            {"title": "Interarrival times: the paper's words beside the generator and our run", "columns": columns, "rows": published},
        ),
    )


# --- claims -------------------------------------------------------------------------------


def _rate(m: Metrics, key: str, paper: float) -> tuple[bool, str]:
    r = m["rates"]
    measured = (
        f"TCP run {r['TCP'][key]:.1f}/s, DCTCP run {r['DCTCP'][key]:.1f}/s ({r['TCP'][key] / paper:.1%} of {paper:.1f}); "
        f"declared {m['declared_rates'][key]:.1f}/s"
    )
    return min(v[key] for v in r.values()) >= RATE_TOLERANCE * paper, measured


def _query_rate(m: Metrics) -> tuple[bool, str]:
    return _rate(m, "queries_per_s", PAPER_QUERIES_PER_S)


def _flow_rate(m: Metrics) -> tuple[bool, str]:
    return _rate(m, "flows_per_s", PAPER_FLOWS_PER_S)


def _heavy_tail(m: Metrics) -> tuple[bool, str]:
    t, g = m["background"]["TCP"], m["background"]["generator"]
    measured = (
        f"coefficient of variation {fmt(t['cv'], 2)}, 99th percentile / median {fmt(t['p99_over_p50'], 1)} "
        f"over {t['gaps']:.0f} gaps (the generator's exponential: {fmt(g['cv'], 2)} and {fmt(g['p99_over_p50'], 1)})"
    )
    return t["cv"] > CV_BOUND and t["p99_over_p50"] > TAIL_BOUND, measured


def _zero_ms(m: Metrics) -> tuple[bool, str]:
    t, g = m["background"]["TCP"], m["background"]["generator"]
    measured = (
        f"median {fmt(t['p50_ms'], 1)} ms, {100 * t['under_zero_ms']:.1f}% of gaps under {wc.ZERO_MS:g} ms "
        f"(generator: median {fmt(g['p50_ms'], 1)} ms, {100 * g['under_zero_ms']:.1f}%)"
    )
    return t["p50_ms"] < wc.ZERO_MS, measured


def _arrivals_are_the_generators(m: Metrics) -> tuple[bool, str]:
    ks = m["ks"]
    parts = [
        f"{'queries' if s == PER_AGGREGATOR else 'background'}: "
        f"KS {ks[s]['distance']:.4f} (bound {ks[s]['bound']:.4f}, {ks[s]['gaps']} gaps)"
        for s in ks
    ]
    same = m["same_arrivals"]
    measured = ("same arrivals in both runs; " if same else "arrivals differ between the runs; ") + "; ".join(parts)
    return same and all(v["distance"] <= v["bound"] for v in ks.values()), measured


CLAIMS = (
    Claim(
        id="query-rate",
        kind="derived",
        text=(
            f"Queries arrive at least at {RATE_TOLERANCE:.0%} of the benchmark's rate "
            f"({PAPER_QUERIES_PER_S:.1f} per second: 188,000 in 10 minutes) in both runs"
        ),
        paper=f"over 188,000 queries in 10 minutes ({PAPER_QUERIES_PER_S:.1f}/s)",
        quote="We generate traffic for 10 minutes, comprising over 200,000 background flows and over 188,000 queries.",
        section="§4.3",
        check=_query_rate,
    ),
    Claim(
        id="background-flow-rate",
        kind="derived",
        text=(
            f"Background flows arrive at least at {RATE_TOLERANCE:.0%} of the benchmark's rate "
            f"({PAPER_FLOWS_PER_S:.1f} per second: 200,000 in 10 minutes) in both runs"
        ),
        paper=f"over 200,000 background flows in 10 minutes ({PAPER_FLOWS_PER_S:.1f}/s)",
        quote="We generate traffic for 10 minutes, comprising over 200,000 background flows and over 188,000 queries.",
        section="§4.3",
        check=_flow_rate,
    ),
    Claim(
        id="background-gaps-heavy-tailed",
        kind="paper",
        text=(
            "Background flows' interarrival times at a server vary far more than Poisson arrivals': "
            f"coefficient of variation above {CV_BOUND:g} and 99th percentile over {TAIL_BOUND:.1f} times "
            "the median (Poisson: 1 and 6.6)"
        ),
        paper="very high variance, very heavy tail",
        quote="the variance in interarrival time is very high, with a very heavy tail",
        section="§2.2",
        check=_heavy_tail,
    ),
    Claim(
        id="background-gaps-zero-up-to-median",
        kind="paper",
        text=f"Half the background flows at a server arrive 0 ms after the previous one: the median gap is under {wc.ZERO_MS:g} ms",
        paper="0 ms gaps up to the 50th percentile",
        quote="embedded spikes occur, for example the 0ms inter-arrivals that explain the CDF hugging the y-axis up to the 50th percentile",
        section="§2.2",
        check=_zero_ms,
    ),
    Claim(
        id="arrivals-are-the-generators",
        kind="check",
        text=(
            "The runs' arrivals are the generators' draws: the same in the TCP and DCTCP runs, and the gaps "
            "within the Kolmogorov-Smirnov distance (at the 0.1% level) of the exponential each generator declares"
        ),
        paper="—",
        check=_arrivals_are_the_generators,
    ),
)


# --- plot -----------------------------------------------------------------------------------


def plot(m: Metrics) -> Any:
    table = m.tables["fig3_cdf"]
    fig, axes = figure(1, 2, size=(11.0, 4.2))
    styles = {
        ("generator", PER_AGGREGATOR): ("generator: exponential, mean {q:.1f} ms", wc.GENERATOR_STYLE),
        ("TCP", PER_AGGREGATOR): ("TCP run", {"color": b.COLORS["TCP"], "linewidth": 2.2}),
        ("DCTCP", PER_AGGREGATOR): ("DCTCP run (the same arrivals)", {"color": b.COLORS["DCTCP"], "linewidth": 1.0, "linestyle": ":"}),
        ("generator", STARTED): ("generator: exponential, mean {g:.1f} ms", wc.GENERATOR_STYLE),
        ("TCP", STARTED): ("TCP run: flows a server starts", {"color": b.COLORS["TCP"], "linewidth": 2.2}),
        ("DCTCP", STARTED): ("DCTCP run (the same arrivals)", {"color": b.COLORS["DCTCP"], "linewidth": 1.0, "linestyle": ":"}),
        ("TCP", EITHER_END): ("TCP run: flows at a server, either end", {"color": "tab:gray", "linewidth": 1.2}),
    }
    means = m["declared_means_ms"]
    for (source, scope), (label, style) in styles.items():
        ax = axes[0] if scope == PER_AGGREGATOR else axes[1]
        rows = table[(table["source"] == source) & (table["scope"] == scope)]
        if rows.empty:
            continue
        ax.step(
            rows["gap_ms"].tolist(),
            rows["cdf"].tolist(),
            where="post",
            label=label.format(q=means["query"], g=means["background"]),
            **style,
        )
    q, g = m["queries"]["TCP"], m["background"]["TCP"]
    for ax, title in ((axes[0], "(a) Queries at an aggregator"), (axes[1], "(b) Background flows at a server")):
        ax.set_xscale("log")
        ax.set_xlim(*XLIM_MS)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("Time between arrivals (ms)")
        ax.set_ylabel("Cumulative fraction")
        ax.set_title(title)
        ax.grid(True, which="major", alpha=0.3)
    axes[0].legend(fontsize=7, loc="upper left")
    note(
        axes[0],
        "paper: the CDF in the figure only;\nover 188,000 queries in 10 min\n"
        f"(≥ {PAPER_QUERIES_PER_S:.0f}/s: one per {m['declared_means_ms']['query']:.1f} ms\nper aggregator)\n"
        f"ours: median {fmt(q['p50_ms'], 1)} ms, CV {fmt(q['cv'], 2)}",
        loc="lower right",
    )
    ax = axes[1]
    # "0 ms" cannot sit on a log axis: the paper's point mass is drawn at the axis's left edge.
    ax.plot([XLIM_MS[0]] * 2, [0, 0.5], color=wc.PAPER_COLOR, linewidth=5, solid_capstyle="butt")
    wc.paper_mark(ax, XLIM_MS[0], 0.5, "paper: 0 ms gaps up to the\n50th percentile (drawn at the edge)", xytext=(8, 4))
    ax.axvline(wc.ZERO_MS, color=wc.PAPER_COLOR, linestyle=":", linewidth=1)
    ax.text(wc.ZERO_MS * 1.15, 0.3, "1 ms: our bound for '0 ms'", fontsize=6.5, color="#7a5c00", rotation=90, va="bottom")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0.0, 0.86))
    note(
        ax,
        "paper: variance very high, very heavy tail;\n0 ms gaps up to the 50th percentile;\nperiodic bursts of outgoing flows\n"
        f"ours: median {fmt(g['p50_ms'], 1)} ms, CV {fmt(g['cv'], 2)},\np99/median {fmt(g['p99_over_p50'], 1)}",
        loc="lower right",
    )
    return fig


EXPERIMENT = Experiment(
    id="dctcp-fig3",
    paper="dctcp",
    figure="Fig. 3",
    title="time between arrivals of queries and of background flows, the benchmark's generators against the paper",
    description=(
        "Interarrival-time CDFs of queries at an aggregator and of background flows at a server: "
        "the benchmark's declared distributions and its runs, against the paper's measured facts."
    ),
    testbed="dctcp_testbed",
    scales=b.SCALES,
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"fig3": plot},
    notes=__doc__ or "",
)
