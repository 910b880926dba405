//! IB CC, switch side (spec §2.2): a congestion state per output port and VL, decided from
//! the fill of the virtual output queues that feed the output (summed or per queue) against
//! `Threshold`, with optional `Reset_Threshold` hysteresis; a port VL is a *root* when it has
//! credits to send (or `Victim_Mask` is set), otherwise a *victim* that does not enter the
//! congestion state. While congested, packets leaving the output get FECN set every
//! `Marking_Rate + 1`-th eligible packet (or at random gaps with that mean).
//!
//! Fills are kept exactly in units of 2⁻²⁰ of a buffer. The state is re-evaluated on every
//! fill change of a feeding queue and on every credit change of the output, always after the
//! switch has arbitrated, so a port that waits for credits sees itself as a victim.

use super::CongestionControl;
use crate::config::{CcConfig, Ps, VictimMask};
use crate::engine::rng::{purpose, stream};
use crate::error::{Error, Result};
use crate::sim::Net;
use crate::topology::LinkClass;
use crate::traffic::packet::{CNP, FECN};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// One buffer in fill units.
pub const FULL: u64 = 1 << 20;

/// How VoQ fills are compared with the threshold (spec §2.2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThresholdMode {
    /// M1: any single VoQ's fill ratio.
    PerVoq,
    /// M2: the sum of the fill ratios ([Z]).
    Sum,
    /// M3: the sum against the threshold divided by the number of contributing inputs.
    SumDivided,
}

/// Switch-side state.
#[derive(Debug, Clone)]
pub struct SwitchCc {
    mode: ThresholdMode,
    hysteresis: bool,
    root_need: u32,
    random: bool,
    rng: ChaCha8Rng,
    /// Per gport: threshold level (fill units); u64::MAX = never congested (Threshold 0).
    enter: Vec<u64>,
    /// Per gport: level below which a congested port VL leaves the state.
    leave: Vec<u64>,
    /// Per gport: Victim_Mask.
    victim: Vec<bool>,
    /// Per gport: Marking_Rate.
    marking_rate: Vec<u32>,
    /// Per gport: Packet_Size (credits).
    packet_size: Vec<u32>,
    /// Per gport × VL: Σ fill ratios of the feeding VoQs (fill units).
    sum: Vec<u64>,
    /// Per gport × VL: feeding VoQs that hold something.
    contrib: Vec<u32>,
    /// Per gport × VL: in the congestion state.
    pub congested: Vec<bool>,
    counter: Vec<u32>,
    /// Per gport × VL: when the current congestion period began.
    since: Vec<Ps>,
    /// Per gport × VL: total time in the congestion state.
    pub congested_time: Vec<Ps>,
    /// Per gport × VL: packets whose FECN bit this port set.
    pub marks: Vec<u64>,
}

/// Fill level of threshold weight `w` (1–15) under `mapping`.
fn level(w: u32, mapping: &str) -> u64 {
    match mapping {
        "fifteenths" => ((16 - w as u64) * FULL / 15).min(FULL),
        _ => (16 - w as u64) * FULL / 16,
    }
}

impl SwitchCc {
    /// Switch-side state for every switch output (`is_switch`, `class` per gport).
    pub fn new(
        c: &CcConfig,
        vls: usize,
        pkt_credits: u32,
        is_switch: &[bool],
        class: &[LinkClass],
        seed: u64,
    ) -> Result<Self> {
        let mode = match c.threshold_mode.as_str() {
            "per_voq" => ThresholdMode::PerVoq,
            "sum" => ThresholdMode::Sum,
            "sum_divided" => ThresholdMode::SumDivided,
            o => {
                return Err(Error::input(
                    "cc.threshold_mode",
                    format!("unknown \"{o}\"; allowed: \"per_voq\", \"sum\", \"sum_divided\""),
                ))
            }
        };
        if !matches!(c.threshold_mapping.as_str(), "sixteenths" | "fifteenths") {
            return Err(Error::input(
                "cc.threshold_mapping",
                format!(
                    "unknown \"{}\"; allowed: \"sixteenths\", \"fifteenths\"",
                    c.threshold_mapping
                ),
            ));
        }
        let root_need = match c.root_credits.as_str() {
            "packet" => pkt_credits,
            "one" => 1,
            o => {
                return Err(Error::input(
                    "cc.root_credits",
                    format!("unknown \"{o}\"; allowed: \"packet\", \"one\""),
                ))
            }
        };
        let random = match c.marking.as_str() {
            "deterministic" => false,
            "random" => true,
            o => {
                return Err(Error::input(
                    "cc.marking",
                    format!("unknown \"{o}\"; allowed: \"deterministic\", \"random\""),
                ))
            }
        };
        let global_victim = |cls: LinkClass| -> Result<bool> {
            match &c.victim_mask {
                VictimMask::All(b) => Ok(*b),
                VictimMask::Named(n) if n == "host_ports" => Ok(cls == LinkClass::Host),
                VictimMask::Named(n) => Err(Error::input(
                    "cc.victim_mask",
                    format!("unknown \"{n}\"; allowed: true, false, \"host_ports\""),
                )),
            }
        };
        let check_w = |key: &str, w: u32| -> Result<u32> {
            if w > 15 {
                Err(Error::input(key, format!("{w} outside 0–15")))
            } else {
                Ok(w)
            }
        };
        check_w("cc.threshold", c.threshold)?;
        let hysteresis = c.reset_threshold != 0;
        if hysteresis {
            check_w("cc.reset_threshold", c.reset_threshold)?;
        }
        let np = is_switch.len();
        let mut s = SwitchCc {
            mode,
            hysteresis,
            root_need,
            random,
            rng: stream(seed, u64::MAX - 1, purpose::MARKING),
            enter: vec![u64::MAX; np],
            leave: vec![u64::MAX; np],
            victim: vec![false; np],
            marking_rate: vec![0; np],
            packet_size: vec![0; np],
            sum: vec![0; np * vls],
            contrib: vec![0; np * vls],
            congested: vec![false; np * vls],
            counter: vec![0; np * vls],
            since: vec![0; np * vls],
            congested_time: vec![0; np * vls],
            marks: vec![0; np * vls],
        };
        for g in 0..np {
            if !is_switch[g] {
                continue;
            }
            let (o, cls_key) = match class[g] {
                LinkClass::Host => (&c.host_ports, "cc.host_ports"),
                LinkClass::Fabric => (&c.fabric_ports, "cc.fabric_ports"),
            };
            let w = match o.threshold {
                Some(w) => check_w(&format!("{cls_key}.threshold"), w)?,
                None => c.threshold,
            };
            if w != 0 {
                s.enter[g] = level(w, &c.threshold_mapping);
                s.leave[g] = s.enter[g];
                if hysteresis {
                    if c.reset_threshold <= w {
                        return Err(Error::input(
                            "cc.reset_threshold",
                            format!("{} must be higher than the threshold {w} (a lower fill level), or 0 for no hysteresis", c.reset_threshold),
                        ));
                    }
                    s.leave[g] = level(c.reset_threshold, &c.threshold_mapping);
                }
            }
            s.victim[g] = match o.victim_mask {
                Some(b) => b,
                None => global_victim(class[g])?,
            };
            s.marking_rate[g] = o.marking_rate.unwrap_or(c.marking_rate);
            s.packet_size[g] = o.packet_size.unwrap_or(c.packet_size);
        }
        for g in 0..np {
            for v in 0..vls {
                let k = g * vls + v;
                s.counter[k] = s.first_gap(g);
            }
        }
        Ok(s)
    }

    /// Unmarked eligible packets before the first/next mark.
    fn first_gap(&mut self, g: usize) -> u32 {
        let mr = self.marking_rate[g];
        if !self.random || mr == 0 {
            return mr;
        }
        // geometric number of failures with mean mr: p = 1 / (mr + 1)
        let p = 1.0 / (mr as f64 + 1.0);
        let u: f64 = self.rng.random::<f64>();
        ((1.0 - u).ln() / (1.0 - p).ln())
            .floor()
            .min(u32::MAX as f64) as u32
    }

    /// Applies a new measure to port VL `k` of gport `g`; `has_credits` tells whether it could
    /// send (a root), else it is a victim unless Victim_Mask is set.
    fn decide(&mut self, g: usize, k: usize, measure: u64, has_credits: bool, now: Ps) {
        let root = has_credits || self.victim[g];
        let was = self.congested[k];
        let now_congested = if self.enter[g] == u64::MAX {
            false
        } else if measure >= self.enter[g] && root {
            true
        } else {
            was && self.hysteresis && measure >= self.leave[g]
        };
        if now_congested != was {
            if now_congested {
                self.since[k] = now;
            } else {
                self.congested_time[k] += now - self.since[k];
            }
            self.congested[k] = now_congested;
        }
    }

    /// An eligible packet leaves congested port VL `k` of gport `g`: is it the one to mark?
    /// Deterministic: `Marking_Rate` unmarked packets between two marked ones (MR = 1 marks
    /// every second packet, MR = 0 every packet); random: geometric gaps with that mean.
    pub fn take_mark(&mut self, g: usize, k: usize) -> bool {
        if self.counter[k] == 0 {
            self.counter[k] = self.first_gap(g);
            true
        } else {
            self.counter[k] -= 1;
            false
        }
    }

    /// Closes the congestion periods at the end of the run.
    pub fn finish(&mut self, end: Ps) {
        for k in 0..self.congested.len() {
            if self.congested[k] {
                self.congested_time[k] += end - self.since[k];
                self.since[k] = end;
            }
        }
    }
}

impl Net {
    /// The fill of the queue of input `in_g` towards local output `out` on `vl` went from
    /// `old` to `new` credits.
    pub(crate) fn cc_fill_changed(
        &mut self,
        in_g: u32,
        out: u16,
        vl: u8,
        old: u32,
        new: u32,
        now: Ps,
    ) {
        let CongestionControl::Ib(ib) = &mut self.cc else {
            return;
        };
        let vls = self.vls;
        let sw = self.node_of[in_g as usize] as usize;
        let og = self.port_base[sw] as usize + out as usize;
        let k = og * vls + vl as usize;
        let cap = self.in_cap[in_g as usize * vls + vl as usize] as u64;
        let s = &mut ib.sw;
        s.sum[k] = s.sum[k] + new as u64 * FULL / cap - old as u64 * FULL / cap;
        if old == 0 && new > 0 {
            s.contrib[k] += 1;
        } else if old > 0 && new == 0 {
            s.contrib[k] -= 1;
        }
        self.cc_evaluate(og as u32, vl, now);
    }

    /// Re-evaluates the congestion state of switch output `og`, VL `vl`.
    pub(crate) fn cc_evaluate(&mut self, og: u32, vl: u8, now: Ps) {
        let CongestionControl::Ib(ib) = &mut self.cc else {
            return;
        };
        let vls = self.vls;
        let g = og as usize;
        let k = g * vls + vl as usize;
        let s = &mut ib.sw;
        let measure = match s.mode {
            ThresholdMode::Sum => s.sum[k],
            // Σ ≥ thr / n  ⇔  Σ · n ≥ thr (spec §2.2.3, literal reading of M3)
            ThresholdMode::SumDivided => s.sum[k] * s.contrib[k] as u64,
            ThresholdMode::PerVoq => {
                let sw = self.node_of[g] as usize;
                let base = self.port_base[sw] as usize;
                let out = g - base;
                (base..base + self.fabric.nodes[sw].ports.len())
                    .map(|i| {
                        let f =
                            self.fill[self.fill_base[i] as usize + out * vls + vl as usize] as u64;
                        f * FULL / self.in_cap[i * vls + vl as usize] as u64
                    })
                    .max()
                    .unwrap_or(0)
            }
        };
        let has_credits = self.credits[k] >= s.root_need;
        s.decide(g, k, measure, has_credits, now);
    }

    /// Switch output `og` is sending packet `pid` on `vl`: FECN marking (spec §2.2.5).
    pub(crate) fn cc_mark(&mut self, og: u32, vl: u8, pid: u32) {
        let CongestionControl::Ib(ib) = &mut self.cc else {
            return;
        };
        let s = &mut ib.sw;
        let g = og as usize;
        let k = g * self.vls + vl as usize;
        if !s.congested[k] {
            return;
        }
        let p = &mut self.pkts[pid];
        // CNPs are never marked (nor ACKs or multicast, which this model does not send)
        if p.flags & CNP != 0 || p.credits < s.packet_size[g] {
            return;
        }
        // a packet already marked upstream keeps its one FECN (and will cause one CNP)
        if s.take_mark(g, k) && p.flags & FECN == 0 {
            p.flags |= FECN;
            s.marks[k] += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sw(extra: &str) -> SwitchCc {
        let c: CcConfig = toml::from_str(&format!("enabled = true\n{extra}")).unwrap();
        // gport 0: host-facing switch port, gport 1: fabric port, gport 2: an HCA
        SwitchCc::new(
            &c,
            1,
            34,
            &[true, true, false],
            &[LinkClass::Host, LinkClass::Fabric, LinkClass::Host],
            1,
        )
        .unwrap()
    }

    #[test]
    fn threshold_weights_map_to_fill_levels() {
        assert_eq!(level(2, "sixteenths"), FULL * 14 / 16); // 87.5 %
        assert_eq!(level(15, "sixteenths"), FULL / 16); // 6.25 %
        assert_eq!(level(1, "fifteenths"), FULL);
    }

    #[test]
    fn root_enters_victim_does_not_unless_masked() {
        let mut s = sw("reset_threshold = 0");
        s.decide(1, 1, FULL, true, 10); // fabric port with credits: root
        assert!(s.congested[1]);
        s.decide(1, 1, FULL, false, 20); // no credits: victim, leaves (no hysteresis)
        assert!(!s.congested[1]);
        assert_eq!(s.congested_time[1], 10);
        s.decide(0, 0, FULL, false, 30); // host port: Victim_Mask set by default
        assert!(s.congested[0]);
        s.decide(0, 0, FULL / 2, true, 40); // below the threshold
        assert!(!s.congested[0]);
    }

    #[test]
    fn hysteresis_keeps_the_state_until_the_reset_level() {
        let mut s = sw("threshold = 2\nreset_threshold = 3"); // enter 87.5 %, leave below 81.25 %
        s.decide(1, 1, FULL * 14 / 16, true, 0);
        assert!(s.congested[1]);
        s.decide(1, 1, FULL * 13 / 16, true, 1); // between the levels: stays
        assert!(s.congested[1]);
        s.decide(1, 1, FULL * 13 / 16 - 1, true, 2);
        assert!(!s.congested[1]);
    }

    #[test]
    fn marking_rate_counts_unmarked_packets_between_marks() {
        let mut s = sw("marking_rate = 1");
        let marks: Vec<bool> = (0..6).map(|_| s.take_mark(0, 0)).collect();
        assert_eq!(marks, [false, true, false, true, false, true]);
        let mut s = sw("marking_rate = 0");
        assert!((0..5).all(|_| s.take_mark(0, 0)));
        let mut s = sw("marking_rate = 10");
        assert_eq!((0..110).filter(|_| s.take_mark(0, 0)).count(), 10);
        // random gaps: mean Marking_Rate
        let mut s = sw("marking_rate = 10\nmarking = \"random\"");
        let n = (0..110_000).filter(|_| s.take_mark(0, 0)).count();
        assert!((9_000..11_000).contains(&n), "{n} marks in 110000 packets");
    }

    #[test]
    fn threshold_zero_never_congests() {
        let mut s = sw("threshold = 0");
        s.decide(0, 0, FULL * 4, true, 0);
        assert!(!s.congested[0]);
    }

    #[test]
    fn bad_values_are_named() {
        let c: CcConfig = toml::from_str("threshold = 4\nreset_threshold = 3").unwrap();
        let e = SwitchCc::new(&c, 1, 34, &[true], &[LinkClass::Host], 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("cc.reset_threshold"), "{e}");
        let c: CcConfig = toml::from_str("threshold = 16").unwrap();
        assert!(SwitchCc::new(&c, 1, 34, &[true], &[LinkClass::Host], 1)
            .unwrap_err()
            .to_string()
            .contains("cc.threshold"));
    }
}
