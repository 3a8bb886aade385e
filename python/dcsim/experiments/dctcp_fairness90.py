"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), §4.1: fairness with up to 90 flows.

Paper setup (§4.1, after the convergence test of Fig. 16: 6 hosts on 1 Gbps links to the
Triumph, K = 20, one receiver, five senders): "We have repeated this test with up to 90 flows,
and we find that DCTCP converges quickly, and all flows achieve their fair share (Jain's
fairness index is 0.99)". No figure; how the flows map to hosts, the flow counts below 90 and
the schedule are NOT GIVEN.

Published number: Jain's fairness index 0.99 (over per-flow average throughput). Checked as spec
§6 claim 8: DCTCP's Jain index ≥ 0.97 at every flow count.

Our setup: the Fig. 16 testbed (`dctcp_fig16`: `common.testbed` star of 6 hosts at 1 Gbps, base
RTT ≈ 100 µs, 38 B framing, Triumph preset buffer, RTO_min 300 ms, delayed ACK m = 2,
g = 1/16), DCTCP with K = 20; N ∈ {10, 30, 60, 90} long-lived flows into host 0. TCP NewReno
over drop-tail is run at the same counts for reference (the paper states nothing of it here).

Assumptions:
- Flows to hosts: "repeated this test" - the same 6 hosts, so the N flows come from the five
  senders in turn (flow i from host 1 + i mod 5: 18 flows per sender at N = 90). The receiver
  port is then the only bottleneck (a sender carries ≤ 1/5 of the link). The alternative, one
  host per flow, would need 91 ports on a 48-port switch.
- All flows start together (uniform start jitter of 1 ms, the testbed default), not 30 s apart:
  90 flows started 30 s apart would take 45 minutes each way.
- Flow counts below 90 NOT GIVEN: {10, 30, 60, 90}.
- Duration NOT GIVEN: full measures 30 s (one interval of Fig. 16) after a 2 s warm-up; quick
  measures 4 s after 1 s. Jain's index is over the flows' goodputs in that window.

What the index measures here: with N flows the window that fills the pipe up to K is
W* = (C·RTT + K)/N = (8 + 20)/N packets (§3.3), below DCTCP's 2-segment floor
(`tcp.dctcp_min_cwnd_segments`, Linux's) from N = 14 on. From there every flow sits at the
floor, the queue stands at ≈ 2N − C·RTT packets (always above K, every packet marked) and the
flows share the port in turn with equal windows: the index is then ≈ 1 by construction, and
checks that no flow is starved (no timeouts, no lock-out), not DCTCP's proportional control.
N = 10 (W* = 2.8) is the one count where the control law still acts.

Measured at full scale: DCTCP's Jain index 0.9998 at N = 10 and 1.0000 from N = 30 on, no
timeouts; TCP 0.984-0.999, with 1,161 and 3,140 timeouts at N = 60 and 90 (quick: 0.918-0.988).

Outputs: fairness90_flows.csv (protocol, flows, flow, src, goodput_mbps),
fairness90_jain.csv (protocol, flows, jain, total_mbps, min/max per-flow mbps, timeouts,
median queue, mean final cwnd in segments),
fairness90.png/.svg.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from . import common as c
from . import dctcp_fig16 as f16

ID = "dctcp-fairness90"
TITLE = "DCTCP §4.1: fairness with up to 90 flows (1 Gbps, K = 20), Jain's index"
DESCRIPTION = (
    "10 to 90 long-lived flows from five senders into one 1 Gbps receiver: Jain's index of per-flow throughput, DCTCP (TCP for "
    "reference)."
)

SENDERS = f16.FLOWS
COUNTS = (10, 30, 60, 90)
PAPER_JAIN = 0.99
SCALES = {
    "quick": {"warmup_s": 1.0, "duration_s": 5.0},
    "full": {"warmup_s": 2.0, "duration_s": 32.0},
}


def sender(i: int) -> int:
    """The host that sends flow ``i``: the five senders in turn."""
    return 1 + i % SENDERS


def scenarios(scale: str) -> list[tuple[str, int, dict]]:
    """``(protocol, flows, scenario)`` for every run."""
    s = c.check_scale(scale, SCALES)
    plan = []
    for proto, k in f16.PROTOCOLS:
        for n in COUNTS:
            sc = c.testbed(
                f"{ID}-{proto.lower()}-n{n}",
                senders=SENDERS,
                k=k,
                rate_gbps=f16.RATE_GBPS,
                duration_s=s["duration_s"],
                warmup_s=s["warmup_s"],
            )
            jitter = sc["flows"][0]["start_jitter_us"]
            sc["flows"] = c.bulk_flows([sender(i) for i in range(n)], 0, jitter_us=jitter)
            plan.append((proto, n, sc))
    return plan


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    s = c.check_scale(scale, SCALES)
    out = c.prepare_out(out_dir)
    plan = scenarios(scale)
    results = c.run_all([sc for *_, sc in plan], jobs)

    flow_rows, rows = [], []
    for (proto, n, _), res in zip(plan, results):
        g = np.asarray(res["flows"]["goodput_bps"], dtype=float) / 1e6
        flow_rows += [
            {"protocol": proto, "flows": n, "flow": i, "src": sender(i), "goodput_mbps": float(x)}
            for i, x in enumerate(g)
        ]
        rows.append(
            {
                "protocol": proto,
                "flows": n,
                "jain": c.jain(g),
                "total_mbps": float(g.sum()),
                "min_mbps": float(g.min()),
                "max_mbps": float(g.max()),
                "timeouts": c.total(res, "timeouts"),
                "median_queue_packets": c.queue_stats(res)["median_packets"],
                "mean_final_cwnd_segments": float(
                    np.mean(res["flows"]["final_cwnd_bytes"]) / c.MSS
                ),
            }
        )
    fdf, df = pd.DataFrame(flow_rows), pd.DataFrame(rows)
    fdf.to_csv(out / "fairness90_flows.csv", index=False)
    df.to_csv(out / "fairness90_jain.csv", index=False)
    jain = {p: df[df.protocol == p].set_index("flows").jain for p, _ in f16.PROTOCOLS}

    fig, (ax, bx) = c.figure(1, 2, size=(9.0, 3.8))
    for (proto, _), color in zip(f16.PROTOCOLS, ("tab:blue", "tab:red")):
        ax.plot(
            COUNTS, jain[proto].loc[list(COUNTS)], marker="o", color=color, label=f"{proto} (ours)"
        )
        d = fdf[(fdf.protocol == proto) & (fdf.flows == max(COUNTS))]
        share = d.goodput_mbps.sum() / len(d)
        bx.plot(
            np.arange(1, len(d) + 1),
            np.sort(d.goodput_mbps.to_numpy()) / share,
            color=color,
            label=f"{proto} (ours, Jain {jain[proto][max(COUNTS)]:.3f})",
        )
    ax.axhline(PAPER_JAIN, color="k", ls=":", lw=1, label=f"paper: DCTCP {PAPER_JAIN}")
    ax.axhline(0.97, color="grey", ls="--", lw=0.8, label="check: 0.97")
    ax.set_xlabel("Flows")
    ax.set_ylabel("Jain's fairness index")
    ax.set_ylim(min(0.5, float(df.jain.min()) - 0.05), 1.01)
    ax.set_title("Jain's index of per-flow throughput", fontsize=9)
    ax.legend(loc="lower left", fontsize=7)
    bx.axhline(1.0, color="k", ls=":", lw=1)
    bx.set_xlabel(f"Flow (sorted by throughput), {max(COUNTS)} flows")
    bx.set_ylabel("Throughput / fair share")
    bx.set_title(f"{max(COUNTS)} flows from {SENDERS} senders", fontsize=9)
    bx.legend(loc="upper left", fontsize=7)
    c.note(bx, f"paper: all flows achieve their fair share\n(Jain {PAPER_JAIN})", loc="lower right")
    files = c.save_figure(fig, out, "fairness90")

    dj = jain["DCTCP"]
    claims = [
        c.claim(
            "DCTCP shares fairly with up to 90 flows (claim 8): Jain's index over per-flow "
            f"throughput ≥ 0.97 at N = {', '.join(map(str, COUNTS))}",
            f"Jain {PAPER_JAIN}",
            "DCTCP "
            + ", ".join(f"N={n}: {dj[n]:.3f}" for n in COUNTS)
            + "; TCP "
            + ", ".join(f"N={n}: {jain['TCP'][n]:.3f}" for n in COUNTS),
            all(dj[n] >= 0.97 for n in COUNTS),
        ),
    ]
    metrics = {
        "window_s": [s["warmup_s"], s["duration_s"]],
        "jain": {p: {int(n): float(v) for n, v in j.items()} for p, j in jain.items()},
        "rows": df.to_dict(orient="records"),
        "files": ["fairness90_flows.csv", "fairness90_jain.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
