//! Traffic generators at the HCA: greedy (flood) sources always keep one message queued and
//! open the next when it is done, drawing its destination; Bernoulli sources create messages at
//! random slot times (spec §3.7.1), Poisson sources after exponential gaps (drb-and-ddbbm spec
//! A.6). Messages wait in their flow's injection queue (without bound).

use crate::config::{Injection, Ps};
use crate::credit::{Ev, Net};

/// Most extra messages a greedy source opens while its flows are held back by CC.
const MAX_PARKED: u32 = 8;

/// [`Ev::Arrival`]'s destination for a flood source (which draws at each message it opens).
pub(crate) const NO_DESTINATION: u32 = u32::MAX;

impl Net {
    /// Schedules every source's first activity.
    pub(crate) fn start_sources(&mut self) {
        for s in 0..self.traffic.sources.len() as u32 {
            let src = &mut self.traffic.sources[s as usize];
            let t = match src.injection {
                Injection::Flood => src.start,
                Injection::Bernoulli | Injection::Poisson => src.next_arrival(src.start),
                // a constant-rate source starts at its own phase within one gap
                Injection::Periodic => src.first_periodic_arrival(),
            };
            if t < self.engine.end && t < src.stop {
                self.schedule_arrival(s, t);
            }
        }
    }

    /// Schedules source `s`'s next timer at `t`; a Bernoulli or Poisson source draws the
    /// destination of the message it will create then (its destination stream is its own:
    /// drawn now or then, the draws are the same).
    fn schedule_arrival(&mut self, s: u32, t: Ps) {
        let dst = if self.traffic.sources[s as usize].injection == Injection::Flood {
            NO_DESTINATION
        } else {
            self.traffic.pick_destination(s)
        };
        self.at(t, Ev::Arrival { source: s, dst });
    }

    /// A source's timer fired: a flood source starts, a Bernoulli or Poisson source creates a
    /// message to `dst` (drawn by [`Net::schedule_arrival`]) and draws the time of its next one.
    pub(crate) fn arrival(&mut self, s: u32, dst: u32, now: Ps) {
        let src = &self.traffic.sources[s as usize];
        if !src.active(now) {
            return;
        }
        let h = src.hca;
        match src.injection {
            Injection::Flood => self.refill(s, now),
            Injection::Bernoulli | Injection::Poisson | Injection::Periodic => {
                self.create_message(s, dst, now);
                let src = &mut self.traffic.sources[s as usize];
                let t = src.next_arrival(now);
                if t < self.engine.end && t < src.stop {
                    self.schedule_arrival(s, t);
                }
            }
        }
        self.try_hca_send(h, now);
    }

    /// Source `s` creates one message to its next destination.
    pub(crate) fn refill(&mut self, s: u32, now: Ps) {
        let dst = self.traffic.pick_destination(s);
        self.create_message(s, dst, now);
    }

    /// Source `s` creates one message to `dst`.
    fn create_message(&mut self, s: u32, dst: u32, now: Ps) {
        let f = self.traffic.flow_for(s, dst);
        let pk = self.traffic.sources[s as usize].msg_packets;
        let h = self.traffic.sources[s as usize].hca;
        let timed = self.traffic.sources[s as usize].injection != Injection::Flood;
        self.stats
            .message_generated(now, pk as u64 * self.pkt_bytes as u64, timed);
        let fl = &mut self.traffic.flows[f as usize];
        if fl.msgs.is_empty() {
            fl.head_since = now;
        }
        fl.msgs.push_back(crate::credit::traffic::Message {
            created: now,
            packets_left: pk,
        });
        if !fl.ready {
            fl.ready = true;
            self.push_ready(h, f);
        }
    }

    /// All flows of HCA `h` are held back by CC: let one greedy random source open another
    /// message. Returns true if one did.
    pub(crate) fn open_extra_message(&mut self, h: u32, now: Ps) -> bool {
        for i in 0..self.traffic.by_hca[h as usize].len() {
            let s = self.traffic.by_hca[h as usize][i];
            let src = &self.traffic.sources[s as usize];
            let random = matches!(
                src.dest,
                crate::credit::traffic::Destinations::Random { .. }
            );
            if random
                && src.injection == Injection::Flood
                && src.active(now)
                && src.parked < MAX_PARKED
            {
                self.traffic.sources[s as usize].parked += 1;
                self.refill(s, now);
                return true;
            }
        }
        false
    }

    /// Data packet `seq` of flow `f`, created at `created`, was consumed at `now`: when it is
    /// the last of its message to arrive, the message's latency (generation → last packet
    /// delivered, source queueing included: drb-and-ddbbm spec A.7) is recorded. Flood sources
    /// have no generation time (an endless backlog) and are left out.
    #[inline]
    pub(crate) fn message_packet_delivered(&mut self, f: u32, seq: u32, created: Ps, now: Ps) {
        let src = &self.traffic.sources[self.traffic.flows[f as usize].source as usize];
        if src.injection == Injection::Flood {
            return;
        }
        let m = src.msg_packets;
        if self.traffic.flows[f as usize].delivered_message_packet(seq, m) {
            self.stats.message_delivered(created, now);
        }
    }
}
