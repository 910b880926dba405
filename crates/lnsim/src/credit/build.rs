//! Builds the network instance from a loaded scenario: topology, routing, route checks,
//! traffic, and the flat per-port arrays.

use super::{
    Arbitration, Endpoints, Engine, Links, Net, PortSpan, PortTiming, PortTimings, Routes,
    SwitchBuffers, SwitchInput,
};
use crate::config::{DmodkKey, LoadedScenario, Ps, RoutingConfig, Scenario};
use crate::credit::cc::{CcContext, CongestionManagement};
use crate::credit::endpoint::sink::SinkModel;
use crate::credit::lanes::LaneChoice;
use crate::credit::packet::PacketStore;
use crate::credit::routing::dmodk::{self, SourceUpPorts};
use crate::credit::routing::multipath_routes::MultipathRoutes;
use crate::credit::routing::path_sl::PathSl;
use crate::credit::routing::route_balance::RouteBalance;
use crate::credit::routing::table_dependencies::{check_tables, Demand, TablesCheck};
use crate::credit::routing::{self, ForwardingTables};
use crate::credit::stats::Stats;
use crate::credit::switch::buffer::partitioned::PartitionedCredits;
use crate::credit::switch::buffer::shared_pool::SharedPool;
use crate::credit::switch::buffer::{BufferChoice, CreditKeeping, CreditKeepingKind, QueueScheme};
use crate::credit::switch::output_buffer::OutputBuffers;
use crate::credit::switch::vl_arbitration::{VlArbState, VlArbTable};
use crate::credit::traffic::{self, Traffic};
use crate::credit::wheel::EventQueue;
use crate::engine::progress::SetupProgress;
use crate::error::{Error, Result};
use crate::topology::{self, Fabric, LinkClass, LinkRate, NodeKind};
use std::collections::VecDeque;
use std::sync::Arc;

/// Timing-wheel bucket width: 2^10 ps ≈ 1 ns. (2^9 ps was measured on 2026-11-28: 2.7 % fewer
/// instructions per event on `bmin64_3b`, whose small buckets are sorted by comparison, but
/// 6 MiB more peak memory on `fat_tree_648`, as every bucket keeps the allocation of the
/// largest it took over: left at 2^10.)
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
    /// DRB's multipath routes (`drb.enabled`, drb spec A.3.5).
    pub multipath: Option<MultipathRoutes>,
    /// S-mod-k's per-source up ports (`routing.dmodk_key = "source"`, drb spec B.6).
    pub source_up: Option<SourceUpPorts>,
    /// Routes of every HCA pair per link under the tables (`route_balance` in the summary).
    pub balance: RouteBalance,
    /// The SL of every (source, destination) pair, when the routing assigns them (`dfsssp`).
    pub path_sl: Option<Arc<PathSl>>,
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
    let (lft, path_sl) = routing::build_routes(l, &fabric)?;
    let path_sl = path_sl.map(Arc::new);
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
    if super::routing::multipath::wanted(s) {
        setup.phase("multipath routes");
    }
    let multipath = super::routing::multipath::setup(s, &fabric, &lft, &traffic)?;
    let source = match &s.routing {
        RoutingConfig::Dmodk(k) if k.dmodk_key == DmodkKey::Source => {
            if multipath.is_some() {
                return Err(Error::input(
                    "routing.dmodk_key",
                    "\"source\" fixes one route per pair, DRB's multipath routes several: not with drb.enabled = true or cc.mechanism = \"drb\"; use \"destination\"",
                ));
            }
            setup.phase("per-source routes");
            Some(dmodk::source_routing(
                &fabric,
                &lft,
                k.dmodk_digits,
                s.switch.vls,
            )?)
        }
        _ => None,
    };
    setup.phase("routes per link");
    let balance = match &source {
        Some((_, _, b)) => b.clone(),
        None => RouteBalance::of(&fabric, &lft),
    };
    setup.phase("channel-dependency check");
    let (source_up, source_cdg) = match source {
        Some((t, c, _)) => (Some(t), Some(c)),
        None => (None, None),
    };
    let cdg = match &multipath {
        // every packet (path 0 included) travels on its path's layer: the layers' graphs
        // replace the tables' one (drb spec A.3.5)
        Some(mp) => {
            let check = mp.check(&fabric);
            if let Some(cycle) = &check.cycle {
                return Err(Error::Internal(format!(
                    "the multipath layering left a cycle of {} channels: {}",
                    cycle.len(),
                    check.describe_cycle(&fabric, CYCLE_SHOWN)
                )));
            }
            check
        }
        // S-mod-k: every pair's route checked (drb spec B.6; `dmodk::source_routing`)
        None => match source_cdg {
            Some(c) => c,
            None => deadlock_check(s, &fabric, &lft, &traffic, path_sl.as_ref())?,
        },
    };
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
        multipath,
        source_up,
        balance,
        path_sl,
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
    path_sl: Option<&Arc<PathSl>>,
) -> Result<TablesCheck> {
    let mut demands: Vec<Demand<'_>> = Vec::new();
    for f in traffic.flows.iter().filter(|f| f.is_static) {
        demands.push(Demand {
            src: f.src,
            dsts: std::slice::from_ref(&f.dst),
            vl: f.vl,
            offset: None,
        });
    }
    let random: Vec<(u32, Vec<u32>)> = (0..traffic.sources.len() as u32)
        .filter(|&s| {
            matches!(
                traffic.sources[s as usize].dest,
                traffic::Destinations::Random { .. }
            )
        })
        .map(|s| (s, traffic.destinations_of(s)))
        .collect();
    for (s, dsts) in &random {
        let src = &traffic.sources[*s as usize];
        demands.push(Demand {
            src: src.hca,
            dsts,
            vl: src.vl,
            offset: None,
        });
    }
    // congestion notifications go back from every destination to its source: on the data's VL
    // (checked with the data), or on `cc.cnp_vl` as routes of their own
    let returns: Vec<(u32, Vec<u32>)> = match (crate::credit::cc::sends_cnps(s), s.cc.cnp_vl()) {
        (true, Some(_)) => {
            let mut back: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
            for d in &demands {
                for &dst in d.dsts {
                    back.entry(dst).or_default().push(d.src);
                }
            }
            back.into_iter().collect()
        }
        _ => Vec::new(),
    };
    let cnp_vl = s.cc.cnp_vl().unwrap_or(0) as u8;
    for (dst, srcs) in &returns {
        demands.push(Demand {
            src: *dst,
            dsts: srcs,
            vl: cnp_vl,
            offset: None,
        });
    }
    // a source lane choice that picks the VL spreads the routes over its lanes
    let (on_lanes, returns) = LaneChoice::for_routes(s, path_sl)?.route_demands(
        &demands,
        crate::credit::cc::sends_cnps(s) && s.cc.cnp_vl().is_none(),
    );
    let on_lanes = on_lanes.unwrap_or_default();
    let demands: Vec<Demand<'_>> = if on_lanes.is_empty() {
        demands
    } else {
        on_lanes
            .iter()
            .map(|(src, dsts, vl, offset)| Demand {
                src: *src,
                dsts,
                vl: *vl,
                offset: *offset,
            })
            .collect()
    };
    let check = check_tables(fabric, lft, &demands, returns);
    if let Some(cycle) = &check.cycle {
        if !s.sim.allow_deadlock {
            let key = if matches!(
                s.routing,
                crate::config::RoutingConfig::LftFile(_) | crate::config::RoutingConfig::LftDump(_)
            ) {
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

/// The credit-level model's switches have at most [`topology::MAX_SWITCH_PORTS`] ports (IBA).
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

/// The checks of single values of a credit-level scenario (times, VLs, buffer sizes
/// against the packet size), which need no network: they come before the memory estimate
/// ([`super::memory::estimate`]), so a value out of its simple range is refused as such.
pub(crate) fn check_scalars(l: &LoadedScenario) -> Result<()> {
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

/// Internal transfer rate `2 × lanes` bytes per core cycle (spec §3.5 \[X\] vlarb).
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
        Self::build_with(l, setup, None)
    }

    /// The network instance with the buffer organisation `buffers` instead of the scenario's
    /// (None: the scenario's `switch.queue_mapping`, `switch.buffer_sharing` and their keys,
    /// [`BufferChoice::from_config`]). Stages, every check before anything of the run state is
    /// built: the checked parts ([`build_parts`]: topology, tables, traffic, route and
    /// channel-dependency checks, multipath routes), the buffer organisation, the lanes and
    /// their arbitration ([`lanes`]), the sink, the port layout ([`PortLayout`]), the credits
    /// ([`initial_credits`]), the output buffers ([`output_buffers`]), request bookkeeping
    /// ([`request_counts`]), congestion management ([`congestion_management`]), statistics
    /// ([`statistics`]), the event wheel ([`wheel_log_buckets`]), the Input Adapter; then the
    /// parts of [`Net`] ([`Links`], [`Arbitration`], [`SwitchBuffers`], [`Endpoints`],
    /// [`Routes`], [`Engine`]).
    pub(crate) fn build_with(
        l: &LoadedScenario,
        setup: &mut SetupProgress,
        buffers: Option<BufferChoice>,
    ) -> Result<Self> {
        let s = &l.scenario;
        let Built {
            fabric,
            lft,
            traffic,
            routes_checked,
            max_hops,
            fairness_sources,
            cdg,
            multipath,
            source_up,
            balance,
            path_sl,
        } = build_parts(l, setup)?;
        setup.phase("network state");
        let credit_bytes = s.traffic.credit_bytes.0 as u32;
        let pkt_bytes = s.traffic.packet_bytes.0 as u32;
        let pkt_credits = pkt_bytes.div_ceil(credit_bytes);
        let buffers = match buffers {
            Some(b) => b,
            None => BufferChoice::for_scenario(
                l,
                fabric.hcas.len() as u32,
                credit_bytes as u64,
                pkt_credits as u64,
            )?,
        };
        let queue_scheme = buffers.scheme;
        let (lane_choice, vls, vlarb_table) = lanes(s, &traffic, path_sl.as_ref())?;
        let sink = SinkModel::from_config(&s.hca)?;

        let mut ports = PortLayout::new(s, &fabric, queue_scheme, vls, pkt_bytes, credit_bytes)?;
        let np = ports.node_of.len();
        let (credit_keeping, credits) =
            initial_credits(buffers, &mut ports, &fabric, vls, pkt_credits)?;
        let obuf = output_buffers(s, buffers, &credit_keeping, &ports, vls, pkt_credits)?;
        let requests = request_counts(queue_scheme, &ports, &fabric, vls);
        let mut cc = congestion_management(
            l,
            &ports,
            &fabric,
            &traffic,
            pkt_credits,
            multipath.as_ref(),
        )?;
        if let Some(v) = lane_choice.management_lane() {
            cc.use_management_lane(v);
        }
        let mut stats = statistics(s, &fabric, &ports.is_switch, ports.n_buf as usize * vls)?;
        if let (Some(ob), true) = (&obuf, s.stats.buffer_occupancy) {
            stats.track_output_buffers(ob.len());
        }
        let wheel_log_buckets = wheel_log_buckets(&ports.timing);
        let PortLayout {
            port_base,
            node_of,
            is_switch,
            peer,
            timing,
            in_cap,
            max_being_sent,
            queue_base,
            fill_base,
            buf_index,
            hca_of_node,
            n_fill,
            n_queues,
            n_buf: _,
        } = ports;
        let hca_gport: Vec<u32> = fabric.hcas.iter().map(|&h| port_base[h as usize]).collect();
        let sizing = match buffers.credits {
            CreditKeepingKind::SharedPool => None,
            CreditKeepingKind::Partitioned(z) => Some(z),
        };
        let adapter = crate::credit::endpoint::adapter::injection_queues(
            s,
            &credit_keeping,
            sizing,
            &hca_gport,
            &peer,
            vls,
            pkt_credits,
        )?;
        let n_credit_slots = credits.len();
        let plain_buffers = !queue_scheme.several_heads_per_output()
            && buffers.credits == CreditKeepingKind::SharedPool
            && obuf.is_none();
        // every check has passed: the run state, part by part
        let span = node_of
            .iter()
            .map(|&n| PortSpan {
                base: port_base[n as usize],
                ports: fabric.nodes[n as usize].ports.len() as u32,
            })
            .collect();
        let links = Links {
            port_base,
            node_of,
            span,
            is_switch,
            peer,
            timing: PortTimings::new(&timing),
            wire_free: vec![0; np],
            out_busy: vec![false; np],
            // (allocated by the run when its copy of the hot path defers credits)
            ready_at: Vec::new(),
            credits_due: Vec::new(),
            credits,
            flow_control: crate::credit::flow_control::FlowControlPackets::from_config(
                &s.links,
                n_credit_slots,
            ),
        };
        let arb = Arbitration::new(
            &fabric,
            &links.node_of,
            vls,
            requests,
            vlarb_table,
            plain_buffers,
        );
        let sw = SwitchBuffers {
            in_used: vec![0; np * vls],
            in_cap,
            input: (max_being_sent.iter().zip(&queue_base))
                .map(|(&max_being_sent, &queue_base)| SwitchInput {
                    queue_base,
                    being_sent: 0,
                    max_being_sent,
                })
                .collect(),
            buf_index,
            queue_scheme,
            credit_keeping,
            fill_base,
            fill: vec![0; n_fill as usize],
            queues: vec![Default::default(); n_queues as usize],
            obuf,
            input_delay: s.switch.input_delay.0,
            routing_delay: s.switch.routing_delay.0,
            output_delay: s.switch.output_delay.0,
        };
        let hcas = Endpoints {
            adapter,
            tx_cap: s.hca.max_tx_rate.map(|r| LinkRate::bps(r.0)),
            fairness_sources,
            ..Endpoints::new(hca_gport, hca_of_node, sink, n_credit_slots)
        };
        let routes = Routes {
            lft,
            multipath: multipath.map(Box::new),
            source_up: source_up.map(Box::new),
            spread: super::routing::multipath::spread(s),
            lane_choice,
            cdg,
            routes_checked,
            max_hops,
            balance,
        };
        Ok(Net {
            vls,
            credit_bytes,
            pkt_bytes,
            pkt_credits,
            fabric,
            links,
            arb,
            sw,
            hcas,
            routes,
            engine: Engine::new(
                wheel_log_buckets,
                s.sim.end_ps(),
                matches!(s.links.flow_control, crate::config::FlowControl::Packets),
            ),
            traffic,
            pkts: PacketStore::default(),
            cc,
            cc_out: Vec::new(),
            stats,
        })
    }
}

/// What `request_counts` sizes for the queue schemes where several heads of an input can
/// request one output: heads per (input, output, VL), the round robin among an input's
/// queues, the output-major head masks and their words per entry.
type RequestCounts = (Vec<u16>, Vec<u32>, Vec<u64>, usize);

impl Arbitration {
    /// Idle arbitration for the ports of `fabric` (`node_of` per gport) with `vls` lanes:
    /// nothing requested, every round-robin pointer set so that port 0 is served first.
    fn new(
        fabric: &Fabric,
        node_of: &[u32],
        vls: usize,
        (req_heads, head_rr, head_mask, head_words): RequestCounts,
        vlarb_table: VlArbTable,
        plain_buffers: bool,
    ) -> Self {
        let np = node_of.len();
        let max_ports = fabric
            .nodes
            .iter()
            .map(|n| n.ports.len())
            .max()
            .unwrap_or(1);
        let req_words = max_ports.div_ceil(64).max(1);
        let rr = (0..np * vls)
            .map(|g| (fabric.nodes[node_of[g / vls] as usize].ports.len() - 1) as u16)
            .collect();
        Arbitration {
            rr,
            req: vec![0; np * vls],
            req_mask: vec![0; np * vls * req_words],
            pick_skip: vec![0; np * vls * req_words],
            skip_outs: if req_words == 1 {
                vec![0; np]
            } else {
                Vec::new()
            },
            req_words,
            req_any: vec![0; np.div_ceil(64)],
            in_req: if max_ports > super::WIDE_SWITCH_PORTS {
                vec![0; np * req_words]
            } else {
                Vec::new()
            },
            req_heads,
            head_rr,
            head_mask,
            head_words,
            vlarb: vec![VlArbState::default(); np],
            vlarb_table,
            plain_buffers,
        }
    }
}

impl Endpoints {
    /// Idle end nodes (HCA `h` at gport `hca_gport[h]`), sinks of `sink`, `n_credit_slots`
    /// credit counters; no Input Adapter, rate cap or fairness sources.
    fn new(
        hca_gport: Vec<u32>,
        hca_of_node: Vec<u32>,
        sink: SinkModel,
        n_credit_slots: usize,
    ) -> Self {
        let n_hca = hca_gport.len();
        Endpoints {
            hca_gport,
            hca_of_node,
            sink,
            sink_q: vec![VecDeque::new(); n_hca],
            sink_busy: vec![false; n_hca],
            sink_steps: crate::credit::endpoint::delivery::SinkSteps::new(if sink.per_credit {
                n_hca
            } else {
                0
            }),
            next_tx: vec![0; n_hca],
            wake_at: vec![Ps::MAX; n_hca],
            ready: vec![Vec::new(); n_hca],
            ready_slot: vec![Vec::new(); n_hca],
            slot_waiting: vec![0; n_credit_slots],
            hca_rr: vec![0; n_hca],
            hca_blocked: vec![0; n_hca],
            control_q: vec![VecDeque::new(); n_hca],
            adapter: None,
            tx_cap: None,
            fairness_sources: None,
        }
    }
}

impl Engine {
    /// A run ending at `end`, its wheel of `2^log_buckets` buckets, nothing done yet. With
    /// `flow_control_packets` (every packet-hop schedules a flow-control packet for the current
    /// time: `flow_control.rs`) the wheel keeps the events of the current time in a list of
    /// their own (`EventQueue::with_now_list`).
    fn new(log_buckets: u32, end: Ps, flow_control_packets: bool) -> Self {
        let q = EventQueue::new(WHEEL_SHIFT, log_buckets);
        Engine {
            q: if flow_control_packets {
                q.with_now_list()
            } else {
                q
            },
            end,
            events: 0,
            flit_hops: 0,
            packet_hops: 0,
            last_progress: 0,
            deadlock: None,
            fault: None,
        }
    }
}

/// The lanes of every port and their arbitration: `switch.vls` data VLs, plus those of a source
/// lane choice that picks the VL itself ([`LaneChoice`], which also sets what it needs of the
/// arbitration); a VL that carries traffic, the CNPs or the lane choice's data but sits in
/// neither arbitration table could never be sent, and is refused.
fn lanes(
    s: &Scenario,
    traffic: &Traffic,
    path_sl: Option<&Arc<PathSl>>,
) -> Result<(LaneChoice, usize, VlArbTable)> {
    let lane_choice = LaneChoice::for_routes(s, path_sl)?;
    let vls = lane_choice.lanes(s.switch.vls);
    let mut vlarb_table = VlArbTable::from_config(&s.switch.vl_arbitration, s.switch.vls)?;
    let mut used: Vec<(u8, &str)> = traffic
        .sources
        .iter()
        .map(|src| (src.vl, "traffic"))
        .collect();
    if crate::credit::cc::sends_cnps(s) {
        // (a VL that does not exist is cc.cnp_vl's own error, below)
        if let Some(v) = s.cc.cnp_vl().filter(|&v| v < s.switch.vls) {
            used.push((v as u8, "the CNPs (cc.cnp_vl)"));
        }
    }
    if let Some(lanes) =
        lane_choice.arbitrate(&mut vlarb_table, &s.switch.vl_arbitration, traffic)?
    {
        used = lanes;
    }
    if let Some((v, what)) = used.into_iter().find(|(v, _)| !vlarb_table.serves(*v)) {
        return Err(Error::input(
            "switch.vl_arbitration",
            format!(
                "VL {v} carries {what} but is in neither the `high` nor the `low` table, so it could never be sent; allowed: every VL in use in one of them (e.g. `low = [[{v}, 255]]`)"
            ),
        ));
    }
    Ok((lane_choice, vls, vlarb_table))
}

/// The global port numbering (`port_base[node] + port`) and every per-port constant: timing,
/// buffer capacity, crossbar limit, and where a switch input's queues and fills start.
struct PortLayout {
    port_base: Vec<u32>,
    node_of: Vec<u32>,
    is_switch: Vec<bool>,
    peer: Vec<u32>,
    timing: Vec<PortTiming>,
    /// `[gport * vls + vl]`: input buffer capacity (credits).
    in_cap: Vec<u32>,
    max_being_sent: Vec<u16>,
    /// Per switch input: its first queue (`u32::MAX` elsewhere).
    queue_base: Vec<u32>,
    /// Per switch input: its first fill counter (`u32::MAX` elsewhere).
    fill_base: Vec<u32>,
    /// Per switch input: its tracked-buffer index when buffer occupancy is recorded.
    buf_index: Vec<u32>,
    hca_of_node: Vec<u32>,
    /// Fill counters, queues and tracked buffers in all.
    n_fill: u32,
    n_queues: u32,
    n_buf: u32,
}

impl PortLayout {
    fn new(
        s: &crate::config::Scenario,
        fabric: &Fabric,
        scheme: QueueScheme,
        vls: usize,
        pkt_bytes: u32,
        credit_bytes: u32,
    ) -> Result<Self> {
        // global ports are numbered in u32
        let total_ports: usize = fabric.nodes.iter().map(|n| n.ports.len()).sum();
        if total_ports.saturating_mul(vls) > u32::MAX as usize {
            return Err(Error::input(
                "topology",
                format!("{total_ports} ports × {vls} VLs are too many for the credit-level model"),
            ));
        }
        let mut port_base = Vec::with_capacity(fabric.nodes.len());
        let mut n_ports = 0u32;
        for n in &fabric.nodes {
            port_base.push(n_ports);
            n_ports += n.ports.len() as u32;
        }
        let np = n_ports as usize;
        let mut l = PortLayout {
            port_base,
            node_of: vec![0u32; np],
            is_switch: vec![false; np],
            peer: vec![0u32; np],
            timing: Vec::with_capacity(np),
            in_cap: vec![0u32; np * vls],
            max_being_sent: vec![1u16; np],
            queue_base: vec![u32::MAX; np],
            fill_base: vec![u32::MAX; np],
            buf_index: vec![u32::MAX; np],
            hca_of_node: vec![u32::MAX; fabric.nodes.len()],
            n_fill: 0,
            n_queues: 0,
            n_buf: 0,
        };
        for (i, &h) in fabric.hcas.iter().enumerate() {
            l.hca_of_node[h as usize] = i as u32;
        }
        for (ni, n) in fabric.nodes.iter().enumerate() {
            let sw = n.kind == NodeKind::Switch;
            let hz = if sw {
                s.switch.core_freq.0
            } else {
                s.hca.core_freq.0
            };
            for (pi, p) in n.ports.iter().enumerate() {
                let g = (l.port_base[ni] + pi as u32) as usize;
                l.node_of[g] = ni as u32;
                l.is_switch[g] = sw;
                l.peer[g] = l.port_base[p.peer as usize] + p.peer_port as u32;
                let internal = internal_rate(p.link.lanes, hz);
                l.timing.push(PortTiming {
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
                    l.in_cap[g * vls + v] = cap;
                }
                l.max_being_sent[g] = mbs as u16;
                if sw {
                    l.queue_base[g] = l.n_queues;
                    l.fill_base[g] = l.n_fill;
                    l.n_fill += (n.ports.len() * vls) as u32;
                    l.n_queues += scheme.queues_per_input(n.ports.len(), vls) as u32;
                    if s.stats.buffer_occupancy {
                        l.buf_index[g] = l.n_buf;
                        l.n_buf += 1;
                    }
                }
            }
        }
        Ok(l)
    }
}

/// How credits are kept, and what every output starts with: the full credit count of the
/// buffer at the other end (per VL, or per queue share). With space per queue a switch input's
/// VL capacity becomes the sum of its queues' shares (spec B.5 mode A rounds a queue up to
/// whole packets, mode B sizes queues alone).
fn initial_credits(
    buffers: BufferChoice,
    ports: &mut PortLayout,
    fabric: &Fabric,
    vls: usize,
    pkt_credits: u32,
) -> Result<(CreditKeeping, Vec<u32>)> {
    let np = ports.node_of.len();
    Ok(match buffers.credits {
        CreditKeepingKind::SharedPool => {
            let mut credits = vec![0u32; np * vls];
            for g in 0..np {
                for v in 0..vls {
                    credits[g * vls + v] = ports.in_cap[ports.peer[g] as usize * vls + v];
                }
            }
            (CreditKeeping::SharedPool(SharedPool), credits)
        }
        CreditKeepingKind::Partitioned(sizing) => {
            // a switch input has the scheme's queues, an HCA's receive buffer one per VL
            let counters: Vec<usize> = (0..np)
                .map(|g| {
                    if ports.is_switch[g] {
                        let n = fabric.nodes[ports.node_of[g] as usize].ports.len();
                        buffers.scheme.queues_per_input(n, vls)
                    } else {
                        vls
                    }
                })
                .collect();
            let p = PartitionedCredits::new(
                &counters,
                &ports.in_cap,
                &ports.peer,
                vls,
                pkt_credits,
                sizing,
                &ports.is_switch,
            )?;
            for g in 0..np {
                for v in 0..vls {
                    ports.in_cap[g * vls + v] = p.vl_space(g as u32, v, vls);
                }
            }
            let credits = p.initial_credits();
            (CreditKeeping::Partitioned(p), credits)
        }
    })
}

/// The output buffers of `switch.output_buffer_credits` (None when 0: the input-buffered
/// switch), one queue per credit counter of the input each switch port drives, sized as the
/// inputs' queues are (spec B.5). Refuses InfiniBand CC with them (it reads input fills only:
/// `switch/output_buffer.rs`).
fn output_buffers(
    s: &crate::config::Scenario,
    buffers: BufferChoice,
    keeping: &CreditKeeping,
    ports: &PortLayout,
    vls: usize,
    pkt_credits: u32,
) -> Result<Option<OutputBuffers>> {
    let c = s.switch.output_buffer_credits;
    if c == 0 {
        if s.switch.output_weights.is_some() {
            return Err(Error::input(
                "switch.output_weights",
                "is only for switch.output_buffer_credits > 0: the weights are those of the output link's weighted round robin among its output queues (spec B.5), and without output buffers there are none; remove it or set switch.output_buffer_credits",
            ));
        }
        return Ok(None);
    }
    // the DRB paper's mechanisms monitor the input buffers a packet leaves (drb spec A.10
    // item 7): they run with output buffers; the IBA's CC reads per-output fills of the inputs
    if s.cc.enabled && s.cc.mechanism == crate::config::CcMechanism::Ib {
        return Err(Error::input(
            "switch.output_buffer_credits",
            "output buffers cannot run with cc.enabled = true and cc.mechanism = \"ib\": InfiniBand CC decides congestion from the input buffers' per-output fills, which no longer hold the backlog; allowed: 0 (no output buffers) with that CC, cc.mechanism = \"drb\" or \"ib_s1\", or cc.enabled = false",
        ));
    }
    let sizing = match buffers.credits {
        CreditKeepingKind::SharedPool => None,
        CreditKeepingKind::Partitioned(z) => Some(z),
    };
    OutputBuffers::new(
        c,
        keeping,
        sizing,
        &ports.is_switch,
        &ports.peer,
        vls,
        pkt_credits,
        s.switch.output_weights.as_deref(),
    )
    .map(Some)
}

/// Where several queues of an input may request one output: the count of requesting heads per
/// (input, output, VL), and per (input, VL) the class of the queue served last (round robin
/// among them, starting at class 0). Empty otherwise.
fn request_counts(
    scheme: QueueScheme,
    ports: &PortLayout,
    fabric: &Fabric,
    vls: usize,
) -> RequestCounts {
    if !scheme.several_heads_per_output() {
        return (Vec::new(), Vec::new(), Vec::new(), 0);
    }
    let np = ports.node_of.len();
    let mut rr = vec![0u32; np * vls];
    let mut most = 1;
    for g in 0..np {
        let n = fabric.nodes[ports.node_of[g] as usize].ports.len();
        let classes = scheme.queues_per_vl(n);
        most = most.max(classes);
        let last = classes.saturating_sub(1) as u32;
        rr[g * vls..(g + 1) * vls].fill(last);
    }
    let words = most.div_ceil(64);
    let n_fill = ports.n_fill as usize;
    (vec![0u16; n_fill], rr, vec![0u64; n_fill * words], words)
}

/// The congestion-management mechanism of `[cc]` (every key checked even when off).
fn congestion_management(
    l: &LoadedScenario,
    ports: &PortLayout,
    fabric: &Fabric,
    traffic: &Traffic,
    pkt_credits: u32,
    multipath: Option<&MultipathRoutes>,
) -> Result<CongestionManagement> {
    let s = &l.scenario;
    let class: Vec<LinkClass> = fabric
        .nodes
        .iter()
        .flat_map(|n| n.ports.iter().map(|p| p.class))
        .collect();
    let node_base: Vec<u32> = ports
        .node_of
        .iter()
        .map(|&n| ports.port_base[n as usize])
        .collect();
    CongestionManagement::from_config(
        s,
        fabric,
        traffic,
        &CcContext {
            vls: s.switch.vls as usize,
            pkt_credits,
            is_switch: &ports.is_switch,
            class: &class,
            node_base: &node_base,
            in_cap: &ports.in_cap,
            n_hca: fabric.hcas.len(),
            seed: s.sim.seed,
            base_dir: &l.base_dir,
            multipath,
            given: &|k| l.given(k),
            sources_pick_lanes: crate::credit::lanes::LaneChoice::for_scenario(s)?.picks_lanes(),
        },
    )
}

/// The statistics collectors: per HCA and interval, and per tracked buffer and VL (`buffers`
/// counters) when `stats.buffer_occupancy` is set; per switch output (`is_switch` per global
/// port) and interval when `stats.links` or `stats.hotspot` is set, with the hot spot resolved
/// (drb-and-ddbbm spec A.6, A.7).
fn statistics(
    s: &crate::config::Scenario,
    fabric: &Fabric,
    is_switch: &[bool],
    buffers: usize,
) -> Result<Stats> {
    let warmup = s.sim.warmup.0;
    let window = s.stats.fairness_from.map(|d| d.0).unwrap_or(warmup);
    let mut st = Stats::new(
        s.sim.end_ps(),
        s.sim.interval.0,
        fabric.hcas.len(),
        s.stats.buffer_occupancy.then_some(buffers),
        warmup,
        window,
    );
    st.hotspot = crate::credit::stats::links::resolve_hotspot(s, fabric)?;
    if s.stats.links || st.hotspot.is_some() {
        st.track_links(is_switch);
        if let Some(l) = &mut st.links {
            l.at_injection = s.stats.link_measure == crate::config::LinkMeasure::Routed;
        }
    }
    Ok(st)
}

/// Buckets of the timing wheel (log2): it reaches just past the longest packet time (most
/// events land within one packet time); a wheel no larger than needed keeps its buckets in
/// cache.
fn wheel_log_buckets(timing: &[PortTiming]) -> u32 {
    let longest = timing
        .iter()
        .map(|t| t.ser_pkt.max(t.int_pkt).saturating_add(t.delay))
        .max()
        .unwrap_or(0);
    (longest >> WHEEL_SHIFT)
        .max(1)
        .next_power_of_two()
        .trailing_zeros()
        .clamp(8, 14)
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
    let links: usize = net.links.peer.len() / 2;
    let statics = net.traffic.flows.iter().filter(|f| f.is_static).count();
    let gens = net.traffic.sources.len() - statics;
    let routing = crate::credit::routing::describe(s);
    let mut out = String::new();
    out.push_str(&format!("scenario {}: OK (credit-level model)\n", l.name));
    out.push_str(&format!(
        "  topology: {}, {} switches, {} HCAs, {} links\n",
        s.topology.kind().name(),
        net.fabric.switches.len(),
        net.fabric.hcas.len(),
        links
    ));
    if let Some(ib) = &net.fabric.ib {
        for w in &ib.warnings {
            out.push_str(&format!("  warning: {w}\n"));
        }
    }
    out.push_str(&format!(
        "  routing: {routing}, {} routes checked, longest {} switch hops\n",
        net.routes.routes_checked, net.routes.max_hops
    ));
    let (isl, all) = (
        net.routes.balance.switch_links(&net.fabric),
        net.routes.balance.all_links(&net.fabric),
    );
    out.push_str(&format!(
        "  routes per link (every HCA pair): switch links max {} mean {:.2} min {} (max/mean {:.3}); all links max {} mean {:.2} min {}\n",
        isl.max, isl.mean, isl.min, isl.max_over_mean(), all.max, all.mean, all.min
    ));
    if let Some(t) = net.routes.lane_choice.path_sl() {
        let per: Vec<String> = t.pairs_per_sl().iter().map(|n| n.to_string()).collect();
        out.push_str(&format!(
            "  VL layers: {} (the routing's SL per source and destination LID, deadlock-free per layer); pairs per layer {}\n",
            t.pairs_per_sl().len(),
            per.join(", ")
        ));
    }
    out.push_str(&format!(
        "  traffic: {statics} static flows, {gens} generator sources\n"
    ));
    if let Some(what) = CongestionManagement::describe(&l.scenario) {
        out.push_str(&format!("  congestion management: {what}\n"));
    }
    if let Some(mp) = &net.routes.multipath {
        let hist = mp.count_histogram();
        let spread: Vec<String> = hist
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n > 0)
            .map(|(k, n)| format!("{n} pairs with {k}"))
            .collect();
        let disjoint = match mp.mode {
            crate::config::PathMode::PerPair => "link-disjoint paths".to_string(),
            crate::config::PathMode::IbFaithful => {
                let d = mp.disjointness(&net.fabric);
                format!(
                    "paths, one tree per LID alias ({} of {} pairs with alternatives fully link-disjoint, {:.2} shared links per pair)",
                    d.fully_disjoint, d.pairs, d.mean_shared_links
                )
            }
        };
        out.push_str(&format!(
            "  multipath (drb, {}, LMC {}): up to {} {disjoint} per pair: {}; {} VL layers; {} paths, {} bytes\n",
            mp.mode.name(),
            crate::credit::routing::multipath_routes::lmc(mp.max_paths),
            mp.max_paths,
            spread.join(", "),
            mp.layers,
            mp.total_paths(),
            mp.bytes()
        ));
    }
    match &net.routes.cdg.cycle {
        None => out.push_str(&format!(
            "  deadlock check: channel-dependency graph acyclic (channels: {}, dependencies: {}{})\n",
            net.routes.cdg.channels,
            net.routes.cdg.dependencies,
            if net.routes.multipath.is_some() {
                ", every multipath route on its VL layer"
            } else {
                ""
            }
        )),
        Some(c) => out.push_str(&format!(
            "  deadlock check: CYCLIC, {} channels: {} (allowed by sim.allow_deadlock; the run may deadlock and then exits 3)\n",
            c.len(),
            net.routes.cdg.describe_cycle(&net.fabric, CYCLE_SHOWN)
        )),
    }
    if let Some(bps) = net.hcas.sink.effective_bps() {
        out.push_str(&format!(
            "  sink: drains at {:.3} Gbit/s on average\n",
            bps / 1e9
        ));
    }
    if let Some(ad) = &net.hcas.adapter {
        out.push_str(&format!("  injection: {}\n", ad.describe()));
    }
    if let (Some(ob), Some(_)) = (&net.sw.obuf, &s.switch.output_weights) {
        out.push_str(&format!("  output links: {}\n", ob.describe_weights()));
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
