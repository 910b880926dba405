//! QCN congestion notification messages (CNMs) as packets of the cycle-level model (Dragonfly
//! spec §3.12.1; thesis §2.4.1, §4.6): what a congestion point's sample does in the network.
//!
//! - **Sampling** ([`CycleNet::qcn_sample`]): when the congestion point (`congestion/qcn_cp.rs`)
//!   says a buffer is due, its occupancy Q (the port's data VCs of the sampled side) gives the
//!   feedback; a notification picks its victim among the buffer's data packets (a random one,
//!   the oldest, or the one just arrived: `qcn.victim`).
//! - **Where it goes**: to the victim's source node. When that node hangs off the sampling
//!   router itself (output sampling) no packet is sent: the router applies the feedback to its
//!   own minimal port towards the victim's destination (QCN-Switch, §3.12.6 [FOG]) and, with
//!   reaction points, the node gets it at once.
//! - **The packet**: a full-size packet (lnsim has one packet size per run) whose header
//!   carries Fb ([`super::packet::Link::cnm`]). It enters the output buffer of its first hop
//!   directly, on the notification VC (the crossbar is not modelled for it); when that VC is
//!   full it is dropped at its source and counted (it never was in the network). It travels
//!   minimally (l g l) on VCs of its own above the data VCs — local VCs `lv`, `lv + 1`, global
//!   VC `gv` — so its channels form their own acyclic dependency graph, and those VCs are
//!   served first by the input arbiter, the output arbiter and the link stage (the highest
//!   class of service).
//! - **At its destination router** (the victim source's), when its head arrives, QCN-Switch
//!   updates the probability of the input port it came in by (§3.12.3, FOGSim); then it is
//!   ejected to the node (delivered; the reaction point, when on, cuts the node's rate).
//!
//! Notifications are excluded from the data statistics (latency, throughput) and counted on
//! their own; conservation counts them (created = delivered + alive).

use super::congestion::Side;
use super::link::wake_output_at;
use super::packet::{Pkt, NIL};
use super::route::pack;
use super::CycleNet;
use crate::config::QcnVictim;
use crate::cycle::routing::candidates::RouteState;
use crate::cycle::routing::dragonfly_paths::{next_port, DragonflyPaths};
use crate::cycle::routing::vc_template::{HopClass, VcTemplate};

/// The notifications of a network: their paths, the VCs served first, the scratch of a victim
/// draw, and the counts.
#[derive(Debug, Clone, Default)]
pub(crate) struct Notifications {
    /// The minimal paths on the notification VCs (`None`: QCN off).
    pub paths: Option<DragonflyPaths>,
    /// Per port kind (`PortKind as usize`): the notification VCs, a bit per VC (0: none).
    pub prio_of: [u64; 4],
    /// QCN runs (notifications exist): the arbiters look for them.
    pub on: bool,
    /// Victim candidates of a sample (kept between samples: no allocation per sample).
    scratch: Vec<u32>,
    /// Notifications created, dropped at their source (no room), delivered to their node,
    /// applied at their destination router, applied where they were generated (local
    /// victim), delivered to a node on the generating router.
    pub created: u64,
    pub dropped: u64,
    pub delivered: u64,
    pub at_router: u64,
    pub local: u64,
    pub local_nodes: u64,
    /// Notifications created and delivered in the measured window.
    pub created_measured: u64,
    pub delivered_measured: u64,
}

impl Notifications {
    /// The notifications of a Dragonfly whose data use `lv` local and `gv` global VCs: they
    /// travel on local VCs `lv`, `lv + 1` and global VC `gv` (the template `L<lv> G<gv>
    /// L<lv+1>`).
    pub fn new(paths_of: impl FnOnce(VcTemplate) -> DragonflyPaths, lv: u32, gv: u32) -> Self {
        let t = Self::template(lv, gv);
        let mut prio_of = [0u64; 4];
        prio_of[super::PortKind::Local as usize] = 0b11 << lv;
        prio_of[super::PortKind::Global as usize] = 1 << gv;
        Notifications {
            paths: Some(paths_of(t)),
            prio_of,
            on: true,
            ..Default::default()
        }
    }
}

impl Notifications {
    /// The VC template of the notifications when the data use `lv` local and `gv` global VCs:
    /// `L<lv> G<gv> L<lv+1>`, a minimal path l g l on VCs above the data's.
    pub fn template(lv: u32, gv: u32) -> VcTemplate {
        VcTemplate {
            entries: vec![
                (HopClass::Local, lv as u8),
                (HopClass::Global, gv as u8),
                (HopClass::Local, lv as u8 + 1),
            ],
        }
    }
}

impl CycleNet {
    /// A congestion point samples side `side` of port `gp` (packet `id` just entered it;
    /// [`NIL`] when the sample follows a departure, the `cycles` clock: the `arrival` victim is
    /// then the oldest packet).
    #[inline(never)]
    pub(super) fn qcn_sample(&mut self, side: Side, gp: u32, id: u32) {
        let Some(q) = self.cm.qcn() else {
            return;
        };
        let dv = q.cp.data_vcs[gp as usize] as u32;
        let victim = q.cp.params.victim;
        let base = (gp * self.k.vcs) as usize;
        let occupancy: u32 = (0..dv)
            .map(|v| match side {
                Side::Input => self.vc[base + v as usize].in_used,
                Side::Output => self.out_occupancy(gp, v),
            })
            .sum();
        let Some(fb) = self.cm.qcn_mut().and_then(|q| q.cp.sample(gp, occupancy)) else {
            return;
        };
        // the victim among the buffer's data packets
        let mut cand = std::mem::take(&mut self.cnm.scratch);
        cand.clear();
        for v in 0..dv as usize {
            match side {
                Side::Input => cand.extend(self.eng.pkts.iter(self.vc[base + v].in_q)),
                Side::Output => cand.extend(self.eng.pkts.out_iter(&self.vout[base + v].q)),
            }
        }
        let r = self.split_gp(gp).0;
        let pick = match victim {
            QcnVictim::Arrival if id != NIL => Some(id),
            QcnVictim::Head | QcnVictim::Arrival => cand
                .iter()
                .copied()
                .min_by_key(|&x| (self.eng.pkts.link(x).ready, x)),
            QcnVictim::Random if cand.is_empty() => None,
            QcnVictim::Random => {
                let k = self
                    .cm
                    .qcn_mut()
                    .map_or(0, |q| q.cp.pick(r, cand.len() as u64));
                Some(cand[k as usize])
            }
        };
        self.cnm.scratch = cand;
        if let Some(v) = pick {
            let src = self.eng.pkts.pkt(v).src;
            let vdst = self.terms.router[self.eng.pkts.link(v).dst as usize];
            self.notify_source(r, src, vdst, fb);
        }
    }

    /// The minimal output port of router `r` towards router `dst` (`None`: `r` itself).
    fn min_port(&self, r: u32, dst: u32) -> Option<u32> {
        let d = &self.cnm.paths.as_ref()?.shape;
        next_port(d, r, dst)
    }

    /// Router `r` sends a notification with feedback `fb` to node `src`, the source of a victim
    /// packet heading for router `vdst`.
    fn notify_source(&mut self, r: u32, src: u32, vdst: u32, fb: u8) {
        let now = self.now;
        let Some(shape) = self.cnm.paths.as_ref().map(|p| p.shape) else {
            return;
        };
        if self.mech.source_processing() && shape.group(vdst) != shape.group(r) {
            // source processing (spec §3.12.5): this router's own minimal port towards the
            // victim's destination, by the base decrease
            if let Some(port) = self.min_port(r, vdst) {
                self.mech.notification_local(r, port, fb, now, true);
            }
        }
        let src_router = self.terms.router[src as usize];
        if src_router == r {
            // a victim from a node of this router (output sampling): applied here (§3.12.6)
            self.cnm.local += 1;
            if let Some(port) = self.min_port(r, vdst) {
                self.mech.notification_local(r, port, fb, now, false);
            }
            self.cnm.local_nodes += 1;
            self.cm.notification_received(src, fb, now);
            return;
        }
        let l = self.k.pkt_phits;
        let mut st = RouteState::default();
        let hop = match self.cnm.paths.as_ref() {
            Some(p) => p.follow(r, src_router, &mut st),
            None => return,
        };
        let c = match hop {
            Ok(Some(c)) => c,
            _ => {
                self.fail(format!(
                    "notification from router {r} to node {src}: no path"
                ));
                return;
            }
        };
        let og = r * self.k.radix + c.port as u32;
        let ov = c.vc_lo;
        if self.out_occupancy(og, ov as u32) + l > self.out_cap {
            self.cnm.dropped += 1;
            return;
        }
        let id = self.eng.pkts.alloc(
            Pkt {
                src,
                gen: now,
                t_net: now,
            },
            src,
        );
        let lk = self.eng.pkts.link_mut(id);
        lk.st = st;
        lk.cnm = fb;
        self.cnm.created += 1;
        if now >= self.k.warmup {
            self.cnm.created_measured += 1;
        }
        // into the output buffer of its first hop, leaving after the router latency
        let ready = now + self.k.router_latency;
        let oi = (og * self.k.vcs) as usize + ov as usize;
        let o = &mut self.vout[oi];
        o.used += l;
        let used = o.used;
        self.eng.pkts.out_push(&mut o.q, id, ready);
        let out = &mut self.port[og as usize];
        out.out_count += 1;
        let out_count = out.out_count;
        wake_output_at(out, &mut self.eng.cal, og, ready);
        // (a notification VC is never sampled)
        let _ = self
            .cm
            .packet_enqueued(Side::Output, (og, ov as u32), used, out_count, now);
        self.mech.packet_switched(r, c.port as u32, now);
    }

    /// The packed next hop of notification `id` at router `r`.
    #[inline(never)]
    pub(super) fn cnm_hop(&mut self, r: u32, id: u32) -> u32 {
        let dst = self.eng.pkts.link(id).dst;
        let dst_router = self.terms.router[dst as usize];
        let hop = match self.cnm.paths.as_ref() {
            Some(p) => p.follow(r, dst_router, &mut self.eng.pkts.link_mut(id).st),
            None => Ok(None),
        };
        match hop {
            Ok(Some(c)) => pack(c.port as u32, c.vc_lo, c.vc_hi),
            Ok(None) => pack(self.split_gp(self.terms.gp[dst as usize]).1, 0, 0),
            Err(e) => {
                self.fail(format!("notification routing: {e}"));
                pack(0, 0, 0)
            }
        }
    }

    /// Notification `id` (feedback `fb`) reached its destination router `r` by input `port`:
    /// QCN-Switch updates that port's probability (spec §3.12.3, FOGSim).
    #[inline(never)]
    pub(super) fn cnm_at_router(&mut self, r: u32, port: u32, fb: u8) {
        self.cnm.at_router += 1;
        let now = self.now;
        self.mech.notification_at_router(r, port, fb, now);
    }

    /// Notification `id` is delivered to its node (the reaction point, when on, reacts).
    #[inline(never)]
    pub(super) fn cnm_delivered(&mut self, id: u32, now: u64) {
        let (dst, fb) = {
            let lk = self.eng.pkts.link(id);
            (lk.dst, lk.cnm)
        };
        self.cnm.delivered += 1;
        if now >= self.k.warmup {
            self.cnm.delivered_measured += 1;
        }
        self.cm.notification_received(dst, fb, now);
        self.eng.pkts.free(id);
    }

    /// The notifications alive (created and not yet delivered): conservation.
    pub(super) fn cnms_alive(&self) -> u64 {
        self.cnm.created - self.cnm.delivered
    }
}

#[cfg(test)]
mod tests {
    use super::Notifications;
    use crate::cycle::routing::algorithm::{CycleRouting, Paths};
    use crate::cycle::routing::dependency_graph;
    use crate::cycle::routing::dragonfly_paths::{neighbour, DragonflyPaths};
    use crate::cycle::routing::minimal::Min;
    use crate::cycle::routing::vc_template::VcTemplate;
    use crate::topology::dragonfly::{Arrangement, DragonflyShape};
    use std::sync::Arc;

    /// Is the channel-dependency graph of minimal paths on template `t` acyclic?
    fn acyclic(s: DragonflyShape, t: VcTemplate) -> bool {
        let r = CycleRouting::new(Arc::new(Min), Paths::Dragonfly(DragonflyPaths::new(s, t)));
        let link = |r: u32, port: u32| {
            (port >= s.p).then(|| {
                let far = neighbour(&s, r, port);
                // the far end's port back to r
                let back = (s.p..s.radix())
                    .find(|&q| neighbour(&s, far, q) == r)
                    .unwrap();
                (far, back)
            })
        };
        let g = dependency_graph::build(&r, s.routers(), s.radix(), 6, &link).unwrap();
        g.find_cycle().is_none()
    }

    /// The notifications' own channels cannot deadlock (the check `build.rs` runs): their
    /// template `L<lv> G<gv> L<lv+1>` is acyclic, while one local VC for both local hops
    /// (`L2 G2 L2`) closes a cycle through the groups — the check can fail.
    #[test]
    fn the_notification_channels_are_deadlock_free() {
        let s = DragonflyShape::new(2, 4, 2, Arrangement::Palmtree).unwrap();
        assert!(acyclic(s, Notifications::template(2, 2)));
        let one_vc = VcTemplate::parse(&["L2".into(), "G2".into(), "L2".into()]).unwrap();
        assert!(!acyclic(s, one_vc));
    }
}
