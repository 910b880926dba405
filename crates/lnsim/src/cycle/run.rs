//! The cycle loop of the cycle-level model: calendar events, terminal injection, then per
//! active router its output links and its allocator; saturation watch; conservation check.

use super::calendar::{Arrival, Calendar, Slot};
use super::packet::{Pkt, NIL};
use super::prefetch::{prefetch, prefetch_ptr};
use super::results::Counts;
use super::{flag, CycleNet, Ev, PortKind, PortState, VcOut};
use crate::config::LoadedScenario;
use crate::cycle::separable_allocator::{after, bits, round_robin};
use crate::engine::run::Ending;
use crate::engine::run::{RunOptions, RunOutput};
use crate::error::{Error, Result};
use crate::routing::candidates::{Occupancy, RouteState};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

/// Runs a cycle-level scenario and writes its results folder `out_dir` (nothing on failure;
/// what was simulated, marked incomplete, when `interrupted` stops it).
pub fn run_cycle_scenario(
    l: &LoadedScenario,
    opts: &RunOptions,
    out_dir: &std::path::Path,
    interrupted: &mut dyn FnMut() -> bool,
) -> Result<RunOutput> {
    let mut setup = crate::engine::progress::SetupProgress::new(opts.progress);
    let mut net = CycleNet::build(l, &mut setup)?;
    setup.phase("route table");
    net.tabulate_routes();
    setup.finish();
    net.stats.setup_s = setup.elapsed();
    let wall = Instant::now();
    let planned_end = net.end;
    let ending = if net.run(opts.progress, interrupted)? {
        Ending::Interrupted { planned_end }
    } else {
        Ending::Complete
    };
    let wall_s = wall.elapsed().as_secs_f64();
    let cons = net.check_conservation()?;
    let summary = super::results::write(&net, l, out_dir, wall_s, cons, ending)?;
    Ok(RunOutput {
        out_dir: out_dir.to_path_buf(),
        summary_json: summary,
        complete: ending.is_complete(),
    })
}

/// Output `gp` (its record `port`) is examined again at cycle `t` (> now) unless it already
/// is earlier: an `OutReady` event in `calendar` (see [`schedule`]).
#[inline(always)]
fn wake_output_at(port: &mut PortState, cal: &mut Calendar, gp: u32, t: u64) {
    if t < port.out_wake_at {
        port.out_wake_at = t;
        cal.push(t, Ev::OutReady { gp });
    }
}

/// Events looked ahead by the prefetch while a calendar slot is drained.
const PREFETCH_AHEAD: usize = 4;

/// No cached route for an input VC's head.
const NO_ROUTE: u32 = u32::MAX;

/// Packs a candidate (output port, VC range) into one word.
#[inline]
fn pack(port: u32, lo: u8, hi: u8) -> u32 {
    port | (lo as u32) << 8 | (hi as u32) << 16
}

/// Unpacks a candidate.
#[inline]
fn unpack(x: u32) -> (u32, u8, u8) {
    (x & 0xFF, (x >> 8) as u8, (x >> 16) as u8)
}

/// Read-only view of the occupancy signals (spec §2.6) for source-adaptive decisions.
struct View<'a> {
    radix: u32,
    vcs: u32,
    port: &'a [super::PortState],
    vout: &'a [super::VcOut],
    credit_cap_of: [u32; 4],
    pkt_phits: u32,
    pb: Option<&'a crate::routing::piggyback::PiggybackState>,
    now: u64,
}

impl Occupancy for View<'_> {
    #[inline]
    fn q(&self, r: u32, port: u32, vc: u8) -> u64 {
        let g = (r * self.radix + port) as usize;
        let i = g * self.vcs as usize + vc as usize;
        let leaving = self.port[g].link_free > self.now && self.port[g].last_vc == vc;
        let o = &self.vout[i];
        let out = o.used + if leaving { self.pkt_phits } else { 0 };
        let full = self.credit_cap_of[self.port[g].kind as usize];
        (out + (full - o.credits)) as u64
    }
    #[inline]
    fn pb_bits(&self, reader: u32, r: u32) -> u64 {
        self.pb.map_or(0, |p| p.read(self.now, reader, r))
    }
}

impl CycleNet {
    /// Runs until the end cycle (or saturation); returns true when `interrupted` stopped it
    /// early, at the end of a whole cycle (`stats.stop` is then the first cycle not simulated).
    pub(crate) fn run(
        &mut self,
        progress: bool,
        interrupted: &mut dyn FnMut() -> bool,
    ) -> Result<bool> {
        self.start_generators(0);
        let change = self
            .traffic
            .change_cycle()
            .filter(|&c| c > 0 && c < self.end);
        let mut watch = crate::engine::progress::RunProgress::new(
            progress,
            self.end,
            "{bar:40} cycle {pos}/{len} [{elapsed_precise} < {eta}]",
        );
        let mut stopped = false;
        while self.now < self.end {
            let now = self.now;
            if change == Some(now) {
                self.traffic_change();
            }
            if now == self.warmup {
                let n = self.at_sources();
                self.stats.mark_sources(n);
            }
            let slot = self.cal.take(now);
            self.stats.events += slot.len() as u64;
            self.handle_events(&slot);
            self.cal.give_back(now, slot);
            if self.pb.is_some() {
                self.publish_piggyback();
            }
            if self.always_wake {
                self.wake_everything();
            }
            // every link stage, then every allocator, in increasing router order (neither
            // gives work to another router this cycle)
            for w in 0..self.link_work.len() {
                let mut bits = std::mem::take(&mut self.link_work[w]);
                while bits != 0 {
                    let r = (w as u32) << 6 | bits.trailing_zeros();
                    bits &= bits - 1;
                    self.stats.router_visits += 1;
                    self.router_links(r);
                }
            }
            for w in 0..self.alloc_work.len() {
                // (an allocator may set its own bit again: it retries next cycle)
                let mut bits = std::mem::take(&mut self.alloc_work[w]);
                while bits != 0 {
                    let r = (w as u32) << 6 | bits.trailing_zeros();
                    bits &= bits - 1;
                    self.stats.allocations += 1;
                    self.router_allocate(r);
                }
            }
            if now & 0xFF == 0xFF {
                if let Some(f) = &self.fault {
                    return Err(Error::Internal(f.clone()));
                }
                if self.saturation_watch() {
                    self.now += 1;
                    break;
                }
                match watch.poll(now, interrupted, |_| None) {
                    Err(Error::Interrupted) => {
                        stopped = true;
                        self.now += 1;
                        break;
                    }
                    r => r?,
                }
            }
            self.now += 1;
        }
        self.stats.stop = self.now;
        watch.finish();
        if let Some(f) = &self.fault {
            return Err(Error::Internal(f.clone()));
        }
        Ok(stopped)
    }

    /// Handles the events of one cycle, kind by kind (see [`super::calendar`]).
    #[inline(always)]
    fn handle_events(&mut self, slot: &Slot) {
        self.drain(&slot.arrive, Self::prefetch_arrival, Self::on_arrival);
        self.drain(&slot.credit, Self::prefetch_credit, Self::on_credit);
        self.drain(&slot.out_ready, Self::prefetch_port, Self::on_out_ready);
        self.drain(
            &slot.port_free,
            Self::prefetch_port_flag,
            Self::on_port_free,
        );
        self.drain(&slot.term_credit, Self::prefetch_term, Self::term_credit);
        self.drain(&slot.gen, Self::prefetch_generator, Self::on_gen);
        for &(t, epoch) in &slot.gen_wait {
            if epoch == self.term[t as usize].epoch {
                let now = self.now;
                self.schedule_gen(t, now);
            }
        }
        for &t in &slot.term_try {
            if self.term[t as usize].try_at == self.now {
                self.term[t as usize].try_at = u64::MAX;
                self.term_send(t);
            }
        }
    }

    #[inline(always)]
    fn on_arrival(&mut self, a: Arrival) {
        self.arrive(a.pkt, a.gp, a.vc)
    }

    /// Credits for one packet reach output `gp`/`vc`.
    #[inline(always)]
    fn on_credit(&mut self, (gp, vc): (u32, u8)) {
        let l = self.pkt_phits;
        self.vout[(gp * self.vcs) as usize + vc as usize].credits += l;
        // (the downstream buffer's occupancy count dropped when the packet left it)
        if self.port[gp as usize].out_count > 0 {
            self.mark_output(gp);
        }
    }

    /// Output `gp`'s wake-up (stale when an earlier one replaced it: that one re-armed the
    /// port).
    #[inline(always)]
    fn on_out_ready(&mut self, gp: u32) {
        let port = &mut self.port[gp as usize];
        if port.out_wake_at == self.now {
            port.out_wake_at = u64::MAX;
            if port.out_count > 0 {
                self.mark_output(gp);
            }
        }
    }

    /// An input's or output's crossbar port, or room in an output buffer, is free (`flag` is
    /// its pending-event flag).
    #[inline(always)]
    fn on_port_free(&mut self, (gp, flag): (u32, u8)) {
        let port = &mut self.port[gp as usize];
        port.flags &= !flag;
        if self.prefetch && flag == flag::XIN_EVT {
            // large networks: the allocator will route this input's unrouted heads later in
            // this cycle; fetch their records now
            let base = gp * self.vcs;
            for v in bits(port.in_vcs) {
                let s = &self.vc[(base + v) as usize];
                if s.head_route == NO_ROUTE {
                    prefetch(&self.pkts.link, s.in_q.0 as usize);
                }
            }
        }
        self.wake_allocator(self.split_gp(gp).0);
    }

    /// Terminal `t`'s generation (stale from an older epoch).
    #[inline(always)]
    fn on_gen(&mut self, (t, epoch): (u32, u32)) {
        if epoch == self.term[t as usize].epoch {
            self.generate(t);
        }
    }

    /// Handles the events `list` of one kind with `handle`; on large networks
    /// ([`CycleNet::prefetch`]) the records of the event [`PREFETCH_AHEAD`] places ahead are
    /// fetched (`fetch`) while one is handled.
    #[inline(always)]
    fn drain<T: Copy>(&mut self, list: &[T], fetch: fn(&Self, T), handle: fn(&mut Self, T)) {
        if self.prefetch {
            for &x in list.iter().take(PREFETCH_AHEAD) {
                fetch(self, x);
            }
            for (i, &x) in list.iter().enumerate() {
                if let Some(&y) = list.get(i + PREFETCH_AHEAD) {
                    fetch(self, y);
                }
                handle(self, x);
            }
        } else {
            for &x in list {
                handle(self, x);
            }
        }
    }

    // prefetches of what an event touches first (hints only, no state changes)

    #[inline(always)]
    fn prefetch_arrival(&self, a: Arrival) {
        prefetch(&self.pkts.link, a.pkt as usize);
        prefetch(&self.port, a.gp as usize);
        prefetch(&self.vc, (a.gp * self.vcs) as usize + a.vc as usize);
    }

    #[inline(always)]
    fn prefetch_credit(&self, (gp, vc): (u32, u8)) {
        prefetch(&self.vout, (gp * self.vcs) as usize + vc as usize);
        prefetch(&self.port, gp as usize);
    }

    #[inline(always)]
    fn prefetch_port(&self, gp: u32) {
        prefetch(&self.port, gp as usize);
    }

    #[inline(always)]
    fn prefetch_port_flag(&self, (gp, _): (u32, u8)) {
        prefetch(&self.port, gp as usize);
    }

    #[inline(always)]
    fn prefetch_term(&self, t: u32) {
        prefetch(&self.term, t as usize);
    }

    #[inline(always)]
    fn prefetch_generator(&self, (t, _): (u32, u32)) {
        prefetch(&self.term, t as usize);
        // the generator's state and its buffer of random words
        let rng = &self.rng_term[t as usize] as *const ChaCha8Rng as *const u8;
        for k in (0..std::mem::size_of::<ChaCha8Rng>()).step_by(64) {
            prefetch_ptr(rng.wrapping_add(k));
        }
    }

    /// The traffic changes (transient pattern): every generator restarts with the new load.
    fn traffic_change(&mut self) {
        let now = self.now;
        for t in 0..self.terminals {
            self.term[t as usize].epoch += 1;
        }
        self.start_generators(now);
    }

    // ------------------------------------------------------------------------------ terminals

    /// (Re)starts every terminal's Bernoulli process at cycle `from` with the load then in force.
    fn start_generators(&mut self, from: u64) {
        let load = self.traffic.load_at(from);
        self.gen_prob = (load / self.pkt_phits as f64).min(1.0);
        self.gen_log_q = (1.0 - self.gen_prob).ln();
        for t in 0..self.terminals {
            if self.traffic.active(t, from) {
                self.schedule_gen(t, from);
            }
        }
    }

    /// Draws the cycle of terminal `t`'s next packet (geometric gap: one Bernoulli trial per
    /// cycle with probability load / L), counting from cycle `from` inclusive.
    #[inline]
    fn schedule_gen(&mut self, t: u32, from: u64) {
        let p = self.gen_prob;
        if p <= 0.0 {
            return;
        }
        let gap = if p >= 1.0 {
            0
        } else {
            let u: f64 = self.rng_term[t as usize].random();
            // ⌊ln(1 − u) / ln(1 − p)⌋: the quotient is ≥ 0 (or NaN, cast to 0), so the
            // truncating cast is the floor
            ((1.0 - u).ln() / self.gen_log_q) as u64
        };
        let when = from + gap;
        if when == self.now {
            // same cycle: generate now (only at start or change, from == now)
            self.generate_at(t);
            self.schedule_gen(t, when + 1);
        } else if when - self.now <= self.cal.mask {
            if when < self.end {
                let epoch = self.term[t as usize].epoch;
                self.at(when, Ev::Gen { t, epoch });
            }
        } else {
            // beyond the calendar: no packet before the horizon; the process is memoryless,
            // so the gap is drawn afresh from there (deciding "after the end" from this draw
            // would bias the count, the redraw must be unconditional)
            let h = self.now + self.cal.mask;
            if h < self.end {
                let epoch = self.term[t as usize].epoch;
                self.at(h, Ev::GenWait { t, epoch });
            }
        }
    }

    fn generate(&mut self, t: u32) {
        self.generate_at(t);
        let next = self.now + 1;
        self.schedule_gen(t, next);
    }

    /// Terminal `t` generates a packet at the current cycle: it joins the terminal's backlog,
    /// or leaves at once when nothing waits before it and its link and credits allow.
    fn generate_at(&mut self, t: u32) {
        let now = self.now;
        let ti = t as usize;
        let dst = self.traffic.destination(t, now, &mut self.rng_term[ti]);
        let id = self.pkts.alloc(
            Pkt {
                src: t,
                gen: now,
                t_net: 0,
            },
            dst,
        );
        self.stats.generated(now, self.pkt_phits);
        let waiting = self.term[ti].backlog_len;
        if waiting == 0 && self.term[ti].credits >= self.pkt_phits && self.term[ti].link_free <= now
        {
            // what `term_send` does with a backlog of this packet alone
            self.inject(t, id);
            return;
        }
        let mut q = self.term[ti].backlog;
        self.pkts.push(&mut q, id);
        self.term[ti].backlog = q;
        self.term[ti].backlog_len = waiting + 1;
        self.term_send(t);
    }

    #[inline]
    fn term_credit(&mut self, t: u32) {
        let ti = t as usize;
        self.term[ti].credits += self.pkt_phits;
        if self.term[ti].backlog_len > 0 {
            self.term_send(t);
        }
    }

    /// Terminal `t` puts its oldest waiting packet on its link if the link is free and the
    /// router's injection queue has room for it.
    #[inline(never)]
    fn term_send(&mut self, t: u32) {
        let ti = t as usize;
        if self.term[ti].backlog_len == 0 || self.term[ti].credits < self.pkt_phits {
            return;
        }
        let now = self.now;
        let free = self.term[ti].link_free;
        if free > now {
            if self.term[ti].try_at != free {
                self.term[ti].try_at = free;
                self.at(free, Ev::TermTry { t });
            }
            return;
        }
        let mut q = self.term[ti].backlog;
        let id = self.pkts.pop(&mut q);
        self.term[ti].backlog = q;
        self.term[ti].backlog_len -= 1;
        self.inject(t, id);
        if self.term[ti].backlog_len > 0 && self.term[ti].credits >= self.pkt_phits {
            let at = self.term[ti].link_free;
            self.term[ti].try_at = at;
            self.at(at, Ev::TermTry { t });
        }
    }

    /// Terminal `t` puts packet `id` (no longer in its backlog) on its free link, spending the
    /// credits of one packet.
    #[inline(always)]
    fn inject(&mut self, t: u32, id: u32) {
        let ti = t as usize;
        let now = self.now;
        self.term[ti].credits -= self.pkt_phits;
        self.term[ti].link_free = now + self.pkt_phits as u64;
        self.stats
            .injected(now, self.term_router[ti], self.pkt_phits);
        let gp = self.term_gp[ti];
        if self.inj_latency == 0 {
            self.arrive(id, gp, 0);
        } else {
            let when = now + self.inj_latency;
            self.at(when, Ev::Arrive { pkt: id, gp, vc: 0 });
        }
    }

    // -------------------------------------------------------------------------------- routers

    /// Reference mode of the tests: every router holding packets runs its link stage on every
    /// output with packets and its allocator, every cycle — what the wake-up events must
    /// reproduce exactly.
    fn wake_everything(&mut self) {
        for r in 0..self.routers {
            let mut outs = 0u64;
            for p in 0..self.radix {
                if self.port[(r * self.radix + p) as usize].out_count > 0 {
                    outs |= 1 << p;
                }
            }
            self.rs[r as usize].out_mask |= outs;
            if outs != 0 {
                super::set_bit(&mut self.link_work, r);
            }
            if self.rs[r as usize].in_mask != 0 {
                super::set_bit(&mut self.alloc_work, r);
            }
        }
    }

    /// Phits held in output buffer `gp`/`vc`: the queued packets plus the one whose tail is
    /// still leaving on the link.
    #[inline]
    pub(crate) fn out_occupancy(&self, gp: u32, vc: u32) -> u32 {
        let i = (gp * self.vcs + vc) as usize;
        let g = gp as usize;
        let leaving = self.port[g].link_free > self.now && self.port[g].last_vc as u32 == vc;
        self.vout[i].used + if leaving { self.pkt_phits } else { 0 }
    }

    /// Output `gp`, which holds packets, may be able to send: its link stage looks at it this
    /// cycle.
    #[inline(always)]
    fn mark_output(&mut self, gp: u32) {
        let (r, p) = self.split_gp(gp);
        self.rs[r as usize].out_mask |= 1 << p;
        super::set_bit(&mut self.link_work, r);
    }

    /// Something that may unblock router `r`'s allocator happened (an arrival, a free
    /// crossbar port, room in an output buffer): it runs this cycle.
    #[inline]
    fn wake_allocator(&mut self, r: u32) {
        if self.rs[r as usize].in_mask != 0 {
            super::set_bit(&mut self.alloc_work, r);
        }
    }

    /// A packet's head reaches router input `gp` on VC `vc` (a router-to-router hop more
    /// unless it comes from its terminal).
    #[inline(always)]
    fn arrive(&mut self, id: u32, gp: u32, vc: u8) {
        let port = &mut self.port[gp as usize];
        port.in_count += 1;
        let hop_kind = port.kind;
        let hop = hop_kind != PortKind::Terminal;
        port.in_vcs |= 1 << vc;
        let lk = &mut self.pkts.link[id as usize];
        lk.ready = self.now;
        lk.hops += hop as u8;
        let dst = lk.dst;
        let (r, p) = self.split_gp(gp);
        let vc = vc as u32;
        let i = (gp * self.vcs + vc) as usize;
        let s = &mut self.vc[i];
        s.in_used += self.pkt_phits;
        let (used, cap) = (s.in_used, self.in_cap_of[hop_kind as usize]);
        if s.in_q.0 == NIL && !self.route_table.is_empty() {
            // a new head: a stateless routing's next hop from its table now
            s.head_route = self.route_table[(r * self.terminals + dst) as usize];
        }
        self.pkts.push(&mut s.in_q, id);
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
    fn router_links(&mut self, r: u32) {
        let now = self.now;
        let vcs = self.vcs;
        let l = self.pkt_phits;
        // examined now: each output sleeps until an event (ready head, credits, free link)
        // wakes it
        let mut mask = std::mem::take(&mut self.rs[r as usize].out_mask);
        while mask != 0 {
            let p = mask.trailing_zeros();
            mask &= mask - 1;
            let gp = r * self.radix + p;
            // one reference to the port record for the whole look
            let port = &mut self.port[gp as usize];
            if port.link_free > now {
                let t = port.link_free;
                wake_output_at(port, &mut self.cal, gp, t);
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
                let go = (t <= now) & (terminal | (o.credits >= l));
                ready |= (go as u64) << v;
                next_ready = next_ready.min(if t > now { t } else { u64::MAX });
            }
            // (no-op when no head waits: u64::MAX is never below `out_wake_at`)
            wake_output_at(port, &mut self.cal, gp, next_ready);
            let Some(v) = round_robin(ready, port.link_ptr as u32) else {
                continue;
            };
            let i = base + v as usize;
            let o = &mut self.vout[i];
            let id = self.pkts.out_pop(&mut o.q);
            // the packet leaves the output buffer over the next L cycles: its space counts as
            // occupied until the link is free (`out_occupancy`)
            o.used -= l;
            if !terminal {
                o.credits -= l;
            }
            port.link_ptr = after(v, n as u32) as u8;
            port.out_count -= 1;
            port.last_vc = v as u8;
            let free = now + l as u64;
            port.link_free = free;
            if port.out_count > 0 {
                wake_output_at(port, &mut self.cal, gp, free);
            }
            if port.flags & flag::SPACE_WAIT != 0 {
                port.flags = port.flags & !flag::SPACE_WAIT | flag::SPACE_EVT;
                self.cal.push(free, Ev::SpaceFree { gp });
            }
            let (down, latency) = (port.peer, port.latency as u64);
            self.stats.phit_hops += l as u64;
            if terminal {
                let done = now + self.ej_latency + l as u64;
                let (p, lk) = (&self.pkts.v[id as usize], &self.pkts.link[id as usize]);
                self.stats.delivered_at(p, lk, now, done, l, r);
                self.pkts.free(id);
            } else {
                // (the packet counts the hop on arrival)
                let ev = Ev::Arrive {
                    pkt: id,
                    gp: down,
                    vc: v as u8,
                };
                self.cal.push(now + latency, ev);
            }
        }
    }

    /// Routes packet `id`, the head of an input queue of router `r` (its source decision
    /// first when it comes from a terminal): returns the packed candidate (port, VC range).
    /// (A stateless routing reads [`CycleNet::route_table`] instead.)
    #[inline(never)]
    fn route_head(&mut self, r: u32, id: u32) -> u32 {
        let i = id as usize;
        // (MIN and DOR do not read the hop count)
        if self.routing.decides_at_injection() && self.pkts.link[i].hops == 0 {
            self.source_decision(r, id);
        }
        let p = &mut self.pkts.link[i];
        let dst = p.dst;
        let dst_router = self.term_router[dst as usize];
        match self.routing.next_hop(r, dst_router, &mut p.st) {
            Ok(Some(c)) => pack(c.port as u32, c.vc_lo, c.vc_hi),
            Ok(None) => self.ejection_hop(dst),
            Err(e) => {
                self.fail(format!("routing: {e}"));
                pack(0, 0, 0)
            }
        }
    }

    /// The packed hop onto destination terminal `dst`'s port.
    #[inline]
    fn ejection_hop(&self, dst: u32) -> u32 {
        pack(self.split_gp(self.term_gp[dst as usize]).1, 0, 0)
    }

    /// Largest route table (entries: routers × terminals) [`CycleNet::tabulate_routes`]
    /// builds: 4 Mi entries, 16 MiB.
    const MAX_ROUTE_TABLE: u64 = 1 << 22;

    /// For a routing whose next hop depends on the router and the destination alone
    /// ([`crate::routing::candidates::CycleRouting::stateless`], mesh DOR), computes every
    /// packed next hop once (by the same code as [`CycleNet::route_head`]) so that routing a
    /// head is one table read; nothing for other routings or beyond [`Self::MAX_ROUTE_TABLE`].
    pub(crate) fn tabulate_routes(&mut self) {
        let n = self.routers as u64 * self.terminals as u64;
        if !self.routing.stateless() || n > Self::MAX_ROUTE_TABLE {
            return;
        }
        let mut table = Vec::with_capacity(n as usize);
        for r in 0..self.routers {
            for dst in 0..self.terminals {
                let dst_router = self.term_router[dst as usize];
                let mut st = RouteState::default();
                table.push(match self.routing.next_hop(r, dst_router, &mut st) {
                    Ok(Some(c)) => pack(c.port as u32, c.vc_lo, c.vc_hi),
                    Ok(None) => self.ejection_hop(dst),
                    // left to `route_head`, which reports it when a packet needs this hop
                    Err(_) => return,
                });
            }
        }
        self.route_table = table;
    }

    /// The source-adaptive decision of packet `id` at its injection router `r` (MIN and DOR
    /// decide nothing: the packet keeps the default header state it was generated with).
    #[inline(never)]
    fn source_decision(&mut self, r: u32, id: u32) {
        let p = &mut self.pkts.link[id as usize];
        let dst_router = self.term_router[p.dst as usize];
        let view = View {
            radix: self.radix,
            vcs: self.vcs,
            port: &self.port,
            vout: &self.vout,
            credit_cap_of: self.credit_cap_of,
            pkt_phits: self.pkt_phits,
            pb: self.pb.as_ref(),
            now: self.now,
        };
        self.routing.at_injection(
            r,
            dst_router,
            &mut p.st,
            &view,
            &mut self.rng_router[r as usize],
        );
    }

    /// The output VC a packet would take now at output port `port` (whose VCs' output sides
    /// are `vout`, indexed by VC): within its allowed range, one with room for the whole
    /// packet in the output buffer, preferring the most free space downstream plus locally
    /// (the lowest such VC on ties); `None` if none has room.
    /// `l` is the packet size, `cap` the output buffer capacity, `now` the current cycle.
    #[inline(always)]
    fn pick_out_vc(
        port: &PortState,
        vout: &[VcOut],
        now: u64,
        l: u32,
        cap: u32,
        lo: u8,
        hi: u8,
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
            return (used <= room).then_some(lo);
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
            let key = (((cap.wrapping_sub(used)).wrapping_add(s.credits) as u64) << 8
                | (255 - v) as u64)
                & 0u64.wrapping_sub((used <= room) as u64);
            best = best.max(key);
        }
        (best != 0).then(|| 255 - (best & 0xFF) as u8)
    }

    /// The input arbiter of input port `ip` of router `r` (router port `base + ip`): from its
    /// round-robin pointer, the first VC whose head can go now to an output not yet taken
    /// (`out_taken`) with room in an output VC; returns (input VC, output VC, output port).
    /// Heads that cannot go schedule the event that will wake the allocator again.
    #[inline(always)]
    fn input_request(
        &mut self,
        r: u32,
        base: u32,
        ip: u32,
        out_taken: u64,
    ) -> Option<(u8, u8, u32)> {
        let now = self.now;
        let vcs = self.vcs;
        let gi = base + ip;
        let inp = &self.port[gi as usize];
        // the VCs holding packets in round-robin order from the pointer: those at or above
        // it, then those below
        // (rotated right by the pointer: bit k is VC (ptr + k) mod 64, and no VC is ≥ 64)
        let ptr = inp.in_ptr as u32;
        let ibase = gi * vcs;
        for k in bits(inp.in_vcs.rotate_right(ptr)) {
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
                    let dst = self.pkts.link[id as usize].dst;
                    self.route_table[(r * self.terminals + dst) as usize]
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
                    self.cal.push(t, Ev::XoutFree { gp: og });
                }
                continue;
            }
            let obase = (og * vcs) as usize;
            let vout = &self.vout[obase..];
            let (l, cap) = (self.pkt_phits, self.out_cap);
            let Some(ov) = Self::pick_out_vc(out, vout, now, l, cap, lo, hi) else {
                // no room in the output buffer: retry when a departing tail frees some
                let out = &mut self.port[og as usize];
                if out.flags & flag::SPACE_EVT == 0 {
                    if out.link_free > now {
                        out.flags |= flag::SPACE_EVT;
                        let t = out.link_free;
                        self.cal.push(t, Ev::SpaceFree { gp: og });
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

    /// The separable allocator of router `r` for this cycle (see
    /// [`crate::cycle::separable_allocator`]).
    #[inline(never)]
    fn router_allocate(&mut self, r: u32) {
        let now = self.now;
        let radix = self.radix;
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
            self.cal.push(t, Ev::XinFree { gp: gi });
        }
        if in_free == 0 {
            return;
        }
        if in_free & (in_free - 1) == 0 && self.iterations >= 1 {
            // one free input: its request, if any, meets no competitor at its output and
            // wins it (the general loop below gives the same grant)
            let ip = in_free.trailing_zeros();
            if let Some((v, ov, op)) = self.input_request(r, base, ip, 0) {
                let og = base + op;
                let out = &mut self.port[og as usize];
                out.out_ptr = after(ip, radix) as u8;
                let gi = base + ip;
                let inp = &mut self.port[gi as usize];
                inp.in_ptr = after(v as u32, inp.nvc as u32) as u8;
                self.grant(r, gi, v, og, ov);
            }
            return;
        }
        let mut out_taken = 0u64;
        for _ in 0..self.iterations {
            let mut outs = 0u64;
            let mut requesters = 0u64;
            for ip in bits(in_free) {
                if let Some((cur, ov, op)) = self.input_request(r, base, ip, out_taken) {
                    self.scratch_req[ip as usize & 63] = (cur, ov);
                    self.scratch_want[op as usize & 63] |= 1 << ip;
                    outs |= 1 << op;
                    requesters |= 1 << ip;
                }
            }
            if outs == 0 {
                break;
            }
            let mut granted = 0u64;
            for op in bits(outs) {
                let og = base + op;
                let want = std::mem::take(&mut self.scratch_want[op as usize & 63]);
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
    }

    /// Moves the head packet of input `gi`/`v` through the crossbar into output `og`/`ov`.
    fn grant(&mut self, r: u32, gi: u32, v: u8, og: u32, ov: u8) {
        let now = self.now;
        let vcs = self.vcs;
        let l = self.pkt_phits;
        let ready = now + self.router_latency;
        let s = &mut self.vc[(gi * vcs) as usize + v as usize];
        s.head_route = NO_ROUTE;
        // the packet leaves this buffer (its space is free for good at `release`, before its
        // credits can come back)
        s.in_used -= l;
        let id = self.pkts.pop(&mut s.in_q);
        let next = s.in_q.0;
        let emptied = next == NIL;
        if !emptied && !self.route_table.is_empty() {
            // the new head: a stateless routing's next hop from its table now
            let dst = self.pkts.link[next as usize].dst;
            let s = &mut self.vc[(gi * vcs) as usize + v as usize];
            s.head_route = self.route_table[(r * self.terminals + dst) as usize];
        }
        let lk = &mut self.pkts.link[id as usize];
        let arrived = lk.ready;
        lk.ready = ready;
        let release = (now + self.xbar_cycles).max(arrived + l as u64);
        let inp = &mut self.port[gi as usize];
        inp.in_count -= 1;
        if emptied {
            inp.in_vcs &= !(1 << v);
        }
        inp.xin_free = release;
        let (kind, up, lat) = (inp.kind, inp.peer, inp.latency);
        if inp.in_count == 0 {
            self.rs[r as usize].in_mask &= !(1 << (gi - r * self.radix));
        } else if inp.flags & flag::XIN_EVT == 0 {
            // more packets wait at this input: allocate again when its crossbar port frees
            inp.flags |= flag::XIN_EVT;
            self.cal.push(release, Ev::XinFree { gp: gi });
        }
        // the buffer space is free at `release`; the credits reach the upstream one link
        // latency later (the buffer's occupancy count drops when they arrive); a link has the
        // same latency both ways (the builder checks), so this port's record gives it
        if kind == PortKind::Terminal {
            self.pkts.v[id as usize].t_net = now;
            let when = release + self.inj_latency;
            self.cal.push(when, Ev::TermCredit { t: up });
        } else {
            self.cal
                .push(release + lat as u64, Ev::Credit { gp: up, vc: v });
        }
        let oi = (og * vcs) as usize + ov as usize;
        let o = &mut self.vout[oi];
        o.used += l;
        self.pkts.out_push(&mut o.q, id, ready);
        let out = &mut self.port[og as usize];
        out.xout_free = now + self.xbar_cycles;
        out.out_count += 1;
        // ready times grow with grant order, so a pending wake-up of this output comes first
        // and re-arms itself for later heads (see `router_links`)
        if out.out_wake_at == u64::MAX {
            wake_output_at(out, &mut self.cal, og, ready);
        }
    }

    /// Every router recomputes its Piggyback bits from its global ports' occupancies (phits
    /// summed over VCs, spec §2.6) and publishes them for its group (spec §3.6, Eq. 2-2).
    fn publish_piggyback(&mut self) {
        let mut pb = self.pb.take().expect("piggyback state");
        let mut q = [0u64; 64];
        let mut k = 0usize;
        let mut cur = u32::MAX;
        for j in 0..self.global_ports.len() {
            let gp = self.global_ports[j];
            let r = self.split_gp(gp).0;
            if r != cur {
                if cur != u32::MAX {
                    pb.publish(self.now, cur, self.routing.pb_bits(&q[..k]));
                }
                cur = r;
                k = 0;
            }
            let mut sum = 0u64;
            for v in 0..self.port[gp as usize].nvc as u32 {
                let i = (gp * self.vcs + v) as usize;
                sum +=
                    (self.out_occupancy(gp, v) + self.credit_cap(gp) - self.vout[i].credits) as u64;
            }
            q[k] = sum;
            k += 1;
        }
        if cur != u32::MAX {
            pb.publish(self.now, cur, self.routing.pb_bits(&q[..k]));
        }
        self.pb = Some(pb);
    }

    // ------------------------------------------------------------------------- saturation

    /// Packets waiting at the sources (backlog and injection queues).
    fn at_sources(&self) -> u64 {
        let mut n: u64 = self.term.iter().map(|x| x.backlog_len as u64).sum();
        for &g in &self.term_gp {
            n += self.port[g as usize].in_count as u64;
        }
        n
    }

    /// True when the run must stop: the sources' queues grow without bound and the
    /// measurement has lasted at least `sim.saturation_min_cycles`.
    fn saturation_watch(&mut self) -> bool {
        if self.now < self.warmup + self.sat_min {
            return false;
        }
        let active = self.traffic.active_count(self.now).max(1) as f64;
        if self.at_sources() as f64 / active > self.sat_queue {
            self.stats.stopped_early = true;
            return true;
        }
        false
    }

    // ---------------------------------------------------------------------- conservation

    /// End-of-run invariants: every packet generated is delivered, waiting at its source, in a
    /// buffer or on a link; on every link and VC the credits held upstream plus those in
    /// flight and in the downstream buffer equal its capacity.
    pub(crate) fn check_conservation(&self) -> Result<Counts> {
        let vcs = self.vcs as usize;
        let np = self.port.len();
        let mut on_wire = vec![0u64; np * vcs];
        let mut wire_pkts = 0u64;
        let mut releasing = vec![0u64; np * vcs];
        {
            for ev in self.cal.events() {
                match ev {
                    Ev::Arrive { pkt: _, gp, vc } => {
                        let v = vc as usize;
                        on_wire[gp as usize * vcs + v] += self.pkt_phits as u64;
                        wire_pkts += 1;
                    }
                    Ev::Credit { gp, vc } => {
                        releasing[self.port[gp as usize].peer as usize * vcs + vc as usize] +=
                            self.pkt_phits as u64;
                    }
                    Ev::TermCredit { t } => {
                        releasing[self.term_gp[t as usize] as usize * vcs] += self.pkt_phits as u64;
                    }
                    _ => {}
                }
            }
        }
        for g in 0..np {
            let down = self.port[g].peer;
            if !matches!(self.port[g].kind, PortKind::Local | PortKind::Global) {
                continue;
            }
            for v in 0..self.port[g].nvc as usize {
                let i = g * vcs + v;
                let d = down as usize * vcs + v;
                let held = self.vout[i].credits as u64
                    + on_wire[d]
                    + self.vc[d].in_used as u64
                    + releasing[d];
                if held != self.credit_cap(g as u32) as u64 {
                    return Err(Error::Internal(format!(
                        "credit conservation violated on {} VC {v}: {} available + {} on the wire + {} buffered + {} returning != capacity {}",
                        self.port_name(g as u32), self.vout[i].credits, on_wire[d], self.vc[d].in_used, releasing[d], self.credit_cap(g as u32)
                    )));
                }
            }
        }
        for t in 0..self.terminals as usize {
            let g = self.term_gp[t] as usize;
            let held = self.term[t].credits as u64
                + on_wire[g * vcs]
                + self.vc[g * vcs].in_used as u64
                + releasing[g * vcs];
            if held != self.in_cap(g as u32) as u64 {
                return Err(Error::Internal(format!(
                    "credit conservation violated on the injection link of terminal {t}: {held} != {}",
                    self.in_cap(g as u32)
                )));
            }
        }
        // every input buffer's occupancy count is what its queue holds
        let mut queued = 0u64;
        for i in 0..releasing.len() {
            let n = self.pkts.len(self.vc[i].in_q);
            queued += n;
            if n * self.pkt_phits as u64 != self.vc[i].in_used as u64 {
                return Err(Error::Internal(format!(
                    "buffer accounting violated at {} VC {}: {} packets queued, {} phits used",
                    self.port_name((i / vcs) as u32),
                    i % vcs,
                    n,
                    self.vc[i].in_used
                )));
            }
            queued += self.pkts.out_len(&self.vout[i].q);
        }
        let at_sources: u64 = self.term.iter().map(|x| x.backlog_len as u64).sum();
        let in_network = queued + wire_pkts;
        if in_network + at_sources != self.pkts.live {
            return Err(Error::Internal(format!(
                "flit conservation violated: {} packets alive but {} in buffers, {} on links and {} at sources",
                self.pkts.live, queued, wire_pkts, at_sources
            )));
        }
        let st = &self.stats;
        if st.total_generated != st.total_delivered + self.pkts.live {
            return Err(Error::Internal(format!(
                "flit conservation violated: {} packets generated, {} delivered, {} alive",
                st.total_generated, st.total_delivered, self.pkts.live
            )));
        }
        Ok(Counts {
            generated: st.total_generated,
            injected: st.total_injected,
            delivered: st.total_delivered,
            in_network,
            at_sources,
            waiting: self.at_sources(),
        })
    }
}
