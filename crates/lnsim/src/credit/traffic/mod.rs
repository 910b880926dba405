//! The credit-level wing's traffic (InfiniBand CC spec §3.7.1, §5): static flows and generators
//! over node sets, built from the scenario ([`flows`]), drawing destinations by the
//! foundation's patterns ([`crate::traffic::pattern`]) and arrivals by its injection processes
//! ([`crate::traffic::injection`]). The generators' events at the HCAs are
//! `credit/endpoint/generator.rs`.

pub mod flows;

pub use flows::{build, Destinations, Flow, FlowIndex, Message, Source, Traffic};
