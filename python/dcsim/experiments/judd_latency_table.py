"""Judd (Morgan Stanley) slides, "Latency" table: TCP against DCTCP+ on the 19-sender setup.

Slide setup: the "Throughput, Fairness, & Latency" diagram, 19 senders at 10 Gbps → switch →
10 Gbps receiver, "Latency measurements" at the receiver side. The table (ms):

  |         | TCP   | DCTCP+ |
  | Mean    | 4.01  | 0.0422 |
  | Median  | 4.06  | 0.0395 |
  | Maximum | 4.20  | 0.0850 |
  | Minimum | 3.32  | 0.0280 |
  | σ       | 0.167 | 0.0106 |

"DCTCP latency significantly lower than TCP" (spec §6 claim 29: TCP/DCTCP ≥ 20).

Our setup: the runs of judd-throughput-fairness (its ``scenario``; the shared Judd testbed,
judd.py): hosts 1..19 send long-lived flows to host 0 through a 10 Gbps port of 5.5 MB;
"TCP" is CUBIC over drop-tail, "DCTCP+" DCTCP over RED-ECN marking at K = 20 with every
deployment fix. The latency probe: the receiver sends a 64-B request to host 20 over a
persistent connection of the run's transport, and host 20 answers with 64 B, Poisson, one
every 1 ms on average through the measurement window; a probe's latency is its completion
time, request to response, whose response waits in the congested port to the receiver.

Assumptions:
- How the slides probed latency is NOT GIVEN (spec ASSUMPTION: a low-rate ping through the
  congested port, RTT reported). Ours is a ping-pong over a connection of the same transport,
  so that under DCTCP+ the probe is ECN-capable and shares the DCTCP class, as the
  measurement of "DCTCP latency" must; an ICMP ping would not be ECT, and a RED-ECN port
  above K would drop it.
- A probe whose response was lost (a retransmission timeout while it ran) is counted as lost
  and left out of the statistics, as ping leaves out a lost reply; the lost share is
  reported beside the table.
- Durations: judd-throughput-fairness's (quick 4 s, full 30 s after the warm-up).

Known deviations: TCP's latency is set by the 5.5 MB port (judd.py chose it from the Scale
table's RTT plateau, which also makes TCP's 4 ms mean of this table); its minimum here is
the queue right after a CUBIC loss episode, which the slide's 3.32 ms bounds only loosely.
DCTCP+'s mean is the base RTT (≈ 21 µs for 64-B packets) plus the standing queue around
K = 20 packets (≈ 25 µs at 10 Gbps).

Checks: claim 29 (TCP mean / DCTCP+ mean ≥ 20); TCP's mean within 25% of the slide's 4.01 ms;
DCTCP+'s mean within a factor of 2 of the slide's 42.2 µs; the two distributions do not overlap
(DCTCP+'s maximum below TCP's minimum, as in the slide: 0.085 < 3.32 ms).

Outputs: latency_table.csv (statistic, slide and ours for each protocol, ms),
latency_probes.csv (protocol, issued_s, latency_ms, lost), latency.png/.svg (the latency
CDFs, with the slide's statistics marked).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import common as c
from . import judd_throughput_fairness as tf

ID = "judd-latency-table"
TITLE = "Judd slides: the Latency table, 19 senders into one 10 Gbps receiver (TCP vs DCTCP+)"
DESCRIPTION = (
    "Latency of a ping-pong probe through the congested 10 Gbps port while 19 long flows run: mean, median, max, min and σ "
    "beside the slide's, CUBIC vs DCTCP+."
)

PROTOCOLS = tf.PROTOCOLS
SCALES = tf.SCALES

# The slide's table, ms.
STATISTICS = ("Mean", "Median", "Maximum", "Minimum", "σ")
SLIDE_MS: dict[str, dict[str, float]] = {
    "TCP": {"Mean": 4.01, "Median": 4.06, "Maximum": 4.20, "Minimum": 3.32, "σ": 0.167},
    "DCTCP+": {"Mean": 0.0422, "Median": 0.0395, "Maximum": 0.0850, "Minimum": 0.0280, "σ": 0.0106},
}
# Claim thresholds (module docstring).
RATIO_MIN = 20.0
TCP_MEAN_TOLERANCE = 0.25
DCTCP_MEAN_FACTOR = 2.0


def scenarios(scale: str) -> list[tuple[str, dict]]:
    """judd-throughput-fairness's runs, which carry the latency probe."""
    return tf.scenarios(scale)


def probes(res: dict, proto: str) -> pd.DataFrame:
    """One row per probe that completed: when it was issued, its latency, whether it lost a
    packet (a timeout while it ran)."""
    q = pd.DataFrame(c.queries(res))
    q = q[np.isfinite(q.qct_s.astype(float))]
    return pd.DataFrame(
        {
            "protocol": proto,
            "issued_s": q.issued_s.to_numpy(float),
            "latency_ms": q.qct_s.to_numpy(float) * 1e3,
            "lost": q.timeouts.to_numpy() > 0,
        }
    )


def statistics(latency_ms: np.ndarray) -> dict[str, float]:
    """The slide's statistics of latencies in ms (σ is the population standard deviation)."""
    x = np.asarray(latency_ms, dtype=float)
    if not len(x):
        return dict.fromkeys(STATISTICS, float("nan"))
    return {
        "Mean": float(x.mean()),
        "Median": float(np.median(x)),
        "Maximum": float(x.max()),
        "Minimum": float(x.min()),
        "σ": float(x.std()),
    }


def table_rows(stats: dict[str, dict[str, float]]) -> list[list[Any]]:
    """Rows of the published table with ours beside it: statistic, slide TCP, ours TCP, slide
    DCTCP+, ours DCTCP+ (ms)."""
    return [
        [name, SLIDE_MS["TCP"][name], stats["TCP"][name], SLIDE_MS["DCTCP+"][name], stats["DCTCP+"][name]]
        for name in STATISTICS
    ]


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    c.check_scale(scale, SCALES)
    out = c.prepare_out(out_dir)
    plan = scenarios(scale)
    results = c.run_all([sc for _, sc in plan], jobs)
    pdf = pd.concat([probes(r, p) for (p, _), r in zip(plan, results)], ignore_index=True)
    pdf.to_csv(out / "latency_probes.csv", index=False)
    kept = pdf[~pdf.lost]
    stats = {p: statistics(kept[kept.protocol == p].latency_ms.to_numpy()) for p in PROTOCOLS}
    lost = {p: (int(pdf[pdf.protocol == p].lost.sum()), int((pdf.protocol == p).sum())) for p in PROTOCOLS}
    columns = ["statistic", "slide TCP (ms)", "ours TCP (ms)", "slide DCTCP+ (ms)", "ours DCTCP+ (ms)"]
    rows = table_rows(stats)
    pd.DataFrame(rows, columns=columns).to_csv(out / "latency_table.csv", index=False)
    files = plot(kept, stats, out)

    tcp, dp = stats["TCP"], stats["DCTCP+"]
    ratio = tcp["Mean"] / dp["Mean"]
    slide_ratio = SLIDE_MS["TCP"]["Mean"] / SLIDE_MS["DCTCP+"]["Mean"]
    lost_text = ", ".join(f"{p} {k} of {n}" for p, (k, n) in lost.items())
    claims = [
        c.claim(
            f"DCTCP latency significantly lower than TCP (claim 29): TCP mean / DCTCP+ mean ≥ {RATIO_MIN:.0f}",
            f"4.01 / 0.0422 ms = {slide_ratio:.0f}×",
            f"{tcp['Mean']:.3f} / {dp['Mean']:.4f} ms = {ratio:.0f}× (probes lost: {lost_text})",
            ratio >= RATIO_MIN,
        ),
        c.claim(
            f"TCP's mean latency is the slide's within {TCP_MEAN_TOLERANCE:.0%}",
            "4.01 ms",
            f"{tcp['Mean']:.3f} ms ({tcp['Mean'] / SLIDE_MS['TCP']['Mean'] - 1:+.0%})",
            abs(tcp["Mean"] / SLIDE_MS["TCP"]["Mean"] - 1) <= TCP_MEAN_TOLERANCE,
        ),
        c.claim(
            f"DCTCP+'s mean latency is the slide's within a factor of {DCTCP_MEAN_FACTOR:.0f}",
            "0.0422 ms",
            f"{dp['Mean']:.4f} ms ({dp['Mean'] / SLIDE_MS['DCTCP+']['Mean']:.2f}×)",
            1 / DCTCP_MEAN_FACTOR <= dp["Mean"] / SLIDE_MS["DCTCP+"]["Mean"] <= DCTCP_MEAN_FACTOR,
        ),
        c.claim(
            "The distributions do not overlap: DCTCP+'s maximum is below TCP's minimum",
            "0.0850 < 3.32 ms",
            f"{dp['Maximum']:.4f} ms vs {tcp['Minimum']:.3f} ms",
            dp["Maximum"] < tcp["Minimum"],
        ),
    ]
    table = {"title": "Latency (ms): the slide's beside ours", "columns": columns, "rows": rows}
    metrics = {"statistics_ms": stats, "slide_ms": SLIDE_MS, "lost_probes": lost, "ratio": ratio}
    names = ["latency_table.csv", "latency_probes.csv", *files]
    return {"claims": claims, "metrics": c.jsonable(metrics), "tables": [table], "files": names}


def plot(kept: pd.DataFrame, stats: dict, out: Path) -> list[str]:
    fig, axes = c.figure(1, 2, size=(10.0, 4.0))
    for ax, proto in zip(axes, PROTOCOLS):
        x, y = c.cdf(kept[kept.protocol == proto].latency_ms)
        ax.plot(x, y, color=tf.COLORS[proto], label=f"ours: mean {stats[proto]['Mean']:.4g} ms")
        slide = SLIDE_MS[proto]
        ax.axvline(slide["Mean"], color="k", ls="--", lw=0.8, label=f"slide mean {slide['Mean']} ms")
        ax.axvspan(slide["Minimum"], slide["Maximum"], color="0.85", label="slide min-max")
        ax.set_xlabel("Latency (ms)")
        ax.set_ylabel("CDF of probes")
        ax.set_title(f"{proto}", fontsize=9)
        ax.legend(fontsize=7, loc="lower right")
    fig.suptitle("Latency through the congested port (19 senders into 10 Gbps)", fontsize=10)
    return c.save_figure(fig, out, "latency")
