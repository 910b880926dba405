//! Builds the network instance from a loaded scenario: topology, routing, route checks,
//! traffic, and the flat per-port arrays.

use super::{Net, PortTiming};
use crate::config::{LoadedScenario, Ps};
use crate::credit::cc::{CcContext, CongestionControl};
use crate::credit::endpoint::sink::SinkModel;
use crate::credit::packet::{PacketQueue, PacketStore};
use crate::credit::switch::queue_mapping::QueueMapping;
use crate::credit::switch::vl_arbitration::{VlArbState, VlArbTable};
use crate::engine::progress::SetupProgress;
use crate::engine::EventQueue;
use crate::error::{Error, Result};
use crate::routing::channel_dependency::{check_tables, Demand, TablesCheck};
use crate::routing::{self, ForwardingTables};
use crate::stats::Stats;
use crate::topology::{self, Fabric, LinkClass, LinkRate, NodeKind};
use crate::traffic::{self, Traffic};
use std::collections::VecDeque;

/// Timing-wheel bucket width: 2^10 ps ≈ 1 ns.
const WHEEL_SHIFT: u32 = 10;

/// Most (source, destination) routes checked one by one at start-up.
pub(crate) const MAX_ROUTE_CHECKS: usize = 5_000_000;

/// Topology, tables and traffic of a scenario, checked.
pub(crate) struct Built {
    pub fabric: Fabric,
    pub lft: ForwardingTables,
    pub traffic: Traffic,
    pub routes_checked: usize,
    pub max_hops: usize,
    /// The channel-dependency check of the tables over the traffic's routes.
    pub cdg: TablesCheck,
    /// `stats.fairness_sources` resolved to HCA indices (in the order given).
    pub fairness_sources: Option<Vec<u32>>,
}

/// Builds and checks everything a run needs (shared by `run` and `validate`), naming its
/// phases to `setup`.
pub(crate) fn build_parts(l: &LoadedScenario, setup: &mut SetupProgress) -> Result<Built> {
    let s = &l.scenario;
    setup.phase("checking keys");
    check_scalars(l)?;
    setup.phase("topology");
    let fabric = topology::build(s, &l.base_dir)?;
    check_switch_ports(&fabric)?;
    setup.phase("forwarding tables");
    let lft = routing::build(s, &fabric, &l.base_dir)?;
    setup.phase("traffic");
    let traffic = traffic::build(s, &fabric, s.sim.seed, s.switch.vls)?;
    // every route the traffic can take must exist and be loop-free
    setup.phase("route check");
    let mut pairs = traffic.pairs.clone();
    // (generators list their pairs in order: no sort then)
    if !pairs.is_sorted() {
        pairs.sort_unstable();
    }
    pairs.dedup();
    if pairs.len() > MAX_ROUTE_CHECKS {
        let step = pairs.len().div_ceil(MAX_ROUTE_CHECKS);
        pairs = pairs.into_iter().step_by(step).collect();
    }
    let max_hops = lft.check_routes(&fabric, &pairs)?;
    setup.phase("channel-dependency check");
    let cdg = deadlock_check(s, &fabric, &lft, &traffic)?;
    // the HCAs whose flows the fairness index compares (checked here, not when the results
    // are written: `validate` and `run` make the same checks)
    let fairness_sources = match &s.stats.fairness_sources {
        Some(names) => {
            let mut v = Vec::with_capacity(names.len());
            for (k, name) in names.iter().enumerate() {
                let id = fabric.hca(name, &format!("stats.fairness_sources[{k}]"))?;
                v.push(fabric.nodes[id as usize].lid - 1);
            }
            Some(v)
        }
        None => None,
    };
    Ok(Built {
        fabric,
        lft,
        traffic,
        routes_checked: pairs.len(),
        max_hops,
        cdg,
        fairness_sources,
    })
}

/// Most channels of a dependency cycle named in an error message.
const CYCLE_SHOWN: usize = 12;

/// The channel-dependency graph of the forwarding tables over every route the traffic can use
/// (each flow on its VL; with congestion control also the notifications' way back) must be
/// acyclic, or the network can deadlock; `sim.allow_deadlock = true` lets it run anyway.
fn deadlock_check(
    s: &crate::config::Scenario,
    fabric: &Fabric,
    lft: &ForwardingTables,
    traffic: &Traffic,
) -> Result<TablesCheck> {
    let mut demands: Vec<Demand<'_>> = Vec::new();
    for f in traffic.flows.iter().filter(|f| f.is_static) {
        demands.push(Demand {
            src: f.src,
            dsts: std::slice::from_ref(&f.dst),
            vl: f.vl,
        });
    }
    for src in &traffic.sources {
        if let traffic::Destinations::Random { nodes, hotspot, .. } = &src.dest {
            demands.push(Demand {
                src: src.hca,
                dsts: nodes,
                vl: src.vl,
            });
            if let Some((h, _)) = hotspot {
                demands.push(Demand {
                    src: src.hca,
                    dsts: std::slice::from_ref(h),
                    vl: src.vl,
                });
            }
        }
    }
    let check = check_tables(fabric, lft, &demands, s.cc.enabled);
    if let Some(cycle) = &check.cycle {
        if !s.sim.allow_deadlock {
            let key = if s.routing.file.is_some() {
                "routing.file"
            } else {
                "routing.algorithm"
            };
            return Err(Error::input(
                key,
                format!(
                    "these forwarding tables can deadlock the traffic: the channel-dependency graph of its routes has a cycle of {} channels, each waiting for the next: {}. Choose a deadlock-free routing (e.g. \"updown\"), or set sim.allow_deadlock = true to simulate it anyway (a run that deadlocks exits with status 3)",
                    cycle.len(),
                    check.describe_cycle(fabric, CYCLE_SHOWN)
                ),
            ));
        }
    }
    Ok(check)
}

/// The InfiniBand model's switches have at most [`topology::MAX_SWITCH_PORTS`] ports (IBA).
fn check_switch_ports(fabric: &Fabric) -> Result<()> {
    for &sw in &fabric.switches {
        let n = &fabric.nodes[sw as usize];
        if n.ports.len() > topology::MAX_SWITCH_PORTS {
            return Err(Error::input(
                "topology",
                format!(
                    "switch `{}` has {} ports; an InfiniBand switch has at most {} (IBA switch ports 1-254): use fewer HCAs per switch or a smaller radix",
                    n.name,
                    n.ports.len(),
                    topology::MAX_SWITCH_PORTS
                ),
            ));
        }
    }
    Ok(())
}

fn check_scalars(l: &LoadedScenario) -> Result<()> {
    let s = &l.scenario;
    let end_time = s.sim.end_ps();
    if end_time == 0 {
        return Err(Error::input(
            "sim.end_time",
            "required and positive (or give sim.measure_cycles to run the cycle-level router model)",
        ));
    }
    if s.sim.interval.0 == 0 {
        return Err(Error::input("sim.interval", "must be positive"));
    }
    if end_time / s.sim.interval.0 > 10_000_000 {
        return Err(Error::input(
            "sim.interval",
            "gives more than 10 million intervals; choose a longer interval",
        ));
    }
    if s.sim.warmup.0 >= end_time {
        return Err(Error::input(
            "sim.warmup",
            "must be shorter than sim.end_time",
        ));
    }
    if s.switch.vls == 0 || s.switch.vls > 15 {
        return Err(Error::input(
            "switch.vls",
            format!("{} outside 1–15 (IBA data VLs)", s.switch.vls),
        ));
    }
    let credit = s.traffic.credit_bytes.0;
    let pkt_credits = s.traffic.packet_bytes.0.div_ceil(credit.max(1));
    for (key, v) in [
        ("switch.buffer_credits", Some(s.switch.buffer_credits)),
        (
            "switch.host_ports.buffer_credits",
            s.switch.host_ports.buffer_credits,
        ),
        (
            "switch.fabric_ports.buffer_credits",
            s.switch.fabric_ports.buffer_credits,
        ),
        ("hca.buffer_credits", Some(s.hca.buffer_credits)),
    ] {
        if let Some(v) = v {
            if (v as u64) < pkt_credits {
                return Err(Error::input(
                    key,
                    format!("{v} credits cannot hold one {pkt_credits}-credit packet"),
                ));
            }
        }
    }
    for (key, v) in [
        ("switch.max_being_sent", Some(s.switch.max_being_sent)),
        (
            "switch.host_ports.max_being_sent",
            s.switch.host_ports.max_being_sent,
        ),
        (
            "switch.fabric_ports.max_being_sent",
            s.switch.fabric_ports.max_being_sent,
        ),
    ] {
        if let Some(v) = v {
            if v == 0 || v > 1000 {
                return Err(Error::input(key, format!("{v} outside 1–1000")));
            }
        }
    }
    if let Some(w) = s.stats.fairness_from {
        if w.0 >= s.sim.end_ps() {
            return Err(Error::input(
                "stats.fairness_from",
                "must be before sim.end_time",
            ));
        }
    }
    Ok(())
}

/// Internal transfer rate `2 × lanes` bytes per core cycle (spec §3.5 [X] vlarb).
fn internal_rate(lanes: u64, hz: u64) -> LinkRate {
    LinkRate {
        num: 2 * lanes as u128 * hz as u128 * 8,
        den: 1,
    }
}

impl Net {
    /// The network instance of a loaded scenario (no set-up display).
    #[cfg(test)]
    pub(crate) fn new(l: &LoadedScenario) -> Result<Self> {
        Self::build(l, &mut SetupProgress::hidden())
    }

    /// The network instance of a loaded scenario, naming the set-up phases to `setup`.
    pub(crate) fn build(l: &LoadedScenario, setup: &mut SetupProgress) -> Result<Self> {
        let s = &l.scenario;
        let Built {
            fabric,
            lft,
            traffic,
            routes_checked,
            max_hops,
            fairness_sources,
            cdg,
        } = build_parts(l, setup)?;
        setup.phase("network state");
        let vls = s.switch.vls as usize;
        let credit_bytes = s.traffic.credit_bytes.0 as u32;
        let pkt_bytes = s.traffic.packet_bytes.0 as u32;
        let pkt_credits = pkt_bytes.div_ceil(credit_bytes);
        let mapping = QueueMapping::from_config(s.switch.queue_mapping);
        let vlarb_table = VlArbTable::from_config(&s.switch.vl_arbitration, s.switch.vls)?;
        let sink = SinkModel::from_config(&s.hca)?;

        // global ports are numbered in u32
        let total_ports: usize = fabric.nodes.iter().map(|n| n.ports.len()).sum();
        if total_ports.saturating_mul(vls) > u32::MAX as usize {
            return Err(Error::input(
                "topology",
                format!("{total_ports} ports × {vls} VLs are too many for the InfiniBand model"),
            ));
        }
        let mut port_base = Vec::with_capacity(fabric.nodes.len());
        let mut n_ports = 0u32;
        for n in &fabric.nodes {
            port_base.push(n_ports);
            n_ports += n.ports.len() as u32;
        }
        let np = n_ports as usize;
        let mut node_of = vec![0u32; np];
        let mut is_switch = vec![false; np];
        let mut peer = vec![0u32; np];
        let mut timing = Vec::with_capacity(np);
        let mut in_cap = vec![0u32; np * vls];
        let mut max_being_sent = vec![1u16; np];
        let mut queue_base = vec![u32::MAX; np];
        let mut fill_base = vec![u32::MAX; np];
        let mut n_fill = 0u32;
        let mut buf_index = vec![u32::MAX; np];
        let mut n_queues = 0u32;
        let mut n_buf = 0u32;
        let mut hca_of_node = vec![u32::MAX; fabric.nodes.len()];
        for (i, &h) in fabric.hcas.iter().enumerate() {
            hca_of_node[h as usize] = i as u32;
        }
        for (ni, n) in fabric.nodes.iter().enumerate() {
            let sw = n.kind == NodeKind::Switch;
            let hz = if sw {
                s.switch.core_freq.0
            } else {
                s.hca.core_freq.0
            };
            for (pi, p) in n.ports.iter().enumerate() {
                let g = (port_base[ni] + pi as u32) as usize;
                node_of[g] = ni as u32;
                is_switch[g] = sw;
                peer[g] = port_base[p.peer as usize] + p.peer_port as u32;
                let internal = internal_rate(p.link.lanes, hz);
                timing.push(PortTiming {
                    rate: p.link.rate,
                    internal,
                    delay: p.link.delay_ps,
                    ser_pkt: p.link.rate.ser_ps(pkt_bytes as u64),
                    ser_credit: p.link.rate.ser_ps(credit_bytes as u64),
                    int_pkt: internal.ser_ps(pkt_bytes as u64),
                    int_credit: internal.ser_ps(credit_bytes as u64),
                });
                let (cap, mbs) = if sw {
                    let o = if p.class == LinkClass::Host {
                        &s.switch.host_ports
                    } else {
                        &s.switch.fabric_ports
                    };
                    (
                        o.buffer_credits.unwrap_or(s.switch.buffer_credits),
                        o.max_being_sent.unwrap_or(s.switch.max_being_sent),
                    )
                } else {
                    (s.hca.buffer_credits, 1)
                };
                for v in 0..vls {
                    in_cap[g * vls + v] = cap;
                }
                max_being_sent[g] = mbs as u16;
                if sw {
                    queue_base[g] = n_queues;
                    fill_base[g] = n_fill;
                    n_fill += (n.ports.len() * vls) as u32;
                    n_queues += mapping.queues_per_input(n.ports.len(), vls) as u32;
                    if s.stats.buffer_occupancy {
                        buf_index[g] = n_buf;
                        n_buf += 1;
                    }
                }
            }
        }
        // every output starts with the full credit count of the buffer at the other end
        let mut credits = vec![0u32; np * vls];
        for g in 0..np {
            for v in 0..vls {
                credits[g * vls + v] = in_cap[peer[g] as usize * vls + v];
            }
        }
        let class: Vec<LinkClass> = fabric
            .nodes
            .iter()
            .flat_map(|n| n.ports.iter().map(|p| p.class))
            .collect();
        let mut cc = CongestionControl::from_config(
            &s.cc,
            &CcContext {
                vls,
                pkt_credits,
                is_switch: &is_switch,
                class: &class,
                n_hca: fabric.hcas.len(),
                seed: s.sim.seed,
                base_dir: &l.base_dir,
            },
        )?;
        if let CongestionControl::Ib(ib) = &mut cc {
            ib.sw.set_capacities(&in_cap);
        }
        let hca_gport: Vec<u32> = fabric.hcas.iter().map(|&h| port_base[h as usize]).collect();
        let n_hca = fabric.hcas.len();
        let end = s.sim.end_ps();
        let warmup = s.sim.warmup.0;
        let window = s.stats.fairness_from.map(|d| d.0).unwrap_or(warmup);
        let stats = Stats::new(
            end,
            s.sim.interval.0,
            n_hca,
            if s.stats.buffer_occupancy {
                Some(n_buf as usize * vls)
            } else {
                None
            },
            warmup,
            window,
        );
        // the wheel reaches just past the longest packet time (most events land within one packet
        // time); a wheel no larger than needed keeps its buckets in cache
        let longest = timing
            .iter()
            .map(|t: &PortTiming| t.ser_pkt.max(t.int_pkt).saturating_add(t.delay))
            .max()
            .unwrap_or(0);
        let wheel_log_buckets = (longest >> WHEEL_SHIFT)
            .max(1)
            .next_power_of_two()
            .trailing_zeros()
            .clamp(8, 14);
        let max_ports = fabric
            .nodes
            .iter()
            .map(|n| n.ports.len())
            .max()
            .unwrap_or(1);
        let req_words = max_ports.div_ceil(64).max(1);
        let tx_cap = s.hca.max_tx_rate.map(|r| LinkRate::bps(r.0));
        let mut net = Net {
            vls,
            credit_bytes,
            pkt_bytes,
            pkt_credits,
            end,
            input_delay: s.switch.input_delay.0,
            output_delay: s.switch.output_delay.0,
            routing_delay: s.switch.routing_delay.0,
            fabric,
            lft,
            port_base,
            node_of,
            is_switch,
            peer,
            timing,
            wire_free: vec![0; np],
            out_busy: vec![false; np],
            credits,
            rr: vec![u16::MAX; np * vls],
            req: vec![0; np * vls],
            req_mask: vec![0; np * vls * req_words],
            req_words,
            req_any: vec![0; np.div_ceil(64)],
            vlarb: vec![VlArbState::default(); np],
            vlarb_table,
            in_used: vec![0; np * vls],
            in_cap,
            being_sent: vec![0; np],
            max_being_sent,
            buf_index,
            mapping,
            queue_base,
            fill_base,
            fill: vec![0; n_fill as usize],
            queues: vec![PacketQueue::default(); n_queues as usize],
            hca_gport,
            hca_of_node,
            sink,
            sink_q: vec![VecDeque::new(); n_hca],
            sink_busy: vec![false; n_hca],
            next_tx: vec![0; n_hca],
            wake_at: vec![Ps::MAX; n_hca],
            ready: vec![Vec::new(); n_hca],
            hca_rr: vec![0; n_hca],
            control_q: vec![VecDeque::new(); n_hca],
            tx_cap,
            traffic,
            pkts: PacketStore::default(),
            q: EventQueue::new(WHEEL_SHIFT, wheel_log_buckets),
            cc,
            stats,
            events: 0,
            flit_hops: 0,
            last_progress: 0,
            deadlock: None,
            fault: None,
            routes_checked,
            max_hops,
            fairness_sources,
            cdg,
        };
        // round-robin pointers start so that port 0 is served first
        for (g, r) in net.rr.iter_mut().enumerate() {
            let n = net.node_of[g / vls] as usize;
            *r = (net.fabric.nodes[n].ports.len() - 1) as u16;
        }
        Ok(net)
    }
}

/// `lnsim validate` for the credit-level model: builds everything a run builds — with the same
/// constructor, so it makes every check `run` makes before simulating — runs nothing, and
/// reports what it built (the memory estimate is checked and reported by [`crate::api`]).
pub fn validate(l: &LoadedScenario) -> Result<String> {
    use std::io::IsTerminal;
    let mut setup = SetupProgress::new(std::io::stderr().is_terminal());
    let net = Net::build(l, &mut setup)?;
    setup.finish();
    Ok(report(l, &net))
}

/// What `validate` reports about a built InfiniBand network.
fn report(l: &LoadedScenario, net: &Net) -> String {
    let s = &l.scenario;
    let links: usize = net.peer.len() / 2;
    let statics = net.traffic.flows.iter().filter(|f| f.is_static).count();
    let gens = net.traffic.sources.len() - statics;
    let routing = s
        .routing
        .algorithm
        .unwrap_or(match s.topology.kind {
            crate::config::TopologyKind::Mesh | crate::config::TopologyKind::Torus => {
                crate::config::RoutingAlgorithm::Dor
            }
            crate::config::TopologyKind::FatTree => crate::config::RoutingAlgorithm::Dmodk,
            _ => crate::config::RoutingAlgorithm::Updown,
        })
        .name();
    let mut out = String::new();
    out.push_str(&format!("scenario {}: OK (InfiniBand model)\n", l.name));
    out.push_str(&format!(
        "  topology: {}, {} switches, {} HCAs, {} links\n",
        s.topology.kind.name(),
        net.fabric.switches.len(),
        net.fabric.hcas.len(),
        links
    ));
    out.push_str(&format!(
        "  routing: {routing}, {} routes checked, longest {} switch hops\n",
        net.routes_checked, net.max_hops
    ));
    out.push_str(&format!(
        "  traffic: {statics} static flows, {gens} generator sources\n"
    ));
    match &net.cdg.cycle {
        None => out.push_str(&format!(
            "  deadlock check: channel-dependency graph acyclic (channels: {}, dependencies: {})\n",
            net.cdg.channels, net.cdg.dependencies
        )),
        Some(c) => out.push_str(&format!(
            "  deadlock check: CYCLIC, {} channels: {} (allowed by sim.allow_deadlock; the run may deadlock and then exits 3)\n",
            c.len(),
            net.cdg.describe_cycle(&net.fabric, CYCLE_SHOWN)
        )),
    }
    if let Some(bps) = net.sink.effective_bps() {
        out.push_str(&format!(
            "  sink: drains at {:.3} Gbit/s on average\n",
            bps / 1e9
        ));
    }
    out.push_str(&format!(
        "  sim: end {} s, interval {} s, warm-up {} s, seed {}\n",
        s.sim.end_ps() as f64 / crate::config::PS_PER_S as f64,
        s.sim.interval.secs(),
        s.sim.warmup.secs(),
        s.sim.seed
    ));
    out
}
