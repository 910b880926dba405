//! Packets of the cycle-level model: a slab with a free list (no allocation per packet once
//! warm) and intrusive FIFO queues linked through `next`.

use crate::routing::candidates::RouteState;

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

/// The packet slab: hot per-hop records ([`Link`]) and cold records ([`Pkt`]) in two dense
/// arrays indexed by packet id.
pub(crate) struct PacketSlab {
    pub v: Vec<Pkt>,
    /// Queue links, times, VC, hop count, destination and routing header of every packet.
    pub link: Vec<Link>,
    free: Vec<u32>,
    pub live: u64,
}

impl PacketSlab {
    pub fn new() -> Self {
        PacketSlab {
            v: Vec::new(),
            link: Vec::new(),
            free: Vec::new(),
            live: 0,
        }
    }
    /// A new packet with cold fields `p` towards terminal `dst` (default routing header).
    #[inline]
    pub fn alloc(&mut self, p: Pkt, dst: u32) -> u32 {
        self.live += 1;
        let fresh = Link {
            ready: 0,
            next: NIL,
            dst,
            st: RouteState::default(),
            hops: 0,
        };
        if let Some(i) = self.free.pop() {
            self.v[i as usize] = p;
            self.link[i as usize] = fresh;
            i
        } else {
            self.v.push(p);
            self.link.push(fresh);
            (self.v.len() - 1) as u32
        }
    }
    #[inline]
    pub fn free(&mut self, i: u32) {
        self.live -= 1;
        self.free.push(i);
    }
    /// Appends `i` to the queue `(head, tail)`.
    #[inline]
    pub fn push(&mut self, q: &mut (u32, u32), i: u32) {
        self.link[i as usize].next = NIL;
        if q.0 == NIL {
            *q = (i, i);
        } else {
            self.link[q.1 as usize].next = i;
            q.1 = i;
        }
    }
    /// Removes the head of `q`.
    #[inline]
    pub fn pop(&mut self, q: &mut (u32, u32)) -> u32 {
        let i = q.0;
        q.0 = self.link[i as usize].next;
        if q.0 == NIL {
            q.1 = NIL;
        }
        i
    }
    /// Appends packet `i`, which may leave from cycle `ready`, to output queue `q`.
    #[inline]
    pub fn out_push(&mut self, q: &mut OutQueue, i: u32, ready: u64) {
        self.link[i as usize].next = NIL;
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
                self.link[q.tail as usize].next = i;
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
            let lk = &self.link[h as usize];
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
    /// Length of a queue (statistics and checks only).
    pub fn len(&self, q: (u32, u32)) -> u64 {
        let (mut n, mut i) = (0, q.0);
        while i != NIL {
            n += 1;
            i = self.link[i as usize].next;
        }
        n
    }
}

// a hop touches one cache line of a packet: the hot record stays at 32 bytes
const _: () = assert!(std::mem::size_of::<Link>() == 32);
