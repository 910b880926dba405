//! TPR, Traffic-Pattern-based adaptive Routing, as the thesis implements it (Dragonfly spec
//! §3.9, Table 6-1): UGAL (Eq. 2-1) against a VLB_lgl candidate whose threshold T is chosen
//! by the injection router's counter of the packets it injected towards the destination group
//! over a sliding window of HW = 200 cycles ([`super::group_counters`], w = 0): below LI_l = 3
//! the traffic is benign (T = 150 packets, biased to MIN), up to LI_h = 5 mixed (T = −30),
//! above adversarial (T = −150, biased to Valiant) ([`UgalModulation`], boundaries as spec
//! A7). VCs as PB: `[L, G, L, L, G, L]`. The known flaw (spec §3.9, Fig 6-1) is reproduced,
//! not corrected: at saturation the carried-traffic counter falls and routing turns to MIN.
//!
//! Intra-group packets weigh RVLB's intermediate (spec §3.3) with T from the counter of the
//! router's own group (offset 0) \[A\]: the thesis counts inter-group traffic only.

use super::algorithm::{CycleAlgorithm, Paths, StateNeeds, VcNeeds};
use super::candidates::{Occupancy, RouteState};
use super::group_counters::{CounterMode, CounterParams};
use super::ugal::prefer_minimal;
use super::valiant::Valiant;
use super::vc_template::VcTemplate;
use crate::config::TprRouting;
use crate::error::{Error, Result};
use rand_chacha::ChaCha8Rng;

/// UGAL's threshold T chosen by a traffic counter (spec §3.9, §3.10.4, Table 6-1): counter
/// `< LI_l` benign, `≤ LI_h` mixed, above adversarial (spec A7).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UgalModulation {
    /// LI_l and LI_h (packets per window).
    pub li_low: f64,
    /// See [`UgalModulation::li_low`].
    pub li_high: f64,
    /// T in phits for benign, mixed and adversarial traffic.
    pub t_phits: [i64; 3],
}

impl UgalModulation {
    /// From the keys of `[routing.<table>]` (`table` names them in errors); T given in
    /// packets of `pkt_phits` phits.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        table: &str,
        li_low: f64,
        li_high: f64,
        t_benign: i64,
        t_mix: i64,
        t_adversarial: i64,
        pkt_phits: u32,
    ) -> Result<Self> {
        let (lo, hi) = (li_low, li_high);
        if lo > hi {
            return Err(Error::input(
                &format!("routing.{table}.li_high"),
                format!("{hi} is below li_low ({lo}); LI_h must be at least LI_l"),
            ));
        }
        let l = pkt_phits as i64;
        Ok(UgalModulation {
            li_low: lo,
            li_high: hi,
            t_phits: [t_benign * l, t_mix * l, t_adversarial * l],
        })
    }

    /// T in phits for a counter value `c`.
    #[inline]
    pub fn threshold(&self, c: f64) -> i64 {
        if c < self.li_low {
            self.t_phits[0]
        } else if c <= self.li_high {
            self.t_phits[1]
        } else {
            self.t_phits[2]
        }
    }
}

/// TPR on a Dragonfly (spec §3.9).
#[derive(Debug, Clone, Copy)]
pub struct Tpr {
    /// The Valiant candidate: `routing.vlb_policy` (default lgl, the thesis's TPR; the other
    /// policies for Fig 6-2/6-3, spec §6.4 L2-L3), RVLB, the source group excluded;
    /// recomputation from `routing.recompute` (default false, as PB).
    pub valiant: Valiant,
    /// T by the destination group's counter.
    pub modulation: UgalModulation,
    /// The counters (injected packets, w = 0).
    pub counters: CounterParams,
}

impl Tpr {
    /// TPR from its `[routing]` keys (`routing.algorithm = "tpr"`) for packets of `pkt_phits`
    /// phits.
    pub fn new(k: &TprRouting, pkt_phits: u32) -> Result<Self> {
        let t = &k.tpr;
        Ok(Tpr {
            valiant: Valiant {
                policy: k.vlb_policy,
                source_group: false,
                restricted: true,
                recompute: k.recompute,
            },
            modulation: UgalModulation::new(
                "tpr",
                t.li_low,
                t.li_high,
                t.t_benign,
                t.t_mix,
                t.t_adversarial,
                pkt_phits,
            )?,
            counters: CounterParams {
                window: t.window_cycles,
                mode: CounterMode::Injected,
                w: 0.0,
            },
        })
    }
}

impl CycleAlgorithm for Tpr {
    fn name(&self) -> &'static str {
        "tpr"
    }
    fn vcs(&self) -> VcNeeds {
        VcNeeds::Template(VcTemplate::valiant())
    }
    fn decides_at_injection(&self) -> bool {
        true
    }
    fn recomputes(&self) -> bool {
        self.valiant.recompute
    }
    fn state(&self) -> StateNeeds {
        StateNeeds::GroupCounters(self.counters)
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
        if r == dst {
            return;
        }
        let c = occ.counters().map_or(0.0, |c| c.value(r, c.offset(r, dst)));
        let t = self.modulation.threshold(c);
        let q_min = d.first_hop_q(r, dst, occ);
        if t >= 0 && q_min * d.shape.min_hops(r, dst) as u64 <= t as u64 {
            // Eq. 2-1 holds whatever the Valiant candidate (Q_VLB · H_VLB ≥ 0): minimal
            return;
        }
        let Some(v) = self.valiant.draw(&d.shape, r, dst, rng) else {
            return;
        };
        let q_vlb = d.first_hop_q(r, v.mid.router, occ);
        if !prefer_minimal(q_min, v.h_min, q_vlb, v.h_vlb, t) {
            v.take(&d.shape, r, dst, st);
        }
    }
    fn vlb_policy(&self) -> Option<&'static str> {
        Some(self.valiant.policy.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cycle::routing::candidates::NO_ROUTER;
    use crate::cycle::routing::dragonfly_paths::DragonflyPaths;
    use crate::cycle::routing::group_counters::GroupCounters;
    use crate::topology::dragonfly::{Arrangement, DragonflyShape};
    use rand::SeedableRng;

    #[test]
    fn thresholds_by_region_of_table_6_1() {
        let d = crate::config::TprConfig::default();
        let (tb, tm, ta) = (d.t_benign, d.t_mix, d.t_adversarial);
        let m = UgalModulation::new("tpr", d.li_low, d.li_high, tb, tm, ta, 10).unwrap();
        assert_eq!(m.threshold(0.0), 1500);
        assert_eq!(m.threshold(2.9), 1500);
        // LI_l itself is mixed, LI_h itself still mixed (spec A7)
        assert_eq!(m.threshold(3.0), -300);
        assert_eq!(m.threshold(5.0), -300);
        assert_eq!(m.threshold(5.1), -1500);
        let e = UgalModulation::new("tpr", 6.0, 5.0, tb, tm, ta, 10)
            .unwrap_err()
            .to_string();
        assert!(e.contains("routing.tpr.li_high"), "{e}");
    }

    /// Scripted occupancies: every queue holds `q` phits.
    struct Flat {
        q: u64,
        c: GroupCounters,
    }
    impl Occupancy for Flat {
        fn q(&self, _: u32, _: u32, _: u8) -> u64 {
            self.q
        }
        fn pb_bits(&self, _: u32, _: u32) -> u64 {
            0
        }
        fn counters(&self) -> Option<&GroupCounters> {
            Some(&self.c)
        }
    }

    /// TPR's decision on scripted counters: with equal queues, Eq. 2-1 alone depends on T —
    /// MIN when benign whatever the queues, Valiant when adversarial unless the minimal queue
    /// is far shorter.
    #[test]
    fn decisions_follow_the_destination_groups_counter() {
        let s = DragonflyShape::new(2, 4, 2, Arrangement::Palmtree).unwrap();
        let paths = Paths::Dragonfly(DragonflyPaths::new(s, VcTemplate::valiant()));
        let cfg: TprRouting = toml::from_str("[tpr]\nli_low = 2.0\nli_high = 4.0").unwrap();
        let tpr = Tpr::new(&cfg, 10).unwrap();
        let (r, dst) = (0, 3 * s.a + 1); // router 0 to a router of group 3
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        // how many of 200 decisions go Valiant with `n` packets injected towards group 3 and
        // every queue at `q` phits
        let mut valiant = |n: u32, q: u64| {
            let p = tpr.counters;
            let mut c = GroupCounters::new(s.routers(), s.a, s.groups, 64, p);
            for k in 0..n {
                c.stored(r, dst);
                c.injected(r, dst, k as u64);
            }
            let occ = Flat { q, c };
            (0..200)
                .filter(|_| {
                    let mut st = RouteState::default();
                    tpr.at_injection(&paths, r, dst, &mut st, &occ, &mut rng);
                    st.inter != NO_ROUTER
                })
                .count()
        };
        // benign (1 < LI_l): T = +1500 phits, minimal even with long queues
        assert_eq!(valiant(1, 0), 0);
        assert_eq!(valiant(1, 300), 0);
        // mixed (2 ≤ c ≤ 4): T = −300 phits; empty queues: 0 ≤ 0 − 300 fails, all Valiant;
        // queues of 200 phits: 200·H_MIN ≤ 200·H_VLB − 300 holds for H_VLB ≥ H_MIN + 2
        assert_eq!(valiant(3, 0), 200);
        let some = valiant(4, 200);
        assert!(some < 200, "{some}");
        // adversarial (5 > LI_h): T = −1500; empty queues all Valiant, and 200-phit queues
        // still nearly all (200·(H_VLB − H_MIN) ≥ 1500 needs 8 more hops: never)
        assert_eq!(valiant(5, 0), 200);
        assert_eq!(valiant(5, 200), 200);
        // the window: counted injections expire, the traffic turns benign again
        let p = tpr.counters;
        let mut c = GroupCounters::new(s.routers(), s.a, s.groups, 64, p);
        for k in 0..6 {
            c.stored(r, dst);
            c.injected(r, dst, k);
        }
        c.expire(r, 205);
        assert_eq!(c.value(r, c.offset(r, dst)), 0.0);
    }
}
