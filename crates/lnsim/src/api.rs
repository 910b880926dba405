//! The entry points used by the command line and the Python bindings.

use crate::config;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Options of one run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// `key.path=value` overrides (`--set`).
    pub overrides: Vec<String>,
    /// Seed override (`--seed`).
    pub seed: Option<u64>,
    /// Results folder; default `results/<scenario-name>/` under the current directory.
    pub out_dir: Option<PathBuf>,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// Refuse a scenario whose memory estimate exceeds this many bytes (`--max-memory`;
    /// default: the memory available to the process).
    pub max_memory: Option<u64>,
}

/// What a finished run returns.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// The results folder that was written.
    pub out_dir: PathBuf,
    /// The `summary.json` text.
    pub summary_json: String,
    /// False when the run was interrupted: the folder holds what was simulated until then,
    /// and says so (`summary.json` `"complete": false`, `"stop_reason": "interrupted"`).
    pub complete: bool,
}

/// Runs the scenario file at `path` and writes its results folder. `interrupted` is polled
/// about ten times a second while simulating; returning true stops the run, which then writes
/// what it simulated so far as a results folder marked incomplete and returns it with
/// [`RunOutput::complete`] false. The results folder is checked before anything runs: one that
/// lnsim may not replace (see [`crate::outdir`]) is an [`Error::Input`].
pub fn run_file(
    path: &Path,
    opts: &RunOptions,
    interrupted: &mut dyn FnMut() -> bool,
) -> Result<RunOutput> {
    let loaded = config::load_file(path, &opts.overrides, opts.seed)?;
    crate::sim::run_scenario(&loaded, opts, interrupted)
}

/// Parses the scenario, builds topology, routing and traffic, checks every route; runs
/// nothing. Returns a short human-readable report.
pub fn validate_file(path: &Path, overrides: &[String]) -> Result<String> {
    validate_file_with(path, overrides, None)
}

/// [`validate_file`] with a memory limit in bytes (`--max-memory`; `None`: the memory
/// available to the process).
pub fn validate_file_with(
    path: &Path,
    overrides: &[String],
    max_memory: Option<u64>,
) -> Result<String> {
    let loaded = config::load_file(path, overrides, None)?;
    crate::sim::validate_with(&loaded, max_memory)
}

/// The memory estimate of the scenario at `path` (see [`crate::sim::memory`]).
pub fn estimate_memory_file(
    path: &Path,
    overrides: &[String],
) -> Result<crate::sim::memory::MemoryEstimate> {
    let loaded = config::load_file(path, overrides, None)?;
    crate::sim::memory::estimate(&loaded)
}

/// Maps an error to the command's exit status (0 success, 2 bad input, 1 internal, 130 interrupted).
pub fn exit_status(e: &Error) -> i32 {
    match e {
        Error::Input(_) => 2,
        Error::Internal(_) => 1,
        Error::Interrupted => 130,
    }
}
