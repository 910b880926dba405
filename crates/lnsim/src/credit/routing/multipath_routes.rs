//! DRB's multipath set-up by the subnet manager (drb-and-ddbbm spec A.3.1, A.3.2 start-up,
//! A.3.5 mode 1 "per-pair path", A.3.6): for every ordered pair (s, d) of HCAs, up to
//! `drb.max_paths` **link-disjoint** paths, sorted by hop count, path 0 being the forwarding
//! tables' route (DOR on meshes and tori); and the VL layer of every path, chosen so that each
//! layer's channel-dependency graph stays acyclic (A.3.5 "Deadlock").
//!
//! **Search.** The spec asks for a DFS-based search that keeps disjoint paths only and prefers
//! the shortest. Path 0 is fixed (the tables' route); its switch-to-switch links are removed
//! (both directions: link-disjoint, not only channel-disjoint). The alternatives are then found
//! by successive shortest augmenting paths over the remaining switch graph (a unit-cost min-cost
//! flow; Bellman–Ford on the residual graph, arcs in port order): with `k` alternatives the
//! result has the fewest total hops any `k` link-disjoint paths avoiding path 0 have, and the
//! count is the most the graph allows (up to `max_paths − 1`), which a greedy one-at-a-time
//! shortest search does not guarantee. The flow is split into paths at the source, lowest port
//! first, and the alternatives are sorted by (hops, output ports). HCAs on the same switch have
//! path 0 only. Everything is deterministic (no randomness, port order throughout).
//!
//! **Store.** Flat: `ports` holds every path's output ports, one per switch it crosses (the last
//! one to the destination HCA), and `offsets[(s·n + d)·K + k]` its start; a packet at its `h`-th
//! switch (`Packet::hops = h`) on path `k` leaves by `ports[offsets[slot] + h]` — one load, no
//! allocation on the hot path. The builder checks the size against memory first
//! (`credit/memory_estimate.rs` estimates it from the scenario).
//!
//! **Layers (LASH-style, spec A.3.5).** A packet keeps its VL from source to destination in
//! this model, so a dateline (a VL change when crossing a ring's wrap link) is not available;
//! the layering takes its place: paths are assigned, path 0 of every pair first (pairs in
//! order), then path 1 of every pair, …, each to the lowest layer whose channel-dependency
//! graph stays acyclic with it (a depth-first search from the path's first channel finds any
//! new cycle, since every new dependency is reachable from it). Channels are switch-to-switch
//! outputs; hops into an HCA never wait (sinks drain). The packet's VL is its path's layer. On
//! a mesh, DOR is acyclic and every path 0 lands on VL 0; on a torus the rings' cycles are
//! broken by spreading the paths that close them over layers. More layers than `switch.vls`
//! is an error naming that key. [`MultipathRoutes::check`] re-verifies every layer's graph
//! from scratch at start-up (the channel-dependency check `validate` reports).

use super::table_dependencies::{LftChannel, TablesCheck};
use super::tables::ForwardingTables;
use crate::config::PathMode;
use crate::error::{Error, Result};
use crate::routing::channel_dependency::find_cycle;
use crate::topology::{Fabric, NodeId};

/// Most VL layers (IBA data VLs, spec A.3.5: "Cap the total at ≤ 15 data VLs").
pub const MAX_LAYERS: usize = 15;

/// Bytes the store takes per (pair, path) slot and per port entry: what
/// [`MultipathRoutes::bytes`] and the memory estimate count.
pub const BYTES_PER_SLOT: u64 = 4 + 1;
/// Bytes per stored output port.
pub const BYTES_PER_PORT: u64 = 2;

/// The multipath routes of every ordered HCA pair and their VL layers (drb spec A.3.6
/// `paths[s][d][k]`, the `SL2VL` layering).
#[derive(Debug, Clone)]
pub struct MultipathRoutes {
    /// HCAs (pairs are `s · hcas + d`).
    pub hcas: u32,
    /// K = `drb.max_paths`: slots per pair.
    pub max_paths: u32,
    /// VL layers used (the highest layer + 1).
    pub layers: u32,
    /// Per slot `(s · hcas + d) · K + k`: start of its ports in `ports`; one more entry at the
    /// end. An empty slot (fewer paths) has no ports.
    offsets: Vec<u32>,
    /// Output ports of every path, one per switch, the last to the destination HCA.
    ports: Vec<u16>,
    /// Paths of each pair (1 ..= K; 0 for s = d).
    count: Vec<u8>,
    /// VL layer of each slot.
    layer: Vec<u8>,
    /// How the paths were made (`drb.path_mode`).
    pub mode: PathMode,
}

/// How disjoint the paths of the pairs are (drb spec A.3.5: IB-faithful mode reports it).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Disjointness {
    /// Pairs on different switches with more than one path.
    pub pairs: u64,
    /// Of those, pairs whose paths share no switch-to-switch link (either direction).
    pub fully_disjoint: u64,
    /// Mean over those pairs of the links some two of its paths share.
    pub mean_shared_links: f64,
}

impl MultipathRoutes {
    /// How link-disjoint the pairs' paths are (each undirected switch-to-switch link counted
    /// once per pair if two or more of its paths use it).
    pub fn disjointness(&self, fabric: &Fabric) -> Disjointness {
        let g = SwitchGraph::of(fabric);
        let mut seen: Vec<u32> = vec![u32::MAX; g.peer_sw.len()];
        let mut shared_mark: Vec<u32> = vec![u32::MAX; g.peer_sw.len()];
        let mut out = Disjointness::default();
        let mut shared_total = 0u64;
        for s in 0..self.hcas {
            for d in 0..self.hcas {
                let n = self.count(s, d);
                if s == d || n < 2 {
                    continue;
                }
                let pair = s * self.hcas + d;
                let mut shared = 0u64;
                for k in 0..n {
                    for c in g.channels(fabric, s, self.path(s, d, k)) {
                        let link = c.min(g.rev[c as usize]) as usize;
                        // a link met again on another path of the pair (a path never
                        // crosses a link twice: its switches are distinct)
                        if seen[link] == pair {
                            if shared_mark[link] != pair {
                                shared_mark[link] = pair;
                                shared += 1;
                            }
                        } else {
                            seen[link] = pair;
                        }
                    }
                }
                out.pairs += 1;
                if shared == 0 {
                    out.fully_disjoint += 1;
                }
                shared_total += shared;
            }
        }
        if out.pairs > 0 {
            out.mean_shared_links = shared_total as f64 / out.pairs as f64;
        }
        out
    }

    /// Number of paths of pair (s, d) (drb spec A.3.2 `len(P[s][d])`); 0 when s = d.
    #[inline]
    pub fn count(&self, s: u32, d: u32) -> u8 {
        self.count[(s * self.hcas + d) as usize]
    }

    #[inline]
    fn slot(&self, s: u32, d: u32, k: u8) -> usize {
        (s * self.hcas + d) as usize * self.max_paths as usize + k as usize
    }

    /// The output ports of path `k` of pair (s, d), one per switch (drb spec A.3.6).
    pub fn path(&self, s: u32, d: u32, k: u8) -> &[u16] {
        let i = self.slot(s, d, k);
        &self.ports[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Output port at the `hop`-th switch (0 = the source's switch) of path `k` of (s, d).
    /// Hot path (`switch/input.rs`); `hop` is within the path for a packet that follows it.
    #[inline]
    pub fn port(&self, s: u32, d: u32, k: u8, hop: u16) -> u16 {
        self.ports[self.offsets[self.slot(s, d, k)] as usize + hop as usize]
    }

    /// VL of path `k` of (s, d): its layer (drb spec A.3.5).
    #[inline]
    pub fn vl(&self, s: u32, d: u32, k: u8) -> u8 {
        self.layer[self.slot(s, d, k)]
    }

    /// Bytes the store holds.
    pub fn bytes(&self) -> u64 {
        self.offsets.len() as u64 * 4
            + self.layer.len() as u64
            + self.count.len() as u64
            + self.ports.len() as u64 * BYTES_PER_PORT
    }

    /// Total paths stored.
    pub fn total_paths(&self) -> u64 {
        self.count.iter().map(|&c| c as u64).sum()
    }

    /// The channel-dependency check of the stored paths, layer by layer, built afresh from
    /// the paths (drb spec A.3.5 "Verify by checking the CDG for acyclicity at set-up"; C.3
    /// item 8): channels are `(switch, output, layer)` of switch-to-switch links.
    pub fn check(&self, fabric: &Fabric) -> TablesCheck {
        let g = SwitchGraph::of(fabric);
        let mut out = TablesCheck::default();
        for layer in 0..self.layers as u8 {
            let mut edges: Vec<Vec<u32>> = vec![Vec::new(); g.peer_sw.len()];
            for s in 0..self.hcas {
                for d in 0..self.hcas {
                    for k in 0..self.count(s, d) {
                        if self.vl(s, d, k) == layer {
                            let chans = g.channels(fabric, s, self.path(s, d, k));
                            for w in chans.windows(2) {
                                edges[w[0] as usize].push(w[1]);
                            }
                        }
                    }
                }
            }
            let mut holds = vec![false; edges.len()];
            for (c, e) in edges.iter_mut().enumerate() {
                e.sort_unstable();
                e.dedup();
                out.dependencies += e.len();
                if !e.is_empty() {
                    holds[c] = true;
                }
                for &t in e.iter() {
                    holds[t as usize] = true;
                }
            }
            out.channels += holds.iter().filter(|&&h| h).count();
            if let Some(cyc) = find_cycle(edges.len(), |v| edges[v as usize].as_slice()) {
                out.cycle = Some(
                    cyc.into_iter()
                        .map(|c| {
                            let (node, port) = g.decode(fabric, c);
                            LftChannel {
                                node,
                                port,
                                vl: layer,
                            }
                        })
                        .collect(),
                );
                return out;
            }
        }
        out
    }

    /// Achieved disjointness: pairs with each number of paths (index = count).
    pub fn count_histogram(&self) -> Vec<u64> {
        let mut h = vec![0u64; self.max_paths as usize + 1];
        for s in 0..self.hcas {
            for d in 0..self.hcas {
                if s != d {
                    h[self.count(s, d) as usize] += 1;
                }
            }
        }
        h
    }
}

/// The switch-to-switch graph in flat arrays: switch `si`'s ports are `first[si]..first[si+1]`
/// (global switch ports), `peer_sw[gp]` the switch index behind a port (u32::MAX for an HCA),
/// `rev[gp]` the port back.
struct SwitchGraph {
    first: Vec<u32>,
    peer_sw: Vec<u32>,
    rev: Vec<u32>,
    /// Switch index of each switch node (u32::MAX for HCAs).
    index: Vec<u32>,
}

impl SwitchGraph {
    fn of(fabric: &Fabric) -> Self {
        let mut index = vec![u32::MAX; fabric.nodes.len()];
        for (i, &s) in fabric.switches.iter().enumerate() {
            index[s as usize] = i as u32;
        }
        let mut first = Vec::with_capacity(fabric.switches.len() + 1);
        let mut peer_sw = Vec::new();
        for &sw in &fabric.switches {
            first.push(peer_sw.len() as u32);
            for p in &fabric.nodes[sw as usize].ports {
                peer_sw.push(index[p.peer as usize]);
            }
        }
        first.push(peer_sw.len() as u32);
        let mut rev = vec![u32::MAX; peer_sw.len()];
        for (si, &sw) in fabric.switches.iter().enumerate() {
            for (pi, p) in fabric.nodes[sw as usize].ports.iter().enumerate() {
                let ps = index[p.peer as usize];
                if ps != u32::MAX {
                    rev[first[si] as usize + pi] = first[ps as usize] + p.peer_port as u32;
                }
            }
        }
        SwitchGraph {
            first,
            peer_sw,
            rev,
            index,
        }
    }

    fn decode(&self, fabric: &Fabric, gp: u32) -> (NodeId, u16) {
        let si = self.first.partition_point(|&f| f <= gp) - 1;
        (fabric.switches[si], (gp - self.first[si]) as u16)
    }

    /// The switch-to-switch channels (global switch ports) of a path from HCA `s`.
    fn channels(&self, fabric: &Fabric, s: u32, ports: &[u16]) -> Vec<u32> {
        let mut si =
            self.index[fabric.nodes[fabric.hcas[s as usize] as usize].ports[0].peer as usize];
        let mut out = Vec::with_capacity(ports.len());
        for &p in ports {
            let gp = self.first[si as usize] + p as u32;
            let next = self.peer_sw[gp as usize];
            if next == u32::MAX {
                break;
            }
            out.push(gp);
            si = next;
        }
        out
    }
}

/// The LID Mask Control that gives every HCA `max_paths` LIDs (drb spec A.3.2, A.3.7: LMC =
/// ⌈log₂ MAX_PATHS⌉; 4 paths → 2).
pub fn lmc(max_paths: u32) -> u32 {
    max_paths.max(1).next_power_of_two().trailing_zeros()
}

/// Unicast LIDs an InfiniBand subnet has (0x0001–0xBFFF).
pub const UNICAST_LIDS: u64 = 0xBFFF;

/// The unicast LIDs a subnet of `hcas` HCAs with LMC `lmc` and `switches` switches needs: each
/// HCA a block of 2^LMC aliases (base LID aligned to the block: DLID(s, d, k) = base(d) + k),
/// each switch one LID (spec A.3.2 start-up, A.3.5, A.9 "DLID space consumed").
pub fn lids_needed(hcas: u64, switches: u64, lmc: u32) -> u64 {
    hcas.saturating_mul(1u64 << lmc).saturating_add(switches)
}

/// Bytes the store of `hcas` HCAs with up to `max_paths` paths of about `mean_hops` switches
/// would take (for the memory check before allocating).
pub fn estimated_bytes(hcas: u64, max_paths: u64, mean_hops: u64) -> u64 {
    let slots = hcas.saturating_mul(hcas).saturating_mul(max_paths);
    slots
        .saturating_mul(BYTES_PER_SLOT + mean_hops * BYTES_PER_PORT)
        .saturating_add(hcas.saturating_mul(hcas))
}

/// Builds the multipath routes of every ordered HCA pair (drb spec A.3.2 start-up): up to
/// `max_paths` link-disjoint paths, path 0 = the tables' route, then their VL layers within
/// `vls` VLs (`switch.vls`).
pub fn build(
    fabric: &Fabric,
    lft: &ForwardingTables,
    max_paths: u32,
    vls: u32,
    mode: PathMode,
) -> Result<MultipathRoutes> {
    if !(1..=8).contains(&max_paths) {
        return Err(Error::input(
            "drb.max_paths",
            format!("{max_paths} outside 1–8"),
        ));
    }
    let n = fabric.hcas.len() as u32;
    let k_max = max_paths as usize;
    let slots = n as usize * n as usize * k_max;
    if slots as u64 + 1 >= u32::MAX as u64 {
        return Err(Error::input(
            "drb.max_paths",
            format!("{n} HCAs × {max_paths} paths per pair are too many slots for the path store"),
        ));
    }
    let g = SwitchGraph::of(fabric);
    let mut search = Search::new(&g);
    let mut trees = Trees::new(&g);
    let mut offsets = Vec::with_capacity(slots + 1);
    let mut ports: Vec<u16> = Vec::new();
    let mut count = vec![0u8; n as usize * n as usize];
    let mut found: Vec<Vec<u16>> = Vec::new();
    // IB-faithful mode: per destination, the trees of its aliases 1.. (rebuilt per destination;
    // the loop runs destinations outside, sources inside, and stores in (s, d) order)
    let mut pair_paths: Vec<Vec<Vec<u16>>> = Vec::new();
    if mode == PathMode::IbFaithful {
        pair_paths = vec![Vec::new(); n as usize * n as usize];
        for d in 0..n {
            let d_node = fabric.hcas[d as usize];
            let d_port = fabric.nodes[d_node as usize].ports[0];
            let d_sw = g.index[d_port.peer as usize];
            trees.build(fabric, lft, d_node, d_sw, max_paths)?;
            for s in 0..n {
                if s == d {
                    continue;
                }
                let s_node = fabric.hcas[s as usize];
                let s_sw = g.index[fabric.nodes[s_node as usize].ports[0].peer as usize];
                let route = lft.route(fabric, s_node, d_node)?;
                let mut paths = vec![route.iter().map(|&(_, p)| p).collect::<Vec<u16>>()];
                if s_sw != d_sw {
                    for k in 1..max_paths as usize {
                        let mut p = trees.path(k, s_sw, d_sw);
                        p.push(d_port.peer_port);
                        paths.push(p);
                    }
                }
                // the source opens aliases shortest first (spec A.3.2 "shortest paths are
                // selected"): its DLID order, path 0 kept first
                paths[1..].sort_by_key(|p| p.len());
                pair_paths[(s * n + d) as usize] = paths;
            }
        }
    }
    for s in 0..n {
        let s_node = fabric.hcas[s as usize];
        let s_sw = g.index[fabric.nodes[s_node as usize].ports[0].peer as usize];
        for d in 0..n {
            found.clear();
            if mode == PathMode::IbFaithful {
                found.append(&mut pair_paths[(s * n + d) as usize]);
            } else if s != d {
                let d_node = fabric.hcas[d as usize];
                let d_port = fabric.nodes[d_node as usize].ports[0];
                let d_sw = g.index[d_port.peer as usize];
                let route = lft.route(fabric, s_node, d_node)?;
                let p0: Vec<u16> = route.iter().map(|&(_, p)| p).collect();
                if s_sw != d_sw && max_paths > 1 {
                    let alts = search.alternatives(s_sw, d_sw, &p0, max_paths - 1);
                    found.push(p0);
                    for mut a in alts {
                        a.push(d_port.peer_port);
                        found.push(a);
                    }
                } else {
                    found.push(p0);
                }
            }
            count[(s * n + d) as usize] = found.len() as u8;
            for k in 0..k_max {
                offsets.push(ports.len() as u32);
                if let Some(p) = found.get(k) {
                    ports.extend_from_slice(p);
                }
            }
            if ports.len() as u64 >= u32::MAX as u64 {
                return Err(Error::input(
                    "drb.max_paths",
                    "the paths' ports overflow the path store; lower it",
                ));
            }
        }
    }
    offsets.push(ports.len() as u32);
    let mut mp = MultipathRoutes {
        hcas: n,
        max_paths,
        layers: 0,
        offsets,
        ports,
        count,
        layer: vec![0; slots],
        mode,
    };
    assign_layers(fabric, &g, &mut mp, vls)?;
    Ok(mp)
}

/// The store of one fixed route per ordered pair, `routes[s · n + d]` (output ports one per
/// switch, the last to d; empty for s = d): S-mod-k's routes (`dmodk::SourceUpPorts`), kept
/// for their channel-dependency check ([`MultipathRoutes::check`]). They are put on VL layers
/// like DRB's paths; `key` names the routing key a layering that needs more than one layer is
/// blamed on (the routes are then not deadlock-free on one VL, and a packet keeps its flow's
/// VL).
pub fn fixed(
    fabric: &Fabric,
    routes: Vec<Vec<u16>>,
    vls: u32,
    key: &str,
) -> Result<MultipathRoutes> {
    let n = fabric.hcas.len() as u32;
    if routes.len() != n as usize * n as usize {
        return Err(Error::Internal("fixed routes: one per ordered pair".into()));
    }
    let mut offsets = Vec::with_capacity(routes.len() + 1);
    let mut ports: Vec<u16> = Vec::new();
    let mut count = vec![0u8; routes.len()];
    for (i, r) in routes.iter().enumerate() {
        offsets.push(ports.len() as u32);
        ports.extend_from_slice(r);
        count[i] = u8::from(!r.is_empty());
        if ports.len() as u64 >= u32::MAX as u64 {
            return Err(Error::input(key, "the routes overflow the route store"));
        }
    }
    offsets.push(ports.len() as u32);
    let mut mp = MultipathRoutes {
        hcas: n,
        max_paths: 1,
        layers: 0,
        offsets,
        ports,
        count,
        layer: vec![0; routes.len()],
        mode: PathMode::PerPair,
    };
    let g = SwitchGraph::of(fabric);
    assign_layers(fabric, &g, &mut mp, vls)?;
    if mp.layers > 1 {
        return Err(Error::input(
            key,
            format!(
                "its routes need {} VL layers to be deadlock-free; a packet keeps its flow's VL here, so only routes free of cycles on one VL are allowed",
                mp.layers
            ),
        ));
    }
    Ok(mp)
}

/// IB-faithful mode (drb spec A.3.5 mode 2): for one destination HCA, one destination-rooted
/// in-tree per LID alias k ≥ 1 — every switch has one output port towards the destination for
/// alias k, as `LFT[base(d) + k]` would hold. Alias 0 is the forwarding tables' tree. Tree k
/// is a shortest-path tree (Dijkstra from the destination's switch over reversed links) where
/// a link costs 1 plus `TREE_REUSE_COST` for each earlier alias's tree that uses it in either
/// direction: the trees avoid each other's links where the topology lets them, so the paths a
/// pair gets from them are disjoint only approximately (the validate report gives how often).
struct Trees<'a> {
    g: &'a SwitchGraph,
    /// `[k][switch]`: the global switch port towards the destination (u32::MAX: the
    /// destination's switch or unreachable).
    next: Vec<Vec<u32>>,
    /// Per global switch port: how many trees so far use its link (either direction).
    used: Vec<u32>,
    dist: Vec<u64>,
    heap: std::collections::BinaryHeap<std::cmp::Reverse<(u64, u32)>>,
}

/// What a link already used by an earlier alias's tree costs on top of its hop (in hops).
pub const TREE_REUSE_COST: u64 = 2;

impl<'a> Trees<'a> {
    fn new(g: &'a SwitchGraph) -> Self {
        let ns = g.first.len() - 1;
        Trees {
            g,
            next: Vec::new(),
            used: vec![0; g.peer_sw.len()],
            dist: vec![u64::MAX; ns],
            heap: Default::default(),
        }
    }

    /// Builds the trees of aliases 1..`max_paths` of destination HCA `d_node` on switch
    /// `d_sw`, after counting the links of alias 0 (the tables' routes from every switch).
    fn build(
        &mut self,
        fabric: &Fabric,
        lft: &ForwardingTables,
        d_node: NodeId,
        d_sw: u32,
        max_paths: u32,
    ) -> Result<()> {
        let g = self.g;
        let ns = g.first.len() - 1;
        self.used.iter_mut().for_each(|u| *u = 0);
        self.next.clear();
        // alias 0: the tables' next hop at every switch
        let dlid = fabric.nodes[d_node as usize].lid;
        let t0: Vec<u32> = (0..ns)
            .map(|si| {
                let port = lft.out_port(fabric.switches[si], dlid);
                if si as u32 == d_sw || port == crate::credit::routing::tables::NO_PORT {
                    return u32::MAX;
                }
                let gp = g.first[si] + port as u32;
                if g.peer_sw[gp as usize] != u32::MAX {
                    gp
                } else {
                    u32::MAX
                }
            })
            .collect();
        self.count_links(&t0, d_sw);
        self.next.push(t0);
        for _ in 1..max_paths {
            let t = self.shortest_tree(d_sw);
            self.count_links(&t, d_sw);
            self.next.push(t);
        }
        Ok(())
    }

    /// Adds the links tree `t` uses (those on some switch's way to `d_sw`) to `used`.
    fn count_links(&mut self, t: &[u32], d_sw: u32) {
        for (si, &gp) in t.iter().enumerate() {
            if si as u32 != d_sw && gp != u32::MAX {
                self.used[gp as usize] += 1;
                self.used[self.g.rev[gp as usize] as usize] += 1;
            }
        }
    }

    /// Dijkstra from `d_sw` over reversed links (port order breaks ties): each switch's port
    /// towards `d_sw` in the cheapest tree under the current `used` costs.
    fn shortest_tree(&mut self, d_sw: u32) -> Vec<u32> {
        let g = self.g;
        let ns = g.first.len() - 1;
        let mut next = vec![u32::MAX; ns];
        self.dist.iter_mut().for_each(|x| *x = u64::MAX);
        self.dist[d_sw as usize] = 0;
        self.heap.clear();
        self.heap.push(std::cmp::Reverse((0, d_sw)));
        while let Some(std::cmp::Reverse((du, u))) = self.heap.pop() {
            if du > self.dist[u as usize] {
                continue;
            }
            // every switch v with a link v → u may reach d through u
            for gp_u in g.first[u as usize]..g.first[u as usize + 1] {
                let v = g.peer_sw[gp_u as usize];
                if v == u32::MAX {
                    continue;
                }
                let gp_v = g.rev[gp_u as usize]; // v's port towards u
                let cost = 1 + TREE_REUSE_COST * self.used[gp_v as usize] as u64;
                let dv = du + cost;
                if dv < self.dist[v as usize]
                    || (dv == self.dist[v as usize] && gp_v < next[v as usize])
                {
                    self.dist[v as usize] = dv;
                    next[v as usize] = gp_v;
                    self.heap.push(std::cmp::Reverse((dv, v)));
                }
            }
        }
        next
    }

    /// The output ports from switch `s_sw` to `d_sw` along alias `k`'s tree (`d`'s HCA port
    /// not included).
    fn path(&self, k: usize, s_sw: u32, d_sw: u32) -> Vec<u16> {
        let g = self.g;
        let mut out = Vec::new();
        let mut si = s_sw;
        while si != d_sw {
            let gp = self.next[k][si as usize];
            if gp == u32::MAX || out.len() > g.first.len() {
                break; // unreachable (a disconnected fabric is refused before)
            }
            out.push((gp - g.first[si as usize]) as u16);
            si = g.peer_sw[gp as usize];
        }
        out
    }
}

/// The successive-shortest-augmenting-path search of the alternatives, with its scratch
/// arrays reused across pairs.
struct Search<'a> {
    g: &'a SwitchGraph,
    /// Per global switch port: 1 while the flow uses it (switch → peer).
    flow: Vec<u8>,
    /// Per global switch port: banned (path 0's links, both directions).
    banned: Vec<bool>,
    dist: Vec<i64>,
    /// The port by which each switch was reached (u32::MAX: none), and whether it cancels.
    via: Vec<u32>,
    in_queue: Vec<bool>,
    queue: std::collections::VecDeque<u32>,
    touched: Vec<u32>,
}

impl<'a> Search<'a> {
    fn new(g: &'a SwitchGraph) -> Self {
        let ns = g.first.len() - 1;
        let np = g.peer_sw.len();
        Search {
            g,
            flow: vec![0; np],
            banned: vec![false; np],
            dist: vec![i64::MAX; ns],
            via: vec![u32::MAX; ns],
            in_queue: vec![false; ns],
            queue: Default::default(),
            touched: Vec::new(),
        }
    }

    /// Up to `want` link-disjoint paths from switch `s` to switch `d` that share no link with
    /// path 0 (`p0`, its ports from `s`), as output ports from `s` to `d` (the HCA port not
    /// included), sorted by (hops, ports).
    fn alternatives(&mut self, s: u32, d: u32, p0: &[u16], want: u32) -> Vec<Vec<u16>> {
        let g = self.g;
        self.touched.clear();
        let mut si = s;
        for &p in p0 {
            let gp = g.first[si as usize] + p as u32;
            let next = g.peer_sw[gp as usize];
            if next == u32::MAX {
                break;
            }
            self.banned[gp as usize] = true;
            self.banned[g.rev[gp as usize] as usize] = true;
            self.touched.push(gp);
            self.touched.push(g.rev[gp as usize]);
            si = next;
        }
        let mut got = 0;
        while got < want && self.augment(s, d) {
            got += 1;
        }
        // split the flow into paths: from s, lowest port with flow first
        let mut paths = Vec::with_capacity(got as usize);
        for _ in 0..got {
            let mut path = Vec::new();
            let mut cur = s;
            while cur != d {
                let (a, b) = (g.first[cur as usize], g.first[cur as usize + 1]);
                let Some(gp) = (a..b).find(|&gp| self.flow[gp as usize] == 1) else {
                    break; // cannot happen: flow conservation
                };
                self.flow[gp as usize] = 0;
                path.push((gp - a) as u16);
                cur = g.peer_sw[gp as usize];
            }
            paths.push(path);
        }
        // reset what this pair touched
        for &gp in &self.touched {
            self.banned[gp as usize] = false;
            self.flow[gp as usize] = 0;
        }
        paths.sort_by(|x, y| x.len().cmp(&y.len()).then_with(|| x.cmp(y)));
        paths
    }

    /// One shortest augmenting path from `s` to `d` in the residual graph (Bellman–Ford with
    /// a FIFO queue; an arc u→v costs +1 when the link is free, −1 when it cancels the flow
    /// v→u); applies it and returns true, or false when `d` is unreachable.
    fn augment(&mut self, s: u32, d: u32) -> bool {
        let g = self.g;
        let ns = self.dist.len();
        self.dist.iter_mut().for_each(|x| *x = i64::MAX);
        self.via.iter_mut().for_each(|x| *x = u32::MAX);
        self.dist[s as usize] = 0;
        self.queue.clear();
        self.queue.push_back(s);
        self.in_queue[s as usize] = true;
        let mut relaxations = 0usize;
        let limit = ns * g.peer_sw.len() + 16;
        while let Some(u) = self.queue.pop_front() {
            self.in_queue[u as usize] = false;
            let du = self.dist[u as usize];
            for gp in g.first[u as usize]..g.first[u as usize + 1] {
                let v = g.peer_sw[gp as usize];
                if v == u32::MAX {
                    continue;
                }
                let r = g.rev[gp as usize] as usize;
                let cost = if self.flow[r] == 1 {
                    -1
                } else if self.flow[gp as usize] == 0 && !self.banned[gp as usize] {
                    1
                } else {
                    continue;
                };
                if du + cost < self.dist[v as usize] {
                    self.dist[v as usize] = du + cost;
                    self.via[v as usize] = gp;
                    relaxations += 1;
                    if relaxations > limit {
                        return false; // no negative cycles in a min-cost flow; a guard
                    }
                    if !self.in_queue[v as usize] {
                        self.in_queue[v as usize] = true;
                        self.queue.push_back(v);
                    }
                }
            }
        }
        if self.dist[d as usize] == i64::MAX {
            return false;
        }
        let mut v = d;
        while v != s {
            let gp = self.via[v as usize];
            let r = g.rev[gp as usize] as usize;
            if self.flow[r] == 1 {
                self.flow[r] = 0;
            } else {
                self.flow[gp as usize] = 1;
                self.touched.push(gp);
            }
            v = self.peer_of_rev(gp);
        }
        true
    }

    /// The switch a port leaves from (the far end of its reverse port).
    fn peer_of_rev(&self, gp: u32) -> u32 {
        self.g.peer_sw[self.g.rev[gp as usize] as usize]
    }
}

/// Assigns every stored path to a VL layer (LASH-style greedy, drb spec A.3.5): path 0 of
/// every pair first, then path 1, …; each to the lowest layer whose channel-dependency graph
/// stays acyclic. More than `vls` layers is an error naming `switch.vls`.
fn assign_layers(
    fabric: &Fabric,
    g: &SwitchGraph,
    mp: &mut MultipathRoutes,
    vls: u32,
) -> Result<()> {
    let nch = g.peer_sw.len();
    let cap = (vls as usize).min(MAX_LAYERS);
    let mut layers: Vec<Vec<Vec<u32>>> = Vec::new();
    let mut colour = vec![0u8; nch];
    let mut seen: Vec<u32> = Vec::new();
    let mut stack: Vec<(u32, usize)> = Vec::new();
    let mut added: Vec<(u32, u32)> = Vec::new();
    let n = mp.hcas;
    for k in 0..mp.max_paths as u8 {
        for s in 0..n {
            for d in 0..n {
                if k >= mp.count(s, d) {
                    continue;
                }
                let chans = g.channels(fabric, s, mp.path(s, d, k));
                let mut placed = None;
                for l in 0..cap {
                    if l == layers.len() {
                        layers.push(vec![Vec::new(); nch]);
                    }
                    let adj = &mut layers[l];
                    added.clear();
                    for w in chans.windows(2) {
                        if !adj[w[0] as usize].contains(&w[1]) {
                            adj[w[0] as usize].push(w[1]);
                            added.push((w[0], w[1]));
                        }
                    }
                    let cyclic = !added.is_empty()
                        && reaches_cycle(adj, chans[0], &mut colour, &mut seen, &mut stack);
                    if !cyclic {
                        placed = Some(l);
                        break;
                    }
                    for &(a, b) in added.iter().rev() {
                        let v = &mut adj[a as usize];
                        let i = v.iter().rposition(|&x| x == b).expect("just added");
                        v.remove(i);
                    }
                }
                let Some(l) = placed else {
                    return Err(Error::input(
                        "switch.vls",
                        format!(
                            "{vls} VLs are too few for the multipath routes' deadlock-free layering (drb spec A.3.5): path {k} of {} → {} fits no layer; raise switch.vls (at most 15) or lower drb.max_paths",
                            fabric.nodes[fabric.hcas[s as usize] as usize].name,
                            fabric.nodes[fabric.hcas[d as usize] as usize].name,
                        ),
                    ));
                };
                let slot = mp.slot(s, d, k);
                mp.layer[slot] = l as u8;
                mp.layers = mp.layers.max(l as u32 + 1);
            }
        }
    }
    Ok(())
}

/// Whether the graph `adj` has a cycle reachable from `start` (iterative DFS; `colour` is all
/// zero on entry and left so).
fn reaches_cycle(
    adj: &[Vec<u32>],
    start: u32,
    colour: &mut [u8],
    seen: &mut Vec<u32>,
    stack: &mut Vec<(u32, usize)>,
) -> bool {
    seen.clear();
    stack.clear();
    colour[start as usize] = 1;
    seen.push(start);
    stack.push((start, 0));
    let mut found = false;
    'dfs: while let Some(&mut (v, ref mut i)) = stack.last_mut() {
        if let Some(&w) = adj[v as usize].get(*i) {
            *i += 1;
            match colour[w as usize] {
                0 => {
                    colour[w as usize] = 1;
                    seen.push(w);
                    stack.push((w, 0));
                }
                1 => {
                    found = true;
                    break 'dfs;
                }
                _ => {}
            }
        } else {
            colour[v as usize] = 2;
            stack.pop();
        }
    }
    for &v in seen.iter() {
        colour[v as usize] = 0;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TopologyKind;
    use crate::credit::routing::dor_tables as dor;
    use crate::topology::mesh_torus::tests::mesh;
    use std::collections::HashSet;

    /// The switches a path of `s` crosses and its undirected switch-to-switch links.
    fn walk(f: &Fabric, s: u32, d: u32, ports: &[u16]) -> (Vec<NodeId>, Vec<(NodeId, NodeId)>) {
        let mut cur = f.nodes[f.hcas[s as usize] as usize].ports[0].peer;
        let (mut sws, mut links) = (Vec::new(), Vec::new());
        for &p in ports {
            sws.push(cur);
            let next = f.nodes[cur as usize].ports[p as usize].peer;
            if next != f.hcas[d as usize] {
                links.push((cur.min(next), cur.max(next)));
            }
            cur = next;
        }
        assert_eq!(cur, f.hcas[d as usize], "the path ends at its destination");
        (sws, links)
    }

    fn routes(kind: TopologyKind, dims: &[u32], k: u32, vls: u32) -> (Fabric, MultipathRoutes) {
        let f = mesh(kind, dims, 1, None);
        let t = dor::build(&f).unwrap();
        let mp = build(&f, &t, k, vls, PathMode::PerPair).unwrap();
        (f, mp)
    }

    /// Every pair: paths valid, link-disjoint, simple, path 0 = the tables' route, the rest
    /// sorted by hops and no shorter than path 0 (a minimal DOR route).
    fn check_all(f: &Fabric, mp: &MultipathRoutes) {
        let t = dor::build(f).unwrap();
        for s in 0..mp.hcas {
            for d in 0..mp.hcas {
                if s == d {
                    assert_eq!(mp.count(s, d), 0);
                    continue;
                }
                let route = t.route(f, f.hcas[s as usize], f.hcas[d as usize]).unwrap();
                let p0: Vec<u16> = route.iter().map(|&(_, p)| p).collect();
                assert_eq!(mp.path(s, d, 0), p0.as_slice(), "path 0 of {s}→{d}");
                let mut used = HashSet::new();
                let mut last = 0;
                for k in 0..mp.count(s, d) {
                    let (sws, links) = walk(f, s, d, mp.path(s, d, k));
                    let distinct: HashSet<_> = sws.iter().collect();
                    assert_eq!(distinct.len(), sws.len(), "{s}→{d} path {k} is simple");
                    for l in links {
                        assert!(used.insert(l), "{s}→{d} path {k} shares link {l:?}");
                    }
                    let h = mp.path(s, d, k).len();
                    assert!(
                        h >= last,
                        "{s}→{d}: path {k} ({h} hops) before a longer one"
                    );
                    last = h;
                }
            }
        }
    }

    #[test]
    fn torus_8x8_every_pair_has_four_disjoint_paths() {
        let (f, mp) = routes(TopologyKind::Torus, &[8, 8], 4, 15);
        check_all(&f, &mp);
        assert_eq!(mp.count_histogram(), vec![0, 0, 0, 0, 64 * 63]);
        // the alternatives are as short as disjointness allows: neighbours (1 hop apart) get
        // paths of 1 + 1, 3 + 1, 3 + 1 and 5 + 1 switches (the around-the-square detours, the
        // last one two squares wide, or the other way round the ring: 7 + 1)
        let lens: Vec<usize> = (0..4).map(|k| mp.path(0, 1, k).len()).collect();
        assert_eq!(lens[..3], [2, 4, 4]);
        assert!(lens[3] >= 6, "{lens:?}");
        assert!(mp.check(&f).cycle.is_none());
        assert!(mp.layers as usize <= MAX_LAYERS);
    }

    #[test]
    fn mesh_corners_have_fewer_paths() {
        let (f, mp) = routes(TopologyKind::Mesh, &[8, 4], 4, 15);
        check_all(&f, &mp);
        let hca_at = |x: u32, y: u32| {
            (0..mp.hcas)
                .find(|&h| {
                    let sw = f.nodes[f.hcas[h as usize] as usize].ports[0].peer;
                    f.nodes[sw as usize].coords == [x, y]
                })
                .unwrap()
        };
        let crate::topology::Shape::MeshTorus { dims, .. } = &f.shape else {
            panic!("a mesh")
        };
        assert_eq!(dims.len(), 2);
        let (nx, ny) = (dims[0], dims[1]);
        assert!(nx >= 4 && ny >= 4);
        let corner = hca_at(0, 0);
        let far = hca_at(nx - 1, ny - 1);
        let interior = hca_at(1, 1);
        let interior2 = hca_at(nx - 2, ny - 2);
        let edge = hca_at(2, 0);
        // a corner switch has two mesh links, an edge switch three, an interior one four
        assert_eq!(mp.count(corner, far), 2);
        assert_eq!(mp.count(corner, interior), 2);
        assert_eq!(mp.count(edge, interior), 3);
        assert_eq!(mp.count(interior, interior2), 4);
        let h = mp.count_histogram();
        assert_eq!(
            h[0] + h[1],
            0,
            "every pair of a connected mesh has 2 paths or more"
        );
        // DOR on a mesh is acyclic: every path 0 stays on layer 0
        for s in 0..mp.hcas {
            for d in 0..mp.hcas {
                if s != d {
                    assert_eq!(mp.vl(s, d, 0), 0);
                }
            }
        }
        assert!(mp.check(&f).cycle.is_none());
    }

    #[test]
    fn one_path_is_the_tables_and_one_layer_on_a_mesh() {
        let (f, mp) = routes(TopologyKind::Mesh, &[4, 4], 1, 1);
        check_all(&f, &mp);
        assert_eq!(mp.layers, 1);
        assert_eq!(mp.total_paths(), 16 * 15);
    }

    #[test]
    fn deterministic() {
        let (_, a) = routes(TopologyKind::Torus, &[5, 4], 4, 15);
        let (_, b) = routes(TopologyKind::Torus, &[5, 4], 4, 15);
        assert_eq!(a.offsets, b.offsets);
        assert_eq!(a.ports, b.ports);
        assert_eq!(a.layer, b.layer);
    }

    #[test]
    fn too_few_vls_is_an_error_naming_the_key() {
        // DOR alone on an 8-ring torus is cyclic: one VL cannot hold it
        let f = mesh(TopologyKind::Torus, &[8, 8], 1, None);
        let t = dor::build(&f).unwrap();
        let e = build(&f, &t, 4, 1, PathMode::PerPair)
            .unwrap_err()
            .to_string();
        assert!(e.contains("switch.vls"), "{e}");
        let e = build(&f, &t, 9, 15, PathMode::PerPair)
            .unwrap_err()
            .to_string();
        assert!(e.contains("drb.max_paths"), "{e}");
    }

    #[test]
    fn the_check_finds_a_cycle_in_a_bad_layering() {
        // all paths of a torus forced onto layer 0: the independent check must see the cycle
        let (f, mut mp) = routes(TopologyKind::Torus, &[4, 4], 2, 15);
        assert!(mp.layers > 1);
        mp.layer.iter_mut().for_each(|l| *l = 0);
        mp.layers = 1;
        let c = mp.check(&f);
        assert!(c.cycle.is_some());
    }

    #[test]
    fn several_hcas_per_switch() {
        let f = mesh(TopologyKind::Torus, &[4, 4], 2, None);
        let t = dor::build(&f).unwrap();
        let mp = build(&f, &t, 4, 15, PathMode::PerPair).unwrap();
        check_all(&f, &mp);
        // two HCAs on one switch: path 0 only
        let same = (1..mp.hcas)
            .find(|&h| {
                f.nodes[f.hcas[h as usize] as usize].ports[0].peer
                    == f.nodes[f.hcas[0] as usize].ports[0].peer
            })
            .unwrap();
        assert_eq!(mp.count(0, same), 1);
        assert!(mp.check(&f).cycle.is_none());
    }

    /// IB-faithful mode (spec A.3.5 mode 2): every pair has its K aliases, path 0 being the
    /// tables' route; the paths end at the destination without revisiting a switch; each alias
    /// k ≥ 1 of a destination is one in-tree (every switch's path follows its one next hop, as
    /// one `LFT[base(d) + k]` entry requires); the disjointness is partial and reported.
    #[test]
    fn ib_faithful_paths_are_trees_per_alias() {
        let f = mesh(TopologyKind::Torus, &[8, 8], 1, None);
        let t = dor::build(&f).unwrap();
        let mp = build(&f, &t, 4, 15, PathMode::IbFaithful).unwrap();
        assert!(mp.check(&f).cycle.is_none());
        for d in 0..mp.hcas {
            for k in 0..4u8 {
                for s in 0..mp.hcas {
                    if s == d {
                        continue;
                    }
                    assert_eq!(mp.count(s, d), 4, "{s}→{d}");
                    let path = mp.path(s, d, k);
                    let (sws, _) = walk(&f, s, d, path);
                    let uniq: HashSet<_> = sws.iter().collect();
                    assert_eq!(uniq.len(), sws.len(), "{s}→{d} alias {k} revisits a switch");
                    if k == 0 {
                        let route = t.route(&f, f.hcas[s as usize], f.hcas[d as usize]).unwrap();
                        let p0: Vec<u16> = route.iter().map(|&(_, p)| p).collect();
                        assert_eq!(path, p0.as_slice());
                    }
                }
            }
        }
        // the per-(d, k) tree property, checked on the aliases' own trees before sorting:
        // rebuild them and compare every source's path with the tree's next hops
        let g = SwitchGraph::of(&f);
        let mut trees = Trees::new(&g);
        for d in 0..mp.hcas {
            let d_node = f.hcas[d as usize];
            let d_sw = g.index[f.nodes[d_node as usize].ports[0].peer as usize];
            trees.build(&f, &t, d_node, d_sw, 4).unwrap();
            for k in 1..4 {
                for si in 0..g.first.len() as u32 - 1 {
                    if si == d_sw {
                        continue;
                    }
                    // the path from si follows the tree: each of its switches' next hop
                    let p = trees.path(k, si, d_sw);
                    let mut cur = si;
                    for &port in &p {
                        assert_eq!(
                            trees.next[k][cur as usize],
                            g.first[cur as usize] + port as u32
                        );
                        cur = g.peer_sw[(g.first[cur as usize] + port as u32) as usize];
                    }
                    assert_eq!(cur, d_sw);
                }
            }
        }
        let per_pair = build(&f, &t, 4, 15, PathMode::PerPair).unwrap();
        let dp = per_pair.disjointness(&f);
        assert_eq!(
            dp.fully_disjoint, dp.pairs,
            "per-pair paths are link-disjoint"
        );
        assert_eq!(dp.mean_shared_links, 0.0);
        let di = mp.disjointness(&f);
        assert_eq!(di.pairs, dp.pairs);
        // 4 trees of 63 links cannot be disjoint in a graph of 128 links: some pairs share
        assert!(di.fully_disjoint < di.pairs, "{di:?}");
        assert!(di.mean_shared_links > 0.0, "{di:?}");
    }

    #[test]
    fn lmc_gives_each_hca_enough_lid_aliases() {
        assert_eq!(
            (lmc(1), lmc(2), lmc(3), lmc(4), lmc(5), lmc(8)),
            (0, 1, 2, 2, 3, 3)
        );
        for k in 1..=8u32 {
            assert!(1u32 << lmc(k) >= k && (lmc(k) == 0 || 1u32 << (lmc(k) - 1) < k));
        }
        // the 64-node torus with 4 paths: 64 × 4 + 64 switches
        assert_eq!(lids_needed(64, 64, lmc(4)), 320);
        assert!(lids_needed(16_384, 1_000, 2) > UNICAST_LIDS);
    }
}
