//! The link-level flow-control seam of the cycle-level wing: whether an output may start a
//! packet on a VC now, and what the downstream input does when its buffer fills and drains.
//! Two implementations (`router.flow_control`): credit-based flow control (Dragonfly spec
//! §2.1: virtual cut-through, a hop starts only when the downstream VC has room for the whole
//! packet; the default) and 802.1Qbb priority flow control ([`super::pfc`], spec §2.3).
//! Under credits every hook is the credit code it replaced plus, in the link stage, one AND
//! with the port's paused mask (always 0 under credits): no branch on the variant per VC.
//!
//! | hook | called from | credits ([`FlowControl::Credits`]) | pause (802.1Qbb PFC, [`FlowControl::Pfc`]) |
//! |---|---|---|---|
//! | [`may_send`] | `link.rs`, the link stage, per output VC | the VC's credits cover the packet | always (credits stay full); the VC must not be paused: `PortState::paused`, applied by the link stage to every variant |
//! | [`paused`] | routing (MAR-bP, spec §3.11) | the spec's emulation: the VC's credits do not cover a packet | the output VC holds a received PAUSE |
//! | [`sent`] | `link.rs`, a packet leaves on a router-to-router link | the VC's credits drop by the packet | — (credits stay full) |
//! | [`input_filled`] | `link.rs`, a head joins a router input VC (its occupancy after) | — (the credits were taken upstream) | reaching XOFF: a PAUSE frame upstream (`CycleNet::pfc_frame`) |
//! | [`input_drained`] | `allocator.rs`, a grant frees the packet's input space (at `release`) | the credits travel back (`Ev::Credit`, one link latency later) | at most XON while paused: the check at `release` (`Ev::PfcDrained`), then a resume frame |
//! | [`credits_returned`] | `run_loop.rs`, an `Ev::Credit` reaches the output | the VC's credits rise | (its event is `Ev::Pause`: the VC's pause state, `CycleNet::on_pause`) |
//!
//! The terminals' injection links keep their own credits (`terminal.rs`) under both.
//!
//! ## To add a flow control
//! Add a variant with its state, its arm in each hook, its events (`mod.rs`, `calendar.rs`,
//! handled in `run_loop.rs`), its end-of-run check (`conservation.rs`), outputs (`results.rs`)
//! and memory share (`memory_estimate.rs`), and build it in `build.rs` from its keys
//! (`params.rs`); PFC ([`super::pfc`]) is the example.
//!
//! [`may_send`]: FlowControl::may_send
//! [`paused`]: FlowControl::paused
//! [`sent`]: FlowControl::sent
//! [`input_filled`]: FlowControl::input_filled
//! [`input_drained`]: FlowControl::input_drained
//! [`credits_returned`]: FlowControl::credits_returned

use super::calendar::Calendar;
use super::pfc::Pfc;
use super::{Ev, PortKind, PortState, VcOut};

/// The link-level flow control of a cycle-level network.
#[derive(Debug, Clone)]
pub(crate) enum FlowControl {
    /// Credit-based: an output VC counts the free phits of the downstream input VC.
    Credits,
    /// 802.1Qbb priority flow control: PAUSE and resume frames per VC ([`super::pfc`]).
    Pfc(Box<Pfc>),
    /// Tests: every router-to-router link paused for good (nothing may cross), counting the
    /// input-buffer observations it receives.
    #[cfg(test)]
    Halted {
        /// Heads that joined a router input (`input_filled`) …
        filled: u64,
        /// … and packets that left one (`input_drained`).
        drained: u64,
    },
}

impl FlowControl {
    /// The PFC state, under PFC.
    pub fn pfc(&self) -> Option<&Pfc> {
        match self {
            FlowControl::Pfc(p) => Some(p),
            _ => None,
        }
    }

    /// The PFC state, under PFC (its frames change it).
    pub fn pfc_mut(&mut self) -> Option<&mut Pfc> {
        match self {
            FlowControl::Pfc(p) => Some(p),
            _ => None,
        }
    }

    /// May the output VC `o` start a packet of `l` phits on its router-to-router link now, as
    /// far as its credits go? (A VC holding a received PAUSE, `PortState::paused`, may not
    /// either: the link stage masks those out under every variant.)
    #[inline(always)]
    pub fn may_send(&self, o: &VcOut, l: u32) -> bool {
        match self {
            // (PFC keeps every output's credits full: the same code)
            FlowControl::Credits | FlowControl::Pfc(_) => o.credits >= l,
            #[cfg(test)]
            FlowControl::Halted { .. } => false,
        }
    }

    /// Is the output VC `v` of port `port` (its output side `o`) paused for a packet of `l`
    /// phits — the signal MAR-bP's conditional minimal rules read (Dragonfly spec §3.11)? Under
    /// credits this is the spec's emulation (§2.3: the downstream VC cannot take a whole
    /// packet); under PFC, the VC holds a received PAUSE.
    #[inline(always)]
    pub fn paused(&self, port: &PortState, v: u32, o: &VcOut, l: u32) -> bool {
        match self {
            FlowControl::Credits => o.credits < l,
            FlowControl::Pfc(_) => port.paused >> v & 1 == 1,
            #[cfg(test)]
            FlowControl::Halted { .. } => true,
        }
    }

    /// The output VC `o` started a packet of `l` phits on its router-to-router link.
    #[inline(always)]
    pub fn sent(&self, o: &mut VcOut, l: u32) {
        match self {
            FlowControl::Credits => o.credits -= l,
            FlowControl::Pfc(_) => {}
            #[cfg(test)]
            FlowControl::Halted { .. } => unreachable!("a halted link sent"),
        }
    }

    /// A packet's head joined router input `gp` (a port of kind `kind`), VC `vc`, which now
    /// holds `used` phits; true when a PAUSE frame must go upstream now
    /// (`CycleNet::pfc_frame`).
    #[inline(always)]
    pub fn input_filled(&mut self, gp: u32, vc: u32, used: u32, kind: PortKind) -> bool {
        match self {
            FlowControl::Credits => false,
            FlowControl::Pfc(p) => p.filled(gp, vc, used, kind),
            #[cfg(test)]
            FlowControl::Halted { filled, .. } => {
                *filled += 1;
                false
            }
        }
    }

    /// A packet left a router input VC (granted through the crossbar): `d` says which, what it
    /// holds now and when its space is free.
    #[inline(always)]
    pub fn input_drained(&mut self, cal: &mut Calendar, d: Drained) {
        match self {
            FlowControl::Credits => {
                cal.push(d.release + d.latency, Ev::Credit { gp: d.up, vc: d.vc })
            }
            FlowControl::Pfc(p) => p.drained(cal, d.gi, d.vc, d.used, d.kind, d.release),
            #[cfg(test)]
            FlowControl::Halted { drained, .. } => *drained += 1,
        }
    }

    /// The credits for one packet of `l` phits reached the output VC `o`.
    #[inline(always)]
    pub fn credits_returned(&self, o: &mut VcOut, l: u32) {
        match self {
            FlowControl::Credits => o.credits += l,
            FlowControl::Pfc(_) => unreachable!("credits returned under PFC"),
            #[cfg(test)]
            FlowControl::Halted { .. } => {}
        }
    }
}

/// A packet granted out of a router input VC ([`FlowControl::input_drained`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Drained {
    /// The input port, its kind, the VC and the phits the VC holds after the packet left.
    pub gi: u32,
    pub kind: PortKind,
    pub vc: u8,
    pub used: u32,
    /// The upstream output (the far end of the input's link) and the link's latency.
    pub up: u32,
    pub latency: u64,
    /// When the packet's space is free (its tail is in and the crossbar moved it).
    pub release: u64,
}

#[cfg(test)]
mod tests {
    use super::FlowControl;
    use crate::config::load_str;
    use crate::cycle::{CycleNet, PortKind};

    /// The link stage asks the flow control whether an output may send, and the inputs tell
    /// it when they fill and drain: with every link halted no packet crosses a router-to-router
    /// link and every output keeps all its credits, while credit-based flow control carries
    /// packets across.
    #[test]
    fn the_flow_control_decides_whether_an_output_may_send() {
        let text = "[sim]\nmodel = \"cycle\"\nwarmup_cycles = 0\nmeasure_cycles = 600\n\
                    [topology]\nkind = \"dragonfly\"\np = 2\n[routing]\nalgorithm = \"min\"\n\
                    [traffic]\npattern = \"uniform\"\nload = 0.3\n";
        let l = load_str(text, "t", std::path::Path::new("."), "t", &[], None).unwrap();
        let mut credits = CycleNet::new(&l).unwrap();
        credits.run(false, &mut || false).unwrap();
        let mut halted = CycleNet::new(&l).unwrap();
        halted.fc = FlowControl::Halted {
            filled: 0,
            drained: 0,
        };
        halted.run(false, &mut || false).unwrap();
        let FlowControl::Halted { filled, drained } = halted.fc.clone() else {
            unreachable!()
        };
        // heads reach the routers' injection inputs (`input_filled`), none a router-to-router
        // input (`input_drained` is its departure)
        assert!(filled > 0);
        assert_eq!(drained, 0);
        // (hops are counted per phit sent: router links and ejections)
        assert!(halted.stats.phit_hops * 3 < credits.stats.phit_hops);
        for (g, p) in halted.port.iter().enumerate() {
            if matches!(p.kind, PortKind::Local | PortKind::Global) {
                assert_eq!(p.in_count, 0, "a packet crossed into port {g}");
                for v in 0..p.nvc as usize {
                    let o = &halted.vout[g * halted.k.vcs as usize + v];
                    assert_eq!(o.credits, halted.credit_cap(g as u32), "port {g} VC {v}");
                }
            }
        }
    }
}
