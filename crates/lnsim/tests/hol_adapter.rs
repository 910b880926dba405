//! The end node's Input Adapter of drb-and-ddbbm spec B.5 (`hca.injection_queues =
//! "scheme"`) on #3B shortened to 150 µs: every queue scheme of spec B.2 runs with it,
//! conserves packets (those waiting in the injection queues included) and is deterministic;
//! the default (`"per_flow"`) is the model it always was, byte for byte.

mod common;

use common::{root, run};

const SHORT: &str = "sim.end_time=\"150us\"";
const SCHEME: &str = "hca.injection_queues=\"scheme\"";

/// Scheme label → overrides of `bmin64_3b.toml` (DDBBM-5Q by default).
const SCHEMES: [(&str, &[&str]); 5] = [
    (
        "1Q",
        &["switch.queue_mapping=\"one_queue\"", "switch.dbbm_queues=0"],
    ),
    (
        "VOQsw",
        &["switch.queue_mapping=\"voq_sw\"", "switch.dbbm_queues=0"],
    ),
    (
        "VOQnet",
        &["switch.queue_mapping=\"voq_net\"", "switch.dbbm_queues=0"],
    ),
    ("DBBM-4Q", &["switch.queue_mapping=\"dbbm\""]),
    ("DDBBM-5Q", &[]),
];

fn read(dir: &std::path::Path, f: &str) -> String {
    std::fs::read_to_string(dir.join(f)).unwrap()
}

#[test]
fn every_scheme_runs_with_the_adapter_conserving_packets_deterministically() {
    let d = tempfile::tempdir().unwrap();
    let file = root().join("scenarios/hol/bmin64_3b.toml");
    for (label, ov) in SCHEMES {
        let mut o = vec![SHORT, SCHEME];
        o.extend(ov);
        let a = d.path().join(format!("{label}_a"));
        let s = run(&file, &a, &o);
        assert_eq!(
            s["conservation"]["ok"], true,
            "{label}: {}",
            s["conservation"]
        );
        assert!(s["deadlock"].is_null(), "{label}");
        let acc = s["throughput"]["accepted_per_node"].as_f64().unwrap();
        assert!(acc > 0.0, "{label}: nothing accepted");
        let b = d.path().join(format!("{label}_b"));
        run(&file, &b, &o);
        for f in ["flows.csv", "nodes.csv"] {
            assert!(
                read(&a, f) == read(&b, f),
                "{label}: {f} differs between two runs"
            );
        }
    }
}

#[test]
fn the_default_is_the_per_flow_model() {
    let d = tempfile::tempdir().unwrap();
    let file = root().join("scenarios/hol/bmin64_3b.toml");
    for (label, ov) in [SCHEMES[0], SCHEMES[4]] {
        let mut o = vec![SHORT];
        o.extend(ov);
        let default = d.path().join(format!("{label}_default"));
        run(&file, &default, &o);
        let mut o_pf = o.clone();
        o_pf.push("hca.injection_queues=\"per_flow\"");
        let per_flow = d.path().join(format!("{label}_per_flow"));
        run(&file, &per_flow, &o_pf);
        let mut o_sc = o.clone();
        o_sc.push(SCHEME);
        let scheme = d.path().join(format!("{label}_scheme"));
        run(&file, &scheme, &o_sc);
        for f in ["flows.csv", "nodes.csv"] {
            assert!(
                read(&default, f) == read(&per_flow, f),
                "{label}: {f} of the default differs from per_flow"
            );
        }
        // the adapter changes the run (else the comparison above proves nothing)
        assert!(
            read(&default, "flows.csv") != read(&scheme, "flows.csv"),
            "{label}: the scheme adapter changed nothing"
        );
    }
}
