//! The canonical Dragonfly (Dragonfly spec §1.1): groups of `a` fully connected routers with
//! `p` terminals and `h` global links each, `G = a·h + 1` groups joined by exactly one global
//! link per pair, wired in the palmtree (default, §1.1.2 normative formula) or the consecutive
//! arrangement.
//!
//! # Ids, names and ports
//! Router `A` of group `H` is switch number `H·a + A` (name `G{H}R{A}`); terminal `j` of that
//! router is HCA number `(H·a + A)·p + j` (name `N{index}`, LID index + 1). Router ports follow
//! FOGSim's order (spec Appendix B): ports `0..p` are the terminals, ports `p..p+a−1` the local
//! links (neighbour router `n` on port `p + n` if `n < A`, else `p + n − 1`, i.e. skipping self),
//! ports `p+a−1..p+a−1+h` the global links `q = 0..h`.

use crate::config::DragonflyConfig;
use crate::error::{Error, Result};
use crate::topology::{Fabric, LinkClass, LinkParams, NodeKind, Port, Shape};

/// Largest Dragonfly the builder accepts (terminals), well above h = 8's 16,512.
const MAX_TERMINALS: u64 = 2_000_000;

/// Global link arrangement (spec §1.1.2), as the scenario names it.
pub use crate::config::Arrangement;

/// The parameters of a Dragonfly and the arithmetic on them that routing needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DragonflyShape {
    /// Terminals per router.
    pub p: u32,
    /// Routers per group.
    pub a: u32,
    /// Global links per router.
    pub h: u32,
    /// Number of groups, `a·h + 1`.
    pub groups: u32,
    /// Global wiring.
    pub arrangement: Arrangement,
}

impl DragonflyShape {
    /// A shape; errors name the offending `topology.*` key.
    pub fn new(p: u32, a: u32, h: u32, arrangement: Arrangement) -> Result<Self> {
        for (k, v) in [("topology.p", p), ("topology.a", a), ("topology.h", h)] {
            if v == 0 {
                return Err(Error::input(k, "must be at least 1"));
            }
        }
        if a < 2 {
            return Err(Error::input(
                "topology.a",
                "must be at least 2 routers per group",
            ));
        }
        let groups = a as u64 * h as u64 + 1;
        let terminals = groups * a as u64 * p as u64;
        if terminals > MAX_TERMINALS || p as u64 + a as u64 - 1 + h as u64 > 1024 {
            return Err(Error::input(
                "topology",
                format!("a Dragonfly with p={p}, a={a}, h={h} has {terminals} terminals; at most {MAX_TERMINALS} and 1024 router ports are supported"),
            ));
        }
        Ok(DragonflyShape {
            p,
            a,
            h,
            groups: groups as u32,
            arrangement,
        })
    }
    /// Routers in the network.
    pub fn routers(&self) -> u32 {
        self.groups * self.a
    }
    /// Terminals in the network.
    pub fn terminals(&self) -> u32 {
        self.routers() * self.p
    }
    /// Router ports (`p + a − 1 + h`).
    pub fn radix(&self) -> u32 {
        self.p + self.a - 1 + self.h
    }
    /// Group of router `r`.
    #[inline]
    pub fn group(&self, r: u32) -> u32 {
        r / self.a
    }
    /// Index of router `r` inside its group.
    #[inline]
    pub fn index(&self, r: u32) -> u32 {
        r % self.a
    }
    /// Port of router index `from` towards router index `to` of the same group.
    #[inline]
    pub fn local_port(&self, from: u32, to: u32) -> u32 {
        debug_assert!(from != to);
        self.p + if to < from { to } else { to - 1 }
    }
    /// Router index a local port of router index `from` leads to.
    #[inline]
    pub fn local_peer(&self, from: u32, port: u32) -> u32 {
        let n = port - self.p;
        if n < from {
            n
        } else {
            n + 1
        }
    }
    /// Port number of global link `q`.
    #[inline]
    pub fn global_port(&self, q: u32) -> u32 {
        self.p + self.a - 1 + q
    }
    /// Is `port` a global port?
    #[inline]
    pub fn is_global_port(&self, port: u32) -> bool {
        port >= self.p + self.a - 1
    }
    /// Is `port` a local port?
    #[inline]
    pub fn is_local_port(&self, port: u32) -> bool {
        port >= self.p && port < self.p + self.a - 1
    }
    /// Far end `(group, router index, q)` of global link `q` of router index `r` in group `g`.
    pub fn global_neighbour(&self, g: u32, r: u32, q: u32) -> (u32, u32, u32) {
        let (a, h, gs) = (self.a, self.h, self.groups);
        match self.arrangement {
            Arrangement::Palmtree => {
                let off = (r * h + q + 1) % gs;
                ((g + gs - off) % gs, a - 1 - r, h - 1 - q)
            }
            Arrangement::Consecutive => {
                // link k = r·h + q of group g goes to group k (k < g) or k + 1 (k ≥ g); the
                // far end uses its own link number for g, computed the same way
                let k = r * h + q;
                let dst = if k < g { k } else { k + 1 };
                let back = if g < dst { g } else { g - 1 };
                (dst, back / h, back % h)
            }
        }
    }
    /// `(router index, q)` of the router in group `g` that owns the global link to group
    /// `d ≠ g` (spec §1.1.2 `A_out`).
    #[inline]
    pub fn exit(&self, g: u32, d: u32) -> (u32, u32) {
        let (a, h, gs) = (self.a, self.h, self.groups);
        match self.arrangement {
            Arrangement::Palmtree => {
                let off = (d + gs - g) % gs; // 1..=a·h
                let r = a - 1 - (off - 1) / h;
                let q = h - (off - h * (a - 1 - r));
                (r, q)
            }
            Arrangement::Consecutive => {
                let k = if d < g { d } else { d - 1 };
                (k / h, k % h)
            }
        }
    }
    /// Minimal hop count between routers `s` and `d` (local and global hops).
    pub fn min_hops(&self, s: u32, d: u32) -> u32 {
        if s == d {
            return 0;
        }
        let (gs, gd) = (self.group(s), self.group(d));
        if gs == gd {
            return 1;
        }
        let (eo, q) = self.exit(gs, gd);
        let (_, land, _) = self.global_neighbour(gs, eo, q);
        1 + u32::from(eo != self.index(s)) + u32::from(land != self.index(d))
    }
}

/// The checked shape `[topology]` describes (errors name the key).
pub fn shape_of(t: &DragonflyConfig) -> Result<DragonflyShape> {
    let h = t.h.unwrap_or(t.p);
    let a = t.a.unwrap_or(h.saturating_mul(2));
    DragonflyShape::new(t.p, a, h, t.arrangement)
}

/// The checked shape of a scenario's `[topology]` when it is a Dragonfly (`None` for another
/// kind or a shape the checks refuse).
pub fn shape_of_topology(t: &crate::config::TopologyConfig) -> Option<DragonflyShape> {
    match t {
        crate::config::TopologyConfig::Dragonfly(d) => shape_of(d).ok(),
        _ => None,
    }
}

/// The size of the Dragonfly `t` describes, without building it (for the memory estimate).
pub fn size(t: &DragonflyConfig) -> Result<super::FabricSize> {
    let s = shape_of(t)?;
    let routers = s.routers() as u64;
    let terminals = s.terminals() as u64;
    Ok(super::FabricSize {
        switches: routers,
        hcas: terminals,
        ports: 2 * terminals + routers * (s.a as u64 - 1) + routers * s.h as u64,
        max_ports: s.radix() as u64,
        name_bytes: 10,
        coords: 2,
    })
}

/// Builds a Dragonfly from `[topology]` (`p`, `a` = 2p and `h` = p by default, `arrangement`).
/// `host` and `fabric` are the link parameters recorded on terminal and router links.
pub fn build(t: &DragonflyConfig, host: LinkParams, fabric: LinkParams) -> Result<Fabric> {
    let shape = shape_of(t)?;
    let (p, a, h) = (shape.p, shape.a, shape.h);
    let mut f = Fabric::new(Shape::Dragonfly(shape));
    let routers = shape.routers();
    for r in 0..routers {
        let (g, i) = (shape.group(r), shape.index(r));
        f.add_node(format!("G{g}R{i}"), NodeKind::Switch, vec![g, i], 0)?;
    }
    for t in 0..shape.terminals() {
        let r = t / p;
        f.add_node(
            format!("N{t}"),
            NodeKind::Hca,
            vec![shape.group(r), shape.index(r)],
            0,
        )?;
    }
    // ports are written directly so that every router gets FOGSim's port order
    let radix = shape.radix() as usize;
    let dummy = Port {
        peer: 0,
        peer_port: 0,
        class: LinkClass::Fabric,
        link: fabric,
    };
    for r in 0..routers {
        f.nodes[r as usize].ports = vec![dummy; radix];
    }
    for t in 0..shape.terminals() {
        let r = t / p;
        let port = t % p;
        let node = routers + t;
        f.nodes[node as usize].ports = vec![Port {
            peer: r,
            peer_port: port as u16,
            class: LinkClass::Host,
            link: host,
        }];
        f.nodes[r as usize].ports[port as usize] = Port {
            peer: node,
            peer_port: 0,
            class: LinkClass::Host,
            link: host,
        };
    }
    for r in 0..routers {
        let (g, i) = (shape.group(r), shape.index(r));
        for n in 0..a {
            if n != i {
                f.nodes[r as usize].ports[shape.local_port(i, n) as usize] = Port {
                    peer: g * a + n,
                    peer_port: shape.local_port(n, i) as u16,
                    class: LinkClass::Fabric,
                    link: fabric,
                };
            }
        }
        for q in 0..h {
            let (ng, nr, nq) = shape.global_neighbour(g, i, q);
            f.nodes[r as usize].ports[shape.global_port(q) as usize] = Port {
                peer: ng * a + nr,
                peer_port: shape.global_port(nq) as u16,
                class: LinkClass::Global,
                link: fabric,
            };
        }
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(h: u32, arr: Arrangement) -> DragonflyShape {
        DragonflyShape::new(h, 2 * h, h, arr).unwrap()
    }

    #[test]
    fn sizes_of_the_spec_table() {
        for (h, routers, n) in [
            (2, 36, 72),
            (4, 264, 1056),
            (6, 876, 5256),
            (8, 2064, 16512),
        ] {
            let s = shape(h, Arrangement::Palmtree);
            assert_eq!((s.routers(), s.terminals()), (routers, n));
            assert_eq!(s.radix(), 4 * h - 1);
        }
    }

    #[test]
    fn every_pair_of_groups_is_joined_exactly_once_and_links_are_symmetric() {
        for arr in [Arrangement::Palmtree, Arrangement::Consecutive] {
            for h in [2, 3, 4] {
                let s = shape(h, arr);
                let mut seen = vec![0u32; (s.groups * s.groups) as usize];
                for g in 0..s.groups {
                    for r in 0..s.a {
                        for q in 0..s.h {
                            let (ng, nr, nq) = s.global_neighbour(g, r, q);
                            assert_ne!(ng, g, "{arr:?} h={h}: self link");
                            assert_eq!(s.global_neighbour(ng, nr, nq), (g, r, q), "{arr:?}");
                            seen[(g * s.groups + ng) as usize] += 1;
                            assert_eq!(s.exit(g, ng), (r, q), "{arr:?} exit");
                        }
                    }
                }
                for g in 0..s.groups {
                    for d in 0..s.groups {
                        assert_eq!(seen[(g * s.groups + d) as usize], u32::from(g != d));
                    }
                }
            }
        }
    }

    #[test]
    fn palmtree_is_rotationally_symmetric_with_mirror_routers() {
        let s = shape(6, Arrangement::Palmtree);
        for g in 0..s.groups {
            for r in 0..s.a {
                for q in 0..s.h {
                    let (ng, nr, _) = s.global_neighbour(g, r, q);
                    let d = (ng + s.groups - g) % s.groups;
                    assert_eq!(d, s.h * (s.a - 1 - r) + (s.h - q), "offset formula");
                    assert_eq!(nr, s.a - 1 - r, "mirror router");
                    // link d lands on a router whose link back has offset G − d
                    assert_eq!((g + s.groups - ng) % s.groups, s.groups - d);
                }
            }
        }
        // R_{a-1} owns +1..+h (the ADVC R_OUT), R_0 owns −h..−1
        for off in 1..=s.h {
            assert_eq!(s.exit(0, off).0, s.a - 1);
            assert_eq!(s.exit(0, s.groups - off).0, 0);
        }
    }

    /// Spec §1.1.2: traffic entering intermediate router R_r by a global link, for a destination
    /// group at offset i = k·h + m from its source group, leaves through R_{r−k} or R_{r−k−1};
    /// the deviating fraction is 4.3 % (h=4), 2.0 % (h=6), 1.1 % (h=8).
    #[test]
    fn palmtree_intermediate_exit_router_property() {
        for (h, expect) in [(4u32, 0.043), (6, 0.020), (8, 0.011)] {
            let s = shape(h, Arrangement::Palmtree);
            let (a, gs) = (s.a as i64, s.groups);
            let (mut total, mut off) = (0u64, 0u64);
            let gi = 0; // the intermediate group (rotational symmetry)
            for r in 0..s.a {
                for q in 0..s.h {
                    let (src, _, _) = s.global_neighbour(gi, r, q);
                    for i in 1..=(s.h * s.h) {
                        let k = (i / s.h) as i64;
                        let dst = (src + i) % gs;
                        total += 1;
                        if dst == gi {
                            off += 1;
                            continue;
                        }
                        let exit = s.exit(gi, dst).0 as i64;
                        let r0 = (r as i64 - k).rem_euclid(a);
                        let r1 = (r as i64 - k - 1).rem_euclid(a);
                        if exit != r0 && exit != r1 {
                            off += 1;
                        }
                    }
                }
            }
            let frac = off as f64 / total as f64;
            assert!(
                (frac - expect).abs() < 0.0015,
                "h={h}: {frac:.4} of flows deviate, spec says {expect}"
            );
        }
    }

    #[test]
    fn min_hops_are_at_most_three() {
        let s = shape(3, Arrangement::Palmtree);
        let mut one_global = 0;
        for a in 0..s.routers() {
            for b in 0..s.routers() {
                let hops = s.min_hops(a, b);
                assert!(hops <= 3);
                if s.group(a) != s.group(b) && hops == 1 {
                    one_global += 1;
                }
            }
        }
        // every pair of groups has exactly one router pair joined directly
        assert_eq!(one_global, s.groups * (s.groups - 1));
    }

    #[test]
    fn built_fabric_has_fogsim_port_order() {
        let t: crate::config::TopologyConfig =
            toml::from_str("kind = \"dragonfly\"\np = 2").expect("topology config");
        let crate::config::TopologyConfig::Dragonfly(t) = t else {
            panic!("a Dragonfly")
        };
        let lp = LinkParams {
            rate: crate::topology::LinkRate::bps(1),
            delay_ps: 0,
            lanes: 1,
        };
        let f = build(&t, lp, lp).unwrap();
        f.check().unwrap();
        assert_eq!(f.switches.len(), 36);
        assert_eq!(f.hcas.len(), 72);
        let s = match f.shape {
            Shape::Dragonfly(s) => s,
            _ => unreachable!(),
        };
        for r in 0..36u32 {
            let n = &f.nodes[r as usize];
            assert_eq!(n.ports.len(), 7);
            for (port, pt) in n.ports.iter().enumerate() {
                let port = port as u32;
                let class = if port < 2 {
                    LinkClass::Host
                } else if s.is_local_port(port) {
                    assert_eq!(s.local_peer(s.index(r), port), s.index(pt.peer));
                    assert_eq!(s.group(pt.peer), s.group(r));
                    LinkClass::Fabric
                } else {
                    LinkClass::Global
                };
                assert_eq!(pt.class, class, "router {r} port {port}");
            }
        }
        // (an unknown arrangement is refused by the schema's enum, naming the allowed ones)
        let bad = toml::from_str::<crate::config::TopologyConfig>(
            "kind = \"dragonfly\"\np = 2\narrangement = \"ring\"",
        );
        let e = bad.unwrap_err().to_string();
        assert!(e.contains("\"ring\"") && e.contains("\"palmtree\""), "{e}");
    }
}
