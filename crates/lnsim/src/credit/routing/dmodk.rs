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
//! With `"digit_sum"` the parent is `(a_l + … + a_h) mod up[l]`, the sum of the destination's
//! digits from level l up: (d_0 + d_1 + d_2) mod 4 at a 64-node BMIN's leaves. It is balanced
//! (a leaf's four nodes, or any other four destinations differing in one digit only, leave by
//! four different up ports), but the destinations sharing an up port are not one residue
//! class mod 4, so VOQsw's shared queues do not hold DBBM-4Q's classes (spec B.6, B.2).
//!
//! With `routing.dmodk_key = "source"` (S-mod-k, [`SourceUpPorts`]) the same rule reads the
//! *source's* digits, so the route depends on the pair, not on the destination alone: not a
//! forwarding table per DLID but a per-source table of up ports beside the tables (which
//! still give the way down), read by the switches and by the look-ahead with the packet's
//! source.
//!
//! Packets climb exactly to the lowest common ancestor level, so routes are minimal. The parent
//! digits b_2.. chosen on the way up depend only on d, so all routes to one destination converge
//! on one switch per level (one spine per destination in a two-level Clos; the 648-node
//! `down = [18, 36], up = [1, 18]` tree gives each spine 36 destinations) and consecutive
//! destinations are spread over the up ports.

use crate::config::{DmodkDigits, DmodkKey, RoutingConfig, Scenario};
use crate::credit::routing::multipath_routes;
use crate::credit::routing::route_balance::RouteBalance;
use crate::credit::routing::table_dependencies::TablesCheck;
use crate::credit::routing::tables::NO_PORT;
use crate::credit::routing::ForwardingTables;
use crate::engine::memory_budget::{MemoryEstimate, Phase};
use crate::error::{Error, Result};
use crate::topology::fat_tree::{decode, level_sizes, radices};
use crate::topology::{Fabric, FabricSize, NodeId, NodeKind, Shape};

/// A fat-tree fabric's labels (module docs): the level and label of every switch, the label
/// of every HCA, and the tree's radices.
struct Labels<'a> {
    down: &'a [u32],
    up: &'a [u32],
    /// Per node id: (level, label) of a switch; level 0 for an HCA.
    of: Vec<(usize, Vec<u32>)>,
    /// Label of HCA index d (LID d + 1).
    dest: Vec<Vec<u32>>,
}

impl<'a> Labels<'a> {
    /// The labels of `fabric`, which must be the fat tree its shape says.
    fn of(fabric: &'a Fabric) -> Result<Self> {
        let Shape::FatTree { down, up } = &fabric.shape else {
            return Err(Error::Internal(
                "dmodk::build needs a fat-tree fabric".into(),
            ));
        };
        let sizes = level_sizes(down, up)
            .ok_or_else(|| Error::Internal("dmodk: fat tree too large".into()))?;
        let nsw: u64 = sizes[1..].iter().sum();
        if nsw != fabric.switches.len() as u64 || sizes[0] != fabric.hcas.len() as u64 {
            return Err(Error::Internal(
                "dmodk: fabric does not match its fat-tree shape".into(),
            ));
        }
        let dest: Vec<Vec<u32>> = (0..sizes[0])
            .map(|d| decode(d, &radices(down, up, 0)))
            .collect();
        let mut of = vec![(0usize, Vec::new()); fabric.nodes.len()];
        let mut si = 0usize;
        for (l, &size) in sizes.iter().enumerate().skip(1) {
            let r = radices(down, up, l);
            for i in 0..size {
                let sw = fabric.switches[si];
                si += 1;
                if fabric.nodes[sw as usize].level as usize != l {
                    return Err(Error::Internal(format!(
                        "dmodk: switch {} is not on level {l}",
                        fabric.nodes[sw as usize].name
                    )));
                }
                of[sw as usize] = (l, decode(i, &r));
            }
        }
        Ok(Labels { down, up, of, dest })
    }

    /// The port switch `sw` forwards by towards HCA index `d` when the up ports are chosen
    /// by HCA index `key` (d itself for D-mod-k, the source for S-mod-k): down to the child
    /// on d's side if `sw` is an ancestor of d, else up to parent
    /// [`parent`](Self::parent)`(key, l)`.
    fn port(&self, sw: NodeId, d: usize, key: usize, digits: DmodkDigits) -> u32 {
        let (l, label) = &self.of[sw as usize];
        let (l, a) = (*l, &self.dest[d]);
        if label[l..] == a[l..] {
            a[l - 1]
        } else {
            self.down[l - 1] + self.parent(key, l, digits)
        }
    }

    /// The parent (0 .. up\[l\]) a level-`l` switch goes up to, from the digits of HCA index
    /// `key` read as `digits` says (module docs).
    fn parent(&self, key: usize, l: usize, digits: DmodkDigits) -> u32 {
        let (up, h) = (self.up, self.down.len());
        let m = up[l] as u64;
        let w: u64 = match digits {
            DmodkDigits::LowFirst => up[..l].iter().map(|&x| x as u64).product(),
            DmodkDigits::HighFirst => up[(l + 1).min(h)..].iter().map(|&x| x as u64).product(),
            DmodkDigits::DigitSum => {
                let sum: u64 = self.dest[key][l - 1..].iter().map(|&x| x as u64).sum();
                return (sum % m) as u32;
            }
        };
        ((key as u64 / w) % m) as u32
    }
}

/// Builds D-mod-k forwarding tables for a fabric with [`Shape::FatTree`] (see module docs).
pub fn build(fabric: &Fabric, digits: DmodkDigits) -> Result<ForwardingTables> {
    let labels = Labels::of(fabric)?;
    let mut tables = ForwardingTables::empty(fabric);
    for &sw in &fabric.switches {
        for d in 0..labels.dest.len() {
            let port = labels.port(sw, d, d, digits);
            tables.set(sw, d as u32 + 1, port as u16);
        }
    }
    Ok(tables)
}

/// S-mod-k's per-source table (`routing.dmodk_key = "source"`, drb-and-ddbbm spec B.6
/// "deterministic routing"): for every switch and source HCA, the up port a packet from that
/// source takes there (`Labels::parent` of the *source's* digits). A route goes down exactly
/// where the destination's forwarding tables go down (at an ancestor of the destination, the
/// child on its side: the same in D-mod-k and S-mod-k), so a switch's output for a packet is
/// its table entry when that is a down port, else this table's up port
/// ([`SourceUpPorts::port`]). With `low_first` on a k-ary n-tree the up port at level l is the
/// source's digit l, i.e. the index of the down port the packet came in by: the routes from
/// one source fan out over the top switches, and the routes to one destination converge only
/// on its own subtree's way down.
#[derive(Debug, Clone)]
pub struct SourceUpPorts {
    /// HCAs (sources).
    hcas: u32,
    /// Per node id: its first up port (`down[l − 1]` at level l; [`NO_PORT`] for an HCA).
    first_up: Vec<u16>,
    /// Per (node id · hcas + source): the up port; [`NO_PORT`] at the top level.
    up: Vec<u16>,
}

/// Bytes [`SourceUpPorts`] takes for `nodes` nodes and `hcas` HCAs (the memory estimate).
pub fn source_up_bytes(nodes: u64, hcas: u64) -> u64 {
    nodes
        .saturating_mul(hcas.saturating_add(1))
        .saturating_mul(2)
}

impl SourceUpPorts {
    /// The table of a fat-tree fabric, the up ports chosen by the source's digits as `digits`
    /// says (module docs).
    pub fn build(fabric: &Fabric, digits: DmodkDigits) -> Result<Self> {
        let labels = Labels::of(fabric)?;
        let (n, h) = (fabric.hcas.len(), labels.down.len());
        let mut first_up = vec![NO_PORT; fabric.nodes.len()];
        let mut up = vec![NO_PORT; fabric.nodes.len() * n];
        for &sw in &fabric.switches {
            let l = labels.of[sw as usize].0;
            first_up[sw as usize] = labels.down[l - 1] as u16;
            if l < h {
                for s in 0..n {
                    up[sw as usize * n + s] =
                        (labels.down[l - 1] + labels.parent(s, l, digits)) as u16;
                }
            }
        }
        Ok(SourceUpPorts {
            hcas: n as u32,
            first_up,
            up,
        })
    }

    /// The output of switch `sw` for a packet from HCA index `src` whose destination's table
    /// entry there is `table_port`: that entry when it goes down (or is missing), else the
    /// source's up port. Hot path (`switch/input.rs`, the look-ahead of spec B.2).
    #[inline]
    pub fn port(&self, sw: NodeId, src: u32, table_port: u16) -> u16 {
        if table_port == NO_PORT || table_port < self.first_up[sw as usize] {
            table_port
        } else {
            self.up[sw as usize * self.hcas as usize + src as usize]
        }
    }

    /// The route HCA index `s` → `d` takes (output ports one per switch, the last to d;
    /// empty for s = d) under `lft`, the destination's tables this table completes.
    pub fn route(
        &self,
        fabric: &Fabric,
        lft: &ForwardingTables,
        s: u32,
        d: u32,
    ) -> Result<Vec<u16>> {
        let (src, dst) = (fabric.hcas[s as usize], fabric.hcas[d as usize]);
        let mut route = Vec::new();
        if s == d {
            return Ok(route);
        }
        let mut cur = fabric.nodes[src as usize].ports[0].peer;
        while fabric.nodes[cur as usize].kind == NodeKind::Switch {
            let port = self.port(cur, s, lft.out_port(cur, d + 1));
            if port == NO_PORT || route.len() > fabric.nodes.len() {
                return Err(Error::Internal(format!(
                    "dmodk: no S-mod-k route {} → {}",
                    fabric.nodes[src as usize].name, fabric.nodes[dst as usize].name
                )));
            }
            route.push(port);
            cur = fabric.nodes[cur as usize].ports[port as usize].peer;
        }
        if cur != dst {
            return Err(Error::Internal(format!(
                "dmodk: the S-mod-k route {} → {} ends at {}",
                fabric.nodes[src as usize].name,
                fabric.nodes[dst as usize].name,
                fabric.nodes[cur as usize].name
            )));
        }
        Ok(route)
    }
}

/// S-mod-k's share of the memory estimate (`routing.dmodk_key = "source"`): the per-source
/// table, kept, and every pair's route, held while [`source_routing`] checks them.
pub(crate) fn memory(s: &Scenario, f: &FabricSize, est: &mut MemoryEstimate) {
    if matches!(&s.routing, RoutingConfig::Dmodk(k) if k.dmodk_key == DmodkKey::Source) {
        est.add(
            "S-mod-k up ports per source",
            source_up_bytes(f.switches + f.hcas, f.hcas),
            Phase::Kept,
        );
        let mean_hops = 2 * (f.switches as f64).sqrt() as u64 + 2;
        est.add(
            "S-mod-k routes (start-up check)",
            multipath_routes::estimated_bytes(f.hcas, 1, mean_hops),
            Phase::Setup,
        );
    }
}

/// S-mod-k's table, the channel-dependency check of its routes (every ordered pair, one VL
/// layer: the routes climb then descend, so they cannot close a cycle; the check proves it for
/// the fabric at hand) and the routes per link (`route_balance` in the summary, `routes.csv`).
/// `vls` is `switch.vls`.
pub fn source_routing(
    fabric: &Fabric,
    lft: &ForwardingTables,
    digits: DmodkDigits,
    vls: u32,
) -> Result<(SourceUpPorts, TablesCheck, RouteBalance)> {
    let table = SourceUpPorts::build(fabric, digits)?;
    let n = fabric.hcas.len() as u32;
    let mut routes = Vec::with_capacity(n as usize * n as usize);
    for s in 0..n {
        for d in 0..n {
            routes.push(table.route(fabric, lft, s, d)?);
        }
    }
    let balance = RouteBalance::of_routes(fabric, &routes);
    let store = multipath_routes::fixed(fabric, routes, vls, "routing.dmodk_key")?;
    let check = store.check(fabric);
    if let Some(cycle) = &check.cycle {
        return Err(Error::input(
            "routing.dmodk_key",
            format!(
                "the S-mod-k routes close a cycle of {} channels",
                cycle.len()
            ),
        ));
    }
    Ok((table, check, balance))
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
            (4, 3, DmodkDigits::DigitSum),
            (3, 2, DmodkDigits::DigitSum),
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
    fn digit_sum_balances_a_switchs_routes_and_mixes_the_residue_classes() {
        // 4-ary 3-tree: up port (d0 + d1 + d2) mod 4 at the leaves, (d1 + d2) mod 4 above
        let f = tree(&cfg(Some(4), Some(3), None, None));
        for (digits, mixed) in [
            (DmodkDigits::DigitSum, true),
            (DmodkDigits::LowFirst, false),
        ] {
            let t = build(&f, digits).unwrap();
            // a leaf: its 60 remote destinations, 15 per up port
            let leaf = f.by_name["L1_1"];
            let mut per_port: HashMap<u16, Vec<u32>> = HashMap::new();
            for d in 4..64u32 {
                per_port.entry(t.out_port(leaf, d + 1)).or_default().push(d);
            }
            assert_eq!(per_port.len(), 4, "{digits:?}");
            for (port, ds) in &per_port {
                assert_eq!(ds.len(), 15, "{digits:?} port {port}");
                let residues: HashSet<u32> = ds.iter().map(|d| d % 4).collect();
                assert_eq!(residues.len() > 1, mixed, "{digits:?} port {port}: {ds:?}");
                if digits == DmodkDigits::DigitSum {
                    for d in ds {
                        let sum = d % 4 + (d / 4) % 4 + d / 16;
                        assert_eq!(*port as u32, 4 + sum % 4, "d={d}");
                    }
                }
            }
            // every level-2 switch: the 12 destinations it sends up (outside its subtree, a
            // quarter of the 48 whose leaf up port leads to it) spread evenly, 3 per up port
            let mut up_at: HashMap<(NodeId, u16), usize> = HashMap::new();
            for d in 0..64u32 {
                let mut seen: HashSet<(NodeId, u16)> = HashSet::new();
                for &a in &f.hcas {
                    for (sw, port) in t.route(&f, a, f.hcas[d as usize]).unwrap() {
                        if f.nodes[sw as usize].level == 2 && port >= 4 {
                            seen.insert((sw, port));
                        }
                    }
                }
                for k in seen {
                    *up_at.entry(k).or_default() += 1;
                }
            }
            assert_eq!(up_at.len(), 16 * 4, "{digits:?}");
            assert!(up_at.values().all(|&c| c == 3), "{digits:?} {up_at:?}");
        }
    }

    #[test]
    fn s_mod_k_goes_up_by_the_sources_digits_and_spreads_a_destinations_routes() {
        let f = tree(&cfg(Some(4), Some(3), None, None));
        let lft = build(&f, DmodkDigits::LowFirst).unwrap();
        let (su, check, balance) = source_routing(&f, &lft, DmodkDigits::LowFirst, 1).unwrap();
        assert!(check.cycle.is_none() && check.channels > 0);
        // every pair routed; each of a leaf's up links carries its one source's 60 routes
        assert_eq!(balance.routed_pairs, 64 * 63);
        let leaf = f.by_name["L1_1"];
        for p in 4..8u16 {
            assert_eq!(balance.at(leaf, p), 60, "port {p}");
        }
        let top = |route: &[u16], s: usize| {
            // the switch after the two up hops
            let mut cur = f.nodes[f.hcas[s] as usize].ports[0].peer;
            for &p in &route[..2] {
                cur = f.nodes[cur as usize].ports[p as usize].peer;
            }
            cur
        };
        for d in 0..64usize {
            let mut tops: HashSet<NodeId> = HashSet::new();
            for s in 0..64usize {
                let r = su.route(&f, &lft, s as u32, d as u32).unwrap();
                if s == d {
                    assert!(r.is_empty());
                    continue;
                }
                assert_eq!(r.len(), bfs(&f, f.hcas[s], f.hcas[d]), "{s} → {d}");
                if s / 4 != d / 4 {
                    // the leaf's up port is the source's digit 1 (the port it came in by)
                    assert_eq!(r[0] as usize, 4 + s % 4, "{s} → {d}");
                }
                if s / 16 != d / 16 {
                    assert_eq!(r[1] as usize, 4 + (s / 4) % 4, "{s} → {d}");
                    tops.insert(top(&r, s));
                }
            }
            // the 48 sources of the other subtrees reach d through all 16 top switches
            // (D-mod-k: through one)
            assert_eq!(tops.len(), 16, "d={d}");
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
