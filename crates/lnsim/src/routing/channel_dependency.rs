//! The channel-dependency graph (CDG) check of the cycle-level model (Dragonfly spec §3.0.3,
//! §3.13): a configuration is deadlock-free when no cycle of (link, VC) channels can hold
//! packets each waiting for the next. At start-up the graph of the chosen routing and VC rules
//! is built and searched for a cycle; a cycle refuses the configuration, naming its channels.
//!
//! Channels are `(router, output port, vc)` of router-to-router links, numbered
//! `(router · radix + port) · vcs + vc`. Dragonfly graphs are built per router from the VC
//! template (a packet holding an input channel may request every output channel the template
//! allows next — a superset of the real dependencies, so an acyclic result is a proof); mesh
//! and torus graphs follow the actual DOR paths between every pair of routers (per phase for
//! Valiant, joined at the intermediate).

use super::candidates::{CycleRouting, MeshGeometry, RouteState, RoutedTopology};
use super::vc_template::HopClass;

/// A channel-dependency graph.
#[derive(Debug, Clone)]
pub struct ChannelGraph {
    /// Ports per router (channel numbering).
    pub radix: u32,
    /// VCs per port (channel numbering).
    pub vcs: u32,
    /// Adjacency lists.
    pub edges: Vec<Vec<u32>>,
}

/// A channel decoded: router, port, VC.
pub type Channel = (u32, u32, u32);

impl ChannelGraph {
    fn new(routers: u32, radix: u32, vcs: u32) -> Self {
        ChannelGraph {
            radix,
            vcs,
            edges: vec![Vec::new(); routers as usize * radix as usize * vcs as usize],
        }
    }
    /// Channel number of `(router, port, vc)`.
    pub fn id(&self, r: u32, port: u32, vc: u32) -> u32 {
        (r * self.radix + port) * self.vcs + vc
    }
    /// Decodes a channel number.
    pub fn channel(&self, id: u32) -> Channel {
        let vc = id % self.vcs;
        let rp = id / self.vcs;
        (rp / self.radix, rp % self.radix, vc)
    }
    fn add(&mut self, from: u32, to: u32) {
        let e = &mut self.edges[from as usize];
        if !e.contains(&to) {
            e.push(to);
        }
    }
    /// Number of dependencies.
    pub fn edge_count(&self) -> usize {
        self.edges.iter().map(Vec::len).sum()
    }

    /// A cycle of channels, if the graph has one (iterative depth-first search).
    pub fn find_cycle(&self) -> Option<Vec<Channel>> {
        let n = self.edges.len();
        let mut color = vec![0u8; n]; // 0 new, 1 on stack, 2 done
        let mut parent = vec![u32::MAX; n];
        let mut stack: Vec<(u32, usize)> = Vec::new();
        for root in 0..n {
            if color[root] != 0 || self.edges[root].is_empty() {
                continue;
            }
            color[root] = 1;
            stack.push((root as u32, 0));
            while let Some(&mut (v, ref mut i)) = stack.last_mut() {
                if let Some(&w) = self.edges[v as usize].get(*i) {
                    *i += 1;
                    match color[w as usize] {
                        0 => {
                            color[w as usize] = 1;
                            parent[w as usize] = v;
                            stack.push((w, 0));
                        }
                        1 => {
                            // back edge v → w closes a cycle w … v
                            let mut cyc = vec![self.channel(v)];
                            let mut u = v;
                            while u != w {
                                u = parent[u as usize];
                                cyc.push(self.channel(u));
                            }
                            cyc.reverse();
                            return Some(cyc);
                        }
                        _ => {}
                    }
                } else {
                    color[v as usize] = 2;
                    stack.pop();
                }
            }
        }
        None
    }
}

/// The CDG of a routing on its topology. `vcs(r, port)` gives the VCs of a port and `is_router
/// (r, port)` whether it leads to a router (not a terminal); `peer(r, port)` the router and
/// port at the far end.
pub fn build(
    routing: &CycleRouting,
    routers: u32,
    radix: u32,
    max_vcs: u32,
    link: &dyn Fn(u32, u32) -> Option<(u32, u32)>,
) -> ChannelGraph {
    let mut g = ChannelGraph::new(routers, radix, max_vcs);
    match &routing.topo {
        RoutedTopology::Dragonfly(s) => {
            let t = &routing.template;
            let class = |p: u32| {
                if s.is_global_port(p) {
                    HopClass::Global
                } else {
                    HopClass::Local
                }
            };
            for r in 0..routers {
                for ip in s.p..s.radix() {
                    // the channel that delivers into r through ip is the far end's output
                    let Some((ur, up)) = link(r, ip) else {
                        continue;
                    };
                    for (pos, &(c1, v1)) in t.entries.iter().enumerate() {
                        if c1 != class(ip) {
                            continue;
                        }
                        let from = g.id(ur, up, v1 as u32);
                        for op in s.p..s.radix() {
                            if op == ip {
                                continue;
                            }
                            if let Some(j) = t.next(Some(pos), class(op)) {
                                let to = g.id(r, op, t.entries[j].1 as u32);
                                g.add(from, to);
                            }
                        }
                    }
                }
            }
        }
        RoutedTopology::Mesh(m) => mesh_edges(&mut g, routing, m, link),
    }
    g
}

fn mesh_edges(
    g: &mut ChannelGraph,
    routing: &CycleRouting,
    m: &MeshGeometry,
    link: &dyn Fn(u32, u32) -> Option<(u32, u32)>,
) {
    let n = m.coords.len() as u32;
    let valiant = routing.alg == super::candidates::Algorithm::MeshVlb;
    // last channels of phase A arriving at each router, first channels of phase B leaving it
    let mut arriving: Vec<Vec<u32>> = vec![Vec::new(); n as usize];
    let mut leaving: Vec<Vec<u32>> = vec![Vec::new(); n as usize];
    let phases: &[bool] = if valiant { &[true, false] } else { &[false] };
    for &phase_a in phases {
        for a in 0..n {
            for b in 0..n {
                let mut st = RouteState::default();
                // phase A: from a to the intermediate b; phase B (or plain DOR): from a to b
                if phase_a {
                    st.inter = b;
                    st.phase_a = true;
                } else if valiant {
                    st.inter = a;
                }
                let dst = b;
                let mut r = a;
                let mut prev: Vec<u32> = Vec::new();
                let mut first = true;
                loop {
                    if phase_a && r == b {
                        arriving[b as usize].extend(prev.iter().copied());
                        break;
                    }
                    let Ok(Some(c)) = routing.next_hop(r, dst, &mut st) else {
                        break;
                    };
                    let cur: Vec<u32> = (c.vc_lo..=c.vc_hi)
                        .map(|v| g.id(r, c.port as u32, v as u32))
                        .collect();
                    for &f in &prev {
                        for &t in &cur {
                            g.add(f, t);
                        }
                    }
                    if first && !phase_a && valiant {
                        leaving[a as usize].extend(cur.iter().copied());
                    }
                    first = false;
                    let Some((nr, _)) = link(r, c.port as u32) else {
                        break;
                    };
                    prev = cur;
                    r = nr;
                }
            }
        }
    }
    for r in 0..n as usize {
        arriving[r].sort_unstable();
        arriving[r].dedup();
        leaving[r].sort_unstable();
        leaving[r].dedup();
        for &f in &arriving[r] {
            for &t in &leaving[r] {
                g.add(f, t);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_cycle_and_accepts_a_dag() {
        let mut g = ChannelGraph::new(3, 1, 1);
        g.add(0, 1);
        g.add(1, 2);
        assert!(g.find_cycle().is_none());
        g.add(2, 1);
        let c = g.find_cycle().unwrap();
        assert_eq!(c.len(), 2);
        assert!(c.contains(&(1, 0, 0)) && c.contains(&(2, 0, 0)));
    }
}
