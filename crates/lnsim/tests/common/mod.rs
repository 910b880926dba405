//! Helpers of the integration tests: run a scenario file (optionally with every time in it
//! scaled down, where steady state allows) and read the summary.
#![allow(dead_code)]

pub mod dragonfly;

use lnsim::api::{run_file, validate_file, RunOptions};
use lnsim::config::Duration;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scale_dur(v: &mut toml::Value, f: f64) {
    if let toml::Value::String(s) = v {
        let d = Duration::parse(s).expect("duration in scenario");
        *s = format!("{}ps", (d.0 as f64 * f).round() as u64);
    }
}

/// Writes a copy of `scenario` with all times multiplied by `f` and returns its path.
pub fn scaled(scenario: &str, f: f64, dir: &Path) -> PathBuf {
    let src = root().join(scenario);
    let mut t: toml::Table = std::fs::read_to_string(&src).unwrap().parse().unwrap();
    if f != 1.0 {
        let sim = t.get_mut("sim").unwrap().as_table_mut().unwrap();
        for k in ["end_time", "warmup", "interval"] {
            if let Some(v) = sim.get_mut(k) {
                scale_dur(v, f);
            }
        }
        if let Some(tr) = t.get_mut("traffic").and_then(|v| v.as_table_mut()) {
            for list in ["flows", "generators"] {
                if let Some(arr) = tr.get_mut(list).and_then(|v| v.as_array_mut()) {
                    for e in arr {
                        for k in ["start", "stop"] {
                            if let Some(v) = e.as_table_mut().unwrap().get_mut(k) {
                                scale_dur(v, f);
                            }
                        }
                    }
                }
            }
        }
        if let Some(st) = t.get_mut("stats").and_then(|v| v.as_table_mut()) {
            for k in ["fairness_from", "hotspot_from"] {
                if let Some(v) = st.get_mut(k) {
                    scale_dur(v, f);
                }
            }
        }
    }
    // relative paths in the scenario stay valid: write next to the original
    let name = Path::new(scenario).file_stem().unwrap().to_str().unwrap();
    let out = dir.join(format!("{name}.toml"));
    std::fs::write(&out, toml::to_string(&t).unwrap()).unwrap();
    out
}

/// Runs a scenario file into `out` and returns the parsed summary.
pub fn run(path: &Path, out: &Path, overrides: &[&str]) -> Value {
    let opts = RunOptions {
        overrides: overrides.iter().map(|s| s.to_string()).collect(),
        seed: None,
        out_dir: Some(out.to_path_buf()),
        progress: false,
        ..Default::default()
    };
    let o =
        run_file(path, &opts, &mut || false).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&o.summary_json).unwrap()
}

/// After-warm-up transmit rate of node `n` as a percentage of `cap_gbps`.
pub fn tx_pct(s: &Value, n: &str, cap_gbps: f64) -> f64 {
    s["nodes"][n]["tx_gbps_after_warmup"]
        .as_f64()
        .unwrap_or(0.0)
        / cap_gbps
        * 100.0
}

/// After-warm-up receive rate of node `n` as a percentage of `cap_gbps`.
pub fn rx_pct(s: &Value, n: &str, cap_gbps: f64) -> f64 {
    s["nodes"][n]["rx_gbps_after_warmup"]
        .as_f64()
        .unwrap_or(0.0)
        / cap_gbps
        * 100.0
}

/// Asserts `got` is within `tol` percentage points of `want`.
pub fn near(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got:.2} %, published {want:.2} % (±{tol} points)"
    );
}

/// Writes `text` as file `name` in `dir`; returns its path.
pub fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Runs and validates a bad scenario (`text`, with extra `files` beside it and `overrides`):
/// both fail with the same input error (exit status 2) and no results folder is created.
/// Returns the message.
pub fn input_error(text: &str, files: &[(&str, &str)], overrides: &[&str]) -> String {
    let d = tempfile::tempdir().unwrap();
    for (n, t) in files {
        write(d.path(), n, t);
    }
    let p = write(d.path(), "s.toml", text);
    let out = d.path().join("results");
    let opts = RunOptions {
        overrides: overrides.iter().map(|s| s.to_string()).collect(),
        out_dir: Some(out.clone()),
        ..Default::default()
    };
    let e = run_file(&p, &opts, &mut || false).unwrap_err();
    assert!(
        matches!(e, lnsim::Error::Input(_)),
        "not an input error: {e}"
    );
    assert_eq!(lnsim::api::exit_status(&e), 2);
    assert!(
        !out.exists(),
        "a failed run must not create its results folder"
    );
    // validate reports the same problem
    let v = validate_file(
        &p,
        &overrides.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
    )
    .unwrap_err();
    assert_eq!(v.to_string(), e.to_string());
    e.to_string()
}
