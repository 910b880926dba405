//! Virtual output queues at the network level (VOQnet): each input buffer keeps one queue per
//! (destination HCA, VL), so a packet never waits behind one for another destination —
//! head-of-line blocking is gone entirely, at the cost of a queue per destination in every
//! input (the reference point DBBM and DDBBM are measured against).
//!
//! Several queues of one input can have heads for the same output, so the arbiter looks for
//! them among the input's queues of the VL ([`super::QueueScheme::requesting_queue`] is None).
//! Selected by `switch.queue_mapping = "voq_net"` (spec B.2); its memory grows with the
//! destinations times the ports of every switch, which the memory estimate checks before
//! anything is allocated.

use super::QueueQuery;

/// One queue per (destination, VL) at every switch input (scenario key
/// `switch.queue_mapping = "voq_net"`; spec B.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VoqNet {
    /// Number of destinations (HCAs) of the network.
    pub destinations: u32,
}

impl VoqNet {
    /// Queues per VL: one per destination, whatever the switch's radix.
    #[inline]
    pub fn queues_per_vl(self, _ports: usize) -> usize {
        self.destinations as usize
    }

    /// A packet joins the queue of its destination.
    #[inline]
    pub fn class_of(self, q: &QueueQuery) -> u32 {
        debug_assert!(q.dst < self.destinations);
        q.dst
    }
}
