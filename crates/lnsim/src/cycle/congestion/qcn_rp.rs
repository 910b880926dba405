//! The QCN reaction point (IEEE 802.1Qau clause 32; Alizadeh et al., "Data center transport
//! mechanisms: congestion control theory and IEEE standardization", 2008) at the nodes of the
//! cycle-level model: one rate limiter per node (lnsim keeps one injection FIFO per node; the
//! standard lets a NIC keep several limiters, one per flow it throttles), off by default as in
//! the thesis (Dragonfly spec §3.12.1, `qcn.reaction_point`).
//!
//! - A notification with feedback Fb starts the limiter at the link rate if it was off, then
//!   sets the target rate TR ← CR and cuts the current rate CR ← max(CR·(1 − G_d·Fb), R_min);
//!   the byte counter and the timer restart in fast recovery.
//! - The byte counter completes a stage every `bc_limit_packets` packets sent (half that after
//!   fast recovery); the timer every `timer_cycles` (half that after fast recovery). Each
//!   completed stage raises the rate: in fast recovery (neither stage count past the
//!   threshold, `fast_recovery_threshold`) CR ← (CR + TR)/2; in active increase (one past it)
//!   TR += R_AI first; in hyper-active increase (both past it) TR += (min stage −
//!   threshold)·R_HAI first.
//! - At the link rate the limiter is released. While it holds, a node may start a packet of L
//!   phits only L/CR cycles after the start of its previous one.
//!
//! Timer stages are applied when the node next decides (they change nothing in between).

use crate::config::QcnRpConfig;

/// The reaction point's parameters (`[qcn.rp]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RpParams {
    /// G_d.
    pub gd: f64,
    /// Byte-counter stage (packets) and timer stage (cycles) in fast recovery.
    pub bc_limit: u32,
    pub timer: u64,
    /// Stages of fast recovery.
    pub fr_threshold: u32,
    /// R_AI, R_HAI, R_min (fractions of the link rate).
    pub r_ai: f64,
    pub r_hai: f64,
    pub min_rate: f64,
}

impl RpParams {
    /// From `[qcn.rp]`.
    pub fn new(k: &QcnRpConfig) -> Self {
        RpParams {
            gd: k.gd,
            bc_limit: k.bc_limit_packets,
            timer: k.timer_cycles,
            fr_threshold: k.fast_recovery_threshold,
            r_ai: k.r_ai,
            r_hai: k.r_hai,
            min_rate: k.min_rate,
        }
    }
}

/// One node's rate limiter.
#[derive(Debug, Clone, Copy, Default)]
pub struct RateLimiter {
    /// Limiting (a notification arrived and the rate has not recovered).
    pub active: bool,
    /// Current and target rate (fractions of the link rate).
    pub cr: f64,
    pub tr: f64,
    /// Packets sent in the byte counter's stage; completed stages of each.
    bc_sent: u32,
    bc_stages: u32,
    t_stages: u32,
    /// Cycle the timer's stage completes.
    timer_at: u64,
    /// First cycle the node may start its next packet.
    next_at: u64,
}

/// The reaction points of every node, with their counts.
#[derive(Debug, Clone)]
pub struct ReactionPoints {
    /// Parameters.
    pub params: RpParams,
    /// Packet size (phits = cycles on the link at full rate).
    pkt_phits: u32,
    /// Per node.
    pub rl: Vec<RateLimiter>,
    /// Notifications received, limiter releases, rate increases.
    pub notifications: u64,
    pub releases: u64,
    pub increases: u64,
}

impl ReactionPoints {
    /// Idle limiters for `nodes` nodes sending packets of `pkt_phits` phits.
    pub fn new(params: RpParams, nodes: usize, pkt_phits: u32) -> Self {
        ReactionPoints {
            params,
            pkt_phits,
            rl: vec![RateLimiter::default(); nodes],
            notifications: 0,
            releases: 0,
            increases: 0,
        }
    }

    /// Bytes per node (memory estimate).
    pub const BYTES_PER_NODE: u64 = std::mem::size_of::<RateLimiter>() as u64;

    /// Node `t` received a notification with feedback `fb` at cycle `now`.
    pub fn notify(&mut self, t: u32, fb: u8, now: u64) {
        let p = self.params;
        let r = &mut self.rl[t as usize];
        self.notifications += 1;
        if !r.active {
            *r = RateLimiter {
                active: true,
                cr: 1.0,
                tr: 1.0,
                next_at: now,
                ..Default::default()
            };
        }
        r.tr = r.cr;
        r.cr = (r.cr * (1.0 - p.gd * fb as f64)).max(p.min_rate);
        r.bc_sent = 0;
        r.bc_stages = 0;
        r.t_stages = 0;
        r.timer_at = now + p.timer;
    }

    /// A stage completed: the rate rises (fast recovery, active or hyper-active increase).
    fn increase(p: &RpParams, r: &mut RateLimiter) -> bool {
        let th = p.fr_threshold;
        let (lo, hi) = (r.bc_stages.min(r.t_stages), r.bc_stages.max(r.t_stages));
        // the first `th` stages of each are fast recovery
        if hi > th {
            if lo > th {
                r.tr += (lo - th) as f64 * p.r_hai;
            } else {
                r.tr += p.r_ai;
            }
        }
        r.cr = (r.cr + r.tr) / 2.0;
        if r.cr >= 1.0 {
            r.active = false;
            return true;
        }
        false
    }

    /// Applies the timer stages completed up to `now`.
    fn timer(&mut self, t: u32, now: u64) {
        let p = self.params;
        let r = &mut self.rl[t as usize];
        while r.active && now >= r.timer_at {
            r.t_stages += 1;
            self.increases += 1;
            let half = r.t_stages >= p.fr_threshold;
            r.timer_at += if half { (p.timer / 2).max(1) } else { p.timer };
            if Self::increase(&p, r) {
                self.releases += 1;
            }
        }
    }

    /// The first cycle (≥ `now`) node `t` may start a packet.
    #[inline]
    pub fn ready_at(&mut self, t: u32, now: u64) -> u64 {
        if !self.rl[t as usize].active {
            return now;
        }
        self.timer(t, now);
        let r = &self.rl[t as usize];
        if r.active {
            r.next_at.max(now)
        } else {
            now
        }
    }

    /// Node `t` started a packet at cycle `now`.
    #[inline]
    pub fn sent(&mut self, t: u32, now: u64) {
        let p = self.params;
        let l = self.pkt_phits;
        let r = &mut self.rl[t as usize];
        if !r.active {
            return;
        }
        r.next_at = now + (l as f64 / r.cr).ceil() as u64;
        r.bc_sent += 1;
        let limit = if r.bc_stages >= p.fr_threshold {
            (p.bc_limit / 2).max(1)
        } else {
            p.bc_limit
        };
        if r.bc_sent >= limit {
            r.bc_sent = 0;
            r.bc_stages += 1;
            self.increases += 1;
            if Self::increase(&p, r) {
                self.releases += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rp() -> ReactionPoints {
        let p = RpParams {
            gd: 1.0 / 128.0,
            bc_limit: 10,
            timer: 1000,
            fr_threshold: 5,
            r_ai: 0.01,
            r_hai: 0.1,
            min_rate: 0.001,
        };
        ReactionPoints::new(p, 2, 100)
    }

    /// The state machine on a hand-made sequence: a notification cuts the rate by G_d·Fb,
    /// the injections are spaced L/CR, five byte-counter stages of fast recovery halve the gap
    /// to the target, then active increase raises the target, and the limiter is released at
    /// the link rate.
    #[test]
    fn rate_limiter_on_a_hand_made_sequence() {
        let mut r = rp();
        assert_eq!(r.ready_at(0, 5), 5, "no limiter before a notification");
        r.notify(0, 32, 0); // CR = 1 − 32/128 = 0.75, TR = 1
        assert!((r.rl[0].cr - 0.75).abs() < 1e-12 && r.rl[0].tr == 1.0);
        r.sent(0, 0);
        assert_eq!(
            r.ready_at(0, 1),
            134,
            "⌈100/0.75⌉ cycles after the last start"
        );
        // a second notification of Fb = 64: TR = 0.75, CR = 0.75·0.5 = 0.375
        r.notify(0, 64, 10);
        assert!((r.rl[0].cr - 0.375).abs() < 1e-12 && (r.rl[0].tr - 0.75).abs() < 1e-12);
        // fast recovery by the byte counter: each 10 packets CR ← (CR + 0.75)/2
        let mut cr = 0.375;
        for stage in 1..=5 {
            for k in 0..10 {
                r.sent(0, 20 + stage * 10 + k);
            }
            cr = (cr + 0.75) / 2.0;
            assert!((r.rl[0].cr - cr).abs() < 1e-12, "stage {stage}");
            assert!((r.rl[0].tr - 0.75).abs() < 1e-12);
        }
        // active increase (byte counter at 5 stages, timer at 0): TR += R_AI, 5-packet stages
        for _ in 0..5 {
            r.sent(0, 200);
        }
        let tr = 0.76;
        cr = (cr + tr) / 2.0;
        assert!((r.rl[0].tr - tr).abs() < 1e-12 && (r.rl[0].cr - cr).abs() < 1e-12);
        // the timer: 1,000 cycles after the last notification (at 10) a stage completes
        assert_eq!(r.increases, 6);
        r.ready_at(0, 1009);
        assert_eq!(r.increases, 6);
        r.ready_at(0, 1010);
        assert_eq!(r.increases, 7);
        // the other node is untouched
        assert!(!r.rl[1].active);
        // a long time with no notification releases the limiter (hyper-active increase)
        r.ready_at(0, 10_000_000);
        assert!(!r.rl[0].active);
        assert_eq!(r.releases, 1);
        assert_eq!(r.ready_at(0, 10_000_001), 10_000_001);
    }

    /// The floor R_min holds however many notifications arrive.
    #[test]
    fn the_rate_floor() {
        let mut r = rp();
        for k in 0..1000 {
            r.notify(1, 63, k);
        }
        assert_eq!(r.rl[1].cr, 0.001);
    }
}
