//! The outputs of the DRB paper's two mechanisms (drb-and-ddbbm spec A.7; `cc.mechanism` =
//! `"drb"` or `"ib_s1"`), written beside the results of `credit/results.rs`:
//! - summary `monitor` (the switch port monitor's FECN marks) and `notifications`;
//! - summary `drb` (paths opened/closed, most and mean open paths) and `drb_paths.csv`
//!   (open paths and notifications per connection and statistics interval: "open paths over
//!   time", issue 18 item 5);
//! - summary `throttle` (IBA_CC-S1's IRD) and `ird.csv` (IRD per flow and interval);
//! - `monitor_ports.csv` (marks per switch input port and VL).

use crate::config::PS_PER_S;
use crate::credit::cc::port_monitor::PortMonitor;
use crate::credit::cc::{Drb, IbS1};
use crate::credit::Net;
use serde_json::{json, Value};
use std::fmt::Write as _;

fn secs(ps: u64) -> f64 {
    ps as f64 / PS_PER_S as f64
}

/// Summary fields (name, value) and files (name, text) of a mechanism.
type Outputs = (Vec<(&'static str, Value)>, Vec<(&'static str, String)>);

fn r6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// The summary fields and files of the run's mechanism (empty when it is neither DRB nor
/// IBA_CC-S1). `interval` is the statistics interval, `first_after_warm` the first interval
/// after the warm-up (`None`: the run stopped before it, and the after-warm-up means are
/// null), `names` the HCA names.
pub(crate) fn outputs(
    net: &Net,
    interval: u64,
    first_after_warm: Option<u32>,
    names: &[&str],
) -> Outputs {
    let mut fields = Vec::new();
    let mut files = Vec::new();
    if let Some(m) = net.cc.port_monitor() {
        fields.push(("monitor", monitor_json(m)));
        files.push(("monitor_ports.csv", monitor_csv(net, m)));
    }
    if let Some(d) = net.cc.drb() {
        fields.push(("drb", drb_json(net, d, first_after_warm)));
        files.push(("drb_paths.csv", drb_csv(net, d, interval, names)));
    }
    if let Some(s) = net.cc.ib_s1() {
        fields.push(("throttle", throttle_json(net, s, first_after_warm)));
        files.push(("ird.csv", ird_csv(net, s, interval, names)));
    }
    (fields, files)
}

fn monitor_json(m: &PortMonitor) -> Value {
    json!({
        "fecn_marks": m.total_marks(),
        "marking_buffers": m.marks().count(),
    })
}

/// `monitor_ports.csv`: FECN marks per switch input port and VL that marked.
fn monitor_csv(net: &Net, m: &PortMonitor) -> String {
    let mut s = String::from("switch,port,vl,fecn_marks\n");
    for (g, vl, marks) in m.marks() {
        let node = net.links.node_of[g as usize] as usize;
        let _ = writeln!(
            s,
            "{},{},{vl},{marks}",
            net.fabric.nodes[node].name,
            g - net.links.port_base[node]
        );
    }
    s
}

fn drb_json(net: &Net, d: &Drb, first_after_warm: Option<u32>) -> Value {
    // mean over the intervals after warm-up of the mean open paths per flow
    let mean_open = first_after_warm.map(|first| {
        let after: Vec<f64> = d
            .interval_open
            .iter()
            .filter(|&&(i, _, n)| i >= first && n > 0)
            .map(|&(_, sum, n)| sum as f64 / n as f64)
            .collect();
        if after.is_empty() {
            1.0
        } else {
            r6(after.iter().sum::<f64>() / after.len() as f64)
        }
    });
    let flows = net.traffic.flows.len() as u32;
    let mut at_end = [0u64; super::cc::drb::MAX_PATHS + 1];
    for f in 0..flows {
        at_end[d.open_paths(f) as usize] += 1;
    }
    let last = at_end.iter().rposition(|&c| c > 0).unwrap_or(1);
    json!({
        "notifications": d.notifications,
        "paths_opened": d.opened,
        "paths_closed": d.closed,
        "max_open_paths": d.max_open,
        "mean_open_paths_after_warmup": mean_open,
        // flows with 1, 2, … paths open when the run ended
        "open_paths_at_end": at_end[1..=last.max(1)].to_vec(),
    })
}

/// `drb_paths.csv`: per statistics interval, each connection with more than its original
/// path open or with notifications in the interval.
fn drb_csv(net: &Net, d: &Drb, interval: u64, names: &[&str]) -> String {
    let mut s = String::from("t_start_s,src,dst,open_paths,notifications\n");
    for p in &d.samples {
        let f = &net.traffic.flows[p.flow as usize];
        let _ = writeln!(
            s,
            "{},{},{},{},{}",
            secs(p.interval as u64 * interval),
            names[f.src as usize],
            names[f.dst as usize],
            p.open,
            p.notifications
        );
    }
    s
}

fn throttle_json(net: &Net, s: &IbS1, first_after_warm: Option<u32>) -> Value {
    // mean IRD over all flows and the intervals after warm-up
    let flows = net.traffic.flows.len().max(1) as f64;
    let last = s.samples.last().map(|x| x.interval).unwrap_or(0);
    let mean_ird = first_after_warm.map(|first| {
        let intervals = (last + 1).saturating_sub(first).max(1) as f64;
        let ird_sum: f64 = s
            .samples
            .iter()
            .filter(|x| x.interval >= first)
            .map(|x| x.ird as f64)
            .sum();
        // (+ 0.0: an empty sum is −0.0)
        r6(ird_sum / flows / intervals / 1e6 + 0.0)
    });
    json!({
        "notifications": s.notifications,
        "max_ird_us": r6(s.max_ird as f64 / 1e6),
        "mean_ird_us_after_warmup": mean_ird,
    })
}

/// `ird.csv`: per statistics interval, each flow with an IRD or notifications.
fn ird_csv(net: &Net, s: &IbS1, interval: u64, names: &[&str]) -> String {
    let mut out = String::from("t_start_s,src,dst,ird_us,notifications\n");
    for x in &s.samples {
        let f = &net.traffic.flows[x.flow as usize];
        let _ = writeln!(
            out,
            "{},{},{},{},{}",
            secs(x.interval as u64 * interval),
            names[f.src as usize],
            names[f.dst as usize],
            r6(x.ird as f64 / 1e6),
            x.notifications
        );
    }
    out
}
