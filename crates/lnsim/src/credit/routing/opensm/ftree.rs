//! OpenSM's `ftree` engine (`osm_ucast_ftree.c`; `doc/current-routing.txt`, "Fat-tree Routing
//! Algorithm"): destination-driven routing of a fat tree with per-port and per-group counters,
//! so that every destination's down path is spread evenly over the spines and every link of a
//! pure fat tree carries the same number of routes.
//!
//! 1. **Ranks**: from `routing.roots` by BFS; else from the HCAs: leaves (switches with HCAs)
//!    are found, ranks counted upwards from them and reversed, and the switches at rank 0
//!    (the roots) rank the rest by BFS. Every HCA must hang off a switch of the leaf rank, and
//!    the tree must have at least two levels of switches and two leaves with HCAs.
//! 2. **Port groups**: a switch's ports grouped by the node at the far end (parallel cables
//!    form one group), each UP (to a lower rank) or DOWN (to a higher rank or an HCA). Links
//!    between switches of equal rank (OpenSM's sibling groups) are refused: not modelled.
//! 3. **Indexing**: from the first leaf in table order, a BFS gives every switch a tuple
//!    `[rank, digits…]`, taking the first free digit value going down and up; the down and up
//!    groups of the switches it passes, and the leaf array, are sorted by the far switch's
//!    tuple (`bfs_fabric_indexing`).
//! 4. **Routing** (`fabric_route_to_cns`): for each leaf in tuple order, for each of its HCAs
//!    in port order, the leaf's entry is the HCA's port, then *going up*: at each level the
//!    least-loaded up group (fewer down routes; ties: the far switch with the least loaded
//!    down group — OpenSM's asymmetric test, kept as it is — then the lower tuple, by OpenSM's
//!    bubble sort) and its least-loaded port carry the destination's down route and their
//!    counters count it; the other up groups get the route too without counting; at every
//!    switch reached, *going down* programs the lower switches of the other subtrees towards
//!    it (down groups in up-load order, the least-loaded port of each, counted when a route
//!    was created). Leaves with fewer HCAs than the fullest leaf route "dummy" destinations
//!    (LID 0) to keep the balance of shift patterns.
//!
//! Not modelled: `cn_guid_file`/`io_guid_file` (every HCA is a compute node), reverse hops
//! (`max_reverse_hops`, default 0), `quasi_ftree_indexing`, the pure-fat-tree validation of
//! `fabric_validate_topology` (a fabric that is not one may leave destinations without routes;
//! the route check names them), routes to switch LIDs.

use super::port_choice::NO_PATH;
use super::Frame;
use crate::credit::routing::tables::NO_PORT;
use crate::credit::routing::ForwardingTables;
use crate::error::{Error, Result};
use crate::topology::{Fabric, NodeKind};
use std::collections::{HashSet, VecDeque};

/// Length of a tuple (OpenSM's `FTREE_TUPLE_LEN`); an unassigned digit is 0xFF.
const TUPLE_LEN: usize = 8;

/// A switch's index tuple.
type Tuple = [u8; TUPLE_LEN];

/// The far end of a port group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Far {
    /// A switch (frame number).
    Switch(u32),
    /// An HCA (its LID).
    Hca(u32),
}

/// A group of a switch's ports leading to the same node.
#[derive(Debug, Clone)]
struct Group {
    /// The switch the group belongs to.
    sw: u32,
    /// The far end.
    far: Far,
    /// (local port, far port) of each cable, in port order.
    ports: Vec<(u16, u16)>,
    /// Routes going up through the group (counted on down groups).
    counter_up: u32,
    /// Routes going down through the group (counted on up groups).
    counter_down: u32,
    /// Per port of `ports`: up routes.
    port_up: Vec<u32>,
    /// Per port of `ports`: down routes.
    port_down: Vec<u32>,
}

/// A switch of the tree.
#[derive(Debug, Clone)]
struct Sw {
    rank: u32,
    tuple: Tuple,
    up: Vec<usize>,
    down: Vec<usize>,
    counter_up_changed: bool,
    min_counter_down: u32,
}

/// The fat tree being routed: switches, groups, and the engine's own tables (per switch and
/// LID, LID 0 the dummy destination).
struct Tree {
    sw: Vec<Sw>,
    groups: Vec<Group>,
    lids: usize,
    lft: Vec<u16>,
    hops: Vec<u8>,
}

/// The `ftree` tables of `fabric`, ranked from `roots` (switch numbers) or from the HCAs.
pub fn build(fabric: &Fabric, frame: &Frame, roots: Option<&[u32]>) -> Result<ForwardingTables> {
    let refuse = |msg: String| Error::input("routing.engine", format!("ftree: {msg}"));
    let n = frame.len();
    let rank = ranks(frame, roots);
    // the leaf rank: that of the switches with HCAs, one for all
    let mut leaf_rank = None;
    for (s, &r) in rank.iter().enumerate() {
        if !frame.hcas[s].is_empty() {
            let name = &fabric.nodes[frame.node[s] as usize].name;
            if r == u32::MAX {
                return Err(refuse(format!(
                    "switch `{name}` is not connected to a root"
                )));
            }
            match leaf_rank {
                None => leaf_rank = Some(r),
                Some(l) if l != r => {
                    return Err(refuse(format!(
                        "HCAs hang off switches of ranks {l} and {r} (`{name}`): not a fat tree"
                    )))
                }
                _ => {}
            }
        }
    }
    let leaf_rank = match leaf_rank {
        Some(r) if r >= 1 => r,
        _ => {
            return Err(refuse(
                "the tree needs at least two levels of switches and HCAs on its leaves".into(),
            ))
        }
    };
    if leaf_rank as usize >= TUPLE_LEN {
        return Err(refuse(format!(
            "{} levels of switches; OpenSM's ftree handles at most {TUPLE_LEN}",
            leaf_rank + 1
        )));
    }
    let mut tree = Tree::new(fabric, frame, &rank)?;
    tree.index(frame, leaf_rank);
    // the leaf array: switches of the leaf rank in tuple order, from the first to the last
    // with HCAs
    let mut leaves: Vec<u32> = (0..n as u32)
        .filter(|&s| rank[s as usize] == leaf_rank)
        .collect();
    leaves.sort_by_key(|&s| tree.sw[s as usize].tuple);
    let has_hcas = |s: &u32| !frame.hcas[*s as usize].is_empty();
    let first = leaves.iter().position(has_hcas).unwrap_or(0);
    let last = leaves.iter().rposition(has_hcas).unwrap_or(0);
    if first >= last {
        return Err(refuse("fewer than two leaf switches with HCAs".into()));
    }
    let leaves = &leaves[first..=last];
    let max_cn = leaves
        .iter()
        .map(|&s| frame.hcas[s as usize].len())
        .max()
        .unwrap_or(0);
    for &leaf in leaves {
        let mut routed = 0;
        let downs = tree.sw[leaf as usize].down.clone();
        for g in downs {
            let Far::Hca(lid) = tree.groups[g].far else {
                continue;
            };
            let port = tree.groups[g].ports[0].0;
            tree.set(leaf, lid, port, 1);
            tree.going_up(leaf, None, lid, true, 1);
            routed += 1;
        }
        for _ in routed..max_cn {
            let i = tree.at(leaf, 0);
            tree.hops[i] = 1;
            tree.going_up(leaf, None, 0, true, 1);
            for s in 0..n as u32 {
                let i = tree.at(s, 0);
                tree.hops[i] = NO_PATH;
                tree.lft[i] = NO_PORT;
            }
        }
    }
    let mut tables = ForwardingTables::empty(fabric);
    for s in 0..n as u32 {
        for lid in 1..tree.lids {
            let p = tree.lft[tree.at(s, lid as u32)];
            if p != NO_PORT {
                tables.set(frame.node[s as usize], lid as u32, p);
            }
        }
    }
    Ok(tables)
}

/// Switch ranks (0 = root; `u32::MAX`: unranked), step 1 of the module docs.
fn ranks(frame: &Frame, roots: Option<&[u32]>) -> Vec<u32> {
    let n = frame.len();
    let bfs = |from: &[u32]| -> Vec<u32> {
        let mut d = vec![u32::MAX; n];
        let mut q = VecDeque::new();
        for &s in from {
            d[s as usize] = 0;
            q.push_back(s);
        }
        while let Some(u) = q.pop_front() {
            for &(_, v) in &frame.isl[u as usize] {
                if d[v as usize] == u32::MAX {
                    d[v as usize] = d[u as usize] + 1;
                    q.push_back(v);
                }
            }
        }
        d
    };
    if let Some(r) = roots {
        return bfs(r);
    }
    let leaves: Vec<u32> = (0..n as u32)
        .filter(|&s| !frame.hcas[s as usize].is_empty())
        .collect();
    let up = bfs(&leaves);
    let top = up.iter().filter(|&&d| d != u32::MAX).max().copied();
    let roots: Vec<u32> = (0..n as u32)
        .filter(|&s| Some(up[s as usize]) == top)
        .collect();
    bfs(&roots)
}

/// The first free digit at `var` of `base` (`fabric_get_new_tuple`).
fn free_tuple(used: &HashSet<Tuple>, mut t: Tuple, var: usize) -> Tuple {
    for i in 0..0xFFu8 {
        t[var] = i;
        if !used.contains(&t) {
            break;
        }
    }
    t
}

impl Tree {
    /// Switches with their port groups (step 2 of the module docs).
    fn new(fabric: &Fabric, frame: &Frame, rank: &[u32]) -> Result<Tree> {
        let n = frame.len();
        let mut sw = Vec::with_capacity(n);
        let mut groups: Vec<Group> = Vec::new();
        for s in 0..n {
            let node = &fabric.nodes[frame.node[s] as usize];
            let (mut up, mut down) = (Vec::new(), Vec::new());
            let first = groups.len();
            for (p, port) in node.ports.iter().enumerate() {
                let far_node = &fabric.nodes[port.peer as usize];
                let far = match far_node.kind {
                    NodeKind::Hca => Far::Hca(far_node.lid),
                    _ if port.peer == frame.node[s] => continue,
                    _ => Far::Switch(frame.number[port.peer as usize]),
                };
                let cable = (p as u16, port.peer_port);
                if let Some(g) = groups[first..].iter_mut().find(|g| g.far == far) {
                    g.ports.push(cable);
                    g.port_up.push(0);
                    g.port_down.push(0);
                    continue;
                }
                let is_up = match far {
                    Far::Hca(_) => false,
                    Far::Switch(t) => {
                        let (a, b) = (rank[s], rank[t as usize]);
                        if a == b {
                            return Err(Error::input(
                                "routing.engine",
                                format!(
                                    "ftree: switches `{}` and `{}` of the same rank are linked; links between switches of one rank are not modelled",
                                    node.name,
                                    fabric.nodes[port.peer as usize].name
                                ),
                            ));
                        }
                        b < a
                    }
                };
                if is_up { &mut up } else { &mut down }.push(groups.len());
                groups.push(Group {
                    sw: s as u32,
                    far,
                    ports: vec![cable],
                    counter_up: 0,
                    counter_down: 0,
                    port_up: vec![0],
                    port_down: vec![0],
                });
            }
            sw.push(Sw {
                rank: rank[s],
                tuple: [0xFF; TUPLE_LEN],
                up,
                down,
                counter_up_changed: false,
                min_counter_down: 0,
            });
        }
        let lids = fabric.hcas.len() + 1;
        Ok(Tree {
            sw,
            groups,
            lids,
            lft: vec![NO_PORT; n * lids],
            hops: vec![NO_PATH; n * lids],
        })
    }

    /// Index of switch `s`'s entry for `lid`.
    fn at(&self, s: u32, lid: u32) -> usize {
        s as usize * self.lids + lid as usize
    }

    /// Sets switch `s`'s route to `lid` and its hops.
    fn set(&mut self, s: u32, lid: u32, port: u16, hops: u8) {
        let i = self.at(s, lid);
        self.lft[i] = port;
        self.hops[i] = hops;
    }

    /// The far switch of group `g`.
    fn far_sw(&self, g: usize) -> u32 {
        match self.groups[g].far {
            Far::Switch(s) => s,
            Far::Hca(_) => unreachable!("an up group leads to a switch"),
        }
    }

    /// Step 3 of the module docs: tuples from the first leaf, groups sorted by them.
    fn index(&mut self, frame: &Frame, leaf_rank: u32) {
        let mut used = HashSet::new();
        let Some(first) =
            (0..frame.len()).find(|&s| self.sw[s].rank == leaf_rank && !frame.hcas[s].is_empty())
        else {
            return;
        };
        let mut t = [0xFF; TUPLE_LEN];
        t[0] = leaf_rank as u8;
        for d in t.iter_mut().take(leaf_rank as usize + 1).skip(1) {
            *d = 0;
        }
        self.sw[first].tuple = t;
        used.insert(t);
        let mut queue = VecDeque::from([first as u32]);
        while let Some(s) = queue.pop_front() {
            let s = s as usize;
            let from = self.sw[s].tuple;
            if self.sw[s].rank < leaf_rank {
                for k in 0..self.sw[s].down.len() {
                    let Far::Switch(r) = self.groups[self.sw[s].down[k]].far else {
                        continue;
                    };
                    if self.sw[r as usize].tuple[0] != 0xFF {
                        continue;
                    }
                    let mut base = from;
                    base[0] += 1;
                    let nt = free_tuple(&used, base, from[0] as usize + 1);
                    used.insert(nt);
                    self.sw[r as usize].tuple = nt;
                    queue.push_back(r);
                }
                let mut down = std::mem::take(&mut self.sw[s].down);
                down.sort_by_key(|&g| self.group_key(g));
                self.sw[s].down = down;
            }
            if self.sw[s].rank != 0 {
                for k in 0..self.sw[s].up.len() {
                    let r = self.far_sw(self.sw[s].up[k]);
                    if self.sw[r as usize].tuple[0] != 0xFF {
                        continue;
                    }
                    let mut base = from;
                    base[0] -= 1;
                    let nt = free_tuple(&used, base, from[0] as usize);
                    used.insert(nt);
                    self.sw[r as usize].tuple = nt;
                    queue.push_back(r);
                }
                let mut up = std::mem::take(&mut self.sw[s].up);
                up.sort_by_key(|&g| self.group_key(g));
                self.sw[s].up = up;
            }
        }
    }

    /// Sort key of a group: its far switch's tuple (HCAs keep their order: all equal).
    fn group_key(&self, g: usize) -> Tuple {
        match self.groups[g].far {
            Far::Switch(r) => self.sw[r as usize].tuple,
            Far::Hca(_) => [0xFF; TUPLE_LEN],
        }
    }

    /// `port_group_compare_load_down` (asymmetric on the far switches' loads, as OpenSM's).
    fn compare_load_down(&self, a: usize, b: usize) -> std::cmp::Ordering {
        use std::cmp::Ordering::*;
        let (ga, gb) = (&self.groups[a], &self.groups[b]);
        match ga.counter_down.cmp(&gb.counter_down) {
            Equal => {}
            o => return o,
        }
        let la = self.sw[self.far_sw(a) as usize].min_counter_down;
        let lb = self.sw[self.far_sw(b) as usize].min_counter_down;
        if la > lb {
            return Greater;
        }
        self.group_key(a).cmp(&self.group_key(b))
    }

    /// `port_group_compare_load_up`.
    fn compare_load_up(&self, a: usize, b: usize) -> std::cmp::Ordering {
        let (ga, gb) = (&self.groups[a], &self.groups[b]);
        ga.counter_up
            .cmp(&gb.counter_up)
            .then_with(|| self.group_key(a).cmp(&self.group_key(b)))
    }

    /// OpenSM's bubble sort of a group list by `less` (kept as it is: the comparison of
    /// `compare_load_down` is not an order, so the result depends on the algorithm).
    fn bubble(&self, list: &mut [usize], down: bool) {
        let n = list.len();
        let mut i = 0;
        loop {
            let mut swapped = false;
            for j in 1..n.saturating_sub(i) {
                let o = if down {
                    self.compare_load_down(list[j], list[j - 1])
                } else {
                    self.compare_load_up(list[j], list[j - 1])
                };
                if o == std::cmp::Ordering::Less {
                    list.swap(j, j - 1);
                    swapped = true;
                }
            }
            if !swapped || i > n {
                break;
            }
            i += 1;
        }
    }

    /// The first port of group `g` with the fewest routes by `counts`.
    fn least_port(counts: &[u32]) -> usize {
        let mut best = 0;
        for (k, &c) in counts.iter().enumerate() {
            if c < counts[best] {
                best = k;
            }
        }
        best
    }

    /// `fabric_route_upgoing_by_going_down`: programs the switches below `s` (but not back
    /// towards `prev`) to go up to `s` for `lid`; whether a route was created.
    fn going_down(&mut self, s: u32, prev: Option<u32>, lid: u32, hops: u8) -> bool {
        let su = s as usize;
        if self.sw[su].down.is_empty() {
            return false;
        }
        if self.sw[su].counter_up_changed {
            let mut down = std::mem::take(&mut self.sw[su].down);
            self.bubble(&mut down, false);
            self.sw[su].down = down;
            self.sw[su].counter_up_changed = false;
        }
        let mut created = false;
        for k in 0..self.sw[su].down.len() {
            let g = self.sw[su].down[k];
            let Far::Switch(r) = self.groups[g].far else {
                created = true;
                continue;
            };
            if prev == Some(r) {
                continue;
            }
            let pk = Self::least_port(&self.groups[g].port_up);
            let least = self.hops[self.at(r, lid)];
            if least != NO_PATH && hops + 1 >= least {
                continue;
            }
            let far_port = self.groups[g].ports[pk].1;
            self.set(r, lid, far_port, hops + 1);
            if self.going_down(r, None, lid, hops + 1) {
                created = true;
                let grp = &mut self.groups[g];
                grp.port_up[pk] += 1;
                grp.counter_up += 1;
                let owner = grp.sw as usize;
                self.sw[owner].counter_up_changed = true;
            }
        }
        created
    }

    /// `fabric_route_downgoing_by_going_up` (without reverse hops): from `s`, the route down
    /// to `lid` is laid on the least-loaded up group and port (counted when `main`), the other
    /// up groups get it uncounted; whether a route was created.
    fn going_up(&mut self, s: u32, prev: Option<u32>, lid: u32, main: bool, hops: u8) -> bool {
        let su = s as usize;
        let mut created = self.going_down(s, prev, lid, hops);
        if self.sw[su].rank == 0 || self.sw[su].up.is_empty() {
            return created;
        }
        let mut up = std::mem::take(&mut self.sw[su].up);
        self.bubble(&mut up, true);
        self.sw[su].up = up;
        if main {
            let g = self.sw[su].up[0];
            let r = self.far_sw(g);
            let pk = Self::least_port(&self.groups[g].port_down);
            self.groups[g].counter_down += 1;
            self.groups[g].port_down[pk] += 1;
            if self.groups[g].counter_down == self.sw[r as usize].min_counter_down + 1 {
                let min = self.sw[r as usize]
                    .down
                    .iter()
                    .map(|&d| self.groups[d].counter_down)
                    .min()
                    .unwrap_or(1 << 30);
                self.sw[r as usize].min_counter_down = min;
            }
            let i = self.at(r, lid);
            if self.lft[i] == NO_PORT || hops + 1 < self.hops[i] {
                let far_port = self.groups[g].ports[pk].1;
                self.set(r, lid, far_port, hops + 1);
            }
            created |= self.going_up(r, Some(s), lid, true, hops + 1);
        }
        for k in usize::from(main)..self.sw[su].up.len() {
            let g = self.sw[su].up[k];
            let r = self.far_sw(g);
            let i = self.at(r, lid);
            if self.lft[i] != NO_PORT && hops + 1 >= self.hops[i] {
                continue;
            }
            let pk = Self::least_port(&self.groups[g].port_down);
            let far_port = self.groups[g].ports[pk].1;
            self.set(r, lid, far_port, hops + 1);
            created |= self.going_up(r, Some(s), lid, false, hops + 1);
        }
        created
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fabrics::{deadlock_free, from_topology};
    use super::*;
    use crate::credit::routing::route_balance::RouteBalance;

    #[test]
    fn ftree_puts_the_same_routes_on_every_link_of_a_two_level_fat_tree() {
        // 4 leaves x 3 HCAs, 3 spines: a destination's down route takes one spine, chosen
        // in turn, so each spine serves one HCA of each leaf; a leaf's uplink to a spine then
        // carries its 3 HCAs' routes to the 3 other leaves' HCAs that spine serves (9), and
        // the spine's downlink to a leaf the routes of the 9 other HCAs to the one it serves
        let f = from_topology("kind = \"fat_tree\"\ndown = [3, 4]\nup = [1, 3]\n");
        let frame = Frame::new(&f);
        let t = build(&f, &frame, None).unwrap();
        let b = RouteBalance::of(&f, &t);
        assert_eq!(b.unrouted_pairs, 0);
        let isl = b.switch_links(&f);
        assert_eq!((isl.links, isl.min, isl.max), (24, 9, 9), "{isl:?}");
        assert!(deadlock_free(&f, &t));
        // the same with the spines given as roots
        let spines: Vec<u32> = (0..frame.len() as u32)
            .filter(|&s| f.nodes[frame.node[s as usize] as usize].level == 2)
            .collect();
        let r = build(&f, &frame, Some(&spines)).unwrap();
        assert_eq!(RouteBalance::of(&f, &r), b);
    }

    /// Routes per switch-to-switch link, grouped by the levels of its ends: (min, max) each.
    fn per_level(
        f: &Fabric,
        b: &RouteBalance,
    ) -> std::collections::BTreeMap<(u32, u32), (u64, u64)> {
        let mut out = std::collections::BTreeMap::new();
        for &s in &f.switches {
            for (p, port) in f.nodes[s as usize].ports.iter().enumerate() {
                let far = &f.nodes[port.peer as usize];
                if far.kind == NodeKind::Switch {
                    let r = b.at(s, p as u16);
                    let e = out
                        .entry((f.nodes[s as usize].level, far.level))
                        .or_insert((u64::MAX, 0));
                    *e = (e.0.min(r), e.1.max(r));
                }
            }
        }
        out
    }

    #[test]
    fn ftree_balances_every_level_of_a_three_level_fat_tree_where_minhop_does_not() {
        // 2-ary 3-tree with 2 HCAs per leaf (4 leaves, 4 middle, 4 top switches, 8 HCAs): a
        // leaf's 2 uplinks share its HCAs' 12 routes (6 each), and the 4 links up from a pod
        // of 2 leaves its 16 routes out of the pod (4 each); downwards the same
        let f = from_topology("kind = \"fat_tree\"\ndown = [2, 2, 2]\nup = [1, 2, 2]\n");
        let frame = Frame::new(&f);
        let t = build(&f, &frame, None).unwrap();
        let b = RouteBalance::of(&f, &t);
        assert_eq!(b.unrouted_pairs, 0);
        let levels = per_level(&f, &b);
        let want: std::collections::BTreeMap<(u32, u32), (u64, u64)> = [
            ((1, 2), (6, 6)),
            ((2, 1), (6, 6)),
            ((2, 3), (4, 4)),
            ((3, 2), (4, 4)),
        ]
        .into();
        assert_eq!(levels, want);
        let m = super::super::minhop::build(&f, &frame).unwrap();
        let ml = per_level(&f, &RouteBalance::of(&f, &m));
        assert!(ml.values().any(|&(lo, hi)| lo < hi), "minhop {ml:?}");
    }

    #[test]
    fn ftree_refuses_a_fabric_that_is_not_a_fat_tree_naming_the_engine() {
        let f = from_topology("kind = \"mesh\"\ndims = [3, 3]\nhcas_per_switch = 1\n");
        let e = build(&f, &Frame::new(&f), None).unwrap_err().to_string();
        assert!(e.contains("routing.engine") && e.contains("ftree"), "{e}");
    }
}
