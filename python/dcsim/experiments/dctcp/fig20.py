"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), Figure 20: all-to-all incast.

Paper setup (§4.2.1, "All-to-all incast"): "the same setup as before, except all 41 machines
participate. Each machine requests 25KB of data from the remaining 40 machines (total 1MB).
In other words, 40 incast experiments happen all at once." Triumph dynamic buffering,
RTO_min 10 ms, DCTCP K = 20. Plot: CDF of query response time (ms).

Published numbers (§4.2.1): "DCTCP suffers no timeouts at all. TCP, on the other hand,
performs poorly, because over 55% of the queries suffer from at least one timeout."

Our setup: the testbed's incast star on its switch buffer (the `triumph` preset: 4 MB shared
memory, dynamic thresholds), 1 Gbps, base RTT 100 µs, RTO_min 10 ms, 10 ms timer tick; 41
query workloads running at once, workload c = client c querying the other 40 hosts for
25,000 B each over persistent connections, barrier-synchronised per client (each client loops
independently).

Assumptions:
- Repetitions not given (an assumption: 1000 queries per client, each looping
  independently): full = 1000 per client; quick = 25 per client (1025 queries in all).
- All clients issue their first query at the same instant (t = 10 ms, after the
  persistent connections' handshakes); they drift apart afterwards.

Outputs: fig20_cdf.csv (protocol, qct_ms, cdf), fig20.csv (per-protocol statistics),
fig20.png/.svg.
"""

from __future__ import annotations

from typing import Any

from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from ..queries import QUERY_START_S, all_completed, counts_in_stats, qct_ms, query, query_stats
from .incast import cdf_plot, cdf_rows, scenario

HOSTS = 41
RESPONSE_BYTES = 25_000
RTO_MIN_MS = 10.0
PROTOCOLS = ("TCP", "DCTCP")


def scenarios(p: Params, tb: Testbed) -> dict[str, dict]:
    """Protocol → scenario: every host queries the 40 others at once."""
    rounds = p["rounds"]
    # Without long flows the calendar empties after the last query: a generous horizon is free.
    duration = QUERY_START_S + rounds * 0.2 + 1.0
    return {
        proto: scenario(
            f"dctcp-fig20-{proto.lower()}",
            tb,
            hosts=HOSTS,
            protocol=proto,
            rto_min_ms=RTO_MIN_MS,
            duration_s=duration,
            queries=[query(cl, [h for h in range(HOSTS) if h != cl], RESPONSE_BYTES, rounds) for cl in range(HOSTS)],
        )
        for proto in PROTOCOLS
    }


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    stats, rows = {}, []
    for proto in PROTOCOLS:
        stats[proto] = query_stats(runs[proto])
        rows += cdf_rows(proto, qct_ms(runs[proto]))
    return Metrics(
        values={"rounds_per_client": runs.params["rounds"], "stats": stats},
        tables={
            "fig20_cdf": pd.DataFrame(rows),
            "fig20": pd.DataFrame([{"protocol": p, **st} for p, st in stats.items()]),
        },
    )


def _timeouts(m: Metrics) -> tuple[bool, str]:
    d, t = m["stats"]["DCTCP"], m["stats"]["TCP"]
    measured = (
        f"DCTCP {100 * d['timeout_fraction']:.2f}%, TCP {100 * t['timeout_fraction']:.1f}% "
        f"(median QCT DCTCP {d['p50_ms']:.1f} ms, TCP {t['p50_ms']:.1f} ms)"
    )
    return d["timeout_fraction"] < 0.01 and t["timeout_fraction"] > 0.40, measured


CLAIMS = (
    Claim(
        id="dctcp-no-timeouts-tcp-over-half",
        kind="paper",
        text="All-to-all: DCTCP < 1% of queries with a timeout; TCP > 40%",
        paper="DCTCP 0%; TCP > 55%",
        quote=(
            "DCTCP suffers no timeouts at all. TCP, on the other hand, performs poorly, because over 55% of the queries "
            "suffer from at least one timeout."
        ),
        section="§4.2.1",
        check=_timeouts,
    ),
    all_completed("client", rounds="rounds_per_client", count=counts_in_stats),
)


def plot(m: Metrics) -> Any:
    table = m.tables["fig20_cdf"]
    fig, ax = figure(size=(6.4, 4.0))
    for proto in PROTOCOLS:
        cdf_plot(ax, table, proto, f"{proto} (ours: {100 * m['stats'][proto]['timeout_fraction']:.1f}% with timeouts)")
    ax.set_xlabel("Query Latency (ms)")
    ax.set_ylabel("Cumulative Fraction")
    ax.set_ylim(0, 1.02)
    ax.set_title("All-to-all incast, 41 hosts × 25 KB from 40 (ours)")
    ax.legend(loc="lower right", fontsize=7.5)
    note(ax, "paper: DCTCP no timeouts;\nTCP > 55% of queries time out", loc="center right")
    return fig


EXPERIMENT = Experiment(
    id="dctcp-fig20",
    paper="dctcp",
    figure="Fig. 20",
    title="all-to-all incast (41 hosts, 25 KB from each of 40), dynamic buffer",
    description="41 simultaneous 40-to-1 incasts of 25 KB each: CDF of query time; DCTCP no timeouts, TCP many.",
    testbed="dctcp_testbed",
    scales={
        "smoke": {"rounds": 3},
        "quick": {"rounds": 25},
        "full": {"rounds": 1000},
    },
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"fig20": plot},
    notes=__doc__ or "",
)
