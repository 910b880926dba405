//! The network's credit accounting over the chosen buffer organisation: which credit counter
//! a packet holds and where the output keeps it ([`CreditKeeping`]), the look-ahead to the
//! next switch's queue when credits are kept per queue, and the occupancy of input buffers
//! with its lossless check (credit flow control must make an overflow impossible).
//!
//! Kept apart from the organisation's types (`mod.rs`), which the network's definition
//! imports, so that no circle of files forms.

use super::shared_pool::SharedPool;
use super::{CreditKeeping, QueueQuery};
use crate::credit::kind::{may, AnySwitch, SwitchKind};
use crate::credit::packet::{CBIT, NO_LOOKAHEAD};
use crate::credit::routing::tables::NO_PORT;
use crate::credit::Net;

impl Net {
    /// Index in `credits` of counter `counter` held by output `og`.
    #[inline(always)]
    pub(crate) fn credit_slot(&self, og: u32, counter: u16) -> usize {
        self.credit_slot_k::<AnySwitch>(og, counter)
    }

    /// [`Net::credit_slot`] on the hot path's copy for kind `K` (`credit/kind.rs`).
    #[inline(always)]
    pub(crate) fn credit_slot_k<K: SwitchKind>(&self, og: u32, counter: u16) -> usize {
        if K::SHARED_POOL == Some(true) {
            return SharedPool::slot(og, counter, self.vls);
        }
        match &self.sw.credit_keeping {
            CreditKeeping::SharedPool(_) => SharedPool::slot(og, counter, self.vls),
            CreditKeeping::Partitioned(p) => p.out_slot(og, counter),
        }
    }

    /// Index in `credits` of counter `counter` of the link into input `g`, held by the output
    /// at its other end: `credit_slot(peer[g], counter)`. With credits per queue the input's
    /// own slot is that index (an output's slots are its peer input's), which spares the
    /// dependent read of `peer` (the flow-control path and its prefetch).
    #[inline(always)]
    pub(crate) fn upstream_credit_slot(&self, g: u32, counter: u16) -> usize {
        let slot = match &self.sw.credit_keeping {
            CreditKeeping::SharedPool(_) => {
                SharedPool::slot(self.links.peer[g as usize], counter, self.vls)
            }
            CreditKeeping::Partitioned(p) => p.in_slot(g, counter),
        };
        debug_assert_eq!(slot, self.credit_slot(self.links.peer[g as usize], counter));
        slot
    }

    /// The VL of credit counter `counter` (`K`: the hot path's copy, `credit/kind.rs`).
    #[inline(always)]
    pub(crate) fn counter_vl_k<K: SwitchKind>(&self, counter: u16) -> u8 {
        if K::SHARED_POOL == Some(true) {
            return counter as u8;
        }
        match &self.sw.credit_keeping {
            CreditKeeping::SharedPool(_) => counter as u8,
            CreditKeeping::Partitioned(_) => super::class_and_vl(counter, self.vls).1 as u8,
        }
    }

    /// The counter a packet in queue `qid` (a global queue index) of input `ig` on `vl` holds
    /// (`K`: the hot path's copy, `credit/kind.rs`).
    #[inline(always)]
    pub(crate) fn input_counter_k<K: SwitchKind>(&self, ig: u32, qid: usize, vl: u8) -> u16 {
        if K::SHARED_POOL == Some(true) {
            return vl as u16;
        }
        match &self.sw.credit_keeping {
            CreditKeeping::SharedPool(_) => vl as u16,
            CreditKeeping::Partitioned(_) => {
                (qid as u32 - self.sw.input[ig as usize].queue_base) as u16
            }
        }
    }

    /// The credit counter a packet for HCA `dst` on `vl` with packet flags `flags` (the
    /// congestion bit [`CBIT`]) will hold in the buffer output `og` drives: its VL with a
    /// shared pool; with partitioned credits the queue it will join there (look-ahead
    /// routing: the next switch's forwarding table gives the output; spec B.2).
    /// `src` is the packet's source HCA (S-mod-k routes by it).
    #[inline(always)]
    pub(crate) fn downstream_counter(
        &self,
        og: u32,
        src: u32,
        dst: u32,
        path: u8,
        vl: u8,
        flags: u8,
    ) -> u16 {
        match &self.sw.credit_keeping {
            CreditKeeping::SharedPool(_) => vl as u16,
            CreditKeeping::Partitioned(_) => {
                self.lookahead_queue(og, src, dst, path, vl, flags & CBIT != 0)
            }
        }
    }

    /// Index in `credits` of what a packet for `dst` on `vl` without the congestion bit needs
    /// at output `og` (tests).
    #[cfg(test)]
    pub(crate) fn credit_slot_for(&self, og: u32, src: u32, dst: u32, vl: u8) -> usize {
        self.credit_slot_for_flags(og, src, dst, 0, vl, 0)
    }

    /// Index in `credits` of what a packet for `dst` on `vl` with packet flags `flags` needs
    /// at output `og`: with credits per queue, the DDBBM congestion bit [`CBIT`] selects the
    /// downstream dynamic queue (spec B.3.4). `src` is the packet's source HCA.
    #[inline(always)]
    pub(crate) fn credit_slot_for_flags(
        &self,
        og: u32,
        src: u32,
        dst: u32,
        path: u8,
        vl: u8,
        flags: u8,
    ) -> usize {
        self.credit_slot_for_flags_k::<AnySwitch>(og, src, dst, path, vl, flags)
    }

    /// [`Net::credit_slot_for_flags`] on the hot path's copy for kind `K` (`credit/kind.rs`).
    #[inline(always)]
    pub(crate) fn credit_slot_for_flags_k<K: SwitchKind>(
        &self,
        og: u32,
        src: u32,
        dst: u32,
        path: u8,
        vl: u8,
        flags: u8,
    ) -> usize {
        if K::SHARED_POOL == Some(true) {
            return SharedPool::slot(og, vl as u16, self.vls);
        }
        match &self.sw.credit_keeping {
            CreditKeeping::SharedPool(_) => SharedPool::slot(og, vl as u16, self.vls),
            CreditKeeping::Partitioned(_) => {
                self.partitioned_slot_for::<K>(og, src, dst, path, vl, flags & CBIT != 0)
            }
        }
    }

    /// [`Net::credit_slot_for_flags`] with credits kept per queue.
    #[cold]
    #[inline(never)]
    fn partitioned_slot_for<K: SwitchKind>(
        &self,
        og: u32,
        src: u32,
        dst: u32,
        path: u8,
        vl: u8,
        cbit: bool,
    ) -> usize {
        let CreditKeeping::Partitioned(p) = &self.sw.credit_keeping else {
            unreachable!("credits kept per queue")
        };
        p.out_slot(og, self.lookahead::<K>(og, src, dst, path, vl, cbit).0)
    }

    /// The queue of the input driven by `og` that a packet from `src` for `dst` on `vl`
    /// (congestion bit `cbit`) will join (its VL at an HCA).
    #[inline(never)]
    pub(crate) fn lookahead_queue(
        &self,
        og: u32,
        src: u32,
        dst: u32,
        path: u8,
        vl: u8,
        cbit: bool,
    ) -> u16 {
        self.lookahead::<AnySwitch>(og, src, dst, path, vl, cbit).0
    }

    /// [`Net::downstream_counter`], and the output the next switch's forwarding table gives
    /// the packet there when it was read ([`NO_LOOKAHEAD`] otherwise: a shared pool, or the
    /// next node is an HCA).
    #[inline(always)]
    pub(crate) fn downstream_lookahead<K: SwitchKind>(
        &self,
        og: u32,
        src: u32,
        dst: u32,
        path: u8,
        vl: u8,
        flags: u8,
    ) -> (u16, u16) {
        if K::SHARED_POOL == Some(true) {
            return (vl as u16, NO_LOOKAHEAD);
        }
        match &self.sw.credit_keeping {
            CreditKeeping::SharedPool(_) => (vl as u16, NO_LOOKAHEAD),
            CreditKeeping::Partitioned(_) => {
                self.lookahead::<K>(og, src, dst, path, vl, flags & CBIT != 0)
            }
        }
    }

    /// [`Net::lookahead_queue`] and the output port the next switch's table gives
    /// ([`NO_LOOKAHEAD`] when the next node is an HCA; the table's [`NO_PORT`] when it has no
    /// route); with S-mod-k the source's up port there ([`Net::route_out`]).
    #[inline(never)]
    fn lookahead<K: SwitchKind>(
        &self,
        og: u32,
        src: u32,
        dst: u32,
        path: u8,
        vl: u8,
        cbit: bool,
    ) -> (u16, u16) {
        let down = self.links.peer[og as usize];
        if !self.links.is_switch[down as usize] {
            return (vl as u16, NO_LOOKAHEAD);
        }
        let sw = self.links.node_of[down as usize];
        let out = self.route_out::<K>(sw, src, dst, path);
        if out == NO_PORT {
            return (vl as u16, NO_PORT); // the arrival reports the missing route
        }
        let q = QueueQuery {
            input: down,
            dst,
            out,
            vl,
            cbit,
        };
        (self.sw.queue_scheme.queue_of(&q, self.vls) as u16, out)
    }

    /// The output switch `sw` gives a packet from HCA `src` to HCA `dst` (at the DLID its
    /// `path` picks with LMC > 0: [`crate::credit::routing::ForwardingTables::dlid`]): its forwarding
    /// table's entry, or with S-mod-k (`routing.dmodk_key = "source"`, drb spec B.6) the
    /// source's up port where the entry goes up (`dmodk::SourceUpPorts::port`). A kind
    /// without per-pair routes (`K::MULTIPATH` false) reads the table only.
    #[inline(always)]
    pub(crate) fn route_out<K: SwitchKind>(&self, sw: u32, src: u32, dst: u32, path: u8) -> u16 {
        let port = self
            .routes
            .lft
            .out_port(sw, self.routes.lft.dlid(dst, path));
        if may(K::MULTIPATH) {
            if let Some(su) = &self.routes.source_up {
                return su.port(sw, src, port);
            }
        }
        port
    }

    /// A packet of `credits` on `vl` entered the buffer of input `g`: takes the credits the
    /// upstream reserved for it from the VL's space. Returns the VL's new occupancy, or None
    /// (and records the fault) if the buffer would overflow — which credit flow control must
    /// make impossible.
    #[inline(always)]
    pub(crate) fn occupy(&mut self, g: u32, vl: u8, credits: u32) -> Option<u32> {
        let iv = g as usize * self.vls + vl as usize;
        self.sw.in_used[iv] += credits;
        if self.sw.in_used[iv] > self.sw.in_cap[iv] {
            let name = self.port_name(g);
            self.fail(format!(
                "lossless violated: input buffer {name} VL {vl} holds {} credits, capacity {}",
                self.sw.in_used[iv], self.sw.in_cap[iv]
            ));
            return None;
        }
        Some(self.sw.in_used[iv])
    }

    /// The packet that [`Net::occupy`] placed at input `g` joined counter `counter`: with
    /// partitioned credits it takes them from the queue's share (a no-op with a shared pool).
    /// Returns false (and records the fault) if the share would overflow.
    #[inline(always)]
    pub(crate) fn occupy_queue<K: SwitchKind>(
        &mut self,
        g: u32,
        counter: u16,
        credits: u32,
    ) -> bool {
        if K::SHARED_POOL == Some(true) {
            return true;
        }
        match &self.sw.credit_keeping {
            CreditKeeping::SharedPool(_) => true,
            CreditKeeping::Partitioned(_) => self.occupy_share(g, counter, credits),
        }
    }

    /// [`Net::occupy_queue`] with credits kept per queue.
    #[cold]
    #[inline(never)]
    fn occupy_share(&mut self, g: u32, counter: u16, credits: u32) -> bool {
        let CreditKeeping::Partitioned(p) = &mut self.sw.credit_keeping else {
            unreachable!("credits kept per queue")
        };
        match p.occupy(g, counter, credits) {
            Ok(_) => true,
            Err((used, cap)) => {
                let name = self.port_name(g);
                self.fail(format!(
                    "lossless violated: queue {counter} of input buffer {name} holds {used} credits, its share is {cap}"
                ));
                false
            }
        }
    }

    /// A packet of `credits` on `vl`, counter `counter`, left input `g`. Returns the VL's new
    /// occupancy.
    #[inline(always)]
    pub(crate) fn release_input<K: SwitchKind>(
        &mut self,
        g: u32,
        vl: u8,
        counter: u16,
        credits: u32,
    ) -> u32 {
        let iv = g as usize * self.vls + vl as usize;
        self.sw.in_used[iv] -= credits;
        if K::SHARED_POOL != Some(true) {
            if let CreditKeeping::Partitioned(p) = &mut self.sw.credit_keeping {
                p.release(g, counter, credits);
            }
        }
        self.sw.in_used[iv]
    }
}
