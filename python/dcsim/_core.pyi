"""The Rust engine (crates/dcsim-py). Scenarios travel as JSON text, results as NumPy
columns (docs/engine-contract.md)."""

from collections.abc import Callable
from typing import Any

__version__: str

def run(scenario_json: str, progress: Callable[[float], object] | None = None) -> dict[str, Any]:
    """Run one scenario; return its scalars and tables (each a dict of NumPy arrays).
    Raises dcsim.ScenarioError (field and reason; no source).
    ``progress`` gets the fraction of simulated time done now and then; Ctrl-C raises
    KeyboardInterrupt there."""

def validate_json(scenario_json: str) -> None:
    """Check a scenario without running it. Raises dcsim.ScenarioError (field and reason; no source)."""

def scenario_schema() -> str:
    """The JSON Schema of the scenario format."""

def resolve_json(scenario_json: str) -> str:
    """The scenario as the engine reads it: its stack profile applied and every default
    filled in. Raises dcsim.ScenarioError (field and reason; no source)."""

def stack_profiles() -> str:
    """The TCP stack profiles as JSON: each one's name, what it stands for, and its fields
    with their values and sources."""

def port_names(scenario_json: str) -> list[str]:
    """The names of the scenario's ports, in the engine's order, without running it. Raises
    dcsim.ScenarioError (field and reason; no source)."""

def builtin_cdf(name: str) -> list[tuple[float, float]]:
    """The points ``[value, cdf]`` of a built-in distribution: ``web_search``, ``data_mining``."""

def cdf_from_csv(text: str) -> list[tuple[float, float]]:
    """Points of a CDF written as CSV (``value,cdf`` per line). Raises ValueError("line N: ...")."""
