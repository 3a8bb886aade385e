"""The DCTCP paper's experiments (Alizadeh et al., Data Center TCP, SIGCOMM 2010), in the order of
their source, and its testbeds."""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec

from .testbeds import TESTBEDS

# Module names in the source's order. (While the experiments move here, those not yet
# written are left out.)
_MODULES = (
    "fig1",
    "fig7",
    "fig8",
    "fig9",
    "fig12",
    "pi",
    "burst_k",
    "fig13",
    "fig14",
    "fig15",
    "fig16",
    "fairness90",
    "convergence_sim",
    "fig17",
    "fig18",
    "fig19",
    "fig20",
    "incast_variants",
    "fig21",
    "table2",
    "fig22",
    "fig23",
    "fig24",
    "benchmark_more",
)


def _present() -> list:
    # Transitional: a module being written by someone else must not stop the others.
    found = []
    for name in _MODULES:
        if find_spec(f".{name}", __name__) is None:
            continue
        try:
            found.append(import_module(f".{name}", __name__).EXPERIMENT)
        except Exception as e:  # noqa: BLE001
            import sys

            print(f"dcsim: skipping {__name__}.{name}: {type(e).__name__}: {e}", file=sys.stderr)
    return found


EXPERIMENTS = tuple(_present())

__all__ = ["EXPERIMENTS", "TESTBEDS"]
