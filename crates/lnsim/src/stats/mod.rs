//! Statistics, what both wings use: Jain's fairness index ([`fairness`]), the natural order of
//! names in printouts and `summary.json` ([`natural`]), the folders a results folder must never
//! be ([`results_folder`]) and the process's peak memory that every `summary.json` reports.
//! Each wing keeps its own collectors: the credit-level wing's per-interval statistics, links
//! and reception figures (`credit/stats/`), the cycle-level wing's in `cycle/results.rs`.
//! Collectors observe; they never steer the simulation.

pub mod fairness;
pub mod natural;
pub mod results_folder;

/// Peak resident memory of this process (VmHWM), in bytes; 0 where unavailable.
pub fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|v| v.parse::<u64>().ok())
            })
        })
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}
