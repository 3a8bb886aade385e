"""The Judd (Morgan Stanley) slides' experiments, in the order of
their source, and its testbeds."""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec

from .testbeds import TESTBEDS

# Module names in the source's order. (While the experiments move here, those not yet
# written are left out.)
_MODULES = (
    "task_completion_pdf",
    "impact_of_timeouts",
    "coexistence",
    "red_ecn",
    "connection_establishment",
    "throughput_fairness",
    "latency_table",
    "stability_tcp",
    "stability_dctcp",
    "stability_tcp_2flows",
    "rcvbuf_off",
    "scale_table",
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
