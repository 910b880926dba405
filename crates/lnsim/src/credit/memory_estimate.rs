//! The credit-level model's part of the memory estimate ([`crate::engine::memory_budget`]): the
//! network instance, its tables, traffic, congestion control, statistics and results files,
//! from the scenario's parameters alone (issue 14 item 3).

use crate::config::{
    CcLevel, DestinationPer, Injection, InjectionQueues, LoadedScenario, NodeSet, Scenario,
    TopologyKind,
};
use crate::credit::switch::buffer::{BufferChoice, CreditKeepingKind};
use crate::engine::memory_budget::{fabric_parts, grown, m, sz, MemoryEstimate, Phase};
use crate::error::Result;
use crate::topology::{self, FabricSize, LinkParams};

/// The memory estimate of a credit-level scenario.
pub fn estimate(l: &LoadedScenario) -> Result<MemoryEstimate> {
    // a value out of its simple range is refused as such, before any size is estimated
    super::build::check_scalars(l)?;
    let size = topology::size(&l.scenario, &l.base_dir)?;
    let mut est = MemoryEstimate::default();
    fabric_parts(&mut est, &size, Phase::Kept);
    ib_parts(&mut est, l, &size)?;
    Ok(est.finish())
}

/// [`estimate`], refused when it exceeds `max_memory` or the memory available.
pub fn check(l: &LoadedScenario, max_memory: Option<u64>) -> Result<MemoryEstimate> {
    crate::engine::memory_budget::check(estimate(l)?, max_memory)
}

/// The credit-level model: the network instance ([`super::Net`]), its tables, traffic,
/// congestion control, statistics and the results files written at the end — the keys the
/// estimate reads checked first, then the parts in stages, in the order they are listed.
fn ib_parts(est: &mut MemoryEstimate, l: &LoadedScenario, f: &FabricSize) -> Result<()> {
    let s = &l.scenario;
    // the buffer organisation's keys and the host link are checked here, before anything is
    // estimated
    let credit = s.traffic.credit_bytes.0.max(1);
    let pkt_credits = s.traffic.packet_bytes.0.div_ceil(credit).max(1);
    let buffers =
        BufferChoice::for_scenario(l, f.hcas.min(u32::MAX as u64) as u32, credit, pkt_credits)?;
    let host = LinkParams::from_config(&s.links.host, "links.host")?;
    network_parts(est, s, f, buffers);
    packet_parts(est, s, f, buffers);
    let flows = traffic_parts(est, s, f, &host);
    statistics_parts(est, s, f, flows, output_queues(s, f, buffers));
    Ok(())
}

/// The VLs a switch port keeps state for: the data VLs and those the source lane choice adds
/// (`credit/lanes.rs`).
fn port_lanes(s: &Scenario) -> u64 {
    crate::credit::lanes::lanes(s)
        .unwrap_or(s.switch.vls as usize)
        .max(1) as u64
}

/// The queues per VL of a switch input under the buffer organisation (spec B.2: VOQnet's grow
/// with the destinations).
fn queues_per_vl(f: &FabricSize, buffers: BufferChoice) -> u64 {
    buffers
        .scheme
        .queues_per_vl(f.max_ports.min(usize::MAX as u64) as usize) as u64
}

/// Forwarding tables, the per-port arrays, switch queues and their credits, output buffers
/// and injection queues, congestion control, HCAs.
fn network_parts(est: &mut MemoryEstimate, s: &Scenario, f: &FabricSize, buffers: BufferChoice) {
    let vls = port_lanes(s);
    // forwarding tables: a u16 port per switch and LID, 2^routing.lmc LIDs per HCA
    let lmc = match &s.routing {
        crate::config::RoutingConfig::Opensm(k) => k.lmc.min(7),
        _ => 0,
    };
    est.add(
        "forwarding tables",
        m(m(f.switches, (f.hcas + 1) << lmc), 2) + m(f.switches + f.hcas, 4),
        Phase::Kept,
    );
    crate::credit::routing::multipath::memory(s, f, est);
    crate::credit::routing::opensm::dfsssp_layers::memory(s, f, est);
    crate::credit::routing::dmodk::memory(s, f, est);
    port_parts(est, f, vls);
    switch_queue_parts(est, f, buffers, vls);
    output_buffer_parts(est, s, f, buffers, vls);
    endpoint_parts(est, s, f, vls);
}

/// Per global port: the flat arrays of `Net` (and the copies the builder makes).
fn port_parts(est: &mut MemoryEstimate, f: &FabricSize, vls: u64) {
    use super::PortTiming;
    use crate::credit::switch::vl_arbitration::VlArbState;
    let req_words = f.max_ports.div_ceil(64).max(1);
    let per_port = 4
        + 1
        + 4
        + sz::<PortTiming>()
        + 8
        + 1
        + 2
        + 2
        + 4
        + 4
        + 4
        + 1
        + 1
        + sz::<VlArbState>()
        + sz::<super::PortSpan>()
        + if f.max_ports > super::WIDE_SWITCH_PORTS as u64 {
            8 * req_words
        } else {
            0
        }
        + vls * (4 + 2 + 4 + 4 + 4 + 8 * req_words);
    est.add("ports and VLs", m(f.ports, per_port), Phase::Kept);
}

/// The switch inputs' queues: per input, a fill counter per (output, VL), the scheme's queues,
/// and where several queues request one output a count of requesting heads per (output, VL)
/// and which queues they are; with static buffers, per queue its credits.
fn switch_queue_parts(est: &mut MemoryEstimate, f: &FabricSize, buffers: BufferChoice, vls: u64) {
    use crate::credit::packet::PacketQueue;
    let switch_ports = f.ports.saturating_sub(f.hcas);
    let queues_per_input = m(queues_per_vl(f, buffers), vls);
    let heads = if buffers.scheme.several_heads_per_output() {
        // a count and a bit set over the VL's queues per (output, VL), the round robin per VL
        let words = queues_per_vl(f, buffers).div_ceil(64);
        m(f.max_ports, vls) * 2 + m(m(f.max_ports, vls), words * 8) + vls * 4
    } else {
        0
    };
    est.add(
        "switch queues",
        m(
            switch_ports,
            m(f.max_ports, vls) * 4 + m(queues_per_input, sz::<PacketQueue>()) + heads,
        ),
        Phase::Kept,
    );
    // static buffers: per queue, the credits available upstream, the occupancy and the share
    if let CreditKeepingKind::Partitioned(_) = buffers.credits {
        est.add(
            "credits per queue",
            m(m(switch_ports, queues_per_input) + m(f.hcas, vls), 3 * 4) + m(f.ports, 8),
            Phase::Kept,
        );
    }
}

/// The output buffers (spec B.5) and the Input Adapter's injection queues
/// (`hca.injection_queues = "scheme"`, spec B.5).
fn output_buffer_parts(
    est: &mut MemoryEstimate,
    s: &Scenario,
    f: &FabricSize,
    buffers: BufferChoice,
    vls: u64,
) {
    use crate::credit::packet::PacketQueue;
    use crate::credit::switch::vl_arbitration::VlArbState;
    let switch_ports = f.ports.saturating_sub(f.hcas);
    // per switch port a queue, three counters per downstream counter (at most the scheme's
    // queues), and per port and VL the link's state and WRR turn
    let out_queues = output_queues(s, f, buffers);
    if out_queues > 0 {
        est.add(
            "output buffers",
            m(out_queues, sz::<PacketQueue>() + 3 * 4)
                + m(switch_ports, 4 + 4 + 1 + sz::<VlArbState>() + vls * 12),
            Phase::Kept,
        );
    }
    // per HCA one queue and two counters per credit counter of the first switch's input (at
    // most the scheme's queues), a base, a count, the WRR state and a flag
    if s.hca.injection_queues == InjectionQueues::Scheme {
        let per_hca = match buffers.credits {
            CreditKeepingKind::Partitioned(_) => m(queues_per_vl(f, buffers), vls),
            CreditKeepingKind::SharedPool => vls,
        };
        est.add(
            "injection queues",
            m(
                f.hcas,
                m(per_hca, sz::<PacketQueue>() + 2 * 4) + 4 + 4 + 8 + 1,
            ),
            Phase::Kept,
        );
    }
}

/// Congestion control (built and checked even when it is off), the HCAs, and the flow-control
/// packets' state.
fn endpoint_parts(est: &mut MemoryEstimate, s: &Scenario, f: &FabricSize, vls: u64) {
    let (np, hcas) = (f.ports, f.hcas);
    est.add(
        "congestion control",
        m(
            np,
            crate::credit::cc::ib_switch::SwitchCc::bytes_per_port(vls),
        ) + m(
            hcas,
            16 + if s.cc.ib().level == CcLevel::Sl {
                vls * 25
            } else {
                0
            },
        ) + 8 * (s.cc.ib().ccti_limit as u64 + 1).max(128),
        if crate::credit::cc::sends_cnps(s) {
            Phase::Kept
        } else {
            Phase::Setup
        },
    );
    // per HCA: queues, pacing state and the sink's per-credit state
    est.add(
        "HCAs",
        m(hcas, 4 + 4 + 32 + 1 + 8 + 8 + 24 + 4 + 32 + 24 + 4 + 4 + 8),
        Phase::Kept,
    );
    // flow-control packets: per credit counter, the credits pending, a flag, the last send
    if s.links.flow_control == crate::config::FlowControl::Packets {
        est.add(
            "flow-control packets",
            m(np, vls * (4 + 1 + 16)),
            Phase::Kept,
        );
    }
}

/// Live packets (every one holds credits in some buffer) and the event queue.
fn packet_parts(est: &mut MemoryEstimate, s: &Scenario, f: &FabricSize, buffers: BufferChoice) {
    use super::Ev;
    use crate::credit::packet::Packet;
    let mut packets = buffered_packets(s, f, buffers);
    if let Some(created) = created_packets(s, f) {
        packets = packets.min(created);
    }
    // a 64-byte row (the record, its queue link and look-ahead) and a sequence number
    let row = sz::<Packet>().next_multiple_of(64) + 4;
    est.add("packets", grown(m(packets, row)), Phase::Run);
    // events: a few per packet, port and HCA, in wheel buckets (at most 2^14) that keep the
    // capacity they once needed
    let events = m(packets, 3) + m(f.ports, 2) + m(f.hcas, 3);
    let slot = sz::<Ev>() + 8;
    est.add(
        "event queue",
        grown(m(events, slot)) + (1 << 14) * (sz::<Vec<u8>>() + 4 * slot),
        Phase::Run,
    );
}

/// The live packets the buffers can hold: every live packet holds credits in some buffer (a
/// CNP answers a marked one).
fn buffered_packets(s: &Scenario, f: &FabricSize, buffers: BufferChoice) -> u64 {
    let vls = s.switch.vls.max(1) as u64;
    let hcas = f.hcas;
    let switch_ports = f.ports.saturating_sub(hcas);
    let host_cap = s
        .switch
        .host_ports
        .buffer_credits
        .unwrap_or(s.switch.buffer_credits) as u64;
    let fabric_cap = s
        .switch
        .fabric_ports
        .buffer_credits
        .unwrap_or(s.switch.buffer_credits) as u64;
    let credit = s.traffic.credit_bytes.0.max(1);
    let pkt_credits = s.traffic.packet_bytes.0.div_ceil(credit).max(1);
    // with static buffers a switch input's VL holds its queues' shares (spec B.5)
    let space = |cap: u64| -> u64 {
        let CreditKeepingKind::Partitioned(sizing) = buffers.credits else {
            return cap;
        };
        let per_vl = queues_per_vl(f, buffers);
        let c = |x: u64| x.min(u32::MAX as u64) as u32;
        let share = sizing
            .share(c(cap), c(per_vl), c(pkt_credits))
            .map_or(cap, |x| x as u64);
        m(share, per_vl).max(cap)
    };
    // the output buffers (spec B.5) hold packets whose input credits are already free
    let out_cap = match s.switch.output_buffer_credits as u64 {
        0 => 0,
        c => space(c),
    };
    let capacity = m(
        vls,
        m(hcas, space(host_cap) + s.hca.buffer_credits as u64)
            + m(switch_ports.saturating_sub(hcas), space(fabric_cap))
            + m(switch_ports, out_cap),
    );
    let packets = capacity / pkt_credits + hcas;
    if crate::credit::cc::sends_cnps(s) {
        m(packets, 2)
    } else {
        packets
    }
}

/// The packets the run can create at most (a bound for a large buffer per queue, as VOQnet's,
/// on a short run): with one queue per flow an HCA creates a data packet as it puts it on its
/// link, at most one per packet time of the fastest link class, and every control packet (a
/// CNP, a DRB or DDBBM notification) answers data packets that arrived, at most two per data
/// packet (DDBBM: a start for a source seen since its last end, then that end). None (no
/// bound) with shared injection queues or for a topology file or an imported fabric, whose
/// links may each have a rate of their own.
fn created_packets(s: &Scenario, f: &FabricSize) -> Option<u64> {
    if s.hca.injection_queues != InjectionQueues::PerFlow
        || matches!(
            s.topology.kind(),
            TopologyKind::File | TopologyKind::Ibnetdiscover
        )
    {
        return None;
    }
    let fastest = |c: &crate::config::LinkConfig, key| LinkParams::from_config(c, key).ok();
    let ser = [
        fastest(&s.links.host, "links.host"),
        fastest(&s.links.fabric, "links.fabric"),
    ]
    .iter()
    .flatten()
    .map(|l| l.rate.ser_ps(s.traffic.packet_bytes.0).max(1))
    .min()?;
    let data = m(f.hcas, s.sim.end_ps() / ser + 2);
    Some(m(data, 3))
}

/// What the traffic of `[traffic]` creates at most: its sources, their destination-list
/// entries, the flows (queue pairs) and the messages queued at the sources.
struct TrafficCounts {
    /// Sources (static flows and generators' sources).
    sources: u64,
    /// Destination-list entries of the generators' sources (one pair each).
    dest_entries: u64,
    /// Flows the run creates.
    flows: u64,
    /// Messages queued at the sources (not with flood injection).
    queued_msgs: u64,
    /// Static flows (one source, flow and pair each).
    n_static: u64,
}

/// The counts of [`TrafficCounts`] over the run, with messages and packets timed on the
/// `host` link.
fn traffic_counts(s: &Scenario, f: &FabricSize, host: &LinkParams) -> TrafficCounts {
    let hcas = f.hcas;
    let end = s.sim.end_ps();
    let payload = s.traffic.payload_bytes.0.max(1);
    let msg_packets = s.traffic.message_bytes.0.div_ceil(payload).max(1);
    let msg_time = host
        .rate
        .ser_ps(s.traffic.packet_bytes.0.saturating_mul(msg_packets))
        .max(1);
    let pkt_time = host.rate.ser_ps(s.traffic.packet_bytes.0).max(1);
    let n_static = s.traffic.flows.len() as u64;
    let mut c = TrafficCounts {
        sources: n_static,
        dest_entries: 0,
        flows: n_static,
        queued_msgs: 0,
        n_static,
    };
    for g in &s.traffic.generators {
        let count = |set: &NodeSet| match set {
            NodeSet::List(v) => (v.len() as u64).min(hcas),
            NodeSet::Named(_) => hcas,
        };
        let srcs = count(&g.sources);
        let dsts = count(&g.destinations);
        let start = g.start.0.min(end);
        let stop = g.stop.map_or(end, |d| d.0.min(end));
        let active = stop.saturating_sub(start);
        let unit = if g.destination_per == DestinationPer::Packet {
            pkt_time
        } else {
            msg_time
        };
        let msgs = active / unit + 2;
        c.sources += srcs;
        c.dest_entries = c.dest_entries.saturating_add(m(srcs, dsts));
        c.flows = c.flows.saturating_add(m(srcs, dsts.min(msgs)));
        if g.injection != Injection::Flood {
            c.queued_msgs = c.queued_msgs.saturating_add(m(srcs, msgs));
        }
    }
    for fl in &s.traffic.flows {
        if fl.injection != Injection::Flood {
            c.queued_msgs = c.queued_msgs.saturating_add(end / msg_time + 2);
        }
    }
    c
}

/// Traffic sources with their destination lists (one per generator, and per source while the
/// channel dependencies are checked), the (src, dst) pairs whose routes are checked (sorted in
/// a copy), the flows (queue pairs) the run creates; returns the flows.
fn traffic_parts(est: &mut MemoryEstimate, s: &Scenario, f: &FabricSize, host: &LinkParams) -> u64 {
    use crate::credit::traffic::{Flow, Message, Source};
    let hcas = f.hcas;
    let c = traffic_counts(s, f, host);
    est.add(
        "traffic sources",
        m(c.sources, sz::<Source>()) + m(c.dest_entries, 4) + m(hcas, 24),
        Phase::Kept,
    );
    // the pairs are pushed and kept; the set-up sorts a copy
    let pairs = c.dest_entries + c.n_static;
    est.add("traffic pairs", grown(m(pairs, 8)), Phase::Kept);
    // (a sorted copy, and a sample of it when there are too many to check one by one)
    est.add(
        "route checks",
        m(pairs, 8) + m(pairs.min(super::build::MAX_ROUTE_CHECKS as u64), 8),
        Phase::Setup,
    );
    est.add(
        "flows",
        grown(m(c.flows, sz::<Flow>() + 16)) + grown(m(c.queued_msgs, sz::<Message>())),
        Phase::Run,
    );
    // the random sources' (source, destination) → flow table: dense while small enough (a
    // hashed one is counted with the flows above); `sources` is an upper bound, so the dense
    // table counted is the largest one it allows
    est.add(
        "flow index",
        m(c.sources, hcas).min(crate::credit::traffic::flows::DENSE_FLOW_INDEX_ENTRIES) * 4,
        Phase::Kept,
    );
    c.flows
}

/// The output queues of the network at most (`switch.output_buffer_credits` > 0, spec B.5): per
/// switch port one per credit counter of the input it drives (at most the scheme's queues per
/// VL with static buffers, the VLs with a shared pool); 0 without output buffers.
fn output_queues(s: &Scenario, f: &FabricSize, buffers: BufferChoice) -> u64 {
    if s.switch.output_buffer_credits == 0 {
        return 0;
    }
    let vls = port_lanes(s);
    let per_out = match buffers.credits {
        CreditKeepingKind::Partitioned(_) => m(queues_per_vl(f, buffers), vls),
        CreditKeepingKind::SharedPool => vls,
    };
    m(f.ports.saturating_sub(f.hcas), per_out)
}

/// Statistics and the results files built in memory before they are written (`flows`: the
/// flows of the run; `out_queues`: the output queues, tracked with `stats.buffer_occupancy`).
fn statistics_parts(
    est: &mut MemoryEstimate,
    s: &Scenario,
    f: &FabricSize,
    flows: u64,
    out_queues: u64,
) {
    let vls = s.switch.vls.max(1) as u64;
    let n_int = s.sim.end_ps().div_ceil(s.sim.interval.0.max(1)).max(1);
    let tracked = buffer_statistics_parts(est, s, f, n_int, out_queues);
    est.add("latency histograms", 3 * 400 * 1024, Phase::Kept); // packet, network, message
    link_statistics_parts(est, s, f, n_int);
    // the congestion management's share (its `memory` hook)
    crate::credit::cc::CongestionManagement::memory(
        s,
        &crate::credit::cc::MemorySizes {
            ports: f.ports,
            hcas: f.hcas,
            vls,
            flows,
            intervals: n_int,
            name_bytes: f.name_bytes.max(4),
        },
        est,
    );
    // results files: built as text in memory before they are written (a line per interval
    // and HCA, per interval and tracked buffer, per flow)
    let name = f.name_bytes.max(4);
    est.add(
        "results files",
        grown(m(m(n_int, f.hcas), 24 + name) + m(m(n_int, tracked), 28 + name) + m(flows, 120)),
        Phase::Run,
    );
}

/// The statistics of each of the `n_int` intervals per HCA and, with `stats.buffer_occupancy`,
/// per switch input and VL and per output queue (spec B.5, with `output_buffers.csv`); returns
/// the switch inputs' (port, VL) buffers tracked.
fn buffer_statistics_parts(
    est: &mut MemoryEstimate,
    s: &Scenario,
    f: &FabricSize,
    n_int: u64,
    out_queues: u64,
) -> u64 {
    let vls = s.switch.vls.max(1) as u64;
    let switch_ports = f.ports.saturating_sub(f.hcas);
    // bytes per HCA per interval, buffer occupancy per switch input and VL per interval
    est.add("statistics per node", m(m(n_int, f.hcas), 16), Phase::Kept);
    let (tracked, tracked_out) = if s.stats.buffer_occupancy {
        (m(switch_ports, vls), out_queues)
    } else {
        (0, 0)
    };
    est.add(
        "statistics per buffer",
        m(tracked, 12) + m(m(n_int, tracked), 12),
        Phase::Kept,
    );
    // and per output queue, with `output_buffers.csv`, a line per interval and queue
    if tracked_out > 0 {
        est.add(
            "statistics per output queue",
            m(tracked_out, 12) + m(m(n_int, tracked_out), 12),
            Phase::Kept,
        );
        est.add(
            "output_buffers.csv",
            grown(m(m(n_int, tracked_out), 36 + f.name_bytes.max(4))),
            Phase::Run,
        );
    }
    tracked
}

/// Data bytes per switch output and interval (`stats.links`, `stats.hotspot`: drb spec A.7),
/// and `links.csv`, a line per switch output and interval.
fn link_statistics_parts(est: &mut MemoryEstimate, s: &Scenario, f: &FabricSize, n_int: u64) {
    let switch_ports = f.ports.saturating_sub(f.hcas);
    let links = if s.stats.links || s.stats.hotspot.is_some() {
        switch_ports
    } else {
        0
    };
    if links > 0 {
        est.add(
            "statistics per link",
            m(m(n_int, links), 8) + m(f.ports, 4),
            Phase::Kept,
        );
    }
    if s.stats.links {
        let name = f.name_bytes.max(4);
        est.add(
            "links.csv",
            grown(m(m(n_int, links), 40 + 2 * name)),
            Phase::Run,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::load_str;
    use std::path::Path;

    fn load(text: &str) -> LoadedScenario {
        load_str(text, "t.toml", Path::new("."), "t", &[], None).unwrap()
    }

    #[test]
    fn forwarding_tables_dominate_a_large_mesh() {
        let l = load(
            "[sim]\nend_time = \"10us\"\n[topology]\nkind = \"mesh\"\ndims = [400, 400]\nhcas_per_switch = 1\n",
        );
        let e = estimate(&l).unwrap();
        // 160,000 switches × 160,001 LIDs × 2 B
        assert!(e.total > 51_000_000_000, "{}", e.summary());
        assert_eq!(e.parts[0].0, "forwarding tables", "{}", e.summary());
        let err = check(&l, Some(8 << 30)).unwrap_err().to_string();
        assert!(
            err.contains("--max-memory") && err.contains("8.00 GiB"),
            "{err}"
        );
    }

    /// DDBBM's detection state is estimated whenever it runs (the queue scheme alone switches
    /// it on): its SRB matrix alone is 8 bytes per (destination, source) pair of end nodes.
    #[test]
    fn ddbbm_detection_state_is_in_the_estimate() {
        let text = "[sim]\nend_time = \"100us\"\n[topology]\nkind = \"fat_tree\"\nk = 4\nn = 3\n\
                    [switch]\nqueue_mapping = \"ddbbm\"\ndbbm_queues = 4\n\
                    [[traffic.generators]]\nsources = \"all\"\n";
        let part = |text: &str| {
            let e = estimate(&load(text)).unwrap();
            e.parts
                .iter()
                .find(|p| p.0 == "DDBBM detection")
                .map(|p| p.1)
        };
        let bytes = part(text).expect("a DDBBM detection part");
        assert!(bytes >= 64 * 64 * 8, "{bytes}");
        assert_eq!(part(&text.replace("\"ddbbm\"", "\"dbbm\"")), None);
    }

    /// dfsssp's SL per (source HCA, destination LID) pair is estimated before the table is
    /// made: a byte per pair the run keeps, and the dependencies of every pair's route while
    /// the layers are made; other engines have neither.
    #[test]
    fn dfsssp_path_sls_and_layering_are_in_the_estimate() {
        let text = "[sim]\nend_time = \"100us\"\n[topology]\nkind = \"torus\"\ndims = [8, 8]\nhcas_per_switch = 2\n\
                    [switch]\nvls = 8\n[routing]\nalgorithm = \"opensm\"\nengine = \"dfsssp\"\n";
        let part = |text: &str, name: &str| {
            estimate(&load(text))
                .unwrap()
                .parts
                .iter()
                .find(|p| p.0 == name)
                .map(|p| p.1)
        };
        assert_eq!(part(text, "path SLs"), Some(128 * 129));
        assert!(part(text, "dfsssp layering").unwrap() > 128 * 129 * 8);
        let sssp = text.replace("\"dfsssp\"", "\"sssp\"");
        assert_eq!(part(&sssp, "path SLs"), None);
        assert_eq!(part(&sssp, "dfsssp layering"), None);
    }

    /// The live packets' part: every buffer's capacity (output buffers included), but never
    /// more than the run can create — three per packet time and HCA on the fastest link — and
    /// the capacity alone with the B.5 adapter, which creates packets ahead of its link.
    #[test]
    fn live_packets_are_bounded_by_the_buffers_and_by_what_the_run_creates() {
        let part = |over: &[&str]| {
            let mut text = String::from(
                "[sim]\nend_time = \"1ms\"\n[topology]\nkind = \"fat_tree\"\nk = 4\nn = 3\n\
                 [links.host]\nrate = \"8Gbps\"\n[links.fabric]\nrate = \"8Gbps\"\n\
                 [traffic]\ncredit_bytes = \"64B\"\nmtu_credits = 1\npacket_bytes = \"64B\"\n\
                 payload_bytes = \"64B\"\nmessage_bytes = \"64B\"\n",
            );
            text.push_str(
                "[[traffic.generators]]\nsources = \"all\"\ninjection = \"bernoulli\"\nload = 0.5\n",
            );
            let over: Vec<String> = over.iter().map(|o| o.to_string()).collect();
            let l = load_str(&text, "t.toml", Path::new("."), "t", &over, None).unwrap();
            let e = estimate(&l).unwrap();
            e.parts.iter().find(|p| p.0 == "packets").unwrap().1
        };
        let voq_net = [
            "switch.queue_mapping=\"voq_net\"",
            "switch.buffer_sharing=\"static\"",
            "switch.static_mode=\"per_queue\"",
            "switch.queue_bytes=\"1KiB\"",
        ];
        // 64 queues of 16 packets per switch port: about 390,000 packets of buffer; 10 us at
        // 64 ns per packet lets 64 HCAs create 3 × 64 × 158 of them
        let short: Vec<&str> = voq_net
            .iter()
            .copied()
            .chain(["sim.end_time=\"10us\""])
            .collect();
        let long: Vec<&str> = voq_net
            .iter()
            .copied()
            .chain(["sim.end_time=\"1s\""])
            .collect();
        let (p_short, p_long) = (part(&short), part(&long));
        assert!(p_short * 10 < p_long, "{p_short} vs {p_long}");
        let created = 3 * 64 * (10_000_000 / 64_000 + 2) as u64;
        assert!(p_short >= created * 64, "{p_short} B for {created} packets");
        // the adapter keeps the buffer bound
        let adapter: Vec<&str> = short
            .iter()
            .copied()
            .chain(["hca.injection_queues=\"scheme\""])
            .collect();
        assert_eq!(part(&adapter), p_long);
        // output buffers hold packets too
        let plain = ["switch.buffer_credits=16", "sim.end_time=\"1s\""];
        let with_out = [plain[0], plain[1], "switch.output_buffer_credits=16"];
        assert!(part(&with_out) > part(&plain));
    }

    /// A topology file may give a link a rate of its own (here an HCA's, 100× the class's):
    /// the packets the run can create are not bounded from `[links.*]` then, so the buffers'
    /// capacity alone bounds the live packets, whatever the run's length.
    #[test]
    fn a_topology_file_keeps_the_buffer_bound() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("t.topo"),
            "switch S1\nhca H1\nhca H2\nlink H1 S1 rate=800Gbps\nlink H2 S1\n",
        )
        .unwrap();
        let part = |end: &str| {
            let text = format!(
                "[sim]\nend_time = \"{end}\"\n[topology]\nkind = \"file\"\nfile = \"t.topo\"\n\
                 [links.host]\nrate = \"8Gbps\"\n[links.fabric]\nrate = \"8Gbps\"\n\
                 [switch]\nbuffer_credits = 4096\n[hca]\nbuffer_credits = 4096\n\
                 [[traffic.generators]]\nsources = \"all\"\ninjection = \"bernoulli\"\nload = 0.5\n"
            );
            let l = load_str(&text, "t.toml", d.path(), "t", &[], None).unwrap();
            let e = estimate(&l).unwrap();
            e.parts.iter().find(|p| p.0 == "packets").unwrap().1
        };
        assert_eq!(part("1us"), part("1s"));
    }

    #[test]
    fn structured_sizes_match_the_built_fabrics() {
        for topo in [
            "kind = \"mesh\"\ndims = [3, 4]\nhcas_per_switch = 2",
            "kind = \"mesh\"\ndims = [2, 5, 1]\nhcas_per_switch = 1",
            "kind = \"torus\"\ndims = [2, 3, 4]\nhcas_per_switch = 1",
            "kind = \"torus\"\ndims = [5]\nhcas_per_switch = 3",
            "kind = \"fat_tree\"\nk = 4\nn = 3",
            "kind = \"fat_tree\"\ndown = [18, 36]\nup = [1, 18]",
            "kind = \"dragonfly\"\np = 2\n[routing]\nalgorithm = \"min\"",
            "kind = \"dragonfly\"\np = 3\na = 4\nh = 2\n[routing]\nalgorithm = \"min\"",
        ] {
            // (no sim.end_time: a Dragonfly is a cycle-level scenario, which refuses it)
            let l = load(&format!("[sim]\n[topology]\n{topo}\n"));
            let analytic = topology::size(&l.scenario, &l.base_dir).unwrap();
            let built = FabricSize::of(&topology::build(&l.scenario, &l.base_dir).unwrap());
            assert_eq!(
                (
                    analytic.switches,
                    analytic.hcas,
                    analytic.ports,
                    analytic.max_ports
                ),
                (built.switches, built.hcas, built.ports, built.max_ports),
                "{topo}"
            );
        }
    }
}
