//! The hardware test bed of \[G\] (spec §4.1, used by §5.1–§5.2): two switches and seven hosts.
//!
//! Switches `S1`, `S2`; HCAs `H1`, `H2`, `H3` on S1 ports 0, 1, 2 and `H4`..`H7` on S2 ports
//! 0..3, LIDs H1 = 1 … H7 = 7; one switch link S1 port 3 ↔ S2 port 4. Host links use
//! `[links.host]` (the spec's 20 Gbit/s, 4x DDR), the S1–S2 link `[links.fabric]` (40 Gbit/s,
//! 4x QDR). The attachment of the hosts is derived from the flow descriptions (spec §4.1).

use crate::error::Result;
use crate::topology::{Fabric, LinkClass, LinkParams, NodeKind, Shape};

/// Builds the \[G\] test bed (`kind = "gran_testbed"`, spec §4.1); it takes no other keys.
pub fn build(host: LinkParams, fabric: LinkParams) -> Result<Fabric> {
    let mut f = Fabric::new(Shape::Generic);
    let s1 = f.add_node("S1".into(), NodeKind::Switch, Vec::new(), 0)?;
    let s2 = f.add_node("S2".into(), NodeKind::Switch, Vec::new(), 0)?;
    for i in 1..=7 {
        let h = f.add_node(format!("H{i}"), NodeKind::Hca, Vec::new(), 0)?;
        f.connect(h, if i <= 3 { s1 } else { s2 }, LinkClass::Host, host);
    }
    f.connect(s1, s2, LinkClass::Fabric, fabric);
    Ok(f)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::topology::mesh_torus::tests::link;
    use crate::topology::LinkRate;

    /// The checked test bed.
    pub(crate) fn testbed() -> Fabric {
        let f = build(link(), link()).unwrap();
        f.check().unwrap();
        f
    }

    #[test]
    fn layout() {
        let fast = LinkParams {
            rate: LinkRate::bps(40_000_000_000),
            delay_ps: 5_000,
            lanes: 4,
        };
        let f = build(link(), fast).unwrap();
        f.check().unwrap();
        assert_eq!(f.switches.len(), 2);
        assert_eq!(f.hcas.len(), 7);
        for i in 1..=7u32 {
            let h = &f.nodes[f.by_name[&format!("H{i}")] as usize];
            assert_eq!(h.lid, i);
            let (sw, port) = if i <= 3 { ("S1", i - 1) } else { ("S2", i - 4) };
            assert_eq!(f.nodes[h.ports[0].peer as usize].name, sw);
            assert_eq!(h.ports[0].peer_port as u32, port);
            assert_eq!(h.ports[0].link, link());
            assert_eq!(h.ports[0].class, LinkClass::Host);
        }
        let s1 = &f.nodes[f.by_name["S1"] as usize];
        assert_eq!(s1.ports.len(), 4);
        assert_eq!(f.nodes[s1.ports[3].peer as usize].name, "S2");
        assert_eq!(s1.ports[3].peer_port, 4);
        assert_eq!(s1.ports[3].class, LinkClass::Fabric);
        assert_eq!(s1.ports[3].link, fast);
        assert_eq!(f.nodes[f.by_name["S2"] as usize].ports.len(), 5);
    }
}
