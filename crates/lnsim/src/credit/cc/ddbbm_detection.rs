//! DDBBM's congestion management (drb-and-ddbbm spec B.3): each end node detects that it is a
//! congested destination, notifies the sources sending to it, and those sources set the
//! congestion bit in the packets of their next messages to it, which every switch maps to the
//! dynamic queue (`switch/buffer/ddbbm.rs`). Nothing is throttled (spec B.3.1).
//!
//! - **Detection** (spec B.3.2, the adopted version): per end node, per frame of TF, the bytes
//!   received (ORB) and the bytes from each source (SRB). At the end of a frame the node is
//!   congested (CB = 1) when ORB > DT · R_max · TF *and* the number of sources whose SRB
//!   exceeds the Source Injection Threshold compares with NS as configured (`>` by default);
//!   it stops being congested when ORB < LT · R_max · TF (hysteresis). SIT's base is the
//!   frame's ORB (`SIT/N · ORB`, the primary reading) or R_max · TF; SIT = 0 makes every
//!   source that sent in the frame heavy. All nodes' frames are aligned (one timer).
//! - **Notification** (spec B.3.3): when CB rises, every source with SRB > 0 in the frame gets a
//!   start notification and its NBV bit; while CB = 1 a source not yet notified gets one on its
//!   first packet; when CB falls, exactly the sources with NBV set get an end notification. A
//!   notification is a control packet (`CNP` flag; `BECN` set = start, clear = end) of
//!   `ddbbm.notification_bytes` on `ddbbm.notification_vl`.
//! - **Status bits** (spec B.3.4): each source keeps one bit per destination (SBV), set by a start
//!   and cleared by an end notification (an explicit flag rather than a toggle: the same in a
//!   lossless in-order network, and robust). A flow reads it at each message's first packet and
//!   keeps it for the whole message (spec B.3.6), so a flow changes queues only between
//!   messages.
//!
//! State is flat: `srb` is `N × N` bytes counters (destination-major), the bit vectors are
//! `N × N` bits; the sources seen in a frame and the sources notified are per-node lists, so a
//! frame's evaluation costs what the frame received, not N².

use super::{r6, secs, MechanismOutputs, OutputContext};
use super::{MemorySizes, Notification};
use crate::config::{
    CcMechanism, DdbbmConfig, FlowControl, NsCompare, Ps, QueueMappingKind, Scenario, SitBase,
    PS_PER_S,
};
use crate::credit::packet::{Packet, BECN};
use crate::credit::traffic::Traffic;
use crate::engine::memory_budget::{grown, m, MemoryEstimate, Phase};
use crate::error::{Error, Result};
use crate::topology::Fabric;
use serde_json::{json, Value};
use std::fmt::Write as _;

/// One change of a node's congestion bit (for `ddbbm.csv`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CbChange {
    /// When the frame that decided it ended.
    pub t: Ps,
    /// The end node (HCA index).
    pub node: u32,
    /// New value of CB.
    pub congested: bool,
    /// Bytes received in that frame (ORB).
    pub orb: u64,
    /// Heavy sources counted in that frame.
    pub heavy: u32,
}

/// The DDBBM detector of every end node and the status bits of every source.
#[derive(Debug, Clone)]
pub struct Ddbbm {
    n: usize,
    frame: Ps,
    /// Per node: DT · R_max · TF and LT · R_max · TF, in bytes.
    dt_bytes: Vec<f64>,
    lt_bytes: Vec<f64>,
    /// Per node: SIT/N · R_max · TF (used with `sit_base = "capacity"`).
    sit_capacity_bytes: Vec<f64>,
    sit_over_n: f64,
    sit_base: SitBase,
    ns: u32,
    ns_compare: NsCompare,
    notification_bytes: u32,
    notification_vl: Option<u8>,
    /// Per node: ORB of the current frame.
    orb: Vec<u64>,
    /// `[dst * n + src]`: SRB of the current frame.
    srb: Vec<u64>,
    /// Per node: (source, flow) pairs with SRB > 0 in the current frame.
    seen: Vec<Vec<(u32, u32)>>,
    /// Per node: CB.
    cb: Vec<bool>,
    /// `[dst * n + src]` bits: NBV.
    nbv: Vec<u64>,
    /// Per node: (source, flow) pairs with NBV set.
    notified: Vec<Vec<(u32, u32)>>,
    /// `[src * n + dst]` bits: SBV.
    sbv: Vec<u64>,
    /// Notifications decided at a frame's end, waiting to be queued by the network
    /// (`(sending node, notification)`).
    pending: Vec<(u32, Notification)>,
    /// Start and end notifications sent.
    pub starts: u64,
    /// End notifications sent.
    pub ends: u64,
    /// Notifications received by sources.
    pub received: u64,
    /// Per node: frames that ended with CB = 1.
    pub congested_frames: Vec<u64>,
    /// Frames evaluated per node.
    pub frames: u64,
    /// Every change of a congestion bit, in time order.
    pub changes: Vec<CbChange>,
}

#[inline]
fn bit(v: &[u64], i: usize) -> bool {
    v[i >> 6] >> (i & 63) & 1 != 0
}
#[inline]
fn set_bit(v: &mut [u64], i: usize, on: bool) {
    if on {
        v[i >> 6] |= 1 << (i & 63);
    } else {
        v[i >> 6] &= !(1 << (i & 63));
    }
}

/// Bytes the DDBBM state takes for `n` end nodes (checked against memory before building).
pub fn state_bytes(n: usize) -> u64 {
    let n = n as u64;
    n * n * 8 + 2 * n * n.div_ceil(64) * 8 + n * 64
}

impl Ddbbm {
    /// True when scenario `s` runs DDBBM's detection: its own selection, `cc.mechanism =
    /// "ddbbm"` with `cc.enabled = true`, or the switches' DDBBM queue scheme
    /// (`switch.queue_mapping = "ddbbm"`, which switches it on as well: the shipped scenarios'
    /// form).
    pub fn selected(s: &Scenario) -> bool {
        (s.cc.enabled && s.cc.mechanism == CcMechanism::Ddbbm)
            || s.switch.queue_mapping == QueueMappingKind::Ddbbm
    }

    /// The detection of scenario `s` when it runs it ([`Ddbbm::selected`]; None otherwise),
    /// over the end nodes of `fabric` with `traffic`'s offered sending; refused with InfiniBand
    /// CC on.
    pub(crate) fn for_scenario(
        s: &Scenario,
        fabric: &Fabric,
        traffic: &Traffic,
        vls: usize,
    ) -> Result<Option<Self>> {
        if !Self::selected(s) {
            return Ok(None);
        }
        if s.cc.enabled && s.cc.mechanism != CcMechanism::Ddbbm {
            return Err(Error::input(
                "cc.enabled",
                "InfiniBand CC and DDBBM (switch.queue_mapping = \"ddbbm\") cannot run together yet; \
                 turn one off",
            ));
        }
        if s.switch.queue_mapping != QueueMappingKind::Ddbbm {
            return Err(Error::input(
                "cc.mechanism",
                format!(
                    "\"ddbbm\" sends the packets to congested destinations to the switches' DDBBM dynamic queue, so it needs switch.queue_mapping = \"ddbbm\" (with switch.dbbm_queues), not \"{}\"; allowed with \"{}\": cc.mechanism = \"ib\", \"ib_s1\" or \"drb\"",
                    s.switch.queue_mapping.name(),
                    s.switch.queue_mapping.name()
                ),
            ));
        }
        Self::from_config(&s.ddbbm, &Self::r_max(s, fabric, traffic), vls).map(Some)
    }

    /// R_max per end node: `ddbbm.r_max`, or the most its link can bring in — the link's data
    /// rate less the flow-control packets that the node's own offered sending puts on that
    /// link (one per data packet it sends: drb-and-ddbbm spec B.3.2 warning 1).
    fn r_max(s: &Scenario, fabric: &Fabric, traffic: &Traffic) -> Vec<f64> {
        let fc = match s.links.flow_control {
            FlowControl::Packets => s.links.flow_control_bytes.0 as f64,
            _ => 0.0,
        };
        let pkt = s.traffic.packet_bytes.0 as f64;
        let sending = traffic.offered_sending();
        fabric
            .hcas
            .iter()
            .enumerate()
            .map(|(i, &h)| match s.ddbbm.r_max {
                Some(r) => r.0 as f64,
                None => {
                    let rate = fabric.nodes[h as usize].ports[0].link.rate.bits_per_s();
                    rate * (1.0 - sending[i].min(1.0) * fc / pkt)
                }
            })
            .collect()
    }
}

impl Ddbbm {
    /// Builds the detector of `r_max.len()` end nodes; `r_max[d]` is what node `d` can receive,
    /// in bits per second (`ddbbm.r_max`, or its link's data rate less flow-control packets).
    pub fn from_config(c: &DdbbmConfig, r_max: &[f64], vls: usize) -> Result<Self> {
        let n = r_max.len();
        if c.frame.0 == 0 {
            return Err(Error::input("ddbbm.frame", "must be longer than 0"));
        }
        if !(c.dt > 0.0 && c.dt <= 1.0) {
            return Err(Error::input(
                "ddbbm.dt",
                format!("{} must be in (0, 1]", c.dt),
            ));
        }
        if !(c.lt >= 0.0 && c.lt <= c.dt) {
            return Err(Error::input(
                "ddbbm.lt",
                format!("{} must be in [0, ddbbm.dt = {}]", c.lt, c.dt),
            ));
        }
        if !(c.sit >= 0.0 && c.sit.is_finite()) {
            return Err(Error::input("ddbbm.sit", format!("{} must be ≥ 0", c.sit)));
        }
        if let Some(v) = c.notification_vl {
            if v as usize >= vls {
                return Err(Error::input(
                    "ddbbm.notification_vl",
                    format!("VL {v}, but switch.vls = {vls} (VLs 0–{})", vls - 1),
                ));
            }
        }
        let tf_s = c.frame.0 as f64 / PS_PER_S as f64;
        let per_frame: Vec<f64> = r_max.iter().map(|&r| r / 8.0 * tf_s).collect();
        let words = (n * n).div_ceil(64);
        Ok(Ddbbm {
            n,
            frame: c.frame.0,
            dt_bytes: per_frame.iter().map(|b| b * c.dt).collect(),
            lt_bytes: per_frame.iter().map(|b| b * c.lt).collect(),
            sit_capacity_bytes: per_frame.iter().map(|b| b * c.sit / n as f64).collect(),
            sit_over_n: c.sit / n as f64,
            sit_base: c.sit_base,
            ns: c.ns,
            ns_compare: c.ns_compare,
            notification_bytes: c.notification_bytes.0 as u32,
            notification_vl: c.notification_vl.map(|v| v as u8),
            orb: vec![0; n],
            srb: vec![0; n * n],
            seen: vec![Vec::new(); n],
            cb: vec![false; n],
            nbv: vec![0; words],
            notified: vec![Vec::new(); n],
            sbv: vec![0; words],
            pending: Vec::new(),
            starts: 0,
            ends: 0,
            received: 0,
            congested_frames: vec![0; n],
            frames: 0,
            changes: Vec::new(),
        })
    }

    /// Notifications take lane `vl` (the management lane of spec B.4, numbered after the data
    /// VLs; see `ddbbm_lanes.rs`).
    pub fn use_management_lane(&mut self, vl: u8) {
        self.notification_vl = Some(vl);
    }

    /// TF: the network ends a frame every `frame()` ([`Ddbbm::frame_ended`]).
    pub fn frame(&self) -> Ps {
        self.frame
    }

    fn notification(&self, to: u32, flow: u32, start: bool) -> Notification {
        Notification {
            to,
            flow,
            bytes: self.notification_bytes,
            vl: Some(self.notification_vl.unwrap_or(0)),
            becn: start,
            path: 0,
        }
    }

    /// Destination `d` received data packet `p`: the frame's counters grow; a congested node
    /// notifies a source it has not notified yet (spec B.3.3).
    #[inline]
    pub fn packet_received(&mut self, d: u32, p: &Packet) -> Option<Notification> {
        let (di, s) = (d as usize, p.src as usize);
        self.orb[di] += p.bytes as u64;
        let k = di * self.n + s;
        if self.srb[k] == 0 {
            self.seen[di].push((p.src, p.flow));
        }
        self.srb[k] += p.bytes as u64;
        if self.cb[di] && !bit(&self.nbv, k) {
            set_bit(&mut self.nbv, k, true);
            self.notified[di].push((p.src, p.flow));
            self.starts += 1;
            return Some(self.notification(p.src, p.flow, true));
        }
        None
    }

    /// A frame ended at `now` at every node: evaluate (spec B.3.2) and queue the notifications
    /// of every change (taken with [`Ddbbm::take_pending`]).
    pub fn frame_ended(&mut self, now: Ps) {
        self.frames += 1;
        for d in 0..self.n {
            let orb = self.orb[d];
            let sit = match self.sit_base {
                SitBase::Received => self.sit_over_n * orb as f64,
                SitBase::Capacity => self.sit_capacity_bytes[d],
            };
            let row = d * self.n;
            let heavy = self.seen[d]
                .iter()
                .filter(|&&(s, _)| self.srb[row + s as usize] as f64 > sit)
                .count() as u32;
            let enough = match self.ns_compare {
                NsCompare::Greater => heavy > self.ns,
                NsCompare::AtLeast => heavy >= self.ns,
            };
            if orb as f64 > self.dt_bytes[d] && enough {
                if !self.cb[d] {
                    self.cb[d] = true;
                    self.changes.push(CbChange {
                        t: now,
                        node: d as u32,
                        congested: true,
                        orb,
                        heavy,
                    });
                    for i in 0..self.seen[d].len() {
                        let (s, f) = self.seen[d][i];
                        let k = row + s as usize;
                        if !bit(&self.nbv, k) {
                            set_bit(&mut self.nbv, k, true);
                            self.notified[d].push((s, f));
                            self.starts += 1;
                            let n = self.notification(s, f, true);
                            self.pending.push((d as u32, n));
                        }
                    }
                }
            } else if (orb as f64) < self.lt_bytes[d] && self.cb[d] {
                self.cb[d] = false;
                self.changes.push(CbChange {
                    t: now,
                    node: d as u32,
                    congested: false,
                    orb,
                    heavy,
                });
                let list = std::mem::take(&mut self.notified[d]);
                for &(s, f) in &list {
                    set_bit(&mut self.nbv, row + s as usize, false);
                    self.ends += 1;
                    let n = self.notification(s, f, false);
                    self.pending.push((d as u32, n));
                }
                self.notified[d] = list;
                self.notified[d].clear();
            }
            if self.cb[d] {
                self.congested_frames[d] += 1;
            }
            for i in 0..self.seen[d].len() {
                let s = self.seen[d][i].0 as usize;
                self.srb[row + s] = 0;
            }
            self.seen[d].clear();
            self.orb[d] = 0;
        }
    }

    /// The notifications decided at the last frame's end, as `(sending node, notification)`.
    pub fn take_pending(&mut self) -> std::vec::Drain<'_, (u32, Notification)> {
        self.pending.drain(..)
    }

    /// Source `h` received notification `p` from destination `p.src` (spec B.3.4).
    #[inline]
    pub fn notification_received(&mut self, h: u32, p: &Packet) {
        self.received += 1;
        let k = h as usize * self.n + p.src as usize;
        set_bit(&mut self.sbv, k, p.flags & BECN != 0);
    }

    /// The status bit source `src` keeps for destination `dst`: the congestion bit of the
    /// packets of a message that starts now.
    #[inline]
    pub fn congestion_bit(&self, src: u32, dst: u32) -> bool {
        bit(&self.sbv, src as usize * self.n + dst as usize)
    }

    /// CB of node `d` now.
    pub fn congested(&self, d: u32) -> bool {
        self.cb[d as usize]
    }
}

// --- results

impl Ddbbm {
    /// DDBBM's results: summary `ddbbm` and `ddbbm.csv`.
    pub fn outputs(&self, ctx: &OutputContext, out: &mut MechanismOutputs) {
        out.fields.push(("ddbbm", self.summary(ctx)));
        out.files.push(("ddbbm.csv", self.changes_csv(ctx)));
    }

    /// DDBBM's detection (drb-and-ddbbm spec B.3, C.1 statistics): notifications, and the
    /// nodes that declared themselves congested — a *false positive* is one that is not a
    /// hotspot of any generator (spec B.3.1, R-B4).
    fn summary(&self, ctx: &OutputContext) -> Value {
        let hot = ctx.traffic.hot_destinations();
        let frame_s = secs(self.frame());
        let mut congested = Vec::new();
        let mut false_positives = 0;
        for (i, &frames) in self.congested_frames.iter().enumerate() {
            let first = self
                .changes
                .iter()
                .find(|c| c.node as usize == i && c.congested);
            if let Some(first) = first {
                let is_hot = hot.binary_search(&(i as u32)).is_ok();
                if !is_hot {
                    false_positives += 1;
                }
                congested.push(json!({
                    "node": ctx.names[i],
                    "hot": is_hot,
                    "first_s": secs(first.t),
                    "congested_s": r6(frames as f64 * frame_s),
                }));
            }
        }
        json!({
            "frames": self.frames,
            "frame_s": frame_s,
            "notifications_start": self.starts,
            "notifications_end": self.ends,
            "notifications_received": self.received,
            "congested_nodes": congested.len(),
            "false_positives": false_positives,
            "nodes": congested,
        })
    }

    /// `ddbbm.csv`: every change of an end node's congestion bit (spec B.3.2), with the
    /// frame's received bytes (ORB) and heavy sources that decided it.
    fn changes_csv(&self, ctx: &OutputContext) -> String {
        let mut s = String::from("t_s,node,congested,orb_bytes,heavy_sources\n");
        for c in &self.changes {
            let _ = writeln!(
                s,
                "{},{},{},{},{}",
                secs(c.t),
                ctx.names[c.node as usize],
                c.congested as u8,
                c.orb,
                c.heavy
            );
        }
        s
    }
}

impl Ddbbm {
    /// DDBBM's share of the memory estimate (drb-and-ddbbm spec B.3): per end node its
    /// thresholds, ORB, CB and frame count; the SRB of every (destination, source) pair and the
    /// NBV and SBV bit matrices; the (source, flow) lists of SRB > 0 and NBV (at most one entry
    /// per flow each); and the CB changes, at most one per node and frame of the run.
    pub fn memory(s: &Scenario, z: &MemorySizes, est: &mut MemoryEstimate) {
        let n = z.hcas;
        let per_node = m(n, 3 * 8 + 8 + 1 + 8 + 2 * 24);
        let pairs = m(m(n, n), 8) + 2 * m(m(n, n.div_ceil(64)), 8);
        let lists = m(z.flows.min(m(n, n)), 2 * 8);
        let frames = s.sim.end_ps() / s.ddbbm.frame.0.max(1) + 1;
        let changes = m(m(frames, n), std::mem::size_of::<CbChange>() as u64);
        est.add("DDBBM detection", per_node + pairs + lists, Phase::Kept);
        est.add("DDBBM congestion-bit changes", grown(changes), Phase::Run);
    }

    /// DDBBM's detection in one line (the set-up report).
    pub fn describe() -> String {
        "ddbbm (destination detection per frame, notifications to the sources; packets to congested destinations take the switches' dynamic queue)".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::credit::packet::CNP;

    /// 4 nodes, R_max 8 Gbit/s (1 B/ns), TF 1 µs: DT 0.95 → 950 B, LT 0.2 → 200 B.
    fn det(extra: &str) -> Ddbbm {
        let c: DdbbmConfig = toml::from_str(&format!("frame = \"1us\"\n{extra}")).unwrap();
        Ddbbm::from_config(&c, &[8e9; 4], 2).unwrap()
    }
    fn pkt(src: u32, bytes: u32) -> Packet {
        Packet {
            src,
            dst: 0,
            flow: 10 + src,
            bytes,
            ..Packet::default()
        }
    }
    fn recv(d: &mut Ddbbm, src: u32, bytes: u32) -> Option<Notification> {
        d.packet_received(0, &pkt(src, bytes))
    }

    #[test]
    fn a_busy_frame_from_two_heavy_sources_starts_congestion_and_notifies_each_once() {
        let mut d = det("");
        // SIT = 6, N = 4: heavy means > 1.5 × ORB — nobody can be; use SIT 1 (> ORB/4)
        let mut d1 = det("sit = 1.0");
        for _ in 0..8 {
            assert!(recv(&mut d1, 1, 64).is_none());
            assert!(recv(&mut d1, 2, 64).is_none());
        }
        recv(&mut d1, 3, 64); // 17 packets: 1088 B > 950; sources 1, 2 heavy (512 > 272), 3 not
        d1.frame_ended(1_000_000);
        assert!(d1.congested(0));
        let p: Vec<_> = d1.take_pending().collect();
        // every source seen in the frame is notified (spec B.3.3), heavy or not
        assert_eq!(p.len(), 3);
        assert!(p
            .iter()
            .all(|(from, n)| *from == 0 && n.becn && n.bytes == 64));
        assert_eq!(d1.starts, 3);
        // a new source while congested gets a start notification once
        assert!(recv(&mut d1, 3, 64).is_none()); // already notified
        d.cb[0] = true;
        assert!(recv(&mut d, 2, 64).is_some());
        assert!(recv(&mut d, 2, 64).is_none());
    }

    #[test]
    fn one_heavy_source_is_not_enough_with_ns_one_unless_at_least() {
        for (cmp, want) in [("greater", false), ("at_least", true)] {
            let mut d = det(&format!("sit = 1.0\nns_compare = \"{cmp}\""));
            for _ in 0..16 {
                recv(&mut d, 1, 64); // 1024 B, all from source 1
            }
            d.frame_ended(1_000_000);
            assert_eq!(d.congested(0), want, "{cmp}");
        }
    }

    #[test]
    fn sit_zero_counts_every_source_and_dt_is_strict() {
        let mut d = det("sit = 0.0");
        for s in 1..4 {
            for _ in 0..5 {
                recv(&mut d, s, 64); // 960 B > 950
            }
        }
        d.frame_ended(1_000_000);
        assert!(d.congested(0));
        let mut d = det("sit = 0.0\ndt = 0.96"); // 960 B is not > 960
        for s in 1..4 {
            for _ in 0..5 {
                recv(&mut d, s, 64);
            }
        }
        d.frame_ended(1_000_000);
        assert!(!d.congested(0));
    }

    #[test]
    fn congestion_ends_below_lt_with_end_notifications_to_exactly_the_notified() {
        let mut d = det("sit = 0.0");
        for s in 1..3 {
            for _ in 0..8 {
                recv(&mut d, s, 64);
            }
        }
        d.frame_ended(1_000_000);
        assert!(d.congested(0));
        d.take_pending().count();
        recv(&mut d, 3, 64); // a new source while congested: notified at once
                             // a frame between LT and DT keeps CB (hysteresis)
        for _ in 0..5 {
            recv(&mut d, 1, 64);
        }
        d.frame_ended(2_000_000);
        assert!(d.congested(0));
        assert_eq!(d.take_pending().count(), 0);
        // a quiet frame (< 200 B) ends it: end notifications to 1, 2 and 3
        recv(&mut d, 1, 64);
        d.frame_ended(3_000_000);
        assert!(!d.congested(0));
        let mut to: Vec<u32> = d
            .take_pending()
            .map(|(_, n)| {
                assert!(!n.becn);
                n.to
            })
            .collect();
        to.sort();
        assert_eq!(to, vec![1, 2, 3]);
        assert_eq!((d.starts, d.ends), (3, 3));
        assert_eq!(d.changes.len(), 2);
        assert_eq!(d.congested_frames[0], 2);
    }

    #[test]
    fn sources_keep_one_status_bit_per_destination() {
        let mut d = det("");
        let note = |src, start| Packet {
            src,
            flags: CNP | if start { BECN } else { 0 },
            ..Packet::default()
        };
        assert!(!d.congestion_bit(1, 0));
        d.notification_received(1, &note(0, true));
        assert!(d.congestion_bit(1, 0));
        assert!(!d.congestion_bit(2, 0) && !d.congestion_bit(1, 3));
        d.notification_received(1, &note(0, false));
        assert!(!d.congestion_bit(1, 0));
        assert_eq!(d.received, 2);
    }

    #[test]
    fn bad_keys_are_named() {
        let c: DdbbmConfig = toml::from_str("lt = 0.99").unwrap();
        let e = Ddbbm::from_config(&c, &[8e9; 2], 1)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("ddbbm.lt:"), "{e}");
        let c: DdbbmConfig = toml::from_str("notification_vl = 1").unwrap();
        let e = Ddbbm::from_config(&c, &[8e9; 2], 1)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("ddbbm.notification_vl:"), "{e}");
    }
}
