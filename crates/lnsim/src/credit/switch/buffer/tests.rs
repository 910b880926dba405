//! The buffer organisations on tiny networks: the variants no scenario key selects yet
//! (VOQnet, credits partitioned per queue) run, conserve packets and credits, and show the
//! behaviour they exist for.

use super::one_queue::OneQueue;
use super::voq_net::VoqNet;
use super::voq_switch::VoqSwitch;
use super::{BufferChoice, CreditKeepingKind, QueueScheme, QueueSizing};
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
    let choice = BufferChoice { scheme, credits };
    let mut n = Net::build_with(&l, &mut SetupProgress::hidden(), Some(choice)).unwrap();
    assert_eq!(n.run(false, &mut || false).unwrap(), None);
    assert!(n.fault.is_none(), "{:?}", n.fault);
    assert!(n.deadlock.is_none());
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
    f.rx_bytes as f64 * 8.0 / (n.end as f64 / 1e12) / 1e9
}

const VOQ_SW: QueueScheme = QueueScheme::VoqSwitch(VoqSwitch);
const ONE_Q: QueueScheme = QueueScheme::OneQueue(OneQueue);
const VOQ_NET: QueueScheme = QueueScheme::VoqNet(VoqNet { destinations: 4 });

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
        assert_eq!(a.events, b.events);
        assert_eq!(a.flit_hops, b.flit_hops);
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
                let heads: u32 = n.req_heads.iter().map(|&h| h as u32).sum();
                let nonempty = n.queues.iter().filter(|q| !q.is_empty()).count() as u32;
                assert_eq!(heads, nonempty, "{scheme:?} {credits:?}");
            }
        }
    }
}
