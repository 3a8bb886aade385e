"""Judd (Morgan Stanley) slides, "Impact of Timeouts": a synchronised incast's completion-time
distribution for RTO_min 200, 10 and 1 ms, and DCTCP as the other fix.

Slides: "Incast — Triggers timeouts — Exacerbated by synchronized requests — Common in
distributed storage", then "Impact of Timeouts" (a figure only); the Conclusion's fixes for
incast: "Lowest feasible RTO_min" and "DCTCP". The scenario is an assumption: a synchronised
incast's completion-time distribution for RTO_min ∈ {200 ms, 10 ms, 1 ms}.

Our setup: the Judd testbed (``testbeds.fanin``: 10 Gbps links, 5 µs each, a 5.5 MB static
port buffer, Linux hosts with IW 10, delayed ACK 2 / 40 ms; the testbed's notes in
judd/testbeds.py give each choice). Host 0 (the client) queries hosts 1-100 over persistent
connections; each answers 64 KB at once; the next query goes out when every response is in
(barrier, the incast experiments' ``queries.query``: 100-B requests, the first at 10 ms). TCP
= CUBIC over drop-tail with RTO_min 200 ms (Linux's), 10 ms and 1 ms; DCTCP over RED-ECN
marking at K = 20 (hosts with the slides' fixes, ``testbeds.FIXED_HOSTS``: ECT on every
packet) with Linux's 200 ms, to show the other fix needs no RTO change. RTOs are exact
(``timer_tick_ms`` = 0 over the ``linux_current`` profile's 4 ms jiffy: RTO_min is this
experiment's variable, and a 1 ms RTO_min needs a timer that fine, Linux's HZ = 1000 or
high-resolution timers) and the RTO is RFC 6298's max(RTO_min, SRTT + 4 RTTVAR). The hosts'
tail loss probe and early retransmit (the profile's) repair some tail losses before the RTO.

Assumptions:
- Fan-in and response size (not given): the port must overflow, and the slides' own 5.5 MB
  buffer (the testbed's, derived from the Scale table) holds any query of less than 5.5 MB:
  40 servers × 64 KB (2.6 MB; the 19-sender setup's would be 1.2 MB) never lose a packet, and
  40 × 256 KB (10.5 MB) lose some but recover all by fast retransmit. 100 servers (the Scale
  table's smallest sender count into the same receiver) × 64 KB (a storage stripe unit, an
  assumption) = 6.55 MB, 1.19 × the port: the synchronised responses overflow it and some
  tails are lost, which a timeout recovers unless the tail loss probe does. We keep the
  slides' buffer rather than a shallower one.
- Queries per configuration: 2000 at full scale, where p99 lies between the 21st- and
  20th-largest values, and 500 at quick, between the 6th- and 5th-largest.
- Checks (thresholds ours): timeouts happen (≥ 1 query with a timeout with TCP at RTO_min
  200 ms, and the port drops packets); the tail is the timeout: for RTO_min 200 and 10 ms,
  RTO_min ≤ p99 − median ≤ 4 × RTO_min (one RTO and what follows it: a backed-off second RTO,
  or the receiver's 40-ms delayed ACKs in the slow start after the RTO); the tail falls with
  RTO_min (p99 at 200 > 10 > 1 ms), and at 1 ms p99 ≤ 2 × the median (the
  RTO is then set by the RTT, up to 4.4 ms behind a full port, not by RTO_min); DCTCP with
  RTO_min 200 ms: no query times out and p99 ≤ 1.1 × the ideal time (the 6.55 MB at the
  10 × 1460/1538 Gbps goodput ceiling, 5.52 ms). On another testbed the ceiling takes its
  links' framing, and the port's buffer reported beside the claims is its port's
  (``testbeds.port_buffer_bytes``).

Measured. Full scale (2000 queries): at RTO_min 200, 10 and 1 ms, 0.5%, 0.7% and 0.6% of
queries wait out an RTO that is not spurious; p99 204.6, 14.6 and 12.43 ms; the median 5.55 ms
in each; the port drops 2516, 2248 and 2109 packets and its queue reaches 5.5 MB. DCTCP has no
timeouts and every query takes 5.55 ms (ideal 5.52). Quick scale (500 queries): 0.6%, 1.4% and
1.2% of queries with an RTO; p99 204.6, 23.3 and 21.46 ms; medians 5.55 ms.

Known deviation (traced), claims tail-is-the-timeout and lower-rto-min-shortens-tail: the
linux_current hosts' tail loss probe, not the RTO, repairs most lost tails. The probe timeout
is 2·SRTT + 2 ms after the last ACK (2·SRTT + RTO_min with one segment out), capped at the
RTO. SRTT is about 3 ms behind the 5.5 MB port (4.4 ms at 10 Gbps), so a query repaired by
the probe ends at 12.2-12.9 ms whatever RTO_min is. Traced at RTO_min 1 ms, quick (on a build
before F-RTO and the count of spurious RTOs; query numbers and counts are that build's). In query
55 several servers lose their last two segments; one's last ACK comes at 4.57 ms and its
probe at 12.49 ms, and the query ends at 12.65 ms with no RTO. In queries 314 and 394 a
server's last segment is SACKed at 4.61 and 4.67 ms above a two-segment hole. Too few
segments follow the holes for SACK recovery or early retransmit, so the probe resends at
12.15 and 12.34 ms. Linux's RACK (stacks.md: not modelled) would resend such holes within a
fraction of an RTT. A query waits for RTO_min only when its lost tail is a lone segment,
whose probe timeout is capped at the RTO. Traced at 200 ms, quick, queries 217 and 290
(204.6 ms, no RTO): the last ACK at 4.59 and 4.60 ms covers all but the final 1,296-B
segment, which the probe resends at 204.59 and 204.60 ms. Queries that wait out RTO_min,
these and those with an RTO, are 7 of 500 (1.4%) at quick and 19 of 2000 (0.95%) at full.
tail-is-the-timeout fails because p99 is the wait, but the wait starts at the last ACK, about
4.5 ms into the query and before the median query ends. So p99 − median = RTO_min − 1 ms at
200 ms: 199.0 ms (full; 199.1 quick); at 10 ms 9.0 ms at full, while at quick the probe's
waits put p99 at 23.3 ms (17.7 ms above the median). lower-rto-min-shortens-tail (at 1 ms,
p99 ≤ 2 × median) fails because the slowest 1% end with the probe or the RTO behind the full
port, not RTO_min: p99 12.43 ms at full and 21.46 at quick, against 2 × median = 11.1.
Counter-run (quick), the tail loss probe off: p99 − median is 199.96 and 9.6 ms, still just
under RTO_min, and p99 at 1 ms falls to 13.16 ms, the RTO (SRTT + 4·RTTVAR behind the full
port, RFC 6298 §2) about 8 ms after the last ACK. The slides' figure (the tail is the
timeout, and it shrinks with RTO_min) needs the wait counted from before the median query
ends, and at 1 ms a repair not set by the RTT behind a full port. With this profile neither
holds. The slides do not give their hosts' stack.

Outputs: judd_impact_of_timeouts.csv (protocol, rto_min_ms, completion-time statistics,
timeout_fraction, port drops and largest queue), judd_impact_of_timeouts_cdf.csv (config,
qct_ms, cdf), judd_impact_of_timeouts.png/.svg ((a) completion-time CDFs, log time axis, with
the RTO_min values marked; (b) p99 and median against RTO_min).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..analysis import cdf, goodput_ceiling_bps
from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from ..queries import completion, counts_in_stats, many_to_one_duration_s, qct_ms, query, query_stats
from ..scenarios import RECEIVER_PORT, port_share_bytes
from ..units import ms
from .testbeds import RATE_GBPS, fanin
from .transports import DCTCP, TCP

STEM = "judd_impact_of_timeouts"
SERVERS = 100
RESPONSE_BYTES = 64 * 1024
RTO_MINS_MS = (200.0, 10.0, 1.0)
CONFIGS = (("TCP", 200.0), ("TCP", 10.0), ("TCP", 1.0), ("DCTCP", 200.0))
TRANSPORTS = {"TCP": TCP, "DCTCP": DCTCP}
COLORS = {
    ("TCP", 200.0): "tab:red",
    ("TCP", 10.0): "tab:orange",
    ("TCP", 1.0): "tab:olive",
    ("DCTCP", 200.0): "tab:blue",
}
TAIL_FACTOR = 4.0  # p99 − median ≤ 4 × RTO_min
LOW_RTO_TAIL = 2.0  # at 1 ms: p99 ≤ 2 × median
DCTCP_TAIL = 1.1  # DCTCP: p99 ≤ 1.1 × the ideal time


def label(proto: str, rto: float) -> str:
    return f"{proto} RTO_min {rto:g} ms"


def ideal_ms(framing_bytes: int) -> float:
    """One query's bytes at the goodput ceiling of a 10 Gbps link with 1500-B packets."""
    return ms(SERVERS * RESPONSE_BYTES * 8 / goodput_ceiling_bps(RATE_GBPS, framing_bytes))


def scenario(proto: str, rto_min_ms: float, p: Params, tb: Testbed) -> dict[str, Any]:
    cc, aqm, hosts = TRANSPORTS[proto]
    rounds = p["rounds"]
    sc = fanin(
        f"judd-impact-of-timeouts-{proto.lower()}-rto{rto_min_ms:g}",
        tb,
        senders=SERVERS,
        cc=cc,
        aqm=aqm,
        # A generous bound; the run ends when the last query completes.
        duration_s=many_to_one_duration_s(rounds, rto_min_ms, SERVERS * RESPONSE_BYTES, RATE_GBPS),
        tcp=hosts | {"rto_min_ms": float(rto_min_ms), "timer_tick_ms": 0.0},
    )
    sc["flows"] = []
    sc["queries"] = [query(0, range(1, SERVERS + 1), RESPONSE_BYTES, rounds)]
    sc["sim"]["stop_when_queries_done"] = True
    return sc


def scenarios(p: Params, tb: Testbed) -> dict[tuple[str, float], dict[str, Any]]:
    """``(protocol, rto_min_ms)`` → its run."""
    return {(proto, rto): scenario(proto, rto, p, tb) for proto, rto in CONFIGS}


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    ideal = ideal_ms(runs.testbed.link["framing_bytes"])
    stats, rows, cdf_rows = {}, [], []
    for proto, rto in CONFIGS:
        res = runs[(proto, rto)]
        st = query_stats(res)
        port = res.port(RECEIVER_PORT)
        st["drops"] = int(port["drops_buffer"]) + int(port["drops_aqm"])
        st["max_queue_bytes"] = int(port["max_bytes"])
        stats[label(proto, rto)] = st
        rows.append({"protocol": proto, "rto_min_ms": rto, **st})
        x, y = cdf(qct_ms(res))
        cdf_rows += [{"config": label(proto, rto), "qct_ms": a, "cdf": b} for a, b in zip(x, y)]
    return Metrics(
        values={
            "servers": SERVERS,
            "response_bytes": RESPONSE_BYTES,
            "query_bytes": SERVERS * RESPONSE_BYTES,
            "port_buffer_bytes": port_share_bytes(runs.testbed.buffer(RATE_GBPS)),
            "ideal_ms": ideal,
            "stats": stats,
        },
        tables={STEM: pd.DataFrame(rows), f"{STEM}_cdf": pd.DataFrame(cdf_rows)},
    )


# --- claims (on each configuration's query statistics, with the port's drops and largest queue)


def _stats(m: Metrics, proto: str, rto: float) -> dict[str, Any]:
    return m["stats"][label(proto, rto)]


def _tail(s: dict[str, Any]) -> float:
    return s["p99_ms"] - s["p50_ms"]


def _triggers(m: Metrics) -> tuple[bool, str]:
    t200 = _stats(m, "TCP", 200.0)
    measured = (
        f"{100 * t200['timeout_fraction']:.1f}% of {t200['completed']} queries "
        f"({t200['timeouts']} timeouts); port drops {t200['drops']}, largest queue "
        f"{t200['max_queue_bytes'] / 1e6:.2f} MB"
    )
    return t200["timeouts"] >= 1 and t200["timeout_fraction"] > 0 and t200["drops"] > 0, measured


def _tail_is_timeout(m: Metrics) -> tuple[bool, str]:
    t200, t10 = _stats(m, "TCP", 200.0), _stats(m, "TCP", 10.0)

    def bounded(s: dict[str, Any], rto: float) -> bool:
        return rto <= _tail(s) <= TAIL_FACTOR * rto

    measured = "; ".join(
        f"{rto:g} ms: p99 {s['p99_ms']:.1f} − median {s['p50_ms']:.2f} = "
        f"{_tail(s):.1f} ms "
        f"({100 * s['timeout_fraction']:.1f}% of queries time out)"
        for rto, s in ((200.0, t200), (10.0, t10))
    )
    return bounded(t200, 200.0) and bounded(t10, 10.0), measured


def _lower_rto(m: Metrics) -> tuple[bool, str]:
    t1 = _stats(m, "TCP", 1.0)
    p99s = [_stats(m, "TCP", r)["p99_ms"] for r in RTO_MINS_MS]
    measured = (
        f"p99 {' > '.join(f'{p:.2f}' for p in p99s)} ms; at 1 ms median {t1['p50_ms']:.2f} ms, "
        f"{100 * t1['timeout_fraction']:.0f}% of queries see an RTO"
    )
    return p99s[0] > p99s[1] > p99s[2] and t1["p99_ms"] <= LOW_RTO_TAIL * t1["p50_ms"], measured


def _dctcp(m: Metrics) -> tuple[bool, str]:
    d, t200, ideal = _stats(m, "DCTCP", 200.0), _stats(m, "TCP", 200.0), m["ideal_ms"]
    measured = (
        f"DCTCP: {d['timeouts']} timeouts in {d['completed']} queries, "
        f"p99 {d['p99_ms']:.2f} ms "
        f"(ideal {ideal:.2f} ms, TCP at 200 ms: p99 {t200['p99_ms']:.1f} ms)"
    )
    return d["timeouts"] == 0 and d["p99_ms"] <= DCTCP_TAIL * ideal, measured


CLAIMS = (
    Claim(
        id="incast-triggers-timeouts",
        kind="paper",
        text=lambda m: (
            "Incast triggers timeouts: with TCP at RTO_min 200 ms ≥ 1 query suffers a timeout, the "
            f"{m['port_buffer_bytes'] / 1e6:.1f} MB port having overflowed"
        ),
        paper="Incast — triggers timeouts — exacerbated by synchronized requests",
        quote="Triggers timeouts ... Exacerbated by synchronized requests",
        section="slide 'Incast'",
        check=_triggers,
    ),
    Claim(
        id="tail-is-the-timeout",
        kind="derived",
        text=f"The tail is the timeout: for RTO_min 200 and 10 ms, RTO_min ≤ p99 − median ≤ {TAIL_FACTOR:g} × RTO_min",
        paper="Impact of Timeouts (figure only)",
        quote="Impact of Timeouts",
        section="slide 'Impact of Timeouts'",
        check=_tail_is_timeout,
    ),
    Claim(
        id="lower-rto-min-shortens-tail",
        kind="paper",
        text=(
            f"Lowest feasible RTO_min shortens the tail: p99 falls with RTO_min (200 > 10 > 1 ms), "
            f"and at 1 ms p99 ≤ {LOW_RTO_TAIL:g} × median"
        ),
        paper="Conclusion, Incast: Lowest feasible RTO_min",
        quote="Incast ... Lowest feasible  $RTO_{min}$",
        section="slide 'Conclusion'",
        check=_lower_rto,
    ),
    Claim(
        id="dctcp-avoids-timeouts",
        kind="paper",
        text=(f"DCTCP avoids the timeouts without touching RTO_min (200 ms): no query times out and p99 ≤ {DCTCP_TAIL:g} × the ideal time"),
        paper="Conclusion, Incast: DCTCP",
        quote="Key idea: reduce queue occupancy ... Reduce timeouts",
        section="slide 'DCTCP'",
        check=_dctcp,
    ),
    Claim(
        id="all-queries-complete",
        kind="check",
        text="All queries complete within the simulated horizon",
        paper=lambda m: f"{int(_stats(m, 'TCP', 200.0)['issued'])} queries per configuration",
        check=lambda m: completion(*counts_in_stats(m)),
    ),
)


# --- plot ---------------------------------------------------------------------------------


def plot(m: Metrics) -> Any:
    cdfs = m.tables[f"{STEM}_cdf"]
    ideal = m["ideal_ms"]
    fig, (ax1, ax2) = figure(1, 2, size=(10.5, 4.0))
    for key in CONFIGS:
        curve = cdfs[cdfs.config == label(*key)]
        s = _stats(m, *key)
        ax1.step(
            curve.qct_ms.to_numpy(),
            curve.cdf.to_numpy(),
            where="post",
            color=COLORS[key],
            label=f"{label(*key)}: {100 * s['timeout_fraction']:.0f}% with timeouts",
        )
    for rto in RTO_MINS_MS:
        ax1.axvline(rto, color=COLORS[("TCP", rto)], ls=":", lw=0.8)
    ax1.axvline(ideal, color="k", ls="--", lw=0.8, label=f"ideal {ideal:.2f} ms")
    ax1.set_xscale("log")
    ax1.set_xlabel("Query completion time (ms)")
    ax1.set_ylabel("CDF of queries")
    ax1.set_ylim(0, 1.02)
    ax1.set_title(f"(a) {SERVERS} × {RESPONSE_BYTES // 1024} KB incast (dotted: RTO_min)", fontsize=9)
    ax1.legend(fontsize=7, loc="center right")
    ax1.set_xlim(0.2, 1000.0)
    note(ax1, "slides: figure only; fixes:\n'Lowest feasible RTO_min', 'DCTCP'", loc="lower left")

    rtos = np.array(RTO_MINS_MS)
    tcp = [_stats(m, "TCP", r) for r in RTO_MINS_MS]
    ax2.plot(rtos, [s["p99_ms"] for s in tcp], "o-", color="tab:red", label="TCP p99")
    ax2.plot(rtos, [s["p50_ms"] for s in tcp], "s--", color="tab:red", label="TCP median")
    ax2.plot(rtos, rtos + ideal, ":", color="gray", label="ideal + RTO_min")
    ax2.axhline(_stats(m, "DCTCP", 200.0)["p99_ms"], color="tab:blue", label="DCTCP p99 (RTO_min 200 ms)")
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_xlabel("RTO_min (ms)")
    ax2.set_ylabel("Query completion time (ms)")
    ax2.set_title("(b) tail against RTO_min", fontsize=9)
    ax2.legend(fontsize=7, loc="upper left")
    return fig


EXPERIMENT = Experiment(
    id="judd-impact-of-timeouts",
    paper="judd",
    figure="slides",
    title="impact of timeouts — synchronised incast with RTO_min 200/10/1 ms, and DCTCP",
    description=(
        "100 servers answer 64 KB each at once into one 10 Gbps port with 5.5 MB: query completion-time distribution with TCP at "
        "RTO_min 200, 10, 1 ms and with DCTCP."
    ),
    testbed="judd_testbed",
    scales={
        "quick": {"rounds": 500},
        "full": {"rounds": 2000},
    },
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={STEM: plot},
    notes=__doc__ or "",
)
