"""CS244 '17 DCTCP reproduction (Ibanez, Kaffes), Figure 2: queue size over time, TCP vs DCTCP.

A reproduction, in ns-2 at 100 Mbps, of DCTCP paper Fig. 1.

Their setup (CS244 post; their scripts, sibanez12/dctcp-ns2): two senders, one switch, one
receiver; "Each link is configured to have 100Mbps of capacity, 0.25ms of latency, and 200
packets of buffer space" (RTT 1 ms); DCTCP with K = 20 packets and g = 0.0625, marking on
every queue; TCP over drop-tail; ACK every packet; FTP sources start at 0.1 s; queue of the
switch→receiver port sampled every 10 ms; plotted over t ∈ [4, 9] s.

Published result (qualitative): "since TCP uses packet loss as the congestion signal it
maintains a large queue occupancy"; "DCTCP does indeed ensure that the queue occupancy is very
low". Expected: TCP oscillates up to the 200-packet limit, DCTCP stays near K = 20. The check:
DCTCP p99 ≤ K + N + 5 and TCP median ≥ 5 × DCTCP median.

Our setup: the testbed's star (``testbeds.fanin``: 100 Mbps links, 250 µs one-way, 200-packet
queues at the switch ports and host NICs, no framing as in ns-2, ACK every packet, initial
window 2, marking on the instantaneous queue of waiting packets as ns-2's RED does).

Hosts' stack: the `ns2` profile (ns-2.35's defaults: growth per ACK, RTO_min 200 ms, 10 ms
tick) with the scripts' agents: DCTCP ran plain `Agent/TCP/FullTcp`, without SACK and with
`tcpTick_` 1 µs; TCP ran `Agent/TCP/Linux` (Reno, its module not selected) to a
`TCPSink/Sack1`, with SACK recovery (RFC 6675) and a 120 s `maxrto_` (the testbed's
``tcp_by_cc``).

Assumptions: queue sampled every 1 ms (finer than their 10 ms, same axes); statistics from the
exact time-weighted occupancy over the window. Both scales use their window [4, 9] s (100 Mbps
runs are cheap). ns-2's DCTCP starts with α = 0 (the testbed's ``dctcp_alpha_init``).

Outputs: cs244_fig2_queue.csv (t_s, tcp_packets, dctcp_packets), cs244_fig2_queue.png/.svg.
"""

from __future__ import annotations

from typing import Any

from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from ..scenarios import RECEIVER_PORT
from ..units import mbps
from .testbeds import fanin, port_packets

K = 20
SENDERS = 2
LINK_DELAY_US = 250.0
SAMPLE_US = 1000.0


def scenarios(p: Params, tb: Testbed) -> dict[str, dict[str, Any]]:
    """``"tcp"`` and ``"dctcp"`` → scenario: the two senders with each protocol."""
    return {
        name: fanin(
            f"cs244-fig2-{name}",
            tb,
            senders=SENDERS,
            k=k,
            link_delay_us=LINK_DELAY_US,
            duration_s=p["duration_s"],
            warmup_s=p["warmup_s"],
            queue_sample_us=SAMPLE_US,
        )
        for name, k in (("tcp", None), ("dctcp", K))
    }


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    p = runs.params
    tcp, dctcp = runs["tcp"], runs["dctcp"]
    t1, q_tcp, _ = tcp.queue_series(RECEIVER_PORT, t_from=p["warmup_s"])
    t2, q_dctcp, _ = dctcp.queue_series(RECEIVER_PORT, t_from=p["warmup_s"])
    n = min(len(t1), len(t2))
    return Metrics(
        values={
            "window_s": [p["warmup_s"], p["duration_s"]],
            "queue_packets": {"tcp": tcp.queue_stats(RECEIVER_PORT), "dctcp": dctcp.queue_stats(RECEIVER_PORT)},
            "goodput_mbps": {"tcp": mbps(tcp.goodput_bps()), "dctcp": mbps(dctcp.goodput_bps())},
            "timeouts": {"tcp": tcp.total("timeouts"), "dctcp": dctcp.total("timeouts")},
            # The port's buffer on the testbed, drawn on the plot.
            "buffer_packets": port_packets(runs.testbed),
        },
        tables={"cs244_fig2_queue": pd.DataFrame({"t_s": t1[:n], "tcp_packets": q_tcp[:n], "dctcp_packets": q_dctcp[:n]})},
    )


def _queues(m: Metrics) -> tuple[bool, str]:
    st = m["queue_packets"]
    bound = K + SENDERS + 5
    measured = (
        f"DCTCP p99 {st['dctcp']['p99_packets']} pkts (bound {bound}); median TCP "
        f"{st['tcp']['median_packets']} vs DCTCP {st['dctcp']['median_packets']} pkts"
    )
    holds = st["dctcp"]["p99_packets"] <= bound and st["tcp"]["median_packets"] >= 5 * max(st["dctcp"]["median_packets"], 1)
    return holds, measured


CLAIMS = (
    Claim(
        id="dctcp-queue-low-tcp-queue-large",
        kind="paper",
        text="ns-2 100 Mbps: DCTCP queue ≈ K, TCP queue large: DCTCP p99 ≤ K + N + 5 and TCP median ≥ 5 × DCTCP median",
        paper="qualitative: TCP large queue, DCTCP very low",
        quote=(
            "since TCP uses packet loss as the congestion signal it maintains a large queue occupancy ... "
            "DCTCP does indeed ensure that the queue occupancy is very low"
        ),
        section="Reproduction Methodology and Results (Fig. 2)",
        check=_queues,
    ),
)


def plot(m: Metrics) -> Any:
    df, st, gp = m.tables["cs244_fig2_queue"], m["queue_packets"], m["goodput_mbps"]
    fig, ax = figure(size=(6.4, 3.8))
    ax.plot(df.t_s, df.tcp_packets, color="tab:red", lw=0.9, label="TCP (ours)")
    ax.plot(df.t_s, df.dctcp_packets, color="tab:blue", lw=0.9, label="DCTCP, K=20 (ours)")
    ax.axhline(m["buffer_packets"], color="tab:red", ls=":", lw=0.8)
    ax.axhline(K, color="tab:blue", ls=":", lw=0.8)
    ax.set_xlabel("time (sec)")
    ax.set_ylabel("queue size (packets)")
    ax.set_ylim(0, max(230, m["buffer_packets"] + 30))
    ax.set_title("Queue Size over Time")
    ax.legend(loc="upper left", fontsize=8)
    note(
        ax,
        "CS244: TCP large queue (up to the 200-pkt buffer),\nDCTCP very low (≈ K = 20)\n"
        f"ours: median TCP {st['tcp']['median_packets']}, DCTCP {st['dctcp']['median_packets']} pkts;\n"
        f"goodput TCP {gp['tcp']:.1f}, DCTCP {gp['dctcp']:.1f} Mbps",
        loc="upper right",
    )
    return fig


EXPERIMENT = Experiment(
    id="cs244-fig2",
    paper="cs244",
    figure="Fig. 2",
    title="queue size over time, 2 flows, TCP vs DCTCP (ns-2 setup, 100 Mbps)",
    description="Reproduction of DCTCP Fig. 1 at 100 Mbps / 1 ms RTT: TCP queue up to 200 packets, DCTCP near K = 20.",
    testbed="cs244_ns2",
    scales={
        "quick": {"warmup_s": 4.0, "duration_s": 9.0},
        "full": {"warmup_s": 4.0, "duration_s": 9.0},
    },
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"cs244_fig2_queue": plot},
    notes=__doc__ or "",
)
