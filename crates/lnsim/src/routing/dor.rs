//! Dimension-order routing (DOR) on meshes and tori, the one rule both wings route by (spec
//! §3.6: "first in x-direction to the correct column and then in y-direction"; 3D: x, y, z):
//! [`Grid`] is a mesh or torus as the topology builder describes it, and [`Grid::step`] the DOR
//! rule — correct the lowest dimension that differs; in a mesh towards the destination, in a
//! torus the shorter way round, ties towards plus. The credit-level wing's DOR forwarding
//! tables (`credit/routing/dor_tables.rs`) and the cycle-level wing's mesh/torus paths
//! (`cycle/routing/mesh_paths.rs`) both route by it.
//!
//! Dimensions are those of [`Shape::MeshTorus`]: dimension 0 = x = the last name subscript (the
//! column in 2D), then dimension 1, … (see [`crate::topology::mesh_torus`]).

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
