//! One source of truth for the scenario keys: the key metadata (`config/keys.rs`, behind
//! `lnsim keys` and `lnsim schema`), the schema structs (`config/schema.rs`) and the
//! configuration reference (`docs/configuration.md`) must agree.

use lnsim::config::keys::{expand, markdown_table, ValueKind, KEYS};
use std::collections::BTreeSet;

/// Where each schema struct lives in a scenario file (`<class>` stands for host/fabric,
/// `<phase>` for before/after; `[]` marks an entry of an array of tables).
const PREFIX: &[(&str, &str)] = &[
    ("ScenarioMeta", "scenario"),
    ("SimConfig", "sim"),
    ("MeshTorusConfig", "topology"),
    ("FatTreeConfig", "topology"),
    ("DragonflyConfig", "topology"),
    ("FileTopologyConfig", "topology"),
    ("LinkConfig", "links.<class>"),
    ("LinksConfig", "links"),
    ("SwitchConfig", "switch"),
    ("PortOverrides", "switch.<class>_ports"),
    ("VlArbitrationConfig", "switch.vl_arbitration"),
    ("SinkConfig", "hca.sink"),
    ("HcaConfig", "hca"),
    ("DorRouting", "routing"),
    ("DmodkRouting", "routing"),
    ("LftFileRouting", "routing"),
    ("OpensmRouting", "routing"),
    ("MinRouting", "routing"),
    ("VlbRouting", "routing"),
    ("UgalRouting", "routing"),
    ("PbRouting", "routing"),
    ("AcorRouting", "routing"),
    ("PbAcorRouting", "routing"),
    ("TprRouting", "routing"),
    ("LianRouting", "routing"),
    ("MarBpRouting", "routing"),
    ("QcnSwitchRouting", "routing"),
    ("QcnSwitchConfig", "routing.qcn_switch"),
    ("GroupCounterKeys", "routing.lian"),
    ("AcorConfig", "routing.acor"),
    ("TprConfig", "routing.tpr"),
    ("LianConfig", "routing.lian"),
    ("FlowConfig", "traffic.flows[]"),
    ("GeneratorConfig", "traffic.generators[]"),
    ("MixComponent", "traffic.mix[]"),
    ("TransientConfig", "traffic.transient"),
    ("TransientPhase", "traffic.transient.<phase>"),
    ("TrafficConfig", "traffic"),
    ("StatsConfig", "stats"),
    ("CcConfig", "cc"),
    ("IbCcKeys", "cc"),
    ("IbS1Keys", "cc"),
    ("DrbCcKeys", "cc"),
    ("CcPortOverrides", "cc.<class>_ports"),
    ("CctConfig", "cc.cct"),
    ("DdbbmConfig", "ddbbm"),
    ("DrbConfig", "drb"),
    ("RouterConfig", "router"),
    ("QcnConfig", "qcn"),
    ("QcnRpConfig", "qcn.rp"),
    ("PfcConfig", "router.pfc"),
    ("Scenario", "<top>"),
];

/// Fields that are tables of their own (documented through their keys). `mix` covers both
/// `traffic.mix` and `traffic.transient.<phase>.mix`, whose entries are `traffic.mix[]` ones.
const NESTED: &[&str] = &[
    // `[cc]`'s mechanism keys (CcKeys), documented through their structs
    "keys",
    "acor",
    "tpr",
    "lian",
    "qcn_switch",
    "rp",
    "host",
    "fabric",
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
    "pfc",
];

fn schema_keys() -> BTreeSet<String> {
    schema_fields().into_iter().map(|(k, _)| k).collect()
}

/// Every key of schema.rs with the Rust type of its field.
fn schema_fields() -> Vec<(String, String)> {
    let src = include_str!("../src/config/schema.rs");
    let mut keys = Vec::new();
    for (name, prefix) in PREFIX {
        let start = src
            .find(&format!("pub struct {name} {{"))
            .unwrap_or_else(|| panic!("struct {name} not in schema.rs"));
        let body = &src[start..start + src[start..].find("\n}").unwrap()];
        for line in body.lines().skip(1) {
            let l = line.trim();
            if let Some(rest) = l.strip_prefix("pub ") {
                let (field, ty) = rest.split_once(':').unwrap();
                let (field, ty) = (field.trim(), ty.trim().trim_end_matches(',').to_string());
                if *prefix == "<top>" {
                    // top-level tables are documented through their keys, except free-form ones
                    if field == "sweep" {
                        keys.push(("sweep.<key path>".to_string(), ty));
                    }
                } else if !NESTED.contains(&field) {
                    keys.push((format!("{prefix}.{field}"), ty));
                }
            }
        }
    }
    // the selector of a table typed per kind is the tag of its enum (`#[serde(tag = "kind")]`)
    for (name, prefix, ty) in TAGGED {
        let at = src
            .find(&format!("pub enum {name} {{"))
            .unwrap_or_else(|| panic!("enum {name} not in schema.rs"));
        let attr = src[..at]
            .rfind("#[serde(tag = \"")
            .map(|i| &src[i + 15..at])
            .unwrap_or_else(|| panic!("enum {name} has no serde tag"));
        let tag = attr.split('"').next().unwrap();
        keys.push((format!("{prefix}.{tag}"), ty.to_string()));
    }
    keys
}

/// Enums tagged by one of their keys (tables typed per kind), and where they live.
/// (enum, table, the Rust type of its selector as a field would have it).
const TAGGED: &[(&str, &str, &str)] = &[
    ("TopologyConfig", "topology", "TopologyKind"),
    // without `routing.algorithm` the loader names the topology's default
    ("RoutingConfig", "routing", "Option<RoutingAlgorithm>"),
];

fn metadata_keys() -> BTreeSet<String> {
    KEYS.iter().map(|k| k.path.to_string()).collect()
}

/// The configuration reference table of `docs/configuration.md`, as its lines.
fn reference_table() -> Vec<String> {
    let doc = include_str!("../../../docs/configuration.md");
    let section = doc
        .split("# Configuration reference")
        .nth(1)
        .expect("docs/configuration.md has a configuration reference");
    let section = section.split("\n## ").next().unwrap();
    section
        .lines()
        .filter(|l| l.starts_with('|'))
        .map(str::to_string)
        .collect()
}

#[test]
fn metadata_describes_every_schema_key_and_no_other() {
    let schema = schema_keys();
    let meta = metadata_keys();
    assert!(
        schema.len() > 60,
        "schema parse found only {} keys",
        schema.len()
    );
    let missing: Vec<_> = schema.difference(&meta).collect();
    let extra: Vec<_> = meta.difference(&schema).collect();
    assert!(
        missing.is_empty(),
        "keys of schema.rs missing from config/keys.rs KEYS: {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "config/keys.rs KEYS describes keys schema.rs does not have: {extra:?}"
    );
}

/// The value kinds a Rust field type may have in the metadata: every integer key is bounded.
fn kinds_for(ty: &str) -> &'static [&'static str] {
    let inner = ty
        .strip_prefix("Option<")
        .and_then(|t| t.strip_suffix('>'))
        .unwrap_or(ty);
    match inner {
        "u32" | "u64" | "i64" => &["Int"],
        "f64" => &["Float"],
        "bool" => &["Bool"],
        "String" => &["Str", "Choice"],
        "Duration" => &["Duration"],
        "Bytes" => &["Size"],
        "BitRate" => &["Rate"],
        "Frequency" => &["Freq"],
        "Vec<u32>" => &["IntList"],
        "Vec<String>" => &["StrList"],
        "Vec<[u32; 2]>" => &["VlTable"],
        "NodeSet" => &["NodeSet"],
        "HcaNames" => &["HcaNames"],
        "VictimMask" => &["VictimMask"],
        "toml::Table" => &["Table"],
        // enums deserialised from strings
        _ => &["Choice"],
    }
}

#[test]
fn every_key_has_the_kind_of_its_rust_type_and_integers_are_bounded() {
    for (path, ty) in schema_fields() {
        let k = lnsim::config::keys::lookup(&path).unwrap_or_else(|| panic!("{path}"));
        let kind = format!("{:?}", k.kind);
        let name = kind.split([' ', '(', '{']).next().unwrap();
        assert!(
            kinds_for(&ty).contains(&name),
            "{path}: Rust type {ty}, metadata kind {kind}"
        );
        if let ValueKind::Int { min, max } = k.kind {
            let (lo, hi) = match ty.trim_start_matches("Option<").trim_end_matches('>') {
                "u32" => (0, u32::MAX as i64),
                "u64" | "i64" => (i64::MIN, i64::MAX),
                other => panic!("{path}: {other}"),
            };
            assert!(
                lo <= min && max <= hi && min <= max,
                "{path}: {min} … {max} for {ty}"
            );
        }
    }
}

#[test]
fn documented_reference_is_the_generated_table() {
    let want: Vec<String> = markdown_table().lines().map(str::to_string).collect();
    let have = reference_table();
    if have != want {
        let first = have
            .iter()
            .zip(&want)
            .position(|(a, b)| a != b)
            .unwrap_or(have.len().min(want.len()));
        panic!(
            "docs/configuration.md's reference differs from the key metadata (config/keys.rs) \
             at row {first}:\n  docs: {:?}\n  wanted: {:?}\nregenerate it with \
             `python -m lnsim keys --markdown` and paste it over the table",
            have.get(first),
            want.get(first)
        );
    }
}

/// A value of the right type for `kind`, as TOML.
fn sample(kind: ValueKind) -> Option<toml::Value> {
    use toml::Value as V;
    Some(match kind {
        ValueKind::Int { min, .. } => V::Integer(min),
        ValueKind::Float { max, .. } => V::Float(max),
        ValueKind::Bool => V::Boolean(true),
        ValueKind::Str => V::String("x".into()),
        ValueKind::Choice(c) => V::String(c[0].into()),
        ValueKind::Duration { .. } => V::String("1ns".into()),
        ValueKind::Size { min, .. } => V::Integer(min as i64),
        ValueKind::Rate { .. } => V::String("1Gbps".into()),
        ValueKind::Freq { .. } => V::String("1GHz".into()),
        ValueKind::IntList { min, .. } => V::Array(vec![V::Integer(min)]),
        ValueKind::StrList { .. } => V::Array(vec![V::String("x".into())]),
        ValueKind::NodeSet(n) => V::String(n[0].into()),
        ValueKind::HcaNames => V::Array(vec![V::String("x".into())]),
        ValueKind::VictimMask => V::Boolean(true),
        ValueKind::VlTable => V::Array(vec![V::Array(vec![V::Integer(0), V::Integer(1)])]),
        ValueKind::Table => return None,
    })
}

/// A scenario table with the smallest `[topology]` of the kind that takes the key `path`
/// (for a key of a table typed per kind) or a 2-switch mesh.
fn base_for(path: &str) -> toml::Table {
    let taking = lnsim::config::kinds::kinds_taking(path);
    let kind = |table: &str| match &taking {
        Some((kt, kinds)) if kt.table == table => Some(
            *kinds
                .first()
                .unwrap_or_else(|| panic!("{path}: no kind of [{table}] takes it")),
        ),
        _ => None,
    };
    let topology = match kind("topology").unwrap_or("mesh") {
        "mesh" => "kind = \"mesh\"\ndims = [2]\nhcas_per_switch = 1",
        "fat_tree" => "kind = \"fat_tree\"\nk = 2\nn = 1",
        "dragonfly" => "kind = \"dragonfly\"\np = 1",
        "file" => "kind = \"file\"\nfile = \"x.topo\"",
        other => panic!("no minimal topology of kind {other}"),
    };
    let routing = match kind("routing") {
        Some("lft_file") => "[routing]\nalgorithm = \"lft_file\"\nfile = \"x.fdbs\"\n".to_string(),
        Some("lft_dump") => "[routing]\nalgorithm = \"lft_dump\"\nfile = \"x.lfts\"\n".to_string(),
        Some(alg) => format!("[routing]\nalgorithm = \"{alg}\"\n"),
        None if kind("topology") == Some("dragonfly") => "[routing]\nalgorithm = \"min\"\n".into(),
        None => String::new(),
    };
    let mut t: toml::Table = format!("[sim]\n[topology]\n{topology}\n{routing}")
        .parse()
        .unwrap();
    // any other table typed per kind: its selector names a kind that takes the key
    if let Some((kt, kinds)) = &taking {
        if kt.table != "topology" && kt.table != "routing" {
            let kind = kinds
                .first()
                .unwrap_or_else(|| panic!("{path}: no kind takes it"));
            let selector = format!("{}.{}", kt.table, kt.selector);
            set(&mut t, &selector, toml::Value::String(kind.to_string()));
        }
    }
    t
}

/// Sets `path` (`a.b[].c` segments) in `t`, creating tables and one-entry arrays of tables.
fn set(t: &mut toml::Table, path: &str, v: toml::Value) {
    let segs: Vec<&str> = path.split('.').collect();
    let mut cur = t;
    for (i, seg) in segs.iter().enumerate() {
        if i + 1 == segs.len() {
            cur.insert(seg.to_string(), v);
            return;
        }
        cur = match seg.strip_suffix("[]") {
            Some(name) => {
                let arr = cur.entry(name.to_string()).or_insert_with(|| {
                    toml::Value::Array(vec![toml::Value::Table(Default::default())])
                });
                arr.as_array_mut().unwrap()[0].as_table_mut().unwrap()
            }
            None => cur
                .entry(seg.to_string())
                .or_insert_with(|| toml::Value::Table(Default::default()))
                .as_table_mut()
                .unwrap(),
        };
    }
}

#[test]
fn every_described_key_is_accepted_by_the_parser_with_a_value_of_its_type() {
    for k in KEYS {
        let Some(v) = sample(k.kind) else { continue };
        for path in expand(k.path) {
            let mut t = base_for(&path);
            // in a scenario of the model that reads the key (the other one refuses it)
            if let Some(m) = k.model {
                set(&mut t, "sim.model", toml::Value::String(m.name().into()));
            }
            set(&mut t, &path, v.clone());
            let text = toml::to_string(&t).unwrap();
            match lnsim::config::load_str(
                &text,
                "t.toml",
                std::path::Path::new("."),
                "t",
                &[],
                None,
            ) {
                Ok(_) => {}
                Err(e) => {
                    let e = e.to_string();
                    // a required sibling may be missing; the key itself must be known and typed
                    assert!(
                        !e.contains("unknown field")
                            && !e.contains("unknown key")
                            && !e.contains("unknown table")
                            && !e.contains("expected a table")
                            && !e.contains("listed twice")
                            && !e.contains("invalid type")
                            && !e.contains("unknown value")
                            && !e.contains("outside")
                            && !e.contains("is not a key of")
                            && !e.contains("belongs to"),
                        "{path} = {v}: {e}"
                    );
                }
            }
        }
    }
}

/// A documented default that is a value (`1000`, `` `"5ms"` ``, `` `voq` ``, `` `[]` ``), as TOML;
/// `None` for prose (`—`, `required`, `` `sim.warmup` ``, `by topology: …`).
fn documented_value(default: &str) -> Option<toml::Value> {
    let inner = default.strip_prefix('`').and_then(|d| d.strip_suffix('`'));
    let lit = inner.unwrap_or(default);
    match format!("v = {lit}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("v"),
        // a bare name in backticks (`voq`); a dotted one names another key
        Err(_) => inner
            .filter(|n| {
                n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-".contains(c))
            })
            .map(|n| toml::Value::String(n.into())),
    }
}

/// The `Option` keys whose default depends on another key or on where the key is, each with its
/// reason: the schema cannot declare such a default beside the field. Every other `Option` key has no default (documented as `—` or required); every key
/// with a fixed default declares it in the schema.
const CONTEXTUAL_DEFAULTS: &[&str] = &[
    // the file's stem
    "scenario.name",
    // inferred from sim.measure_cycles and topology.kind
    "sim.model",
    // by the number of dimensions and mesh or torus
    "topology.port_numbering",
    // from topology.h and topology.p
    "topology.a",
    "topology.h",
    // by the link class: host SDR, fabric QDR
    "links.<class>.speed",
    // one weight per queue of the switch's queue scheme
    "switch.output_weights",
    // switch.output_buffer_credits
    "hca.injection_credits",
    // one weight per injection queue of the queue scheme
    "hca.injection_weights",
    // by topology.kind
    "routing.algorithm",
    // the algorithm's own template
    "routing.vc_template",
    // per link class, from its buffer, latency, VCs and the PFC frame (the headroom)
    "router.pfc.xoff_phits",
    // router.pfc.xoff_phits
    "router.pfc.xon_phits",
    // by routing.algorithm: 500 for acor, 50 for pb_acor
    "routing.acor.it2",
    // 20 % of router.local_buffer_phits (Table 4-3)
    "qcn.q_eq_phits",
    // traffic.load
    "traffic.transient.<phase>.load",
    // the end of the warm-up (sim.warmup_cycles)
    "traffic.transient.at_cycle",
    // until sim.end_time
    "traffic.flows[].stop",
    "traffic.generators[].stop",
    // the flows into the busiest destination
    "stats.fairness_sources",
    // sim.warmup
    "stats.fairness_from",
    // the generators sending only to stats.hotspot, else sim.warmup
    "stats.hotspot_from",
    // what the routing's VC template or classes need
    "router.local_vcs",
    "router.global_vcs",
    // by cc.cct.algorithm: 95 for quadratic, 25 for linear and rate_linear
    "cc.cct.div",
    // the VL of the flow a CNP is about
    "cc.cnp_vl",
    // the node's link rate less its own flow-control packets
    "ddbbm.r_max",
    // VL 0 with ddbbm.mapping = "queues"; the management lane with "virtual_lanes"
    "ddbbm.notification_vl",
];

/// An `Option` key without a default: documented as none or as required.
fn no_default(documented: &str) -> bool {
    documented == "—" || documented.starts_with("required")
}

/// Every `Option` key of the schema is either without a default or listed, with its reason, in
/// [`CONTEXTUAL_DEFAULTS`]: a new `Option` key with a fixed default fails here (declare the
/// default beside the field instead).
#[test]
fn option_keys_have_no_default_or_a_contextual_one() {
    let types: std::collections::HashMap<String, String> = schema_fields().into_iter().collect();
    let mut contextual = Vec::new();
    for k in KEYS {
        let Some(ty) = types.get(k.path) else {
            continue; // a free-form table's keys (`sweep.<key path>`)
        };
        let listed = CONTEXTUAL_DEFAULTS.contains(&k.path);
        if !ty.starts_with("Option<") {
            assert!(
                !listed,
                "{}: listed as contextual, but its type {ty} declares a default",
                k.path
            );
        } else if listed {
            assert!(
                !no_default(k.default),
                "{}: listed as contextual, but documented without a default ({})",
                k.path,
                k.default
            );
            contextual.push(k.path);
        } else {
            assert!(
                no_default(k.default),
                "{}: type {ty} and documented default {}: declare a fixed default beside the \
                 field, or list the key in CONTEXTUAL_DEFAULTS with the key it depends on",
                k.path,
                k.default
            );
        }
    }
    let mut listed = CONTEXTUAL_DEFAULTS.to_vec();
    listed.sort_unstable();
    contextual.sort_unstable();
    assert_eq!(
        contextual, listed,
        "each key of CONTEXTUAL_DEFAULTS once, and a key of schema.rs"
    );
}

/// A scenario with what a key of `model` needs around it: the required tables, `sim.model`, and
/// for a key of an array of tables (`traffic.generators[].vl`) one entry with its required keys.
fn around(path: &str, model: Option<lnsim::config::Model>) -> toml::Table {
    let mut t = base_for(path);
    if let Some(m) = model {
        set(&mut t, "sim.model", toml::Value::String(m.name().into()));
    }
    let (parent, _) = path.rsplit_once('.').unwrap();
    if parent.ends_with("[]") {
        for k in KEYS {
            let sibling = k
                .path
                .strip_prefix(parent)
                .and_then(|r| r.strip_prefix('.'));
            if k.required && sibling.is_some_and(|r| !r.contains('.')) {
                set(&mut t, k.path, sample(k.kind).unwrap());
            }
        }
    } else {
        // the key's table, present and empty
        let mut cur = &mut t;
        for seg in parent.split('.') {
            cur = cur
                .entry(seg.to_string())
                .or_insert_with(|| toml::Value::Table(Default::default()))
                .as_table_mut()
                .unwrap();
        }
    }
    t
}

/// Defaults are declared once, in the schema beside the field: each default the reference
/// documents as a value is the schema's own (the key left out parses exactly as the key set to
/// its documented default), except for the `Option` keys of [`CONTEXTUAL_DEFAULTS`].
#[test]
fn documented_defaults_are_the_schema_defaults() {
    let types: std::collections::HashMap<String, String> = schema_fields().into_iter().collect();
    let mut compared = 0;
    let mut wrong = Vec::new();
    for k in KEYS {
        if k.required {
            continue;
        }
        let Some(value) = documented_value(k.default) else {
            continue;
        };
        let path = &expand(k.path)[0];
        let base = around(path, k.model);
        let mut given = base.clone();
        set(&mut given, path, value.clone());
        let load = |t: &toml::Table| {
            lnsim::config::load_str(
                &toml::to_string(t).unwrap(),
                "t.toml",
                std::path::Path::new("."),
                "t",
                &[],
                None,
            )
            .map(|l| format!("{:?}", l.scenario))
        };
        let ty = &types[k.path];
        match (load(&base), load(&given)) {
            (Err(e), _) => panic!("{path} left out: {e}"),
            (_, Err(e)) => wrong.push(format!(
                "{path}: the documented default {} is not a value of the key: {e}",
                k.default
            )),
            _ if CONTEXTUAL_DEFAULTS.contains(&k.path) => {}
            (Ok(a), Ok(b)) if a != b => wrong.push(format!(
                "{path}: the documented default {} is not the schema's default (type {ty}); \
                 declare it beside the field",
                k.default
            )),
            _ => {}
        }
        compared += 1;
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(compared >= 110, "{compared}");
}

/// A key whose default is declared in the schema is still refused where it does not apply when
/// the scenario gives it, even at its default value: presence, not value, is what is refused.
#[test]
fn a_key_given_at_its_default_is_refused_where_it_does_not_apply() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/ibcc");
    let credit = std::fs::read_to_string(dir.join("zeru_a.toml")).unwrap();
    let cycle = "[sim]\nmeasure_cycles = 100\n[topology]\nkind = \"mesh\"\ndims = [2, 2]\n\
                 hcas_per_switch = 1\n[traffic]\nload = 0.1\n";
    for (text, set, key) in [
        (
            &*credit,
            "routing.dmodk_digits=\"low_first\"",
            "routing.dmodk_digits",
        ),
        (cycle, "routing.dateline=true", "routing.dateline"),
        (
            cycle,
            "traffic.hotspot_fraction=0.1",
            "traffic.hotspot_fraction",
        ),
    ] {
        let validate = |over: &[String]| {
            let l = lnsim::config::load_str(text, "t.toml", &dir, "t", over, None)?;
            lnsim::api::validate_scenario(&l, None)
        };
        validate(&[]).unwrap_or_else(|e| panic!("without {set}: {e}"));
        let e = validate(&[set.to_string()]).unwrap_err().to_string();
        assert!(e.contains(key), "{set}: {e}");
    }
}
