//! The deadlock removal of OpenSM's `dfsssp` (`dfsssp_remove_deadlocks`; docs/opensm-routing.md):
//! every (source HCA, destination LID) pair starts on layer 0; per layer, while the layer's
//! channel-dependency graph has a cycle, the cycle's weakest dependency (the one the fewest of
//! the layer's pairs make) is cut by moving all those pairs to the next layer. The layer of a
//! pair is its SL, and the VL it travels on ([`PathSl`]).
//!
//! Channels are the switch-to-switch output ports (an HCA's link out is a source and the last
//! link into an HCA a sink of the graph: neither can be on a cycle); a dependency is two
//! consecutive channels of a pair's route, carrying the list of pairs that make it.
//!
//! With an LMC (`routing.lmc` > 0) every LID of a destination's range is a pair of its own (its
//! route is its own: `dfsssp.rs` routes each LID), so one (source, destination) pair's LIDs can
//! land on different layers. OpenSM's pairs are (source LID, destination LID); a source's LIDs
//! share every route, so they make the same dependencies and always move together: lnsim keeps
//! one pair per source HCA that weighs its source's LID count in "the fewest pairs" and in the
//! pairs per layer.
//!
//! # Order (lnsim's own where OpenSM's cannot be followed)
//! OpenSM keeps its graph in a binary tree keyed by switch LIDs and searches it depth-first from
//! the tree's nodes in its own order. lnsim searches depth-first from the channels in switch
//! (OpenSM table) order and port order, successors in channel order, and keeps the channels
//! proven acyclic between the cuts; among a cycle's dependencies with the fewest pairs, the
//! first met from where the search closed the cycle is cut. So the cycle found first, and which
//! pairs move, can differ from OpenSM's; the result has the same property (every layer acyclic).
//! Spare VLs are not used to split layers (OpenSM splits the fullest layers at random, with
//! `rand()` seeded by the time): the SLs above the layers needed stay empty, deterministically.

use crate::config::{OpensmEngine, RoutingConfig, Scenario};
use crate::credit::routing::path_sl::PathSl;
use crate::credit::routing::tables::NO_PORT;
use crate::credit::routing::ForwardingTables;
use crate::engine::memory_budget::{m, MemoryEstimate, Phase};
use crate::error::{Error, Result};
use crate::topology::{Fabric, FabricSize, NodeKind};

/// Most layers the search makes: InfiniBand's 15 data VLs.
pub const MAX_LAYERS: usize = 15;

/// The layer (SL) of every (source HCA, destination LID) pair of `tables`, layer 0 first, each
/// layer's dependencies acyclic; more layers than `vls` (`switch.vls`) is an input error naming
/// the key and the layers needed.
pub fn layers(fabric: &Fabric, tables: &ForwardingTables, vls: u32) -> Result<PathSl> {
    let g = Dependencies::of(fabric, tables);
    let n_pairs = g.pair_first.len() - 1;
    // a pair stands for its source's LIDs (OpenSM's pairs are (source LID, destination LID),
    // and a source's LIDs share every route): its weight in the counts
    let weight = |p: usize| tables.lids_of((p / tables.lids) as u32).len() as u64;
    let mut layer = vec![0u8; n_pairs];
    let mut pairs_per_layer: Vec<u64> = Vec::new();
    let mut count = vec![0u64; g.edges.len()];
    for l in 0..MAX_LAYERS as u8 {
        count.iter_mut().for_each(|c| *c = 0);
        let mut on_layer = 0u64;
        for (p, &on) in layer.iter().enumerate() {
            if on == l && g.routed[p] {
                on_layer += weight(p);
                for &e in g.pair_edges(p) {
                    count[e as usize] += weight(p);
                }
            }
        }
        if on_layer == 0 {
            break;
        }
        pairs_per_layer.push(on_layer);
        let mut search = CycleSearch::new(g.channels());
        while let Some(cycle) = search.next_cycle(&g, &count) {
            if l as usize + 1 == MAX_LAYERS {
                return Err(too_few(vls, None));
            }
            // the weakest dependency of the cycle: fewest pairs, first in cycle order
            let weakest = *cycle
                .iter()
                .min_by_key(|&&e| count[e as usize])
                .expect("a cycle has dependencies");
            for &p in g.edge_pairs(weakest as usize) {
                if layer[p as usize] != l {
                    continue;
                }
                layer[p as usize] = l + 1;
                *pairs_per_layer.last_mut().unwrap() -= weight(p as usize);
                for &e in g.pair_edges(p as usize) {
                    count[e as usize] -= weight(p as usize);
                }
            }
        }
    }
    while pairs_per_layer.last() == Some(&0) {
        pairs_per_layer.pop();
    }
    if pairs_per_layer.len() > vls as usize {
        return Err(too_few(vls, Some(pairs_per_layer.len())));
    }
    let mut sl = PathSl::new(fabric.hcas.len(), tables.lids, tables.lmc);
    for (p, &l) in layer.iter().enumerate() {
        let (src, dlid) = (p / tables.lids, p % tables.lids);
        if l != 0 {
            sl.set(src as u32, dlid as u32, l);
        }
    }
    if pairs_per_layer.is_empty() {
        pairs_per_layer.push(0);
    }
    sl.set_pairs_per_sl(pairs_per_layer);
    Ok(sl)
}

/// The memory of `dfsssp`'s layers in scenario `s`: the SL table the run keeps (a byte per
/// source HCA and LID slot, [`PathSl::bytes`]), and while it is built the dependencies of every
/// pair's route (per pair: a start and its dependencies listed twice, by pair and by dependency,
/// about 2·√switches + 2 channels a route; per dependency its ends and counters).
pub(crate) fn memory(s: &Scenario, f: &FabricSize, est: &mut MemoryEstimate) {
    let RoutingConfig::Opensm(k) = &s.routing else {
        return;
    };
    if k.engine != OpensmEngine::Dfsssp {
        return;
    }
    let lids = (f.hcas + 1) << k.lmc.min(crate::topology::ib_identity::MAX_LMC as u32);
    est.add("path SLs", PathSl::bytes(f.hcas, lids), Phase::Kept);
    let pairs = m(f.hcas, lids);
    let mean_hops = 2 * (f.switches as f64).sqrt() as u64 + 2;
    est.add(
        "dfsssp layering",
        m(pairs, 4 + 1 + 1 + m(mean_hops, 8)) + m(f.ports, 64),
        Phase::Setup,
    );
}

/// The refusal of too few VLs for the layers (`None`: more than [`MAX_LAYERS`]).
fn too_few(vls: u32, needed: Option<usize>) -> Error {
    let needed = match needed {
        Some(n) => format!("{n} VLs"),
        None => format!("more than {MAX_LAYERS} VLs (InfiniBand's most)"),
    };
    Error::input(
        "switch.vls",
        format!(
            "routing.engine = \"dfsssp\" needs {needed} to make these routes deadlock-free (one per layer), but switch.vls = {vls}: raise switch.vls, or choose another engine (\"sssp\" keeps the routes on one VL, not deadlock-free)"
        ),
    )
}

/// The channel-dependency graph of every (source HCA, destination LID) pair's route: pairs are
/// numbered `src * lids + dlid` (the [`PathSl`] layout); dependencies numbered in the order the
/// pairs first make them.
struct Dependencies {
    /// Channels: switch-to-switch output ports, `first[switch index] + port`.
    n_channels: usize,
    /// Dependency → (from channel, to channel).
    edges: Vec<(u32, u32)>,
    /// Per channel: its dependencies, by target channel.
    out_first: Vec<u32>,
    out: Vec<u32>,
    /// Per pair: its dependencies (`pair_first[p] .. pair_first[p + 1]` of `pair_edge`).
    pair_first: Vec<u32>,
    pair_edge: Vec<u32>,
    /// Per pair: whether the tables route it (a pair without a route is the route check's
    /// error, and is left on layer 0).
    routed: Vec<bool>,
    /// Per dependency: the pairs making it.
    edge_first: Vec<u32>,
    edge_pair: Vec<u32>,
}

impl Dependencies {
    fn of(fabric: &Fabric, t: &ForwardingTables) -> Self {
        let n_sw = fabric.switches.len();
        let mut first = Vec::with_capacity(n_sw + 1);
        let mut total = 0u32;
        for &sw in &fabric.switches {
            first.push(total);
            total += fabric.nodes[sw as usize].ports.len() as u32;
        }
        first.push(total);
        let n_pairs = fabric.hcas.len() * t.lids;
        let mut ids: std::collections::HashMap<(u32, u32), u32> = Default::default();
        let mut edges: Vec<(u32, u32)> = Vec::new();
        let mut pair_first = Vec::with_capacity(n_pairs + 1);
        let mut pair_edge: Vec<u32> = Vec::new();
        let mut routed = vec![false; n_pairs];
        let limit = fabric.nodes.len();
        for (src, &a) in fabric.hcas.iter().enumerate() {
            for (dst, &b) in fabric.hcas.iter().enumerate() {
                for dlid in t.lids_of(dst as u32) {
                    let p = src * t.lids + dlid as usize;
                    while pair_first.len() < p {
                        pair_first.push(pair_edge.len() as u32);
                    }
                    pair_first.push(pair_edge.len() as u32);
                    if src == dst {
                        continue;
                    }
                    // the route's channels, each dependency to the next
                    let mut prev: Option<u32> = None;
                    let mut cur = fabric.nodes[a as usize].ports[0].peer;
                    let mut hops = 0;
                    let ok = loop {
                        let node = &fabric.nodes[cur as usize];
                        if node.kind == NodeKind::Hca {
                            break cur == b;
                        }
                        let port = t.out_port(cur, dlid);
                        hops += 1;
                        if port == NO_PORT || port as usize >= node.ports.len() || hops > limit {
                            break false;
                        }
                        let next = node.ports[port as usize].peer;
                        if fabric.nodes[next as usize].kind == NodeKind::Switch {
                            let si = t.switch_index[cur as usize] as usize;
                            let c = first[si] + port as u32;
                            if let Some(pc) = prev {
                                let id = *ids.entry((pc, c)).or_insert_with(|| {
                                    edges.push((pc, c));
                                    edges.len() as u32 - 1
                                });
                                pair_edge.push(id);
                            }
                            prev = Some(c);
                        }
                        cur = next;
                    };
                    routed[p] = ok;
                    if !ok {
                        pair_edge.truncate(*pair_first.last().unwrap() as usize);
                    }
                }
            }
        }
        while pair_first.len() <= n_pairs {
            pair_first.push(pair_edge.len() as u32);
        }
        // per channel, its dependencies by target channel
        let mut by_from: Vec<u32> = (0..edges.len() as u32).collect();
        by_from.sort_unstable_by_key(|&e| edges[e as usize]);
        let mut out_first = vec![0u32; total as usize + 1];
        for &(from, _) in &edges {
            out_first[from as usize + 1] += 1;
        }
        for c in 0..total as usize {
            out_first[c + 1] += out_first[c];
        }
        // per dependency, its pairs (counting sort, pairs in order)
        let mut edge_first = vec![0u32; edges.len() + 1];
        for &e in &pair_edge {
            edge_first[e as usize + 1] += 1;
        }
        for e in 0..edges.len() {
            edge_first[e + 1] += edge_first[e];
        }
        let mut fill = edge_first.clone();
        let mut edge_pair = vec![0u32; pair_edge.len()];
        for p in 0..n_pairs {
            for &e in &pair_edge[pair_first[p] as usize..pair_first[p + 1] as usize] {
                edge_pair[fill[e as usize] as usize] = p as u32;
                fill[e as usize] += 1;
            }
        }
        Dependencies {
            n_channels: total as usize,
            edges,
            out_first,
            out: by_from,
            pair_first,
            pair_edge,
            routed,
            edge_first,
            edge_pair,
        }
    }

    fn channels(&self) -> usize {
        self.n_channels
    }

    fn pair_edges(&self, p: usize) -> &[u32] {
        &self.pair_edge[self.pair_first[p] as usize..self.pair_first[p + 1] as usize]
    }

    fn edge_pairs(&self, e: usize) -> &[u32] {
        &self.edge_pair[self.edge_first[e] as usize..self.edge_first[e + 1] as usize]
    }

    fn out_edges(&self, c: usize) -> &[u32] {
        &self.out[self.out_first[c] as usize..self.out_first[c + 1] as usize]
    }
}

/// A depth-first cycle search over the dependencies still made by some pair (`count > 0`) that
/// resumes after each cut: channels proven to reach no cycle stay done, as removing
/// dependencies cannot give them one.
struct CycleSearch {
    /// 0 new, 1 on the stack, 2 done.
    state: Vec<u8>,
    /// (channel, next dependency to try).
    stack: Vec<(u32, u32)>,
    /// Next root to start from.
    root: usize,
}

impl CycleSearch {
    fn new(channels: usize) -> Self {
        CycleSearch {
            state: vec![0; channels],
            stack: Vec::new(),
            root: 0,
        }
    }

    /// The dependencies of a cycle, in cycle order from where the search closed it; None when
    /// the remaining graph is acyclic.
    fn next_cycle(&mut self, g: &Dependencies, count: &[u64]) -> Option<Vec<u32>> {
        // a previous cut: the stack's channels may be acyclic now, search them again
        for &(c, _) in &self.stack {
            self.state[c as usize] = 0;
        }
        self.stack.clear();
        while self.root < g.channels() {
            if self.state[self.root] != 0 {
                self.root += 1;
                continue;
            }
            self.state[self.root] = 1;
            self.stack.push((self.root as u32, 0));
            while let Some(&mut (c, ref mut i)) = self.stack.last_mut() {
                let outs = g.out_edges(c as usize);
                let Some(&e) = outs.get(*i as usize) else {
                    self.state[c as usize] = 2;
                    self.stack.pop();
                    continue;
                };
                *i += 1;
                if count[e as usize] == 0 {
                    continue;
                }
                let w = g.edges[e as usize].1;
                match self.state[w as usize] {
                    0 => {
                        self.state[w as usize] = 1;
                        self.stack.push((w, 0));
                    }
                    1 => {
                        // the dependencies from w along the stack, and e back to w
                        let at = self.stack.iter().position(|&(x, _)| x == w).unwrap();
                        let mut cycle: Vec<u32> = self.stack[at..]
                            .iter()
                            .take(self.stack.len() - at - 1)
                            .map(|&(x, i)| g.out_edges(x as usize)[i as usize - 1])
                            .collect();
                        cycle.push(e);
                        return Some(cycle);
                    }
                    _ => {}
                }
            }
        }
        None
    }
}
