//! Destination-based buffer management (DBBM, spec B.2): each input buffer keeps Q queues per
//! VL and a packet joins queue `destination mod Q` (the lower log₂Q bits of the destination
//! when Q is a power of two). It is VOQ at the level of Q "logical output ports": a packet
//! waits only behind packets of the same destination set, so one congested destination can
//! victimise the 1/Q of the destinations that share its queue, whatever the routing and the
//! topology.
//!
//! The queue index depends on the destination alone, so it is the same at every hop: an
//! upstream keeping credits per queue knows the downstream queue without look-ahead routing.
//! Several queues of one input can have heads for the same output, so the arbiter searches
//! them ([`super::QueueScheme::requesting_queue`] is None).

use super::QueueQuery;

/// Q queues per VL at every switch input, `class = destination mod Q` (scenario keys
/// `switch.queue_mapping = "dbbm"`, `switch.dbbm_queues = Q`; spec B.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dbbm {
    /// Q, the number of queues per VL (at least 1).
    pub queues: u32,
}

impl Dbbm {
    /// Queues per VL: Q, whatever the switch's radix (spec B.2).
    #[inline]
    pub fn queues_per_vl(self, _ports: usize) -> usize {
        self.queues as usize
    }

    /// A packet for destination `d` joins queue `d mod Q` (spec B.2).
    #[inline]
    pub fn class_of(self, q: &QueueQuery) -> u32 {
        q.dst % self.queues
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(dst: u32, out: u16, cbit: bool) -> QueueQuery {
        QueueQuery {
            input: 3,
            dst,
            out,
            vl: 0,
            cbit,
        }
    }

    #[test]
    fn the_class_is_the_destination_mod_q_whatever_the_output_or_bit() {
        let s = Dbbm { queues: 4 };
        assert_eq!(s.queues_per_vl(8), 4);
        assert_eq!(s.queues_per_vl(64), 4);
        let got: Vec<u32> = [0, 1, 2, 3, 4, 30, 31, 62, 63]
            .iter()
            .map(|&d| s.class_of(&query(d, 5, false)))
            .collect();
        assert_eq!(got, [0, 1, 2, 3, 0, 2, 3, 2, 3]);
        // neither the output chosen here nor the congestion bit moves a packet
        assert_eq!(s.class_of(&query(30, 0, true)), 2);
        assert_eq!(s.class_of(&query(30, 7, false)), 2);
        // the spec's example (B.3.4): 8 queues, destination 48 → queue 0
        assert_eq!(Dbbm { queues: 8 }.class_of(&query(48, 1, false)), 0);
    }
}
