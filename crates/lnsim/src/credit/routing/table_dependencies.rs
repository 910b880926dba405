//! The channel-dependency check of the credit-level wing's forwarding tables
//! ([`check_tables`]): channels are `(switch, output port, VL)` of switch-to-switch links, and
//! the dependencies are those of the routes the traffic can use, on the VL each flow uses (the
//! model keeps a packet's VL from source to destination); the cycle search is the foundation's
//! ([`crate::routing::channel_dependency::find_cycle`]). A cycle can deadlock the network
//! (credit loops, Dally & Seitz): `lnsim validate` reports the check, and a run refuses a
//! cycle.

use super::tables::{ForwardingTables, NO_PORT};
use crate::routing::channel_dependency::find_cycle;
use crate::topology::{Fabric, NodeId};

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
    /// With an LMC: the only LID offset of the destinations these routes take on `vl` (a lane
    /// choice that puts a destination's LIDs on different VLs, `LaneChoice::PathSl`); None:
    /// every offset the sources use (`routing.lmc_path`).
    pub offset: Option<u8>,
}

/// Routes a source lane choice spreads over its lanes (`credit/lanes.rs`), for the deadlock
/// check: (source HCA, destination HCAs, VL, the destinations' LID offset when only that one
/// travels on this VL — [`Demand::offset`]).
pub(crate) type LaneRoutes = Vec<(u32, Vec<u32>, u8, Option<u8>)>;

/// A channel of the credit-level model: output `port` of switch `node` on virtual lane `vl` (one
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

/// The channel-dependency check of forwarding tables (credit-level model). A packet holding
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
        // succ[c · mw ..]: bit q set when channel c is followed by port q of the switch behind it
        let mut succ = vec![0u64; n_ch * mw];
        // each LID offset of the destinations' LMC ranges the routes can use (LMC 0: one)
        for offset in 0..1u8 << lft.lmc {
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
                        if dm.offset.is_none_or(|k| k == offset)
                            && lft.offsets_used(dm.src, dst).contains(&offset)
                        {
                            mark(dst, from);
                        }
                        // notifications go back to the source's base LID
                        if returns && offset == 0 {
                            mark(dm.src, hca_switch[dst as usize]);
                        }
                    }
                }
            }
            let used: Vec<u32> = (0..n_hca as u32)
                .filter(|&d| !starts[d as usize].is_empty())
                .collect();
            let mut walked = vec![u32::MAX; n_sw]; // destination last walked through each switch
            let mut column = vec![NO_PORT; COLUMN_BLOCK.min(used.len().max(1)) * n_sw];
            for block in used.chunks(COLUMN_BLOCK) {
                // the block's table columns, destination-major (row-major reads of the tables)
                let lids: Vec<usize> = block
                    .iter()
                    .map(|&d| lft.dlid(d, offset) as usize)
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
mod tests {
    use super::*;
    use crate::config::TopologyKind;
    use crate::credit::routing::{dmodk, dor_tables as dor, updown};
    use crate::topology::mesh_torus::tests::mesh;

    /// Every HCA sends to every other on `vl`.
    fn all_to_all(f: &Fabric) -> Vec<u32> {
        (0..f.hcas.len() as u32).collect()
    }

    fn demands<'a>(f: &Fabric, all: &'a [u32], vl: u8) -> Vec<Demand<'a>> {
        (0..f.hcas.len() as u32)
            .map(|src| Demand {
                src,
                dsts: all,
                vl,
                offset: None,
            })
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
            offset: None,
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
                offset: None,
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
