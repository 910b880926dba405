//! The HCA sink: consumes received packets at a drain rate with periodic "hiccups" during
//! which nothing drains (spec §3.7.2, \[X\] Mellanox sink), and returns the credits upstream.
//! A slow sink back-pressures into the network.

use crate::config::{HcaConfig, Ps};
use crate::error::{Error, Result};
use crate::topology::LinkRate;

/// Drain model of every sink.
#[derive(Debug, Clone, Copy)]
pub struct SinkModel {
    /// Drain rate (None: consume as fast as packets arrive).
    pub rate: Option<LinkRate>,
    /// Draining phase of each hiccup period.
    pub off: Ps,
    /// Pause phase of each hiccup period (0 = no hiccups).
    pub on: Ps,
    /// Credits go back one by one as they drain (`hca.sink.credit_return = "credit"`).
    pub per_credit: bool,
}

impl SinkModel {
    /// From `[hca.sink]`: a PCIe drain rate is `lanes × rate × 8/10 ÷ 1.05` (spec §3.7.2).
    pub fn from_config(h: &HcaConfig) -> Result<Self> {
        let s = &h.sink;
        let rate = match (s.pcie_lanes, s.pcie_rate, s.drain_rate) {
            (None, None, None) => None,
            (Some(l), Some(r), None) => {
                if l == 0 {
                    return Err(Error::input("hca.sink.pcie_lanes", "must be positive"));
                }
                // bits/s = lanes · T/s · 8/10 / 1.05 = lanes · T/s · 8 · 100 / (10 · 105)
                Some(LinkRate {
                    num: l as u128 * r.0 as u128 * 800,
                    den: 1050,
                })
            }
            (None, None, Some(r)) => Some(LinkRate::bps(r.0)),
            (Some(_), None, _) | (None, Some(_), _) => {
                return Err(Error::input(
                    "hca.sink",
                    "give both `pcie_lanes` and `pcie_rate`, or `drain_rate`",
                ))
            }
            _ => {
                return Err(Error::input(
                    "hca.sink.drain_rate",
                    "give either PCIe parameters or `drain_rate`, not both",
                ))
            }
        };
        if s.hiccup_on.0 > 0 && s.hiccup_off.0 == 0 {
            return Err(Error::input(
                "hca.sink.hiccup_off",
                "must be positive when hiccup_on is set",
            ));
        }
        if rate.is_none() && s.hiccup_on.0 > 0 {
            return Err(Error::input(
                "hca.sink.hiccup_on",
                "hiccups need a drain rate (pcie_lanes + pcie_rate, or drain_rate)",
            ));
        }
        Ok(SinkModel {
            rate,
            off: s.hiccup_off.0,
            on: s.hiccup_on.0,
            per_credit: s.credit_return == crate::config::SinkCreditReturn::Credit,
        })
    }

    /// When draining `bytes` that starts at `start` ends, skipping the pauses. The hiccup
    /// period starts at t = 0 with `off` time of draining, then `on` time of pause.
    pub fn finish(&self, start: Ps, bytes: u64) -> Ps {
        let Some(rate) = self.rate else { return start };
        let work = rate.ser_ps(bytes);
        if self.on == 0 {
            return start + work;
        }
        let period = self.off + self.on;
        let mut t = start;
        let phase = t % period;
        if phase >= self.off {
            t += period - phase; // wait out the pause
        }
        let avail = self.off - t % period;
        if work <= avail {
            return t + work;
        }
        let w = work - avail;
        let next = t - t % period + period;
        let (full, rem) = (w / self.off, w % self.off);
        if rem == 0 {
            next + (full - 1) * period + self.off
        } else {
            next + full * period + rem
        }
    }

    /// Long-run drain rate in bits/s (for reports).
    pub fn effective_bps(&self) -> Option<f64> {
        self.rate.map(|r| {
            let duty = if self.on == 0 {
                1.0
            } else {
                self.off as f64 / (self.off + self.on) as f64
            };
            r.bits_per_s() * duty
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hiccups_stretch_draining() {
        // 8 Gbit/s: 1000 B take 1000 ns of work; 100 ns drain / 12.5 ns pause
        let s = SinkModel {
            rate: Some(LinkRate::bps(8_000_000_000)),
            off: 100_000,
            on: 12_500,
            per_credit: false,
        };
        assert_eq!(s.finish(0, 100), 100_000); // exactly one draining phase
        assert_eq!(s.finish(0, 1000), 9 * 112_500 + 100_000);
        assert_eq!(s.finish(100_000, 10), 112_500 + 10_000); // starts in a pause
        assert_eq!(s.finish(50_000, 100), 112_500 + 50_000);
        let none = SinkModel {
            rate: None,
            off: 0,
            on: 0,
            per_credit: false,
        };
        assert_eq!(none.finish(7, 1000), 7);
        // PCIe 1.1 x8 with [G] hiccups: ≈ 13.5 Gbit/s ("just above 13 Gbps", spec §3.7.2)
        let h: HcaConfig = toml::from_str("[sink]\npcie_lanes = 8\npcie_rate = \"2.5GT/s\"\nhiccup_on = \"0.0125us\"\nhiccup_off = \"0.1us\"\n").unwrap();
        let g = SinkModel::from_config(&h).unwrap().effective_bps().unwrap() / 1e9;
        assert!((g - 13.545).abs() < 0.01, "{g}");
    }
}
