//! What every scenario key is: its type, unit, default, allowed values or range, the model that
//! reads it, and what it means — the one source of `lnsim keys`, `lnsim schema` (a JSON Schema
//! of the scenario format), the README's configuration reference (checked by
//! `tests/config_reference.rs`) and the range check every scenario passes before anything is
//! built ([`check_ranges`]).
//!
//! Key paths are written as in the README: `traffic.flows[]` is an entry of the array of tables
//! `[[traffic.flows]]`; `<class>` stands for `host` or `fabric`; `<phase>` for `before` or
//! `after`; `sweep.<key path>` for any key of the free-form `[sweep]` table. The entries of
//! `[[traffic.transient.<phase>.mix]]` have the keys of `traffic.mix[]` ([`ALIASES`]).

use super::model::Model;
use super::schema::{AcorSequence, AcorVariant, LianCounters, LmcPath, OpensmEngine};
use super::schema::{
    Arrangement, BufferSharing, CcLevel, CcMechanism, CcmTimerMode, CctAlgorithm, CountWindow,
    DdbbmMapping, DestinationPer, DmodkDigits, DmodkKey, FlowControl, HotspotSplit, Injection,
    InjectionQueues, LinkMeasure, LinkSpeed, LinkWidth, MarkBuffer, MarkScope, Marking, NsCompare,
    OutputAdmission, PathGranularity, PathMode, PortNumbering, QueueMappingKind, RecomputeRetry,
    RootCredits, RouterFlowControl, RoutingAlgorithm, SinkCreditReturn, SitBase, Spread,
    StaticMode, Subset, ThresholdMapping, ThresholdMode, TimerMode, TopologyKind, VlbPolicy,
    ZeroCounts,
};
use super::schema::{QcnClock, QcnCompare, QcnSampling, QcnTrace, QcnVictim};
use super::units::{BitRate, Bytes, Duration, Frequency, PS_PER_S};
use crate::error::{Error, Result};

/// Largest duration any key accepts: one hour of simulated time (the latency histograms reach
/// one hour; every sum of two times stays far below 2^64 ps).
pub const MAX_DURATION_PS: u64 = 3600 * PS_PER_S;

/// Largest cycle count of the cycle-level model's cycle keys (10^12 cycles, about 17 minutes of
/// simulated time at 1 GHz, days of wall time).
pub const MAX_CYCLES: i64 = 1_000_000_000_000;

/// Largest latency of the cycle-level model, in cycles: the event calendar holds one slot per
/// cycle of the longest delay.
pub const MAX_LATENCY_CYCLES: i64 = 100_000;

/// Largest buffer or queue size of the cycle-level model, in phits.
pub const MAX_PHITS: i64 = 10_000_000;

/// The type of a key's value and what it allows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ValueKind {
    /// An integer in `min ..= max`.
    Int {
        /// Smallest value allowed.
        min: i64,
        /// Largest value allowed.
        max: i64,
    },
    /// A finite number in `min ..= max` (`min` itself excluded when `min_open`).
    Float {
        /// Lower bound.
        min: f64,
        /// Upper bound (included).
        max: f64,
        /// The lower bound is excluded.
        min_open: bool,
    },
    /// `true` or `false`.
    Bool,
    /// Free text (a name, a file path, a node name).
    Str,
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// A duration with a unit (`"5ns"`), at most `max_ps` picoseconds.
    Duration {
        /// Largest value in ps.
        max_ps: u64,
    },
    /// A size in bytes (`"2176B"`, `"64KiB"` or a bare integer) in `min ..= max`.
    Size {
        /// Smallest value in bytes.
        min: u64,
        /// Largest value in bytes.
        max: u64,
    },
    /// A data rate with a unit (`"13.5Gbps"`) in `min ..= max` bits per second.
    Rate {
        /// Smallest value in bit/s.
        min: u64,
        /// Largest value in bit/s.
        max: u64,
    },
    /// A frequency (`"800MHz"`) or transfer rate (`"5GT/s"`) in `min ..= max` Hz.
    Freq {
        /// Smallest value in Hz.
        min: u64,
        /// Largest value in Hz.
        max: u64,
    },
    /// A list of at most `max_len` integers, each in `min ..= max`.
    IntList {
        /// Smallest entry.
        min: i64,
        /// Largest entry.
        max: i64,
        /// Fewest entries.
        min_len: usize,
        /// Most entries.
        max_len: usize,
    },
    /// A list of at most `max_len` strings.
    StrList {
        /// Most entries.
        max_len: usize,
    },
    /// One of these names, or a list of node names.
    NodeSet(&'static [&'static str]),
    /// One HCA name or a list of HCA names.
    HcaNames,
    /// `true`, `false` or `"host_ports"`.
    VictimMask,
    /// A VL arbitration table: at most 64 `[vl, weight]` pairs, VL 0–14, weight 1–255.
    VlTable,
    /// A free-form table (`[sweep]`: key path → list of values).
    Table,
}

/// One scenario key.
#[derive(Debug, Clone, Copy)]
pub struct KeyInfo {
    /// Path as in the README (`sim.seed`, `traffic.flows[].src`, `links.<class>.width`).
    pub path: &'static str,
    /// Type and allowed values.
    pub kind: ValueKind,
    /// Unit of a plain number (`"cycles"`, `"phits"`, `"credits"`), empty if none.
    pub unit: &'static str,
    /// The default as users read it (`"1"`, `"\"5ms\""`, `"required"`, `"—"` for none).
    pub default: &'static str,
    /// The model that reads it (`None`: both).
    pub model: Option<Model>,
    /// Serde requires it inside its table.
    pub required: bool,
    /// What it means.
    pub doc: &'static str,
}

/// Tables whose entries are described by another table's keys: `(alias, original)`.
pub const ALIASES: &[(&str, &str)] = &[("traffic.transient.<phase>.mix[]", "traffic.mix[]")];

/// Tables a scenario must have even when all their keys are optional.
pub const REQUIRED_TABLES: &[&str] = &["sim", "topology", "traffic.transient.<phase>"];

/// What `<placeholder>` segments of a key path stand for.
pub const PLACEHOLDERS: &[(&str, &[&str])] = &[
    ("<class>", &["host", "fabric"]),
    ("<class>_ports", &["host_ports", "fabric_ports"]),
    ("<phase>", &["before", "after"]),
];

/// The lists that are sets, and what their entries are: each entry may appear once (a name
/// listed twice would count its node twice, e.g. in `fairness.jain`). [`check_ranges`]
/// refuses a repeated entry naming it; the JSON schema marks them `uniqueItems`.
pub const SETS: &[(&str, &str)] = &[
    ("traffic.hotspots", "terminal"),
    ("traffic.generators[].sources", "HCA"),
    ("traffic.generators[].destinations", "HCA"),
    ("traffic.generators[].hotspot", "HCA"),
    ("traffic.generators[].idle", "HCA"),
    ("stats.fairness_sources", "HCA"),
];

/// The patterns of `traffic.pattern`: the names of [`super::Pattern`] but the job permutations
/// of the credit-level generators (`shift`, `random_permutation`; checked by a test).
const CYCLE_PATTERNS: &[&str] = &[
    "uniform",
    "adv",
    "advl",
    "advc",
    "mix",
    "transient",
    "transpose",
    "bit_complement",
    "bit_reversal",
    "shuffle",
    "tornado",
    "neighbour",
    "hotspot",
];
/// The patterns of the credit-level model's generators: those of the widest geometry it builds,
/// a mesh or torus (checked against `traffic::geometry` by a test); a fat tree or a file
/// topology has `uniform`, `hotspot` and the bit permutations.
const GENERATOR_PATTERNS: &[&str] = &[
    "uniform",
    "transpose",
    "bit_complement",
    "bit_reversal",
    "shuffle",
    "tornado",
    "neighbour",
    "hotspot",
    "shift",
    "random_permutation",
];
/// The patterns of a mix component (all but `mix` and `transient`; checked against
/// [`super::Pattern`] by a test).
const STEADY_PATTERNS: &[&str] = &[
    "uniform",
    "adv",
    "advl",
    "advc",
    "transpose",
    "bit_complement",
    "bit_reversal",
    "shuffle",
    "tornado",
    "neighbour",
    "hotspot",
];
const PHASE_PATTERNS: &[&str] = &[
    "uniform",
    "adv",
    "advl",
    "advc",
    "mix",
    "transpose",
    "bit_complement",
    "bit_reversal",
    "shuffle",
    "tornado",
    "neighbour",
    "hotspot",
];

const CR: Option<Model> = Some(Model::Credit);
const CY: Option<Model> = Some(Model::Cycle);

const fn int(min: i64, max: i64) -> ValueKind {
    ValueKind::Int { min, max }
}
const fn dur() -> ValueKind {
    ValueKind::Duration {
        max_ps: MAX_DURATION_PS,
    }
}
const fn frac(min_open: bool) -> ValueKind {
    ValueKind::Float {
        min: 0.0,
        max: 1.0,
        min_open,
    }
}
const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;
const GIB: u64 = 1024 * 1024 * 1024;
const RATE: ValueKind = ValueKind::Rate {
    min: 1_000,
    max: 100_000_000_000_000,
};
const FREQ: ValueKind = ValueKind::Freq {
    min: 1_000_000,
    max: 100_000_000_000,
};
/// Buffer sizes of the credit-level model, in credits.
const CREDITS: ValueKind = int(1, 1_000_000);
/// Packets an input may feed through the crossbar at once.
const BEING_SENT: ValueKind = int(1, 1000);
/// An InfiniBand data VL.
const VL: ValueKind = int(0, 14);
/// A CC threshold weight.
const WEIGHT: ValueKind = int(0, 15);

macro_rules! key {
    ($path:expr, $kind:expr, $unit:expr, $default:expr, $model:expr, $doc:expr) => {
        KeyInfo {
            path: $path,
            kind: $kind,
            unit: $unit,
            default: $default,
            model: $model,
            required: false,
            doc: $doc,
        }
    };
    (required $path:expr, $kind:expr, $unit:expr, $model:expr, $doc:expr) => {
        KeyInfo {
            path: $path,
            kind: $kind,
            unit: $unit,
            default: "required",
            model: $model,
            required: true,
            doc: $doc,
        }
    };
}

/// Every key of the scenario format, in README order.
#[rustfmt::skip]
pub const KEYS: &[KeyInfo] = &[
    key!("scenario.name", ValueKind::Str, "", "file stem", None,
        "name; the default results folder is `results/<name>/` (one folder name: no `/` or `\\`, not `.`, `..` or empty)"),
    key!("scenario.description", ValueKind::Str, "", "—", None, "free text"),
    key!("sim.model", ValueKind::Choice(Model::ACCEPTED), "", "inferred: `cycle` with `sim.measure_cycles` or a Dragonfly, else `credit`", None,
        "the simulation model: `credit` (the credit-level model: event-driven, picosecond time, 64-byte credits) or `cycle` (the cycle-level model: phits and cycles); `infiniband`, the credit-level model's former name, is accepted too. A key of the other model is refused, naming the model it belongs to. Without it the model is inferred as shown, and `lnsim validate` says so"),
    key!("sim.end_time", dur(), "", "required (credit-level model)", CR,
        "simulated end time (`\"0.7s\"`); the cycle-level model uses `sim.warmup_cycles` + `sim.measure_cycles` instead"),
    key!("sim.seed", int(0, i64::MAX), "", "1", None,
        "master seed of every random stream (`--seed` overrides)"),
    key!("sim.interval", dur(), "", "`\"5ms\"`", CR, "statistics interval"),
    key!("sim.warmup", dur(), "", "`\"0s\"`", CR,
        "start of the \"after warm-up\" window; must be < `sim.end_time`"),
    key!("sim.warmup_cycles", int(0, MAX_CYCLES), "cycles", "0", CY,
        "cycles simulated before the measurement starts (Dragonfly spec §5: 60,000)"),
    key!("sim.measure_cycles", int(1, MAX_CYCLES), "cycles", "required (cycle-level model)", CY,
        "measured cycles after the warm-up (spec §5: 60,000). Without `sim.model`, giving it selects the cycle-level model"),
    key!("sim.saturation_queue_packets", ValueKind::Float { min: 0.0, max: 1e9, min_open: true }, "packets", "50", CY,
        "a point is saturated, and stops early, when the packets waiting at the sources exceed this many per node on average (the injection queues grow without bound)"),
    key!("sim.saturation_min_cycles", int(0, MAX_CYCLES), "cycles", "5000", CY,
        "a saturated point still measures at least this many cycles before it stops, so its accepted load is a steady-state figure"),
    key!("sim.allow_deadlock", ValueKind::Bool, "", "false", CR,
        "run even though the channel-dependency graph of the routes is cyclic (to study deadlock). Without it, `validate` and `run` refuse such a scenario (exit 2) naming the cycle; a run that then deadlocks writes its results and exits 3"),
    key!(required "topology.kind", ValueKind::Choice(TopologyKind::NAMES), "", None,
        "the fabric to build (`lnsim list` describes each); `dragonfly` runs on the cycle-level model only, `fat_tree`, `gran_testbed`, `file` and `ibnetdiscover` (a real InfiniBand fabric, docs/fabrics.md) on the credit-level model only"),
    key!("topology.dims", ValueKind::IntList { min: 1, max: 1_000_000, min_len: 1, max_len: 24 }, "switches", "required (mesh, torus)", None,
        "switches per dimension, `[rows, columns]` in 2D (`[3, 3, 3]` in 3D). Names `SW<r><c>`, HCAs `H<r><c><k>` (subscripts joined by `_` when a dimension exceeds 9); HCA LIDs in naming order; the cycle-level model takes at most 4096 routers per dimension"),
    key!("topology.hcas_per_switch", int(1, 4096), "", "required (mesh, torus)", None,
        "HCAs per switch (on ports 0 … k−1); a credit-level switch has at most 254 ports in all"),
    key!("topology.port_numbering", ValueKind::Choice(PortNumbering::NAMES), "", "`zeru` for 2D meshes, else `dimension`", None,
        "`zeru` is the port table of [Z] §3.3.1 (2D meshes only); `dimension` numbers per dimension the minus, then the plus neighbour"),
    key!("topology.k", int(1, 1024), "", "—", CR, "arity k of a k-ary n-tree"),
    key!("topology.n", int(1, 16), "", "—", CR, "levels n of a k-ary n-tree"),
    key!("topology.down", ValueKind::IntList { min: 1, max: 65535, min_len: 1, max_len: 16 }, "", "—", CR,
        "XGFT form: children per node at each level, bottom up (`down = [18, 36]`, `up = [1, 18]` is the 648-HCA two-level tree). HCAs `H1…`, switches `L<level>_<index>`"),
    key!("topology.up", ValueKind::IntList { min: 1, max: 65535, min_len: 1, max_len: 16 }, "", "—", CR,
        "XGFT form: parents per node at each level, bottom up (`up[0]` = 1)"),
    key!("topology.file", ValueKind::Str, "", "required (file, ibnetdiscover)", CR,
        "relative to the scenario. `ibnetdiscover`: the output of `ibnetdiscover` (switches, CAs, GUIDs, LIDs and LMC, width × speed per link; one endpoint per connected CA port; names from the node descriptions; docs/fabrics.md). `file`: an edge list (`switch NAME [ports=N]`, `hca NAME`, `link A B [rate=…] [speed=… width=…] [delay=…]`). Every `link` takes the next free port of each end; a self-loop (`link S1 S1`), a second link of an HCA, or more links on a switch than its `ports=N` (at most 254, the InfiniBand limit, also the default) are errors naming `file:line`"),
    key!("topology.p", int(1, 1024), "", "required (dragonfly)", CY,
        "terminals per router p (Dragonfly spec §1.1). Routers `G<g>R<i>`, terminals `N<t>` (terminal t on router t div p, groups of a routers)"),
    key!("topology.a", int(1, 1024), "", "2h (balanced: a = 2p = 2h)", CY,
        "routers per group"),
    key!("topology.h", int(1, 1024), "", "p", CY,
        "global links per router; the network has a·h + 1 groups (one global link per pair of groups)"),
    key!("topology.arrangement", ValueKind::Choice(Arrangement::NAMES), "", "`palmtree`", CY,
        "global link arrangement, `palmtree` (spec §1.1.2) or `consecutive`"),
    key!("links.<class>.width", ValueKind::Choice(LinkWidth::NAMES), "", "`4x`", CR,
        "link width in lanes"),
    key!("links.<class>.speed", ValueKind::Choice(LinkSpeed::NAMES), "", "host `SDR`, fabric `QDR`", CR,
        "lane speed: `SDR`, `DDR`, `QDR` (8b/10b), `FDR10`, `FDR`, `EDR`, `HDR`, `NDR`, `XDR` (64b/66b)"),
    key!("links.<class>.rate", RATE, "", "—", CR, "a data rate instead of width × speed"),
    key!("links.<class>.delay", dur(), "", "`\"5ns\"`", CR, "propagation delay"),
    key!("links.flow_control", ValueKind::Choice(FlowControl::NAMES), "", "`ideal`", CR,
        "how freed credits return upstream: `ideal` (one link delay, no bandwidth) or `packets` (flow-control packets on the reverse link between data packets, at most one per VL every `flow_control_interval`)"),
    key!("links.flow_control_bytes", ValueKind::Size { min: 1, max: 4096 }, "", "`\"6B\"`", CR,
        "`packets`: size of a flow-control packet on the wire (IBA: 4 bytes + 2-byte CRC)"),
    key!("links.flow_control_interval", dur(), "", "`\"0ns\"`", CR,
        "`packets`: least time between two flow-control packets of one VL on one link"),
    key!("switch.buffer_credits", CREDITS, "credits", "1000", CR,
        "input buffer per port and VL; shared by the port's virtual output queues"),
    key!("switch.vls", int(1, 15), "", "1", CR, "data VLs"),
    key!("switch.max_being_sent", BEING_SENT, "packets", "1", CR,
        "packets an input may feed through the crossbar at once"),
    key!("switch.core_freq", FREQ, "", "`\"800MHz\"`", CR, "the crossbar moves 2 × width bytes per cycle"),
    key!("switch.routing_delay", dur(), "", "`\"0ns\"`", CR, "head arrival → forwarding decision"),
    key!("switch.input_delay", dur(), "", "`\"0ns\"`", CR, "input buffer → output arbiter"),
    key!("switch.output_delay", dur(), "", "`\"0ns\"`", CR, "output arbiter → wire"),
    key!("switch.queue_mapping", ValueKind::Choice(QueueMappingKind::NAMES), "", "`voq`", CR,
        "queues of a switch input (spec B.2): `voq` (a queue per output, shared credits: the InfiniBand switch), `one_queue` (one FIFO per VL), `voq_sw` (a queue per output), `voq_net` (a queue per destination), `dbbm` (Q queues, destination mod Q), `ddbbm` (Q DBBM queues + 1 dynamic queue for packets with the congestion bit)"),
    key!("switch.dbbm_queues", int(0, 4096), "", "—", CR,
        "Q of `dbbm` and `ddbbm` (required by them, 1–4096; other mappings take only 0, \"none\")"),
    key!("switch.buffer_sharing", ValueKind::Choice(BufferSharing::NAMES), "", "`shared`", CR,
        "`shared` (one credit pool per input and VL) or `static` (a fixed space and a credit counter per queue; the upstream looks ahead at the next switch's queue; spec B.5)"),
    key!("switch.static_mode", ValueKind::Choice(StaticMode::NAMES), "", "`divided`", CR,
        "`static` only: `divided` (spec B.5 mode A: ⌊buffer / queues⌋ in whole packets, at least 1, 2 with `voq_net`), `split` (the buffer split exactly; under one packet per queue is an error) or `per_queue` (mode B: `queue_bytes` per queue)"),
    key!("switch.queue_bytes", ValueKind::Size { min: 1, max: GIB }, "", "—", CR,
        "`static_mode = \"per_queue\"` only (required there): bytes of every queue of a switch input (spec B.5 mode B: `\"1KiB\"`)"),
    key!("switch.output_buffer_credits", int(0, 1_000_000), "credits", "0", CR,
        "output buffer per port and VL (spec B.5: input and output buffers); 0 = none (the input-buffered switch). Split into one queue per credit counter of the input it drives (the VL with `buffer_sharing = \"shared\"`, each queue of the next input with `static`, sized as `static_mode` sizes the inputs'); the crossbar moves a packet into its queue when the queue has room, the link serves the non-empty queues by weighted round robin within each VL (`output_weights`, equal by default). Not with `cc.enabled = true`"),
    key!("switch.output_weights", ValueKind::IntList { min: 1, max: 255, min_len: 1, max_len: 65_536 }, "packets", "all 1", CR,
        "`output_buffer_credits` > 0 only: weighted round-robin weights of an output link among the output queues of a VL (spec B.5; default equal = round robin), one per queue, packets per turn: queue i of every port gets the i-th (the list's length must be the most queues per VL of an output port: 1 for `one_queue` or `buffer_sharing = \"shared\"`, the switch's ports for `voq_sw`, N for `voq_net`, Q for `dbbm`, Q + 1 for `ddbbm`, the dynamic queue last); a port with fewer queues (towards an HCA) uses the first ones"),
    key!("switch.vl_arbitration.high", ValueKind::VlTable, "", "`[]`", CR,
        "high-priority table `[[vl, weight], …]`, weights 1–255 in 64-byte units"),
    key!("switch.vl_arbitration.low", ValueKind::VlTable, "", "all VLs, weight 255", CR,
        "low-priority table"),
    key!("switch.vl_arbitration.high_limit", int(0, 255), "", "255", CR,
        "high-priority 4 KiB blocks before a low-priority packet must pass (255: unlimited)"),
    key!("switch.<class>_ports.max_being_sent", BEING_SENT, "packets", "—", CR,
        "override of `switch.max_being_sent` for input ports of that class (`switch.host_ports…`, `switch.fabric_ports…`)"),
    key!("switch.<class>_ports.buffer_credits", CREDITS, "credits", "—", CR,
        "override of `switch.buffer_credits` for input ports of that class"),
    key!("hca.buffer_credits", CREDITS, "credits", "1000", CR, "HCA receive buffer per VL"),
    key!("hca.core_freq", FREQ, "", "`\"250MHz\"`", CR, "the HCA moves 2 × width bytes per cycle"),
    key!("hca.max_tx_rate", RATE, "", "—", CR, "cap on each HCA's transmit rate"),
    key!("hca.injection_queues", ValueKind::Choice(InjectionQueues::NAMES), "", "`per_flow`", CR,
        "end-node injection model (drb-and-ddbbm spec B.5): `per_flow` (one queue per flow, round robin over the flows whose next packet has credits at the first switch) or `scheme` (the spec's Input Adapter: a message waits in its destination's admittance queue; round robin moves its packets into injection queues organised like a switch output port — one per credit counter of the first switch's input, i.e. per queue of `switch.queue_mapping` with `buffer_sharing = \"static\"` (VOQsw by look-ahead), per VL with `shared` — when the queue has room; weighted round robin sends the heads that find credits). `scheme` not with `cc.enabled = true` or `drb.enabled = true`"),
    key!("hca.injection_credits", int(1, 1_000_000), "credits", "`switch.output_buffer_credits`", CR,
        "`injection_queues = \"scheme\"` only: injection buffer per VL, divided among its queues as `switch.static_mode` divides a switch output buffer (whole with `buffer_sharing = \"shared\"`); required when `switch.output_buffer_credits` is 0; a queue under one packet is an error"),
    key!("hca.injection_weights", ValueKind::IntList { min: 1, max: 255, min_len: 1, max_len: 65_536 }, "packets", "all 1", CR,
        "`injection_queues = \"scheme\"` only: weighted round-robin weights of the injection queues of a VL, one per queue (packets per turn; the list's length must be the number of queues per VL: 1 for `one_queue`, the first switch's ports for `voq_sw`, N for `voq_net`, Q for `dbbm`, Q + 1 for `ddbbm`)"),
    key!("hca.sink.pcie_lanes", int(1, 64), "", "—", CR,
        "with `pcie_rate`: the sink drains at lanes × rate × 8/10 ÷ 1.05 (absent: unlimited)"),
    key!("hca.sink.pcie_rate", FREQ, "", "—", CR, "PCIe transfer rate per lane, e.g. `\"2.5GT/s\"`"),
    key!("hca.sink.drain_rate", RATE, "", "—", CR, "a drain rate instead of PCIe parameters"),
    key!("hca.sink.hiccup_on", dur(), "", "`\"0ns\"`", CR, "pause of each hiccup period (nothing drains)"),
    key!("hca.sink.hiccup_off", dur(), "", "`\"0ns\"`", CR, "draining part of each hiccup period"),
    key!("hca.sink.credit_return", ValueKind::Choice(SinkCreditReturn::NAMES), "", "`packet`", CR,
        "when the sink returns a packet's credits: `packet` (all once it has drained) or `credit` (each as its 64 bytes have arrived and drained)"),
    key!("routing.algorithm", ValueKind::Choice(RoutingAlgorithm::NAMES), "", "by topology: `dor` (mesh/torus), `dmodk` (fat tree), `updown` (others); required for a Dragonfly", None,
        "`dor` (x = column first, then rows; tori the short way), `dmodk`, `updown`, `lft_file`, `lft_dump` (a real fabric's tables, with `topology.kind = \"ibnetdiscover\"`), `opensm` (the tables OpenSM's `routing.engine` computes); cycle-level model: `dor` or `vlb` on meshes/tori, and on a Dragonfly `min` (Dragonfly spec §3.1), `vlb` (Valiant, §3.2; on meshes/tori DOR to a random intermediate router, then DOR), `ugal` (UGAL with source-router queues, §3.5, Eq. 2-1), `pb` (Piggyback, §3.6), `acor` (ACOR, §3.7), `pb_acor` (PB-ACOR, §3.8), `tpr` (TPR as the thesis implements it, §3.9), `lian` (LIAN, §3.10)"),
    key!("routing.file", ValueKind::Str, "", "—", CR,
        "forwarding tables, relative to the scenario. `lft_file`: one line per switch `NAME: 255 p1 p2 …` (entry i = output port for LID i, 255 = none); `lft_dump`: `ibroute`, `dump_lfts.sh`/`dump_fts` or OpenSM `opensm-lfts.dump` output, matched to the `ibnetdiscover` fabric by switch GUID (docs/fabrics.md)"),
    key!("routing.vlb_policy", ValueKind::Choice(VlbPolicy::NAMES), "", "`lgl`", CY,
        "Valiant phase-A policy on a Dragonfly (spec §3.0.2)"),
    key!("routing.valiant_source_group", ValueKind::Bool, "", "false", CY,
        "may an inter-group packet pick its Valiant intermediate in its own group (spec A17, FOGSim SRCEXC)? Intra-group packets always stay in their group (RVLB, §3.3)"),
    key!("routing.vlb_restricted", ValueKind::Bool, "", "true", CY,
        "restricted VLB (spec §3.3): an intra-group packet draws its Valiant intermediate in its own group; false: anywhere, as an inter-group packet (plain VLB/PB)"),
    key!("routing.recompute", ValueKind::Bool, "", "false; true for `lian` (spec A16)", CY,
        "recomputation (spec §3.4): a Valiant-routed packet at the head of an injection queue whose first hop is blocked (lost the output, or the output had no room) draws a new intermediate (pb, tpr, lian: UGAL decides again; lian keeps its phase-A policy unless `routing.lian.recompute_policy`) every cycle until it leaves the injection buffer"),
    key!("routing.acor.variant", ValueKind::Choice(AcorVariant::NAMES), "", "`switch`", CY,
        "(spec §3.7) the level is kept per router (`switch`, ACOR-Switch, with hysteresis) or per packet (`packet`, ACOR-Packet: level 1, one level up per blocked re-routing)"),
    key!("routing.acor.sequence", ValueKind::Choice(AcorSequence::NAMES), "", "`3L`", CY,
        "phase-A policy per level (Table 5-2): `3L` = -g-, -gl, lgl; `2L-A` = -g-, lgl; `2L-B` = -gl, lgl"),
    key!("routing.acor.hysteresis_cycles", int(1, MAX_CYCLES), "cycles", "500", CY,
        "ACOR-Switch: hysteresis interval HI (Table 5-3: 500 ns); a level falls only at the end of an interval"),
    key!("routing.acor.it1", int(1, 1_000_000_000), "re-routings", "15", CY,
        "ACOR-Switch: blocked re-routings at a router within an interval that raise level 1 (IT1, Table 5-3)"),
    key!("routing.acor.it2", int(1, 1_000_000_000), "re-routings", "500 (`acor`), 50 (`pb_acor`)", CY,
        "ACOR-Switch, `3L`: blocked re-routings that raise level 2 (IT2, Table 5-3)"),
    key!("routing.acor.dt1", int(0, 1_000_000_000), "re-routings", "5", CY,
        "ACOR-Switch: level 2 falls at the end of an interval with at most this many blocked re-routings (DT1, Table 5-3)"),
    key!("routing.acor.dt2", int(0, 1_000_000_000), "re-routings", "15", CY,
        "ACOR-Switch, `3L`: level 3 falls at the end of an interval with at most this many (DT2, Table 5-3)"),
    key!("routing.tpr.window_cycles", int(1, 1_000_000), "cycles", "200", CY,
        "(spec §3.9, Table 6-1) history window HW of the counters of packets the router injected towards each group (sliding)"),
    key!("routing.tpr.li_low", ValueKind::Float { min: 0.0, max: 1e9, min_open: false }, "packets/window", "3", CY,
        "LI_l; the destination group's counter below it is benign (T = `t_benign`)"),
    key!("routing.tpr.li_high", ValueKind::Float { min: 0.0, max: 1e9, min_open: false }, "packets/window", "5", CY,
        "LI_h (≥ LI_l); up to it mixed (T = `t_mix`), above it adversarial (T = `t_adversarial`)"),
    key!("routing.tpr.t_benign", int(-1_000_000, 1_000_000), "packets", "150", CY,
        "UGAL threshold T of Eq. 2-1 for benign traffic"),
    key!("routing.tpr.t_mix", int(-1_000_000, 1_000_000), "packets", "-30", CY,
        "T for mixed traffic"),
    key!("routing.tpr.t_adversarial", int(-1_000_000, 1_000_000), "packets", "-150", CY,
        "T for adversarial traffic"),
    key!("routing.lian.window_cycles", int(1, 1_000_000), "cycles", "200", CY,
        "(spec §3.10, Table 6-1; under a routing other than `lian`, only with the counter observer `stats.group_counters`) history window HW of inj_i (sliding)"),
    key!("routing.lian.counters", ValueKind::Choice(LianCounters::NAMES), "", "`extended`", CY,
        "counter model (spec §3.10.1, Fig 6-7): `extended` = inj + w·stor (Eq. 6-1), `injected` = inj (w = 0), `stored` = stor"),
    key!("routing.lian.w", ValueKind::Float { min: 0.0, max: 1e6, min_open: false }, "", "0.1", CY,
        "`extended` counters: weight w of the packets stored in the injection queues (Eq. 6-1; 1 gives the w = 1 model)"),
    key!("routing.lian.li_low", ValueKind::Float { min: 0.0, max: 1e9, min_open: false }, "packets/window", "3", CY,
        "LI_l; the destination group's counter below it is benign (T = `t_benign`)"),
    key!("routing.lian.li_high", ValueKind::Float { min: 0.0, max: 1e9, min_open: false }, "packets/window", "5", CY,
        "LI_h (≥ LI_l); up to it mixed, above it adversarial"),
    key!("routing.lian.t_benign", int(-1_000_000, 1_000_000), "packets", "150", CY,
        "UGAL threshold T of Eq. 2-1 for benign traffic"),
    key!("routing.lian.t_mix", int(-1_000_000, 1_000_000), "packets", "-30", CY,
        "T for mixed traffic"),
    key!("routing.lian.t_adversarial", int(-1_000_000, 1_000_000), "packets", "-150", CY,
        "T for adversarial traffic"),
    key!("routing.lian.gcs_th", ValueKind::Float { min: 0.0, max: 1e9, min_open: false }, "packets/window", "5", CY,
        "GCSth; a global counter above it is saturated (spec §3.10.2)"),
    key!("routing.lian.sgc_th", int(0, 64), "counters", "3", CY,
        "SGCth; more saturated counters than this among the groups of the router's own global links use l1 (spec §3.10.2, A7)"),
    key!("routing.lian.sgc_inclusive", ValueKind::Bool, "", "false", CY,
        "use l1 when at least SGCth counters are saturated (`≥`, the sensitivity reading of spec A7) instead of more than SGCth"),
    key!("routing.lian.ilc_th", ValueKind::Float { min: 0.0, max: 1e9, min_open: false }, "packets/window", "20", CY,
        "ILCth; an intermediate-local counter (Eq. 6-2) of the destination's offset above it uses l2 (spec §3.10.3)"),
    key!("routing.lian.recompute_policy", ValueKind::Bool, "", "false", CY,
        "with recomputation: a re-routed injection head chooses its phase-A policy again from the counters; false: keeps its first policy and draws a new intermediate (spec A16)"),
    key!("routing.qcn_switch.lf", ValueKind::Float { min: 0.0, max: 1.0, min_open: true }, "", "0.015625 (1/64)", CY,
        "QCN-Switch: L_f of Eq. 4-3; a notification with feedback Fb multiplies the port's minimal probability by 1 − L_f·Fb (Dragonfly spec §3.12.3, Table 4-3)"),
    key!("routing.qcn_switch.pc_limit_packets", int(1, 1_000_000_000), "packets", "100", CY,
        "QCN-Switch: PC_l; every this many packets switched to a transit port since its last notification raise its minimal probability by PI (§3.12.3)"),
    key!("routing.qcn_switch.pi", ValueKind::Float { min: 0.0, max: 100.0, min_open: true }, "percentage points", "1", CY,
        "QCN-Switch: PI, the additive increase of a minimal probability (§3.12.3)"),
    key!("routing.qcn_switch.feedback_comparison", ValueKind::Bool, "", "true", CY,
        "QCN-Switch: compare a notification's feedback with the router's mean last feedback Fb_avg over its transit ports: at most Fb_avg + Th1 raises the probability by PI, above Fb_avg + Th2 cuts it by 1 − L_f·(Fb − Fb_avg), in between nothing (§3.12.4; the final configuration)"),
    key!("routing.qcn_switch.th1", int(-64, 64), "", "0", CY, "QCN-Switch: Th1 of the feedback comparison (§3.12.4)"),
    key!("routing.qcn_switch.th2", int(-64, 64), "", "30", CY, "QCN-Switch: Th2 of the feedback comparison (§3.12.4)"),
    key!("routing.qcn_switch.source_processing", ValueKind::Bool, "", "false", CY,
        "QCN-Switch: a router that sends a notification also cuts its own minimal port towards the victim's destination, when that destination is in another group (§3.12.5; for `qcn.sampling = \"input\"`)"),
    key!("routing.qcn_switch.p_min", ValueKind::Float { min: 0.0, max: 100.0, min_open: false }, "percent", "0", CY,
        "QCN-Switch: floor of a minimal probability (FOGSim's `qcn_min_rate`)"),
    key!("routing.qcn_switch.compare", ValueKind::Choice(QcnCompare::NAMES), "", "`integer`", CY,
        "QCN-Switch: a packet misroutes when its random N ∈ 1…100 exceeds ⌊P⌋ (`integer`, FOGSim) or P (`real`)"),
    key!("routing.qcn_switch.trace", ValueKind::Choice(QcnTrace::NAMES), "", "`group0`", CY,
        "QCN-Switch: write every change of the minimal probabilities of group 0's routers to `qcn_probabilities.csv` (Fig 4-21), or `none`"),
    key!("qcn.sampling", ValueKind::Choice(QcnSampling::NAMES), "", "`output`", CY,
        "QCN congestion points (802.1Qau; Dragonfly spec §3.12.1) at the `output` buffers of transit ports (the final configuration) or at their `input` buffers. They run under `routing.algorithm = \"qcn_switch\"` or with `qcn.reaction_point`"),
    key!("qcn.q_eq_phits", int(1, MAX_PHITS), "phits", "20 % of `router.local_buffer_phits`", CY,
        "QCN: the equilibrium occupancy Q_eq of a sampled port (its data VCs together; Table 4-3: 20 % of a queue)"),
    key!("qcn.w", ValueKind::Float { min: 0.0, max: 100.0, min_open: false }, "", "0", CY,
        "QCN: w of Fb = −(Q_off + w·Q_δ) (Eq. 2-3; Table 4-3: 0)"),
    key!("qcn.cpc_packets", int(1, 1_000_000), "packets", "100", CY,
        "QCN: a congestion point samples one of every CPC packets entering its buffer (Table 4-3)"),
    key!("qcn.cnm_percent", int(0, 100), "percent", "30", CY,
        "QCN: share of samples with feedback Fb > 0 that send a notification (Table 4-3: %CNMs = 30 %)"),
    key!("qcn.sampling_clock", ValueKind::Choice(QcnClock::NAMES), "", "`cycles`", CY,
        "QCN: what the CPC counts: `cycles` (FOGSim, the thesis's simulator: the counter drops with every packet entering the buffer and every cycle, so a busy buffer is sampled every CPC cycles, at its next arrival or departure once due) or `packets` (data packets entering the sampled buffer only, Table 4-3's wording; docs/hpc-router.md says why the default is FOGSim's)"),
    key!("qcn.victim", ValueKind::Choice(QcnVictim::NAMES), "", "`random`", CY,
        "QCN: the packet whose source a notification goes to: `random` (occupancy sampling, a random packet of the sampled port), `head` (its oldest), `arrival` (the packet just sampled, standard QCN)"),
    key!("qcn.reaction_point", ValueKind::Bool, "", "false", CY,
        "QCN reaction points at the nodes: a rate limiter per node, cut by notifications, recovering by byte counter and timer (802.1Qau). Off in the thesis"),
    key!("qcn.rp.gd", ValueKind::Float { min: 0.0, max: 1.0, min_open: true }, "", "0.0078125 (1/128)", CY,
        "QCN reaction point: a notification multiplies the rate by 1 − G_d·Fb"),
    key!("qcn.rp.bc_limit_packets", int(1, 1_000_000_000), "packets", "150", CY,
        "QCN reaction point: byte-counter stage in packets sent (150 KB of 1,000-B packets)"),
    key!("qcn.rp.timer_cycles", int(1, MAX_CYCLES), "cycles", "15000000", CY,
        "QCN reaction point: timer stage (15 ms)"),
    key!("qcn.rp.fast_recovery_threshold", int(1, 1000), "stages", "5", CY,
        "QCN reaction point: stages of fast recovery before active increase"),
    key!("qcn.rp.r_ai", ValueKind::Float { min: 0.0, max: 1.0, min_open: false }, "of the link rate", "0.000125", CY,
        "QCN reaction point: active-increase step of the target rate"),
    key!("qcn.rp.r_hai", ValueKind::Float { min: 0.0, max: 1.0, min_open: false }, "of the link rate", "0.00125", CY,
        "QCN reaction point: hyper-active-increase step"),
    key!("qcn.rp.min_rate", ValueKind::Float { min: 0.0, max: 1.0, min_open: true }, "of the link rate", "0.00025", CY,
        "QCN reaction point: lowest rate"),
    key!("routing.ugal_threshold", int(-1_000_000, 1_000_000), "packets", "0", CY,
        "threshold T of Eq. 2-1 (may be negative; Table 3-1)"),
    key!("routing.pb_factor", int(0, 100_000), "percent", "120", CY,
        "factor F of Eq. 2-2 (Table 3-1)"),
    key!("routing.pb_threshold", int(0, 1_000_000), "packets", "5", CY,
        "threshold T of Eq. 2-2 (Table 3-1)"),
    key!("routing.dmodk_digits", ValueKind::Choice(DmodkDigits::NAMES), "", "`low_first`", CR,
        "up port at level l from the key HCA's digits (`routing.dmodk_key`) least significant first (⌊d / W_l⌋ mod up[l], spec B.6), `high_first` (most significant first) or `digit_sum` (the sum of digits l.. mod up[l])"),
    key!("routing.dmodk_key", ValueKind::Choice(DmodkKey::NAMES), "", "`destination`", CR,
        "whose digits choose the up ports: `destination` (D-mod-k, tables per DLID) or `source` (S-mod-k: one fixed route per (source, destination) pair, the up ports from the source's digits, then the unique way down; spec B.6 \"deterministic routing\")"),
    key!("routing.engine", ValueKind::Choice(OpensmEngine::NAMES), "", "`minhop`", CR,
        "the OpenSM routing engine whose forwarding tables are computed (docs/opensm-routing.md): `minhop` (min-hop, path counters balance the ports), `updn` (up/down from ranked roots), `dor` (min-hop, lowest dimension first), `ftree` (fat-tree, balanced port groups), `dfsssp` (shortest paths on route-count weights, each source-destination pair on a VL layer that keeps every layer deadlock-free; needs `switch.vls` ≥ the layers), `sssp` (the same routes on one VL, not deadlock-free)"),
    key!("routing.roots", ValueKind::StrList { max_len: 65_536 }, "", "—", CR,
        "engines `updn` and `ftree`: root switches by name (OpenSM's `root_guid_file`); absent: `updn` detects them from the hop histogram, `ftree` ranks from the HCAs' leaf switches"),
    key!("routing.lmc", int(0, 7), "", "0", CR,
        "LID Mask Control (OpenSM's `lmc`): every HCA answers 2^lmc consecutive LIDs, aligned, each routed by the engine (`ftree` refuses more than 0, as OpenSM does)"),
    key!("routing.lmc_path", ValueKind::Choice(LmcPath::NAMES), "", "`base`", CR,
        "which of a destination's LIDs a source sends to: `base` (every packet to the base LID), `source` (offset = source HCA index mod the LID count, fixed per source), `message` (round robin per message of a flow); `opensm` and `lft_dump`"),
    key!("routing.vc_template", ValueKind::StrList { max_len: 64 }, "", "the routing's own (spec §3.0.3)", CY,
        "explicit hop-type template for VC assignment, a list such as `[\"L0\", \"G0\", \"L1\"]`; the channel-dependency check refuses a cyclic one"),
    key!("routing.dateline", ValueKind::Bool, "", "true", CY,
        "on a torus: dateline VC classes; false uses one class and deadlocks, so the channel-dependency check refuses it"),
    key!("traffic.credit_bytes", ValueKind::Size { min: 1, max: 64 * KIB }, "", "`\"64B\"`", CR, "credit size"),
    key!("traffic.mtu_credits", int(1, 65_536), "credits", "34", CR, "MTU"),
    key!("traffic.packet_bytes", ValueKind::Size { min: 1, max: MIB }, "", "`\"2176B\"`", CR,
        "packet size on the wire; must fit the MTU"),
    key!("traffic.payload_bytes", ValueKind::Size { min: 1, max: MIB }, "", "`\"2048B\"`", CR,
        "payload per packet (messages are `message_bytes` of payload)"),
    key!("traffic.message_bytes", ValueKind::Size { min: 1, max: GIB }, "", "`\"65536B\"`", CR,
        "message size; generators pick a destination per message"),
    key!("traffic.pattern", ValueKind::Choice(CYCLE_PATTERNS), "", "`uniform`", CY,
        "destination pattern (Dragonfly spec §4): `uniform`, `adv` (ADV+`shift`), `advl`, `advc`, `mix`, `transient`, `hotspot`; meshes/tori also `transpose`, `bit_complement`, `bit_reversal`, `shuffle`, `tornado`, `neighbour` (`lnsim list` describes each)"),
    key!("traffic.load", frac(true), "phits/node/cycle", "required (cycle-level model), unless both transient phases give `load`", CY,
        "offered load; Bernoulli injection (spec §4.1)"),
    key!("traffic.shift", int(-1_000_000, 1_000_000), "groups", "—", CY,
        "group offset i of ADV+i (may be negative)"),
    key!("traffic.packet_phits", int(1, 10_000), "phits", "10", CY,
        "packet size (Table 3-1: 10 phits = 250 B)"),
    key!("traffic.hotspots", ValueKind::IntList { min: 0, max: 10_000_000, min_len: 0, max_len: 100_000 }, "", "—", CY,
        "pattern `hotspot`: the hot terminals (list of indices)"),
    key!("traffic.hotspot_fraction", frac(false), "", "0.1", CY,
        "pattern `hotspot`: fraction of packets sent to a hot terminal (the rest is uniform)"),
    key!(required "traffic.mix[].pattern", ValueKind::Choice(STEADY_PATTERNS), "", CY,
        "pattern `mix`: a component pattern (any steady pattern, not `mix` or `transient`)"),
    key!("traffic.mix[].shift", int(-1_000_000, 1_000_000), "groups", "—", CY,
        "ADV+i offset of an `adv` component"),
    key!(required "traffic.mix[].fraction", frac(true), "", CY,
        "fraction of each node's packets that follow this component; the fractions add up to 1"),
    key!("traffic.transient.at_cycle", int(0, MAX_CYCLES), "cycles", "end of the warm-up", CY,
        "pattern `transient`: cycle at which the pattern and/or load change (spec §4.3: the spec's t = 0); `[traffic.transient.before]` and `[traffic.transient.after]` are both required"),
    key!(required "traffic.transient.<phase>.pattern", ValueKind::Choice(PHASE_PATTERNS), "", CY,
        "the steady pattern of the phase (not `transient`); with `mix`, its components are `[[traffic.transient.<phase>.mix]]` entries with the keys of `traffic.mix[]`"),
    key!("traffic.transient.<phase>.shift", int(-1_000_000, 1_000_000), "groups", "—", CY,
        "ADV+i offset of the phase for `adv`"),
    key!("traffic.transient.<phase>.load", frac(true), "phits/node/cycle", "`traffic.load`", CY,
        "offered load of the phase"),
    key!(required "traffic.flows[].src", ValueKind::Str, "", CR, "HCA name of the source of a static flow (one queue pair)"),
    key!(required "traffic.flows[].dst", ValueKind::Str, "", CR, "HCA name of the destination"),
    key!("traffic.flows[].start", dur(), "", "`\"0s\"`", CR, "start of the active interval"),
    key!("traffic.flows[].stop", dur(), "", "end", CR,
        "end of the active interval (a message in progress is finished)"),
    key!("traffic.flows[].injection", ValueKind::Choice(Injection::NAMES), "", "`flood`", CR,
        "`flood` (greedy), `bernoulli` (one message per host-link message slot with probability `load`) `poisson` (messages of `traffic.message_bytes` with exponential inter-arrival times at `load`/`rate`, queued at the source without bound: drb-and-ddbbm spec A.6) or `periodic` (the same at a fixed inter-arrival time, the first message at a phase within one gap drawn from the seed)"),
    key!("traffic.flows[].load", frac(true), "", "—", CR,
        "bernoulli, poisson, periodic: offered load as a fraction of the host link (wire bytes: packets × `traffic.packet_bytes`)"),
    key!("traffic.flows[].rate", RATE, "", "—", CR,
        "bernoulli, poisson, periodic: offered rate in wire bits, instead of `load` (e.g. `\"800Mbps\"` or `\"800bit/us\"`, bits per µs per node as in drb-and-ddbbm spec A.6); poisson and periodic may exceed the host link"),
    key!("traffic.flows[].vl", VL, "", "0", CR, "VL"),
    key!("traffic.flows[].job", ValueKind::Str, "", "—", CR,
        "the job the flow belongs to: `summary.json` `jobs.<name>` gives each job's throughput, latency and fairness (docs/tune.md)"),
    key!(required "traffic.generators[].sources", ValueKind::NodeSet(&["all", "others", "rest"]), "", CR,
        "`\"all\"`, `\"others\"` (HCAs that are not the source of a static flow), `\"rest\"` (HCAs that are not a source of a static flow or of an earlier generator: spec B.6's background senders), or a list of names (on an imported fabric also GUIDs: docs/fabrics.md), host ranges (`\"node[001-128]\"`, `\"hca[0-7,12]\"`) and host files (`\"@hosts.txt\"`, relative to the scenario)"),
    key!("traffic.generators[].destinations", ValueKind::NodeSet(&["all"]), "", "`\"all\"`", CR,
        "`\"all\"` or a list (a source never sends to itself)"),
    key!("traffic.generators[].source_fraction", frac(true), "", "—", CR, "keep this fraction of the sources"),
    key!("traffic.generators[].destination_fraction", frac(true), "", "—", CR,
        "keep this fraction of the destinations"),
    key!("traffic.generators[].subset", ValueKind::Choice(Subset::NAMES), "", "`every_other`", CR,
        "how fractions are picked: `every_other` (even spread in LID order) or `random` (seeded)"),
    key!("traffic.generators[].pattern", ValueKind::Choice(GENERATOR_PATTERNS), "", "`uniform`", CR,
        "destination pattern, named as in `traffic.pattern`: `uniform` over `destinations` (with `hotspot` and `hotspot_fraction`: a hot destination, also written `hotspot`), or a permutation (each source sends to its image; meshes and tori all, other topologies `bit_complement`, `bit_reversal`, `shuffle`); on any topology the job permutations `shift` (with `shift`) and `random_permutation` (seeded, no fixed point) over the generator's own sources"),
    key!("traffic.generators[].hotspot", ValueKind::HcaNames, "", "—", CR,
        "with `hotspot_fraction`: the HCA (or list of HCAs) that receives that fraction of the messages"),
    key!("traffic.generators[].hotspot_fraction", frac(false), "", "—", CR,
        "fraction of the messages sent to `hotspot`; at 1 the hot HCAs are never among the generator's sources (spec B.6)"),
    key!("traffic.generators[].hotspot_split", ValueKind::Choice(HotspotSplit::NAMES), "", "`message`", CR,
        "several hotspots: each message picks one (`message`) or each source is bound to one, sources dealt round-robin in LID order (`source`, spec B.6 #5B)"),
    key!("traffic.generators[].injection", ValueKind::Choice(Injection::NAMES), "", "`flood`", CR,
        "`flood`, `bernoulli`, `poisson` or `periodic` (as `traffic.flows[].injection`: exponential or fixed inter-arrival times, unbounded source queue, drb-and-ddbbm spec A.6)"),
    key!("traffic.generators[].load", frac(true), "", "—", CR,
        "bernoulli, poisson, periodic: offered load per source as a fraction of its host link (wire bytes)"),
    key!("traffic.generators[].rate", RATE, "", "—", CR,
        "bernoulli, poisson, periodic: offered rate per source in wire bits (`\"800bit/us\"` = `\"800Mbps\"`: drb-and-ddbbm spec A.6's bits/µs per node); poisson and periodic may exceed the host link"),
    key!("traffic.generators[].start", dur(), "", "`\"0s\"`", CR, "start of the active interval"),
    key!("traffic.generators[].stop", dur(), "", "end", CR, "end of the active interval"),
    key!("traffic.generators[].destination_per", ValueKind::Choice(DestinationPer::NAMES), "", "`message`", CR,
        "new destination every `message` or every `packet`"),
    key!("traffic.generators[].idle", ValueKind::StrList { max_len: 10_000_000 }, "", "`[]`", CR,
        "HCAs removed from `sources`"),
    key!("traffic.generators[].vl", VL, "", "0", CR, "VL"),
    key!("traffic.generators[].shift", int(-1_000_000, 1_000_000), "", "—", CR,
        "pattern `shift`: the offset k; the job's sources in LID order, source i sends to source i + k (mod their number)"),
    key!("traffic.generators[].job", ValueKind::Str, "", "—", CR,
        "the job the generator belongs to (several generators and flows may share one): `summary.json` `jobs.<name>` gives its throughput (`rx_gbps_window`: data received by its flows over the fairness window), mean latency and Jain's index over its sources; `lnsim run` prints them"),
    key!("stats.buffer_occupancy", ValueKind::Bool, "", "true", CR, "write `buffers.csv` (switch input buffers) and, with `switch.output_buffer_credits` > 0, `output_buffers.csv` (every output queue)"),
    key!("stats.fairness_sources", ValueKind::StrList { max_len: 10_000_000 }, "", "flows into the busiest destination", CR,
        "HCAs whose flows `fairness.jain` compares"),
    key!("stats.fairness_from", dur(), "", "`sim.warmup`", CR, "start of the fairness window"),
    key!("stats.links", ValueKind::Bool, "", "false", CR,
        "write `links.csv` (`t_start_s,from,port,to,bytes,mbps`): data bytes every switch output (switch → switch and switch → HCA link direction) started to send per `sim.interval`, and their rate in Mbit/s = bits/µs (drb-and-ddbbm spec A.7: per-link throughput over time); one line per link and interval, so the file can be large"),
    key!("stats.hotspot", ValueKind::Str, "", "—", CR,
        "the hot HCA of a hot-spot experiment (drb-and-ddbbm spec A.6, A.8 R-A8): `summary.json` `hotspot.peak_link_mbps` is the highest per-interval throughput (data, Mbit/s = bits/µs) on the links into that HCA's switch from neighbouring switches and the switch → HCA link (on a 2D torus the five links into the hot destination), over the intervals that end after `stats.hotspot_from` (the one containing it included); `hotspot.links` lists them with their own peaks"),
    key!("stats.link_measure", ValueKind::Choice(LinkMeasure::NAMES), "", "`wire`", CR,
        "what `links.csv` and `hotspot.*` count per link and interval (needs `stats.links` or `stats.hotspot`): `wire` (the data bytes the link starts to send in the interval: at most its capacity, ± one packet) or `routed` (the data bytes injected in the interval whose path crosses the link, counted in the interval of their injection: the demand routed over it, not bounded by its capacity; packets still in flight at the end are not counted)"),
    key!("stats.hotspot_window", dur(), "", "—", CR,
        "also report the hot spot's peak over a sliding mean of this length (a multiple of `sim.interval`; needs `stats.hotspot`): `hotspot.peak_window_mbps` and each link's `peak_window_mbps`"),
    key!("stats.hotspot_from", dur(), "", "earliest `start` of a generator sending only to `stats.hotspot`, else `sim.warmup`", CR,
        "start of the hot-spot peak search (before `sim.end_time`; needs `stats.hotspot`)"),
    key!("stats.bin_cycles", int(1, MAX_CYCLES), "cycles", "1000", CY,
        "width of the time bins of `bins.csv` (latency, accepted load and misrouted fraction over time)"),
    key!("stats.group_counters", ValueKind::Bool, "", "false", CY,
        "Dragonfly only: keep LIAN's per-router group counters (Eq. 6-1 extended inj + w·stor per destination group, and the intermediate-local counters IL_{−k} of Eq. 6-2; spec §3.10) under any `routing.algorithm`, without changing a decision, with LIAN's counter keys `routing.lian.window_cycles`, `counters`, `w` (which may then be set with any routing); sampled at the end of every window of `window_cycles` cycles and written to `group_counters.csv` (`start_cycle,end_cycle,router,name,samples,il_m1`…`il_m<h>`,`g_mean,g_max`: per `stats.bin_cycles` bin and router, the mean over the bin's samples) and `summary.json` `group_counters` (window means: `il_mean`, `il_max`, `il_plus_mean`, `g_mean`, `g_max`); values in packets per window summed over the router's injection ports (the thesis's \"phits/interval\", spec §3.10.1 units note)"),
    key!("sweep.<key path>", ValueKind::Table, "", "—", None,
        "`lnsim sweep`: a list of values per key path (e.g. `\"cc.marking_rate\" = [1, 10]`); the sweep runs the Cartesian product. `lnsim run` ignores this table"),
    key!("cc.enabled", ValueKind::Bool, "", "false", CR,
        "InfiniBand congestion control on/off (`--set cc.enabled=true` on any scenario). The outputs then add `ccti.csv` (`t_start_s,src,dst,vl,ccti_end,ccti_max`: CCTI per throttled flow per interval), `cc_ports.csv` (`switch,port,vl,fecn_marks,congested_s`), `summary.json` `cc.{fecn_marks,cnps_sent,cnps_received,max_ccti,throttled_s}`, `nodes.<name>.cnps_sent/cnps_received` and `throttled_s` per flow"),
    key!("cc.mechanism", ValueKind::Choice(CcMechanism::NAMES), "", "`ib`", CR,
        "what `cc.enabled` turns on: `ib` (the IBA's CC: the `cc.*` keys below), `ib_s1` (the DRB paper's IBA_CC baseline, drb-and-ddbbm spec A.4: input-buffer monitor, IRD + `cc.ird_step` per `cc.notifications_per_step` notifications, − one step per quiet `cc.ccm_timer`, one path), `drb` (spec A.3: the same monitor, one more link-disjoint path per `cc.notifications_per_step` notifications up to `drb.max_paths`, packets spread by Eq. 1, one path closed per quiet timer period, no throttling; builds the multipath routes, `drb.enabled` implied) or `ddbbm` (spec B.3: DDBBM's destination detection with the `ddbbm.*` keys; needs `switch.queue_mapping = \"ddbbm\"`, which alone, with `cc.enabled = false`, switches the detection on as well; adds `summary.json` `ddbbm.*` and `ddbbm.csv`). `ib_s1`/`drb` add `summary.json` `monitor.*`, `drb.*`/`throttle.*`, `monitor_ports.csv` and `drb_paths.csv`/`ird.csv` per interval"),
    key!("cc.mark_fraction", frac(true), "", "0.8", CR,
        "the port monitor marks FECN on a packet leaving a switch input VL buffer whose occupancy (the packet included) exceeds this fraction of the buffer (spec A.3.2)"),
    key!("cc.mark_buffer", ValueKind::Choice(MarkBuffer::NAMES), "", "`input`", CR,
        "the buffer the port monitor watches: `input` (the switch input VL buffer a packet leaves, spec A.10 item 7) or `output` (the output VL buffer it leaves for the link; needs `switch.output_buffer_credits`)"),
    key!("cc.mark_scope", ValueKind::Choice(MarkScope::NAMES), "", "`vl`", CR,
        "what `cc.mark_fraction` applies to (`ib_s1`, `drb`; spec A.6 \"80 % of port buffer size\"): `vl` (the occupancy of the packet's VL buffer against its capacity) or `port` (the occupancy summed over the port's VLs against the port's total capacity), of the buffer `cc.mark_buffer` names"),
    key!("cc.ccm_timer", dur(), "", "`\"100us\"`", CR,
        "the sources' CCM timer: a period without notifications closes one DRB path or removes one IRD step (spec A.3.4, A.4)"),
    key!("cc.ccm_timer_mode", ValueKind::Choice(CcmTimerMode::NAMES), "", "`global`", CR,
        "how the sources' CCM timers run (`ib_s1`, `drb`): `global` (one synchronous timer for every connection, expiring at multiples of `cc.ccm_timer`), `per_flow_phase` (each connection's own free-running timer, offset by a phase drawn from the seed) or `per_flow_restart` (each connection's timer restarted by each notification: a path closes / an IRD step goes a full quiet period after the last notification, and one more per period after that)"),
    key!("cc.notifications_per_step", int(1, 1_000_000), "", "10", CR,
        "notifications per step (one more path; one more `cc.ird_step`)"),
    key!("cc.ird_step", dur(), "", "`\"5us\"`", CR,
        "injection rate delay per step: after a packet of the flow ends, its next may start IRD later (spec A.4)"),
    key!("cc.threshold", WEIGHT, "", "2", CR, "switch Threshold weight (0: never mark; 1 high … 15 low)"),
    key!("cc.threshold_mapping", ValueKind::Choice(ThresholdMapping::NAMES), "", "`sixteenths`", CR,
        "weight → fill level: `sixteenths` ((16 − w)/16: 2 → 87.5 %) or `fifteenths` ((16 − w)/15)"),
    key!("cc.threshold_mode", ValueKind::Choice(ThresholdMode::NAMES), "", "`sum`", CR,
        "`per_voq` (any VoQ's fill), `sum` (sum of the fills of the VoQs feeding the output, [Z]), `sum_divided` (sum against threshold ÷ contributing inputs)"),
    key!("cc.reset_threshold", WEIGHT, "", "3", CR,
        "Reset_Threshold weight for hysteresis (higher than `cc.threshold`); 0: none"),
    key!("cc.root_credits", ValueKind::Choice(RootCredits::NAMES), "", "`packet`", CR,
        "a port VL is a root if it has credits for a `packet` (or `one` credit); otherwise a victim"),
    key!("cc.victim_mask", ValueKind::VictimMask, "", "`\"host_ports\"`", CR,
        "Victim_Mask: true, false, or `\"host_ports\"` (set on switch ports facing HCAs)"),
    key!("cc.marking_rate", int(0, 1_000_000), "packets", "1", CR,
        "eligible packets sent unmarked between two FECN-marked ones"),
    key!("cc.marking", ValueKind::Choice(Marking::NAMES), "", "`random`", CR,
        "`random` (geometric gaps, mean `marking_rate`) or `deterministic` counter (which phase-locks with round-robin arbitration: `docs/calibration.md`)"),
    key!("cc.packet_size", int(0, 65_536), "credits", "1", CR, "packets under this size are never marked"),
    key!("cc.ccti_increase", int(0, 16_383), "", "1", CR, "CCTI raise per BECN"),
    key!("cc.ccti_limit", int(0, 16_383), "", "128", CR, "CCTI upper bound (the IBA's CCTI has 14 bits)"),
    key!("cc.ccti_min", int(0, 16_383), "", "0", CR, "CCTI lower bound"),
    key!("cc.ccti_timer", dur(), "", "`\"20us\"`", CR, "CCTI drops by one every `ccti_timer`"),
    key!("cc.timer_mode", ValueKind::Choice(TimerMode::NAMES), "", "`restart`", CR,
        "`restart` (a BECN restarts the flow's timer), `free_running` (periodic per source SL, every timer ticking at multiples of `ccti_timer`) or `free_running_phased` (the same, each source SL's timer with its own phase drawn from the seed)"),
    key!("cc.level", ValueKind::Choice(CcLevel::NAMES), "", "`qp`", CR,
        "reaction per flow (`qp`) or per source HCA and SL (`sl`)"),
    key!("ddbbm.frame", dur(), "", "`\"10us\"`", CR, "TF: DDBBM's detection frame (spec B.3.2)"),
    key!("ddbbm.dt", frac(true), "", "0.95", CR,
        "DT: congestion when a frame brings more than DT · R_max · TF bytes (and enough heavy sources)"),
    key!("ddbbm.lt", frac(false), "", "0.2", CR, "LT: congestion ends when a frame brings less than LT · R_max · TF"),
    key!("ddbbm.sit", ValueKind::Float { min: 0.0, max: 1e6, min_open: false }, "", "6", CR,
        "SIT: a source is heavy when it sent more than SIT/N of the base (`sit_base`); 0 disables it"),
    key!("ddbbm.ns", int(0, 1_000_000), "", "1", CR, "NS: heavy sources needed (compared as `ns_compare` says)"),
    key!("ddbbm.ns_compare", ValueKind::Choice(NsCompare::NAMES), "", "`greater`", CR,
        "`greater` (more than NS heavy sources, the paper's text) or `at_least`"),
    key!("ddbbm.sit_base", ValueKind::Choice(SitBase::NAMES), "", "`received`", CR,
        "SIT's base: `received` (the frame's ORB) or `capacity` (R_max · TF)"),
    key!("ddbbm.r_max", RATE, "", "link rate less its own sending's flow-control packets", CR,
        "R_max, the most an end node can receive (spec B.3.2 warning 1)"),
    key!("ddbbm.notification_bytes", ValueKind::Size { min: 1, max: MIB }, "", "`\"64B\"`", CR,
        "size of a DDBBM notification packet"),
    key!("ddbbm.notification_vl", int(0, 14), "", "0", CR,
        "VL of the notifications (give it a `switch.vl_arbitration.high` entry: the priority control channel)"),
    key!("ddbbm.mapping", ValueKind::Choice(DdbbmMapping::NAMES), "", "`queues`", CR,
        "`queues` (the switches' own Q + 1 queues per VL) or `virtual_lanes` (spec B.4: VL = SBV[d] ? Q : d mod Q, one queue per VL, notifications on a management lane)"),
    key!("drb.enabled", ValueKind::Bool, "", "false", CR,
        "DRB's multipath set-up by the subnet manager (drb-and-ddbbm spec A.3.1, A.3.5): up to `drb.max_paths` link-disjoint paths per (source, destination) pair, shortest first, path 0 the forwarding tables' route; each path on a VL layer that keeps its channel-dependency graph acyclic (the packet's VL is its path's layer). The other `drb.*` keys need it"),
    key!("drb.max_paths", int(1, 8), "", "4", CR,
        "MAX_PATHS: the most link-disjoint paths per pair, path 0 included (spec A.3.7)"),
    key!("drb.path_mode", ValueKind::Choice(PathMode::NAMES), "", "`per_pair`", CR,
        "`per_pair` (spec A.3.5 mode 1: link-disjoint paths per pair found by the shortest-first search; a packet carries its path index and follows its pair's path; path 0 follows the forwarding tables) or `ib_faithful` (mode 2: per destination one in-tree per LID alias, as one forwarding-table entry per DLID can express: alias 0 the tables' tree, alias k a shortest-path tree where links of earlier aliases' trees cost 2 extra hops; disjointness only approximate, `lnsim validate` reports it)"),
    key!("drb.spread", ValueKind::Choice(Spread::NAMES), "", "`none`", CR,
        "`none` (the congestion management's path choice: path 0 without one) or `round_robin` (each flow's packets take its pair's paths in turn, no feedback: for checking the routes)"),
    key!("drb.zero_counts", ValueKind::Choice(ZeroCounts::NAMES), "", "`plus_one`", CR,
        "Eq. 1 with paths that drew no notification (spec A.3.3): `plus_one` (ρ ∝ 1/(B + 1)) or `unnotified_first` (the paths with B = 0 share equally)"),
    key!("drb.counts", ValueKind::Choice(CountWindow::NAMES), "", "`reset`", CR,
        "window of the notification counts B: `reset` (cleared when back to one path) or `halve` (also halved every `cc.ccm_timer`)"),
    key!("drb.granularity", ValueKind::Choice(PathGranularity::NAMES), "", "`packet`", CR,
        "Eq. 1 drawn per `packet` (spec A.3.2) or per `message`"),
    key!("cc.cnp_bytes", ValueKind::Size { min: 1, max: MIB }, "", "`\"64B\"`", CR,
        "size of a congestion notification packet"),
    key!("cc.cnp_vl", int(0, 14), "", "the flow's VL", CR,
        "VL the CNPs travel on (below `switch.vls`; give it a `switch.vl_arbitration.high` entry to let CNPs overtake data in switches)"),
    key!("cc.cct.algorithm", ValueKind::Choice(CctAlgorithm::NAMES), "", "`quadratic`", CR,
        "Congestion Control Table: `quadratic` (IRD(i) = scale · (i/div)², the OMNeT++ InfiniBand-model generators' shape), `linear` (IRD(i) = i/div), `rate_linear` (rate(i) = 1 − i/div), `file`"),
    key!("cc.cct.div", ValueKind::Float { min: 0.0, max: 1e12, min_open: true }, "", "95 (`quadratic`), 25 (`linear`)", CR,
        "divisor of the generated tables: [Z]'s CCT_Div for `quadratic`; calibrated on [Z] C4 for the linear ones (`docs/calibration.md`)"),
    key!("cc.cct.scale", ValueKind::Float { min: 0.0, max: 1e6, min_open: true }, "", "3", CR,
        "with `quadratic`: IRD at CCTI = div, in packet times (fitted once on [Z] C4; the OMNeT++ generators' unfitted value is 3300/512 ≈ 6.45)"),
    key!("cc.cct.file", ValueKind::Str, "", "—", CR,
        "with `file`: one IBA entry per line, `multiplier shift` (IRD = multiplier · 2^−shift)"),
    key!("cc.<class>_ports.threshold", WEIGHT, "", "—", CR,
        "per-port-class override of `cc.threshold` (`cc.host_ports…`, `cc.fabric_ports…`)"),
    key!("cc.<class>_ports.victim_mask", ValueKind::Bool, "", "—", CR, "per-port-class override of `cc.victim_mask`"),
    key!("cc.<class>_ports.marking_rate", int(0, 1_000_000), "packets", "—", CR,
        "per-port-class override of `cc.marking_rate`"),
    key!("cc.<class>_ports.packet_size", int(0, 65_536), "credits", "—", CR,
        "per-port-class override of `cc.packet_size`"),
    key!("router.latency", int(1, MAX_LATENCY_CYCLES), "cycles", "90", CY,
        "port-to-port router latency of a packet head (Table 3-1: 90 ns)"),
    key!("router.speedup", int(1, 1000), "phits/cycle", "2", CY,
        "internal crossbar speed-up: phits per cycle a crossbar port moves (Table 3-1)"),
    key!("router.allocator_iterations", int(1, 64), "", "1", CY,
        "iterations of the input-first separable allocator per cycle (spec A18)"),
    key!("router.injection_queue_phits", int(1, MAX_PHITS), "phits", "5040", CY,
        "injection queue per node (Table 3-1: 126 KB)"),
    key!("router.local_buffer_phits", int(1, MAX_PHITS), "phits", "720", CY,
        "input buffer per VC of a local (or mesh/torus) port (Table 3-1: 18 KB)"),
    key!("router.global_buffer_phits", int(1, MAX_PHITS), "phits", "1800", CY,
        "input buffer per VC of a global port (Table 3-1: 45 KB)"),
    key!("router.output_buffer_phits", int(1, MAX_PHITS), "phits", "630", CY,
        "output buffer per VC (Table 3-1: 15.75 KB)"),
    key!("router.injection_latency", int(0, MAX_LATENCY_CYCLES), "cycles", "0", CY,
        "latency of the node → router link (not given by the thesis; spec §2.5's zero-load model assumes 0)"),
    key!("router.ejection_latency", int(0, MAX_LATENCY_CYCLES), "cycles", "0", CY,
        "latency of the router → node link (spec §2.5)"),
    key!("router.local_latency", int(1, MAX_LATENCY_CYCLES), "cycles", "15", CY,
        "latency of a local (intra-group, or mesh/torus) link (Table 3-1: 15 ns)"),
    key!("router.global_latency", int(1, MAX_LATENCY_CYCLES), "cycles", "150", CY,
        "latency of a global link (Table 3-1: 150 ns)"),
    key!("router.local_vcs", int(1, 64), "", "what the routing needs", CY,
        "VCs per local (or mesh/torus) port: on a Dragonfly at least the VC template's (spec §3.0.3: 2 for `min`, 4 for the others); on meshes/tori a multiple of the VC classes (1, ×2 for `vlb`, ×2 for a torus dateline)"),
    key!("router.global_vcs", int(1, 64), "", "1 for `min`, 2 for the others", CY,
        "Dragonfly: VCs per global port"),
    key!("router.flow_control", ValueKind::Choice(RouterFlowControl::NAMES), "", "`credits`", CY,
        "link-level flow control between routers: `credits` (virtual cut-through, spec §2.1; the spec's emulation of PFC, §2.3) or `pfc` (802.1Qbb priority flow control: PAUSE/resume frames per VC, `docs/hpc-router.md`); terminal links always use credits"),
    key!("router.output_admission", ValueKind::Choice(OutputAdmission::NAMES), "", "`space`", CY,
        "when the crossbar may move a packet into a router-to-router output VC: `space` (the output buffer has room) or `credits` (also the downstream credits, net of the packets queued in that output VC, cover it: a blocked packet waits at its input, where recomputation can act; needs `router.flow_control = \"credits\"`)"),
    key!("router.recompute_retry", ValueKind::Choice(RecomputeRetry::NAMES), "", "`next_cycle`", CY,
        "with `routing.recompute`: when a blocked injection head draws and tries its new route: `next_cycle` (one draw per cycle) or `next_iteration` (after each allocator iteration that did not grant it, so with `router.allocator_iterations` ≥ 2 it may draw and request again in the same cycle)"),
    key!("router.pfc.xoff_phits", int(1, MAX_PHITS), "phits", "capacity − headroom", CY,
        "`pfc`: input-VC occupancy at which a PAUSE frame goes upstream; default per link class: the most whole packets that leave the headroom (checked: `docs/hpc-router.md`)"),
    key!("router.pfc.xon_phits", int(1, MAX_PHITS), "phits", "XOFF − 2 packets", CY,
        "`pfc`: occupancy at or below which a resume frame goes upstream (at least one packet, below XOFF)"),
    key!("router.pfc.pause_phits", int(1, 100_000), "phits", "13", CY,
        "`pfc`: reverse-link time of a PAUSE or resume frame (a 64-B frame at 5 B/phit)"),
    key!("router.pfc.response_cycles", int(0, MAX_LATENCY_CYCLES), "cycles", "0", CY,
        "`pfc`: time the upstream port takes to act on a received frame"),
];

/// The model that reads every key under the README-style table path `table` (`router`,
/// `traffic.flows[]`, `links.<class>`), if they all belong to one model; `None` when the table
/// has keys of both models, keys of neither, or no described keys.
pub fn table_model(table: &str) -> Option<Model> {
    let prefix = format!("{table}.");
    let mut models = KEYS
        .iter()
        .filter(|k| k.path.starts_with(&prefix))
        .map(|k| k.model);
    let first = models.next()??;
    models.all(|m| m == Some(first)).then_some(first)
}

/// The metadata of the key at `pattern` (a README-style path), if it is one.
pub fn lookup(pattern: &str) -> Option<&'static KeyInfo> {
    KEYS.iter().find(|k| k.path == pattern)
}

/// The README-style pattern of a concrete key path such as `traffic.flows[2].vl` or
/// `links.host.rate` (`traffic.flows[].vl`, `links.<class>.rate`); `None` for paths inside
/// `[sweep]`.
pub fn pattern_of(path: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    for seg in path.split('.') {
        let (name, indexed) = match seg.split_once('[') {
            Some((n, _)) => (n, true),
            None => (seg, false),
        };
        let parent = out.join(".");
        let generic = PLACEHOLDERS
            .iter()
            .find(|(ph, names)| {
                names.contains(&name) && KEYS.iter().any(|k| k.path.starts_with(&join(&parent, ph)))
            })
            .map(|(ph, _)| ph.to_string());
        let mut s = generic.unwrap_or_else(|| name.to_string());
        if indexed {
            s.push_str("[]");
        }
        out.push(s);
        let joined = out.join(".");
        for (alias, original) in ALIASES {
            if joined == *alias {
                out = original.split('.').map(str::to_string).collect();
            }
        }
    }
    out.join(".")
}

fn join(parent: &str, seg: &str) -> String {
    if parent.is_empty() {
        format!("{seg}.")
    } else {
        format!("{parent}.{seg}.")
    }
}

impl ValueKind {
    /// The type and its range in words, e.g. `integer 1 … 100000` or `duration ≤ 3600 s`.
    pub fn describe(&self) -> String {
        match *self {
            ValueKind::Int { min, max } => format!("integer {} … {}", num(min), num(max)),
            ValueKind::Float { min, max, min_open } => format!(
                "number {} {} … {}",
                if min_open { ">" } else { "≥" },
                fnum(min),
                fnum(max)
            ),
            ValueKind::Bool => "boolean".into(),
            ValueKind::Str => "string".into(),
            ValueKind::Choice(v) => format!("one of {}", quoted(v)),
            ValueKind::Duration { max_ps } => {
                format!("duration (ps … s) ≤ {} s", max_ps / PS_PER_S)
            }
            ValueKind::Size { min, max } => {
                format!("size (B … GiB) {} … {}", bytes_text(min), bytes_text(max))
            }
            ValueKind::Rate { min, max } => {
                format!(
                    "rate (bps … Tbps; bit/us = Mbps) {} … {}",
                    rate_text(min),
                    rate_text(max)
                )
            }
            ValueKind::Freq { min, max } => {
                format!(
                    "frequency (Hz … GHz, GT/s) {} … {}",
                    hz_text(min),
                    hz_text(max)
                )
            }
            ValueKind::IntList {
                min,
                max,
                min_len,
                max_len,
            } => format!(
                "list of {}{} integers {} … {}",
                if min_len > 0 {
                    format!("{} … ", num(min_len as i64))
                } else {
                    "at most ".into()
                },
                num(max_len as i64),
                num(min),
                num(max)
            ),
            ValueKind::StrList { max_len } => {
                format!("list of at most {} strings", num(max_len as i64))
            }
            ValueKind::NodeSet(v) => format!("{} or a list of HCA names", quoted(v)),
            ValueKind::HcaNames => "an HCA name or a list of HCA names".into(),
            ValueKind::VictimMask => "boolean or \"host_ports\"".into(),
            ValueKind::VlTable => {
                "list of at most 64 [vl, weight] pairs, VL 0 … 14, weight 1 … 255".into()
            }
            ValueKind::Table => "table: key path → list of values".into(),
        }
    }
}

impl KeyInfo {
    /// Type, range and unit in words.
    pub fn type_text(&self) -> String {
        let d = self.kind.describe();
        if self.unit.is_empty() {
            d
        } else {
            format!("{d} {}", self.unit)
        }
    }

    /// Which model reads the key, in words.
    pub fn model_text(&self) -> &'static str {
        self.model.map_or("both models", Model::text)
    }

    /// The README's meaning column: the doc, after `cycle-level:` for keys only the cycle-level
    /// model reads.
    pub fn meaning(&self) -> String {
        let doc = self.doc_text();
        match self.model {
            Some(Model::Cycle) => format!("cycle-level: {doc}"),
            _ => doc,
        }
    }

    /// What the key means: the doc, after the kinds that take it for a key of a table typed
    /// per kind (`mesh, torus: switches per dimension …`).
    pub fn doc_text(&self) -> String {
        match self.kinds() {
            Some(kinds) => format!("{}: {}", kinds.join(", "), self.doc),
            None => self.doc.to_string(),
        }
    }

    /// For a key of a table typed per kind (`topology.dims`), the kinds that take it, read from
    /// their types ([`super::kinds`]); `None` for any other key and for the selector itself.
    pub fn kinds(&self) -> Option<Vec<&'static str>> {
        super::kinds::kinds_taking(self.path).map(|(_, kinds)| kinds)
    }
}

/// Thousands separated by `,` for readability (`100,000`).
fn num(v: i64) -> String {
    if v == i64::MAX {
        return "2^63 − 1".into();
    }
    let s = v.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0 {
        format!("−{out}")
    } else {
        out
    }
}

fn fnum(v: f64) -> String {
    if v >= 1e6 {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

fn quoted(v: &[&str]) -> String {
    v.iter()
        .map(|s| format!("\"{s}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A size in the largest binary unit that divides it (`64 KiB`).
pub fn bytes_text(b: u64) -> String {
    for (unit, name) in [(GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")] {
        if b >= unit && b.is_multiple_of(unit) {
            return format!("{} {name}", b / unit);
        }
    }
    format!("{b} B")
}

fn rate_text(b: u64) -> String {
    for (unit, name) in [
        (1_000_000_000_000, "Tbps"),
        (1_000_000_000, "Gbps"),
        (1_000_000, "Mbps"),
        (1_000, "Kbps"),
    ] {
        if b >= unit && b.is_multiple_of(unit) {
            return format!("{} {name}", b / unit);
        }
    }
    format!("{b} bps")
}

fn hz_text(b: u64) -> String {
    for (unit, name) in [(1_000_000_000, "GHz"), (1_000_000, "MHz"), (1_000, "kHz")] {
        if b >= unit && b.is_multiple_of(unit) {
            return format!("{} {name}", b / unit);
        }
    }
    format!("{b} Hz")
}

/// A human duration (`3600 s`, `5 ns`).
fn ps_text(ps: u64) -> String {
    for (unit, name) in [
        (PS_PER_S, "s"),
        (1_000_000_000, "ms"),
        (1_000_000, "us"),
        (1_000, "ns"),
    ] {
        if ps >= unit && ps.is_multiple_of(unit) {
            return format!("{} {name}", ps / unit);
        }
    }
    format!("{ps} ps")
}

/// Checks the merged scenario table against the format before the typed parse: every table
/// of the format is a table (an array there, read by position, or a scalar is refused: "expected
/// a table"), every array of tables an array of tables, every key known (an unknown one is
/// refused naming the nearest known key, [`nearest_key`]), every value in the range of its key
/// (so that an out-of-range number is reported with its range rather than as an overflow), and
/// no list that is a set ([`SETS`]) repeats an entry. Values of the wrong type are left to the
/// typed parse, which names them; the entries of `[sweep]` are left to each point.
pub fn check_ranges(table: &toml::Table) -> Result<()> {
    walk(table, "")
}

/// How a README-style path is laid out in a scenario file when it is not a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableShape {
    /// A table (`[router]`, `[links.host]`, `[traffic.transient.before]`).
    Table,
    /// An array of tables (`[[traffic.flows]]`, `[[traffic.transient.before.mix]]`).
    ArrayOfTables,
}

/// The shape of the README-style path `pattern` (`router`, `links.<class>`, `traffic.flows`)
/// when it is a table or an array of tables of the format (from the key metadata and
/// [`ALIASES`]); `None` for keys and unknown paths.
pub fn table_shape(pattern: &str) -> Option<TableShape> {
    let table = format!("{pattern}.");
    let array = format!("{pattern}[]");
    let entry = format!("{array}.");
    if KEYS.iter().any(|k| k.path.starts_with(&table)) {
        Some(TableShape::Table)
    } else if KEYS.iter().any(|k| k.path.starts_with(&entry))
        || ALIASES.iter().any(|(alias, _)| *alias == array)
    {
        Some(TableShape::ArrayOfTables)
    } else {
        None
    }
}

/// `a table`, `an array`, `an integer` … for messages.
fn a_value(v: &toml::Value) -> &'static str {
    match v {
        toml::Value::String(_) => "a string",
        toml::Value::Integer(_) => "an integer",
        toml::Value::Float(_) => "a number",
        toml::Value::Boolean(_) => "a boolean",
        toml::Value::Datetime(_) => "a date",
        toml::Value::Array(a) if !a.is_empty() && a.iter().all(toml::Value::is_table) => {
            "an array of tables"
        }
        toml::Value::Array(_) => "an array",
        toml::Value::Table(_) => "a table",
    }
}

/// `path` without its entry indices (`traffic.flows[0]` → `traffic.flows`), as a TOML header.
fn header_name(path: &str) -> String {
    let mut out = String::new();
    let mut skip = false;
    for c in path.chars() {
        match c {
            '[' => skip = true,
            ']' => skip = false,
            c if !skip => out.push(c),
            _ => {}
        }
    }
    out
}

/// The first key of the table at README-style `pattern` (for "keys such as `latency`").
fn first_key_of(pattern: &str) -> Option<&'static str> {
    let prefix = format!("{pattern}.");
    KEYS.iter()
        .find_map(|k| k.path.strip_prefix(prefix.as_str()))
        .map(|rest| rest.split(['.', '[']).next().unwrap_or(rest))
}

fn not_a_table(path: &str, pat: &str, v: &toml::Value) -> Error {
    let such = match first_key_of(pat) {
        // `[sweep]`: key paths of the scenario
        Some(k) if k.starts_with('<') => " mapping key paths to lists of values".to_string(),
        Some(k) => format!(" with keys such as `{k}`"),
        None => String::new(),
    };
    let heading = if path.ends_with(']') {
        format!("an entry of `[[{}]]`", header_name(path))
    } else {
        format!("`[{path}]`")
    };
    let why = match v {
        toml::Value::Array(a) if !a.is_empty() && a.iter().all(toml::Value::is_table) => {
            format!("; write {heading}, not `[[{path}]]`")
        }
        toml::Value::Array(_) => {
            "; a table's values are named (`key = value`), not given in order".to_string()
        }
        _ => String::new(),
    };
    Error::input(
        path,
        format!(
            "expected a table ({heading}{such}), got {}{why}",
            a_value(v)
        ),
    )
}

fn walk(table: &toml::Table, prefix: &str) -> Result<()> {
    for (k, v) in table {
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        let pat = pattern_of(&path);
        if let Some(info) = lookup(&pat) {
            check_value(info, &path, v)?;
            check_set(&pat, &path, v)?;
            continue;
        }
        match (table_shape(&pat), v) {
            (Some(TableShape::Table), toml::Value::Table(t)) => {
                // the entries of [sweep] are key paths of each point, checked there
                if !(prefix.is_empty() && k == "sweep") {
                    walk(t, &path)?;
                }
            }
            (Some(TableShape::Table), other) => return Err(not_a_table(&path, &pat, other)),
            (Some(TableShape::ArrayOfTables), toml::Value::Array(a)) => {
                for (i, e) in a.iter().enumerate() {
                    let entry = format!("{path}[{i}]");
                    match e {
                        toml::Value::Table(t) => walk(t, &entry)?,
                        other => return Err(not_a_table(&entry, &format!("{pat}[]"), other)),
                    }
                }
            }
            (Some(TableShape::ArrayOfTables), other) => {
                return Err(Error::input(
                    &path,
                    format!(
                        "expected an array of tables (`[[{}]]` entries), got {}",
                        header_name(&path),
                        a_value(other)
                    ),
                ))
            }
            (None, _) => return Err(unknown_key(&path, v)),
        }
    }
    Ok(())
}

/// The error for the unknown key (or table) `path` holding `v`: a table is followed to its first
/// key, the key the user wrote, and the nearest known key is suggested ([`nearest_key`]).
fn unknown_key(path: &str, v: &toml::Value) -> Error {
    let mut path = path.to_string();
    let mut v = v;
    loop {
        match v {
            toml::Value::Table(t) if !t.is_empty() => {
                let (k, inner) = t.iter().next().expect("not empty");
                path = format!("{path}.{k}");
                v = inner;
            }
            toml::Value::Array(a) if a.first().is_some_and(toml::Value::is_table) => {
                path = format!("{path}[0]");
                v = &a[0];
            }
            _ => break,
        }
    }
    let what = if v.is_table() { "table" } else { "key" };
    let hint = match nearest_key(&path) {
        Some(near) => format!("; did you mean `{near}`?"),
        None => {
            let parent = header_name(path.rsplit_once('.').map_or("", |(p, _)| p));
            if parent.is_empty() {
                "; `lnsim keys` lists every key".to_string()
            } else {
                format!("; `lnsim keys {parent}` lists the keys of `[{parent}]`")
            }
        }
    };
    Error::input(&path, format!("unknown {what}{hint}"))
}

/// Every key path and table of the format as written in a file (placeholders expanded, `[]`
/// for an entry of an array of tables, aliases included), keys first.
fn spelled_keys() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for k in KEYS {
        if k.path.starts_with("sweep.") {
            continue;
        }
        out.extend(expand(k.path));
        for (alias, original) in ALIASES {
            if let Some(rest) = k.path.strip_prefix(&format!("{original}.")) {
                out.extend(expand(&format!("{alias}.{rest}")));
            }
        }
    }
    let mut tables: Vec<String> = Vec::new();
    for k in &out {
        let mut at = 0;
        while let Some(dot) = k[at..].find('.') {
            let t = k[..at + dot].trim_end_matches("[]").to_string();
            if !tables.contains(&t) {
                tables.push(t);
            }
            at += dot + 1;
        }
    }
    tables.push("sweep".into());
    out.extend(tables);
    out
}

/// Edit distance (Levenshtein) of two strings, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

/// The known key nearest to the unknown key path `path` (`sim.end_tme` → `sim.end_time`,
/// `sm.end_time` → `sim.end_time`, `sim.hcas_per_switch` → `topology.hcas_per_switch`), with
/// `path`'s entry indices; `None` when no key is close. Close: at most a quarter of the path's
/// characters differ (1 … 3, letter case aside), or the last name is a key of another table.
pub fn nearest_key(path: &str) -> Option<String> {
    // `traffic.flows[2].strat` → `traffic.flows[].strat`, indices kept for the answer
    let mut generic = String::new();
    let mut indices: Vec<String> = Vec::new();
    let mut rest = path;
    while let Some(open) = rest.find('[') {
        let close = rest[open..].find(']').map_or(rest.len(), |c| open + c);
        generic.push_str(&rest[..open]);
        generic.push_str("[]");
        indices.push(rest[open..(close + 1).min(rest.len())].to_string());
        rest = &rest[(close + 1).min(rest.len())..];
    }
    generic.push_str(rest);
    let lower = generic.to_lowercase();
    let leaf = lower.rsplit('.').next().unwrap_or(&lower);
    let limit = (lower.chars().count() / 4).clamp(1, 3);
    let mut best: Option<(usize, String)> = None;
    let mut same_leaf: Option<(usize, String)> = None;
    for k in spelled_keys() {
        let d = edit_distance(&lower, &k.to_lowercase());
        if d <= limit && best.as_ref().is_none_or(|(bd, _)| d < *bd) {
            best = Some((d, k.clone()));
        }
        if k.rsplit('.').next() == Some(leaf) && same_leaf.as_ref().is_none_or(|(bd, _)| d < *bd) {
            same_leaf = Some((d, k));
        }
    }
    let (_, key) = best.or(same_leaf)?;
    // put the user's indices back (`[0]` where the user gave none)
    let mut out = String::new();
    let mut given = indices.into_iter();
    for (i, part) in key.split("[]").enumerate() {
        if i > 0 {
            out.push_str(&given.next().unwrap_or_else(|| "[0]".to_string()));
        }
        out.push_str(part);
    }
    Some(out)
}

/// Refuses a repeated entry of a list that is a set ([`SETS`]) at `path` (pattern `pat`),
/// naming the entry and where it first appears.
fn check_set(pat: &str, path: &str, v: &toml::Value) -> Result<()> {
    let (Some((_, noun)), toml::Value::Array(a)) = (SETS.iter().find(|(p, _)| *p == pat), v) else {
        return Ok(());
    };
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, e) in a.iter().enumerate() {
        if let Some(first) = seen.insert(e.to_string(), i) {
            return Err(Error::input(
                &format!("{path}[{i}]"),
                format!(
                    "{e} is listed twice (also `{path}[{first}]`); `{path}` is a set: name each \
                     {noun} once"
                ),
            ));
        }
    }
    Ok(())
}

fn out_of_range(path: &str, shown: impl std::fmt::Display, info: &KeyInfo) -> Error {
    Error::input(
        path,
        format!("{shown} is outside the allowed range: {}", info.type_text()),
    )
}

fn check_int(path: &str, v: i64, min: i64, max: i64, info: &KeyInfo) -> Result<()> {
    if v < min || v > max {
        return Err(out_of_range(path, v, info));
    }
    Ok(())
}

fn check_value(info: &KeyInfo, path: &str, v: &toml::Value) -> Result<()> {
    use toml::Value as V;
    match (info.kind, v) {
        (ValueKind::Int { min, max }, V::Integer(i)) => check_int(path, *i, min, max, info),
        (ValueKind::Float { min, max, min_open }, V::Float(_) | V::Integer(_)) => {
            let x = match v {
                V::Float(f) => *f,
                V::Integer(i) => *i as f64,
                _ => unreachable!("matched above"),
            };
            let low_ok = if min_open { x > min } else { x >= min };
            if !x.is_finite() || !low_ok || x > max {
                return Err(out_of_range(path, x, info));
            }
            Ok(())
        }
        (ValueKind::Duration { max_ps }, V::String(s)) => match Duration::parse(s) {
            Ok(d) if d.0 > max_ps => Err(Error::input(
                path,
                format!(
                    "{s} is longer than the longest allowed duration, {}",
                    ps_text(max_ps)
                ),
            )),
            _ => Ok(()),
        },
        (ValueKind::Size { min, max }, V::String(_) | V::Integer(_)) => {
            let parsed = match v {
                V::String(s) => Bytes::parse(s).ok().map(|b| b.0),
                V::Integer(i) => u64::try_from(*i).ok(),
                _ => None,
            };
            match parsed {
                Some(b) if b < min || b > max => Err(out_of_range(path, bytes_text(b), info)),
                _ => Ok(()),
            }
        }
        (ValueKind::Rate { min, max }, V::String(s)) => match BitRate::parse(s) {
            Ok(r) if r.0 < min || r.0 > max => Err(out_of_range(path, s, info)),
            _ => Ok(()),
        },
        (ValueKind::Freq { min, max }, V::String(s)) => match Frequency::parse(s) {
            Ok(r) if r.0 < min || r.0 > max => Err(out_of_range(path, s, info)),
            _ => Ok(()),
        },
        (
            ValueKind::IntList {
                min,
                max,
                min_len,
                max_len,
            },
            V::Array(a),
        ) => {
            if a.len() > max_len || a.len() < min_len {
                return Err(Error::input(
                    path,
                    format!("has {} entries; allowed: {}", a.len(), info.type_text()),
                ));
            }
            for (i, e) in a.iter().enumerate() {
                if let V::Integer(x) = e {
                    check_int(&format!("{path}[{i}]"), *x, min, max, info)?;
                }
            }
            Ok(())
        }
        (ValueKind::StrList { max_len }, V::Array(a)) if a.len() > max_len => Err(Error::input(
            path,
            format!("has {} entries; allowed: {}", a.len(), info.type_text()),
        )),
        (ValueKind::VlTable, V::Array(a)) => {
            if a.len() > 64 {
                return Err(Error::input(
                    path,
                    format!(
                        "has {} entries; an IBA VL arbitration table has at most 64",
                        a.len()
                    ),
                ));
            }
            for (i, e) in a.iter().enumerate() {
                let V::Array(pair) = e else { continue };
                let limits = [("VL", 0, 14), ("weight", 1, 255)];
                for (x, (what, lo, hi)) in pair.iter().zip(limits) {
                    if let V::Integer(x) = x {
                        if *x < lo || *x > hi {
                            return Err(Error::input(
                                &format!("{path}[{i}]"),
                                format!("{what} {x} is outside the allowed range {lo} … {hi}"),
                            ));
                        }
                    }
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Regular expressions of the unit strings (the numbers as [`super::units`] reads them).
const NUMBER_RE: &str = r"\s*([0-9][0-9_]*(\.[0-9_]*)?|\.[0-9][0-9_]*)\s*";
const DURATION_UNITS: &str = "(ps|ns|us|µs|ms|s)";
const SIZE_UNITS: &str = "(B|KB|kB|KiB|MB|MiB|GB|GiB)?";
const RATE_UNITS: &str = "(bps|Kbps|kbps|Mbps|Gbps|Tbps|MBps|GBps|bits?/us|bits?/µs)";
const FREQ_UNITS: &str = "(Hz|kHz|KHz|MHz|GHz|T/s|MT/s|GT/s)";

fn unit_pattern(units: &str) -> String {
    format!(r"^{NUMBER_RE}{units}\s*$")
}

/// The JSON Schema (draft-07) of one key's value.
fn value_schema(k: &KeyInfo) -> serde_json::Value {
    use serde_json::json;
    let mut v = match k.kind {
        ValueKind::Int { min, max } => json!({"type": "integer", "minimum": min, "maximum": max}),
        // (an open lower bound is left to `lnsim validate`: `exclusiveMinimum` differs between
        // draft 4, which some TOML editors implement, and later drafts)
        ValueKind::Float { min, max, .. } => {
            json!({"type": "number", "minimum": min, "maximum": max})
        }
        ValueKind::Bool => json!({"type": "boolean"}),
        ValueKind::Str => json!({"type": "string"}),
        ValueKind::Choice(c) => json!({"type": "string", "enum": c}),
        ValueKind::Duration { .. } => {
            json!({"type": "string", "pattern": unit_pattern(DURATION_UNITS)})
        }
        ValueKind::Size { min, max } => json!({"anyOf": [
            {"type": "integer", "minimum": min, "maximum": max},
            {"type": "string", "pattern": unit_pattern(SIZE_UNITS)}
        ]}),
        ValueKind::Rate { .. } => json!({"type": "string", "pattern": unit_pattern(RATE_UNITS)}),
        ValueKind::Freq { .. } => json!({"type": "string", "pattern": unit_pattern(FREQ_UNITS)}),
        ValueKind::IntList {
            min,
            max,
            min_len,
            max_len,
        } => json!({
            "type": "array", "minItems": min_len, "maxItems": max_len,
            "items": {"type": "integer", "minimum": min, "maximum": max}
        }),
        ValueKind::StrList { max_len } => {
            json!({"type": "array", "maxItems": max_len, "items": {"type": "string"}})
        }
        ValueKind::NodeSet(names) => json!({"anyOf": [
            {"type": "string", "enum": names},
            {"type": "array", "items": {"type": "string"}}
        ]}),
        ValueKind::HcaNames => json!({"anyOf": [
            {"type": "string"},
            {"type": "array", "items": {"type": "string"}}
        ]}),
        ValueKind::VictimMask => json!({"anyOf": [
            {"type": "boolean"},
            {"type": "string", "enum": ["host_ports"]}
        ]}),
        ValueKind::VlTable => json!({
            "type": "array", "maxItems": 64,
            "items": {
                "type": "array", "minItems": 2, "maxItems": 2,
                "items": [
                    {"type": "integer", "minimum": 0, "maximum": 14},
                    {"type": "integer", "minimum": 1, "maximum": 255}
                ]
            }
        }),
        ValueKind::Table => json!({
            "type": "object",
            "additionalProperties": {"type": "array"}
        }),
    };
    // a list that is a set repeats no entry
    if SETS.iter().any(|(p, _)| *p == k.path) {
        match v.get_mut("anyOf") {
            Some(any) => any[1]["uniqueItems"] = json!(true),
            None => v["uniqueItems"] = json!(true),
        }
    }
    let default = k.default.replace('`', "");
    v["description"] = json!(format!(
        "{} [{}; {}; default: {default}]",
        k.doc_text().replace('`', ""),
        k.type_text(),
        k.model_text()
    ));
    v
}

fn empty_table() -> serde_json::Value {
    serde_json::json!({"type": "object", "additionalProperties": false, "properties": {}})
}

/// The object schema of the table at `segs` (`name` or `name[]` segments), created on the way.
fn table_at<'a>(root: &'a mut serde_json::Value, segs: &[&str]) -> &'a mut serde_json::Value {
    let mut cur = root;
    for seg in segs {
        let (name, array) = match seg.strip_suffix("[]") {
            Some(n) => (n, true),
            None => (*seg, false),
        };
        let props = &mut cur["properties"];
        if props.get(name).is_none() {
            props[name] = if array {
                serde_json::json!({"type": "array", "items": empty_table()})
            } else {
                empty_table()
            };
        }
        cur = if array {
            &mut props[name]["items"]
        } else {
            &mut props[name]
        };
    }
    cur
}

/// Every concrete spelling of a README-style path (`links.<class>.rate` → `links.host.rate`,
/// `links.fabric.rate`).
pub fn expand(path: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    for (i, seg) in path.split('.').enumerate() {
        let names: Vec<String> = match PLACEHOLDERS.iter().find(|(ph, _)| *ph == seg) {
            Some((_, names)) => names.iter().map(|n| n.to_string()).collect(),
            None => vec![seg.to_string()],
        };
        out = out
            .iter()
            .flat_map(|p| {
                names.iter().map(move |n| {
                    if i == 0 {
                        n.clone()
                    } else {
                        format!("{p}.{n}")
                    }
                })
            })
            .collect();
    }
    out
}

/// A JSON Schema (draft-07) of the scenario format, for editors that validate TOML against one
/// (Taplo, Even Better TOML): every key with its type, range, allowed values and meaning.
pub fn json_schema() -> serde_json::Value {
    use serde_json::json;
    let mut root = empty_table();
    root["$schema"] = json!("http://json-schema.org/draft-07/schema#");
    root["$id"] = json!("https://lnsim.invalid/scenario.schema.json");
    root["title"] = json!("lnsim scenario");
    root["description"] = json!(format!(
        "A scenario of lnsim {} (`lnsim keys` lists every key; `lnsim validate` checks what a schema cannot: ranges of values with units, names, routes, memory).",
        crate::VERSION
    ));
    for k in KEYS {
        if k.path.starts_with("sweep.") {
            root["properties"]["sweep"] = value_schema(k);
            continue;
        }
        for concrete in expand(k.path) {
            let segs: Vec<&str> = concrete.split('.').collect();
            let (last, parent) = segs.split_last().expect("a key has a name");
            let table = table_at(&mut root, parent);
            table["properties"][*last] = value_schema(k);
            if k.required {
                let req = table
                    .as_object_mut()
                    .expect("a table schema is an object")
                    .entry("required")
                    .or_insert_with(|| json!([]));
                req.as_array_mut()
                    .expect("required is a list")
                    .push(json!(last));
            }
        }
    }
    for (alias, original) in ALIASES {
        let segs: Vec<&str> = original.split('.').collect();
        let (last, parent) = segs.split_last().expect("an alias has a name");
        let item = table_at(&mut root, parent)["properties"][last.trim_end_matches("[]")].clone();
        for concrete in expand(alias) {
            let segs: Vec<&str> = concrete.split('.').collect();
            let (last, parent) = segs.split_last().expect("an alias has a name");
            table_at(&mut root, parent)["properties"][last.trim_end_matches("[]")] = item.clone();
        }
    }
    // a key of the other model is an error, for the model `sim.model` names
    root["allOf"] = json!(Model::ALL
        .iter()
        .map(|&m| json!({
            "if": {
                "required": ["sim"],
                "properties": {"sim": {"required": ["model"], "properties": {"model": {"const": m.name()}}}}
            },
            "then": keys_of_other_models(m),
        }))
        .collect::<Vec<_>>());
    // a table typed per kind takes, for each kind, the selector and that kind's keys only
    for kt in super::kinds::KIND_TABLES {
        let segs: Vec<&str> = kt.table.split('.').collect();
        let names_of = |kind: &str| {
            let mut names = kt.common.to_vec();
            names.push(kt.selector);
            names.extend((kt.keys_of)(kind).unwrap_or(&[]).iter().copied());
            names
        };
        let mut rules: Vec<serde_json::Value> = (kt.kinds)()
            .iter()
            .map(|kind| {
                json!({
                    "if": {"required": [kt.selector], "properties": {kt.selector: {"const": kind}}},
                    "then": {"propertyNames": {"enum": names_of(kind)}},
                })
            })
            .collect();
        // a table that names no kind has its default kind's keys
        if let Some(kind) = kt.default_kind {
            rules.push(json!({
                "if": {"not": {"required": [kt.selector]}},
                "then": {"propertyNames": {"enum": names_of(kind)}},
            }));
        }
        table_at(&mut root, &segs)["allOf"] = json!(rules);
    }
    for t in REQUIRED_TABLES {
        for concrete in expand(t) {
            let segs: Vec<&str> = concrete.split('.').collect();
            let (last, parent) = segs.split_last().expect("a table has a name");
            let table = table_at(&mut root, parent);
            let req = table
                .as_object_mut()
                .expect("a table schema is an object")
                .entry("required")
                .or_insert_with(|| json!([]));
            req.as_array_mut()
                .expect("required is a list")
                .push(json!(last));
        }
    }
    root
}

/// A schema that refuses every key and table of a model other than `model`: the table where
/// all keys belong to one other model is refused as a whole (`"router": false`), otherwise
/// the key itself.
fn keys_of_other_models(model: Model) -> serde_json::Value {
    use serde_json::json;
    let mut root = json!({"properties": {}});
    for k in KEYS {
        if k.model.is_none_or(|m| m == model) || k.path.starts_with("sweep.") {
            continue;
        }
        for concrete in expand(k.path) {
            let segs: Vec<&str> = concrete.split('.').collect();
            // the shortest table path whose keys all belong to the other model
            let pattern: Vec<&str> = k.path.split('.').collect();
            let cut = (1..segs.len())
                .find(|&i| table_model(&pattern[..i].join(".")).is_some_and(|m| m != model))
                .unwrap_or(segs.len());
            let mut cur = &mut root;
            for seg in &segs[..cut - 1] {
                let name = seg.trim_end_matches("[]");
                let next = &mut cur["properties"][name];
                if next.is_null() {
                    *next = json!({"properties": {}});
                }
                cur = if seg.ends_with("[]") {
                    let items = &mut next["items"];
                    if items.is_null() {
                        *items = json!({"properties": {}});
                    }
                    items
                } else {
                    next
                };
            }
            cur["properties"][segs[cut - 1].trim_end_matches("[]")] = json!(false);
        }
    }
    root
}

/// The README's configuration reference table: a row per key with its type and range,
/// default and meaning (`lnsim keys --markdown` prints it; `tests/config_reference.rs` checks
/// that the README has exactly this table).
pub fn markdown_table() -> String {
    let mut out = String::from("| key | type | default | meaning |\n|---|---|---|---|\n");
    for k in KEYS {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            k.path,
            k.type_text().replace('|', "\\|"),
            k.default,
            k.meaning().replace('|', "\\|")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_of_concrete_paths() {
        assert_eq!(pattern_of("sim.seed"), "sim.seed");
        assert_eq!(pattern_of("traffic.flows[3].vl"), "traffic.flows[].vl");
        assert_eq!(pattern_of("links.host.rate"), "links.<class>.rate");
        assert_eq!(
            pattern_of("switch.fabric_ports.buffer_credits"),
            "switch.<class>_ports.buffer_credits"
        );
        assert_eq!(
            pattern_of("traffic.transient.before.mix[1].fraction"),
            "traffic.mix[].fraction"
        );
        assert_eq!(
            pattern_of("traffic.transient.after.load"),
            "traffic.transient.<phase>.load"
        );
    }

    #[test]
    fn every_pattern_resolves_to_itself() {
        for k in KEYS {
            if k.path.starts_with("sweep.") {
                continue;
            }
            let concrete = k
                .path
                .replace("<class>", "host")
                .replace("<phase>", "before")
                .replace("[]", "[0]");
            assert_eq!(pattern_of(&concrete), k.path, "{concrete}");
        }
    }

    #[test]
    fn the_sets_are_lists_and_the_schema_says_their_entries_are_unique() {
        let schema = json_schema();
        for (path, _) in SETS {
            let k = lookup(path).unwrap_or_else(|| panic!("{path} is a key"));
            assert!(
                matches!(
                    k.kind,
                    ValueKind::StrList { .. }
                        | ValueKind::IntList { .. }
                        | ValueKind::NodeSet(_)
                        | ValueKind::HcaNames
                ),
                "{path}"
            );
            let mut v = &schema;
            for seg in path.split('.') {
                v = &v["properties"][seg.trim_end_matches("[]")];
                if seg.ends_with("[]") {
                    v = &v["items"];
                }
            }
            let list = v.get("anyOf").map_or(v, |any| &any[1]);
            assert_eq!(list["type"], "array", "{path}");
            assert_eq!(list["uniqueItems"], true, "{path}");
        }
    }

    #[test]
    fn tables_of_one_model_are_known() {
        assert_eq!(table_model("router"), Some(Model::Cycle));
        assert_eq!(table_model("cc"), Some(Model::Credit));
        assert_eq!(table_model("links.<class>"), Some(Model::Credit));
        assert_eq!(table_model("traffic.flows[]"), Some(Model::Credit));
        assert_eq!(table_model("traffic.mix[]"), Some(Model::Cycle));
        assert_eq!(table_model("traffic.transient"), Some(Model::Cycle));
        // both models read keys of these
        assert_eq!(table_model("sim"), None);
        assert_eq!(table_model("traffic"), None);
        assert_eq!(table_model("topology"), None);
    }

    #[test]
    fn pattern_lists_are_the_pattern_enum_by_level() {
        use super::super::schema::Pattern;
        let names = |f: fn(&Pattern) -> bool| -> Vec<&str> {
            Pattern::ALL
                .iter()
                .filter(|p| f(p))
                .map(|p| p.name())
                .collect()
        };
        use crate::traffic::permutation::is_job_permutation;
        assert_eq!(CYCLE_PATTERNS, names(|p| !is_job_permutation(*p)));
        assert_eq!(
            STEADY_PATTERNS,
            names(|p| !matches!(p, Pattern::Mix | Pattern::Transient) && !is_job_permutation(*p))
        );
        assert_eq!(
            PHASE_PATTERNS,
            names(|p| *p != Pattern::Transient && !is_job_permutation(*p))
        );
        // the InfiniBand generators name their patterns from the same list
        let ValueKind::Choice(ib) = lookup("traffic.generators[].pattern").unwrap().kind else {
            panic!("a choice");
        };
        assert!(ib.iter().all(|n| Pattern::NAMES.contains(n)));
        let mesh = crate::traffic::geometry::Geometry::MeshTorus {
            dims: vec![2, 2],
            torus: false,
            per_router: 1,
        };
        let mut widest: Vec<&str> = mesh.patterns().iter().map(|p| p.name()).collect();
        // and the job permutations, on every topology
        widest.extend(names(|p| is_job_permutation(*p)));
        assert_eq!(ib, widest);
    }

    #[test]
    fn ranges_name_the_key_and_the_range() {
        let t: toml::Table = "[router]\nlatency = 2147483648\n".parse().unwrap();
        let e = check_ranges(&t).unwrap_err().to_string();
        assert!(
            e.contains("router.latency") && e.contains("1 … 100,000"),
            "{e}"
        );
        let t: toml::Table = "[topology]\ndims = [65536, 3000000]\n".parse().unwrap();
        let e = check_ranges(&t).unwrap_err().to_string();
        assert!(e.contains("topology.dims[1]"), "{e}");
        let t: toml::Table = "[[traffic.flows]]\nvl = 99\n".parse().unwrap();
        let e = check_ranges(&t).unwrap_err().to_string();
        assert!(e.contains("traffic.flows[0].vl"), "{e}");
        let t: toml::Table = "[sim]\nend_time = \"2h\"\n".parse().unwrap();
        assert!(check_ranges(&t).is_ok(), "bad units are left to the parser");
        let t: toml::Table = "[sim]\nend_time = \"7200s\"\n".parse().unwrap();
        let e = check_ranges(&t).unwrap_err().to_string();
        assert!(e.contains("sim.end_time") && e.contains("3600 s"), "{e}");
        let t: toml::Table = "[traffic]\nload = nan\n".parse().unwrap();
        assert!(check_ranges(&t).is_err());
    }
}
