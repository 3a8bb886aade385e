"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), Figure 16: convergence test.

Paper setup (§4.1): "we set up 6 hosts connected via 1Gbps links to the Triumph switch. K was
set to 20. One of the hosts acts as a receiver, while the others act as senders. We start a
single long-lived flow, and then we sequentially start and then stop the other senders, spaced
by 30 seconds." Plots: per-flow throughput vs time, (a) DCTCP, (b) TCP.

Published result (§4.1, qualitative): "As DCTCP flows come and go, they quickly converge to
their fair share"; "TCP throughput is fair on average, but has much higher variation." Fair
share ≈ 950/n Mbps with n active flows (derived). Checked: DCTCP's Jain index ≥ 0.97 in every
phase with two or more flows, and DCTCP's throughput varies less than TCP's; and TCP's "fair on
average" as Jain ≥ 0.95 per phase.

Our setup: the testbed's star of 6 hosts at 1 Gbps (base RTT ≈ 100 µs, 38 B framing,
Triumph preset buffer, RTO_min 300 ms, delayed ACK m = 2, g = 1/16), hosts 1-5 each send one
long-lived flow to host 0; DCTCP with K = 20, and TCP NewReno over drop-tail. Each flow's
delivered bytes are sampled every 100 ms (`measure.flow_sample_us`).

Assumptions:
- Schedule (derived): flow i (i = 0..4) starts at i·30 s; the stop order is not given: last
  in, first out (an assumption), so flow i stops at (9 − i)·30 s and flow 0 runs to the end,
  270 s. Flows stop writing at their stop time and finish what they have sent.
- Quick scale compresses the schedule 15×: 2-s spacing, 18 s in all. TCP's 300 ms RTO_min,
  its sawtooth (about a second at 1 Gbps with a 700 KB buffer) and the 100 ms sampling do not
  shrink with it: a TCP timeout when a flow joins takes a large part of a 2-s phase, and
  TCP's phase averages are then far from fair (its claim can fail at quick scale only).
- Per phase (each stretch with a fixed set of active flows) a flow's throughput is its
  average from its delivered bytes, skipping the first fifth of the phase (the flows converge
  there); Jain's index is over the active flows (phases with one flow have none).
- Variation: the coefficient of variation (std/mean) of a flow's 100-ms throughput samples in
  the same settled part of a phase, averaged over the active flows and the phases with
  two or more flows. The 100-ms bin is ours (the paper's plotting interval is not given); it is
  the same at both scales.

Measured at full scale: DCTCP's Jain index ≥ 0.99993 in every phase, mean CoV 0.087 (0.035
with two flows, 0.09-0.12 with three to five: a window of (8 + 20)/n packets moves by one
packet); TCP's Jain ≥ 0.995 (fair on average), mean CoV 0.229.

Known deviation (traced), quick scale only: TCP's 2-flow phase (2-4 s) has Jain 0.500 (0.0
against 949 Mb/s), where the full run's 30-s phase has 0.995. The 2008 R2 stack does not limit
an application-limited window, so the lone first flow, held back only by its own 1 Gbps NIC (11
segments in flight), has a window that never binds. When the second flow starts, the first keeps
sending at its NIC's rate as the port fills: by 2.017 s it has 818 segments in flight, and the
port drops 807 of them and its fast retransmission (none of the second flow's). It waits for its
300 ms RTO. The second flow's window does not bind either: it sends at its NIC's line rate and
holds the port at its limit (467 packets, 5.75 ms), and with 1 µs of jitter its packets arrive
in step with the port's departures and take every place a departure frees; it loses no packet
until 4 s. Its NIC's clock runs about 35 ppm slow (NIC clocks are within ±100 ppm), so a place
opens about every 0.3 s: each RTO retransmission of the first flow gets in, and the two segments
slow-start retransmission sends next (cwnd 2) are dropped, every time: one segment per 306 ms, 7
timeouts from 2.32 to 4.15 s, until the third flow (4 s) makes the second lose packets too
(traced at the first two flows' senders and the receiver's port). A lock-out of the first flow,
decided by the hosts' timing: counter-run with 6 µs of jitter (half a packet time at 1 Gbps),
this phase has 0.955 (one timeout, then recovery), and the run's lowest is 0.908 (10-12 s, no
timeout: TCP's sawtooth, about a second long, does not average out in a 1.6-s window); with
12 µs, 0.825 (three timeouts of the first flow). The other phase below 0.95 (8-10 s, 0.745) also
has timeouts after a flow joins (8 s): four flows wait for an RTO at 8.67-8.70 s, and the first
flow once more at 9.22 s. The paper's 30-s phases are the full run's.

Outputs: fig16_phases.csv (protocol, phase, start_s, end_s, active, flow_mbps - the
active flows' throughputs joined by ";" - total_mbps, jain, settled_s, fair_share_mbps, cov),
fig16_series.csv (protocol, flow, t_s, mbps per sampling interval), fig16.png/.svg.
"""

from __future__ import annotations

from typing import Any

from ..analysis import last_in_first_out, phase_tables, settled_phase_rows
from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from .convergence import PROTOCOLS, SENDERS, senders_star

PAPER_SPACING_S = 30.0
SETTLE_FRACTION = 0.2
SAMPLE_S = 0.1


def scenarios(p: Params, tb: Testbed) -> dict[str, dict]:
    """Protocol → its run of the schedule."""
    win = last_in_first_out(SENDERS, p["spacing_s"])
    end = max(stop for _, stop in win)
    plan = {}
    for proto, k in PROTOCOLS:
        sc = senders_star(f"dctcp-fig16-{proto.lower()}", tb, k, duration_s=end, warmup_s=0.0)
        sc["flows"] = [
            {"src": i + 1, "dst": 0, "start_s": start} | ({"stop_s": stop} if stop < end else {}) for i, (start, stop) in enumerate(win)
        ]
        sc["measure"]["flow_sample_us"] = SAMPLE_S * 1e6
        plan[proto] = sc
    return plan


def analyze(runs: Runs) -> Metrics:
    spacing = runs.params["spacing_s"]
    win = last_in_first_out(SENDERS, spacing)
    df, sdf = phase_tables(
        ((proto, runs[proto]) for proto, _ in PROTOCOLS), lambda fs: settled_phase_rows(fs, win, SETTLE_FRACTION, SAMPLE_S)
    )
    df = df.drop(columns=["flows"])
    shared = df[df.active > 1]
    return Metrics(
        values={
            "spacing_s": spacing,
            "worst_jain": {p: float(shared[shared.protocol == p].jain.min()) for p, _ in PROTOCOLS},
            "mean_cov": {p: float(shared[shared.protocol == p]["cov"].mean()) for p, _ in PROTOCOLS},
            "phases": df.to_dict(orient="records"),
        },
        tables={"fig16_phases": df, "fig16_series": sdf},
    )


# --- claims -------------------------------------------------------------------------------


def _shared_jains(m: Metrics, proto: str) -> str:
    """Jain's index of each phase with two or more flows, for the measured text."""
    df = m.tables["fig16_phases"]
    shared = df[df.active > 1]
    return ", ".join(f"{j:.3f}" for j in shared[shared.protocol == proto].jain)


def _dctcp_converges(m: Metrics) -> tuple[bool, str]:
    dj, tj = m["worst_jain"]["DCTCP"], m["worst_jain"]["TCP"]
    return dj >= 0.97, f"DCTCP lowest Jain {dj:.3f} (" + _shared_jains(m, "DCTCP") + f"); TCP lowest {tj:.3f}"


def _tcp_varies_more(m: Metrics) -> tuple[bool, str]:
    mean_cov = m["mean_cov"]
    return mean_cov["DCTCP"] < mean_cov["TCP"], f"mean CoV DCTCP {mean_cov['DCTCP']:.3f} vs TCP {mean_cov['TCP']:.3f}"


def _tcp_fair_on_average(m: Metrics) -> tuple[bool, str]:
    tj = m["worst_jain"]["TCP"]
    return tj >= 0.95, f"TCP lowest Jain {tj:.3f} (" + _shared_jains(m, "TCP") + ")"


CLAIMS = (
    Claim(
        id="dctcp-converges-to-fair-share",
        kind="paper",
        text=("DCTCP flows converge to their fair share as flows come and go: DCTCP's Jain index ≥ 0.97 in every phase with ≥ 2 flows"),
        paper="quickly converge to their fair share (Jain 0.99 with up to 90 flows)",
        quote="As DCTCP flows come and go, they quickly converge to their fair share.",
        section="§4.1",
        check=_dctcp_converges,
    ),
    Claim(
        id="tcp-varies-more",
        kind="paper",
        text="TCP's throughput varies more than DCTCP's: mean CoV of 100-ms throughput samples, DCTCP < TCP",
        paper="TCP fair on average, but much higher variation",
        quote="TCP throughput is fair on average, but has much higher variation.",
        section="§4.1",
        check=_tcp_varies_more,
    ),
    Claim(
        id="tcp-fair-on-average",
        kind="paper",
        text="TCP is fair on average (§4.1): TCP's Jain index ≥ 0.95 in every phase with ≥ 2 flows",
        paper="TCP throughput is fair on average",
        quote="TCP throughput is fair on average",
        section="§4.1",
        check=_tcp_fair_on_average,
    ),
)


# --- plot ---------------------------------------------------------------------------------


def plot_throughput(m: Metrics) -> Any:
    sdf = m.tables["fig16_series"]
    fig, axes = figure(nrows=len(PROTOCOLS), size=(6.4, 6.4), sharex=True)
    for ax, (proto, _), tag in zip(axes, PROTOCOLS, "ab"):
        d = sdf[sdf.protocol == proto]
        for f, g in d.groupby("flow"):
            ax.plot(g.t_s, g.mbps, lw=0.8, label=f"flow {f + 1}")
        ax.set_ylabel("Throughput (Mbps)")
        ax.set_ylim(0, 1050)
        ax.set_title(
            f"({tag}) {proto} (ours: lowest Jain {m['worst_jain'][proto]:.3f}, mean CoV {m['mean_cov'][proto]:.3f})",
            fontsize=9,
        )
    axes[0].legend(loc="upper right", fontsize=6.5, ncol=5)
    note(axes[0], "paper: DCTCP flows quickly converge to their fair share", loc="lower left")
    note(axes[1], "paper: TCP fair on average, much higher variation", loc="lower left")
    axes[-1].set_xlabel(f"Time (s) (paper: flows {PAPER_SPACING_S:.0f} s apart)")
    return fig


EXPERIMENT = Experiment(
    id="dctcp-fig16",
    paper="dctcp",
    figure="Fig. 16",
    title="convergence test, five flows started and stopped 30 s apart (1 Gbps)",
    description=(
        "Five long flows into one receiver start 30 s apart, then stop last-in first-out: per-flow throughput, Jain index and "
        "variation, DCTCP vs TCP."
    ),
    testbed="dctcp_testbed",
    scales={
        "quick": {"spacing_s": 2.0},
        "full": {"spacing_s": PAPER_SPACING_S},
    },
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"fig16": plot_throughput},
    notes=__doc__ or "",
)
