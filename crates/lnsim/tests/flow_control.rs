//! Link-level flow control as packets (`links.flow_control = "packets"`, IB CC spec §3.4): the
//! credit updates share the reverse link with data, are batched by the minimum interval, and
//! credits are conserved with them in flight.

mod common;
use common::{run, write};

/// Two HCAs on two switches sending to each other: each host link carries one flow's data one
/// way and the other flow's credit updates the other way.
const BOTH_WAYS: &str = r#"
[sim]
model = "credit"
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
[[traffic.flows]]
src = "H121"
dst = "H111"
"#;

fn tx(s: &serde_json::Value, n: &str) -> f64 {
    s["nodes"][n]["tx_gbps_after_warmup"].as_f64().unwrap()
}

#[test]
fn flow_control_packets_take_reverse_link_bandwidth() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "s.toml", BOTH_WAYS);
    // ideal credit return: both flows at the 4x SDR data rate, 8 Gbit/s
    let s = run(&p, &d.path().join("ideal"), &[]);
    for n in ["H111", "H121"] {
        assert!((tx(&s, n) - 8.0).abs() < 0.05, "{n}: {}", tx(&s, n));
    }
    // IBA-size updates (6 B) after every packet cost 6/2176 of the link
    let s = run(
        &p,
        &d.path().join("iba"),
        &["links.flow_control=\"packets\""],
    );
    assert_eq!(s["conservation"]["ok"], true);
    for n in ["H111", "H121"] {
        let want = 8.0 * 2176.0 / (2176.0 + 6.0);
        assert!(
            (tx(&s, n) - want).abs() < 0.02,
            "{n}: {} vs {want}",
            tx(&s, n)
        );
    }
    // an update as long as a data packet after every packet halves each flow
    let s = run(
        &p,
        &d.path().join("big"),
        &[
            "links.flow_control=\"packets\"",
            "links.flow_control_bytes=\"2176B\"",
        ],
    );
    assert_eq!(s["conservation"]["ok"], true);
    for n in ["H111", "H121"] {
        assert!((tx(&s, n) - 4.0).abs() < 0.2, "{n}: {}", tx(&s, n));
    }
    // batched: at most one update per 10 µs (about 3.7 packet times at 8 Gbit/s) carries the
    // credits of several packets, so far less of the link goes to updates
    let s = run(
        &p,
        &d.path().join("batched"),
        &[
            "links.flow_control=\"packets\"",
            "links.flow_control_bytes=\"2176B\"",
            "links.flow_control_interval=\"10us\"",
        ],
    );
    assert_eq!(s["conservation"]["ok"], true);
    for n in ["H111", "H121"] {
        assert!(tx(&s, n) > 6.0 && tx(&s, n) < 7.9, "{n}: {}", tx(&s, n));
    }
}

#[test]
fn credits_are_conserved_with_updates_in_flight_under_congestion() {
    // experiment A (all four flows on, shortened tenfold) with batched updates and CC: the run
    // ends with updates pending and in flight, and the check at the end balances them
    let d = tempfile::tempdir().unwrap();
    let p = common::scaled("scenarios/ibcc/zeru_a.toml", 0.1, d.path());
    let over = [
        "links.flow_control=\"packets\"",
        "links.flow_control_interval=\"3us\"",
        "cc.enabled=true",
    ];
    let s = run(&p, &d.path().join("a"), &over);
    assert_eq!(s["conservation"]["ok"], true);
    let sent = s["flow_control_packets"].as_u64().unwrap();
    let hops = s["packet_hops"].as_u64().unwrap();
    // batching: fewer updates than packet hops, but updates flow on every loaded link
    assert!(
        sent > 1000 && sent < hops,
        "{sent} updates, {hops} packet hops"
    );
    // experiment A's CC-on thirds survive batched updates
    for n in ["H112", "H211", "H121"] {
        assert!(
            (tx(&s, n) / 8.0 - 1.0 / 3.0).abs() < 0.05,
            "{n}: {}",
            tx(&s, n)
        );
    }
    // the default writes no such field
    let s = run(&p, &d.path().join("ideal"), &["cc.enabled=true"]);
    assert!(s.get("flow_control_packets").is_none());
}
