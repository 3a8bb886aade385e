"""dcsim: a packet-level simulator of datacenter transport (TCP, DCTCP).

    import dcsim
    results = dcsim.run("scenarios/examples/dctcp-2flows.toml")
    results.flows[["id", "cc", "goodput_bps"]]

The engine is Rust (`dcsim._core`); this package loads scenarios, runs them and turns the
results into pandas tables.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from ._core import __version__

if TYPE_CHECKING:
    from .results import Results
    from .run import run, run_many
    from .scenario import ScenarioError, load_scenario, port_names
    from .sweep import sweep
    from .workloads import fct_stats

# Where each public name lives. Each loads on first use (PEP 562): `import dcsim` does not
# load NumPy, so that the `dcsim` command can settle how NumPy starts before it loads.
_HOMES = {
    "Results": ".results",
    "run": ".run",
    "run_many": ".run",
    "ScenarioError": ".scenario",
    "load_scenario": ".scenario",
    "port_names": ".scenario",
    "sweep": ".sweep",
    "fct_stats": ".workloads",
}

__all__ = ["Results", "ScenarioError", "__version__", "fct_stats", "load_scenario", "port_names", "run", "run_many", "sweep"]

if not TYPE_CHECKING:  # type checkers read the imports above, and still flag a misspelt name

    def __getattr__(name: str) -> Any:
        home = _HOMES.get(name)
        if home is None:
            raise AttributeError(f"module 'dcsim' has no attribute {name!r}")
        value = getattr(importlib.import_module(home, __name__), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """The package, whose functions `run` and `sweep` share their names with the modules
    that define them: importing such a module (``from dcsim.run import ...``) would bind the
    module in the function's place, as Python binds each submodule on its package."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and name in _HOMES:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
