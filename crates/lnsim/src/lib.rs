//! # lnsim — simulation core
//!
//! A discrete-event simulator of lossless interconnection networks at credit (64-byte flit)
//! granularity with packet-level virtual cut-through timing. See `docs/architecture.md`.
//!
//! Folders: [`config`] (scenario schema, units), [`engine`] (time, event wheel, RNG),
//! [`topology`] (fabric builders), [`routing`] (forwarding tables), [`switch`] (the parametric
//! input-buffered switch), [`endpoint`] (HCAs: generators, per-flow queues, sink), [`cc`]
//! (congestion-control hooks), [`traffic`] (flows and generators), [`stats`] (collectors and
//! the results folder), [`sim`] (the network instance and run loop), [`outdir`] (the output
//! folders lnsim may write and their atomic replacement).

#![warn(missing_docs)]

pub mod api;
pub mod config;
pub mod credit;
pub mod cycle;
pub mod engine;
pub mod error;
pub mod outdir;
pub mod routing;
pub mod stats;
pub mod topology;
pub mod traffic;

pub use error::{Error, Result};

/// Version of the simulator (recorded in every `summary.json`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
