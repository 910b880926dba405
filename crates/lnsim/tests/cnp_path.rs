//! The CNP path (`cc.cnp_vl`, IB CC spec §2.3.1): congestion notifications on a VL of their own,
//! checked for deadlock on that VL, and able to overtake data with a high-priority VL
//! arbitration entry.

mod common;
use common::{input_error, run, write};

#[test]
fn cnps_on_their_own_vl_leave_the_data_vl_acyclic() {
    // the ring of core_behaviour.rs: the data routes make two dependencies on VL 0, and the
    // notifications of H2 → H3, returning the long way, close a cycle — on VL 0 only
    let topo = "switch A\nswitch B\nswitch C\nhca H1\nhca H2\nhca H3\n\
                link H1 A\nlink H2 B\nlink H3 C\nlink A B\nlink B C\nlink C A\n";
    let lft = "A: 255 0 1 1\nB: 255 2 0 2\nC: 255 2 2 0\n";
    let mut text = String::from(
        "[sim]\nmodel = \"credit\"\nend_time = \"1ms\"\ninterval = \"0.5ms\"\n\
         [topology]\nkind = \"file\"\nfile = \"ring.topo\"\n\
         [routing]\nalgorithm = \"lft_file\"\nfile = \"ring.lft\"\n[switch]\nvls = 2\n",
    );
    for (a, b) in [("H1", "H3"), ("H2", "H1"), ("H2", "H3")] {
        text.push_str(&format!(
            "[[traffic.flows]]\nsrc = \"{a}\"\ndst = \"{b}\"\n"
        ));
    }
    let files = [("ring.topo", topo), ("ring.lft", lft)];
    let e = input_error(&text, &files, &["cc.enabled=true"]);
    assert!(e.contains("cycle of 3 channels"), "{e}");
    // on VL 1 the notifications' routes are a graph of their own: both VLs acyclic
    let d = tempfile::tempdir().unwrap();
    for (n, t) in files {
        write(d.path(), n, t);
    }
    let p = write(d.path(), "ring.toml", &text);
    let s = run(
        &p,
        &d.path().join("out"),
        &["cc.enabled=true", "cc.cnp_vl=1"],
    );
    assert_eq!(s["conservation"]["ok"], true);
    assert!(s["deadlock"].is_null());
    // a CNP VL that does not exist is refused by name
    let e = input_error(&text, &files, &["cc.enabled=true", "cc.cnp_vl=2"]);
    assert!(e.starts_with("cc.cnp_vl: VL 2 does not exist"), "{e}");
}

#[test]
fn a_vl_in_use_but_in_no_arbitration_table_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let p = common::scaled("scenarios/ibcc/zeru_a.toml", 0.1, d.path());
    let text = std::fs::read_to_string(&p).unwrap();
    // only a high table: VL 0, which carries the data, would never be sent
    let e = input_error(
        &text,
        &[],
        &["switch.vls=2", "switch.vl_arbitration.high=[[1, 255]]"],
    );
    assert!(
        e.starts_with("switch.vl_arbitration: VL 0 carries traffic but is in neither"),
        "{e}"
    );
    let e = input_error(
        &text,
        &[],
        &[
            "cc.enabled=true",
            "switch.vls=2",
            "cc.cnp_vl=1",
            "switch.vl_arbitration.low=[[0, 255]]",
        ],
    );
    assert!(e.contains("VL 1 carries the CNPs (cc.cnp_vl)"), "{e}");
}

#[test]
fn high_priority_cnps_still_give_experiment_a_its_thirds() {
    let d = tempfile::tempdir().unwrap();
    let p = common::scaled("scenarios/ibcc/zeru_a.toml", 0.1, d.path());
    let s = run(
        &p,
        &d.path().join("a"),
        &[
            "cc.enabled=true",
            "switch.vls=2",
            "cc.cnp_vl=1",
            "switch.vl_arbitration.high=[[1, 255]]",
            "switch.vl_arbitration.low=[[0, 255]]",
        ],
    );
    assert_eq!(s["conservation"]["ok"], true);
    let (sent, got) = (
        s["cc"]["cnps_sent"].as_u64().unwrap(),
        s["cc"]["cnps_received"].as_u64().unwrap(),
    );
    assert!(
        got > 1000 && got <= sent,
        "CNPs sent {sent}, received {got}"
    );
    for n in ["H112", "H211", "H121"] {
        let share = s["nodes"][n]["tx_gbps_after_warmup"].as_f64().unwrap() / 8.0;
        assert!((share - 1.0 / 3.0).abs() < 0.05, "{n}: {share}");
    }
}
