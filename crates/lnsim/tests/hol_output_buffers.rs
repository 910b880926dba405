//! Output buffers of the credit-level switch (drb-and-ddbbm spec B.5: input and output buffers,
//! crossbar at 1.5× the link, `switch.output_buffer_credits`): every queue scheme conserves
//! packets and credits with them (the end-of-run check covers the output queues), runs repeat
//! exactly, `0` is the input-buffered switch to the byte, and bad combinations are refused by
//! key.

mod common;
use common::{input_error, run, write};
use serde_json::Value;

/// A 4-ary 2-tree (16 HCAs) of 1 GB/s links, a 1.5 GB/s crossbar, 64-B packets and messages,
/// 1 KB input buffers, flow-control packets on the links, a hotspot.
fn small_tree(extra: &str) -> String {
    format!(
        "[sim]\nmodel = \"infiniband\"\nend_time = \"60us\"\nwarmup = \"10us\"\ninterval = \"10us\"\n\
         [topology]\nkind = \"fat_tree\"\nk = 4\nn = 2\n\
         [links]\nflow_control = \"packets\"\nflow_control_bytes = \"8B\"\n\
         [links.host]\nrate = \"8Gbps\"\n[links.fabric]\nrate = \"8Gbps\"\n\
         [switch]\nbuffer_credits = 16\ncore_freq = \"187.5MHz\"\n{extra}\n\
         [hca]\nbuffer_credits = 16\ncore_freq = \"187.5MHz\"\n\
         [traffic]\ncredit_bytes = \"64B\"\npacket_bytes = \"64B\"\npayload_bytes = \"64B\"\n\
         mtu_credits = 1\nmessage_bytes = \"64B\"\n\
         [[traffic.generators]]\nsources = \"all\"\ninjection = \"bernoulli\"\nload = 0.9\n\
         hotspot = \"H6\"\nhotspot_fraction = 0.3\n"
    )
}

/// The `[switch]` lines of every scheme with `sharing` buffers and 1 KB output buffers.
fn schemes(sharing: &str) -> Vec<String> {
    ["voq", "one_queue", "voq_sw", "voq_net", "dbbm", "ddbbm"]
        .iter()
        .filter(|m| !(sharing == "static" && **m == "voq"))
        .map(|m| {
            let q = if m.contains("dbbm") {
                "dbbm_queues = 4\n"
            } else {
                ""
            };
            format!(
                "queue_mapping = \"{m}\"\n{q}buffer_sharing = \"{sharing}\"\noutput_buffer_credits = 16\n"
            )
        })
        .collect()
}

fn conserved(s: &Value) -> u64 {
    let c = &s["conservation"];
    assert_eq!(c["ok"], true, "{c}");
    assert!(s["deadlock"].is_null());
    let (inj, del, inside) = (
        c["injected_packets"].as_u64().unwrap(),
        c["delivered_packets"].as_u64().unwrap(),
        c["in_network_packets"].as_u64().unwrap(),
    );
    assert_eq!(inj, del + inside, "{c}");
    del
}

fn strip(mut s: Value) -> Value {
    for k in ["wall_time_s", "peak_rss_bytes", "scenario"] {
        s.as_object_mut().unwrap().remove(k);
    }
    s
}

#[test]
fn every_scheme_conserves_with_output_buffers() {
    let d = tempfile::tempdir().unwrap();
    for sharing in ["shared", "static"] {
        for (i, sw) in schemes(sharing).iter().enumerate() {
            let p = write(d.path(), &format!("{sharing}{i}.toml"), &small_tree(sw));
            let s = run(&p, &d.path().join(format!("{sharing}{i}")), &[]);
            let del = conserved(&s);
            // 16 HCAs at 0.9 of 1 GB/s for 60 µs offer about 13,500 packets
            assert!(del > 3_000, "{sharing} {sw}: {del} delivered");
        }
    }
}

#[test]
fn output_buffers_repeat_exactly_and_zero_is_the_input_buffered_switch() {
    let d = tempfile::tempdir().unwrap();
    for sw in [&schemes("shared")[0], &schemes("static")[4]] {
        let p = write(d.path(), "c.toml", &small_tree(sw));
        let x = strip(run(&p, &d.path().join("c1"), &[]));
        let y = strip(run(&p, &d.path().join("c2"), &[]));
        assert_eq!(x, y, "{sw}");
        // 0 = no output buffers: the same run as without the key, and not the buffered one
        let off = strip(run(
            &p,
            &d.path().join("c3"),
            &["switch.output_buffer_credits=0"],
        ));
        let plain = sw.replace("output_buffer_credits = 16\n", "");
        let q = write(d.path(), "p.toml", &small_tree(&plain));
        let without = strip(run(&q, &d.path().join("c4"), &[]));
        assert_eq!(off, without, "{sw}");
        assert_ne!(off["events"], x["events"], "{sw}");
        for f in ["nodes.csv", "flows.csv"] {
            let a = std::fs::read(d.path().join("c3").join(f)).unwrap();
            let b = std::fs::read(d.path().join("c4").join(f)).unwrap();
            assert!(a == b, "{sw} {f}");
        }
    }
}

#[test]
fn output_buffer_misuse_is_refused_by_key() {
    let e = input_error(
        &small_tree("output_buffer_credits = 16\n"),
        &[],
        &["cc.enabled=true"],
    );
    assert!(
        e.contains("switch.output_buffer_credits") && e.contains("cc.enabled"),
        "{e}"
    );
    // 3 queues of the next input per VL out of 2 credits, "split": under one packet each
    let e = input_error(
        &small_tree(
            "queue_mapping = \"voq_sw\"\nbuffer_sharing = \"static\"\nstatic_mode = \"split\"\noutput_buffer_credits = 2\n",
        ),
        &[],
        &[],
    );
    assert!(
        e.contains("switch.output_buffer_credits") && e.contains("less than one"),
        "{e}"
    );
    let e = input_error(&small_tree("output_buffer_credits = -1\n"), &[], &[]);
    assert!(e.contains("switch.output_buffer_credits"), "{e}");
}
