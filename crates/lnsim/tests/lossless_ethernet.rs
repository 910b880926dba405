//! Lossless Ethernet Dragonflies in the cycle-level model (Dragonfly spec §2.3, §3.11, §3.12):
//! QCN-Switch against MIN and VLB_-g-, MAR-bP's latency, the fairness of output sampling, QCN's
//! reaction points, conservation and determinism with notifications, and bad input.
//!
//! Every run is a reduced Dragonfly (h = p = 2: 36 routers, 72 nodes) with Table 4-3's
//! proportions scaled by 1/10 (20-phit packets, 20-cycle routers, 4/40-cycle local/global links,
//! 100-packet transit queues) and short (20,000 + 20,000 cycles).

mod common;
use lnsim::api::RunOptions;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// The reduced Table 4-3 network with routing `alg` (and its extra `[routing]` lines), traffic
/// `pattern` (`uniform` or `adv+1`) at `load`, and extra tables `extra`.
fn ethernet(alg: &str, routing_extra: &str, pattern: &str, load: f64, extra: &str) -> String {
    let traffic = match pattern {
        "adv+1" => "pattern = \"adv\"\nshift = 1".to_string(),
        p => format!("pattern = \"{p}\""),
    };
    format!(
        "[sim]\nseed = 3\nwarmup_cycles = 20000\nmeasure_cycles = 20000\n\
         [topology]\nkind = \"dragonfly\"\np = 2\n\
         [router]\nlatency = 20\nlocal_latency = 4\nglobal_latency = 40\n\
         injection_queue_phits = 4000\nlocal_buffer_phits = 2000\nglobal_buffer_phits = 2000\n\
         output_buffer_phits = 2000\n\
         [routing]\nalgorithm = \"{alg}\"\n{routing_extra}\n\
         [traffic]\n{traffic}\npacket_phits = 20\nload = {load}\n{extra}"
    )
}

/// Runs `text` into a temporary folder (runs of the same text are shared between tests);
/// returns the summary and the text of `qcn_probabilities.csv` (empty when absent).
fn run(text: &str) -> (Value, String) {
    static CACHE: OnceLock<Mutex<HashMap<String, (Value, String)>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(v) = cache.lock().unwrap().get(text) {
        return v.clone();
    }
    let r = run_uncached(text);
    cache.lock().unwrap().insert(text.to_string(), r.clone());
    r
}

fn run_uncached(text: &str) -> (Value, String) {
    let d = tempfile::tempdir().unwrap();
    let l = lnsim::config::load_str(text, "t", d.path(), "t", &[], None)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let out = d.path().join("out");
    let opts = RunOptions {
        out_dir: Some(out.clone()),
        ..Default::default()
    };
    let o = lnsim::api::run_scenario(&l, &opts, &mut || false)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let v: Value = serde_json::from_str(&o.summary_json).unwrap();
    assert_eq!(v["conservation"]["ok"], true, "{text}");
    let probs = std::fs::read_to_string(out.join("qcn_probabilities.csv")).unwrap_or_default();
    println!(
        "{alg}: accepted {acc}, latency {lat}, non-minimal {nm}, Jain {j}",
        alg = v["routing"],
        acc = v["accepted_load"],
        lat = v["latency_cycles"]["mean"],
        nm = v["nonminimal_fraction"],
        j = v["fairness"]["jain_routers"]
    );
    (v, probs)
}

fn f(v: &Value, path: &[&str]) -> f64 {
    let mut x = v;
    for k in path {
        x = &x[*k];
    }
    x.as_f64().unwrap_or_else(|| panic!("{path:?} in {v}"))
}

/// QCN-Switch (final configuration) behaves as MIN under uniform traffic (spec E12: MIN-like
/// latency at medium load; it hardly misroutes) and as Valiant under ADV+1 (E12, E18: close
/// to VLB_-g-'s throughput, where MIN saturates at its bound 1/(a·p) = 1/8).
#[test]
fn qcn_switch_is_minimal_under_uniform_and_valiant_under_adversarial_traffic() {
    let (min_un, _) = run(&ethernet("min", "", "uniform", 0.5, ""));
    let (q_un, _) = run(&ethernet("qcn_switch", "", "uniform", 0.5, ""));
    let (lm, lq) = (
        f(&min_un, &["latency_cycles", "mean"]),
        f(&q_un, &["latency_cycles", "mean"]),
    );
    assert!((lq - lm).abs() <= 0.10 * lm, "UN latency {lq} vs MIN {lm}");
    assert!(f(&q_un, &["nonminimal_fraction"]) < 0.05);

    let load = 0.35;
    let (min_adv, _) = run(&ethernet("min", "", "adv+1", load, ""));
    let (vlb_adv, _) = run(&ethernet("vlb", "vlb_policy = \"-g-\"", "adv+1", load, ""));
    let (q_adv, _) = run(&ethernet("qcn_switch", "", "adv+1", load, ""));
    assert!(f(&min_adv, &["accepted_load"]) < 0.13, "MIN bound 1/8");
    let (av, aq) = (
        f(&vlb_adv, &["accepted_load"]),
        f(&q_adv, &["accepted_load"]),
    );
    assert!(aq >= 0.9 * load, "QCN-Switch accepted {aq} of {load}");
    assert!(
        (aq - av).abs() <= 0.1 * av,
        "QCN-Switch {aq} vs VLB_-g- {av}"
    );
    assert!(f(&q_adv, &["nonminimal_fraction"]) > 0.7);
    // notifications were sent, crossed the network and reached their routers
    assert!(f(&q_adv, &["qcn", "cnms_delivered"]) > 0.0);
    assert!(f(&q_adv, &["qcn_switch", "notifications_applied"]) > 0.0);
}

/// MAR-bP (spec §3.11, E8): under ADV+1 above MIN's bound its minimal paths must fill before
/// it misroutes, so its latency is above VLB_-g-'s (which always misroutes), while it still
/// carries the load MIN cannot.
#[test]
fn mar_bp_misroutes_only_once_the_minimal_path_is_paused() {
    let load = 0.2;
    let (vlb, _) = run(&ethernet("vlb", "vlb_policy = \"-g-\"", "adv+1", load, ""));
    let (mar, _) = run(&ethernet("mar_bp", "", "adv+1", load, ""));
    let (lv, lm) = (
        f(&vlb, &["latency_cycles", "mean"]),
        f(&mar, &["latency_cycles", "mean"]),
    );
    assert!(lm > lv, "MAR-bP latency {lm} vs VLB_-g- {lv}");
    assert!(f(&mar, &["accepted_load"]) >= 0.9 * load);
    // it misroutes what the minimal path cannot carry: at least the share above MIN's bound,
    // (0.2 − 1/8) / 0.2 = 0.375 (measured 0.376), far from VLB_-g-'s all-but-direct-links
    let excess = (load - 0.125) / load;
    let nm = f(&mar, &["nonminimal_fraction"]);
    assert!(
        nm >= 0.95 * excess && nm < f(&vlb, &["nonminimal_fraction"]),
        "{nm}"
    );
    // under uniform traffic it stays minimal
    let (un, _) = run(&ethernet("mar_bp", "", "uniform", 0.3, ""));
    assert!(f(&un, &["nonminimal_fraction"]) < 0.01);
}

/// Output sampling is fair under ADV+1 without source processing (spec §3.12.5-§3.12.6, E12):
/// every router's nodes inject their share.
#[test]
fn output_sampling_is_fair_under_adversarial_traffic() {
    let (out, probs) = run(&ethernet("qcn_switch", "", "adv+1", 0.35, ""));
    assert!(
        f(&out, &["fairness", "jain_routers"]) > 0.95,
        "{}",
        out["fairness"]
    );
    assert!(f(&out, &["fairness", "min_router_load"]) > 0.8 * 0.35);
    // group 0's probability changes are traced, with their causes
    assert!(probs.starts_with("cycle,time_us,router,name,port,probability,cause,fb\n"));
    assert!(probs.lines().count() > 10);
    for cause in ["notification", "packet_counter"] {
        assert!(probs.contains(cause), "no {cause} in the trace");
    }
}

/// The same scenario and seed give the same results, notifications and probabilities included.
#[test]
fn qcn_runs_are_deterministic() {
    let text = ethernet(
        "qcn_switch",
        "",
        "adv+1",
        0.3,
        "[qcn]\nsampling = \"input\"\n",
    );
    let (a, pa) = run_uncached(&text);
    let (b, pb) = run_uncached(&text);
    let strip = |mut v: Value| {
        for k in [
            "wall_time_s",
            "setup_time_s",
            "peak_rss_bytes",
            "phit_hops_per_s",
        ] {
            v.as_object_mut().unwrap().remove(k);
        }
        v
    };
    assert_eq!(strip(a.clone()), strip(b));
    assert_eq!(pa, pb);
    assert!(f(&a, &["qcn", "samples"]) > 0.0);
}

/// QCN's reaction points (off in the thesis, spec §3.12.1) throttle the sources the
/// notifications reach: under MIN and ADV+1 beyond MIN's bound the rate limiters engage and
/// the nodes inject less than offered into the network.
#[test]
fn reaction_points_throttle_the_notified_sources() {
    let base = ethernet("min", "", "adv+1", 0.3, "");
    let rp = ethernet("min", "", "adv+1", 0.3, "[qcn]\nreaction_point = true\n");
    let (b, _) = run(&base);
    let (r, _) = run(&rp);
    assert!(b["qcn"].is_null(), "no QCN without it");
    let n = f(&r, &["qcn", "reaction_point", "notifications"]);
    assert!(n > 0.0);
    assert!(f(&r, &["qcn", "reaction_point", "rate_increases"]) > 0.0);
    // every notification the nodes received was delivered or applied at a local node
    assert!(n <= f(&r, &["qcn", "cnms_delivered"]) + f(&r, &["qcn", "applied_locally"]));
    // a packet waits in its source queue while the rate limiter holds it
    assert!(
        f(&r, &["latency_cycles", "mean"]) != f(&b, &["latency_cycles", "mean"]),
        "the rate limiters changed nothing"
    );
}

/// Bad input names the key: QCN keys without QCN, MAR-bP/QCN-Switch with p ≠ h, QCN off a
/// Dragonfly.
#[test]
fn bad_ethernet_input_names_the_key() {
    let e = common::input_error(
        &ethernet("min", "", "uniform", 0.1, "[qcn]\nw = 2.0\n"),
        &[],
        &[],
    );
    assert!(e.contains("qcn.w") && e.contains("qcn_switch"), "{e}");
    let text = ethernet("qcn_switch", "", "uniform", 0.1, "").replace("p = 2\n", "p = 2\nh = 3\n");
    let e = common::input_error(&text, &[], &[]);
    assert!(e.contains("topology.h") && e.contains("h = p"), "{e}");
    let e = common::input_error(&text.replace("qcn_switch", "mar_bp"), &[], &[]);
    assert!(e.contains("topology.h"), "{e}");
    let mesh = "[sim]\nmeasure_cycles = 100\n[topology]\nkind = \"mesh\"\ndims = [2, 2]\n\
                hcas_per_switch = 1\n[traffic]\npattern = \"uniform\"\nload = 0.1\n\
                [qcn]\nreaction_point = true\n";
    let e = common::input_error(mesh, &[], &[]);
    assert!(
        e.contains("qcn.reaction_point") && e.contains("Dragonfl"),
        "{e}"
    );
}
