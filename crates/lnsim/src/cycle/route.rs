//! The cycle-level wing's side of the routing seam ([`crate::cycle::routing::candidates`]): a head
//! packet's next hop at a router input, packed into one word (output port, VC range) and
//! cached per input VC; the source decision at the injection router (with the routing
//! mechanism's state, `mechanism.rs`); the class of a delivered packet's path (§5); and, for a routing whose
//! next hop depends on the router and the destination alone, the table of every next hop.

use super::occupancy::View;
use super::packet::Link;
use super::CycleNet;
use crate::cycle::routing::algorithm::Paths;
use crate::cycle::routing::candidates::RouteState;
use crate::cycle::routing::valiant::{path_class, PathClass};

/// No cached route for an input VC's head.
pub(super) const NO_ROUTE: u32 = u32::MAX;

/// Packs a candidate (output port, VC range) into one word.
#[inline]
pub(super) fn pack(port: u32, lo: u8, hi: u8) -> u32 {
    port | (lo as u32) << 8 | (hi as u32) << 16
}

/// Unpacks a candidate.
#[inline]
pub(super) fn unpack(x: u32) -> (u32, u8, u8) {
    (x & 0xFF, (x >> 8) as u8, (x >> 16) as u8)
}

impl CycleNet {
    /// Routes packet `id`, the head of an input queue of router `r` (its source decision
    /// first when it comes from a terminal): returns the packed candidate (port, VC range).
    /// (A stateless routing reads [`CycleNet::route_table`] instead.)
    #[inline(never)]
    pub(super) fn route_head(&mut self, r: u32, id: u32) -> u32 {
        if self.eng.pkts.link(id).cnm != 0 {
            // a QCN notification: its own minimal path (`cnm.rs`)
            return self.cnm_hop(r, id);
        }
        // (MIN and DOR do not read the hop count)
        if self.routing.decides_at_injection() && self.eng.pkts.link(id).hops == 0 {
            self.source_decision(r, id);
        }
        let p = self.eng.pkts.link_mut(id);
        let dst = p.dst;
        let dst_router = self.terms.router[dst as usize];
        match self.routing.next_hop(r, dst_router, &mut p.st) {
            Ok(Some(c)) => pack(c.port as u32, c.vc_lo, c.vc_hi),
            Ok(None) => self.ejection_hop(dst),
            Err(e) => {
                self.fail(format!("routing: {e}"));
                pack(0, 0, 0)
            }
        }
    }

    /// The class of the path a delivered packet from terminal `src` with hot record `lk`
    /// took ([`PathClass`], Dragonfly spec §5); [`PathClass::Min`] off a Dragonfly.
    #[inline]
    pub(super) fn path_class(&self, src: u32, lk: &Link) -> PathClass {
        match &self.routing.paths {
            Paths::Dragonfly(d) if lk.st.nonminimal => {
                path_class(&d.shape, self.terms.router[src as usize], &lk.st)
            }
            _ => PathClass::Min,
        }
    }

    /// The packed hop onto destination terminal `dst`'s port.
    #[inline]
    fn ejection_hop(&self, dst: u32) -> u32 {
        pack(self.split_gp(self.terms.gp[dst as usize]).1, 0, 0)
    }

    /// Largest route table (entries: routers × terminals) [`CycleNet::tabulate_routes`]
    /// builds: 4 Mi entries, 16 MiB.
    const MAX_ROUTE_TABLE: u64 = 1 << 22;

    /// For a routing whose next hop depends on the router and the destination alone
    /// ([`crate::cycle::routing::algorithm::CycleRouting::stateless`], mesh DOR), computes every
    /// packed next hop once (by the same code as [`CycleNet::route_head`]) so that routing a
    /// head is one table read; nothing for other routings or beyond [`Self::MAX_ROUTE_TABLE`].
    pub(crate) fn tabulate_routes(&mut self) {
        let n = self.k.routers as u64 * self.k.terminals as u64;
        if !self.routing.stateless() || n > Self::MAX_ROUTE_TABLE {
            return;
        }
        let mut table = Vec::with_capacity(n as usize);
        for r in 0..self.k.routers {
            for dst in 0..self.k.terminals {
                let dst_router = self.terms.router[dst as usize];
                let mut st = RouteState::default();
                table.push(match self.routing.next_hop(r, dst_router, &mut st) {
                    Ok(Some(c)) => pack(c.port as u32, c.vc_lo, c.vc_hi),
                    Ok(None) => self.ejection_hop(dst),
                    // left to `route_head`, which reports it when a packet needs this hop
                    Err(_) => return,
                });
            }
        }
        self.route_table = table;
    }

    /// The source-adaptive decision of packet `id` at its injection router `r` (MIN and DOR
    /// decide nothing: the packet keeps the default header state it was generated with).
    #[inline(never)]
    fn source_decision(&mut self, r: u32, id: u32) {
        // (the packet's cold record only when the algorithm reads its injection port)
        let source_port = if self.routing.reads_source_port() {
            let src = self.eng.pkts.pkt(id).src;
            self.split_gp(self.terms.gp[src as usize]).1
        } else {
            0
        };
        let p = self.eng.pkts.link_mut(id);
        // the routing's state before the decision (a level, the counters' window)
        self.mech.before_decision(r, self.now, &mut p.st);
        let dst_router = self.terms.router[p.dst as usize];
        let view = View {
            radix: self.k.radix,
            vcs: self.k.vcs,
            port: &self.port,
            vout: &self.vout,
            credit_cap_of: self.credit_cap_of,
            pkt_phits: self.k.pkt_phits,
            pb: self.mech.pb(),
            counters: self.mech.counters(),
            now: self.now,
            source_port,
            fc: &self.fc,
            out_cap: self.out_cap,
            qcn: self.mech.qcn_switch(),
        };
        self.routing.at_injection(
            r,
            dst_router,
            &mut p.st,
            &view,
            &mut self.rng_router[r as usize],
        );
    }
}
