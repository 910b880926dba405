//! Whole-network checks of the cycle-level model that need its internals: exact zero-load
//! latency per packet (Dragonfly spec §2.5) and the conservation check catching faults.

use super::mechanism::RoutingState;
use super::CycleNet;
use crate::config::load_str;
use crate::cycle::routing::dragonfly_paths as minimal;
use crate::topology::dragonfly::{Arrangement, DragonflyShape};

fn net(text: &str, over: &[&str]) -> CycleNet {
    let ov: Vec<String> = over.iter().map(|s| s.to_string()).collect();
    let l = load_str(text, "t", std::path::Path::new("."), "t", &ov, None).unwrap();
    CycleNet::new(&l).unwrap()
}

const DF: &str = "[sim]\nwarmup_cycles = 0\nmeasure_cycles = 40000\n[topology]\nkind = \"dragonfly\"\np = 2\n\
                  [routing]\nalgorithm = \"min\"\n[traffic]\npattern = \"uniform\"\nload = 0.0005\n";

/// Zero-load latency of a MIN path, computed from the topology alone: every router adds its
/// latency, every link its own, the tail adds L (spec §2.5 model).
fn min_latency(
    s: &DragonflyShape,
    src_r: u32,
    dst_r: u32,
    c: (u64, u64, u64, u64, u64, u64),
) -> u64 {
    let (d, l_lat, g_lat, inj, ej, len) = c;
    let mut r = src_r;
    let mut t = inj + d;
    while let Some(p) = minimal::next_port(s, r, dst_r) {
        t += if s.is_global_port(p) { g_lat } else { l_lat } + d;
        r = minimal::neighbour(s, r, p);
    }
    t + ej + len
}

#[test]
fn zero_load_latency_is_the_sum_of_router_and_link_latencies() {
    // odd injection/ejection latencies make sure both are counted exactly once
    for (inj, ej) in [(0u64, 0u64), (7, 3)] {
        let i = format!("router.injection_latency={inj}");
        let e = format!("router.ejection_latency={ej}");
        let mut n = net(DF, &[&i, &e]);
        n.stats.trace = Some(Vec::new());
        n.run(false, &mut || false).unwrap();
        let s = DragonflyShape::new(2, 4, 2, Arrangement::Palmtree).unwrap();
        let trace = n.stats.trace.take().unwrap();
        assert!(trace.len() > 20, "{} packets", trace.len());
        let (mut exact, mut worst) = (0, 0);
        for &(gen, done, src, dst, _) in &trace {
            let want = min_latency(&s, src / 2, dst / 2, (90, 15, 150, inj, ej, 10));
            let got = done - gen;
            assert!(got >= want, "packet {src}->{dst}: {got} < zero-load {want}");
            exact += u32::from(got == want);
            worst = worst.max(want);
        }
        // at this load almost no packet meets another
        assert!(
            exact as usize * 100 >= trace.len() * 95,
            "{exact} of {}",
            trace.len()
        );
        // the spec's worst case l g l: 4·90 + 2·15 + 150 + 10 = 550 (plus the terminal links)
        assert_eq!(worst, 550 + inj + ej);
    }
}

#[test]
fn zero_load_valiant_paths_match_the_spec_examples() {
    // spec §2.5: VLB lgl full path 1,000 cycles, VLB -g- full path 790
    for (policy, longest) in [("lgl", 1000u64), ("-g-", 790)] {
        let pol = format!("routing.vlb_policy=\"{policy}\"");
        let mut n = net(
            DF,
            &["routing.algorithm=\"vlb\"", &pol, "traffic.load=0.001"],
        );
        n.stats.trace = Some(Vec::new());
        n.run(false, &mut || false).unwrap();
        let trace = n.stats.trace.take().unwrap();
        let mut lat: Vec<u64> = trace.iter().map(|t| t.1 - t.0).collect();
        lat.sort_unstable();
        let mode_max = lat
            .iter()
            .rev()
            .find(|&&x| lat.iter().filter(|&&y| y == x).count() >= 3);
        assert_eq!(
            mode_max,
            Some(&longest),
            "{policy}: most frequent longest latency"
        );
        // hop counts: at most 6 router-to-router hops (lgl) or 4 (-g-)
        let max_hops = trace.iter().map(|t| t.4).max().unwrap();
        assert_eq!(max_hops, if policy == "lgl" { 6 } else { 4 });
    }
}

/// routers.csv's `delivered_load` counts each delivered packet at its *source* router: the
/// per-router sums are those of the packet trace grouped by source (warm-up 0: every delivery
/// is in the window).
#[test]
fn delivered_load_is_counted_at_the_source_router() {
    let mut n = net(DF, &["traffic.load=0.2", "sim.measure_cycles=4000"]);
    n.stats.trace = Some(Vec::new());
    n.run(false, &mut || false).unwrap();
    let trace = n.stats.trace.take().unwrap();
    let mut by_src = vec![0u64; n.k.routers as usize];
    let mut by_dst = vec![0u64; n.k.routers as usize];
    for &(_, _, src, dst, _) in &trace {
        by_src[(src / 2) as usize] += 10;
        by_dst[(dst / 2) as usize] += 10;
    }
    assert!(trace.len() > 1000, "{} packets", trace.len());
    assert_eq!(n.stats.router_sent, by_src);
    assert_ne!(
        by_src, by_dst,
        "the check must tell sources from destinations"
    );
}

#[test]
fn conservation_check_catches_a_created_credit_and_a_lost_packet() {
    let mut n = net(DF, &["traffic.load=0.6", "sim.measure_cycles=3000"]);
    n.run(false, &mut || false).unwrap();
    let c = n.check_conservation().unwrap();
    assert!(c.in_network > 0 && c.delivered > 0);
    // a credit out of nowhere
    let g = n
        .port
        .iter()
        .position(|p| matches!(p.kind, super::PortKind::Local | super::PortKind::Global))
        .unwrap();
    n.vout[g * n.k.vcs as usize].credits += 1;
    let e = n.check_conservation().unwrap_err().to_string();
    assert!(e.contains("credit conservation"), "{e}");
    n.vout[g * n.k.vcs as usize].credits -= 1;
    // a packet dropped from a queue
    let q =
        n.vc.iter()
            .position(|v| v.in_q.0 != super::packet::NIL)
            .expect("a queued packet");
    let mut head = n.vc[q].in_q;
    n.eng.pkts.pop(&mut head);
    n.vc[q].in_q = head;
    assert!(n.check_conservation().is_err());
}

/// Runs a scenario with packet tracing; `reference` wakes every router every cycle. The
/// records are sorted: routers run in another order within a cycle in the two modes, so the
/// deliveries of one cycle may be recorded in another order.
fn traced(text: &str, over: &[&str], reference: bool) -> Vec<super::results::TraceRecord> {
    let mut n = net(text, over);
    n.eng.always_wake = reference;
    n.stats.trace = Some(Vec::new());
    n.run(false, &mut || false).unwrap();
    let mut t = n.stats.trace.take().unwrap();
    t.sort_unstable();
    t
}

/// The wake-up events (output ready, crossbar ports free, buffer space, lost arbitration) must
/// give exactly the run of a router model that examines every router every cycle.
#[test]
fn wake_up_events_reproduce_the_every_cycle_reference() {
    let cases: &[&[&str]] = &[
        &["routing.algorithm=\"min\"", "traffic.load=0.5"],
        &[
            "routing.algorithm=\"vlb\"",
            "traffic.pattern=\"adv\"",
            "traffic.shift=1",
            "traffic.load=0.6",
        ],
        &[
            "routing.algorithm=\"ugal\"",
            "traffic.pattern=\"advc\"",
            "traffic.load=0.4",
        ],
        &[
            "routing.algorithm=\"pb\"",
            "traffic.pattern=\"adv\"",
            "traffic.shift=2",
            "traffic.load=0.3",
        ],
        &[
            "routing.algorithm=\"min\"",
            "traffic.load=0.3",
            "router.speedup=1",
            "router.allocator_iterations=2",
        ],
        // recomputation and ACOR re-route blocked injection heads every cycle
        &[
            "routing.algorithm=\"vlb\"",
            "routing.recompute=true",
            "traffic.pattern=\"adv\"",
            "traffic.shift=1",
            "traffic.load=0.6",
        ],
        &[
            "routing.algorithm=\"acor\"",
            "routing.acor.hysteresis_cycles=200",
            "traffic.pattern=\"adv\"",
            "traffic.shift=2",
            "traffic.load=0.4",
        ],
        &[
            "routing.algorithm=\"pb_acor\"",
            "routing.acor.variant=\"packet\"",
            "traffic.pattern=\"advc\"",
            "traffic.load=0.3",
        ],
        // TPR and LIAN count injection-queue arrivals and grants (spec §3.9, §3.10.1)
        &[
            "routing.algorithm=\"tpr\"",
            "traffic.pattern=\"adv\"",
            "traffic.shift=1",
            "traffic.load=0.3",
        ],
        &[
            "routing.algorithm=\"lian\"",
            "traffic.pattern=\"advc\"",
            "traffic.load=0.45",
        ],
        // output admission on credits: a credit's return wakes the allocator (an output
        // buffer larger than the downstream one, so the condition binds)
        &[
            "routing.algorithm=\"vlb\"",
            "routing.recompute=true",
            "router.output_admission=\"credits\"",
            "router.output_buffer_phits=3000",
            "traffic.pattern=\"adv\"",
            "traffic.shift=1",
            "traffic.load=0.6",
        ],
        // recomputation between the allocator's iterations
        &[
            "routing.algorithm=\"vlb\"",
            "routing.recompute=true",
            "router.allocator_iterations=3",
            "router.recompute_retry=\"next_iteration\"",
            "traffic.pattern=\"adv\"",
            "traffic.shift=1",
            "traffic.load=0.6",
        ],
        // PFC: PAUSE frames hold the reverse links, resume frames wake the outputs
        &[
            "router.flow_control=\"pfc\"",
            "routing.algorithm=\"min\"",
            "traffic.pattern=\"adv\"",
            "traffic.shift=1",
            "traffic.load=0.6",
        ],
        &[
            "router.flow_control=\"pfc\"",
            "routing.algorithm=\"ugal\"",
            "traffic.pattern=\"advc\"",
            "traffic.load=0.5",
        ],
    ];
    for case in cases {
        let mut over = vec!["sim.measure_cycles=6000", "sim.warmup_cycles=1000"];
        over.extend_from_slice(case);
        let ta = traced(DF, &over, false);
        assert!(ta.len() > 1000, "{case:?}: {} packets", ta.len());
        assert_eq!(
            ta,
            traced(DF, &over, true),
            "{case:?}: event-driven run differs from the reference"
        );
    }
    // the mesh router of the benchmark (1-cycle links, 3-cycle routers, tight buffers)
    let mesh = "[sim]\nwarmup_cycles = 0\nmeasure_cycles = 5000\n[topology]\nkind = \"mesh\"\ndims = [4, 4]\n\
                hcas_per_switch = 1\nport_numbering = \"dimension\"\n[routing]\nalgorithm = \"dor\"\n\
                [router]\nlatency = 3\nspeedup = 1\nlocal_latency = 1\ninjection_latency = 1\n\
                ejection_latency = 1\nlocal_vcs = 4\nlocal_buffer_phits = 8\noutput_buffer_phits = 8\n\
                injection_queue_phits = 100\n[traffic]\npacket_phits = 4\npattern = \"uniform\"\nload = 0.5\n";
    let ta = traced(mesh, &[], false);
    assert!(ta.len() > 1000);
    assert_eq!(
        ta,
        traced(mesh, &[], true),
        "mesh: event-driven run differs from the reference"
    );
}

/// Every Dragonfly size of the spec builds, channel-dependency check included: h = 2 (72
/// nodes) to h = 8 (16,512 nodes).
#[test]
fn dragonflies_from_72_to_16512_nodes_build() {
    for (p, routers, nodes) in [
        (2u32, 36u32, 72u32),
        (4, 264, 1056),
        (6, 876, 5256),
        (8, 2064, 16512),
    ] {
        let text = format!(
            "[sim]\nmeasure_cycles = 10\n[topology]\nkind = \"dragonfly\"\np = {p}\n\
             [routing]\nalgorithm = \"pb\"\n[traffic]\npattern = \"uniform\"\nload = 0.1\n"
        );
        let n = net(&text, &[]);
        assert_eq!((n.k.routers, n.k.terminals), (routers, nodes));
    }
}

/// The channel-dependency graph built from one line of walks per dimension holds exactly the
/// dependencies of the construction it replaced (every DOR path between every pair of routers,
/// walked hop by hop), and both find a cycle in the same cases: meshes and tori of 1 to 3
/// dimensions, odd and even sizes (the torus tie), DOR and Valiant, with and without dateline
/// classes, both port numberings, several VCs per class; and Dragonflies.
#[test]
fn channel_dependency_graph_matches_the_pairwise_construction() {
    use crate::cycle::routing::algorithm::Paths;
    use crate::cycle::routing::dependency_graph::{build, naive_edges};
    use crate::routing::channel_dependency::ChannelGraph;
    let mut cases: Vec<(String, Vec<String>, bool)> = Vec::new();
    let mesh = |kind: &str, dims: &str, alg: &str, vcs: u32, numbering: &str| {
        format!(
            "[sim]\nmeasure_cycles = 10\n[topology]\nkind = \"{kind}\"\ndims = {dims}\nhcas_per_switch = 1\n\
             port_numbering = \"{numbering}\"\n[routing]\nalgorithm = \"{alg}\"\n[router]\nlocal_vcs = {vcs}\n\
             [traffic]\npattern = \"uniform\"\nload = 0.1\n"
        )
    };
    for kind in ["mesh", "torus"] {
        for dims in [
            "[5]",
            "[2, 3]",
            "[4, 4]",
            "[3, 5]",
            "[1, 4]",
            "[2, 3, 4]",
            "[3, 3, 3]",
        ] {
            for (alg, classes) in [("dor", 1u32), ("vlb", 2)] {
                let c = classes * if kind == "torus" { 2 } else { 1 };
                for vcs in [c, 2 * c] {
                    let text = mesh(kind, dims, alg, vcs, "dimension");
                    // a torus without dateline classes (cyclic): the same routing with one class
                    cases.push((text.clone(), vec![], false));
                    if kind == "torus" {
                        cases.push((text, vec![], true));
                    }
                }
            }
        }
    }
    for dims in ["[3, 4]", "[4, 4]"] {
        for alg in ["dor", "vlb"] {
            cases.push((mesh("mesh", dims, alg, 2, "zeru"), vec![], false));
        }
    }
    for (alg, policy) in [
        ("min", "lgl"),
        ("vlb", "lgl"),
        ("ugal", "-g-"),
        ("pb", "lg-"),
    ] {
        let p = if alg == "min" {
            String::new()
        } else {
            format!("vlb_policy = \"{policy}\"\n")
        };
        let text = format!(
            "[sim]\nmeasure_cycles = 10\n[topology]\nkind = \"dragonfly\"\np = 2\n\
             [routing]\nalgorithm = \"{alg}\"\n{p}[traffic]\npattern = \"uniform\"\nload = 0.1\n"
        );
        cases.push((text, vec![], false));
    }
    let (mut cyclic, mut acyclic) = (0, 0);
    for (text, over, no_dateline) in &cases {
        let ov: Vec<&str> = over.iter().map(String::as_str).collect();
        let n = net(text, &ov);
        let mut routing = n.routing.clone();
        if *no_dateline {
            if let Paths::Mesh(m) = &mut routing.paths {
                m.dateline = false;
                m.classes /= 2;
            }
        }
        let (radix, vcs) = (n.k.radix, n.k.vcs);
        let link = |r: u32, p: u32| -> Option<(u32, u32)> {
            let g = (r * radix + p) as usize;
            matches!(
                n.port[g].kind,
                super::PortKind::Local | super::PortKind::Global
            )
            .then(|| n.split_gp(n.port[g].peer))
        };
        let fast = build(&routing, n.k.routers, radix, vcs, &link).unwrap();
        let want = naive_edges(&routing, n.k.routers, radix, vcs, &link);
        assert!(!want.is_empty());
        assert_eq!(
            fast.vc_edges(vcs),
            want,
            "{text} (no dateline: {no_dateline})"
        );
        let reference = ChannelGraph::from_edges(n.k.routers * radix * vcs, &want);
        let c = fast.find_cycle();
        assert_eq!(
            c.is_some(),
            reference.find_cycle().is_some(),
            "{text} (no dateline: {no_dateline})"
        );
        if c.is_some() {
            cyclic += 1;
        } else {
            acyclic += 1;
        }
    }
    // the tori without dateline classes whose rings are long enough to close a cycle
    assert!(
        cyclic >= 10 && acyclic >= 40,
        "{cyclic} cyclic, {acyclic} acyclic"
    );
}

/// A network of `over` on the h = 2 Dragonfly with no traffic generated yet, and packet
/// `id` from terminal 0 (router 0) to terminal `dst` placed at the head of terminal 0's
/// injection queue at cycle 1; returns (network, packet, its injection input port).
fn one_injection_head(over: &[&str], dst: u32) -> (CycleNet, u32, u32) {
    let mut n = net(DF, over);
    n.now = 1;
    let p = super::packet::Pkt {
        src: 0,
        gen: 0,
        t_net: 0,
    };
    let id = n.eng.pkts.alloc(p, dst);
    let gp = n.terms.gp[0];
    n.arrive(id, gp, 0);
    (n, id, gp)
}

/// Fills (or empties) every output buffer of router 0: no head can be granted.
fn block_router_0(n: &mut CycleNet, full: bool) {
    for gp in 0..n.k.radix {
        for v in 0..n.k.vcs {
            n.vout[(gp * n.k.vcs + v) as usize].used = if full { n.out_cap } else { 0 };
        }
    }
}

/// Runs router 0's allocator at the next cycle; returns whether it asked to run again.
fn allocate_router_0(n: &mut CycleNet) -> bool {
    n.now += 1;
    n.alloc_work[0] = 0;
    n.router_allocate::<false>(0);
    n.alloc_work[0] & 1 == 1
}

/// Recomputation (Dragonfly spec §3.4): a Valiant-routed injection head that takes part in
/// the allocation and is not granted (here: no room in any output buffer) drops its route and
/// is routed again at the next cycle with a new intermediate; without the key, or once
/// granted, or for a minimal route, nothing is recomputed.
#[test]
fn a_blocked_valiant_injection_head_draws_a_new_intermediate_each_cycle() {
    use crate::cycle::routing::candidates::NO_ROUTER;
    let head = |n: &CycleNet, gp: u32| n.vc[(gp * n.k.vcs) as usize];
    for recompute in [true, false] {
        let key = format!("routing.recompute={recompute}");
        let (mut n, id, gp) = one_injection_head(&["routing.algorithm=\"vlb\"", &key], 70);
        block_router_0(&mut n, true);
        let mut inters = std::collections::BTreeSet::new();
        for round in 1..=40u64 {
            let again = allocate_router_0(&mut n);
            let st = n.eng.pkts.link(id).st;
            assert_ne!(
                st.inter, NO_ROUTER,
                "an inter-group VLB packet has an intermediate"
            );
            inters.insert(st.inter);
            assert_eq!(head(&n, gp).in_q.0, id, "not granted");
            if recompute {
                assert!(again, "the allocator runs again next cycle");
                assert_eq!(head(&n, gp).head_route, super::route::NO_ROUTE);
                assert_eq!(n.stats.recomputations, round);
            } else {
                assert_ne!(head(&n, gp).head_route, super::route::NO_ROUTE);
                assert_eq!(n.stats.recomputations, 0);
            }
        }
        // 40 draws among the 32 routers of the other groups
        if recompute {
            assert!(inters.len() > 5, "{inters:?}");
        } else {
            assert_eq!(inters.len(), 1);
        }
        // room again: granted (routed once more first when its route was dropped), and its
        // intermediate is frozen once it left the injection buffer
        block_router_0(&mut n, false);
        let count = n.stats.recomputations;
        allocate_router_0(&mut n);
        assert_ne!(head(&n, gp).in_q.0, id, "granted");
        let inter = n.eng.pkts.link(id).st.inter;
        block_router_0(&mut n, true);
        for _ in 0..3 {
            allocate_router_0(&mut n);
        }
        assert_eq!(n.eng.pkts.link(id).st.inter, inter);
        assert_eq!(n.stats.recomputations, count);
    }
    // a packet to its own router goes minimally: blocked, it keeps its route
    let (mut n, id, gp) =
        one_injection_head(&["routing.algorithm=\"vlb\"", "routing.recompute=true"], 1);
    block_router_0(&mut n, true);
    allocate_router_0(&mut n);
    assert_eq!(n.eng.pkts.link(id).st.inter, NO_ROUTER);
    assert_eq!(head(&n, gp).in_q.0, id);
    assert_ne!(head(&n, gp).head_route, super::route::NO_ROUTE);
    assert_eq!(n.stats.recomputations, 0);
}

/// ACOR (Dragonfly spec §3.7) on a blocked injection head: ACOR-Switch counts each blocked
/// re-routing at the router and raises the router's level at IT1, and the next draw uses the
/// new level's policy; ACOR-Packet raises the packet's own level one step per blocked
/// re-routing, up to the last level.
#[test]
fn blocked_re_routings_raise_the_acor_level_of_the_router_or_the_packet() {
    use crate::cycle::routing::valiant::{path_class, PathClass};
    let shape = DragonflyShape::new(2, 4, 2, Arrangement::Palmtree).unwrap();
    // ACOR-Switch, 3L, IT1 = 3, IT2 = 4
    let (mut n, id, _) = one_injection_head(
        &[
            "routing.algorithm=\"acor\"",
            "routing.acor.it1=3",
            "routing.acor.it2=4",
        ],
        70,
    );
    block_router_0(&mut n, true);
    let class = |n: &CycleNet| {
        let mut st = n.eng.pkts.link(id).st;
        st.nonminimal = true;
        path_class(&shape, 0, &st)
    };
    let mut levels = vec![];
    for _ in 0..8 {
        allocate_router_0(&mut n);
        let now = n.now;
        let RoutingState::AcorSwitch(a, _) = &mut n.mech.state else {
            panic!("ACOR-Switch keeps router levels")
        };
        levels.push(a.level(0, now));
        // a level-1 draw is -g- (the landing router of one of router 0's own links)
        if n.eng.pkts.link(id).st.level == 1 {
            assert_eq!(class(&n), PathClass::DashGDash);
        }
    }
    // blocked re-routings 1, 2, 3 (IT1) → level 2; 4 more (IT2) → level 3
    assert_eq!(levels, [1, 1, 2, 2, 2, 2, 3, 3]);
    // the decision after the last rise used level 3 (lgl)
    allocate_router_0(&mut n);
    assert_eq!(n.eng.pkts.link(id).st.level, 3);
    // ACOR-Packet, 2L-B: the packet's level goes 1 → 2 and stays; no router state
    let (mut n, id, _) = one_injection_head(
        &[
            "routing.algorithm=\"acor\"",
            "routing.acor.variant=\"packet\"",
            "routing.acor.sequence=\"2L-B\"",
        ],
        70,
    );
    assert!(!matches!(n.mech.state, RoutingState::AcorSwitch(..)));
    block_router_0(&mut n, true);
    let mut levels = vec![];
    for _ in 0..3 {
        allocate_router_0(&mut n);
        levels.push(n.eng.pkts.link(id).st.level);
    }
    // blocked after each routing: raised before the next one
    assert_eq!(levels, [2, 2, 2]);
    assert_eq!(n.stats.recomputations, 3);
}

/// The Dragonfly `DF` run with `alg` under ADV+1 at full load (past saturation) for 4,000
/// measured cycles, with the counter observer (`stats.group_counters`) if `observe`.
fn saturated_adv1(alg: &str, observe: bool) -> CycleNet {
    let a = format!("routing.algorithm=\"{alg}\"");
    let mut over = vec![
        a.as_str(),
        "traffic.pattern=\"adv\"",
        "traffic.shift=1",
        "traffic.load=1.0",
        "sim.measure_cycles=4000",
    ];
    if observe {
        over.push("stats.group_counters=true");
    }
    let mut n = net(DF, &over);
    n.run(false, &mut || false).unwrap();
    n
}

/// TPR's and LIAN's counters follow the injection queues (Dragonfly spec §3.10.1): at the end
/// of a run past saturation, stor_i of every router is the number of packets for group i in
/// its terminal input buffers; the window holds injections, and they all leave it HW cycles
/// later.
#[test]
fn group_counters_follow_the_injection_queues() {
    use super::packet::NIL;
    use super::PortKind;
    for alg in ["tpr", "lian"] {
        let n = saturated_adv1(alg, false);
        let c = n.mech.counters().cloned().expect("counters");
        let groups = c.groups();
        let mut want = vec![0u32; (n.k.routers * groups) as usize];
        for gp in 0..n.port.len() as u32 {
            if n.port[gp as usize].kind != PortKind::Terminal {
                continue;
            }
            let r = gp / n.k.radix;
            for v in 0..n.k.vcs {
                let mut id = n.vc[(gp * n.k.vcs + v) as usize].in_q.0;
                while id != NIL {
                    let dst = n.terms.router[n.eng.pkts.link(id).dst as usize];
                    want[(r * groups + c.offset(r, dst)) as usize] += 1;
                    id = n.eng.pkts.link(id).next;
                }
            }
        }
        let mut stored = 0;
        for r in 0..n.k.routers {
            for o in 0..groups {
                assert_eq!(
                    c.stor(r, o),
                    want[(r * groups + o) as usize],
                    "{alg}: {r} {o}"
                );
                stored += c.stor(r, o);
            }
        }
        println!("{alg}: {stored} packets stored");
        assert!(stored > 50, "{alg}: {stored} stored: not saturated");
        let mut c = c;
        let (now, hw) = (n.now, c.params().window);
        let mut injected = 0;
        for r in 0..n.k.routers {
            c.expire(r, now);
            injected += (0..groups).map(|o| c.inj(r, o)).sum::<u32>();
        }
        assert!(injected > 100, "{alg}: {injected} in the window");
        for r in 0..n.k.routers {
            c.expire(r, now + hw);
            assert!((0..groups).all(|o| c.inj(r, o) == 0), "{alg}: router {r}");
        }
    }
}

/// The counter observer (`stats.group_counters`, Dragonfly spec §3.10, Fig 6-8) counts what
/// LIAN and TPR decide with: after a run past saturation its inj and stor equal the routing's
/// own for every router and group (LIAN: its values too, the parameters being LIAN's).
#[test]
fn the_counter_observer_follows_the_routings_counters() {
    for alg in ["lian", "tpr"] {
        let n = saturated_adv1(alg, true);
        let mut theirs = n.mech.counters().cloned().expect("counters");
        let mut ours = n.mech.observer.as_ref().expect("observer").counters.clone();
        let now = n.now;
        let mut stored = 0;
        for r in 0..n.k.routers {
            theirs.expire(r, now);
            ours.expire(r, now);
            for o in 0..theirs.groups() {
                assert_eq!(ours.inj(r, o), theirs.inj(r, o), "{alg}: {r} {o}");
                assert_eq!(ours.stor(r, o), theirs.stor(r, o), "{alg}: {r} {o}");
                if alg == "lian" {
                    assert_eq!(ours.value(r, o), theirs.value(r, o));
                }
                stored += ours.stor(r, o);
            }
        }
        assert!(stored > 50, "{alg}: {stored} stored: not saturated");
    }
}

/// `router.output_admission = "credits"` (FOGSim's reading of spec §2.1/§3.4): with output
/// buffers larger than the downstream input buffers the condition binds and changes the run
/// (no output VC ever queues more than its credits: a grant that did fails the run), and with
/// the Table 3-1 buffers under light load it never binds.
#[test]
fn output_admission_on_credits_holds_packets_at_their_input() {
    let base = [
        "routing.algorithm=\"vlb\"",
        "routing.recompute=true",
        "traffic.pattern=\"adv\"",
        "traffic.shift=1",
        "traffic.load=0.6",
        "router.output_buffer_phits=3000",
        "sim.measure_cycles=6000",
        "sim.warmup_cycles=1000",
    ];
    let with = |extra: &str| {
        let mut o = base.to_vec();
        o.push(extra);
        let mut n = net(DF, &o);
        n.stats.trace = Some(Vec::new());
        n.run(false, &mut || false).unwrap();
        assert!(n.eng.fault.is_none(), "{:?}", n.eng.fault);
        let recomp = n.stats.recomputations;
        let mut t = n.stats.trace.take().unwrap();
        t.sort_unstable();
        (t, recomp)
    };
    let (space, r_space) = with("router.output_admission=\"space\"");
    let (credits, r_credits) = with("router.output_admission=\"credits\"");
    assert!(space.len() > 1000);
    assert_ne!(space, credits, "the admission rule changed nothing");
    // (recomputations move too: blocked heads meet other outputs' states)
    assert_ne!(r_credits, r_space);
    // light load, Table 3-1 buffers: no output VC comes near its credits
    let light = [
        "routing.algorithm=\"min\"",
        "traffic.load=0.05",
        "sim.measure_cycles=4000",
    ];
    let run = |extra: &str| {
        let mut o = light.to_vec();
        o.push(extra);
        traced(DF, &o, false)
    };
    assert_eq!(
        run("router.output_admission=\"space\""),
        run("router.output_admission=\"credits\"")
    );
}

/// `router.recompute_retry = "next_iteration"`: a blocked injection head draws again between
/// the allocator's iterations, so with three iterations it recomputes more often than once
/// per cycle; with one iteration the two settings are the same run.
#[test]
fn recomputation_between_allocator_iterations() {
    let run = |extra: &[&str]| {
        let mut o = vec![
            "routing.algorithm=\"vlb\"",
            "routing.recompute=true",
            "traffic.pattern=\"adv\"",
            "traffic.shift=1",
            "traffic.load=0.6",
            "sim.measure_cycles=6000",
            "sim.warmup_cycles=1000",
        ];
        o.extend_from_slice(extra);
        let mut n = net(DF, &o);
        n.stats.trace = Some(Vec::new());
        n.run(false, &mut || false).unwrap();
        let mut t = n.stats.trace.take().unwrap();
        t.sort_unstable();
        (t, n.stats.recomputations)
    };
    let (c3, rc3) = run(&["router.allocator_iterations=3"]);
    let (i3, ri3) = run(&[
        "router.allocator_iterations=3",
        "router.recompute_retry=\"next_iteration\"",
    ]);
    assert!(ri3 > rc3, "{ri3} <= {rc3}");
    assert_ne!(c3, i3);
    let (c1, _) = run(&[]);
    let (i1, _) = run(&["router.recompute_retry=\"next_iteration\""]);
    assert_eq!(c1, i1);
}

/// Output admission on credits is a credit rule: under PFC (whose outputs keep their credits
/// full) it is refused, naming the key.
#[test]
fn output_admission_on_credits_needs_credit_flow_control() {
    let ov = vec![
        "router.output_admission=\"credits\"".to_string(),
        "router.flow_control=\"pfc\"".to_string(),
    ];
    let l = load_str(DF, "t", std::path::Path::new("."), "t", &ov, None).unwrap();
    let e = CycleNet::new(&l).err().expect("refused").to_string();
    assert!(e.contains("router.output_admission"), "{e}");
}
