"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), Figure 4: the background flow-size distribution
and where its bytes are, the benchmark's generator against what the paper measured.

Paper (§2.2, production measurement): Fig. 4 caption: "PDF of flow size distribution for
background traffic. PDF of Total Bytes shows probability a randomly selected byte would come
from a flow of given size." Text: "Figure 4 presents the PDF of background flow size,
illustrating how most background flows are small, but most of the bytes in background traffic
are part of large flows. Key among background flows are large, 1MB to 50MB, update flows that
copy fresh data to the workers and time-sensitive short message flows, 50KB to 1MB in size,
that update control state on the workers." The benchmark (§4.3) draws its background sizes
from this distribution: "each server draws independently from the interarrival time and the
flow size distributions".

Published numbers: the curves are in the figure only; the text gives the two classes (short
messages 50 KB-1 MB, update flows 1-50 MB) and the shape above.

Our setup: the benchmark's background sizes (`dcsim.workloads.dctcp_benchmark`: the
web-search table, a piecewise-linear CDF from 8,760 B, with 15% of flows there, to 29.2 MB,
mean 1.67 MB) seen two ways. Generator: the table the generators declare, read from the
scenario without simulating, its probabilities per bin computed exactly (uniform density
within each segment of the table). Runs: the sizes of the background flows (both generators,
the stand-in's flows into the rack included) that started in the measurement window of the
two runs of `dctcp-fig22` (TCP and DCTCP, simulated once); the generators draw the same sizes
in both (checked in `dctcp-fig3`). PDFs per bin of a fifth of a decade on a log size axis;
the PDF of total bytes weighs each flow by its size.

Claims, with their bounds chosen before the runs: "small" and "large" are the text's two
classes: a small flow is under 1 MB (a short message or less), a large one over 1 MB (an
update flow). "Most" is more than half: more than half the flows are under 1 MB, and more than
half the bytes are in flows over 1 MB. The update flows' "1MB to 50MB" is read as the range
they span: no background flow over 50 MB, and the largest at least 40 MB (within 20% of the
range's top).

Assumptions: those of `dctcp-fig22` (docs/workloads.md "The DCTCP benchmark"): the paper's
figure has no numbers in the text, so the benchmark uses the web-search table that pFabric
(SIGCOMM 2013) derived from this paper's measurements, as distributed with the CS244 '17
reproduction. Flows of exactly 1 MB count as neither small nor large (the table has no mass
there).

Known deviation (by construction): the web-search table ends at 20,000 packets of 1,460 B =
29.2 MB, so its update flows span 1-29.2 MB, not 1-50 MB (§1 even says "1MB to 100MB" for long
flows); the quick run's largest flow is 29.1 MB. Most flows are small and most bytes are in
large flows, as the paper says (quick: 72% of 2,945 flows under 1 MB, 94% of the bytes in flows
over 1 MB; the table's 70% and 95%).

Outputs: fig4.csv (source, bin edges in bytes, share of flows and of bytes in the bin;
generator rows exact), fig4_stats.csv (source, flows, bytes, share of flows under 1 MB, of
bytes in flows over 1 MB, in each class, the size by which half the bytes are in smaller flows,
the largest size), fig4.png/.svg.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ... import workloads as wl
from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from . import benchmark as b
from . import workload_checks as wc

if TYPE_CHECKING:
    import pandas as pd

# Bins of the PDFs: a fifth of a decade from 1 KB to 100 MB.
EDGES = wc.log_edges(1e3, 1e8, 5)
# "1MB to 50MB": the largest flow within 20% of 50 MB.
UPDATE_TOP_FRACTION = 0.8
MB = 1e6


def scenarios(p: Params, tb: Testbed) -> dict[str, dict]:
    return b.baseline_runs(p, tb)


def size_stats(sizes: np.ndarray) -> dict[str, Any]:
    """Shares of flows and bytes by the paper's classes, the byte-weighted median size and the
    largest flow, of sampled ``sizes`` (bytes)."""
    s = np.sort(np.asarray(sizes, dtype=float))
    total = s.sum()
    short_lo, short_hi = wc.SHORT_MESSAGE_BYTES
    up_lo, up_hi = wc.UPDATE_BYTES
    cum = np.cumsum(s)
    return {
        "flows": len(s),
        "bytes": float(total),
        "mean_bytes": float(s.mean()),
        "flows_under_1mb": float((s < wc.LARGE_BYTES).mean()),
        "bytes_over_1mb": float(s[s > wc.LARGE_BYTES].sum() / total),
        "flows_short_messages": float(((s >= short_lo) & (s < short_hi)).mean()),
        "flows_updates": float(((s > up_lo) & (s <= up_hi)).mean()),
        "flows_over_50mb": int((s > up_hi).sum()),
        "byte_median_bytes": float(s[np.searchsorted(cum, total / 2)]),
        "largest_bytes": float(s[-1]),
    }


def table_stats(points: list[list[float]]) -> dict[str, Any]:
    """:func:`size_stats` of the size table itself, exactly."""
    at, _ = wc.piecewise_cdf(points)
    short_lo, short_hi = wc.SHORT_MESSAGE_BYTES
    up_lo, up_hi = wc.UPDATE_BYTES
    # The byte-weighted CDF on a fine grid over the table's range, for its median.
    grid = np.unique(np.concatenate([wc.log_edges(1e3, 1e8, 2000), [p[0] for p in points]]))
    byte_cdf = np.concatenate([[0.0], np.cumsum(wc.size_bins(points, np.concatenate([[0.0], grid]))["bytes"].to_numpy())])
    largest = max(p[0] for p in points)
    return {
        "flows": np.nan,
        "bytes": np.nan,
        "mean_bytes": wl.cdf_mean(points),
        "flows_under_1mb": float(at(np.array([wc.LARGE_BYTES]))[0]),
        "bytes_over_1mb": float(wc.size_bins(points, np.array([wc.LARGE_BYTES, np.inf]))["bytes"].iloc[0]),
        "flows_short_messages": float((at(np.array([short_hi])) - at(np.array([short_lo])))[0]),
        "flows_updates": float((at(np.array([up_hi])) - at(np.array([up_lo])))[0]),
        "flows_over_50mb": 0 if largest <= up_hi else np.nan,
        "byte_median_bytes": float(np.concatenate([[0.0], grid])[np.searchsorted(byte_cdf, 0.5)]),
        "largest_bytes": float(largest),
    }


def run_bins(sizes: np.ndarray) -> pd.DataFrame:
    """The shares of flows and of bytes in each bin of :data:`EDGES`."""
    import pandas as pd

    s = np.asarray(sizes, dtype=float)
    count, _ = np.histogram(s, bins=EDGES)
    mass, _ = np.histogram(s, bins=EDGES, weights=s)
    return pd.DataFrame({"lo_bytes": EDGES[:-1], "hi_bytes": EDGES[1:], "flows": count / max(len(s), 1), "bytes": mass / max(s.sum(), 1.0)})


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    sc = runs.scenario("TCP")
    points = wc.size_points(sc, 0)
    if any(wc.size_points(sc, g) != points for g in range(len(sc["traffic"]))):
        raise ValueError("the generators draw from different size tables")
    at, below = wc.piecewise_cdf(points)
    pdf = [wc.size_bins(points, EDGES).assign(source="generator")]
    stats = {"generator": table_stats(points)}
    sizes = {}
    for proto in runs:
        sizes[proto] = b.background(runs[proto], runs.scenario(proto))["size_bytes"].to_numpy(dtype=float)
        pdf.append(run_bins(sizes[proto]).assign(source=proto))
        stats[proto] = size_stats(sizes[proto])
    # Sizes are whole bytes, rounded from the table's continuous values: the CDF at a size is
    # the table's half a byte above it, below it half a byte below.
    ks = {
        "distance": wc.ks_distance(sizes["TCP"], lambda x: at(x + 0.5), lambda x: below(x - 0.5)),
        "bound": wc.ks_bound(len(sizes["TCP"])),
    }
    table = pd.concat(pdf, ignore_index=True)[["source", "lo_bytes", "hi_bytes", "flows", "bytes"]]
    t, g = stats["TCP"], stats["generator"]
    columns = ["statistic", "paper (§2.2)", "generator", "TCP run"]
    published = [
        ["share of flows under 1 MB", "most background flows are small", g["flows_under_1mb"], t["flows_under_1mb"]],
        ["share of bytes in flows over 1 MB", "most of the bytes ... are part of large flows", g["bytes_over_1mb"], t["bytes_over_1mb"]],
        ["largest flow (MB)", "update flows 1 MB to 50 MB", g["largest_bytes"] / MB, t["largest_bytes"] / MB],
        ["share of flows 50 KB-1 MB", "short messages 50 KB to 1 MB", g["flows_short_messages"], t["flows_short_messages"]],
        ["share of flows 1-50 MB", "update flows 1 MB to 50 MB", g["flows_updates"], t["flows_updates"]],
    ]
    return Metrics(
        values={
            "stats": stats,
            "ks": ks,
            "same_sizes": bool(all(np.array_equal(np.sort(v), np.sort(sizes["TCP"])) for v in sizes.values())),
        },
        tables={"fig4": table, "fig4_stats": pd.DataFrame([{"source": k, **v} for k, v in stats.items()])},
        published=(
            {"title": "Background flow sizes: the paper's words beside the generator and our run", "columns": columns, "rows": published},
        ),
    )


# --- claims -------------------------------------------------------------------------------


def _most_flows_small(m: Metrics) -> tuple[bool, str]:
    t, g = m["stats"]["TCP"], m["stats"]["generator"]
    return t["flows_under_1mb"] > 0.5, f"{t['flows_under_1mb']:.1%} of {t['flows']} flows under 1 MB (generator {g['flows_under_1mb']:.1%})"


def _most_bytes_large(m: Metrics) -> tuple[bool, str]:
    t, g = m["stats"]["TCP"], m["stats"]["generator"]
    measured = (
        f"{t['bytes_over_1mb']:.1%} of the bytes in flows over 1 MB (generator {g['bytes_over_1mb']:.1%}); "
        f"half the bytes in flows over {t['byte_median_bytes'] / MB:.1f} MB"
    )
    return t["bytes_over_1mb"] > 0.5, measured


def _update_range(m: Metrics) -> tuple[bool, str]:
    t, g = m["stats"]["TCP"], m["stats"]["generator"]
    top = wc.UPDATE_BYTES[1]
    measured = (
        f"largest {t['largest_bytes'] / MB:.1f} MB (the table's largest {g['largest_bytes'] / MB:.1f} MB), "
        f"{t['flows_over_50mb']} flows over 50 MB; {t['flows_updates']:.1%} of flows are 1-50 MB"
    )
    return t["flows_over_50mb"] == 0 and t["largest_bytes"] >= UPDATE_TOP_FRACTION * top, measured


def _sizes_are_the_generators(m: Metrics) -> tuple[bool, str]:
    ks = m["ks"]
    measured = f"KS {ks['distance']:.4f} (bound {ks['bound']:.4f}, {m['stats']['TCP']['flows']} flows); " + (
        "same sizes in both runs" if m["same_sizes"] else "sizes differ between the runs"
    )
    return m["same_sizes"] and ks["distance"] <= ks["bound"], measured


QUOTE = "illustrating how most background flows are small, but most of the bytes in background traffic are part of large flows"
CLAIMS = (
    Claim(
        id="most-flows-small",
        kind="paper",
        text="Most background flows are small: more than half are under 1 MB (short messages or smaller)",
        paper="most background flows are small",
        quote=QUOTE,
        section="§2.2",
        check=_most_flows_small,
    ),
    Claim(
        id="most-bytes-in-large-flows",
        kind="paper",
        text="Most background bytes are in large flows: more than half are in flows over 1 MB (update flows)",
        paper="most of the bytes are part of large flows",
        quote=QUOTE,
        section="§2.2",
        check=_most_bytes_large,
    ),
    Claim(
        id="update-flows-1-to-50mb",
        kind="paper",
        text=f"Update flows span 1 MB to 50 MB: no background flow over 50 MB, and the largest at least {UPDATE_TOP_FRACTION * 50:.0f} MB",
        paper="1 MB to 50 MB",
        quote="Key among background flows are large, 1MB to 50MB, update flows that copy fresh data to the workers",
        section="§2.2",
        check=_update_range,
    ),
    Claim(
        id="sizes-are-the-generators",
        kind="check",
        text=(
            "The runs' background sizes are the generator's draws: the same in the TCP and DCTCP runs, "
            "within the Kolmogorov-Smirnov distance (at the 0.1% level) of the declared table"
        ),
        paper="—",
        check=_sizes_are_the_generators,
    ),
)


# --- plot -----------------------------------------------------------------------------------


def plot(m: Metrics) -> Any:
    table = m.tables["fig4"]
    fig, axes = figure(1, 2, size=(11.0, 4.2), sharey=True)
    short_lo, short_hi = wc.SHORT_MESSAGE_BYTES
    up_lo, up_hi = wc.UPDATE_BYTES
    t = m["stats"]["TCP"]
    for ax, col, title in ((axes[0], "flows", "(a) PDF of flow size"), (axes[1], "bytes", "(b) PDF of total bytes")):
        ax.axvspan(short_lo, short_hi, color=wc.PAPER_COLOR, alpha=0.12, lw=0)
        ax.axvspan(up_lo, up_hi, color="tab:purple", alpha=0.08, lw=0)
        for source, label, style in (
            ("generator", "generator: web-search table (exact)", wc.GENERATOR_STYLE),
            ("TCP", f"runs ({t['flows']} flows; the same in both)", {"color": b.COLORS["TCP"], "linewidth": 1.8}),
        ):
            rows = table[table["source"] == source]
            edges = list(rows["lo_bytes"]) + [float(rows["hi_bytes"].iloc[-1])]
            values = list(rows[col]) + [float(rows[col].iloc[-1])]
            ax.step(edges, values, where="post", label=label, **style)
        ax.set_xscale("log")
        ax.set_xlabel("Flow size (bytes)")
        ax.set_title(title)
        ax.grid(True, which="major", alpha=0.3)
    # The paper's classes, named once (panel b shades the same spans).
    for lo, hi, label in ((short_lo, short_hi, "paper: short messages\n50 KB-1 MB"), (up_lo, up_hi, "paper: update flows\n1-50 MB")):
        axes[0].text(np.sqrt(lo * hi), 0.97, label, ha="center", va="top", fontsize=6.5, transform=axes[0].get_xaxis_transform())
    axes[0].set_ylabel("Probability (per fifth of a decade)")
    axes[0].legend(fontsize=7, loc="center left")
    g = m["stats"]["generator"]
    note(
        axes[0],
        f"paper: most background flows are small\nours: {t['flows_under_1mb']:.0%} under 1 MB (generator {g['flows_under_1mb']:.0%})",
        loc="center right",
    )
    note(
        axes[1],
        f"paper: most bytes are in large flows\nours: {t['bytes_over_1mb']:.0%} in flows over 1 MB\n(generator {g['bytes_over_1mb']:.0%});"
        f" largest {t['largest_bytes'] / MB:.1f} MB;\nhalf the bytes in flows over {t['byte_median_bytes'] / MB:.1f} MB\n"
        "shaded: the paper's classes, as in (a)",
        loc="upper left",
    )
    return fig


EXPERIMENT = Experiment(
    id="dctcp-fig4",
    paper="dctcp",
    figure="Fig. 4",
    title="background flow sizes and where their bytes are, the benchmark's generator against the paper",
    description=(
        "PDF of background flow size and of total bytes: the benchmark's declared size table and its runs, "
        "against the paper's classes and shape."
    ),
    testbed="dctcp_testbed",
    scales=b.SCALES,
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"fig4": plot},
    notes=__doc__ or "",
)
