//! One credit pool per (input buffer, VL), shared by all the VL's queues — the InfiniBand
//! link-level flow control (IBA: credits are granted per VL) and the model of the CC studies
//! (spec §3.4). The upstream output holds one counter per VL of the buffer it drives; a packet
//! may be sent when the counter covers all its credits (virtual cut-through). A congested
//! queue can take the whole pool, which stops credit return for every other queue of the VL:
//! the congestion-spreading mechanism the studies show.
//!
//! The credit counter of a packet is its VL; counters are indexed `gport * vls + vl` on both
//! sides of a link (the output's available credits, the input's occupancy).

/// The shared-pool credit keeping (no state beyond the network's per-VL arrays).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SharedPool;

impl SharedPool {
    /// Index of counter `counter` (a VL) of gport `g` in the per-(gport, VL) arrays.
    #[inline]
    pub fn slot(g: u32, counter: u16, vls: usize) -> usize {
        g as usize * vls + counter as usize
    }
}
