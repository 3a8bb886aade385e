"""Scaling curves: engine wall time and peak memory against simulated time, hosts and
concurrent flows, each over a factor of at least 16 (`make scaling`, a few minutes).

    python benchmarks/scaling.py [--out build/scaling] [--docs docs/performance]

Every point runs in a fresh process of the engine bench (`bench --scenario FILE`, built by
`cargo build --release -p dcsim --example bench`), so its wall time and memory peak are the
engine's own. Writes `OUT/scaling.json` and, with --docs, the plots (`scaling-*.png`) that
docs/performance.md shows.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ENGINE_BENCH = Path(__file__).resolve().parent.parent / "target" / "release" / "examples" / "bench"

# The fabric of the bench's 10 Gb/s cases: 1 µs per hop, 100-packet queues, DCTCP K = 15.
FABRIC = {
    "switch": {
        "buffer": {"kind": "per_port", "limit_packets": 100},
        "aqm": {"kind": "threshold", "k_packets": 15},
    },
    "tcp": {"cc": "dctcp"},
    "measure": {"queue_sample_us": 0},
}
LINK_10G = {"rate_gbps": 10.0, "delay_us": 1.0}


def permutation(hosts: int, seed: int = 1) -> list[dict[str, int]]:
    """One long flow per host to a random other host, each host receiving one (a derangement
    by Sattolo's algorithm)."""
    dst = list(range(hosts))
    rng = random.Random(seed)
    for i in range(hosts - 1, 0, -1):
        j = rng.randrange(i)
        dst[i], dst[j] = dst[j], dst[i]
    return [{"src": h, "dst": dst[h]} for h in range(hosts)]


def long_flows_1g(duration_s: float) -> dict[str, Any]:
    """20 long DCTCP flows into one host of a 1 Gb/s star (the bench's dctcp-20x1g)."""
    return {
        "name": f"20 flows, {duration_s} s",
        "sim": {"duration_s": duration_s},
        "topology": {"kind": "star", "hosts": 21, "link": {"rate_gbps": 1.0, "delay_us": 25.0}},
        "switch": {
            "buffer": {"kind": "per_port", "limit_packets": 400},
            "aqm": {"kind": "threshold", "k_packets": 20},
        },
        "tcp": {"cc": "dctcp"},
        "measure": {"queue_sample_us": 0},
        "flows": [{"src": h, "dst": 0} for h in range(1, 21)],
    }


def star_permutation(hosts: int, duration_s: float) -> dict[str, Any]:
    return FABRIC | {
        "name": f"star, {hosts} hosts",
        "sim": {"duration_s": duration_s},
        "topology": {"kind": "star", "hosts": hosts, "link": LINK_10G},
        "flows": permutation(hosts),
    }


def fat_tree_permutation(k: int, duration_s: float) -> dict[str, Any]:
    return FABRIC | {
        "name": f"fat-tree k={k}",
        "sim": {"duration_s": duration_s},
        "topology": {"kind": "fat_tree", "k": k, "link": LINK_10G},
        "flows": permutation(k**3 // 4),
    }


def fat_tree_flows(k: int, flows: int, duration_s: float, seed: int = 1) -> dict[str, Any]:
    """`flows` long flows between random pairs of distinct hosts of a k-ary fat-tree."""
    hosts = k**3 // 4
    rng = random.Random(seed)
    pairs = []
    for _ in range(flows):
        src, dst = rng.sample(range(hosts), 2)
        pairs.append({"src": src, "dst": dst})
    return FABRIC | {
        "name": f"fat-tree k={k}, {flows} flows",
        "sim": {"duration_s": duration_s},
        "topology": {"kind": "fat_tree", "k": k, "link": LINK_10G},
        "flows": pairs,
    }


# (plot file, curve, x-axis label, [(x, scenario)]): each x range spans a factor of 16 or more.
def curves() -> list[tuple[str, str, str, list[tuple[float, dict[str, Any]]]]]:
    return [
        (
            "scaling-simulated-time",
            "simulated time",
            "simulated seconds (20 long flows, 1 Gb/s star)",
            [(t, long_flows_1g(t)) for t in (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)],
        ),
        (
            "scaling-hosts-one-switch",
            "hosts (one switch)",
            "hosts (one 10 Gb/s switch, permutation, 5 ms)",
            [(n, star_permutation(n, 0.005)) for n in (16, 64, 256, 1024, 2048)],
        ),
        (
            "scaling-hosts-fat-tree",
            "hosts (fat-tree)",
            "hosts (k-ary fat-tree, 10 Gb/s, permutation, 5 ms)",
            [(k**3 // 4, fat_tree_permutation(k, 0.005)) for k in (4, 6, 8, 12, 16)],
        ),
        (
            "scaling-concurrent-flows",
            "concurrent flows",
            "concurrent long flows (k = 8 fat-tree, 128 hosts, 5 ms)",
            [(n, fat_tree_flows(8, n, 0.005)) for n in (32, 128, 512, 2048, 8192)],
        ),
    ]


def run_engine(path: Path) -> dict[str, Any]:
    """One run of the scenario file by the engine bench, in its own process: its row."""
    done = subprocess.run(
        [str(ENGINE_BENCH), "--scenario", str(path), "--runs", "1"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def measure(out: Path) -> list[dict[str, Any]]:
    if not ENGINE_BENCH.exists():
        raise SystemExit(f"{ENGINE_BENCH} is missing: cargo build --release -p dcsim --example bench")
    points = []
    with tempfile.TemporaryDirectory() as tmp:
        for plot_file, curve, xlabel, series in curves():
            for x, scenario in series:
                path = Path(tmp) / "scenario.json"
                path.write_text(json.dumps(scenario))
                run = run_engine(path)
                point = {
                    "plot": plot_file,
                    "curve": curve,
                    "xlabel": xlabel,
                    "x": x,
                    "engine_s": run["best_wall_s"],
                    "events": run["events"],
                    "ns_per_event": run["ns_per_event"],
                    "peak_rss_mb": run["peak_rss_bytes"] / 1e6,
                }
                points.append(point)
                print(
                    f"{curve:>20}  x = {x:>7g}  {point['engine_s']:8.3f} s  "
                    f"{point['events']:>12,} events  {point['ns_per_event']:6.0f} ns/event  "
                    f"{point['peak_rss_mb']:7.1f} MB",
                    file=sys.stderr,
                )
    out.mkdir(parents=True, exist_ok=True)
    (out / "scaling.json").write_text(json.dumps(points, indent=2) + "\n")
    return points


def plot(points: list[dict[str, Any]], docs: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    docs.mkdir(parents=True, exist_ok=True)
    by_curve: dict[str, list[dict[str, Any]]] = {}
    for p in points:
        by_curve.setdefault(p["curve"], []).append(p)
    for curve, ps in by_curve.items():
        xs = [p["x"] for p in ps]
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
        for ax, key, label in (
            (axes[0], "engine_s", "engine wall time, s"),
            (axes[1], "ns_per_event", "wall ns per event"),
            (axes[2], "peak_rss_mb", "peak memory (whole process), MB"),
        ):
            ax.plot(xs, [p[key] for p in ps], "o-")
            ax.set_xscale("log", base=2)
            if key == "engine_s":
                ax.set_yscale("log", base=2)
            else:
                ax.set_ylim(bottom=0)
            ax.set_xlabel(ps[0]["xlabel"], fontsize=8)
            ax.set_ylabel(label)
            ax.grid(True, which="both", alpha=0.3)
        fig.suptitle(f"dcsim scaling with {curve}")
        fig.tight_layout()
        name = ps[0]["plot"]
        fig.savefig(docs / f"{name}.png", dpi=90)
        plt.close(fig)
        print(f"wrote {docs / name}.png", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("build/scaling"))
    parser.add_argument("--docs", type=Path, help="write the plots here (docs/performance)")
    parser.add_argument("--replot", action="store_true", help="plot OUT/scaling.json again")
    args = parser.parse_args()
    if args.replot:
        points = json.loads((args.out / "scaling.json").read_text())
    else:
        points = measure(args.out)
    if args.docs:
        plot(points, args.docs)


if __name__ == "__main__":
    main()
