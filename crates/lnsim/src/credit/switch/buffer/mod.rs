//! Buffer organisation: the one decision point `(packet, output) → queue` of an input buffer,
//! and how the link's credits are kept for those queues (architecture "Seams that keep it
//! changeable"; spec §3.4 for the credit-level model, spec B.2 and B.5 for the HoL-blocking
//! schemes).
//!
//! Two independent choices, each an `enum` dispatched with `match` (no trait objects on the
//! per-packet path), each variant one file:
//!
//! - **queue scheme** ([`QueueScheme`], key `switch.queue_mapping`, spec B.2): which queue of
//!   a switch input a packet joins, decided when its head arrives from a [`QueueQuery`] — the
//!   input, the packet's destination HCA, the output this switch's forwarding table chose, its
//!   VL, its congestion bit. An input's queues are numbered `class * vls + vl`: the scheme
//!   picks the *class* (`0..queues_per_vl`), the VL keeps its own queues.
//!   - [`one_queue`]: one FIFO per VL (1Q, `"one_queue"`);
//!   - [`voq_switch`]: one queue per output of this switch (VOQsw, `"voq_sw"`; `"voq"` is the
//!     same scheme and stays the credit-level model's name, shared buffers only);
//!   - [`voq_net`]: one queue per destination (VOQnet, `"voq_net"`);
//!   - [`dbbm`]: Q queues, `destination mod Q` (DBBM, `"dbbm"`, `switch.dbbm_queues` = Q);
//!   - [`ddbbm`]: DBBM's Q queues plus one dynamic queue, `cbit ? Q : destination mod Q`
//!     (DDBBM, `"ddbbm"`, spec B.3.4). The congestion bit is the packet flag
//!     [`crate::credit::packet::CBIT`], set by the source and fixed along the path.
//! - **credit keeping** ([`CreditKeeping`], key `switch.buffer_sharing`): what the upstream's
//!   credits count.
//!   - [`shared_pool`] (`"shared"`): one pool per input buffer and VL shared by all the VL's
//!     queues;
//!   - [`partitioned`] (`"static"`, spec B.5): a fixed space per queue and credits per queue;
//!     the upstream knows the queue of the next switch before sending (look-ahead at its
//!     forwarding table for VOQsw; the destination, and the bit, for VOQnet, DBBM, DDBBM).
//!     The space per queue is [`QueueSizing`] (`switch.static_mode`): `"divided"` (spec B.5
//!     mode A: the VL's buffer divided by its queues in whole packets, at least one — two for
//!     VOQnet), `"split"` (divided exactly in credits; under one packet is an error) or
//!     `"per_queue"` (mode B: `switch.queue_bytes` each). An HCA's receive buffer has one
//!     queue per VL. [`BufferChoice::from_config`] reads and checks every key.
//!
//! A *credit counter* is what one credit count covers: the VL with a shared pool, the queue
//! with partitioned credits (the VL at an HCA's receive buffer, which has one queue per VL).
//! Events that carry credits ([`crate::credit::Ev::InputRelease`],
//! [`crate::credit::Ev::CreditArrive`]) carry the counter. The network's side of it — the
//! counter a packet holds, where an output keeps it, the look-ahead, the occupancy of input
//! buffers — is [`accounting`] (`Net::credit_slot`, `Net::credit_slot_for`,
//! `Net::credit_slot_for_flags`, `Net::downstream_counter`, `Net::occupy`,
//! `Net::occupy_queue`, `Net::release_input`).
//!
//! Where the network asks: `switch/input.rs` (a head arrives: [`QueueScheme::queue_of`], then
//! its occupancy); `switch/arbiter.rs` (which queue of an input requests an output:
//! [`QueueScheme::requesting_queue`], or a search of the input's queues of the VL when several
//! queues can; the credit check); `endpoint/hca.rs` (an HCA's credits for the first switch,
//! `Net::credit_slot_for`: an HCA that sets [`crate::credit::packet::CBIT`] must use
//! `Net::credit_slot_for_flags` with the packet's flags instead). The injection side keeps one
//! queue per flow (queue pair), decided by `Traffic::flow_for`; with `hca.injection_queues =
//! "scheme"` (spec B.5) those are admittance queues feeding one injection queue per credit
//! counter of the first switch's input (`endpoint/adapter.rs`, the counter from
//! `Net::downstream_counter`). Without output buffers an output has no queues of its own.
//!
//! Request bookkeeping and the arbiter handle both kinds of scheme: those where at most one
//! queue of an input can request an output on a VL (1Q, VOQsw: one request bit per input, and
//! the arbiter's fast path when credits are kept per VL) and those where several can (VOQnet,
//! DBBM, DDBBM: a count of requesting heads per input, output and VL, `Net::req_heads`).
//!
//! ## To add a queue scheme
//!
//! Write `switch/buffer/<name>.rs` with a `Copy` struct, `queues_per_vl` and `class_of` (as
//! [`dbbm`] does); add a variant to [`QueueScheme`] and an arm in each of its `match`es
//! (`requesting_queue` returns None when several queues may request one output, and then
//! `several_heads_per_output` is true; `heads_share_outputs` is true unless all of a queue's
//! packets want one output); register the scenario value in [`QueueScheme::from_config`]
//! (the key itself lives in `config/`); size its memory in `credit/memory_estimate.rs` (it follows
//! `queues_per_vl`). A scheme whose queue depends on more than the destination, the output and
//! the packet's flags needs the look-ahead of [`accounting`] to know it too.
//!
//! DDBBM here is the spec's (B.3.5): its one dynamic queue per port is statically allocated
//! and selected by the packet's header bit — no per-switch table, no CAM, no set-aside queues
//! (those belong to RECN, which this is not). Who sets the bit (the destination's detector,
//! the notifications, the sources' status bit vector, spec B.3.2–B.3.4) lives outside the
//! buffer organisation.
//!
//! A credit keeping is one file too (next to [`partitioned`]), a variant of
//! [`CreditKeeping`] and of [`CreditKeepingKind`], and an arm in each `match` of
//! [`accounting`] and of the builder's `initial_credits` (`credit/build.rs`).

pub mod accounting;
pub mod dbbm;
pub mod ddbbm;
pub mod one_queue;
pub mod partitioned;
pub mod shared_pool;
pub mod voq_net;
pub mod voq_switch;

use crate::config::{BufferSharing, QueueMappingKind, StaticMode, SwitchConfig};
use crate::error::{Error, Result};
use dbbm::Dbbm;
use ddbbm::Ddbbm;
use one_queue::OneQueue;
use partitioned::PartitionedCredits;
pub use partitioned::QueueSizing;
use shared_pool::SharedPool;
use voq_net::VoqNet;
use voq_switch::VoqSwitch;

/// What a queue scheme may look at to place a packet.
#[derive(Debug, Clone, Copy)]
pub struct QueueQuery {
    /// The input gport the packet arrives at (a per-input table is indexed by it).
    pub input: u32,
    /// Destination HCA index (LID − 1).
    pub dst: u32,
    /// Local output port the forwarding table chose at this switch.
    pub out: u16,
    /// Virtual lane.
    pub vl: u8,
    /// The packet's congestion bit ([`crate::credit::packet::CBIT`], DDBBM, spec B.3.4).
    pub cbit: bool,
}

/// How an input buffer splits into queues (spec B.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueScheme {
    /// One FIFO per VL ([`one_queue`]).
    OneQueue(OneQueue),
    /// One queue per (output of this switch, VL) ([`voq_switch`]).
    VoqSwitch(VoqSwitch),
    /// One queue per (destination, VL) ([`voq_net`]).
    VoqNet(VoqNet),
    /// Q queues per VL, destination mod Q ([`dbbm`]).
    Dbbm(Dbbm),
    /// Q DBBM queues plus one dynamic queue per VL ([`ddbbm`]).
    Ddbbm(Ddbbm),
}

impl QueueScheme {
    /// From the scenario keys `switch.queue_mapping` and `switch.dbbm_queues` of a network of
    /// `destinations` HCAs; refuses a missing, zero or misplaced `switch.dbbm_queues` (0 is
    /// accepted with the schemes that have no DBBM queues).
    pub fn from_config(s: &SwitchConfig, destinations: u32) -> Result<Self> {
        let k = s.queue_mapping;
        let dbbm_like = matches!(k, QueueMappingKind::Dbbm | QueueMappingKind::Ddbbm);
        let q = match (s.dbbm_queues, dbbm_like) {
            // 0 says "no DBBM queues": a file written for DBBM runs the other schemes with
            // `--set switch.dbbm_queues=0` (scripts/hol_repro.py)
            (Some(q), false) if q > 0 => {
                return Err(Error::input(
                    "switch.dbbm_queues",
                    format!(
                        "is only for switch.queue_mapping = \"dbbm\" or \"ddbbm\", not \"{}\"; remove it or set it to 0",
                        k.name()
                    ),
                ))
            }
            (None, true) => {
                return Err(Error::input(
                    "switch.dbbm_queues",
                    format!(
                        "is required with switch.queue_mapping = \"{}\": the number Q of DBBM queues per VL (an integer 1–4096, e.g. 4)",
                        k.name()
                    ),
                ))
            }
            (Some(0), true) => {
                return Err(Error::input(
                    "switch.dbbm_queues",
                    "0 queues: allowed an integer 1–4096",
                ))
            }
            (q, _) => q.unwrap_or(0),
        };
        Ok(match k {
            QueueMappingKind::Voq | QueueMappingKind::VoqSw => QueueScheme::VoqSwitch(VoqSwitch),
            QueueMappingKind::OneQueue => QueueScheme::OneQueue(OneQueue),
            QueueMappingKind::VoqNet => QueueScheme::VoqNet(VoqNet {
                destinations: destinations.max(1),
            }),
            QueueMappingKind::Dbbm => QueueScheme::Dbbm(Dbbm { queues: q }),
            QueueMappingKind::Ddbbm => QueueScheme::Ddbbm(Ddbbm { queues: q }),
        })
    }

    /// Queues per VL at an input of a switch with `ports` ports.
    pub fn queues_per_vl(self, ports: usize) -> usize {
        match self {
            QueueScheme::OneQueue(s) => s.queues_per_vl(ports),
            QueueScheme::VoqSwitch(s) => s.queues_per_vl(ports),
            QueueScheme::VoqNet(s) => s.queues_per_vl(ports),
            QueueScheme::Dbbm(s) => s.queues_per_vl(ports),
            QueueScheme::Ddbbm(s) => s.queues_per_vl(ports),
        }
    }

    /// Queues per input of a switch with `ports` ports and `vls` VLs.
    pub fn queues_per_input(self, ports: usize, vls: usize) -> usize {
        self.queues_per_vl(ports) * vls
    }

    /// Local index (within the input's queues) of the queue the packet described by `q` joins.
    #[inline(always)]
    pub fn queue_of(self, q: &QueueQuery, vls: usize) -> u32 {
        let class = match self {
            QueueScheme::OneQueue(s) => s.class_of(q),
            QueueScheme::VoqSwitch(s) => s.class_of(q),
            QueueScheme::VoqNet(s) => s.class_of(q),
            QueueScheme::Dbbm(s) => s.class_of(q),
            QueueScheme::Ddbbm(s) => s.class_of(q),
        };
        class * vls as u32 + q.vl as u32
    }

    /// The local index of the one queue of an input whose head can request output `out` on
    /// `vl`, or None when several queues can (the arbiter then searches the VL's queues).
    #[inline(always)]
    pub fn requesting_queue(self, out: u16, vl: u8, vls: usize) -> Option<u32> {
        match self {
            QueueScheme::OneQueue(s) => Some(s.requesting_queue(out, vl)),
            QueueScheme::VoqSwitch(s) => Some(s.requesting_queue(out, vl, vls)),
            QueueScheme::VoqNet(_) | QueueScheme::Dbbm(_) | QueueScheme::Ddbbm(_) => None,
        }
    }

    /// True when several queues of one input can have heads requesting the same output on the
    /// same VL (requests are then counted per input, output and VL).
    #[inline(always)]
    pub fn several_heads_per_output(self) -> bool {
        matches!(
            self,
            QueueScheme::VoqNet(_) | QueueScheme::Dbbm(_) | QueueScheme::Ddbbm(_)
        )
    }

    /// True when a queue's packets can target several outputs (its new head must be looked at
    /// after a grant).
    #[inline(always)]
    pub fn heads_share_outputs(self) -> bool {
        !matches!(self, QueueScheme::VoqSwitch(_))
    }

    /// The fewest packets a queue holds with static buffers of spec B.5 mode A: two for VOQnet
    /// (so that it can act as the ideal reference), one otherwise.
    pub fn min_queue_packets(self) -> u32 {
        if matches!(self, QueueScheme::VoqNet(_)) {
            2
        } else {
            1
        }
    }
}

/// How the credits of a link are kept.
#[derive(Debug, Clone)]
pub enum CreditKeeping {
    /// One pool per input buffer and VL ([`shared_pool`]).
    SharedPool(SharedPool),
    /// Space partitioned per queue, credits per queue ([`partitioned`]).
    Partitioned(PartitionedCredits),
}

/// The credit keeping a network is built with (the partitioned state needs the built ports).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreditKeepingKind {
    /// [`CreditKeeping::SharedPool`] (`switch.buffer_sharing = "shared"`).
    SharedPool,
    /// [`CreditKeeping::Partitioned`] with this size per queue (`switch.buffer_sharing =
    /// "static"`, spec B.5).
    Partitioned(QueueSizing),
}

/// The buffer organisation a network is built with: the scenario's
/// ([`BufferChoice::from_config`]) or one a test chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferChoice {
    /// The queue scheme.
    pub scheme: QueueScheme,
    /// How credits are kept.
    pub credits: CreditKeepingKind,
}

impl BufferChoice {
    /// [`BufferChoice::from_config`] of scenario `l`, where `ddbbm.mapping = "virtual_lanes"`
    /// (drb-and-ddbbm spec B.4) turns DDBBM's queues into VLs: one queue per VL
    /// ([`one_queue`]), the source choosing the VL (`credit/cc/ddbbm_lanes.rs`).
    pub fn for_scenario(
        l: &crate::config::LoadedScenario,
        destinations: u32,
        credit_bytes: u64,
        pkt_credits: u64,
    ) -> Result<Self> {
        let s = &l.scenario;
        let given = |k: &str| l.given(k);
        let mut b = Self::from_config(&s.switch, destinations, credit_bytes, pkt_credits, &given)?;
        if crate::credit::cc::ddbbm_lanes::VlSelect::from_scenario(s)?.is_some() {
            b.scheme = QueueScheme::OneQueue(OneQueue);
        }
        Ok(b)
    }

    /// From the scenario keys `switch.queue_mapping`, `switch.dbbm_queues`,
    /// `switch.buffer_sharing`, `switch.static_mode` and `switch.queue_bytes` of a network of
    /// `destinations` HCAs with packets of `pkt_credits` credits of `credit_bytes` bytes.
    /// Refuses every key the scenario gives (`given`, [`crate::config::LoadedScenario::given`])
    /// where it means nothing, and a mode-B queue under one packet.
    pub fn from_config(
        s: &SwitchConfig,
        destinations: u32,
        credit_bytes: u64,
        pkt_credits: u64,
        given: &dyn Fn(&str) -> bool,
    ) -> Result<Self> {
        let scheme = QueueScheme::from_config(s, destinations)?;
        let credits = match s.buffer_sharing {
            BufferSharing::Shared => {
                if given("switch.static_mode") {
                    return Err(Error::input(
                        "switch.static_mode",
                        "is only for switch.buffer_sharing = \"static\"; remove it or set the sharing to \"static\"",
                    ));
                }
                if s.queue_bytes.is_some() {
                    return Err(Error::input(
                        "switch.queue_bytes",
                        "is only for switch.buffer_sharing = \"static\" with switch.static_mode = \"per_queue\"",
                    ));
                }
                CreditKeepingKind::SharedPool
            }
            BufferSharing::Static => {
                if s.queue_mapping == QueueMappingKind::Voq {
                    return Err(Error::input(
                        "switch.buffer_sharing",
                        "\"static\" with switch.queue_mapping = \"voq\" (the shared-pool VOQ of the credit-level model); for static VOQsw write switch.queue_mapping = \"voq_sw\"",
                    ));
                }
                let mode = s.static_mode;
                if mode != StaticMode::PerQueue && s.queue_bytes.is_some() {
                    return Err(Error::input(
                        "switch.queue_bytes",
                        format!(
                            "is only for switch.static_mode = \"per_queue\", not \"{}\"",
                            mode.name()
                        ),
                    ));
                }
                CreditKeepingKind::Partitioned(match mode {
                    StaticMode::Split => QueueSizing::Split,
                    StaticMode::Divided => QueueSizing::Divided {
                        min_packets: scheme.min_queue_packets(),
                    },
                    StaticMode::PerQueue => {
                        let Some(b) = s.queue_bytes else {
                            return Err(Error::input(
                                "switch.queue_bytes",
                                "is required with switch.static_mode = \"per_queue\": the bytes of every queue (spec B.5 mode B: \"1KiB\")",
                            ));
                        };
                        let c = b.0 / credit_bytes.max(1);
                        if c < pkt_credits {
                            return Err(Error::input(
                                "switch.queue_bytes",
                                format!(
                                    "{} bytes hold {c} credits of {credit_bytes} bytes, less than one {pkt_credits}-credit packet",
                                    b.0
                                ),
                            ));
                        }
                        QueueSizing::PerQueue {
                            credits: c.min(u32::MAX as u64) as u32,
                        }
                    }
                })
            }
        };
        Ok(BufferChoice { scheme, credits })
    }
}

impl CreditKeeping {
    /// The most credits output `og` holds for VL `vl`: the pool, or the best-provided queue of
    /// the VL. `credits` and `peer` are the network's arrays of available credits and of link
    /// ends.
    #[inline(always)]
    pub fn vl_credits(&self, credits: &[u32], peer: &[u32], og: u32, vl: u8, vls: usize) -> u32 {
        match self {
            CreditKeeping::SharedPool(_) => credits[SharedPool::slot(og, vl as u16, vls)],
            CreditKeeping::Partitioned(p) => p.vl_credits(credits, og, peer[og as usize], vl, vls),
        }
    }
}

/// The class and the VL of a queue's local index or credit counter `counter` (`class · vls +
/// vl`, as [`QueueScheme::queue_of`] composes it), for `vls` VLs: a shift and a mask when `vls`
/// is a power of two (1, 2, 4, 8: every shipped scenario), a division otherwise. The hot path
/// splits a counter on most events; a division costs tens of cycles, a shift one.
#[inline(always)]
pub(crate) fn class_and_vl(counter: u16, vls: usize) -> (usize, usize) {
    let c = counter as usize;
    if vls.is_power_of_two() {
        (c >> vls.trailing_zeros(), c & (vls - 1))
    } else {
        (c / vls, c % vls)
    }
}

#[cfg(test)]
mod tests;
