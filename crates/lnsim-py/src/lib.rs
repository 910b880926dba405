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
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyValueError};
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
    OutputError,
    ScenarioError,
    "An output path lnsim must not (or cannot) write: an existing folder it did not write, a \
     folder of another kind, a results folder holding files lnsim did not write, a file, a path \
     under a file, an unwritable place. Bad input: the command exits with status 2 and nothing \
     is written (the rules of `lnsim::outdir`)."
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

/// An `lnsim::outdir` refusal as `OutputError` (any other error as [`to_py_err`] maps it).
fn to_output_err(e: lnsim::Error) -> PyErr {
    match e {
        lnsim::Error::Input(msg) => OutputError::new_err(msg),
        e => to_py_err(e),
    }
}

/// An I/O error as Python's `OSError` of its errno (`PermissionError`, ...), with its reason as
/// `strerror`.
fn to_os_err(e: std::io::Error) -> PyErr {
    match e.raw_os_error() {
        Some(errno) => {
            let s = e.to_string();
            let reason = s.split(" (os error").next().unwrap_or(&s).to_string();
            PyOSError::new_err((errno, reason))
        }
        None => PyOSError::new_err(e.to_string()),
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
// the Python signature: one argument per keyword of `lnsim.run`
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (path, overrides = Vec::new(), seed = None, out_dir = None, progress = false, max_memory = None, stop = None))]
fn run(
    py: Python<'_>,
    path: PathBuf,
    overrides: Vec<String>,
    seed: Option<u64>,
    out_dir: Option<PathBuf>,
    progress: bool,
    max_memory: Option<String>,
    stop: Option<PyObject>,
) -> PyResult<Py<PyDict>> {
    let opts = RunOptions {
        overrides,
        seed,
        out_dir,
        progress,
        max_memory: max_memory_bytes(max_memory)?,
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

/// `--max-memory` / `max_memory=` as bytes (`"4GiB"`, `"500MB"`, `"1073741824"`).
fn max_memory_bytes(max_memory: Option<String>) -> PyResult<Option<u64>> {
    max_memory
        .map(|s| lnsim::engine::memory_budget::parse_size(&s))
        .transpose()
        .map_err(to_py_err)
}

/// Parses the scenario at `path` (with `key.path=value` overrides), estimates its memory
/// (refusing it beyond `max_memory`, default the memory available), builds topology, routing
/// and traffic and checks every route, without running; returns a human-readable report.
#[pyfunction]
#[pyo3(signature = (path, overrides = Vec::new(), max_memory = None))]
fn validate(
    py: Python<'_>,
    path: PathBuf,
    overrides: Vec<String>,
    max_memory: Option<String>,
) -> PyResult<String> {
    let limit = max_memory_bytes(max_memory)?;
    py.allow_threads(|| api::validate_file_with(&path, &overrides, limit))
        .map_err(to_py_err)
}

/// `lnsim export`: the scenario's fabric as `ibnetdiscover` output and its forwarding tables
/// as `opensm-lfts.dump`: `(name, ibnetdiscover_text, lfts_text)`; raises `ScenarioError`.
#[pyfunction]
#[pyo3(signature = (path, overrides = Vec::new(), lmc = 0))]
fn export_fabric(
    py: Python<'_>,
    path: PathBuf,
    overrides: Vec<String>,
    lmc: u8,
) -> PyResult<(String, String, String)> {
    let e = py
        .allow_threads(|| api::export_file(&path, &overrides, lmc))
        .map_err(to_py_err)?;
    Ok((e.name, e.ibnetdiscover, e.lfts))
}

/// The memory estimate of a scenario: `{"total": bytes, "parts": [(name, bytes), ...]}`
/// (largest part first), without building it.
#[pyfunction]
#[pyo3(signature = (path, overrides = Vec::new()))]
fn estimate_memory(py: Python<'_>, path: PathBuf, overrides: Vec<String>) -> PyResult<Py<PyDict>> {
    let est = py
        .allow_threads(|| api::estimate_memory_file(&path, &overrides))
        .map_err(to_py_err)?;
    let dict = PyDict::new(py);
    dict.set_item("total", est.total)?;
    dict.set_item("parts", est.parts)?;
    Ok(dict.unbind())
}

/// The text of the scenario file at `path`, read as the core reads it: a regular UTF-8 file
/// of at most `MAX_INPUT_BYTES` (a FIFO, a device or a folder is refused before it is opened);
/// raises `ScenarioError` naming the file otherwise.
#[pyfunction]
fn read_scenario(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    py.allow_threads(|| lnsim::config::read_scenario(&path))
        .map_err(to_py_err)
}

/// A size such as `"4GiB"`, `"500MB"` or `"1073741824"` in bytes (`--max-memory`); raises
/// `ScenarioError` for anything else.
#[pyfunction]
fn parse_size(text: &str) -> PyResult<u64> {
    lnsim::engine::memory_budget::parse_size(text).map_err(to_py_err)
}

/// The memory this process may still use in bytes (MemAvailable, lowered by a cgroup limit),
/// or None where it cannot be read.
#[pyfunction]
fn available_memory() -> Option<u64> {
    lnsim::engine::memory_budget::available().map(|(b, _)| b)
}

/// Every scenario key: a list of dicts with `path`, `type` (type and range in words), `kind`
/// (`integer`, `number`, `boolean`, `string`, `choice`, `duration`, `size`, `rate`,
/// `frequency`, `integer list`, `string list`, `node set`, `victim mask`, `vl table`,
/// `table`), `min`, `max`, `allowed` (choices), `unit`, `default`, `model` (`"both"`,
/// `"credit"`, `"cycle"`), `required` and `doc`.
#[pyfunction]
fn keys(py: Python<'_>) -> PyResult<Vec<Py<PyDict>>> {
    use lnsim::config::keys::{ValueKind, KEYS};
    let mut out = Vec::new();
    for k in KEYS {
        let d = PyDict::new(py);
        d.set_item("path", k.path)?;
        d.set_item("type", k.type_text())?;
        let (kind, min, max, allowed): (&str, Option<i128>, Option<i128>, Vec<&str>) = match k.kind
        {
            ValueKind::Int { min, max } => {
                ("integer", Some(min as i128), Some(max as i128), vec![])
            }
            ValueKind::Float { .. } => ("number", None, None, vec![]),
            ValueKind::Bool => ("boolean", None, None, vec![]),
            ValueKind::Str => ("string", None, None, vec![]),
            ValueKind::Choice(c) => ("choice", None, None, c.to_vec()),
            ValueKind::Duration { max_ps } => ("duration", Some(0), Some(max_ps as i128), vec![]),
            ValueKind::Size { min, max } => ("size", Some(min as i128), Some(max as i128), vec![]),
            ValueKind::Rate { min, max } => ("rate", Some(min as i128), Some(max as i128), vec![]),
            ValueKind::Freq { min, max } => {
                ("frequency", Some(min as i128), Some(max as i128), vec![])
            }
            ValueKind::IntList { min, max, .. } => {
                ("integer list", Some(min as i128), Some(max as i128), vec![])
            }
            ValueKind::StrList { .. } => ("string list", None, None, vec![]),
            ValueKind::NodeSet(c) => ("node set", None, None, c.to_vec()),
            ValueKind::HcaNames => ("hca names", None, None, vec![]),
            ValueKind::VictimMask => ("victim mask", None, None, vec!["host_ports"]),
            ValueKind::VlTable => ("vl table", None, None, vec![]),
            ValueKind::Table => ("table", None, None, vec![]),
        };
        d.set_item("kind", kind)?;
        d.set_item("min", min)?;
        d.set_item("max", max)?;
        d.set_item("allowed", allowed)?;
        d.set_item("unit", k.unit)?;
        d.set_item("default", k.default)?;
        d.set_item(
            "model",
            match k.model {
                None => "both",
                Some(lnsim::config::Model::Credit) => "credit",
                Some(lnsim::config::Model::Cycle) => "cycle",
            },
        )?;
        d.set_item("required", k.required)?;
        d.set_item("doc", k.doc_text())?;
        out.push(d.unbind());
    }
    Ok(out)
}

/// The README's configuration reference table (Markdown), generated from the key metadata.
#[pyfunction]
fn keys_markdown() -> String {
    lnsim::config::keys::markdown_table()
}

/// The JSON Schema (draft-07) of the scenario format, as JSON text.
#[pyfunction]
fn json_schema() -> PyResult<String> {
    serde_json::to_string_pretty(&lnsim::config::keys::json_schema())
        .map(|s| s + "\n")
        .map_err(|e| SimulationError::new_err(e.to_string()))
}

/// `(categories, items)` of [`catalog`].
type Catalog = (Vec<(String, String, String)>, Vec<Py<PyDict>>);

/// What a scenario can choose from: `(categories, items)`; categories are `(id, title, key)`,
/// items dicts with `category`, `name`, `model` (in words), `doc` and `select` (how a scenario
/// selects it, `cc.mechanism = "drb"`, when that is not its category's key; else `None`).
#[pyfunction]
fn catalog(py: Python<'_>) -> PyResult<Catalog> {
    use lnsim::config::catalog::{model_text, CATALOG, CATEGORIES};
    let cats = CATEGORIES
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    let mut items = Vec::new();
    for i in CATALOG {
        let d = PyDict::new(py);
        d.set_item("category", i.category)?;
        d.set_item("name", i.name)?;
        d.set_item("model", model_text(i.model))?;
        d.set_item("doc", i.doc)?;
        d.set_item("select", i.selection())?;
        items.push(d.unbind());
    }
    Ok((cats, items))
}

/// Compares two names in lnsim's natural order (`H2` before `H10`): -1, 0 or 1. The Python
/// layer sorts every list of nodes, switches or routers it prints with it
/// (`functools.cmp_to_key`), as the core writes them.
#[pyfunction]
fn natural_cmp(a: &str, b: &str) -> i32 {
    lnsim::stats::natural::natural_cmp(a, b) as i32
}

/// Why a run may not replace the existing folder `path` with its results folder, and what to
/// do instead (`None` when it may: empty, or a results folder holding nothing but what lnsim
/// wrote). The rule of `lnsim::outdir::replace_problem`, for the run folders a sweep or a bench
/// replaces.
#[pyfunction]
fn results_folder_problem(path: PathBuf) -> Option<String> {
    lnsim::outdir::replace_problem(&path)
}

/// The entries of the lnsim folder `path` that lnsim did not write (a folder's name ends in
/// `/`), judged by its marker's `files` (or, for an lnsim that listed none, by the names lnsim
/// writes there); `None` when lnsim did not write the folder at all.
#[pyfunction]
fn foreign_entries(path: PathBuf) -> Option<Vec<String>> {
    lnsim::outdir::foreign_entries(&path)
}

/// The kind (`"results"`, `"sweep"`, `"bench"`) of an unmarked folder written by an lnsim that
/// wrote no markers, judged by what it holds; `None` for anything else.
#[pyfunction]
fn legacy_kind(path: PathBuf) -> Option<&'static str> {
    lnsim::outdir::legacy_kind(&path)
}

/// What a folder of marker kind `kind` holds, as refusals say it.
#[pyfunction]
fn kind_description(kind: &str) -> String {
    lnsim::outdir::kind_description(kind)
}

/// The marker of the folder `path` as JSON text, when it has one written by lnsim; else `None`.
#[pyfunction]
fn read_marker(path: PathBuf) -> Option<String> {
    lnsim::outdir::read_marker(&path).map(|m| m.to_string())
}

/// The kind of the folder `path`: its marker's, else its `legacy_kind`; `None` for a folder
/// lnsim did not write.
#[pyfunction]
fn folder_kind(path: PathBuf) -> Option<String> {
    lnsim::outdir::folder_kind(&path)
}

/// `(path, description)` pairs as the core's protected paths.
fn protected(protect: &[(PathBuf, String)]) -> Vec<lnsim::outdir::Protected<'_>> {
    protect
        .iter()
        .map(|(p, what)| (p.as_path(), what.as_str()))
        .collect()
}

/// Checks that lnsim may write into the folder `path`, updated in place (a sweep, bench or
/// figures folder; `what` names it): `lnsim::outdir::check_folder`, with `protect`
/// (`(path, description)` pairs), `allow` (folders accepted whatever they hold) and `kinds`
/// (the marker kinds accepted; any when `None`). Returns whether it exists; raises
/// `OutputError`.
#[pyfunction]
#[pyo3(signature = (path, what, protect = Vec::new(), allow = Vec::new(), kinds = None))]
fn check_folder(
    path: PathBuf,
    what: &str,
    protect: Vec<(PathBuf, String)>,
    allow: Vec<PathBuf>,
    kinds: Option<Vec<String>>,
) -> PyResult<bool> {
    let allow: Vec<&std::path::Path> = allow.iter().map(PathBuf::as_path).collect();
    let kinds: Option<Vec<&str>> = kinds
        .as_ref()
        .map(|k| k.iter().map(String::as_str).collect());
    lnsim::outdir::check_folder(&path, what, &protected(&protect), &allow, kinds.as_deref())
        .map_err(to_output_err)
}

/// `check_folder`, then creates the folder when absent and marks it as `kind` when it was
/// absent or empty (`lnsim::outdir::prepare_folder`); raises `OutputError`.
#[pyfunction]
#[pyo3(signature = (path, kind, what, protect = Vec::new(), allow = Vec::new(), kinds = None))]
fn prepare_folder(
    path: PathBuf,
    kind: &str,
    what: &str,
    protect: Vec<(PathBuf, String)>,
    allow: Vec<PathBuf>,
    kinds: Option<Vec<String>>,
) -> PyResult<()> {
    let allow: Vec<&std::path::Path> = allow.iter().map(PathBuf::as_path).collect();
    let kinds: Option<Vec<&str>> = kinds
        .as_ref()
        .map(|k| k.iter().map(String::as_str).collect());
    lnsim::outdir::prepare_folder(
        &path,
        kind,
        what,
        &protected(&protect),
        &allow,
        kinds.as_deref(),
    )
    .map_err(to_output_err)
}

/// Writes `data` as the file `path` atomically (a temporary file renamed into place: a symbolic
/// link there is replaced, never followed); raises `OSError`.
#[pyfunction]
fn write_atomic(py: Python<'_>, path: PathBuf, data: &[u8]) -> PyResult<()> {
    py.allow_threads(|| lnsim::outdir::write_atomic(&path, data))
        .map_err(to_os_err)
}

/// Writes the marker of `kind` into the folder `path`, with the fields of the JSON object
/// `extra` besides `written_by`, `version` and `kind`; raises `OSError`.
#[pyfunction]
fn write_marker(path: PathBuf, kind: &str, extra: &str) -> PyResult<()> {
    let extra = match serde_json::from_str(extra) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => return Err(PyValueError::new_err("extra: expected a JSON object")),
    };
    lnsim::outdir::write_marker(&path, kind, extra).map_err(to_os_err)
}

/// Adds `names` to the marker's list of the files lnsim wrote into the folder `path` (when it
/// has that list); raises `OSError`.
#[pyfunction]
fn record_files(path: PathBuf, names: Vec<String>) -> PyResult<()> {
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    lnsim::outdir::record_files(&path, &names).map_err(to_os_err)
}

/// True when the entry `name` of the folder `path` is absent or one lnsim wrote.
#[pyfunction]
fn is_own_entry(path: PathBuf, name: &str) -> bool {
    lnsim::outdir::is_own_entry(&path, name)
}

/// Checks that lnsim may write the file `path` (`what` names it): absent, or a file lnsim wrote
/// (`lnsim::outdir::check_own_file`); raises `OutputError`.
#[pyfunction]
fn check_own_file(path: PathBuf, what: &str) -> PyResult<()> {
    lnsim::outdir::check_own_file(&path, what)
        .map(|_| ())
        .map_err(to_output_err)
}

/// Checks that lnsim may write the file `path` (`what` names it) and records it in its folder's
/// marker (`lnsim::outdir::claim_file`); raises `OutputError`.
#[pyfunction]
fn claim_file(path: PathBuf, what: &str) -> PyResult<()> {
    lnsim::outdir::claim_file(&path, what).map_err(to_output_err)
}

/// True when the folder `path` holds the partial results of a run that did not reach its end.
#[pyfunction]
fn is_incomplete(path: PathBuf) -> bool {
    lnsim::outdir::is_incomplete(&path)
}

/// Why lnsim may not replace or delete the run folder `path` of a sweep or a bench, with what
/// to do instead; `None` when it may (`lnsim::outdir::run_folder_problem`).
#[pyfunction]
fn run_folder_problem(path: PathBuf) -> Option<String> {
    lnsim::outdir::run_folder_problem(&path)
}

/// Raises `OutputError` naming the run folder `path` (`what` says whose) unless lnsim may
/// replace it.
#[pyfunction]
fn check_replaceable(path: PathBuf, what: &str) -> PyResult<()> {
    lnsim::outdir::check_replaceable(&path, what).map_err(to_output_err)
}

/// Removes the run folder `path` when lnsim may replace it; returns whether it was removed.
#[pyfunction]
fn remove_folder(path: PathBuf) -> PyResult<bool> {
    lnsim::outdir::remove_folder(&path).map_err(to_os_err)
}

/// Puts the complete new run folder `new` in place as `target`, replacing an existing one only
/// when lnsim may (checked again once it stepped aside as `aside`; `lnsim::outdir::swap_in`).
/// Raises `OutputError` naming `target` when it may not (it is back in place), `OSError` when a
/// rename fails.
#[pyfunction]
fn replace_run_folder(new: PathBuf, target: PathBuf, aside: PathBuf) -> PyResult<()> {
    use lnsim::outdir::SwapError;
    lnsim::outdir::swap_in(&new, &target, &aside, lnsim::outdir::run_folder_problem).map_err(|e| {
        match e {
            SwapError::Refused(problem) => {
                OutputError::new_err(format!("run folder {}: {problem}", target.display()))
            }
            SwapError::Io(_, e) => to_os_err(e),
        }
    })
}

/// True when the file `path` is an HTML report written by `lnsim report`.
#[pyfunction]
fn is_lnsim_report(path: PathBuf) -> bool {
    lnsim::outdir::is_lnsim_report(&path)
}

/// Checks that `lnsim report --out` may write the file `path`; raises `OutputError`.
#[pyfunction]
fn check_report_file(path: PathBuf) -> PyResult<()> {
    lnsim::outdir::check_report_file(&path).map_err(to_output_err)
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
    m.add_function(wrap_pyfunction!(export_fabric, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(estimate_memory, m)?)?;
    m.add_function(wrap_pyfunction!(available_memory, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size, m)?)?;
    m.add_function(wrap_pyfunction!(read_scenario, m)?)?;
    m.add(
        "MAX_INPUT_BYTES",
        lnsim::config::input_files::MAX_INPUT_BYTES,
    )?;
    m.add_function(wrap_pyfunction!(keys, m)?)?;
    m.add_function(wrap_pyfunction!(keys_markdown, m)?)?;
    m.add_function(wrap_pyfunction!(json_schema, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add_function(wrap_pyfunction!(natural_cmp, m)?)?;
    m.add_function(wrap_pyfunction!(results_folder_problem, m)?)?;
    m.add_function(wrap_pyfunction!(foreign_entries, m)?)?;
    m.add_function(wrap_pyfunction!(legacy_kind, m)?)?;
    m.add_function(wrap_pyfunction!(kind_description, m)?)?;
    m.add_function(wrap_pyfunction!(read_marker, m)?)?;
    m.add_function(wrap_pyfunction!(folder_kind, m)?)?;
    m.add_function(wrap_pyfunction!(check_folder, m)?)?;
    m.add_function(wrap_pyfunction!(prepare_folder, m)?)?;
    m.add_function(wrap_pyfunction!(write_atomic, m)?)?;
    m.add_function(wrap_pyfunction!(write_marker, m)?)?;
    m.add_function(wrap_pyfunction!(record_files, m)?)?;
    m.add_function(wrap_pyfunction!(is_own_entry, m)?)?;
    m.add_function(wrap_pyfunction!(check_own_file, m)?)?;
    m.add_function(wrap_pyfunction!(claim_file, m)?)?;
    m.add_function(wrap_pyfunction!(is_incomplete, m)?)?;
    m.add_function(wrap_pyfunction!(run_folder_problem, m)?)?;
    m.add_function(wrap_pyfunction!(check_replaceable, m)?)?;
    m.add_function(wrap_pyfunction!(remove_folder, m)?)?;
    m.add_function(wrap_pyfunction!(replace_run_folder, m)?)?;
    m.add_function(wrap_pyfunction!(is_lnsim_report, m)?)?;
    m.add_function(wrap_pyfunction!(check_report_file, m)?)?;
    m.add("MARKER_FILE", lnsim::outdir::MARKER_FILE)?;
    m.add("KIND_RESULTS", lnsim::outdir::KIND_RESULTS)?;
    m.add("KIND_SWEEP", lnsim::outdir::KIND_SWEEP)?;
    m.add("KIND_FIGURES", lnsim::outdir::KIND_FIGURES)?;
    m.add("KIND_BENCH", lnsim::outdir::KIND_BENCH)?;
    m.add("KIND_FABRIC", lnsim::outdir::KIND_FABRIC)?;
    m.add("REPORT_GENERATOR", lnsim::outdir::REPORT_GENERATOR)?;
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add("OutputError", py.get_type::<OutputError>())?;
    m.add("__version__", lnsim::VERSION)?;
    Ok(())
}
