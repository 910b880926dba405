//! Traffic, one layer for both wings: where terminals sit ([`geometry`]), the steady
//! destination patterns ([`pattern`], with the permutations in [`permutation`]), the injection
//! processes ([`injection`]), the cycle-level model's phases (`mix`, `transient`: [`synthetic`])
//! and the credit-level model's static flows and generators over node sets ([`flows`]).
//!
//! To add a destination pattern: a `Pattern` value in `config/schema.rs`, the geometries it is
//! defined on in [`geometry`], its variant, resolution and draw in [`pattern`] (or its image in
//! [`permutation`] for a permutation). Both wings then offer it: `traffic.pattern` (cycle level)
//! and `traffic.generators[].pattern` (credit level).

pub mod flows;
pub mod geometry;
pub mod injection;
pub mod pattern;
pub mod permutation;
pub mod synthetic;

pub use flows::{build, Destinations, Flow, FlowIndex, Message, Source, Traffic};
