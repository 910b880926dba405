//! Traffic, what both wings use: where terminals sit ([`geometry`]), the steady destination
//! patterns ([`pattern`], with the permutations in [`permutation`]) and the injection processes
//! ([`injection`]). Each wing owns the rest: the credit-level wing its static flows and
//! generators over node sets (`credit/traffic/`), the cycle-level wing its synthetic traffic
//! with phases (`mix`, `transient`: `cycle/traffic/`).
//!
//! To add a destination pattern: a `Pattern` value in `config/schema.rs`, the geometries it is
//! defined on in [`geometry`], its variant, resolution and draw in [`pattern`] (or its image in
//! [`permutation`] for a permutation). Both wings then offer it: `traffic.pattern` (cycle level)
//! and `traffic.generators[].pattern` (credit level).

pub mod geometry;
pub mod injection;
pub mod pattern;
pub mod permutation;
