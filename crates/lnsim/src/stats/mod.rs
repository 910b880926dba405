//! Statistics: per-HCA bytes per interval, latency histograms, buffer occupancy per switch
//! input port and VL per interval, and the results folder (spec §6, issue 2 items 5–6).
//! Collectors observe; they never steer the simulation.

pub mod fairness;
pub mod reception;
pub mod results_folder;

use crate::config::Ps;
use hdrhistogram::Histogram;

/// Interval time series of one quantity per HCA: `[interval][hca] = (tx_bytes, rx_bytes)`.
#[derive(Debug, Clone)]
pub struct NodeSeries {
    /// Interval length.
    pub interval: Ps,
    /// Number of intervals.
    pub n_int: usize,
    /// Number of HCAs.
    pub n_hca: usize,
    /// Flat `[interval * n_hca + hca]`.
    pub bytes: Vec<[u64; 2]>,
}

impl NodeSeries {
    #[inline]
    fn slot(&self, t: Ps) -> usize {
        ((t / self.interval) as usize).min(self.n_int - 1)
    }
}

/// Time-weighted buffer occupancy per tracked (port, VL) and interval.
#[derive(Debug, Clone)]
pub struct BufferSeries {
    /// Number of tracked (port, VL) pairs.
    pub n: usize,
    /// Current level (credits) per pair.
    pub level: Vec<u32>,
    /// Time of the last change per pair.
    pub since: Vec<Ps>,
    /// `[interval * n + i]`: ∫ level dt in credit·ps.
    pub integral: Vec<u64>,
    /// `[interval * n + i]`: maximum level seen.
    pub max: Vec<u32>,
}

/// All collectors of a run.
#[derive(Debug)]
pub struct Stats {
    /// Bytes per HCA per interval.
    pub nodes: NodeSeries,
    /// Buffer occupancy (None when `stats.buffer_occupancy = false`).
    pub buffers: Option<BufferSeries>,
    /// Packet latency, creation → consumption at the sink, in ns.
    pub latency: Histogram<u64>,
    /// Network latency, first credit on the source link → consumption, in ns.
    pub net_latency: Histogram<u64>,
    /// Exact sums for the means (ps).
    pub latency_sum: u128,
    /// Exact sum of network latencies (ps).
    pub net_latency_sum: u128,
    /// Start of the "after warm-up" window.
    pub warmup: Ps,
    /// Start of the fairness window.
    pub window: Ps,
    /// Data packets injected / delivered, CNPs injected / delivered.
    pub injected_packets: u64,
    /// Data packets delivered.
    pub delivered_packets: u64,
    /// Control packets injected.
    pub injected_control: u64,
    /// Control packets delivered.
    pub delivered_control: u64,
}

impl Stats {
    /// Collectors for `n_hca` HCAs and `n_buf` tracked buffers over `[0, end)`.
    pub fn new(
        end: Ps,
        interval: Ps,
        n_hca: usize,
        n_buf: Option<usize>,
        warmup: Ps,
        window: Ps,
    ) -> Self {
        let n_int = end.div_ceil(interval).max(1) as usize;
        let hist = || {
            Histogram::<u64>::new_with_bounds(1, 3_600_000_000_000, 3).expect("histogram bounds")
        };
        Stats {
            nodes: NodeSeries {
                interval,
                n_int,
                n_hca,
                bytes: vec![[0, 0]; n_int * n_hca],
            },
            buffers: n_buf.map(|n| BufferSeries {
                n,
                level: vec![0; n],
                since: vec![0; n],
                integral: vec![0; n_int * n],
                max: vec![0; n_int * n],
            }),
            latency: hist(),
            net_latency: hist(),
            latency_sum: 0,
            net_latency_sum: 0,
            warmup,
            window,
            injected_packets: 0,
            delivered_packets: 0,
            injected_control: 0,
            delivered_control: 0,
        }
    }

    /// HCA `h` started sending `bytes` at `t`.
    #[inline]
    pub fn tx(&mut self, h: u32, t: Ps, bytes: u32) {
        let s = self.nodes.slot(t) * self.nodes.n_hca + h as usize;
        self.nodes.bytes[s][0] += bytes as u64;
        self.injected_packets += 1;
    }

    /// HCA `h` consumed `bytes` at `t`; `lat`/`net` are the packet's latencies in ps.
    #[inline]
    pub fn rx(&mut self, h: u32, t: Ps, bytes: u32, lat: Ps, net: Ps) {
        let s = self.nodes.slot(t) * self.nodes.n_hca + h as usize;
        self.nodes.bytes[s][1] += bytes as u64;
        self.delivered_packets += 1;
        self.latency_sum += lat as u128;
        self.net_latency_sum += net as u128;
        self.latency.saturating_record((lat / 1000).max(1));
        self.net_latency.saturating_record((net / 1000).max(1));
    }

    /// Tracked buffer `i` changed to `level` credits at `t`.
    #[inline]
    pub fn buffer(&mut self, i: usize, t: Ps, level: u32) {
        let interval = self.nodes.interval;
        let n_int = self.nodes.n_int;
        if let Some(b) = &mut self.buffers {
            integrate(b, i, t, interval, n_int);
            b.level[i] = level;
            let s = ((t / interval) as usize).min(n_int - 1);
            let m = &mut b.max[s * b.n + i];
            *m = (*m).max(level);
        }
    }

    /// Closes the buffer integrals at the end of the run.
    pub fn finish(&mut self, end: Ps) {
        let interval = self.nodes.interval;
        let n_int = self.nodes.n_int;
        if let Some(b) = &mut self.buffers {
            for i in 0..b.n {
                integrate(b, i, end, interval, n_int);
            }
        }
    }
}

/// Adds `level × dt` of buffer `i` from its last change to `t`, split over interval borders.
fn integrate(b: &mut BufferSeries, i: usize, t: Ps, interval: Ps, n_int: usize) {
    let lvl = b.level[i] as u64;
    let mut from = b.since[i];
    b.since[i] = t;
    if lvl == 0 || t <= from {
        return;
    }
    while from < t {
        let s = ((from / interval) as usize).min(n_int - 1);
        let border = if s == n_int - 1 {
            t
        } else {
            ((s as u64 + 1) * interval).min(t)
        };
        b.integral[s * b.n + i] += lvl * (border - from);
        b.max[s * b.n + i] = b.max[s * b.n + i].max(lvl as u32);
        from = border;
    }
}

/// Peak resident memory of this process (VmHWM), in bytes; 0 where unavailable.
pub fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|v| v.parse::<u64>().ok())
            })
        })
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_integral_splits_over_intervals() {
        let mut s = Stats::new(100, 10, 1, Some(1), 0, 0);
        s.buffer(0, 5, 4); // 4 credits from t=5
        s.buffer(0, 25, 0); // to t=25
        s.finish(100);
        let b = s.buffers.unwrap();
        assert_eq!(&b.integral[0..3], &[20, 40, 20]);
        assert_eq!(&b.max[0..4], &[4, 4, 4, 0]);
    }

    #[test]
    fn bytes_land_in_their_interval() {
        let mut s = Stats::new(100, 10, 2, None, 0, 0);
        s.tx(1, 15, 64);
        s.rx(0, 99, 64, 1000, 500);
        s.rx(0, 150, 64, 1000, 500); // after the end: last interval
        assert_eq!(s.nodes.bytes[2 + 1], [64, 0]);
        assert_eq!(s.nodes.bytes[9 * 2], [0, 128]);
    }
}
