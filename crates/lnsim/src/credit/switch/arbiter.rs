//! Output arbitration: VL arbitration first, then round robin over input ports at packet
//! granularity ("the switch considers the flows F2 and F3 as a single flow", spec §3.5), with
//! the whole-packet downstream credit check of virtual cut-through. Which queue of an input
//! holds the packet for an output is the buffer organisation's answer
//! ([`super::buffer::QueueScheme::requesting_queue`]); where several queues of one input can,
//! the input's queues of the VL are searched round robin. With output buffers
//! ([`super::output_buffer`]) this is the crossbar scheduler: the credit checked is the room of
//! the packet's output queue, and a grant moves the packet into it instead of onto the wire.

use crate::config::Ps;
use crate::credit::cc::switch_view;
use crate::credit::kind::{holds, may, SwitchKind};
use crate::credit::packet::PacketQueue;
use crate::credit::switch::buffer::CreditKeeping;
use crate::credit::switch::vl_arbitration::{arbitrate_in, VlArbTable};
use crate::credit::{Ev, Net, PortTiming};

/// The switches' VL arbitration tables ([`arbitrate_in`]'s view of the network).
#[inline(always)]
pub(crate) fn vlarb_table(net: &Net) -> &VlArbTable {
    &net.arb.vlarb_table
}

/// A queue head that may be granted: `(global queue index, packet, slot in credits)`.
type Eligible = (usize, u32, usize);

/// What a pick of an output reads for every input it considers ([`Net::pick_input`]).
struct Pick {
    /// The output.
    og: u32,
    /// Its switch's first gport.
    base: u32,
    /// Its switch's ports.
    n: usize,
    /// The output's local index.
    out_local: u16,
    /// The VL.
    vl: u8,
    /// `og * vls + vl`.
    ov: usize,
    /// The output's first word in `req_mask` and `pick_skip`.
    mbase: usize,
    /// The one queue of an input that may request the output, when there is one.
    single: Option<u32>,
    /// The VL's credit pool, when credits are kept per VL.
    pool: Option<u32>,
}

/// What the arbiter checks of a switch input queue's head packet ([`InputQueue::head`], one per
/// queue): the local output it requests, the credit counter it will hold downstream
/// (`PacketStore::down_counter`, the look-ahead of spec B.2) and its credits (the
/// whole-packet check of virtual cut-through, spec §3.5). Kept current whenever the head
/// changes.
#[derive(Debug, Clone, Copy, Default)]
pub struct HeadInfo {
    /// Local output port the head requests.
    pub out: u16,
    /// Downstream credit counter of the head (its output queue with output buffers).
    pub down: u16,
    /// Credits of the head.
    pub credits: u32,
}

/// A switch input queue (spec B.2: one of the queues the buffer organisation gives an input
/// port): its FIFO of packets and, in the same 16 bytes, what the arbiter checks of its head
/// ([`HeadInfo`]; stale while the queue is empty), so that a search over an input's queues
/// reads one cache line per queue and no packet record. Derefs to its [`PacketQueue`].
#[derive(Debug, Clone, Copy, Default)]
pub struct InputQueue {
    /// The packets, linked in the packet store.
    pub fifo: PacketQueue,
    /// Its head packet's request.
    pub head: HeadInfo,
}

impl std::ops::Deref for InputQueue {
    type Target = PacketQueue;
    #[inline(always)]
    fn deref(&self) -> &PacketQueue {
        &self.fifo
    }
}

impl std::ops::DerefMut for InputQueue {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut PacketQueue {
        &mut self.fifo
    }
}

impl Net {
    /// Lets output `og` (a switch port) start its next packet if it is idle and can.
    ///
    /// Inlined into its callers: the cases that end at once (the output busy, nothing
    /// requested) cost no call; the arbitration itself is out of line.
    #[inline(always)]
    pub(crate) fn try_output<K: SwitchKind>(&mut self, og: u32, now: Ps) {
        if self.links.out_busy[og as usize] {
            return;
        }
        if self.vls == 1 {
            if self.arb.req[og as usize] > 0 {
                self.pick_and_grant::<K>(og, 0, now);
            }
            return;
        }
        self.try_output_vls::<K>(og, now);
    }

    /// [`Net::try_output`] of an idle output with several VLs: the VL arbitration.
    #[inline(never)]
    fn try_output_vls<K: SwitchKind>(&mut self, og: u32, now: Ps) {
        let vls = self.vls;
        if self.arb.req_any[(og >> 6) as usize] & (1 << (og & 63)) == 0 {
            // no VL has a request: the VL arbitration would find none and change nothing
            return;
        }
        // the tables are read in place (`vlarb_table`) while the tries change the network
        let mut st = self.arb.vlarb[og as usize];
        arbitrate_in(self, vlarb_table, &mut st, |net, vl| {
            if net.arb.req[og as usize * vls + vl as usize] == 0 {
                return None;
            }
            net.pick_and_grant::<K>(og, vl, now)
        });
        self.arb.vlarb[og as usize] = st;
    }

    /// Round robin over the input ports of `og`'s switch for a packet on `vl`; grants the first
    /// eligible one. Returns the granted packet's bytes.
    ///
    /// Only inputs whose queue head requests `og` (bits of `req_mask`) are visited, in the same
    /// round-robin order as a scan over all ports starting after the last one served.
    fn pick_and_grant<K: SwitchKind>(&mut self, og: u32, vl: u8, now: Ps) -> Option<u32> {
        // the plain organisation has its own copy of the loop, with the answers of the general
        // one fixed at compile time
        if holds(K::PLAIN, self.arb.plain_buffers) {
            self.pick::<K, true>(og, vl, now)
        } else {
            self.pick::<K, false>(og, vl, now)
        }
    }

    /// [`Net::pick_and_grant`]; `PLAIN`: [`Net::plain_buffers`](crate::credit::Net) holds.
    #[inline(always)]
    fn pick<K: SwitchKind, const PLAIN: bool>(&mut self, og: u32, vl: u8, now: Ps) -> Option<u32> {
        let vls = self.vls;
        let span = self.links.span[og as usize];
        let (base, n) = (span.base, span.ports as usize);
        let out_local = (og - base) as u16;
        let ov = og as usize * vls + vl as usize;
        // with a shared pool every packet of the VL draws on the same counter
        let pool = match &self.sw.credit_keeping {
            _ if PLAIN => {
                let avail = self.links.credits[ov];
                if avail < self.pkts.min_credits() {
                    return None;
                }
                Some(avail)
            }
            // with output buffers each packet checks the room of its output queue
            _ if holds(K::OUTPUT_BUFFERS, self.sw.obuf.is_some()) => None,
            CreditKeeping::SharedPool(_) => {
                let avail = self.links.credits[ov];
                if avail < self.pkts.min_credits() {
                    return None; // no queued packet can fit
                }
                Some(avail)
            }
            CreditKeeping::Partitioned(_) => None,
        };
        // the input after the last one served (`rr[ov] < n`)
        let start = match self.arb.rr[ov] as usize + 1 {
            s if s == n => 0,
            s => s,
        };
        let single = match self.sw.queue_scheme.requesting_queue(out_local, vl, vls) {
            s if !PLAIN => s,
            s => Some(s.unwrap_or_default()),
        };
        let mbase = ov * self.arb.req_words;
        let c = Pick {
            og,
            base,
            n,
            out_local,
            vl,
            ov,
            mbase,
            single,
            pool,
        };
        if self.arb.req_words == 1 {
            // switches of at most 64 ports: the output's inputs in one word, rotated so that
            // its bits come in the round robin's order (start..n, then 0..start; no bit at or
            // above `n` is set). Inputs known unable to feed `og` (`pick_skip`) would fail
            // the checks of `pick_input`.
            let word = self.arb.req_mask[mbase] & !self.arb.pick_skip[mbase];
            debug_assert!(n == 64 || word >> n == 0);
            let mut bits = word.rotate_right(start as u32);
            while bits != 0 {
                let i = (bits.trailing_zeros() + start as u32) & 63;
                bits &= bits - 1;
                if let Some(bytes) = self.pick_input::<K, PLAIN>(&c, i, now) {
                    return Some(bytes);
                }
            }
            return None;
        }
        // first the inputs start..n, then 0..start
        for (from, to) in [(start, n), (0, start)] {
            let mut w = from >> 6;
            while w << 6 < to {
                let mut bits = self.arb.req_mask[mbase + w] & !self.arb.pick_skip[mbase + w];
                if w == from >> 6 {
                    bits &= !0u64 << (from & 63);
                }
                let end = to - (w << 6);
                if end < 64 {
                    bits &= (1u64 << end) - 1;
                }
                while bits != 0 {
                    let i = ((w << 6) as u32) | bits.trailing_zeros();
                    bits &= bits - 1;
                    if let Some(bytes) = self.pick_input::<K, PLAIN>(&c, i, now) {
                        return Some(bytes);
                    }
                }
                w += 1;
            }
        }
        None
    }

    /// Input `i` (local) of the pick `c`: grants its head if it can feed the output (returns
    /// the packet's bytes), else marks it unable to (`pick_skip`).
    #[inline(always)]
    fn pick_input<K: SwitchKind, const PLAIN: bool>(
        &mut self,
        c: &Pick,
        i: u32,
        now: Ps,
    ) -> Option<u32> {
        let ig = c.base + i;
        let input = self.sw.input[ig as usize];
        let found = if input.being_sent >= input.max_being_sent {
            None
        } else {
            match c.single {
                Some(qlocal) => {
                    let qid = (input.queue_base + qlocal) as usize;
                    debug_assert!(
                        !self.sw.queues[qid].is_empty(),
                        "request bit without a queued packet"
                    );
                    self.head_fits::<K>(qid, c.og, c.out_local, c.vl, c.pool)
                }
                None => self.head_for_output::<K>(ig, i, c.n, c.og, c.out_local, c.vl, c.pool),
            }
        };
        let Some((qid, pid, slot)) = found else {
            self.arb.pick_skip[c.mbase + (i >> 6) as usize] |= 1 << (i & 63);
            if self.arb.req_words == 1 {
                // (at most 64 ports: the freeing of the input clears what it finds here)
                self.arb.skip_outs[ig as usize] |= 1 << c.out_local;
            }
            return None;
        };
        self.arb.rr[c.ov] = i as u16;
        let bytes = self.pkts[pid].bytes;
        self.grant::<K, PLAIN>(c.og, c.base, ig, qid, pid, c.vl, slot, now);
        Some(bytes)
    }

    /// The head of queue `qid` if it wants local output `out_local` (gport `og`) on `vl` and
    /// the credits it needs there are available (`pool`: the VL's pool, when credits are kept
    /// per VL).
    #[inline(always)]
    fn head_fits<K: SwitchKind>(
        &self,
        qid: usize,
        og: u32,
        out_local: u16,
        vl: u8,
        pool: Option<u32>,
    ) -> Option<Eligible> {
        let h = self.sw.queues[qid].head;
        if h.out != out_local {
            return None; // (only where several queues of an input are searched)
        }
        let (avail, slot) = match pool {
            Some(avail) => (avail, og as usize * self.vls + vl as usize),
            None => match self.sw.obuf.as_ref().filter(|_| may(K::OUTPUT_BUFFERS)) {
                Some(ob) => {
                    let s = ob.slot(og, h.down);
                    (ob.space(s), s)
                }
                None => {
                    let slot = self.credit_slot_k::<K>(og, h.down);
                    (self.links.credits[slot], slot)
                }
            },
        };
        if h.credits > avail {
            return None;
        }
        let pid = self.sw.queues[qid].front()?;
        debug_assert_eq!(self.pkts[pid].vl, vl);
        debug_assert_eq!(self.pkts[pid].out_port, h.out);
        debug_assert_eq!(self.pkts.down_counter(pid), h.down);
        Some((qid, pid, slot))
    }

    /// Records packet `pid` as the head of queue `qid` ([`InputQueue::head`]).
    #[inline(always)]
    pub(crate) fn set_head_info(&mut self, qid: usize, pid: u32) {
        let p = &self.pkts[pid];
        self.sw.queues[qid].head = HeadInfo {
            out: p.out_port,
            down: self.pkts.down_counter(pid),
            credits: p.credits,
        };
    }

    /// Among the queues of input `ig` on `vl`, round robin from the one after the last served,
    /// the first whose head wants `og` and fits (queue schemes where several queues of an
    /// input can request one output).
    /// `in_local` is `ig`'s local index, `ports` the switch's ports.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn head_for_output<K: SwitchKind>(
        &mut self,
        ig: u32,
        in_local: u32,
        ports: usize,
        og: u32,
        out_local: u16,
        vl: u8,
        pool: Option<u32>,
    ) -> Option<Eligible> {
        let vls = self.vls;
        // the classes after the last served, then up to it, in order; only those whose head
        // requests `out_local` (`head_mask`) can be granted
        let mbase = self.head_index(og, in_local, vl) * self.arb.head_words;
        if self.arb.head_words == 1 {
            // (the common case: no head of this input may fit, nothing else to read)
            let mut bits = self.arb.head_mask[mbase];
            if let Some(ob) = self.sw.obuf.as_ref().filter(|_| may(K::OUTPUT_BUFFERS)) {
                bits &= ob.room_word(og, vl, 0);
            }
            if bits == 0 {
                return None;
            }
        }
        let classes = self.sw.queue_scheme.queues_per_vl(ports);
        let r = ig as usize * vls + vl as usize;
        let last = self.arb.head_rr[r] as usize;
        let base = self.sw.input[ig as usize].queue_base;
        for (from, to) in [(last + 1, classes), (0, last + 1)] {
            let mut w = from >> 6;
            while w << 6 < to {
                let mut bits = self.arb.head_mask[mbase + w];
                // with output buffers a head joins the output queue of its own class (these
                // schemes pick the queue from the destination and the congestion bit only):
                // one whose queue has no space cannot fit
                if let Some(ob) = self.sw.obuf.as_ref().filter(|_| may(K::OUTPUT_BUFFERS)) {
                    bits &= ob.room_word(og, vl, w);
                }
                if w == from >> 6 {
                    bits &= !0u64 << (from & 63);
                }
                let end = to - (w << 6);
                if end < 64 {
                    bits &= (1u64 << end) - 1;
                }
                while bits != 0 {
                    let class = ((w << 6) as u32) | bits.trailing_zeros();
                    bits &= bits - 1;
                    let qid = (base + class * vls as u32 + vl as u32) as usize;
                    debug_assert_eq!(
                        self.sw.queues[qid].front().map(|p| self.pkts[p].out_port),
                        Some(out_local),
                        "head bit of a queue whose head does not request the output"
                    );
                    if let Some(e) = self.head_fits::<K>(qid, og, out_local, vl, pool) {
                        self.arb.head_rr[r] = class;
                        return Some(e);
                    }
                }
                w += 1;
            }
        }
        None
    }

    /// Index of (output `og`, local input `in_local`, `vl`) in `head_mask` (in words of
    /// `head_words`): output-major, so that the entries of every input of one output (what
    /// its arbiter reads) sit together. Uses `og`'s slice of the per-input layout of `fill`
    /// (`fill_base[og]`, ports × VLs entries) with the roles of input and output swapped.
    #[inline(always)]
    fn head_index(&self, og: u32, in_local: u32, vl: u8) -> usize {
        self.sw.fill_base[og as usize] as usize + in_local as usize * self.vls + vl as usize
    }

    /// Marks (`on`) or clears the head of queue class `class` of input `ig` on `vl` as
    /// requesting local output `out` (schemes where several queues of an input can).
    #[inline(always)]
    pub(crate) fn mark_head(&mut self, ig: u32, out: u16, vl: u8, class: u32, on: bool) {
        let base = self.links.span[ig as usize].base;
        let i = self.head_index(base + out as u32, ig - base, vl) * self.arb.head_words
            + (class >> 6) as usize;
        let bit = 1u64 << (class & 63);
        if on {
            self.arb.head_mask[i] |= bit;
        } else {
            self.arb.head_mask[i] &= !bit;
        }
    }

    /// Moves packet `pid` from input `ig` (queue `qid`) to output `og` (of the switch whose
    /// first gport is `base`), taking its credits from `credits[slot]` (with output buffers:
    /// the room of output queue `slot`).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn grant<K: SwitchKind, const PLAIN: bool>(
        &mut self,
        og: u32,
        base: u32,
        ig: u32,
        qid: usize,
        pid: u32,
        vl: u8,
        slot: usize,
        now: Ps,
    ) {
        self.pkts.pop_front(&mut self.sw.queues[qid]);
        let mut other = None;
        let several = !PLAIN && self.sw.queue_scheme.several_heads_per_output();
        // (read only where several queues of an input may request one output)
        let class = if several {
            (qid as u32 - self.sw.input[ig as usize].queue_base) / self.vls as u32
        } else {
            0
        };
        match self.sw.queues[qid].front() {
            None => {
                if several {
                    self.mark_head(ig, (og - base) as u16, vl, class, false);
                }
                self.drop_request::<K>(og, vl, base, ig - base);
            }
            Some(next) => {
                self.set_head_info(qid, next);
                // a VOQ's packets all want `og`; only a shared queue's head must be looked at
                let t = if self.sw.queue_scheme.heads_share_outputs() {
                    base + self.pkts[next].out_port as u32
                } else {
                    og
                };
                debug_assert_eq!(t, base + self.pkts[next].out_port as u32);
                if t == og {
                    // the new head requests `og` too: dropping the request and adding it
                    // again would leave every count and mask as it is (this input's
                    // `pick_skip` bit is clear: the pick chose it), so neither is done
                    debug_assert!(self.requests_from(og, ig - base));
                } else {
                    if several {
                        self.mark_head(ig, (og - base) as u16, vl, class, false);
                    }
                    self.drop_request::<K>(og, vl, base, ig - base);
                    if several {
                        self.mark_head(ig, (t - base) as u16, vl, class, true);
                    }
                    self.add_request::<K>(t, vl, base, ig - base);
                    // a shared queue's new head wants another output: offer it once this
                    // grant has taken its credits and marked its output busy
                    other = Some(t);
                }
            }
        }
        self.sw.input[ig as usize].being_sent += 1;
        // the DRB paper's port monitor samples the input buffer the packet leaves
        if may(K::CONGESTION_MANAGEMENT) {
            self.cc
                .packet_leaves_input(switch_view!(self), &mut self.pkts[pid]);
        }
        if !PLAIN && holds(K::OUTPUT_BUFFERS, self.sw.obuf.is_some()) {
            // into the output buffer (`slot` is its output queue): switch/output_buffer.rs
            let counter = self.input_counter_k::<K>(ig, qid, vl);
            self.cross_to_output(og, ig, counter, pid, slot, now);
            if let Some(t) = other {
                self.try_output::<K>(t, now);
            }
            return;
        }
        let tm = self.links.timing[og as usize];
        let (bytes, credits, tail, out_port) = {
            let p = &self.pkts[pid];
            (p.bytes, p.credits, p.tail, p.out_port)
        };
        self.links.credits[slot] -= credits;
        if may(K::CONGESTION_MANAGEMENT) {
            self.cc
                .packet_forwarded(switch_view!(self), og, vl, &mut self.pkts[pid], now);
        }
        let (int_pkt, ser_pkt) = if bytes == self.pkt_bytes {
            (tm.int_pkt, tm.ser_pkt)
        } else {
            (
                tm.internal.ser_ps(bytes as u64),
                tm.rate.ser_ps(bytes as u64),
            )
        };
        // tail leaves the input: after the crossbar moved the packet, never before the tail arrived
        let release = (now + int_pkt).max(tail + tm.int_credit) + self.sw.input_delay;
        self.at(
            release,
            Ev::InputRelease {
                gport: ig,
                counter: if PLAIN {
                    vl as u16
                } else {
                    self.input_counter_k::<K>(ig, qid, vl)
                },
                out: out_port as u8,
                credits,
            },
        );
        let lead = self.sw.input_delay + tm.int_credit + self.sw.output_delay;
        let wire_start = (now + lead).max(self.links.wire_free[og as usize]);
        let wire_end = (wire_start + ser_pkt).max(release + self.sw.output_delay + tm.ser_credit);
        self.links.wire_free[og as usize] = wire_end;
        self.links.out_busy[og as usize] = true;
        let ready = (wire_end - lead).max(now);
        if K::DEFER_CREDITS {
            self.links.ready_at[og as usize] = ready;
        }
        self.at(ready, Ev::OutputReady { gport: og });
        self.launch_downstream(og, tm, pid, credits, wire_start, wire_end, now);
        if let Some(t) = other {
            self.try_output::<K>(t, now);
        }
    }
}

impl Net {
    /// Output `og` (its link's timing `tm`) puts packet `pid` (`credits` credits) on its wire
    /// from `wire_start` to `wire_end`: the hop is counted and the head is scheduled at the
    /// downstream input (after the routing delay at a switch). Shared by the input-buffered
    /// output and the output buffers' link (`output_buffer.rs`).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn launch_downstream(
        &mut self,
        og: u32,
        tm: PortTiming,
        pid: u32,
        credits: u32,
        wire_start: Ps,
        wire_end: Ps,
        now: Ps,
    ) {
        self.engine.flit_hops += credits as u64;
        self.engine.packet_hops += 1;
        self.engine.last_progress = now;
        let down = self.links.peer[og as usize];
        let head = wire_start + tm.ser_credit + tm.delay;
        let p = &mut self.pkts[pid];
        p.tail = wire_end + tm.delay;
        p.hops += 1;
        if p.flags & crate::credit::packet::CNP == 0 {
            // per-link data bytes (`stats.links`, drb-and-ddbbm spec A.7)
            let (bytes, injected) = (p.bytes, p.injected);
            self.stats.carried(og, wire_start, injected, bytes);
        }
        let extra = if self.links.is_switch[down as usize] {
            self.sw.routing_delay
        } else {
            0
        };
        self.at(
            head + extra,
            Ev::HeadArrive {
                pkt: pid,
                gport: down,
            },
        );
    }
}

#[cfg(test)]
impl Net {
    /// Widens the request masks (`req_mask`, `pick_skip`, `in_req`) to `words` words per
    /// entry before the run has made any request, so that the arbiter takes the word-by-word
    /// walk of switches of more than 64 ports on a narrow network.
    pub(crate) fn widen_request_words(&mut self, words: usize) {
        let a = &mut self.arb;
        assert!(words >= a.req_words);
        assert!(a.req_mask.iter().chain(&a.in_req).all(|&w| w == 0));
        let entries = a.req_mask.len() / a.req_words;
        a.req_mask = vec![0; entries * words];
        a.pick_skip = vec![0; entries * words];
        if !a.in_req.is_empty() {
            a.in_req = vec![0; a.in_req.len() / a.req_words * words];
        }
        if words > 1 {
            a.skip_outs = Vec::new(); // (kept for one-word switches only)
        }
        a.req_words = words;
    }
}
