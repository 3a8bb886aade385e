"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), Figure 21: queue buildup — short transfers
behind long flows.

Paper setup (§4.2.2): "we connect 4 machines to the Triumph switch with 1 Gbps links. One
machine is a receiver and the other three are senders. We start one big TCP flow each from
two senders to the receiver ... The receiver then requests 20KB chunks of data from the third
sender. The sender responds immediately, and the receiver sends the next request as soon as
it finishes receiving data. All communication is over long-lived connections, so there is no
three-way handshake for each request." 1000 transfers; RTO_min 10 ms, K = 20. Plot: CDF of
the 20 KB request completion times (ms).

Published numbers (§4.2.2): "DCTCP's completion time (median delay < 1 ms) is much lower than
TCP (median delay 19ms). No flows suffered timeouts in this scenario".

Our setup: the testbed's incast star on its switch buffer (the `triumph` preset), 1 Gbps, base
RTT 100 µs, RTO_min 10 ms with the 10 ms tick; host 0 receives two unlimited flows (from hosts
1 and 2, starting at t = 0) and runs one query workload: one server (host 3), 20,000-B
responses, barrier (next request when the previous response has arrived), persistent
connection.

Assumptions:
- The first request is issued at t = 0.2 s, once the long flows have reached their steady
  queue (not given); the run lasts long enough for every request at ≤ 40 ms each
  (unfinished ones are counted and reported).
- Quick: 200 transfers; full: 1000 (the paper's count).

Known deviation (traced), TCP's median against DCTCP's: TCP's median is 4.92 ms (quick; 4.93
full), 6.2× (6.3×) DCTCP's 0.80 ms (0.78), not the paper's 19 ms against < 1 ms. TCP's median
is one round trip through the long flows' standing queue (mean 369 packets, 4.5 ms to drain): the
2008 R2 stack keeps the 20 KB connection's window between transfers (no restart after idle, no
window validation; it ends the quick run at 2,742 MSS, never cut by a loss), so each 14-segment
response leaves in one flight. What that round trip costs depends on where in the long flows'
sawtooth the transfers fall: at quick scale their queue holds a median of 371 packets at a
transfer's start with the receive windows of the testbed's hosts (docs/validation.md, "How the
testbeds were chosen"), tuned up from 64 KB, and 341 with fixed 8 MB windows, whose TCP median
is 4.54 ms (the mean queue is 369 packets in both). DCTCP's window ends at 8.8 MSS, and 90% of
its transfers take 0.75-1.13 ms (quick). The paper's 19 ms is four such round trips: with a new
connection per transfer (handshake, then 2 + 4 + 8 segments from the initial window of 2) our
TCP median is 18.80 ms, but DCTCP's is then 1.50 ms, above the paper's < 1 ms, which needs the
response in one flight. Window validation does not give both either (RFC 7661: TCP 5.29 ms,
DCTCP 1.13 ms; Linux's rule: 5.38 and 1.44 ms; restart after idle changes nothing, as the
connection is never idle longer than its RTO). The paper does not say what made its TCP
transfers take four round trips.

Known deviation (traced), no timeouts at full scale: 3 of TCP's 1000 transfers time out (0.3%;
none of 200 at quick scale). Traced in a rerun of the full run, with the same 3 (transfers 234,
565 and 891): each lost one segment at the receiver's port, the 13th of its 14, while the
short 14th (1,020 B) still fitted under the port's byte limit behind it. One duplicate ACK
followed, and the 2008 R2 stack has neither limited transmit nor a tail-loss probe, so the
segment was resent by the timer 16.0 ms after the transfer began (RTO_min 10 ms on the 10 ms
tick); the transfers took 18.9-20.3 ms. The paper's drop-tail port lost no segment of its 1000
transfers, or its stack repaired such tails without the timer.

Outputs: fig21_cdf.csv (protocol, qct_ms, cdf), fig21.csv (per-protocol statistics, long-flow
goodput, receiver-port queue), fig21.png/.svg.
"""

from __future__ import annotations

from typing import Any

from ...scenario import long_flows
from ..analysis import fmt
from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from ..queries import bulk_goodput_gbps, completion, counts_in_stats, qct_ms, query, query_stats
from ..scenarios import RECEIVER_PORT
from .incast import COLORS, cdf_plot, cdf_rows, scenario

RESPONSE_BYTES = 20_000
RTO_MIN_MS = 10.0
QUERY_START_S = 0.2
PROTOCOLS = ("TCP", "DCTCP")
PAPER_TCP_MEDIAN_MS = 19.0
PAPER_DCTCP_MEDIAN_MS = 1.0  # "< 1 ms"


def scenarios(p: Params, tb: Testbed) -> dict[str, dict]:
    """Protocol → scenario: two long flows into host 0, which fetches 20 KB from host 3."""
    duration = QUERY_START_S + p["rounds"] * 0.040 + 0.1
    return {
        proto: scenario(
            f"dctcp-fig21-{proto.lower()}",
            tb,
            hosts=4,
            protocol=proto,
            rto_min_ms=RTO_MIN_MS,
            duration_s=duration,
            flows=long_flows([1, 2], 0, start_s=0.0),
            queries=[query(0, [3], RESPONSE_BYTES, p["rounds"], start_s=QUERY_START_S)],
        )
        for proto in PROTOCOLS
    }


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    stats, rows = {}, []
    for proto in PROTOCOLS:
        res = runs[proto]
        st = query_stats(res)
        port = res.port(RECEIVER_PORT)
        st["long_flow_goodput_gbps"] = bulk_goodput_gbps(res)
        st["receiver_port_mean_packets"] = float(port["mean_packets"])
        st["receiver_port_max_bytes"] = int(port["max_bytes"])
        stats[proto] = st
        rows += cdf_rows(proto, qct_ms(res))
    return Metrics(
        values={"rounds": runs.params["rounds"], "stats": stats},
        tables={
            "fig21_cdf": pd.DataFrame(rows),
            "fig21": pd.DataFrame([{"protocol": p, **st} for p, st in stats.items()]),
        },
    )


def _ratio(m: Metrics) -> float:
    """TCP's median completion time over DCTCP's."""
    d, t = m["stats"]["DCTCP"], m["stats"]["TCP"]
    return t["p50_ms"] / d["p50_ms"] if d["p50_ms"] > 0 else float("nan")


def _dctcp_median(m: Metrics) -> tuple[bool, str]:
    d = m["stats"]["DCTCP"]
    return d["p50_ms"] < 1.0, f"DCTCP median {d['p50_ms']:.2f} ms (p95 {d['p95_ms']:.2f} ms)"


def _tcp_median(m: Metrics) -> tuple[bool, str]:
    ratio = _ratio(m)
    return ratio > 10.0, f"TCP median {m['stats']['TCP']['p50_ms']:.2f} ms = {fmt(ratio, 1)} × DCTCP's"


def _no_timeouts(m: Metrics) -> tuple[bool, str]:
    d, t = m["stats"]["DCTCP"], m["stats"]["TCP"]
    measured = f"timeout fraction DCTCP {d['timeout_fraction']:.3f}, TCP {t['timeout_fraction']:.3f}"
    return d["timeout_fraction"] == 0.0 and t["timeout_fraction"] == 0.0, measured


CLAIMS = (
    Claim(
        id="dctcp-median-under-1ms",
        kind="paper",
        text="Queue buildup: DCTCP median 20 KB completion < 1 ms",
        paper="DCTCP median < 1 ms",
        quote="DCTCP’s completion time (median delay < 1 ms)",
        section="§4.2.2",
        check=_dctcp_median,
    ),
    Claim(
        id="tcp-median-over-10x-dctcp",
        kind="paper",
        text="Queue buildup: TCP median > 10 × DCTCP median",
        paper=f"TCP median {PAPER_TCP_MEDIAN_MS:g} ms vs DCTCP < 1 ms (> 19×)",
        quote="DCTCP’s completion time (median delay < 1 ms) is much lower than TCP (median delay 19ms)",
        section="§4.2.2",
        check=_tcp_median,
    ),
    Claim(
        id="no-timeouts",
        kind="paper",
        text="No 20 KB transfer suffers a timeout",
        paper="no flows suffered timeouts",
        quote="No flows suffered timeouts in this scenario",
        section="§4.2.2",
        check=_no_timeouts,
    ),
    Claim(
        id="all-transfers-complete",
        kind="check",
        text="All transfers complete within the simulated horizon",
        paper=lambda m: f"{m['rounds']} transfers",
        check=lambda m: completion(*counts_in_stats(m)),
    ),
)


def plot(m: Metrics) -> Any:
    table = m.tables["fig21_cdf"]
    fig, ax = figure(size=(6.4, 4.0))
    for proto in PROTOCOLS:
        cdf_plot(ax, table, proto, f"{proto} (ours: median {m['stats'][proto]['p50_ms']:.2f} ms)")
    ax.axvline(PAPER_DCTCP_MEDIAN_MS, color=COLORS["DCTCP"], ls=":", lw=1, label="paper DCTCP median (< 1 ms)")
    ax.axvline(PAPER_TCP_MEDIAN_MS, color=COLORS["TCP"], ls=":", lw=1, label="paper TCP median (19 ms)")
    ax.set_xscale("log")
    ax.set_xlabel("Completion time of short transfer (ms)")
    ax.set_ylabel("Cumulative Fraction")
    ax.set_ylim(0, 1.02)
    ax.set_title("20 KB transfers behind 2 long flows (ours)")
    ax.legend(loc="lower right", fontsize=7.5)
    note(ax, "paper: median DCTCP < 1 ms,\nTCP 19 ms; no timeouts", loc="center right")
    return fig


EXPERIMENT = Experiment(
    id="dctcp-fig21",
    paper="dctcp",
    figure="Fig. 21",
    title="20 KB transfers behind 2 long flows (queue buildup), TCP vs DCTCP",
    description="4 hosts: 2 long flows into a receiver that also fetches 20 KB chunks: CDF of the 20 KB completion time.",
    testbed="dctcp_testbed",
    scales={
        "smoke": {"rounds": 20},
        "quick": {"rounds": 200},
        "full": {"rounds": 1000},
    },
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"fig21": plot},
    notes=__doc__ or "",
)
