//! `validate` and `run` make the same checks: for every bad input below,
//! both fail with the same input error before anything is simulated or written, and inputs
//! that used to abort the process (allocation failures) are refused cleanly.

use lnsim::api::{run_file, validate_file_with, RunOptions};
use lnsim::Error;

const IB: &str =
    "[sim]\nend_time = \"10us\"\n[topology]\nkind = \"mesh\"\ndims = [2, 2]\nhcas_per_switch = 1\n\
                  [[traffic.generators]]\nsources = \"all\"\n";
const CYCLE: &str = "[sim]\nwarmup_cycles = 100\nmeasure_cycles = 200\n[topology]\nkind = \"mesh\"\n\
                     dims = [4, 4]\nhcas_per_switch = 1\n[traffic]\npattern = \"uniform\"\nload = 0.1\n";

/// (name, scenario text, overrides, text the message must contain, memory limit)
type Case = (
    &'static str,
    String,
    Vec<&'static str>,
    &'static str,
    Option<u64>,
);

fn cases() -> Vec<Case> {
    let ib = |extra: &str| format!("{IB}{extra}");
    vec![
        ("unknown fairness source", ib("[stats]\nfairness_sources = [\"H999\"]\n"), vec![], "stats.fairness_sources[0]", None),
        ("fairness source is a switch", ib("[stats]\nfairness_sources = [\"H111\", \"SW11\"]\n"), vec![], "stats.fairness_sources[1]", None),
        ("VL of a generator", IB.into(), vec!["traffic.generators[0].vl=3"], "traffic.generators[0].vl", None),
        ("flow to an unknown HCA", ib("[[traffic.flows]]\nsrc = \"H111\"\ndst = \"H9\"\n"), vec![], "traffic.flows[0].dst", None),
        ("zero VLs", IB.into(), vec!["switch.vls=0"], "switch.vls", None),
        ("huge CCTI limit", IB.into(), vec!["cc.ccti_limit=4294967295"], "cc.ccti_limit", None),
        ("huge CCTI increase", IB.into(), vec!["cc.ccti_increase=4000000000"], "cc.ccti_increase", None),
        ("huge message", IB.into(), vec!["traffic.message_bytes=\"1024GiB\""], "traffic.message_bytes", None),
        ("end time beyond an hour", IB.into(), vec!["sim.end_time=\"2000000s\""], "sim.end_time", None),
        ("negative seed", IB.into(), vec!["sim.seed=-1"], "sim.seed", None),
        ("missing CCT file", ib("[cc.cct]\nalgorithm = \"file\"\nfile = \"nope.txt\"\n"), vec![], "nope.txt", None),
        ("hiccups without a drain rate", ib("[hca.sink]\nhiccup_on = \"1ns\"\nhiccup_off = \"1ns\"\n"), vec![], "hca.sink", None),
        ("lft_file without a file", IB.into(), vec!["routing.algorithm=\"lft_file\""], "routing.file", None),
        ("injection weights per flow", IB.into(), vec!["hca.injection_weights=[1]"], "hca.injection_weights", None),
        ("scheme adapter without a size", IB.into(), vec!["hca.injection_queues=\"scheme\""], "hca.injection_credits", None),
        ("injection weights of the wrong length", IB.into(), vec!["hca.injection_queues=\"scheme\"", "hca.injection_credits=2000", "switch.buffer_sharing=\"static\"", "switch.queue_mapping=\"dbbm\"", "switch.dbbm_queues=4", "hca.injection_weights=[1, 1, 1]"], "hca.injection_weights", None),
        ("injection weight out of range", IB.into(), vec!["hca.injection_queues=\"scheme\"", "hca.injection_credits=2000", "hca.injection_weights=[256]"], "hca.injection_weights", None),
        ("output weights without output buffers", IB.into(), vec!["switch.output_weights=[1]"], "switch.output_weights", None),
        ("output weights of the wrong length", IB.into(), vec!["switch.output_buffer_credits=64", "switch.buffer_sharing=\"static\"", "switch.queue_mapping=\"dbbm\"", "switch.dbbm_queues=4", "switch.buffer_credits=64", "switch.output_weights=[1, 1, 1]"], "switch.output_weights", None),
        ("scheme adapter with IB CC", IB.into(), vec!["hca.injection_queues=\"scheme\"", "hca.injection_credits=2000", "cc.enabled=true"], "hca.injection_queues", None),
        ("injection queues under a packet", IB.into(), vec!["hca.injection_queues=\"scheme\"", "hca.injection_credits=1"], "hca.injection_credits", None),
        ("memory of a 400 x 400 mesh", IB.into(), vec!["topology.dims=[400, 400]"], "memory", Some(8 << 30)),
        ("memory of dims [65536, 3]", IB.into(), vec!["topology.dims=[65536, 3]"], "memory", None),
        ("memory limit", IB.into(), vec![], "--max-memory", Some(1 << 20)),
        ("router latency 2^31", CYCLE.into(), vec!["router.latency=2147483648"], "router.latency", None),
        ("local latency 2^32 - 1", CYCLE.into(), vec!["router.local_latency=4294967295"], "router.local_latency", None),
        ("piggyback with a huge local latency", CYCLE.into(), vec!["router.local_latency=4000000000", "routing.algorithm=\"pb\""], "router.local_latency", None),
        ("cycle-level injection queues of 10^7 phits", CYCLE.into(), vec!["topology.dims=[512, 512]", "sim.measure_cycles=1000000000000", "router.injection_queue_phits=10000000", "traffic.load=1", "stats.bin_cycles=1000000000"], "memory", None),
        // a value out of its simple range is refused as such, before the memory estimate
        ("10^12 cycles in bins of 1,000", CYCLE.into(), vec!["sim.measure_cycles=1000000000000"], "stats.bin_cycles: sim.warmup_cycles + sim.measure_cycles", None),
        ("statistics interval 0", IB.into(), vec!["sim.interval=\"0s\"", "sim.end_time=\"0.7s\""], "sim.interval: must be positive", None),
        ("credit-level routing in the cycle-level model", CYCLE.into(), vec!["routing.algorithm=\"dmodk\""], "routing.algorithm", None),
        ("Dragonfly pattern on a mesh", CYCLE.into(), vec!["traffic.pattern=\"advc\""], "traffic.pattern", None),
        ("huge packets", CYCLE.into(), vec!["traffic.packet_phits=4294967295"], "traffic.packet_phits", None),
        ("too many VCs", CYCLE.into(), vec!["router.local_vcs=1000"], "router.local_vcs", None),
        ("Dragonfly of 2^32 ports", "[sim]\nmeasure_cycles = 10\n[topology]\nkind = \"dragonfly\"\np = 4294967295\n[traffic]\nload = 0.1\n[routing]\nalgorithm = \"min\"\n".into(), vec![], "topology.p", None),
    ]
}

fn message(r: Result<impl std::fmt::Debug, Error>) -> String {
    match r {
        Err(Error::Input(m)) => m,
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn validate_and_run_fail_alike_before_simulating() {
    let dir = tempfile::tempdir().unwrap();
    for (i, (name, text, overrides, needle, max_memory)) in cases().into_iter().enumerate() {
        let path = dir.path().join(format!("case{i}.toml"));
        std::fs::write(&path, &text).unwrap();
        let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        let v = message(validate_file_with(&path, &overrides, max_memory));
        let out = dir.path().join(format!("out{i}"));
        let opts = RunOptions {
            overrides: overrides.clone(),
            out_dir: Some(out.clone()),
            max_memory,
            ..Default::default()
        };
        let r = message(run_file(&path, &opts, &mut || false));
        assert_eq!(v, r, "{name}: validate and run disagree");
        assert!(v.contains(needle), "{name}: {v}");
        assert!(!out.exists(), "{name}: run wrote {}", out.display());
    }
}

#[test]
fn validate_accepts_what_runs_and_states_the_memory_estimate() {
    let dir = tempfile::tempdir().unwrap();
    for (i, text) in [IB, CYCLE].iter().enumerate() {
        let path = dir.path().join(format!("ok{i}.toml"));
        std::fs::write(&path, text).unwrap();
        let report = validate_file_with(&path, &[], None).unwrap();
        assert!(report.contains("memory: about "), "{report}");
        // the model, and that it was inferred (these scenarios do not give sim.model)
        let model = ["credit", "cycle"][i];
        assert!(
            report.lines().nth(1).unwrap().starts_with(&format!(
                "  model: {model} (sim.model not given: inferred {model} from "
            )) && report.contains(&format!("; add sim.model = \"{model}\")")),
            "{report}"
        );
        // user-facing names, not the internal ones ("routing Dor", "Mesh")
        assert!(report.contains("routing: dor"), "{report}");
        assert!(
            !report.contains("Dor") && !report.contains("Mesh"),
            "{report}"
        );
        let opts = RunOptions {
            out_dir: Some(dir.path().join(format!("run{i}"))),
            ..Default::default()
        };
        run_file(&path, &opts, &mut || false).unwrap();
    }
}

/// A value of the right type and range for a key.
fn sample(kind: lnsim::config::keys::ValueKind) -> Option<String> {
    use lnsim::config::keys::ValueKind as K;
    Some(match kind {
        K::Int { min, max } => min.max(1).min(max).to_string(),
        K::Float { max, .. } => format!("{max:?}"),
        K::Bool => "true".into(),
        K::Str => "\"x\"".into(),
        K::Choice(c) => format!("\"{}\"", c[c.len() - 1]),
        K::Duration { .. } => "\"1ns\"".into(),
        K::Size { min, .. } => min.to_string(),
        K::Rate { .. } => "\"1Gbps\"".into(),
        K::Freq { .. } => "\"1GHz\"".into(),
        K::IntList { min, .. } => format!("[{}]", min.max(1)),
        K::StrList { .. } => "[\"x\"]".into(),
        K::NodeSet(n) => format!("\"{}\"", n[0]),
        K::HcaNames => "[\"x\"]".into(),
        K::VictimMask => "true".into(),
        K::VlTable => "[[0, 1]]".into(),
        K::Table => return None,
    })
}

#[test]
fn a_key_of_the_other_model_is_refused_naming_it_as_the_metadata_says() {
    // scenarios whose model is inferred, then the same naming it (`sim.model`)
    let named =
        |base: &str, m: &str| base.replacen("[sim]\n", &format!("[sim]\nmodel = \"{m}\"\n"), 1);
    refused_keys(IB, CYCLE, true);
    refused_keys(&named(IB, "credit"), &named(CYCLE, "cycle"), false);
    // the credit-level model's former name is the same model
    refused_keys(&named(IB, "infiniband"), &named(CYCLE, "cycle"), false);
}

fn refused_keys(ib: &str, cycle: &str, inferred: bool) {
    use lnsim::config::keys::{expand, KEYS};
    use lnsim::config::Model;
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for k in KEYS {
        let (base, other) = match k.model {
            Some(Model::Cycle) => (ib, "cycle-level"),
            Some(Model::Credit) => (cycle, "credit-level"),
            None => continue,
        };
        // without sim.model, giving sim.measure_cycles selects the cycle-level model itself
        if inferred && k.path == "sim.measure_cycles" {
            continue;
        }
        let Some(v) = sample(k.kind) else { continue };
        let concrete = expand(k.path)[0].replace("[]", "[0]");
        // arrays of tables are written as such; the rest as a --set
        let (text, sets) = match concrete.split_once("[0].") {
            Some((table, key)) => (format!("{base}[[{table}]]\n{key} = {v}\n"), vec![]),
            None => (base.to_string(), vec![format!("{concrete}={v}")]),
        };
        let path = dir.path().join("s.toml");
        std::fs::write(&path, text).unwrap();
        let e = message(validate_file_with(&path, &sets, None));
        // the message names the key or the table it is in (`router`, `links`, `traffic.flows`)
        let named = concrete
            .split('.')
            .scan(String::new(), |acc, seg| {
                if !acc.is_empty() {
                    acc.push('.');
                }
                acc.push_str(seg.trim_end_matches("[0]"));
                Some(acc.clone())
            })
            .any(|prefix| e.contains(&format!("{prefix}:")) || e.contains(&format!("`{prefix}`")));
        assert!(named, "{} ({other}): {e}", k.path);
        assert!(
            e.contains(&format!("belongs to the {other} model")),
            "{}: {e}",
            k.path
        );
        checked += 1;
    }
    assert!(checked > 80, "{checked}");
}
