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
//!
//! The InfiniBand model gets the same check over its forwarding tables ([`check_tables`]):
//! channels are `(switch, output port, VL)` of switch-to-switch links, and the dependencies are
//! those of the routes the traffic can use, on the VL each flow uses (the model keeps a
//! packet's VL from source to destination).

use super::algorithm::{CycleRouting, Paths};
use super::candidates::RouteState;
use super::mesh_paths::MeshPaths;
use super::tables::{ForwardingTables, NO_PORT};
use super::vc_template::HopClass;
use crate::error::{Error, Result};
use crate::topology::{Fabric, NodeId};

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

    /// A cycle of channels, if the graph has one (depth-first search from each channel in
    /// increasing order, successors in increasing order).
    pub fn find_cycle(&self) -> Option<Vec<Channel>> {
        find_cycle(self.channels(), |v| self.successors(v))
            .map(|c| c.into_iter().map(|id| self.channel(id)).collect())
    }
}

/// A cycle in the directed graph of `n` vertices whose edges leave `v` towards
/// `successors(v)`, if there is one: the vertices in order, each with an edge to the next and
/// the last with an edge to the first (iterative depth-first search, linear in vertices and
/// edges). Shared by the cycle-level graph and the InfiniBand tables' graph.
pub fn find_cycle<'a>(n: usize, successors: impl Fn(u32) -> &'a [u32]) -> Option<Vec<u32>> {
    let mut color = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    let mut parent = vec![u32::MAX; n];
    let mut stack: Vec<(u32, usize)> = Vec::new();
    for root in 0..n {
        if color[root] != 0 || successors(root as u32).is_empty() {
            continue;
        }
        color[root] = 1;
        stack.push((root as u32, 0));
        while let Some(&mut (v, ref mut i)) = stack.last_mut() {
            if let Some(&w) = successors(v).get(*i) {
                *i += 1;
                match color[w as usize] {
                    0 => {
                        color[w as usize] = 1;
                        parent[w as usize] = v;
                        stack.push((w, 0));
                    }
                    1 => {
                        // back edge v → w closes a cycle w … v
                        let mut cyc = vec![v];
                        let mut u = v;
                        while u != w {
                            u = parent[u as usize];
                            cyc.push(u);
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

/// The construction the mesh/torus graph replaced, kept as the tests' reference: the
/// dimension-order path between every pair of routers (per phase for Valiant, joined at the
/// intermediate) walked hop by hop, as dependencies between single VCs numbered
/// `(router · radix + port) · max_vcs + vc`.
/// Traffic that forwarding tables must carry: from HCA `src` to each HCA of `dsts` on virtual
/// lane `vl` (HCAs by index, LID − 1).
#[derive(Debug, Clone, Copy)]
pub struct Demand<'a> {
    /// Source HCA index.
    pub src: u32,
    /// Destination HCA indices.
    pub dsts: &'a [u32],
    /// Virtual lane of every packet of these routes.
    pub vl: u8,
}

/// A channel of the InfiniBand model: output `port` of switch `node` on virtual lane `vl` (one
/// direction of a switch-to-switch link).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LftChannel {
    /// The switch.
    pub node: NodeId,
    /// Its output port.
    pub port: u16,
    /// Virtual lane.
    pub vl: u8,
}

/// What [`check_tables`] found.
#[derive(Debug, Clone, Default)]
pub struct TablesCheck {
    /// Channels (switch-to-switch output ports × VL) that hold a dependency.
    pub channels: usize,
    /// Dependencies (channel → next channel of some route).
    pub dependencies: usize,
    /// A cycle of channels, each waiting for the next, when the graph has one.
    pub cycle: Option<Vec<LftChannel>>,
}

impl TablesCheck {
    /// The cycle in readable form: `SW11 port 2 (to SW12) VL 0 → …`, at most `max` channels.
    pub fn describe_cycle(&self, fabric: &Fabric, max: usize) -> String {
        let Some(c) = &self.cycle else {
            return String::new();
        };
        let mut names: Vec<String> = c
            .iter()
            .take(max)
            .map(|ch| {
                let n = &fabric.nodes[ch.node as usize];
                let peer = &fabric.nodes[n.ports[ch.port as usize].peer as usize];
                format!(
                    "{} port {} (to {}) VL {}",
                    n.name, ch.port, peer.name, ch.vl
                )
            })
            .collect();
        if c.len() > max {
            names.push("…".into());
        }
        names.join(" → ")
    }
}

/// Destinations whose table columns are gathered at once by [`check_tables`].
const COLUMN_BLOCK: usize = 64;

/// The channel-dependency check of forwarding tables (InfiniBand model). A packet holding
/// switch output `(s, p)` on VL `v` waits, at the switch `s'` behind that link, for the output
/// `(s', lft[s'][dlid])` on the same VL; the graph of these dependencies over every route that
/// `demands` can use (and, with `returns`, every route back from a destination to its source:
/// congestion notifications) must be acyclic, or credit loops can deadlock the network
/// (Dally & Seitz). Outputs towards HCAs never wait (sinks drain) and are left out. Missing or
/// invalid table entries end a route (the route check reports them).
///
/// Cost, per VL: one bit per (source switch, destination) pair of the demands; then, per
/// destination, one walk from each switch where its routes start, which stops at the first
/// switch already walked for that destination — at most one step per (switch, destination),
/// on a cached copy of the destination's table column. So it is linear in the demands plus
/// the table entries the routes read.
pub fn check_tables(
    fabric: &Fabric,
    lft: &ForwardingTables,
    demands: &[Demand<'_>],
    returns: bool,
) -> TablesCheck {
    let n_sw = fabric.switches.len();
    let n_hca = fabric.hcas.len();
    let words = n_sw.div_ceil(64).max(1);
    // switch output ports, numbered `first[si] + port`; `peer_sw`: switch index at the far end
    // (u32::MAX for an HCA)
    let mut first = Vec::with_capacity(n_sw + 1);
    let mut peer_sw: Vec<u32> = Vec::new();
    for &sw in &fabric.switches {
        first.push(peer_sw.len() as u32);
        for port in &fabric.nodes[sw as usize].ports {
            peer_sw.push(lft.switch_index[port.peer as usize]);
        }
    }
    first.push(peer_sw.len() as u32);
    let n_ch = peer_sw.len();
    let ports_of = |si: usize| (first[si + 1] - first[si]) as usize;
    let max_ports = (0..n_sw).map(ports_of).max().unwrap_or(1);
    let mw = max_ports.div_ceil(64).max(1);
    // switch index of each HCA's switch (u32::MAX if it is linked to an HCA)
    let hca_switch: Vec<u32> = fabric
        .hcas
        .iter()
        .map(|&h| lft.switch_index[fabric.nodes[h as usize].ports[0].peer as usize])
        .collect();
    let mut vls: Vec<u8> = demands.iter().map(|d| d.vl).collect();
    vls.sort_unstable();
    vls.dedup();
    let mut out = TablesCheck::default();
    for vl in vls {
        // starts[d]: the switches (bits by switch index) where routes towards HCA d begin
        let mut starts: Vec<Vec<u64>> = vec![Vec::new(); n_hca];
        let mut mark = |d: u32, sw: u32| {
            if (sw as usize) < n_sw {
                let row = &mut starts[d as usize];
                if row.is_empty() {
                    row.resize(words, 0);
                }
                row[sw as usize / 64] |= 1 << (sw % 64);
            }
        };
        for dm in demands.iter().filter(|d| d.vl == vl) {
            let from = hca_switch[dm.src as usize];
            for &dst in dm.dsts {
                if dst != dm.src {
                    mark(dst, from);
                    if returns {
                        mark(dm.src, hca_switch[dst as usize]);
                    }
                }
            }
        }
        let used: Vec<u32> = (0..n_hca as u32)
            .filter(|&d| !starts[d as usize].is_empty())
            .collect();
        // succ[c · mw ..]: bit q set when channel c is followed by port q of the switch behind it
        let mut succ = vec![0u64; n_ch * mw];
        let mut walked = vec![u32::MAX; n_sw]; // destination last walked through each switch
        let mut column = vec![NO_PORT; COLUMN_BLOCK.min(used.len().max(1)) * n_sw];
        for block in used.chunks(COLUMN_BLOCK) {
            // the block's table columns, destination-major (row-major reads of the tables)
            let lids: Vec<usize> = block
                .iter()
                .map(|&d| fabric.nodes[fabric.hcas[d as usize] as usize].lid as usize)
                .collect();
            for si in 0..n_sw {
                let row = &lft.port[si * lft.lids..(si + 1) * lft.lids];
                for (j, &lid) in lids.iter().enumerate() {
                    column[j * n_sw + si] = row[lid];
                }
            }
            for (j, &d) in block.iter().enumerate() {
                let col = &column[j * n_sw..(j + 1) * n_sw];
                for (w, &bits) in starts[d as usize].iter().enumerate() {
                    let mut bits = bits;
                    while bits != 0 {
                        let mut cur = w * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        while walked[cur] != d {
                            walked[cur] = d;
                            let p = col[cur] as usize; // NO_PORT is never a valid port
                            if p >= ports_of(cur) {
                                break;
                            }
                            let c = first[cur] as usize + p;
                            let next = peer_sw[c] as usize;
                            if next >= n_sw {
                                break; // delivered to an HCA
                            }
                            let q = col[next] as usize;
                            if q >= ports_of(next) {
                                break;
                            }
                            if (peer_sw[first[next] as usize + q] as usize) < n_sw {
                                succ[c * mw + q / 64] |= 1 << (q % 64);
                            }
                            cur = next;
                        }
                    }
                }
            }
        }
        let mut edges: Vec<Vec<u32>> = vec![Vec::new(); n_ch];
        let mut holds = vec![false; n_ch];
        for c in 0..n_ch {
            for w in 0..mw {
                let mut bits = succ[c * mw + w];
                while bits != 0 {
                    let q = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let to = first[peer_sw[c] as usize] + q as u32;
                    edges[c].push(to);
                    holds[c] = true;
                    holds[to as usize] = true;
                }
            }
        }
        out.dependencies += edges.iter().map(Vec::len).sum::<usize>();
        out.channels += holds.iter().filter(|&&h| h).count();
        if let Some(cyc) = find_cycle(edges.len(), |v| edges[v as usize].as_slice()) {
            let channel = |c: u32| {
                let si = first.partition_point(|&f| f <= c) - 1;
                LftChannel {
                    node: fabric.switches[si],
                    port: (c - first[si]) as u16,
                    vl,
                }
            };
            out.cycle = Some(cyc.into_iter().map(channel).collect());
            return out;
        }
    }
    out
}

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
    use crate::config::TopologyKind;
    use crate::routing::{dmodk, dor, updown};
    use crate::topology::mesh_torus::tests::mesh;

    /// Every HCA sends to every other on `vl`.
    fn all_to_all(f: &Fabric) -> Vec<u32> {
        (0..f.hcas.len() as u32).collect()
    }

    fn demands<'a>(f: &Fabric, all: &'a [u32], vl: u8) -> Vec<Demand<'a>> {
        (0..f.hcas.len() as u32)
            .map(|src| Demand { src, dsts: all, vl })
            .collect()
    }

    #[test]
    fn dor_tables_on_a_torus_are_cyclic_and_on_a_mesh_acyclic() {
        // 4×4 torus, DOR, one VL: each ring of wrap-around links is a cycle of 4 channels
        let t = mesh(TopologyKind::Torus, &[4, 4], 2, None);
        let lft = dor::build(&t).unwrap();
        let all = all_to_all(&t);
        let c = check_tables(&t, &lft, &demands(&t, &all, 0), false);
        let cycle = c.cycle.as_ref().expect("DOR on a torus has a cyclic CDG");
        assert_eq!(cycle.len(), 4, "{cycle:?}");
        assert!(cycle.iter().all(|ch| ch.vl == 0));
        // the cycle is real: each channel's link ends at the switch of the next channel
        for (i, ch) in cycle.iter().enumerate() {
            let next = cycle[(i + 1) % cycle.len()];
            assert_eq!(
                t.nodes[ch.node as usize].ports[ch.port as usize].peer,
                next.node
            );
        }
        let text = c.describe_cycle(&t, 12);
        assert!(
            text.contains(" port ") && text.contains("(to SW") && text.contains(" VL 0 → "),
            "{text}"
        );
        assert_eq!(text.matches(" → ").count(), 3, "{text}");
        // the same on a mesh: acyclic, and every inter-switch channel carries a dependency
        let m = mesh(TopologyKind::Mesh, &[4, 4], 2, None);
        let lft = dor::build(&m).unwrap();
        let c = check_tables(&m, &lft, &demands(&m, &all, 0), true);
        assert!(c.cycle.is_none(), "{:?}", c.cycle);
        assert!(c.dependencies > 0);
        assert_eq!(c.channels, 2 * 24, "every direction of the 24 mesh links");
        // a torus whose traffic never wraps around has no cycle either: one row, neighbours only
        let few = [1u32];
        let d = [Demand {
            src: 0,
            dsts: &few,
            vl: 0,
        }];
        assert!(check_tables(&t, &dor::build(&t).unwrap(), &d, false)
            .cycle
            .is_none());
        // up*/down* on the same torus is deadlock-free
        let lft = updown::build(&t).unwrap();
        assert!(check_tables(&t, &lft, &demands(&t, &all, 0), true)
            .cycle
            .is_none());
    }

    #[test]
    fn cycles_are_per_vl() {
        // half the sources on VL 0, half on VL 1: a ring still closes within one VL
        let t = mesh(TopologyKind::Torus, &[4, 4], 2, None);
        let lft = dor::build(&t).unwrap();
        let all = all_to_all(&t);
        let mut ds = demands(&t, &all, 0);
        for d in ds.iter_mut().skip(16) {
            d.vl = 1;
        }
        let c = check_tables(&t, &lft, &ds, false);
        assert!(c.cycle.is_some());
        // a single ring's worth of traffic split so that no VL closes the ring: from each switch of
        // row 1 only to its right neighbour, alternating VLs -> two chains, no cycle
        let row: Vec<u32> = (0..4)
            .map(|c| t.nodes[t.by_name[&format!("H1{}1", c + 1)] as usize].lid - 1)
            .collect();
        let nexts: Vec<[u32; 1]> = (0..4).map(|i| [row[(i + 2) % 4]]).collect();
        let split: Vec<Demand> = (0..4)
            .map(|i| Demand {
                src: row[i],
                dsts: &nexts[i],
                vl: (i % 2) as u8,
            })
            .collect();
        let c = check_tables(&t, &lft, &split, false);
        assert!(c.cycle.is_none(), "{}", c.describe_cycle(&t, 12));
        let same: Vec<Demand> = split.iter().map(|d| Demand { vl: 0, ..*d }).collect();
        assert!(check_tables(&t, &lft, &same, false).cycle.is_some());
    }

    #[test]
    fn fat_tree_648_is_acyclic() {
        let f = crate::topology::fat_tree::tests::tree(&crate::topology::fat_tree::tests::cfg(
            None,
            None,
            Some(vec![18, 36]),
            Some(vec![1, 18]),
        ));
        let lft = dmodk::build(&f, crate::config::DmodkDigits::LowFirst).unwrap();
        let all = all_to_all(&f);
        let c = check_tables(&f, &lft, &demands(&f, &all, 0), true);
        assert!(c.cycle.is_none());
        assert!(c.dependencies > 0);
    }
}
