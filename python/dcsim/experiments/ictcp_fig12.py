"""ICTCP paper (Wu et al., IEEE/ACM ToN 2013), Figure 12: ratio of rounds with a timeout with a
fixed total amount of data (2 MB and 8 MB), ICTCP vs TCP vs DCTCP.

Paper setup: the runs of Fig. 11 (:mod:`ictcp_fig11`, rerun; the engine is deterministic).

Published results (§VII-B; spec §6 claim 22): ICTCP "controls timeouts well"; with a 1-MSS
minimum window "the timeout ratio is again 0%".

Assumptions: those of ictcp-fig11 (the same runs).

Known deviation (traced): this is the cliff of ictcp-fig9, and the amounts do not move it.
ICTCP (2 MSS) has no timeout up to 44 senders and one in every round from 45 on. Full scale:
0% at n ≤ 44, 100% at n = 45 and 46, for 2 MB and 8 MB alike. Quick: 0% up to n = 40, 100% at
46, with median rounds of 505 ms (2 MB) and 810 ms (8 MB) against 17.8 and 70.8 ms at n = 40.
Each round starts with n windows at the 2-MSS floor arriving together, and the first 2n
segments are the same whatever the response size (at n = 45, 46,603 B for 2 MB and 186,413 B
for 8 MB). That burst fits the 128,540 B the quanta_lb4g preset gives one busy port up to
n = 44 (peak 125,700 B). At 45 it needs 128,740 B and at 46 131,780 B. Every round loses the
second segment of some 2-segment window, and the sender waits for its 300 ms RTO. With a
1-MSS floor no round times out at any n (claim 2). The paper's "controls timeouts well" up to
46 senders needs about 3.2 kB more per busy port than Eq. 8's 128.5 kB, or less synchronised
responses. Neither is stated.

Outputs: fig11_12_runs.csv, fig12_timeouts.png/.svg.
"""

from __future__ import annotations

import math
from pathlib import Path

from . import common as c
from . import ictcp_compare as cmp
from . import ictcp_fig11 as fig11

ID = "ictcp-fig12"
TITLE = "ICTCP Fig. 12: incast rounds with a timeout, fixed total (2 MB, 8 MB), ICTCP vs TCP vs DCTCP"
DESCRIPTION = "Same rounds as ictcp-fig11: the ratio of rounds with at least one timeout."

SCALES = fig11.SCALES
scenarios = fig11.scenarios
LIMIT = 0.10


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    out = c.prepare_out(out_dir)
    df = fig11.run_figs_11_12(scale, out, jobs)
    files = cmp.plot(
        df,
        out,
        "fig12_timeouts",
        "timeout_ratio",
        "Ratio of rounds with ≥ 1 timeout",
        "Incast rounds with timeouts, fixed total data (paper Fig. 12)",
        fig11.VARIANTS,
        ymax=1.05,
    )
    w2, n2, wl2 = cmp.worst(df, cmp.ICTCP_2MSS, "timeout_ratio")
    w1, n1, wl1 = cmp.worst(df, cmp.ICTCP_1MSS, "timeout_ratio")
    tcp_max, tn, tw = cmp.worst(df, cmp.TCP, "timeout_ratio")
    claims = [
        c.claim(
            "ICTCP controls timeouts with a fixed total (claim 22): ICTCP (2 MSS) highest ratio ≤ 10%",
            "controls timeouts well",
            f"ICTCP highest {c.fmt(100 * w2, 1)}% (n={n2}, {wl2}); TCP highest {c.fmt(100 * tcp_max, 0)}% (n={tn}, {tw})",
            math.isfinite(w2) and w2 <= LIMIT,
        ),
        c.claim(
            "With a 1-MSS minimum window no round times out (§VII-B)",
            "0%",
            f"highest {c.fmt(100 * w1, 1)}% (n={n1}, {wl1})",
            math.isfinite(w1) and w1 == 0.0,
        ),
    ]
    metrics = {
        "max_timeout_ratio": {"ICTCP 2 MSS": w2, "ICTCP 1 MSS": w1, "TCP": tcp_max},
        "files": ["fig11_12_runs.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
