//! DDBBM on InfiniBand with no hardware change (drb-and-ddbbm spec B.4), selected by
//! `ddbbm.mapping = "virtual_lanes"` with `switch.queue_mapping = "ddbbm"`.
//!
//! - **SL_i ↔ VL_i.** Every SLtoVL table maps SL_i to VL_i whatever the ports, so a packet keeps
//!   the VL its source gave it; here the packet's VL is set once at the source HCA and never
//!   changed (the model has no per-hop VL change).
//! - **Queues are VLs.** The switches keep one FIFO per VL (the `one_queue` scheme); DDBBM's
//!   Q DBBM queues plus one dynamic queue are VL0..VL(Q−1) and VL Q, so `switch.vls` must be at
//!   least Q + 1 and Q + 1 at most 15 (IBA's data VLs): DDBBM-17Q (#7B) is refused.
//! - **At the NIC.** A message's packets take VL `SBV[d] ? Q : d mod Q`, the status bit read at
//!   the message's first packet and kept for the whole message (spec B.3.6), as the congestion
//!   bit is with the queue mapping ([`VlSelect::vl_of`], called from `endpoint/hca.rs`).
//! - **Notifications on VL15.** IBA's VL15 is a management lane outside the data VLs that is
//!   always sent first. The model gives it one extra lane, numbered `switch.vls` (after the data
//!   VLs), with its own input buffers and credits (`switch.buffer_credits`, like a data VL: the
//!   model stays lossless, where real VL15 has no flow control and may drop) and strict
//!   priority over every data VL at every output (`VlArbTable::management`); HCAs already send
//!   control packets before data. Data never uses it, so it does not count as a data VL and
//!   `ddbbm.notification_vl` is refused in this mode.
//! - **VL arbitration.** Without `switch.vl_arbitration` tables, VL0..VLQ get equal weights
//!   of 1 (64 bytes: one packet per turn), the packet-by-packet round robin the queue mapping's
//!   outputs do among their queues (spec B.4 \[D\], B.5 "weighted round-robin, weights \[A\]
//!   equal"). The model's usual default, weight 255 on every VL, is equal too, but a turn is
//!   then 255 packets: a VL whose few-packet buffer (1 KB ÷ 5 VLs = 3 packets in #3B) empties
//!   during its turn waits 255 packets of the next VL, and the victims of the hotspot's DBBM
//!   VL come back (measured: 15 victims in #3B). A configured table must serve VL0..VLQ.
//! - **Flow control** is per VL, IB's own: option (a) of spec B.3.4.

use crate::config::{DdbbmMapping, QueueMappingKind, Scenario, VlArbitrationConfig};
use crate::credit::routing::table_dependencies::{Demand, LaneRoutes};
use crate::credit::switch::vl_arbitration::VlArbTable;
use crate::credit::traffic::Traffic;
use crate::error::{Error, Result};

/// IBA's data VLs at most (spec B.4: Q + 1 ≤ 15).
pub const MAX_DATA_VLS: u32 = 15;

/// The B.4 mapping of a network: Q and the data VLs (spec B.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VlSelect {
    /// Q, the DBBM queues (`switch.dbbm_queues`); VL Q is the dynamic queue.
    pub queues: u8,
    /// `switch.vls`: data VLs; the management lane is the next one.
    pub data_vls: u8,
}

impl VlSelect {
    /// The mapping of scenario `s`, None unless `ddbbm.mapping = "virtual_lanes"`; refuses,
    /// naming the key, a mapping without `switch.queue_mapping = "ddbbm"`, Q + 1 above 15 or
    /// above `switch.vls`, and `ddbbm.notification_vl` (notifications take the management lane).
    pub fn from_scenario(s: &Scenario) -> Result<Option<Self>> {
        if s.ddbbm.mapping != DdbbmMapping::VirtualLanes {
            return Ok(None);
        }
        if s.switch.queue_mapping != QueueMappingKind::Ddbbm {
            return Err(Error::input(
                "ddbbm.mapping",
                format!(
                    "\"virtual_lanes\" maps DDBBM's queues onto VLs, so it needs switch.queue_mapping = \"ddbbm\", not \"{}\"; allowed with \"{}\": \"queues\" (default)",
                    s.switch.queue_mapping.name(),
                    s.switch.queue_mapping.name()
                ),
            ));
        }
        // a missing or zero Q is the queue scheme's own error (switch.dbbm_queues), checked first
        let q = s.switch.dbbm_queues.unwrap_or(1).max(1);
        if q + 1 > MAX_DATA_VLS {
            return Err(Error::input(
                "switch.dbbm_queues",
                format!(
                    "{q} DBBM queues + 1 dynamic need {} VLs, but InfiniBand has at most {MAX_DATA_VLS} data VLs (drb-and-ddbbm spec B.4: Q + 1 ≤ 15, so DDBBM-17Q is not realisable); with ddbbm.mapping = \"virtual_lanes\" allowed: Q 1–{}, or ddbbm.mapping = \"queues\"",
                    q + 1,
                    MAX_DATA_VLS - 1
                ),
            ));
        }
        if s.switch.vls < q + 1 {
            return Err(Error::input(
                "switch.vls",
                format!(
                    "{} data VLs, but ddbbm.mapping = \"virtual_lanes\" with switch.dbbm_queues = {q} puts its Q + 1 queues on VL0–VL{q}; allowed: {}–{MAX_DATA_VLS}",
                    s.switch.vls,
                    q + 1
                ),
            ));
        }
        if s.ddbbm.notification_vl.is_some() {
            return Err(Error::input(
                "ddbbm.notification_vl",
                "with ddbbm.mapping = \"virtual_lanes\" notifications travel on the management lane (IBA's VL15, after the data VLs, strict priority); remove the key",
            ));
        }
        Ok(Some(VlSelect {
            queues: q as u8,
            data_vls: s.switch.vls as u8,
        }))
    }

    /// Lanes every port keeps: the data VLs and the management lane.
    pub fn lanes(self) -> usize {
        self.data_vls as usize + 1
    }

    /// The management lane (IBA's VL15): numbered after the data VLs.
    pub fn management_vl(self) -> u8 {
        self.data_vls
    }

    /// Sets the VL arbitration of DDBBM on VLs: the management lane, and, when
    /// `switch.vl_arbitration` (`c`) gives no table, [`VlSelect::default_arbitration`].
    pub(crate) fn arbitrate(self, table: &mut VlArbTable, c: &VlArbitrationConfig) {
        table.management = Some(self.management_vl());
        if c.high.is_empty() && c.low.is_empty() {
            table.low = self.default_arbitration();
        }
    }

    /// The lanes DDBBM's queues carry (VL0–VLQ, each with what it carries); refused when the
    /// traffic gives a VL of its own (the source picks every packet's VL).
    pub(crate) fn used_lanes(self, traffic: &Traffic) -> Result<Vec<(u8, &'static str)>> {
        if let Some(src) = traffic.sources.iter().find(|src| src.vl != 0) {
            return Err(Error::input(
                "traffic.generators[].vl",
                format!(
                    "VL {} given to traffic, but with ddbbm.mapping = \"virtual_lanes\" the source HCA picks every packet's VL (spec B.4: SBV[d] ? Q : d mod Q); allowed: 0 (the default) on every generator and flow",
                    src.vl
                ),
            ));
        }
        Ok((0..=self.queues)
            .map(|v| {
                (
                    v,
                    "DDBBM's queues (ddbbm.mapping = \"virtual_lanes\": VL0–VLQ)",
                )
            })
            .collect())
    }

    /// The routes the deadlock check covers for `demands` (the traffic's and the CNPs'):
    /// a source reaches destination d on VL d mod Q or, while d is congested, on VL Q; the
    /// notifications come back on the management lane. Each is (source, destinations, VL, every
    /// LID offset).
    pub(crate) fn route_demands(self, demands: &[Demand<'_>]) -> LaneRoutes {
        let q = self.queues as u32;
        let mut on_lanes: LaneRoutes = Vec::new();
        let mut back: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
        for d in demands {
            for v in 0..q {
                let dsts: Vec<u32> = d.dsts.iter().copied().filter(|x| x % q == v).collect();
                if !dsts.is_empty() {
                    on_lanes.push((d.src, dsts, v as u8, None));
                }
            }
            on_lanes.push((d.src, d.dsts.to_vec(), self.queues, None));
            for &dst in d.dsts {
                back.entry(dst).or_default().push(d.src);
            }
        }
        for (dst, srcs) in back {
            on_lanes.push((dst, srcs, self.management_vl(), None));
        }
        on_lanes
    }

    /// The default low-priority VL arbitration table: VL0..VLQ, weight 1 each (see the module
    /// documentation).
    pub fn default_arbitration(self) -> Vec<(u8, u32)> {
        (0..=self.queues).map(|v| (v, 1)).collect()
    }

    /// The VL of a message's packets to `dst` when its status bit is `cbit` (spec B.4):
    /// VL Q (the dynamic queue) if set, else `dst mod Q`.
    #[inline(always)]
    pub fn vl_of(self, dst: u32, cbit: bool) -> u8 {
        if cbit {
            self.queues
        } else {
            (dst % self.queues as u32) as u8
        }
    }
}

/// The lanes every port of scenario `s` keeps: `switch.vls`, plus the management lane with
/// `ddbbm.mapping = "virtual_lanes"` (spec B.4). Errors as [`VlSelect::from_scenario`].
pub fn lanes(s: &Scenario) -> Result<usize> {
    Ok(VlSelect::from_scenario(s)?
        .map(VlSelect::lanes)
        .unwrap_or(s.switch.vls as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(extra: &str) -> Scenario {
        let text =
            format!("[sim]\nmodel = \"credit\"\nend_time = \"1us\"\n[topology]\nkind = \"mesh\"\ndims = [2]\nhcas_per_switch = 1\n[switch]\nqueue_mapping = \"ddbbm\"\n{extra}");
        crate::config::parse_for_test(&text)
    }

    fn err(extra: &str, ddbbm: &str) -> String {
        let mut s = scenario(extra);
        let d: crate::config::DdbbmConfig = toml::from_str(ddbbm).unwrap();
        s.ddbbm = d;
        VlSelect::from_scenario(&s).unwrap_err().to_string()
    }

    #[test]
    fn sbv_picks_the_dynamic_vl_else_destination_mod_q() {
        let m = VlSelect {
            queues: 4,
            data_vls: 5,
        };
        assert_eq!(
            (0..9).map(|d| m.vl_of(d, false)).collect::<Vec<_>>(),
            [0, 1, 2, 3, 0, 1, 2, 3, 0]
        );
        assert_eq!(m.vl_of(30, true), 4);
        assert_eq!((m.lanes(), m.management_vl()), (6, 5));
    }

    #[test]
    fn queues_mapping_keeps_the_data_vls() {
        let s = scenario("dbbm_queues = 4\nvls = 2\n");
        assert_eq!(VlSelect::from_scenario(&s).unwrap(), None);
        assert_eq!(lanes(&s).unwrap(), 2);
    }

    #[test]
    fn virtual_lanes_add_the_management_lane() {
        let mut s = scenario("dbbm_queues = 4\nvls = 5\n");
        s.ddbbm.mapping = DdbbmMapping::VirtualLanes;
        let m = VlSelect::from_scenario(&s).unwrap().unwrap();
        assert_eq!((m.queues, m.data_vls), (4, 5));
        assert_eq!(lanes(&s).unwrap(), 6);
    }

    #[test]
    fn refusals_name_their_key() {
        let vl = "mapping = \"virtual_lanes\"\n";
        let e = err("dbbm_queues = 16\nvls = 15\n", vl);
        assert!(e.contains("switch.dbbm_queues") && e.contains("15"), "{e}");
        let e = err("dbbm_queues = 4\nvls = 4\n", vl);
        assert!(e.contains("switch.vls") && e.contains("5–15"), "{e}");
        let e = err(
            "dbbm_queues = 4\nvls = 5\n",
            "mapping = \"virtual_lanes\"\nnotification_vl = 4\n",
        );
        assert!(e.contains("ddbbm.notification_vl"), "{e}");
        let mut s = scenario("");
        s.switch.queue_mapping = QueueMappingKind::Dbbm;
        s.ddbbm.mapping = DdbbmMapping::VirtualLanes;
        let e = VlSelect::from_scenario(&s).unwrap_err().to_string();
        assert!(e.contains("ddbbm.mapping") && e.contains("\"dbbm\""), "{e}");
        // Q + 1 = 15 is the largest that fits
        let mut s = scenario("dbbm_queues = 14\nvls = 15\n");
        s.ddbbm.mapping = DdbbmMapping::VirtualLanes;
        assert_eq!(lanes(&s).unwrap(), 16);
    }
}
