//! The run loop: take the earliest event, dispatch it to the switch, HCA or generator code,
//! until the end time (or an interruption); then check conservation and write the results
//! folder.

use super::cc::switch_view;
use super::kind::{
    self, holds, may, AnySwitch, Kind, MultipathOutputBuffered, Organisation, SharedInputBuffered,
    StaticOutputBuffered, SwitchKind,
};
use super::results;
use super::switch::buffer::CreditKeeping;
use super::{Ev, Net};
use crate::config::{LoadedScenario, Ps, PS_PER_S};
use crate::engine::run_outcome::Ending;
use crate::engine::run_outcome::{RunOptions, RunOutput};
use crate::error::{Error, Result};
use std::time::Instant;

/// Runs a loaded credit-level scenario and writes its results folder `out_dir` (nothing is
/// written on failure; `crate::api::run` has checked the memory estimate and the folder).
/// When `interrupted` returns true the run stops and writes what it simulated so far, marked
/// incomplete ([`RunOutput::complete`]).
pub fn run_scenario(
    l: &LoadedScenario,
    opts: &RunOptions,
    out_dir: &std::path::Path,
    interrupted: &mut dyn FnMut() -> bool,
) -> Result<RunOutput> {
    let mut setup = crate::engine::progress::SetupProgress::new(opts.progress);
    let mut net = Net::build(l, &mut setup)?;
    setup.finish();
    let wall = Instant::now();
    let planned_end = net.engine.end;
    let ending = match net.run(opts.progress, interrupted)? {
        None => Ending::Complete,
        Some(t) => {
            net.cut_at(t);
            Ending::Interrupted { planned_end }
        }
    };
    let wall_s = wall.elapsed().as_secs_f64();
    let conservation = net.check_conservation()?;
    net.stats.finish(net.engine.end);
    let last = net.stats.nodes.n_int as u32 - 1;
    net.cc
        .run_ended(last, net.engine.end, net.traffic.flows.len());
    let summary = results::write_results(&net, l, out_dir, wall_s, conservation, ending)?;
    Ok(RunOutput {
        out_dir: out_dir.to_path_buf(),
        summary_json: summary,
        complete: ending.is_complete(),
    })
}

/// How many events ahead of the one being handled the run loop prefetches for: the records an
/// event names (`Net::prefetch_event`) …
const PREFETCH_AHEAD: usize = 6;
/// … and, closer, what a packet's record (prefetched earlier) leads to
/// (`Net::prefetch_packet_state`).
const PREFETCH_NEAR: usize = 2;

/// Packets standing still this long (1 ms simulated) trigger the deadlock analysis.
const STALL_PS: Ps = 1_000_000_000;

impl Net {
    /// An interrupted run ends at `t`, the time of the last event it handled: the statistics
    /// cover `[0, t]` (the intervals after the one holding `t` are dropped).
    fn cut_at(&mut self, t: Ps) {
        self.engine.end = t;
        let ns = &mut self.stats.nodes;
        ns.n_int = ns.n_int.min((t / ns.interval) as usize + 1);
    }

    /// Runs until the end time; returns `Some(time reached)` when `interrupted` stopped it
    /// early (every handled event is complete then, so the state is consistent).
    pub(crate) fn run(
        &mut self,
        progress: bool,
        interrupted: &mut dyn FnMut() -> bool,
    ) -> Result<Option<Ps>> {
        self.start_sources();
        if self.cc.samples_intervals() {
            // e.g. the CCTI time series: one sample at every interval border
            let iv = self.stats.nodes.interval;
            for k in 1..self.stats.nodes.n_int as u64 {
                self.at(
                    k * iv,
                    Ev::CcSample {
                        interval: (k - 1) as u32,
                    },
                );
            }
        }
        if let Some(p) = self.cc.timer_period() {
            if p <= self.engine.end {
                self.at(p, Ev::CcTimer);
            }
        }
        let mut watch = crate::engine::progress::RunProgress::new(
            progress,
            self.engine.end / 1_000_000,
            "{bar:40} {msg} sim {pos}/{len} us [{elapsed_precise} < {eta}]",
        );
        let stopped = self.run_copy(kind::choose(&self.organisation()), &mut watch, interrupted)?;
        watch.finish();
        if let Some(f) = &self.engine.fault {
            return Err(Error::Internal(f.clone()));
        }
        if stopped.is_none() && self.engine.deadlock.is_none() && self.engine.q.is_empty() {
            // nothing more will ever happen: packets still queued are stuck for good
            let t = self.engine.last_progress;
            self.engine.deadlock = self.detect_deadlock(t);
        }
        Ok(stopped)
    }

    /// The event loop on the compiled copy of the loop and its handlers for `kind` (one per
    /// kind of network: `kind.rs`); `kind` must fit the network ([`kind::choose`]).
    fn run_copy(
        &mut self,
        kind: Kind,
        watch: &mut crate::engine::progress::RunProgress,
        interrupted: &mut dyn FnMut() -> bool,
    ) -> Result<Option<Ps>> {
        Ok(match kind {
            Kind::SharedInputBuffered => {
                self.event_loop::<SharedInputBuffered<false>>(watch, interrupted)?
            }
            Kind::SharedInputBufferedCm => {
                self.event_loop::<SharedInputBuffered<true>>(watch, interrupted)?
            }
            Kind::StaticOutputBuffered => {
                self.event_loop::<StaticOutputBuffered<false>>(watch, interrupted)?
            }
            Kind::StaticOutputBufferedCm => {
                self.event_loop::<StaticOutputBuffered<true>>(watch, interrupted)?
            }
            Kind::MultipathOutputBuffered => {
                self.event_loop::<MultipathOutputBuffered>(watch, interrupted)?
            }
            Kind::Any => self.event_loop::<AnySwitch>(watch, interrupted)?,
        })
    }

    /// The network's organisation in the questions of [`SwitchKind`] (which compiled copy of
    /// the hot path runs it: `kind::choose`).
    fn organisation(&self) -> Organisation {
        Organisation {
            shared_pool: matches!(self.sw.credit_keeping, CreditKeeping::SharedPool(_)),
            plain: self.arb.plain_buffers,
            output_buffers: self.sw.obuf.is_some(),
            congestion_management: self.cc.is_present(),
            multipath: self.routes.multipath.is_some() || self.routes.source_up.is_some(),
            flow_control_packets: self.links.flow_control.is_some(),
            adapter: self.hcas.adapter.is_some(),
        }
    }

    /// The events in time order until the end time, a deadlock or an interruption (`Some(time
    /// reached)`), on the copy of the handlers compiled for kind `K`.
    fn event_loop<K: SwitchKind>(
        &mut self,
        watch: &mut crate::engine::progress::RunProgress,
        interrupted: &mut dyn FnMut() -> bool,
    ) -> Result<Option<Ps>> {
        if K::DEFER_CREDITS {
            let np = self.links.peer.len();
            self.links.ready_at = vec![0; np];
            self.links.credits_due = vec![0; self.links.credits.len()];
        }
        // a deadlock is looked for once packets have not moved for this long
        let stall = STALL_PS;
        let mut next_check = stall;
        loop {
            // (a network without flow-control packets has no list of events for the current
            // time: `Engine::new`)
            let next = if K::FLOW_CONTROL_PACKETS == Some(false) {
                self.engine.q.pop_without_now_list()
            } else {
                self.engine.q.pop()
            };
            let Some((t, ev)) = next else {
                break;
            };
            if t >= self.engine.end {
                self.engine.q.push(t, ev); // keep it for the conservation count
                break;
            }
            self.engine.events += 1;
            if let Some(&next) = self.engine.q.peek_ahead(PREFETCH_AHEAD) {
                self.prefetch_event::<K>(next);
            }
            if let Some(&next) = self.engine.q.peek_ahead(PREFETCH_NEAR) {
                self.prefetch_packet_state::<K>(next);
            }
            self.dispatch::<K>(t, ev);
            if self.engine.events & 0xFFF == 0 {
                if let Some(f) = &self.engine.fault {
                    return Err(Error::Internal(f.clone()));
                }
                if t >= next_check && t - self.engine.last_progress >= stall {
                    if let Some(d) = self.detect_deadlock(t) {
                        self.engine.deadlock = Some(d);
                        break;
                    }
                    next_check = t + stall;
                }
                let polled = watch.poll(t / 1_000_000, interrupted, |wall| {
                    Some(format!(
                        "{:.3} sim-s/s",
                        t as f64 / PS_PER_S as f64 / wall.max(1e-9)
                    ))
                });
                match polled {
                    Err(Error::Interrupted) => return Ok(Some(t)),
                    r => r?,
                }
            }
        }
        Ok(None)
    }

    /// Asks for the cache lines event `ev` will touch first (the records its handler reads
    /// at random; `credit/prefetch.rs`): a hint, no state changes.
    #[inline(always)]
    fn prefetch_event<K: SwitchKind>(&self, ev: Ev) {
        match ev {
            Ev::HeadArrive { pkt, .. } | Ev::CrossbarArrive { pkt, .. } => self.pkts.prefetch(pkt),
            Ev::InputRelease { gport, counter, .. } | Ev::CrossbarDone { gport, counter, .. } => {
                if K::SHARED_POOL != Some(true) {
                    if let CreditKeeping::Partitioned(p) = &self.sw.credit_keeping {
                        p.prefetch(gport, counter);
                    }
                }
                if may(K::FLOW_CONTROL_PACKETS) {
                    if let Some(fc) = &self.links.flow_control {
                        fc.prefetch(self.upstream_credit_slot(gport, counter));
                    }
                }
            }
            Ev::FlowControlSend { gport, counter } => {
                if let Some(fc) = &self.links.flow_control {
                    fc.prefetch(self.upstream_credit_slot(gport, counter));
                }
            }
            Ev::CreditArrive { gport, counter, .. } => {
                crate::credit::prefetch::prefetch(
                    &self.links.credits,
                    self.credit_slot_k::<K>(gport, counter),
                );
                if may(K::OUTPUT_BUFFERS) {
                    if let Some(ob) = &self.sw.obuf {
                        ob.prefetch(ob.slot(gport, counter));
                    }
                }
            }
            Ev::OutputRelease { gport, counter, .. } | Ev::WireDone { gport, counter, .. } => {
                if let Some(ob) = &self.sw.obuf {
                    ob.prefetch(ob.slot(gport, counter));
                }
                self.prefetch_arbiter::<K>(gport);
            }
            Ev::OutputReady { gport } => self.prefetch_arbiter::<K>(gport),
            // a source's record (its random streams, destinations) is read for every message
            Ev::Arrival { source, dst } => {
                crate::credit::prefetch::prefetch_all(&self.traffic.sources, source as usize);
                // the entry of the flow it feeds
                self.traffic.flow_index.prefetch(source, dst);
            }
            _ => {}
        }
    }

    /// Prefetch hint for what the arbiter of switch output `og` reads first: which heads of
    /// its inputs request it (`head_mask`: two lines hold every input's entries) and which of
    /// its output queues have room.
    #[inline(always)]
    fn prefetch_arbiter<K: SwitchKind>(&self, og: u32) {
        use crate::credit::prefetch::prefetch;
        if K::PLAIN == Some(true) {
            return; // (no head masks: at most one queue of an input requests an output)
        }
        let Some(&fb) = self.sw.fill_base.get(og as usize) else {
            return;
        };
        if fb == u32::MAX || self.arb.head_words == 0 {
            return;
        }
        let i = fb as usize * self.arb.head_words;
        prefetch(&self.arb.head_mask, i);
        prefetch(&self.arb.head_mask, i + 8);
        if may(K::OUTPUT_BUFFERS) {
            if let Some(ob) = &self.sw.obuf {
                ob.prefetch_room(og);
            }
        }
    }

    /// The second step of [`Net::prefetch_event`] for an event about a packet: the state its
    /// record points to (the output queue it joins, its input buffer's counters).
    #[inline(always)]
    fn prefetch_packet_state<K: SwitchKind>(&self, ev: Ev) {
        use crate::credit::prefetch::prefetch;
        match ev {
            Ev::HeadArrive { pkt, gport } => {
                let p = &self.pkts[pkt];
                prefetch(&self.sw.in_used, gport as usize * self.vls + p.vl as usize);
                let out = self.pkts.next_out(pkt);
                let fb = self.sw.fill_base[gport as usize];
                if out != crate::credit::packet::NO_LOOKAHEAD && fb != u32::MAX {
                    prefetch(
                        &self.sw.fill,
                        fb as usize + out as usize * self.vls + p.vl as usize,
                    );
                    // the queue it joins, and its share's counters
                    let query = crate::credit::switch::buffer::QueueQuery {
                        input: gport,
                        dst: p.dst,
                        out,
                        vl: p.vl,
                        cbit: p.flags & crate::credit::packet::CBIT != 0,
                    };
                    let qlocal = self.sw.queue_scheme.queue_of(&query, self.vls);
                    let qid = self.sw.input[gport as usize].queue_base as usize + qlocal as usize;
                    prefetch(&self.sw.queues, qid);
                    if K::SHARED_POOL != Some(true) {
                        if let CreditKeeping::Partitioned(pc) = &self.sw.credit_keeping {
                            pc.prefetch(gport, qlocal as u16);
                        }
                    }
                    // the look-ahead's table entry at the switch after this one, and what the
                    // output's arbiter reads
                    let og = self.links.span[gport as usize].base + out as u32;
                    self.prefetch_arbiter::<K>(og);
                    if let Some(&next) = self.links.peer.get(og as usize) {
                        if self.links.is_switch[next as usize] {
                            let sw = self.links.node_of[next as usize];
                            self.routes.lft.prefetch(sw, p.dst + 1);
                        }
                    }
                }
            }
            Ev::CrossbarArrive { pkt, gport } if may(K::OUTPUT_BUFFERS) => {
                if let Some(ob) = &self.sw.obuf {
                    ob.prefetch(ob.slot(gport, self.pkts.down_counter(pkt)));
                }
            }
            Ev::InputRelease {
                gport,
                counter,
                out,
                ..
            }
            | Ev::CrossbarDone {
                gport,
                counter,
                out,
                ..
            } => {
                let vl = self.counter_vl_k::<K>(counter) as usize;
                prefetch(&self.sw.in_used, gport as usize * self.vls + vl);
                let fb = self.sw.fill_base[gport as usize];
                if fb != u32::MAX {
                    prefetch(&self.sw.fill, fb as usize + out as usize * self.vls + vl);
                }
            }
            Ev::Arrival { source, dst } => {
                // the flow's record, whose message queue the new message joins (its entry
                // was prefetched earlier; a flow not created yet has none)
                if let Some(f) = self.traffic.flow_index.peek(source, dst) {
                    crate::credit::prefetch::prefetch_all(&self.traffic.flows, f as usize);
                }
            }
            Ev::CreditArrive { gport, counter, .. } if may(K::OUTPUT_BUFFERS) => {
                // the head of the output queue these credits are for (`link_refresh`)
                if let Some(ob) = &self.sw.obuf {
                    if let Some(pid) = ob.head(ob.slot(gport, counter)) {
                        self.pkts.prefetch(pid);
                    }
                }
            }
            _ => {}
        }
    }

    #[inline(always)]
    fn dispatch<K: SwitchKind>(&mut self, t: Ps, ev: Ev) {
        match ev {
            Ev::HeadArrive { pkt, gport } => {
                if self.links.is_switch[gport as usize] {
                    self.switch_receive::<K>(pkt, gport, t)
                } else {
                    self.hca_receive::<K>(pkt, gport, t)
                }
            }
            Ev::OutputReady { gport } => self.output_ready::<K>(gport, t),
            Ev::InputRelease {
                gport,
                counter,
                out,
                credits,
            } => self.input_release::<K>(gport, counter, out, credits, t),
            Ev::CrossbarDone {
                gport,
                counter,
                out,
                credits,
            } => {
                self.input_release::<K>(gport, counter, out, credits, t);
                let og = self.links.span[gport as usize].base + out as u32;
                self.output_ready::<K>(og, t)
            }
            Ev::CreditArrive {
                gport,
                counter,
                credits,
            } => {
                let slot = self.credit_slot_k::<K>(gport, counter);
                self.links.credits[slot] += credits;
                if self.links.is_switch[gport as usize] {
                    if holds(K::OUTPUT_BUFFERS, self.sw.obuf.is_some()) {
                        self.link_refresh::<K>(gport, counter);
                        self.try_link::<K>(gport, t);
                    } else {
                        self.output_gained_room(gport);
                        self.try_output::<K>(gport, t);
                    }
                    if may(K::CONGESTION_MANAGEMENT) {
                        let vl = self.counter_vl_k::<K>(counter);
                        self.cc.credits_returned(switch_view!(self), gport, vl, t);
                    }
                } else {
                    let h = self.hcas.hca_of_node[self.links.node_of[gport as usize] as usize];
                    // more credits: the flows that need this counter may fit again (the others
                    // still do not: only this HCA's sends take its credits)
                    if self.hcas.slot_waiting[slot] > 0 {
                        self.hcas.hca_blocked[h as usize] = 0;
                    }
                    self.try_hca_send_k::<K>(h, t)
                }
            }
            Ev::SinkDone { hca } => self.sink_done::<K>(hca, t),
            Ev::SinkCredit { hca, seq } => self.sink_credit(hca, seq, t),
            Ev::HcaWake { hca } => {
                if t >= self.hcas.wake_at[hca as usize] {
                    self.hcas.wake_at[hca as usize] = Ps::MAX;
                }
                self.try_hca_send_k::<K>(hca, t)
            }
            Ev::Arrival { source, dst } => self.arrival(source, dst, t),
            Ev::CcSample { interval } => {
                self.cc
                    .interval_ended(interval, t, self.traffic.flows.len())
            }
            Ev::CcTimer => self.cc_timer(t),
            Ev::FlowControlSend { gport, counter } => self.flow_control_send(gport, counter, t),
            Ev::CrossbarArrive { pkt, gport } => self.output_arrive::<K>(pkt, gport, t),
            Ev::LinkReady { gport } => self.link_ready::<K>(gport, t),
            Ev::OutputRelease {
                gport,
                counter,
                credits,
            } => self.output_release::<K>(gport, counter, credits, t),
            Ev::WireDone {
                gport,
                counter,
                credits,
            } => {
                self.link_ready::<K>(gport, t);
                self.output_release::<K>(gport, counter, credits, t)
            }
        }
    }

    /// The crossbar output of switch port `gport` (or the HCA's sender) is free: it may
    /// take its next packet.
    #[inline]
    fn output_ready<K: SwitchKind>(&mut self, gport: u32, t: Ps) {
        self.links.out_busy[gport as usize] = false;
        if self.links.is_switch[gport as usize] {
            if K::DEFER_CREDITS && self.take_credits_due(gport) {
                // (as the credits' arrival did: it may try every input again)
                self.output_gained_room(gport);
            }
            self.try_output::<K>(gport, t)
        } else {
            let h = self.hcas.hca_of_node[self.links.node_of[gport as usize] as usize];
            if K::DEFER_CREDITS && self.take_credits_due(gport) {
                // the flows blocked for credits may fit now: scan them all (the arrival
                // cleared this only if a flow waited for these counters; a scan of flows
                // that still do not fit sends nothing and ends in the same state)
                self.hcas.hca_blocked[h as usize] = 0;
            }
            self.try_hca_send_k::<K>(h, t)
        }
    }

    /// Output `og` (a switch's or an HCA's) frees: the credits that reached it while it was
    /// busy ([`SwitchKind::DEFER_CREDITS`]) join its counters, as their arrivals did in time
    /// order before this. Returns whether there were any.
    #[inline(always)]
    fn take_credits_due(&mut self, og: u32) -> bool {
        let vls = self.vls;
        let mut gained = false;
        for s in og as usize * vls..(og as usize + 1) * vls {
            let due = std::mem::take(&mut self.links.credits_due[s]);
            self.links.credits[s] += due;
            gained |= due > 0;
        }
        gained
    }

    /// The congestion management's timer fired: queue what it decided, re-arm it.
    fn cc_timer(&mut self, t: Ps) {
        let mut out = std::mem::take(&mut self.cc_out);
        let sooner = self.cc.timer_fired(t, |h, n| out.push((h, n)));
        for &(h, n) in &out {
            self.queue_notification(h, n, t);
        }
        out.clear();
        self.cc_out = out;
        if sooner {
            // IBA_CC-S1 lowered some IRDs: HCAs asleep until a later time may send now
            for h in 0..self.hcas.hca_gport.len() as u32 {
                self.try_hca_send(h, t);
            }
        }
        if let Some(p) = self.cc.timer_period() {
            if t + p <= self.engine.end {
                self.at(t + p, Ev::CcTimer);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::load_str;

    /// Every HCA of a 2×2 mesh floods random destinations: the InfiniBand switch's copy.
    const FLOOD: &str = "[sim]\nend_time = \"100us\"\n[topology]\nkind = \"mesh\"\n\
                         dims = [2, 2]\nhcas_per_switch = 2\n[[traffic.generators]]\n\
                         sources = \"all\"\ninjection = \"flood\"\n";

    /// Runs `FLOOD` to its end on the copy `kind` (`None`: the one the run chooses).
    fn flood(kind: Option<Kind>) -> Net {
        let l = load_str(FLOOD, "t", std::path::Path::new("."), "t", &[], None).unwrap();
        let mut n = Net::new(&l).unwrap();
        let Some(kind) = kind else {
            assert_eq!(n.run(false, &mut || false).unwrap(), None);
            return n;
        };
        n.start_sources();
        let mut watch = crate::engine::progress::RunProgress::new(false, 1, "");
        assert_eq!(n.run_copy(kind, &mut watch, &mut || false).unwrap(), None);
        n
    }

    #[test]
    fn credits_reaching_a_busy_output_need_no_event_and_change_nothing() {
        let narrow = flood(None);
        assert_eq!(
            kind::choose(&narrow.organisation()),
            Kind::SharedInputBuffered
        );
        let general = flood(Some(Kind::Any));
        // the same run: every packet moved and delivered at the same times, every counter
        // with the same credits (those kept aside counted as arrived)
        let e = (&narrow.engine, &general.engine);
        assert_eq!(e.0.packet_hops, e.1.packet_hops);
        assert_eq!(e.0.flit_hops, e.1.flit_hops);
        assert_eq!(e.0.last_progress, e.1.last_progress);
        let st = (&narrow.stats, &general.stats);
        assert_eq!(st.0.delivered_packets, st.1.delivered_packets);
        assert_eq!(st.0.injected_packets, st.1.injected_packets);
        assert_eq!(narrow.sw.in_used, general.sw.in_used);
        let held: Vec<u32> = (narrow.links.credits.iter())
            .zip(&narrow.links.credits_due)
            .map(|(c, d)| c + d)
            .collect();
        let pending = |n: &Net| {
            let mut v = vec![0u32; n.links.credits.len()];
            n.engine.q.for_each(|_, ev| {
                if let Ev::CreditArrive {
                    gport,
                    counter,
                    credits,
                } = *ev
                {
                    v[n.credit_slot(gport, counter)] += credits;
                }
            });
            v
        };
        let with_pending =
            |a: &[u32], b: Vec<u32>| -> Vec<u32> { a.iter().zip(b).map(|(x, y)| x + y).collect() };
        assert_eq!(
            with_pending(&held, pending(&narrow)),
            with_pending(&general.links.credits, pending(&general))
        );
        narrow.check_conservation().unwrap();
        // … with fewer events: most credit returns found their output busy
        assert!(
            e.0.events * 10 < e.1.events * 9,
            "{} events against {}",
            e.0.events,
            e.1.events
        );
    }

    /// The pick's round robin over a narrow switch's inputs (one rotated word) visits them in
    /// the order of the word-by-word walk that switches of more than 64 ports take, and an
    /// input's freeing clears its `pick_skip` entries at the outputs it was found unable to feed
    /// (`skip_outs`) as the wide switches' clear of every output does: the same run, input
    /// served by input, with the masks widened to two words.
    #[test]
    fn the_pick_serves_inputs_in_the_same_order_in_one_word_and_in_the_walk() {
        let run = |words: usize| {
            let text = FLOOD.replace("hcas_per_switch = 2", "hcas_per_switch = 6");
            let l = load_str(&text, "t", std::path::Path::new("."), "t", &[], None).unwrap();
            let mut n = Net::new(&l).unwrap();
            if words > 1 {
                n.widen_request_words(words);
            }
            assert_eq!(n.run(false, &mut || false).unwrap(), None);
            n
        };
        let (one, two) = (run(1), run(2));
        assert_eq!((one.arb.req_words, two.arb.req_words), (1, 2));
        assert!(one.engine.packet_hops > 1000, "{}", one.engine.packet_hops);
        assert_eq!(one.engine.events, two.engine.events);
        assert_eq!(one.engine.packet_hops, two.engine.packet_hops);
        assert_eq!(one.engine.last_progress, two.engine.last_progress);
        // the input each output served last, after thousands of picks
        assert_eq!(one.arb.rr, two.arb.rr);
        assert_eq!(one.stats.delivered_packets, two.stats.delivered_packets);
    }
}
