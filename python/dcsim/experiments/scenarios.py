"""Scenario pieces the experiments of several papers share: the fan-in of long flows into one
receiver on a testbed's star, and the switch's AQMs.

A scenario here is the plain dict of the scenario format (``dcsim schema``); the testbed
(:class:`~dcsim.experiments.declarations.Testbed`) gives the hosts' stack and model, the
switch buffer for the line rate and the links, and an experiment's own settings go on top.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..scenario import long_flows, star
from .declarations import Testbed

# The receiver (host 0) hangs off this switch port: where a fan-in's queue builds.
RECEIVER_PORT = "s0->h0"

DROP_TAIL: dict[str, Any] = {"kind": "drop_tail"}


def threshold(k: int, count_in_service: bool = True) -> dict[str, Any]:
    """DCTCP marking at the switch: CE when the instantaneous queue exceeds K packets on
    arrival (DCTCP paper §3.1). ``count_in_service``: the packet being sent counts (a switch's
    buffer occupancy; ns-2's queue length does not count it)."""
    return {"kind": "threshold", "k_packets": int(k), "count_in_service": bool(count_in_service)}


def red(min_th: float, max_th: float, max_p: float = 0.1, weight_log2: int = 9) -> dict[str, Any]:
    """RED on the average queue, marking ECT packets (Floyd and Jacobson 1993; DCTCP paper
    footnotes 5 and 8): thresholds in packets, w_q = 2^-weight_log2 ("weight = 9" in the
    guideline the DCTCP paper cites)."""
    return {
        "kind": "red",
        "min_th": float(min_th),
        "max_th": float(max_th),
        "max_p": float(max_p),
        "weight_log2": int(weight_log2),
        "ecn": True,
    }


def per_port_packets(limit_packets: int) -> dict[str, Any]:
    """A static buffer of ``limit_packets`` on every switch port."""
    return {"kind": "per_port", "limit_packets": int(limit_packets)}


def fan_in(
    name: str,
    testbed: Testbed,
    *,
    senders: int,
    cc: str | None,
    aqm: dict[str, Any],
    rate_gbps: float,
    duration_s: float,
    warmup_s: float,
    buffer: dict[str, Any] | None = None,
    link: dict[str, Any] | None = None,
    tcp: dict[str, Any] | None = None,
    host: dict[str, Any] | None = None,
    queue_sample_us: float = 0.0,
    flow_sample_us: float = 0.0,
    jitter_us: float = 100.0,
    start_s: float = 0.0,
    seed: int = 1,
) -> dict[str, Any]:
    """A star of ``senders + 1`` hosts on ``testbed``: hosts 1..senders each send one
    long-lived flow to host 0 with congestion control ``cc`` (None: the stack's TCP), opening
    at ``start_s`` within ``jitter_us``. The switch buffer is the testbed's for ``rate_gbps``
    unless ``buffer`` is given; ``link``, ``tcp`` and ``host`` set fields over the testbed's.
    Only the receiver's port, :data:`RECEIVER_PORT`, where the queue builds, is sampled. With
    one link delay d the base RTT is 4·d (two hops each way)."""
    lk = testbed.link_at(rate_gbps, **(link or {}))
    sc = star(
        int(senders) + 1,
        rate_gbps=float(lk.pop("rate_gbps")),
        delay_us=float(lk.pop("delay_us")),
        framing_bytes=int(lk.pop("framing_bytes")),
    )
    sc["topology"]["link"].update(lk)
    return {
        "name": name,
        "sim": {"seed": int(seed), "duration_s": float(duration_s), "warmup_s": float(warmup_s)},
        **sc,
        "switch": {"buffer": dict(buffer or testbed.buffer(rate_gbps)), "aqm": dict(aqm)},
        "host": {**testbed.host_at(rate_gbps), **(host or {})},
        "tcp": testbed.tcp_for(cc, **(tcp or {})),
        "flows": long_flows(range(1, int(senders) + 1), 0, start_s=float(start_s), start_jitter_us=float(jitter_us)),
        "measure": {
            "queue_sample_us": float(queue_sample_us),
            "queue_ports": [RECEIVER_PORT],
            "flow_sample_us": float(flow_sample_us),
        },
    }


# The engine's shared-memory presets (`SwitchPreset::shared_buffer`): memory B, bytes, and the
# dynamic threshold's α (a test holds them equal to what a run reports).
SHARED_PRESETS: dict[str, tuple[int, float]] = {
    "triumph": (4_000_000, 700.0 / 3300.0),
    "scorpion": (4_000_000, 700.0 / 3300.0),
    "cat4948": (16_000_000, 700.0 / 3300.0),
    "quanta_lb4g": (4_000_000, 128.5 / 3871.5),
}


def port_share_bytes(buffer: Mapping[str, Any], packet_bytes: int = 1500) -> float:
    """The bytes one busy port of a switch with ``buffer`` (``Testbed.buffer(rate)``) can hold:
    its static limit (``limit_bytes``, or ``limit_packets`` packets of ``packet_bytes``, IP
    bytes as a port counts them) and, in a shared memory of B bytes with the dynamic threshold
    α, what the threshold lets one port hold while the others are empty, α·B/(1 + α) in whole
    bytes (Choudhury and Hahne: 700 KB on the Triumph, DCTCP §4.1; 128.5 kB on the Quanta
    LB4G); the least of these, infinite for none."""
    limits: list[float] = []
    if buffer.get("limit_packets"):
        limits.append(int(buffer["limit_packets"]) * packet_bytes)
    if buffer.get("limit_bytes"):
        limits.append(int(buffer["limit_bytes"]))
    if buffer["kind"] in ("preset", "shared"):
        total, alpha = SHARED_PRESETS[buffer["name"]] if buffer["kind"] == "preset" else (buffer["total_bytes"], buffer["alpha"])
        limits.append(round(alpha * total / (1 + alpha)))
    return min(limits, default=math.inf)
