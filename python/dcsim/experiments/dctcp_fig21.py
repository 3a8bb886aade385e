"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), Figure 21: queue buildup — short transfers
behind long flows.

Paper setup (§4.2.2): "we connect 4 machines to the Triumph switch with 1 Gbps links. One
machine is a receiver and the other three are senders. We start one big TCP flow each from
two senders to the receiver ... The receiver then requests 20KB chunks of data from the third
sender. The sender responds immediately, and the receiver sends the next request as soon as
it finishes receiving data. All communication is over long-lived connections, so there is no
three-way handshake for each request." 1000 transfers; RTO_min 10 ms, K = 20. Plot: CDF of
the 20 KB request completion times (ms).

Published numbers (spec experiments.md dctcp-fig21, §6 claim 13): "DCTCP's completion time
(median delay < 1 ms) is much lower than TCP (median delay 19ms). No flows suffered timeouts
in this scenario".

Our setup: `incast.scenario` on the `triumph` preset, 1 Gbps, base RTT 100 µs, RTO_min
10 ms with the 10 ms tick; host 0 receives two unlimited flows (from hosts 1 and 2, starting
at t = 0) and runs one query workload: one server (host 3), 20,000-B responses, barrier
(next request when the previous response has arrived), persistent connection.

Assumptions:
- The first request is issued at t = 0.2 s, once the long flows have reached their steady
  queue (NOT GIVEN); the run lasts long enough for every request at ≤ 40 ms each
  (unfinished ones are counted and reported).
- Quick: 200 transfers; full: 1000 (the paper's count).

Known deviation (diagnosed, not tuned away): TCP's median is about one round trip through
the long flows' standing queue (≈ 4-5 ms at up to 700 KB), because the 20 KB connection keeps
its window between transfers (RFC 5681 restarts only after idle > RTO). The paper's 19 ms, and
DCTCP's < 1 ms, both match ≈ 3 round trips per transfer, i.e. a window that starts small for
each transfer in the paper's stack; the papers do not say why. DCTCP's completion times are
bimodal (full scale: modes at 0.80 and 1.10 ms, a quarter at ≤ 0.80 ms), and the median sits on
the boundary: host timing noise moves it between 0.85 ms and 1.07 ms, either side of the
paper's "< 1 ms".

Outputs: fig21_cdf.csv (protocol, qct_ms, cdf), fig21.csv (per-protocol statistics, long-flow
goodput, receiver-port queue), fig21.png/.svg.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from . import common as c
from . import incast as ic

ID = "dctcp-fig21"
TITLE = "DCTCP Fig. 21: 20 KB transfers behind 2 long flows (queue buildup), TCP vs DCTCP"
DESCRIPTION = "4 hosts: 2 long flows into a receiver that also fetches 20 KB chunks: CDF of the 20 KB completion time."

RESPONSE_BYTES = 20_000
RTO_MIN_MS = 10.0
QUERY_START_S = 0.2
SCALES = {
    "smoke": {"rounds": 20},
    "quick": {"rounds": 200},
    "full": {"rounds": 1000},
}
PAPER_TCP_MEDIAN_MS = 19.0
PAPER_DCTCP_MEDIAN_MS = 1.0  # "< 1 ms"


def scenarios(scale: str) -> list[tuple[str, dict]]:
    s = c.check_scale(scale, SCALES)
    duration = QUERY_START_S + s["rounds"] * 0.040 + 0.1
    return [
        (
            proto,
            ic.scenario(
                f"{ID}-{proto.lower()}",
                hosts=4,
                protocol=proto,
                rto_min_ms=RTO_MIN_MS,
                buffer=ic.TRIUMPH,
                duration_s=duration,
                flows=c.bulk_flows([1, 2], 0),
                queries=[ic.query(0, [3], RESPONSE_BYTES, s["rounds"], start_s=QUERY_START_S)],
            ),
        )
        for proto in ("TCP", "DCTCP")
    ]


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    s = c.check_scale(scale, SCALES)
    out = c.prepare_out(out_dir)
    plan = scenarios(scale)
    results = c.run_all([sc for _, sc in plan], jobs)
    stats, rows = {}, []
    fig, ax = c.figure(size=(6.4, 4.0))
    for (proto, _), res in zip(plan, results):
        st = ic.query_stats(res)
        p = c.port(res)
        st["long_flow_goodput_gbps"] = ic.bulk_goodput_gbps(res)
        st["receiver_port_mean_packets"] = float(p["mean_packets"])
        st["receiver_port_max_bytes"] = int(p["max_bytes"])
        stats[proto] = st
        v = ic.qct_ms(res)
        rows += ic.cdf_rows(proto, v)
        ic.cdf_plot(ax, v, f"{proto} (ours: median {st['p50_ms']:.2f} ms)", ic.COLORS[proto])
    pd.DataFrame(rows).to_csv(out / "fig21_cdf.csv", index=False)
    pd.DataFrame([{"protocol": p, **st} for p, st in stats.items()]).to_csv(
        out / "fig21.csv", index=False
    )
    ax.axvline(
        PAPER_DCTCP_MEDIAN_MS,
        color=ic.COLORS["DCTCP"],
        ls=":",
        lw=1,
        label="paper DCTCP median (< 1 ms)",
    )
    ax.axvline(
        PAPER_TCP_MEDIAN_MS, color=ic.COLORS["TCP"], ls=":", lw=1, label="paper TCP median (19 ms)"
    )
    ax.set_xscale("log")
    ax.set_xlabel("Completion time of short transfer (ms)")
    ax.set_ylabel("Cumulative Fraction")
    ax.set_ylim(0, 1.02)
    ax.set_title("20 KB transfers behind 2 long flows (ours)")
    ax.legend(loc="lower right", fontsize=7.5)
    c.note(ax, "paper: median DCTCP < 1 ms,\nTCP 19 ms; no timeouts", loc="center right")
    files = c.save_figure(fig, out, "fig21")

    d, t = stats["DCTCP"], stats["TCP"]
    ratio = t["p50_ms"] / d["p50_ms"] if d["p50_ms"] > 0 else float("nan")
    completed = d["completed"] + t["completed"]
    issued = d["issued"] + t["issued"]
    claims = [
        c.claim(
            "Queue buildup: DCTCP median 20 KB completion < 1 ms (claim 13)",
            "DCTCP median < 1 ms",
            f"DCTCP median {d['p50_ms']:.2f} ms (p95 {d['p95_ms']:.2f} ms)",
            d["p50_ms"] < 1.0,
        ),
        c.claim(
            "Queue buildup: TCP median > 10 × DCTCP median (claim 13)",
            f"TCP median {PAPER_TCP_MEDIAN_MS:g} ms vs DCTCP < 1 ms (> 19×)",
            f"TCP median {t['p50_ms']:.2f} ms = {c.fmt(ratio, 1)} × DCTCP's",
            ratio > 10.0,
        ),
        c.claim(
            "No 20 KB transfer suffers a timeout",
            "no flows suffered timeouts",
            f"timeout fraction DCTCP {d['timeout_fraction']:.3f}, TCP {t['timeout_fraction']:.3f}",
            d["timeout_fraction"] == 0.0 and t["timeout_fraction"] == 0.0,
        ),
        c.claim(
            "All transfers complete within the simulated horizon",
            f"{s['rounds']} transfers",
            f"{completed}/{issued} completed",
            completed == issued,
        ),
    ]
    metrics = {
        "rounds": s["rounds"],
        "stats": stats,
        "files": ["fig21_cdf.csv", "fig21.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
