//! Deadlock detection. Credit-based flow control with deterministic routing can deadlock
//! (e.g. dimension-order routing on a torus without dateline VLs): a cycle of full input
//! buffers, each waiting for credits from the next. When packets stop moving, the run builds
//! the wait-for graph of switch input buffers and looks for such a cycle; if one exists the
//! run ends there and `summary.json` names the cycle.

use super::Net;
use crate::config::Ps;

/// A detected deadlock.
#[derive(Debug, Clone)]
pub struct Deadlock {
    /// When it was detected (packets stopped moving at or before this time).
    pub time: Ps,
    /// Packets waiting in switch queues.
    pub blocked_packets: u64,
    /// The credit loop, as `"<switch> port <p> VL <v>"` input buffers, each waiting for the next.
    pub cycle: Vec<String>,
}

impl Net {
    /// The input buffer (gport, VL) that a head packet of input `g` is waiting for, if it is
    /// blocked for lack of credits towards another switch; None if it can move or only waits
    /// for an HCA (sinks always drain) or a busy wire. With output buffers a head waits for its
    /// output queue, which waits for the next buffer.
    fn waits_for(&self, g: u32, pid: u32) -> Option<u32> {
        let p = &self.pkts[pid];
        let sw = self.links.node_of[g as usize];
        let o = self.links.port_base[sw as usize] + p.out_port as u32;
        if self.sw.obuf.is_some() {
            return self.output_waits_for(o, pid);
        }
        let down = self.links.peer[o as usize];
        let slot = self.credit_slot_for_flags(o, p.src, p.dst, p.path, p.vl, p.flags);
        // (with credits that reached a busy output without an event: they are its own)
        let due = self.links.credits_due.get(slot).copied().unwrap_or(0);
        let blocked = self.links.credits[slot] + due < p.credits;
        (blocked && self.links.is_switch[down as usize])
            .then_some(down * self.vls as u32 + p.vl as u32)
    }

    /// Finds a cycle of input buffers in which every buffer holds packets and none of its
    /// queue heads can move. Returns the buffers as `gport * vls + vl`.
    pub(crate) fn find_credit_loop(&self) -> Option<Vec<u32>> {
        let vls = self.vls;
        let n = self.links.peer.len() * vls;
        // edges[i]: the buffers node i waits for; only for nodes whose every head is blocked
        let mut edges: Vec<Vec<u32>> = vec![Vec::new(); n];
        for g in 0..self.links.peer.len() as u32 {
            if self.sw.input[g as usize].queue_base == u32::MAX {
                continue;
            }
            let sw = self.links.node_of[g as usize] as usize;
            let nq = self
                .sw
                .queue_scheme
                .queues_per_input(self.fabric.nodes[sw].ports.len(), vls);
            let mut heads = vec![(0usize, true); vls]; // (heads seen, all blocked) per VL
            let mut waits: Vec<Vec<u32>> = vec![Vec::new(); vls];
            for q in 0..nq {
                let Some(pid) =
                    self.sw.queues[self.sw.input[g as usize].queue_base as usize + q].front()
                else {
                    continue;
                };
                let vl = self.pkts[pid].vl as usize;
                heads[vl].0 += 1;
                match self.waits_for(g, pid) {
                    Some(d) => waits[vl].push(d),
                    None => heads[vl].1 = false,
                }
            }
            for v in 0..vls {
                if heads[v].0 > 0 && heads[v].1 {
                    let mut w = std::mem::take(&mut waits[v]);
                    w.sort_unstable();
                    w.dedup();
                    edges[g as usize * vls + v] = w;
                }
            }
        }
        // iterative depth-first search for a cycle
        let mut colour = vec![0u8; n]; // 0 new, 1 on the path, 2 done
        for start in 0..n {
            if edges[start].is_empty() || colour[start] != 0 {
                continue;
            }
            let mut path: Vec<(u32, usize)> = vec![(start as u32, 0)];
            colour[start] = 1;
            while let Some(&mut (node, ref mut next)) = path.last_mut() {
                if let Some(&succ) = edges[node as usize].get(*next) {
                    *next += 1;
                    match colour[succ as usize] {
                        0 if !edges[succ as usize].is_empty() => {
                            colour[succ as usize] = 1;
                            path.push((succ, 0));
                        }
                        1 => {
                            let from = path
                                .iter()
                                .position(|&(x, _)| x == succ)
                                .expect("on the path");
                            return Some(path[from..].iter().map(|&(x, _)| x).collect());
                        }
                        _ => {}
                    }
                } else {
                    colour[node as usize] = 2;
                    path.pop();
                }
            }
        }
        None
    }

    /// Runs the analysis and returns the deadlock it finds at `now`.
    pub(crate) fn detect_deadlock(&self, now: Ps) -> Option<Deadlock> {
        let cycle = self.find_credit_loop()?;
        let blocked_packets = self
            .sw
            .queues
            .iter()
            .map(|q| &q.fifo)
            .chain(self.sw.obuf.iter().flat_map(|ob| ob.queues()))
            .map(|q| self.pkts.queue_len(q) as u64)
            .sum();
        let cycle = cycle
            .into_iter()
            .map(|b| {
                format!(
                    "{} VL {}",
                    self.port_name(b / self.vls as u32),
                    b % self.vls as u32
                )
            })
            .collect();
        Some(Deadlock {
            time: now,
            blocked_packets,
            cycle,
        })
    }
}
