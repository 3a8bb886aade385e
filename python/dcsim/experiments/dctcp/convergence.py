"""The DCTCP paper's fairness and convergence test of §4.1, shared by Fig. 16 and its repetition
with up to 90 flows: "6 hosts connected via 1Gbps links to the Triumph switch. K was set to 20.
One of the hosts acts as a receiver, while the others act as senders." DCTCP against TCP
NewReno over drop-tail."""

from __future__ import annotations

from ..declarations import Testbed
from .testbeds import fanin

SENDERS = 5
K = 20
RATE_GBPS = 1.0
# (protocol, K): DCTCP marks at K, TCP runs over drop-tail (K None).
PROTOCOLS: tuple[tuple[str, int | None], ...] = (("DCTCP", K), ("TCP", None))


def senders_star(name: str, tb: Testbed, k: int | None, duration_s: float, warmup_s: float) -> dict:
    """The six hosts of the test on ``tb``'s star at 1 Gbps: one long-lived flow from each of
    the five senders to host 0 (experiments replace the flows with their own)."""
    return fanin(name, tb, senders=SENDERS, k=k, rate_gbps=RATE_GBPS, duration_s=duration_s, warmup_s=warmup_s)
