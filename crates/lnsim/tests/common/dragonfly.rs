//! The h = 3 Dragonfly runs of the thesis-routing tests (`thesis_routings.rs`,
//! `thesis_routings_ch6.rs`): the scenario text, a run returning its summary, and the summary
//! fields they compare.

use lnsim::api::RunOptions;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// An h = 3 Dragonfly scenario: `routing` are the lines of `[routing]` (the algorithm
/// included), `pattern` `uniform`, `advl`, `advc` or `adv+<shift>`.
pub fn df(routing: &str, pattern: &str, load: f64, seed: u64) -> String {
    let mut s = format!(
        "[sim]\nseed = {seed}\nwarmup_cycles = 5000\nmeasure_cycles = 10000\n\
         [topology]\nkind = \"dragonfly\"\np = 3\n[routing]\n{routing}\n[traffic]\n"
    );
    match pattern.strip_prefix("adv+") {
        Some(shift) => s += &format!("pattern = \"adv\"\nshift = {shift}\n"),
        None => s += &format!("pattern = \"{pattern}\"\n"),
    }
    s + &format!("load = {load}\n")
}

/// Runs `text` with its results folder at `out`; returns the parsed summary (the run checks
/// packet and credit conservation at its end and fails otherwise).
pub fn run_into(text: &str, out: &Path) -> Value {
    let l = lnsim::config::load_str(text, "test scenario", out.parent().unwrap(), "t", &[], None)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let opts = RunOptions {
        out_dir: Some(out.to_path_buf()),
        ..Default::default()
    };
    let o = lnsim::api::run_scenario(&l, &opts, &mut || false)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let v: Value = serde_json::from_str(&o.summary_json).unwrap();
    assert_eq!(v["conservation"]["ok"], true, "{text}");
    println!(
        "accepted {} latency {} saturated {} paths {} for\n{text}",
        v["accepted_load"], v["latency_cycles"]["mean"], v["saturated"], v["paths"]
    );
    v
}

pub fn run(text: &str) -> Value {
    let d = tempfile::tempdir().unwrap();
    run_into(text, &d.path().join("out"))
}

pub fn acc(v: &Value) -> f64 {
    v["accepted_load"].as_f64().unwrap()
}

pub fn lat(v: &Value) -> f64 {
    v["latency_cycles"]["mean"].as_f64().unwrap()
}

/// Share of the packets on paths of class `class` (`paths.*`).
pub fn share(v: &Value, class: &str) -> f64 {
    v["paths"][class].as_f64().unwrap()
}

/// Runs `text` (a scenario with `seed = 7`) twice into `<base>a` and `<base>b`, and once with
/// `seed = 8` into `<base>c`; returns the three folders (the determinism tests).
pub fn seed_triplet(text: &str, base: &Path) -> [PathBuf; 3] {
    let dir = |k: &str| PathBuf::from(format!("{}{k}", base.display()));
    run_into(text, &dir("a"));
    run_into(text, &dir("b"));
    run_into(&text.replace("seed = 7", "seed = 8"), &dir("c"));
    [dir("a"), dir("b"), dir("c")]
}

/// Packet conservation of a summary: generated = delivered + in the network + at the sources.
pub fn assert_conserved(s: &Value, routing: &str) {
    let p = &s["packets"];
    let n = |k: &str| p[k].as_u64().unwrap();
    assert_eq!(
        n("generated"),
        n("delivered") + n("in_network") + n("at_sources"),
        "{routing}: {p}"
    );
}
