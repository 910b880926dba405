//! Per-destination reception figures of the HoL-blocking study (spec B.7): each destination's
//! reception rate as a share of its link, and, over the destinations that are not a hotspot,
//! Jain's index and the victims — destinations receiving less than [`VICTIM_SHARE`] of their
//! expected rate, where the expected rate is the traffic offered to them while that is below
//! their link's capacity (a destination offered its whole link or more has no expected rate
//! and is neither a victim nor counted in the minimum).

use crate::stats::fairness::jain;

/// A non-hot destination is a victim below this share of its expected rate (spec B.7 \[A\]).
pub const VICTIM_SHARE: f64 = 0.9;

/// The fairness figures over the non-hot destinations (spec B.7).
#[derive(Debug, Clone, PartialEq)]
pub struct NonHot {
    /// How many destinations were compared.
    pub destinations: usize,
    /// Jain's index of their reception rates (None: none received anything).
    pub jain: Option<f64>,
    /// Those with an expected rate below capacity that received less than
    /// [`VICTIM_SHARE`] of it (indices, in the order of the members).
    pub victims: Vec<usize>,
    /// The least received / expected ratio among those with an expected rate (None: none).
    pub min_over_expected: Option<f64>,
    /// Their reception rates (shares of their links): mean, least and most (None: no
    /// destination compared).
    pub rx: Option<Spread>,
}

/// Mean, least and most of a set of rates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// The mean.
    pub mean: f64,
    /// The least.
    pub min: f64,
    /// The most.
    pub max: f64,
}

impl Spread {
    /// Of `xs` (None when empty).
    pub fn of(xs: &[f64]) -> Option<Spread> {
        if xs.is_empty() {
            return None;
        }
        let (min, max) = xs
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                (a.min(x), b.max(x))
            });
        Some(Spread {
            mean: xs.iter().sum::<f64>() / xs.len() as f64,
            min,
            max,
        })
    }
}

/// Fairness over the destinations `members` (indices into the slices): `rx[d]` and
/// `expected[d]` are the received and offered rates as shares of `d`'s link (spec B.7).
pub fn non_hot(rx: &[f64], expected: &[f64], members: &[usize]) -> NonHot {
    let xs: Vec<f64> = members.iter().map(|&d| rx[d]).collect();
    let mut victims = Vec::new();
    let mut min: Option<f64> = None;
    for &d in members {
        let e = expected[d];
        if e > 0.0 && e < 1.0 {
            let r = rx[d] / e;
            if r < VICTIM_SHARE {
                victims.push(d);
            }
            min = Some(min.map_or(r, |m: f64| m.min(r)));
        }
    }
    NonHot {
        destinations: members.len(),
        jain: jain(&xs),
        victims,
        min_over_expected: min,
        rx: Spread::of(&xs),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn victims_are_below_ninety_percent_of_a_feasible_expectation() {
        // d0 fine, d1 at 0.8 of 0.5 (victim), d2 offered its whole link (no expectation),
        // d3 a hotspot left out by the caller, d4 receives nothing of 0.25 (victim)
        let rx = [0.5, 0.4, 0.7, 0.9, 0.0];
        let expected = [0.5, 0.5, 1.2, 4.0, 0.25];
        let r = non_hot(&rx, &expected, &[0, 1, 2, 4]);
        assert_eq!(r.destinations, 4);
        assert_eq!(r.victims, [1, 4]);
        assert_eq!(r.min_over_expected, Some(0.0));
        let spread = r.rx.unwrap();
        assert_eq!((spread.min, spread.max), (0.0, 0.7));
        assert!((spread.mean - 1.6 / 4.0).abs() < 1e-12);
        let xs = [0.5, 0.4, 0.7, 0.0];
        let s: f64 = xs.iter().sum();
        let s2: f64 = xs.iter().map(|x| x * x).sum();
        assert!((r.jain.unwrap() - s * s / (4.0 * s2)).abs() < 1e-12);
        // exactly at 90 % is not a victim
        let r = non_hot(&[0.45], &[0.5], &[0]);
        assert_eq!((r.victims.len(), r.min_over_expected), (0, Some(0.9)));
        let none = non_hot(&[], &[], &[]);
        assert_eq!((none.jain, none.rx), (None, None));
    }
}
