"""The ICTCP paper's experiments (Wu et al., ICTCP, IEEE/ACM ToN 2013), in the order of
their source, and its testbeds."""

from __future__ import annotations

from . import (
    bg_udp,
    fig3,
    fig4,
    fig5,
    fig8,
    fig9,
    fig10,
    fig11,
    fig12,
    fig13,
    fig14,
    fig15,
    host_calibration,
    sec5_buffer,
)
from .testbeds import TESTBEDS

# In the order of the source.
EXPERIMENTS = tuple(
    m.EXPERIMENT
    for m in (
        fig3,
        fig4,
        fig5,
        host_calibration,
        fig8,
        fig9,
        fig10,
        fig11,
        fig12,
        fig13,
        fig14,
        bg_udp,
        fig15,
        sec5_buffer,
    )
)

__all__ = ["EXPERIMENTS", "TESTBEDS"]
