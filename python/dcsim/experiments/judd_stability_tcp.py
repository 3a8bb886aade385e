"""Judd (Morgan Stanley) slides, "Stability, Convergence, & Fairness: TCP": flows join and
leave a 10 Gbps bottleneck one at a time, TCP (CUBIC over drop-tail) beside DCTCP.

Slide: a figure only (per-flow throughput vs time, no numbers, no setup). Spec
(experiments.md judd-stability-*): ASSUMPTION scenario "flows join and leave a 10 Gbps
bottleneck one at a time (as dctcp-fig16)"; expected, by analogy with DCTCP paper Fig. 16:
"TCP fair on average with large variation", DCTCP smooth and fair.

Our setup (judd_stability.py gives the details): the Judd testbed (``judd.fanin``: 10 Gbps
links, 5 µs each, a 5.5 MB port to the receiver, Linux hosts with RTO_min 200 ms and IW 10);
hosts 1-5 each send one long-lived flow to host 0; TCP = CUBIC over drop-tail, DCTCP =
RED-ECN marking at K = 20 with the slides' host fixes. Both protocols run, so that TCP's
variation is compared with DCTCP's on the same schedule (judd-stability-dctcp runs the same
two scenarios: a second run comes from the cache).

Assumptions:
- Schedule: dctcp-fig16's, the spec's "as dctcp-fig16": flow i (i = 0..4) starts at i × 30 s
  and stops last in first out at (9 − i) × 30 s (270 s); quick compresses it 10× (3-s
  phases, 27 s: about 4 s of wall time per run at the 10 Gbps packet rate).
- Five flows, as in Fig. 16; flows start exactly on the schedule (no jitter).
- Per phase: each flow's mean throughput after the first fifth of the phase, Jain's index
  over the active flows; variation = CoV (std/mean) of a flow's 100-ms throughput samples in
  the same settled part, averaged over the active flows and over the phases with ≥ 2 flows
  (dctcp-fig16's definitions; the 100-ms bin is ours, the slides' is NOT GIVEN).
- Checks (thresholds ours): "fair on average" = TCP's Jain ≥ 0.95 in every phase with ≥ 2
  flows (dctcp-fig16's and spec claim 24's "share fairly"); "large variation" = TCP's mean
  CoV ≥ 2 × DCTCP's.
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

from pathlib import Path

from . import common as c
from . import judd_stability as js

ID = "judd-stability-tcp"
TITLE = "Judd slides: stability, convergence and fairness of TCP (five flows join and leave, 10 Gbps)"
DESCRIPTION = (
    "Five long flows join a 10 Gbps port 30 s apart and leave last in first out: per-flow throughput, Jain index and variation "
    "of CUBIC over drop-tail, beside DCTCP."
)

SCALES = js.SCALES


def scenarios(scale: str) -> list[tuple[str, dict]]:
    """``(protocol, scenario)``: TCP and DCTCP on the same schedule."""
    return js.scenarios(scale)


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    c.check_scale(scale, SCALES)
    return js.run_five_flows(ID, scale, out_dir, jobs, focus="TCP")
