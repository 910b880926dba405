//! The channel-dependency graphs of the cycle-level wing (Dragonfly spec §3.0.3, §3.13): at
//! start-up the graph of the chosen routing and VC rules is built ([`build`], a
//! [`ChannelGraph`] of the foundation) and searched for a cycle; a cycle refuses the
//! configuration, naming its channels.
//!
//! Channels are `(router, output port, VC group)` of router-to-router links; a group is one VC
//! on a Dragonfly and one VC class on a mesh/torus, since a hop may take any VC of its class.
//!
//! Dragonfly graphs are built per router from the VC template (a packet holding an input
//! channel may request every output channel the template allows next — a superset of the real
//! dependencies, so an acyclic result is a proof). Mesh and torus graphs hold exactly the
//! dependencies of the dimension-order paths between every pair of routers (per phase for
//! Valiant, joined at the intermediate), found without walking the N² paths: a DOR path is a
//! sequence of one-dimensional walks, one per dimension in increasing order, each decided by
//! the coordinates of that dimension alone (the VC class state restarts at each dimension and
//! each phase). So the consecutive hops of every path are (a) two hops of one dimension's walk,
//! (b) the last hop of one dimension's walk followed by the first hop of a higher dimension's,
//! or (c, Valiant) the last hop of phase A followed by the first of phase B at the
//! intermediate; and every such combination occurs on some path (the walks of different
//! dimensions are chosen independently by the source and destination coordinates). The walks of
//! one line of routers per dimension, routed by the routing itself
//! ([`CycleRouting::next_hop`]), give these hop pairs per coordinate; every router then gets
//! the pairs of its own coordinates (`O(n³)` walks per dimension of size `n`, then
//! `O(routers)` work, instead of `O(routers²)` paths).

use super::algorithm::{CycleRouting, Paths};
use super::candidates::RouteState;
use super::mesh_paths::MeshPaths;
use super::vc_template::HopClass;
use crate::error::{Error, Result};
use crate::routing::channel_dependency::ChannelGraph;

/// The CDG of a routing on its topology: `routers` routers of `radix` ports with up to
/// `max_vcs` VCs each; `link(r, port)` gives the router and port at the far end of a
/// router-to-router link (`None` for a terminal or an unused port).
pub fn build(
    routing: &CycleRouting,
    routers: u32,
    radix: u32,
    max_vcs: u32,
    link: &dyn Fn(u32, u32) -> Option<(u32, u32)>,
) -> Result<ChannelGraph> {
    match &routing.paths {
        Paths::Dragonfly(d) => {
            let (s, t) = (&d.shape, &d.template);
            let class = |p: u32| {
                if s.is_global_port(p) {
                    HopClass::Global
                } else {
                    HopClass::Local
                }
            };
            let id = |r: u32, port: u32, vc: u32| (r * radix + port) * max_vcs + vc;
            ChannelGraph::from_routers(routers, radix, max_vcs, 1, |r, out| {
                for ip in s.p..s.radix() {
                    // the channel that delivers into r through ip is the far end's output
                    let Some((ur, up)) = link(r, ip) else {
                        continue;
                    };
                    for (pos, &(c1, v1)) in t.entries.iter().enumerate() {
                        if c1 != class(ip) {
                            continue;
                        }
                        let from = id(ur, up, v1 as u32);
                        for op in s.p..s.radix() {
                            if op == ip {
                                continue;
                            }
                            if let Some(j) = t.next(Some(pos), class(op)) {
                                out.push((from, id(r, op, t.entries[j].1 as u32)));
                            }
                        }
                    }
                }
                Ok(())
            })
        }
        Paths::Mesh(m) => mesh_graph(routing, m, routers, radix, link),
    }
}

/// A hop of a mesh/torus walk along one dimension: its direction and VC group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Hop {
    plus: bool,
    group: u32,
}

/// The hops of every walk along one dimension (for one routing phase), by coordinate `x`.
#[derive(Debug, Clone, Default)]
struct LineHops {
    /// Consecutive hops (arriving at `x`, leaving `x`) of one walk.
    within: Vec<Vec<(Hop, Hop)>>,
    /// Last hops of walks that end at `x`.
    last: Vec<Vec<Hop>>,
    /// First hops of walks that start at `x`.
    first: Vec<Vec<Hop>>,
}

/// Which routing phase a walk belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Plain dimension-order routing.
    Dor,
    /// Valiant phase A (towards the intermediate).
    A,
    /// Valiant phase B (from the intermediate).
    B,
}

/// The walks between every pair of routers `line[a]`, `line[b]` of one line along dimension
/// `k`, routed by `routing`, gathered per coordinate.
fn line_hops(
    routing: &CycleRouting,
    m: &MeshPaths,
    line: &[u32],
    k: usize,
    per: u32,
    phase: Phase,
    link: &dyn Fn(u32, u32) -> Option<(u32, u32)>,
) -> Result<LineHops> {
    let n = line.len();
    let mut h = LineHops {
        within: vec![Vec::new(); n],
        last: vec![Vec::new(); n],
        first: vec![Vec::new(); n],
    };
    // Walks towards one destination `b` that reach the same router of the line in the same
    // header state go on identically: a walk stops there (after its hop pair at that router),
    // so each destination costs O(n) hops rather than O(n²).
    let mut seen: Vec<Vec<RouteState>> = vec![Vec::new(); n];
    let mut touched: Vec<usize> = Vec::new();
    for b in 0..n {
        for &x in &touched {
            seen[x].clear();
        }
        touched.clear();
        for a in 0..n {
            if a == b {
                continue;
            }
            let mut st = RouteState::default();
            match phase {
                Phase::Dor => {}
                Phase::A => {
                    st.inter = line[b];
                    st.phase_a = true;
                }
                Phase::B => st.inter = line[a],
            }
            let (mut x, mut prev): (usize, Option<Hop>) = (a, None);
            let mut hops = 0;
            loop {
                let r = line[x];
                if x == b {
                    if let Some(p) = prev {
                        push_unique(&mut h.last[x], p);
                    }
                    break;
                }
                let before = st;
                let c = match routing.next_hop(r, line[b], &mut st) {
                    Ok(Some(c)) => c,
                    // no hop towards a router of the line: the walk ends (as the naive
                    // construction, which follows a path while it has hops)
                    _ => break,
                };
                let plus = if Some(c.port) == m.grid.port(r, k, true) {
                    true
                } else if Some(c.port) == m.grid.port(r, k, false) {
                    false
                } else {
                    return Err(Error::Internal(format!(
                        "channel-dependency check: a walk along dimension {k} left it at router {r}"
                    )));
                };
                if !(c.vc_lo as u32).is_multiple_of(per)
                    || c.vc_hi as u32 + 1 - c.vc_lo as u32 != per
                {
                    return Err(Error::Internal(format!(
                        "channel-dependency check: VCs {}..={} are not one VC class of {per}",
                        c.vc_lo, c.vc_hi
                    )));
                }
                let hop = Hop {
                    plus,
                    group: c.vc_lo as u32 / per,
                };
                match prev {
                    Some(p) => push_unique(&mut h.within[x], (p, hop)),
                    None => push_unique(&mut h.first[x], hop),
                }
                if seen[x].contains(&before) {
                    break; // the rest of this walk was recorded by an earlier one
                }
                seen[x].push(before);
                touched.push(x);
                prev = Some(hop);
                x = if plus { (x + 1) % n } else { (x + n - 1) % n };
                match link(r, c.port as u32) {
                    None => break,
                    Some((next, _)) if next != line[x] => {
                        return Err(Error::Internal(format!(
                            "channel-dependency check: port {} of router {r} does not lead along dimension {k}",
                            c.port
                        )))
                    }
                    Some(_) => {}
                }
                hops += 1;
                if hops > n {
                    return Err(Error::Internal(format!(
                        "channel-dependency check: a walk along dimension {k} does not end"
                    )));
                }
            }
        }
    }
    for v in h.within.iter_mut() {
        v.sort_unstable();
    }
    for v in h.last.iter_mut().chain(h.first.iter_mut()) {
        v.sort_unstable();
    }
    Ok(h)
}

/// Adds `item` to the short list `v` unless it is there (a router of a line sees a handful of
/// distinct hops however many walks pass it: memory stays linear in the line's length).
fn push_unique<T: PartialEq>(v: &mut Vec<T>, item: T) {
    if !v.contains(&item) {
        v.push(item);
    }
}

/// The mesh/torus CDG from the walks of one line per dimension (module documentation).
fn mesh_graph(
    routing: &CycleRouting,
    m: &MeshPaths,
    routers: u32,
    radix: u32,
    link: &dyn Fn(u32, u32) -> Option<(u32, u32)>,
) -> Result<ChannelGraph> {
    let g = &m.grid;
    let nd = g.dims.len();
    if g.switches() != routers {
        return Err(Error::Internal(
            "channel-dependency check: mesh coordinates and routers disagree".into(),
        ));
    }
    let per = (m.local_vcs / m.classes.max(1)).max(1) as u32;
    let groups = m.classes.max(1) as u32;
    // the line through router 0 along each dimension (router index Σ coords[d] · stride[d])
    let mut lines: Vec<Vec<u32>> = Vec::with_capacity(nd);
    let mut stride = 1u64;
    for k in 0..nd {
        let line: Vec<u32> = (0..g.dims[k] as u64).map(|x| (x * stride) as u32).collect();
        for (x, &r) in line.iter().enumerate() {
            let c = (r < routers).then(|| g.coords(r));
            if c.is_none_or(|c| {
                c[k] as usize != x || c.iter().enumerate().any(|(d, &v)| d != k && v != 0)
            }) {
                return Err(Error::Internal(
                    "channel-dependency check: unexpected mesh router numbering".into(),
                ));
            }
        }
        lines.push(line);
        stride *= g.dims[k] as u64;
    }
    let valiant = m.phases == 2;
    let phases: &[Phase] = if valiant {
        &[Phase::A, Phase::B]
    } else {
        &[Phase::Dor]
    };
    let mut walks: Vec<Vec<LineHops>> = Vec::with_capacity(phases.len());
    for &ph in phases {
        walks.push(
            (0..nd)
                .map(|k| line_hops(routing, m, &lines[k], k, per, ph, link))
                .collect::<Result<_>>()?,
        );
    }
    let id = |r: u32, port: u32, g: u32| (r * radix + port) * groups + g;
    // the channel arriving at r along dimension k by `hop`, and the one leaving r by `hop`
    let arriving = |r: u32, k: usize, hop: Hop| -> Option<u32> {
        // (the packet came in through the port on the side it came from)
        let p = g.port(r, k, !hop.plus)?;
        let (u, up) = link(r, p as u32)?;
        Some(id(u, up, hop.group))
    };
    let leaving = |r: u32, k: usize, hop: Hop| -> Option<u32> {
        let p = g.port(r, k, hop.plus)?;
        Some(id(r, p as u32, hop.group))
    };
    ChannelGraph::from_routers(routers, radix, groups, per, |r, out| {
        let c = g.coords(r);
        let mut pair = |j: usize, hin: Hop, k: usize, hout: Hop| {
            if let (Some(f), Some(t)) = (arriving(r, j, hin), leaving(r, k, hout)) {
                out.push((f, t));
            }
        };
        for w in &walks {
            for k in 0..nd {
                let x = c[k] as usize;
                // (a) two hops of one dimension's walk
                for &(hin, hout) in &w[k].within[x] {
                    pair(k, hin, k, hout);
                }
                // (b) the last hop of a lower dimension, then the first of dimension k
                for j in 0..k {
                    for &hin in &w[j].last[c[j] as usize] {
                        for &hout in &w[k].first[x] {
                            pair(j, hin, k, hout);
                        }
                    }
                }
            }
        }
        // (c) Valiant: the last hop of phase A, then the first of phase B
        if valiant {
            for j in 0..nd {
                for &hin in &walks[0][j].last[c[j] as usize] {
                    for k in 0..nd {
                        for &hout in &walks[1][k].first[c[k] as usize] {
                            pair(j, hin, k, hout);
                        }
                    }
                }
            }
        }
        Ok(())
    })
}

#[cfg(test)]
/// The construction the mesh/torus graph replaced, kept as the tests' reference: the
/// dimension-order path between every pair of routers (per phase for Valiant, joined at the
/// intermediate) walked hop by hop, as dependencies between single VCs numbered
/// `(router · radix + port) · max_vcs + vc`.
pub(crate) fn naive_edges(
    routing: &CycleRouting,
    routers: u32,
    radix: u32,
    max_vcs: u32,
    link: &dyn Fn(u32, u32) -> Option<(u32, u32)>,
) -> std::collections::BTreeSet<(u32, u32)> {
    let mut e = std::collections::BTreeSet::new();
    let id = |r: u32, port: u32, vc: u32| (r * radix + port) * max_vcs + vc;
    match &routing.paths {
        Paths::Dragonfly(d) => {
            let (s, t) = (&d.shape, &d.template);
            let class = |p: u32| {
                if s.is_global_port(p) {
                    HopClass::Global
                } else {
                    HopClass::Local
                }
            };
            for r in 0..routers {
                for ip in s.p..s.radix() {
                    let Some((ur, up)) = link(r, ip) else {
                        continue;
                    };
                    for (pos, &(c1, v1)) in t.entries.iter().enumerate() {
                        if c1 != class(ip) {
                            continue;
                        }
                        for op in s.p..s.radix() {
                            if op == ip {
                                continue;
                            }
                            if let Some(j) = t.next(Some(pos), class(op)) {
                                e.insert((id(ur, up, v1 as u32), id(r, op, t.entries[j].1 as u32)));
                            }
                        }
                    }
                }
            }
        }
        Paths::Mesh(m) => {
            let n = m.grid.switches();
            let valiant = m.phases == 2;
            let mut arriving: Vec<Vec<u32>> = vec![Vec::new(); n as usize];
            let mut leaving: Vec<Vec<u32>> = vec![Vec::new(); n as usize];
            let phases: &[bool] = if valiant { &[true, false] } else { &[false] };
            for &phase_a in phases {
                for a in 0..n {
                    for b in 0..n {
                        let mut st = RouteState::default();
                        if phase_a {
                            st.inter = b;
                            st.phase_a = true;
                        } else if valiant {
                            st.inter = a;
                        }
                        let mut r = a;
                        let mut prev: Vec<u32> = Vec::new();
                        let mut first = true;
                        loop {
                            if phase_a && r == b {
                                arriving[b as usize].extend(prev.iter().copied());
                                break;
                            }
                            let Ok(Some(c)) = routing.next_hop(r, b, &mut st) else {
                                break;
                            };
                            let cur: Vec<u32> = (c.vc_lo..=c.vc_hi)
                                .map(|v| id(r, c.port as u32, v as u32))
                                .collect();
                            for &f in &prev {
                                for &t in &cur {
                                    e.insert((f, t));
                                }
                            }
                            if first && !phase_a && valiant {
                                leaving[a as usize].extend(cur.iter().copied());
                            }
                            first = false;
                            let Some((nr, _)) = link(r, c.port as u32) else {
                                break;
                            };
                            prev = cur;
                            r = nr;
                        }
                    }
                }
            }
            for r in 0..n as usize {
                for &f in &arriving[r] {
                    for &t in &leaving[r] {
                        e.insert((f, t));
                    }
                }
            }
        }
    }
    e
}

#[cfg(test)]
impl ChannelGraph {
    /// The dependencies between single VCs that this graph of VC groups stands for, numbered
    /// as [`naive_edges`] (`max_vcs` VCs per port).
    pub(crate) fn vc_edges(&self, max_vcs: u32) -> std::collections::BTreeSet<(u32, u32)> {
        let mut e = std::collections::BTreeSet::new();
        for f in 0..self.channels() as u32 {
            let (fr, fp, fg) = self.channel(f);
            for &t in self.successors(f) {
                let (tr, tp, tg) = self.channel(t);
                let (flo, fhi) = self.vcs_of(fg);
                let (tlo, thi) = self.vcs_of(tg);
                for fv in flo..=fhi {
                    for tv in tlo..=thi {
                        e.insert((
                            (fr * self.radix + fp) * max_vcs + fv,
                            (tr * self.radix + tp) * max_vcs + tv,
                        ));
                    }
                }
            }
        }
        e
    }
}

#[cfg(test)]
impl ChannelGraph {
    /// A graph of single channels from explicit dependencies (`n` channels; only
    /// [`ChannelGraph::find_cycle`] is meaningful on it).
    pub(crate) fn from_edges(n: u32, edges: &std::collections::BTreeSet<(u32, u32)>) -> Self {
        Self::from_routers(1, n, 1, 1, |_, out| {
            out.extend(edges.iter().copied());
            Ok(())
        })
        .expect("graph")
    }
}
