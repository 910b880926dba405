//! D-mod-k routing for fat trees (XGFT; spec §4.2, §4.6; Zahavi's / Gómez et al.'s
//! destination-mod-k, deterministic and minimal).
//!
//! Labels, levels and ports are those of [`crate::topology::fat_tree`]. For destination LID L
//! (d = L − 1, label a_1..a_h) a switch of level l with label (b_1..b_l, a'_{l+1}..a'_h):
//! - is an ancestor of the destination if a'_i = a_i for every i > l; it then goes down to the
//!   child on the destination's side, port a_l (at a leaf: the HCA's port);
//! - otherwise goes up, to parent `p = ⌊d / W_l⌋ mod up[l]` with `W_l = up[0]·…·up[l−1]`,
//!   i.e. port `down[l−1] + p`.
//!
//! With `routing.dmodk_digits = "high_first"` the parent is `⌊d / W'_l⌋ mod up[l]` with
//! `W'_l = up[l+1]·…·up[h−1]`: the most significant digits choose the first up ports, so a
//! leaf sends groups of consecutive destinations through one up port (drb-and-ddbbm spec B.6's
//! "plateaus of 4 consecutive nodes" of a perfect-shuffle BMIN).
//!
//! Packets climb exactly to the lowest common ancestor level, so routes are minimal. The parent
//! digits b_2.. chosen on the way up depend only on d, so all routes to one destination converge
//! on one switch per level (one spine per destination in a two-level Clos; the 648-node
//! `down = [18, 36], up = [1, 18]` tree gives each spine 36 destinations) and consecutive
//! destinations are spread over the up ports.

use crate::config::DmodkDigits;
use crate::credit::routing::ForwardingTables;
use crate::error::{Error, Result};
use crate::topology::fat_tree::{decode, level_sizes, radices};
use crate::topology::{Fabric, Shape};

/// Builds D-mod-k forwarding tables for a fabric with [`Shape::FatTree`] (see module docs).
pub fn build(fabric: &Fabric, digits: DmodkDigits) -> Result<ForwardingTables> {
    let Shape::FatTree { down, up } = &fabric.shape else {
        return Err(Error::Internal(
            "dmodk::build needs a fat-tree fabric".into(),
        ));
    };
    let h = down.len();
    let sizes =
        level_sizes(down, up).ok_or_else(|| Error::Internal("dmodk: fat tree too large".into()))?;
    let nsw: u64 = sizes[1..].iter().sum();
    if nsw != fabric.switches.len() as u64 || sizes[0] != fabric.hcas.len() as u64 {
        return Err(Error::Internal(
            "dmodk: fabric does not match its fat-tree shape".into(),
        ));
    }
    let mut tables = ForwardingTables::empty(fabric);
    let dest: Vec<Vec<u32>> = (0..sizes[0])
        .map(|d| decode(d, &radices(down, up, 0)))
        .collect();
    let mut si = 0usize;
    for l in 1..=h {
        let r = radices(down, up, l);
        let w: u64 = match digits {
            DmodkDigits::LowFirst => up[..l].iter().map(|&x| x as u64).product(),
            DmodkDigits::HighFirst => up[(l + 1).min(h)..].iter().map(|&x| x as u64).product(),
        };
        for i in 0..sizes[l] {
            let sw = fabric.switches[si];
            si += 1;
            if fabric.nodes[sw as usize].level as usize != l {
                return Err(Error::Internal(format!(
                    "dmodk: switch {} is not on level {l}",
                    fabric.nodes[sw as usize].name
                )));
            }
            let label = decode(i, &r);
            for (d, a) in dest.iter().enumerate() {
                let port = if label[l..] == a[l..] {
                    a[l - 1]
                } else {
                    down[l - 1] + ((d as u64 / w) % up[l] as u64) as u32
                };
                tables.set(sw, d as u32 + 1, port as u16);
            }
        }
    }
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::fat_tree::tests::{cfg, tree};
    use crate::topology::{NodeId, NodeKind};
    use std::collections::{HashMap, HashSet};

    /// Switches of a route.
    fn switches(f: &Fabric, t: &ForwardingTables, a: NodeId, b: NodeId) -> Vec<NodeId> {
        t.route(f, a, b).unwrap().iter().map(|&(s, _)| s).collect()
    }

    #[test]
    fn clos_648_three_switch_routes_and_balanced_spines() {
        let f = tree(&cfg(None, None, Some(vec![18, 36]), Some(vec![1, 18])));
        let t = build(&f, DmodkDigits::LowFirst).unwrap();
        // destinations per spine
        let mut spine_of: HashMap<NodeId, NodeId> = HashMap::new();
        for (j, &a) in f.hcas.iter().enumerate() {
            for (i, &b) in f.hcas.iter().enumerate() {
                let sw = switches(&f, &t, a, b);
                if j / 18 == i / 18 {
                    assert_eq!(sw.len(), 1);
                } else {
                    assert_eq!(sw.len(), 3);
                    assert_eq!(f.nodes[sw[1] as usize].level, 2);
                    // converge: every source uses the same spine for destination b
                    assert_eq!(*spine_of.entry(b).or_insert(sw[1]), sw[1]);
                }
            }
        }
        let mut per_spine: HashMap<NodeId, usize> = HashMap::new();
        for s in spine_of.values() {
            *per_spine.entry(*s).or_default() += 1;
        }
        assert_eq!(per_spine.len(), 18);
        assert!(per_spine.values().all(|&c| c == 36));
        // consecutive LIDs leave a leaf through different up ports
        let l1 = f.by_name["L1_1"];
        let ports: HashSet<u16> = (19..=36).map(|l| t.out_port(l1, l)).collect();
        assert_eq!(ports.len(), 18);
    }

    /// Shortest switch-hop distance between the switches of two HCAs.
    fn bfs(f: &Fabric, a: NodeId, b: NodeId) -> usize {
        let (s, g) = (
            f.nodes[a as usize].ports[0].peer,
            f.nodes[b as usize].ports[0].peer,
        );
        let mut dist = vec![usize::MAX; f.nodes.len()];
        dist[s as usize] = 1;
        let mut q = std::collections::VecDeque::from([s]);
        while let Some(u) = q.pop_front() {
            for p in &f.nodes[u as usize].ports {
                if f.nodes[p.peer as usize].kind == NodeKind::Switch
                    && dist[p.peer as usize] == usize::MAX
                {
                    dist[p.peer as usize] = dist[u as usize] + 1;
                    q.push_back(p.peer);
                }
            }
        }
        dist[g as usize]
    }

    #[test]
    fn k_ary_n_tree_all_pairs_minimal_and_converging() {
        for (k, n, digits) in [
            (4, 3, DmodkDigits::LowFirst),
            (2, 4, DmodkDigits::LowFirst),
            (3, 2, DmodkDigits::LowFirst),
            (5, 1, DmodkDigits::LowFirst),
            (4, 3, DmodkDigits::HighFirst),
            (2, 4, DmodkDigits::HighFirst),
        ] {
            let f = tree(&cfg(Some(k), Some(n), None, None));
            let t = build(&f, digits).unwrap();
            let mut top_of: HashMap<(NodeId, u32), NodeId> = HashMap::new();
            for &a in &f.hcas {
                for &b in &f.hcas {
                    let sw = switches(&f, &t, a, b);
                    assert_eq!(sw.len(), bfs(&f, a, b), "k={k} n={n}");
                    // the highest switch, per destination and level, is the same for all sources
                    let top = sw[sw.len() / 2];
                    let lvl = f.nodes[top as usize].level;
                    assert_eq!(*top_of.entry((b, lvl)).or_insert(top), top);
                }
            }
        }
    }

    #[test]
    fn the_digit_order_decides_which_destinations_share_a_leaf_up_port() {
        // 4-ary 3-tree: a leaf's up port for destination d is d mod 4 (low first) or
        // ⌊d/4⌋ mod 4 (high first: four consecutive destinations per port)
        let f = tree(&cfg(Some(4), Some(3), None, None));
        let leaf = f.by_name["L1_1"];
        for (digits, port_of) in [
            (DmodkDigits::LowFirst, (|d: u32| d % 4) as fn(u32) -> u32),
            (DmodkDigits::HighFirst, |d: u32| (d / 4) % 4),
        ] {
            let t = build(&f, digits).unwrap();
            for d in 16..64u32 {
                assert_eq!(
                    t.out_port(leaf, d + 1) as u32,
                    4 + port_of(d),
                    "{digits:?} d={d}"
                );
            }
        }
    }

    #[test]
    fn general_xgft_all_pairs_minimal() {
        // XGFT(3; 2,3,4; 1,2,2): 24 HCAs
        let f = tree(&cfg(None, None, Some(vec![2, 3, 4]), Some(vec![1, 2, 2])));
        let t = build(&f, DmodkDigits::LowFirst).unwrap();
        for &a in &f.hcas {
            for &b in &f.hcas {
                assert_eq!(switches(&f, &t, a, b).len(), bfs(&f, a, b));
            }
        }
    }

    #[test]
    fn rejects_other_shapes() {
        let mut f = tree(&cfg(Some(2), Some(2), None, None));
        f.shape = Shape::Generic;
        assert!(build(&f, DmodkDigits::LowFirst).is_err());
    }
}
