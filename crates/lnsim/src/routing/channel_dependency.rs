//! The channel-dependency graph (CDG) and its cycle search, for both wings: a network is
//! deadlock-free when no cycle of channels can hold packets each waiting for the next (Dally &
//! Seitz; Dragonfly spec §3.0.3, §3.13). At start-up each wing builds the graph of its routing
//! and searches it for a cycle; a cycle refuses the configuration, naming its channels. The
//! graph and the search know no wing: [`ChannelGraph`] is a graph of channels numbered
//! `(router · radix + port) · groups + group` in compressed rows, [`find_cycle`] the search
//! that names the cycle over any graph of numbered vertices. The cycle-level wing builds its
//! graphs from its routing's VC rules (`cycle/routing/dependency_graph.rs`), the credit-level
//! wing checks its forwarding tables (`credit/routing/table_dependencies.rs`).
//!
//! A channel is `(router, output port, VC group)` of a router-to-router link; a group is `per`
//! consecutive VCs that every route uses together. A dependency between two groups stands for
//! the dependencies between every VC of one and every VC of the other, so the graph of groups
//! has a cycle exactly when the graph of single VCs has one.

use crate::error::{Error, Result};

/// A channel-dependency graph (adjacency in compressed rows).
#[derive(Debug, Clone)]
pub struct ChannelGraph {
    /// Ports per router (channel numbering).
    pub radix: u32,
    /// VC groups per port (channel numbering).
    pub groups: u32,
    /// VCs per group: group `g` is VCs `g · per ..= g · per + per − 1`.
    pub per: u32,
    /// Row starts: the dependencies of channel `c` are `targets[offsets[c]..offsets[c + 1]]`.
    offsets: Vec<usize>,
    targets: Vec<u32>,
}

/// A channel decoded: router, port, VC group.
pub type Channel = (u32, u32, u32);

impl ChannelGraph {
    /// Channel number of `(router, port, group)`.
    pub fn id(&self, r: u32, port: u32, group: u32) -> u32 {
        (r * self.radix + port) * self.groups + group
    }
    /// Decodes a channel number.
    pub fn channel(&self, id: u32) -> Channel {
        let g = id % self.groups;
        let rp = id / self.groups;
        (rp / self.radix, rp % self.radix, g)
    }
    /// The VCs of group `g` (first, last).
    pub fn vcs_of(&self, g: u32) -> (u32, u32) {
        (g * self.per, g * self.per + self.per - 1)
    }
    /// "VC 3" or "VCs 2–3": the VCs of group `g` for messages.
    pub fn vc_label(&self, g: u32) -> String {
        let (lo, hi) = self.vcs_of(g);
        if lo == hi {
            format!("VC {lo}")
        } else {
            format!("VCs {lo}–{hi}")
        }
    }
    /// Number of channels (router ports × groups).
    pub fn channels(&self) -> usize {
        self.offsets.len() - 1
    }
    /// The channels channel `c` depends on, in increasing order.
    pub fn successors(&self, c: u32) -> &[u32] {
        &self.targets[self.offsets[c as usize]..self.offsets[c as usize + 1]]
    }
    /// Number of dependencies.
    pub fn edge_count(&self) -> usize {
        self.targets.len()
    }

    /// The graph of `routers` routers whose dependencies `emit(r, out)` pushes into `out` as
    /// `(from, to)` pairs, router by router (the dependencies at router `r`; duplicates are
    /// removed). `emit` runs twice per router: once to count each channel's dependencies, once
    /// to place them; each channel's list is then sorted and its duplicates dropped.
    pub fn from_routers(
        routers: u32,
        radix: u32,
        groups: u32,
        per: u32,
        mut emit: impl FnMut(u32, &mut Vec<(u32, u32)>) -> Result<()>,
    ) -> Result<Self> {
        let n = routers as u64 * radix as u64 * groups as u64;
        if n >= u32::MAX as u64 {
            return Err(Error::input(
                "topology",
                format!("{n} channels are too many for the channel-dependency check"),
            ));
        }
        let n = n as usize;
        let mut offsets = vec![0usize; n + 1];
        let mut buf: Vec<(u32, u32)> = Vec::new();
        for r in 0..routers {
            buf.clear();
            emit(r, &mut buf)?;
            for &(f, _) in &buf {
                offsets[f as usize + 1] += 1;
            }
        }
        for c in 0..n {
            offsets[c + 1] += offsets[c];
        }
        let mut targets = vec![0u32; offsets[n]];
        let mut fill = offsets.clone();
        for r in 0..routers {
            buf.clear();
            emit(r, &mut buf)?;
            for &(f, t) in &buf {
                let k = &mut fill[f as usize];
                if *k >= offsets[f as usize + 1] {
                    return Err(Error::Internal(format!(
                        "channel-dependency graph: channel {f} got more dependencies the second time"
                    )));
                }
                targets[*k] = t;
                *k += 1;
            }
        }
        // sort each list, drop its duplicates and close the gaps
        let mut w = 0;
        for c in 0..n {
            let (lo, hi) = (offsets[c], offsets[c + 1]);
            targets[lo..hi].sort_unstable();
            offsets[c] = w;
            let mut last = None;
            for k in lo..hi {
                let t = targets[k];
                if last != Some(t) {
                    targets[w] = t;
                    w += 1;
                    last = Some(t);
                }
            }
        }
        offsets[n] = w;
        targets.truncate(w);
        targets.shrink_to_fit();
        Ok(ChannelGraph {
            radix,
            groups,
            per,
            offsets,
            targets,
        })
    }

    /// A cycle of channels, if the graph has one (depth-first search from each channel in
    /// increasing order, successors in increasing order).
    pub fn find_cycle(&self) -> Option<Vec<Channel>> {
        find_cycle(self.channels(), |v| self.successors(v))
            .map(|c| c.into_iter().map(|id| self.channel(id)).collect())
    }
}

/// A cycle in the directed graph of `n` vertices whose edges leave `v` towards
/// `successors(v)`, if there is one: the vertices in order, each with an edge to the next and
/// the last with an edge to the first (iterative depth-first search, linear in vertices and
/// edges). Shared by the cycle-level graph and the InfiniBand tables' graph.
pub fn find_cycle<'a>(n: usize, successors: impl Fn(u32) -> &'a [u32]) -> Option<Vec<u32>> {
    let mut color = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    let mut parent = vec![u32::MAX; n];
    let mut stack: Vec<(u32, usize)> = Vec::new();
    for root in 0..n {
        if color[root] != 0 || successors(root as u32).is_empty() {
            continue;
        }
        color[root] = 1;
        stack.push((root as u32, 0));
        while let Some(&mut (v, ref mut i)) = stack.last_mut() {
            if let Some(&w) = successors(v).get(*i) {
                *i += 1;
                match color[w as usize] {
                    0 => {
                        color[w as usize] = 1;
                        parent[w as usize] = v;
                        stack.push((w, 0));
                    }
                    1 => {
                        // back edge v → w closes a cycle w … v
                        let mut cyc = vec![v];
                        let mut u = v;
                        while u != w {
                            u = parent[u as usize];
                            cyc.push(u);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph from explicit edges (one router, channels as ports).
    fn graph(n: u32, edges: &[(u32, u32)]) -> ChannelGraph {
        ChannelGraph::from_routers(1, n, 1, 1, |_, out| {
            out.extend_from_slice(edges);
            Ok(())
        })
        .unwrap()
    }

    #[test]
    fn finds_a_cycle_and_accepts_a_dag() {
        let g = graph(3, &[(0, 1), (1, 2)]);
        assert!(g.find_cycle().is_none());
        assert_eq!(g.edge_count(), 2);
        let g = graph(3, &[(0, 1), (1, 2), (2, 1), (1, 2)]);
        assert_eq!(g.edge_count(), 3, "duplicates are removed");
        let c = g.find_cycle().unwrap();
        assert_eq!(c.len(), 2);
        assert!(c.contains(&(0, 1, 0)) && c.contains(&(0, 2, 0)));
    }
}
