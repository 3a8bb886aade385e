"""dcsim beside htsim on two cases, in CPU time (`make bench-htsim`).

    python benchmarks/htsim/compare.py [--rounds-star N] [--rounds-fattree N] [--ack-every-segment]

Each round runs the two simulators in A B B A order (A = dcsim, B = htsim), one process at a
time, and reads each child's CPU time (user + system) from `os.wait4`, so that both are
measured alike and a machine shared with other work slows neither's figure much. The best CPU
time of each over the rounds gives its data packets per CPU-second.

The cases are the engine bench's `dctcp-20x1g` (20 long DCTCP flows into one host of a
1 Gb/s star) and `fattree12-perm` (a k = 12 fat-tree, 432 hosts, a permutation of long DCTCP
flows); htsim runs them with `build/htsim/htsim_cmp` (`benchmarks/htsim/build.sh`), the fat
tree on dcsim's own source-destination pairs. What differs between the two setups is in
docs/performance.md ("Beside htsim"). htsim acknowledges every packet where dcsim's stacks
acknowledge every second segment; `--ack-every-segment` adds the two cases with dcsim doing
the same (`tcp.delayed_ack_segments = 1`).

Writes build/htsim/compare.json and prints a table per case.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "target" / "release" / "examples" / "bench"
OUT = ROOT / "build" / "htsim"
HTSIM = OUT / "htsim_cmp"
CASES = {"star": "dctcp-20x1g", "fattree": "fattree12-perm"}


def prepare() -> None:
    """dcsim's scenarios of the two cases, written by the engine bench (which runs each once)
    when missing or older than the bench; the fat tree's pairs for htsim; and the variants
    acknowledging every segment. Both simulators run from these files."""
    scenarios = OUT / "dcsim" / "scenarios"
    files = [scenarios / f"{case}.json" for case in CASES.values()]
    if not all(f.exists() and f.stat().st_mtime >= BENCH.stat().st_mtime for f in files):
        args = [str(BENCH), "--runs", "1", "--out", str(OUT / "dcsim")]
        for case in CASES.values():
            args += ["--case", case]
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    fattree = json.loads((scenarios / "fattree12-perm.json").read_text())
    (OUT / "pairs.txt").write_text("".join(f"{f['src']} {f['dst']}\n" for f in fattree["flows"]))
    for case in CASES.values():
        s = json.loads((scenarios / f"{case}.json").read_text())
        s["tcp"]["delayed_ack_segments"] = 1
        (scenarios / f"{case}-ack1.json").write_text(json.dumps(s))


def commands(case: str, ack_every_segment: bool) -> dict[str, list[str]]:
    """The two command lines of a case: dcsim from its scenario file, htsim for as long."""
    scenario = OUT / "dcsim" / "scenarios" / (CASES[case] + ("-ack1" if ack_every_segment else "") + ".json")
    seconds = str(json.loads(scenario.read_text())["sim"]["duration_s"])
    dcsim = [str(BENCH), "--scenario", str(scenario), "--runs", "1"]
    htsim = [str(HTSIM), "star", seconds] if case == "star" else [str(HTSIM), "fattree", str(OUT / "pairs.txt"), seconds]
    return {"dcsim": dcsim, "htsim": htsim}


def run_once(cmd: list[str]) -> tuple[float, dict[str, Any]]:
    """Runs `cmd` alone: its CPU seconds and the JSON of its last output line."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE)
    assert p.stdout is not None
    out = p.stdout.read()  # read before waiting, so that a full pipe cannot stall the child
    _, status, usage = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"error: {' '.join(cmd)} failed (its messages are above)")
    rows = [line for line in out.decode().splitlines() if line.startswith("{")]
    if not rows:
        sys.exit(f"error: {' '.join(cmd)} printed no JSON line")
    return usage.ru_utime + usage.ru_stime, json.loads(rows[-1])


def compare(case: str, rounds: int, ack_every_segment: bool) -> dict[str, Any]:
    cmds = commands(case, ack_every_segment)
    runs: dict[str, list[tuple[float, dict[str, Any]]]] = {"dcsim": [], "htsim": []}
    for _ in range(rounds):
        for sim in ("dcsim", "htsim", "htsim", "dcsim"):
            runs[sim].append(run_once(cmds[sim]))
    row: dict[str, Any] = {}
    for sim, done in runs.items():
        cpu, out = min(done, key=lambda r: r[0])
        cpus = sorted(c for c, _ in done)
        row[sim] = {
            "best_cpu_s": cpu,
            "median_cpu_s": cpus[len(cpus) // 2],
            "events": out["events"],
            "data_packets": out["data_packets"],
            "data_packets_per_cpu_s": out["data_packets"] / cpu,
            "same_packets_every_run": len({o["data_packets"] for _, o in done}) == 1,
        }
    row["dcsim_over_htsim"] = row["dcsim"]["data_packets_per_cpu_s"] / row["htsim"]["data_packets_per_cpu_s"]
    return row


def positive(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"a round count is at least 1, not {n}")
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds-star", type=positive, default=5)
    ap.add_argument("--rounds-fattree", type=positive, default=2)
    ap.add_argument("--ack-every-segment", action="store_true", help="also with dcsim acknowledging every segment")
    a = ap.parse_args()
    if not HTSIM.exists() or not BENCH.exists():
        sys.exit("error: build first: benchmarks/htsim/build.sh and cargo build --release -p dcsim --example bench")
    prepare()
    plan = [(case, rounds, False) for case, rounds in (("star", a.rounds_star), ("fattree", a.rounds_fattree))]
    if a.ack_every_segment:
        plan += [(case, rounds, True) for case, rounds, _ in plan]
    results = {}
    for case, rounds, ack1 in plan:
        name = case + (", dcsim ACKing every segment" if ack1 else "")
        results[name] = row = compare(case, rounds, ack1)
        print(f"\n{name} ({rounds} rounds, A B B A)")
        print("| simulator | best CPU s (median) | data packets | data packets per CPU-s | events |")
        print("|---|---|---|---|---|")
        for sim in ("htsim", "dcsim"):
            x = row[sim]
            print(
                f"| {sim} | {x['best_cpu_s']:.3f} ({x['median_cpu_s']:.3f}) | {x['data_packets']:,} | "
                f"{x['data_packets_per_cpu_s'] / 1e6:.3f} M | {x['events']:,} |"
            )
        print(f"dcsim / htsim: {row['dcsim_over_htsim']:.2f}", flush=True)
    (OUT / "compare.json").write_text(json.dumps(results, indent=1) + "\n")
    print(f"\nwrote {OUT / 'compare.json'}")


if __name__ == "__main__":
    main()
