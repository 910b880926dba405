//! The credit-level wing's event queue: a timing wheel (calendar queue) with an overflow heap
//! (the cycle-level wing steps through a ring of per-cycle slots instead, `cycle/calendar.rs`).
//!
//! Time is cut into buckets of `2^shift` ps; the wheel holds the next `N` buckets. Scheduling
//! into the wheel is a `Vec::push` (O(1)); a bitmap of non-empty buckets lets the wheel jump
//! over empty stretches. Events come out in `(time, sequence)` order, which makes runs
//! bit-for-bit reproducible: a bucket's events are kept in scheduling order, so when the wheel
//! reaches a bucket a stable sort by time orders them, and an event scheduled into the bucket
//! being processed is inserted after every pending event of the same time. Events beyond the
//! wheel's horizon wait in an overflow heap and move into the wheel as it turns (before any
//! event is scheduled directly into their bucket, which keeps the scheduling order).
//!
//! An event scheduled for the current time itself comes after every pending one of that time.
//! By default it is inserted into the bucket being processed, after them; a queue made for
//! many such events ([`EventQueue::with_now_list`]: in a network of flow-control packets every
//! packet-hop schedules one) keeps them in a first-in first-out list of their own instead,
//! served once the bucket's events of the current time are out, with no search or shift of
//! the bucket. Its pop checks that list first ([`EventQueue::pop`]); a queue without the list
//! may be popped without the check ([`EventQueue::pop_without_now_list`]).

use crate::config::Ps;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// An event in the overflow heap.
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

/// An event in a wheel bucket (its sequence is implied by its position): its time's low
/// `shift` bits only, the bucket giving the rest, so that a slot of the credit-level wing's
/// 12-byte event takes 16 bytes instead of 24 (the buckets are written at scheduling, read and
/// sorted when the wheel reaches them: a third less memory traffic, and a third less memory
/// where every bucket keeps the largest allocation it took over).
#[derive(Clone, Copy)]
struct Slot<E> {
    /// `time & (2^shift − 1)`.
    lo: u32,
    ev: E,
}

// a 12-byte event (the credit-level wing's `Ev`, 4-byte aligned) in 16 bytes
const _: () = assert!(std::mem::size_of::<Slot<[u32; 3]>>() == 16);

/// A time-ordered event queue; ties are broken by insertion order.
pub struct EventQueue<E> {
    shift: u32,
    mask: u64,
    /// `2^shift − 1`: a time's bits kept in its slot.
    lo_mask: u64,
    /// Bucket being processed.
    cur: u64,
    /// Its first time (`cur << shift`), which a slot's low bits complete.
    cur_time: Ps,
    /// Events of buckets `cur + 1 ..= cur + mask`, each in scheduling order.
    buckets: Vec<Vec<Slot<E>>>,
    /// One bit per bucket: set while the bucket holds events.
    occupied: Vec<u64>,
    /// One bit per word of `occupied`: set while that word is non-zero.
    summary: Vec<u64>,
    in_wheel: usize,
    /// Events of bucket `cur`, sorted by time (ties in scheduling order); `current[pos..]` pend.
    current: Vec<Slot<E>>,
    pos: usize,
    /// Events for the current time are kept in `now_q` ([`EventQueue::with_now_list`]).
    now_list: bool,
    /// With `now_list`: events scheduled for the current time `now` while it was the current
    /// time, in scheduling order (`now_q[now_pos..]` pend; empty when none does). They come
    /// after every event of `current` of time `now` (scheduled earlier) and before any later
    /// one.
    now_q: Vec<E>,
    now_pos: usize,
    /// Scratch space of the radix sort of a large bucket ([`sort_bucket`]).
    scratch: Vec<Slot<E>>,
    overflow: BinaryHeap<Entry<E>>,
    /// Events put into the overflow heap so far: their order among themselves at equal times
    /// (the wheel's buckets keep theirs by position).
    seq: u64,
    now: Ps,
}

impl<E: Copy> EventQueue<E> {
    /// A wheel of `2^log_buckets` buckets of `2^shift` ps each (`shift` at most 32: a slot
    /// keeps the time's low `shift` bits in 32).
    pub fn new(shift: u32, log_buckets: u32) -> Self {
        assert!(shift <= 32, "wheel buckets of at most 2^32 ps");
        let n = 1usize << log_buckets;
        let words = n.div_ceil(64);
        EventQueue {
            shift,
            mask: n as u64 - 1,
            lo_mask: (1u64 << shift) - 1,
            cur: 0,
            cur_time: 0,
            buckets: (0..n).map(|_| Vec::new()).collect(),
            occupied: vec![0; words],
            summary: vec![0; words.div_ceil(64)],
            in_wheel: 0,
            current: Vec::new(),
            pos: 0,
            now_list: false,
            now_q: Vec::new(),
            now_pos: 0,
            scratch: Vec::new(),
            overflow: BinaryHeap::new(),
            seq: 0,
            now: 0,
        }
    }

    /// The same queue, keeping the events scheduled for the current time in a list of their
    /// own (see the module's text): for runs that schedule many. Made before any event is.
    pub fn with_now_list(mut self) -> Self {
        debug_assert!(self.is_empty());
        self.now_list = true;
        self
    }

    /// Time of the last event taken out.
    #[inline]
    pub fn now(&self) -> Ps {
        self.now
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.in_wheel
            + (self.current.len() - self.pos)
            + (self.now_q.len() - self.now_pos)
            + self.overflow.len()
    }

    /// True when no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Schedules `ev` at `time` (never before the current time).
    ///
    /// Inlined into every caller: the common case, an event for a later bucket within the
    /// horizon, is an append to that bucket; the rest (`EventQueue::push_near_or_far`) is
    /// out of line.
    #[inline(always)]
    pub fn push(&mut self, time: Ps, ev: E) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let b = time >> self.shift;
        if b > self.cur && b - self.cur <= self.mask {
            self.insert_bucket(
                b,
                Slot {
                    lo: self.lo(time),
                    ev,
                },
            );
        } else {
            self.push_near_or_far(b, time, ev);
        }
    }

    /// [`EventQueue::push`] into the bucket being processed or beyond the wheel's horizon
    /// (bucket `b` of `time`).
    #[inline(never)]
    fn push_near_or_far(&mut self, b: u64, time: Ps, ev: E) {
        if self.now_list && time == self.now {
            // after every pending event of the current time, wherever it waits
            self.now_q.push(ev);
        } else if b <= self.cur {
            // (the bucket being processed: no event is scheduled before the current time)
            debug_assert_eq!(b, self.cur);
            let lo = self.lo(time);
            // after every pending event of the same (or an earlier) time
            let rest = &self.current[self.pos..];
            let at = self.pos + rest.partition_point(|s| s.lo <= lo);
            if self.pos > 0 && at - self.pos <= self.current.len() - at {
                // fewer events before the place than after it (an event for now is usually
                // due first): shift those into the slot of the event taken out last
                self.current[self.pos - 1..at].rotate_left(1);
                self.current[at - 1] = Slot { lo, ev };
                self.pos -= 1;
            } else {
                self.current.insert(at, Slot { lo, ev });
            }
        } else if b - self.cur <= self.mask {
            self.insert_bucket(
                b,
                Slot {
                    lo: self.lo(time),
                    ev,
                },
            );
        } else {
            self.overflow.push(Entry {
                time,
                seq: self.seq,
                ev,
            });
            self.seq += 1;
        }
    }

    /// The low `shift` bits of `time` (a slot's [`Slot::lo`]).
    #[inline(always)]
    fn lo(&self, time: Ps) -> u32 {
        (time & self.lo_mask) as u32
    }

    /// The time of a slot of bucket `b`.
    #[inline(always)]
    fn time_of(&self, b: u64, s: &Slot<E>) -> Ps {
        (b << self.shift) | s.lo as u64
    }

    #[inline(always)]
    fn insert_bucket(&mut self, b: u64, s: Slot<E>) {
        let idx = (b & self.mask) as usize;
        let v = &mut self.buckets[idx];
        if v.is_empty() {
            self.occupied[idx >> 6] |= 1 << (idx & 63);
            self.summary[idx >> 12] |= 1 << ((idx >> 6) & 63);
        }
        v.push(s);
        self.in_wheel += 1;
    }

    /// The event `k` places after the next one to come out, if the bucket being processed
    /// holds it (a hint for prefetching: an event scheduled meanwhile may still come first).
    #[inline(always)]
    pub fn peek_ahead(&self, k: usize) -> Option<&E> {
        self.current.get(self.pos + k).map(|s| &s.ev)
    }

    /// Takes the earliest event out.
    ///
    /// Inlined into the run loop (the common case, the next event of the current bucket, is a
    /// few instructions; measured: left to the compiler, it was called once the credit-level
    /// loop's handlers grew, +15 instructions per event on `fat_tree_648`); moving to the next
    /// bucket is out of line.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Ps, E)> {
        if !self.now_q.is_empty() {
            return Some(self.pop_at_now());
        }
        self.pop_from_buckets()
    }

    /// [`EventQueue::pop`] of a queue made without the list of events for the current time
    /// (no check of it: the copies of the credit-level loop that cannot have one save it).
    #[inline(always)]
    pub fn pop_without_now_list(&mut self) -> Option<(Ps, E)> {
        debug_assert!(!self.now_list);
        self.pop_from_buckets()
    }

    /// The next event of the bucket being processed, or of the next bucket holding events
    /// (the list of events for the current time is empty, and turning the wheel adds none).
    #[inline(always)]
    fn pop_from_buckets(&mut self) -> Option<(Ps, E)> {
        loop {
            if let Some(s) = self.current.get(self.pos) {
                self.pos += 1;
                let time = self.cur_time | s.lo as u64;
                self.now = time;
                return Some((time, s.ev));
            }
            self.advance()?;
        }
    }

    /// [`EventQueue::pop`] while events scheduled for the current time wait in `now_q`: the
    /// bucket's events of the current time first (scheduled before them), then theirs.
    #[inline(never)]
    fn pop_at_now(&mut self) -> (Ps, E) {
        if let Some(s) = self.current.get(self.pos) {
            if self.cur_time | s.lo as u64 == self.now {
                self.pos += 1;
                return (self.now, s.ev);
            }
        }
        let ev = self.now_q[self.now_pos];
        self.now_pos += 1;
        if self.now_pos == self.now_q.len() {
            self.now_q.clear();
            self.now_pos = 0;
        }
        (self.now, ev)
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
    /// are now within the horizon, and makes the bucket's events `current`. Returns `None` when
    /// no event is pending.
    #[inline(never)]
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
        self.cur_time = next << self.shift;
        // overflow events come out in (time, seq) order, and nothing was scheduled directly
        // into their buckets yet: appending keeps every bucket in scheduling order
        let horizon = self.cur + self.mask;
        while let Some(top) = self.overflow.peek() {
            let b = top.time >> self.shift;
            if b > horizon {
                break;
            }
            let e = self.overflow.pop().expect("peeked");
            self.insert_bucket(
                b,
                Slot {
                    lo: self.lo(e.time),
                    ev: e.ev,
                },
            );
        }
        let idx = (self.cur & self.mask) as usize;
        self.occupied[idx >> 6] &= !(1 << (idx & 63));
        if self.occupied[idx >> 6] == 0 {
            self.summary[idx >> 12] &= !(1 << ((idx >> 6) & 63));
        }
        // the drained bucket takes over the (consumed) current list's allocation
        self.current.clear();
        self.pos = 0;
        std::mem::swap(&mut self.current, &mut self.buckets[idx]);
        self.in_wheel -= self.current.len();
        // stable: equal times stay in scheduling order
        sort_bucket(&mut self.current, &mut self.scratch, self.shift);
        Some(())
    }

    /// Visits every pending event (order unspecified); used by end-of-run conservation checks.
    pub fn for_each(&self, mut f: impl FnMut(Ps, &E)) {
        for s in &self.current[self.pos..] {
            f(self.time_of(self.cur, s), &s.ev);
        }
        for ev in &self.now_q[self.now_pos..] {
            f(self.now, ev);
        }
        for e in self.overflow.iter() {
            f(e.time, &e.ev);
        }
        for (idx, v) in self.buckets.iter().enumerate() {
            // bucket `idx` holds bucket number `cur + 1 ..= cur + mask` whose low bits are `idx`
            let b = self.cur + ((idx as u64).wrapping_sub(self.cur) & self.mask);
            for s in v {
                f(self.time_of(b, s), &s.ev);
            }
        }
    }
}

/// Buckets of at least this many events are radix-sorted; smaller ones by comparison.
const RADIX_FROM: usize = 64;

/// Sorts one bucket's events by time, stably (equal times keep their scheduling order). Every
/// time of a bucket shares all but its low `shift` bits, so a large bucket is sorted by those
/// bits alone: least-significant-digit radix passes (each pass a stable counting sort through
/// `scratch`), which cost a few moves per event where a comparison sort costs about log2(n)
/// comparisons and moves. The `shift` bits are cut into as few passes of at most 8 bits as
/// possible, of equal width (10 bits: two passes of 5), so that each pass clears, sums and
/// checks a table of 2^width + 1 counts, not 257. Any cut gives the same order: a stable sort's
/// result is unique.
fn sort_bucket<E: Copy>(v: &mut [Slot<E>], scratch: &mut Vec<Slot<E>>, shift: u32) {
    if v.len() < RADIX_FROM || shift == 0 {
        v.sort_by_key(|s| s.lo);
        return;
    }
    let n = v.len();
    // the passes alternate between `v` and `scratch` (which keeps the length of the largest
    // bucket sorted so far): no copy per pass, one at the end if the last pass left the
    // events in `scratch`
    if scratch.len() < n {
        scratch.resize(n, v[0]);
    }
    let scratch = &mut scratch[..n];
    let mut in_v = true;
    let passes = shift.div_ceil(8);
    let width = shift.div_ceil(passes);
    let mut count = [0u32; 257];
    let mut low_bit = 0;
    while low_bit < shift {
        let bits = (shift - low_bit).min(width);
        let mask = (1u32 << bits) - 1;
        let count = &mut count[..=(1usize << bits)];
        count.fill(0);
        let (src, dst) = if in_v {
            (&*v, &mut *scratch)
        } else {
            (&*scratch, &mut *v)
        };
        for s in src.iter() {
            count[((s.lo >> low_bit) & mask) as usize + 1] += 1;
        }
        low_bit += bits;
        if count[1..].contains(&(n as u32)) {
            continue; // every event has the same digit: nothing to move
        }
        for d in 1..count.len() {
            count[d] += count[d - 1];
        }
        for s in src.iter() {
            let d = ((s.lo >> (low_bit - bits)) & mask) as usize;
            dst[count[d] as usize] = *s;
            count[d] += 1;
        }
        in_v = !in_v;
    }
    if !in_v {
        v.copy_from_slice(scratch);
    }
    debug_assert!(v.windows(2).all(|w| w[0].lo <= w[1].lo));
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// With and without the list of events for the current time.
    fn both_kinds<E: Copy>(shift: u32, log_buckets: u32) -> [EventQueue<E>; 2] {
        [
            EventQueue::new(shift, log_buckets),
            EventQueue::new(shift, log_buckets).with_now_list(),
        ]
    }

    #[test]
    fn pops_in_time_then_insertion_order() {
        // tiny wheel: 8 buckets of 16 ps, exercises overflow
        for q in both_kinds(4, 3) {
            pops_in_order(q);
        }
    }

    /// The pop of a queue of either kind (without the list: the pop that does not check it).
    fn pop<E: Copy>(q: &mut EventQueue<E>) -> Option<(Ps, E)> {
        if q.now_list {
            q.pop()
        } else {
            q.pop_without_now_list()
        }
    }

    fn pops_in_order(mut q: EventQueue<u32>) {
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
            if let Some((t, e)) = pop(&mut q) {
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
        while let Some((t, e)) = pop(&mut q) {
            reference.sort();
            assert_eq!(reference.remove(0), (t, e));
        }
        assert!(reference.is_empty() && q.is_empty());
    }

    /// Large buckets (radix sort) come out in time order with equal times in scheduling
    /// order, like the comparison sort, for bucket widths of several digits, with one scratch
    /// kept from bucket to bucket (longer than the bucket after a larger one), and with passes
    /// skipped (every time sharing a digit) so that the events end in either buffer.
    #[test]
    fn a_large_bucket_sorts_stably() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut scratch = Vec::new();
        for shift in [1u32, 5, 8, 10, 13, 17] {
            for n in [2000, RADIX_FROM - 1, RADIX_FROM, 300, 2000, 100, 100, 100] {
                // few distinct times, so that many are equal; spaced by a power of two now and
                // then, so that only the high digits differ
                let span = if rng.random_range(0..3) == 0 {
                    1u64 << rng.random_range(0..=shift.min(5))
                } else {
                    rng.random_range(1..=(1u64 << shift).min(50))
                };
                let mut v: Vec<Slot<u32>> = (0..n as u32)
                    .map(|i| Slot {
                        lo: (rng.random_range(0..span) * ((1u64 << shift) / span)) as u32,
                        ev: i,
                    })
                    .collect();
                let mut want = v.clone();
                want.sort_by_key(|s| s.lo);
                sort_bucket(&mut v, &mut scratch, shift);
                let got: Vec<(u32, u32)> = v.iter().map(|s| (s.lo, s.ev)).collect();
                let want: Vec<(u32, u32)> = want.iter().map(|s| (s.lo, s.ev)).collect();
                assert_eq!(got, want, "shift {shift} n {n}");
            }
        }
    }

    /// Against a reference heap ordered by (time, insertion), for several wheel shapes (one- and
    /// multi-word bitmaps), with pushes into the bucket being processed, equal times, sparse
    /// stretches and far-future events.
    #[test]
    fn matches_a_reference_heap() {
        use std::cmp::Reverse;
        let shapes = [(4u32, 3u32), (2, 7), (3, 13), (10, 12), (0, 6)];
        for (mut q, (shift, log_b)) in shapes
            .iter()
            .flat_map(|&(s, b)| both_kinds(s, b).map(|q| (q, (s, b))))
        {
            let mut reference = BinaryHeap::new();
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(shift as u64 * 100 + log_b as u64);
            let mut now = 0u64;
            let mut id = 0u64;
            let span = (1u64 << shift) << log_b;
            for _ in 0..20_000 {
                for _ in 0..rng.random_range(0..4) {
                    let dt = match rng.random_range(0..6) {
                        0 => 0,
                        1 => rng.random_range(0..(1u64 << shift)),
                        2 => rng.random_range(0..span),
                        3 => rng.random_range(span / 2..span * 3),
                        4 => rng.random_range(0..span * 40),
                        _ => rng.random_range(0..8),
                    };
                    q.push(now + dt, id);
                    reference.push(Reverse((now + dt, id)));
                    id += 1;
                }
                if rng.random_range(0..3) > 0 {
                    let got = pop(&mut q);
                    let want = reference.pop().map(|Reverse(x)| x);
                    assert_eq!(got, want, "shift {shift} log_buckets {log_b}");
                    if let Some((t, _)) = got {
                        now = t;
                    }
                    assert_eq!(q.len(), reference.len());
                }
            }
            let mut seen = 0;
            q.for_each(|_, _| seen += 1);
            assert_eq!(seen, reference.len());
            while let Some(x) = pop(&mut q) {
                assert_eq!(Some(x), reference.pop().map(|Reverse(x)| x));
            }
            assert!(reference.is_empty() && q.is_empty());
        }
    }
}
