//! The cycle-level wing's traffic (Dragonfly spec §4): the synthetic traffic of `[traffic]`
//! with its phases (`mix`, `transient`), resolved against the network's geometry into the
//! foundation's steady patterns ([`crate::traffic::pattern`]): [`synthetic`]. The terminals
//! inject by the foundation's Bernoulli process (`cycle/terminal.rs`).

pub mod synthetic;
