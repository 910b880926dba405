//! Scenario configuration: strict TOML schema, units, `--set` overrides, and errors that name
//! the offending key path (architecture: "config").

pub mod catalog;
pub mod choice;
pub mod host_lists;
pub mod input_files;
pub mod introspect;
pub mod keys;
pub mod kinds;
pub mod model;
pub mod model_choice;
pub mod schema;
pub mod units;

pub use model::Model;
pub use model_choice::ModelChoice;
pub use schema::*;
pub use units::{BitRate, Bytes, Duration, Frequency, Ps, PS_PER_S};

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// A parsed scenario plus where it came from.
#[derive(Debug, Clone)]
pub struct LoadedScenario {
    /// The typed scenario, overrides applied.
    pub scenario: Scenario,
    /// Folder of the scenario file: relative paths (`topology.file`, `routing.file`) start here.
    pub base_dir: PathBuf,
    /// The merged scenario as a TOML table (written to the results as `scenario.toml`).
    pub merged: toml::Table,
    /// The scenario name (from `scenario.name` or the file stem).
    pub name: String,
    /// The model it runs on and whether `sim.model` named it or it was inferred.
    pub model_choice: ModelChoice,
}

impl SimConfig {
    /// `sim.end_time` in picoseconds (0 when absent).
    pub fn end_ps(&self) -> Ps {
        self.end_time.map_or(0, |d| d.0)
    }
}

impl LoadedScenario {
    /// The model this scenario runs on (see [`ModelChoice::of`]).
    pub fn model(&self) -> Model {
        self.model_choice.model
    }

    /// Whether the scenario itself gives the key at `path` (`"routing.dateline"`), overrides
    /// included: a key refused where it does not apply is refused because it is present, even
    /// when its value is the default the typed scenario holds.
    pub fn given(&self, path: &str) -> bool {
        let mut cur = &self.merged;
        let mut segs = path.split('.').peekable();
        while let Some(seg) = segs.next() {
            match cur.get(seg) {
                None => return false,
                Some(_) if segs.peek().is_none() => return true,
                Some(toml::Value::Table(t)) => cur = t,
                Some(_) => return false,
            }
        }
        false
    }
}

/// The text of the scenario file at `path`: a regular UTF-8 file of at most
/// [`input_files::MAX_INPUT_BYTES`] (a FIFO, a device or a folder is refused before it is opened,
/// [`input_files::read_text`]); the error names the file.
pub fn read_scenario(path: &Path) -> Result<String> {
    input_files::read_text(path).map_err(|why| {
        Error::Input(if why == "does not exist" {
            format!("{}: no such scenario file", path.display())
        } else {
            format!("{}: scenario file {why}", path.display())
        })
    })
}

/// Reads and parses a scenario file, applying `key.path=value` overrides and an optional seed.
pub fn load_file(path: &Path, overrides: &[String], seed: Option<u64>) -> Result<LoadedScenario> {
    let text = read_scenario(path)?;
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("scenario")
        .to_string();
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    load_str(
        &text,
        &path.display().to_string(),
        &base,
        &stem,
        overrides,
        seed,
    )
}

/// Parses scenario text (see [`load_file`]); `origin` names it in error messages.
pub fn load_str(
    text: &str,
    origin: &str,
    base_dir: &Path,
    default_name: &str,
    overrides: &[String],
    seed: Option<u64>,
) -> Result<LoadedScenario> {
    let mut table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| Error::Input(format!("{origin}: TOML syntax error: {e}")))?;
    // what set each key path other than the file: (key path, "--set key=value" / "--seed N")
    let mut set_by: Vec<(String, String)> = Vec::new();
    for ov in overrides {
        let key = apply_override(&mut table, ov)?;
        set_by.push((key, format!("--set {}", shortened(ov))));
    }
    if let Some(s) = seed {
        let v = i64::try_from(s).map_err(|_| {
            Error::Input(format!(
                "--seed {s}: outside the allowed range 0 … {} (seeds are TOML integers)",
                i64::MAX
            ))
        })?;
        set_by.push(("sim.seed".into(), format!("--seed {s}")));
        set_path(&mut table, "sim.seed", toml::Value::Integer(v), "--seed")?;
    }
    // an error about a key names where its value came from: the last override that set it (or
    // the table it is in), else the file; an error about a table of the other model also names
    // an override that set a key inside it
    let blamed = |path: &str, inside: bool| -> &str {
        set_by
            .iter()
            .rev()
            .find(|(key, _)| covers(key, path) || (inside && covers(path, key)))
            .map_or(origin, |(_, by)| by.as_str())
    };
    let blame = |path: &str| blamed(path, false);
    keys::check_ranges(&table).map_err(|e| match e {
        Error::Input(m) => match m.split_once(": ") {
            Some((key, rest)) => Error::Input(format!("{}: key `{key}`: {rest}", blame(key))),
            None => Error::Input(format!("{origin}: {m}")),
        },
        other => other,
    })?;
    // the model, then no key of the other one (named by the key metadata)
    let chosen = ModelChoice::of(&table)
        .and_then(|c| model_choice::check_keys(&table, c).map(|()| c))
        .map_err(|e| match e {
            Error::Input(m) => {
                let by = named_path(&m).map_or(origin, |p| blamed(p, m.starts_with("table")));
                Error::Input(format!("{by}: {m}"))
            }
            other => other,
        })?;
    // a scenario that does not name its routing gets the model's default for its topology,
    // named before `[routing]` is read as that algorithm's keys (the file itself is kept as is)
    let mut typed = table.clone();
    name_default_routing(&mut typed, chosen.model).map_err(|e| match e {
        Error::Input(m) => Error::Input(format!("{origin}: {m}")),
        other => other,
    })?;
    let mut scenario: Scenario =
        serde_path_to_error::deserialize(toml::Value::Table(typed.clone())).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner().to_string();
            let inner = inner.trim().trim_end_matches('.').replace('\n', " ");
            let inner = without_key_suffix(&inner);
            // a refused selector (`topology.kind`) is explained by its table
            // (read in the table as parsed: with the default routing named)
            let explained = kinds::explain(&path, &typed).or_else(|| {
                let (parent, last) = path.rsplit_once('.')?;
                let kt = kinds::kind_table(parent)?;
                (last == kt.selector).then(|| kinds::explain(parent, &typed))?
            });
            if let Some((key, why)) = explained {
                let mut why = without_key_suffix(&why);
                if why.starts_with("missing") {
                    if let Some(k) = keys::lookup(&key) {
                        why = format!("{why} ({})", k.doc);
                    }
                }
                return Error::Input(format!("{}: key `{key}`: {why}", blame(&key)));
            }
            if path == "." || path.is_empty() {
                Error::Input(format!("{origin}: {inner}"))
            } else {
                Error::Input(format!("{}: key `{path}`: {inner}", blame(&path)))
            }
        })?;
    // host lists (`node[001-128]`, `@hosts.txt`) become names here, for validate and run alike
    host_lists::expand_scenario(&mut scenario, base_dir).map_err(|e| match e {
        Error::Input(m) => match m.split_once(": ") {
            Some((key, rest)) => Error::Input(format!("{}: key `{key}`: {rest}", blame(key))),
            None => Error::Input(format!("{origin}: {m}")),
        },
        other => other,
    })?;
    let name = match &scenario.scenario.name {
        Some(n) => {
            check_name(n).map_err(|why| {
                Error::Input(format!(
                    "{}: key `scenario.name`: {why}",
                    blame("scenario.name")
                ))
            })?;
            n.clone()
        }
        None => {
            check_name(default_name).map_err(|why| {
                Error::Input(format!(
                    "{origin}: the scenario name {default_name:?}, taken from the file name, \
                     {}; set scenario.name",
                    why.trim_start_matches(&format!("{default_name:?} "))
                ))
            })?;
            default_name.to_string()
        }
    };
    Ok(LoadedScenario {
        scenario,
        base_dir: base_dir.to_path_buf(),
        merged: table,
        name,
        model_choice: chosen,
    })
}

/// A scenario parsed as `lnsim run` would (for tests of the model code); panics on an error.
#[cfg(test)]
pub(crate) fn parse_for_test(text: &str) -> Scenario {
    load_str(text, "test.toml", Path::new("."), "test", &[], None)
        .unwrap_or_else(|e| panic!("{e}"))
        .scenario
}

/// Sets `routing.algorithm` in `table` to the default of `model` for its topology kind when
/// the scenario does not name one ([`schema::default_routing`]); a topology without a default
/// (a Dragonfly) is an error naming the key.
fn name_default_routing(table: &mut toml::Table, model: Model) -> Result<()> {
    let named = table
        .get("routing")
        .and_then(|r| r.as_table())
        .is_some_and(|r| r.contains_key("algorithm"));
    if named {
        return Ok(());
    }
    let kind = table
        .get("topology")
        .and_then(|t| t.get("kind"))
        .and_then(|k| k.as_str())
        .and_then(|k| TopologyKind::NAMES.iter().position(|n| *n == k))
        .map(|i| TopologyKind::ALL[i]);
    // no topology kind: serde names the missing key
    let Some(kind) = kind else { return Ok(()) };
    let Some(alg) = schema::default_routing(model, kind) else {
        let routings: Vec<&str> = catalog::CATALOG
            .iter()
            .filter(|i| i.category == "routing" && i.model == Some(model))
            .map(|i| i.name)
            .collect();
        let (last, rest) = routings.split_last().expect("the model has routings");
        return Err(Error::Input(format!(
            "key `routing.algorithm`: required for a {}: {} or {last}",
            match kind {
                TopologyKind::Dragonfly => "Dragonfly".to_string(),
                other => other.name().replace('_', " "),
            },
            rest.join(", ")
        )));
    };
    let routing = table
        .entry("routing")
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    if let Some(r) = routing.as_table_mut() {
        r.insert(
            "algorithm".into(),
            toml::Value::String(alg.name().to_string()),
        );
    }
    Ok(())
}

/// Checks that a scenario name can name its default results folder `results/<name>/`: one
/// path component (no `/` or `\`), not `.` or `..`, not empty, no control characters.
/// Returns the reason otherwise.
pub fn check_name(name: &str) -> std::result::Result<(), String> {
    const ALLOWED: &str = "a scenario name names the results folder results/<name>/: use a \
                           non-empty name without `/`, `\\` or control characters, other than \
                           `.` and `..` (e.g. \"zeru_a\")";
    let bad = if name.is_empty() {
        Some("is empty")
    } else if name == "." || name == ".." {
        Some("is not a folder name")
    } else if name.contains(['/', '\\']) {
        Some("contains a path separator")
    } else if name.chars().any(char::is_control) {
        Some("contains a control character")
    } else {
        None
    };
    match bad {
        None => Ok(()),
        Some(b) => Err(format!("{name:?} {b}; {ALLOWED}")),
    }
}

/// Most characters of an override quoted in a message.
const MAX_QUOTED: usize = 100;

/// `ov` for a message, cut after [`MAX_QUOTED`] characters.
fn shortened(ov: &str) -> String {
    match ov.char_indices().nth(MAX_QUOTED) {
        Some((i, _)) => format!("{}…", &ov[..i]),
        None => ov.to_string(),
    }
}

/// Is the key path `inner` the path `outer` or inside it (`router` covers `router.latency` and
/// `traffic.flows` covers `traffic.flows[0].src`)?
fn covers(outer: &str, inner: &str) -> bool {
    inner
        .strip_prefix(outer)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

/// The path a message of the model check names (`key `sim.end_time`: …`, `table `router`: …`).
fn named_path(m: &str) -> Option<&str> {
    let rest = m
        .strip_prefix("key `")
        .or_else(|| m.strip_prefix("table `"))?;
    rest.split_once('`').map(|(path, _)| path)
}

/// A serde message without the ` in `key`` the TOML deserialiser appends (the message names
/// the key already).
fn without_key_suffix(m: &str) -> String {
    match m.rsplit_once(" in `") {
        Some((head, tail)) if tail.ends_with('`') && !tail[..tail.len() - 1].contains('`') => {
            head.to_string()
        }
        _ => m.to_string(),
    }
}

/// Applies one `key.path=value` override and returns its key path; the value is read as a
/// TOML literal, or as a string if it is not one (so `--set sim.end_time=0.2s` works without
/// quotes).
pub fn apply_override(table: &mut toml::Table, ov: &str) -> Result<String> {
    let (key, raw) = ov
        .split_once('=')
        .ok_or_else(|| Error::Input(format!("--set {ov}: expected key.path=value")))?;
    let key = key.trim();
    if key.is_empty() || key.split('.').any(|p| p.is_empty()) {
        return Err(Error::Input(format!("--set {ov}: empty key path")));
    }
    let raw = raw.trim();
    let value = match format!("v = {raw}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").expect("v present"),
        // a whole number TOML cannot hold is not meant as a string
        Err(_) if is_integer_text(raw) => {
            return Err(Error::Input(format!(
            "--set {ov}: {raw} is not a TOML integer (those are {} … {}, without leading zeros)",
            i64::MIN,
            i64::MAX
        )))
        }
        Err(_) => toml::Value::String(raw.to_string()),
    };
    set_path(table, key, value, &format!("--set {}", shortened(ov)))?;
    Ok(key.to_string())
}

/// `-12`, `+3`, `18446744073709551616`: an optional sign and decimal digits.
fn is_integer_text(raw: &str) -> bool {
    let digits = raw.strip_prefix(['-', '+']).unwrap_or(raw);
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
}

fn set_path(table: &mut toml::Table, key: &str, value: toml::Value, origin: &str) -> Result<()> {
    // segments are `name` or `name[index]` (an entry of an array of tables, e.g. `traffic.flows[2].start`)
    let parts: Vec<&str> = key.split('.').collect();
    let mut cur = table;
    for (i, p) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let (name, index) = match p.split_once('[') {
            Some((n, rest)) => {
                let idx = rest
                    .strip_suffix(']')
                    .and_then(|x| x.parse::<usize>().ok())
                    .ok_or_else(|| {
                        Error::Input(format!(
                            "{origin}: bad index in `{p}`; write e.g. `flows[0]`"
                        ))
                    })?;
                (n, Some(idx))
            }
            None => (*p, None),
        };
        let here = parts[..=i].join(".");
        match index {
            None if last => {
                cur.insert(name.to_string(), value);
                return Ok(());
            }
            None => {
                let entry = cur
                    .entry(name.to_string())
                    .or_insert_with(|| toml::Value::Table(toml::Table::new()));
                cur = match entry {
                    toml::Value::Table(t) => t,
                    _ => {
                        return Err(Error::Input(format!(
                            "{origin}: `{here}` is not a table, cannot set `{key}`"
                        )))
                    }
                };
            }
            Some(idx) => {
                let arr = match cur.get_mut(name) {
                    Some(toml::Value::Array(a)) => a,
                    _ => {
                        return Err(Error::Input(format!(
                            "{origin}: `{name}` is not an array in `{key}`"
                        )))
                    }
                };
                let len = arr.len();
                let elem = arr.get_mut(idx).ok_or_else(|| {
                    Error::Input(format!(
                        "{origin}: `{here}` does not exist (the array has {len} entries)"
                    ))
                })?;
                if last {
                    *elem = value;
                    return Ok(());
                }
                cur = match elem {
                    toml::Value::Table(t) => t,
                    _ => {
                        return Err(Error::Input(format!(
                            "{origin}: `{here}` is not a table, cannot set `{key}`"
                        )))
                    }
                };
            }
        }
    }
    unreachable!("loop returns on the last part")
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: &str = "[sim]\nend_time = \"1ms\"\n[topology]\nkind = \"mesh\"\ndims = [2, 2]\nhcas_per_switch = 1\n";

    #[test]
    fn unknown_key_is_named() {
        let e = load_str(
            &format!("{MIN}[switch]\nbufer_credits = 5\n"),
            "t.toml",
            Path::new("."),
            "t",
            &[],
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("bufer_credits"), "{e}");
    }

    #[test]
    fn scenario_names_that_are_not_one_folder_are_refused() {
        for bad in ["..", ".", "", "../../x", "a/b", "a\\b", "x\ny"] {
            let e = load_str(
                MIN,
                "t.toml",
                Path::new("."),
                "t",
                &[format!("scenario.name={}", toml::Value::String(bad.into()))],
                None,
            )
            .unwrap_err()
            .to_string();
            assert!(
                e.contains("scenario.name") && e.contains("results/<name>/"),
                "{bad:?}: {e}"
            );
        }
        for good in ["zeru_a", "h4 un", ".hidden", "a..b", "x-sweep"] {
            let o = [format!(
                "scenario.name={}",
                toml::Value::String(good.into())
            )];
            let l = load_str(MIN, "t.toml", Path::new("."), "t", &o, None).unwrap();
            assert_eq!(l.name, good);
        }
        // a file stem that cannot name a folder is refused too (and says how to fix it)
        let e = load_str(MIN, "..toml", Path::new("."), ".", &[], None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("taken from the file name") && e.contains("set scenario.name"),
            "{e}"
        );
    }

    fn load(text: &str, overrides: &[&str]) -> Result<LoadedScenario> {
        let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        load_str(text, "t.toml", Path::new("."), "t", &o, None)
    }

    #[test]
    fn a_topology_key_of_another_kind_is_refused_by_its_type_naming_the_kinds_keys() {
        let base = "[sim]\nend_time = \"1ms\"\n[topology]\n";
        let cases = [
            ("kind = \"mesh\"\ndims = [2, 2]\nhcas_per_switch = 1\nk = 4\n", "topology.k",
             "is not a key of topology.kind = \"mesh\" (it applies to fat_tree); its keys: kind, dims, hcas_per_switch, port_numbering"),
            ("kind = \"fat_tree\"\nk = 4\nn = 2\ndims = [2]\n", "topology.dims",
             "is not a key of topology.kind = \"fat_tree\" (it applies to mesh and torus); its keys: kind, k, n, down, up"),
            ("kind = \"gran_testbed\"\nhcas_per_switch = 2\n", "topology.hcas_per_switch",
             "is not a key of topology.kind = \"gran_testbed\" (it applies to mesh and torus); it takes no key besides `kind`"),
            ("kind = \"file\"\nfile = \"x.topo\"\nk = 2\n", "topology.k",
             "its keys: kind, file"),
        ];
        for (topo, key, why) in cases {
            let e = load(&format!("{base}{topo}"), &[]).unwrap_err().to_string();
            assert!(e.starts_with(&format!("t.toml: key `{key}`: ")), "{e}");
            assert!(e.contains(why), "{e}");
        }
        // through an override, the override is blamed
        let mesh = "kind = \"mesh\"\ndims = [2, 2]\nhcas_per_switch = 1\n";
        let e = load(&format!("{base}{mesh}"), &["topology.n=3"])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--set topology.n=3: key `topology.n`: is not a key of"),
            "{e}"
        );
        // a key the kind requires is named, with what it means
        let e = load(&format!("{base}kind = \"mesh\"\ndims = [2, 2]\n"), &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.toml: key `topology.hcas_per_switch`: missing: topology.kind = \"mesh\" requires it (HCAs per switch"),
            "{e}"
        );
        let e = load(&format!("{base}kind = \"file\"\n"), &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "t.toml: key `topology.file`: missing: topology.kind = \"file\" requires it"
            ),
            "{e}"
        );
    }

    #[test]
    fn a_scenario_without_routing_gets_its_models_routing_for_the_topology() {
        let credit = "[sim]\nend_time = \"1ms\"\n[topology]\n";
        let cycle = "[sim]\nmeasure_cycles = 10\n[topology]\n";
        for (text, want) in [
            (
                format!("{credit}kind = \"fat_tree\"\nk = 2\nn = 2\n"),
                "dmodk",
            ),
            (
                format!("{credit}kind = \"mesh\"\ndims = [2]\nhcas_per_switch = 1\n"),
                "dor",
            ),
            (format!("{credit}kind = \"gran_testbed\"\n"), "updown"),
            (
                format!("{cycle}kind = \"torus\"\ndims = [4]\nhcas_per_switch = 1\n"),
                "dor",
            ),
        ] {
            let l = load(&text, &[]).unwrap();
            assert_eq!(l.scenario.routing.algorithm().name(), want, "{text}");
            // the scenario as run is the file: the default is not written into it
            assert!(!l.merged.contains_key("routing"), "{text}");
        }
        // the default routing's keys, and only its keys
        let tree = format!("{credit}kind = \"fat_tree\"\nk = 2\nn = 2\n[routing]\n");
        let l = load(&format!("{tree}dmodk_digits = \"high_first\"\n"), &[]).unwrap();
        assert!(
            matches!(l.scenario.routing, RoutingConfig::Dmodk(ref k) if k.dmodk_digits == DmodkDigits::HighFirst)
        );
        let l = load(&format!("{tree}dmodk_key = \"source\"\n"), &[]).unwrap();
        assert!(
            matches!(l.scenario.routing, RoutingConfig::Dmodk(ref k) if k.dmodk_key == DmodkKey::Source)
        );
        for (key, bad) in [("dmodk_key", "sauce"), ("dmodk_digits", "middle_first")] {
            let e = load(&format!("{tree}{key} = \"{bad}\"\n"), &[])
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!("routing.{key}")) && e.contains(bad),
                "{e}"
            );
        }
        let e = load(&format!("{tree}file = \"t.fdbs\"\n"), &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("key `routing.file`: is not a key of routing.algorithm = \"dmodk\" (it applies to lft_file and lft_dump)"), "{e}");
        // a Dragonfly has no default routing
        let e = load(&format!("{cycle}kind = \"dragonfly\"\np = 1\n"), &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.toml: key `routing.algorithm`: required for a Dragonfly: min, vlb,"),
            "{e}"
        );
    }

    #[test]
    fn the_model_is_named_or_inferred_as_before() {
        let l = load(MIN, &[]).unwrap();
        assert_eq!(l.model(), Model::Credit);
        assert_eq!(
            l.model_choice.note().unwrap(),
            "sim.model not given: inferred credit from the absence of sim.measure_cycles \
             and of a Dragonfly; add sim.model = \"credit\""
        );
        let l = load(MIN, &["sim.model=credit"]).unwrap();
        assert_eq!(l.model(), Model::Credit);
        assert_eq!(l.model_choice.note(), None);
        assert_eq!(l.model_choice.how(), "sim.model = \"credit\"");
        let cycle = "[sim]\nmeasure_cycles = 100\n[topology]\nkind = \"mesh\"\ndims = [2, 2]\nhcas_per_switch = 1\n";
        let l = load(cycle, &[]).unwrap();
        assert_eq!(l.model(), Model::Cycle);
        assert!(l
            .model_choice
            .note()
            .unwrap()
            .ends_with("inferred cycle from sim.measure_cycles; add sim.model = \"cycle\""));
        let df = "[sim]\n[topology]\nkind = \"dragonfly\"\np = 2\n[routing]\nalgorithm = \"min\"\n";
        let l = load(df, &[]).unwrap();
        assert_eq!(l.model(), Model::Cycle);
        assert_eq!(
            l.model_choice.inferred_from,
            Some("topology.kind = \"dragonfly\"")
        );
        let e = load(MIN, &["sim.model=ib"]).unwrap_err().to_string();
        assert!(
            e.contains("sim.model") && e.contains("allowed: \"credit\", \"cycle\""),
            "{e}"
        );
    }

    #[test]
    fn the_credit_level_models_former_name_is_accepted_and_said() {
        let l = load(MIN, &["sim.model=infiniband"]).unwrap();
        assert_eq!(l.model(), Model::Credit);
        assert_eq!(l.model_choice.note(), None);
        assert_eq!(
            l.model_choice.how(),
            "sim.model = \"infiniband\", the former name of \"credit\""
        );
        // a key of the other model names both
        let e = load(MIN, &["sim.model=infiniband", "sim.measure_cycles=10"])
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with(
                "runs the credit-level model (sim.model = \"infiniband\", the former name of \
                 \"credit\")"
            ),
            "{e}"
        );
    }

    #[test]
    fn a_key_table_or_value_of_the_other_model_is_refused_naming_both_models() {
        // a key
        let e = load(MIN, &["sim.model=credit", "sim.measure_cycles=10"])
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "--set sim.measure_cycles=10: key `sim.measure_cycles`: belongs to the cycle-level \
             model (sim.model = \"cycle\"), but this scenario runs the credit-level model \
             (sim.model = \"credit\")"
        );
        // a table, even an empty one; an inferred model says where it came from
        let e = load(&format!("{MIN}[router]\n"), &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.toml: table `router`: belongs to the cycle-level model")
                && e.ends_with(
                    "(sim.model not given: inferred credit from the absence of \
                                sim.measure_cycles and of a Dragonfly)"
                ),
            "{e}"
        );
        let e = load(MIN, &["sim.model=cycle"]).unwrap_err().to_string();
        assert!(
            e.contains("key `sim.end_time`: belongs to the credit-level model"),
            "{e}"
        );
        let e = load(MIN, &["sim.model=cycle", "links.host.width=4x"]).unwrap_err();
        assert!(
            e.to_string()
                .contains("table `links`: belongs to the credit-level model"),
            "{e}"
        );
        let text = "[sim]\nmodel = \"cycle\"\nmeasure_cycles = 10\n[topology]\nkind = \"mesh\"\n\
                    dims = [2, 2]\n[[traffic.flows]]\nsrc = \"H111\"\ndst = \"H121\"\n";
        let e = load(text, &[]).unwrap_err().to_string();
        assert!(
            e.contains("table `traffic.flows`: belongs to the credit-level model"),
            "{e}"
        );
        // a value only the other model has
        let df = "[sim]\nmodel = \"credit\"\nend_time = \"1ms\"\n[topology]\nkind = \"dragonfly\"\np = 2\n";
        let e = load(df, &[]).unwrap_err().to_string();
        assert!(
            e.contains("key `topology.kind` = \"dragonfly\": belongs to the cycle-level model"),
            "{e}"
        );
        // [sweep] is left to each point
        load(&format!("{MIN}[sweep]\n\"router.latency\" = [1, 2]\n"), &[]).unwrap();
    }

    /// Every table of the format (from the key metadata): an array or a scalar in its place
    /// is refused naming it, never read by position.
    #[test]
    fn a_table_written_as_an_array_or_a_scalar_is_refused_everywhere() {
        let cycle = "[sim]\nmodel = \"cycle\"\nmeasure_cycles = 10\n[topology]\nkind = \"mesh\"\n\
                     dims = [2, 2]\n";
        let mut tables: Vec<String> = Vec::new();
        for k in keys::KEYS {
            let segs: Vec<&str> = k.path.split('.').collect();
            for i in 1..segs.len() {
                let t = segs[..i].join(".");
                if !tables.contains(&t) {
                    tables.push(t);
                }
            }
        }
        let tables: Vec<String> = tables.iter().flat_map(|t| keys::expand(t)).collect();
        assert!(tables.len() > 25, "{tables:?}");
        for t in &tables {
            let (path, shown) = match t.strip_suffix("[]") {
                Some(arr) => (arr.to_string(), format!("{arr}[0]")),
                None => (t.replace("[]", "[0]"), t.replace("[]", "[0]")),
            };
            if path.contains("[0]") {
                continue; // inside an array of tables: reached through its entries below
            }
            for value in ["[1, 2, 1]", "[]", "[7]", "3", "\"x\""] {
                // (an empty array is an empty array of tables where the format has one)
                if t.ends_with("[]") && value == "[]" {
                    continue;
                }
                for base in [MIN, cycle] {
                    let e = load(base, &[&format!("{path}={value}")])
                        .unwrap_err()
                        .to_string();
                    let want = if t.ends_with("[]") && !value.starts_with('[') {
                        format!("key `{path}`: expected an array of tables")
                    } else {
                        format!("key `{shown}`: expected a table")
                    };
                    assert!(
                        e.starts_with(&format!("--set {path}={value}: {want}")),
                        "{path} = {value}: {e}"
                    );
                }
            }
        }
        // in the file: named with the file; [[x]] where [x] is meant says so
        let e = load(&format!("router = [1, 2, 1]\n{MIN}"), &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "t.toml: key `router`: expected a table (`[router]` with keys such as \
                           `latency`), got an array; a table's values are named"
            ),
            "{e}"
        );
        let e = load(&format!("{MIN}[[hca]]\nbuffer_credits = 7\n"), &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("key `hca`: expected a table") && e.contains("write `[hca]`, not `[[hca]]`"),
            "{e}"
        );
        let e = load(
            &format!(
                "{MIN}[[traffic.transient.before.mix]]\npattern = 3\n[traffic.transient.after]\n"
            ),
            &["traffic.transient.before.mix[0]=[0.5]"],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("key `traffic.transient.before.mix[0]`: expected a table"),
            "{e}"
        );
        // what the format expects still reads
        load(
            &format!("{MIN}[[traffic.flows]]\nsrc = \"H111\"\ndst = \"H121\"\n"),
            &[],
        )
        .unwrap();
        load(
            &format!("traffic.flows = [{{src = \"H111\", dst = \"H121\"}}]\n{MIN}"),
            &[],
        )
        .unwrap();
        load(
            &format!("traffic.flows = []\n{MIN}[sweep]\n\"sim.seed\" = [1, 2]\n"),
            &[],
        )
        .unwrap();
    }

    #[test]
    fn a_repeated_entry_of_a_set_is_refused_naming_it() {
        let gen = |k: &str, v: &str| {
            format!("{MIN}[[traffic.generators]]\nsources = \"all\"\n{k} = {v}\n")
        };
        let twice = |e: &str, key: &str, entry: &str| {
            assert!(
                e.contains(&format!("key `{key}`: {entry} is listed twice"))
                    && e.contains("is a set"),
                "{e}"
            )
        };
        let l = |t: &str| load(t, &[]).unwrap_err().to_string();
        twice(
            &l(&format!(
                "{MIN}[stats]\nfairness_sources = [\"H112\", \"H121\", \"H112\"]\n"
            )),
            "stats.fairness_sources[2]",
            "\"H112\"",
        );
        twice(
            &l(&gen("idle", "[\"H111\", \"H111\"]")),
            "traffic.generators[0].idle[1]",
            "\"H111\"",
        );
        twice(
            &l(&gen("destinations", "[\"H111\", \"H121\", \"H121\"]")),
            "traffic.generators[0].destinations[2]",
            "\"H121\"",
        );
        twice(
            &l(&gen("hotspot", "[\"H111\", \"H111\"]")),
            "traffic.generators[0].hotspot[1]",
            "\"H111\"",
        );
        let e = l(&format!(
            "{MIN}[[traffic.generators]]\nsources = [\"H121\", \"H121\"]\n"
        ));
        twice(&e, "traffic.generators[0].sources[1]", "\"H121\"");
        let cycle = "[sim]\nmeasure_cycles = 10\n[topology]\nkind = \"mesh\"\ndims = [2, 2]\n\
                     [traffic]\nload = 0.1\npattern = \"hotspot\"\nhotspots = [3, 1, 3]\n";
        twice(&l(cycle), "traffic.hotspots[2]", "3");
        // from an override, the override is named
        let e = load(MIN, &["stats.fairness_sources=[\"H111\",\"H111\"]"])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--set stats.fairness_sources=[\"H111\",\"H111\"]: key"),
            "{e}"
        );
        // lists that are not sets may repeat a value
        load(&format!("{MIN}[topology]\n"), &[]).unwrap_err(); // (a duplicate table: TOML's own error)
        load(
            MIN,
            &["topology.dims=[2, 2]", "switch.output_weights=[1, 1]"],
        )
        .unwrap();
        load(
            &format!("{MIN}[stats]\nfairness_sources = [\"H111\", \"H121\"]\n"),
            &[],
        )
        .unwrap();
    }

    #[test]
    fn an_error_names_the_override_that_set_the_value() {
        let e = load(MIN, &["sim=3"]).unwrap_err().to_string();
        assert!(
            e.starts_with("--set sim=3: key `sim`: expected a table"),
            "{e}"
        );
        let e = load(MIN, &["sim.end_time=-1ms"]).unwrap_err().to_string();
        assert_eq!(
            e,
            "--set sim.end_time=-1ms: key `sim.end_time`: duration \"-1ms\" is negative; a \
             duration must be positive (or zero)"
        );
        let e = load(MIN, &["router.latency=3"]).unwrap_err().to_string();
        assert!(
            e.starts_with("--set router.latency=3: table `router`: belongs to the cycle"),
            "{e}"
        );
        let e = load(MIN, &["scenario.name=\"a/b\""])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--set scenario.name=\"a/b\": key `scenario.name`"),
            "{e}"
        );
        // the value in the file, with the override elsewhere: the file
        let e = load(&MIN.replace("\"1ms\"", "\"-1ms\""), &["sim.seed=3"])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.toml: key `sim.end_time`: duration \"-1ms\" is negative"),
            "{e}"
        );
        // a later override of the same key is the one named; a long one is shortened
        let long = format!("scenario.description=\"{}\"", "x".repeat(300));
        let e = load(MIN, &[&long, "sim.end_time=1", "sim.end_time=2"])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--set sim.end_time=2: key `sim.end_time`: duration \"2\" has no unit"),
            "{e}"
        );
        let e = load(MIN, &[&format!("sim.x={}", "y".repeat(300))])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--set sim.x=yyy") && e.contains("…: key `sim.x`") && e.len() < 300,
            "{e}"
        );
    }

    #[test]
    fn an_unknown_key_is_named_with_the_nearest_known_one() {
        let cases = [
            ("sim.end_tme=1s", "sim.end_tme", Some("sim.end_time")),
            ("sm.end_time=1s", "sm.end_time", Some("sim.end_time")),
            (
                "sim.hcas_per_switch=3",
                "sim.hcas_per_switch",
                Some("topology.hcas_per_switch"),
            ),
            ("traffic.Load=0.5", "traffic.Load", Some("traffic.load")),
            (
                "links.host.sped=\"QDR\"",
                "links.host.sped",
                Some("links.host.speed"),
            ),
            (
                "traffic.transient.before.mix=[{fracton = 1}]",
                "traffic.transient.before.mix[0].fracton",
                Some("traffic.transient.before.mix[0].fraction"),
            ),
            ("zzz.qqq=1", "zzz.qqq", None),
        ];
        for (ov, key, near) in cases {
            let e = load(MIN, &[ov]).unwrap_err().to_string();
            let want = match near {
                Some(n) => format!("--set {ov}: key `{key}`: unknown key; did you mean `{n}`?"),
                None => format!("--set {ov}: key `{key}`: unknown key; `lnsim keys zzz` lists"),
            };
            assert!(e.starts_with(&want), "{ov}: {e}");
        }
        let text =
            format!("{MIN}[[traffic.flows]]\nsrc = \"H111\"\ndst = \"H121\"\nstrat = \"1ms\"\n");
        let e = load(&text, &[]).unwrap_err().to_string();
        assert_eq!(
            e,
            "t.toml: key `traffic.flows[0].strat`: unknown key; did you mean `traffic.flows[0].start`?"
        );
        let e = load(&format!("{MIN}[swich]\n"), &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.toml: key `swich`: unknown table; did you mean `switch`"),
            "{e}"
        );
    }

    #[test]
    fn bad_unit_is_named() {
        let e = load_str(
            MIN,
            "t.toml",
            Path::new("."),
            "t",
            &["sim.end_time=3parsecs".into()],
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("sim.end_time") && e.contains("allowed units"),
            "{e}"
        );
    }

    #[test]
    fn overrides_reach_array_entries() {
        let text = format!("{MIN}[[traffic.flows]]\nsrc = \"H111\"\ndst = \"H121\"\n");
        let l = load_str(
            &text,
            "t.toml",
            Path::new("."),
            "t",
            &["traffic.flows[0].start=3ms".into()],
            None,
        )
        .unwrap();
        assert_eq!(l.scenario.traffic.flows[0].start.0, 3_000_000_000);
        let e = load_str(
            &text,
            "t.toml",
            Path::new("."),
            "t",
            &["traffic.flows[4].start=3ms".into()],
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("has 1 entries"), "{e}");
    }

    #[test]
    fn overrides_and_seed_apply() {
        let l = load_str(
            MIN,
            "t.toml",
            Path::new("."),
            "t",
            &[
                "sim.end_time=0.2s".into(),
                "switch.buffer_credits=64".into(),
            ],
            Some(7),
        )
        .unwrap();
        assert_eq!(l.scenario.sim.end_ps(), 200_000_000_000);
        assert_eq!(l.scenario.switch.buffer_credits, 64);
        assert_eq!(l.scenario.sim.seed, 7);
    }
}
