"""CS244 '17 DCTCP reproduction (Ibanez, Kaffes), Figure 3: queue length CDF, 2 and 20 flows.

A reproduction, in ns-2 at 100 Mbps, of DCTCP paper Fig. 13.

Their setup (CS244 post): 2 and 20 senders, TCP and DCTCP; "K=20 packets, g=0.0625, buffer
size of 200 packets, link capacity 100Mbps and round trip time of 1ms"; CDF of the
switch→receiver queue, 10-ms samples over t ∈ [4, 9] s.

Published result (qualitative): "DCTCP queue size being practically bounded by a very small
value"; "the CDF of TCP with 20 flows is increasing much more gradually than in the DCTCP
paper" (they blame synchronisation in the simulator). The check, for both N: DCTCP p99
≤ K + N + 5 and TCP median ≥ 5 × DCTCP median.

Our setup: the testbed's star (``testbeds.fanin``; see cs244-fig2), N = 2 and 20 senders.

Assumptions: as cs244-fig2 (the `ns2` profile with the scripts' agents). The CDF is the exact
time-weighted occupancy distribution over the window, not 10-ms samples. Both scales use
their window [4, 9] s.

Outputs: cs244_fig3_cdf.csv (protocol, flows, queue_packets, cdf), cs244_fig3_cdf.png/.svg.
"""

from __future__ import annotations

from typing import Any

from ...results import occupancy_cdf
from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from ..scenarios import RECEIVER_PORT
from ..units import mbps
from .testbeds import fanin, port_packets

K = 20
FLOWS = (2, 20)
LINK_DELAY_US = 250.0
STYLES = {
    ("TCP", 2): ("tab:red", "-"),
    ("TCP", 20): ("tab:red", "--"),
    ("DCTCP", 2): ("tab:blue", "-"),
    ("DCTCP", 20): ("tab:blue", "--"),
}


def scenarios(p: Params, tb: Testbed) -> dict[tuple[str, int], dict[str, Any]]:
    """``(protocol, flows)`` → scenario: TCP and DCTCP with 2 and 20 senders."""
    return {
        (proto, n): fanin(
            f"cs244-fig3-{proto.lower()}-n{n}",
            tb,
            senders=n,
            k=k,
            link_delay_us=LINK_DELAY_US,
            duration_s=p["duration_s"],
            warmup_s=p["warmup_s"],
        )
        for n in FLOWS
        for proto, k in (("TCP", None), ("DCTCP", K))
    }


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    rows, st, gp = [], {}, {}
    for (proto, n), res in runs.items():
        key = f"{proto.lower()}_n{n}"
        x, y = occupancy_cdf(res.occupancy(RECEIVER_PORT))
        rows += [{"protocol": proto, "flows": n, "queue_packets": int(a), "cdf": float(b)} for a, b in zip(x, y)]
        st[key] = res.queue_stats(RECEIVER_PORT)
        gp[key] = mbps(res.goodput_bps())
    return Metrics(
        values={
            "window_s": [runs.params["warmup_s"], runs.params["duration_s"]],
            "queue_packets": st,
            "goodput_mbps": gp,
            # The port's buffer on the testbed: the plot's range.
            "buffer_packets": port_packets(runs.testbed),
        },
        tables={"cs244_fig3_cdf": pd.DataFrame(rows)},
    )


def _queues(m: Metrics) -> tuple[bool, str]:
    st = m["queue_packets"]
    ok = {
        n: st[f"dctcp_n{n}"]["p99_packets"] <= K + n + 5
        and st[f"tcp_n{n}"]["median_packets"] >= 5 * max(st[f"dctcp_n{n}"]["median_packets"], 1)
        for n in FLOWS
    }
    measured = "; ".join(
        f"N={n}: DCTCP p99 {st[f'dctcp_n{n}']['p99_packets']} (bound {K + n + 5}), "
        f"median TCP {st[f'tcp_n{n}']['median_packets']} vs DCTCP "
        f"{st[f'dctcp_n{n}']['median_packets']} pkts"
        for n in FLOWS
    )
    return all(ok.values()), measured


CLAIMS = (
    Claim(
        id="dctcp-queue-bounded-tcp-queue-large",
        kind="paper",
        text=("ns-2 100 Mbps: DCTCP queue ≈ K, TCP queue large: for N = 2 and 20, DCTCP p99 ≤ K + N + 5 and TCP median ≥ 5 × DCTCP median"),
        paper="qualitative: DCTCP practically bounded by a very small value",
        quote="the DCTCP queue size being practically bounded by a very small value",
        section="Reproduction Methodology and Results (Fig. 3)",
        check=_queues,
    ),
)


def plot(m: Metrics) -> Any:
    cdf = m.tables["cs244_fig3_cdf"]
    fig, ax = figure(size=(6.4, 4.0))
    for n in FLOWS:
        for proto in ("TCP", "DCTCP"):
            curve = cdf[(cdf.protocol == proto) & (cdf.flows == n)]
            color, ls = STYLES[(proto, n)]
            x, y = curve.queue_packets.to_numpy(), curve.cdf.to_numpy()
            ax.step(x, y, where="post", color=color, ls=ls, label=f"{proto} {n} flows (ours)")
    ax.set_xlabel("queue size (packets)")
    ax.set_ylabel("CDF")
    ax.set_xlim(0, m["buffer_packets"] + 10)
    ax.set_ylim(0, 1.02)
    ax.set_title("Queue length CDF (100 Mbps, RTT 1 ms)")
    ax.legend(loc="lower right", fontsize=8)
    note(ax, "CS244: DCTCP practically bounded by a small value;\nTCP 20 flows rises gradually (synchronisation)", loc="center right")
    return fig


EXPERIMENT = Experiment(
    id="cs244-fig3",
    paper="cs244",
    figure="Fig. 3",
    title="queue length CDF, 2 and 20 flows, TCP vs DCTCP (ns-2 setup, 100 Mbps)",
    description="Reproduction of DCTCP Fig. 13 at 100 Mbps / 1 ms RTT: CDF of the queue for 2 and 20 flows.",
    testbed="cs244_ns2",
    scales={
        "quick": {"warmup_s": 4.0, "duration_s": 9.0},
        "full": {"warmup_s": 4.0, "duration_s": 9.0},
    },
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"cs244_fig3_cdf": plot},
    notes=__doc__ or "",
)
