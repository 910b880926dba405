//! Packets of the cycle-level model: a slab with a free list (no allocation per packet once
//! warm) and intrusive FIFO queues linked through `next`; the ids come from the engine's
//! [`Slab`], which the credit-level model shares.

use crate::cycle::routing::candidates::RouteState;
use crate::engine::slab::{Columns, Slab};

/// No packet.
pub(crate) const NIL: u32 = u32::MAX;

/// The fields of a packet that only its generation, injection and delivery read (all its
/// phits move together; timing is phit-exact, see the module docs).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pkt {
    /// Source terminal.
    pub src: u32,
    /// Generation cycle.
    pub gen: u64,
    /// Cycle it left the source's injection queue (start of its network latency).
    pub t_net: u64,
}

/// The fields of a packet that every hop reads or writes (queue link, times, VC, the routing
/// header), in one 32-byte record: a hop touches one cache line of the packet.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Link {
    /// Input queue: head-arrival cycle; output queue: earliest departure cycle.
    pub ready: u64,
    /// Next packet in the same queue.
    pub next: u32,
    /// Destination terminal.
    pub dst: u32,
    /// Routing header.
    pub st: RouteState,
    /// Router-to-router hops taken (0: at the injection router, where the source decision is
    /// taken).
    pub hops: u8,
    /// 0 for a data packet; a QCN congestion notification (CNM, Dragonfly spec §3.12.1)
    /// carries its feedback Fb (1 … 63) here (`cycle/cnm.rs`).
    pub cnm: u8,
}

/// An output queue (one VC of an output buffer): a FIFO linked through [`Link::next`] whose
/// head's link and departure cycle are kept here, so that a departure touches no packet record
/// when the queue held one packet (a packet's record is otherwise out of cache by the time it
/// leaves: the router latency lies between its grant and its departure).
#[derive(Debug, Clone, Copy)]
pub(crate) struct OutQueue {
    /// Departure cycle of the head (u64::MAX: empty).
    pub head_ready: u64,
    /// Head and tail packets (NIL: empty).
    pub head: u32,
    pub tail: u32,
    /// The packet after the head (the head's own [`Link::next`] is not kept up to date).
    pub head_next: u32,
}

impl OutQueue {
    /// No packet.
    pub const EMPTY: OutQueue = OutQueue {
        head_ready: u64::MAX,
        head: NIL,
        tail: NIL,
        head_next: NIL,
    };
}

/// The columns of the packet slab: cold records ([`Pkt`]) and hot per-hop records ([`Link`])
/// in two dense arrays indexed by packet id.
#[derive(Default)]
struct Records {
    v: Vec<Pkt>,
    /// Queue links, times, VC, hop count, destination and routing header of every packet.
    link: Vec<Link>,
}

impl Columns for Records {
    type Row = (Pkt, Link);
    #[inline]
    fn push(&mut self, (p, lk): (Pkt, Link)) {
        self.v.push(p);
        self.link.push(lk);
    }
    #[inline]
    fn set(&mut self, i: usize, (p, lk): (Pkt, Link)) {
        self.v[i] = p;
        self.link[i] = lk;
    }
    #[inline]
    fn len(&self) -> usize {
        self.v.len()
    }
}

/// The packet slab: ids from the engine's [`Slab`] (free list, live count; issue 15) over the
/// hot and cold [`Records`] columns, and the intrusive FIFO queues through [`Link::next`].
#[derive(Default)]
pub(crate) struct PacketSlab {
    slab: Slab<Records>,
}

impl PacketSlab {
    /// An empty slab.
    pub fn new() -> Self {
        Self::default()
    }
    /// A new packet with cold fields `p` towards terminal `dst` (default routing header).
    #[inline]
    pub fn alloc(&mut self, p: Pkt, dst: u32) -> u32 {
        let fresh = Link {
            ready: 0,
            next: NIL,
            dst,
            st: RouteState::default(),
            hops: 0,
            cnm: 0,
        };
        self.slab.alloc((p, fresh))
    }
    /// Releases packet `i`.
    #[inline]
    pub fn free(&mut self, i: u32) {
        self.slab.free(i);
    }
    /// Number of packets alive.
    #[inline]
    pub fn live(&self) -> u64 {
        self.slab.live()
    }
    /// The cold record of packet `i`.
    #[inline]
    pub fn pkt(&self, i: u32) -> &Pkt {
        &self.slab.cols().v[i as usize]
    }
    /// The cold record of packet `i`, to change.
    #[inline]
    pub fn pkt_mut(&mut self, i: u32) -> &mut Pkt {
        &mut self.slab.cols_mut().v[i as usize]
    }
    /// The hot record of packet `i`.
    #[inline]
    pub fn link(&self, i: u32) -> &Link {
        &self.slab.cols().link[i as usize]
    }
    /// The hot record of packet `i`, to change.
    #[inline]
    pub fn link_mut(&mut self, i: u32) -> &mut Link {
        &mut self.slab.cols_mut().link[i as usize]
    }
    /// All hot records, indexed by packet id (for prefetching).
    #[inline]
    pub fn links(&self) -> &[Link] {
        &self.slab.cols().link
    }
    /// Appends `i` to the queue `(head, tail)`.
    #[inline]
    pub fn push(&mut self, q: &mut (u32, u32), i: u32) {
        let link = &mut self.slab.cols_mut().link;
        link[i as usize].next = NIL;
        if q.0 == NIL {
            *q = (i, i);
        } else {
            link[q.1 as usize].next = i;
            q.1 = i;
        }
    }
    /// Removes the head of `q`.
    #[inline]
    pub fn pop(&mut self, q: &mut (u32, u32)) -> u32 {
        let i = q.0;
        q.0 = self.link(i).next;
        if q.0 == NIL {
            q.1 = NIL;
        }
        i
    }
    /// Appends packet `i`, which may leave from cycle `ready`, to output queue `q`.
    #[inline]
    pub fn out_push(&mut self, q: &mut OutQueue, i: u32, ready: u64) {
        let link = &mut self.slab.cols_mut().link;
        link[i as usize].next = NIL;
        if q.head == NIL {
            *q = OutQueue {
                head: i,
                tail: i,
                head_next: NIL,
                head_ready: ready,
            };
        } else {
            if q.tail == q.head {
                q.head_next = i;
            } else {
                link[q.tail as usize].next = i;
            }
            q.tail = i;
        }
    }
    /// Removes the head of output queue `q` (not empty): reads no packet record when `q`
    /// held one packet, else the record of the new head only.
    #[inline]
    pub fn out_pop(&mut self, q: &mut OutQueue) -> u32 {
        let i = q.head;
        let h = q.head_next;
        if h == NIL {
            *q = OutQueue::EMPTY;
        } else {
            let lk = self.link(h);
            q.head = h;
            q.head_next = lk.next;
            q.head_ready = lk.ready;
        }
        i
    }
    /// Length of an output queue (checks only).
    pub fn out_len(&self, q: &OutQueue) -> u64 {
        if q.head == NIL {
            0
        } else {
            1 + self.len((q.head_next, NIL))
        }
    }
    /// The packets of output queue `q`, oldest first (sampling and checks only).
    pub fn out_iter<'a>(&'a self, q: &OutQueue) -> impl Iterator<Item = u32> + 'a {
        let (head, mut i) = (q.head, q.head_next);
        std::iter::once(head)
            .filter(|&h| h != NIL)
            .chain(std::iter::from_fn(move || {
                (i != NIL).then(|| {
                    let x = i;
                    i = self.link(x).next;
                    x
                })
            }))
    }
    /// The packets of queue `q`, oldest first (sampling and checks only).
    pub fn iter(&self, q: (u32, u32)) -> impl Iterator<Item = u32> + '_ {
        let mut i = q.0;
        std::iter::from_fn(move || {
            (i != NIL).then(|| {
                let x = i;
                i = self.link(x).next;
                x
            })
        })
    }
    /// Length of a queue (statistics and checks only).
    pub fn len(&self, q: (u32, u32)) -> u64 {
        let link = &self.slab.cols().link;
        let (mut n, mut i) = (0, q.0);
        while i != NIL {
            n += 1;
            i = link[i as usize].next;
        }
        n
    }
}

// a hop touches one cache line of a packet: the hot record stays at 32 bytes
const _: () = assert!(std::mem::size_of::<Link>() == 32);
