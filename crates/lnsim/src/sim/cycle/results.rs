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
use super::run::Counts;
use super::CycleNet;
use crate::config::LoadedScenario;
use crate::error::{Error, Result};
use crate::stats::fairness::jain;
use hdrhistogram::Histogram;
use serde_json::json;
use std::fmt::Write as _;
use std::path::Path;

/// One time bin of `bins.csv` (whole run, warm-up included).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Bin {
    generated: u64,
    delivered: u64,
    delivered_phits: u64,
    lat_sum: u64,
    nonmin: u64,
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
    w_hops: u64,
    w_lat_sum: u64,
    w_net_sum: u64,
    lat: LatCounts,
    net: LatCounts,
    router_inj: Vec<u64>,
    router_acc: Vec<u64>,
    bins: Vec<Bin>,
    /// Index of the bin of the last recorded cycle and its first cycle (`bin_cycles · index`):
    /// [`CycleStats::bin`] divides only when the cycle leaves that bin.
    bin_idx: usize,
    bin_lo: u64,
    at_sources_start: Option<u64>,
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
            w_hops: 0,
            w_lat_sum: 0,
            w_net_sum: 0,
            lat: LatCounts::new(),
            net: LatCounts::new(),
            router_inj: vec![0; routers as usize],
            router_acc: vec![0; routers as usize],
            bins: vec![Bin::default(); end.div_ceil(bin_cycles) as usize],
            bin_idx: 0,
            bin_lo: 0,
            at_sources_start: None,
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
    /// phit is consumed at `done`.
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
        }
        if sent >= self.warmup {
            self.w_delivered += 1;
            self.w_delivered_phits += phits as u64;
            self.w_nonmin += lk.st.nonminimal as u64;
            self.w_hops += lk.hops as u64;
            self.w_lat_sum += lat;
            self.w_net_sum += done - p.t_net;
            self.lat.record(lat);
            self.net.record(done - p.t_net);
            self.router_acc[dst_router as usize] += phits as u64;
        }
    }

    /// Remembers the packets waiting at the sources when the measurement starts.
    pub fn mark_sources(&mut self, n: u64) {
        self.at_sources_start = Some(n);
    }
}

fn r6(x: f64) -> f64 {
    if x.is_finite() {
        (x * 1e6).round() / 1e6
    } else {
        0.0
    }
}

/// Writes the results folder of a finished cycle-level run; returns the `summary.json` text.
pub(crate) fn write(
    net: &CycleNet,
    l: &LoadedScenario,
    out: &Path,
    wall_s: f64,
    c: Counts,
) -> Result<String> {
    let st = &net.stats;
    let (lat, nlat) = (st.lat.histogram(), st.net.histogram());
    let measured = st.stop.saturating_sub(net.warmup).max(1);
    let active = net
        .traffic
        .active_count(net.warmup.min(st.stop.saturating_sub(1)))
        .max(1) as f64;
    let per_node = |phits: u64| r6(phits as f64 / active / measured as f64);
    let offered = net.traffic.load_at(st.stop.saturating_sub(1));
    let accepted = per_node(st.w_delivered_phits);
    let generated = per_node(st.w_generated);
    let p = net.terminals / net.routers.max(1);
    let per_router = |v: &[u64]| -> Vec<f64> {
        v.iter()
            .map(|&x| x as f64 / p.max(1) as f64 / measured as f64)
            .collect()
    };
    let acc_r = per_router(&st.router_acc);
    let inj_r = per_router(&st.router_inj);
    let (min_r, max_r) = inj_r
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    // saturated: stopped early, or the sources' queues grew over the window by more than 2
    // packets per node and 5 % of what was generated
    let start = st.at_sources_start.unwrap_or(0);
    let growth = c.at_sources.saturating_sub(start) as f64 / active;
    let gen_pkts = st.w_generated as f64 / net.pkt_phits as f64 / active;
    let saturated = st.stopped_early || (growth > 2.0 && growth > 0.05 * gen_pkts);
    let n = st.w_delivered.max(1) as f64;
    let q = |h: &Histogram<u64>, x: f64| {
        if h.is_empty() {
            0
        } else {
            h.value_at_quantile(x)
        }
    };
    let s = &l.scenario;
    let policy = match net.routing.alg {
        crate::routing::candidates::Algorithm::Vlb
        | crate::routing::candidates::Algorithm::Ugal
        | crate::routing::candidates::Algorithm::Pb => Some(net.routing.policy.name()),
        _ => None,
    };
    let routing_name = s
        .routing
        .algorithm
        .map(|a| a.name().to_string())
        .unwrap_or_else(|| "dor".into());
    let events_per_s = st.phit_hops as f64 / wall_s.max(1e-9);
    let summary = json!({
        "scenario": l.name,
        "model": "cycle",
        "version": crate::VERSION,
        "seed": s.sim.seed,
        "wall_time_s": r6(wall_s),
        "peak_rss_bytes": crate::stats::peak_rss_bytes(),
        "topology": st.topology,
        "routing": routing_name,
        "vlb_policy": policy,
        "pattern": net.traffic.label(),
        "change_cycle": net.traffic.change_cycle(),
        "packet_phits": net.pkt_phits,
        "offered_load": r6(offered),
        "generated_load": generated,
        "injected_load": per_node(st.w_injected),
        "accepted_load": accepted,
        "latency_cycles": {
            "mean": r6(st.w_lat_sum as f64 / n),
            "p50": q(&lat, 0.5),
            "p99": q(&lat, 0.99),
            "max": lat.max(),
        },
        "network_latency_cycles": {
            "mean": r6(st.w_net_sum as f64 / n),
            "p50": q(&nlat, 0.5),
            "p99": q(&nlat, 0.99),
        },
        "nonminimal_fraction": r6(st.w_nonmin as f64 / n),
        "avg_hops": r6(st.w_hops as f64 / n),
        "saturated": saturated,
        "stopped_early": st.stopped_early,
        "warmup_cycles": net.warmup,
        "measured_cycles": measured,
        "active_nodes": active as u64,
        "fairness": {
            "jain_routers": jain(&inj_r).map(r6),
            "min_router_load": r6(if min_r.is_finite() { min_r } else { 0.0 }),
            "max_router_load": r6(max_r),
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
    let text =
        serde_json::to_string_pretty(&summary).map_err(|e| Error::Internal(e.to_string()))? + "\n";

    let mut routers = String::from("router,name,injected_load,accepted_load\n");
    for r in 0..net.routers as usize {
        let _ = writeln!(
            routers,
            "{r},{},{},{}",
            net.router_names[r],
            r6(inj_r[r]),
            r6(acc_r[r])
        );
    }
    let mut hist = String::from("lo_cycles,hi_cycles,count\n");
    let mut lower = 0u64;
    for v in lat.iter_recorded() {
        let upper = lat.highest_equivalent(v.value_iterated_to());
        let _ = writeln!(hist, "{lower},{upper},{}", v.count_since_last_iteration());
        lower = upper + 1;
    }
    let mut bins = String::from("start_cycle,end_cycle,generated,delivered,accepted_load,latency_mean,nonminimal_fraction\n");
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
                / net.traffic.active_count(t0).max(1) as f64
                / (t1 - t0) as f64),
            r6(b.lat_sum as f64 / d),
            r6(b.nonmin as f64 / d)
        );
    }
    let scenario = toml::to_string(&l.merged).unwrap_or_default();
    crate::stats::output::write_folder(
        out,
        &[
            ("routers.csv", routers.as_str()),
            ("latency_hist.csv", hist.as_str()),
            ("bins.csv", bins.as_str()),
            ("scenario.toml", scenario.as_str()),
            ("summary.json", text.as_str()),
        ],
    )?;
    Ok(text)
}
