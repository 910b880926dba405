//! The mesh/torus geometry and its dimension-order paths, written once: [`Grid`] is a mesh or
//! torus as the topology builder describes it, with the DOR rule ([`Grid::step`]: correct the
//! lowest dimension that differs; in a mesh towards the destination, in a torus the shorter
//! way round, ties towards plus — spec §3.6); the InfiniBand model's DOR forwarding tables
//! ([`super::dor::build`]) and the cycle-level model's mesh/torus paths ([`MeshPaths`]) both
//! route by it.
//!
//! Dimensions are those of [`Shape::MeshTorus`]: dimension 0 = x = the last name subscript (the
//! column in 2D), then dimension 1, … (see [`crate::topology::mesh_torus`]).

use super::candidates::{Candidate, RouteError, RouteState, NO_ROUTER};
use crate::error::{Error, Result};
use crate::topology::{Fabric, Shape};

/// A mesh or torus as its topology builder describes it ([`Shape::MeshTorus`]: sizes, wrap
/// links, the neighbour ports of every switch) with its switches' coordinates
/// ([`crate::topology::Node::coords`]): the geometry DOR works on.
#[derive(Debug, Clone)]
pub struct Grid {
    /// Switches per dimension, x first.
    pub dims: Vec<u32>,
    /// Wrap-around links.
    pub torus: bool,
    /// Per switch (index in [`Fabric::switches`]) and dimension: the port to the lower
    /// neighbour (`None`: no link).
    pub minus_port: Vec<Vec<Option<u16>>>,
    /// Per switch and dimension: the port to the higher neighbour.
    pub plus_port: Vec<Vec<Option<u16>>>,
    /// Coordinates of every switch, `dims.len()` of them per switch.
    coords: Vec<u32>,
    /// Switches.
    switches: u32,
}

impl Grid {
    /// The geometry of a mesh or torus fabric (`None` for another shape); errors when a switch
    /// lacks coordinates.
    pub fn of(fabric: &Fabric) -> Result<Option<Grid>> {
        let Shape::MeshTorus {
            dims,
            torus,
            minus_port,
            plus_port,
        } = &fabric.shape
        else {
            return Ok(None);
        };
        let mut coords = Vec::with_capacity(fabric.switches.len() * dims.len());
        for &sw in &fabric.switches {
            let c = &fabric.nodes[sw as usize].coords;
            if c.len() != dims.len() {
                return Err(Error::Internal(format!(
                    "dor: switch {} has no mesh coordinates",
                    fabric.nodes[sw as usize].name
                )));
            }
            coords.extend_from_slice(c);
        }
        Ok(Some(Grid {
            dims: dims.clone(),
            torus: *torus,
            minus_port: minus_port.clone(),
            plus_port: plus_port.clone(),
            coords,
            switches: fabric.switches.len() as u32,
        }))
    }

    /// Number of switches.
    #[inline]
    pub fn switches(&self) -> u32 {
        self.switches
    }

    /// Coordinates of switch `sw` (dimension 0 first).
    #[inline]
    pub fn coords(&self, sw: u32) -> &[u32] {
        let n = self.dims.len();
        &self.coords[sw as usize * n..sw as usize * n + n]
    }

    /// DOR's step from a switch at `here` towards one at `there`: the lowest dimension whose
    /// coordinates differ and the direction (true: plus) — towards it in a mesh, the shorter
    /// way round in a torus (ties plus); `None` when they are the same switch.
    #[inline]
    pub fn step(&self, here: &[u32], there: &[u32]) -> Option<(usize, bool)> {
        let d = (0..self.dims.len()).find(|&d| here[d] != there[d])?;
        let plus = if self.torus {
            let n = self.dims[d];
            let fwd = (there[d] + n - here[d]) % n;
            fwd <= n - fwd
        } else {
            there[d] > here[d]
        };
        Some((d, plus))
    }

    /// The port of switch `sw` towards its neighbour in dimension `d` (plus or minus).
    #[inline]
    pub fn port(&self, sw: u32, d: usize, plus: bool) -> Option<u16> {
        if plus {
            self.plus_port[sw as usize][d]
        } else {
            self.minus_port[sw as usize][d]
        }
    }

    /// DOR hop count between switches `a` and `b`.
    pub fn hops(&self, a: u32, b: u32) -> u32 {
        let (x, y) = (self.coords(a), self.coords(b));
        (0..self.dims.len())
            .map(|d| {
                let diff = x[d].abs_diff(y[d]);
                if self.torus {
                    diff.min(self.dims[d] - diff)
                } else {
                    diff
                }
            })
            .sum()
    }
}

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
