//! Packets of the cycle-level model: a slab with a free list (no allocation per packet once
//! warm) and intrusive FIFO queues linked through `next`.

use crate::routing::candidates::RouteState;

/// No packet.
pub(crate) const NIL: u32 = u32::MAX;

/// One packet (all its phits move together; timing is phit-exact, see the module docs).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pkt {
    /// Source terminal.
    pub src: u32,
    /// Destination terminal.
    pub dst: u32,
    /// Destination router.
    pub dst_router: u32,
    /// Generation cycle.
    pub gen: u64,
    /// Cycle it left the source's injection queue (start of its network latency).
    pub t_net: u64,
    /// Routing header.
    pub st: RouteState,
}

/// The per-packet fields every queue operation touches, in one dense record.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Link {
    /// Input queue: head-arrival cycle; output queue: earliest departure cycle.
    pub ready: u64,
    /// Next packet in the same queue.
    pub next: u32,
    /// VC of the buffer the packet is in.
    pub vc: u8,
    /// Router-to-router hops taken (0: at the injection router, where the source decision is
    /// taken).
    pub hops: u8,
}

/// The packet slab. The fields the queues touch on every move (`next`, `ready`) live in their
/// own dense arrays, which stay in cache when the packet records do not.
pub(crate) struct PacketSlab {
    pub v: Vec<Pkt>,
    /// Queue links, times, VC and hop count of every packet.
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
    #[inline]
    pub fn alloc(&mut self, p: Pkt) -> u32 {
        self.live += 1;
        let fresh = Link {
            ready: 0,
            next: NIL,
            vc: 0,
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
