//! OpenSM's `minhop` engine, its default (`osm_ucast_mgr.c`; `doc/current-routing.txt`, "Min
//! Hop Algorithm"): the min-hop matrix, then per switch and destination the least-hop port
//! with the fewest paths so far (`port_choice.rs`). Routes are shortest paths; nothing makes
//! them deadlock-free (the channel-dependency check says whether the traffic's routes are).

use super::port_choice::{build_lfts, HopMatrix};
use super::Frame;
use crate::credit::routing::ForwardingTables;
use crate::error::Result;
use crate::topology::Fabric;

/// The `minhop` tables of `fabric`.
pub fn build(fabric: &Fabric, frame: &Frame) -> Result<ForwardingTables> {
    let hops = HopMatrix::minhop(fabric, frame);
    build_lfts(fabric, frame, &hops, false)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::test_fabrics::{from_edges, port};
    use super::*;

    /// Two switches with two HCAs each, joined through two middle switches S1 and S2.
    pub(crate) const DIAMOND: &str = "switch S0\nswitch S1\nswitch S2\nswitch S3\n\
        hca H0\nhca H1\nhca H2\nhca H3\n\
        link H0 S0\nlink H1 S0\nlink H2 S3\nlink H3 S3\n\
        link S0 S1\nlink S0 S2\nlink S1 S3\nlink S2 S3\n";

    #[test]
    fn minhop_spreads_destinations_over_the_least_hop_ports_by_path_counts() {
        let f = from_edges(DIAMOND);
        let t = build(&f, &Frame::new(&f)).unwrap();
        // S0's ports: 0 H0, 1 H1, 2 S1, 3 S2; S3's: 0 H2, 1 H3, 2 S1, 3 S2. Destinations in
        // order H0 H1 (S0 first: 2 HCAs, table order) then H2 H3: the first takes the lowest
        // least-hop port, the second the other one (fewer paths)
        assert_eq!((port(&f, &t, "S0", "H2"), port(&f, &t, "S0", "H3")), (2, 3));
        assert_eq!((port(&f, &t, "S3", "H0"), port(&f, &t, "S3", "H1")), (2, 3));
        assert_eq!((port(&f, &t, "S0", "H0"), port(&f, &t, "S0", "H1")), (0, 1));
        // the middle switches have one least-hop port each way
        assert_eq!((port(&f, &t, "S1", "H0"), port(&f, &t, "S1", "H3")), (0, 1));
    }

    #[test]
    fn minhop_routes_are_shortest_paths_on_a_mesh() {
        let f = super::super::test_fabrics::from_topology(
            "kind = \"mesh\"\ndims = [3, 4]\nhcas_per_switch = 2\n",
        );
        let frame = Frame::new(&f);
        let t = build(&f, &frame).unwrap();
        let dist = frame.least_hops();
        let n = frame.len();
        for &a in &f.hcas {
            for &b in &f.hcas {
                if a == b {
                    continue;
                }
                let hops = t.route(&f, a, b).unwrap();
                let (sa, sb) = (
                    frame.number[f.nodes[a as usize].ports[0].peer as usize] as usize,
                    frame.number[f.nodes[b as usize].ports[0].peer as usize] as usize,
                );
                assert_eq!(hops.len() - 1, dist[sa * n + sb] as usize);
            }
        }
    }
}
