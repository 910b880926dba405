//! Delivery at the destination HCA: a packet's head arrives, it joins the sink's queue, the
//! sink ([`super::sink::SinkModel`]) consumes it at its drain rate, then its credits go back
//! upstream, its statistics are recorded (with the out-of-order check of spec B.3.6 against
//! the flow's sequence numbers) and congestion control sees it (a BECN-marked CNP or a
//! FECN-marked data packet, spec §3.7.2, §4).

use crate::config::Ps;
use crate::credit::kind::{may, AnySwitch, SwitchKind};
use crate::credit::packet::CNP;
use crate::credit::{Ev, Net};

/// The state of per-credit sinks (`hca.sink.credit_return = "credit"`), per HCA.
#[derive(Debug, Clone, Default)]
pub struct SinkSteps {
    /// Credits of the head packet already returned.
    returned: Vec<u32>,
    /// Packets the sink has started (tells stale steps apart).
    seq: Vec<u32>,
    /// When the sink started draining its head packet.
    start: Vec<Ps>,
}

impl SinkSteps {
    /// The state of `n` per-credit sinks (0: none).
    pub fn new(n: usize) -> Self {
        SinkSteps {
            returned: vec![0; n],
            seq: vec![0; n],
            start: vec![0; n],
        }
    }
}

impl Net {
    /// Head of `pid` arrived at HCA input `g`.
    pub(crate) fn hca_receive<K: SwitchKind>(&mut self, pid: u32, g: u32, now: Ps) {
        let (vl, credits) = (self.pkts[pid].vl, self.pkts[pid].credits);
        if self.occupy(g, vl, credits).is_none() || !self.occupy_queue::<K>(g, vl as u16, credits) {
            return;
        }
        self.pkts[pid].at = g;
        let h = self.hcas.hca_of_node[self.links.node_of[g as usize] as usize];
        self.hcas.sink_q[h as usize].push_back(pid);
        if !self.hcas.sink_busy[h as usize] {
            self.start_sink(h, now);
        }
    }

    fn start_sink(&mut self, h: u32, now: Ps) {
        let pid = *self.hcas.sink_q[h as usize]
            .front()
            .expect("sink queue not empty");
        let p = &self.pkts[pid];
        let done = self.hcas.sink.finish(now, p.bytes as u64).max(p.tail);
        self.hcas.sink_busy[h as usize] = true;
        self.at(done, Ev::SinkDone { hca: h });
        if self.hcas.sink.per_credit {
            self.start_sink_credits(h, done, now);
        }
    }

    /// Per-credit sinks: a new head packet's credit steps start (out of line: the hot path of
    /// every run with per-packet return stays as small as before).
    #[inline(never)]
    fn start_sink_credits(&mut self, h: u32, done: Ps, now: Ps) {
        let hi = h as usize;
        self.hcas.sink_steps.seq[hi] = self.hcas.sink_steps.seq[hi].wrapping_add(1);
        self.hcas.sink_steps.returned[hi] = 0;
        self.hcas.sink_steps.start[hi] = now;
        self.schedule_sink_credit(h, done, now);
    }

    /// Per-credit sinks: when credit `k` (1-based) of HCA `h`'s head packet has both arrived
    /// (the packet's tail less the `n − k` credits still on the wire behind it) and drained.
    fn sink_credit_time(&self, h: u32, k: u32) -> Ps {
        let pid = *self.hcas.sink_q[h as usize]
            .front()
            .expect("sink has a packet");
        let p = &self.pkts[pid];
        let g = self.hcas.hca_gport[h as usize];
        let ser_credit = self.links.timing[self.links.peer[g as usize] as usize].ser_credit;
        let bytes = (k as u64 * self.credit_bytes as u64).min(p.bytes as u64);
        let arrived = p.tail.saturating_sub((p.credits - k) as u64 * ser_credit);
        self.hcas
            .sink
            .finish(self.hcas.sink_steps.start[h as usize], bytes)
            .max(arrived)
    }

    /// Schedules the next per-credit step of HCA `h`'s head packet, if it comes before the
    /// packet is done (`done`: [`Ev::SinkDone`] returns whatever is left).
    fn schedule_sink_credit(&mut self, h: u32, done: Ps, now: Ps) {
        let hi = h as usize;
        let pid = *self.hcas.sink_q[hi].front().expect("sink has a packet");
        let k = self.hcas.sink_steps.returned[hi] + 1;
        if k >= self.pkts[pid].credits {
            return;
        }
        let t = self.sink_credit_time(h, k).max(now);
        if t < done {
            let seq = self.hcas.sink_steps.seq[hi];
            self.at(t, Ev::SinkCredit { hca: h, seq });
        }
    }

    /// A per-credit sink has drained the next credit of its head packet: it goes back upstream.
    #[inline(never)]
    pub(crate) fn sink_credit(&mut self, h: u32, seq: u32, now: Ps) {
        let hi = h as usize;
        if seq != self.hcas.sink_steps.seq[hi] || !self.hcas.sink_busy[hi] {
            return; // a step of a packet that is done already
        }
        let pid = *self.hcas.sink_q[hi].front().expect("sink has a packet");
        let (vl, done) = (
            self.pkts[pid].vl,
            self.hcas
                .sink
                .finish(self.hcas.sink_steps.start[hi], self.pkts[pid].bytes as u64)
                .max(self.pkts[pid].tail),
        );
        let g = self.hcas.hca_gport[hi];
        self.release_input::<AnySwitch>(g, vl, vl as u16, 1);
        self.return_credits::<AnySwitch>(g, vl as u16, 1, now);
        self.hcas.sink_steps.returned[hi] += 1;
        self.schedule_sink_credit(h, done, now);
    }

    /// The sink of HCA `h` consumed its head packet.
    pub(crate) fn sink_done<K: SwitchKind>(&mut self, h: u32, now: Ps) {
        let pid = self.hcas.sink_q[h as usize]
            .pop_front()
            .expect("sink had a packet");
        let g = self.hcas.hca_gport[h as usize];
        let p = self.pkts[pid];
        // the routing's SLs (dfsssp): every packet arrives on the SL of its (source, DLID) pair,
        // the DLID's offset in `path` (a notification's: 0, the base LID)
        #[cfg(debug_assertions)]
        if let Some(t) = self.routes.lane_choice.path_sl() {
            debug_assert_eq!(
                p.vl,
                t.of_hcas(p.src, h, p.path),
                "packet {} → {h} (LID offset {}) off its pair's SL",
                p.src,
                p.path
            );
        }
        // an HCA's receive buffer has one queue per VL: the counter is the VL; a per-credit
        // sink has returned some of them already
        let left = if self.hcas.sink.per_credit {
            p.credits - std::mem::take(&mut self.hcas.sink_steps.returned[h as usize])
        } else {
            p.credits
        };
        self.release_input::<K>(g, p.vl, p.vl as u16, left);
        self.return_credits::<K>(g, p.vl as u16, left, now);
        if p.flags & CNP != 0 {
            self.stats.delivered_control += 1;
        } else {
            self.stats
                .rx(h, now, p.bytes, now - p.created, now - p.injected);
            let seq = self.pkts.seq(pid);
            self.message_packet_delivered(p.flow, seq, p.created, now); // drb spec A.7
            let f = &mut self.traffic.flows[p.flow as usize];
            f.delivered_seq(seq);
            f.rx_bytes += p.bytes as u64;
            f.rx_packets += 1;
            f.latency_sum += (now - p.created) as u128;
            if now >= self.stats.window {
                f.rx_bytes_window += p.bytes as u64;
            }
        }
        if p.flags & CNP != 0 {
            let flow = &self.traffic.flows[p.flow as usize];
            self.cc.notification_received(h, &p, flow, now);
            // DDBBM: the status bits (the queue a flow's next message joins) may have changed
            self.refresh_ready_slots(h);
            self.hcas.hca_blocked[h as usize] = 0;
        } else if may(K::CONGESTION_MANAGEMENT) {
            if let Some(n) = self.cc.packet_received(h, &p, now) {
                self.queue_notification(h, n, now);
            }
        }
        self.pkts.free(pid);
        if self.hcas.sink_q[h as usize].is_empty() {
            self.hcas.sink_busy[h as usize] = false;
        } else {
            self.start_sink(h, now);
        }
    }
}
