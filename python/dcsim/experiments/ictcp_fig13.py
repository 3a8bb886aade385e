"""ICTCP paper (Wu et al., IEEE/ACM ToN 2013), Figure 13: incast goodput while a long TCP flow
to the same receiver runs in the background, ICTCP vs TCP vs DCTCP.

Paper setup (§VII-C): as §VII-A plus "a long-term TCP connection as background traffic to the
same receiving server, and it occupies 900 Mb/s before incast traffic starts"; the background
flow is under ICTCP control too ("ICTCP has no preknowledge of which TCP connection is on
incast"). ICTCP minimum window 2 MSS.

Published results (qualitative; spec experiments.md ictcp-fig13/14, §6 claim 23): compared with
Fig. 3, TCP's goodput before incast "is slightly lower", ICTCP's also for few senders; "The
throughput of the background TCP using ICTCP is not as affected as that of TCP".

Our setup: :mod:`ictcp_compare`; the background flow comes from host 47 (its own switch port),
starts at 0 and the rounds start at 0.2 s. Its goodput is measured before the first round and
over the rounds.

Assumptions: incast amounts per sender as Fig. 8 (NOT GIVEN for §VII-C); the background flow
runs under the same transport as the incast (TCP, DCTCP, or TCP senders under ICTCP); its
receive buffer is 9 MSS so that alone it runs at ≈ 920 Mb/s, the paper's "900 Mb/s"
(:data:`ictcp_compare.BACKGROUND_RCV_SEGMENTS` gives why).

Known deviation (traced), claim 2: ICTCP spares the background flow's packets but not its rate.
The paper's reason holds: "the overflow probability is very small". In the quick 64 kB runs (30
rounds), under ICTCP the background flow has no retransmission and no timeout at n = 8, 24 and
40. Under TCP it has 1, 22 and 26 timeouts (22, 162 and 208 retransmissions; at n = 40 over its
first 27 rounds). Its goodput during the rounds is the other way round. The mean over every
point is 155 Mb/s under ICTCP, 382 under TCP and 200 under DCTCP at quick scale; 87, 406 and
138 at full. Before the rounds it is 844-846 Mb/s in every case. ICTCP controls it like any
connection below 2 ms (§VII-C). Once the incast fills the link, BW_A = 0, and the fairness rule
(§IV-D) brings its window down to the others'. At n = 8 its window is 16,060 B before the
rounds and 2,920 B from 10 ms in, so it gets its 1/(n+1) share: 108 Mb/s beside 824 Mb/s of
incast at n = 8, and 25 Mb/s at n = 40. TCP's incast collapses from n = 12-16 into rounds of
300-900 ms, mostly RTO waits: 30 rounds at n = 24 take 12.4 s under TCP and 0.42 s under ICTCP.
The background flow has the link during those waits. The claim's goodput reading needs ICTCP to
leave the background flow more than an equal window, which §IV-D's rule as written does not.

Outputs: fig13_14_runs.csv (incl. background_before_mbps, background_during_mbps),
fig13_goodput.png/.svg, fig13_background.png/.svg.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from . import common as c
from . import ictcp_compare as cmp
from . import ictcp_fig8 as fig8

ID = "ictcp-fig13"
TITLE = "ICTCP Fig. 13: incast goodput beside a 900 Mb/s background TCP flow, ICTCP vs TCP vs DCTCP"
DESCRIPTION = "Incast to a receiver that already takes a long flow: incast goodput and what is left for the long flow."

SCALES = fig8.SCALES


def runs(scale: str) -> list[cmp.Run]:
    """The runs of Figs. 13 and 14 (the same rounds)."""
    s = c.check_scale(scale, SCALES)
    return cmp.sweep("ictcp-fig13", scale, cmp.COMPARED, cmp.per_sender_workloads(s["amounts_kb"]), background=True)


def scenarios(scale: str) -> list[tuple[str, str, int, dict]]:
    return cmp.plan(runs(scale))


def run_figs_13_14(scale: str, out: Path, jobs: int):
    return cmp.run_sweep(runs(scale), jobs, out / "fig13_14_runs.csv")


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    out = c.prepare_out(out_dir)
    df = run_figs_13_14(scale, out, jobs)
    files = cmp.plot(
        df,
        out,
        "fig13_goodput",
        "goodput_mbps",
        "Incast goodput (Mb/s)",
        "Incast goodput with a background TCP flow (paper Fig. 13)",
        cmp.COMPARED,
        ymax=1000,
    )
    files += cmp.plot(
        df,
        out,
        "fig13_background",
        "background_during_mbps",
        "Background flow goodput during the rounds (Mb/s)",
        "The background flow while incast rounds run",
        cmp.COMPARED,
        ymax=1000,
    )
    bg = {v.label: float(np.nanmean(df[df.variant == v.label].background_during_mbps)) for v in cmp.COMPARED}
    before = {v.label: float(np.nanmean(df[df.variant == v.label].background_before_mbps)) for v in cmp.COMPARED}
    ic, tcp = bg[cmp.ICTCP_2MSS.label], bg[cmp.TCP.label]
    text, holds = cmp.beyond_tcp_collapse_text(cmp.beyond_tcp_collapse(df))
    claims = [
        c.claim(
            "With a background flow ICTCP still beats TCP's incast goodput once TCP collapses (§VII-C): "
            "beyond TCP's collapse point (< ½ its peak) ICTCP's goodput exceeds TCP's at every n",
            "ICTCP slightly lower than without background; TCP collapses as in Fig. 3",
            text,
            holds,
        ),
        c.claim(
            "The background flow under ICTCP is not as affected as under TCP (§VII-C): its mean goodput "
            "during the rounds, over every n and amount, is at least TCP's",
            "not as affected as that of TCP",
            "; ".join(f"{k}: {c.fmt(bg[k], 0)} Mb/s during, {c.fmt(before[k], 0)} before" for k in bg),
            math.isfinite(ic) and math.isfinite(tcp) and ic >= tcp,
        ),
    ]
    metrics = {
        "background_during_mbps": bg,
        "background_before_mbps": before,
        "at_40": cmp.metrics_table(df, cmp.COMPARED, 40),
        "files": ["fig13_14_runs.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
