//! The source-lane-choice seam of the credit wing: who picks a data packet's VL at its source
//! HCA, and the lanes every port keeps because of it.
//!
//! [`LaneChoice::Flow`], the neutral choice, leaves each packet on its flow's VL (the traffic's
//! `vl`, or with multipath routes its path's layer) and the ports on `switch.vls` lanes. A
//! mechanism that picks the lane itself is one variant here, holding its state (copied per
//! packet, so keep it small and `Copy`), registered in [`LaneChoice::for_scenario`] and in the
//! arms of the methods below; the build (`credit/build.rs`: the lanes, their arbitration, the
//! routing check's demands, the management lane), the memory estimate and the multipath
//! routes' refusal call these methods and never name the mechanism. Today's one such mechanism
//! is DDBBM on VLs (`credit/cc/ddbbm_lanes.rs`).

use crate::config::{Scenario, VlArbitrationConfig};
use crate::credit::cc::ddbbm_lanes::VlSelect;
use crate::credit::routing::table_dependencies::Demand;
use crate::credit::switch::vl_arbitration::VlArbTable;
use crate::credit::traffic::Traffic;
use crate::error::Result;

/// Who picks a data packet's VL at its source, and how many lanes that needs (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneChoice {
    /// The flow's own VL (the traffic's, or its multipath route's layer); `switch.vls` lanes.
    Flow,
    /// DDBBM on VLs (`credit/cc/ddbbm_lanes.rs`, drb-and-ddbbm spec B.4): a message's VL is
    /// picked by its destination and its status bit; plus a management lane.
    Ddbbm(VlSelect),
}

impl LaneChoice {
    /// The lane choice of scenario `s` (the registry: one line per variant); refuses, naming
    /// the key, what a variant does not combine with.
    pub fn for_scenario(s: &Scenario) -> Result<Self> {
        if let Some(m) = VlSelect::from_scenario(s)? {
            return Ok(LaneChoice::Ddbbm(m));
        }
        Ok(LaneChoice::Flow)
    }

    /// Whether the source picks the lanes itself (any variant but [`LaneChoice::Flow`]).
    pub fn picks_lanes(self) -> bool {
        self != LaneChoice::Flow
    }

    /// Lanes every port keeps, given `data_vls` (`switch.vls`).
    pub fn lanes(self, data_vls: u32) -> usize {
        match self {
            LaneChoice::Flow => data_vls as usize,
            LaneChoice::Ddbbm(m) => m.lanes(),
        }
    }

    /// The lane the congestion management's notifications take, if the choice reserves one.
    pub fn management_lane(self) -> Option<u8> {
        match self {
            LaneChoice::Flow => None,
            LaneChoice::Ddbbm(m) => Some(m.management_vl()),
        }
    }

    /// Sets what the choice needs of the VL arbitration (`c`: `switch.vl_arbitration`) in
    /// `table`, and gives the lanes its data then uses, each with what it carries (for the
    /// refusal of a lane in neither table); None keeps the lanes the traffic and CNPs use.
    pub(crate) fn arbitrate(
        self,
        table: &mut VlArbTable,
        c: &VlArbitrationConfig,
        traffic: &Traffic,
    ) -> Result<Option<Vec<(u8, &'static str)>>> {
        match self {
            LaneChoice::Flow => Ok(None),
            LaneChoice::Ddbbm(m) => {
                m.arbitrate(table, c);
                m.used_lanes(traffic).map(Some)
            }
        }
    }

    /// The (source, destinations, VL) routes the deadlock check must cover when the choice
    /// spreads `demands` (the traffic's and the notifications') over its lanes; None keeps
    /// `demands` as they are.
    pub(crate) fn route_demands(self, demands: &[Demand<'_>]) -> Option<Vec<(u32, Vec<u32>, u8)>> {
        match self {
            LaneChoice::Flow => None,
            LaneChoice::Ddbbm(m) => Some(m.route_demands(demands)),
        }
    }

    /// The VL of a message's packets to `dst` whose congestion bit is `cbit`, when the choice
    /// picks it; None: the flow's own VL.
    #[inline(always)]
    pub fn vl_of(self, dst: u32, cbit: bool) -> Option<u8> {
        match self {
            LaneChoice::Flow => None,
            LaneChoice::Ddbbm(m) => Some(m.vl_of(dst, cbit)),
        }
    }
}

/// The lanes every port of scenario `s` keeps (`switch.vls`, plus those its lane choice adds);
/// errors as [`LaneChoice::for_scenario`].
pub fn lanes(s: &Scenario) -> Result<usize> {
    Ok(LaneChoice::for_scenario(s)?.lanes(s.switch.vls))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(extra: &str) -> Scenario {
        let text = format!(
            "[sim]\nmodel = \"credit\"\nend_time = \"1us\"\n[topology]\nkind = \"mesh\"\ndims = [2]\nhcas_per_switch = 1\n{extra}"
        );
        crate::config::parse_for_test(&text)
    }

    #[test]
    fn the_flow_choice_keeps_the_data_vls_and_the_flows_lane() {
        let s = scenario("[switch]\nvls = 3\n");
        let c = LaneChoice::for_scenario(&s).unwrap();
        assert_eq!(c, LaneChoice::Flow);
        assert!(!c.picks_lanes());
        assert_eq!(
            (c.lanes(3), c.management_lane(), c.vl_of(7, true)),
            (3, None, None)
        );
        assert_eq!(lanes(&s).unwrap(), 3);
    }

    #[test]
    fn ddbbm_on_vls_picks_the_lane_and_adds_the_management_lane() {
        let s = scenario(
            "[switch]\nqueue_mapping = \"ddbbm\"\ndbbm_queues = 4\nvls = 5\n[ddbbm]\nmapping = \"virtual_lanes\"\n",
        );
        let c = LaneChoice::for_scenario(&s).unwrap();
        assert!(c.picks_lanes());
        assert_eq!((c.lanes(5), c.management_lane()), (6, Some(5)));
        assert_eq!((c.vl_of(6, false), c.vl_of(6, true)), (Some(2), Some(4)));
        assert_eq!(lanes(&s).unwrap(), 6);
        let d = [Demand {
            src: 0,
            dsts: &[1, 2, 5],
            vl: 0,
        }];
        let r = c.route_demands(&d).unwrap();
        assert!(
            r.contains(&(0, vec![1, 5], 1)) && r.contains(&(0, vec![1, 2, 5], 4)),
            "{r:?}"
        );
        assert!(r.contains(&(5, vec![0], 5)), "{r:?}");
    }

    #[test]
    fn a_source_lane_choice_is_refused_with_multipath_routes_naming_the_key() {
        let text = "[sim]\nend_time = \"10us\"\n[topology]\nkind = \"mesh\"\ndims = [1, 2]\nhcas_per_switch = 2\n\
                    [switch]\nqueue_mapping = \"ddbbm\"\ndbbm_queues = 2\nvls = 3\n\
                    [ddbbm]\nmapping = \"virtual_lanes\"\n[drb]\nenabled = true\n";
        let l =
            crate::config::load_str(text, "t", std::path::Path::new("."), "t", &[], None).unwrap();
        let e = crate::credit::Net::new(&l).err().expect("refused");
        assert!(matches!(e, crate::error::Error::Input(_)), "{e}");
        let e = e.to_string();
        assert!(
            e.contains("ddbbm.mapping") && e.contains("drb.enabled"),
            "{e}"
        );
    }
}
