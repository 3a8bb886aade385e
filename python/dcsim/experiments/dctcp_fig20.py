"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), Figure 20: all-to-all incast.

Paper setup (§4.2.1, "All-to-all incast"): "the same setup as before, except all 41 machines
participate. Each machine requests 25KB of data from the remaining 40 machines (total 1MB).
In other words, 40 incast experiments happen all at once." Triumph dynamic buffering,
RTO_min 10 ms, DCTCP K = 20. Plot: CDF of query response time (ms).

Published numbers (spec experiments.md dctcp-fig20, §6 claim 12): "DCTCP suffers no
timeouts at all. TCP, on the other hand, performs poorly, because over 55% of the queries
suffer from at least one timeout."

Our setup: `incast.scenario` on the `triumph` preset (4 MB shared memory, dynamic
thresholds), 1 Gbps, base RTT 100 µs, RTO_min 10 ms, 10 ms timer tick; 41 query workloads
running at once, workload c = client c querying the other 40 hosts for 25,000 B each over
persistent connections, barrier-synchronised per client (each client loops independently).

Assumptions:
- Repetitions NOT GIVEN (spec ASSUMPTION 1000 queries per client, each looping
  independently): full = 1000 per client; quick = 25 per client (1025 queries in all).
- All clients issue their first query at the same instant (t = 10 ms, after the
  persistent connections' handshakes); they drift apart afterwards.

Outputs: fig20_cdf.csv (protocol, qct_ms, cdf), fig20.csv (per-protocol statistics),
fig20.png/.svg.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from . import common as c
from . import incast as ic

ID = "dctcp-fig20"
TITLE = "DCTCP Fig. 20: all-to-all incast (41 hosts, 25 KB from each of 40), dynamic buffer"
DESCRIPTION = (
    "41 simultaneous 40-to-1 incasts of 25 KB each: CDF of query time; DCTCP no timeouts, TCP many."
)

HOSTS = 41
RESPONSE_BYTES = 25_000
RTO_MIN_MS = 10.0
SCALES = {
    "smoke": {"rounds": 3},
    "quick": {"rounds": 25},
    "full": {"rounds": 1000},
}
PAPER_TCP_TIMEOUT = 0.55


def scenarios(scale: str) -> list[tuple[str, dict]]:
    s = c.check_scale(scale, SCALES)
    rounds = s["rounds"]
    # Without long flows the calendar empties after the last query: a generous horizon is free.
    duration = ic.QUERY_START_S + rounds * 0.2 + 1.0
    out = []
    for proto in ("TCP", "DCTCP"):
        queries = [
            ic.query(cl, [h for h in range(HOSTS) if h != cl], RESPONSE_BYTES, rounds)
            for cl in range(HOSTS)
        ]
        out.append(
            (
                proto,
                ic.scenario(
                    f"{ID}-{proto.lower()}",
                    hosts=HOSTS,
                    protocol=proto,
                    rto_min_ms=RTO_MIN_MS,
                    buffer=ic.TRIUMPH,
                    duration_s=duration,
                    queries=queries,
                ),
            )
        )
    return out


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    s = c.check_scale(scale, SCALES)
    out = c.prepare_out(out_dir)
    plan = scenarios(scale)
    results = c.run_all([sc for _, sc in plan], jobs)
    stats, rows = {}, []
    fig, ax = c.figure(size=(6.4, 4.0))
    for (proto, _), res in zip(plan, results):
        st = ic.query_stats(res)
        stats[proto] = st
        v = ic.qct_ms(res)
        rows += ic.cdf_rows(proto, v)
        label = f"{proto} (ours: {100 * st['timeout_fraction']:.1f}% with timeouts)"
        ic.cdf_plot(ax, v, label, ic.COLORS[proto])
    pd.DataFrame(rows).to_csv(out / "fig20_cdf.csv", index=False)
    pd.DataFrame([{"protocol": p, **st} for p, st in stats.items()]).to_csv(
        out / "fig20.csv", index=False
    )
    ax.set_xlabel("Query Latency (ms)")
    ax.set_ylabel("Cumulative Fraction")
    ax.set_ylim(0, 1.02)
    ax.set_title("All-to-all incast, 41 hosts × 25 KB from 40 (ours)")
    ax.legend(loc="lower right", fontsize=7.5)
    c.note(ax, "paper: DCTCP no timeouts;\nTCP > 55% of queries time out", loc="center right")
    files = c.save_figure(fig, out, "fig20")

    d, t = stats["DCTCP"], stats["TCP"]
    completed = d["completed"] + t["completed"]
    issued = d["issued"] + t["issued"]
    claims = [
        c.claim(
            "All-to-all: DCTCP < 1% of queries with a timeout; TCP > 40% (claim 12)",
            "DCTCP 0%; TCP > 55%",
            f"DCTCP {100 * d['timeout_fraction']:.2f}%, TCP {100 * t['timeout_fraction']:.1f}% "
            f"(median QCT DCTCP {d['p50_ms']:.1f} ms, TCP {t['p50_ms']:.1f} ms)",
            d["timeout_fraction"] < 0.01 and t["timeout_fraction"] > 0.40,
        ),
        ic.all_completed_claim(s["rounds"], "client", completed, issued),
    ]
    metrics = {
        "rounds_per_client": s["rounds"],
        "stats": stats,
        "files": ["fig20_cdf.csv", "fig20.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
