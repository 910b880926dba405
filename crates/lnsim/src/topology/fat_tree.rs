//! Fat trees: k-ary n-trees and extended generalized fat trees (XGFT) (spec §4.2, §4.6).
//!
//! # Parameters
//! - `k`, `n`: a k-ary n-tree (Z-Fig 2.1), which is XGFT(n; down = [k; n], up = [1, k, …, k]).
//! - `down`, `up` (same length h, bottom up): `down[i]` = children per switch of level i+1,
//!   `up[i]` = parents per node of level i (level 0 = HCAs, so `up[0]` must be 1). Example: the
//!   648-port three-stage Clos of spec §4.2 is `down = [18, 36], up = [1, 18]`: 36 leaf switches
//!   with 18 HCAs and 18 uplinks, 18 spines with 36 down ports.
//!
//! # Wiring (Öhring et al., XGFT)
//! A node of level l (0 = HCA, 1 = leaf switch, …, h = top) has a label of h digits, position
//! i = 1..h: for i > l the digit a_i ∈ `[0, down[i−1])`, for i ≤ l the digit b_i ∈ `[0, up[i−1])`.
//! A level-(l−1) node and a level-l node are linked iff their labels agree in every position but
//! l. So a level-l switch has `down[l−1]` children and `up[l]` parents; no links are parallel.
//! Within a level, nodes are numbered by their label as a mixed-radix number with position 1
//! least significant; hence HCA j (0-based) is on leaf `j / down[0]` at port `j mod down[0]`.
//!
//! # Names, LIDs, ports
//! HCAs are `H1`..`H<N>` with LID = the number (LIDs in label order). Switches are
//! `L{level}_{index}`, level 1 = leaves, index 1-based within the level (`L1_1`..`L1_36`,
//! `L2_1`..`L2_18`); [`Node::level`](super::Node) is that level (HCAs: 0). Ports of a switch: the
//! down ports first, in child order (port c = child with digit a_l = c), then the up ports in
//! parent order (port down[l−1] + p = parent with digit b_{l+1} = p). Host links use
//! `[links.host]`, switch ↔ switch links `[links.fabric]`.

use crate::config::FatTreeConfig;
use crate::error::{Error, Result};
use crate::topology::{Fabric, LinkClass, LinkParams, NodeKind, Shape};

/// Largest fabric (switches + HCAs) a fat tree may have.
const MAX_NODES: u64 = 1_000_000;

/// The checked XGFT parameters `(down, up)` of `[topology]` and the node count of each level
/// (errors name the key; the tree stays within [`MAX_NODES`] and 65535 ports per switch).
fn checked(t: &FatTreeConfig) -> Result<(Vec<u32>, Vec<u32>, Vec<u64>)> {
    let (down, up) = params(t)?;
    let h = down.len();
    let key = if t.k.is_some() {
        "topology.k"
    } else {
        "topology.down"
    };
    let counts = level_sizes(&down, &up)
        .filter(|c| {
            c.iter()
                .try_fold(0u64, |a, &x| a.checked_add(x))
                .is_some_and(|n| n <= MAX_NODES)
        })
        .ok_or_else(|| {
            Error::input(
                key,
                format!(
                    "fat tree down = {down:?}, up = {up:?} exceeds the limit of {MAX_NODES} nodes"
                ),
            )
        })?;
    for l in 1..=h {
        let ports = down[l - 1] as u64 + if l < h { up[l] as u64 } else { 0 };
        if ports > u16::MAX as u64 {
            return Err(Error::input(
                key,
                format!(
                    "level-{l} switches would have {ports} ports (limit {})",
                    u16::MAX
                ),
            ));
        }
    }
    Ok((down, up, counts))
}

/// The size of the fat tree `t` describes, without building it (for the memory estimate).
pub fn size(t: &FatTreeConfig) -> Result<super::FabricSize> {
    let (down, up, counts) = checked(t)?;
    let h = down.len();
    // every node of level l−1 has up[l−1] links to level l
    let links: u64 = (1..=h).map(|l| counts[l - 1] * up[l - 1] as u64).sum();
    let max_ports = (1..=h)
        .map(|l| down[l - 1] as u64 + if l < h { up[l] as u64 } else { 0 })
        .max()
        .unwrap_or(1);
    Ok(super::FabricSize {
        switches: counts[1..].iter().sum(),
        hcas: counts[0],
        ports: 2 * links,
        max_ports,
        name_bytes: 12,
        coords: 0,
    })
}

/// Builds a fat tree from `[topology]` (`kind = "fat_tree"`, spec §4.2, §4.6); see the module
/// documentation for the wiring, names and port order.
pub fn build(t: &FatTreeConfig, host: LinkParams, fabric: LinkParams) -> Result<Fabric> {
    let (down, up, counts) = checked(t)?;
    let h = down.len();
    let mut f = Fabric::new(Shape::FatTree {
        down: down.clone(),
        up: up.clone(),
    });
    let mut first = vec![0u32; h + 1]; // node id of the first node of each level
    for l in 1..=h {
        first[l] = f.nodes.len() as u32;
        for i in 0..counts[l] {
            f.add_node(
                format!("L{l}_{}", i + 1),
                NodeKind::Switch,
                Vec::new(),
                l as u32,
            )?;
        }
    }
    first[0] = f.nodes.len() as u32;
    for i in 0..counts[0] {
        f.add_node(format!("H{}", i + 1), NodeKind::Hca, Vec::new(), 0)?;
    }
    // Links level l−1 → l in child index order, parents in order: `connect` then hands out the
    // down ports of each parent in child order and the up ports after them (see module doc).
    for l in 1..=h {
        let lower = radices(&down, &up, l - 1);
        let upper = radices(&down, &up, l);
        let (class, link) = if l == 1 {
            (LinkClass::Host, host)
        } else {
            (LinkClass::Fabric, fabric)
        };
        for x in 0..counts[l - 1] {
            let mut digits = decode(x, &lower);
            for p in 0..up[l - 1] {
                digits[l - 1] = p;
                let y = encode(&digits, &upper);
                f.connect(first[l - 1] + x as u32, first[l] + y as u32, class, link);
            }
        }
    }
    Ok(f)
}

/// Resolves `k`/`n` or `down`/`up` into the XGFT parameters, with errors naming the key.
fn params(t: &FatTreeConfig) -> Result<(Vec<u32>, Vec<u32>)> {
    let kn = t.k.is_some() || t.n.is_some();
    let du = t.down.is_some() || t.up.is_some();
    if kn && du {
        let key = if t.down.is_some() {
            "topology.down"
        } else {
            "topology.up"
        };
        return Err(Error::input(
            key,
            "give either `k` and `n` (k-ary n-tree) or `down` and `up` (XGFT), not both",
        ));
    }
    if kn {
        let k = t.k.ok_or_else(|| {
            Error::input(
                "topology.k",
                "missing: a k-ary n-tree needs both `k` and `n`",
            )
        })?;
        let n = t.n.ok_or_else(|| {
            Error::input(
                "topology.n",
                "missing: a k-ary n-tree needs both `k` and `n`",
            )
        })?;
        if k == 0 {
            return Err(Error::input("topology.k", "must be at least 1"));
        }
        if n == 0 {
            return Err(Error::input("topology.n", "must be at least 1"));
        }
        if n as u64 > MAX_NODES {
            return Err(Error::input(
                "topology.n",
                format!("{n} levels exceed the limit of {MAX_NODES} nodes"),
            ));
        }
        let down = vec![k; n as usize];
        let mut up = vec![k; n as usize];
        up[0] = 1;
        return Ok((down, up));
    }
    if !du {
        return Err(Error::input(
            "topology.k",
            "missing: a fat_tree needs `k` and `n` (k-ary n-tree) or `down` and `up` (XGFT)",
        ));
    }
    let down = t.down.clone().ok_or_else(|| {
        Error::input(
            "topology.down",
            "missing: the XGFT form needs both `down` and `up`",
        )
    })?;
    let up = t.up.clone().ok_or_else(|| {
        Error::input(
            "topology.up",
            "missing: the XGFT form needs both `down` and `up`",
        )
    })?;
    if down.is_empty() {
        return Err(Error::input(
            "topology.down",
            "is empty: give the children per switch at each level, e.g. [18, 36]",
        ));
    }
    if up.len() != down.len() {
        return Err(Error::input(
            "topology.up",
            format!(
                "has {} entries but `down` has {}; both list one value per level",
                up.len(),
                down.len()
            ),
        ));
    }
    if let Some(i) = down.iter().position(|&v| v == 0) {
        return Err(Error::input(
            "topology.down",
            format!("entry {i} is 0; every level needs at least 1 child"),
        ));
    }
    if let Some(i) = up.iter().position(|&v| v == 0) {
        return Err(Error::input(
            "topology.up",
            format!("entry {i} is 0; every level needs at least 1 parent"),
        ));
    }
    if up[0] != 1 {
        return Err(Error::input(
            "topology.up",
            format!("entry 0 is {}; it must be 1 (an HCA has one link)", up[0]),
        ));
    }
    Ok((down, up))
}

/// Number of nodes of each level 0..=h of XGFT(`down`, `up`) (level 0 = HCAs):
/// `Π_{i>l} down[i−1] · Π_{i≤l} up[i−1]`; `None` if a level exceeds 2^63.
pub fn level_sizes(down: &[u32], up: &[u32]) -> Option<Vec<u64>> {
    (0..=down.len())
        .map(|l| {
            radices(down, up, l).iter().try_fold(1u64, |acc, &r| {
                acc.checked_mul(r as u64).filter(|&v| v < 1 << 63)
            })
        })
        .collect()
}

/// Radix of each label position 1..h (index i−1) for a node of level `l`: `up[i−1]` for i ≤ l,
/// else `down[i−1]` (see the module documentation).
pub fn radices(down: &[u32], up: &[u32], l: usize) -> Vec<u32> {
    (0..down.len())
        .map(|i| if i < l { up[i] } else { down[i] })
        .collect()
}

/// Label digits (position 1 first) of the node with index `x` within its level.
pub fn decode(mut x: u64, radices: &[u32]) -> Vec<u32> {
    radices
        .iter()
        .map(|&r| {
            let d = (x % r as u64) as u32;
            x /= r as u64;
            d
        })
        .collect()
}

/// Index within its level of the node with label `digits` (inverse of [`decode`]).
pub fn encode(digits: &[u32], radices: &[u32]) -> u64 {
    digits
        .iter()
        .zip(radices)
        .rev()
        .fold(0u64, |acc, (&d, &r)| acc * r as u64 + d as u64)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::topology::mesh_torus::tests::link;

    pub(crate) fn cfg(
        k: Option<u32>,
        n: Option<u32>,
        down: Option<Vec<u32>>,
        up: Option<Vec<u32>>,
    ) -> FatTreeConfig {
        FatTreeConfig { k, n, down, up }
    }

    /// Builds and checks a fat tree.
    pub(crate) fn tree(t: &FatTreeConfig) -> Fabric {
        let f = build(t, link(), link()).unwrap();
        f.check().unwrap();
        f
    }

    fn err(t: &FatTreeConfig) -> String {
        build(t, link(), link()).unwrap_err().to_string()
    }

    #[test]
    fn clos_648() {
        let f = tree(&cfg(None, None, Some(vec![18, 36]), Some(vec![1, 18])));
        assert_eq!(f.hcas.len(), 648);
        assert_eq!(f.switches.len(), 54);
        let leaves: Vec<_> = f
            .switches
            .iter()
            .filter(|&&s| f.nodes[s as usize].level == 1)
            .collect();
        let spines: Vec<_> = f
            .switches
            .iter()
            .filter(|&&s| f.nodes[s as usize].level == 2)
            .collect();
        assert_eq!((leaves.len(), spines.len()), (36, 18));
        for &&l in &leaves {
            let n = &f.nodes[l as usize];
            assert_eq!(n.ports.len(), 36);
            assert!(n.ports[..18]
                .iter()
                .all(|p| f.nodes[p.peer as usize].kind == NodeKind::Hca));
            assert!(n.ports[..18].iter().all(|p| p.class == LinkClass::Host));
            // every leaf reaches every spine exactly once
            let mut ups: Vec<_> = n.ports[18..].iter().map(|p| p.peer).collect();
            assert!(n.ports[18..].iter().all(|p| p.class == LinkClass::Fabric));
            ups.sort();
            ups.dedup();
            assert_eq!(ups.len(), 18);
        }
        for &&s in &spines {
            let n = &f.nodes[s as usize];
            assert_eq!(n.ports.len(), 36);
            assert!(n.ports.iter().all(|p| f.nodes[p.peer as usize].level == 1));
        }
        // HCA j on leaf j/18 port j%18
        for (j, &h) in f.hcas.iter().enumerate() {
            let n = &f.nodes[h as usize];
            assert_eq!(n.name, format!("H{}", j + 1));
            assert_eq!(n.lid as usize, j + 1);
            assert_eq!(
                f.nodes[n.ports[0].peer as usize].name,
                format!("L1_{}", j / 18 + 1)
            );
            assert_eq!(n.ports[0].peer_port as usize, j % 18);
        }
        assert_eq!(
            f.shape,
            Shape::FatTree {
                down: vec![18, 36],
                up: vec![1, 18]
            }
        );
    }

    #[test]
    fn k_ary_n_tree() {
        // 4-ary 2-tree (Z-Fig 2.1): 8 switches, 16 nodes
        let f = tree(&cfg(Some(4), Some(2), None, None));
        assert_eq!((f.switches.len(), f.hcas.len()), (8, 16));
        // 4-ary 3-tree: 3 levels of 16 switches, 64 nodes; top switches use only k down ports
        let f = tree(&cfg(Some(4), Some(3), None, None));
        assert_eq!((f.switches.len(), f.hcas.len()), (48, 64));
        for &s in &f.switches {
            let n = &f.nodes[s as usize];
            assert_eq!(n.ports.len(), if n.level == 3 { 4 } else { 8 });
            // down ports go one level down, up ports one level up
            for (p, port) in n.ports.iter().enumerate() {
                let peer_level = f.nodes[port.peer as usize].level as i64;
                let expect = if p < 4 {
                    n.level as i64 - 1
                } else {
                    n.level as i64 + 1
                };
                assert_eq!(peer_level, expect);
            }
        }
        assert_eq!(
            f.shape,
            Shape::FatTree {
                down: vec![4, 4, 4],
                up: vec![1, 4, 4]
            }
        );
        // labels round trip
        let r = radices(&[4, 4, 4], &[1, 4, 4], 2);
        for x in 0..16 {
            assert_eq!(encode(&decode(x, &r), &r), x);
        }
    }

    #[test]
    fn input_errors() {
        let e = err(&cfg(Some(4), Some(2), Some(vec![4]), None));
        assert!(e.starts_with("topology.down:"), "{e}");
        assert!(err(&cfg(Some(4), None, None, None)).starts_with("topology.n:"));
        assert!(err(&cfg(None, Some(2), None, None)).starts_with("topology.k:"));
        assert!(err(&cfg(Some(0), Some(2), None, None)).starts_with("topology.k:"));
        assert!(err(&cfg(Some(2), Some(0), None, None)).starts_with("topology.n:"));
        assert!(err(&cfg(None, None, None, None)).starts_with("topology.k:"));
        assert!(err(&cfg(None, None, Some(vec![4]), None)).starts_with("topology.up:"));
        assert!(err(&cfg(None, None, Some(vec![4, 4]), Some(vec![1]))).starts_with("topology.up:"));
        assert!(
            err(&cfg(None, None, Some(vec![4, 0]), Some(vec![1, 2]))).starts_with("topology.down:")
        );
        assert!(
            err(&cfg(None, None, Some(vec![4, 4]), Some(vec![1, 0]))).starts_with("topology.up:")
        );
        assert!(err(&cfg(None, None, Some(vec![4, 4]), Some(vec![2, 2])))
            .starts_with("topology.up: entry 0 is 2"));
        assert!(err(&cfg(None, None, Some(vec![]), Some(vec![]))).starts_with("topology.down:"));
        let e = err(&cfg(Some(64), Some(5), None, None));
        assert!(e.contains("exceeds the limit"), "{e}");
        let e = err(&cfg(Some(2), Some(4_000_000), None, None));
        assert!(e.starts_with("topology.n:"), "{e}");
        let e = err(&cfg(Some(u32::MAX), Some(3), None, None));
        assert!(e.contains("exceeds the limit"), "{e}");
    }

    #[test]
    fn single_switch_tree() {
        let f = tree(&cfg(Some(5), Some(1), None, None));
        assert_eq!((f.switches.len(), f.hcas.len()), (1, 5));
        assert_eq!(f.nodes[f.switches[0] as usize].name, "L1_1");
    }
}
