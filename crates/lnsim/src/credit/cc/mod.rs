//! Congestion control as hooks, not forks (architecture "seams"; spec §2).
//!
//! The network calls these `Net` methods, each a no-op when congestion control is off:
//! - [`Net::cc_fill_changed`] (`ib_switch.rs`): the fill of a switch input's queue towards an
//!   output changed (packet head arrived, tail left) — spec §2.2.3;
//! - [`Net::cc_evaluate`] (`ib_switch.rs`): an output's credits changed (credit update, grant);
//! - [`Net::cc_mark`] (`ib_switch.rs`): a switch output starts sending a packet — FECN, §2.2.5;
//! - [`Net::cc_receive`] (`ib_ca.rs`): a destination HCA consumed a packet — FECN → CNP, BECN →
//!   CCTI, §2.3.1–2.3.2;
//! - [`Net::cc_ready_at`] / [`Net::cc_sent`] (`ib_ca.rs`): the source HCA's injection-rate
//!   delay per flow, §2.3.3.
//!
//! [`Net::cc_fill_changed`]: crate::credit::Net
//! [`Net::cc_evaluate`]: crate::credit::Net
//! [`Net::cc_mark`]: crate::credit::Net
//! [`Net::cc_receive`]: crate::credit::Net
//! [`Net::cc_ready_at`]: crate::credit::Net
//! [`Net::cc_sent`]: crate::credit::Net

pub mod cct;
pub mod ib_ca;
pub mod ib_switch;

use crate::config::CcConfig;
use crate::error::Result;
use crate::topology::LinkClass;
use std::path::Path;

/// A congestion notification the destination asks the network to send back to a source.
#[derive(Debug, Clone, Copy)]
pub struct Notification {
    /// HCA that must receive the CNP.
    pub to: u32,
    /// Flow the notification is about.
    pub flow: u32,
}

/// InfiniBand congestion control: switch and channel-adapter state.
#[derive(Debug, Clone)]
pub struct IbCc {
    /// Switch side (marking).
    pub sw: ib_switch::SwitchCc,
    /// Channel-adapter side (reaction).
    pub ca: ib_ca::CaCc,
}

/// The congestion-control model of a run.
#[derive(Debug, Clone)]
pub enum CongestionControl {
    /// No congestion control (spec: "CC disabled" runs).
    Off,
    /// InfiniBand CC (spec §2).
    Ib(Box<IbCc>),
}

/// What the builder knows about the network that congestion control needs.
pub struct CcContext<'a> {
    /// Data VLs.
    pub vls: usize,
    /// Credits of a standard packet.
    pub pkt_credits: u32,
    /// Per gport: a switch port.
    pub is_switch: &'a [bool],
    /// Per gport: its link class.
    pub class: &'a [LinkClass],
    /// Number of HCAs.
    pub n_hca: usize,
    /// Master seed.
    pub seed: u64,
    /// Folder of the scenario (for `cc.cct.file`).
    pub base_dir: &'a Path,
}

impl CongestionControl {
    /// Builds the model from `[cc]`; every key is checked even when CC is off.
    pub fn from_config(c: &CcConfig, ctx: &CcContext) -> Result<Self> {
        let table = cct::CongestionControlTable::from_config(
            &c.cct,
            c.ccti_limit as usize + 1,
            ctx.base_dir,
        )?;
        let sw = ib_switch::SwitchCc::new(
            c,
            ctx.vls,
            ctx.pkt_credits,
            ctx.is_switch,
            ctx.class,
            ctx.seed,
        )?;
        let ca = ib_ca::CaCc::new(c, ctx.vls, ctx.n_hca, table)?;
        if !c.enabled {
            return Ok(CongestionControl::Off);
        }
        Ok(CongestionControl::Ib(Box::new(IbCc { sw, ca })))
    }

    /// True if congestion control does anything.
    #[inline]
    pub fn active(&self) -> bool {
        !matches!(self, CongestionControl::Off)
    }
}
