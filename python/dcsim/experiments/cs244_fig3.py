"""CS244 '17 DCTCP reproduction (Ibanez, Kaffes), Figure 3: queue length CDF, 2 and 20 flows.

A reproduction, in ns-2 at 100 Mbps, of DCTCP paper Fig. 13.

Their setup (CS244 post; spec experiments.md cs244-fig3): 2 and 20 senders, TCP and DCTCP;
"K=20 packets, g=0.0625, buffer size of 200 packets, link capacity 100Mbps and round trip
time of 1ms"; CDF of the switch→receiver queue, 10-ms samples over t ∈ [4, 9] s.

Published result (qualitative; spec §6 claim 27): "DCTCP queue size being practically bounded
by a very small value"; "the CDF of TCP with 20 flows is increasing much more gradually than
in the DCTCP paper" (they blame synchronisation in the simulator). Claim 27 check, for both
N: DCTCP p99 ≤ K + N + 5 and TCP median ≥ 5 × DCTCP median.

Our setup: `common.cs244` (see cs244_fig2), N = 2 and 20 senders.

Assumptions: as cs244_fig2 (the `ns2` profile with the scripts' agents). The CDF is the exact
time-weighted occupancy distribution over the window, not 10-ms samples. Both scales use
their window [4, 9] s.

Outputs: cs244_fig3_cdf.csv (protocol, flows, queue_packets, cdf), cs244_fig3_cdf.png/.svg.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from . import common as c

ID = "cs244-fig3"
TITLE = "CS244 Fig. 3: queue length CDF, 2 and 20 flows, TCP vs DCTCP (ns-2 setup, 100 Mbps)"
DESCRIPTION = (
    "Reproduction of DCTCP Fig. 13 at 100 Mbps / 1 ms RTT: CDF of the queue for 2 and 20 flows."
)

K = 20
FLOWS = (2, 20)
LINK_DELAY_US = 250.0
SCALES = {
    "quick": {"warmup_s": 4.0, "duration_s": 9.0},
    "full": {"warmup_s": 4.0, "duration_s": 9.0},
}


def scenarios(scale: str) -> list[tuple[str, int, dict]]:
    s = c.check_scale(scale, SCALES)
    return [
        (
            proto,
            n,
            c.cs244(
                f"{ID}-{proto.lower()}-n{n}",
                senders=n,
                k=k,
                link_delay_us=LINK_DELAY_US,
                duration_s=s["duration_s"],
                warmup_s=s["warmup_s"],
            ),
        )
        for n in FLOWS
        for proto, k in (("TCP", None), ("DCTCP", K))
    ]


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    s = c.check_scale(scale, SCALES)
    out = c.prepare_out(out_dir)
    plan = scenarios(scale)
    results = c.run_all([sc for *_, sc in plan], jobs)

    rows, st, gp = [], {}, {}
    fig, ax = c.figure(size=(6.4, 4.0))
    styles = {
        ("TCP", 2): ("tab:red", "-"),
        ("TCP", 20): ("tab:red", "--"),
        ("DCTCP", 2): ("tab:blue", "-"),
        ("DCTCP", 20): ("tab:blue", "--"),
    }
    for (proto, n, _), res in zip(plan, results):
        key = f"{proto.lower()}_n{n}"
        occ = c.port(res)["occupancy_time_s"]
        x, y = c.occupancy_cdf(occ)
        rows += [
            {"protocol": proto, "flows": n, "queue_packets": int(a), "cdf": float(b)}
            for a, b in zip(x, y)
        ]
        st[key] = c.queue_stats(res)
        gp[key] = c.goodput_bps(res) / 1e6
        color, ls = styles[(proto, n)]
        ax.step(x, y, where="post", color=color, ls=ls, label=f"{proto} {n} flows (ours)")
    pd.DataFrame(rows).to_csv(out / "cs244_fig3_cdf.csv", index=False)
    ax.set_xlabel("queue size (packets)")
    ax.set_ylabel("CDF")
    ax.set_xlim(0, c.CS244_BUFFER_PACKETS + 10)
    ax.set_ylim(0, 1.02)
    ax.set_title("Queue length CDF (100 Mbps, RTT 1 ms)")
    ax.legend(loc="lower right", fontsize=8)
    c.note(
        ax,
        "CS244: DCTCP practically bounded by a small value;\n"
        "TCP 20 flows rises gradually (synchronisation)",
        loc="center right",
    )
    files = c.save_figure(fig, out, "cs244_fig3_cdf")

    ok = {
        n: st[f"dctcp_n{n}"]["p99_packets"] <= K + n + 5
        and st[f"tcp_n{n}"]["median_packets"] >= 5 * max(st[f"dctcp_n{n}"]["median_packets"], 1)
        for n in FLOWS
    }
    claims = [
        c.claim(
            "ns-2 100 Mbps: DCTCP queue ≈ K, TCP queue large (claim 27): for N = 2 and 20, "
            "DCTCP p99 ≤ K + N + 5 and TCP median ≥ 5 × DCTCP median",
            "qualitative: DCTCP practically bounded by a very small value",
            "; ".join(
                f"N={n}: DCTCP p99 {st[f'dctcp_n{n}']['p99_packets']} (bound {K + n + 5}), "
                f"median TCP {st[f'tcp_n{n}']['median_packets']} vs DCTCP "
                f"{st[f'dctcp_n{n}']['median_packets']} pkts"
                for n in FLOWS
            ),
            all(ok.values()),
        ),
    ]
    metrics = {
        "window_s": [s["warmup_s"], s["duration_s"]],
        "queue_packets": st,
        "goodput_mbps": gp,
        "files": ["cs244_fig3_cdf.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
