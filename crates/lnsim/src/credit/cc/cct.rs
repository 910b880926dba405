//! The Congestion Control Table (CCT): injection-rate delays (IRD) indexed by CCTI, lowest in
//! entry 0 (spec §2.3.2). The texts give no contents (spec §2.3.4, §10.7), so the table is
//! pluggable: generated linearly in the delay (`CCT_Div`, the spec's hypothesis for \[Z\]'s
//! `CCT_Algorithm = 0`), linearly in the rate, quadratically in the index (the shape of the
//! public OMNeT++ InfiniBand-model generators), or read from a file of IBA entries. A flow at
//! CCTI `i` sends at `B / (1 + IRD(i))` of its link rate `B`: the IBA entry (CCT_Multiplier,
//! CCT_Shift) is an inter-packet delay of `multiplier · 2^−shift` packet times, added after the
//! packet (as the Linux hfi1 driver, Intel PSM and the OPA fabric manager apply it).

use crate::config::{CctAlgorithm, CctConfig};
use crate::error::{Error, Result};
use std::path::Path;

/// The unfitted `cc.cct.scale` of the quadratic table: the IRD at CCTI = div, in packet times,
/// of the public OMNeT++ InfiniBand-model CC generators (descendants of the model family the
/// studies used), which space packets by `i² · 3300 / K² ns` beyond the 512 ns of one 2 KiB
/// packet at 32 Gbit/s, i.e. 3300/512 packet times at `i = K` (docs/calibration.md).
pub const GENERATOR_SCALE: f64 = 3300.0 / 512.0;

/// Default `cc.cct.div` of the quadratic table: \[Z\]'s `CCT_Div = 95` (spec Z-Tab 3.6).
pub const QUADRATIC_DIV: f64 = 95.0;

/// Default `cc.cct.div` of the linear tables: calibrated once on \[Z\] C4 (docs/calibration.md).
pub const LINEAR_DIV: f64 = 25.0;

/// IBA tables have at least 128 entries; ours have `max(128, ccti_limit + 1)`.
pub const MIN_ENTRIES: usize = 128;

/// The table: `ird[i]` for every CCTI `i`.
#[derive(Debug, Clone)]
pub struct CongestionControlTable {
    /// Injection-rate delay per entry, in units of the packet's own serialisation time.
    pub ird: Vec<f64>,
}

impl CongestionControlTable {
    /// Builds the table of `entries` entries from `[cc.cct]`; a key the scenario gives
    /// (`given`, [`crate::config::LoadedScenario::given`]) for another algorithm is refused.
    pub fn from_config(
        c: &CctConfig,
        entries: usize,
        base_dir: &Path,
        given: &dyn Fn(&str) -> bool,
    ) -> Result<Self> {
        let n = entries.max(MIN_ENTRIES);
        let div_ok = || -> Result<f64> {
            let d = c.div.unwrap_or(match c.algorithm {
                CctAlgorithm::Quadratic => QUADRATIC_DIV,
                _ => LINEAR_DIV,
            });
            if d.is_finite() && d > 0.0 {
                Ok(d)
            } else {
                Err(Error::input(
                    "cc.cct.div",
                    format!("{d} must be a positive number"),
                ))
            }
        };
        if c.algorithm != CctAlgorithm::Quadratic && given("cc.cct.scale") {
            return Err(Error::input(
                "cc.cct.scale",
                "only used with cc.cct.algorithm = \"quadratic\"",
            ));
        }
        if c.algorithm == CctAlgorithm::File && c.div.is_some() {
            return Err(Error::input(
                "cc.cct.div",
                "not used with cc.cct.algorithm = \"file\"",
            ));
        }
        if c.algorithm != CctAlgorithm::File && c.file.is_some() {
            return Err(Error::input(
                "cc.cct.file",
                "only used with cc.cct.algorithm = \"file\"",
            ));
        }
        let ird = match c.algorithm {
            CctAlgorithm::Linear => {
                let d = div_ok()?;
                (0..n).map(|i| i as f64 / d).collect()
            }
            CctAlgorithm::RateLinear => {
                let d = div_ok()?;
                (0..n)
                    .map(|i| 1.0 / (1.0 - i as f64 / d).max(1.0 / 1024.0) - 1.0)
                    .collect()
            }
            CctAlgorithm::Quadratic => {
                let d = div_ok()?;
                let scale = c.scale;
                if !(scale.is_finite() && scale > 0.0) {
                    return Err(Error::input(
                        "cc.cct.scale",
                        format!("{scale} must be a positive number"),
                    ));
                }
                (0..n)
                    .map(|i| scale * (i as f64 / d) * (i as f64 / d))
                    .collect()
            }
            CctAlgorithm::File => {
                let f = c.file.as_ref().ok_or_else(|| {
                    Error::input("cc.cct.file", "required with algorithm = \"file\"")
                })?;
                let mut v = load(&base_dir.join(f))?;
                if v.len() < n {
                    // IBA: the table must cover every CCTI up to the limit
                    return Err(Error::input(
                        "cc.cct.file",
                        format!(
                            "{f}: {} entries, but CCTI may reach {} (cc.ccti_limit)",
                            v.len(),
                            n - 1
                        ),
                    ));
                }
                v.truncate(n.max(v.len()));
                v
            }
        };
        Ok(CongestionControlTable { ird })
    }
}

/// Reads `multiplier shift` lines (IBA CCT entries: 14-bit multiplier, 2-bit shift);
/// `#` comments and blank lines are skipped. IRD = multiplier · 2^−shift.
fn load(path: &Path) -> Result<Vec<f64>> {
    let text = crate::config::input_files::read_text(path)
        .map_err(|why| Error::input("cc.cct.file", format!("`{}` {why}", path.display())))?;
    let mut v = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.split('#').next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        let err = |m: &str| Error::Input(format!("{}:{}: {m}", path.display(), i + 1));
        let mut it = l.split_whitespace();
        let m: u32 = it
            .next()
            .and_then(|x| x.parse().ok())
            .ok_or_else(|| err("expected `multiplier shift`"))?;
        let s: u32 = it
            .next()
            .and_then(|x| x.parse().ok())
            .ok_or_else(|| err("expected `multiplier shift`"))?;
        if it.next().is_some() {
            return Err(err("expected exactly two numbers"));
        }
        if m >= 1 << 14 || s > 3 {
            return Err(err(
                "multiplier must be below 16384 (14 bits) and shift 0–3 (2 bits)",
            ));
        }
        v.push(m as f64 / (1u32 << s) as f64);
    }
    if v.windows(2).any(|w| w[1] < w[0]) {
        return Err(Error::Input(format!(
            "{}: entries must not decrease (entry 0 is the lowest delay)",
            path.display()
        )));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table of the `[cc.cct]` keys `text`.
    fn table(text: &str, entries: usize, dir: &Path) -> Result<CongestionControlTable> {
        let c: CctConfig = toml::from_str(text).unwrap();
        let keys: toml::Table = text.parse().unwrap();
        let given = |k: &str| keys.contains_key(k.trim_start_matches("cc.cct."));
        CongestionControlTable::from_config(&c, entries, dir, &given)
    }

    #[test]
    fn generated_tables_are_monotone() {
        let c = "algorithm = \"linear\"\ndiv = 95.0";
        let t = table(c, 129, Path::new(".")).unwrap();
        assert_eq!(t.ird.len(), 129);
        assert_eq!(t.ird[0], 0.0);
        assert!((t.ird[95] - 1.0).abs() < 1e-12); // half rate at CCTI 95
        let c = "algorithm = \"rate_linear\"\ndiv = 100.0";
        let t = table(c, 128, Path::new(".")).unwrap();
        assert!((1.0 / (1.0 + t.ird[50]) - 0.5).abs() < 1e-12); // rate 1 − 50/100
        assert!(t.ird.windows(2).all(|w| w[1] >= w[0]));
        let c = ""; // the default: quadratic, div 95, scale 3
        let t = table(c, 129, Path::new(".")).unwrap();
        assert_eq!(t.ird[0], 0.0);
        assert!((t.ird[95] - 3.0).abs() < 1e-12);
        assert!((t.ird[19] - 3.0 * 0.04).abs() < 1e-12); // (19/95)² = 0.04
        assert!((t.ird[128] - 3.0 * (128.0f64 / 95.0).powi(2)).abs() < 1e-12);
        assert!(t.ird.windows(2).all(|w| w[1] > w[0]));
        let c = "algorithm = \"quadratic\"\ndiv = 10.0\nscale = 2.0";
        let t = table(c, 128, Path::new(".")).unwrap();
        assert!((t.ird[20] - 8.0).abs() < 1e-12);
        let c = "algorithm = \"linear\"\nscale = 2.0";
        let e = table(c, 128, Path::new(".")).unwrap_err().to_string();
        assert!(e.starts_with("cc.cct.scale:"), "{e}");
        // refused where it does not apply even at its default value
        let e = table("algorithm = \"linear\"\nscale = 3.0", 128, Path::new("."));
        assert!(e.is_err_and(|e| e.to_string().starts_with("cc.cct.scale:")));
    }

    #[test]
    fn table_file_entries_and_errors() {
        let d = tempfile::tempdir().unwrap();
        let mut text = String::from("# multiplier shift\n");
        for i in 0..128 {
            text.push_str(&format!("{} 2\n", i));
        }
        std::fs::write(d.path().join("t.cct"), &text).unwrap();
        let c = "algorithm = \"file\"\nfile = \"t.cct\"";
        let t = table(c, 128, d.path()).unwrap();
        assert_eq!(t.ird[8], 2.0);
        std::fs::write(d.path().join("bad.cct"), "3 1\n2 1\n").unwrap();
        let c = "algorithm = \"file\"\nfile = \"bad.cct\"";
        assert!(table(c, 128, d.path()).is_err());
    }
}
