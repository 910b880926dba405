//! ACOR's levels (Dragonfly spec §3.7, Tables 5-2 and 5-3): the phase-A policy of each level
//! of a sequence ([`AcorParams`]), and ACOR-Switch's per-router state ([`AcorState`]): the
//! blocked re-routings of a router's injection heads counted over a hysteresis interval HI,
//! the level raised at once when the count reaches the level's increase threshold (IT1, IT2),
//! lowered by one at the end of an interval whose count is at most the level's decrease
//! threshold (DT1, DT2) (FOGSim's `≥` and `≤`); and every level change, for the level trace.
//! The algorithms that draw by level are in [`super::acor`].

use crate::config::{AcorConfig, AcorSequence, AcorVariant, VlbPolicy};

/// No threshold (a level that never rises, or never falls).
const NEVER: u32 = u32::MAX;

/// ACOR's level parameters (`[routing.acor]`, spec §3.7, Tables 5-2 and 5-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AcorParams {
    /// ACOR-Packet (level per packet) rather than ACOR-Switch (level per router).
    pub per_packet: bool,
    /// The level sequence.
    pub sequence: AcorSequence,
    /// Hysteresis interval HI in cycles.
    pub hi: u64,
    /// Increase thresholds IT1, IT2 and decrease thresholds DT1, DT2 (blocked re-routings
    /// per interval).
    pub it1: u32,
    /// See [`AcorParams::it1`].
    pub it2: u32,
    /// See [`AcorParams::it1`].
    pub dt1: u32,
    /// See [`AcorParams::it1`].
    pub dt2: u32,
}

impl AcorParams {
    /// The parameters of `[routing.acor]` with Table 5-3's defaults (IT2 = `it2_default`:
    /// 500 for ACOR, 50 for PB-ACOR).
    pub fn new(a: &AcorConfig, it2_default: u32) -> Self {
        AcorParams {
            per_packet: a.variant == AcorVariant::Packet,
            sequence: a.sequence,
            hi: a.hysteresis_cycles,
            it1: a.it1,
            it2: a.it2.unwrap_or(it2_default),
            dt1: a.dt1,
            dt2: a.dt2,
        }
    }

    /// Levels of the sequence (3 or 2); levels are numbered from 1.
    pub fn levels(&self) -> u8 {
        match self.sequence {
            AcorSequence::ThreeL => 3,
            AcorSequence::TwoLA | AcorSequence::TwoLB => 2,
        }
    }

    /// The phase-A policy of `level` (1 ..= [`AcorParams::levels`]; 0 reads as 1).
    #[inline]
    pub fn policy(&self, level: u8) -> VlbPolicy {
        use VlbPolicy::*;
        let seq: &[VlbPolicy] = match self.sequence {
            AcorSequence::ThreeL => &[DashGDash, DashGl, Lgl],
            AcorSequence::TwoLA => &[DashGDash, Lgl],
            AcorSequence::TwoLB => &[DashGl, Lgl],
        };
        seq[(level.max(1) as usize - 1).min(seq.len() - 1)]
    }

    /// Blocked re-routings in an interval that raise `level` ([`NEVER`] at the last level).
    fn inc_th(&self, level: u8) -> u32 {
        match (level, self.levels()) {
            (1, _) => self.it1,
            (2, 3) => self.it2,
            _ => NEVER,
        }
    }

    /// At most this many blocked re-routings in an interval lower `level` (`None` at level 1).
    fn dec_th(&self, level: u8) -> Option<u32> {
        match (level, self.levels()) {
            (1, _) => None,
            (2, _) => Some(self.dt1),
            _ => Some(self.dt2),
        }
    }

    /// The level of a packet blocked at the head of its injection queue and re-routed
    /// (ACOR-Packet: one up, at most the last).
    #[inline]
    pub fn packet_level_after_block(&self, level: u8) -> u8 {
        (level.max(1) + 1).min(self.levels())
    }
}

/// ACOR-Switch's per-router state (spec §3.7): the level, the blocked re-routings counted in
/// the current hysteresis interval and the cycle that interval ends; plus every level change
/// `(cycle, router, new level)` for the level trace. The end of an interval is applied when
/// the router is next looked at (every interval that ended before the current cycle in turn),
/// which gives the levels of a per-cycle timer: the interval that starts at cycle `t` ends
/// at the end of cycle `t + HI`, and the blocked re-routings of that cycle count in it.
#[derive(Debug, Clone)]
pub struct AcorState {
    p: AcorParams,
    level: Vec<u8>,
    count: Vec<u32>,
    deadline: Vec<u64>,
    /// Level changes `(cycle from which the new level holds, router, new level)`, in the
    /// order they were applied (not sorted by cycle across routers).
    pub changes: Vec<(u64, u32, u8)>,
}

impl AcorState {
    /// `routers` routers at level 1 with an interval starting at cycle 0.
    pub fn new(routers: u32, p: AcorParams) -> Self {
        AcorState {
            p,
            level: vec![1; routers as usize],
            count: vec![0; routers as usize],
            deadline: vec![p.hi; routers as usize],
            changes: Vec::new(),
        }
    }

    /// The parameters.
    pub fn params(&self) -> &AcorParams {
        &self.p
    }

    /// Applies the ends of router `r`'s intervals that ended before cycle `now`.
    #[inline]
    fn catch_up(&mut self, r: u32, now: u64) {
        let i = r as usize;
        while self.deadline[i] < now {
            let lv = self.level[i];
            match self.p.dec_th(lv) {
                Some(d) => {
                    if self.count[i] <= d {
                        self.level[i] = lv - 1;
                        self.changes.push((self.deadline[i] + 1, r, lv - 1));
                    }
                    self.deadline[i] += self.p.hi;
                }
                None => {
                    // level 1 never falls: skip to the first interval not yet ended
                    let k = (now - self.deadline[i]).div_ceil(self.p.hi);
                    self.deadline[i] += k * self.p.hi;
                }
            }
            self.count[i] = 0;
        }
    }

    /// Router `r`'s level at cycle `now`.
    #[inline]
    pub fn level(&mut self, r: u32, now: u64) -> u8 {
        self.catch_up(r, now);
        self.level[r as usize]
    }

    /// A Valiant-routed packet at the head of one of router `r`'s injection queues was
    /// blocked at cycle `now` and is re-routed: counted; reaching the level's increase
    /// threshold raises the level at once and starts a new interval.
    #[inline]
    pub fn blocked(&mut self, r: u32, now: u64) {
        self.catch_up(r, now);
        let i = r as usize;
        self.count[i] += 1;
        let lv = self.level[i];
        if self.count[i] >= self.p.inc_th(lv) {
            self.level[i] = lv + 1;
            self.changes.push((now, r, lv + 1));
            self.count[i] = 0;
            self.deadline[i] = now + self.p.hi;
        }
    }

    /// Applies every interval that ended before cycle `stop` (the end of the run).
    pub fn finish(&mut self, stop: u64) {
        for r in 0..self.level.len() as u32 {
            self.catch_up(r, stop);
        }
    }

    /// The level changes sorted by cycle, then router, after one row per router at cycle 0
    /// (level 1): the level trace.
    pub fn trace(&self) -> Vec<(u64, u32, u8)> {
        let mut t: Vec<(u64, u32, u8)> = (0..self.level.len() as u32).map(|r| (0, r, 1)).collect();
        let mut c = self.changes.clone();
        c.sort_by_key(|&(t, r, _)| (t, r));
        t.extend(c);
        t
    }

    /// The share of router-cycles spent at each level (index level − 1) in the cycles
    /// `[from, to)`, over every router.
    pub fn level_share(&self, from: u64, to: u64) -> Vec<f64> {
        let n = self.p.levels() as usize;
        let mut cycles = vec![0u64; n];
        let mut c = self.changes.clone();
        c.sort_by_key(|&(t, r, _)| (r, t));
        let mut k = 0;
        for r in 0..self.level.len() as u32 {
            let (mut t0, mut lv) = (0u64, 1u8);
            let mut add = |a: u64, b: u64, lv: u8| {
                let (a, b) = (a.max(from), b.min(to));
                if b > a {
                    cycles[lv as usize - 1] += b - a;
                }
            };
            while k < c.len() && c[k].1 == r {
                add(t0, c[k].0, lv);
                (t0, lv) = (c[k].0, c[k].2);
                k += 1;
            }
            add(t0, u64::MAX, lv);
        }
        let total: u64 = cycles.iter().sum();
        cycles
            .iter()
            .map(|&x| x as f64 / total.max(1) as f64)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(seq: AcorSequence) -> AcorParams {
        AcorParams {
            per_packet: false,
            sequence: seq,
            hi: 100,
            it1: 3,
            it2: 5,
            dt1: 1,
            dt2: 2,
        }
    }

    #[test]
    fn sequences_of_table_5_2() {
        use VlbPolicy::*;
        let p = |s| {
            let a = params(s);
            (1..=a.levels()).map(|l| a.policy(l)).collect::<Vec<_>>()
        };
        assert_eq!(p(AcorSequence::ThreeL), [DashGDash, DashGl, Lgl]);
        assert_eq!(p(AcorSequence::TwoLA), [DashGDash, Lgl]);
        assert_eq!(p(AcorSequence::TwoLB), [DashGl, Lgl]);
        // ACOR-Packet: one level per blocked re-routing, up to the last
        let a = params(AcorSequence::ThreeL);
        assert_eq!(a.packet_level_after_block(0), 2);
        assert_eq!(a.packet_level_after_block(2), 3);
        assert_eq!(a.packet_level_after_block(3), 3);
        assert_eq!(params(AcorSequence::TwoLB).packet_level_after_block(2), 2);
    }

    #[test]
    fn a_level_rises_at_the_threshold_at_once_and_falls_only_at_the_end_of_an_interval() {
        let mut s = AcorState::new(2, params(AcorSequence::ThreeL));
        // IT1 = 3: two blocked re-routings leave level 1, the third raises it at once
        s.blocked(0, 10);
        s.blocked(0, 11);
        assert_eq!(s.level(0, 12), 1);
        s.blocked(0, 12);
        assert_eq!(s.level(0, 12), 2);
        // the other router is untouched
        assert_eq!(s.level(1, 12), 1);
        // a new interval started at 12 and ends at the end of cycle 112: 2 blocked
        // re-routings (> DT1 = 1) keep level 2 ...
        s.blocked(0, 50);
        s.blocked(0, 112);
        assert_eq!(s.level(0, 112), 2);
        assert_eq!(s.level(0, 113), 2, "2 > DT1 at the end of the interval");
        // ... the next interval (113 ..= 212) has one (≤ DT1): level 1 from cycle 213
        s.blocked(0, 150);
        assert_eq!(s.level(0, 212), 2);
        assert_eq!(s.level(0, 213), 1);
        // level 2 → 3 needs IT2 = 5 within one interval
        for t in 300..303 {
            s.blocked(0, t);
        }
        assert_eq!(s.level(0, 303), 2);
        for t in 303..308 {
            s.blocked(0, t);
        }
        assert_eq!(s.level(0, 308), 3);
        // level 3 never rises: 12 blocked re-routings (> DT2 = 2) in the interval 308 ..= 407
        // keep it; the idle interval after lowers it at the end of 507, the next at 607
        for t in 308..320 {
            s.blocked(0, t);
        }
        assert_eq!(s.level(0, 320), 3);
        assert_eq!(s.level(0, 408), 3);
        assert_eq!(s.level(0, 508), 2);
        assert_eq!(s.level(0, 608), 1);
        assert_eq!(s.level(0, 10_000), 1);
        // the trace holds every change in cycle order
        let lv: Vec<(u64, u8)> = s
            .trace()
            .iter()
            .filter(|c| c.1 == 0)
            .map(|c| (c.0, c.2))
            .collect();
        assert_eq!(
            lv,
            [
                (0, 1),
                (12, 2),
                (213, 1),
                (302, 2),
                (307, 3),
                (508, 2),
                (608, 1)
            ]
        );
        // over [0, 1000) router 0 spent 201 cycles at level 3 and 201 + 5 + 100 at level 2;
        // router 1 stayed at level 1
        let share = s.level_share(0, 1000);
        assert_eq!(share.len(), 3);
        assert!((share[2] - 201.0 / 2000.0).abs() < 1e-12, "{share:?}");
        assert!((share[1] - 306.0 / 2000.0).abs() < 1e-12, "{share:?}");
        assert!((share[0] - 1493.0 / 2000.0).abs() < 1e-12, "{share:?}");
    }

    #[test]
    fn two_level_sequences_stop_at_level_2_and_fall_by_dt1() {
        let mut s = AcorState::new(1, params(AcorSequence::TwoLA));
        for t in 0..3 {
            s.blocked(0, t);
        }
        assert_eq!(s.level(0, 3), 2);
        // the last level never rises
        for t in 10..20 {
            s.blocked(0, t);
        }
        assert_eq!(s.level(0, 20), 2);
        // the interval from the rise (2 ..= 102) had 10 (> DT1 = 1); the next one (103 ..=
        // 202) has one (≤ DT1): level 1 from cycle 203
        assert_eq!(s.level(0, 103), 2);
        s.blocked(0, 150);
        assert_eq!(s.level(0, 202), 2);
        assert_eq!(s.level(0, 203), 1);
    }
}
