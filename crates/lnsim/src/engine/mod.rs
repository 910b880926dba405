//! The discrete-event engine: integer picosecond time, a timing wheel with O(1) amortised
//! scheduling, and deterministic per-component random streams (issue 2 item 2); also what both
//! wings share to run: the packet slab, progress reports, run options and the pieces of the
//! memory estimate.

pub mod memory;
pub mod prefetch;
pub mod progress;
pub mod rng;
pub mod run;
pub mod slab;
pub mod wheel;

pub use crate::config::Ps;
pub use rng::stream;
pub use wheel::EventQueue;
