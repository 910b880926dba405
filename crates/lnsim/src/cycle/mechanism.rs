//! The routing-mechanism seam of the cycle-level wing: the state a routing's decisions read
//! that the model keeps between packets ([`StateNeeds`], asked of the algorithm once), behind
//! hooks, with the shape of the credit wing's congestion-management seam (`credit/cc/mod.rs`):
//! the network calls the methods of [`Mechanisms`] — and nothing else of a mechanism — at these
//! points, each a `match` whose neutral arm is empty:
//!
//! | hook | called from | what the states do |
//! |---|---|---|
//! | [`build`] | `build.rs`, the network state | from the algorithm's [`StateNeeds`] and `stats.group_counters` |
//! | [`injection_stored`] | `link.rs`, a head reaches a terminal input (on inject) | group counters: stored (spec §3.10.1) |
//! | [`injection_granted`] | `allocator.rs`, a grant out of a terminal input (on grant) | group counters: injected |
//! | [`before_decision`] | `route.rs`, the source decision (on route) | ACOR: the level (§3.7); counters: the window expired |
//! | [`blocked`] | `allocator.rs`, a blocked injection head routed again (§3.4) | ACOR: a blocked re-routing |
//! | [`publishes_bits`], [`publish_bits`] | `run_loop.rs` / `occupancy.rs`, every cycle after its events | Piggyback: the congestion bits (§3.6) |
//! | [`cycle_ended`] | `run_loop.rs`, the end of every cycle (end of a window) | the counter observer's samples |
//! | [`run_ended`] | `run_loop.rs` | ACOR-Switch: the last interval |
//! | [`outputs`] | `results.rs` | summary fields and CSVs (`acor_levels.csv`, `group_counters.csv`) |
//! | [`memory`] | `memory_estimate.rs` | its share of the memory estimate |
//!
//! Decisions read the state through [`Mechanisms::pb`] and [`Mechanisms::counters`] (the
//! occupancy view of `occupancy.rs`).
//!
//! ## To add a routing with state
//! Write its algorithm file in `routing/` (registered in `routing/mod.rs`) returning its needs
//! from `CycleAlgorithm::state` (a variant of [`StateNeeds`] in `routing/algorithm.rs` if none
//! fits), and here a variant of [`RoutingState`] with an arm in [`Mechanisms::build`] and in
//! each hook it uses: two files besides its own.
//!
//! [`build`]: Mechanisms::build
//! [`injection_stored`]: Mechanisms::injection_stored
//! [`injection_granted`]: Mechanisms::injection_granted
//! [`before_decision`]: Mechanisms::before_decision
//! [`blocked`]: Mechanisms::blocked
//! [`publishes_bits`]: Mechanisms::publishes_bits
//! [`publish_bits`]: Mechanisms::publish_bits
//! [`cycle_ended`]: Mechanisms::cycle_ended
//! [`run_ended`]: Mechanisms::run_ended
//! [`outputs`]: Mechanisms::outputs
//! [`memory`]: Mechanisms::memory

use super::counter_trace::CounterTrace;
use super::params::CycleParams;
use super::results::r6;
use crate::config::LoadedScenario;
use crate::cycle::routing::acor_levels::{AcorParams, AcorState};
use crate::cycle::routing::algorithm::{Paths, StateNeeds};
use crate::cycle::routing::candidates::RouteState;
use crate::cycle::routing::group_counters::{CounterParams, GroupCounters};
use crate::cycle::routing::piggyback::PiggybackState;
use crate::cycle::routing::qcn_probabilities::{Cause, QcnSwitchState};
use crate::engine::memory_budget::{m, MemoryEstimate, Phase};
use crate::topology::dragonfly::DragonflyShape;
use serde_json::{json, Value};
use std::fmt::Write as _;

/// The state the routing's decisions read, one variant per kind of state.
#[derive(Debug, Clone)]
pub(crate) enum RoutingState {
    /// None (MIN, VLB, UGAL, DOR, …).
    None,
    /// Piggyback: the congestion bits each router publishes for its group (spec §3.6).
    Piggyback(PiggybackState),
    /// ACOR-Switch: the routers' levels (spec §3.7), with PB-ACOR's congestion bits.
    AcorSwitch(AcorState, Option<PiggybackState>),
    /// ACOR-Packet: the level parameters (the levels are in the packets' headers), with
    /// PB-ACOR's congestion bits.
    AcorPacket(AcorParams, Option<PiggybackState>),
    /// TPR, LIAN: the routers' per-group traffic counters (spec §3.9, §3.10.1), counted at
    /// the routers' injection inputs.
    GroupCounters(GroupCounters),
    /// QCN-Switch: the minimal probability of every transit port (spec §3.12), moved by QCN
    /// notifications and the packet counters.
    QcnSwitch(Box<QcnSwitchState>),
}

/// The routing mechanisms' state of a cycle-level network: the routing's own, and the
/// group-counter observer (`stats.group_counters`, spec §3.10, Fig 6-8: LIAN's counters under
/// any routing, in an instance no decision reads).
#[derive(Debug, Clone)]
pub(crate) struct Mechanisms {
    /// The routing's state.
    pub state: RoutingState,
    /// The group-counter observer.
    pub observer: Option<CounterTrace>,
}

/// Most injections a router's window holds: its injection inputs grant at most one packet per
/// crossbar transfer each, so p · (HW / transfer + 1).
fn window_max(s: &DragonflyShape, c: &CounterParams, xbar_cycles: u64) -> u32 {
    let per_port = c.window.div_ceil(xbar_cycles.max(1)) + 1;
    (s.p as u64 * per_port).min(u32::MAX as u64 / 2) as u32
}

impl Mechanisms {
    /// The state of the routing that needs `needs` on `paths` for `routers` routers, and the
    /// observer when the scenario asks for it (`p.group_counters`, on a Dragonfly).
    pub fn build(
        needs: StateNeeds,
        paths: &Paths,
        p: &CycleParams,
        routers: u32,
        xbar_cycles: u64,
    ) -> Self {
        let bits = || PiggybackState::new(routers as usize, p.router.local_latency);
        let state = match (needs, paths) {
            (StateNeeds::None, _) => RoutingState::None,
            (StateNeeds::CongestionBits, _) => RoutingState::Piggyback(bits()),
            (
                StateNeeds::Levels {
                    params,
                    congestion_bits,
                },
                _,
            ) => {
                let pb = congestion_bits.then(bits);
                if params.per_packet {
                    RoutingState::AcorPacket(params, pb)
                } else {
                    RoutingState::AcorSwitch(AcorState::new(routers, params), pb)
                }
            }
            (StateNeeds::GroupCounters(c), Paths::Dragonfly(d)) => {
                let s = &d.shape;
                RoutingState::GroupCounters(GroupCounters::new(
                    routers,
                    s.a,
                    s.groups,
                    window_max(s, &c, xbar_cycles),
                    c,
                ))
            }
            (StateNeeds::GroupCounters(_), _) => RoutingState::None,
            (StateNeeds::QcnSwitch(q), Paths::Dragonfly(d)) => {
                RoutingState::QcnSwitch(Box::new(QcnSwitchState::new(&d.shape, q)))
            }
            (StateNeeds::QcnSwitch(_), _) => RoutingState::None,
        };
        let observer = match (p.group_counters, paths) {
            (Some(c), Paths::Dragonfly(d)) => Some(CounterTrace::new(
                d.shape,
                c,
                window_max(&d.shape, &c, xbar_cycles),
                p.warmup,
                p.bin_cycles,
            )),
            _ => None,
        };
        Mechanisms { state, observer }
    }

    /// On inject: a packet's head reached router `r`'s terminal input, towards router
    /// `dst_router` (stored in the injection queue, spec §3.10.1).
    #[inline(always)]
    pub fn injection_stored(&mut self, r: u32, dst_router: u32) {
        if let RoutingState::GroupCounters(c) = &mut self.state {
            c.stored(r, dst_router);
        }
        if let Some(t) = self.observer.as_mut() {
            t.counters.stored(r, dst_router);
        }
    }

    /// On grant: router `r` granted a packet towards router `dst_router` out of a terminal
    /// input at cycle `now` (injected, no longer stored).
    #[inline(always)]
    pub fn injection_granted(&mut self, r: u32, dst_router: u32, now: u64) {
        if let RoutingState::GroupCounters(c) = &mut self.state {
            c.injected(r, dst_router, now);
        }
        if let Some(t) = self.observer.as_mut() {
            t.counters.injected(r, dst_router, now);
        }
    }

    /// On route: before the source decision of a packet with header `st` at its injection
    /// router `r` at cycle `now`.
    #[inline(always)]
    pub fn before_decision(&mut self, r: u32, now: u64, st: &mut RouteState) {
        match &mut self.state {
            // ACOR (spec §3.7): the router's level, or the packet's own (1 at first)
            RoutingState::AcorSwitch(a, _) => st.level = a.level(r, now),
            RoutingState::AcorPacket(..) => st.level = st.level.max(1),
            // TPR, LIAN: the router's window as of this cycle (spec §3.9, §3.10.1)
            RoutingState::GroupCounters(c) => c.expire(r, now),
            RoutingState::None | RoutingState::Piggyback(_) | RoutingState::QcnSwitch(_) => {}
        }
    }

    /// On grant: router `r` switched a packet (of any kind) to its output `port` at cycle
    /// `now` (QCN-Switch's packet counter PC_l, spec §3.12.3).
    #[inline(always)]
    pub fn packet_switched(&mut self, r: u32, port: u32, now: u64) {
        if let RoutingState::QcnSwitch(q) = &mut self.state {
            q.packet_switched(r, port, now);
        }
    }

    /// A QCN notification with feedback `fb` reached its destination router `r` through its
    /// input `port` (QCN-Switch: that port's probability, spec §3.12.3–§3.12.4).
    #[inline]
    pub fn notification_at_router(&mut self, r: u32, port: u32, fb: u8, now: u64) {
        if let RoutingState::QcnSwitch(q) = &mut self.state {
            let fc = q.params.feedback_comparison;
            q.notify(r, port, fb, now, Cause::Notification, fc);
        }
    }

    /// A notification with feedback `fb` applied at the router `r` that generated it, to its
    /// own minimal `port` towards the victim's destination: output sampling's local victim
    /// (by the feedback comparison when configured) or source processing (`source`: the base
    /// decrease, as FOGSim; spec §3.12.5).
    #[inline]
    pub fn notification_local(&mut self, r: u32, port: u32, fb: u8, now: u64, source: bool) {
        if let RoutingState::QcnSwitch(q) = &mut self.state {
            let fc = q.params.feedback_comparison && !source;
            q.notify(r, port, fb, now, Cause::Local, fc);
        }
    }

    /// Does a router that sends a notification also apply it to its own minimal port
    /// (QCN-Switch's source processing, spec §3.12.5)?
    #[inline]
    pub fn source_processing(&self) -> bool {
        matches!(&self.state, RoutingState::QcnSwitch(q) if q.params.source_processing)
    }

    /// QCN-Switch's probabilities, when the routing keeps them.
    #[inline(always)]
    pub fn qcn_switch(&self) -> Option<&QcnSwitchState> {
        match &self.state {
            RoutingState::QcnSwitch(q) => Some(q),
            _ => None,
        }
    }

    /// A Valiant-routed injection head with header `st` at router `r` was blocked and is
    /// routed again (recomputation, spec §3.4): ACOR counts the blocked re-routing (§3.7: the
    /// router's counter, or the packet's level).
    #[inline(always)]
    pub fn blocked(&mut self, r: u32, now: u64, st: &mut RouteState) {
        match &mut self.state {
            RoutingState::AcorPacket(a, _) => st.level = a.packet_level_after_block(st.level),
            RoutingState::AcorSwitch(a, _) => a.blocked(r, now),
            _ => {}
        }
    }

    /// The congestion bits, when the routers publish them.
    #[inline(always)]
    fn bits_mut(&mut self) -> Option<&mut PiggybackState> {
        match &mut self.state {
            RoutingState::Piggyback(pb) => Some(pb),
            RoutingState::AcorSwitch(_, pb) | RoutingState::AcorPacket(_, pb) => pb.as_mut(),
            _ => None,
        }
    }

    /// Do the routers publish congestion bits every cycle (`occupancy.rs` computes them)?
    #[inline(always)]
    pub fn publishes_bits(&self) -> bool {
        self.pb().is_some()
    }

    /// Router `r` publishes congestion bits `bits` at cycle `now`.
    #[inline]
    pub fn publish_bits(&mut self, now: u64, r: u32, bits: u64) {
        if let Some(pb) = self.bits_mut() {
            pb.publish(now, r, bits);
        }
    }

    /// The published congestion bits the decisions read (Piggyback, PB-ACOR).
    #[inline(always)]
    pub fn pb(&self) -> Option<&PiggybackState> {
        match &self.state {
            RoutingState::Piggyback(pb) => Some(pb),
            RoutingState::AcorSwitch(_, pb) | RoutingState::AcorPacket(_, pb) => pb.as_ref(),
            _ => None,
        }
    }

    /// The per-group traffic counters the decisions read (TPR, LIAN).
    #[inline(always)]
    pub fn counters(&self) -> Option<&GroupCounters> {
        match &self.state {
            RoutingState::GroupCounters(c) => Some(c),
            _ => None,
        }
    }

    /// The end of cycle `now` (the observer samples at the end of each window).
    #[inline(always)]
    pub fn cycle_ended(&mut self, now: u64, router_names: &[String]) {
        if let Some(t) = self.observer.as_mut() {
            if now == t.next {
                t.sample(now, router_names);
            }
        }
    }

    /// The run stopped at cycle `stop` (ACOR-Switch: the interval ends up to the last
    /// simulated cycle).
    pub fn run_ended(&mut self, stop: u64) {
        if let RoutingState::AcorSwitch(a, _) = &mut self.state {
            a.finish(stop);
        }
    }

    /// The mechanisms' outputs of a run measured from `warmup` to `stop`: fields of
    /// `summary` (null when the run stopped before the measurement, `reached` false) and
    /// files (name, text) for the results folder.
    pub fn outputs(
        &self,
        summary: &mut Value,
        files: &mut Vec<(&'static str, String)>,
        router_names: &[String],
        (warmup, stop, reached): (u64, u64, bool),
    ) {
        let w = |v: Value| if reached { v } else { Value::Null };
        if let RoutingState::AcorSwitch(a, _) = &self.state {
            // ACOR-Switch: the share of router-cycles at each level in the window, and the
            // level trace of every router (Dragonfly spec §3.7, §4.3)
            let share = a.level_share(warmup, stop);
            summary["acor_level_share"] =
                w(json!(share.iter().map(|&x| r6(x)).collect::<Vec<_>>()));
            let mut t = String::from("cycle,router,name,level\n");
            for (c, r, lv) in a.trace() {
                let _ = writeln!(t, "{c},{r},{},{lv}", router_names[r as usize]);
            }
            files.push(("acor_levels.csv", t));
        }
        if let RoutingState::QcnSwitch(q) = &self.state {
            // QCN-Switch (Dragonfly spec §3.12, Fig 4-21): the updates, the final probabilities'
            // mean over transit ports, and group 0's probability changes
            let (mut sum, mut n) = (0.0, 0u64);
            for (i, &p) in q.p.iter().enumerate() {
                if q.is_transit_index(i) {
                    sum += p as f64;
                    n += 1;
                }
            }
            summary["qcn_switch"] = json!({
                "notifications_applied": q.notifications,
                "local_applied": q.local,
                "packet_counter_increases": q.increases,
                "mean_min_probability_end": r6(sum / n.max(1) as f64),
            });
            let mut t = String::from("cycle,time_us,router,name,port,probability,cause,fb\n");
            for c in &q.trace {
                let _ = writeln!(
                    t,
                    "{},{},{},{},{},{},{},{}",
                    c.cycle,
                    r6(c.cycle as f64 / 1000.0),
                    c.router,
                    router_names[c.router as usize],
                    c.port,
                    r6(c.p as f64),
                    c.cause.name(),
                    c.fb
                );
            }
            files.push(("qcn_probabilities.csv", t));
        }
        if let Some(t) = &self.observer {
            // the group-counter observer (stats.group_counters, Dragonfly spec §3.10, Fig 6-8)
            summary["group_counters"] = w(t.summary());
            files.push(("group_counters.csv", t.text(router_names, stop)));
        }
    }

    /// The mechanisms' share of the memory estimate (spec §3.6–§3.10): for a routing that needs
    /// `needs` (when the parameters resolve) on `routers` routers over `cycles` cycles.
    pub fn memory(
        est: &mut MemoryEstimate,
        l: &LoadedScenario,
        needs: Option<StateNeeds>,
        routers: u64,
        cycles: u64,
        pkt_phits: u64,
    ) {
        let s = &l.scenario;
        let rc = &s.router;
        let bits = |est: &mut MemoryEstimate| {
            est.add(
                "piggyback state",
                m(m(routers, rc.local_latency.saturating_add(1)), 8),
                Phase::Kept,
            )
        };
        match needs {
            Some(StateNeeds::CongestionBits) => bits(est),
            Some(StateNeeds::Levels {
                congestion_bits: true,
                ..
            }) => bits(est),
            _ => {}
        }
        // ACOR-Switch (Dragonfly spec §3.7): each router's level, count and interval end, and
        // the level changes (at most a fall per interval and as many rises), copied to sort
        // them for the trace; the trace file at about 24 bytes a line
        if let Some(StateNeeds::Levels { params: a, .. }) =
            needs.filter(|n| matches!(n, StateNeeds::Levels { params, .. } if !params.per_packet))
        {
            let changes = m(routers, 2 * (cycles / a.hi.max(1)) + 2);
            est.add(
                "ACOR levels and trace",
                m(routers, 13) + m(changes, 2 * 16 + 24),
                Phase::Run,
            );
        }
        // TPR, LIAN (Dragonfly spec §3.9, §3.10.1): inj and stor per (router, group), each
        // router's window ring (a power of two of p · (HW / crossbar transfer + 1) entries of 8
        // bytes) and its head and length
        let counters_bytes = |c: &CounterParams, d: &DragonflyShape| {
            let xbar = pkt_phits.div_ceil(rc.speedup.max(1) as u64).max(1);
            let ring = (d.p as u64 * (c.window.div_ceil(xbar) + 1)).next_power_of_two();
            m(m(routers, d.groups as u64), 8) + m(routers, m(ring, 8) + 8)
        };
        let shape = crate::topology::dragonfly::shape_of_topology(&s.topology);
        if let (Some(StateNeeds::GroupCounters(c)), Some(d)) = (needs, shape.as_ref()) {
            est.add("group counters", counters_bytes(&c, d), Phase::Kept);
        }
        // QCN-Switch (spec §3.12): P, PC_l and LastFb per router port; the trace of group 0's
        // changes, bounded by one change per packet switched or notification at those ports
        // (estimated at one per PC_l packets per port and cycle of 1,000 cycles), 32 bytes each
        // and about 60 bytes a line of text
        if let (Some(StateNeeds::QcnSwitch(q)), Some(d)) = (needs, shape.as_ref()) {
            let ports = m(routers, d.radix() as u64);
            let traced = if q.trace_group0 {
                m(m(d.a as u64, d.radix() as u64), cycles / 1000 + 1)
            } else {
                0
            };
            est.add(
                "QCN-Switch probabilities",
                m(ports, QcnSwitchState::BYTES_PER_PORT) + m(routers, 4) + m(traced, 32 + 60),
                Phase::Kept,
            );
        }
        // the counter observer (stats.group_counters, Fig 6-8): its own counters, two sums of
        // 2h + 2 values per router, and group_counters.csv at about 12 bytes a value per router
        // and bin (built as text, copied once when written)
        if let (true, Ok(c), Some(d)) = (
            s.stats.group_counters,
            CounterTrace::params(&s.routing),
            shape.as_ref(),
        ) {
            let cols = 2 * d.h as u64 + 2;
            let bins = cycles.div_ceil(s.stats.bin_cycles.max(1)).max(1);
            est.add(
                "group counter trace",
                counters_bytes(&c, d)
                    + m(routers, m(cols, 16))
                    + m(m(bins, routers), m(d.h as u64 + 7, 24)),
                Phase::Run,
            );
        }
    }
}
