"""A model of one run's speedup against threads, from what `bench --parallel` measured.

    cargo run --release -p dcsim --example bench -- --parallel --out build/parallel
    python benchmarks/parallel_model.py build/parallel/parallel.json \
        [--extra NAME=CUT.json,WHOLE.json,WHOLE_SETUP.json,CUT_SETUP.json ...]

A cut run does, in each window, every partition's events, then meets at a barrier. With the
partitions dealt to `n` threads in contiguous runs (as the engine deals them), a window lasts
as long as its busiest thread's events take, plus the barrier and the hand-over of packets:

    T(n) = c · (sum over windows of the busiest thread's events) + W · b · log2(n)

- `c`, the time of an event, is the whole network's on one thread (`bench --whole`): a
  thread that holds some of the partitions works on a slice of the network as warm as the
  whole run's. (One thread running every partition in turn is slower than that, by 15-30%:
  each window cycles through every partition's state; the model leaves n = 1 to the whole
  run, which is what a user runs on one core.)
- `b`, the barrier and hand-over per window at 2 threads, is fitted on one case's two-thread
  run and checked against the others'. It grows as log2(n), the depth of a tree of n
  threads: an assumption, since this machine has 2 cores.
- `c` stays fixed as threads are added: no contention for memory bandwidth and no gain from
  smaller working sets.
- A network cut per pod has k partitions: beyond k threads nothing more is gained.

`--extra` adds a network measured by `bench --scenario` alone: a one-thread cut run (for its
windows), a whole run (for `c`), and the same two with almost no simulated time, whose wall
times (building the network, and its partitions' copies) are taken off.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any


def busiest(window_events: list[list[int]], threads: int) -> int:
    """Sum over windows of the busiest thread's events, the partitions dealt in contiguous
    runs as even as they divide (`parallel.rs`)."""
    parts = len(window_events[0]) if window_events else 1
    threads = min(threads, parts)
    bounds, start = [], 0
    for t in range(threads):
        size = parts // threads + (1 if t < parts % threads else 0)
        bounds.append((start, start + size))
        start += size
    return sum(max(sum(w[a:b]) for a, b in bounds) for w in window_events)


def case_model(cut: dict[str, Any], whole_s: float, cut_setup_s: float = 0.0) -> dict[str, Any]:
    """What the model needs of one cut run on one thread, and the whole run's wall time."""
    p = cut["parallel"]
    events = sum(p["events_by_partition"])
    return {
        "events": events,
        "windows": p["windows"],
        "partitions": p["partitions"],
        "c": whole_s / cut["events"],
        "whole_s": whole_s,
        "cut_s": cut["best_wall_s"] - cut_setup_s,
        "window_events": p["window_events"],
        "crossing": p["crossings"] / p["hops"],
    }


def predict(m: dict[str, Any], threads: int, barrier_s: float, growth: bool = True) -> float:
    """T(n); `growth`: the barrier's cost grows as log2(n) (else it stays at 2 threads')."""
    n = min(threads, m["partitions"])
    if n == 1:
        return float(m["whole_s"])
    return float(m["c"] * busiest(m["window_events"], n) + m["windows"] * barrier_s * (math.log2(n) if growth else 1.0))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("parallel_json", type=Path, help="bench --parallel's parallel.json")
    ap.add_argument("--fit", default="fattree12-perm", help="case whose two-thread run fixes the barrier cost")
    ap.add_argument(
        "--extra",
        action="append",
        default=[],
        metavar="NAME=CUT,WHOLE,WHOLE_SETUP,CUT_SETUP",
        help="a network measured by bench --scenario: its one-thread cut and whole runs, and the same with almost no simulated time",
    )
    args = ap.parse_args()
    rows = json.loads(args.parallel_json.read_text())
    # The idle-network replays for slowdown run whole, after the run: not the model's.
    models = {r["id"]: (case_model(r["one_thread"], r["whole"]["best_wall_s"]), r) for r in rows if not r["id"].endswith("-ideal")}
    m, r = models[args.fit]
    barrier = (r["two_threads"]["best_wall_s"] - m["c"] * busiest(m["window_events"], 2)) / m["windows"]
    print(f"barrier and hand-over per window at 2 threads, fitted on {args.fit}: {barrier * 1e6:.2f} µs")
    print()
    print("| case | partitions | windows | events/window | hops crossing | whole | cut, 1 thread | 2 threads | model | error |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, (m, r) in models.items():
        measured = r["two_threads"]["best_wall_s"]
        model = predict(m, 2, barrier)
        print(
            f"| {name} | {m['partitions']} | {m['windows']:,} | {m['events'] / m['windows']:,.0f} | {100 * m['crossing']:.0f}% "
            f"| {m['whole_s']:.2f} s | {m['cut_s']:.2f} s | {measured:.2f} s | {model:.2f} s | {100 * (model / measured - 1):+.0f}% |"
        )
    for extra in args.extra:
        name, files = extra.split("=", 1)
        cut, whole, whole_setup, cut_setup = (json.loads(Path(f).read_text()) for f in files.split(","))
        whole_s = whole["best_wall_s"] - whole_setup["best_wall_s"]
        models[name] = (case_model(cut, whole_s, cut_setup["best_wall_s"]), {})
    print()
    print("Speedup over the whole run on one thread; the second figure keeps the barrier at its 2-thread cost.")
    print()
    print("| case | partitions | events/window | whole (1 thread) | 2 threads | 16 threads | 64 threads |")
    print("|---|---|---|---|---|---|---|")
    for name, (m, _) in models.items():
        t1 = predict(m, 1, barrier)
        cells = []
        for n in (2, 16, 64):
            slow, fast = predict(m, n, barrier), predict(m, n, barrier, growth=False)
            cells.append(f"{t1 / slow:.1f}×" if n == 2 else f"{t1 / slow:.1f}-{t1 / fast:.1f}×")
        print(f"| {name} | {m['partitions']} | {m['events'] / m['windows']:,.0f} | {t1:.2f} s | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
