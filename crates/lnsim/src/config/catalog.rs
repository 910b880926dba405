//! What a scenario can choose from: the two models, topologies, routings, traffic patterns, and
//! the congestion control mechanisms and head-of-line-blocking schemes, one line each with the
//! model that has them and the key that selects them (`lnsim list`). The names are the ones scenarios write;
//! the tests check them against the schema's enums and the allowed values of [`super::keys`]
//! (every value of `topology.kind`, `routing.algorithm`, `traffic.pattern`, `cc.mechanism` and
//! `switch.queue_mapping` has its line).

use super::keys::{lookup, ValueKind};
use super::model::Model;

/// One thing a scenario can choose.
#[derive(Debug, Clone, Copy)]
pub struct Item {
    /// `"model"`, `"topology"`, `"routing"`, `"pattern"` or `"cc"`.
    pub category: &'static str,
    /// The name a scenario writes.
    pub name: &'static str,
    /// The key and the value that select it (`("cc.mechanism", "drb")`, `("cc.enabled",
    /// "false")`) when that is not its category's key set to [`Item::name`].
    pub select: Option<(&'static str, &'static str)>,
    /// The model that has it (`None`: both).
    pub model: Option<Model>,
    /// One line: what it is.
    pub doc: &'static str,
}

/// The categories of [`CATALOG`], in order, with the key that chooses among their items.
pub const CATEGORIES: &[(&str, &str, &str)] = &[
    ("model", "models", "sim.model"),
    ("topology", "topologies", "topology.kind"),
    ("routing", "routings", "routing.algorithm"),
    (
        "pattern",
        "traffic patterns",
        "traffic.pattern (cycle-level); traffic.generators[].pattern (InfiniBand)",
    ),
    (
        "cc",
        "congestion control, DRB and head-of-line-blocking schemes",
        "cc.enabled and cc.mechanism; switch.queue_mapping",
    ),
];

const CR: Option<Model> = Some(Model::Credit);
const CY: Option<Model> = Some(Model::Cycle);

macro_rules! item {
    ($c:expr, $n:expr, $m:expr, $d:expr) => {
        Item {
            category: $c,
            name: $n,
            select: None,
            model: $m,
            doc: $d,
        }
    };
    ($c:expr, $n:expr, $m:expr, $d:expr, $key:expr => $value:expr) => {
        Item {
            category: $c,
            name: $n,
            select: Some(($key, $value)),
            model: $m,
            doc: $d,
        }
    };
}

/// Everything a scenario can choose from.
#[rustfmt::skip]
pub const CATALOG: &[Item] = &[
    item!("model", "credit", CR, "event-driven, picosecond time, 64-byte credits: InfiniBand fabrics, their congestion control, HoL-blocking schemes and DRB (\"infiniband\", its former name, is accepted too)"),
    item!("model", "cycle", CY, "phits and cycles, CIOQ routers with allocators: Dragonfly and mesh/torus routing studies"),
    item!("topology", "mesh", None, "n-dimensional mesh: topology.dims switches per dimension, topology.hcas_per_switch HCAs each (spec §4.3)"),
    item!("topology", "torus", None, "n-dimensional torus: a mesh with wrap-around links"),
    item!("topology", "fat_tree", CR, "k-ary n-tree (topology.k, topology.n) or XGFT Clos (topology.down, topology.up) (spec §4.2)"),
    item!("topology", "gran_testbed", CR, "the two-switch, seven-host test bed of [G] (spec §4.1)"),
    item!("topology", "dragonfly", CY, "canonical Dragonfly (topology.p, a, h) with palmtree or consecutive global links (Dragonfly spec §1.1)"),
    item!("topology", "file", CR, "any fabric from an edge-list file (topology.file)"),
    item!("topology", "ibnetdiscover", CR, "a real InfiniBand fabric from ibnetdiscover output (topology.file; docs/fabrics.md)"),
    item!("routing", "dor", None, "dimension-order routing on meshes and tori (x first; tori the short way, dateline VCs)"),
    item!("routing", "dmodk", CR, "D-mod-k on fat trees"),
    item!("routing", "updown", CR, "up*/down* over a BFS spanning tree, on any topology"),
    item!("routing", "lft_file", CR, "linear forwarding tables read from a .fdbs file (routing.file)"),
    item!("routing", "lft_dump", CR, "a real fabric's forwarding tables from ibroute / dump_lfts.sh / opensm-lfts.dump output (routing.file; docs/fabrics.md)"),
    item!("routing", "opensm", CR, "the forwarding tables an OpenSM routing engine computes (routing.engine: minhop, updn, dor, ftree)"),
    item!("routing", "min", CY, "minimal routing on a Dragonfly (Dragonfly spec §3.1)"),
    item!("routing", "vlb", CY, "Valiant: a random intermediate, then minimal (Dragonfly §3.2; on meshes/tori DOR via a random router)"),
    item!("routing", "ugal", CY, "UGAL: minimal or Valiant by the source router's queues (Dragonfly §3.5, Eq. 2-1)"),
    item!("routing", "pb", CY, "Piggyback: UGAL plus group-wide congested-global-link bits (Dragonfly §3.6)"),
    item!("routing", "acor", CY, "ACOR: Valiant with the shortest phase-A policy that does not block injection (Dragonfly §3.7)"),
    item!("routing", "pb_acor", CY, "PB-ACOR: Piggyback with ACOR's phase-A policy for the Valiant path (Dragonfly §3.8)"),
    item!("routing", "tpr", CY, "TPR (as the thesis implements it): UGAL with T chosen by the packets injected towards the destination group (Dragonfly §3.9)"),
    item!("routing", "lian", CY, "LIAN: UGAL modulated by extended per-group counters, l1 and l2 of the Valiant path chosen from them (Dragonfly §3.10)"),
    item!("routing", "mar_bp", CY, "MAR-bP (Ethernet): minimal unless its output is paused, else the injection port's fixed global port, VLB_-g- (Dragonfly §3.11; needs p = h)"),
    item!("routing", "qcn_switch", CY, "QCN-Switch (Ethernet): minimal with the probability of its port, cut by QCN notifications and raised by a packet counter, else the injection port's global port (Dragonfly §3.12; needs p = h)"),
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
    item!("pattern", "shift", CR, "a job's own sources in LID order, source i sending to source i + k (a generator's shift = k; any topology)"),
    item!("pattern", "random_permutation", CR, "a seeded random permutation of a job's own sources without fixed points (any topology)"),
    item!("cc", "none", None, "no congestion control (the default)", "cc.enabled" => "false"),
    item!("cc", "qcn", CY, "QCN (IEEE 802.1Qau) reaction points at the nodes, cut by the congestion points' notifications (Dragonfly §3.12.1; off in the thesis, whose QCN-Switch routing runs the congestion points alone)", "qcn.reaction_point" => "true"),
    item!("cc", "ib", CR, "IBA congestion control, with cc.enabled = true (the default mechanism): switches mark FECN, destinations return CNPs, sources throttle by CCTI (spec §2)", "cc.mechanism" => "ib"),
    item!("cc", "ib_s1", CR, "IBA_CC-S1, the DRB paper's throttling baseline, with cc.enabled = true: an input-buffer monitor marks, sources add injection-rate delay per cc.notifications_per_step notifications, one path (drb-and-ddbbm spec A.4)", "cc.mechanism" => "ib_s1"),
    item!("cc", "drb", CR, "DRB, with cc.enabled = true: the same monitor; sources open link-disjoint paths (up to drb.max_paths) and spread packets over them, no throttling (drb-and-ddbbm spec A.3)", "cc.mechanism" => "drb"),
    item!("cc", "ddbbm_detection", CR, "DDBBM's destination detection, with cc.enabled = true and switch.queue_mapping = \"ddbbm\" (which alone switches it on as well): end nodes detect their congestion per frame and notify the sources, whose packets then take the switches' dynamic queue; no throttling (drb-and-ddbbm spec B.3)", "cc.mechanism" => "ddbbm"),
    item!("cc", "voq", CR, "a virtual output queue per output sharing the input's credits: the InfiniBand switch (the default; spec §3.4)", "switch.queue_mapping" => "voq"),
    item!("cc", "one_queue", CR, "1Q: one FIFO per input and VL, head-of-line blocking (spec B.2)", "switch.queue_mapping" => "one_queue"),
    item!("cc", "voq_sw", CR, "VOQsw: a queue per output of the switch; with switch.buffer_sharing = \"static\" credits per queue and look-ahead routing (spec B.2)", "switch.queue_mapping" => "voq_sw"),
    item!("cc", "voq_net", CR, "VOQnet: a queue per destination end node (spec B.2)", "switch.queue_mapping" => "voq_net"),
    item!("cc", "dbbm", CR, "DBBM: switch.dbbm_queues queues, destination mod Q (spec B.2)", "switch.queue_mapping" => "dbbm"),
    item!("cc", "ddbbm", CR, "DDBBM: DBBM's Q queues + a dynamic queue for packets to congested destinations; each end node detects its own congestion per frame (ddbbm.frame, dt, lt, sit, ns) and notifies the sources (spec B.2, B.3); ddbbm.mapping = \"virtual_lanes\" maps it onto VLs (spec B.4); the detection is also selected by cc.mechanism = \"ddbbm\" (with cc.enabled = true)", "switch.queue_mapping" => "ddbbm"),
];

impl Item {
    /// The key that selects this item and the value it takes there (for a category whose
    /// key is not one key, such as the patterns', that text and the name).
    pub fn selector(&self) -> (&'static str, &'static str) {
        self.select.unwrap_or_else(|| {
            let key = CATEGORIES
                .iter()
                .find(|c| c.0 == self.category)
                .map_or("", |c| c.2);
            (key, self.name)
        })
    }

    /// How a scenario selects it, as a TOML assignment (`cc.mechanism = "drb"`), for an item
    /// whose key is not its category's ([`Item::select`]); `None` otherwise.
    pub fn selection(&self) -> Option<String> {
        let (key, value) = self.select?;
        Some(match lookup(key).map(|k| k.kind) {
            Some(ValueKind::Choice(_)) => format!("{key} = \"{value}\""),
            _ => format!("{key} = {value}"),
        })
    }
}

/// Which model(s) have an item, in words.
pub fn model_text(m: Option<Model>) -> &'static str {
    m.map_or("both models", Model::text)
}

#[cfg(test)]
mod tests {
    use super::super::schema::{CcMechanism, QueueMappingKind};
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
    fn every_model_has_its_line_and_sim_model_accepts_its_former_names_too() {
        let lines: Vec<(&str, Option<Model>)> = CATALOG
            .iter()
            .filter(|i| i.category == "model")
            .map(|i| (i.name, i.model))
            .collect();
        let want: Vec<(&str, Option<Model>)> =
            Model::ALL.iter().map(|m| (m.name(), Some(*m))).collect();
        assert_eq!(lines, want);
        let credit = CATALOG.iter().find(|i| i.name == "credit").unwrap();
        assert!(credit.doc.contains("\"infiniband\""), "{}", credit.doc);
        assert_eq!(choices("sim.model"), Model::ACCEPTED.to_vec());
    }

    #[test]
    fn patterns_are_the_allowed_ones() {
        let mut p = names("pattern");
        // those of `traffic.pattern`, and the job permutations of the generators
        let mut k = choices("traffic.pattern");
        k.extend(
            choices("traffic.generators[].pattern")
                .into_iter()
                .filter(|n| ["shift", "random_permutation"].contains(n)),
        );
        p.sort_unstable();
        k.sort_unstable();
        assert_eq!(p, k);
    }

    #[test]
    fn every_cc_mechanism_and_queue_mapping_has_a_line_with_its_key() {
        // the values the config accepts: the enums the scenario is read into, and the keys'
        // metadata (`lnsim keys`, the schema) that says so
        for (key, names) in [
            ("cc.mechanism", CcMechanism::NAMES),
            ("switch.queue_mapping", QueueMappingKind::NAMES),
        ] {
            assert_eq!(choices(key), names.to_vec(), "{key}");
            let info = lookup(key).expect("a key");
            let mut listed: Vec<&str> = CATALOG
                .iter()
                .filter(|i| i.select.map(|(k, _)| k) == Some(key))
                .map(|i| {
                    assert_eq!(i.category, "cc", "{key} = {}", i.name);
                    assert_eq!(i.model, info.model, "{key} = {}: its model", i.name);
                    assert!(!i.doc.is_empty());
                    i.selector().1
                })
                .collect();
            let mut want = names.to_vec();
            listed.sort_unstable();
            want.sort_unstable();
            assert_eq!(
                listed, want,
                "{key}: every value has its line in `lnsim list cc`"
            );
        }
    }

    #[test]
    fn every_selection_is_a_value_its_key_accepts() {
        for i in CATALOG {
            let (key, value) = i.selector();
            let Some(sel) = i.selection() else {
                assert!(i.select.is_none());
                continue;
            };
            let kind = lookup(key).map(|k| k.kind);
            match kind {
                Some(ValueKind::Choice(c)) => {
                    assert!(c.contains(&value), "{sel}");
                    assert_eq!(sel, format!("{key} = \"{value}\""));
                }
                Some(ValueKind::Bool) => {
                    assert!(["true", "false"].contains(&value), "{sel}");
                    assert_eq!(sel, format!("{key} = {value}"));
                }
                other => panic!("{}: selected by {key}, a {other:?}", i.name),
            }
        }
    }
}
