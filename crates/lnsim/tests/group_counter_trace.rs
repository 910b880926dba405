//! The group-counter observer (`stats.group_counters`; Dragonfly spec §3.10.1, §3.10.3, §6.4
//! L6–L7, Fig 6-8) on an h = 3 Dragonfly (p = 3, a = 6, 19 groups), 5,000 warm-up + 10,000
//! measured cycles: IL_{−1} under ADV+1 and VLB -g- grows with the load (below saturation as
//! Eq. 6-1/6-2 predict: G_{+1} = p · L · HW / L_pkt = 60 L packets per window, IL_{−1} =
//! G_{+1} / h = 20 L), every other output is byte-identical with the observer on and off, and
//! bad settings name their key.

mod common;
use common::dragonfly::{df, run_into};
use serde_json::Value;
use std::path::Path;

/// `df` with the observer on.
fn observed(routing: &str, pattern: &str, load: f64) -> String {
    df(routing, pattern, load, 1) + "[stats]\ngroup_counters = true\n"
}

fn il(v: &Value, k: usize) -> f64 {
    v["group_counters"]["il_mean"][k].as_f64().unwrap()
}

/// Spec §6.4 L6: IL_{−1} under ADV+1 with VLB -g- rises with the offered load — 20 L below
/// saturation (the injected part; the stored part w · stor is small there) — and keeps rising
/// past saturation, where the stored packets add to it; IL_{−2}, IL_{−3} see nothing of
/// offset +1.
#[test]
fn il_minus_1_grows_with_adv1_load_under_vlb_g() {
    let d = tempfile::tempdir().unwrap();
    let mut last = 0.0;
    for (i, load) in [0.1, 0.25, 0.4, 0.8].into_iter().enumerate() {
        let v = run_into(
            &observed("algorithm = \"vlb\"\nvlb_policy = \"-g-\"", "adv+1", load),
            &d.path().join(format!("p{i}")),
        );
        let g = &v["group_counters"];
        println!("load {load}: {g}");
        assert_eq!(g["window_cycles"], 200);
        assert_eq!(g["counters"], "extended");
        // 10,000 measured cycles, a sample per 200 (fewer when the saturation watch stops)
        let measured = v["measured_cycles"].as_u64().unwrap();
        assert_eq!(g["samples"], measured / 200, "{measured}");
        assert_eq!(g["il_mean"].as_array().unwrap().len(), 3);
        let il1 = il(&v, 0);
        assert!(il1 > last, "load {load}: IL_{{−1}} {il1} after {last}");
        if v["saturated"] == false {
            assert!(
                (il1 - 20.0 * load).abs() < 0.1 * 20.0 * load,
                "load {load}: IL_{{−1}} {il1}, Eq. 6-2 gives {}",
                20.0 * load
            );
        }
        assert_eq!((il(&v, 1), il(&v, 2)), (0.0, 0.0));
        assert_eq!(g["il_plus_mean"][0], 0.0, "no negative offsets");
        last = il1;
    }
    let sat = &d.path().join("p3");
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(sat.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        v["saturated"], true,
        "ADV+1 at 0.8 is past -g-'s saturation"
    );
    // the trace: a row per router and 1,000-cycle bin, 5 samples each
    let csv = std::fs::read_to_string(sat.join("group_counters.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "start_cycle,end_cycle,router,name,samples,il_m1,il_m2,il_m3,g_mean,g_max"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let stop = 5000 + v["measured_cycles"].as_u64().unwrap();
    assert!(stop < 15000, "stopped early");
    let bins = stop.div_ceil(1000) as usize;
    assert_eq!(rows.len(), bins * 6 * 19);
    assert!(rows[..(bins - 1) * 114]
        .iter()
        .all(|r| r[4] == "5" && r.len() == 10));
    assert_eq!(rows[0][..4], ["0", "1000", "0", "G0R0"]);
    assert_eq!(rows.last().unwrap()[1], stop.to_string());
}

/// Every file but the observer's own is byte-identical with `stats.group_counters` on and off
/// (summary.json: but the `group_counters` field and the host-dependent timings; scenario.toml:
/// but the key's line), for an oblivious, a source-adaptive and a counter-reading routing.
#[test]
fn the_observer_changes_no_other_output() {
    let d = tempfile::tempdir().unwrap();
    for (i, routing) in [
        "algorithm = \"vlb\"\nvlb_policy = \"-g-\"",
        "algorithm = \"pb\"",
        "algorithm = \"lian\"",
        "algorithm = \"tpr\"",
    ]
    .into_iter()
    .enumerate()
    {
        let off = df(routing, "adv+1", 0.45, 1);
        let on = observed(routing, "adv+1", 0.45);
        let (a, b) = (
            d.path().join(format!("off{i}")),
            d.path().join(format!("on{i}")),
        );
        run_into(&off, &a);
        run_into(&on, &b);
        let names = |p: &Path| {
            let mut v: Vec<String> = std::fs::read_dir(p)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            v.sort();
            v
        };
        let mut want = names(&a);
        want.push("group_counters.csv".into());
        want.sort();
        assert_eq!(names(&b), want, "{routing}");
        for f in names(&a) {
            let (x, y) = (
                std::fs::read_to_string(a.join(&f)).unwrap(),
                std::fs::read_to_string(b.join(&f)).unwrap(),
            );
            match f.as_str() {
                "summary.json" => {
                    let mut x: Value = serde_json::from_str(&x).unwrap();
                    let mut y: Value = serde_json::from_str(&y).unwrap();
                    assert!(y["group_counters"].is_object());
                    y.as_object_mut().unwrap().remove("group_counters");
                    for k in [
                        "wall_time_s",
                        "setup_time_s",
                        "peak_rss_bytes",
                        "phit_hops_per_s",
                    ] {
                        x[k] = Value::Null;
                        y[k] = Value::Null;
                    }
                    assert_eq!(x, y, "{routing}");
                }
                "scenario.toml" => {
                    let drop = |t: &str| {
                        t.lines()
                            .filter(|l| {
                                !l.starts_with("group_counters") && *l != "[stats]" && !l.is_empty()
                            })
                            .map(String::from)
                            .collect::<Vec<_>>()
                    };
                    assert_eq!(drop(&x), drop(&y), "{routing}");
                    assert!(y.contains("group_counters = true"));
                }
                ".lnsim" => {
                    // the marker lists the files written: the observer's one more
                    let mut x: Value = serde_json::from_str(&x).unwrap();
                    let y: Value = serde_json::from_str(&y).unwrap();
                    x["files"] = serde_json::json!(want
                        .iter()
                        .filter(|n| *n != ".lnsim")
                        .collect::<Vec<_>>());
                    assert_eq!(x, y, "{routing}");
                }
                _ => assert!(x == y, "{routing}: {f} differs"),
            }
        }
    }
}

/// Bad settings name their key (exit status 2, `validate` the same).
#[test]
fn bad_observer_settings_name_the_key() {
    let e = |text: &str| {
        let msg = common::input_error(text, &[], &[]);
        println!("{msg}");
        msg
    };
    // not a Dragonfly
    let mesh = "[sim]\nwarmup_cycles = 0\nmeasure_cycles = 1000\n[topology]\nkind = \"mesh\"\n\
                dims = [4, 4]\nhcas_per_switch = 1\n[traffic]\npattern = \"uniform\"\nload = 0.1\n\
                [stats]\ngroup_counters = true\n";
    let m = e(mesh);
    assert!(
        m.contains("stats.group_counters") && m.contains("Dragonflies"),
        "{m}"
    );
    // the credit-level model
    let ib = "[sim]\nend_time = \"2ms\"\n[topology]\nkind = \"mesh\"\ndims = [1, 2]\n\
              hcas_per_switch = 1\n[[traffic.flows]]\nsrc = \"H111\"\ndst = \"H121\"\n\
              [stats]\ngroup_counters = true\n";
    let m = e(ib);
    assert!(
        m.contains("stats.group_counters") && m.contains("cycle-level"),
        "{m}"
    );
    // a bin narrower than the counters' window
    let vlb = "algorithm = \"vlb\"";
    let m = e(&(observed(vlb, "uniform", 0.1) + "bin_cycles = 100\n"));
    assert!(
        m.contains("stats.bin_cycles") && m.contains("window_cycles"),
        "{m}"
    );
    // LIAN's counter keys apply to any routing with the observer, its other keys do not
    let lian_w = "algorithm = \"vlb\"\nlian.w = 0.5\nlian.window_cycles = 400";
    let l = lnsim::config::load_str(
        &(observed(lian_w, "uniform", 0.1) + "bin_cycles = 400\n"),
        "t",
        Path::new("."),
        "t",
        &[],
        None,
    )
    .unwrap();
    lnsim::api::validate_scenario(&l, None).unwrap();
    let m = e(&observed(
        "algorithm = \"vlb\"\nlian.ilc_th = 10",
        "uniform",
        0.1,
    ));
    assert!(
        m.contains("key `routing.lian.ilc_th`: is not a key of [routing.lian] under routing.algorithm = \"vlb\" (it applies to lian); there it takes one of `window_cycles`, `counters`, `w`"),
        "{m}"
    );
    let m = e(&df("algorithm = \"vlb\"\nlian.w = 0.5", "uniform", 0.1, 1));
    assert!(m.contains("routing.lian") && m.contains("lian"), "{m}");
    // a bad w names LIAN's key
    let m = e(&observed(
        "algorithm = \"min\"\nlian.w = -1.0",
        "uniform",
        0.1,
    ));
    assert!(m.contains("routing.lian.w"), "{m}");
}
