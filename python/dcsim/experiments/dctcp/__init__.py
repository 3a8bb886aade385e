"""The DCTCP paper's experiments (Alizadeh et al., Data Center TCP, SIGCOMM 2010), in the order of
their source, and its testbeds."""

from __future__ import annotations

from . import (
    benchmark_more,
    burst_k,
    convergence_sim,
    fairness90,
    fig1,
    fig3,
    fig4,
    fig5,
    fig7,
    fig8,
    fig9,
    fig12,
    fig13,
    fig14,
    fig15,
    fig16,
    fig17,
    fig18,
    fig19,
    fig20,
    fig21,
    fig22,
    fig23,
    fig24,
    incast_variants,
    newcomer,
    pi,
    table2,
)
from .testbeds import TESTBEDS

# In the order of the source.
EXPERIMENTS = tuple(
    m.EXPERIMENT
    for m in (
        fig1,
        fig3,
        fig4,
        fig5,
        fig7,
        fig8,
        fig9,
        fig12,
        pi,
        burst_k,
        fig13,
        fig14,
        fig15,
        fig16,
        fairness90,
        convergence_sim,
        newcomer,
        fig17,
        fig18,
        fig19,
        fig20,
        incast_variants,
        fig21,
        table2,
        fig22,
        fig23,
        fig24,
        benchmark_more,
    )
)

__all__ = ["EXPERIMENTS", "TESTBEDS"]
