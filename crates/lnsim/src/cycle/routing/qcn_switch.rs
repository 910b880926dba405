//! QCN-Switch (Dragonfly spec §3.12.2–§3.12.6; thesis §4.6): forwarding tables whose
//! conditional minimal rules hold a probability per transit port. At injection an inter-group
//! packet draws N ∈ 1…100; when N exceeds the probability of its minimal port, that rule is
//! off for it and the low-priority alternative rule of its injection port matches (VLB_-g-,
//! [`super::mar_bp::alternative_rule`]). Decisions are taken once, at injection. The
//! probabilities and how QCN notifications move them are [`super::qcn_probabilities`].

use super::algorithm::{CycleAlgorithm, Paths, StateNeeds, VcNeeds};
use super::candidates::{Occupancy, RouteState};
use super::dragonfly_paths::next_port;
use super::mar_bp::{alternative_rule, inter_group, two_vc_template};
use super::qcn_probabilities::QcnSwitchParams;
use crate::config::{QcnCompare, QcnSwitchRouting};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// QCN-Switch (spec §3.12).
#[derive(Debug, Clone, Copy)]
pub struct QcnSwitch {
    /// The probabilities' parameters.
    pub params: QcnSwitchParams,
    /// N > ⌊P⌋ (FOGSim) or N > P.
    pub integer: bool,
}

impl QcnSwitch {
    /// From `[routing]` of `qcn_switch`.
    pub fn new(k: &QcnSwitchRouting) -> Self {
        QcnSwitch {
            params: QcnSwitchParams::new(&k.qcn_switch),
            integer: k.qcn_switch.compare == QcnCompare::Integer,
        }
    }

    /// Does a packet whose draw is `n` (1 … 100) leave a minimal port of probability `p`?
    #[inline]
    pub fn misroutes(&self, n: u32, p: f64) -> bool {
        if self.integer {
            n as f64 > p.floor()
        } else {
            n as f64 > p
        }
    }
}

impl CycleAlgorithm for QcnSwitch {
    fn name(&self) -> &'static str {
        "qcn_switch"
    }
    fn vcs(&self) -> VcNeeds {
        VcNeeds::Template(two_vc_template())
    }
    fn decides_at_injection(&self) -> bool {
        true
    }
    fn reads_source_port(&self) -> bool {
        true
    }
    fn state(&self) -> StateNeeds {
        StateNeeds::QcnSwitch(self.params)
    }
    fn at_injection(
        &self,
        paths: &Paths,
        r: u32,
        dst: u32,
        st: &mut RouteState,
        occ: &dyn Occupancy,
        rng: &mut ChaCha8Rng,
    ) {
        let Some(d) = inter_group(paths, r, dst) else {
            return;
        };
        let s = &d.shape;
        let Some(port) = next_port(s, r, dst) else {
            return;
        };
        let n = rng.random_range(1..=100u32);
        if self.misroutes(n, occ.min_probability(r, port)) {
            alternative_rule(s, r, dst, occ.source_port(), st);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::QcnSwitchConfig;

    /// The two comparisons of N with P: FOGSim's N > ⌊P⌋, or N > P.
    #[test]
    fn the_comparison_of_n_with_p() {
        let mut k = QcnSwitchRouting {
            qcn_switch: QcnSwitchConfig::default(),
            vc_template: None,
        };
        let int = QcnSwitch::new(&k);
        assert!(int.misroutes(76, 75.9) && !int.misroutes(75, 75.9));
        k.qcn_switch.compare = QcnCompare::Real;
        let real = QcnSwitch::new(&k);
        assert!(!real.misroutes(75, 75.9) && real.misroutes(76, 75.9));
        // P = 100 never misroutes; P = 0 always does
        assert!(!int.misroutes(100, 100.0) && int.misroutes(1, 0.0));
    }
}
