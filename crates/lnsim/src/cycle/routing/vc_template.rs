//! VC assignment by hop-type template (Dragonfly spec §3.0.3): a routing declares the ordered
//! list of link classes its longest path may use; the VC of a hop is found by walking the
//! template forward from the position of the input (class, VC). Every packet visits template
//! positions in strictly increasing order, so the channel-dependency graph is acyclic for every
//! path the template covers, shortened ones included.

use crate::error::{Error, Result};

/// Class of a router-to-router link in a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HopClass {
    /// Local (intra-group; every transit link of a mesh/torus).
    Local,
    /// Global (inter-group).
    Global,
}

/// An ordered list of `(class, vc)` entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VcTemplate {
    /// The entries in path order.
    pub entries: Vec<(HopClass, u8)>,
}

impl VcTemplate {
    /// The template of a class sequence: the VC of each entry is its occurrence count among
    /// entries of the same class (`[L, G, L]` → L0 G0 L1).
    pub fn from_classes(classes: &[HopClass]) -> Self {
        let (mut l, mut g) = (0u8, 0u8);
        let entries = classes
            .iter()
            .map(|&c| {
                let n = if c == HopClass::Local { &mut l } else { &mut g };
                *n += 1;
                (c, *n - 1)
            })
            .collect();
        VcTemplate { entries }
    }
    /// MIN: `[L, G, L]` (2 local, 1 global VC).
    pub fn minimal() -> Self {
        use HopClass::*;
        Self::from_classes(&[Local, Global, Local])
    }
    /// Valiant and the adaptive routings that may take a Valiant path: `[L, G, L, L, G, L]`
    /// (4 local, 2 global VCs).
    pub fn valiant() -> Self {
        use HopClass::*;
        Self::from_classes(&[Local, Global, Local, Local, Global, Local])
    }
    /// Parses an explicit template such as `["L0", "G0", "L1"]` (`routing.vc_template`).
    pub fn parse(items: &[String]) -> Result<Self> {
        if items.is_empty() {
            return Err(Error::input("routing.vc_template", "is empty"));
        }
        let mut entries = Vec::with_capacity(items.len());
        for (i, s) in items.iter().enumerate() {
            let key = format!("routing.vc_template[{i}]");
            let class = match s.chars().next() {
                Some('L') => HopClass::Local,
                Some('G') => HopClass::Global,
                _ => {
                    return Err(Error::input(
                        &key,
                        format!("`{s}`: an entry is L or G followed by a VC number, e.g. \"L0\""),
                    ))
                }
            };
            let vc: u8 = s[1..].parse().map_err(|_| {
                Error::input(
                    &key,
                    format!("`{s}`: an entry is L or G followed by a VC number, e.g. \"G1\""),
                )
            })?;
            entries.push((class, vc));
        }
        Ok(VcTemplate { entries })
    }
    /// VCs the template uses on links of `class` (highest index + 1).
    pub fn vcs(&self, class: HopClass) -> u32 {
        self.entries
            .iter()
            .filter(|e| e.0 == class)
            .map(|e| e.1 as u32 + 1)
            .max()
            .unwrap_or(0)
    }
    /// Position of the first entry `(class, vc)`, if any.
    #[inline]
    pub fn position(&self, class: HopClass, vc: u8) -> Option<usize> {
        self.entries.iter().position(|&e| e == (class, vc))
    }
    /// The template position used by the next hop of class `out` after position `pos` (`None`
    /// before the first router-to-router hop), or `None` when the template has no entry left
    /// (the path is longer than the template).
    #[inline]
    pub fn next(&self, pos: Option<usize>, out: HopClass) -> Option<usize> {
        let from = pos.map_or(0, |p| p + 1);
        (from..self.entries.len()).find(|&j| self.entries[j].0 == out)
    }
}

#[cfg(test)]
mod tests {
    use super::HopClass::*;
    use super::*;

    #[test]
    fn templates_of_the_spec() {
        let v = VcTemplate::valiant();
        let names: Vec<String> = v
            .entries
            .iter()
            .map(|(c, n)| format!("{}{n}", if *c == Local { 'L' } else { 'G' }))
            .collect();
        assert_eq!(names, ["L0", "G0", "L1", "L2", "G1", "L3"]);
        assert_eq!((v.vcs(Local), v.vcs(Global)), (4, 2));
        let m = VcTemplate::minimal();
        assert_eq!((m.vcs(Local), m.vcs(Global)), (2, 1));
    }

    #[test]
    fn skipped_hops_advance_the_position() {
        // -g- in the 6-entry template: G0 → L1 → G1 → L3 (spec §3.0.3)
        let v = VcTemplate::valiant();
        let mut pos = None;
        let mut got = vec![];
        for c in [Global, Local, Global, Local] {
            pos = v.next(pos, c);
            got.push(v.entries[pos.unwrap()]);
        }
        assert_eq!(got, [(Global, 0), (Local, 1), (Global, 1), (Local, 3)]);
        // MIN template: a fourth hop has no entry
        let m = VcTemplate::minimal();
        let p = m.next(m.next(m.next(None, Local), Global), Local);
        assert_eq!(p, Some(2));
        assert_eq!(m.next(p, Local), None);
    }

    #[test]
    fn explicit_templates_parse_and_bad_ones_name_the_entry() {
        let t = VcTemplate::parse(&["L0".into(), "G0".into(), "L1".into()]).unwrap();
        assert_eq!(t, VcTemplate::minimal());
        let e = VcTemplate::parse(&["L0".into(), "X1".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("routing.vc_template[1]"), "{e}");
    }
}
