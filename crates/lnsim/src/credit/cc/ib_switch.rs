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

use super::SwitchView;
use crate::config::{IbCcKeys, Marking, Ps, RootCredits, VictimMask};
use crate::credit::packet::{Packet, CNP, FECN};
use crate::engine::rng::{purpose, stream};
use crate::error::{Error, Result};
use crate::topology::LinkClass;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// One buffer in fill units.
pub const FULL: u64 = 1 << 20;

/// How VoQ fills are compared with the threshold (spec §2.2.3): the scenario's
/// `cc.threshold_mode` (M1 `PerVoq`: any single VoQ's fill ratio; M2 `Sum`, \[Z\]'s: the sum of
/// the fill ratios; M3 `SumDivided`: the sum against the threshold divided by the number of
/// contributing inputs).
pub use crate::config::ThresholdMode;

/// CC parameters of one switch output (one cache line holds several).
#[derive(Debug, Clone, Copy)]
struct PortParams {
    /// Threshold level (fill units); u64::MAX = never congested (Threshold 0).
    enter: u64,
    /// Level below which a congested port VL leaves the state.
    leave: u64,
    /// Marking_Rate.
    marking_rate: u32,
    /// Packet_Size (credits).
    packet_size: u32,
    /// Victim_Mask.
    victim: bool,
    /// First gport of the port's switch (a local port number plus this is a gport).
    base: u32,
    /// Ports of the port's switch.
    ports: u16,
}

impl PortParams {
    /// An output that never enters the congestion state (an HCA's port, Threshold 0).
    const NEVER: PortParams = PortParams {
        enter: u64::MAX,
        leave: u64::MAX,
        marking_rate: 0,
        packet_size: 0,
        victim: false,
        base: 0,
        ports: 0,
    };

    /// The parameters of a switch output of link class `class`: the `[cc.host_ports]` or
    /// `[cc.fabric_ports]` values where given, else the global ones (`base` and `ports` are
    /// left to the caller).
    fn from_config(c: &IbCcKeys, class: LinkClass, hysteresis: bool) -> Result<Self> {
        let (o, cls_key) = match class {
            LinkClass::Host => (&c.host_ports, "cc.host_ports"),
            LinkClass::Fabric | LinkClass::Global => (&c.fabric_ports, "cc.fabric_ports"),
        };
        let mut p = PortParams::NEVER;
        let w = match o.threshold {
            Some(w) => check_weight(&format!("{cls_key}.threshold"), w)?,
            None => c.threshold,
        };
        if w != 0 {
            p.enter = level(w, c.threshold_mapping.name());
            p.leave = p.enter;
            if hysteresis {
                if c.reset_threshold <= w {
                    return Err(Error::input(
                        "cc.reset_threshold",
                        format!("{} must be higher than the threshold {w} (a lower fill level), or 0 for no hysteresis", c.reset_threshold),
                    ));
                }
                p.leave = level(c.reset_threshold, c.threshold_mapping.name());
            }
        }
        p.victim = match o.victim_mask {
            Some(b) => b,
            None => match c.victim_mask {
                VictimMask::All(b) => b,
                VictimMask::HostPorts => class == LinkClass::Host,
            },
        };
        p.marking_rate = o.marking_rate.unwrap_or(c.marking_rate);
        p.packet_size = o.packet_size.unwrap_or(c.packet_size);
        Ok(p)
    }
}

/// A threshold weight (0–15) of key `key`.
fn check_weight(key: &str, w: u32) -> Result<u32> {
    if w > 15 {
        Err(Error::input(key, format!("{w} outside 0–15")))
    } else {
        Ok(w)
    }
}

/// The string choices of `[cc]` on the switch side: threshold mode, Root credits (as a credit
/// count for a packet of `pkt_credits`), random marking; the threshold mapping is checked.
fn choices(c: &IbCcKeys, pkt_credits: u32) -> Result<(ThresholdMode, u32, bool)> {
    let mode = c.threshold_mode;
    let root_need = match c.root_credits {
        RootCredits::Packet => pkt_credits,
        RootCredits::One => 1,
    };
    let random = c.marking == Marking::Random;
    Ok((mode, root_need, random))
}

// the memory estimate counts it (`bytes_per_port`): half a cache line
const _: () = assert!(std::mem::size_of::<PortParams>() == 32);

/// The state of one port VL touched on every fill change, kept together in one array (one
/// cache line holds it, with the port parameters the state decision needs copied in).
#[derive(Debug, Clone, Copy, Default)]
struct VlState {
    /// Σ fill ratios of the feeding VoQs (fill units).
    sum: u64,
    /// The port's threshold level ([`PortParams::enter`]; u64::MAX = never congested).
    enter: u64,
    /// Level at or above which a congested port VL stays congested: [`PortParams::leave`] with
    /// hysteresis, u64::MAX (never) without.
    stay: u64,
    /// Feeding VoQs that hold something.
    contrib: u32,
    /// Unmarked eligible packets left before the next mark.
    counter: u32,
    /// In the congestion state.
    congested: bool,
    /// Victim_Mask ([`PortParams::victim`]).
    victim: bool,
}

/// Switch-side state.
#[derive(Debug, Clone)]
pub struct SwitchCc {
    vls: usize,
    mode: ThresholdMode,
    root_need: u32,
    random: bool,
    rng: ChaCha8Rng,
    /// Per gport: its parameters.
    port: Vec<PortParams>,
    /// Per gport × VL: fill sum, threshold, contributors, marking counter, congestion state.
    pv: Vec<VlState>,
    /// Per input gport × VL: `(c, s)` with `⌊x · FULL / capacity⌋ = ⌊x · c / 2^s⌋` exactly for
    /// every fill `x` up to the capacity (see [`Reciprocal`]); set by
    /// [`SwitchCc::set_capacities`].
    recip: Vec<Reciprocal>,
    /// Per gport × VL: when the current congestion period began.
    since: Vec<Ps>,
    /// Per gport × VL: total time in the congestion state.
    pub congested_time: Vec<Ps>,
    /// Per gport × VL: packets whose FECN bit this port set.
    pub marks: Vec<u64>,
}

/// Exact division of a fill by a buffer capacity, without a division: for `d` below `2^l` and
/// numerators `n` below `2^m`, `c = ⌈2^(m+l) / d⌉` gives `⌊n · c / 2^(m+l)⌋ = ⌊n / d⌋` (with
/// `c = (2^(m+l) + e) / d`, `0 ≤ e < d`: the error `n·e / (d·2^(m+l))` is below `1/d`).
/// Here `n = x · FULL` with `x ≤ d`, so `m = l + 20`, and `x · c` is taken instead of `n · c`
/// with the shift reduced by 20.
#[derive(Debug, Clone, Copy, Default)]
struct Reciprocal {
    c: u64,
    shift: u32,
}

impl Reciprocal {
    fn new(d: u32) -> Self {
        let d = d.max(1) as u128;
        let l = 128 - d.leading_zeros(); // d < 2^l
        let f = 2 * l + 20; // m + l with m = l + 20 (FULL = 2^20)
        let c = (1u128 << f).div_ceil(d); // < 2^(l + 21) ≤ 2^53
        Reciprocal {
            c: c as u64,
            shift: f - 20,
        }
    }

    /// `⌊x · FULL / d⌋` for `x ≤ d`.
    #[inline]
    fn units(self, x: u32) -> u64 {
        // `x · c < 2^(2l + 21)` fits in 64 bits while `shift = 2l ≤ 42` (capacities below 2^21)
        if self.shift <= 42 {
            (x as u64 * self.c) >> self.shift
        } else {
            ((x as u128 * self.c as u128) >> self.shift) as u64
        }
    }
}

/// Fill level of threshold weight `w` (1–15) under `mapping`.
fn level(w: u32, mapping: &str) -> u64 {
    match mapping {
        "fifteenths" => ((16 - w as u64) * FULL / 15).min(FULL),
        _ => (16 - w as u64) * FULL / 16,
    }
}

impl SwitchCc {
    /// Bytes of switch CC state per global port with `vls` VLs (for the memory estimate).
    pub fn bytes_per_port(vls: u64) -> u64 {
        use std::mem::size_of;
        size_of::<PortParams>() as u64
            + vls * (size_of::<VlState>() + size_of::<Reciprocal>() + 3 * size_of::<Ps>()) as u64
    }

    /// Switch-side state for every switch output (`is_switch`, `class` and `node_base`, the
    /// first gport of its node, per gport; ports of a node are consecutive gports).
    pub fn new(
        c: &IbCcKeys,
        vls: usize,
        pkt_credits: u32,
        is_switch: &[bool],
        class: &[LinkClass],
        node_base: &[u32],
        seed: u64,
    ) -> Result<Self> {
        let (mode, root_need, random) = choices(c, pkt_credits)?;
        check_weight("cc.threshold", c.threshold)?;
        let hysteresis = c.reset_threshold != 0;
        if hysteresis {
            check_weight("cc.reset_threshold", c.reset_threshold)?;
        }
        let np = is_switch.len();
        let mut s = SwitchCc {
            vls,
            mode,
            root_need,
            random,
            rng: stream(seed, u64::MAX - 1, purpose::MARKING),
            port: vec![PortParams::NEVER; np],
            pv: vec![VlState::default(); np * vls],
            recip: Vec::new(),
            since: vec![0; np * vls],
            congested_time: vec![0; np * vls],
            marks: vec![0; np * vls],
        };
        // the ports of a node: the run of gports with its first gport
        for node in node_base.chunk_by(|a, b| a == b) {
            let first = node[0] as usize;
            for p in &mut s.port[first..first + node.len()] {
                p.base = node[0];
                p.ports = node.len() as u16;
            }
        }
        for g in 0..np {
            if is_switch[g] {
                s.port[g] = PortParams {
                    base: s.port[g].base,
                    ports: s.port[g].ports,
                    ..PortParams::from_config(c, class[g], hysteresis)?
                };
            }
        }
        for g in 0..np {
            for v in 0..vls {
                let k = g * vls + v;
                s.pv[k].counter = s.first_gap(g);
                s.pv[k].enter = s.port[g].enter;
                s.pv[k].stay = if hysteresis && s.port[g].enter != u64::MAX {
                    s.port[g].leave
                } else {
                    u64::MAX
                };
                s.pv[k].victim = s.port[g].victim;
            }
        }
        Ok(s)
    }

    /// Records the capacity of every input buffer (`[gport * vls + vl]`, credits).
    pub fn set_capacities(&mut self, in_cap: &[u32]) {
        self.recip = in_cap.iter().map(|&d| Reciprocal::new(d)).collect();
    }

    /// Unmarked eligible packets before the first/next mark.
    fn first_gap(&mut self, g: usize) -> u32 {
        let mr = self.port[g].marking_rate;
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

    /// Applies a new measure to port VL `k`; `has_credits` tells whether it could send (a
    /// root), else it is a victim unless Victim_Mask is set. It enters the congestion state at
    /// the threshold level as a root and, once in it, stays there while at or above the reset
    /// level (hysteresis) — or as long as it is a root at the threshold level.
    #[inline]
    fn decide(&mut self, k: usize, measure: u64, has_credits: bool, now: Ps) {
        let st = &self.pv[k];
        // a measure never reaches u64::MAX (at most ports × FULL × ports), so `enter` or
        // `stay` at u64::MAX (Threshold 0, no hysteresis) never holds
        let now_congested = (measure >= st.enter && (has_credits || st.victim))
            || (st.congested && measure >= st.stay);
        if now_congested != st.congested {
            self.switch_state(k, now_congested, now);
        }
    }

    /// Port VL `k` enters (`on`) or leaves the congestion state at `now`.
    #[cold]
    fn switch_state(&mut self, k: usize, on: bool, now: Ps) {
        if on {
            self.since[k] = now;
        } else {
            self.congested_time[k] += now - self.since[k];
        }
        self.pv[k].congested = on;
    }

    /// True if port VL `k` is not congested and its summed measure (`Sum` and `SumDivided`
    /// modes) is below the threshold: then no credit or fill change that leaves it there can
    /// change its state, so [`SwitchCc::decide`] need not run.
    #[inline]
    fn quiet(&self, k: usize) -> bool {
        let st = &self.pv[k];
        match self.summed_measure(k) {
            Some(m) => !st.congested && m < st.enter,
            None => false,
        }
    }

    /// The measure of port VL `k` compared with the threshold in the `Sum` and `SumDivided`
    /// modes, None in `PerVoq` mode (it needs the fills of every feeding VoQ).
    #[inline]
    fn summed_measure(&self, k: usize) -> Option<u64> {
        let st = &self.pv[k];
        match self.mode {
            ThresholdMode::Sum => Some(st.sum),
            // Σ ≥ thr / n  ⇔  Σ · n ≥ thr (spec §2.2.3, literal reading of M3)
            ThresholdMode::SumDivided => Some(st.sum * st.contrib as u64),
            ThresholdMode::PerVoq => None,
        }
    }

    /// True while port VL `k` is in the congestion state.
    pub fn congested(&self, k: usize) -> bool {
        self.pv[k].congested
    }

    /// An eligible packet leaves congested port VL `k` of gport `g`: is it the one to mark?
    /// Deterministic: `Marking_Rate` unmarked packets between two marked ones (MR = 1 marks
    /// every second packet, MR = 0 every packet); random: geometric gaps with that mean.
    pub fn take_mark(&mut self, g: usize, k: usize) -> bool {
        if self.pv[k].counter == 0 {
            self.pv[k].counter = self.first_gap(g);
            true
        } else {
            self.pv[k].counter -= 1;
            false
        }
    }

    /// Closes the congestion periods at the end of the run.
    pub fn finish(&mut self, end: Ps) {
        for k in 0..self.pv.len() {
            if self.pv[k].congested {
                self.congested_time[k] += end - self.since[k];
                self.since[k] = end;
            }
        }
    }
}

impl SwitchCc {
    /// The fill of the queues of input `in_g` towards its switch's local output `out` on `vl`
    /// went from `old` to `new` credits.
    #[allow(clippy::too_many_arguments)]
    pub fn fill_changed(
        &mut self,
        v: &SwitchView,
        in_g: u32,
        out: u16,
        vl: u8,
        old: u32,
        new: u32,
        now: Ps,
    ) {
        let vls = self.vls;
        let og = self.port[in_g as usize].base + out as u32;
        let k = og as usize * vls + vl as usize;
        let r = self.recip[in_g as usize * vls + vl as usize];
        let st = &mut self.pv[k];
        st.sum = st.sum + r.units(new) - r.units(old);
        // +1 when the queue starts holding something, -1 when it empties
        st.contrib = st.contrib + u32::from(new > 0) - u32::from(old > 0);
        if !self.quiet(k) {
            self.decide_port(v, og, vl, now);
        }
    }

    /// Re-evaluates the congestion state of switch output `og`, VL `vl`. A port VL that is not
    /// congested and whose summed measure is below the threshold cannot change state, whatever
    /// its credits: that common case returns at once.
    #[inline]
    pub fn evaluate(&mut self, v: &SwitchView, og: u32, vl: u8, now: Ps) {
        if !self.quiet(og as usize * self.vls + vl as usize) {
            self.decide_port(v, og, vl, now);
        }
    }

    /// The full re-evaluation behind [`SwitchCc::evaluate`]; in the `PerVoq` mode the measure
    /// is the highest fill ratio of the VoQs feeding the output.
    #[inline(never)]
    fn decide_port(&mut self, v: &SwitchView, og: u32, vl: u8, now: Ps) {
        let vls = self.vls;
        let g = og as usize;
        let k = g * vls + vl as usize;
        let measure = match self.summed_measure(k) {
            Some(m) => m,
            None => {
                // the fill ratio of every input's VoQ towards this output: base + i is an
                // input of this switch, whose capacity `recip` divides by
                let PortParams { base, ports, .. } = self.port[g];
                let out = g - base as usize;
                (base as usize..base as usize + ports as usize)
                    .map(|i| {
                        let f = v.fill[v.fill_base[i] as usize + out * vls + vl as usize];
                        self.recip[i * vls + vl as usize].units(f)
                    })
                    .max()
                    .unwrap_or(0)
            }
        };
        let has_credits = v.vl_credits(og, vl, vls) >= self.root_need;
        self.decide(k, measure, has_credits, now);
    }

    /// Switch output `og` is sending packet `p` on `vl`: FECN marking (spec §2.2.5).
    #[inline]
    pub fn mark(&mut self, og: u32, vl: u8, p: &mut Packet) {
        let g = og as usize;
        let k = g * self.vls + vl as usize;
        if !self.pv[k].congested {
            return;
        }
        // CNPs are never marked (nor ACKs or multicast, which this model does not send)
        if p.flags & CNP != 0 || p.credits < self.port[g].packet_size {
            return;
        }
        // a packet already marked upstream keeps its one FECN (and will cause one CNP)
        if self.take_mark(g, k) && p.flags & FECN == 0 {
            p.flags |= FECN;
            self.marks[k] += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sw(extra: &str) -> SwitchCc {
        let c: IbCcKeys = toml::from_str(extra).unwrap();
        // gport 0: host-facing switch port, gport 1: fabric port, gport 2: an HCA
        SwitchCc::new(
            &c,
            1,
            34,
            &[true, true, false],
            &[LinkClass::Host, LinkClass::Fabric, LinkClass::Host],
            &[0, 0, 2],
            1,
        )
        .unwrap()
    }

    #[test]
    fn reciprocal_divides_exactly() {
        for d in (1..=2100).chain([4095, 4096, 65535, 1 << 20, 999_983, u32::MAX]) {
            let r = Reciprocal::new(d);
            let xs: Vec<u32> = if d <= 2100 {
                (0..=d).collect()
            } else {
                vec![0, 1, d / 3, d / 2, d - 1, d]
            };
            for x in xs {
                assert_eq!(r.units(x), x as u64 * FULL / d as u64, "{x} / {d}");
            }
        }
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
        s.decide(1, FULL, true, 10); // fabric port with credits: root
        assert!(s.congested(1));
        s.decide(1, FULL, false, 20); // no credits: victim, leaves (no hysteresis)
        assert!(!s.congested(1));
        assert_eq!(s.congested_time[1], 10);
        s.decide(0, FULL, false, 30); // host port: Victim_Mask set by default
        assert!(s.congested(0));
        s.decide(0, FULL / 2, true, 40); // below the threshold
        assert!(!s.congested(0));
    }

    #[test]
    fn hysteresis_keeps_the_state_until_the_reset_level() {
        let mut s = sw("threshold = 2\nreset_threshold = 3"); // enter 87.5 %, leave below 81.25 %
        s.decide(1, FULL * 14 / 16, true, 0);
        assert!(s.congested(1));
        s.decide(1, FULL * 13 / 16, true, 1); // between the levels: stays
        assert!(s.congested(1));
        s.decide(1, FULL * 13 / 16 - 1, true, 2);
        assert!(!s.congested(1));
    }

    #[test]
    fn marking_rate_counts_unmarked_packets_between_marks() {
        let mut s = sw("marking_rate = 1\nmarking = \"deterministic\"");
        let marks: Vec<bool> = (0..6).map(|_| s.take_mark(0, 0)).collect();
        assert_eq!(marks, [false, true, false, true, false, true]);
        let mut s = sw("marking_rate = 0\nmarking = \"deterministic\"");
        assert!((0..5).all(|_| s.take_mark(0, 0)));
        let mut s = sw("marking_rate = 10\nmarking = \"deterministic\"");
        assert_eq!((0..110).filter(|_| s.take_mark(0, 0)).count(), 10);
        // random gaps: mean Marking_Rate
        let mut s = sw("marking_rate = 10\nmarking = \"random\"");
        let n = (0..110_000).filter(|_| s.take_mark(0, 0)).count();
        assert!((9_000..11_000).contains(&n), "{n} marks in 110000 packets");
    }

    #[test]
    fn threshold_zero_never_congests() {
        let mut s = sw("threshold = 0");
        s.decide(0, FULL * 4, true, 0);
        assert!(!s.congested(0));
    }

    #[test]
    fn bad_values_are_named() {
        let c: IbCcKeys = toml::from_str("threshold = 4\nreset_threshold = 3").unwrap();
        let e = SwitchCc::new(&c, 1, 34, &[true], &[LinkClass::Host], &[0], 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("cc.reset_threshold"), "{e}");
        let c: IbCcKeys = toml::from_str("threshold = 16").unwrap();
        assert!(
            SwitchCc::new(&c, 1, 34, &[true], &[LinkClass::Host], &[0], 1)
                .unwrap_err()
                .to_string()
                .contains("cc.threshold")
        );
    }
}
