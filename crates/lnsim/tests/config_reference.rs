//! The README's configuration reference and the scenario schema must list the same keys.

use std::collections::BTreeSet;

/// Where each schema struct lives in a scenario file (`<class>` stands for host/fabric,
/// `<phase>` for before/after; `[]` marks an entry of an array of tables).
const PREFIX: &[(&str, &str)] = &[
    ("ScenarioMeta", "scenario"),
    ("SimConfig", "sim"),
    ("TopologyConfig", "topology"),
    ("LinkConfig", "links.<class>"),
    ("SwitchConfig", "switch"),
    ("PortOverrides", "switch.<class>_ports"),
    ("VlArbitrationConfig", "switch.vl_arbitration"),
    ("SinkConfig", "hca.sink"),
    ("HcaConfig", "hca"),
    ("RoutingConfig", "routing"),
    ("FlowConfig", "traffic.flows[]"),
    ("GeneratorConfig", "traffic.generators[]"),
    ("MixComponent", "traffic.mix[]"),
    ("TransientConfig", "traffic.transient"),
    ("TransientPhase", "traffic.transient.<phase>"),
    ("TrafficConfig", "traffic"),
    ("StatsConfig", "stats"),
    ("CcConfig", "cc"),
    ("CcPortOverrides", "cc.<class>_ports"),
    ("CctConfig", "cc.cct"),
    ("RouterConfig", "router"),
    ("Scenario", "<top>"),
];

/// Fields that are tables of their own (documented through their keys). `mix` covers both
/// `traffic.mix` and `traffic.transient.<phase>.mix`, whose entries are `traffic.mix[]` ones.
const NESTED: &[&str] = &[
    "vl_arbitration",
    "host_ports",
    "fabric_ports",
    "sink",
    "cct",
    "flows",
    "generators",
    "mix",
    "transient",
    "before",
    "after",
];

fn schema_keys() -> BTreeSet<String> {
    let src = include_str!("../src/config/schema.rs");
    let mut keys = BTreeSet::new();
    for (name, prefix) in PREFIX {
        let start = src
            .find(&format!("pub struct {name} {{"))
            .unwrap_or_else(|| panic!("struct {name} not in schema.rs"));
        let body = &src[start..start + src[start..].find("\n}").unwrap()];
        for line in body.lines().skip(1) {
            let l = line.trim();
            if let Some(rest) = l.strip_prefix("pub ") {
                let field = rest.split(':').next().unwrap().trim();
                if *prefix == "<top>" {
                    // top-level tables are documented through their keys, except free-form ones
                    if field == "sweep" {
                        keys.insert("sweep.<key path>".to_string());
                    }
                } else if !NESTED.contains(&field) {
                    keys.insert(format!("{prefix}.{field}"));
                }
            }
        }
    }
    keys
}

fn readme_keys() -> BTreeSet<String> {
    let readme = include_str!("../../../README.md");
    let section = readme
        .split("## Configuration reference")
        .nth(1)
        .expect("README has a configuration reference");
    let section = section.split("\n## ").next().unwrap();
    let mut keys = BTreeSet::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let first = line.split('|').nth(1).unwrap();
        for k in first.split(',') {
            keys.insert(k.trim().trim_matches('`').to_string());
        }
    }
    keys
}

#[test]
fn readme_documents_every_key_and_no_other() {
    let schema = schema_keys();
    let readme = readme_keys();
    assert!(
        schema.len() > 60,
        "schema parse found only {} keys",
        schema.len()
    );
    let missing: Vec<_> = schema.difference(&readme).collect();
    let extra: Vec<_> = readme.difference(&schema).collect();
    assert!(
        missing.is_empty(),
        "keys missing from the README: {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "README documents keys the schema does not have: {extra:?}"
    );
}
