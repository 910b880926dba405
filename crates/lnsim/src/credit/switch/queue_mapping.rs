//! Queue mapping: the one decision point `(packet, output) → queue` of the input buffer
//! (architecture "seams"). HOL-blocking schemes of later issues (VOQnet, DBBM, DDBBM) are
//! further variants of [`QueueMapping`].

use crate::config::QueueMappingKind;

/// How an input buffer splits into queues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueMapping {
    /// One queue per (output, VL) sharing the input's per-VL credit pool — the IB switch model
    /// of spec §3.4 (VoQ at the switch level, "VOQsw").
    Voq,
    /// One FIFO per VL: the head packet blocks everything behind it.
    OneQueue,
}

impl QueueMapping {
    /// From the scenario key `switch.queue_mapping`.
    pub fn from_config(k: QueueMappingKind) -> Self {
        match k {
            QueueMappingKind::Voq => QueueMapping::Voq,
            QueueMappingKind::OneQueue => QueueMapping::OneQueue,
        }
    }

    /// Queues per input port of a switch with `ports` ports and `vls` VLs.
    pub fn queues_per_input(self, ports: usize, vls: usize) -> usize {
        match self {
            QueueMapping::Voq => ports * vls,
            QueueMapping::OneQueue => vls,
        }
    }

    /// Local index (within the input's queues) of the queue a packet for `out` on `vl` joins.
    #[inline]
    pub fn queue_of(self, out: u16, vl: u8, vls: usize) -> u32 {
        match self {
            QueueMapping::Voq => out as u32 * vls as u32 + vl as u32,
            QueueMapping::OneQueue => vl as u32,
        }
    }

    /// True when a queue's packets can target several outputs (its head must be inspected).
    #[inline]
    pub fn shared_outputs(self) -> bool {
        matches!(self, QueueMapping::OneQueue)
    }
}
