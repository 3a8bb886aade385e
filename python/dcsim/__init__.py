"""dcsim: a packet-level simulator of datacenter transport (TCP, DCTCP).

    import dcsim
    results = dcsim.run("scenarios/examples/dctcp-2flows.toml")
    results.flows[["id", "cc", "goodput_bps"]]

The engine is Rust (`dcsim._core`); this package loads scenarios, runs them and turns the
results into pandas tables.
"""

from ._core import __version__
from .results import Results
from .run import run, run_many
from .scenario import ScenarioError, load_scenario, port_names
from .sweep import sweep
from .workloads import fct_stats

__all__ = ["Results", "ScenarioError", "__version__", "fct_stats", "load_scenario", "port_names", "run", "run_many", "sweep"]
