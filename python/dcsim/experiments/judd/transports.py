"""The two transports the Judd experiments set against each other on one port: "TCP", the
stack's own (CUBIC, Linux's default, on the slides' hosts) over drop-tail, and DCTCP over RED-ECN marking at K with hosts that carry
every fix the slides name (ECT on every packet: the Latency table's "DCTCP+" as the testbed
reads it). judd-task-completion-pdf, judd-impact-of-timeouts and the 19-sender runs
(judd/fairness.py) use them."""

from __future__ import annotations

from typing import Any

from ..scenarios import DROP_TAIL
from .testbeds import FIXED_HOSTS, red_ecn

# A transport: (the hosts' congestion control (None: the stack's TCP), the switch's AQM, the
# hosts' ECT policy).
Transport = tuple[str | None, dict[str, Any], dict[str, Any]]

TCP: Transport = (None, DROP_TAIL, {})
DCTCP: Transport = ("dctcp", red_ecn(), FIXED_HOSTS)
