//! Router links of the cycle-level model: a packet's head arriving at a router input (the
//! lossless check of its buffer, the cached next hop of a new head), and the link stage of
//! each router, which sends the head of one ready output VC per free link when the VC
//! downstream has credits for the whole packet (virtual cut-through), or delivers it to its
//! terminal.

use super::calendar::Calendar;
use super::congestion::Side;
use super::packet::NIL;
use super::separable_allocator::{after, round_robin};
use super::{flag, CycleNet, Ev, PortKind, PortState};

/// Output `gp` (its record `port`) is examined again at cycle `t` (> now) unless it already
/// is earlier: an `OutReady` event in `calendar` (see [`schedule`]).
#[inline(always)]
pub(super) fn wake_output_at(port: &mut PortState, cal: &mut Calendar, gp: u32, t: u64) {
    if t < port.out_wake_at {
        port.out_wake_at = t;
        cal.push(t, Ev::OutReady { gp });
    }
}

impl CycleNet {
    /// Output `gp`, which holds packets, may be able to send: its link stage looks at it this
    /// cycle.
    #[inline(always)]
    pub(super) fn mark_output(&mut self, gp: u32) {
        let (r, p) = self.split_gp(gp);
        self.rs[r as usize].out_mask |= 1 << p;
        super::set_bit(&mut self.link_work, r);
    }

    /// A packet's head reaches router input `gp` on VC `vc` (a router-to-router hop more
    /// unless it comes from its terminal).
    #[inline(always)]
    pub(super) fn arrive(&mut self, id: u32, gp: u32, vc: u8) {
        let port = &mut self.port[gp as usize];
        port.in_count += 1;
        let hop_kind = port.kind;
        let hop = hop_kind != PortKind::Terminal;
        port.in_vcs |= 1 << vc;
        let in_count = port.in_count;
        let lk = self.eng.pkts.link_mut(id);
        lk.ready = self.now;
        lk.hops += hop as u8;
        let dst = lk.dst;
        let cnm = lk.cnm;
        let (r, p) = self.split_gp(gp);
        if cnm != 0 && self.terms.router[dst as usize] == r {
            // a QCN notification at its destination router (`cnm.rs`)
            self.cnm_at_router(r, p, cnm);
        }
        if !hop {
            // on inject: stored in the router's injection queue
            self.mech
                .injection_stored(r, self.terms.router[dst as usize]);
        }
        let vc = vc as u32;
        let i = (gp * self.k.vcs + vc) as usize;
        let s = &mut self.vc[i];
        s.in_used += self.k.pkt_phits;
        let (used, cap) = (s.in_used, self.in_cap_of[hop_kind as usize]);
        if s.in_q.0 == NIL && !self.route_table.is_empty() {
            // a new head: a stateless routing's next hop from its table now
            s.head_route = self.route_table[(r * self.k.terminals + dst) as usize];
        }
        self.eng.pkts.push(&mut s.in_q, id);
        if self.k.cm_on
            && self
                .cm
                .packet_enqueued(Side::Input, (gp, vc), used, in_count, self.now)
        {
            self.qcn_sample(Side::Input, gp, id);
        }
        if self.fc.input_filled(gp, vc, used, hop_kind) {
            self.pfc_frame(gp, vc, true);
        }
        if used > cap {
            self.lossless_violated(gp, vc, used, cap);
        }
        // the input holds a packet now: the allocator runs this cycle (`wake_allocator`)
        self.rs[r as usize].in_mask |= 1 << p;
        super::set_bit(&mut self.alloc_work, r);
    }

    #[cold]
    fn lossless_violated(&mut self, gp: u32, vc: u32, used: u32, cap: u32) {
        let name = self.port_name(gp);
        self.fail(format!(
            "lossless violated: input buffer {name} VC {vc} holds {used} phits, capacity {cap}"
        ));
    }

    /// Output links of router `r`: every free link sends the head packet of one ready VC
    /// (round robin over VCs) whose downstream VC has room for the whole packet.
    #[inline]
    pub(super) fn router_links(&mut self, r: u32) {
        let now = self.now;
        let vcs = self.k.vcs;
        let l = self.k.pkt_phits;
        // examined now: each output sleeps until an event (ready head, credits, free link)
        // wakes it
        let mut mask = std::mem::take(&mut self.rs[r as usize].out_mask);
        while mask != 0 {
            let p = mask.trailing_zeros();
            mask &= mask - 1;
            let gp = r * self.k.radix + p;
            // one reference to the port record for the whole look
            let port = &mut self.port[gp as usize];
            if port.link_free > now {
                let t = port.link_free;
                wake_output_at(port, &mut self.eng.cal, gp, t);
                continue;
            }
            let n = port.nvc as usize;
            let terminal = port.kind == PortKind::Terminal;
            let base = (gp * vcs) as usize;
            let mut ready = 0u64;
            let mut next_ready = u64::MAX;
            for (v, o) in self.vout[base..base + n].iter().enumerate() {
                // departure time of the head, kept flat (no packet memory touched); without
                // branches (an empty VC's u64::MAX is later than now and changes no minimum)
                let t = o.q.head_ready;
                let go = (t <= now) & (terminal | self.fc.may_send(o, l));
                ready |= (go as u64) << v;
                next_ready = next_ready.min(if t > now { t } else { u64::MAX });
            }
            // PFC: a VC holding a received PAUSE may not start a packet (none under credits)
            ready &= !(port.paused as u64);
            // (no-op when no head waits: u64::MAX is never below `out_wake_at`)
            wake_output_at(port, &mut self.eng.cal, gp, next_ready);
            // QCN notifications first (their VCs are the highest class of service)
            let ready = if self.cnm.on {
                let prio = ready & self.cnm.prio_of[port.kind as usize];
                if prio != 0 {
                    prio
                } else {
                    ready
                }
            } else {
                ready
            };
            let Some(v) = round_robin(ready, port.link_ptr as u32) else {
                continue;
            };
            let i = base + v as usize;
            let o = &mut self.vout[i];
            let id = self.eng.pkts.out_pop(&mut o.q);
            // the packet leaves the output buffer over the next L cycles: its space counts as
            // occupied until the link is free (`out_occupancy`)
            o.used -= l;
            let used = o.used;
            if !terminal {
                self.fc.sent(o, l);
            }
            port.link_ptr = after(v, n as u32) as u8;
            port.out_count -= 1;
            port.last_vc = v as u8;
            let free = now + l as u64;
            port.link_free = free;
            if port.out_count > 0 {
                wake_output_at(port, &mut self.eng.cal, gp, free);
            }
            if port.flags & flag::SPACE_WAIT != 0 {
                port.flags = port.flags & !flag::SPACE_WAIT | flag::SPACE_EVT;
                self.eng.cal.push(free, Ev::SpaceFree { gp });
            }
            let (down, latency) = (port.peer, port.latency as u64);
            let out_count = port.out_count;
            let sample_out = self.k.cm_on
                && self
                    .cm
                    .packet_dequeued(Side::Output, (gp, v), used, out_count, now);
            self.stats.phit_hops += l as u64;
            if terminal && self.eng.pkts.link(id).cnm != 0 {
                // a QCN notification reaches its node (`cnm.rs`)
                self.cnm_delivered(id, now);
            } else if terminal {
                let done = now + self.k.ej_latency + l as u64;
                let (p, lk) = (self.eng.pkts.pkt(id), self.eng.pkts.link(id));
                let class = self.path_class(p.src, lk);
                let src_router = self.terms.router[p.src as usize];
                self.stats
                    .delivered_at(p, lk, now, done, l, r, src_router, class);
                self.eng.pkts.free(id);
            } else {
                // (the packet counts the hop on arrival)
                let ev = Ev::Arrive {
                    pkt: id,
                    gp: down,
                    vc: v as u8,
                };
                self.eng.cal.push(now + latency, ev);
            }
            if sample_out {
                self.qcn_sample(Side::Output, gp, super::packet::NIL);
            }
        }
    }
}
