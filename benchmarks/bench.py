"""`make bench`, second half: the bench table with what a whole ``dcsim.run`` costs.

The engine bench (``cargo run --release -p dcsim --example bench -- --out DIR``) writes
``DIR/engine.json`` and each case's scenario in ``DIR/scenarios``. This runs every scenario
once more through ``dcsim.run`` in a fresh Python process (its own memory peak), puts the
whole call's wall time beside the engine's, and prints one table, written as
``DIR/bench.json``. Then it times the quick paper suite (``dcsim reproduce --force``, into
``DIR/quick-suite``): its wall time and the CPU time of it and its workers, which does not
depend on how many cores ran it.

    python benchmarks/bench.py build/bench [--no-suite]
    python benchmarks/bench.py --compare OLD/bench.json NEW/bench.json   (engine.json too)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# Runs in the child: the import is not timed, the call is.
CHILD = """
import json, sys, time
import dcsim
scenario = json.loads(open(sys.argv[1]).read())
start = time.perf_counter()
results = dcsim.run(scenario)
total = time.perf_counter() - start
print(json.dumps({"run_s": total, "engine_s": results.wall_seconds, "events": results.events}))
"""


def run_reaped(args: list[str], what: str) -> tuple[str, os.struct_rusage]:
    """Runs ``args``, returning its standard output and its resource usage, which counts the
    descendants it waited for (a pool's workers) as well."""
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    # Reap it ourselves: wait4 gives this child's own resource usage.
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code  # reaped here: Popen must not wait for it again
    if code:
        raise SystemExit(f"{what} failed with status {code}")
    return out, usage


def run_in_child(path: Path) -> dict[str, Any]:
    """``dcsim.run`` of the scenario file in a fresh interpreter, with that process's peak RSS."""
    out, usage = run_reaped([sys.executable, "-c", CHILD, str(path)], f"dcsim.run of {path}")
    row = json.loads(out)
    row["python_peak_rss_bytes"] = usage.ru_maxrss * 1024
    return row


def quick_suite(directory: Path) -> dict[str, Any]:
    """Every paper experiment at quick scale, as ``dcsim reproduce --force`` runs them (no run
    cached by an earlier invocation is used):
    wall time, and CPU time with the workers'."""
    from dcsim.executor import usable_cores

    jobs = usable_cores()
    start = time.perf_counter()
    args = [sys.executable, "-m", "dcsim", "reproduce", "--force", "--quiet", "--jobs", str(jobs)]
    _, usage = run_reaped([*args, "--out", str(directory / "quick-suite")], "dcsim reproduce")
    wall = time.perf_counter() - start
    return {"jobs": jobs, "wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime}


def mega(x: float) -> str:
    return f"{x / 1e6:.2f} M"


# (heading, row key, format) of the printed table.
COLUMNS = (
    ("case", "id", str),
    ("events", "events", "{:,}".format),
    ("packet-hops", "packet_hops", "{:,}".format),
    ("flows done", "flows_completed", str),
    ("wall s", "best_wall_s", "{:.3f}".format),
    ("ns/event", "ns_per_event", "{:.0f}".format),
    ("data packets/s", "data_packets_per_s", mega),
    ("packet-hops/s", "packet_hops_per_s", mega),
    ("peak MB", "peak_rss_mb", "{:.1f}".format),
    ("dcsim.run s", "run_s", "{:.3f}".format),
    ("of it engine s", "run_engine_s", "{:.3f}".format),
    ("dcsim.run peak MB", "run_peak_rss_mb", "{:.1f}".format),
)


def table(rows: list[dict[str, Any]]) -> str:
    head = "| " + " | ".join(name for name, _, _ in COLUMNS) + " |"
    rule = "|" + "---|" * len(COLUMNS)
    body = ["| " + " | ".join(fmt(row[key]) if key in row else "–" for _, key, fmt in COLUMNS) + " |" for row in rows]
    return "\n".join([head, rule, *body])


def bench(directory: Path, suite: bool) -> None:
    engine = json.loads((directory / "engine.json").read_text())
    rows = []
    for case in engine["cases"]:
        row = dict(case, peak_rss_mb=case["peak_rss_bytes"] / 1e6)
        run = run_in_child(directory / "scenarios" / f"{case['id']}.json")
        if run["events"] != case["events"]:
            raise SystemExit(f"{case['id']}: dcsim.run took {run['events']} events, the engine {case['events']}")
        row.update(
            run_s=run["run_s"],
            run_engine_s=run["engine_s"],
            run_peak_rss_mb=run["python_peak_rss_bytes"] / 1e6,
        )
        rows.append(row)
        print(f"  {case['id']}: dcsim.run {run['run_s']:.3f} s", file=sys.stderr)
    print(table(rows))
    memory = engine.get("memory") or {}
    for key, label in (
        ("per_idle_connection_bytes", "memory per idle connection (both ends)"),
        ("per_queued_packet_bytes", "memory per queued packet"),
    ):
        if key in memory:
            print(f"{label}: {memory[key]:.0f} B")
    doc = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count()},
        "quick": engine["quick"],
        "cases": rows,
        "memory": memory,
    }
    if suite:
        print("  the quick paper suite (dcsim reproduce --force) ...", file=sys.stderr)
        doc["quick_suite"] = q = quick_suite(directory)
        print(f"quick paper suite: {q['wall_s']:.1f} s wall on {q['jobs']} cores, {q['cpu_s']:.1f} CPU-s")
    out = directory / "bench.json"
    out.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {out}", file=sys.stderr)


def compare(old_path: Path, new_path: Path) -> None:
    """New over old for the speed and memory figures of every case in both."""
    old = {c["id"]: c for c in json.loads(old_path.read_text())["cases"]}
    new = {c["id"]: c for c in json.loads(new_path.read_text())["cases"]}
    for case in (*old.values(), *new.values()):  # engine.json rows have bytes only
        case.setdefault("peak_rss_mb", case["peak_rss_bytes"] / 1e6)
    keys = (("wall s", "best_wall_s"), ("ns/event", "ns_per_event"), ("peak MB", "peak_rss_mb"))
    print("| case | " + " | ".join(f"{n} old → new" for n, _ in keys) + " | speed-up |")
    print("|---|" + "---|" * (len(keys) + 1))
    for case in (c for c in new if c in old):
        o, n = old[case], new[case]
        cells = [f"{o[k]:.4g} → {n[k]:.4g}" for _, k in keys]
        print(f"| {case} | " + " | ".join(cells) + f" | {o['best_wall_s'] / n['best_wall_s']:.2f}× |")
    suites = [json.loads(p.read_text()).get("quick_suite") for p in (old_path, new_path)]
    if all(suites):
        o, n = suites
        print(
            f"quick paper suite: {o['cpu_s']:.1f} → {n['cpu_s']:.1f} CPU-s ({o['cpu_s'] / n['cpu_s']:.2f}×), "
            f"{o['wall_s']:.1f} → {n['wall_s']:.1f} s wall ({o['jobs']} → {n['jobs']} cores)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path, nargs="?", help="the engine bench's --out directory")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("OLD", "NEW"))
    parser.add_argument("--no-suite", action="store_true", help="leave out the quick paper suite (about 2 minutes on 2 cores)")
    args = parser.parse_args()
    if args.compare:
        compare(*args.compare)
    elif args.directory:
        bench(args.directory, suite=not args.no_suite)
    else:
        parser.error("give the engine bench's output directory, or --compare OLD NEW")


if __name__ == "__main__":
    main()
