"""Judd (Morgan Stanley) slides, "Stability, Convergence, & Fairness: DCTCP": flows join and
leave a 10 Gbps bottleneck one at a time, DCTCP beside TCP.

Slide: a figure only (per-flow throughput vs time, no numbers, no setup). Spec
(experiments.md judd-stability-*): ASSUMPTION scenario "flows join and leave a 10 Gbps
bottleneck one at a time (as dctcp-fig16)"; expected, by analogy with DCTCP paper Fig. 16:
"DCTCP smooth and fair", TCP fair on average with large variation.

Our setup (judd_stability.py gives the details): the Judd testbed (``judd.fanin``: 10 Gbps
links, 5 µs each, a 5.5 MB port to the receiver, Linux hosts with RTO_min 200 ms and IW 10);
hosts 1-5 each send one long-lived flow to host 0; DCTCP (g = 1/16, α₀ = 1, minimum window 2)
over RED-ECN marking at K = 20 packets, hosts with the slides' fixes (``judd.FIXED_HOSTS``:
ECT on every packet as Linux's DCTCP sends them, so a joining flow's SYN is marked, not
dropped, above K); TCP =
CUBIC over drop-tail on the same schedule, for the comparison (judd-stability-tcp runs the
same two scenarios: a second run comes from the cache).

Assumptions:
- Schedule: dctcp-fig16's: flow i (i = 0..4) starts at i × 30 s and stops last in first out at
  (9 − i) × 30 s (270 s); quick compresses it 10× (3-s phases, 27 s). DCTCP converges within
  milliseconds here (W* = (C·RTT + K)/N ≈ 36/N packets), so the compression does not change its
  picture.
- Per phase: each flow's mean throughput after the first fifth of the phase, Jain's index
  over the active flows; variation = CoV (std/mean) of a flow's 100-ms throughput samples in
  the same settled part, averaged over the active flows and over the phases with ≥ 2 flows
  (dctcp-fig16's definitions; the 100-ms bin is ours, the slides' is NOT GIVEN).
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

from pathlib import Path

from . import common as c
from . import judd_stability as js

ID = "judd-stability-dctcp"
TITLE = "Judd slides: stability, convergence and fairness of DCTCP (five flows join and leave, 10 Gbps)"
DESCRIPTION = (
    "Five long flows join a 10 Gbps port 30 s apart and leave last in first out: per-flow throughput, Jain index and variation "
    "of DCTCP at K = 20, beside CUBIC."
)

SCALES = js.SCALES


def scenarios(scale: str) -> list[tuple[str, dict]]:
    """``(protocol, scenario)``: TCP and DCTCP on the same schedule."""
    return js.scenarios(scale)


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    c.check_scale(scale, SCALES)
    return js.run_five_flows(ID, scale, out_dir, jobs, focus="DCTCP")
