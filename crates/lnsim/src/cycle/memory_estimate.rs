//! The cycle-level model's part of the memory estimate ([`crate::engine::memory_budget`]): the
//! arrays `CycleNet::build` allocates per router port, per (port, VC), per router and per
//! terminal, the routing tables, the channel-dependency graph of the start-up check,
//! the event calendar (one slot per cycle of the longest delay), the packets the buffers and
//! the source backlogs can hold, the statistics bins, ACOR-Switch's level trace and the PFC
//! state.

use super::calendar::Slot;
use super::congestion::qcn_cp::CongestionPoints;
use super::congestion::qcn_rp::ReactionPoints;
use super::mechanism::Mechanisms;
use super::packet::{Link, Pkt};
use super::params::{calendar_slots, CycleParams, MAX_VCS};
use super::results::Bin;
use super::{PortState, RouterState, TermState, VcOut, VcState};
use crate::config::{LoadedScenario, TopologyKind};
use crate::engine::memory_budget::{grown, m, sz, MemoryEstimate, Phase};
use crate::topology::FabricSize;
use rand_chacha::ChaCha8Rng;

/// Adds the cycle-level model's parts for a network of size `f`. The estimate comes after the
/// checks of single values ([`super::params::check_scalars`], in [`estimate`]) but before the
/// checks that need the network (a network too large to build is refused as such): it reads
/// the scenario with the parameters' defaults, and the routing's VCs from the parameters when
/// they resolve (else from the VC keys, one VC per port by default).
pub(crate) fn memory_parts(est: &mut MemoryEstimate, l: &LoadedScenario, f: &FabricSize) {
    let z = network_state(est, l, f);
    packets_and_events(est, l, f, &z);
    // the routing mechanisms' state (mechanism.rs)
    Mechanisms::memory(
        est,
        l,
        z.routing.as_ref().map(|r| r.algorithm.state()),
        f.switches,
        z.cycles,
        z.pkt_phits,
    );
    // QCN (congestion/, cnm.rs): the congestion points per router port and stream per router,
    // the reaction points per node, the notifications' path tables
    let s = &l.scenario;
    if matches!(s.routing, crate::config::RoutingConfig::QcnSwitch(_)) || s.qcn.reaction_point {
        let np = m(f.switches, f.max_ports);
        let rp = if s.qcn.reaction_point {
            m(f.hcas, ReactionPoints::BYTES_PER_NODE)
        } else {
            0
        };
        est.add(
            "QCN points",
            m(np, CongestionPoints::BYTES_PER_PORT)
                + m(f.switches, sz::<ChaCha8Rng>())
                + rp
                + m(m(f.switches, f.switches), 2),
            Phase::Kept,
        );
    }
    statistics_and_files(est, l, f, z.cycles);
}

/// What the stages of [`memory_parts`] share: the routing as resolved (when it resolves),
/// the VCs per port, the packet size and the simulated cycles.
struct Sizes {
    routing: Option<super::params::RoutingParams>,
    vcs: u64,
    global_vcs: u32,
    pkt_phits: u64,
    cycles: u64,
}

/// Stage 1 of [`memory_parts`]: the records of ports, VCs, routers and terminals, the route
/// tables and the channel-dependency graph of the start-up check.
fn network_state(est: &mut MemoryEstimate, l: &LoadedScenario, f: &FabricSize) -> Sizes {
    let s = &l.scenario;
    let rc = &s.router;
    let routers = f.switches;
    let terminals = f.hcas;
    let radix = f.max_ports;
    let np = m(routers, radix);
    let routing = CycleParams::resolve(l).ok().map(|p| p.routing);
    // VCs per port, as the builder chooses them
    let (vcs, global_vcs) = match &routing {
        Some(r) => (r.vcs, r.global_vcs),
        None => {
            let g = rc.global_vcs.unwrap_or(1);
            (rc.local_vcs.unwrap_or(1).max(g).clamp(1, MAX_VCS), g)
        }
    };
    let vcs = vcs as u64;
    let channels = m(np, vcs);
    // the builder's temporary per-port arrays (kind, peer, terminal, VCs, latency) and per
    // (port, VC) capacities come on top of the records
    est.add(
        "router ports and VCs",
        m(np, sz::<PortState>() + 18) + m(channels, sz::<VcOut>() + sz::<VcState>() + 8),
        Phase::Kept,
    );
    if rc.flow_control == crate::config::RouterFlowControl::Pfc {
        // PFC (pfc.rs): the XOFF bits per port; per (port, VC) the frames sent both ways, the
        // pause start and the paused cycles; pfc.csv, a line per (port, VC)
        est.add("PFC state", np + m(channels, 4 * 8), Phase::Kept);
        est.add("pfc.csv", m(channels, 64), Phase::Run);
    }
    est.add(
        "routers",
        m(
            routers,
            sz::<RouterState>() + sz::<ChaCha8Rng>() + 48 + 16 * f.coords.max(1),
        ),
        Phase::Kept,
    );
    est.add(
        "terminals",
        m(terminals, 8 + sz::<TermState>() + sz::<ChaCha8Rng>() + 24),
        Phase::Kept,
    );
    // mesh DOR tables: the next port per (router, router) and the packed next hop per
    // (router, terminal), each built only below its size limit
    let mesh_dor = s.topology.kind() == TopologyKind::Mesh
        && routing.as_ref().is_some_and(|r| r.algorithm.stateless());
    if mesh_dor && routers <= 4096 {
        let table = m(m(routers, routers), 2);
        let routes = if m(routers, terminals) <= 1 << 22 {
            m(m(routers, terminals), 4)
        } else {
            0
        };
        est.add("route tables", table + routes, Phase::Kept);
    }
    // channel-dependency graph: an edge list per channel (a channel leads to at most one VC
    // of each other router-facing port), 2× for growth, and the search's marks
    let fabric_ports = radix
        .saturating_sub(match &s.topology {
            crate::config::TopologyConfig::Dragonfly(t) => t.p as u64,
            _ => 0,
        })
        .max(1);
    est.add(
        "channel-dependency graph",
        m(channels, sz::<Vec<u32>>() + 5) + m(m(channels, fabric_ports), 4 * 2),
        Phase::Setup,
    );

    Sizes {
        routing,
        vcs,
        global_vcs,
        pkt_phits: s.traffic.packet_phits.max(1) as u64,
        cycles: s
            .sim
            .warmup_cycles
            .saturating_add(s.sim.measure_cycles.unwrap_or(0)),
    }
}

/// Stage 2 of [`memory_parts`]: the packets the buffers and the source backlogs can hold,
/// the event calendar and its events.
fn packets_and_events(est: &mut MemoryEstimate, l: &LoadedScenario, f: &FabricSize, z: &Sizes) {
    let s = &l.scenario;
    let rc = &s.router;
    let (routers, terminals) = (f.switches, f.hcas);
    let np = m(routers, f.max_ports);
    let dragonfly = s.topology.kind() == TopologyKind::Dragonfly;
    let (vcs, global_vcs, pkt_phits, cycles) = (z.vcs, z.global_vcs, z.pkt_phits, z.cycles);
    // the calendar: a slot per cycle of the longest delay, rounded up to a power of two
    let slots = calendar_slots(rc, pkt_phits);
    // packets: what the buffers hold, plus the source backlogs up to the saturation limit
    // (or what the sources can generate, if less)
    // router-to-router ports by class, with their VCs and input buffers
    let used_router_ports = f.ports.saturating_sub(2 * terminals);
    let (global_ports, global_vcs) =
        match crate::topology::dragonfly::shape_of_topology(&s.topology) {
            Some(d) if dragonfly => (m(routers, d.h as u64), (global_vcs as u64).min(vcs)),
            _ => (0, 0),
        };
    let local_ports = used_router_ports.saturating_sub(global_ports);
    let buffered = m(terminals, rc.injection_queue_phits as u64)
        + m(m(local_ports, vcs), rc.local_buffer_phits as u64)
        + m(m(global_ports, global_vcs), rc.global_buffer_phits as u64)
        + m(
            m(local_ports + terminals, vcs),
            rc.output_buffer_phits as u64,
        )
        + m(m(global_ports, global_vcs), rc.output_buffer_phits as u64);
    let load = s.traffic.load.unwrap_or(1.0).clamp(0.0, 1.0);
    let generated = m(terminals, (cycles as f64 * load) as u64 / pkt_phits + 1);
    let sat = s.sim.saturation_queue_packets.max(1.0);
    // (never more than the sources generate in the whole run)
    let network = (buffered / pkt_phits).min(generated);
    let backlog = (m(terminals, (2.0 * sat).min(1e12) as u64)).min(generated);
    let packets = (network + backlog).min(generated) + terminals;
    est.add(
        "packets",
        grown(m(packets, sz::<Pkt>() + sz::<Link>() + 4)),
        Phase::Run,
    );
    // events: a few per packet in the network, terminal and port, in per-cycle lists
    let events = m(network, 2) + m(terminals, 3) + m(np, 3);
    est.add("event calendar", m(slots, sz::<Slot>()), Phase::Kept);
    est.add("events", grown(m(events, 12)), Phase::Run);
}

/// Stage 4 of [`memory_parts`] (after the mechanisms'): statistics bins, traffic tables and
/// the results files built as text.
fn statistics_and_files(est: &mut MemoryEstimate, l: &LoadedScenario, f: &FabricSize, cycles: u64) {
    let s = &l.scenario;
    let (routers, terminals) = (f.switches, f.hcas);
    // statistics: a bin per stats.bin_cycles, per-router counters, latency counts
    let bins = cycles.div_ceil(s.stats.bin_cycles.max(1)).max(1);
    est.add(
        "statistics",
        m(bins, sz::<Bin>()) + m(routers, 16) + 4 * (1 << 19),
        Phase::Kept,
    );
    // traffic: a destination table per terminal and pattern component
    let components = 2 + s.traffic.mix.len() as u64;
    est.add(
        "traffic tables",
        m(m(terminals, 4), components)
            + m(s.traffic.hotspots.as_ref().map_or(0, |h| h.len() as u64), 4),
        Phase::Kept,
    );
    // results files built as text (a line per router and per bin), 2× for string growth
    est.add("results files", m(routers, 80) + m(bins, 120), Phase::Run);
}

/// The memory estimate of a cycle-level scenario (the fabric graph is held during the set-up
/// only: the builder keeps its own arrays).
pub fn estimate(l: &LoadedScenario) -> crate::error::Result<MemoryEstimate> {
    // a value out of its simple range is refused as such, before any size is estimated
    super::params::check_scalars(l)?;
    let size = crate::topology::size(&l.scenario, &l.base_dir)?;
    let mut est = MemoryEstimate::default();
    crate::engine::memory_budget::fabric_parts(&mut est, &size, Phase::Setup);
    memory_parts(&mut est, l, &size);
    Ok(est.finish())
}
