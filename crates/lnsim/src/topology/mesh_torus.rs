//! n-dimensional meshes and tori (spec §3.6, §4.3–§4.5).
//!
//! # Sizes, names and LIDs
//! `topology.dims` gives the switches per *subscript* of the spec's names, first subscript
//! slowest: `dims = [5, 5]` is 5 rows × 5 columns with switches `SW{r}{c}` (row r, column c,
//! 1-based, `SW11` top left); `[3, 3, 3]` gives `SW{a}{b}{c}`; `[4]` gives `SW1`..`SW4`.
//! HCA k (1-based, `topology.hcas_per_switch` = n of them) of a switch is `H` + the switch's
//! subscripts + k (`H{r}{c}{k}`) and sits on switch port k−1. If any dimension exceeds 9, the
//! subscripts (and k) are joined with `_` so that names stay unambiguous (`SW10_3`, `H10_3_1`).
//! Switches are created in naming order and their HCAs after them in the same order, so LIDs
//! follow the naming order (spec §3.6): `LID(H r c k) = ((r−1)·m + (c−1))·n + k`.
//!
//! # Dimensions and coordinates
//! Routing dimensions are numbered from the *last* subscript: dimension 0 ("x") is the last
//! subscript (in 2D the column, so "x first" moves along the row, as Z-Tab 3.4 requires),
//! dimension 1 the one before (2D: the row), and so on. [`Node::coords`](super::Node) (0-based,
//! HCAs carry their switch's), `Shape::MeshTorus::dims`, `minus_port` and `plus_port` all use
//! this dimension order; `minus` is the lower coordinate (2D: left = column−1, up = row−1).
//! A switch's index in [`Fabric::switches`] is its position in naming order, i.e.
//! `Σ coords[d] · Π_{e<d} dims[e]`.
//!
//! # Port numbering (`topology.port_numbering`)
//! Ports 0..n−1 are the HCAs; the neighbour ports follow, every port connected (spec §3.6).
//! - `"zeru"` (default for a 2D mesh; 2D meshes only): exactly the table of spec §3.6 (left/right
//!   change the column, up = row−1, down = row+1): corner SW11: down, right; top-right: left,
//!   down; bottom-left: up, right; bottom-right: left, up; top edge: left, right, down; bottom
//!   edge: left, right, up; left edge: up, right, down; right edge: left, up, down; interior:
//!   left, right, up, down. A mesh with a single row or column has no such table; it is numbered
//!   left, right, up, down (absent neighbours omitted).
//! - `"dimension"` (default otherwise): for d = 0, 1, …: the minus neighbour, then the plus
//!   neighbour of dimension d, each omitted when absent (mesh border), so the following ports shift
//!   down. In a torus every dimension of size ≥ 2 has both (wrap links); in a dimension of size 2
//!   both are the same switch (two parallel links). Size-1 dimensions have no links.
//!
//! Host links (HCA ↔ switch) use the `[links.host]` parameters, switch ↔ switch links
//! `[links.fabric]`.

use crate::config::{MeshTorusConfig, PortNumbering, TopologyConfig};
use crate::error::{Error, Result};
use crate::topology::{Fabric, LinkClass, LinkParams, NodeKind, Port, Shape};

/// Largest fabric (switches + HCAs) a mesh or torus may have.
const MAX_NODES: u64 = 1_000_000;

/// Port numbering scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Numbering {
    Zeru,
    Dimension,
}

/// One neighbour port: dimension and direction (`true` = plus).
type Slot = (usize, bool);

/// The checked parameters of a mesh or torus: torus or not, `topology.dims`, HCAs per switch and
/// the number of switches (errors name the key; the fabric stays within [`MAX_NODES`]).
fn params(t: &TopologyConfig) -> Result<(bool, &MeshTorusConfig, u64)> {
    let (torus, m) = match t {
        TopologyConfig::Mesh(m) => (false, m),
        TopologyConfig::Torus(m) => (true, m),
        other => {
            return Err(Error::Internal(format!(
                "mesh_torus::build called for kind {}",
                other.kind().name()
            )))
        }
    };
    let subs = &m.dims;
    if subs.is_empty() {
        return Err(Error::input(
            "topology.dims",
            "is empty: give at least one dimension, e.g. [5, 5]",
        ));
    }
    if let Some(i) = subs.iter().position(|&d| d == 0) {
        return Err(Error::input(
            "topology.dims",
            format!("entry {i} is 0; every dimension needs at least 1 switch"),
        ));
    }
    let k = m.hcas_per_switch;
    if k == 0 {
        return Err(Error::input(
            "topology.hcas_per_switch",
            "must be at least 1",
        ));
    }
    let switches = subs
        .iter()
        .try_fold(1u64, |acc, &d| {
            acc.checked_mul(d as u64).filter(|&v| v <= MAX_NODES)
        })
        .and_then(|s| s.checked_mul(1 + k as u64))
        .filter(|&v| v <= MAX_NODES)
        .map(|v| v / (1 + k as u64))
        .ok_or_else(|| {
            Error::input(
                "topology.dims",
                format!("{subs:?} with {k} HCAs per switch exceeds the limit of {MAX_NODES} nodes"),
            )
        })?;
    Ok((torus, m, switches))
}

/// The size of the mesh or torus `t` describes, without building it (for the memory estimate).
pub fn size(t: &TopologyConfig) -> Result<super::FabricSize> {
    let (torus, m, switches) = params(t)?;
    let (subs, k) = (&m.dims, m.hcas_per_switch);
    let mut fabric_ports = 0u64;
    let mut max_links = 0u64;
    for &d in subs {
        let d = d as u64;
        if d < 2 {
            continue;
        }
        if torus {
            fabric_ports += 2 * switches;
            max_links += 2;
        } else {
            fabric_ports += 2 * (switches / d) * (d - 1);
            max_links += if d == 2 { 1 } else { 2 };
        }
    }
    let hcas = switches * k as u64;
    let width = subs
        .iter()
        .map(|d| d.to_string().len() as u64 + 1)
        .sum::<u64>();
    Ok(super::FabricSize {
        switches,
        hcas,
        ports: 2 * hcas + fabric_ports,
        max_ports: k as u64 + max_links,
        name_bytes: width + 2,
        coords: subs.len() as u64,
    })
}

/// Builds a mesh (`kind = "mesh"`) or torus (`kind = "torus"`) from `[topology]` (spec §4.3–§4.5);
/// see the module documentation for names, LIDs, coordinates and port numbering.
pub fn build(t: &TopologyConfig, host: LinkParams, fabric: LinkParams) -> Result<Fabric> {
    let (torus, m, switches) = params(t)?;
    let (subs, k) = (m.dims.clone(), m.hcas_per_switch);
    let nd = subs.len();
    let numbering = match m.port_numbering {
        None if nd == 2 && !torus => Numbering::Zeru,
        None => Numbering::Dimension,
        Some(PortNumbering::Zeru) if torus => {
            return Err(Error::input(
                "topology.port_numbering",
                "\"zeru\" (spec §3.6 table) is defined for 2D meshes only; use \"dimension\" for a torus",
            ))
        }
        Some(PortNumbering::Zeru) if nd != 2 => {
            return Err(Error::input(
                "topology.port_numbering",
                format!("\"zeru\" (spec §3.6 table) is defined for 2D meshes only, not {nd}D; use \"dimension\""),
            ))
        }
        Some(PortNumbering::Zeru) => Numbering::Zeru,
        Some(PortNumbering::Dimension) => Numbering::Dimension,
    };
    // sizes in dimension order (x = last subscript first)
    let size: Vec<u32> = subs.iter().rev().copied().collect();
    let max_links: u64 = size
        .iter()
        .map(|&s| match s {
            1 => 0,
            2 if !torus => 1,
            _ => 2,
        })
        .sum();
    if k as u64 + max_links > u16::MAX as u64 {
        return Err(Error::input(
            "topology.hcas_per_switch",
            format!(
                "{k} HCAs + {max_links} neighbour links exceed the limit of {} ports per switch",
                u16::MAX
            ),
        ));
    }
    let nsw = switches as usize;
    let mut stride = vec![1usize; nd];
    for d in 1..nd {
        stride[d] = stride[d - 1] * size[d - 1] as usize;
    }
    let coords_of = |s: usize| -> Vec<u32> {
        (0..nd)
            .map(|d| ((s / stride[d]) % size[d] as usize) as u32)
            .collect()
    };
    let wide = subs.iter().any(|&d| d > 9);
    let sep = if wide { "_" } else { "" };
    // subscripts of a switch: first subscript = last dimension
    let subscripts = |c: &[u32]| -> String {
        c.iter()
            .rev()
            .map(|&x| (x + 1).to_string())
            .collect::<Vec<_>>()
            .join(sep)
    };

    let mut f = Fabric::new(Shape::Generic);
    for s in 0..nsw {
        let c = coords_of(s);
        f.add_node(format!("SW{}", subscripts(&c)), NodeKind::Switch, c, 0)?;
    }
    for s in 0..nsw {
        let c = coords_of(s);
        let base = subscripts(&c);
        for h in 1..=k {
            let id = f.add_node(format!("H{base}{sep}{h}"), NodeKind::Hca, c.clone(), 0)?;
            f.connect(id, f.switches[s], LinkClass::Host, host);
        }
    }

    let has = |c: &[u32], d: usize, plus: bool| -> bool {
        if torus {
            size[d] >= 2
        } else if plus {
            c[d] + 1 < size[d]
        } else {
            c[d] > 0
        }
    };
    let slots: Vec<Vec<Slot>> = (0..nsw)
        .map(|s| {
            let c = coords_of(s);
            let all: Vec<Slot> = match numbering {
                Numbering::Zeru if size[0] >= 2 && size[1] >= 2 => zeru_slots(&c, &size),
                _ => (0..nd).flat_map(|d| [(d, false), (d, true)]).collect(),
            };
            all.into_iter().filter(|&(d, p)| has(&c, d, p)).collect()
        })
        .collect();
    let mut minus_port = vec![vec![None; nd]; nsw];
    let mut plus_port = vec![vec![None; nd]; nsw];
    for (s, sl) in slots.iter().enumerate() {
        for (j, &(d, plus)) in sl.iter().enumerate() {
            let p = Some((k as usize + j) as u16);
            if plus {
                plus_port[s][d] = p;
            } else {
                minus_port[s][d] = p;
            }
        }
    }
    for (s, sl) in slots.iter().enumerate() {
        let c = coords_of(s);
        for &(d, plus) in sl {
            let n = size[d] as usize;
            let x = c[d] as usize;
            let nx = if plus { (x + 1) % n } else { (x + n - 1) % n };
            let peer = s - x * stride[d] + nx * stride[d];
            let peer_port = if plus {
                minus_port[peer][d]
            } else {
                plus_port[peer][d]
            }
            .ok_or_else(|| {
                Error::Internal(format!("mesh: missing back port at switch {peer} dim {d}"))
            })?;
            let port = Port {
                peer: f.switches[peer],
                peer_port,
                class: LinkClass::Fabric,
                link: fabric,
            };
            let node = f.switches[s] as usize;
            f.nodes[node].ports.push(port);
        }
    }
    f.shape = Shape::MeshTorus {
        dims: size,
        torus,
        minus_port,
        plus_port,
    };
    Ok(f)
}

/// Neighbour order of the spec §3.6 table for a 2D mesh switch at `c` (c[0] = column, c[1] =
/// row, 0-based); needs at least 2 rows and 2 columns.
fn zeru_slots(c: &[u32], size: &[u32]) -> Vec<Slot> {
    const LEFT: Slot = (0, false);
    const RIGHT: Slot = (0, true);
    const UP: Slot = (1, false);
    const DOWN: Slot = (1, true);
    let left_edge = c[0] == 0;
    let right_edge = c[0] + 1 == size[0];
    let top = c[1] == 0;
    let bottom = c[1] + 1 == size[1];
    match (top, bottom, left_edge, right_edge) {
        (true, _, true, _) => vec![DOWN, RIGHT],
        (true, _, _, true) => vec![LEFT, DOWN],
        (_, true, true, _) => vec![UP, RIGHT],
        (_, true, _, true) => vec![LEFT, UP],
        (true, _, _, _) => vec![LEFT, RIGHT, DOWN],
        (_, true, _, _) => vec![LEFT, RIGHT, UP],
        (_, _, true, _) => vec![UP, RIGHT, DOWN],
        (_, _, _, true) => vec![LEFT, UP, DOWN],
        _ => vec![LEFT, RIGHT, UP, DOWN],
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::config::TopologyKind;
    use crate::topology::{LinkRate, NodeId};

    pub(crate) fn link() -> LinkParams {
        LinkParams {
            rate: LinkRate::bps(1_000_000_000),
            delay_ps: 5_000,
            lanes: 4,
        }
    }

    pub(crate) fn cfg(
        kind: TopologyKind,
        dims: &[u32],
        k: u32,
        numbering: Option<&str>,
    ) -> TopologyConfig {
        let m = MeshTorusConfig {
            dims: dims.to_vec(),
            hcas_per_switch: k,
            port_numbering: numbering.map(|n| {
                let i = PortNumbering::NAMES.iter().position(|x| *x == n);
                PortNumbering::ALL[i.expect("a port numbering")]
            }),
        };
        match kind {
            TopologyKind::Mesh => TopologyConfig::Mesh(m),
            TopologyKind::Torus => TopologyConfig::Torus(m),
            other => panic!("not a mesh or torus: {}", other.name()),
        }
    }

    /// The mesh/torus keys of `t`, to change one.
    fn keys(t: &mut TopologyConfig) -> &mut MeshTorusConfig {
        match t {
            TopologyConfig::Mesh(m) | TopologyConfig::Torus(m) => m,
            _ => unreachable!(),
        }
    }

    /// Builds and checks a mesh/torus.
    pub(crate) fn mesh(
        kind: TopologyKind,
        dims: &[u32],
        k: u32,
        numbering: Option<&str>,
    ) -> Fabric {
        let f = build(&cfg(kind, dims, k, numbering), link(), link()).unwrap();
        f.check().unwrap();
        f
    }

    fn id(f: &Fabric, name: &str) -> NodeId {
        f.by_name[name]
    }

    /// Name of the switch behind port `p` of switch `sw`.
    fn peer(f: &Fabric, sw: &str, p: usize) -> String {
        let n = &f.nodes[id(f, sw) as usize];
        f.nodes[n.ports[p].peer as usize].name.clone()
    }

    fn err(t: &TopologyConfig) -> String {
        build(t, link(), link()).unwrap_err().to_string()
    }

    #[test]
    fn lids_follow_naming_order() {
        let f = mesh(TopologyKind::Mesh, &[3, 3], 2, None);
        assert_eq!(f.switches.len(), 9);
        assert_eq!(f.hcas.len(), 18);
        // spec §3.6: LID(H r c k) = ((r−1)·m + (c−1))·n + k
        for r in 1..=3u32 {
            for c in 1..=3u32 {
                for k in 1..=2u32 {
                    let h = &f.nodes[id(&f, &format!("H{r}{c}{k}")) as usize];
                    assert_eq!(h.lid, ((r - 1) * 3 + (c - 1)) * 2 + k);
                    let sw = &f.nodes[h.ports[0].peer as usize];
                    assert_eq!(sw.name, format!("SW{r}{c}"));
                    assert_eq!(h.ports[0].peer_port as u32, k - 1);
                    assert_eq!(h.ports[0].class, LinkClass::Host);
                    assert_eq!(h.coords, vec![c - 1, r - 1]);
                }
            }
        }
        let names: Vec<&str> = f
            .switches
            .iter()
            .map(|&s| f.nodes[s as usize].name.as_str())
            .collect();
        assert_eq!(
            names,
            ["SW11", "SW12", "SW13", "SW21", "SW22", "SW23", "SW31", "SW32", "SW33"]
        );
        assert_eq!(f.nodes[id(&f, "SW23") as usize].coords, vec![2, 1]);
    }

    #[test]
    fn zeru_port_table() {
        // spec §3.6 table, 3×3 mesh, n = 2: ports 2, 3, (4, 5)
        let f = mesh(TopologyKind::Mesh, &[3, 3], 2, None);
        let expect: [(&str, &[&str]); 9] = [
            ("SW11", &["SW21", "SW12"]),                 // down, right
            ("SW13", &["SW12", "SW23"]),                 // left, down
            ("SW31", &["SW21", "SW32"]),                 // up, right
            ("SW33", &["SW32", "SW23"]),                 // left, up
            ("SW12", &["SW11", "SW13", "SW22"]),         // left, right, down
            ("SW32", &["SW31", "SW33", "SW22"]),         // left, right, up
            ("SW21", &["SW11", "SW22", "SW31"]),         // up, right, down
            ("SW23", &["SW22", "SW13", "SW33"]),         // left, up, down
            ("SW22", &["SW21", "SW23", "SW12", "SW32"]), // left, right, up, down
        ];
        for (sw, peers) in expect {
            let n = &f.nodes[id(&f, sw) as usize];
            assert_eq!(n.ports.len(), 2 + peers.len(), "{sw}");
            for (j, p) in peers.iter().enumerate() {
                assert_eq!(peer(&f, sw, 2 + j), *p, "{sw} port {}", 2 + j);
                assert_eq!(n.ports[2 + j].class, LinkClass::Fabric);
            }
        }
        let Shape::MeshTorus {
            dims,
            torus,
            minus_port,
            plus_port,
        } = &f.shape
        else {
            panic!()
        };
        assert_eq!(dims, &vec![3, 3]);
        assert!(!torus);
        // SW11 (index 0): no left/up; right = 3, down = 2
        assert_eq!(minus_port[0], vec![None, None]);
        assert_eq!(plus_port[0], vec![Some(3), Some(2)]);
        // SW22 (index 4): left 2, right 3, up 4, down 5
        assert_eq!(minus_port[4], vec![Some(2), Some(4)]);
        assert_eq!(plus_port[4], vec![Some(3), Some(5)]);
    }

    #[test]
    fn dimension_numbering_mesh_and_port_counts() {
        let f = mesh(TopologyKind::Mesh, &[3, 3], 2, Some("dimension"));
        // left edge SW21: (no left) right, up, down
        assert_eq!(peer(&f, "SW21", 2), "SW22");
        assert_eq!(peer(&f, "SW21", 3), "SW11");
        assert_eq!(peer(&f, "SW21", 4), "SW31");
        // 3D mesh port counts (spec §3.6): corner n+3, edge n+4, face n+5, inner n+6
        let f = mesh(TopologyKind::Mesh, &[3, 3, 3], 2, None);
        assert_eq!(f.switches.len(), 27);
        assert_eq!(f.hcas.len(), 54);
        for (sw, ports) in [
            ("SW111", 5),
            ("SW112", 6),
            ("SW122", 7),
            ("SW222", 8),
            ("SW333", 5),
        ] {
            assert_eq!(f.nodes[id(&f, sw) as usize].ports.len(), ports, "{sw}");
        }
        // inner switch: x = last subscript
        assert_eq!(peer(&f, "SW222", 2), "SW221");
        assert_eq!(peer(&f, "SW222", 3), "SW223");
        assert_eq!(peer(&f, "SW222", 4), "SW212");
        assert_eq!(peer(&f, "SW222", 5), "SW232");
        assert_eq!(peer(&f, "SW222", 6), "SW122");
        assert_eq!(peer(&f, "SW222", 7), "SW322");
        // LID(H a b c k) = (((a−1)·3 + (b−1))·3 + (c−1))·n + k = (3 + 2)·3·2 + 1
        assert_eq!(f.nodes[id(&f, "H2311") as usize].lid, 31);
        assert_eq!(f.nodes[id(&f, "SW231") as usize].coords, vec![0, 2, 1]);
        // 1D
        let f = mesh(TopologyKind::Mesh, &[4], 1, None);
        assert_eq!(peer(&f, "SW1", 1), "SW2");
        assert_eq!(peer(&f, "SW2", 1), "SW1");
        assert_eq!(peer(&f, "SW2", 2), "SW3");
        assert_eq!(f.nodes[id(&f, "H41") as usize].lid, 4);
    }

    #[test]
    fn torus_wraps() {
        let f = mesh(TopologyKind::Torus, &[3, 3], 2, None);
        for &s in &f.switches {
            assert_eq!(f.nodes[s as usize].ports.len(), 6);
        }
        // SW11: left = SW13, right = SW12, up = SW31, down = SW21
        assert_eq!(peer(&f, "SW11", 2), "SW13");
        assert_eq!(peer(&f, "SW11", 3), "SW12");
        assert_eq!(peer(&f, "SW11", 4), "SW31");
        assert_eq!(peer(&f, "SW11", 5), "SW21");
        // size 2 and size 1 dimensions
        let f = mesh(TopologyKind::Torus, &[1, 2], 1, None);
        assert_eq!(peer(&f, "SW11", 1), "SW12");
        assert_eq!(peer(&f, "SW11", 2), "SW12");
        assert_eq!(f.nodes[id(&f, "SW11") as usize].ports.len(), 3);
        let Shape::MeshTorus {
            dims,
            torus,
            minus_port,
            plus_port,
        } = &f.shape
        else {
            panic!()
        };
        assert_eq!((dims.clone(), *torus), (vec![2, 1], true));
        assert_eq!(
            (minus_port[0].clone(), plus_port[0].clone()),
            (vec![Some(1), None], vec![Some(2), None])
        );
    }

    #[test]
    fn wide_names() {
        let f = mesh(TopologyKind::Mesh, &[10, 3], 1, None);
        assert!(f.by_name.contains_key("SW10_3"));
        assert!(f.by_name.contains_key("SW1_1"));
        assert_eq!(f.nodes[id(&f, "H10_3_1") as usize].lid, 30);
        // k > 9 is unambiguous with single-digit subscripts
        let f = mesh(TopologyKind::Mesh, &[2, 2], 12, None);
        assert_eq!(f.nodes[id(&f, "H2212") as usize].lid, 48);
    }

    #[test]
    fn input_errors() {
        let mut t = cfg(TopologyKind::Mesh, &[3, 3], 2, None);
        keys(&mut t).dims = vec![];
        assert!(err(&t).starts_with("topology.dims:"));
        keys(&mut t).dims = vec![3, 0];
        assert!(
            err(&t).starts_with("topology.dims: entry 1 is 0"),
            "{}",
            err(&t)
        );
        keys(&mut t).dims = vec![1000, 1000, 1000];
        assert!(err(&t).contains("exceeds the limit"), "{}", err(&t));
        keys(&mut t).dims = vec![3, 3];
        keys(&mut t).hcas_per_switch = 0;
        assert!(err(&t).starts_with("topology.hcas_per_switch:"));
        keys(&mut t).dims = vec![1];
        keys(&mut t).hcas_per_switch = 70_000;
        assert!(err(&t).contains("ports per switch"), "{}", err(&t));
        let t = cfg(TopologyKind::Torus, &[3, 3], 2, Some("zeru"));
        assert!(err(&t).starts_with("topology.port_numbering:"));
        let t = cfg(TopologyKind::Mesh, &[3, 3, 3], 2, Some("zeru"));
        assert!(err(&t).starts_with("topology.port_numbering:"));
    }

    #[test]
    fn degenerate_zeru_meshes() {
        // one row: no §3.6 table; numbered left, right
        let f = mesh(TopologyKind::Mesh, &[1, 3], 1, Some("zeru"));
        assert_eq!(peer(&f, "SW12", 1), "SW11");
        assert_eq!(peer(&f, "SW12", 2), "SW13");
        let f = mesh(TopologyKind::Mesh, &[1, 1], 3, None);
        assert_eq!(f.nodes[f.switches[0] as usize].ports.len(), 3);
    }
}
