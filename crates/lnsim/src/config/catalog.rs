//! What a scenario can choose from: topologies, routings, traffic patterns and congestion
//! control mechanisms, one line each with the model that has them (`lnsim list`). The names
//! are the ones scenarios write; the tests check them against the schema's enums and the
//! allowed values of [`super::keys`].

use super::model::Model;

/// One thing a scenario can choose.
#[derive(Debug, Clone, Copy)]
pub struct Item {
    /// `"topology"`, `"routing"`, `"pattern"` or `"cc"`.
    pub category: &'static str,
    /// The name a scenario writes.
    pub name: &'static str,
    /// The model that has it (`None`: both).
    pub model: Option<Model>,
    /// One line: what it is.
    pub doc: &'static str,
}

/// The categories of [`CATALOG`], in order, with the key that chooses among their items.
pub const CATEGORIES: &[(&str, &str, &str)] = &[
    ("topology", "topologies", "topology.kind"),
    ("routing", "routings", "routing.algorithm"),
    (
        "pattern",
        "traffic patterns",
        "traffic.pattern (cycle-level); traffic.generators[].pattern (InfiniBand)",
    ),
    ("cc", "congestion control", "cc.enabled"),
];

const IB: Option<Model> = Some(Model::InfiniBand);
const CY: Option<Model> = Some(Model::Cycle);

macro_rules! item {
    ($c:expr, $n:expr, $m:expr, $d:expr) => {
        Item {
            category: $c,
            name: $n,
            model: $m,
            doc: $d,
        }
    };
}

/// Everything a scenario can choose from.
#[rustfmt::skip]
pub const CATALOG: &[Item] = &[
    item!("topology", "mesh", None, "n-dimensional mesh: topology.dims switches per dimension, topology.hcas_per_switch HCAs each (spec §4.3)"),
    item!("topology", "torus", None, "n-dimensional torus: a mesh with wrap-around links"),
    item!("topology", "fat_tree", IB, "k-ary n-tree (topology.k, topology.n) or XGFT Clos (topology.down, topology.up) (spec §4.2)"),
    item!("topology", "gran_testbed", IB, "the two-switch, seven-host test bed of [G] (spec §4.1)"),
    item!("topology", "dragonfly", CY, "canonical Dragonfly (topology.p, a, h) with palmtree or consecutive global links (Dragonfly spec §1.1)"),
    item!("topology", "file", IB, "any fabric from an edge-list file (topology.file)"),
    item!("routing", "dor", None, "dimension-order routing on meshes and tori (x first; tori the short way, dateline VCs)"),
    item!("routing", "dmodk", IB, "D-mod-k on fat trees"),
    item!("routing", "updown", IB, "up*/down* over a BFS spanning tree, on any topology"),
    item!("routing", "lft_file", IB, "linear forwarding tables read from a .fdbs file (routing.file)"),
    item!("routing", "min", CY, "minimal routing on a Dragonfly (Dragonfly spec §3.1)"),
    item!("routing", "vlb", CY, "Valiant: a random intermediate, then minimal (Dragonfly §3.2; on meshes/tori DOR via a random router)"),
    item!("routing", "ugal", CY, "UGAL: minimal or Valiant by the source router's queues (Dragonfly §3.5, Eq. 2-1)"),
    item!("routing", "pb", CY, "Piggyback: UGAL plus group-wide congested-global-link bits (Dragonfly §3.6)"),
    item!("routing", "acor", CY, "ACOR: Valiant with the shortest phase-A policy that does not block injection (Dragonfly §3.7)"),
    item!("routing", "pb_acor", CY, "PB-ACOR: Piggyback with ACOR's phase-A policy for the Valiant path (Dragonfly §3.8)"),
    item!("routing", "tpr", CY, "TPR (as the thesis implements it): UGAL with T chosen by the packets injected towards the destination group (Dragonfly §3.9)"),
    item!("routing", "lian", CY, "LIAN: UGAL modulated by extended per-group counters, l1 and l2 of the Valiant path chosen from them (Dragonfly §3.10)"),
    item!("pattern", "uniform", None, "uniform random destinations (InfiniBand: a [[traffic.generators]] entry; static flows are [[traffic.flows]])"),
    item!("pattern", "hotspot", None, "uniform, but a fraction goes to hot destinations (cycle level: traffic.hotspots, traffic.hotspot_fraction; InfiniBand: a generator's hotspot, hotspot_fraction)"),
    item!("pattern", "adv", CY, "Dragonfly: uniform among the nodes of group g + traffic.shift (ADV+i, spec §4.2)"),
    item!("pattern", "advl", CY, "Dragonfly: uniform among the nodes of the next router of the source's own group (spec §4.2)"),
    item!("pattern", "advc", CY, "Dragonfly: uniform among the nodes of the h groups after the source's (spec §4.2)"),
    item!("pattern", "mix", CY, "a mix of steady patterns with load fractions ([[traffic.mix]])"),
    item!("pattern", "transient", CY, "one pattern or load before traffic.transient.at_cycle, another after (spec §4.3)"),
    item!("pattern", "transpose", None, "mesh/torus: (x, y) sends to (y, x) (square 2-D only)"),
    item!("pattern", "bit_complement", None, "the router index (mesh/torus; else the node index) with every bit complemented (a power of two of them)"),
    item!("pattern", "bit_reversal", None, "the router index (mesh/torus; else the node index) with its bits reversed (a power of two of them)"),
    item!("pattern", "shuffle", None, "perfect shuffle: the router index (mesh/torus; else the node index) rotated left by one bit (a power of two of them)"),
    item!("pattern", "tornado", None, "mesh/torus: x → x + ⌈k/2⌉ − 1 (mod k) in every dimension"),
    item!("pattern", "neighbour", None, "mesh/torus: x → x + 1 (mod k) in every dimension"),
    item!("cc", "none", None, "no congestion control (cc.enabled = false, the default; the cycle-level model has none)"),
    item!("cc", "infiniband", IB, "IBA congestion control: switches mark FECN, destinations return CNPs, sources throttle by CCTI (cc.enabled = true; spec §2)"),
];

/// Which model(s) have an item, in words.
pub fn model_text(m: Option<Model>) -> &'static str {
    m.map_or("both models", Model::text)
}

#[cfg(test)]
mod tests {
    use super::super::keys::{lookup, ValueKind};
    use super::super::{RoutingAlgorithm, TopologyKind};
    use super::*;

    fn names(cat: &str) -> Vec<&'static str> {
        CATALOG
            .iter()
            .filter(|i| i.category == cat)
            .map(|i| i.name)
            .collect()
    }

    fn choices(path: &str) -> Vec<&'static str> {
        match lookup(path).expect("a key").kind {
            ValueKind::Choice(c) => c.to_vec(),
            other => panic!("{path}: {other:?}"),
        }
    }

    #[test]
    fn topologies_and_routings_are_the_schema_enums() {
        let mut t: Vec<_> = TopologyKind::ALL.iter().map(|k| k.name()).collect();
        let mut c = names("topology");
        t.sort_unstable();
        c.sort_unstable();
        assert_eq!(t, c);
        let mut k = choices("topology.kind");
        k.sort_unstable();
        assert_eq!(k, c);
        for kind in TopologyKind::ALL {
            let back: TopologyKind =
                serde::Deserialize::deserialize(toml::Value::String(kind.name().into())).unwrap();
            assert_eq!(back, *kind);
        }
        let mut r: Vec<_> = RoutingAlgorithm::ALL.iter().map(|a| a.name()).collect();
        let mut c = names("routing");
        r.sort_unstable();
        c.sort_unstable();
        assert_eq!(r, c);
        for a in RoutingAlgorithm::ALL {
            let back: RoutingAlgorithm =
                serde::Deserialize::deserialize(toml::Value::String(a.name().into())).unwrap();
            assert_eq!(back, *a);
        }
        let mut k = choices("routing.algorithm");
        k.sort_unstable();
        assert_eq!(k, c);
    }

    #[test]
    fn patterns_are_the_allowed_ones() {
        let mut p = names("pattern");
        let mut k = choices("traffic.pattern");
        p.sort_unstable();
        k.sort_unstable();
        assert_eq!(p, k);
    }
}
