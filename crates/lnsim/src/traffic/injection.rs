//! Injection processes shared by both wings: the Bernoulli process, one trial per slot with a
//! fixed success probability, sampled by its geometric gaps (InfiniBand CC spec §3.7.1:
//! Bernoulli message arrivals in host-link slots; Dragonfly spec §4.1: one Bernoulli trial per
//! cycle with probability load / packet size); and the Poisson process of the credit-level
//! generators, sampled by its exponential gaps (drb-and-ddbbm spec A.6, A.10: Poisson message
//! generation at an offered load per node). Greedy ("flood") injection needs no sampler.
//!
//! Both wings draw gaps here: the credit-level generators count slots of one message on the
//! host link ([`Bernoulli::slots_to_next`]), the cycle-level terminals count cycles
//! ([`Bernoulli::failures`]).

use rand::Rng;

/// A Bernoulli process with success probability `p` per slot, sampled by inversion of the
/// geometric distribution: the number of failed slots before the next success is
/// `⌊ln(1 − u) / ln(1 − p)⌋` for one uniform draw `u ∈ [0, 1)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bernoulli {
    /// Success probability per slot, in (0, 1]; `p ≤ 0` never succeeds.
    p: f64,
    /// `ln(1 − p)`, the divisor of every gap (computed once).
    ln_q: f64,
}

impl Bernoulli {
    /// The process with success probability `p` per slot (`p ≥ 1`: every slot succeeds;
    /// `p ≤ 0`: no slot does, see [`Bernoulli::never`]).
    pub fn new(p: f64) -> Self {
        Bernoulli {
            p,
            ln_q: (1.0 - p).ln(),
        }
    }

    /// Success probability per slot.
    #[inline]
    pub fn p(&self) -> f64 {
        self.p
    }

    /// True if the process never succeeds (`p ≤ 0`: no load).
    #[inline]
    pub fn never(&self) -> bool {
        self.p <= 0.0
    }

    /// Failed slots before the next success (0 when `p ≥ 1`, without drawing). The quotient is
    /// ≥ 0 (or NaN, cast to 0), so the truncating cast is the floor. Callers check
    /// [`Bernoulli::never`] first.
    #[inline]
    pub fn failures(&self, rng: &mut impl Rng) -> u64 {
        if self.p >= 1.0 {
            return 0;
        }
        let u: f64 = rng.random();
        ((1.0 - u).ln() / self.ln_q) as u64
    }

    /// Slots from one success to the next, counting the successful slot (≥ 1): the
    /// inter-arrival time in slots of the credit-level generators.
    #[inline]
    pub fn slots_to_next(&self, rng: &mut impl Rng) -> u64 {
        self.failures(rng).saturating_add(1)
    }
}

/// A Poisson process with mean inter-arrival time `mean` (any time unit), sampled by inversion
/// of the exponential distribution: the gap is `−mean · ln(1 − u)` for one uniform draw
/// `u ∈ [0, 1)` (drb-and-ddbbm spec A.6: Poisson message generation per node). Allocates
/// nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Exponential {
    /// Mean gap (> 0).
    mean: f64,
}

impl Exponential {
    /// The process with mean gap `mean` (> 0: callers check the offered rate first).
    pub fn new(mean: f64) -> Self {
        Exponential { mean }
    }

    /// Mean gap.
    #[inline]
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// The gap to the next arrival (≥ 0).
    #[inline]
    pub fn gap(&self, rng: &mut impl Rng) -> f64 {
        let u: f64 = rng.random();
        -self.mean * (1.0 - u).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn certain_success_draws_nothing() {
        let b = Bernoulli::new(1.0);
        let mut r = ChaCha8Rng::seed_from_u64(3);
        let before = r.clone().random::<u64>();
        assert_eq!(b.failures(&mut r), 0);
        assert_eq!(b.slots_to_next(&mut r), 1);
        assert_eq!(r.random::<u64>(), before, "no number was drawn");
    }

    #[test]
    fn gaps_have_the_geometric_mean_and_variance() {
        for p in [0.05, 0.3, 0.8] {
            let b = Bernoulli::new(p);
            let mut r = ChaCha8Rng::seed_from_u64(11);
            let n = 200_000;
            let xs: Vec<f64> = (0..n).map(|_| b.failures(&mut r) as f64).collect();
            let mean = xs.iter().sum::<f64>() / n as f64;
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
            let (m, v) = ((1.0 - p) / p, (1.0 - p) / (p * p));
            assert!(
                (mean - m).abs() < 0.02 * m.max(0.1),
                "p {p}: mean {mean} vs {m}"
            );
            assert!(
                (var - v).abs() < 0.05 * v.max(0.1),
                "p {p}: var {var} vs {v}"
            );
        }
    }

    #[test]
    fn slots_count_the_successful_one() {
        let b = Bernoulli::new(0.25);
        let mut r1 = ChaCha8Rng::seed_from_u64(5);
        let mut r2 = r1.clone();
        for _ in 0..1000 {
            assert_eq!(b.slots_to_next(&mut r1), b.failures(&mut r2) + 1);
        }
    }

    #[test]
    fn no_load_never_succeeds() {
        assert!(Bernoulli::new(0.0).never());
        assert!(!Bernoulli::new(1e-9).never());
    }

    /// The exponential gaps have mean `m` and variance `m²` (drb-and-ddbbm spec A.6). The
    /// tolerances are four standard errors of the estimates for the sample size: the mean's
    /// standard error is `m/√n`, the variance's `m²·√(8/n)` (the fourth central moment of the
    /// exponential is 9m⁴, so Var(s²) ≈ (9 − 1)m⁴/n).
    #[test]
    fn exponential_gaps_have_the_right_mean_and_variance() {
        for m in [1.0, 41_000.0] {
            let e = Exponential::new(m);
            let mut r = ChaCha8Rng::seed_from_u64(17);
            let n = 200_000;
            let xs: Vec<f64> = (0..n).map(|_| e.gap(&mut r)).collect();
            assert!(xs.iter().all(|&x| x >= 0.0));
            let nf = n as f64;
            let mean = xs.iter().sum::<f64>() / nf;
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (nf - 1.0);
            let (se_mean, se_var) = (m / nf.sqrt(), m * m * (8.0 / nf).sqrt());
            assert!((mean - m).abs() < 4.0 * se_mean, "mean {mean} vs {m}");
            assert!((var - m * m).abs() < 4.0 * se_var, "var {var} vs {}", m * m);
        }
    }
}
