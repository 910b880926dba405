//! The paths of a mesh or torus in the cycle-level model ([`MeshPaths`]): dimension-order by
//! the one DOR rule of [`crate::routing::dor::Grid::step`], each hop on the VC class of its
//! routing phase and, on a torus, its dateline class.

use super::candidates::{Candidate, RouteError, RouteState, NO_ROUTER};
use crate::routing::dor::Grid;

/// The paths of a mesh or torus in the cycle-level model: dimension-order towards the router
/// the header names (a Valiant intermediate first, then the destination), each hop on the VC
/// class of its routing phase and, on a torus, its dateline class (the class after the packet
/// crosses the wrap link of the dimension it travels).
#[derive(Debug, Clone)]
pub struct MeshPaths {
    /// The geometry.
    pub grid: Grid,
    /// Torus: dateline VC classes.
    pub dateline: bool,
    /// Routing phases, each on its own VC classes (DOR 1, Valiant 2).
    pub phases: u8,
    /// VCs per transit port.
    pub local_vcs: u8,
    /// VC classes (phases × dateline classes); each is `local_vcs / classes` consecutive VCs.
    pub classes: u8,
    /// Mesh DOR: the output port of router `r` towards router `t` at `[r · routers + t]`
    /// (`u16::MAX` when `r == t`), precomputed for meshes of up to 4,096 routers
    /// ([`MeshPaths::tabulate`]); empty otherwise (and for tori, whose VC class depends on the
    /// packet's dateline state).
    pub dor_table: Vec<u16>,
}

impl MeshPaths {
    /// Fills [`MeshPaths::dor_table`] from the hop-by-hop DOR rule (meshes only; the caller
    /// asks for it when the routing is plain DOR, whose header never changes).
    pub fn tabulate(&mut self) {
        let g = &self.grid;
        let n = g.switches() as usize;
        if g.torus || n > 4096 {
            return;
        }
        let mut t = vec![u16::MAX; n * n];
        for r in 0..n {
            for d in 0..n {
                if let Some((k, plus)) = g.step(g.coords(r as u32), g.coords(d as u32)) {
                    t[r * n + d] = g.port(r as u32, k, plus).unwrap_or(u16::MAX);
                }
            }
        }
        self.dor_table = t;
    }

    /// [`super::algorithm::Paths::follow`] on a mesh or torus.
    #[inline]
    pub fn follow(
        &self,
        r: u32,
        dst: u32,
        st: &mut RouteState,
    ) -> std::result::Result<Option<Candidate>, RouteError> {
        if !self.dor_table.is_empty() {
            // mesh DOR: one VC class, the port from the table
            let port = self.dor_table[r as usize * self.grid.switches() as usize + dst as usize];
            return Ok((port != u16::MAX).then_some(Candidate {
                port,
                vc_lo: 0,
                vc_hi: self.local_vcs - 1,
            }));
        }
        self.follow_by_coordinates(r, dst, st)
    }

    /// [`MeshPaths::follow`] without a DOR table (tori, mesh Valiant).
    #[inline(never)]
    fn follow_by_coordinates(
        &self,
        r: u32,
        dst: u32,
        st: &mut RouteState,
    ) -> std::result::Result<Option<Candidate>, RouteError> {
        let g = &self.grid;
        if st.phase_a && r == st.inter {
            st.phase_a = false;
            st.dim = u8::MAX;
            st.crossed = false;
        }
        let target = if st.phase_a { st.inter } else { dst };
        let here = g.coords(r);
        let Some((d, plus)) = g.step(here, g.coords(target)) else {
            return Ok(None);
        };
        let n = g.dims[d];
        let Some(port) = g.port(r, d, plus) else {
            return Err(RouteError::NoLink { r, d: d as u32 });
        };
        if st.dim != d as u8 {
            st.dim = d as u8;
            st.crossed = false;
        }
        let wrap = g.torus && if plus { here[d] == n - 1 } else { here[d] == 0 };
        let dl_classes: u8 = if g.torus && self.dateline { 2 } else { 1 };
        let dl = if dl_classes == 2 && (st.crossed || wrap) {
            1
        } else {
            0
        };
        if wrap {
            st.crossed = true;
        }
        let phase = if self.phases == 2 && !st.phase_a && st.inter != NO_ROUTER {
            1
        } else {
            0
        };
        let class = phase * dl_classes + dl;
        let per = self.local_vcs / self.classes;
        Ok(Some(Candidate {
            port,
            vc_lo: class * per,
            vc_hi: class * per + per - 1,
        }))
    }
}
