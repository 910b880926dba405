//! Packets in flight and their store: a slab of fixed-size records indexed by `u32`, recycled
//! through a free list (no per-packet heap allocation on the hot path).

use crate::config::Ps;

/// Packet flag: FECN set by a congested switch (IB CC, spec §2.2.5).
pub const FECN: u8 = 1;
/// Packet flag: BECN (carried by CNPs, spec §2.3.1).
pub const BECN: u8 = 2;
/// Packet flag: this is a congestion notification packet, not data.
pub const CNP: u8 = 4;

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
    /// [`FECN`], [`BECN`], [`CNP`] bits.
    pub flags: u8,
    /// Switch hops taken so far.
    pub hops: u16,
    /// Output port chosen at the current switch.
    pub out_port: u16,
    /// Global input port where it currently sits.
    pub at: u32,
    /// Creation time (latency reference).
    pub created: Ps,
    /// Time its first credit entered the network.
    pub injected: Ps,
    /// Time its tail (last credit) arrives at the current holder.
    pub tail: Ps,
}

/// Slab of packets.
#[derive(Debug, Default)]
pub struct PacketStore {
    slots: Vec<Packet>,
    free: Vec<u32>,
    live: u64,
}

impl PacketStore {
    /// Stores a packet; returns its id.
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> u32 {
        self.live += 1;
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = p;
            i
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as u32
        }
    }
    /// Releases a packet id.
    #[inline]
    pub fn free(&mut self, id: u32) {
        self.live -= 1;
        self.free.push(id);
    }
    /// Number of packets alive.
    pub fn live(&self) -> u64 {
        self.live
    }
}

impl std::ops::Index<u32> for PacketStore {
    type Output = Packet;
    #[inline]
    fn index(&self, i: u32) -> &Packet {
        &self.slots[i as usize]
    }
}
impl std::ops::IndexMut<u32> for PacketStore {
    #[inline]
    fn index_mut(&mut self, i: u32) -> &mut Packet {
        &mut self.slots[i as usize]
    }
}
