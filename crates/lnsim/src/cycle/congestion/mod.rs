//! The congestion-management seam of the cycle-level wing, with the shape of the credit wing's
//! (`credit/cc/mod.rs`): the network calls the methods of [`CongestionManagement`] — and
//! nothing else of a mechanism — at these points, each a `match` whose `Off` arm is empty (or
//! gives the neutral answer), so without a mechanism the hooks compile to nothing; the tests
//! add a counting mechanism that checks they are called where they should be. QCN (IEEE
//! 802.1Qau, Dragonfly spec §3.12.1) is the mechanism: its congestion points (`qcn_cp.rs`) and
//! its reaction points at the nodes (`qcn_rp.rs`); its notifications travel as packets
//! (`cycle/cnm.rs`).
//!
//! | side | hook | called from | QCN / QCN-Switch (Dragonfly spec §3.11–§3.12) |
//! |---|---|---|---|
//! | switch | [`packet_enqueued`] | `link.rs` (a head joins an input VC), `allocator.rs` (a grant puts it in an output VC) | the congestion point counts the packet; every CPC-th it answers "sample now", and `cnm.rs` samples the buffer |
//! | switch | [`packet_dequeued`] | `allocator.rs` (a grant takes it out of its input VC), `link.rs` (it leaves its output VC on the link or to its terminal) | the queue shrinks |
//! | switch | [`cycle_ended`] | `run_loop.rs`, the end of every cycle | a buffer sampled on a timer (QCN-Switch's per-cycle view of its queues) |
//! | endpoint | [`notification_received`] | `link.rs`, a notification packet delivered to terminal `t` | the reaction point cuts the rate |
//! | endpoint | [`ready_at`] | `terminal.rs`, the injection decision (a packet waits, the link is free, credits allow) | when may terminal `t` inject: the rate limiter's next slot |
//! | endpoint | [`packet_sent`] | `terminal.rs`, a terminal put a packet on its link | the rate limiter's byte counter |
//!
//! Hooks get the buffer (`gp`, VC, side) and its occupancy after the change in phits, or the
//! terminal and the cycle; a mechanism changes the network only through what a hook returns.
//!
//! ## To add a mechanism
//! Write `cycle/congestion/<name>.rs` with its state and
//! one method per hook it uses; add a variant to [`CongestionManagement`] and an arm to each
//! hook it uses; build it in [`CongestionManagement::build`] from its keys: this file and its
//! own. QCN's notifications travel as packets (`cycle/cnm.rs`), whose delivery calls
//! [`notification_received`].
//!
//! [`packet_enqueued`]: CongestionManagement::packet_enqueued
//! [`packet_dequeued`]: CongestionManagement::packet_dequeued
//! [`cycle_ended`]: CongestionManagement::cycle_ended
//! [`notification_received`]: CongestionManagement::notification_received
//! [`ready_at`]: CongestionManagement::ready_at
//! [`packet_sent`]: CongestionManagement::packet_sent

pub(crate) mod qcn_cp;
pub(crate) mod qcn_rp;

use qcn_cp::CongestionPoints;
use qcn_rp::ReactionPoints;

/// QCN: the congestion points of the routers' transit ports, and the nodes' reaction points
/// when `qcn.reaction_point`.
#[derive(Debug)]
pub(crate) struct Qcn {
    /// The congestion points.
    pub cp: CongestionPoints,
    /// The reaction points (`None`: off, as in the thesis).
    pub rp: Option<ReactionPoints>,
}

/// Which buffer of a router port a packet joins or leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Side {
    /// The input buffer (a terminal port's: the router's injection queue).
    Input,
    /// The output buffer.
    Output,
}

/// The congestion management of a cycle-level network.
#[derive(Debug)]
pub(crate) enum CongestionManagement {
    /// None: every hook is empty, a terminal injects whenever its link and credits allow.
    Off,
    /// QCN (IEEE 802.1Qau, Dragonfly spec §3.12.1).
    Qcn(Box<Qcn>),
    /// Tests: counts every hook call and checks the invariants they must keep.
    #[cfg(test)]
    Counting(Box<tests::Counting>),
}

impl CongestionManagement {
    /// The mechanism a scenario selects: QCN when `qcn` is given, else none.
    pub fn build(qcn: Option<Qcn>) -> Self {
        match qcn {
            Some(q) => CongestionManagement::Qcn(Box::new(q)),
            None => CongestionManagement::Off,
        }
    }

    /// QCN, when it runs.
    #[inline(always)]
    pub fn qcn(&self) -> Option<&Qcn> {
        match self {
            CongestionManagement::Qcn(q) => Some(q),
            _ => None,
        }
    }

    /// QCN, when it runs, to change.
    #[inline(always)]
    pub fn qcn_mut(&mut self) -> Option<&mut Qcn> {
        match self {
            CongestionManagement::Qcn(q) => Some(q),
            _ => None,
        }
    }

    /// Switch side: a packet joined buffer `side` of port `gp`, VC `vc`, at cycle `now`; the
    /// VC now holds `phits` phits and its port's side `packets` packets. True when the buffer
    /// is to be sampled now (QCN's congestion point: `cnm.rs` samples it).
    #[inline(always)]
    #[must_use]
    pub fn packet_enqueued(
        &mut self,
        side: Side,
        (gp, vc): (u32, u32),
        phits: u32,
        packets: u32,
        now: u64,
    ) -> bool {
        let _ = (phits, packets);
        match self {
            CongestionManagement::Off => false,
            CongestionManagement::Qcn(q) => q.cp.entered(side, gp, vc, now),
            #[cfg(test)]
            CongestionManagement::Counting(c) => {
                c.changed(side, gp, vc, phits, packets, 1);
                false
            }
        }
    }

    /// Switch side: a packet left buffer `side` of port `gp`, VC `vc`, at cycle `now`; the VC
    /// now holds `phits` phits and its port's side `packets` packets. True when the buffer is
    /// to be sampled now (QCN's `cycles` clock).
    #[inline(always)]
    #[must_use]
    pub fn packet_dequeued(
        &mut self,
        side: Side,
        (gp, vc): (u32, u32),
        phits: u32,
        packets: u32,
        now: u64,
    ) -> bool {
        let _ = (side, gp, vc, phits, packets, now);
        match self {
            CongestionManagement::Off => false,
            CongestionManagement::Qcn(q) => q.cp.left(side, gp, vc, phits, now),
            #[cfg(test)]
            CongestionManagement::Counting(c) => {
                c.changed(side, gp, vc, phits, packets, -1);
                false
            }
        }
    }

    /// Switch side: cycle `now` ended (the buffers may be sampled).
    #[inline(always)]
    pub fn cycle_ended(&mut self, now: u64) {
        match self {
            CongestionManagement::Off | CongestionManagement::Qcn(_) => {}
            #[cfg(test)]
            CongestionManagement::Counting(c) => c.cycle_ended(now),
        }
        let _ = now;
    }

    /// Endpoint side: terminal `t` received a congestion notification with feedback `fb` at
    /// cycle `now`.
    #[inline]
    pub fn notification_received(&mut self, t: u32, fb: u8, now: u64) {
        match self {
            CongestionManagement::Qcn(q) => {
                if let Some(rp) = q.rp.as_mut() {
                    rp.notify(t, fb, now);
                }
            }
            CongestionManagement::Off => {}
            #[cfg(test)]
            CongestionManagement::Counting(_) => {}
        }
    }

    /// Endpoint side, the injection decision: terminal `t` has a packet, a free link and the
    /// credits at cycle `now`: the first cycle (≥ now) it may inject (`now`: at once).
    #[inline(always)]
    pub fn ready_at(&mut self, t: u32, now: u64) -> u64 {
        match self {
            CongestionManagement::Off => {
                let _ = t;
                now
            }
            CongestionManagement::Qcn(q) => match q.rp.as_mut() {
                Some(rp) => rp.ready_at(t, now),
                None => now,
            },
            #[cfg(test)]
            CongestionManagement::Counting(c) => c.ready_at(t, now),
        }
    }

    /// Endpoint side: terminal `t` put a packet on its link at cycle `now`.
    #[inline(always)]
    pub fn packet_sent(&mut self, t: u32, now: u64) {
        match self {
            CongestionManagement::Off => {}
            CongestionManagement::Qcn(q) => {
                if let Some(rp) = q.rp.as_mut() {
                    rp.sent(t, now);
                }
            }
            #[cfg(test)]
            CongestionManagement::Counting(c) => c.packet_sent(t, now),
        }
        let _ = (t, now);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{CongestionManagement, Side};
    use crate::config::load_str;
    use crate::cycle::CycleNet;

    /// A test mechanism: tallies every hook and checks, at each call, that the hooks saw
    /// every packet that joined and left each buffer (its own count of a port side equals the
    /// port's), that every injection followed a decision allowing it, and — when `pace` — that
    /// terminals inject on even cycles only (the decision is obeyed).
    #[derive(Debug, Default)]
    pub(crate) struct Counting {
        /// Per (side, gp): packets enqueued − dequeued as the hooks saw them.
        held: std::collections::HashMap<(Side, u32), i64>,
        /// Per (side, gp, vc): phits as the hooks saw them.
        phits: std::collections::HashMap<(Side, u32, u32), i64>,
        pub enqueued: u64,
        pub dequeued: u64,
        pub cycles: u64,
        pub decisions: u64,
        pub sent: u64,
        /// Per terminal: the cycle of its last allowing decision.
        allowed: std::collections::HashMap<u32, u64>,
        /// Allow injections on even cycles only.
        pub pace: bool,
        /// Packet size (phits), for the phit tally.
        pub pkt_phits: u32,
        last_cycle: Option<u64>,
    }

    impl Counting {
        /// A packet joined (`d` = 1) or left (−1) a buffer: tallied and checked.
        pub(super) fn changed(
            &mut self,
            side: Side,
            gp: u32,
            vc: u32,
            phits: u32,
            packets: u32,
            d: i64,
        ) {
            if d > 0 {
                self.enqueued += 1;
            } else {
                self.dequeued += 1;
            }
            let h = self.held.entry((side, gp)).or_default();
            *h += d;
            assert_eq!(
                *h, packets as i64,
                "{side:?} buffer of port {gp}: hooks missed a packet"
            );
            let p = self.phits.entry((side, gp, vc)).or_default();
            *p += d * self.pkt_phits as i64;
            // an output VC's count includes the packet still leaving on the link
            assert_eq!(
                *p, phits as i64,
                "{side:?} buffer of port {gp} VC {vc}: phits by the hooks and held"
            );
        }

        /// The end of a cycle: each seen once, in order.
        pub(super) fn cycle_ended(&mut self, now: u64) {
            assert_eq!(
                self.last_cycle.map_or(0, |c| c + 1),
                now,
                "a cycle end missed"
            );
            self.last_cycle = Some(now);
            self.cycles += 1;
        }

        /// The injection decision: allowed now (or, when pacing, on the next even cycle).
        pub(super) fn ready_at(&mut self, t: u32, now: u64) -> u64 {
            self.decisions += 1;
            let at = if self.pace { now + (now & 1) } else { now };
            if at == now {
                self.allowed.insert(t, now);
            }
            at
        }

        /// An injection: it must follow an allowing decision of the same cycle.
        pub(super) fn packet_sent(&mut self, t: u32, now: u64) {
            self.sent += 1;
            assert_eq!(
                self.allowed.remove(&t),
                Some(now),
                "terminal {t} injected at cycle {now} without a decision allowing it"
            );
        }

        /// At the end of a run: the hooks' count of every port side equals what it holds.
        pub fn check_buffers(&self, net: &CycleNet) {
            for (gp, p) in net.port.iter().enumerate() {
                let get = |s| self.held.get(&(s, gp as u32)).copied().unwrap_or(0);
                assert_eq!(get(Side::Input), p.in_count as i64, "input of port {gp}");
                assert_eq!(get(Side::Output), p.out_count as i64, "output of port {gp}");
            }
        }
    }

    fn counting(n: &CycleNet) -> &Counting {
        match &n.cm {
            CongestionManagement::Counting(c) => c,
            _ => panic!("the counting mechanism"),
        }
    }

    /// Runs a short Dragonfly (UGAL, the router's allocator iterated) and a mesh with the
    /// counting mechanism (`pace`: injections on even cycles only).
    fn run_counting(toml: &str, pace: bool) -> CycleNet {
        let l = load_str(toml, "t", std::path::Path::new("."), "t", &[], None).unwrap();
        let mut n = CycleNet::new(&l).unwrap();
        n.k.cm_on = true;
        n.cm = CongestionManagement::Counting(Box::new(Counting {
            pace,
            pkt_phits: n.k.pkt_phits,
            ..Default::default()
        }));
        n.run(false, &mut || false).unwrap();
        n
    }

    const DRAGONFLY: &str = r#"
[sim]
model = "cycle"
warmup_cycles = 300
measure_cycles = 700
[topology]
kind = "dragonfly"
p = 2
[routing]
algorithm = "ugal"
[traffic]
pattern = "uniform"
load = 0.6
"#;

    const MESH: &str = r#"
[sim]
model = "cycle"
warmup_cycles = 0
measure_cycles = 800
[topology]
kind = "mesh"
dims = [4, 4]
hcas_per_switch = 1
[routing]
algorithm = "dor"
[traffic]
pattern = "uniform"
load = 0.4
"#;

    /// Every packet that joins or leaves an input or output buffer passes through the switch
    /// hooks (the hooks' tally of each port equals what it holds, at every change and at the
    /// end), every cycle end is seen once, and every injection follows a decision allowing it.
    #[test]
    fn congestion_hooks_see_every_buffer_change_and_injection() {
        for toml in [DRAGONFLY, MESH] {
            let n = run_counting(toml, false);
            let c = counting(&n);
            c.check_buffers(&n);
            assert_eq!(c.cycles, n.now, "one cycle end per cycle");
            assert!(c.enqueued > 1000 && c.dequeued > 1000, "{c:?}");
            assert!(c.sent > 100 && c.decisions >= c.sent);
            assert_eq!(c.sent, n.stats.total_injected, "a decision per injection");
        }
    }

    /// The injection decision is obeyed: a mechanism allowing even cycles only delays
    /// injections (every one still follows an allowing decision) and lowers what a saturated
    /// network accepts.
    #[test]
    fn the_injection_decision_paces_the_terminals() {
        let free = run_counting(DRAGONFLY, false);
        let paced = run_counting(DRAGONFLY, true);
        let c = counting(&paced);
        c.check_buffers(&paced);
        assert!(c.decisions > c.sent, "some decisions deferred");
        assert!(paced.stats.total_injected < free.stats.total_injected);
    }
}
