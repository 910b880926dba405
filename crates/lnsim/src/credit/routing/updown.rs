//! up*/down* routing for any fabric (spec §3.6: deterministic LFT routing; used by default for
//! the test bed and edge-list topologies).
//!
//! # Orientation
//! Root: the switch with the most links to other switches (self-loops not counted), ties to the
//! lowest node id. A BFS from the root gives every switch a level (hop distance). Each
//! switch-to-switch link is oriented "up" towards the end with the smaller (level, node id), so
//! up hops strictly decrease that rank and the up direction has no cycles. If the switches form
//! several components, each gets its own BFS from its own root (chosen by the same rule among
//! the switches not reached yet); destinations in another component stay unreachable.
//!
//! # Routes
//! A legal route is zero or more up hops followed by zero or more down hops (no down → up
//! turn), which is deadlock-free. Per destination switch t, a backward search computes over the
//! states (switch, phase): `down[u]`, the shortest down-only distance from u to t (phase "down"),
//! and `route[u]`, the length of u's route (phase "up"). A forwarding table cannot depend on the
//! phase a packet arrived in, and a packet may reach u after a down hop, so a switch that can
//! reach t going down only must go down: `route[u] = down[u]` if finite, else
//! `1 + min route[v]` over the up neighbours v. The entry at u is a port towards a neighbour
//! that realises this minimum (down neighbour with `down[v] = down[u] − 1`, or up neighbour with
//! `route[v] = route[u] − 1`); among equal candidates (in port order) it takes number
//! `dlid mod count`, which spreads destinations deterministically. At t the entry is the HCA's
//! port. Routes are therefore legal and loop-free; they are shortest among the up*/down* routes
//! that turn down at the first switch from which t is reachable going down only (the tests find
//! shortest paths for the test bed, the 3×3 mesh and small k-ary n-trees; not guaranteed in
//! general). An unreachable destination keeps
//! [`NO_PORT`](super::tables::NO_PORT); the route check reports it.

use crate::credit::routing::ForwardingTables;
use crate::error::Result;
use crate::topology::{Fabric, NodeKind};
use std::collections::VecDeque;

/// Builds up*/down* forwarding tables for any fabric (see the module documentation).
pub fn build(fabric: &Fabric) -> Result<ForwardingTables> {
    let mut tables = ForwardingTables::empty(fabric);
    let nsw = fabric.switches.len();
    let adj = adjacency(fabric, &tables);
    let rank = ranks(fabric, &adj);
    // HCAs per switch: (lid, switch port)
    let mut hcas_at: Vec<Vec<(u32, u16)>> = vec![Vec::new(); nsw];
    for &h in &fabric.hcas {
        let hn = &fabric.nodes[h as usize];
        if let Some(p) = hn.ports.first() {
            if fabric.nodes[p.peer as usize].kind == NodeKind::Switch {
                hcas_at[tables.switch_index[p.peer as usize] as usize].push((hn.lid, p.peer_port));
            }
        }
    }
    let mut order: Vec<usize> = (0..nsw).collect();
    order.sort_by_key(|&s| rank[s]);
    let mut down = vec![u32::MAX; nsw];
    let mut route = vec![u32::MAX; nsw];
    let mut queue = VecDeque::new();
    let mut cands: Vec<u16> = Vec::new();
    for t in 0..nsw {
        if hcas_at[t].is_empty() {
            continue;
        }
        // phase "down": reverse BFS over down links u → v (rank[u] < rank[v])
        down.fill(u32::MAX);
        down[t] = 0;
        queue.push_back(t);
        while let Some(v) = queue.pop_front() {
            for &(_, u) in &adj[v] {
                if rank[u] < rank[v] && down[u] == u32::MAX {
                    down[u] = down[v] + 1;
                    queue.push_back(u);
                }
            }
        }
        // phase "up": up neighbours have a smaller rank, so rank order resolves them first
        for &u in &order {
            route[u] = if down[u] != u32::MAX {
                down[u]
            } else {
                adj[u]
                    .iter()
                    .filter(|&&(_, v)| rank[v] < rank[u] && route[v] != u32::MAX)
                    .map(|&(_, v)| route[v] + 1)
                    .min()
                    .unwrap_or(u32::MAX)
            };
        }
        for u in 0..nsw {
            let sw = fabric.switches[u];
            if u == t {
                for &(lid, port) in &hcas_at[t] {
                    tables.set(sw, lid, port);
                }
                continue;
            }
            if route[u] == u32::MAX {
                continue;
            }
            cands.clear();
            if down[u] != u32::MAX {
                cands.extend(
                    adj[u]
                        .iter()
                        .filter(|&&(_, v)| rank[v] > rank[u] && down[v] == down[u] - 1)
                        .map(|&(p, _)| p),
                );
            } else {
                cands.extend(
                    adj[u]
                        .iter()
                        .filter(|&&(_, v)| rank[v] < rank[u] && route[v] == route[u] - 1)
                        .map(|&(p, _)| p),
                );
            }
            for &(lid, _) in &hcas_at[t] {
                tables.set(sw, lid, cands[lid as usize % cands.len()]);
            }
        }
    }
    Ok(tables)
}

/// Switch-to-switch links per switch index, in port order: (port, peer switch index).
fn adjacency(fabric: &Fabric, tables: &ForwardingTables) -> Vec<Vec<(u16, usize)>> {
    fabric
        .switches
        .iter()
        .map(|&s| {
            fabric.nodes[s as usize]
                .ports
                .iter()
                .enumerate()
                .filter(|(_, p)| {
                    p.peer != s && fabric.nodes[p.peer as usize].kind == NodeKind::Switch
                })
                .map(|(i, p)| (i as u16, tables.switch_index[p.peer as usize] as usize))
                .collect()
        })
        .collect()
}

/// Rank `(BFS level << 32) | node id` of each switch index; links point up towards the smaller.
fn ranks(fabric: &Fabric, adj: &[Vec<(u16, usize)>]) -> Vec<u64> {
    let nsw = adj.len();
    let mut level = vec![u32::MAX; nsw];
    let mut queue = VecDeque::new();
    loop {
        // root of the next component: most switch links, then lowest node id
        let root = (0..nsw)
            .filter(|&s| level[s] == u32::MAX)
            .max_by_key(|&s| (adj[s].len(), std::cmp::Reverse(fabric.switches[s])));
        let Some(root) = root else { break };
        level[root] = 0;
        queue.push_back(root);
        while let Some(u) = queue.pop_front() {
            for &(_, v) in &adj[u] {
                if level[v] == u32::MAX {
                    level[v] = level[u] + 1;
                    queue.push_back(v);
                }
            }
        }
    }
    (0..nsw)
        .map(|s| ((level[s] as u64) << 32) | fabric.switches[s] as u64)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TopologyKind;
    use crate::credit::routing::tables::NO_PORT;
    use crate::topology::fat_tree::tests::{cfg as tree_cfg, tree};
    use crate::topology::mesh_torus::tests::mesh;
    use crate::topology::testbed::tests::testbed;
    use crate::topology::{Fabric, NodeId};

    /// Shortest switch-hop distance between the switches of two HCAs (BFS).
    fn bfs_hops(f: &Fabric, a: NodeId, b: NodeId) -> usize {
        let start = f.nodes[a as usize].ports[0].peer;
        let goal = f.nodes[b as usize].ports[0].peer;
        let mut dist = vec![usize::MAX; f.nodes.len()];
        dist[start as usize] = 1;
        let mut q = VecDeque::from([start]);
        while let Some(u) = q.pop_front() {
            if u == goal {
                return dist[u as usize];
            }
            for p in &f.nodes[u as usize].ports {
                if f.nodes[p.peer as usize].kind == NodeKind::Switch
                    && dist[p.peer as usize] == usize::MAX
                {
                    dist[p.peer as usize] = dist[u as usize] + 1;
                    q.push_back(p.peer);
                }
            }
        }
        usize::MAX
    }

    /// Checks every pair: routable, loop-free, up*/down*-legal; optionally minimal.
    fn check_all_pairs(f: &Fabric, minimal: bool) {
        let t = build(f).unwrap();
        let adj = adjacency(f, &t);
        let rank = ranks(f, &adj);
        for &a in &f.hcas {
            for &b in &f.hcas {
                let hops = t.route(f, a, b).unwrap();
                let mut gone_down = false;
                for &(s, p) in &hops {
                    let next = f.nodes[s as usize].ports[p as usize].peer;
                    if f.nodes[next as usize].kind != NodeKind::Switch {
                        continue;
                    }
                    let (ru, rv) = (
                        rank[t.switch_index[s as usize] as usize],
                        rank[t.switch_index[next as usize] as usize],
                    );
                    if rv > ru {
                        gone_down = true;
                    } else {
                        assert!(!gone_down, "down → up turn at {}", f.nodes[s as usize].name);
                    }
                }
                if minimal {
                    assert_eq!(hops.len(), bfs_hops(f, a, b));
                }
            }
        }
    }

    #[test]
    fn testbed_all_pairs() {
        let f = testbed();
        check_all_pairs(&f, true);
        let t = build(&f).unwrap();
        // S1 → H5: port 3 (to S2); S2 → H5: port 1
        assert_eq!(t.out_port(f.by_name["S1"], 5), 3);
        assert_eq!(t.out_port(f.by_name["S2"], 5), 1);
        assert_eq!(t.out_port(f.by_name["S2"], 1), 4);
    }

    #[test]
    fn mesh_3x3_all_pairs_minimal() {
        check_all_pairs(&mesh(TopologyKind::Mesh, &[3, 3], 2, None), true);
    }

    #[test]
    fn larger_meshes_tori_and_trees_legal() {
        check_all_pairs(&mesh(TopologyKind::Mesh, &[5, 5], 1, None), false);
        check_all_pairs(&mesh(TopologyKind::Torus, &[4, 4], 1, None), false);
        check_all_pairs(&mesh(TopologyKind::Torus, &[2, 3], 1, None), false);
        check_all_pairs(&tree(&tree_cfg(Some(4), Some(2), None, None)), true);
        check_all_pairs(&tree(&tree_cfg(Some(2), Some(3), None, None)), true);
    }

    #[test]
    fn spreads_over_equal_candidates() {
        // 4-ary 2-tree: root is a leaf (L1_1, lowest id among the 4-link switches); from L1_2 to
        // L1_3 there are four equal up ports; consecutive LIDs use different ones
        let f = tree(&tree_cfg(Some(4), Some(2), None, None));
        let t = build(&f).unwrap();
        let l12 = f.by_name["L1_2"];
        let ports: Vec<u16> = (9..=12).map(|l| t.out_port(l12, l)).collect();
        let mut sorted = ports.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 4, "{ports:?}");
    }

    #[test]
    fn unreachable_destinations_have_no_port() {
        let dir = tempfile::tempdir().unwrap();
        // C and D form an island (self-loops are refused, so C gets a neighbour)
        let text = "switch A\nswitch B\nswitch C\nswitch D\nhca H1\nhca H2\nhca H3\nlink H1 A\nlink H2 B\nlink H3 C\nlink A B\nlink C D\n";
        std::fs::write(dir.path().join("t.topo"), text).unwrap();
        let c = crate::config::FileTopologyConfig {
            file: "t.topo".into(),
        };
        let l = crate::topology::mesh_torus::tests::link();
        let f = crate::topology::file::build(&c, dir.path(), l, l).unwrap();
        let t = build(&f).unwrap();
        let (h1, h2, h3) = (f.by_name["H1"], f.by_name["H2"], f.by_name["H3"]);
        assert_eq!(t.route(&f, h1, h2).unwrap().len(), 2);
        assert_eq!(t.route(&f, h3, h3).unwrap().len(), 1);
        assert_eq!(t.out_port(f.by_name["A"], 3), NO_PORT);
        let e = t.route(&f, h1, h3).unwrap_err().to_string();
        assert!(e.contains("unreachable"), "{e}");
    }

    #[test]
    fn ring_of_five() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = String::new();
        for i in 0..5 {
            text += &format!("switch S{i}\nhca H{i}\nlink H{i} S{i}\n");
        }
        for i in 0..5 {
            text += &format!("link S{i} S{}\n", (i + 1) % 5);
        }
        std::fs::write(dir.path().join("r.topo"), text).unwrap();
        let c = crate::config::FileTopologyConfig {
            file: "r.topo".into(),
        };
        let l = crate::topology::mesh_torus::tests::link();
        let f = crate::topology::file::build(&c, dir.path(), l, l).unwrap();
        check_all_pairs(&f, false);
    }
}
