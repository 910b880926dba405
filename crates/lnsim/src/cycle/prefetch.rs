//! Software prefetch for the cycle loop on networks whose state outgrows the cache: while a
//! calendar slot is drained, the records of the events a few places ahead are fetched so that
//! their cache misses overlap with the work of the current event. Hints only: they change no
//! state and no result.

/// Hot state (bytes) above which the cycle loop prefetches: 1 MiB, a typical per-core L2
/// cache. Below it (e.g. an 8×8 mesh) the records stay in cache and a prefetch would only add
/// instructions, so the plain drain loop runs.
pub(crate) const PREFETCH_MIN_BYTES: usize = 1 << 20;

/// Hints the processor to fetch the cache line holding `s[i]` into L1 (nothing on other
/// architectures). Never reads memory architecturally, so any `i` is harmless.
#[inline(always)]
pub(crate) fn prefetch<T>(s: &[T], i: usize) {
    // (`wrapping_add` keeps the pointer arithmetic defined for any `i`)
    prefetch_ptr(s.as_ptr().wrapping_add(i) as *const u8);
}

/// Hints the processor to fetch the cache line holding address `p` into L1 (see
/// [`prefetch`]); never reads memory architecturally.
#[inline(always)]
pub(crate) fn prefetch_ptr(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it never faults and never reads memory
    // architecturally, whatever the address.
    #[allow(unused_unsafe)]
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
