//! What both wings share to run: deterministic per-component random streams ([`rng`]), the
//! packet slab ([`slab`]), progress reports and the interruption check ([`progress`]), run
//! options and outcome ([`run_outcome`]), and the memory budget with the pieces of the memory
//! estimate ([`memory_budget`]). Each wing keeps its own clock: the credit-level wing's event
//! queue is a timing wheel in integer picoseconds (`credit/wheel.rs`), the cycle-level wing's a
//! ring of per-cycle slots (`cycle/calendar.rs`).

pub mod memory_budget;
pub mod progress;
pub mod rng;
pub mod run_outcome;
pub mod slab;

pub use rng::stream;
