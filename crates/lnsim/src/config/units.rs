//! Values with units in scenario files: durations, sizes, rates and frequencies.
//!
//! Parsing is exact decimal arithmetic (no floating point), so `"12.5ns"` is exactly 12 500 ps
//! and a scenario means the same on every machine (architecture: "config … units").

use serde::{de, Deserialize, Deserializer};
use std::fmt;

/// Simulated time in integer picoseconds (issue 2 item 2: link rates such as 4x FDR give
/// non-integer nanoseconds).
pub type Ps = u64;

/// Picoseconds per second.
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// Splits `"12.5ns"` into (`"12.5"`, `"ns"`).
fn split_number(s: &str) -> (&str, &str) {
    let s = s.trim();
    let idx = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(s.len());
    (s[..idx].trim(), s[idx..].trim())
}

/// Parses a non-negative decimal number into a rational `(numerator, 10^decimals)`.
fn parse_decimal(num: &str) -> Option<(u128, u128)> {
    let num = num.replace('_', "");
    if num.is_empty() || num == "." {
        return None;
    }
    let (int, frac) = match num.split_once('.') {
        Some((i, f)) => (i, f),
        None => (num.as_str(), ""),
    };
    if frac.contains('.') || frac.len() > 18 {
        return None;
    }
    let digits = format!("{int}{frac}");
    let n: u128 = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    Some((n, 10u128.pow(frac.len() as u32)))
}

/// Scales `num/den` by `mult` and requires the result to be an integer (or rounds, if `round`).
fn scale(num: u128, den: u128, mult: u128, round: bool) -> Option<u64> {
    let v = num.checked_mul(mult)?;
    if v % den != 0 && !round {
        return None;
    }
    u64::try_from(v.checked_add(den / 2)? / den).ok()
}

/// A duration such as `"5ns"`, `"0.7s"`, `"250us"`, `"12.5ns"` (units ps, ns, us/µs, ms, s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Duration(pub Ps);

impl Duration {
    /// Parses a duration; the error says what is allowed.
    pub fn parse(s: &str) -> Result<Self, String> {
        let (n, u) = split_number(s);
        let mult: u128 = match u {
            "ps" => 1,
            "ns" => 1_000,
            "us" | "µs" => 1_000_000,
            "ms" => 1_000_000_000,
            "s" => 1_000_000_000_000,
            "" => return Err(format!("duration \"{s}\" has no unit; write e.g. \"5ns\", \"250us\", \"0.7s\" (units: ps, ns, us, ms, s)")),
            _ => return Err(format!("unknown duration unit \"{u}\" in \"{s}\"; allowed units: ps, ns, us, ms, s")),
        };
        let (num, den) = parse_decimal(n)
            .ok_or_else(|| format!("\"{s}\" is not a duration; write e.g. \"5ns\" or \"0.7s\""))?;
        scale(num, den, mult, false)
            .map(Duration)
            .ok_or_else(|| format!("duration \"{s}\" is finer than 1 ps or too large"))
    }
    /// The value in seconds (for reports only).
    pub fn secs(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
}

/// A size in bytes such as `"2176B"`, `"64KiB"`, `"1MB"`; a bare integer means bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Bytes(pub u64);

impl Bytes {
    /// Parses a size.
    pub fn parse(s: &str) -> Result<Self, String> {
        let (n, u) = split_number(s);
        let mult: u128 = match u {
            "" | "B" => 1,
            "KB" | "kB" => 1_000,
            "KiB" => 1024,
            "MB" => 1_000_000,
            "MiB" => 1 << 20,
            "GB" => 1_000_000_000,
            "GiB" => 1 << 30,
            _ => {
                return Err(format!(
                    "unknown size unit \"{u}\" in \"{s}\"; allowed: B, KB, KiB, MB, MiB, GB, GiB"
                ))
            }
        };
        let (num, den) = parse_decimal(n)
            .ok_or_else(|| format!("\"{s}\" is not a size; write e.g. \"2176B\""))?;
        scale(num, den, mult, false)
            .map(Bytes)
            .ok_or_else(|| format!("size \"{s}\" is not a whole number of bytes, or too large"))
    }
}

/// A data rate in bits per second, such as `"13.5Gbps"`, `"1GBps"` (bytes), `"100Mbps"`, or
/// `"800bit/us"` (bits per microsecond = Mbit/s: the offered-load unit of drb-and-ddbbm spec
/// A.6; also `bits/us`, `bit/µs`, `bits/µs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BitRate(pub u64);

impl BitRate {
    /// Parses a rate.
    pub fn parse(s: &str) -> Result<Self, String> {
        let (n, u) = split_number(s);
        let mult: u128 = match u {
            "bps" => 1,
            "Kbps" | "kbps" => 1_000,
            "Mbps" | "bit/us" | "bits/us" | "bit/µs" | "bits/µs" => 1_000_000,
            "Gbps" => 1_000_000_000,
            "Tbps" => 1_000_000_000_000,
            "MBps" => 8_000_000,
            "GBps" => 8_000_000_000,
            _ => return Err(format!("unknown rate unit \"{u}\" in \"{s}\"; allowed: bps, Kbps, Mbps, Gbps, Tbps, MBps, GBps, bit/us (= Mbps), bits/us")),
        };
        let (num, den) = parse_decimal(n)
            .ok_or_else(|| format!("\"{s}\" is not a rate; write e.g. \"13.5Gbps\""))?;
        match scale(num, den, mult, true) {
            Some(0) | None => Err(format!("rate \"{s}\" must be positive and below 2^64 bps")),
            Some(v) => Ok(BitRate(v)),
        }
    }
}

/// A frequency such as `"800MHz"` or a transfer rate such as `"5GT/s"` (stored in Hz / T/s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Frequency(pub u64);

impl Frequency {
    /// Parses a frequency (Hz, kHz, MHz, GHz) or transfer rate (T/s, MT/s, GT/s).
    pub fn parse(s: &str) -> Result<Self, String> {
        let (n, u) = split_number(s);
        let mult: u128 = match u {
            "Hz" | "T/s" => 1,
            "kHz" | "KHz" => 1_000,
            "MHz" | "MT/s" => 1_000_000,
            "GHz" | "GT/s" => 1_000_000_000,
            _ => return Err(format!("unknown frequency unit \"{u}\" in \"{s}\"; allowed: Hz, kHz, MHz, GHz, T/s, MT/s, GT/s")),
        };
        let (num, den) = parse_decimal(n)
            .ok_or_else(|| format!("\"{s}\" is not a frequency; write e.g. \"800MHz\""))?;
        match scale(num, den, mult, true) {
            Some(0) | None => Err(format!("frequency \"{s}\" must be positive")),
            Some(v) => Ok(Frequency(v)),
        }
    }
}

macro_rules! deserialize_from_str {
    ($t:ty, $what:expr) => {
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> de::Visitor<'de> for V {
                    type Value = $t;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$t, E> {
                        <$t>::parse(s).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$t, E> {
                        <$t>::parse(&format!("{v}")).map_err(E::custom)
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}
deserialize_from_str!(Duration, "a duration string with unit, e.g. \"5ns\"");
deserialize_from_str!(Bytes, "a size, e.g. \"2176B\" or 2176");
deserialize_from_str!(BitRate, "a rate string with unit, e.g. \"13.5Gbps\"");
deserialize_from_str!(Frequency, "a frequency string with unit, e.g. \"800MHz\"");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_exact() {
        assert_eq!(Duration::parse("5ns").unwrap().0, 5_000);
        assert_eq!(Duration::parse("12.5ns").unwrap().0, 12_500);
        assert_eq!(Duration::parse("0.7s").unwrap().0, 700_000_000_000);
        assert_eq!(Duration::parse("250us").unwrap().0, 250_000_000);
        assert_eq!(Duration::parse("0.0125us").unwrap().0, 12_500);
        assert!(Duration::parse("5").unwrap_err().contains("no unit"));
        assert!(Duration::parse("5parsec")
            .unwrap_err()
            .contains("allowed units"));
        assert!(Duration::parse("0.1ps").is_err());
    }

    #[test]
    fn rates_sizes_freqs() {
        assert_eq!(BitRate::parse("13.5Gbps").unwrap().0, 13_500_000_000);
        assert_eq!(BitRate::parse("1GBps").unwrap().0, 8_000_000_000);
        assert_eq!(Bytes::parse("2176B").unwrap().0, 2176);
        assert_eq!(Bytes::parse("64KiB").unwrap().0, 65536);
        assert_eq!(Frequency::parse("800MHz").unwrap().0, 800_000_000);
        assert_eq!(Frequency::parse("2.5GT/s").unwrap().0, 2_500_000_000);
        assert!(BitRate::parse("3 furlongs").is_err());
        // bits per microsecond (drb-and-ddbbm spec A.6) are Mbit/s
        for s in ["800bit/us", "800 bits/us", "800bit/µs", "800bits/µs"] {
            assert_eq!(
                BitRate::parse(s).unwrap(),
                BitRate::parse("800Mbps").unwrap()
            );
        }
    }

    #[test]
    fn numbers_at_the_limits_of_u128_are_errors_not_overflows() {
        // 39 digits: u128::MAX, with a fraction that needs rounding
        assert!(BitRate::parse("340282366920938463463374607431768211.455bps").is_err());
        assert!(Frequency::parse("340282366920938463463374607431768211.455Hz").is_err());
        assert!(Duration::parse("340282366920938463463374607431768211455ps").is_err());
        assert!(Bytes::parse("3402823669209384634633746074317682114550").is_err());
    }
}
