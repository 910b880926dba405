//! UGAL, Universal Globally-Adaptive Load-balancing with source-router queue information
//! (Dragonfly spec §3.5): route minimally iff `Q_MIN · H_MIN ≤ Q_VLB · H_VLB + T` (Eq. 2-1),
//! the occupancies in phits (§2.6) and T in packets times the packet size; Q of each path is
//! that of its first hop at the source router, H its hop count.

use super::algorithm::{CycleAlgorithm, Paths, VcNeeds};
use super::candidates::{Occupancy, RouteState};
use super::dragonfly_paths::DragonflyPaths;
use super::valiant::{Valiant, ValiantDraw};
use super::vc_template::VcTemplate;
use crate::config::RoutingConfig;
use crate::error::Result;
use rand_chacha::ChaCha8Rng;

/// UGAL on a Dragonfly: the packet goes minimally, or through the Valiant intermediate it drew,
/// whichever Eq. 2-1 prefers at its injection router.
#[derive(Debug, Clone, Copy)]
pub struct Ugal {
    /// The Valiant draw weighed against the minimal path.
    pub valiant: Valiant,
    /// T of Eq. 2-1 in phits (`routing.ugal_threshold` packets, default 0).
    pub t_phits: i64,
}

impl Ugal {
    /// Eq. 2-1 at router `r` for a packet to `dst` with Valiant draw `v`: true when it goes
    /// minimally.
    #[inline]
    pub fn minimal_first(
        &self,
        d: &DragonflyPaths,
        r: u32,
        dst: u32,
        v: &ValiantDraw,
        occ: &dyn Occupancy,
    ) -> bool {
        let q_min = d.first_hop_q(r, dst, occ);
        let q_vlb = d.first_hop_q(r, v.mid.router, occ);
        prefer_minimal(q_min, v.h_min, q_vlb, v.h_vlb, self.t_phits)
    }
}

impl CycleAlgorithm for Ugal {
    fn new(cfg: &RoutingConfig, pkt_phits: u32) -> Result<Self> {
        Ok(Ugal {
            valiant: Valiant::new(cfg, pkt_phits)?,
            t_phits: cfg.ugal_threshold * pkt_phits as i64,
        })
    }
    fn name(&self) -> &'static str {
        "ugal"
    }
    fn vcs(&self) -> VcNeeds {
        VcNeeds::Template(VcTemplate::valiant())
    }
    fn keys(&self) -> &'static [&'static str] {
        &[
            "vlb_policy",
            "valiant_source_group",
            "vlb_restricted",
            "ugal_threshold",
        ]
    }
    fn decides_at_injection(&self) -> bool {
        true
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
        let Some(v) = self.valiant.draw(&d.shape, r, dst, rng) else {
            return;
        };
        if !self.minimal_first(d, r, dst, &v, occ) {
            v.take(&d.shape, r, dst, st);
        }
    }
    fn vlb_policy(&self) -> Option<&'static str> {
        Some(self.valiant.policy.name())
    }
}

/// Eq. 2-1: true when the packet goes minimally. `t_phits` is T already in phits.
#[inline]
pub fn prefer_minimal(q_min: u64, h_min: u32, q_vlb: u64, h_vlb: u32, t_phits: i64) -> bool {
    (q_min * h_min as u64) as i64 <= (q_vlb * h_vlb as u64) as i64 + t_phits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq_2_1() {
        // empty network: minimal
        assert!(prefer_minimal(0, 3, 0, 6, 0));
        // minimal queue 3 packets over 3 hops vs Valiant 1 packet over 6 hops: 90 > 60
        assert!(!prefer_minimal(30, 3, 10, 6, 0));
        // a threshold of 3 packets (30 phits) tips it back: 90 <= 60 + 30
        assert!(prefer_minimal(30, 3, 10, 6, 30));
        // a negative threshold favours Valiant
        assert!(!prefer_minimal(10, 3, 5, 6, -1));
    }
}
