//! Error types of the simulation core.
//!
//! Every error caused by the user's input is a [`Error::Input`] that names the offending key
//! path or file line and says what is allowed; the command line maps it to exit status 2.
//! Anything else is an [`Error::Internal`] (exit status 1).

use thiserror::Error;

/// An error raised while loading, building or running a scenario.
#[derive(Debug, Error)]
pub enum Error {
    /// Bad user input: the message names the key (e.g. `links.host.speed`) or `file:line`.
    #[error("{0}")]
    Input(String),
    /// A failure that is not the user's fault (I/O, invariant violation).
    #[error("internal error: {0}")]
    Internal(String),
    /// The run was interrupted (e.g. Ctrl-C) before it simulated anything; no results are
    /// written. (A run interrupted while simulating writes partial results instead: see
    /// [`crate::api::run_file`].)
    #[error("interrupted")]
    Interrupted,
}

impl Error {
    /// Builds an input error naming `key` and the problem.
    pub fn input(key: &str, msg: impl std::fmt::Display) -> Self {
        Error::Input(format!("{key}: {msg}"))
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Internal(format!("I/O: {e}"))
    }
}

/// Result alias used throughout the core.
pub type Result<T> = std::result::Result<T, Error>;
