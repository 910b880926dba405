//! PB, Piggyback (Dragonfly spec §3.6): every router marks each of its global channels
//! congested when `Q_gc > F · Q̄ + T` (Eq. 2-2, Q̄ the mean over the router's h global ports),
//! and shares the h bits with its group, delayed by the local link latency. A packet goes
//! minimally only if the global channel of its minimal path is not congested and UGAL's
//! Eq. 2-1 holds. With `routing.recompute` (PB-Recomp, spec §3.4) a Valiant-routed injection
//! head whose first hop is blocked is re-decided every cycle: a new intermediate and a new
//! minimal-or-Valiant choice.

use super::algorithm::{CycleAlgorithm, Paths, StateNeeds, VcNeeds};
use super::candidates::{Occupancy, RouteState};
use super::dragonfly_paths::DragonflyPaths;
use super::ugal::Ugal;
use super::valiant::ValiantDraw;
use super::vc_template::VcTemplate;
use crate::config::RoutingConfig;
use crate::error::Result;
use rand_chacha::ChaCha8Rng;

/// PB on a Dragonfly: UGAL, and a minimal path only when its global channel is not marked
/// congested by the router that owns it.
#[derive(Debug, Clone, Copy)]
pub struct Piggyback {
    /// UGAL's decision (Eq. 2-1), with its Valiant draw.
    pub ugal: Ugal,
    /// The congestion-bit rule (Eq. 2-2).
    pub rule: CongestionRule,
}

/// Eq. 2-2's parameters: a global channel is congested when `Q_gc > F · Q̄ + T`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CongestionRule {
    /// F in percent (`routing.pb_factor`, default 120).
    pub factor_pct: u64,
    /// T in phits (`routing.pb_threshold` packets, default 5).
    pub t_phits: u64,
}

impl CongestionRule {
    /// The congestion bits of one router from the occupancies of its global ports.
    #[inline]
    pub fn bits(&self, q_gc: &[u64]) -> u64 {
        congested_bits(q_gc, self.factor_pct, self.t_phits)
    }
}

impl Piggyback {
    /// PB's decision at router `r` for a packet to `dst` with Valiant candidate `v`: true when
    /// it goes minimally — Eq. 2-1 holds and the minimal path's global channel is not marked
    /// congested by the router that owns it (spec §3.6).
    #[inline]
    pub fn goes_minimally(
        &self,
        d: &DragonflyPaths,
        r: u32,
        dst: u32,
        v: &ValiantDraw,
        occ: &dyn Occupancy,
    ) -> bool {
        let s = &d.shape;
        let mut minimal = self.ugal.minimal_first(d, r, dst, v, occ);
        if minimal && s.group(r) != s.group(dst) {
            // the global channel of the minimal path, as its owner's bits say
            let (eo, q) = s.exit(s.group(r), s.group(dst));
            let owner = s.group(r) * s.a + eo;
            minimal = occ.pb_bits(r, owner) >> q & 1 == 0;
        }
        minimal
    }
}

impl CycleAlgorithm for Piggyback {
    fn new(cfg: &RoutingConfig, pkt_phits: u32) -> Result<Self> {
        Ok(Piggyback {
            ugal: Ugal::new(cfg, pkt_phits)?,
            rule: CongestionRule {
                factor_pct: cfg.pb_factor as u64,
                t_phits: cfg.pb_threshold as u64 * pkt_phits as u64,
            },
        })
    }
    fn name(&self) -> &'static str {
        "pb"
    }
    fn vcs(&self) -> VcNeeds {
        VcNeeds::Template(VcTemplate::valiant())
    }
    fn keys(&self) -> &'static [&'static str] {
        &[
            "vlb_policy",
            "valiant_source_group",
            "vlb_restricted",
            "recompute",
            "ugal_threshold",
            "pb_factor",
            "pb_threshold",
        ]
    }
    fn decides_at_injection(&self) -> bool {
        true
    }
    fn recomputes(&self) -> bool {
        self.ugal.valiant.recompute
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
        let s = &d.shape;
        let Some(v) = self.ugal.valiant.draw(s, r, dst, rng) else {
            return;
        };
        if !self.goes_minimally(d, r, dst, &v, occ) {
            v.take(s, r, dst, st);
        }
    }
    fn vlb_policy(&self) -> Option<&'static str> {
        Some(self.ugal.valiant.policy.name())
    }
    fn state(&self) -> StateNeeds {
        StateNeeds::CongestionBits
    }
    #[inline]
    fn congestion_bits(&self, q_gc: &[u64]) -> u64 {
        self.rule.bits(q_gc)
    }
}

/// The congestion bits of one router's global ports from their occupancies (phits):
/// bit q set when `q_gc[q] · 100 > factor_pct · mean + 100 · t_phits` (exact integer form of
/// Eq. 2-2 with F in percent).
#[inline]
pub fn congested_bits(q_gc: &[u64], factor_pct: u64, t_phits: u64) -> u64 {
    let h = q_gc.len() as u64;
    let sum: u64 = q_gc.iter().sum();
    let mut bits = 0u64;
    for (q, &v) in q_gc.iter().enumerate() {
        // v > F/100 · sum/h + T  ⇔  100·h·v > F·sum + 100·h·T
        if 100 * h * v > factor_pct * sum + 100 * h * t_phits {
            bits |= 1 << q;
        }
    }
    bits
}

/// Ring of the group-wide congestion bits, one word per router per cycle, deep enough to read
/// every router's bits as they were `delay` cycles ago.
#[derive(Debug, Clone)]
pub struct PiggybackState {
    routers: usize,
    depth: usize,
    delay: u64,
    bits: Vec<u64>,
}

impl PiggybackState {
    /// State for `routers` routers whose bits reach their group neighbours after `delay` cycles.
    pub fn new(routers: usize, delay: u64) -> Self {
        let depth = delay as usize + 1;
        PiggybackState {
            routers,
            depth,
            delay,
            bits: vec![0; routers * depth],
        }
    }
    /// Records router `r`'s bits computed at cycle `now`.
    #[inline]
    pub fn publish(&mut self, now: u64, r: u32, bits: u64) {
        let slot = (now as usize) % self.depth;
        self.bits[slot * self.routers + r as usize] = bits;
    }
    /// Router `r`'s bits as seen at cycle `now` by router `reader`: its own bits are current,
    /// a neighbour's are `delay` cycles old (zero before the first broadcast arrives).
    #[inline]
    pub fn read(&self, now: u64, reader: u32, r: u32) -> u64 {
        let age = if reader == r { 0 } else { self.delay };
        if now < age {
            return 0;
        }
        let slot = ((now - age) as usize) % self.depth;
        self.bits[slot * self.routers + r as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq_2_2_marks_the_link_above_f_times_the_mean_plus_t() {
        // F = 120 %, T = 5 packets of 10 phits = 50 phits
        assert_eq!(congested_bits(&[0, 0, 0], 120, 50), 0);
        // mean = 100: threshold 120 + 50 = 170
        assert_eq!(congested_bits(&[171, 64, 65], 120, 50), 0b001);
        assert_eq!(congested_bits(&[170, 65, 65], 120, 50), 0);
    }

    #[test]
    fn neighbours_see_the_bits_after_the_local_latency() {
        let mut s = PiggybackState::new(4, 15);
        s.publish(100, 2, 0b10);
        assert_eq!(s.read(100, 2, 2), 0b10);
        assert_eq!(s.read(100, 1, 2), 0, "not yet arrived");
        for t in 101..=115 {
            s.publish(t, 2, 0b01);
        }
        assert_eq!(s.read(115, 1, 2), 0b10, "15 cycles old");
        assert_eq!(s.read(115, 2, 2), 0b01);
    }
}
