//! The buffer organisations on tiny networks (spec B.2, B.5): every queue scheme with shared
//! and per-queue credits runs, conserves packets and credits, and shows the behaviour it
//! exists for; with credits per queue the upstream's counter is the next switch's queue
//! (look-ahead for VOQsw, the congestion bit for DDBBM) and the queues are sized as
//! `switch.static_mode` says.

use super::one_queue::OneQueue;
use super::voq_net::VoqNet;
use super::voq_switch::VoqSwitch;
use super::{BufferChoice, CreditKeeping, CreditKeepingKind, QueueScheme, QueueSizing};
use crate::config::load_str;
use crate::credit::Net;
use crate::engine::progress::SetupProgress;

/// Two switches; H111 and H122 both flood H121 (the hot spot, 2:1 oversubscribed), H112 →
/// H122 is a victim that shares the SW11 → SW12 link with H111's hot packets.
const HOL: &str = r#"
[sim]
end_time = "1ms"
warmup = "0.5ms"
interval = "0.1ms"
[topology]
kind = "mesh"
dims = [1, 2]
hcas_per_switch = 2
[[traffic.flows]]
src = "H111"
dst = "H121"
[[traffic.flows]]
src = "H122"
dst = "H121"
[[traffic.flows]]
src = "H112"
dst = "H122"
"#;

/// Every HCA of a 2×2 mesh sends to random destinations.
const UNIFORM: &str = "[sim]\nend_time = \"200us\"\n[topology]\nkind = \"mesh\"\ndims = [2, 2]\n\
                       hcas_per_switch = 2\n[[traffic.generators]]\nsources = \"all\"\n";

/// Runs `text` (with `overrides`) to its end with `scheme` and `credits`; checks conservation.
fn run(text: &str, overrides: &[&str], scheme: QueueScheme, credits: CreditKeepingKind) -> Net {
    let ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let l = load_str(text, "t", std::path::Path::new("."), "t", &ov, None).unwrap();
    let scheme = match scheme {
        // VOQnet keeps one queue per destination: as many as this network has HCAs
        QueueScheme::VoqNet(_) => {
            let plain = Net::build_with(&l, &mut SetupProgress::hidden(), None).unwrap();
            QueueScheme::VoqNet(VoqNet {
                destinations: plain.fabric.hcas.len() as u32,
            })
        }
        s => s,
    };
    let choice = BufferChoice { scheme, credits };
    let mut n = Net::build_with(&l, &mut SetupProgress::hidden(), Some(choice)).unwrap();
    assert_eq!(n.run(false, &mut || false).unwrap(), None);
    assert!(n.engine.fault.is_none(), "{:?}", n.engine.fault);
    assert!(n.engine.deadlock.is_none());
    let c = n.check_conservation().unwrap();
    assert!(c.delivered > 0);
    n
}

/// Gbit/s delivered by the flow from HCA `src` over the run.
fn flow_gbps(n: &Net, src: &str) -> f64 {
    let f = n
        .traffic
        .flows
        .iter()
        .find(|f| n.fabric.nodes[n.fabric.hcas[f.src as usize] as usize].name == src)
        .unwrap();
    f.rx_bytes as f64 * 8.0 / (n.engine.end as f64 / 1e12) / 1e9
}

const VOQ_SW: QueueScheme = QueueScheme::VoqSwitch(VoqSwitch);
const ONE_Q: QueueScheme = QueueScheme::OneQueue(OneQueue);
/// VOQnet (its destinations are the network's HCAs: `run` sets them).
const VOQ_NET: QueueScheme = QueueScheme::VoqNet(VoqNet { destinations: 0 });

#[test]
fn partitioned_credits_keep_a_victim_free_where_a_shared_pool_spreads_congestion() {
    // 3 ports per switch, 6 packets per input buffer: 2 packets per VOQ when partitioned
    let small = ["switch.buffer_credits=204"];
    let shared = run(HOL, &small, VOQ_SW, CreditKeepingKind::SharedPool);
    let parted = run(
        HOL,
        &small,
        VOQ_SW,
        CreditKeepingKind::Partitioned(QueueSizing::Split),
    );
    let (a, b) = (flow_gbps(&shared, "H112"), flow_gbps(&parted, "H112"));
    eprintln!("victim: shared pool {a} Gbit/s, partitioned {b} Gbit/s");
    // the hot packets fill SW12's shared pool and the victim waits for credits on the link
    assert!(a < 6.5, "victim with a shared pool: {a} Gbit/s");
    // with its own share of SW12's buffer the victim runs at the 4x SDR data rate
    assert!(b > 7.8, "victim with partitioned credits: {b} Gbit/s");
    // the hot spot's link is full either way
    let hot = |n: &Net| flow_gbps(n, "H111") + flow_gbps(n, "H122");
    assert!(hot(&parted) > 7.8 && hot(&shared) > 7.8);
}

#[test]
fn one_queue_per_vl_partitioned_is_the_shared_pool() {
    // one queue per VL: its share is the whole buffer, so every decision is the same
    for text in [UNIFORM, HOL] {
        let a = run(
            text,
            &["switch.vls=2"],
            ONE_Q,
            CreditKeepingKind::SharedPool,
        );
        let b = run(
            text,
            &["switch.vls=2"],
            ONE_Q,
            CreditKeepingKind::Partitioned(QueueSizing::Split),
        );
        // (not the events: the shared pool's copy of the hot path needs fewer, `kind.rs`
        // `DEFER_CREDITS`)
        assert_eq!(a.engine.packet_hops, b.engine.packet_hops);
        assert_eq!(a.engine.last_progress, b.engine.last_progress);
        assert_eq!(a.engine.flit_hops, b.engine.flit_hops);
        assert_eq!(a.stats.delivered_packets, b.stats.delivered_packets);
    }
}

#[test]
fn voq_net_lets_a_victim_pass_like_voq_switch() {
    // buffers never fill: only head-of-line blocking in the input queues can hurt the victim
    let big = ["switch.buffer_credits=100000"];
    let voq = flow_gbps(
        &run(HOL, &big, VOQ_SW, CreditKeepingKind::SharedPool),
        "H112",
    );
    let net = flow_gbps(
        &run(HOL, &big, VOQ_NET, CreditKeepingKind::SharedPool),
        "H112",
    );
    let fifo = flow_gbps(
        &run(HOL, &big, ONE_Q, CreditKeepingKind::SharedPool),
        "H112",
    );
    eprintln!("victim: VOQsw {voq}, VOQnet {net}, 1Q {fifo} Gbit/s");
    assert!(net > 7.8 && voq > 7.8, "VOQnet {net}, VOQsw {voq}");
    assert!(fifo < 6.5, "1Q {fifo}");
}

#[test]
fn every_scheme_and_credit_keeping_conserves_under_random_traffic() {
    for scheme in [ONE_Q, VOQ_SW, VOQ_NET] {
        for credits in [
            CreditKeepingKind::SharedPool,
            CreditKeepingKind::Partitioned(QueueSizing::Split),
        ] {
            let n = run(UNIFORM, &["switch.vls=2"], scheme, credits);
            // several destinations' queues of one input request one output: the counts of
            // requesting heads drop back to what the queues hold
            if scheme.several_heads_per_output() {
                let heads: u32 = n.arb.req_heads.iter().map(|&h| h as u32).sum();
                let nonempty = n.sw.queues.iter().filter(|q| !q.is_empty()).count() as u32;
                assert_eq!(heads, nonempty, "{scheme:?} {credits:?}");
            }
        }
    }
}

/// A 4-ary 2-tree: 16 HCAs (H1…H16), 8 switches of 8 ports.
const TREE: &str = "[sim]\nend_time = \"20us\"\n[topology]\nkind = \"fat_tree\"\nk = 4\nn = 2\n\
                    [switch]\nbuffer_credits = 1000\nvls = 2\n\
                    [[traffic.generators]]\nsources = \"all\"\n";

/// The network of `TREE` with `overrides`, built, not run.
fn tree(overrides: &[&str]) -> Net {
    let ov: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let l = load_str(TREE, "t", std::path::Path::new("."), "t", &ov, None).unwrap();
    Net::build_with(&l, &mut SetupProgress::hidden(), None).unwrap()
}

#[test]
fn static_voq_sw_looks_ahead_at_the_next_switchs_output() {
    use crate::credit::packet::CBIT;
    let n = tree(&[
        "switch.queue_mapping=\"voq_sw\"",
        "switch.buffer_sharing=\"static\"",
    ]);
    let CreditKeeping::Partitioned(p) = &n.sw.credit_keeping else {
        panic!("static buffers keep credits per queue")
    };
    // an HCA's link to its leaf switch, and a leaf's up-link to a spine
    let h = n.hcas.hca_gport[0];
    let leaf_in = n.links.peer[h as usize];
    let leaf = n.links.node_of[leaf_in as usize];
    let mut checked = 0;
    for og in [h]
        .into_iter()
        .chain((0..8).map(|i| n.links.port_base[leaf as usize] + i))
    {
        let down = n.links.peer[og as usize];
        if !n.links.is_switch[down as usize] {
            continue;
        }
        let sw = n.links.node_of[down as usize];
        for dst in 0..16u32 {
            for vl in 0..2u8 {
                let out = n.routes.lft.out_port(sw, dst + 1);
                // the queue of the next switch: its output for dst, the packet's VL
                let want = p.out_slot(og, (out as usize * 2 + vl as usize) as u16);
                assert_eq!(n.credit_slot_for(og, 0, dst, vl), want);
                assert_eq!(n.credit_slot_for_flags(og, 0, dst, 0, vl, CBIT), want);
                assert_eq!(p.out_slot(og, 0), p.in_slot(down, 0));
                checked += 1;
            }
        }
    }
    assert!(checked >= 2 * 16 * 2, "{checked}");
    // mode A: 1000 credits over 8 queues of 34-credit packets = 3 packets per queue
    let s = p.in_slot(leaf_in, 5);
    assert_eq!(p.cap(s), 3 * 34);
    assert_eq!(n.sw.in_cap[leaf_in as usize * 2], 8 * 3 * 34);
    // an HCA's receive buffer: one queue per VL, the whole VL
    let hs = p.in_slot(h, 1);
    assert_eq!(p.cap(hs), 1000);
}

#[test]
fn static_ddbbm_credits_follow_the_congestion_bit() {
    use crate::credit::packet::CBIT;
    let n = tree(&[
        "switch.queue_mapping=\"ddbbm\"",
        "switch.dbbm_queues=3",
        "switch.buffer_sharing=\"static\"",
        "switch.static_mode=\"per_queue\"",
        "switch.queue_bytes=\"8KiB\"",
    ]);
    let CreditKeeping::Partitioned(p) = &n.sw.credit_keeping else {
        panic!("static buffers keep credits per queue")
    };
    assert_eq!(n.sw.queue_scheme.queues_per_input(8, 2), 8);
    let og = n.hcas.hca_gport[5];
    let leaf_in = n.links.peer[og as usize];
    for dst in 0..16u32 {
        for vl in 0..2u8 {
            let plain = p.out_slot(og, ((dst % 3) * 2 + vl as u32) as u16);
            let dynamic = p.out_slot(og, (3 * 2 + vl as u32) as u16);
            assert_eq!(n.credit_slot_for(og, 5, dst, vl), plain);
            assert_eq!(n.credit_slot_for_flags(og, 5, dst, 0, vl, CBIT), dynamic);
            assert_eq!(
                n.downstream_counter(og, 5, dst, 0, vl, CBIT),
                3 * 2 + vl as u16
            );
        }
    }
    // mode B: 8 KiB of 64-B credits per queue, the 4 queues of a VL beyond the 1000 credits
    let s = p.in_slot(leaf_in, 7);
    assert_eq!(p.cap(s), 128);
    assert_eq!(n.sw.in_cap[leaf_in as usize * 2 + 1], 4 * 128);
    assert_eq!(
        n.links.credits[n.credit_slot_for_flags(og, 5, 4, 0, 1, CBIT)],
        128
    );
}

#[test]
fn dbbm_and_ddbbm_conserve_on_the_mesh_with_every_credit_keeping() {
    use super::dbbm::Dbbm;
    use super::ddbbm::Ddbbm;
    for scheme in [
        QueueScheme::Dbbm(Dbbm { queues: 2 }),
        QueueScheme::Ddbbm(Ddbbm { queues: 3 }),
    ] {
        for credits in [
            CreditKeepingKind::SharedPool,
            CreditKeepingKind::Partitioned(QueueSizing::Split),
            CreditKeepingKind::Partitioned(QueueSizing::Divided { min_packets: 1 }),
        ] {
            let n = run(UNIFORM, &["switch.vls=2"], scheme, credits);
            let heads: u32 = n.arb.req_heads.iter().map(|&h| h as u32).sum();
            let nonempty = n.sw.queues.iter().filter(|q| !q.is_empty()).count() as u32;
            assert_eq!(heads, nonempty, "{scheme:?} {credits:?}");
        }
    }
}

#[test]
fn static_voq_sw_looks_ahead_along_the_sources_up_port_with_s_mod_k() {
    use super::QueueQuery;
    use crate::credit::kind::AnySwitch;
    // S-mod-k (routing.dmodk_key = "source", drb spec B.6): a leaf sends a packet up by its
    // source's digit (4 + s mod 4), and the HCA's counter is the leaf's VOQ of that output
    let mut n = tree(&[
        "switch.queue_mapping=\"voq_sw\"",
        "switch.buffer_sharing=\"static\"",
        "routing.dmodk_key=\"source\"",
    ]);
    let mut differs = 0;
    for s in 0..16u32 {
        let g = n.hcas.hca_gport[s as usize];
        let leaf_in = n.links.peer[g as usize];
        let leaf = n.links.node_of[leaf_in as usize];
        for d in (0..16u32).filter(|d| d / 4 != s / 4) {
            let out = 4 + (s % 4) as u16;
            assert_eq!(n.route_out::<AnySwitch>(leaf, s, d, 0), out, "{s} → {d}");
            let q = QueueQuery {
                input: leaf_in,
                dst: d,
                out,
                vl: 0,
                cbit: false,
            };
            let want = n.sw.queue_scheme.queue_of(&q, n.vls);
            assert_eq!(
                n.downstream_counter(g, s, d, 0, 0, 0),
                want as u16,
                "{s} → {d}"
            );
            // the destination's table alone would send it up by d's digit
            differs += usize::from(n.routes.lft.out_port(leaf, d + 1) != out);
        }
    }
    assert_eq!(differs, 16 * 12 * 3 / 4);
    // it runs, and conserves packets and credits
    assert_eq!(n.run(false, &mut || false).unwrap(), None);
    assert!(n.engine.fault.is_none(), "{:?}", n.engine.fault);
    assert!(n.engine.deadlock.is_none());
    assert!(
        n.stats.delivered_packets > 50,
        "{}",
        n.stats.delivered_packets
    );
    n.check_conservation().unwrap();
    // one fixed route per pair: not with DRB's several
    let ov: Vec<String> = ["routing.dmodk_key=\"source\"", "drb.enabled=true"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let l = load_str(TREE, "t", std::path::Path::new("."), "t", &ov, None).unwrap();
    let e = Net::build_with(&l, &mut SetupProgress::hidden(), None)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("routing.dmodk_key") && e.contains("drb.enabled"),
        "{e}"
    );
}

/// A counter splits into the class and VL it was composed from, whether the VL count is a
/// power of two (shift and mask) or not (division).
#[test]
fn a_counter_splits_into_its_class_and_vl_for_every_vl_count() {
    for vls in 1..=16usize {
        for class in 0..300usize {
            for vl in 0..vls {
                let counter = (class * vls + vl) as u16;
                assert_eq!(
                    super::class_and_vl(counter, vls),
                    (class, vl),
                    "vls {vls} counter {counter}"
                );
            }
        }
    }
}
