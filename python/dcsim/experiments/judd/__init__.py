"""The Judd (Morgan Stanley) slides' experiments, in the order of
their source, and its testbeds."""

from __future__ import annotations

from . import (
    coexistence,
    connection_establishment,
    impact_of_timeouts,
    latency_table,
    rcvbuf_off,
    red_ecn,
    scale_table,
    stability_dctcp,
    stability_tcp,
    stability_tcp_2flows,
    task_completion_pdf,
    throughput_fairness,
)
from .testbeds import TESTBEDS

# In the order of the source.
EXPERIMENTS = tuple(
    m.EXPERIMENT
    for m in (
        task_completion_pdf,
        impact_of_timeouts,
        coexistence,
        red_ecn,
        connection_establishment,
        throughput_fairness,
        latency_table,
        stability_tcp,
        stability_dctcp,
        stability_tcp_2flows,
        rcvbuf_off,
        scale_table,
    )
)

__all__ = ["EXPERIMENTS", "TESTBEDS"]
