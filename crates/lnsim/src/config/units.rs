//! Values with units in scenario files: durations, sizes, rates and frequencies.
//!
//! Parsing is exact decimal arithmetic (no floating point), so `"12.5ns"` is exactly 12 500 ps
//! and a scenario means the same on every machine (architecture: "config … units"). A value is
//! an unsigned decimal number (digits, an optional fraction, `_` between digits allowed) and a
//! unit; a parse error says what is wrong: a negative value, no number, exponent notation, an
//! unknown or missing unit, a value finer than the resolution or too large.

use serde::{de, Deserialize, Deserializer};
use std::fmt;

/// Simulated time in integer picoseconds (issue 2 item 2: link rates such as 4x FDR give
/// non-integer nanoseconds).
pub type Ps = u64;

/// Picoseconds per second.
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// Most decimals a value may have (10^38 still fits the exact arithmetic).
const MAX_DECIMALS: usize = 38;

/// What one unit-bearing type accepts, for its parser and its messages.
struct Quantity {
    /// Its name in messages (`duration`).
    what: &'static str,
    /// Unit → multiplier to the base unit.
    units: &'static [(&'static str, u128)],
    /// The units as listed in messages.
    allowed: &'static str,
    /// Example values as written in messages.
    example: &'static str,
    /// Multiplier of a number without a unit (sizes: bytes), or `None`: a unit is required.
    bare: Option<u128>,
    /// Zero is a value (durations, sizes); rates and frequencies must be positive.
    zero_ok: bool,
    /// Round to the base unit (rates, frequencies) instead of requiring a whole number.
    round: bool,
    /// The base unit (`ps`) and its name in "a whole number of …" (`picoseconds`).
    base: &'static str,
    whole: &'static str,
}

const DURATION: Quantity = Quantity {
    what: "duration",
    units: &[
        ("ps", 1),
        ("ns", 1_000),
        ("us", 1_000_000),
        ("µs", 1_000_000),
        ("ms", 1_000_000_000),
        ("s", 1_000_000_000_000),
    ],
    allowed: "ps, ns, us, ms, s",
    example: "\"5ns\", \"250us\", \"0.7s\"",
    bare: None,
    zero_ok: true,
    round: false,
    base: "ps",
    whole: "picoseconds",
};

const SIZE: Quantity = Quantity {
    what: "size",
    units: &[
        ("B", 1),
        ("KB", 1_000),
        ("kB", 1_000),
        ("KiB", 1024),
        ("MB", 1_000_000),
        ("MiB", 1 << 20),
        ("GB", 1_000_000_000),
        ("GiB", 1 << 30),
    ],
    allowed: "B, KB, KiB, MB, MiB, GB, GiB",
    example: "\"2176B\", \"64KiB\" or 2176",
    bare: Some(1),
    zero_ok: true,
    round: false,
    base: "byte",
    whole: "bytes",
};

const RATE: Quantity = Quantity {
    what: "rate",
    units: &[
        ("bps", 1),
        ("Kbps", 1_000),
        ("kbps", 1_000),
        ("Mbps", 1_000_000),
        ("bit/us", 1_000_000),
        ("bits/us", 1_000_000),
        ("bit/µs", 1_000_000),
        ("bits/µs", 1_000_000),
        ("Gbps", 1_000_000_000),
        ("Tbps", 1_000_000_000_000),
        ("MBps", 8_000_000),
        ("GBps", 8_000_000_000),
    ],
    allowed: "bps, Kbps, Mbps, Gbps, Tbps, MBps, GBps, bit/us (= Mbps), bits/us",
    example: "\"13.5Gbps\" or \"800bit/us\"",
    bare: None,
    zero_ok: false,
    round: true,
    base: "bps",
    whole: "bits per second",
};

const FREQUENCY: Quantity = Quantity {
    what: "frequency",
    units: &[
        ("Hz", 1),
        ("T/s", 1),
        ("kHz", 1_000),
        ("KHz", 1_000),
        ("MHz", 1_000_000),
        ("MT/s", 1_000_000),
        ("GHz", 1_000_000_000),
        ("GT/s", 1_000_000_000),
    ],
    allowed: "Hz, kHz, MHz, GHz, T/s, MT/s, GT/s",
    example: "\"800MHz\" or \"5GT/s\"",
    bare: None,
    zero_ok: false,
    round: true,
    base: "Hz",
    whole: "hertz",
};

/// Length of an exponent (`e-30`, `E5`) at the start of `rest`, 0 if there is none.
fn exponent_len(rest: &str) -> usize {
    let b = rest.as_bytes();
    if !matches!(b.first(), Some(b'e' | b'E')) {
        return 0;
    }
    let mut i = 1;
    if matches!(b.get(i), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        0
    } else {
        i + digits
    }
}

/// An unsigned decimal number (`12.5`, `1_000`, `.5`) as `(digits, decimals)`: the value is
/// `digits / 10^decimals`, trailing zeros of the fraction dropped. `Err(true)` when it has
/// more digits than the exact arithmetic holds, `Err(false)` when it is not a number.
fn parse_decimal(num: &str) -> Result<(u128, usize), bool> {
    let num = num.replace('_', "");
    let (int, frac) = num.split_once('.').unwrap_or((num.as_str(), ""));
    if frac.contains('.') || (int.is_empty() && frac.is_empty()) {
        return Err(false);
    }
    let frac = frac.trim_end_matches('0');
    if frac.len() > MAX_DECIMALS {
        return Err(true);
    }
    let digits = format!("{int}{frac}");
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Ok((0, 0));
    }
    digits
        .parse::<u128>()
        .map(|n| (n, frac.len()))
        .map_err(|_| true)
}

impl Quantity {
    fn unit(&self, u: &str) -> Option<u128> {
        self.units.iter().find(|(n, _)| *n == u).map(|&(_, m)| m)
    }

    /// Parses `s`; the error names the value and says what is wrong with it.
    fn parse(&self, s: &str) -> Result<u64, String> {
        let what = self.what;
        let ex = self.example;
        let t = s.trim();
        if t.is_empty() {
            return Err(format!("{what} \"{s}\" is empty; write e.g. {ex}"));
        }
        if t.starts_with('+') {
            return Err(format!(
                "{what} \"{s}\" has a sign; write the number without one, e.g. {ex}"
            ));
        }
        let (negative, body) = match t.strip_prefix('-') {
            Some(rest) => (true, rest.trim_start()),
            None => (false, t),
        };
        let end = body
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
            .unwrap_or(body.len());
        let (num, rest) = body.split_at(end);
        let exp = exponent_len(rest);
        let unit = rest[exp..].trim();
        if !num.chars().any(|c| c.is_ascii_digit()) {
            let low = body.to_ascii_lowercase();
            if low.starts_with("nan") || low.starts_with("inf") {
                return Err(format!("{what} \"{s}\" is not a number; write e.g. {ex}"));
            }
            if self.unit(unit).is_some() {
                return Err(format!(
                    "{what} \"{s}\" has no number before its unit; write e.g. {ex}"
                ));
            }
            return Err(format!(
                "\"{s}\" is not a {what}: it does not start with a number; write e.g. {ex}"
            ));
        }
        if exp > 0 {
            return Err(format!(
                "{what} \"{s}\" uses exponent notation (\"{num}{}\"), which is not accepted; \
                 write the number with decimals and a unit, e.g. {ex}",
                &rest[..exp]
            ));
        }
        let mult = match (self.unit(unit), self.bare) {
            (Some(m), _) => m,
            (None, Some(m)) if unit.is_empty() => m,
            (None, None) if unit.is_empty() => {
                return Err(format!(
                    "{what} \"{s}\" has no unit; write e.g. {ex} (units: {})",
                    self.allowed
                ))
            }
            (None, _) => {
                return Err(format!(
                    "unknown {what} unit \"{unit}\" in \"{s}\"; allowed units: {}",
                    self.allowed
                ))
            }
        };
        if negative {
            let must = if self.zero_ok {
                "must be positive (or zero)"
            } else {
                "must be positive"
            };
            return Err(format!("{what} \"{s}\" is negative; a {what} {must}"));
        }
        let too_large = || {
            format!(
                "{what} \"{s}\" is too large: more than 2^64 − 1 {}",
                self.base
            )
        };
        let (n, decimals) = match parse_decimal(num) {
            Ok(v) => v,
            Err(true) => return Err(too_large()),
            Err(false) => {
                return Err(format!(
                    "{what} \"{s}\": \"{num}\" is not a number; write e.g. {ex}"
                ))
            }
        };
        let v = n.checked_mul(mult).ok_or_else(too_large)?;
        let den = 10u128.pow(decimals as u32);
        let too_small = || {
            format!(
                "{what} \"{s}\" is too small: below 1 {} (the resolution)",
                self.base
            )
        };
        let q = if self.round {
            let q = v.checked_add(den / 2).ok_or_else(too_large)? / den;
            if q == 0 && v > 0 {
                return Err(too_small());
            }
            q
        } else if v % den != 0 {
            return Err(if v < den {
                too_small()
            } else {
                format!(
                    "{what} \"{s}\" is not a whole number of {} (the resolution is 1 {})",
                    self.whole, self.base
                )
            });
        } else {
            v / den
        };
        if q == 0 && !self.zero_ok {
            return Err(format!("{what} \"{s}\" is zero; a {what} must be positive"));
        }
        u64::try_from(q).map_err(|_| too_large())
    }
}

/// A duration such as `"5ns"`, `"0.7s"`, `"250us"`, `"12.5ns"` (units ps, ns, us/µs, ms, s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Duration(pub Ps);

impl Duration {
    /// Parses a duration; the error says what is wrong and what is allowed.
    pub fn parse(s: &str) -> Result<Self, String> {
        DURATION.parse(s).map(Duration)
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
    /// Parses a size; the error says what is wrong and what is allowed.
    pub fn parse(s: &str) -> Result<Self, String> {
        SIZE.parse(s).map(Bytes)
    }
}

/// A data rate in bits per second, such as `"13.5Gbps"`, `"1GBps"` (bytes), `"100Mbps"`, or
/// `"800bit/us"` (bits per microsecond = Mbit/s: the offered-load unit of drb-and-ddbbm spec
/// A.6; also `bits/us`, `bit/µs`, `bits/µs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BitRate(pub u64);

impl BitRate {
    /// Parses a rate (rounded to whole bits per second; it must be positive).
    pub fn parse(s: &str) -> Result<Self, String> {
        RATE.parse(s).map(BitRate)
    }
}

/// A frequency such as `"800MHz"` or a transfer rate such as `"5GT/s"` (stored in Hz / T/s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Frequency(pub u64);

impl Frequency {
    /// Parses a frequency (Hz, kHz, MHz, GHz) or transfer rate (T/s, MT/s, GT/s), rounded to
    /// whole hertz; it must be positive.
    pub fn parse(s: &str) -> Result<Self, String> {
        FREQUENCY.parse(s).map(Frequency)
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
    fn parse_errors_say_what_is_wrong() {
        type Parse = fn(&str) -> Result<u64, String>;
        let cases: &[(&str, Parse, &str)] = &[
            (
                "-1ms",
                |s| Duration::parse(s).map(|d| d.0),
                "is negative; a duration must be positive",
            ),
            (
                "-1GB",
                |s| Bytes::parse(s).map(|b| b.0),
                "is negative; a size must be positive",
            ),
            (
                "-1Gbps",
                |s| BitRate::parse(s).map(|r| r.0),
                "is negative; a rate must be positive",
            ),
            (
                "-5MHz",
                |s| Frequency::parse(s).map(|f| f.0),
                "is negative; a frequency must be positive",
            ),
            (
                "1e-30s",
                |s| Duration::parse(s).map(|d| d.0),
                "uses exponent notation (\"1e-30\")",
            ),
            (
                "1e9TB",
                |s| Bytes::parse(s).map(|b| b.0),
                "uses exponent notation (\"1e9\")",
            ),
            (
                "2E3Gbps",
                |s| BitRate::parse(s).map(|r| r.0),
                "uses exponent notation",
            ),
            (
                "5 xs",
                |s| Duration::parse(s).map(|d| d.0),
                "unknown duration unit \"xs\" in \"5 xs\"; allowed units: ps, ns, us, ms, s",
            ),
            (
                "0.1ps",
                |s| Duration::parse(s).map(|d| d.0),
                "is too small: below 1 ps",
            ),
            (
                "12.5ps",
                |s| Duration::parse(s).map(|d| d.0),
                "is not a whole number of picoseconds",
            ),
            (
                "1.5B",
                |s| Bytes::parse(s).map(|b| b.0),
                "is not a whole number of bytes",
            ),
            (
                "0.0001bps",
                |s| BitRate::parse(s).map(|r| r.0),
                "is too small: below 1 bps",
            ),
            (
                "0Gbps",
                |s| BitRate::parse(s).map(|r| r.0),
                "is zero; a rate must be positive",
            ),
            (
                "NaNs",
                |s| Duration::parse(s).map(|d| d.0),
                "is not a number",
            ),
            (
                "infus",
                |s| Duration::parse(s).map(|d| d.0),
                "is not a number",
            ),
            (
                "1.5.3ns",
                |s| Duration::parse(s).map(|d| d.0),
                "\"1.5.3\" is not a number",
            ),
            (
                "µs",
                |s| Duration::parse(s).map(|d| d.0),
                "has no number before its unit",
            ),
            (
                "fast",
                |s| BitRate::parse(s).map(|r| r.0),
                "\"fast\" is not a rate",
            ),
            ("+5ns", |s| Duration::parse(s).map(|d| d.0), "has a sign"),
            ("", |s| Duration::parse(s).map(|d| d.0), "is empty"),
            (
                "40",
                |s| BitRate::parse(s).map(|r| r.0),
                "rate \"40\" has no unit",
            ),
            (
                "99999999999999999999999ps",
                |s| Duration::parse(s).map(|d| d.0),
                "is too large",
            ),
        ];
        for (text, parse, want) in cases {
            let e = parse(text).unwrap_err();
            assert!(e.contains(want), "{text:?}: {e}");
        }
        // what is still accepted, and zero where it is a value
        assert_eq!(Duration::parse("1_000us").unwrap().0, 1_000_000_000);
        assert_eq!(Duration::parse("0s").unwrap().0, 0);
        assert_eq!(Duration::parse(".5ns").unwrap().0, 500);
        assert_eq!(
            Duration::parse("1.000000000000000000000000s").unwrap().0,
            PS_PER_S
        );
        assert_eq!(Bytes::parse("0B").unwrap().0, 0);
        assert_eq!(Bytes::parse(" 64 KiB ").unwrap().0, 65536);
        assert_eq!(BitRate::parse("0.6bps").unwrap().0, 1);
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
