//! The cycle-level HPC router model (Dragonfly spec §2.1–§2.2): time advances one cycle at a
//! time; every link carries one phit per cycle; packets of `L` phits move by credit-based
//! virtual cut-through (a hop starts only when the downstream VC has room for the whole
//! packet); routers are combined input-output queued (CIOQ) with an internal speed-up, an
//! input-first separable allocator ([`crate::cycle::separable_allocator`]) and a fixed
//! port-to-port latency. Terminals inject by a Bernoulli process into sized injection queues.
//!
//! # Timing of one hop (packet granularity, phit-exact)
//! - A packet whose head reaches router input `i` at cycle `t_a` may be allocated from `t_a` on.
//! - A grant at cycle `t_g` moves it through the crossbar in `⌈L / speed-up⌉` cycles into the
//!   output buffer; the input's crossbar port is busy, and its buffer space is released (and
//!   the credits start back upstream) at `max(t_g + ⌈L/s⌉, t_a + L)` — never before the tail
//!   has arrived.
//! - The head may leave on the output link at `t_g + latency` (the router latency, port to
//!   port) when the link is free and the downstream VC has `L` credits; the link is then busy
//!   for `L` cycles and the head arrives after the link latency. Credits travel back with the
//!   same latency on their own channel.
//! - At zero load a packet therefore spends exactly `latency` cycles per router plus the link
//!   latencies, plus `L` cycles for its tail at the destination (spec §2.5).
//!
//! Events that fall in a future cycle (arrivals, credit returns, buffer releases, Bernoulli
//! generations) wait in a calendar ring indexed by cycle (`calendar`); every cycle handles
//! its events kind by kind, then runs the output links of every router whose outputs were
//! woken, then the allocator of every router whose allocator was woken.
//!
//! # Where things are
//! - `params.rs`: the parameters read from the scenario, with every default and check;
//!   `build.rs`: the network built from them, stage by stage;
//! - `run_loop.rs`: the cycle loop and its event dispatch; `calendar.rs`: the event ring;
//! - `terminal.rs`: packet generation and injection; `link.rs`: arrivals at router inputs and
//!   the link stage; `allocator.rs`: input requests, the separable allocation
//!   (`separable_allocator.rs`: its arbiters), the output-VC choice and the grant;
//! - `congestion/`: the congestion-management seam and QCN's congestion and reaction points;
//!   `cnm.rs`: QCN's notifications as packets; `flow_control.rs`: the link-level flow control;
//! - `routing/`: the routing algorithms (one file each), their paths, VC templates, group
//!   counters and channel-dependency graphs ([`routing`]); `traffic/`: the synthetic traffic
//!   and its phases;
//! - `route.rs`: the router's side of the routing seam ([`routing::candidates`]): the next hop
//!   of a head, the source decision, the route table; `occupancy.rs`: the queue signals
//!   adaptive routing reads and the Piggyback publication;
//! - `packet.rs`: the packet slab and its queues; `prefetch.rs`: cache hints of the loop;
//! - `flow_control.rs`: the link-level flow-control seam (credits, or 802.1Qbb PFC in
//!   `pfc.rs`: PAUSE frames, thresholds and headroom);
//! - `conservation.rs`: the saturation watch and the end-of-run conservation check;
//!   `results.rs`: statistics and the results folder; `memory_estimate.rs`: the memory estimate;
//!   `counter_trace.rs`: the group-counter observer (`stats.group_counters`, Fig 6-8).

mod allocator;
mod build;
mod calendar;
mod cnm;
mod congestion;
mod conservation;
mod counter_trace;
mod flow_control;
mod link;
mod mechanism;
pub mod memory_estimate;
mod occupancy;
mod packet;
mod params;
mod pfc;
mod prefetch;
mod results;
mod route;
pub mod routing;
mod run_loop;
pub mod separable_allocator;
mod terminal;
#[cfg(test)]
mod tests;
mod traffic;

pub use build::validate_cycle;
pub use run_loop::run_cycle_scenario;

use crate::cycle::routing::algorithm::CycleRouting;
use crate::cycle::traffic::synthetic::SyntheticTraffic;
use crate::traffic::injection::Bernoulli;
use packet::PacketSlab;
use rand_chacha::ChaCha8Rng;

/// What a router port connects to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum PortKind {
    /// Not present (border of a mesh, ports above a router's radix).
    Unused,
    /// A terminal (its index is the port's [`PortState::peer`]): injection input, ejection
    /// output.
    Terminal,
    /// A local (intra-group; mesh/torus) link.
    Local,
    /// A global link.
    Global,
}

/// Calendar events (all fit in 16 bytes).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Ev {
    /// A packet's head reaches router input `gp`, VC `vc`.
    Arrive { pkt: u32, gp: u32, vc: u8 },
    /// Input `gp`'s crossbar port is free again.
    XinFree { gp: u32 },
    /// Credits for one packet reach output `gp`/`vc` (the downstream buffer's occupancy
    /// count drops with them).
    Credit { gp: u32, vc: u8 },
    /// Output buffer `gp` has room again (a departing tail left): waiting inputs retry.
    SpaceFree { gp: u32 },
    /// Credits for one packet reach terminal `t`'s injection link (the injection queue's
    /// occupancy count drops with them).
    TermCredit { t: u32 },
    /// Terminal `t` generates a packet (stale when `epoch` is old).
    Gen { t: u32, epoch: u32 },
    /// Output `gp`'s crossbar port is free again.
    XoutFree { gp: u32 },
    /// A packet granted into output `gp` is ready to leave (router latency elapsed).
    OutReady { gp: u32 },
    /// Terminal `t` had no packet up to the calendar's horizon; draw its next one from here.
    GenWait { t: u32, epoch: u32 },
    /// Terminal `t`'s link is free again.
    TermTry { t: u32 },
    /// PFC: a PAUSE (`on`) or resume frame for VC `vc` takes effect at output `gp`.
    Pause { gp: u32, vc: u8, on: bool },
    /// PFC: the space of a packet granted out of input `gp`, VC `vc`, is free (the XON check).
    PfcDrained { gp: u32, vc: u8 },
}

/// Bits of [`PortState::flags`].
pub(crate) mod flag {
    /// An `XoutFree` event is pending.
    pub const XOUT_EVT: u8 = 1;
    /// An `XinFree` event is pending.
    pub const XIN_EVT: u8 = 2;
    /// A `SpaceFree` event is pending.
    pub const SPACE_EVT: u8 = 4;
    /// An input waits for room in this output buffer (the next departure schedules
    /// `SpaceFree`).
    pub const SPACE_WAIT: u8 = 8;
}

/// State of one router port (`gp`), kept together in one 64-byte record (one cache line) so
/// that a port's work touches a single line.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
pub(crate) struct PortState {
    /// What it connects to.
    pub kind: PortKind,
    /// VCs of this port.
    pub nvc: u8,
    /// VC of the packet on the link (its tail still occupies the output buffer).
    pub last_vc: u8,
    /// Round-robin pointers: the input arbiter (over VCs), the output arbiter (over inputs),
    /// the link (over VCs).
    pub in_ptr: u8,
    pub out_ptr: u8,
    pub link_ptr: u8,
    /// Pending events and waits ([`flag`]).
    pub flags: u8,
    /// PFC: output VCs holding a received PAUSE, which may not start a packet (a bit per VC;
    /// always 0 under credits).
    pub paused: u8,
    /// Far end of a router-to-router port (gp); the terminal of a terminal port; u32::MAX for
    /// an unused one.
    pub peer: u32,
    /// Packets in the input VC queues / output VC queues.
    pub in_count: u32,
    pub out_count: u32,
    /// Link latency out of this port (cycles; shorter than the calendar).
    pub latency: u32,
    /// The output link is free from this cycle.
    pub link_free: u64,
    /// The input's / output's crossbar port is free from this cycle.
    pub xin_free: u64,
    pub xout_free: u64,
    /// Cycle of the pending `OutReady` event (u64::MAX: none).
    pub out_wake_at: u64,
    /// Input VCs holding packets (bit per VC): the input arbiter looks at these only.
    pub in_vcs: u64,
}

// a port's work touches one cache line
const _: () = assert!(std::mem::size_of::<PortState>() == 64);

/// The output side of one VC, which the link stage, the output-VC choice and a grant read
/// together, in a dense 32-byte record (a port's VCs share one or two cache lines).
#[derive(Debug, Clone, Copy)]
pub(crate) struct VcOut {
    /// Output queue, with its head's departure cycle.
    pub q: packet::OutQueue,
    /// Credits (phits) available at the far end.
    pub credits: u32,
    /// Phits queued in the output buffer.
    pub used: u32,
}

/// The input side of one VC of a port: its input queue (the buffer capacities are per port
/// kind: [`CycleNet::in_cap`], [`CycleNet::credit_cap`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct VcState {
    /// Input queue (head, tail).
    pub in_q: (u32, u32),
    /// Packed next hop of the input head (computed once per head; u32::MAX: none).
    pub head_route: u32,
    /// Phits of the packets queued in (or arriving into) the input buffer: counted at the
    /// head's arrival, released when the packet is granted (the lossless check at arrival
    /// compares it with the capacity; its credits then travel back upstream, which the
    /// end-of-run conservation check counts separately).
    pub in_used: u32,
}

// four VCs' input sides share a cache line
const _: () = assert!(std::mem::size_of::<VcState>() == 16);

/// The state of one terminal that its packet generation and injection read and write
/// together, in one record.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TermState {
    /// Source backlog (head, tail): generated packets not yet on the link.
    pub backlog: (u32, u32),
    /// Packets in the backlog.
    pub backlog_len: u32,
    /// Credits (phits) of the router's injection queue.
    pub credits: u32,
    /// The terminal's link is free from this cycle.
    pub link_free: u64,
    /// Cycle of the pending `TermTry` event (u64::MAX: none).
    pub try_at: u64,
    /// Generation epoch: `Gen` events of an older epoch are stale (traffic change).
    pub epoch: u32,
}

/// Wake-up state of one router, in one record (every visit and wake-up reads several fields).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RouterState {
    /// Inputs holding packets (bit per port).
    pub in_mask: u64,
    /// Outputs whose link stage runs this cycle (bit per port).
    pub out_mask: u64,
}

/// The constants of a cycle-level run: sizes, latencies, the run's length and the saturation
/// watch's thresholds ([`CycleNet::k`]).
pub(crate) struct Consts {
    /// Packet size in phits; crossbar transfer of a packet, router latency (cycles); allocator
    /// iterations.
    pub pkt_phits: u32,
    pub xbar_cycles: u64,
    pub router_latency: u64,
    pub iterations: u32,
    pub radix: u32,
    /// `⌈2³² / radix⌉`: router port numbers split by a multiply ([`CycleNet::split_gp`]).
    pub radix_magic: u64,
    pub vcs: u32,
    pub routers: u32,
    pub terminals: u32,
    pub inj_latency: u64,
    pub ej_latency: u64,
    pub warmup: u64,
    pub end: u64,
    pub sat_queue: f64,
    pub sat_min: u64,
    /// A congestion management runs (QCN, or a test's): its hooks are called; off, the hot
    /// path skips them on this one flag.
    pub cm_on: bool,
    /// `router.output_admission = "credits"`: a packet enters a router-to-router output VC
    /// only if the downstream credits, net of the phits queued in that VC, cover it.
    pub admit_on_credits: bool,
    /// `router.recompute_retry = "next_iteration"` with at least two allocator iterations: a
    /// blocked injection head is routed again between iterations.
    pub redraw_in_cycle: bool,
}

/// The terminals of a cycle-level network: where each attaches, its source state and random
/// stream, and the traffic that drives them ([`CycleNet::terms`]).
pub(crate) struct Terminals {
    /// Per terminal: its router port and its router.
    pub gp: Vec<u32>,
    pub router: Vec<u32>,
    /// Per terminal: its source state, in one record.
    pub state: Vec<TermState>,
    /// Per terminal: its random stream (generation, destinations).
    pub rng: Vec<ChaCha8Rng>,
    /// The synthetic traffic and its phases.
    pub traffic: SyntheticTraffic,
    /// The terminals' packet generation: one Bernoulli trial per cycle with probability
    /// load / packet size (spec §4.1), set for the load in force.
    pub gen: Bernoulli,
}

/// The engine of a cycle-level run: the packets, the event calendar, the first invariant
/// violation and the loop's modes ([`CycleNet::eng`]).
pub(crate) struct Engine {
    /// The packet slab and its queues.
    pub pkts: PacketSlab,
    /// The event calendar.
    pub cal: calendar::Calendar,
    /// The first invariant violation (fails the run).
    pub fault: Option<String>,
    /// The cycle loop prefetches the records of upcoming events: the hot state is larger than
    /// [`prefetch::PREFETCH_MIN_BYTES`] (decided by the builder).
    pub prefetch: bool,
    /// Tests: wake every router every cycle (reference for the wake-up events).
    pub always_wake: bool,
}

/// The network of the cycle-level model in flat arrays indexed by router port `gp =
/// router · radix + port` and `(gp, vc)` = `gp · vcs + vc`.
pub(crate) struct CycleNet {
    /// The constants of the run ([`Consts`]).
    pub k: Consts,
    // --- ports and their VCs
    /// Per router port `gp`.
    pub port: Vec<PortState>,
    /// Per `(gp, vc)`: the output side ...
    pub vout: Vec<VcOut>,
    /// ... and the rest.
    pub vc: Vec<VcState>,
    pub out_cap: u32,
    /// Input buffer capacity per VC by port kind (`PortKind as usize`).
    pub in_cap_of: [u32; 4],
    /// Credits of a full output VC by port kind: the far end's input buffer (a router link
    /// joins two ports of the same kind, which the builder checks); none towards a terminal.
    pub credit_cap_of: [u32; 4],
    // --- routers
    /// Per router: its wake-up state.
    pub rs: Vec<RouterState>,
    /// Routers whose link stage runs this cycle (some output in their `out_mask`), a bit per
    /// router ...
    pub link_work: Vec<u64>,
    /// ... and routers whose allocator runs this cycle. The cycle runs every link stage, then
    /// every allocator, each in increasing router order (memory order): the order changes no
    /// result, since a router's stages read only its own state and routers interact only
    /// through events of later cycles.
    pub alloc_work: Vec<u64>,
    /// Allocator scratch (a router has at most 64 ports): the request of each input (input
    /// VC, output VC) and the inputs requesting each output (all zero between runs).
    pub scratch_req: [(u8, u8); 64],
    pub scratch_want: [u64; 64],
    /// ... of which those requesting with a QCN notification (served first).
    pub scratch_prio: [u64; 64],
    pub routing: CycleRouting,
    /// Packed next hop per (router, destination terminal) when the routing is stateless
    /// ([`CycleNet::tabulate_routes`]); empty otherwise.
    pub route_table: Vec<u32>,
    /// Recomputation (Dragonfly spec §3.4): the injection ports of a router (a bit per port,
    /// the same on every router) when the routing re-routes blocked injection heads; 0
    /// otherwise.
    pub recompute_mask: u64,
    /// The routing mechanisms' state, behind their hooks ([`mechanism::Mechanisms`]).
    pub mech: mechanism::Mechanisms,
    /// The congestion management ([`congestion::CongestionManagement`]; `Off`: no cost).
    pub cm: congestion::CongestionManagement,
    /// The link-level flow control ([`flow_control::FlowControl`]: credits or PFC).
    pub fc: flow_control::FlowControl,
    /// QCN's congestion notifications as packets ([`cnm::Notifications`]; none without QCN).
    pub cnm: cnm::Notifications,
    pub global_ports: Vec<u32>,
    pub rng_router: Vec<ChaCha8Rng>,
    pub router_names: Vec<String>,
    // --- terminals
    /// The terminals: their ports, sources and traffic ([`Terminals`]).
    pub terms: Terminals,
    // --- engine
    /// The engine: packets, calendar, first fault, run modes ([`Engine`]).
    pub eng: Engine,
    /// The current cycle.
    pub now: u64,
    // --- statistics
    pub stats: results::CycleStats,
}

/// Sets router `r`'s bit in the router bitmap `map` ([`CycleNet::link_work`],
/// [`CycleNet::alloc_work`]).
#[inline(always)]
pub(crate) fn set_bit(map: &mut [u64], r: u32) {
    map[(r >> 6) as usize] |= 1 << (r & 63);
}

impl CycleNet {
    /// Schedules `ev` at cycle `t` (> now).
    #[inline]
    pub(crate) fn at(&mut self, t: u64, ev: Ev) {
        debug_assert!(t > self.now && t - self.now <= self.eng.cal.mask);
        self.eng.cal.push(t, ev);
    }

    /// Router and port number of router port `gp` (`gp / radix`, `gp % radix`) by a multiply
    /// and a shift instead of a division: `⌊gp · ⌈2³²/radix⌉ / 2³²⌋ = ⌊gp / radix⌋` whenever
    /// `gp · radix < 2³²`, which the builder checks for every port.
    #[inline]
    pub(crate) fn split_gp(&self, gp: u32) -> (u32, u32) {
        let r = ((gp as u64 * self.k.radix_magic) >> 32) as u32;
        (r, gp - r * self.k.radix)
    }

    /// Records the first invariant violation.
    #[cold]
    pub(crate) fn fail(&mut self, msg: String) {
        if self.eng.fault.is_none() {
            self.eng.fault = Some(msg);
        }
    }

    /// Input buffer capacity of each VC of port `gp`.
    #[inline]
    pub(crate) fn in_cap(&self, gp: u32) -> u32 {
        self.in_cap_of[self.port[gp as usize].kind as usize]
    }

    /// Credits of a full output VC of port `gp` (its far end's input buffer).
    #[inline]
    pub(crate) fn credit_cap(&self, gp: u32) -> u32 {
        self.credit_cap_of[self.port[gp as usize].kind as usize]
    }

    /// Human name of router port `gp`.
    pub(crate) fn port_name(&self, gp: u32) -> String {
        let r = gp / self.k.radix;
        let p = gp % self.k.radix;
        let k = match self.port[gp as usize].kind {
            PortKind::Terminal => "terminal",
            PortKind::Local => "local",
            PortKind::Global => "global",
            PortKind::Unused => "unused",
        };
        format!("{} port {p} ({k})", self.router_names[r as usize])
    }
}
