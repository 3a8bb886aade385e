"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), Figure 5: how many flows a server takes part in
at once, the benchmark's runs against what the paper measured.

Paper (§2.2, production measurement): Fig. 5 caption: "Distribution of number of concurrent
connections." Text: "Figure 5 presents the CDF of the number of flows a MLA or worker node
participates in concurrently (defined as the number of flows active during a 50ms window).
When all flows are considered, the median number of concurrent flows is 36, which results from
the breadth of the Partition/Aggregate traffic pattern in which each server talks to 43 other
servers. The 99.99th percentile is over 1,600, and there is one server with a median of 1,200
connections. When only large flows (> 1MB) are considered, the degree of statistical
multiplexing is very low — the median number of concurrent large flows is 1, and the 75th
percentile is 2." Footnote 10 (§4.2.3): "Queue buildup only occurs when there is more than 1
flow, which measurements of our cluster show happens 25% of the time (§ 2)."

Published numbers: all flows: median 36, 99.99th percentile over 1,600, one server's median
1,200; large flows (> 1 MB): median 1, 75th percentile 2, more than one 25% of the time.

Our setup: the two runs of `dctcp-fig22` (TCP and DCTCP, the same scenarios, simulated once),
whose completion times make the concurrency. The measurement window (after the warm-up, before
arrivals stop) is cut into whole 50 ms windows; for each of the 45 rack servers and each window,
the flows the server takes part in that are active during the window: started before it ends and
not finished before it begins. A background flow (the `flows` table: short messages and update
flows, the stand-in's flows into the rack and the rack's flows to it included) is active from
its SYN to its last byte's arrival (still active at the end of the run if unfinished) and counts
at both its ends. A query (the `queries` table) is one flow between its aggregator and each of
its 44 workers, each active from the query's issue to its completion (the last response's
arrival): the aggregator takes part in 44 flows, each worker in one. Large flows are the
background flows over 1 MB. Each server-window is one sample of the CDF; the claims are judged
on the TCP run (the paper measured a cluster running TCP), the DCTCP run beside it.

Claims, with their bounds chosen before the runs: the paper's median of 36 within ±20%
(28.8-43.2): our aggregators query 44 workers where the paper's query 43, 2% more flows per
query, and the rest of the tolerance allows for the benchmark's query rate, which the paper
derives from counts, not from the distribution of Fig. 3(a). The large flows' median must be
exactly 1 (a count), and the share of server-windows with more than one large flow within
15-35% of the footnote's 25%. The 99.99th percentile must exceed 1,600. These statistics are
over all server-windows, windows with no flow at all included: "25% of the time" is a share of
all the time; the metrics also give the large flows' statistics over the windows with at least
one large flow.

Assumptions: those of `dctcp-fig22` (docs/workloads.md "The DCTCP benchmark"). Windows are
consecutive and do not overlap (the paper does not say how its windows were placed). A
persistent query connection is a flow only while one of its queries runs (the paper's median
"results from the breadth of the Partition/Aggregate traffic pattern", so it counts the query
exchanges, not idle connections); a worker's flow is counted until the query completes, though
its own response may finish earlier (by under a millisecond in most queries, against 50 ms
windows). The stand-in for the rest of the datacenter is not a server: its flows count at the
rack servers they reach.

What the benchmark can and cannot reproduce: the benchmark holds one rack of 45 servers whose
only traffic is the benchmark's queries and background flows; its concurrency comes from the
query rate (one query per aggregator every 143.6 ms), the 44-server fan-out and the background
flows' rate and sizes. The paper's tail (99.99th percentile over 1,600, one server with a median
of 1,200) comes from servers with far more connections than any rack server of the benchmark
can have: with 45 aggregators and Poisson queries a server takes part in at most a few hundred
flows in 50 ms, so that claim reports how far the benchmark's tail is from the cluster's.

Known deviation (traced, quick scale, on the testbed's hosts: docs/validation.md, How the
testbeds were chosen), all four claims fail:
- All flows: median 20 with TCP (DCTCP 19) against 36, though the mean, 34.6, is near it. The
  distribution has two modes. In the 68% of server-windows with no query of the server's own
  it takes part in a median of 18 flows (as a worker in the ~15 queries the 44 other
  aggregators issue in 50 ms, and its background flows); with one, in 44 more (median 63). A
  median near 36 falls in the gap between the modes, which the query rate does not fill: with a
  query every 78 ms per aggregator instead of the 143.6 ms the paper's query count gives (a
  counter-run), it jumps from 20 to 64 (DCTCP 41), past 36.
- Tail: 99.99th percentile 200 (the largest count of any server-window), against over 1,600;
  the largest median of one server is 23.0, against 1,200. No rack server of the benchmark
  carries such load (above).
- Large flows: 70% of server-windows have none, so the median is 0 (paper 1) and the 75th
  percentile 1 (paper 2); more than one in 4.6% of them (paper 25%, our range 15-35%). Over
  the windows with at least one, the median is 1 and 15.6% have more than one. A rack server
  sees about 4 large flows a second at either end (817 in the 9 s window), each lasting a mean
  53 ms (median 33 ms): 0.35 at a time on average. With Poisson arrivals the paper's median of
  1 needs about twice as many large flows per server (a mean of ln 2 = 0.69 at a time), and its
  25% about 2.7 times as many (a mean of 0.96); the benchmark's background volume (200,000 flows
  of the web-search sizes in 10 minutes, 8.7% of each link) gives fewer.

Outputs: fig5_stats.csv (protocol, flows: all or large, server-windows, mean, median, 75th,
99th, 99.99th percentile, largest, share with more than one; large flows also over the windows
with one or more), fig5_cdf.csv (protocol, flows, concurrent flows, cdf), fig5_servers.csv (per
protocol and server: the median and mean of all and of large flows), fig5.png/.svg.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from . import benchmark as b
from . import workload_checks as wc

PAPER = {"all_median": 36, "all_p99.99": 1600, "one_server_median": 1200, "large_median": 1, "large_p75": 2, "large_more_than_one": 0.25}
# Bounds chosen before the runs (see the notes).
MEDIAN_TOLERANCE = 0.2
MORE_THAN_ONE_RANGE = (0.15, 0.35)
KINDS = ("all", "large")


def scenarios(p: Params, tb: Testbed) -> dict[str, dict]:
    return b.baseline_runs(p, tb)


def counts(res: Any, sc: dict[str, Any]) -> dict[str, np.ndarray]:
    """Concurrent flows per rack server (rows) and 50 ms window (columns) of the run's
    measurement window: ``all`` flows (background flows and query exchanges) and ``large``
    ones (background flows over 1 MB)."""
    import pandas as pd

    t0, t1 = b.window(sc)
    edges = wc.window_edges(t0, t1)
    servers = list(range(int(sc["topology"]["hosts"])))
    f = res.flows
    bg = f[f["generator"].notna()]
    flows = pd.DataFrame({"src": bg["src"], "dst": bg["dst"], "start_s": bg["start_s"], "end_s": bg["completion_s"]})
    q = res.queries
    queries = pd.DataFrame({"workload": q["workload"], "client": q["client"], "issued_s": q["issued_s"], "end_s": q["completed_s"]})
    workers = {w: spec["servers"] for w, spec in enumerate(sc["queries"])}
    large = flows[bg["size_bytes"].to_numpy() > wc.LARGE_BYTES]
    return {
        "all": wc.concurrency(servers, flows, queries, workers, edges),
        "large": wc.concurrency(servers, large, queries.iloc[:0], workers, edges),
    }


def stats(c: np.ndarray) -> dict[str, Any]:
    """Statistics of concurrent flows over every server-window of ``c`` (servers × windows)."""
    x = c.ravel()
    some = x[x >= 1]
    return {
        "samples": int(x.size),
        "mean": float(x.mean()) if x.size else float("nan"),
        "median": wc.percentile(x, 50),
        "p75": wc.percentile(x, 75),
        "p99": wc.percentile(x, 99),
        "p99.99": wc.percentile(x, 99.99),
        "max": float(x.max()) if x.size else float("nan"),
        "more_than_one": float((x > 1).mean()) if x.size else float("nan"),
        "with_one_or_more": float((x >= 1).mean()) if x.size else float("nan"),
        "median_given_one_or_more": wc.percentile(some, 50),
        "p75_given_one_or_more": wc.percentile(some, 75),
        "more_than_one_given_one_or_more": float((some > 1).mean()) if some.size else float("nan"),
        "largest_server_median": float(np.median(c, axis=1).max()) if c.size else float("nan"),
    }


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    st: dict[str, dict[str, Any]] = {}
    cdf_parts, server_rows = [], []
    for proto in runs:
        c = counts(runs[proto], runs.scenario(proto))
        st[proto] = {}
        for kind in KINDS:
            st[proto][kind] = stats(c[kind])
            cdf_parts.append(wc.integer_cdf(c[kind].ravel()).assign(protocol=proto, flows=kind))
        for s in range(c["all"].shape[0]):
            server_rows.append(
                {
                    "protocol": proto,
                    "server": s,
                    "median_all": float(np.median(c["all"][s])),
                    "mean_all": float(c["all"][s].mean()),
                    "median_large": float(np.median(c["large"][s])),
                    "mean_large": float(c["large"][s].mean()),
                }
            )
    stats_table = pd.DataFrame([{"protocol": p, "flows": k, **v} for p, by in st.items() for k, v in by.items()])
    cdf_table = pd.concat(cdf_parts, ignore_index=True)[["protocol", "flows", "value", "cdf"]]
    columns = ["statistic", "paper (§2.2)", "TCP run", "DCTCP run"]
    t, d = st["TCP"], st["DCTCP"]
    published = [
        ["median, all flows", PAPER["all_median"], t["all"]["median"], d["all"]["median"]],
        ["99.99th percentile, all flows", f"over {PAPER['all_p99.99']:,}", t["all"]["p99.99"], d["all"]["p99.99"]],
        [
            "largest median of one server, all flows",
            f"{PAPER['one_server_median']:,} (one server)",
            t["all"]["largest_server_median"],
            d["all"]["largest_server_median"],
        ],
        ["median, large flows (> 1 MB)", PAPER["large_median"], t["large"]["median"], d["large"]["median"]],
        ["75th percentile, large flows", PAPER["large_p75"], t["large"]["p75"], d["large"]["p75"]],
        ["share of the time with more than one large flow", "25% (footnote 10)", t["large"]["more_than_one"], d["large"]["more_than_one"]],
    ]
    return Metrics(
        values={"stats": st, "paper": PAPER, "window_s": wc.WINDOW_S},
        tables={"fig5_stats": stats_table, "fig5_cdf": cdf_table, "fig5_servers": pd.DataFrame(server_rows)},
        published=(
            {"title": "Concurrent flows per server in 50 ms windows: the paper's beside our runs", "columns": columns, "rows": published},
        ),
    )


# --- claims -------------------------------------------------------------------------------


def _both(m: Metrics, kind: str, key: str, nd: int = 0) -> str:
    s = m["stats"]
    return f"TCP {s['TCP'][kind][key]:.{nd}f}, DCTCP {s['DCTCP'][kind][key]:.{nd}f}"


def _all_median(m: Metrics) -> tuple[bool, str]:
    t = m["stats"]["TCP"]["all"]
    lo, hi = (1 - MEDIAN_TOLERANCE) * PAPER["all_median"], (1 + MEDIAN_TOLERANCE) * PAPER["all_median"]
    measured = (
        f"median {_both(m, 'all', 'median')} (mean {_both(m, 'all', 'mean', 1)}; "
        f"75th percentile {_both(m, 'all', 'p75')}) over {t['samples']} server-windows"
    )
    return lo <= t["median"] <= hi, measured


def _all_tail(m: Metrics) -> tuple[bool, str]:
    t = m["stats"]["TCP"]["all"]
    measured = (
        f"99.99th percentile {_both(m, 'all', 'p99.99')}, largest {_both(m, 'all', 'max')}; "
        f"largest median of one server {_both(m, 'all', 'largest_server_median', 1)} (paper 1,200)"
    )
    return t["p99.99"] > PAPER["all_p99.99"], measured


def _large_median(m: Metrics) -> tuple[bool, str]:
    t = m["stats"]["TCP"]["large"]
    measured = (
        f"median {_both(m, 'large', 'median')}, 75th percentile {_both(m, 'large', 'p75')}; "
        f"{t['with_one_or_more']:.1%} of server-windows have one or more (TCP), "
        f"over which the median is {t['median_given_one_or_more']:.0f} "
        f"and the 75th percentile {t['p75_given_one_or_more']:.0f}"
    )
    return t["median"] == PAPER["large_median"], measured


def _more_than_one(m: Metrics) -> tuple[bool, str]:
    t, d = m["stats"]["TCP"]["large"], m["stats"]["DCTCP"]["large"]
    measured = (
        f"TCP {t['more_than_one']:.1%}, DCTCP {d['more_than_one']:.1%} of server-windows; "
        f"of those with one or more: TCP {t['more_than_one_given_one_or_more']:.1%}"
    )
    lo, hi = MORE_THAN_ONE_RANGE
    return lo <= t["more_than_one"] <= hi, measured


CLAIMS = (
    Claim(
        id="all-flows-median-36",
        kind="paper",
        text=(
            f"A server takes part in a median of 36 flows in a 50 ms window (within ±{MEDIAN_TOLERANCE:.0%}: "
            f"{(1 - MEDIAN_TOLERANCE) * 36:.1f}-{(1 + MEDIAN_TOLERANCE) * 36:.1f}), with TCP"
        ),
        paper="median 36",
        quote="When all flows are considered, the median number of concurrent flows is 36",
        section="§2.2",
        check=_all_median,
    ),
    Claim(
        id="all-flows-tail-over-1600",
        kind="paper",
        text="The 99.99th percentile of a server's concurrent flows is over 1,600, with TCP (the benchmark's rack has no such servers)",
        paper="over 1,600; one server with a median of 1,200",
        quote="The 99.99th percentile is over 1,600, and there is one server with a median of 1,200 connections.",
        section="§2.2",
        check=_all_tail,
    ),
    Claim(
        id="large-flows-median-1",
        kind="paper",
        text="The median number of concurrent large flows (over 1 MB) at a server is 1, with TCP",
        paper="median 1, 75th percentile 2",
        quote="the median number of concurrent large flows is 1, and the 75th percentile is 2",
        section="§2.2",
        check=_large_median,
    ),
    Claim(
        id="more-than-one-large-flow-25pct",
        kind="paper",
        text=(
            f"More than one large flow at a server {MORE_THAN_ONE_RANGE[0]:.0%}-{MORE_THAN_ONE_RANGE[1]:.0%} "
            "of the time (of its 50 ms windows), with TCP"
        ),
        paper="25% of the time",
        quote="Queue buildup only occurs when there is more than 1 flow, which measurements of our cluster show happens 25% of the time",
        section="§4.2.3, footnote 10",
        check=_more_than_one,
    ),
)


# --- plot -----------------------------------------------------------------------------------


def plot(m: Metrics) -> Any:
    table = m.tables["fig5_cdf"]
    st = m["stats"]
    fig, (ax1, ax2) = figure(1, 2, size=(11.0, 4.2))
    for proto, color in b.COLORS.items():
        for ax, kind in ((ax1, "all"), (ax2, "large")):
            rows = table[(table["protocol"] == proto) & (table["flows"] == kind)]
            if rows.empty:
                continue
            label = f"{proto} run: median {st[proto][kind]['median']:.0f}"
            ax.step(rows["value"].tolist(), rows["cdf"].tolist(), where="post", color=color, label=label, linewidth=1.6)
    ax1.set_xscale("log")
    ax1.set_xlim(1, 3000)
    ax1.set_title("(a) All flows")
    wc.paper_mark(ax1, PAPER["all_median"], 0.5, "paper: median 36")
    wc.paper_mark(ax1, PAPER["all_p99.99"], 0.9999, "paper: 99.99th\npercentile > 1,600", xytext=(-70, -28))
    note(
        ax1,
        "paper: one server has a median of 1,200;\nthe benchmark has no such server\n"
        f"ours (TCP): 99.99th percentile {st['TCP']['all']['p99.99']:.0f},\n"
        f"largest server median {st['TCP']['all']['largest_server_median']:.0f}",
        loc="lower right",
    )
    ax2.set_title("(b) Large flows (> 1 MB)")
    lo, hi = MORE_THAN_ONE_RANGE
    ax2.axhspan(1 - hi, 1 - lo, color=wc.PAPER_COLOR, alpha=0.12, lw=0)
    wc.paper_mark(ax2, PAPER["large_median"], 0.5, "paper: median 1")
    wc.paper_mark(ax2, PAPER["large_p75"], 0.75, "paper: 75th percentile 2", xytext=(6, -12))
    wc.paper_mark(ax2, 1, 0.75, "paper: more than one\n25% of the time", xytext=(8, 6))
    ax2.set_xlim(-0.3, max(6.0, float(table[table["flows"] == "large"]["value"].max()) + 0.5))
    ax2.xaxis.get_major_locator().set_params(integer=True)
    note(
        ax2,
        f"shaded: our tolerance, more than one\nlarge flow {lo:.0%}-{hi:.0%} of the time\n"
        f"ours (TCP): {st['TCP']['large']['more_than_one']:.1%}",
        loc="lower right",
    )
    for ax in (ax1, ax2):
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("Concurrent flows in a 50 ms window")
        ax.set_ylabel("Cumulative fraction of server-windows")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    return fig


EXPERIMENT = Experiment(
    id="dctcp-fig5",
    paper="dctcp",
    figure="Fig. 5",
    title="concurrent flows per server in 50 ms windows, the benchmark's runs against the paper",
    description=(
        "CDF of the flows a server takes part in during a 50 ms window, all flows and large ones, "
        "from the benchmark's runs against the paper's measured statistics."
    ),
    testbed="dctcp_testbed",
    scales=b.SCALES,
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"fig5": plot},
    notes=__doc__ or "",
)
