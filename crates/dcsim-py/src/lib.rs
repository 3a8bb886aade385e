//! `dcsim._core`: the engine behind the Python package. Conversion and error mapping only;
//! scenarios arrive as JSON text and results leave as JSON text.

use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;

/// Runs one scenario (JSON text) and returns the results (JSON text). The GIL is released
/// while the simulation runs. A bad scenario raises ValueError("FIELD: REASON").
///
/// With `progress`, it is called with the fraction of simulated time done (0..1) every
/// `PROGRESS_EVENTS` events, and pending signals are checked there: Ctrl-C stops the run
/// with KeyboardInterrupt.
#[pyfunction]
#[pyo3(signature = (scenario_json, progress=None))]
fn run_json(py: Python<'_>, scenario_json: &str, progress: Option<PyObject>) -> PyResult<String> {
    let text = scenario_json.to_owned();
    let mut raised: Option<PyErr> = None;
    let outcome = py.allow_threads(|| {
        let started = std::time::Instant::now();
        let scenario = dcsim::Scenario::from_json(&text).map_err(|e| e.to_string())?;
        let mut sim = dcsim::Simulation::new(&scenario).map_err(|e| e.to_string())?;
        let results = match &progress {
            None => Some(sim.run()),
            Some(callback) => sim.run_observed(PROGRESS_EVENTS, |done| {
                Python::with_gil(|py| {
                    let step = py.check_signals().and_then(|()| callback.call1(py, (done,)).map(drop));
                    step.map_err(|e| raised = Some(e)).is_ok()
                })
            }),
        };
        Ok::<_, String>(results.map(|results| {
            let mut json = results.to_json();
            // Wall time is measured here, outside the engine, which never reads a clock.
            json.pop();
            json.push_str(&format!(",\"wall_seconds\":{}}}", started.elapsed().as_secs_f64()));
            json
        }))
    });
    match outcome {
        Err(msg) => Err(PyValueError::new_err(msg)),
        Ok(Some(json)) => Ok(json),
        Ok(None) => Err(raised.unwrap_or_else(|| PyKeyboardInterrupt::new_err("interrupted"))),
    }
}

/// Events between two progress calls: about a tenth of a second of engine time.
const PROGRESS_EVENTS: u64 = 1 << 20;

/// Parses and checks a scenario without running it.
#[pyfunction]
fn validate_json(scenario_json: &str) -> PyResult<()> {
    let scenario = dcsim::Scenario::from_json(scenario_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    dcsim::Simulation::new(&scenario).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(())
}

/// The names of a scenario's ports, in port order, from its network alone (nothing runs).
#[pyfunction]
fn port_names(scenario_json: &str) -> PyResult<Vec<String>> {
    let scenario = dcsim::Scenario::from_json(scenario_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    dcsim::port_names(&scenario).map_err(|e| PyValueError::new_err(e.to_string()))
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
    m.add_function(wrap_pyfunction!(port_names, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
