//! How much memory a scenario needs, estimated before anything is built, and the check that
//! refuses a scenario which would not fit (issue 14 item 3): `lnsim validate` states the
//! estimate; `run`, `validate` and every sweep point refuse (exit 2) a scenario whose estimate
//! exceeds the memory available to the process (`MemAvailable` of `/proc/meminfo`, lowered
//! by a cgroup limit) or the `--max-memory` the user gives.
//!
//! The estimate adds up the arrays the builders allocate, from the sizes of their element
//! types (`size_of`) and counts known from the scenario's parameters alone
//! ([`crate::topology::size`]): per node, per port, per port and VL (or VC), per switch
//! input × output (the VoQs), per forwarding-table entry (switch × LID), per traffic source
//! and destination, per statistics interval, per calendar slot. What depends on the run's
//! dynamics is bounded from the configuration: packets by the buffer capacity (every live
//! packet holds credits or phits somewhere), flows by the messages a source can send in its
//! active time, events by a few per packet and port. A large array grown by pushing is counted
//! at its length plus a quarter (its unused capacity is never written, so never resident).
//! Parts are kept for the whole run, held during the set-up only, or grow during the run; the
//! peak is the first plus the larger of the others. Packet counts are upper bounds (every
//! buffer full) that a saturated point approaches; the tests hold the estimate above the
//! measured peak, and within a factor of about two of it on the runs they measure.

use crate::error::{Error, Result};
use crate::topology::FabricSize;
use std::mem::size_of;

/// Memory of the process before the simulation allocates anything: the interpreter or test
/// harness, the code and its libraries (measured: 21 MiB for `python -m lnsim` running a tiny
/// scenario; a longer run touches more of the code).
pub const PROCESS_BASE_BYTES: u64 = 28 << 20;

/// When a part of the estimate is held: the peak is what stays for the whole run plus the
/// larger of what the set-up holds for a while and what the run adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Held from the set-up to the end (tables, per-port state, statistics).
    Kept,
    /// Held during the set-up only (copies, the start-up checks' graphs).
    Setup,
    /// Grows during the run (packets, events, flows) and at its end (the results text).
    Run,
}

/// A memory estimate: the total and its largest parts.
#[derive(Debug, Clone, Default)]
pub struct MemoryEstimate {
    /// Bytes at the peak: [`PROCESS_BASE_BYTES`], the parts kept for the whole run, and the
    /// larger of the set-up's and the run's own parts.
    pub total: u64,
    /// Named parts in bytes, largest first.
    pub parts: Vec<(String, u64)>,
    kept: u64,
    setup: u64,
    run: u64,
}

impl MemoryEstimate {
    /// Adds a part (saturating).
    pub(crate) fn add(&mut self, name: &str, bytes: u64, phase: Phase) {
        if bytes == 0 {
            return;
        }
        self.parts.push((name.to_string(), bytes));
        let sum = match phase {
            Phase::Kept => &mut self.kept,
            Phase::Setup => &mut self.setup,
            Phase::Run => &mut self.run,
        };
        *sum = sum.saturating_add(bytes);
    }

    pub(crate) fn finish(mut self) -> Self {
        self.parts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        // plus a tenth for what is not itemised (allocator overhead, small allocations)
        let parts = self.kept.saturating_add(self.setup.max(self.run));
        self.total = PROCESS_BASE_BYTES
            .saturating_add(parts)
            .saturating_add(parts / 10);
        self
    }

    /// One line: the total and the three largest parts, e.g. `about 1.2 GiB (forwarding
    /// tables 800 MiB, …)`.
    pub fn summary(&self) -> String {
        let parts: Vec<String> = self
            .parts
            .iter()
            .take(3)
            .map(|(n, b)| format!("{n} {}", human(*b)))
            .collect();
        format!("about {} ({})", human(self.total), parts.join(", "))
    }
}

/// A size in binary units with three significant digits (`1.21 GiB`, `640 KiB`).
pub fn human(b: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else if x >= 100.0 {
        format!("{x:.0} {}", UNITS[u])
    } else if x >= 10.0 {
        format!("{x:.1} {}", UNITS[u])
    } else {
        format!("{x:.2} {}", UNITS[u])
    }
}

/// Parses a `--max-memory` / `max_memory=` size such as `4GiB`, `500MB` or `1073741824`.
pub fn parse_size(s: &str) -> Result<u64> {
    match crate::config::Bytes::parse(s) {
        Ok(b) if b.0 > 0 => Ok(b.0),
        Ok(_) => Err(Error::Input(format!("--max-memory {s}: must be positive"))),
        Err(_) if s.trim_start().starts_with('-') => Err(Error::Input(format!(
            "--max-memory {s}: is negative; it must be positive, e.g. 4GiB, 500MB or a number of bytes"
        ))),
        Err(e) => Err(Error::Input(format!(
            "--max-memory {s}: {e}; write e.g. 4GiB, 500MB or a number of bytes"
        ))),
    }
}

/// The memory this process may still use, and where the figure comes from: the smaller of
/// `MemAvailable` (`/proc/meminfo`) and the room left under a cgroup v2 limit
/// (`memory.max − memory.current`); on macOS, where neither exists, the physical memory
/// (`sysctl hw.memsize`); `None` where nothing can be read (then only `--max-memory` limits a
/// scenario).
pub fn available() -> Option<(u64, &'static str)> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with("MemAvailable:"))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
            .map(|kib| kib * 1024)
    });
    let read = |f: &str| -> Option<u64> {
        std::fs::read_to_string(format!("/sys/fs/cgroup/{f}"))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    let cgroup = match (read("memory.max"), read("memory.current")) {
        (Some(max), Some(cur)) => Some(max.saturating_sub(cur)),
        _ => None,
    };
    match (meminfo, cgroup) {
        (Some(m), Some(c)) if c < m => Some((c, "the cgroup memory limit")),
        (Some(m), _) => Some((m, "MemAvailable in /proc/meminfo")),
        (None, Some(c)) => Some((c, "the cgroup memory limit")),
        (None, None) => physical_memory().map(|m| (m, "the physical memory (sysctl hw.memsize)")),
    }
}

/// The physical memory of a macOS machine.
#[cfg(target_os = "macos")]
fn physical_memory() -> Option<u64> {
    let out = std::process::Command::new("sysctl")
        .args(["-n", "hw.memsize"])
        .output()
        .ok()?;
    String::from_utf8(out.stdout).ok()?.trim().parse().ok()
}

/// The physical memory (not read on this platform).
#[cfg(not(target_os = "macos"))]
fn physical_memory() -> Option<u64> {
    None
}

/// Refuses an estimate (an input error naming the estimate, the limit and what to do) when it
/// exceeds `max_memory` (`--max-memory`), or, when that is not given, the memory available to
/// the process. Each model's `memory::estimate` computes the estimate.
pub fn check(est: MemoryEstimate, max_memory: Option<u64>) -> Result<MemoryEstimate> {
    let (limit, source) = match max_memory {
        Some(m) => (m, "--max-memory".to_string()),
        None => match available() {
            Some((m, src)) => (m, format!("the memory available ({src})")),
            None => return Ok(est),
        },
    };
    if est.total > limit {
        return Err(Error::Input(format!(
            "memory: this scenario needs {}, more than {} allows ({}); make the network, \
             the run or the statistics smaller (e.g. a longer sim.interval), or give a larger \
             --max-memory if the machine has the room",
            est.summary(),
            source,
            human(limit)
        )));
    }
    Ok(est)
}

/// How `validate` names the limit an estimate was checked against.
pub fn limit_text(max_memory: Option<u64>) -> String {
    match max_memory {
        Some(m) => format!("--max-memory {}", human(m)),
        None => match available() {
            Some((m, _)) => format!("{} available", human(m)),
            None => "available memory unknown".into(),
        },
    }
}

/// `a · b`, saturating.
pub(crate) fn m(a: u64, b: u64) -> u64 {
    a.saturating_mul(b)
}

/// `x` plus a quarter: a large array grown by pushing is resident only as far as it is
/// written (its unused capacity is never touched), plus the margin of the allocator.
pub(crate) fn grown(x: u64) -> u64 {
    x.saturating_add(x / 4)
}

/// `size_of::<T>()` as u64.
pub(crate) fn sz<T>() -> u64 {
    size_of::<T>() as u64
}

/// The fabric graph: nodes with their names, ports and coordinates, the name index.
pub(crate) fn fabric_parts(est: &mut MemoryEstimate, f: &FabricSize, phase: Phase) {
    use crate::topology::{Node, Port};
    let nodes = f.switches + f.hcas;
    // names are allocated once for the node and once for the name → node map
    let per_node =
        sz::<Node>() + 2 * f.name_bytes.max(8) + 4 * f.coords + (sz::<String>() + 8) * 2 + 8;
    est.add(
        "fabric graph",
        m(nodes, per_node) + m(2 * f.ports, sz::<Port>()),
        phase,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("4GiB").unwrap(), 4 << 30);
        assert_eq!(parse_size("500MB").unwrap(), 500_000_000);
        assert_eq!(parse_size("1024").unwrap(), 1024);
        assert!(parse_size("0").is_err());
        assert!(parse_size("lots")
            .unwrap_err()
            .to_string()
            .contains("--max-memory"));
        // a negative size or exponent notation is named as such, not as an unknown unit
        let e = parse_size("-1GB").unwrap_err().to_string();
        assert!(e.contains("is negative; it must be positive"), "{e}");
        let e = parse_size("1e9").unwrap_err().to_string();
        assert!(e.contains("exponent notation"), "{e}");
    }
}
