//! Buffer organisation: the one decision point `(packet, output) → queue` of an input buffer,
//! and how the link's credits are kept for those queues (architecture "Seams that keep it
//! changeable"; spec §3.4).
//!
//! Two independent choices, each an `enum` dispatched with `match` (no trait objects on the
//! per-packet path), each variant one file:
//!
//! - **queue scheme** ([`QueueScheme`]): which queue of a switch input a packet joins, decided
//!   when its head arrives from a [`QueueQuery`] — the input, the packet's destination HCA, the
//!   output this switch's forwarding table chose, its VL. An input's queues are numbered
//!   `class * vls + vl`: the scheme picks the *class* (`0..queues_per_vl`), the VL keeps its
//!   own queues.
//!   - [`one_queue`]: one FIFO per VL (1Q);
//!   - [`voq_switch`]: one queue per output of this switch (VOQsw) — the CC studies' model;
//!   - [`voq_net`]: one queue per destination (VOQnet), built in tests only so far.
//! - **credit keeping** ([`CreditKeeping`]): what the upstream's credits count.
//!   - [`shared_pool`]: one pool per input buffer and VL shared by all the VL's queues;
//!   - [`partitioned`]: the VL's space split evenly among its queues, credits per queue; the
//!     upstream looks ahead at the next switch's forwarding table to know the queue
//!     ([`Net::downstream_counter`]). Built in tests only so far.
//!
//! A *credit counter* is what one credit count covers: the VL with a shared pool, the queue
//! with partitioned credits (the VL at an HCA's receive buffer, which has one queue per VL).
//! Events that carry credits ([`crate::credit::Ev::InputRelease`],
//! [`crate::credit::Ev::CreditArrive`]) carry the counter; [`Net::credit_slot`] turns it into
//! the index of the output's `credits`.
//!
//! Where the network asks: `switch/input.rs` (a head arrives: [`QueueScheme::queue_of`], then
//! [`Net::occupy_queue`]); `switch/arbiter.rs` (which queue of an input requests an output:
//! [`QueueScheme::requesting_queue`], or a search of the input's queues of the VL when several
//! queues can; credit check: [`Net::credit_slot_for`]); `endpoint/hca.rs` (an HCA's credits
//! for the first switch: [`Net::credit_slot_for`]). The injection side keeps one queue per
//! flow (queue pair), decided by `Traffic::flow_for`; an output has no queues of its own in this
//! input-buffered switch.
//!
//! ## To add a queue scheme (DBBM, DDBBM)
//!
//! - **DBBM** (destination-based buffer management: `class = destination mod n` with `n`
//!   queues per VL): write `switch/buffer/dbbm.rs` with `pub struct Dbbm { pub queues: u32 }`
//!   and `queues_per_vl` (= `queues`) and `class_of` (`q.dst % self.queues`), like
//!   [`voq_net`]; add a variant `Dbbm(dbbm::Dbbm)` to [`QueueScheme`] and an arm in each of its
//!   `match`es (`requesting_queue` returns None: several queues may request one output,
//!   `heads_share_outputs` returns true); register the scenario value in
//!   [`QueueScheme::from_config`] (with the key in `config/`).
//! - **DDBBM** (DBBM plus a dynamically assigned extra queue for a congested destination):
//!   write `switch/buffer/ddbbm.rs` the same way; its per-input table of dynamically assigned
//!   queues lives in the `Ddbbm` struct, indexed by [`QueueQuery::input`] (a gport). The table
//!   changes when a packet joins and when a queue empties: give `queue_of` a `&mut self`
//!   variant for `switch_receive` (the arrival, `switch/input.rs`) and call a release from
//!   `grant` where the queue's last packet leaves (`switch/arbiter.rs`, after `pop_front`);
//!   the destination's congestion detection comes from the congestion-management hooks
//!   (`credit/cc/mod.rs`).
//!
//! Request bookkeeping and the arbiter handle both kinds of scheme: those where at most one
//! queue of an input can request an output on a VL (1Q, VOQsw: one request bit per input) and
//! those where several can (VOQnet, DBBM, DDBBM: a count of requesting heads per input,
//! output and VL, [`Net::req_heads`](crate::credit::Net)).

pub mod one_queue;
pub mod partitioned;
pub mod shared_pool;
pub mod voq_net;
pub mod voq_switch;

use crate::config::QueueMappingKind;
use crate::credit::Net;
use crate::routing::tables::NO_PORT;
use one_queue::OneQueue;
use partitioned::PartitionedCredits;
use shared_pool::SharedPool;
use voq_net::VoqNet;
use voq_switch::VoqSwitch;

/// What a queue scheme may look at to place a packet.
#[derive(Debug, Clone, Copy)]
pub struct QueueQuery {
    /// The input gport the packet arrives at (a per-input table is indexed by it).
    pub input: u32,
    /// Destination HCA index (LID − 1).
    pub dst: u32,
    /// Local output port the forwarding table chose at this switch.
    pub out: u16,
    /// Virtual lane.
    pub vl: u8,
}

/// How an input buffer splits into queues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueScheme {
    /// One FIFO per VL ([`one_queue`]).
    OneQueue(OneQueue),
    /// One queue per (output of this switch, VL) ([`voq_switch`]).
    VoqSwitch(VoqSwitch),
    /// One queue per (destination, VL) ([`voq_net`]).
    VoqNet(VoqNet),
}

impl QueueScheme {
    /// From the scenario key `switch.queue_mapping`.
    pub fn from_config(k: QueueMappingKind) -> Self {
        match k {
            QueueMappingKind::Voq => QueueScheme::VoqSwitch(VoqSwitch),
            QueueMappingKind::OneQueue => QueueScheme::OneQueue(OneQueue),
        }
    }

    /// Queues per VL at an input of a switch with `ports` ports.
    pub fn queues_per_vl(self, ports: usize) -> usize {
        match self {
            QueueScheme::OneQueue(s) => s.queues_per_vl(ports),
            QueueScheme::VoqSwitch(s) => s.queues_per_vl(ports),
            QueueScheme::VoqNet(s) => s.queues_per_vl(ports),
        }
    }

    /// Queues per input of a switch with `ports` ports and `vls` VLs.
    pub fn queues_per_input(self, ports: usize, vls: usize) -> usize {
        self.queues_per_vl(ports) * vls
    }

    /// Local index (within the input's queues) of the queue the packet described by `q` joins.
    #[inline(always)]
    pub fn queue_of(self, q: &QueueQuery, vls: usize) -> u32 {
        let class = match self {
            QueueScheme::OneQueue(s) => s.class_of(q),
            QueueScheme::VoqSwitch(s) => s.class_of(q),
            QueueScheme::VoqNet(s) => s.class_of(q),
        };
        class * vls as u32 + q.vl as u32
    }

    /// The local index of the one queue of an input whose head can request output `out` on
    /// `vl`, or None when several queues can (the arbiter then searches the VL's queues).
    #[inline(always)]
    pub fn requesting_queue(self, out: u16, vl: u8, vls: usize) -> Option<u32> {
        match self {
            QueueScheme::OneQueue(s) => Some(s.requesting_queue(out, vl)),
            QueueScheme::VoqSwitch(s) => Some(s.requesting_queue(out, vl, vls)),
            QueueScheme::VoqNet(_) => None,
        }
    }

    /// True when several queues of one input can have heads requesting the same output on the
    /// same VL (requests are then counted per input, output and VL).
    #[inline(always)]
    pub fn several_heads_per_output(self) -> bool {
        matches!(self, QueueScheme::VoqNet(_))
    }

    /// True when a queue's packets can target several outputs (its new head must be looked at
    /// after a grant).
    #[inline(always)]
    pub fn heads_share_outputs(self) -> bool {
        matches!(self, QueueScheme::OneQueue(_) | QueueScheme::VoqNet(_))
    }
}

/// How the credits of a link are kept.
#[derive(Debug, Clone)]
pub enum CreditKeeping {
    /// One pool per input buffer and VL ([`shared_pool`]).
    SharedPool(SharedPool),
    /// Space partitioned per queue, credits per queue ([`partitioned`]).
    Partitioned(PartitionedCredits),
}

/// The credit keeping a network is built with (the partitioned state needs the built ports).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreditKeepingKind {
    /// [`CreditKeeping::SharedPool`].
    SharedPool,
    /// [`CreditKeeping::Partitioned`].
    Partitioned,
}

/// The buffer organisation a network is built with when not the scenario's own (tests build
/// the variants no scenario key selects yet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferChoice {
    /// The queue scheme.
    pub scheme: QueueScheme,
    /// How credits are kept.
    pub credits: CreditKeepingKind,
}

impl CreditKeeping {
    /// The most credits output `og` holds for VL `vl`: the pool, or the best-provided queue of
    /// the VL. `credits` and `peer` are the network's arrays of available credits and of link
    /// ends.
    #[inline(always)]
    pub fn vl_credits(&self, credits: &[u32], peer: &[u32], og: u32, vl: u8, vls: usize) -> u32 {
        match self {
            CreditKeeping::SharedPool(_) => credits[SharedPool::slot(og, vl as u16, vls)],
            CreditKeeping::Partitioned(p) => p.vl_credits(credits, og, peer[og as usize], vl, vls),
        }
    }
}

impl Net {
    /// Index in `credits` of counter `counter` held by output `og`.
    #[inline(always)]
    pub(crate) fn credit_slot(&self, og: u32, counter: u16) -> usize {
        match &self.credit_keeping {
            CreditKeeping::SharedPool(_) => SharedPool::slot(og, counter, self.vls),
            CreditKeeping::Partitioned(p) => p.out_slot(og, counter),
        }
    }

    /// The VL of credit counter `counter`.
    #[inline(always)]
    pub(crate) fn counter_vl(&self, counter: u16) -> u8 {
        match &self.credit_keeping {
            CreditKeeping::SharedPool(_) => counter as u8,
            CreditKeeping::Partitioned(_) => (counter as usize % self.vls) as u8,
        }
    }

    /// The counter a packet in queue `qid` (a global queue index) of input `ig` on `vl` holds.
    #[inline(always)]
    pub(crate) fn input_counter(&self, ig: u32, qid: usize, vl: u8) -> u16 {
        match &self.credit_keeping {
            CreditKeeping::SharedPool(_) => vl as u16,
            CreditKeeping::Partitioned(_) => (qid as u32 - self.queue_base[ig as usize]) as u16,
        }
    }

    /// The credit counter a packet for HCA `dst` on `vl` will hold in the buffer output `og`
    /// drives: its VL with a shared pool; with partitioned credits the queue it will join
    /// there (look-ahead routing: the next switch's forwarding table gives the output).
    #[inline(always)]
    pub(crate) fn downstream_counter(&self, og: u32, dst: u32, vl: u8) -> u16 {
        match &self.credit_keeping {
            CreditKeeping::SharedPool(_) => vl as u16,
            CreditKeeping::Partitioned(_) => self.lookahead_queue(og, dst, vl),
        }
    }

    /// Index in `credits` of what a packet for `dst` on `vl` needs at output `og`.
    #[inline(always)]
    pub(crate) fn credit_slot_for(&self, og: u32, dst: u32, vl: u8) -> usize {
        match &self.credit_keeping {
            CreditKeeping::SharedPool(_) => SharedPool::slot(og, vl as u16, self.vls),
            CreditKeeping::Partitioned(_) => self.partitioned_slot_for(og, dst, vl),
        }
    }

    /// [`Net::credit_slot_for`] with credits kept per queue.
    #[cold]
    #[inline(never)]
    fn partitioned_slot_for(&self, og: u32, dst: u32, vl: u8) -> usize {
        let CreditKeeping::Partitioned(p) = &self.credit_keeping else {
            unreachable!("credits kept per queue")
        };
        p.out_slot(og, self.lookahead_queue(og, dst, vl))
    }

    /// The queue of the input driven by `og` that a packet for `dst` on `vl` will join (its VL
    /// at an HCA).
    #[inline(never)]
    fn lookahead_queue(&self, og: u32, dst: u32, vl: u8) -> u16 {
        let down = self.peer[og as usize];
        if !self.is_switch[down as usize] {
            return vl as u16;
        }
        let sw = self.node_of[down as usize];
        let out = self.lft.out_port(sw, dst + 1);
        if out == NO_PORT {
            return vl as u16; // the arrival reports the missing route
        }
        let q = QueueQuery {
            input: down,
            dst,
            out,
            vl,
        };
        self.queue_scheme.queue_of(&q, self.vls) as u16
    }

    /// A packet of `credits` on `vl` entered the buffer of input `g`: takes the credits the
    /// upstream reserved for it from the VL's space. Returns the VL's new occupancy, or None
    /// (and records the fault) if the buffer would overflow — which credit flow control must
    /// make impossible.
    #[inline(always)]
    pub(crate) fn occupy(&mut self, g: u32, vl: u8, credits: u32) -> Option<u32> {
        let iv = g as usize * self.vls + vl as usize;
        self.in_used[iv] += credits;
        if self.in_used[iv] > self.in_cap[iv] {
            let name = self.port_name(g);
            self.fail(format!(
                "lossless violated: input buffer {name} VL {vl} holds {} credits, capacity {}",
                self.in_used[iv], self.in_cap[iv]
            ));
            return None;
        }
        Some(self.in_used[iv])
    }

    /// The packet that [`Net::occupy`] placed at input `g` joined counter `counter`: with
    /// partitioned credits it takes them from the queue's share (a no-op with a shared pool).
    /// Returns false (and records the fault) if the share would overflow.
    #[inline(always)]
    pub(crate) fn occupy_queue(&mut self, g: u32, counter: u16, credits: u32) -> bool {
        match &self.credit_keeping {
            CreditKeeping::SharedPool(_) => true,
            CreditKeeping::Partitioned(_) => self.occupy_share(g, counter, credits),
        }
    }

    /// [`Net::occupy_queue`] with credits kept per queue.
    #[cold]
    #[inline(never)]
    fn occupy_share(&mut self, g: u32, counter: u16, credits: u32) -> bool {
        let CreditKeeping::Partitioned(p) = &mut self.credit_keeping else {
            unreachable!("credits kept per queue")
        };
        match p.occupy(g, counter, credits) {
            Ok(_) => true,
            Err((used, cap)) => {
                let name = self.port_name(g);
                self.fail(format!(
                    "lossless violated: queue {counter} of input buffer {name} holds {used} credits, its share is {cap}"
                ));
                false
            }
        }
    }

    /// A packet of `credits` on `vl`, counter `counter`, left input `g`. Returns the VL's new
    /// occupancy.
    #[inline(always)]
    pub(crate) fn release_input(&mut self, g: u32, vl: u8, counter: u16, credits: u32) -> u32 {
        let iv = g as usize * self.vls + vl as usize;
        self.in_used[iv] -= credits;
        if let CreditKeeping::Partitioned(p) = &mut self.credit_keeping {
            p.release(g, counter, credits);
        }
        self.in_used[iv]
    }
}

#[cfg(test)]
mod tests;
