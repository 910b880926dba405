//! The group-counter observer (`stats.group_counters`; Dragonfly spec §3.10.1, §3.10.3,
//! §6.4 L6–L7, Fig 6-8): LIAN's per-router counters kept under any routing, in an instance of
//! their own that no routing decision reads, and their trace.
//!
//! - **Counters**: [`GroupCounters`] with LIAN's parameters
//!   ([`crate::cycle::routing::lian::counter_params`]: `routing.lian.window_cycles`, `counters`, `w`),
//!   fed by the same two events as the routing's own (the mechanism hooks of `mechanism.rs`): a packet's head
//!   reaching a router's terminal input (stored) and its grant out of it (injected). Values are
//!   in **packets per window summed over the router's injection ports** (spec §3.10.1 units
//!   note, A6): the thesis's "phits/interval".
//! - **Samples**: at the end of every cycle `t` with `(t + 1) mod HW = 0`, every router's
//!   window is expired to `t` and read: IL_{−k} and IL_{+k} for k = 1 … h (Eq. 6-2, the
//!   function LIAN decides with, [`crate::cycle::routing::lian::il`]) and the mean and largest
//!   counter over the 2h² remote groups (Eq. 6-1). The injected part of consecutive samples
//!   covers consecutive windows, so a mean over samples is the mean injection per window.
//! - **Trace** (`group_counters.csv`): per `stats.bin_cycles` bin (at least one window wide)
//!   and router, the mean of the bin's samples; written as the run goes (a bin's rows when its
//!   last sample is taken), so the state is one bin's sums.
//! - **Summary** (`summary.json` `group_counters`): the samples whose window lies in the
//!   measurement window: per k the mean over routers and samples and the largest router mean.
//!

use crate::cycle::routing::group_counters::{CounterParams, GroupCounters};
use crate::cycle::routing::lian::il;
use crate::topology::dragonfly::DragonflyShape;
use serde_json::{json, Value};
use std::fmt::Write as _;

/// The observer's state (Dragonfly spec §3.10, Fig 6-8).
#[derive(Debug, Clone)]
pub(crate) struct CounterTrace {
    /// The observed counters (fed by the model at the routers' injection inputs).
    pub counters: GroupCounters,
    shape: DragonflyShape,
    warmup: u64,
    bin_cycles: u64,
    /// Cycle of the next sample (the last cycle of a window).
    pub next: u64,
    /// Bin of the sums in `bin_sum` and its samples.
    bin: u64,
    bin_samples: u32,
    /// Per router, [`CounterTrace::cols`] sums: IL_{−1} … IL_{−h}, IL_{+1} … IL_{+h}, the
    /// mean and the largest remote-group counter; over the bin's samples ...
    bin_sum: Vec<f64>,
    /// ... and over the measurement window's.
    win_sum: Vec<f64>,
    win_samples: u32,
    /// The rows written so far.
    csv: String,
}

impl CounterTrace {
    /// An observer of the routers of `shape` with counter parameters `p` (a window holds at
    /// most `max_in_window` injections of a router, as for [`GroupCounters::new`]); bins of
    /// `bin_cycles` (≥ the window, which the parameters check) from cycle 0.
    pub fn new(
        shape: DragonflyShape,
        p: CounterParams,
        max_in_window: u32,
        warmup: u64,
        bin_cycles: u64,
    ) -> Self {
        let routers = shape.routers();
        let cols = Self::cols_of(&shape);
        let mut csv = String::from("start_cycle,end_cycle,router,name,samples");
        for k in 1..=shape.h {
            let _ = write!(csv, ",il_m{k}");
        }
        csv.push_str(",g_mean,g_max\n");
        CounterTrace {
            counters: GroupCounters::new(routers, shape.a, shape.groups, max_in_window, p),
            shape,
            warmup,
            bin_cycles,
            next: p.window.max(1) - 1,
            bin: 0,
            bin_samples: 0,
            bin_sum: vec![0.0; routers as usize * cols],
            win_sum: vec![0.0; routers as usize * cols],
            win_samples: 0,
            csv,
        }
    }

    /// The observer's counter parameters: LIAN's (`routing.lian.window_cycles`, `counters`,
    /// `w`), with their defaults.
    pub fn params(cfg: &crate::config::RoutingConfig) -> crate::error::Result<CounterParams> {
        crate::cycle::routing::lian::counter_params(cfg)
    }

    fn cols_of(s: &DragonflyShape) -> usize {
        2 * s.h as usize + 2
    }

    /// The values of one sample of router `r` at cycle `now` into `out` ([`CounterTrace::cols`]
    /// of them; its window expired to `now`).
    fn read(&mut self, r: u32, now: u64, out: &mut [f64]) {
        let s = &self.shape;
        let h = s.h as usize;
        self.counters.expire(r, now);
        let c = &self.counters;
        for k in 1..=s.h {
            out[k as usize - 1] = il(s, c, r, k, false);
            out[h + k as usize - 1] = il(s, c, r, k, true);
        }
        let (mut sum, mut max) = (0.0, 0.0f64);
        for o in 1..s.groups {
            let v = c.value(r, o);
            sum += v;
            max = max.max(v);
        }
        out[2 * h] = sum / (s.groups - 1).max(1) as f64;
        out[2 * h + 1] = max;
    }

    /// Samples every router at the end of cycle `now` (= [`CounterTrace::next`]); the rows of
    /// a finished bin go to the trace first.
    pub fn sample(&mut self, now: u64, names: &[String]) {
        let bin = now / self.bin_cycles;
        if bin != self.bin {
            self.flush(names, (self.bin + 1) * self.bin_cycles);
            self.bin = bin;
        }
        let cols = Self::cols_of(&self.shape);
        let window = self.counters.params().window;
        let measured = now + 1 >= self.warmup + window;
        let mut v = vec![0.0; cols];
        for r in 0..self.shape.routers() {
            self.read(r, now, &mut v);
            let i = r as usize * cols;
            for (a, x) in self.bin_sum[i..i + cols].iter_mut().zip(&v) {
                *a += x;
            }
            if measured {
                for (a, x) in self.win_sum[i..i + cols].iter_mut().zip(&v) {
                    *a += x;
                }
            }
        }
        self.bin_samples += 1;
        self.win_samples += measured as u32;
        self.next = now + window;
    }

    /// Appends to `out` the rows of the current bin, ending at `end`.
    fn rows(&self, out: &mut String, names: &[String], end: u64) {
        if self.bin_samples == 0 {
            return;
        }
        let (cols, h) = (Self::cols_of(&self.shape), self.shape.h as usize);
        let n = self.bin_samples as f64;
        let t0 = self.bin * self.bin_cycles;
        for (r, (v, name)) in self.bin_sum.chunks_exact(cols).zip(names).enumerate() {
            let _ = write!(out, "{t0},{end},{r},{name},{}", self.bin_samples);
            for &x in v[..h].iter().chain(&v[2 * h..]) {
                let _ = write!(out, ",{}", r6(x / n));
            }
            out.push('\n');
        }
    }

    /// Writes the rows of the current bin (ending at `end`) and clears its sums.
    fn flush(&mut self, names: &[String], end: u64) {
        let mut out = std::mem::take(&mut self.csv);
        self.rows(&mut out, names, end);
        self.csv = out;
        self.bin_sum.iter_mut().for_each(|x| *x = 0.0);
        self.bin_samples = 0;
    }

    /// The trace file's text for a run that stopped at `stop` (its last bin ends there).
    pub fn text(&self, names: &[String], stop: u64) -> String {
        let mut out = self.csv.clone();
        self.rows(
            &mut out,
            names,
            ((self.bin + 1) * self.bin_cycles).min(stop),
        );
        out
    }

    /// `summary.json` `group_counters`: the parameters and the measurement window's means.
    pub fn summary(&self) -> Value {
        let (cols, h) = (Self::cols_of(&self.shape), self.shape.h as usize);
        let routers = self.shape.routers() as usize;
        let n = self.win_samples.max(1) as f64;
        // per router, its mean over the window's samples
        let mean = |r: usize, j: usize| self.win_sum[r * cols + j] / n;
        let over_routers =
            |j: usize| (0..routers).map(|r| mean(r, j)).sum::<f64>() / routers as f64;
        let max_router = |j: usize| (0..routers).map(|r| mean(r, j)).fold(0.0f64, f64::max);
        let p = self.counters.params();
        json!({
            "window_cycles": p.window,
            "counters": p.mode.name(),
            "w": p.w,
            "units": "packets per window of window_cycles cycles, summed over the router's injection ports",
            "samples": self.win_samples,
            "il_mean": (0..h).map(|k| r6(over_routers(k))).collect::<Vec<_>>(),
            "il_max": (0..h).map(|k| r6(max_router(k))).collect::<Vec<_>>(),
            "il_plus_mean": (0..h).map(|k| r6(over_routers(h + k))).collect::<Vec<_>>(),
            "g_mean": r6(over_routers(2 * h)),
            "g_max": r6(max_router(2 * h + 1)),
        })
    }
}

fn r6(x: f64) -> f64 {
    if x.is_finite() {
        (x * 1e6).round() / 1e6
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RoutingConfig;
    use crate::cycle::routing::algorithm::CycleAlgorithm;
    use crate::cycle::routing::lian::{counter_params, Lian};
    use crate::topology::dragonfly::Arrangement;

    fn h3() -> DragonflyShape {
        DragonflyShape::new(3, 6, 3, Arrangement::Palmtree).unwrap()
    }

    fn names(s: &DragonflyShape) -> Vec<String> {
        (0..s.routers()).map(|r| format!("R{r}")).collect()
    }

    /// The same scripted arrivals and injections fed to the observer and to the counters LIAN
    /// decides with give the same counters, IL values and l1/l2 decisions (spec §3.10.1–
    /// §3.10.3); the observer's parameters are LIAN's (`routing.lian.*`).
    #[test]
    fn the_observer_counts_what_lian_reads() {
        let s = h3();
        let mut cfg = RoutingConfig::default();
        cfg.lian.w = 0.25;
        cfg.lian.window_cycles = 100;
        let lian = Lian::new(&cfg, 10).unwrap();
        let p = counter_params(&cfg).unwrap();
        assert_eq!(p, lian.counters);
        let mut theirs = GroupCounters::new(s.routers(), s.a, s.groups, 64, lian.counters);
        let mut t = CounterTrace::new(s, p, 64, 0, 1000);
        // routers 0 and 7 (groups 0 and 1): packets to offsets +1 … +9 and −1, some still
        // stored, injections spread over 150 cycles (the first ones leave the window)
        let mut events = Vec::new();
        for (i, o) in [1u32, 1, 2, 3, 3, 3, 5, 6, 8, 9, 18, 1, 4]
            .iter()
            .enumerate()
        {
            for r in [0u32, 7] {
                let dst = ((s.group(r) + o) % s.groups) * s.a + (i as u32 % s.a);
                events.push((r, dst, 12 * i as u64, i % 4 != 3));
            }
        }
        for &(r, dst, now, leaves) in &events {
            theirs.stored(r, dst);
            t.counters.stored(r, dst);
            if leaves {
                theirs.injected(r, dst, now);
                t.counters.injected(r, dst, now);
            }
        }
        let now = 160;
        let mut v = vec![0.0; CounterTrace::cols_of(&s)];
        for r in 0..s.routers() {
            theirs.expire(r, now);
            t.read(r, now, &mut v);
            for o in 0..s.groups {
                assert_eq!(t.counters.inj(r, o), theirs.inj(r, o), "{r} {o}");
                assert_eq!(t.counters.stor(r, o), theirs.stor(r, o), "{r} {o}");
                assert_eq!(t.counters.value(r, o), theirs.value(r, o));
                if o > 0 {
                    assert_eq!(
                        lian.rules.use_l2(&s, &t.counters, r, o),
                        lian.rules.use_l2(&s, &theirs, r, o)
                    );
                }
            }
            assert_eq!(
                lian.rules.use_l1(&s, &t.counters, r),
                lian.rules.use_l1(&s, &theirs, r)
            );
            for k in 1..=s.h {
                assert_eq!(v[k as usize - 1], il(&s, &theirs, r, k, false));
                assert_eq!(v[(s.h + k) as usize - 1], il(&s, &theirs, r, k, true));
            }
        }
        assert!(
            (0..s.groups).map(|o| t.counters.inj(0, o)).sum::<u32>() > 0,
            "something in the window"
        );
        assert!(il(&s, &theirs, 0, 1, false) > 0.0);
    }

    /// Samples at the end of each window, bins of their means, the window's means (spec
    /// §3.10.3 Eq. 6-2: ADV+h alone gives IL_{−1} = G_{+h}).
    #[test]
    fn samples_bins_and_window_means() {
        let s = h3();
        let p = CounterParams {
            window: 100,
            mode: crate::config::LianCounters::Injected,
            w: 0.0,
        };
        // warm-up 200 cycles, bins of 300
        let mut t = CounterTrace::new(s, p, 64, 200, 300);
        let n = names(&s);
        assert_eq!(t.next, 99);
        // router 4 injects 6 packets to offset +3 (= h) every window of [0, 600), 3 after
        let dst = 3 * s.a;
        for w in 0..9u64 {
            let per = if w < 6 { 6 } else { 3 };
            for i in 0..per {
                t.counters.stored(4, dst);
                t.counters.injected(4, dst, 100 * w + 10 * i);
            }
            let at = t.next;
            assert_eq!(at, 100 * w + 99);
            t.sample(at, &n);
        }
        let csv = t.text(&n, 850);
        let rows: Vec<&str> = csv.lines().collect();
        assert_eq!(
            rows[0],
            "start_cycle,end_cycle,router,name,samples,il_m1,il_m2,il_m3,g_mean,g_max"
        );
        assert_eq!(rows.len(), 1 + 3 * s.routers() as usize);
        // router 4 in each bin: IL_{−1} = G_{+3}, the other IL 0; g_mean = G / 2h²
        let row = |bin: usize| rows[1 + bin * s.routers() as usize + 4];
        assert_eq!(row(0), "0,300,4,R4,3,6,0,0,0.333333,6");
        assert_eq!(row(1), "300,600,4,R4,3,6,0,0,0.333333,6");
        assert_eq!(row(2), "600,850,4,R4,3,3,0,0,0.166667,3");
        assert!(rows[1].starts_with("0,300,0,R0,3,0,0,0,0,0"));
        // the window: the samples of windows in [200, 850): 4 × 6 and 3 × 3
        let v = t.summary();
        assert_eq!(v["samples"], 7);
        let want = (4.0 * 6.0 + 3.0 * 3.0) / 7.0;
        let il_max = v["il_max"][0].as_f64().unwrap();
        assert!((il_max - want).abs() < 1e-6, "{v}");
        let il_mean = v["il_mean"][0].as_f64().unwrap();
        assert!((il_mean - want / s.routers() as f64).abs() < 1e-6, "{v}");
        assert_eq!(v["il_mean"][1], 0.0);
        assert_eq!(v["il_plus_mean"][0], 0.0);
        assert_eq!(v["counters"], "injected");
    }
}
