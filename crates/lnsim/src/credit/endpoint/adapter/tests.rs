//! The Input Adapter (spec B.5) on hand-made cases: its weighted round robin, the injection
//! queue of each scheme, round-robin admittance, weighted shares of the link, and HoL blocking
//! at the source with one FIFO.

use super::Wrr;
use crate::config::load_str;
use crate::credit::traffic::Message;
use crate::credit::Net;

/// Two switches of three HCAs; every key given is added after the topology.
fn net(body: &str, overrides: &[&str]) -> Net {
    let text = format!(
        "[sim]\nend_time = \"200us\"\nwarmup = \"100us\"\ninterval = \"50us\"\n\
         [topology]\nkind = \"mesh\"\ndims = [1, 2]\nhcas_per_switch = 3\n\
         [traffic]\ncredit_bytes = \"64B\"\nmtu_credits = 1\npacket_bytes = \"64B\"\n\
         payload_bytes = \"64B\"\nmessage_bytes = \"64B\"\n{body}"
    );
    let ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let l = load_str(&text, "t", std::path::Path::new("."), "t", &ov, None).unwrap();
    Net::new(&l).unwrap()
}

/// Static flood flows `(src, dst)`.
fn flows(pairs: &[(&str, &str)]) -> String {
    timed_flows(pairs, "")
}

/// Static flows `(src, dst)` with `extra` keys each.
fn timed_flows(pairs: &[(&str, &str)], extra: &str) -> String {
    pairs
        .iter()
        .map(|(s, d)| format!("[[traffic.flows]]\nsrc = \"{s}\"\ndst = \"{d}\"\n{extra}"))
        .collect()
}

/// HCA index of `name`.
fn hca(n: &Net, name: &str) -> u32 {
    n.fabric
        .hcas
        .iter()
        .position(|&node| n.fabric.nodes[node as usize].name == name)
        .unwrap() as u32
}

/// The flow `src → dst`.
fn flow(n: &Net, src: &str, dst: &str) -> u32 {
    let (s, d) = (hca(n, src), hca(n, dst));
    n.traffic
        .flows
        .iter()
        .position(|f| f.src == s && f.dst == d)
        .unwrap() as u32
}

/// Runs to the end; checks the run and its conservation (injection queues included).
fn run(mut n: Net) -> Net {
    assert_eq!(n.run(false, &mut || false).unwrap(), None);
    assert!(n.engine.fault.is_none(), "{:?}", n.engine.fault);
    assert!(n.engine.deadlock.is_none());
    n.check_conservation().unwrap();
    n
}

const SCHEME: &str = "hca.injection_queues=\"scheme\"";
const STATIC: &str = "switch.buffer_sharing=\"static\"";

#[test]
fn wrr_with_equal_weights_is_round_robin_over_the_queues_that_can_send() {
    let mut w = Wrr::new(4);
    let all = |_| true;
    let picks: Vec<u32> = (0..6).map(|_| w.pick(4, all, |_| 1).unwrap()).collect();
    assert_eq!(picks, [0, 1, 2, 3, 0, 1]);
    // queue 3 (next after 2... ) cannot send: skipped; then only queue 1 can
    let picks: Vec<u32> = (0..3)
        .map(|_| w.pick(4, |q| q != 3, |_| 1).unwrap())
        .collect();
    assert_eq!(picks, [2, 0, 1]);
    assert_eq!(w.pick(4, |q| q == 1, |_| 1), Some(1));
    assert_eq!(w.pick(4, |_| false, |_| 1), None);
    assert_eq!(Wrr::new(0).pick(0, all, |_| 1), None);
}

#[test]
fn wrr_shares_follow_unequal_weights_and_a_turn_passes_when_its_queue_cannot_send() {
    let weights = [3u32, 1, 2];
    let mut w = Wrr::new(3);
    let picks: Vec<u32> = (0..12)
        .map(|_| w.pick(3, |_| true, |q| weights[q as usize]).unwrap())
        .collect();
    assert_eq!(picks, [0, 0, 0, 1, 2, 2, 0, 0, 0, 1, 2, 2]);
    let mut count = [0u32; 3];
    for _ in 0..600 {
        count[w.pick(3, |_| true, |q| weights[q as usize]).unwrap() as usize] += 1;
    }
    assert_eq!(count, [300, 100, 200]);
    // queue 0 holds the turn with 2 packets left but cannot send: queue 1 takes the turn
    let mut w = Wrr::new(3);
    assert_eq!(w.pick(3, |_| true, |q| weights[q as usize]), Some(0));
    assert_eq!(w.pick(3, |q| q != 0, |q| weights[q as usize]), Some(1));
    assert_eq!(w.pick(3, |_| true, |q| weights[q as usize]), Some(2));
}

#[test]
fn each_scheme_gives_the_injection_queue_of_the_first_switch_queue() {
    let body = flows(&[("H111", "H121")]);
    let base = [SCHEME, STATIC, "hca.injection_credits=8"];
    // (overrides, injection queues per HCA, share in credits, queue of destination d)
    type Case<'a> = (&'a [&'a str], fn(&Net, u32, u32) -> u16);
    let cases: [Case; 5] = [
        (&["switch.queue_mapping=\"one_queue\""], |_, _, _| 0),
        (&["switch.queue_mapping=\"voq_net\""], |_, _, d| d as u16),
        (
            &["switch.queue_mapping=\"dbbm\"", "switch.dbbm_queues=4"],
            |_, _, d| (d % 4) as u16,
        ),
        (
            &["switch.queue_mapping=\"ddbbm\"", "switch.dbbm_queues=4"],
            |_, _, d| (d % 4) as u16,
        ),
        (&["switch.queue_mapping=\"voq_sw\""], |n, g, d| {
            // look-ahead: the first switch's output towards d
            let sw = n.links.node_of[n.links.peer[g as usize] as usize];
            n.routes.lft.out_port(sw, d + 1)
        }),
    ];
    for (i, (ov, want)) in cases.iter().enumerate() {
        let mut o: Vec<&str> = base.to_vec();
        o.extend(ov.iter());
        let n = net(&body, &o);
        let ad = n.hcas.adapter.as_ref().unwrap();
        let h = hca(&n, "H111");
        let g = n.hcas.hca_gport[h as usize];
        let sw = n.links.node_of[n.links.peer[g as usize] as usize];
        let ports = n.fabric.nodes[sw as usize].ports.len() as u32;
        let (count, share) = [(1, 8), (6, 2), (4, 2), (5, 1), (ports, 8 / ports)][i];
        assert_eq!(ad.count(h), count, "{ov:?}");
        assert_eq!(ad.cap(ad.slot(h, 0)), share, "{ov:?}");
        for d in 0..6 {
            let c = n.downstream_counter(g, h, d, 0, 0, 0);
            assert_eq!(c, want(&n, g, d), "{ov:?} destination {d}");
            assert!((c as u32) < count);
        }
        if i == 3 {
            // DDBBM: the congestion bit selects the dynamic queue Q
            let c = n.downstream_counter(g, h, 5, 0, 0, crate::credit::packet::CBIT);
            assert_eq!(c, 4);
        }
    }
}

#[test]
fn admittance_moves_packets_round_robin_until_the_queue_is_full() {
    // Bernoulli flows: a message that leaves its queue does not make the next (flood would)
    let body = timed_flows(
        &[("H111", "H112"), ("H111", "H121"), ("H111", "H122")],
        "injection = \"bernoulli\"\nload = 0.5\n",
    );
    for (credits, moved) in [(100u32, 6usize), (4, 4)] {
        let c = format!("hca.injection_credits={credits}");
        let mut n = net(&body, &[SCHEME, "switch.queue_mapping=\"one_queue\"", &c]);
        let h = hca(&n, "H111");
        let fs = [
            flow(&n, "H111", "H112"),
            flow(&n, "H111", "H121"),
            flow(&n, "H111", "H122"),
        ];
        for &f in &fs {
            let fl = &mut n.traffic.flows[f as usize];
            fl.msgs.push_back(Message {
                created: 0,
                packets_left: 2,
            });
            fl.ready = true;
            n.push_ready(h, f);
        }
        n.adapter_fill(h, 0);
        let ad = n.hcas.adapter.as_ref().unwrap();
        let s = ad.slot(h, 0);
        let order: Vec<u32> = n
            .pkts
            .queue_ids(&ad.queues[s])
            .map(|p| n.pkts[p].flow)
            .collect();
        let want: Vec<u32> = [0, 1, 2, 0, 1, 2][..moved].iter().map(|&i| fs[i]).collect();
        assert_eq!(order, want, "{credits} credits");
        assert_eq!(ad.room(s), credits - moved as u32);
        // the flows with packets left stay ready, the round robin resumes after the last served
        let left: u32 = fs
            .iter()
            .flat_map(|&f| n.traffic.flows[f as usize].msgs.iter())
            .map(|m| m.packets_left)
            .sum();
        assert_eq!(left as usize, 6 - moved);
        if moved < 6 {
            let r = &n.hcas.ready[h as usize];
            assert_eq!(r[n.hcas.hca_rr[h as usize] as usize % r.len()], fs[1]);
        }
        assert_eq!(n.hcas.ready[h as usize].len(), (6 - moved).min(3));
        n.check_injection_queues().unwrap();
        n.check_ready_slots().unwrap();
    }
}

#[test]
fn injection_weights_share_the_link_of_a_source_with_two_queues() {
    // DBBM with Q = 2: H121 and H122 are in different queues; both flows are limited by
    // H111's link only
    let body = flows(&[("H111", "H121"), ("H111", "H122")]);
    let dbbm = [
        STATIC,
        "switch.queue_mapping=\"dbbm\"",
        "switch.dbbm_queues=2",
        "switch.buffer_credits=8",
        "switch.output_buffer_credits=8",
    ];
    let ratio = |extra: &[&str]| {
        let mut o = dbbm.to_vec();
        o.extend(extra);
        let n = run(net(&body, &o));
        let (a, b) = (flow(&n, "H111", "H121"), flow(&n, "H111", "H122"));
        let (da, db) = (
            n.traffic.flows[a as usize].dst,
            n.traffic.flows[b as usize].dst,
        );
        assert_ne!(da % 2, db % 2, "the two destinations share a DBBM queue");
        let (ta, tb) = (
            n.traffic.flows[a as usize].tx_packets as f64,
            n.traffic.flows[b as usize].tx_packets as f64,
        );
        // weights are listed by queue: the flow in queue 0 first
        if da % 2 == 0 {
            ta / tb
        } else {
            tb / ta
        }
    };
    let equal = ratio(&[SCHEME]);
    let weighted = ratio(&[SCHEME, "hca.injection_weights=[3, 1]"]);
    let per_flow = ratio(&[]);
    // shares in whole packets over ≈ 3,000 packets: within one packet per turn
    assert!((equal - 1.0).abs() < 0.01, "equal weights: {equal}");
    assert!((weighted - 3.0).abs() < 0.01, "weights 3, 1: {weighted}");
    assert!((per_flow - 1.0).abs() < 0.01, "per flow: {per_flow}");
}

#[test]
fn a_wrong_number_of_weights_is_refused_naming_the_key() {
    let body = flows(&[("H111", "H121")]);
    let text = format!(
        "[sim]\nend_time = \"10us\"\n[topology]\nkind = \"mesh\"\ndims = [1, 2]\nhcas_per_switch = 3\n{body}"
    );
    let ov: Vec<String> = [
        SCHEME,
        STATIC,
        "switch.queue_mapping=\"dbbm\"",
        "switch.dbbm_queues=4",
        "hca.injection_credits=64",
        "hca.injection_weights=[1, 2]",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let l = load_str(&text, "t", std::path::Path::new("."), "t", &ov, None).unwrap();
    let e = Net::new(&l).err().expect("refused").to_string();
    assert!(
        e.contains("hca.injection_weights") && e.contains("2 weights for 4"),
        "{e}"
    );
}

#[test]
fn a_blocked_destination_blocks_the_flow_behind_it_in_a_one_queue_source() {
    // H111, H122 and H123 flood H121 (each gets a third of its link); H111 also floods H112,
    // which nothing else loads. One queue per switch input (1Q, static buffers).
    let body = flows(&[
        ("H111", "H121"),
        ("H122", "H121"),
        ("H123", "H121"),
        ("H111", "H112"),
    ]);
    let one_q = [
        STATIC,
        "switch.queue_mapping=\"one_queue\"",
        "switch.buffer_credits=16",
        "switch.output_buffer_credits=16",
    ];
    let victim = |extra: &[&str]| {
        let mut o = one_q.to_vec();
        o.extend(extra);
        let n = run(net(&body, &o));
        let v = flow(&n, "H111", "H112");
        let hot = flow(&n, "H111", "H121");
        let gbps = |f: u32| n.traffic.flows[f as usize].rx_bytes as f64 * 8.0 / 200e-6 / 1e9;
        (gbps(v), gbps(hot), n)
    };
    let (v_scheme, hot_scheme, n) = victim(&[SCHEME]);
    // the run ends with H111's FIFO full
    // the source's one FIFO: a packet to H121 at its head waits for credits, a packet to H112
    // waits behind it
    let h = hca(&n, "H111");
    let ad = n.hcas.adapter.as_ref().unwrap();
    let ids: Vec<u32> = n.pkts.queue_ids(&ad.queues[ad.slot(h, 0)]).collect();
    let (to_hot, to_victim) = (hca(&n, "H121"), hca(&n, "H112"));
    assert!(
        ids.iter().any(|&p| n.pkts[p].dst == to_hot),
        "no hot packet queued"
    );
    assert!(
        ids.iter().any(|&p| n.pkts[p].dst == to_victim),
        "no victim packet queued behind"
    );
    // blocked: H112's flow gets what the hot flow gets, a third of a link, not the two
    // thirds of H111's link the hot flow leaves
    assert!(
        v_scheme < 1.1 * hot_scheme,
        "victim {v_scheme} Gb/s, hot {hot_scheme} Gb/s"
    );
    // with VOQsw (the first switch separates H112 from H121, and so does the source), the
    // victim takes the rest of the link
    let (v_voq, hot_voq, _) = victim(&[SCHEME, "switch.queue_mapping=\"voq_sw\""]);
    assert!(
        v_voq > 1.9 * hot_voq,
        "VOQsw: victim {v_voq} Gb/s, hot {hot_voq} Gb/s"
    );
    // per flow, H111's flows never wait behind each other at the source, but both take the
    // credits of the first switch's one FIFO, where the victim's packets wait behind the hot
    // ones: blocked all the same (the source's FIFO adds no HoL blocking the first switch's
    // queue does not already cause)
    let (v_flow, hot_flow, _) = victim(&[]);
    assert!(
        v_flow < 1.1 * hot_flow,
        "per flow: victim {v_flow} Gb/s, hot {hot_flow} Gb/s"
    );
}

#[test]
fn routes_that_choose_paths_per_packet_are_refused_naming_the_key() {
    let body = flows(&[("H111", "H121")]);
    let text = format!(
        "[sim]\nend_time = \"10us\"\n[topology]\nkind = \"mesh\"\ndims = [1, 2]\nhcas_per_switch = 3\n{body}"
    );
    let ov: Vec<String> = [SCHEME, "drb.enabled=true"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let l = load_str(&text, "t", std::path::Path::new("."), "t", &ov, None).unwrap();
    let e = Net::new(&l).err().expect("refused");
    assert!(matches!(e, crate::error::Error::Input(_)), "{e}");
    let e = e.to_string();
    assert!(
        e.contains("hca.injection_queues")
            && e.contains("drb.enabled")
            && e.contains("\"per_flow\""),
        "{e}"
    );
}
