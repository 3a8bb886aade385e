//! `dcsim._core`: the engine behind the Python package. Conversion and error mapping only;
//! scenarios arrive as JSON text and results leave as JSON text.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Runs one scenario (JSON text) and returns the results (JSON text). The GIL is released
/// while the simulation runs. A bad scenario raises ValueError("FIELD: REASON").
#[pyfunction]
fn run_json(py: Python<'_>, scenario_json: &str) -> PyResult<String> {
    let text = scenario_json.to_owned();
    py.allow_threads(move || {
        let started = std::time::Instant::now();
        let scenario = dcsim::Scenario::from_json(&text).map_err(|e| e.to_string())?;
        let mut sim = dcsim::Simulation::new(&scenario).map_err(|e| e.to_string())?;
        let results = sim.run();
        let mut json = results.to_json();
        // Wall time is measured here, outside the engine, which never reads a clock.
        json.pop();
        json.push_str(&format!(",\"wall_seconds\":{}}}", started.elapsed().as_secs_f64()));
        Ok(json)
    })
    .map_err(|msg: String| PyValueError::new_err(msg))
}

/// Parses and checks a scenario without running it.
#[pyfunction]
fn validate_json(scenario_json: &str) -> PyResult<()> {
    let scenario = dcsim::Scenario::from_json(scenario_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    dcsim::Simulation::new(&scenario).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(())
}

/// The JSON Schema of the scenario format.
#[pyfunction]
fn scenario_schema() -> String {
    dcsim::Scenario::json_schema()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
