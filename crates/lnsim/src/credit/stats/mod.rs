//! The credit-level wing's statistics (spec §6): per-HCA bytes per interval, latency
//! histograms, buffer occupancy per switch input port and VL per interval and, with output
//! buffers, per output queue per interval (drb-and-ddbbm spec B.5); message latency, offered and
//! accepted load in the measurement window and per-link bytes per interval ([`links`],
//! drb-and-ddbbm spec A.7); the HoL study's reception figures ([`reception`], spec B.7). The
//! results folder is written from them by `credit/results.rs`.
//! Collectors observe; they never steer the simulation.

pub mod links;
pub mod reception;

use crate::config::Ps;
use hdrhistogram::Histogram;
use links::{Hotspot, LinkSeries};

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

impl BufferSeries {
    /// `n` tracked buffers, empty, over `n_int` intervals.
    pub fn new(n: usize, n_int: usize) -> Self {
        BufferSeries {
            n,
            level: vec![0; n],
            since: vec![0; n],
            integral: vec![0; n_int * n],
            max: vec![0; n_int * n],
        }
    }

    /// Buffer `i` changed to `level` credits at `t`.
    #[inline]
    fn record(&mut self, i: usize, t: Ps, level: u32, interval: Ps, n_int: usize) {
        integrate(self, i, t, interval, n_int);
        self.level[i] = level;
        let s = ((t / interval) as usize).min(n_int - 1);
        let m = &mut self.max[s * self.n + i];
        *m = (*m).max(level);
    }
}

/// All collectors of a run.
#[derive(Debug)]
pub struct Stats {
    /// Bytes per HCA per interval.
    pub nodes: NodeSeries,
    /// Buffer occupancy (None when `stats.buffer_occupancy = false`).
    pub buffers: Option<BufferSeries>,
    /// Occupancy of every switch output queue (spec B.5 output buffers), indexed by its slot in
    /// the output buffers (None without output buffers or with `stats.buffer_occupancy =
    /// false`).
    pub out_buffers: Option<BufferSeries>,
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
    /// Message latency (drb-and-ddbbm spec A.7), generation → last packet consumed, in ns, of
    /// the messages of Bernoulli and Poisson sources generated at or after `warmup`.
    pub msg_latency: Histogram<u64>,
    /// Exact sum of the recorded message latencies (ps).
    pub msg_latency_sum: u128,
    /// Messages of Bernoulli and Poisson sources generated at or after `warmup`.
    pub msgs_generated: u64,
    /// Wire bytes of the messages every source generated at or after `warmup` (offered load,
    /// spec A.7).
    pub offered_bytes: u64,
    /// Data bytes consumed at the sinks at or after `warmup` (accepted load, spec A.7).
    pub accepted_bytes: u64,
    /// Data bytes per switch-output link and interval (`stats.links` or `stats.hotspot`).
    pub links: Option<LinkSeries>,
    /// `stats.hotspot`, resolved (spec A.6, A.8 R-A8).
    pub hotspot: Option<Hotspot>,
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
            buffers: n_buf.map(|n| BufferSeries::new(n, n_int)),
            out_buffers: None,
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
            msg_latency: hist(),
            msg_latency_sum: 0,
            msgs_generated: 0,
            offered_bytes: 0,
            accepted_bytes: 0,
            links: None,
            hotspot: None,
        }
    }

    /// Tracks the data bytes of the switch outputs `tracked[gport]` per interval (spec A.7).
    pub fn track_links(&mut self, tracked: &[bool]) {
        self.links = Some(LinkSeries::new(tracked, self.nodes.n_int));
    }

    /// Switch output `g` started sending `bytes` data bytes at `t` of a packet injected at
    /// `injected` (a no-op unless links are tracked; counted at `injected` with
    /// `stats.link_measure = "routed"`).
    #[inline]
    pub fn carried(&mut self, g: u32, t: Ps, injected: Ps, bytes: u32) {
        if let Some(l) = &mut self.links {
            let i = l.index[g as usize];
            if i != u32::MAX {
                let t = if l.at_injection { injected } else { t };
                let slot = ((t / self.nodes.interval) as usize).min(self.nodes.n_int - 1);
                let n = l.gports.len();
                l.bytes[slot * n + i as usize] += bytes as u64;
            }
        }
    }

    /// A source generated a message of `wire_bytes` at `t`; `timed`: it has a generation time
    /// its latency is measured from (Bernoulli, Poisson; spec A.7).
    #[inline]
    pub fn message_generated(&mut self, t: Ps, wire_bytes: u64, timed: bool) {
        if t >= self.warmup {
            self.offered_bytes += wire_bytes;
            self.msgs_generated += timed as u64;
        }
    }

    /// The last packet of a message generated at `created` was consumed at `t` (spec A.7:
    /// latency from generation to the last packet delivered, source queueing included); only
    /// messages generated at or after `warmup` are recorded.
    #[inline]
    pub fn message_delivered(&mut self, created: Ps, t: Ps) {
        if created >= self.warmup {
            let lat = t - created;
            self.msg_latency_sum += lat as u128;
            self.msg_latency.saturating_record((lat / 1000).max(1));
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
        if t >= self.warmup {
            self.accepted_bytes += bytes as u64;
        }
        self.delivered_packets += 1;
        self.latency_sum += lat as u128;
        self.net_latency_sum += net as u128;
        self.latency.saturating_record((lat / 1000).max(1));
        self.net_latency.saturating_record((net / 1000).max(1));
    }

    /// Tracked buffer `i` changed to `level` credits at `t`.
    #[inline]
    pub fn buffer(&mut self, i: usize, t: Ps, level: u32) {
        let (interval, n_int) = (self.nodes.interval, self.nodes.n_int);
        record_level(&mut self.buffers, i, t, level, interval, n_int);
    }

    /// Tracks the occupancy of `n` switch output queues per interval (spec B.5 output
    /// buffers; `output_buffers.csv`).
    pub fn track_output_buffers(&mut self, n: usize) {
        self.out_buffers = Some(BufferSeries::new(n, self.nodes.n_int));
    }

    /// Output queue `i` changed to `level` credits at `t` (a no-op unless they are tracked).
    #[inline]
    pub fn out_buffer(&mut self, i: usize, t: Ps, level: u32) {
        let (interval, n_int) = (self.nodes.interval, self.nodes.n_int);
        record_level(&mut self.out_buffers, i, t, level, interval, n_int);
    }

    /// Closes the buffer integrals at the end of the run.
    pub fn finish(&mut self, end: Ps) {
        let interval = self.nodes.interval;
        let n_int = self.nodes.n_int;
        for b in [&mut self.buffers, &mut self.out_buffers]
            .into_iter()
            .flatten()
        {
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

/// Records buffer `i`'s new `level` at `t` in `series`, when the buffers are tracked.
#[inline]
fn record_level(
    series: &mut Option<BufferSeries>,
    i: usize,
    t: Ps,
    level: u32,
    interval: Ps,
    n_int: usize,
) {
    if let Some(b) = series {
        b.record(i, t, level, interval, n_int);
    }
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
    fn output_queue_integral_splits_over_intervals_like_the_inputs() {
        let mut s = Stats::new(100, 10, 1, Some(1), 0, 0);
        s.out_buffer(0, 5, 4); // not tracked yet: nothing happens
        s.track_output_buffers(2);
        s.out_buffer(1, 5, 4);
        s.out_buffer(1, 25, 2);
        s.out_buffer(1, 31, 0);
        s.finish(100);
        assert_eq!(s.buffers.as_ref().unwrap().integral.iter().sum::<u64>(), 0);
        let b = s.out_buffers.unwrap();
        let q1: Vec<u64> = (0..4).map(|i| b.integral[i * 2 + 1]).collect();
        assert_eq!(q1, [20, 40, 30, 2]);
        let m1: Vec<u32> = (0..4).map(|i| b.max[i * 2 + 1]).collect();
        assert_eq!(m1, [4, 4, 4, 2]);
        assert!((0..10).all(|i| b.integral[i * 2] == 0 && b.max[i * 2] == 0));
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

    #[test]
    fn measurement_window_starts_at_the_warmup() {
        let mut s = Stats::new(100, 10, 1, None, 50, 50);
        s.message_generated(49, 100, true);
        s.message_generated(50, 200, true);
        s.message_generated(60, 300, false);
        assert_eq!((s.offered_bytes, s.msgs_generated), (500, 1));
        s.rx(0, 49, 64, 1, 1);
        s.rx(0, 50, 64, 1, 1);
        assert_eq!(s.accepted_bytes, 64);
        s.message_delivered(49, 90_000);
        s.message_delivered(50, 7_050);
        assert_eq!((s.msg_latency.len(), s.msg_latency_sum), (1, 7_000));
    }

    #[test]
    fn carried_bytes_land_on_their_link_and_interval() {
        let mut s = Stats::new(100, 10, 1, None, 0, 0);
        s.carried(1, 5, 0, 64); // not tracked yet: nothing happens
        s.track_links(&[false, true, true]);
        s.carried(2, 25, 3, 64);
        s.carried(2, 29, 3, 36);
        s.carried(0, 25, 3, 64); // not a tracked port
        let l = s.links.as_ref().unwrap();
        assert_eq!(l.bytes[2 * 2 + 1], 100);
        assert_eq!(l.bytes.iter().sum::<u64>(), 100);
        // "routed": in the interval of the packets' injection
        s.links.as_mut().unwrap().at_injection = true;
        s.carried(1, 55, 12, 10);
        let l = s.links.unwrap();
        assert_eq!(l.bytes[2], 10);
        assert_eq!(l.bytes[5 * 2], 0);
    }
}
