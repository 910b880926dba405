//! End-of-run and running checks of the cycle-level model: the saturation watch (sources'
//! queues growing without bound stop the run) and the conservation check (every packet and
//! every credit accounted for; under PFC every frame, [`CycleNet::check_pfc`]).

use super::results::Counts;
use super::{CycleNet, Ev, PortKind};
use crate::error::{Error, Result};

impl CycleNet {
    /// Packets waiting at the sources (backlog and injection queues).
    pub(super) fn at_sources(&self) -> u64 {
        let mut n: u64 = self.terms.state.iter().map(|x| x.backlog_len as u64).sum();
        for &g in &self.terms.gp {
            n += self.port[g as usize].in_count as u64;
        }
        n
    }

    /// True when the run must stop: the sources' queues grow without bound and the
    /// measurement has lasted at least `sim.saturation_min_cycles`.
    pub(super) fn saturation_watch(&mut self) -> bool {
        if self.now < self.k.warmup + self.k.sat_min {
            return false;
        }
        let active = self.terms.traffic.active_count(self.now).max(1) as f64;
        if self.at_sources() as f64 / active > self.k.sat_queue {
            self.stats.stopped_early = true;
            return true;
        }
        false
    }

    /// End-of-run invariants: every packet generated is delivered, waiting at its source, in a
    /// buffer or on a link; on every link and VC the credits held upstream plus those in
    /// flight and in the downstream buffer equal its capacity (under PFC instead: the frames,
    /// full credits, occupancies within capacity and pause states, [`CycleNet::check_pfc`]).
    pub(crate) fn check_conservation(&self) -> Result<Counts> {
        let vcs = self.k.vcs as usize;
        let np = self.port.len();
        let mut on_wire = vec![0u64; np * vcs];
        let mut wire_pkts = 0u64;
        let mut releasing = vec![0u64; np * vcs];
        {
            for ev in self.eng.cal.events() {
                match ev {
                    Ev::Arrive { pkt: _, gp, vc } => {
                        let v = vc as usize;
                        on_wire[gp as usize * vcs + v] += self.k.pkt_phits as u64;
                        wire_pkts += 1;
                    }
                    Ev::Credit { gp, vc } => {
                        releasing[self.port[gp as usize].peer as usize * vcs + vc as usize] +=
                            self.k.pkt_phits as u64;
                    }
                    Ev::TermCredit { t } => {
                        releasing[self.terms.gp[t as usize] as usize * vcs] +=
                            self.k.pkt_phits as u64;
                    }
                    _ => {}
                }
            }
        }
        // PFC: no credits between routers; frames, occupancies and pause states instead
        let pfc = self.fc.pfc();
        if let Some(p) = pfc {
            self.check_pfc(p)?;
        }
        for g in 0..np {
            let down = self.port[g].peer;
            if pfc.is_some() || !matches!(self.port[g].kind, PortKind::Local | PortKind::Global) {
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
        for t in 0..self.k.terminals as usize {
            let g = self.terms.gp[t] as usize;
            let held = self.terms.state[t].credits as u64
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
            let n = self.eng.pkts.len(self.vc[i].in_q);
            queued += n;
            if n * self.k.pkt_phits as u64 != self.vc[i].in_used as u64 {
                return Err(Error::Internal(format!(
                    "buffer accounting violated at {} VC {}: {} packets queued, {} phits used",
                    self.port_name((i / vcs) as u32),
                    i % vcs,
                    n,
                    self.vc[i].in_used
                )));
            }
            queued += self.eng.pkts.out_len(&self.vout[i].q);
        }
        let at_sources: u64 = self.terms.state.iter().map(|x| x.backlog_len as u64).sum();
        let in_network = queued + wire_pkts;
        if in_network + at_sources != self.eng.pkts.live() {
            return Err(Error::Internal(format!(
                "flit conservation violated: {} packets alive but {} in buffers, {} on links and {} at sources",
                self.eng.pkts.live(), queued, wire_pkts, at_sources
            )));
        }
        let st = &self.stats;
        // (QCN notifications are alive too: created = delivered + alive, `cnm.rs`)
        let data_alive = self.eng.pkts.live() - self.cnms_alive();
        if st.total_generated != st.total_delivered + data_alive {
            return Err(Error::Internal(format!(
                "flit conservation violated: {} packets generated, {} delivered, {} alive",
                st.total_generated, st.total_delivered, data_alive
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
