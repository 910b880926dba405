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
//! parallel cables). With LMC > 0 the LIDs of a destination are routed offset by offset and
//! prefer ports towards systems and nodes its earlier LIDs did not take ([`build_lfts`]). No
//! `port_shifting`, no `scatter_ports` (OpenSM's defaults).

use super::Frame;
use crate::credit::routing::ForwardingTables;
use crate::error::Result;
use crate::topology::{Fabric, NodeId};

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

/// The destinations in OpenSM's routing order: (destination switch, HCA port there, HCA
/// index).
pub fn destination_order(frame: &Frame) -> Vec<(u32, u16, u32)> {
    let mut sw: Vec<u32> = (0..frame.len() as u32).collect();
    sw.sort_by_key(|&s| std::cmp::Reverse(frame.hcas[s as usize].len()));
    sw.iter()
        .flat_map(|&s| {
            frame.hcas[s as usize]
                .iter()
                .map(move |&(p, l)| (s, p, l - 1))
        })
        .collect()
}

/// What one destination's earlier LIDs used at the switch being routed (OpenSM's per-port
/// tracking for LMC > 0): the nodes behind the chosen ports, with how many of its LIDs went
/// to each.
#[derive(Debug, Clone, Copy)]
struct Used {
    /// The system the node belongs to (its system image GUID; its node GUID without one).
    sys: u64,
    /// The node.
    node: NodeId,
    /// The node's port at the far end of the chosen port (dor tells parallel cables apart).
    port: u16,
    /// LIDs of the destination routed to it.
    forwarded: u32,
}

/// The system (system image GUID, else node GUID; node id on a fabric without GUIDs) of node
/// `n`, for the LMC preference of a new system.
fn system_of(fabric: &Fabric, n: NodeId) -> u64 {
    match fabric.ib.as_deref() {
        Some(ib) => {
            let d = ib.device_of(n);
            d.sysimg_guid.filter(|&g| g != 0).unwrap_or(d.guid)
        }
        None => n as u64,
    }
}

/// The forwarding tables of the min-hop step over the hop matrix `hops` (module docs); `dor`
/// restricts the candidates to the first candidate's neighbour switch. A destination a switch
/// cannot reach keeps no entry (the route check names it).
///
/// With `frame.lmc` > 0 every switch routes the LIDs offset by offset (all destinations' base
/// LIDs, then all their second LIDs, …), as OpenSM does: for an offset above 0 the scan of the
/// candidates starts after the port the previous LID took (not with `dor`), and a candidate
/// leading to a system, then a node, that none of the destination's earlier LIDs took at this
/// switch is preferred (fewest paths among those); ties go to the node it forwarded fewest of
/// them to (`dor`: the cable, as it only balances over parallel cables).
pub fn build_lfts(
    fabric: &Fabric,
    frame: &Frame,
    hops: &HopMatrix,
    dor: bool,
) -> Result<ForwardingTables> {
    let mut tables = ForwardingTables::with_lmc(fabric, frame.lmc)?;
    let order = destination_order(frame);
    let lmc = frame.lmc > 0;
    let mut used: Vec<Vec<Used>> = vec![Vec::new(); if lmc { order.len() } else { 0 }];
    for s in 0..frame.len() as u32 {
        let node = frame.node[s as usize];
        let nports = fabric.nodes[node as usize].ports.len();
        let mut paths = vec![0u32; nports];
        used.iter_mut().for_each(Vec::clear);
        for offset in 0..1u8 << frame.lmc {
            for (i, &(t, tport, hca)) in order.iter().enumerate() {
                let lid = tables.dlid(hca, offset);
                let port = if t == s {
                    Some(tport)
                } else {
                    let track = match lmc {
                        true => Some(used[i].as_slice()),
                        false => None,
                    };
                    // after the port of the destination's previous LID (OpenSM's start_from)
                    let start = match tables.out_port(node, lid - 1) {
                        p if offset > 0 && !dor && (p as usize) < nports => p as usize + 1,
                        _ => 0,
                    };
                    let c = Choice {
                        fabric,
                        frame,
                        hops,
                        s,
                        t,
                        paths: &paths,
                        dor,
                        track,
                    };
                    c.recommend(start)
                };
                let Some(p) = port else { continue };
                paths[p as usize] += 1;
                tables.set(node, lid, p);
                if lmc {
                    let far = fabric.nodes[node as usize].ports[p as usize];
                    let u = &mut used[i];
                    let k = u
                        .iter()
                        .position(|x| x.node == far.peer && (!dor || x.port == far.peer_port));
                    match k {
                        Some(k) => u[k].forwarded += 1,
                        None => u.push(Used {
                            sys: system_of(fabric, far.peer),
                            node: far.peer,
                            port: far.peer_port,
                            forwarded: 1,
                        }),
                    }
                }
            }
        }
    }
    Ok(tables)
}

/// One port choice of switch `s` towards switch `t` (module docs).
struct Choice<'a> {
    fabric: &'a Fabric,
    frame: &'a Frame,
    hops: &'a HopMatrix,
    s: u32,
    t: u32,
    /// The switch's path counters.
    paths: &'a [u32],
    dor: bool,
    /// With LMC > 0: what the destination's earlier LIDs took at this switch.
    track: Option<&'a [Used]>,
}

impl Choice<'_> {
    /// The port switch `s` takes, scanning its ports from `start` (wrapping), or None when
    /// `t` is unreachable.
    fn recommend(&self, start: usize) -> Option<u16> {
        let (s, t) = (self.s, self.t);
        let least = self.hops.least(s, t);
        if least == NO_PATH {
            return None;
        }
        let node = self.frame.node[s as usize];
        let ports = &self.fabric.nodes[node as usize].ports;
        let nports = ports.len();
        let mut best: Option<(u16, u32)> = None;
        let mut first_remote = u32::MAX;
        // LMC: the best candidate towards a new system, a new node; the fewest LIDs forwarded
        let mut other_sys: Option<(u16, u32)> = None;
        let mut other_node: Option<(u16, u32)> = None;
        let mut least_forwarded = u32::MAX;
        for k in start..start + nports {
            let p = (k % nports) as u16;
            if self.hops.get(s, p, t) != least {
                continue;
            }
            let count = self.paths[p as usize];
            // the tracked entry of the node behind p (LMC), as OpenSM finds it
            let mut seen: Option<u32> = None;
            if self.dor {
                let remote = self.frame.peer[s as usize][p as usize];
                if first_remote == u32::MAX {
                    first_remote = remote;
                } else if remote != first_remote {
                    continue;
                }
                if let Some(track) = self.track {
                    let far = ports[p as usize];
                    // a cable not used yet counts as forwarded to 0 times
                    seen = Some(
                        track
                            .iter()
                            .find(|u| u.node == far.peer && u.port == far.peer_port)
                            .map_or(0, |u| u.forwarded),
                    );
                }
            } else if let Some(track) = self.track {
                let far = ports[p as usize].peer;
                let sys = system_of(self.fabric, far);
                if !track.iter().any(|u| u.sys == sys) {
                    if other_sys.is_none_or(|(_, c)| count < c) {
                        other_sys = Some((p, count));
                        least_forwarded = 0;
                    }
                } else {
                    seen = track.iter().find(|u| u.node == far).map(|u| u.forwarded);
                    if seen.is_none() && other_node.is_none_or(|(_, c)| count < c) {
                        other_node = Some((p, count));
                        least_forwarded = 0;
                    }
                }
            }
            match best {
                Some((_, c)) if count >= c => {
                    if let Some(f) = seen.filter(|&f| count == c && f < least_forwarded) {
                        least_forwarded = f;
                        best = Some((p, count));
                    }
                }
                _ => {
                    best = Some((p, count));
                    if let Some(f) = seen.filter(|&f| f < least_forwarded) {
                        least_forwarded = f;
                    }
                }
            }
        }
        let best = best.map(|(p, _)| p)?;
        if self.track.is_some() {
            if let Some((p, _)) = other_sys.or(other_node) {
                return Some(p);
            }
        }
        Some(best)
    }
}

/// LMC > 0: every LID of an HCA routed, the later ones preferring ports the earlier ones did
/// not take (OpenSM's `osm_switch_recommend_path` with `routing_for_lmc`).
#[cfg(test)]
mod lmc_tests {
    use super::super::test_fabrics::{deadlock_free, from_edges, from_topology};
    use super::super::{dor, minhop, updn, Frame};
    use crate::config::LmcPath;
    use crate::credit::routing::ForwardingTables;
    use crate::topology::Fabric;

    fn frame(f: &Fabric, lmc: u8) -> Frame {
        let mut fr = Frame::new(f);
        fr.lmc = lmc;
        fr
    }

    /// The output port of switch `sw` for each LID of HCA `hca` (by names).
    fn ports(f: &Fabric, t: &ForwardingTables, sw: &str, hca: &str) -> Vec<u16> {
        let h = f.nodes[f.by_name[hca] as usize].lid - 1;
        t.lids_of(h).map(|l| t.out_port(f.by_name[sw], l)).collect()
    }

    #[test]
    fn minhop_with_lmc_1_sends_the_two_lids_of_an_hca_over_the_two_parallel_paths() {
        let f = from_edges(super::super::minhop::tests::DIAMOND);
        let t = minhop::build(&f, &frame(&f, 1)).unwrap();
        assert_eq!((t.lmc, t.lids), (1, 10));
        // S0's least-hop ports towards S3 are 2 (via S1) and 3 (via S2): H2's base LID takes 2
        // (fewest paths), its second LID the switch S2 the first did not use; H3 the other
        // way round
        assert_eq!(ports(&f, &t, "S0", "H2"), [2, 3]);
        assert_eq!(ports(&f, &t, "S0", "H3"), [3, 2]);
        assert_eq!(ports(&f, &t, "S3", "H0"), [2, 3]);
        // the attached HCAs get their port for every LID
        assert_eq!(ports(&f, &t, "S0", "H1"), [1, 1]);
        // LMC 0 is unchanged: the base LIDs route as before
        let t0 = minhop::build(&f, &frame(&f, 0)).unwrap();
        assert_eq!(ports(&f, &t0, "S0", "H2"), [2]);
        assert_eq!(ports(&f, &t0, "S0", "H3"), [3]);
    }

    #[test]
    fn minhop_with_lmc_1_on_example_a1_gives_the_hand_worked_tables() {
        // the research note's example A1 (two leaves joined by two cables, LMC 1): its minhop
        // tables, re-derived by hand from OpenSM's rules, are the dump the lft_dump tests read
        let f = crate::topology::ibnetdiscover::tests::parse_ok(
            crate::topology::ibnetdiscover::tests::A1,
        );
        let t = minhop::build(&f, &frame(&f, 1)).unwrap();
        let dumped = crate::credit::routing::lft_dump::tests::a1_tables(&f);
        assert_eq!(dumped.lmc, 1);
        assert_eq!(t.port, dumped.port);
    }

    #[test]
    fn dor_with_lmc_spreads_the_lids_over_parallel_cables_of_the_first_dimension() {
        // the diamond with a second cable S0-S1 (S0 port 4): DOR keeps to S1 (ports 2 and 4)
        let f = from_edges(&format!(
            "{}link S0 S1\n",
            super::super::minhop::tests::DIAMOND
        ));
        let t = dor::build(&f, &frame(&f, 1)).unwrap();
        assert_eq!(ports(&f, &t, "S0", "H2"), [2, 4]);
        assert_eq!(ports(&f, &t, "S0", "H3"), [4, 2]);
    }

    #[test]
    fn updn_with_lmc_routes_every_lid_and_keeps_the_up_down_rule() {
        let f = from_topology("kind = \"mesh\"\ndims = [3, 3]\nhcas_per_switch = 1\n");
        let mut t = updn::build(&f, &frame(&f, 2), Some(&[4])).unwrap();
        // every LID of every HCA is routed, and the routes to the four LIDs are not all one
        t.lmc_path = LmcPath::Message;
        let n = f.hcas.len() as u32;
        let pairs: Vec<(u32, u32)> = (0..n)
            .flat_map(|a| (0..n).filter(move |&b| b != a).map(move |b| (a, b)))
            .collect();
        t.check_routes(&f, &pairs).unwrap();
        let differ = f.switches.iter().any(|&s| {
            (0..n).any(|h| {
                let l = t.lids_of(h);
                l.clone()
                    .any(|x| t.out_port(s, x) != t.out_port(s, l.start))
            })
        });
        assert!(differ);
        // the channel-dependency graph of the routes to every LID is acyclic
        assert!(deadlock_free(&f, &t));
    }
}
