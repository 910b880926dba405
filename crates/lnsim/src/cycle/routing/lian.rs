//! LIAN, Latency-Improved Adaptive Non-minimal routing for Dragonfly (Dragonfly spec §3.10,
//! Table 6-1): source-adaptive, reading only the injection router's own state.
//! - **Counters** (§3.10.1): the router's per-group counters, extended `inj_i + w · stor_i`
//!   (Eq. 6-1, w = 0.1) over a sliding window of HW = 200 cycles, or the injected-only /
//!   stored-only models ([`super::group_counters`]); G_{±o} is the counter of offset ±o.
//! - **l1** (§3.10.2): among the h groups at the far ends of the router's own global links,
//!   more than SGCth = 3 counters above GCSth = 5 (spec A7; `≥` with `sgc_inclusive`) use
//!   l1: the intermediate group is any group; otherwise one of those h groups.
//! - **l2** (§3.10.3): for a destination at offset `k·h + m` (`0 ≤ m < h`), the
//!   intermediate-local counters IL_{−k} (k ≥ 1) and IL_{−(k+1)} (m > 0) of Eq. 6-2 — the
//!   mirror IL_{+·} for negative offsets — above ILCth = 20 use l2: the intermediate is any
//!   router of its group; otherwise phase A ends where the global link lands.
//! - **Policy and UGAL** (§3.10.4): (l1, l2) gives -g-, -gl, lg- or lgl; the packet goes
//!   minimally iff Eq. 2-1 holds with T chosen by the destination group's counter
//!   ([`super::tpr::UgalModulation`]: < LI_l 150, ≤ LI_h −30, else −150 packets). H_VLB is the
//!   hop count of the drawn (possibly shortened) path.
//!
//! Intra-group packets weigh RVLB's intermediate in their own group (§3.3), T from the
//! counter of the own group (offset 0) \[A\]. Recomputation (spec A16) is on by default
//! (`routing.recompute`): a blocked Valiant-routed injection head draws a new intermediate
//! and UGAL decides again, keeping the policy of its first decision (kept in the header's
//! [`RouteState::level`] as 1 + its index) unless `routing.lian.recompute_policy`. VCs:
//! `[L, G, L, L, G, L]` (§3.0.3). The IL algebra relies on the palmtree arrangement's
//! rotational symmetry (§3.10.4); on a consecutive arrangement it is computed the same way
//! and means less.

use super::algorithm::{CycleAlgorithm, Paths, StateNeeds, VcNeeds};
use super::candidates::{Occupancy, RouteState};
use super::group_counters::{CounterParams, GroupCounters};
use super::tpr::UgalModulation;
use super::ugal::prefer_minimal;
use super::valiant::{Valiant, VlbPolicy};
use super::vc_template::VcTemplate;
use crate::config::{GroupCounterKeys, LianRouting};
use crate::error::{Error, Result};
use crate::topology::dragonfly::DragonflyShape;
use rand_chacha::ChaCha8Rng;

/// The phase-A policies by (l1, l2) (spec §3.10.4), and their order in the header.
const POLICIES: [VlbPolicy; 4] = [
    VlbPolicy::DashGDash,
    VlbPolicy::DashGl,
    VlbPolicy::LgDash,
    VlbPolicy::Lgl,
];

/// The policy index of (use l1, use l2) in [`POLICIES`].
#[inline]
fn policy_index(l1: bool, l2: bool) -> u8 {
    (l1 as u8) << 1 | l2 as u8
}

/// LIAN's thresholds for l1 and l2 (spec §3.10.2, §3.10.3, Table 6-1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HopRules {
    /// GCSth: a global counter above it is saturated.
    pub gcs_th: f64,
    /// SGCth: more saturated counters than this use l1 ...
    pub sgc_th: u32,
    /// ... or at least this many with `sgc_inclusive`.
    pub sgc_inclusive: bool,
    /// ILCth: an intermediate-local counter above it uses l2.
    pub ilc_th: f64,
}

impl HopRules {
    /// l1 (spec §3.10.2): are enough of the counters of the groups on router `r`'s own global
    /// links saturated?
    #[inline]
    pub fn use_l1(&self, s: &DragonflyShape, c: &GroupCounters, r: u32) -> bool {
        let (g, i) = (s.group(r), s.index(r));
        let mut n = 0;
        for q in 0..s.h {
            let gq = s.global_neighbour(g, i, q).0;
            n += (c.value(r, (gq + s.groups - g) % s.groups) > self.gcs_th) as u32;
        }
        if self.sgc_inclusive {
            n >= self.sgc_th
        } else {
            n > self.sgc_th
        }
    }

    /// l2 (spec §3.10.3): is IL_{−k} or IL_{−(k+1)} of the destination offset `o` (0 <
    /// `o` < groups) above ILCth (IL_{+·} for a negative offset)?
    #[inline]
    pub fn use_l2(&self, s: &DragonflyShape, c: &GroupCounters, r: u32, o: u32) -> bool {
        let (h, hh) = (s.h, s.h * s.h);
        let (neg, x) = if o <= hh {
            (false, o)
        } else {
            (true, s.groups - o)
        };
        let (k, m) = (x / h, x % h);
        (k >= 1 && il(s, c, r, k, neg) > self.ilc_th)
            || (m > 0 && il(s, c, r, k + 1, neg) > self.ilc_th)
    }
}

/// The intermediate-local counter IL_{−k} of router `r` (IL_{+k} when `neg`), Eq. 6-2:
/// `Σ_{j=−(h−1)}^{h−1} (h − |j|)/h · G_{±(k·h + j)}`, offsets taken modulo the number of
/// groups (2h² + 1), which wraps IL_{−h} onto the negative offsets (spec A.2).
pub fn il(s: &DragonflyShape, c: &GroupCounters, r: u32, k: u32, neg: bool) -> f64 {
    let (h, n) = (s.h as i64, s.groups as i64);
    let mut sum = 0.0;
    for j in -(h - 1)..h {
        let x = k as i64 * h + j;
        let o = if neg { -x } else { x }.rem_euclid(n) as u32;
        sum += (h - j.abs()) as f64 * c.value(r, o);
    }
    sum / h as f64
}

/// LIAN on a Dragonfly (spec §3.10).
#[derive(Debug, Clone, Copy)]
pub struct Lian {
    /// The counters.
    pub counters: CounterParams,
    /// T by the destination group's counter.
    pub modulation: UgalModulation,
    /// The l1 and l2 rules.
    pub rules: HopRules,
    /// Recomputation of blocked Valiant-routed injection heads (`routing.recompute`, default
    /// true).
    pub recompute: bool,
    /// A re-routed head chooses its policy again (`routing.lian.recompute_policy`).
    pub recompute_policy: bool,
}

impl Lian {
    /// The phase-A policy of a packet at router `r` towards router `dst` (spec §3.10.4).
    #[inline]
    pub fn policy(&self, s: &DragonflyShape, c: &GroupCounters, r: u32, dst: u32) -> u8 {
        let o = c.offset(r, dst);
        if o == 0 {
            // intra-group: RVLB (the policy does not apply)
            return policy_index(true, true);
        }
        policy_index(self.rules.use_l1(s, c, r), self.rules.use_l2(s, c, r, o))
    }
}

/// LIAN's counter parameters from `[routing.lian]` (spec §3.10.1, Table 6-1: HW = 200 cycles,
/// the extended model, w = 0.1): what LIAN reads and what the counter observer
/// (`stats.group_counters`, Fig 6-8) keeps under any routing.
pub fn counter_params(l: &GroupCounterKeys) -> Result<CounterParams> {
    let w = l.w;
    if !w.is_finite() || w < 0.0 {
        return Err(Error::input("routing.lian.w", "must be a finite w ≥ 0"));
    }
    Ok(CounterParams {
        window: l.window_cycles,
        mode: l.counters,
        w,
    })
}

impl Lian {
    /// LIAN from its `[routing]` keys (`routing.algorithm = "lian"`) for packets of
    /// `pkt_phits` phits.
    pub fn new(k: &LianRouting, pkt_phits: u32) -> Result<Self> {
        let l = &k.lian;
        let counters = GroupCounterKeys {
            window_cycles: l.window_cycles,
            counters: l.counters,
            w: l.w,
        };
        Ok(Lian {
            counters: counter_params(&counters)?,
            modulation: UgalModulation::new(
                "lian",
                l.li_low,
                l.li_high,
                l.t_benign,
                l.t_mix,
                l.t_adversarial,
                pkt_phits,
            )?,
            rules: HopRules {
                gcs_th: l.gcs_th,
                sgc_th: l.sgc_th,
                sgc_inclusive: l.sgc_inclusive,
                ilc_th: l.ilc_th,
            },
            recompute: k.recompute,
            recompute_policy: l.recompute_policy,
        })
    }
}

impl CycleAlgorithm for Lian {
    fn name(&self) -> &'static str {
        "lian"
    }
    fn vcs(&self) -> VcNeeds {
        VcNeeds::Template(VcTemplate::valiant())
    }
    fn decides_at_injection(&self) -> bool {
        true
    }
    fn recomputes(&self) -> bool {
        self.recompute
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
        let Some(c) = occ.counters() else { return };
        let s = &d.shape;
        if r == dst {
            return;
        }
        let t = self.modulation.threshold(c.value(r, c.offset(r, dst)));
        let q_min = d.first_hop_q(r, dst, occ);
        if t >= 0 && q_min * s.min_hops(r, dst) as u64 <= t as u64 {
            // Eq. 2-1 holds whatever the Valiant candidate (Q_VLB · H_VLB ≥ 0): minimal, with
            // no policy to choose and no intermediate to draw
            return;
        }
        let pi = if st.level != 0 && !self.recompute_policy {
            st.level - 1
        } else {
            self.policy(s, c, r, dst)
        };
        st.level = pi + 1;
        let v = Valiant {
            policy: POLICIES[pi as usize],
            source_group: false,
            restricted: true,
            recompute: self.recompute,
        };
        let Some(draw) = v.draw(s, r, dst, rng) else {
            return;
        };
        let q_vlb = d.first_hop_q(r, draw.mid.router, occ);
        if !prefer_minimal(q_min, draw.h_min, q_vlb, draw.h_vlb, t) {
            draw.take(s, r, dst, st);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::LianCounters;
    use crate::cycle::routing::candidates::NO_ROUTER;
    use crate::cycle::routing::dragonfly_paths::DragonflyPaths;
    use crate::cycle::routing::valiant::{path_class, PathClass};
    use crate::topology::dragonfly::Arrangement;
    use rand::SeedableRng;

    fn h6() -> DragonflyShape {
        DragonflyShape::new(6, 12, 6, Arrangement::Palmtree).unwrap()
    }

    /// Injected-only counters (exact integers) for `s`'s routers.
    fn counters(s: &DragonflyShape) -> GroupCounters {
        let p = CounterParams {
            window: 200,
            mode: LianCounters::Injected,
            w: 0.0,
        };
        GroupCounters::new(s.routers(), s.a, s.groups, 1024, p)
    }

    /// Router `r` injects `n` packets towards the group at offset `o` (at cycle 0).
    fn inject(s: &DragonflyShape, c: &mut GroupCounters, r: u32, o: u32, n: u32) {
        let dst = ((s.group(r) + o) % s.groups) * s.a;
        for _ in 0..n {
            c.stored(r, dst);
            c.injected(r, dst, 0);
        }
    }

    /// Eq. 6-2 against the thesis's worked examples (spec §3.10.3, A.2).
    #[test]
    fn il_counters_match_the_worked_examples() {
        let s = h6();
        let r = 5;
        // +2/+4 mix: IL_{−1} = (2/6)G2 + (4/6)G4; +3/+9: (3/6)G3 + (3/6)G9
        let mut c = counters(&s);
        inject(&s, &mut c, r, 2, 12);
        inject(&s, &mut c, r, 4, 30);
        assert!((il(&s, &c, r, 1, false) - (2.0 * 12.0 + 4.0 * 30.0) / 6.0).abs() < 1e-9);
        assert_eq!(
            il(&s, &c, r, 1, true),
            0.0,
            "IL_{{+1}} reads negative offsets"
        );
        let mut c = counters(&s);
        inject(&s, &mut c, r, 9, 18);
        inject(&s, &mut c, r, 11, 6);
        // +9/+11: IL_{−1} = (3/6)G9 + (1/6)G11, IL_{−2} = (3/6)G9 + (5/6)G11
        assert!((il(&s, &c, r, 1, false) - (3.0 * 18.0 + 6.0) / 6.0).abs() < 1e-9);
        assert!((il(&s, &c, r, 2, false) - (3.0 * 18.0 + 5.0 * 6.0) / 6.0).abs() < 1e-9);
        // ADV+6k alone: IL_{−k} = G_{6k}; the mirror for ADV−6k
        let mut c = counters(&s);
        inject(&s, &mut c, r, s.groups - 12, 24);
        assert_eq!(il(&s, &c, r, 2, true), 24.0);
        assert_eq!(il(&s, &c, r, 2, false), 0.0);
        // IL_{−6} wraps onto −36 … −32 (spec A.2): G_{−36} weighs 5/6 in it
        let mut c = counters(&s);
        inject(&s, &mut c, r, s.groups - 36, 6);
        assert!((il(&s, &c, r, 6, false) - 5.0).abs() < 1e-9);
    }

    /// l2 checks IL_{−k} and IL_{−(k+1)} of the destination's offset k·h + m (spec §3.10.3).
    #[test]
    fn l2_reads_the_counters_of_the_destination_offset() {
        let s = h6();
        let rules = HopRules {
            gcs_th: 5.0,
            sgc_th: 3,
            sgc_inclusive: false,
            ilc_th: 20.0,
        };
        let r = 30;
        let mut c = counters(&s);
        // 21 packets towards +6: IL_{−1} = 21 > 20, IL_{−2} = 0
        inject(&s, &mut c, r, 6, 21);
        assert!(rules.use_l2(&s, &c, r, 6)); // k = 1, m = 0: IL_{−1}
        assert!(rules.use_l2(&s, &c, r, 3)); // k = 0, m = 3: IL_{−1}
        assert!(rules.use_l2(&s, &c, r, 8)); // k = 1, m = 2: IL_{−1}, IL_{−2}
        assert!(!rules.use_l2(&s, &c, r, 12)); // k = 2, m = 0: IL_{−2} only
        assert!(!rules.use_l2(&s, &c, r, 13)); // IL_{−2}, IL_{−3}
        assert!(!rules.use_l2(&s, &c, r, s.groups - 6)); // −6: IL_{+1}
                                                         // exactly ILCth is not above it
        let mut c = counters(&s);
        inject(&s, &mut c, r, 6, 20);
        assert!(!rules.use_l2(&s, &c, r, 6));
    }

    /// l1 counts the saturated counters of the groups on the router's own global links
    /// (spec §3.10.2, A7).
    #[test]
    fn l1_needs_more_than_sgcth_saturated_own_link_groups() {
        let s = h6();
        let r = 2 * s.a + 11; // R_11 of group 2: its links lead to offsets +1 … +6
        let own: Vec<u32> = (0..s.h)
            .map(|q| (s.global_neighbour(2, 11, q).0 + s.groups - 2) % s.groups)
            .collect();
        let mut sorted = own.clone();
        sorted.sort();
        assert_eq!(sorted, [1, 2, 3, 4, 5, 6]);
        let mut rules = HopRules {
            gcs_th: 5.0,
            sgc_th: 3,
            sgc_inclusive: false,
            ilc_th: 20.0,
        };
        let mut c = counters(&s);
        for &o in &own[..3] {
            inject(&s, &mut c, r, o, 6);
        }
        // a saturated counter of a group not on its links does not count
        inject(&s, &mut c, r, 20, 50);
        // at the threshold (5) is not saturated
        inject(&s, &mut c, r, own[3], 5);
        assert!(!rules.use_l1(&s, &c, r), "3 saturated: not more than SGCth");
        rules.sgc_inclusive = true;
        assert!(rules.use_l1(&s, &c, r), "3 ≥ SGCth");
        rules.sgc_inclusive = false;
        inject(&s, &mut c, r, own[3], 1);
        assert!(rules.use_l1(&s, &c, r), "4 > SGCth");
        // another router of the group sees none of it
        assert!(!rules.use_l1(&s, &c, r - 1));
    }

    /// Empty queues everywhere.
    struct Idle {
        c: GroupCounters,
    }
    impl Occupancy for Idle {
        fn q(&self, _: u32, _: u32, _: u8) -> u64 {
            0
        }
        fn pb_bits(&self, _: u32, _: u32) -> u64 {
            0
        }
        fn counters(&self) -> Option<&GroupCounters> {
            Some(&self.c)
        }
    }

    /// LIAN's `[routing]` keys, all at their defaults.
    fn defaults() -> LianRouting {
        toml::from_str("").unwrap()
    }

    /// The whole decision on scripted counters: the path classes a router's packets to one
    /// destination take (spec §3.10.4).
    #[test]
    fn the_policy_and_the_ugal_modulation() {
        let s = h6();
        let paths = Paths::Dragonfly(DragonflyPaths::new(s, VcTemplate::valiant()));
        let lian = Lian::new(&defaults(), 10).unwrap();
        let r = 11; // R_11 of group 0
        let dst = s.a + 3; // group 1, offset +1
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let classes = |c: GroupCounters, rng: &mut ChaCha8Rng| {
            let occ = Idle { c };
            let mut n = [0u32; PathClass::COUNT];
            for _ in 0..300 {
                let mut st = RouteState::default();
                lian.at_injection(&paths, r, dst, &mut st, &occ, rng);
                n[path_class(&s, r, &st) as usize] += 1;
            }
            n
        };
        // no traffic: benign (T = +1500): always minimal
        let n = classes(counters(&s), &mut rng);
        assert_eq!(n[PathClass::Min as usize], 300, "{n:?}");
        // 10 packets towards +1 (adversarial: T = −1500), nothing else: -g- (the only
        // non-minimal class; a -g- draw through the destination group itself stays minimal)
        let mut c = counters(&s);
        inject(&s, &mut c, r, 1, 10);
        let n = classes(c, &mut rng);
        assert_eq!(n[PathClass::DashGDash as usize] + n[0], 300, "{n:?}");
        assert!(n[PathClass::DashGDash as usize] > 200, "{n:?}");
        // IL_{−1} above 20 as well: -gl
        let mut c = counters(&s);
        inject(&s, &mut c, r, 1, 10);
        inject(&s, &mut c, r, 5, 20);
        inject(&s, &mut c, r, 6, 14);
        // IL_{−1} = (1/6)·10 + (5/6)·20 + 14 ≈ 32.3; three own-link groups saturated (not l1)
        assert!((il(&s, &c, r, 1, false) - (10.0 + 100.0 + 84.0) / 6.0).abs() < 1e-9);
        let n = classes(c, &mut rng);
        // (an intermediate drawn at the landing router itself makes a -g- path)
        let no_l1 = n[0] + n[PathClass::DashGl as usize] + n[PathClass::DashGDash as usize];
        assert_eq!(no_l1, 300, "{n:?}");
        assert!(n[PathClass::DashGl as usize] > 200, "{n:?}");
        // four of its own links' groups saturated (+1 … +4 above 5): l1 too, lgl
        let mut c = counters(&s);
        for o in 1..=4 {
            inject(&s, &mut c, r, o, 6);
        }
        inject(&s, &mut c, r, 6, 20); // IL_{−1} > 20
        let n = classes(c, &mut rng);
        assert!(n[PathClass::Lgl as usize] > 200, "{n:?}");
        // mixed traffic (3 ≤ G_{+1} ≤ 5: T = −300) on empty queues still goes Valiant
        let mut c = counters(&s);
        inject(&s, &mut c, r, 1, 4);
        let n = classes(c, &mut rng);
        assert!(n[0] < 100, "{n:?}");
    }

    /// A re-routed head keeps its first policy unless `recompute_policy`.
    #[test]
    fn a_re_routed_head_keeps_its_policy() {
        let s = h6();
        let paths = Paths::Dragonfly(DragonflyPaths::new(s, VcTemplate::valiant()));
        let mut cfg = defaults();
        let r = 11;
        let dst = s.a + 3;
        let mut c = counters(&s);
        inject(&s, &mut c, r, 1, 10);
        let occ = Idle { c };
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for (again, want) in [(false, VlbPolicy::Lgl), (true, VlbPolicy::DashGDash)] {
            cfg.lian.recompute_policy = again;
            let lian = Lian::new(&cfg, 10).unwrap();
            // the first decision chose lgl (as the header says)
            let mut st = RouteState {
                level: 1 + policy_index(true, true),
                ..RouteState::default()
            };
            lian.at_injection(&paths, r, dst, &mut st, &occ, &mut rng);
            assert_eq!(POLICIES[st.level as usize - 1], want);
            assert_ne!(st.inter, NO_ROUTER, "adversarial on empty queues: Valiant");
        }
        // recomputation is on by default (spec A16), off on request
        assert!(Lian::new(&defaults(), 10).unwrap().recomputes());
        cfg.recompute = false;
        assert!(!Lian::new(&cfg, 10).unwrap().recomputes());
    }
}
