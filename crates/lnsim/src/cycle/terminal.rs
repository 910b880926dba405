//! Terminals of the cycle-level model (Dragonfly spec §2.1, §4.1): packet generation by a
//! Bernoulli process (geometric gaps drawn ahead through the calendar), the source backlog,
//! and injection over the terminal's link into the router's injection queue, paced by its
//! credits.

use super::packet::Pkt;
use super::{CycleNet, Ev};
use crate::traffic::injection::Bernoulli;

impl CycleNet {
    /// (Re)starts every terminal's Bernoulli process at cycle `from` with the load then in force.
    pub(super) fn start_generators(&mut self, from: u64) {
        let load = self.terms.traffic.load_at(from);
        self.terms.gen = Bernoulli::new((load / self.k.pkt_phits as f64).min(1.0));
        for t in 0..self.k.terminals {
            if self.terms.traffic.active(t, from) {
                self.schedule_gen(t, from);
            }
        }
    }

    /// Draws the cycle of terminal `t`'s next packet (geometric gap: one Bernoulli trial per
    /// cycle with probability load / L), counting from cycle `from` inclusive.
    #[inline]
    pub(super) fn schedule_gen(&mut self, t: u32, from: u64) {
        if self.terms.gen.never() {
            return;
        }
        let gap = self.terms.gen.failures(&mut self.terms.rng[t as usize]);
        let when = from + gap;
        if when == self.now {
            // same cycle: generate now (only at start or change, from == now)
            self.generate_at(t);
            self.schedule_gen(t, when + 1);
        } else if when - self.now <= self.eng.cal.mask {
            if when < self.k.end {
                let epoch = self.terms.state[t as usize].epoch;
                self.at(when, Ev::Gen { t, epoch });
            }
        } else {
            // beyond the calendar: no packet before the horizon; the process is memoryless,
            // so the gap is drawn afresh from there (deciding "after the end" from this draw
            // would bias the count, the redraw must be unconditional)
            let h = self.now + self.eng.cal.mask;
            if h < self.k.end {
                let epoch = self.terms.state[t as usize].epoch;
                self.at(h, Ev::GenWait { t, epoch });
            }
        }
    }

    /// Terminal `t`'s generation event: a packet now, and the draw of the next one.
    #[inline]
    pub(super) fn generate(&mut self, t: u32) {
        self.generate_at(t);
        let next = self.now + 1;
        self.schedule_gen(t, next);
    }

    /// Terminal `t` generates a packet at the current cycle: it joins the terminal's backlog,
    /// or leaves at once when nothing waits before it and its link and credits allow.
    fn generate_at(&mut self, t: u32) {
        let now = self.now;
        let ti = t as usize;
        let dst = self
            .terms
            .traffic
            .destination(t, now, &mut self.terms.rng[ti]);
        let id = self.eng.pkts.alloc(
            Pkt {
                src: t,
                gen: now,
                t_net: 0,
            },
            dst,
        );
        self.stats.generated(now, self.k.pkt_phits);
        let waiting = self.terms.state[ti].backlog_len;
        if waiting == 0
            && self.terms.state[ti].credits >= self.k.pkt_phits
            && self.terms.state[ti].link_free <= now
            && (!self.k.cm_on || self.cm.ready_at(t, now) == now)
        {
            // what `term_send` does with a backlog of this packet alone
            self.inject(t, id);
            return;
        }
        let mut q = self.terms.state[ti].backlog;
        self.eng.pkts.push(&mut q, id);
        self.terms.state[ti].backlog = q;
        self.terms.state[ti].backlog_len = waiting + 1;
        self.term_send(t);
    }

    #[inline]
    pub(super) fn term_credit(&mut self, t: u32) {
        let ti = t as usize;
        self.terms.state[ti].credits += self.k.pkt_phits;
        if self.terms.state[ti].backlog_len > 0 {
            self.term_send(t);
        }
    }

    /// Terminal `t` puts its oldest waiting packet on its link if the link is free and the
    /// router's injection queue has room for it.
    #[inline(never)]
    pub(super) fn term_send(&mut self, t: u32) {
        let ti = t as usize;
        if self.terms.state[ti].backlog_len == 0 || self.terms.state[ti].credits < self.k.pkt_phits
        {
            return;
        }
        let now = self.now;
        let free = self.terms.state[ti].link_free;
        if free > now {
            if self.terms.state[ti].try_at != free {
                self.terms.state[ti].try_at = free;
                self.at(free, Ev::TermTry { t });
            }
            return;
        }
        // the congestion management's injection decision
        let ready = if self.k.cm_on {
            self.cm.ready_at(t, now)
        } else {
            now
        };
        if ready > now {
            // (beyond the calendar's horizon — a slow QCN rate limiter — the terminal asks
            // again at the horizon)
            let wake = ready.min(now + self.eng.cal.mask);
            if self.terms.state[ti].try_at != wake {
                self.terms.state[ti].try_at = wake;
                self.at(wake, Ev::TermTry { t });
            }
            return;
        }
        let mut q = self.terms.state[ti].backlog;
        let id = self.eng.pkts.pop(&mut q);
        self.terms.state[ti].backlog = q;
        self.terms.state[ti].backlog_len -= 1;
        self.inject(t, id);
        if self.terms.state[ti].backlog_len > 0 && self.terms.state[ti].credits >= self.k.pkt_phits
        {
            let at = self.terms.state[ti].link_free;
            self.terms.state[ti].try_at = at;
            self.at(at, Ev::TermTry { t });
        }
    }

    /// Terminal `t` puts packet `id` (no longer in its backlog) on its free link, spending the
    /// credits of one packet.
    #[inline(always)]
    fn inject(&mut self, t: u32, id: u32) {
        let ti = t as usize;
        let now = self.now;
        self.terms.state[ti].credits -= self.k.pkt_phits;
        self.terms.state[ti].link_free = now + self.k.pkt_phits as u64;
        if self.k.cm_on {
            self.cm.packet_sent(t, now);
        }
        self.stats
            .injected(now, self.terms.router[ti], self.k.pkt_phits);
        let gp = self.terms.gp[ti];
        if self.k.inj_latency == 0 {
            self.arrive(id, gp, 0);
        } else {
            let when = now + self.k.inj_latency;
            self.at(when, Ev::Arrive { pkt: id, gp, vc: 0 });
        }
    }
}
