//! DRB multipath in the credit-level model (drb-and-ddbbm spec A.3.2 start-up, A.3.5 mode 1
//! "per-pair path"): the set-up of the routes at start-up (`setup`, shared by `run` and
//! `validate`) and the source's side of following them — which path a flow's next packet
//! takes and on which VL (`Net::next_vl`, `Net::take_path`). The switches' side is one
//! branch in `switch/input.rs`: a packet with `Packet::path > 0` leaves by its path's port at
//! its `Packet::hops`-th switch; path 0 follows the forwarding tables as without DRB.
//!
//! The path of a packet is chosen when the previous packet of its flow leaves (spec A.3.2
//! "for the following injection"): by the congestion management's `path_for` hook (path 0
//! without a mechanism; indices beyond the pair's paths wrap round), or round robin over the
//! pair's paths with `drb.spread = "round_robin"`. Its VL is its path's layer.

use super::multipath_routes::{self, MultipathRoutes};
use super::ForwardingTables;
use crate::config::{
    BufferSharing, CcMechanism, CountWindow, PathGranularity, PathMode, Scenario, Spread,
    ZeroCounts,
};
use crate::credit::lanes::LaneChoice;
use crate::credit::traffic::Traffic;
use crate::credit::Net;
use crate::engine::memory_budget::{MemoryEstimate, Phase};
use crate::error::{Error, Result};
use crate::topology::{Fabric, FabricSize};

/// Whether a scenario has DRB multipath routes: `drb.enabled`, or DRB as its congestion
/// management (`cc.mechanism = "drb"` implies them).
pub(crate) fn wanted(s: &Scenario) -> bool {
    s.drb.enabled || (s.cc.enabled && s.cc.mechanism == CcMechanism::Drb)
}

/// The multipath routes a scenario asks for ([`wanted`]), after refusing what they do not
/// combine with yet; None without them (then every other `drb.*` key must keep its default).
/// Drb spec A.3.2 start-up, A.3.5.
pub(crate) fn setup(
    s: &Scenario,
    fabric: &Fabric,
    lft: &ForwardingTables,
    traffic: &Traffic,
) -> Result<Option<MultipathRoutes>> {
    let d = &s.drb;
    let drb_cc = s.cc.enabled && s.cc.mechanism == CcMechanism::Drb;
    if !wanted(s) {
        for (key, set) in [
            ("drb.max_paths", d.max_paths != 4),
            ("drb.path_mode", d.path_mode != PathMode::PerPair),
            ("drb.spread", d.spread != Spread::None),
        ] {
            if set {
                return Err(Error::input(
                    key,
                    "only used with drb.enabled = true or cc.mechanism = \"drb\"",
                ));
            }
        }
    }
    if !drb_cc {
        for (key, set) in [
            ("drb.zero_counts", d.zero_counts != ZeroCounts::PlusOne),
            ("drb.counts", d.counts != CountWindow::Reset),
            ("drb.granularity", d.granularity != PathGranularity::Packet),
        ] {
            if set {
                return Err(Error::input(
                    key,
                    "only used by DRB's source agent: cc.enabled = true with cc.mechanism = \"drb\"",
                ));
            }
        }
    }
    if drb_cc && d.spread != Spread::None {
        return Err(Error::input(
            "drb.spread",
            "\"round_robin\" spreads without feedback; with cc.mechanism = \"drb\" Eq. 1 chooses the paths: leave it at \"none\"",
        ));
    }
    if !wanted(s) {
        return Ok(None);
    }
    if crate::credit::cc::sends_cnps(s) && s.cc.cnp_vl().is_some() {
        return Err(Error::input(
            "cc.cnp_vl",
            "not with DRB's multipath routes: a notification takes its reverse route's VL layer (the one the deadlock check covers); leave it unset",
        ));
    }
    if s.switch.buffer_sharing != BufferSharing::Shared {
        return Err(Error::input(
            "switch.buffer_sharing",
            "only \"shared\" with drb.enabled for now (credits kept per queue look ahead through the forwarding tables, not the packet's path)",
        ));
    }
    if LaneChoice::for_scenario(s)?.picks_lanes() {
        return Err(Error::input(
            "ddbbm.mapping",
            "\"virtual_lanes\" picks the VL, as drb.enabled does (its path's layer): use one of them",
        ));
    }
    let flow_vl = traffic.flows.iter().find(|f| f.vl != 0).map(|f| {
        let key = if f.is_static {
            "traffic.flows[].vl"
        } else {
            "traffic.generators[].vl"
        };
        (key, f.vl)
    });
    let source_vl = traffic
        .sources
        .iter()
        .find(|s| s.vl != 0)
        .map(|s| ("traffic.generators[].vl", s.vl));
    if let Some((key, vl)) = flow_vl.or(source_vl) {
        return Err(Error::input(
            key,
            format!(
                "VL {vl} given, but with drb.enabled a packet's VL is its path's layer (drb spec A.3.5): leave it at 0"
            ),
        ));
    }
    // every path needs its DLID: 2^LMC aliases per HCA must fit the unicast LID space
    let lmc = multipath_routes::lmc(d.max_paths);
    let need =
        multipath_routes::lids_needed(fabric.hcas.len() as u64, fabric.switches.len() as u64, lmc);
    if need > multipath_routes::UNICAST_LIDS {
        return Err(Error::input(
            "drb.max_paths",
            format!(
                "{} paths per pair need LMC {lmc}: {} HCAs × {} LIDs + {} switches = {need} LIDs, more than the {} unicast LIDs of a subnet; lower it",
                d.max_paths,
                fabric.hcas.len(),
                1u64 << lmc,
                fabric.switches.len(),
                multipath_routes::UNICAST_LIDS
            ),
        ));
    }
    multipath_routes::build(fabric, lft, d.max_paths, s.switch.vls, d.path_mode).map(Some)
}

/// How the flows of scenario `s` spread their packets over their multipath routes
/// (`drb.spread`), kept in the routes for [`Net::take_path`].
pub(crate) fn spread(s: &Scenario) -> Spread {
    s.drb.spread
}

/// The multipath routes' share of the memory estimate (`drb.enabled`; drb spec A.3.5,
/// `multipath_routes.rs`): a slot per (pair, path) and the paths' ports, about
/// 2·√switches + 2 switches each (a 2D mesh/torus alternative is at most a few hops longer
/// than its diameter).
pub(crate) fn memory(s: &Scenario, f: &FabricSize, est: &mut MemoryEstimate) {
    if s.drb.enabled {
        let mean_hops = 2 * (f.switches as f64).sqrt() as u64 + 2;
        est.add(
            "multipath routes",
            multipath_routes::estimated_bytes(f.hcas, s.drb.max_paths as u64, mean_hops),
            Phase::Kept,
        );
    }
}

impl Net {
    /// VL of flow `f`'s next packet: its next path's layer with DRB multipath, else `vl` (the
    /// flow's or the DDBBM lane's).
    #[inline(always)]
    pub(crate) fn next_vl(&self, f: u32, vl: u8) -> u8 {
        match &self.routes.multipath {
            None => vl,
            Some(mp) => {
                let fl = &self.traffic.flows[f as usize];
                mp.vl(fl.src, fl.dst, fl.next_path)
            }
        }
    }

    /// The path of flow `f`'s packet leaving now (the congestion management chose `cc_path`):
    /// without DRB multipath `cc_path` itself; with it the flow's next path, chosen when its
    /// previous packet left, and the one after it is chosen now.
    #[inline]
    pub(crate) fn take_path(&mut self, f: u32, cc_path: u8) -> u8 {
        let Some(mp) = &self.routes.multipath else {
            return cc_path;
        };
        let fl = &mut self.traffic.flows[f as usize];
        let n = mp.count(fl.src, fl.dst).max(1);
        let now = fl.next_path;
        fl.next_path = match self.routes.spread {
            Spread::None => cc_path % n,
            Spread::RoundRobin => (now + 1) % n,
        };
        now
    }
}
