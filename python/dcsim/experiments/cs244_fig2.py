"""CS244 '17 DCTCP reproduction (Ibanez, Kaffes), Figure 2: queue size over time, TCP vs DCTCP.

A reproduction, in ns-2 at 100 Mbps, of DCTCP paper Fig. 1.

Their setup (CS244 post; [EXT] scripts sibanez12/dctcp-ns2, spec experiments.md §3): two
senders, one switch, one receiver; "Each link is configured to have 100Mbps of capacity,
0.25ms of latency, and 200 packets of buffer space" (RTT 1 ms); DCTCP with K = 20 packets and
g = 0.0625, marking on every queue; TCP over drop-tail; ACK every packet; FTP sources start
at 0.1 s; queue of the switch→receiver port sampled every 10 ms; plotted over t ∈ [4, 9] s.

Published result (qualitative; spec §6 claim 27): "since TCP uses packet loss as the
congestion signal it maintains a large queue occupancy"; "DCTCP does indeed ensure that the
queue occupancy is very low". Expected: TCP oscillates up to the 200-packet limit, DCTCP
stays near K = 20. Claim 27 check: DCTCP p99 ≤ K + N + 5 and TCP median ≥ 5 × DCTCP median.

Our setup: `common.cs244` (100 Mbps links, 250 µs one-way, 200-packet queues at the switch
ports and host NICs, no framing as in ns-2, ACK every packet, initial window 2, marking on the instantaneous queue
of waiting packets as ns-2's RED does).

Hosts' stack: the `ns2` profile (ns-2.35's defaults: growth per ACK, RTO_min 200 ms, 10 ms
tick) with the scripts' agents [EXT]: DCTCP ran plain `Agent/TCP/FullTcp`, without SACK and
with `tcpTick_` 1 µs; TCP ran `Agent/TCP/Linux` (Reno, its module not selected) to a
`TCPSink/Sack1`, with SACK recovery (RFC 6675) and a 120 s `maxrto_` (`common.CS244_TCP`).

Assumptions: queue
sampled every 1 ms (finer than their 10 ms, same axes); statistics from the exact
time-weighted occupancy over the window. Both scales use their window [4, 9] s (100 Mbps
runs are cheap). ns-2's DCTCP starts with α = 0 (`common.NS2_DCTCP_TCP`).

Outputs: cs244_fig2_queue.csv (t_s, tcp_packets, dctcp_packets), cs244_fig2_queue.png/.svg.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from . import common as c

ID = "cs244-fig2"
TITLE = "CS244 Fig. 2: queue size over time, 2 flows, TCP vs DCTCP (ns-2 setup, 100 Mbps)"
DESCRIPTION = "Reproduction of DCTCP Fig. 1 at 100 Mbps / 1 ms RTT: TCP queue up to 200 packets, DCTCP near K = 20."

K = 20
SENDERS = 2
LINK_DELAY_US = 250.0
SAMPLE_US = 1000.0
SCALES = {
    "quick": {"warmup_s": 4.0, "duration_s": 9.0},
    "full": {"warmup_s": 4.0, "duration_s": 9.0},
}


def scenarios(scale: str) -> list[dict]:
    s = c.check_scale(scale, SCALES)
    return [
        c.cs244(
            f"{ID}-{name}",
            senders=SENDERS,
            k=k,
            link_delay_us=LINK_DELAY_US,
            duration_s=s["duration_s"],
            warmup_s=s["warmup_s"],
            queue_sample_us=SAMPLE_US,
        )
        for name, k in (("tcp", None), ("dctcp", K))
    ]


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    s = c.check_scale(scale, SCALES)
    out = c.prepare_out(out_dir)
    tcp, dctcp = c.run_all(scenarios(scale), jobs)
    t1, q_tcp, _ = c.queue_series(tcp, t_from=s["warmup_s"])
    t2, q_dctcp, _ = c.queue_series(dctcp, t_from=s["warmup_s"])
    n = min(len(t1), len(t2))
    df = pd.DataFrame({"t_s": t1[:n], "tcp_packets": q_tcp[:n], "dctcp_packets": q_dctcp[:n]})
    df.to_csv(out / "cs244_fig2_queue.csv", index=False)
    st = {"tcp": c.queue_stats(tcp), "dctcp": c.queue_stats(dctcp)}
    gp = {"tcp": c.goodput_bps(tcp) / 1e6, "dctcp": c.goodput_bps(dctcp) / 1e6}

    fig, ax = c.figure(size=(6.4, 3.8))
    ax.plot(df.t_s, df.tcp_packets, color="tab:red", lw=0.9, label="TCP (ours)")
    ax.plot(df.t_s, df.dctcp_packets, color="tab:blue", lw=0.9, label="DCTCP, K=20 (ours)")
    ax.axhline(c.CS244_BUFFER_PACKETS, color="tab:red", ls=":", lw=0.8)
    ax.axhline(K, color="tab:blue", ls=":", lw=0.8)
    ax.set_xlabel("time (sec)")
    ax.set_ylabel("queue size (packets)")
    ax.set_ylim(0, 230)
    ax.set_title("Queue Size over Time")
    ax.legend(loc="upper left", fontsize=8)
    c.note(
        ax,
        "CS244: TCP large queue (up to the 200-pkt buffer),\nDCTCP very low (≈ K = 20)\n"
        f"ours: median TCP {st['tcp']['median_packets']}, DCTCP {st['dctcp']['median_packets']} pkts;\n"
        f"goodput TCP {gp['tcp']:.1f}, DCTCP {gp['dctcp']:.1f} Mbps",
        loc="upper right",
    )
    files = c.save_figure(fig, out, "cs244_fig2_queue")

    bound = K + SENDERS + 5
    claims = [
        c.claim(
            "ns-2 100 Mbps: DCTCP queue ≈ K, TCP queue large (claim 27): DCTCP p99 ≤ K + N + 5 "
            "and TCP median ≥ 5 × DCTCP median",
            "qualitative: TCP large queue, DCTCP very low",
            f"DCTCP p99 {st['dctcp']['p99_packets']} pkts (bound {bound}); median TCP "
            f"{st['tcp']['median_packets']} vs DCTCP {st['dctcp']['median_packets']} pkts",
            st["dctcp"]["p99_packets"] <= bound
            and st["tcp"]["median_packets"] >= 5 * max(st["dctcp"]["median_packets"], 1),
        ),
    ]
    metrics = {
        "window_s": [s["warmup_s"], s["duration_s"]],
        "queue_packets": st,
        "goodput_mbps": gp,
        "timeouts": {"tcp": c.total(tcp, "timeouts"), "dctcp": c.total(dctcp, "timeouts")},
        "files": ["cs244_fig2_queue.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
