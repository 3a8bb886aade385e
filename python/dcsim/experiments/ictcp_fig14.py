"""ICTCP paper (Wu et al., IEEE/ACM ToN 2013), Figure 14: ratio of rounds with a timeout while a
long TCP flow to the same receiver runs in the background, ICTCP vs TCP vs DCTCP.

Paper setup: the runs of Fig. 13 (:mod:`ictcp_fig13`, rerun; the engine is deterministic).

Published results (§VII-C; spec §6 claim 23): ICTCP's timeout ratio "becomes slightly higher
when there is a high throughput background connection ongoing. This is because the available
bandwidth becomes smaller", while ICTCP still controls timeouts (ratio ≤ TCP's).

Assumptions: those of ictcp-fig13 (the same runs).

Outputs: fig13_14_runs.csv, fig14_timeouts.png/.svg.
"""

from __future__ import annotations

import math
from pathlib import Path

from . import common as c
from . import ictcp_compare as cmp
from . import ictcp_fig13 as fig13

ID = "ictcp-fig14"
TITLE = "ICTCP Fig. 14: incast rounds with a timeout beside a background TCP flow, ICTCP vs TCP vs DCTCP"
DESCRIPTION = "Same rounds as ictcp-fig13: ICTCP still keeps timeouts at or below TCP's."

SCALES = fig13.SCALES
scenarios = fig13.scenarios


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    out = c.prepare_out(out_dir)
    df = fig13.run_figs_13_14(scale, out, jobs)
    files = cmp.plot(
        df,
        out,
        "fig14_timeouts",
        "timeout_ratio",
        "Ratio of rounds with ≥ 1 timeout",
        "Rounds with timeouts, with a background TCP flow (paper Fig. 14)",
        cmp.COMPARED,
        ymax=1.05,
    )
    worse = []
    for w in dict.fromkeys(df.workload):
        tcp = cmp.curve(df, cmp.TCP, w).set_index("senders").timeout_ratio
        ic = cmp.curve(df, cmp.ICTCP_2MSS, w).set_index("senders").timeout_ratio
        worse += [(w, int(n), float(ic[n]), float(tcp[n])) for n in ic.index if n in tcp.index and ic[n] > tcp[n]]
    imax, n_i, w_i = cmp.worst(df, cmp.ICTCP_2MSS, "timeout_ratio")
    tmax, n_t, w_t = cmp.worst(df, cmp.TCP, "timeout_ratio")
    claims = [
        c.claim(
            "With a background flow ICTCP still controls timeouts (claim 23): ICTCP's timeout ratio ≤ TCP's at every n and amount",
            "slightly higher than without background; ICTCP still controls timeouts",
            f"ICTCP highest {c.fmt(100 * imax, 1)}% (n={n_i}, {w_i}), TCP highest {c.fmt(100 * tmax, 0)}% "
            f"(n={n_t}, {w_t}); points where ICTCP > TCP: "
            + (", ".join(f"{w} n={n}: {100 * a:.0f}% vs {100 * b:.0f}%" for w, n, a, b in worse[:5]) or "none"),
            len(df) > 0 and math.isfinite(imax) and not worse,
        ),
    ]
    metrics = {
        "max_timeout_ratio": {"ICTCP": imax, "TCP": tmax, "DCTCP": cmp.worst(df, cmp.DCTCP, "timeout_ratio")[0]},
        "ictcp_above_tcp": [{"workload": w, "senders": n, "ictcp": a, "tcp": b} for w, n, a, b in worse],
        "files": ["fig13_14_runs.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
