//! The credit-level model's traffic (InfiniBand CC spec §3.7.1, §5): static flows (queue pairs
//! with a fixed destination) and generators that pick a destination per message or packet by a
//! steady pattern of [`crate::traffic::pattern`] (uniform over a node set with an optional hotspot, or a
//! permutation such as the perfect shuffle over the fabric's [`Geometry`]), with flood (greedy)
//! Bernoulli ([`Bernoulli`]) or Poisson ([`Exponential`] gaps, drb-and-ddbbm spec A.6) injection and
//! per-node start/stop times.

use crate::config::{
    BitRate, DestinationPer, Duration, GeneratorConfig, HcaNames, HotspotSplit, Injection, NodeSet,
    Pattern, Ps, Scenario, Subset, TrafficConfig, PS_PER_S,
};
use crate::engine::rng::{purpose, stream};
use crate::error::{Error, Result};
use crate::topology::{Fabric, LinkRate};
use crate::traffic::geometry::Geometry;
use crate::traffic::injection::{Bernoulli, Exponential};
use crate::traffic::pattern::{self, Among, DestinationPattern, Request};
use crate::traffic::permutation::{is_job_permutation, job_image};
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, VecDeque};

/// A message waiting in a flow's queue.
#[derive(Debug, Clone, Copy)]
pub struct Message {
    /// When it was created.
    pub created: Ps,
    /// Packets not yet sent.
    pub packets_left: u32,
}

/// A flow: one queue pair from `src` to `dst` with its own injection queue at the source HCA,
/// so a held-back flow never blocks another (spec §2.3.3).
#[derive(Debug, Clone)]
pub struct Flow {
    /// Source HCA index.
    pub src: u32,
    /// Destination HCA index.
    pub dst: u32,
    /// Virtual lane.
    pub vl: u8,
    /// Owning source (index in [`Traffic::sources`]).
    pub source: u32,
    /// Declared in `[[traffic.flows]]` (vs created by a generator).
    pub is_static: bool,
    /// Messages queued.
    pub msgs: VecDeque<Message>,
    /// Since when the current head packet has been at the head (flood latency reference).
    pub head_since: Ps,
    /// In its HCA's ready list.
    pub ready: bool,
    /// Bytes sent.
    pub tx_bytes: u64,
    /// Bytes delivered.
    pub rx_bytes: u64,
    /// Packets sent.
    pub tx_packets: u64,
    /// Packets delivered.
    pub rx_packets: u64,
    /// Bytes delivered inside the fairness window.
    pub rx_bytes_window: u64,
    /// Sum of packet latencies (ps).
    pub latency_sum: u128,
    /// Highest sequence number delivered so far (0: none; spec B.3.6).
    pub rx_max_seq: u32,
    /// Packets delivered after a later packet of the flow (spec B.3.6, B.7).
    pub out_of_order: u64,
    /// DDBBM: the congestion bit latched for the current message (drb-and-ddbbm spec B.3.6).
    pub cbit: bool,
    /// A message has started and not finished (its later packets keep `cbit`).
    pub in_message: bool,
    /// DRB multipath (`drb.enabled`): the path its next packet takes, chosen after the
    /// previous one left (drb spec A.3.2 "for the following injection"), so the HCA's credit
    /// check knows that packet's VL (its path's layer, spec A.3.5). 0 otherwise.
    pub next_path: u8,
    /// With LMC > 0 and `routing.lmc_path = "message"`: the round-robin turn of its next
    /// message over the destination's LIDs (`ForwardingTables::next_offset`). 0 otherwise.
    pub lid_turn: u8,
    /// Receiver: the number of the oldest message not yet wholly delivered (message `k` is
    /// packets `k·m + 1 ..= (k+1)·m` of the flow's sequence numbers; drb spec A.7).
    pub rx_msg_base: u32,
    /// Receiver: packets delivered of each message from `rx_msg_base` on (packets of later
    /// messages may overtake with multipath: drb spec A.7, B.3.6).
    pub rx_msg_got: VecDeque<u32>,
}

/// How a source picks destinations.
#[derive(Debug, Clone)]
pub enum Destinations {
    /// Always this flow.
    Static(u32),
    /// By its generator's pattern (self excluded).
    Random {
        /// The pattern: index in [`Traffic::patterns`].
        pattern: u32,
    },
}

/// A dense [`FlowIndex`] is used while it has at most this many entries (sources × HCAs:
/// 64 MiB); larger ones hash.
pub const DENSE_FLOW_INDEX_ENTRIES: u64 = 1 << 24;

/// The random sources' (source, destination) → flow map: looked up for every message a
/// source creates (its flow is created on first use). Which form it takes changes no result,
/// only the lookup's cost.
#[derive(Debug, Clone)]
pub enum FlowIndex {
    /// One entry per source and HCA of the fabric (`u32::MAX`: no flow yet): one cache line
    /// read per message, and one that can be prefetched.
    Dense {
        /// HCAs of the fabric (a row's length).
        hcas: usize,
        /// Row `s`, column `dst`.
        v: Vec<u32>,
    },
    /// The flows created so far, by `(s << 32) | dst`.
    Hashed(HashMap<u64, u32, DestHash>),
}

impl Default for FlowIndex {
    fn default() -> Self {
        FlowIndex::Hashed(HashMap::default())
    }
}

impl FlowIndex {
    /// True when [`FlowIndex::new`] makes a dense map for `sources` sources over `hcas` HCAs
    /// (the memory estimate counts the largest dense map its upper bound of sources allows).
    pub fn is_dense(sources: u64, hcas: u64) -> bool {
        sources.saturating_mul(hcas) <= DENSE_FLOW_INDEX_ENTRIES
    }

    /// An empty map for `sources` sources over a fabric of `hcas` HCAs.
    pub fn new(sources: usize, hcas: usize) -> Self {
        if Self::is_dense(sources as u64, hcas as u64) {
            FlowIndex::Dense {
                hcas,
                v: vec![u32::MAX; sources * hcas],
            }
        } else {
            FlowIndex::default()
        }
    }

    /// The flow of source `s` to `dst`, if created.
    #[inline]
    pub fn get(&self, s: u32, dst: u32) -> Option<u32> {
        match self {
            FlowIndex::Dense { hcas, v } => v
                .get(s as usize * hcas + dst as usize)
                .copied()
                .filter(|&f| f != u32::MAX),
            FlowIndex::Hashed(m) => m.get(&Self::key(s, dst)).copied(),
        }
    }

    /// Records flow `f` as source `s`'s flow to `dst`.
    #[inline]
    pub fn insert(&mut self, s: u32, dst: u32, f: u32) {
        match self {
            FlowIndex::Dense { hcas, v } => v[s as usize * *hcas + dst as usize] = f,
            FlowIndex::Hashed(m) => {
                m.insert(Self::key(s, dst), f);
            }
        }
    }

    /// [`FlowIndex::get`] for a prefetch hint: the dense form only (its entry is one read,
    /// where a hash map would probe); `None` otherwise.
    #[inline(always)]
    pub fn peek(&self, s: u32, dst: u32) -> Option<u32> {
        match self {
            FlowIndex::Dense { .. } => self.get(s, dst),
            FlowIndex::Hashed(_) => None,
        }
    }

    /// Prefetch hint for the entry of (`s`, `dst`) (the dense form only: a hash map's slot is
    /// not known without hashing and probing).
    #[inline(always)]
    pub fn prefetch(&self, s: u32, dst: u32) {
        if let FlowIndex::Dense { hcas, v } = self {
            crate::credit::prefetch::prefetch(v, s as usize * hcas + dst as usize);
        }
    }

    fn key(s: u32, dst: u32) -> u64 {
        (s as u64) << 32 | dst as u64
    }
}

/// Hashing of [`FlowIndex::Hashed`]'s keys: one multiplication (the keys are source and HCA
/// indices, not chosen by an adversary; the map is never iterated, so the hash changes no
/// result).
#[derive(Debug, Clone, Copy, Default)]
pub struct DestHash;

impl std::hash::BuildHasher for DestHash {
    type Hasher = DestHasher;
    #[inline]
    fn build_hasher(&self) -> DestHasher {
        DestHasher(0)
    }
}

/// The hasher of [`DestHash`] (Fibonacci hashing of the key).
#[derive(Debug, Clone, Copy)]
pub struct DestHasher(u64);

impl std::hash::Hasher for DestHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    #[inline]
    fn write_u32(&mut self, x: u32) {
        self.0 = (self.0 ^ x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0 ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    /// The product's high half folded into its low half: the table picks buckets by the low
    /// bits, and a product's low bits depend only on the key's low bits (the destination of a
    /// `(source << 32) | destination` key), which would pile every source's flow to one
    /// destination into the same buckets.
    #[inline]
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 32)
    }
}

/// A traffic source on one HCA.
#[derive(Debug, Clone)]
pub struct Source {
    /// The HCA.
    pub hca: u32,
    /// Destination choice.
    pub dest: Destinations,
    /// Flood (greedy) or Bernoulli.
    pub injection: Injection,
    /// Bernoulli: slot time (one message on the host link).
    pub slot_ps: Ps,
    /// Bernoulli: the arrival process, one trial per slot.
    pub arrivals: Bernoulli,
    /// Poisson: the exponential gaps between messages, in ps (drb-and-ddbbm spec A.6).
    pub gaps: Exponential,
    /// The mean share of its host link the source offers (wire bytes; flood: 1; Poisson may
    /// exceed 1).
    pub share: f64,
    /// Active from.
    pub start: Ps,
    /// Active until.
    pub stop: Ps,
    /// Virtual lane.
    pub vl: u8,
    /// Packets per message.
    pub msg_packets: u32,
    /// Messages created but blocked behind throttled flows (flood).
    pub parked: u32,
    /// Destination random stream.
    pub rng_dest: ChaCha8Rng,
    /// Arrival random stream.
    pub rng_arr: ChaCha8Rng,
}

impl Source {
    /// True if the source may create traffic at `t`.
    #[inline]
    pub fn active(&self, t: Ps) -> bool {
        t >= self.start && t < self.stop
    }

    /// A periodic source's first arrival: its start plus a phase uniform within one gap
    /// (from its arrival stream), so that the sources are not in lockstep.
    pub fn first_periodic_arrival(&mut self) -> Ps {
        let u: f64 = rand::Rng::random(&mut self.rng_arr);
        self.start
            .saturating_add((u * self.gaps.mean()).floor() as Ps)
    }

    /// Next arrival after `t`: Bernoulli, a geometric number of slots; Poisson, an
    /// exponential gap rounded to the picosecond (drb-and-ddbbm spec A.6); periodic, the mean
    /// gap.
    pub fn next_arrival(&mut self, t: Ps) -> Ps {
        match self.injection {
            Injection::Poisson => {
                let gap = self.gaps.gap(&mut self.rng_arr).round();
                return t.saturating_add(gap as Ps);
            }
            Injection::Periodic => return t.saturating_add(self.gaps.mean().round() as Ps),
            _ => {}
        }
        let slots = self.arrivals.slots_to_next(&mut self.rng_arr);
        t.saturating_add((slots as f64 * self.slot_ps as f64) as Ps)
    }
}

/// All traffic of a run.
#[derive(Debug, Clone, Default)]
pub struct Traffic {
    /// Flows (static ones first, in file order).
    pub flows: Vec<Flow>,
    /// Sources.
    pub sources: Vec<Source>,
    /// Sources per HCA.
    pub by_hca: Vec<Vec<u32>>,
    /// The generators' destination patterns (over HCA indices).
    pub patterns: Vec<DestinationPattern>,
    /// (src, dst) pairs whose routes must exist.
    pub pairs: Vec<(u32, u32)>,
    /// The random sources' flows, by source and destination.
    pub flow_index: FlowIndex,
    /// The jobs named by `traffic.flows[].job` and `traffic.generators[].job`, in order of
    /// first mention.
    pub jobs: Vec<String>,
    /// Per source: its job (an index into `jobs`), if it has one.
    pub source_job: Vec<Option<u32>>,
}

impl Traffic {
    /// The index of job `name` in [`Traffic::jobs`], added on first mention.
    fn job_index(&mut self, name: Option<&String>) -> Option<u32> {
        let name = name?;
        Some(match self.jobs.iter().position(|j| j == name) {
            Some(i) => i as u32,
            None => {
                self.jobs.push(name.clone());
                self.jobs.len() as u32 - 1
            }
        })
    }
}

impl Flow {
    /// Records the delivery of packet `seq` (1-based, [`Flow::delivered_seq`]'s numbers) of a
    /// flow whose messages have `m` packets each; true if it was the last of its message to
    /// arrive (drb-and-ddbbm spec A.7: a message's latency ends at its last packet delivered,
    /// in whatever order its packets arrive). Allocation-free once the flow's window of
    /// partly delivered messages has reached its largest size.
    #[inline]
    pub fn delivered_message_packet(&mut self, seq: u32, m: u32) -> bool {
        if m <= 1 {
            return true;
        }
        let k = (seq.wrapping_sub(1) / m).wrapping_sub(self.rx_msg_base) as usize;
        if k >= self.rx_msg_got.len() {
            self.rx_msg_got.resize(k + 1, 0);
        }
        self.rx_msg_got[k] += 1;
        let done = self.rx_msg_got[k] == m;
        while self.rx_msg_got.front() == Some(&m) {
            self.rx_msg_got.pop_front();
            self.rx_msg_base = self.rx_msg_base.wrapping_add(1);
        }
        done
    }

    /// Records the delivery of the flow's packet number `seq` (1-based, in creation order):
    /// counts it out of order when a later packet has been delivered already (spec B.3.6).
    /// Serial-number comparison, so a sequence number that wrapped past `u32::MAX` still
    /// compares right while packets overtake each other by fewer than 2³¹.
    #[inline]
    pub fn delivered_seq(&mut self, seq: u32) {
        if self.rx_max_seq != 0 && (seq.wrapping_sub(self.rx_max_seq) as i32) < 0 {
            self.out_of_order += 1;
        } else {
            self.rx_max_seq = seq;
        }
    }
}

impl Traffic {
    /// The flow of source `s` towards `dst`, created on first use.
    pub fn flow_for(&mut self, s: u32, dst: u32) -> u32 {
        let n = self.flows.len() as u32;
        let src = &self.sources[s as usize];
        match &src.dest {
            Destinations::Static(f) => *f,
            Destinations::Random { .. } => {
                if let Some(f) = self.flow_index.get(s, dst) {
                    return f;
                }
                self.flow_index.insert(s, dst, n);
                let (hca, vl) = (src.hca, src.vl);
                self.flows.push(new_flow(hca, dst, vl, s, false));
                n
            }
        }
    }

    /// Draws the next destination of random source `s`.
    pub fn pick_destination(&mut self, s: u32) -> u32 {
        let src = &mut self.sources[s as usize];
        match &src.dest {
            Destinations::Static(f) => self.flows[*f as usize].dst,
            Destinations::Random { pattern, .. } => {
                self.patterns[*pattern as usize].draw(src.hca, &mut src.rng_dest)
            }
        }
    }

    /// Per HCA: the share of its link its sources offer to send (a greedy source counts 1;
    /// DDBBM's R_max: drb-and-ddbbm spec B.3.2).
    pub fn offered_sending(&self) -> Vec<f64> {
        let mut v = vec![0.0; self.by_hca.len()];
        for src in &self.sources {
            v[src.hca as usize] += src.share;
        }
        v
    }

    /// The traffic offered to each HCA over `[from, to)` in bytes/s on the wire (spec B.7: the
    /// "expected" reception rate of a destination that is below capacity): every source's mean
    /// rate (Bernoulli, Poisson: its offered share × its host link, `link_bytes_per_s(hca)`;
    /// flood: the whole link)
    /// times the share of its active time inside the window, spread by its pattern's
    /// [`DestinationPattern::shares`] (a static flow: all to its destination).
    pub fn offered_to(&self, link_bytes_per_s: &dyn Fn(u32) -> f64, from: Ps, to: Ps) -> Vec<f64> {
        let mut v = vec![0.0; self.by_hca.len()];
        let len = to.saturating_sub(from);
        if len == 0 {
            return v;
        }
        for src in &self.sources {
            let on = src.stop.min(to).saturating_sub(src.start.max(from));
            let rate = src.share * link_bytes_per_s(src.hca) * on as f64 / len as f64;
            match &src.dest {
                Destinations::Static(f) => v[self.flows[*f as usize].dst as usize] += rate,
                Destinations::Random { pattern, .. } => {
                    for (d, w) in self.patterns[*pattern as usize].shares(src.hca) {
                        v[d as usize] += rate * w;
                    }
                }
            }
        }
        v
    }

    /// The hot HCAs of every generator (a hotspot pattern with a positive fraction), sorted
    /// (spec B.7: the destinations left out of the non-hot fairness figures).
    pub fn hot_destinations(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .patterns
            .iter()
            .filter_map(|p| match p {
                DestinationPattern::Hotspot { hot, fraction, .. } if *fraction > 0.0 => {
                    Some(hot.iter().copied())
                }
                _ => None,
            })
            .flatten()
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Every destination source `s` may draw (the routes it needs).
    pub fn destinations_of(&self, s: u32) -> Vec<u32> {
        let src = &self.sources[s as usize];
        match &src.dest {
            Destinations::Static(f) => vec![self.flows[*f as usize].dst],
            Destinations::Random { pattern, .. } => {
                self.patterns[*pattern as usize].destinations_of(src.hca)
            }
        }
    }
}

/// A flow from HCA `src` to HCA `dst` on `vl` of source `source` with nothing sent yet.
pub fn new_flow(src: u32, dst: u32, vl: u8, source: u32, is_static: bool) -> Flow {
    Flow {
        src,
        dst,
        vl,
        source,
        is_static,
        msgs: VecDeque::new(),
        head_since: 0,
        ready: false,
        tx_bytes: 0,
        rx_bytes: 0,
        tx_packets: 0,
        rx_packets: 0,
        rx_bytes_window: 0,
        latency_sum: 0,
        rx_max_seq: 0,
        out_of_order: 0,
        cbit: false,
        in_message: false,
        next_path: 0,
        lid_turn: 0,
        rx_msg_base: 0,
        rx_msg_got: VecDeque::new(),
    }
}

/// Resolves `[traffic]` against the fabric. `host_rate` of each HCA sets Bernoulli slot times.
pub fn build(s: &Scenario, fabric: &Fabric, seed: u64, vls: u32) -> Result<Traffic> {
    let t = &s.traffic;
    let n_hca = fabric.hcas.len();
    check_sizes(t)?;
    let (pkt_bytes, payload) = (t.packet_bytes.0, t.payload_bytes.0);
    let msg_packets = t.message_bytes.0.div_ceil(payload) as u32;
    let mut tr = Traffic {
        by_hca: vec![Vec::new(); n_hca],
        ..Default::default()
    };

    let chk = SourceChecks {
        fabric,
        pkt_bytes,
        vls,
    };

    for (i, f) in t.flows.iter().enumerate() {
        let key = format!("traffic.flows[{i}]");
        let src = hca_index(fabric, &f.src, &format!("{key}.src"))?;
        let dst = hca_index(fabric, &f.dst, &format!("{key}.dst"))?;
        if src == dst {
            return Err(Error::input(
                &format!("{key}.dst"),
                "a flow cannot go to its own source",
            ));
        }
        let vl = chk.vl(&format!("{key}.vl"), f.vl)?;
        let pr = chk.process(&key, f.injection, f.load, f.rate, src, msg_packets)?;
        let sid = tr.sources.len() as u32;
        let fid = tr.flows.len() as u32;
        tr.flows.push(new_flow(src, dst, vl, sid, true));
        tr.sources.push(Source {
            hca: src,
            dest: Destinations::Static(fid),
            injection: f.injection,
            slot_ps: pr.slot_ps,
            arrivals: pr.arrivals,
            gaps: pr.gaps,
            share: pr.share,
            start: f.start.0,
            stop: chk.stop(&format!("{key}.stop"), f.start.0, f.stop)?,
            vl,
            msg_packets,
            parked: 0,
            rng_dest: stream(seed, sid as u64, purpose::DESTINATION),
            rng_arr: stream(seed, sid as u64, purpose::ARRIVALS),
        });
        tr.by_hca[src as usize].push(sid);
        tr.pairs.push((src, dst));
        let job = tr.job_index(f.job.as_ref());
        tr.source_job.push(job);
    }
    let static_sources: Vec<u32> = tr.flows.iter().map(|f| f.src).collect();

    for (i, g) in t.generators.iter().enumerate() {
        let key = format!("traffic.generators[{i}]");
        add_generator(
            &mut tr,
            g,
            &key,
            fabric,
            seed,
            &static_sources,
            msg_packets,
            &chk,
        )?;
    }
    tr.flow_index = FlowIndex::new(tr.sources.len(), n_hca);
    Ok(tr)
}

/// A source's checked injection process.
struct Process {
    /// Bernoulli: the slot (one message on the host link).
    slot_ps: Ps,
    /// Bernoulli: the trial per slot.
    arrivals: Bernoulli,
    /// Poisson: the gaps in ps (drb-and-ddbbm spec A.6).
    gaps: Exponential,
    /// The offered share of the host link.
    share: f64,
}

/// The checks every source of `[traffic]` passes (a static flow or a generator's), with
/// what they read: the HCAs' host links, the packet size, the VLs.
struct SourceChecks<'a> {
    fabric: &'a Fabric,
    pkt_bytes: u64,
    vls: u32,
}

impl SourceChecks<'_> {
    /// The host link rate of HCA `h`.
    fn host_rate(&self, h: u32) -> LinkRate {
        self.fabric.nodes[self.fabric.hcas[h as usize] as usize].ports[0]
            .link
            .rate
    }

    /// The checked injection process of a source at HCA `h` whose messages are `pkts`
    /// packets (`key` names it in errors).
    fn process(
        &self,
        key: &str,
        inj: Injection,
        load: Option<f64>,
        rate: Option<BitRate>,
        h: u32,
        pkts: u32,
    ) -> Result<Process> {
        let pkt_bytes = self.pkt_bytes;
        let name = inj.name();
        if inj == Injection::Flood {
            if load.is_some() || rate.is_some() {
                return Err(Error::input(
                    key,
                    "`load`/`rate` apply only to injection = \"bernoulli\", \"poisson\" or \"periodic\"",
                ));
            }
            return Ok(Process {
                slot_ps: 0,
                arrivals: Bernoulli::new(1.0),
                gaps: Exponential::new(1.0),
                share: 1.0,
            });
        }
        let p = match (load, rate) {
            (Some(l), None) => l,
            (None, Some(r)) => r.0 as f64 / self.host_rate(h).bits_per_s(),
            _ => {
                return Err(Error::input(
                    key,
                    format!("{name} injection needs exactly one of `load` (0–1] or `rate`"),
                ))
            }
        };
        // Poisson offers any rate (its messages queue at the source); a Bernoulli trial per
        // message slot cannot offer more than the link
        let most = if matches!(inj, Injection::Poisson | Injection::Periodic) && load.is_none() {
            f64::INFINITY
        } else {
            1.0
        };
        if !(p > 0.0 && p <= most) {
            return Err(Error::input(
                key,
                format!("offered load {p} outside (0, 1] of the host link"),
            ));
        }
        let wire_bits = (pkt_bytes * pkts as u64 * 8) as f64;
        let mean_gap_ps = wire_bits / (p * self.host_rate(h).bits_per_s()) * PS_PER_S as f64;
        Ok(Process {
            slot_ps: self.host_rate(h).ser_ps(pkt_bytes * pkts as u64).max(1),
            arrivals: Bernoulli::new(p.min(1.0)),
            gaps: Exponential::new(mean_gap_ps),
            share: p,
        })
    }

    /// A source's VL, which must exist (`switch.vls`).
    fn vl(&self, key: &str, vl: u32) -> Result<u8> {
        let vls = self.vls;
        if vl >= vls {
            return Err(Error::input(
                key,
                format!("VL {vl} does not exist; switch.vls = {vls}"),
            ));
        }
        Ok(vl as u8)
    }

    /// A source's stop time (none: never), after its `start`.
    fn stop(&self, key: &str, start: Ps, stop: Option<Duration>) -> Result<Ps> {
        let st = stop.map(|d| d.0).unwrap_or(u64::MAX);
        if st <= start {
            return Err(Error::input(key, "stop must be after start"));
        }
        Ok(st)
    }
}

/// The packet, payload and message sizes of `[traffic]`: each positive, a packet within the
/// MTU, a payload within its packet.
fn check_sizes(t: &TrafficConfig) -> Result<()> {
    let (pkt_bytes, payload) = (t.packet_bytes.0, t.payload_bytes.0);
    if t.credit_bytes.0 == 0 {
        return Err(Error::input("traffic.credit_bytes", "must be positive"));
    }
    if pkt_bytes == 0 || pkt_bytes > t.mtu_credits as u64 * t.credit_bytes.0 {
        return Err(Error::input(
            "traffic.packet_bytes",
            format!(
                "{pkt_bytes} B does not fit the MTU of {} credits × {} B",
                t.mtu_credits, t.credit_bytes.0
            ),
        ));
    }
    if payload == 0 || payload > pkt_bytes {
        return Err(Error::input(
            "traffic.payload_bytes",
            "must be positive and at most traffic.packet_bytes",
        ));
    }
    if t.message_bytes.0 == 0 {
        return Err(Error::input("traffic.message_bytes", "must be positive"));
    }
    Ok(())
}

/// Adds generator `g` (at `key`) to `tr`: every check first, in one pass ([`GeneratorPlan::check`]),
/// then its sources and patterns; nothing is added unless every check holds.
#[allow(clippy::too_many_arguments)]
fn add_generator(
    tr: &mut Traffic,
    g: &GeneratorConfig,
    key: &str,
    fabric: &Fabric,
    seed: u64,
    static_sources: &[u32],
    msg_packets: u32,
    chk: &SourceChecks,
) -> Result<()> {
    let plan = GeneratorPlan::check(tr, g, key, fabric, seed, static_sources, msg_packets, chk)?;
    plan.add_to(tr, g, seed);
    Ok(())
}

/// A generator of `[traffic]`, checked and resolved, not yet added: its destination patterns
/// (one, or one per hotspot with `hotspot_split = "source"`), its VL and its sending sources.
struct GeneratorPlan {
    /// The destination patterns; source `i` of the generator's set uses pattern `i mod k`.
    patterns: Vec<DestinationPattern>,
    /// The VL every source sends on.
    vl: u8,
    /// The sources that send (a permutation's fixed points left out), in LID order.
    sources: Vec<PlannedSource>,
}

/// One sending source of a [`GeneratorPlan`]: its HCA, which of the generator's patterns it
/// draws from, the HCAs it can reach, its injection process and its message size.
struct PlannedSource {
    /// The source HCA.
    hca: u32,
    /// Its pattern, an index into [`GeneratorPlan::patterns`].
    pattern: u32,
    /// The destinations its pattern can give it (their routes must exist).
    reach: Vec<u32>,
    /// Its checked injection process.
    process: Process,
    /// Packets per message (1 with `destination_per = "packet"`).
    msg_packets: u32,
    /// Its stop time.
    stop: Ps,
}

impl GeneratorPlan {
    /// Every check of generator `g` (at `key`), in the order its keys are read: the idle HCAs,
    /// the hotspot, the source and destination sets and their subsets, the patterns, the VL,
    /// then each source's destinations, injection process and stop time.
    #[allow(clippy::too_many_arguments)]
    fn check(
        tr: &Traffic,
        g: &GeneratorConfig,
        key: &str,
        fabric: &Fabric,
        seed: u64,
        static_sources: &[u32],
        msg_packets: u32,
        chk: &SourceChecks,
    ) -> Result<Self> {
        let mut idle = Vec::new();
        for (j, n) in g.idle.iter().enumerate() {
            idle.push(hca_index(fabric, n, &format!("{key}.idle[{j}]"))?);
        }
        let hotspot = generator_hotspot(g, key, fabric)?;
        let sets = NodeSets::new(fabric, static_sources, &tr.sources);
        // the subset stream is the generator's: numbered by the sources before it
        let rng = stream(seed, u64::MAX - tr.sources.len() as u64, purpose::SUBSET);
        let mut subsets = Subsets {
            kind: g.subset,
            rng,
        };
        // a pure hotspot generator (fraction 1) never has a hot HCA among its sources: it would
        // have no destination but itself or another hotspot (spec B.6: hot sources exclude the hotspot)
        let excluded: Vec<u32> = match &hotspot {
            Some((h, f)) if *f >= 1.0 => h.clone(),
            _ => Vec::new(),
        };
        let mut sources = sets.resolve(&g.sources, &format!("{key}.sources"), true)?;
        sources.retain(|h| !idle.contains(h));
        let sources = subsets.keep(
            sources,
            g.source_fraction,
            &excluded,
            &format!("{key}.source_fraction"),
        )?;
        let dests = sets.resolve(&g.destinations, &format!("{key}.destinations"), false)?;
        let dests = subsets.keep(
            dests,
            g.destination_fraction,
            &[],
            &format!("{key}.destination_fraction"),
        )?;
        let mut perm_rng = stream(
            seed,
            u64::MAX - tr.sources.len() as u64,
            purpose::JOB_PERMUTATION,
        );
        let job = JobSet {
            sources: &sources,
            rng: &mut perm_rng,
        };
        let patterns = generator_patterns(g, key, fabric, dests, hotspot, job)?;
        let vl = chk.vl(&format!("{key}.vl"), g.vl)?;
        let sources = plan_sources(g, key, fabric, &sources, &patterns, msg_packets, chk)?;
        Ok(Self {
            patterns,
            vl,
            sources,
        })
    }

    /// Adds the planned sources and their patterns to `tr` (each source's random streams are
    /// numbered by its place among all of `tr`'s sources).
    fn add_to(self, tr: &mut Traffic, g: &GeneratorConfig, seed: u64) {
        let pid = tr.patterns.len() as u32;
        let job = tr.job_index(g.job.as_ref());
        for s in self.sources {
            tr.source_job.push(job);
            let sid = tr.sources.len() as u32;
            tr.pairs.extend(s.reach.iter().map(|&d| (s.hca, d)));
            tr.sources.push(Source {
                hca: s.hca,
                dest: Destinations::Random {
                    pattern: pid + s.pattern,
                },
                injection: g.injection,
                slot_ps: s.process.slot_ps,
                arrivals: s.process.arrivals,
                gaps: s.process.gaps,
                share: s.process.share,
                start: g.start.0,
                stop: s.stop,
                vl: self.vl,
                msg_packets: s.msg_packets,
                parked: 0,
                rng_dest: stream(seed, sid as u64, purpose::DESTINATION),
                rng_arr: stream(seed, sid as u64, purpose::ARRIVALS),
            });
            tr.by_hca[s.hca as usize].push(sid);
        }
        tr.patterns.extend(self.patterns);
    }
}

/// The HCA index of HCA `name` (at `key` in errors).
fn hca_index(fabric: &Fabric, name: &str, key: &str) -> Result<u32> {
    Ok(fabric.nodes[fabric.hca(name, key)? as usize].lid - 1)
}

/// The hot HCAs of generator `g` (at `key`), in the order given, with their fraction (spec
/// B.6): both `hotspot` and `hotspot_fraction` or neither; `hotspot_split = "source"` needs them.
fn generator_hotspot(
    g: &GeneratorConfig,
    key: &str,
    fabric: &Fabric,
) -> Result<Option<(Vec<u32>, f64)>> {
    let hot_key = format!("{key}.hotspot");
    let hotspot = match (&g.hotspot, g.hotspot_fraction) {
        (None, None) => None,
        (Some(h), Some(f)) if (0.0..=1.0).contains(&f) => {
            let mut v = Vec::new();
            for (j, n) in h.names().into_iter().enumerate() {
                let k = match h {
                    HcaNames::One(_) => hot_key.clone(),
                    HcaNames::List(_) => format!("{hot_key}[{j}]"),
                };
                let x = hca_index(fabric, n, &k)?;
                if v.contains(&x) {
                    return Err(Error::input(&k, format!("names {n} twice")));
                }
                v.push(x);
            }
            if v.is_empty() {
                return Err(Error::input(&hot_key, "names no HCA"));
            }
            Some((v, f))
        }
        (Some(_), Some(f)) => {
            return Err(Error::input(
                &format!("{key}.hotspot_fraction"),
                format!("{f} outside [0, 1]"),
            ))
        }
        _ => {
            return Err(Error::input(
                &hot_key,
                "give both `hotspot` and `hotspot_fraction`",
            ))
        }
    };
    if g.hotspot_split == HotspotSplit::Source && hotspot.is_none() {
        return Err(Error::input(
            &format!("{key}.hotspot_split"),
            "\"source\" binds each source to one hotspot: give `hotspot` and `hotspot_fraction`",
        ));
    }
    Ok(hotspot)
}

/// What a generator's node sets (`sources`, `destinations`) resolve against: the fabric's
/// HCAs, the static flows' sources (`"others"` leaves them out) and the HCAs already sending,
/// static flows and earlier generators (`"rest"` leaves them out).
struct NodeSets<'a> {
    /// The fabric whose HCAs the sets name.
    fabric: &'a Fabric,
    /// The static flows' sources.
    static_sources: &'a [u32],
    /// Per HCA: already sending.
    taken: Vec<bool>,
}

impl<'a> NodeSets<'a> {
    /// The node sets over `fabric`, with `sources` already sending.
    fn new(fabric: &'a Fabric, static_sources: &'a [u32], sources: &[Source]) -> Self {
        let mut taken = vec![false; fabric.hcas.len()];
        for src in sources {
            taken[src.hca as usize] = true;
        }
        Self {
            fabric,
            static_sources,
            taken,
        }
    }

    /// The HCAs of `set` (at `k`), in LID order: `"all"`, with `allow_named` also `"others"`
    /// and `"rest"`, or a list of HCA names.
    fn resolve(&self, set: &NodeSet, k: &str, allow_named: bool) -> Result<Vec<u32>> {
        let n_hca = self.fabric.hcas.len() as u32;
        let v: Vec<u32> = match set {
            NodeSet::Named(s) if s == "all" => (0..n_hca).collect(),
            NodeSet::Named(s) if s == "others" && allow_named => (0..n_hca)
                .filter(|h| !self.static_sources.contains(h))
                .collect(),
            NodeSet::Named(s) if s == "rest" && allow_named => {
                (0..n_hca).filter(|&h| !self.taken[h as usize]).collect()
            }
            NodeSet::Named(s) => {
                return Err(Error::input(
                    k,
                    format!(
                        "unknown node set \"{s}\"; allowed: \"all\"{}, or a list of HCA names",
                        if allow_named {
                            ", \"others\", \"rest\""
                        } else {
                            ""
                        }
                    ),
                ))
            }
            NodeSet::List(l) => {
                let mut v = Vec::new();
                for (j, n) in l.iter().enumerate() {
                    v.push(hca_index(self.fabric, n, &format!("{k}[{j}]"))?);
                }
                v.sort_unstable();
                v.dedup();
                v
            }
        };
        Ok(v)
    }
}

/// A generator's `subset` rule with its random stream (`"random"` draws from it, sources first).
struct Subsets {
    /// How a fraction of a set is kept.
    kind: Subset,
    /// The generator's subset stream.
    rng: ChaCha8Rng,
}

impl Subsets {
    /// Keeps round(|v|·frac) of `v` (the count is of the whole set; no `frac`: all of it),
    /// never an `exclude`d HCA; `k` names `frac` in errors.
    fn keep(
        &mut self,
        v: Vec<u32>,
        frac: Option<f64>,
        exclude: &[u32],
        k: &str,
    ) -> Result<Vec<u32>> {
        let Some(f) = frac else {
            return Ok(v.into_iter().filter(|h| !exclude.contains(h)).collect());
        };
        if !(f > 0.0 && f <= 1.0) {
            return Err(Error::input(k, format!("{f} outside (0, 1]")));
        }
        match self.kind {
            // even spread in LID order: keep element i when floor((i+1)·f) > floor(i·f)
            Subset::EveryOther => Ok(v
                .into_iter()
                .enumerate()
                .filter(|(i, _)| (((*i + 1) as f64) * f).floor() > ((*i as f64) * f).floor())
                .map(|(_, h)| h)
                .filter(|h| !exclude.contains(h))
                .collect()),
            Subset::Random => {
                let keep = ((v.len() as f64) * f).round() as usize;
                let mut v: Vec<u32> = v.into_iter().filter(|h| !exclude.contains(h)).collect();
                v.shuffle(&mut self.rng);
                v.truncate(keep);
                v.sort_unstable();
                Ok(v)
            }
        }
    }
}

/// A generator's own sources (its job, in LID order) and the stream its random permutation
/// draws from: what the job permutations (`shift`, `random_permutation`) permute.
struct JobSet<'a> {
    /// The generator's sources, idle and fractions applied.
    sources: &'a [u32],
    /// The generator's permutation stream.
    rng: &'a mut ChaCha8Rng,
}

/// The destination patterns of generator `g` (at `key`) over `dests` (a job permutation: over
/// `job`'s sources): one, or with `hotspot_split = "source"` one per hotspot (source i uses
/// i mod k).
fn generator_patterns(
    g: &GeneratorConfig,
    key: &str,
    fabric: &Fabric,
    dests: Vec<u32>,
    hotspot: Option<(Vec<u32>, f64)>,
    job: JobSet,
) -> Result<Vec<DestinationPattern>> {
    let shift_key = format!("{key}.shift");
    if is_job_permutation(g.pattern) {
        let p = generator_pattern(g, key, fabric, dests, hotspot)?;
        debug_assert!(matches!(p, DestinationPattern::Uniform(_)));
        let n = fabric.hcas.len() as u32;
        let pkey = format!("{key}.pattern");
        let img = job_image(
            g.pattern,
            job.sources,
            n,
            g.shift,
            job.rng,
            &pkey,
            &shift_key,
        )?;
        return Ok(vec![DestinationPattern::Permutation(img)]);
    }
    if g.shift.is_some() {
        return Err(Error::input(
            &shift_key,
            format!(
                "does not apply to pattern \"{}\"; allowed only with \"shift\"",
                g.pattern.name()
            ),
        ));
    }
    match &hotspot {
        Some((h, f)) if g.hotspot_split == HotspotSplit::Source => h
            .iter()
            .map(|&x| generator_pattern(g, key, fabric, dests.clone(), Some((vec![x], *f))))
            .collect(),
        _ => Ok(vec![generator_pattern(g, key, fabric, dests, hotspot)?]),
    }
}

/// The sending sources of generator `g` (at `key`) among `sources`, each with its pattern
/// (source i uses pattern i mod k), the destinations it can reach and its checked injection
/// process and stop time; a permutation's fixed point sends nothing. Refused: no source, a
/// source with no destination but itself, or a permutation that maps every source onto itself.
fn plan_sources(
    g: &GeneratorConfig,
    key: &str,
    fabric: &Fabric,
    sources: &[u32],
    patterns: &[DestinationPattern],
    msg_packets: u32,
    chk: &SourceChecks,
) -> Result<Vec<PlannedSource>> {
    if sources.is_empty() {
        return Err(Error::input(&format!("{key}.sources"), "selects no HCA"));
    }
    let per_packet = g.destination_per == DestinationPer::Packet;
    let pk = if per_packet { 1 } else { msg_packets };
    let mut planned = Vec::new();
    for (i, &src) in sources.iter().enumerate() {
        let which = i % patterns.len();
        let pattern = &patterns[which];
        let reach = pattern.destinations_of(src);
        if reach.is_empty() {
            if matches!(pattern, DestinationPattern::Permutation(_)) {
                // a fixed point of the permutation: this HCA sends nothing
                continue;
            }
            return Err(Error::input(
                &format!("{key}.destinations"),
                format!(
                    "leaves HCA {} no destination but itself",
                    fabric.nodes[fabric.hcas[src as usize] as usize].name
                ),
            ));
        }
        let process = chk.process(key, g.injection, g.load, g.rate, src, pk)?;
        let stop = chk.stop(&format!("{key}.stop"), g.start.0, g.stop)?;
        planned.push(PlannedSource {
            hca: src,
            pattern: which as u32,
            reach,
            process,
            msg_packets: pk,
            stop,
        });
    }
    if planned.is_empty() {
        return Err(Error::input(
            &format!("{key}.pattern"),
            format!(
                "\"{}\" maps every HCA of `sources` onto itself: no traffic",
                g.pattern.name()
            ),
        ));
    }
    Ok(planned)
}

/// The steady pattern of generator `g` (at `key`) over the fabric's HCAs: `uniform` over the
/// generator's destination set `dests` (with `hotspot` + `hotspot_fraction`: a hotspot, also
/// spelled `pattern = "hotspot"`), or a permutation over the fabric's [`Geometry`], which maps
/// every source to one destination and takes no destination set or hotspot.
fn generator_pattern(
    g: &GeneratorConfig,
    key: &str,
    fabric: &Fabric,
    dests: Vec<u32>,
    hotspot: Option<(Vec<u32>, f64)>,
) -> Result<DestinationPattern> {
    let geo = Geometry::of(fabric)?;
    let n = geo.terminals()?;
    let pkey = format!("{key}.pattern");
    let allowed = geo
        .patterns()
        .iter()
        .filter(|p| !matches!(p, Pattern::Adv))
        .chain(&[Pattern::Shift, Pattern::RandomPermutation])
        .map(|p| format!("\"{}\"", p.name()))
        .collect::<Vec<_>>()
        .join(", ");
    if matches!(g.pattern, Pattern::Mix | Pattern::Transient) {
        return Err(Error::input(
            &pkey,
            format!(
                "\"{}\" is a pattern of the cycle-level model's `traffic.pattern`; allowed here: {allowed}",
                g.pattern.name()
            ),
        ));
    }
    let uniform_like = matches!(g.pattern, Pattern::Uniform | Pattern::Hotspot);
    if !uniform_like {
        let unused = [
            (
                g.destinations != NodeSet::Named("all".into()),
                "destinations",
            ),
            (g.destination_fraction.is_some(), "destination_fraction"),
            (g.hotspot.is_some(), "hotspot"),
            (g.hotspot_fraction.is_some(), "hotspot_fraction"),
        ];
        if let Some((_, k)) = unused.iter().find(|(set, _)| *set) {
            return Err(Error::input(
                &format!("{key}.{k}"),
                format!(
                    "does not apply to pattern \"{}\" (each source has one destination, its image); allowed with \"uniform\" or \"hotspot\"",
                    g.pattern.name()
                ),
            ));
        }
    }
    let hot = hotspot.map(|(mut h, f)| {
        h.sort_unstable();
        (h, f)
    });
    let hot_key = format!("{key}.hotspot");
    let req = Request {
        pattern: match (g.pattern, &hot) {
            // a hotspot is `hotspot` + `hotspot_fraction`, with pattern "uniform" or "hotspot"
            (Pattern::Uniform, Some(_)) => Pattern::Hotspot,
            // a job permutation is built over the job's sources by the caller: here only the
            // shared checks (the unused keys above, at least 2 terminals)
            (p, _) if is_job_permutation(p) => Pattern::Uniform,
            (p, _) => p,
        },
        shift: None,
        pattern_key: &pkey,
        shift_key: &pkey,
        allowed: &allowed,
        uniform: Among::Set(dests),
        hot: hot.as_ref().map(|(h, f)| (&h[..], *f)),
        hot_missing: (
            &hot_key,
            "pattern \"hotspot\" needs `hotspot` (an HCA name) and `hotspot_fraction`",
        ),
    };
    Ok(pattern::resolve(&req, &geo, n)?.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_order_counts_packets_overtaken_by_a_later_one() {
        let mut f = new_flow(0, 1, 0, 0, false);
        for seq in [1, 2, 4, 3, 5, 3, 6] {
            f.delivered_seq(seq);
        }
        // 3 after 4, and 3 (again) after 5
        assert_eq!(f.out_of_order, 2);
        assert_eq!(f.rx_max_seq, 6);
        // wrap-around: u32::MAX then 1 is in order, then u32::MAX again is late
        let mut f = new_flow(0, 1, 0, 0, false);
        for seq in [u32::MAX - 1, u32::MAX, 1, u32::MAX] {
            f.delivered_seq(seq);
        }
        assert_eq!((f.out_of_order, f.rx_max_seq), (1, 1));
    }

    #[test]
    fn a_message_completes_with_its_last_packet_in_any_order() {
        let mut f = new_flow(0, 1, 0, 0, false);
        // messages of 3 packets: 1-3, 4-6, 7-9; packets of message 1 overtake message 0's
        let done: Vec<bool> = [1, 4, 2, 5, 6, 3, 9, 7, 8]
            .iter()
            .map(|&s| f.delivered_message_packet(s, 3))
            .collect();
        assert_eq!(
            done,
            [false, false, false, false, true, true, false, false, true]
        );
        assert_eq!((f.rx_msg_base, f.rx_msg_got.len()), (3, 0));
        // one packet per message: every packet completes one
        let mut g = new_flow(0, 1, 0, 0, false);
        assert!(g.delivered_message_packet(1, 1) && g.delivered_message_packet(2, 1));
    }

    /// Both forms of [`FlowIndex`] answer alike: nothing before an insert, the flow after it,
    /// per (source, destination); the dense form is chosen up to its limit.
    #[test]
    fn both_flow_index_forms_map_source_and_destination_alike() {
        let mut dense = FlowIndex::new(3, 5);
        assert!(matches!(dense, FlowIndex::Dense { .. }));
        let mut hashed = FlowIndex::default();
        let inserts = [(0, 4, 0), (2, 0, 1), (1, 4, 2), (2, 3, 3), (0, 0, 4)];
        for (k, &(s, d, f)) in inserts.iter().enumerate() {
            for ix in [&mut dense, &mut hashed] {
                assert_eq!(ix.get(s, d), None);
                ix.insert(s, d, f);
            }
            for s in 0..3 {
                for d in 0..5 {
                    let want = inserts[..=k]
                        .iter()
                        .find(|&&(a, b, _)| (a, b) == (s, d))
                        .map(|&(_, _, f)| f);
                    assert_eq!(dense.get(s, d), want, "dense ({s}, {d})");
                    assert_eq!(hashed.get(s, d), want, "hashed ({s}, {d})");
                }
            }
        }
        assert_eq!(
            hashed.peek(0, 4),
            None,
            "a hashed map is not read for a prefetch hint"
        );
        assert_eq!(dense.peek(0, 4), Some(0));
        assert!(FlowIndex::is_dense(1 << 12, 1 << 12));
        assert!(!FlowIndex::is_dense(1 << 12, (1 << 12) + 1));
        assert!(matches!(
            FlowIndex::new(1 << 13, 1 << 12),
            FlowIndex::Hashed(_)
        ));
    }

    /// A run's flows are created in the same order, with the same ids, whichever form the
    /// index takes (the form changes no result).
    #[test]
    fn flows_are_created_alike_with_either_index() {
        let text = "[sim]\nmodel = \"credit\"\nend_time = \"1ms\"\n\
                    [topology]\nkind = \"torus\"\ndims = [4, 4]\nhcas_per_switch = 2\n\
                    [[traffic.generators]]\nsources = \"all\"\ninjection = \"bernoulli\"\n\
                    load = 0.5\n";
        let l =
            crate::config::load_str(text, "t", std::path::Path::new("."), "t", &[], None).unwrap();
        let fabric = crate::topology::build(&l.scenario, &l.base_dir).unwrap();
        let mut dense = build(&l.scenario, &fabric, 7, 1).unwrap();
        assert!(matches!(dense.flow_index, FlowIndex::Dense { .. }));
        let mut hashed = dense.clone();
        hashed.flow_index = FlowIndex::default();
        let n = dense.sources.len() as u32;
        for k in 0..2000u32 {
            let s = k * 7 % n;
            let (d1, d2) = (dense.pick_destination(s), hashed.pick_destination(s));
            assert_eq!(d1, d2);
            assert_eq!(dense.flow_for(s, d1), hashed.flow_for(s, d2));
        }
        assert!(dense.flows.len() > 100, "{} flows", dense.flows.len());
        let key = |t: &Traffic| -> Vec<(u32, u32, u32)> {
            t.flows.iter().map(|f| (f.source, f.src, f.dst)).collect()
        };
        assert_eq!(key(&dense), key(&hashed));
    }

    /// The DRB study's traffic on a 4 × 4 torus: 4 KB messages of 2 KB packets, the perfect
    /// shuffle at `rate` per source, injected as `injection`.
    fn shuffle_source(injection: &str, rate: &str) -> crate::config::LoadedScenario {
        let text = format!(
            "[sim]\nmodel = \"credit\"\nend_time = \"1ms\"\n\
             [topology]\nkind = \"torus\"\ndims = [4, 4]\nhcas_per_switch = 1\n\
             [traffic]\npacket_bytes = \"2048B\"\npayload_bytes = \"2048B\"\n\
             message_bytes = \"4096B\"\n\
             [[traffic.generators]]\nsources = \"all\"\npattern = \"shuffle\"\n\
             injection = \"{injection}\"\nrate = \"{rate}\"\n"
        );
        crate::config::load_str(&text, "t", std::path::Path::new("."), "t", &[], None).unwrap()
    }

    /// A periodic source: every gap is exactly message wire bits / rate, the first arrival
    /// within one gap of the start at a phase of its own, repeated for the same seed.
    #[test]
    fn periodic_source_sends_at_a_fixed_gap_from_its_own_phase() {
        let l = shuffle_source("periodic", "800bit/us");
        let fabric = crate::topology::build(&l.scenario, &l.base_dir).unwrap();
        let m = 40_960_000; // ps: 4096 · 8 bits at 800 bits/µs
        let firsts = |seed| {
            let mut tr = build(&l.scenario, &fabric, seed, 1).unwrap();
            tr.sources
                .iter_mut()
                .map(|src| {
                    let t0 = src.first_periodic_arrival();
                    assert!(t0 < m, "{t0}");
                    let mut t = t0;
                    for _ in 0..100 {
                        let next = src.next_arrival(t);
                        assert_eq!(next - t, m);
                        t = next;
                    }
                    t0
                })
                .collect::<Vec<_>>()
        };
        let a = firsts(7);
        assert_eq!(a, firsts(7));
        assert_ne!(a, firsts(8));
        assert!(
            a.iter().collect::<std::collections::HashSet<_>>().len() > 7,
            "{a:?}"
        );
    }

    /// A scenario's Poisson source (drb-and-ddbbm spec A.6): gaps of mean (message wire bits /
    /// offered rate) and variance mean², within four standard errors of the estimates for the
    /// sample size (mean: m/√n; variance: m²·√(8/n), the exponential's fourth central moment
    /// being 9m⁴).
    #[test]
    fn poisson_source_gaps_match_the_offered_rate() {
        let l = shuffle_source("poisson", "800bit/us");
        let s = &l.scenario;
        let fabric = crate::topology::build(s, &l.base_dir).unwrap();
        let mut tr = build(s, &fabric, 7, 1).unwrap();
        // 16 HCAs, the shuffle's two fixed points send nothing
        assert_eq!(tr.sources.len(), 14);
        let m = 4096.0 * 8.0 / 800.0 * 1e6; // ps: 40.96 µs
        let src = &mut tr.sources[3];
        assert_eq!(src.injection, Injection::Poisson);
        let n = 100_000;
        let mut t = 0;
        let gaps: Vec<f64> = (0..n)
            .map(|_| {
                let next = src.next_arrival(t);
                let g = (next - t) as f64;
                t = next;
                g
            })
            .collect();
        let nf = n as f64;
        let mean = gaps.iter().sum::<f64>() / nf;
        let var = gaps.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (nf - 1.0);
        assert!((mean - m).abs() < 4.0 * m / nf.sqrt(), "mean {mean} vs {m}");
        assert!(
            (var - m * m).abs() < 4.0 * m * m * (8.0 / nf).sqrt(),
            "var {var} vs {}",
            m * m
        );
        // a rate above the host link is allowed (the messages queue at the source) …
        let l = shuffle_source("poisson", "100Gbps");
        assert!(build(&l.scenario, &fabric, 7, 1).is_ok());
        // … but not for Bernoulli
        let l = shuffle_source("bernoulli", "100Gbps");
        let e = build(&l.scenario, &fabric, 7, 1).unwrap_err().to_string();
        assert!(
            e.contains("traffic.generators[0]") && e.contains("outside (0, 1]"),
            "{e}"
        );
    }
}
