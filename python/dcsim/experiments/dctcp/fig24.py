"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), Figure 24: the 10x scaled benchmark, with a
deep-buffered switch and RED as the alternatives to DCTCP.

Paper setup (§4.3, "Scaled traffic"): the benchmark of Figs. 22-23, "except we increase the
size of update flows larger than 1MB by a factor of 10 ... Similarly, we generate queries as
before, except that the total size of each response is 1MB (with 44 servers, each individual
response is just under 25KB)". Four configurations: TCP and DCTCP on the Triumph; TCP on "the
deep-buffered CAT4948 switch" (which "does not support ECN"); TCP with "RED with ECN ...
setting min_th = 20, max_th = 60 and using [7] for the remaining parameters". Fig. 24: "the
95th percentile of response times for the short messages (100KB-1MB) and the query traffic".

Published numbers (§4.3): DCTCP against TCP: "The 95th percentile of completion time for
short-message traffic improves by 14ms, while query traffic improves by 136ms. With TCP, over
92% of the queries suffer from timeouts, while only 0.3% suffer from timeouts with DCTCP";
DCTCP's "short message completion time ... is essentially unchanged from baseline". CAT4948:
queries "comparable to DCTCP, since less than 1% of queries suffer from timeout", but short
messages "over 80ms, which is substantially higher than TCP without deep buffers". RED
"improves performance of short transfers" but "95% of queries experience a timeout".

Our setup: `dcsim.workloads.dctcp_benchmark(scaled=True)`: web-search background flows over
1 MB made 10 times larger, 22,727-B responses (1,000,000 B / 44), everything else as in
`dctcp-fig22`. TCP and DCTCP as there; TCP CAT4948 = NewReno over drop-tail on the `cat4948`
preset (16 MB shared, one busy port ≈ 2.8 MB); TCP RED = NewReno with RFC 3168 ECN over RED
(min_th 20, max_th 60, max_p 0.1, w_q 2^-9, marking ECT packets, on every port). The baseline
DCTCP run of `dctcp-fig22` gives "unchanged from baseline". Two more kinds of runs are shown,
not checked: RED with every packet ECT, control packets too (whether the paper's were is not
given), and TCP and DCTCP with the background's rate cut so that the traffic offers about 20%
and 45% of each rack link (`fig24_by_load`), since the paper's "over 200,000 flows" with
web-search sizes pins the load only within a factor of several.

Assumptions: those of `dctcp-fig22` (docs/workloads.md "The DCTCP benchmark"). Scaled, the
web-search sizes offer 83% of each server's 1 Gbps link (the 10x queries add 6%), more than
the paper's "essentially unchanged" short messages might suggest; the runs at lower loads
show which outcomes depend on it. Duration: full 2 minutes of arrivals (≈ 37,000
queries; the paper ran 10), quick 5 s; 3 s of drain.

Known deviation (traced), DCTCP's short messages (`dctcp-beats-tcp-p95`,
`short-messages-unchanged-from-baseline`): they are slower than TCP's at the 95th percentile
(quick 137.4 against 67.5 ms) and 7.34× slower than at baseline (18.7 ms). The load does not
explain it: at about 20% and 45% offered load (the table by load; the background's rate scaled
down) DCTCP's short messages are still slower than TCP's at the 95th percentile (31.0 against
27.3 ms at 24%, 58.5 against 43.6 ms at 47%), and so are the baseline's at 21% and 47% (31.6
against 30.3, 63.6 against 57.7 ms). The mechanism is dctcp-newcomer's: a DCTCP message that
starts beside a long flow from a host of the same rate waits while that flow's window drains
from its own NIC queue, which the switch's marks reach only one window at a time; the 10x update
flows make such neighbours common (a short message starts beside 3.8 update flows at its
receiver on average, quick). DCTCP's slowest 5% ran at a median 25 Mb/s, each cut 24 times by
ECN-Echo and resending nothing; TCP's at 48 Mb/s, resending 3 packets (medians). Counter-run,
the hosts' per-connection NIC backlog at 16 KB instead of 128 KB (quick): DCTCP's short-message
p95 falls to 62.7 ms (TCP's 47.4) and its baseline's to 13.6 ms (4.60×). Restart after idle and
RFC 7661 window validation leave it at 137.3 ms (`dctcp_hosts_sourced_restart_tsq`, quick).

Known deviation (traced), DCTCP's queries (`query-timeouts-scaled`): 2.68% of the window's
queries time out (quick), not the paper's 0.3%; TCP's 93.6% matches its "over 92%" (at full
scale, on the hosts before their choice: 1.89% and 98.9%). Traced in quick reruns of the DCTCP
run, one change each: 0.94% time out with restart after idle (RFC 5681 §4.1), 0.47% with RFC
7661 window validation, 0.24% with both (`dctcp_hosts_sourced_restart_tsq`, where the claim
holds: TCP's 69.8%). The testbed's hosts (docs/validation.md, How the testbeds were chosen)
neither restart an idle window nor validate an application-limited one: Microsoft documents
neither for 2008 R2 (later Windows has CwndRestart off), and the rule chose the candidate
without them. So a persistent query connection keeps the window its earlier responses grew,
and a 10x query's 22.7 KB responses leave in one burst each. The paper's 0.3% needs its stack
to have limited those windows in some way the paper does not state; the hosts are not changed
to suit this figure.

Known deviation (traced), the CAT4948 (`deep-buffer-fixes-queries-not-short-messages`): it does
not spare TCP's queries here: 73.8% time out (quick; 85.1% at full scale, on the hosts before
their choice), against the paper's under 1%. TCP's long flows fill its memory
(`max_shared_bytes_used`: 12.0 MB of 16) and its rack ports still drop packets by the hundred
thousand (`rack_port_drops`: 171,017 against the Triumph's 233,071). The shared threshold (an
assumption) is not the cause: in quick reruns of this configuration alone, a private 2.8 MB for
every port (what one busy port gets) makes it worse, 87.3% of queries timing out and 221,489
drops, since TCP's long flows fill any drop-tail port they share with the queries; with receive
windows capped at 64 KB (`rcv_autotune_max_bytes`) the rack ports drop nothing and still 45.2%
of queries time out: a response queued behind up to 2.8 MB (22 ms at 1 Gbps) outlasts the 10 ms
RTO_min. A deep buffer spares queries only if the standing queue at a rack port stays under what
that RTO_min allows (about 1.2 MB); what bounded the real CAT4948's queue the paper does not say
(its short messages' "over 80ms" suggests nothing did). Its short messages (p95 109.1 ms) are not
the slowest of the four, as the paper has them, because RED's are slower still (below). At full
scale, on the hosts before their choice, 410 of its 5,928 short messages resent a SYN, dropped
at a full port, and waited the 2008 R2 stack's 3 s initial RTO.

Known deviation (traced), RED (`red-helps-short-not-queries`): RED's short messages are the
slowest of the four (p95 3,028 ms quick; 3,346 ms at full scale on the hosts before their
choice), where the paper found them better than TCP's; its queries time out as the paper's do
(100%). RED-ECN marks ECT packets but drops the ones that are not ECT when the average queue is
above its thresholds, and an RFC 3168 sender's SYNs, pure ACKs and retransmissions are not ECT
(the commodity RED-ECN behaviour). A dropped SYN waits the 2008 R2 stack's 3 s initial RTO: 21
of the 229 quick short messages resent their SYN (median completion 3.04 s). Without them RED's
p95 is 65.4 ms, level with TCP's (67.5 ms; 63.9 without TCP's own 2 SYN retries). The paper does
not say how its Triumph's RED treated packets that are not ECT. The run with every packet ECT
(configuration "TCP RED, every packet ECT", quick) shows the cause: its short messages' p95 falls
from 3,028 to 66.5 ms, below TCP's 67.5, and 98.3% of its queries time out, so the claim holds
there.

Outputs: fig24.csv (configuration, short-message and query statistics, query timeout fraction,
load offered to the rack hosts' links, background flows with timeouts), fig24_contention.csv
(per configuration and number of update flows at the receiver when a short message starts: how
many messages, their median completion time and rate), fig24_by_load.csv (TCP and DCTCP at each
load: offered load, short messages and queries), fig24.png/.svg.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from . import benchmark as b

PAPER = {
    "short_gain_ms": 14.0,
    "query_gain_ms": 136.0,
    "query_timeouts": {"TCP": 0.92, "DCTCP": 0.003, "TCP CAT4948": 0.01, "TCP RED": 0.95},
    "cat4948_short_ms": 80.0,
}
UNCHANGED = 1.25  # "essentially unchanged from baseline": within 25%
# The baseline benchmark's DCTCP run (DCTCP Fig. 22's), for "unchanged from baseline".
BASELINE = "DCTCP baseline"
TCP, DCTCP, DEEP, RED = "TCP", "DCTCP", "TCP CAT4948", "TCP RED"
# RED with ECT on the control packets too (SYNs, pure ACKs, retransmissions): whether they were
# is not given, and RED-ECN drops a non-ECT packet where it would mark an ECT one.
RED_ECT = "TCP RED, every packet ECT"


def scenarios(p: Params, tb: Testbed) -> dict[Any, dict]:
    """The four configurations, the baseline's DCTCP run, RED with every packet ECT, and
    ``(load level, protocol)`` for the other loads."""
    return (
        b.scaled_runs(p, tb)
        | {BASELINE: b.baseline_runs(p, tb)["DCTCP"], RED_ECT: b.scenario(RED, p, tb, scaled=True, ect_on_control=True)}
        | b.load_runs(p, tb, scaled=True)
    )


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    rows, short, query, met = [], {}, {}, []
    for label in (*b.PROTOCOLS, RED_ECT):
        res, sc = runs[label], runs.scenario(label)
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
    contention = pd.concat(met, ignore_index=True)
    loads = b.load_table(runs, "scaled 10x", {p: p for p in b.LOAD_PROTOCOLS})
    return Metrics(
        values={
            "short_messages": short,
            "queries": query,
            "dctcp_baseline_short_messages": b.short_message_stats(runs[BASELINE], runs.scenario(BASELINE)),
            "table": table.to_dict(orient="records"),
            "short_message_contention": contention.to_dict(orient="records"),
            "paper": PAPER,
        },
        tables={"fig24": table, "fig24_contention": contention, "fig24_by_load": loads},
        published=(
            b.load_published(
                loads,
                "Fig. 24",
                "DCTCP's short messages 14 ms better at the 95th percentile and essentially unchanged from baseline, "
                "queries 136 ms better; 92% of TCP's queries and 0.3% of DCTCP's time out",
            ),
        ),
    )


# --- claims -------------------------------------------------------------------------------


def _dctcp_beats_tcp(m: Metrics) -> tuple[bool, str]:
    st, qt = m["short_messages"], m["queries"]
    measured = (
        f"short p95 TCP {st[TCP]['p95_ms']:.1f} / DCTCP {st[DCTCP]['p95_ms']:.1f} ms; query p95 "
        f"TCP {qt[TCP]['p95_ms']:.1f} / DCTCP {qt[DCTCP]['p95_ms']:.1f} ms"
    )
    return st[DCTCP]["p95_ms"] < st[TCP]["p95_ms"] and qt[DCTCP]["p95_ms"] < qt[TCP]["p95_ms"], measured


def _query_timeouts(m: Metrics) -> tuple[bool, str]:
    qt = m["queries"]
    measured = f"TCP {100 * qt[TCP]['timeout_fraction']:.1f}%, DCTCP {100 * qt[DCTCP]['timeout_fraction']:.2f}%"
    return qt[TCP]["timeout_fraction"] > 0.5 and qt[DCTCP]["timeout_fraction"] < 0.01, measured


def _unchanged_from_baseline(m: Metrics) -> tuple[bool, str]:
    scaled, base = m["short_messages"][DCTCP]["p95_ms"], m["dctcp_baseline_short_messages"]["p95_ms"]
    measured = f"p95 {base:.1f} ms at baseline, {scaled:.1f} ms scaled ({scaled / base:.2f}×)"
    return scaled <= UNCHANGED * base, measured


def _deep_buffer(m: Metrics) -> tuple[bool, str]:
    st, qt = m["short_messages"], m["queries"]
    worst_short = max(b.PROTOCOLS, key=lambda k: st[k]["p95_ms"])
    measured = (
        f"CAT4948 {100 * qt[DEEP]['timeout_fraction']:.2f}% of queries time out; short p95 "
        f"{st[DEEP]['p95_ms']:.1f} ms (slowest: {worst_short})"
    )
    return qt[DEEP]["timeout_fraction"] < 0.01 and worst_short == DEEP, measured


def _red(m: Metrics) -> tuple[bool, str]:
    st, qt = m["short_messages"], m["queries"]
    measured = (
        f"RED short p95 {st[RED]['p95_ms']:.1f} ms vs TCP {st[TCP]['p95_ms']:.1f} ms; "
        f"{100 * qt[RED]['timeout_fraction']:.1f}% of queries time out"
    )
    return st[RED]["p95_ms"] < st[TCP]["p95_ms"] and qt[RED]["timeout_fraction"] > 0.5, measured


CLAIMS = (
    Claim(
        id="dctcp-beats-tcp-p95",
        kind="paper",
        text="Scaled 10x, DCTCP beats TCP on both: lower 95th-percentile completion for short messages and for queries",
        paper="short messages 14 ms better, queries 136 ms better",
        quote="The 95th percentile of completion time for short-message traffic improves by 14ms, while query traffic improves by 136ms.",
        section="§4.3",
        check=_dctcp_beats_tcp,
    ),
    Claim(
        id="query-timeouts-scaled",
        kind="paper",
        text="Scaled 10x, most TCP queries time out (> 50%) and almost no DCTCP ones (< 1%)",
        paper="TCP over 92%, DCTCP 0.3%",
        quote="With TCP, over 92% of the queries suffer from timeouts, while only 0.3% suffer from timeouts with DCTCP.",
        section="§4.3",
        check=_query_timeouts,
    ),
    Claim(
        id="short-messages-unchanged-from-baseline",
        kind="paper",
        text=f"DCTCP's short messages are essentially unchanged from the baseline benchmark (p95 within {UNCHANGED:g}×)",
        paper="essentially unchanged",
        quote="short message completion time for DCTCP is essentially unchanged from baseline",
        section="§4.3",
        check=_unchanged_from_baseline,
    ),
    Claim(
        id="deep-buffer-fixes-queries-not-short-messages",
        kind="paper",
        text="The deep-buffered CAT4948 fixes TCP's queries (< 1% time out) but makes short messages the slowest of the four",
        paper="< 1% of queries time out; short messages over 80 ms, the worst",
        quote=(
            "with CAT4948 TCP's query completion time is comparable to DCTCP, since less than 1% of queries suffer from timeout. "
            "However, if deep buffers are used, the short-message traffic is penalized: their completion times are over 80ms"
        ),
        section="§4.3",
        check=_deep_buffer,
    ),
    Claim(
        id="red-helps-short-not-queries",
        kind="paper",
        text="RED improves TCP's short messages but not its queries (> 50% time out)",
        paper="short transfers better; 95% of queries time out",
        quote=(
            "while RED improves performance of short transfers by keeping average queue length low, the high variability "
            "... leads to poor performance for the query traffic (95% of queries experience a timeout)"
        ),
        section="§4.3",
        check=_red,
    ),
)


def plot(m: Metrics) -> Any:
    short, query = m["short_messages"], m["queries"]
    fig, (ax1, ax2) = figure(1, 2, size=(11.0, 4.0))
    labels = list(b.PROTOCOLS)
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
    note(ax1, "paper: DCTCP 14 ms better than TCP;\nCAT4948 over 80 ms; RED better than TCP", loc="upper left")
    note(ax2, "paper: DCTCP 136 ms better than TCP;\nTO: TCP 92%, DCTCP 0.3%,\nCAT4948 < 1%, RED 95%", loc="upper left")
    fig.suptitle("10x background and 10x query traffic (ours)", fontsize=10)
    return fig


EXPERIMENT = Experiment(
    id="dctcp-fig24",
    paper="dctcp",
    figure="Fig. 24",
    title="10x scaled benchmark, 95th percentile completion time (TCP, DCTCP, deep buffer, RED)",
    description=(
        "Benchmark with 10x update flows and 1 MB queries: p95 short-message and query completion for TCP, DCTCP, TCP on the "
        "CAT4948 and TCP with RED."
    ),
    testbed="dctcp_testbed",
    scales=b.SCALES,
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"fig24": plot},
    notes=__doc__ or "",
)
