//! Congestion control as hooks, not forks (architecture "seams"; spec §2).
//!
//! The network calls four hooks: [`CongestionControl::on_output_send`] when a switch output
//! starts sending a packet (where IB CC sets FECN, spec §2.2.5),
//! [`CongestionControl::on_buffer_change`] when a virtual output queue's fill changes (spec
//! §2.2.3), [`CongestionControl::on_receive`] when a destination HCA consumes a packet (FECN →
//! CNP, spec §2.3.1), and [`CongestionControl::flow_ready_at`] /
//! [`CongestionControl::on_flow_send`] when a source HCA picks the next packet (the injection
//! rate delay, spec §2.3.3). With congestion control off every hook does nothing.

use crate::config::{CcConfig, Ps};
use crate::error::{Error, Result};
use crate::traffic::packet::Packet;

/// A congestion notification the destination asks the network to send back to a source.
#[derive(Debug, Clone, Copy)]
pub struct Notification {
    /// HCA that must receive the CNP.
    pub to: u32,
    /// Flow the notification is about.
    pub flow: u32,
}

/// The congestion-control model of a run.
#[derive(Debug, Clone)]
pub enum CongestionControl {
    /// No congestion control (spec: "CC disabled" runs).
    Off,
}

impl CongestionControl {
    /// Builds the model from `[cc]`.
    pub fn from_config(c: &CcConfig) -> Result<Self> {
        if c.enabled {
            return Err(Error::input(
                "cc.enabled",
                "InfiniBand congestion control is not implemented in this version; allowed: false",
            ));
        }
        Ok(CongestionControl::Off)
    }

    /// Switch output `gport` is about to send `pkt` on `vl` (FECN marking point).
    #[inline]
    pub fn on_output_send(&mut self, _gport: u32, _vl: u8, _pkt: &mut Packet, _now: Ps) {}

    /// The occupancy of the queue of input `in_gport` towards local output `out_port`, VL `vl`,
    /// changed to `credits`.
    #[inline]
    pub fn on_buffer_change(
        &mut self,
        _in_gport: u32,
        _out_port: u16,
        _vl: u8,
        _credits: u32,
        _now: Ps,
    ) {
    }

    /// A destination HCA consumed `pkt`; may ask for a CNP to be sent back.
    #[inline]
    pub fn on_receive(&mut self, _pkt: &Packet, _now: Ps) -> Option<Notification> {
        None
    }

    /// Earliest time flow `flow` may send its next packet.
    #[inline]
    pub fn flow_ready_at(&self, _flow: u32) -> Ps {
        0
    }

    /// Flow `flow` sent a packet of `bytes` whose serialisation took `ser_ps`.
    #[inline]
    pub fn on_flow_send(&mut self, _flow: u32, _bytes: u32, _ser_ps: Ps, _now: Ps) {}

    /// True if any hook does work (used to skip bookkeeping when off).
    #[inline]
    pub fn active(&self) -> bool {
        !matches!(self, CongestionControl::Off)
    }
}
