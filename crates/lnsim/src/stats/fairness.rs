//! Jain's fairness index (spec §6 "Fairness": \[A\] also report Jain's index).

/// Jain's index `(Σx)² / (n·Σx²)` of a set of rates: 1 = perfectly fair, 1/n = one takes all.
/// Returns None for an empty set or when everything is zero.
pub fn jain(xs: &[f64]) -> Option<f64> {
    let n = xs.len() as f64;
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if xs.is_empty() || s2 == 0.0 {
        None
    } else {
        Some(s * s / (n * s2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_bounds() {
        assert_eq!(jain(&[1.0, 1.0, 1.0]), Some(1.0));
        assert!((jain(&[1.0, 0.0, 0.0, 0.0]).unwrap() - 0.25).abs() < 1e-12);
        // parking lot 1/6,1/6,1/3,1/3
        let j = jain(&[1.0, 1.0, 2.0, 2.0]).unwrap();
        assert!((j - 0.9).abs() < 1e-12);
        assert_eq!(jain(&[]), None);
    }
}
