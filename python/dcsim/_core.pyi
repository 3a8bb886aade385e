"""The Rust engine (crates/dcsim-py). Scenarios and results travel as JSON text."""

__version__: str

def run_json(scenario_json: str) -> str:
    """Run one scenario; return the results as JSON. Raises ValueError("FIELD: REASON")."""

def validate_json(scenario_json: str) -> None:
    """Check a scenario without running it. Raises ValueError("FIELD: REASON")."""

def scenario_schema() -> str:
    """The JSON Schema of the scenario format."""
