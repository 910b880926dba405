//! Valiant load balancing on a Dragonfly (Dragonfly spec §3.0.2, §3.2, §3.3, §3.4): the choice
//! of the intermediate router R_ROOT under the four phase-A policies, with the RVLB restriction
//! for intra-group packets (`routing.vlb_restricted`); the VLB algorithm ([`Valiant`]), with
//! recomputation of the intermediate of a blocked injection head (`routing.recompute`), whose
//! draw UGAL and Piggyback weigh against the minimal path; the class of the path a packet took
//! ([`PathClass`], spec §5 path breakdown); and Valiant on a mesh or torus ([`MeshValiant`]:
//! DOR to a random router, then DOR).

use super::algorithm::{CycleAlgorithm, Paths, VcNeeds};
use super::candidates::{Occupancy, RouteState, NO_ROUTER};
use super::vc_template::VcTemplate;
use crate::config::RoutingConfig;
use crate::error::Result;
use crate::topology::dragonfly::DragonflyShape;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// VLB on a Dragonfly (spec §3.2): every packet goes through an intermediate router drawn by
/// the phase-A policy (an intra-group packet through a router of its own group, RVLB §3.3).
#[derive(Debug, Clone, Copy)]
pub struct Valiant {
    /// Phase-A policy (`routing.vlb_policy`, default lgl).
    pub policy: VlbPolicy,
    /// The source group is allowed as intermediate group for inter-group packets
    /// (`routing.valiant_source_group`, default false).
    pub source_group: bool,
    /// RVLB (spec §3.3): intra-group packets draw an intermediate of their own group
    /// (`routing.vlb_restricted`, default true).
    pub restricted: bool,
    /// Recomputation (spec §3.4): a blocked injection head draws again every cycle
    /// (`routing.recompute`, default false).
    pub recompute: bool,
}

/// The Valiant route a packet could take: its intermediate and the hop counts Eq. 2-1 weighs.
#[derive(Debug, Clone, Copy)]
pub struct ValiantDraw {
    /// R_ROOT.
    pub mid: Intermediate,
    /// H_MIN: hops of the minimal path.
    pub h_min: u32,
    /// H_VLB: hops of the path through `mid`.
    pub h_vlb: u32,
}

impl Valiant {
    /// Draws the Valiant route of a packet from router `r` to router `dst` (none when they are
    /// the same router: it goes minimally, spec §3.5, FOGSim).
    #[inline]
    pub fn draw(
        &self,
        s: &DragonflyShape,
        r: u32,
        dst: u32,
        rng: &mut ChaCha8Rng,
    ) -> Option<ValiantDraw> {
        if r == dst {
            return None;
        }
        let mid = select_intermediate(
            s,
            self.policy,
            self.source_group,
            self.restricted,
            r,
            dst,
            rng,
        );
        Some(ValiantDraw {
            mid,
            h_min: s.min_hops(r, dst),
            h_vlb: path_hops(s, r, mid, dst),
        })
    }
}

impl ValiantDraw {
    /// Sends the packet from `r` to `dst` through this intermediate (header `st`).
    #[inline]
    pub fn take(&self, s: &DragonflyShape, r: u32, dst: u32, st: &mut RouteState) {
        let off_min = leaves_minimal_path(s, r, self.mid, dst, self.h_vlb, self.h_min);
        st.set_valiant(self.mid.router, self.mid.group_only, off_min);
    }
}

impl CycleAlgorithm for Valiant {
    fn new(cfg: &RoutingConfig, _: u32) -> Result<Self> {
        Ok(Valiant {
            policy: cfg.vlb_policy,
            source_group: cfg.valiant_source_group,
            restricted: cfg.vlb_restricted,
            recompute: cfg.recompute.unwrap_or(false),
        })
    }
    fn name(&self) -> &'static str {
        "vlb"
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
        ]
    }
    fn decides_at_injection(&self) -> bool {
        true
    }
    fn recomputes(&self) -> bool {
        self.recompute
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
        if let Some(v) = self.draw(&d.shape, r, dst, rng) {
            v.take(&d.shape, r, dst, st);
        }
    }
    fn vlb_policy(&self) -> Option<&'static str> {
        Some(self.policy.name())
    }
}

/// Valiant on a mesh or torus: dimension-order routing to a router drawn uniformly (the
/// source and destination included), then dimension-order routing to the destination; each
/// phase on its own VC classes.
#[derive(Debug, Clone, Copy)]
pub struct MeshValiant;

impl CycleAlgorithm for MeshValiant {
    fn new(_: &RoutingConfig, _: u32) -> Result<Self> {
        Ok(MeshValiant)
    }
    fn name(&self) -> &'static str {
        "vlb"
    }
    fn vcs(&self) -> VcNeeds {
        VcNeeds::Phases(2)
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
        _: &dyn Occupancy,
        rng: &mut ChaCha8Rng,
    ) {
        let Paths::Mesh(m) = paths else { return };
        let g = &m.grid;
        let mid = rng.random_range(0..g.switches());
        let longer = g.hops(r, mid) + g.hops(mid, dst) > g.hops(r, dst);
        st.set_valiant(mid, false, longer);
    }
}

/// Phase-A policy (spec §3.0.2 table): which hops phase A may take — the scenario's
/// `routing.vlb_policy` enum itself, with what the routing asks of it below.
pub use crate::config::VlbPolicy;

impl VlbPolicy {
    /// Phase A ends on arrival in the intermediate group (no l2 hop).
    pub fn ends_at_group(self) -> bool {
        matches!(self, VlbPolicy::LgDash | VlbPolicy::DashGDash)
    }
    /// Phase A leaves through one of the source router's own global links (no l1 hop).
    pub fn own_links_only(self) -> bool {
        matches!(self, VlbPolicy::DashGl | VlbPolicy::DashGDash)
    }
}

/// An intermediate: the router and whether phase A ends when its group is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Intermediate {
    /// R_ROOT (for group-ending policies, the router where the global link lands).
    pub router: u32,
    /// Phase A ends on arrival in the group of `router`.
    pub group_only: bool,
}

/// Draws R_ROOT for a packet from router `src` to router `dst` (spec §3.0.2 pseudo-code).
/// With `restricted`, intra-group packets draw a router of their own group (RVLB, §3.3);
/// without, they draw as inter-group packets do. `source_group` allows the source group as
/// intermediate group (FOGSim FULL; default off).
pub fn select_intermediate(
    s: &DragonflyShape,
    policy: VlbPolicy,
    source_group: bool,
    restricted: bool,
    src: u32,
    dst: u32,
    rng: &mut impl Rng,
) -> Intermediate {
    let gs = s.group(src);
    if restricted && gs == s.group(dst) {
        return Intermediate {
            router: gs * s.a + rng.random_range(0..s.a),
            group_only: false,
        };
    }
    let gr = if policy.own_links_only() {
        let q = rng.random_range(0..s.h);
        s.global_neighbour(gs, s.index(src), q).0
    } else if source_group {
        rng.random_range(0..s.groups)
    } else {
        // one of the a·h global links of the source group, uniformly: a uniform other group
        let k = rng.random_range(0..s.groups - 1);
        (gs + 1 + k) % s.groups
    };
    if policy.ends_at_group() && gr != gs {
        // phase A ends where the link from the source group lands
        let (eo, q) = s.exit(gs, gr);
        let (_, land, _) = s.global_neighbour(gs, eo, q);
        return Intermediate {
            router: gr * s.a + land,
            group_only: true,
        };
    }
    Intermediate {
        router: gr * s.a + rng.random_range(0..s.a),
        group_only: false,
    }
}

/// Hops of the Valiant path src → R_ROOT → dst (H_VLB of Eq. 2-1).
pub fn path_hops(s: &DragonflyShape, src: u32, mid: Intermediate, dst: u32) -> u32 {
    s.min_hops(src, mid.router) + s.min_hops(mid.router, dst)
}

/// Does the Valiant route src → R_ROOT → dst leave the single minimal path of spec §1.1.3?
/// It does when it is longer, and also when it passes through a group other than the source
/// and destination groups whatever its hop count: g1 g2 (2 hops) is shorter than l1 g l2 but
/// still takes two global links, which is what the thesis's "% misrouted" counts (spec §5).
/// `h_vlb` and `h_min` are [`path_hops`] and the minimal hop count.
pub fn leaves_minimal_path(
    s: &DragonflyShape,
    src: u32,
    mid: Intermediate,
    dst: u32,
    h_vlb: u32,
    h_min: u32,
) -> bool {
    let gm = s.group(mid.router);
    h_vlb > h_min || (gm != s.group(src) && gm != s.group(dst))
}

/// The shape of the path a packet took (spec §5 "misrouting statistics", Fig 6-13: MIN, -g-,
/// -gl, lg-, lgl), for the path breakdown of the results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum PathClass {
    /// The minimal path (also a Valiant route that stays on it).
    Min = 0,
    /// Phase A l1 g l2.
    Lgl = 1,
    /// Phase A g l2 (no l1: the source router owns the global link).
    DashGl = 2,
    /// Phase A l1 g (no l2).
    LgDash = 3,
    /// Phase A g alone.
    DashGDash = 4,
    /// Non-minimal with no global hop in phase A: the intermediate is in the source group
    /// (RVLB's intra-group Valiant, or `routing.valiant_source_group`).
    Local = 5,
}

impl PathClass {
    /// Every class, in index order.
    pub const ALL: [PathClass; 6] = [
        PathClass::Min,
        PathClass::Lgl,
        PathClass::DashGl,
        PathClass::LgDash,
        PathClass::DashGDash,
        PathClass::Local,
    ];
    /// Number of classes.
    pub const COUNT: usize = 6;
    /// Its name in the results (`paths.<name>` in summary.json, `paths_<name>` in bins.csv).
    pub fn name(self) -> &'static str {
        ["min", "lgl", "-gl", "lg-", "-g-", "local"][self as usize]
    }
}

/// The class of the path (spec §5) a packet injected at router `src` took with header `st`
/// (read at delivery: the header keeps its intermediate): MIN unless the route left the
/// minimal path ([`RouteState::nonminimal`]); otherwise phase A's hops, l1 when the source
/// router does not own the global link towards the intermediate group, l2 when phase A goes
/// on past the router where that link lands.
pub fn path_class(s: &DragonflyShape, src: u32, st: &RouteState) -> PathClass {
    if !st.nonminimal || st.inter == NO_ROUTER {
        return PathClass::Min;
    }
    let (gs, gm) = (s.group(src), s.group(st.inter));
    if gs == gm {
        return PathClass::Local;
    }
    let (eo, q) = s.exit(gs, gm);
    let l1 = eo != s.index(src);
    let (_, land, _) = s.global_neighbour(gs, eo, q);
    let l2 = !st.group_only && s.index(st.inter) != land;
    match (l1, l2) {
        (true, true) => PathClass::Lgl,
        (false, true) => PathClass::DashGl,
        (true, false) => PathClass::LgDash,
        (false, false) => PathClass::DashGDash,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cycle::routing::dragonfly_paths as minimal;
    use crate::topology::dragonfly::Arrangement;
    use rand::SeedableRng;

    /// Routers visited by the minimal route from `a` to `b`, `a` included.
    fn min_route(s: &DragonflyShape, a: u32, b: u32) -> Vec<u32> {
        let mut r = a;
        let mut v = vec![a];
        while let Some(p) = minimal::next_port(s, r, b) {
            r = minimal::neighbour(s, r, p);
            v.push(r);
        }
        v
    }

    #[test]
    fn a_route_is_non_minimal_exactly_when_its_routers_differ_from_the_minimal_route() {
        // every source, destination and intermediate router of an h = 2 network, with the
        // source group allowed as intermediate group (the widest choice)
        let s = DragonflyShape::new(2, 4, 2, Arrangement::Palmtree).unwrap();
        let (mut shorter_but_nonminimal, mut minimal_via_mid) = (0, 0);
        for src in 0..s.routers() {
            for dst in 0..s.routers() {
                let direct = min_route(&s, src, dst);
                for m in 0..s.routers() {
                    let mut via = min_route(&s, src, m);
                    via.extend_from_slice(&min_route(&s, m, dst)[1..]);
                    let mid = Intermediate {
                        router: m,
                        group_only: false,
                    };
                    let (hv, hm) = (path_hops(&s, src, mid, dst), s.min_hops(src, dst));
                    assert_eq!(
                        leaves_minimal_path(&s, src, mid, dst, hv, hm),
                        via != direct,
                        "{src} -> {m} -> {dst}: {via:?} vs {direct:?}"
                    );
                    shorter_but_nonminimal += usize::from(via != direct && hv <= hm);
                    minimal_via_mid += usize::from(via == direct && m != src && m != dst);
                }
            }
        }
        // both cases the hop count alone gets wrong exist on this network
        assert!(shorter_but_nonminimal > 0 && minimal_via_mid > 0);
    }

    #[test]
    fn policies_draw_intermediates_where_the_spec_allows() {
        let s = DragonflyShape::new(3, 6, 3, Arrangement::Palmtree).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let src = 4; // group 0, router 4
        let dst = 50; // another group
        let own: Vec<u32> = (0..3).map(|q| s.global_neighbour(0, 4, q).0).collect();
        let mut groups = std::collections::BTreeSet::new();
        for p in ["lgl", "lg-", "-gl", "-g-"] {
            let pol = VlbPolicy::ALL[VlbPolicy::NAMES.iter().position(|n| *n == p).unwrap()];
            for _ in 0..2000 {
                let m = select_intermediate(&s, pol, false, true, src, dst, &mut rng);
                let g = s.group(m.router);
                assert_ne!(g, 0, "{p}: source group excluded");
                assert_eq!(m.group_only, pol.ends_at_group());
                if pol.own_links_only() {
                    assert!(
                        own.contains(&g),
                        "{p}: group {g} not on the source router's links"
                    );
                }
                if pol.ends_at_group() {
                    // the landing router of the link from group 0
                    let (eo, q) = s.exit(0, g);
                    assert_eq!(s.index(m.router), s.global_neighbour(0, eo, q).1);
                }
                if p == "lgl" {
                    groups.insert(g);
                }
            }
        }
        assert_eq!(
            groups.len() as u32,
            s.groups - 1,
            "lgl reaches every other group"
        );
        // intra-group: RVLB keeps the intermediate in the group
        for _ in 0..100 {
            let m = select_intermediate(&s, VlbPolicy::Lgl, false, true, 1, 3, &mut rng);
            assert_eq!(s.group(m.router), 0);
        }
        // unrestricted: an intra-group packet draws as an inter-group one (never its own
        // group, the source group being excluded)
        let mut other = 0;
        for _ in 0..100 {
            let m = select_intermediate(&s, VlbPolicy::Lgl, false, false, 1, 3, &mut rng);
            other += u32::from(s.group(m.router) != 0);
        }
        assert_eq!(other, 100);
    }

    #[test]
    fn path_classes_are_the_phase_a_hops_each_policy_allows() {
        use PathClass::*;
        let s = DragonflyShape::new(3, 6, 3, Arrangement::Palmtree).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for (p, main, allowed) in [
            ("lgl", Lgl, &[Min, Lgl, DashGl, LgDash, DashGDash][..]),
            ("lg-", LgDash, &[Min, LgDash, DashGDash][..]),
            ("-gl", DashGl, &[Min, DashGl, DashGDash][..]),
            ("-g-", DashGDash, &[Min, DashGDash][..]),
        ] {
            let pol = VlbPolicy::ALL[VlbPolicy::NAMES.iter().position(|n| *n == p).unwrap()];
            let v = Valiant {
                policy: pol,
                source_group: false,
                restricted: true,
                recompute: false,
            };
            let mut count = [0u32; PathClass::COUNT];
            for k in 0..3000u32 {
                let (src, dst) = (k % 18, 18 + (k * 7) % (s.routers() - 18));
                let mut st = RouteState::default();
                v.draw(&s, src, dst, &mut rng)
                    .unwrap()
                    .take(&s, src, dst, &mut st);
                let c = path_class(&s, src, &st);
                assert!(allowed.contains(&c), "{p}: {c:?}");
                count[c as usize] += 1;
            }
            let top = (0..PathClass::COUNT).max_by_key(|&i| count[i]).unwrap();
            assert_eq!(PathClass::ALL[top], main, "{p}: {count:?}");
            // intra-group packets: RVLB's local path, or minimal
            let mut st = RouteState::default();
            v.draw(&s, 1, 4, &mut rng).unwrap().take(&s, 1, 4, &mut st);
            assert!(matches!(path_class(&s, 1, &st), Local | Min));
        }
        assert_eq!(path_class(&s, 0, &RouteState::default()), Min);
    }
}
