//! Dynamic DBBM (DDBBM, spec B.2, B.3.4, B.3.5): DBBM's Q queues per VL plus one more, the
//! *dynamic queue*, statically allocated at every switch input. A packet whose header carries
//! the congestion bit ([`crate::credit::packet::CBIT`], set by its source while its
//! destination has declared itself congested) joins the dynamic queue (index Q); every other
//! packet joins `destination mod Q` as in DBBM. All congested destinations share the one
//! dynamic queue (spec B.3.5); there is no per-switch detection, no CAM and no per-flow
//! state in the switch — the only switch change is the extra queue selected by one header
//! bit.
//!
//! The index depends on the destination and the packet's bit, both fixed along the path, so an
//! upstream keeping credits per queue (spec B.3.4 option (a)) knows the downstream queue. The
//! destination's detection, the notifications and the sources' Status Bit Vector that set the
//! bit are not part of the buffer organisation (spec B.3.2–B.3.4).

use super::QueueQuery;

/// Q DBBM queues plus one dynamic queue per VL at every switch input (scenario keys
/// `switch.queue_mapping = "ddbbm"`, `switch.dbbm_queues = Q`; spec B.2, B.3.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ddbbm {
    /// Q, the number of DBBM queues per VL (the dynamic queue comes on top).
    pub queues: u32,
}

impl Ddbbm {
    /// Queues per VL: Q + 1, whatever the switch's radix (spec B.2).
    #[inline]
    pub fn queues_per_vl(self, _ports: usize) -> usize {
        self.queues as usize + 1
    }

    /// The dynamic queue's class: Q (the last one).
    #[inline]
    pub fn dynamic_class(self) -> u32 {
        self.queues
    }

    /// `cbit ? Q : destination mod Q` (spec B.3.4).
    #[inline]
    pub fn class_of(self, q: &QueueQuery) -> u32 {
        if q.cbit {
            self.queues
        } else {
            q.dst % self.queues
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(dst: u32, cbit: bool) -> QueueQuery {
        QueueQuery {
            input: 0,
            dst,
            out: 2,
            vl: 1,
            cbit,
        }
    }

    #[test]
    fn the_congestion_bit_selects_the_dynamic_queue_else_dbbm() {
        let s = Ddbbm { queues: 4 };
        assert_eq!(s.queues_per_vl(8), 5);
        assert_eq!(s.dynamic_class(), 4);
        for d in [0u32, 5, 30, 63] {
            assert_eq!(s.class_of(&query(d, false)), d % 4, "dst {d}");
            assert_eq!(s.class_of(&query(d, true)), 4, "dst {d} with the bit");
        }
        // the spec's example (B.2): 8 + 1 queues, destination 48 → 0, congested → dynamic
        let s = Ddbbm { queues: 8 };
        assert_eq!(s.class_of(&query(48, false)), 0);
        assert_eq!(s.class_of(&query(48, true)), 8);
    }
}
