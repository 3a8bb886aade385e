"""The Rust engine (crates/dcsim-py). Scenarios and results travel as JSON text."""

from collections.abc import Callable

__version__: str

def run_json(scenario_json: str, progress: Callable[[float], object] | None = None) -> str:
    """Run one scenario; return the results as JSON. Raises ValueError("FIELD: REASON").
    ``progress`` gets the fraction of simulated time done now and then; Ctrl-C raises
    KeyboardInterrupt there."""

def validate_json(scenario_json: str) -> None:
    """Check a scenario without running it. Raises ValueError("FIELD: REASON")."""

def scenario_schema() -> str:
    """The JSON Schema of the scenario format."""
