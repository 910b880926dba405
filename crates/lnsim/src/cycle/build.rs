//! Building the cycle-level network from a scenario, in stages a reader can follow:
//! 1. parameters ([`CycleParams::resolve`]: every key checked, every default applied);
//! 2. topology and ports ([`fabric`], [`RouterPorts::of`]): the fabric graph (Dragonfly or
//!    mesh/torus), what each router port connects to and its link latency;
//! 3. routing ([`routing`]): the family's paths with their tables and the algorithm, then the
//!    channel-dependency check ([`check_deadlock_free`]);
//! 4. VCs and buffers ([`Buffers::of`]): input-buffer and credit capacities per port kind;
//! 5. terminals and traffic ([`traffic`]): the destination patterns and injection processes;
//! 6. calendar and state ([`CycleNet::assemble`]): the flat records of ports, VCs, routers and
//!    terminals, the random streams, the event calendar and the statistics.

use super::cnm::Notifications;
use super::congestion::qcn_cp::CongestionPoints;
use super::congestion::qcn_rp::ReactionPoints;
use super::congestion::{CongestionManagement, Qcn};
use super::flow_control::FlowControl;
use super::mechanism::Mechanisms;
use super::packet::{OutQueue, PacketSlab, NIL};
use super::params::CycleParams;
use super::pfc::Pfc;
use super::results::CycleStats;
use super::{
    Consts, CycleNet, Engine, PortKind, PortState, RouterState, TermState, Terminals, VcOut,
    VcState,
};
use crate::config::LoadedScenario;
use crate::cycle::routing::algorithm::{CycleRouting, Family, Paths};
use crate::cycle::routing::dependency_graph;
use crate::cycle::routing::dragonfly_paths::DragonflyPaths;
use crate::cycle::routing::mesh_paths::MeshPaths;
use crate::cycle::traffic::synthetic::SyntheticTraffic;
use crate::engine::progress::SetupProgress;
use crate::engine::rng::{purpose, stream};
use crate::error::{Error, Result};
use crate::routing::dor::Grid;
use crate::topology::{self, Fabric, LinkClass, LinkParams, LinkRate, NodeKind, Shape};
use crate::traffic::geometry::Geometry;
use crate::traffic::injection::Bernoulli;
use std::sync::Arc;

/// Random-stream purpose of Valiant intermediate draws.
const VALIANT: u64 = 11;

/// Most ports of a cycle-level router (a router's ports are bits of a word).
const MAX_RADIX: u32 = 64;

/// Checks a cycle-level scenario and builds everything a run needs, with the constructor a run
/// uses, running nothing; returns a short report (`lnsim validate`).
pub fn validate_cycle(l: &LoadedScenario) -> Result<String> {
    use std::io::IsTerminal;
    let mut setup = SetupProgress::new(std::io::stderr().is_terminal());
    let net = CycleNet::build(l, &mut setup)?;
    setup.finish();
    let policy = match net.routing.alg.vlb_policy() {
        Some(p) => format!(" ({p})"),
        None => String::new(),
    };
    let fc = match net.fc.pfc() {
        Some(p) => {
            let (lo, gl) = (PortKind::Local as usize, PortKind::Global as usize);
            let mut s = format!(
                "\n  flow control: pfc, XOFF/XON {}/{} phits on local links",
                p.p.xoff_of[lo], p.p.xon_of[lo]
            );
            if p.p.xoff_of[gl] != u32::MAX {
                s += &format!(", {}/{} on global links", p.p.xoff_of[gl], p.p.xon_of[gl]);
            }
            s + " (headroom checked)"
        }
        None => String::new(),
    };
    Ok(format!(
        "scenario {}: OK (cycle-level model)\n  topology: {}, {} routers, {} terminals\n  \
         routing: {}{policy}, {} VCs per port (max), channel-dependency graph acyclic{fc}\n  \
         traffic: {}\n  sim: {} warm-up + {} measured cycles, seed {}\n",
        l.name,
        net.stats.topology,
        net.k.routers,
        net.k.terminals,
        net.routing.alg.name(),
        net.k.vcs,
        net.terms.traffic.label(),
        net.k.warmup,
        net.k.end - net.k.warmup,
        l.scenario.sim.seed,
    ))
}

impl CycleNet {
    /// Builds the network of a cycle-level scenario (no set-up display).
    #[cfg(test)]
    pub(crate) fn new(l: &LoadedScenario) -> Result<Self> {
        Self::build(l, &mut SetupProgress::hidden())
    }

    /// Builds the network of a cycle-level scenario, naming its stages to `setup`.
    pub(crate) fn build(l: &LoadedScenario, setup: &mut SetupProgress) -> Result<Self> {
        setup.phase("checking keys");
        let p = CycleParams::resolve(l)?;
        setup.phase("topology");
        let fabric = fabric(&p)?;
        let ports = RouterPorts::of(&fabric, &p)?;
        setup.phase("routing");
        let routing = routing(&p, &fabric)?;
        setup.phase("ports and buffers");
        let buffers = Buffers::of(&p);
        setup.phase("channel-dependency check");
        check_deadlock_free(&routing, &ports, &fabric, &p)?;
        setup.phase("traffic");
        let traffic = traffic(l, &p, &fabric)?;
        setup.phase("network state");
        Ok(Self::assemble(
            &p, &fabric, ports, buffers, routing, traffic,
        ))
    }

    /// The network state from the built parts: flat records of ports, VCs, routers and
    /// terminals (nothing queued, every credit at home), the random streams, the event
    /// calendar and the statistics.
    fn assemble(
        p: &CycleParams,
        fabric: &Fabric,
        ports: RouterPorts,
        buffers: Buffers,
        routing: CycleRouting,
        traffic: SyntheticTraffic,
    ) -> Self {
        let rc = &p.router;
        let (routers, radix, vcs) = (ports.routers, ports.radix, p.routing.vcs);
        let terminals = ports.term_gp.len() as u32;
        // recomputation: the terminal ports of every router (the same ports on each)
        let recompute_mask = if routing.recomputes() {
            (0..ports.kind.len())
                .filter(|&g| ports.kind[g] == PortKind::Terminal)
                .fold(0u64, |m, g| m | 1 << (g as u32 % radix))
        } else {
            0
        };
        let xbar_cycles = (p.pkt_phits as u64).div_ceil(rc.speedup as u64);
        let mech = Mechanisms::build(routing.alg.state(), &routing.paths, p, routers, xbar_cycles);
        // QCN (Dragonfly spec §3.12.1): congestion points at the transit ports, notifications
        // on their own VCs, reaction points at the nodes when on
        let (cm, cnm) = match (p.qcn, p.routing.cnm_vcs, &routing.paths) {
            (Some(q), Some((lv, gv)), Paths::Dragonfly(d)) => {
                let sampled = |g: usize| match ports.kind[g] {
                    PortKind::Local => Some(lv as u8),
                    PortKind::Global => Some(gv as u8),
                    _ => None,
                };
                let cp = CongestionPoints::new(q.cp, ports.kind.len(), radix, p.seed, sampled);
                let rp =
                    q.rp.map(|rp| ReactionPoints::new(rp, terminals as usize, p.pkt_phits));
                let shape = d.shape;
                (
                    CongestionManagement::build(Some(Qcn { cp, rp })),
                    Notifications::new(|t| DragonflyPaths::new(shape, t), lv, gv),
                )
            }
            _ => (CongestionManagement::build(None), Notifications::default()),
        };
        let mut net = CycleNet {
            k: Consts {
                pkt_phits: p.pkt_phits,
                xbar_cycles,
                router_latency: rc.latency,
                iterations: rc.allocator_iterations,
                radix,
                radix_magic: if radix == 0 {
                    0
                } else {
                    (1u64 << 32).div_ceil(radix as u64)
                },
                vcs,
                routers,
                terminals,
                inj_latency: rc.injection_latency,
                ej_latency: rc.ejection_latency,
                warmup: p.warmup,
                end: p.end(),
                sat_queue: p.sat_queue,
                sat_min: p.sat_min,
                cm_on: p.qcn.is_some(),
                admit_on_credits: rc.output_admission == crate::config::OutputAdmission::Credits,
                redraw_in_cycle: rc.recompute_retry == crate::config::RecomputeRetry::NextIteration
                    && rc.allocator_iterations >= 2,
            },
            port: ports.records(),
            vout: buffers.output_sides(&ports, vcs),
            vc: vec![
                VcState {
                    in_q: (NIL, NIL),
                    head_route: u32::MAX,
                    in_used: 0,
                };
                ports.kind.len() * vcs as usize
            ],
            out_cap: rc.output_buffer_phits,
            in_cap_of: buffers.in_cap_of,
            credit_cap_of: buffers.credit_cap_of,
            rs: vec![RouterState::default(); routers as usize],
            link_work: vec![0; routers.div_ceil(64) as usize],
            alloc_work: vec![0; routers.div_ceil(64) as usize],
            scratch_req: [(0, 0); 64],
            scratch_want: [0; 64],
            scratch_prio: [0; 64],
            routing,
            route_table: Vec::new(),
            recompute_mask,
            mech,
            cm,
            cnm,
            fc: match p.pfc {
                Some(pfc) => FlowControl::Pfc(Box::new(Pfc::new(
                    pfc,
                    ports.kind.len(),
                    ports.kind.len() * vcs as usize,
                    p.warmup,
                ))),
                None => FlowControl::Credits,
            },
            global_ports: ports.global_ports,
            rng_router: (0..routers)
                .map(|i| stream(p.seed, i as u64, VALIANT))
                .collect(),
            router_names: (0..routers)
                .map(|i| fabric.nodes[i as usize].name.clone())
                .collect(),
            terms: Terminals {
                router: ports.term_gp.iter().map(|&g| g / radix).collect(),
                gp: ports.term_gp,
                state: vec![
                    TermState {
                        backlog: (NIL, NIL),
                        backlog_len: 0,
                        credits: rc.injection_queue_phits,
                        link_free: 0,
                        try_at: u64::MAX,
                        epoch: 0,
                    };
                    terminals as usize
                ],
                rng: (0..terminals)
                    .map(|i| stream(p.seed, (1 << 32) | i as u64, purpose::ARRIVALS))
                    .collect(),
                traffic,
                gen: Bernoulli::new(0.0),
            },
            eng: Engine {
                pkts: PacketSlab::new(),
                cal: super::calendar::Calendar::new(p.calendar_slots()),
                fault: None,
                prefetch: false,
                always_wake: false,
            },
            now: 0,
            stats: CycleStats::new(routers, terminals, p.warmup, p.end(), p.bin_cycles),
        };
        net.eng.prefetch = net.hot_bytes() > super::prefetch::PREFETCH_MIN_BYTES;
        net.stats.topology = topology_label(&fabric.shape, p);
        net
    }

    /// Bytes of the records the cycle loop touches at random (for [`CycleNet::prefetch`]): the
    /// port, VC and router records and the terminals' generators. The packet records come on
    /// top; they are left out because their number depends on the load (an injection queue
    /// bound would count thousands of packets on a small mesh that never holds them).
    fn hot_bytes(&self) -> usize {
        use std::mem::size_of;
        self.port.len() * size_of::<PortState>()
            + self.vout.len() * size_of::<VcOut>()
            + self.vc.len() * size_of::<VcState>()
            + self.rs.len() * size_of::<RouterState>()
            + self.terms.rng.len() * size_of::<rand_chacha::ChaCha8Rng>()
    }
}

/// The fabric graph of a Dragonfly or a mesh/torus (link parameters do not apply in this
/// model: link latencies are the router's).
fn fabric(p: &CycleParams) -> Result<Fabric> {
    let lp = LinkParams {
        rate: LinkRate::bps(1),
        delay_ps: 0,
        lanes: 1,
    };
    let fabric = match p.routing.family {
        Family::Dragonfly => match p.topology {
            crate::config::TopologyConfig::Dragonfly(t) => topology::dragonfly::build(t, lp, lp)?,
            other => {
                return Err(Error::Internal(format!(
                    "a Dragonfly routing family on a {} topology",
                    other.kind().name()
                )))
            }
        },
        Family::MeshTorus => topology::mesh_torus::build(p.topology, lp, lp)?,
    };
    fabric.check()?;
    Ok(fabric)
}

/// What every router port connects to, per port `gp = router · radix + port`.
struct RouterPorts {
    routers: u32,
    /// Ports per router (the most of any router).
    radix: u32,
    kind: Vec<PortKind>,
    /// Far end (gp) of a router-to-router port; `u32::MAX` otherwise.
    peer: Vec<u32>,
    /// Terminal of a terminal port; `u32::MAX` otherwise.
    term_of: Vec<u32>,
    /// VCs of the port (by kind: terminal 1, local and global as the routing needs).
    nvc: Vec<u8>,
    /// Latency of the link out of the port.
    latency: Vec<u64>,
    /// Global ports, in increasing order.
    global_ports: Vec<u32>,
    /// The port of every terminal.
    term_gp: Vec<u32>,
}

impl RouterPorts {
    /// The router ports of `fabric`, checked against the router's limits: at most 64 ports,
    /// port and channel numbers that fit in 32 bits, switches numbered first, links with the
    /// same latency both ways joining ports of one kind.
    fn of(fabric: &Fabric, p: &CycleParams) -> Result<Self> {
        let routers = fabric.switches.len() as u32;
        let radix = fabric
            .switches
            .iter()
            .map(|&n| fabric.nodes[n as usize].ports.len() as u32)
            .max()
            .unwrap_or(0);
        if radix > MAX_RADIX {
            return Err(Error::input(
                "topology",
                format!("routers of {radix} ports; the cycle-level router supports up to 64"),
            ));
        }
        // router ports are numbered in u32 and split without a division (`split_gp`, exact
        // while port · radix < 2³²)
        if routers as u64 * radix as u64 * radix as u64 > 1 << 32 {
            return Err(Error::input(
                "topology",
                format!("{routers} routers of {radix} ports; too many for the cycle-level model"),
            ));
        }
        // switch ids are 0..routers in naming order (both builders create switches first)
        for (i, &n) in fabric.switches.iter().enumerate() {
            if n as usize != i {
                return Err(Error::Internal(
                    "cycle model: switches are not numbered first".into(),
                ));
            }
        }
        // (port, VC) channels are numbered in u32
        let vcs = p.routing.vcs;
        if routers as u64 * radix as u64 * vcs as u64 > u32::MAX as u64 {
            return Err(Error::input(
                "topology",
                format!("{routers} routers of {radix} ports with {vcs} VCs each are too many channels for the cycle-level model"),
            ));
        }
        let (rc, rp) = (&p.router, &p.routing);
        let np = (routers * radix) as usize;
        let mut ports = RouterPorts {
            routers,
            radix,
            kind: vec![PortKind::Unused; np],
            peer: vec![u32::MAX; np],
            term_of: vec![u32::MAX; np],
            nvc: vec![0u8; np],
            latency: vec![0u64; np],
            global_ports: Vec::new(),
            term_gp: vec![0u32; fabric.hcas.len()],
        };
        let hca_index: std::collections::HashMap<u32, u32> = fabric
            .hcas
            .iter()
            .enumerate()
            .map(|(i, &n)| (n, i as u32))
            .collect();
        for rtr in 0..routers {
            for (k, port) in fabric.nodes[rtr as usize].ports.iter().enumerate() {
                let gp = (rtr * radix) as usize + k;
                let far = &fabric.nodes[port.peer as usize];
                let (kind, nvc, latency) = if far.kind == NodeKind::Hca {
                    let ti = hca_index[&port.peer];
                    ports.term_gp[ti as usize] = gp as u32;
                    ports.term_of[gp] = ti;
                    (PortKind::Terminal, 1, rc.ejection_latency)
                } else if port.class == LinkClass::Global {
                    ports.global_ports.push(gp as u32);
                    ports.peer[gp] = port.peer * radix + port.peer_port as u32;
                    (PortKind::Global, rp.global_vcs, rc.global_latency)
                } else {
                    ports.peer[gp] = port.peer * radix + port.peer_port as u32;
                    (PortKind::Local, rp.local_vcs, rc.local_latency)
                };
                ports.kind[gp] = kind;
                ports.nvc[gp] = nvc as u8;
                ports.latency[gp] = latency;
            }
        }
        for gp in 0..np {
            let far = ports.peer[gp];
            if far == u32::MAX {
                continue;
            }
            // a link has the same latency both ways: the allocator sends an input's credits
            // back with the latency of its own port's record
            if ports.latency[gp] != ports.latency[far as usize] {
                return Err(Error::Internal(format!(
                    "cycle model: the link at router port {gp} has different latencies each way"
                )));
            }
            // the credits of an output are the capacity of the input buffer at the far end,
            // kept per port kind ([`Buffers`])
            if ports.kind[gp] != ports.kind[far as usize] {
                return Err(Error::Internal(format!(
                    "cycle model: the link at router port {gp} joins ports of different kinds"
                )));
            }
        }
        Ok(ports)
    }

    /// The port records, nothing queued.
    fn records(&self) -> Vec<PortState> {
        (0..self.kind.len())
            .map(|g| PortState {
                kind: self.kind[g],
                nvc: self.nvc[g],
                last_vc: 0,
                in_ptr: 0,
                out_ptr: 0,
                link_ptr: 0,
                flags: 0,
                paused: 0,
                peer: if self.kind[g] == PortKind::Terminal {
                    self.term_of[g]
                } else {
                    self.peer[g]
                },
                in_count: 0,
                out_count: 0,
                latency: self.latency[g] as u32,
                link_free: 0,
                xin_free: 0,
                xout_free: 0,
                out_wake_at: u64::MAX,
                in_vcs: 0,
            })
            .collect()
    }

    /// The router and port at the far end of router `r`'s port `port`, when it leads to
    /// another router.
    fn link(&self, r: u32, port: u32) -> Option<(u32, u32)> {
        let far = self.peer[(r * self.radix + port) as usize];
        (far != u32::MAX).then(|| (far / self.radix, far % self.radix))
    }
}

/// The routing of the scenario on its fabric: the family's paths (Dragonfly: minimal paths
/// with the VC template and their lookup tables; mesh/torus: dimension-order paths with VC
/// classes, and the DOR table of a stateless routing) and the algorithm.
fn routing(p: &CycleParams, fabric: &Fabric) -> Result<CycleRouting> {
    let rp = &p.routing;
    let paths = match &fabric.shape {
        Shape::Dragonfly(d) => {
            let template = rp.template.clone().ok_or_else(|| {
                Error::Internal("cycle model: a Dragonfly routing without a VC template".into())
            })?;
            Paths::Dragonfly(DragonflyPaths::new(*d, template))
        }
        Shape::MeshTorus { .. } => {
            let grid = Grid::of(fabric)?
                .ok_or_else(|| Error::Internal("cycle model: no mesh geometry".into()))?;
            let mut m = MeshPaths {
                grid,
                dateline: rp.dateline,
                phases: rp.phases as u8,
                local_vcs: rp.local_vcs as u8,
                classes: rp.classes as u8,
                dor_table: Vec::new(),
            };
            if rp.algorithm.stateless() {
                m.tabulate();
            }
            Paths::Mesh(m)
        }
        _ => return Err(Error::Internal("cycle model: unexpected shape".into())),
    };
    Ok(CycleRouting::new(rp.algorithm.clone(), paths))
}

/// Deadlock freedom by construction, checked: the channel-dependency graph of the routing and
/// its VC rules has no cycle (else the scenario is refused, naming the channels of a cycle).
fn check_deadlock_free(
    routing: &CycleRouting,
    ports: &RouterPorts,
    fabric: &Fabric,
    p: &CycleParams,
) -> Result<()> {
    let link = |r: u32, port: u32| ports.link(r, port);
    let cdg = dependency_graph::build(routing, ports.routers, ports.radix, p.routing.vcs, &link)?;
    let mut found = cdg.find_cycle().map(|c| (c, cdg));
    // QCN's notifications: minimal paths on VCs of their own (`cnm.rs`), a graph of their own
    // (a notification is never waited for by a data packet, nor the other way round: they
    // share no buffer)
    if let (None, Some((lv, gv)), Paths::Dragonfly(d)) = (&found, p.routing.cnm_vcs, &routing.paths)
    {
        let paths = Paths::Dragonfly(DragonflyPaths::new(
            d.shape,
            Notifications::template(lv, gv),
        ));
        let cnm = CycleRouting::new(Arc::new(crate::cycle::routing::minimal::Min), paths);
        let g = dependency_graph::build(&cnm, ports.routers, ports.radix, p.routing.vcs, &link)?;
        found = g.find_cycle().map(|c| (c, g));
    }
    let Some((cycle, cdg)) = found else {
        return Ok(());
    };
    let names: Vec<String> = cycle
        .iter()
        .take(12)
        .map(|&(rt, port, g)| {
            format!(
                "{} port {port} {}",
                fabric.nodes[rt as usize].name,
                cdg.vc_label(g)
            )
        })
        .collect();
    Err(Error::input(
        p.routing.deadlock_key,
        format!(
            "the channel-dependency graph of this routing and VC assignment has a cycle of {} channels, so the network can deadlock: {}{}",
            cycle.len(),
            names.join(" → "),
            if cycle.len() > 12 { " → …" } else { "" }
        ),
    ))
}

/// Buffer capacities: the input buffer of each VC by port kind, and the credits of a full
/// output VC by port kind — the far end's input buffer (a router link joins two ports of the
/// same kind, which [`RouterPorts::of`] checks); none towards a terminal.
struct Buffers {
    in_cap_of: [u32; 4],
    credit_cap_of: [u32; 4],
}

impl Buffers {
    fn of(p: &CycleParams) -> Self {
        let rc = &p.router;
        let mut in_cap_of = [0u32; 4];
        in_cap_of[PortKind::Terminal as usize] = rc.injection_queue_phits;
        in_cap_of[PortKind::Local as usize] = rc.local_buffer_phits;
        in_cap_of[PortKind::Global as usize] = rc.global_buffer_phits;
        let mut credit_cap_of = in_cap_of;
        credit_cap_of[PortKind::Terminal as usize] = 0;
        Buffers {
            in_cap_of,
            credit_cap_of,
        }
    }

    /// The output side of every (port, VC), `vcs` per port: empty, with the credits of the
    /// far end's whole input buffer on each VC of a router-to-router port.
    fn output_sides(&self, ports: &RouterPorts, vcs: u32) -> Vec<VcOut> {
        let mut out = Vec::with_capacity(ports.kind.len() * vcs as usize);
        for g in 0..ports.kind.len() {
            let link = ports.peer[g] != u32::MAX;
            for v in 0..vcs as usize {
                let credits = if link && v < ports.nvc[g] as usize {
                    self.credit_cap_of[ports.kind[g] as usize]
                } else {
                    0
                };
                out.push(VcOut {
                    q: OutQueue::EMPTY,
                    credits,
                    used: 0,
                });
            }
        }
        out
    }
}

/// The traffic of the scenario on the fabric's terminals: destination patterns and injection
/// processes over the topology's geometry.
fn traffic(l: &LoadedScenario, p: &CycleParams, fabric: &Fabric) -> Result<SyntheticTraffic> {
    let geo = Geometry::of(fabric)?;
    let traffic = SyntheticTraffic::from_config(p.traffic, &geo, p.warmup, &|k| l.given(k))?;
    if traffic.terminals() != fabric.hcas.len() as u32 {
        return Err(Error::Internal(
            "traffic and topology disagree on the terminals".into(),
        ));
    }
    Ok(traffic)
}

/// The topology as the summary names it (`dragonfly p=2 a=4 h=2 palmtree`, `torus 8x8`).
fn topology_label(shape: &Shape, p: &CycleParams) -> String {
    match shape {
        Shape::Dragonfly(d) => format!(
            "dragonfly p={} a={} h={} {}",
            d.p,
            d.a,
            d.h,
            match p.topology {
                crate::config::TopologyConfig::Dragonfly(t) => t.arrangement.name(),
                _ => "",
            }
        ),
        Shape::MeshTorus { dims, torus, .. } => format!(
            "{} {}",
            if *torus { "torus" } else { "mesh" },
            dims.iter()
                .rev()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("x")
        ),
        _ => String::new(),
    }
}
