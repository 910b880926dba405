//! MAR-bP, Multipath Adaptive Routing based on Pauses (Dragonfly spec §3.11; thesis §4.5): the
//! OpenFlow-style conditional rules of a lossless Ethernet Dragonfly. The high-priority default
//! rule of an inter-group packet is its minimal route, *conditional on its output not being
//! paused*; while it is, the low-priority alternative rule of the packet's injection port `j`
//! matches and sends it through the source router's global port `j` (a fixed VLB_-g- group per
//! host). Decisions are taken at injection only and never recomputed (FOGSim); intra-group
//! packets always go minimally. The alternative rule, shared with QCN-Switch
//! ([`super::qcn_switch`]), is [`alternative_rule`].
//!
//! "Paused" is the flow control's signal ([`super::candidates::Occupancy::paused`]): under
//! credits the spec's emulation (§2.3 \[AMB\]: the minimal VC cannot take a whole packet, or the
//! local output buffer has no room for one), under `router.flow_control = "pfc"` a PAUSE frame
//! received for that priority.

use super::algorithm::{CycleAlgorithm, Paths, VcNeeds};
use super::candidates::{Occupancy, RouteState};
use super::dragonfly_paths::{next_port, DragonflyPaths};
use super::valiant::{leaves_minimal_path, path_hops, Intermediate};
use super::vc_template::{HopClass, VcTemplate};
use crate::topology::dragonfly::DragonflyShape;
use rand_chacha::ChaCha8Rng;

/// The VC template of MAR-bP and QCN-Switch: `["G0", "L0", "G1", "L1"]`, the two VCs per link
/// type of spec §3.11 (a misrouted path is g l g l; a minimal one l g l uses the last three).
pub fn two_vc_template() -> VcTemplate {
    use HopClass::*;
    VcTemplate::from_classes(&[Global, Local, Global, Local])
}

/// The low-priority alternative rule of injection port `j` at router `r` (spec §3.11, §3.12.2):
/// the packet to router `dst` leaves through global port `j` of `r` and goes minimally from the
/// router it lands on (VLB_-g- with a fixed intermediate group per injection port; `I = p = h`).
pub fn alternative_rule(s: &DragonflyShape, r: u32, dst: u32, j: u32, st: &mut RouteState) {
    let (g, land, _) = s.global_neighbour(s.group(r), s.index(r), j % s.h);
    let mid = Intermediate {
        router: g * s.a + land,
        group_only: true,
    };
    let (h_vlb, h_min) = (path_hops(s, r, mid, dst), s.min_hops(r, dst));
    let off = leaves_minimal_path(s, r, mid, dst, h_vlb, h_min);
    st.set_valiant(mid.router, true, off);
}

/// The Dragonfly paths when a packet at router `r` heads for router `dst` of another group —
/// the only packets whose rules MAR-bP and QCN-Switch choose among (spec §3.11, §3.12.2);
/// `None` for intra-group packets (always minimal) and off a Dragonfly.
pub fn inter_group(paths: &Paths, r: u32, dst: u32) -> Option<&DragonflyPaths> {
    match paths {
        Paths::Dragonfly(d) if d.shape.group(r) != d.shape.group(dst) => Some(d),
        _ => None,
    }
}

/// MAR-bP (spec §3.11).
#[derive(Debug, Clone, Copy, Default)]
pub struct MarBp;

impl CycleAlgorithm for MarBp {
    fn name(&self) -> &'static str {
        "mar_bp"
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
    fn at_injection(
        &self,
        paths: &Paths,
        r: u32,
        dst: u32,
        st: &mut RouteState,
        occ: &dyn Occupancy,
        _rng: &mut ChaCha8Rng,
    ) {
        let Some(d) = inter_group(paths, r, dst) else {
            return;
        };
        let s = &d.shape;
        // the conditional default rule: the minimal hop on the VC the template gives it
        let mut probe = *st;
        let Ok(Some(c)) = d.follow(r, dst, &mut probe) else {
            return;
        };
        debug_assert_eq!(Some(c.port as u32), next_port(s, r, dst));
        if occ.paused(r, c.port as u32, c.vc_lo) {
            alternative_rule(s, r, dst, occ.source_port(), st);
        }
    }
}
