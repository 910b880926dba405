//! Steady destination patterns, one set for both wings (Dragonfly spec §4.2; InfiniBand CC spec
//! §3.7.1 and §5 for uniform traffic over a node set with a hotspot): what each one is, how it
//! is resolved from a scenario against a [`Geometry`] (errors name the key and what is allowed),
//! and the draw of one destination, which allocates nothing.
//!
//! - `uniform`: uniform over a destination set (every terminal, or the credit-level generators'
//!   node set) without the source;
//! - `hotspot`: with probability `fraction` a hot terminal other than the source (uniformly among
//!   them), otherwise uniform as above;
//! - `adv` (ADV+i), `advl`, `advc`: the Dragonfly adversarial patterns (spec §4.2; `advc` is the
//!   thesis's `h` consecutive groups, not FOGSim's `h − 1`);
//! - the permutations of [`super::permutation`] (`transpose`, `bit_complement`, `bit_reversal`,
//!   `shuffle`, `tornado`, `neighbour`): one fixed destination per terminal; a terminal that is
//!   its own image is *inactive* and sends nothing.
//!
//! `mix` and `transient` combine steady patterns over time and per packet; they belong to the
//! cycle-level wing's traffic (`cycle/traffic/synthetic.rs`).

use super::geometry::Geometry;
use super::permutation::{is_permutation, terminal_image};
use crate::config::Pattern;
use crate::error::{Error, Result};
use rand::Rng;

/// The set a uniform draw picks from (the source itself is always left out).
#[derive(Debug, Clone, PartialEq)]
pub enum Among {
    /// Every terminal `0..n`.
    All(u32),
    /// A sorted, duplicate-free set of terminals.
    Set(Vec<u32>),
}

/// Uniform over `0..n` without `src` (`n ≥ 2`): one draw.
#[inline]
fn uniform_all(n: u32, src: u32, rng: &mut impl Rng) -> u32 {
    let d = rng.random_range(0..n - 1);
    if d >= src {
        d + 1
    } else {
        d
    }
}

/// ADV+i: the destination group of terminal `src`.
#[inline]
fn adv_group(src: u32, group_size: u32, groups: u32, offset: u32) -> u32 {
    (src / group_size + offset) % groups
}

/// ADVL: the destination router of terminal `src`, the next one `(R + 1) mod a` of its group.
#[inline]
fn advl_router(src: u32, p: u32, a: u32) -> u32 {
    let r = src / p;
    let i = r % a;
    r - i + (i + 1) % a
}

impl Among {
    /// A uniform destination other than `src`, or `None` when the set holds nothing else
    /// (then nothing is drawn).
    #[inline]
    pub fn draw(&self, src: u32, rng: &mut impl Rng) -> Option<u32> {
        match self {
            Among::All(n) => Some(uniform_all(*n, src, rng)),
            Among::Set(v) => match v.binary_search(&src) {
                Ok(pos) if v.len() > 1 => {
                    let i = rng.random_range(0..v.len() - 1);
                    Some(v[if i >= pos { i + 1 } else { i }])
                }
                Ok(_) => None,
                Err(_) if v.is_empty() => None,
                Err(_) => Some(v[rng.random_range(0..v.len())]),
            },
        }
    }

    /// Every terminal of the set but `src`, in increasing order.
    pub fn members_without(&self, src: u32) -> Vec<u32> {
        match self {
            Among::All(n) => (0..*n).filter(|&d| d != src).collect(),
            Among::Set(v) => v.iter().copied().filter(|&d| d != src).collect(),
        }
    }
}

/// One steady pattern, resolved and ready to draw from.
#[derive(Debug, Clone, PartialEq)]
pub enum DestinationPattern {
    /// Uniform over a set without the source.
    Uniform(Among),
    /// A hot terminal (other than the source) with probability `fraction`, else uniform over
    /// `rest`; a source with nothing in `rest` but itself always picks a hot terminal.
    Hotspot {
        /// Hot terminals, sorted, distinct.
        hot: Vec<u32>,
        /// Probability of a hot destination.
        fraction: f64,
        /// Where the other destinations go.
        rest: Among,
    },
    /// ADV+i (Dragonfly spec §4.2): uniform among the terminals of group `(G_S + offset) mod G`.
    Adv {
        /// Terminals per group (`a·p`).
        group_size: u32,
        /// Groups `G`.
        groups: u32,
        /// Group offset reduced to `1..G`.
        offset: u32,
    },
    /// ADVL: uniform among the terminals of the next router `(R + 1) mod a` of the group.
    Advl {
        /// Terminals per router.
        p: u32,
        /// Routers per group.
        a: u32,
    },
    /// ADVC: uniform among the terminals of the `h` groups after the source's.
    Advc {
        /// Terminals per group (`a·p`).
        group_size: u32,
        /// Groups `G`.
        groups: u32,
        /// Global links per router.
        h: u32,
    },
    /// A permutation: the image of every terminal; a fixed point is an inactive terminal.
    Permutation(Vec<u32>),
}

impl DestinationPattern {
    /// Whether terminal `src` sends at all under this pattern: false for the fixed points of a
    /// permutation, and for a source with no destination but itself.
    pub fn active_for(&self, src: u32) -> bool {
        match self {
            DestinationPattern::Permutation(img) => img[src as usize] != src,
            DestinationPattern::Uniform(Among::Set(v)) => v.iter().any(|&d| d != src),
            DestinationPattern::Hotspot {
                hot,
                rest: Among::Set(v),
                ..
            } => v.iter().chain(hot).any(|&d| d != src),
            _ => true,
        }
    }

    /// Draws the destination of a packet or message of `src` (never `src`, for an active
    /// source; an inactive one — a caller bug, asserted in debug builds — gets a uniform one).
    #[inline]
    pub fn draw(&self, src: u32, rng: &mut impl Rng) -> u32 {
        match self {
            DestinationPattern::Uniform(a) => a.draw(src, rng).unwrap_or_else(|| {
                debug_assert!(false, "no destination for terminal {src}");
                src
            }),
            DestinationPattern::Adv {
                group_size,
                groups,
                offset,
            } => {
                adv_group(src, *group_size, *groups, *offset) * group_size
                    + rng.random_range(0..*group_size)
            }
            DestinationPattern::Advl { p, a } => {
                advl_router(src, *p, *a) * p + rng.random_range(0..*p)
            }
            DestinationPattern::Advc {
                group_size,
                groups,
                h,
            } => {
                let gs = *group_size;
                let x = rng.random_range(0..h * gs);
                let dg = (src / gs + 1 + x / gs) % groups;
                dg * gs + x % gs
            }
            DestinationPattern::Permutation(img) => {
                let d = img[src as usize];
                if d == src {
                    debug_assert!(false, "destination of inactive terminal {src}");
                    uniform_all(img.len() as u32, src, rng)
                } else {
                    d
                }
            }
            DestinationPattern::Hotspot {
                hot,
                fraction,
                rest,
            } => {
                if rng.random::<f64>() < *fraction {
                    if let Some(d) = Self::hot_other_than(hot, src, rng) {
                        return d;
                    }
                }
                match rest.draw(src, rng) {
                    Some(d) => d,
                    None => Self::hot_other_than(hot, src, rng).unwrap_or_else(|| {
                        debug_assert!(false, "no destination for terminal {src}");
                        src
                    }),
                }
            }
        }
    }

    /// A hot terminal other than `src`, uniformly (one draw), or `None` if `src` is the only one.
    #[inline]
    fn hot_other_than(hot: &[u32], src: u32, rng: &mut impl Rng) -> Option<u32> {
        let k = hot.len();
        match hot.binary_search(&src) {
            Err(_) => Some(hot[rng.random_range(0..k)]),
            Ok(pos) if k > 1 => {
                let j = rng.random_range(0..k - 1);
                Some(hot[if j >= pos { j + 1 } else { j }])
            }
            Ok(_) => None,
        }
    }

    /// Every destination `src` may draw, in a fixed order (the uniform set first, then the hot
    /// terminals; a terminal may appear twice): the routes a run needs.
    pub fn destinations_of(&self, src: u32) -> Vec<u32> {
        match self {
            DestinationPattern::Uniform(a) => a.members_without(src),
            DestinationPattern::Hotspot { hot, rest, .. } => {
                let mut v = rest.members_without(src);
                v.extend(hot.iter().copied().filter(|&d| d != src));
                v
            }
            DestinationPattern::Adv {
                group_size,
                groups,
                offset,
            } => {
                let dg = adv_group(src, *group_size, *groups, *offset);
                (dg * group_size..(dg + 1) * group_size).collect()
            }
            DestinationPattern::Advl { p, a } => {
                let dr = advl_router(src, *p, *a);
                (dr * p..(dr + 1) * p).collect()
            }
            DestinationPattern::Advc {
                group_size,
                groups,
                h,
            } => (0..h * group_size)
                .map(|x| {
                    ((src / group_size + 1 + x / group_size) % groups) * group_size + x % group_size
                })
                .collect(),
            DestinationPattern::Permutation(img) => {
                let d = img[src as usize];
                if d == src {
                    Vec::new()
                } else {
                    vec![d]
                }
            }
        }
    }
}

impl DestinationPattern {
    /// The probability of each destination of `src` (spec B.7: the offered traffic per
    /// destination, the "expected" reception of a non-hot destination): the hot terminals
    /// other than `src` share `fraction` equally and the uniform set the rest (all of it when
    /// no hot terminal is left, all to the hot ones when the set holds only `src`); every other
    /// pattern is uniform over [`DestinationPattern::destinations_of`]. A terminal may appear
    /// twice (hot and in the uniform set); the probabilities sum to 1 (or nothing for an
    /// inactive source).
    pub fn shares(&self, src: u32) -> Vec<(u32, f64)> {
        let uniform = |v: Vec<u32>, total: f64| -> Vec<(u32, f64)> {
            let w = total / v.len().max(1) as f64;
            v.into_iter().map(|d| (d, w)).collect()
        };
        match self {
            DestinationPattern::Hotspot {
                hot,
                fraction,
                rest,
            } => {
                let hot_others: Vec<u32> = hot.iter().copied().filter(|&d| d != src).collect();
                let rest_others = rest.members_without(src);
                match (hot_others.is_empty(), rest_others.is_empty()) {
                    (true, _) => uniform(rest_others, 1.0),
                    (false, true) => uniform(hot_others, 1.0),
                    (false, false) => {
                        let mut v = uniform(hot_others, *fraction);
                        v.extend(uniform(rest_others, 1.0 - fraction));
                        v
                    }
                }
            }
            _ => uniform(self.destinations_of(src), 1.0),
        }
    }
}

/// What a steady pattern is resolved from: the pattern key's value and the keys around it.
pub struct Request<'a> {
    /// The pattern.
    pub pattern: Pattern,
    /// ADV+i offset (`…shift`), if given.
    pub shift: Option<i64>,
    /// Key of the pattern (`traffic.pattern`, `traffic.mix[2].pattern`, …), named in errors.
    pub pattern_key: &'a str,
    /// Key of the shift (`traffic.shift`, …).
    pub shift_key: &'a str,
    /// The values allowed at this key, quoted and joined (for error messages).
    pub allowed: &'a str,
    /// The set uniform draws pick from.
    pub uniform: Among,
    /// Hot terminals (sorted, distinct) and the hot fraction, if the scenario gives them.
    pub hot: Option<(&'a [u32], f64)>,
    /// For `hotspot` without `hot`: the key to name and what it must give.
    pub hot_missing: (&'a str, &'a str),
}

/// Resolves one steady pattern against `geo` with `n` terminals (Dragonfly spec §4.2 and the
/// module docs); every inapplicable or bad value is an [`Error::Input`] naming its key and what
/// is allowed. Returns the pattern and its label (`uniform`, `adv+6`, `shuffle`, …).
pub fn resolve(req: &Request, geo: &Geometry, n: u32) -> Result<(DestinationPattern, String)> {
    let (p, pkey) = (req.pattern, req.pattern_key);
    if !geo.patterns().contains(&p) {
        return Err(Error::input(
            pkey,
            format!(
                "{}; allowed on {}: {}",
                geo.not_here(p),
                geo.what(),
                req.allowed
            ),
        ));
    }
    if p != Pattern::Adv && req.shift.is_some() {
        return Err(Error::input(
            req.shift_key,
            format!(
                "does not apply to pattern \"{}\"; allowed only with \"adv\"",
                p.name()
            ),
        ));
    }
    if n < 2 {
        return Err(Error::input(
            pkey,
            "the network has a single terminal; every pattern needs at least 2",
        ));
    }
    let pattern = match (p, geo) {
        (Pattern::Uniform, _) => DestinationPattern::Uniform(req.uniform.clone()),
        (Pattern::Hotspot, _) => {
            let Some((hot, fraction)) = req.hot else {
                let (key, why) = req.hot_missing;
                return Err(Error::input(key, why));
            };
            DestinationPattern::Hotspot {
                hot: hot.to_vec(),
                fraction,
                rest: req.uniform.clone(),
            }
        }
        (Pattern::Adv, Geometry::Dragonfly(s)) => {
            let g = s.groups as i64;
            let Some(i) = req.shift else {
                return Err(Error::input(
                    req.shift_key,
                    format!("pattern \"adv\" needs the group offset i of ADV+i; allowed: any integer with i mod G ≠ 0 (G = {g})"),
                ));
            };
            let off = i.rem_euclid(g);
            if off == 0 {
                return Err(Error::input(
                    req.shift_key,
                    format!("ADV{i:+} sends every node to its own group; allowed: any integer with i mod G ≠ 0 (G = {g})"),
                ));
            }
            return Ok((
                DestinationPattern::Adv {
                    group_size: s.p * s.a,
                    groups: s.groups,
                    offset: off as u32,
                },
                format!("adv{i:+}"),
            ));
        }
        (Pattern::Advl, Geometry::Dragonfly(s)) => DestinationPattern::Advl { p: s.p, a: s.a },
        (Pattern::Advc, Geometry::Dragonfly(s)) => DestinationPattern::Advc {
            group_size: s.p * s.a,
            groups: s.groups,
            h: s.h,
        },
        (p, _) if is_permutation(p) => {
            let img = terminal_image(p, geo, pkey)?;
            if img.iter().enumerate().all(|(t, &d)| t as u32 == d) {
                let shape = match geo {
                    Geometry::MeshTorus { dims, .. } => format!(" (dims {dims:?}, x first)"),
                    _ => String::new(),
                };
                return Err(Error::input(
                    pkey,
                    format!(
                        "\"{}\" maps every terminal of this topology{shape} onto itself; allowed: {}",
                        p.name(),
                        req.allowed
                    ),
                ));
            }
            DestinationPattern::Permutation(img)
        }
        _ => {
            return Err(Error::Internal(format!(
                "{pkey}: pattern \"{}\" listed for {} but not resolved",
                p.name(),
                geo.what()
            )))
        }
    };
    Ok((pattern, p.name().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn uniform_over_a_set_is_the_draw_over_the_set_without_the_source() {
        // the same numbers as indexing the list without the source (the credit-level
        // generators' original draw), so both give identical runs
        let set = vec![1u32, 3, 4, 8, 9];
        let a = Among::Set(set.clone());
        for src in [0u32, 3, 9] {
            let without: Vec<u32> = set.iter().copied().filter(|&d| d != src).collect();
            let mut r1 = ChaCha8Rng::seed_from_u64(src as u64);
            let mut r2 = r1.clone();
            for _ in 0..500 {
                let want = without[r2.random_range(0..without.len())];
                assert_eq!(a.draw(src, &mut r1), Some(want));
            }
        }
        assert_eq!(
            Among::Set(vec![4]).draw(4, &mut ChaCha8Rng::seed_from_u64(1)),
            None
        );
        assert_eq!(
            Among::Set(vec![]).draw(4, &mut ChaCha8Rng::seed_from_u64(1)),
            None
        );
    }

    #[test]
    fn hotspot_with_nothing_else_goes_hot() {
        let p = DestinationPattern::Hotspot {
            hot: vec![7],
            fraction: 0.1,
            rest: Among::Set(vec![2]),
        };
        let mut r = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..100 {
            assert_eq!(p.draw(2, &mut r), 7);
            let d = p.draw(5, &mut r);
            assert!(d == 7 || d == 2);
            assert_eq!(p.draw(7, &mut r), 2);
        }
        assert_eq!(p.destinations_of(2), vec![7]);
        assert!(p.active_for(2));
    }

    #[test]
    fn permutation_fixed_points_are_inactive() {
        let p = DestinationPattern::Permutation(vec![0, 2, 1, 3]);
        assert!(!p.active_for(0));
        assert!(p.active_for(1));
        assert_eq!(p.destinations_of(0), Vec::<u32>::new());
        assert_eq!(p.destinations_of(2), vec![1]);
        assert_eq!(p.draw(2, &mut ChaCha8Rng::seed_from_u64(0)), 1);
    }

    #[test]
    fn shares_match_the_draw_frequencies() {
        // hot 2 and 5 take 0.6 between them, the rest 0.4 over 0..8 without the source
        let p = DestinationPattern::Hotspot {
            hot: vec![2, 5],
            fraction: 0.6,
            rest: Among::All(8),
        };
        for src in [0u32, 2] {
            let mut want = [0.0f64; 8];
            for (d, w) in p.shares(src) {
                want[d as usize] += w;
            }
            assert!((want.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            assert_eq!(want[src as usize], 0.0);
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            let n = 200_000;
            let mut got = [0u32; 8];
            for _ in 0..n {
                got[p.draw(src, &mut rng) as usize] += 1;
            }
            for d in 0..8 {
                let f = got[d] as f64 / n as f64;
                assert!(
                    (f - want[d]).abs() < 0.005,
                    "src {src} dst {d}: {f} vs {}",
                    want[d]
                );
            }
        }
        // a pure hotspot: everything to the hot terminal; the hotspot itself sends uniformly
        let p = DestinationPattern::Hotspot {
            hot: vec![3],
            fraction: 1.0,
            rest: Among::All(4),
        };
        assert_eq!(p.shares(0), vec![(3, 1.0), (1, 0.0), (2, 0.0), (3, 0.0)]);
        let s3 = p.shares(3);
        assert_eq!(s3.len(), 3);
        assert!(s3
            .iter()
            .all(|&(d, w)| d != 3 && (w - 1.0 / 3.0).abs() < 1e-12));
    }
}
