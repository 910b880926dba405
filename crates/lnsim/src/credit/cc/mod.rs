//! Congestion management as hooks, not forks (architecture "Seams that keep it changeable";
//! spec §2).
//!
//! The network calls the methods of [`CongestionManagement`] — and nothing else of a
//! mechanism — at these points; each is a `match` whose `Off` arm is empty:
//!
//! | side | hook | called from | InfiniBand CC ([`ib`]) |
//! |---|---|---|---|
//! | switch | [`packet_enqueued`] | `switch/input.rs`, a head joins an input queue | VoQ fill rises: re-evaluate the output's state (§2.2.3) |
//! | switch | [`packet_dequeued`] | `switch/input.rs`, its tail leaves the input | VoQ fill falls: likewise |
//! | switch | [`packet_forwarded`] | `switch/arbiter.rs`, an output starts a packet | FECN marking (§2.2.5); credits taken: re-evaluate |
//! | switch | [`credits_returned`] | `run_loop.rs`, a credit update reaches an output | root or victim: re-evaluate (the port's buffer state sampled) |
//! | endpoint | [`packet_received`] | `endpoint/delivery.rs`, a destination consumed a data packet | FECN → a CNP back to the source (§2.3.1) |
//! | endpoint | [`notification_received`] | `endpoint/delivery.rs`, a source consumed a notification | BECN raises the flow's CCTI (§2.3.2) |
//! | endpoint | [`ready_at`] | `endpoint/hca.rs`, injection decision | when may flow f send next: the IRD gap (§2.3.3) |
//! | endpoint | [`packet_sent`] | `endpoint/hca.rs`, a flow injected a packet | the next gap starts |
//! | endpoint | [`path_for`] | `endpoint/hca.rs`, a flow's next packet (with `drb.enabled`: its multipath route, `credit/routing/multipath.rs`) | the one path (0) |
//! | endpoint | [`congestion_bit`] | `endpoint/hca.rs`, a message's first packet | — (DDBBM: the source's status bit) |
//! | run | [`interval_ended`], [`run_ended`] | `run_loop.rs` | CCTI samples per statistics interval |
//! | run | [`timer_period`], [`timer_fired`] | `run_loop.rs`, the mechanism's own timer | — (DDBBM: the detection frame) |
//!
//! Switch-side hooks read the network through a [`SwitchView`] (queue fills, buffer capacities,
//! credits), which they build when they need it with the closure `switch_view!` gives them;
//! endpoint-side hooks get the packet or the
//! flow. A hook changes the network only through what it is handed (`&mut Packet`) or returns
//! (a [`Notification`] the destination queues).
//!
//! ## To add a mechanism
//!
//! Write one file `credit/cc/<name>.rs` with the mechanism's state, one method per hook it
//! uses, named as the hook (like [`ib::IbCc`]), its results (`outputs`: its `summary.json`
//! fields and tables, reading the run through an [`OutputContext`]) and its share of the
//! memory estimate (`memory`, from the scenario's [`MemorySizes`]); add a variant to
//! [`CongestionManagement`] and an arm to each hook it uses (the others get `=> {}` or the
//! neutral answer), to [`CongestionManagement::outputs`] and [`CongestionManagement::memory`];
//! build it in [`CongestionManagement::from_config`] from the scenario (its `cc.mechanism`
//! value and keys in `config/`: `schema.rs`, `keys.rs`, its line in `catalog.rs`). Nothing
//! goes in `credit/results.rs`, `credit/memory_estimate.rs` or `credit/build.rs`: five files.
//! - **QCN-style feedback** (`qcn.rs`): the congestion point samples the queue in
//!   `packet_enqueued` (every n-th byte, feedback from the queue's offset and its growth) and
//!   returns feedback by asking the destination path — give `packet_enqueued` a
//!   `Option<Notification>` result sent from the switch (as `packet_received` does from an
//!   HCA); the reaction point is `notification_received` (rate cut) with `ready_at`/
//!   `packet_sent` pacing and a timer-driven recovery evaluated lazily like the CCTI timer.
//! - **DRB path expansion** (`drb.rs`): `packet_received` measures the packet's latency at the
//!   destination and returns a notification; `notification_received` widens or narrows the
//!   flow's set of paths; `path_for` picks the next packet's path round robin over the set
//!   (the packet carries it in `Packet::path`; with `drb.enabled` the switches follow the
//!   pair's link-disjoint path `k` of `credit/routing/multipath_routes.rs`, looked up in `switch/input.rs`).
//!
//! [`ddbbm_detection::Ddbbm`] (drb-and-ddbbm spec B.3) is the second mechanism: the destination counts
//! what it receives in `packet_received` (and notifies a new source while congested), decides
//! at the end of each frame of its own timer ([`timer_period`], [`timer_fired`]: the network
//! queues the notifications it returns), the source keeps the status bits in
//! `notification_received`, and the HCA reads them with [`congestion_bit`] at each message's
//! first packet; the switches' DDBBM queue scheme (`switch/buffer/ddbbm.rs`) maps the bit to the
//! dynamic queue. It is selected by its own key, `cc.mechanism = "ddbbm"` (with `cc.enabled`),
//! or, as the shipped scenarios do, by that queue scheme alone (`switch.queue_mapping =
//! "ddbbm"`, [`ddbbm_detection::Ddbbm::selected`]); it builds itself, R_max included
//! (`ddbbm_detection::Ddbbm::for_scenario`). Running IB CC and DDBBM together would be one variant holding both (refused
//! for now).
//!
//! [`packet_enqueued`]: CongestionManagement::packet_enqueued
//! [`packet_dequeued`]: CongestionManagement::packet_dequeued
//! [`packet_forwarded`]: CongestionManagement::packet_forwarded
//! [`credits_returned`]: CongestionManagement::credits_returned
//! [`packet_received`]: CongestionManagement::packet_received
//! [`notification_received`]: CongestionManagement::notification_received
//! [`ready_at`]: CongestionManagement::ready_at
//! [`packet_sent`]: CongestionManagement::packet_sent
//! [`path_for`]: CongestionManagement::path_for
//! [`interval_ended`]: CongestionManagement::interval_ended
//! [`run_ended`]: CongestionManagement::run_ended
//! [`timer_period`]: CongestionManagement::timer_period
//! [`timer_fired`]: CongestionManagement::timer_fired
//! [`congestion_bit`]: CongestionManagement::congestion_bit

pub mod ccm_timer;
pub mod cct;
pub mod ddbbm_detection;
pub mod ddbbm_lanes;
pub mod drb;
pub mod ib;
pub mod ib_ca;
pub mod ib_s1;
pub mod ib_switch;
pub mod port_monitor;

use crate::config::{CcKeys, CcMechanism, Ps, Scenario};
use crate::credit::packet::Packet;
use crate::credit::routing::multipath_routes::MultipathRoutes;
use crate::credit::switch::buffer::CreditKeeping;
use crate::credit::switch::output_queue::OutQueue;
use crate::credit::traffic::{Flow, Traffic};
use crate::engine::memory_budget::MemoryEstimate;
use crate::error::Result;
use crate::topology::{Fabric, LinkClass};
use serde_json::Value;
use std::path::Path;

pub use ddbbm_detection::Ddbbm;
pub use drb::Drb;
pub use ib::IbCc;
pub use ib_s1::IbS1;

/// A congestion notification the destination asks the network to send back to a source.
#[derive(Debug, Clone, Copy)]
pub struct Notification {
    /// HCA that must receive it.
    pub to: u32,
    /// Flow the notification is about.
    pub flow: u32,
    /// Its size on the wire.
    pub bytes: u32,
    /// Its VL (`None`: the flow's).
    pub vl: Option<u8>,
    /// BECN set: InfiniBand CC's CNP (spec §2.3.1), DDBBM's start of congestion (drb-and-ddbbm
    /// spec B.3.3; clear: its end).
    pub becn: bool,
    /// The path of the data packet it answers (DRB counts notifications per path:
    /// drb-and-ddbbm spec A.3.2; 0 for the other mechanisms).
    pub path: u8,
}

/// What switch-side hooks may read of the network: queue fills and credits (references to
/// the network's arrays; a mechanism that needs more adds a field here and in
/// `switch_view!`).
pub struct SwitchView<'a> {
    /// Per gport: the gport at the other end of its link.
    pub peer: &'a Vec<u32>,
    /// Per switch input gport: index base in `fill`.
    pub fill_base: &'a Vec<u32>,
    /// `[fill_base[in] + out * vls + vl]`: credits held by input `in` for local output `out`.
    pub fill: &'a Vec<u32>,
    /// Credits available at every output (indexed as the credit keeping says).
    pub credits: &'a Vec<u32>,
    /// How credits are kept.
    pub credit_keeping: &'a CreditKeeping,
    /// `[gport * vls + vl]`: credits occupied in every input buffer.
    pub in_used: &'a Vec<u32>,
    /// The output buffers' fills (all empty without output buffers): per gport its first
    /// output queue (`u32::MAX`: none) and its queues per VL, per output queue the credits
    /// held and its capacity (`OutputBuffers::fill_parts`).
    pub out_fill: OutputFill<'a>,
}

/// The output buffers' fills as flat slices (see [`SwitchView::out_fill`]).
#[derive(Clone, Copy)]
pub struct OutputFill<'a> {
    /// Per gport: its first output queue (`u32::MAX` at an HCA's port).
    pub base: &'a [u32],
    /// Per gport: queues per VL.
    pub classes: &'a [u32],
    /// Per output queue: its record (credits held, capacity in credits).
    pub queues: &'a [OutQueue],
}

impl OutputFill<'_> {
    /// Credits held and capacity of output `og`'s buffer on `vl` (0, 0 without one).
    pub fn vl_fill(&self, og: u32, vl: u8, vls: usize) -> (u32, u32) {
        let Some(&base) = self.base.get(og as usize) else {
            return (0, 0);
        };
        if base == u32::MAX {
            return (0, 0);
        }
        let (mut used, mut cap) = (0, 0);
        for class in 0..self.classes[og as usize] as usize {
            let q = base as usize + class * vls + vl as usize;
            used += self.queues[q].used;
            cap += self.queues[q].cap;
        }
        (used, cap)
    }
}

impl SwitchView<'_> {
    /// The most credits output `og` holds for VL `vl` (whether the port VL can send at all).
    #[inline]
    pub fn vl_credits(&self, og: u32, vl: u8, vls: usize) -> u32 {
        self.credit_keeping
            .vl_credits(self.credits, self.peer, og, vl, vls)
    }
}

/// A closure that builds the [`SwitchView`] of a `Net` from its fields, so that the hooks can
/// be called on `net.cc` while the view borrows the rest. A hook builds the view only in the
/// arm of a mechanism that reads it: with congestion management off it costs nothing.
macro_rules! switch_view {
    ($net:expr) => {
        || $crate::credit::cc::SwitchView {
            peer: &$net.links.peer,
            fill_base: &$net.sw.fill_base,
            fill: &$net.sw.fill,
            credits: &$net.links.credits,
            credit_keeping: &$net.sw.credit_keeping,
            in_used: &$net.sw.in_used,
            out_fill: match $net.sw.obuf.as_ref() {
                Some(o) => o.fill_parts(),
                None => $crate::credit::cc::OutputFill {
                    base: &[],
                    classes: &[],
                    queues: &[],
                },
            },
        }
    };
}
pub(crate) use switch_view;

/// What a mechanism's results read of the finished run ([`CongestionManagement::outputs`]).
pub struct OutputContext<'a> {
    /// The HCAs' names.
    pub names: &'a [&'a str],
    /// The statistics interval (ps).
    pub interval: u64,
    /// The first statistics interval after the warm-up (`None`: the run stopped before it,
    /// and the after-warm-up means are null).
    pub first_after_warm: Option<u32>,
    /// The traffic (flows, generators).
    pub traffic: &'a Traffic,
    /// The topology (node names).
    pub fabric: &'a Fabric,
    /// `[gport]`: the node of the port.
    pub node_of: &'a [u32],
    /// `[node]`: the node's first gport.
    pub port_base: &'a [u32],
}

impl OutputContext<'_> {
    /// `(switch name, local port)` of gport `g`.
    pub fn port(&self, g: u32) -> (&str, u32) {
        let node = self.node_of[g as usize] as usize;
        (&self.fabric.nodes[node].name, g - self.port_base[node])
    }
}

/// A mechanism's results: its fields of `summary.json` and its tables (file name, text).
#[derive(Default)]
pub struct MechanismOutputs {
    /// `(key, value)` added to the summary.
    pub fields: Vec<(&'static str, Value)>,
    /// `(file name, text)` written to the results folder.
    pub files: Vec<(&'static str, String)>,
}

/// Picoseconds as seconds (the results' time unit).
pub(crate) fn secs(ps: u64) -> f64 {
    ps as f64 / crate::config::PS_PER_S as f64
}

/// `x` rounded to 6 decimals (the results' precision).
pub(crate) fn r6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// The sizes a mechanism's share of the memory estimate reads
/// ([`CongestionManagement::memory`]), from the scenario alone.
pub struct MemorySizes {
    /// Global ports.
    pub ports: u64,
    /// End nodes.
    pub hcas: u64,
    /// Data VLs.
    pub vls: u64,
    /// Flows.
    pub flows: u64,
    /// Statistics intervals of the run.
    pub intervals: u64,
    /// Bytes of a node name (at least 4).
    pub name_bytes: u64,
}

/// True when `[cc]` switches on one of its CNP-sending mechanisms (`ib`, `ib_s1`, `drb`: their
/// notifications take `cc.cnp_vl` or the data's VL, and the routes back are checked): not
/// `ddbbm`, whose notifications keep their `[ddbbm]` keys, so that `cc.mechanism = "ddbbm"`
/// means exactly what the DDBBM queue mapping alone does.
pub fn sends_cnps(s: &Scenario) -> bool {
    s.cc.enabled && s.cc.mechanism != CcMechanism::Ddbbm
}

/// True when scenario `s`'s congestion management chooses a flow's path per packet at its
/// source, over routes of several paths per pair (a capability each mechanism declares here:
/// DRB's multipath routes, `drb.enabled` or `cc.mechanism = "drb"`,
/// `credit/routing/multipath.rs`). What acts per flow at the wire cannot run behind the Input
/// Adapter's shared injection queues, which refuses it (`endpoint/adapter.rs`).
pub fn chooses_paths(s: &Scenario) -> bool {
    Drb::chooses_paths(s)
}

/// The congestion management of a run.
#[derive(Debug, Clone)]
pub enum CongestionManagement {
    /// None (spec: "CC disabled" runs).
    Off,
    /// InfiniBand CC (spec §2; [`ib`]).
    Ib(Box<IbCc>),
    /// DDBBM's destination detection and the sources' status bits (drb-and-ddbbm spec B.3;
    /// [`ddbbm_detection`]): nothing is throttled, packets of congested destinations carry the congestion
    /// bit that the switches' DDBBM queue scheme maps to the dynamic queue.
    Ddbbm(Box<Ddbbm>),
    /// DRB's path expansion (drb-and-ddbbm spec A.3; [`drb`]): the input-buffer monitor marks,
    /// the destination notifies, the source opens and closes disjoint paths and spreads its
    /// packets by Eq. 1; nothing is throttled.
    Drb(Box<Drb>),
    /// The DRB paper's throttling baseline IBA_CC-S1 (drb-and-ddbbm spec A.4; [`ib_s1`]).
    IbS1(Box<IbS1>),
}

/// What the builder knows about the network that congestion management needs.
pub struct CcContext<'a> {
    /// Data VLs.
    pub vls: usize,
    /// Credits of a standard packet.
    pub pkt_credits: u32,
    /// Per gport: a switch port.
    pub is_switch: &'a [bool],
    /// Per gport: its link class.
    pub class: &'a [LinkClass],
    /// Per gport: the first gport of its node.
    pub node_base: &'a [u32],
    /// `[gport * vls + vl]`: capacity of every input buffer (credits).
    pub in_cap: &'a [u32],
    /// Number of HCAs.
    pub n_hca: usize,
    /// Master seed.
    pub seed: u64,
    /// Folder of the scenario (for `cc.cct.file`).
    pub base_dir: &'a Path,
    /// DRB's multipath routes (`drb.enabled` or `cc.mechanism = "drb"`).
    pub multipath: Option<&'a MultipathRoutes>,
    /// Whether the scenario gives a key ([`crate::config::LoadedScenario::given`]), for a key
    /// refused where it does not apply.
    pub given: &'a dyn Fn(&str) -> bool,
    /// Whether a source lane choice picks each data packet's VL (`credit/lanes.rs`), so that a
    /// flow's own VL is not its packets'.
    pub sources_pick_lanes: bool,
}

impl CongestionManagement {
    /// Builds the run's mechanism from scenario `s` (`[cc]`, `[ddbbm]`, `[drb]`) over `fabric`
    /// and `traffic`; every `[cc]` key is checked even when it is off.
    pub fn from_config(
        s: &Scenario,
        fabric: &Fabric,
        traffic: &Traffic,
        ctx: &CcContext,
    ) -> Result<Self> {
        port_monitor::check_mark_buffer(s)?;
        let (c, drb) = (&s.cc, &s.drb);
        let mut ib = IbCc::from_config(c.ib(), ctx)?;
        if let Some(d) = Ddbbm::for_scenario(s, fabric, traffic, ctx.vls)? {
            return Ok(CongestionManagement::Ddbbm(Box::new(d)));
        }
        if !c.enabled {
            return Ok(CongestionManagement::Off);
        }
        match &c.keys {
            CcKeys::Ib(_) | CcKeys::Ddbbm(_) => {}
            CcKeys::Drb(k) => {
                return Ok(CongestionManagement::Drb(Box::new(Drb::from_config(
                    k, drb, ctx,
                )?)))
            }
            CcKeys::IbS1(k) => {
                return Ok(CongestionManagement::IbS1(Box::new(IbS1::from_config(
                    k, ctx,
                )?)))
            }
        }
        ib.set_capacities(ctx.in_cap);
        Ok(CongestionManagement::Ib(Box::new(ib)))
    }

    /// True unless congestion management is off (its hooks do nothing then: the run loop's
    /// copy for such networks leaves them out, `credit/kind.rs`).
    pub fn is_present(&self) -> bool {
        !matches!(self, CongestionManagement::Off)
    }

    /// The InfiniBand CC state, if that is the mechanism (for its results tables).
    pub fn ib(&self) -> Option<&IbCc> {
        match self {
            CongestionManagement::Ib(ib) => Some(ib),
            _ => None,
        }
    }

    /// The share of the memory estimate of the mechanism scenario `s` selects (before it is
    /// built: `credit/memory_estimate.rs`); InfiniBand CC's state, built and checked even when
    /// it is off, is estimated with the network.
    pub fn memory(s: &Scenario, z: &MemorySizes, est: &mut MemoryEstimate) {
        if Ddbbm::selected(s) {
            return Ddbbm::memory(s, z, est);
        }
        if !s.cc.enabled {
            return;
        }
        match s.cc.mechanism {
            CcMechanism::Ib => ib::memory(z, est),
            CcMechanism::Drb | CcMechanism::IbS1 => port_monitor::memory(z, est),
            CcMechanism::Ddbbm => {}
        }
    }

    /// What the mechanism scenario `s` switches on with `cc.enabled` does, in one line with its
    /// parameters (the set-up report of `lnsim validate`); None with `cc.enabled = false`.
    pub fn describe(s: &Scenario) -> Option<String> {
        if !s.cc.enabled {
            return None;
        }
        Some(match s.cc.mechanism {
            CcMechanism::Ib => ib::describe(),
            CcMechanism::Ddbbm => Ddbbm::describe(),
            CcMechanism::Drb => Drb::describe(s),
            CcMechanism::IbS1 => IbS1::describe(s),
        })
    }

    /// The mechanism's results: its summary fields and tables (InfiniBand CC's stay in
    /// `credit/results.rs`, which every run's `cc` field and per-node figures read).
    pub fn outputs(&self, ctx: &OutputContext) -> MechanismOutputs {
        let mut out = MechanismOutputs::default();
        match self {
            CongestionManagement::Off | CongestionManagement::Ib(_) => {}
            CongestionManagement::Ddbbm(d) => d.outputs(ctx, &mut out),
            CongestionManagement::Drb(d) => d.outputs(ctx, &mut out),
            CongestionManagement::IbS1(s) => s.outputs(ctx, &mut out),
        }
        out
    }

    /// True if the mechanism samples its state at every statistics interval's end
    /// ([`CongestionManagement::interval_ended`]).
    pub fn samples_intervals(&self) -> bool {
        matches!(
            self,
            CongestionManagement::Ib(_)
                | CongestionManagement::Drb(_)
                | CongestionManagement::IbS1(_)
        )
    }

    /// The period of the mechanism's own timer ([`CongestionManagement::timer_fired`]), if it
    /// has one (DDBBM's detection frame; the DRB paper's mechanisms' one CCM timer, `global`).
    pub fn timer_period(&self) -> Option<Ps> {
        match self {
            CongestionManagement::Ddbbm(d) => Some(d.frame()),
            CongestionManagement::Drb(d) => d.timer(),
            CongestionManagement::IbS1(s) => s.timer(),
            _ => None,
        }
    }

    /// The mechanism's timer fired at `now`; `send` queues each notification it decided
    /// (`(sending HCA, notification)`). Returns true if sources held back by the mechanism
    /// may now send earlier than they were told (IBA_CC-S1 lowered an IRD).
    pub fn timer_fired(&mut self, now: Ps, mut send: impl FnMut(u32, Notification)) -> bool {
        match self {
            CongestionManagement::Ddbbm(d) => {
                d.frame_ended(now);
                for (h, n) in d.take_pending() {
                    send(h, n);
                }
                false
            }
            CongestionManagement::Drb(d) => {
                d.timer_fired();
                false
            }
            CongestionManagement::IbS1(s) => s.timer_fired(),
            _ => false,
        }
    }

    /// DDBBM's notifications take lane `vl`, the management lane of `ddbbm.mapping =
    /// "virtual_lanes"` (drb-and-ddbbm spec B.4, [`ddbbm_lanes`]).
    pub fn use_management_lane(&mut self, vl: u8) {
        if let CongestionManagement::Ddbbm(d) = self {
            d.use_management_lane(vl);
        }
    }

    /// The congestion bit the packets of a message from `src` to `dst` that starts now carry
    /// (DDBBM's status bit, latched per message by the caller: drb-and-ddbbm spec B.3.4, B.3.6).
    #[inline]
    pub fn congestion_bit(&self, src: u32, dst: u32) -> bool {
        match self {
            CongestionManagement::Ddbbm(d) => d.congestion_bit(src, dst),
            _ => false,
        }
    }

    // --- switch side

    /// The head of a packet joined a queue of switch input `input` (a gport) towards local
    /// output `out` on `vl`: the input's credits held for that output went from `old` to
    /// `new`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn packet_enqueued<'v>(
        &mut self,
        v: impl FnOnce() -> SwitchView<'v>,
        input: u32,
        out: u16,
        vl: u8,
        old: u32,
        new: u32,
        now: Ps,
    ) {
        match self {
            CongestionManagement::Off => {}
            CongestionManagement::Ib(ib) => ib.packet_enqueued(&v(), input, out, vl, old, new, now),
            _ => {}
        }
    }

    /// The tail of a packet left switch input `input` (it went to local output `out` on `vl`):
    /// the credits held for that output went from `old` to `new`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn packet_dequeued<'v>(
        &mut self,
        v: impl FnOnce() -> SwitchView<'v>,
        input: u32,
        out: u16,
        vl: u8,
        old: u32,
        new: u32,
        now: Ps,
    ) {
        match self {
            CongestionManagement::Off => {}
            CongestionManagement::Ib(ib) => ib.packet_dequeued(&v(), input, out, vl, old, new, now),
            _ => {}
        }
    }

    /// Switch output `output` starts sending `p` on `vl` (it has taken the packet's credits).
    #[inline(always)]
    pub fn packet_forwarded<'v>(
        &mut self,
        v: impl FnOnce() -> SwitchView<'v>,
        output: u32,
        vl: u8,
        p: &mut Packet,
        now: Ps,
    ) {
        match self {
            CongestionManagement::Off => {}
            CongestionManagement::Ib(ib) => ib.packet_forwarded(&v(), output, vl, p, now),
            CongestionManagement::Drb(d) => d.monitor.packet_forwarded(&v(), output, vl, p),
            CongestionManagement::IbS1(s) => s.monitor.packet_forwarded(&v(), output, vl, p),
            _ => {}
        }
    }

    /// Packet `p` starts leaving the switch input buffer where it sits (`p.at`, VL `p.vl`;
    /// the output has taken its credits, its own credits are still in the buffer).
    #[inline(always)]
    pub fn packet_leaves_input<'v>(&mut self, v: impl FnOnce() -> SwitchView<'v>, p: &mut Packet) {
        match self {
            CongestionManagement::Drb(d) => d.monitor.packet_leaves_input(v().in_used, p),
            CongestionManagement::IbS1(s) => s.monitor.packet_leaves_input(v().in_used, p),
            _ => {}
        }
    }

    /// Credits for `vl` came back to switch output `output`.
    #[inline(always)]
    pub fn credits_returned<'v>(
        &mut self,
        v: impl FnOnce() -> SwitchView<'v>,
        output: u32,
        vl: u8,
        now: Ps,
    ) {
        match self {
            CongestionManagement::Off => {}
            CongestionManagement::Ib(ib) => ib.credits_returned(&v(), output, vl, now),
            _ => {}
        }
    }

    // --- endpoint side

    /// Destination HCA `h` consumed data packet `p`; returns the notification to send back,
    /// if any.
    #[inline]
    pub fn packet_received(&mut self, h: u32, p: &Packet, now: Ps) -> Option<Notification> {
        match self {
            CongestionManagement::Off => None,
            CongestionManagement::Ib(ib) => ib.packet_received(h, p, now),
            CongestionManagement::Ddbbm(d) => d.packet_received(h, p),
            CongestionManagement::Drb(d) => d.monitor.notification_for(p),
            CongestionManagement::IbS1(s) => s.monitor.notification_for(p),
        }
    }

    /// HCA `h` consumed notification `p` about its flow `flow`.
    #[inline]
    pub fn notification_received(&mut self, h: u32, p: &Packet, flow: &Flow, now: Ps) {
        match self {
            CongestionManagement::Off => {}
            CongestionManagement::Ib(ib) => ib.notification_received(h, p, flow, now),
            CongestionManagement::Ddbbm(d) => d.notification_received(h, p),
            CongestionManagement::Drb(d) => d.notification_received(p, flow, now),
            CongestionManagement::IbS1(s) => s.notification_received(p, now),
        }
    }

    /// The injection decision: earliest time flow `f` may start its next packet.
    #[inline]
    pub fn ready_at(&self, f: u32, flow: &Flow) -> Ps {
        match self {
            CongestionManagement::Off
            | CongestionManagement::Ddbbm(_)
            | CongestionManagement::Drb(_) => 0,
            CongestionManagement::Ib(ib) => ib.ready_at(f, flow),
            CongestionManagement::IbS1(s) => s.ready_at(f),
        }
    }

    /// Flow `f` starts a packet whose serialisation takes `ser` at `now`.
    #[inline]
    pub fn packet_sent(&mut self, f: u32, flow: &Flow, ser: Ps, now: Ps) {
        match self {
            CongestionManagement::Off => {}
            CongestionManagement::Ib(ib) => ib.packet_sent(f, flow, ser, now),
            CongestionManagement::IbS1(s) => s.packet_sent(f, ser, now),
            _ => {}
        }
    }

    /// The path choice: which of flow `f`'s paths its next packet takes (0: the forwarding
    /// tables' route). With `drb.enabled` (drb-and-ddbbm spec A.3.5) the answer given as a
    /// packet leaves applies to the flow's following packet (its VL, the path's layer, must be
    /// known to the HCA's credit check) and wraps at the pair's path count
    /// (`credit/routing/multipath.rs`); without it, only 0 is followed.
    #[inline]
    pub fn path_for(&mut self, f: u32, flow: &Flow, now: Ps) -> u8 {
        match self {
            CongestionManagement::Drb(d) => d.path_for(f, flow, now),
            _ => 0,
        }
    }

    // --- run

    /// Statistics interval `interval` ends at `t` ([`CongestionManagement::samples_intervals`]);
    /// the run has `flows` flows.
    #[inline]
    pub fn interval_ended(&mut self, interval: u32, t: Ps, flows: usize) {
        match self {
            CongestionManagement::Ib(ib) => ib.interval_ended(interval, t),
            CongestionManagement::Drb(d) => d.interval_ended(interval, t, flows),
            CongestionManagement::IbS1(s) => s.interval_ended(interval, t),
            _ => {}
        }
    }

    /// The run ended at `end`, inside statistics interval `last`, with `flows` flows.
    pub fn run_ended(&mut self, last: u32, end: Ps, flows: usize) {
        match self {
            CongestionManagement::Off => {}
            CongestionManagement::Ib(ib) => ib.run_ended(last, end),
            CongestionManagement::Drb(d) => d.interval_ended(last, end, flows),
            CongestionManagement::IbS1(s) => s.interval_ended(last, end),
            _ => {}
        }
    }
}
