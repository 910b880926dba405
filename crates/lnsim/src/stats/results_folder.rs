//! Results folders, for both models: which folders a run's results folder must never be
//! (issue 14 item 1). The writing itself — atomic replacement, the `.lnsim` marker — is
//! [`crate::outdir`].

use crate::config::LoadedScenario;

/// The folders a run's results folder must never hold (besides the current folder): the
/// scenario file's folder (see [`crate::outdir`]).
pub fn protected(l: &LoadedScenario) -> Vec<crate::outdir::Protected<'_>> {
    vec![(l.base_dir.as_path(), "the scenario file's folder")]
}
