"""ICTCP paper (Wu et al., IEEE/ACM ToN 2013), Figure 9: ratio of rounds with at least one
timeout, ICTCP (minimum receive window 2 MSS) against TCP and DCTCP.

Paper setup: the runs of Fig. 8 (ictcp-fig8's runs: the same scenarios, simulated once).

Published results (§VII-A): "TCP suffers at least one timeout when incast congestion occurs,
while the highest ratio for ICTCP experiencing timeout is 6%." The text compares with DCTCP,
which "quickly downgrades to the same as TCP when the number of sending servers is over 35 for
the static buffer" (the DCTCP paper's Fig. 18, a different setup); here DCTCP runs on the same
rounds.

Assumptions: those of ictcp-fig8 (the same runs).

Known deviation (traced): ICTCP has no timeout up to 44 senders and a timeout in every round
from 45 on. Full scale: 0% at n ≤ 44, 100% at n = 45 and 46 for every amount (DCTCP, whose
windows also sit at 2 segments: 0% to 44, 50-100% at 45, 100% at 46); quick: 0% up to n = 40,
100% at 46. Each round starts with every window at ICTCP's 2-MSS floor, and the n windows
arrive almost together (the requests leave the receiver 1.4 µs apart): about 5 packets drain
before the last arrive, not Eq. 8's R·C = 12.5 kB. The port peaks at 125,700 B at n = 44
(83 × 1,500 B of data + 30 × 40 B, the servers' pure ACKs of the requests). Diagnostic runs
with a larger one-busy-port share: n = 45 needs 128,740 B and n = 46 131,780 B, while the
quanta_lb4g preset gives a busy port 128,540 B (Eq. 8's 128.5 kB for 47 senders). The overflow
is the same in every round, and the lost packet is the second segment of a 2-segment window,
so no duplicate ACKs follow. The receiver's 200 ms delayed ACK covers the lone first segment,
then the sender's 300 ms RTO fires. Traced at n = 45, 64 kB: the drop comes 0.15 ms into
round 0 and the round takes 502 ms. Full-scale median rounds at n = 45: 507, 807 and 904 ms
for 64, 128 and 256 kB. The paper's highest ratio, 6% over n ≤ 46, needs about 3.2 kB (two
packets) more room per busy port than Eq. 8, or responses spread over longer than the request
fan-out. The paper states neither.

Outputs: fig8_9_runs.csv (as ictcp-fig8), fig9_timeouts.png/.svg.
"""

from __future__ import annotations

import math
from typing import Any

from ..analysis import fmt
from ..declarations import Claim, Experiment, Metrics, Runs
from .compare import COMPARED, DCTCP, ICTCP_2MSS, PER_SENDER_SCALES, TCP, at, fixed_per_sender_runs, plot, runs_table, worst
from .incast import longer_if_unfinished

PAPER_ICTCP_MAX = 0.06
LIMIT = 0.10  # the paper's highest ratio, 6%, with slack


def analyze(runs: Runs) -> Metrics:
    df = runs_table(runs)
    tcp40 = {w: at(df, TCP, w, 40, "timeout_ratio") for w in dict.fromkeys(df.workload)}
    return Metrics(
        values={
            "ictcp_max_timeout_ratio": worst(df, ICTCP_2MSS, "timeout_ratio")[0],
            "dctcp_max_timeout_ratio": worst(df, DCTCP, "timeout_ratio")[0],
            "tcp_timeout_ratio_n40": tcp40,
        },
        tables={"fig8_9_runs": df},
    )


def _ictcp_timeouts_rare(m: Metrics) -> tuple[bool, str]:
    df = m.tables["fig8_9_runs"]
    ictcp_max, n_max, w_max = worst(df, ICTCP_2MSS, "timeout_ratio")
    dctcp_max, dn, dw = worst(df, DCTCP, "timeout_ratio")
    measured = f"highest {fmt(100 * ictcp_max, 1)}% (n={n_max}, {w_max}); DCTCP highest {fmt(100 * dctcp_max, 1)}% (n={dn}, {dw})"
    return math.isfinite(ictcp_max) and ictcp_max <= LIMIT, measured


def _tcp_times_out(m: Metrics) -> tuple[bool, str]:
    tcp40 = m["tcp_timeout_ratio_n40"]
    measured = "; ".join(f"{w}: {fmt(100 * r, 0)}%" for w, r in tcp40.items())
    return bool(tcp40) and all(math.isfinite(r) and r >= 0.9 for r in tcp40.values()), measured


CLAIMS = (
    Claim(
        id="ictcp-timeouts-rare",
        kind="paper",
        text="ICTCP keeps timeouts rare: highest ratio of rounds with a timeout ≤ 10% over every n and amount",
        paper="highest ratio 6%",
        quote="the highest ratio for ICTCP experiencing timeout is 6%",
        section="§VII-A-1",
        check=_ictcp_timeouts_rare,
    ),
    Claim(
        id="tcp-times-out-at-40",
        kind="paper",
        text="TCP suffers timeouts once incast sets in: at 40 senders ≥ 90% of TCP rounds time out, every amount",
        paper="TCP suffers at least one timeout when incast congestion occurs",
        quote="We observe that TCP suffers at least one timeout when incast congestion occurs",
        section="§VII-A-1",
        check=_tcp_times_out,
    ),
)


def plot_timeouts(m: Metrics) -> Any:
    return plot(
        m.tables["fig8_9_runs"],
        "timeout_ratio",
        "Ratio of rounds with ≥ 1 timeout",
        "Incast rounds with timeouts (paper Fig. 9: ICTCP at most 6%)",
        COMPARED,
        ymax=1.05,
        levels=[(PAPER_ICTCP_MAX, f"ICTCP highest ratio {PAPER_ICTCP_MAX:.0%}")],
    )


EXPERIMENT = Experiment(
    id="ictcp-fig9",
    paper="ictcp",
    figure="Fig. 9",
    title="ratio of incast rounds with a timeout, ICTCP (2 MSS) vs TCP vs DCTCP",
    description="Same rounds as ictcp-fig8: TCP times out once incast sets in; ICTCP at most a few percent.",
    testbed="ictcp_testbed",
    scales=PER_SENDER_SCALES,
    scenarios=fixed_per_sender_runs,
    analyze=analyze,
    claims=CLAIMS,
    plots={"fig9_timeouts": plot_timeouts},
    notes=__doc__ or "",
    rerun=longer_if_unfinished,
)
