//! A timing wheel (calendar queue) with an overflow heap.
//!
//! Time is cut into buckets of `2^shift` ps; the wheel holds the next `N` buckets. Scheduling
//! into the wheel is a `Vec::push` (O(1)); events of the bucket being processed sit in a small
//! binary heap so that equal and close times come out in `(time, sequence)` order, which makes
//! runs bit-for-bit reproducible. Events beyond the wheel's horizon wait in an overflow heap and
//! move into the wheel as it turns. Empty stretches are skipped by jumping to the next event.

use super::Ps;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

#[derive(Clone, Copy)]
struct Entry<E> {
    time: Ps,
    seq: u64,
    ev: E,
}
impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    // reversed: BinaryHeap is a max-heap, we want the earliest (time, seq) first
    fn cmp(&self, o: &Self) -> Ordering {
        (o.time, o.seq).cmp(&(self.time, self.seq))
    }
}

/// A time-ordered event queue; ties are broken by insertion order.
pub struct EventQueue<E> {
    shift: u32,
    mask: u64,
    cur: u64,
    buckets: Vec<Vec<Entry<E>>>,
    /// One bit per bucket: set while the bucket holds events.
    occupied: Vec<u64>,
    /// One bit per word of `occupied`: set while that word is non-zero.
    summary: Vec<u64>,
    in_wheel: usize,
    current: BinaryHeap<Entry<E>>,
    overflow: BinaryHeap<Entry<E>>,
    seq: u64,
    now: Ps,
}

impl<E: Copy> EventQueue<E> {
    /// A wheel of `2^log_buckets` buckets of `2^shift` ps each.
    pub fn new(shift: u32, log_buckets: u32) -> Self {
        let n = 1usize << log_buckets;
        let words = n.div_ceil(64);
        EventQueue {
            shift,
            mask: n as u64 - 1,
            cur: 0,
            buckets: (0..n).map(|_| Vec::new()).collect(),
            occupied: vec![0; words],
            summary: vec![0; words.div_ceil(64)],
            in_wheel: 0,
            current: BinaryHeap::new(),
            overflow: BinaryHeap::new(),
            seq: 0,
            now: 0,
        }
    }

    /// Time of the last event taken out.
    #[inline]
    pub fn now(&self) -> Ps {
        self.now
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.in_wheel + self.current.len() + self.overflow.len()
    }

    /// True when no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Schedules `ev` at `time` (never before the current time).
    #[inline]
    pub fn push(&mut self, time: Ps, ev: E) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let e = Entry {
            time,
            seq: self.seq,
            ev,
        };
        self.seq += 1;
        let b = time >> self.shift;
        if b <= self.cur {
            self.current.push(e);
        } else if b - self.cur <= self.mask {
            self.to_wheel(b, e);
        } else {
            self.overflow.push(e);
        }
    }

    #[inline]
    fn to_wheel(&mut self, b: u64, e: Entry<E>) {
        let idx = (b & self.mask) as usize;
        let v = &mut self.buckets[idx];
        if v.is_empty() {
            self.occupied[idx >> 6] |= 1 << (idx & 63);
            self.summary[idx >> 12] |= 1 << ((idx >> 6) & 63);
        }
        v.push(e);
        self.in_wheel += 1;
    }

    /// Takes the earliest event out.
    #[inline]
    pub fn pop(&mut self) -> Option<(Ps, E)> {
        loop {
            if let Some(e) = self.current.pop() {
                self.now = e.time;
                return Some((e.time, e.ev));
            }
            self.advance()?;
        }
    }

    /// First occupied bucket index `>= from` (no wrap-around).
    #[inline]
    fn occupied_from(&self, from: usize) -> Option<usize> {
        let w = from >> 6;
        let bits = *self.occupied.get(w)? & (!0u64 << (from & 63));
        if bits != 0 {
            return Some((w << 6) | bits.trailing_zeros() as usize);
        }
        let w = w + 1;
        let mut s = w >> 6;
        let mut sb = *self.summary.get(s)? & (!0u64 << (w & 63));
        loop {
            if sb != 0 {
                let ww = (s << 6) | sb.trailing_zeros() as usize;
                return Some((ww << 6) | self.occupied[ww].trailing_zeros() as usize);
            }
            s += 1;
            sb = *self.summary.get(s)?;
        }
    }

    /// Moves to the next bucket holding events (skipping empty ones), pulls overflow events that
    /// are now within the horizon, and fills `current` with the bucket's events. Returns `None`
    /// when no event is pending.
    #[cold]
    fn advance(&mut self) -> Option<()> {
        let next_wheel = if self.in_wheel > 0 {
            let cs = (self.cur & self.mask) as usize;
            let start = (cs + 1) & self.mask as usize;
            let slot = self
                .occupied_from(start)
                .or_else(|| self.occupied_from(0))
                .expect("occupied bucket");
            let delta = (slot as u64).wrapping_sub(cs as u64) & self.mask;
            self.cur + delta
        } else {
            u64::MAX
        };
        let next_over = self
            .overflow
            .peek()
            .map_or(u64::MAX, |e| e.time >> self.shift);
        let next = next_wheel.min(next_over);
        if next == u64::MAX {
            return None;
        }
        self.cur = next;
        let horizon = self.cur + self.mask;
        while let Some(top) = self.overflow.peek() {
            let b = top.time >> self.shift;
            if b > horizon {
                break;
            }
            let e = self.overflow.pop().expect("peeked");
            if b <= self.cur {
                self.current.push(e);
            } else {
                self.to_wheel(b, e);
            }
        }
        let idx = (self.cur & self.mask) as usize;
        if !self.buckets[idx].is_empty() {
            self.occupied[idx >> 6] &= !(1 << (idx & 63));
            if self.occupied[idx >> 6] == 0 {
                self.summary[idx >> 12] &= !(1 << ((idx >> 6) & 63));
            }
            let mut v = std::mem::take(&mut self.buckets[idx]);
            self.in_wheel -= v.len();
            for e in v.drain(..) {
                self.current.push(e);
            }
            self.buckets[idx] = v; // keep the allocation
        }
        Some(())
    }

    /// Visits every pending event (order unspecified); used by end-of-run conservation checks.
    pub fn for_each(&self, mut f: impl FnMut(Ps, &E)) {
        for e in self.current.iter().chain(self.overflow.iter()) {
            f(e.time, &e.ev);
        }
        for b in &self.buckets {
            for e in b {
                f(e.time, &e.ev);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::new(4, 3); // tiny wheel: 8 buckets of 16 ps, exercises overflow
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut reference = Vec::new();
        let mut now = 0;
        let mut id = 0u32;
        for round in 0..2000 {
            for _ in 0..rng.random_range(0..4) {
                let t = now + rng.random_range(0..(if round % 7 == 0 { 10_000 } else { 300 }));
                q.push(t, id);
                reference.push((t, id));
                id += 1;
            }
            if let Some((t, e)) = q.pop() {
                assert!(t >= now);
                now = t;
                reference.sort();
                let pos = reference.iter().position(|&(rt, _)| rt == t).unwrap();
                // among equal times, the first inserted comes first
                let first = reference
                    .iter()
                    .filter(|&&(rt, _)| rt == t)
                    .map(|&(_, i)| i)
                    .min()
                    .unwrap();
                assert_eq!(e, first);
                reference.remove(reference.iter().position(|&x| x == (t, e)).unwrap());
                let _ = pos;
            }
        }
        while let Some((t, e)) = q.pop() {
            reference.sort();
            assert_eq!(reference.remove(0), (t, e));
        }
        assert!(reference.is_empty() && q.is_empty());
    }
}
