//! 802.1Qbb priority flow control between cycle-level routers (`router.flow_control = "pfc"`,
//! Dragonfly spec §2.3, `docs/hpc-router.md`): a small Dragonfly (p = h = 2, 72 nodes, short
//! runs) loses nothing and conserves packets and frames, pauses its links under adversarial
//! load, is deterministic, matches credits where nothing pauses, still delivers at saturation,
//! and refuses buffers without headroom.

mod common;
use common::dragonfly::{acc, assert_conserved, lat, run, run_into};
use serde_json::Value;

/// A Dragonfly p = h = 2 scenario (MIN routing) under `flow_control`, `pattern` `uniform` or
/// `adv+<shift>`.
fn df2(flow_control: &str, pattern: &str, load: f64, seed: u64) -> String {
    let mut s = format!(
        "[sim]\nseed = {seed}\nwarmup_cycles = 2000\nmeasure_cycles = 4000\n\
         [topology]\nkind = \"dragonfly\"\np = 2\n[routing]\nalgorithm = \"min\"\n\
         [router]\nflow_control = \"{flow_control}\"\n[traffic]\n"
    );
    match pattern.strip_prefix("adv+") {
        Some(shift) => s += &format!("pattern = \"adv\"\nshift = {shift}\n"),
        None => s += &format!("pattern = \"{pattern}\"\n"),
    }
    s + &format!("load = {load}\n")
}

fn pfc(v: &Value, k: &str) -> u64 {
    v["pfc"][k]
        .as_u64()
        .unwrap_or_else(|| panic!("pfc.{k} in {v}"))
}

/// Under ADV+1 the global links saturate: the inputs before them reach XOFF and pause their
/// upstream links, nothing is lost (an overflow fails the run), packets and PAUSE frames are
/// conserved (checked at the run's end), pfc.csv adds up to the summary, and the same seed
/// gives identical results.
#[test]
fn pfc_pauses_under_adversarial_load_without_loss_and_deterministically() {
    let d = tempfile::tempdir().unwrap();
    let text = df2("pfc", "adv+1", 0.6, 7);
    let a = run_into(&text, &d.path().join("a"));
    let b = run_into(&text, &d.path().join("b"));
    assert_conserved(&a, "pfc");
    let (pauses, resumes) = (pfc(&a, "pause_frames"), pfc(&a, "resume_frames"));
    assert!(pauses > 10, "{a}");
    // each resume follows a PAUSE of its VC; at most one per VC is still on at the end
    assert!(resumes <= pauses && pauses - resumes <= 72 * 8, "{a}");
    assert_eq!(pfc(&a, "pause_link_cycles"), (pauses + resumes) * 13);
    assert!(pfc(&a, "paused_cycles") > 0);
    // pfc.csv: one row per router-to-router port and VC, summing to the summary
    let csv = std::fs::read_to_string(d.path().join("a/pfc.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("router,name,port,kind,vc,pause_frames_sent,resume_frames_sent,paused_cycles")
    );
    let col = |i: usize| -> u64 {
        csv.lines()
            .skip(1)
            .map(|l| l.split(',').nth(i).unwrap().parse::<u64>().unwrap())
            .sum()
    };
    assert_eq!(col(5), pauses);
    assert_eq!(col(6), resumes);
    assert_eq!(col(7), pfc(&a, "paused_cycles"));
    // 36 routers × (3 local ports × 2 VCs + 2 global ports × 1 VC)
    assert_eq!(lines.count(), 36 * 8);
    // determinism: identical files; the summary up to wall-clock fields
    for f in ["pfc.csv", "bins.csv", "routers.csv", "latency_hist.csv"] {
        let read = |k: &str| std::fs::read(d.path().join(k).join(f)).unwrap();
        assert_eq!(read("a"), read("b"), "{f} differs");
    }
    for k in ["pfc", "latency_cycles", "packets", "accepted_load"] {
        assert_eq!(a[k], b[k], "{k}");
    }
}

/// At low load no input reaches XOFF: PFC and credits give near-identical latency and
/// throughput. At saturation (ADV+1 at full load) PFC still delivers what MIN's bottleneck
/// allows (1/(a·p) = 0.125, spec §4.2), as credits do.
#[test]
fn pfc_matches_credits_at_low_load_and_delivers_at_saturation() {
    let (p, c) = (
        run(&df2("pfc", "uniform", 0.2, 1)),
        run(&df2("credits", "uniform", 0.2, 1)),
    );
    assert_eq!(pfc(&p, "pause_frames"), 0, "{p}");
    assert!((lat(&p) - lat(&c)).abs() <= 0.01 * lat(&c), "{p}\n{c}");
    assert!((acc(&p) - acc(&c)).abs() <= 0.01 * acc(&c));
    assert!(c.get("pfc").is_none());
    let (p, c) = (
        run(&df2("pfc", "adv+1", 1.0, 1)),
        run(&df2("credits", "adv+1", 1.0, 1)),
    );
    assert!(pfc(&p, "pause_frames") > 0);
    for v in [&p, &c] {
        assert!((acc(v) - 0.125).abs() <= 0.0125, "{v}");
    }
}

/// Buffers that cannot hold the headroom above two packets are refused by validate and run,
/// naming the keys and the numbers.
#[test]
fn buffers_without_headroom_are_refused() {
    let d = tempfile::tempdir().unwrap();
    // 10-phit packets, local d = 15: ⌊(30 + 10 + 4·13 − 2) / 10⌋ = 9 packets of headroom; 100
    // phits leave XOFF at 10, below two packets
    let text = df2("pfc", "uniform", 0.2, 1).replace(
        "flow_control = \"pfc\"\n",
        "flow_control = \"pfc\"\nlocal_buffer_phits = 100\n",
    );
    let l = lnsim::config::load_str(&text, "t", d.path(), "t", &[], None).unwrap();
    let e = lnsim::api::validate_scenario(&l, None)
        .unwrap_err()
        .to_string();
    for k in [
        "router.local_buffer_phits",
        "9 packets = 90 phits",
        "router.local_latency d = 15",
        "traffic.packet_phits L = 10",
        "router.pfc.pause_phits P = 13",
        "router.pfc.response_cycles t_r = 0",
        "needs at least 110 phits",
    ] {
        assert!(e.contains(k), "{k} not in: {e}");
    }
    let opts = lnsim::api::RunOptions {
        out_dir: Some(d.path().join("out")),
        ..Default::default()
    };
    let e = lnsim::api::run_scenario(&l, &opts, &mut || false)
        .err()
        .unwrap();
    assert!(e.to_string().contains("router.local_buffer_phits"), "{e}");
    assert!(!d.path().join("out").exists());
    let ok = text.replace("local_buffer_phits = 100", "local_buffer_phits = 110");
    let l = lnsim::config::load_str(&ok, "t", d.path(), "t", &[], None).unwrap();
    assert!(lnsim::api::validate_scenario(&l, None).is_ok());
}
