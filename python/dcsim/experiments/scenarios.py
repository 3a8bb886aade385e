"""Scenario pieces the experiments of several papers share: the fan-in of long flows into one
receiver on a testbed's star, and the switch's AQMs.

A scenario here is the plain dict of the scenario format (``dcsim schema``); the testbed
(:class:`~dcsim.experiments.declarations.Testbed`) gives the hosts' stack and model, the
switch buffer for the line rate and the links, and an experiment's own settings go on top.
"""

from __future__ import annotations

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
    cc: str,
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
    long-lived flow to host 0, opening at ``start_s`` within ``jitter_us``. The switch buffer
    is the testbed's for ``rate_gbps`` unless ``buffer`` is given; ``link``, ``tcp`` and
    ``host`` set fields over the testbed's. Only the receiver's port, :data:`RECEIVER_PORT`,
    where the queue builds, is sampled. With one link delay d the base RTT is 4·d (two hops
    each way)."""
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
        "host": {**testbed.host, **(host or {})},
        "tcp": testbed.tcp_for(cc, **(tcp or {})),
        "flows": long_flows(range(1, int(senders) + 1), 0, start_s=float(start_s), start_jitter_us=float(jitter_us)),
        "measure": {
            "queue_sample_us": float(queue_sample_us),
            "queue_ports": [RECEIVER_PORT],
            "flow_sample_us": float(flow_sample_us),
        },
    }
