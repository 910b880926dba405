//! `hca.sink.credit_return = "credit"`: a sink gives each credit back as its bytes have drained,
//! instead of all of a packet's credits once it has drained (IB CC spec §3.7.2).

mod common;
use common::{run, write};

/// One flow into a sink slower than its link, with room for one and a half packets at the HCA:
/// credit return decides whether the next packet can come in while the last one drains.
const SLOW_SINK: &str = r#"
[sim]
model = "credit"
end_time = "2ms"
warmup = "1ms"
interval = "0.5ms"
[topology]
kind = "mesh"
dims = [1, 2]
hcas_per_switch = 1
[hca]
buffer_credits = 51
[hca.sink]
drain_rate = "4Gbps"
[[traffic.flows]]
src = "H111"
dst = "H121"
"#;

fn rx(s: &serde_json::Value) -> f64 {
    s["nodes"]["H121"]["rx_gbps_after_warmup"].as_f64().unwrap()
}

#[test]
fn per_credit_return_keeps_a_slow_sink_busy() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "s.toml", SLOW_SINK);
    let packet = run(&p, &d.path().join("packet"), &[]);
    let credit = run(
        &p,
        &d.path().join("credit"),
        &["hca.sink.credit_return=\"credit\""],
    );
    for s in [&packet, &credit] {
        assert_eq!(s["conservation"]["ok"], true);
    }
    // per packet, the next packet (34 credits) cannot leave the switch until the whole last
    // one has drained, so the sink idles for a round trip each time; per credit, half of the
    // last one drained frees enough, and the next packet is there before the sink needs it
    assert!(rx(&packet) < 3.95, "per packet {}", rx(&packet));
    // (the window counts whole packets: one packet more or less is 0.017 Gbit/s)
    assert!(
        (rx(&credit) - 4.0).abs() < 0.02,
        "per credit {}",
        rx(&credit)
    );
    // payload-level results are otherwise alike: the same packets arrive, in order
    assert!(credit["events"].as_u64() > packet["events"].as_u64());
}

#[test]
fn per_credit_return_conserves_credits_with_flow_control_packets_and_cc() {
    let d = tempfile::tempdir().unwrap();
    let p = common::scaled("scenarios/ibcc/zeru_a.toml", 0.1, d.path());
    let s = run(
        &p,
        &d.path().join("a"),
        &[
            "hca.sink.credit_return=\"credit\"",
            "links.flow_control=\"packets\"",
            "links.flow_control_interval=\"1us\"",
            "cc.enabled=true",
        ],
    );
    assert_eq!(s["conservation"]["ok"], true);
    for n in ["H112", "H211", "H121"] {
        let share = s["nodes"][n]["tx_gbps_after_warmup"].as_f64().unwrap() / 8.0;
        assert!((share - 1.0 / 3.0).abs() < 0.05, "{n}: {share}");
    }
}
