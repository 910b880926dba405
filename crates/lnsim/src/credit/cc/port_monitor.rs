//! The switch port monitor of the DRB paper (drb-and-ddbbm spec A.3.2 "switch: per input-port,
//! per-VL buffer", A.3.7, A.10 item 7): a data packet leaving a switch input VL buffer whose
//! occupancy exceeds `cc.mark_fraction` of its capacity gets FECN. It keeps its path. Both
//! mechanisms of that paper use it: DRB ([`super::drb`]) and its IBA_CC baseline
//! ([`super::ib_s1`]); the destination answers each marked packet with a notification
//! (`notification_for`).
//!
//! The occupancy is sampled as the packet starts leaving (its head is granted the output; its
//! own credits are still in the buffer): spec A.3.2 "sample at departure". With
//! `cc.mark_buffer = "output"` (spec A.10 item 7's option) the monitor watches the output VL
//! buffer instead, as the packet starts on the link (`packet_forwarded`), against the
//! `cc.mark_fraction` of that VL's output buffer. With `cc.mark_scope = "port"` (spec A.6
//! "80 % of port buffer size" read as the port's) the occupancy summed over the port's VLs is
//! compared with the fraction of the port's total capacity.

use crate::config::{CcMechanism, MarkBuffer, MarkScope, Scenario};
use crate::credit::cc::MemorySizes;
use crate::credit::cc::{CcContext, Notification, SwitchView};
use crate::credit::cc::{MechanismOutputs, OutputContext};
use crate::credit::packet::{Packet, CNP, FECN};
use crate::engine::memory_budget::{grown, m, MemoryEstimate, Phase};
use crate::error::{Error, Result};
use serde_json::json;
use std::fmt::Write as _;

/// The monitor: a marking limit per switch input port and VL, and the marks made.
#[derive(Debug, Clone)]
pub struct PortMonitor {
    vls: usize,
    /// `[gport * vls + vl]`: a packet leaving while the buffer (the port's VL buffers together
    /// with `port` scope) holds more credits than this is marked (`u32::MAX` at HCA ports:
    /// they are not monitored).
    limit: Vec<u32>,
    /// `[gport * vls + vl]`: packets marked.
    marks: Vec<u64>,
    /// Notification size on the wire (`cc.cnp_bytes`).
    notification_bytes: u32,
    /// Which buffer is watched.
    buffer: MarkBuffer,
    /// The VL buffer or the whole port.
    scope: MarkScope,
    /// The marking fraction (for the output buffers' capacities, read when marking).
    fraction: f64,
}

impl PortMonitor {
    /// The monitor of every switch input with threshold `fraction` (0 < fraction ≤ 1) of the
    /// buffers' capacities; notifications of `notification_bytes`.
    pub fn new(fraction: f64, notification_bytes: u32, ctx: &CcContext) -> Self {
        Self::watching(
            MarkBuffer::Input,
            MarkScope::Vl,
            fraction,
            notification_bytes,
            ctx,
        )
    }

    /// The monitor of buffer `buffer` (input or output) of every switch port, per VL or per
    /// port (`scope`).
    pub fn watching(
        buffer: MarkBuffer,
        scope: MarkScope,
        fraction: f64,
        notification_bytes: u32,
        ctx: &CcContext,
    ) -> Self {
        let vls = ctx.vls;
        let limit = ctx
            .in_cap
            .iter()
            .enumerate()
            .map(|(i, &cap)| {
                let g = i / vls;
                let cap = match scope {
                    MarkScope::Vl => cap,
                    MarkScope::Port => ctx.in_cap[g * vls..(g + 1) * vls].iter().sum(),
                };
                if ctx.is_switch[g] {
                    // occupancy > fraction · cap  ⟺  occupancy > ⌊fraction · cap⌋ (integers)
                    (fraction * cap as f64).floor() as u32
                } else {
                    u32::MAX
                }
            })
            .collect::<Vec<_>>();
        PortMonitor {
            vls,
            marks: vec![0; limit.len()],
            limit,
            notification_bytes,
            buffer,
            scope,
            fraction,
        }
    }

    /// Packet `p` starts leaving the switch input buffer where it sits (`p.at`, VL `p.vl`),
    /// which holds `in_used[p.at * vls + p.vl]` credits: mark it if that is above the limit.
    #[inline]
    pub fn packet_leaves_input(&mut self, in_used: &[u32], p: &mut Packet) {
        if self.buffer != MarkBuffer::Input || p.flags & CNP != 0 {
            return; // notifications are not data: never marked
        }
        let i = p.at as usize * self.vls + p.vl as usize;
        let used = match self.scope {
            MarkScope::Vl => in_used[i],
            MarkScope::Port => {
                let g = p.at as usize * self.vls;
                in_used[g..g + self.vls].iter().sum()
            }
        };
        if used > self.limit[i] {
            p.flags |= FECN;
            self.marks[i] += 1;
        }
    }

    /// Output `output` starts sending packet `p` on `vl` (`cc.mark_buffer = "output"`): mark
    /// it if the output buffer of that VL, the packet included, holds more than the fraction
    /// of its capacity.
    #[inline]
    pub fn packet_forwarded(&mut self, v: &SwitchView, output: u32, vl: u8, p: &mut Packet) {
        if self.buffer != MarkBuffer::Output || p.flags & CNP != 0 {
            return;
        }
        let (used, cap) = match self.scope {
            MarkScope::Vl => v.out_fill.vl_fill(output, vl, self.vls),
            MarkScope::Port => (0..self.vls as u8)
                .map(|l| v.out_fill.vl_fill(output, l, self.vls))
                .fold((0, 0), |(u, c), (a, b)| (u + a, c + b)),
        };
        if cap > 0 && used > (self.fraction * cap as f64).floor() as u32 {
            p.flags |= FECN;
            self.marks[output as usize * self.vls + vl as usize] += 1;
        }
    }

    /// Packets marked in all.
    pub fn total_marks(&self) -> u64 {
        self.marks.iter().sum()
    }

    /// `(gport, vl, marks)` of every monitored buffer that marked a packet.
    pub fn marks(&self) -> impl Iterator<Item = (u32, u8, u64)> + '_ {
        self.marks
            .iter()
            .enumerate()
            .filter(|(_, &m)| m > 0)
            .map(|(i, &m)| ((i / self.vls) as u32, (i % self.vls) as u8, m))
    }

    /// The destination's answer to data packet `p` (spec A.3.2 "destination CA"): for a
    /// FECN-marked one, a notification with BECN back to its source, naming the packet's path.
    #[inline]
    pub fn notification_for(&self, p: &Packet) -> Option<Notification> {
        (p.flags & FECN != 0).then_some(Notification {
            to: p.src,
            flow: p.flow,
            bytes: self.notification_bytes,
            vl: None,
            becn: true,
            path: p.path,
        })
    }
}

/// What the monitor compares, in words (the set-up report): "an input VL buffer", "an output
/// port's VL buffers together", ….
pub fn watched(buffer: MarkBuffer, scope: MarkScope) -> String {
    match scope {
        MarkScope::Vl => format!("an {} VL buffer", buffer.name()),
        MarkScope::Port => format!("an {} port's VL buffers together", buffer.name()),
    }
}

/// `cc.mark_buffer = "output"` needs output buffers and a mechanism with the monitor
/// (`cc.mechanism = "drb"` or `"ib_s1"`, `cc.enabled = true`).
pub fn check_mark_buffer(s: &Scenario) -> Result<()> {
    if s.cc.mark_buffer() == MarkBuffer::Output
        && (s.switch.output_buffer_credits == 0
            || !s.cc.enabled
            || !matches!(s.cc.mechanism, CcMechanism::Drb | CcMechanism::IbS1))
    {
        return Err(Error::input(
            "cc.mark_buffer",
            "\"output\" watches the switches' output buffers for cc.mechanism = \"drb\" or \"ib_s1\" (cc.enabled = true): it needs switch.output_buffer_credits > 0 and one of those mechanisms; otherwise leave it \"input\"",
        ));
    }
    Ok(())
}

// --- results

impl PortMonitor {
    /// The monitor's results: summary `monitor` (its FECN marks) and `monitor_ports.csv`.
    pub fn outputs(&self, ctx: &OutputContext, out: &mut MechanismOutputs) {
        out.fields.push((
            "monitor",
            json!({
                "fecn_marks": self.total_marks(),
                "marking_buffers": self.marks().count(),
            }),
        ));
        out.files.push(("monitor_ports.csv", self.ports_csv(ctx)));
    }

    /// `monitor_ports.csv`: FECN marks per switch input port and VL that marked.
    fn ports_csv(&self, ctx: &OutputContext) -> String {
        let mut s = String::from("switch,port,vl,fecn_marks\n");
        for (g, vl, marks) in self.marks() {
            let (switch, port) = ctx.port(g);
            let _ = writeln!(s, "{switch},{port},{vl},{marks}");
        }
        s
    }
}

/// The DRB paper's mechanisms' share of the memory estimate (drb spec A.3, A.4: DRB and
/// IBA_CC-S1): the port monitor's limit and marks per input and VL, the state per flow (with
/// the per-connection CCM timers' last notification, settling time and phase), and (at most) a sample per flow and interval for drb_paths.csv / ird.csv, with its line of text.
pub fn memory(z: &MemorySizes, est: &mut MemoryEstimate) {
    est.add(
        "DRB / IBA_CC-S1 state",
        m(m(z.ports, z.vls), 12)
            + m(z.flows, 72)
            + grown(m(m(z.intervals, z.flows), 24 + 40 + 2 * z.name_bytes)),
        Phase::Run,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::LinkClass;
    use std::path::Path;

    fn ctx<'a>(is_switch: &'a [bool], in_cap: &'a [u32], class: &'a [LinkClass]) -> CcContext<'a> {
        CcContext {
            vls: 2,
            pkt_credits: 32,
            is_switch,
            class,
            node_base: &[0, 0, 0],
            in_cap,
            n_hca: 1,
            seed: 1,
            base_dir: Path::new("."),
            multipath: None,
            given: &|_| false,
            sources_pick_lanes: false,
        }
    }

    #[test]
    fn marks_above_the_fraction_only_at_switch_inputs() {
        // gport 0: an HCA port; gports 1, 2: switch inputs with 256-credit VL buffers
        let is_switch = [false, true, true];
        let cap = [256u32; 6];
        let class = [LinkClass::Host; 3];
        let mut m = PortMonitor::new(0.8, 64, &ctx(&is_switch, &cap, &class));
        let mut used = [0u32; 6];
        let mut p = Packet {
            at: 1,
            vl: 1,
            ..Packet::default()
        };
        // 0.8 · 256 = 204.8: 204 credits is not above it, 205 is
        used[3] = 204;
        m.packet_leaves_input(&used, &mut p);
        assert_eq!(p.flags & FECN, 0);
        used[3] = 205;
        m.packet_leaves_input(&used, &mut p);
        assert_eq!(p.flags & FECN, FECN);
        // the other VL of the same port is its own buffer
        let mut q = Packet {
            at: 1,
            vl: 0,
            ..Packet::default()
        };
        m.packet_leaves_input(&used, &mut q);
        assert_eq!(q.flags & FECN, 0);
        // an HCA port is never monitored, a notification never marked
        used[0] = 256;
        let mut h = Packet::default();
        m.packet_leaves_input(&used, &mut h);
        assert_eq!(h.flags & FECN, 0);
        let mut c = Packet {
            at: 1,
            vl: 1,
            flags: CNP,
            ..Packet::default()
        };
        m.packet_leaves_input(&used, &mut c);
        assert_eq!(c.flags & FECN, 0);
        assert_eq!(m.total_marks(), 1);
        assert_eq!(m.marks().collect::<Vec<_>>(), vec![(1, 1, 1)]);
    }

    #[test]
    fn port_scope_sums_the_ports_vls_against_the_ports_total() {
        // gport 1: a switch input with two 10-credit VL buffers; 0.8 · 20 = 16
        let is_switch = [false, true, true];
        let cap = [10u32; 6];
        let class = [LinkClass::Host; 3];
        let c = ctx(&is_switch, &cap, &class);
        let mut port = PortMonitor::watching(MarkBuffer::Input, MarkScope::Port, 0.8, 64, &c);
        let mut vl = PortMonitor::watching(MarkBuffer::Input, MarkScope::Vl, 0.8, 64, &c);
        let leave = |m: &mut PortMonitor, used: &[u32]| {
            let mut p = Packet {
                at: 1,
                vl: 1,
                ..Packet::default()
            };
            m.packet_leaves_input(used, &mut p);
            p.flags & FECN != 0
        };
        // VL 1 at 9 of 10 (above 8), VL 0 empty: the VL marks, the port (9 of 20) does not
        let used = [0, 0, 0, 9, 0, 0];
        assert!(leave(&mut vl, &used));
        assert!(!leave(&mut port, &used));
        // VL 1 at 7, VL 0 at 10: 17 of 20 is above 16: the port marks, VL 1 alone does not
        let used = [0, 0, 10, 7, 0, 0];
        assert!(!leave(&mut vl, &used));
        assert!(leave(&mut port, &used));
        // exactly 16 is not above
        let used = [0, 0, 9, 7, 0, 0];
        assert!(!leave(&mut port, &used));
    }

    #[test]
    fn the_destination_answers_marked_packets_with_their_path() {
        let is_switch = [true];
        let cap = [10u32; 2];
        let class = [LinkClass::Host; 1];
        let m = PortMonitor::new(0.8, 64, &ctx(&is_switch, &cap, &class));
        let mut p = Packet {
            src: 7,
            flow: 3,
            path: 2,
            ..Packet::default()
        };
        assert!(m.notification_for(&p).is_none());
        p.flags |= FECN;
        let n = m.notification_for(&p).expect("a marked packet is answered");
        assert_eq!((n.to, n.flow, n.bytes, n.path, n.becn), (7, 3, 64, 2, true));
    }
}
