//! How evenly forwarding tables spread routes over the links (the figure subnet managers'
//! users compare routing engines by, OpenSM's "routes per link"): for every ordered pair of
//! HCAs (all of them, whatever the traffic), the route the tables give, counted on every
//! directed link it crosses ([`RouteBalance::of`]; with LMC > 0 every route to a DLID the sources
//! use under `routing.lmc_path`: `base` the base LID, `source` the source's fixed one,
//! `message` each LID of the destination); summarised as max/mean/min routes per link
//! over the switch-to-switch links and over all links (HCA links too), for `summary.json`
//! (`route_balance`) and per link in `routes.csv`. Any credit-level routing's tables are
//! measured the same way, so engines can be compared on one fabric. Pairs the tables do not
//! route (no entry, a loop) are left out and counted apart.
//!
//! Instead of walking every route it follows the tables once per destination: the switches
//! whose route to it succeeds, in decreasing distance, pass on the number of sources whose
//! routes cross them (O(destinations × switches)).

use crate::credit::routing::tables::NO_PORT;
use crate::credit::routing::ForwardingTables;
use crate::topology::{Fabric, NodeKind};
use serde_json::{json, Value};

/// Routes per directed link of a fabric's tables.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteBalance {
    /// First slot of each node's ports in `routes`.
    first: Vec<usize>,
    /// Routes leaving through each (node, port), flat.
    pub routes: Vec<u64>,
    /// Ordered HCA pairs with a route (with LMC > 0: the (pair, DLID) routes the sources use,
    /// `routing.lmc_path`; `message` counts each pair once per LID of the destination).
    pub routed_pairs: u64,
    /// Ordered HCA pairs (routes, as above) without one.
    pub unrouted_pairs: u64,
}

/// Max, mean and min routes over a set of links.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkStats {
    /// Links in the set.
    pub links: usize,
    /// Most routes on one link.
    pub max: u64,
    /// Mean routes per link.
    pub mean: f64,
    /// Fewest routes on one link.
    pub min: u64,
}

impl LinkStats {
    /// The statistics of `values` (all zero for none).
    fn of(values: impl Iterator<Item = u64>) -> Self {
        let (mut n, mut sum, mut max, mut min) = (0usize, 0u64, 0u64, u64::MAX);
        for v in values {
            n += 1;
            sum += v;
            max = max.max(v);
            min = min.min(v);
        }
        LinkStats {
            links: n,
            max,
            mean: if n == 0 { 0.0 } else { sum as f64 / n as f64 },
            min: if n == 0 { 0 } else { min },
        }
    }

    /// Max over mean (1 = perfectly even; 0 without routes).
    pub fn max_over_mean(&self) -> f64 {
        if self.mean > 0.0 {
            self.max as f64 / self.mean
        } else {
            0.0
        }
    }

    /// As `summary.json` gives it.
    fn json(&self) -> Value {
        let r = |x: f64| (x * 1e6).round() / 1e6;
        json!({
            "links": self.links,
            "max": self.max,
            "mean": r(self.mean),
            "min": self.min,
            "max_over_mean": r(self.max_over_mean()),
        })
    }
}

impl RouteBalance {
    /// Counts routes given per ordered HCA pair, `routes[s · n + d]` as output ports one per
    /// switch (empty for s = d: not a route), on the links they cross (S-mod-k's per-source
    /// routes, `dmodk::source_routing`).
    pub fn of_routes(fabric: &Fabric, routes: &[Vec<u16>]) -> Self {
        let mut first = Vec::with_capacity(fabric.nodes.len() + 1);
        let mut total = 0;
        for n in &fabric.nodes {
            first.push(total);
            total += n.ports.len();
        }
        first.push(total);
        let mut count = vec![0u64; total];
        let n = fabric.hcas.len();
        let mut routed = 0u64;
        for (i, r) in routes.iter().enumerate() {
            if r.is_empty() {
                continue;
            }
            let src = fabric.hcas[i / n];
            count[first[src as usize]] += 1;
            routed += 1;
            let mut cur = fabric.nodes[src as usize].ports[0].peer;
            for &p in r {
                count[first[cur as usize] + p as usize] += 1;
                cur = fabric.nodes[cur as usize].ports[p as usize].peer;
            }
        }
        let pairs = n as u64 * (n as u64).saturating_sub(1);
        RouteBalance {
            first,
            routes: count,
            routed_pairs: routed,
            unrouted_pairs: pairs - routed,
        }
    }

    /// Counts the route of every ordered HCA pair of `tables` on the links it crosses.
    pub fn of(fabric: &Fabric, tables: &ForwardingTables) -> Self {
        let nn = fabric.nodes.len();
        let mut first = Vec::with_capacity(nn + 1);
        let mut total = 0;
        for n in &fabric.nodes {
            first.push(total);
            total += n.ports.len();
        }
        first.push(total);
        let mut routes = vec![0u64; total];
        // HCAs attached to each switch (node id → their node ids)
        let mut hcas_at: Vec<Vec<u32>> = vec![Vec::new(); nn];
        for &h in &fabric.hcas {
            if let Some(p) = fabric.nodes[h as usize].ports.first() {
                if fabric.nodes[p.peer as usize].kind == NodeKind::Switch {
                    hcas_at[p.peer as usize].push(h);
                }
            }
        }
        const UNKNOWN: u32 = u32::MAX;
        const WALKING: u32 = u32::MAX - 1;
        const FAILS: u32 = u32::MAX - 2;
        let mut dist = vec![UNKNOWN; nn];
        let mut through = vec![0u64; nn];
        let mut order: Vec<u32> = Vec::with_capacity(fabric.switches.len());
        let mut walk: Vec<u32> = Vec::new();
        // each LID a source can send to (`routing.lmc_path`): LMC 0, the one base LID
        let targets = fabric.hcas.iter().flat_map(|&d| {
            let di = fabric.nodes[d as usize].lid - 1;
            let n = tables.lids_of(di).len() as u8;
            (0..n).map(move |k| (d, di, k))
        });
        let mut total = 0u64;
        for (d, di, offset) in targets {
            let uses = |h: u32| {
                let hi = fabric.nodes[h as usize].lid - 1;
                h != d && tables.offsets_used(hi, di).contains(&offset)
            };
            let users = tables.sources_using(fabric.hcas.len() as u32, di, offset);
            if users == 0 {
                continue;
            }
            total += users;
            let lid = tables.dlid(di, offset);
            dist.fill(UNKNOWN);
            // distance of every switch to d along the tables (FAILS where the route fails)
            for &s in &fabric.switches {
                walk.clear();
                let mut cur = s;
                let end = loop {
                    match dist[cur as usize] {
                        UNKNOWN => {}
                        WALKING => break FAILS,
                        v => break v,
                    }
                    let p = tables.out_port(cur, lid);
                    let node = &fabric.nodes[cur as usize];
                    if p == NO_PORT || p as usize >= node.ports.len() {
                        dist[cur as usize] = FAILS;
                        break FAILS;
                    }
                    let next = node.ports[p as usize].peer;
                    match fabric.nodes[next as usize].kind {
                        NodeKind::Hca if next == d => {
                            dist[cur as usize] = 0;
                            break 0;
                        }
                        NodeKind::Hca => {
                            dist[cur as usize] = FAILS;
                            break FAILS;
                        }
                        _ => {}
                    }
                    dist[cur as usize] = WALKING;
                    walk.push(cur);
                    cur = next;
                };
                let mut v = end;
                for &w in walk.iter().rev() {
                    if v != FAILS {
                        v += 1;
                    }
                    dist[w as usize] = v;
                }
            }
            order.clear();
            order.extend(
                fabric
                    .switches
                    .iter()
                    .copied()
                    .filter(|&s| dist[s as usize] < FAILS),
            );
            order.sort_by_key(|&s| std::cmp::Reverse(dist[s as usize]));
            for &s in &order {
                let srcs = hcas_at[s as usize].iter().filter(|&&h| uses(h)).count() as u64;
                through[s as usize] += srcs;
                for &h in &hcas_at[s as usize] {
                    if uses(h) {
                        routes[first[h as usize]] += 1;
                    }
                }
            }
            for &s in &order {
                let n = through[s as usize];
                let p = tables.out_port(s, lid);
                routes[first[s as usize] + p as usize] += n;
                let next = fabric.nodes[s as usize].ports[p as usize].peer;
                if next != d {
                    through[next as usize] += n;
                }
                through[s as usize] = 0;
            }
        }
        // every routed pair (LID) left its source HCA once
        let pairs = total;
        let routed: u64 = fabric
            .hcas
            .iter()
            .filter(|&&h| !fabric.nodes[h as usize].ports.is_empty())
            .map(|&h| routes[first[h as usize]])
            .sum();
        let unrouted = pairs - routed;
        RouteBalance {
            first,
            routes,
            routed_pairs: routed,
            unrouted_pairs: unrouted,
        }
    }

    /// Routes leaving `node` through `port`.
    pub fn at(&self, node: u32, port: u16) -> u64 {
        self.routes[self.first[node as usize] + port as usize]
    }

    /// The statistics over the directed switch-to-switch links.
    pub fn switch_links(&self, fabric: &Fabric) -> LinkStats {
        LinkStats::of(self.links(fabric).filter(|l| l.3).map(|l| l.2))
    }

    /// The statistics over every directed link (HCA links too).
    pub fn all_links(&self, fabric: &Fabric) -> LinkStats {
        LinkStats::of(self.links(fabric).map(|l| l.2))
    }

    /// Every directed link: (node, port, routes, between two switches).
    fn links<'a>(&'a self, fabric: &'a Fabric) -> impl Iterator<Item = (u32, u16, u64, bool)> + 'a {
        fabric.nodes.iter().enumerate().flat_map(move |(i, n)| {
            n.ports.iter().enumerate().filter_map(move |(p, port)| {
                if port.peer == i as u32 {
                    return None;
                }
                let isl = n.kind == NodeKind::Switch
                    && fabric.nodes[port.peer as usize].kind == NodeKind::Switch;
                Some((i as u32, p as u16, self.at(i as u32, p as u16), isl))
            })
        })
    }

    /// `route_balance` of `summary.json`.
    pub fn summary_json(&self, fabric: &Fabric) -> Value {
        json!({
            "pairs_routed": self.routed_pairs,
            "pairs_unrouted": self.unrouted_pairs,
            "switch_links": self.switch_links(fabric).json(),
            "all_links": self.all_links(fabric).json(),
        })
    }

    /// `routes.csv`: one row per directed link, `from,port,to,to_port,switch_link,routes`.
    pub fn csv(&self, fabric: &Fabric) -> String {
        let mut out = String::from("from,port,to,to_port,switch_link,routes\n");
        for (node, port, routes, isl) in self.links(fabric) {
            let n = &fabric.nodes[node as usize];
            let p = &n.ports[port as usize];
            out.push_str(&format!(
                "{},{},{},{},{},{}\n",
                n.name, port, fabric.nodes[p.peer as usize].name, p.peer_port, isl, routes
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::credit::routing::opensm::test_fabrics::from_edges;

    /// Walks every route one by one and counts it on its links (what `of` must equal).
    fn walked(f: &Fabric, t: &ForwardingTables) -> (Vec<u64>, u64) {
        let b = RouteBalance::of(f, t);
        let mut routes = vec![0u64; b.routes.len()];
        let mut ok = 0;
        for &a in &f.hcas {
            for &d in &f.hcas {
                if a == d {
                    continue;
                }
                let (ai, di) = (f.nodes[a as usize].lid - 1, f.nodes[d as usize].lid - 1);
                for k in t.offsets_used(ai, di) {
                    if let Ok(hops) = t.route_to_lid(f, a, d, k) {
                        ok += 1;
                        routes[b.first[a as usize]] += 1;
                        for (s, p) in hops {
                            routes[b.first[s as usize] + p as usize] += 1;
                        }
                    }
                }
            }
        }
        (routes, ok)
    }

    #[test]
    fn routes_per_link_equal_walking_every_route_and_skip_broken_ones() {
        let f = from_edges(
            "switch S0\nswitch S1\nswitch S2\nhca H0\nhca H1\nhca H2\nhca H3\n\
             link H0 S0\nlink H1 S0\nlink H2 S1\nlink H3 S2\n\
             link S0 S1\nlink S1 S2\nlink S2 S0\n",
        );
        let mut t = crate::credit::routing::updown::build(&f).unwrap();
        let (routes, ok) = walked(&f, &t);
        let b = RouteBalance::of(&f, &t);
        assert_eq!(
            (b.routes.clone(), b.routed_pairs, b.unrouted_pairs),
            (routes, ok, 0)
        );
        assert_eq!(ok, 12);
        // S0 -> S1 -> S2 -> S0 ... for H3 (a loop), and S1 without an entry for H0
        let (s0, s1, s2) = (f.by_name["S0"], f.by_name["S1"], f.by_name["S2"]);
        t.set(s0, 4, 2);
        t.set(s1, 4, 1);
        t.set(s2, 4, 1);
        t.set(s1, 1, NO_PORT);
        let (routes, ok) = walked(&f, &t);
        let b = RouteBalance::of(&f, &t);
        assert_eq!(ok, 12 - 3 - 1);
        assert_eq!(
            (b.routes.clone(), b.routed_pairs, b.unrouted_pairs),
            (routes, ok, 4)
        );
        let isl = b.switch_links(&f);
        assert_eq!(isl.links, 6);
        let all = b.all_links(&f);
        assert_eq!(all.links, 14);
        assert!(b
            .csv(&f)
            .starts_with("from,port,to,to_port,switch_link,routes\nS0,0,H0,0,false,"));
    }

    #[test]
    fn with_lmc_the_routes_counted_are_those_the_dlid_choice_uses() {
        use crate::config::LmcPath;
        use crate::credit::routing::opensm::{minhop, Frame};
        let f = from_edges(crate::credit::routing::opensm::minhop::tests::DIAMOND);
        let mut frame = Frame::new(&f);
        frame.lmc = 1;
        let mut t = minhop::build(&f, &frame).unwrap();
        for (path, pairs) in [
            (LmcPath::Base, 12),
            (LmcPath::Source, 12),
            (LmcPath::Message, 24),
        ] {
            t.lmc_path = path;
            let (routes, ok) = walked(&f, &t);
            let b = RouteBalance::of(&f, &t);
            assert_eq!(
                (b.routes.clone(), b.routed_pairs, b.unrouted_pairs),
                (routes, pairs, 0),
                "{path:?}"
            );
            assert_eq!(ok, pairs);
        }
    }
}
