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

/// Per-queue credit state of every input buffer.
#[derive(Debug, Clone, Default)]
pub struct PartitionedCredits {
    /// Per input gport: its first slot.
    in_base: Vec<u32>,
    /// Per output gport: the first slot of the input it drives (`in_base[peer]`).
    out_base: Vec<u32>,
    /// Per slot: credits occupied in the queue's share.
    used: Vec<u32>,
    /// Per slot: the queue's share of the buffer.
    cap: Vec<u32>,
}

impl PartitionedCredits {
    /// Splits every input buffer: `counters[g]` counters (queues) at gport `g`, numbered
    /// `class * vls + vl`; each VL's capacity `in_cap[g * vls + vl]` is shared evenly by the
    /// VL's `counters[g] / vls` queues (the remainder of the division is left unused). Every
    /// share must hold a packet of `pkt_credits`.
    pub fn new(
        counters: &[usize],
        in_cap: &[u32],
        peer: &[u32],
        vls: usize,
        pkt_credits: u32,
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
                let share = in_cap[g * vls + c % vls] / per_vl;
                if share < pkt_credits {
                    return Err(Error::input(
                        "switch.buffer_credits",
                        format!(
                            "{} credits per VL split over {per_vl} queues leave {share} per queue, less than one {pkt_credits}-credit packet",
                            in_cap[g * vls + c % vls]
                        ),
                    ));
                }
                p.cap.push(share);
            }
        }
        p.used = vec![0; p.cap.len()];
        p.out_base = peer.iter().map(|&d| p.in_base[d as usize]).collect();
        Ok(p)
    }

    /// Number of slots (credit counters) of the whole network.
    pub fn slots(&self) -> usize {
        self.cap.len()
    }

    /// The available credits every output starts with, indexed by slot: the full share.
    pub fn initial_credits(&self) -> Vec<u32> {
        self.cap.clone()
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
            .map_or(self.cap.len(), |&x| x as usize);
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
        self.used[s] += credits;
        if self.used[s] > self.cap[s] {
            return Err((self.used[s], self.cap[s]));
        }
        Ok(self.used[s])
    }

    /// A packet of `credits` left queue `counter` of input `g`.
    #[inline]
    pub fn release(&mut self, g: u32, counter: u16, credits: u32) {
        let s = self.in_slot(g, counter);
        self.used[s] -= credits;
    }

    /// Credits occupied in slot `s`.
    pub fn used(&self, s: usize) -> u32 {
        self.used[s]
    }

    /// The share of slot `s`.
    pub fn cap(&self, s: usize) -> u32 {
        self.cap[s]
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
        let p = PartitionedCredits::new(&[6, 2], &[300, 200, 50, 60], &[1, 0], 2, 34).unwrap();
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
        let mut p = PartitionedCredits::new(&[2], &[100], &[0], 1, 34).unwrap();
        assert_eq!(p.occupy(0, 0, 34), Ok(34));
        assert_eq!(p.occupy(0, 1, 50), Ok(50));
        assert_eq!(p.occupy(0, 0, 34), Err((68, 50)));
        p.release(0, 0, 34);
        assert_eq!(p.used(0), 34);
    }

    #[test]
    fn a_share_below_one_packet_is_refused() {
        let e = PartitionedCredits::new(&[4], &[100], &[0], 1, 34)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("switch.buffer_credits") && e.contains("25 per queue"),
            "{e}"
        );
    }
}
