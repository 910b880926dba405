//! Output arbitration: VL arbitration first, then round robin over input ports at packet
//! granularity ("the switch considers the flows F2 and F3 as a single flow", spec §3.5), with
//! the whole-packet downstream credit check of virtual cut-through.

use crate::config::Ps;
use crate::credit::{Ev, Net};

impl Net {
    /// Lets output `og` (a switch port) start its next packet if it is idle and can.
    pub(crate) fn try_output(&mut self, og: u32, now: Ps) {
        if self.out_busy[og as usize] {
            return;
        }
        let vls = self.vls;
        if vls == 1 {
            if self.req[og as usize] > 0 {
                self.pick_and_grant(og, 0, now);
            }
            return;
        }
        // the tables are moved out while the closure borrows `self` mutably
        let tab = std::mem::take(&mut self.vlarb_table);
        let mut st = self.vlarb[og as usize];
        tab.arbitrate(&mut st, |vl| {
            if self.req[og as usize * vls + vl as usize] == 0 {
                return None;
            }
            self.pick_and_grant(og, vl, now)
        });
        self.vlarb_table = tab;
        self.vlarb[og as usize] = st;
    }

    /// Round robin over the input ports of `og`'s switch for a packet on `vl`; grants the first
    /// eligible one. Returns the granted packet's bytes.
    ///
    /// Only inputs whose queue head requests `og` (bits of `req_mask`) are visited, in the same
    /// round-robin order as a scan over all ports starting after the last one served.
    fn pick_and_grant(&mut self, og: u32, vl: u8, now: Ps) -> Option<u32> {
        let vls = self.vls;
        let sw = self.node_of[og as usize] as usize;
        let base = self.port_base[sw];
        let n = self.fabric.nodes[sw].ports.len();
        let out_local = (og - base) as u16;
        let ov = og as usize * vls + vl as usize;
        let avail = self.credits[ov];
        if avail < self.pkts.min_credits() {
            return None; // no queued packet can fit
        }
        let start = (self.rr[ov] as usize + 1) % n;
        let qlocal = self.mapping.queue_of(out_local, vl, vls);
        let mbase = ov * self.req_words;
        // first the inputs start..n, then 0..start
        for (from, to) in [(start, n), (0, start)] {
            let mut w = from >> 6;
            while w << 6 < to {
                let mut bits = self.req_mask[mbase + w];
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
                    let ig = base + i;
                    if self.being_sent[ig as usize] >= self.max_being_sent[ig as usize] {
                        continue;
                    }
                    let qid = (self.queue_base[ig as usize] + qlocal) as usize;
                    let Some(pid) = self.queues[qid].front() else {
                        debug_assert!(false, "request bit without a queued packet");
                        continue;
                    };
                    let p = &self.pkts[pid];
                    debug_assert_eq!(p.out_port, out_local, "request bit of another output");
                    if p.credits > avail {
                        continue;
                    }
                    self.rr[ov] = i as u16;
                    let bytes = p.bytes;
                    self.grant(og, ig, qid, pid, vl, now);
                    return Some(bytes);
                }
                w += 1;
            }
        }
        None
    }

    /// Moves packet `pid` from input `ig` (queue `qid`) to output `og`.
    fn grant(&mut self, og: u32, ig: u32, qid: usize, pid: u32, vl: u8, now: Ps) {
        let vls = self.vls;
        let ov = og as usize * vls + vl as usize;
        self.pkts.pop_front(&mut self.queues[qid]);
        let mut other = None;
        let base = self.port_base[self.node_of[og as usize] as usize];
        self.drop_request(og, vl, ig - base);
        if let Some(next) = self.queues[qid].front() {
            // a VOQ's packets all want `og`; only a shared queue's head must be looked at
            let t = if self.mapping.shared_outputs() {
                base + self.pkts[next].out_port as u32
            } else {
                og
            };
            debug_assert_eq!(t, base + self.pkts[next].out_port as u32);
            self.add_request(t, vl, ig - base);
            if t != og {
                // a shared queue's new head wants another output: offer it once this grant
                // has taken its credits and marked its output busy
                other = Some(t);
            }
        }
        self.being_sent[ig as usize] += 1;
        let tm = self.timing[og as usize];
        let (bytes, credits, tail, out_port) = {
            let p = &self.pkts[pid];
            (p.bytes, p.credits, p.tail, p.out_port)
        };
        self.credits[ov] -= credits;
        if self.cc.active() {
            self.cc_mark(og, vl, pid);
            self.cc_evaluate(og, vl, now);
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
        let release = (now + int_pkt).max(tail + tm.int_credit) + self.input_delay;
        self.at(
            release,
            Ev::InputRelease {
                gport: ig,
                vl,
                out: out_port,
                credits,
            },
        );
        let lead = self.input_delay + tm.int_credit + self.output_delay;
        let wire_start = (now + lead).max(self.wire_free[og as usize]);
        let wire_end = (wire_start + ser_pkt).max(release + self.output_delay + tm.ser_credit);
        self.wire_free[og as usize] = wire_end;
        self.out_busy[og as usize] = true;
        self.at((wire_end - lead).max(now), Ev::OutputReady { gport: og });
        self.flit_hops += credits as u64;
        self.last_progress = now;
        let down = self.peer[og as usize];
        let head = wire_start + tm.ser_credit + tm.delay;
        let p = &mut self.pkts[pid];
        p.tail = wire_end + tm.delay;
        p.hops += 1;
        let extra = if self.is_switch[down as usize] {
            self.routing_delay
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
        if let Some(t) = other {
            self.try_output(t, now);
        }
    }
}
