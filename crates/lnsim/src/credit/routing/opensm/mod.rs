//! The forwarding tables OpenSM's routing engines compute (`routing.algorithm = "opensm"`,
//! `routing.engine`; docs/opensm-routing.md): one file per engine — `minhop.rs`, `updn.rs`,
//! `dor.rs`, `ftree.rs`, `dfsssp.rs` (with `dfsssp_layers.rs`, which also gives `sssp`) — over a common frame: the switches in OpenSM's table order with their
//! inter-switch ports and HCAs ([`Frame`], this file), and the hop matrix with OpenSM's port
//! choice by path counters (`port_choice.rs`), which minhop, updn and dor share.
//!
//! OpenSM always behaves here as on its first sweep (existing tables ignored), with
//! `2^routing.lmc` LIDs per HCA (`ftree` only LMC 0, as OpenSM) and every HCA a compute node; switches have no LIDs in lnsim, so routes to
//! switch LIDs (which OpenSM computes but does not count) are not computed. An engine that
//! cannot route the fabric is an input error naming the engine (OpenSM would fall back to
//! minhop silently; here the engine that produced the tables is always the one asked for).

pub mod dfsssp;
pub mod dfsssp_layers;
pub mod dor;
pub mod ftree;
pub mod minhop;
pub mod port_choice;
pub mod updn;

use crate::config::{OpensmEngine, OpensmRouting};
use crate::credit::routing::path_sl::PathSl;
use crate::credit::routing::ForwardingTables;
use crate::error::{Error, Result};
use crate::topology::{Fabric, NodeId, NodeKind};

/// Builds the tables of the OpenSM engine `c.engine` for `fabric`, with `2^routing.lmc` LIDs
/// per HCA, and the SL of every (source, destination) pair when the engine assigns them
/// (`dfsssp`, whose layers must fit the `vls` data VLs, `switch.vls`); refuses an LMC above 0
/// with `ftree` (OpenSM's ftree refuses it and falls back to minhop; here that fallback is not
/// silent), and roots that are not switches, naming the key.
pub fn build(
    c: &OpensmRouting,
    fabric: &Fabric,
    vls: u32,
) -> Result<(ForwardingTables, Option<PathSl>)> {
    if c.lmc > crate::topology::ib_identity::MAX_LMC as u32 {
        return Err(Error::input(
            "routing.lmc",
            format!("LMC {} is out of range; allowed 0-7", c.lmc),
        ));
    }
    if c.lmc != 0 && c.engine == OpensmEngine::Ftree {
        return Err(Error::input(
            "routing.lmc",
            format!(
                "routing.engine = \"ftree\" does not route LMC {} (OpenSM's ftree refuses LMC > 0 and falls back to minhop): set routing.lmc = 0, or routing.engine = \"minhop\", \"updn\" or \"dor\"",
                c.lmc
            ),
        ));
    }
    let mut frame = Frame::new(fabric);
    frame.lmc = c.lmc as u8;
    let roots = match &c.roots {
        Some(names) => Some(frame.roots(fabric, names)?),
        None => None,
    };
    if roots.is_some() && !matches!(c.engine, OpensmEngine::Updn | OpensmEngine::Ftree) {
        return Err(Error::input(
            "routing.roots",
            format!(
                "only the engines updn and ftree take roots, not {}",
                c.engine.name()
            ),
        ));
    }
    let tables = match c.engine {
        OpensmEngine::Minhop => minhop::build(fabric, &frame),
        OpensmEngine::Updn => updn::build(fabric, &frame, roots.as_deref()),
        OpensmEngine::Dor => dor::build(fabric, &frame),
        OpensmEngine::Ftree => ftree::build(fabric, &frame, roots.as_deref()),
        OpensmEngine::Dfsssp => return dfsssp::build(fabric, &frame, true, vls),
        OpensmEngine::Sssp => return dfsssp::build(fabric, &frame, false, vls),
    }?;
    Ok((tables, None))
}

/// The order in which OpenSM visits nodes of its GUID-keyed tables (`sw_guid_tbl`,
/// `port_guid_tbl`): every "in table order" loop of the engines follows it. OpenSM's maps are
/// keyed by the GUID in network byte order, so on a little-endian host the order is that of the
/// byte-reversed GUID. A fabric imported from `ibnetdiscover` (or any fabric carrying its
/// InfiniBand identity) is visited in that order: switches by node GUID, channel-adapter ports
/// by port GUID (their device's node GUID where the file gives none), ties by node index. A
/// fabric without GUIDs (built by lnsim) is visited in node index order, the order the
/// topology declares the nodes.
pub fn opensm_order(fabric: &Fabric) -> Vec<NodeId> {
    let mut order: Vec<NodeId> = (0..fabric.nodes.len() as NodeId).collect();
    if fabric.ib.is_some() {
        order.sort_by_key(|&n| (opensm_key(fabric, n), n));
    }
    order
}

/// The key of node `n` in OpenSM's GUID tables (see [`opensm_order`]): its GUID byte-reversed.
fn opensm_key(fabric: &Fabric, n: NodeId) -> u64 {
    let Some(ib) = fabric.ib.as_deref() else {
        return n as u64;
    };
    let end = &ib.ends[n as usize];
    let dev = &ib.devices[end.device as usize];
    let guid = if dev.switch {
        dev.guid
    } else {
        end.port_guid.unwrap_or(dev.guid)
    };
    guid.swap_bytes()
}

/// A switch's identifier where OpenSM compares switches by value (updn's direction between two
/// switches of equal rank: its node GUID, as a number); node index on a fabric without GUIDs.
pub fn opensm_id(fabric: &Fabric, node: NodeId) -> u64 {
    match fabric.ib.as_deref() {
        Some(ib) => ib.devices[ib.ends[node as usize].device as usize].guid,
        None => node as u64,
    }
}

/// The fabric as the engines see it: switches numbered 0.. in [`opensm_order`], each with its
/// inter-switch ports and its HCAs.
#[derive(Debug, Clone)]
pub struct Frame {
    /// Switch number → node id, in OpenSM table order.
    pub node: Vec<NodeId>,
    /// Node id → switch number (`u32::MAX` for HCAs).
    pub number: Vec<u32>,
    /// Per switch: (port, neighbour switch number) of every inter-switch port, in port order
    /// (a link to itself is not one).
    pub isl: Vec<Vec<(u16, u32)>>,
    /// Per switch: (port, HCA LID) of every HCA attached to it, in port order.
    pub hcas: Vec<Vec<(u16, u32)>>,
    /// Per switch and port: the neighbour switch number, `u32::MAX` where the port leads to an
    /// HCA (or back to the switch itself).
    pub peer: Vec<Vec<u32>>,
    /// The subnet's LMC (`routing.lmc`): every HCA has 2^lmc LIDs to route.
    pub lmc: u8,
}

impl Frame {
    /// The frame of `fabric`.
    pub fn new(fabric: &Fabric) -> Self {
        let node: Vec<NodeId> = opensm_order(fabric)
            .into_iter()
            .filter(|&n| fabric.nodes[n as usize].kind == NodeKind::Switch)
            .collect();
        let mut number = vec![u32::MAX; fabric.nodes.len()];
        for (i, &n) in node.iter().enumerate() {
            number[n as usize] = i as u32;
        }
        let mut isl = Vec::with_capacity(node.len());
        let mut hcas = Vec::with_capacity(node.len());
        let mut peer = Vec::with_capacity(node.len());
        for &n in &node {
            let (mut i, mut h, mut p) = (Vec::new(), Vec::new(), Vec::new());
            for (k, port) in fabric.nodes[n as usize].ports.iter().enumerate() {
                let far = &fabric.nodes[port.peer as usize];
                match far.kind {
                    NodeKind::Switch if port.peer != n => {
                        i.push((k as u16, number[port.peer as usize]));
                        p.push(number[port.peer as usize]);
                    }
                    NodeKind::Hca => {
                        h.push((k as u16, far.lid));
                        p.push(u32::MAX);
                    }
                    _ => p.push(u32::MAX),
                }
            }
            isl.push(i);
            hcas.push(h);
            peer.push(p);
        }
        Frame {
            node,
            number,
            isl,
            hcas,
            peer,
            lmc: 0,
        }
    }

    /// Number of switches.
    pub fn len(&self) -> usize {
        self.node.len()
    }

    /// Whether the fabric has no switch.
    pub fn is_empty(&self) -> bool {
        self.node.is_empty()
    }

    /// The switch numbers of `routing.roots`, refusing a name that is not a switch.
    fn roots(&self, fabric: &Fabric, names: &[String]) -> Result<Vec<u32>> {
        let mut out = Vec::with_capacity(names.len());
        for (k, name) in names.iter().enumerate() {
            let key = format!("routing.roots[{k}]");
            let id = fabric.node(name, &key)?;
            let s = self.number[id as usize];
            if s == u32::MAX {
                return Err(Error::input(
                    &key,
                    format!("`{name}` is an HCA; roots are switches"),
                ));
            }
            if !out.contains(&s) {
                out.push(s);
            }
        }
        if out.is_empty() {
            return Err(Error::input(
                "routing.roots",
                "empty: name at least one root switch, or leave the key out to detect them",
            ));
        }
        Ok(out)
    }

    /// Least switch-to-switch hops from every switch to every switch (`u8::MAX`: unreachable),
    /// `dist[s * n + t]`, by a BFS from each destination (OpenSM's relaxation with unit hop
    /// weights gives the same).
    pub fn least_hops(&self) -> Vec<u8> {
        let n = self.len();
        let mut dist = vec![u8::MAX; n * n];
        let mut queue = std::collections::VecDeque::new();
        for t in 0..n {
            dist[t * n + t] = 0;
            queue.push_back(t as u32);
            while let Some(v) = queue.pop_front() {
                let d = dist[v as usize * n + t];
                for &(_, u) in &self.isl[v as usize] {
                    let slot = &mut dist[u as usize * n + t];
                    if *slot == u8::MAX && d < u8::MAX - 1 {
                        *slot = d + 1;
                        queue.push_back(u);
                    }
                }
            }
        }
        dist
    }
}

#[cfg(test)]
mod tests {
    use crate::config::RoutingConfig;

    /// The error building the tables of `routing` (a `[routing]` body) on a small mesh gives.
    fn refusal(routing: &str) -> String {
        let text = format!(
            "[sim]\nmodel = \"credit\"\nend_time = \"1us\"\n[topology]\nkind = \"mesh\"\ndims = [2, 2]\nhcas_per_switch = 1\n[routing]\nalgorithm = \"opensm\"\n{routing}"
        );
        let s = crate::config::parse_for_test(&text);
        let f = crate::topology::build(&s, std::path::Path::new(".")).unwrap();
        let RoutingConfig::Opensm(c) = &s.routing else {
            panic!("not opensm")
        };
        super::build(c, &f, 1).unwrap_err().to_string()
    }

    #[test]
    fn an_lmc_with_ftree_roots_on_an_hca_or_roots_for_minhop_are_refused_naming_the_key() {
        let e = refusal("engine = \"ftree\"\nlmc = 1\n");
        assert!(
            e.contains("routing.lmc") && e.contains("routing.engine = \"ftree\""),
            "{e}"
        );
        let e = refusal("engine = \"updn\"\nroots = [\"H111\"]\n");
        assert!(e.contains("routing.roots[0]") && e.contains("HCA"), "{e}");
        let e = refusal("engine = \"updn\"\nroots = [\"nowhere\"]\n");
        assert!(e.contains("routing.roots[0]"), "{e}");
        let e = refusal("roots = [\"SW11\"]\n");
        assert!(e.contains("routing.roots") && e.contains("minhop"), "{e}");
    }
}

/// OpenSM's table order on an imported fabric: by the byte-reversed GUID (switches by node
/// GUID, CA ports by port GUID), not by the order of the file; a built fabric keeps node
/// index order.
#[cfg(test)]
mod order_tests {
    use super::{opensm_id, opensm_order};

    #[test]
    fn imported_fabrics_are_visited_in_opensm_guid_table_order() {
        let f = crate::topology::ibnetdiscover::tests::parse_ok(
            crate::topology::ibnetdiscover::tests::A1,
        );
        let ib = f.ib.as_deref().unwrap();
        let key = |n: u32| {
            let e = &ib.ends[n as usize];
            let d = &ib.devices[e.device as usize];
            if d.switch {
                d.guid
            } else {
                e.port_guid.unwrap_or(d.guid)
            }
            .swap_bytes()
        };
        let order = opensm_order(&f);
        assert_eq!(order.len(), f.nodes.len());
        assert!(
            order.windows(2).all(|w| key(w[0]) <= key(w[1])),
            "{order:?}"
        );
        // on the shipped 648-HCA fat tree (GUIDs `0x6c6e73…` + node index, more than 256
        // nodes) the byte-reversed order is not the file's order
        let text = include_str!("../../../../../../scenarios/fabrics/fat_tree_648.ibnetdiscover");
        let link = crate::topology::mesh_torus::tests::link;
        let big = crate::topology::ibnetdiscover::parse(text, "ft.ibnd", link(), link()).unwrap();
        let big_order = opensm_order(&big);
        assert_ne!(big_order, (0..big.nodes.len() as u32).collect::<Vec<_>>());
        let bib = big.ib.as_deref().unwrap();
        let sw_guid = |n: u32| bib.devices[bib.ends[n as usize].device as usize].guid;
        let sws: Vec<u32> = big_order
            .iter()
            .copied()
            .filter(|&n| big.switches.contains(&n))
            .collect();
        assert!(sws
            .windows(2)
            .all(|w| sw_guid(w[0]).swap_bytes() < sw_guid(w[1]).swap_bytes()));
        for s in f.switches.iter().copied() {
            assert_eq!(
                opensm_id(&f, s),
                ib.devices[ib.ends[s as usize].device as usize].guid
            );
        }
        // a built fabric: node index order
        let built = super::test_fabrics::from_edges(super::minhop::tests::DIAMOND);
        let n = built.nodes.len() as u32;
        assert_eq!(opensm_order(&built), (0..n).collect::<Vec<_>>());
    }
}

#[cfg(test)]
pub(crate) mod test_fabrics {
    //! Small hand-checkable fabrics for the engines' tests, from the edge-list topology.
    use crate::topology::Fabric;

    /// A fabric from edge-list text (`topology.kind = "file"`), with 4x QDR links.
    pub fn from_edges(edges: &str) -> Fabric {
        let dir = std::env::temp_dir().join(format!(
            "lnsim-opensm-test-{}-{}",
            std::process::id(),
            edges.len() ^ (edges.bytes().map(|b| b as usize).sum::<usize>() << 8)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.edges");
        std::fs::write(&path, edges).unwrap();
        let text = format!(
            "[sim]\nmodel = \"credit\"\nend_time = \"1us\"\n[topology]\nkind = \"file\"\nfile = \"{}\"\n",
            path.display()
        );
        let s = crate::config::parse_for_test(&text);
        let f = crate::topology::build(&s, &dir).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        f
    }

    /// Whether the channel-dependency graph of every HCA-to-HCA route of `t` (one VL) is
    /// acyclic (`table_dependencies.rs`, the check every run makes).
    pub fn deadlock_free(f: &Fabric, t: &crate::credit::routing::ForwardingTables) -> bool {
        use crate::credit::routing::table_dependencies::{check_tables, Demand};
        let n = f.hcas.len() as u32;
        let dsts: Vec<Vec<u32>> = (0..n)
            .map(|a| (0..n).filter(|&b| b != a).collect())
            .collect();
        let demands: Vec<Demand<'_>> = (0..n)
            .map(|a| Demand {
                src: a,
                dsts: &dsts[a as usize],
                vl: 0,
                offset: None,
            })
            .collect();
        check_tables(f, t, &demands, false).cycle.is_none()
    }

    /// Output port of switch `sw` (by name) for the HCA named `hca`.
    pub fn port(
        f: &Fabric,
        t: &crate::credit::routing::ForwardingTables,
        sw: &str,
        hca: &str,
    ) -> u16 {
        t.out_port(f.by_name[sw], f.nodes[f.by_name[hca] as usize].lid)
    }

    /// A fabric of a scenario's `[topology]` table text.
    pub fn from_topology(topology: &str) -> Fabric {
        let text = format!("[sim]\nmodel = \"credit\"\nend_time = \"1us\"\n[topology]\n{topology}");
        let s = crate::config::parse_for_test(&text);
        crate::topology::build(&s, std::path::Path::new(".")).unwrap()
    }
}
