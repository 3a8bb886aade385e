"""ICTCP paper (Wu et al., IEEE/ACM ToN 2013), Figure 14: ratio of rounds with a timeout while a
long TCP flow to the same receiver runs in the background, ICTCP vs TCP vs DCTCP.

Paper setup: the runs of Fig. 13 (ictcp-fig13's runs: the same scenarios, simulated once).

Published results (§VII-C): ICTCP's timeout ratio "becomes slightly higher when there is a high
throughput background connection ongoing. This is because the available bandwidth becomes
smaller", while ICTCP still controls timeouts (ratio ≤ TCP's, read off Fig. 14).

Assumptions: those of ictcp-fig13 (the same runs).

Known deviation (traced), `ictcp-controls-timeouts`: every round of ICTCP times out at n = 46
(64 kB per sender, quick), as TCP's do; ICTCP's ratio is never above TCP's, but timing out in
every round is not controlling timeouts. With the background flow's queue in the same port,
the LB4G preset's 128.5 kB (the §V bound for 47 senders at 2 MSS) cannot hold 46 senders'
2-MSS windows; a share 2.7% larger (132 kB) does not change this here (quick), as the
background flow takes the difference.

Outputs: fig13_14_runs.csv, fig14_timeouts.png/.svg.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..analysis import fmt
from ..declarations import Claim, Experiment, Metrics, Runs
from .compare import COMPARED, DCTCP, ICTCP_2MSS, PER_SENDER_SCALES, TCP, background_tcp_runs, curve, plot, runs_table, worst
from .incast import longer_if_unfinished

if TYPE_CHECKING:
    import pandas as pd


def ictcp_above_tcp(df: pd.DataFrame) -> list[tuple[str, int, float, float]]:
    """``(workload, senders, ICTCP's ratio, TCP's)`` wherever ICTCP times out in more rounds than TCP."""
    worse = []
    for w in dict.fromkeys(df.workload):
        tcp = curve(df, TCP, w).set_index("senders").timeout_ratio
        ic = curve(df, ICTCP_2MSS, w).set_index("senders").timeout_ratio
        worse += [(w, int(n), float(ic[n]), float(tcp[n])) for n in ic.index if n in tcp.index and ic[n] > tcp[n]]
    return worse


def analyze(runs: Runs) -> Metrics:
    df = runs_table(runs)
    return Metrics(
        values={
            "max_timeout_ratio": {
                "ICTCP": worst(df, ICTCP_2MSS, "timeout_ratio")[0],
                "TCP": worst(df, TCP, "timeout_ratio")[0],
                "DCTCP": worst(df, DCTCP, "timeout_ratio")[0],
            },
            "ictcp_above_tcp": [{"workload": w, "senders": n, "ictcp": a, "tcp": b} for w, n, a, b in ictcp_above_tcp(df)],
        },
        tables={"fig13_14_runs": df},
    )


def _controls_timeouts(m: Metrics) -> tuple[bool, str]:
    df = m.tables["fig13_14_runs"]
    worse = ictcp_above_tcp(df)
    imax, n_i, w_i = worst(df, ICTCP_2MSS, "timeout_ratio")
    tmax, n_t, w_t = worst(df, TCP, "timeout_ratio")
    measured = (
        f"ICTCP highest {fmt(100 * imax, 1)}% (n={n_i}, {w_i}), TCP highest {fmt(100 * tmax, 0)}% "
        f"(n={n_t}, {w_t}); points where ICTCP > TCP: "
        + (", ".join(f"{w} n={n}: {100 * a:.0f}% vs {100 * b:.0f}%" for w, n, a, b in worse[:5]) or "none")
    )
    # Timing out in every round is not controlling timeouts, even where TCP does the same.
    return len(df) > 0 and math.isfinite(imax) and imax < 1.0 and not worse, measured


CLAIMS = (
    Claim(
        id="ictcp-controls-timeouts",
        kind="derived",
        text=(
            "With a background flow ICTCP still controls timeouts: ICTCP's timeout ratio ≤ TCP's at every n and "
            "amount, and below 100% everywhere"
        ),
        paper="read off Fig. 14: ICTCP's ratio stays below TCP's (and slightly higher than without background, §VII-C)",
        quote=(
            "Ratio of timeout for ICTCP (with a minimal receive window at 2MSS) and TCP in the case with a background "
            "long-term TCP connection."
        ),
        section="Fig. 14 caption",
        check=_controls_timeouts,
    ),
)


def plot_timeouts(m: Metrics) -> Any:
    return plot(
        m.tables["fig13_14_runs"],
        "timeout_ratio",
        "Ratio of rounds with ≥ 1 timeout",
        "Rounds with timeouts, with a background TCP flow (paper Fig. 14)",
        COMPARED,
        ymax=1.05,
    )


EXPERIMENT = Experiment(
    id="ictcp-fig14",
    paper="ictcp",
    figure="Fig. 14",
    title="incast rounds with a timeout beside a background TCP flow, ICTCP vs TCP vs DCTCP",
    description="Same rounds as ictcp-fig13: ICTCP still keeps timeouts at or below TCP's.",
    testbed="ictcp_testbed",
    scales=PER_SENDER_SCALES,
    scenarios=background_tcp_runs,
    analyze=analyze,
    claims=CLAIMS,
    plots={"fig14_timeouts": plot_timeouts},
    notes=__doc__ or "",
    rerun=longer_if_unfinished,
)
