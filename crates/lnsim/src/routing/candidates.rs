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
    /// The path is longer than the minimal one (statistics).
    pub nonminimal: bool,
    /// Template position of the last router-to-router hop (`u8::MAX`: none yet).
    pub pos: u8,
    /// Mesh/torus: dimension of the last hop (`u8::MAX`: none in this phase).
    pub dim: u8,
    /// Torus: the packet crossed the dateline of dimension `dim`.
    pub crossed: bool,
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
}

impl CycleRouting {
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
                    set_valiant(st, mid, h_vlb > h_min);
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
    pub fn next_hop(
        &self,
        r: u32,
        dst: u32,
        st: &mut RouteState,
    ) -> Result<Option<Candidate>, String> {
        match &self.topo {
            RoutedTopology::Dragonfly(s) => {
                let mut port = None;
                if st.phase_a {
                    let reached = if st.group_only {
                        s.group(r) == s.group(st.inter)
                    } else {
                        r == st.inter
                    };
                    if reached {
                        st.phase_a = false;
                    } else {
                        port = minimal::next_port(s, r, st.inter);
                    }
                }
                let port = match port {
                    Some(p) => p,
                    None => match minimal::next_port(s, r, dst) {
                        Some(p) => p,
                        None => return Ok(None),
                    },
                };
                let class = if s.is_global_port(port) {
                    HopClass::Global
                } else {
                    HopClass::Local
                };
                let prev = (st.pos != u8::MAX).then_some(st.pos as usize);
                let pos = self.template.next(prev, class).ok_or_else(|| {
                    format!(
                        "path longer than the VC template at router {r} (towards {dst}, {class:?} hop)"
                    )
                })?;
                st.pos = pos as u8;
                let vc = self.template.entries[pos].1;
                Ok(Some(Candidate {
                    port: port as u16,
                    vc_lo: vc,
                    vc_hi: vc,
                }))
            }
            RoutedTopology::Mesh(m) if self.alg == Algorithm::Dor && !m.dor_table.is_empty() => {
                // mesh DOR: one VC class, the port from the table
                let port = m.dor_table[r as usize * m.coords.len() + dst as usize];
                Ok((port != u16::MAX).then_some(Candidate {
                    port,
                    vc_lo: 0,
                    vc_hi: self.local_vcs - 1,
                }))
            }
            RoutedTopology::Mesh(m) => {
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
                    return Err(format!("router {r} has no link in dimension {d}"));
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
                let phase =
                    if self.alg == Algorithm::MeshVlb && !st.phase_a && st.inter != NO_ROUTER {
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
        }
    }

    /// Computes the Piggyback bits of one router from the occupancies of its global ports.
    pub fn pb_bits(&self, q_gc: &[u64]) -> u64 {
        piggyback::congested_bits(q_gc, self.pb_factor, self.pb_t_phits)
    }
}

fn set_valiant(st: &mut RouteState, mid: Intermediate, longer: bool) {
    st.inter = mid.router;
    st.group_only = mid.group_only;
    st.phase_a = true;
    st.nonminimal = longer;
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
