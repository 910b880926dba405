//! Output safety at the core's level: a run never replaces a folder lnsim did not
//! write (nor a results folder holding a file lnsim did not write), refuses before simulating,
//! and an interrupted run of either model writes what it simulated as a results folder marked
//! incomplete (its conservation checks still hold).

use lnsim::api::{run_file, RunOptions};
use serde_json::Value;
use std::path::Path;

/// A credit-level run far too long to finish in a test (1 s simulated on a 4×4 mesh).
const IB_LONG: &str = "[sim]\nend_time = \"1s\"\nwarmup = \"1ms\"\n\
                       [topology]\nkind = \"mesh\"\ndims = [4, 4]\nhcas_per_switch = 2\n\
                       [[traffic.generators]]\nsources = \"all\"\n";

/// A cycle-level run far too long to finish in a test (an h = 2 Dragonfly, 10⁹ cycles).
const CYCLE_LONG: &str = "[sim]\nwarmup_cycles = 100\nmeasure_cycles = 1000000000\n\
                          [topology]\nkind = \"dragonfly\"\np = 2\n[routing]\nalgorithm = \"min\"\n\
                          [traffic]\npattern = \"uniform\"\nload = 0.3\n";

/// A short credit-level run.
const IB_SHORT: &str = "[sim]\nend_time = \"50us\"\nwarmup = \"10us\"\n\
                        [topology]\nkind = \"mesh\"\ndims = [2, 2]\nhcas_per_switch = 2\n\
                        [[traffic.generators]]\nsources = \"all\"\n";

fn scenario(dir: &Path, text: &str) -> std::path::PathBuf {
    let p = dir.join("s.toml");
    std::fs::write(&p, text).unwrap();
    p
}

fn opts(out: &Path) -> RunOptions {
    RunOptions {
        out_dir: Some(out.to_path_buf()),
        ..Default::default()
    }
}

/// Runs `text`, asking to stop at the first poll after `polls` polls; returns the summary and
/// the marker.
fn interrupted_run(text: &str, polls: u32) -> (Value, Value) {
    let d = tempfile::tempdir().unwrap();
    let p = scenario(d.path(), text);
    let out = d.path().join("out");
    let mut n = 0;
    let o = run_file(&p, &opts(&out), &mut || {
        n += 1;
        n > polls
    })
    .expect("an interrupted run writes its partial results");
    assert!(!o.complete);
    let s: Value = serde_json::from_str(&o.summary_json).unwrap();
    let on_disk: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s, on_disk);
    let marker = lnsim::outdir::read_marker(&out).expect("marker");
    (s, marker)
}

#[test]
fn an_interrupted_infiniband_run_writes_partial_results_marked_incomplete() {
    let (s, m) = interrupted_run(IB_LONG, 1);
    assert_eq!(s["complete"], false);
    assert_eq!(s["stop_reason"], "interrupted");
    assert_eq!(s["planned_sim_time_s"], 1.0);
    let t = s["sim_time_s"].as_f64().unwrap();
    assert!(t > 0.0 && t < 1.0, "simulated {t} s");
    assert_eq!(s["conservation"]["ok"], true);
    assert!(s["conservation"]["delivered_packets"].as_u64().unwrap() > 0);
    assert_eq!(m["complete"], false);
    assert_eq!(m["stop_reason"], "interrupted");
    assert_eq!(m["kind"], "results");
}

#[test]
fn an_interrupted_cycle_level_run_writes_partial_results_marked_incomplete() {
    let (s, m) = interrupted_run(CYCLE_LONG, 1);
    assert_eq!(s["complete"], false);
    assert_eq!(s["stop_reason"], "interrupted");
    assert_eq!(s["planned_cycles"], 1_000_000_100u64);
    let c = s["simulated_cycles"].as_u64().unwrap();
    assert!(c > 100 && c < 1_000_000_100, "simulated {c} cycles");
    assert_eq!(s["conservation"]["ok"], true);
    assert!(s["packets"]["delivered"].as_u64().unwrap() > 0);
    assert_eq!(m["complete"], false);
}

#[test]
fn a_complete_run_says_so() {
    let d = tempfile::tempdir().unwrap();
    let p = scenario(d.path(), IB_SHORT);
    let out = d.path().join("out");
    let o = run_file(&p, &opts(&out), &mut || false).unwrap();
    assert!(o.complete);
    let s: Value = serde_json::from_str(&o.summary_json).unwrap();
    assert_eq!(s["complete"], true);
    assert!(s.get("stop_reason").is_none() && s.get("planned_sim_time_s").is_none());
    assert_eq!(lnsim::outdir::read_marker(&out).unwrap()["complete"], true);
    // a second run replaces the folder lnsim wrote, whose marker lists every file in it
    let listed = lnsim::outdir::read_marker(&out).unwrap()["files"].clone();
    let mut on_disk: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != lnsim::outdir::MARKER_FILE)
        .collect();
    on_disk.sort();
    assert_eq!(listed, serde_json::json!(on_disk));
    run_file(&p, &opts(&out), &mut || false).unwrap();
    // but not once it holds a file lnsim did not write: that is refused, the file kept
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let e = run_file(&p, &opts(&out), &mut || false).unwrap_err();
    assert_eq!(lnsim::api::exit_status(&e), 2, "{e}");
    assert!(e.to_string().contains("did not write: notes.txt"), "{e}");
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn a_folder_of_user_files_is_refused_before_simulating() {
    let d = tempfile::tempdir().unwrap();
    let p = scenario(d.path(), IB_LONG);
    let out = d.path().join("mine");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("data.txt"), "precious").unwrap();
    let t = std::time::Instant::now();
    let e = run_file(&p, &opts(&out), &mut || false).unwrap_err();
    assert!(
        t.elapsed().as_secs_f64() < 5.0,
        "refused only after simulating"
    );
    assert_eq!(lnsim::api::exit_status(&e), 2, "{e}");
    assert!(e.to_string().contains("choose another --out"), "{e}");
    assert_eq!(
        std::fs::read_to_string(out.join("data.txt")).unwrap(),
        "precious"
    );
    // the scenario's own folder is never a results folder
    let e = run_file(&p, &opts(d.path()), &mut || false).unwrap_err();
    assert_eq!(lnsim::api::exit_status(&e), 2, "{e}");
    assert!(p.is_file());
}

#[test]
fn a_scenario_name_that_is_a_path_is_refused_and_nothing_is_written() {
    for name in ["..", "../../x", "a/b", "."] {
        let d = tempfile::tempdir().unwrap();
        let text = format!("[scenario]\nname = {:?}\n{IB_SHORT}", name);
        let p = scenario(d.path(), &text);
        let e = run_file(&p, &RunOptions::default(), &mut || false).unwrap_err();
        assert_eq!(lnsim::api::exit_status(&e), 2, "{e}");
        assert!(e.to_string().contains("scenario.name"), "{e}");
        let e = lnsim::api::validate_file(&p, &[]).unwrap_err();
        assert!(e.to_string().contains("scenario.name"), "{e}");
        assert!(p.is_file());
    }
}
