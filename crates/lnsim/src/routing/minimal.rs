//! MIN, minimal routing on a Dragonfly (Dragonfly spec §3.1): the single minimal path
//! l1 g l2, computed hop by hop (the result equals source computation).

use crate::topology::dragonfly::DragonflyShape;

/// Output port of router `r` on the minimal path towards router `t` (`None` when `r == t`:
/// the packet has arrived at its destination router).
#[inline]
pub fn next_port(s: &DragonflyShape, r: u32, t: u32) -> Option<u32> {
    let (gr, gt) = (s.group(r), s.group(t));
    let ir = s.index(r);
    if gr != gt {
        let (eo, q) = s.exit(gr, gt);
        Some(if eo == ir {
            s.global_port(q)
        } else {
            s.local_port(ir, eo)
        })
    } else if r != t {
        Some(s.local_port(ir, s.index(t)))
    } else {
        None
    }
}

/// Router reached through port `port` of router `r` (a local or global port).
#[inline]
pub fn neighbour(s: &DragonflyShape, r: u32, port: u32) -> u32 {
    let (g, i) = (s.group(r), s.index(r));
    if s.is_global_port(port) {
        let (ng, nr, _) = s.global_neighbour(g, i, port - s.global_port(0));
        ng * s.a + nr
    } else {
        g * s.a + s.local_peer(i, port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::dragonfly::Arrangement;

    #[test]
    fn minimal_paths_reach_the_destination_in_min_hops() {
        for arr in [Arrangement::Palmtree, Arrangement::Consecutive] {
            let s = DragonflyShape::new(2, 4, 2, arr).unwrap();
            for a in 0..s.routers() {
                for b in 0..s.routers() {
                    let (mut r, mut hops, mut globals) = (a, 0, 0);
                    while let Some(p) = next_port(&s, r, b) {
                        globals += u32::from(s.is_global_port(p));
                        r = neighbour(&s, r, p);
                        hops += 1;
                        assert!(hops <= 3);
                    }
                    assert_eq!(hops, s.min_hops(a, b));
                    assert_eq!(globals, u32::from(s.group(a) != s.group(b)));
                }
            }
        }
    }
}
