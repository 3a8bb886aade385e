"""CS244 '17 DCTCP reproduction (Ibanez, Kaffes), Figure 4: throughput vs K at 100 Mbps, 40 ms RTT.

A reproduction, in ns-2, of DCTCP paper Fig. 14.

Their setup (CS244 post; [EXT] scripts, spec experiments.md cs244-fig4): 2 senders, "link
capacity of 100Mbps, RTT of 40ms, 1500 byte packets" (10 ms per link), 200-packet buffers;
K ∈ {1, 2, ..., 10, 15, 20, 25, 30, 40, 50, ..., 100}; TCP over drop-tail (K-independent);
throughput measured over t ∈ [4, 9] s.

Published result (spec §6 claim 28): the guideline K > C·RTT/7 predicts the throughput
"should stop depending on K after it exceeds about 45 packets" (DERIVED 333.3/7 = 47.6);
"Our simulations suggest that this analysis is indeed accurate. It also shows that DCTCP is
able to achieve the same or even better throughput than TCP when K is configured properly."
Check: tput(K ≥ 50) ≥ 0.97 × TCP and tput(K = 5) < tput(K = 50). Note (DERIVED): C·RTT =
333 packets exceeds the 200-packet buffer, so drop-tail TCP cannot keep the link full.

Our setup: `common.cs244` with 10 ms links (base RTT 40 ms), 2 senders.

Assumptions: as cs244_fig2 (the `ns2` profile with the scripts' agents). Throughput =
the flows' goodput (payload) over the window; with no framing its ceiling is 1460/1500 ×
100 = 97.3 Mbps. Both scales use their window [4, 9] s; full runs their 21 K values, quick
13 of them. α starts at 0 as in ns-2's DCTCP (`common.NS2_DCTCP_TCP`): with Linux's α = 1
the first marks after slow start halve the window, which then climbs back at one packet
per 40-ms RTT and has not reached its steady state (≈ 190 packets per flow at K = 50)
until ≈ 5 s, inside the measurement window.

Outputs: cs244_fig4_throughput.csv (K, protocol, goodput_mbps, ...),
cs244_fig4_throughput.png/.svg.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from . import common as c

ID = "cs244-fig4"
TITLE = "CS244 Fig. 4: throughput vs K, 2 flows (ns-2 setup, 100 Mbps, RTT 40 ms)"
DESCRIPTION = "Reproduction of DCTCP Fig. 14 at 100 Mbps / 40 ms RTT: DCTCP throughput stops depending on K beyond ~45 packets."

SENDERS = 2
LINK_DELAY_US = 10_000.0
RTT_US = 4 * LINK_DELAY_US
PAPER_KNEE = 45
SCALES = {
    "quick": {
        "warmup_s": 4.0,
        "duration_s": 9.0,
        "k": (1, 2, 3, 5, 10, 15, 20, 30, 40, 50, 60, 80, 100),
    },
    "full": {
        "warmup_s": 4.0,
        "duration_s": 9.0,
        "k": (*range(1, 11), 15, 20, 25, 30, 40, 50, 60, 70, 80, 90, 100),
    },
}


def scenarios(scale: str) -> list[tuple[int | None, dict]]:
    s = c.check_scale(scale, SCALES)
    return [
        (
            k,
            c.cs244(
                f"{ID}-" + ("tcp" if k is None else f"k{k}"),
                senders=SENDERS,
                k=k,
                link_delay_us=LINK_DELAY_US,
                duration_s=s["duration_s"],
                warmup_s=s["warmup_s"],
            ),
        )
        for k in (None, *s["k"])
    ]


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    s = c.check_scale(scale, SCALES)
    out = c.prepare_out(out_dir)
    plan = scenarios(scale)
    results = c.run_all([sc for _, sc in plan], jobs)
    rows = []
    for (k, _), res in zip(plan, results):
        qs = c.queue_stats(res)
        rows.append(
            {
                "K": k,
                "protocol": "TCP" if k is None else "DCTCP",
                "goodput_mbps": c.goodput_bps(res) / 1e6,
                "utilization": qs["utilization"],
                "median_queue_packets": qs["median_packets"],
                "drops": qs["drops"],
                "timeouts": c.total(res, "timeouts"),
            }
        )
    df = pd.DataFrame(rows)
    df.to_csv(out / "cs244_fig4_throughput.csv", index=False)
    tcp = float(df[df.protocol == "TCP"].goodput_mbps.iloc[0])
    dct = df[df.protocol == "DCTCP"].sort_values("K")
    tput = dict(zip(dct.K.astype(int), dct.goodput_mbps))
    bdp = c.bdp_packets(c.CS244_RATE_GBPS, RTT_US)
    k7 = c.k_guideline(bdp)

    fig, ax = c.figure(size=(6.4, 4.0))
    ax.plot(dct.K, dct.goodput_mbps, marker="o", ms=4, color="tab:blue", label="DCTCP (ours)")
    ax.axhline(tcp, color="tab:red", ls="--", lw=1, label="TCP (ours)")
    ax.axvline(k7, color="k", ls=":", lw=1)
    ax.text(
        k7,
        0.03,
        f" C·RTT/7 = {k7:.1f} (CS244: ≈ 45)",
        rotation=90,
        fontsize=7.5,
        va="bottom",
        ha="right",
        transform=ax.get_xaxis_transform(),
    )
    ax.set_xlabel("K (packets)")
    ax.set_ylabel("throughput (Mbps)")
    ax.set_ylim(0, 105)
    ax.set_title("Throughput vs K (100 Mbps, RTT 40 ms)")
    ax.legend(loc="lower right", fontsize=8)
    c.note(ax, "CS244: flat beyond K ≈ 45;\nDCTCP same or better than TCP", loc="center right")
    files = c.save_figure(fig, out, "cs244_fig4_throughput")

    hi = dct[dct.K >= 50]
    # "DCTCP ≥ TCP" means something only if TCP works as in their run. With a 200-packet
    # buffer = 0.6 C·RTT, synchronised Reno still keeps ≈ 95% of the link (its window spends
    # ≈ 1/4 of each cycle below C·RTT); ask for 0.8 × the ceiling.
    ceiling = c.goodput_ceiling_bps(c.CS244_RATE_GBPS, 0) / 1e6
    tcp_ok = tcp >= 0.8 * ceiling
    claims = [
        c.claim(
            "ns-2 100 Mbps, 40 ms RTT: DCTCP throughput independent of K beyond ≈ 45-48 packets and ≥ TCP "
            "there (claim 28): tput(K ≥ 50) ≥ 0.97 × TCP and tput(K=5) < tput(K=50)",
            "≈ 45 packets; DCTCP same or better than TCP",
            f"min tput(K≥50) {hi.goodput_mbps.min():.1f} vs TCP {tcp:.1f} Mbps; "
            f"K=5 {tput[5]:.1f}, K=50 {tput[50]:.1f} Mbps"
            + ("" if tcp_ok else f"; TCP reference below 0.8 × the {ceiling:.1f} Mbps ceiling"),
            tcp_ok and bool((hi.goodput_mbps >= 0.97 * tcp).all()) and tput[5] < tput[50],
        ),
    ]
    metrics = {
        "window_s": [s["warmup_s"], s["duration_s"]],
        "tcp_mbps": tcp,
        "goodput_ceiling_mbps": ceiling,
        "bdp_packets": bdp,
        "k_guideline": k7,
        "rows": df.to_dict(orient="records"),
        "files": ["cs244_fig4_throughput.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
