//! The credit-level wing: the network instance — every switch port, HCA and buffer of the
//! fabric in flat arrays indexed by integer ids — plus the event loop that moves packets
//! through them (architecture: "network instance … engine").
//!
//! Where things are: `build.rs` (the instance from a scenario), `run_loop.rs` (the event loop
//! on the timing wheel of `wheel.rs`, one compiled copy per kind of network: `kind.rs`), `conservation.rs` (the end-of-run check), `results.rs`
//! (the results folder), `memory_estimate.rs`; `switch/` (input,
//! arbiter, output buffers, the buffer-organisation seam `switch/buffer/`), `endpoint/` (HCAs:
//! transmit, generators, sink, delivery, Input Adapter), `cc/` (the congestion-management
//! seam and its mechanisms); `routing/` (forwarding tables, their builders and deadlock check,
//! DRB's multipath routes), `traffic/` (flows and generators), `stats/` (the collectors).
//!
//! A *global port* (`gport`) is `port_base[node] + port`. Each gport has an output side (the
//! wire it drives, the credits it holds for the buffer at the other end) and an input side
//! (the buffer that receives from the wire).

mod build;
pub mod cc;
mod conservation;
mod deadlock;
pub mod endpoint;
pub mod flow_control;
mod kind;
pub mod lanes;
pub mod memory_estimate;
pub mod packet;
pub mod prefetch;
pub mod results;
pub mod routing;
mod run_loop;
pub mod stats;
pub mod switch;
pub mod traffic;
pub mod wheel;

pub use build::validate;
pub use conservation::Conservation;
pub use deadlock::Deadlock;
pub use run_loop::run_scenario;

use crate::config::Ps;
use crate::credit::cc::CongestionManagement;
use crate::credit::endpoint::sink::SinkModel;
use crate::credit::packet::PacketStore;
use crate::credit::routing::ForwardingTables;
use crate::credit::stats::Stats;
use crate::credit::switch::buffer::{CreditKeeping, QueueScheme};
use crate::credit::switch::vl_arbitration::{VlArbState, VlArbTable};
use crate::credit::traffic::Traffic;
use crate::credit::wheel::EventQueue;
use crate::topology::{Fabric, LinkRate};
use std::collections::VecDeque;

/// Simulation events. Every event is a few words, copied into the timing wheel.
#[derive(Debug, Clone, Copy)]
pub enum Ev {
    /// The first credit of packet `pkt` has arrived at input `gport` (a switch or an HCA).
    HeadArrive {
        /// Packet id.
        pkt: u32,
        /// Receiving global port.
        gport: u32,
    },
    /// Output `gport` may arbitrate for its next packet (with output buffers: its crossbar
    /// output is free).
    OutputReady {
        /// The output.
        gport: u32,
    },
    /// The tail of a packet left switch input `gport`: its credits are free.
    InputRelease {
        /// The input.
        gport: u32,
        /// The credit counter the packet held (its VL, or its queue with credits kept per
        /// queue: [`switch::buffer`]).
        counter: u16,
        /// Local output port the packet went to (whose queue fill drops; at most 254 ports).
        out: u8,
        /// Credits freed.
        credits: u32,
    },
    /// A credit update reached output `gport`.
    CreditArrive {
        /// The output receiving the credits.
        gport: u32,
        /// The credit counter (as in [`Ev::InputRelease`]).
        counter: u16,
        /// Credits returned.
        credits: u32,
    },
    /// The sink of HCA `hca` finished consuming its head packet.
    SinkDone {
        /// HCA index.
        hca: u32,
    },
    /// HCA `hca` may be able to send (start time, pacing, congestion-control delay).
    HcaWake {
        /// HCA index.
        hca: u32,
    },
    /// Record the CCTI of every throttled flow for statistics interval `interval`.
    CcSample {
        /// The interval that ends now.
        interval: u32,
    },
    /// A source's timer: a flood source starts, a Bernoulli or Poisson source creates a
    /// message.
    Arrival {
        /// Source index.
        source: u32,
        /// Bernoulli, Poisson: the message's destination, drawn when the event was scheduled
        /// (from the source's own destination stream, so the draws are those made at the
        /// arrival itself; known early, the flow's records can be prefetched). Flood:
        /// `u32::MAX` (`endpoint/generator.rs`: `NO_DESTINATION`).
        dst: u32,
    },
    /// The sink of HCA `hca` has drained the next credit of its head packet
    /// (`hca.sink.credit_return = "credit"`); `seq` tells a step of an earlier packet apart.
    SinkCredit {
        /// HCA index.
        hca: u32,
        /// The sink's packet sequence number when the step was scheduled.
        seq: u32,
    },
    /// The congestion management's own timer (DDBBM's detection frame,
    /// [`cc::CongestionManagement::timer_period`]).
    CcTimer,
    /// Receiving port `gport` sends a flow-control packet for counter `counter`
    /// (`links.flow_control = "packets"`: [`flow_control`]).
    FlowControlSend {
        /// The receiving port (the packet goes to its peer).
        gport: u32,
        /// The credit counter.
        counter: u16,
    },
    /// The head of packet `pkt` has crossed the crossbar into the output buffer of `gport`
    /// (`switch.output_buffer_credits`: [`switch::output_buffer`]).
    CrossbarArrive {
        /// Packet id.
        pkt: u32,
        /// The output whose buffer it joins.
        gport: u32,
    },
    /// The link of output `gport` may start its next packet (with output buffers; without,
    /// [`Ev::OutputReady`] is the output's only readiness).
    LinkReady {
        /// The output.
        gport: u32,
    },
    /// The tail of a packet left output `gport`'s buffer on the wire: its space in output
    /// queue `counter` (the downstream credit counter it was kept for) is free.
    OutputRelease {
        /// The output.
        gport: u32,
        /// The output queue (= the downstream credit counter).
        counter: u16,
        /// Credits freed.
        credits: u32,
    },
    /// [`Ev::InputRelease`] and [`Ev::OutputReady`] of one crossbar transfer when they fall at
    /// the same time (no input delay, `switch.input_delay` = 0: the tail leaves the input as the
    /// crossbar output frees): one event doing both, in that order. They were scheduled one
    /// after the other, so no event can come between them and the run is the same as with two
    /// events, one fewer event per hop (drb-and-ddbbm spec B.5's switch with output buffers).
    CrossbarDone {
        /// The input (as in [`Ev::InputRelease`]).
        gport: u32,
        /// Its credit counter.
        counter: u16,
        /// Local output port the packet went to: the crossbar output now free.
        out: u8,
        /// Credits freed.
        credits: u32,
    },
    /// [`Ev::LinkReady`] and [`Ev::OutputRelease`] of one packet's wire time when they fall
    /// at the same time (`switch.output_delay` = 0): one event doing both, in that order, as
    /// [`Ev::CrossbarDone`] does for the crossbar.
    WireDone {
        /// The output.
        gport: u32,
        /// The output queue (= the downstream credit counter).
        counter: u16,
        /// Credits freed.
        credits: u32,
    },
}

// every event is copied into the timing wheel: keep it at three words
const _: () = assert!(std::mem::size_of::<Ev>() == 12);

/// Timing of one link direction as seen from its driving gport.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PortTiming {
    /// Wire rate.
    pub rate: LinkRate,
    /// Internal (crossbar / HCA core) transfer rate feeding this output.
    pub internal: LinkRate,
    /// Propagation delay.
    pub delay: Ps,
    /// Wire time of one standard packet.
    pub ser_pkt: Ps,
    /// Wire time of one credit.
    pub ser_credit: Ps,
    /// Internal transfer time of one standard packet.
    pub int_pkt: Ps,
    /// Internal transfer time of one credit.
    pub int_credit: Ps,
}

/// The [`PortTiming`] of every gport, each distinct value stored once (a network has a few
/// link classes; a record per gport would be over 100 bytes read on every hop): index it by
/// gport like a slice.
#[derive(Debug, Clone, Default)]
pub struct PortTimings {
    /// `[gport]`: index in `table`.
    class: Vec<u32>,
    /// The distinct timings.
    table: Vec<PortTiming>,
}

impl PortTimings {
    /// The timings of gports `0..per_gport.len()`.
    pub fn new(per_gport: &[PortTiming]) -> Self {
        let mut index = std::collections::HashMap::new();
        let mut t = PortTimings::default();
        for p in per_gport {
            let next = t.table.len() as u32;
            let c = *index.entry(*p).or_insert(next);
            if c == next {
                t.table.push(*p);
            }
            t.class.push(c);
        }
        t
    }

    /// Number of gports.
    pub fn len(&self) -> usize {
        self.class.len()
    }

    /// True when there is no gport.
    pub fn is_empty(&self) -> bool {
        self.class.is_empty()
    }
}

impl std::ops::Index<usize> for PortTimings {
    type Output = PortTiming;
    #[inline(always)]
    fn index(&self, g: usize) -> &PortTiming {
        &self.table[self.class[g] as usize]
    }
}

/// The network instance and its run state, in named parts: the ports and links
/// ([`Links`]), the switches' arbitration ([`Arbitration`]) and buffers ([`SwitchBuffers`],
/// output buffers among them), the end nodes ([`Endpoints`]), the routes and the sources'
/// route choices ([`Routes`]), the engine ([`Engine`]), plus the traffic, the packets, the
/// congestion management and the statistics. Every part keeps its flat arrays indexed by
/// integer ids (gport, HCA, queue), the layout the hot path reads.
pub struct Net {
    /// Lanes per port: `switch.vls` data VLs, plus the management lane with DDBBM on VLs.
    pub(crate) vls: usize,
    /// Bytes per credit (`traffic.credit_bytes`).
    pub(crate) credit_bytes: u32,
    /// Bytes of a standard packet (`traffic.packet_bytes`).
    pub(crate) pkt_bytes: u32,
    /// Credits of a standard packet.
    pub(crate) pkt_credits: u32,
    /// The topology: nodes, their ports and the HCAs.
    pub(crate) fabric: Fabric,
    /// The ports and links.
    pub(crate) links: Links,
    /// The switches' output arbitration.
    pub(crate) arb: Arbitration,
    /// The switches' input queues and output buffers.
    pub(crate) sw: SwitchBuffers,
    /// The end nodes (HCAs).
    pub(crate) hcas: Endpoints,
    /// The routes and the sources' route choices.
    pub(crate) routes: Routes,
    /// The engine: event wheel, clock limit, work counters, run faults.
    pub(crate) engine: Engine,
    /// The traffic: flows and sources.
    pub(crate) traffic: Traffic,
    /// The packets in flight.
    pub(crate) pkts: PacketStore,
    /// Congestion management: the hooks the switches and HCAs call ([`cc`]).
    pub(crate) cc: CongestionManagement,
    /// Notifications the congestion management's timer decided (reused buffer).
    pub(crate) cc_out: Vec<(u32, cc::Notification)>,
    /// The statistics collectors.
    pub(crate) stats: Stats,
}

/// The ports of one node as its ports' gports see them (`Links::span`).
#[derive(Debug, Clone, Copy, Default)]
pub struct PortSpan {
    /// The node's first gport (`port_base[node]`).
    pub base: u32,
    /// The node's number of ports.
    pub ports: u32,
}

/// The ports and links: the global port numbering, each link direction's timing and wire
/// state, and the credits each output holds for the buffer at the other end.
pub struct Links {
    /// `[node]`: the node's first gport.
    pub(crate) port_base: Vec<u32>,
    /// `[gport]`: the node of the port.
    pub(crate) node_of: Vec<u32>,
    /// `[gport]`: the first gport and the number of ports of the port's node (read together
    /// on every hop, without the chain node → first port → the node's port list).
    pub(crate) span: Vec<PortSpan>,
    /// `[node]`: the node is a switch (else an HCA).
    pub(crate) is_switch: Vec<bool>,
    /// `[gport]`: the gport at the other end of the link.
    pub(crate) peer: Vec<u32>,
    /// `[gport]`: timing of the link direction the port drives.
    pub(crate) timing: PortTimings,
    /// `[gport]`: when the wire is free for the next packet.
    pub(crate) wire_free: Vec<Ps>,
    /// `[gport]`: the output is sending (or its crossbar output is taken).
    pub(crate) out_busy: Vec<bool>,
    /// `[gport]`: when a busy switch output's [`Ev::OutputReady`] falls (set at its grant; read
    /// only while `out_busy`). Kept by the copies of the hot path that defer credits
    /// ([`kind::SwitchKind::DEFER_CREDITS`]); empty otherwise.
    pub(crate) ready_at: Vec<Ps>,
    /// Per credit counter (as `credits`): credits that have reached a busy switch output
    /// without an event, added to `credits` when it frees ([`kind::SwitchKind::DEFER_CREDITS`];
    /// empty in the copies that do not defer).
    pub(crate) credits_due: Vec<u32>,
    /// Credits available at the downstream buffer, per credit counter
    /// ([`Net::credit_slot`]; `[gport * vls + vl]` with a shared pool).
    pub(crate) credits: Vec<u32>,
    /// Flow-control packets on the reverse links (`None`: ideal credit return).
    pub(crate) flow_control: Option<flow_control::FlowControlPackets>,
}

/// The switches' output arbitration: which queue heads request which output, the round-robin
/// pointers, the VL arbitration (`switch/arbiter.rs`).
pub struct Arbitration {
    /// `[gport * vls + vl]`: round-robin pointer over input ports (last served).
    pub(crate) rr: Vec<u16>,
    /// `[gport * vls + vl]`: queue heads requesting this output.
    pub(crate) req: Vec<u32>,
    /// `[(gport * vls + vl) * req_words + w]`: bit `i` set while the queue head of input port `i`
    /// of the switch requests this output (lets arbitration skip idle inputs).
    pub(crate) req_mask: Vec<u64>,
    /// Words per entry of `req_mask`: `ceil(max switch ports / 64)`.
    pub(crate) req_words: usize,
    /// Laid out as `req_mask`: bit `i` set when input port `i` was found unable to feed this
    /// output on this VL (crossbar input busy, or no head requesting it fits) and nothing that
    /// could change that has happened since: the arbiter skips it (`switch/arbiter.rs`).
    /// Cleared when the input frees its crossbar input, gains a head requesting the output,
    /// or the output gains room (output-buffer space or downstream credits).
    pub(crate) pick_skip: Vec<u64>,
    /// `[input gport]`, where switches have at most 64 ports (`req_words` 1; empty otherwise):
    /// bit `o` set when the input's bit in `pick_skip` may be set for local output `o` (on
    /// some VL), so that the input's freeing clears those entries only, not the whole
    /// switch's ([`Net::input_freed`]). A bit may outlive the entry it stands for (other
    /// events clear `pick_skip` too): it costs a clear of a clear entry.
    pub(crate) skip_outs: Vec<u64>,
    /// Bit `gport`: some VL of this output has a request (`req > 0`).
    pub(crate) req_any: Vec<u64>,
    /// `[input gport * req_words + w]`: bit `o` set while a queue head of this switch input
    /// requests local output `o` on some VL (`req_mask` seen from the input): when the input
    /// frees its crossbar input, the outputs it can feed are found without a scan of the
    /// switch's outputs. Kept only where switches are wide ([`WIDE_SWITCH_PORTS`]; empty
    /// otherwise, and that scan is made).
    pub(crate) in_req: Vec<u64>,
    /// `[fill_base[in] + out * vls + vl]`: queue heads of input `in` requesting local output
    /// `out` on `vl`, for queue schemes where several can
    /// ([`QueueScheme::several_heads_per_output`]; empty otherwise).
    pub(crate) req_heads: Vec<u16>,
    /// `[in * vls + vl]`: class of the queue of input `in` last served on `vl` (round robin
    /// among an input's queues when several request one output; empty otherwise).
    pub(crate) head_rr: Vec<u32>,
    /// `[(fill_base[out] + in * vls + vl) * head_words + w]` (output-major: the entries an
    /// output's arbiter reads sit together): bit `class` set when the head of that queue class
    /// of local input `in` on `vl` requests output gport `out` (same schemes as `req_heads`;
    /// empty otherwise): the arbiter visits only those queues.
    pub(crate) head_mask: Vec<u64>,
    /// Words per entry of `head_mask`: `ceil(most queues per VL of a switch input / 64)`.
    pub(crate) head_words: usize,
    /// `[gport]`: the VL arbiter's position in its tables.
    pub(crate) vlarb: Vec<VlArbState>,
    /// The VL arbitration tables (`switch.vl_arbitration`).
    pub(crate) vlarb_table: VlArbTable,
    /// At most one queue of an input requests an output on a VL, and credits are kept per VL
    /// (the organisation of every scenario today): the arbiter's fast path.
    pub(crate) plain_buffers: bool,
}

/// Switches with more ports than this (some switch of the fabric) keep each input's requested
/// outputs ([`Arbitration::in_req`]); below, scanning a switch's requested outputs when an input
/// frees is cheaper than keeping them (callgrind, instructions per event: the 36-port switches
/// of `fat_tree_648` −4.5 % with them, the 8-port switches of `bmin64_3b` +0.9 %).
pub(crate) const WIDE_SWITCH_PORTS: usize = 16;

/// The switches' buffers: the input queues and their fills, the crossbar limit, the output
/// buffers, and the switch delays.
pub struct SwitchBuffers {
    /// `[gport * vls + vl]`: credits occupied in this input buffer (all queues of the VL).
    pub(crate) in_used: Vec<u32>,
    /// `[gport * vls + vl]`: capacity of this input buffer.
    pub(crate) in_cap: Vec<u32>,
    /// `[gport]`: what the arbiter reads of a switch input for every input it considers, in
    /// one record ([`SwitchInput`]).
    pub(crate) input: Vec<SwitchInput>,
    /// Tracked-buffer index of a switch input gport (for occupancy statistics).
    pub(crate) buf_index: Vec<u32>,
    /// Which queue of an input a packet joins ([`crate::credit::switch::buffer`]).
    pub(crate) queue_scheme: QueueScheme,
    /// How credits are kept: per VL or per queue.
    pub(crate) credit_keeping: CreditKeeping,
    /// Index base of a switch input gport in [`SwitchBuffers::fill`].
    pub(crate) fill_base: Vec<u32>,
    /// `[fill_base[in] + out * vls + vl]`: credits occupied in input `in` by packets for local
    /// output `out` on `vl`, from head arrival until the tail leaves (the VoQ fill of spec
    /// §2.2.3, whatever the queue mapping).
    pub(crate) fill: Vec<u32>,
    /// `[queue]`: every switch input queue, with its head's request
    /// ([`switch::arbiter::InputQueue`]).
    pub(crate) queues: Vec<switch::arbiter::InputQueue>,
    /// Output buffers and the state of their links (`switch.output_buffer_credits` > 0; None:
    /// the input-buffered switch, spec B.5: [`switch::output_buffer`]).
    pub(crate) obuf: Option<switch::output_buffer::OutputBuffers>,
    /// `switch.input_delay`.
    pub(crate) input_delay: Ps,
    /// `switch.routing_delay`.
    pub(crate) routing_delay: Ps,
    /// `switch.output_delay`.
    pub(crate) output_delay: Ps,
}

/// A switch input as the arbiter reads it for every input it considers (one record, one
/// bounds check, instead of an array per field).
#[derive(Debug, Clone, Copy)]
pub struct SwitchInput {
    /// Its first queue in [`SwitchBuffers::queues`] (`u32::MAX`: not a switch input).
    pub(crate) queue_base: u32,
    /// Packets this input is feeding through the crossbar.
    pub(crate) being_sent: u16,
    /// The most packets the input may feed through the crossbar at once.
    pub(crate) max_being_sent: u16,
}

/// The end nodes: each HCA's transmit side (ready flows, pacing, control queue, Input
/// Adapter) and receive side (sink).
pub struct Endpoints {
    /// `[hca]`: the HCA's gport.
    pub(crate) hca_gport: Vec<u32>,
    /// `[node]`: the HCA index of an HCA node.
    pub(crate) hca_of_node: Vec<u32>,
    /// How a sink consumes packets (`hca.sink`).
    pub(crate) sink: SinkModel,
    /// `[hca]`: packets waiting for the sink.
    pub(crate) sink_q: Vec<VecDeque<u32>>,
    /// `[hca]`: the sink is consuming a packet.
    pub(crate) sink_busy: Vec<bool>,
    /// Per-credit sinks' state (`hca.sink.credit_return = "credit"`; empty otherwise).
    pub(crate) sink_steps: endpoint::delivery::SinkSteps,
    /// `[hca]`: earliest time of the next transmission (rate cap).
    pub(crate) next_tx: Vec<Ps>,
    /// `[hca]`: time of the pending wake-up (`Ps::MAX`: none).
    pub(crate) wake_at: Vec<Ps>,
    /// `[hca]`: the flows with a packet to send.
    pub(crate) ready: Vec<Vec<u32>>,
    /// Per HCA, beside `ready`: the index in `credits` of the counter the next packet of each
    /// ready flow needs (`endpoint/hca.rs`, `Net::ready_flow_slot`); kept current when a flow
    /// sends or a DDBBM notification changes the status bits (spec B.3.4).
    pub(crate) ready_slot: Vec<Vec<u32>>,
    /// Per index of `credits`: how many ready flows of the HCA driving it need that counter
    /// next (a credit coming back elsewhere cannot let any flow of the HCA send).
    pub(crate) slot_waiting: Vec<u32>,
    /// `[hca]`: round-robin position among the ready flows.
    pub(crate) hca_rr: Vec<u32>,
    /// Per HCA: how many leading flows of `ready` are known to fail their credit check
    /// (`endpoint/hca.rs`, `Net::try_hca_send`); reset whenever that can stop holding.
    pub(crate) hca_blocked: Vec<u32>,
    /// `[hca]`: control packets (CNPs) waiting to be sent.
    pub(crate) control_q: Vec<VecDeque<u32>>,
    /// The Input Adapter's injection queues (`hca.injection_queues = "scheme"`, drb-and-ddbbm
    /// spec B.5: [`endpoint::adapter`]); None: the flows send directly (`"per_flow"`).
    pub(crate) adapter: Option<endpoint::adapter::InjectionQueues>,
    /// `hca.max_tx_rate`.
    pub(crate) tx_cap: Option<LinkRate>,
    /// `stats.fairness_sources` resolved to HCA indices.
    pub(crate) fairness_sources: Option<Vec<u32>>,
}

/// The routes: the forwarding tables, their start-up checks, and the sources' route choices
/// (DRB's paths, DDBBM's lanes).
pub struct Routes {
    /// The forwarding tables.
    pub(crate) lft: ForwardingTables,
    /// DRB's multipath routes (`drb.enabled`, drb spec A.3.5 mode 1): a packet with
    /// `Packet::path > 0` follows its pair's path; VLs are the paths' layers.
    pub(crate) multipath: Option<Box<crate::credit::routing::multipath_routes::MultipathRoutes>>,
    /// S-mod-k's per-source up ports (`routing.dmodk_key = "source"`, drb spec B.6): a
    /// switch's output is its table entry going down, else the packet's source's up port
    /// (`dmodk::SourceUpPorts::port`; the look-ahead reads it the same way).
    pub(crate) source_up: Option<Box<crate::credit::routing::dmodk::SourceUpPorts>>,
    /// `drb.spread`: how flows spread their packets over their paths.
    pub(crate) spread: crate::config::Spread,
    /// Who picks a data packet's VL at its source (the source-lane-choice seam, `lanes.rs`):
    /// the flow, or a mechanism that picks each message's VL (DDBBM on VLs).
    pub(crate) lane_choice: lanes::LaneChoice,
    /// The channel-dependency check of the forwarding tables over the traffic's routes
    /// (reported by `validate`).
    pub(crate) cdg: crate::credit::routing::table_dependencies::TablesCheck,
    /// (source, destination) routes checked at start-up.
    pub(crate) routes_checked: usize,
    /// Longest route checked, in switch hops.
    pub(crate) max_hops: usize,
    /// Routes of every HCA pair per link under the tables (`route_balance`, `routes.csv`).
    pub(crate) balance: crate::credit::routing::route_balance::RouteBalance,
}

/// The engine: the timing wheel, the end of the run, the work counters and what stopped a
/// run early.
pub struct Engine {
    /// The timing wheel of pending events.
    pub(crate) q: EventQueue<Ev>,
    /// End of the simulated time (`sim.end_time`).
    pub(crate) end: Ps,
    /// Events handled.
    pub(crate) events: u64,
    /// Flits moved over links.
    pub(crate) flit_hops: u64,
    /// Packets (data and CNPs) sent over a link, one per link they cross (`lnsim bench`: events
    /// per packet-hop).
    pub(crate) packet_hops: u64,
    /// Last time a packet moved (grant, injection or consumption): deadlock watch.
    pub(crate) last_progress: Ps,
    /// A detected deadlock (the run ended there).
    pub(crate) deadlock: Option<Deadlock>,
    /// First invariant violation seen (lossless or routing); aborts the run.
    pub(crate) fault: Option<String>,
}

impl Net {
    /// Schedules an event.
    #[inline]
    pub(crate) fn at(&mut self, t: Ps, ev: Ev) {
        self.engine.q.push(t, ev);
    }

    /// Input port `input` (local index) of output `og`'s switch (first gport `base`) now has
    /// a queue head requesting `og` on `vl`.
    #[inline(always)]
    pub(crate) fn add_request<K: kind::SwitchKind>(
        &mut self,
        og: u32,
        vl: u8,
        base: u32,
        input: u32,
    ) {
        if !self.arb.in_req.is_empty() {
            let out = og - base;
            let k = (base + input) as usize * self.arb.req_words + (out >> 6) as usize;
            self.arb.in_req[k] |= 1 << (out & 63);
        }
        let ov = og as usize * self.vls + vl as usize;
        self.arb.req[ov] += 1;
        if K::PLAIN != Some(true) && self.sw.queue_scheme.several_heads_per_output() {
            self.count_head(og, vl, input, 1);
        }
        self.arb.req_mask[ov * self.arb.req_words + (input >> 6) as usize] |= 1 << (input & 63);
        self.arb.pick_skip[ov * self.arb.req_words + (input >> 6) as usize] &= !(1 << (input & 63));
        self.arb.req_any[(og >> 6) as usize] |= 1 << (og & 63);
    }

    /// Output `og` gained room (output-buffer space or downstream credits): every input may
    /// feed it again (`pick_skip`).
    #[inline(always)]
    pub(crate) fn output_gained_room(&mut self, og: u32) {
        let w = self.arb.req_words * self.vls;
        let b = og as usize * w;
        self.arb.pick_skip[b..b + w].fill(0);
    }

    /// Input port `input` (local index) of the switch whose ports are `span` freed its crossbar
    /// input: it may feed every output of the switch again (`pick_skip`).
    #[inline]
    pub(crate) fn input_freed(&mut self, span: PortSpan, input: u32) {
        let (base, n) = (span.base as usize, span.ports as usize);
        let words = self.arb.req_words;
        let (w, bit) = ((input >> 6) as usize, !(1u64 << (input & 63)));
        let vls = self.vls;
        if words == 1 {
            // (switches of at most 64 ports: every word is one output's on one VL) the
            // outputs where the input was found unable, not the whole switch
            let mut outs = std::mem::take(&mut self.arb.skip_outs[base + input as usize]);
            while outs != 0 {
                let o = base + outs.trailing_zeros() as usize;
                outs &= outs - 1;
                self.arb.pick_skip[o * vls..(o + 1) * vls]
                    .iter_mut()
                    .for_each(|s| *s &= bit);
            }
            return;
        }
        // the switch's outputs and VLs, one slice (`words` words each)
        let skip = &mut self.arb.pick_skip[base * vls * words..(base + n) * vls * words];
        skip.chunks_exact_mut(words).for_each(|c| c[w] &= bit);
    }

    /// Input port `input` (local index) of output `og`'s switch has a queue head requesting
    /// `og` on some VL.
    #[inline(always)]
    pub(crate) fn requests_from(&self, og: u32, input: u32) -> bool {
        let (w, bit) = ((input >> 6) as usize, 1u64 << (input & 63));
        let words = self.arb.req_words;
        (og as usize * self.vls..(og as usize + 1) * self.vls)
            .any(|ov| self.arb.req_mask[ov * words + w] & bit != 0)
    }

    /// Input port `input` (local index) of output `og`'s switch (first gport `base`) no longer
    /// requests `og` on `vl`.
    #[inline(always)]
    pub(crate) fn drop_request<K: kind::SwitchKind>(
        &mut self,
        og: u32,
        vl: u8,
        base: u32,
        input: u32,
    ) {
        let ov = og as usize * self.vls + vl as usize;
        self.arb.req[ov] -= 1;
        if K::PLAIN != Some(true)
            && self.sw.queue_scheme.several_heads_per_output()
            && self.count_head(og, vl, input, -1) > 0
        {
            return; // another queue of this input still requests `og`
        }
        self.arb.req_mask[ov * self.arb.req_words + (input >> 6) as usize] &= !(1 << (input & 63));
        if !self.arb.in_req.is_empty() && (self.vls == 1 || !self.requests_from(og, input)) {
            let out = og - base;
            let k = (base + input) as usize * self.arb.req_words + (out >> 6) as usize;
            self.arb.in_req[k] &= !(1 << (out & 63));
        }
        let o = og as usize * self.vls;
        if self.arb.req[ov] == 0 && self.arb.req[o..o + self.vls].iter().all(|&r| r == 0) {
            self.arb.req_any[(og >> 6) as usize] &= !(1 << (og & 63));
        }
    }

    /// Adds `delta` to the heads of input `input` (local) of output `og`'s switch requesting
    /// `og` on `vl` (`req_heads`); returns the new count.
    #[cold]
    #[inline(never)]
    fn count_head(&mut self, og: u32, vl: u8, input: u32, delta: i32) -> u16 {
        let base = self.links.span[og as usize].base;
        let k = self.sw.fill_base[(base + input) as usize] as usize
            + (og - base) as usize * self.vls
            + vl as usize;
        self.arb.req_heads[k] = (self.arb.req_heads[k] as i32 + delta) as u16;
        self.arb.req_heads[k]
    }

    /// First output gport in `from..to` with a request on some VL.
    #[inline]
    pub(crate) fn next_requested(&self, from: u32, to: u32) -> Option<u32> {
        let mut w = (from >> 6) as usize;
        let mut bits = self.arb.req_any[w] & (!0u64 << (from & 63));
        loop {
            if bits != 0 {
                let g = ((w as u32) << 6) | bits.trailing_zeros();
                return (g < to).then_some(g);
            }
            w += 1;
            if (w as u32) << 6 >= to {
                return None;
            }
            bits = self.arb.req_any[w];
        }
    }

    /// First local output `>= from` that a queue head of switch input `g` requests on some VL
    /// (`in_req`, kept).
    #[inline]
    pub(crate) fn next_input_request(&self, g: u32, from: u32) -> Option<u32> {
        let words = self.arb.req_words;
        let row = &self.arb.in_req[g as usize * words..(g as usize + 1) * words];
        let mut w = (from >> 6) as usize;
        let mut bits = *row.get(w)? & (!0u64 << (from & 63));
        loop {
            if bits != 0 {
                return Some(((w as u32) << 6) | bits.trailing_zeros());
            }
            w += 1;
            bits = *row.get(w)?;
        }
    }

    /// Records an invariant violation (first one wins).
    #[cold]
    pub(crate) fn fail(&mut self, msg: String) {
        if self.engine.fault.is_none() {
            self.engine.fault = Some(msg);
        }
    }

    /// Human name of a gport, e.g. `SW22 port 3`.
    pub(crate) fn port_name(&self, g: u32) -> String {
        let n = self.links.node_of[g as usize];
        format!(
            "{} port {}",
            self.fabric.nodes[n as usize].name,
            g - self.links.port_base[n as usize]
        )
    }
}
