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

use crate::config::{Injection, LoadedScenario, Model, NodeSet};
use crate::error::{Error, Result};
use crate::topology::{self, FabricSize, LinkParams};
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

    fn finish(mut self) -> Self {
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

/// Estimates the scenario's memory and refuses it (an input error naming the estimate, the
/// limit and what to do) when it exceeds `max_memory` (`--max-memory`), or, when that is not
/// given, the memory available to the process.
pub fn check(l: &LoadedScenario, max_memory: Option<u64>) -> Result<MemoryEstimate> {
    let est = estimate(l)?;
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

/// The memory estimate of a scenario (either model), from its parameters alone.
pub fn estimate(l: &LoadedScenario) -> Result<MemoryEstimate> {
    let size = topology::size(&l.scenario, &l.base_dir)?;
    let mut est = MemoryEstimate::default();
    match l.model() {
        Model::InfiniBand => {
            fabric_parts(&mut est, &size, Phase::Kept);
            ib_parts(&mut est, l, &size)?
        }
        Model::Cycle => {
            // the cycle-level builder keeps only its own arrays
            fabric_parts(&mut est, &size, Phase::Setup);
            super::cycle::memory_parts(&mut est, l, &size)
        }
    }
    Ok(est.finish())
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
fn fabric_parts(est: &mut MemoryEstimate, f: &FabricSize, phase: Phase) {
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

/// The InfiniBand model: the network instance ([`super::Net`]), its tables, traffic,
/// congestion control, statistics and the results files written at the end.
fn ib_parts(est: &mut MemoryEstimate, l: &LoadedScenario, f: &FabricSize) -> Result<()> {
    use super::{Ev, PortTiming};
    use crate::switch::vl_arbitration::VlArbState;
    use crate::traffic::packet::{Packet, PacketQueue};
    use crate::traffic::{Flow, Message, Source};
    let s = &l.scenario;
    let vls = s.switch.vls.max(1) as u64;
    let np = f.ports;
    let hcas = f.hcas;
    let switch_ports = np.saturating_sub(hcas);
    let end = s.sim.end_ps();
    // forwarding tables: a u16 port per switch and LID
    est.add(
        "forwarding tables",
        m(m(f.switches, hcas + 1), 2) + m(f.switches + hcas, 4),
        Phase::Kept,
    );
    // per global port: the flat arrays of `Net` (and the copies the builder makes)
    let req_words = f.max_ports.div_ceil(64).max(1);
    let per_port = 4
        + 1
        + 4
        + sz::<PortTiming>()
        + 8
        + 1
        + 2
        + 2
        + 4
        + 4
        + 4
        + 1
        + 1
        + sz::<VlArbState>()
        + vls * (4 + 2 + 4 + 4 + 4 + 8 * req_words);
    est.add("ports and VLs", m(np, per_port), Phase::Kept);
    // VoQs: per switch input, a fill counter and a queue per (output, VL)
    let queues_per_input = match s.switch.queue_mapping {
        crate::config::QueueMappingKind::Voq => m(f.max_ports, vls),
        crate::config::QueueMappingKind::OneQueue => vls,
    };
    est.add(
        "switch queues",
        m(
            switch_ports,
            m(f.max_ports, vls) * 4 + m(queues_per_input, sz::<PacketQueue>()),
        ),
        Phase::Kept,
    );
    // congestion control is built (and checked) even when it is off
    est.add(
        "congestion control",
        m(np, crate::cc::ib_switch::SwitchCc::bytes_per_port(vls))
            + m(hcas, 16 + if s.cc.level == "sl" { vls * 25 } else { 0 })
            + 8 * (s.cc.ccti_limit as u64 + 1).max(128),
        if s.cc.enabled {
            Phase::Kept
        } else {
            Phase::Setup
        },
    );
    // per HCA: queues and pacing state
    est.add(
        "HCAs",
        m(hcas, 4 + 4 + 32 + 1 + 8 + 8 + 24 + 4 + 32 + 24),
        Phase::Kept,
    );

    // packets: every live packet holds credits in some buffer (a CNP answers a marked one)
    let host_cap = s
        .switch
        .host_ports
        .buffer_credits
        .unwrap_or(s.switch.buffer_credits) as u64;
    let fabric_cap = s
        .switch
        .fabric_ports
        .buffer_credits
        .unwrap_or(s.switch.buffer_credits) as u64;
    let capacity = m(
        vls,
        m(hcas, host_cap + s.hca.buffer_credits as u64)
            + m(switch_ports.saturating_sub(hcas), fabric_cap),
    );
    let credit = s.traffic.credit_bytes.0.max(1);
    let pkt_credits = s.traffic.packet_bytes.0.div_ceil(credit).max(1);
    let mut packets = capacity / pkt_credits + hcas;
    if s.cc.enabled {
        packets = m(packets, 2);
    }
    est.add("packets", grown(m(packets, sz::<Packet>() + 8)), Phase::Run);
    // events: a few per packet, port and HCA, in wheel buckets (at most 2^14) that keep the
    // capacity they once needed
    let events = m(packets, 3) + m(np, 2) + m(hcas, 3);
    let slot = sz::<Ev>() + 8;
    est.add(
        "event queue",
        grown(m(events, slot)) + (1 << 14) * (sz::<Vec<u8>>() + 4 * slot),
        Phase::Run,
    );

    // traffic: sources with their destination lists, the (src, dst) pairs whose routes are
    // checked (sorted in a copy), and the flows (queue pairs) the run creates
    let host = LinkParams::from_config(&s.links.host, "links.host")?;
    let payload = s.traffic.payload_bytes.0.max(1);
    let msg_packets = s.traffic.message_bytes.0.div_ceil(payload).max(1);
    let msg_time = host
        .rate
        .ser_ps(s.traffic.packet_bytes.0.saturating_mul(msg_packets))
        .max(1);
    let pkt_time = host.rate.ser_ps(s.traffic.packet_bytes.0).max(1);
    let (mut sources, mut dest_entries, mut flows, mut queued_msgs) = (0u64, 0u64, 0u64, 0u64);
    let n_static = s.traffic.flows.len() as u64;
    sources += n_static;
    flows += n_static;
    for g in &s.traffic.generators {
        let count = |set: &NodeSet| match set {
            NodeSet::List(v) => (v.len() as u64).min(hcas),
            NodeSet::Named(_) => hcas,
        };
        let srcs = count(&g.sources);
        let dsts = count(&g.destinations);
        let start = g.start.0.min(end);
        let stop = g.stop.map_or(end, |d| d.0.min(end));
        let active = stop.saturating_sub(start);
        let unit = if g.destination_per == "packet" {
            pkt_time
        } else {
            msg_time
        };
        let msgs = active / unit + 2;
        sources += srcs;
        dest_entries = dest_entries.saturating_add(m(srcs, dsts));
        flows = flows.saturating_add(m(srcs, dsts.min(msgs)));
        if g.injection == Injection::Bernoulli {
            queued_msgs = queued_msgs.saturating_add(m(srcs, msgs));
        }
    }
    for fl in &s.traffic.flows {
        if fl.injection == Injection::Bernoulli {
            queued_msgs = queued_msgs.saturating_add(end / msg_time + 2);
        }
    }
    est.add(
        "traffic sources",
        m(sources, sz::<Source>()) + m(dest_entries, 4) + m(hcas, 24),
        Phase::Kept,
    );
    // the pairs are pushed and kept; the set-up sorts a copy
    est.add(
        "traffic pairs",
        grown(m(dest_entries + n_static, 8)),
        Phase::Kept,
    );
    // (a sorted copy, and a sample of it when there are too many to check one by one)
    let pairs = dest_entries + n_static;
    est.add(
        "route checks",
        m(pairs, 8) + m(pairs.min(super::build::MAX_ROUTE_CHECKS as u64), 8),
        Phase::Setup,
    );
    est.add(
        "flows",
        grown(m(flows, sz::<Flow>() + 16)) + grown(m(queued_msgs, sz::<Message>())),
        Phase::Run,
    );

    // statistics: bytes per HCA per interval, buffer occupancy per switch input and VL per
    // interval, latency histograms, the CCTI series
    let interval = s.sim.interval.0.max(1);
    let n_int = end.div_ceil(interval).max(1);
    est.add("statistics per node", m(m(n_int, hcas), 16), Phase::Kept);
    let tracked = if s.stats.buffer_occupancy {
        m(switch_ports, vls)
    } else {
        0
    };
    est.add(
        "statistics per buffer",
        m(tracked, 12) + m(m(n_int, tracked), 12),
        Phase::Kept,
    );
    est.add("latency histograms", 2 * 400 * 1024, Phase::Kept);
    if s.cc.enabled {
        est.add("CCTI series", m(m(n_int, hcas), 4 * 16 * 2), Phase::Run);
    }
    // results files: built as text in memory before they are written (a line per interval
    // and HCA, per interval and tracked buffer, per flow)
    let name = f.name_bytes.max(4);
    est.add(
        "results files",
        grown(m(m(n_int, hcas), 24 + name) + m(m(n_int, tracked), 28 + name) + m(flows, 120)),
        Phase::Run,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::load_str;
    use std::path::Path;

    fn load(text: &str) -> LoadedScenario {
        load_str(text, "t.toml", Path::new("."), "t", &[], None).unwrap()
    }

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
    }

    #[test]
    fn forwarding_tables_dominate_a_large_mesh() {
        let l = load(
            "[sim]\nend_time = \"10us\"\n[topology]\nkind = \"mesh\"\ndims = [400, 400]\nhcas_per_switch = 1\n",
        );
        let e = estimate(&l).unwrap();
        // 160,000 switches × 160,001 LIDs × 2 B
        assert!(e.total > 51_000_000_000, "{}", e.summary());
        assert_eq!(e.parts[0].0, "forwarding tables", "{}", e.summary());
        let err = check(&l, Some(8 << 30)).unwrap_err().to_string();
        assert!(
            err.contains("--max-memory") && err.contains("8.00 GiB"),
            "{err}"
        );
    }

    #[test]
    fn structured_sizes_match_the_built_fabrics() {
        for topo in [
            "kind = \"mesh\"\ndims = [3, 4]\nhcas_per_switch = 2",
            "kind = \"mesh\"\ndims = [2, 5, 1]\nhcas_per_switch = 1",
            "kind = \"torus\"\ndims = [2, 3, 4]\nhcas_per_switch = 1",
            "kind = \"torus\"\ndims = [5]\nhcas_per_switch = 3",
            "kind = \"fat_tree\"\nk = 4\nn = 3",
            "kind = \"fat_tree\"\ndown = [18, 36]\nup = [1, 18]",
            "kind = \"dragonfly\"\np = 2",
            "kind = \"dragonfly\"\np = 3\na = 4\nh = 2",
        ] {
            let l = load(&format!("[sim]\nend_time = \"1us\"\n[topology]\n{topo}\n"));
            let analytic = topology::size(&l.scenario, &l.base_dir).unwrap();
            let built = FabricSize::of(&topology::build(&l.scenario, &l.base_dir).unwrap());
            assert_eq!(
                (
                    analytic.switches,
                    analytic.hcas,
                    analytic.ports,
                    analytic.max_ports
                ),
                (built.switches, built.hcas, built.ports, built.max_ports),
                "{topo}"
            );
        }
    }
}
