//! The end node's Input Adapter of drb-and-ddbbm spec B.5 (`hca.injection_queues = "scheme"`):
//!
//! 1. **admittance queues**, one per destination: a new message is stored whole in its
//!    destination's queue. They are the HCA's flows (one per source → destination pair, kept
//!    by `Traffic::flow_for`), each with its messages in order;
//! 2. **injection queues** organised like a switch output port per the queue scheme (spec
//!    B.2 implementation rules: an output buffer uses the downstream input's mapping): one
//!    per credit counter of the first switch's input — `destination mod Q` with DBBM, the
//!    congestion-bit queue Q with DDBBM (the bit latched per message, spec B.3.6), the
//!    destination with VOQnet, the first switch's output with VOQsw (look-ahead), one FIFO
//!    with 1Q (with `switch.buffer_sharing = "shared"` the counters are the VLs, so one FIFO
//!    per VL). Their space is `hca.injection_credits` per VL (default
//!    `switch.output_buffer_credits`), divided among the queues of a VL as `switch.static_mode`
//!    divides a switch's output buffer ([`QueueSizing`]);
//! 3. **admittance → injection**, round robin over the flows that have a packet: the next
//!    64-B packet (segment) of the flow's head message moves into the injection queue of its
//!    scheme queue when that queue has room for it (`Net::adapter_fill`);
//! 4. **injection → network**, weighted round robin over the injection queues whose head
//!    finds the credits of the first switch's queue it joins (`hca.injection_weights`,
//!    packets per turn, default 1 each: [`Wrr`]). The credit check is the one of the per-flow
//!    model: the head leaves only with the downstream credits of its queue.
//!
//! Packets are allocated when they move into an injection queue (their flow sequence numbers
//! follow the move order, which is the flow's order) and linked in [`PacketQueue`]s of the
//! packet store: flat arrays indexed by `base[hca] + counter`, nothing allocated per packet.
//! A packet to a congested destination at the head of a shared injection queue blocks the
//! packets behind it: HoL blocking at the source, as in a switch (absent from the per-flow
//! model, whose flows never wait behind each other).

use crate::config::Ps;
use crate::credit::endpoint::hca::FlowPacket;
use crate::credit::kind::AnySwitch;
use crate::credit::packet::{Packet, PacketQueue, NO_LOOKAHEAD};
use crate::credit::switch::buffer::{CreditKeeping, QueueSizing};
use crate::credit::Net;
use crate::error::{Error, Result};

/// Weighted round robin over `n` queues (spec B.5: "injection→network is weighted
/// round-robin"): the queue holding the turn keeps it for up to its weight in packets while it
/// can send; then the next queue that can send (in index order, wrapping) takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wrr {
    /// Queue holding the turn.
    pub turn: u32,
    /// Packets the turn may still send.
    pub left: u32,
}

impl Wrr {
    /// The state before the first pick: queue 0 takes the first turn.
    pub fn new(n: u32) -> Self {
        Wrr {
            turn: n.saturating_sub(1),
            left: 0,
        }
    }

    /// The queue that sends next among `n`, given which can (`ready`) and their weights
    /// (`weight`, ≥ 1); updates the turn. None when no queue can send.
    #[inline]
    pub fn pick(
        &mut self,
        n: u32,
        mut ready: impl FnMut(u32) -> bool,
        weight: impl Fn(u32) -> u32,
    ) -> Option<u32> {
        if n == 0 {
            return None;
        }
        if self.left > 0 && ready(self.turn) {
            self.left -= 1;
            return Some(self.turn);
        }
        for k in 1..=n {
            let q = (self.turn + k) % n;
            if ready(q) {
                self.turn = q;
                self.left = weight(q).max(1) - 1;
                return Some(q);
            }
        }
        None
    }
}

/// The injection queues of every HCA (spec B.5 Input Adapter, items (ii)–(iv)).
#[derive(Debug, Clone)]
pub struct InjectionQueues {
    /// Per HCA: its first injection queue.
    base: Vec<u32>,
    /// Per HCA: its injection queues (the credit counters of the first switch's input).
    count: Vec<u32>,
    /// Per injection queue: its packets, in order.
    queues: Vec<PacketQueue>,
    /// Per injection queue: credits its packets hold.
    used: Vec<u32>,
    /// Per injection queue: its share of the VL's injection buffer.
    cap: Vec<u32>,
    /// Per class (queue of a VL): its WRR weight in packets.
    weights: Vec<u32>,
    /// Data VLs (an injection queue's class is `counter / vls`).
    vls: usize,
    /// Per HCA: the WRR state.
    wrr: Vec<Wrr>,
    /// Per HCA: something changed that may let admittance move a packet (a flow became ready,
    /// a queue freed space, DDBBM status bits changed).
    dirty: Vec<bool>,
}

impl InjectionQueues {
    /// The injection queues of HCAs whose ports are `hca_gport`: `counters[h]` queues for HCA
    /// `h` (the credit counters of the input its link drives), each `vl_credits` per VL
    /// divided among the VL's queues by `sizing` (None: one queue per VL, whole), served with
    /// `weights` (one per queue of a VL; None: 1 each). `credits_key` names the key the size
    /// comes from in errors. Refuses a share under one packet of `pkt_credits` and a weight
    /// list whose length is not the number of queues of a VL.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        counters: &[u32],
        vls: usize,
        vl_credits: u32,
        sizing: Option<QueueSizing>,
        weights: Option<&[u32]>,
        pkt_credits: u32,
        credits_key: &'static str,
    ) -> Result<Self> {
        let n_hca = counters.len();
        let vls = vls.max(1);
        let classes = counters
            .iter()
            .map(|&c| (c as usize / vls).max(1) as u32)
            .max()
            .unwrap_or(1);
        let weights = match weights {
            None => vec![1; classes as usize],
            Some(w) => {
                if let Some(&c) = counters
                    .iter()
                    .find(|&&c| (c as usize / vls).max(1) != w.len())
                {
                    return Err(Error::input(
                        "hca.injection_weights",
                        format!(
                            "{} weights for {} injection queues per VL (the queues of the first switch's input with this switch.queue_mapping): give one weight per queue",
                            w.len(),
                            (c as usize / vls).max(1)
                        ),
                    ));
                }
                if let Some(&bad) = w.iter().find(|&&x| x == 0 || x > 255) {
                    return Err(Error::input(
                        "hca.injection_weights",
                        format!("weight {bad} outside 1–255"),
                    ));
                }
                w.to_vec()
            }
        };
        let mut iq = InjectionQueues {
            base: Vec::with_capacity(n_hca),
            count: counters.to_vec(),
            queues: Vec::new(),
            used: Vec::new(),
            cap: Vec::new(),
            weights,
            vls,
            wrr: counters.iter().map(|&c| Wrr::new(c)).collect(),
            dirty: vec![false; n_hca],
        };
        for &c in counters {
            let per_vl = (c as usize / vls).max(1) as u32;
            let share = match sizing {
                Some(s) => s.share(vl_credits, per_vl, pkt_credits),
                None => (vl_credits >= pkt_credits).then_some(vl_credits),
            };
            let Some(share) = share else {
                return Err(Error::input(
                    credits_key,
                    format!(
                        "{vl_credits} credits per VL split over {per_vl} injection queues (hca.injection_queues = \"scheme\") leave {} per queue, less than one {pkt_credits}-credit packet",
                        vl_credits / per_vl
                    ),
                ));
            };
            if iq.queues.len() + c as usize > u32::MAX as usize {
                return Err(Error::input(
                    credits_key,
                    "too many injection queues in the network",
                ));
            }
            iq.base.push(iq.queues.len() as u32);
            for _ in 0..c {
                iq.queues.push(PacketQueue::default());
                iq.used.push(0);
                iq.cap.push(share);
            }
        }
        Ok(iq)
    }

    /// Index of injection queue `counter` of HCA `h`.
    #[inline(always)]
    pub fn slot(&self, h: u32, counter: u16) -> usize {
        self.base[h as usize] as usize + counter as usize
    }

    /// Injection queues of HCA `h`.
    #[inline(always)]
    pub fn count(&self, h: u32) -> u32 {
        self.count[h as usize]
    }

    /// Credits injection queue `s` may still take.
    #[inline(always)]
    pub fn room(&self, s: usize) -> u32 {
        self.cap[s] - self.used[s]
    }

    /// The share of injection queue `s`.
    pub fn cap(&self, s: usize) -> u32 {
        self.cap[s]
    }

    /// The WRR weight of injection queue `counter` (its class's).
    #[inline(always)]
    pub fn weight(&self, counter: u32) -> u32 {
        self.weights[counter as usize / self.vls]
    }

    /// One line for `lnsim validate`: the queues per HCA, their shares, the weights.
    pub fn describe(&self) -> String {
        let (lo, hi) = (
            self.count.iter().min().copied().unwrap_or(0),
            self.count.iter().max().copied().unwrap_or(0),
        );
        let queues = if lo == hi {
            format!("{lo}")
        } else {
            format!("{lo}–{hi}")
        };
        let (clo, chi) = (
            self.cap.iter().min().copied().unwrap_or(0),
            self.cap.iter().max().copied().unwrap_or(0),
        );
        let share = if clo == chi {
            format!("{clo}")
        } else {
            format!("{clo}–{chi}")
        };
        let w: Vec<String> = self.weights.iter().map(|w| w.to_string()).collect();
        format!(
            "Input Adapter (spec B.5): {queues} injection queues per HCA ({} per VL × {} VLs) of {share} credits each, weighted round robin {}",
            self.weights.len(),
            self.vls,
            if self.weights.iter().all(|&x| x == 1) {
                "with equal weights".to_string()
            } else {
                format!("with weights [{}] per VL", w.join(", "))
            }
        )
    }

    /// Marks HCA `h`: admittance may be able to move a packet.
    #[inline(always)]
    pub fn touch(&mut self, h: u32) {
        self.dirty[h as usize] = true;
    }
}

impl Net {
    fn ad(&self) -> &InjectionQueues {
        self.hcas.adapter.as_ref().expect("injection queues")
    }

    fn ad_mut(&mut self) -> &mut InjectionQueues {
        self.hcas.adapter.as_mut().expect("injection queues")
    }

    /// The injection queue (= credit counter of the first switch's input) a flow's next
    /// packet joins, from its recorded credit slot (`ready_slot`, kept current by
    /// `endpoint/hca.rs`).
    #[inline(always)]
    fn counter_of_slot(&self, g: u32, slot: u32) -> u16 {
        (slot as usize - self.credit_slot(g, 0)) as u16
    }

    /// Spec B.5 (iii): round robin over the ready flows (admittance queues) of HCA `h`,
    /// moving the next packet of each into the injection queue of its scheme queue when that
    /// queue has room, until a whole round moves nothing.
    pub(crate) fn adapter_fill(&mut self, h: u32, now: Ps) {
        let hi = h as usize;
        if !std::mem::take(&mut self.ad_mut().dirty[hi]) {
            return;
        }
        let g = self.hcas.hca_gport[hi];
        // flows tried in turn since the last move (the pointer moves only with a move)
        let mut tried = 0usize;
        loop {
            let n = self.hcas.ready[hi].len();
            if n == 0 || tried >= n {
                break;
            }
            let idx = (self.hcas.hca_rr[hi] as usize + tried) % n;
            let counter = self.counter_of_slot(g, self.hcas.ready_slot[hi][idx]);
            let s = self.ad().slot(h, counter);
            if self.ad().room(s) >= self.pkt_credits {
                self.admit_packet(h, idx, counter, s, now);
                tried = 0;
            } else {
                tried += 1;
            }
        }
    }

    /// Moves the next packet of flow `ready[h][idx]` into injection queue `s` (counter
    /// `counter`): builds it as the per-flow model does at the wire (DDBBM's bit read at a
    /// message's first packet and kept for the message, spec B.3.4, B.3.6).
    fn admit_packet(&mut self, h: u32, idx: usize, counter: u16, s: usize, now: Ps) {
        let hi = h as usize;
        let f = self.hcas.ready[hi][idx];
        let FlowPacket {
            created,
            msg_done,
            flood,
            dst,
            flags,
            vl,
            still_ready,
            lid_offset,
        } = self.take_flow_packet(h, f, now);
        let src = self.traffic.flows[f as usize].source;
        if still_ready {
            self.hcas.hca_rr[hi] = idx as u32 + 1;
            // its next packet may start a message, which reads the status bit afresh
            let g = self.hcas.hca_gport[hi];
            self.update_ready_slot(h, g, idx);
        } else {
            self.traffic.flows[f as usize].ready = false;
            self.hcas.ready[hi].remove(idx);
            let old = self.hcas.ready_slot[hi].remove(idx);
            self.hcas.slot_waiting[old as usize] -= 1;
            self.hcas.hca_rr[hi] = idx as u32;
        }
        let pid = self.pkts.alloc(Packet {
            src: h,
            dst,
            flow: f,
            bytes: self.pkt_bytes,
            credits: self.pkt_credits,
            vl,
            flags,
            path: lid_offset,
            created,
            ..Packet::default()
        });
        // the injection queue it sits in (a switch overwrites it when the head arrives)
        self.pkts.set_down_counter(pid, counter, NO_LOOKAHEAD);
        let mut q = self.ad().queues[s];
        self.pkts.push_back(&mut q, pid);
        let credits = self.pkt_credits;
        let ad = self.ad_mut();
        ad.queues[s] = q;
        ad.used[s] += credits;
        if msg_done && flood {
            let source = &mut self.traffic.sources[src as usize];
            if source.parked > 0 {
                source.parked -= 1;
            } else if source.active(now) {
                self.refill(src, now);
            }
        }
    }

    /// Spec B.5 (iv): HCA `h` (its link idle, its control packets sent) sends the head of the
    /// injection queue the weighted round robin picks among those whose head finds its
    /// credits at the first switch; then admittance refills the space freed.
    pub(crate) fn adapter_send(&mut self, h: u32, now: Ps) {
        let g = self.hcas.hca_gport[h as usize];
        let base = self.credit_slot(g, 0);
        let ad = self.ad();
        let n = ad.count(h);
        let mut wrr = ad.wrr[h as usize];
        let picked = wrr.pick(
            n,
            |c| {
                let s = ad.slot(h, c as u16);
                match ad.queues[s].front() {
                    Some(pid) => self.links.credits[base + c as usize] >= self.pkts[pid].credits,
                    None => false,
                }
            },
            |c| ad.weight(c),
        );
        let Some(c) = picked else {
            return;
        };
        let ad = self.ad_mut();
        ad.wrr[h as usize] = wrr;
        let s = ad.slot(h, c as u16);
        let mut q = ad.queues[s];
        let pid = self
            .pkts
            .pop_front(&mut q)
            .expect("picked a non-empty queue");
        let credits = self.pkts[pid].credits;
        let ad = self.ad_mut();
        ad.queues[s] = q;
        ad.used[s] -= credits;
        ad.dirty[h as usize] = true;
        let f = self.pkts[pid].flow;
        let fl = &mut self.traffic.flows[f as usize];
        fl.tx_bytes += self.pkts[pid].bytes as u64;
        fl.tx_packets += 1;
        self.hcas.hca_blocked[h as usize] = 0;
        self.transmit::<AnySwitch>(h, pid, now);
        self.adapter_fill(h, now);
    }

    /// End-of-run check of the injection queues: every packet sits in the queue of HCA `src`
    /// whose counter its destination, VL and congestion bit select, the queue's credits count
    /// exactly its packets and stay within its share. Returns the packets they hold.
    pub(crate) fn check_injection_queues(&self) -> Result<u64> {
        let Some(ad) = &self.hcas.adapter else {
            return Ok(0);
        };
        let mut held = 0u64;
        for h in 0..ad.count.len() as u32 {
            let g = self.hcas.hca_gport[h as usize];
            for c in 0..ad.count(h) {
                let s = ad.slot(h, c as u16);
                let mut used = 0u32;
                for pid in self.pkts.queue_ids(&ad.queues[s]) {
                    let p = &self.pkts[pid];
                    let want = self.downstream_counter(g, p.src, p.dst, p.path, p.vl, p.flags);
                    if p.src != h || want != c as u16 || self.pkts.down_counter(pid) != c as u16 {
                        return Err(Error::Internal(format!(
                            "HCA {h}: packet {pid} (from {} to {}) in injection queue {c}, belongs in queue {want} of HCA {}",
                            p.src, p.dst, p.src
                        )));
                    }
                    used += p.credits;
                    held += 1;
                }
                if used != ad.used[s] || used > ad.cap[s] {
                    return Err(Error::Internal(format!(
                        "HCA {h}: injection queue {c} holds {used} credits, recorded {}, share {}",
                        ad.used[s], ad.cap[s]
                    )));
                }
            }
        }
        Ok(held)
    }
}

/// The injection queues of `hca.injection_queues = "scheme"` (None with `"per_flow"`), one
/// per credit counter of the input each HCA's link drives (spec B.5). Refuses the keys where
/// they mean nothing, and `"scheme"` with a congestion control that paces flows (IB CC) or
/// chooses their paths per packet ([`crate::credit::cc::chooses_paths`]): those act per flow
/// at the wire, which the adapter does not model.
pub(crate) fn injection_queues(
    s: &crate::config::Scenario,
    keeping: &CreditKeeping,
    sizing: Option<QueueSizing>,
    hca_gport: &[u32],
    peer: &[u32],
    vls: usize,
    pkt_credits: u32,
) -> Result<Option<InjectionQueues>> {
    use crate::config::InjectionQueues as Kind;
    let hca = &s.hca;
    if hca.injection_queues == Kind::PerFlow {
        for (key, set) in [
            ("hca.injection_credits", hca.injection_credits.is_some()),
            ("hca.injection_weights", hca.injection_weights.is_some()),
        ] {
            if set {
                return Err(Error::input(
                    key,
                    "is only for hca.injection_queues = \"scheme\" (spec B.5 Input Adapter); remove it or set that",
                ));
            }
        }
        return Ok(None);
    }
    if crate::credit::cc::sends_cnps(s) {
        return Err(Error::input(
            "hca.injection_queues",
            "\"scheme\" cannot run with cc.enabled = true: the congestion control's per-flow injection gate acts where the per-flow model sends; allowed: \"per_flow\", or cc.enabled = false (DDBBM needs no cc.enabled)",
        ));
    }
    if crate::credit::cc::chooses_paths(s) {
        return Err(Error::input(
            "hca.injection_queues",
            "\"scheme\" cannot run with drb.enabled = true (DRB's multipath choice is made per flow at the wire); allowed: \"per_flow\"",
        ));
    }
    let (vl_credits, key) = match hca.injection_credits {
        Some(c) => (c, "hca.injection_credits"),
        None if s.switch.output_buffer_credits > 0 => {
            (s.switch.output_buffer_credits, "switch.output_buffer_credits")
        }
        None => {
            return Err(Error::input(
                "hca.injection_credits",
                "is required with hca.injection_queues = \"scheme\" when switch.output_buffer_credits is 0: the injection buffer per VL in credits (spec B.5: a switch output port's, e.g. 16 for 1 KB of 64-B credits)",
            ))
        }
    };
    let counters: Vec<u32> = hca_gport
        .iter()
        .map(|&g| match keeping {
            CreditKeeping::SharedPool(_) => vls as u32,
            CreditKeeping::Partitioned(p) => p.in_slots(peer[g as usize]).len() as u32,
        })
        .collect();
    InjectionQueues::new(
        &counters,
        vls,
        vl_credits,
        sizing,
        hca.injection_weights.as_deref(),
        pkt_credits,
        key,
    )
    .map(Some)
}

#[cfg(test)]
mod tests;
