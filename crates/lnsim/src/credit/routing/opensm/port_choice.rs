//! OpenSM's min-hop table step, shared by minhop, updn and dor (`osm_ucast_mgr.c`
//! `ucast_mgr_build_lfts`, `osm_switch.c` `osm_switch_recommend_path`): a hop matrix per switch
//! (hops to every destination switch through every port, [`HopMatrix`]), the order in which
//! destinations are routed, and the choice of an output port among the least-hop ports by path
//! counters ([`build_lfts`]).
//!
//! # Destination order
//! Switches sorted by their number of attached HCAs, most first (ties in OpenSM table order: a
//! stable sort, the choice OpenSM leaves to the C library's `qsort`), each with its HCAs in port
//! order (OpenSM's port order list without a `guid_routing_order_file`).
//!
//! # Port choice
//! Each switch routes every destination in that order, independently of the other switches: an
//! HCA attached to it gets its own port; otherwise the candidates are the ports whose hop count
//! to the destination's switch equals the switch's least hop count, scanned in port order, and
//! the **first candidate with strictly fewer paths** wins (ties: the lowest port). The winner's
//! path counter then counts the destination. With `dor`, only candidates leading to the same
//! neighbour switch as the first candidate compete (lowest dimension first; balancing only over
//! parallel cables). LMC 0: no system-image/node GUID tracking, no `port_shifting`, no
//! `scatter_ports` (OpenSM's defaults).

use super::Frame;
use crate::credit::routing::ForwardingTables;
use crate::error::Result;
use crate::topology::Fabric;

/// OpenSM's "no path" hop count.
pub const NO_PATH: u8 = u8::MAX;

/// Hops from every switch through each of its ports to every destination switch, and the
/// least over the ports (OpenSM's `hops[lid][port]`, `hops[lid][0]`), for switch destinations.
#[derive(Debug, Clone)]
pub struct HopMatrix {
    n: usize,
    base: Vec<usize>,
    hops: Vec<u8>,
    least: Vec<u8>,
}

impl HopMatrix {
    /// Every entry "no path", except a switch's own (0 hops).
    pub fn new(fabric: &Fabric, frame: &Frame) -> Self {
        let n = frame.len();
        let mut base = Vec::with_capacity(n + 1);
        let mut total = 0;
        for &s in &frame.node {
            base.push(total);
            total += fabric.nodes[s as usize].ports.len() * n;
        }
        base.push(total);
        let mut least = vec![NO_PATH; n * n];
        for s in 0..n {
            least[s * n + s] = 0;
        }
        HopMatrix {
            n,
            base,
            hops: vec![NO_PATH; total],
            least,
        }
    }

    /// Hops from switch `s` through port `p` to switch `t`.
    pub fn get(&self, s: u32, p: u16, t: u32) -> u8 {
        self.hops[self.base[s as usize] + p as usize * self.n + t as usize]
    }

    /// Sets the hops from `s` through `p` to `t`; the least follows (`osm_switch_set_hops`).
    pub fn set(&mut self, s: u32, p: u16, t: u32, h: u8) {
        self.hops[self.base[s as usize] + p as usize * self.n + t as usize] = h;
        let l = &mut self.least[s as usize * self.n + t as usize];
        if h < *l {
            *l = h;
        }
    }

    /// Least hops from `s` to `t` over its ports (0 for itself).
    pub fn least(&self, s: u32, t: u32) -> u8 {
        self.least[s as usize * self.n + t as usize]
    }

    /// The plain min-hop matrix (`osm_ucast_mgr_build_lid_matrices` with unit hop weights): a
    /// port's hops to `t` are 1 + its neighbour's least hops.
    pub fn minhop(fabric: &Fabric, frame: &Frame) -> Self {
        let mut m = HopMatrix::new(fabric, frame);
        let n = frame.len();
        let dist = frame.least_hops();
        for s in 0..n {
            for &(p, u) in &frame.isl[s] {
                for t in 0..n {
                    let d = dist[u as usize * n + t];
                    if d < NO_PATH - 1 {
                        m.set(s as u32, p, t as u32, d + 1);
                    }
                }
            }
        }
        m
    }
}

/// The destinations in OpenSM's routing order: (destination switch, HCA port there, HCA LID).
pub fn destination_order(frame: &Frame) -> Vec<(u32, u16, u32)> {
    let mut sw: Vec<u32> = (0..frame.len() as u32).collect();
    sw.sort_by_key(|&s| std::cmp::Reverse(frame.hcas[s as usize].len()));
    sw.iter()
        .flat_map(|&s| frame.hcas[s as usize].iter().map(move |&(p, l)| (s, p, l)))
        .collect()
}

/// The forwarding tables of the min-hop step over the hop matrix `hops` (module docs); `dor`
/// restricts the candidates to the first candidate's neighbour switch. A destination a switch
/// cannot reach keeps no entry (the route check names it).
pub fn build_lfts(
    fabric: &Fabric,
    frame: &Frame,
    hops: &HopMatrix,
    dor: bool,
) -> Result<ForwardingTables> {
    let mut tables = ForwardingTables::empty(fabric);
    let order = destination_order(frame);
    for s in 0..frame.len() as u32 {
        let node = frame.node[s as usize];
        let nports = fabric.nodes[node as usize].ports.len();
        let mut paths = vec![0u32; nports];
        for &(t, tport, lid) in &order {
            if t == s {
                tables.set(node, lid, tport);
                continue;
            }
            if let Some(p) = recommend_path(frame, hops, s, t, nports, &paths, dor) {
                paths[p as usize] += 1;
                tables.set(node, lid, p);
            }
        }
    }
    Ok(tables)
}

/// The port switch `s` takes towards switch `t` given its path counters (module docs), or None
/// when `t` is unreachable.
fn recommend_path(
    frame: &Frame,
    hops: &HopMatrix,
    s: u32,
    t: u32,
    nports: usize,
    paths: &[u32],
    dor: bool,
) -> Option<u16> {
    let least = hops.least(s, t);
    if least == NO_PATH {
        return None;
    }
    let mut best: Option<(u16, u32)> = None;
    let mut first_remote = u32::MAX;
    for p in 0..nports as u16 {
        if hops.get(s, p, t) != least {
            continue;
        }
        if dor {
            let remote = frame.peer[s as usize][p as usize];
            if first_remote == u32::MAX {
                first_remote = remote;
            } else if remote != first_remote {
                continue;
            }
        }
        let count = paths[p as usize];
        if best.is_none_or(|(_, c)| count < c) {
            best = Some((p, count));
        }
    }
    best.map(|(p, _)| p)
}
