"""Judd (Morgan Stanley) slides, "Stability, Convergence, & Fairness: DCTCP": flows join and
leave a 10 Gbps bottleneck one at a time, DCTCP beside TCP.

Slide: a figure only (per-flow throughput vs time, no numbers, no setup). Our scenario is an
assumption: flows join and leave a 10 Gbps bottleneck one at a time, as in the DCTCP paper's
Fig. 16 (dctcp-fig16); expected, by analogy with that figure (DCTCP §4.1: "As DCTCP flows
come and go, they quickly converge to their fair share"): DCTCP smooth and fair, TCP fair on
average with large variation.

Our setup (the shared module judd/stability.py gives the details): the Judd testbed
(``testbeds.fanin``: 10 Gbps links, 5 µs each, a 5.5 MB port to the receiver, Linux hosts with
RTO_min 200 ms and IW 10); hosts 1-5 each send one long-lived flow to host 0; DCTCP (g = 1/16,
α₀ = 1, minimum window 2) over RED-ECN marking at K = 20 packets, hosts with the slides' fixes
(``testbeds.FIXED_HOSTS``: ECT on every packet as Linux's DCTCP sends them, so a joining flow's
SYN is marked, not dropped, above K); TCP = CUBIC over drop-tail on the same schedule, for the
comparison (judd-stability-tcp declares the same two runs: they are simulated once).

Assumptions:
- Schedule: dctcp-fig16's: flow i (i = 0..4) starts at i × 30 s and stops last in first out at
  (9 − i) × 30 s (270 s); quick compresses it 10× (3-s phases, 27 s). DCTCP converges within
  milliseconds here (W* = (C·RTT + K)/N ≈ 36/N packets), so the compression does not change its
  picture.
- Per phase: each flow's mean throughput after the first fifth of the phase, Jain's index
  over the active flows; variation = CoV (std/mean) of a flow's 100-ms throughput samples in
  the same settled part, averaged over the active flows and over the phases with ≥ 2 flows
  (dctcp-fig16's definitions; the 100-ms bin is ours, the slides' is not given).
- Checks (thresholds ours): "fair" = DCTCP's Jain ≥ 0.99 in every phase with ≥ 2 flows;
  "smooth" = mean CoV ≤ 0.10, and below TCP's. A window of (16 + 20)/N packets moves by one
  packet, so the CoV grows with N (≈ 0.02 with two flows, ≈ 0.04 with five); at a 10-ms bin it
  would be ≈ 0.12.

Measured at full scale (30-s phases): DCTCP's Jain ≥ 0.99996 in every phase, mean CoV 0.035
(0.025 with two flows, 0.043 with five); TCP's Jain ≥ 0.928, mean CoV 0.194. At quick scale:
DCTCP's Jain ≥ 0.9998, mean CoV 0.033; TCP's 0.049.

Outputs: judd_stability_dctcp_phases.csv (protocol, phase, start_s, end_s, active,
flow_mbps - the active flows' throughputs joined by ";" - total_mbps, jain, settled_s,
fair_share_mbps, cov), judd_stability_dctcp_series.csv (protocol, flow, t_s, mbps per 100-ms
interval), judd_stability_dctcp.png/.svg (DCTCP on top, TCP below).
"""

from __future__ import annotations

from typing import Any

from ..declarations import Claim, Experiment, Metrics, Runs
from .stability import (
    DCTCP_MAX_COV,
    DCTCP_MIN_JAIN,
    FIVE_FLOW_SCALES,
    five_flow_metrics,
    five_flow_scenarios,
    jains_and_covs,
    plot_five_flows,
)

STEM = "judd_stability_dctcp"
SLIDE = "Stability, Convergence, & Fairness: DCTCP"


def analyze(runs: Runs) -> Metrics:
    return five_flow_metrics(runs, STEM)


def _fair(m: Metrics) -> tuple[bool, str]:
    t, d = m["summary"]["TCP"], m["summary"]["DCTCP"]
    measured = f"DCTCP lowest Jain {d['worst_jain']:.4f} ({jains_and_covs(d['jains'])}); TCP lowest {t['worst_jain']:.3f}"
    return d["worst_jain"] >= DCTCP_MIN_JAIN, measured


def _smooth(m: Metrics) -> tuple[bool, str]:
    d = m["summary"]["DCTCP"]
    return d["mean_cov"] <= DCTCP_MAX_COV, f"DCTCP mean CoV {d['mean_cov']:.3f} ({jains_and_covs(d['covs'])})"


def _varies_less(m: Metrics) -> tuple[bool, str]:
    t, d = m["summary"]["TCP"], m["summary"]["DCTCP"]
    return d["mean_cov"] < t["mean_cov"], f"mean CoV DCTCP {d['mean_cov']:.3f} vs TCP {t['mean_cov']:.3f}"


CLAIMS = (
    Claim(
        id="dctcp-fair-share-every-phase",
        kind="derived",
        text=(
            f"DCTCP flows converge to their fair share as flows come and go: DCTCP's Jain "
            f"index ≥ {DCTCP_MIN_JAIN} in every phase with ≥ 2 flows"
        ),
        paper="DCTCP fair (slide figure; DCTCP paper Fig. 16 analogue)",
        quote=SLIDE,
        section=f"slide '{SLIDE}'",
        check=_fair,
    ),
    Claim(
        id="dctcp-smooth",
        kind="derived",
        text=f"DCTCP is smooth: mean CoV of 100-ms throughput samples ≤ {DCTCP_MAX_COV:g} (phases with ≥ 2 flows)",
        paper="DCTCP smooth (slide figure)",
        quote=SLIDE,
        section=f"slide '{SLIDE}'",
        check=_smooth,
    ),
    Claim(
        id="dctcp-varies-less-than-tcp",
        kind="derived",
        text="DCTCP varies less than TCP: DCTCP's mean CoV < TCP's",
        paper="DCTCP smooth, TCP large variation",
        quote=SLIDE,
        section=f"slide '{SLIDE}'",
        check=_varies_less,
    ),
)


def plot(m: Metrics) -> Any:
    return plot_five_flows(m, STEM, focus="DCTCP")


EXPERIMENT = Experiment(
    id="judd-stability-dctcp",
    paper="judd",
    figure="slides",
    title="stability, convergence and fairness of DCTCP (five flows join and leave, 10 Gbps)",
    description=(
        "Five long flows join a 10 Gbps port 30 s apart and leave last in first out: per-flow throughput, Jain index and variation "
        "of DCTCP at K = 20, beside CUBIC."
    ),
    testbed="judd_testbed",
    scales=FIVE_FLOW_SCALES,
    scenarios=five_flow_scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={STEM: plot},
    notes=__doc__ or "",
)
