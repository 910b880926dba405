//! QCN-Switch's minimal probabilities (Dragonfly spec §3.12.3–§3.12.5; thesis §4.6): one per
//! transit port of every router, starting at 100 %, kept by the routing-mechanism seam
//! (`cycle/mechanism.rs`) and read by [`super::qcn_switch`]'s decision.
//! - base AIMD (§3.12.3): a notification with feedback Fb through transit port x cuts
//!   P_x ← P_x·(1 − L_f·Fb) (Eq. 4-3), floored at `p_min`; every PC_l packets switched to x
//!   since its last notification raise P_x by PI (capped at 100);
//! - feedback comparison (§3.12.4, the final configuration): Fb is compared with the mean last
//!   feedback Fb_avg of the router's a − 1 + h transit ports (integer division, ports never
//!   notified counting 0, as FOGSim): Fb ≤ Fb_avg + Th1 raises P_x by PI, Fb > Fb_avg + Th2 cuts
//!   P_x ← P_x·(1 − L_f·(Fb − Fb_avg)) (Eq. 4-5), in between nothing;
//! - source processing (§3.12.5) and output sampling's local victims apply a notification at the
//!   router that generated it, to its own minimal port towards the victim's destination.

use crate::config::{QcnSwitchConfig, QcnTrace};
use crate::topology::dragonfly::DragonflyShape;

/// The probabilities' parameters (`[routing.qcn_switch]`, Table 4-3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QcnSwitchParams {
    /// L_f.
    pub lf: f64,
    /// PC_l in packets.
    pub pc_limit: u32,
    /// PI in percentage points.
    pub pi: f64,
    /// Feedback comparison.
    pub feedback_comparison: bool,
    /// Th1 of the feedback comparison.
    pub th1: i64,
    /// Th2 of the feedback comparison.
    pub th2: i64,
    /// Source processing (input sampling).
    pub source_processing: bool,
    /// Floor of a probability (percent).
    pub p_min: f64,
    /// Trace group 0's probability changes.
    pub trace_group0: bool,
}

impl QcnSwitchParams {
    /// From `[routing.qcn_switch]`.
    pub fn new(k: &QcnSwitchConfig) -> Self {
        QcnSwitchParams {
            lf: k.lf,
            pc_limit: k.pc_limit_packets,
            pi: k.pi,
            feedback_comparison: k.feedback_comparison,
            th1: k.th1,
            th2: k.th2,
            source_processing: k.source_processing,
            p_min: k.p_min,
            trace_group0: k.trace == QcnTrace::Group0,
        }
    }
}

/// Why a minimal probability changed (`qcn_probabilities.csv`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// A notification received through the port (base decrease, or feedback comparison).
    Notification = 0,
    /// PC_l packets switched to the port since its last notification.
    PacketCounter = 1,
    /// Applied where the notification was generated (output sampling's local victim, or
    /// source processing).
    Local = 2,
}

impl Cause {
    /// Its name in `qcn_probabilities.csv`.
    pub fn name(self) -> &'static str {
        ["notification", "packet_counter", "local"][self as usize]
    }
}

/// One traced change of a minimal probability.
#[derive(Debug, Clone, Copy)]
pub struct TracedChange {
    /// Cycle of the change.
    pub cycle: u64,
    /// Router and port.
    pub router: u32,
    /// Port of the router.
    pub port: u16,
    /// The probability after the change (percent).
    pub p: f32,
    /// Why it changed.
    pub cause: Cause,
    /// The feedback applied (0 for the packet counter).
    pub fb: u8,
}

/// The minimal probability of every transit port of every router, with its packet counter and
/// last feedback (spec §3.12.3–§3.12.4), indexed by router port `r · radix + port`.
#[derive(Debug, Clone)]
pub struct QcnSwitchState {
    /// Parameters.
    pub params: QcnSwitchParams,
    /// Ports per router, and the transit ports `lo..hi` (local, then global).
    radix: u32,
    lo: u32,
    hi: u32,
    /// Routers of group 0 (traced ones are below this).
    traced_routers: u32,
    /// P per router port (percent; 100 at start).
    pub p: Vec<f32>,
    /// Packets switched to the port since its last notification or increase.
    pc: Vec<u32>,
    /// Last feedback per port, and its sum per router (Fb_avg's numerator).
    last_fb: Vec<u8>,
    fb_sum: Vec<u32>,
    /// Notifications applied through a port.
    pub notifications: u64,
    /// Notifications applied where they were generated.
    pub local: u64,
    /// Packet-counter increases.
    pub increases: u64,
    /// Traced changes (group 0).
    pub trace: Vec<TracedChange>,
}

impl QcnSwitchState {
    /// All probabilities at 100 % on the Dragonfly `s`.
    pub fn new(s: &DragonflyShape, params: QcnSwitchParams) -> Self {
        let radix = s.radix();
        let n = (s.routers() * radix) as usize;
        QcnSwitchState {
            params,
            radix,
            lo: s.p,
            hi: s.p + s.a - 1 + s.h,
            traced_routers: if params.trace_group0 { s.a } else { 0 },
            p: vec![100.0; n],
            pc: vec![0; n],
            last_fb: vec![0; n],
            fb_sum: vec![0; s.routers() as usize],
            notifications: 0,
            local: 0,
            increases: 0,
            trace: Vec::new(),
        }
    }

    /// Bytes held per router port (memory estimate).
    pub const BYTES_PER_PORT: u64 = 4 + 4 + 1;

    /// Is router port index `i` (`r · radix + port`) a transit port?
    pub fn is_transit_index(&self, i: usize) -> bool {
        self.transit(i as u32 % self.radix)
    }

    /// Is `port` a transit port?
    #[inline]
    fn transit(&self, port: u32) -> bool {
        port >= self.lo && port < self.hi
    }

    /// P of port `port` of router `r` (percent).
    #[inline]
    pub fn probability(&self, r: u32, port: u32) -> f64 {
        self.p[(r * self.radix + port) as usize] as f64
    }

    #[inline]
    fn set(&mut self, r: u32, port: u32, p: f64, now: u64, cause: Cause, fb: u8) {
        let i = (r * self.radix + port) as usize;
        let p = p.clamp(self.params.p_min, 100.0) as f32;
        if r < self.traced_routers && p != self.p[i] {
            self.trace.push(TracedChange {
                cycle: now,
                router: r,
                port: port as u16,
                p,
                cause,
                fb,
            });
        }
        self.p[i] = p;
    }

    /// A packet was switched to output `port` of router `r` (every kind, spec §3.12.3 \[FOG\]).
    #[inline(never)]
    pub fn packet_switched(&mut self, r: u32, port: u32, now: u64) {
        if !self.transit(port) {
            return;
        }
        let i = (r * self.radix + port) as usize;
        self.pc[i] += 1;
        if self.pc[i] >= self.params.pc_limit {
            self.pc[i] = 0;
            self.increases += 1;
            let p = self.p[i] as f64 + self.params.pi;
            self.set(r, port, p, now, Cause::PacketCounter, 0);
        }
    }

    /// The multiplicative decrease of Eq. 4-3 by feedback `fb`.
    #[inline]
    fn decrease(&self, p: f64, fb: i64) -> f64 {
        p * (1.0 - self.params.lf * fb as f64)
    }

    /// A notification with feedback `fb` (1 … 63) for port `port` of router `r`, received
    /// through it (`cause` = [`Cause::Notification`]) or applied where it was generated
    /// ([`Cause::Local`]); `comparison`: by the feedback comparison, else the base decrease.
    pub fn notify(&mut self, r: u32, port: u32, fb: u8, now: u64, cause: Cause, comparison: bool) {
        if !self.transit(port) {
            return;
        }
        match cause {
            Cause::Local => self.local += 1,
            _ => self.notifications += 1,
        }
        let i = (r * self.radix + port) as usize;
        self.pc[i] = 0;
        let p = self.p[i] as f64;
        if !comparison {
            let q = self.decrease(p, fb as i64);
            self.set(r, port, q, now, cause, fb);
            return;
        }
        let ri = r as usize;
        self.fb_sum[ri] = self.fb_sum[ri] - self.last_fb[i] as u32 + fb as u32;
        self.last_fb[i] = fb;
        let avg = (self.fb_sum[ri] / (self.hi - self.lo)) as i64;
        let f = fb as i64;
        if f <= avg + self.params.th1 {
            self.set(r, port, p + self.params.pi, now, cause, fb);
        } else if f > avg + self.params.th2 {
            let q = self.decrease(p, f - avg);
            self.set(r, port, q, now, cause, fb);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::dragonfly::Arrangement;

    fn params() -> QcnSwitchParams {
        QcnSwitchParams::new(&QcnSwitchConfig::default())
    }

    fn state(fc: bool) -> QcnSwitchState {
        let s = DragonflyShape::new(2, 4, 2, Arrangement::Palmtree).unwrap();
        let mut p = params();
        p.feedback_comparison = fc;
        QcnSwitchState::new(&s, p)
    }

    /// Table 4-3's defaults: L_f = 1/64, PC_l = 100, PI = 1, Th1 = 0, Th2 = 30, feedback
    /// comparison on (the final configuration).
    #[test]
    fn defaults_are_table_4_3() {
        let p = params();
        assert_eq!(
            (p.lf, p.pc_limit, p.pi, p.th1, p.th2),
            (1.0 / 64.0, 100, 1.0, 0, 30)
        );
        assert!(p.feedback_comparison && !p.source_processing);
    }

    /// Base AIMD (Eq. 4-3): a maximal notification (Fb = 63) cuts P to 100/64; a second one
    /// to 100/64²; PC_l packets raise it by PI, fewer do not; a notification restarts the
    /// count. Terminal ports (below p) hold no probability.
    #[test]
    fn base_aimd_on_a_hand_made_sequence() {
        let mut st = state(false);
        let (r, x) = (5, 2); // router 5 (group 1), first local port (p = 2)
        st.notify(r, x, 63, 10, Cause::Notification, false);
        assert!((st.probability(r, x) - 100.0 / 64.0).abs() < 1e-4);
        st.notify(r, x, 63, 11, Cause::Notification, false);
        assert!((st.probability(r, x) - 100.0 / 4096.0).abs() < 1e-5);
        for k in 0..99 {
            st.packet_switched(r, x, 20 + k);
        }
        assert!((st.probability(r, x) - 100.0 / 4096.0).abs() < 1e-5);
        st.packet_switched(r, x, 200);
        assert!((st.probability(r, x) - (1.0 + 100.0 / 4096.0)).abs() < 1e-4);
        // 50 packets, a notification of Fb = 32 (× 0.5), then 99 packets: no increase
        for k in 0..50 {
            st.packet_switched(r, x, 300 + k);
        }
        let before = st.probability(r, x);
        st.notify(r, x, 32, 400, Cause::Notification, false);
        assert!((st.probability(r, x) - before * 0.5).abs() < 1e-4);
        for k in 0..99 {
            st.packet_switched(r, x, 500 + k);
        }
        assert!((st.probability(r, x) - before * 0.5).abs() < 1e-4);
        // the cap at 100
        let y = x + 1;
        for k in 0..1000 {
            st.packet_switched(r, y, k);
        }
        assert_eq!(st.probability(r, y), 100.0);
        // a terminal port is not a transit port
        st.notify(r, 0, 63, 1, Cause::Notification, false);
        assert_eq!(st.probability(r, 0), 100.0);
        assert_eq!(st.trace.len(), 0, "router 5 is not in group 0 (a = 4)");
    }

    /// Feedback comparison (Eq. 4-4, 4-5) with a = 4, h = 2: five transit ports, integer mean.
    /// A first Fb = 40 on port x: avg = 40/5 = 8, 40 > 8 + 30 cuts by 1 − (40 − 8)/64 = 0.5.
    /// Then Fb = 10 on port y: sum 50, avg 10, 10 ≤ 10 + 0 raises y by PI (capped at 100, so
    /// y stays). Then Fb = 30 on x: sum 50 − 40 + 30 = 40, avg 8, 30 is in the dead band
    /// (8, 38]: no change.
    #[test]
    fn feedback_comparison_on_a_hand_made_sequence() {
        let mut st = state(true);
        let (r, x, y) = (1, 2, 3);
        st.notify(r, x, 40, 1, Cause::Notification, true);
        assert!((st.probability(r, x) - 50.0).abs() < 1e-4);
        st.notify(r, y, 10, 2, Cause::Notification, true);
        assert_eq!(st.probability(r, y), 100.0);
        st.notify(r, x, 30, 3, Cause::Notification, true);
        assert!((st.probability(r, x) - 50.0).abs() < 1e-4, "dead band");
        // Fb = 5 on x: sum 40 − 30 + 5 = 15, avg 3; 5 > 3 + 0 and ≤ 3 + 30: dead band too
        st.notify(r, x, 5, 4, Cause::Notification, true);
        assert!((st.probability(r, x) - 50.0).abs() < 1e-4);
        // Fb = 1 on x: sum 11, avg 2; 1 ≤ 2: + PI
        st.notify(r, x, 1, 5, Cause::Notification, true);
        assert!((st.probability(r, x) - 51.0).abs() < 1e-4);
        // router 1 is in group 0: its changes are traced (x: 50, 51; y unchanged)
        assert_eq!(st.trace.len(), 2);
        assert_eq!(st.trace[1].cause, Cause::Notification);
    }

    /// The floor `p_min`.
    #[test]
    fn the_probability_floor() {
        let mut st = state(false);
        st.params.p_min = 5.0;
        for _ in 0..10 {
            st.notify(0, 2, 63, 1, Cause::Notification, false);
        }
        assert_eq!(st.probability(0, 2), 5.0);
    }
}
