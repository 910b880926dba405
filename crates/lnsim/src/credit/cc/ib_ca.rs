//! IB CC, channel-adapter side (spec §2.3): a destination that consumes a FECN-marked data
//! packet returns a CNP with BECN to the source, queued before all data; the source keeps a
//! CCT index (CCTI) per flow (QP level) or per source SL (SL level), raised by
//! `CCTI_Increase` up to `CCTI_Limit` on each BECN and lowered by one every `CCTI_Timer`,
//! never below `CCTI_Min`; a flow may send its next packet only `(1 + IRD)` packet times after
//! the previous one started, IRD = CCT\[CCTI\].
//!
//! CCTI is evaluated lazily: `(value after the last BECN, its time)` determine it at any later
//! time for every timer semantics — `restart` (each BECN restarts the timer, the model's text,
//! G§3.2.2), `free_running` (a periodic timer per port SL, the IBA's, G§2.2, all of them
//! ticking together) and `free_running_phased` (the same, each source SL's timer offset by a
//! phase of its own drawn from the seed) — so no timer events are needed.

use super::cct::CongestionControlTable;
use crate::config::{CcLevel, IbCcKeys, Ps, TimerMode};
use crate::engine::rng::{purpose, stream};
use crate::error::{Error, Result};
use rand::Rng;

/// Channel-adapter-side state.
#[derive(Debug, Clone)]
pub struct CaCc {
    sl_level: bool,
    restart: bool,
    /// `free_running_phased`: the seed the timers' phases are drawn from.
    phase_seed: Option<u64>,
    increase: u32,
    /// Upper bound of CCTI.
    pub limit: u32,
    /// Lower bound of CCTI.
    pub min: u32,
    timer: Ps,
    vls: usize,
    /// The table.
    pub table: CongestionControlTable,
    /// CNP size in bytes.
    pub cnp_bytes: u32,
    /// VL of the CNPs (`None`: the flow's).
    pub cnp_vl: Option<u8>,
    /// Per key: CCTI right after the last BECN.
    base: Vec<u32>,
    /// Per key: time of the last BECN.
    base_t: Vec<Ps>,
    /// Per key, in `free_running_phased` only (empty otherwise: no memory per flow for the
    /// other modes): the phase of its source SL's free-running timer, which ticks at
    /// `k · timer − phase`.
    phase: Vec<Ps>,
    /// Per key: earliest start of the next packet.
    next_allowed: Vec<Ps>,
    /// Per key: highest CCTI since the last sample.
    peak: Vec<u32>,
    /// Keys whose CCTI is above the minimum (sampled per interval).
    active: Vec<u32>,
    in_active: Vec<bool>,
    /// Per HCA: CNPs generated.
    pub cnps_sent: Vec<u64>,
    /// Per HCA: BECNs received.
    pub cnps_received: Vec<u64>,
    /// Per flow: extra spacing imposed by the IRD (ps).
    pub throttled: Vec<Ps>,
    /// Samples: (interval, key, CCTI at the interval's end, peak CCTI in the interval).
    pub series: Vec<(u32, u32, u32, u32)>,
    /// Highest CCTI reached by any key.
    pub max_ccti: u32,
}

impl CaCc {
    /// Channel-adapter state for `n_hca` HCAs (`seed`: the run's, for the timers' phases).
    pub fn new(
        c: &IbCcKeys,
        vls: usize,
        n_hca: usize,
        table: CongestionControlTable,
        seed: u64,
    ) -> Result<Self> {
        let sl_level = c.level == CcLevel::Sl;
        let restart = c.timer_mode == TimerMode::Restart;
        let phase_seed = (c.timer_mode == TimerMode::FreeRunningPhased).then_some(seed);
        if c.ccti_limit < c.ccti_min {
            return Err(Error::input(
                "cc.ccti_limit",
                format!("{} is below cc.ccti_min = {}", c.ccti_limit, c.ccti_min),
            ));
        }
        if c.ccti_limit >= 1 << 14 {
            return Err(Error::input(
                "cc.ccti_limit",
                format!("{} exceeds the IBA's 14-bit CCTI", c.ccti_limit),
            ));
        }
        if let Some(v) = c.cnp_vl {
            if v as usize >= vls {
                return Err(Error::input(
                    "cc.cnp_vl",
                    format!("VL {v} does not exist; switch.vls = {vls}"),
                ));
            }
        }
        if c.ccti_timer.0 == 0 {
            return Err(Error::input("cc.ccti_timer", "must be positive"));
        }
        if table.ird.len() <= c.ccti_limit as usize {
            return Err(Error::input(
                "cc.cct",
                format!(
                    "the table has {} entries; CCTI may reach {}",
                    table.ird.len(),
                    c.ccti_limit
                ),
            ));
        }
        let keys = if sl_level { n_hca * vls } else { 0 };
        Ok(CaCc {
            sl_level,
            restart,
            phase_seed,
            increase: c.ccti_increase,
            limit: c.ccti_limit,
            min: c.ccti_min,
            timer: c.ccti_timer.0,
            vls,
            table,
            cnp_bytes: c.cnp_bytes.0 as u32,
            cnp_vl: c.cnp_vl.map(|v| v as u8),
            base: vec![c.ccti_min; keys],
            base_t: vec![0; keys],
            phase: if phase_seed.is_some() {
                vec![0; keys]
            } else {
                Vec::new()
            },
            next_allowed: vec![0; keys],
            peak: vec![c.ccti_min; keys],
            active: Vec::new(),
            in_active: vec![false; keys],
            cnps_sent: vec![0; n_hca],
            cnps_received: vec![0; n_hca],
            throttled: Vec::new(),
            series: Vec::new(),
            max_ccti: c.ccti_min,
        })
    }

    /// The reaction key of a flow: the flow itself (QP) or its source HCA and SL.
    #[inline]
    pub fn key(&self, flow: u32, src: u32, vl: u8) -> usize {
        if self.sl_level {
            src as usize * self.vls + vl as usize
        } else {
            flow as usize
        }
    }

    /// The phase of the free-running timer of source `src`'s SL `vl` (0 unless
    /// `free_running_phased`): uniform in `[0, timer)`, from a stream of its own per source SL.
    fn phase_of(&self, src: u32, vl: u8) -> Ps {
        match self.phase_seed {
            None => 0,
            Some(seed) => stream(
                seed,
                ((src as u64) << 8) | vl as u64,
                purpose::CCTI_TIMER_PHASE,
            )
            .random_range(0..self.timer),
        }
    }

    fn grow(&mut self, key: usize) {
        if key >= self.base.len() {
            let n = key + 1;
            self.base.resize(n, self.min);
            self.base_t.resize(n, 0);
            if self.phase_seed.is_some() {
                self.phase.resize(n, 0);
            }
            self.next_allowed.resize(n, 0);
            self.peak.resize(n, self.min);
            self.in_active.resize(n, false);
        }
    }

    /// CCTI of `key` at time `t`.
    pub fn ccti_at(&self, key: usize, t: Ps) -> u32 {
        let Some(&b) = self.base.get(key) else {
            return self.min;
        };
        if b <= self.min {
            return self.min; // at the floor already: no need to count timer ticks
        }
        let bt = self.base_t[key];
        let ticks = if self.restart {
            (t - bt) / self.timer
        } else {
            let ph = if self.phase_seed.is_some() {
                self.phase[key]
            } else {
                0
            };
            (t + ph) / self.timer - (bt + ph) / self.timer
        };
        (b as u64).saturating_sub(ticks).max(self.min as u64) as u32
    }

    /// A BECN for `key` (a flow of source `src` on SL `vl`) arrived at `now`.
    pub fn becn(&mut self, key: usize, src: u32, vl: u8, now: Ps) {
        // a key's phase is drawn at its first BECN (before it, its CCTI is at the floor and
        // the phase unused); a drawn phase of 0 is drawn again, to the same value
        self.grow(key);
        if self.phase_seed.is_some() && self.phase[key] == 0 {
            self.phase[key] = self.phase_of(src, vl);
        }
        let c = (self.ccti_at(key, now) + self.increase).min(self.limit);
        self.base[key] = c;
        self.base_t[key] = now;
        self.peak[key] = self.peak[key].max(c);
        self.max_ccti = self.max_ccti.max(c);
        if !self.in_active[key] && c > self.min {
            self.in_active[key] = true;
            self.active.push(key as u32);
        }
    }

    /// Earliest time `key` may start a packet.
    #[inline]
    pub fn ready_at(&self, key: usize) -> Ps {
        self.next_allowed.get(key).copied().unwrap_or(0)
    }

    /// `key` (flow `flow`) starts a packet of serialisation time `ser` at `now`.
    pub fn sent(&mut self, key: usize, flow: u32, ser: Ps, now: Ps) {
        let c = self.ccti_at(key, now);
        if c == 0 && self.table.ird[0] == 0.0 && key >= self.base.len() {
            return; // never throttled: nothing to record
        }
        self.grow(key);
        let ird = self.table.ird[c as usize];
        let extra = if ird == 0.0 {
            0
        } else {
            (ird * ser as f64).round() as Ps
        };
        self.next_allowed[key] = now + ser + extra;
        if extra > 0 {
            if flow as usize >= self.throttled.len() {
                self.throttled.resize(flow as usize + 1, 0);
            }
            self.throttled[flow as usize] += extra;
        }
    }

    /// Records CCTI of every active key for interval `interval` ending at `t`.
    pub fn sample(&mut self, interval: u32, t: Ps) {
        let mut i = 0;
        while i < self.active.len() {
            let key = self.active[i] as usize;
            let c = self.ccti_at(key, t);
            self.series.push((interval, key as u32, c, self.peak[key]));
            self.peak[key] = c;
            if c <= self.min {
                self.in_active[key] = false;
                self.active.swap_remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// True for SL-level reaction (keys are source HCA × VL).
    pub fn sl_level(&self) -> bool {
        self.sl_level
    }

    /// Number of VLs (to decode SL-level keys).
    pub fn vls(&self) -> usize {
        self.vls
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn ca(extra: &str) -> CaCc {
        let c: IbCcKeys = toml::from_str(extra).unwrap();
        let t = CongestionControlTable::from_config(
            &c.cct,
            c.ccti_limit as usize + 1,
            Path::new("."),
            &|_| false,
        )
        .unwrap();
        CaCc::new(&c, 1, 4, t, 7).unwrap()
    }
    const US: Ps = 1_000_000;

    #[test]
    fn becn_raises_up_to_the_limit() {
        let mut a = ca("ccti_increase = 3\nccti_limit = 7\nccti_timer = \"1000us\"");
        for i in 0..5 {
            a.becn(0, 0, 0, i);
        }
        assert_eq!(a.ccti_at(0, 5), 7);
        assert_eq!(a.max_ccti, 7);
    }

    #[test]
    fn timer_lowers_by_one_per_period_not_below_min() {
        let mut a = ca("ccti_min = 2\nccti_increase = 5\nccti_timer = \"20us\"");
        assert_eq!(a.ccti_at(0, 0), 2);
        a.becn(0, 0, 0, 100 * US); // 2 + 5 = 7
        assert_eq!(a.ccti_at(0, 100 * US + 19 * US), 7);
        assert_eq!(a.ccti_at(0, 100 * US + 20 * US), 6);
        assert_eq!(a.ccti_at(0, 100 * US + 60 * US), 4);
        assert_eq!(a.ccti_at(0, 10_000 * US), 2);
    }

    #[test]
    fn restart_versus_free_running_timer() {
        // restart: the BECN at 35 us restarts the period, next decrement at 55 us
        let mut a = ca("ccti_increase = 2\nccti_timer = \"20us\"");
        a.becn(0, 0, 0, 35 * US);
        assert_eq!(a.ccti_at(0, 54 * US), 2);
        assert_eq!(a.ccti_at(0, 55 * US), 1);
        // free running: ticks at 40, 60 us whatever the BECN time
        let mut a = ca("ccti_increase = 2\nccti_timer = \"20us\"\ntimer_mode = \"free_running\"");
        a.becn(0, 0, 0, 35 * US);
        assert_eq!(a.ccti_at(0, 39 * US), 2);
        assert_eq!(a.ccti_at(0, 40 * US), 1);
        assert_eq!(a.ccti_at(0, 60 * US), 0);
    }

    #[test]
    fn phased_free_running_timers_tick_at_their_own_instants() {
        let phased =
            "ccti_increase = 2\nccti_timer = \"20us\"\ntimer_mode = \"free_running_phased\"";
        let mut a = ca(phased);
        for src in 0..4 {
            a.becn(src as usize, src, 0, 35 * US);
        }
        // each source's timer ticks at k·20 µs − its phase, phase in [0, 20 µs), drawn per source SL
        let first_tick = |a: &CaCc, key: usize| {
            (35 * US..=55 * US)
                .find(|&t| a.ccti_at(key, t) == 1)
                .unwrap()
        };
        let ticks: Vec<Ps> = (0..4).map(|k| first_tick(&a, k)).collect();
        for (k, &t) in ticks.iter().enumerate() {
            assert!(t > 35 * US && t <= 55 * US, "{ticks:?}");
            assert_eq!(a.ccti_at(k, t + 20 * US - 1), 1, "one tick per period");
            assert_eq!(a.ccti_at(k, t + 20 * US), 0, "{ticks:?}");
        }
        assert!(
            ticks.windows(2).any(|w| w[0] != w[1]),
            "phases differ: {ticks:?}"
        );
        // the same seed gives the same phases; the aligned free-running timer ticks at 40 µs
        let mut b = ca(phased);
        for src in 0..4 {
            b.becn(src as usize, src, 0, 35 * US);
        }
        assert_eq!(ticks, (0..4).map(|k| first_tick(&b, k)).collect::<Vec<_>>());
        let mut c = ca("ccti_increase = 2\nccti_timer = \"20us\"\ntimer_mode = \"free_running\"");
        c.becn(2, 2, 0, 35 * US);
        assert_eq!(first_tick(&c, 2), 40 * US);
    }

    #[test]
    fn ird_spaces_packets_of_the_throttled_key_only() {
        let mut a = ca("ccti_timer = \"1000us\"\n[cct]\nalgorithm = \"linear\"\ndiv = 10.0");
        for _ in 0..10 {
            a.becn(3, 0, 0, 0); // CCTI 10: IRD 1, half rate
        }
        a.sent(3, 3, 2000, 5000);
        assert_eq!(a.ready_at(3), 5000 + 2000 + 2000);
        a.sent(1, 1, 2000, 5000); // an unthrottled flow: no spacing beyond its own packet
        assert_eq!(a.ready_at(1), 5000 + 2000);
        assert_eq!(a.throttled[3], 2000);
        assert_eq!(a.throttled.get(1).copied().unwrap_or(0), 0);
    }

    #[test]
    fn sl_level_shares_one_index_per_source_sl() {
        let a = ca("level = \"sl\"");
        assert_eq!(a.key(17, 2, 0), a.key(99, 2, 0));
        assert_ne!(a.key(17, 2, 0), a.key(17, 3, 0));
        let q = ca("level = \"qp\"");
        assert_ne!(q.key(17, 2, 0), q.key(99, 2, 0));
    }

    #[test]
    fn samples_follow_the_decay() {
        let mut a = ca("ccti_increase = 2\nccti_timer = \"10us\"");
        a.becn(5, 0, 0, 0);
        a.sample(0, 10 * US);
        a.sample(1, 20 * US);
        assert_eq!(a.series, vec![(0, 5, 1, 2), (1, 5, 0, 1)]);
        assert!(a.active.is_empty());
    }
}
