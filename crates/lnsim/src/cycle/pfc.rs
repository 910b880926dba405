//! 802.1Qbb priority flow control (PFC) between cycle-level routers (Dragonfly spec §2.3): the
//! second variant of the flow-control seam ([`super::flow_control`]). One VC is one class of
//! service (CoS, an 802.1Qbb priority): at most 8 per port.
//!
//! - **XOFF.** When a head's arrival makes a router input VC's occupancy (a packet's phits count
//!   from its head's arrival) reach `xoff` and that VC is not paused already, a PAUSE frame for
//!   the VC goes upstream on the reverse direction of the same link ([`CycleNet::pfc_frame`]).
//! - **XON.** When the VC's occupancy is at most `xon` at the time a granted packet's space is
//!   really free (`release` in the allocator's grant), a resume frame goes the same way.
//! - **The frame.** It cannot pre-empt a packet being sent on the reverse link (it starts at
//!   that link's `link_free` at the earliest) but goes ahead of queued data; it holds the link
//!   for `pause_phits` cycles (data waits) and takes effect one link latency after its last
//!   phit, plus `response_cycles`, as an `Ev::Pause` event at the upstream output.
//! - **Upstream.** From then on the output VC may not *start* a packet (`PortState::paused`);
//!   one already started finishes (virtual cut-through). Quanta are not modelled: a PAUSE
//!   holds until its resume (XON/XOFF use of PFC); PAUSE frames are never lost.
//! - **No credits.** The outputs' credit counts stay full (never decremented), so the output-VC
//!   choice and adaptive routing's queue signal (`occupancy.rs`) see local state only.
//! - **Terminal links.** Injection links keep their credits (the NIC inside the host
//!   interface); ejection always consumes.
//!
//! The headroom every input VC needs above XOFF ([`headroom_packets`]) is checked when the
//! scenario is read; a run whose buffer overflows anyway fails (`lossless_violated`).

use super::calendar::Calendar;
use super::{CycleNet, Ev, PortKind};
use crate::config::{LoadedScenario, RouterFlowControl};
use crate::error::{Error, Result};
use std::fmt::Write as _;

/// Most classes of service (VCs per port) under PFC: 802.1Qbb's 8 priorities.
pub(crate) const MAX_COS: u32 = 8;

/// "No VC": [`super::PortState::last_vc`] after a PAUSE frame starts on an idle link (no data
/// tail is leaving the output buffer).
pub(crate) const NO_VC: u8 = u8::MAX;

/// The PFC parameters of a run, per port kind (`PortKind as usize`), checked.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PfcParams {
    /// XOFF and XON thresholds of an input VC in phits (terminal ports: never).
    pub xoff_of: [u32; 4],
    pub xon_of: [u32; 4],
    /// Link time of one frame, and the upstream's response time (cycles).
    pub pause_phits: u32,
    pub response: u64,
}

/// Whole packets that can still reach an input VC after the head that made its occupancy reach
/// XOFF, at most (the derivation is in `docs/hpc-router.md`, "Priority flow control"): packets
/// of `l` phits on a link of latency `d`, frames of `p` phits, a response time `t_r`, and `f`
/// frames that may wait on the reverse link ahead of the PAUSE, its own included.
///
/// `⌊(2d + L + f·P + t_r − 2) / L⌋`: the upstream starts one packet every `L` cycles at most;
/// the packets counted after the crossing one are those started after it (≥ L later) and before
/// the PAUSE takes effect, which is at most `L − 1` (a packet on the reverse link) `+ f·P`
/// (frames) `+ d + t_r` after the crossing, itself `d` after its start.
pub(crate) fn headroom_packets(l: u64, d: u64, p: u64, t_r: u64, f: u64) -> u64 {
    (2 * d + l + f * p + t_r).saturating_sub(2) / l
}

/// Frames that may wait on a reverse link ahead of a PAUSE, its own included, for a port of
/// `nvc` VCs: a PAUSE and a resume of each VC.
pub(crate) fn frames_ahead(nvc: u32) -> u64 {
    2 * nvc as u64
}

/// Refuses `[router.pfc]` keys unless `router.flow_control = "pfc"`, naming the first.
pub(crate) fn reject_keys_without_pfc(l: &LoadedScenario) -> Result<()> {
    if l.scenario.router.flow_control == RouterFlowControl::Pfc {
        return Ok(());
    }
    let given = l
        .merged
        .get("router")
        .and_then(|r| r.get("pfc"))
        .and_then(|t| t.as_table());
    if let Some(t) = given {
        let key = match t.keys().next() {
            Some(k) => format!("router.pfc.{k}"),
            None => "router.pfc".to_string(),
        };
        return Err(Error::input(
            &key,
            "applies to router.flow_control = \"pfc\" (802.1Qbb priority flow control); this \
             scenario uses \"credits\" (the default): set router.flow_control = \"pfc\" or \
             remove [router.pfc]",
        ));
    }
    Ok(())
}

/// The PFC parameters of a scenario with `router.flow_control = "pfc"` (None otherwise):
/// thresholds per link class (local, global) with their defaults, each checked against the
/// headroom its buffer needs ([`headroom_packets`]). `vcs` is the VCs per (local, global) port.
pub(crate) fn resolve(
    l: &LoadedScenario,
    pkt_phits: u32,
    vcs: (u32, u32),
    dragonfly: bool,
) -> Result<Option<PfcParams>> {
    let rc = &l.scenario.router;
    if rc.flow_control != RouterFlowControl::Pfc {
        return Ok(None);
    }
    let c = rc.pfc.clone().unwrap_or_default();
    let vc_key = if vcs.0 >= vcs.1 || !dragonfly {
        "router.local_vcs"
    } else {
        "router.global_vcs"
    };
    if vcs.0.max(vcs.1) > MAX_COS {
        return Err(Error::input(
            vc_key,
            format!(
                "{} VCs per port; router.flow_control = \"pfc\" pauses each VC as an 802.1Qbb \
                 class of service, of which a link has {MAX_COS}",
                vcs.0.max(vcs.1)
            ),
        ));
    }
    let lp = pkt_phits as u64;
    let (p, t_r) = (c.pause_phits as u64, c.response_cycles);
    let mut params = PfcParams {
        xoff_of: [u32::MAX; 4],
        xon_of: [0; 4],
        pause_phits: c.pause_phits,
        response: t_r,
    };
    let mut classes = vec![(
        "local",
        PortKind::Local,
        rc.local_latency,
        rc.local_buffer_phits,
        vcs.0,
    )];
    if dragonfly {
        classes.push((
            "global",
            PortKind::Global,
            rc.global_latency,
            rc.global_buffer_phits,
            vcs.1,
        ));
    }
    for (class, kind, d, cap, nvc) in classes {
        let f = frames_ahead(nvc);
        let k = headroom_packets(lp, d, p, t_r, f);
        let headroom = k * lp;
        let cap = cap as u64;
        let why = || {
            format!(
                "on {class} links the headroom above XOFF must hold {k} packets = {headroom} \
                 phits: ⌊(2d + L + f·P + t_r − 2) / L⌋ with router.{class}_latency d = {d}, \
                 traffic.packet_phits L = {lp}, router.pfc.pause_phits P = {p}, \
                 router.pfc.response_cycles t_r = {t_r} and f = {f} frames (a PAUSE and a \
                 resume per VC, {nvc} VCs) ahead on the reverse link"
            )
        };
        let xoff = match c.xoff_phits {
            Some(x) => {
                let whole = (x as u64).div_ceil(lp) * lp;
                if whole + headroom > cap {
                    return Err(Error::input(
                        "router.pfc.xoff_phits",
                        format!(
                            "{x} phits is too high for router.{class}_buffer_phits = {cap}: {}; \
                             XOFF rounded up to whole packets ({whole}) + {headroom} must be at \
                             most {cap}; lower router.pfc.xoff_phits or raise \
                             router.{class}_buffer_phits",
                            why()
                        ),
                    ));
                }
                x as u64
            }
            None => cap.saturating_sub(headroom) / lp * lp,
        };
        if xoff <= lp {
            // no XON fits under it (one packet ≤ XON < XOFF)
            let no_xon = format!(
                "XOFF on {class} links is {xoff} phits, not above one packet \
                 (traffic.packet_phits = {lp}), so no XON fits under it (one packet ≤ XON < XOFF)"
            );
            return Err(match c.xoff_phits {
                Some(_) => Error::input("router.pfc.xoff_phits", no_xon),
                None => Error::input(
                    &format!("router.{class}_buffer_phits"),
                    format!(
                        "{no_xon}: {}; router.{class}_buffer_phits = {cap} needs at least {} \
                         phits (two packets below XOFF and the headroom above)",
                        why(),
                        2 * lp + headroom
                    ),
                ),
            });
        }
        let xon = match c.xon_phits {
            Some(x) => x as u64,
            None => xoff.saturating_sub(2 * lp).max(lp),
        };
        if xon < lp || xon >= xoff {
            return Err(Error::input(
                "router.pfc.xon_phits",
                format!(
                    "{xon} phits on {class} links; XON must be at least one packet \
                     (traffic.packet_phits = {lp}) and below XOFF ({xoff} phits)"
                ),
            ));
        }
        params.xoff_of[kind as usize] = xoff as u32;
        params.xon_of[kind as usize] = xon as u32;
    }
    Ok(Some(params))
}

/// The PFC state of a run: thresholds, the XOFF state of every input VC, the statistics.
#[derive(Debug, Clone)]
pub(crate) struct Pfc {
    /// The parameters.
    pub p: PfcParams,
    /// Per router port `gp`: the input VCs whose PAUSE is in force (sent, no resume since), a
    /// bit per VC.
    pub xoff: Vec<u8>,
    /// Per `(gp, vc)`: PAUSE and resume frames this input VC sent upstream in the measurement
    /// window.
    pub pauses: Vec<u64>,
    pub resumes: Vec<u64>,
    /// Per `(gp, vc)`: the cycle this output VC's received PAUSE took effect, and its paused
    /// cycles in the measurement window so far (a pause still on is added at the end).
    pub paused_since: Vec<u64>,
    pub paused_cycles: Vec<u64>,
    /// Frames sent and received over the whole run (conservation).
    pub sent: u64,
    pub received: u64,
    /// Reverse-link cycles taken by frames in the measurement window.
    pub link_cycles: u64,
    /// First cycle of the measurement window.
    pub warmup: u64,
}

impl Pfc {
    /// The state of a network of `channels` (port, VC) pairs and `ports` ports.
    pub(crate) fn new(p: PfcParams, ports: usize, channels: usize, warmup: u64) -> Self {
        Pfc {
            p,
            xoff: vec![0; ports],
            pauses: vec![0; channels],
            resumes: vec![0; channels],
            paused_since: vec![0; channels],
            paused_cycles: vec![0; channels],
            sent: 0,
            received: 0,
            link_cycles: 0,
            warmup,
        }
    }

    /// Cycles of `[from, to)` in the measurement window.
    fn in_window(&self, from: u64, to: u64) -> u64 {
        to.saturating_sub(from.max(self.warmup))
    }

    /// An input VC's head arrival made its occupancy `used`: does a PAUSE go upstream?
    /// (Out of line: the credit-based path's code stays small.)
    #[inline(never)]
    pub(crate) fn filled(&self, gp: u32, vc: u32, used: u32, kind: PortKind) -> bool {
        used >= self.p.xoff_of[kind as usize] && self.xoff[gp as usize] >> vc & 1 == 0
    }

    /// A packet was granted out of input `gi`, VC `vc` (kind `kind`), which then holds `used`
    /// phits; its space is free at `release`: the XON check then, if it may pass.
    #[inline(never)]
    pub(crate) fn drained(
        &self,
        cal: &mut Calendar,
        gi: u32,
        vc: u8,
        used: u32,
        kind: PortKind,
        release: u64,
    ) {
        if self.xoff[gi as usize] >> vc & 1 != 0 && used <= self.p.xon_of[kind as usize] {
            cal.push(release, Ev::PfcDrained { gp: gi, vc });
        }
    }
}

impl CycleNet {
    /// The PFC state (a run under `router.flow_control = "pfc"` only).
    fn pfc_mut(&mut self) -> &mut Pfc {
        self.fc.pfc_mut().expect("a PFC event without PFC")
    }

    /// Router input `gp` sends a PAUSE (`on`) or resume frame for its VC `vc` upstream, on the
    /// reverse direction of its link (the output side of the same port): after the packet on
    /// that link, ahead of queued data, for `pause_phits` cycles; it takes effect at the
    /// upstream output one link latency after its last phit, plus the response time.
    pub(super) fn pfc_frame(&mut self, gp: u32, vc: u32, on: bool) {
        let now = self.now;
        let (mask, warmup) = (self.eng.cal.mask, self.k.warmup);
        let port = &mut self.port[gp as usize];
        let p = self.fc.pfc_mut().expect("a PFC frame without PFC");
        let frame = p.p.pause_phits as u64;
        let start = port.link_free.max(now);
        if port.link_free <= now {
            // no data tail leaves the output buffer while the frame is on the link
            port.last_vc = NO_VC;
        }
        port.link_free = start + frame;
        let at = start + frame + port.latency as u64 + p.p.response;
        let up = port.peer;
        let i = (gp * self.k.vcs + vc) as usize;
        p.xoff[gp as usize] ^= 1 << vc;
        debug_assert_eq!(p.xoff[gp as usize] >> vc & 1 == 1, on);
        p.sent += 1;
        if now >= warmup {
            if on {
                p.pauses[i] += 1;
            } else {
                p.resumes[i] += 1;
            }
            p.link_cycles += frame;
        }
        if at - now > mask {
            let name = self.port_name(gp);
            self.fail(format!(
                "PFC frames queued on the link of {name} reach {} cycles ahead, beyond the event \
                 calendar ({} cycles): router.pfc.pause_phits is too large for this network",
                at - now,
                mask
            ));
            return;
        }
        self.eng.cal.push(
            at,
            Ev::Pause {
                gp: up,
                vc: vc as u8,
                on,
            },
        );
    }

    /// A PAUSE (`on`) or resume frame for VC `vc` takes effect at output `gp`.
    pub(super) fn on_pause(&mut self, gp: u32, vc: u8, on: bool) {
        let now = self.now;
        let i = (gp * self.k.vcs) as usize + vc as usize;
        let p = self.pfc_mut();
        p.received += 1;
        let since = p.paused_since[i];
        if on {
            p.paused_since[i] = now;
        } else {
            let w = p.in_window(since, now);
            p.paused_cycles[i] += w;
        }
        let port = &mut self.port[gp as usize];
        // frames of one VC alternate and keep their order on the link
        debug_assert_eq!(port.paused >> vc & 1 == 0, on, "PFC frames out of order");
        if on {
            port.paused |= 1 << vc;
        } else {
            port.paused &= !(1 << vc);
            if port.out_count > 0 {
                self.mark_output(gp);
            }
        }
    }

    /// The space of a packet granted out of input `gp`, VC `vc` is free: XON when the VC's
    /// occupancy is at most `xon` and its PAUSE is in force.
    pub(super) fn on_pfc_drained(&mut self, gp: u32, vc: u8) {
        let used = self.vc[(gp * self.k.vcs) as usize + vc as usize].in_used;
        let kind = self.port[gp as usize].kind;
        let p = self.pfc_mut();
        if p.xoff[gp as usize] >> vc & 1 != 0 && used <= p.p.xon_of[kind as usize] {
            self.pfc_frame(gp, vc as u32, false);
        }
    }

    /// End-of-run PFC checks (instead of the credits'): every frame sent was received or is in
    /// flight, every output keeps its full credits, every input VC holds at most its capacity,
    /// and the upstream pause state of an input VC with no frame in flight is its XOFF state.
    pub(crate) fn check_pfc(&self, p: &Pfc) -> Result<()> {
        let vcs = self.k.vcs as usize;
        let mut in_flight = 0u64;
        let mut flying = vec![false; self.vout.len()];
        for ev in self.eng.cal.events() {
            if let Ev::Pause { gp, vc, .. } = ev {
                in_flight += 1;
                flying[gp as usize * vcs + vc as usize] = true;
            }
        }
        if p.sent != p.received + in_flight {
            return Err(Error::Internal(format!(
                "PFC frame conservation violated: {} sent, {} received, {in_flight} in flight",
                p.sent, p.received
            )));
        }
        for (g, port) in self.port.iter().enumerate() {
            if !matches!(port.kind, PortKind::Local | PortKind::Global) {
                continue;
            }
            let up = port.peer as usize;
            for v in 0..port.nvc as usize {
                let name = || format!("{} VC {v}", self.port_name(g as u32));
                let (used, cap) = (self.vc[g * vcs + v].in_used, self.in_cap(g as u32));
                if used > cap {
                    return Err(Error::Internal(format!(
                        "lossless violated at {}: {used} phits, capacity {cap}",
                        name()
                    )));
                }
                let credits = self.vout[g * vcs + v].credits;
                if credits != self.credit_cap(g as u32) {
                    return Err(Error::Internal(format!(
                        "PFC: the output {} counts {credits} credits, not its full {}",
                        name(),
                        self.credit_cap(g as u32)
                    )));
                }
                let xoff = p.xoff[g] >> v & 1 == 1;
                let paused = self.port[up].paused >> v & 1 == 1;
                if !flying[up * vcs + v] && xoff != paused {
                    return Err(Error::Internal(format!(
                        "PFC state violated at {}: PAUSE in force {xoff}, upstream paused {paused}",
                        name()
                    )));
                }
            }
        }
        Ok(())
    }

    /// `pfc.csv` and the summary's `pfc` object of a run under PFC: per router port and VC, the
    /// frames its input sent upstream and the cycles its output was paused, in the measurement
    /// window `[warmup, stop)`.
    pub(crate) fn pfc_outputs(
        &self,
        p: &Pfc,
        summary: &mut serde_json::Value,
        files: &mut Vec<(&'static str, String)>,
    ) {
        let (stop, vcs) = (self.stats.stop, self.k.vcs as usize);
        let mut csv = String::from(
            "router,name,port,kind,vc,pause_frames_sent,resume_frames_sent,paused_cycles\n",
        );
        // a class without links (global on a mesh) has none
        let threshold = |of: &[u32; 4], k: PortKind| {
            let x = p.p.xoff_of[k as usize];
            (x != u32::MAX).then_some(of[k as usize])
        };
        let (mut pauses, mut resumes, mut paused) = (0u64, 0u64, 0u64);
        for (g, port) in self.port.iter().enumerate() {
            let kind = match port.kind {
                PortKind::Local => "local",
                PortKind::Global => "global",
                _ => continue,
            };
            let (r, k) = self.split_gp(g as u32);
            for v in 0..port.nvc as usize {
                let i = g * vcs + v;
                let mut c = p.paused_cycles[i];
                if port.paused >> v & 1 == 1 {
                    c += p.in_window(p.paused_since[i], stop);
                }
                pauses += p.pauses[i];
                resumes += p.resumes[i];
                paused += c;
                let _ = writeln!(
                    csv,
                    "{r},{},{k},{kind},{v},{},{},{c}",
                    self.router_names[r as usize], p.pauses[i], p.resumes[i]
                );
            }
        }
        summary["pfc"] = serde_json::json!({
            "pause_frames": pauses,
            "resume_frames": resumes,
            "paused_cycles": paused,
            "pause_link_cycles": p.link_cycles,
            "xoff_phits": { "local": threshold(&p.p.xoff_of, PortKind::Local), "global": threshold(&p.p.xoff_of, PortKind::Global) },
            "xon_phits": { "local": threshold(&p.p.xon_of, PortKind::Local), "global": threshold(&p.p.xon_of, PortKind::Global) },
        });
        files.push(("pfc.csv", csv));
    }
}

#[cfg(test)]
mod tests {
    use super::{frames_ahead, headroom_packets};
    use crate::config::load_str;
    use crate::cycle::flow_control::FlowControl;
    use crate::cycle::{CycleNet, PortKind};

    fn load(text: &str) -> crate::error::Result<crate::config::LoadedScenario> {
        load_str(text, "t", std::path::Path::new("."), "t", &[], None)
    }

    /// A Dragonfly p = h = 2 under PFC (72 nodes), ADV+1 at load 0.6 (the global links
    /// saturate, so the inputs before them fill), with `router` keys added.
    fn adversarial(router: &str) -> String {
        format!(
            "[sim]\nmodel = \"cycle\"\nwarmup_cycles = 1000\nmeasure_cycles = 3000\n\
             [topology]\nkind = \"dragonfly\"\np = 2\n[routing]\nalgorithm = \"min\"\n\
             [router]\nflow_control = \"pfc\"\n{router}\n\
             [traffic]\npattern = \"adv\"\nshift = 1\nload = 0.6\n"
        )
    }

    /// The headroom by hand for the Table 4-3 network (L = 200 phits, P = 13, local d = 40,
    /// global d = 400, 20,000-phit buffers): ⌊(2d + L + f·P + t_r − 2) / L⌋ packets.
    #[test]
    fn headroom_of_the_table_4_3_network() {
        // one VC per port (f = 2 frames): local (80 + 200 + 26 − 2) / 200 = 304 / 200 → 1
        // packet; global (800 + 200 + 26 − 2) / 200 = 1024 / 200 → 5 packets
        assert_eq!(headroom_packets(200, 40, 13, 0, frames_ahead(1)), 1);
        assert_eq!(headroom_packets(200, 400, 13, 0, frames_ahead(1)), 5);
        // four CoS on local ports (f = 8): (80 + 200 + 104 − 2) / 200 = 382 / 200 → 1;
        // three on global ports (f = 6): (800 + 200 + 78 − 2) / 200 = 1076 / 200 → 5
        assert_eq!(headroom_packets(200, 40, 13, 0, frames_ahead(4)), 1);
        assert_eq!(headroom_packets(200, 400, 13, 0, frames_ahead(3)), 5);
        // a response time t_r = 2,739 cycles (about 2.7 µs): local 3,043 / 200 → 15, global
        // 3,763 / 200 → 18
        assert_eq!(headroom_packets(200, 40, 13, 2739, frames_ahead(1)), 15);
        assert_eq!(headroom_packets(200, 400, 13, 2739, frames_ahead(1)), 18);
        // the boundary: a packet more once 2d + L + f·P − 2 reaches 2L (80 + 200 + 2·61 − 2)
        assert_eq!(headroom_packets(200, 40, 60, 0, 2), 1);
        assert_eq!(headroom_packets(200, 40, 61, 0, 2), 2);
    }

    /// The thresholds of the Table 4-3 network by default: XOFF = capacity − headroom (whole
    /// packets), XON = XOFF − 2 packets, per link class; a given XOFF is checked per class.
    #[test]
    fn thresholds_default_below_the_headroom_per_link_class() {
        let table = "local_buffer_phits = 20000\nglobal_buffer_phits = 20000\n\
                     output_buffer_phits = 20000\ninjection_queue_phits = 40000\nlatency = 200\n\
                     local_latency = 40\nglobal_latency = 400\n";
        let text = adversarial(table).replace("[traffic]", "[traffic]\npacket_phits = 200");
        let l = load(&text).unwrap();
        let p = crate::cycle::params::CycleParams::resolve(&l).unwrap();
        let pfc = p.pfc.unwrap();
        let (lo, gl) = (PortKind::Local as usize, PortKind::Global as usize);
        // min: 2 local VCs, 1 global VC
        assert_eq!(pfc.xoff_of[lo], 20000 - 200);
        assert_eq!(pfc.xon_of[lo], 20000 - 200 - 400);
        assert_eq!(pfc.xoff_of[gl], 20000 - 1000);
        assert_eq!(pfc.xon_of[gl], 20000 - 1000 - 400);
        assert_eq!(pfc.xoff_of[PortKind::Terminal as usize], u32::MAX);
        // XOFF 19,001 rounds up to 19,200 packets' worth: fits local (+ 200), not global
        // (+ 1,000), which the refusal names with its numbers
        let bad = text.replace("[router]\n", "[router.pfc]\nxoff_phits = 19001\n[router]\n");
        let e = CycleNet::new(&load(&bad).unwrap())
            .err()
            .unwrap()
            .to_string();
        for k in [
            "router.pfc.xoff_phits",
            "router.global_buffer_phits = 20000",
            "router.global_latency d = 400",
            "traffic.packet_phits L = 200",
            "router.pfc.pause_phits P = 13",
            "router.pfc.response_cycles t_r = 0",
            "5 packets = 1000 phits",
            "(19200)",
        ] {
            assert!(e.contains(k), "{k} not in: {e}");
        }
        let ok = bad.replace("19001", "19000");
        assert!(CycleNet::new(&load(&ok).unwrap()).is_ok());
        // the lowest thresholds: XON one packet, XOFF above it; XOFF of one packet leaves none
        let low = bad.replace("19001", "205\nxon_phits = 200");
        assert!(CycleNet::new(&load(&low).unwrap()).is_ok());
        let e = CycleNet::new(&load(&bad.replace("19001", "200")).unwrap())
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("router.pfc.xoff_phits") && e.contains("not above one packet"),
            "{e}"
        );
        let e = CycleNet::new(&load(&bad.replace("19001", "300\nxon_phits = 300")).unwrap())
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("router.pfc.xon_phits") && e.contains("below XOFF (300"),
            "{e}"
        );
    }

    /// Keys of `[router.pfc]` under credits are refused, naming the key and the choice.
    #[test]
    fn pfc_keys_need_pfc() {
        let text =
            adversarial("[router.pfc]\npause_phits = 20\n").replace("flow_control = \"pfc\"\n", "");
        let e = CycleNet::new(&load(&text).unwrap())
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("router.pfc.pause_phits") && e.contains("router.flow_control = \"pfc\""),
            "{e}"
        );
        // more classes of service than 802.1Qbb has
        let text = adversarial("local_vcs = 9\n");
        let e = CycleNet::new(&load(&text).unwrap())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("router.local_vcs") && e.contains("8"), "{e}");
    }

    /// The lossless check can fail: with the headroom check bypassed (XOFF at the buffer's
    /// capacity) the inputs overflow and the run fails; with the checked thresholds the same
    /// run pauses its links and loses nothing, and every frame is accounted for.
    #[test]
    fn without_headroom_the_run_fails_lossless() {
        let l = load(&adversarial("")).unwrap();
        let mut net = CycleNet::new(&l).unwrap();
        net.run(false, &mut || false).unwrap();
        net.check_conservation().unwrap();
        let FlowControl::Pfc(p) = &net.fc else {
            unreachable!()
        };
        assert!(p.sent > 0 && p.pauses.iter().sum::<u64>() > 0);
        let mut net = CycleNet::new(&l).unwrap();
        let FlowControl::Pfc(p) = &mut net.fc else {
            unreachable!()
        };
        for k in [PortKind::Local, PortKind::Global] {
            p.p.xoff_of[k as usize] = net.in_cap_of[k as usize];
        }
        let e = net.run(false, &mut || false).unwrap_err().to_string();
        assert!(e.contains("lossless violated: input buffer"), "{e}");
    }

    /// A frame waits for the packet on the reverse link, goes ahead of queued data (the link is
    /// busy `pause_phits` cycles more), and takes effect one link latency after its last phit
    /// plus the response time; a second frame of the port queues behind the first; on an idle
    /// link it starts at once and no data tail is leaving.
    #[test]
    fn a_frame_holds_the_reverse_link_and_takes_effect_a_latency_later() {
        let l = load(&adversarial(
            "[router.pfc]\npause_phits = 13\nresponse_cycles = 5\n",
        ))
        .unwrap();
        let mut net = CycleNet::new(&l).unwrap();
        let gp = net
            .port
            .iter()
            .position(|p| p.kind == PortKind::Local)
            .unwrap() as u32;
        let (up, d) = (
            net.port[gp as usize].peer,
            net.port[gp as usize].latency as u64,
        );
        net.now = 100;
        net.port[gp as usize].link_free = 150;
        net.port[gp as usize].last_vc = 1;
        net.pfc_frame(gp, 0, true);
        net.pfc_frame(gp, 1, true);
        let port = &net.port[gp as usize];
        assert_eq!((port.link_free, port.last_vc), (150 + 2 * 13, 1));
        for (vc, end) in [(0u8, 163), (1, 176)] {
            let slot = net.eng.cal.take(end + d + 5);
            assert_eq!(slot.pfc, vec![(up, vc, super::super::calendar::PFC_ON)]);
        }
        // the PAUSE of VC 0 reaches the upstream output: that VC may not start a packet
        net.now = 163 + d + 5;
        net.on_pause(up, 0, true);
        assert_eq!(net.port[up as usize].paused, 1);
        assert!(net.fc.paused(&net.port[up as usize], 0, &net.vout[0], 10));
        assert!(!net.fc.paused(&net.port[up as usize], 1, &net.vout[0], 10));
        // an idle link: the resume starts now
        net.port[gp as usize].link_free = 0;
        net.pfc_frame(gp, 0, false);
        let port = &net.port[gp as usize];
        assert_eq!((port.link_free, port.last_vc), (net.now + 13, super::NO_VC));
        let slot = net.eng.cal.take(net.now + 13 + d + 5);
        assert_eq!(slot.pfc, vec![(up, 0, super::super::calendar::PFC_OFF)]);
        let FlowControl::Pfc(p) = &net.fc else {
            unreachable!()
        };
        assert_eq!((p.sent, p.received, p.xoff[gp as usize]), (3, 1, 0b10));
    }

    /// The end-of-run PFC check catches a lost frame, an output that counted credits, and an
    /// input VC over its capacity.
    #[test]
    fn the_pfc_conservation_check_catches_frame_and_buffer_faults() {
        let l = load(&adversarial("")).unwrap();
        let mut net = CycleNet::new(&l).unwrap();
        net.run(false, &mut || false).unwrap();
        net.check_conservation().unwrap();
        net.fc.pfc_mut().unwrap().received -= 1;
        let e = net.check_conservation().unwrap_err().to_string();
        assert!(e.contains("PFC frame conservation violated"), "{e}");
        net.fc.pfc_mut().unwrap().received += 1;
        let g = net
            .port
            .iter()
            .position(|p| p.kind == PortKind::Global)
            .unwrap();
        let i = g * net.k.vcs as usize;
        net.vout[i].credits -= 10;
        let e = net.check_conservation().unwrap_err().to_string();
        assert!(e.contains("not its full"), "{e}");
        net.vout[i].credits += 10;
        net.vc[i].in_used = net.in_cap_of[PortKind::Global as usize] + 10;
        let e = net.check_conservation().unwrap_err().to_string();
        assert!(e.contains("lossless violated"), "{e}");
    }
}
