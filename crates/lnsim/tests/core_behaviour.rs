//! Link rate, determinism, conservation and bad-input behaviour of whole runs.

mod common;
use common::*;

const TINY: &str = r#"
[sim]
end_time = "2ms"
warmup = "1ms"
interval = "0.5ms"
[topology]
kind = "mesh"
dims = [1, 2]
hcas_per_switch = 1
[[traffic.flows]]
src = "H111"
dst = "H121"
"#;

#[test]
fn one_greedy_flow_on_4x_sdr_delivers_1000_mbytes_per_s() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "tiny.toml", TINY);
    let s = run(&p, &d.path().join("out"), &[]);
    let mbps = s["nodes"]["H121"]["rx_gbps_after_warmup"].as_f64().unwrap() * 1e3 / 8.0;
    assert!((mbps - 1000.0).abs() <= 20.0, "{mbps} MB/s");
}

#[test]
fn summary_gives_each_node_its_link_rate() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "tiny.toml", TINY);
    // default host links: 4x SDR, 8 Gbit/s of data
    let s = run(&p, &d.path().join("sdr"), &[]);
    for n in ["H111", "H121"] {
        assert_eq!(s["nodes"][n]["link_gbps"].as_f64(), Some(8.0), "{n}");
    }
    // 4x QDR host links: 32 Gbit/s of data; the after-warm-up share follows
    let s = run(
        &p,
        &d.path().join("qdr"),
        &["links.host.width=\"4x\"", "links.host.speed=\"QDR\""],
    );
    let rx = s["nodes"]["H121"]["rx_gbps_after_warmup"].as_f64().unwrap();
    let link = s["nodes"]["H121"]["link_gbps"].as_f64().unwrap();
    assert_eq!(link, 32.0);
    assert!(
        rx > 0.0 && rx <= link,
        "{rx} Gbit/s on a {link} Gbit/s link"
    );
}

fn strip_volatile(text: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    let o = v.as_object_mut().unwrap();
    // the only machine-dependent fields
    o.remove("wall_time_s");
    o.remove("peak_rss_bytes");
    v
}

#[test]
fn same_scenario_and_seed_give_identical_results() {
    let d = tempfile::tempdir().unwrap();
    let p = scaled("scenarios/ibcc/zeru_c4.toml", 0.1, d.path()); // random traffic, 10 ms
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    run(&p, &a, &[]);
    run(&p, &b, &[]);
    let sa = std::fs::read_to_string(a.join("summary.json")).unwrap();
    let sb = std::fs::read_to_string(b.join("summary.json")).unwrap();
    assert_eq!(strip_volatile(&sa), strip_volatile(&sb));
    for f in ["nodes.csv", "flows.csv", "latency_hist.csv", "buffers.csv"] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f} differs"
        );
    }
    // and a different seed gives a different run
    let c = d.path().join("c");
    run(&p, &c, &["sim.seed=13"]);
    assert_ne!(
        std::fs::read(a.join("flows.csv")).unwrap(),
        std::fs::read(c.join("flows.csv")).unwrap()
    );
}

#[test]
fn every_run_reports_conservation() {
    let d = tempfile::tempdir().unwrap();
    let p = scaled("scenarios/ibcc/zeru_c1.toml", 0.05, d.path());
    let s = run(&p, &d.path().join("c1"), &[]);
    let c = &s["conservation"];
    assert_eq!(c["ok"], true);
    let inj = c["injected_packets"].as_u64().unwrap();
    let del = c["delivered_packets"].as_u64().unwrap();
    assert!(inj > 1000 && del <= inj);
}

#[test]
fn bad_input_names_the_key_or_line() {
    let e = input_error(TINY, &[], &["switch.bogus=1"]);
    assert!(e.contains("bogus"), "{e}");
    let e = input_error(TINY, &[], &["sim.end_time=3parsecs"]);
    assert!(
        e.contains("sim.end_time") && e.contains("allowed units"),
        "{e}"
    );
    let e = input_error(TINY, &[], &["topology.dims=[0, 3]"]);
    assert!(e.contains("topology.dims"), "{e}");
    let e = input_error(&TINY.replace("dst = \"H121\"", "dst = \"H999\""), &[], &[]);
    assert!(
        e.contains("traffic.flows[0].dst") && e.contains("H999"),
        "{e}"
    );
    // an LFT pointing at a port that does not exist
    let lft = "SW11: 255 0 7\nSW12: 255 1 0\n";
    let e = input_error(
        TINY,
        &[("bad.fdbs", lft)],
        &["routing.algorithm=lft_file", "routing.file=bad.fdbs"],
    );
    assert!(e.contains("bad.fdbs:1") && e.contains("port 7"), "{e}");
    // an LFT that leaves the flow's destination unreachable
    let lft = "SW11: 255 0 255\nSW12: 255 1 0\n";
    let e = input_error(
        TINY,
        &[("hole.fdbs", lft)],
        &["routing.algorithm=lft_file", "routing.file=hole.fdbs"],
    );
    assert!(
        e.contains("unreachable") && e.contains("H121") && e.contains("SW11"),
        "{e}"
    );
}

/// Two switches; H111 and H122 both flood H121 (the hot spot), H112 → H122 is a victim that
/// shares the SW11 → SW12 link with H111's hot packets. Buffers are large enough never to fill
/// within the run, so with virtual output queues the victim passes the congested packets,
/// while with one FIFO per input it waits behind them (head-of-line blocking).
const HOL: &str = r#"
[sim]
end_time = "1ms"
warmup = "0.5ms"
interval = "0.1ms"
[topology]
kind = "mesh"
dims = [1, 2]
hcas_per_switch = 2
[switch]
buffer_credits = 100000
[[traffic.flows]]
src = "H111"
dst = "H121"
[[traffic.flows]]
src = "H122"
dst = "H121"
[[traffic.flows]]
src = "H112"
dst = "H122"
"#;

fn victim_latency_ns(mapping: &str) -> (f64, f64) {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "hol.toml", HOL);
    let s = run(
        &p,
        &d.path().join("out"),
        &[&format!("switch.queue_mapping={mapping}")],
    );
    let f = s["flows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["src"] == "H112")
        .unwrap()
        .clone();
    (
        f["latency_mean_ns"].as_f64().unwrap(),
        s["nodes"]["H122"]["rx_gbps_after_warmup"].as_f64().unwrap(),
    )
}

#[test]
fn one_queue_blocks_a_victim_behind_a_congested_head() {
    let (voq_lat, voq_rate) = victim_latency_ns("voq");
    let (fifo_lat, _) = victim_latency_ns("one_queue");
    // with VOQs the victim is untouched: full 4x SDR rate, a few microseconds of latency
    assert!(
        (voq_rate - 8.0).abs() < 0.16,
        "victim rate with VOQ {voq_rate}"
    );
    assert!(voq_lat < 10_000.0, "victim latency with VOQ {voq_lat} ns");
    // with one FIFO it queues behind H111's packets for the hot spot
    assert!(
        fifo_lat > 10.0 * voq_lat,
        "FIFO {fifo_lat} ns vs VOQ {voq_lat} ns"
    );
}

#[test]
fn dor_on_a_torus_deadlocks_and_the_credit_loop_is_reported() {
    // 4×4 torus, x-first DOR on wrap-around rings and one VL: the classic credit-loop deadlock
    let text = "[sim]\nend_time = \"5ms\"\ninterval = \"0.5ms\"\n[topology]\nkind = \"torus\"\ndims = [4, 4]\n\
                hcas_per_switch = 2\n[[traffic.generators]]\nsources = \"all\"\n";
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "torus.toml", text);
    // refused up front, naming the cycle, unless the scenario opts in to study the deadlock
    let e = input_error(text, &[], &[]);
    assert!(
        e.starts_with("routing.algorithm: these forwarding tables can deadlock the traffic")
            && e.contains("cycle of 4 channels")
            && e.contains("port")
            && e.contains("VL 0 →")
            && e.contains("sim.allow_deadlock = true"),
        "{e}"
    );
    let s = run(&p, &d.path().join("t"), &["sim.allow_deadlock=true"]);
    let dl = &s["deadlock"];
    assert!(dl.is_object(), "no deadlock reported: {dl}");
    let cycle: Vec<&str> = dl["cycle"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    // a ring of one dimension: 4 switches, each buffer waiting for the next
    assert_eq!(cycle.len(), 4, "{cycle:?}");
    assert!(dl["blocked_packets"].as_u64().unwrap() > 0);
    assert_eq!(s["conservation"]["ok"], true);
    // the same traffic on a mesh (no wrap-around) never deadlocks
    let m = write(d.path(), "mesh.toml", &text.replace("torus", "mesh"));
    let s = run(&m, &d.path().join("m"), &[]);
    assert!(s["deadlock"].is_null());
    let v = lnsim::api::validate_file(&m, &[]).unwrap();
    assert!(
        v.contains("deadlock check: channel-dependency graph acyclic"),
        "{v}"
    );
    // validate of the opted-in torus states the cycle it lets through
    let v = lnsim::api::validate_file(&p, &["sim.allow_deadlock=true".into()]).unwrap();
    assert!(v.contains("deadlock check: CYCLIC, 4 channels"), "{v}");
}

#[test]
fn ib_switches_have_at_most_254_ports() {
    // 251 HCAs + 4 mesh neighbours would be 255 ports on the middle switch
    let text = TINY.replace("dims = [1, 2]", "dims = [3, 3]");
    let e = input_error(&text, &[], &["topology.hcas_per_switch=251"]);
    assert!(
        e.starts_with(
            "topology: switch `SW22` has 255 ports; an InfiniBand switch has at most 254"
        ),
        "{e}"
    );
}

#[test]
fn a_cycle_only_through_congestion_notifications_is_found() {
    // a ring A → B → C → A routed clockwise; the data routes H1 → H3 (A, B, C) and H2 → H1
    // (B, C, A) make two dependencies; H2 → H3 is one hop. With CC on, the notifications of
    // H2 → H3 return H3 → H2 the long way (C, A, B) and close the cycle.
    let topo = "switch A\nswitch B\nswitch C\nhca H1\nhca H2\nhca H3\n\
                link H1 A\nlink H2 B\nlink H3 C\nlink A B\nlink B C\nlink C A\n";
    // ports: A: 0 H1, 1 →B, 2 →C; B: 0 H2, 1 →A, 2 →C; C: 0 H3, 1 →B, 2 →A
    let lft = "A: 255 0 1 1\nB: 255 2 0 2\nC: 255 2 2 0\n";
    let mut text = String::from(
        "[sim]\nend_time = \"1ms\"\ninterval = \"0.5ms\"\n[topology]\nkind = \"file\"\nfile = \"ring.topo\"\n\
         [routing]\nalgorithm = \"lft_file\"\nfile = \"ring.lft\"\n",
    );
    for (a, b) in [("H1", "H3"), ("H2", "H1"), ("H2", "H3")] {
        text.push_str(&format!(
            "[[traffic.flows]]\nsrc = \"{a}\"\ndst = \"{b}\"\n"
        ));
    }
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "ring.topo", topo);
    write(d.path(), "ring.lft", lft);
    let p = write(d.path(), "ring.toml", &text);
    let v = lnsim::api::validate_file(&p, &[]).unwrap();
    assert!(v.contains("acyclic (channels: 3, dependencies: 2)"), "{v}");
    let e = input_error(
        &text,
        &[("ring.topo", topo), ("ring.lft", lft)],
        &["cc.enabled=true"],
    );
    assert!(
        e.starts_with("routing.file: these forwarding tables can deadlock")
            && e.contains("cycle of 3 channels"),
        "{e}"
    );
}
