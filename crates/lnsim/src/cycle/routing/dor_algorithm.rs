//! Dimension-order routing (DOR) on a mesh or torus as a cycle-level routing algorithm: every
//! packet takes the dimension-order path of the one DOR rule
//! ([`crate::routing::dor::Grid::step`], followed by [`super::mesh_paths::MeshPaths`]); nothing
//! to decide. On a torus the paths use dateline VC classes.

use super::algorithm::{CycleAlgorithm, VcNeeds};

/// DOR on a mesh or torus in the cycle-level model: every packet takes the dimension-order
/// path; nothing to decide.
#[derive(Debug, Clone, Copy)]
pub struct Dor;

impl CycleAlgorithm for Dor {
    fn name(&self) -> &'static str {
        "dor"
    }
    fn vcs(&self) -> VcNeeds {
        VcNeeds::Phases(1)
    }
    fn stateless(&self) -> bool {
        true
    }
}
