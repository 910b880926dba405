//! The DDBBM study's orderings on reduced runs (drb-and-ddbbm spec B.8, C.3): case #3B of
//! Table 1 (64-node BMIN, 19 hot sources into end node 30, the rest uniform at 60 %) for
//! 400 µs, and #1B (uniform at 100 %) for the detector's false positives.

mod common;
use common::{root, run};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

/// #3B under a scheme (`--set` overrides), 400 µs with 100 µs warm-up.
fn case(dir: &Path, file: &str, name: &str, scheme: &[&str]) -> Value {
    let mut ov = vec!["sim.end_time=\"400us\"", "sim.warmup=\"100us\""];
    ov.extend_from_slice(scheme);
    run(
        &root().join("scenarios/hol").join(file),
        &dir.join(name),
        &ov,
    )
}

/// End-node numbers (0-based: `H<n>` is n − 1 on a fat tree) receiving less than 90 % of what
/// is offered to them, the hotspots left out (spec B.7's victims).
fn victims(s: &Value) -> BTreeSet<u32> {
    let hot: Vec<&str> = s["fairness"]["hot_destinations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    s["nodes"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(n, v)| {
            let off = v["offered_fraction"].as_f64().unwrap_or(0.0);
            !hot.contains(&n.as_str())
                && off > 0.0
                && v["rx_fraction"].as_f64().unwrap() < 0.9 * off
        })
        .map(|(n, _)| n[1..].parse::<u32>().unwrap() - 1)
        .collect()
}

fn acc(s: &Value) -> f64 {
    s["throughput"]["accepted_per_node"].as_f64().unwrap()
}

const DBBM4: &[&str] = &["switch.queue_mapping=\"dbbm\"", "switch.dbbm_queues=4"];
const DBBM8: &[&str] = &["switch.queue_mapping=\"dbbm\"", "switch.dbbm_queues=8"];
const VOQNET: &[&str] = &["switch.queue_mapping=\"voq_net\"", "switch.dbbm_queues=0"];
const DDBBM5: &[&str] = &[]; // the file's own scheme

#[test]
fn dbbm_victimises_one_destination_in_q_and_ddbbm_matches_voqnet_on_3b() {
    let d = tempfile::tempdir().unwrap();
    let f = "bmin64_3b.toml";
    let voqnet = case(d.path(), f, "voqnet", VOQNET);
    let dbbm4 = case(d.path(), f, "dbbm4", DBBM4);
    let dbbm8 = case(d.path(), f, "dbbm8", DBBM8);
    let ddbbm = case(d.path(), f, "ddbbm", DDBBM5);

    // C.3 #4 / R-B6: DBBM-4Q's victims are exactly the destinations ≡ 30 (mod 4)
    let want4: BTreeSet<u32> = (0..64).filter(|d| d % 4 == 2 && *d != 30).collect();
    assert_eq!(victims(&dbbm4), want4);
    // R-B1: DBBM-8Q, "every eight destinations there is one with a significant lower rate"
    let want8: BTreeSet<u32> = (0..64).filter(|d| d % 8 == 6 && *d != 30).collect();
    assert_eq!(victims(&dbbm8), want8);
    // C.3 #3: VOQnet gives every non-hot destination about its share (ideal 0.43 per node)
    assert!(victims(&voqnet).len() <= 2, "{:?}", victims(&voqnet));
    assert!(
        (acc(&voqnet) - 0.431).abs() < 0.02,
        "VOQnet {}",
        acc(&voqnet)
    );
    // R-B6, R-B10: DDBBM-5Q has no victim pattern and VOQnet's throughput, DBBM-4Q is below
    assert!(victims(&ddbbm).len() <= 2, "{:?}", victims(&ddbbm));
    // (a short window: DDBBM's backlog from the frames before detection still drains, so it
    // may read a little above VOQnet, never much)
    let r = acc(&ddbbm) / acc(&voqnet);
    assert!(r > 0.97 && r < 1.05, "DDBBM / VOQnet {r}");
    assert!(
        acc(&dbbm4) < 0.9 * acc(&ddbbm),
        "{} vs {}",
        acc(&dbbm4),
        acc(&ddbbm)
    );
    let jain = |s: &Value| s["fairness"]["rx_jain_non_hot"].as_f64().unwrap();
    assert!(jain(&ddbbm) > 0.99 && jain(&dbbm4) < 0.9);
    // the detector finds the hotspot (R-B6: "correctly identifies node 30") and keeps it
    // congested for the whole run (400 µs). Other nodes may cross DT for a few frames when a
    // burst of their delayed packets arrives (docs/scenarios.md counts them); the outcome above
    // (no victims, VOQnet's throughput) is what must not suffer from them.
    let det = &ddbbm["ddbbm"];
    let hot = det["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["node"] == "H31")
        .expect("the hotspot is detected");
    let t = hot["congested_s"].as_f64().unwrap();
    assert!(
        hot["hot"].as_bool().unwrap() && t > 0.9 * 400e-6,
        "hotspot congested {t} s"
    );
    // spec B.3.6: DBBM keeps order; DDBBM may reorder packets of a flow across messages
    assert_eq!(dbbm4["delivery"]["out_of_order_packets"], 0);
    assert!(ddbbm["delivery"]["out_of_order_packets"].as_u64().unwrap() > 0);
    // the hotspot receives what its link can bring in (≈ 90 %, spec B.8 R-B6)
    let hot = ddbbm["nodes"]["H31"]["rx_fraction"].as_f64().unwrap();
    assert!(hot > 0.85 && hot < 0.95, "hotspot {hot}");
}

#[test]
fn sit_filters_false_positives_under_uniform_traffic() {
    // R-B4, R-B5 on #1B (uniform at 100 %, the spec's DT 0.95 and LT 0.2): with SIT = 0 every
    // destination that receives more than DT · R_max in a frame is declared congested — all of
    // them, none being a hotspot; SIT = 6 filters part of them (not all: docs/scenarios.md).
    let d = tempfile::tempdir().unwrap();
    let f = "bmin64_1b.toml";
    let sit0 = case(d.path(), f, "sit0", &["ddbbm.sit=0"]);
    let sit6 = case(d.path(), f, "sit6", &["ddbbm.sit=6"]);
    let fp = |s: &Value| s["ddbbm"]["false_positives"].as_u64().unwrap();
    assert_eq!(fp(&sit0), 64, "SIT = 0");
    assert!(fp(&sit6) < fp(&sit0), "{} vs {}", fp(&sit6), fp(&sit0));
}
