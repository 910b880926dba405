//! The paths of a Dragonfly in the cycle-level model (Dragonfly spec §3.0, §3.1): the single
//! minimal path l1 g l2 between two routers, computed hop by hop (the result equals source
//! computation); and [`DragonflyPaths`], which every Dragonfly routing follows: the minimal
//! path towards the router the header names (the destination, or a Valiant intermediate
//! first), each hop on the VC the hop-type template gives (spec §3.0.3), by arithmetic on the
//! shape or by table lookups ([`DfTables`]).

use super::candidates::{Candidate, Occupancy, RouteError, RouteState};
use super::vc_template::{HopClass, VcTemplate};
use crate::topology::dragonfly::DragonflyShape;

/// Output port of router `r` on the minimal path towards router `t` (`None` when `r == t`:
/// the packet has arrived at its destination router).
#[inline]
pub fn next_port(s: &DragonflyShape, r: u32, t: u32) -> Option<u32> {
    let (gr, gt) = (s.group(r), s.group(t));
    let ir = s.index(r);
    if gr != gt {
        let (eo, q) = s.exit(gr, gt);
        Some(if eo == ir {
            s.global_port(q)
        } else {
            s.local_port(ir, eo)
        })
    } else if r != t {
        Some(s.local_port(ir, s.index(t)))
    } else {
        None
    }
}

/// Router reached through port `port` of router `r` (a local or global port).
#[inline]
pub fn neighbour(s: &DragonflyShape, r: u32, port: u32) -> u32 {
    let (g, i) = (s.group(r), s.index(r));
    if s.is_global_port(port) {
        let (ng, nr, _) = s.global_neighbour(g, i, port - s.global_port(0));
        ng * s.a + nr
    } else {
        g * s.a + s.local_peer(i, port)
    }
}

/// The paths of a Dragonfly: minimal towards the header's target, VCs by template.
#[derive(Debug, Clone)]
pub struct DragonflyPaths {
    /// The Dragonfly.
    pub shape: DragonflyShape,
    /// The hop-type VC template (spec §3.0.3).
    pub template: VcTemplate,
    /// Lookup tables for [`DragonflyPaths::follow`] (`None`: computed from the shape).
    pub tables: Option<DfTables>,
}

impl DragonflyPaths {
    /// The paths of `shape` with VC template `template`, with their lookup tables.
    pub fn new(shape: DragonflyShape, template: VcTemplate) -> Self {
        let tables = DfTables::new(&shape, &template);
        DragonflyPaths {
            shape,
            template,
            tables,
        }
    }

    /// [`super::algorithm::Paths::follow`] on a Dragonfly.
    #[inline]
    pub fn follow(
        &self,
        r: u32,
        dst: u32,
        st: &mut RouteState,
    ) -> std::result::Result<Option<Candidate>, RouteError> {
        match &self.tables {
            Some(t) => t.next_hop(r, dst, st),
            None => self.follow_by_shape(r, dst, st),
        }
    }

    /// [`DragonflyPaths::follow`] computed from the shape (the reference for
    /// [`DfTables::next_hop`], used when the tables are absent).
    fn follow_by_shape(
        &self,
        r: u32,
        dst: u32,
        st: &mut RouteState,
    ) -> std::result::Result<Option<Candidate>, RouteError> {
        let s = &self.shape;
        let target = st.target(r, dst, |x, y| s.group(x) == s.group(y));
        let Some(port) = next_port(s, r, target) else {
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

    /// Q of the first hop of the minimal path from router `r` towards router `t`, on the VC
    /// that hop takes (0 when `r == t`).
    pub fn first_hop_q(&self, r: u32, t: u32, occ: &dyn Occupancy) -> u64 {
        let s = &self.shape;
        match next_port(s, r, t) {
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
}

/// Dragonfly routing in table lookups (the same results as [`next_port`] and
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

    /// [`next_port`]: the port of router `r` on the minimal path towards router `t`.
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

    /// [`DragonflyPaths::follow`] on the Dragonfly of these tables.
    #[inline]
    pub fn next_hop(
        &self,
        r: u32,
        dst: u32,
        st: &mut RouteState,
    ) -> std::result::Result<Option<Candidate>, RouteError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::dragonfly::Arrangement;

    #[test]
    fn minimal_paths_reach_the_destination_in_min_hops() {
        for arr in [Arrangement::Palmtree, Arrangement::Consecutive] {
            let s = DragonflyShape::new(2, 4, 2, arr).unwrap();
            for a in 0..s.routers() {
                for b in 0..s.routers() {
                    let (mut r, mut hops, mut globals) = (a, 0, 0);
                    while let Some(p) = next_port(&s, r, b) {
                        globals += u32::from(s.is_global_port(p));
                        r = neighbour(&s, r, p);
                        hops += 1;
                        assert!(hops <= 3);
                    }
                    assert_eq!(hops, s.min_hops(a, b));
                    assert_eq!(globals, u32::from(s.group(a) != s.group(b)));
                }
            }
        }
    }

    #[test]
    fn dragonfly_tables_match_the_shape_arithmetic() {
        use crate::cycle::routing::candidates::NO_ROUTER;
        for arr in [Arrangement::Palmtree, Arrangement::Consecutive] {
            for (p, a, h) in [(2, 4, 2), (1, 3, 1), (3, 6, 3)] {
                let s = DragonflyShape::new(p, a, h, arr).unwrap();
                for template in [VcTemplate::minimal(), VcTemplate::valiant()] {
                    let fast = DragonflyPaths::new(s, template.clone());
                    let slow = DragonflyPaths {
                        tables: None,
                        ..fast.clone()
                    };
                    let t = fast.tables.as_ref().expect("tables");
                    let n = s.routers();
                    for r in 0..n {
                        for d in 0..n {
                            assert_eq!(t.next_port(r, d), next_port(&s, r, d));
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
                                        let a = fast.follow(r, d, &mut st);
                                        let b = slow.follow(r, d, &mut st2);
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
