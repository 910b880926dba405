//! Link-level flow control: how the credits a receiving buffer frees travel back to the sender
//! of the link (IB CC spec §3.4). `links.flow_control = "ideal"` (the default) returns a
//! packet's credits one link delay after its space is freed, using no bandwidth.
//! `"packets"` sends them in flow-control packets on the reverse link: a packet of
//! `links.flow_control_bytes` (IBA: 4 bytes and a 2-byte CRC) per VL (per credit counter),
//! placed on the wire after the data packet being sent, so it delays the data behind it; at
//! most one per counter every `links.flow_control_interval` (the model family's `credMinTime`,
//! spec §3.4 \[X\]); credits freed while one waits ride on it.

use crate::config::{FlowControl, LinksConfig, Ps};
use crate::credit::kind::{holds, SwitchKind};
use crate::credit::{Ev, Net};

/// The state of flow-control packets (`links.flow_control = "packets"`), per credit counter of
/// every output (indexed like `Net::credits`, by `Net::credit_slot` of the *sending* side).
#[derive(Debug, Clone)]
pub struct FlowControlPackets {
    /// Bytes of one flow-control packet on the wire.
    bytes: u64,
    /// Least time between two flow-control packets of one counter.
    interval: Ps,
    /// Per counter: its state (one record, so that a packet's credit return touches one
    /// cache line).
    slots: Vec<FcSlot>,
    /// Flow-control packets sent.
    pub sent: u64,
}

/// The flow-control state of one credit counter.
#[derive(Debug, Clone, Copy)]
struct FcSlot {
    /// When the last flow-control packet of this counter left ([`NEVER`]: never).
    last_sent: Ps,
    /// Credits freed and not yet sent back.
    pending: u32,
    /// A flow-control packet of this counter is scheduled.
    scheduled: bool,
}

/// [`FcSlot::last_sent`] of a counter that has sent no flow-control packet yet.
const NEVER: Ps = Ps::MAX;

impl FlowControlPackets {
    /// The flow-control packets of `[links]`, or `None` for ideal credit return; `slots` is the
    /// number of credit counters of all outputs.
    pub fn from_config(c: &LinksConfig, slots: usize) -> Option<Self> {
        match c.flow_control {
            FlowControl::Ideal => None,
            FlowControl::Packets => Some(FlowControlPackets {
                bytes: c.flow_control_bytes.0,
                interval: c.flow_control_interval.0,
                slots: vec![
                    FcSlot {
                        last_sent: NEVER,
                        pending: 0,
                        scheduled: false,
                    };
                    slots
                ],
                sent: 0,
            }),
        }
    }

    /// Prefetch hint for the state of credit slot `slot`.
    #[inline(always)]
    pub fn prefetch(&self, slot: usize) {
        crate::credit::prefetch::prefetch(&self.slots, slot);
    }

    /// Credits freed and not yet sent, per slot (conservation check).
    pub fn pending(&self) -> impl Iterator<Item = u32> + '_ {
        self.slots.iter().map(|s| s.pending)
    }
}

impl Net {
    /// Receiving port `g` freed `credits` of counter `counter`: they go back to the sender of
    /// the link, ideally or in a flow-control packet.
    #[inline(always)]
    pub(crate) fn return_credits<K: SwitchKind>(
        &mut self,
        g: u32,
        counter: u16,
        credits: u32,
        now: Ps,
    ) {
        if holds(K::FLOW_CONTROL_PACKETS, self.links.flow_control.is_some()) {
            return self.queue_flow_control(g, counter, credits, now);
        }
        let up = self.links.peer[g as usize];
        let delay = self.links.timing[g as usize].delay;
        if K::DEFER_CREDITS {
            // an output busy past the credits' arrival reads them first when it frees: kept
            // aside until then (`output_ready`), no event. At a tie with its readiness the
            // event stays: the readiness, scheduled first, comes first.
            let u = up as usize;
            if self.links.out_busy[u] && self.links.ready_at[u] > now + delay {
                let slot = self.credit_slot_k::<K>(up, counter);
                self.links.credits_due[slot] += credits;
                return;
            }
        }
        self.at(
            now + delay,
            Ev::CreditArrive {
                gport: up,
                counter,
                credits,
            },
        );
    }

    /// `links.flow_control = "packets"`: the credits wait for the next flow-control packet of
    /// their counter, which is scheduled unless one is already (kept out of line: the ideal
    /// return above is the hot path of every run without the option).
    #[inline(never)]
    fn queue_flow_control(&mut self, g: u32, counter: u16, credits: u32, now: Ps) {
        let slot = self.upstream_credit_slot(g, counter);
        let fc = self
            .links
            .flow_control
            .as_mut()
            .expect("flow-control packets");
        let interval = fc.interval;
        let st = &mut fc.slots[slot];
        st.pending += credits;
        if !st.scheduled {
            st.scheduled = true;
            let at = if st.last_sent == NEVER {
                now
            } else {
                now.max(st.last_sent + interval)
            };
            self.at(at, Ev::FlowControlSend { gport: g, counter });
        }
    }

    /// The flow-control packet of counter `counter` leaves receiving port `g` (towards the
    /// sender of the link) as soon as the wire is free, with every credit freed so far.
    #[inline(never)]
    pub(crate) fn flow_control_send(&mut self, g: u32, counter: u16, now: Ps) {
        let up = self.links.peer[g as usize];
        let slot = self.credit_slot(up, counter);
        let tm = self.links.timing[g as usize];
        let fc = self
            .links
            .flow_control
            .as_mut()
            .expect("flow-control packets");
        let bytes = fc.bytes;
        let st = &mut fc.slots[slot];
        let credits = std::mem::take(&mut st.pending);
        st.scheduled = false;
        let start = now.max(self.links.wire_free[g as usize]);
        let end = start + tm.rate.ser_ps(bytes);
        self.links.wire_free[g as usize] = end;
        st.last_sent = start;
        fc.sent += 1;
        self.at(
            end + tm.delay,
            Ev::CreditArrive {
                gport: up,
                counter,
                credits,
            },
        );
    }
}
