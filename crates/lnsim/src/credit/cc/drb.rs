//! DRB's source agent on InfiniBand (drb-and-ddbbm spec A.3.2 "source CA, per connection",
//! A.3.3, A.3.4): congestion notifications open more of a connection's link-disjoint paths,
//! Eq. 1 spreads its packets over the open ones, quiet CCM timer periods close them again; the
//! injection rate is never throttled. The switches mark with the [`PortMonitor`], the
//! destination answers each marked packet with a notification naming the packet's path.
//!
//! A connection is a flow (source, destination); its paths are the pair's multipath routes
//! (`credit/routing/multipath_routes.rs`, shortest first, path 0 the forwarding tables' route), so opening
//! "the next path" opens the next-shortest one and closing removes the most recently opened
//! (spec A.3.2 \[A\]). The CCM timer (spec A.3.4, period `cc.ccm_timer`) is one timer for all
//! sources by default; `cc.ccm_timer_mode` gives each connection its own, phased or restarted
//! by each notification ([`CcmTimer`]; the paper does not say how the timers are phased \[A\]).

use crate::config::{CountWindow, DrbCcKeys, DrbConfig, PathGranularity, Ps, ZeroCounts};
use crate::credit::cc::ccm_timer::CcmTimer;
use crate::credit::cc::port_monitor::PortMonitor;
use crate::credit::cc::CcContext;
use crate::credit::cc::{r6, secs, MechanismOutputs, OutputContext};
use crate::credit::packet::{Packet, BECN};
use crate::credit::traffic::Flow;
use crate::engine::rng::{purpose, stream};
use crate::error::{Error, Result};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use std::fmt::Write as _;

/// Most paths a connection can have (`drb.max_paths` ≤ 8).
pub const MAX_PATHS: usize = 8;

/// One statistics interval's picture of the connections (for `drb_paths.csv`).
#[derive(Debug, Clone, Copy)]
pub struct PathSample {
    /// Statistics interval.
    pub interval: u32,
    /// Flow (connection).
    pub flow: u32,
    /// Paths open at the interval's end.
    pub open: u8,
    /// Notifications the source received in the interval.
    pub notifications: u32,
}

/// DRB's state: the monitor's limits and, per connection, the open paths and the
/// notification counts of Eq. 1.
#[derive(Debug, Clone)]
pub struct Drb {
    /// The switches' input-buffer monitor.
    pub monitor: PortMonitor,
    per_step: u32,
    max_paths: u8,
    zero_counts: ZeroCounts,
    window: CountWindow,
    granularity: PathGranularity,
    /// The sources' CCM timers.
    ccm: CcmTimer,
    n_hca: usize,
    /// `[src * n_hca + dst]`: the pair's multipath routes.
    pair_paths: Vec<u8>,
    /// Per flow: paths open (1: the original path only; 0: the flow has not been seen).
    open: Vec<u8>,
    /// Per flow: B, the notifications drawn by each path.
    counts: Vec<[u32; MAX_PATHS]>,
    /// Per flow: notifications since the last path was opened.
    since_step: Vec<u32>,
    /// Per flow: a notification came in this timer period (`global` timer).
    notified: Vec<bool>,
    /// Per flow: when its last notification came (per-connection timers).
    last_note: Vec<Ps>,
    /// Per flow: the time its state was last brought up to date (per-connection timers).
    settled: Vec<Ps>,
    /// Per flow: notifications in the current statistics interval.
    interval_notifications: Vec<u32>,
    rng: ChaCha8Rng,
    /// Notifications received by sources.
    pub notifications: u64,
    /// Paths opened.
    pub opened: u64,
    /// Paths closed.
    pub closed: u64,
    /// Most paths any connection had open at once.
    pub max_open: u8,
    /// Per statistics interval and connection that had more than one path open or drew
    /// notifications.
    pub samples: Vec<PathSample>,
    /// Per statistics interval: (interval, sum of open paths over the flows, flows).
    pub interval_open: Vec<(u32, u64, u32)>,
}

impl Drb {
    /// Whether scenario `s` runs DRB's multipath routes, whose flows choose their path per
    /// packet at the source (`drb.enabled`, or `cc.mechanism = "drb"`, which implies them;
    /// the congestion-management seam's [`super::chooses_paths`]).
    pub fn chooses_paths(s: &crate::config::Scenario) -> bool {
        crate::credit::routing::multipath::wanted(s)
    }

    /// DRB from `[cc]` and `[drb]` over the multipath routes in `ctx`.
    pub fn from_config(c: &DrbCcKeys, d: &DrbConfig, ctx: &CcContext) -> Result<Self> {
        let mp = ctx
            .multipath
            .ok_or_else(|| Error::Internal("DRB built without its multipath routes".to_string()))?;
        if c.ccm_timer.0 == 0 {
            return Err(Error::input(
                "cc.ccm_timer",
                "must be above 0 (the CCM timer period, spec A.3.4: 100us)",
            ));
        }
        let n = ctx.n_hca;
        let mut pair_paths = vec![0u8; n * n];
        for s in 0..n {
            for t in 0..n {
                pair_paths[s * n + t] = mp.count(s as u32, t as u32);
            }
        }
        Ok(Drb {
            monitor: PortMonitor::watching(
                c.mark_buffer,
                c.mark_scope,
                c.mark_fraction,
                c.cnp_bytes.0 as u32,
                ctx,
            ),
            per_step: c.notifications_per_step,
            max_paths: d.max_paths.min(MAX_PATHS as u32) as u8,
            zero_counts: d.zero_counts,
            window: d.counts,
            granularity: d.granularity,
            ccm: CcmTimer::new(c.ccm_timer_mode, c.ccm_timer.0, ctx.seed),
            n_hca: n,
            pair_paths,
            open: Vec::new(),
            counts: Vec::new(),
            since_step: Vec::new(),
            notified: Vec::new(),
            last_note: Vec::new(),
            settled: Vec::new(),
            interval_notifications: Vec::new(),
            rng: stream(ctx.seed, u64::MAX - 2, purpose::PATH_CHOICE),
            notifications: 0,
            opened: 0,
            closed: 0,
            max_open: 1,
            samples: Vec::new(),
            interval_open: Vec::new(),
        })
    }

    /// The period of the one synchronous CCM timer of the run loop (`None` with a timer per
    /// connection, which is settled lazily).
    pub fn timer(&self) -> Option<Ps> {
        self.ccm.is_global().then_some(self.ccm.period())
    }

    /// Makes room for flow `f`'s state (flows appear as generators open them).
    #[inline]
    fn grow(&mut self, f: u32) {
        let need = f as usize + 1;
        if self.open.len() < need {
            self.open.resize(need, 1);
            self.counts.resize(need, [0; MAX_PATHS]);
            self.since_step.resize(need, 0);
            self.notified.resize(need, false);
            self.last_note.resize(need, 0);
            self.settled.resize(need, 0);
            self.interval_notifications.resize(need, 0);
            self.ccm.grow(need);
        }
    }

    /// Brings flow `fi`'s state to `now` under a per-connection timer: each quiet expiry since
    /// it was last settled closes a path (back at one path the counts are cleared), each
    /// expiry halves the counts with `drb.counts = "halve"` (as [`Drb::timer_fired`] does).
    fn settle(&mut self, fi: usize, now: Ps) {
        if self.ccm.is_global() || fi >= self.open.len() || now <= self.settled[fi] {
            return;
        }
        let (last, from) = (self.last_note[fi], self.settled[fi]);
        self.settled[fi] = now;
        let quiet = self.ccm.quiet_expiries(fi, last, from, now);
        if quiet > 0 && self.open[fi] > 1 {
            let close = quiet.min(self.open[fi] as u64 - 1) as u8;
            self.open[fi] -= close;
            self.closed += close as u64;
            if self.open[fi] == 1 {
                self.counts[fi] = [0; MAX_PATHS];
                self.since_step[fi] = 0;
            }
        }
        if self.window == CountWindow::Halve {
            let halvings = self.ccm.expiries(fi, last, from, now).min(31) as u32;
            for b in &mut self.counts[fi] {
                *b >>= halvings;
            }
        }
    }

    /// Paths open for flow `f` (1 for a flow never notified).
    pub fn open_paths(&self, f: u32) -> u8 {
        self.open.get(f as usize).copied().unwrap_or(1)
    }

    /// The most paths flow `flow` may open: `drb.max_paths` or fewer if its pair has fewer.
    fn limit(&self, flow: &Flow) -> u8 {
        let pair = self.pair_paths[flow.src as usize * self.n_hca + flow.dst as usize];
        pair.clamp(1, self.max_paths)
    }

    /// Source `h` received notification `p` about flow `p.flow` (spec A.3.2 "on CN(BECN) for
    /// path i"): count it for the path it names; every `notifications_per_step`-th opens one
    /// more path while the connection has fewer than it may.
    pub fn notification_received(&mut self, p: &Packet, flow: &Flow, now: Ps) {
        if p.flags & BECN == 0 {
            return;
        }
        let f = p.flow;
        self.grow(f);
        let fi = f as usize;
        self.settle(fi, now);
        self.last_note[fi] = now;
        let path = (p.cn_path as usize).min(MAX_PATHS - 1);
        self.counts[fi][path] += 1;
        self.since_step[fi] += 1;
        self.notified[fi] = true;
        self.interval_notifications[fi] += 1;
        self.notifications += 1;
        if self.since_step[fi] >= self.per_step && self.open[fi] < self.limit(flow) {
            self.open[fi] += 1;
            self.since_step[fi] = 0;
            self.opened += 1;
            self.max_open = self.max_open.max(self.open[fi]);
        }
    }

    /// The path of flow `f`'s following packet (spec A.3.3, Eq. 1): path x of the open ones
    /// with probability ∝ 1/(B_x + 1) (`plus_one`), or spread over the paths without
    /// notifications (`unnotified_first`); per message, a message's packets keep the path of
    /// its first.
    #[inline]
    pub fn path_for(&mut self, f: u32, flow: &Flow, now: Ps) -> u8 {
        if self.open_paths(f) <= 1 {
            return 0;
        }
        self.settle(f as usize, now);
        let n = self.open_paths(f);
        if n <= 1 {
            return 0;
        }
        if self.granularity == PathGranularity::Message && flow.in_message {
            return flow.next_path;
        }
        let b = &self.counts[f as usize][..n as usize];
        let weight = |x: u32| -> f64 {
            match self.zero_counts {
                ZeroCounts::PlusOne => 1.0 / (x as f64 + 1.0),
                ZeroCounts::UnnotifiedFirst => {
                    if b.contains(&0) {
                        if x == 0 {
                            1.0
                        } else {
                            0.0
                        }
                    } else {
                        1.0 / x as f64
                    }
                }
            }
        };
        let total: f64 = b.iter().map(|&x| weight(x)).sum();
        let mut u = self.rng.random::<f64>() * total;
        for (k, &x) in b.iter().enumerate() {
            let w = weight(x);
            if u < w {
                return k as u8;
            }
            u -= w;
        }
        // rounding left u at the very top: the last path with a share
        b.iter().rposition(|&x| weight(x) > 0.0).unwrap_or(0) as u8
    }

    /// The CCM timer expired (spec A.3.4): each connection that drew no notification in the
    /// period closes its most recently opened path (back at one path its counts are cleared);
    /// with `drb.counts = "halve"` every count is halved.
    pub fn timer_fired(&mut self) {
        for fi in 0..self.open.len() {
            if !self.notified[fi] && self.open[fi] > 1 {
                self.open[fi] -= 1;
                self.closed += 1;
                if self.open[fi] == 1 {
                    self.counts[fi] = [0; MAX_PATHS];
                    self.since_step[fi] = 0;
                }
            }
            if self.window == CountWindow::Halve {
                for b in &mut self.counts[fi] {
                    *b /= 2;
                }
            }
            self.notified[fi] = false;
        }
    }

    /// Statistics interval `interval` ended at `t` with `flows` flows in the run: record the
    /// open paths.
    pub fn interval_ended(&mut self, interval: u32, t: Ps, flows: usize) {
        for fi in 0..self.open.len() {
            self.settle(fi, t);
        }
        let mut sum = 0u64;
        for fi in 0..flows {
            let open = self.open.get(fi).copied().unwrap_or(1);
            let notes = self
                .interval_notifications
                .get_mut(fi)
                .map(std::mem::take)
                .unwrap_or(0);
            sum += open as u64;
            if open > 1 || notes > 0 {
                self.samples.push(PathSample {
                    interval,
                    flow: fi as u32,
                    open,
                    notifications: notes,
                });
            }
        }
        self.interval_open.push((interval, sum, flows as u32));
    }
}

// --- results

impl Drb {
    /// DRB's results (drb-and-ddbbm spec A.7): the port monitor's, summary `drb` (paths
    /// opened/closed, most and mean open paths) and `drb_paths.csv` (open paths and
    /// notifications per connection and statistics interval: "open paths over time").
    pub fn outputs(&self, ctx: &OutputContext, out: &mut MechanismOutputs) {
        self.monitor.outputs(ctx, out);
        out.fields.push(("drb", self.summary(ctx)));
        out.files.push(("drb_paths.csv", self.paths_csv(ctx)));
    }

    fn summary(&self, ctx: &OutputContext) -> Value {
        // mean over the intervals after warm-up of the mean open paths per flow
        let mean_open = ctx.first_after_warm.map(|first| {
            let after: Vec<f64> = self
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
        let flows = ctx.traffic.flows.len() as u32;
        let mut at_end = [0u64; MAX_PATHS + 1];
        for f in 0..flows {
            at_end[self.open_paths(f) as usize] += 1;
        }
        let last = at_end.iter().rposition(|&c| c > 0).unwrap_or(1);
        json!({
            "notifications": self.notifications,
            "paths_opened": self.opened,
            "paths_closed": self.closed,
            "max_open_paths": self.max_open,
            "mean_open_paths_after_warmup": mean_open,
            // flows with 1, 2, … paths open when the run ended
            "open_paths_at_end": at_end[1..=last.max(1)].to_vec(),
        })
    }

    /// `drb_paths.csv`: per statistics interval, each connection with more than its original
    /// path open or with notifications in the interval.
    fn paths_csv(&self, ctx: &OutputContext) -> String {
        let mut s = String::from("t_start_s,src,dst,open_paths,notifications\n");
        for p in &self.samples {
            let f = &ctx.traffic.flows[p.flow as usize];
            let _ = writeln!(
                s,
                "{},{},{},{},{}",
                secs(p.interval as u64 * ctx.interval),
                ctx.names[f.src as usize],
                ctx.names[f.dst as usize],
                p.open,
                p.notifications
            );
        }
        s
    }
}

impl Drb {
    /// DRB with the scenario's parameters in one line (the set-up report).
    pub fn describe(s: &crate::config::Scenario) -> String {
        let crate::config::CcKeys::Drb(cc) = &s.cc.keys else {
            return "drb".to_string();
        };
        format!(
            "drb (FECN above {} of {}; one more path per {} notifications, Eq. 1 {} per {}; one path closed per quiet {} µs, {} timer)",
            cc.mark_fraction,
            crate::credit::cc::port_monitor::watched(cc.mark_buffer, cc.mark_scope),
            cc.notifications_per_step,
            s.drb.zero_counts.name(),
            s.drb.granularity.name(),
            cc.ccm_timer.0 as f64 / 1e6,
            cc.ccm_timer_mode.name()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::CcmTimerMode;
    use crate::credit::packet::CNP;
    use crate::topology::LinkClass;

    const US: Ps = 1_000_000;

    fn flow(src: u32, dst: u32) -> Flow {
        crate::credit::traffic::flows::new_flow(src, dst, 0, 0, true)
    }

    /// A DRB agent for 2 HCAs whose pair (0, 1) has `paths` paths.
    fn agent(paths: u8, zero: ZeroCounts, window: CountWindow) -> Drb {
        let is_switch = [false, false];
        let cap = [64u32; 2];
        let class = [LinkClass::Host; 2];
        let ctx = CcContext {
            vls: 1,
            pkt_credits: 32,
            is_switch: &is_switch,
            class: &class,
            node_base: &[0, 1],
            in_cap: &cap,
            n_hca: 2,
            seed: 3,
            base_dir: std::path::Path::new("."),
            multipath: None,
            given: &|_| false,
            sources_pick_lanes: false,
        };
        Drb {
            monitor: PortMonitor::new(0.8, 64, &ctx),
            per_step: 10,
            max_paths: 4,
            zero_counts: zero,
            window,
            granularity: PathGranularity::Packet,
            ccm: CcmTimer::new(CcmTimerMode::Global, 100 * US, 3),
            n_hca: 2,
            pair_paths: vec![0, paths, paths, 0],
            open: Vec::new(),
            counts: Vec::new(),
            since_step: Vec::new(),
            notified: Vec::new(),
            last_note: Vec::new(),
            settled: Vec::new(),
            interval_notifications: Vec::new(),
            rng: stream(1, 2, purpose::PATH_CHOICE),
            notifications: 0,
            opened: 0,
            closed: 0,
            max_open: 1,
            samples: Vec::new(),
            interval_open: Vec::new(),
        }
    }

    fn cn(path: u8) -> Packet {
        Packet {
            flow: 0,
            flags: CNP | BECN,
            cn_path: path,
            ..Packet::default()
        }
    }

    #[test]
    fn one_path_opens_per_ten_notifications_up_to_the_pairs_paths() {
        let mut d = agent(3, ZeroCounts::PlusOne, CountWindow::Reset);
        let fl = flow(0, 1);
        for k in 1..=9 {
            d.notification_received(&cn(0), &fl, 0);
            assert_eq!(d.open_paths(0), 1, "after {k} notifications");
        }
        d.notification_received(&cn(0), &fl, 0);
        assert_eq!(d.open_paths(0), 2);
        for _ in 0..10 {
            d.notification_received(&cn(1), &fl, 0);
        }
        assert_eq!(d.open_paths(0), 3);
        // the pair has 3 paths: no fourth although drb.max_paths = 4
        for _ in 0..30 {
            d.notification_received(&cn(2), &fl, 0);
        }
        assert_eq!(d.open_paths(0), 3);
        assert_eq!((d.notifications, d.opened, d.max_open), (50, 2, 3));
        // a notification without BECN (not DRB's) changes nothing
        let mut plain = cn(0);
        plain.flags = CNP;
        d.notification_received(&plain, &fl, 0);
        assert_eq!(d.notifications, 50);
    }

    #[test]
    fn quiet_timer_periods_close_one_path_each_and_clear_the_counts() {
        let mut d = agent(4, ZeroCounts::PlusOne, CountWindow::Reset);
        let fl = flow(0, 1);
        for _ in 0..30 {
            d.notification_received(&cn(0), &fl, 0);
        }
        assert_eq!(d.open_paths(0), 4);
        // the period with notifications does not close
        d.timer_fired();
        assert_eq!(d.open_paths(0), 4);
        d.timer_fired();
        assert_eq!(d.open_paths(0), 3);
        // a notification in the next period holds it
        d.notification_received(&cn(1), &fl, 0);
        d.timer_fired();
        assert_eq!(d.open_paths(0), 3);
        d.timer_fired();
        d.timer_fired();
        assert_eq!(d.open_paths(0), 1);
        assert_eq!(d.counts[0], [0; MAX_PATHS], "cleared back on one path");
        assert_eq!(d.closed, 3);
        d.timer_fired();
        assert_eq!(d.open_paths(0), 1, "never below the original path");
    }

    /// 30 notifications at `at` open 4 paths; the open paths read at each of `times` (µs).
    fn open_after(mode: CcmTimerMode, at: Ps, times: &[Ps]) -> Vec<u8> {
        let mut d = agent(4, ZeroCounts::PlusOne, CountWindow::Reset);
        d.ccm = CcmTimer::new(mode, 100 * US, 3);
        let fl = flow(0, 1);
        for _ in 0..30 {
            d.notification_received(&cn(0), &fl, at);
        }
        times
            .iter()
            .map(|&t| {
                d.path_for(0, &fl, t * US);
                d.open_paths(0)
            })
            .collect()
    }

    #[test]
    fn a_restarted_timer_closes_a_full_quiet_period_after_the_last_notification() {
        // notified at 30 us: paths close at 130, 230, 330 us (not at the multiples of 100 us)
        let got = open_after(
            CcmTimerMode::PerFlowRestart,
            30 * US,
            &[129, 130, 229, 230, 330, 900],
        );
        assert_eq!(got, vec![4, 3, 3, 2, 1, 1]);
        // the global timer would not close at 130 us: the run loop fires it, not the reads
        let mut d = agent(4, ZeroCounts::PlusOne, CountWindow::Reset);
        let fl = flow(0, 1);
        for _ in 0..30 {
            d.notification_received(&cn(0), &fl, 30 * US);
        }
        d.path_for(0, &fl, 130 * US);
        assert_eq!(d.open_paths(0), 4);
        assert_eq!(d.timer(), Some(100 * US));
        let mut r = agent(4, ZeroCounts::PlusOne, CountWindow::Reset);
        r.ccm = CcmTimer::new(CcmTimerMode::PerFlowRestart, 100 * US, 3);
        assert_eq!(r.timer(), None, "no run-loop timer per connection");
    }

    #[test]
    fn a_notification_restarts_the_connections_timer() {
        let mut d = agent(4, ZeroCounts::PlusOne, CountWindow::Halve);
        d.ccm = CcmTimer::new(CcmTimerMode::PerFlowRestart, 100 * US, 3);
        let fl = flow(0, 1);
        for _ in 0..30 {
            d.notification_received(&cn(0), &fl, 0);
        }
        d.notification_received(&cn(1), &fl, 90 * US); // restarts: no close at 100 us
        d.path_for(0, &fl, 189 * US);
        assert_eq!(d.open_paths(0), 4);
        assert_eq!(d.counts[0][..2], [30, 1], "no expiry yet, nothing halved");
        d.path_for(0, &fl, 190 * US);
        assert_eq!(d.open_paths(0), 3);
        assert_eq!(d.counts[0][..2], [15, 0]);
        assert_eq!(d.closed, 1);
    }

    #[test]
    fn phased_timers_close_at_each_connections_own_instants() {
        let mut t = CcmTimer::new(CcmTimerMode::PerFlowPhase, 100 * US, 3);
        t.grow(1);
        // flow 0's first quiet expiry after a notification at 0 is at most a period later
        let first = t.next_quiet_expiry(0, 0, 0);
        let mut d = agent(4, ZeroCounts::PlusOne, CountWindow::Reset);
        d.ccm = CcmTimer::new(CcmTimerMode::PerFlowPhase, 100 * US, 3);
        let fl = flow(0, 1);
        for _ in 0..30 {
            d.notification_received(&cn(0), &fl, 0);
        }
        d.path_for(0, &fl, first - 1);
        assert_eq!(d.open_paths(0), 4);
        d.path_for(0, &fl, first);
        assert_eq!(d.open_paths(0), 3);
        d.path_for(0, &fl, first + 100 * US);
        assert_eq!(d.open_paths(0), 2);
        assert_ne!(first % (100 * US), 0, "seed 3 gives flow 0 a phase");
    }

    #[test]
    fn halving_window_halves_the_counts_each_period() {
        let mut d = agent(4, ZeroCounts::PlusOne, CountWindow::Halve);
        let fl = flow(0, 1);
        for _ in 0..10 {
            d.notification_received(&cn(0), &fl, 0);
        }
        for _ in 0..7 {
            d.notification_received(&cn(1), &fl, 0);
        }
        d.timer_fired();
        assert_eq!(&d.counts[0][..2], &[5, 3]);
    }

    /// Eq. 1 with B + 1: path x drawn with probability (1/(B_x+1)) / Σ 1/(B_i+1).
    #[test]
    fn eq1_probabilities_follow_the_inverse_counts() {
        let mut d = agent(4, ZeroCounts::PlusOne, CountWindow::Reset);
        let fl = flow(0, 1);
        // open 3 paths, then set B = (9, 4, 0) + the 10 + 10 that opened them on path 0
        for _ in 0..20 {
            d.notification_received(&cn(0), &fl, 0);
        }
        d.counts[0][..3].copy_from_slice(&[9, 4, 0]);
        assert_eq!(d.open_paths(0), 3);
        let n = 200_000;
        let mut hits = [0u32; 3];
        for _ in 0..n {
            hits[d.path_for(0, &fl, 0) as usize] += 1;
        }
        let w = [1.0 / 10.0, 1.0 / 5.0, 1.0];
        let total: f64 = w.iter().sum();
        for x in 0..3 {
            let p = w[x] / total;
            let sd = (p * (1.0 - p) / n as f64).sqrt();
            let got = hits[x] as f64 / n as f64;
            assert!(
                (got - p).abs() < 5.0 * sd,
                "path {x}: {got} vs {p} (5 sd = {})",
                5.0 * sd
            );
        }
    }

    #[test]
    fn unnotified_first_uses_only_paths_without_notifications() {
        let mut d = agent(4, ZeroCounts::UnnotifiedFirst, CountWindow::Reset);
        let fl = flow(0, 1);
        for _ in 0..20 {
            d.notification_received(&cn(0), &fl, 0);
        }
        d.counts[0][..3].copy_from_slice(&[20, 0, 0]);
        let mut hits = [0u32; 3];
        for _ in 0..10_000 {
            hits[d.path_for(0, &fl, 0) as usize] += 1;
        }
        assert_eq!(hits[0], 0);
        assert!(hits[1] > 4_500 && hits[2] > 4_500, "{hits:?}");
        // once every path has drawn some: 1/B
        d.counts[0][..3].copy_from_slice(&[1, 1_000_000, 1_000_000]);
        let zeros = (0..1000).filter(|_| d.path_for(0, &fl, 0) == 0).count();
        assert!(zeros > 990, "{zeros}");
    }

    #[test]
    fn per_message_granularity_keeps_a_messages_path() {
        let mut d = agent(4, ZeroCounts::PlusOne, CountWindow::Reset);
        d.granularity = PathGranularity::Message;
        let mut fl = flow(0, 1);
        for _ in 0..30 {
            d.notification_received(&cn(0), &fl, 0);
        }
        fl.in_message = true;
        fl.next_path = 2;
        for _ in 0..100 {
            assert_eq!(d.path_for(0, &fl, 0), 2);
        }
        fl.in_message = false;
        let drawn: std::collections::HashSet<u8> =
            (0..200).map(|_| d.path_for(0, &fl, 0)).collect();
        assert!(drawn.len() > 1, "a new message draws again: {drawn:?}");
    }

    #[test]
    fn a_single_path_connection_never_draws() {
        let mut d = agent(1, ZeroCounts::PlusOne, CountWindow::Reset);
        let fl = flow(0, 1);
        for _ in 0..100 {
            d.notification_received(&cn(0), &fl, 0);
        }
        assert_eq!(d.open_paths(0), 1);
        assert_eq!(d.path_for(0, &fl, 0), 0);
    }
}
