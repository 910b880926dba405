//! HCA transmit side: control packets (CNPs) first, then round robin over the flows (queue
//! pairs) that have data, are allowed to send by congestion control, and find credits on their
//! VL; the wire is paced by the link, the HCA core rate and an optional transmit-rate cap.

use crate::config::{Injection, Ps};
use crate::credit::cc::Notification;
use crate::credit::kind::{may, AnySwitch, SwitchKind};
use crate::credit::packet::{Packet, BECN, CBIT, CNP};
use crate::credit::{Ev, Net};

/// The next packet of a flow as [`Net::take_flow_packet`] takes it.
pub(crate) struct FlowPacket {
    /// Its latency reference.
    pub created: Ps,
    /// It ends its message.
    pub msg_done: bool,
    /// Its source floods.
    pub flood: bool,
    /// Its destination.
    pub dst: u32,
    /// [`CBIT`] when its message carries DDBBM's congestion bit.
    pub flags: u8,
    /// Its VL (the flow's, or DDBBM's lane on VLs; before DRB's layering).
    pub vl: u8,
    /// The flow has more to send.
    pub still_ready: bool,
    /// Its offset in the destination's LMC range (its DLID; 0 with LMC 0).
    pub lid_offset: u8,
}

impl Net {
    /// Asks HCA `h` to wake (and try to send) at `t`.
    #[inline]
    pub(crate) fn wake(&mut self, h: u32, t: Ps) {
        if t < self.hcas.wake_at[h as usize] {
            self.hcas.wake_at[h as usize] = t;
            self.at(t, Ev::HcaWake { hca: h });
        }
    }

    /// HCA `h` sends its next packet if it can.
    ///
    /// Inlined into its callers: a busy sender costs no call; the rest is out of line.
    #[inline(always)]
    pub(crate) fn try_hca_send(&mut self, h: u32, now: Ps) {
        self.try_hca_send_k::<AnySwitch>(h, now)
    }

    /// [`Net::try_hca_send`] on the hot path's copy for kind `K` (`credit/kind.rs`).
    #[inline(always)]
    pub(crate) fn try_hca_send_k<K: SwitchKind>(&mut self, h: u32, now: Ps) {
        let g = self.hcas.hca_gport[h as usize] as usize;
        if self.links.out_busy[g] {
            return;
        }
        self.try_idle_hca_send::<K>(h, g, now);
    }

    /// [`Net::try_hca_send`] of HCA `h` whose sender (gport `g`) is idle.
    #[inline(never)]
    fn try_idle_hca_send<K: SwitchKind>(&mut self, h: u32, g: usize, now: Ps) {
        if self.hcas.next_tx[h as usize] > now {
            let t = self.hcas.next_tx[h as usize];
            self.wake(h, t);
            return;
        }
        if may(K::ADAPTER) && self.hcas.adapter.is_some() {
            self.adapter_fill(h, now);
        }
        if let Some(&pid) = self.hcas.control_q[h as usize].front() {
            let p = &self.pkts[pid];
            let slot =
                self.credit_slot_for_flags_k::<K>(g as u32, p.src, p.dst, p.path, p.vl, p.flags);
            if self.links.credits[slot] >= p.credits {
                self.hcas.control_q[h as usize].pop_front();
                self.transmit::<K>(h, pid, now);
            }
            return;
        }
        if may(K::ADAPTER) && self.hcas.adapter.is_some() {
            // spec B.5 Input Adapter: the injection queues, not the flows, face the link
            self.adapter_send(h, now);
            return;
        }
        // The flows of `ready` before `hca_blocked` failed their credit check at the last
        // scan, and nothing that could change that has happened since (credits returned to
        // this HCA, a notification changed its status bits, it sent a packet): when the flows
        // added after them fail too, the scan below would send nothing and change nothing.
        let n = self.hcas.ready[h as usize].len();
        let known = self.hcas.hca_blocked[h as usize] as usize;
        if known > 0 && self.first_fitting(h, known..n).is_none() {
            self.hcas.hca_blocked[h as usize] = n as u32;
            return;
        }
        let mut cc_blocked = u64::MAX;
        for attempt in 0..2 {
            let n = self.hcas.ready[h as usize].len();
            if n == 0 {
                break;
            }
            // the round robin's order: `start .. n`, then `0 .. start`. `hca_rr` is at most `n`
            // (a send sets it to the index after the sent flow, or to the removed flow's), so
            // a comparison wraps it, not a division on every try
            let rr = self.hcas.hca_rr[h as usize] as usize;
            debug_assert!(rr <= n, "round-robin pointer {rr} past {n} ready flows");
            let start = if rr >= n { 0 } else { rr };
            let (mut from, mut end) = (start, n);
            loop {
                let Some(idx) = self.first_fitting(h, from..end) else {
                    if end == n {
                        (from, end) = (0, start); // the wrapped part
                        continue;
                    }
                    break;
                };
                from = idx + 1;
                let f = self.hcas.ready[h as usize][idx];
                if may(K::CONGESTION_MANAGEMENT) {
                    let fl = &self.traffic.flows[f as usize];
                    let ra = self.cc.ready_at(f, fl);
                    if ra > now {
                        cc_blocked = cc_blocked.min(ra);
                        continue;
                    }
                }
                self.send_from_flow::<K>(h, f, idx, now);
                return;
            }
            // every flow with data is held back by congestion control: a greedy generator may
            // open a message to another destination (its held-back flows block nobody)
            if attempt == 0 && (cc_blocked == u64::MAX || !self.open_extra_message(h, now)) {
                break;
            }
        }
        if cc_blocked != u64::MAX {
            self.wake(h, cc_blocked);
        } else {
            // every flow failed its credit check (none reached congestion control's)
            self.hcas.hca_blocked[h as usize] = self.hcas.ready[h as usize].len() as u32;
        }
    }

    /// The first index in `range` of HCA `h`'s ready flows whose next packet finds the credits
    /// it needs downstream (the counter `ready_slot` keeps for it: [`Net::ready_flow_slot`]).
    /// One pass over a slice of the slots: an HCA of a loaded network can hold hundreds of
    /// ready flows, most of them waiting for credits.
    #[inline(always)]
    fn first_fitting(&self, h: u32, range: std::ops::Range<usize>) -> Option<usize> {
        let credits = &self.links.credits;
        let need = self.pkt_credits;
        let start = range.start;
        self.hcas.ready_slot[h as usize][range]
            .iter()
            .position(|&s| credits[s as usize] >= need)
            .map(|p| start + p)
    }

    /// Index in `credits` of the counter the next packet of flow `f` of HCA `h` (output gport
    /// `g`) needs: the queue it joins downstream follows its destination, VL and DDBBM bit,
    /// which is read at a message's first packet and kept for the message (drb-and-ddbbm
    /// spec B.3.4); with DDBBM on VLs the bit picks the VL (spec B.4).
    #[inline(always)]
    fn ready_flow_slot(&self, h: u32, g: u32, f: u32) -> u32 {
        let fl = &self.traffic.flows[f as usize];
        let cbit = if fl.in_message {
            fl.cbit
        } else {
            self.cc.congestion_bit(h, fl.dst)
        };
        let flags = if cbit { CBIT } else { 0 };
        let offset = self.routes.lft.next_offset(fl);
        let vl = match self.routes.lane_choice.vl_of(h, fl.dst, offset, cbit) {
            Some(vl) => vl,
            None => self.next_vl(f, fl.vl),
        };
        self.credit_slot_for_flags(g, fl.src, fl.dst, offset, vl, flags) as u32
    }

    /// Flow `f` of HCA `h` has data again: it joins the end of `ready` (and `ready_slot`).
    pub(crate) fn push_ready(&mut self, h: u32, f: u32) {
        let g = self.hcas.hca_gport[h as usize];
        let slot = self.ready_flow_slot(h, g, f);
        self.hcas.ready[h as usize].push(f);
        self.hcas.ready_slot[h as usize].push(slot);
        self.hcas.slot_waiting[slot as usize] += 1;
        if let Some(ad) = &mut self.hcas.adapter {
            ad.touch(h);
        }
    }

    /// Recomputes the counter every ready flow of HCA `h` needs next (DDBBM's status bits of
    /// `h` changed: a flow not inside a message may now need the dynamic queue, or not).
    pub(crate) fn refresh_ready_slots(&mut self, h: u32) {
        let g = self.hcas.hca_gport[h as usize];
        for idx in 0..self.hcas.ready[h as usize].len() {
            self.update_ready_slot(h, g, idx);
        }
        if let Some(ad) = &mut self.hcas.adapter {
            ad.touch(h);
        }
    }

    /// End-of-run check of the HCAs' bookkeeping: every ready flow's recorded slot is the one
    /// its next packet needs, and `slot_waiting` counts them.
    pub(crate) fn check_ready_slots(&self) -> crate::error::Result<()> {
        let mut waiting = vec![0u32; self.hcas.slot_waiting.len()];
        for h in 0..self.hcas.ready.len() as u32 {
            let g = self.hcas.hca_gport[h as usize];
            for (idx, &f) in self.hcas.ready[h as usize].iter().enumerate() {
                let want = self.ready_flow_slot(h, g, f);
                let have = self.hcas.ready_slot[h as usize][idx];
                if want != have {
                    return Err(crate::error::Error::Internal(format!(
                        "HCA {h}: ready flow {f} recorded at credit slot {have}, needs {want}"
                    )));
                }
                waiting[want as usize] += 1;
            }
        }
        if waiting != self.hcas.slot_waiting {
            return Err(crate::error::Error::Internal(
                "HCA ready flows per credit slot miscounted".into(),
            ));
        }
        Ok(())
    }

    /// Recomputes `ready_slot[h][idx]` (and `slot_waiting`).
    #[inline]
    pub(crate) fn update_ready_slot(&mut self, h: u32, g: u32, idx: usize) {
        let f = self.hcas.ready[h as usize][idx];
        let new = self.ready_flow_slot(h, g, f);
        let old = std::mem::replace(&mut self.hcas.ready_slot[h as usize][idx], new);
        if old != new {
            self.hcas.slot_waiting[old as usize] -= 1;
            self.hcas.slot_waiting[new as usize] += 1;
        }
    }

    /// Takes the next packet of flow `f` of HCA `h` from its head message at `now` (the
    /// per-flow HCA and spec B.5's adapter alike): the message bookkeeping, and DDBBM's
    /// status bit read at a message's first packet and kept for the message (drb-and-ddbbm
    /// spec B.3.4, B.3.6), which on VLs picks the VL (spec B.4).
    pub(crate) fn take_flow_packet(&mut self, h: u32, f: u32, now: Ps) -> FlowPacket {
        let fl = &mut self.traffic.flows[f as usize];
        let flood = self.traffic.sources[fl.source as usize].injection == Injection::Flood;
        let msg = fl.msgs.front_mut().expect("ready flow has a message");
        let created = if flood {
            fl.head_since.max(msg.created)
        } else {
            msg.created
        };
        msg.packets_left -= 1;
        let msg_done = msg.packets_left == 0;
        // the message's DLID (`routing.lmc_path`); the next message may take the next one
        let lid_offset = if self.routes.lft.lmc == 0 {
            0
        } else {
            let k = self.routes.lft.next_offset(fl);
            if msg_done {
                fl.lid_turn = fl.lid_turn.wrapping_add(1);
            }
            k
        };
        if msg_done {
            fl.msgs.pop_front();
        }
        fl.head_since = now;
        let dst = fl.dst;
        if !fl.in_message {
            fl.cbit = self.cc.congestion_bit(h, dst);
        }
        fl.in_message = !msg_done;
        let vl = match self.routes.lane_choice.vl_of(h, dst, lid_offset, fl.cbit) {
            Some(vl) => vl,
            None => fl.vl,
        };
        FlowPacket {
            created,
            msg_done,
            flood,
            dst,
            flags: if fl.cbit { CBIT } else { 0 },
            vl,
            still_ready: !fl.msgs.is_empty(),
            lid_offset,
        }
    }

    fn send_from_flow<K: SwitchKind>(&mut self, h: u32, f: u32, idx: usize, now: Ps) {
        let FlowPacket {
            created,
            msg_done,
            flood,
            dst,
            flags,
            vl,
            still_ready,
            lid_offset,
        } = self.take_flow_packet(h, f, now);
        let fl = &mut self.traffic.flows[f as usize];
        let s = fl.source;
        fl.tx_bytes += self.pkt_bytes as u64;
        fl.tx_packets += 1;
        self.hcas.hca_blocked[h as usize] = 0; // the ready list and this flow's queue change
        if !still_ready {
            fl.ready = false;
            self.hcas.ready[h as usize].remove(idx);
            let old = self.hcas.ready_slot[h as usize].remove(idx);
            self.hcas.slot_waiting[old as usize] -= 1;
            self.hcas.hca_rr[h as usize] = idx as u32;
        } else {
            self.hcas.hca_rr[h as usize] = idx as u32 + 1;
        }
        let (vl, path) = if may(K::MULTIPATH) || may(K::CONGESTION_MANAGEMENT) {
            let vl = self.next_vl(f, vl); // DRB multipath: its path's layer (drb spec A.3.5)
            let path = self.cc.path_for(f, &self.traffic.flows[f as usize], now);
            (vl, self.take_path(f, path)) // DRB multipath: the path chosen before
        } else {
            (vl, 0) // (single paths, no mechanism choosing one)
        };
        // with LMC > 0 (DRB refused) the path is the offset of the message's DLID
        let path = if self.routes.lft.lmc == 0 {
            path
        } else {
            lid_offset
        };
        if still_ready {
            // its next packet may start a message, which reads the status bit afresh, and
            // may take another path (another VL) with DRB multipath
            self.update_ready_slot(h, self.hcas.hca_gport[h as usize], idx);
        }
        let pid = self.pkts.alloc(Packet {
            src: h,
            dst,
            flow: f,
            bytes: self.pkt_bytes,
            credits: self.pkt_credits,
            vl,
            flags,
            path,
            created,
            ..Packet::default()
        });
        if msg_done && flood {
            let src = &mut self.traffic.sources[s as usize];
            if src.parked > 0 {
                src.parked -= 1;
            } else if src.active(now) {
                self.refill(s, now);
            }
        }
        if may(K::CONGESTION_MANAGEMENT) {
            let tm = &self.links.timing[self.hcas.hca_gport[h as usize] as usize];
            let ser = tm.ser_pkt.max(tm.int_pkt);
            self.cc
                .packet_sent(f, &self.traffic.flows[f as usize], ser, now);
        }
        self.transmit::<K>(h, pid, now);
    }

    /// Puts packet `pid` on the wire of HCA `h`.
    pub(crate) fn transmit<K: SwitchKind>(&mut self, h: u32, pid: u32, now: Ps) {
        let g = self.hcas.hca_gport[h as usize] as usize;
        let tm = self.links.timing[g];
        let (bytes, credits, vl, flags, src, dst, path) = {
            let p = &self.pkts[pid];
            (p.bytes, p.credits, p.vl, p.flags, p.src, p.dst, p.path)
        };
        let slot = self.credit_slot_for_flags_k::<K>(g as u32, src, dst, path, vl, flags);
        self.links.credits[slot] -= credits;
        let ser = if bytes == self.pkt_bytes {
            tm.ser_pkt.max(tm.int_pkt)
        } else {
            tm.rate
                .ser_ps(bytes as u64)
                .max(tm.internal.ser_ps(bytes as u64))
        };
        let wire_start = now.max(self.links.wire_free[g]);
        let wire_end = wire_start + ser;
        self.links.wire_free[g] = wire_end;
        self.links.out_busy[g] = true;
        if K::DEFER_CREDITS {
            self.links.ready_at[g] = wire_end;
        }
        self.at(wire_end, Ev::OutputReady { gport: g as u32 });
        if let Some(cap) = self.hcas.tx_cap {
            self.hcas.next_tx[h as usize] = wire_start + cap.ser_ps(bytes as u64);
        }
        if flags & CNP != 0 {
            self.stats.injected_control += 1;
        } else {
            self.stats.tx(h, wire_start, bytes);
        }
        self.engine.flit_hops += credits as u64;
        self.engine.packet_hops += 1;
        self.engine.last_progress = now;
        let down = self.links.peer[g];
        let head = wire_start + tm.ser_credit.max(tm.int_credit) + tm.delay + self.sw.routing_delay;
        let p = &mut self.pkts[pid];
        p.injected = wire_start;
        p.tail = wire_end + tm.delay;
        self.at(
            head,
            Ev::HeadArrive {
                pkt: pid,
                gport: down,
            },
        );
    }

    /// Queues a congestion notification packet (BECN set) at HCA `h` for `n.to`.
    pub(crate) fn queue_notification(&mut self, h: u32, n: Notification, now: Ps) {
        let bytes = n.bytes;
        let vl = match (&self.routes.multipath, n.vl) {
            (_, Some(vl)) => vl,
            // DRB multipath: the notification takes the forwarding tables' route back, on
            // that route's VL layer (drb spec A.3.5, A.10 item 6)
            (Some(mp), None) => mp.vl(h, n.to, 0),
            (None, None) => match self.routes.lane_choice.notification_vl(h, n.to) {
                Some(vl) => vl,
                None => self.traffic.flows[n.flow as usize].vl,
            },
        };
        let pid = self.pkts.alloc(Packet {
            src: h,
            dst: n.to,
            flow: n.flow,
            bytes,
            credits: bytes.div_ceil(self.credit_bytes),
            vl,
            flags: CNP | if n.becn { BECN } else { 0 },
            cn_path: n.path,
            created: now,
            ..Packet::default()
        });
        self.hcas.control_q[h as usize].push_back(pid);
        self.try_hca_send(h, now);
    }
}
