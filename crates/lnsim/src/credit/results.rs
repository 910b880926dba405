//! The results folder (issue 2 item 6): `summary.json`, `nodes.csv`, `flows.csv`,
//! `latency_hist.csv`, `buffers.csv`, `output_buffers.csv` (drb-and-ddbbm spec B.5),
//! `links.csv` (drb-and-ddbbm spec A.7), `routes.csv` (routes of every HCA pair per link,
//! `credit/routing/route_balance.rs`), `scenario.toml` and the `.lnsim` marker. Everything is
//! written by [`crate::outdir::write_folder`]: into a temporary sibling folder that is swapped
//! into place at the end, so a failed run leaves no `summary.json`, an old results folder is
//! replaced whole, and a folder lnsim did not write is never replaced.
//!
//! [`write_results`] runs named stages, in this order:
//! 1. what every stage reads (`Ctx`: HCA names, the warm-up and fairness windows) and the
//!    per-node byte totals (`NodeTotals`);
//! 2. the summary fields (`summary_json`), built from the per-node table (`nodes_json`),
//!    the per-flow table (`flows_json`), fairness (`fairness_json`), latency
//!    (`latency_json`), message latency and offered/accepted load in the measurement window
//!    (`message_latency_json`, `load_json`: drb-and-ddbbm spec A.7), the hot spot's links
//!    (`hotspot_json`: spec A.8 R-A8) and congestion management (`cc_json`);
//! 3. the time bins: bytes per node and interval (`nodes_csv`), buffer occupancy per
//!    interval (`buffers_csv`; the output queues' in `output_buffers_csv`), data bytes per
//!    switch-output link and interval (`links_csv`);
//! 4. the per-flow table (`flows_csv`);
//! 5. the congestion-control tables (`cc_ports_csv`, `ccti_csv`); every other mechanism's
//!    summary fields and tables come from its own file through
//!    [`crate::credit::cc::CongestionManagement::outputs`] (DDBBM: `cc/ddbbm_detection.rs`;
//!    DRB: `cc/drb.rs`; IBA_CC-S1: `cc/ib_s1.rs`; their port monitor: `cc/port_monitor.rs`);
//! 6. the figures' data: the latency histogram (`latency_hist_csv`);
//! 7. writing the folder ([`write_folder`]).

use crate::config::{LoadedScenario, PS_PER_S};
use crate::credit::cc::{r6, secs, IbCc, OutputContext};
use crate::credit::stats::reception;
use crate::credit::stats::Stats;
use crate::credit::Conservation;
use crate::credit::Net;
use crate::engine::run_outcome::Ending;
use crate::error::{Error, Result};
use crate::outdir::{write_folder, Marker};
use crate::stats::fairness::jain;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// Most flows listed in `summary.json` (all are in `flows.csv`).
const MAX_SUMMARY_FLOWS: usize = 1000;

fn gbps(bytes: u64, ps: u64) -> f64 {
    if ps == 0 {
        0.0
    } else {
        bytes as f64 * 8.0 / (ps as f64 / PS_PER_S as f64) / 1e9
    }
}

/// Data rate of the link of HCA number `h` (its first port), in Gbit/s (0 when unconnected).
fn link_gbps(net: &Net, h: usize) -> f64 {
    let node = &net.fabric.nodes[net.fabric.hcas[h] as usize];
    node.ports
        .first()
        .map_or(0.0, |p| p.link.rate.bits_per_s() / 1e9)
}

/// `x` rounded to 6 decimals when `measured`, else null: a figure of a window the run never
/// reached.
fn measured(measured: bool, x: f64) -> Value {
    if measured {
        json!(r6(x))
    } else {
        Value::Null
    }
}

/// Writes the results folder of a run and returns the `summary.json` text. `ending` says
/// whether the run reached its end time; an interrupted run has simulated up to `net.engine.end`
/// (its summary says `"complete": false` and gives `planned_sim_time_s`, the end time it was
/// configured with).
pub fn write_results(
    net: &Net,
    l: &LoadedScenario,
    out: &Path,
    wall_s: f64,
    c: Conservation,
    ending: Ending,
) -> Result<String> {
    let ctx = Ctx::new(net);
    let totals = NodeTotals::new(net, &ctx);
    let mut summary = summary_json(net, l, &ctx, &totals, wall_s, c, ending);
    // the congestion management's own results (its `outputs` hook)
    let mech = net.cc.outputs(&OutputContext {
        names: &ctx.names,
        interval: ctx.interval,
        first_after_warm: ctx.measured.then_some(ctx.first_after_warm as u32),
        traffic: &net.traffic,
        fabric: &net.fabric,
        node_of: &net.links.node_of,
        port_base: &net.links.port_base,
    });
    for (k, v) in mech.fields {
        summary[k] = v;
    }
    let text = crate::stats::natural::to_json_pretty(&summary)
        .map_err(|e| Error::Internal(e.to_string()))?
        + "\n";

    let mut files: Vec<(&str, String)> = vec![
        ("nodes.csv", nodes_csv(&net.stats, &ctx)),
        ("flows.csv", flows_csv(net, &ctx)),
    ];
    if let Some(ib) = ctx.ib {
        files.push(("cc_ports.csv", cc_ports_csv(net, ib)));
        files.push(("ccti.csv", ccti_csv(net, &ctx, ib)));
    }
    files.extend(mech.files);
    files.push(("latency_hist.csv", latency_hist_csv(&net.stats)));
    files.push(("routes.csv", net.routes.balance.csv(&net.fabric)));
    if net.stats.buffers.is_some() {
        files.push(("buffers.csv", buffers_csv(net, &ctx)));
    }
    if net.stats.out_buffers.is_some() {
        files.push(("output_buffers.csv", output_buffers_csv(net, &ctx)));
    }
    if l.scenario.stats.links {
        files.push(("links.csv", links_csv(net, &ctx)));
    }
    files.push((
        "scenario.toml",
        toml::to_string(&l.merged).unwrap_or_default(),
    ));
    files.push(("summary.json", text.clone()));

    let refs: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let marker = Marker::results(ending.is_complete(), ending.stop_reason());
    write_folder(
        out,
        &refs,
        &marker,
        &crate::stats::results_folder::protected(l),
    )?;
    Ok(text)
}

/// What every stage reads.
struct Ctx<'a> {
    /// HCA names, by HCA index.
    names: Vec<&'a str>,
    /// End of the simulated time.
    end: u64,
    /// Statistics interval.
    interval: u64,
    /// The first interval that starts at or after the warm-up's end.
    first_after_warm: usize,
    /// Its start: the averages "after warm-up" cover `[warm_start, end]`.
    warm_start: u64,
    /// The run went past `warm_start`: there is an after-warm-up window. A run interrupted
    /// before the warm-up's end has none, and its after-warm-up figures are null (no rate
    /// over an empty or negative window).
    measured: bool,
    /// Length of the fairness window (from `stats.window` to the end).
    window_ps: u64,
    /// The InfiniBand CC state, when it ran.
    ib: Option<&'a IbCc>,
}

impl<'a> Ctx<'a> {
    fn new(net: &'a Net) -> Self {
        let st = &net.stats;
        let interval = st.nodes.interval;
        let first_after_warm = (st.warmup / interval) as usize;
        Ctx {
            names: net
                .fabric
                .hcas
                .iter()
                .map(|&h| net.fabric.nodes[h as usize].name.as_str())
                .collect(),
            end: net.engine.end,
            interval,
            first_after_warm,
            warm_start: first_after_warm as u64 * interval,
            measured: net.engine.end > first_after_warm as u64 * interval,
            window_ps: net.engine.end.saturating_sub(st.window),
            ib: net.cc.ib(),
        }
    }

    /// Seconds flow `i` was held back by the injection-rate delay.
    fn throttled_s(&self, i: usize) -> f64 {
        self.ib
            .and_then(|ib| ib.ca.throttled.get(i).copied())
            .unwrap_or(0) as f64
            / PS_PER_S as f64
    }
}

/// Bytes sent (`[0]`) and received (`[1]`) per HCA, over the run and after warm-up.
struct NodeTotals {
    /// Over the whole run.
    all: Vec<[u64; 2]>,
    /// In the intervals after warm-up.
    after: Vec<[u64; 2]>,
    /// Length of the after-warm-up part.
    after_ps: u64,
    /// Per HCA: bytes received after warm-up per second over its link's bytes per second
    /// (spec B.7).
    rx_fraction: Vec<f64>,
    /// Per HCA: the traffic offered to it after warm-up over its link's rate (spec B.7).
    offered_fraction: Vec<f64>,
}

impl NodeTotals {
    fn new(net: &Net, ctx: &Ctx) -> Self {
        let st = &net.stats;
        let ns = &st.nodes;
        let mut all = vec![[0u64; 2]; ns.n_hca];
        let mut after = vec![[0u64; 2]; ns.n_hca];
        for i in 0..ns.n_int {
            for h in 0..ns.n_hca {
                let b = ns.bytes[i * ns.n_hca + h];
                all[h][0] += b[0];
                all[h][1] += b[1];
                if i >= ctx.first_after_warm {
                    after[h][0] += b[0];
                    after[h][1] += b[1];
                }
            }
        }
        let after_ps = ctx.end.saturating_sub(ctx.warm_start);
        let link_bytes_per_s = |h: u32| link_gbps(net, h as usize) * 1e9 / 8.0;
        let share = |bytes_per_s: f64, h: usize| {
            let l = link_bytes_per_s(h as u32);
            if l > 0.0 {
                bytes_per_s / l
            } else {
                0.0
            }
        };
        let secs_after = secs(after_ps);
        let rx_fraction = (0..ns.n_hca)
            .map(|h| {
                if secs_after > 0.0 {
                    share(after[h][1] as f64 / secs_after, h)
                } else {
                    0.0
                }
            })
            .collect();
        let offered = net
            .traffic
            .offered_to(&link_bytes_per_s, ctx.warm_start, ctx.end);
        let offered_fraction = offered
            .iter()
            .enumerate()
            .map(|(h, &b)| share(b, h))
            .collect();
        NodeTotals {
            all,
            after,
            after_ps,
            rx_fraction,
            offered_fraction,
        }
    }

    /// Network total of direction `k` (0 sent, 1 received) in `v`.
    fn sum(v: &[[u64; 2]], k: usize) -> u64 {
        v.iter().map(|x| x[k]).sum()
    }
}

// --- 2. the summary fields

/// `summary.json`.
#[allow(clippy::too_many_arguments)]
fn summary_json(
    net: &Net,
    l: &LoadedScenario,
    ctx: &Ctx,
    t: &NodeTotals,
    wall_s: f64,
    c: Conservation,
    ending: Ending,
) -> Value {
    let st = &net.stats;
    let end = ctx.end;
    let sum = NodeTotals::sum;
    let mut summary = json!({
        "scenario": l.name,
        "complete": ending.is_complete(),
        "model": l.model().name(),
        "seed": l.scenario.sim.seed,
        "version": crate::VERSION,
        "sim_time_s": secs(end),
        "interval_s": secs(ctx.interval),
        "warmup_s": secs(ctx.warm_start),
        "wall_time_s": r6(wall_s),
        "events": net.engine.events,
        "flit_hops": net.engine.flit_hops,
        "packet_hops": net.engine.packet_hops,
        "peak_rss_bytes": crate::stats::peak_rss_bytes(),
        "throughput": {
            "total_rx_gbps": r6(gbps(sum(&t.all, 1), end)),
            "total_tx_gbps": r6(gbps(sum(&t.all, 0), end)),
            "rx_gbps_after_warmup": measured(ctx.measured, gbps(sum(&t.after, 1), t.after_ps)),
            "tx_gbps_after_warmup": measured(ctx.measured, gbps(sum(&t.after, 0), t.after_ps)),
            // the same in gigabytes per second: [Z] sums per-node MB/s (docs/scenarios.md)
            "total_rx_gbytes_per_s": r6(gbps(sum(&t.all, 1), end) / 8.0),
            "total_tx_gbytes_per_s": r6(gbps(sum(&t.all, 0), end) / 8.0),
            // spec B.7: mean over the end nodes of bytes received after warm-up / link rate
            "accepted_per_node": measured(ctx.measured, mean(&t.rx_fraction)),
        },
        "message_latency_ns": message_latency_json(st),
        "nodes": nodes_json(net, ctx, t),
        "flows": flows_json(net, ctx),
        "flows_total": net.traffic.flows.len(),
        "latency_ns": latency_json(&st.latency, st.latency_sum),
        "network_latency_ns": latency_json(&st.net_latency, st.net_latency_sum),
        "fairness": fairness_json(net, ctx, t),
        "delivery": {
            // spec B.3.6, B.7: packets delivered after a later packet of their flow
            "out_of_order_packets": net.traffic.flows.iter().map(|f| f.out_of_order).sum::<u64>(),
        },
        "cc": cc_json(ctx.ib),
        "route_balance": net.routes.balance.summary_json(&net.fabric),
        "deadlock": net.engine.deadlock.as_ref().map(|d| json!({
            "time_s": secs(d.time),
            "blocked_packets": d.blocked_packets,
            "cycle": d.cycle,
        })),
        "conservation": {
            "injected_packets": c.injected, "delivered_packets": c.delivered,
            "in_network_packets": c.in_network, "ok": true,
        },
    });
    if let (Value::Object(tp), Value::Object(load)) = (&mut summary["throughput"], load_json(net)) {
        tp.extend(load);
    }
    if let Some(t) = net.routes.lane_choice.path_sl() {
        // only when the routing assigns an SL per pair (dfsssp): the pairs on each VL layer
        summary["routing"] = json!({ "layers": t.pairs_per_sl() });
    }
    if !net.traffic.jobs.is_empty() {
        // only when a flow or generator names a job: other summaries stay as they were
        summary["jobs"] = Value::Object(jobs_json(net, ctx));
    }
    if let Some(h) = st.hotspot {
        summary["hotspot"] = hotspot_json(net, ctx, h);
    }
    if let Some(ib) = net
        .fabric
        .ib
        .as_deref()
        .filter(|ib| !ib.warnings.is_empty())
    {
        // what the fabric's import skipped (`lnsim run` prints them)
        summary["warnings"] = json!(ib.warnings);
    }
    if let Some(fc) = &net.links.flow_control {
        // only with `links.flow_control = "packets"`: default outputs stay as they were
        summary["flow_control_packets"] = json!(fc.sent);
    }
    if let Ending::Interrupted { planned_end } = ending {
        summary["stop_reason"] = json!(ending.stop_reason());
        summary["planned_sim_time_s"] = json!(secs(planned_end));
    }
    summary
}

/// The per-node table of the summary: every HCA that sent or received something.
fn nodes_json(net: &Net, ctx: &Ctx, t: &NodeTotals) -> Map<String, Value> {
    let (end, all, after) = (ctx.end, &t.all, &t.after);
    let mut nodes = Map::new();
    for h in 0..all.len() {
        if all[h] == [0, 0] {
            continue;
        }
        let mut node = json!({
                "tx_bytes": all[h][0], "rx_bytes": all[h][1],
                "tx_gbps": r6(gbps(all[h][0], end)), "rx_gbps": r6(gbps(all[h][1], end)),
                "tx_gbps_after_warmup": measured(ctx.measured, gbps(after[h][0], t.after_ps)),
                "rx_gbps_after_warmup": measured(ctx.measured, gbps(after[h][1], t.after_ps)),
                "link_gbps": r6(link_gbps(net, h)),
                // spec B.7: reception after warm-up and the traffic offered to it, as shares
                // of the link
                "rx_fraction": measured(ctx.measured, t.rx_fraction[h]),
                "offered_fraction": measured(ctx.measured, t.offered_fraction[h]),
        });
        if let Some(ib) = ctx.ib {
            node["cnps_sent"] = json!(ib.ca.cnps_sent[h]);
            node["cnps_received"] = json!(ib.ca.cnps_received[h]);
        }
        nodes.insert(ctx.names[h].to_string(), node);
    }
    nodes
}

/// The per-flow table of the summary: every flow, or the static ones when there are more than
/// [`MAX_SUMMARY_FLOWS`].
fn flows_json(net: &Net, ctx: &Ctx) -> Vec<Value> {
    let (names, end) = (&ctx.names, ctx.end);
    let flows = &net.traffic.flows;
    let flow_json = |(i, f): (usize, &crate::credit::traffic::Flow)| {
        json!({
            "throttled_s": r6(ctx.throttled_s(i)),
            "src": names[f.src as usize], "dst": names[f.dst as usize], "vl": f.vl, "static": f.is_static,
            "tx_bytes": f.tx_bytes, "rx_bytes": f.rx_bytes, "tx_packets": f.tx_packets, "rx_packets": f.rx_packets,
            "tx_gbps": r6(gbps(f.tx_bytes, end)), "rx_gbps": r6(gbps(f.rx_bytes, end)),
            "rx_gbps_window": measured(ctx.window_ps > 0, gbps(f.rx_bytes_window, ctx.window_ps)),
            "latency_mean_ns": if f.rx_packets > 0 { r6(f.latency_sum as f64 / f.rx_packets as f64 / 1000.0) } else { 0.0 },
        })
    };
    if flows.len() <= MAX_SUMMARY_FLOWS {
        flows.iter().enumerate().map(flow_json).collect()
    } else {
        flows
            .iter()
            .enumerate()
            .filter(|(_, f)| f.is_static)
            .take(MAX_SUMMARY_FLOWS)
            .map(flow_json)
            .collect()
    }
}

/// Per job (`traffic.flows[].job`, `traffic.generators[].job`): its sources and flows, the data
/// its flows received over the fairness window (`rx_gbps_window`, the job's throughput: a
/// victim job's is "victim throughput") and over the run, their mean packet latency, and Jain's
/// index over its sources' received rates in the window (null with fewer than two sources).
fn jobs_json(net: &Net, ctx: &Ctx) -> Map<String, Value> {
    let tr = &net.traffic;
    let mut out = Map::new();
    for (j, name) in tr.jobs.iter().enumerate() {
        let of_job = |s: u32| tr.source_job[s as usize] == Some(j as u32);
        let mut per_source: BTreeMap<u32, u64> = BTreeMap::new();
        for (s, _) in tr
            .sources
            .iter()
            .enumerate()
            .filter(|(s, _)| of_job(*s as u32))
        {
            per_source.insert(s as u32, 0);
        }
        let (mut rx, mut rx_win, mut pkts, mut lat, mut flows) = (0u64, 0u64, 0u64, 0u128, 0);
        for f in tr.flows.iter().filter(|f| of_job(f.source)) {
            flows += 1;
            rx += f.rx_bytes;
            rx_win += f.rx_bytes_window;
            pkts += f.rx_packets;
            lat += f.latency_sum;
            *per_source.entry(f.source).or_default() += f.rx_bytes_window;
        }
        let rates: Vec<f64> = per_source.values().map(|&b| b as f64).collect();
        out.insert(
            name.clone(),
            json!({
                "sources": per_source.len(),
                "flows": flows,
                "rx_bytes": rx,
                "rx_gbps": r6(gbps(rx, ctx.end)),
                "rx_gbps_window": measured(ctx.window_ps > 0, gbps(rx_win, ctx.window_ps)),
                "latency_mean_ns": if pkts > 0 { r6(lat as f64 / pkts as f64 / 1000.0) } else { 0.0 },
                "jain": if rates.len() >= 2 { jain(&rates).map(r6) } else { None },
            }),
        );
    }
    out
}

/// Jain's fairness index over the window: per destination with at least two flows, and for
/// one group of flows — those of `stats.fairness_sources`, else those to the destination with
/// the most flows (most bytes, then lowest index, breaking ties); and the HoL-blocking figures
/// of spec B.7 over the destinations that are not a hotspot ([`non_hot_json`]).
fn fairness_json(net: &Net, ctx: &Ctx, t: &NodeTotals) -> Value {
    let names = &ctx.names;
    let flows = &net.traffic.flows;
    let mut by_dst: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, f) in flows.iter().enumerate() {
        by_dst.entry(f.dst).or_default().push(i);
    }
    let mut per_dst = Map::new();
    for (d, fs) in &by_dst {
        if fs.len() >= 2 {
            let xs: Vec<f64> = fs
                .iter()
                .map(|&i| flows[i].rx_bytes_window as f64)
                .collect();
            if let Some(j) = jain(&xs) {
                per_dst.insert(names[*d as usize].to_string(), json!(r6(j)));
            }
        }
    }
    let group: Vec<usize> = match &net.hcas.fairness_sources {
        Some(srcs) => {
            let mut g = Vec::new();
            for &h in srcs {
                g.extend(
                    flows
                        .iter()
                        .enumerate()
                        .filter(|(_, f)| f.src == h)
                        .map(|(i, _)| i),
                );
            }
            g
        }
        None => by_dst
            .iter()
            .max_by_key(|(d, fs)| {
                (
                    fs.len(),
                    fs.iter().map(|&i| flows[i].rx_bytes).sum::<u64>(),
                    std::cmp::Reverse(**d),
                )
            })
            .map(|(_, fs)| fs.clone())
            .unwrap_or_default(),
    };
    let group_rates: Vec<f64> = group
        .iter()
        .map(|&i| flows[i].rx_bytes_window as f64)
        .collect();
    let group_names: Vec<String> = group
        .iter()
        .map(|&i| {
            format!(
                "{}->{}",
                names[flows[i].src as usize], names[flows[i].dst as usize]
            )
        })
        .collect();
    let mut v = json!({
        "jain": jain(&group_rates).map(r6),
        "flows": group_names,
        "window_start_s": secs(net.stats.window),
        "per_destination": per_dst,
    });
    if let (Value::Object(m), Value::Object(extra)) = (&mut v, non_hot_json(net, ctx, t)) {
        m.extend(extra);
    }
    v
}

/// Spec B.7 over the destinations that are not a hotspot of any generator (every HCA offered
/// some traffic after warm-up): Jain's index of their reception rates, their mean, least and
/// most reception (shares of their links), the victims (received < 90 % of the offered rate,
/// for those offered less than their link: how many and which) and the least received /
/// offered ratio ([`crate::credit::stats::reception`]).
fn non_hot_json(net: &Net, ctx: &Ctx, t: &NodeTotals) -> Value {
    let hot = net.traffic.hot_destinations();
    let hot_names: Vec<&str> = hot.iter().map(|&h| ctx.names[h as usize]).collect();
    if !ctx.measured {
        // no after-warm-up window: nothing was compared
        return json!({
            "rx_jain_non_hot": null, "non_hot_destinations": null, "hot_destinations": hot_names,
            "non_hot_rx_fraction": null, "victims": null, "victim_destinations": [],
            "victim_share": reception::VICTIM_SHARE, "min_over_expected": null,
        });
    }
    let members: Vec<usize> = (0..ctx.names.len())
        .filter(|&d| t.offered_fraction[d] > 0.0 && hot.binary_search(&(d as u32)).is_err())
        .collect();
    let r = reception::non_hot(&t.rx_fraction, &t.offered_fraction, &members);
    json!({
        "rx_jain_non_hot": r.jain.map(r6),
        "non_hot_destinations": r.destinations,
        "hot_destinations": hot_names,
        "non_hot_rx_fraction": r.rx.map(|x| json!({
            "mean": r6(x.mean), "min": r6(x.min), "max": r6(x.max),
        })),
        "victims": r.victims.len(),
        "victim_destinations": r.victims.iter().map(|&d| ctx.names[d]).collect::<Vec<_>>(),
        "victim_share": reception::VICTIM_SHARE,
        "min_over_expected": r.min_over_expected.map(r6),
    })
}

/// Mean of `v` (0 for an empty slice).
fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Count, mean (ns, from the exact sum `sum` in ps) and percentiles of a latency histogram.
fn latency_json(h: &hdrhistogram::Histogram<u64>, sum: u128) -> Value {
    let n = h.len();
    json!({
        "count": n,
        "mean": if n > 0 { r6(sum as f64 / n as f64 / 1000.0) } else { 0.0 },
        "p50": h.value_at_quantile(0.5), "p99": h.value_at_quantile(0.99), "max": h.max(),
    })
}

/// The measurement window of drb-and-ddbbm spec A.7 (A.10 #11: "report the window"): from
/// `sim.warmup` to the end of the run, in seconds.
fn measure_window(net: &Net) -> (f64, f64) {
    (secs(net.stats.warmup), secs(net.engine.end))
}

/// Message latency (drb-and-ddbbm spec A.7): generation → last packet consumed, source queueing
/// included, over the messages of Bernoulli and Poisson sources generated inside the measurement
/// window `[sim.warmup, end)` and wholly delivered by the end (`count`); `generated` counts the
/// window's messages, delivered or not (beyond saturation the difference grows, and so does the
/// latency with the run length).
fn message_latency_json(st: &Stats) -> Value {
    let mut v = latency_json(&st.msg_latency, st.msg_latency_sum);
    v["generated"] = json!(st.msgs_generated);
    v["window_start_s"] = json!(secs(st.warmup));
    v
}

/// Offered and accepted load per sending node in bits/µs over the measurement window
/// `[sim.warmup, end)` (drb-and-ddbbm spec A.7): wire bytes of the messages generated in the
/// window, and data bytes consumed at the sinks in it, each × 8 / window length in µs / the
/// number of HCAs with at least one source (a permutation's fixed points have none).
fn load_json(net: &Net) -> Value {
    let st = &net.stats;
    let senders = net.traffic.by_hca.iter().filter(|v| !v.is_empty()).count();
    let window_us = net.engine.end.saturating_sub(st.warmup) as f64 / 1e6;
    let per_node = |bytes: u64| {
        if window_us <= 0.0 {
            Value::Null // the run stopped before the window opened
        } else if senders == 0 {
            json!(0.0)
        } else {
            json!(r6(bytes as f64 * 8.0 / window_us / senders as f64))
        }
    };
    let (from, to) = measure_window(net);
    json!({
        "offered_bits_per_us_per_node": per_node(st.offered_bytes),
        "accepted_bits_per_us_per_node": per_node(st.accepted_bytes),
        "sending_nodes": senders,
        "measure_from_s": from,
        "measure_to_s": to,
    })
}

/// Mbit/s (= bits/µs) of `bytes` sent in interval `i` (its length cut at the end of the run).
fn interval_mbps(ctx: &Ctx, i: usize, bytes: u64) -> f64 {
    let t0 = i as u64 * ctx.interval;
    let len = ((i as u64 + 1) * ctx.interval)
        .min(ctx.end)
        .saturating_sub(t0);
    if len == 0 {
        0.0
    } else {
        bytes as f64 * 8.0 / (len as f64 / 1e6)
    }
}

/// The links into the switch of hot HCA `hca` (drb-and-ddbbm spec A.6, A.8 R-A8): every switch
/// output of another switch whose peer is that switch, then the switch's output to the HCA; as
/// global ports.
pub(crate) fn hotspot_links(net: &Net, hca: u32) -> Vec<u32> {
    let hg = net.hcas.hca_gport[hca as usize];
    let to_hca = net.links.peer[hg as usize];
    let sw = net.links.node_of[to_hca as usize];
    let mut v: Vec<u32> = (0..net.links.peer.len() as u32)
        .filter(|&g| {
            net.links.is_switch[g as usize]
                && net.links.node_of[g as usize] != sw
                && net.links.node_of[net.links.peer[g as usize] as usize] == sw
        })
        .collect();
    v.push(to_hca);
    v
}

/// `hotspot` of the summary (drb-and-ddbbm spec A.8 R-A8, R-A9): the hot HCA, its switch, the
/// start of the peak search, the highest per-interval data throughput (Mbit/s = bits/µs) on
/// the links into the switch over the intervals that end after it (`peak_link_mbps`, with
/// the link and interval), and each link with its own peak (`links`); with
/// `stats.hotspot_window`, the same over the sliding means of that many intervals
/// (`peak_window_mbps`, the window starting in the search); `measure`: `stats.link_measure`.
fn hotspot_json(net: &Net, ctx: &Ctx, h: crate::credit::stats::links::Hotspot) -> Value {
    let Some(ls) = &net.stats.links else {
        return Value::Null;
    };
    let first = (h.from / ctx.interval) as usize;
    let n_int = net.stats.nodes.n_int;
    let name = |g: u32| {
        let node = net.links.node_of[g as usize];
        net.fabric.nodes[node as usize].name.as_str()
    };
    let mut best: Option<(f64, u32, usize)> = None;
    let mut best_window: Option<f64> = None;
    let mut links = Vec::new();
    for g in hotspot_links(net, h.hca) {
        let i = ls.index[g as usize] as usize;
        let bytes = |k: usize| ls.bytes[k * ls.len() + i];
        let mut peak: Option<(f64, usize)> = None;
        for k in first..n_int {
            let mbps = interval_mbps(ctx, k, bytes(k));
            if peak.is_none_or(|(m, _)| mbps > m) {
                peak = Some((mbps, k));
            }
        }
        if let Some((m, k)) = peak {
            if best.is_none_or(|(b, _, _)| m > b) {
                best = Some((m, g, k));
            }
        }
        let mut link = json!({
            "from": name(g),
            "port": g - net.links.port_base[net.links.node_of[g as usize] as usize],
            "to": name(net.links.peer[g as usize]),
            "peak_mbps": r6(peak.map_or(0.0, |p| p.0)),
        });
        if let Some(w) = h.window {
            // the highest mean over `w` consecutive intervals starting in the search (the last
            // one cut at the run's end)
            let w = w as usize;
            let mut top: Option<f64> = None;
            for k in first..n_int.saturating_sub(w - 1) {
                let sum: u64 = (k..k + w).map(bytes).sum();
                let t0 = k as u64 * ctx.interval;
                let len = ((k + w) as u64 * ctx.interval).min(ctx.end) - t0;
                let mbps = sum as f64 * 8.0 / (len as f64 / 1e6);
                top = Some(top.map_or(mbps, |t: f64| t.max(mbps)));
            }
            let top = top.unwrap_or(0.0);
            best_window = Some(best_window.map_or(top, |b| b.max(top)));
            link["peak_window_mbps"] = json!(r6(top));
        }
        links.push(link);
    }
    let to_hca = net.links.peer[net.hcas.hca_gport[h.hca as usize] as usize];
    let mut out = json!({
        "measure": if ls.at_injection { "routed" } else { "wire" },
        "hca": ctx.names[h.hca as usize],
        "switch": name(to_hca),
        "from_s": secs(h.from),
        "peak_link_mbps": r6(best.map_or(0.0, |b| b.0)),
        "peak_link": best.map(|(_, g, _)| format!("{}->{}", name(g), name(net.links.peer[g as usize]))),
        "peak_t_start_s": best.map(|(_, _, k)| secs(k as u64 * ctx.interval)),
        "links": links,
    });
    if let Some(w) = h.window {
        out["window_s"] = json!(secs(w as u64 * ctx.interval));
        out["peak_window_mbps"] = json!(r6(best_window.unwrap_or(0.0)));
    }
    out
}

/// The congestion-control totals of the summary.
fn cc_json(ib: Option<&IbCc>) -> Value {
    match ib {
        None => json!({"enabled": false}),
        Some(ib) => json!({
            "enabled": true,
            "fecn_marks": ib.sw.marks.iter().sum::<u64>(),
            "cnps_sent": ib.ca.cnps_sent.iter().sum::<u64>(),
            "cnps_received": ib.ca.cnps_received.iter().sum::<u64>(),
            "max_ccti": ib.ca.max_ccti,
            "throttled_s": r6(secs(ib.ca.throttled.iter().sum::<u64>())),
        }),
    }
}

// --- 3. the time bins

/// `nodes.csv`: bytes sent and received per HCA and statistics interval.
fn nodes_csv(st: &Stats, ctx: &Ctx) -> String {
    let ns = &st.nodes;
    let mut s = String::from("t_start_s,node,tx_bytes,rx_bytes\n");
    for i in 0..ns.n_int {
        let t0 = secs(i as u64 * ns.interval);
        for (h, name) in ctx.names.iter().enumerate() {
            let b = ns.bytes[i * ns.n_hca + h];
            let _ = writeln!(s, "{t0},{name},{},{}", b[0], b[1]);
        }
    }
    s
}

/// `buffers.csv`: mean and highest occupancy of every tracked switch input buffer and VL per
/// statistics interval.
fn buffers_csv(net: &Net, ctx: &Ctx) -> String {
    let st = &net.stats;
    let ns = &st.nodes;
    let Some(b) = &st.buffers else {
        return String::new();
    };
    let mut s = String::from("t_start_s,switch,port,vl,mean_credits,max_credits\n");
    let vls = net.vls;
    let mut tracked: Vec<(u32, u32)> = Vec::new(); // (buffer index, gport)
    for (g, &bi) in net.sw.buf_index.iter().enumerate() {
        if bi != u32::MAX {
            tracked.push((bi, g as u32));
        }
    }
    for i in 0..ns.n_int {
        let t0 = i as u64 * ns.interval;
        let len = (((i as u64 + 1) * ns.interval).min(ctx.end))
            .saturating_sub(t0)
            .max(1);
        for &(bi, g) in &tracked {
            let node = net.links.node_of[g as usize];
            let port = g - net.links.port_base[node as usize];
            for v in 0..vls {
                let k = bi as usize * vls + v;
                let _ = writeln!(
                    s,
                    "{},{},{port},{v},{},{}",
                    secs(t0),
                    net.fabric.nodes[node as usize].name,
                    r6(b.integral[i * b.n + k] as f64 / len as f64),
                    b.max[i * b.n + k]
                );
            }
        }
    }
    s
}

/// `output_buffers.csv` (`stats.buffer_occupancy` with `switch.output_buffer_credits` > 0;
/// drb-and-ddbbm spec B.5 output buffers): per statistics interval, switch port, VL and output
/// queue of the VL (the queue of the next input's credit counter: `d mod Q` with DBBM, `Q` the
/// dynamic queue with DDBBM, the next switch's output with VOQsw; one per VL towards an HCA),
/// its share and the time-averaged and highest credits it held (from a packet's head arrival
/// until its tail has left on the wire).
fn output_buffers_csv(net: &Net, ctx: &Ctx) -> String {
    let st = &net.stats;
    let ns = &st.nodes;
    let (Some(b), Some(ob)) = (&st.out_buffers, &net.sw.obuf) else {
        return String::new();
    };
    let mut s =
        String::from("t_start_s,switch,port,vl,queue,capacity_credits,mean_credits,max_credits\n");
    let vls = net.vls;
    // (gport, its first output queue, its queues per VL)
    let ports: Vec<(u32, usize, usize)> = (0..net.links.peer.len() as u32)
        .filter_map(|g| {
            let r = ob.slots(g);
            (!r.is_empty()).then_some((g, r.start, r.len() / vls))
        })
        .collect();
    for i in 0..ns.n_int {
        let t0 = i as u64 * ns.interval;
        let len = (((i as u64 + 1) * ns.interval).min(ctx.end))
            .saturating_sub(t0)
            .max(1);
        for &(g, base, classes) in &ports {
            let node = net.links.node_of[g as usize];
            let port = g - net.links.port_base[node as usize];
            let name = &net.fabric.nodes[node as usize].name;
            for v in 0..vls {
                for c in 0..classes {
                    let q = base + c * vls + v;
                    let _ = writeln!(
                        s,
                        "{},{name},{port},{v},{c},{},{},{}",
                        secs(t0),
                        ob.cap(q),
                        r6(b.integral[i * b.n + q] as f64 / len as f64),
                        b.max[i * b.n + q]
                    );
                }
            }
        }
    }
    s
}

/// `links.csv` (`stats.links`; drb-and-ddbbm spec A.7, per-link throughput over time): per
/// statistics interval and switch output (switch → switch and switch → HCA link direction,
/// `from`'s port `port` to `to`), the data bytes whose transmission started in the interval and
/// their rate in Mbit/s (= bits/µs; the last interval's length is cut at the end of the run).
fn links_csv(net: &Net, ctx: &Ctx) -> String {
    let mut s = String::from("t_start_s,from,port,to,bytes,mbps\n");
    let Some(ls) = &net.stats.links else {
        return s;
    };
    let names: Vec<(&str, u32, &str)> = ls
        .gports
        .iter()
        .map(|&g| {
            let node = net.links.node_of[g as usize];
            let peer = net.links.node_of[net.links.peer[g as usize] as usize];
            (
                net.fabric.nodes[node as usize].name.as_str(),
                g - net.links.port_base[node as usize],
                net.fabric.nodes[peer as usize].name.as_str(),
            )
        })
        .collect();
    for i in 0..net.stats.nodes.n_int {
        let t0 = secs(i as u64 * ctx.interval);
        for (k, (from, port, to)) in names.iter().enumerate() {
            let b = ls.bytes[i * ls.len() + k];
            let _ = writeln!(
                s,
                "{t0},{from},{port},{to},{b},{}",
                r6(interval_mbps(ctx, i, b))
            );
        }
    }
    s
}

// --- 4. the per-flow table

/// `flows.csv`: every flow's totals, rates and mean latency.
fn flows_csv(net: &Net, ctx: &Ctx) -> String {
    let (names, end) = (&ctx.names, ctx.end);
    let mut s = String::from("src,dst,vl,static,tx_bytes,rx_bytes,tx_packets,rx_packets,tx_gbps,rx_gbps,rx_gbps_window,latency_mean_ns,throttled_s\n");
    for (i, f) in net.traffic.flows.iter().enumerate() {
        let lm = if f.rx_packets > 0 {
            f.latency_sum as f64 / f.rx_packets as f64 / 1000.0
        } else {
            0.0
        };
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            names[f.src as usize],
            names[f.dst as usize],
            f.vl,
            f.is_static,
            f.tx_bytes,
            f.rx_bytes,
            f.tx_packets,
            f.rx_packets,
            r6(gbps(f.tx_bytes, end)),
            r6(gbps(f.rx_bytes, end)),
            if ctx.window_ps > 0 {
                r6(gbps(f.rx_bytes_window, ctx.window_ps)).to_string()
            } else {
                String::new() // no fairness window: no rate
            },
            r6(lm),
            r6(ctx.throttled_s(i))
        );
    }
    s
}

// --- 5. the congestion-control tables

/// `cc_ports.csv`: FECN marks and time in the congestion state per switch output and VL.
fn cc_ports_csv(net: &Net, ib: &IbCc) -> String {
    let vls = net.vls;
    let mut s = String::from("switch,port,vl,fecn_marks,congested_s\n");
    for (g, &sw) in net.links.is_switch.iter().enumerate() {
        if !sw {
            continue;
        }
        let node = net.links.node_of[g] as usize;
        for v in 0..vls {
            let k = g * vls + v;
            let _ = writeln!(
                s,
                "{},{},{v},{},{}",
                net.fabric.nodes[node].name,
                g as u32 - net.links.port_base[node],
                ib.sw.marks[k],
                r6(secs(ib.sw.congested_time[k]))
            );
        }
    }
    s
}

/// `ccti.csv`: CCTI per flow (QP level) or per source SL, sampled at every interval's end.
fn ccti_csv(net: &Net, ctx: &Ctx, ib: &IbCc) -> String {
    let names = &ctx.names;
    let flows = &net.traffic.flows;
    let mut s = String::from("t_start_s,src,dst,vl,ccti_end,ccti_max\n");
    for &(i, key, end_c, max_c) in &ib.ca.series {
        let t0 = secs(i as u64 * ctx.interval);
        let (src, dst, vl) = if ib.ca.sl_level() {
            let v = ib.ca.vls();
            (names[key as usize / v], "*", key as usize % v)
        } else {
            let f = &flows[key as usize];
            (names[f.src as usize], names[f.dst as usize], f.vl as usize)
        };
        let _ = writeln!(s, "{t0},{src},{dst},{vl},{end_c},{max_c}");
    }
    s
}

// --- 6. the figures' data

/// `latency_hist.csv`: the end-to-end latency histogram, one row per recorded bucket.
fn latency_hist_csv(st: &Stats) -> String {
    let mut s = String::from("lower_ns,upper_ns,count\n");
    let mut lower = 0u64;
    for v in st.latency.iter_recorded() {
        let upper = st.latency.highest_equivalent(v.value_iterated_to());
        let _ = writeln!(s, "{lower},{upper},{}", v.count_since_last_iteration());
        lower = upper + 1;
    }
    s
}
