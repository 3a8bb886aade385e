"""The slides' 19-sender runs, which judd-throughput-fairness and judd-latency-table both
measure: one builder, so the two experiments share their simulations through the run cache.

The setup ("Throughput, Fairness, & Latency": 19 senders → switch → 10 Gbps receiver): hosts
1..19 each send one long-lived flow to host 0 (:func:`testbeds.fanin`); host 20 answers the
receiver's latency probe, a 64-B request and a 64-B response over one persistent connection
of the run's transport, Poisson, one every 1 ms on average from the end of the warm-up. "TCP"
is CUBIC over drop-tail; "DCTCP+" is DCTCP over RED-ECN marking at K with the slides' fixes
(:data:`testbeds.FIXED_HOSTS`: ECT on every packet).
"""

from __future__ import annotations

import math
from typing import Any

from ..declarations import Params, Testbed
from .testbeds import fanin
from .transports import DCTCP, TCP, Transport

SENDERS = 19
# The latency probe: host 20 answers the receiver's pings.
PROBE_HOST = SENDERS + 1
PROBE_BYTES = 64
PROBE_INTERVAL_MS = 1.0
QUEUE_SAMPLE_US = 1000.0
FLOW_SAMPLE_US = 100_000.0
PROTOCOL_SETUPS: dict[str, Transport] = {"TCP": TCP, "DCTCP+": DCTCP}
PROTOCOLS = ("TCP", "DCTCP+")
SCALES = {
    "quick": {"duration_s": 5.0, "warmup_s": 1.0},
    "full": {"duration_s": 32.0, "warmup_s": 2.0},
}
COLORS = {"TCP": "#d62728", "DCTCP+": "#1f77b4"}


def scenario(proto: str, p: Params, tb: Testbed) -> dict[str, Any]:
    """The 19-sender run of ``proto`` ("TCP" or "DCTCP+") at the scale's ``p``.

    Flows are listed sender by sender (flow i is host i + 1's), the probe's connection last;
    the queue builds at the receiver's port ("s0->h0"), sampled every ``QUEUE_SAMPLE_US``;
    flows are sampled every ``FLOW_SAMPLE_US``."""
    cc, aqm, hosts = PROTOCOL_SETUPS[proto]
    slug = proto.lower().replace("+", "plus")
    sc = fanin(
        f"judd-throughput-fairness-{slug}",
        tb,
        senders=SENDERS,
        cc=cc,
        aqm=aqm,
        duration_s=p["duration_s"],
        warmup_s=p["warmup_s"],
        tcp=dict(hosts),
        queue_sample_us=QUEUE_SAMPLE_US,
        flow_sample_us=FLOW_SAMPLE_US,
    )
    sc["topology"]["hosts"] += 1
    probes = math.ceil((p["duration_s"] - p["warmup_s"]) / (PROBE_INTERVAL_MS * 1e-3))
    sc["queries"] = [
        {
            "client": 0,
            "servers": [PROBE_HOST],
            "request_bytes": PROBE_BYTES,
            "response_bytes": PROBE_BYTES,
            "rounds": probes,
            "start_s": p["warmup_s"],
            "stop_s": p["duration_s"],
            "arrival": {"kind": "poisson", "mean_interval_ms": PROBE_INTERVAL_MS},
        }
    ]
    return sc


def scenarios(p: Params, tb: Testbed) -> dict[str, dict[str, Any]]:
    """Protocol → its 19-sender run."""
    return {proto: scenario(proto, p, tb) for proto in PROTOCOLS}
