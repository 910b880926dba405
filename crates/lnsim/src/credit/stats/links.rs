//! Per-link throughput over time (drb-and-ddbbm spec A.7 "per-link throughput vs time", Fig. 10):
//! data bytes each switch output (switch → switch and switch → HCA link direction) starts to put
//! on its wire per statistics interval (`links.csv`, `stats.links`), and the hot-spot link set of
//! spec A.6/A.8 R-A8–R-A9 (`stats.hotspot`): the links into the hot HCA's switch from its
//! neighbouring switches plus the switch → HCA link, whose highest interval throughput after the
//! hot spot starts is the summary's `hotspot.peak_link_mbps`.

use crate::config::{HcaNames, LinkMeasure, NodeSet, Ps, Scenario};
use crate::error::{Error, Result};
use crate::topology::{Fabric, NodeKind};

/// Data bytes per tracked link direction and statistics interval (spec A.7).
#[derive(Debug, Clone)]
pub struct LinkSeries {
    /// Per global port: its index among the tracked links, or `u32::MAX` (not a switch output).
    pub index: Vec<u32>,
    /// The tracked global ports (switch outputs), in port order.
    pub gports: Vec<u32>,
    /// `[interval * gports.len() + i]`: data bytes whose transmission started in the interval
    /// (`stats.link_measure = "routed"`: that were injected in the interval).
    pub bytes: Vec<u64>,
    /// Count a packet in the interval of its injection (`"routed"`), not of its transmission.
    pub at_injection: bool,
}

impl LinkSeries {
    /// A series over `n_int` intervals for the ports with `tracked[g]` set.
    pub fn new(tracked: &[bool], n_int: usize) -> Self {
        let mut index = vec![u32::MAX; tracked.len()];
        let mut gports = Vec::new();
        for (g, &t) in tracked.iter().enumerate() {
            if t {
                index[g] = gports.len() as u32;
                gports.push(g as u32);
            }
        }
        let bytes = vec![0; n_int * gports.len()];
        LinkSeries {
            index,
            gports,
            bytes,
            at_injection: false,
        }
    }

    /// Number of tracked links.
    #[inline]
    pub fn len(&self) -> usize {
        self.gports.len()
    }

    /// True when no link is tracked.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.gports.is_empty()
    }
}

/// The hot-spot measurement of drb-and-ddbbm spec A.6 and A.8 (R-A8, R-A9): the hot HCA and
/// from when its links' peak is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hotspot {
    /// The hot HCA (index, LID − 1).
    pub hca: u32,
    /// Start of the peak search: the intervals that end after it count (the one containing it
    /// included).
    pub from: Ps,
    /// `stats.hotspot_window` in statistics intervals (the sliding mean's length), if given.
    pub window: Option<u32>,
}

/// Resolves `stats.hotspot` and `stats.hotspot_from` (spec A.6): the HCA by name (an unknown
/// name or a switch is an input error listing the HCAs), and the start of the peak search —
/// `stats.hotspot_from`, else the earliest `start` of a generator whose only destination is that
/// HCA (`hotspot_fraction = 1` with `hotspot` = it, or `destinations` = \[it\]), else `sim.warmup`;
/// it must lie before `sim.end_time`.
pub fn resolve_hotspot(s: &Scenario, fabric: &Fabric) -> Result<Option<Hotspot>> {
    let key = "stats.hotspot";
    if s.stats.link_measure == LinkMeasure::Routed && !s.stats.links && s.stats.hotspot.is_none() {
        return Err(Error::input(
            "stats.link_measure",
            "\"routed\" counts the per-link series of `stats.links` or `stats.hotspot`: set one of them, or leave it \"wire\"",
        ));
    }
    let Some(name) = &s.stats.hotspot else {
        for k in ["stats.hotspot_from", "stats.hotspot_window"] {
            let given = match k {
                "stats.hotspot_from" => s.stats.hotspot_from.is_some(),
                _ => s.stats.hotspot_window.is_some(),
            };
            if given {
                return Err(Error::input(k, "needs `stats.hotspot` (the hot HCA)"));
            }
        }
        return Ok(None);
    };
    if let Some(w) = s.stats.hotspot_window {
        let iv = s.sim.interval.0;
        if w.0 == 0 || !w.0.is_multiple_of(iv) {
            return Err(Error::input(
                "stats.hotspot_window",
                format!(
                    "must be a positive multiple of sim.interval ({} s): the sliding mean spans whole intervals",
                    iv as f64 / crate::config::PS_PER_S as f64
                ),
            ));
        }
    }
    let id = match fabric.by_name.get(name.as_str()) {
        Some(&id) if fabric.nodes[id as usize].kind == NodeKind::Hca => id,
        _ => {
            const SHOWN: usize = 20;
            let names: Vec<&str> = fabric
                .hcas
                .iter()
                .map(|&h| fabric.nodes[h as usize].name.as_str())
                .collect();
            let more = names.len().saturating_sub(SHOWN);
            let list = names[..names.len().min(SHOWN)].join(", ");
            return Err(Error::input(
                key,
                format!(
                    "`{name}` is not an HCA of this topology; allowed: an HCA name ({list}{})",
                    if more > 0 {
                        format!(", … {more} more")
                    } else {
                        String::new()
                    }
                ),
            ));
        }
    };
    let end = s.sim.end_ps();
    let from = match s.stats.hotspot_from {
        Some(d) => d.0,
        None => s
            .traffic
            .generators
            .iter()
            .filter(|g| only_to(g, name))
            .map(|g| g.start.0)
            .min()
            .unwrap_or(s.sim.warmup.0),
    };
    if from >= end {
        return Err(Error::input(
            if s.stats.hotspot_from.is_some() {
                "stats.hotspot_from"
            } else {
                key
            },
            format!(
                "the hot spot's peak search would start at {} s, not before sim.end_time ({} s)",
                from as f64 / crate::config::PS_PER_S as f64,
                end as f64 / crate::config::PS_PER_S as f64
            ),
        ));
    }
    Ok(Some(Hotspot {
        hca: fabric.nodes[id as usize].lid - 1,
        from,
        window: s
            .stats
            .hotspot_window
            .map(|w| (w.0 / s.sim.interval.0) as u32),
    }))
}

/// True if generator `g` sends only to the HCA `name`.
fn only_to(g: &crate::config::GeneratorConfig, name: &str) -> bool {
    let hot_only = g.hotspot_fraction.is_some_and(|f| f >= 1.0)
        && match &g.hotspot {
            Some(HcaNames::One(h)) => h == name,
            Some(HcaNames::List(v)) => v.len() == 1 && v[0] == name,
            None => false,
        };
    let dest_only = matches!(&g.destinations, NodeSet::List(v) if v.len() == 1 && v[0] == name);
    hot_only || dest_only
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracked_ports_get_dense_indices() {
        let l = LinkSeries::new(&[false, true, true, false, true], 3);
        assert_eq!(l.gports, vec![1, 2, 4]);
        assert_eq!(l.index, vec![u32::MAX, 0, 1, u32::MAX, 2]);
        assert_eq!((l.len(), l.bytes.len()), (3, 9));
    }
}
