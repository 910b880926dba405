//! OpenSM's `dor` engine (`osm_ucast_mgr.c` with `is_dor`; `doc/current-routing.txt`, "DOR
//! Unicast routing algorithm"): the min-hop matrix, and a port choice restricted to the
//! neighbour switch of the **first** least-hop port in port order (`port_choice.rs`) — with
//! cabling in which lower port numbers are lower dimensions, the lowest dimension first —
//! balancing only over parallel cables to that switch. It is deadlock-free on meshes and
//! hypercubes cabled that way, not on tori (the channel-dependency check refuses those), and is
//! not lnsim's geometric `dor` (`credit/routing/dor_tables.rs`), which reads coordinates: this
//! one reads only port numbers.

use super::port_choice::{build_lfts, HopMatrix};
use super::Frame;
use crate::credit::routing::ForwardingTables;
use crate::error::Result;
use crate::topology::Fabric;

/// The `dor` tables of `fabric`.
pub fn build(fabric: &Fabric, frame: &Frame) -> Result<ForwardingTables> {
    let hops = HopMatrix::minhop(fabric, frame);
    build_lfts(fabric, frame, &hops, true)
}

#[cfg(test)]
mod tests {
    use super::super::test_fabrics::{deadlock_free, from_edges, from_topology, port};
    use super::*;

    #[test]
    fn dor_takes_the_first_least_hop_neighbour_and_balances_only_over_its_parallel_cables() {
        // the diamond of the minhop tests with a second cable S0-S1 (S0 port 4)
        let f = from_edges(&format!(
            "{}link S0 S1\n",
            super::super::minhop::tests::DIAMOND
        ));
        let t = build(&f, &Frame::new(&f)).unwrap();
        // S0's least-hop ports to H2/H3: 2 (S1), 3 (S2), 4 (S1): the first is S1's, so S2 is
        // never taken, and the two destinations share S1's two cables
        assert_eq!((port(&f, &t, "S0", "H2"), port(&f, &t, "S0", "H3")), (2, 4));
        let m = super::super::minhop::build(&f, &Frame::new(&f)).unwrap();
        assert_eq!((port(&f, &m, "S0", "H2"), port(&f, &m, "S0", "H3")), (2, 3));
    }

    #[test]
    fn dor_is_deadlock_free_on_a_mesh_cabled_by_dimension() {
        let f = from_topology(
            "kind = \"mesh\"\ndims = [3, 3]\nhcas_per_switch = 1\nport_numbering = \"dimension\"\n",
        );
        let t = build(&f, &Frame::new(&f)).unwrap();
        assert!(deadlock_free(&f, &t));
        // min-hop balancing turns in any order: its routes on the same mesh can deadlock
        let m = super::super::minhop::build(&f, &Frame::new(&f)).unwrap();
        assert!(!deadlock_free(&f, &m));
    }
}
