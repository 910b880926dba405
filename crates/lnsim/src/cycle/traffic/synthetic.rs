//! The cycle-level model's traffic (Dragonfly spec §4): `[traffic]` (`pattern`, `load`, `shift`,
//! `mix`, `transient`, `hotspots`, `hotspot_fraction`) resolved once against the network's
//! [`Geometry`] into steady patterns of [`crate::traffic::pattern`] and their phases, then one
//! destination drawn per generated packet without allocating.
//!
//! # Patterns
//! The steady patterns and where each applies are those of [`crate::traffic::pattern`] (Dragonfly:
//! `uniform`, `adv` with `traffic.shift = i`, `advl`, `advc`, `hotspot`; meshes and tori:
//! `uniform`, the permutations of [`crate::traffic::permutation`] and `hotspot`). `hotspot` sends a packet
//! with probability `traffic.hotspot_fraction` (default 0.1) to a uniformly chosen hot terminal
//! of `traffic.hotspots` other than the source, otherwise uniformly to any terminal.
//!
//! # Inactive nodes
//! A terminal that a permutation maps onto itself (the diagonal of `transpose`, the bit
//! palindromes of `bit_reversal`, …) has no destination: it is *inactive* and generates no
//! traffic at all ([`SyntheticTraffic::active`] is false; it does not redistribute its load).
//! Under `mix` a node is active if any component is active for it, and each of its packets picks
//! among the components active for it with their fractions renormalised. A pattern (or mix
//! component) that leaves every terminal inactive is rejected.
//!
//! # Mix and transient (spec §4.2 MIX, §4.3)
//! `mix` splits each node's packets among steady components with the given fractions (the load is
//! the node's total). `transient` runs phase `before` until cycle `at_cycle` (default: the end of
//! the warm-up, the spec's t = 0) and phase `after` from then on; each phase is a steady pattern
//! or a mix with its own load (default `traffic.load`).

use crate::config::{MixComponent, Pattern, TrafficConfig};
use crate::error::{Error, Result};
use crate::traffic::geometry::Geometry;
use crate::traffic::pattern::{self, Among, DestinationPattern, Request};
use rand::Rng;

/// The resolved traffic of a cycle-level run (Dragonfly spec §4): destination pattern(s) and
/// offered load, possibly changing at one cycle (§4.3).
#[derive(Debug, Clone)]
pub struct SyntheticTraffic {
    /// Terminals.
    n: u32,
    /// The traffic before the change (or always).
    before: Phase,
    /// Cycle of the change and the traffic from then on.
    after: Option<(u64, Phase)>,
    /// Short description.
    label: String,
    /// Uniform traffic throughout (a single `uniform` component and no change): the
    /// destination is the uniform draw without looking at the phase.
    uniform_only: bool,
}

/// One steady traffic (a single pattern or a mix) with its load.
#[derive(Debug, Clone)]
struct Phase {
    comps: Vec<DestinationPattern>,
    /// Cumulative component probabilities, the last exactly 1.
    cum: Vec<f64>,
    load: f64,
    /// Per terminal: active (None: all are).
    active: Option<Vec<bool>>,
    active_count: u32,
    label: String,
}

impl Phase {
    #[inline]
    fn is_active(&self, src: u32) -> bool {
        self.active.as_ref().is_none_or(|v| v[src as usize])
    }
}

/// Where a pattern name appears, which decides what it may be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    /// `traffic.pattern`: steady, `mix` or `transient`.
    Top,
    /// `traffic.transient.{before,after}.pattern`: steady or `mix`.
    Phase,
    /// `…mix[i].pattern`: steady only.
    Component,
}

struct Resolver<'a> {
    geo: &'a Geometry,
    n: u32,
    /// Hot terminals (sorted) and fraction, when `traffic.hotspots` is a non-empty list.
    hot: Option<(&'a [u32], f64)>,
    hot_used: bool,
}

fn check_load(key: &str, l: f64) -> Result<f64> {
    if l > 0.0 && l <= 1.0 {
        Ok(l)
    } else {
        Err(Error::input(
            key,
            format!("offered load {l} phits/node/cycle; allowed: (0, 1]"),
        ))
    }
}

impl Resolver<'_> {
    /// The patterns allowed at `level` on this geometry, quoted.
    fn allowed(&self, level: Level) -> String {
        let mut v: Vec<&str> = self.geo.patterns().iter().map(|p| p.name()).collect();
        if level != Level::Component {
            v.push("mix");
        }
        if level == Level::Top {
            v.push("transient");
        }
        v.iter()
            .map(|s| format!("\"{s}\""))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A single steady pattern at `{prefix}.pattern` / `{prefix}.shift`.
    fn steady(
        &mut self,
        p: Pattern,
        shift: Option<i64>,
        prefix: &str,
        level: Level,
    ) -> Result<(DestinationPattern, String)> {
        let pkey = format!("{prefix}.pattern");
        if p == Pattern::Mix || p == Pattern::Transient {
            let what = if level == Level::Component {
                "a mix component must be a steady pattern"
            } else {
                "a transient phase must be a steady pattern or \"mix\""
            };
            return Err(Error::input(
                &pkey,
                format!("{what}; allowed: {}", self.allowed(level)),
            ));
        }
        let allowed = self.allowed(level);
        let skey = format!("{prefix}.shift");
        let req = Request {
            pattern: p,
            shift,
            pattern_key: &pkey,
            shift_key: &skey,
            allowed: &allowed,
            uniform: Among::All(self.n),
            hot: self.hot,
            hot_missing: (
                "traffic.hotspots",
                "pattern \"hotspot\" needs the hot terminals; allowed: a non-empty list of terminal indices",
            ),
        };
        let r = pattern::resolve(&req, self.geo, self.n)?;
        if p == Pattern::Hotspot {
            self.hot_used = true;
        }
        Ok(r)
    }

    /// A phase: a steady pattern or a mix (`{prefix}.pattern`, `.shift`, `.mix`).
    fn phase(
        &mut self,
        pattern: Pattern,
        shift: Option<i64>,
        mix: &[MixComponent],
        prefix: &str,
        level: Level,
        load: f64,
    ) -> Result<Phase> {
        let (comps, fracs, label) = if pattern == Pattern::Mix {
            if shift.is_some() {
                return Err(Error::input(
                    &format!("{prefix}.shift"),
                    format!("does not apply to pattern \"mix\"; allowed: {prefix}.mix[i].shift per component"),
                ));
            }
            if mix.is_empty() {
                return Err(Error::input(
                    &format!("{prefix}.mix"),
                    "pattern \"mix\" needs components; allowed: a non-empty list of {pattern, shift, fraction}",
                ));
            }
            let mut comps = Vec::new();
            let mut fracs = Vec::new();
            let mut parts = Vec::new();
            for (i, c) in mix.iter().enumerate() {
                let p = format!("{prefix}.mix[{i}]");
                let (comp, l) = self.steady(c.pattern, c.shift, &p, Level::Component)?;
                let f = c.fraction;
                if !(f > 0.0 && f <= 1.0) {
                    return Err(Error::input(
                        &format!("{p}.fraction"),
                        format!("{f}; allowed: (0, 1], all fractions adding up to 1"),
                    ));
                }
                comps.push(comp);
                fracs.push(f);
                parts.push(format!("{f} {l}"));
            }
            let sum: f64 = fracs.iter().sum();
            if (sum - 1.0).abs() > 1e-9 {
                return Err(Error::input(
                    &format!("{prefix}.mix"),
                    format!("the fractions add up to {sum}; allowed: fractions in (0, 1] adding up to 1"),
                ));
            }
            (comps, fracs, format!("mix({})", parts.join(" + ")))
        } else {
            if !mix.is_empty() {
                return Err(Error::input(
                    &format!("{prefix}.mix"),
                    format!(
                        "does not apply to pattern \"{}\"; allowed only with pattern \"mix\"",
                        pattern.name()
                    ),
                ));
            }
            let (c, l) = self.steady(pattern, shift, prefix, level)?;
            (vec![c], vec![1.0], l)
        };
        let sum: f64 = fracs.iter().sum();
        let mut acc = 0.0;
        let mut cum: Vec<f64> = fracs
            .iter()
            .map(|f| {
                acc += f / sum;
                acc
            })
            .collect();
        *cum.last_mut().expect("one component at least") = 1.0;
        let active = if comps
            .iter()
            .any(|c| matches!(c, DestinationPattern::Permutation(_)))
        {
            Some(
                (0..self.n)
                    .map(|s| comps.iter().any(|c| c.active_for(s)))
                    .collect::<Vec<bool>>(),
            )
        } else {
            None
        };
        let active_count = active
            .as_ref()
            .map_or(self.n, |v| v.iter().filter(|&&b| b).count() as u32);
        Ok(Phase {
            comps,
            cum,
            load,
            active,
            active_count,
            label,
        })
    }
}

impl SyntheticTraffic {
    /// Resolves `[traffic]` (`pattern` — default `uniform` —, `load`, `shift`, `mix`,
    /// `transient`, `hotspots`, `hotspot_fraction`) against `geo` (Dragonfly spec §4.1–§4.3).
    /// `warmup_cycles` is the default `transient.at_cycle` (the spec's t = 0); `given` says
    /// whether the scenario itself gives a key ([`crate::config::LoadedScenario::given`]), for
    /// a key refused where it does not apply. Every bad or inapplicable key is an
    /// [`Error::Input`] naming its key path and what is allowed.
    pub fn from_config(
        t: &TrafficConfig,
        geo: &Geometry,
        warmup_cycles: u64,
        given: &dyn Fn(&str) -> bool,
    ) -> Result<Self> {
        if matches!(geo, Geometry::Flat { .. }) {
            return Err(Error::Internal(
                "cycle-level traffic needs a Dragonfly, mesh or torus".into(),
            ));
        }
        let n = geo.terminals()?;

        let mut hot = Vec::new();
        if let Some(h) = &t.hotspots {
            for (i, &x) in h.iter().enumerate() {
                if x >= n {
                    return Err(Error::input(
                        &format!("traffic.hotspots[{i}]"),
                        format!("terminal {x} does not exist; allowed: 0..{}", n - 1),
                    ));
                }
                if h[..i].contains(&x) {
                    return Err(Error::input(
                        &format!("traffic.hotspots[{i}]"),
                        format!("terminal {x} is listed twice; allowed: distinct terminal indices"),
                    ));
                }
                hot.push(x);
            }
            hot.sort_unstable();
        }
        let hot_frac = t.hotspot_fraction;
        if !(0.0..=1.0).contains(&hot_frac) {
            return Err(Error::input(
                "traffic.hotspot_fraction",
                format!("{hot_frac}; allowed: [0, 1]"),
            ));
        }
        let top_load = t.load.map(|l| check_load("traffic.load", l)).transpose()?;

        let mut r = Resolver {
            geo,
            n,
            hot: (!hot.is_empty()).then_some((&hot[..], hot_frac)),
            hot_used: false,
        };
        let (before, after, label) = if t.pattern == Pattern::Transient {
            if t.shift.is_some() {
                return Err(Error::input(
                    "traffic.shift",
                    "does not apply to pattern \"transient\"; allowed: traffic.transient.before.shift / traffic.transient.after.shift",
                ));
            }
            if !t.mix.is_empty() {
                return Err(Error::input(
                    "traffic.mix",
                    "does not apply to pattern \"transient\"; allowed: traffic.transient.before.mix / traffic.transient.after.mix",
                ));
            }
            let Some(tc) = &t.transient else {
                return Err(Error::input(
                    "traffic.transient",
                    "pattern \"transient\" needs [traffic.transient] with `before` and `after` phases",
                ));
            };
            let at = tc.at_cycle.unwrap_or(warmup_cycles);
            if tc.before.load.is_some() && tc.after.load.is_some() && top_load.is_some() {
                return Err(Error::input(
                    "traffic.load",
                    "unused: both transient phases set their own load; allowed: omit traffic.load or one phase's load",
                ));
            }
            let mut phases = Vec::new();
            for (name, ph) in [("before", &tc.before), ("after", &tc.after)] {
                let prefix = format!("traffic.transient.{name}");
                let load = match (ph.load, top_load) {
                    (Some(l), _) => check_load(&format!("{prefix}.load"), l)?,
                    (None, Some(l)) => l,
                    (None, None) => {
                        return Err(Error::input(
                            "traffic.load",
                            format!("required (offered load in phits/node/cycle) unless both transient phases set `load`; {prefix}.load is missing; allowed: (0, 1]"),
                        ))
                    }
                };
                phases.push(r.phase(ph.pattern, ph.shift, &ph.mix, &prefix, Level::Phase, load)?);
            }
            let after = phases.pop().expect("two phases");
            let before = phases.pop().expect("two phases");
            let label = if before.load == after.load {
                format!("transient({} -> {} @{at})", before.label, after.label)
            } else {
                format!(
                    "transient({} load {} -> {} load {} @{at})",
                    before.label, before.load, after.label, after.load
                )
            };
            (before, Some((at, after)), label)
        } else {
            if t.transient.is_some() {
                return Err(Error::input(
                    "traffic.transient",
                    format!(
                        "does not apply to pattern \"{}\"; allowed only with pattern \"transient\"",
                        t.pattern.name()
                    ),
                ));
            }
            let Some(load) = top_load else {
                return Err(Error::input(
                    "traffic.load",
                    "required: offered load in phits/node/cycle; allowed: (0, 1]",
                ));
            };
            let ph = r.phase(t.pattern, t.shift, &t.mix, "traffic", Level::Top, load)?;
            let label = ph.label.clone();
            (ph, None, label)
        };
        if !r.hot_used {
            if t.hotspots.is_some() {
                return Err(Error::input(
                    "traffic.hotspots",
                    "applies only to pattern \"hotspot\" (also as a mix component or transient phase)",
                ));
            }
            if given("traffic.hotspot_fraction") {
                return Err(Error::input(
                    "traffic.hotspot_fraction",
                    "applies only to pattern \"hotspot\" (also as a mix component or transient phase)",
                ));
            }
        }
        let uniform_only = after.is_none()
            && matches!(
                before.comps[..],
                [DestinationPattern::Uniform(Among::All(_))]
            );
        Ok(SyntheticTraffic {
            n,
            before,
            after,
            label,
            uniform_only,
        })
    }

    /// Number of terminals (Dragonfly spec §1.1 `N`; meshes: routers × terminals per router).
    pub fn terminals(&self) -> u32 {
        self.n
    }

    #[inline]
    fn phase(&self, cycle: u64) -> &Phase {
        match &self.after {
            Some((at, ph)) if cycle >= *at => ph,
            _ => &self.before,
        }
    }

    /// Offered load (phits/node/cycle, spec §4.1) in force at `cycle`; each *active* node
    /// generates packets at this rate.
    pub fn load_at(&self, cycle: u64) -> f64 {
        self.phase(cycle).load
    }

    /// Cycle at which the traffic changes (transient, spec §4.3), if any; the new phase applies
    /// from this cycle on.
    pub fn change_cycle(&self) -> Option<u64> {
        self.after.as_ref().map(|(at, _)| *at)
    }

    /// Whether terminal `src` sends at all at `cycle` (spec §4.2): false for terminals a
    /// permutation maps onto themselves (under `mix`: for which every component does).
    pub fn active(&self, src: u32, cycle: u64) -> bool {
        src < self.n && self.phase(cycle).is_active(src)
    }

    /// Number of active terminals at `cycle` (spec §4.2).
    pub fn active_count(&self, cycle: u64) -> u32 {
        self.phase(cycle).active_count
    }

    /// Draws the destination of a packet generated by `src` at `cycle` (spec §4.2); never `src`.
    /// Under `mix` the component is drawn per packet among those active for `src`. `src` must be
    /// active ([`Self::active`]); for an inactive one (a caller bug, asserted in debug builds) a
    /// uniform destination is returned.
    #[inline]
    pub fn destination(&self, src: u32, cycle: u64, rng: &mut impl Rng) -> u32 {
        debug_assert!(src < self.n, "terminal {src} out of range");
        let ph = if self.uniform_only {
            // the single phase's single component, without looking at the cycle
            &self.before
        } else {
            self.phase(cycle)
        };
        let comp = if ph.comps.len() == 1 {
            &ph.comps[0]
        } else {
            if !ph.is_active(src) {
                debug_assert!(false, "destination() for inactive terminal {src}");
                return Among::All(self.n).draw(src, rng).unwrap_or(src);
            }
            loop {
                let u: f64 = rng.random();
                let i = ph.cum.partition_point(|&c| c <= u).min(ph.comps.len() - 1);
                let c = &ph.comps[i];
                if c.active_for(src) {
                    break c;
                }
            }
        };
        comp.draw(src, rng)
    }

    /// Short label (spec §4.2/§4.3 names): `uniform`, `adv+6`, `adv-1`, `advl`, `advc`,
    /// `transpose`, …, `mix(0.5 uniform + 0.5 adv+1)`, `transient(uniform -> adv+6 @60000)`
    /// (with `load x` after each phase when the phases' loads differ).
    pub fn label(&self) -> String {
        self.label.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::dragonfly::{Arrangement, DragonflyShape};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use std::collections::HashMap;

    fn df(p: u32, a: u32, h: u32) -> (Geometry, DragonflyShape) {
        let s = DragonflyShape::new(p, a, h, Arrangement::Palmtree).unwrap();
        (Geometry::Dragonfly(s), s)
    }
    fn mesh(dims: &[u32], per: u32) -> Geometry {
        Geometry::MeshTorus {
            dims: dims.to_vec(),
            torus: true,
            per_router: per,
        }
    }
    fn build(toml_text: &str, geo: &Geometry) -> Result<SyntheticTraffic> {
        let c: TrafficConfig = toml::from_str(toml_text).expect("toml");
        let table: toml::Table = toml_text.parse().expect("toml");
        let given = |k: &str| table.contains_key(k.trim_start_matches("traffic."));
        SyntheticTraffic::from_config(&c, geo, 1000, &given)
    }
    fn ok(toml_text: &str, geo: &Geometry) -> SyntheticTraffic {
        build(toml_text, geo).unwrap()
    }
    fn err(toml_text: &str, geo: &Geometry, key: &str) -> String {
        match build(toml_text, geo) {
            Ok(t) => panic!("accepted {toml_text:?} as {}", t.label()),
            Err(e) => {
                let s = e.to_string();
                assert!(
                    s.starts_with(&format!("{key}: ")),
                    "{s:?} does not name {key}"
                );
                s
            }
        }
    }

    /// Draws `per_target` × |set| destinations of `src`; all in `set`, never `src`, every member
    /// hit within 30% of the mean.
    fn check_set(
        t: &SyntheticTraffic,
        src: u32,
        set: &[u32],
        per_target: usize,
        rng: &mut ChaCha8Rng,
    ) {
        assert!(!set.is_empty());
        assert!(!set.contains(&src));
        let mut counts: HashMap<u32, usize> = HashMap::new();
        for _ in 0..set.len() * per_target {
            let d = t.destination(src, 0, rng);
            assert_ne!(d, src);
            assert!(
                set.contains(&d),
                "{} src {src} -> {d} outside the set",
                t.label()
            );
            *counts.entry(d).or_default() += 1;
        }
        assert_eq!(
            counts.len(),
            set.len(),
            "{} src {src}: not all targets hit",
            t.label()
        );
        let lo = per_target as f64 * 0.7;
        let hi = per_target as f64 * 1.3;
        for (d, c) in counts {
            assert!(
                (c as f64) >= lo && (c as f64) <= hi,
                "{} src {src} -> {d}: {c} of mean {per_target}",
                t.label()
            );
        }
    }

    fn group_of(s: &DragonflyShape, t: u32) -> u32 {
        s.group(t / s.p)
    }

    #[test]
    fn dragonfly_patterns_hit_exactly_their_sets() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for (p, a, h) in [(2, 4, 2), (3, 6, 3)] {
            let (geo, s) = df(p, a, h);
            let n = s.terminals();
            let gn = s.groups as i64;
            let srcs = [0, 1, n / 2 + 1, n - p, n - 1];
            let un = ok("pattern = \"uniform\"\nload = 0.5", &geo);
            assert_eq!(un.terminals(), n);
            assert_eq!(un.active_count(0), n);
            assert_eq!(un.label(), "uniform");
            for &src in &srcs[..2] {
                let set: Vec<u32> = (0..n).filter(|&d| d != src).collect();
                check_set(&un, src, &set, 250, &mut rng);
            }
            for shift in [1i64, h as i64, 2, -1, -(h as i64) - 1, gn + 2] {
                let t = ok(
                    &format!("pattern = \"adv\"\nshift = {shift}\nload = 0.5"),
                    &geo,
                );
                assert_eq!(t.label(), format!("adv{shift:+}"));
                for &src in &srcs {
                    let dg = (group_of(&s, src) as i64 + shift).rem_euclid(gn) as u32;
                    let set: Vec<u32> = (0..n).filter(|&d| group_of(&s, d) == dg).collect();
                    assert_eq!(set.len() as u32, a * p);
                    check_set(&t, src, &set, 300, &mut rng);
                }
            }
            let t = ok("pattern = \"advl\"\nload = 0.5", &geo);
            for &src in &srcs {
                let r = src / p;
                let dr = s.group(r) * a + (s.index(r) + 1) % a;
                let set: Vec<u32> = (0..n).filter(|&d| d / p == dr).collect();
                assert_eq!(set.len() as u32, p);
                check_set(&t, src, &set, 300, &mut rng);
            }
            let t = ok("pattern = \"advc\"\nload = 0.5", &geo);
            for &src in &srcs {
                let g = group_of(&s, src);
                let set: Vec<u32> = (0..n)
                    .filter(|&d| {
                        let off = (group_of(&s, d) + s.groups - g) % s.groups;
                        (1..=h).contains(&off)
                    })
                    .collect();
                assert_eq!(set.len() as u32, h * a * p);
                check_set(&t, src, &set, 250, &mut rng);
                // exactly the groups +1..+h
                let mut groups: Vec<u32> = set.iter().map(|&d| group_of(&s, d)).collect();
                groups.dedup();
                assert_eq!(groups.len() as u32, h);
            }
        }
    }

    #[test]
    fn adv_negative_shift_goes_backwards() {
        let (geo, s) = df(2, 4, 2);
        let t = ok("pattern = \"adv\"\nshift = -1\nload = 0.3", &geo);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for src in 0..s.terminals() {
            let d = t.destination(src, 0, &mut rng);
            assert_eq!(
                group_of(&s, d),
                (group_of(&s, src) + s.groups - 1) % s.groups
            );
        }
    }

    fn mesh_dest(t: &SyntheticTraffic, src: u32) -> u32 {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let d = t.destination(src, 0, &mut rng);
        assert_eq!(
            d,
            t.destination(src, 0, &mut rng),
            "permutation not deterministic"
        );
        d
    }

    #[test]
    fn mesh_permutations() {
        for k in [4u32, 8] {
            let geo = mesh(&[k, k], 1);
            let n = k * k;
            // transpose: (x, y) -> (y, x), diagonal inactive
            let t = ok("pattern = \"transpose\"\nload = 0.5", &geo);
            assert_eq!(t.active_count(0), n - k);
            for r in 0..n {
                let (x, y) = (r % k, r / k);
                assert_eq!(t.active(r, 0), x != y);
                if x != y {
                    assert_eq!(mesh_dest(&t, r), y + x * k);
                }
            }
            // tornado: + ceil(k/2) - 1 per dimension (k = 8: +3)
            let t = ok("pattern = \"tornado\"\nload = 0.5", &geo);
            let off = k.div_ceil(2) - 1;
            assert_eq!(off, if k == 8 { 3 } else { 1 });
            for r in 0..n {
                let (x, y) = (r % k, r / k);
                assert_eq!(mesh_dest(&t, r), (x + off) % k + ((y + off) % k) * k);
            }
            // neighbour: +1 per dimension
            let t = ok("pattern = \"neighbour\"\nload = 0.5", &geo);
            assert_eq!(t.active_count(0), n);
            for r in 0..n {
                let (x, y) = (r % k, r / k);
                assert_eq!(mesh_dest(&t, r), (x + 1) % k + ((y + 1) % k) * k);
            }
            // bit complement
            let t = ok("pattern = \"bit_complement\"\nload = 0.5", &geo);
            assert_eq!(t.active_count(0), n);
            for r in 0..n {
                assert_eq!(mesh_dest(&t, r), n - 1 - r);
            }
        }
        // bit reversal of 6 bits on 8×8
        let geo = mesh(&[8, 8], 1);
        let t = ok("pattern = \"bit_reversal\"\nload = 0.5", &geo);
        let rev6 = |r: u32| (0..6).fold(0, |acc, b| acc | (((r >> b) & 1) << (5 - b)));
        assert_eq!(rev6(1), 32);
        assert_eq!(rev6(0b000011), 0b110000);
        let mut inactive = 0;
        for r in 0..64 {
            if rev6(r) == r {
                assert!(!t.active(r, 0));
                inactive += 1;
            } else {
                assert_eq!(mesh_dest(&t, r), rev6(r));
            }
        }
        assert_eq!(inactive, 8);
        assert_eq!(t.active_count(0), 56);
        // shuffle: rotate 4 bits left on 4×4
        let t = ok("pattern = \"shuffle\"\nload = 0.5", &mesh(&[4, 4], 1));
        assert_eq!(mesh_dest(&t, 1), 2);
        assert_eq!(mesh_dest(&t, 8), 1);
        assert_eq!(mesh_dest(&t, 0b1010), 0b0101);
        assert!(!t.active(0, 0) && !t.active(15, 0));
        assert_eq!(t.active_count(0), 14);
        // 3-D tornado on 8×4×2 (dimension 2 has offset 0)
        let t = ok("pattern = \"tornado\"\nload = 0.5", &mesh(&[8, 4, 2], 1));
        for r in 0..64 {
            let (x, y, z) = (r % 8, (r / 8) % 4, r / 32);
            assert_eq!(mesh_dest(&t, r), (x + 3) % 8 + ((y + 1) % 4) * 8 + z * 32);
        }
    }

    #[test]
    fn mesh_permutation_keeps_local_index() {
        let t = ok("pattern = \"transpose\"\nload = 0.5", &mesh(&[4, 4], 2));
        assert_eq!(t.terminals(), 32);
        assert_eq!(t.active_count(0), 24);
        for term in 0..32 {
            let (r, k) = (term / 2, term % 2);
            let (x, y) = (r % 4, r / 4);
            if x == y {
                assert!(!t.active(term, 0));
            } else {
                assert_eq!(mesh_dest(&t, term), (y + x * 4) * 2 + k);
            }
        }
        // power-of-two routers suffice for the bit patterns
        let t = ok(
            "pattern = \"bit_complement\"\nload = 0.5",
            &mesh(&[4, 4], 3),
        );
        assert_eq!(mesh_dest(&t, 2 * 3 + 1), 13 * 3 + 1);
    }

    #[test]
    fn uniform_on_mesh() {
        let t = ok("load = 0.2", &mesh(&[3, 3], 2));
        assert_eq!(t.label(), "uniform");
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let set: Vec<u32> = (0..18).filter(|&d| d != 5).collect();
        check_set(&t, 5, &set, 400, &mut rng);
    }

    #[test]
    fn hotspot_fraction() {
        let geo = mesh(&[8, 8], 1);
        let t = ok(
            "pattern = \"hotspot\"\nload = 0.5\nhotspots = [9, 5]\nhotspot_fraction = 0.2",
            &geo,
        );
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let draws = 200_000;
        let mut hot = 0;
        for _ in 0..draws {
            let d = t.destination(0, 0, &mut rng);
            assert_ne!(d, 0);
            if d == 5 || d == 9 {
                hot += 1;
            }
        }
        let want = 0.2 + 0.8 * 2.0 / 63.0;
        let got = hot as f64 / draws as f64;
        assert!((got - want).abs() < 0.01, "{got} vs {want}");
        // a hot source sends its hot share to the other hot terminal
        let mut to9 = 0;
        for _ in 0..draws {
            let d = t.destination(5, 0, &mut rng);
            assert_ne!(d, 5);
            to9 += (d == 9) as u32;
        }
        let want = 0.2 + 0.8 / 63.0;
        let got = to9 as f64 / draws as f64;
        assert!((got - want).abs() < 0.01, "{got} vs {want}");
        // default fraction 0.1, on a Dragonfly
        let (geo, _) = df(2, 4, 2);
        let t = ok("pattern = \"hotspot\"\nload = 0.5\nhotspots = [3]", &geo);
        let mut hot = 0;
        for _ in 0..draws {
            hot += (t.destination(40, 0, &mut rng) == 3) as u32;
        }
        let got = hot as f64 / draws as f64;
        assert!((got - (0.1 + 0.9 / 71.0)).abs() < 0.01, "{got}");
    }

    #[test]
    fn mix_fractions() {
        let (geo, s) = df(2, 4, 2);
        let t = ok(
            "pattern = \"mix\"\nload = 0.5\n[[mix]]\npattern = \"advl\"\nfraction = 0.3\n[[mix]]\npattern = \"adv\"\nshift = 2\nfraction = 0.7",
            &geo,
        );
        assert_eq!(t.label(), "mix(0.3 advl + 0.7 adv+2)");
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let draws = 100_000;
        let src = 13;
        let mut local = 0;
        for _ in 0..draws {
            let d = t.destination(src, 0, &mut rng);
            let (gs, gd) = (group_of(&s, src), group_of(&s, d));
            if gd == gs {
                assert_eq!(d / 2, gs * 4 + (s.index(src / 2) + 1) % 4);
                local += 1;
            } else {
                assert_eq!(gd, (gs + 2) % s.groups);
            }
        }
        let got = local as f64 / draws as f64;
        assert!((got - 0.3).abs() < 0.01, "{got}");
        let l = ok(
            "pattern = \"mix\"\nload = 0.5\n[[mix]]\npattern = \"uniform\"\nfraction = 0.5\n[[mix]]\npattern = \"adv\"\nshift = 1\nfraction = 0.5",
            &geo,
        );
        assert_eq!(l.label(), "mix(0.5 uniform + 0.5 adv+1)");
        // a permutation's fixed point stays active through another component, and only uses it
        let t = ok(
            "pattern = \"mix\"\nload = 0.5\n[[mix]]\npattern = \"transpose\"\nfraction = 0.5\n[[mix]]\npattern = \"uniform\"\nfraction = 0.5",
            &mesh(&[4, 4], 1),
        );
        assert_eq!(t.active_count(0), 16);
        assert!(t.active(5, 0));
        let mut seen = [0u32; 16];
        for _ in 0..30_000 {
            seen[t.destination(5, 0, &mut rng) as usize] += 1;
        }
        assert_eq!(seen[5], 0);
        assert!(seen.iter().enumerate().all(|(i, &c)| i == 5 || c > 1500));
        let mut to_t = 0;
        for _ in 0..30_000 {
            to_t += (t.destination(1, 0, &mut rng) == 4) as u32;
        }
        let got = to_t as f64 / 30_000.0;
        assert!((got - (0.5 + 0.5 / 15.0)).abs() < 0.02, "{got}");
    }

    #[test]
    fn transient_switches_pattern_and_load() {
        let (geo, s) = df(2, 4, 2);
        let t = ok(
            "pattern = \"transient\"\n[transient]\nat_cycle = 500\n[transient.before]\npattern = \"uniform\"\nload = 0.1\n[transient.after]\npattern = \"adv\"\nshift = 2\nload = 0.3",
            &geo,
        );
        assert_eq!(t.change_cycle(), Some(500));
        assert_eq!(t.load_at(0), 0.1);
        assert_eq!(t.load_at(499), 0.1);
        assert_eq!(t.load_at(500), 0.3);
        assert_eq!(
            t.label(),
            "transient(uniform load 0.1 -> adv+2 load 0.3 @500)"
        );
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut other = 0;
        for _ in 0..2000 {
            let d = t.destination(0, 499, &mut rng);
            other += (group_of(&s, d) != 2) as u32;
            assert_eq!(group_of(&s, t.destination(0, 500, &mut rng)), 2);
            assert_eq!(group_of(&s, t.destination(0, 10_000, &mut rng)), 2);
        }
        assert!(other > 1500);
        // default at_cycle = warm-up, shared load
        let t = ok(
            "pattern = \"transient\"\nload = 0.4\n[transient.before]\npattern = \"uniform\"\n[transient.after]\npattern = \"mix\"\n[[transient.after.mix]]\npattern = \"adv\"\nshift = 1\nfraction = 1.0",
            &geo,
        );
        assert_eq!(t.change_cycle(), Some(1000));
        assert_eq!(t.load_at(999), 0.4);
        assert_eq!(t.load_at(1000), 0.4);
        assert_eq!(t.label(), "transient(uniform -> mix(1 adv+1) @1000)");
        // active set changes with the phase
        let t = ok(
            "pattern = \"transient\"\nload = 0.4\n[transient]\nat_cycle = 10\n[transient.before]\npattern = \"uniform\"\n[transient.after]\npattern = \"transpose\"",
            &mesh(&[4, 4], 1),
        );
        assert!(t.active(0, 9) && !t.active(0, 10));
        assert_eq!((t.active_count(9), t.active_count(10)), (16, 12));
        let steady = ok("pattern = \"advc\"\nload = 0.5", &geo);
        assert_eq!(steady.change_cycle(), None);
        assert_eq!(steady.load_at(u64::MAX), 0.5);
    }

    #[test]
    fn bad_inputs_name_their_keys() {
        let (geo, _) = df(2, 4, 2);
        let m = mesh(&[4, 4], 1);
        err(
            "pattern = \"uniform\"\nshift = 1\nload = 0.5",
            &geo,
            "traffic.shift",
        );
        err("pattern = \"adv\"\nload = 0.5", &geo, "traffic.shift");
        err(
            "pattern = \"adv\"\nshift = 9\nload = 0.5",
            &geo,
            "traffic.shift",
        );
        err(
            "pattern = \"adv\"\nshift = -18\nload = 0.5",
            &geo,
            "traffic.shift",
        );
        err("pattern = \"uniform\"", &geo, "traffic.load");
        err("pattern = \"uniform\"\nload = 0.0", &geo, "traffic.load");
        err("pattern = \"uniform\"\nload = 1.5", &geo, "traffic.load");
        // (an unknown name is refused by the schema's enum, naming every pattern)
        let e = err(
            "pattern = \"transpose\"\nload = 0.5",
            &geo,
            "traffic.pattern",
        );
        assert!(
            e.contains("\"advc\"") && e.contains("\"transient\"") && !e.contains("\"shuffle\""),
            "{e}"
        );
        let e = err("pattern = \"advl\"\nload = 0.5", &m, "traffic.pattern");
        assert!(
            e.contains("\"transpose\"") && !e.contains("\"advc\""),
            "{e}"
        );
        err("pattern = \"advc\"\nload = 0.5", &m, "traffic.pattern");
        err(
            "pattern = \"adv\"\nshift = 1\nload = 0.5",
            &m,
            "traffic.pattern",
        );
        err(
            "pattern = \"transpose\"\nload = 0.5",
            &geo,
            "traffic.pattern",
        );
        err(
            "pattern = \"transpose\"\nload = 0.5",
            &mesh(&[4, 8], 1),
            "traffic.pattern",
        );
        err(
            "pattern = \"transpose\"\nload = 0.5",
            &mesh(&[4, 4, 4], 1),
            "traffic.pattern",
        );
        err(
            "pattern = \"bit_reversal\"\nload = 0.5",
            &mesh(&[3, 3], 1),
            "traffic.pattern",
        );
        err(
            "pattern = \"shuffle\"\nload = 0.5",
            &mesh(&[6], 2),
            "traffic.pattern",
        );
        err(
            "pattern = \"tornado\"\nload = 0.5",
            &mesh(&[2, 2], 1),
            "traffic.pattern",
        );
        // mix
        err(
            "load = 0.5\n[[mix]]\npattern = \"uniform\"\nfraction = 1.0",
            &geo,
            "traffic.mix",
        );
        err("pattern = \"mix\"\nload = 0.5", &geo, "traffic.mix");
        err(
            "pattern = \"mix\"\nload = 0.5\n[[mix]]\npattern = \"uniform\"\nfraction = 1.1\n[[mix]]\npattern = \"advl\"\nfraction = -0.1",
            &geo,
            "traffic.mix[0].fraction",
        );
        err(
            "pattern = \"mix\"\nload = 0.5\n[[mix]]\npattern = \"uniform\"\nfraction = 0.5\n[[mix]]\npattern = \"advl\"\nfraction = 0.0",
            &geo,
            "traffic.mix[1].fraction",
        );
        err(
            "pattern = \"mix\"\nload = 0.5\n[[mix]]\npattern = \"uniform\"\nfraction = 0.5\n[[mix]]\npattern = \"advl\"\nfraction = 0.4",
            &geo,
            "traffic.mix",
        );
        err(
            "pattern = \"mix\"\nload = 0.5\n[[mix]]\npattern = \"mix\"\nfraction = 1.0",
            &geo,
            "traffic.mix[0].pattern",
        );
        err(
            "pattern = \"mix\"\nload = 0.5\n[[mix]]\npattern = \"uniform\"\nfraction = 0.5\n[[mix]]\npattern = \"uniform\"\nshift = 1\nfraction = 0.5",
            &geo,
            "traffic.mix[1].shift",
        );
        err(
            "pattern = \"mix\"\nshift = 1\nload = 0.5\n[[mix]]\npattern = \"adv\"\nfraction = 1.0",
            &geo,
            "traffic.shift",
        );
        // transient
        let tr = |before: &str, after: &str| {
            format!("pattern = \"transient\"\nload = 0.5\n[transient.before]\n{before}\n[transient.after]\n{after}")
        };
        let e = err(
            &tr("pattern = \"uniform\"", "pattern = \"transient\""),
            &geo,
            "traffic.transient.after.pattern",
        );
        assert!(e.contains("\"mix\"") && !e.contains("\"transient\""), "{e}");
        err(
            &tr("pattern = \"uniform\"", "pattern = \"transient\""),
            &geo,
            "traffic.transient.after.pattern",
        );
        err(
            &tr("pattern = \"adv\"", "pattern = \"uniform\""),
            &geo,
            "traffic.transient.before.shift",
        );
        err(
            &tr("pattern = \"uniform\"\nload = 2.0", "pattern = \"uniform\""),
            &geo,
            "traffic.transient.before.load",
        );
        err(
            &tr(
                "pattern = \"mix\"\n[[transient.before.mix]]\npattern = \"adv\"\nfraction = 1.0",
                "pattern = \"uniform\"",
            ),
            &geo,
            "traffic.transient.before.mix[0].shift",
        );
        err(
            &tr(
                "pattern = \"uniform\"\n[[transient.before.mix]]\npattern = \"advl\"\nfraction = 1.0",
                "pattern = \"uniform\"",
            ),
            &geo,
            "traffic.transient.before.mix",
        );
        err(
            &tr(
                "pattern = \"uniform\"\nload = 0.1",
                "pattern = \"uniform\"\nload = 0.2",
            ),
            &geo,
            "traffic.load",
        );
        err(
            "pattern = \"transient\"\n[transient.before]\npattern = \"uniform\"\nload = 0.1\n[transient.after]\npattern = \"uniform\"",
            &geo,
            "traffic.load",
        );
        ok(
            "pattern = \"transient\"\n[transient.before]\npattern = \"uniform\"\nload = 0.1\n[transient.after]\npattern = \"uniform\"\nload = 0.2",
            &geo,
        );
        err(
            "pattern = \"transient\"\nload = 0.5",
            &geo,
            "traffic.transient",
        );
        err(
            "pattern = \"uniform\"\nload = 0.5\n[transient.before]\npattern = \"uniform\"\n[transient.after]\npattern = \"uniform\"",
            &geo,
            "traffic.transient",
        );
        err(
            &format!(
                "shift = 1\n{}",
                tr("pattern = \"uniform\"", "pattern = \"uniform\"")
            ),
            &geo,
            "traffic.shift",
        );
        // hotspots
        err(
            "pattern = \"uniform\"\nload = 0.5\nhotspots = [1]",
            &geo,
            "traffic.hotspots",
        );
        err(
            "pattern = \"uniform\"\nload = 0.5\nhotspot_fraction = 0.2",
            &geo,
            "traffic.hotspot_fraction",
        );
        err(
            "pattern = \"hotspot\"\nload = 0.5",
            &geo,
            "traffic.hotspots",
        );
        err(
            "pattern = \"hotspot\"\nload = 0.5\nhotspots = []",
            &geo,
            "traffic.hotspots",
        );
        err(
            "pattern = \"hotspot\"\nload = 0.5\nhotspots = [1, 72]",
            &geo,
            "traffic.hotspots[1]",
        );
        err(
            "pattern = \"hotspot\"\nload = 0.5\nhotspots = [1, 1]",
            &geo,
            "traffic.hotspots[1]",
        );
        err(
            "pattern = \"hotspot\"\nload = 0.5\nhotspots = [1]\nhotspot_fraction = 1.5",
            &geo,
            "traffic.hotspot_fraction",
        );
        // hotspot as a mix component uses the top-level list
        ok(
            "pattern = \"mix\"\nload = 0.5\nhotspots = [1]\n[[mix]]\npattern = \"hotspot\"\nfraction = 0.5\n[[mix]]\npattern = \"advc\"\nfraction = 0.5",
            &geo,
        );
    }
}
