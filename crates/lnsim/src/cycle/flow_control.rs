//! The link-level flow-control seam of the cycle-level wing: whether an output may start a
//! packet on a VC now, and what the downstream input does when its buffer fills and drains.
//! Today's credit-based flow control (Dragonfly spec §2.1: virtual cut-through, a hop starts
//! only when the downstream VC has room for the whole packet) is its one implementation;
//! the enum has one variant, so every `match` compiles to the credit code it replaced.
//!
//! | hook | called from | credits ([`FlowControl::Credits`]) | pause (802.1Qbb PFC, spec §2.3) |
//! |---|---|---|---|
//! | [`may_send`] | `link.rs`, the link stage, per output VC | the VC's credits cover the packet | the VC (priority) is not paused |
//! | [`sent`] | `link.rs`, a packet leaves on a router-to-router link | the VC's credits drop by the packet | — |
//! | [`input_filled`] | `link.rs`, a head joins a router input VC (its occupancy after) | — (the credits were taken upstream) | above XOFF: a PAUSE frame upstream, after the link latency |
//! | [`input_drained`] | `allocator.rs`, a grant frees the packet's input space (at `release`, one link latency from upstream) | the credits travel back (`Ev::Credit`) | below XON: a resume frame upstream |
//! | [`credits_returned`] | `run_loop.rs`, an `Ev::Credit` reaches the output | the VC's credits rise | (its PAUSE/resume event: the VC's pause state) |
//!
//! The terminals' injection links keep their own credits (`terminal.rs`).
//!
//! ## To add a flow control (PFC)
//! Add a variant with its state (per output VC: paused until; per input VC: XOFF sent), its
//! arm in each hook, its event (`Ev::Pause { gp, vc, on }` in `mod.rs`, handled in
//! `run_loop.rs` like `Ev::Credit`), and build it in `build.rs` from its keys: this file,
//! `mod.rs`, `run_loop.rs` and `build.rs`.
//!
//! [`may_send`]: FlowControl::may_send
//! [`sent`]: FlowControl::sent
//! [`input_filled`]: FlowControl::input_filled
//! [`input_drained`]: FlowControl::input_drained
//! [`credits_returned`]: FlowControl::credits_returned

use super::calendar::Calendar;
use super::{Ev, VcOut};

/// The link-level flow control of a cycle-level network.
#[derive(Debug, Clone, Copy)]
pub(crate) enum FlowControl {
    /// Credit-based: an output VC counts the free phits of the downstream input VC.
    Credits,
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
    /// May the output VC `o` start a packet of `l` phits on its router-to-router link now?
    #[inline(always)]
    pub fn may_send(&self, o: &VcOut, l: u32) -> bool {
        match self {
            FlowControl::Credits => o.credits >= l,
            #[cfg(test)]
            FlowControl::Halted { .. } => false,
        }
    }

    /// Is the output VC `o` paused for a packet of `l` phits — the signal MAR-bP's conditional
    /// minimal rules read (Dragonfly spec §3.11)? Under credits this is the spec's emulation
    /// (§2.3: the downstream VC cannot take a whole packet).
    #[allow(dead_code)] // (MAR-bP reads it)
    #[inline(always)]
    pub fn paused(&self, o: &VcOut, l: u32) -> bool {
        match self {
            FlowControl::Credits => o.credits < l,
            #[cfg(test)]
            FlowControl::Halted { .. } => true,
        }
    }

    /// The output VC `o` started a packet of `l` phits on its router-to-router link.
    #[inline(always)]
    pub fn sent(&self, o: &mut VcOut, l: u32) {
        match self {
            FlowControl::Credits => o.credits -= l,
            #[cfg(test)]
            FlowControl::Halted { .. } => unreachable!("a halted link sent"),
        }
    }

    /// A packet's head joined router input `gp`, VC `vc`, which now holds `used` of its `cap`
    /// phits.
    #[inline(always)]
    pub fn input_filled(&mut self, gp: u32, vc: u32, used: u32, cap: u32) {
        match self {
            FlowControl::Credits => {}
            #[cfg(test)]
            FlowControl::Halted { filled, .. } => *filled += 1,
        }
        let _ = (gp, vc, used, cap);
    }

    /// A packet left a router input VC `vc` (granted through the crossbar) whose upstream end
    /// is output `up`; cycle `at` is when that output can learn it (its space free, plus the
    /// link latency).
    #[inline(always)]
    pub fn input_drained(&mut self, cal: &mut Calendar, up: u32, vc: u8, at: u64) {
        match self {
            FlowControl::Credits => cal.push(at, Ev::Credit { gp: up, vc }),
            #[cfg(test)]
            FlowControl::Halted { drained, .. } => *drained += 1,
        }
    }

    /// The credits for one packet of `l` phits reached the output VC `o`.
    #[inline(always)]
    pub fn credits_returned(&self, o: &mut VcOut, l: u32) {
        match self {
            FlowControl::Credits => o.credits += l,
            #[cfg(test)]
            FlowControl::Halted { .. } => {}
        }
    }
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
        let FlowControl::Halted { filled, drained } = halted.fc else {
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
