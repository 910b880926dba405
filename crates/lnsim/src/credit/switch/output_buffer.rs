//! Output buffers of the switch (drb-and-ddbbm spec B.5: "Buffers up to 1KB are modeled for
//! both the input and the output ports of every switch"; key `switch.output_buffer_credits`,
//! 0 = none: the input-buffered switch of `switch/mod.rs`, whose code paths are then untouched).
//!
//! With them a packet makes two moves inside a switch:
//!
//! 1. **crossbar** (the arbiter of [`super::arbiter`], unchanged but for the credit it checks):
//!    an output grants the head of an input queue when the crossbar input and output are both
//!    free (`max_being_sent`, `out_busy`) and the *output queue* the packet will join has room
//!    for the whole packet (internal credits, spec B.5: "the same scheme applies internally
//!    (input → output)"). The packet crosses at the crossbar rate (`switch.core_freq`, e.g.
//!    1.5× the link: spec B.5's speed-up); its head joins the output queue one credit time
//!    (plus `switch.input_delay`) after the grant ([`Ev::CrossbarArrive`]), its tail leaves
//!    the input buffer when it has crossed, and the input's credits go back upstream then
//!    ([`Ev::InputRelease`], as without output buffers).
//! 2. **link**: the output link serves its non-empty output queues whose downstream credits
//!    suffice, weighted round robin among the queues of a VL (spec B.5: "weighted round-robin
//!    among output queues"; `switch.output_weights`, packets per turn, default equal — plain
//!    round robin, the spec's \[A\] equal weights) after the IBA VL arbitration among VLs (its
//!    own state per port, [`OutputBuffers`]). Cut-through:
//!    a packet may start on the wire once its head is in the output buffer; its tail never
//!    leaves before it arrived. The output queue's space frees when the tail has left on the
//!    wire ([`Ev::OutputRelease`]), which lets the crossbar move the next packet in.
//!
//! **Queues.** An output buffer has one queue per credit counter of the input it drives (spec
//! B.2 implementation rules: output-port buffers use the downstream input port's queue
//! mapping): its VL with `switch.buffer_sharing = "shared"` (one FIFO per VL), each queue of
//! the next switch's input with `"static"` (the look-ahead queue, `Net::downstream_counter`),
//! its VL at an HCA. A VL's `switch.output_buffer_credits` are divided among its queues as the
//! inputs' are (`switch.static_mode`, [`QueueSizing`]); a queue under one packet is an error.
//!
//! **Congestion management.** DDBBM's detector lives at the destinations and sees no
//! difference. InfiniBand CC (`cc.enabled = true`) reads the *input* buffers' per-output fills
//! to decide congestion (spec §2.2.3); with output buffers most of the backlog would sit in
//! the output queues it does not read, so the combination is refused (exit 2) rather than run
//! with silently changed semantics.
//!
//! Memory: per switch port one queue, three counters and a round-robin pointer per downstream
//! credit counter, and per port and VL the packets left in the current WRR turn; nothing is
//! allocated per packet.

use crate::config::Ps;
use crate::credit::cc::switch_view;
use crate::credit::kind::{may, SwitchKind};
use crate::credit::packet::PacketQueue;
use crate::credit::switch::arbiter::vlarb_table;
use crate::credit::switch::buffer::{CreditKeeping, QueueSizing};
use crate::credit::switch::output_queue::OutQueue;
use crate::credit::switch::vl_arbitration::{arbitrate_in, VlArbState};
use crate::credit::{Ev, Net};
use crate::error::{Error, Result};

/// The output buffers of every switch port and the state of their links (spec B.5).
#[derive(Debug, Clone)]
pub struct OutputBuffers {
    /// Per gport: its first output queue (`u32::MAX` at an HCA's port).
    base: Vec<u32>,
    /// Per gport: queues per VL (the classes of the counters of the input it drives).
    classes: Vec<u32>,
    /// Per output queue: its packets, space, credits held and share, in one record.
    oq: Vec<OutQueue>,
    /// `[gport * vls + vl]`: non-empty queues of the VL (lets the link skip idle VLs).
    nonempty: Vec<u32>,
    /// `[gport * vls + vl]`: class of the queue served last (round robin within the VL).
    rr: Vec<u32>,
    /// `[gport * vls + vl]`: packets the class `rr` may still send in its WRR turn (always 0
    /// with equal weights: plain round robin).
    left: Vec<u32>,
    /// Per class (queue of a VL): its WRR weight in packets (`switch.output_weights`; all 1
    /// by default). A port with fewer classes uses the first ones.
    weights: Vec<u32>,
    /// `[(gport * vls + vl) * words + w]`: bit `class` set while that output queue has a head
    /// whose downstream credits suffice (what the link's round robin looks for; one queue per
    /// downstream counter, so a change of credits or head touches one bit: `Net::link_refresh`).
    sendable: Vec<u64>,
    /// Words per entry of `sendable` and `room`: `ceil(most classes of a port / 64)`.
    words: usize,
    /// Laid out as `sendable`: bit `class` set while that output queue has space (at least one
    /// credit) for the crossbar, at ports with several classes per VL. Every packet takes at
    /// least one credit, so a clear bit means no head bound for that queue fits: the
    /// crossbar's arbiter skips those heads without reading them (`Net::head_for_output`).
    room: Vec<u64>,
    /// Per gport: the link is sending a packet.
    link_busy: Vec<bool>,
    /// Per gport: VL arbitration state of the link (the crossbar keeps `Net::vlarb`).
    vlarb: Vec<VlArbState>,
    /// Data VLs.
    vls: usize,
}

impl OutputBuffers {
    /// The fills the congestion management may read (the DRB paper's port monitor with
    /// `cc.mark_buffer = "output"`: credits held and capacity per output queue).
    pub fn fill_parts(&self) -> crate::credit::cc::OutputFill<'_> {
        crate::credit::cc::OutputFill {
            base: &self.base,
            classes: &self.classes,
            queues: &self.oq,
        }
    }

    /// Output buffers of `vl_credits` credits per port and VL at every switch port
    /// (`is_switch`), one queue per credit counter of the input each port drives: the VLs
    /// with a shared pool, the counters of `keeping` with credits per queue, sized by
    /// `sizing` (switch inputs) or whole (an HCA's VLs); their link serves them with
    /// `weights` (spec B.5 WRR, one per queue of a VL; None: 1 each). Refuses a queue under
    /// one packet of `pkt_credits`, and a weight list whose length is not the most queues per
    /// VL of an output port or with a weight outside 1–255.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        vl_credits: u32,
        keeping: &CreditKeeping,
        sizing: Option<QueueSizing>,
        is_switch: &[bool],
        peer: &[u32],
        vls: usize,
        pkt_credits: u32,
        weights: Option<&[u32]>,
    ) -> Result<Self> {
        let np = peer.len();
        let mut ob = OutputBuffers {
            base: vec![u32::MAX; np],
            classes: vec![0; np],
            oq: Vec::new(),
            nonempty: vec![0; np * vls],
            rr: vec![0; np * vls],
            left: vec![0; np * vls],
            weights: Vec::new(),
            sendable: Vec::new(),
            words: 1,
            room: Vec::new(),
            link_busy: vec![false; np],
            vlarb: vec![VlArbState::default(); np],
            vls,
        };
        for g in 0..np {
            if !is_switch[g] {
                continue;
            }
            let d = peer[g];
            let counters = match keeping {
                CreditKeeping::SharedPool(_) => vls,
                CreditKeeping::Partitioned(p) => p.in_slots(d).len(),
            };
            let classes = (counters / vls).max(1) as u32;
            let share = match sizing {
                Some(s) if is_switch[d as usize] => s.share(vl_credits, classes, pkt_credits),
                _ => (vl_credits >= pkt_credits).then_some(vl_credits),
            };
            let Some(share) = share else {
                return Err(Error::input(
                    "switch.output_buffer_credits",
                    format!(
                        "{vl_credits} credits per VL split over {classes} output queues leave {} per queue, less than one {pkt_credits}-credit packet; allowed: 0 (no output buffers) or enough for one packet per queue",
                        vl_credits / classes
                    ),
                ));
            };
            if ob.oq.len() + counters > u32::MAX as usize {
                return Err(Error::input(
                    "switch.output_buffer_credits",
                    "too many output queues in the network",
                ));
            }
            ob.base[g] = ob.oq.len() as u32;
            ob.classes[g] = classes;
            // the last class of every VL was served last: class 0 goes first
            ob.rr[g * vls..(g + 1) * vls].fill(classes - 1);
            for _ in 0..counters {
                ob.oq.push(OutQueue {
                    queue: PacketQueue::default(),
                    space: share,
                    used: 0,
                    cap: share,
                });
            }
        }
        let most = ob.classes.iter().copied().max().unwrap_or(1) as usize;
        ob.weights = output_weights(weights, &ob.classes, is_switch, peer, most)?;
        ob.words = most.div_ceil(64).max(1);
        ob.sendable = vec![0; np * vls * ob.words];
        ob.room = vec![0; np * vls * ob.words];
        for g in 0..np {
            for c in ob.slots(g as u32) {
                ob.set_room(g as u32, (c - ob.base[g] as usize) as u16);
            }
        }
        Ok(ob)
    }

    /// One line for `lnsim validate`: the output links' WRR weights (spec B.5).
    pub fn describe_weights(&self) -> String {
        let w: Vec<String> = self.weights.iter().map(|w| w.to_string()).collect();
        format!(
            "weighted round robin among the output queues of a VL (spec B.5), weights [{}] packets per turn",
            w.join(", ")
        )
    }

    /// Word `w` of the classes of output `og` on `vl` whose output queue has space for the
    /// crossbar (bit `class`; a port with one queue per VL answers for all classes at once;
    /// words beyond the port's answer all ones). Where the queue a head joins is its own
    /// class (schemes whose queue depends only on the destination and the congestion bit)
    /// a clear bit means that head cannot fit.
    #[inline(always)]
    pub fn room_word(&self, og: u32, vl: u8, w: usize) -> u64 {
        let g = og as usize;
        if self.classes[g] == 1 {
            let s = self.base[g] as usize + vl as usize;
            return if self.oq[s].space > 0 { !0 } else { 0 };
        }
        if w >= self.words {
            return !0;
        }
        self.room[(g * self.vls + vl as usize) * self.words + w]
    }

    /// Refreshes the `room` bit of output queue `counter` of `og` from its space.
    #[inline(always)]
    fn set_room(&mut self, og: u32, counter: u16) {
        let g = og as usize;
        if self.classes[g] <= 1 {
            return;
        }
        let (class, vl) = crate::credit::switch::buffer::class_and_vl(counter, self.vls);
        let i = (g * self.vls + vl) * self.words + (class >> 6);
        let bit = 1u64 << (class & 63);
        if self.oq[self.base[g] as usize + counter as usize].space > 0 {
            self.room[i] |= bit;
        } else {
            self.room[i] &= !bit;
        }
    }

    /// The packet at the head of output queue `s` (None when empty or `s` is out of range).
    #[inline(always)]
    pub fn head(&self, s: usize) -> Option<u32> {
        self.oq.get(s).and_then(|q| q.queue.front())
    }

    /// Prefetch hint for the `room` bits of output `og`.
    #[inline(always)]
    pub fn prefetch_room(&self, og: u32) {
        crate::credit::prefetch::prefetch(&self.room, og as usize * self.vls * self.words);
    }

    /// Prefetch hint for output queue `s`.
    #[inline(always)]
    pub fn prefetch(&self, s: usize) {
        crate::credit::prefetch::prefetch(&self.oq, s);
    }

    /// Number of output queues of the network.
    pub fn len(&self) -> usize {
        self.oq.len()
    }

    /// True when no port has an output buffer.
    pub fn is_empty(&self) -> bool {
        self.oq.is_empty()
    }

    /// Credits the crossbar may still move into output queue `s` (the arbiter's check, tests
    /// and statistics).
    #[inline(always)]
    pub fn space(&self, s: usize) -> u32 {
        self.oq[s].space
    }

    /// Credits held in output queue `s` (queued or leaving on the wire).
    pub fn used(&self, s: usize) -> u32 {
        self.oq[s].used
    }

    /// The share of output queue `s`.
    pub fn cap(&self, s: usize) -> u32 {
        self.oq[s].cap
    }

    /// The output queue of gport `og` for downstream counter `counter`.
    #[inline(always)]
    pub fn slot(&self, og: u32, counter: u16) -> usize {
        self.base[og as usize] as usize + counter as usize
    }

    /// The output queues of gport `og` (empty at an HCA's port).
    pub fn slots(&self, og: u32) -> std::ops::Range<usize> {
        let b = self.base[og as usize];
        if b == u32::MAX {
            return 0..0;
        }
        let n = self.classes[og as usize] as usize * self.vls;
        b as usize..b as usize + n
    }

    /// The packets waiting in all output queues.
    pub(crate) fn queues(&self) -> impl Iterator<Item = &PacketQueue> + '_ {
        self.oq.iter().map(|q| &q.queue)
    }
}

impl Net {
    /// The output buffers (only called where they exist).
    #[inline(always)]
    fn ob(&self) -> &OutputBuffers {
        self.sw.obuf.as_ref().expect("output buffers")
    }

    /// `(credits the crossbar may move, output queue)` for packet `pid`, at a switch input
    /// and bound for output `og`: the room the arbiter checks with output buffers (the queue
    /// of its downstream counter, recorded when its head arrived).
    #[inline(always)]
    pub(crate) fn output_room(&self, og: u32, pid: u32) -> (u32, usize) {
        let ob = self.ob();
        let s = ob.slot(og, self.pkts.down_counter(pid));
        (ob.oq[s].space, s)
    }

    /// The arbiter granted packet `pid` of input `ig` (credit counter `counter` there) to
    /// output `og`, whose output queue `slot` had room: the packet crosses the crossbar.
    #[inline(never)]
    pub(crate) fn cross_to_output(
        &mut self,
        og: u32,
        ig: u32,
        counter: u16,
        pid: u32,
        slot: usize,
        now: Ps,
    ) {
        let tm = self.links.timing[og as usize];
        let (bytes, credits, tail, out_port) = {
            let p = &self.pkts[pid];
            (p.bytes, p.credits, p.tail, p.out_port)
        };
        let ob = self.sw.obuf.as_mut().expect("output buffers");
        ob.oq[slot].space -= credits;
        let c = (slot - ob.base[og as usize] as usize) as u16;
        ob.set_room(og, c);
        let int_pkt = if bytes == self.pkt_bytes {
            tm.int_pkt
        } else {
            tm.internal.ser_ps(bytes as u64)
        };
        // the tail has crossed: after the crossbar moved the packet, never before it arrived
        let crossed = (now + int_pkt).max(tail + tm.int_credit);
        let release = crossed + self.sw.input_delay;
        // the crossbar output is free for the next packet once this one has crossed
        self.links.out_busy[og as usize] = true;
        if release == crossed {
            // both at once: one event (`Ev::CrossbarDone`), which finds `og` from `out_port`
            debug_assert_eq!(self.links.span[ig as usize].base + out_port as u32, og);
            self.at(
                release,
                Ev::CrossbarDone {
                    gport: ig,
                    counter,
                    out: out_port as u8,
                    credits,
                },
            );
        } else {
            self.at(
                release,
                Ev::InputRelease {
                    gport: ig,
                    counter,
                    out: out_port as u8,
                    credits,
                },
            );
            self.at(crossed, Ev::OutputReady { gport: og });
        }
        self.engine.last_progress = now;
        self.pkts[pid].tail = release; // its tail reaches the output buffer
        self.at(
            now + self.sw.input_delay + tm.int_credit,
            Ev::CrossbarArrive {
                pkt: pid,
                gport: og,
            },
        );
    }

    /// The head of `pid` reached the output buffer of `og`: it joins its output queue.
    pub(crate) fn output_arrive<K: SwitchKind>(&mut self, pid: u32, og: u32, now: Ps) {
        let vls = self.vls;
        let (vl, credits) = {
            let p = &self.pkts[pid];
            (p.vl, p.credits)
        };
        let s = self.ob().slot(og, self.pkts.down_counter(pid));
        let ob = self.sw.obuf.as_mut().expect("output buffers");
        let q = &mut ob.oq[s];
        q.used += credits;
        if q.used > q.cap {
            let (used, cap) = (q.used, q.cap);
            let name = self.port_name(og);
            self.fail(format!(
                "lossless violated: output queue {} of {name} holds {used} credits, its share is {cap}",
                s - ob_base(self, og)
            ));
            return;
        }
        let used = ob.oq[s].used;
        let was_empty = ob.oq[s].queue.is_empty();
        if was_empty {
            ob.nonempty[og as usize * vls + vl as usize] += 1;
        }
        self.pkts.push_back(&mut ob.oq[s].queue, pid);
        self.stats.out_buffer(s, now, used);
        if was_empty {
            let counter = (s - ob.base[og as usize] as usize) as u16;
            self.link_refresh::<K>(og, counter);
        }
        if !self.ob().link_busy[og as usize] {
            self.try_link::<K>(og, now);
        }
    }

    /// The link of output `og` starts its next packet if it is idle and one can go.
    ///
    /// Inlined into its callers: a busy link costs no call; the rest is out of line.
    #[inline(always)]
    pub(crate) fn try_link<K: SwitchKind>(&mut self, og: u32, now: Ps) {
        if self.ob().link_busy[og as usize] {
            return;
        }
        self.try_idle_link::<K>(og, now);
    }

    /// [`Net::try_link`] of an idle link.
    #[inline(never)]
    fn try_idle_link<K: SwitchKind>(&mut self, og: u32, now: Ps) {
        let vls = self.vls;
        if vls == 1 {
            if self.ob().nonempty[og as usize] > 0 {
                self.link_pick::<K>(og, 0, now);
            }
            return;
        }
        let r = og as usize * vls;
        if self.ob().nonempty[r..r + vls].iter().all(|&n| n == 0) {
            // nothing queued on any VL: the VL arbitration would find nothing and change nothing
            return;
        }
        let mut st = self.ob().vlarb[og as usize];
        arbitrate_in(self, vlarb_table, &mut st, |net, vl| {
            if net.ob().nonempty[og as usize * vls + vl as usize] == 0 {
                return None;
            }
            net.link_pick::<K>(og, vl, now)
        });
        self.sw.obuf.as_mut().expect("output buffers").vlarb[og as usize] = st;
    }

    /// Weighted round robin over the output queues of `og` on `vl` (spec B.5): the queue
    /// holding the turn keeps it for up to its weight in packets while its head finds its
    /// downstream credits; then the first such head after it takes the turn (the first
    /// `sendable` bit from the one after the last served). With equal weights: round robin.
    /// Sends that head; returns its bytes.
    fn link_pick<K: SwitchKind>(&mut self, og: u32, vl: u8, now: Ps) -> Option<u32> {
        let vls = self.vls;
        let r = og as usize * vls + vl as usize;
        let ob = self.ob();
        let classes = ob.classes[og as usize] as usize;
        let base = ob.base[og as usize] as usize;
        let bits = &ob.sendable[r * ob.words..(r + 1) * ob.words];
        let (class, left) = wrr_pick(bits, classes, ob.rr[r], ob.left[r], &ob.weights)?;
        let counter = (class as usize * vls + vl as usize) as u16;
        let s = base + counter as usize;
        let pid = ob.oq[s]
            .queue
            .front()
            .expect("a sendable output queue has a head");
        let cs = self.credit_slot_k::<K>(og, counter);
        debug_assert!(self.links.credits[cs] >= self.pkts[pid].credits);
        let ob = self.sw.obuf.as_mut().expect("output buffers");
        ob.rr[r] = class;
        ob.left[r] = left;
        Some(self.link_send::<K>(og, s, counter, pid, cs, now))
    }

    /// Sets or clears the `sendable` bit of output queue `counter` of `og` (switch ports only):
    /// its head, if any, finds enough downstream credits. Called whenever its head or its
    /// credits change.
    #[inline]
    pub(crate) fn link_refresh<K: SwitchKind>(&mut self, og: u32, counter: u16) {
        let vls = self.vls;
        let ob = self.ob();
        let s = ob.slot(og, counter);
        let fits = match ob.oq[s].queue.front() {
            Some(pid) => {
                self.links.credits[self.credit_slot_k::<K>(og, counter)] >= self.pkts[pid].credits
            }
            None => false,
        };
        let (class, vl) = crate::credit::switch::buffer::class_and_vl(counter, vls);
        let ob = self.sw.obuf.as_mut().expect("output buffers");
        let i = (og as usize * vls + vl) * ob.words + (class >> 6);
        let bit = 1u64 << (class & 63);
        if fits {
            ob.sendable[i] |= bit;
        } else {
            ob.sendable[i] &= !bit;
        }
    }

    /// Output `og` puts packet `pid`, head of output queue `s` (downstream counter
    /// `counter`), on the wire, taking its downstream credits from `credits[cs]`. Returns the
    /// packet's bytes.
    fn link_send<K: SwitchKind>(
        &mut self,
        og: u32,
        s: usize,
        counter: u16,
        pid: u32,
        cs: usize,
        now: Ps,
    ) -> u32 {
        let vls = self.vls;
        let ob = self.sw.obuf.as_mut().expect("output buffers");
        self.pkts.pop_front(&mut ob.oq[s].queue);
        let q = ob.oq[s].queue;
        let (bytes, credits, tail, vl) = {
            let p = &self.pkts[pid];
            (p.bytes, p.credits, p.tail, p.vl)
        };
        if q.is_empty() {
            ob.nonempty[og as usize * vls + vl as usize] -= 1;
        }
        ob.link_busy[og as usize] = true;
        self.links.credits[cs] -= credits;
        self.link_refresh::<K>(og, counter);
        if may(K::CONGESTION_MANAGEMENT) {
            self.cc
                .packet_forwarded(switch_view!(self), og, vl, &mut self.pkts[pid], now);
        }
        let tm = self.links.timing[og as usize];
        let ser_pkt = if bytes == self.pkt_bytes {
            tm.ser_pkt
        } else {
            tm.rate.ser_ps(bytes as u64)
        };
        let wire_start = (now + self.sw.output_delay).max(self.links.wire_free[og as usize]);
        // the tail leaves after it reached the output buffer
        let wire_end = (wire_start + ser_pkt).max(tail + self.sw.output_delay + tm.ser_credit);
        self.links.wire_free[og as usize] = wire_end;
        let ready = (wire_end - self.sw.output_delay).max(now);
        if ready == wire_end {
            // both at once: one event (`Ev::WireDone`)
            self.at(
                wire_end,
                Ev::WireDone {
                    gport: og,
                    counter,
                    credits,
                },
            );
        } else {
            self.at(ready, Ev::LinkReady { gport: og });
            self.at(
                wire_end,
                Ev::OutputRelease {
                    gport: og,
                    counter,
                    credits,
                },
            );
        }
        self.launch_downstream(og, tm, pid, credits, wire_start, wire_end, now);
        bytes
    }

    /// The link of `og` may start its next packet.
    pub(crate) fn link_ready<K: SwitchKind>(&mut self, og: u32, now: Ps) {
        self.sw.obuf.as_mut().expect("output buffers").link_busy[og as usize] = false;
        self.try_link::<K>(og, now);
    }

    /// The tail of a packet of `credits` left output queue `counter` of `og` on the wire: its
    /// space is free for the crossbar.
    pub(crate) fn output_release<K: SwitchKind>(
        &mut self,
        og: u32,
        counter: u16,
        credits: u32,
        now: Ps,
    ) {
        let ob = self.sw.obuf.as_mut().expect("output buffers");
        let s = ob.slot(og, counter);
        ob.oq[s].used -= credits;
        ob.oq[s].space += credits;
        ob.set_room(og, counter);
        let used = ob.oq[s].used;
        self.stats.out_buffer(s, now, used);
        self.output_gained_room(og);
        self.try_output::<K>(og, now);
    }

    /// End-of-run balance of every output queue: the credits the crossbar may move, plus those
    /// of packets crossing it, plus those held in the queue (queued, or leaving on the wire)
    /// equal its share; what it holds is its queued packets plus the tails still leaving.
    /// Returns the packets crossing the crossbar (alive, in no queue and on no wire).
    pub(crate) fn check_output_buffers(&self) -> Result<u64> {
        let Some(ob) = &self.sw.obuf else {
            return Ok(0);
        };
        let n = ob.len();
        let mut crossing = vec![0u64; n];
        let mut leaving = vec![0u64; n];
        let mut crossing_pkts = 0u64;
        self.engine.q.for_each(|_, ev| match *ev {
            Ev::CrossbarArrive { pkt, gport } => {
                let p = &self.pkts[pkt];
                let c = self.downstream_counter(gport, p.src, p.dst, p.path, p.vl, p.flags);
                crossing[ob.slot(gport, c)] += p.credits as u64;
                crossing_pkts += 1;
            }
            Ev::OutputRelease {
                gport,
                counter,
                credits,
            }
            | Ev::WireDone {
                gport,
                counter,
                credits,
            } => leaving[ob.slot(gport, counter)] += credits as u64,
            _ => {}
        });
        for g in 0..self.links.peer.len() as u32 {
            for s in ob.slots(g) {
                // the link's `sendable` bit agrees with the queue's head and credits
                let counter = (s - ob.base[g as usize] as usize) as u16;
                let fits = ob.oq[s].queue.front().is_some_and(|pid| {
                    self.links.credits[self.credit_slot(g, counter)] >= self.pkts[pid].credits
                });
                let (class, vl) = crate::credit::switch::buffer::class_and_vl(counter, ob.vls);
                let i = (g as usize * ob.vls + vl) * ob.words + (class >> 6);
                if (ob.sendable[i] >> (class & 63)) & 1 != fits as u64 {
                    return Err(Error::Internal(format!(
                        "output queue {counter} of {}: the link's sendable bit says {}, its head and credits say {fits}",
                        self.port_name(g),
                        !fits
                    )));
                }
                let q = &ob.oq[s];
                let queued = self.pkts.queue_credits(&q.queue);
                let held = q.used as u64;
                if held != queued + leaving[s]
                    || q.space as u64 + crossing[s] + held != q.cap as u64
                {
                    return Err(Error::Internal(format!(
                        "output buffer credit conservation violated on {} queue {}: {} free + {} crossing + {} held ({} queued + {} leaving) != share {}",
                        self.port_name(g),
                        s - ob.base[g as usize] as usize,
                        q.space,
                        crossing[s],
                        held,
                        queued,
                        leaving[s],
                        q.cap
                    )));
                }
            }
        }
        Ok(crossing_pkts)
    }

    /// With output buffers: what input head `pid` bound for output `o` waits for — None if
    /// its output queue has room or that queue's head is not blocked by a switch's buffer;
    /// else the downstream input buffer (`gport * vls + vl`) the queue's head waits for.
    pub(crate) fn output_waits_for(&self, o: u32, pid: u32) -> Option<u32> {
        let p = &self.pkts[pid];
        let (room, s) = self.output_room(o, pid);
        if room >= p.credits {
            return None;
        }
        let head = self.ob().oq[s].queue.front()?;
        let h = &self.pkts[head];
        let counter = (s - self.ob().base[o as usize] as usize) as u16;
        let down = self.links.peer[o as usize];
        let blocked = self.links.credits[self.credit_slot(o, counter)] < h.credits;
        (blocked && self.links.is_switch[down as usize])
            .then_some(down * self.vls as u32 + h.vl as u32)
    }
}

/// The WRR weights of the output queues of a VL (`switch.output_weights`, spec B.5: weighted
/// round robin among output queues, \[A\] equal weights): `weights`, checked, or all 1. The list
/// gives queue `i` of a VL its weight at every port; its length must be `most`, the most
/// queues per VL of an output port (`classes` per gport), and a port with fewer queues (towards
/// an HCA, or a smaller switch under `voq_sw`) uses the first ones.
fn output_weights(
    weights: Option<&[u32]>,
    classes: &[u32],
    is_switch: &[bool],
    peer: &[u32],
    most: usize,
) -> Result<Vec<u32>> {
    let Some(w) = weights else {
        return Ok(vec![1; most]);
    };
    if w.len() != most {
        // what the ports towards switches have, for the message
        let towards_switches: Vec<u32> = (0..classes.len())
            .filter(|&g| is_switch[g] && is_switch[peer[g] as usize])
            .map(|g| classes[g])
            .collect();
        let lo = towards_switches
            .iter()
            .copied()
            .min()
            .unwrap_or(most as u32);
        let range = if lo as usize == most {
            format!("{most}")
        } else {
            format!("{lo}–{most}")
        };
        return Err(Error::input(
            "switch.output_weights",
            format!(
                "{} weights for output ports with {range} queues per VL (the queues of the next switch's input with this switch.queue_mapping and switch.buffer_sharing): give {most}, one per queue (1 for one_queue or a shared buffer, the switch's ports for voq_sw, N for voq_net, Q for dbbm, Q + 1 for ddbbm); a port with fewer queues uses the first",
                w.len()
            ),
        ));
    }
    if let Some(&bad) = w.iter().find(|&&x| x == 0 || x > 255) {
        return Err(Error::input(
            "switch.output_weights",
            format!("weight {bad} outside 1–255 (packets per turn)"),
        ));
    }
    Ok(w.to_vec())
}

/// Whether bit `i` of `bits` is set.
#[inline(always)]
fn bit(bits: &[u64], i: usize) -> bool {
    (bits[i >> 6] >> (i & 63)) & 1 == 1
}

/// One weighted round-robin choice among `classes` queues (spec B.5), the ready ones set in
/// `bits`: the class `last` served last keeps the turn while it has `left` packets of it and is
/// ready; otherwise the first ready class after it (wrapping) takes the turn with its weight
/// (`weights[class]`, ≥ 1). Returns the class and the packets its turn has left, None when
/// none is ready. With all weights 1, `left` stays 0: plain round robin from `last + 1`.
#[inline]
fn wrr_pick(
    bits: &[u64],
    classes: usize,
    last: u32,
    left: u32,
    weights: &[u32],
) -> Option<(u32, u32)> {
    let last = last as usize;
    if left > 0 && bit(bits, last) {
        return Some((last as u32, left - 1));
    }
    let start = (last + 1) % classes;
    let c = first_bit(bits, start, classes).or_else(|| first_bit(bits, 0, start))?;
    Some((c, weights[c as usize] - 1))
}

/// The first set bit of `bits` in `from..to` (bit `i` is bit `i % 64` of word `i / 64`).
#[inline]
fn first_bit(bits: &[u64], from: usize, to: usize) -> Option<u32> {
    let mut w = from >> 6;
    while w << 6 < to {
        let mut b = bits[w];
        if w == from >> 6 {
            b &= !0u64 << (from & 63);
        }
        let end = to - (w << 6);
        if end < 64 {
            b &= (1u64 << end) - 1;
        }
        if b != 0 {
            return Some(((w << 6) as u32) | b.trailing_zeros());
        }
        w += 1;
    }
    None
}

/// First output queue of `og` (for messages).
fn ob_base(net: &Net, og: u32) -> usize {
    net.ob().base[og as usize] as usize
}

#[cfg(test)]
mod tests {
    //! Output buffers on one switch (two inputs feeding one output) and on a two-switch line:
    //! throughput, capacity under a blocked downstream, sizing per downstream queue,
    //! conservation, determinism, refusals.

    use crate::config::load_str;
    use crate::credit::Net;

    /// One switch SW11 with H111, H112 flooding H113 (2:1 on the output to H113).
    const FAN_IN: &str = r#"
[sim]
end_time = "200us"
warmup = "50us"
interval = "50us"
[topology]
kind = "mesh"
dims = [1, 1]
hcas_per_switch = 3
[switch]
buffer_credits = 16
[hca]
buffer_credits = 16
[traffic]
credit_bytes = "64B"
packet_bytes = "128B"
payload_bytes = "128B"
mtu_credits = 2
message_bytes = "128B"
[[traffic.flows]]
src = "H111"
dst = "H113"
[[traffic.flows]]
src = "H112"
dst = "H113"
"#;

    fn net(text: &str, ov: &[&str]) -> crate::error::Result<Net> {
        let ov: Vec<String> = ov.iter().map(|s| s.to_string()).collect();
        let l = load_str(text, "t", std::path::Path::new("."), "t", &ov, None)?;
        Net::new(&l)
    }

    /// Runs to the end; checks that no fault happened and packets and credits are conserved.
    fn run(text: &str, ov: &[&str]) -> Net {
        let mut n = net(text, ov).unwrap();
        assert_eq!(n.run(false, &mut || false).unwrap(), None);
        assert!(n.engine.fault.is_none(), "{:?}", n.engine.fault);
        assert!(n.engine.deadlock.is_none());
        n.check_conservation().unwrap();
        n
    }

    /// The gport of SW11's output to `hca`.
    fn out_to(n: &Net, hca: &str) -> u32 {
        let h = n.fabric.nodes.iter().position(|x| x.name == hca).unwrap();
        n.links.peer[n.links.port_base[h] as usize]
    }

    #[test]
    fn two_inputs_into_one_output_keep_its_throughput() {
        let off = run(FAN_IN, &[]);
        let on = run(FAN_IN, &["switch.output_buffer_credits=12"]);
        assert!(off.sw.obuf.is_none() && on.sw.obuf.is_some());
        let (a, b) = (off.stats.delivered_packets, on.stats.delivered_packets);
        assert!(a > 100, "{a}");
        // the output link is the bottleneck either way; the buffer only adds its packets of
        // slack at the start
        let d = (a as f64 - b as f64).abs() / a as f64;
        assert!(d < 0.01, "delivered without {a}, with output buffers {b}");
        // and it is full when the link, not the crossbar, is the bottleneck
        let ob = on.sw.obuf.as_ref().unwrap();
        let s = ob.slots(out_to(&on, "H113")).start;
        assert!(ob.used(s) > 0);
    }

    #[test]
    fn a_blocked_downstream_fills_the_output_buffer_to_its_capacity_and_no_further() {
        // H113's sink stops after 1 ns: its receive buffer, then SW11's output buffer towards
        // it, then the inputs fill
        let blocked = [
            "switch.output_buffer_credits=12",
            "hca.sink.drain_rate=\"100Gbps\"",
            "hca.sink.hiccup_off=\"1ns\"",
            "hca.sink.hiccup_on=\"10ms\"",
        ];
        let n = run(FAN_IN, &blocked);
        let ob = n.sw.obuf.as_ref().unwrap();
        let og = out_to(&n, "H113");
        let s = ob.slots(og);
        assert_eq!(s.len(), 1, "one queue per VL towards an HCA");
        let s = s.start;
        assert_eq!(ob.cap(s), 12);
        assert_eq!(ob.used(s), 12, "the output queue holds its share");
        assert_eq!(ob.space(s), 0);
        assert_eq!(n.pkts.queue_credits(&ob.oq[s].queue), 12);
        // no credits left towards H113; the inputs hold the rest of the backlog
        assert_eq!(n.links.credits[n.credit_slot(og, 0)], 0);
        for h in ["H111", "H112"] {
            let ig = n.links.peer[n.links.port_base
                [n.fabric.nodes.iter().position(|x| x.name == h).unwrap()]
                as usize];
            assert!(n.sw.in_used[ig as usize] > 0, "{h}'s input holds packets");
        }
        // other output queues stay empty
        for g in 0..n.links.peer.len() as u32 {
            for t in ob.slots(g) {
                if t != s {
                    assert_eq!(ob.used(t), 0);
                }
            }
        }
    }

    #[test]
    fn output_queues_follow_the_downstream_queues_and_are_sized_like_them() {
        // SW11 → SW12: with static VOQsw the output has one queue per queue of SW12's input
        let text = FAN_IN
            .replace("dims = [1, 1]", "dims = [1, 2]")
            .replace("H113", "H122");
        // 13 credits over SW12's 4 queues: mode A rounds 3.25 down to whole 2-credit packets
        // (at least one), "split" gives 3 credits each
        for (mode, per_queue) in [("divided", 2), ("split", 3)] {
            let static_mode = format!("switch.static_mode=\"{mode}\"");
            let ov = [
                "switch.queue_mapping=\"voq_sw\"",
                "switch.buffer_sharing=\"static\"",
                static_mode.as_str(),
                "switch.output_buffer_credits=13",
            ];
            let n = run(&text, &ov);
            assert_eq!(n.pkt_credits, 2);
            let ob = n.sw.obuf.as_ref().unwrap();
            let sw12 = n
                .fabric
                .nodes
                .iter()
                .position(|x| x.name == "SW12")
                .unwrap();
            let ports = n.fabric.nodes[sw12].ports.len();
            // SW11's port towards SW12
            let og = (0..n.links.peer.len() as u32)
                .find(|&g| {
                    n.links.is_switch[g as usize]
                        && n.links.node_of[g as usize] as usize != sw12
                        && n.links.node_of[n.links.peer[g as usize] as usize] as usize == sw12
                })
                .unwrap();
            let slots = ob.slots(og);
            assert_eq!(slots.len(), ports, "{mode}");
            for t in slots {
                assert_eq!(ob.cap(t), per_queue, "{mode}");
            }
            assert!(n.stats.delivered_packets > 0);
        }
    }

    #[test]
    fn runs_are_deterministic() {
        let ov = [
            "switch.output_buffer_credits=8",
            "switch.queue_mapping=\"one_queue\"",
        ];
        let a = run(FAN_IN, &ov);
        let b = run(FAN_IN, &ov);
        assert_eq!(a.engine.events, b.engine.events);
        assert_eq!(a.stats.delivered_packets, b.stats.delivered_packets);
        let rx = |n: &Net| {
            n.traffic
                .flows
                .iter()
                .map(|f| f.rx_bytes)
                .collect::<Vec<_>>()
        };
        assert_eq!(rx(&a), rx(&b));
    }

    #[test]
    fn the_conservation_check_catches_a_created_output_credit() {
        let mut n = run(FAN_IN, &["switch.output_buffer_credits=12"]);
        n.sw.obuf.as_mut().unwrap().oq[0].space += 1;
        let e = n.check_conservation().unwrap_err().to_string();
        assert!(e.contains("output buffer credit conservation"), "{e}");
    }

    #[test]
    fn the_end_of_run_check_catches_a_wrong_sendable_bit() {
        let mut n = run(FAN_IN, &["switch.output_buffer_credits=12"]);
        n.check_conservation().unwrap();
        let ob = n.sw.obuf.as_mut().unwrap();
        let g = (0..ob.base.len())
            .find(|&g| ob.base[g] != u32::MAX)
            .unwrap();
        ob.sendable[g * ob.vls * ob.words] ^= 1; // class 0, VL 0 of the first switch port
        let e = n.check_conservation().unwrap_err().to_string();
        assert!(e.contains("sendable bit"), "{e}");
    }

    #[test]
    fn the_conservation_check_catches_a_lost_output_packet() {
        let blocked = [
            "switch.output_buffer_credits=12",
            "hca.sink.drain_rate=\"100Gbps\"",
            "hca.sink.hiccup_off=\"1ns\"",
            "hca.sink.hiccup_on=\"10ms\"",
        ];
        let mut n = run(FAN_IN, &blocked);
        let s = {
            let ob = n.sw.obuf.as_ref().unwrap();
            (0..ob.len()).find(|&s| !ob.oq[s].queue.is_empty()).unwrap()
        };
        let mut q = n.sw.obuf.as_ref().unwrap().oq[s].queue;
        n.pkts.pop_front(&mut q);
        n.sw.obuf.as_mut().unwrap().oq[s].queue = q;
        assert!(n.check_conservation().is_err());
    }

    /// The bits of the ready classes.
    fn ready(classes: &[usize]) -> Vec<u64> {
        let mut b = vec![0u64; 3];
        for &c in classes {
            b[c >> 6] |= 1 << (c & 63);
        }
        b
    }

    #[test]
    fn wrr_serves_each_queue_its_weight_over_a_hand_built_sequence() {
        use super::wrr_pick;
        let w = [3, 1, 2];
        // (ready classes, the class the WRR must pick)
        let steps: &[(&[usize], u32)] = &[
            // all ready: class 0 first (the last class was served last), 3, 1, 2 packets a turn
            (&[0, 1, 2], 0),
            (&[0, 1, 2], 0),
            (&[0, 1, 2], 0),
            (&[0, 1, 2], 1),
            (&[0, 1, 2], 2),
            (&[0, 1, 2], 2),
            (&[0, 1, 2], 0),
            // class 0 loses its credits mid-turn: the turn passes on, and its rest is lost
            (&[1, 2], 1),
            (&[0, 2], 2),
            (&[0, 1, 2], 2),
            (&[0, 1, 2], 0),
            // the one ready class is served whatever its weight
            (&[1], 1),
            (&[1], 1),
            (&[1], 1),
            (&[], u32::MAX),
            (&[0, 1, 2], 2),
        ];
        let (mut last, mut left) = (2u32, 0u32);
        for (i, &(r, want)) in steps.iter().enumerate() {
            match wrr_pick(&ready(r), 3, last, left, &w) {
                Some((c, l)) => {
                    assert_eq!(c, want, "step {i}");
                    (last, left) = (c, l);
                }
                None => assert_eq!(want, u32::MAX, "step {i}"),
            }
        }
        // over a long run with every queue ready the service ratio is the weights'
        let mut served = [0u32; 3];
        let (mut last, mut left) = (2u32, 0u32);
        for _ in 0..600 {
            let (c, l) = wrr_pick(&ready(&[0, 1, 2]), 3, last, left, &w).unwrap();
            served[c as usize] += 1;
            (last, left) = (c, l);
        }
        assert_eq!(served, [300, 100, 200]);
    }

    #[test]
    fn wrr_with_equal_weights_is_round_robin_and_agrees_with_the_adapters() {
        use super::{first_bit, wrr_pick};
        use crate::credit::endpoint::adapter::Wrr;
        // pseudo-random ready sets over 1, 3 and 130 classes (across the 64-bit words)
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for classes in [1usize, 3, 130] {
            let equal = vec![1u32; classes];
            let weighted: Vec<u32> = (0..classes as u32).map(|c| 1 + c % 4).collect();
            let (mut rr, mut last, mut left) = (classes - 1, (classes - 1) as u32, 0u32);
            let mut wrr = Wrr::new(classes as u32);
            let (mut wlast, mut wleft) = ((classes - 1) as u32, 0u32);
            for _ in 0..5000 {
                let r: Vec<usize> = (0..classes).filter(|_| next() % 3 != 0).collect();
                let bits = ready(&r);
                // the round robin the link used before weights: first ready after the last
                let start = (rr + 1) % classes;
                let plain = first_bit(&bits, start, classes).or_else(|| first_bit(&bits, 0, start));
                let got = wrr_pick(&bits, classes, last, left, &equal);
                assert_eq!(got.map(|g| g.0), plain);
                if let Some((c, l)) = got {
                    assert_eq!(l, 0);
                    (rr, last, left) = (c as usize, c, l);
                }
                // with unequal weights it makes the choices of the Input Adapter's WRR
                let a = wrr.pick(
                    classes as u32,
                    |q| r.contains(&(q as usize)),
                    |q| weighted[q as usize],
                );
                let b = wrr_pick(&bits, classes, wlast, wleft, &weighted);
                assert_eq!(a, b.map(|g| g.0));
                if let Some((c, l)) = b {
                    (wlast, wleft) = (c, l);
                }
            }
        }
    }

    /// Two switches in a line, H111 and H112 on SW11 flooding H121 and H122 on SW12 through
    /// SW11's one output towards SW12 (2:1), DBBM with Q = 2: the two flows sit in different
    /// output queues of that port (destinations 2 and 3).
    fn line_two_queues() -> String {
        FAN_IN
            .replace("dims = [1, 1]", "dims = [1, 2]")
            .replace("hcas_per_switch = 3", "hcas_per_switch = 2")
            .replace(
                "src = \"H111\"\ndst = \"H113\"",
                "src = \"H111\"\ndst = \"H121\"",
            )
            .replace(
                "src = \"H112\"\ndst = \"H113\"",
                "src = \"H112\"\ndst = \"H122\"",
            )
    }

    const TWO_QUEUES: [&str; 5] = [
        "links.fabric.speed=\"SDR\"", // as fast as the hosts' links: the 2:1 bottleneck
        "switch.queue_mapping=\"dbbm\"",
        "switch.dbbm_queues=2",
        "switch.buffer_sharing=\"static\"",
        "switch.output_buffer_credits=16",
    ];

    fn rx(n: &Net) -> Vec<u64> {
        n.traffic.flows.iter().map(|f| f.rx_bytes).collect()
    }

    #[test]
    fn output_weights_set_the_shares_of_a_congested_output_link() {
        let text = line_two_queues();
        let with = |w: Option<&str>| {
            let mut ov = TWO_QUEUES.to_vec();
            if let Some(w) = w {
                ov.push(w);
            }
            run(&text, &ov)
        };
        let equal = with(None);
        let r = rx(&equal);
        assert_eq!(r.len(), 2);
        let ratio = r[0] as f64 / r[1] as f64;
        assert!((ratio - 1.0).abs() < 0.02, "equal weights: {r:?}");
        // explicit equal weights are the default, event for event
        let ones = with(Some("switch.output_weights=[1, 1]"));
        assert_eq!(ones.engine.events, equal.engine.events);
        assert_eq!(rx(&ones), r);
        for (w, want) in [("[3, 1]", 3.0), ("[1, 2]", 0.5)] {
            let key = format!("switch.output_weights={w}");
            let n = with(Some(&key));
            let r = rx(&n);
            let ratio = r[0] as f64 / r[1] as f64;
            assert!(
                (ratio - want).abs() / want < 0.05,
                "{w}: {r:?} ratio {ratio}"
            );
            // the output link stays busy: the total is that of equal weights
            let (a, b) = (
                r.iter().sum::<u64>() as f64,
                rx(&equal).iter().sum::<u64>() as f64,
            );
            assert!((a - b).abs() / b < 0.02, "{w}: total {a} against {b}");
        }
    }

    #[test]
    fn bad_output_weights_are_refused_naming_the_key() {
        let text = line_two_queues();
        let err = |extra: &[&str]| {
            let mut ov = TWO_QUEUES.to_vec();
            ov.extend_from_slice(extra);
            net(&text, &ov).err().expect("refused").to_string()
        };
        let e = err(&["switch.output_weights=[1, 1, 1]"]);
        assert!(
            e.contains("switch.output_weights") && e.contains("give 2"),
            "{e}"
        );
        let e = err(&["switch.output_weights=[1, 0]"]);
        assert!(
            e.contains("switch.output_weights") && e.contains("255"),
            "{e}"
        );
        let e = err(&[
            "switch.output_weights=[1, 1]",
            "switch.output_buffer_credits=0",
        ]);
        assert!(
            e.contains("switch.output_weights") && e.contains("switch.output_buffer_credits"),
            "{e}"
        );
    }

    /// Per output queue: (mean credits over the run, the highest any interval saw).
    fn occupancy(n: &Net) -> Vec<(f64, u32)> {
        let b = n.stats.out_buffers.as_ref().expect("output queues tracked");
        let n_int = n.stats.nodes.n_int;
        (0..b.n)
            .map(|q| {
                let area: u64 = (0..n_int).map(|i| b.integral[i * b.n + q]).sum();
                let max = (0..n_int).map(|i| b.max[i * b.n + q]).max().unwrap();
                (area as f64 / n.engine.end as f64, max)
            })
            .collect()
    }

    #[test]
    fn output_queue_statistics_see_the_congested_output_and_stay_within_capacity() {
        let n = run(FAN_IN, &["switch.output_buffer_credits=12"]);
        let ob = n.sw.obuf.as_ref().unwrap();
        let occ = occupancy(&n);
        assert_eq!(occ.len(), ob.len());
        let hot = ob.slots(out_to(&n, "H113")).start;
        for (q, &(mean, max)) in occ.iter().enumerate() {
            assert!(
                mean <= max as f64 && max <= ob.cap(q),
                "queue {q}: {mean} {max}"
            );
            if q != hot {
                // no traffic leaves through the outputs towards H111, H112
                assert_eq!((mean, max), (0.0, 0), "queue {q}");
            }
        }
        // 2:1 into H113: its output queue stays nearly full (12 credits, 6 packets)
        let (mean, max) = occ[hot];
        assert_eq!(max, 12);
        assert!(mean > 8.0, "mean {mean}");
        // the level the statistics end on is what the queue holds at the end
        assert_eq!(
            n.stats.out_buffers.as_ref().unwrap().level[hot],
            ob.used(hot)
        );
        // no traffic: every output queue empty throughout
        let idle = run(
            FAN_IN,
            &[
                "switch.output_buffer_credits=12",
                "traffic.flows[0].start=\"1ms\"",
                "traffic.flows[1].start=\"1ms\"",
            ],
        );
        assert_eq!(idle.stats.delivered_packets, 0);
        assert!(occupancy(&idle).iter().all(|&o| o == (0.0, 0)));
        // not tracked without stats.buffer_occupancy
        let off = run(
            FAN_IN,
            &[
                "switch.output_buffer_credits=12",
                "stats.buffer_occupancy=false",
            ],
        );
        assert!(off.stats.out_buffers.is_none());
        assert_eq!(off.engine.events, n.engine.events);
    }

    #[test]
    fn bad_combinations_are_refused_naming_the_key() {
        let e = net(FAN_IN, &["switch.output_buffer_credits=1"])
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("switch.output_buffer_credits") && e.contains("2-credit"),
            "{e}"
        );
        let e = net(
            FAN_IN,
            &["switch.output_buffer_credits=8", "cc.enabled=true"],
        )
        .err()
        .unwrap()
        .to_string();
        assert!(
            e.contains("switch.output_buffer_credits") && e.contains("cc.enabled"),
            "{e}"
        );
    }
}
