//! The scenario schema: every key, its type and its default, in one place.
//!
//! Unknown keys are errors (`deny_unknown_fields`); values carry units (see [`super::units`]).
//! The README's "Config reference" documents every key listed here; defaults follow the
//! InfiniBand CC spec (`ib-congestion-control.md` §3, §14 `common_z`).

use super::introspect::{fields_of, refusal};
use super::model::Model;
use super::units::{BitRate, Bytes, Duration, Frequency};
use serde::Deserialize;

/// A whole scenario file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Name and description (`[scenario]`).
    #[serde(default)]
    pub scenario: ScenarioMeta,
    /// Simulated time, seed, statistics interval (`[sim]`).
    pub sim: SimConfig,
    /// Which fabric to build (`[topology]`).
    pub topology: TopologyConfig,
    /// Link classes (`[links.host]`, `[links.fabric]`).
    #[serde(default)]
    pub links: LinksConfig,
    /// The parametric switch (`[switch]`).
    #[serde(default)]
    pub switch: SwitchConfig,
    /// Host channel adapters (`[hca]`).
    #[serde(default)]
    pub hca: HcaConfig,
    /// Forwarding (`[routing]`); the loader names the default algorithm when the scenario
    /// does not ([`default_routing`]).
    pub routing: RoutingConfig,
    /// Traffic (`[traffic]`, `[[traffic.flows]]`, `[[traffic.generators]]`).
    #[serde(default)]
    pub traffic: TrafficConfig,
    /// What to collect (`[stats]`).
    #[serde(default)]
    pub stats: StatsConfig,
    /// InfiniBand congestion control (`[cc]`).
    #[serde(default)]
    pub cc: CcConfig,
    /// DDBBM's destination congestion detection (`[ddbbm]`, drb-and-ddbbm spec B.3); used with
    /// `switch.queue_mapping = "ddbbm"`.
    #[serde(default)]
    pub ddbbm: DdbbmConfig,
    /// DRB's multipath set-up by the subnet manager (`[drb]`, drb-and-ddbbm spec A.3.1, A.3.5).
    #[serde(default)]
    pub drb: DrbConfig,
    /// The cycle-level HPC router (`[router]`), used by the cycle-level model.
    #[serde(default)]
    pub router: RouterConfig,
    /// QCN (802.1Qau) congestion points and reaction points of the cycle-level model (`[qcn]`,
    /// Dragonfly spec §3.12.1, Table 4-3).
    #[serde(default)]
    pub qcn: QcnConfig,
    /// `[sweep]`: key path → list of values; `lnsim sweep` runs the Cartesian product, one run
    /// per point with those keys overridden. `lnsim run` ignores it and runs the scenario as is.
    #[serde(default)]
    pub sweep: Option<toml::Table>,
}

/// `[scenario]`: identification of the scenario.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ScenarioMeta {
    /// Short name; the default results folder is `results/<name>/`.
    #[serde(default)]
    pub name: Option<String>,
    /// Free text: what the scenario reproduces and the choices it makes.
    #[serde(default)]
    pub description: Option<String>,
}

/// `[sim]`: run control.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimConfig {
    /// The simulation model: `"credit"` (the credit-level model, event-driven, picoseconds;
    /// `"infiniband"`, its former name, is accepted too) or `"cycle"` (the cycle-level
    /// model). Absent: inferred as before the key existed (see [`super::ModelChoice::of`]).
    /// Keys of the other model are refused.
    #[serde(default)]
    pub model: Option<Model>,
    /// Simulated end time of the credit-level (event-driven) model, e.g. `"0.7s"`; required
    /// there. The cycle-level router model uses `warmup_cycles` + `measure_cycles` instead.
    #[serde(default)]
    pub end_time: Option<Duration>,
    /// Master seed of all random streams (overridden by `--seed`).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Statistics interval (spec §6: 5 ms in \[Z\]).
    #[serde(default = "default_interval")]
    pub interval: Duration,
    /// Warm-up: throughput "after warm-up" and fairness use the time after it.
    #[serde(default)]
    pub warmup: Duration,
    /// Cycle-level model: warm-up cycles before measurement (default 0; Dragonfly spec §5:
    /// 60,000).
    #[serde(default)]
    pub warmup_cycles: u64,
    /// Cycle-level model: measured cycles after the warm-up (Dragonfly spec §5: 60,000).
    /// Without `sim.model`, giving `measure_cycles` selects the cycle-level HPC router model.
    #[serde(default)]
    pub measure_cycles: Option<u64>,
    /// Cycle-level model: a point is saturated, and stops early, when the packets waiting at
    /// the sources exceed this many per node on average (the injection queues grow without
    /// bound; default 50 packets).
    #[serde(default = "default_saturation_queue_packets")]
    pub saturation_queue_packets: f64,
    /// Cycle-level model: a saturated point still measures at least this many cycles before it
    /// stops, so its accepted load is a steady-state figure (default 5,000).
    #[serde(default = "default_saturation_min_cycles")]
    pub saturation_min_cycles: u64,
    /// Credit-level model: run even when the channel-dependency graph of the routes the traffic
    /// uses has a cycle, i.e. the network can deadlock (to study deadlock). Without it such a
    /// scenario is refused (exit 2) naming the cycle; a run that deadlocks exits 3.
    #[serde(default)]
    pub allow_deadlock: bool,
}
fn default_seed() -> u64 {
    1
}
fn default_interval() -> Duration {
    Duration(5_000_000_000)
}
fn default_saturation_queue_packets() -> f64 {
    50.0
}
fn default_saturation_min_cycles() -> u64 {
    5000
}

crate::choice! {
    /// Topology kinds (spec §4), in the order `lnsim list` shows them.
    pub enum TopologyKind {
        /// n-dimensional mesh, `dims` switches per dimension, `hcas_per_switch` HCAs each.
        Mesh = "mesh",
        /// n-dimensional torus (mesh with wrap-around links).
        Torus = "torus",
        /// Fat tree: k-ary n-tree (`k`, `n`) or a two-level/XGFT Clos (`down`, `up`).
        FatTree = "fat_tree",
        /// The two-switch, seven-host test bed of \[G\] (spec §4.1).
        GranTestbed = "gran_testbed",
        /// Canonical Dragonfly (p, a, h) with palmtree or consecutive global links (Dragonfly
        /// spec §1.1); runs on the cycle-level router model.
        Dragonfly = "dragonfly",
        /// A generic edge-list file (`file`).
        File = "file",
        /// A real InfiniBand fabric from `ibnetdiscover` output (`topology.file`).
        Ibnetdiscover = "ibnetdiscover",
    }
}

crate::choice! {
    /// Port numbering of a mesh/torus switch (`topology.port_numbering`).
    pub enum PortNumbering {
        /// The port table of \[Z\] §3.3.1 (spec §3.6; 2D meshes only).
        Zeru = "zeru",
        /// Per dimension the minus, then the plus neighbour.
        Dimension = "dimension",
    }
}

crate::choice! {
    /// Global link arrangement of a Dragonfly (Dragonfly spec §1.1.2).
    #[derive(Default)]
    pub enum Arrangement {
        /// Relative: every group sees the same pattern; `R_{a−1}` owns offsets +1..+h.
        #[default]
        Palmtree = "palmtree",
        /// Absolute: the global links of a group go to groups 0, 1, 2, … in order, skipping
        /// itself.
        Consecutive = "consecutive",
    }
}

/// `[topology]`: which fabric to build, one variant per `kind` with that kind's own keys
/// (spec §4; Dragonfly spec §1.1). A key of another kind is refused by the type itself
/// (`deny_unknown_fields` on each variant), and the scenario loader names it with the keys the
/// kind takes.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind")]
pub enum TopologyConfig {
    /// `kind = "mesh"`: n-dimensional mesh.
    #[serde(rename = "mesh")]
    Mesh(MeshTorusConfig),
    /// `kind = "torus"`: n-dimensional torus (mesh with wrap-around links).
    #[serde(rename = "torus")]
    Torus(MeshTorusConfig),
    /// `kind = "fat_tree"`: k-ary n-tree or XGFT Clos.
    #[serde(rename = "fat_tree")]
    FatTree(FatTreeConfig),
    /// `kind = "gran_testbed"`: the two-switch, seven-host test bed of \[G\] (spec §4.1).
    #[serde(rename = "gran_testbed")]
    GranTestbed(GranTestbedConfig),
    /// `kind = "dragonfly"`: canonical Dragonfly (Dragonfly spec §1.1).
    #[serde(rename = "dragonfly")]
    Dragonfly(DragonflyConfig),
    /// `kind = "file"`: a fabric from an edge-list file.
    #[serde(rename = "file")]
    File(FileTopologyConfig),
    /// `kind = "ibnetdiscover"`: a real InfiniBand fabric from `ibnetdiscover` output.
    #[serde(rename = "ibnetdiscover")]
    Ibnetdiscover(IbnetdiscoverConfig),
}

impl TopologyConfig {
    /// The keys of `topology.kind = kind` besides `kind`, read from its struct (`None`: no
    /// such kind).
    pub fn keys_of(kind: &str) -> Option<&'static [&'static str]> {
        let kind = TopologyKind::NAMES.iter().position(|n| *n == kind)?;
        Some(match TopologyKind::ALL[kind] {
            TopologyKind::Mesh | TopologyKind::Torus => fields_of::<MeshTorusConfig>(),
            TopologyKind::FatTree => fields_of::<FatTreeConfig>(),
            TopologyKind::GranTestbed => fields_of::<GranTestbedConfig>(),
            TopologyKind::Dragonfly => fields_of::<DragonflyConfig>(),
            TopologyKind::File => fields_of::<FileTopologyConfig>(),
            TopologyKind::Ibnetdiscover => fields_of::<IbnetdiscoverConfig>(),
        })
    }

    /// serde's refusal of `table` (without `kind`) as the keys of `kind`, with the path inside
    /// it ([`super::kinds::KindTable::locate`]).
    pub fn locate(kind: &str, table: toml::Table) -> Option<(String, String)> {
        let kind = TopologyKind::NAMES.iter().position(|n| *n == kind)?;
        match TopologyKind::ALL[kind] {
            TopologyKind::Mesh | TopologyKind::Torus => refusal::<MeshTorusConfig>(table),
            TopologyKind::FatTree => refusal::<FatTreeConfig>(table),
            TopologyKind::GranTestbed => refusal::<GranTestbedConfig>(table),
            TopologyKind::Dragonfly => refusal::<DragonflyConfig>(table),
            TopologyKind::File => refusal::<FileTopologyConfig>(table),
            TopologyKind::Ibnetdiscover => refusal::<IbnetdiscoverConfig>(table),
        }
    }

    /// The kind this variant is (`topology.kind`).
    pub fn kind(&self) -> TopologyKind {
        match self {
            TopologyConfig::Mesh(_) => TopologyKind::Mesh,
            TopologyConfig::Torus(_) => TopologyKind::Torus,
            TopologyConfig::FatTree(_) => TopologyKind::FatTree,
            TopologyConfig::GranTestbed(_) => TopologyKind::GranTestbed,
            TopologyConfig::Dragonfly(_) => TopologyKind::Dragonfly,
            TopologyConfig::File(_) => TopologyKind::File,
            TopologyConfig::Ibnetdiscover(_) => TopologyKind::Ibnetdiscover,
        }
    }
}

/// `[topology]` of a mesh or torus (spec §4.3).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshTorusConfig {
    /// Switches per dimension, e.g. `[5, 5]` (rows, columns) or `[3, 3, 3]`.
    pub dims: Vec<u32>,
    /// HCAs attached to each switch.
    pub hcas_per_switch: u32,
    /// Port numbering, `"zeru"` (spec §3.6 table, 2D mesh only) or `"dimension"`; absent:
    /// `zeru` for 2D meshes, else `dimension` (the default depends on `dims` and the kind).
    #[serde(default)]
    pub port_numbering: Option<PortNumbering>,
}

/// `[topology]` of a fat tree (spec §4.2): a k-ary n-tree (`k`, `n`) or an XGFT Clos (`down`,
/// `up`); exactly one of the two forms.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FatTreeConfig {
    /// Arity k of a k-ary n-tree.
    #[serde(default)]
    pub k: Option<u32>,
    /// Number of levels n of a k-ary n-tree.
    #[serde(default)]
    pub n: Option<u32>,
    /// XGFT form: children per node at each level, bottom up, e.g. `[18, 36]`.
    #[serde(default)]
    pub down: Option<Vec<u32>>,
    /// XGFT form: parents per node at each level, bottom up, e.g. `[1, 18]`.
    #[serde(default)]
    pub up: Option<Vec<u32>>,
}

/// `[topology]` of the test bed of \[G\]: no keys besides `kind`.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct GranTestbedConfig {}

/// `[topology]` of a canonical Dragonfly (Dragonfly spec §1.1).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DragonflyConfig {
    /// Terminals per router p.
    pub p: u32,
    /// Routers per group a; absent: 2h (balanced; depends on `h`).
    #[serde(default)]
    pub a: Option<u32>,
    /// Global links per router h; absent: p (balanced; depends on `p`).
    #[serde(default)]
    pub h: Option<u32>,
    /// Global link arrangement, `"palmtree"` (default, spec §1.1.2) or `"consecutive"`.
    #[serde(default)]
    pub arrangement: Arrangement,
}

/// `[topology]` of a fabric read from an edge-list file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileTopologyConfig {
    /// Path of the edge-list file (relative to the scenario file).
    pub file: String,
}

/// `[topology]` of a real InfiniBand fabric read from `ibnetdiscover` output
/// (`topology/ibnetdiscover.rs`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IbnetdiscoverConfig {
    /// Path of the `ibnetdiscover` output (relative to the scenario file).
    pub file: String,
}

crate::choice! {
    /// Link width (lanes).
    #[derive(Default)]
    pub enum LinkWidth {
        /// 1 lane.
        X1 = "1x",
        /// 2 lanes (HDR100 split cables).
        X2 = "2x",
        /// 4 lanes.
        #[default]
        X4 = "4x",
        /// 8 lanes.
        X8 = "8x",
        /// 12 lanes.
        X12 = "12x",
    }
}

impl LinkWidth {
    /// Number of lanes.
    pub fn lanes(self) -> u64 {
        match self {
            LinkWidth::X1 => 1,
            LinkWidth::X2 => 2,
            LinkWidth::X4 => 4,
            LinkWidth::X8 => 8,
            LinkWidth::X12 => 12,
        }
    }
}

crate::choice! {
    /// InfiniBand lane speed (spec §3.2).
    pub enum LinkSpeed {
        /// 2.5 Gbaud, 8b/10b.
        Sdr = "SDR",
        /// 5 Gbaud, 8b/10b.
        Ddr = "DDR",
        /// 10 Gbaud, 8b/10b.
        Qdr = "QDR",
        /// 10.3125 Gbaud, 64b/66b (Mellanox FDR10: 10 Gbit/s of data per lane).
        Fdr10 = "FDR10",
        /// 14.0625 Gbaud, 64b/66b.
        Fdr = "FDR",
        /// 25.78125 Gbaud, 64b/66b.
        Edr = "EDR",
        /// 53.125 Gbaud, 64b/66b.
        Hdr = "HDR",
        /// 106.25 Gbaud, 64b/66b (lnsim's rule for HDR, carried on: 103.03 Gbit/s per lane).
        Ndr = "NDR",
        /// 212.5 Gbaud, 64b/66b (as NDR: 206.06 Gbit/s per lane).
        Xdr = "XDR",
    }
}

/// `[links.<class>]`: one link class. Give `width`+`speed` (IB signalling with its line
/// encoding) or `rate` (a data rate, no encoding applied).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// Width: "1x", "4x", "8x", "12x" (default 4x, also with `rate`: the internal transfer
    /// is `2 × width` bytes per cycle).
    #[serde(default)]
    pub width: LinkWidth,
    /// Speed: "SDR", "DDR", "QDR", "FDR", "EDR", "HDR".
    #[serde(default)]
    pub speed: Option<LinkSpeed>,
    /// Explicit data rate instead of width × speed, e.g. "40Gbps".
    #[serde(default)]
    pub rate: Option<BitRate>,
    /// Propagation delay (spec §3.2: 5 ns).
    #[serde(default = "default_link_delay")]
    pub delay: Duration,
}
fn default_link_delay() -> Duration {
    Duration(5_000)
}

crate::choice! {
    /// How freed credits travel back upstream (IB CC spec §3.4).
    #[derive(Default)]
    pub enum FlowControl {
        /// The credits of a packet arrive one link delay after its buffer space is freed,
        /// using no link bandwidth.
        #[default]
        Ideal = "ideal",
        /// Flow-control packets of `links.flow_control_bytes` on the reverse link, between
        /// data packets, at most one per VL every `links.flow_control_interval` (credits freed
        /// meanwhile ride on the next one).
        Packets = "packets",
    }
}

/// `[links]`: the two link classes and the link-level flow control.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinksConfig {
    /// HCA ↔ switch links (default 4x SDR, spec §3.2).
    #[serde(default = "default_host_link")]
    pub host: LinkConfig,
    /// Switch ↔ switch links (default 4x QDR).
    #[serde(default = "default_fabric_link")]
    pub fabric: LinkConfig,
    /// How credits return: `"ideal"` (default) or `"packets"` (spec §3.4).
    #[serde(default)]
    pub flow_control: FlowControl,
    /// `"packets"`: bytes of one flow-control packet on the wire (IBA: 4 bytes and a 2-byte
    /// CRC).
    #[serde(default = "default_fc_bytes")]
    pub flow_control_bytes: Bytes,
    /// `"packets"`: least time between two flow-control packets of one VL on one link
    /// (the model family's `credMinTime`; its value is not given, spec §3.4 [?]).
    #[serde(default)]
    pub flow_control_interval: Duration,
}
impl Default for LinksConfig {
    fn default() -> Self {
        toml::from_str("").expect("links defaults")
    }
}
fn default_fc_bytes() -> Bytes {
    Bytes(6)
}
fn default_host_link() -> LinkConfig {
    LinkConfig {
        width: LinkWidth::X4,
        speed: Some(LinkSpeed::Sdr),
        rate: None,
        delay: default_link_delay(),
    }
}
fn default_fabric_link() -> LinkConfig {
    LinkConfig {
        width: LinkWidth::X4,
        speed: Some(LinkSpeed::Qdr),
        rate: None,
        delay: default_link_delay(),
    }
}

crate::choice! {
    /// Queue mapping in the switch input buffer (architecture "seams": one decision point).
    #[derive(Default)]
    pub enum QueueMappingKind {
        /// One queue per (input, output, VL) sharing the input's per-VL credit pool (the
        /// InfiniBand switch, spec §3.4).
        #[default]
        Voq = "voq",
        /// One FIFO per (input, VL): classic HOL blocking (1Q, spec B.2).
        OneQueue = "one_queue",
        /// One queue per output of the switch (VOQsw, spec B.2): with
        /// `switch.buffer_sharing = "shared"` the same as `voq`; with `"static"` credits per
        /// queue and look-ahead routing.
        VoqSw = "voq_sw",
        /// One queue per destination end node (VOQnet, spec B.2).
        VoqNet = "voq_net",
        /// `switch.dbbm_queues` queues, destination mod Q (DBBM, spec B.2).
        Dbbm = "dbbm",
        /// DBBM's Q queues plus one dynamic queue for packets with the congestion bit
        /// (DDBBM, spec B.2, B.3.4).
        Ddbbm = "ddbbm",
    }
}

crate::choice! {
    /// How the queues of a switch input share its buffer (spec B.5).
    #[derive(Default)]
    pub enum BufferSharing {
        /// One credit pool per (input, VL) shared by the VL's queues (the InfiniBand switch,
        /// spec §3.4).
        #[default]
        Shared = "shared",
        /// Every queue has its own space and the upstream its own credit counter (spec B.5).
        Static = "static",
    }
}

crate::choice! {
    /// How big each queue is with `switch.buffer_sharing = "static"` (spec B.5).
    #[derive(Default)]
    pub enum StaticMode {
        /// Spec B.5 mode A: the port's buffer divided by its queues, rounded down to whole
        /// packets but never under one packet (two with `voq_net`).
        #[default]
        Divided = "divided",
        /// The port's buffer split exactly among its queues (in credits); a share below one
        /// packet is an error.
        Split = "split",
        /// Spec B.5 mode B: `switch.queue_bytes` per queue, whatever the number of queues.
        PerQueue = "per_queue",
    }
}

/// `[switch.host_ports]` / `[switch.fabric_ports]`: per-port-class overrides.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct PortOverrides {
    /// Overrides `switch.max_being_sent` for this class of input port.
    #[serde(default)]
    pub max_being_sent: Option<u32>,
    /// Overrides `switch.buffer_credits` for this class of input port.
    #[serde(default)]
    pub buffer_credits: Option<u32>,
}

/// `[switch.vl_arbitration]`: IBA high/low priority VL arbitration tables.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VlArbitrationConfig {
    /// High-priority table: `[[vl, weight], ...]`, weight in 64-byte units (1–255).
    #[serde(default)]
    pub high: Vec<[u32; 2]>,
    /// Low-priority table; default: every data VL with weight 255.
    #[serde(default)]
    pub low: Vec<[u32; 2]>,
    /// Limit of high-priority packets (in 4 KiB units as in IBA; 255 = unlimited).
    #[serde(default = "default_high_limit")]
    pub high_limit: u32,
}
impl Default for VlArbitrationConfig {
    fn default() -> Self {
        toml::from_str("").expect("vl arbitration defaults")
    }
}
fn default_high_limit() -> u32 {
    255
}

/// `[switch]`: the parametric input-buffered switch (spec §3.4–§3.5).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchConfig {
    /// Input buffer per port and VL, in credits (spec: 1000).
    #[serde(default = "default_buffer_credits")]
    pub buffer_credits: u32,
    /// Data VLs in use.
    #[serde(default = "default_vls")]
    pub vls: u32,
    /// Packets an input may be sending through the crossbar at once (spec `maxBeingSent`).
    #[serde(default = "default_one")]
    pub max_being_sent: u32,
    /// Core frequency; internal transfer is `2 × width` bytes per cycle (spec §3.5: 800 MHz).
    #[serde(default = "default_switch_freq")]
    pub core_freq: Frequency,
    /// Delay between head arrival and the forwarding decision.
    #[serde(default)]
    pub routing_delay: Duration,
    /// Delay input buffer → output arbiter (`ISWDelay`).
    #[serde(default)]
    pub input_delay: Duration,
    /// Delay output arbiter → wire (`VSWDelay`).
    #[serde(default)]
    pub output_delay: Duration,
    /// Queue mapping: "voq" (default), "one_queue", "voq_sw", "voq_net", "dbbm", "ddbbm"
    /// (spec B.2).
    #[serde(default)]
    pub queue_mapping: QueueMappingKind,
    /// Q, the DBBM queues of `dbbm` and `ddbbm` (spec B.2); required by them, refused
    /// otherwise.
    #[serde(default)]
    pub dbbm_queues: Option<u32>,
    /// "shared" (default) or "static" (spec B.5).
    #[serde(default)]
    pub buffer_sharing: BufferSharing,
    /// With "static": "divided" (default, spec B.5 mode A), "split" or "per_queue" (mode B).
    #[serde(default)]
    pub static_mode: StaticMode,
    /// With `static_mode = "per_queue"`: bytes of every queue (spec B.5 mode B: 1 KB).
    #[serde(default)]
    pub queue_bytes: Option<Bytes>,
    /// Output buffer per port and VL, in credits; 0 (default): none, the input-buffered
    /// switch (spec B.5: "buffers … for both the input and the output ports").
    #[serde(default)]
    pub output_buffer_credits: u32,
    /// With output buffers: weighted round-robin weights of the output link among the output
    /// queues of a VL, one per queue (packets per turn; default all 1, spec B.5 "weighted
    /// round-robin among output queues", \[A\] equal weights). Queue `i` of every port gets
    /// weight `i`; a port with fewer queues uses the first ones.
    #[serde(default)]
    pub output_weights: Option<Vec<u32>>,
    /// VL arbitration tables.
    #[serde(default)]
    pub vl_arbitration: VlArbitrationConfig,
    /// Overrides for input ports that face HCAs.
    #[serde(default)]
    pub host_ports: PortOverrides,
    /// Overrides for input ports that face other switches (spec: `maxBeingSent = 2`).
    #[serde(default)]
    pub fabric_ports: PortOverrides,
}
impl Default for SwitchConfig {
    fn default() -> Self {
        toml::from_str("").expect("switch defaults")
    }
}
fn default_buffer_credits() -> u32 {
    1000
}
fn default_vls() -> u32 {
    1
}
fn default_one() -> u32 {
    1
}
fn default_switch_freq() -> Frequency {
    Frequency(800_000_000)
}

/// `[hca.sink]`: the receive side of an HCA (spec §3.7.2).
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct SinkConfig {
    /// PCIe lanes; with `pcie_rate` it sets the drain rate `lanes × rate × 8/10 ÷ 1.05`.
    #[serde(default)]
    pub pcie_lanes: Option<u32>,
    /// PCIe transfer rate per lane, e.g. "2.5GT/s" (PCIe 1.1) or "5GT/s" (PCIe 2.0).
    #[serde(default)]
    pub pcie_rate: Option<Frequency>,
    /// Explicit drain rate instead of PCIe (e.g. "13.5Gbps"); absent ⇒ unlimited.
    #[serde(default)]
    pub drain_rate: Option<BitRate>,
    /// Hiccup ON time: nothing drains (spec: 0.0125 µs).
    #[serde(default)]
    pub hiccup_on: Duration,
    /// Hiccup OFF time: draining (spec: 0.1 µs).
    #[serde(default)]
    pub hiccup_off: Duration,
    /// When the sink gives a packet's credits back: all at once when the whole packet has
    /// drained (`"packet"`, the default) or each as its 64 bytes have drained (`"credit"`).
    #[serde(default)]
    pub credit_return: SinkCreditReturn,
}

crate::choice! {
    /// When a sink returns the credits of the packet it drains (IB CC spec §3.7.2).
    #[derive(Default)]
    pub enum SinkCreditReturn {
        /// All of them once the whole packet has drained.
        #[default]
        Packet = "packet",
        /// Each credit as soon as its bytes have arrived and drained.
        Credit = "credit",
    }
}

crate::choice! {
    /// How an HCA queues the packets it injects (`hca.injection_queues`; drb-and-ddbbm spec
    /// B.5, End-node Input Adapter).
    #[derive(Default)]
    pub enum InjectionQueues {
        /// One queue per flow (queue pair), served round robin, each packet taking the credit
        /// of the first switch's queue it joins (`credit/endpoint/hca.rs`).
        #[default]
        PerFlow = "per_flow",
        /// Spec B.5: per-destination admittance queues, moved round robin into injection
        /// queues organised like a switch output port (per the queue scheme), served by
        /// weighted round robin (`credit/endpoint/adapter.rs`).
        Scheme = "scheme",
    }
}

/// `[hca]`: host channel adapters (spec §3.7).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HcaConfig {
    /// HCA input buffer per VL, in credits.
    #[serde(default = "default_buffer_credits")]
    pub buffer_credits: u32,
    /// HCA core frequency (internal rate `2 × width` bytes/cycle; spec: 250 MHz).
    #[serde(default = "default_hca_freq")]
    pub core_freq: Frequency,
    /// Optional cap of the HCA transmit rate (e.g. the PCIe-bound \[G\] senders).
    #[serde(default)]
    pub max_tx_rate: Option<BitRate>,
    /// The sink.
    #[serde(default)]
    pub sink: SinkConfig,
    /// The end node's injection model (drb-and-ddbbm spec B.5, Input Adapter): `"per_flow"`
    /// (default: round robin over the flows' own queues) or `"scheme"` (admittance queues per
    /// destination, then injection queues organised like a switch output port).
    #[serde(default)]
    pub injection_queues: InjectionQueues,
    /// With `"scheme"`: the injection buffer per VL, in credits, divided among the injection
    /// queues as `switch.static_mode` divides a switch's output buffer (default:
    /// `switch.output_buffer_credits`, the switch output port's buffer; spec B.5).
    #[serde(default)]
    pub injection_credits: Option<u32>,
    /// With `"scheme"`: weighted round-robin weights, one per injection queue of a VL
    /// (packets per turn; default all 1, spec B.5 \[A\] equal weights).
    #[serde(default)]
    pub injection_weights: Option<Vec<u32>>,
}
impl Default for HcaConfig {
    fn default() -> Self {
        toml::from_str("").expect("hca defaults")
    }
}
fn default_hca_freq() -> Frequency {
    Frequency(250_000_000)
}

crate::choice! {
    /// Forwarding algorithm (spec §3.6), in the order `lnsim list` shows them.
    pub enum RoutingAlgorithm {
        /// Dimension-order routing, x (first dimension) first; meshes and tori.
        Dor = "dor",
        /// D-mod-k for fat trees.
        Dmodk = "dmodk",
        /// up*/down* over a BFS spanning tree; any topology.
        Updown = "updown",
        /// Linear forwarding tables loaded from a `.fdbs` file (`routing.file`).
        LftFile = "lft_file",
        /// A real fabric's forwarding tables from `ibroute`, `dump_lfts.sh`/`dump_fts` or
        /// OpenSM's `opensm-lfts.dump` output (`routing.file`; `topology.kind = "ibnetdiscover"`).
        LftDump = "lft_dump",
        /// The forwarding tables OpenSM's routing engine `routing.engine` would compute
        /// (`minhop`, `updn`, `dor`, `ftree`; docs/opensm-routing.md).
        Opensm = "opensm",
        /// Minimal routing on a Dragonfly (Dragonfly spec §3.1).
        Min = "min",
        /// Valiant load balancing: a random intermediate, then minimal (Dragonfly spec §3.2; on
        /// meshes/tori DOR to a random intermediate router, then DOR).
        Vlb = "vlb",
        /// UGAL with source-router queue information (Dragonfly spec §3.5, Eq. 2-1).
        Ugal = "ugal",
        /// Piggyback: UGAL plus group-wide congested-global-link bits (Dragonfly spec §3.6).
        Pb = "pb",
        /// ACOR: always Valiant, the shortest phase-A policy of a level sequence that does not
        /// block injection, raised when injection heads get blocked (Dragonfly spec §3.7).
        Acor = "acor",
        /// PB-ACOR: Piggyback's minimal-or-Valiant decision, ACOR's level for the Valiant
        /// path's phase-A policy (Dragonfly spec §3.8).
        PbAcor = "pb_acor",
        /// TPR as the thesis implements it: UGAL whose threshold T is chosen by a sliding-window
        /// counter of the packets the router injected towards the destination group (Dragonfly
        /// spec §3.9).
        Tpr = "tpr",
        /// LIAN: UGAL modulated by extended per-group counters, with the first and second
        /// local hops of the Valiant path chosen from the counters (Dragonfly spec §3.10).
        Lian = "lian",
        /// MAR-bP: conditional minimal rules disabled while their output is paused, the
        /// injection port's fixed global port (VLB_-g-) otherwise (Dragonfly spec §3.11).
        MarBp = "mar_bp",
        /// QCN-Switch: per-transit-port minimal probabilities cut by QCN notifications and
        /// raised by a packet counter; misroute through the injection port's global port when
        /// a random N exceeds the minimal port's probability (Dragonfly spec §3.12).
        QcnSwitch = "qcn_switch",
    }
}

crate::choice! {
    /// Valiant phase-A policy on a Dragonfly (Dragonfly spec §3.0.2 table): which hops phase A
    /// may take.
    #[derive(Default)]
    pub enum VlbPolicy {
        /// l1 g1 l2: any router of another group.
        #[default]
        Lgl = "lgl",
        /// l1 g1: phase A ends on arrival in the intermediate group (Kim et al.'s VLB).
        LgDash = "lg-",
        /// g1 l2: a router of a group joined to the source router's own global links.
        DashGl = "-gl",
        /// g1: phase A ends at the far end of one of the source router's global links.
        DashGDash = "-g-",
    }
}

/// `[routing]`, one variant per `routing.algorithm` with that algorithm's own keys (spec §3.6;
/// Dragonfly spec §3). A key of another algorithm is refused by the type itself
/// (`deny_unknown_fields` on each variant), named by [`super::kinds`]. Without
/// `routing.algorithm` the scenario loader names the model's default for the topology
/// ([`default_routing`]) before the table is read, so a scenario always has a variant.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "algorithm")]
pub enum RoutingConfig {
    /// `dor`: dimension-order routing on meshes and tori (both models).
    #[serde(rename = "dor")]
    Dor(DorRouting),
    /// `dmodk`: D-mod-k on fat trees (credit-level model).
    #[serde(rename = "dmodk")]
    Dmodk(DmodkRouting),
    /// `updown`: up*/down* over a BFS spanning tree (credit-level model).
    #[serde(rename = "updown")]
    Updown(UpdownRouting),
    /// `lft_file`: linear forwarding tables from a `.fdbs` file (credit-level model).
    #[serde(rename = "lft_file")]
    LftFile(LftFileRouting),
    /// `lft_dump`: a real fabric's forwarding tables from an LFT dump (credit-level model).
    #[serde(rename = "lft_dump")]
    LftDump(LftDumpRouting),
    /// `opensm`: the tables an OpenSM routing engine computes (credit-level model).
    #[serde(rename = "opensm")]
    Opensm(OpensmRouting),
    /// `min`: minimal routing on a Dragonfly (Dragonfly spec §3.1).
    #[serde(rename = "min")]
    Min(MinRouting),
    /// `vlb`: Valiant (Dragonfly spec §3.2; DOR via a random router on meshes and tori).
    #[serde(rename = "vlb")]
    Vlb(VlbRouting),
    /// `ugal`: UGAL with source-router queues (Dragonfly spec §3.5).
    #[serde(rename = "ugal")]
    Ugal(UgalRouting),
    /// `pb`: Piggyback (Dragonfly spec §3.6).
    #[serde(rename = "pb")]
    Pb(PbRouting),
    /// `acor`: ACOR (Dragonfly spec §3.7).
    #[serde(rename = "acor")]
    Acor(AcorRouting),
    /// `pb_acor`: PB-ACOR (Dragonfly spec §3.8).
    #[serde(rename = "pb_acor")]
    PbAcor(PbAcorRouting),
    /// `tpr`: TPR as the thesis implements it (Dragonfly spec §3.9).
    #[serde(rename = "tpr")]
    Tpr(TprRouting),
    /// `lian`: LIAN (Dragonfly spec §3.10).
    #[serde(rename = "lian")]
    Lian(LianRouting),
    /// `mar_bp`: MAR-bP (Dragonfly spec §3.11).
    #[serde(rename = "mar_bp")]
    MarBp(MarBpRouting),
    /// `qcn_switch`: QCN-Switch (Dragonfly spec §3.12).
    #[serde(rename = "qcn_switch")]
    QcnSwitch(QcnSwitchRouting),
}

/// The routing a scenario that does not name `routing.algorithm` gets: on the credit-level
/// model DOR on meshes and tori, D-mod-k on fat trees, up*/down* otherwise; on the
/// cycle-level model DOR on meshes and tori, and none for a Dragonfly (it must name one).
pub fn default_routing(model: Model, topology: TopologyKind) -> Option<RoutingAlgorithm> {
    match (model, topology) {
        (_, TopologyKind::Mesh | TopologyKind::Torus) => Some(RoutingAlgorithm::Dor),
        (Model::Credit, TopologyKind::FatTree) => Some(RoutingAlgorithm::Dmodk),
        (Model::Cycle, TopologyKind::Dragonfly) => None,
        (Model::Credit, _) => Some(RoutingAlgorithm::Updown),
        (Model::Cycle, _) => None,
    }
}

/// Calls `$then::<T>($arg)` with `T` the keys struct of the routing algorithm named `$kind`,
/// or returns `None` for another name.
macro_rules! routing_struct {
    ($kind:expr, $then:ident $(, $arg:expr)?) => {{
        use RoutingAlgorithm as A;
        let i = RoutingAlgorithm::NAMES.iter().position(|n| *n == $kind)?;
        match RoutingAlgorithm::ALL[i] {
            A::Dor => $then::<DorRouting>($($arg)?),
            A::Dmodk => $then::<DmodkRouting>($($arg)?),
            A::Updown => $then::<UpdownRouting>($($arg)?),
            A::LftFile => $then::<LftFileRouting>($($arg)?),
            A::LftDump => $then::<LftDumpRouting>($($arg)?),
            A::Opensm => $then::<OpensmRouting>($($arg)?),
            A::Min => $then::<MinRouting>($($arg)?),
            A::Vlb => $then::<VlbRouting>($($arg)?),
            A::Ugal => $then::<UgalRouting>($($arg)?),
            A::Pb => $then::<PbRouting>($($arg)?),
            A::Acor => $then::<AcorRouting>($($arg)?),
            A::PbAcor => $then::<PbAcorRouting>($($arg)?),
            A::Tpr => $then::<TprRouting>($($arg)?),
            A::Lian => $then::<LianRouting>($($arg)?),
            A::MarBp => $then::<MarBpRouting>($($arg)?),
            A::QcnSwitch => $then::<QcnSwitchRouting>($($arg)?),
        }
    }};
}

impl RoutingConfig {
    /// The keys of `routing.algorithm = kind` besides `algorithm`, read from its struct.
    pub fn keys_of(kind: &str) -> Option<&'static [&'static str]> {
        Some(routing_struct!(kind, fields_of))
    }

    /// serde's refusal of `table` (without `algorithm`) as the keys of `kind`, with the path
    /// inside it ([`super::kinds::KindTable::locate`]).
    pub fn locate(kind: &str, table: toml::Table) -> Option<(String, String)> {
        routing_struct!(kind, refusal, table)
    }

    /// The algorithm this variant is (`routing.algorithm`).
    pub fn algorithm(&self) -> RoutingAlgorithm {
        use RoutingAlgorithm as A;
        match self {
            RoutingConfig::Dor(_) => A::Dor,
            RoutingConfig::Dmodk(_) => A::Dmodk,
            RoutingConfig::Updown(_) => A::Updown,
            RoutingConfig::LftFile(_) => A::LftFile,
            RoutingConfig::LftDump(_) => A::LftDump,
            RoutingConfig::Opensm(_) => A::Opensm,
            RoutingConfig::Min(_) => A::Min,
            RoutingConfig::Vlb(_) => A::Vlb,
            RoutingConfig::Ugal(_) => A::Ugal,
            RoutingConfig::Pb(_) => A::Pb,
            RoutingConfig::Acor(_) => A::Acor,
            RoutingConfig::PbAcor(_) => A::PbAcor,
            RoutingConfig::Tpr(_) => A::Tpr,
            RoutingConfig::Lian(_) => A::Lian,
            RoutingConfig::MarBp(_) => A::MarBp,
            RoutingConfig::QcnSwitch(_) => A::QcnSwitch,
        }
    }

    /// `routing.lmc_path`: which of a destination's LIDs a source sends to (`base` for the
    /// routings without LMC ranges).
    pub fn lmc_path(&self) -> LmcPath {
        match self {
            RoutingConfig::Opensm(k) => k.lmc_path,
            RoutingConfig::LftDump(k) => k.lmc_path,
            _ => LmcPath::Base,
        }
    }

    /// `alg` with every key at its default (for the registries' names and messages).
    pub fn with_defaults(alg: RoutingAlgorithm) -> Option<RoutingConfig> {
        let mut t = toml::Table::new();
        t.insert("algorithm".into(), toml::Value::String(alg.name().into()));
        toml::Value::Table(t).try_into().ok()
    }

    /// `routing.vc_template` of a Dragonfly routing (`None` when not given or not one).
    pub fn vc_template(&self) -> Option<&Vec<String>> {
        match self {
            RoutingConfig::Min(k) => k.vc_template.as_ref(),
            RoutingConfig::Vlb(k) => k.vc_template.as_ref(),
            RoutingConfig::Ugal(k) => k.vc_template.as_ref(),
            RoutingConfig::Pb(k) => k.vc_template.as_ref(),
            RoutingConfig::Acor(k) => k.vc_template.as_ref(),
            RoutingConfig::PbAcor(k) => k.vc_template.as_ref(),
            RoutingConfig::Tpr(k) => k.vc_template.as_ref(),
            RoutingConfig::Lian(k) => k.vc_template.as_ref(),
            RoutingConfig::MarBp(k) => k.vc_template.as_ref(),
            RoutingConfig::QcnSwitch(k) => k.vc_template.as_ref(),
            _ => None,
        }
    }

    /// The group-counter keys the counter observer (`stats.group_counters`) reads: LIAN's
    /// `[routing.lian]` under `lian`, the observer's own table under another Dragonfly routing
    /// (`None` when not given or under a routing without one).
    pub fn counter_keys(&self) -> Option<GroupCounterKeys> {
        match self {
            RoutingConfig::Lian(k) => Some(GroupCounterKeys {
                window_cycles: k.lian.window_cycles,
                counters: k.lian.counters,
                w: k.lian.w,
            }),
            RoutingConfig::Min(MinRouting { lian, .. })
            | RoutingConfig::Vlb(VlbRouting { lian, .. })
            | RoutingConfig::Ugal(UgalRouting { lian, .. })
            | RoutingConfig::Pb(PbRouting { lian, .. })
            | RoutingConfig::Acor(AcorRouting { lian, .. })
            | RoutingConfig::PbAcor(PbAcorRouting { lian, .. })
            | RoutingConfig::Tpr(TprRouting { lian, .. }) => lian.clone(),
            _ => None,
        }
    }
}

/// `[routing]` of `dor`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DorRouting {
    /// Torus, cycle-level model: dateline VC classes (default true). False uses one class and
    /// deadlocks; the channel-dependency check refuses it.
    #[serde(default = "default_true")]
    pub dateline: bool,
}

/// `[routing]` of `dmodk`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DmodkRouting {
    /// Which of the key HCA's digits choose the up ports, level by level
    /// (`"low_first"`, the default, `"high_first"` or `"digit_sum"`; drb-and-ddbbm spec B.6).
    #[serde(default)]
    pub dmodk_digits: DmodkDigits,
    /// Whose digits choose the up ports: the destination's (`"destination"`, the default:
    /// D-mod-k, forwarding tables per DLID) or the source's (`"source"`: S-mod-k, one fixed
    /// route per (source, destination) pair; drb-and-ddbbm spec B.6 "deterministic routing").
    #[serde(default)]
    pub dmodk_key: DmodkKey,
}

/// `[routing]` of `updown`: no keys besides `algorithm`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdownRouting {}

/// `[routing]` of `lft_file`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LftFileRouting {
    /// The `.fdbs` file (relative to the scenario file).
    pub file: String,
}

/// `[routing]` of `lft_dump` (`credit/routing/lft_dump.rs`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LftDumpRouting {
    /// The `ibroute` / `dump_lfts.sh` / `opensm-lfts.dump` output (relative to the scenario
    /// file).
    pub file: String,
    /// Which of the destination's LIDs a source sends to, when the imported fabric gives its
    /// ports an LMC above 0 (`base`, `source` or `message`).
    #[serde(default)]
    pub lmc_path: LmcPath,
}

/// `[routing]` of `opensm`: which OpenSM routing engine computes the tables, and its options
/// (OpenSM's `routing_engine`, `root_guid_file` as node names, `lmc`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpensmRouting {
    /// The engine (OpenSM's `routing_engine`; default `minhop`, OpenSM's default).
    #[serde(default)]
    pub engine: OpensmEngine,
    /// Root switches by name, for `updn` and `ftree` (OpenSM's `root_guid_file`); absent:
    /// the engine detects them.
    #[serde(default)]
    pub roots: Option<Vec<String>>,
    /// LID Mask Control (OpenSM's `lmc`, 0-7): every HCA answers 2^lmc consecutive LIDs,
    /// each routed by the engine on its own.
    #[serde(default)]
    pub lmc: u32,
    /// Which of the destination's 2^lmc LIDs a source sends to (`base`, `source` or
    /// `message`).
    #[serde(default)]
    pub lmc_path: LmcPath,
}

/// `[routing]` of `min`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinRouting {
    /// Explicit hop-type template for VC assignment, e.g. `["L0", "G0", "L1"]` (default: the
    /// routing's own, spec §3.0.3). The channel-dependency check refuses a cyclic one.
    #[serde(default)]
    pub vc_template: Option<Vec<String>>,
    /// The counter observer's keys (`[routing.lian]`, with `stats.group_counters` only).
    #[serde(default)]
    pub lian: Option<GroupCounterKeys>,
}

/// `[routing]` of `vlb`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VlbRouting {
    /// Valiant phase-A policy on a Dragonfly: `lgl` (default), `lg-`, `-gl`, `-g-` (Dragonfly
    /// spec §3.0.2).
    #[serde(default)]
    pub vlb_policy: VlbPolicy,
    /// May an inter-group packet pick its Valiant intermediate in its own group? Default false
    /// (spec A17, FOGSim SRCEXC); intra-group packets always stay in their group (RVLB, §3.3).
    #[serde(default)]
    pub valiant_source_group: bool,
    /// Restricted VLB (Dragonfly spec §3.3): an intra-group packet draws its Valiant
    /// intermediate in its own group (default true); false: any intermediate.
    #[serde(default = "default_true")]
    pub vlb_restricted: bool,
    /// Recomputation (Dragonfly spec §3.4): a Valiant-routed packet at the head of an
    /// injection queue whose first hop is blocked draws a new intermediate every cycle until
    /// it leaves the injection buffer (default false).
    #[serde(default)]
    pub recompute: bool,
    /// Explicit hop-type template for VC assignment (see [`MinRouting::vc_template`]).
    #[serde(default)]
    pub vc_template: Option<Vec<String>>,
    /// The counter observer's keys (`[routing.lian]`, with `stats.group_counters` only).
    #[serde(default)]
    pub lian: Option<GroupCounterKeys>,
}

/// `[routing]` of `ugal`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UgalRouting {
    /// Valiant phase-A policy of the non-minimal candidate (see [`VlbRouting::vlb_policy`]).
    #[serde(default)]
    pub vlb_policy: VlbPolicy,
    /// See [`VlbRouting::valiant_source_group`].
    #[serde(default)]
    pub valiant_source_group: bool,
    /// See [`VlbRouting::vlb_restricted`].
    #[serde(default = "default_true")]
    pub vlb_restricted: bool,
    /// Threshold T of Eq. 2-1 in packets (default 0, Table 3-1).
    #[serde(default)]
    pub ugal_threshold: i64,
    /// Explicit hop-type template for VC assignment (see [`MinRouting::vc_template`]).
    #[serde(default)]
    pub vc_template: Option<Vec<String>>,
    /// The counter observer's keys (`[routing.lian]`, with `stats.group_counters` only).
    #[serde(default)]
    pub lian: Option<GroupCounterKeys>,
}

/// `[routing]` of `pb`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PbRouting {
    /// See [`VlbRouting::vlb_policy`].
    #[serde(default)]
    pub vlb_policy: VlbPolicy,
    /// See [`VlbRouting::valiant_source_group`].
    #[serde(default)]
    pub valiant_source_group: bool,
    /// See [`VlbRouting::vlb_restricted`].
    #[serde(default = "default_true")]
    pub vlb_restricted: bool,
    /// Recomputation: PB re-decides every cycle a Valiant head is blocked (default false).
    #[serde(default)]
    pub recompute: bool,
    /// UGAL threshold T of Eq. 2-1 in packets (default 0, Table 3-1).
    #[serde(default)]
    pub ugal_threshold: i64,
    /// Factor F of Eq. 2-2 in percent (default 120, Table 3-1).
    #[serde(default = "default_pb_factor")]
    pub pb_factor: u32,
    /// Threshold T of Eq. 2-2 in packets (default 5, Table 3-1).
    #[serde(default = "default_pb_threshold")]
    pub pb_threshold: u32,
    /// Explicit hop-type template for VC assignment (see [`MinRouting::vc_template`]).
    #[serde(default)]
    pub vc_template: Option<Vec<String>>,
    /// The counter observer's keys (`[routing.lian]`, with `stats.group_counters` only).
    #[serde(default)]
    pub lian: Option<GroupCounterKeys>,
}

/// `[routing]` of `acor`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcorRouting {
    /// ACOR's level machinery (`[routing.acor]`, Dragonfly spec §3.7, Table 5-3).
    #[serde(default)]
    pub acor: AcorConfig,
    /// Explicit hop-type template for VC assignment (see [`MinRouting::vc_template`]).
    #[serde(default)]
    pub vc_template: Option<Vec<String>>,
    /// The counter observer's keys (`[routing.lian]`, with `stats.group_counters` only).
    #[serde(default)]
    pub lian: Option<GroupCounterKeys>,
}

/// `[routing]` of `pb_acor`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PbAcorRouting {
    /// UGAL threshold T of Eq. 2-1 in packets (default 0, Table 3-1).
    #[serde(default)]
    pub ugal_threshold: i64,
    /// PB's factor F of Eq. 2-2 in percent (default 120).
    #[serde(default = "default_pb_factor")]
    pub pb_factor: u32,
    /// PB's threshold T of Eq. 2-2 in packets (default 5).
    #[serde(default = "default_pb_threshold")]
    pub pb_threshold: u32,
    /// ACOR's level machinery (`[routing.acor]`, Dragonfly spec §3.8, Table 5-3).
    #[serde(default)]
    pub acor: AcorConfig,
    /// Explicit hop-type template for VC assignment (see [`MinRouting::vc_template`]).
    #[serde(default)]
    pub vc_template: Option<Vec<String>>,
    /// The counter observer's keys (`[routing.lian]`, with `stats.group_counters` only).
    #[serde(default)]
    pub lian: Option<GroupCounterKeys>,
}

/// `[routing]` of `tpr`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TprRouting {
    /// See [`VlbRouting::vlb_policy`].
    #[serde(default)]
    pub vlb_policy: VlbPolicy,
    /// Recomputation of Valiant heads (default false).
    #[serde(default)]
    pub recompute: bool,
    /// TPR's counters and thresholds (`[routing.tpr]`, Dragonfly spec §3.9, Table 6-1).
    #[serde(default)]
    pub tpr: TprConfig,
    /// Explicit hop-type template for VC assignment (see [`MinRouting::vc_template`]).
    #[serde(default)]
    pub vc_template: Option<Vec<String>>,
    /// The counter observer's keys (`[routing.lian]`, with `stats.group_counters` only).
    #[serde(default)]
    pub lian: Option<GroupCounterKeys>,
}

/// `[routing]` of `lian`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LianRouting {
    /// Recomputation of Valiant heads (default true for LIAN, spec A16).
    #[serde(default = "default_true")]
    pub recompute: bool,
    /// LIAN's counters and thresholds (`[routing.lian]`, Dragonfly spec §3.10, Table 6-1).
    #[serde(default)]
    pub lian: LianConfig,
    /// Explicit hop-type template for VC assignment (see [`MinRouting::vc_template`]).
    #[serde(default)]
    pub vc_template: Option<Vec<String>>,
}

/// `[routing]` of `mar_bp` (Dragonfly spec §3.11).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarBpRouting {
    /// Explicit hop-type template for VC assignment (default `["G0", "L0", "G1", "L1"]`: the
    /// two VCs per link type of spec §3.11; see [`MinRouting::vc_template`]).
    #[serde(default)]
    pub vc_template: Option<Vec<String>>,
}

/// `[routing]` of `qcn_switch` (Dragonfly spec §3.12).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QcnSwitchRouting {
    /// The probabilities' management (`[routing.qcn_switch]`, spec §3.12.3–§3.12.5, Table 4-3).
    #[serde(default)]
    pub qcn_switch: QcnSwitchConfig,
    /// Explicit hop-type template for VC assignment (default `["G0", "L0", "G1", "L1"]`).
    #[serde(default)]
    pub vc_template: Option<Vec<String>>,
}

/// `[routing.qcn_switch]`: how QCN-Switch manages the minimal probability of each transit port
/// (Dragonfly spec §3.12.3–§3.12.6; defaults: Table 4-3 and the final configuration).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QcnSwitchConfig {
    /// L_f, the reduction limiting factor of Eq. 4-3 (Table 4-3: 1/64).
    #[serde(default = "default_qcnsw_lf")]
    pub lf: f64,
    /// PC_l: packets switched to a transit port without a notification that raise its
    /// probability by PI (Table 4-3: 100).
    #[serde(default = "default_qcnsw_pc_limit")]
    pub pc_limit_packets: u32,
    /// PI: the additive increase, in percentage points (Table 4-3: 1).
    #[serde(default = "default_qcnsw_pi")]
    pub pi: f64,
    /// Feedback comparison (spec §3.12.4): a notification is compared with the router's mean
    /// last feedback (default true: the final configuration, §3.12.6).
    #[serde(default = "default_true")]
    pub feedback_comparison: bool,
    /// Th1 of the feedback comparison (Table 4-3: 0).
    #[serde(default)]
    pub th1: i64,
    /// Th2 of the feedback comparison (Table 4-3: 30).
    #[serde(default = "default_qcnsw_th2")]
    pub th2: i64,
    /// Source processing (spec §3.12.5): a router that generates a notification also lowers
    /// its own minimal port towards the victim's destination (default false; meant for
    /// `qcn.sampling = "input"`).
    #[serde(default)]
    pub source_processing: bool,
    /// Floor of a probability, in percent (FOGSim's `qcn_min_rate`; default 0).
    #[serde(default)]
    pub p_min: f64,
    /// How N is compared with a probability: `"integer"` (FOGSim: N > ⌊P⌋ misroutes, default)
    /// or `"real"` (N > P).
    #[serde(default)]
    pub compare: QcnCompare,
    /// Routers whose probability changes are traced (`qcn_probabilities.csv`, Fig 4-21):
    /// `"group0"` (default) or `"none"`.
    #[serde(default)]
    pub trace: QcnTrace,
}
impl Default for QcnSwitchConfig {
    fn default() -> Self {
        toml::from_str("").expect("qcn_switch defaults")
    }
}
fn default_qcnsw_lf() -> f64 {
    1.0 / 64.0
}
fn default_qcnsw_pc_limit() -> u32 {
    100
}
fn default_qcnsw_pi() -> f64 {
    1.0
}
fn default_qcnsw_th2() -> i64 {
    30
}

crate::choice! {
    /// How QCN-Switch compares its random N with a minimal probability.
    #[derive(Default)]
    pub enum QcnCompare {
        /// N > ⌊P⌋ misroutes (FOGSim).
        #[default]
        Integer = "integer",
        /// N > P misroutes.
        Real = "real",
    }
}

crate::choice! {
    /// Which routers' probability changes QCN-Switch traces.
    #[derive(Default)]
    pub enum QcnTrace {
        /// The routers of group 0 (Fig 4-21).
        #[default]
        Group0 = "group0",
        /// None.
        None = "none",
    }
}

/// `[routing.lian]` under a Dragonfly routing other than `lian`: the counter keys the counter
/// observer (`stats.group_counters`, Fig 6-8) reads (spec §3.10.1), with LIAN's defaults.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupCounterKeys {
    /// History window HW of inj_i in cycles (default 200).
    #[serde(default = "default_window_cycles")]
    pub window_cycles: u64,
    /// Counter model (default `"extended"`).
    #[serde(default)]
    pub counters: LianCounters,
    /// w of Eq. 6-1 (default 0.1).
    #[serde(default = "default_lian_w")]
    pub w: f64,
}

impl Default for GroupCounterKeys {
    fn default() -> Self {
        toml::from_str("").expect("the group counters' defaults")
    }
}

fn default_pb_factor() -> u32 {
    120
}
fn default_pb_threshold() -> u32 {
    5
}

/// `[routing.tpr]`: TPR as the thesis implements it (Dragonfly spec §3.9, Table 6-1): the
/// packets a router injected towards each group over a sliding window select UGAL's
/// threshold T (benign, mixed, adversarial).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TprConfig {
    /// History window HW in cycles (default 200).
    #[serde(default = "default_window_cycles")]
    pub window_cycles: u64,
    /// LI_l: a counter below it is benign (default 3 packets per window).
    #[serde(default = "default_li_low")]
    pub li_low: f64,
    /// LI_h: a counter above it is adversarial, in between mixed (default 5).
    #[serde(default = "default_li_high")]
    pub li_high: f64,
    /// UGAL threshold T (packets) for benign traffic (default 150).
    #[serde(default = "default_t_benign")]
    pub t_benign: i64,
    /// T for mixed traffic (default −30).
    #[serde(default = "default_t_mix")]
    pub t_mix: i64,
    /// T for adversarial traffic (default −150).
    #[serde(default = "default_t_adversarial")]
    pub t_adversarial: i64,
}
impl Default for TprConfig {
    fn default() -> Self {
        toml::from_str("").expect("tpr defaults")
    }
}
/// HW of TPR and LIAN (Table 6-1: 200 cycles).
fn default_window_cycles() -> u64 {
    200
}
/// LI_l of TPR and LIAN (Table 6-1: 3 packets per window).
fn default_li_low() -> f64 {
    3.0
}
/// LI_h of TPR and LIAN (Table 6-1: 5).
fn default_li_high() -> f64 {
    5.0
}
/// T for benign traffic of TPR and LIAN (Table 6-1: 150 packets).
fn default_t_benign() -> i64 {
    150
}
/// T for mixed traffic of TPR and LIAN (Table 6-1: −30).
fn default_t_mix() -> i64 {
    -30
}
/// T for adversarial traffic of TPR and LIAN (Table 6-1: −150).
fn default_t_adversarial() -> i64 {
    -150
}

/// `[routing.lian]`: LIAN (Dragonfly spec §3.10, Table 6-1): extended per-group counters
/// (Eq. 6-1), the l1 rule (GCSth, SGCth), the l2 rule on the intermediate-local counters
/// (Eq. 6-2, ILCth), UGAL's threshold by load level (LI_l, LI_h, T).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LianConfig {
    /// History window HW of inj_i in cycles (default 200).
    #[serde(default = "default_window_cycles")]
    pub window_cycles: u64,
    /// Counter model (spec §3.10.1, Fig 6-7): `"extended"` (inj + w·stor, default),
    /// `"injected"` (inj alone, w = 0) or `"stored"` (stor alone).
    #[serde(default)]
    pub counters: LianCounters,
    /// w of Eq. 6-1 (default 0.1).
    #[serde(default = "default_lian_w")]
    pub w: f64,
    /// LI_l: below it the destination group's counter is benign (default 3).
    #[serde(default = "default_li_low")]
    pub li_low: f64,
    /// LI_h: above it adversarial, in between mixed (default 5).
    #[serde(default = "default_li_high")]
    pub li_high: f64,
    /// UGAL threshold T (packets) for benign traffic (default 150).
    #[serde(default = "default_t_benign")]
    pub t_benign: i64,
    /// T for mixed traffic (default −30).
    #[serde(default = "default_t_mix")]
    pub t_mix: i64,
    /// T for adversarial traffic (default −150).
    #[serde(default = "default_t_adversarial")]
    pub t_adversarial: i64,
    /// GCSth: a global counter above it is saturated (default 5).
    #[serde(default = "default_gcs_th")]
    pub gcs_th: f64,
    /// SGCth: more saturated counters than this among the groups of the router's own global
    /// links use l1 (default 3).
    #[serde(default = "default_sgc_th")]
    pub sgc_th: u32,
    /// Use l1 when the saturated counters are at least SGCth rather than more (default
    /// false: `count > SGCth`, spec A7).
    #[serde(default)]
    pub sgc_inclusive: bool,
    /// ILCth: an intermediate-local counter above it uses l2 (default 20).
    #[serde(default = "default_ilc_th")]
    pub ilc_th: f64,
    /// A re-routed injection head (recomputation) chooses its phase-A policy again from the
    /// counters (default false: it keeps the policy of its first decision and draws a new
    /// intermediate, spec A16).
    #[serde(default)]
    pub recompute_policy: bool,
}
impl Default for LianConfig {
    fn default() -> Self {
        toml::from_str("").expect("lian defaults")
    }
}
fn default_lian_w() -> f64 {
    0.1
}
fn default_gcs_th() -> f64 {
    5.0
}
fn default_sgc_th() -> u32 {
    3
}
fn default_ilc_th() -> f64 {
    20.0
}

crate::choice! {
    /// LIAN's counter model (Dragonfly spec §3.10.1, Eq. 6-1, Fig 6-7).
    #[derive(Default)]
    pub enum LianCounters {
        /// inj_i + w · stor_i.
        #[default]
        Extended = "extended",
        /// inj_i alone (w = 0: TPR's counters).
        Injected = "injected",
        /// stor_i alone.
        Stored = "stored",
    }
}

/// `[routing.acor]`: ACOR's phase-A level sequence, where the level is kept and when it
/// changes (Dragonfly spec §3.7, Table 5-2, Table 5-3). Thresholds count blocked re-routings
/// of Valiant-routed injection heads (all injection ports of a router together, ACOR-Switch;
/// the packet's own, ACOR-Packet).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcorConfig {
    /// Where the level is kept: `"switch"` (ACOR-Switch, default) or `"packet"` (ACOR-Packet).
    #[serde(default)]
    pub variant: AcorVariant,
    /// Level sequence (Table 5-2): `"3L"` (default), `"2L-A"` or `"2L-B"`.
    #[serde(default)]
    pub sequence: AcorSequence,
    /// ACOR-Switch: hysteresis interval HI in cycles (default 500 = 500 ns at 1 GHz).
    #[serde(default = "default_hysteresis_cycles")]
    pub hysteresis_cycles: u64,
    /// ACOR-Switch: blocked re-routings in one interval that raise level 1 (IT1, default 15).
    #[serde(default = "default_it1")]
    pub it1: u32,
    /// ACOR-Switch 3L: blocked re-routings that raise level 2 (IT2, default 500 for acor, 50
    /// for pb_acor).
    #[serde(default)]
    pub it2: Option<u32>,
    /// ACOR-Switch: at most this many blocked re-routings in an interval lower level 2 (DT1,
    /// default 5).
    #[serde(default = "default_dt1")]
    pub dt1: u32,
    /// ACOR-Switch 3L: at most this many lower level 3 (DT2, default 15).
    #[serde(default = "default_dt2")]
    pub dt2: u32,
}
impl Default for AcorConfig {
    fn default() -> Self {
        toml::from_str("").expect("acor defaults")
    }
}
fn default_hysteresis_cycles() -> u64 {
    500
}
fn default_it1() -> u32 {
    15
}
fn default_dt1() -> u32 {
    5
}
fn default_dt2() -> u32 {
    15
}

crate::choice! {
    /// Where ACOR keeps its level (Dragonfly spec §3.7).
    #[derive(Default)]
    pub enum AcorVariant {
        /// ACOR-Switch: one level per router, shared by the packets it injects, with
        /// hysteresis.
        #[default]
        Switch = "switch",
        /// ACOR-Packet: each packet starts at level 1 and rises one level per blocked
        /// re-routing.
        Packet = "packet",
    }
}

crate::choice! {
    /// ACOR's phase-A policy sequences (Dragonfly spec §3.7, Table 5-2), short to long.
    #[derive(Default)]
    pub enum AcorSequence {
        /// -g-, -gl, lgl.
        #[default]
        ThreeL = "3L",
        /// -g-, lgl.
        TwoLA = "2L-A",
        /// -gl, lgl.
        TwoLB = "2L-B",
    }
}

crate::choice! {
    /// The order in which D-mod-k reads the destination's digits on the way up.
    #[derive(Default)]
    pub enum DmodkDigits {
        /// Level l goes up by digit l of d, least significant first: ⌊d / W_l⌋ mod up\[l\]
        /// (spec B.6's formula: consecutive destinations leave a leaf by different up ports).
        #[default]
        LowFirst = "low_first",
        /// The most significant digits first: groups of consecutive destinations share a leaf's
        /// up port (the grouping of a perfect-shuffle BMIN's self-routing).
        HighFirst = "high_first",
        /// Level l goes up by the sum of the digits l.. of d, mod up\[l\]: (d_0 + d_1 + d_2)
        /// mod 4 at a 64-node BMIN's leaves. Balanced like `low_first`, but the destinations
        /// sharing an up port are not one residue class mod 4 (spec B.6, B.2's DBBM classes).
        DigitSum = "digit_sum",
    }
}

crate::choice! {
    /// Whose label D-mod-k's up-port choice reads (`routing.dmodk_key`, drb-and-ddbbm spec B.6).
    #[derive(Default)]
    pub enum DmodkKey {
        /// The destination's (D-mod-k): every route to d converges on one switch per level;
        /// forwarding tables per DLID.
        #[default]
        Destination = "destination",
        /// The source's (S-mod-k): the routes from s spread by s's digits on the way up, then
        /// take the unique way down; one fixed route per (source, destination) pair.
        Source = "source",
    }
}

crate::choice! {
    /// Which of a destination's LIDs (its LMC range) a source's packets carry as DLID
    /// (`routing.lmc_path`); with LMC 0 there is only the base LID.
    #[derive(Default)]
    pub enum LmcPath {
        /// Every packet to the base LID (offset 0): what MPI libraries do unless told.
        #[default]
        Base = "base",
        /// A fixed offset per source: source HCA index mod the destination's LID count (the
        /// path bits Open MPI and UCX pick per connection).
        Source = "source",
        /// Round robin over the destination's LIDs, one per message of a flow (LMC used for
        /// multipath).
        Message = "message",
    }
}

crate::choice! {
    /// An OpenSM routing engine (`routing.engine` of `routing.algorithm = "opensm"`), by
    /// OpenSM's own name.
    #[derive(Default)]
    pub enum OpensmEngine {
        /// Min-hop with OpenSM's path-counter balancing (OpenSM's default engine).
        #[default]
        Minhop = "minhop",
        /// Up/down: min-hop restricted to routes that never go down then up, from ranked roots.
        Updn = "updn",
        /// Dimension order: min-hop taking the first minimal port's neighbour switch.
        Dor = "dor",
        /// Fat tree: destination-driven balanced routing down/up port groups.
        Ftree = "ftree",
        /// Deadlock-free SSSP: Dijkstra per destination on links weighted by the routes they
        /// carry, then the (source, destination) pairs spread over VL layers until every
        /// layer's channel-dependency graph is acyclic (each pair's SL is its layer).
        Dfsssp = "dfsssp",
        /// SSSP: dfsssp's routes without the VL layers (not deadlock-free).
        Sssp = "sssp",
    }
}

crate::choice! {
    /// Injection process of a flow or generator.
    #[derive(Default)]
    pub enum Injection {
        /// Greedy: always has data (spec §3.7.1 `trfFlood`).
        #[default]
        Flood = "flood",
        /// Random message arrivals at `load` (fraction of the host link) or `rate`.
        Bernoulli = "bernoulli",
        /// Poisson message arrivals (exponential inter-arrival times) at `load` or `rate`, which
        /// may exceed the host link; messages wait in an unbounded source queue
        /// (drb-and-ddbbm spec A.6, A.10).
        Poisson = "poisson",
        /// Messages at a fixed inter-arrival time (message wire bits / `rate`, a constant-rate
        /// source), the first at a phase drawn from the seed within one gap; like Poisson, the
        /// rate may exceed the host link (drb-and-ddbbm spec A.6 alternative reading).
        Periodic = "periodic",
    }
}

crate::choice! {
    /// A destination pattern (Dragonfly spec §4; the permutations of meshes and tori as in
    /// BookSim), one list for every pattern key of both models: `traffic.pattern`, the patterns
    /// of `traffic.mix[]` and of the transient phases (cycle-level model) and
    /// `traffic.generators[].pattern` (credit-level model). Which ones a key and a topology allow
    /// is checked where the pattern is built.
    #[derive(Default)]
    pub enum Pattern {
        /// Uniform random destinations.
        #[default]
        Uniform = "uniform",
        /// Dragonfly: uniform among the nodes of group g + `shift` (ADV+i, spec §4.2).
        Adv = "adv",
        /// Dragonfly: uniform among the nodes of the next router of the source's group.
        Advl = "advl",
        /// Dragonfly: uniform among the nodes of the h groups after the source's.
        Advc = "advc",
        /// A mix of steady patterns with load fractions (`[[traffic.mix]]`).
        Mix = "mix",
        /// One pattern or load before `traffic.transient.at_cycle`, another after (spec §4.3).
        Transient = "transient",
        /// Mesh/torus: (x, y) sends to (y, x).
        Transpose = "transpose",
        /// Mesh/torus: the router index with every bit complemented.
        BitComplement = "bit_complement",
        /// Mesh/torus: the router index with its bits reversed.
        BitReversal = "bit_reversal",
        /// Mesh/torus: the router index rotated left by one bit.
        Shuffle = "shuffle",
        /// Mesh/torus: x → x + ⌈k/2⌉ − 1 (mod k) in every dimension.
        Tornado = "tornado",
        /// Mesh/torus: x → x + 1 (mod k) in every dimension.
        Neighbour = "neighbour",
        /// Uniform, but a `hotspot_fraction` of the packets go to the hot destinations.
        Hotspot = "hotspot",
        /// Credit-level generators: a job's sources in LID order, source i sending to source
        /// i + `shift` (mod the job's size).
        Shift = "shift",
        /// Credit-level generators: a seeded random permutation of a job's sources without a
        /// fixed point (every source sends to one other source of the job).
        RandomPermutation = "random_permutation",
    }
}

crate::choice! {
    /// How a generator keeps a fraction of its sources or destinations.
    #[derive(Default)]
    pub enum Subset {
        /// An even spread in LID order.
        #[default]
        EveryOther = "every_other",
        /// A seeded random choice.
        Random = "random",
    }
}

crate::choice! {
    /// How a generator with several hotspots spreads its hot traffic over them (spec B.6).
    #[derive(Default)]
    pub enum HotspotSplit {
        /// Every message (or packet) picks one of the hot HCAs uniformly.
        #[default]
        Message = "message",
        /// Each source is bound to one hot HCA: the sources in LID order are dealt round-robin
        /// over the hotspots in the order given (spec B.6 #5B: hot sources split evenly).
        Source = "source",
    }
}

crate::choice! {
    /// When a generator draws a new destination.
    #[derive(Default)]
    pub enum DestinationPer {
        /// Every message (spec default).
        #[default]
        Message = "message",
        /// Every packet.
        Packet = "packet",
    }
}

/// `[[traffic.flows]]`: one static flow (a queue pair) from `src` to `dst`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    /// Source HCA name.
    pub src: String,
    /// Destination HCA name.
    pub dst: String,
    /// Start time.
    #[serde(default)]
    pub start: Duration,
    /// Stop time (absent: until the end).
    #[serde(default)]
    pub stop: Option<Duration>,
    /// Injection process (default flood).
    #[serde(default)]
    pub injection: Injection,
    /// Offered load as a fraction of the source host link (bernoulli, poisson).
    #[serde(default)]
    pub load: Option<f64>,
    /// Offered rate (bernoulli, poisson), alternative to `load`.
    #[serde(default)]
    pub rate: Option<BitRate>,
    /// Service level / VL of the flow.
    #[serde(default)]
    pub vl: u32,
    /// The job this flow belongs to (`summary.json` `jobs.<name>`).
    #[serde(default)]
    pub job: Option<String>,
}

/// A node set: `"all"`, `"others"` (HCAs that are not the source of a static flow, minus
/// `idle`), `"rest"` (HCAs that are not a source of any static flow or earlier generator, minus
/// `idle`: the background senders of spec B.6), or an explicit list of names.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum NodeSet {
    /// "all", "others" or "rest".
    Named(String),
    /// Explicit names.
    List(Vec<String>),
}

/// `[[traffic.generators]]`: a random-destination generator on every HCA of `sources`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratorConfig {
    /// Sending HCAs.
    pub sources: NodeSet,
    /// Destination set (self is always excluded).
    #[serde(default = "default_all")]
    pub destinations: NodeSet,
    /// Keep only this fraction of `sources` (C2: 0.5); selection by `subset`.
    #[serde(default)]
    pub source_fraction: Option<f64>,
    /// Keep only this fraction of `destinations` (C3: 0.5).
    #[serde(default)]
    pub destination_fraction: Option<f64>,
    /// How fractional subsets are picked: "every_other" (by LID order) or "random" (seeded).
    #[serde(default)]
    pub subset: Subset,
    /// Destination pattern, one of the names of `traffic.pattern` ([`Pattern`]): "uniform" over
    /// `destinations` (a hotspot with `hotspot` below, also written "hotspot"), or a permutation
    /// of the fabric's HCAs (`traffic::permutation`).
    #[serde(default)]
    pub pattern: Pattern,
    /// Hotspot: the HCA, or HCAs, receiving `hotspot_fraction` of the messages (spec B.6: #5B
    /// has five).
    #[serde(default)]
    pub hotspot: Option<HcaNames>,
    /// With several hotspots: each message picks one ("message", the default) or each source is
    /// bound to one, the sources dealt round-robin in LID order ("source": spec B.6 #5B's hot
    /// sources split evenly among the hotspots).
    #[serde(default)]
    pub hotspot_split: HotspotSplit,
    /// Fraction of messages sent to `hotspot`.
    #[serde(default)]
    pub hotspot_fraction: Option<f64>,
    /// Injection process.
    #[serde(default)]
    pub injection: Injection,
    /// Offered load as a fraction of the host link (bernoulli, poisson).
    #[serde(default)]
    pub load: Option<f64>,
    /// Offered rate (bernoulli, poisson).
    #[serde(default)]
    pub rate: Option<BitRate>,
    /// Start time.
    #[serde(default)]
    pub start: Duration,
    /// Stop time.
    #[serde(default)]
    pub stop: Option<Duration>,
    /// New destination every "message" (spec default) or every "packet".
    #[serde(default)]
    pub destination_per: DestinationPer,
    /// Nodes excluded from `sources` ("others" and "all").
    #[serde(default)]
    pub idle: Vec<String>,
    /// Service level / VL.
    #[serde(default)]
    pub vl: u32,
    /// Pattern `shift`: the offset k (source i of the job sends to source i + k).
    #[serde(default)]
    pub shift: Option<i64>,
    /// The job this generator belongs to: `summary.json` `jobs.<name>` sums the throughput and
    /// latency of every flow of the generators and static flows that name it.
    #[serde(default)]
    pub job: Option<String>,
}

/// One HCA name or a list of them (`traffic.generators[].hotspot`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum HcaNames {
    /// One name.
    One(String),
    /// Several names.
    List(Vec<String>),
}

impl HcaNames {
    /// The names, in the order given.
    pub fn names(&self) -> Vec<&str> {
        match self {
            HcaNames::One(s) => vec![s.as_str()],
            HcaNames::List(v) => v.iter().map(String::as_str).collect(),
        }
    }
}

fn default_all() -> NodeSet {
    NodeSet::Named("all".into())
}

/// `[traffic]`: packet/message sizes and the traffic sources.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficConfig {
    /// Credit size (spec: 64 B).
    #[serde(default = "default_credit")]
    pub credit_bytes: Bytes,
    /// MTU in credits (spec: 34).
    #[serde(default = "default_mtu")]
    pub mtu_credits: u32,
    /// Packet size on the wire (spec: 2176 B); must fit the MTU.
    #[serde(default = "default_packet")]
    pub packet_bytes: Bytes,
    /// Message size (spec: 65536 B payload = 32 packets); destinations change per message.
    #[serde(default = "default_message")]
    pub message_bytes: Bytes,
    /// Payload bytes per packet (spec: 2048 of 2176); used to count messages.
    #[serde(default = "default_payload")]
    pub payload_bytes: Bytes,
    /// Static flows.
    #[serde(default)]
    pub flows: Vec<FlowConfig>,
    /// Random-destination generators.
    #[serde(default)]
    pub generators: Vec<GeneratorConfig>,
    /// Cycle-level model: destination pattern (Dragonfly spec §4): `uniform`, `adv`, `advl`,
    /// `advc`, `mix`, `transient`; meshes/tori also `transpose`, `bit_complement`,
    /// `bit_reversal`, `shuffle`, `tornado`, `neighbour`, `hotspot`.
    #[serde(default)]
    pub pattern: Pattern,
    /// Cycle-level model: offered load in phits/node/cycle (Bernoulli injection, spec §4.1).
    #[serde(default)]
    pub load: Option<f64>,
    /// Cycle-level model: group offset i of ADV+i (may be negative).
    #[serde(default)]
    pub shift: Option<i64>,
    /// Cycle-level model: packet size in phits (default 10, Table 3-1).
    #[serde(default = "default_packet_phits")]
    pub packet_phits: u32,
    /// Cycle-level model, pattern `mix`: the component patterns and their load fractions.
    #[serde(default)]
    pub mix: Vec<MixComponent>,
    /// Cycle-level model, pattern `transient`: the pattern before and after a given cycle.
    #[serde(default)]
    pub transient: Option<TransientConfig>,
    /// Cycle-level model, pattern `hotspot`: the hot terminals (indices).
    #[serde(default)]
    pub hotspots: Option<Vec<u32>>,
    /// Cycle-level model, pattern `hotspot`: fraction of packets sent to a hot terminal (the
    /// rest is uniform; default 0.1).
    #[serde(default = "default_hotspot_fraction")]
    pub hotspot_fraction: f64,
}

/// `[[traffic.mix]]` (and `mix` inside a transient phase): one component of a mixed pattern.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MixComponent {
    /// The component pattern (any steady pattern, not `mix` or `transient`).
    pub pattern: Pattern,
    /// ADV+i offset for `adv`.
    #[serde(default)]
    pub shift: Option<i64>,
    /// Fraction of each node's packets that follow this component; fractions add up to 1.
    pub fraction: f64,
}

/// One phase of a transient pattern (`traffic.transient.before` / `.after`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransientPhase {
    /// The steady pattern of this phase (not `transient`).
    pub pattern: Pattern,
    /// ADV+i offset for `adv`.
    #[serde(default)]
    pub shift: Option<i64>,
    /// Offered load of this phase (default `traffic.load`).
    #[serde(default)]
    pub load: Option<f64>,
    /// Components when `pattern = "mix"`.
    #[serde(default)]
    pub mix: Vec<MixComponent>,
}

/// `[traffic.transient]`: pattern and/or load change at cycle `at_cycle` (Dragonfly spec §4.3).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransientConfig {
    /// Cycle of the change (default: the end of the warm-up, the spec's t = 0).
    #[serde(default)]
    pub at_cycle: Option<u64>,
    /// Traffic before the change.
    pub before: TransientPhase,
    /// Traffic from the change on.
    pub after: TransientPhase,
}
impl Default for TrafficConfig {
    fn default() -> Self {
        toml::from_str("").expect("traffic defaults")
    }
}
fn default_credit() -> Bytes {
    Bytes(64)
}
fn default_mtu() -> u32 {
    34
}
fn default_packet() -> Bytes {
    Bytes(2176)
}
fn default_message() -> Bytes {
    Bytes(65536)
}
fn default_payload() -> Bytes {
    Bytes(2048)
}
fn default_packet_phits() -> u32 {
    10
}
fn default_hotspot_fraction() -> f64 {
    0.1
}

/// `[stats]`: what to collect.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatsConfig {
    /// Per-port, per-VL buffer occupancy per interval (`buffers.csv`) and, with output
    /// buffers, per output queue (`output_buffers.csv`, spec B.5).
    #[serde(default = "default_true")]
    pub buffer_occupancy: bool,
    /// Fairness group: HCA names of flows' sources to compare (absent: flows into the busiest
    /// destination).
    #[serde(default)]
    pub fairness_sources: Option<Vec<String>>,
    /// Fairness window start (absent: `sim.warmup`).
    #[serde(default)]
    pub fairness_from: Option<Duration>,
    /// Write `links.csv`: data bytes per switch-output link direction and statistics interval
    /// (drb-and-ddbbm spec A.7, per-link throughput over time).
    #[serde(default)]
    pub links: bool,
    /// The hot HCA of a hot-spot experiment (drb-and-ddbbm spec A.6, A.8 R-A8): the summary gives
    /// the peak interval throughput of the links into its switch (`hotspot.peak_link_mbps`).
    #[serde(default)]
    pub hotspot: Option<String>,
    /// Start of the hot-spot peak search (absent: the earliest start of a generator sending only
    /// to `hotspot`, else `sim.warmup`).
    #[serde(default)]
    pub hotspot_from: Option<Duration>,
    /// What the per-link series count (`links.csv`, `hotspot.*`): the bytes a link starts to
    /// send per interval (`"wire"`) or the bytes injected per interval whose path crosses it
    /// (`"routed"`, counted in the interval of their injection).
    #[serde(default)]
    pub link_measure: LinkMeasure,
    /// The hot spot's peak also over a sliding mean of this length (a multiple of
    /// `sim.interval`): `hotspot.peak_window_mbps`.
    #[serde(default)]
    pub hotspot_window: Option<Duration>,
    /// Cycle-level model: width in cycles of the time bins of `bins.csv` (latency, accepted
    /// load and misrouted fraction over time; default 1,000).
    #[serde(default = "default_bin_cycles")]
    pub bin_cycles: u64,
    /// Cycle-level Dragonfly: observe the per-router group counters of TPR/LIAN (Dragonfly
    /// spec §3.10.1 Eq. 6-1, §3.10.3 Eq. 6-2) under any routing, without changing a decision,
    /// and write their trace (`group_counters.csv`, `summary.json` `group_counters`; Fig 6-8).
    #[serde(default)]
    pub group_counters: bool,
}
crate::choice! {
    /// What the per-link throughput series counts (drb-and-ddbbm spec A.7, A.8 R-A8/R-A9).
    #[derive(Default)]
    pub enum LinkMeasure {
        /// The data bytes a link starts to send in the interval (bounded by its capacity).
        #[default]
        Wire = "wire",
        /// The data bytes injected in the interval whose path crosses the link (the demand
        /// routed over it, not bounded by its capacity).
        Routed = "routed",
    }
}

impl Default for StatsConfig {
    fn default() -> Self {
        toml::from_str("").expect("stats defaults")
    }
}
fn default_true() -> bool {
    true
}
fn default_bin_cycles() -> u64 {
    1000
}

/// `[router]`: the cycle-level CIOQ router with credit-based virtual cut-through (Dragonfly
/// spec §2.1); defaults are the spec's Table 3-1 (1 cycle = 1 ns, 1 phit = 25 B per cycle).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouterConfig {
    /// Port-to-port router latency in cycles for a packet head (Table 3-1: 90 ns).
    #[serde(default = "default_router_latency")]
    pub latency: u64,
    /// Internal crossbar speed-up: phits per cycle a crossbar port moves (Table 3-1: 2).
    #[serde(default = "default_speedup")]
    pub speedup: u32,
    /// Iterations of the input-first separable allocator per cycle (spec A18: 1).
    #[serde(default = "default_one")]
    pub allocator_iterations: u32,
    /// Injection queue per node in phits (Table 3-1: 126 KB = 5,040 phits).
    #[serde(default = "default_injection_queue")]
    pub injection_queue_phits: u32,
    /// Input buffer per VC of a local (or mesh/torus) port in phits (Table 3-1: 720).
    #[serde(default = "default_local_buffer")]
    pub local_buffer_phits: u32,
    /// Input buffer per VC of a global port in phits (Table 3-1: 1,800).
    #[serde(default = "default_global_buffer")]
    pub global_buffer_phits: u32,
    /// Output buffer per VC in phits (Table 3-1: 630).
    #[serde(default = "default_output_buffer")]
    pub output_buffer_phits: u32,
    /// Latency of the node → router link in cycles (not given by the thesis; default 0, as the
    /// zero-load model of spec §2.5 assumes).
    #[serde(default)]
    pub injection_latency: u64,
    /// Latency of the router → node link in cycles (default 0, spec §2.5).
    #[serde(default)]
    pub ejection_latency: u64,
    /// Latency of a local (intra-group, or mesh/torus) link in cycles (Table 3-1: 15).
    #[serde(default = "default_local_latency")]
    pub local_latency: u64,
    /// Latency of a global link in cycles (Table 3-1: 150).
    #[serde(default = "default_global_latency")]
    pub global_latency: u64,
    /// VCs per local port (default: what the routing's template needs, spec §3.0.3: 2 for MIN,
    /// 4 for the others; meshes 1, tori 2 per Valiant phase).
    #[serde(default)]
    pub local_vcs: Option<u32>,
    /// VCs per global port (default: 1 for MIN, 2 for the others).
    #[serde(default)]
    pub global_vcs: Option<u32>,
    /// Link-level flow control between routers: credits (Dragonfly spec §2.1; also the
    /// spec's emulation of PFC, §2.3) or 802.1Qbb priority flow control.
    #[serde(default)]
    pub flow_control: RouterFlowControl,
    /// `[router.pfc]`: the PFC thresholds and PAUSE frame (only with `flow_control = "pfc"`).
    #[serde(default)]
    pub pfc: Option<PfcConfig>,
    /// When a packet may cross the crossbar into an output VC (Dragonfly spec §2.1, §3.4; an
    /// ambiguity of the spec, `docs/hpc-router.md`): when the output buffer has room for it
    /// (the default), or only when the downstream credits also cover it together with the
    /// packets already queued in that output VC.
    #[serde(default)]
    pub output_admission: OutputAdmission,
    /// With recomputation (`routing.recompute`, Dragonfly spec §3.4): when a blocked injection
    /// head's new route is tried — at the next cycle (the default) or at the allocator's next
    /// iteration in the same cycle (FOGSim's reading; needs `allocator_iterations` ≥ 2 to
    /// differ).
    #[serde(default)]
    pub recompute_retry: RecomputeRetry,
}

crate::choice! {
    /// When a blocked injection head draws and tries its new route (`router.recompute_retry`,
    /// Dragonfly spec §3.4 "recompute output port/VC and re-request").
    #[derive(Default)]
    pub enum RecomputeRetry {
        /// Its route is dropped at the end of the cycle's allocation and drawn again when the
        /// next cycle's allocation routes it: one new draw per cycle.
        #[default]
        NextCycle = "next_cycle",
        /// Its route is dropped after each allocator iteration that did not grant it and drawn
        /// again at once, so the next iteration of the same cycle requests on the new route.
        NextIteration = "next_iteration",
    }
}

crate::choice! {
    /// When the crossbar may move a packet into a router-to-router output VC
    /// (`router.output_admission`; Dragonfly spec §2.1 "forwarded only if the downstream VC has
    /// credits for the whole packet", §3.4 "no credits were available").
    #[derive(Default)]
    pub enum OutputAdmission {
        /// The output VC's buffer has room for the whole packet; downstream credits are
        /// consulted when the packet leaves on the link.
        #[default]
        Space = "space",
        /// As `space`, and the downstream VC's free space, net of the packets already queued in
        /// the output VC, holds the whole packet: the output buffer never queues more than the
        /// downstream buffer can take, so a blocked packet waits at its input.
        Credits = "credits",
    }
}

crate::choice! {
    /// The cycle-level routers' link-level flow control (`router.flow_control`).
    #[derive(Default)]
    pub enum RouterFlowControl {
        /// Credit-based virtual cut-through: a hop starts only when the downstream VC has room
        /// for the whole packet (Dragonfly spec §2.1).
        #[default]
        Credits = "credits",
        /// 802.1Qbb priority flow control: a router input VC (class of service) above XOFF
        /// sends a PAUSE frame upstream, below XON a resume frame (spec §2.3).
        Pfc = "pfc",
    }
}

/// `[router.pfc]`: 802.1Qbb priority flow control of the cycle-level routers' links, per
/// (input port, VC = class of service); sizes in phits, times in cycles.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PfcConfig {
    /// Occupancy of an input VC at which a PAUSE goes upstream (default: the largest whole
    /// number of packets that leaves the headroom, per link class).
    #[serde(default)]
    pub xoff_phits: Option<u32>,
    /// Occupancy at or below which a resume frame goes upstream (default: XOFF − 2 packets).
    #[serde(default)]
    pub xon_phits: Option<u32>,
    /// Link time of one PAUSE or resume frame (default 13: a 64-byte frame at 5 B per phit,
    /// Table 4-3's phit).
    #[serde(default = "default_pause_phits")]
    pub pause_phits: u32,
    /// Cycles the upstream port takes to act on a received frame (802.1Qbb's response time).
    #[serde(default)]
    pub response_cycles: u64,
}
fn default_pause_phits() -> u32 {
    13
}
impl Default for PfcConfig {
    fn default() -> Self {
        toml::from_str("").expect("PFC defaults")
    }
}
impl Default for RouterConfig {
    fn default() -> Self {
        toml::from_str("").expect("router defaults")
    }
}
/// `[qcn]`: QCN (IEEE 802.1Qau) in the cycle-level model (Dragonfly spec §3.12.1, Table 4-3).
/// The congestion points run when the routing reads them (`qcn_switch`) or when the reaction
/// points are on; defaults are Table 4-3's.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QcnConfig {
    /// Where the congestion points sample: `"output"` (output buffers of transit ports, the
    /// final configuration) or `"input"` (their input buffers).
    #[serde(default)]
    pub sampling: QcnSampling,
    /// Q_eq in phits (default: 20 % of a local input buffer per VC, Table 4-3).
    #[serde(default)]
    pub q_eq_phits: Option<u32>,
    /// w of Eq. 2-3 (Table 4-3: 0).
    #[serde(default)]
    pub w: f64,
    /// CPC: a congestion point samples one of every this many packets entering its buffer
    /// (Table 4-3: 100).
    #[serde(default = "default_qcn_cpc")]
    pub cpc_packets: u32,
    /// %CNMs: the share of samples with feedback that send a notification, in percent
    /// (Table 4-3: 30).
    #[serde(default = "default_qcn_cnm_percent")]
    pub cnm_percent: u32,
    /// What the CPC counts: `"cycles"` (default; FOGSim, the thesis's simulator: the counter
    /// drops with every packet entering the buffer and every cycle, so a busy buffer is sampled
    /// every CPC cycles, at its next arrival or departure once due) or `"packets"` (data
    /// packets entering the sampled buffer only: Table 4-3's "one of every 100 packets").
    #[serde(default)]
    pub sampling_clock: QcnClock,
    /// Which packet a notification goes back to: `"random"` (occupancy sampling, a random
    /// packet of the sampled buffer: the thesis), `"head"` (the oldest one: FOGSim's output
    /// sampling) or `"arrival"` (the packet just sampled: standard QCN).
    #[serde(default)]
    pub victim: QcnVictim,
    /// The reaction points at the NICs: a rate limiter per node cut by notifications
    /// (802.1Qau; default false, as in the thesis, spec §3.12.1).
    #[serde(default)]
    pub reaction_point: bool,
    /// The reaction point's parameters (`[qcn.rp]`).
    #[serde(default)]
    pub rp: QcnRpConfig,
}
impl Default for QcnConfig {
    fn default() -> Self {
        toml::from_str("").expect("qcn defaults")
    }
}
fn default_qcn_cpc() -> u32 {
    100
}
fn default_qcn_cnm_percent() -> u32 {
    30
}

/// `[qcn.rp]`: the QCN reaction point (IEEE 802.1Qau-2010 clause 32; Alizadeh et al. 2008),
/// rates as fractions of the link rate.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QcnRpConfig {
    /// G_d: a notification cuts the rate by G_d · Fb (default 1/128).
    #[serde(default = "default_rp_gd")]
    pub gd: f64,
    /// Byte-counter stage length in packets (default 150: 150 KB of 1,000-B packets).
    #[serde(default = "default_rp_bc")]
    pub bc_limit_packets: u32,
    /// Timer stage length in cycles (default 15,000,000: 15 ms at 1 ns).
    #[serde(default = "default_rp_timer")]
    pub timer_cycles: u64,
    /// Stages of fast recovery before active increase (default 5).
    #[serde(default = "default_rp_fr")]
    pub fast_recovery_threshold: u32,
    /// R_AI, the active-increase step (default 0.000125: 5 Mb/s of 40 Gb/s).
    #[serde(default = "default_rp_ai")]
    pub r_ai: f64,
    /// R_HAI, the hyper-active-increase step (default 0.00125: 50 Mb/s of 40 Gb/s).
    #[serde(default = "default_rp_hai")]
    pub r_hai: f64,
    /// Lowest rate (default 0.00025: 10 Mb/s of 40 Gb/s).
    #[serde(default = "default_rp_min")]
    pub min_rate: f64,
}
impl Default for QcnRpConfig {
    fn default() -> Self {
        toml::from_str("").expect("qcn.rp defaults")
    }
}
fn default_rp_gd() -> f64 {
    1.0 / 128.0
}
fn default_rp_bc() -> u32 {
    150
}
fn default_rp_timer() -> u64 {
    15_000_000
}
fn default_rp_fr() -> u32 {
    5
}
fn default_rp_ai() -> f64 {
    0.000125
}
fn default_rp_hai() -> f64 {
    0.00125
}
fn default_rp_min() -> f64 {
    0.00025
}

crate::choice! {
    /// Where QCN congestion points sample (Dragonfly spec §3.12.1).
    #[derive(Default)]
    pub enum QcnSampling {
        /// The output buffers of transit ports (the final configuration, §3.12.6).
        #[default]
        Output = "output",
        /// The input buffers of transit ports.
        Input = "input",
    }
}

crate::choice! {
    /// What a QCN congestion point's CPC counts.
    #[derive(Default)]
    pub enum QcnClock {
        /// Packets and cycles (FOGSim's counter; the default).
        #[default]
        Cycles = "cycles",
        /// Data packets entering the sampled buffer (Table 4-3's wording).
        Packets = "packets",
    }
}

crate::choice! {
    /// Which packet of a sampled buffer a QCN notification goes back to.
    #[derive(Default)]
    pub enum QcnVictim {
        /// A random packet of the buffer (occupancy sampling, the thesis).
        #[default]
        Random = "random",
        /// The oldest packet (FOGSim's output sampling).
        Head = "head",
        /// The packet whose arrival triggered the sample (standard QCN).
        Arrival = "arrival",
    }
}

fn default_router_latency() -> u64 {
    90
}
fn default_speedup() -> u32 {
    2
}
fn default_injection_queue() -> u32 {
    5040
}
fn default_local_buffer() -> u32 {
    720
}
fn default_global_buffer() -> u32 {
    1800
}
fn default_output_buffer() -> u32 {
    630
}
fn default_local_latency() -> u64 {
    15
}
fn default_global_latency() -> u64 {
    150
}

/// Victim_Mask setting: a bool, or `"host_ports"` (set on switch ports facing HCAs only, as
/// \[Z\] configures it, spec §2.2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VictimMask {
    /// The same for every switch port.
    All(bool),
    /// `"host_ports"`: set on switch ports facing HCAs, clear on the others.
    #[default]
    HostPorts,
}

impl<'de> Deserialize<'de> for VictimMask {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = VictimMask;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("true, false or \"host_ports\"")
            }
            fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<VictimMask, E> {
                Ok(VictimMask::All(b))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<VictimMask, E> {
                match s {
                    "host_ports" => Ok(VictimMask::HostPorts),
                    other => Err(E::custom(format!(
                        "unknown value \"{other}\"; allowed: true, false, \"host_ports\""
                    ))),
                }
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// `[cc.host_ports]` / `[cc.fabric_ports]`: per-port-class IB CC switch settings.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct CcPortOverrides {
    /// Overrides `cc.threshold`.
    #[serde(default)]
    pub threshold: Option<u32>,
    /// Overrides `cc.victim_mask`.
    #[serde(default)]
    pub victim_mask: Option<bool>,
    /// Overrides `cc.marking_rate`.
    #[serde(default)]
    pub marking_rate: Option<u32>,
    /// Overrides `cc.packet_size`.
    #[serde(default)]
    pub packet_size: Option<u32>,
}

crate::choice! {
    /// How the Congestion Control Table of injection-rate delays is filled (spec §2.3.4).
    #[derive(Default)]
    pub enum CctAlgorithm {
        /// IRD(i) = i / div.
        Linear = "linear",
        /// rate(i) = B·max(1 − i/div, 1/1024).
        RateLinear = "rate_linear",
        /// IRD(i) = scale · (i/div)²: the shape of the public OMNeT++ InfiniBand-model CC
        /// generators, with \[Z\]'s `CCT_Div = 95` as its divisor (docs/calibration.md). Default.
        #[default]
        Quadratic = "quadratic",
        /// Explicit IBA entries from `cc.cct.file`.
        File = "file",
    }
}

/// `[cc.cct]`: how the Congestion Control Table of injection-rate delays is filled (spec §2.3.4).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CctConfig {
    /// `"linear"`: IRD(i) = i / div; `"rate_linear"`: rate(i) = B·max(1 − i/div, 1/1024);
    /// `"quadratic"`: IRD(i) = scale · (i/div)²; `"file"`: explicit IBA entries.
    #[serde(default)]
    pub algorithm: CctAlgorithm,
    /// The divisor of the generated tables (default: \[Z\]'s `CCT_Div = 95` for `quadratic`; 25,
    /// calibrated on \[Z\] C4, for `linear` and `rate_linear`: docs/calibration.md).
    #[serde(default)]
    pub div: Option<f64>,
    /// `"file"`: a table file, one entry per line `multiplier shift` (IRD = multiplier · 2^−shift).
    #[serde(default)]
    pub file: Option<String>,
    /// `"quadratic"`: the IRD at CCTI = div, in packet times (default 3, fitted once on \[Z\] C4;
    /// the public OMNeT++ generators' unfitted constant is 3300/512: docs/calibration.md).
    #[serde(default = "default_cct_scale")]
    pub scale: f64,
}
impl Default for CctConfig {
    fn default() -> Self {
        toml::from_str("").expect("cct defaults")
    }
}
/// Default `cc.cct.scale`: the one constant fitted on \[Z\]'s C4 calibration point (CC on,
/// 19.8 GB/s published) with `div = 95` as \[Z\] gives it (docs/calibration.md).
fn default_cct_scale() -> f64 {
    3.0
}

crate::choice! {
    /// Threshold weight → buffer fill level (spec §2.2.2).
    #[derive(Default)]
    pub enum ThresholdMapping {
        /// (16 − w)/16: weight 2 → 87.5 %.
        #[default]
        Sixteenths = "sixteenths",
        /// (16 − w)/15.
        Fifteenths = "fifteenths",
    }
}

crate::choice! {
    /// How a switch output's fill is compared with the threshold (spec §2.2.3).
    #[derive(Default)]
    pub enum ThresholdMode {
        /// M1: any VoQ's fill.
        PerVoq = "per_voq",
        /// M2 (\[Z\]): the sum of the fills of the VoQs feeding the output.
        #[default]
        Sum = "sum",
        /// M3: the sum against the threshold divided by the contributing inputs.
        SumDivided = "sum_divided",
    }
}

crate::choice! {
    /// The root test of a congested port VL (spec §2.2.4): the credits it must have.
    #[derive(Default)]
    pub enum RootCredits {
        /// Credits for a full packet.
        #[default]
        Packet = "packet",
        /// One credit.
        One = "one",
    }
}

crate::choice! {
    /// How FECN marking spaces the marked packets (spec §2.2.5).
    #[derive(Default)]
    pub enum Marking {
        /// Geometric gaps with mean `marking_rate` (a deterministic counter phase-locks with
        /// round-robin arbitration: docs/calibration.md).
        #[default]
        Random = "random",
        /// A counter: every `marking_rate + 1`-th eligible packet.
        Deterministic = "deterministic",
    }
}

crate::choice! {
    /// The CCTI timer (spec §2.3.2).
    #[derive(Default)]
    pub enum TimerMode {
        /// Each BECN restarts the flow's timer (the model's text).
        #[default]
        Restart = "restart",
        /// One periodic timer per port SL lowers every flow of the SL (the IBA's text), every
        /// timer of the fabric ticking at the same instants (multiples of `ccti_timer`).
        FreeRunning = "free_running",
        /// As `free_running`, each port SL's timer with a phase of its own, drawn from the run's
        /// seed (as the timers of a real fabric, started when each adapter was configured).
        FreeRunningPhased = "free_running_phased",
    }
}

crate::choice! {
    /// Reaction granularity of the channel adapters (spec §2.3).
    #[derive(Default)]
    pub enum CcLevel {
        /// Per flow (queue pair).
        #[default]
        Qp = "qp",
        /// Per source HCA and service level.
        Sl = "sl",
    }
}

/// `[cc]`: congestion management in the credit-level model: `enabled`, and the keys of the
/// mechanism `mechanism` selects (default `"ib"`), one struct per mechanism
/// ([`CcKeys`]); a key of another mechanism is refused by the type, named by
/// [`super::kinds`]. Defaults are \[Z\]'s (spec §2.4) and the DRB paper's (drb-and-ddbbm spec
/// A.4).
#[derive(Debug, Clone)]
pub struct CcConfig {
    /// Switch IB CC on or off.
    pub enabled: bool,
    /// Which congestion management `enabled` turns on: the InfiniBand CC of the IBA (`"ib"`,
    /// ib-congestion-control spec §2), the DRB paper's throttling baseline (`"ib_s1"`,
    /// drb-and-ddbbm spec A.4), DRB's path expansion (`"drb"`, spec A.3) or DDBBM's detection
    /// (`"ddbbm"`, spec B.3).
    pub mechanism: CcMechanism,
    /// The mechanism's own keys.
    pub keys: CcKeys,
}

/// The keys of `[cc]` besides `enabled`, one variant per `cc.mechanism`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "mechanism")]
pub enum CcKeys {
    /// `ib`: the IBA's congestion control (ib-congestion-control spec §2).
    #[serde(rename = "ib")]
    Ib(IbCcKeys),
    /// `ib_s1`: IBA_CC-S1 (drb-and-ddbbm spec A.4).
    #[serde(rename = "ib_s1")]
    IbS1(IbS1Keys),
    /// `drb`: DRB (drb-and-ddbbm spec A.3).
    #[serde(rename = "drb")]
    Drb(DrbCcKeys),
    /// `ddbbm`: DDBBM's detection, whose keys are `[ddbbm]`'s.
    #[serde(rename = "ddbbm")]
    Ddbbm(DdbbmCcKeys),
}

impl<'de> Deserialize<'de> for CcConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let mut t = toml::Table::deserialize(d)?;
        let enabled = match t.remove("enabled") {
            Some(v) => bool::deserialize(v).map_err(D::Error::custom)?,
            None => false,
        };
        t.entry("mechanism")
            .or_insert_with(|| toml::Value::String(CcMechanism::default().name().into()));
        let keys = CcKeys::deserialize(toml::Value::Table(t)).map_err(D::Error::custom)?;
        Ok(CcConfig {
            enabled,
            mechanism: keys.mechanism(),
            keys,
        })
    }
}

impl Default for CcConfig {
    fn default() -> Self {
        toml::from_str("").expect("the [cc] defaults")
    }
}

/// Calls `$then::<T>($arg)` with `T` the keys struct of the congestion mechanism named
/// `$kind`, or returns `None` for another name.
macro_rules! cc_struct {
    ($kind:expr, $then:ident $(, $arg:expr)?) => {{
        let i = CcMechanism::NAMES.iter().position(|n| *n == $kind)?;
        match CcMechanism::ALL[i] {
            CcMechanism::Ib => $then::<IbCcKeys>($($arg)?),
            CcMechanism::IbS1 => $then::<IbS1Keys>($($arg)?),
            CcMechanism::Drb => $then::<DrbCcKeys>($($arg)?),
            CcMechanism::Ddbbm => $then::<DdbbmCcKeys>($($arg)?),
        }
    }};
}

impl CcKeys {
    /// The keys of `cc.mechanism = kind` besides `enabled` and `mechanism`, read from its
    /// struct.
    pub fn keys_of(kind: &str) -> Option<&'static [&'static str]> {
        Some(cc_struct!(kind, fields_of))
    }

    /// serde's refusal of `table` (without `enabled` and `mechanism`) as the keys of `kind`,
    /// with the path inside it ([`super::kinds::KindTable::locate`]).
    pub fn locate(kind: &str, table: toml::Table) -> Option<(String, String)> {
        cc_struct!(kind, refusal, table)
    }

    /// The mechanism of this variant (`cc.mechanism`).
    pub fn mechanism(&self) -> CcMechanism {
        match self {
            CcKeys::Ib(_) => CcMechanism::Ib,
            CcKeys::IbS1(_) => CcMechanism::IbS1,
            CcKeys::Drb(_) => CcMechanism::Drb,
            CcKeys::Ddbbm(_) => CcMechanism::Ddbbm,
        }
    }
}

/// InfiniBand CC's keys at their defaults (its state is built and checked in every credit-level
/// run, whatever the mechanism).
static IB_DEFAULTS: std::sync::LazyLock<IbCcKeys> =
    std::sync::LazyLock::new(|| toml::from_str("").expect("the IB CC defaults"));

impl CcConfig {
    /// InfiniBand CC's keys: the scenario's under `cc.mechanism = "ib"`, the defaults under
    /// another mechanism (which takes none of them).
    pub fn ib(&self) -> &IbCcKeys {
        match &self.keys {
            CcKeys::Ib(k) => k,
            _ => &IB_DEFAULTS,
        }
    }

    /// The CNPs' size and VL (`cc.cnp_bytes`, `cc.cnp_vl`) of the CNP-sending mechanisms
    /// (`ib`, `ib_s1`, `drb`); the defaults under `ddbbm`.
    pub fn cnp(&self) -> (Bytes, Option<u32>) {
        match &self.keys {
            CcKeys::Ib(k) => (k.cnp_bytes, k.cnp_vl),
            CcKeys::IbS1(k) => (k.cnp_bytes, k.cnp_vl),
            CcKeys::Drb(k) => (k.cnp_bytes, k.cnp_vl),
            CcKeys::Ddbbm(_) => (IB_DEFAULTS.cnp_bytes, None),
        }
    }

    /// `cc.cnp_vl`.
    pub fn cnp_vl(&self) -> Option<u32> {
        self.cnp().1
    }

    /// The port monitor's buffer (`cc.mark_buffer`) under `ib_s1` and `drb`; `input` otherwise.
    pub fn mark_buffer(&self) -> MarkBuffer {
        match &self.keys {
            CcKeys::IbS1(k) => k.mark_buffer,
            CcKeys::Drb(k) => k.mark_buffer,
            _ => MarkBuffer::default(),
        }
    }
}

/// `[cc]` of `mechanism = "ib"`: the IBA's congestion control (spec §2).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IbCcKeys {
    /// Threshold weight 0–15 (0: never mark; 1 high threshold … 15 low), spec §2.2.2.
    #[serde(default = "default_threshold")]
    pub threshold: u32,
    /// Weight → fill mapping: `"sixteenths"` ((16 − w)/16) or `"fifteenths"` ((16 − w)/15).
    #[serde(default)]
    pub threshold_mapping: ThresholdMapping,
    /// Evaluation: `"per_voq"` (M1), `"sum"` (M2, \[Z\]), `"sum_divided"` (M3), spec §2.2.3.
    #[serde(default)]
    pub threshold_mode: ThresholdMode,
    /// Reset_Threshold weight for hysteresis (must exceed `threshold`); 0 = no hysteresis.
    #[serde(default = "default_reset_threshold")]
    pub reset_threshold: u32,
    /// Root test: available credits ≥ `"packet"` (a full packet) or ≥ `"one"` credit, spec §2.2.4.
    #[serde(default)]
    pub root_credits: RootCredits,
    /// Victim_Mask: true, false or `"host_ports"`.
    #[serde(default)]
    pub victim_mask: VictimMask,
    /// Eligible packets sent unmarked between two marked ones (spec §2.2.5).
    #[serde(default = "default_one")]
    pub marking_rate: u32,
    /// `"random"` geometric gaps with mean `marking_rate` (default) or a `"deterministic"` counter.
    #[serde(default)]
    pub marking: Marking,
    /// Packets smaller than this many credits are never marked.
    #[serde(default = "default_one")]
    pub packet_size: u32,
    /// CCTI raise per BECN.
    #[serde(default = "default_one")]
    pub ccti_increase: u32,
    /// Upper bound of CCTI.
    #[serde(default = "default_ccti_limit")]
    pub ccti_limit: u32,
    /// Lower bound of CCTI.
    #[serde(default)]
    pub ccti_min: u32,
    /// CCTI is lowered by one every `ccti_timer` (spec §2.3.2; \[Z\]: 20 µs).
    #[serde(default = "default_ccti_timer")]
    pub ccti_timer: Duration,
    /// `"restart"` (each BECN restarts the flow's timer, the model's text) or `"free_running"`
    /// (one periodic timer per port SL lowers every flow of the SL, the IBA's text).
    #[serde(default)]
    pub timer_mode: TimerMode,
    /// Reaction granularity: `"qp"` (per flow) or `"sl"` (per source HCA and SL).
    #[serde(default)]
    pub level: CcLevel,
    /// CNP size on the wire.
    #[serde(default = "default_cnp_bytes")]
    pub cnp_bytes: Bytes,
    /// The VL CNPs travel on (absent: the VL of the flow they are about, spec §2.3.1 \[A\]); with
    /// a high-priority entry in `switch.vl_arbitration.high` they overtake data in switches.
    #[serde(default)]
    pub cnp_vl: Option<u32>,
    /// The Congestion Control Table.
    #[serde(default)]
    pub cct: CctConfig,
    /// Overrides for switch ports facing HCAs.
    #[serde(default)]
    pub host_ports: CcPortOverrides,
    /// Overrides for switch ports facing switches.
    #[serde(default)]
    pub fabric_ports: CcPortOverrides,
}

/// `[cc]` of `mechanism = "ib_s1"`: the port monitor and the sources' IRD steps (drb-and-ddbbm
/// spec A.4).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IbS1Keys {
    /// the switch port monitor marks FECN on a packet leaving an input VL
    /// buffer filled above this fraction of its capacity (drb-and-ddbbm spec A.3.2, A.3.7: 0.8).
    #[serde(default = "default_mark_fraction")]
    pub mark_fraction: f64,
    /// the buffer the port monitor watches: the switch `"input"` VL buffer a
    /// packet leaves (default, spec A.10 item 7) or the `"output"` VL buffer it leaves
    /// (the option; needs `switch.output_buffer_credits`).
    #[serde(default)]
    pub mark_buffer: MarkBuffer,
    /// what the threshold applies to: the packet's `"vl"` buffer or the `"port"` (occupancy
    /// summed over its VLs against the port's total).
    #[serde(default)]
    pub mark_scope: MarkScope,
    /// the source's CCM timer (spec A.3.4, A.4: 100 µs).
    #[serde(default = "default_ccm_timer")]
    pub ccm_timer: Duration,
    /// how the sources' CCM timers are phased: `"global"` (one synchronous timer),
    /// `"per_flow_phase"` (per connection, free running, phase from the seed) or
    /// `"per_flow_restart"` (per connection, restarted by each notification).
    #[serde(default)]
    pub ccm_timer_mode: CcmTimerMode,
    /// notifications per step: DRB opens one more path, IBA_CC-S1 adds one
    /// `ird_step` (spec A.3.7, A.4: 10).
    #[serde(default = "default_notifications_per_step")]
    pub notifications_per_step: u32,
    /// the injection rate delay added per step and removed per quiet timer period
    /// (spec A.4: 5 µs).
    #[serde(default = "default_ird_step")]
    pub ird_step: Duration,
    /// CNP size on the wire.
    #[serde(default = "default_cnp_bytes")]
    pub cnp_bytes: Bytes,
    /// The VL CNPs travel on (absent: the VL of the flow they are about, spec §2.3.1 \[A\]); with
    /// a high-priority entry in `switch.vl_arbitration.high` they overtake data in switches.
    #[serde(default)]
    pub cnp_vl: Option<u32>,
}

/// `[cc]` of `mechanism = "drb"`: the port monitor and the sources' path expansion
/// (drb-and-ddbbm spec A.3); the multipath set-up is `[drb]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrbCcKeys {
    /// the switch port monitor marks FECN on a packet leaving an input VL
    /// buffer filled above this fraction of its capacity (drb-and-ddbbm spec A.3.2, A.3.7: 0.8).
    #[serde(default = "default_mark_fraction")]
    pub mark_fraction: f64,
    /// the buffer the port monitor watches: the switch `"input"` VL buffer a
    /// packet leaves (default, spec A.10 item 7) or the `"output"` VL buffer it leaves
    /// (the option; needs `switch.output_buffer_credits`).
    #[serde(default)]
    pub mark_buffer: MarkBuffer,
    /// what the threshold applies to: the packet's `"vl"` buffer or the `"port"` (occupancy
    /// summed over its VLs against the port's total).
    #[serde(default)]
    pub mark_scope: MarkScope,
    /// the source's CCM timer (spec A.3.4, A.4: 100 µs).
    #[serde(default = "default_ccm_timer")]
    pub ccm_timer: Duration,
    /// how the sources' CCM timers are phased: `"global"` (one synchronous timer),
    /// `"per_flow_phase"` (per connection, free running, phase from the seed) or
    /// `"per_flow_restart"` (per connection, restarted by each notification).
    #[serde(default)]
    pub ccm_timer_mode: CcmTimerMode,
    /// notifications per step: DRB opens one more path, IBA_CC-S1 adds one
    /// `ird_step` (spec A.3.7, A.4: 10).
    #[serde(default = "default_notifications_per_step")]
    pub notifications_per_step: u32,
    /// CNP size on the wire.
    #[serde(default = "default_cnp_bytes")]
    pub cnp_bytes: Bytes,
    /// The VL CNPs travel on (absent: the VL of the flow they are about, spec §2.3.1 \[A\]); with
    /// a high-priority entry in `switch.vl_arbitration.high` they overtake data in switches.
    #[serde(default)]
    pub cnp_vl: Option<u32>,
}

/// `[cc]` of `mechanism = "ddbbm"`: no keys besides `enabled` (DDBBM's are `[ddbbm]`'s).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DdbbmCcKeys {}
crate::choice! {
    /// How DDBBM's count of heavy sources is compared with NS (drb-and-ddbbm spec B.3.2).
    #[derive(Default)]
    pub enum NsCompare {
        /// More than NS heavy sources (spec §3.1 as written: "higher than the NS register").
        #[default]
        Greater = "greater",
        /// At least NS heavy sources.
        AtLeast = "at_least",
    }
}

crate::choice! {
    /// What DDBBM's Source Injection Threshold is a share of (drb-and-ddbbm spec B.3.2).
    #[derive(Default)]
    pub enum SitBase {
        /// `SIT/N` of the bytes received in the frame (ORB): the primary reading.
        #[default]
        Received = "received",
        /// `SIT/N` of what the node can receive in a frame (R_max · TF).
        Capacity = "capacity",
    }
}

crate::choice! {
    /// Where DDBBM's Q + 1 queues live (drb-and-ddbbm spec B.4).
    #[derive(Default)]
    pub enum DdbbmMapping {
        /// The switches' own Q DBBM queues plus one dynamic queue per port and VL (spec B.3.4).
        #[default]
        Queues = "queues",
        /// InfiniBand with no hardware change (spec B.4): SL_i ↔ VL_i, the source picks VL
        /// `SBV[d] ? Q : d mod Q`, one queue per VL, notifications on a management lane.
        VirtualLanes = "virtual_lanes",
    }
}

/// `[ddbbm]`: congestion detection at the destination end node, its notifications and the
/// sources' status bits (drb-and-ddbbm spec B.3; defaults B.8 and B.10).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DdbbmConfig {
    /// TF: the detection frame (spec B.10 #1: 10 µs).
    #[serde(default = "default_ddbbm_frame")]
    pub frame: Duration,
    /// DT: congestion when more than this fraction of R_max · TF arrived in a frame (0.95).
    #[serde(default = "default_ddbbm_dt")]
    pub dt: f64,
    /// LT: congestion ends when less than this fraction arrived (0.2).
    #[serde(default = "default_ddbbm_lt")]
    pub lt: f64,
    /// SIT: a source is heavy when it sent more than `SIT/N` of the base (6; 0 disables it).
    #[serde(default = "default_ddbbm_sit")]
    pub sit: f64,
    /// NS: heavy sources needed (1).
    #[serde(default = "default_one_u32")]
    pub ns: u32,
    /// `"greater"` (more than NS, default) or `"at_least"`.
    #[serde(default)]
    pub ns_compare: NsCompare,
    /// `"received"` (SIT of ORB, default) or `"capacity"` (SIT of R_max · TF).
    #[serde(default)]
    pub sit_base: SitBase,
    /// R_max, the most a node can receive (absent: its link's data rate less the flow-control
    /// packets its own offered sending puts on that link, spec B.3.2 warning 1).
    #[serde(default)]
    pub r_max: Option<BitRate>,
    /// Size of a notification packet (spec B.10 #10: 64 B).
    #[serde(default = "default_cnp_bytes")]
    pub notification_bytes: Bytes,
    /// The VL notifications travel on (absent: VL 0); give it a `switch.vl_arbitration.high`
    /// entry for the strict-priority control channel of spec B.3.3.
    #[serde(default)]
    pub notification_vl: Option<u32>,
    /// `"queues"` (default: the switches' Q + 1 queues) or `"virtual_lanes"` (spec B.4).
    #[serde(default)]
    pub mapping: DdbbmMapping,
}
impl Default for DdbbmConfig {
    fn default() -> Self {
        toml::from_str("").expect("ddbbm defaults")
    }
}
crate::choice! {
    /// How the alternative paths of DRB reach the switches (drb-and-ddbbm spec A.3.5).
    #[derive(Default)]
    pub enum PathMode {
        /// Mode 1: a packet carries its path index and follows the precomputed path of its
        /// (source, destination) pair (the default for reproducing S1).
        #[default]
        PerPair = "per_pair",
        /// Mode 2: one destination-rooted tree per LID alias, as the forwarding tables can
        /// hold (`credit/routing/multipath_routes.rs` `Trees`); disjointness is approximate and reported.
        IbFaithful = "ib_faithful",
    }
}

/// `[drb]`: the subnet manager's multipath set-up for DRB (drb-and-ddbbm spec A.3.1, A.3.2
/// start-up, A.3.5): link-disjoint paths per (source, destination) pair, one VL layer per path.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrbConfig {
    /// Compute the multipath routes at start-up (default false: one path, the forwarding
    /// tables, and nothing of `[drb]` is built).
    #[serde(default)]
    pub enabled: bool,
    /// MAX_PATHS: the most link-disjoint paths per pair, path 0 included (spec A.3.7: 4).
    #[serde(default = "default_drb_max_paths")]
    pub max_paths: u32,
    /// `"per_pair"` (default, spec A.3.5 mode 1) or `"ib_faithful"` (mode 2, one tree per alias).
    #[serde(default)]
    pub path_mode: PathMode,
    /// `"none"` (default: every packet takes the path the congestion management chooses) or
    /// `"round_robin"` (each flow's packets take its pair's paths in turn, with no feedback).
    #[serde(default)]
    pub spread: Spread,
    /// Eq. 1 with a path that has drawn no notification (spec A.3.3 singularity): `"plus_one"`
    /// (B + 1 smoothing, the default) or `"unnotified_first"` (only the paths with B = 0, in
    /// equal shares).
    #[serde(default)]
    pub zero_counts: ZeroCounts,
    /// The window of the notification counts B (spec A.3.3): `"reset"` (kept while expanded,
    /// cleared when back to one path) or `"halve"` (also halved every CCM timer period).
    #[serde(default)]
    pub counts: CountWindow,
    /// Eq. 1 is drawn per `"packet"` (spec A.3.2, the default) or per `"message"`.
    #[serde(default)]
    pub granularity: PathGranularity,
}
crate::choice! {
    /// Eq. 1's answer when some path has B = 0 (drb-and-ddbbm spec A.3.3).
    #[derive(Default)]
    pub enum ZeroCounts {
        /// ρ(x) ∝ 1/(B_x + 1).
        #[default]
        PlusOne = "plus_one",
        /// The paths with B = 0 share equally; the others get nothing (ρ ∝ 1/B once none is 0).
        UnnotifiedFirst = "unnotified_first",
    }
}
crate::choice! {
    /// How long DRB's notification counts last (drb-and-ddbbm spec A.3.3 "window for B").
    #[derive(Default)]
    pub enum CountWindow {
        /// Accumulate while expanded, clear on return to one path.
        #[default]
        Reset = "reset",
        /// As `reset`, and halved at every CCM timer expiry.
        Halve = "halve",
    }
}
crate::choice! {
    /// When DRB draws a flow's path (drb-and-ddbbm spec A.3.3 "granularity").
    #[derive(Default)]
    pub enum PathGranularity {
        /// For every packet.
        #[default]
        Packet = "packet",
        /// At each message's first packet; the message keeps it.
        Message = "message",
    }
}
impl Default for DrbConfig {
    fn default() -> Self {
        toml::from_str("").expect("drb defaults")
    }
}
fn default_drb_max_paths() -> u32 {
    4
}

crate::choice! {
    /// An oblivious spreading of packets over a pair's multipath routes (drb-and-ddbbm spec
    /// A.3.5 routes without A.3.3's feedback): for checking the routes and as a reference.
    #[derive(Default)]
    pub enum Spread {
        /// The congestion management's path choice (`path_for`; path 0 without a mechanism).
        #[default]
        None = "none",
        /// Each flow's packets take paths 0, 1, …, n − 1, 0, … of their pair in turn.
        RoundRobin = "round_robin",
    }
}

fn default_ddbbm_frame() -> Duration {
    Duration(10_000_000)
}
fn default_ddbbm_dt() -> f64 {
    0.95
}
fn default_ddbbm_lt() -> f64 {
    0.2
}
fn default_ddbbm_sit() -> f64 {
    6.0
}
fn default_one_u32() -> u32 {
    1
}

fn default_threshold() -> u32 {
    2
}
fn default_reset_threshold() -> u32 {
    3
}
fn default_ccti_limit() -> u32 {
    128
}
crate::choice! {
    /// Which switch buffer the DRB paper's port monitor watches (drb-and-ddbbm spec A.10 item 7).
    #[derive(Default)]
    pub enum MarkBuffer {
        /// The input VL buffer a packet leaves (the spec's default).
        #[default]
        Input = "input",
        /// The output VL buffer a packet leaves for the link (the option).
        Output = "output",
    }
}
crate::choice! {
    /// What the DRB paper's port monitor compares with its threshold (drb-and-ddbbm spec A.6
    /// "80 % of port buffer size", A.10 item 4).
    #[derive(Default)]
    pub enum MarkScope {
        /// The occupancy of the packet's VL buffer against that buffer's capacity (the spec's
        /// default).
        #[default]
        Vl = "vl",
        /// The occupancy summed over the port's VLs against the port's total capacity.
        Port = "port",
    }
}
crate::choice! {
    /// How the sources' CCM timers of the DRB paper's mechanisms are phased (drb-and-ddbbm spec
    /// A.3.4, A.4: one quiet timer period closes a DRB path or removes an IRD step).
    #[derive(Default)]
    pub enum CcmTimerMode {
        /// One synchronous timer for every connection, expiring at multiples of the period.
        #[default]
        Global = "global",
        /// Each connection's own free-running timer, offset by a phase drawn from the seed.
        PerFlowPhase = "per_flow_phase",
        /// Each connection's timer restarted by each notification: it expires a full quiet
        /// period after the last one, and every period after that.
        PerFlowRestart = "per_flow_restart",
    }
}
fn default_mark_fraction() -> f64 {
    0.8
}
fn default_ccm_timer() -> Duration {
    Duration(100_000_000)
}
fn default_notifications_per_step() -> u32 {
    10
}
fn default_ird_step() -> Duration {
    Duration(5_000_000)
}
crate::choice! {
    /// The congestion management `cc.enabled` turns on.
    #[derive(Default)]
    pub enum CcMechanism {
        /// The IBA's congestion control (ib-congestion-control spec §2: root/victim marking,
        /// CCTI, CCT).
        #[default]
        Ib = "ib",
        /// The DRB paper's IBA_CC baseline (drb-and-ddbbm spec A.4, "IBA_CC-S1"): the input
        /// port monitor, and sources that add `ird_step` of injection rate delay per
        /// `notifications_per_step` notifications and remove one per quiet CCM timer period.
        IbS1 = "ib_s1",
        /// DRB (drb-and-ddbbm spec A.3): the same monitor; sources open one more disjoint path
        /// per `notifications_per_step` notifications, spread packets by Eq. 1, close one path
        /// per quiet period; no throttling. Builds the multipath routes (`drb.enabled` implied).
        Drb = "drb",
        /// DDBBM's destination congestion detection (drb-and-ddbbm spec B.3, the `[ddbbm]`
        /// keys): end nodes detect that they are congested and notify their sources, whose
        /// packets to them then carry the congestion bit the switches' DDBBM queue scheme
        /// maps to its dynamic queue (`switch.queue_mapping = "ddbbm"`, required; that
        /// mapping alone switches the detection on too); nothing is throttled.
        Ddbbm = "ddbbm",
    }
}
fn default_ccti_timer() -> Duration {
    Duration(20_000_000)
}
fn default_cnp_bytes() -> Bytes {
    Bytes(64)
}
