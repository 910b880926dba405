//! The routing interface of the cycle-level router model (Dragonfly spec §3.0): routing
//! *proposes* a packet's next hop — an output port and the range of VCs it may use there — and
//! the switch *selects* (a VC of the range, then allocation). Source-adaptive routings decide
//! once, at the injection router ([`CycleRouting::at_injection`]), from the occupancy of the
//! source router's queues ([`Occupancy`]); every hop then follows the decision
//! ([`CycleRouting::next_hop`]). Per-packet state travels in the header ([`RouteState`]).
//!
//! Algorithms: MIN ([`super::minimal`]), Valiant ([`super::valiant`]), UGAL
//! ([`super::ugal`]) and Piggyback ([`super::piggyback`]) on Dragonflies; dimension-order
//! routing and Valiant on meshes and tori. VCs: the hop-type template ([`super::vc_template`])
//! on Dragonflies; on meshes/tori VC classes (one per Valiant phase, times two dateline classes
//! on a torus), each class an equal share of the port's VCs.

use super::minimal;
use super::piggyback;
use super::ugal;
use super::valiant::{self, Intermediate, VlbPolicy};
use super::vc_template::{HopClass, VcTemplate};
use crate::topology::dragonfly::DragonflyShape;
use rand::Rng;

/// No intermediate router.
pub const NO_ROUTER: u32 = u32::MAX;

/// Routing state carried in a packet header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteState {
    /// Valiant intermediate router, or [`NO_ROUTER`].
    pub inter: u32,
    /// Phase A (towards `inter`) still under way.
    pub phase_a: bool,
    /// Phase A ends on arrival in the group of `inter` (lg-, -g-).
    pub group_only: bool,
    /// The route leaves the minimal path (statistics; [`valiant::leaves_minimal_path`]).
    pub nonminimal: bool,
    /// Template position of the last router-to-router hop (`u8::MAX`: none yet).
    pub pos: u8,
    /// Mesh/torus: dimension of the last hop (`u8::MAX`: none in this phase).
    pub dim: u8,
    /// Torus: the packet crossed the dateline of dimension `dim`.
    pub crossed: bool,
}

impl RouteState {
    /// The router a packet at router `r` heads for (Valiant, spec §3.2): R_ROOT while phase A
    /// lasts, `dst` after. Phase A ends at `r` when the policy's end condition holds there: the
    /// intermediate's group reached (lg-, -g-; `same_group(r, R_ROOT)`) or R_ROOT itself (lgl,
    /// -gl). Before it ends, `r` ≠ R_ROOT, so a minimal hop towards the target exists.
    #[inline(always)]
    pub fn target(&mut self, r: u32, dst: u32, same_group: impl Fn(u32, u32) -> bool) -> u32 {
        if self.phase_a {
            let reached = if self.group_only {
                same_group(r, self.inter)
            } else {
                r == self.inter
            };
            if !reached {
                return self.inter;
            }
            self.phase_a = false;
        }
        dst
    }
}

impl Default for RouteState {
    fn default() -> Self {
        RouteState {
            inter: NO_ROUTER,
            phase_a: false,
            group_only: false,
            nonminimal: false,
            pos: u8::MAX,
            dim: u8::MAX,
            crossed: false,
        }
    }
}

/// A proposed next hop: output `port` and the VCs `vc_lo..=vc_hi` the packet may take there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    /// Output port of the current router.
    pub port: u16,
    /// Lowest allowed VC.
    pub vc_lo: u8,
    /// Highest allowed VC.
    pub vc_hi: u8,
}

/// Congestion information a source-adaptive decision may read (spec §2.6, §3.6).
pub trait Occupancy {
    /// Q(port, vc) of router `r` in phits: its output buffer plus the downstream buffer
    /// occupancy (max credits − credits).
    fn q(&self, r: u32, port: u32, vc: u8) -> u64;
    /// The Piggyback congestion bits of router `r`'s global ports as router `reader` sees them.
    fn pb_bits(&self, reader: u32, r: u32) -> u64;
}

/// Which algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// Dragonfly minimal.
    Min,
    /// Dragonfly Valiant.
    Vlb,
    /// Dragonfly UGAL (Eq. 2-1).
    Ugal,
    /// Dragonfly Piggyback (Eq. 2-1 + Eq. 2-2).
    Pb,
    /// Mesh/torus dimension-order routing.
    Dor,
    /// Mesh/torus Valiant: DOR to a random router, then DOR.
    MeshVlb,
}

impl Algorithm {
    /// The name scenarios write (`routing.algorithm`).
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Min => "min",
            Algorithm::Vlb | Algorithm::MeshVlb => "vlb",
            Algorithm::Ugal => "ugal",
            Algorithm::Pb => "pb",
            Algorithm::Dor => "dor",
        }
    }
}

/// Mesh/torus structure the mesh routings need.
#[derive(Debug, Clone)]
pub struct MeshGeometry {
    /// Routers per dimension (dimension 0 first).
    pub dims: Vec<u32>,
    /// Wrap-around links.
    pub torus: bool,
    /// Coordinates of every router.
    pub coords: Vec<Vec<u32>>,
    /// Port towards the lower neighbour per router and dimension (`u16::MAX`: none).
    pub minus: Vec<Vec<u16>>,
    /// Port towards the higher neighbour per router and dimension.
    pub plus: Vec<Vec<u16>>,
    /// Dateline VC classes on the torus.
    pub dateline: bool,
    /// Mesh DOR: the output port of router `r` towards router `t` at `[r · routers + t]`
    /// (`u16::MAX` when `r == t`), precomputed for meshes of up to 4,096 routers; empty
    /// otherwise (and for tori, whose VC class depends on the packet's dateline state).
    pub dor_table: Vec<u16>,
}

impl MeshGeometry {
    /// Fills [`MeshGeometry::dor_table`] from the hop-by-hop DOR rule (meshes only).
    pub fn precompute_dor(&mut self) {
        let n = self.coords.len();
        if self.torus || n > 4096 {
            return;
        }
        let mut t = vec![u16::MAX; n * n];
        for r in 0..n {
            for d in 0..n {
                let (here, there) = (&self.coords[r], &self.coords[d]);
                if let Some(k) = (0..self.dims.len()).find(|&k| here[k] != there[k]) {
                    t[r * n + d] = if there[k] > here[k] {
                        self.plus[r][k]
                    } else {
                        self.minus[r][k]
                    };
                }
            }
        }
        self.dor_table = t;
    }
}

/// The topology a cycle-level routing works on.
#[derive(Debug, Clone)]
pub enum RoutedTopology {
    /// A Dragonfly.
    Dragonfly(DragonflyShape),
    /// A mesh or torus.
    Mesh(MeshGeometry),
}

/// A configured cycle-level routing.
#[derive(Debug, Clone)]
pub struct CycleRouting {
    /// The algorithm.
    pub alg: Algorithm,
    /// The topology.
    pub topo: RoutedTopology,
    /// Valiant phase-A policy (Dragonfly).
    pub policy: VlbPolicy,
    /// Source group allowed as Valiant intermediate group for inter-group packets.
    pub source_group: bool,
    /// UGAL threshold T of Eq. 2-1 in phits.
    pub ugal_t_phits: i64,
    /// PB factor F in percent.
    pub pb_factor: u64,
    /// PB threshold T of Eq. 2-2 in phits.
    pub pb_t_phits: u64,
    /// VC template (Dragonfly).
    pub template: VcTemplate,
    /// VCs per local (mesh: transit) port.
    pub local_vcs: u8,
    /// Mesh/torus: VC classes (Valiant phases × dateline classes).
    pub classes: u8,
    /// Dragonfly: lookup tables for [`CycleRouting::next_hop`] ([`CycleRouting::with_tables`];
    /// `None`: computed from the shape).
    pub df: Option<DfTables>,
}

/// Why a routing cannot give a next hop (a routing bug or a broken topology).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteError {
    /// The path is longer than the VC template.
    TemplateOverflow {
        /// Router of the hop.
        r: u32,
        /// Destination router.
        dst: u32,
        /// Class of the hop.
        class: HopClass,
    },
    /// A mesh/torus router lacks the link a dimension-order hop needs.
    NoLink {
        /// Router of the hop.
        r: u32,
        /// Dimension.
        d: u32,
    },
}

impl std::fmt::Display for RouteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            RouteError::TemplateOverflow { r, dst, class } => write!(
                f,
                "path longer than the VC template at router {r} (towards {dst}, {class:?} hop)"
            ),
            RouteError::NoLink { r, d } => write!(f, "router {r} has no link in dimension {d}"),
        }
    }
}

/// Dragonfly routing in table lookups (the same results as [`minimal::next_port`] and
/// [`VcTemplate::next`], which the tests check pair by pair): the group of a router by a
/// multiply, the exit router and global link towards another group from a table indexed by the
/// group offset (palmtree) or the destination group's rank (consecutive), and the next template
/// position from a table indexed by the previous one and the hop class.
#[derive(Debug, Clone)]
pub struct DfTables {
    /// Terminals per router (the first local port).
    p: u32,
    /// Routers per group.
    a: u32,
    /// `⌈2³² / a⌉`: `⌊r / a⌋ = ⌊r · a_magic / 2³²⌋` for every router `r` (`r · a < 2³²`).
    a_magic: u64,
    /// Groups.
    groups: u32,
    /// The first global port (`p + a − 1`).
    gport0: u32,
    /// Palmtree (exit indexed by the offset `(d − g) mod groups`) or consecutive (by the rank
    /// of `d` among the other groups).
    palmtree: bool,
    /// Exit towards another group: router index `| q << 16` (see [`DragonflyShape::exit`]).
    exit: Vec<u32>,
    /// Next template position: at `[(previous position + 1) · 2 + class]` (row 0: no hop
    /// yet; class 0 local, 1 global), `position | vc << 8`, or `u16::MAX` when the template has
    /// no entry left.
    tnext: Vec<u16>,
}

impl DfTables {
    /// The tables of shape `s` and template `t`; `None` when a router number times `a` does
    /// not fit in 32 bits (the multiply would not divide exactly) or the template is too long
    /// for the header's position byte.
    pub fn new(s: &DragonflyShape, t: &VcTemplate) -> Option<Self> {
        if s.routers() as u64 * s.a as u64 >= 1 << 32 || t.entries.len() >= u8::MAX as usize {
            return None;
        }
        let palmtree = s.arrangement == crate::topology::dragonfly::Arrangement::Palmtree;
        let exit = if palmtree {
            // every group sees the same pattern: exit(g, d) depends on (d − g) mod groups only
            (0..s.groups)
                .map(|off| {
                    if off == 0 {
                        0
                    } else {
                        let (eo, q) = s.exit(0, off);
                        eo | q << 16
                    }
                })
                .collect()
        } else {
            // the rank k of d among the groups other than g: seen from the last group, d = k
            (0..s.groups - 1)
                .map(|k| {
                    let (eo, q) = s.exit(s.groups - 1, k);
                    eo | q << 16
                })
                .collect()
        };
        let n = t.entries.len();
        let mut tnext = Vec::with_capacity((n + 1) * 2);
        for prev in 0..=n {
            for class in [HopClass::Local, HopClass::Global] {
                let pos = t.next(prev.checked_sub(1), class);
                tnext.push(pos.map_or(u16::MAX, |j| j as u16 | (t.entries[j].1 as u16) << 8));
            }
        }
        Some(DfTables {
            p: s.p,
            a: s.a,
            a_magic: (1u64 << 32).div_ceil(s.a as u64),
            groups: s.groups,
            gport0: s.p + s.a - 1,
            palmtree,
            exit,
            tnext,
        })
    }

    /// Group of router `r`.
    #[inline(always)]
    fn group(&self, r: u32) -> u32 {
        ((r as u64 * self.a_magic) >> 32) as u32
    }

    /// Port of router index `from` towards router index `to` of the same group.
    #[inline(always)]
    fn local_port(&self, from: u32, to: u32) -> u32 {
        self.p + to - u32::from(to > from)
    }

    /// [`minimal::next_port`]: the port of router `r` on the minimal path towards router `t`.
    #[inline]
    pub fn next_port(&self, r: u32, t: u32) -> Option<u32> {
        let (gr, gt) = (self.group(r), self.group(t));
        let ir = r - gr * self.a;
        if gr != gt {
            let key = if self.palmtree {
                if gt > gr {
                    gt - gr
                } else {
                    gt + self.groups - gr
                }
            } else if gt < gr {
                gt
            } else {
                gt - 1
            };
            let e = self.exit[key as usize];
            let eo = e & 0xFFFF;
            Some(if eo == ir {
                self.gport0 + (e >> 16)
            } else {
                self.local_port(ir, eo)
            })
        } else if r != t {
            Some(self.local_port(ir, t - gt * self.a))
        } else {
            None
        }
    }

    /// [`CycleRouting::next_hop`] on the Dragonfly of these tables.
    #[inline]
    pub fn next_hop(
        &self,
        r: u32,
        dst: u32,
        st: &mut RouteState,
    ) -> Result<Option<Candidate>, RouteError> {
        let target = st.target(r, dst, |x, y| self.group(x) == self.group(y));
        let Some(port) = self.next_port(r, target) else {
            return Ok(None);
        };
        let global = port >= self.gport0;
        let e = self.tnext[st.pos.wrapping_add(1) as usize * 2 + usize::from(global)];
        if e == u16::MAX {
            let class = if global {
                HopClass::Global
            } else {
                HopClass::Local
            };
            return Err(RouteError::TemplateOverflow { r, dst, class });
        }
        st.pos = e as u8;
        let vc = (e >> 8) as u8;
        Ok(Some(Candidate {
            port: port as u16,
            vc_lo: vc,
            vc_hi: vc,
        }))
    }
}

impl CycleRouting {
    /// Builds the lookup tables of [`CycleRouting::next_hop`] (Dragonfly: [`DfTables`]).
    pub fn with_tables(mut self) -> Self {
        if let RoutedTopology::Dragonfly(s) = &self.topo {
            self.df = DfTables::new(s, &self.template);
        }
        self
    }

    /// Does [`CycleRouting::at_injection`] decide anything? (MIN and DOR leave the default
    /// header state, which every packet starts with.)
    #[inline]
    pub fn decides_at_injection(&self) -> bool {
        !matches!(
            (&self.topo, self.alg),
            (RoutedTopology::Dragonfly(_), Algorithm::Min) | (_, Algorithm::Dor)
        )
    }

    /// Is the next hop a function of the router and the destination alone, with no header
    /// state (mesh DOR from its table)? Then the cycle model may tabulate it.
    pub fn stateless(&self) -> bool {
        matches!(&self.topo, RoutedTopology::Mesh(m) if self.alg == Algorithm::Dor && !m.dor_table.is_empty())
    }

    /// Does the algorithm take decisions from congestion information?
    pub fn adaptive(&self) -> bool {
        matches!(self.alg, Algorithm::Ugal | Algorithm::Pb)
    }

    /// Decides at the injection router `r` how a packet to router `dst` travels, and writes it
    /// into `st`: MIN, Valiant, or (UGAL, PB) the better of a minimal and a Valiant candidate.
    pub fn at_injection(
        &self,
        r: u32,
        dst: u32,
        st: &mut RouteState,
        occ: &impl Occupancy,
        rng: &mut impl Rng,
    ) {
        *st = RouteState::default();
        match (&self.topo, self.alg) {
            (RoutedTopology::Dragonfly(_), Algorithm::Min) | (_, Algorithm::Dor) => {}
            (RoutedTopology::Dragonfly(s), alg) => {
                if r == dst {
                    return; // same router: MIN (spec §3.5, FOGSim)
                }
                let mid =
                    valiant::select_intermediate(s, self.policy, self.source_group, r, dst, rng);
                let h_min = s.min_hops(r, dst);
                let h_vlb = valiant::path_hops(s, r, mid, dst);
                let take_vlb = match alg {
                    Algorithm::Vlb => true,
                    _ => {
                        let q_min = self.first_hop_q(s, r, dst, occ);
                        let q_vlb = self.first_hop_q(s, r, mid.router, occ);
                        let mut minimal =
                            ugal::prefer_minimal(q_min, h_min, q_vlb, h_vlb, self.ugal_t_phits);
                        if alg == Algorithm::Pb && minimal && s.group(r) != s.group(dst) {
                            let (eo, q) = s.exit(s.group(r), s.group(dst));
                            let owner = s.group(r) * s.a + eo;
                            minimal = occ.pb_bits(r, owner) >> q & 1 == 0;
                        }
                        !minimal
                    }
                };
                if take_vlb {
                    let off_min = valiant::leaves_minimal_path(s, r, mid, dst, h_vlb, h_min);
                    set_valiant(st, mid, off_min);
                }
            }
            (RoutedTopology::Mesh(m), Algorithm::MeshVlb) => {
                let n = m.coords.len() as u32;
                let mid = rng.random_range(0..n);
                let longer = mesh_hops(m, r, mid) + mesh_hops(m, mid, dst) > mesh_hops(m, r, dst);
                set_valiant(
                    st,
                    Intermediate {
                        router: mid,
                        group_only: false,
                    },
                    longer,
                );
            }
            (RoutedTopology::Mesh(_), _) => {}
        }
    }

    fn first_hop_q(&self, s: &DragonflyShape, r: u32, t: u32, occ: &impl Occupancy) -> u64 {
        match minimal::next_port(s, r, t) {
            None => 0,
            Some(p) => {
                let class = if s.is_global_port(p) {
                    HopClass::Global
                } else {
                    HopClass::Local
                };
                let vc = self
                    .template
                    .next(None, class)
                    .map_or(0, |i| self.template.entries[i].1);
                occ.q(r, p, vc)
            }
        }
    }

    /// The next hop of a packet at router `r` heading for router `dst` (`None`: `r` is the
    /// destination router, the packet ejects). Advances the header state; `Err` when the path
    /// outgrows the VC template (a routing bug: the template must cover every path).
    #[inline]
    pub fn next_hop(
        &self,
        r: u32,
        dst: u32,
        st: &mut RouteState,
    ) -> Result<Option<Candidate>, RouteError> {
        match &self.topo {
            RoutedTopology::Dragonfly(s) => match &self.df {
                Some(t) => t.next_hop(r, dst, st),
                None => self.next_hop_dragonfly(s, r, dst, st),
            },
            RoutedTopology::Mesh(m) if self.alg == Algorithm::Dor && !m.dor_table.is_empty() => {
                // mesh DOR: one VC class, the port from the table
                let port = m.dor_table[r as usize * m.coords.len() + dst as usize];
                Ok((port != u16::MAX).then_some(Candidate {
                    port,
                    vc_lo: 0,
                    vc_hi: self.local_vcs - 1,
                }))
            }
            RoutedTopology::Mesh(m) => self.next_hop_mesh(m, r, dst, st),
        }
    }

    /// [`CycleRouting::next_hop`] on a Dragonfly computed from the shape (the reference for
    /// [`DfTables::next_hop`], used when the tables are absent).
    fn next_hop_dragonfly(
        &self,
        s: &DragonflyShape,
        r: u32,
        dst: u32,
        st: &mut RouteState,
    ) -> Result<Option<Candidate>, RouteError> {
        let target = st.target(r, dst, |x, y| s.group(x) == s.group(y));
        let Some(port) = minimal::next_port(s, r, target) else {
            return Ok(None);
        };
        let class = if s.is_global_port(port) {
            HopClass::Global
        } else {
            HopClass::Local
        };
        let prev = (st.pos != u8::MAX).then_some(st.pos as usize);
        let pos = self
            .template
            .next(prev, class)
            .ok_or(RouteError::TemplateOverflow { r, dst, class })?;
        st.pos = pos as u8;
        let vc = self.template.entries[pos].1;
        Ok(Some(Candidate {
            port: port as u16,
            vc_lo: vc,
            vc_hi: vc,
        }))
    }

    /// [`CycleRouting::next_hop`] on a mesh or torus without a DOR table (tori, mesh Valiant).
    #[inline(never)]
    fn next_hop_mesh(
        &self,
        m: &MeshGeometry,
        r: u32,
        dst: u32,
        st: &mut RouteState,
    ) -> Result<Option<Candidate>, RouteError> {
        if st.phase_a && r == st.inter {
            st.phase_a = false;
            st.dim = u8::MAX;
            st.crossed = false;
        }
        let target = if st.phase_a { st.inter } else { dst };
        let here = &m.coords[r as usize];
        let there = &m.coords[target as usize];
        let Some(d) = (0..m.dims.len()).find(|&d| here[d] != there[d]) else {
            return Ok(None);
        };
        let n = m.dims[d];
        let plus = if m.torus {
            let fwd = (there[d] + n - here[d]) % n;
            fwd <= n - fwd
        } else {
            there[d] > here[d]
        };
        let port = if plus {
            m.plus[r as usize][d]
        } else {
            m.minus[r as usize][d]
        };
        if port == u16::MAX {
            return Err(RouteError::NoLink { r, d: d as u32 });
        }
        if st.dim != d as u8 {
            st.dim = d as u8;
            st.crossed = false;
        }
        let wrap = m.torus && if plus { here[d] == n - 1 } else { here[d] == 0 };
        let dl_classes: u8 = if m.torus && m.dateline { 2 } else { 1 };
        let dl = if dl_classes == 2 && (st.crossed || wrap) {
            1
        } else {
            0
        };
        if wrap {
            st.crossed = true;
        }
        let phase = if self.alg == Algorithm::MeshVlb && !st.phase_a && st.inter != NO_ROUTER {
            1
        } else {
            0
        };
        let class = phase * dl_classes + dl;
        let per = self.local_vcs / self.classes;
        Ok(Some(Candidate {
            port,
            vc_lo: class * per,
            vc_hi: class * per + per - 1,
        }))
    }

    /// Computes the Piggyback bits of one router from the occupancies of its global ports.
    pub fn pb_bits(&self, q_gc: &[u64]) -> u64 {
        piggyback::congested_bits(q_gc, self.pb_factor, self.pb_t_phits)
    }
}

fn set_valiant(st: &mut RouteState, mid: Intermediate, nonminimal: bool) {
    st.inter = mid.router;
    st.group_only = mid.group_only;
    st.phase_a = true;
    st.nonminimal = nonminimal;
}

/// DOR hop count between two mesh/torus routers.
pub fn mesh_hops(m: &MeshGeometry, a: u32, b: u32) -> u32 {
    let (x, y) = (&m.coords[a as usize], &m.coords[b as usize]);
    (0..m.dims.len())
        .map(|d| {
            let diff = x[d].abs_diff(y[d]);
            if m.torus {
                diff.min(m.dims[d] - diff)
            } else {
                diff
            }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::dragonfly::Arrangement;

    fn routing(s: DragonflyShape, template: VcTemplate) -> CycleRouting {
        CycleRouting {
            alg: Algorithm::Vlb,
            topo: RoutedTopology::Dragonfly(s),
            policy: VlbPolicy::Lgl,
            source_group: false,
            ugal_t_phits: 0,
            pb_factor: 120,
            pb_t_phits: 20,
            template,
            local_vcs: 4,
            classes: 1,
            df: None,
        }
    }

    #[test]
    fn dragonfly_tables_match_the_shape_arithmetic() {
        for arr in [Arrangement::Palmtree, Arrangement::Consecutive] {
            for (p, a, h) in [(2, 4, 2), (1, 3, 1), (3, 6, 3)] {
                let s = DragonflyShape::new(p, a, h, arr).unwrap();
                for template in [VcTemplate::minimal(), VcTemplate::valiant()] {
                    let slow = routing(s, template.clone());
                    let fast = slow.clone().with_tables();
                    let t = fast.df.as_ref().expect("tables");
                    let n = s.routers();
                    for r in 0..n {
                        for d in 0..n {
                            assert_eq!(t.next_port(r, d), minimal::next_port(&s, r, d));
                            for inter in [NO_ROUTER, (r + d) % n, (r * 7 + 3) % n] {
                                for group_only in [false, true] {
                                    for pos in [u8::MAX, 0, 1, 2, 3, 4, 5] {
                                        let mut st = RouteState {
                                            inter,
                                            phase_a: inter != NO_ROUTER,
                                            group_only,
                                            pos,
                                            ..RouteState::default()
                                        };
                                        if pos != u8::MAX && pos as usize >= template.entries.len()
                                        {
                                            continue;
                                        }
                                        let mut st2 = st;
                                        let a = fast.next_hop(r, d, &mut st);
                                        let b = slow.next_hop(r, d, &mut st2);
                                        assert_eq!(a, b, "{arr:?} {r}->{d} via {inter} pos {pos}");
                                        assert_eq!(st, st2);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
