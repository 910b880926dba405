//! Routing, what both wings use: the one dimension-order rule on mesh/torus geometry
//! ([`dor`]) and the channel-dependency graph with its cycle search ([`channel_dependency`]),
//! the deadlock check of both wings. Each wing owns the rest: the credit-level wing its
//! forwarding tables and their builders (`credit/routing/`), the cycle-level wing its routing
//! algorithms (`cycle/routing/`).

pub mod channel_dependency;
pub mod dor;
