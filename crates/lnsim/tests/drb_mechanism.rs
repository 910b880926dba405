//! DRB against its IBA_CC-S1 baseline on an 8×8 torus with the perfect shuffle (drb-and-ddbbm
//! spec A.8, reduced to 2 ms runs): below saturation neither mechanism is triggered and the
//! runs are identical to no congestion management (R-A2, "no overhead"); above the single-path
//! bound (625 Mb/s per node) DRB opens alternative paths and accepts more with lower latency,
//! while IBA_CC-S1 throttles (R-A3–R-A5); every packet is delivered and the runs are
//! deterministic; keys that do not apply are refused naming the key.

mod common;
use common::{input_error, run, write};
use serde_json::Value;

/// 8×8 torus, one HCA per switch, 2.5 Gb/s links, 2 KB packets, 16 KB input buffers per VL
/// (spec A.10 defaults), the shuffle as Bernoulli traffic; DRB's multipath routes on (all
/// mechanisms use the same path-0 routes on the same VL layers).
const TORUS: &str = "[sim]\nmodel = \"credit\"\nend_time = \"2ms\"\nwarmup = \"500us\"\n\
    interval = \"100us\"\n\
    [topology]\nkind = \"torus\"\ndims = [8, 8]\nhcas_per_switch = 1\n\
    [links.host]\nrate = \"2.5Gbps\"\ndelay = \"20ns\"\n\
    [links.fabric]\nrate = \"2.5Gbps\"\ndelay = \"20ns\"\n\
    [switch]\nvls = 15\nbuffer_credits = 256\n[hca]\nbuffer_credits = 256\n\
    [traffic]\npacket_bytes = \"2048B\"\npayload_bytes = \"2048B\"\nmtu_credits = 32\n\
    message_bytes = \"4096B\"\n\
    [[traffic.generators]]\nsources = \"all\"\npattern = \"shuffle\"\n\
    injection = \"bernoulli\"\nrate = \"400Mbps\"\n\
    [drb]\nenabled = true\n";

/// Accepted load per sending node (62 of 64 send) in bits/µs after warm-up.
fn accepted(s: &Value) -> f64 {
    s["throughput"]["rx_gbps_after_warmup"].as_f64().unwrap() * 1000.0 / 62.0
}

fn latency_us(s: &Value) -> f64 {
    s["latency_ns"]["mean"].as_f64().unwrap() / 1000.0
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

/// The summary without what varies between identical runs.
fn stable(mut s: Value) -> Value {
    let o = s.as_object_mut().unwrap();
    o.remove("wall_time_s");
    o.remove("peak_rss_bytes");
    o.remove("scenario");
    s
}

const DRB: &[&str] = &["cc.enabled=true", "cc.mechanism=\"drb\""];
const IB_S1: &[&str] = &["cc.enabled=true", "cc.mechanism=\"ib_s1\""];

fn with<'a>(base: &[&'a str], extra: &'a str) -> Vec<&'a str> {
    let mut v = base.to_vec();
    v.push(extra);
    v
}

#[test]
fn below_saturation_neither_mechanism_acts_and_nothing_changes() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "t.toml", TORUS);
    let none = run(&p, &d.path().join("n"), &[]);
    let drb = run(&p, &d.path().join("d"), DRB);
    let s1 = run(&p, &d.path().join("s"), IB_S1);
    for s in [&none, &drb, &s1] {
        conserved(s);
    }
    assert_eq!(drb["drb"]["notifications"], 0, "{}", drb["drb"]);
    assert_eq!(s1["throttle"]["notifications"], 0, "{}", s1["throttle"]);
    // 400 bits/µs is below every link's share: all of it is accepted
    assert!(
        (accepted(&none) - 400.0).abs() < 20.0,
        "{}",
        accepted(&none)
    );
    // no mark, no notification: the three runs move the same packets the same way
    for (name, s) in [("drb", &drb), ("ib_s1", &s1)] {
        assert_eq!(s["latency_ns"], none["latency_ns"], "{name}");
        assert_eq!(s["packet_hops"], none["packet_hops"], "{name}");
    }
}

#[test]
fn above_the_single_path_bound_drb_spreads_and_iba_cc_throttles() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "t.toml", TORUS);
    let rate = "traffic.generators[0].rate=\"1000Mbps\"";
    let none = run(&p, &d.path().join("n"), &[rate]);
    let drb = run(&p, &d.path().join("d"), &with(DRB, rate));
    let s1 = run(&p, &d.path().join("s"), &with(IB_S1, rate));
    for s in [&none, &drb, &s1] {
        conserved(s);
    }
    let (a_none, a_drb, a_s1) = (accepted(&none), accepted(&drb), accepted(&s1));
    // one path per pair saturates near 2500/4 = 625 bits/µs per node (spec A.8 sanity check)
    assert!(a_none < 800.0 && a_s1 < 800.0, "{a_none} {a_s1}");
    // R-A5: DRB accepts more; R-A3/R-A4: with lower latency
    assert!(a_drb > 1.15 * a_s1, "DRB {a_drb} vs IBA_CC-S1 {a_s1}");
    assert!(
        latency_us(&drb) < 0.75 * latency_us(&s1),
        "{} vs {}",
        latency_us(&drb),
        latency_us(&s1)
    );
    // DRB opened alternative paths, up to the four a torus pair has
    let dj = &drb["drb"];
    assert!(dj["notifications"].as_u64().unwrap() > 0, "{dj}");
    assert_eq!(dj["max_open_paths"], 4, "{dj}");
    assert!(
        dj["mean_open_paths_after_warmup"].as_f64().unwrap() > 1.2,
        "{dj}"
    );
    assert!(drb["monitor"]["fecn_marks"].as_u64().unwrap() > 0);
    // multipath delivers out of order; one path does not
    assert!(drb["delivery"]["out_of_order_packets"].as_u64().unwrap() > 0);
    assert_eq!(s1["delivery"]["out_of_order_packets"], 0);
    // IBA_CC-S1 raised delays in 5 µs steps
    let t = &s1["throttle"];
    let max_ird = t["max_ird_us"].as_f64().unwrap();
    assert!(max_ird >= 5.0 && (max_ird / 5.0).fract() == 0.0, "{t}");
    // the per-interval tables exist and name the flows
    let paths = std::fs::read_to_string(d.path().join("d/drb_paths.csv")).unwrap();
    assert!(paths.starts_with("t_start_s,src,dst,open_paths,notifications\n"));
    assert!(paths.lines().count() > 10, "{paths}");
    let ird = std::fs::read_to_string(d.path().join("s/ird.csv")).unwrap();
    assert!(ird.lines().count() > 10);
}

#[test]
fn drb_runs_are_deterministic_and_depend_on_the_seed() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "t.toml", TORUS);
    let rate = "traffic.generators[0].rate=\"900Mbps\"";
    let a = run(&p, &d.path().join("a"), &with(DRB, rate));
    let b = run(&p, &d.path().join("b"), &with(DRB, rate));
    assert_eq!(stable(a.clone()), stable(b));
    for f in ["drb_paths.csv", "monitor_ports.csv", "flows.csv"] {
        assert_eq!(
            std::fs::read(d.path().join("a").join(f)).unwrap(),
            std::fs::read(d.path().join("b").join(f)).unwrap(),
            "{f}"
        );
    }
    let mut o = with(DRB, rate);
    o.push("sim.seed=7");
    let c = run(&p, &d.path().join("c"), &o);
    assert_ne!(a["drb"], c["drb"]);
}

#[test]
fn keys_that_do_not_apply_are_refused() {
    // DRB's agent options without DRB as the mechanism
    let e = input_error(
        TORUS,
        &[],
        &with(IB_S1, "drb.zero_counts=\"unnotified_first\""),
    );
    assert!(
        e.contains("drb.zero_counts") && e.contains("cc.mechanism"),
        "{e}"
    );
    // oblivious spreading and DRB's Eq. 1 both choose paths
    let e = input_error(TORUS, &[], &with(DRB, "drb.spread=\"round_robin\""));
    assert!(e.contains("drb.spread"), "{e}");
    // a zero timer would never let time pass
    let e = input_error(TORUS, &[], &with(DRB, "cc.ccm_timer=\"0us\""));
    assert!(e.contains("cc.ccm_timer"), "{e}");
    let e = input_error(TORUS, &[], &with(IB_S1, "cc.mark_fraction=1.5"));
    assert!(e.contains("cc.mark_fraction"), "{e}");
    // notifications keep their reverse route's layer (the deadlock check covers it)
    let e = input_error(TORUS, &[], &with(DRB, "cc.cnp_vl=3"));
    assert!(e.contains("cc.cnp_vl"), "{e}");
    let e = input_error(TORUS, &[], &with(IB_S1, "cc.mechanism=\"qcn\""));
    assert!(e.contains("cc.mechanism") && e.contains("drb"), "{e}");
}

#[test]
fn drb_implies_the_multipath_routes() {
    // without [drb] enabled, cc.mechanism = "drb" builds the routes itself
    let d = tempfile::tempdir().unwrap();
    let text = TORUS.replace("[drb]\nenabled = true\n", "");
    let p = write(d.path(), "t.toml", &text);
    let s = run(
        &p,
        &d.path().join("a"),
        &with(DRB, "traffic.generators[0].rate=\"1000Mbps\""),
    );
    conserved(&s);
    assert_eq!(s["drb"]["max_open_paths"], 4, "{}", s["drb"]);
}

#[test]
fn the_iba_cc_runs_over_the_layered_routes_too() {
    // IBA_CC-spec (cc.mechanism = "ib") on the torus: path 0 only, on its VL layer (the torus
    // rings' cycles broken by the layering); its CNPs return on the reverse route's layer
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "t.toml", TORUS);
    let s = run(
        &p,
        &d.path().join("a"),
        &[
            "cc.enabled=true",
            "cc.mechanism=\"ib\"",
            "traffic.generators[0].rate=\"1000Mbps\"",
        ],
    );
    conserved(&s);
    let cc = &s["cc"];
    assert!(cc["cnps_received"].as_u64().unwrap() > 0, "{cc}");
    assert_eq!(s["delivery"]["out_of_order_packets"], 0);
    assert!(s["drb"].is_null());
}

#[test]
fn validate_names_the_mechanism_and_its_parameters() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "t.toml", TORUS);
    let ov = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let text = lnsim::api::validate_file(&p, &ov(DRB)).unwrap();
    assert!(
        text.contains("congestion management: drb (FECN above 0.8")
            && text.contains("one more path per 10 notifications"),
        "{text}"
    );
    let text = lnsim::api::validate_file(&p, &ov(&with(IB_S1, "cc.ird_step=\"2us\""))).unwrap();
    assert!(text.contains("IRD + 2 µs per 10 notifications"), "{text}");
    let mut timer = with(IB_S1, "cc.ccm_timer_mode=\"per_flow_restart\"");
    timer.push("cc.mark_scope=\"port\"");
    let text = lnsim::api::validate_file(&p, &ov(&timer)).unwrap();
    assert!(
        text.contains("per_flow_restart timer") && text.contains("an input port's VL buffers"),
        "{text}"
    );
    let text = lnsim::api::validate_file(&p, &[]).unwrap();
    assert!(!text.contains("congestion management"), "{text}");
}

#[test]
fn the_monitor_can_watch_the_output_buffers() {
    // spec A.10 item 7's option: with output buffers, mark on the output VL buffer a packet
    // leaves; the output buffers fill first, so it marks where the input monitor waits
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "t.toml", TORUS);
    let rate = "traffic.generators[0].rate=\"1000Mbps\"";
    let obuf = "switch.output_buffer_credits=256";
    let mut input = with(DRB, rate);
    input.push(obuf);
    let mut output = input.clone();
    output.push("cc.mark_buffer=\"output\"");
    let a = run(&p, &d.path().join("in"), &input);
    let b = run(&p, &d.path().join("out"), &output);
    for s in [&a, &b] {
        conserved(s);
        assert!(
            s["monitor"]["fecn_marks"].as_u64().unwrap() > 0,
            "{}",
            s["monitor"]
        );
    }
    assert_ne!(a["monitor"], b["monitor"]);
    assert!(
        b["drb"]["max_open_paths"].as_u64().unwrap() >= 2,
        "{}",
        b["drb"]
    );
    // without output buffers, or with the IBA's CC, the option is refused naming the key
    let e = input_error(TORUS, &[], &with(DRB, "cc.mark_buffer=\"output\""));
    assert!(
        e.contains("cc.mark_buffer") && e.contains("output_buffer_credits"),
        "{e}"
    );
}

#[test]
fn per_connection_ccm_timers_change_the_runs_and_repeat() {
    // cc.ccm_timer_mode: each connection's own timer (phased, or restarted by each
    // notification) instead of one synchronous timer, for DRB and IBA_CC-S1 alike
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "t.toml", TORUS);
    let rate = "traffic.generators[0].rate=\"1000Mbps\"";
    for (name, mech) in [("drb", DRB), ("ib_s1", IB_S1)] {
        let global = run(&p, &d.path().join(format!("{name}g")), &with(mech, rate));
        for mode in ["per_flow_phase", "per_flow_restart"] {
            let set = format!("cc.ccm_timer_mode=\"{mode}\"");
            let mut ov = with(mech, rate);
            ov.push(&set);
            let a = run(&p, &d.path().join(format!("{name}{mode}a")), &ov);
            let b = run(&p, &d.path().join(format!("{name}{mode}b")), &ov);
            conserved(&a);
            assert_eq!(stable(a.clone()), stable(b), "{name} {mode}: deterministic");
            assert_ne!(a["latency_ns"], global["latency_ns"], "{name} {mode}");
        }
    }
    // refused where it does not apply, and bad values name the allowed ones
    let e = input_error(
        TORUS,
        &[],
        &[
            "cc.enabled=true",
            "cc.mechanism=\"ib\"",
            "cc.ccm_timer_mode=\"per_flow_phase\"",
        ],
    );
    assert!(
        e.contains("cc.ccm_timer_mode") && e.contains("cc.mechanism"),
        "{e}"
    );
    let e = input_error(TORUS, &[], &with(DRB, "cc.ccm_timer_mode=\"each\""));
    assert!(
        e.contains("cc.ccm_timer_mode") && e.contains("per_flow_restart"),
        "{e}"
    );
}

#[test]
fn the_monitor_can_compare_the_whole_port() {
    // cc.mark_scope = "port": the occupancy of the port's VL buffers together against 80 % of
    // the port's total marks differently from the VL buffer alone
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "t.toml", TORUS);
    let rate = "traffic.generators[0].rate=\"1000Mbps\"";
    let vl = run(&p, &d.path().join("vl"), &with(DRB, rate));
    let mut ov = with(DRB, rate);
    ov.push("cc.mark_scope=\"port\"");
    let port = run(&p, &d.path().join("port"), &ov);
    conserved(&port);
    assert!(vl["monitor"]["fecn_marks"].as_u64().unwrap() > 0);
    assert_ne!(vl["monitor"], port["monitor"]);
    let e = input_error(TORUS, &[], &with(DRB, "cc.mark_scope=\"switch\""));
    assert!(e.contains("cc.mark_scope") && e.contains("port"), "{e}");
}
