//! Building the cycle-level network from a scenario: strict checks of the keys that apply,
//! the topology (Dragonfly or mesh/torus), the routing with its VC rules and the
//! channel-dependency check, buffers, terminals and their traffic.

use super::packet::{PacketSlab, NIL};
use super::results::CycleStats;
use super::{CycleNet, PortKind, PortState, RouterState, TermState, VcOut, VcState};
use crate::config::{LoadedScenario, RoutingAlgorithm, TopologyKind};
use crate::engine::progress::SetupProgress;
use crate::engine::rng::{purpose, stream};
use crate::error::{Error, Result};
use crate::routing::candidates::{Algorithm, CycleRouting, MeshGeometry, RoutedTopology};
use crate::routing::channel_dependency;
use crate::routing::piggyback::PiggybackState;
use crate::routing::valiant::VlbPolicy;
use crate::routing::vc_template::{HopClass, VcTemplate};
use crate::topology::{self, LinkClass, LinkParams, LinkRate, NodeKind, Shape};
use crate::traffic::synthetic::{Geometry, SyntheticTraffic};

/// Random-stream purpose of Valiant intermediate draws.
const VALIANT: u64 = 11;

/// Longest mesh/torus dimension of the cycle-level model, in routers (a 4096-router line takes
/// its channel-dependency check about 3 s; BookSim-sized networks are 64 × 64 or 16⁴).
pub(crate) const MAX_DIMENSION: usize = 4096;

/// Slots of the event calendar: one per cycle of the longest delay an event is scheduled ahead
/// (the longest link, plus the router latency and two packet serialisations), rounded up to a
/// power of two, at least 64. Shared by the builder and the memory estimate; the latency keys
/// are bounded (`config::keys`), so the sum cannot overflow.
pub(crate) fn calendar_slots(rc: &crate::config::RouterConfig, pkt_phits: u64) -> u64 {
    let longest = [
        rc.global_latency,
        rc.local_latency,
        rc.injection_latency,
        rc.ejection_latency,
    ]
    .into_iter()
    .max()
    .unwrap_or(1)
    .saturating_add(rc.latency)
    .saturating_add(2 * pkt_phits + 2);
    longest
        .saturating_add(1)
        .checked_next_power_of_two()
        .unwrap_or(u64::MAX)
        .max(64)
}

fn positive(key: &str, v: u64) -> Result<()> {
    if v == 0 {
        return Err(Error::input(key, "must be at least 1"));
    }
    Ok(())
}

/// Checks a cycle-level scenario and builds everything a run needs, with the constructor a run
/// uses, running nothing; returns a short report (`lnsim validate`).
pub fn validate_cycle(l: &LoadedScenario) -> Result<String> {
    use std::io::IsTerminal;
    let mut setup = SetupProgress::new(std::io::stderr().is_terminal());
    let net = CycleNet::build(l, &mut setup)?;
    setup.finish();
    let policy = match net.routing.alg {
        Algorithm::Vlb | Algorithm::Ugal | Algorithm::Pb => {
            format!(" ({})", net.routing.policy.name())
        }
        _ => String::new(),
    };
    Ok(format!(
        "scenario {}: OK (cycle-level model)\n  topology: {}, {} routers, {} terminals\n  \
         routing: {}{policy}, {} VCs per port (max), channel-dependency graph acyclic\n  \
         traffic: {}\n  sim: {} warm-up + {} measured cycles, seed {}\n",
        l.name,
        net.stats.topology,
        net.routers,
        net.terminals,
        net.routing.alg.name(),
        net.vcs,
        net.traffic.label(),
        net.warmup,
        net.end - net.warmup,
        l.scenario.sim.seed,
    ))
}

impl CycleNet {
    /// Builds the network of a cycle-level scenario (no set-up display).
    #[cfg(test)]
    pub(crate) fn new(l: &LoadedScenario) -> Result<Self> {
        Self::build(l, &mut SetupProgress::hidden())
    }

    /// Builds the network of a cycle-level scenario, naming its phases to `setup`.
    pub(crate) fn build(l: &LoadedScenario, setup: &mut SetupProgress) -> Result<Self> {
        setup.phase("checking keys");
        let s = &l.scenario;
        let rc = &s.router;
        let measure = s.sim.measure_cycles.ok_or_else(|| {
            Error::input(
                "sim.measure_cycles",
                "required by the cycle-level model (e.g. 60000, spec §5)",
            )
        })?;
        positive("sim.measure_cycles", measure)?;
        let warmup = s.sim.warmup_cycles.unwrap_or(0);
        let pkt_phits = s.traffic.packet_phits.unwrap_or(10);
        positive("traffic.packet_phits", pkt_phits as u64)?;
        positive("router.speedup", rc.speedup as u64)?;
        positive(
            "router.allocator_iterations",
            rc.allocator_iterations as u64,
        )?;
        positive("router.latency", rc.latency)?;
        positive("router.local_latency", rc.local_latency)?;
        positive("router.global_latency", rc.global_latency)?;
        for (k, v) in [
            ("router.local_latency", rc.local_latency),
            ("router.global_latency", rc.global_latency),
            ("router.ejection_latency", rc.ejection_latency),
        ] {
            if v > u32::MAX as u64 {
                return Err(Error::input(k, "at most 4294967295 cycles"));
            }
        }
        for (k, v) in [
            ("router.injection_queue_phits", rc.injection_queue_phits),
            ("router.local_buffer_phits", rc.local_buffer_phits),
            ("router.global_buffer_phits", rc.global_buffer_phits),
            ("router.output_buffer_phits", rc.output_buffer_phits),
        ] {
            if v < pkt_phits {
                return Err(Error::input(
                    k,
                    format!("{v} phits cannot hold one packet of {pkt_phits} phits (virtual cut-through needs room for a whole packet)"),
                ));
            }
        }
        let sat_queue = s.sim.saturation_queue_packets.unwrap_or(50.0);
        if !(sat_queue > 0.0 && sat_queue.is_finite()) {
            return Err(Error::input(
                "sim.saturation_queue_packets",
                "must be a positive number of packets",
            ));
        }
        let bin_cycles = s.stats.bin_cycles.unwrap_or(1000);
        positive("stats.bin_cycles", bin_cycles)?;
        if (warmup + measure) / bin_cycles > 1_000_000 {
            return Err(Error::input(
                "stats.bin_cycles",
                "gives more than a million bins; choose a wider bin",
            ));
        }
        // the mesh/torus channel-dependency check walks every pair of routers of each line:
        // its cost grows with the square of a dimension's length
        if let Some(dims) = &s.topology.dims {
            if let Some(&d) = dims.iter().find(|&&d| d > MAX_DIMENSION as _) {
                return Err(Error::input(
                    "topology.dims",
                    format!("a dimension of {d} routers is longer than the cycle-level model allows ({MAX_DIMENSION}: the channel-dependency check of a dimension costs the square of its length); use more dimensions"),
                ));
            }
        }

        // topology: the fabric graph (link parameters do not apply in this model)
        setup.phase("topology");
        let lp = LinkParams {
            rate: LinkRate::bps(1),
            delay_ps: 0,
            lanes: 1,
        };
        let t = &s.topology;
        let fabric = match t.kind {
            TopologyKind::Dragonfly => topology::dragonfly::build(t, lp, lp)?,
            TopologyKind::Mesh | TopologyKind::Torus => topology::mesh_torus::build(t, lp, lp)?,
            other => {
                return Err(Error::input(
                    "topology.kind",
                    format!("\"{}\" is not available in the cycle-level model; allowed: dragonfly, mesh, torus", other.name()),
                ))
            }
        };
        fabric.check()?;
        let routers = fabric.switches.len() as u32;
        let radix = fabric
            .switches
            .iter()
            .map(|&n| fabric.nodes[n as usize].ports.len() as u32)
            .max()
            .unwrap_or(0);
        if radix > 64 {
            return Err(Error::input(
                "topology",
                format!("routers of {radix} ports; the cycle-level router supports up to 64"),
            ));
        }
        // router ports are numbered in u32 and split without a division (`split_gp`, exact
        // while port · radix < 2³²)
        if routers as u64 * radix as u64 * radix as u64 > 1 << 32 {
            return Err(Error::input(
                "topology",
                format!("{routers} routers of {radix} ports; too many for the cycle-level model"),
            ));
        }
        // switch ids are 0..routers in naming order (both builders create switches first)
        for (i, &n) in fabric.switches.iter().enumerate() {
            if n as usize != i {
                return Err(Error::Internal(
                    "cycle model: switches are not numbered first".into(),
                ));
            }
        }

        // routing
        setup.phase("routing");
        let r = &s.routing;
        let dragonfly = matches!(fabric.shape, Shape::Dragonfly(_));
        let alg = match (r.algorithm, dragonfly) {
            (None, true) => {
                return Err(Error::input(
                    "routing.algorithm",
                    "required for a Dragonfly: min, vlb, ugal or pb",
                ))
            }
            (Some(RoutingAlgorithm::Min), true) => Algorithm::Min,
            (Some(RoutingAlgorithm::Vlb), true) => Algorithm::Vlb,
            (Some(RoutingAlgorithm::Ugal), true) => Algorithm::Ugal,
            (Some(RoutingAlgorithm::Pb), true) => Algorithm::Pb,
            (Some(other), true) => {
                return Err(Error::input(
                    "routing.algorithm",
                    format!("\"{}\" does not route a Dragonfly; allowed: min, vlb, ugal, pb", other.name()),
                ))
            }
            (None | Some(RoutingAlgorithm::Dor), false) => Algorithm::Dor,
            (Some(RoutingAlgorithm::Vlb), false) => Algorithm::MeshVlb,
            (Some(other), false) => {
                return Err(Error::input(
                    "routing.algorithm",
                    format!("\"{}\" does not route a mesh or torus in the cycle-level model; allowed: dor, vlb", other.name()),
                ))
            }
        };
        let reject = |key: &str, set: bool, why: &str| -> Result<()> {
            if set {
                Err(Error::input(key, why.to_string()))
            } else {
                Ok(())
            }
        };
        let valiant_like = matches!(alg, Algorithm::Vlb | Algorithm::Ugal | Algorithm::Pb);
        reject(
            "routing.vlb_policy",
            r.vlb_policy.is_some() && !valiant_like,
            "applies to Dragonfly vlb, ugal and pb",
        )?;
        reject(
            "routing.valiant_source_group",
            r.valiant_source_group.is_some() && !valiant_like,
            "applies to Dragonfly vlb, ugal and pb",
        )?;
        reject(
            "routing.ugal_threshold",
            r.ugal_threshold.is_some() && !matches!(alg, Algorithm::Ugal | Algorithm::Pb),
            "applies to ugal and pb",
        )?;
        reject(
            "routing.pb_factor",
            r.pb_factor.is_some() && alg != Algorithm::Pb,
            "applies to pb",
        )?;
        reject(
            "routing.pb_threshold",
            r.pb_threshold.is_some() && alg != Algorithm::Pb,
            "applies to pb",
        )?;
        reject(
            "routing.vc_template",
            r.vc_template.is_some() && !dragonfly,
            "applies to Dragonflies (meshes and tori use VC classes)",
        )?;
        reject(
            "routing.dateline",
            r.dateline.is_some() && t.kind != TopologyKind::Torus,
            "applies to tori",
        )?;
        reject(
            "router.global_vcs",
            rc.global_vcs.is_some() && !dragonfly,
            "applies to Dragonflies",
        )?;
        let policy = VlbPolicy::parse(r.vlb_policy.unwrap_or_default().name())?;
        let template = match &r.vc_template {
            Some(items) => VcTemplate::parse(items)?,
            None if alg == Algorithm::Min => VcTemplate::minimal(),
            None => VcTemplate::valiant(),
        };
        let dateline = r.dateline.unwrap_or(true);
        let torus = t.kind == TopologyKind::Torus;
        let classes: u32 = if dragonfly {
            1
        } else {
            (if alg == Algorithm::MeshVlb { 2 } else { 1 })
                * (if torus && dateline { 2 } else { 1 })
        };
        let (local_vcs, global_vcs) = if dragonfly {
            let need_l = template.vcs(HopClass::Local);
            let need_g = template.vcs(HopClass::Global);
            let lv = rc.local_vcs.unwrap_or(need_l);
            let gv = rc.global_vcs.unwrap_or(need_g);
            if lv < need_l {
                return Err(Error::input(
                    "router.local_vcs",
                    format!("{lv} VCs; the routing's VC template needs {need_l} on local ports"),
                ));
            }
            if gv < need_g {
                return Err(Error::input(
                    "router.global_vcs",
                    format!("{gv} VCs; the routing's VC template needs {need_g} on global ports"),
                ));
            }
            (lv, gv)
        } else {
            let lv = rc.local_vcs.unwrap_or(classes);
            if lv == 0 || !lv.is_multiple_of(classes) {
                return Err(Error::input(
                    "router.local_vcs",
                    format!("{lv} VCs; this routing uses {classes} VC classes (Valiant phases × torus dateline classes), so give a positive multiple of {classes}"),
                ));
            }
            (lv, 1)
        };
        if local_vcs > 64 || global_vcs > 64 {
            return Err(Error::input("router.local_vcs", "at most 64 VCs per port"));
        }
        let vcs = local_vcs.max(global_vcs);
        // (port, VC) channels are numbered in u32
        if routers as u64 * radix as u64 * vcs as u64 > u32::MAX as u64 {
            return Err(Error::input(
                "topology",
                format!("{routers} routers of {radix} ports with {vcs} VCs each are too many channels for the cycle-level model"),
            ));
        }
        let mut topo = match &fabric.shape {
            Shape::Dragonfly(d) => RoutedTopology::Dragonfly(*d),
            Shape::MeshTorus {
                dims,
                torus,
                minus_port,
                plus_port,
            } => RoutedTopology::Mesh(MeshGeometry {
                dims: dims.clone(),
                torus: *torus,
                coords: (0..routers)
                    .map(|i| fabric.nodes[i as usize].coords.clone())
                    .collect(),
                minus: minus_port
                    .iter()
                    .map(|v| v.iter().map(|p| p.unwrap_or(u16::MAX)).collect())
                    .collect(),
                plus: plus_port
                    .iter()
                    .map(|v| v.iter().map(|p| p.unwrap_or(u16::MAX)).collect())
                    .collect(),
                dateline,
                dor_table: Vec::new(),
            }),
            _ => return Err(Error::Internal("cycle model: unexpected shape".into())),
        };
        if let RoutedTopology::Mesh(m) = &mut topo {
            if alg == Algorithm::Dor {
                m.precompute_dor();
            }
        }
        let routing = CycleRouting {
            alg,
            topo,
            policy,
            source_group: r.valiant_source_group.unwrap_or(false),
            ugal_t_phits: r.ugal_threshold.unwrap_or(0) * pkt_phits as i64,
            pb_factor: r.pb_factor.unwrap_or(120) as u64,
            pb_t_phits: r.pb_threshold.unwrap_or(5) as u64 * pkt_phits as u64,
            template,
            local_vcs: local_vcs as u8,
            classes: classes as u8,
            df: None,
        }
        .with_tables();

        // ports
        setup.phase("ports and buffers");
        let np = (routers * radix) as usize;
        let mut kind = vec![PortKind::Unused; np];
        let mut peer = vec![u32::MAX; np];
        let mut term_of = vec![u32::MAX; np];
        let mut nvc = vec![0u8; np];
        let mut lat = vec![0u64; np];
        let mut in_cap = vec![0u32; np * vcs as usize];
        let mut global_ports = Vec::new();
        let mut term_gp = vec![0u32; fabric.hcas.len()];
        let hca_index: std::collections::HashMap<u32, u32> = fabric
            .hcas
            .iter()
            .enumerate()
            .map(|(i, &n)| (n, i as u32))
            .collect();
        for rtr in 0..routers {
            for (p, port) in fabric.nodes[rtr as usize].ports.iter().enumerate() {
                let gp = (rtr * radix) as usize + p;
                let far = &fabric.nodes[port.peer as usize];
                let (k, n, l, cap) = if far.kind == NodeKind::Hca {
                    let ti = hca_index[&port.peer];
                    term_gp[ti as usize] = gp as u32;
                    term_of[gp] = ti;
                    (
                        PortKind::Terminal,
                        1,
                        rc.ejection_latency,
                        rc.injection_queue_phits,
                    )
                } else if port.class == LinkClass::Global {
                    global_ports.push(gp as u32);
                    peer[gp] = port.peer * radix + port.peer_port as u32;
                    (
                        PortKind::Global,
                        global_vcs,
                        rc.global_latency,
                        rc.global_buffer_phits,
                    )
                } else {
                    peer[gp] = port.peer * radix + port.peer_port as u32;
                    (
                        PortKind::Local,
                        local_vcs,
                        rc.local_latency,
                        rc.local_buffer_phits,
                    )
                };
                kind[gp] = k;
                nvc[gp] = n as u8;
                lat[gp] = l;
                for v in 0..n as usize {
                    in_cap[gp * vcs as usize + v] = cap;
                }
            }
        }
        // a link has the same latency both ways: the allocator sends an input's credits back
        // with the latency of its own port's record
        for gp in 0..np {
            if peer[gp] != u32::MAX && lat[gp] != lat[peer[gp] as usize] {
                return Err(Error::Internal(format!(
                    "cycle model: the link at router port {gp} has different latencies each way"
                )));
            }
        }
        // credits of an output: the capacity of the input buffer at the far end, which is a
        // port of the same kind (the capacities are kept per kind)
        let mut credit_cap = vec![0u32; np * vcs as usize];
        for gp in 0..np {
            if peer[gp] != u32::MAX {
                if kind[gp] != kind[peer[gp] as usize] {
                    return Err(Error::Internal(format!(
                        "cycle model: the link at router port {gp} joins ports of different kinds"
                    )));
                }
                for v in 0..nvc[gp] as usize {
                    credit_cap[gp * vcs as usize + v] =
                        in_cap[peer[gp] as usize * vcs as usize + v];
                }
            }
        }
        let mut in_cap_of = [0u32; 4];
        in_cap_of[PortKind::Terminal as usize] = rc.injection_queue_phits;
        in_cap_of[PortKind::Local as usize] = rc.local_buffer_phits;
        in_cap_of[PortKind::Global as usize] = rc.global_buffer_phits;
        let mut credit_cap_of = in_cap_of;
        credit_cap_of[PortKind::Terminal as usize] = 0;

        // deadlock freedom by construction, checked
        setup.phase("channel-dependency check");
        let link = |rt: u32, p: u32| -> Option<(u32, u32)> {
            let g = (rt * radix + p) as usize;
            (peer[g] != u32::MAX).then(|| (peer[g] / radix, peer[g] % radix))
        };
        let cdg = channel_dependency::build(&routing, routers, radix, vcs, &link)?;
        if let Some(cycle) = cdg.find_cycle() {
            let names: Vec<String> = cycle
                .iter()
                .take(12)
                .map(|&(rt, p, g)| {
                    format!(
                        "{} port {p} {}",
                        fabric.nodes[rt as usize].name,
                        cdg.vc_label(g)
                    )
                })
                .collect();
            let key = if r.vc_template.is_some() {
                "routing.vc_template"
            } else if r.dateline == Some(false) {
                "routing.dateline"
            } else {
                "routing"
            };
            return Err(Error::input(
                key,
                format!(
                    "the channel-dependency graph of this routing and VC assignment has a cycle of {} channels, so the network can deadlock: {}{}",
                    cycle.len(),
                    names.join(" → "),
                    if cycle.len() > 12 { " → …" } else { "" }
                ),
            ));
        }

        // traffic
        setup.phase("traffic");
        let geo = match &fabric.shape {
            Shape::Dragonfly(d) => Geometry::Dragonfly(*d),
            Shape::MeshTorus { dims, torus, .. } => Geometry::MeshTorus {
                dims: dims.clone(),
                torus: *torus,
                per_router: t.hcas_per_switch.unwrap_or(1),
            },
            _ => unreachable!("checked above"),
        };
        let traffic = SyntheticTraffic::from_config(&s.traffic, &geo, warmup)?;
        let terminals = fabric.hcas.len() as u32;
        if traffic.terminals() != terminals {
            return Err(Error::Internal(
                "traffic and topology disagree on the terminals".into(),
            ));
        }
        let seed = s.sim.seed;
        let term_router: Vec<u32> = term_gp.iter().map(|&g| g / radix).collect();

        // calendar: deep enough for the longest delay scheduled ahead
        let cal_len = calendar_slots(rc, pkt_phits as u64);
        setup.phase("network state");
        let end = warmup + measure;
        let pb =
            (alg == Algorithm::Pb).then(|| PiggybackState::new(routers as usize, rc.local_latency));
        let stats = CycleStats::new(routers, terminals, warmup, end, bin_cycles);
        let mut net = CycleNet {
            pkt_phits,
            xbar_cycles: (pkt_phits as u64).div_ceil(rc.speedup as u64),
            router_latency: rc.latency,
            iterations: rc.allocator_iterations,
            radix,
            radix_magic: if radix == 0 {
                0
            } else {
                (1u64 << 32).div_ceil(radix as u64)
            },
            vcs,
            routers,
            terminals,
            inj_latency: rc.injection_latency,
            ej_latency: rc.ejection_latency,
            warmup,
            end,
            sat_queue,
            sat_min: s.sim.saturation_min_cycles.unwrap_or(5000),
            port: (0..np)
                .map(|g| PortState {
                    kind: kind[g],
                    nvc: nvc[g],
                    last_vc: 0,
                    in_ptr: 0,
                    out_ptr: 0,
                    link_ptr: 0,
                    flags: 0,
                    peer: if kind[g] == PortKind::Terminal {
                        term_of[g]
                    } else {
                        peer[g]
                    },
                    in_count: 0,
                    out_count: 0,
                    latency: lat[g] as u32,
                    link_free: 0,
                    xin_free: 0,
                    xout_free: 0,
                    out_wake_at: u64::MAX,
                    in_vcs: 0,
                })
                .collect(),
            vout: (0..np * vcs as usize)
                .map(|i| VcOut {
                    q: super::packet::OutQueue::EMPTY,
                    credits: credit_cap[i],
                    used: 0,
                })
                .collect(),
            vc: (0..np * vcs as usize)
                .map(|_| VcState {
                    in_q: (NIL, NIL),
                    head_route: u32::MAX,
                    in_used: 0,
                })
                .collect(),
            out_cap: rc.output_buffer_phits,
            in_cap_of,
            credit_cap_of,
            rs: vec![RouterState::default(); routers as usize],
            link_work: vec![0; routers.div_ceil(64) as usize],
            alloc_work: vec![0; routers.div_ceil(64) as usize],
            scratch_req: [(0, 0); 64],
            scratch_want: [0; 64],
            routing,
            route_table: Vec::new(),
            pb,
            global_ports,
            rng_router: (0..routers)
                .map(|i| stream(seed, i as u64, VALIANT))
                .collect(),
            router_names: (0..routers)
                .map(|i| fabric.nodes[i as usize].name.clone())
                .collect(),
            term_router,
            term_gp,
            term: vec![
                TermState {
                    backlog: (NIL, NIL),
                    backlog_len: 0,
                    credits: rc.injection_queue_phits,
                    link_free: 0,
                    try_at: u64::MAX,
                    epoch: 0,
                };
                terminals as usize
            ],
            rng_term: (0..terminals)
                .map(|i| stream(seed, (1 << 32) | i as u64, purpose::ARRIVALS))
                .collect(),
            traffic,
            gen_prob: 0.0,
            gen_log_q: 0.0,
            pkts: PacketSlab::new(),
            cal: super::calendar::Calendar::new(cal_len),
            now: 0,
            fault: None,
            always_wake: false,
            prefetch: false,
            stats,
        };
        net.prefetch = net.hot_bytes() > super::prefetch::PREFETCH_MIN_BYTES;
        net.stats.topology = match &fabric.shape {
            Shape::Dragonfly(d) => format!(
                "dragonfly p={} a={} h={} {}",
                d.p,
                d.a,
                d.h,
                t.arrangement.unwrap_or_default().name()
            ),
            Shape::MeshTorus { dims, torus, .. } => format!(
                "{} {}",
                if *torus { "torus" } else { "mesh" },
                dims.iter()
                    .rev()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join("x")
            ),
            _ => String::new(),
        };
        Ok(net)
    }

    /// Bytes of the records the cycle loop touches at random (for [`CycleNet::prefetch`]): the
    /// port, VC and router records and the terminals' generators. The packet records come on
    /// top; they are left out because their number depends on the load (an injection queue
    /// bound would count thousands of packets on a small mesh that never holds them).
    fn hot_bytes(&self) -> usize {
        use std::mem::size_of;
        self.port.len() * size_of::<PortState>()
            + self.vout.len() * size_of::<VcOut>()
            + self.vc.len() * size_of::<VcState>()
            + self.rs.len() * size_of::<RouterState>()
            + self.rng_term.len() * size_of::<rand_chacha::ChaCha8Rng>()
    }
}
