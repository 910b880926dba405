//! The routing algorithms of the cycle-level router model (Dragonfly spec §3.0): routing
//! *proposes* a packet's next hop ([`super::candidates::Candidate`]), the switch *selects*.
//!
//! A routing is two parts:
//! - the **paths** of its topology family ([`Paths`]): how a packet moves hop by hop towards the
//!   router its header names, and which VCs each hop may take — on a Dragonfly the minimal path
//!   with the hop-type VC template ([`super::dragonfly_paths`], [`super::vc_template`]), on a
//!   mesh or torus dimension-order routing with VC classes ([`super::mesh_paths`]);
//! - the **algorithm** ([`CycleAlgorithm`], one file each, registered in
//!   [`super::cycle_algorithm`]): what it decides, from the occupancy of the router's queues
//!   ([`Occupancy`]). A source-adaptive algorithm decides once, at the injection router
//!   ([`CycleAlgorithm::at_injection`]), and writes the decision into the packet's header
//!   ([`RouteState`]), which every later hop follows along the family's paths; an in-transit
//!   algorithm proposes every hop itself ([`CycleAlgorithm::next_hop`]).
//!
//! [`CycleRouting`] puts the two together for the cycle-level model.

use super::acor_levels::AcorParams;
use super::candidates::{Candidate, Occupancy, RouteError, RouteState};
use super::dragonfly_paths::DragonflyPaths;
use super::group_counters::CounterParams;
use super::mesh_paths::MeshPaths;
use super::vc_template::VcTemplate;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// The topology families the cycle-level routings work on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// A canonical Dragonfly.
    Dragonfly,
    /// A mesh or a torus.
    MeshTorus,
}

impl Family {
    /// The family's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Family::Dragonfly => "Dragonfly",
            Family::MeshTorus => "mesh or torus",
        }
    }
}

/// The VCs an algorithm's packets need (Dragonfly spec §3.0.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VcNeeds {
    /// Dragonfly: the hop-type template its longest path needs (`routing.vc_template` may
    /// replace it).
    Template(VcTemplate),
    /// Mesh/torus: the routing phases, each with its own VC classes (DOR 1, Valiant 2; a torus
    /// doubles the classes of each phase for its dateline).
    Phases(u8),
}

/// The state an algorithm's decisions read that the model keeps between packets
/// ([`CycleAlgorithm::state`]): the cycle wing's routing-mechanism seam (`cycle/mechanism.rs`)
/// builds it, feeds it (arrivals at and grants out of injection inputs, source decisions,
/// blocked injection heads, the end of a cycle or a run), gives its outputs and its share of
/// the memory estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StateNeeds {
    /// Nothing (MIN, VLB, UGAL, DOR, …).
    None,
    /// Every router publishes congestion bits for its group each cycle, which the decisions
    /// read ([`Occupancy::pb_bits`]; Piggyback, spec §3.6).
    CongestionBits,
    /// The decisions draw by level (spec §3.7, §3.8): the model keeps the levels (per router
    /// or per packet) and sets [`RouteState::level`] before each decision; with congestion
    /// bits too when `congestion_bits` (PB-ACOR).
    Levels {
        /// The level parameters.
        params: AcorParams,
        /// Congestion bits published as for [`StateNeeds::CongestionBits`].
        congestion_bits: bool,
    },
    /// Per-group traffic counters (spec §3.9, §3.10.1), read through
    /// [`Occupancy::counters`] (TPR, LIAN).
    GroupCounters(CounterParams),
    /// QCN-Switch's minimal probability per transit port (spec §3.12), read through
    /// [`Occupancy::min_probability`] and moved by QCN notifications.
    QcnSwitch(super::qcn_probabilities::QcnSwitchParams),
}

/// A routing algorithm of the cycle-level model: one file in `routing/`, one arm in
/// [`super::cycle_algorithm`]. The hop-by-hop work along the family's paths is shared
/// ([`Paths::follow`]); an algorithm says what it decides. Decisions are made once per packet
/// (at its injection router) unless the algorithm routes [`CycleAlgorithm::hop_by_hop`].
pub trait CycleAlgorithm: std::fmt::Debug + Send + Sync {
    /// The name scenarios give it (`routing.algorithm`).
    fn name(&self) -> &'static str;

    /// The VCs its packets need.
    fn vcs(&self) -> VcNeeds;

    /// Does [`CycleAlgorithm::at_injection`] decide anything? (If not, every packet keeps the
    /// default header and follows the minimal or dimension-order path.)
    fn decides_at_injection(&self) -> bool {
        false
    }

    /// Decides at the injection router `r` how a packet to router `dst` travels and writes it
    /// into `st` (which starts as the default header), reading the queues through `occ` and
    /// drawing from the router's random stream `rng`.
    fn at_injection(
        &self,
        paths: &Paths,
        r: u32,
        dst: u32,
        st: &mut RouteState,
        occ: &dyn Occupancy,
        rng: &mut ChaCha8Rng,
    ) {
        let _ = (paths, r, dst, st, occ, rng);
    }

    /// Does [`CycleAlgorithm::at_injection`] read the packet's injection port
    /// ([`Occupancy::source_port`]; MAR-bP's and QCN-Switch's alternative rules)?
    fn reads_source_port(&self) -> bool {
        false
    }

    /// Recomputation (spec §3.4): is a Valiant-routed packet at the head of an injection
    /// queue whose first hop was blocked (it lost the output, or the output had no room) routed
    /// again — [`CycleAlgorithm::at_injection`] anew — every cycle until it leaves the
    /// injection buffer?
    fn recomputes(&self) -> bool {
        false
    }

    /// The state its decisions need the model to keep between packets (the cycle wing's
    /// routing-mechanism seam, `cycle/mechanism.rs`, builds it, feeds it through its hooks and
    /// writes its outputs); none by default.
    fn state(&self) -> StateNeeds {
        StateNeeds::None
    }

    /// Does the algorithm propose every hop itself ([`CycleAlgorithm::next_hop`]) rather than
    /// follow the header along the family's paths? (In-transit adaptive routings.)
    fn hop_by_hop(&self) -> bool {
        false
    }

    /// The next hop of a packet at router `r` heading for router `dst` when the algorithm
    /// routes [`CycleAlgorithm::hop_by_hop`]; the default follows the family's paths.
    fn next_hop(
        &self,
        paths: &Paths,
        r: u32,
        dst: u32,
        st: &mut RouteState,
    ) -> std::result::Result<Option<Candidate>, RouteError> {
        paths.follow(r, dst, st)
    }

    /// Does the header stay the default along the whole path (no decision, one phase)? Then
    /// the paths may tabulate the next hop where the family's VC rules allow it (a mesh's DOR
    /// table; not a torus, whose dateline class depends on the header).
    fn stateless(&self) -> bool {
        false
    }

    /// The Valiant phase-A policy it draws intermediates with, as scenarios name it
    /// (`routing.vlb_policy`, reported in the summary).
    fn vlb_policy(&self) -> Option<&'static str> {
        None
    }

    /// The congestion bits of one router from the occupancies of its global ports, in phits
    /// (when its [`CycleAlgorithm::state`] publishes them).
    fn congestion_bits(&self, q_gc: &[u64]) -> u64 {
        let _ = q_gc;
        0
    }
}

/// The paths of a topology family: how a packet moves hop by hop towards the router its header
/// names, and the VCs each hop may take.
#[derive(Debug, Clone)]
pub enum Paths {
    /// Dragonfly: minimal paths, VCs by hop-type template.
    Dragonfly(DragonflyPaths),
    /// Mesh or torus: dimension-order paths, VCs by class.
    Mesh(MeshPaths),
}

impl Paths {
    /// The next hop of a packet at router `r` towards router `dst` (Valiant phase A first,
    /// towards the header's intermediate); `None`: `r` is the destination router, the packet
    /// ejects. Advances the header state; `Err` when the path outgrows the VC rules (a routing
    /// bug: the template must cover every path).
    #[inline]
    pub fn follow(
        &self,
        r: u32,
        dst: u32,
        st: &mut RouteState,
    ) -> std::result::Result<Option<Candidate>, RouteError> {
        match self {
            Paths::Dragonfly(d) => d.follow(r, dst, st),
            Paths::Mesh(m) => m.follow(r, dst, st),
        }
    }

    /// The family.
    pub fn family(&self) -> Family {
        match self {
            Paths::Dragonfly(_) => Family::Dragonfly,
            Paths::Mesh(_) => Family::MeshTorus,
        }
    }
}

/// A configured cycle-level routing: the algorithm on its family's paths.
#[derive(Debug, Clone)]
pub struct CycleRouting {
    /// The algorithm.
    pub alg: Arc<dyn CycleAlgorithm>,
    /// The paths of the topology.
    pub paths: Paths,
    /// [`CycleAlgorithm::decides_at_injection`] and [`CycleAlgorithm::hop_by_hop`], asked
    /// once.
    decides: bool,
    hop_by_hop: bool,
    /// [`CycleAlgorithm::recomputes`], asked once.
    recomputes: bool,
    /// [`CycleAlgorithm::reads_source_port`], asked once.
    reads_source_port: bool,
}

impl CycleRouting {
    /// `alg` on `paths`.
    pub fn new(alg: Arc<dyn CycleAlgorithm>, paths: Paths) -> Self {
        CycleRouting {
            decides: alg.decides_at_injection(),
            hop_by_hop: alg.hop_by_hop(),
            recomputes: alg.recomputes(),
            reads_source_port: alg.reads_source_port(),
            alg,
            paths,
        }
    }

    /// Does [`CycleRouting::at_injection`] decide anything?
    #[inline]
    pub fn decides_at_injection(&self) -> bool {
        self.decides
    }

    /// Is the next hop a function of the router and the destination alone (the paths keep
    /// it in a table: mesh DOR)? Then the cycle model may tabulate it.
    pub fn stateless(&self) -> bool {
        matches!(&self.paths, Paths::Mesh(m) if !m.dor_table.is_empty())
    }

    /// Does the source decision read the packet's injection port?
    #[inline]
    pub fn reads_source_port(&self) -> bool {
        self.reads_source_port
    }

    /// Are blocked Valiant-routed injection heads routed again every cycle (spec §3.4)?
    pub fn recomputes(&self) -> bool {
        self.recomputes
    }

    /// Decides at the injection router `r` how a packet to router `dst` travels, and writes it
    /// into `st` (reset to the default header first, but for its ACOR level).
    pub fn at_injection(
        &self,
        r: u32,
        dst: u32,
        st: &mut RouteState,
        occ: &dyn Occupancy,
        rng: &mut ChaCha8Rng,
    ) {
        let level = st.level;
        *st = RouteState::default();
        st.level = level;
        self.alg.at_injection(&self.paths, r, dst, st, occ, rng);
    }

    /// The next hop of a packet at router `r` heading for router `dst` (`None`: `r` is the
    /// destination router, the packet ejects). Advances the header state; `Err` when the path
    /// outgrows the VC rules.
    #[inline]
    pub fn next_hop(
        &self,
        r: u32,
        dst: u32,
        st: &mut RouteState,
    ) -> std::result::Result<Option<Candidate>, RouteError> {
        if self.hop_by_hop {
            self.alg.next_hop(&self.paths, r, dst, st)
        } else {
            self.paths.follow(r, dst, st)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{RoutingAlgorithm, RoutingConfig};
    use crate::topology::dragonfly::{Arrangement, DragonflyShape};

    /// Every registered algorithm states the VC needs of its family, and its name is the one
    /// it is registered under.
    #[test]
    fn the_registry_builds_every_algorithm_under_its_name() {
        let mut n = 0;
        for family in [Family::Dragonfly, Family::MeshTorus] {
            for &a in RoutingAlgorithm::ALL.iter() {
                let Some(cfg) = RoutingConfig::with_defaults(a) else {
                    continue;
                };
                let Some(alg) = super::super::cycle_algorithm(&cfg, family, 10) else {
                    continue;
                };
                let alg = alg.unwrap();
                assert_eq!(alg.name(), a.name());
                match (family, alg.vcs()) {
                    (Family::Dragonfly, VcNeeds::Template(_))
                    | (Family::MeshTorus, VcNeeds::Phases(_)) => {}
                    (f, v) => panic!("{} on {f:?} states {v:?}", alg.name()),
                }
                n += 1;
            }
        }
        assert_eq!(n, 12);
        assert_eq!(super::super::cycle_algorithms(Family::MeshTorus).len(), 2);
    }

    /// An algorithm that proposes every hop itself: here the first hop of the minimal path
    /// on VC 1 instead of the template's.
    #[derive(Debug)]
    struct OwnHops;

    impl CycleAlgorithm for OwnHops {
        fn name(&self) -> &'static str {
            "own"
        }
        fn vcs(&self) -> VcNeeds {
            VcNeeds::Template(VcTemplate::minimal())
        }
        fn hop_by_hop(&self) -> bool {
            true
        }
        fn next_hop(
            &self,
            paths: &Paths,
            r: u32,
            dst: u32,
            st: &mut RouteState,
        ) -> std::result::Result<Option<Candidate>, RouteError> {
            Ok(paths.follow(r, dst, st)?.map(|c| Candidate {
                vc_lo: 1,
                vc_hi: 1,
                ..c
            }))
        }
    }

    /// A hop-by-hop algorithm's hops are its own; the others follow the family's paths.
    #[test]
    fn hop_by_hop_algorithms_propose_every_hop() {
        let s = DragonflyShape::new(2, 4, 2, Arrangement::Palmtree).unwrap();
        let paths = Paths::Dragonfly(DragonflyPaths::new(s, VcTemplate::minimal()));
        let own = CycleRouting::new(Arc::new(OwnHops), paths.clone());
        let min = CycleRouting::new(Arc::new(super::super::minimal::Min), paths.clone());
        for r in 0..s.routers() {
            for d in 0..s.routers() {
                let (mut a, mut b, mut c): (RouteState, RouteState, RouteState) =
                    Default::default();
                let want = paths.follow(r, d, &mut a).unwrap();
                assert_eq!(min.next_hop(r, d, &mut b).unwrap(), want);
                let got = own.next_hop(r, d, &mut c).unwrap();
                assert_eq!(got.map(|x| x.port), want.map(|x| x.port));
                assert!(got.is_none_or(|x| x.vc_lo == 1 && x.vc_hi == 1));
            }
        }
    }
}
