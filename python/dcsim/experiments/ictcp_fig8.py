"""ICTCP paper (Wu et al., IEEE/ACM ToN 2013), Figure 8: incast goodput with ICTCP (minimum
receive window 2 MSS) against TCP and DCTCP, fixed data per sender.

Paper setup (§VII-A): as Fig. 3 (47 servers on one Quanta LB4G, barrier-synchronised rounds on
pre-established connections, NewReno + SACK, timeout 300 ms), ICTCP on the receiver; "The
goodput shown is the average value of 100 experimental rounds."

Published results (§VII-A; spec experiments.md ictcp-fig8, §6 claims 19 and 20): ICTCP
"achieves smooth and increasing goodput with the number of sending servers increasing"; before
incast TCP is faster: "TCP achieves 879 Mb/s while ICTCP achieves 607 Mb/s with four sending
servers at 256 kB per server"; 40 senders × 64 kB: ICTCP 741 Mb/s (§VII-A-2).

Our setup: :mod:`ictcp_compare` (the ICTCP testbed; ICTCP, TCP and DCTCP on the same rounds).

Assumptions:
- Amounts per sender: 64, 128 and 256 kB (64 and 256 are named; the third is NOT GIVEN), as
  ictcp-fig3; kB = 1024 B.
- The LB4G's one-busy-port share is 128.5 kB (engine preset ``quanta_lb4g``; see its doc).
- DCTCP (K = 20, 300 ms timeout) is not in the paper's figure; it is run on the same rounds
  for comparison.

Outputs: fig8_9_runs.csv (variant, workload, senders, goodput, timeout ratio, rounds ...),
fig8_goodput.png/.svg.
"""

from __future__ import annotations

import math
from pathlib import Path

from . import common as c
from . import ictcp_compare as cmp

ID = "ictcp-fig8"
TITLE = "ICTCP Fig. 8: incast goodput, ICTCP (2 MSS min rwnd) vs TCP vs DCTCP, fixed data per sender"
DESCRIPTION = "Synchronised incast on a 47-server GbE star: ICTCP rises smoothly with senders, TCP collapses."

AMOUNTS_KB = (64, 128, 256)
SCALES = {
    "smoke": {"amounts_kb": (64, 256)},
    "quick": {"amounts_kb": AMOUNTS_KB},
    "full": {"amounts_kb": AMOUNTS_KB},
}
PAPER = {"tcp_4x256": 879.0, "ictcp_4x256": 607.0, "ictcp_40x64": 741.0}


def runs(scale: str) -> list[cmp.Run]:
    """The runs of Figs. 8 and 9 (the same rounds)."""
    s = c.check_scale(scale, SCALES)
    return cmp.sweep("ictcp-fig8", scale, cmp.COMPARED, cmp.per_sender_workloads(s["amounts_kb"]))


def scenarios(scale: str) -> list[tuple[str, str, int, dict]]:
    return cmp.plan(runs(scale))


def run_figs_8_9(scale: str, out: Path, jobs: int):
    return cmp.run_sweep(runs(scale), jobs, out / "fig8_9_runs.csv")


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    out = c.prepare_out(out_dir)
    df = run_figs_8_9(scale, out, jobs)
    files = cmp.plot(
        df,
        out,
        "fig8_goodput",
        "goodput_mbps",
        "Goodput (Mb/s)",
        f"Incast goodput, {cmp.GRIDS[scale]['rounds']} rounds per point (paper Fig. 8: 100)",
        cmp.COMPARED,
        references=[
            (4, PAPER["tcp_4x256"], "256 kB/sender: TCP 879 Mb/s"),
            (4, PAPER["ictcp_4x256"], "256 kB/sender: ICTCP 607 Mb/s"),
            (40, PAPER["ictcp_40x64"], "64 kB/sender: ICTCP 741 Mb/s"),
        ],
        ymax=1000,
    )
    w64, w256 = "64 kB/sender", "256 kB/sender"
    tcp4 = cmp.at(df, cmp.TCP, w256, 4, "goodput_mbps")
    ictcp4 = cmp.at(df, cmp.ICTCP_2MSS, w256, 4, "goodput_mbps")
    ictcp40 = cmp.at(df, cmp.ICTCP_2MSS, w64, 40, "goodput_mbps")
    collapse = {}
    for w in dict.fromkeys(df.workload):
        d = cmp.curve(df, cmp.TCP, w)
        peak = float(d.goodput_mbps.max()) if len(d) else float("nan")
        collapse[w] = (peak, cmp.at(df, cmp.TCP, w, 40, "goodput_mbps"))
    dctcp40 = cmp.at(df, cmp.DCTCP, w64, 40, "goodput_mbps")
    claims = [
        c.claim(
            "Before incast TCP beats ICTCP on small transfers (claim 19): TCP > ICTCP at 4 senders × 256 kB",
            "TCP 879 Mb/s, ICTCP 607 Mb/s",
            f"TCP {c.fmt(tcp4, 0)} Mb/s, ICTCP {c.fmt(ictcp4, 0)} Mb/s (DCTCP "
            f"{c.fmt(cmp.at(df, cmp.DCTCP, w256, 4, 'goodput_mbps'), 0)})",
            math.isfinite(tcp4) and math.isfinite(ictcp4) and tcp4 > ictcp4,
        ),
        c.claim(
            "ICTCP does not collapse (claim 20): goodput at 40 senders × 64 kB ≥ 0.6 Gb/s",
            "741 Mb/s",
            f"{c.fmt(ictcp40, 0)} Mb/s (DCTCP {c.fmt(dctcp40, 0)})",
            math.isfinite(ictcp40) and ictcp40 >= 600.0,
        ),
        c.claim(
            "TCP collapses on the same rounds (claim 20): TCP goodput at 40 senders ≤ 0.5 × its peak, every amount",
            "TCP collapses (figure)",
            "; ".join(f"{w}: peak {c.fmt(p, 0)}, n=40 {c.fmt(g, 0)} Mb/s" for w, (p, g) in collapse.items()),
            bool(collapse) and all(math.isfinite(g) and g <= 0.5 * p for p, g in collapse.values()),
        ),
    ]
    metrics = {
        "published_mbps": PAPER,
        "at_4": cmp.metrics_table(df, cmp.COMPARED, 4),
        "at_40": cmp.metrics_table(df, cmp.COMPARED, 40),
        "files": ["fig8_9_runs.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
