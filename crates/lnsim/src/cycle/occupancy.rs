//! The occupancy signals of the cycle-level model that adaptive routing reads (Dragonfly spec
//! §2.6): Q of an output VC (its output buffer plus the occupancy of the buffer downstream,
//! from the credits), seen through [`View`]; and the Piggyback bits each router computes from
//! its global ports every cycle and publishes for its group (spec §3.6).

use super::CycleNet;
use crate::cycle::routing::candidates::Occupancy;

/// Read-only view of the occupancy signals (spec §2.6) for source-adaptive decisions.
pub(super) struct View<'a> {
    /// Ports per router and VCs per port (the record numbering).
    pub radix: u32,
    pub vcs: u32,
    /// The port records and the output sides of their VCs.
    pub port: &'a [super::PortState],
    pub vout: &'a [super::VcOut],
    /// Credits of a full output VC by port kind ([`CycleNet::credit_cap_of`]).
    pub credit_cap_of: [u32; 4],
    /// Packet size in phits.
    pub pkt_phits: u32,
    /// The Piggyback bits (PB only).
    pub pb: Option<&'a crate::cycle::routing::piggyback::PiggybackState>,
    /// The per-group traffic counters (TPR, LIAN).
    pub counters: Option<&'a crate::cycle::routing::group_counters::GroupCounters>,
    /// The current cycle.
    pub now: u64,
    /// The injection port the deciding packet entered by (MAR-bP, QCN-Switch).
    pub source_port: u32,
    /// The flow control, for the paused signal (MAR-bP).
    pub fc: &'a super::flow_control::FlowControl,
    /// The output buffer's capacity per VC, in phits.
    pub out_cap: u32,
    /// QCN-Switch's minimal probabilities.
    pub qcn: Option<&'a crate::cycle::routing::qcn_probabilities::QcnSwitchState>,
}

impl View<'_> {
    /// Phits held in output buffer (router port `g`, VC index `i`), the packet still leaving
    /// on the link included.
    #[inline]
    fn held(&self, g: usize, i: usize, vc: u8) -> u32 {
        let leaving = self.port[g].link_free > self.now && self.port[g].last_vc == vc;
        self.vout[i].used + if leaving { self.pkt_phits } else { 0 }
    }
}

impl Occupancy for View<'_> {
    #[inline]
    fn q(&self, r: u32, port: u32, vc: u8) -> u64 {
        let g = (r * self.radix + port) as usize;
        let i = g * self.vcs as usize + vc as usize;
        let out = self.held(g, i, vc);
        let full = self.credit_cap_of[self.port[g].kind as usize];
        (out + (full - self.vout[i].credits)) as u64
    }
    #[inline]
    fn source_port(&self) -> u32 {
        self.source_port
    }
    /// MAR-bP's paused signal (spec §3.11): the flow control's for a packet behind those
    /// already queued in the output VC (under credits FOGSim's emulation, `minCond.cc`: the
    /// credits minus the local output buffer's occupancy cannot take one more packet), or no
    /// room for a packet in the output buffer itself.
    #[inline]
    fn paused(&self, r: u32, port: u32, vc: u8) -> bool {
        let g = (r * self.radix + port) as usize;
        let i = g * self.vcs as usize + vc as usize;
        let held = self.held(g, i, vc);
        held + self.pkt_phits > self.out_cap
            || self.fc.paused(
                &self.port[g],
                vc as u32,
                &self.vout[i],
                held + self.pkt_phits,
            )
    }
    #[inline]
    fn min_probability(&self, r: u32, port: u32) -> f64 {
        self.qcn.map_or(100.0, |q| q.probability(r, port))
    }
    #[inline]
    fn pb_bits(&self, reader: u32, r: u32) -> u64 {
        self.pb.map_or(0, |p| p.read(self.now, reader, r))
    }
    #[inline]
    fn counters(&self) -> Option<&crate::cycle::routing::group_counters::GroupCounters> {
        self.counters
    }
}

impl CycleNet {
    /// Phits held in output buffer `gp`/`vc`: the queued packets plus the one whose tail is
    /// still leaving on the link.
    #[inline]
    pub(crate) fn out_occupancy(&self, gp: u32, vc: u32) -> u32 {
        let i = (gp * self.k.vcs + vc) as usize;
        let g = gp as usize;
        let leaving = self.port[g].link_free > self.now && self.port[g].last_vc as u32 == vc;
        self.vout[i].used + if leaving { self.k.pkt_phits } else { 0 }
    }

    /// Every router recomputes its Piggyback bits from its global ports' occupancies (phits
    /// summed over VCs, spec §2.6) and publishes them for its group (spec §3.6, Eq. 2-2).
    pub(super) fn publish_piggyback(&mut self) {
        let mut q = [0u64; 64];
        let mut k = 0usize;
        let mut cur = u32::MAX;
        for j in 0..self.global_ports.len() {
            let gp = self.global_ports[j];
            let r = self.split_gp(gp).0;
            if r != cur {
                if cur != u32::MAX {
                    let bits = self.routing.alg.congestion_bits(&q[..k]);
                    self.mech.publish_bits(self.now, cur, bits);
                }
                cur = r;
                k = 0;
            }
            let mut sum = 0u64;
            for v in 0..self.port[gp as usize].nvc as u32 {
                let i = (gp * self.k.vcs + v) as usize;
                sum +=
                    (self.out_occupancy(gp, v) + self.credit_cap(gp) - self.vout[i].credits) as u64;
            }
            q[k] = sum;
            k += 1;
        }
        if cur != u32::MAX {
            let bits = self.routing.alg.congestion_bits(&q[..k]);
            self.mech.publish_bits(self.now, cur, bits);
        }
    }
}
