"""ICTCP paper (Wu et al., IEEE/ACM ToN 2013), Figure 8: incast goodput with ICTCP (minimum
receive window 2 MSS) against TCP and DCTCP, fixed data per sender.

Paper setup (§VII-A): as Fig. 3 (47 servers on one Quanta LB4G, barrier-synchronised rounds on
pre-established connections, NewReno + SACK, timeout 300 ms), ICTCP on the receiver; "The
goodput shown is the average value of 100 experimental rounds."

Published results (§VII-A): ICTCP "achieves smooth and increasing goodput with the number of
sending servers increasing"; before incast TCP is faster: "TCP achieves 879 Mb/s while ICTCP
achieves 607 Mb/s with four sending servers at 256 kB per server"; 40 senders × 64 kB: ICTCP
741 Mb/s (§VII-A-2).

Our setup: the comparison sweep of the ICTCP testbed (ICTCP, TCP and DCTCP on the same
rounds); ictcp-fig9 reads the same runs.

Assumptions:
- Amounts per sender: 64, 128 and 256 kB (64 and 256 are named; the third is not given), as
  ictcp-fig3; kB = 1024 B.
- The LB4G's one-busy-port share is 128.5 kB (engine preset ``quanta_lb4g``; see its doc).
- DCTCP (K = 20, 300 ms timeout) is not in the paper's figure; it is run on the same rounds
  for comparison.

Outputs: fig8_9_runs.csv (variant, workload, senders, goodput, timeout ratio, rounds ...),
fig8_goodput.png/.svg.
"""

from __future__ import annotations

import math
from typing import Any

from ..analysis import fmt
from ..declarations import Claim, Experiment, Metrics, Runs
from .compare import (
    COMPARED,
    DCTCP,
    ICTCP_2MSS,
    PER_SENDER_SCALES,
    TCP,
    at,
    curve,
    fixed_per_sender_runs,
    metrics_table,
    plot,
    runs_table,
)
from .incast import longer_if_unfinished

PAPER = {"tcp_4x256": 879.0, "ictcp_4x256": 607.0, "ictcp_40x64": 741.0}
W64, W256 = "64 kB/sender", "256 kB/sender"


def analyze(runs: Runs) -> Metrics:
    df = runs_table(runs)
    return Metrics(
        values={
            "published_mbps": PAPER,
            "at_4": metrics_table(df, COMPARED, 4),
            "at_40": metrics_table(df, COMPARED, 40),
            # The plot's title names them.
            "rounds_per_point": runs.params["rounds"],
        },
        tables={"fig8_9_runs": df},
    )


def _tcp_faster_before_incast(m: Metrics) -> tuple[bool, str]:
    df = m.tables["fig8_9_runs"]
    tcp4 = at(df, TCP, W256, 4, "goodput_mbps")
    ictcp4 = at(df, ICTCP_2MSS, W256, 4, "goodput_mbps")
    measured = f"TCP {fmt(tcp4, 0)} Mb/s, ICTCP {fmt(ictcp4, 0)} Mb/s (DCTCP {fmt(at(df, DCTCP, W256, 4, 'goodput_mbps'), 0)})"
    return math.isfinite(tcp4) and math.isfinite(ictcp4) and tcp4 > ictcp4, measured


def _ictcp_does_not_collapse(m: Metrics) -> tuple[bool, str]:
    df = m.tables["fig8_9_runs"]
    ictcp40 = at(df, ICTCP_2MSS, W64, 40, "goodput_mbps")
    dctcp40 = at(df, DCTCP, W64, 40, "goodput_mbps")
    return math.isfinite(ictcp40) and ictcp40 >= 600.0, f"{fmt(ictcp40, 0)} Mb/s (DCTCP {fmt(dctcp40, 0)})"


def _tcp_collapses(m: Metrics) -> tuple[bool, str]:
    df = m.tables["fig8_9_runs"]
    collapse = {}
    for w in dict.fromkeys(df.workload):
        d = curve(df, TCP, w)
        peak = float(d.goodput_mbps.max()) if len(d) else float("nan")
        collapse[w] = (peak, at(df, TCP, w, 40, "goodput_mbps"))
    measured = "; ".join(f"{w}: peak {fmt(p, 0)}, n=40 {fmt(g, 0)} Mb/s" for w, (p, g) in collapse.items())
    return bool(collapse) and all(math.isfinite(g) and g <= 0.5 * p for p, g in collapse.values()), measured


CLAIMS = (
    Claim(
        id="tcp-faster-before-incast",
        kind="paper",
        text="Before incast TCP beats ICTCP on small transfers: TCP > ICTCP at 4 senders × 256 kB",
        paper="TCP 879 Mb/s, ICTCP 607 Mb/s",
        quote="TCP achieves 879 Mb/s while ICTCP achieves 607 Mb/s with four sending servers at 256 kB per server",
        section="§VII-A-1",
        check=_tcp_faster_before_incast,
    ),
    Claim(
        id="ictcp-no-collapse-at-40",
        kind="paper",
        text="ICTCP does not collapse: goodput at 40 senders × 64 kB ≥ 0.6 Gb/s",
        paper="741 Mb/s",
        quote="for 40 sending servers with 64 kB per server, the goodput is 741 Mb/s for 2MSS as shown in Fig. 8",
        section="§VII-A-2",
        check=_ictcp_does_not_collapse,
    ),
    Claim(
        id="tcp-collapses-at-40",
        kind="paper",
        text="TCP collapses on the same rounds: TCP goodput at 40 senders ≤ 0.5 × its peak, every amount",
        paper="TCP collapses (figure)",
        quote=(
            "With the number of sending servers increasing, the goodput per round actually drops due to TCP timeout on some connections"
        ),
        section="§VII-A",
        check=_tcp_collapses,
    ),
)


def plot_goodput(m: Metrics) -> Any:
    rounds = m["rounds_per_point"]
    return plot(
        m.tables["fig8_9_runs"],
        "goodput_mbps",
        "Goodput (Mb/s)",
        f"Incast goodput, {rounds} rounds per point (paper Fig. 8: 100)",
        COMPARED,
        references=[
            (4, PAPER["tcp_4x256"], "256 kB/sender: TCP 879 Mb/s"),
            (4, PAPER["ictcp_4x256"], "256 kB/sender: ICTCP 607 Mb/s"),
            (40, PAPER["ictcp_40x64"], "64 kB/sender: ICTCP 741 Mb/s"),
        ],
        ymax=1000,
    )


EXPERIMENT = Experiment(
    id="ictcp-fig8",
    paper="ictcp",
    figure="Fig. 8",
    title="incast goodput, ICTCP (2 MSS min rwnd) vs TCP vs DCTCP, fixed data per sender",
    description="Synchronised incast on a 47-server GbE star: ICTCP rises smoothly with senders, TCP collapses.",
    testbed="ictcp_testbed",
    scales=PER_SENDER_SCALES,
    scenarios=fixed_per_sender_runs,
    analyze=analyze,
    claims=CLAIMS,
    plots={"fig8_goodput": plot_goodput},
    notes=__doc__ or "",
    rerun=longer_if_unfinished,
)
