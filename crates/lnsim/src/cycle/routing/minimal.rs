//! MIN, minimal routing on a Dragonfly (Dragonfly spec §3.1): every packet takes the single
//! minimal path l1 g l2 ([`super::dragonfly_paths`]) on the VCs of the minimal template
//! `[L, G, L]`; nothing to decide.

use super::algorithm::{CycleAlgorithm, VcNeeds};
use super::vc_template::VcTemplate;

/// MIN (spec §3.1): every packet takes the minimal path; nothing to decide.
#[derive(Debug, Clone, Copy)]
pub struct Min;

impl CycleAlgorithm for Min {
    fn name(&self) -> &'static str {
        "min"
    }
    fn vcs(&self) -> VcNeeds {
        VcNeeds::Template(VcTemplate::minimal())
    }
}
