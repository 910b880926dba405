//! Buffer space statically partitioned per queue, with credits per queue: the input buffer of
//! a VL is split evenly among the VL's queues and the upstream output keeps one credit counter
//! per queue of the buffer it drives. A full queue stops only its own traffic: no congestion
//! spreads through a shared pool, at the price of a smaller share per queue and of the
//! upstream having to know, before sending, which queue of the next buffer a packet will join
//! (look-ahead, `switch/buffer/accounting.rs`).
//!
//! An HCA's receive buffer has one queue per VL, so its counters are its VLs. Credit counters
//! ("slots") of every input are numbered consecutively; the output that drives an input uses
//! the same numbers, so `credits[slot]` (upstream, available) mirrors `used[slot]`
//! (downstream, occupied) and `cap[slot]`.

use crate::error::{Error, Result};

/// How big each queue of a switch input is when space is kept per queue (spec B.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueSizing {
    /// The VL's buffer split exactly among its queues, in credits (the remainder of the
    /// division is left unused); a share below one packet is an error
    /// (`switch.static_mode = "split"`).
    Split,
    /// Spec B.5 mode A: the VL's buffer divided by its queues, rounded down to whole packets,
    /// but never under `min_packets` (1; 2 for VOQnet), so the space can exceed the nominal
    /// buffer when the queues are many (`switch.static_mode = "divided"`).
    Divided {
        /// The fewest packets of a queue.
        min_packets: u32,
    },
    /// Spec B.5 mode B: this many credits per queue, whatever the number of queues
    /// (`switch.static_mode = "per_queue"`, `switch.queue_bytes`).
    PerQueue {
        /// Credits of every queue.
        credits: u32,
    },
}

impl QueueSizing {
    /// The credits of one of `per_vl` queues sharing a VL buffer of `vl_cap` credits, for
    /// packets of `pkt_credits`; None when the share cannot hold one packet.
    pub fn share(self, vl_cap: u32, per_vl: u32, pkt_credits: u32) -> Option<u32> {
        let per_vl = per_vl.max(1);
        let share = match self {
            QueueSizing::Split => vl_cap / per_vl,
            QueueSizing::Divided { min_packets } => {
                let pkts = (vl_cap / per_vl / pkt_credits.max(1)).max(min_packets);
                pkts.saturating_mul(pkt_credits)
            }
            QueueSizing::PerQueue { credits } => credits,
        };
        (share >= pkt_credits).then_some(share)
    }
}

/// Per-queue credit state of every input buffer.
#[derive(Debug, Clone, Default)]
pub struct PartitionedCredits {
    /// Per input gport: its first slot.
    in_base: Vec<u32>,
    /// Per output gport: the first slot of the input it drives (`in_base[peer]`).
    out_base: Vec<u32>,
    /// Per slot: `[credits occupied in the queue's share, the share]`, side by side (a
    /// packet's arrival reads both).
    used_cap: Vec<[u32; 2]>,
}

impl PartitionedCredits {
    /// Splits every input buffer: `counters[g]` counters (queues) at gport `g`, numbered
    /// `class * vls + vl`. A switch input (`is_switch[g]`) gives each of a VL's
    /// `counters[g] / vls` queues the share `sizing` makes of the VL's capacity
    /// `in_cap[g * vls + vl]`; an HCA's receive buffer has one queue per VL, the whole VL.
    /// Every share must hold a packet of `pkt_credits`.
    pub fn new(
        counters: &[usize],
        in_cap: &[u32],
        peer: &[u32],
        vls: usize,
        pkt_credits: u32,
        sizing: QueueSizing,
        is_switch: &[bool],
    ) -> Result<Self> {
        let mut p = PartitionedCredits::default();
        let mut next = 0u64;
        for (g, &n) in counters.iter().enumerate() {
            if n > u16::MAX as usize + 1 || next + n as u64 > u32::MAX as u64 {
                return Err(Error::input(
                    "switch.queue_mapping",
                    format!("{n} queues per input are too many for credits kept per queue"),
                ));
            }
            p.in_base.push(next as u32);
            next += n as u64;
            let per_vl = (n / vls).max(1) as u32;
            for c in 0..n {
                let vl_cap = in_cap[g * vls + c % vls];
                let share = if is_switch[g] {
                    sizing.share(vl_cap, per_vl, pkt_credits)
                } else {
                    (vl_cap >= pkt_credits).then_some(vl_cap)
                };
                let Some(share) = share else {
                    return Err(Error::input(
                        "switch.buffer_credits",
                        format!(
                            "{vl_cap} credits per VL split over {per_vl} queues leave {} per queue, less than one {pkt_credits}-credit packet (switch.static_mode = \"divided\" rounds a queue up to one packet)",
                            vl_cap / per_vl
                        ),
                    ));
                };
                p.used_cap.push([0, share]);
            }
        }
        p.out_base = peer.iter().map(|&d| p.in_base[d as usize]).collect();
        Ok(p)
    }

    /// The space of VL `vl` of input `g`: the sum of its queues' shares (what the buffer's
    /// lossless check holds it to).
    pub fn vl_space(&self, g: u32, vl: usize, vls: usize) -> u32 {
        self.in_slots(g)
            .skip(vl)
            .step_by(vls)
            .map(|s| self.used_cap[s][1])
            .fold(0u32, |a, c| a.saturating_add(c))
    }

    /// Prefetch hint for the state of counter `counter` of input `g`.
    #[inline(always)]
    pub fn prefetch(&self, g: u32, counter: u16) {
        crate::credit::prefetch::prefetch(&self.used_cap, self.in_slot(g, counter));
    }

    /// Number of slots (credit counters) of the whole network.
    pub fn slots(&self) -> usize {
        self.used_cap.len()
    }

    /// The available credits every output starts with, indexed by slot: the full share.
    pub fn initial_credits(&self) -> Vec<u32> {
        self.used_cap.iter().map(|uc| uc[1]).collect()
    }

    /// Slot of counter `counter` of the input driven by output `og`.
    #[inline]
    pub fn out_slot(&self, og: u32, counter: u16) -> usize {
        self.out_base[og as usize] as usize + counter as usize
    }

    /// Slot of counter `counter` of input `g`.
    #[inline]
    pub fn in_slot(&self, g: u32, counter: u16) -> usize {
        self.in_base[g as usize] as usize + counter as usize
    }

    /// The slots of input `g`.
    pub fn in_slots(&self, g: u32) -> std::ops::Range<usize> {
        let b = self.in_base[g as usize] as usize;
        let e = self
            .in_base
            .get(g as usize + 1)
            .map_or(self.used_cap.len(), |&x| x as usize);
        b..e
    }

    /// A packet of `credits` entered queue `counter` of input `g`. Returns the queue's
    /// occupancy, or `Err((occupied, share))` when it overflows its share.
    #[inline]
    pub fn occupy(
        &mut self,
        g: u32,
        counter: u16,
        credits: u32,
    ) -> std::result::Result<u32, (u32, u32)> {
        let s = self.in_slot(g, counter);
        let [used, cap] = &mut self.used_cap[s];
        *used += credits;
        if *used > *cap {
            return Err((*used, *cap));
        }
        Ok(*used)
    }

    /// A packet of `credits` left queue `counter` of input `g`.
    #[inline]
    pub fn release(&mut self, g: u32, counter: u16, credits: u32) {
        let s = self.in_slot(g, counter);
        self.used_cap[s][0] -= credits;
    }

    /// Credits occupied in slot `s`.
    pub fn used(&self, s: usize) -> u32 {
        self.used_cap[s][0]
    }

    /// The share of slot `s`.
    pub fn cap(&self, s: usize) -> u32 {
        self.used_cap[s][1]
    }

    /// The most credits output `og` holds for any queue of VL `vl` of the buffer it drives
    /// (`credits` indexed by slot): whether the port VL can send anything at all.
    pub fn vl_credits(&self, credits: &[u32], og: u32, peer: u32, vl: u8, vls: usize) -> u32 {
        let b = self.out_base[og as usize] as usize;
        self.in_slots(peer)
            .skip(vl as usize)
            .step_by(vls)
            .map(|s| credits[s - self.in_base[peer as usize] as usize + b])
            .max()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_split_evenly_per_vl_and_mirror_across_the_link() {
        // gport 0 (a switch input with 3 queues per VL, 2 VLs) driven by gport 1 (an HCA
        // input: one counter per VL)
        let p = PartitionedCredits::new(
            &[6, 2],
            &[300, 200, 50, 60],
            &[1, 0],
            2,
            34,
            QueueSizing::Split,
            &[true, false],
        )
        .unwrap();
        assert_eq!(p.slots(), 8);
        assert_eq!(p.in_slots(0), 0..6);
        assert_eq!(p.in_slots(1), 6..8);
        // VL 0 queues share 300, VL 1 queues share 200
        assert_eq!(
            (0..6).map(|s| p.cap(s)).collect::<Vec<_>>(),
            [100, 66, 100, 66, 100, 66]
        );
        // output 1 drives input 0: the same slots
        assert_eq!(p.out_slot(1, 4), p.in_slot(0, 4));
        assert_eq!(p.out_slot(0, 1), 7);
        let credits = p.initial_credits();
        assert_eq!(p.vl_credits(&credits, 1, 0, 1, 2), 66);
    }

    #[test]
    fn a_queue_overflows_its_share_not_the_buffer() {
        let mut p = PartitionedCredits::new(&[2], &[100], &[0], 1, 34, QueueSizing::Split, &[true])
            .unwrap();
        assert_eq!(p.occupy(0, 0, 34), Ok(34));
        assert_eq!(p.occupy(0, 1, 50), Ok(50));
        assert_eq!(p.occupy(0, 0, 34), Err((68, 50)));
        p.release(0, 0, 34);
        assert_eq!(p.used(0), 34);
    }

    #[test]
    fn a_share_below_one_packet_is_refused() {
        let e = PartitionedCredits::new(&[4], &[100], &[0], 1, 34, QueueSizing::Split, &[true])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("switch.buffer_credits") && e.contains("25 per queue"),
            "{e}"
        );
    }

    #[test]
    fn mode_a_divides_in_whole_packets_and_never_under_the_minimum() {
        // the spec's B.5 table: 1 KB of 64-B credits per port, 1-credit packets
        let a = QueueSizing::Divided { min_packets: 1 };
        let shares: Vec<u32> = [4u32, 5, 8, 9, 16, 17, 64]
            .iter()
            .map(|&q| a.share(16, q, 1).unwrap())
            .collect();
        assert_eq!(shares, [4, 3, 2, 1, 1, 1, 1]);
        // VOQnet keeps two packets per queue
        let net = QueueSizing::Divided { min_packets: 2 };
        assert_eq!(net.share(16, 64, 1), Some(2));
        assert_eq!(net.share(16, 4, 1), Some(4));
        // 34-credit packets: 300 credits over 3 queues = 100 → 2 whole packets = 68 credits
        assert_eq!(a.share(300, 3, 34), Some(68));
        // mode B: the same size whatever the number of queues
        let b = QueueSizing::PerQueue { credits: 16 };
        assert_eq!(
            (b.share(16, 4, 1), b.share(16, 1024, 1)),
            (Some(16), Some(16))
        );
        assert_eq!(
            QueueSizing::PerQueue { credits: 10 }.share(100, 1, 34),
            None
        );
        // split: exact, refused under one packet
        assert_eq!(QueueSizing::Split.share(16, 17, 1), None);
    }

    #[test]
    fn switch_inputs_are_sized_and_hca_buffers_keep_their_vl() {
        // gport 0: switch input with 2 VLs × 5 queues of a 16-credit VL; gport 1: an HCA
        let sizing = QueueSizing::Divided { min_packets: 1 };
        let p = PartitionedCredits::new(
            &[10, 2],
            &[16, 16, 40, 40],
            &[1, 0],
            2,
            1,
            sizing,
            &[true, false],
        )
        .unwrap();
        assert_eq!((0..10).map(|s| p.cap(s)).collect::<Vec<_>>(), [3; 10]);
        assert_eq!(p.vl_space(0, 1, 2), 15);
        assert_eq!((p.cap(10), p.cap(11)), (40, 40));
        assert_eq!(p.vl_space(1, 0, 2), 40);
        // 17 queues over 16 credits: one packet each, more than the nominal buffer
        let p = PartitionedCredits::new(&[17, 1], &[16, 16], &[1, 0], 1, 1, sizing, &[true, false])
            .unwrap();
        assert_eq!(p.vl_space(0, 0, 1), 17);
    }
}
