//! Deterministic random streams: every component draws from its own ChaCha8 stream derived
//! from `(master seed, component id, purpose)`, so adding a component or drawing more numbers
//! in one place never changes the numbers another component sees.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Purposes of random streams (one per kind of draw).
pub mod purpose {
    /// Destination choice of a traffic generator.
    pub const DESTINATION: u64 = 1;
    /// Inter-arrival times of a Bernoulli injection process.
    pub const ARRIVALS: u64 = 2;
    /// Random subset selection of node sets.
    pub const SUBSET: u64 = 3;
    /// Random marking decisions of congestion control.
    pub const MARKING: u64 = 4;
    /// DRB's per-packet path draws (Eq. 1, drb-and-ddbbm spec A.3.3).
    pub const PATH_CHOICE: u64 = 6;
    /// A QCN congestion point's %CNMs draws and victim choices (Dragonfly spec §3.12.1).
    pub const QCN_SAMPLING: u64 = 7;
    /// A job's random permutation of its sources (`traffic::permutation::job_image`).
    pub const JOB_PERMUTATION: u64 = 8;
    /// The phase of a channel adapter's free-running CCTI timer (`cc.timer_mode =
    /// "free_running_phased"`, `credit/cc/ib_ca.rs`).
    pub const CCTI_TIMER_PHASE: u64 = 9;
    /// The phase of a DRB / IBA_CC-S1 connection's CCM timer (`cc.ccm_timer_mode =
    /// "per_flow_phase"`, `credit/cc/ccm_timer.rs`).
    pub const CCM_TIMER_PHASE: u64 = 10;
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The random stream of `component` for `purpose` under the master `seed`.
pub fn stream(seed: u64, component: u64, purpose: u64) -> ChaCha8Rng {
    let s = splitmix(
        splitmix(splitmix(seed) ^ component) ^ purpose.wrapping_mul(0xA24B_AED4_963E_E407),
    );
    ChaCha8Rng::seed_from_u64(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: u64 = stream(12, 5, purpose::DESTINATION).random();
        let b: u64 = stream(12, 5, purpose::DESTINATION).random();
        let c: u64 = stream(12, 6, purpose::DESTINATION).random();
        let d: u64 = stream(13, 5, purpose::DESTINATION).random();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }
}
