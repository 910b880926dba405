//! The allocation stage of a cycle-level router (spec §2.1): each input requests an output for
//! the head of one of its VCs (input arbiter, round robin over VCs, with the output VC chosen
//! by free space), each output grants one requesting input (round robin over inputs) —
//! the input-first separable allocator of [`super::separable_allocator`], iterated — and a
//! grant moves the packet through the crossbar into the output buffer and sends its credits
//! back upstream.

use super::congestion::Side;
use super::flow_control::Drained;
use super::link::wake_output_at;
use super::packet::NIL;
use super::route::{unpack, NO_ROUTE};
use super::separable_allocator::{after, bits, round_robin};
use super::{flag, CycleNet, Ev, PortKind, PortState, VcOut};
use crate::cycle::routing::candidates::NO_ROUTER;

impl CycleNet {
    /// Something that may unblock router `r`'s allocator happened (an arrival, a free
    /// crossbar port, room in an output buffer): it runs this cycle.
    #[inline]
    pub(super) fn wake_allocator(&mut self, r: u32) {
        if self.rs[r as usize].in_mask != 0 {
            super::set_bit(&mut self.alloc_work, r);
        }
    }

    /// The separable allocator of router `r` for this cycle (see
    /// [`crate::cycle::separable_allocator`]); `NOTIFY`: QCN's notifications run, and their VCs
    /// are served first (compiled out without them).
    #[inline(never)]
    pub(super) fn router_allocate<const NOTIFY: bool>(&mut self, r: u32) {
        let now = self.now;
        let radix = self.k.radix;
        let base = r * radix;
        // inputs holding packets whose crossbar port is free, and busy ones with no wake-up
        // pending (without data-dependent branches)
        let mut in_free = 0u64;
        let mut unwatched = 0u64;
        for p in bits(self.rs[r as usize].in_mask) {
            let port = &self.port[(base + p) as usize];
            let free = port.xin_free <= now;
            in_free |= (free as u64) << p;
            unwatched |= ((!free & (port.flags & flag::XIN_EVT == 0)) as u64) << p;
        }
        for p in bits(unwatched) {
            // still moving a packet: look again when its crossbar port frees
            let gi = base + p;
            let port = &mut self.port[gi as usize];
            port.flags |= flag::XIN_EVT;
            let t = port.xin_free;
            self.eng.cal.push(t, Ev::XinFree { gp: gi });
        }
        if in_free == 0 {
            return;
        }
        if in_free & (in_free - 1) == 0 && !self.k.redraw_in_cycle {
            // one free input: its request, if any, meets no competitor at its output and
            // wins it (the general loop below gives the same grant)
            let ip = in_free.trailing_zeros();
            if let Some((v, ov, op)) = self.input_request::<NOTIFY>(r, base, ip, 0) {
                let og = base + op;
                let out = &mut self.port[og as usize];
                out.out_ptr = after(ip, radix) as u8;
                let gi = base + ip;
                let inp = &mut self.port[gi as usize];
                inp.in_ptr = after(v as u32, inp.nvc as u32) as u8;
                self.grant(r, gi, v, og, ov);
            } else if in_free & self.recompute_mask != 0 {
                self.recompute_blocked(r, in_free & self.recompute_mask);
            }
            return;
        }
        let mut out_taken = 0u64;
        let iterations = self.k.iterations;
        for it in 0..iterations {
            // `router.recompute_retry = "next_iteration"`: the injection heads the previous
            // iteration left blocked are routed again now (a new intermediate)
            if self.k.redraw_in_cycle && it > 0 && in_free & self.recompute_mask != 0 {
                self.recompute_blocked(r, in_free & self.recompute_mask);
            }
            let mut outs = 0u64;
            let mut requesters = 0u64;
            for ip in bits(in_free) {
                if let Some((cur, ov, op)) = self.input_request::<NOTIFY>(r, base, ip, out_taken) {
                    self.scratch_req[ip as usize & 63] = (cur, ov);
                    self.scratch_want[op as usize & 63] |= 1 << ip;
                    if NOTIFY {
                        let kind = self.port[(base + ip) as usize].kind as usize;
                        if self.cnm.prio_of[kind] >> cur & 1 == 1 {
                            self.scratch_prio[op as usize & 63] |= 1 << ip;
                        }
                    }
                    outs |= 1 << op;
                    requesters |= 1 << ip;
                }
            }
            if outs == 0 {
                if self.k.redraw_in_cycle && in_free & self.recompute_mask != 0 {
                    // blocked on room alone: a new route may find some
                    continue;
                }
                break;
            }
            let mut granted = 0u64;
            for op in bits(outs) {
                let og = base + op;
                let want = std::mem::take(&mut self.scratch_want[op as usize & 63]);
                // QCN notifications first
                let want = if NOTIFY {
                    let prio = std::mem::take(&mut self.scratch_prio[op as usize & 63]);
                    if prio != 0 {
                        prio
                    } else {
                        want
                    }
                } else {
                    want
                };
                let out = &mut self.port[og as usize];
                let w = round_robin(want, out.out_ptr as u32).expect("an output with requests");
                out.out_ptr = after(w, radix) as u8;
                let (v, ov) = self.scratch_req[w as usize & 63];
                let gi = base + w;
                let inp = &mut self.port[gi as usize];
                inp.in_ptr = after(v as u32, inp.nvc as u32) as u8;
                in_free &= !(1 << w);
                out_taken |= 1 << op;
                granted |= 1 << w;
                self.grant(r, gi, v, og, ov);
            }
            if requesters & !granted != 0 {
                // a request lost arbitration: try again next cycle
                super::set_bit(&mut self.alloc_work, r);
            }
            if in_free == 0 {
                break;
            }
        }
        // the free inputs left were tried and not granted: blocked
        if in_free & self.recompute_mask != 0 {
            self.recompute_blocked(r, in_free & self.recompute_mask);
        }
    }

    /// Recomputation (Dragonfly spec §3.4): the heads of router `r`'s injection inputs `mask`
    /// were blocked this cycle — each took part in the allocation (its crossbar port free)
    /// and was not granted: it lost its output to another input, or the output's crossbar
    /// port or buffer could not take it (by default a packet's space in the output buffer plays
    /// the part of the thesis's credits; `router.output_admission = "credits"` adds the
    /// downstream credits net of the output queue, FOGSim's reading). A Valiant-routed one is routed again next cycle (its cached
    /// route dropped, the allocator woken), which draws a new intermediate; ACOR counts the
    /// blocked re-routing (§3.7: the router's counter, or the packet's level). A minimally
    /// routed head keeps its route: its first hop is not a phase-A hop.
    #[inline(never)]
    fn recompute_blocked(&mut self, r: u32, mask: u64) {
        let now = self.now;
        let vcs = self.k.vcs;
        for ip in bits(mask) {
            let gi = r * self.k.radix + ip;
            for v in bits(self.port[gi as usize].in_vcs) {
                let iv = (gi * vcs + v) as usize;
                let id = self.vc[iv].in_q.0;
                let st = &mut self.eng.pkts.link_mut(id).st;
                if st.inter == NO_ROUTER {
                    continue;
                }
                self.mech.blocked(r, now, st);
                self.vc[iv].head_route = NO_ROUTE;
                self.stats.recomputations += 1;
                super::set_bit(&mut self.alloc_work, r);
            }
        }
    }

    /// The input arbiter of input port `ip` of router `r` (router port `base + ip`): from its
    /// round-robin pointer, the first VC whose head can go now to an output not yet taken
    /// (`out_taken`) with room in an output VC; returns (input VC, output VC, output port).
    /// Heads that cannot go schedule the event that will wake the allocator again.
    #[inline(always)]
    fn input_request<const NOTIFY: bool>(
        &mut self,
        r: u32,
        base: u32,
        ip: u32,
        out_taken: u64,
    ) -> Option<(u8, u8, u32)> {
        let inp = &self.port[(base + ip) as usize];
        let in_vcs = inp.in_vcs;
        if NOTIFY && in_vcs & self.cnm.prio_of[inp.kind as usize] != 0 {
            return self.input_request_notifications_first(r, base, ip, out_taken);
        }
        self.request_among(r, base, ip, out_taken, in_vcs)
    }

    /// [`Self::input_request`] when QCN notifications wait at the input: their VCs first
    /// (the highest class of service), then the others.
    #[inline(never)]
    fn input_request_notifications_first(
        &mut self,
        r: u32,
        base: u32,
        ip: u32,
        out_taken: u64,
    ) -> Option<(u8, u8, u32)> {
        let inp = &self.port[(base + ip) as usize];
        let prio = inp.in_vcs & self.cnm.prio_of[inp.kind as usize];
        let rest = inp.in_vcs & !prio;
        self.request_among(r, base, ip, out_taken, prio)
            .or_else(|| self.request_among(r, base, ip, out_taken, rest))
    }

    /// The input arbiter of [`Self::input_request`] over the VCs `set` of input port `ip`.
    #[inline(always)]
    fn request_among(
        &mut self,
        r: u32,
        base: u32,
        ip: u32,
        out_taken: u64,
        set: u64,
    ) -> Option<(u8, u8, u32)> {
        let now = self.now;
        let vcs = self.k.vcs;
        let gi = base + ip;
        let ptr = self.port[gi as usize].in_ptr as u32;
        let ibase = gi * vcs;
        // the VCs of `set` in round-robin order from the pointer: those at or above it, then
        // those below (rotated right by the pointer: bit k is VC (ptr + k) mod 64, and no VC
        // is ≥ 64)
        for k in bits(set.rotate_right(ptr)) {
            let cur = (k + ptr) & 63;
            let iv = (ibase + cur) as usize;
            let s = &self.vc[iv];
            let id = s.in_q.0;
            // heads are routable from their arrival on; the route is cached per VC
            let mut rt = s.head_route;
            if rt == NO_ROUTE {
                rt = if self.route_table.is_empty() {
                    self.route_head(r, id)
                } else {
                    // a stateless routing: its next hop from the table
                    let dst = self.eng.pkts.link(id).dst;
                    self.route_table[(r * self.k.terminals + dst) as usize]
                };
                self.vc[iv].head_route = rt;
            }
            let (op, lo, hi) = unpack(rt);
            let og = base + op;
            if out_taken >> op & 1 == 1 {
                // granted to another input this cycle: try again next cycle
                super::set_bit(&mut self.alloc_work, r);
                continue;
            }
            let out = &mut self.port[og as usize];
            if out.xout_free > now {
                if out.flags & flag::XOUT_EVT == 0 {
                    out.flags |= flag::XOUT_EVT;
                    let t = out.xout_free;
                    self.eng.cal.push(t, Ev::XoutFree { gp: og });
                }
                continue;
            }
            let obase = (og * vcs) as usize;
            let vout = &self.vout[obase..];
            let (l, cap) = (self.k.pkt_phits, self.out_cap);
            // `router.output_admission = "credits"`: the downstream credits must cover the
            // packet too (an `Ev::Credit` then wakes the allocator, `run_loop.rs`)
            let on_credits = self.k.admit_on_credits && out.kind != PortKind::Terminal;
            let Some(ov) = Self::pick_out_vc(out, vout, now, l, cap, lo, hi, on_credits) else {
                // no room in the output buffer: retry when a departing tail frees some
                let out = &mut self.port[og as usize];
                if out.flags & flag::SPACE_EVT == 0 {
                    if out.link_free > now {
                        out.flags |= flag::SPACE_EVT;
                        let t = out.link_free;
                        self.eng.cal.push(t, Ev::SpaceFree { gp: og });
                    } else {
                        out.flags |= flag::SPACE_WAIT;
                    }
                }
                continue;
            };
            return Some((cur as u8, ov, op));
        }
        None
    }

    /// The output VC a packet would take now at output port `port` (whose VCs' output sides
    /// are `vout`, indexed by VC): within its allowed range, one with room for the whole
    /// packet in the output buffer, preferring the most free space downstream plus locally
    /// (the lowest such VC on ties); `None` if none has room.
    /// `l` is the packet size, `cap` the output buffer capacity, `now` the current cycle;
    /// `on_credits` (`router.output_admission = "credits"`): a VC has room only if its
    /// downstream credits also cover the phits it queues plus the packet.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn pick_out_vc(
        port: &PortState,
        vout: &[VcOut],
        now: u64,
        l: u32,
        cap: u32,
        lo: u8,
        hi: u8,
        on_credits: bool,
    ) -> Option<u8> {
        // the VC whose tail is still leaving on the link (see `out_occupancy`)
        let leaving = if port.link_free > now {
            port.last_vc as u32
        } else {
            u32::MAX
        };
        // a VC has room for the packet while it holds at most `cap - L` phits
        let room = cap.checked_sub(l)?;
        if lo == hi {
            // one allowed VC (the Dragonfly templates)
            let s = &vout[lo as usize];
            let used = s.used + if lo as u32 == leaving { l } else { 0 };
            // (the leaving packet took its credits when it started: `s.used` without it)
            let credit_ok = !on_credits || s.credits >= s.used + l;
            return (used <= room && credit_ok).then_some(lo);
        }
        let vcs = &vout[lo as usize..hi as usize + 1];
        // branch-free maximum of a key per VC: the free space above the VC's complement (VCs
        // are < 64), so the largest key is the most free space, the lowest VC among equals;
        // 0 when the VC has no room (a VC with room has a non-zero low byte)
        let mut best = 0u64;
        for (k, s) in vcs.iter().enumerate() {
            let v = lo as u32 + k as u32;
            let used = s.used + if v == leaving { l } else { 0 };
            // (used ≤ cap always: a grant needs used ≤ cap − L)
            let credit_ok = !on_credits || s.credits >= s.used + l;
            let key = (((cap.wrapping_sub(used)).wrapping_add(s.credits) as u64) << 8
                | (255 - v) as u64)
                & 0u64.wrapping_sub((used <= room && credit_ok) as u64);
            best = best.max(key);
        }
        (best != 0).then(|| 255 - (best & 0xFF) as u8)
    }

    /// A grant broke `router.output_admission = "credits"` (output `og`, VC `ov` now queues
    /// `used` phits, more than its credits): the run fails with it.
    #[cold]
    #[inline(never)]
    fn admission_fault(&mut self, og: u32, ov: u8, used: u32) {
        let credits = self.vout[(og * self.k.vcs) as usize + ov as usize].credits;
        self.eng.fault.get_or_insert(format!(
            "output admission violated: output port {og} VC {ov} queues {used} phits with {credits} credits"
        ));
    }

    /// The congestion management's side of a grant (out of line: without one, a grant pays a
    /// flag): packet `id` joined output `og`/`ov` (which holds `used` phits, its port `count`
    /// packets), a buffer may be sampled, QCN-Switch counts the packet switched to its port.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn grant_hooks(
        &mut self,
        r: u32,
        gi: u32,
        og: u32,
        ov: u8,
        id: u32,
        (used, count): (u32, u32),
        sample_in: bool,
    ) {
        let now = self.now;
        if self
            .cm
            .packet_enqueued(Side::Output, (og, ov as u32), used, count, now)
        {
            self.qcn_sample(Side::Output, og, id);
        }
        if sample_in {
            self.qcn_sample(Side::Input, gi, NIL);
        }
        self.mech.packet_switched(r, og - r * self.k.radix, now);
    }

    /// Moves the head packet of input `gi`/`v` through the crossbar into output `og`/`ov`.
    fn grant(&mut self, r: u32, gi: u32, v: u8, og: u32, ov: u8) {
        let now = self.now;
        let vcs = self.k.vcs;
        let l = self.k.pkt_phits;
        let ready = now + self.k.router_latency;
        let s = &mut self.vc[(gi * vcs) as usize + v as usize];
        s.head_route = NO_ROUTE;
        // the packet leaves this buffer (its space is free for good at `release`, before its
        // credits can come back)
        s.in_used -= l;
        let in_used = s.in_used;
        let id = self.eng.pkts.pop(&mut s.in_q);
        let next = s.in_q.0;
        let emptied = next == NIL;
        if !emptied && !self.route_table.is_empty() {
            // the new head: a stateless routing's next hop from its table now
            let dst = self.eng.pkts.link(next).dst;
            let s = &mut self.vc[(gi * vcs) as usize + v as usize];
            s.head_route = self.route_table[(r * self.k.terminals + dst) as usize];
        }
        let lk = self.eng.pkts.link_mut(id);
        let arrived = lk.ready;
        lk.ready = ready;
        let release = (now + self.k.xbar_cycles).max(arrived + l as u64);
        let inp = &mut self.port[gi as usize];
        inp.in_count -= 1;
        if emptied {
            inp.in_vcs &= !(1 << v);
        }
        inp.xin_free = release;
        let (kind, up, lat) = (inp.kind, inp.peer, inp.latency);
        let sample_in = self.k.cm_on
            && self
                .cm
                .packet_dequeued(Side::Input, (gi, v as u32), in_used, inp.in_count, now);
        if inp.in_count == 0 {
            self.rs[r as usize].in_mask &= !(1 << (gi - r * self.k.radix));
        } else if inp.flags & flag::XIN_EVT == 0 {
            // more packets wait at this input: allocate again when its crossbar port frees
            inp.flags |= flag::XIN_EVT;
            self.eng.cal.push(release, Ev::XinFree { gp: gi });
        }
        // the buffer space is free at `release`; the credits reach the upstream one link
        // latency later (the buffer's occupancy count drops when they arrive); a link has the
        // same latency both ways (the builder checks), so this port's record gives it
        if kind == PortKind::Terminal {
            // on grant: injected, no longer stored
            let dst = self.terms.router[self.eng.pkts.link(id).dst as usize];
            self.mech.injection_granted(r, dst, now);
            self.eng.pkts.pkt_mut(id).t_net = now;
            let when = release + self.k.inj_latency;
            self.eng.cal.push(when, Ev::TermCredit { t: up });
        } else {
            let d = Drained {
                gi,
                kind,
                vc: v,
                used: in_used,
                up,
                latency: lat as u64,
                release,
            };
            self.fc.input_drained(&mut self.eng.cal, d);
        }
        let oi = (og * vcs) as usize + ov as usize;
        let o = &mut self.vout[oi];
        o.used += l;
        let o_used = o.used;
        self.eng.pkts.out_push(&mut o.q, id, ready);
        if self.k.admit_on_credits
            && self.vout[oi].credits < o_used
            && self.port[og as usize].kind != PortKind::Terminal
        {
            // `router.output_admission = "credits"`: the output VC never queues more than
            // the downstream VC can take
            self.admission_fault(og, ov, o_used);
        }
        let out = &mut self.port[og as usize];
        out.xout_free = now + self.k.xbar_cycles;
        out.out_count += 1;
        let (used, out_count) = (o_used, out.out_count);
        if self.k.cm_on {
            self.grant_hooks(r, gi, og, ov, id, (used, out_count), sample_in);
        }
        let out = &mut self.port[og as usize];
        // ready times grow with grant order, so a pending wake-up of this output comes first
        // and re-arms itself for later heads (see `router_links`)
        if out.out_wake_at == u64::MAX {
            wake_output_at(out, &mut self.eng.cal, og, ready);
        }
    }
}
