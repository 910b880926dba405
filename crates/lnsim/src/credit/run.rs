//! The run loop: take the earliest event, dispatch it to the switch, HCA or generator code,
//! until the end time (or an interruption); then check conservation and write the results
//! folder.

use super::cc::switch_view;
use super::results;
use super::switch::buffer::partitioned::PartitionedCredits;
use super::switch::buffer::CreditKeeping;
use super::{Ev, Net};
use crate::config::{LoadedScenario, Ps, PS_PER_S};
use crate::engine::run::Ending;
use crate::engine::run::{RunOptions, RunOutput};
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
    let planned_end = net.end;
    let ending = match net.run(opts.progress, interrupted)? {
        None => Ending::Complete,
        Some(t) => {
            net.cut_at(t);
            Ending::Interrupted { planned_end }
        }
    };
    let wall_s = wall.elapsed().as_secs_f64();
    let conservation = net.check_conservation()?;
    net.stats.finish(net.end);
    let last = net.stats.nodes.n_int as u32 - 1;
    net.cc.run_ended(last, net.end, net.traffic.flows.len());
    let summary = results::write_results(&net, l, out_dir, wall_s, conservation, ending)?;
    Ok(RunOutput {
        out_dir: out_dir.to_path_buf(),
        summary_json: summary,
        complete: ending.is_complete(),
    })
}

/// Counts reported in `summary.json` under `conservation`.
#[derive(Debug, Clone, Copy)]
pub struct Conservation {
    /// Data packets put on a source link.
    pub injected: u64,
    /// Data packets consumed by a sink.
    pub delivered: u64,
    /// Data packets still in the network at the end (injected = delivered + in the network;
    /// congestion notifications are counted apart).
    pub in_network: u64,
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
        self.end = t;
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
            if p <= self.end {
                self.at(p, Ev::CcTimer);
            }
        }
        let mut watch = crate::engine::progress::RunProgress::new(
            progress,
            self.end / 1_000_000,
            "{bar:40} {msg} sim {pos}/{len} us [{elapsed_precise} < {eta}]",
        );
        // a deadlock is looked for once packets have not moved for this long
        let stall = STALL_PS;
        let mut next_check = stall;
        let mut stopped = None;
        while let Some((t, ev)) = self.q.pop() {
            if t >= self.end {
                self.q.push(t, ev); // keep it for the conservation count
                break;
            }
            self.events += 1;
            if let Some(&next) = self.q.peek_ahead(PREFETCH_AHEAD) {
                self.prefetch_event(next);
            }
            if let Some(&next) = self.q.peek_ahead(PREFETCH_NEAR) {
                self.prefetch_packet_state(next);
            }
            self.dispatch(t, ev);
            if self.events & 0xFFF == 0 {
                if let Some(f) = &self.fault {
                    return Err(Error::Internal(f.clone()));
                }
                if t >= next_check && t - self.last_progress >= stall {
                    if let Some(d) = self.detect_deadlock(t) {
                        self.deadlock = Some(d);
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
                    Err(Error::Interrupted) => {
                        stopped = Some(t);
                        break;
                    }
                    r => r?,
                }
            }
        }
        watch.finish();
        if let Some(f) = &self.fault {
            return Err(Error::Internal(f.clone()));
        }
        if stopped.is_none() && self.deadlock.is_none() && self.q.is_empty() {
            // nothing more will ever happen: packets still queued are stuck for good
            let t = self.last_progress;
            self.deadlock = self.detect_deadlock(t);
        }
        Ok(stopped)
    }

    /// Asks for the cache lines event `ev` will touch first (the records its handler reads
    /// at random; `credit/prefetch.rs`): a hint, no state changes.
    #[inline(always)]
    fn prefetch_event(&self, ev: Ev) {
        match ev {
            Ev::HeadArrive { pkt, .. } | Ev::CrossbarArrive { pkt, .. } => self.pkts.prefetch(pkt),
            Ev::InputRelease { gport, counter, .. } | Ev::CrossbarDone { gport, counter, .. } => {
                if let CreditKeeping::Partitioned(p) = &self.credit_keeping {
                    p.prefetch(gport, counter);
                }
                if let Some(fc) = &self.flow_control {
                    fc.prefetch(self.upstream_credit_slot(gport, counter));
                }
            }
            Ev::FlowControlSend { gport, counter } => {
                if let Some(fc) = &self.flow_control {
                    fc.prefetch(self.upstream_credit_slot(gport, counter));
                }
            }
            Ev::CreditArrive { gport, counter, .. } => {
                crate::credit::prefetch::prefetch(&self.credits, self.credit_slot(gport, counter));
                if let Some(ob) = &self.obuf {
                    ob.prefetch(ob.slot(gport, counter));
                }
            }
            Ev::OutputRelease { gport, counter, .. } | Ev::WireDone { gport, counter, .. } => {
                if let Some(ob) = &self.obuf {
                    ob.prefetch(ob.slot(gport, counter));
                }
                self.prefetch_arbiter(gport);
            }
            Ev::OutputReady { gport } => self.prefetch_arbiter(gport),
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
    fn prefetch_arbiter(&self, og: u32) {
        use crate::credit::prefetch::prefetch;
        let Some(&fb) = self.fill_base.get(og as usize) else {
            return;
        };
        if fb == u32::MAX || self.head_words == 0 {
            return;
        }
        let i = fb as usize * self.head_words;
        prefetch(&self.head_mask, i);
        prefetch(&self.head_mask, i + 8);
        if let Some(ob) = &self.obuf {
            ob.prefetch_room(og);
        }
    }

    /// The second step of [`Net::prefetch_event`] for an event about a packet: the state its
    /// record points to (the output queue it joins, its input buffer's counters).
    #[inline(always)]
    fn prefetch_packet_state(&self, ev: Ev) {
        use crate::credit::prefetch::prefetch;
        match ev {
            Ev::HeadArrive { pkt, gport } => {
                let p = &self.pkts[pkt];
                prefetch(&self.in_used, gport as usize * self.vls + p.vl as usize);
                let out = self.pkts.next_out(pkt);
                let fb = self.fill_base[gport as usize];
                if out != crate::credit::packet::NO_LOOKAHEAD && fb != u32::MAX {
                    prefetch(
                        &self.fill,
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
                    let qlocal = self.queue_scheme.queue_of(&query, self.vls);
                    let qid = self.queue_base[gport as usize] as usize + qlocal as usize;
                    prefetch(&self.queues, qid);
                    if let CreditKeeping::Partitioned(pc) = &self.credit_keeping {
                        pc.prefetch(gport, qlocal as u16);
                    }
                    // the look-ahead's table entry at the switch after this one, and what the
                    // output's arbiter reads
                    let og = self.port_base[self.node_of[gport as usize] as usize] + out as u32;
                    self.prefetch_arbiter(og);
                    if let Some(&next) = self.peer.get(og as usize) {
                        if self.is_switch[next as usize] {
                            let sw = self.node_of[next as usize];
                            self.lft.prefetch(sw, p.dst + 1);
                        }
                    }
                }
            }
            Ev::CrossbarArrive { pkt, gport } => {
                if let Some(ob) = &self.obuf {
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
                let vl = self.counter_vl(counter) as usize;
                prefetch(&self.in_used, gport as usize * self.vls + vl);
                let fb = self.fill_base[gport as usize];
                if fb != u32::MAX {
                    prefetch(&self.fill, fb as usize + out as usize * self.vls + vl);
                }
            }
            Ev::Arrival { source, dst } => {
                // the flow's record, whose message queue the new message joins (its entry
                // was prefetched earlier; a flow not created yet has none)
                if let Some(f) = self.traffic.flow_index.peek(source, dst) {
                    crate::credit::prefetch::prefetch_all(&self.traffic.flows, f as usize);
                }
            }
            Ev::CreditArrive { gport, counter, .. } => {
                // the head of the output queue these credits are for (`link_refresh`)
                if let Some(ob) = &self.obuf {
                    if let Some(pid) = ob.head(ob.slot(gport, counter)) {
                        self.pkts.prefetch(pid);
                    }
                }
            }
            _ => {}
        }
    }

    #[inline]
    fn dispatch(&mut self, t: Ps, ev: Ev) {
        match ev {
            Ev::HeadArrive { pkt, gport } => {
                if self.is_switch[gport as usize] {
                    self.switch_receive(pkt, gport, t)
                } else {
                    self.hca_receive(pkt, gport, t)
                }
            }
            Ev::OutputReady { gport } => self.output_ready(gport, t),
            Ev::InputRelease {
                gport,
                counter,
                out,
                credits,
            } => self.input_release(gport, counter, out, credits, t),
            Ev::CrossbarDone {
                gport,
                counter,
                out,
                credits,
            } => {
                self.input_release(gport, counter, out, credits, t);
                let og = self.port_base[self.node_of[gport as usize] as usize] + out as u32;
                self.output_ready(og, t)
            }
            Ev::CreditArrive {
                gport,
                counter,
                credits,
            } => {
                let slot = self.credit_slot(gport, counter);
                self.credits[slot] += credits;
                if self.is_switch[gport as usize] {
                    if self.obuf.is_some() {
                        self.link_refresh(gport, counter);
                        self.try_link(gport, t);
                    } else {
                        self.output_gained_room(gport);
                        self.try_output(gport, t);
                    }
                    let vl = self.counter_vl(counter);
                    self.cc.credits_returned(switch_view!(self), gport, vl, t);
                } else {
                    let h = self.hca_of_node[self.node_of[gport as usize] as usize];
                    // more credits: the flows that need this counter may fit again (the others
                    // still do not: only this HCA's sends take its credits)
                    if self.slot_waiting[slot] > 0 {
                        self.hca_blocked[h as usize] = 0;
                    }
                    self.try_hca_send(h, t)
                }
            }
            Ev::SinkDone { hca } => self.sink_done(hca, t),
            Ev::SinkCredit { hca, seq } => self.sink_credit(hca, seq, t),
            Ev::HcaWake { hca } => {
                if t >= self.wake_at[hca as usize] {
                    self.wake_at[hca as usize] = Ps::MAX;
                }
                self.try_hca_send(hca, t)
            }
            Ev::Arrival { source, dst } => self.arrival(source, dst, t),
            Ev::CcSample { interval } => {
                self.cc
                    .interval_ended(interval, t, self.traffic.flows.len())
            }
            Ev::CcTimer => self.cc_timer(t),
            Ev::FlowControlSend { gport, counter } => self.flow_control_send(gport, counter, t),
            Ev::CrossbarArrive { pkt, gport } => self.output_arrive(pkt, gport, t),
            Ev::LinkReady { gport } => self.link_ready(gport, t),
            Ev::OutputRelease {
                gport,
                counter,
                credits,
            } => self.output_release(gport, counter, credits, t),
            Ev::WireDone {
                gport,
                counter,
                credits,
            } => {
                self.link_ready(gport, t);
                self.output_release(gport, counter, credits, t)
            }
        }
    }

    /// The crossbar output of switch port `gport` (or the HCA's sender) is free: it may
    /// take its next packet.
    #[inline]
    fn output_ready(&mut self, gport: u32, t: Ps) {
        self.out_busy[gport as usize] = false;
        if self.is_switch[gport as usize] {
            self.try_output(gport, t)
        } else {
            let h = self.hca_of_node[self.node_of[gport as usize] as usize];
            self.try_hca_send(h, t)
        }
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
            for h in 0..self.hca_gport.len() as u32 {
                self.try_hca_send(h, t);
            }
        }
        if let Some(p) = self.cc.timer_period() {
            if t + p <= self.end {
                self.at(t + p, Ev::CcTimer);
            }
        }
    }

    /// End-of-run invariants: every packet is delivered or accounted for in the network, and
    /// on every link direction and credit counter the credits held by the sender plus those in
    /// flight, in the receiving buffer and on their way back equal the buffer's capacity; with
    /// output buffers, the same balance inside every switch for each output queue
    /// (`Net::check_output_buffers`, which also checks the link's `sendable` bits) and the HCAs'
    /// ready-flow bookkeeping (`Net::check_ready_slots`).
    pub(crate) fn check_conservation(&self) -> Result<Conservation> {
        let wire_pkts = match &self.credit_keeping {
            CreditKeeping::SharedPool(_) => self.check_pool_credits()?,
            CreditKeeping::Partitioned(p) => self.check_queue_credits(p)?,
        };
        self.check_queue_fills()?;
        self.check_ready_slots()?;
        let crossing = self.check_output_buffers()?;
        let held = self.check_injection_queues()?;
        self.check_packets(wire_pkts + crossing, held)
    }

    /// Credit conservation with one pool per (buffer, VL); returns the packets on wires.
    fn check_pool_credits(&self) -> Result<u64> {
        let vls = self.vls;
        let np = self.peer.len();
        let mut on_wire = vec![0u64; np * vls]; // credits of packets heading for input gport
        let mut returning = vec![0u64; np * vls]; // credits on their way to output gport
        let mut releasing = vec![0u64; np * vls]; // credits of packets leaving input gport
        let mut wire_pkts = 0u64;
        self.q.for_each(|_, ev| match *ev {
            Ev::HeadArrive { pkt, gport } => {
                let p = &self.pkts[pkt];
                on_wire[gport as usize * vls + p.vl as usize] += p.credits as u64;
                wire_pkts += 1;
            }
            Ev::CreditArrive {
                gport,
                counter,
                credits,
            } => returning[gport as usize * vls + counter as usize] += credits as u64,
            Ev::InputRelease {
                gport,
                counter,
                credits,
                ..
            }
            | Ev::CrossbarDone {
                gport,
                counter,
                credits,
                ..
            } => releasing[gport as usize * vls + counter as usize] += credits as u64,
            _ => {}
        });
        // credits freed but still waiting for their flow-control packet are on their way back
        if let Some(fc) = &self.flow_control {
            for (slot, c) in fc.pending().enumerate() {
                returning[slot] += c as u64;
            }
        }
        // in_used counts a packet from its head arrival until its release; a packet granted but
        // not yet released is also on the next wire (counted there against the next buffer)
        for g in 0..np {
            for v in 0..vls {
                let i = g * vls + v;
                let down = self.peer[g] as usize * vls + v;
                let held = self.credits[i] as u64
                    + on_wire[down]
                    + self.in_used[down] as u64
                    + returning[i];
                if held != self.in_cap[down] as u64 {
                    return Err(Error::Internal(format!(
                        "credit conservation violated on {} VL {v}: {} available + {} on the wire + {} buffered + {} returning != capacity {}",
                        self.port_name(g as u32),
                        self.credits[i],
                        on_wire[down],
                        self.in_used[down],
                        returning[i],
                        self.in_cap[down]
                    )));
                }
                if releasing[down] > self.in_used[down] as u64 {
                    return Err(Error::Internal(format!(
                        "buffer {} releases more than it holds",
                        self.port_name(self.peer[g])
                    )));
                }
            }
        }
        Ok(wire_pkts)
    }

    /// Credit conservation with credits kept per queue: the same balance per queue share
    /// (slots number the counters of every input; the output driving it uses the same slots).
    /// Returns the packets on wires.
    fn check_queue_credits(&self, p: &PartitionedCredits) -> Result<u64> {
        let n = p.slots();
        let mut on_wire = vec![0u64; n];
        let mut returning = vec![0u64; n];
        let mut releasing = vec![0u64; n];
        let mut wire_pkts = 0u64;
        self.q.for_each(|_, ev| match *ev {
            Ev::HeadArrive { pkt, gport } => {
                let k = &self.pkts[pkt];
                let counter =
                    self.downstream_counter(self.peer[gport as usize], k.dst, k.vl, k.flags);
                on_wire[p.in_slot(gport, counter)] += k.credits as u64;
                wire_pkts += 1;
            }
            Ev::CreditArrive {
                gport,
                counter,
                credits,
            } => returning[p.out_slot(gport, counter)] += credits as u64,
            Ev::InputRelease {
                gport,
                counter,
                credits,
                ..
            }
            | Ev::CrossbarDone {
                gport,
                counter,
                credits,
                ..
            } => releasing[p.in_slot(gport, counter)] += credits as u64,
            _ => {}
        });
        if let Some(fc) = &self.flow_control {
            for (slot, c) in fc.pending().enumerate() {
                returning[slot] += c as u64;
            }
        }
        for d in 0..self.peer.len() as u32 {
            for s in p.in_slots(d) {
                let held = self.credits[s] as u64 + on_wire[s] + p.used(s) as u64 + returning[s];
                if held != p.cap(s) as u64 {
                    return Err(Error::Internal(format!(
                        "credit conservation violated on {} counter {}: {} available + {} on the wire + {} buffered + {} returning != share {}",
                        self.port_name(self.peer[d as usize]),
                        s - p.in_slots(d).start,
                        self.credits[s],
                        on_wire[s],
                        p.used(s),
                        returning[s],
                        p.cap(s)
                    )));
                }
                if releasing[s] > p.used(s) as u64 {
                    return Err(Error::Internal(format!(
                        "buffer {} releases more than a queue holds",
                        self.port_name(d)
                    )));
                }
            }
        }
        Ok(wire_pkts)
    }

    /// The per-output fills of a switch input add up to its occupancy.
    fn check_queue_fills(&self) -> Result<()> {
        let vls = self.vls;
        for g in 0..self.peer.len() {
            if self.fill_base[g] == u32::MAX {
                continue;
            }
            let n = self.fabric.nodes[self.node_of[g] as usize].ports.len();
            for v in 0..vls {
                let sum: u64 = (0..n)
                    .map(|o| self.fill[self.fill_base[g] as usize + o * vls + v] as u64)
                    .sum();
                if sum != self.in_used[g * vls + v] as u64 {
                    return Err(Error::Internal(format!(
                        "queue fills of {} VL {v} add up to {sum}, buffer holds {}",
                        self.port_name(g as u32),
                        self.in_used[g * vls + v]
                    )));
                }
            }
        }
        Ok(())
    }

    /// Every packet alive sits in a queue or on a wire (`wire_pkts`, with packets crossing a
    /// crossbar into an output buffer), and every data packet
    /// injected was delivered or is still in the network; `held` packets sit in the HCAs'
    /// injection queues (built, not yet injected: spec B.5 Input Adapter).
    fn check_packets(&self, wire_pkts: u64, held: u64) -> Result<Conservation> {
        let queued: u64 = self
            .queues
            .iter()
            .map(|q| self.pkts.queue_len(q) as u64)
            .sum::<u64>()
            + self.sink_q.iter().map(|q| q.len() as u64).sum::<u64>()
            + self.control_q.iter().map(|q| q.len() as u64).sum::<u64>()
            + self.obuf.as_ref().map_or(0, |ob| {
                ob.queues()
                    .map(|q| self.pkts.queue_len(q) as u64)
                    .sum::<u64>()
            });
        // packets between grant and arrival are on the wire; the rest sit in queues (`held`
        // in the HCAs' injection queues, not yet injected: spec B.5 Input Adapter)
        let in_network = queued + wire_pkts + held;
        if in_network != self.pkts.live() {
            return Err(Error::Internal(format!(
                "flit conservation violated: {} packets alive but {} in queues and on wires",
                self.pkts.live(),
                in_network
            )));
        }
        let st = &self.stats;
        let data_alive = self.pkts.live()
            - (st.injected_control - st.delivered_control)
            - self.control_q.iter().map(|q| q.len() as u64).sum::<u64>()
            - held;
        if st.injected_packets != st.delivered_packets + data_alive {
            return Err(Error::Internal(format!(
                "flit conservation violated: {} data packets injected, {} delivered, {} in the network",
                st.injected_packets, st.delivered_packets, data_alive
            )));
        }
        Ok(Conservation {
            injected: st.injected_packets,
            delivered: st.delivered_packets,
            // data packets only, as injected and delivered count them (notifications apart)
            in_network: data_alive,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::load_str;

    fn net() -> Net {
        let text = "[sim]\nend_time = \"100us\"\n[topology]\nkind = \"mesh\"\ndims = [2, 2]\nhcas_per_switch = 2\n\
                    [[traffic.generators]]\nsources = \"all\"\n";
        let l = load_str(text, "t", std::path::Path::new("."), "t", &[], None).unwrap();
        let mut n = Net::new(&l).unwrap();
        assert_eq!(n.run(false, &mut || false).unwrap(), None);
        n
    }

    #[test]
    fn conservation_holds_mid_flight() {
        let n = net();
        let c = n.check_conservation().unwrap();
        assert!(c.in_network > 0 && c.delivered > 0);
    }

    #[test]
    fn conservation_check_catches_a_created_credit() {
        let mut n = net();
        n.credits[3] += 1;
        let e = n.check_conservation().unwrap_err().to_string();
        assert!(e.contains("credit conservation"), "{e}");
    }

    #[test]
    fn the_end_of_run_check_catches_wrong_ready_flow_bookkeeping() {
        let mut n = net();
        let h = n
            .ready
            .iter()
            .position(|r| !r.is_empty())
            .expect("a ready flow");
        let slot = n.ready_slot[h][0] as usize;
        n.slot_waiting[slot] += 1;
        let e = n.check_conservation().unwrap_err().to_string();
        assert!(e.contains("miscounted"), "{e}");
        n.slot_waiting[slot] -= 1;
        n.ready_slot[h][0] += 1;
        let e = n.check_conservation().unwrap_err().to_string();
        assert!(e.contains("recorded at credit slot"), "{e}");
    }

    #[test]
    fn conservation_check_catches_a_lost_packet() {
        let mut n = net();
        let q = n
            .queues
            .iter()
            .position(|q| !q.is_empty())
            .expect("a queued packet");
        n.pkts.pop_front(&mut n.queues[q]);
        assert!(n.check_conservation().is_err());
    }
}
