//! The DRB paper's InfiniBand CC baseline, "IBA_CC-S1" (drb-and-ddbbm spec A.4): the switches
//! mark with the same input-buffer [`PortMonitor`] as DRB, the destination answers each marked
//! packet, and the source throttles the flow (queue pair) the notification is about: every
//! `cc.notifications_per_step`-th notification adds `cc.ird_step` of injection rate delay, and
//! each CCM timer period without a notification removes one step. After a packet of the flow
//! ends on the wire, its next may start no earlier than IRD later (spec A.4 \[A\]). One path.
//! The CCM timer is DRB's ([`CcmTimer`], `cc.ccm_timer_mode`): one for all sources or one per
//! connection.
//!
//! Why not through the IBA CC of [`super::ib`]: that one marks at congested output port VLs
//! (root/victim), raises the CCTI by one per BECN and lowers it by one per timer expiry
//! whatever arrived; A.4 counts notifications per step, lowers only after a quiet period and
//! monitors input buffers. No CCT and increase rule give both, so it is its own small
//! mechanism (issue 18 item 3).

use crate::config::{IbS1Keys, Ps};
use crate::credit::cc::ccm_timer::CcmTimer;
use crate::credit::cc::port_monitor::PortMonitor;
use crate::credit::cc::CcContext;
use crate::credit::cc::{r6, secs, MechanismOutputs, OutputContext};
use crate::credit::packet::{Packet, BECN};
use crate::error::{Error, Result};
use serde_json::{json, Value};
use std::fmt::Write as _;

/// One statistics interval's IRD of a throttled flow (for `ird.csv`).
#[derive(Debug, Clone, Copy)]
pub struct IrdSample {
    /// Statistics interval.
    pub interval: u32,
    /// Flow.
    pub flow: u32,
    /// Its IRD at the interval's end (ps).
    pub ird: Ps,
    /// Notifications it received in the interval.
    pub notifications: u32,
}

/// IBA_CC-S1's state: the monitor's limits and per flow the IRD and the counters.
#[derive(Debug, Clone)]
pub struct IbS1 {
    /// The switches' input-buffer monitor.
    pub monitor: PortMonitor,
    per_step: u32,
    step: Ps,
    /// The sources' CCM timers.
    ccm: CcmTimer,
    /// Per flow: the injection rate delay.
    ird: Vec<Ps>,
    /// Per flow: notifications received (a step every `per_step`-th).
    count: Vec<u32>,
    /// Per flow: a notification came in this timer period (`global` timer).
    notified: Vec<bool>,
    /// Per flow: when its last notification came (per-connection timers).
    last_note: Vec<Ps>,
    /// Per flow: the time its IRD was last brought up to date (per-connection timers).
    settled: Vec<Ps>,
    /// Per flow: when its last packet ends on the wire.
    free_at: Vec<Ps>,
    /// Per flow: notifications in the current statistics interval.
    interval_notifications: Vec<u32>,
    /// Notifications received by sources.
    pub notifications: u64,
    /// Highest IRD any flow reached (ps).
    pub max_ird: Ps,
    /// Per statistics interval, every flow with an IRD or notifications.
    pub samples: Vec<IrdSample>,
}

impl IbS1 {
    /// The baseline from `[cc]`.
    pub fn from_config(c: &IbS1Keys, ctx: &CcContext) -> Result<Self> {
        if c.ccm_timer.0 == 0 {
            return Err(Error::input(
                "cc.ccm_timer",
                "must be above 0 (the CCM timer period, spec A.4: 100us)",
            ));
        }
        Ok(IbS1 {
            monitor: PortMonitor::watching(
                c.mark_buffer,
                c.mark_scope,
                c.mark_fraction,
                c.cnp_bytes.0 as u32,
                ctx,
            ),
            per_step: c.notifications_per_step,
            step: c.ird_step.0,
            ccm: CcmTimer::new(c.ccm_timer_mode, c.ccm_timer.0, ctx.seed),
            ird: Vec::new(),
            count: Vec::new(),
            notified: Vec::new(),
            last_note: Vec::new(),
            settled: Vec::new(),
            free_at: Vec::new(),
            interval_notifications: Vec::new(),
            notifications: 0,
            max_ird: 0,
            samples: Vec::new(),
        })
    }

    /// The period of the one synchronous CCM timer of the run loop (`None` with a timer per
    /// connection, which is settled lazily).
    pub fn timer(&self) -> Option<Ps> {
        self.ccm.is_global().then_some(self.ccm.period())
    }

    #[inline]
    fn grow(&mut self, f: u32) {
        let need = f as usize + 1;
        if self.ird.len() < need {
            self.ird.resize(need, 0);
            self.count.resize(need, 0);
            self.notified.resize(need, false);
            self.last_note.resize(need, 0);
            self.settled.resize(need, 0);
            self.free_at.resize(need, 0);
            self.interval_notifications.resize(need, 0);
            self.ccm.grow(need);
        }
    }

    /// Flow `f`'s injection rate delay (as last settled).
    pub fn ird(&self, f: u32) -> Ps {
        self.ird.get(f as usize).copied().unwrap_or(0)
    }

    /// Flow `fi`'s IRD at `t` (not before it was last settled): under a per-connection timer,
    /// one step less per quiet expiry since.
    fn ird_at(&self, fi: usize, t: Ps) -> Ps {
        let ird = self.ird[fi];
        if self.ccm.is_global() || ird == 0 {
            return ird;
        }
        let quiet = self
            .ccm
            .quiet_expiries(fi, self.last_note[fi], self.settled[fi], t);
        ird.saturating_sub(self.step.saturating_mul(quiet))
    }

    /// Brings flow `fi`'s IRD to `now` under a per-connection timer.
    fn settle(&mut self, fi: usize, now: Ps) {
        if self.ccm.is_global() || fi >= self.ird.len() || now <= self.settled[fi] {
            return;
        }
        self.ird[fi] = self.ird_at(fi, now);
        self.settled[fi] = now;
    }

    /// A notification about flow `p.flow` reached its source: every `per_step`-th adds a
    /// step (spec A.4 "IRD_f += 5 us each 10 CNs").
    pub fn notification_received(&mut self, p: &Packet, now: Ps) {
        if p.flags & BECN == 0 {
            return;
        }
        let f = p.flow;
        self.grow(f);
        let fi = f as usize;
        self.settle(fi, now);
        self.last_note[fi] = now;
        self.count[fi] += 1;
        self.notified[fi] = true;
        self.interval_notifications[fi] += 1;
        self.notifications += 1;
        if self.count[fi].is_multiple_of(self.per_step) {
            self.ird[fi] += self.step;
            self.max_ird = self.max_ird.max(self.ird[fi]);
        }
    }

    /// Earliest start of flow `f`'s next packet: the end of its last one plus its IRD (under a
    /// per-connection timer, the IRD of that instant: a quiet expiry before it lowers it).
    #[inline]
    pub fn ready_at(&self, f: u32) -> Ps {
        let fi = f as usize;
        match self.ird.get(fi) {
            Some(&ird) if ird > 0 => {
                let free = self.free_at[fi];
                if self.ccm.is_global() {
                    return free + ird;
                }
                // the state holds from its last settling (a notification, an interval's end)
                let from = free.max(self.settled[fi]);
                let mut ready = free + self.ird_at(fi, from);
                let mut tau = self.ccm.next_quiet_expiry(fi, self.last_note[fi], from);
                while tau < ready {
                    ready = ready.min(tau.max(free + self.ird_at(fi, tau)));
                    tau += self.ccm.period();
                }
                ready
            }
            _ => 0,
        }
    }

    /// Flow `f` starts a packet at `now` that takes `ser` on the wire.
    #[inline]
    pub fn packet_sent(&mut self, f: u32, ser: Ps, now: Ps) {
        if let Some(slot) = self.free_at.get_mut(f as usize) {
            *slot = now + ser;
        }
    }

    /// The CCM timer expired: each flow without a notification in the period loses one step
    /// (spec A.4 \[A\], A.10 item 8). Returns whether some IRD fell (held-back flows may go now).
    pub fn timer_fired(&mut self) -> bool {
        let mut fell = false;
        for fi in 0..self.ird.len() {
            if !self.notified[fi] && self.ird[fi] > 0 {
                self.ird[fi] = self.ird[fi].saturating_sub(self.step);
                fell = true;
            }
            self.notified[fi] = false;
        }
        fell
    }

    /// Statistics interval `interval` ended at `t`: record every throttled or notified flow.
    pub fn interval_ended(&mut self, interval: u32, t: Ps) {
        for fi in 0..self.ird.len() {
            self.settle(fi, t);
            let notes = std::mem::take(&mut self.interval_notifications[fi]);
            if self.ird[fi] > 0 || notes > 0 {
                self.samples.push(IrdSample {
                    interval,
                    flow: fi as u32,
                    ird: self.ird[fi],
                    notifications: notes,
                });
            }
        }
    }
}

// --- results

impl IbS1 {
    /// IBA_CC-S1's results (drb-and-ddbbm spec A.7): the port monitor's, summary `throttle`
    /// (its IRD) and `ird.csv` (IRD per flow and interval).
    pub fn outputs(&self, ctx: &OutputContext, out: &mut MechanismOutputs) {
        self.monitor.outputs(ctx, out);
        out.fields.push(("throttle", self.summary(ctx)));
        out.files.push(("ird.csv", self.ird_csv(ctx)));
    }

    fn summary(&self, ctx: &OutputContext) -> Value {
        // mean IRD over all flows and the intervals after warm-up
        let flows = ctx.traffic.flows.len().max(1) as f64;
        let last = self.samples.last().map(|x| x.interval).unwrap_or(0);
        let mean_ird = ctx.first_after_warm.map(|first| {
            let intervals = (last + 1).saturating_sub(first).max(1) as f64;
            let ird_sum: f64 = self
                .samples
                .iter()
                .filter(|x| x.interval >= first)
                .map(|x| x.ird as f64)
                .sum();
            // (+ 0.0: an empty sum is −0.0)
            r6(ird_sum / flows / intervals / 1e6 + 0.0)
        });
        json!({
            "notifications": self.notifications,
            "max_ird_us": r6(self.max_ird as f64 / 1e6),
            "mean_ird_us_after_warmup": mean_ird,
        })
    }

    /// `ird.csv`: per statistics interval, each flow with an IRD or notifications.
    fn ird_csv(&self, ctx: &OutputContext) -> String {
        let mut out = String::from("t_start_s,src,dst,ird_us,notifications\n");
        for x in &self.samples {
            let f = &ctx.traffic.flows[x.flow as usize];
            let _ = writeln!(
                out,
                "{},{},{},{},{}",
                secs(x.interval as u64 * ctx.interval),
                ctx.names[f.src as usize],
                ctx.names[f.dst as usize],
                r6(x.ird as f64 / 1e6),
                x.notifications
            );
        }
        out
    }
}

impl IbS1 {
    /// IBA_CC-S1 with the scenario's parameters in one line (the set-up report).
    pub fn describe(s: &crate::config::Scenario) -> String {
        let crate::config::CcKeys::IbS1(cc) = &s.cc.keys else {
            return "ib_s1".to_string();
        };
        format!(
            "ib_s1 (FECN above {} of {}; IRD + {} µs per {} notifications, − one step per quiet {} µs, {} timer)",
            cc.mark_fraction,
            crate::credit::cc::port_monitor::watched(cc.mark_buffer, cc.mark_scope),
            cc.ird_step.0 as f64 / 1e6,
            cc.notifications_per_step,
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

    fn baseline() -> IbS1 {
        let is_switch = [false];
        let cap = [64u32];
        let class = [LinkClass::Host];
        let ctx = CcContext {
            vls: 1,
            pkt_credits: 32,
            is_switch: &is_switch,
            class: &class,
            node_base: &[0],
            in_cap: &cap,
            n_hca: 1,
            seed: 1,
            base_dir: std::path::Path::new("."),
            multipath: None,
            given: &|_| false,
            sources_pick_lanes: false,
        };
        let c: IbS1Keys = toml::from_str("").expect("defaults");
        IbS1::from_config(&c, &ctx).expect("valid")
    }

    fn cn(flow: u32) -> Packet {
        Packet {
            flow,
            flags: CNP | BECN,
            ..Packet::default()
        }
    }

    const US: Ps = 1_000_000;

    #[test]
    fn ird_rises_five_us_per_ten_notifications_and_spaces_packets() {
        let mut s = baseline();
        s.packet_sent(1, 8 * US, 0); // before any notification: not tracked, no delay
        assert_eq!(s.ready_at(1), 0);
        for k in 1..=25 {
            s.notification_received(&cn(1), 0);
            assert_eq!(s.ird(1), (k / 10) * 5 * US, "after {k}");
        }
        assert_eq!(s.ird(0), 0, "only the notified flow");
        s.packet_sent(1, 8 * US, 100 * US);
        // next start = end of the packet (108 us) + IRD (10 us)
        assert_eq!(s.ready_at(1), 118 * US);
        assert_eq!(s.max_ird, 10 * US);
    }

    #[test]
    fn a_restarted_timer_lowers_the_ird_a_full_quiet_period_after_the_last_notification() {
        let mut s = baseline();
        s.ccm = CcmTimer::new(CcmTimerMode::PerFlowRestart, 100 * US, 1);
        assert_eq!(s.timer(), None, "no run-loop timer per connection");
        for _ in 0..20 {
            s.notification_received(&cn(0), 30 * US);
        }
        assert_eq!(s.ird(0), 10 * US);
        // a packet ends at 100 us: the next may start at 110 us (no quiet expiry before)
        s.packet_sent(0, 8 * US, 92 * US);
        assert_eq!(s.ready_at(0), 110 * US);
        // one ending at 125 us: the expiry at 130 us lowers the IRD to 5 us, so 130 us
        s.packet_sent(0, 5 * US, 120 * US);
        assert_eq!(s.ready_at(0), 130 * US);
        // one ending at 200 us: at 230 us the IRD is 0, but 205 us comes first
        s.packet_sent(0, 5 * US, 195 * US);
        assert_eq!(s.ready_at(0), 205 * US);
        // the interval's sample settles it: 0 after the second quiet expiry (230 us)
        s.interval_ended(0, 231 * US);
        assert_eq!(s.ird(0), 0);
        // the global timer lowers nothing between its own firings
        let mut g = baseline();
        for _ in 0..20 {
            g.notification_received(&cn(0), 30 * US);
        }
        g.packet_sent(0, 5 * US, 120 * US);
        assert_eq!(g.ready_at(0), 135 * US);
        assert_eq!(g.timer(), Some(100 * US));
    }

    #[test]
    fn quiet_periods_remove_one_step_each() {
        let mut s = baseline();
        for _ in 0..30 {
            s.notification_received(&cn(0), 0);
        }
        assert_eq!(s.ird(0), 15 * US);
        assert!(!s.timer_fired(), "the period had notifications");
        assert_eq!(s.ird(0), 15 * US);
        assert!(s.timer_fired());
        assert_eq!(s.ird(0), 10 * US);
        s.notification_received(&cn(0), 0); // the 31st: no step, but the period is not quiet
        assert!(!s.timer_fired());
        assert_eq!(s.ird(0), 10 * US);
        s.timer_fired();
        s.timer_fired();
        assert_eq!(s.ird(0), 0);
        assert!(!s.timer_fired(), "nothing left to lower");
    }
}
