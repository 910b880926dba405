//! The input-first separable allocator of the cycle-level router (Dragonfly spec §2.1): each
//! free input port's arbiter picks one of its VCs and requests that VC's output port; each
//! output port's arbiter grants one requesting input. Both arbiters are round-robin and their
//! priority moves only when they produce a winning grant (iSLIP-like), so an input whose
//! request lost keeps its priority for the next iteration or cycle.
//!
//! The request sets are `u64` bitmasks (a router has at most 64 ports); picking is a rotate
//! and a trailing-zero count.

/// The first set bit of `mask` at or after position `ptr`, wrapping around (round-robin
/// pick); `None` when `mask` is empty.
#[inline]
pub fn round_robin(mask: u64, ptr: u32) -> Option<u32> {
    if mask == 0 {
        return None;
    }
    let ptr = ptr & 63;
    let high = mask & (!0u64 << ptr);
    Some(if high != 0 {
        high.trailing_zeros()
    } else {
        mask.trailing_zeros()
    })
}

/// The position after `winner` among `n` positions: the new round-robin pointer after a grant.
#[inline]
pub fn after(winner: u32, n: u32) -> u32 {
    if winner + 1 >= n {
        0
    } else {
        winner + 1
    }
}

/// Iterator over the set bits of a mask, lowest first.
#[inline]
pub fn bits(mut mask: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let b = mask.trailing_zeros();
            mask &= mask - 1;
            Some(b)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_wraps_and_skips_empty() {
        assert_eq!(round_robin(0, 3), None);
        assert_eq!(round_robin(0b1001, 0), Some(0));
        assert_eq!(round_robin(0b1001, 1), Some(3));
        assert_eq!(round_robin(0b1001, 4), Some(0));
        assert_eq!(round_robin(1 << 63, 63), Some(63));
        assert_eq!(after(3, 4), 0);
        assert_eq!(after(1, 4), 2);
        assert_eq!(bits(0b10110).collect::<Vec<_>>(), [1, 2, 4]);
    }

    #[test]
    fn priority_rotates_only_on_grants() {
        // three inputs always requesting one output: grants go 0, 1, 2, 0, …
        let mut ptr = 0;
        let mut order = vec![];
        for _ in 0..6 {
            let w = round_robin(0b111, ptr).unwrap();
            order.push(w);
            ptr = after(w, 3);
        }
        assert_eq!(order, [0, 1, 2, 0, 1, 2]);
    }
}
