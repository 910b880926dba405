//! UGAL, Universal Globally-Adaptive Load-balancing with source-router queue information
//! (Dragonfly spec §3.5): route minimally iff `Q_MIN · H_MIN ≤ Q_VLB · H_VLB + T` (Eq. 2-1),
//! the occupancies in phits (§2.6) and T in packets times the packet size.

/// Eq. 2-1: true when the packet goes minimally. `t_phits` is T already in phits.
#[inline]
pub fn prefer_minimal(q_min: u64, h_min: u32, q_vlb: u64, h_vlb: u32, t_phits: i64) -> bool {
    (q_min * h_min as u64) as i64 <= (q_vlb * h_vlb as u64) as i64 + t_phits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq_2_1() {
        // empty network: minimal
        assert!(prefer_minimal(0, 3, 0, 6, 0));
        // minimal queue 3 packets over 3 hops vs Valiant 1 packet over 6 hops: 90 > 60
        assert!(!prefer_minimal(30, 3, 10, 6, 0));
        // a threshold of 3 packets (30 phits) tips it back: 90 <= 60 + 30
        assert!(prefer_minimal(30, 3, 10, 6, 30));
        // a negative threshold favours Valiant
        assert!(!prefer_minimal(10, 3, 5, 6, -1));
    }
}
