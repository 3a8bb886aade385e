"""ICTCP paper (Wu et al., IEEE/ACM ToN 2013), Figure 11: incast goodput with a fixed total
amount of data (2 MB and 8 MB split over the senders), ICTCP vs TCP vs DCTCP.

Paper setup (§VII-B): "the total data volume of all servers is fixed and the number of sending
servers varies"; ICTCP minimum window 2 MSS ("the 1 MSS case is skipped as the timeout ratio is
again 0%"; it is run here too). Otherwise as Fig. 8.

Published results (qualitative; spec experiments.md ictcp-fig11/12, §6 claim 22): "the number
of sending servers to trigger incast congestion is close for total traffic of 2 and 8 MB";
"ICTCP greatly improves the goodput and controls timeouts well".

Assumptions: MB = 1024 kB = 1,048,576 B, split evenly (integer division); 100 rounds per point
at full scale (as §VII-A, NOT GIVEN here).

Outputs: fig11_12_runs.csv, fig11_goodput.png/.svg.
"""

from __future__ import annotations

from pathlib import Path

from . import common as c
from . import ictcp_compare as cmp

ID = "ictcp-fig11"
TITLE = "ICTCP Fig. 11: incast goodput with a fixed total (2 MB, 8 MB), ICTCP vs TCP vs DCTCP"
DESCRIPTION = "Fixed total data split over more and more senders: ICTCP keeps the goodput TCP loses to incast."

TOTALS_MB = (2, 8)
SCALES = {"smoke": {"totals_mb": (2,)}, "quick": {"totals_mb": TOTALS_MB}, "full": {"totals_mb": TOTALS_MB}}
VARIANTS = (cmp.ICTCP_2MSS, cmp.ICTCP_1MSS, cmp.TCP, cmp.DCTCP)


def runs(scale: str) -> list[cmp.Run]:
    """The runs of Figs. 11 and 12 (the same rounds)."""
    s = c.check_scale(scale, SCALES)
    return cmp.sweep("ictcp-fig11", scale, VARIANTS, cmp.total_workloads(s["totals_mb"]))


def scenarios(scale: str) -> list[tuple[str, str, int, dict]]:
    return cmp.plan(runs(scale))


def run_figs_11_12(scale: str, out: Path, jobs: int):
    return cmp.run_sweep(runs(scale), jobs, out / "fig11_12_runs.csv")


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    out = c.prepare_out(out_dir)
    df = run_figs_11_12(scale, out, jobs)
    files = cmp.plot(
        df,
        out,
        "fig11_goodput",
        "goodput_mbps",
        "Goodput (Mb/s)",
        "Incast goodput, fixed total data (paper Fig. 11)",
        VARIANTS,
        ymax=1000,
    )
    per = cmp.beyond_tcp_collapse(df)
    text, holds = cmp.beyond_tcp_collapse_text(per)
    claims = [
        c.claim(
            "ICTCP greatly improves goodput with a fixed total (claim 22): beyond TCP's collapse point "
            "(goodput < ½ its peak) ICTCP's goodput exceeds TCP's at every n, for 2 MB and 8 MB",
            "ICTCP greatly improves the goodput",
            text,
            holds,
        ),
    ]
    metrics = {
        "tcp_collapse_senders": {w: v[0] for w, v in per.items()},
        "at_40": cmp.metrics_table(df, VARIANTS, 40),
        "files": ["fig11_12_runs.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
