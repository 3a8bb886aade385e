"""Sweep throughput: a 200-run sweep of small scenarios (two DCTCP flows, 20 ms simulated,
K swept over 20 values x 10 seeds), on local worker processes and on a Dask LocalCluster
with as many single-threaded workers. Prints runs per minute; nothing is cached. Then the
parent process's peak Python memory (tracemalloc) over sweeps of 1,000 and 4,000 runs: what
a sweep holds per run beyond the workers' in-flight scenarios.

    python benchmarks/sweep_bench.py [--workers N]      (make bench-sweep)
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

from distributed import LocalCluster

import dcsim

PLAN = {
    "name": "bench",
    "base": {
        "sim": {"duration_s": 0.02},
        "topology": {"kind": "star", "hosts": 3},
        "switch": {"aqm": {"kind": "threshold", "k_packets": 20}},
        "tcp": {"cc": "dctcp"},
        "measure": {"queue_sample_us": 0.0},
        "flows": [{"src": 1, "dst": 0}, {"src": 2, "dst": 0}],
    },
    "repetitions": 10,
    "metrics": ["ports[s0->h0].mean_packets", "flows.goodput_bps.mean"],
    "grid": {"switch.aqm.k_packets": list(range(5, 105, 5))},
}


def timed(**where) -> tuple[int, float]:
    start = time.perf_counter()
    table = dcsim.sweep(PLAN, progress=False, **where)
    wall = time.perf_counter() - start
    assert (table["error"] == "").all(), table["error"].unique()
    return len(table), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    n = parser.parse_args().workers
    rows = []
    runs, wall = timed(jobs=n)
    rows.append((f"local processes ({n})", runs, wall))
    with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        runs, wall = timed(scheduler=cluster.scheduler_address)
        rows.append((f"Dask LocalCluster ({n} workers)", runs, wall))
    print("| executor | runs | wall s | runs per minute |")
    print("|---|---|---|---|")
    for name, runs, wall in rows:
        print(f"| {name} | {runs} | {wall:.2f} | {runs / wall * 60:,.0f} |")
    print()
    print("| runs | peak Python memory of the sweeping process | per run |")
    print("|---|---|---|")
    for repetitions in (50, 200):
        plan = {**PLAN, "repetitions": repetitions}
        tracemalloc.start()
        table = dcsim.sweep(plan, progress=False, jobs=n)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"| {len(table):,} | {peak / 1e6:.1f} MB | {peak / len(table):,.0f} B |")


if __name__ == "__main__":
    main()
