//! (being written)
use crate::api::{RunOptions, RunOutput};
use crate::config::LoadedScenario;
use crate::error::{Error, Result};
/// Runs a loaded scenario.
pub fn run_scenario(_l: &LoadedScenario, _o: &RunOptions, _i: &mut dyn FnMut() -> bool) -> Result<RunOutput> {
    Err(Error::Internal("not yet".into()))
}
/// Validates a loaded scenario.
pub fn validate(_l: &LoadedScenario) -> Result<String> {
    Err(Error::Internal("not yet".into()))
}
