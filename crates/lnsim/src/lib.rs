//! # lnsim — simulation core
//!
//! A simulator of lossless interconnection networks with two models: an event-driven one at
//! credit (64-byte flit) granularity with packet-level virtual cut-through timing, and a
//! cycle-level one of CIOQ routers. See `docs/architecture.md`.
//!
//! Layers (imports point down only; `scripts/structure_check.py` checks it): [`config`]
//! (scenario schema, units, key table); the foundation that knows no model — [`engine`] (time
//! wheel, RNG streams, packet slab, progress, memory-estimate pieces), [`topology`] (fabric
//! builders), [`routing`] (forwarding tables, adaptive algorithms, channel-dependency check),
//! [`traffic`] (destination patterns and injection processes of both models), [`stats`]
//! (fairness, results folders); two model wings — [`credit`] (the event-driven, credit-level
//! InfiniBand model: switches, HCAs, congestion control) and [`cycle`] (the cycle-level HPC
//! router model); and [`api`], which picks the wing. [`outdir`]: the output folders lnsim may
//! write and their atomic replacement.

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
