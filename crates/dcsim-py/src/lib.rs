//! `dcsim._core`: the engine behind the Python package. Conversion and error mapping only.
//! Scenarios arrive as JSON text; results leave as a dict of scalars and tables, each table a
//! dict of NumPy arrays that own the engine's buffers, so no table is ever written as text or
//! visited row by row in Python (docs/engine-contract.md).

// pyo3 0.22's `#[pyfunction]` expansion converts each `PyResult`'s error into itself, which
// clippy since Rust 1.85 reports at every function (PyO3/pyo3#4828, fixed in pyo3 0.23.5).
#![allow(clippy::useless_conversion)]

use dcsim::error::ConfigError;
use dcsim::results::{Column, Table};
use dcsim::sim::memory::Consumer;
use numpy::{IntoPyArray, PyArrayMethods};
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Runs one scenario (JSON text) and returns its results: a dict of scalars and tables. The
/// GIL is released while the simulation runs and its tables are put in columns. A bad
/// scenario raises `dcsim.ScenarioError` (its field and reason).
///
/// With `progress`, it is called with the fraction of simulated time done (0..1) every
/// `PROGRESS_EVENTS` events, and pending signals are checked there: Ctrl-C stops the run
/// with KeyboardInterrupt.
#[pyfunction]
#[pyo3(signature = (scenario_json, progress=None))]
fn run(py: Python<'_>, scenario_json: &str, progress: Option<PyObject>) -> PyResult<PyObject> {
    let text = scenario_json.to_owned();
    let mut raised: Option<PyErr> = None;
    let outcome = py.allow_threads(|| {
        let started = std::time::Instant::now();
        let scenario = dcsim::Scenario::from_json(&text)?;
        let mut sim = dcsim::Simulation::for_consumer(&scenario, Consumer::Python)?;
        let parameters = sim.parameters().to_string();
        let results = match &progress {
            None => Some(sim.run()),
            Some(callback) => sim.run_observed(PROGRESS_EVENTS, |done| {
                Python::with_gil(|py| {
                    let step = py.check_signals().and_then(|()| callback.call1(py, (done,)).map(drop));
                    step.map_err(|e| raised = Some(e)).is_ok()
                })
            }),
        };
        // Wall time is measured here, outside the engine, which never reads a clock; it
        // covers the simulation, not the handing over of its results.
        let wall_seconds = started.elapsed().as_secs_f64();
        Ok::<_, ConfigError>(results.map(|mut results| {
            let tables = results.take_tables();
            (results, tables, wall_seconds, parameters)
        }))
    });
    match outcome {
        Err(e) => Err(scenario_error(py, e)),
        Ok(Some((results, tables, wall_seconds, parameters))) => {
            let out = results_dict(py, &results, tables, wall_seconds)?;
            out.bind(py).set_item("parameters", parameters)?;
            Ok(out)
        }
        Ok(None) => Err(raised.unwrap_or_else(|| PyKeyboardInterrupt::new_err("interrupted"))),
    }
}

/// The engine's refusal of a scenario as `dcsim.ScenarioError(source, field, reason)`: the
/// Python package's class, so that one type is caught, pickled across processes and printed
/// alike wherever the error arose; the caller names the source (a file, a scenario's name).
fn scenario_error(py: Python<'_>, e: ConfigError) -> PyErr {
    let class = py.import_bound("dcsim.scenario").and_then(|m| m.getattr("ScenarioError"));
    match class.and_then(|c| c.call1(("", e.field, e.reason))) {
        Ok(error) => PyErr::from_value_bound(error),
        Err(import_failed) => import_failed,
    }
}

/// Events between two progress calls: about a tenth of a second of engine time.
const PROGRESS_EVENTS: u64 = 1 << 20;

/// A table as it crosses to Python: each column a NumPy array of the engine's own type,
/// owning the engine's buffer (no copy); strings as an object array, a missing number
/// (`Option`) as NaN, rows of numbers as a 2-D array, lists as a list of arrays.
fn numpy(py: Python<'_>, column: Column) -> PyResult<PyObject> {
    fn array<T: numpy::Element>(py: Python<'_>, values: Vec<T>) -> PyObject {
        values.into_pyarray_bound(py).into_any().unbind()
    }
    Ok(match column {
        Column::Bool(v) => array(py, v),
        Column::U8(v) => array(py, v),
        Column::U32(v) => array(py, v),
        Column::U64(v) => array(py, v),
        Column::F64(v) => array(py, v),
        Column::Str(v) => array(py, v.into_iter().map(|s| s.into_py(py)).collect::<Vec<PyObject>>()),
        Column::OptU32(v) => array(py, v.into_iter().map(|x| x.map_or(f64::NAN, f64::from)).collect()),
        Column::U64Rows { width, values } => {
            let rows = values.len() / width.max(1);
            values.into_pyarray_bound(py).reshape([rows, width])?.into_any().unbind()
        }
        Column::F64Lists(v) => v.into_iter().map(|l| array(py, l)).collect::<Vec<_>>().into_py(py),
    })
}

fn results_dict(py: Python<'_>, results: &dcsim::Results, tables: Vec<(&'static str, Table)>, wall_seconds: f64) -> PyResult<PyObject> {
    let out = PyDict::new_bound(py);
    out.set_item("name", &results.name)?;
    out.set_item("seed", results.seed)?;
    out.set_item("duration_s", results.duration_s)?;
    out.set_item("warmup_s", results.warmup_s)?;
    out.set_item("events", results.events)?;
    out.set_item("packet_hops", results.packet_hops)?;
    out.set_item("wall_seconds", wall_seconds)?;
    let c = &results.conservation;
    let conservation = PyDict::new_bound(py);
    conservation.set_item("injected", c.injected)?;
    conservation.set_item("delivered", c.delivered)?;
    conservation.set_item("dropped", c.dropped)?;
    conservation.set_item("in_flight", c.in_flight)?;
    out.set_item("conservation", conservation)?;
    for (name, columns) in tables {
        let table = PyDict::new_bound(py);
        for (column, values) in columns {
            table.set_item(column, numpy(py, values)?)?;
        }
        out.set_item(name, table)?;
    }
    Ok(out.into_any().unbind())
}

/// Parses and checks a scenario without running it: every check a run makes before it
/// starts, building no more than its network.
#[pyfunction]
fn validate_json(py: Python<'_>, scenario_json: &str) -> PyResult<()> {
    let scenario = dcsim::Scenario::from_json(scenario_json).map_err(|e| scenario_error(py, e))?;
    dcsim::Simulation::check(&scenario, Consumer::Python).map_err(|e| scenario_error(py, e))
}

/// The names of a scenario's ports, in port order, from its network alone (nothing runs).
#[pyfunction]
fn port_names(py: Python<'_>, scenario_json: &str) -> PyResult<Vec<String>> {
    let scenario = dcsim::Scenario::from_json(scenario_json).map_err(|e| scenario_error(py, e))?;
    dcsim::port_names(&scenario).map_err(|e| scenario_error(py, e))
}

/// The scenario as the engine reads it (its stack profile applied, every default filled in),
/// as JSON.
#[pyfunction]
fn resolve_json(py: Python<'_>, scenario_json: &str) -> PyResult<String> {
    let scenario = dcsim::Scenario::from_json(scenario_json).map_err(|e| scenario_error(py, e))?;
    serde_json::to_string(&scenario).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The JSON Schema of the scenario format.
#[pyfunction]
fn scenario_schema() -> String {
    dcsim::Scenario::json_schema()
}

/// The TCP stack profiles (`tcp.profile`) as JSON: name, what it stands for, and each field
/// it sets with its value and source (for `docs/stacks.md`).
#[pyfunction]
fn stack_profiles() -> String {
    let profiles: Vec<_> = dcsim::scenario::profiles::ALL
        .iter()
        .map(|p| {
            let fields: Vec<_> = p
                .fields()
                .iter()
                .map(|f| serde_json::json!({"field": f.field, "value": serde_json::from_str::<serde_json::Value>(f.value).unwrap_or_default(), "source": f.source}))
                .collect();
            serde_json::json!({"name": p.name(), "about": p.about(), "fields": fields})
        })
        .collect();
    serde_json::Value::Array(profiles).to_string()
}

/// The points of a built-in distribution (`web_search`, `data_mining`), as `[value, cdf]`.
#[pyfunction]
fn builtin_cdf(name: &str) -> PyResult<Vec<[f64; 2]>> {
    dcsim::sim::traffic::builtin_points(name)
        .ok_or_else(|| PyValueError::new_err(format!("no built-in distribution {name:?} (web_search, data_mining)")))
}

/// The points of a CDF written as CSV, `value,cdf` per line (`#` comments and a header line
/// skipped). Raises ValueError("line N: ...").
#[pyfunction]
fn cdf_from_csv(text: &str) -> PyResult<Vec<[f64; 2]>> {
    dcsim::sim::traffic::parse_csv(text).map_err(PyValueError::new_err)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema, m)?)?;
    m.add_function(wrap_pyfunction!(stack_profiles, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_json, m)?)?;
    m.add_function(wrap_pyfunction!(port_names, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_cdf, m)?)?;
    m.add_function(wrap_pyfunction!(cdf_from_csv, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
