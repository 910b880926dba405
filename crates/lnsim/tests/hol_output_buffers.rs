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
        "[sim]\nmodel = \"credit\"\nend_time = \"60us\"\nwarmup = \"10us\"\ninterval = \"10us\"\n\
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

/// `output_buffers.csv` (`stats.buffer_occupancy` with output buffers, spec B.5): a row per
/// interval, switch port, VL and output queue, each mean within its peak and the peak within
/// the queue's share; the hotspot's output fills; absent without output buffers or statistics.
#[test]
fn output_buffer_statistics_are_written_and_consistent() {
    let d = tempfile::tempdir().unwrap();
    // (scheme, output queues per VL at a switch → switch port)
    for (sw, per_port) in [(&schemes("shared")[0], 1usize), (&schemes("static")[4], 5)] {
        let p = write(d.path(), "o.toml", &small_tree(sw));
        let out = d.path().join("o");
        let s = run(&p, &out, &[]);
        let text = std::fs::read_to_string(out.join("output_buffers.csv")).unwrap();
        let mut lines = text.lines();
        assert_eq!(
            lines.next().unwrap(),
            "t_start_s,switch,port,vl,queue,capacity_credits,mean_credits,max_credits"
        );
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        // 4-ary 2-tree: 4 leaves of 8 ports (4 to HCAs: one queue per VL) and 4 roots of 4
        // ports, 6 intervals of 10 µs
        let queues = 4 * (4 + 4 * per_port) + 4 * 4 * per_port;
        assert_eq!(rows.len(), 6 * queues, "{sw}");
        let mut hottest = (0.0f64, 0u32, 0u32);
        for r in &rows {
            let (q, cap, mean, max): (usize, u32, f64, u32) = (
                r[4].parse().unwrap(),
                r[5].parse().unwrap(),
                r[6].parse().unwrap(),
                r[7].parse().unwrap(),
            );
            assert!(q < per_port, "{sw}: {r:?}");
            assert!(
                mean <= max as f64 + 1e-9 && max <= cap && cap > 0,
                "{sw}: {r:?}"
            );
            if mean > hottest.0 {
                hottest = (mean, max, cap);
            }
        }
        // the hotspot's output is congested: some queue held its share and averaged over half
        assert_eq!(hottest.1, hottest.2, "{sw}: {hottest:?}");
        assert!(hottest.0 > 0.5 * hottest.2 as f64, "{sw}: {hottest:?}");
        assert!(s["conservation"]["ok"].as_bool().unwrap());
        // the summary does not change with the statistics
        let quiet = d.path().join("q");
        let s2 = run(&p, &quiet, &["stats.buffer_occupancy=false"]);
        assert!(!quiet.join("output_buffers.csv").exists());
        assert_eq!(strip(s), strip(s2), "{sw}");
        let plain = d.path().join("n");
        run(&p, &plain, &["switch.output_buffer_credits=0"]);
        assert!(!plain.join("output_buffers.csv").exists());
        assert!(plain.join("buffers.csv").exists());
    }
}
