//! Cache prefetch hints for the credit-level run loop (the cycle-level loop has its own,
//! `cycle/prefetch.rs`): the events about to come out of the timing wheel
//! are known, so the records they will touch can be requested from memory while the event
//! before them is handled (the credit-level model is memory-bound: most of an event's time is
//! spent waiting for a few random cache lines). A hint changes no state and no result.

/// Asks the CPU to bring element `i` of `s` into the cache (nothing when `i` is out of bounds or
/// on architectures without the hint).
#[inline(always)]
pub fn prefetch<T>(s: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if i < s.len() {
        // SAFETY: `i` is in bounds, so the pointer is valid; a prefetch never faults, reads
        // nothing into the program and writes nothing
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(s.as_ptr().add(i) as *const i8);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (s, i);
}

/// [`prefetch`] for every cache line of element `i` of `s` (a record larger than a line).
#[inline(always)]
pub fn prefetch_all<T>(s: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if i < s.len() {
        let p = s.as_ptr().wrapping_add(i) as *const i8;
        for off in (0..std::mem::size_of::<T>()).step_by(64) {
            // SAFETY: `p + off` lies inside element `i`, which is in bounds; a prefetch never
            // faults, reads nothing into the program and writes nothing
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch::<_MM_HINT_T0>(p.add(off));
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (s, i);
}
