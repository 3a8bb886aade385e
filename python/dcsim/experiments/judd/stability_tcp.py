"""Judd (Morgan Stanley) slides, "Stability, Convergence, & Fairness: TCP": flows join and
leave a 10 Gbps bottleneck one at a time, TCP (CUBIC over drop-tail) beside DCTCP.

Slide: a figure only (per-flow throughput vs time, no numbers, no setup). Our scenario is an
assumption: flows join and leave a 10 Gbps bottleneck one at a time, as in the DCTCP paper's
Fig. 16 (dctcp-fig16); expected, by analogy with that figure (DCTCP §4.1: "TCP throughput is
fair on average, but has much higher variation"): TCP fair on average with large variation,
DCTCP smooth and fair.

Our setup (the shared module judd/stability.py gives the details): the Judd testbed
(``testbeds.fanin``: 10 Gbps links, 5 µs each, a 5.5 MB port to the receiver, Linux hosts with
RTO_min 200 ms and IW 10); hosts 1-5 each send one long-lived flow to host 0; TCP = CUBIC over
drop-tail, DCTCP = RED-ECN marking at K = 20 with the slides' host fixes. Both protocols run,
so that TCP's variation is compared with DCTCP's on the same schedule (judd-stability-dctcp
declares the same two runs: they are simulated once).

Assumptions:
- Schedule: dctcp-fig16's: flow i (i = 0..4) starts at i × 30 s and stops last in first out
  at (9 − i) × 30 s (270 s); quick compresses it 10× (3-s phases, 27 s: about 4 s of wall time
  per run at the 10 Gbps packet rate).
- Five flows, as in Fig. 16; flows start exactly on the schedule (no jitter).
- Per phase: each flow's mean throughput after the first fifth of the phase, Jain's index
  over the active flows; variation = CoV (std/mean) of a flow's 100-ms throughput samples in
  the same settled part, averaged over the active flows and over the phases with ≥ 2 flows
  (dctcp-fig16's definitions; the 100-ms bin is ours, the slides' is not given).
- Checks (thresholds ours): "fair on average" = TCP's Jain ≥ 0.95 in every phase with ≥ 2
  flows (dctcp-fig16's "share fairly"); "large variation" = TCP's mean CoV ≥ 2 × DCTCP's.
- Time scale: with a 5.5 MB buffer CUBIC's windows reach ≈ 3700 packets and its epochs last
  seconds at 10 Gbps: a joining CUBIC flow overflows the buffer in slow start (a timeout or
  two at 200 ms) and then converges over several seconds. 3-s phases are too short for that:
  at quick scale TCP's phase averages are not fair (the first claim fails at quick scale,
  and at full scale too, in one phase), and within a phase CUBIC's shares drift slowly
  rather than oscillate, so its CoV is lower than at full scale. With drop-tail overflow the
  flows mostly lose in the same overflow and keep their ratio; a share moves when one flow
  loses alone.

Measured at full scale (30-s phases): TCP's Jain 0.928-0.996 per phase (the fairness claim
fails), mean CoV 0.194, 5.5 × DCTCP's 0.035; DCTCP's Jain ≥ 0.99996. At quick scale: TCP's
lowest Jain 0.910 (the claim fails), mean CoV 0.049 against DCTCP's 0.033 (1.5×: the
variation claim fails too).

Outputs: judd_stability_tcp_phases.csv (protocol, phase, start_s, end_s, active, flow_mbps -
the active flows' throughputs joined by ";" - total_mbps, jain, settled_s, fair_share_mbps,
cov), judd_stability_tcp_series.csv (protocol, flow, t_s, mbps per 100-ms interval),
judd_stability_tcp.png/.svg (TCP on top, DCTCP below).
"""

from __future__ import annotations

from typing import Any

from ..declarations import Claim, Experiment, Metrics, Runs
from .stability import (
    FIVE_FLOW_SCALES,
    TCP_COV_FACTOR,
    TCP_MIN_JAIN,
    five_flow_metrics,
    five_flow_scenarios,
    jains_and_covs,
    plot_five_flows,
    tcp_varies_more,
)

STEM = "judd_stability_tcp"
SLIDE = "Stability, Convergence, & Fairness: TCP"


def analyze(runs: Runs) -> Metrics:
    return five_flow_metrics(runs, STEM)


def _fair_on_average(m: Metrics) -> tuple[bool, str]:
    t = m["summary"]["TCP"]
    return t["worst_jain"] >= TCP_MIN_JAIN, f"TCP lowest Jain {t['worst_jain']:.3f} ({jains_and_covs(t['jains'])})"


def _varies_more(m: Metrics) -> tuple[bool, str]:
    return tcp_varies_more(m["summary"]["TCP"], m["summary"]["DCTCP"])


CLAIMS = (
    Claim(
        id="tcp-fair-on-average",
        kind="derived",
        text=(
            f"TCP is fair on average: TCP's Jain index ≥ {TCP_MIN_JAIN} in every phase with "
            "≥ 2 flows (phase-average throughputs after the first fifth of the phase)"
        ),
        paper="TCP fair on average (slide figure; DCTCP paper Fig. 16 analogue)",
        quote=SLIDE,
        section=f"slide '{SLIDE}'",
        check=_fair_on_average,
    ),
    Claim(
        id="tcp-varies-more-than-dctcp",
        kind="derived",
        text=f"TCP's throughput varies more than DCTCP's: TCP's mean CoV of 100-ms throughput samples ≥ {TCP_COV_FACTOR:g} × DCTCP's",
        paper="TCP: large variation; DCTCP: smooth",
        quote=SLIDE,
        section=f"slide '{SLIDE}'",
        check=_varies_more,
    ),
)


def plot(m: Metrics) -> Any:
    return plot_five_flows(m, STEM, focus="TCP")


EXPERIMENT = Experiment(
    id="judd-stability-tcp",
    paper="judd",
    figure="slides",
    title="stability, convergence and fairness of TCP (five flows join and leave, 10 Gbps)",
    description=(
        "Five long flows join a 10 Gbps port 30 s apart and leave last in first out: per-flow throughput, Jain index and variation "
        "of CUBIC over drop-tail, beside DCTCP."
    ),
    testbed="judd_testbed",
    scales=FIVE_FLOW_SCALES,
    scenarios=five_flow_scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={STEM: plot},
    notes=__doc__ or "",
)
