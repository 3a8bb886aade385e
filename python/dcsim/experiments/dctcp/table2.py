"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), Table 2: buffer pressure.

Paper setup (§4.2.3): "we connected 44 hosts to a Triumph switch with 1Gbps links. 11 of
these hosts participate in a 10-1 incast pattern, with 1 host acting as a client, and 10
hosts acting as servers. The client requested a total of 1MB data from the servers (100KB
from each), repeating the request 10,000 times." Then "we use the remaining 33 hosts to start
'background' traffic of long-lived flows to consume the shared buffer. We start a total of 66
big flows between the 33 hosts, with each host sending data to two other hosts."
RTO_min = 10 ms, K = 20 (caption). Metric: 95th percentile of query completion time.

Published numbers (Table 2):

  |       | without background | with background |
  | TCP   | 9.87 ms            | 46.94 ms        |
  | DCTCP | 9.17 ms            | 9.09 ms         |

"about 7% of queries suffer from timeouts with TCP, while only 0.08% do so under DCTCP.
Long-lived flows get the same throughput under both TCP and DCTCP." Without background "the
switch can easily handle 10:1 incast with both TCP and DCTCP, without inducing any timeouts".

Our setup: the testbed's incast star on its switch buffer (the `triumph` preset: 4 MB shared
memory with dynamic thresholds: the background's 33 congested ports shrink the incast port's
share), 1 Gbps, base RTT 100 µs, RTO_min 10 ms with the 10 ms tick. Host 0 is the client,
hosts 1-10 the servers (100,000 B each, barrier, persistent connections); hosts 11-43 are the
33 background hosts.

Assumptions:
- Background pairing not given: background host i (0-based among the 33) sends one unlimited
  flow to (i+1) mod 33 and one to (i+2) mod 33 (an assumption); all start at t = 0.
- Queries start at t = 0.1 s (with background: after the long flows have filled their
  queues); long-flow goodput is measured from 0.1 s to the end of the run.
- Repetitions: full = the paper's 10,000; quick = 40 (the p95 of 40 queries is coarse: it
  sits between the 2nd- and 3rd-largest values). With background the run lasts 25 ms per query; queries
  still unfinished at the end are reported.

Known deviation (traced), TCP's p95 with background against without: TCP's p95 falls with
background, 22.13 → 16.93 ms (quick; full 26.82 → 8.74 ms), where the paper's rises 9.87 → 46.94
ms. Our TCP times out at least as often without background as with it (quick 7.5% and 7.5%, 3 of
40 queries each; full 11.2% and 4.5%), so the p95 lies among timed-out queries without background
at both scales but with background only in the 40 quick queries, and a timed-out query costs less
with background (16.9-35.5 ms quick) than without (21.9-67.3 ms). Traced in 400-query quick reruns
with the client's port traced. Without background the 2008 R2 stack keeps each persistent
connection's window from query to query (no restart after idle, no window validation), and the
windows grow (median 37 MSS at the end, up to 71, more than a whole 69-segment response) until the
ten together overflow the port's 700 KB. A query then opens with all ten windows at once, the port
overflows 0.7-1.2 ms in, and the drops fall on the responses' last segments, which no duplicate
ACK can repair: 44 queries (11%) time out, and each of the 32 of them with drops lost one of a
response's last three segments. The other 12 lost nothing and took 21.9-22.3 ms: a timeout that
ends a response leaves the window at 1 MSS plus the 720-B tail it acknowledges (2,180 B, byte
counting), so the next response starts with one segment, which the client's delayed ACK holds (200
ms timer) until the sender's RTO fires. The receive windows of the testbed's hosts
(docs/validation.md, "How the testbeds were chosen"), tuned up from 64 KB, reach 350-605 KB and
never bind a 100 KB response: without background the runs are the same with fixed 8 MB windows.
With background they differ. The 66 long flows lose nothing (each host's two flows share its 1
Gbps NIC, and each receiver's port takes two such halves), so their 33 ports keep what the flows'
first 10 ms of slow start put there, drifting up about 0.5 MB in 10 s: with tuned windows 1.34 MB
at 10 ms and 1.39 MB on average at a query's start (1.23 and 1.32 MB with fixed 8 MB windows). The
client's port then overflows at 454 KB (median at its drops; 466 KB with 8 MB windows): losses
come in 107 of the 400 queries (93 with 8 MB windows), fast retransmit repairs most of them (527
fast retransmits, 21 timeouts), and 13 queries time out (3.25%; 6 with 8 MB windows): each of the
9 with drops lost one of a response's last three segments, the other 4 followed a timed-out query.
With RFC 7661 window validation (quick) TCP times out in 2.5% of queries both without and with
background, and its p95 is 8.56 → 8.57 ms: the paper's no-background value, but no rise. The
paper's 4.8× needs no timeouts without background ("without inducing any timeouts") and ~7% with,
each costing more than ours. Its hosts' windows did not carry a whole response into the next
query, or their tails were repaired without the timer; the paper states neither. A timeout costs
10-20 ms here (RTO_min 10 ms on the 10 ms tick); the paper's p95 of 46.94 ms with ~7% of queries
timing out implies ≈ 38 ms per timed-out query.

Outputs: table2.csv (protocol, background, stats incl. p95_ms and timeout_fraction, long-flow
goodput), table2_cdf.csv, table2.png/.svg (p95 bars, ours vs paper).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..analysis import cdf
from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure
from ..queries import all_completed, bulk_goodput_gbps, counts_in_stats, qct_ms, query, query_stats
from .incast import COLORS, scenario

HOSTS = 44
SERVERS = 10
RESPONSE_BYTES = 100_000
BACKGROUND_HOSTS = 33
RTO_MIN_MS = 10.0
QUERY_START_S = 0.1
# (protocol, with background), in the table's order.
RUNS = (("TCP", False), ("DCTCP", False), ("TCP", True), ("DCTCP", True))
PAPER_P95_MS = {
    ("TCP", False): 9.87,
    ("TCP", True): 46.94,
    ("DCTCP", False): 9.17,
    ("DCTCP", True): 9.09,
}


def background_flows() -> list[dict]:
    """66 long flows among hosts 11..43: background host i -> (i+1) mod 33 and (i+2) mod 33."""
    base = SERVERS + 1
    return [{"src": base + i, "dst": base + (i + d) % BACKGROUND_HOSTS, "start_s": 0.0} for i in range(BACKGROUND_HOSTS) for d in (1, 2)]


def scenarios(p: Params, tb: Testbed) -> dict[tuple[str, bool], dict]:
    """``(protocol, with background)`` → scenario; the background runs, the slow ones, first."""
    rounds = p["rounds"]
    out = {}
    for proto, bg in sorted(RUNS, key=lambda run: not run[1]):
        # Without background the calendar empties after the last query (a generous horizon is
        # free); with 66 unlimited flows every simulated second costs, so 25 ms per query.
        duration = QUERY_START_S + rounds * (0.025 if bg else 0.2) + 0.1
        out[(proto, bg)] = scenario(
            f"dctcp-table2-{proto.lower()}-{'bg' if bg else 'nobg'}",
            tb,
            hosts=HOSTS,
            protocol=proto,
            rto_min_ms=RTO_MIN_MS,
            duration_s=duration,
            flows=background_flows() if bg else [],
            queries=[query(0, range(1, SERVERS + 1), RESPONSE_BYTES, rounds, start_s=QUERY_START_S)],
            warmup_s=QUERY_START_S if bg else 0.0,
        )
    return out


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    rows, cdf_rows, stats = [], [], {}
    for proto, bg in RUNS:
        res = runs[(proto, bg)]
        st = query_stats(res)
        st["long_flow_goodput_gbps"] = bulk_goodput_gbps(res) if bg else float("nan")
        st["paper_p95_ms"] = PAPER_P95_MS[(proto, bg)]
        stats[f"{proto.lower()}_{'bg' if bg else 'nobg'}"] = st
        rows.append({"protocol": proto, "background": bg, **st})
        x, y = cdf(qct_ms(res))
        cdf_rows += [{"protocol": proto, "background": bg, "qct_ms": float(a), "cdf": float(b)} for a, b in zip(x, y)]
    return Metrics(
        values={"rounds": runs.params["rounds"], "stats": stats},
        tables={"table2": pd.DataFrame(rows), "table2_cdf": pd.DataFrame(cdf_rows)},
    )


# --- claims -------------------------------------------------------------------------------


def _dctcp_unchanged(m: Metrics) -> tuple[bool, str]:
    dn, db = m["stats"]["dctcp_nobg"], m["stats"]["dctcp_bg"]
    d_rel = abs(db["p95_ms"] / dn["p95_ms"] - 1.0)
    return d_rel <= 0.10, f"DCTCP {dn['p95_ms']:.2f} → {db['p95_ms']:.2f} ms ({100 * d_rel:.1f}% change)"


def _tcp_worse(m: Metrics) -> tuple[bool, str]:
    tn, tb = m["stats"]["tcp_nobg"], m["stats"]["tcp_bg"]
    t_ratio = tb["p95_ms"] / tn["p95_ms"]
    return t_ratio >= 3.0, f"TCP {tn['p95_ms']:.2f} → {tb['p95_ms']:.2f} ms ({t_ratio:.2f}×)"


def _timeouts(m: Metrics) -> tuple[bool, str]:
    s = m["stats"]
    tn, tb, dn, db = s["tcp_nobg"], s["tcp_bg"], s["dctcp_nobg"], s["dctcp_bg"]
    measured = (
        f"TCP {100 * tb['timeout_fraction']:.2f}%, DCTCP {100 * db['timeout_fraction']:.2f}% "
        f"(without background: TCP {100 * tn['timeout_fraction']:.2f}%, "
        f"DCTCP {100 * dn['timeout_fraction']:.2f}%)"
    )
    return tb["timeout_fraction"] >= 0.01 and tb["timeout_fraction"] >= 10 * db["timeout_fraction"], measured


def _same_throughput(m: Metrics) -> tuple[bool, str]:
    g_t, g_d = m["stats"]["tcp_bg"]["long_flow_goodput_gbps"], m["stats"]["dctcp_bg"]["long_flow_goodput_gbps"]
    measured = f"66 long flows: TCP {g_t:.2f} Gbps, DCTCP {g_d:.2f} Gbps in total"
    return (abs(g_d / g_t - 1.0) <= 0.05 if g_t > 0 else False), measured


CLAIMS = (
    Claim(
        id="dctcp-p95-unchanged-by-background",
        kind="paper",
        text="Buffer pressure: DCTCP's p95 query time with background within 10% of without",
        paper="DCTCP 9.17 → 9.09 ms",
        quote="DCTCP’s performance is unchanged",
        section="§4.2.3",
        check=_dctcp_unchanged,
    ),
    Claim(
        id="tcp-p95-worse-with-background",
        kind="paper",
        text="Buffer pressure: TCP's p95 with background ≥ 3 × without",
        paper="TCP 9.87 → 46.94 ms (4.8×)",
        quote="with TCP, query completion time is substantially worse in the presence of long-lived flows",
        section="§4.2.3",
        check=_tcp_worse,
    ),
    Claim(
        id="tcp-times-out-far-more-with-background",
        kind="paper",
        text="With background, TCP queries time out far more often than DCTCP's (TCP ≥ 1% and ≥ 10 × DCTCP)",
        paper="TCP ~7%, DCTCP 0.08%",
        quote="about 7% of queries suffer from timeouts with TCP, while only 0.08% do so under DCTCP",
        section="§4.2.3",
        check=_timeouts,
    ),
    Claim(
        id="long-flows-same-throughput",
        kind="paper",
        text="Long-lived flows get the same throughput under TCP and DCTCP (within 5%)",
        paper="same throughput",
        quote="Long-lived flows get the same throughput under both TCP and DCTCP.",
        section="§4.2.3",
        check=_same_throughput,
    ),
    all_completed("configuration", count=counts_in_stats),
)


def plot(m: Metrics) -> Any:
    stats = {(p, bg): m["stats"][f"{p.lower()}_{'bg' if bg else 'nobg'}"] for p, bg in RUNS}
    fig, ax = figure(size=(6.4, 4.0))
    labels = ["TCP\nno bg", "TCP\nwith bg", "DCTCP\nno bg", "DCTCP\nwith bg"]
    keys = [("TCP", False), ("TCP", True), ("DCTCP", False), ("DCTCP", True)]
    xs = np.arange(len(keys))
    ax.bar(xs - 0.2, [stats[k]["p95_ms"] for k in keys], width=0.4, color=[COLORS[k[0]] for k in keys], label="ours")
    ax.bar(xs + 0.2, [PAPER_P95_MS[k] for k in keys], width=0.4, color="none", edgecolor="k", hatch="//", label="paper (Table 2)")
    for x, k in zip(xs.tolist(), keys):
        ax.text(
            x - 0.2,
            stats[k]["p95_ms"],
            f"{stats[k]['p95_ms']:.1f}\n({100 * stats[k]['timeout_fraction']:.1f}% TO)",
            ha="center",
            va="bottom",
            fontsize=7,
        )
    ax.set_xticks(xs, labels)
    ax.set_ylabel("95th pct query completion time (ms)")
    ax.set_title("Buffer pressure: 10:1 incast, 1 MB (ours vs paper)")
    ax.legend(loc="upper right", fontsize=7.5)
    return fig


EXPERIMENT = Experiment(
    id="dctcp-table2",
    paper="dctcp",
    figure="Table 2",
    title="buffer pressure — 10:1 incast with and without 66 background flows",
    description="44 hosts on a Triumph: 95th-pct query time of a 10-1 incast, with/without 66 long flows on other ports.",
    testbed="dctcp_testbed",
    scales={
        "smoke": {"rounds": 5},
        "quick": {"rounds": 40},
        "full": {"rounds": 10_000},
    },
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"table2": plot},
    notes=__doc__ or "",
)
