//! The traffic and metrics of the DRB reproduction (drb-and-ddbbm spec A.6, A.7, A.10) on small
//! networks: Poisson message generation offers the configured rate per node in bits/µs, the
//! accepted load follows it below saturation, message latency runs from generation to the last
//! packet delivered (source queueing included: an overloaded source's latency grows with the
//! run), `links.csv` accounts for every data byte each switch output carried, the hot-spot peak
//! is taken over the links into the hot HCA's switch, runs are deterministic, and the new keys
//! are checked naming the key in `run` and `validate` alike.

mod common;
use common::{input_error, run, write};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// 4×4 torus, one HCA per switch, 2.5 Gb/s links, 2 KiB packets, 4 KiB messages (spec A.5,
/// A.10), the perfect shuffle with Poisson messages at 800 bits/µs per node.
const TORUS: &str = "[sim]\nmodel = \"credit\"\nend_time = \"20ms\"\nwarmup = \"2ms\"\n\
                     interval = \"1ms\"\n\
                     [topology]\nkind = \"torus\"\ndims = [4, 4]\nhcas_per_switch = 1\n\
                     [links.host]\nrate = \"2.5Gbps\"\n[links.fabric]\nrate = \"2.5Gbps\"\n\
                     [switch]\nvls = 2\n\
                     [traffic]\npacket_bytes = \"2048B\"\npayload_bytes = \"2048B\"\n\
                     message_bytes = \"4096B\"\n\
                     [[traffic.generators]]\nsources = \"all\"\npattern = \"shuffle\"\n\
                     injection = \"poisson\"\nrate = \"800bit/us\"\n";

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// `links.csv` as rows (t_start_s, from, port, to, bytes, mbps).
fn links_csv(out: &Path) -> Vec<(f64, String, u32, String, u64, f64)> {
    let text = std::fs::read_to_string(out.join("links.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("t_start_s,from,port,to,bytes,mbps"));
    lines
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (
                c[0].parse().unwrap(),
                c[1].to_string(),
                c[2].parse().unwrap(),
                c[3].to_string(),
                c[4].parse().unwrap(),
                c[5].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn poisson_offers_the_configured_rate_and_the_network_accepts_it() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "t.toml", TORUS);
    let s = run(&p, &d.path().join("a"), &[]);
    let tp = &s["throughput"];
    // 14 senders (the shuffle's fixed points 0 and 15 send nothing)
    assert_eq!(tp["sending_nodes"], 14);
    assert_eq!(
        (f(&tp["measure_from_s"]), f(&tp["measure_to_s"])),
        (0.002, 0.02)
    );
    // the message count in the window is Poisson: relative standard error 1/√N
    let rate: f64 = 800.0;
    let n = rate * 18_000.0 / (4096.0 * 8.0) * 14.0;
    let tol = 4.0 * rate / n.sqrt();
    let offered = f(&tp["offered_bits_per_us_per_node"]);
    assert!(
        (offered - rate).abs() < tol,
        "offered {offered} vs {rate} ± {tol}"
    );
    // below saturation (spec A.8: the torus bound is about 2500/4 per node on an 8×8 torus; on
    // 4×4 the shuffle loads a link with at most 2 flows) everything offered is accepted, up to
    // the few messages in flight at the window's borders
    let accepted = f(&tp["accepted_bits_per_us_per_node"]);
    assert!(
        (accepted - offered).abs() < 0.02 * offered,
        "{accepted} vs {offered}"
    );
    // message latency: generated in the window, (almost) all delivered; a message ends with its
    // last packet, so its latency is at least a packet's
    let ml = &s["message_latency_ns"];
    let (count, generated) = (
        ml["count"].as_u64().unwrap(),
        ml["generated"].as_u64().unwrap(),
    );
    assert!(count <= generated && generated - count < 10, "{ml}");
    assert_eq!(f(&ml["window_start_s"]), 0.002);
    let pl = &s["latency_ns"];
    assert!(f(&ml["mean"]) > f(&pl["mean"]), "{ml} vs {pl}");
    assert!(f(&ml["p50"]) >= f(&pl["p50"]), "{ml} vs {pl}");
    // two 2 KiB packets at 2.5 Gb/s take 13.1 µs on the host link alone
    assert!(f(&ml["p50"]) > 13_000.0, "{ml}");
}

#[test]
fn message_latency_includes_the_source_queue_of_an_overloaded_source() {
    let d = tempfile::tempdir().unwrap();
    // one Poisson flow at 1.5 times its 2.5 Gb/s host link: its source queue grows without bound
    let text = "[sim]\nmodel = \"credit\"\nend_time = \"2ms\"\nwarmup = \"200us\"\n\
                interval = \"100us\"\n\
                [topology]\nkind = \"torus\"\ndims = [4, 4]\nhcas_per_switch = 1\n\
                [links.host]\nrate = \"2.5Gbps\"\n[links.fabric]\nrate = \"2.5Gbps\"\n\
                [traffic]\npacket_bytes = \"2048B\"\npayload_bytes = \"2048B\"\n\
                message_bytes = \"4096B\"\n\
                [[traffic.flows]]\nsrc = \"H111\"\ndst = \"H331\"\ninjection = \"poisson\"\n\
                rate = \"3750bit/us\"\n";
    let p = write(d.path(), "o.toml", text);
    let short = run(&p, &d.path().join("s"), &[]);
    let long = run(&p, &d.path().join("l"), &["sim.end_time=\"4ms\""]);
    let ml = |s: &Value| f(&s["message_latency_ns"]["mean"]);
    // the network itself is idle but for this flow: packets cross it quickly
    assert!(f(&long["network_latency_ns"]["mean"]) < 50_000.0);
    // the waiting is in the source queue, and it grows with the run: a message generated at t
    // waits about t·(1 − 1/ρ), and the messages counted are those delivered by the end (doubling
    // the run raises the mean by about 1.5–1.9 times)
    assert!(ml(&short) > 10.0 * f(&short["network_latency_ns"]["mean"]));
    assert!(
        ml(&long) > 1.3 * ml(&short),
        "{} vs {}",
        ml(&long),
        ml(&short)
    );
    for s in [&short, &long] {
        let m = &s["message_latency_ns"];
        assert!(
            m["generated"].as_u64().unwrap() > m["count"].as_u64().unwrap() + 10,
            "{m}"
        );
        // accepted: the link's rate (a packet that started before the window counts whole);
        // offered: 1.5 times it
        let tp = &s["throughput"];
        let off = f(&tp["offered_bits_per_us_per_node"]);
        let acc = f(&tp["accepted_bits_per_us_per_node"]);
        assert!(off > 3_300.0 && acc < 2_510.0 && acc > 2_200.0, "{tp}");
    }
}

#[test]
fn links_csv_accounts_for_every_delivered_byte() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "t.toml", TORUS);
    // the sources stop early, so every packet is delivered by the end
    let over = [
        "sim.end_time=\"4ms\"",
        "traffic.generators[0].stop=\"3ms\"",
        "stats.links=true",
    ];
    let out = d.path().join("a");
    let s = run(&p, &out, &over);
    assert_eq!(s["conservation"]["in_network_packets"], 0);
    let rows = links_csv(&out);
    // every switch output of a 4×4 torus with one HCA per switch: 16 × (4 + 1), 4 intervals
    assert_eq!(rows.len(), 16 * 5 * 4);
    let delivered: u64 = s["nodes"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n["rx_bytes"].as_u64().unwrap())
        .sum();
    let into_hcas: u64 = rows
        .iter()
        .filter(|r| r.3.starts_with('H'))
        .map(|r| r.4)
        .sum();
    assert_eq!(
        into_hcas, delivered,
        "switch → HCA links carry what the sinks consumed"
    );
    // every switch hop of every packet: packet hops less the HCA injections
    let all: u64 = rows.iter().map(|r| r.4).sum();
    let packets = s["conservation"]["injected_packets"].as_u64().unwrap();
    let switch_hops = s["packet_hops"].as_u64().unwrap() - packets;
    assert_eq!(all, switch_hops * 2048);
    // mbps is bytes over the interval
    for r in &rows {
        assert!((r.5 - r.4 as f64 * 8.0 / 1000.0).abs() < 1e-3, "{r:?}");
    }
    // without the key there is no file
    let out2 = d.path().join("b");
    run(&p, &out2, &over[..2]);
    assert!(!out2.join("links.csv").exists());
}

#[test]
fn hotspot_peak_is_taken_on_the_links_into_the_hot_switch() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "t.toml", TORUS);
    // background shuffle, then from 8 ms three sources send to H221 as well
    let hot = "[[traffic.generators]]\nsources = [\"H111\", \"H431\", \"H241\"]\n\
               destinations = [\"H221\"]\ninjection = \"poisson\"\nrate = \"1000bit/us\"\n\
               start = \"8ms\"\n\
               [stats]\nhotspot = \"H221\"\nlinks = true\n";
    let p2 = write(d.path(), "h.toml", &format!("{TORUS}{hot}"));
    let _ = p;
    let out = d.path().join("h");
    let s = run(&p2, &out, &["sim.end_time=\"12ms\""]);
    let h = &s["hotspot"];
    assert_eq!(h["hca"], "H221");
    assert_eq!(h["switch"], "SW22");
    // the default start: the hot generator's
    assert_eq!(f(&h["from_s"]), 0.008);
    // the four torus neighbours of SW22 and the link to the HCA
    let mut links: Vec<String> = h["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            format!(
                "{}->{}",
                l["from"].as_str().unwrap(),
                l["to"].as_str().unwrap()
            )
        })
        .collect();
    links.sort();
    assert_eq!(
        links,
        [
            "SW12->SW22",
            "SW21->SW22",
            "SW22->H221",
            "SW23->SW22",
            "SW32->SW22"
        ]
    );
    // the peak is the highest interval rate of those links in links.csv from 8 ms on
    let rows = links_csv(&out);
    let mut peak: BTreeMap<String, f64> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.0 >= 0.008) {
        let k = format!("{}->{}", r.1, r.3);
        if links.contains(&k) {
            let e = peak.entry(k).or_insert(0.0);
            *e = e.max(r.5);
        }
    }
    let best = peak.values().cloned().fold(0.0, f64::max);
    assert!(
        (f(&h["peak_link_mbps"]) - best).abs() < 1e-3,
        "{h} vs {peak:?}"
    );
    // the hot HCA receives the background and the three hot sources: its link is the peak
    assert_eq!(h["peak_link"], "SW22->H221");
    assert!(best > 2_500.0 && best < 3_900.0, "{best}");
    // a start inside an interval counts that interval
    let mid = run(
        &p2,
        &d.path().join("h2"),
        &["sim.end_time=\"12ms\"", "stats.hotspot_from=\"8.5ms\""],
    );
    assert_eq!(f(&mid["hotspot"]["from_s"]), 0.0085);
    assert_eq!(mid["hotspot"]["peak_link_mbps"], h["peak_link_mbps"]);
    // on a mesh corner: two neighbours and the HCA link
    let mesh = format!("{TORUS}{hot}").replace("kind = \"torus\"", "kind = \"mesh\"");
    let pm = write(d.path(), "m.toml", &mesh);
    let m = run(
        &pm,
        &d.path().join("m"),
        &[
            "sim.end_time=\"9ms\"",
            "stats.hotspot=\"H111\"",
            "stats.hotspot_from=\"3ms\"",
        ],
    );
    let mut ml: Vec<String> = m["hotspot"]["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            format!(
                "{}->{}",
                l["from"].as_str().unwrap(),
                l["to"].as_str().unwrap()
            )
        })
        .collect();
    ml.sort();
    assert_eq!(ml, ["SW11->H111", "SW12->SW11", "SW21->SW11"]);
    assert_eq!(f(&m["hotspot"]["from_s"]), 0.003);
}

#[test]
fn runs_are_deterministic() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "t.toml", TORUS);
    let over = [
        "sim.end_time=\"5ms\"",
        "stats.links=true",
        "stats.hotspot=\"H221\"",
    ];
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    let mut sa = run(&p, &a, &over);
    let mut sb = run(&p, &b, &over);
    for s in [&mut sa, &mut sb] {
        let o = s.as_object_mut().unwrap();
        o.remove("wall_time_s");
        o.remove("peak_rss_bytes");
    }
    assert_eq!(sa, sb);
    let read = |o: &Path| std::fs::read_to_string(o.join("links.csv")).unwrap();
    assert_eq!(read(&a), read(&b));
    // another seed draws other arrivals
    let mut over_seed = over.to_vec();
    over_seed.push("sim.seed=2");
    let c = run(&p, &d.path().join("c"), &over_seed);
    assert_ne!(c["message_latency_ns"], sa["message_latency_ns"]);
}

#[test]
fn bad_keys_name_themselves() {
    let e = input_error(TORUS, &[], &["stats.hotspot=\"H999\""]);
    assert!(e.contains("stats.hotspot") && e.contains("H221"), "{e}");
    let e = input_error(TORUS, &[], &["stats.hotspot=\"SW22\""]);
    assert!(
        e.contains("stats.hotspot") && e.contains("not an HCA"),
        "{e}"
    );
    let e = input_error(TORUS, &[], &["stats.hotspot_from=\"1ms\""]);
    assert!(
        e.contains("stats.hotspot_from") && e.contains("needs"),
        "{e}"
    );
    let e = input_error(
        TORUS,
        &[],
        &["stats.hotspot=\"H221\"", "stats.hotspot_from=\"30ms\""],
    );
    assert!(
        e.contains("stats.hotspot_from") && e.contains("sim.end_time"),
        "{e}"
    );
    let e = input_error(
        TORUS,
        &[],
        &["traffic.generators[0].rate=\"800furlongs/us\""],
    );
    assert!(
        e.contains("traffic.generators[0].rate") && e.contains("bit/us"),
        "{e}"
    );
    let e = input_error(TORUS, &[], &["traffic.generators[0].load=0.5"]);
    assert!(
        e.contains("traffic.generators[0]") && e.contains("exactly one"),
        "{e}"
    );
}

#[test]
fn routed_measure_and_windowed_peak_of_the_hot_spot() {
    // stats.link_measure = "routed": bytes counted in the interval of their injection on every
    // link their path crosses (the demand routed over a link, not bounded by its capacity);
    // stats.hotspot_window: the peak of the sliding mean of that many intervals
    let d = tempfile::tempdir().unwrap();
    let hot = "[[traffic.generators]]\nsources = [\"H111\", \"H431\", \"H241\"]\n\
               destinations = [\"H221\"]\ninjection = \"poisson\"\nrate = \"1000bit/us\"\n\
               start = \"8ms\"\n\
               [stats]\nhotspot = \"H221\"\nlinks = true\n";
    let p = write(d.path(), "h.toml", &format!("{TORUS}{hot}"));
    let end = "sim.end_time=\"12ms\"";
    let wire = run(
        &p,
        &d.path().join("w"),
        &[end, "stats.hotspot_window=\"2ms\""],
    );
    let routed = run(
        &p,
        &d.path().join("r"),
        &[
            end,
            "stats.link_measure=\"routed\"",
            "stats.hotspot_window=\"2ms\"",
        ],
    );
    let (hw, hr) = (&wire["hotspot"], &routed["hotspot"]);
    assert_eq!(
        (hw["measure"].as_str(), hr["measure"].as_str()),
        (Some("wire"), Some("routed"))
    );
    // the same run: the routed series is the wire one moved to the injection intervals, so
    // over the whole run each link counts the same bytes but for those still in flight
    let sum = |out: &str| -> BTreeMap<String, u64> {
        let mut m = BTreeMap::new();
        for r in links_csv(&d.path().join(out)) {
            *m.entry(format!("{}->{}", r.1, r.3)).or_insert(0) += r.4;
        }
        m
    };
    let (sw, sr) = (sum("w"), sum("r"));
    let hot_link = "SW22->H221".to_string();
    assert!(sr[&hot_link] <= sw[&hot_link]);
    assert!(
        sw[&hot_link] - sr[&hot_link] < 64 * 2048,
        "{} {}",
        sw[&hot_link],
        sr[&hot_link]
    );
    // the hot HCA link is capacity-bound on the wire (± a packet per interval), not routed:
    // 3 × 1,000 + the background offered into it exceeds its 2,500
    let peak = |h: &Value| f(&h["peak_link_mbps"]);
    assert!(peak(hw) < 2_500.0 + 17.0, "{hw}");
    assert!(peak(hr) > peak(hw), "{hr} vs {hw}");
    // the window's peak is a mean of two intervals: at most the one-interval peak, and that of
    // links.csv's own two-interval means from 8 ms on
    for h in [hw, hr] {
        assert_eq!(f(&h["window_s"]), 0.002);
        assert!(f(&h["peak_window_mbps"]) <= peak(h) + 1e-6, "{h}");
    }
    let rows = links_csv(&d.path().join("w"));
    let series: Vec<f64> = rows
        .iter()
        .filter(|r| r.0 >= 0.008 && format!("{}->{}", r.1, r.3) == hot_link)
        .map(|r| r.5)
        .collect();
    let top = series
        .windows(2)
        .map(|w| (w[0] + w[1]) / 2.0)
        .fold(0.0, f64::max);
    let link = hw["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["from"] == "SW22")
        .unwrap();
    assert!(
        (f(&link["peak_window_mbps"]) - top).abs() < 1e-3,
        "{link} vs {top}"
    );
    // checked naming the key
    let e = input_error(
        &format!("{TORUS}{hot}"),
        &[],
        &[end, "stats.hotspot_window=\"1.5ms\""],
    );
    assert!(
        e.contains("stats.hotspot_window") && e.contains("sim.interval"),
        "{e}"
    );
    let e = input_error(TORUS, &[], &["stats.link_measure=\"routed\""]);
    assert!(
        e.contains("stats.link_measure") && e.contains("stats.links"),
        "{e}"
    );
    let e = input_error(TORUS, &[], &["stats.hotspot_window=\"2ms\""]);
    assert!(
        e.contains("stats.hotspot_window") && e.contains("stats.hotspot"),
        "{e}"
    );
    let e = input_error(TORUS, &[], &["stats.link_measure=\"demand\""]);
    assert!(
        e.contains("stats.link_measure") && e.contains("routed"),
        "{e}"
    );
}
