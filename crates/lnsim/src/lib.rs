//! # lnsim — simulation core
//!
//! A simulator of lossless interconnection networks with two models: an event-driven one at
//! credit (64-byte flit) granularity with packet-level virtual cut-through timing, and a
//! cycle-level one of CIOQ routers. See `docs/architecture.md`.
//!
//! Layers (imports point down only; `scripts/structure_check.py` checks it): [`config`]
//! (scenario schema, units, key table); the foundation that knows no model and holds only what
//! both wings use — [`engine`] (RNG streams, packet slab, progress, run outcome, memory budget),
//! [`topology`] (fabric builders), [`routing`] (the DOR rule, the channel-dependency graph and
//! its cycle search), [`traffic`] (destination patterns, permutations, injection processes),
//! [`stats`] (fairness, natural order, results folders); two model wings, each owning its
//! routing, traffic, statistics and mechanisms — [`credit`] (the credit-level model:
//! event-driven, picosecond time; switches, HCAs, forwarding tables, congestion control) and
//! [`cycle`] (the cycle-level model: CIOQ routers, adaptive routing); and [`api`], which picks
//! the wing. [`outdir`]: the output folders lnsim may write and their atomic replacement.

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
