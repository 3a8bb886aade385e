"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), Figure 12: the §3.3 analysis vs simulation.

Paper setup (§3.3, Fig. 12 caption): NS-2; N = 2, 10 and 40 long-lived DCTCP flows "sharing a
10Gbps bottleneck, with a 100μs round-trip time"; K = 40 packets, g = 1/16. The figure
overlays the queue predicted by the analysis (the sawtooth of Fig. 11) on the simulated one.

Published result (qualitative): "the analysis is indeed a fairly accurate prediction of the
actual dynamics, especially when N is small (less than 10). For large N, as in the N = 40
case, de-synchronization of the flows leads to smaller queue variations than predicted".
Analytical targets (spec algorithms.md §4.3 M21, DERIVED with C·RTT = 83.3 packets):

    N   W*     α exact  A exact  A Eq.(8)  Q_max  Q_min exact  T_C (Eq. 9)
    2   61.7   0.182    11.4     11.1      42     30.6         5.55 RTT = 555 µs
    10  12.3   0.401    26.7     24.8      50     23.3         2.48 RTT = 248 µs
    40  3.08   0.725    59.2     49.7      80     20.8         1.24 RTT = 124 µs

Checked as spec §6 claim 7: simulated Q_max within ±20% of K + N for N = 2 and 10, and
simulated amplitude for N = 40 below the prediction (the analysis with α solved exactly from
Eq. 6, as drawn; the Eq. 8 closed form assumes W* >> 1, and W* ≈ 3 at N = 40).

Our setup: star of N + 1 hosts, every link 10 Gbps, 25 µs one-way (RTT = 100 µs of
propagation plus 2.4 µs of serialisation), no framing (ns-2 has none, so a packet is the
analysis's 1500 B), 2000-packet per-port buffer (never drops), ACK every packet, flows start
within 10 µs of each other.

Assumptions (spec experiments.md dctcp-fig12, all NOT GIVEN in the paper): 1500-B packets,
buffer ≥ 1000 packets, access links at 10 Gbps, ACK every packet (m = 1, [EXT] ns-2 DCTCP
sample script `ackRatio 1`), flows start together. Warm-up: spec ASSUMPTION 1 s (full
scale, then 0.2 s measured); quick warms up 50 ms and measures 50 ms (≈ 60-180 sawtooth
periods; the control loop settles within a few ms at a 0.1 ms RTT). The receiver's queue is
sampled every 1 µs (one 10-Gbps packet takes 1.2 µs).

ns-2 details we copy: the hosts run the `ns2` profile (FullTcp/Sack's defaults) without
`slow_start_restart_`, as the sample script does; DCTCP marking compares the number of
*waiting* packets with K (count_in_service = False) and α starts at 0 ([EXT] ns-2 DCTCP
patch, `common.NS2_DCTCP_TCP`).

Measurement: the period is the dominant frequency (FFT) of the sampled receiver-port queue;
the series is cut into consecutive windows of one period; Q_max, Q_min and the amplitude A
are the means of the windows' max, min and (max − min) (`common.sawtooth_measure`).
Predictions use the paper's C·RTT (RTT = 100 µs). The analysis counts the period in RTTs
(the window grows one packet per RTT), and an RTT includes the queueing delay: at Q ≈ 40
packets that is 48 µs on top of the 100 µs. So we compare periods in RTTs, dividing the
simulated period by 100 µs + mean queue / C, and draw the analytical sawtooth with
RTT = 100 µs + (Q_max − A/2) / C.

Outputs: fig12_queue.csv (N, t_s, sim_packets, analysis_packets; 5 ms per N),
fig12_summary.csv (predicted vs measured per N), fig12_queue.png/.svg.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import common as c

ID = "dctcp-fig12"
TITLE = "DCTCP Fig. 12: steady-state analysis vs simulation (10 Gbps, K = 40, N = 2/10/40)"
DESCRIPTION = "Simulated queue sawtooth at a 10 Gbps bottleneck vs the §3.3 analysis (Q_max = K+N, amplitude, period)."

K = 40
FLOWS = (2, 10, 40)
RATE_GBPS = 10.0
RTT_US = 100.0
SAMPLE_US = 1.0
PLOT_S = 0.005
SCALES = {
    "quick": {"warmup_s": 0.05, "duration_s": 0.1},
    "full": {"warmup_s": 1.0, "duration_s": 1.2},
}
# ns-2's FullTcp/Sack (the `ns2` profile: an ACK per segment) as the sample script runs it,
# without `slow_start_restart_`; α starts at 0 (common.NS2_DCTCP_TCP). No loss, so RTO_min
# is moot.
TCP = {"profile": "ns2", "slow_start_after_idle": False, "dctcp_g": 1.0 / 16.0, **c.NS2_DCTCP_TCP}


def scenarios(scale: str) -> list[dict]:
    s = c.check_scale(scale, SCALES)
    return [
        c.star(
            f"{ID}-n{n}",
            senders=n,
            cc="dctcp",
            aqm=c.dctcp_aqm(K, count_in_service=False),
            rate_gbps=RATE_GBPS,
            delay_us=RTT_US / 4,
            buffer=c.per_port_packets(2000),
            duration_s=s["duration_s"],
            warmup_s=s["warmup_s"],
            framing_bytes=0,
            tcp=TCP,
            queue_sample_us=SAMPLE_US,
            jitter_us=10.0,
        )
        for n in FLOWS
    ]


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    s = c.check_scale(scale, SCALES)
    out = c.prepare_out(out_dir)
    results = c.run_all(scenarios(scale), jobs)

    rows, summary = [], []
    per_n: dict[int, dict[str, Any]] = {}
    fig, axes = c.figure(len(FLOWS), 1, size=(6.4, 7.6))
    for ax, n, res in zip(axes, FLOWS, results):
        pred = c.dctcp_analysis(n, K, RATE_GBPS, RTT_US)
        t, q, _ = c.queue_series(res, t_from=s["warmup_s"])
        qs = c.queue_stats(res)
        rtt_sim_us = c.rtt_with_queue_us(RTT_US, qs["mean_packets"], RATE_GBPS)
        meas = c.sawtooth_measure(t, q, rtt_sim_us * 1e-6)
        meas["rtt_eff_us"] = rtt_sim_us
        meas["period_rtts"] = meas["period_s"] * 1e6 / rtt_sim_us
        meas["p99_minus_p1"] = qs["p99_packets"] - qs["p1_packets"]
        per_n[n] = {
            "predicted": pred,
            "measured": meas,
            "queue_packets": qs,
            "goodput_gbps": c.goodput_bps(res) / 1e9,
            "mean_final_alpha": float(np.mean(res["flows"]["final_alpha"])),
            "timeouts": c.total(res, "timeouts"),
        }
        summary.append(
            {
                "N": n,
                "Q_max_pred": pred["q_max"],
                "Q_max_sim": meas["q_max"],
                "A_pred_exact": pred["amplitude_exact"],
                "A_pred_eq8": pred["amplitude_approx"],
                "A_sim": meas["amplitude"],
                "p99_minus_p1_sim": meas["p99_minus_p1"],
                "Q_min_pred_exact": pred["q_min_exact"],
                "Q_min_sim": meas["q_min"],
                "period_rtts_pred_exact": pred["period_rtts_exact"],
                "period_rtts_pred_eq9": pred["period_rtts_approx"],
                "period_rtts_sim": meas["period_rtts"],
                "period_us_pred_eff": pred["period_us_eff"],
                "period_us_sim": meas["period_s"] * 1e6,
                "rtt_eff_us_pred": pred["rtt_eff_us"],
                "rtt_eff_us_sim": rtt_sim_us,
                "alpha_pred_exact": pred["alpha_exact"],
                "alpha_sim_final_mean": per_n[n]["mean_final_alpha"],
                "goodput_gbps": per_n[n]["goodput_gbps"],
            }
        )

        # Plot a 5 ms window. The analytical sawtooth (exact α) has period T_C RTTs, an RTT
        # being the base RTT plus the mean predicted queue; it drops where the simulated
        # queue first peaks, so the phases match at the left edge.
        sel = t <= t[0] + PLOT_S if len(t) else np.zeros(0, dtype=bool)
        tw, qw = t[sel], q[sel]
        period_s = pred["period_us_eff"] * 1e-6
        if len(tw):
            first = tw <= tw[0] + period_s
            t_drop = tw[first][np.argmax(qw[first])] + 0.5 * SAMPLE_US * 1e-6
        else:
            t_drop = 0.0
        ana = c.sawtooth(tw, pred["q_max"], pred["amplitude_exact"], period_s, t_drop)
        rows += [
            {"N": n, "t_s": a, "sim_packets": b, "analysis_packets": x}
            for a, b, x in zip(tw, qw, ana)
        ]
        x_ms = (tw - (tw[0] if len(tw) else 0.0)) * 1e3
        ax.plot(x_ms, qw, color="tab:blue", lw=0.8, label="simulation (ours)")
        ax.plot(x_ms, ana, color="k", ls="--", lw=1.0, label="analysis (§3.3, exact α)")
        ax.axhline(K, color="grey", ls=":", lw=0.8)
        ax.set_ylabel("Queue Length (packets)")
        ax.set_title(f"N = {n}", fontsize=9)
        ax.set_ylim(0, max(pred["q_max"], float(qw.max()) if len(qw) else 0) * 1.25 + 12)
        c.note(
            ax,
            f"analysis: Q_max {pred['q_max']:.0f}, A {pred['amplitude_exact']:.1f} "
            f"(Eq.8 {pred['amplitude_approx']:.1f}), T {pred['period_rtts_exact']:.2f} RTT\n"
            f"ours: Q_max {c.fmt(meas['q_max'])}, A {c.fmt(meas['amplitude'])}, "
            f"T {c.fmt(meas['period_rtts'], 2)} RTT (RTT incl. queue {rtt_sim_us:.0f} µs)",
            loc="lower right",
        )
        if n == FLOWS[0]:
            ax.legend(loc="upper left", fontsize=7.5, ncol=2)
    axes[-1].set_xlabel("Time (ms)")
    pd.DataFrame(rows).to_csv(out / "fig12_queue.csv", index=False)
    summ = pd.DataFrame(summary)
    summ.to_csv(out / "fig12_summary.csv", index=False)
    files = c.save_figure(fig, out, "fig12_queue")

    qmax_ok = {n: abs(per_n[n]["measured"]["q_max"] - (K + n)) <= 0.2 * (K + n) for n in (2, 10)}
    # "Predicted" = the analysis as drawn: A = N(W*+1)α/2 with α solving Eq. (6) ("Equation
    # (6) can be used to compute α"); Eq. (8)'s closed form (valid for W* >> 1, not at N = 40
    # where W* ≈ 3) is reported beside it.
    m40, p40 = per_n[40]["measured"], per_n[40]["predicted"]
    claims = [
        c.claim(
            "Steady-state analysis (claim 7): simulated Q_max within ±20% of K + N for N = 2, 10; "
            "simulated amplitude at N = 40 below the prediction",
            f"Q_max = K+N = 42, 50; A(N=40) = {p40['amplitude_exact']:.1f} (exact α; Eq. 8 closed form "
            f'{p40["amplitude_approx"]:.1f}); "smaller queue variations than predicted" at N = 40',
            "; ".join(
                f"N={n}: Q_max {c.fmt(per_n[n]['measured']['q_max'])}, "
                f"A {c.fmt(per_n[n]['measured']['amplitude'])} (pred {per_n[n]['predicted']['amplitude_exact']:.1f}), "
                f"T {c.fmt(per_n[n]['measured']['period_rtts'], 2)} RTT "
                f"(pred {per_n[n]['predicted']['period_rtts_exact']:.2f})"
                for n in FLOWS
            )
            + f"; N=40 p99−p1 {m40['p99_minus_p1']} pkts",
            all(qmax_ok.values()) and m40["amplitude"] < p40["amplitude_exact"],
        ),
    ]
    metrics = {
        "window_s": [s["warmup_s"], s["duration_s"]],
        "per_n": {str(n): v for n, v in per_n.items()},
        "summary": summ.to_dict(orient="records"),
        "files": ["fig12_queue.csv", "fig12_summary.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
