//! Permutation patterns (BookSim's names; Dragonfly spec §4.2 uses them on meshes and tori):
//! every terminal sends to one fixed terminal, its image. On a mesh or torus the *router* index
//! is permuted and each terminal keeps its local index `k` (terminal `router · n + k`); on a
//! topology without structure ([`Geometry::Flat`]) the terminal index itself is permuted.
//!
//! - `transpose` (2-D square only): `(x, y) → (y, x)`;
//! - `bit_complement`, `bit_reversal`, `shuffle` (the perfect shuffle: rotate the index bits
//!   left by one): these need a power-of-two number of routers (terminals when flat);
//! - `tornado`: in every dimension `x → (x + ⌈k/2⌉ − 1) mod k`;
//! - `neighbour`: in every dimension `x → (x + 1) mod k`.
//!
//! Job permutations (credit-level generators, any topology) permute a job's own sources, the
//! HCAs of a generator in LID order, and leave every other HCA fixed ([`job_image`]):
//! - `shift`: source i sends to source (i + k) mod m (m sources; k mod m ≠ 0);
//! - `random_permutation`: a seeded, uniformly drawn permutation of the sources with no fixed
//!   point (a derangement: every source of the job sends to one other source of the job).
//!
//! A terminal that is its own image (the diagonal of `transpose`, the bit palindromes of
//! `bit_reversal`, …) has no destination: the patterns make it inactive.

use super::geometry::Geometry;
use crate::config::Pattern;
use crate::error::{Error, Result};
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// True for the patterns this file defines.
pub fn is_permutation(p: Pattern) -> bool {
    matches!(
        p,
        Pattern::Transpose
            | Pattern::BitComplement
            | Pattern::BitReversal
            | Pattern::Shuffle
            | Pattern::Tornado
            | Pattern::Neighbour
    )
}

/// True for the permutations of a job's own sources ([`job_image`]).
pub fn is_job_permutation(p: Pattern) -> bool {
    matches!(p, Pattern::Shift | Pattern::RandomPermutation)
}

/// The image of every one of `n` terminals under job permutation `p` of the job `sources`
/// (distinct, in LID order): `shift` by `shift` (required, at `shift_key`) or a derangement
/// drawn from `rng`; terminals outside the job are fixed points. Errors name `pkey`/`shift_key`.
pub fn job_image(
    p: Pattern,
    sources: &[u32],
    n: u32,
    shift: Option<i64>,
    rng: &mut ChaCha8Rng,
    pkey: &str,
    shift_key: &str,
) -> Result<Vec<u32>> {
    let m = sources.len();
    if m < 2 {
        return Err(Error::input(
            pkey,
            format!(
                "\"{}\" permutes the generator's sources and needs at least 2; it has {m}",
                p.name()
            ),
        ));
    }
    let mut img: Vec<u32> = (0..n).collect();
    match p {
        Pattern::Shift => {
            let Some(k) = shift else {
                return Err(Error::input(
                    shift_key,
                    "pattern \"shift\" needs the offset k (source i sends to source i + k)",
                ));
            };
            let off = k.rem_euclid(m as i64) as usize;
            if off == 0 {
                return Err(Error::input(
                    shift_key,
                    format!("shift {k} maps each of the {m} sources onto itself; allowed: k mod {m} ≠ 0"),
                ));
            }
            for (i, &s) in sources.iter().enumerate() {
                img[s as usize] = sources[(i + off) % m];
            }
        }
        Pattern::RandomPermutation => {
            if shift.is_some() {
                return Err(Error::input(
                    shift_key,
                    "does not apply to pattern \"random_permutation\"; allowed only with \"shift\"",
                ));
            }
            // uniform over derangements: shuffle until no source is its own image (about e tries)
            let mut order: Vec<usize> = (0..m).collect();
            loop {
                order.shuffle(rng);
                if order.iter().enumerate().all(|(i, &j)| i != j) {
                    break;
                }
            }
            for (i, &j) in order.iter().enumerate() {
                img[sources[i] as usize] = sources[j];
            }
        }
        _ => {
            return Err(Error::Internal(format!(
                "{pkey}: \"{}\" is not a job permutation",
                p.name()
            )))
        }
    }
    Ok(img)
}

/// The image of every terminal under permutation `p` on `geo` (a mesh/torus, or flat);
/// errors name `pkey`. The caller has checked that `p` is a permutation defined on `geo`.
pub fn terminal_image(p: Pattern, geo: &Geometry, pkey: &str) -> Result<Vec<u32>> {
    let (dims, per, what) = match geo {
        Geometry::MeshTorus {
            dims, per_router, ..
        } => (
            dims.clone(),
            *per_router,
            "routers (terminals with one per router)",
        ),
        Geometry::Flat { terminals } => (vec![*terminals], 1, "terminals"),
        Geometry::Dragonfly(_) => {
            return Err(Error::Internal(format!(
                "{}: permutation \"{}\" on a Dragonfly",
                pkey,
                p.name()
            )))
        }
    };
    let routers: u32 = dims.iter().product();
    let img = router_image(p, &dims, routers, what, pkey)?;
    let mut t = Vec::with_capacity(routers as usize * per as usize);
    for &d in &img {
        for k in 0..per {
            t.push(d * per + k);
        }
    }
    Ok(t)
}

/// The image of every router (`dims` x first, `routers` = their product) under `p`.
fn router_image(
    p: Pattern,
    dims: &[u32],
    routers: u32,
    what: &str,
    pkey: &str,
) -> Result<Vec<u32>> {
    let name = p.name();
    let bits_needed = || -> Result<u32> {
        if routers.is_power_of_two() {
            Ok(routers.trailing_zeros())
        } else {
            Err(Error::input(
                pkey,
                format!("\"{name}\" permutes the bits of the router index and needs a power-of-two number of {what}; this topology has {routers}"),
            ))
        }
    };
    let per_dim = |off: &dyn Fn(u32) -> u32| -> Vec<u32> {
        (0..routers)
            .map(|r| {
                let (mut rem, mut stride, mut out) = (r, 1u32, 0u32);
                for &k in dims {
                    let c = rem % k;
                    rem /= k;
                    out += ((c + off(k)) % k) * stride;
                    stride *= k;
                }
                out
            })
            .collect()
    };
    Ok(match p {
        Pattern::Transpose => {
            if dims.len() != 2 || dims[0] != dims[1] {
                return Err(Error::input(
                    pkey,
                    format!("\"transpose\" needs a square 2-D mesh or torus; this one has dims {dims:?} (x first)"),
                ));
            }
            let k = dims[0];
            (0..routers).map(|r| (r / k) + (r % k) * k).collect()
        }
        Pattern::BitComplement => {
            let b = bits_needed()?;
            let mask = if b == 0 { 0 } else { u32::MAX >> (32 - b) };
            (0..routers).map(|r| r ^ mask).collect()
        }
        Pattern::BitReversal => {
            let b = bits_needed()?;
            (0..routers)
                .map(|r| {
                    if b == 0 {
                        r
                    } else {
                        r.reverse_bits() >> (32 - b)
                    }
                })
                .collect()
        }
        Pattern::Shuffle => {
            let b = bits_needed()?;
            (0..routers)
                .map(|r| {
                    if b == 0 {
                        r
                    } else {
                        ((r << 1) | (r >> (b - 1))) & (u32::MAX >> (32 - b))
                    }
                })
                .collect()
        }
        Pattern::Tornado => per_dim(&|k| k.div_ceil(2) - 1),
        Pattern::Neighbour => per_dim(&|_| 1),
        _ => {
            return Err(Error::Internal(format!(
                "{pkey}: \"{name}\" is not a permutation"
            )))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(n: u32) -> Geometry {
        Geometry::Flat { terminals: n }
    }

    #[test]
    fn perfect_shuffle_rotates_the_index_bits_left() {
        let img = terminal_image(Pattern::Shuffle, &flat(8), "k").unwrap();
        // 3 bits: b2 b1 b0 -> b1 b0 b2
        assert_eq!(img, vec![0, 2, 4, 6, 1, 3, 5, 7]);
        // applying it log2(N) times is the identity
        let img = terminal_image(Pattern::Shuffle, &flat(64), "k").unwrap();
        for t in 0..64u32 {
            let mut x = t;
            for _ in 0..6 {
                x = img[x as usize];
            }
            assert_eq!(x, t);
        }
    }

    #[test]
    fn every_image_is_a_permutation() {
        let geos = [
            flat(16),
            Geometry::MeshTorus {
                dims: vec![4, 4],
                torus: true,
                per_router: 2,
            },
            Geometry::MeshTorus {
                dims: vec![5, 3],
                torus: false,
                per_router: 1,
            },
        ];
        for g in &geos {
            for &p in Pattern::ALL.iter().filter(|p| is_permutation(**p)) {
                let Ok(img) = terminal_image(p, g, "k") else {
                    continue;
                };
                let mut seen = img.clone();
                seen.sort_unstable();
                seen.dedup();
                assert_eq!(seen.len(), img.len(), "{} on {g:?}", p.name());
                assert_eq!(*seen.last().unwrap() as usize, img.len() - 1);
            }
        }
    }

    #[test]
    fn job_permutations_move_only_the_jobs_sources() {
        use crate::engine::rng::{purpose, stream};
        let job = [1u32, 4, 5, 7];
        let mut rng = stream(3, 0, purpose::JOB_PERMUTATION);
        let img = job_image(Pattern::Shift, &job, 9, Some(-1), &mut rng, "p", "s").unwrap();
        assert_eq!(img, vec![0, 7, 2, 3, 1, 4, 6, 5, 8]);
        for seed in 0..20 {
            let mut rng = stream(seed, 0, purpose::JOB_PERMUTATION);
            let img = job_image(
                Pattern::RandomPermutation,
                &job,
                9,
                None,
                &mut rng,
                "p",
                "s",
            )
            .unwrap();
            for t in 0..9u32 {
                let inside = job.contains(&t);
                assert_eq!(img[t as usize] == t, !inside, "seed {seed}: {img:?}");
                assert_eq!(job.contains(&img[t as usize]), inside);
            }
            let mut seen = img.clone();
            seen.sort_unstable();
            assert_eq!(seen, (0..9).collect::<Vec<u32>>());
            // seeded: the same seed draws the same permutation
            let mut again = stream(seed, 0, purpose::JOB_PERMUTATION);
            let img2 = job_image(
                Pattern::RandomPermutation,
                &job,
                9,
                None,
                &mut again,
                "p",
                "s",
            )
            .unwrap();
            assert_eq!(img, img2);
        }
        let e = job_image(Pattern::Shift, &job, 9, Some(8), &mut rng, "p", "s")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("s: shift 8"), "{e}");
        let e = job_image(Pattern::Shift, &job, 9, None, &mut rng, "p", "s")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("s: "), "{e}");
        let e = job_image(Pattern::Shift, &job[..1], 9, Some(1), &mut rng, "p", "s")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("p: ") && e.contains("at least 2"), "{e}");
    }

    #[test]
    fn wrong_sizes_name_the_key() {
        let e = terminal_image(
            Pattern::BitComplement,
            &flat(12),
            "traffic.generators[0].pattern",
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("traffic.generators[0].pattern: "), "{e}");
        assert!(e.contains("power-of-two number of terminals"), "{e}");
        let g = Geometry::MeshTorus {
            dims: vec![4, 2],
            torus: false,
            per_router: 1,
        };
        let e = terminal_image(Pattern::Transpose, &g, "traffic.pattern")
            .unwrap_err()
            .to_string();
        assert!(e.contains("square 2-D"), "{e}");
    }
}
