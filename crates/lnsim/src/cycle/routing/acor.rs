//! ACOR, Adaptive Congestion-Oblivious Routing (Dragonfly spec §3.7), and PB-ACOR (§3.8): a
//! Valiant routing whose phase-A policy is the current *level* of a sequence ordered from
//! short to long (Table 5-2: 3L = -g-, -gl, lgl; 2L-A = -g-, lgl; 2L-B = -gl, lgl). The level
//! rises when Valiant-routed packets at the head of injection queues get blocked and are
//! re-routed (recomputation, §3.4, is part of ACOR):
//! - **ACOR-Switch** keeps one level per router ([`super::acor_levels::AcorState`]): blocked
//!   re-routings at the router's injection ports are counted over a hysteresis interval HI;
//!   reaching the level's increase threshold (IT1, IT2) raises the level at once and starts a
//!   new interval; at the end of an interval with at most the level's decrease threshold (DT1,
//!   DT2) the level falls by one (FOGSim's `≥` and `≤`, spec §3.7, Table 5-3);
//! - **ACOR-Packet** keeps the level in the packet's header: level 1 at its first routing, one
//!   level up at each blocked re-routing, until it leaves the injection buffer.
//!
//! Intra-group packets always take RVLB's intermediate in their own group and ignore the level
//! (§3.7). [`Acor`] is always non-minimal (a packet to its own router excepted); [`PbAcor`]
//! takes Piggyback's minimal-or-Valiant decision (§3.6) with the level's policy for the
//! Valiant candidate, whose hop count H_VLB is that of the shortened path (§3.8), and only its
//! Valiant-routed packets count as blocked. Both use the VC template `[L, G, L, L, G, L]`
//! (§3.0.3).
//!
//! The levels and their thresholds are in [`super::acor_levels`]; the cycle-level model keeps
//! the state: the router levels in [`super::acor_levels::AcorState`], a packet's level in
//! [`RouteState::level`], which the model sets before each decision.

use super::acor_levels::AcorParams;
use super::algorithm::{CycleAlgorithm, Paths, StateNeeds, VcNeeds};
use super::candidates::{Occupancy, RouteState};
use super::piggyback::Piggyback;
use super::ugal::Ugal;
use super::valiant::{Valiant, VlbPolicy};
use super::vc_template::VcTemplate;
use crate::config::{AcorRouting, PbAcorRouting};
use rand_chacha::ChaCha8Rng;

/// The Valiant draw of a level: `policy`, RVLB for intra-group packets, the source group
/// excluded for inter-group ones (spec §3.7, A17), recomputation on.
fn leveled(policy: VlbPolicy) -> Valiant {
    Valiant {
        policy,
        source_group: false,
        restricted: true,
        recompute: true,
    }
}

/// ACOR (spec §3.7): every packet takes a Valiant path whose phase-A policy is the level's.
#[derive(Debug, Clone, Copy)]
pub struct Acor {
    /// The level parameters.
    pub params: AcorParams,
}

impl Acor {
    /// ACOR from its `[routing]` keys (`routing.algorithm = "acor"`; IT2 default 500).
    pub fn new(k: &AcorRouting) -> Self {
        Acor {
            params: AcorParams::new(&k.acor, 500),
        }
    }
}

impl CycleAlgorithm for Acor {
    fn name(&self) -> &'static str {
        "acor"
    }
    fn vcs(&self) -> VcNeeds {
        VcNeeds::Template(VcTemplate::valiant())
    }
    fn decides_at_injection(&self) -> bool {
        true
    }
    fn recomputes(&self) -> bool {
        true
    }
    fn state(&self) -> StateNeeds {
        StateNeeds::Levels {
            params: self.params,
            congestion_bits: false,
        }
    }
    fn at_injection(
        &self,
        paths: &Paths,
        r: u32,
        dst: u32,
        st: &mut RouteState,
        _: &dyn Occupancy,
        rng: &mut ChaCha8Rng,
    ) {
        let Paths::Dragonfly(d) = paths else { return };
        let v = leveled(self.params.policy(st.level));
        if let Some(draw) = v.draw(&d.shape, r, dst, rng) {
            draw.take(&d.shape, r, dst, st);
        }
    }
}

/// PB-ACOR (spec §3.8): Piggyback's decision between the minimal path and a Valiant path
/// whose phase-A policy is the level's.
#[derive(Debug, Clone, Copy)]
pub struct PbAcor {
    /// Piggyback (its own Valiant policy unused).
    pub pb: Piggyback,
    /// The level parameters (IT2 default 50).
    pub params: AcorParams,
}

impl PbAcor {
    /// PB-ACOR from its `[routing]` keys (`routing.algorithm = "pb_acor"`; IT2 default 50).
    pub fn new(k: &PbAcorRouting, pkt_phits: u32) -> Self {
        let ugal = Ugal::with(Valiant::plain(), k.ugal_threshold, pkt_phits);
        PbAcor {
            pb: Piggyback::with(ugal, k.pb_factor, k.pb_threshold, pkt_phits),
            params: AcorParams::new(&k.acor, 50),
        }
    }
}

impl CycleAlgorithm for PbAcor {
    fn name(&self) -> &'static str {
        "pb_acor"
    }
    fn vcs(&self) -> VcNeeds {
        VcNeeds::Template(VcTemplate::valiant())
    }
    fn decides_at_injection(&self) -> bool {
        true
    }
    fn recomputes(&self) -> bool {
        true
    }
    fn state(&self) -> StateNeeds {
        StateNeeds::Levels {
            params: self.params,
            congestion_bits: true,
        }
    }
    fn at_injection(
        &self,
        paths: &Paths,
        r: u32,
        dst: u32,
        st: &mut RouteState,
        occ: &dyn Occupancy,
        rng: &mut ChaCha8Rng,
    ) {
        let Paths::Dragonfly(d) = paths else { return };
        let v = leveled(self.params.policy(st.level));
        let Some(draw) = v.draw(&d.shape, r, dst, rng) else {
            return;
        };
        if !self.pb.goes_minimally(d, r, dst, &draw, occ) {
            draw.take(&d.shape, r, dst, st);
        }
    }
    #[inline]
    fn congestion_bits(&self, q_gc: &[u64]) -> u64 {
        self.pb.rule.bits(q_gc)
    }
}
