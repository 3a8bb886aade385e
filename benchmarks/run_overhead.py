"""What Python adds to a run: the engine's wall time (``Results.wall_seconds``, measured in
the bindings) beside the whole ``dcsim.run`` call plus building every table the Results
offers and its summary, on fixed scenarios that sample queues and flows and trace a port.

    python benchmarks/run_overhead.py [--repeat N] [--json build/bench-py.json]   (make bench-py)

Each scenario runs ``--repeat`` times; the fastest total is reported, with its engine time.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import dcsim
from dcsim.scenario import long_flows, star

TABLES = (
    "flows",
    "ports",
    "switches",
    "queue_occupancy",
    "queue_samples",
    "queries",
    "pool_samples",
    "flow_samples",
    "ictcp_samples",
    "trace",
)
MEASURE = {"queue_sample_us": 100.0, "flow_sample_us": 1000.0, "trace_ports": ["s0->h0"]}


def dctcp_star(hosts: int, name: str) -> dict[str, Any]:
    """A 1 Gb/s star of DCTCP hosts (K = 20), 1 s, sampled and traced as MEASURE says."""
    return star(hosts) | {
        "name": name,
        "sim": {"duration_s": 1.0},
        "switch": {"aqm": {"kind": "threshold", "k_packets": 20}},
        "tcp": {"cc": "dctcp"},
        "measure": MEASURE,
    }


def long_flows_scenario() -> dict[str, Any]:
    """20 long flows into one host."""
    return dctcp_star(21, "20 long flows") | {"flows": long_flows(range(1, 21), dst=0)}


def incast_scenario() -> dict[str, Any]:
    """A 40-sender incast: host 0 asks hosts 1..40 for 25 kB each, round after round."""
    query = {
        "client": 0,
        "servers": list(range(1, 41)),
        "response_bytes": 25_000,
        "rounds": 1000,
        "start_s": 0.01,
        "persistent": True,
    }
    return dctcp_star(41, "40-sender incast") | {"queries": [query]}


def measure(scenario: dict[str, Any]) -> dict[str, Any]:
    start = time.perf_counter()
    results = dcsim.run(scenario)
    ran = time.perf_counter()
    rows = {name: len(getattr(results, name)) for name in TABLES}
    results.summary()
    total = time.perf_counter() - start
    return {
        "engine_s": results.wall_seconds,
        "run_s": ran - start,
        "total_s": total,
        "ratio": total / results.wall_seconds,
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, default=Path("build/bench-py.json"))
    args = parser.parse_args()
    report = {}
    print(f"{'scenario':<20} {'engine s':>9} {'run s':>8} {'+tables s':>10} {'ratio':>6}  rows")
    for scenario in (long_flows_scenario(), incast_scenario()):
        best = min((measure(scenario) for _ in range(args.repeat)), key=lambda m: m["total_s"])
        report[scenario["name"]] = best
        rows = sum(best["rows"].values())
        print(
            f"{scenario['name']:<20} {best['engine_s']:>9.3f} {best['run_s']:>8.3f} "
            f"{best['total_s']:>10.3f} {best['ratio']:>6.2f}  {rows:,}"
        )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"dcsim": dcsim.__version__, "scenarios": report}, indent=2) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
