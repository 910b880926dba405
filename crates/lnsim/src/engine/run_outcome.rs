//! What a run is asked to do and what it returns, for both models: the options of one run,
//! its output, and how it ended (complete or interrupted, issue 14 item 16).

use std::path::PathBuf;

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

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It reached its configured end (or stopped by design: saturation, deadlock).
    Complete,
    /// It was interrupted (Ctrl-C, SIGINT, SIGTERM) before its end; its results are partial.
    /// `planned_end` is the end it was configured with: picoseconds (credit-level model) or
    /// cycles (cycle-level model).
    Interrupted {
        /// The configured end (ps or cycles).
        planned_end: u64,
    },
}

impl Ending {
    /// True when the run reached its end.
    pub fn is_complete(self) -> bool {
        self == Ending::Complete
    }

    /// `summary.json`'s `stop_reason` of an incomplete run.
    pub fn stop_reason(self) -> Option<&'static str> {
        match self {
            Ending::Complete => None,
            Ending::Interrupted { .. } => Some("interrupted"),
        }
    }
}
