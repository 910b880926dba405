//! OpenSM's `updn` engine (`osm_ucast_updn.c`; `doc/current-routing.txt`, "UPDN Routing
//! Algorithm"): min-hop restricted to up/down routes, then OpenSM's port choice
//! (`port_choice.rs`). It is not lnsim's `updown` (`credit/routing/updown.rs`: one root by most
//! links, `dlid mod count` spreading).
//!
//! 1. **Roots**: `routing.roots` (OpenSM's `root_guid_file`), or detected: on the min-hop
//!    matrix, a switch is a root when, in the histogram of its least hops to every HCA's switch
//!    (weighted by HCAs), exactly one bar exceeds 90 % of the HCAs and exactly one exceeds 5 %
//!    (`updn_find_root_nodes_by_min_hop`). None found: an error (OpenSM would fall back to
//!    minhop).
//! 2. **Ranks**: BFS distance from the roots over switch links.
//! 3. **Direction** of a step from switch a to b: towards a lower rank is UP; equal ranks: UP
//!    when a's id ([`super::opensm_id`], OpenSM: the node GUID) is larger; two roots: UP.
//! 4. **Hop matrix**: per destination switch (in table order) a BFS from it outwards along
//!    reversed routes; a step from a switch reached going DOWN to an UP neighbour is not taken
//!    (so no route goes down then up); a neighbour's hop count through the port towards the
//!    current switch is set when it improves, and a switch keeps the direction of the step that
//!    first queued it (`updn_bfs_by_node`). `connect_roots` is not modelled (OpenSM's default
//!    is off).

use super::port_choice::{build_lfts, HopMatrix, NO_PATH};
use super::{opensm_id, Frame};
use crate::credit::routing::ForwardingTables;
use crate::error::{Error, Result};
use crate::topology::Fabric;
use std::collections::VecDeque;

/// IB's most hops on a path (`IB_SUBNET_PATH_HOPS_MAX`): the histogram's length.
const PATH_HOPS_MAX: usize = 64;

/// The `updn` tables of `fabric`, from `roots` (switch numbers) or detected ones.
pub fn build(fabric: &Fabric, frame: &Frame, roots: Option<&[u32]>) -> Result<ForwardingTables> {
    let roots = match roots {
        Some(r) => r.to_vec(),
        None => detect_roots(frame, &HopMatrix::minhop(fabric, frame)),
    };
    if roots.is_empty() {
        return Err(Error::input(
            "routing.engine",
            "updn found no root switch (OpenSM's rule: exactly one bar of a switch's hop histogram to the HCAs above 90 % and exactly one above 5 %); name them with routing.roots",
        ));
    }
    let rank = ranks(frame, &roots);
    let hops = updn_hops(fabric, frame, &rank);
    build_lfts(fabric, frame, &hops, false)
}

/// The switches OpenSM's histogram rule makes roots, in table order.
pub fn detect_roots(frame: &Frame, minhop: &HopMatrix) -> Vec<u32> {
    let n = frame.len() as u32;
    let cas: usize = frame.hcas.iter().map(Vec::len).sum();
    let (thd1, thd2) = (cas as f64 * 0.9, cas as f64 * 0.05);
    (0..n)
        .filter(|&s| {
            let mut hist = [0usize; PATH_HOPS_MAX];
            for t in 0..n {
                let c = frame.hcas[t as usize].len();
                let h = minhop.least(s, t) as usize;
                if c > 0 && h < PATH_HOPS_MAX {
                    hist[h] += c;
                }
            }
            let over1 = hist.iter().filter(|&&c| c as f64 > thd1).count();
            let over2 = hist.iter().filter(|&&c| c as f64 > thd2).count();
            over1 == 1 && over2 == 1
        })
        .collect()
}

/// BFS distance of every switch from the roots (`u32::MAX`: not connected to one).
pub fn ranks(frame: &Frame, roots: &[u32]) -> Vec<u32> {
    let mut rank = vec![u32::MAX; frame.len()];
    let mut queue = VecDeque::new();
    // the roots enter the queue in table order (`updn_subn_rank`)
    for s in 0..frame.len() as u32 {
        if roots.contains(&s) {
            rank[s as usize] = 0;
            queue.push_back(s);
        }
    }
    while let Some(u) = queue.pop_front() {
        for &(_, r) in &frame.isl[u as usize] {
            if rank[r as usize] > rank[u as usize] + 1 {
                rank[r as usize] = rank[u as usize] + 1;
                queue.push_back(r);
            }
        }
    }
    rank
}

/// Whether a step from a switch of rank `cur` and id `cur_id` to one of rank `rem` and id
/// `rem_id` goes up (`updn_get_dir`).
pub fn is_up(cur: u32, rem: u32, cur_id: u64, rem_id: u64) -> bool {
    if cur == 0 && rem == 0 {
        return true;
    }
    match cur.cmp(&rem) {
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Equal => cur_id > rem_id,
    }
}

/// The up/down hop matrix (module docs, step 4).
fn updn_hops(fabric: &Fabric, frame: &Frame, rank: &[u32]) -> HopMatrix {
    let n = frame.len();
    let id: Vec<u64> = frame.node.iter().map(|&s| opensm_id(fabric, s)).collect();
    let mut m = HopMatrix::new(fabric, frame);
    let mut up = vec![false; n];
    let mut queued = vec![false; n];
    let mut queue = VecDeque::new();
    for t in 0..n as u32 {
        up[t as usize] = true;
        queue.push_back(t);
        while let Some(u) = queue.pop_front() {
            let u = u as usize;
            queued[u] = false;
            let cur_up = up[u];
            let ports = &fabric.nodes[frame.node[u] as usize].ports;
            for &(p, r) in &frame.isl[u] {
                let r = r as usize;
                let next_up = is_up(rank[u], rank[r], id[u], id[r]);
                if !cur_up && next_up {
                    continue;
                }
                let cur = m.least(u as u32, t);
                let rem_port = ports[p as usize].peer_port;
                if cur < NO_PATH - 1 && cur + 1 < m.get(r as u32, rem_port, t) {
                    m.set(r as u32, rem_port, t, cur + 1);
                    if !queued[r] {
                        up[r] = next_up;
                        queued[r] = true;
                        queue.push_back(r as u32);
                    }
                }
            }
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::super::test_fabrics::{from_edges, from_topology};
    use super::*;

    /// Every route of `t` from every HCA to every other one, as switch numbers.
    fn routes(f: &Fabric, frame: &Frame, t: &ForwardingTables) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        for &a in &f.hcas {
            for &b in &f.hcas {
                if a != b {
                    let hops = t.route(f, a, b).unwrap();
                    out.push(
                        hops.iter()
                            .map(|&(s, _)| frame.number[s as usize])
                            .collect(),
                    );
                }
            }
        }
        out
    }

    /// A ring of six switches with a chord S1-S4 (cycles of 4 and 6 switches), one HCA each.
    const RING_WITH_CHORD: &str =
        "switch S0\nswitch S1\nswitch S2\nswitch S3\nswitch S4\nswitch S5\n\
        hca H0\nhca H1\nhca H2\nhca H3\nhca H4\nhca H5\n\
        link H0 S0\nlink H1 S1\nlink H2 S2\nlink H3 S3\nlink H4 S4\nlink H5 S5\n\
        link S0 S1\nlink S1 S2\nlink S2 S3\nlink S3 S4\nlink S4 S5\nlink S5 S0\nlink S1 S4\n";

    #[test]
    fn updn_routes_never_go_down_then_up_on_a_fabric_with_cycles() {
        let f = from_edges(RING_WITH_CHORD);
        let frame = Frame::new(&f);
        let id: Vec<u64> = frame.node.iter().map(|&s| opensm_id(&f, s)).collect();
        for roots in [vec![0u32], vec![3], vec![1, 4]] {
            let t = build(&f, &frame, Some(&roots)).unwrap();
            assert!(
                super::super::test_fabrics::deadlock_free(&f, &t),
                "roots {roots:?}"
            );
            let rank = ranks(&frame, &roots);
            for r in routes(&f, &frame, &t) {
                let mut went_down = false;
                for w in r.windows(2) {
                    let (a, b) = (w[0] as usize, w[1] as usize);
                    let up = is_up(rank[a], rank[b], id[a], id[b]);
                    assert!(
                        !(went_down && up),
                        "roots {roots:?}: route {r:?} goes down then up"
                    );
                    went_down |= !up;
                }
            }
        }
        // the check can fail: min-hop's routes on the same fabric go down then up for a root
        let m = super::super::minhop::build(&f, &frame).unwrap();
        let rank = ranks(&frame, &[0]);
        let bad = routes(&f, &frame, &m).iter().any(|r| {
            let mut went_down = false;
            r.windows(2).any(|w| {
                let (a, b) = (w[0] as usize, w[1] as usize);
                let up = is_up(rank[a], rank[b], id[a], id[b]);
                let turn = went_down && up;
                went_down |= !up;
                turn
            })
        });
        assert!(
            bad,
            "min-hop obeys up/down here: the fabric does not test the rule"
        );
    }

    #[test]
    fn updn_detects_the_spines_of_a_three_level_fat_tree_and_routes_minimally() {
        // 2-ary 3-tree: 4 leaves (2 HCAs each), 4 middle, 4 top switches
        let f = from_topology("kind = \"fat_tree\"\ndown = [2, 2, 2]\nup = [1, 2, 2]\n");
        let frame = Frame::new(&f);
        let roots = detect_roots(&frame, &HopMatrix::minhop(&f, &frame));
        let names: Vec<&str> = roots
            .iter()
            .map(|&s| f.nodes[frame.node[s as usize] as usize].name.as_str())
            .collect();
        // each top switch sees every HCA 2 hops away (100 % in one bar); a leaf sees 25 % at 0
        // or 2 hops, a middle switch 50 % at 1 hop: neither is a root
        let top: Vec<&str> = f
            .switches
            .iter()
            .filter(|&&s| f.nodes[s as usize].level == 3)
            .map(|&s| f.nodes[s as usize].name.as_str())
            .collect();
        assert_eq!(names, top);
        let t = build(&f, &frame, None).unwrap();
        let dist = frame.least_hops();
        let n = frame.len();
        for r in routes(&f, &frame, &t) {
            let (a, b) = (r[0] as usize, *r.last().unwrap() as usize);
            assert_eq!(
                r.len() - 1,
                dist[a * n + b] as usize,
                "{r:?} is not minimal"
            );
        }
    }

    #[test]
    fn updn_without_a_detectable_root_is_refused_naming_routing_roots() {
        // a ring of four: every switch sees 25 % of the HCAs at 0 and 2 hops, 50 % at 1
        let f = from_edges(
            "switch S0\nswitch S1\nswitch S2\nswitch S3\nhca H0\nhca H1\nhca H2\nhca H3\n\
             link H0 S0\nlink H1 S1\nlink H2 S2\nlink H3 S3\n\
             link S0 S1\nlink S1 S2\nlink S2 S3\nlink S3 S0\n",
        );
        let e = build(&f, &Frame::new(&f), None).unwrap_err().to_string();
        assert!(e.contains("routing.roots") && e.contains("no root"), "{e}");
    }
}
