//! InfiniBand congestion control (spec §2) as one congestion-management mechanism: the switch
//! side ([`super::ib_switch`]) decides per output port and VL whether it is congested and
//! marks FECN on packets leaving a congested one; the channel-adapter side ([`super::ib_ca`])
//! answers a FECN at the destination with a CNP (BECN) to the source, which raises the flow's
//! CCT index and so the injection-rate delay read from the table ([`super::cct`]).
//!
//! One method per hook of [`super::CongestionManagement`] it uses, named as the hook.

use super::cct::CongestionControlTable;
use super::ib_ca::CaCc;
use super::ib_switch::SwitchCc;
use super::{CcContext, MemorySizes, Notification, SwitchView};
use crate::config::{CcLevel, IbCcKeys, Ps};
use crate::credit::packet::{Packet, BECN, FECN};
use crate::credit::traffic::Flow;
use crate::engine::memory_budget::{m, MemoryEstimate, Phase};
use crate::error::{Error, Result};

/// InfiniBand CC: switch and channel-adapter state.
#[derive(Debug, Clone)]
pub struct IbCc {
    /// Switch side (marking).
    pub sw: SwitchCc,
    /// Channel-adapter side (reaction).
    pub ca: CaCc,
}

impl IbCc {
    /// Builds both sides from `[cc]`, checking every key (the buffer capacities are given
    /// separately: [`IbCc::set_capacities`]).
    pub fn from_config(c: &IbCcKeys, ctx: &CcContext) -> Result<Self> {
        let table = CongestionControlTable::from_config(
            &c.cct,
            c.ccti_limit as usize + 1,
            ctx.base_dir,
            ctx.given,
        )?;
        let sw = SwitchCc::new(
            c,
            ctx.vls,
            ctx.pkt_credits,
            ctx.is_switch,
            ctx.class,
            ctx.node_base,
            ctx.seed,
        )?;
        if c.level == CcLevel::Sl && ctx.sources_pick_lanes {
            return Err(Error::input(
                "cc.level",
                "\"sl\" keys a source's CCTI by its flows' VL, but here the source picks each packet's VL itself (a source lane choice: routing.engine = \"dfsssp\", the routing's SL per pair, or DDBBM on VLs), which the SL-level reaction does not follow: use cc.level = \"qp\"",
            ));
        }
        let ca = CaCc::new(c, ctx.vls, ctx.n_hca, table, ctx.seed)?;
        Ok(IbCc { sw, ca })
    }

    /// Records the capacity of every input buffer (`[gport * vls + vl]`, credits): fills are
    /// compared with the threshold as fractions of it.
    pub fn set_capacities(&mut self, in_cap: &[u32]) {
        self.sw.set_capacities(in_cap);
    }

    /// A VoQ fill rose (spec §2.2.3).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn packet_enqueued(
        &mut self,
        v: &SwitchView,
        input: u32,
        out: u16,
        vl: u8,
        old: u32,
        new: u32,
        now: Ps,
    ) {
        self.sw.fill_changed(v, input, out, vl, old, new, now);
    }

    /// A VoQ fill fell (spec §2.2.3).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn packet_dequeued(
        &mut self,
        v: &SwitchView,
        input: u32,
        out: u16,
        vl: u8,
        old: u32,
        new: u32,
        now: Ps,
    ) {
        self.sw.fill_changed(v, input, out, vl, old, new, now);
    }

    /// FECN marking (spec §2.2.5), then the output's state with its credits taken.
    #[inline]
    pub fn packet_forwarded(
        &mut self,
        v: &SwitchView,
        output: u32,
        vl: u8,
        p: &mut Packet,
        now: Ps,
    ) {
        self.sw.mark(output, vl, p);
        self.sw.evaluate(v, output, vl, now);
    }

    /// The output's state with credits back (root or victim).
    #[inline]
    pub fn credits_returned(&mut self, v: &SwitchView, output: u32, vl: u8, now: Ps) {
        self.sw.evaluate(v, output, vl, now);
    }

    /// A FECN-marked data packet reached its destination `h`: a CNP goes back to the source
    /// (spec §2.3.1; only data packets reach this hook: the FECN of a CNP is ignored).
    #[inline]
    pub fn packet_received(&mut self, h: u32, p: &Packet, _now: Ps) -> Option<Notification> {
        if p.flags & FECN == 0 {
            return None;
        }
        self.ca.cnps_sent[h as usize] += 1;
        Some(Notification {
            to: p.src,
            flow: p.flow,
            bytes: self.ca.cnp_bytes,
            vl: self.ca.cnp_vl,
            becn: true,
            path: 0,
        })
    }

    /// A CNP reached source `h`: its BECN raises the CCTI of the flow (QP level) or of the
    /// source's SL (SL level), spec §2.3.2. The flow may be held back longer now; nothing to
    /// wake.
    #[inline]
    pub fn notification_received(&mut self, h: u32, p: &Packet, flow: &Flow, now: Ps) {
        if p.flags & BECN != 0 {
            let key = self.ca.key(p.flow, flow.src, flow.vl);
            self.ca.cnps_received[h as usize] += 1;
            self.ca.becn(key, flow.src, flow.vl, now);
        }
    }

    /// Earliest start of flow `f`'s next packet: the IRD gap after its previous one (§2.3.3).
    #[inline]
    pub fn ready_at(&self, f: u32, flow: &Flow) -> Ps {
        self.ca.ready_at(self.ca.key(f, flow.src, flow.vl))
    }

    /// Flow `f` starts a packet of serialisation time `ser`: the next gap is `IRD · ser`.
    #[inline]
    pub fn packet_sent(&mut self, f: u32, flow: &Flow, ser: Ps, now: Ps) {
        let key = self.ca.key(f, flow.src, flow.vl);
        self.ca.sent(key, f, ser, now);
    }

    /// CCTI sample of every throttled key at the end of interval `interval`.
    #[inline]
    pub fn interval_ended(&mut self, interval: u32, t: Ps) {
        self.ca.sample(interval, t);
    }

    /// The last CCTI sample, and the congestion periods still open closed at `end`.
    pub fn run_ended(&mut self, last: u32, end: Ps) {
        self.ca.sample(last, end);
        self.sw.finish(end);
    }
}

/// InfiniBand CC's share of the memory estimate beyond its state (estimated with the network,
/// built even when off): the CCTI series of every HCA per statistics interval.
pub fn memory(z: &MemorySizes, est: &mut MemoryEstimate) {
    est.add(
        "CCTI series",
        m(m(z.intervals, z.hcas), 4 * 16 * 2),
        Phase::Run,
    );
}

/// InfiniBand CC in one line (the set-up report).
pub fn describe() -> String {
    "ib (the IBA's CC: root/victim marking at outputs, CCTI and CCT at the HCAs)".to_string()
}
