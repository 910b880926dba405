//! Where the terminals (HCAs) sit, as the destination patterns see it: the one view of a
//! topology's structure that every pattern of both wings is defined on (Dragonfly spec §1.1,
//! §4.2; meshes and tori as `topology::mesh_torus` numbers them; anything else by node index).
//!
//! Terminal numbering is the fabric's HCA order (`Fabric::hcas`, LID − 1): on a Dragonfly
//! terminal `t` sits on router `t / p`, router `r = g·a + i`; on a mesh or torus terminal
//! `router · n + k` is the k-th of the `n` terminals of router `Σ coords[d] · Π dims[e<d]`
//! (dimension 0 = x); elsewhere (fat trees, edge lists, test beds) terminals are just indices.

use crate::config::Pattern;
use crate::error::{Error, Result};
use crate::topology::dragonfly::DragonflyShape;
use crate::topology::{Fabric, Shape};

/// The structure the destination patterns are defined on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Geometry {
    /// A canonical Dragonfly: terminal `t` on router `t / p`, router `r = g·a + i` (spec §1.1).
    Dragonfly(DragonflyShape),
    /// A mesh or torus: `dims` routers per dimension, x first (as `Shape::MeshTorus` stores them),
    /// `per_router` terminals per router (terminal = router index · per_router + k).
    MeshTorus {
        /// Routers per dimension, dimension 0 (x) first.
        dims: Vec<u32>,
        /// Wrap-around links present (patterns are defined mod k either way).
        torus: bool,
        /// Terminals per router.
        per_router: u32,
    },
    /// No structure the patterns use (fat trees, edge-list files, test beds): `terminals`
    /// nodes by index.
    Flat {
        /// Number of terminals.
        terminals: u32,
    },
}

/// Steady patterns on a Dragonfly (Dragonfly spec §4.2).
const DRAGONFLY: &[Pattern] = &[
    Pattern::Uniform,
    Pattern::Adv,
    Pattern::Advl,
    Pattern::Advc,
    Pattern::Hotspot,
];
/// Steady patterns on a mesh or torus.
const MESH_TORUS: &[Pattern] = &[
    Pattern::Uniform,
    Pattern::Transpose,
    Pattern::BitComplement,
    Pattern::BitReversal,
    Pattern::Shuffle,
    Pattern::Tornado,
    Pattern::Neighbour,
    Pattern::Hotspot,
];
/// Steady patterns without structure: the bit permutations act on the terminal index.
const FLAT: &[Pattern] = &[
    Pattern::Uniform,
    Pattern::BitComplement,
    Pattern::BitReversal,
    Pattern::Shuffle,
    Pattern::Hotspot,
];

impl Geometry {
    /// The geometry of a built fabric: its [`Shape`], with the terminals per router of a mesh
    /// or torus counted (every switch of those builders has the same number of HCAs).
    pub fn of(fabric: &Fabric) -> Result<Self> {
        Ok(match &fabric.shape {
            Shape::Dragonfly(d) => Geometry::Dragonfly(*d),
            Shape::MeshTorus { dims, torus, .. } => {
                let (h, s) = (fabric.hcas.len(), fabric.switches.len());
                if s == 0 || h % s != 0 {
                    return Err(Error::Internal(format!(
                        "mesh/torus with {h} HCAs on {s} switches: not the same number per switch"
                    )));
                }
                Geometry::MeshTorus {
                    dims: dims.clone(),
                    torus: *torus,
                    per_router: (h / s) as u32,
                }
            }
            Shape::FatTree { .. } | Shape::Generic => Geometry::Flat {
                terminals: fabric.hcas.len() as u32,
            },
        })
    }

    /// The steady patterns defined on this geometry, in the order of [`Pattern::ALL`].
    pub fn patterns(&self) -> &'static [Pattern] {
        match self {
            Geometry::Dragonfly(_) => DRAGONFLY,
            Geometry::MeshTorus { .. } => MESH_TORUS,
            Geometry::Flat { .. } => FLAT,
        }
    }

    /// What the geometry is called in an error ("this Dragonfly", "this mesh/torus", …).
    pub fn what(&self) -> &'static str {
        match self {
            Geometry::Dragonfly(_) => "this Dragonfly",
            Geometry::MeshTorus { .. } => "this mesh/torus",
            Geometry::Flat { .. } => "this topology (no mesh, torus or Dragonfly structure)",
        }
    }

    /// Why `p` (a steady pattern not in [`Self::patterns`]) does not apply here.
    pub fn not_here(&self, p: Pattern) -> String {
        if DRAGONFLY.contains(&p) && !MESH_TORUS.contains(&p) {
            format!("\"{}\" applies only to Dragonfly topologies", p.name())
        } else if FLAT.contains(&p) {
            format!(
                "\"{}\" applies only to meshes, tori and topologies numbered by index (fat trees, files)",
                p.name()
            )
        } else if MESH_TORUS.contains(&p) {
            format!("\"{}\" applies only to meshes and tori", p.name())
        } else {
            format!("\"{}\" is not a steady pattern", p.name())
        }
    }

    /// Checks the shape and returns the number of terminals; errors name `topology`.
    pub fn terminals(&self) -> Result<u32> {
        let n: u64 = match self {
            Geometry::Dragonfly(s) => {
                if s.p == 0 || s.a < 2 || s.h == 0 || s.groups < 2 || s.h >= s.groups {
                    return Err(Error::input(
                        "topology",
                        format!(
                            "unusable Dragonfly shape p={}, a={}, h={}, G={}",
                            s.p, s.a, s.h, s.groups
                        ),
                    ));
                }
                s.groups as u64 * s.a as u64 * s.p as u64
            }
            Geometry::MeshTorus {
                dims, per_router, ..
            } => {
                if dims.is_empty() || dims.contains(&0) || *per_router == 0 {
                    return Err(Error::input(
                        "topology",
                        format!("unusable mesh/torus shape dims {dims:?}, {per_router} terminals per router"),
                    ));
                }
                dims.iter().map(|&d| d as u64).product::<u64>() * *per_router as u64
            }
            Geometry::Flat { terminals } => *terminals as u64,
        };
        if n > u32::MAX as u64 {
            return Err(Error::input("topology", "too many terminals"));
        }
        Ok(n as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_steady_pattern_has_a_home_and_mix_transient_none() {
        for &p in Pattern::ALL {
            let homes = [DRAGONFLY, MESH_TORUS, FLAT]
                .iter()
                .filter(|l| l.contains(&p))
                .count();
            match p {
                // a job permutation is over a generator's sources, on any geometry
                Pattern::Mix | Pattern::Transient | Pattern::Shift | Pattern::RandomPermutation => {
                    assert_eq!(homes, 0)
                }
                _ => assert!(homes > 0, "{} is defined nowhere", p.name()),
            }
        }
        // the flat patterns are those defined on every geometry or on indices alone
        for p in FLAT {
            assert!(MESH_TORUS.contains(p));
        }
    }

    #[test]
    fn shapes_are_checked() {
        let g = Geometry::MeshTorus {
            dims: vec![4, 0],
            torus: false,
            per_router: 1,
        };
        assert!(g
            .terminals()
            .unwrap_err()
            .to_string()
            .starts_with("topology:"));
        let g = Geometry::MeshTorus {
            dims: vec![4, 3],
            torus: false,
            per_router: 2,
        };
        assert_eq!(g.terminals().unwrap(), 24);
        assert_eq!(Geometry::Flat { terminals: 7 }.terminals().unwrap(), 7);
    }
}
