//! The entry points used by the command line and the Python bindings.

use crate::config::{self, LoadedScenario, Model};
use crate::engine::memory_budget::{self, MemoryEstimate};
use crate::error::{Error, Result};
use std::path::Path;

pub use crate::engine::run_outcome::{Ending, RunOptions, RunOutput};

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
    run_scenario(&loaded, opts, interrupted)
}

/// Runs a loaded scenario in the model it names: nothing is built before the memory estimate
/// says it fits and the results folder is one lnsim may write; then the model's wing runs it.
pub fn run_scenario(
    l: &LoadedScenario,
    opts: &RunOptions,
    interrupted: &mut dyn FnMut() -> bool,
) -> Result<RunOutput> {
    memory_budget::check(estimate_memory(l)?, opts.max_memory)?;
    let out_dir = opts
        .out_dir
        .clone()
        .unwrap_or_else(|| Path::new("results").join(&l.name));
    crate::outdir::check_out_dir(&out_dir, &crate::stats::results_folder::protected(l))?;
    match l.model() {
        Model::Credit => crate::credit::run_scenario(l, opts, &out_dir, interrupted),
        Model::Cycle => crate::cycle::run_cycle_scenario(l, opts, &out_dir, interrupted),
    }
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
    validate_scenario(&loaded, max_memory)
}

/// `lnsim validate` of a loaded scenario: the memory estimate (refused like a run refuses it),
/// then the model's wing builds everything a run builds and reports it.
pub fn validate_scenario(l: &LoadedScenario, max_memory: Option<u64>) -> Result<String> {
    let mem = memory_budget::check(estimate_memory(l)?, max_memory)?;
    let report = match l.model() {
        Model::Credit => crate::credit::validate(l)?,
        Model::Cycle => crate::cycle::validate_cycle(l)?,
    };
    // the model, after the wing's first line: whether sim.model named it or it was inferred
    let (first, rest) = report.split_once('\n').unwrap_or((report.as_str(), ""));
    let how = match (l.model_choice.note(), l.model_choice.alias) {
        (Some(note), _) => note,
        (None, Some(_)) => format!("from {}", l.model_choice.how()),
        (None, None) => "from sim.model".to_string(),
    };
    let mut out = format!("{first}\n  model: {} ({how})\n{rest}", l.model().name());
    out.push_str(&format!(
        "  memory: {}; {}\n",
        mem.summary(),
        memory_budget::limit_text(max_memory)
    ));
    Ok(out)
}

/// The memory estimate of a loaded scenario, by its model.
pub fn estimate_memory(l: &LoadedScenario) -> Result<MemoryEstimate> {
    match l.model() {
        Model::Credit => crate::credit::memory_estimate::estimate(l),
        Model::Cycle => crate::cycle::memory_estimate::estimate(l),
    }
}

/// The memory estimate of the scenario at `path` (see [`crate::engine::memory_budget`]).
pub fn estimate_memory_file(path: &Path, overrides: &[String]) -> Result<MemoryEstimate> {
    let loaded = config::load_file(path, overrides, None)?;
    estimate_memory(&loaded)
}

/// A fabric as `lnsim export` writes it: its `ibnetdiscover` output and its forwarding tables
/// in OpenSM's `opensm-lfts.dump` format (docs/fabrics.md).
#[derive(Debug, Clone)]
pub struct ExportedFabric {
    /// The scenario's name (the files are `<name>.ibnetdiscover` and `<name>.lfts`).
    pub name: String,
    /// The topology as `ibnetdiscover` prints it.
    pub ibnetdiscover: String,
    /// The forwarding tables as OpenSM dumps them.
    pub lfts: String,
}

/// `lnsim export`: builds the fabric and forwarding tables of the credit-level scenario at
/// `path` (runs nothing) and writes them as a real fabric's diagnostics would show them. A
/// built fabric gets deterministic GUIDs and LIDs ([`crate::topology::ib_identity::IbIdentity::assign`],
/// LMC `lmc`, or the tables' own `routing.lmc`); an imported one keeps its own (then `lmc`
/// must be 0, the default, and `routing.lmc` the file's LMC).
pub fn export_file(path: &Path, overrides: &[String], lmc: u8) -> Result<ExportedFabric> {
    let l = config::load_file(path, overrides, None)?;
    if l.model() != Model::Credit {
        return Err(Error::Input(format!(
            "export: scenario {} runs on the {} model; export writes the forwarding tables of a credit-level scenario",
            l.name,
            l.model().name()
        )));
    }
    let fabric = crate::topology::build(&l.scenario, &l.base_dir)?;
    let lft = crate::credit::routing::build(&l, &fabric)?;
    // the tables' own LMC (`routing.lmc`) is the LMC written, unless --lmc asks for it
    let asked = lmc;
    let lmc = match (asked, lft.lmc) {
        (0, t) => t,
        (x, 0) => x,
        (x, t) if x == t => x,
        (x, t) => {
            return Err(Error::Input(format!(
                "export: --lmc {x} differs from the scenario's routing.lmc = {t}; leave --lmc out to write LMC {t}"
            )))
        }
    };
    let assigned;
    let ib = match fabric.ib.as_deref() {
        Some(_) if asked != 0 => {
            return Err(Error::Input(
                "export: --lmc applies to built fabrics; an imported fabric keeps the LIDs and LMC of its file".into(),
            ))
        }
        Some(ib)
            if lft.lmc > 0
                && fabric
                    .hcas
                    .iter()
                    .zip(&lft.hca_lmc)
                    .any(|(&h, &m)| ib.ends[h as usize].lmc != m) =>
        {
            return Err(Error::Input(format!(
                "export: routing.lmc = {lmc} differs from the LMC of the imported fabric's ports; an imported fabric keeps the LIDs and LMC of its file (set routing.lmc to the file's)"
            )))
        }
        Some(ib) => ib,
        None => {
            assigned = crate::topology::ib_identity::IbIdentity::assign(&fabric, lmc)?;
            &assigned
        }
    };
    Ok(ExportedFabric {
        name: l.name.clone(),
        ibnetdiscover: crate::topology::ibnetdiscover_writer::write(&fabric, ib, &l.name)?,
        lfts: crate::credit::routing::lft_dump::write_opensm(&fabric, &lft, ib),
    })
}

/// Maps an error to the command's exit status (0 success, 2 bad input, 1 internal, 130 interrupted).
pub fn exit_status(e: &Error) -> i32 {
    match e {
        Error::Input(_) => 2,
        Error::Internal(_) => 1,
        Error::Interrupted => 130,
    }
}
