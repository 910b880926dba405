//! The queue schemes and buffer organisations of spec B.2 and B.5 on the credit-level
//! (InfiniBand) model, selected by scenario keys: every scheme conserves packets and credits on
//! a fat tree with shared and static buffers, runs are deterministic, bad combinations are
//! refused naming the key, and DBBM's victim pattern (spec B.2, R-B1/R-B6: a congested
//! destination hurts the destinations of its own queue, every Q-th one) appears where VOQnet
//! shows none.

mod common;
use common::{input_error, run, write};
use serde_json::Value;

/// A 4-ary 2-tree (16 HCAs) of 1 GB/s links, 64-B packets and messages, 1 KB buffers.
fn small_tree(extra: &str) -> String {
    format!(
        "[sim]\nmodel = \"credit\"\nend_time = \"60us\"\nwarmup = \"10us\"\ninterval = \"10us\"\n\
         [topology]\nkind = \"fat_tree\"\nk = 4\nn = 2\n\
         [links.host]\nrate = \"8Gbps\"\n[links.fabric]\nrate = \"8Gbps\"\n\
         [switch]\nbuffer_credits = 16\n{extra}\n[hca]\nbuffer_credits = 16\n\
         [traffic]\ncredit_bytes = \"64B\"\npacket_bytes = \"64B\"\npayload_bytes = \"64B\"\n\
         mtu_credits = 1\nmessage_bytes = \"64B\"\n\
         [[traffic.generators]]\nsources = \"all\"\ninjection = \"bernoulli\"\nload = 0.9\n\
         hotspot = \"H6\"\nhotspot_fraction = 0.3\n"
    )
}

/// The `[switch]` lines of each scheme, with `sharing` buffers.
fn schemes(sharing: &str) -> Vec<String> {
    ["one_queue", "voq_sw", "voq_net", "dbbm", "ddbbm"]
        .iter()
        .map(|m| {
            let q = if m.contains("dbbm") {
                "dbbm_queues = 4\n"
            } else {
                ""
            };
            format!("queue_mapping = \"{m}\"\n{q}buffer_sharing = \"{sharing}\"\n")
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

#[test]
fn every_scheme_conserves_with_shared_and_static_buffers() {
    let d = tempfile::tempdir().unwrap();
    let mut delivered = Vec::new();
    for sharing in ["shared", "static"] {
        for (i, sw) in schemes(sharing).iter().enumerate() {
            let p = write(d.path(), &format!("{sharing}{i}.toml"), &small_tree(sw));
            let s = run(&p, &d.path().join(format!("{sharing}{i}")), &[]);
            let del = conserved(&s);
            // 16 HCAs at 0.9 of 1 GB/s for 60 µs offer about 13,500 packets
            assert!(del > 3_000, "{sharing} {sw}: {del} delivered");
            delivered.push((sharing, sw.clone(), del));
        }
    }
    // the static modes B and "split" run too
    for sw in [
        "queue_mapping = \"ddbbm\"\ndbbm_queues = 2\nbuffer_sharing = \"static\"\nstatic_mode = \"per_queue\"\nqueue_bytes = \"1KiB\"\n",
        "queue_mapping = \"voq_sw\"\nbuffer_sharing = \"static\"\nstatic_mode = \"split\"\n",
    ] {
        let p = write(d.path(), "m.toml", &small_tree(sw));
        conserved(&run(&p, &d.path().join("m"), &[]));
    }
    eprintln!("{delivered:?}");
}

#[test]
fn voq_is_voq_sw_with_shared_buffers_and_runs_repeat_exactly() {
    let d = tempfile::tempdir().unwrap();
    let strip = |mut s: Value| {
        for k in ["wall_time_s", "peak_rss_bytes", "scenario"] {
            s.as_object_mut().unwrap().remove(k);
        }
        s
    };
    let a = write(d.path(), "a.toml", &small_tree("queue_mapping = \"voq\"\n"));
    let b = write(
        d.path(),
        "b.toml",
        &small_tree("queue_mapping = \"voq_sw\"\n"),
    );
    let sa = strip(run(&a, &d.path().join("a"), &[]));
    let sb = strip(run(&b, &d.path().join("b"), &[]));
    assert_eq!(sa, sb);
    // same seed, same summary, for the schemes that search several queues per input
    for sw in [
        &schemes("static")[3],
        &schemes("static")[4],
        &schemes("shared")[2],
    ] {
        let p = write(d.path(), "c.toml", &small_tree(sw));
        let x = strip(run(&p, &d.path().join("c1"), &[]));
        let y = strip(run(&p, &d.path().join("c2"), &[]));
        assert_eq!(x, y, "{sw}");
        // and another seed changes the run
        let z = strip(run(&p, &d.path().join("c3"), &["sim.seed=99"]));
        assert_ne!(x["events"], z["events"], "{sw}");
    }
}

#[test]
fn impossible_buffer_choices_are_refused_by_key() {
    let cases: [(&str, &str, &str); 8] = [
        ("queue_mapping = \"dbbm\"\n", "switch.dbbm_queues: ", "required"),
        ("queue_mapping = \"ddbbm\"\ndbbm_queues = 0\n", "", "switch.dbbm_queues"),
        ("queue_mapping = \"voq_net\"\ndbbm_queues = 4\n", "switch.dbbm_queues: ", "only for"),
        ("buffer_sharing = \"static\"\n", "switch.buffer_sharing: ", "voq_sw"),
        ("static_mode = \"divided\"\n", "switch.static_mode: ", "only for"),
        (
            "queue_mapping = \"dbbm\"\ndbbm_queues = 4\nbuffer_sharing = \"static\"\nstatic_mode = \"per_queue\"\n",
            "switch.queue_bytes: ",
            "required",
        ),
        (
            "queue_mapping = \"dbbm\"\ndbbm_queues = 4\nbuffer_sharing = \"static\"\nstatic_mode = \"per_queue\"\nqueue_bytes = \"32B\"\n",
            "switch.queue_bytes: ",
            "less than one 1-credit packet",
        ),
        // 16 credits over 17 queues exactly: under one packet each
        (
            "queue_mapping = \"ddbbm\"\ndbbm_queues = 16\nbuffer_sharing = \"static\"\nstatic_mode = \"split\"\n",
            "switch.buffer_credits: ",
            "less than one 1-credit packet",
        ),
    ];
    for (sw, key, what) in cases {
        let e = input_error(&small_tree(sw), &[], &[]);
        assert!(e.starts_with(key) && e.contains(what), "{sw:?}: {e}");
    }
    // VOQnet's queues grow with the destinations: checked against memory before anything is
    // allocated (a 1,024-node 4-ary 5-tree with 15 VLs and static buffers, never built here)
    let d = tempfile::tempdir().unwrap();
    let big = |sw: &str| {
        small_tree(&format!("{sw}buffer_sharing = \"static\"\n"))
            .replace("k = 4\nn = 2", "k = 4\nn = 5")
            .replace("[hca]", "vls = 15\n[hca]")
    };
    let net = write(d.path(), "net.toml", &big("queue_mapping = \"voq_net\"\n"));
    let dbbm = write(
        d.path(),
        "dbbm.toml",
        &big("queue_mapping = \"dbbm\"\ndbbm_queues = 4\n"),
    );
    let est = |p: &std::path::Path| lnsim::api::estimate_memory_file(p, &[]).unwrap();
    let (en, ed) = (est(&net), est(&dbbm));
    eprintln!(
        "memory estimate: VOQnet {} B, DBBM-4Q {} B",
        en.total, ed.total
    );
    // 1,024 queues per VL instead of 4: their records and credit counters take far more
    // memory (the packets they could hold are bounded by what 60 us can create, the same for
    // both), and the whole run several times more
    let queues = |e: &lnsim::engine::memory_budget::MemoryEstimate| -> u64 {
        e.parts
            .iter()
            .filter(|p| p.0 == "switch queues" || p.0 == "credits per queue")
            .map(|p| p.1)
            .sum()
    };
    assert!(
        queues(&en) > 20 * queues(&ed),
        "VOQnet {}, DBBM {}",
        en.summary(),
        ed.summary()
    );
    assert!(
        en.total > 3 * ed.total,
        "VOQnet {}, DBBM {}",
        en.total,
        ed.total
    );
    let limit = Some(3 * ed.total);
    let e = lnsim::api::validate_file_with(&net, &[], limit).unwrap_err();
    assert_eq!(lnsim::api::exit_status(&e), 2);
    assert!(e.to_string().contains("memory"), "{e}");
}

/// HCA name of HCA index `i` (LID − 1) in a fat tree.
fn hca(i: usize) -> String {
    format!("H{}", i + 1)
}

/// After-warm-up reception of every HCA of a 64-node 4-ary 3-tree, as a fraction of the link:
/// 21 hot sources (i ≡ 0 mod 3) send only to HCA 30 at full load, the 43 others uniformly at
/// 60 % (spec B.6 #3B-like), with `sw` buffers.
fn victims_run(d: &std::path::Path, name: &str, sw: &str) -> Vec<f64> {
    let hot: Vec<String> = (0..64)
        .filter(|i| i % 3 == 0 && *i != 30)
        .map(hca)
        .collect();
    let cold: Vec<String> = (0..64)
        .filter(|i| i % 3 != 0 || *i == 30)
        .map(hca)
        .collect();
    let text = format!(
        "[sim]\nmodel = \"credit\"\nend_time = \"250us\"\nwarmup = \"50us\"\ninterval = \"50us\"\n\
         [topology]\nkind = \"fat_tree\"\nk = 4\nn = 3\n\
         [links.host]\nrate = \"8Gbps\"\n[links.fabric]\nrate = \"8Gbps\"\n\
         [switch]\nbuffer_credits = 16\nbuffer_sharing = \"static\"\n{sw}\n[hca]\nbuffer_credits = 16\n\
         [stats]\nbuffer_occupancy = false\n\
         [traffic]\ncredit_bytes = \"64B\"\npacket_bytes = \"64B\"\npayload_bytes = \"64B\"\n\
         mtu_credits = 1\nmessage_bytes = \"64B\"\n\
         [[traffic.generators]]\nsources = {cold:?}\ninjection = \"bernoulli\"\nload = 0.6\n\
         [[traffic.generators]]\nsources = {hot:?}\ndestinations = [\"H31\"]\ninjection = \"bernoulli\"\nload = 1.0\n"
    );
    let p = write(d, &format!("{name}.toml"), &text);
    let s = run(&p, &d.join(name), &[]);
    conserved(&s);
    (0..64)
        .map(|i| s["nodes"][hca(i)]["rx_gbps_after_warmup"].as_f64().unwrap() / 8.0)
        .collect()
}

/// Mean reception of the non-hot destinations ≡ 2 (mod 4) (the hotspot's DBBM queue) and of
/// the others.
fn class_means(rx: &[f64]) -> (f64, f64) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for (i, &r) in rx.iter().enumerate() {
        if i == 30 {
            continue;
        }
        if i % 4 == 30 % 4 {
            a.push(r)
        } else {
            b.push(r)
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    (mean(&a), mean(&b))
}

#[test]
fn dbbm_victimises_the_hotspots_queue_and_voq_net_nobody() {
    let d = tempfile::tempdir().unwrap();
    let dbbm = victims_run(
        d.path(),
        "dbbm",
        "queue_mapping = \"dbbm\"\ndbbm_queues = 4\n",
    );
    let net = victims_run(d.path(), "net", "queue_mapping = \"voq_net\"\n");
    let (dv, dothers) = class_means(&dbbm);
    let (nv, nothers) = class_means(&net);
    eprintln!(
        "hotspot: DBBM {:.3}, VOQnet {:.3}; dst ≡ 2 mod 4 / others: DBBM {dv:.3} / {dothers:.3}, VOQnet {nv:.3} / {nothers:.3}",
        dbbm[30], net[30]
    );
    // the background offers 43 × 0.6 / 63 ≈ 0.41 of the link to every destination
    assert!(nothers > 0.36 && nv > 0.36, "VOQnet {nv} / {nothers}");
    assert!((nv - nothers).abs() < 0.05, "VOQnet {nv} / {nothers}");
    // DBBM: the destinations that share the hotspot's queue get much less than the others
    assert!(dothers > 0.3, "DBBM others {dothers}");
    assert!(dv < 0.6 * dothers, "DBBM victims {dv} vs others {dothers}");
    // and the victims are exactly that class: each of them below every other destination
    let worst_other = (0..64)
        .filter(|&i| i != 30 && i % 4 != 2)
        .map(|i| dbbm[i])
        .fold(f64::MAX, f64::min);
    let best_victim = (0..64)
        .filter(|&i| i != 30 && i % 4 == 2)
        .map(|i| dbbm[i])
        .fold(0.0, f64::max);
    assert!(
        best_victim < worst_other,
        "best victim {best_victim}, worst other {worst_other}"
    );
    // the hotspot's link is busy in both
    assert!(dbbm[30] > 0.8 && net[30] > 0.8, "{} {}", dbbm[30], net[30]);
}

/// DDBBM's destination detection has its own selection, `cc.mechanism = "ddbbm"` (with
/// `cc.enabled = true`), meaning the same as the DDBBM queue mapping alone (the shipped
/// scenarios' form): the same detection, notifications and deliveries. Without the DDBBM queues
/// it is refused, naming the key and the mapping it needs.
#[test]
fn ddbbm_detection_is_selected_by_its_own_key_too() {
    let d = tempfile::tempdir().unwrap();
    let p = write(
        d.path(),
        "t.toml",
        &small_tree("queue_mapping = \"ddbbm\"\ndbbm_queues = 4\n"),
    );
    let alone = run(&p, &d.path().join("alone"), &[]);
    let keyed = run(
        &p,
        &d.path().join("keyed"),
        &["cc.enabled=true", "cc.mechanism=\"ddbbm\""],
    );
    assert!(alone["ddbbm"]["frames"].as_u64().unwrap() > 0, "{alone}");
    for k in ["ddbbm", "conservation", "throughput", "nodes"] {
        assert_eq!(alone[k], keyed[k], "{k}");
    }
    let csv = |n: &str| std::fs::read_to_string(d.path().join(n).join("ddbbm.csv")).unwrap();
    assert_eq!(csv("alone"), csv("keyed"));

    let e = input_error(
        &small_tree(""),
        &[],
        &["cc.enabled=true", "cc.mechanism=\"ddbbm\""],
    );
    assert!(
        e.contains("cc.mechanism") && e.contains("switch.queue_mapping = \"ddbbm\""),
        "{e}"
    );
}
