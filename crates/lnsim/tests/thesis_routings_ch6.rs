//! TPR (Dragonfly spec §3.9) and LIAN (§3.10) in the cycle-level model,
//! on an h = 3 Dragonfly (p = 3, a = 6, 19 groups, 342 terminals, Table 3-1 router),
//! 5,000 warm-up + 10,000 measured cycles: the orderings the thesis claims where they are
//! cheap to show (§6.4 L8, L10; §9.3), the path breakdown, the channel-dependency check,
//! determinism, conservation and bad input.
//!
//! Measured with seed 1 (mean latency in cycles, accepted load in phits/node/cycle):
//! - UN at 0.1: MIN 501.0, TPR 502.5 (99.7 % minimal), LIAN 501.8 (99.7 % minimal);
//! - ADV+1 at 0.1: LIAN 674 (88 % -g-), PB-Recomp 846, TPR-Recomp 891 (64 % lgl);
//! - ADV+1 at 0.3: LIAN 693, PB-ACOR 827 (62 % -gl), PB-Recomp 917, TPR-Recomp 941;
//! - ADV+3 at 0.4: LIAN accepts 0.401 (68 % -gl, 29 % -g-), VLB -g- 0.304 (saturated);
//! - ADV+1 at 1.0: LIAN accepts 0.52–0.53 with every counter model, TPR 0.51.

mod common;
use common::dragonfly::{acc, assert_conserved, df, lat, run, run_into, seed_triplet, share};

/// Under uniform traffic at low load both TPR and LIAN route (almost) everything minimally
/// and their latency is MIN's (spec §6.4 L8, L10: "LIAN ≈ MIN", "all schemes competitive
/// under UN").
#[test]
fn tpr_and_lian_follow_min_under_uniform_low_load() {
    let min = run(&df("algorithm = \"min\"", "uniform", 0.1, 1));
    for alg in ["tpr", "lian"] {
        let v = run(&df(&format!("algorithm = \"{alg}\""), "uniform", 0.1, 1));
        assert!(share(&v, "min") > 0.97, "{alg}: {}", v["paths"]);
        assert!(
            lat(&v) < 1.02 * lat(&min),
            "{alg}: {} vs MIN {}",
            lat(&v),
            lat(&min)
        );
        assert!((acc(&v) - acc(&min)).abs() < 0.01);
    }
}

/// ADV+1 at 0.1 (spec §6.4 L10, §9.3): LIAN's latency is below PB's and below TPR's — its
/// non-minimal paths skip l1 and l2 (-g-) while PB and TPR take lgl ones.
#[test]
fn lian_beats_pb_and_tpr_at_low_adversarial_load() {
    let lian = run(&df("algorithm = \"lian\"", "adv+1", 0.1, 1));
    let pb = run(&df("algorithm = \"pb\"\nrecompute = true", "adv+1", 0.1, 1));
    let tpr = run(&df(
        "algorithm = \"tpr\"\nrecompute = true",
        "adv+1",
        0.1,
        1,
    ));
    for v in [&lian, &pb, &tpr] {
        assert!((acc(v) - 0.1).abs() < 0.005, "accepted {}", acc(v));
    }
    assert!(lat(&lian) < lat(&pb), "{} vs PB {}", lat(&lian), lat(&pb));
    assert!(
        lat(&lian) < lat(&tpr),
        "{} vs TPR {}",
        lat(&lian),
        lat(&tpr)
    );
    // its Valiant paths are l1-less and l2-less
    assert!(share(&lian, "-g-") > 0.5, "{}", lian["paths"]);
    assert!(share(&tpr, "lgl") > 0.5, "{}", tpr["paths"]);
}

/// ADV+1 at 0.3 (spec §6.4 L10, A13, §9.3): LIAN's latency is below PB-ACOR's, whose ACOR
/// levels move its Valiant paths to -gl under that load while LIAN's stay -g-.
#[test]
fn lian_beats_pb_acor_at_0_3_adversarial_load() {
    let lian = run(&df("algorithm = \"lian\"", "adv+1", 0.3, 1));
    let pa = run(&df("algorithm = \"pb_acor\"", "adv+1", 0.3, 1));
    assert!((acc(&lian) - 0.3).abs() < 0.01 && (acc(&pa) - 0.3).abs() < 0.01);
    assert!(
        lat(&lian) < 0.95 * lat(&pa),
        "{} vs PB-ACOR {}",
        lat(&lian),
        lat(&pa)
    );
}

/// ADV+h (ADV+3) beyond -g-'s bound 1/h (spec §6.4 L8): LIAN's IL counters turn on l2 and it
/// accepts what -g- paths cannot (VLB -g- saturates near 1/3).
#[test]
fn lian_adds_l2_under_adv_h_beyond_the_g_bound() {
    let lian = run(&df("algorithm = \"lian\"", "adv+3", 0.4, 1));
    let vlb = run(&df(
        "algorithm = \"vlb\"\nvlb_policy = \"-g-\"",
        "adv+3",
        0.4,
        1,
    ));
    assert!(acc(&vlb) < 0.37, "VLB -g- {}", acc(&vlb));
    assert!(acc(&lian) > 0.39, "LIAN {}", acc(&lian));
    assert!(share(&lian, "-gl") > 0.3, "{}", lian["paths"]);
}

/// Every path share adds up to 1 in the summary and the time bins, and TPR and LIAN pass the
/// channel-dependency check with the template `[L, G, L, L, G, L]` (spec §3.0.3, §3.13).
#[test]
fn tpr_and_lian_report_path_breakdowns_and_pass_the_channel_dependency_check() {
    let d = tempfile::tempdir().unwrap();
    for alg in ["tpr", "lian"] {
        let out = d.path().join(alg);
        let s = run_into(&df(&format!("algorithm = \"{alg}\""), "advc", 0.3, 1), &out);
        let p = s["paths"].as_object().unwrap();
        let names = ["min", "lgl", "-gl", "lg-", "-g-", "local"];
        let sum: f64 = names.iter().map(|n| p[*n].as_f64().unwrap()).sum();
        assert!((sum - 1.0).abs() < 1e-5, "{alg}: {p:?}");
        let nonmin = s["nonminimal_fraction"].as_f64().unwrap();
        assert!(nonmin > 0.3, "{alg}: ADVC 0.3 is far above MIN's 1/(2h)");
        let bins = std::fs::read_to_string(out.join("bins.csv")).unwrap();
        let mut lines = bins.lines();
        let head: Vec<&str> = lines.next().unwrap().split(',').collect();
        let first = head.iter().position(|c| *c == "paths_min").unwrap();
        for l in lines {
            let f: Vec<&str> = l.split(',').collect();
            if f[3] == "0" {
                continue;
            }
            let s: f64 = f[first..].iter().map(|x| x.parse::<f64>().unwrap()).sum();
            assert!((s - 1.0).abs() < 1e-5, "{alg}: {l}");
        }
        // routers.csv: each router's sourced packets per path shape (Fig 6-13), shares that
        // add up to 1 for every router that sent anything, the same classes as the summary
        let routers = std::fs::read_to_string(out.join("routers.csv")).unwrap();
        let mut lines = routers.lines();
        let head: Vec<&str> = lines.next().unwrap().split(',').collect();
        let first = head.iter().position(|c| *c == "paths_min").unwrap();
        assert_eq!(head.len() - first, names.len(), "{alg}: {head:?}");
        let col = |name: &str| head.iter().position(|c| *c == name).unwrap();
        let (inj, acc, dlv) = (
            col("injected_load"),
            col("accepted_load"),
            col("delivered_load"),
        );
        let mut used = [0.0f64; 6];
        let (mut acc_sum, mut dlv_sum) = (0.0f64, 0.0f64);
        for l in lines {
            let all: Vec<&str> = l.split(',').collect();
            let load = |i: usize| all[i].parse::<f64>().unwrap();
            // a router's delivered load counts its own terminals' packets (by source), the
            // accepted load the packets its terminals receive: the same packets in total, and
            // below saturation each source gets what it injects
            acc_sum += load(acc);
            dlv_sum += load(dlv);
            assert!(
                (load(dlv) - load(inj)).abs() <= 0.1 * load(inj) + 0.005,
                "{alg}: delivered vs injected: {l}"
            );
            let f: Vec<f64> = all[first..].iter().map(|x| x.parse().unwrap()).collect();
            let sum: f64 = f.iter().sum();
            assert!((sum - 1.0).abs() < 1e-5, "{alg}: {l}");
            for (u, x) in used.iter_mut().zip(&f) {
                *u += x;
            }
        }
        for (n, u) in names.iter().zip(used) {
            assert_eq!(u > 0.0, p[*n].as_f64().unwrap() > 0.0, "{alg}: class {n}");
        }
        assert!(
            (acc_sum - dlv_sum).abs() < 1e-4,
            "{alg}: {acc_sum} vs {dlv_sum}"
        );
        let text = df(&format!("algorithm = \"{alg}\""), "uniform", 0.1, 1);
        let l = lnsim::config::load_str(&text, "t", d.path(), "t", &[], None).unwrap();
        let r = lnsim::api::validate_scenario(&l, None).unwrap();
        assert!(r.contains("acyclic") && r.contains(alg), "{r}");
    }
}

/// TPR's Valiant candidate follows `routing.vlb_policy` (spec §6.4 L2-L3: TPR with -g-, -gl,
/// lg- and lgl in Fig 6-2/6-3): under ADVC at 0.3 its non-minimal packets take only the
/// chosen policy's hops, lgl (the thesis's TPR) by default.
#[test]
fn tpr_takes_the_valiant_policy_it_is_given() {
    let default = run(&df("algorithm = \"tpr\"", "advc", 0.3, 1));
    let lgl = run(&df(
        "algorithm = \"tpr\"\nvlb_policy = \"lgl\"",
        "advc",
        0.3,
        1,
    ));
    assert_eq!(default["paths"], lgl["paths"], "lgl is TPR's default");
    assert_eq!(lat(&default), lat(&lgl));
    // a policy without l1 never takes a first local hop (lg-, lgl), one without l2 never a
    // last one (-gl, lgl); where the intermediate needs no such hop the path is shorter
    let never: [(&str, &[&str]); 4] = [
        ("-g-", &["lg-", "lgl", "-gl"]),
        ("-gl", &["lg-", "lgl"]),
        ("lg-", &["-gl", "lgl"]),
        ("lgl", &[]),
    ];
    for (policy, absent) in never {
        let v = run(&df(
            &format!("algorithm = \"tpr\"\nvlb_policy = \"{policy}\""),
            "advc",
            0.3,
            1,
        ));
        assert!(
            v["nonminimal_fraction"].as_f64().unwrap() > 0.3,
            "{policy}: {}",
            v["paths"]
        );
        assert!(share(&v, policy) > 0.3, "{policy}: {}", v["paths"]);
        for class in absent {
            assert_eq!(share(&v, class), 0.0, "{policy}: {}", v["paths"]);
        }
    }
}

/// Same scenario and seed: identical results; another seed differs.
#[test]
fn tpr_and_lian_are_deterministic() {
    let d = tempfile::tempdir().unwrap();
    for (i, routing) in [
        "algorithm = \"lian\"",
        "algorithm = \"tpr\"\nrecompute = true",
    ]
    .iter()
    .enumerate()
    {
        let dirs = seed_triplet(&df(routing, "adv+2", 0.3, 7), &d.path().join(i.to_string()));
        let dir = |k: &str| &dirs[(k.as_bytes()[0] - b'a') as usize];
        let read = |k: &str, f: &str| std::fs::read(dir(k).join(f)).unwrap();
        for f in ["routers.csv", "bins.csv", "latency_hist.csv"] {
            assert_eq!(read("a", f), read("b", f), "{routing}: {f} differs");
        }
        assert_ne!(read("a", "bins.csv"), read("c", "bins.csv"));
    }
}

/// Packets are conserved past saturation, with every counter model of LIAN, and LIAN's
/// throughput stays near one half under ADV+1 (spec §6.4 L10: "stable near 50 %").
#[test]
fn tpr_and_lian_conserve_packets_past_saturation() {
    for routing in [
        "algorithm = \"tpr\"\nrecompute = true",
        "algorithm = \"lian\"",
        "algorithm = \"lian\"\nlian.counters = \"injected\"",
        "algorithm = \"lian\"\nlian.counters = \"stored\"\nrecompute = false",
        "algorithm = \"lian\"\nlian.w = 1.0\nlian.recompute_policy = true",
    ] {
        let s = run(&df(routing, "adv+1", 1.0, 1));
        assert_conserved(&s, routing);
        assert_eq!(s["saturated"], true, "{routing}");
        if routing == "algorithm = \"lian\"" {
            assert!(acc(&s) > 0.4, "LIAN past saturation: {}", acc(&s));
        }
    }
}

/// Bad keys name themselves (exit status 2), and `validate` reports the same.
#[test]
fn bad_tpr_and_lian_keys_name_the_key() {
    let e = |routing: &str| {
        let msg = common::input_error(&df(routing, "uniform", 0.1, 1), &[], &[]);
        println!("{msg}");
        msg
    };
    let m = e("algorithm = \"pb\"\nlian.w = 0.5");
    assert!(m.contains("routing.lian") && m.contains("lian"), "{m}");
    let m = e("algorithm = \"lian\"\ntpr.li_low = 1.0");
    assert!(m.contains("routing.tpr") && m.contains("tpr"), "{m}");
    let m = e("algorithm = \"lian\"\nlian.w = -0.1");
    assert!(m.contains("routing.lian.w"), "{m}");
    let m = e("algorithm = \"lian\"\nlian.window_cycles = 0");
    assert!(m.contains("routing.lian.window_cycles"), "{m}");
    let m = e("algorithm = \"lian\"\nlian.counters = \"both\"");
    assert!(
        m.contains("routing.lian.counters") && m.contains("stored"),
        "{m}"
    );
    let m = e("algorithm = \"tpr\"\ntpr.li_low = 6.0");
    assert!(m.contains("routing.tpr.li_high"), "{m}");
    let m = e("algorithm = \"lian\"\nlian.li_high = 2");
    assert!(m.contains("routing.lian.li_high"), "{m}");
    // LIAN chooses each packet's policy itself (l1, l2): a fixed one is refused
    let m = e("algorithm = \"lian\"\nvlb_policy = \"-g-\"");
    assert!(m.contains("routing.vlb_policy"), "{m}");
}
