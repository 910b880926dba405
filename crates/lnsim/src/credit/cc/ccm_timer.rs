//! The sources' CCM timer of the DRB paper's mechanisms (drb-and-ddbbm spec A.3.4, A.4;
//! `cc.ccm_timer`, `cc.ccm_timer_mode`): a timer expiry with no notification for the connection
//! in the period before it is "quiet" and closes one DRB path ([`super::drb`]) or removes one
//! IRD step ([`super::ib_s1`]).
//!
//! `global` is one synchronous timer for all connections, an event of the run loop
//! (`CongestionManagement::timer_fired`). The per-connection modes need no events: a
//! connection's expiries lie on a lattice `k · period − offset`, so its quiet expiries between
//! two instants follow from the time of its last notification alone, and the mechanisms settle
//! a connection's state lazily when they read it (as IB CC's CCTI timer, `ib_ca.rs`):
//! - `per_flow_phase`: each connection's own free-running timer, offset by a phase uniform in
//!   `[0, period)` drawn from the seed per connection (the IBA's CCTI_Timer runs free per port
//!   and SL at the channel adapter; in the shuffle a source has one connection);
//! - `per_flow_restart`: each notification restarts the connection's timer, which then expires
//!   a full period after the last notification and every period after that ("when counter
//!   expires and no more notification packets arrive", spec A.3.4).
//!
//! An expiry at `τ` is quiet when no notification came in `(τ − period, τ]`, i.e. when
//! `τ ≥ last + period`.

use crate::config::{CcmTimerMode, Ps};
use crate::engine::rng::{purpose, stream};
use rand::Rng;

/// The timers of the sources' connections.
#[derive(Debug, Clone)]
pub struct CcmTimer {
    mode: CcmTimerMode,
    period: Ps,
    seed: u64,
    /// Per flow (`per_flow_phase` only): its timer's phase.
    phase: Vec<Ps>,
}

impl CcmTimer {
    /// The timers of period `period` (> 0) in mode `mode`; `seed`: the run's (the phases).
    pub fn new(mode: CcmTimerMode, period: Ps, seed: u64) -> Self {
        CcmTimer {
            mode,
            period,
            seed,
            phase: Vec::new(),
        }
    }

    /// The period.
    pub fn period(&self) -> Ps {
        self.period
    }

    /// True for the one synchronous timer of the run loop (`global`): the per-connection
    /// counting below is then not used.
    pub fn is_global(&self) -> bool {
        self.mode == CcmTimerMode::Global
    }

    /// Makes room for flows `0..n` (draws their phases in `per_flow_phase`).
    pub fn grow(&mut self, n: usize) {
        if self.mode == CcmTimerMode::PerFlowPhase {
            while self.phase.len() < n {
                let f = self.phase.len() as u64;
                let ph =
                    stream(self.seed, f, purpose::CCM_TIMER_PHASE).random_range(0..self.period);
                self.phase.push(ph);
            }
        }
    }

    /// The offset `o` of flow `f`'s expiry lattice `k · period − o`, given its last
    /// notification at `last`.
    fn offset(&self, f: usize, last: Ps) -> Ps {
        match self.mode {
            CcmTimerMode::Global => 0,
            CcmTimerMode::PerFlowPhase => self.phase.get(f).copied().unwrap_or(0),
            CcmTimerMode::PerFlowRestart => (self.period - last % self.period) % self.period,
        }
    }

    /// Expiries of flow `f`'s timer in `(from, to]` (last notification at `last`).
    pub fn expiries(&self, f: usize, last: Ps, from: Ps, to: Ps) -> u64 {
        if to <= from {
            return 0;
        }
        let o = self.offset(f, last);
        (to + o) / self.period - (from + o) / self.period
    }

    /// Quiet expiries of flow `f`'s timer in `(from, to]`: those at least a period after its
    /// last notification at `last`.
    pub fn quiet_expiries(&self, f: usize, last: Ps, from: Ps, to: Ps) -> u64 {
        self.expiries(f, last, from.max(last + self.period - 1), to)
    }

    /// The first quiet expiry of flow `f`'s timer after `after` (last notification at `last`).
    pub fn next_quiet_expiry(&self, f: usize, last: Ps, after: Ps) -> Ps {
        let a = after.max(last + self.period - 1);
        let o = self.offset(f, last);
        ((a + o) / self.period + 1) * self.period - o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: Ps = 1_000_000;

    #[test]
    fn global_expiries_are_the_multiples_of_the_period() {
        let t = CcmTimer::new(CcmTimerMode::Global, 100 * US, 1);
        // a notification at 30 us: the expiry at 100 us is not quiet, 200 and 300 us are
        assert_eq!(t.expiries(0, 30 * US, 30 * US, 300 * US), 3);
        assert_eq!(t.quiet_expiries(0, 30 * US, 30 * US, 300 * US), 2);
        assert_eq!(t.quiet_expiries(0, 30 * US, 30 * US, 199 * US), 0);
        assert_eq!(t.next_quiet_expiry(0, 30 * US, 30 * US), 200 * US);
        // a notification at an expiry's instant belongs to the period ending there
        assert_eq!(t.quiet_expiries(0, 100 * US, 100 * US, 200 * US), 1);
    }

    #[test]
    fn restarted_timers_expire_a_full_period_after_the_last_notification() {
        let t = CcmTimer::new(CcmTimerMode::PerFlowRestart, 100 * US, 1);
        assert_eq!(t.quiet_expiries(0, 30 * US, 30 * US, 129 * US), 0);
        assert_eq!(t.quiet_expiries(0, 30 * US, 30 * US, 130 * US), 1);
        assert_eq!(t.quiet_expiries(0, 30 * US, 30 * US, 330 * US), 3);
        assert_eq!(t.next_quiet_expiry(0, 30 * US, 30 * US), 130 * US);
        assert_eq!(t.next_quiet_expiry(0, 30 * US, 130 * US), 230 * US);
        // counted in pieces as in one go
        assert_eq!(
            t.quiet_expiries(0, 30 * US, 30 * US, 170 * US)
                + t.quiet_expiries(0, 30 * US, 170 * US, 330 * US),
            3
        );
    }

    #[test]
    fn phased_timers_differ_per_flow_and_repeat_per_seed() {
        let mut t = CcmTimer::new(CcmTimerMode::PerFlowPhase, 100 * US, 7);
        t.grow(8);
        let next: Vec<Ps> = (0..8).map(|f| t.next_quiet_expiry(f, 0, 0)).collect();
        // notified at 0: each flow's first quiet expiry is its first at or after a period
        assert!(
            next.iter().all(|&x| (100 * US..200 * US).contains(&x)),
            "{next:?}"
        );
        let distinct: std::collections::HashSet<_> = next.iter().collect();
        assert!(distinct.len() > 4, "phases differ: {next:?}");
        // a flow's expiries are a period apart
        for (f, &n) in next.iter().enumerate() {
            assert_eq!(t.next_quiet_expiry(f, 0, n), n + 100 * US);
            assert_eq!(t.quiet_expiries(f, 0, 0, n), 1);
            assert_eq!(t.quiet_expiries(f, 0, 0, n - 1), 0);
        }
        let mut again = CcmTimer::new(CcmTimerMode::PerFlowPhase, 100 * US, 7);
        again.grow(8);
        assert_eq!(again.phase, t.phase, "the same seed, the same phases");
        let mut other = CcmTimer::new(CcmTimerMode::PerFlowPhase, 100 * US, 8);
        other.grow(8);
        assert_ne!(other.phase, t.phase);
    }
}
