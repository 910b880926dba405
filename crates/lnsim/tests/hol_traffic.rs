//! The traffic and metrics of the HoL-blocking study (spec B.6, B.7) on reduced cases: the hot
//! sources of Table 1 (a seeded random round(0.3 N), never the hotspot, disjoint from the
//! background senders of `sources = "rest"`), the per-destination figures on hand-checkable
//! single-switch cases, in-order delivery with deterministic routing, and every
//! `scenarios/hol` file validating.

mod common;
use common::{input_error, root, run, write};
use lnsim::api::validate_file_with;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// `(src, dst)` of every flow that delivered something, from `flows.csv`.
fn flows(out: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(out.join("flows.csv")).unwrap();
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (c[5] != "0").then(|| (c[0].to_string(), c[1].to_string()))
        })
        .collect()
}

/// The HCAs that sent only to `hot` and those that sent to something else.
fn hot_and_background(
    fl: &[(String, String)],
    hot: &[&str],
) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut dests: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (s, d) in fl {
        dests.entry(s).or_default().insert(d);
    }
    let (mut h, mut b) = (BTreeSet::new(), BTreeSet::new());
    for (s, ds) in dests {
        if ds.iter().all(|d| hot.contains(d)) {
            h.insert(s.to_string());
        } else {
            b.insert(s.to_string());
        }
    }
    (h, b)
}

/// #3B (64 end nodes) for 30 µs, no warm-up.
fn short_3b(dir: &Path, name: &str, seed: u64) -> (Value, Vec<(String, String)>) {
    let out = dir.join(name);
    let seed = format!("sim.seed={seed}");
    let s = run(
        &root().join("scenarios/hol/bmin64_3b.toml"),
        &out,
        &[
            "sim.end_time=30us",
            "sim.warmup=0s",
            "sim.interval=10us",
            &seed,
        ],
    );
    (s, flows(&out))
}

#[test]
fn hot_sources_are_a_seeded_thirty_percent_without_the_hotspot() {
    let d = tempfile::tempdir().unwrap();
    let (s1, f1) = short_3b(d.path(), "a", 1);
    let (hot, bg) = hot_and_background(&f1, &["H31"]);
    // round(0.3 · 64) = 19 hot sources, never the hotspot, the other 45 send uniformly
    assert_eq!(hot.len(), 19, "hot sources {hot:?}");
    assert!(!hot.contains("H31"));
    assert!(bg.contains("H31"), "the hotspot is a background sender");
    assert_eq!(bg.len(), 45);
    assert!(hot.is_disjoint(&bg));
    assert_eq!(
        s1["fairness"]["hot_destinations"],
        serde_json::json!(["H31"])
    );
    // fixed by the seed: the same seed picks the same set, another seed another one
    let (_, f1b) = short_3b(d.path(), "b", 1);
    assert_eq!(hot_and_background(&f1b, &["H31"]).0, hot);
    let (_, f2) = short_3b(d.path(), "c", 2);
    let (hot2, _) = hot_and_background(&f2, &["H31"]);
    assert_eq!(hot2.len(), 19);
    assert_ne!(hot2, hot);
    // the hotspot is offered 19 links at 100 % (spec B.6: 19.4× with the background)
    let off = s1["nodes"]["H31"]["offered_fraction"].as_f64().unwrap();
    let want = 19.0 + 45.0 * 0.6 / 63.0 - 0.6 / 63.0; // 44 background senders besides H31
    assert!((off - want).abs() < 1e-5, "offered {off} vs {want}");
    // deterministic D-mod-k routes and FIFO queues (DBBM: a flow always uses the same
    // queues): every flow arrives in order (the file's DDBBM may reorder, spec B.3.6)
    let dbbm = run(
        &root().join("scenarios/hol/bmin64_3b.toml"),
        &d.path().join("dbbm"),
        &[
            "sim.end_time=30us",
            "sim.warmup=0s",
            "sim.interval=10us",
            "switch.queue_mapping=\"dbbm\"",
        ],
    );
    assert_eq!(dbbm["delivery"]["out_of_order_packets"], 0);
    assert_eq!(s1["conservation"]["ok"], true);
}

#[test]
fn five_hotspots_split_the_hot_sources_evenly() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r");
    run(
        &root().join("scenarios/hol/bmin64_5b.toml"),
        &out,
        &["sim.end_time=30us", "sim.warmup=0s", "sim.interval=10us"],
    );
    let fl = flows(&out);
    let hots = ["H7", "H20", "H31", "H46", "H61"];
    let (hot, _) = hot_and_background(&fl, &hots);
    assert_eq!(hot.len(), 19);
    let mut per: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (s, dst) in &fl {
        if hot.contains(s) {
            per.entry(dst).or_default().insert(s);
        }
    }
    // each hot source is bound to one hotspot; 19 = 4 + 4 + 4 + 4 + 3
    let sizes: Vec<usize> = hots.iter().map(|h| per[h].len()).collect();
    assert_eq!(sizes.iter().sum::<usize>(), 19, "{per:?}");
    assert!(sizes.iter().all(|&n| n == 3 || n == 4), "{sizes:?}");
    for h in hots {
        assert!(!hot.contains(h), "hotspot {h} among the hot sources");
    }
}

/// One switch with `n` HCAs `H11`, `H12`, …, 1 GB/s links, 64-B packets.
fn one_switch(n: u32) -> String {
    format!("[sim]\nmodel = \"credit\"\nend_time = \"300us\"\nwarmup = \"50us\"\n\
    interval = \"50us\"\n[topology]\nkind = \"mesh\"\ndims = [1]\nhcas_per_switch = {n}\n\
    [links.host]\nrate = \"8Gbps\"\n[links.fabric]\nrate = \"8Gbps\"\n[switch]\nbuffer_credits = 16\n\
    [hca]\nbuffer_credits = 16\n[traffic]\ncredit_bytes = \"64B\"\nmtu_credits = 1\n\
    packet_bytes = \"64B\"\npayload_bytes = \"64B\"\nmessage_bytes = \"64B\"\n")
}

fn f64_at(s: &Value, path: &[&str]) -> f64 {
    let mut v = s;
    for p in path {
        v = &v[*p];
    }
    v.as_f64().unwrap_or_else(|| panic!("{path:?} is {v}"))
}

#[test]
fn reception_figures_on_a_single_switch() {
    // H11 and H12 send only to the hotspot H13 at 80 %; H14 sends to H11 and H12 at 50 %
    // (25 % each). Nothing shares a queue with H14's traffic, so neither is a victim.
    let d = tempfile::tempdir().unwrap();
    let p = write(
        d.path(),
        "s.toml",
        &format!(
            "{}[[traffic.generators]]\nsources = [\"H11\", \"H12\"]\nhotspot = \"H13\"\n\
             hotspot_fraction = 1.0\ninjection = \"bernoulli\"\nload = 0.8\n\
             [[traffic.generators]]\nsources = \"rest\"\nidle = [\"H13\"]\n\
             destinations = [\"H11\", \"H12\"]\ninjection = \"bernoulli\"\nload = 0.5\n",
            one_switch(4)
        ),
    );
    let s = run(&p, &d.path().join("r"), &[]);
    let off = |n: &str| f64_at(&s, &["nodes", n, "offered_fraction"]);
    let rx = |n: &str| f64_at(&s, &["nodes", n, "rx_fraction"]);
    assert!((off("H13") - 1.6).abs() < 1e-6);
    assert!((off("H11") - 0.25).abs() < 1e-6 && (off("H12") - 0.25).abs() < 1e-6);
    // rx_fraction is the after-warm-up rate over the link rate
    for n in ["H11", "H12", "H13"] {
        let g = f64_at(&s, &["nodes", n, "rx_gbps_after_warmup"]) / 8.0;
        assert!((rx(n) - g).abs() < 1e-5, "{n}: {} vs {g}", rx(n));
    }
    for n in ["H11", "H12"] {
        assert!((rx(n) - 0.25).abs() < 0.04, "{n} receives {}", rx(n));
    }
    // the hotspot's link is full (less the flow-control overhead: none here)
    assert!(rx("H13") > 0.9, "hotspot receives {}", rx("H13"));
    // accepted per node: the mean over the four HCAs (H14 receives nothing)
    let mean = (rx("H11") + rx("H12") + rx("H13")) / 4.0;
    assert!((f64_at(&s, &["throughput", "accepted_per_node"]) - mean).abs() < 1e-5);
    // non-hot destinations: H11 and H12 (H13 is hot, nobody sends to H14)
    let f = &s["fairness"];
    assert_eq!(f["non_hot_destinations"], 2);
    assert_eq!(f["hot_destinations"], serde_json::json!(["H13"]));
    let (a, b) = (rx("H11"), rx("H12"));
    let jain = (a + b) * (a + b) / (2.0 * (a * a + b * b));
    assert!((f64_at(&s, &["fairness", "rx_jain_non_hot"]) - jain).abs() < 1e-5);
    assert_eq!(f["victims"], 0);
    let min = (a / 0.25).min(b / 0.25);
    assert!((f64_at(&s, &["fairness", "min_over_expected"]) - min).abs() < 1e-4);
    assert_eq!(s["delivery"]["out_of_order_packets"], 0);
}

#[test]
fn a_flow_behind_a_congested_one_is_a_victim() {
    // H11, H12 and H15 saturate the hotspot H13; H11 also offers 50 % to H14, which waits
    // behind H11's packets to H13 (one queue per switch input): H11's input drains one packet
    // to H13 per three packet times, and H14's packets alternate with them, so about 1/3 of
    // the link arrives at H14 instead of 1/2.
    let d = tempfile::tempdir().unwrap();
    let p = write(
        d.path(),
        "s.toml",
        &format!(
            "{}[[traffic.generators]]\nsources = [\"H11\", \"H12\", \"H15\"]\nhotspot = \"H13\"\n\
             hotspot_fraction = 1.0\ninjection = \"bernoulli\"\nload = 1.0\n\
             [[traffic.generators]]\nsources = [\"H11\"]\ndestinations = [\"H14\"]\n\
             injection = \"bernoulli\"\nload = 0.5\n",
            one_switch(5)
        ),
    );
    let s = run(
        &p,
        &d.path().join("r"),
        &["switch.queue_mapping=\"one_queue\""],
    );
    let rx = f64_at(&s, &["nodes", "H14", "rx_fraction"]);
    assert!((f64_at(&s, &["nodes", "H14", "offered_fraction"]) - 0.5).abs() < 1e-6);
    assert!((rx - 1.0 / 3.0).abs() < 0.05, "H14 receives {rx}");
    assert_eq!(s["fairness"]["non_hot_destinations"], 1);
    assert_eq!(s["fairness"]["victims"], 1);
    assert!((f64_at(&s, &["fairness", "min_over_expected"]) - rx / 0.5).abs() < 1e-4);
}

#[test]
fn uniform_mesh_accepts_what_it_offers() {
    // #1M (8×8 mesh, one end node per switch, 20 % uniform) shortened: below saturation every
    // node receives about what is offered to it (spec B.8 R-B14)
    let d = tempfile::tempdir().unwrap();
    let s = run(
        &root().join("scenarios/hol/mesh8x8_1m.toml"),
        &d.path().join("r"),
        &["sim.end_time=600us"],
    );
    let acc = f64_at(&s, &["throughput", "accepted_per_node"]);
    assert!((acc - 0.2).abs() < 0.01, "accepted {acc}");
    assert_eq!(s["fairness"]["victims"], 0);
    assert_eq!(s["fairness"]["non_hot_destinations"], 64);
    assert_eq!(s["delivery"]["out_of_order_packets"], 0);
}

#[test]
fn every_hol_scenario_validates_and_is_listed() {
    let dir = root().join("scenarios/hol");
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().and_then(|x| x.to_str()) != Some("toml") {
            continue;
        }
        validate_file_with(&p, &[], None).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let name = p.file_name().unwrap().to_str().unwrap();
        assert!(
            readme.contains(name),
            "{name} is not in scenarios/hol/README.md"
        );
        n += 1;
    }
    assert_eq!(
        n, 17,
        "Table 1 has 16 cases, plus #3B on InfiniBand VLs (bmin64_3b_ib.toml)"
    );
}

#[test]
fn bad_hot_traffic_keys_are_named() {
    let base = "[sim]\nmodel = \"credit\"\nend_time = \"10us\"\n[topology]\nkind = \"mesh\"\n\
                dims = [1]\nhcas_per_switch = 4\n[[traffic.generators]]\n";
    let e = input_error(&format!("{base}sources = \"leftover\"\n"), &[], &[]);
    assert!(
        e.contains("traffic.generators[0].sources") && e.contains("\"rest\""),
        "{e}"
    );
    let e = input_error(
        &format!("{base}sources = \"all\"\nhotspot_split = \"source\"\n"),
        &[],
        &[],
    );
    assert!(e.contains("traffic.generators[0].hotspot_split"), "{e}");
    let e = input_error(
        &format!("{base}sources = \"all\"\nhotspot = [\"H11\", \"H11\"]\nhotspot_fraction = 1.0\n"),
        &[],
        &[],
    );
    assert!(e.contains("traffic.generators[0].hotspot[1]"), "{e}");
    let e = input_error(
        &format!("{base}sources = \"all\"\nhotspot = [\"H11\", \"H9\"]\nhotspot_fraction = 1.0\n"),
        &[],
        &[],
    );
    assert!(e.contains("traffic.generators[0].hotspot[1]"), "{e}");
    // "rest" after a generator that took every HCA selects nothing
    let e = input_error(
        &format!("{base}sources = \"all\"\n[[traffic.generators]]\nsources = \"rest\"\n"),
        &[],
        &[],
    );
    assert!(e.contains("traffic.generators[1].sources"), "{e}");
}
