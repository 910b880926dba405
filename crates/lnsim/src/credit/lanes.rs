//! The source-lane-choice seam of the credit wing: who picks a data packet's VL at its source
//! HCA, and the lanes every port keeps because of it.
//!
//! [`LaneChoice::Flow`], the neutral choice, leaves each packet on its flow's VL (the traffic's
//! `vl`, or with multipath routes its path's layer) and the ports on `switch.vls` lanes. A
//! mechanism that picks the lane itself is one variant here, holding its state (copied per
//! packet, so keep it small and `Copy`), registered in [`LaneChoice::for_scenario`] and in the
//! arms of the methods below; the build (`credit/build.rs`: the lanes, their arbitration, the
//! routing check's demands, the management lane), the memory estimate and the multipath
//! routes' refusal call these methods and never name the mechanism. Today's mechanisms are
//! DDBBM on VLs (`credit/cc/ddbbm_lanes.rs`) and the routing engine's SL per (source,
//! destination) pair (OpenSM's `dfsssp`: `credit/routing/path_sl.rs`), which is known from the
//! scenario but whose table exists once the routes are built ([`LaneChoice::for_routes`]).

use crate::config::{OpensmEngine, RoutingConfig, Scenario, VlArbitrationConfig};
use crate::credit::cc::ddbbm_lanes::VlSelect;
use crate::credit::routing::path_sl::PathSl;
use crate::credit::routing::table_dependencies::{Demand, LaneRoutes};
use crate::credit::switch::vl_arbitration::VlArbTable;
use crate::credit::traffic::Traffic;
use crate::error::{Error, Result};
use std::sync::Arc;

/// Who picks a data packet's VL at its source, and how many lanes that needs (module docs).
/// Read per packet by reference (`&self`): no variant allocates or copies a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LaneChoice {
    /// The flow's own VL (the traffic's, or its multipath route's layer); `switch.vls` lanes.
    Flow,
    /// DDBBM on VLs (`credit/cc/ddbbm_lanes.rs`, drb-and-ddbbm spec B.4): a message's VL is
    /// picked by its destination and its status bit; plus a management lane.
    Ddbbm(VlSelect),
    /// The routing engine's SL of each (source, destination) pair, SL→VL 1:1 (OpenSM's
    /// `dfsssp`: the pair's deadlock-free layer); `switch.vls` lanes. The table is shared with
    /// the net that owns it (empty in the choice [`LaneChoice::for_scenario`] gives, before the
    /// routes exist). A congestion notification takes the SL of its own pair (destination →
    /// source), which is in the layering as every pair is.
    PathSl(Arc<PathSl>),
}

impl LaneChoice {
    /// The lane choice of scenario `s` before its routes are built (the registry: one line per
    /// variant); refuses, naming the keys, what a variant does not combine with. The routing's
    /// SLs are then an empty table: enough for the lanes and the refusals.
    pub fn for_scenario(s: &Scenario) -> Result<Self> {
        Self::for_routes(s, None)
    }

    /// The lane choice of scenario `s` whose routing assigned `path_sl` (None: it assigns no
    /// SLs, or the routes are not built yet); refusals as [`LaneChoice::for_scenario`].
    pub fn for_routes(s: &Scenario, path_sl: Option<&Arc<PathSl>>) -> Result<Self> {
        let ddbbm = VlSelect::from_scenario(s)?;
        if let Some(engine) = sl_engine(s) {
            refuse_with_path_sls(s, engine, ddbbm.is_some())?;
            let table = path_sl
                .cloned()
                .unwrap_or_else(|| Arc::new(PathSl::new(0, 0, 0)));
            return Ok(LaneChoice::PathSl(table));
        }
        if let Some(m) = ddbbm {
            return Ok(LaneChoice::Ddbbm(m));
        }
        Ok(LaneChoice::Flow)
    }

    /// Whether the source picks the lanes itself (any variant but [`LaneChoice::Flow`]).
    pub fn picks_lanes(&self) -> bool {
        *self != LaneChoice::Flow
    }

    /// Lanes every port keeps, given `data_vls` (`switch.vls`).
    pub fn lanes(&self, data_vls: u32) -> usize {
        match self {
            LaneChoice::Flow | LaneChoice::PathSl(_) => data_vls as usize,
            LaneChoice::Ddbbm(m) => m.lanes(),
        }
    }

    /// The lane the congestion management's notifications take, if the choice reserves one.
    pub fn management_lane(&self) -> Option<u8> {
        match self {
            LaneChoice::Flow | LaneChoice::PathSl(_) => None,
            LaneChoice::Ddbbm(m) => Some(m.management_vl()),
        }
    }

    /// The routing's SL table, when the choice is the routing's SLs.
    pub fn path_sl(&self) -> Option<&PathSl> {
        match self {
            LaneChoice::PathSl(t) => Some(t),
            _ => None,
        }
    }

    /// The VL of a notification from HCA `from` back to HCA `to` that names none, when the
    /// choice picks it (the SL of the pair `from → to`'s base LID, the LID a notification is
    /// addressed to); None: the flow's VL.
    #[inline]
    pub fn notification_vl(&self, from: u32, to: u32) -> Option<u8> {
        match self {
            LaneChoice::PathSl(t) => Some(t.of_hcas(from, to, 0)),
            _ => None,
        }
    }

    /// Sets what the choice needs of the VL arbitration (`c`: `switch.vl_arbitration`) in
    /// `table`, and gives the lanes its data then uses, each with what it carries (for the
    /// refusal of a lane in neither table); None keeps the lanes the traffic and CNPs use.
    pub(crate) fn arbitrate(
        &self,
        table: &mut VlArbTable,
        c: &VlArbitrationConfig,
        traffic: &Traffic,
    ) -> Result<Option<Vec<(u8, &'static str)>>> {
        match self {
            LaneChoice::Flow => Ok(None),
            LaneChoice::PathSl(t) => Ok(Some(
                (0..t.sls() as u8)
                    .map(|v| (v, "the routing's SLs (routing.engine = \"dfsssp\")"))
                    .collect(),
            )),
            LaneChoice::Ddbbm(m) => {
                m.arbitrate(table, c);
                m.used_lanes(traffic).map(Some)
            }
        }
    }

    /// The (source, destinations, VL) routes the deadlock check must cover when the choice
    /// spreads `demands` (the traffic's and the notifications') over its lanes, with `returns`
    /// the notifications' routes back from each destination to its source as well; None keeps
    /// `demands` as they are. The second value: whether the check must still add the routes
    /// back on the data's VL itself (false when the choice has put them in the demands).
    pub(crate) fn route_demands(
        &self,
        demands: &[Demand<'_>],
        returns: bool,
    ) -> (Option<LaneRoutes>, bool) {
        match self {
            LaneChoice::Flow => (None, returns),
            LaneChoice::Ddbbm(m) => (Some(m.route_demands(demands)), returns),
            LaneChoice::PathSl(t) => {
                // per LID offset of the destinations (each LID its own SL); the check keeps
                // the offsets the sources use (`routing.lmc_path`)
                let mut by: std::collections::BTreeMap<(u32, u8, u8), Vec<u32>> =
                    Default::default();
                for d in demands {
                    for &dst in d.dsts {
                        if dst == d.src {
                            continue;
                        }
                        for k in t.offsets() {
                            by.entry((d.src, t.of_hcas(d.src, dst, k), k))
                                .or_default()
                                .push(dst);
                        }
                        // notifications go to the source's base LID
                        if returns {
                            by.entry((dst, t.of_hcas(dst, d.src, 0), 0))
                                .or_default()
                                .push(d.src);
                        }
                    }
                }
                let out = by
                    .into_iter()
                    .map(|((src, vl, k), mut dsts)| {
                        dsts.sort_unstable();
                        dsts.dedup();
                        (src, dsts, vl, Some(k))
                    })
                    .collect();
                (Some(out), false)
            }
        }
    }

    /// The VL of a message's packets from HCA `src` to `dst`'s LID of offset `offset` (its LMC
    /// range; 0 with LMC 0) whose congestion bit is `cbit`, when the choice picks it; None: the
    /// flow's own VL.
    #[inline(always)]
    pub fn vl_of(&self, src: u32, dst: u32, offset: u8, cbit: bool) -> Option<u8> {
        match self {
            LaneChoice::Flow => None,
            LaneChoice::Ddbbm(m) => Some(m.vl_of(dst, cbit)),
            LaneChoice::PathSl(t) => Some(t.of_hcas(src, dst, offset)),
        }
    }
}

/// The routing engine of scenario `s` that assigns an SL per pair, by name (OpenSM's `dfsssp`).
fn sl_engine(s: &Scenario) -> Option<&'static str> {
    match &s.routing {
        RoutingConfig::Opensm(k) if k.engine == OpensmEngine::Dfsssp => Some(k.engine.name()),
        _ => None,
    }
}

/// What cannot combine with the routing's SLs, refused naming both keys: another source lane
/// choice (`ddbbm` on VLs), per-packet path choice over multipath routes (each path its own
/// layer), a flow's own VL, and a fixed VL for the notifications.
fn refuse_with_path_sls(s: &Scenario, engine: &str, other_choice: bool) -> Result<()> {
    let both = |key: &str, why: &str| {
        Err(Error::input(
            key,
            format!("not with routing.engine = \"{engine}\", which puts each (source, destination) pair on the VL of its deadlock-free layer: {why}"),
        ))
    };
    if other_choice {
        return both(
            "ddbbm.mapping",
            "\"virtual_lanes\" picks the VL by the DDBBM status as well; use \"queues\" (default) or another engine",
        );
    }
    if crate::credit::cc::chooses_paths(s) {
        return both(
            "drb.enabled",
            "multipath routes put each path on a layer of their own; leave drb.enabled (and cc.mechanism = \"drb\") off, or choose another engine",
        );
    }
    if crate::credit::cc::sends_cnps(s) && s.cc.cnp_vl().is_some() {
        return both(
            "cc.cnp_vl",
            "a notification takes the SL of its own pair (destination → source), which the layering keeps deadlock-free; leave cc.cnp_vl unset",
        );
    }
    for (i, f) in s.traffic.flows.iter().enumerate() {
        if f.vl != 0 {
            return both(
                &format!("traffic.flows[{i}].vl"),
                "the routing sets every packet's VL; leave vl unset",
            );
        }
    }
    for (i, g) in s.traffic.generators.iter().enumerate() {
        if g.vl != 0 {
            return both(
                &format!("traffic.generators[{i}].vl"),
                "the routing sets every packet's VL; leave vl unset",
            );
        }
    }
    Ok(())
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
            (c.lanes(3), c.management_lane(), c.vl_of(0, 7, 0, true)),
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
        assert_eq!(
            (c.vl_of(0, 6, 0, false), c.vl_of(0, 6, 0, true)),
            (Some(2), Some(4))
        );
        assert_eq!(lanes(&s).unwrap(), 6);
        let d = [Demand {
            src: 0,
            dsts: &[1, 2, 5],
            vl: 0,
            offset: None,
        }];
        let r = c.route_demands(&d, false).0.unwrap();
        assert!(
            r.contains(&(0, vec![1, 5], 1, None)) && r.contains(&(0, vec![1, 2, 5], 4, None)),
            "{r:?}"
        );
        assert!(r.contains(&(5, vec![0], 5, None)), "{r:?}");
    }

    #[test]
    fn the_routings_sls_pick_each_pairs_lane_for_data_notifications_and_the_check() {
        let s =
            scenario("[switch]\nvls = 3\n[routing]\nalgorithm = \"opensm\"\nengine = \"dfsssp\"\n");
        // HCAs 0 and 1: the pair 0 → 1 on SL 2, 1 → 0 on SL 1
        let mut t = PathSl::new(2, 3, 0);
        t.set(0, 2, 2);
        t.set(1, 1, 1);
        t.set_pairs_per_sl(vec![0, 1, 1]);
        let c = LaneChoice::for_routes(&s, Some(&Arc::new(t))).unwrap();
        assert!(c.picks_lanes());
        assert_eq!((c.lanes(3), c.management_lane()), (3, None));
        assert_eq!(
            (c.vl_of(0, 1, 0, false), c.vl_of(1, 0, 0, true)),
            (Some(2), Some(1))
        );
        assert_eq!(c.notification_vl(1, 0), Some(1));
        assert_eq!(c.path_sl().unwrap().pairs_per_sl(), &[0, 1, 1]);
        let d = [Demand {
            src: 0,
            dsts: &[1],
            vl: 0,
            offset: None,
        }];
        // the routes back (notifications) on the reverse pair's SL, checked as demands
        let (r, returns) = c.route_demands(&d, true);
        assert_eq!(
            r.unwrap(),
            vec![(0, vec![1], 2, Some(0)), (1, vec![0], 1, Some(0))]
        );
        assert!(!returns);
        assert_eq!(
            c.route_demands(&d, false).0.unwrap(),
            vec![(0, vec![1], 2, Some(0))]
        );
        // before the routes exist: the same choice, lanes and refusals
        let early = LaneChoice::for_scenario(&s).unwrap();
        assert!(early.picks_lanes() && early.lanes(3) == 3);
        assert_eq!(lanes(&s).unwrap(), 3);
    }

    #[test]
    fn with_an_lmc_each_destination_lid_takes_its_own_sl_and_the_check_sees_each_offset() {
        let s =
            scenario("[switch]\nvls = 3\n[routing]\nalgorithm = \"opensm\"\nengine = \"dfsssp\"\n");
        // LMC 1, HCAs 0 and 1: HCA 0 answers LIDs 2-3, HCA 1 LIDs 4-5
        let mut t = PathSl::new(2, 6, 1);
        t.set(0, 4, 1);
        t.set(0, 5, 2);
        t.set(1, 3, 1);
        t.set_pairs_per_sl(vec![1, 2, 1]);
        let c = LaneChoice::for_routes(&s, Some(&Arc::new(t))).unwrap();
        assert_eq!(
            (c.vl_of(0, 1, 0, false), c.vl_of(0, 1, 1, false)),
            (Some(1), Some(2))
        );
        // a notification goes to the base LID (2), whose SL is 0, not the second LID's 1
        assert_eq!(c.notification_vl(1, 0), Some(0));
        let d = [Demand {
            src: 0,
            dsts: &[1],
            vl: 0,
            offset: None,
        }];
        let (r, _) = c.route_demands(&d, true);
        assert_eq!(
            r.unwrap(),
            vec![
                (0, vec![1], 1, Some(0)),
                (0, vec![1], 2, Some(1)),
                (1, vec![0], 0, Some(0))
            ]
        );
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
