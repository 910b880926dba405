//! The cycle-level model's parameters, resolved once from the scenario: every default the model
//! applies and every check of a single value or key, in one place. The builder
//! ([`super::build`]) and the memory estimate ([`super::memory`]) read these only.
//!
//! Defaults: every key with a fixed default has it declared beside its field in
//! [`crate::config::schema`] (the router's are the Dragonfly spec's Table 3-1); the defaults
//! that depend on the topology are here ([`default`]: a mesh or torus routes by DOR), and the
//! VCs per port follow from the routing ([`RoutingParams`]): on a Dragonfly what its VC
//! template needs (spec §3.0.3), on a mesh or torus one VC per class. A routing algorithm's own
//! keys belong to the algorithm ([`crate::cycle::routing::algorithm::CycleAlgorithm::new`]),
//! which applies the defaults that depend on it (`routing.recompute`, `routing.acor.it2`).

use crate::config::{
    kinds, LoadedScenario, RouterConfig, RoutingAlgorithm, RoutingConfig, TopologyConfig,
    TopologyKind, TrafficConfig,
};
use crate::cycle::routing::algorithm::{CycleAlgorithm, Family, VcNeeds};
use crate::cycle::routing::cycle_algorithm;
use crate::cycle::routing::group_counters::CounterParams;
use crate::cycle::routing::vc_template::{HopClass, VcTemplate};
use crate::error::{Error, Result};
use std::sync::Arc;

/// Longest mesh/torus dimension of the cycle-level model, in routers (a 4096-router line takes
/// its channel-dependency check about 3 s; BookSim-sized networks are 64 × 64 or 16⁴).
pub(crate) const MAX_DIMENSION: usize = 4096;

/// Most time bins of `bins.csv` (`stats.bin_cycles`).
pub(crate) const MAX_BINS: u64 = 1_000_000;

/// Most VCs per port (a port's VCs are bits of a word).
pub(crate) const MAX_VCS: u32 = 64;

/// The routing and the VCs it needs.
#[derive(Debug, Clone)]
pub(crate) struct RoutingParams {
    /// The topology family it routes.
    pub family: Family,
    /// The algorithm ([`crate::cycle::routing::cycle_algorithm`]).
    pub algorithm: Arc<dyn CycleAlgorithm>,
    /// Dragonfly: the hop-type VC template (`routing.vc_template`, or the algorithm's own).
    pub template: Option<VcTemplate>,
    /// Mesh/torus: routing phases (each on its own VC classes) and torus dateline classes.
    pub phases: u32,
    pub dateline: bool,
    /// Mesh/torus: VC classes (phases × dateline classes); 1 on a Dragonfly.
    pub classes: u32,
    /// VCs per local (mesh/torus: transit) port and per global port; the most of either.
    pub local_vcs: u32,
    pub global_vcs: u32,
    pub vcs: u32,
    /// The key a cyclic channel-dependency graph is blamed on.
    pub deadlock_key: &'static str,
    /// QCN: the first notification VC on local and on global ports (above the data VCs).
    pub cnm_vcs: Option<(u32, u32)>,
}

/// QCN's parameters (`[qcn]`, Dragonfly spec §3.12.1, Table 4-3), when its congestion points
/// run (under `qcn_switch`, or with the reaction points on).
#[derive(Debug, Clone, Copy)]
pub(crate) struct QcnParams {
    /// The congestion points.
    pub cp: crate::cycle::congestion::qcn_cp::CpParams,
    /// The reaction points (`None`: off).
    pub rp: Option<crate::cycle::congestion::qcn_rp::RpParams>,
}

/// Everything the cycle-level model reads from a scenario, checked and with its defaults.
#[derive(Debug, Clone)]
pub(crate) struct CycleParams<'a> {
    /// Warm-up and measured cycles.
    pub warmup: u64,
    pub measure: u64,
    /// The run's seed.
    pub seed: u64,
    /// Packet size in phits.
    pub pkt_phits: u32,
    /// Saturation watch: packets waiting per active source, after this many measured cycles.
    pub sat_queue: f64,
    pub sat_min: u64,
    /// Cycles per time bin.
    pub bin_cycles: u64,
    /// The router (its defaults are the configuration's, Table 3-1), checked.
    pub router: &'a RouterConfig,
    /// The routing.
    pub routing: RoutingParams,
    /// The counter observer (`stats.group_counters`, Dragonfly spec §3.10.1, Fig 6-8): LIAN's
    /// counter parameters, kept under any routing; None when off.
    pub group_counters: Option<CounterParams>,
    /// QCN, when its congestion points run.
    pub qcn: Option<QcnParams>,
    /// 802.1Qbb priority flow control (`router.flow_control = "pfc"`), checked; None under
    /// credits.
    pub pfc: Option<super::pfc::PfcParams>,
    /// The topology and traffic sections, for their own builders.
    pub topology: &'a TopologyConfig,
    pub traffic: &'a TrafficConfig,
}

fn positive(key: &str, v: u64) -> Result<()> {
    if v == 0 {
        return Err(Error::input(key, "must be at least 1"));
    }
    Ok(())
}

/// The values [`check_scalars`] checked, with their defaults.
pub(crate) struct Scalars {
    /// Warm-up cycles.
    pub warmup: u64,
    /// Measured cycles.
    pub measure: u64,
    /// Packet size in phits.
    pub pkt_phits: u32,
    /// Packets waiting per active source that make a point saturated.
    pub sat_queue: f64,
    /// Cycles per time bin.
    pub bin_cycles: u64,
}

/// The checks of single values of a cycle-level scenario (and of the few that bound the
/// run: the bins, a mesh dimension) that need neither the network nor its routing, so that
/// they come before the memory estimate: a value out of its simple range is refused as such,
/// not as a scenario too large for the memory.
pub(crate) fn check_scalars(l: &LoadedScenario) -> Result<Scalars> {
    reject_credit_level_keys(l)?;
    let s = &l.scenario;
    let measure = s.sim.measure_cycles.ok_or_else(|| {
        Error::input(
            "sim.measure_cycles",
            "required by the cycle-level model (e.g. 60000, spec §5)",
        )
    })?;
    positive("sim.measure_cycles", measure)?;
    let warmup = s.sim.warmup_cycles;
    let pkt_phits = s.traffic.packet_phits;
    positive("traffic.packet_phits", pkt_phits as u64)?;
    check_router(&s.router, pkt_phits)?;
    super::pfc::reject_keys_without_pfc(l)?;
    let sat_queue = s.sim.saturation_queue_packets;
    if !(sat_queue > 0.0 && sat_queue.is_finite()) {
        return Err(Error::input(
            "sim.saturation_queue_packets",
            "must be a positive number of packets",
        ));
    }
    let bin_cycles = s.stats.bin_cycles;
    positive("stats.bin_cycles", bin_cycles)?;
    let cycles = warmup + measure;
    if cycles / bin_cycles > MAX_BINS {
        return Err(Error::input(
            "stats.bin_cycles",
            format!(
                "sim.warmup_cycles + sim.measure_cycles = {cycles} cycles make more than {MAX_BINS} \
                 bins of {bin_cycles} cycles; choose a wider bin or fewer cycles"
            ),
        ));
    }
    // the mesh/torus channel-dependency check walks every pair of routers of each line:
    // its cost grows with the square of a dimension's length
    if let TopologyConfig::Mesh(m) | TopologyConfig::Torus(m) = &s.topology {
        let dims = &m.dims;
        if let Some(&d) = dims.iter().find(|&&d| d > MAX_DIMENSION as _) {
            return Err(Error::input(
                "topology.dims",
                format!("a dimension of {d} routers is longer than the cycle-level model allows ({MAX_DIMENSION}: the channel-dependency check of a dimension costs the square of its length); use more dimensions"),
            ));
        }
    }
    Ok(Scalars {
        warmup,
        measure,
        pkt_phits,
        sat_queue,
        bin_cycles,
    })
}

impl<'a> CycleParams<'a> {
    /// Reads and checks the parameters of a cycle-level scenario.
    pub(crate) fn resolve(l: &'a LoadedScenario) -> Result<Self> {
        let Scalars {
            warmup,
            measure,
            pkt_phits,
            sat_queue,
            bin_cycles,
        } = check_scalars(l)?;
        let s = &l.scenario;
        let family = match s.topology.kind() {
            TopologyKind::Dragonfly => Family::Dragonfly,
            TopologyKind::Mesh | TopologyKind::Torus => Family::MeshTorus,
            other => {
                return Err(Error::input(
                    "topology.kind",
                    format!("\"{}\" is not available in the cycle-level model; allowed: dragonfly, mesh, torus", other.name()),
                ))
            }
        };
        let torus = s.topology.kind() == TopologyKind::Torus;
        let observe = s.stats.group_counters;
        let qcn = qcn_params(l, family)?;
        let routing = routing_params(l, family, torus, pkt_phits, observe, qcn.is_some())?;
        let group_counters = if observe {
            if family != Family::Dragonfly {
                return Err(Error::input(
                    "stats.group_counters",
                    "applies to Dragonflies (the counters are per destination group, spec §3.10)",
                ));
            }
            let c = super::counter_trace::CounterTrace::params(&s.routing)?;
            if bin_cycles < c.window {
                return Err(Error::input(
                    "stats.bin_cycles",
                    format!(
                        "{bin_cycles} cycles is shorter than routing.lian.window_cycles ({}): with \
                         stats.group_counters the counters are sampled once per window, and every \
                         bin needs a sample",
                        c.window
                    ),
                ));
            }
            Some(c)
        } else {
            None
        };
        let pfc = super::pfc::resolve(
            l,
            pkt_phits,
            (routing.local_vcs, routing.global_vcs),
            family == Family::Dragonfly,
        )?;
        Ok(CycleParams {
            warmup,
            measure,
            seed: s.sim.seed,
            pkt_phits,
            sat_queue,
            sat_min: s.sim.saturation_min_cycles,
            bin_cycles,
            router: &s.router,
            routing,
            group_counters,
            qcn,
            pfc,
            topology: &s.topology,
            traffic: &s.traffic,
        })
    }

    /// The last cycle simulated plus one.
    pub(crate) fn end(&self) -> u64 {
        self.warmup + self.measure
    }

    /// Slots of the event calendar ([`calendar_slots`]).
    pub(crate) fn calendar_slots(&self) -> u64 {
        calendar_slots(self.router, self.pkt_phits as u64)
    }
}

/// Slots of the event calendar: one per cycle of the longest delay an event is scheduled ahead
/// (the longest link, plus the router latency and two packet serialisations; under PFC also a
/// PAUSE frame's response time and the frames of every class of service that may wait ahead of
/// it), rounded up to a power of two, at least 64. Shared by the builder and the memory
/// estimate; the latency keys are bounded (`config::keys`), so the sum cannot overflow.
pub(crate) fn calendar_slots(rc: &RouterConfig, pkt_phits: u64) -> u64 {
    let pfc = match (&rc.pfc, rc.flow_control) {
        (c, crate::config::RouterFlowControl::Pfc) => {
            let c = c.clone().unwrap_or_default();
            let frames = super::pfc::frames_ahead(super::pfc::MAX_COS) + 1;
            c.response_cycles + frames * c.pause_phits as u64
        }
        _ => 0,
    };
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
    .saturating_add(2 * pkt_phits + 2)
    .saturating_add(pfc);
    longest
        .saturating_add(1)
        .checked_next_power_of_two()
        .unwrap_or(u64::MAX)
        .max(64)
}

/// Checks the router's parameters: positive latencies, speed-up and iterations, link latencies
/// that fit a port record, buffers that hold a whole packet of `pkt_phits`.
fn check_router(rc: &RouterConfig, pkt_phits: u32) -> Result<()> {
    positive("router.speedup", rc.speedup as u64)?;
    if rc.output_admission == crate::config::OutputAdmission::Credits
        && rc.flow_control != crate::config::RouterFlowControl::Credits
    {
        return Err(Error::input(
            "router.output_admission",
            "`credits` needs router.flow_control = \"credits\" (under PFC an output's credits stay full); use `space`",
        ));
    }
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
    Ok(())
}

/// The routing of a scenario on a topology `family`: the algorithm `routing.algorithm` names
/// (a mesh or torus defaults to DOR), the keys that apply to it, and the VCs it needs.
fn routing_params(
    l: &LoadedScenario,
    family: Family,
    torus: bool,
    pkt_phits: u32,
    observe: bool,
    qcn: bool,
) -> Result<RoutingParams> {
    let s = &l.scenario;
    let (r, rc) = (&s.routing, &s.router);
    let registered = crate::cycle::routing::cycle_algorithms(family);
    let names: Vec<&str> = registered.iter().map(|a| a.name()).collect();
    let name = r.algorithm();
    let algorithm = match crate::cycle::routing::cycle_algorithm(r, family, pkt_phits) {
        Some(a) => a?,
        None => {
            let what = match family {
                Family::Dragonfly => "does not route a Dragonfly".to_string(),
                Family::MeshTorus => {
                    "does not route a mesh or torus in the cycle-level model".to_string()
                }
            };
            return Err(Error::input(
                "routing.algorithm",
                format!("\"{}\" {what}; allowed: {}", name.name(), names.join(", ")),
            ));
        }
    };
    reject_dragonfly_keys(l, family, observe)?;
    let dragonfly = family == Family::Dragonfly;
    let reject = |key: &str, set: bool, why: &str| -> Result<()> {
        if set {
            Err(Error::input(key, why.to_string()))
        } else {
            Ok(())
        }
    };
    reject(
        "routing.dateline",
        l.given("routing.dateline") && !torus,
        "applies to tori",
    )?;
    reject(
        "router.global_vcs",
        rc.global_vcs.is_some() && !dragonfly,
        "applies to Dragonflies",
    )?;
    let dateline = match r {
        RoutingConfig::Dor(k) => k.dateline,
        _ => true,
    };
    let (template, phases, classes, local_vcs, global_vcs) = match (family, algorithm.vcs()) {
        (Family::Dragonfly, VcNeeds::Template(own)) => {
            let template = match r.vc_template() {
                Some(items) => VcTemplate::parse(items)?,
                None => own,
            };
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
            (Some(template), 1, 1, lv, gv)
        }
        (Family::MeshTorus, VcNeeds::Phases(phases)) => {
            let phases = phases as u32;
            let classes = phases * if torus && dateline { 2 } else { 1 };
            let lv = rc.local_vcs.unwrap_or(classes);
            if lv == 0 || !lv.is_multiple_of(classes) {
                return Err(Error::input(
                    "router.local_vcs",
                    format!("{lv} VCs; this routing uses {classes} VC classes (Valiant phases × torus dateline classes), so give a positive multiple of {classes}"),
                ));
            }
            (None, phases, classes, lv, 1)
        }
        (_, needs) => {
            return Err(Error::Internal(format!(
                "cycle model: routing {} states {needs:?} on a {}",
                algorithm.name(),
                family.name()
            )))
        }
    };
    // QCN's notifications: VCs of their own above the data VCs, two local and one global
    let cnm_vcs = qcn.then_some((local_vcs, global_vcs));
    let (local_vcs, global_vcs) = if qcn {
        (local_vcs + 2, global_vcs + 1)
    } else {
        (local_vcs, global_vcs)
    };
    if matches!(r, RoutingConfig::MarBp(_) | RoutingConfig::QcnSwitch(_)) {
        if let Some(d) = crate::topology::dragonfly::shape_of_topology(&s.topology) {
            if d.p != d.h {
                return Err(Error::input(
                    "topology.h",
                    format!(
                        "{} maps injection port j to global port j (Dragonfly spec §3.11), so it needs h = p; here p = {} and h = {}",
                        name.name(),
                        d.p,
                        d.h
                    ),
                ));
            }
        }
    }
    if local_vcs > MAX_VCS || global_vcs > MAX_VCS {
        return Err(Error::input("router.local_vcs", "at most 64 VCs per port"));
    }
    let deadlock_key = if r.vc_template().is_some() {
        "routing.vc_template"
    } else if !dateline {
        "routing.dateline"
    } else {
        "routing"
    };
    Ok(RoutingParams {
        family,
        algorithm,
        template,
        phases,
        dateline,
        classes,
        local_vcs,
        global_vcs,
        vcs: local_vcs.max(global_vcs),
        deadlock_key,
        cnm_vcs,
    })
}

/// QCN's parameters when its congestion points run: under `routing.algorithm = "qcn_switch"`
/// (which reads them) or with `qcn.reaction_point`; a `[qcn]` key given otherwise is refused,
/// and so is QCN off a Dragonfly (its notifications follow the Dragonfly's minimal paths).
fn qcn_params(l: &LoadedScenario, family: Family) -> Result<Option<QcnParams>> {
    use crate::config::QcnSampling;
    use crate::cycle::congestion::{qcn_cp::CpParams, qcn_rp::RpParams, Side};
    let s = &l.scenario;
    let q = &s.qcn;
    let on = matches!(s.routing, RoutingConfig::QcnSwitch(_)) || q.reaction_point;
    if !on {
        if let Some(k) = l
            .merged
            .get("qcn")
            .and_then(|t| t.as_table())
            .and_then(|t| t.keys().next())
        {
            return Err(Error::input(
                &format!("qcn.{k}"),
                "QCN runs under routing.algorithm = \"qcn_switch\" or with qcn.reaction_point = true; without either this key would change nothing",
            ));
        }
        return Ok(None);
    }
    if family != Family::Dragonfly {
        let key = if q.reaction_point {
            "qcn.reaction_point"
        } else {
            "routing.algorithm"
        };
        return Err(Error::input(
            key,
            "QCN's notifications follow a Dragonfly's minimal paths: it runs on Dragonflies",
        ));
    }
    let q_eq = q
        .q_eq_phits
        .unwrap_or(s.router.local_buffer_phits / 5)
        .max(1);
    Ok(Some(QcnParams {
        cp: CpParams {
            sampling: match q.sampling {
                QcnSampling::Output => Side::Output,
                QcnSampling::Input => Side::Input,
            },
            q_eq,
            w: q.w,
            cpc: q.cpc_packets,
            cnm_percent: q.cnm_percent,
            victim: q.victim,
            clock: q.sampling_clock == crate::config::QcnClock::Cycles,
        },
        rp: q.reaction_point.then(|| RpParams::new(&q.rp)),
    }))
}

/// `a, b and c` (`conj` = "and", "or").
fn list(names: &[&str], conj: &str) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} {conj} {last}", rest.join(", ")),
    }
}

/// Refuses what the type of `[routing]` cannot: on a mesh or torus, a key of the algorithm's
/// Dragonfly form (`vlb` takes no Valiant keys there), naming the Dragonfly routings that take
/// it; and, through the counter observer's own check, its keys without it.
fn reject_dragonfly_keys(l: &LoadedScenario, family: Family, observe: bool) -> Result<()> {
    super::counter_trace::CounterTrace::check_keys(l, observe)?;
    let Some(set) = l.merged.get("routing").and_then(|t| t.as_table()) else {
        return Ok(());
    };
    for k in set.keys().filter(|k| k.as_str() != "algorithm") {
        if family == Family::MeshTorus && k != "dateline" {
            // the Dragonfly routings whose keys include it
            let takers = kinds::kinds_taking(&format!("routing.{k}")).map_or(vec![], |t| t.1);
            let users: Vec<&str> = RoutingAlgorithm::ALL
                .iter()
                .filter(|a| takers.contains(&a.name()))
                .filter_map(|&a| RoutingConfig::with_defaults(a))
                .filter(|c| cycle_algorithm(c, Family::Dragonfly, 1).is_some())
                .map(|c| c.algorithm().name())
                .collect();
            let why = if k == "vc_template" {
                "applies to Dragonflies (meshes and tori use VC classes)".to_string()
            } else {
                format!("applies to Dragonfly {}", list(&users, "and"))
            };
            return Err(Error::input(&format!("routing.{k}"), why));
        }
    }
    Ok(())
}

/// Keys of the credit-level model that a cycle-level scenario must not set.
fn reject_credit_level_keys(l: &LoadedScenario) -> Result<()> {
    let s = &l.scenario;
    let ib_tables = ["links", "switch", "hca", "cc"];
    for t in ib_tables {
        if l.merged.contains_key(t) {
            return Err(Error::input(
                t,
                "belongs to the credit-level model; a cycle-level scenario (sim.measure_cycles) \
                 configures its routers in [router]",
            ));
        }
    }
    if s.sim.allow_deadlock {
        return Err(Error::input(
            "sim.allow_deadlock",
            "belongs to the credit-level model; the cycle-level model refuses a cyclic \
             channel-dependency graph at start-up and has no run-time deadlock detector",
        ));
    }
    let present = [
        ("sim.end_time", s.sim.end_time.is_some()),
        ("sim.warmup", s.sim.warmup.0 != 0),
        ("sim.interval", l.given("sim.interval")),
        ("traffic.flows", !s.traffic.flows.is_empty()),
        ("traffic.generators", !s.traffic.generators.is_empty()),
        (
            "routing.file",
            matches!(s.routing, crate::config::RoutingConfig::LftFile(_)),
        ),
        ("stats.buffer_occupancy", l.given("stats.buffer_occupancy")),
        ("stats.fairness_sources", s.stats.fairness_sources.is_some()),
        ("stats.fairness_from", s.stats.fairness_from.is_some()),
    ];
    for (k, p) in present {
        if p {
            return Err(Error::input(
                k,
                "belongs to the credit-level model; a cycle-level scenario uses sim.warmup_cycles, \
                 sim.measure_cycles and the traffic.pattern keys",
            ));
        }
    }
    if let Some(tr) = l.merged.get("traffic").and_then(|t| t.as_table()) {
        for k in [
            "credit_bytes",
            "mtu_credits",
            "packet_bytes",
            "message_bytes",
            "payload_bytes",
        ] {
            if tr.contains_key(k) {
                return Err(Error::input(
                    &format!("traffic.{k}"),
                    "belongs to the credit-level model; the cycle-level model sizes packets with traffic.packet_phits",
                ));
            }
        }
    }
    Ok(())
}
