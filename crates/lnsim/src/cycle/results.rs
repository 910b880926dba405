//! Statistics of the cycle-level model (Dragonfly spec §5) and its results folder.
//!
//! The measurement window is `[warmup, stop)`, `stop` being the configured end or the cycle a
//! saturated run stopped. A packet counts as *delivered* in the window when its head leaves
//! the last router for its terminal inside it; its latency runs from its generation to the
//! consumption of its last phit (`head departure + ejection latency + L`), so it includes the
//! time spent waiting at the source and in the injection queue. Its *network latency* starts
//! when it leaves the injection queue. Loads are phits per node per cycle, averaged over the
//! nodes that send (a permutation's fixed points do not).

use super::packet::{Link, Pkt};
use super::CycleNet;
use crate::config::LoadedScenario;
use crate::cycle::routing::algorithm::Paths;
use crate::cycle::routing::valiant::PathClass;
use crate::engine::run_outcome::Ending;
use crate::error::{Error, Result};
use crate::outdir::{write_folder, Marker};
use crate::stats::fairness::jain;
use hdrhistogram::Histogram;
use serde_json::json;
use std::fmt::Write as _;
use std::path::Path;

/// Packet counts at the end of a run (`summary.json` `packets`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Counts {
    pub generated: u64,
    pub injected: u64,
    pub delivered: u64,
    pub in_network: u64,
    pub at_sources: u64,
    /// Packets waiting at the sources: backlogs and injection queues (what the saturation
    /// rules count, [`CycleNet::at_sources`]; `at_sources` is the backlogs alone).
    pub waiting: u64,
}

/// One time bin of `bins.csv` (whole run, warm-up included).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Bin {
    generated: u64,
    delivered: u64,
    delivered_phits: u64,
    lat_sum: u64,
    nonmin: u64,
    /// Delivered packets per path class ([`PathClass`]).
    paths: [u64; PathClass::COUNT],
}

/// Latencies below this many cycles are counted in a dense array (at most 512 KiB), larger
/// ones go straight to the histogram.
const DENSE_MAX: u64 = 1 << 16;

/// A latency distribution: a dense count per cycle value for the common small latencies (one
/// increment per packet) and an HDR histogram (3 significant digits) for the rare larger ones;
/// [`LatCounts::histogram`] merges both into the histogram of every recorded value, the same as
/// recording each value into it (its counts do not depend on the recording order).
#[derive(Debug, Clone)]
struct LatCounts {
    dense: Vec<u64>,
    over: Histogram<u64>,
}

impl LatCounts {
    fn new() -> Self {
        LatCounts {
            dense: Vec::new(),
            over: Histogram::new(3).expect("histogram"),
        }
    }

    #[inline]
    fn record(&mut self, v: u64) {
        if v < self.dense.len() as u64 {
            self.dense[v as usize] += 1;
        } else {
            self.record_slow(v);
        }
    }

    #[cold]
    #[inline(never)]
    fn record_slow(&mut self, v: u64) {
        if v < DENSE_MAX {
            let n = (v as usize + 1).next_power_of_two().max(256);
            self.dense.resize(n, 0);
            self.dense[v as usize] += 1;
        } else {
            let _ = self.over.record(v);
        }
    }

    /// The histogram of every recorded value.
    fn histogram(&self) -> Histogram<u64> {
        let mut h = self.over.clone();
        for (v, &n) in self.dense.iter().enumerate() {
            if n > 0 {
                let _ = h.record_n(v as u64, n);
            }
        }
        h
    }
}

/// One delivered packet in a trace: generation, consumption, source and destination
/// terminals, hops.
pub(crate) type TraceRecord = (u64, u64, u32, u32, u8);

/// Collectors of one run.
pub(crate) struct CycleStats {
    warmup: u64,
    bin_cycles: u64,
    pub topology: String,
    /// Wall seconds the set-up took (building the network, route table).
    pub setup_s: f64,
    pub phit_hops: u64,
    /// Calendar events dispatched.
    pub events: u64,
    /// Allocator runs.
    pub allocations: u64,
    /// Router visits (a router holding work, once per cycle).
    pub router_visits: u64,
    pub stopped_early: bool,
    pub stop: u64,
    pub total_generated: u64,
    pub total_injected: u64,
    pub total_delivered: u64,
    w_generated: u64,
    w_injected: u64,
    w_delivered: u64,
    w_delivered_phits: u64,
    w_nonmin: u64,
    /// Packets delivered in the window per path class ([`PathClass`], Dragonfly spec §5).
    w_paths: [u64; PathClass::COUNT],
    /// Blocked injection heads routed again (recomputation, Dragonfly spec §3.4), whole run.
    pub recomputations: u64,
    w_hops: u64,
    w_lat_sum: u64,
    w_net_sum: u64,
    lat: LatCounts,
    net: LatCounts,
    router_inj: Vec<u64>,
    router_acc: Vec<u64>,
    /// Phits delivered in the window per *source* router (routers.csv's `delivered_load`: the
    /// throughput a router's terminals get, which the fairness bar charts of Dragonfly spec
    /// §9.1 plot; unlike `injected_load` it does not count packets only entering a filling
    /// injection queue).
    pub(crate) router_sent: Vec<u64>,
    /// Packets delivered in the window per source router and path class (routers.csv's
    /// `paths_*` on Dragonflies: Fig 6-13's per-router breakdown, Dragonfly spec §6.4 L12).
    router_paths: Vec<[u64; PathClass::COUNT]>,
    bins: Vec<Bin>,
    /// Index of the bin of the last recorded cycle and its first cycle (`bin_cycles · index`):
    /// [`CycleStats::bin`] divides only when the cycle leaves that bin.
    bin_idx: usize,
    bin_lo: u64,
    /// Packets waiting at the sources (backlogs and injection queues) when the window opened.
    waiting_start: Option<u64>,
    /// Per-packet records `(generation, consumption, source terminal, destination terminal,
    /// hops)` of every delivered packet, when switched on (tests).
    pub trace: Option<Vec<TraceRecord>>,
}

impl CycleStats {
    pub fn new(routers: u32, _terminals: u32, warmup: u64, end: u64, bin_cycles: u64) -> Self {
        CycleStats {
            warmup,
            bin_cycles,
            topology: String::new(),
            setup_s: 0.0,
            phit_hops: 0,
            events: 0,
            allocations: 0,
            router_visits: 0,
            stopped_early: false,
            stop: end,
            total_generated: 0,
            total_injected: 0,
            total_delivered: 0,
            w_generated: 0,
            w_injected: 0,
            w_delivered: 0,
            w_delivered_phits: 0,
            w_nonmin: 0,
            w_paths: [0; PathClass::COUNT],
            recomputations: 0,
            w_hops: 0,
            w_lat_sum: 0,
            w_net_sum: 0,
            lat: LatCounts::new(),
            net: LatCounts::new(),
            router_inj: vec![0; routers as usize],
            router_acc: vec![0; routers as usize],
            router_sent: vec![0; routers as usize],
            router_paths: vec![[0; PathClass::COUNT]; routers as usize],
            bins: vec![Bin::default(); end.div_ceil(bin_cycles) as usize],
            bin_idx: 0,
            bin_lo: 0,
            waiting_start: None,
            trace: None,
        }
    }

    /// The bin of cycle `t` (`t / bin_cycles`; None past the end).
    #[inline]
    fn bin(&mut self, t: u64) -> Option<&mut Bin> {
        if t.wrapping_sub(self.bin_lo) >= self.bin_cycles {
            self.bin_idx = (t / self.bin_cycles) as usize;
            self.bin_lo = t - t % self.bin_cycles;
        }
        self.bins.get_mut(self.bin_idx)
    }

    /// A packet was generated at cycle `now`.
    #[inline]
    pub fn generated(&mut self, now: u64, phits: u32) {
        self.total_generated += 1;
        if now >= self.warmup {
            self.w_generated += phits as u64;
        }
        if let Some(b) = self.bin(now) {
            b.generated += 1;
        }
    }

    /// A packet left terminal links towards router `r`'s injection queue at cycle `now`.
    #[inline]
    pub fn injected(&mut self, now: u64, r: u32, phits: u32) {
        self.total_injected += 1;
        if now >= self.warmup {
            self.w_injected += phits as u64;
            self.router_inj[r as usize] += phits as u64;
        }
    }

    /// Packet `p`'s head left its last router at `done − L − ejection latency`; its last
    /// phit is consumed at `done`; it was injected at router `src_router` and took a path of
    /// `class`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn delivered_at(
        &mut self,
        p: &Pkt,
        lk: &Link,
        sent: u64,
        done: u64,
        phits: u32,
        dst_router: u32,
        src_router: u32,
        class: PathClass,
    ) {
        self.total_delivered += 1;
        let lat = done - p.gen;
        if let Some(t) = self.trace.as_mut() {
            t.push((p.gen, done, p.src, lk.dst, lk.hops));
        }
        if let Some(b) = self.bin(sent) {
            b.delivered += 1;
            b.delivered_phits += phits as u64;
            b.lat_sum += lat;
            b.nonmin += lk.st.nonminimal as u64;
            b.paths[class as usize] += 1;
        }
        if sent >= self.warmup {
            self.w_delivered += 1;
            self.w_delivered_phits += phits as u64;
            self.w_nonmin += lk.st.nonminimal as u64;
            self.w_paths[class as usize] += 1;
            self.w_hops += lk.hops as u64;
            self.w_lat_sum += lat;
            self.w_net_sum += done - p.t_net;
            self.lat.record(lat);
            self.net.record(done - p.t_net);
            self.router_acc[dst_router as usize] += phits as u64;
            self.router_sent[src_router as usize] += phits as u64;
            self.router_paths[src_router as usize][class as usize] += 1;
        }
    }

    /// Remembers the packets waiting at the sources (backlogs and injection queues) when the
    /// measurement starts.
    pub fn mark_sources(&mut self, n: u64) {
        self.waiting_start = Some(n);
    }
}

/// Thresholds of the saturation rules (docs/hpc-router.md §8): a queue or deficit counts when
/// it exceeds [`GROWTH_MIN_PACKETS`] per node and [`GROWTH_MIN_FRACTION`] of what a node
/// generated in the window; a window that cannot see a point accepting [`DECIDE_DEFICIT`] less
/// than it generates leaves the point undecided.
pub(crate) const GROWTH_MIN_PACKETS: f64 = 2.0;
/// See [`GROWTH_MIN_PACKETS`].
pub(crate) const GROWTH_MIN_FRACTION: f64 = 0.05;
/// See [`GROWTH_MIN_PACKETS`].
pub(crate) const DECIDE_DEFICIT: f64 = 0.10;

/// What the saturation rules look at: the measurement window of a run, per active node.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Window {
    /// The saturation watch stopped the run.
    pub stopped_early: bool,
    /// Growth of the packets waiting at the sources (backlog + injection queue) over the window.
    pub growth: f64,
    /// Packets generated in the window.
    pub generated_packets: f64,
    /// Generated and accepted load (phits/node/cycle).
    pub generated_load: f64,
    pub accepted_load: f64,
    /// Packets delivered in the window (all nodes) and their mean latency (cycles).
    pub delivered: u64,
    pub mean_latency: f64,
    /// Cycles from the last traffic change (0: the start; a transient's change cycle) to the
    /// window's start (negative when the traffic changes inside the window).
    pub settle: f64,
    /// Measured cycles.
    pub measured: u64,
    /// Phits per packet.
    pub pkt_phits: u32,
}

/// The saturation verdict of a window (docs/hpc-router.md §8).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Verdict {
    /// Past saturation.
    pub saturated: bool,
    /// Not marked saturated, but the window cannot tell (see `warnings`).
    pub undecided: bool,
    /// Why the window cannot tell, for the summary and stderr.
    pub warnings: Vec<String>,
}

impl Window {
    /// Applies the saturation rules (besides the early stop): the packets waiting at the
    /// sources grew (`growth`), or the window delivered fewer packets than it generated (the
    /// packets in the whole network grew) by more than the same thresholds plus the part of
    /// the window the network may spend filling after a traffic change (the packets' mean
    /// latency beyond the cycles since the change, as a fraction of the window); then, for a
    /// point neither marks, whether the window could have seen a point that accepts 10 % less
    /// than it generates.
    pub fn saturation(&self) -> Verdict {
        let w = self.measured.max(1) as f64;
        let g = self.generated_packets;
        let growth_rule = self.growth > GROWTH_MIN_PACKETS && self.growth > GROWTH_MIN_FRACTION * g;
        // the fraction of the window the network may still be filling: packets generated in
        // it may be in flight at its end without any saturation
        let filling = if self.delivered == 0 {
            1.0
        } else {
            ((self.mean_latency - self.settle).max(0.0) / w).min(1.0)
        };
        let deficit = if self.generated_load > 0.0 {
            1.0 - self.accepted_load / self.generated_load
        } else {
            0.0
        };
        let deficit_packets = deficit * g;
        let deficit_rule =
            deficit_packets > GROWTH_MIN_PACKETS && deficit > GROWTH_MIN_FRACTION + filling;
        let saturated = self.stopped_early || growth_rule || deficit_rule;
        let mut warnings = Vec::new();
        if !saturated && g > 0.0 {
            if GROWTH_MIN_PACKETS / g > DECIDE_DEFICIT {
                let need = (GROWTH_MIN_PACKETS / DECIDE_DEFICIT * self.pkt_phits as f64
                    / self.generated_load.max(1e-12))
                .ceil();
                warnings.push(format!(
                    "saturation undecided: the nodes generated {g:.1} packets each in the {} \
                     measured cycles; more than {} are needed to see a point that accepts 10 % \
                     less than it generates (sim.measure_cycles > {need} at this load)",
                    self.measured,
                    GROWTH_MIN_PACKETS / DECIDE_DEFICIT
                ));
            }
            if self.delivered == 0 {
                warnings.push(format!(
                    "saturation undecided: no packet was delivered in the {} measured cycles \
                     (longer sim.warmup_cycles or sim.measure_cycles)",
                    self.measured
                ));
            } else if GROWTH_MIN_FRACTION + filling > DECIDE_DEFICIT {
                warnings.push(format!(
                    "saturation undecided: the packets' mean latency ({:.0} cycles) exceeds the \
                     cycles from the last traffic change to the window ({:.0}) by more than 5 % of \
                     the window, which then sees the network filling (sim.warmup_cycles ≥ {:.0} \
                     after the change, or a longer sim.measure_cycles)",
                    self.mean_latency,
                    self.settle.max(0.0),
                    self.mean_latency.ceil()
                ));
            }
        }
        Verdict {
            saturated,
            undecided: !warnings.is_empty(),
            warnings,
        }
    }
}

/// `x` rounded to 6 decimals (non-finite: 0), as every figure of the summary.
pub(super) fn r6(x: f64) -> f64 {
    if x.is_finite() {
        (x * 1e6).round() / 1e6
    } else {
        0.0
    }
}

/// The measurement window's figures of a finished run, which the summary and `routers.csv`
/// both read.
struct Figures {
    /// The run got past the warm-up (else the window's figures are null).
    reached: bool,
    /// Measured cycles (at least 1).
    measured: u64,
    /// Terminals active at the window's start (at least 1).
    active: f64,
    /// Delivered packets of the window (at least 1, a divisor).
    n: f64,
    /// Loads per router (phits per terminal and cycle): injected, accepted (delivered at its
    /// terminals), sent (its terminals' packets delivered anywhere).
    inj_r: Vec<f64>,
    acc_r: Vec<f64>,
    sent_r: Vec<f64>,
    /// The saturation verdict.
    verdict: Verdict,
    /// Generated and accepted load per node.
    generated: f64,
    accepted: f64,
}

/// Stage 1 of [`write`]: the measurement window's figures and the saturation verdict.
fn window_figures(net: &CycleNet, c: &Counts) -> Figures {
    let st = &net.stats;
    // a run interrupted before the warm-up's end has no measurement window: its window
    // figures are null, not rates over a made-up window
    let reached = st.stop > net.k.warmup;
    let measured = st.stop.saturating_sub(net.k.warmup).max(1);
    let active = net
        .terms
        .traffic
        .active_count(net.k.warmup.min(st.stop.saturating_sub(1)))
        .max(1) as f64;
    let per_node = |phits: u64| r6(phits as f64 / active / measured as f64);
    let accepted = per_node(st.w_delivered_phits);
    let generated = per_node(st.w_generated);
    let p = net.k.terminals / net.k.routers.max(1);
    let per_router = |v: &[u64]| -> Vec<f64> {
        v.iter()
            .map(|&x| x as f64 / p.max(1) as f64 / measured as f64)
            .collect()
    };
    let n = st.w_delivered.max(1) as f64;
    let mut verdict = Window {
        stopped_early: st.stopped_early,
        growth: (c.waiting as f64 - st.waiting_start.unwrap_or(0) as f64) / active,
        generated_packets: st.w_generated as f64 / net.k.pkt_phits as f64 / active,
        generated_load: generated,
        accepted_load: accepted,
        delivered: st.w_delivered,
        mean_latency: st.w_lat_sum as f64 / n,
        settle: net.k.warmup as f64
            - net
                .terms
                .traffic
                .change_cycle()
                .filter(|&c| c < st.stop)
                .unwrap_or(0) as f64,
        measured,
        pkt_phits: net.k.pkt_phits,
    }
    .saturation();
    if !reached {
        verdict.undecided = true;
        verdict.warnings = vec![format!(
            "no measurement window reached: the run stopped at cycle {}, before the warm-up's \
             end at cycle {}",
            st.stop, net.k.warmup
        )];
    }
    Figures {
        reached,
        measured,
        active,
        n,
        inj_r: per_router(&st.router_inj),
        acc_r: per_router(&st.router_acc),
        sent_r: per_router(&st.router_sent),
        verdict,
        generated,
        accepted,
    }
}

/// Stage 2 of [`write`]: `summary.json` (with the mechanisms' fields and files, `files`).
fn summary(
    net: &CycleNet,
    l: &LoadedScenario,
    (wall_s, c, ending): (f64, &Counts, Ending),
    f: &Figures,
    files: &mut Vec<(&'static str, String)>,
) -> Result<String> {
    let st = &net.stats;
    let (lat, nlat) = (st.lat.histogram(), st.net.histogram());
    let (reached, measured, active, n) = (f.reached, f.measured, f.active, f.n);
    let per_node = |phits: u64| r6(phits as f64 / active / measured as f64);
    let offered = net.terms.traffic.load_at(st.stop.saturating_sub(1));
    let (min_r, max_r) = f
        .inj_r
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    let q = |h: &Histogram<u64>, x: f64| {
        if h.is_empty() {
            0
        } else {
            h.value_at_quantile(x)
        }
    };
    let s = &l.scenario;
    let policy = net.routing.alg.vlb_policy();
    let routing_name = net.routing.alg.name();
    let events_per_s = st.phit_hops as f64 / wall_s.max(1e-9);
    // a figure of the measurement window (null without one)
    let w = |v: serde_json::Value| if reached { v } else { serde_json::Value::Null };
    let mut summary = json!({
        "scenario": l.name,
        "complete": ending.is_complete(),
        "model": l.model().name(),
        "version": crate::VERSION,
        "seed": s.sim.seed,
        "wall_time_s": r6(wall_s),
        "setup_time_s": r6(st.setup_s),
        "peak_rss_bytes": crate::stats::peak_rss_bytes(),
        "topology": st.topology,
        "routing": routing_name,
        "vlb_policy": policy,
        "pattern": net.terms.traffic.label(),
        "change_cycle": net.terms.traffic.change_cycle(),
        "packet_phits": net.k.pkt_phits,
        "offered_load": r6(offered),
        "generated_load": w(json!(f.generated)),
        "injected_load": w(json!(per_node(st.w_injected))),
        "accepted_load": w(json!(f.accepted)),
        "latency_cycles": {
            "mean": w(json!(r6(st.w_lat_sum as f64 / n))),
            "p50": w(json!(q(&lat, 0.5))),
            "p99": w(json!(q(&lat, 0.99))),
            "max": w(json!(lat.max())),
        },
        "network_latency_cycles": {
            "mean": w(json!(r6(st.w_net_sum as f64 / n))),
            "p50": w(json!(q(&nlat, 0.5))),
            "p99": w(json!(q(&nlat, 0.99))),
        },
        "nonminimal_fraction": w(json!(r6(st.w_nonmin as f64 / n))),
        "recomputations": st.recomputations,
        "avg_hops": w(json!(r6(st.w_hops as f64 / n))),
        "saturated": f.verdict.saturated,
        "saturation_undecided": f.verdict.undecided,
        "warnings": f.verdict.warnings,
        "stopped_early": st.stopped_early,
        "warmup_cycles": net.k.warmup,
        "measured_cycles": if reached { measured } else { 0 },
        "active_nodes": active as u64,
        "fairness": {
            "jain_routers": w(json!(jain(&f.inj_r).map(r6))),
            "min_router_load": w(json!(r6(if min_r.is_finite() { min_r } else { 0.0 }))),
            "max_router_load": w(json!(r6(max_r))),
        },
        "packets": {
            "generated": c.generated,
            "injected": c.injected,
            "delivered": c.delivered,
            "in_network": c.in_network,
            "at_sources": c.at_sources,
        },
        "conservation": { "ok": true },
        "phit_hops": st.phit_hops,
        "events": st.events,
        "allocator_runs": st.allocations,
        "router_visits": st.router_visits,
        "phit_hops_per_s": r6(events_per_s),
    });
    if matches!(net.routing.paths, Paths::Dragonfly(_)) {
        // the path breakdown (Dragonfly spec §5, Fig 6-13): share of the delivered packets
        let mut paths = serde_json::Map::new();
        for c in PathClass::ALL {
            paths.insert(
                c.name().into(),
                w(json!(r6(st.w_paths[c as usize] as f64 / n))),
            );
        }
        summary["paths"] = serde_json::Value::Object(paths);
    }
    if let Some(r) = transient_response(net) {
        summary["transient_response"] = r;
    }
    if let Some(q) = net.cm.qcn() {
        // QCN (Dragonfly spec §3.12.1): the congestion points' samples and notifications, the
        // notification packets, the reaction points
        let cp = &q.cp.counts;
        let n = &net.cnm;
        // notifications per packet forwarded (every router-to-router hop and ejection)
        let hops = st.phit_hops / net.k.pkt_phits.max(1) as u64;
        let per_packet = cp.notifications as f64 / hops.max(1) as f64;
        summary["qcn"] = json!({
            "sampling": match q.cp.params.sampling {
                super::congestion::Side::Input => "input",
                super::congestion::Side::Output => "output",
            },
            "q_eq_phits": q.cp.params.q_eq,
            "samples": cp.samples,
            "congested_samples": cp.congested,
            "notifications": cp.notifications,
            "notifications_per_packet_hop": r6(per_packet),
            "cnms_created": n.created,
            "cnms_dropped_at_source": n.dropped,
            "cnms_delivered": n.delivered,
            "cnms_at_destination_router": n.at_router,
            "cnms_created_measured": n.created_measured,
            "cnms_delivered_measured": n.delivered_measured,
            "applied_locally": n.local,
            "fb_histogram": cp.fb_histogram.to_vec(),
            "reaction_point": q.rp.as_ref().map(|rp| json!({
                "notifications": rp.notifications,
                "rate_increases": rp.increases,
                "releases": rp.releases,
                "limited_at_end": rp.rl.iter().filter(|x| x.active).count(),
                "mean_rate_of_limited_at_end": r6({
                    let v: Vec<f64> = rp.rl.iter().filter(|x| x.active).map(|x| x.cr).collect();
                    if v.is_empty() { 1.0 } else { v.iter().sum::<f64>() / v.len() as f64 }
                }),
            })),
        });
    }
    net.mech.outputs(
        &mut summary,
        files,
        &net.router_names,
        (net.k.warmup, st.stop, reached),
    );
    if let Some(p) = net.fc.pfc() {
        net.pfc_outputs(p, &mut summary, files);
    }
    if let Ending::Interrupted { planned_end } = ending {
        summary["stop_reason"] = json!(ending.stop_reason());
        summary["simulated_cycles"] = json!(st.stop);
        summary["planned_cycles"] = json!(planned_end);
    }
    Ok(crate::stats::natural::to_json_pretty(&summary)
        .map_err(|e| Error::Internal(e.to_string()))?
        + "\n")
}

/// Stage 3 of [`write`]: `routers.csv`, each router's loads and, on a Dragonfly, its sourced
/// packets per path class (share of those delivered in the window).
fn routers_csv(net: &CycleNet, f: &Figures, dragonfly: bool) -> String {
    let st = &net.stats;
    let mut routers = String::from("router,name,injected_load,accepted_load,delivered_load");
    if dragonfly {
        for c in PathClass::ALL {
            let _ = write!(routers, ",paths_{}", c.name());
        }
    }
    routers.push('\n');
    for r in 0..net.k.routers as usize {
        let _ = write!(
            routers,
            "{r},{},{},{},{}",
            net.router_names[r],
            r6(f.inj_r[r]),
            r6(f.acc_r[r]),
            r6(f.sent_r[r])
        );
        if dragonfly {
            let k = &st.router_paths[r];
            let d = k.iter().sum::<u64>().max(1) as f64;
            for c in PathClass::ALL {
                let _ = write!(routers, ",{}", r6(k[c as usize] as f64 / d));
            }
        }
        routers.push('\n');
    }
    routers
}

/// Stage 4 of [`write`]: `latency_hist.csv`, the packet latency histogram's buckets.
fn latency_hist_csv(net: &CycleNet) -> String {
    let lat = net.stats.lat.histogram();
    let mut hist = String::from("lo_cycles,hi_cycles,count\n");
    let mut lower = 0u64;
    for v in lat.iter_recorded() {
        let upper = lat.highest_equivalent(v.value_iterated_to());
        let _ = writeln!(hist, "{lower},{upper},{}", v.count_since_last_iteration());
        lower = upper + 1;
    }
    hist
}

/// The response time to a traffic change (Dragonfly spec §4.3, §5: "until the average latency
/// approximately converges", Fig 4-19): over the bins that start at or after the change
/// `change` (each `(end cycle, value)`, `None` for a bin that delivered nothing), the reference
/// is the mean of the values of the last quarter of those bins; the response ends at the end
/// of the first bin from which every later value lies within `band` of the reference (`band`
/// relative when `relative`, else absolute). Returns the cycles from the change to that end;
/// `None` without bins after the change or when the last bin is still outside the band.
pub(crate) fn response_time(
    bins: &[(u64, Option<f64>)],
    change: u64,
    band: f64,
    relative: bool,
) -> Option<u64> {
    if bins.is_empty() {
        return None;
    }
    let tail = &bins[bins.len() - bins.len().div_ceil(4)..];
    let vals: Vec<f64> = tail.iter().filter_map(|b| b.1).collect();
    if vals.is_empty() {
        return None;
    }
    let reference = vals.iter().sum::<f64>() / vals.len() as f64;
    let tol = if relative {
        band * reference.abs()
    } else {
        band
    };
    let inside = |v: Option<f64>| v.is_none_or(|x| (x - reference).abs() <= tol);
    // the last bin outside the band; the response ends where the bins after it begin
    match bins.iter().rposition(|b| !inside(b.1)) {
        None => Some(0),
        Some(i) if i + 1 == bins.len() => None,
        Some(i) => Some(bins[i].0 - change),
    }
}

/// The response of a transient run ([`response_time`]): the latency within ±10 % of its final
/// level, the non-minimal share within ±0.05 of its final level.
fn transient_response(net: &CycleNet) -> Option<serde_json::Value> {
    let st = &net.stats;
    let change = net.terms.traffic.change_cycle()?;
    if change == 0 || change >= st.stop {
        return None;
    }
    let mut lat = Vec::new();
    let mut nonmin = Vec::new();
    for (i, b) in st.bins.iter().enumerate() {
        let t0 = i as u64 * st.bin_cycles;
        if t0 >= st.stop {
            break;
        }
        if t0 < change {
            continue;
        }
        let t1 = (t0 + st.bin_cycles).min(st.stop);
        let d = (b.delivered > 0).then_some(b.delivered as f64);
        lat.push((t1, d.map(|d| b.lat_sum as f64 / d)));
        nonmin.push((t1, d.map(|d| b.nonmin as f64 / d)));
    }
    let us = |c: Option<u64>| c.map(|c| r6(c as f64 / 1000.0));
    let (l, n) = (
        response_time(&lat, change, 0.10, true),
        response_time(&nonmin, change, 0.05, false),
    );
    Some(json!({
        "change_cycle": change,
        "latency_cycles": l,
        "latency_us": us(l),
        "nonminimal_cycles": n,
        "nonminimal_us": us(n),
        "rule": "from the change to the end of the first stats.bin_cycles bin after which every bin stays within the band of the mean of the last quarter of the bins after the change: latency ±10 %, non-minimal share ±0.05 (null: still outside at the end); 1 cycle = 1 ns",
    }))
}

/// Stage 5 of [`write`]: `bins.csv`, the figures of every `stats.bin_cycles` bin.
fn bins_csv(net: &CycleNet, dragonfly: bool) -> String {
    let st = &net.stats;
    let mut bins = String::from(
        "start_cycle,end_cycle,generated,delivered,accepted_load,latency_mean,nonminimal_fraction",
    );
    if dragonfly {
        for c in PathClass::ALL {
            let _ = write!(bins, ",paths_{}", c.name());
        }
    }
    bins.push('\n');
    for (i, b) in st.bins.iter().enumerate() {
        let t0 = i as u64 * st.bin_cycles;
        if t0 >= st.stop {
            break;
        }
        let t1 = (t0 + st.bin_cycles).min(st.stop);
        let d = b.delivered.max(1) as f64;
        let _ = writeln!(
            bins,
            "{t0},{t1},{},{},{},{},{}",
            b.generated,
            b.delivered,
            r6(b.delivered_phits as f64
                / net.terms.traffic.active_count(t0).max(1) as f64
                / (t1 - t0) as f64),
            r6(b.lat_sum as f64 / d),
            r6(b.nonmin as f64 / d)
        );
        if dragonfly {
            bins.pop();
            for c in PathClass::ALL {
                let _ = write!(bins, ",{}", r6(b.paths[c as usize] as f64 / d));
            }
            bins.push('\n');
        }
    }
    bins
}

/// Writes the results folder of a cycle-level run; returns the `summary.json` text. An
/// interrupted run (`ending`) has simulated the cycles `[0, stats.stop)`: its summary says
/// `"complete": false` and gives `simulated_cycles` and `planned_cycles`. Stages: the window's
/// figures ([`window_figures`]), the summary with the mechanisms' outputs ([`summary`]), the
/// tables ([`routers_csv`], [`latency_hist_csv`], [`bins_csv`]), then the folder, written
/// atomically.
pub(crate) fn write(
    net: &CycleNet,
    l: &LoadedScenario,
    out: &Path,
    wall_s: f64,
    c: Counts,
    ending: Ending,
) -> Result<String> {
    let dragonfly = matches!(net.routing.paths, Paths::Dragonfly(_));
    let figures = window_figures(net, &c);
    let mut files: Vec<(&str, String)> = Vec::new();
    let text = summary(net, l, (wall_s, &c, ending), &figures, &mut files)?;
    let routers = routers_csv(net, &figures, dragonfly);
    let hist = latency_hist_csv(net);
    let bins = bins_csv(net, dragonfly);
    let scenario = toml::to_string(&l.merged).unwrap_or_default();
    let marker = Marker::results(ending.is_complete(), ending.stop_reason());
    write_folder(
        out,
        &[
            ("routers.csv", routers.as_str()),
            ("latency_hist.csv", hist.as_str()),
            ("bins.csv", bins.as_str()),
            ("scenario.toml", scenario.as_str()),
            ("summary.json", text.as_str()),
        ]
        .into_iter()
        .chain(files.iter().map(|(n, t)| (*n, t.as_str())))
        .collect::<Vec<_>>(),
        &marker,
        &crate::stats::results_folder::protected(l),
    )?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A window of 2,000 measured cycles after 2,000 warm-up cycles at load 0.5 (10-phit
    /// packets: 100 packets per node) that accepts `accepted` and whose sources grew by
    /// `growth` packets per node; the packets' mean latency is 600 cycles.
    fn window(accepted: f64, growth: f64) -> Window {
        Window {
            stopped_early: false,
            growth,
            generated_packets: 100.0,
            generated_load: 0.5,
            accepted_load: accepted,
            delivered: 10_000,
            mean_latency: 600.0,
            settle: 2000.0,
            measured: 2000,
            pkt_phits: 10,
        }
    }

    #[test]
    fn growing_queues_or_a_deficit_mark_saturation() {
        let ok = window(0.499, 0.5).saturation();
        assert_eq!((ok.saturated, ok.undecided), (false, false), "{ok:?}");
        // the sources' queues grew by 10 packets per node (10 % of what a node generated)
        assert!(window(0.499, 10.0).saturation().saturated);
        // 2 packets per node are not enough, nor 5 % of what a node generated
        assert!(!window(0.499, 2.0).saturation().saturated);
        let mut big = window(0.499, 40.0);
        big.generated_packets = 1000.0;
        assert!(!big.saturation().saturated);
        // accepted well below generated with the sources' queues flat (the network's buffers
        // took the rest): 8 % of the packets, 8 per node
        assert!(window(0.46, 0.0).saturation().saturated);
        assert!(
            !window(0.48, 0.0).saturation().saturated,
            "4 % is within the noise"
        );
        // the early stop
        let mut w = window(0.5, 0.0);
        w.stopped_early = true;
        assert!(w.saturation().saturated);
    }

    #[test]
    fn a_window_opening_on_a_filling_network_allows_for_the_fill() {
        // no warm-up, mean latency 600 of a 2,000-cycle window: up to 30 % of the packets may
        // still be in flight, so a 25 % deficit is no sign of saturation, 50 % is
        let mut w = window(0.375, 0.0);
        w.settle = 0.0;
        let v = w.saturation();
        assert!(!v.saturated);
        assert!(v.undecided, "a 10 % deficit cannot be seen");
        assert!(v.warnings[0].contains("mean latency (600 cycles)"), "{v:?}");
        w.accepted_load = 0.2;
        assert!(w.saturation().saturated);
        // a traffic change inside the window counts as a start
        let mut t = window(0.375, 0.0);
        t.settle = -500.0;
        assert!(!t.saturation().saturated && t.saturation().undecided);
    }

    #[test]
    fn too_few_packets_leave_the_point_undecided() {
        // 0.05 phits/node/cycle: 10 packets per node in the window, a 10 % deficit is 1 packet
        let mut w = window(0.05, 0.0);
        w.generated_load = 0.05;
        w.generated_packets = 10.0;
        let v = w.saturation();
        assert_eq!((v.saturated, v.undecided), (false, true));
        assert!(
            v.warnings[0].contains("10.0 packets each") && v.warnings[0].contains("4000"),
            "{v:?}"
        );
        // nothing delivered at all
        let mut n = window(0.0, 0.0);
        n.delivered = 0;
        n.generated_packets = 1.0;
        let v = n.saturation();
        assert!(!v.saturated && v.undecided, "{v:?}");
        assert!(v
            .warnings
            .iter()
            .any(|m| m.contains("no packet was delivered")));
        // no traffic: nothing to decide
        let mut z = window(0.0, 0.0);
        z.generated_packets = 0.0;
        z.generated_load = 0.0;
        assert_eq!(
            z.saturation(),
            Verdict {
                saturated: false,
                undecided: false,
                warnings: vec![]
            }
        );
    }
}

#[cfg(test)]
mod response_tests {
    use super::response_time;

    /// The response ends at the end of the first bin after which every bin stays within the
    /// band of the final level (the mean of the last quarter of the bins): here the values
    /// settle at 100 from the bin ending at 40 (change at 0, bins of 10 cycles).
    #[test]
    fn response_time_on_hand_made_bins() {
        let v = [300.0, 250.0, 180.0, 105.0, 98.0, 100.0, 102.0, 100.0];
        let bins: Vec<(u64, Option<f64>)> = v
            .iter()
            .enumerate()
            .map(|(i, &x)| ((i as u64 + 1) * 10, Some(x)))
            .collect();
        // reference: mean of the last 2 bins = 101; band ±10.1: 180 (ends at 30) is the last out
        assert_eq!(response_time(&bins, 0, 0.10, true), Some(30));
        // an absolute band of 1 around 101: 98 (ends at 50) is the last out
        assert_eq!(response_time(&bins, 0, 1.0, false), Some(50));
        // empty bins never count as out; a last bin out of the band: no response yet
        let mut b2 = bins.clone();
        b2[6].1 = None;
        assert_eq!(response_time(&b2, 0, 0.10, true), Some(30));
        let mut b3 = bins.clone();
        b3[7].1 = Some(500.0);
        assert_eq!(response_time(&b3, 0, 0.10, true), None);
        assert_eq!(response_time(&[], 0, 0.1, true), None);
        // settled from the start
        assert_eq!(response_time(&bins[4..], 40, 0.10, true), Some(0));
    }
}
