//! Cycle-level HPC router model (Dragonfly spec: dragonfly-nonminimal-routing.md,
//! cited "spec §x"): saturation at the analytical bounds, Valiant policies, UGAL/PB vs MIN/VLB,
//! mesh DOR, channel-dependency check, determinism, conservation and bad input.
//!
//! Every run is small (Dragonfly h = 2: 72 nodes, or h = 3: 342 nodes; 8×8 mesh) and short
//! (5,000 warm-up + at most 15,000 measured cycles; saturated points stop after 5,000 measured
//! cycles), except the UGAL-cap test, which needs h = 4 (1,056 nodes) and 20,000 + 20,000
//! cycles to fill the minimal path's deep queues. The router, buffers and packets are the Table 3-1 defaults (spec §2.2).

mod common;
use lnsim::api::RunOptions;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

const WARMUP: u64 = 5_000;
const MEASURE: u64 = 15_000;

/// A Dragonfly scenario with `p` = h terminals per router (a = 2h, G = 2h² + 1, palmtree).
/// `pattern` is `uniform`, `advl`, `advc` or `adv+<shift>`; `policy` the Valiant phase-A policy
/// (None: the key is left out, so vlb/ugal/pb use their default lgl).
fn dragonfly(
    h: u32,
    algorithm: &str,
    policy: Option<&str>,
    pattern: &str,
    load: f64,
    seed: u64,
) -> String {
    let mut s = format!(
        "[sim]\nseed = {seed}\nwarmup_cycles = {WARMUP}\nmeasure_cycles = {MEASURE}\n\
         [topology]\nkind = \"dragonfly\"\np = {h}\n\
         [routing]\nalgorithm = \"{algorithm}\"\n"
    );
    if let Some(p) = policy {
        s += &format!("vlb_policy = \"{p}\"\n");
    }
    s += "[traffic]\n";
    match pattern.strip_prefix("adv+") {
        Some(shift) => s += &format!("pattern = \"adv\"\nshift = {shift}\n"),
        None => s += &format!("pattern = \"{pattern}\"\n"),
    }
    s += &format!("load = {load}\n");
    s
}

/// The 8×8 mesh of scenarios/mesh/mesh8_uniform.toml (BookSim-like router, 4-flit packets).
fn mesh8(kind: &str, routing_extra: &str, load: f64) -> String {
    format!(
        "[sim]\nseed = 1\nwarmup_cycles = {WARMUP}\nmeasure_cycles = {MEASURE}\n\
         [topology]\nkind = \"{kind}\"\ndims = [8, 8]\nhcas_per_switch = 1\nport_numbering = \"dimension\"\n\
         [routing]\nalgorithm = \"dor\"\n{routing_extra}\n\
         [router]\nlatency = 3\nspeedup = 1\nlocal_latency = 1\ninjection_latency = 1\n\
         ejection_latency = 1\nlocal_vcs = 4\nlocal_buffer_phits = 8\noutput_buffer_phits = 8\n\
         injection_queue_phits = 1000\n\
         [traffic]\npattern = \"uniform\"\npacket_phits = 4\nload = {load}\n"
    )
}

fn load(text: &str, dir: &Path) -> lnsim::config::LoadedScenario {
    lnsim::config::load_str(text, "test scenario", dir, "cycle", &[], None)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Runs `text` with its results folder at `out`; returns the parsed summary.
fn run_into(text: &str, out: &Path) -> Value {
    let l = load(text, out.parent().unwrap());
    let opts = RunOptions {
        out_dir: Some(out.to_path_buf()),
        ..Default::default()
    };
    let o = lnsim::api::run_scenario(&l, &opts, &mut || false)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    serde_json::from_str(&o.summary_json).unwrap()
}

/// Runs `text` into a temporary folder; runs of the same text are shared between tests.
fn summary(text: &str) -> Value {
    static CACHE: OnceLock<Mutex<HashMap<String, Value>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(v) = cache.lock().unwrap().get(text) {
        return v.clone();
    }
    let d = tempfile::tempdir().unwrap();
    let v = run_into(text, &d.path().join("out"));
    assert_eq!(v["conservation"]["ok"], true, "{text}");
    // shown with --nocapture
    println!(
        "accepted {:.4} (saturated {}) for\n{text}",
        v["accepted_load"].as_f64().unwrap(),
        v["saturated"]
    );
    cache.lock().unwrap().insert(text.to_string(), v.clone());
    v
}

fn accepted(text: &str) -> f64 {
    summary(text)["accepted_load"].as_f64().unwrap()
}

fn df_acc(h: u32, algorithm: &str, policy: Option<&str>, pattern: &str, load: f64) -> f64 {
    accepted(&dragonfly(h, algorithm, policy, pattern, load, 1))
}

// ------------------------------------------------------------------------------------------ 1

/// MIN saturates at the bottleneck link (spec §3.1, §4.2, B1-B3): ADV+i 1/(a·p), ADVL 1/p,
/// ADVC 1/(2h), with p = h, a = 2h. Measured (seed 1, offered 1.0):
///   h = 2: ADV+1 0.1248, ADV+2 0.1249 (bound 0.125), ADVL 0.4998 (0.5), ADVC 0.2497 (0.25);
///   h = 3: ADV+1 0.0556, ADV+2 0.0556 (bound 0.0556), ADVL 0.3334 (0.333), ADVC 0.1646 (0.1667).
#[test]
fn min_saturates_at_the_analytical_bounds() {
    for h in [2u32, 3] {
        let (p, a) = (h as f64, 2.0 * h as f64);
        for (pattern, bound) in [
            ("adv+1", 1.0 / (a * p)),
            ("adv+2", 1.0 / (a * p)),
            ("advl", 1.0 / p),
            ("advc", 1.0 / (2.0 * h as f64)),
        ] {
            let s = summary(&dragonfly(h, "min", None, pattern, 1.0, 1));
            let acc = s["accepted_load"].as_f64().unwrap();
            assert!(
                (acc - bound).abs() <= 0.1 * bound,
                "MIN h={h} {pattern}: accepted {acc:.4}, bound {bound:.4}"
            );
            assert_eq!(s["saturated"], true, "MIN h={h} {pattern}");
            assert_eq!(s["nonminimal_fraction"].as_f64().unwrap(), 0.0);
        }
    }
}

// ------------------------------------------------------------------------------------------ 2

/// The exact global-link bound of oblivious Valiant on a small balanced Dragonfly (p = h, so
/// the a·h global links of a group carry 1 phit per node and cycle): 1 / E[global hops per
/// packet]. With SRCEXC (valiant_source_group = false) an inter-group packet takes one global
/// hop to its intermediate group Gr and a second one only if Gr is not the destination group;
/// an intra-group (UN) packet takes none (RVLB, spec §3.3). Tends to 0.5 (B4) as h grows.
fn valiant_global_bound(h: u32, policy: &str, pattern: &str) -> f64 {
    let a = 2 * h;
    let g = a * h + 1;
    let nodes_per_group = a * h;
    let n = g * nodes_per_group;
    // destination group offsets with their probabilities
    let dests: Vec<(u32, f64)> = match pattern {
        "uniform" => {
            let inter = (n - nodes_per_group) as f64 / (n - 1) as f64;
            let mut v = vec![(0, 1.0 - inter)];
            v.extend((1..g).map(|d| (d, inter / (g - 1) as f64)));
            v
        }
        "advc" => (1..=h).map(|d| (d, 1.0 / h as f64)).collect(),
        _ => {
            let s: u32 = pattern.strip_prefix("adv+").unwrap().parse().unwrap();
            vec![(s % g, 1.0)]
        }
    };
    let mut hops = 0.0;
    for src_router in 0..a {
        // intermediate group offsets (spec §3.0.2 select_intermediate): lgl/lg- any of the
        // group's a·h global links; -gl/-g- one of the source router's h links
        let inter: Vec<u32> = if policy.starts_with('-') {
            (0..h).map(|q| h * (a - 1 - src_router) + (h - q)).collect()
        } else {
            (1..=a * h).collect()
        };
        for &(dg, pd) in &dests {
            if dg == 0 {
                continue; // intra-group: no global hop
            }
            for &gr in &inter {
                let gh = if gr == dg { 1.0 } else { 2.0 };
                hops += gh * pd / inter.len() as f64 / a as f64;
            }
        }
    }
    1.0 / hops
}

/// Valiant lgl sustains close to 50 % under ADV+1. Measured at offered 1.0, seeds 1-4:
/// h = 2: 0.4643 0.4576 0.4592 0.4623; h = 3: 0.4768 0.4775 0.4754 0.4782.
#[test]
fn valiant_lgl_sustains_about_half_under_adv1() {
    for h in [2u32, 3] {
        let acc = df_acc(h, "vlb", Some("lgl"), "adv+1", 1.0);
        assert!(acc >= 0.40, "VLB lgl h={h} ADV+1: accepted {acc:.4}");
    }
}

/// No two-global-hop routing accepts more than half the capacity (B4), 2 % tolerance.
///
/// Measured at offered 1.0 (seed 1), lgl / lg- / -gl / -g-:
///   h = 2  ADV+1 0.464 0.498 0.501 0.501 | ADV+2 0.446 0.382 0.500 0.422
///          ADVC  0.477 0.474 0.520 0.519 | UN    0.527 0.590 0.588 0.589
///   h = 3  ADV+1 0.477 0.495 0.500 0.500 | ADV+3 0.450 0.281 0.500 0.312
///          ADVC  0.472 0.410 0.508 0.458 | UN    0.503 0.539 0.537 0.537
/// The literal 0.5 bound holds under ADV+1 and ADV+h. It does not hold under UN, nor under
/// ADVC for -gl/-g- on h = 2 (0.519-0.524 over seeds 1-4). That is a property of small
/// networks, not a simulator fault: a packet whose intermediate group is its destination group
/// takes one global hop (probability 1/(a·h) for every ADV pattern, 1/(G-1) under UN) and UN
/// intra-group packets take none. The exact global-link bound 1 / E[global hops] is
/// 1/(2 - 1/(a·h)) = 0.5333 (h = 2) / 0.5143 (h = 3) for the ADV patterns and 0.5917 / 0.5413
/// under UN; lg-, -gl and -g- reach the UN value to within 1 %. So the check is: ≤ 0.5 · 1.02
/// under ADV+1 and ADV+h, and ≤ 1.02 × the exact bound for all four patterns.
#[test]
fn valiant_never_exceeds_half_capacity() {
    for h in [2u32, 3] {
        let advh = format!("adv+{h}");
        for policy in ["lgl", "lg-", "-gl", "-g-"] {
            for pattern in ["adv+1", advh.as_str(), "advc", "uniform"] {
                let acc = df_acc(h, "vlb", Some(policy), pattern, 1.0);
                let exact = valiant_global_bound(h, policy, pattern);
                assert!(
                    acc <= 1.02 * exact,
                    "VLB {policy} h={h} {pattern}: accepted {acc:.4} > exact bound {exact:.4} + 2 %"
                );
                if pattern.starts_with("adv+") {
                    assert!(
                        acc <= 0.5 * 1.02,
                        "VLB {policy} h={h} {pattern}: accepted {acc:.4} > 0.5 + 2 %"
                    );
                }
            }
        }
    }
    // the exact bound tends to the thesis's 0.5 (h = 6: 1/(2 - 1/72) = 0.5035 under ADV+1)
    assert!((valiant_global_bound(6, "lgl", "adv+1") - 1.0 / (2.0 - 1.0 / 72.0)).abs() < 1e-12);
    assert!((valiant_global_bound(2, "-g-", "advc") - 1.0 / (2.0 - 1.0 / 8.0)).abs() < 1e-12);
}

// ------------------------------------------------------------------------------------------ 3

/// ADV+h on h = 3 (spec §3.0.2, B5/B6): without the l2 hop (lg-, -g-) every packet reaching an
/// intermediate router through its h global links needs the same local link, so they cap at
/// 1/h; -gl and lgl do not. Measured at offered 1.0, seeds 1-4: lg- 0.2805 0.2820 0.2820
/// 0.2794, -g- 0.3124 0.3096 0.3106 0.3113 (1/h = 0.3333); -gl 0.5000, lgl 0.4498 0.4469
/// 0.4521 0.4500 (1.2/h = 0.4).
#[test]
fn valiant_without_l2_is_capped_at_one_over_h_under_adv_h() {
    let h = 3u32;
    let hf = h as f64;
    for policy in ["lg-", "-g-"] {
        let acc = df_acc(h, "vlb", Some(policy), "adv+3", 1.0);
        assert!(
            acc <= 1.1 / hf,
            "VLB {policy} ADV+h: accepted {acc:.4} > 1.1/h"
        );
    }
    for policy in ["-gl", "lgl"] {
        let acc = df_acc(h, "vlb", Some(policy), "adv+3", 1.0);
        assert!(
            acc >= 1.2 / hf,
            "VLB {policy} ADV+h: accepted {acc:.4} < 1.2/h"
        );
    }
}

// ------------------------------------------------------------------------------------------ 4

/// UGAL and PB (phase A lgl) follow MIN under UN and Valiant lgl under ADV+1 (spec §3.5, §3.6).
///
/// Measured accepted load (seed 1), MIN / UGAL / PB under UN, VLB / UGAL / PB under ADV+1:
///   h = 2  UN 0.3: 0.2998 0.2998 0.2999   UN 0.6: 0.6008 0.6008 0.6008
///          ADV+1 0.2: 0.1989 0.1990 0.1991   ADV+1 0.4: 0.4022 0.4018 0.4020
///          ADV+1 1.0: 0.4650 0.5232 0.5164   (UGAL +12.5 %, PB +11 %: not tested)
///   h = 3  UN 0.3: 0.3006 0.3007 0.3007   UN 0.6: 0.6009 0.6009 0.6009
///          ADV+1 0.2: 0.1997 0.1998 0.1996   ADV+1 0.4: 0.4009 0.3949 0.4010
///          ADV+1 1.0: 0.4766 0.4516 0.5077   (UGAL -5 %, PB +6.5 %; seeds 2-4 alike)
/// At offered 1.0 on h = 2 the adaptive routings beat VLB lgl by more than 10 % (seeds 1-4:
/// UGAL 0.520-0.523, PB 0.514-0.530, VLB lgl 0.458-0.465; presumably because VLB lgl's up to
/// four local hops also load the a = 4 routers' local links), while staying within the exact
/// global-link bound 0.533 of `valiant_never_exceeds_half_capacity`. The claim is therefore
/// tested below saturation on both sizes and at saturation on h = 3 only. Below saturation
/// every routing simply accepts the offered load, so those points only show that UGAL and PB
/// do not saturate earlier.
#[test]
fn ugal_and_pb_follow_min_under_un_and_valiant_under_adv1() {
    let within = |what: &str, got: f64, want: f64| {
        assert!(
            (got - want).abs() <= 0.1 * want,
            "{what}: accepted {got:.4}, reference {want:.4} (±10 %)"
        );
    };
    for h in [2u32, 3] {
        for load in [0.3, 0.6] {
            let min = df_acc(h, "min", None, "uniform", load);
            for alg in ["ugal", "pb"] {
                let acc = df_acc(h, alg, None, "uniform", load);
                within(&format!("{alg} h={h} UN {load} vs MIN"), acc, min);
            }
        }
        let adv_loads: &[f64] = if h == 3 {
            &[0.2, 0.4, 1.0]
        } else {
            &[0.2, 0.4]
        };
        for &load in adv_loads {
            let vlb = df_acc(h, "vlb", Some("lgl"), "adv+1", load);
            for alg in ["ugal", "pb"] {
                let acc = df_acc(h, alg, None, "adv+1", load);
                within(&format!("{alg} h={h} ADV+1 {load} vs VLB lgl"), acc, vlb);
            }
        }
    }
}

/// Why UGAL with an lgl candidate falls short of Valiant under ADV+1 on h ≥ 4 (docs/scenarios.md).
/// With probability 1/a the lgl candidate of a router other than R_P (the owner of the group's
/// single minimal link) leaves through R_P: the same port and VC as the minimal first hop, so
/// Eq. 2-1 compares equal occupancies and, H_VLB ≥ H_MIN, always picks MIN. That load alone
/// fills the minimal link at L* = a·h / (p·((a−1)·h + 1)): 0.276 on h = 4 (0.375 on h = 3, so
/// the ±10 % test above cannot see it; 0.571 on h = 2, no cap). A -gl candidate leaves through
/// the source router's own global link and never shares that first hop. Measured (h = 4,
/// offered 0.4, 20,000 + 20,000 cycles, seeds 1 and 2): lgl 0.299 and saturated, -gl 0.400.
/// Both send exactly what the minimal link carries, one phit per cycle per group.
#[test]
fn ugal_lgl_is_capped_under_adv1_by_candidates_sharing_the_minimal_first_hop() {
    let (h, a, p, offered) = (4u32, 8.0, 4.0, 0.4);
    let l_star = a * h as f64 / (p * ((a - 1.0) * h as f64 + 1.0));
    assert!(l_star < 0.9 * offered);
    let run = |policy: &str| {
        let text = dragonfly(h, "ugal", Some(policy), "adv+1", offered, 1)
            .replace(
                &format!("warmup_cycles = {WARMUP}"),
                "warmup_cycles = 20000",
            )
            .replace(
                &format!("measure_cycles = {MEASURE}"),
                "measure_cycles = 20000",
            );
        summary(&text)
    };
    for policy in ["lgl", "-gl"] {
        let s = run(policy);
        let acc = s["accepted_load"].as_f64().unwrap();
        let minimal = 1.0 - s["nonminimal_fraction"].as_f64().unwrap();
        // phits per cycle on a group's one link to group + 1: at most its capacity
        let on_min_link = minimal * acc * a * p;
        assert!(
            on_min_link <= 1.03,
            "{policy}: {on_min_link:.3} phits/cycle on the minimal link"
        );
        if policy == "lgl" {
            assert_eq!(s["saturated"], true, "lgl at {offered} (L* = {l_star:.3})");
            assert!(acc < 0.9 * offered, "lgl accepted {acc:.4}");
        } else {
            assert_eq!(s["saturated"], false, "-gl at {offered}");
            assert!(acc >= 0.97 * offered, "-gl accepted {acc:.4}");
        }
    }
}

// ------------------------------------------------------------------------------------------ 5

/// 8×8 mesh, DOR, uniform: the bisection bound is 4/k = 0.5 flits/node/cycle; DOR saturates
/// below it and above 70 % of it.
#[test]
fn mesh_dor_saturates_below_the_bisection_bound() {
    let s = summary(&mesh8("mesh", "", 1.0));
    let acc = s["accepted_load"].as_f64().unwrap();
    assert!(
        (0.35..=0.5).contains(&acc),
        "8x8 mesh DOR uniform: accepted {acc:.4}"
    );
    assert_eq!(s["saturated"], true);
}

// ------------------------------------------------------------------------------------------ 6

fn validate_text(text: &str) -> lnsim::Result<String> {
    let d = tempfile::tempdir().unwrap();
    lnsim::api::validate_scenario(&load(text, d.path()), None)
}

/// The channel-dependency check (spec §3.0.3) rejects cyclic VC assignments, under credits and
/// under PFC, and accepts the defaults.
#[test]
fn channel_dependency_check_rejects_cycles() {
    // MIN with one local VC for both local hops: l2 of one group feeds l1 of the next path
    let text = dragonfly(2, "min", None, "uniform", 0.1, 1).replace(
        "[traffic]",
        "vc_template = [\"L0\", \"G0\", \"L0\"]\n[traffic]",
    );
    let e = validate_text(&text).unwrap_err().to_string();
    println!("{e}");
    assert!(
        e.contains("routing.vc_template") && e.contains("cycle"),
        "{e}"
    );
    // under PFC a pause cycle over (link, class of service) is the same cycle over (link, VC):
    // refused the same way
    let pfc = text.replace("[traffic]", "[router]\nflow_control = \"pfc\"\n[traffic]");
    assert_eq!(validate_text(&pfc).unwrap_err().to_string(), e);
    // a torus ring without dateline classes
    let torus4 = mesh8("torus", "dateline = false", 0.1).replace("[8, 8]", "[4, 4]");
    let e = validate_text(&torus4).unwrap_err().to_string();
    println!("{e}");
    assert!(e.contains("routing.dateline") && e.contains("cycle"), "{e}");
    // and the defaults pass
    let ok = validate_text(&torus4.replace("dateline = false", "")).unwrap();
    assert!(ok.contains("acyclic"), "{ok}");
    let ok = validate_text(&mesh8("torus", "dateline = true", 0.1)).unwrap();
    assert!(ok.contains("acyclic"), "{ok}");
    for alg in ["min", "vlb", "ugal", "pb"] {
        let policy = (alg != "min").then_some("lgl");
        let ok = validate_text(&dragonfly(2, alg, policy, "uniform", 0.1, 1)).unwrap();
        assert!(ok.contains("acyclic"), "{alg}: {ok}");
    }
    for policy in ["lg-", "-gl", "-g-"] {
        validate_text(&dragonfly(3, "vlb", Some(policy), "advc", 0.1, 1)).unwrap();
    }
}

// ------------------------------------------------------------------------------------------ 7

fn strip_volatile(text: &str) -> Value {
    let mut v: Value = serde_json::from_str(text).unwrap();
    let o = v.as_object_mut().unwrap();
    for k in [
        "wall_time_s",
        "setup_time_s",
        "peak_rss_bytes",
        "phit_hops_per_s",
    ] {
        assert!(o.remove(k).is_some(), "summary.json has no {k}");
    }
    v
}

/// The same scenario and seed give identical results; another seed does not. UGAL on h = 2
/// under ADV+1 at 0.4 (adaptive decisions and random intermediates: about 65 % non-minimal).
#[test]
fn same_scenario_and_seed_give_identical_results() {
    let d = tempfile::tempdir().unwrap();
    let text = dragonfly(2, "ugal", None, "adv+1", 0.4, 7);
    let (a, b, c) = (d.path().join("a"), d.path().join("b"), d.path().join("c"));
    run_into(&text, &a);
    run_into(&text, &b);
    run_into(&text.replace("seed = 7", "seed = 8"), &c);
    let read = |dir: &PathBuf, f: &str| std::fs::read(dir.join(f)).unwrap();
    let sum =
        |dir: &PathBuf| strip_volatile(&String::from_utf8(read(dir, "summary.json")).unwrap());
    assert_eq!(sum(&a), sum(&b));
    for f in ["routers.csv", "bins.csv", "latency_hist.csv"] {
        assert_eq!(read(&a, f), read(&b, f), "{f} differs");
    }
    let (sa, sc) = (sum(&a), sum(&c));
    assert_ne!(sa["packets"], sc["packets"]);
    assert_ne!(sa["latency_cycles"], sc["latency_cycles"]);
    assert_ne!(read(&a, "bins.csv"), read(&c, "bins.csv"));
    assert_ne!(read(&a, "routers.csv"), read(&c, "routers.csv"));
}

// ------------------------------------------------------------------------------------------ 8

/// Every routing conserves packets at a saturating load.
#[test]
fn every_routing_conserves_packets_at_saturation() {
    for alg in ["min", "vlb", "ugal", "pb"] {
        let s = summary(&dragonfly(2, alg, None, "adv+1", 1.0, 1));
        assert_eq!(s["conservation"]["ok"], true, "{alg}");
        let p = &s["packets"];
        let n = |k: &str| p[k].as_u64().unwrap();
        assert_eq!(
            n("generated"),
            n("delivered") + n("in_network") + n("at_sources"),
            "{alg}: {p}"
        );
        assert!(n("delivered") > 1000, "{alg}: {p}");
        assert!(
            n("delivered") <= n("injected") && n("injected") <= n("generated"),
            "{alg}: {p}"
        );
        assert!(
            n("at_sources") > 0,
            "{alg} at 1.0 should back up at the sources: {p}"
        );
        assert_eq!(s["saturated"], true, "{alg}");
    }
}

// ------------------------------------------------------------------------------------------ 9

/// A bad scenario: see `common::input_error`; prints the message for the test log.
fn input_error(text: &str) -> String {
    let e = common::input_error(text, &[], &[]);
    println!("{e}");
    e
}

#[test]
fn bad_input_names_the_key() {
    let good = dragonfly(2, "vlb", Some("lgl"), "uniform", 0.1, 1);
    // an InfiniBand key in a cycle-level scenario
    let e = input_error(&good.replace("[topology]", "end_time = \"1ms\"\n[topology]"));
    assert!(e.contains("sim.end_time"), "{e}");
    // a cycle-level key in a credit-level scenario
    let ib = "[sim]\nend_time = \"1ms\"\n[topology]\nkind = \"mesh\"\ndims = [1, 2]\n\
              hcas_per_switch = 1\n[traffic]\npattern = \"uniform\"\n\
              [[traffic.flows]]\nsrc = \"H111\"\ndst = \"H121\"\n";
    let e = input_error(ib);
    assert!(e.contains("traffic.pattern"), "{e}");
    // a phase-A policy that does not exist
    let e = input_error(&good.replace("\"lgl\"", "\"gl\""));
    assert!(e.contains("routing.vlb_policy"), "{e}");
    // a global-link arrangement that does not exist
    let e = input_error(&good.replace("p = 2", "p = 2\narrangement = \"ring\""));
    assert!(
        e.contains("topology.arrangement") && e.contains("ring"),
        "{e}"
    );
    // MIN does not route a mesh
    let e = input_error(&mesh8("mesh", "", 0.1).replace("\"dor\"", "\"min\""));
    assert!(e.contains("routing.algorithm"), "{e}");
    // and the unmodified scenarios are fine
    validate_text(&good).unwrap();
    validate_text(&mesh8("mesh", "", 0.1)).unwrap();
}

// ----------------------------------------------------------------------------------------- 10

/// `text` with its warm-up and measured cycles replaced.
fn window(text: &str, warmup: u64, measure: u64) -> String {
    text.replace(
        &format!("warmup_cycles = {WARMUP}\nmeasure_cycles = {MEASURE}"),
        &format!("warmup_cycles = {warmup}\nmeasure_cycles = {measure}"),
    )
}

/// Short runs decide saturation (docs/hpc-router.md §8): MIN under ADV+1 at 0.5 on h = 2
/// (bound 1/(a·p) = 0.125) with 2,000 measured cycles, where the injection queues absorb what
/// the network does not accept, is saturated, with or without warm-up; UN at 0.1 is not, and
/// the window can tell; a window whose nodes generate 5 packets each cannot, and says so.
#[test]
fn short_windows_flag_saturation_or_say_they_cannot_decide() {
    let adv = dragonfly(2, "min", None, "adv+1", 0.5, 1);
    for warmup in [0, 2000] {
        let s = summary(&window(&adv, warmup, 2000));
        assert!(s["accepted_load"].as_f64().unwrap() < 0.14, "{s}");
        assert_eq!(s["saturated"], true, "warm-up {warmup}: {s}");
        assert_eq!(s["stopped_early"], false);
        assert_eq!(s["saturation_undecided"], false);
    }
    let un = dragonfly(2, "min", None, "uniform", 0.1, 1);
    let s = summary(&window(&un, 2000, 4000));
    assert_eq!(s["saturated"], false, "{s}");
    assert_eq!(s["saturation_undecided"], false, "{s}");
    assert_eq!(s["warnings"], serde_json::json!([]));
    // 0.1 phits/node/cycle over 500 cycles: 5 packets of 10 phits per node
    let s = summary(&window(&un, 2000, 500));
    assert_eq!(s["saturated"], false, "{s}");
    assert_eq!(s["saturation_undecided"], true, "{s}");
    let w = s["warnings"][0].as_str().unwrap();
    assert!(
        w.contains("saturation undecided") && w.contains("sim.measure_cycles"),
        "{w}"
    );
}
