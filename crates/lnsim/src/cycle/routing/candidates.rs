//! What a routing proposes in the cycle-level router model (Dragonfly spec §3.0): a packet's
//! next hop as a [`Candidate`] — an output port and the range of VCs it may use there — which
//! the switch then selects among (a VC of the range, then allocation); the routing state a
//! packet carries in its header ([`RouteState`]); and the congestion information an adaptive
//! decision may read ([`Occupancy`]). The algorithms and the paths they follow are in
//! [`super::algorithm`].

use super::vc_template::HopClass;

/// No intermediate router.
pub const NO_ROUTER: u32 = u32::MAX;

/// Routing state carried in a packet header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteState {
    /// Valiant intermediate router, or [`NO_ROUTER`].
    pub inter: u32,
    /// Phase A (towards `inter`) still under way.
    pub phase_a: bool,
    /// Phase A ends on arrival in the group of `inter` (lg-, -g-).
    pub group_only: bool,
    /// The route leaves the minimal path (statistics; [`super::valiant::leaves_minimal_path`]).
    pub nonminimal: bool,
    /// Template position of the last router-to-router hop (`u8::MAX`: none yet).
    pub pos: u8,
    /// Mesh/torus: dimension of the last hop (`u8::MAX`: none in this phase).
    pub dim: u8,
    /// Torus: the packet crossed the dateline of dimension `dim`.
    pub crossed: bool,
    /// ACOR level the packet is routed with (Dragonfly spec §3.7; 0: none): set by the model
    /// before the decision (the router's level, ACOR-Switch) or kept across re-routings (the
    /// packet's own, ACOR-Packet). LIAN (spec §3.10.4, A16) keeps 1 + the index of its
    /// first phase-A policy here, across re-routings.
    pub level: u8,
}

impl RouteState {
    /// The router a packet at router `r` heads for (Valiant, spec §3.2): R_ROOT while phase A
    /// lasts, `dst` after. Phase A ends at `r` when the policy's end condition holds there: the
    /// intermediate's group reached (lg-, -g-; `same_group(r, R_ROOT)`) or R_ROOT itself (lgl,
    /// -gl). Before it ends, `r` ≠ R_ROOT, so a minimal hop towards the target exists.
    #[inline(always)]
    pub fn target(&mut self, r: u32, dst: u32, same_group: impl Fn(u32, u32) -> bool) -> u32 {
        if self.phase_a {
            let reached = if self.group_only {
                same_group(r, self.inter)
            } else {
                r == self.inter
            };
            if !reached {
                return self.inter;
            }
            self.phase_a = false;
        }
        dst
    }

    /// Sends the packet through intermediate router `inter` (Valiant phase A first, ending in
    /// the intermediate's group when `group_only`); `nonminimal`: the route leaves the minimal
    /// path.
    pub fn set_valiant(&mut self, inter: u32, group_only: bool, nonminimal: bool) {
        self.inter = inter;
        self.group_only = group_only;
        self.phase_a = true;
        self.nonminimal = nonminimal;
    }
}

impl Default for RouteState {
    fn default() -> Self {
        RouteState {
            inter: NO_ROUTER,
            phase_a: false,
            group_only: false,
            nonminimal: false,
            pos: u8::MAX,
            dim: u8::MAX,
            crossed: false,
            level: 0,
        }
    }
}

/// A proposed next hop: output `port` and the VCs `vc_lo..=vc_hi` the packet may take there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    /// Output port of the current router.
    pub port: u16,
    /// Lowest allowed VC.
    pub vc_lo: u8,
    /// Highest allowed VC.
    pub vc_hi: u8,
}

/// Congestion information an adaptive decision may read (spec §2.6, §3.6).
pub trait Occupancy {
    /// Q(port, vc) of router `r` in phits: its output buffer plus the downstream buffer
    /// occupancy (max credits − credits).
    fn q(&self, r: u32, port: u32, vc: u8) -> u64;
    /// The Piggyback congestion bits of router `r`'s global ports as router `reader` sees them.
    fn pb_bits(&self, reader: u32, r: u32) -> u64;
    /// The routers' per-group traffic counters (TPR, LIAN: spec §3.9, §3.10.1), up to date
    /// for the deciding router; `None` when the algorithm keeps none.
    fn counters(&self) -> Option<&super::group_counters::GroupCounters> {
        None
    }
    /// The injection port (0 … p − 1) the deciding packet entered its router by (MAR-bP's and
    /// QCN-Switch's alternative rules match on it, spec §3.11, §3.12.2).
    fn source_port(&self) -> u32 {
        0
    }
    /// Is output `port`, VC `vc` of router `r` paused (MAR-bP, spec §3.11)? The flow control's
    /// signal: under credits the emulation of spec §2.3 (no room for a whole packet
    /// downstream or in the local output buffer), under PFC a received PAUSE.
    fn paused(&self, r: u32, port: u32, vc: u8) -> bool {
        let _ = (r, port, vc);
        false
    }
    /// QCN-Switch's minimal probability of transit port `port` of router `r`, in percent
    /// (spec §3.12.2; 100 without QCN-Switch).
    fn min_probability(&self, r: u32, port: u32) -> f64 {
        let _ = (r, port);
        100.0
    }
}

/// Why a routing cannot give a next hop (a routing bug or a broken topology).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouteError {
    /// The path is longer than the VC template.
    TemplateOverflow {
        /// Router of the hop.
        r: u32,
        /// Destination router.
        dst: u32,
        /// Class of the hop.
        class: HopClass,
    },
    /// A mesh/torus router lacks the link a dimension-order hop needs.
    NoLink {
        /// Router of the hop.
        r: u32,
        /// Dimension.
        d: u32,
    },
}

impl std::fmt::Display for RouteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            RouteError::TemplateOverflow { r, dst, class } => write!(
                f,
                "path longer than the VC template at router {r} (towards {dst}, {class:?} hop)"
            ),
            RouteError::NoLink { r, d } => write!(f, "router {r} has no link in dimension {d}"),
        }
    }
}
