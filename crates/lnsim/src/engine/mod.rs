//! The discrete-event engine: integer picosecond time, a timing wheel with O(1) amortised
//! scheduling, and deterministic per-component random streams (issue 2 item 2).

pub mod memory;
pub mod progress;
pub mod rng;
pub mod run;
pub mod slab;
pub mod wheel;

pub use crate::config::Ps;
pub use rng::stream;
pub use wheel::EventQueue;
