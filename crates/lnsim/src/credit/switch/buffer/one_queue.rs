//! One queue (1Q): each input buffer keeps one FIFO per VL, whatever the packets' outputs or
//! destinations. The packet at the head blocks every packet behind it, also those for idle
//! outputs: head-of-line blocking in its plainest form (the baseline every HoL-blocking
//! scheme is measured against).

use super::QueueQuery;

/// One FIFO per VL at every switch input (scenario key `switch.queue_mapping = "one_queue"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OneQueue;

impl OneQueue {
    /// Queues per VL: one.
    #[inline]
    pub fn queues_per_vl(self, _ports: usize) -> usize {
        1
    }

    /// Every packet of a VL joins the VL's only queue.
    #[inline]
    pub fn class_of(self, _q: &QueueQuery) -> u32 {
        0
    }

    /// The one queue of an input whose head may request output `out` on `vl`: the VL's FIFO.
    #[inline]
    pub fn requesting_queue(self, _out: u16, vl: u8) -> u32 {
        vl as u32
    }
}
