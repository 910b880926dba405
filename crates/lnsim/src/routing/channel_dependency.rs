//! The channel-dependency graph (CDG) check of the cycle-level model (Dragonfly spec §3.0.3,
//! §3.13): a configuration is deadlock-free when no cycle of (link, VC) channels can hold
//! packets each waiting for the next. At start-up the graph of the chosen routing and VC rules
//! is built and searched for a cycle; a cycle refuses the configuration, naming its channels.
//!
//! Channels are `(router, output port, VC group)` of router-to-router links, numbered
//! `(router · radix + port) · groups + group`; a group is `per` consecutive VCs that every
//! route uses together (Dragonfly: one VC; mesh/torus: one VC class, since a hop may take any
//! VC of its class). A dependency between two groups stands for the dependencies between
//! every VC of one and every VC of the other, so the graph of groups has a cycle exactly when
//! the graph of single VCs has one.
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

use super::candidates::{Algorithm, CycleRouting, MeshGeometry, RouteState, RoutedTopology};
use super::vc_template::HopClass;
use crate::error::{Error, Result};

/// A channel-dependency graph (adjacency in compressed rows).
#[derive(Debug, Clone)]
pub struct ChannelGraph {
    /// Ports per router (channel numbering).
    pub radix: u32,
    /// VC groups per port (channel numbering).
    pub groups: u32,
    /// VCs per group: group `g` is VCs `g · per ..= g · per + per − 1`.
    pub per: u32,
    /// Row starts: the dependencies of channel `c` are `targets[offsets[c]..offsets[c + 1]]`.
    offsets: Vec<usize>,
    targets: Vec<u32>,
}

/// A channel decoded: router, port, VC group.
pub type Channel = (u32, u32, u32);

impl ChannelGraph {
    /// Channel number of `(router, port, group)`.
    pub fn id(&self, r: u32, port: u32, group: u32) -> u32 {
        (r * self.radix + port) * self.groups + group
    }
    /// Decodes a channel number.
    pub fn channel(&self, id: u32) -> Channel {
        let g = id % self.groups;
        let rp = id / self.groups;
        (rp / self.radix, rp % self.radix, g)
    }
    /// The VCs of group `g` (first, last).
    pub fn vcs_of(&self, g: u32) -> (u32, u32) {
        (g * self.per, g * self.per + self.per - 1)
    }
    /// "VC 3" or "VCs 2–3": the VCs of group `g` for messages.
    pub fn vc_label(&self, g: u32) -> String {
        let (lo, hi) = self.vcs_of(g);
        if lo == hi {
            format!("VC {lo}")
        } else {
            format!("VCs {lo}–{hi}")
        }
    }
    /// Number of channels (router ports × groups).
    pub fn channels(&self) -> usize {
        self.offsets.len() - 1
    }
    /// The channels channel `c` depends on, in increasing order.
    pub fn successors(&self, c: u32) -> &[u32] {
        &self.targets[self.offsets[c as usize]..self.offsets[c as usize + 1]]
    }
    /// Number of dependencies.
    pub fn edge_count(&self) -> usize {
        self.targets.len()
    }

    /// The graph of `routers` routers whose dependencies `emit(r, out)` pushes into `out` as
    /// `(from, to)` pairs, router by router (the dependencies at router `r`; duplicates are
    /// removed). `emit` runs twice per router: once to count each channel's dependencies, once
    /// to place them; each channel's list is then sorted and its duplicates dropped.
    fn from_routers(
        routers: u32,
        radix: u32,
        groups: u32,
        per: u32,
        mut emit: impl FnMut(u32, &mut Vec<(u32, u32)>) -> Result<()>,
    ) -> Result<Self> {
        let n = routers as u64 * radix as u64 * groups as u64;
        if n >= u32::MAX as u64 {
            return Err(Error::input(
                "topology",
                format!("{n} channels are too many for the channel-dependency check"),
            ));
        }
        let n = n as usize;
        let mut offsets = vec![0usize; n + 1];
        let mut buf: Vec<(u32, u32)> = Vec::new();
        for r in 0..routers {
            buf.clear();
            emit(r, &mut buf)?;
            for &(f, _) in &buf {
                offsets[f as usize + 1] += 1;
            }
        }
        for c in 0..n {
            offsets[c + 1] += offsets[c];
        }
        let mut targets = vec![0u32; offsets[n]];
        let mut fill = offsets.clone();
        for r in 0..routers {
            buf.clear();
            emit(r, &mut buf)?;
            for &(f, t) in &buf {
                let k = &mut fill[f as usize];
                if *k >= offsets[f as usize + 1] {
                    return Err(Error::Internal(format!(
                        "channel-dependency graph: channel {f} got more dependencies the second time"
                    )));
                }
                targets[*k] = t;
                *k += 1;
            }
        }
        // sort each list, drop its duplicates and close the gaps
        let mut w = 0;
        for c in 0..n {
            let (lo, hi) = (offsets[c], offsets[c + 1]);
            targets[lo..hi].sort_unstable();
            offsets[c] = w;
            let mut last = None;
            for k in lo..hi {
                let t = targets[k];
                if last != Some(t) {
                    targets[w] = t;
                    w += 1;
                    last = Some(t);
                }
            }
        }
        offsets[n] = w;
        targets.truncate(w);
        targets.shrink_to_fit();
        Ok(ChannelGraph {
            radix,
            groups,
            per,
            offsets,
            targets,
        })
    }

    /// A cycle of channels, if the graph has one (iterative depth-first search from each
    /// channel in increasing order, successors in increasing order).
    pub fn find_cycle(&self) -> Option<Vec<Channel>> {
        let n = self.channels();
        let mut color = vec![0u8; n]; // 0 new, 1 on stack, 2 done
        let mut parent = vec![u32::MAX; n];
        let mut stack: Vec<(u32, usize)> = Vec::new();
        for root in 0..n {
            if color[root] != 0 || self.successors(root as u32).is_empty() {
                continue;
            }
            color[root] = 1;
            stack.push((root as u32, 0));
            while let Some(&mut (v, ref mut i)) = stack.last_mut() {
                if let Some(&w) = self.successors(v).get(*i) {
                    *i += 1;
                    match color[w as usize] {
                        0 => {
                            color[w as usize] = 1;
                            parent[w as usize] = v;
                            stack.push((w, 0));
                        }
                        1 => {
                            // back edge v → w closes a cycle w … v
                            let mut cyc = vec![self.channel(v)];
                            let mut u = v;
                            while u != w {
                                u = parent[u as usize];
                                cyc.push(self.channel(u));
                            }
                            cyc.reverse();
                            return Some(cyc);
                        }
                        _ => {}
                    }
                } else {
                    color[v as usize] = 2;
                    stack.pop();
                }
            }
        }
        None
    }
}

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
    match &routing.topo {
        RoutedTopology::Dragonfly(s) => {
            let t = &routing.template;
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
        RoutedTopology::Mesh(m) => mesh_graph(routing, m, routers, radix, link),
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
    m: &MeshGeometry,
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
    for a in 0..n {
        for b in 0..n {
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
                        h.last[x].push(p);
                    }
                    break;
                }
                let c = match routing.next_hop(r, line[b], &mut st) {
                    Ok(Some(c)) => c,
                    // no hop towards a router of the line: the walk ends (as the naive
                    // construction, which follows a path while it has hops)
                    _ => break,
                };
                let plus = if c.port == m.plus[r as usize][k] {
                    true
                } else if c.port == m.minus[r as usize][k] {
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
                    Some(p) => h.within[x].push((p, hop)),
                    None => h.first[x].push(hop),
                }
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
        v.dedup();
    }
    for v in h.last.iter_mut().chain(h.first.iter_mut()) {
        v.sort_unstable();
        v.dedup();
    }
    Ok(h)
}

/// The mesh/torus CDG from the walks of one line per dimension (module documentation).
fn mesh_graph(
    routing: &CycleRouting,
    m: &MeshGeometry,
    routers: u32,
    radix: u32,
    link: &dyn Fn(u32, u32) -> Option<(u32, u32)>,
) -> Result<ChannelGraph> {
    let nd = m.dims.len();
    if m.coords.len() != routers as usize {
        return Err(Error::Internal(
            "channel-dependency check: mesh coordinates and routers disagree".into(),
        ));
    }
    let per = (routing.local_vcs / routing.classes.max(1)).max(1) as u32;
    let groups = routing.classes.max(1) as u32;
    // the line through router 0 along each dimension (router index Σ coords[d] · stride[d])
    let mut lines: Vec<Vec<u32>> = Vec::with_capacity(nd);
    let mut stride = 1u64;
    for k in 0..nd {
        let line: Vec<u32> = (0..m.dims[k] as u64).map(|x| (x * stride) as u32).collect();
        for (x, &r) in line.iter().enumerate() {
            let c = m.coords.get(r as usize);
            if c.is_none_or(|c| {
                c[k] as usize != x || c.iter().enumerate().any(|(d, &v)| d != k && v != 0)
            }) {
                return Err(Error::Internal(
                    "channel-dependency check: unexpected mesh router numbering".into(),
                ));
            }
        }
        lines.push(line);
        stride *= m.dims[k] as u64;
    }
    let valiant = routing.alg == Algorithm::MeshVlb;
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
        let p = if hop.plus {
            m.minus[r as usize][k]
        } else {
            m.plus[r as usize][k]
        };
        if p == u16::MAX {
            return None;
        }
        let (u, up) = link(r, p as u32)?;
        Some(id(u, up, hop.group))
    };
    let leaving = |r: u32, k: usize, hop: Hop| -> Option<u32> {
        let p = if hop.plus {
            m.plus[r as usize][k]
        } else {
            m.minus[r as usize][k]
        };
        (p != u16::MAX).then(|| id(r, p as u32, hop.group))
    };
    ChannelGraph::from_routers(routers, radix, groups, per, |r, out| {
        let c = &m.coords[r as usize];
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

/// The construction the mesh/torus graph replaced, kept as the tests' reference: the
/// dimension-order path between every pair of routers (per phase for Valiant, joined at the
/// intermediate) walked hop by hop, as dependencies between single VCs numbered
/// `(router · radix + port) · max_vcs + vc`.
#[cfg(test)]
pub(crate) fn naive_edges(
    routing: &CycleRouting,
    routers: u32,
    radix: u32,
    max_vcs: u32,
    link: &dyn Fn(u32, u32) -> Option<(u32, u32)>,
) -> std::collections::BTreeSet<(u32, u32)> {
    let mut e = std::collections::BTreeSet::new();
    let id = |r: u32, port: u32, vc: u32| (r * radix + port) * max_vcs + vc;
    match &routing.topo {
        RoutedTopology::Dragonfly(s) => {
            let t = &routing.template;
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
        RoutedTopology::Mesh(m) => {
            let n = m.coords.len() as u32;
            let valiant = routing.alg == Algorithm::MeshVlb;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph from explicit edges (one router, channels as ports).
    fn graph(n: u32, edges: &[(u32, u32)]) -> ChannelGraph {
        ChannelGraph::from_routers(1, n, 1, 1, |_, out| {
            out.extend_from_slice(edges);
            Ok(())
        })
        .unwrap()
    }

    #[test]
    fn finds_a_cycle_and_accepts_a_dag() {
        let g = graph(3, &[(0, 1), (1, 2)]);
        assert!(g.find_cycle().is_none());
        assert_eq!(g.edge_count(), 2);
        let g = graph(3, &[(0, 1), (1, 2), (2, 1), (1, 2)]);
        assert_eq!(g.edge_count(), 3, "duplicates are removed");
        let c = g.find_cycle().unwrap();
        assert_eq!(c.len(), 2);
        assert!(c.contains(&(0, 1, 0)) && c.contains(&(0, 2, 0)));
    }
}
