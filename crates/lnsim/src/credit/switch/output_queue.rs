//! One output queue of a switch output buffer as a single record — its packets, the room the
//! crossbar may still fill, the credits it holds and its share — so that an event touching the
//! queue reads one cache line (`switch/output_buffer.rs` keeps them; the congestion
//! management reads the fills through `credit/cc`'s `OutputFill`).

use crate::credit::packet::PacketQueue;

/// The state of one output queue (spec B.5).
#[derive(Debug, Clone, Copy, Default)]
pub struct OutQueue {
    /// Packets whose head has crossed, waiting for the link.
    pub queue: PacketQueue,
    /// Credits the crossbar may still move into it (internal credits).
    pub space: u32,
    /// Credits held by packets from head arrival until the tail has left on the wire.
    pub used: u32,
    /// Its share of the VL's output buffer.
    pub cap: u32,
}
