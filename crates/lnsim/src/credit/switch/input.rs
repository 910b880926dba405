//! Switch input side: a packet's head arrives, the forwarding table picks the output, the
//! buffer organisation picks the queue, the packet takes its credits from the input's buffer
//! (the VL's pool, or its queue's share); when its tail leaves, the credits go back upstream
//! (spec §3.4, §3.6). With DRB multipath a packet on path k > 0 takes its pair's precomputed
//! path instead of the table (drb-and-ddbbm spec A.3.5 mode 1).

use crate::config::Ps;
use crate::credit::cc::switch_view;
use crate::credit::kind::{may, SwitchKind};
use crate::credit::packet::{CBIT, NO_LOOKAHEAD};
use crate::credit::routing::tables::NO_PORT;
use crate::credit::switch::buffer::QueueQuery;
use crate::credit::Net;

impl Net {
    /// Head of `pid` arrived at switch input `g`.
    pub(crate) fn switch_receive<K: SwitchKind>(&mut self, pid: u32, g: u32, now: Ps) {
        let vls = self.vls;
        let (vl, credits, dst, cbit, src, path, hop) = {
            let p = &self.pkts[pid];
            (
                p.vl,
                p.credits,
                p.dst,
                p.flags & CBIT != 0,
                p.src,
                p.path,
                p.hops,
            )
        };
        let Some(lvl) = self.occupy(g, vl, credits) else {
            return;
        };
        let bi = self.sw.buf_index[g as usize];
        if bi != u32::MAX {
            self.stats.buffer(bi as usize * vls + vl as usize, now, lvl);
        }
        let sw = self.links.node_of[g as usize];
        // DRB multipath (drb spec A.3.5 mode 1): path k > 0 is the pair's precomputed path
        let multipath = match &self.routes.multipath {
            Some(mp) if may(K::MULTIPATH) && path > 0 => Some(mp),
            _ => None,
        };
        let out = match multipath {
            Some(mp) => mp.port(src, dst, path, hop),
            // the previous switch's look-ahead read this switch's table entry already
            _ => match self.pkts.next_out(pid) {
                NO_LOOKAHEAD => self.route_out::<K>(sw, src, dst, path),
                o => o,
            },
        };
        if out == NO_PORT {
            let name = self.fabric.nodes[sw as usize].name.clone();
            self.fail(format!(
                "routing: switch {name} has no entry for LID {}",
                self.routes.lft.dlid(dst, path)
            ));
            return;
        }
        {
            let p = &mut self.pkts[pid];
            p.out_port = out;
            p.at = g;
        }
        let base = self.links.span[g as usize].base;
        let og = base + out as u32;
        // the queue it will join at the next input, looked up once for every arbitration
        let flags = if cbit { CBIT } else { 0 };
        let (down, next_out) = self.downstream_lookahead::<K>(og, src, dst, path, vl, flags);
        self.pkts.set_down_counter(pid, down, next_out);
        let query = QueueQuery {
            input: g,
            dst,
            out,
            vl,
            cbit,
        };
        let qlocal = self.sw.queue_scheme.queue_of(&query, vls);
        if !self.occupy_queue::<K>(g, qlocal as u16, credits) {
            return;
        }
        let qid = (self.sw.input[g as usize].queue_base + qlocal) as usize;
        let was_empty = self.sw.queues[qid].is_empty();
        self.pkts.push_back(&mut self.sw.queues[qid], pid);
        if was_empty {
            self.set_head_info(qid, pid);
        }
        let fi = self.sw.fill_base[g as usize] as usize + out as usize * vls + vl as usize;
        self.sw.fill[fi] += credits;
        if was_empty {
            if K::PLAIN != Some(true) && self.sw.queue_scheme.several_heads_per_output() {
                self.mark_head(g, out, vl, qlocal / vls as u32, true);
            }
            self.add_request::<K>(og, vl, base, g - base);
            self.try_output::<K>(og, now);
        }
        if may(K::CONGESTION_MANAGEMENT) {
            let level = self.sw.fill[fi];
            self.cc
                .packet_enqueued(switch_view!(self), g, out, vl, level - credits, level, now);
        }
    }

    /// The tail of a packet left switch input `g`: free its credits and tell the upstream.
    /// `counter` is the credit counter the packet held, `out` the local output it went to.
    pub(crate) fn input_release<K: SwitchKind>(
        &mut self,
        g: u32,
        counter: u16,
        out: u8,
        credits: u32,
        now: Ps,
    ) {
        let vls = self.vls;
        let vl = self.counter_vl_k::<K>(counter);
        let lvl = self.release_input::<K>(g, vl, counter, credits);
        let fi = self.sw.fill_base[g as usize] as usize + out as usize * vls + vl as usize;
        self.sw.fill[fi] -= credits;
        if may(K::CONGESTION_MANAGEMENT) {
            let level = self.sw.fill[fi];
            self.cc.packet_dequeued(
                switch_view!(self),
                g,
                out as u16,
                vl,
                level + credits,
                level,
                now,
            );
        }
        let bi = self.sw.buf_index[g as usize];
        if bi != u32::MAX {
            self.stats.buffer(bi as usize * vls + vl as usize, now, lvl);
        }
        self.return_credits::<K>(g, counter, credits, now);
        let was_full =
            self.sw.input[g as usize].being_sent >= self.sw.input[g as usize].max_being_sent;
        self.sw.input[g as usize].being_sent -= 1;
        if was_full {
            // this input may now feed an output that skipped it
            let span = self.links.span[g as usize];
            let base = span.base;
            let i = g - base;
            self.input_freed(span, i);
            // in port order, over the outputs this input requests (read afresh after every
            // grant); only those can grant: an idle output with requests has found every
            // other requesting input unable to feed it (`pick_skip`) since anything that
            // could change that last happened, so trying it would grant nothing and change
            // nothing
            if self.arb.in_req.is_empty() {
                // narrow switches: over the switch's requested outputs
                let end = base + span.ports;
                let mut o = base;
                while let Some(r) = self.next_requested(o, end) {
                    if !self.links.out_busy[r as usize] && self.requests_from(r, i) {
                        self.try_output::<K>(r, now);
                    }
                    o = r + 1;
                }
            } else {
                // wide switches: over the input's requested outputs (`in_req`)
                let mut o = 0;
                while let Some(r) = self.next_input_request(g, o) {
                    debug_assert!(self.requests_from(base + r, i));
                    if !self.links.out_busy[(base + r) as usize] {
                        self.try_output::<K>(base + r, now);
                    }
                    o = r + 1;
                }
            }
        }
    }
}
