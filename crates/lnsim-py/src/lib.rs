//! Python bindings of the lnsim simulation core, installed as `lnsim._core`.
//!
//! The Python package `lnsim` (folder `python/lnsim/`) wraps these functions with pandas
//! results and plots; this module stays thin: it converts arguments, releases the GIL while the
//! core runs, turns Ctrl-C into a stop of the run (which writes its partial results, marked
//! incomplete, then raises `KeyboardInterrupt`), and maps the core's errors to exceptions:
//!
//! | core error                | Python exception                          |
//! |---------------------------|-------------------------------------------|
//! | `lnsim::Error::Input`     | `ScenarioError` (a `ValueError`)          |
//! | `lnsim::Error::Internal`  | `SimulationError` (a `RuntimeError`)      |
//! | `lnsim::Error::Interrupted` | `KeyboardInterrupt`                     |

use lnsim::api::{self, RunOptions};
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::time::{Duration, Instant};

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "The scenario or an override is invalid; the message names the offending key."
);
create_exception!(
    _core,
    SimulationError,
    PyRuntimeError,
    "The simulation failed for a reason that is not the scenario's fault (I/O, internal error)."
);

/// How often, at most, the run re-acquires the GIL to let Python handle pending signals.
const SIGNAL_CHECK_PERIOD: Duration = Duration::from_millis(100);

fn to_py_err(e: lnsim::Error) -> PyErr {
    match e {
        lnsim::Error::Input(msg) => ScenarioError::new_err(msg),
        e @ lnsim::Error::Internal(_) => SimulationError::new_err(e.to_string()),
        lnsim::Error::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
    }
}

/// Runs the scenario file at `path` and writes its results folder.
///
/// Returns `{"out_dir": str, "summary": dict}` where `summary` is the parsed `summary.json`
/// (a run that deadlocked returns normally; its summary's `deadlock` says so).
/// Raises `ScenarioError` for bad input, `SimulationError` for internal failures and
/// `KeyboardInterrupt` (or whatever the signal handler raised) when interrupted: the run stops,
/// writes what it simulated so far as a results folder marked incomplete (`summary.json`
/// `"complete": false`), and the exception carries `out_dir` (str) and `summary` (dict)
/// attributes naming that folder (absent when nothing was written).
/// `stop`, if given, is
/// called with the signal check (every 100 ms); when it returns true the run is abandoned with
/// `SimulationError("the run was cancelled")` (a Dask task whose client went away).
#[pyfunction]
#[pyo3(signature = (path, overrides = Vec::new(), seed = None, out_dir = None, progress = false, stop = None))]
fn run(
    py: Python<'_>,
    path: PathBuf,
    overrides: Vec<String>,
    seed: Option<u64>,
    out_dir: Option<PathBuf>,
    progress: bool,
    stop: Option<PyObject>,
) -> PyResult<Py<PyDict>> {
    let opts = RunOptions {
        overrides,
        seed,
        out_dir,
        progress,
    };
    let mut pending: Option<PyErr> = None;
    let result = py.allow_threads(|| {
        let mut last_check = Instant::now();
        let mut interrupted = || {
            if pending.is_some() {
                return true;
            }
            if last_check.elapsed() < SIGNAL_CHECK_PERIOD {
                return false;
            }
            last_check = Instant::now();
            let verdict = Python::with_gil(|py| {
                py.check_signals()?;
                match &stop {
                    Some(f) if f.bind(py).call0()?.is_truthy()? => Err(SimulationError::new_err(
                        "the run was cancelled (its Dask task was released)",
                    )),
                    _ => Ok(()),
                }
            });
            match verdict {
                Ok(()) => false,
                Err(e) => {
                    pending = Some(e);
                    true
                }
            }
        };
        api::run_file(&path, &opts, &mut interrupted)
    });
    let json = py.import("json")?;
    if let Some(e) = pending {
        // The signal handler raised (KeyboardInterrupt for Ctrl-C): re-raise that exception,
        // with the partial results folder the core wrote attached to it.
        if let Ok(output) = &result {
            let value = e.value(py);
            let summary = json.call_method1("loads", (output.summary_json.as_str(),))?;
            let _ = value.setattr("out_dir", output.out_dir.to_string_lossy().into_owned());
            let _ = value.setattr("summary", summary);
        }
        return Err(e);
    }
    let output = result.map_err(to_py_err)?;
    let summary = json.call_method1("loads", (output.summary_json.as_str(),))?;
    let dict = PyDict::new(py);
    dict.set_item("out_dir", output.out_dir.to_string_lossy().into_owned())?;
    dict.set_item("summary", summary)?;
    Ok(dict.unbind())
}

/// Parses the scenario at `path` (with `key.path=value` overrides), builds topology, routing and
/// traffic and checks every route, without running; returns a human-readable report.
#[pyfunction]
#[pyo3(signature = (path, overrides = Vec::new()))]
fn validate(py: Python<'_>, path: PathBuf, overrides: Vec<String>) -> PyResult<String> {
    py.allow_threads(|| api::validate_file(&path, &overrides))
        .map_err(to_py_err)
}

/// The version of the simulation core (recorded in every `summary.json`).
#[pyfunction]
fn version() -> &'static str {
    lnsim::VERSION
}

/// The lnsim simulation core.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add("__version__", lnsim::VERSION)?;
    Ok(())
}
