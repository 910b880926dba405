//! Packets in flight and their store: a slab of fixed-size records indexed by `u32`, recycled
//! through a free list (no per-packet heap allocation on the hot path); the ids come from the
//! engine's [`Slab`], which the cycle-level model shares.

use crate::config::Ps;
use crate::engine::slab::{Columns, Slab};

/// Packet flag: FECN set by a congested switch (IB CC, spec §2.2.5).
pub const FECN: u8 = 1;
/// Packet flag: BECN (carried by CNPs, spec §2.3.1).
pub const BECN: u8 = 2;
/// Packet flag: this is a congestion notification packet, not data.
pub const CNP: u8 = 4;
/// Packet flag: DDBBM's congestion bit (spec B.3.4): the source marks a packet for a
/// destination that has declared itself congested, and every switch with
/// `switch.queue_mapping = "ddbbm"` puts it in the dynamic queue. Set it when the packet is
/// built (`Packet::flags |= CBIT`, latched per message, spec B.3.6) and never change it on the
/// way: with credits per queue the upstream reserves the queue the bit selects. Whoever sets
/// it at an HCA must take the injection credits with `Net::credit_slot_for_flags`
/// (`switch/buffer/accounting.rs`). The HCA sets it (`credit/endpoint/hca.rs`) from DDBBM's status bits.
pub const CBIT: u8 = 8;

/// One packet (an IB packet of `credits` 64-byte credits) moving as a whole with virtual
/// cut-through timing; credits are still counted per 64-byte unit.
#[derive(Debug, Clone, Copy, Default)]
pub struct Packet {
    /// Source HCA index (LID − 1).
    pub src: u32,
    /// Destination HCA index (LID − 1).
    pub dst: u32,
    /// Flow (queue pair) id.
    pub flow: u32,
    /// Bytes on the wire.
    pub bytes: u32,
    /// Credits it occupies in a buffer.
    pub credits: u32,
    /// Virtual lane.
    pub vl: u8,
    /// [`FECN`], [`BECN`], [`CNP`], [`CBIT`] bits.
    pub flags: u8,
    /// Switch hops taken so far.
    pub hops: u16,
    /// Output port chosen at the current switch.
    pub out_port: u16,
    /// Path chosen by the source: 0 = the forwarding tables' route; with `drb.enabled`,
    /// k > 0 = path k of its (source, destination) pair, which `switch/input.rs` follows hop
    /// by hop (drb-and-ddbbm spec A.3.5 mode 1, `credit/routing/multipath_routes.rs`).
    pub path: u8,
    /// For a notification: the path of the data packet it answers (DRB counts notifications
    /// per path, drb-and-ddbbm spec A.3.2); 0 otherwise.
    pub cn_path: u8,
    /// Global input port where it currently sits.
    pub at: u32,
    /// Creation time (latency reference).
    pub created: Ps,
    /// Time its first credit entered the network.
    pub injected: Ps,
    /// Time its tail (last credit) arrives at the current holder.
    pub tail: Ps,
}

// the slab is walked on every hop: keep a packet in 56 bytes (with the store's queue link and
// look-ahead, one 64-byte row)
const _: () = assert!(std::mem::size_of::<Packet>() == 56);

/// "No packet" in [`PacketQueue`] links.
pub const NIL: u32 = u32::MAX;

/// A FIFO of packets linked by packet id; its operations are on [`PacketStore`].
#[derive(Debug, Clone, Copy)]
pub struct PacketQueue {
    head: u32,
    tail: u32,
}

impl Default for PacketQueue {
    fn default() -> Self {
        PacketQueue {
            head: NIL,
            tail: NIL,
        }
    }
}

impl PacketQueue {
    /// True when no packet is queued.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == NIL
    }
    /// The packet at the head.
    #[inline]
    pub fn front(&self) -> Option<u32> {
        (self.head != NIL).then_some(self.head)
    }
}

/// One row of the packet slab: the packet record and what the store keeps beside it, in one
/// 64-byte cache line (a packet is read, queued and dequeued at every hop).
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
struct Row {
    p: Packet,
    /// Next packet of the [`PacketQueue`] it sits in ([`NIL`] at the tail).
    next: u32,
    /// At a switch, the credit counter the packet will hold in the input its output drives
    /// (`Net::downstream_counter`, set when its head arrives: the look-ahead of spec B.2 is
    /// made once per hop, not at every arbitration).
    down: u16,
    /// The output port the look-ahead found at the next switch ([`NO_LOOKAHEAD`]: none made),
    /// which that switch then takes without reading its forwarding table again.
    next_out: u16,
}

// one packet, one cache line
const _: () = assert!(std::mem::size_of::<Row>() == 64);

/// [`PacketStore::next_out`] of a packet whose route at its next switch was not looked up.
pub const NO_LOOKAHEAD: u16 = u16::MAX;

/// The columns of the packet slab: the rows (packet, queue link, look-ahead) and the packet's
/// sequence number in its flow (read only at delivery).
#[derive(Debug, Default)]
struct Records {
    rows: Vec<Row>,
    /// `[id]`: sequence number in its flow, 1, 2, … in allocation order (0: a [`CNP`]).
    seq: Vec<u32>,
}

impl Columns for Records {
    type Row = Packet;
    #[inline]
    fn push(&mut self, p: Packet) {
        self.rows.push(Row {
            p,
            next: NIL,
            down: 0,
            next_out: NO_LOOKAHEAD,
        });
        self.seq.push(0);
    }
    /// (The queue link is set when the packet joins a queue, the sequence number by
    /// [`PacketStore::alloc`]; no look-ahead is known yet.)
    #[inline]
    fn set(&mut self, i: usize, p: Packet) {
        let r = &mut self.rows[i];
        r.p = p;
        r.next_out = NO_LOOKAHEAD;
    }
    #[inline]
    fn len(&self) -> usize {
        self.rows.len()
    }
}

/// Slab of packets: ids from the engine's [`Slab`] (free list, live count; issue 15), the
/// intrusive FIFO queues through the `next` column, the fewest credits of any packet, and the
/// per-flow sequence numbers that let receivers count out-of-order deliveries (spec B.3.6).
#[derive(Debug)]
pub struct PacketStore {
    slab: Slab<Records>,
    min_credits: u32,
    /// `[flow]`: the last sequence number given to a data packet of the flow.
    flow_seq: Vec<u32>,
}

impl Default for PacketStore {
    fn default() -> Self {
        PacketStore {
            slab: Slab::new(),
            min_credits: u32::MAX,
            flow_seq: Vec::new(),
        }
    }
}

impl PacketStore {
    /// Stores a packet; returns its id. A data packet (no [`CNP`] flag) gets the next sequence
    /// number of its flow (1, 2, …: packets are allocated in the order their flow creates
    /// them), read back by [`PacketStore::seq`] (spec B.3.6: out-of-order delivery is counted
    /// at receivers against this order).
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> u32 {
        self.min_credits = self.min_credits.min(p.credits);
        let seq = if p.flags & CNP == 0 {
            let f = p.flow as usize;
            if f >= self.flow_seq.len() {
                // flows are created during the run: grows once per new flow id
                self.flow_seq.resize(f + 1, 0);
            }
            self.flow_seq[f] = self.flow_seq[f].wrapping_add(1);
            self.flow_seq[f]
        } else {
            0
        };
        let id = self.slab.alloc(p);
        self.slab.cols_mut().seq[id as usize] = seq;
        id
    }
    /// Sequence number of packet `id` in its flow (1-based; 0 for a [`CNP`]).
    #[inline]
    pub fn seq(&self, id: u32) -> u32 {
        self.slab.cols().seq[id as usize]
    }
    /// The downstream credit counter recorded for packet `id` at its current switch
    /// ([`PacketStore::set_down_counter`]).
    #[inline]
    pub fn down_counter(&self, id: u32) -> u16 {
        self.slab.cols().rows[id as usize].down
    }
    /// Records the credit counter packet `id` will hold in the input its current switch
    /// output drives (set when its head arrives at a switch), and the output port the
    /// look-ahead found at the next switch ([`NO_LOOKAHEAD`]: none).
    #[inline]
    pub fn set_down_counter(&mut self, id: u32, counter: u16, next_out: u16) {
        let r = &mut self.slab.cols_mut().rows[id as usize];
        r.down = counter;
        r.next_out = next_out;
    }
    /// The output port the look-ahead found for packet `id` at the switch it is heading to
    /// ([`NO_LOOKAHEAD`]: none was made).
    #[inline]
    pub fn next_out(&self, id: u32) -> u16 {
        self.slab.cols().rows[id as usize].next_out
    }
    /// Prefetch hint for the row of packet `id` ([`crate::credit::prefetch`]).
    #[inline(always)]
    pub fn prefetch(&self, id: u32) {
        crate::credit::prefetch::prefetch(&self.slab.cols().rows, id as usize);
    }
    /// Releases a packet id.
    #[inline]
    pub fn free(&mut self, id: u32) {
        self.slab.free(id);
    }
    /// Fewest credits of any packet stored so far (`u32::MAX` before the first): no packet
    /// fits into fewer credits than this.
    #[inline]
    pub fn min_credits(&self) -> u32 {
        self.min_credits
    }
    /// Appends packet `id` to queue `q`.
    #[inline]
    pub fn push_back(&mut self, q: &mut PacketQueue, id: u32) {
        let rows = &mut self.slab.cols_mut().rows;
        rows[id as usize].next = NIL;
        if q.tail == NIL {
            q.head = id;
        } else {
            rows[q.tail as usize].next = id;
        }
        q.tail = id;
    }
    /// Removes the head of queue `q`.
    #[inline]
    pub fn pop_front(&mut self, q: &mut PacketQueue) -> Option<u32> {
        let id = q.front()?;
        q.head = self.slab.cols().rows[id as usize].next;
        if q.head == NIL {
            q.tail = NIL;
        }
        Some(id)
    }
    /// Number of packets in queue `q` (walks the list).
    pub fn queue_len(&self, q: &PacketQueue) -> usize {
        let rows = &self.slab.cols().rows;
        let mut n = 0;
        let mut i = q.head;
        while i != NIL {
            n += 1;
            i = rows[i as usize].next;
        }
        n
    }
    /// The ids of the packets in queue `q`, head first (walks the list; end-of-run checks).
    pub fn queue_ids<'a>(&'a self, q: &PacketQueue) -> impl Iterator<Item = u32> + 'a {
        let rows = &self.slab.cols().rows;
        std::iter::successors(q.front(), move |&i| {
            let n = rows[i as usize].next;
            (n != NIL).then_some(n)
        })
    }
    /// Credits of the packets in queue `q` (walks the list; conservation checks).
    pub fn queue_credits(&self, q: &PacketQueue) -> u64 {
        let c = self.slab.cols();
        let mut n = 0u64;
        let mut i = q.head;
        while i != NIL {
            n += c.rows[i as usize].p.credits as u64;
            i = c.rows[i as usize].next;
        }
        n
    }
    /// Number of packets alive.
    #[inline]
    pub fn live(&self) -> u64 {
        self.slab.live()
    }
}

impl std::ops::Index<u32> for PacketStore {
    type Output = Packet;
    #[inline]
    fn index(&self, i: u32) -> &Packet {
        &self.slab.cols().rows[i as usize].p
    }
}
impl std::ops::IndexMut<u32> for PacketStore {
    #[inline]
    fn index_mut(&mut self, i: u32) -> &mut Packet {
        &mut self.slab.cols_mut().rows[i as usize].p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queues_are_fifo_and_independent() {
        let mut s = PacketStore::default();
        let ids: Vec<u32> = (0..6)
            .map(|i| {
                s.alloc(Packet {
                    credits: 34 - i,
                    ..Packet::default()
                })
            })
            .collect();
        assert_eq!(s.min_credits(), 29);
        let (mut a, mut b) = (PacketQueue::default(), PacketQueue::default());
        assert!(a.is_empty() && s.pop_front(&mut a).is_none());
        for &i in &ids[..3] {
            s.push_back(&mut a, i);
        }
        s.push_back(&mut b, ids[3]);
        assert_eq!(s.pop_front(&mut a), Some(ids[0]));
        s.push_back(&mut a, ids[4]);
        s.push_back(&mut b, ids[5]);
        assert_eq!((s.queue_len(&a), s.queue_len(&b)), (3, 2));
        let drained: Vec<u32> = std::iter::from_fn(|| s.pop_front(&mut a)).collect();
        assert_eq!(drained, vec![ids[1], ids[2], ids[4]]);
        assert!(a.is_empty() && a.front().is_none());
        // a packet popped from one queue can join another
        s.push_back(&mut b, ids[1]);
        let drained: Vec<u32> = std::iter::from_fn(|| s.pop_front(&mut b)).collect();
        assert_eq!(drained, vec![ids[3], ids[5], ids[1]]);
    }

    #[test]
    fn sequence_numbers_count_per_flow_and_skip_notifications() {
        let mut s = PacketStore::default();
        let mk = |flow, flags| Packet {
            flow,
            flags,
            credits: 1,
            ..Packet::default()
        };
        let a1 = s.alloc(mk(3, 0));
        let b1 = s.alloc(mk(0, 0));
        let cnp = s.alloc(mk(3, CNP | BECN));
        let a2 = s.alloc(mk(3, FECN));
        assert_eq!((s.seq(a1), s.seq(b1), s.seq(cnp), s.seq(a2)), (1, 1, 0, 2));
        // a recycled id takes the sequence number of its new packet
        s.free(a1);
        let a3 = s.alloc(mk(3, 0));
        assert_eq!(a3, a1);
        assert_eq!(s.seq(a3), 3);
    }
}
