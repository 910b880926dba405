//! DRB's multipath set-up on the credit-level model (drb-and-ddbbm spec A.3.2 start-up, A.3.5
//! mode 1): with `drb.spread = "round_robin"` the packets of every flow take its pair's
//! link-disjoint paths in turn, so they cross more switches and arrive out of order, while
//! every packet is delivered (conservation), nothing deadlocks (the VL layering) and the run is
//! deterministic; without spreading the routes are the forwarding tables' ones; keys that do not
//! apply are refused naming the key.

mod common;
use common::{input_error, run, write};
use serde_json::Value;

/// 4×4 torus, one HCA per switch, the perfect shuffle (a permutation: many packets per flow)
/// as Bernoulli traffic at a moderate load.
const TORUS: &str = "[sim]\nmodel = \"credit\"\nend_time = \"1ms\"\ninterval = \"250us\"\n\
                     [topology]\nkind = \"torus\"\ndims = [4, 4]\nhcas_per_switch = 1\n\
                     [switch]\nvls = 8\n\
                     [[traffic.generators]]\nsources = \"all\"\npattern = \"shuffle\"\n\
                     injection = \"bernoulli\"\nload = 0.3\n";

/// 4×4 mesh, the same traffic.
const MESH: &str = "[sim]\nmodel = \"credit\"\nend_time = \"200us\"\ninterval = \"50us\"\n\
                    [topology]\nkind = \"mesh\"\ndims = [4, 4]\nhcas_per_switch = 1\n\
                    [switch]\nvls = 8\n\
                    [[traffic.generators]]\nsources = \"all\"\npattern = \"uniform\"\n\
                    injection = \"bernoulli\"\nload = 0.3\ndestination_per = \"packet\"\n";

fn tx_packets(s: &Value) -> u64 {
    s["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["tx_packets"].as_u64().unwrap())
        .sum()
}

fn hops_per_packet(s: &Value) -> f64 {
    s["packet_hops"].as_u64().unwrap() as f64 / tx_packets(s) as f64
}

fn conserved(s: &Value) {
    let c = &s["conservation"];
    assert_eq!(c["ok"], true);
    assert_eq!(
        c["injected_packets"].as_u64().unwrap(),
        c["delivered_packets"].as_u64().unwrap() + c["in_network_packets"].as_u64().unwrap(),
        "{c}"
    );
    assert!(s["deadlock"].is_null(), "{}", s["deadlock"]);
    assert_eq!(s["complete"], true);
}

/// The summary without what varies between identical runs (wall time, memory).
fn stable(mut s: Value) -> Value {
    let o = s.as_object_mut().unwrap();
    o.remove("wall_time_s");
    o.remove("peak_rss_bytes");
    // an engine work counter: the compiled copy of the hot path a network runs on (plain
    // tables or multipath set-up) may need fewer events for the same run
    o.remove("events");
    s
}

#[test]
fn round_robin_spreads_packets_over_the_disjoint_paths_of_a_torus() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "t.toml", TORUS);
    let on = ["drb.enabled=true", "drb.spread=\"round_robin\""];
    let a = run(&p, &d.path().join("a"), &on);
    let b = run(&p, &d.path().join("b"), &on);
    conserved(&a);
    assert_eq!(
        stable(a.clone()),
        stable(b),
        "multipath runs are deterministic"
    );
    // the same traffic on path 0 only (the DOR tables, each pair on its path-0 layer)
    let single = run(
        &p,
        &d.path().join("c"),
        &["drb.enabled=true", "drb.max_paths=1"],
    );
    conserved(&single);
    assert!(tx_packets(&a) > 1000, "{}", tx_packets(&a));
    let (h_multi, h_single) = (hops_per_packet(&a), hops_per_packet(&single));
    // DOR on a 4×4 torus averages 2 + 1 switches between distinct switches (uniform, ties
    // going plus: 2 hops mean); the alternatives are longer, so spreading raises the mean
    assert!(
        h_multi > h_single + 0.5,
        "hops per packet: spread {h_multi:.3}, single path {h_single:.3}"
    );
    // spreading a flow over paths of different lengths reorders its packets; one path never does
    assert!(a["delivery"]["out_of_order_packets"].as_u64().unwrap() > 0);
    assert_eq!(single["delivery"]["out_of_order_packets"], 0);
}

#[test]
fn path_zero_is_the_tables_route_on_a_mesh() {
    // on a mesh DOR is acyclic: every path 0 is on layer 0 = VL 0, so enabling the multipath
    // set-up without spreading changes nothing in the run
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "m.toml", MESH);
    let plain = run(&p, &d.path().join("a"), &[]);
    let drb = run(&p, &d.path().join("b"), &["drb.enabled=true"]);
    conserved(&drb);
    assert_eq!(stable(plain), stable(drb));
    // and spreading over the mesh's paths changes it (more hops per packet)
    let spread = run(
        &p,
        &d.path().join("c"),
        &["drb.enabled=true", "drb.spread=\"round_robin\""],
    );
    conserved(&spread);
    let plain = run(&p, &d.path().join("d"), &[]);
    assert!(hops_per_packet(&spread) > hops_per_packet(&plain));
}

#[test]
fn validate_reports_the_paths_and_layers() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "t.toml", TORUS);
    let text = lnsim::api::validate_file(&p, &["drb.enabled=true".to_string()]).unwrap();
    assert!(
        text.contains(
            "multipath (drb, per_pair, LMC 2): up to 4 link-disjoint paths per pair: 240 pairs with 4"
        ),
        "{text}"
    );
    assert!(
        text.contains("every multipath route on its VL layer"),
        "{text}"
    );
}

#[test]
fn keys_that_do_not_apply_are_refused() {
    let e = input_error(TORUS, &[], &["drb.max_paths=2"]);
    assert!(
        e.contains("drb.max_paths") && e.contains("drb.enabled"),
        "{e}"
    );
    let e = input_error(TORUS, &[], &["drb.spread=\"round_robin\""]);
    assert!(e.contains("drb.spread"), "{e}");
    let e = input_error(TORUS, &[], &["drb.enabled=true", "switch.vls=1"]);
    assert!(e.contains("switch.vls"), "{e}");
    let e = input_error(TORUS, &[], &["drb.enabled=true", "drb.max_paths=9"]);
    assert!(e.contains("drb.max_paths"), "{e}");
    let e = input_error(
        TORUS,
        &[],
        &["drb.enabled=true", "traffic.generators[0].vl=1"],
    );
    assert!(e.contains("traffic.generators[].vl"), "{e}");
}

/// IB-faithful mode (spec A.3.5 mode 2) runs: one tree per LID alias, every packet delivered,
/// the validate report gives the achieved disjointness.
#[test]
fn ib_faithful_trees_run_and_report_their_disjointness() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "t.toml", TORUS);
    let on = [
        "drb.enabled=true",
        "drb.path_mode=\"ib_faithful\"",
        "drb.spread=\"round_robin\"",
    ];
    let s = run(&p, &d.path().join("a"), &on);
    conserved(&s);
    assert!(s["delivery"]["out_of_order_packets"].as_u64().unwrap() > 0);
    let overrides: Vec<String> = on.iter().map(|s| s.to_string()).collect();
    let text = lnsim::api::validate_file(&p, &overrides).unwrap();
    assert!(
        text.contains("multipath (drb, ib_faithful, LMC 2)")
            && text.contains("fully link-disjoint"),
        "{text}"
    );
}
