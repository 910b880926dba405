//! The cycle loop of the cycle-level model: each cycle handles its calendar events kind by kind
//! (arrivals, credits, output wake-ups, free crossbar ports, terminal credits, generations),
//! publishes the Piggyback bits, then runs the link stage ([`super::link`]) and the allocator
//! ([`super::allocator`]) of every router woken for them; every 256 cycles the saturation watch
//! ([`super::conservation`]) and the progress display. The event handlers here only dispatch:
//! the mechanisms live in [`super::terminal`], [`super::link`], [`super::allocator`] and
//! [`super::route`].

use super::calendar::{Arrival, Slot, PFC_DRAINED, PFC_ON};
use super::prefetch::{prefetch, prefetch_ptr};
use super::route::NO_ROUTE;
use super::{flag, CycleNet};
use crate::config::LoadedScenario;
use crate::cycle::separable_allocator::bits;
use crate::engine::run_outcome::Ending;
use crate::engine::run_outcome::{RunOptions, RunOutput};
use crate::error::{Error, Result};
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
    let planned_end = net.k.end;
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

/// Events looked ahead by the prefetch while a calendar slot is drained.
const PREFETCH_AHEAD: usize = 4;

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
            .terms
            .traffic
            .change_cycle()
            .filter(|&c| c > 0 && c < self.k.end);
        let mut watch = crate::engine::progress::RunProgress::new(
            progress,
            self.k.end,
            "{bar:40} cycle {pos}/{len} [{elapsed_precise} < {eta}]",
        );
        let mut stopped = false;
        while self.now < self.k.end {
            let now = self.now;
            if change == Some(now) {
                self.traffic_change();
            }
            if now == self.k.warmup {
                let n = self.at_sources();
                self.stats.mark_sources(n);
            }
            let slot = self.eng.cal.take(now);
            self.stats.events += slot.len() as u64;
            self.handle_events(&slot);
            self.eng.cal.give_back(now, slot);
            if self.mech.publishes_bits() {
                self.publish_piggyback();
            }
            if self.eng.always_wake {
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
                    // (compiled twice: without QCN's notifications the allocator has no
                    // priority pass)
                    if self.cnm.on {
                        self.router_allocate::<true>(r);
                    } else {
                        self.router_allocate::<false>(r);
                    }
                }
            }
            self.mech.cycle_ended(now, &self.router_names);
            if self.k.cm_on {
                self.cm.cycle_ended(now);
            }
            if now & 0xFF == 0xFF {
                if let Some(f) = &self.eng.fault {
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
        self.mech.run_ended(self.now);
        watch.finish();
        if let Some(f) = &self.eng.fault {
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
            if epoch == self.terms.state[t as usize].epoch {
                let now = self.now;
                self.schedule_gen(t, now);
            }
        }
        for &t in &slot.term_try {
            if self.terms.state[t as usize].try_at == self.now {
                self.terms.state[t as usize].try_at = u64::MAX;
                self.term_send(t);
            }
        }
        // PFC frames and XON checks (empty under credits)
        for &(gp, vc, which) in &slot.pfc {
            match which {
                PFC_DRAINED => self.on_pfc_drained(gp, vc),
                _ => self.on_pause(gp, vc, which == PFC_ON),
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
        let l = self.k.pkt_phits;
        let o = &mut self.vout[(gp * self.k.vcs) as usize + vc as usize];
        self.fc.credits_returned(o, l);
        // (the downstream buffer's occupancy count dropped when the packet left it)
        if self.port[gp as usize].out_count > 0 {
            self.mark_output(gp);
        }
        if self.k.admit_on_credits {
            // a head refused for want of credits may enter the output buffer now
            self.wake_allocator(self.split_gp(gp).0);
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
        if self.eng.prefetch && flag == flag::XIN_EVT {
            // large networks: the allocator will route this input's unrouted heads later in
            // this cycle; fetch their records now
            let base = gp * self.k.vcs;
            for v in bits(port.in_vcs) {
                let s = &self.vc[(base + v) as usize];
                if s.head_route == NO_ROUTE {
                    prefetch(self.eng.pkts.links(), s.in_q.0 as usize);
                }
            }
        }
        self.wake_allocator(self.split_gp(gp).0);
    }

    /// Terminal `t`'s generation (stale from an older epoch).
    #[inline(always)]
    fn on_gen(&mut self, (t, epoch): (u32, u32)) {
        if epoch == self.terms.state[t as usize].epoch {
            self.generate(t);
        }
    }

    /// Handles the events `list` of one kind with `handle`; on large networks
    /// ([`CycleNet::prefetch`]) the records of the event [`PREFETCH_AHEAD`] places ahead are
    /// fetched (`fetch`) while one is handled.
    #[inline(always)]
    fn drain<T: Copy>(&mut self, list: &[T], fetch: fn(&Self, T), handle: fn(&mut Self, T)) {
        if self.eng.prefetch {
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
        prefetch(self.eng.pkts.links(), a.pkt as usize);
        prefetch(&self.port, a.gp as usize);
        prefetch(&self.vc, (a.gp * self.k.vcs) as usize + a.vc as usize);
    }

    #[inline(always)]
    fn prefetch_credit(&self, (gp, vc): (u32, u8)) {
        prefetch(&self.vout, (gp * self.k.vcs) as usize + vc as usize);
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
        prefetch(&self.terms.state, t as usize);
    }

    #[inline(always)]
    fn prefetch_generator(&self, (t, _): (u32, u32)) {
        prefetch(&self.terms.state, t as usize);
        // the generator's state and its buffer of random words
        let rng = &self.terms.rng[t as usize] as *const ChaCha8Rng as *const u8;
        for k in (0..std::mem::size_of::<ChaCha8Rng>()).step_by(64) {
            prefetch_ptr(rng.wrapping_add(k));
        }
    }

    /// The traffic changes (transient pattern): every generator restarts with the new load.
    fn traffic_change(&mut self) {
        let now = self.now;
        for t in 0..self.k.terminals {
            self.terms.state[t as usize].epoch += 1;
        }
        self.start_generators(now);
    }

    /// Reference mode of the tests: every router holding packets runs its link stage on every
    /// output with packets and its allocator, every cycle — what the wake-up events must
    /// reproduce exactly.
    fn wake_everything(&mut self) {
        for r in 0..self.k.routers {
            let mut outs = 0u64;
            for p in 0..self.k.radix {
                if self.port[(r * self.k.radix + p) as usize].out_count > 0 {
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
}
