//! Virtual output queues at the switch level (VOQsw): each input buffer keeps one queue per
//! (output port of this switch, VL), all sharing the input's buffer space — the InfiniBand
//! switch model of the CC studies (spec §3.4). A packet for an idle output never waits behind
//! one for a congested output of the same switch; with a shared credit pool a congested queue
//! can still fill the buffer and stop credit return upstream (congestion spreading).
//!
//! With credits partitioned per queue the upstream must know the queue of the next switch
//! before sending: that is look-ahead routing (the next switch's output, read from its
//! forwarding table, see `switch/buffer/accounting.rs`).

use super::QueueQuery;

/// One queue per (output, VL) at every switch input (scenario key
/// `switch.queue_mapping = "voq"` or `"voq_sw"`; spec §3.4, B.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VoqSwitch;

impl VoqSwitch {
    /// Queues per VL: one per port of the switch.
    #[inline]
    pub fn queues_per_vl(self, ports: usize) -> usize {
        ports
    }

    /// A packet joins the queue of the output the forwarding table chose.
    #[inline]
    pub fn class_of(self, q: &QueueQuery) -> u32 {
        q.out as u32
    }

    /// The one queue of an input whose head may request output `out` on `vl`: its VOQ.
    #[inline]
    pub fn requesting_queue(self, out: u16, vl: u8, vls: usize) -> u32 {
        out as u32 * vls as u32 + vl as u32
    }
}
