//! The credit-level wing's end-of-run conservation check (before any file is written): per
//! link direction and credit counter, the sender's credits plus those in flight, in the
//! receiving buffer and on their way back equal the buffer's capacity; every packet alive sits
//! in a queue or on a wire; every data packet injected was delivered or is still in the network.
//! Its counts go to `summary.json` `conservation`.

use super::switch::buffer::partitioned::PartitionedCredits;
use super::switch::buffer::CreditKeeping;
use super::{Ev, Net};
use crate::error::{Error, Result};

/// Counts reported in `summary.json` under `conservation`.
#[derive(Debug, Clone, Copy)]
pub struct Conservation {
    /// Data packets put on a source link.
    pub injected: u64,
    /// Data packets consumed by a sink.
    pub delivered: u64,
    /// Data packets still in the network at the end (injected = delivered + in the network;
    /// congestion notifications are counted apart).
    pub in_network: u64,
}

impl Net {
    /// End-of-run invariants: every packet is delivered or accounted for in the network, and
    /// on every link direction and credit counter the credits held by the sender plus those in
    /// flight, in the receiving buffer and on their way back equal the buffer's capacity; with
    /// output buffers, the same balance inside every switch for each output queue
    /// (`Net::check_output_buffers`, which also checks the link's `sendable` bits) and the HCAs'
    /// ready-flow bookkeeping (`Net::check_ready_slots`).
    pub(crate) fn check_conservation(&self) -> Result<Conservation> {
        let wire_pkts = match &self.sw.credit_keeping {
            CreditKeeping::SharedPool(_) => self.check_pool_credits()?,
            CreditKeeping::Partitioned(p) => self.check_queue_credits(p)?,
        };
        self.check_queue_fills()?;
        self.check_ready_slots()?;
        let crossing = self.check_output_buffers()?;
        let held = self.check_injection_queues()?;
        self.check_packets(wire_pkts + crossing, held)
    }

    /// Credit conservation with one pool per (buffer, VL); returns the packets on wires.
    fn check_pool_credits(&self) -> Result<u64> {
        let vls = self.vls;
        let np = self.links.peer.len();
        let mut on_wire = vec![0u64; np * vls]; // credits of packets heading for input gport
        let mut returning = vec![0u64; np * vls]; // credits on their way to output gport
        let mut releasing = vec![0u64; np * vls]; // credits of packets leaving input gport
        let mut wire_pkts = 0u64;
        self.engine.q.for_each(|_, ev| match *ev {
            Ev::HeadArrive { pkt, gport } => {
                let p = &self.pkts[pkt];
                on_wire[gport as usize * vls + p.vl as usize] += p.credits as u64;
                wire_pkts += 1;
            }
            Ev::CreditArrive {
                gport,
                counter,
                credits,
            } => returning[gport as usize * vls + counter as usize] += credits as u64,
            Ev::InputRelease {
                gport,
                counter,
                credits,
                ..
            }
            | Ev::CrossbarDone {
                gport,
                counter,
                credits,
                ..
            } => releasing[gport as usize * vls + counter as usize] += credits as u64,
            _ => {}
        });
        // credits that reached a busy output without an event are kept aside until it frees
        for (slot, &c) in self.links.credits_due.iter().enumerate() {
            returning[slot] += c as u64;
        }
        // credits freed but still waiting for their flow-control packet are on their way back
        if let Some(fc) = &self.links.flow_control {
            for (slot, c) in fc.pending().enumerate() {
                returning[slot] += c as u64;
            }
        }
        // in_used counts a packet from its head arrival until its release; a packet granted but
        // not yet released is also on the next wire (counted there against the next buffer)
        for g in 0..np {
            for v in 0..vls {
                let i = g * vls + v;
                let down = self.links.peer[g] as usize * vls + v;
                let held = self.links.credits[i] as u64
                    + on_wire[down]
                    + self.sw.in_used[down] as u64
                    + returning[i];
                if held != self.sw.in_cap[down] as u64 {
                    return Err(Error::Internal(format!(
                        "credit conservation violated on {} VL {v}: {} available + {} on the wire + {} buffered + {} returning != capacity {}",
                        self.port_name(g as u32),
                        self.links.credits[i],
                        on_wire[down],
                        self.sw.in_used[down],
                        returning[i],
                        self.sw.in_cap[down]
                    )));
                }
                if releasing[down] > self.sw.in_used[down] as u64 {
                    return Err(Error::Internal(format!(
                        "buffer {} releases more than it holds",
                        self.port_name(self.links.peer[g])
                    )));
                }
            }
        }
        Ok(wire_pkts)
    }

    /// Credit conservation with credits kept per queue: the same balance per queue share
    /// (slots number the counters of every input; the output driving it uses the same slots).
    /// Returns the packets on wires.
    fn check_queue_credits(&self, p: &PartitionedCredits) -> Result<u64> {
        let n = p.slots();
        let mut on_wire = vec![0u64; n];
        let mut returning = vec![0u64; n];
        let mut releasing = vec![0u64; n];
        let mut wire_pkts = 0u64;
        self.engine.q.for_each(|_, ev| match *ev {
            Ev::HeadArrive { pkt, gport } => {
                let k = &self.pkts[pkt];
                let counter = self.downstream_counter(
                    self.links.peer[gport as usize],
                    k.src,
                    k.dst,
                    k.path,
                    k.vl,
                    k.flags,
                );
                on_wire[p.in_slot(gport, counter)] += k.credits as u64;
                wire_pkts += 1;
            }
            Ev::CreditArrive {
                gport,
                counter,
                credits,
            } => returning[p.out_slot(gport, counter)] += credits as u64,
            Ev::InputRelease {
                gport,
                counter,
                credits,
                ..
            }
            | Ev::CrossbarDone {
                gport,
                counter,
                credits,
                ..
            } => releasing[p.in_slot(gport, counter)] += credits as u64,
            _ => {}
        });
        if let Some(fc) = &self.links.flow_control {
            for (slot, c) in fc.pending().enumerate() {
                returning[slot] += c as u64;
            }
        }
        for d in 0..self.links.peer.len() as u32 {
            for s in p.in_slots(d) {
                let held =
                    self.links.credits[s] as u64 + on_wire[s] + p.used(s) as u64 + returning[s];
                if held != p.cap(s) as u64 {
                    return Err(Error::Internal(format!(
                        "credit conservation violated on {} counter {}: {} available + {} on the wire + {} buffered + {} returning != share {}",
                        self.port_name(self.links.peer[d as usize]),
                        s - p.in_slots(d).start,
                        self.links.credits[s],
                        on_wire[s],
                        p.used(s),
                        returning[s],
                        p.cap(s)
                    )));
                }
                if releasing[s] > p.used(s) as u64 {
                    return Err(Error::Internal(format!(
                        "buffer {} releases more than a queue holds",
                        self.port_name(d)
                    )));
                }
            }
        }
        Ok(wire_pkts)
    }

    /// The per-output fills of a switch input add up to its occupancy.
    fn check_queue_fills(&self) -> Result<()> {
        let vls = self.vls;
        for g in 0..self.links.peer.len() {
            if self.sw.fill_base[g] == u32::MAX {
                continue;
            }
            let n = self.fabric.nodes[self.links.node_of[g] as usize]
                .ports
                .len();
            for v in 0..vls {
                let sum: u64 = (0..n)
                    .map(|o| self.sw.fill[self.sw.fill_base[g] as usize + o * vls + v] as u64)
                    .sum();
                if sum != self.sw.in_used[g * vls + v] as u64 {
                    return Err(Error::Internal(format!(
                        "queue fills of {} VL {v} add up to {sum}, buffer holds {}",
                        self.port_name(g as u32),
                        self.sw.in_used[g * vls + v]
                    )));
                }
            }
        }
        Ok(())
    }

    /// Every packet alive sits in a queue or on a wire (`wire_pkts`, with packets crossing a
    /// crossbar into an output buffer), and every data packet
    /// injected was delivered or is still in the network; `held` packets sit in the HCAs'
    /// injection queues (built, not yet injected: spec B.5 Input Adapter).
    fn check_packets(&self, wire_pkts: u64, held: u64) -> Result<Conservation> {
        let queued: u64 = self
            .sw
            .queues
            .iter()
            .map(|q| self.pkts.queue_len(q) as u64)
            .sum::<u64>()
            + self.hcas.sink_q.iter().map(|q| q.len() as u64).sum::<u64>()
            + self
                .hcas
                .control_q
                .iter()
                .map(|q| q.len() as u64)
                .sum::<u64>()
            + self.sw.obuf.as_ref().map_or(0, |ob| {
                ob.queues()
                    .map(|q| self.pkts.queue_len(q) as u64)
                    .sum::<u64>()
            });
        // packets between grant and arrival are on the wire; the rest sit in queues (`held`
        // in the HCAs' injection queues, not yet injected: spec B.5 Input Adapter)
        let in_network = queued + wire_pkts + held;
        if in_network != self.pkts.live() {
            return Err(Error::Internal(format!(
                "flit conservation violated: {} packets alive but {} in queues and on wires",
                self.pkts.live(),
                in_network
            )));
        }
        let st = &self.stats;
        let data_alive = self.pkts.live()
            - (st.injected_control - st.delivered_control)
            - self
                .hcas
                .control_q
                .iter()
                .map(|q| q.len() as u64)
                .sum::<u64>()
            - held;
        if st.injected_packets != st.delivered_packets + data_alive {
            return Err(Error::Internal(format!(
                "flit conservation violated: {} data packets injected, {} delivered, {} in the network",
                st.injected_packets, st.delivered_packets, data_alive
            )));
        }
        Ok(Conservation {
            injected: st.injected_packets,
            delivered: st.delivered_packets,
            // data packets only, as injected and delivered count them (notifications apart)
            in_network: data_alive,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::load_str;

    fn net() -> Net {
        let text = "[sim]\nend_time = \"100us\"\n[topology]\nkind = \"mesh\"\ndims = [2, 2]\nhcas_per_switch = 2\n\
                    [[traffic.generators]]\nsources = \"all\"\n";
        let l = load_str(text, "t", std::path::Path::new("."), "t", &[], None).unwrap();
        let mut n = Net::new(&l).unwrap();
        assert_eq!(n.run(false, &mut || false).unwrap(), None);
        n
    }

    #[test]
    fn conservation_holds_mid_flight() {
        let n = net();
        let c = n.check_conservation().unwrap();
        assert!(c.in_network > 0 && c.delivered > 0);
    }

    #[test]
    fn conservation_check_catches_a_created_credit() {
        let mut n = net();
        n.links.credits[3] += 1;
        let e = n.check_conservation().unwrap_err().to_string();
        assert!(e.contains("credit conservation"), "{e}");
    }

    #[test]
    fn the_end_of_run_check_catches_wrong_ready_flow_bookkeeping() {
        let mut n = net();
        let h = n
            .hcas
            .ready
            .iter()
            .position(|r| !r.is_empty())
            .expect("a ready flow");
        let slot = n.hcas.ready_slot[h][0] as usize;
        n.hcas.slot_waiting[slot] += 1;
        let e = n.check_conservation().unwrap_err().to_string();
        assert!(e.contains("miscounted"), "{e}");
        n.hcas.slot_waiting[slot] -= 1;
        n.hcas.ready_slot[h][0] += 1;
        let e = n.check_conservation().unwrap_err().to_string();
        assert!(e.contains("recorded at credit slot"), "{e}");
    }

    #[test]
    fn conservation_check_catches_a_lost_packet() {
        let mut n = net();
        let q =
            n.sw.queues
                .iter()
                .position(|q| !q.is_empty())
                .expect("a queued packet");
        n.pkts.pop_front(&mut n.sw.queues[q]);
        assert!(n.check_conservation().is_err());
    }
}
