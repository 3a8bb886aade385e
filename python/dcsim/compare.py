"""Runs side by side (`dcsim compare RUN_DIR...`): one table of headline metrics, one column
per run, and the standard comparison plots: completion-time slowdown by flow size (mean and
p99), the queue's distribution at the switch ports the runs share, and each flow's goodput.

A run directory is what `dcsim run` wrote: its `summary.json` (which holds every flow and
port) and its tables, CSV or Parquet.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from .files import atomic
from .results import occupancy_cdf
from .workloads import DCTCP_BUCKETS, bucket_labels


class CompareError(ValueError):
    """A directory that is not a run `dcsim run` wrote, or runs that cannot be compared."""


def load(directory: Path) -> dict[str, Any]:
    """The summary of the run in `directory`."""
    path = directory / "summary.json"
    if not directory.is_dir():
        raise CompareError(f"{directory}: not a directory")
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CompareError(f"{directory}: no summary.json (not a directory `dcsim run` wrote)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CompareError(f"{path}: cannot read it: {e}") from None
    if not isinstance(summary, dict) or not {"flows", "ports", "drops"} <= summary.keys():
        raise CompareError(f"{path}: not the summary of a run (no flows, ports or drops)")
    return summary


def labels(directories: list[Path]) -> list[str]:
    """A short name for each run: its directory's name, or its path where two share a name."""
    names = [d.name or str(d) for d in directories]
    return [str(d) if names.count(n) > 1 else n for d, n in zip(directories, names, strict=True)]


def headline(summary: dict[str, Any]) -> dict[str, Any]:
    """A run's headline metrics: what a comparison of transports looks at first."""
    flows = summary["flows"]
    sized = [f for f in flows if f.get("size_bytes")]
    finished = [f for f in sized if f.get("completion_s") is not None]
    slowdown = np.array([f["slowdown"] for f in finished if f.get("slowdown") is not None])
    switch_ports = [p for p in summary["ports"] if p["is_switch"]]
    ccs = sorted({f["cc"] for f in flows})
    return {
        "transport": ", ".join(ccs) or "none",
        "flows": len(flows),
        "unfinished (of a set size)": len(sized) - len(finished),
        "goodput, Gb/s in all": sum(f["goodput_bps"] or 0 for f in flows) / 1e9,
        "drops": summary["drops"],
        "  of them at the AQM": sum(p["drops_aqm"] for p in summary["ports"]),
        "marks": summary["marks"],
        "timeouts": summary["timeouts"],
        "mean slowdown": float(slowdown.mean()) if len(slowdown) else None,
        "p99 slowdown": float(np.percentile(slowdown, 99)) if len(slowdown) else None,
        "largest p99 queue, packets": max((p["queue_p99_packets"] or 0 for p in switch_ports), default=None),
        "events": summary["events"],
    }


def table(names: list[str], summaries: list[dict[str, Any]]) -> list[list[str]]:
    """Rows of text: a header of run names, then one row per headline metric."""
    heads = [headline(s) for s in summaries]
    rows = [["", *names]]
    for metric in heads[0]:
        rows.append([metric, *(_cell(h[metric]) for h in heads)])
    return rows


def render(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(" ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))) for r in rows)


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3g}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def plots(names: list[str], summaries: list[dict[str, Any]], directories: list[Path], out: Path) -> tuple[list[str], list[str]]:
    """The comparison plots in `out` (PNG and SVG each): their file names, and why a plot
    was left out."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    files: list[str] = []
    left_out: list[str] = []

    def save(fig: Any, stem: str) -> None:
        for suffix in ("png", "svg"):
            with atomic(out / f"{stem}.{suffix}") as tmp:
                fig.savefig(tmp, format=suffix, dpi=120, bbox_inches="tight")
            files.append(f"{stem}.{suffix}")
        plt.close(fig)

    # Slowdown by size bucket, mean and p99: one group of bars per bucket any run has, a bar
    # per run.
    present = {b["bucket"] for s in summaries for b in s.get("fct") or []}
    buckets = [b for b in bucket_labels(DCTCP_BUCKETS) if b in present]
    if buckets:
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        width = 0.8 / len(summaries)
        for ax, stat in zip(axes, ("mean_slowdown", "p99_slowdown"), strict=True):
            for i, (name, s) in enumerate(zip(names, summaries, strict=True)):
                by_bucket = {b["bucket"]: b for b in s.get("fct") or []}
                values = [by_bucket.get(b, {}).get(stat) for b in buckets]
                xs = np.arange(len(buckets)) + (i - (len(summaries) - 1) / 2) * width
                ax.bar(xs, [np.nan if v is None else v for v in values], width, label=name)
                for x, b in zip(xs, buckets, strict=True):
                    if by_bucket.get(b, {}).get("biased"):
                        ax.annotate("!", (x, 0), ha="center", va="bottom", fontsize=8, color="#a00")
            ax.set_xticks(np.arange(len(buckets)), buckets, rotation=20, fontsize=7)
            ax.set_ylim(bottom=0)
            ax.set_ylabel(stat.replace("_", " "))
            ax.set_title(f"{stat.split('_')[0]} slowdown by flow size (! = over 10% unfinished)", fontsize=8)
        axes[0].legend(fontsize=7)
        save(fig, "fct_slowdown")
    else:
        left_out.append("no fct_slowdown: no run has flows of a set size")

    # The queue's distribution at the switch ports every run has, the first run's busiest.
    common = set.intersection(*({p["name"] for p in s["ports"] if p["is_switch"]} for s in summaries))
    first = [p for p in summaries[0]["ports"] if p["name"] in common]
    busiest = sorted(first, key=lambda p: -(p["queue_p99_packets"] or 0))[:3]
    if busiest:
        tables = [_occupancy_table(d) for d in directories]
        fig, axes = plt.subplots(1, len(busiest), figsize=(4 * len(busiest), 3.4), squeeze=False)
        for ax, port in zip(axes[0], busiest, strict=True):
            for name, frame in zip(names, tables, strict=True):
                seconds = None if frame is None else _occupancy(frame, port["name"])
                if seconds is not None and seconds.sum() > 0:
                    xs, ps = occupancy_cdf(seconds)
                    ax.step(xs, ps, where="post", label=name)
            ax.set_xlim(left=0)
            ax.set_ylim(0, 1.02)
            ax.set_xlabel("queue, packets")
            ax.set_ylabel("fraction of time")
            ax.set_title(f"queue at {port['name']}", fontsize=8)
        axes[0][0].legend(fontsize=7)
        save(fig, "queue_cdf")
    else:
        left_out.append("no queue_cdf: the runs have no switch port in common")

    # Each flow's goodput, sorted, per run.
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for name, s in zip(names, summaries, strict=True):
        rates = sorted((f["goodput_bps"] or 0) / 1e6 for f in s["flows"])
        ax.plot(np.arange(1, len(rates) + 1), rates, ".-", ms=3, label=name)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("flow, in order of goodput")
    ax.set_ylabel("goodput, Mb/s")
    ax.legend(fontsize=7)
    save(fig, "goodput")
    return files, left_out


def _occupancy_table(directory: Path) -> Any:
    """The run's `queue_occupancy` table (CSV or Parquet), None if it has none."""
    import pandas as pd

    if (directory / "queue_occupancy.parquet").is_file():
        return pd.read_parquet(directory / "queue_occupancy.parquet")
    if (directory / "queue_occupancy.csv").is_file():
        return pd.read_csv(directory / "queue_occupancy.csv")
    return None


def _occupancy(frame: Any, port: str) -> np.ndarray | None:
    """Seconds port `port` held exactly n packets, for each n, from a run's
    `queue_occupancy` table; None if the port is not in it."""
    rows = frame[frame["port_name"] == port]
    if not len(rows):
        return None
    seconds = np.zeros(int(rows["packets"].max()) + 1)
    seconds[rows["packets"].to_numpy(dtype=int)] = rows["seconds"].to_numpy()
    return seconds
