//! The QCN congestion point (IEEE 802.1Qau; Dragonfly spec §3.12.1, thesis §2.4.1) of the
//! cycle-level routers: every transit port's sampled buffer (its input or its output side,
//! `qcn.sampling`) counts the data packets entering it and samples its occupancy once every
//! CPC packets. A sample computes the feedback Fb = −(Q_off + w·Q_δ) (Eq. 2-3), quantised to
//! 6 bits and saturating at Q_eq·(1 + 2w) (2·Q_eq with w = 0); when Fb shows congestion a
//! notification (CNM) is sent with probability %CNMs to the source of a victim packet of the
//! buffer (occupancy sampling: a random one). The network side — the victim, the CNM packet,
//! its trip and what it changes — is `cycle/cnm.rs`.
//!
//! Choices where the spec leaves room (docs/hpc-router.md, "QCN"): Q is the sum over the port's
//! data VCs of the sampled side (notification VCs excluded); Q_old is Q at the port's previous
//! sample (FOGSim); the CPC counter counts data packets entering the sampled buffer only (not
//! cycles as FOGSim's clock also does); injection and ejection ports are never sampled.

use super::Side;
use crate::config::QcnVictim;
use crate::engine::rng::{purpose, stream};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// The largest feedback: 6 bits.
pub const FB_MAX: u8 = 63;

/// The feedback |Fb| (0 … 63) of a sample with occupancy `q` (phits), previous sample `q_old`,
/// equilibrium `q_eq` and weight `w` (Eq. 2-3): ⌊63 · clamp(Q − Q_eq + w·(Q − Q_old), 0,
/// Q_eq·(1 + 2w)) / (Q_eq·(1 + 2w))⌋. 0 means no congestion.
pub fn feedback(q: u32, q_old: u32, q_eq: u32, w: f64) -> u8 {
    let q_off = q as f64 - q_eq as f64;
    let q_delta = q as f64 - q_old as f64;
    let max = q_eq as f64 * (1.0 + 2.0 * w);
    let raw = (q_off + w * q_delta).clamp(0.0, max);
    if max <= 0.0 {
        return 0;
    }
    // integer quantisation as FOGSim (w = 0: exact in integers)
    ((raw * FB_MAX as f64 / max).floor() as u64).min(FB_MAX as u64) as u8
}

/// The parameters of the congestion points (`[qcn]`, Table 4-3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpParams {
    /// The side sampled.
    pub sampling: Side,
    /// Q_eq (phits) and w.
    pub q_eq: u32,
    pub w: f64,
    /// CPC: packets per sample.
    pub cpc: u32,
    /// %CNMs.
    pub cnm_percent: u32,
    /// The victim of a notification.
    pub victim: QcnVictim,
    /// The CPC counts cycles too (FOGSim).
    pub clock: bool,
}

/// The counts of the congestion points.
#[derive(Debug, Clone, Copy)]
pub struct CpCounts {
    /// Samples taken, those with feedback > 0, notifications decided (drawn under %CNMs).
    pub samples: u64,
    pub congested: u64,
    pub notifications: u64,
    /// Samples with feedback > 0 by feedback value.
    pub fb_histogram: [u64; 64],
}

impl Default for CpCounts {
    fn default() -> Self {
        CpCounts {
            samples: 0,
            congested: 0,
            notifications: 0,
            fb_histogram: [0; 64],
        }
    }
}

/// The congestion points of every router port: a countdown to the next sample per port
/// (`0`: the port is not sampled), the data VCs below the notification VCs, Q at the previous
/// sample, and a random stream per router.
#[derive(Debug, Clone)]
pub struct CongestionPoints {
    /// Parameters.
    pub params: CpParams,
    /// Per router port: packets left before the next sample (0: not sampled).
    countdown: Vec<u32>,
    /// Per router port: its data VCs (VCs ≥ this carry notifications).
    pub data_vcs: Vec<u8>,
    /// Per router port: Q at its previous sample.
    q_old: Vec<u32>,
    /// Per router port: the cycle its countdown last restarted (the `cycles` clock).
    since: Vec<u64>,
    /// Per router: its random stream.
    rng: Vec<ChaCha8Rng>,
    /// Ports per router.
    radix: u32,
    /// The counts.
    pub counts: CpCounts,
}

impl CongestionPoints {
    /// The congestion points of `ports` router ports (`radix` per router) of which
    /// `sampled(gp)` gives the data VCs of each sampled (transit) port, with `seed`'s streams.
    pub fn new(
        params: CpParams,
        ports: usize,
        radix: u32,
        seed: u64,
        sampled: impl Fn(usize) -> Option<u8>,
    ) -> Self {
        let data_vcs: Vec<u8> = (0..ports).map(|g| sampled(g).unwrap_or(0)).collect();
        let countdown = data_vcs
            .iter()
            .map(|&d| if d > 0 { params.cpc } else { 0 })
            .collect();
        let routers = if radix == 0 {
            0
        } else {
            ports / radix as usize
        };
        CongestionPoints {
            params,
            countdown,
            data_vcs,
            q_old: vec![0; ports],
            since: vec![0; if params.clock { ports } else { 0 }],
            rng: (0..routers)
                .map(|r| stream(seed, r as u64, purpose::QCN_SAMPLING))
                .collect(),
            radix,
            counts: CpCounts::default(),
        }
    }

    /// Bytes per router port (memory estimate).
    pub const BYTES_PER_PORT: u64 = 4 + 1 + 4;

    /// A packet entered side `side` of port `gp` on VC `vc` at cycle `now`: is the buffer
    /// sampled now (the CPC-th data packet since its last sample; with the `cycles` clock,
    /// packets plus cycles)? (Out of line: the path without QCN stays small.)
    #[inline(never)]
    pub fn entered(&mut self, side: Side, gp: u32, vc: u32, now: u64) -> bool {
        if side != self.params.sampling {
            return false;
        }
        let g = gp as usize;
        if vc >= self.data_vcs[g] as u32 {
            return false;
        }
        let c = &mut self.countdown[g];
        if *c == 0 {
            return false;
        }
        *c -= 1;
        if self.params.clock {
            return self.due(g, now);
        }
        if *c == 0 {
            *c = self.params.cpc;
            return true;
        }
        false
    }

    /// The `cycles` clock: a packet left side `side` of port `gp` at cycle `now`, which still
    /// holds `phits` phits on that VC: is the buffer due for a sample?
    #[inline(never)]
    pub fn left(&mut self, side: Side, gp: u32, vc: u32, phits: u32, now: u64) -> bool {
        let g = gp as usize;
        if !self.params.clock
            || side != self.params.sampling
            || self.countdown[g] == 0
            || vc >= self.data_vcs[g] as u32
            || phits == 0
        {
            return false;
        }
        self.due(g, now)
    }

    /// The `cycles` clock: packets counted plus cycles elapsed reach CPC (then restart).
    #[inline]
    fn due(&mut self, g: usize, now: u64) -> bool {
        let counted = (self.params.cpc - self.countdown[g]) as u64;
        if counted + (now - self.since[g]) >= self.params.cpc as u64 {
            self.countdown[g] = self.params.cpc;
            self.since[g] = now;
            return true;
        }
        false
    }

    /// The sample of port `gp` with occupancy `q` (phits, its data VCs): its feedback when it
    /// sends a notification (Fb > 0 and the %CNMs draw), else `None`.
    pub fn sample(&mut self, gp: u32, q: u32) -> Option<u8> {
        let g = gp as usize;
        let p = self.params;
        let fb = feedback(q, self.q_old[g], p.q_eq, p.w);
        self.q_old[g] = q;
        self.counts.samples += 1;
        if fb == 0 {
            return None;
        }
        self.counts.congested += 1;
        self.counts.fb_histogram[fb as usize] += 1;
        let r = (gp / self.radix) as usize;
        let draw = self.rng[r].random_range(1..=100u32);
        if draw > p.cnm_percent {
            return None;
        }
        self.counts.notifications += 1;
        Some(fb)
    }

    /// A uniform index below `n` (> 0) from router `r`'s stream (the victim of occupancy
    /// sampling).
    pub fn pick(&mut self, r: u32, n: u64) -> u64 {
        self.rng[r as usize].random_range(0..n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fb on hand-made occupancies (w = 0, Q_eq = 4000): at or below Q_eq 0; at 1.5·Q_eq
    /// ⌊63·2000/4000⌋ = 31; at 2·Q_eq and beyond the 6-bit saturation 63; one phit above Q_eq
    /// still 0 (⌊63/4000⌋).
    #[test]
    fn feedback_on_hand_made_queues() {
        let f = |q| feedback(q, 0, 4000, 0.0);
        assert_eq!(f(0), 0);
        assert_eq!(f(4000), 0);
        assert_eq!(f(4001), 0);
        assert_eq!(f(4064), 1);
        assert_eq!(f(6000), 31);
        assert_eq!(f(8000), 63);
        assert_eq!(f(20000), 63);
        assert_eq!(f(7999), 62);
        // w = 2 (QCN's default): max = Q_eq·5; a queue at Q_eq growing by 1,000 since the last
        // sample: raw = 0 + 2·1000 = 2000, ⌊63·2000/20000⌋ = 6; a shrinking one gives 0
        assert_eq!(feedback(4000, 3000, 4000, 2.0), 6);
        assert_eq!(feedback(5000, 9000, 4000, 2.0), 0);
    }

    fn cp(cpc: u32, pct: u32) -> CongestionPoints {
        let params = CpParams {
            sampling: Side::Output,
            q_eq: 100,
            w: 0.0,
            cpc,
            cnm_percent: pct,
            victim: QcnVictim::Random,
            clock: false,
        };
        // two routers of 3 ports; port 0 of each is a terminal port (not sampled), 2 data VCs
        CongestionPoints::new(params, 6, 3, 7, |g| (g % 3 != 0).then_some(2))
    }

    /// The CPC-th data packet entering a sampled buffer samples it, then every CPC-th again;
    /// the other side, notification VCs and terminal ports never count.
    #[test]
    fn sampling_every_cpc_packets() {
        let mut c = cp(100, 30);
        let mut hits = vec![];
        for k in 1..=350u32 {
            assert!(!c.entered(Side::Input, 1, 0, 0));
            assert!(!c.entered(Side::Output, 1, 2, 0), "a notification VC");
            assert!(!c.entered(Side::Output, 0, 0, 0), "a terminal port");
            if c.entered(Side::Output, 1, k % 2, 0) {
                hits.push(k);
            }
        }
        assert_eq!(hits, vec![100, 200, 300]);
    }

    /// The `cycles` clock (FOGSim): packets and cycles both count; a buffer that sees no
    /// arrival is sampled at a departure once CPC cycles have passed (not when it left empty).
    #[test]
    fn sampling_by_the_cycles_clock() {
        let mut c = cp(100, 30);
        c.params.clock = true;
        c.since = vec![0; 6];
        // 10 packets at cycles 1..10, then nothing until a departure at cycle 95: not due
        // (10 + 95 = 105 ≥ 100 is due: 10 packets + 95 cycles)
        for k in 1..=10 {
            assert!(!c.entered(Side::Output, 1, 0, k));
        }
        assert!(!c.left(Side::Output, 1, 0, 200, 89), "10 + 89 < 100");
        assert!(!c.left(Side::Output, 1, 0, 0, 95), "the buffer left empty");
        assert!(c.left(Side::Output, 1, 0, 200, 95));
        // restarted at 95: 100 cycles later with no packet
        assert!(!c.left(Side::Output, 1, 0, 200, 194));
        assert!(c.left(Side::Output, 1, 0, 200, 195));
        // the packets clock ignores departures
        let mut p = cp(100, 30);
        assert!(!p.left(Side::Output, 1, 0, 200, 10_000));
    }

    /// Samples without congestion send nothing; congested samples send a notification with
    /// probability %CNMs: over 100,000 samples the count lies within 4σ of the binomial mean,
    /// and %CNMs = 0 or 100 give none or all.
    #[test]
    fn the_cnm_draw() {
        let mut c = cp(1, 30);
        assert_eq!(c.sample(1, 50), None);
        let n = 100_000u64;
        let sent = (0..n).filter(|_| c.sample(1, 150).is_some()).count() as f64;
        let (mean, sd) = (n as f64 * 0.3, (n as f64 * 0.3 * 0.7).sqrt());
        assert!((sent - mean).abs() < 4.0 * sd, "{sent} vs {mean} ± {sd}");
        assert_eq!(c.counts.samples, n + 1);
        assert_eq!(c.counts.congested, n);
        assert_eq!(c.counts.fb_histogram[31], n, "Fb of 1.5·Q_eq");
        let mut none = cp(1, 0);
        assert!((0..1000).all(|_| none.sample(4, 200).is_none()));
        let mut all = cp(1, 100);
        assert!((0..1000).all(|_| all.sample(4, 200) == Some(63)));
    }
}
