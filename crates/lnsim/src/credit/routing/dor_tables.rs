//! Dimension-order routing (DOR) forwarding tables for meshes and tori in the credit-level wing
//! (spec §3.6: "first in x-direction to the correct column and then in y-direction"; 3D: x, y,
//! z), by the one DOR rule of [`crate::routing::dor::Grid::step`].
//!
//! A packet corrects the lowest dimension whose coordinate differs from the destination
//! switch's. In a mesh it moves towards the destination; in a torus it takes the shorter way
//! round, ties (distance exactly half the ring) towards plus. At the destination switch the
//! output is the HCA's port. The result reproduces Z-Tab 3.4 with the `"zeru"` port numbering.
//!
//! Note: in a torus, DOR alone is not deadlock-free (cyclic channel dependencies in each ring);
//! the tables are the same as the spec's, deadlock avoidance would need VLs (datelines; DRB's
//! multipath routes put the rings' paths on VL layers instead). The cycle-level wing's torus
//! paths use dateline VC classes.

use super::ForwardingTables;
use crate::error::{Error, Result};
use crate::routing::dor::Grid;
use crate::topology::{Fabric, NodeKind};

/// Builds DOR forwarding tables for a fabric with [`crate::topology::Shape::MeshTorus`] (spec
/// §3.6).
pub fn build(fabric: &Fabric) -> Result<ForwardingTables> {
    let Some(grid) = Grid::of(fabric)? else {
        return Err(Error::Internal(
            "dor::build needs a mesh or torus fabric".into(),
        ));
    };
    let mut tables = ForwardingTables::empty(fabric);
    // destination switch (its index), its coordinates and the HCA's port, per LID
    let mut dest = Vec::with_capacity(fabric.hcas.len());
    for &h in &fabric.hcas {
        let hn = &fabric.nodes[h as usize];
        let p = hn
            .ports
            .first()
            .ok_or_else(|| Error::Internal(format!("dor: HCA {} has no link", hn.name)))?;
        let sw = &fabric.nodes[p.peer as usize];
        if sw.kind != NodeKind::Switch || sw.coords.len() != grid.dims.len() {
            return Err(Error::Internal(format!(
                "dor: HCA {} is not attached to a mesh switch",
                hn.name
            )));
        }
        dest.push((p.peer, &sw.coords, p.peer_port));
    }
    for (si, &sw) in fabric.switches.iter().enumerate() {
        let here = grid.coords(si as u32);
        for (i, &(dsw, there, hport)) in dest.iter().enumerate() {
            let port = if dsw == sw {
                hport
            } else {
                let (d, plus) = grid.step(here, there).ok_or_else(|| {
                    Error::Internal("dor: two switches with the same coordinates".into())
                })?;
                grid.port(si as u32, d, plus).ok_or_else(|| {
                    Error::Internal(format!(
                        "dor: switch {} has no link in dimension {d}",
                        fabric.nodes[sw as usize].name
                    ))
                })?
            };
            tables.set(sw, i as u32 + 1, port);
        }
    }
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TopologyKind;
    use crate::topology::mesh_torus::tests::mesh;
    use crate::topology::Shape;

    /// Z-Tab 3.4 as printed (3×3 mesh, n = 2): 255 + the entries for LIDs 1..17.
    const Z_TAB_3_4: [&str; 9] = [
        "11: 255 0 1 3 3 3 3 2 2 3 3 3 2 2 3 3 3 3",
        "12: 255 2 2 0 1 3 3 2 2 4 4 3 3 2 2 4 4 3",
        "13: 255 2 2 2 2 0 1 2 2 2 2 3 3 2 2 2 2 3",
        "21: 255 2 2 3 3 3 3 0 1 3 3 3 3 4 4 3 3 3",
        "22: 255 2 2 4 4 3 3 2 2 0 1 3 3 2 2 5 5 3",
        "23: 255 2 2 2 2 3 3 2 2 2 2 0 1 2 2 2 2 4",
        "31: 255 2 2 3 3 3 3 2 2 3 3 3 3 0 1 3 3 3",
        "32: 255 2 2 4 4 3 3 2 2 4 4 3 3 2 2 0 1 3",
        "33: 255 2 2 2 2 3 3 2 2 2 2 3 3 2 2 2 2 0",
    ];
    /// The spec's derived LID-18 column (cut off in print).
    const LID18: [(&str, u16); 9] = [
        ("SW11", 3),
        ("SW12", 3),
        ("SW13", 3),
        ("SW21", 3),
        ("SW22", 3),
        ("SW23", 4),
        ("SW31", 3),
        ("SW32", 3),
        ("SW33", 1),
    ];

    #[test]
    fn reproduces_z_tab_3_4() {
        let f = mesh(TopologyKind::Mesh, &[3, 3], 2, None);
        let t = build(&f).unwrap();
        for line in Z_TAB_3_4 {
            let (name, vals) = line.split_once(':').unwrap();
            let vals: Vec<u16> = vals
                .split_whitespace()
                .map(|v| v.parse().unwrap())
                .collect();
            assert_eq!(vals[0], 255);
            let sw = f.by_name[&format!("SW{name}")];
            let row: Vec<u16> = (1..=18).map(|l| t.out_port(sw, l)).collect();
            if name == "11" {
                // print glitch (spec §3.6): one of the four 3s for LIDs 9–12 is missing
                assert_eq!(row, [0, 1, 3, 3, 3, 3, 2, 2, 3, 3, 3, 3, 2, 2, 3, 3, 3, 3]);
                let mut glitch = row.clone();
                glitch.remove(8);
                assert_eq!(glitch, vals[1..]);
            } else {
                assert_eq!(row[..17], vals[1..], "row {name}");
            }
        }
        for (sw, p) in LID18 {
            assert_eq!(t.out_port(f.by_name[sw], 18), p, "{sw} LID 18");
        }
    }

    fn path(f: &Fabric, t: &ForwardingTables, src: &str, dst: &str) -> Vec<String> {
        let hops = t.route(f, f.by_name[src], f.by_name[dst]).unwrap();
        hops.iter()
            .map(|&(s, _)| f.nodes[s as usize].name.clone())
            .collect()
    }

    #[test]
    fn b1_flow_goes_x_first() {
        let f = mesh(TopologyKind::Mesh, &[5, 5], 2, None);
        let t = build(&f).unwrap();
        assert_eq!(path(&f, &t, "H431", "H542"), ["SW43", "SW44", "SW54"]);
        // spec §5.3: H112 → H221 via SW11 → SW12 → SW22
        let f = mesh(TopologyKind::Mesh, &[3, 3], 2, None);
        let t = build(&f).unwrap();
        assert_eq!(path(&f, &t, "H112", "H221"), ["SW11", "SW12", "SW22"]);
    }

    #[test]
    fn all_pairs_minimal_in_meshes_and_tori() {
        for (kind, dims, k) in [
            (TopologyKind::Mesh, vec![3, 4], 1),
            (TopologyKind::Mesh, vec![3, 3, 3], 1),
            (TopologyKind::Mesh, vec![5], 2),
            (TopologyKind::Torus, vec![4, 5], 1),
            (TopologyKind::Torus, vec![2, 3, 1], 1),
        ] {
            let f = mesh(kind, &dims, k, None);
            let t = build(&f).unwrap();
            let Shape::MeshTorus { dims, torus, .. } = &f.shape else {
                panic!()
            };
            for &a in &f.hcas {
                for &b in &f.hcas {
                    let hops = t.route(&f, a, b).unwrap();
                    let (ca, cb) = (&f.nodes[a as usize].coords, &f.nodes[b as usize].coords);
                    let dist: u32 = (0..dims.len())
                        .map(|d| {
                            let diff = ca[d].abs_diff(cb[d]);
                            if *torus {
                                diff.min(dims[d] - diff)
                            } else {
                                diff
                            }
                        })
                        .sum();
                    assert_eq!(hops.len() as u32, dist + 1);
                    // dimension order: the dimension changed by each hop never decreases
                    let mut last = 0;
                    for w in hops.windows(2) {
                        let (x, y) = (
                            &f.nodes[w[0].0 as usize].coords,
                            &f.nodes[w[1].0 as usize].coords,
                        );
                        let d = (0..x.len()).find(|&d| x[d] != y[d]).unwrap();
                        assert!(d >= last);
                        last = d;
                    }
                }
            }
        }
    }

    #[test]
    fn torus_ties_go_plus() {
        let f = mesh(TopologyKind::Torus, &[1, 4], 1, None);
        let t = build(&f).unwrap();
        // SW11 → SW13: distance 2 both ways, plus first
        assert_eq!(path(&f, &t, "H111", "H131"), ["SW11", "SW12", "SW13"]);
        assert_eq!(path(&f, &t, "H111", "H141"), ["SW11", "SW14"]);
    }

    #[test]
    fn rejects_other_shapes() {
        let mut f = mesh(TopologyKind::Mesh, &[2, 2], 1, None);
        f.shape = Shape::Generic;
        assert!(build(&f).is_err());
    }
}
