"""ICTCP paper (Wu et al., IEEE/ACM ToN 2013), Figure 9: ratio of rounds with at least one
timeout, ICTCP (minimum receive window 2 MSS) against TCP and DCTCP.

Paper setup: the runs of Fig. 8 (:mod:`ictcp_fig8`; this experiment reruns them - the engine is
deterministic, so the rounds are the same).

Published results (§VII-A; spec experiments.md ictcp-fig9, §6 claim 21): "TCP suffers at least
one timeout when incast congestion occurs, while the highest ratio for ICTCP experiencing
timeout is 6%." The text compares with DCTCP, which "quickly downgrades to the same as TCP when
the number of sending servers is over 35 for the static buffer" (the DCTCP paper's Fig. 18, a
different setup); here DCTCP runs on the same rounds.

Assumptions: those of ictcp-fig8 (the same runs).

Outputs: fig8_9_runs.csv (as ictcp-fig8), fig9_timeouts.png/.svg.
"""

from __future__ import annotations

import math
from pathlib import Path

from . import common as c
from . import ictcp_compare as cmp
from . import ictcp_fig8 as fig8

ID = "ictcp-fig9"
TITLE = "ICTCP Fig. 9: ratio of incast rounds with a timeout, ICTCP (2 MSS) vs TCP vs DCTCP"
DESCRIPTION = "Same rounds as ictcp-fig8: TCP times out once incast sets in; ICTCP at most a few percent."

SCALES = fig8.SCALES
scenarios = fig8.scenarios
PAPER_ICTCP_MAX = 0.06
LIMIT = 0.10  # spec §6 claim 21 threshold


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    out = c.prepare_out(out_dir)
    df = fig8.run_figs_8_9(scale, out, jobs)
    files = cmp.plot(
        df,
        out,
        "fig9_timeouts",
        "timeout_ratio",
        "Ratio of rounds with ≥ 1 timeout",
        "Incast rounds with timeouts (paper Fig. 9: ICTCP at most 6%)",
        cmp.COMPARED,
        ymax=1.05,
        levels=[(PAPER_ICTCP_MAX, f"ICTCP highest ratio {PAPER_ICTCP_MAX:.0%}")],
    )
    ictcp_max, n_max, w_max = cmp.worst(df, cmp.ICTCP_2MSS, "timeout_ratio")
    tcp40 = {w: cmp.at(df, cmp.TCP, w, 40, "timeout_ratio") for w in dict.fromkeys(df.workload)}
    dctcp_max, dn, dw = cmp.worst(df, cmp.DCTCP, "timeout_ratio")
    claims = [
        c.claim(
            "ICTCP keeps timeouts rare (claim 21): highest ratio of rounds with a timeout ≤ 10% over every n and amount",
            "highest ratio 6%",
            f"highest {c.fmt(100 * ictcp_max, 1)}% (n={n_max}, {w_max}); DCTCP highest "
            f"{c.fmt(100 * dctcp_max, 1)}% (n={dn}, {dw})",
            math.isfinite(ictcp_max) and ictcp_max <= LIMIT,
        ),
        c.claim(
            "TCP suffers timeouts once incast sets in: at 40 senders ≥ 90% of TCP rounds time out, every amount",
            "TCP suffers at least one timeout when incast congestion occurs",
            "; ".join(f"{w}: {c.fmt(100 * r, 0)}%" for w, r in tcp40.items()),
            bool(tcp40) and all(math.isfinite(r) and r >= 0.9 for r in tcp40.values()),
        ),
    ]
    metrics = {
        "ictcp_max_timeout_ratio": ictcp_max,
        "dctcp_max_timeout_ratio": dctcp_max,
        "tcp_timeout_ratio_n40": tcp40,
        "files": ["fig8_9_runs.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
