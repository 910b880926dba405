//! Scenario configuration: strict TOML schema, units, `--set` overrides, and errors that name
//! the offending key path (architecture: "config").

pub mod catalog;
pub mod choice;
pub mod keys;
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
}

/// Reads and parses a scenario file, applying `key.path=value` overrides and an optional seed.
pub fn load_file(path: &Path, overrides: &[String], seed: Option<u64>) -> Result<LoadedScenario> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::Input(format!(
            "{}: cannot read scenario file: {e}",
            path.display()
        ))
    })?;
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
    for ov in overrides {
        apply_override(&mut table, ov)?;
    }
    if let Some(s) = seed {
        let v = i64::try_from(s).map_err(|_| {
            Error::Input(format!(
                "--seed {s}: outside the allowed range 0 … {} (seeds are TOML integers)",
                i64::MAX
            ))
        })?;
        set_path(&mut table, "sim.seed", toml::Value::Integer(v), "--seed")?;
    }
    keys::check_ranges(&table).map_err(|e| match e {
        Error::Input(m) => match m.split_once(": ") {
            Some((key, rest)) => Error::Input(format!("{origin}: key `{key}`: {rest}")),
            None => Error::Input(format!("{origin}: {m}")),
        },
        other => other,
    })?;
    // the model, then no key of the other one (named by the key metadata)
    let chosen = ModelChoice::of(&table)
        .and_then(|c| model_choice::check_keys(&table, c).map(|()| c))
        .map_err(|e| match e {
            Error::Input(m) => Error::Input(format!("{origin}: {m}")),
            other => other,
        })?;
    let scenario: Scenario = serde_path_to_error::deserialize(toml::Value::Table(table.clone()))
        .map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner().to_string();
            let inner = inner.trim().trim_end_matches('.').replace('\n', " ");
            if path == "." || path.is_empty() {
                Error::Input(format!("{origin}: {inner}"))
            } else {
                Error::Input(format!("{origin}: key `{path}`: {inner}"))
            }
        })?;
    let name = match &scenario.scenario.name {
        Some(n) => {
            check_name(n)
                .map_err(|why| Error::Input(format!("{origin}: key `scenario.name`: {why}")))?;
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

/// Applies one `key.path=value` override; the value is read as a TOML literal, or as a string
/// if it is not one (so `--set sim.end_time=0.2s` works without quotes).
pub fn apply_override(table: &mut toml::Table, ov: &str) -> Result<()> {
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
    set_path(table, key, value, &format!("--set {ov}"))
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
    fn the_model_is_named_or_inferred_as_before() {
        let l = load(MIN, &[]).unwrap();
        assert_eq!(l.model(), Model::InfiniBand);
        assert_eq!(
            l.model_choice.note().unwrap(),
            "sim.model not given: inferred infiniband from the absence of sim.measure_cycles \
             and of a Dragonfly; add sim.model = \"infiniband\""
        );
        let l = load(MIN, &["sim.model=infiniband"]).unwrap();
        assert_eq!(l.model(), Model::InfiniBand);
        assert_eq!(l.model_choice.note(), None);
        let cycle = "[sim]\nmeasure_cycles = 100\n[topology]\nkind = \"mesh\"\ndims = [2, 2]\n";
        let l = load(cycle, &[]).unwrap();
        assert_eq!(l.model(), Model::Cycle);
        assert!(l
            .model_choice
            .note()
            .unwrap()
            .ends_with("inferred cycle from sim.measure_cycles; add sim.model = \"cycle\""));
        let df = "[sim]\n[topology]\nkind = \"dragonfly\"\np = 2\n";
        let l = load(df, &[]).unwrap();
        assert_eq!(l.model(), Model::Cycle);
        assert_eq!(
            l.model_choice.inferred_from,
            Some("topology.kind = \"dragonfly\"")
        );
        let e = load(MIN, &["sim.model=credit"]).unwrap_err().to_string();
        assert!(
            e.contains("sim.model") && e.contains("allowed: \"infiniband\", \"cycle\""),
            "{e}"
        );
    }

    #[test]
    fn a_key_table_or_value_of_the_other_model_is_refused_naming_both_models() {
        // a key
        let e = load(MIN, &["sim.model=infiniband", "sim.measure_cycles=10"])
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "t.toml: key `sim.measure_cycles`: belongs to the cycle-level model (sim.model = \
             \"cycle\"), but this scenario runs the InfiniBand model (sim.model = \"infiniband\")"
        );
        // a table, even an empty one; an inferred model says where it came from
        let e = load(&format!("{MIN}[router]\n"), &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.toml: table `router`: belongs to the cycle-level model")
                && e.ends_with(
                    "(sim.model not given: inferred infiniband from the absence of \
                                sim.measure_cycles and of a Dragonfly)"
                ),
            "{e}"
        );
        let e = load(MIN, &["sim.model=cycle"]).unwrap_err().to_string();
        assert!(
            e.contains("key `sim.end_time`: belongs to the InfiniBand model"),
            "{e}"
        );
        let e = load(MIN, &["sim.model=cycle", "links.host.width=4x"]).unwrap_err();
        assert!(
            e.to_string()
                .contains("table `links`: belongs to the InfiniBand"),
            "{e}"
        );
        let text = "[sim]\nmodel = \"cycle\"\nmeasure_cycles = 10\n[topology]\nkind = \"mesh\"\n\
                    dims = [2, 2]\n[[traffic.flows]]\nsrc = \"H111\"\ndst = \"H121\"\n";
        let e = load(text, &[]).unwrap_err().to_string();
        assert!(
            e.contains("table `traffic.flows`: belongs to the InfiniBand model"),
            "{e}"
        );
        // a value only the other model has
        let df = "[sim]\nmodel = \"infiniband\"\nend_time = \"1ms\"\n[topology]\nkind = \"dragonfly\"\np = 2\n";
        let e = load(df, &[]).unwrap_err().to_string();
        assert!(
            e.contains("key `topology.kind` = \"dragonfly\": belongs to the cycle-level model"),
            "{e}"
        );
        // [sweep] is left to each point
        load(&format!("{MIN}[sweep]\n\"router.latency\" = [1, 2]\n"), &[]).unwrap();
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
