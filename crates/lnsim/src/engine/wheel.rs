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
        EventQueue {
            shift,
            mask: n as u64 - 1,
            cur: 0,
            buckets: (0..n).map(|_| Vec::new()).collect(),
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
            self.buckets[(b & self.mask) as usize].push(e);
            self.in_wheel += 1;
        } else {
            self.overflow.push(e);
        }
    }

    /// Takes the earliest event out.
    #[inline]
    pub fn pop(&mut self) -> Option<(Ps, E)> {
        loop {
            if let Some(e) = self.current.pop() {
                self.now = e.time;
                return Some((e.time, e.ev));
            }
            if self.in_wheel == 0 {
                // jump over empty time straight to the next overflow event's bucket
                let next = self.overflow.peek()?.time >> self.shift;
                self.cur = next.max(self.cur + 1) - 1;
            }
            self.advance();
        }
    }

    fn advance(&mut self) {
        self.cur += 1;
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
                self.buckets[(b & self.mask) as usize].push(e);
                self.in_wheel += 1;
            }
        }
        let idx = (self.cur & self.mask) as usize;
        if !self.buckets[idx].is_empty() {
            let mut v = std::mem::take(&mut self.buckets[idx]);
            self.in_wheel -= v.len();
            for e in v.drain(..) {
                self.current.push(e);
            }
            self.buckets[idx] = v; // keep the allocation
        }
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
