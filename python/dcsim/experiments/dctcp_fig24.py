"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), Figure 24: the 10x scaled benchmark, with a
deep-buffered switch and RED as the alternatives to DCTCP.

Paper setup (§4.3, "Scaled traffic"): the benchmark of Figs. 22-23, "except we increase the
size of update flows larger than 1MB by a factor of 10 ... Similarly, we generate queries as
before, except that the total size of each response is 1MB (with 44 servers, each individual
response is just under 25KB)". Four configurations: TCP and DCTCP on the Triumph; TCP on "the
deep-buffered CAT4948 switch" (which "does not support ECN"); TCP with "RED with ECN ...
setting min_th = 20, max_th = 60 and using [7] for the remaining parameters". Fig. 24: "the
95th percentile of response times for the short messages (100KB-1MB) and the query traffic".

Published numbers (§4.3; spec experiments.md dctcp-fig24, §6 claim 17): DCTCP against TCP:
"The 95th percentile of completion time for short-message traffic improves by 14ms, while
query traffic improves by 136ms. With TCP, over 92% of the queries suffer from timeouts, while
only 0.3% suffer from timeouts with DCTCP"; DCTCP's "short message completion time ... is
essentially unchanged from baseline". CAT4948: queries "comparable to DCTCP, since less than
1% of queries suffer from timeout", but short messages "over 80ms, which is substantially
higher than TCP without deep buffers". RED "improves performance of short transfers" but "95%
of queries experience a timeout".

Our setup: `dcsim.workloads.dctcp_benchmark(scaled=True)`: web-search background flows over
1 MB made 10 times larger, 22,727-B responses (1,000,000 B / 44), everything else as in
`dctcp-fig22`. TCP and DCTCP as there; TCP CAT4948 = NewReno over drop-tail on the `cat4948`
preset (16 MB shared, one busy port ≈ 2.8 MB); TCP RED = NewReno with RFC 3168 ECN over RED
(min_th 20, max_th 60, max_p 0.1, w_q 2^-9, marking ECT packets, on every port). The baseline
DCTCP run of `dctcp-fig22` gives "unchanged from baseline".

Assumptions: those of `dctcp-fig22` (docs/workloads.md "The DCTCP benchmark"). Scaled, the
web-search sizes offer 83% of each server's 1 Gbps link (the 10x queries add 6%), far more than
the paper's "essentially unchanged" short messages suggest its scaled traffic did: the
result depends on this choice above all. Duration: full 2 minutes of arrivals (≈ 37,000
queries; the paper ran 10), quick 5 s; 3 s of drain.

Known deviation (traced), DCTCP's short messages (claims 1 and 3): at this load they are slower
than TCP's at the 95th percentile (quick 155.6 against 60.1 ms; full 403.6 against 321.4 ms)
and many times slower than at baseline (8.19× quick, 21.96× full). The scaled traffic offers
88.7% (quick) and 90.2% (full) of each rack host's link (`offered_load`), so update flows pile
up over the run and completion times grow with its length. A short message starts beside 3.8
update flows at its receiver and 3.6 at its sender on average at quick scale, and 15-17 and
22-23 at full (`mean_long_at_dst`, `mean_long_at_src`), and it shares both links with them for
its whole life. fig24_contention.csv gives its completion time and rate by the number at the
receiver. Under DCTCP the rate falls as they add up, as fair sharing would have it: the slowest
tenth of DCTCP's quick short messages ran at a median 33 Mb/s against TCP's 73 Mb/s, with as
many update flows around them. TCP's short messages lose more (quick: 9 of 229 time out,
DCTCP's none) but keep a larger share of the link. DCTCP's mean is the lower at full scale
(117.8 against 176.9 ms) but not at quick (45.4 against 27.9 ms). The paper's DCTCP short
messages did not change between baseline and 10x, so they cannot have met such contention: its
scaled traffic loaded the links far less than web-search sizes at the paper's flow count do.

Known deviation (traced), DCTCP's queries (claim 2): 2.28% (quick) and 1.89% (full) of the
window's queries time out, not the paper's 0.3%; TCP's 93.5% and 98.9% match its "over 92%".
Traced in quick reruns of the DCTCP run, counting all its queries: 3.3% time out on the
`windows_2008r2` stack, 2.7% with restart after idle, 1.0% with RFC 7661 window validation,
0.31% with both (in the window: 2.28%, 1.65%, 0.94%, 0.39%). The testbed's stack
(docs/stacks.md) neither restarts an idle window nor validates an application-limited one:
Microsoft documents neither for 2008 R2 (later Windows has CwndRestart off). So a persistent
query connection keeps the window its earlier responses grew, and a 10x query's 22.7 KB
responses leave in one burst each. The paper's 0.3% needs its stack to have limited those
windows in some way the paper does not state; the profile is not changed to suit this figure.

Known deviation (traced), the CAT4948 (claim 4): it does not spare TCP's queries here: 74.6%
(quick) and 85.1% (full) time out, against the paper's under 1%. Its 16 MB are shared with the
Triumph's dynamic threshold (spec §2.4 ASSUMPTION), and TCP's long flows fill the memory
(`max_shared_bytes_used`: 12.2 MB quick, 13.8 MB full). With most of it in use the threshold
leaves a port not much more than the Triumph gives one, and its rack ports still drop packets
by the hundred thousand (`rack_port_drops`: 170,563 against the Triumph's 245,078 at quick
scale, 4.7 million against 10.0 million at full). Its short messages (p95 107.1 ms quick, 3,289
ms full) are not the slowest of the four, as the paper has them, because RED's are slower still
(below). At full scale 410 of its 5,928 short messages resent a SYN, dropped at a full port,
and waited the 2008 R2 stack's 3 s initial RTO. What the real CAT4948 gives a port under load
is NOT GIVEN.

Known deviation (traced), RED (claim 5): RED's short messages are the slowest of the four (p95
3,044 ms quick, 3,346 ms full), where the paper found them better than TCP's; its queries time
out as the paper's do (100%). RED-ECN marks ECT packets but drops the ones that are not ECT
when the average queue is above its thresholds, and an RFC 3168 sender's SYNs, pure ACKs and
retransmissions are not ECT (the commodity RED-ECN behaviour, spec algorithms.md §7.3). A
dropped SYN waits the 2008 R2 stack's 3 s initial RTO: 22 of the 229 quick short messages
resent their SYN (median completion 3.05 s), 814 of 5,928 at full (3.23 s). Without them RED's
p95 is still above TCP's (quick 70.8 against 60.1 ms; full 417.7 against 223.5 ms without TCP's
own SYN retries): dropped retransmissions end in timeouts (49 of 229 quick short messages,
2,831 of 5,928 full). The paper does not say how its Triumph's RED treated packets that are not
ECT.

Outputs: fig24.csv (configuration, short-message and query statistics, query timeout
fraction, load offered to the rack hosts' links, background flows with timeouts), fig24_contention.csv (per
configuration and number of update flows at the receiver when a short message starts: how
many messages, their median completion time and rate), fig24.png/.svg.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from . import benchmark as b
from . import common as c

ID = "dctcp-fig24"
TITLE = "DCTCP Fig. 24: 10x scaled benchmark, 95th percentile completion time (TCP, DCTCP, deep buffer, RED)"
DESCRIPTION = (
    "Benchmark with 10x update flows and 1 MB queries: p95 short-message and query completion for TCP, DCTCP, TCP on the "
    "CAT4948 and TCP with RED."
)

SCALES = b.SCALES
PAPER = {
    "short_gain_ms": 14.0,
    "query_gain_ms": 136.0,
    "query_timeouts": {"TCP": 0.92, "DCTCP": 0.003, "TCP CAT4948": 0.01, "TCP RED": 0.95},
    "cat4948_short_ms": 80.0,
}
UNCHANGED = 1.25  # "essentially unchanged from baseline": within 25%


def scenarios(scale: str) -> dict[str, dict]:
    return b.scaled_plan(scale)


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    out = c.prepare_out(out_dir)
    plan = scenarios(scale)
    baseline = b.baseline_plan(scale)["DCTCP"]
    runs = b.run_plan(plan | {"DCTCP baseline": baseline}, jobs)
    base_sc, base_res = runs.pop("DCTCP baseline")
    base_short = b.short_message_stats(base_res, base_sc)
    rows, short, query, met = [], {}, {}, []
    for label, (sc, res) in runs.items():
        cont = b.contention(res, sc)
        by_n = cont.groupby(np.minimum(cont["long_at_dst"], 4))
        met.append(
            pd.DataFrame(
                {
                    "configuration": label,
                    "long_at_dst": [f"{int(n)}" + ("+" if n == 4 else "") for n in by_n.size().index],
                    "messages": by_n.size().to_numpy(),
                    "median_fct_ms": by_n["fct_ms"].median().to_numpy(),
                    "median_rate_mbps": by_n["rate_mbps"].median().to_numpy(),
                }
            )
        )
        short[label] = b.short_message_stats(res, sc) | {
            "mean_long_at_dst": float(cont["long_at_dst"].mean()),
            "mean_long_at_src": float(cont["long_at_src"].mean()),
        }
        query[label] = b.query_stats(res, sc)
        bg = b.background_timeouts(res, sc)
        rows.append(
            {
                "configuration": label,
                **{f"short_{k}": v for k, v in short[label].items()},
                **{f"query_{k}": v for k, v in query[label].items()},
                "offered_load": b.offered_load(res, sc),
                **b.rack_ports(res),
                "background_flows": bg["flows"],
                "background_with_timeouts": bg["with_timeouts"],
            }
        )
    table = pd.DataFrame(rows)
    table.to_csv(out / "fig24.csv", index=False)
    contention = pd.concat(met, ignore_index=True)
    contention.to_csv(out / "fig24_contention.csv", index=False)

    fig, (ax1, ax2) = c.figure(1, 2, size=(11.0, 4.0))
    labels = list(runs)
    for ax, data, title in ((ax1, short, "(a) Short messages (100 kB-1 MB)"), (ax2, query, "(b) Queries (44 × 22.7 kB)")):
        vals = [data[k]["p95_ms"] for k in labels]
        finite = [v if np.isfinite(v) else np.nan for v in vals]
        ax.bar(range(len(labels)), finite, color=[b.COLORS[k] for k in labels])
        for i, v in enumerate(vals):
            extra = f"\n{100 * query[labels[i]]['timeout_fraction']:.1f}% TO" if data is query else ""
            ax.text(i, finite[i] if np.isfinite(v) else 0, f"{v:.1f}{extra}", ha="center", va="bottom", fontsize=7)
        ax.set_xticks(range(len(labels)), [k.replace("TCP ", "TCP\n") for k in labels])
        ax.set_ylim(0, 1.45 * np.nanmax(finite + [1.0]))  # room for the paper's note
        ax.set_ylabel("95th percentile completion time (ms)")
        ax.set_title(title)
    c.note(ax1, "paper: DCTCP 14 ms better than TCP;\nCAT4948 over 80 ms; RED better than TCP", loc="upper left")
    c.note(ax2, "paper: DCTCP 136 ms better than TCP;\nTO: TCP 92%, DCTCP 0.3%,\nCAT4948 < 1%, RED 95%", loc="upper left")
    fig.suptitle("10x background and 10x query traffic (ours)", fontsize=10)
    files = c.save_figure(fig, out, "fig24")

    t, d, deep, red = "TCP", "DCTCP", "TCP CAT4948", "TCP RED"
    st, qt = short, query
    worst_short = max(labels, key=lambda k: st[k]["p95_ms"])
    claims = [
        c.claim(
            "Scaled 10x, DCTCP beats TCP on both: lower 95th-percentile completion for short "
            "messages and for queries (claim 17)",
            "short messages 14 ms better, queries 136 ms better",
            f"short p95 TCP {st[t]['p95_ms']:.1f} / DCTCP {st[d]['p95_ms']:.1f} ms; query p95 "
            f"TCP {qt[t]['p95_ms']:.1f} / DCTCP {qt[d]['p95_ms']:.1f} ms",
            st[d]["p95_ms"] < st[t]["p95_ms"] and qt[d]["p95_ms"] < qt[t]["p95_ms"],
        ),
        c.claim(
            "Scaled 10x, most TCP queries time out (> 50%) and almost no DCTCP ones (< 1%)",
            "TCP over 92%, DCTCP 0.3%",
            f"TCP {100 * qt[t]['timeout_fraction']:.1f}%, DCTCP {100 * qt[d]['timeout_fraction']:.2f}%",
            qt[t]["timeout_fraction"] > 0.5 and qt[d]["timeout_fraction"] < 0.01,
        ),
        c.claim(
            f"DCTCP's short messages are essentially unchanged from the baseline benchmark "
            f"(p95 within {UNCHANGED:g}×)",
            "essentially unchanged",
            f"p95 {base_short['p95_ms']:.1f} ms at baseline, {st[d]['p95_ms']:.1f} ms scaled "
            f"({st[d]['p95_ms'] / base_short['p95_ms']:.2f}×)",
            st[d]["p95_ms"] <= UNCHANGED * base_short["p95_ms"],
        ),
        c.claim(
            "The deep-buffered CAT4948 fixes TCP's queries (< 1% time out) but makes short "
            "messages the slowest of the four",
            "< 1% of queries time out; short messages over 80 ms, the worst",
            f"CAT4948 {100 * qt[deep]['timeout_fraction']:.2f}% of queries time out; short p95 "
            f"{st[deep]['p95_ms']:.1f} ms (slowest: {worst_short})",
            qt[deep]["timeout_fraction"] < 0.01 and worst_short == deep,
        ),
        c.claim(
            "RED improves TCP's short messages but not its queries (> 50% time out)",
            "short transfers better; 95% of queries time out",
            f"RED short p95 {st[red]['p95_ms']:.1f} ms vs TCP {st[t]['p95_ms']:.1f} ms; "
            f"{100 * qt[red]['timeout_fraction']:.1f}% of queries time out",
            st[red]["p95_ms"] < st[t]["p95_ms"] and qt[red]["timeout_fraction"] > 0.5,
        ),
    ]
    metrics = {
        "short_messages": short,
        "queries": query,
        "dctcp_baseline_short_messages": base_short,
        "table": table.to_dict(orient="records"),
        "short_message_contention": contention.to_dict(orient="records"),
        "paper": PAPER,
        "files": ["fig24.csv", "fig24_contention.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
