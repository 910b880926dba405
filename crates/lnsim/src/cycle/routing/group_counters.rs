//! Per-router traffic counters by destination group (Dragonfly spec §3.9, §3.10.1, Eq. 6-1),
//! which TPR and LIAN read at the injection router:
//! - **inj_i**: packets with destination group i that left one of the router's injection
//!   queues (granted through the crossbar) in the last HW cycles, kept exact every cycle by a
//!   sliding window — a circular queue of the injections still inside it, each leaving the
//!   count HW cycles after it entered (the thesis's "circular queue logic", §2.4);
//! - **stor_i**: packets with destination group i stored in the router's injection queues
//!   now (counted on arrival at the router's injection input, uncounted when granted);
//! - the counter a decision reads ([`GroupCounters::value`]): `inj_i + w · stor_i` (Eq. 6-1),
//!   `inj_i` alone (w = 0, TPR) or `stor_i` alone, per [`CounterMode`].
//!
//! Counters are in packets per window summed over the router's injection ports (spec §3.10.1
//! units note, A6) and indexed by the destination group's offset from the router's group,
//! `(g_dst − g_src) mod groups`: offset `o ≤ h²` is the thesis's G_{+o}, offset `o > h²` is
//! G_{−(groups − o)}, and offset 0 counts the router's own group (intra-group packets). The
//! state is flat arrays indexed by router; nothing is allocated per packet.

use crate::config::LianCounters;

/// What a counter reads (spec §3.10.1): the thesis's counter models.
pub type CounterMode = LianCounters;

/// The parameters of the counters an algorithm reads (spec §3.9, §3.10.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CounterParams {
    /// History window HW of inj_i in cycles.
    pub window: u64,
    /// The counter model.
    pub mode: CounterMode,
    /// w of Eq. 6-1 (read with [`CounterMode::Extended`]).
    pub w: f64,
}

/// The counters of every router of a Dragonfly (spec §3.9, §3.10.1).
#[derive(Debug, Clone)]
pub struct GroupCounters {
    p: CounterParams,
    /// Routers per group and groups (offsets are taken between router groups).
    a: u32,
    groups: u32,
    /// Per `(router, offset)`: inj_i and stor_i.
    inj: Vec<u32>,
    stor: Vec<u32>,
    /// Per router, a circular queue of `cap` entries `(cycle, offset)` of the injections in
    /// the window: `ring[r · cap ..]`, its oldest entry at `head[r]`, `len[r]` entries. The
    /// cycle is kept modulo 2³² (ages by wrapping subtraction): exact unless a router goes
    /// 2³² cycles without injecting or deciding while holding entries.
    ring: Vec<(u32, u32)>,
    head: Vec<u32>,
    len: Vec<u32>,
    cap: u32,
}

impl GroupCounters {
    /// Counters for `routers` routers in groups of `a` (`groups` groups); at most
    /// `max_in_window` injections of one router fit in a window (its injection ports × (HW /
    /// the shortest gap between two grants at one input + 1), which the caller computes).
    pub fn new(routers: u32, a: u32, groups: u32, max_in_window: u32, p: CounterParams) -> Self {
        let cap = max_in_window.max(1).next_power_of_two();
        let n = routers as usize * groups as usize;
        GroupCounters {
            p,
            a,
            groups,
            inj: vec![0; n],
            stor: vec![0; n],
            ring: vec![(0, 0); routers as usize * cap as usize],
            head: vec![0; routers as usize],
            len: vec![0; routers as usize],
            cap,
        }
    }

    /// The parameters.
    pub fn params(&self) -> &CounterParams {
        &self.p
    }

    /// Groups of the network (offsets are `0 .. groups`).
    pub fn groups(&self) -> u32 {
        self.groups
    }

    /// The offset of router `dst`'s group from router `r`'s group.
    #[inline]
    pub fn offset(&self, r: u32, dst: u32) -> u32 {
        let (gs, gd) = (r / self.a, dst / self.a);
        (gd + self.groups - gs) % self.groups
    }

    /// A packet for router `dst` arrived in one of router `r`'s injection queues.
    #[inline]
    pub fn stored(&mut self, r: u32, dst: u32) {
        let i = (r * self.groups + self.offset(r, dst)) as usize;
        self.stor[i] += 1;
    }

    /// A packet for router `dst` left one of router `r`'s injection queues at cycle `now`:
    /// it is no longer stored and counts as injected for the next HW cycles.
    #[inline]
    pub fn injected(&mut self, r: u32, dst: u32, now: u64) {
        self.expire(r, now);
        let o = self.offset(r, dst);
        let i = (r * self.groups + o) as usize;
        self.stor[i] -= 1;
        self.inj[i] += 1;
        let ri = r as usize;
        if self.len[ri] == self.cap {
            // a full ring: the bound given to `new` was too small; the oldest entry leaves
            // early rather than being overwritten uncounted
            debug_assert!(false, "group counter window of router {r} overflows");
            self.pop(r);
        }
        let slot = (self.head[ri] + self.len[ri]) & (self.cap - 1);
        self.ring[(r * self.cap + slot) as usize] = (now as u32, o);
        self.len[ri] += 1;
    }

    /// Drops from router `r`'s window the injections older than HW cycles at cycle `now`
    /// (an injection at cycle t counts in cycles t ..= t + HW − 1).
    #[inline]
    pub fn expire(&mut self, r: u32, now: u64) {
        let ri = r as usize;
        let w = self.p.window;
        while self.len[ri] > 0 {
            let (t, _) = self.ring[(r * self.cap + self.head[ri]) as usize];
            if ((now as u32).wrapping_sub(t) as u64) < w {
                break;
            }
            self.pop(r);
        }
    }

    /// Removes router `r`'s oldest injection from its window.
    #[inline]
    fn pop(&mut self, r: u32) {
        let ri = r as usize;
        let (_, o) = self.ring[(r * self.cap + self.head[ri]) as usize];
        self.inj[(r * self.groups + o) as usize] -= 1;
        self.head[ri] = (self.head[ri] + 1) & (self.cap - 1);
        self.len[ri] -= 1;
    }

    /// inj_i of router `r` for offset `o` (as last expired: call [`GroupCounters::expire`]
    /// first).
    #[inline]
    pub fn inj(&self, r: u32, o: u32) -> u32 {
        self.inj[(r * self.groups + o) as usize]
    }

    /// stor_i of router `r` for offset `o`.
    #[inline]
    pub fn stor(&self, r: u32, o: u32) -> u32 {
        self.stor[(r * self.groups + o) as usize]
    }

    /// The counter of router `r` for offset `o` that decisions read (Eq. 6-1 or the mode's
    /// part of it).
    #[inline]
    pub fn value(&self, r: u32, o: u32) -> f64 {
        let i = (r * self.groups + o) as usize;
        match self.p.mode {
            CounterMode::Extended => self.inj[i] as f64 + self.p.w * self.stor[i] as f64,
            CounterMode::Injected => self.inj[i] as f64,
            CounterMode::Stored => self.stor[i] as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counters(mode: CounterMode, w: f64) -> GroupCounters {
        // 10 routers in 5 groups of 2; at most 4 injections of a router per window
        GroupCounters::new(
            10,
            2,
            5,
            4,
            CounterParams {
                window: 100,
                mode,
                w,
            },
        )
    }

    #[test]
    fn offsets_are_taken_between_groups() {
        let c = counters(CounterMode::Extended, 0.1);
        assert_eq!(c.offset(0, 1), 0);
        assert_eq!(c.offset(0, 2), 1);
        assert_eq!(c.offset(3, 0), 4); // group 1 to group 0: −1
        assert_eq!(c.offset(9, 0), 1); // group 4 to group 0: +1
    }

    /// Eq. 6-1 on scripted arrivals and injections, with the window sliding.
    #[test]
    fn eq_6_1_on_scripted_arrivals_and_a_sliding_window() {
        let mut c = counters(CounterMode::Extended, 0.1);
        // router 0 (group 0): three packets for group 1 (router 2) and one for group 2
        for _ in 0..3 {
            c.stored(0, 2);
        }
        c.stored(0, 5);
        assert_eq!((c.inj(0, 1), c.stor(0, 1)), (0, 3));
        assert!((c.value(0, 1) - 0.3).abs() < 1e-12);
        // two of them leave at cycles 10 and 50, the one for group 2 at 60
        c.injected(0, 3, 10);
        c.injected(0, 2, 50);
        c.injected(0, 4, 60);
        assert_eq!((c.inj(0, 1), c.stor(0, 1)), (2, 1));
        assert!((c.value(0, 1) - 2.1).abs() < 1e-12);
        assert!((c.value(0, 2) - 1.0).abs() < 1e-12);
        // other routers are untouched
        assert_eq!(c.value(1, 1), 0.0);
        // the injection at 10 counts up to cycle 109, not at 110
        c.expire(0, 109);
        assert_eq!(c.inj(0, 1), 2);
        c.expire(0, 110);
        assert_eq!(c.inj(0, 1), 1);
        c.expire(0, 149);
        assert_eq!((c.inj(0, 1), c.inj(0, 2)), (1, 1));
        c.expire(0, 150);
        assert_eq!((c.inj(0, 1), c.inj(0, 2)), (0, 1));
        c.expire(0, 160);
        assert_eq!((c.inj(0, 1), c.inj(0, 2)), (0, 0));
        assert!(
            (c.value(0, 1) - 0.1).abs() < 1e-12,
            "one packet still stored"
        );
    }

    /// The counter models read the same state differently; w = 1 weighs stored packets fully.
    #[test]
    fn the_counter_models() {
        for (mode, w, want) in [
            (CounterMode::Extended, 0.1, 1.2),
            (CounterMode::Extended, 1.0, 3.0),
            (CounterMode::Extended, 0.0, 1.0),
            (CounterMode::Injected, 0.1, 1.0),
            (CounterMode::Stored, 0.1, 2.0),
        ] {
            let mut c = counters(mode, w);
            for _ in 0..3 {
                c.stored(4, 8);
            }
            c.injected(4, 9, 7);
            assert!((c.value(4, 2) - want).abs() < 1e-12, "{mode:?} w = {w}");
        }
    }

    /// The circular queue wraps: many injections, each leaving the window on time.
    #[test]
    fn the_window_wraps_around_its_ring() {
        let mut c = counters(CounterMode::Injected, 0.0);
        // one injection every 30 cycles: at most 4 in a 100-cycle window (the ring holds 4)
        for k in 0..50u64 {
            c.stored(2, 6);
            c.injected(2, 6, 30 * k);
            let t = 30 * k;
            // injections at t, t − 30, t − 60, t − 90 are inside (t − 120 is not)
            assert_eq!(c.inj(2, 2), (k + 1).min(4) as u32, "cycle {t}");
        }
        c.expire(2, 30 * 49 + 100);
        assert_eq!(c.inj(2, 2), 0);
    }
}
