//! IBA VL arbitration: a high-priority and a low-priority table of `(VL, weight)` entries,
//! weights in 64-byte units, and a limit of high-priority traffic before one low-priority
//! packet must be let through (spec §3.5, \[X\] vlarb).

use crate::config::VlArbitrationConfig;
use crate::error::{Error, Result};

/// The arbitration tables (shared by all ports).
#[derive(Debug, Clone, Default)]
pub struct VlArbTable {
    /// High-priority entries.
    pub high: Vec<(u8, u32)>,
    /// Low-priority entries.
    pub low: Vec<(u8, u32)>,
    /// Bytes of high-priority traffic allowed before a low-priority packet (None = unlimited).
    pub high_limit_bytes: Option<u64>,
    /// A management lane (IBA's VL15, drb-and-ddbbm spec B.4) served before both tables,
    /// outside the weights and the limit.
    pub management: Option<u8>,
}

/// Per-output arbitration state.
#[derive(Debug, Clone, Copy, Default)]
pub struct VlArbState {
    high_idx: u16,
    high_left: u32,
    low_idx: u16,
    low_left: u32,
    high_bytes: u64,
}

impl VlArbTable {
    /// Builds the tables; by default every data VL is in the low table with weight 255.
    pub fn from_config(c: &VlArbitrationConfig, vls: u32) -> Result<Self> {
        let check = |t: &[[u32; 2]], key: &str| -> Result<Vec<(u8, u32)>> {
            t.iter()
                .enumerate()
                .map(|(i, &[vl, w])| {
                    if vl >= vls {
                        Err(Error::input(
                            &format!("{key}[{i}]"),
                            format!("VL {vl} does not exist; switch.vls = {vls}"),
                        ))
                    } else if w == 0 || w > 255 {
                        Err(Error::input(
                            &format!("{key}[{i}]"),
                            format!("weight {w} outside 1–255"),
                        ))
                    } else {
                        Ok((vl as u8, w))
                    }
                })
                .collect()
        };
        let high = check(&c.high, "switch.vl_arbitration.high")?;
        let mut low = check(&c.low, "switch.vl_arbitration.low")?;
        if low.is_empty() && high.is_empty() {
            low = (0..vls).map(|v| (v as u8, 255)).collect();
        }
        let high_limit_bytes = if c.high_limit >= 255 {
            None
        } else {
            Some(c.high_limit as u64 * 4096)
        };
        Ok(VlArbTable {
            high,
            low,
            high_limit_bytes,
            management: None,
        })
    }

    /// True if VL `vl` is in the high or the low table (a VL in neither is never sent).
    pub fn serves(&self, vl: u8) -> bool {
        self.management == Some(vl) || self.high.iter().chain(&self.low).any(|&(v, _)| v == vl)
    }

    /// Offers VLs in arbitration order to `try_vl`, which returns the packet bytes it granted
    /// (stop) or None (next). Returns true if some VL was granted.
    #[inline]
    pub fn arbitrate(
        &self,
        st: &mut VlArbState,
        mut try_vl: impl FnMut(u8) -> Option<u32>,
    ) -> bool {
        let mut table = self;
        arbitrate_in(&mut table, deref_table, st, |_, vl| try_vl(vl))
    }

    /// The high (`high`) or the low table's entries.
    #[inline(always)]
    fn entries(&self, high: bool) -> &[(u8, u32)] {
        if high {
            &self.high
        } else {
            &self.low
        }
    }
}

/// The table behind a reference ([`VlArbTable::arbitrate`]'s context).
#[inline(always)]
fn deref_table<'a>(t: &'a &VlArbTable) -> &'a VlArbTable {
    t
}

/// [`VlArbTable::arbitrate`] for a table kept inside the state `ctx` that the VL tries change
/// (the network: its arbiters' tables beside their queues): `table` finds the table in `ctx`
/// whenever it is read, and `try_vl` gets `ctx` to change, so that the table is neither
/// copied nor moved out for the arbitration. `try_vl` must not change the table.
#[inline]
pub fn arbitrate_in<C: ?Sized>(
    ctx: &mut C,
    table: impl Fn(&C) -> &VlArbTable,
    st: &mut VlArbState,
    mut try_vl: impl FnMut(&mut C, u8) -> Option<u32>,
) -> bool {
    if let Some(m) = table(ctx).management {
        if try_vl(ctx, m).is_some() {
            return true;
        }
    }
    let high_ok = table(ctx)
        .high_limit_bytes
        .is_none_or(|l| st.high_bytes < l);
    let has_high = !table(ctx).high.is_empty();
    if high_ok && has_high {
        if let Some((i, b)) = serve(ctx, &table, true, st.high_idx, &mut try_vl) {
            charge(
                table(ctx).entries(true),
                &mut st.high_idx,
                &mut st.high_left,
                i,
                b,
            );
            st.high_bytes += b as u64;
            return true;
        }
    }
    if let Some((i, b)) = serve(ctx, &table, false, st.low_idx, &mut try_vl) {
        charge(
            table(ctx).entries(false),
            &mut st.low_idx,
            &mut st.low_left,
            i,
            b,
        );
        st.high_bytes = 0;
        return true;
    }
    if !high_ok && has_high {
        // nothing low-priority waiting: the limit does not block high-priority traffic
        if let Some((i, b)) = serve(ctx, &table, true, st.high_idx, &mut try_vl) {
            charge(
                table(ctx).entries(true),
                &mut st.high_idx,
                &mut st.high_left,
                i,
                b,
            );
            return true;
        }
    }
    false
}

/// Offers the VLs of the high (`high`) or low table from entry `start` on, round the table;
/// returns the entry granted and its bytes.
#[inline]
fn serve<C: ?Sized>(
    ctx: &mut C,
    table: &impl Fn(&C) -> &VlArbTable,
    high: bool,
    start: u16,
    try_vl: &mut impl FnMut(&mut C, u8) -> Option<u32>,
) -> Option<(u16, u32)> {
    let n = table(ctx).entries(high).len();
    // (`start` is an entry of the table: `charge` keeps it below `n`; the walk wraps by a
    // comparison, not a division, as it runs on every arbitration)
    debug_assert!(n == 0 || (start as usize) < n);
    let mut i = start as usize;
    for _ in 0..n {
        if i >= n {
            i = 0;
        }
        let vl = table(ctx).entries(high)[i].0;
        if let Some(b) = try_vl(ctx, vl) {
            return Some((i as u16, b));
        }
        i += 1;
    }
    None
}

fn charge(table: &[(u8, u32)], idx: &mut u16, left: &mut u32, served: u16, bytes: u32) {
    if served != *idx {
        *idx = served;
        *left = table[served as usize].1 * 64;
    } else if *left == 0 {
        *left = table[served as usize].1 * 64;
    }
    *left = left.saturating_sub(bytes);
    if *left == 0 {
        let next = served as usize + 1;
        *idx = if next == table.len() { 0 } else { next as u16 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_share_bandwidth() {
        let c = VlArbitrationConfig {
            high: vec![],
            low: vec![[0, 2], [1, 1]],
            high_limit: 255,
        };
        let t = VlArbTable::from_config(&c, 2).unwrap();
        let mut st = VlArbState::default();
        let mut sent = [0u32; 2];
        for _ in 0..300 {
            t.arbitrate(&mut st, |vl| {
                sent[vl as usize] += 64;
                Some(64)
            });
        }
        assert_eq!(sent[0], 2 * sent[1]);
    }

    #[test]
    fn management_lane_goes_first_even_past_the_high_limit() {
        let c = VlArbitrationConfig {
            high: vec![[1, 1]],
            low: vec![[0, 1]],
            high_limit: 0,
        };
        let mut t = VlArbTable::from_config(&c, 2).unwrap();
        t.management = Some(2);
        assert!(t.serves(2));
        let mut st = VlArbState::default();
        let mut order = Vec::new();
        let mut waiting = [0u32, 2, 3]; // packets per lane
        while waiting.iter().any(|&w| w > 0) {
            t.arbitrate(&mut st, |vl| {
                if waiting[vl as usize] == 0 {
                    return None;
                }
                waiting[vl as usize] -= 1;
                order.push(vl);
                Some(64)
            });
        }
        assert_eq!(order, [2, 2, 2, 1, 1]);
    }

    #[test]
    fn high_priority_first_and_skips_idle() {
        let c = VlArbitrationConfig {
            high: vec![[1, 1]],
            low: vec![[0, 1]],
            high_limit: 255,
        };
        let t = VlArbTable::from_config(&c, 2).unwrap();
        let mut st = VlArbState::default();
        let mut got = None;
        t.arbitrate(&mut st, |vl| {
            got = Some(vl);
            Some(64)
        });
        assert_eq!(got, Some(1));
        // VL1 has nothing: VL0 served
        t.arbitrate(&mut st, |vl| {
            if vl == 0 {
                got = Some(0);
                Some(64)
            } else {
                None
            }
        });
        assert_eq!(got, Some(0));
        assert!(VlArbTable::from_config(
            &VlArbitrationConfig {
                high: vec![[3, 1]],
                low: vec![],
                high_limit: 255
            },
            2
        )
        .is_err());
    }
}
