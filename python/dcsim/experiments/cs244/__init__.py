"""The CS244 '17 reproduction's experiments (DCTCP Figs. 1, 13, 14 in ns-2), in the order of
their source, and its testbeds."""

from __future__ import annotations

from . import (
    fig2,
    fig3,
    fig4,
)
from .testbeds import TESTBEDS

# In the order of the source.
EXPERIMENTS = tuple(
    m.EXPERIMENT
    for m in (
        fig2,
        fig3,
        fig4,
    )
)

__all__ = ["EXPERIMENTS", "TESTBEDS"]
