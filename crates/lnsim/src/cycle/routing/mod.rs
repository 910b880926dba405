//! The cycle-level wing's routing: the routing algorithms of the Dragonfly spec (§3) and the
//! mesh/torus routings, registered in [`cycle_algorithm`]: each proposes the output port and
//! the allowed VCs of a packet's next hop ([`candidates::Candidate`]), the router selects among
//! them (`cycle/route.rs`, `cycle/allocator.rs`).
//!
//! The files: the vocabulary of a proposal (`candidates.rs`: candidate, header state,
//! occupancy signals); the algorithm interface and the routing the cycle model runs
//! (`algorithm.rs`); the paths of each topology family (`dragonfly_paths.rs`: minimal paths and
//! the VC template; `mesh_paths.rs`: the mesh/torus paths by the foundation's one DOR rule,
//! with VC classes); VC templates (`vc_template.rs`); one file per algorithm (`minimal.rs` MIN,
//! `valiant.rs` VLB and mesh Valiant, `ugal.rs` UGAL, `piggyback.rs` PB, `acor.rs` ACOR and
//! PB-ACOR with their levels in `acor_levels.rs`, `tpr.rs` TPR, `lian.rs` LIAN — with the
//! per-group traffic counters both read, `group_counters.rs` —, `mar_bp.rs` MAR-bP and
//! `qcn_switch.rs` QCN-Switch (Ethernet, Ch. 4), `dor_algorithm.rs` mesh/torus
//! DOR); the channel-dependency graphs of the routing and its VC rules
//! (`dependency_graph.rs`, searched by the foundation's
//! [`crate::routing::channel_dependency`]).
//!
//! # Adding a cycle-level routing algorithm (e.g. an in-transit adaptive Dragonfly routing)
//! 1. Write `cycle/routing/<name>.rs` with a struct implementing [`algorithm::CycleAlgorithm`]:
//!    `new` (read its `[routing]` keys, with their defaults), `name`, `vcs` (its VC template on
//!    a Dragonfly, or its phases on a mesh/torus), `keys` (the `[routing]` keys it reads), and
//!    what it decides — `decides_at_injection` + `at_injection` for a source decision written
//!    into the packet's header, or `hop_by_hop` + `next_hop` to propose every hop itself —
//!    reading the queues through [`candidates::Occupancy`] and the family's paths
//!    ([`algorithm::Paths`]: the minimal hop, hop counts, the VCs). `valiant.rs`, `ugal.rs` and
//!    `piggyback.rs` are examples.
//! 2. In this file: declare it (`pub mod <name>;`) and add its arm to [`cycle_algorithm`]:
//!    `(A::<Name>, Dragonfly) => built(<name>::<Type>::new(cfg, pkt_phits)),`
//!
//! Its name in scenarios is a variant of [`crate::config::RoutingAlgorithm`], and keys of its
//! own belong to [`crate::config::RoutingConfig`] (the configuration's schema). The cycle-level
//! model then sizes the VCs, checks the channel-dependency graph of its template, refuses other
//! algorithms' keys and reports it by name with no further change.

pub mod acor;
pub mod acor_levels;
pub mod algorithm;
pub mod candidates;
pub mod dependency_graph;
pub mod dor_algorithm;
pub mod dragonfly_paths;
pub mod group_counters;
pub mod lian;
pub mod mar_bp;
pub mod mesh_paths;
pub mod minimal;
pub mod piggyback;
pub mod qcn_probabilities;
pub mod qcn_switch;
pub mod tpr;
pub mod ugal;
pub mod valiant;
pub mod vc_template;

use crate::config::{RoutingAlgorithm, RoutingConfig};
use crate::error::Result;
use algorithm::{CycleAlgorithm, Family};
use std::sync::Arc;

/// The routing algorithms of the cycle-level model, registered in one place: the one that
/// `routing.algorithm` names on a topology family, built from the scenario's `[routing]` table
/// for packets of `pkt_phits` phits; `None` when the name does not route that family.
pub fn cycle_algorithm(
    cfg: &RoutingConfig,
    family: Family,
    pkt_phits: u32,
) -> Option<Result<Arc<dyn CycleAlgorithm>>> {
    use Family::{Dragonfly, MeshTorus};
    use RoutingConfig as R;
    fn built<T: CycleAlgorithm + 'static>(a: Result<T>) -> Result<Arc<dyn CycleAlgorithm>> {
        a.map(|a| Arc::new(a) as Arc<dyn CycleAlgorithm>)
    }
    Some(match (cfg, family) {
        (R::Min(_), Dragonfly) => built(Ok(minimal::Min)),
        (R::Vlb(k), Dragonfly) => built(Ok(valiant::Valiant::new(k))),
        (R::Ugal(k), Dragonfly) => built(Ok(ugal::Ugal::new(k, pkt_phits))),
        (R::Pb(k), Dragonfly) => built(Ok(piggyback::Piggyback::new(k, pkt_phits))),
        (R::Acor(k), Dragonfly) => built(Ok(acor::Acor::new(k))),
        (R::PbAcor(k), Dragonfly) => built(Ok(acor::PbAcor::new(k, pkt_phits))),
        (R::Tpr(k), Dragonfly) => built(tpr::Tpr::new(k, pkt_phits)),
        (R::Lian(k), Dragonfly) => built(lian::Lian::new(k, pkt_phits)),
        (R::MarBp(_), Dragonfly) => built(Ok(mar_bp::MarBp)),
        (R::QcnSwitch(k), Dragonfly) => built(Ok(qcn_switch::QcnSwitch::new(k))),
        (R::Dor(_), MeshTorus) => built(Ok(dor_algorithm::Dor)),
        (R::Vlb(_), MeshTorus) => built(Ok(valiant::MeshValiant)),
        _ => return None,
    })
}

/// Every cycle-level algorithm registered for `family`, in [`RoutingAlgorithm::ALL`] order
/// (built with the default `[routing]` table: for their names and keys).
pub fn cycle_algorithms(family: Family) -> Vec<Arc<dyn CycleAlgorithm>> {
    RoutingAlgorithm::ALL
        .iter()
        .filter_map(|&a| RoutingConfig::with_defaults(a))
        .filter_map(|cfg| cycle_algorithm(&cfg, family, 1))
        .filter_map(|a| a.ok())
        .collect()
}
