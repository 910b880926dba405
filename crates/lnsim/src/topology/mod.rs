//! Topologies: builders produce one [`Fabric`] graph; everything after works on the graph
//! (architecture: "Topology is data"; spec §4).

pub mod dragonfly;
pub mod fat_tree;
pub mod file;
pub mod ib_identity;
pub mod ibnetdiscover;
pub mod ibnetdiscover_writer;
pub mod mesh_torus;
pub mod testbed;

use crate::config::{LinkConfig, LinkSpeed, Ps, Scenario, TopologyConfig};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::path::Path;

/// Most ports a switch of the credit-level model may have: IBA numbers switch ports 1–254 (0 is
/// the management port, 255 is reserved), lnsim numbers them 0–253. So every port number fits
/// a `.fdbs` forwarding table, where 255 means "no route".
pub const MAX_SWITCH_PORTS: usize = 254;

/// Index of a node (switch or HCA) in [`Fabric::nodes`].
pub type NodeId = u32;

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// A switch.
    Switch,
    /// A host channel adapter (one port).
    Hca,
}

/// Class of a link: it selects the `[links.<class>]` parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkClass {
    /// HCA ↔ switch.
    Host,
    /// Switch ↔ switch (in a Dragonfly: a local, intra-group link).
    Fabric,
    /// Dragonfly global (inter-group) link.
    Global,
}

/// Serialisation rate of a link direction: `bits_per_s = num / den` exactly (spec §3.2: the
/// line encoding 8b/10b up to QDR, 64b/66b from FDR is applied).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LinkRate {
    /// Numerator of the data rate in bits per second.
    pub num: u128,
    /// Denominator of the data rate.
    pub den: u128,
}

impl LinkRate {
    /// Rate from an InfiniBand width (lanes) and speed.
    pub fn infiniband(lanes: u64, speed: LinkSpeed) -> Self {
        // signalling rate per lane in kbaud, encoding (payload bits, line bits)
        let (kbaud, p, l): (u128, u128, u128) = match speed {
            LinkSpeed::Sdr => (2_500_000, 8, 10),
            LinkSpeed::Ddr => (5_000_000, 8, 10),
            LinkSpeed::Qdr => (10_000_000, 8, 10),
            LinkSpeed::Fdr10 => (10_312_500, 64, 66),
            LinkSpeed::Fdr => (14_062_500, 64, 66),
            LinkSpeed::Edr => (25_781_250, 64, 66),
            LinkSpeed::Hdr => (53_125_000, 64, 66),
            LinkSpeed::Ndr => (106_250_000, 64, 66),
            LinkSpeed::Xdr => (212_500_000, 64, 66),
        };
        LinkRate {
            num: lanes as u128 * kbaud * 1000 * p,
            den: l,
        }
    }
    /// Rate from a plain data rate in bits per second.
    pub fn bps(bps: u64) -> Self {
        LinkRate {
            num: bps as u128,
            den: 1,
        }
    }
    /// Data rate in bits per second (for reports).
    pub fn bits_per_s(&self) -> f64 {
        self.num as f64 / self.den as f64
    }
    /// Time to serialise `bytes` bytes, rounded to the nearest picosecond (at most
    /// `Ps::MAX`).
    pub fn ser_ps(&self, bytes: u64) -> Ps {
        let n = bytes as u128 * 8 * 1_000_000_000_000 * self.den;
        ((n + self.num / 2) / self.num).min(Ps::MAX as u128) as Ps
    }
}

/// Physical parameters of one link (both directions alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkParams {
    /// Data rate of each direction.
    pub rate: LinkRate,
    /// Propagation delay.
    pub delay_ps: Ps,
    /// Lanes (the internal transfer width `2 × lanes` bytes/cycle derives from it).
    pub lanes: u64,
}

impl LinkParams {
    /// Builds link parameters from a `[links.<class>]` table; `key` names it in errors.
    pub fn from_config(c: &LinkConfig, key: &str) -> Result<Self> {
        let lanes = c.width.lanes();
        let rate = match (c.rate, c.speed) {
            (Some(_), Some(_)) => {
                return Err(Error::input(
                    key,
                    "give either `rate` or `speed` (with `width`), not both",
                ))
            }
            (Some(r), None) => LinkRate::bps(r.0),
            (None, Some(s)) => LinkRate::infiniband(lanes, s),
            (None, None) => {
                return Err(Error::input(
                    key,
                    format!(
                        "missing `speed` ({}) or `rate`",
                        crate::config::LinkSpeed::NAMES.join(", ")
                    ),
                ))
            }
        };
        Ok(LinkParams {
            rate,
            delay_ps: c.delay.0,
            lanes,
        })
    }
}

/// One port of a node and the link behind it. Every port is connected.
#[derive(Debug, Clone, Copy)]
pub struct Port {
    /// The node at the other end.
    pub peer: NodeId,
    /// The port number at the other end.
    pub peer_port: u16,
    /// Link class.
    pub class: LinkClass,
    /// Link parameters.
    pub link: LinkParams,
}

/// A switch or HCA.
#[derive(Debug, Clone)]
pub struct Node {
    /// Name as in the spec (`SW11`, `H111`, `S1`, `H1`).
    pub name: String,
    /// Switch or HCA.
    pub kind: NodeKind,
    /// Ports in port-number order.
    pub ports: Vec<Port>,
    /// LID (HCAs: 1.. in naming order; switches: 0, not addressable).
    pub lid: u32,
    /// Coordinates of a mesh/torus switch (empty otherwise); for HCAs, its switch's.
    pub coords: Vec<u32>,
    /// Fat-tree level: leaf switches are level 1, the next switch level 2, …; HCAs are level 0.
    /// Every node of the other topologies is level 0.
    pub level: u32,
}

/// Shape information that structured routing algorithms need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// A mesh or torus: `dims` switches per dimension; `minus_port[d]`/`plus_port[d]` give, per
    /// switch, the port towards the lower/higher coordinate in dimension `d` (None: no link).
    MeshTorus {
        /// Switches per dimension, stored x-first (index 0 = the last name subscript, the column
        /// in 2D): the reverse of `topology.dims`, whose order is rows, columns (`[2, 5]` → `[5, 2]`).
        dims: Vec<u32>,
        /// Wrap-around links present.
        torus: bool,
        /// Per switch (index in [`Fabric::switches`]) and dimension: port to the lower neighbour.
        minus_port: Vec<Vec<Option<u16>>>,
        /// Per switch and dimension: port to the higher neighbour.
        plus_port: Vec<Vec<Option<u16>>>,
    },
    /// A fat tree (XGFT): children per level `down`, parents per level `up`, bottom up.
    FatTree {
        /// Children per node at each level (level 1 = leaf switches' HCAs).
        down: Vec<u32>,
        /// Parents per node at each level.
        up: Vec<u32>,
    },
    /// A canonical Dragonfly (Dragonfly spec §1.1).
    Dragonfly(dragonfly::DragonflyShape),
    /// No structure known (edge-list file, test bed).
    Generic,
}

/// The fabric graph.
#[derive(Debug, Clone)]
pub struct Fabric {
    /// All nodes.
    pub nodes: Vec<Node>,
    /// HCAs in LID order: `hcas[lid - 1]`.
    pub hcas: Vec<NodeId>,
    /// Switches in naming order.
    pub switches: Vec<NodeId>,
    /// Structure for routing.
    pub shape: Shape,
    /// Name → node.
    pub by_name: HashMap<String, NodeId>,
    /// The InfiniBand identity of the nodes (GUIDs, descriptions, IB port numbers, LIDs and
    /// LMC) when the fabric was imported from `ibnetdiscover` output; `None` for the built ones.
    pub ib: Option<Box<ib_identity::IbIdentity>>,
}

impl Fabric {
    /// An empty fabric with the given shape; builders then add nodes and links.
    pub fn new(shape: Shape) -> Self {
        Fabric {
            nodes: Vec::new(),
            hcas: Vec::new(),
            switches: Vec::new(),
            shape,
            by_name: HashMap::new(),
            ib: None,
        }
    }

    /// Adds a node; HCAs get the next LID. Errors on a duplicate name.
    pub fn add_node(
        &mut self,
        name: String,
        kind: NodeKind,
        coords: Vec<u32>,
        level: u32,
    ) -> Result<NodeId> {
        let id = self.nodes.len() as NodeId;
        if self.by_name.insert(name.clone(), id).is_some() {
            return Err(Error::Input(format!(
                "topology: duplicate node name `{name}`"
            )));
        }
        let lid = match kind {
            NodeKind::Hca => {
                self.hcas.push(id);
                self.hcas.len() as u32
            }
            NodeKind::Switch => {
                self.switches.push(id);
                0
            }
        };
        self.nodes.push(Node {
            name,
            kind,
            ports: Vec::new(),
            lid,
            coords,
            level,
        });
        Ok(id)
    }

    /// Connects the next free port of `a` to the next free port of `b`; returns the port numbers.
    pub fn connect(
        &mut self,
        a: NodeId,
        b: NodeId,
        class: LinkClass,
        link: LinkParams,
    ) -> (u16, u16) {
        let pa = self.nodes[a as usize].ports.len() as u16;
        let pb = self.nodes[b as usize].ports.len() as u16 + if a == b { 1 } else { 0 };
        self.nodes[a as usize].ports.push(Port {
            peer: b,
            peer_port: pb,
            class,
            link,
        });
        self.nodes[b as usize].ports.push(Port {
            peer: a,
            peer_port: pa,
            class,
            link,
        });
        (pa, pb)
    }

    /// Node id by name — on an imported fabric also by GUID (a port GUID, a switch's node
    /// GUID or a single-port CA's, as `0x…`, 16 hex digits or `S-…`/`H-…`;
    /// [`ib_identity::IbIdentity::by_guid`]) — or an input error naming `key`.
    pub fn node(&self, name: &str, key: &str) -> Result<NodeId> {
        if let Some(&n) = self.by_name.get(name) {
            return Ok(n);
        }
        if let Some(ib) = &self.ib {
            if let Some(n) = ib.by_guid(name).map_err(|why| Error::input(key, why))? {
                return Ok(n);
            }
            return Err(Error::input(
                key,
                format!("no node named `{name}` in this topology, nor one with that GUID"),
            ));
        }
        Err(Error::input(
            key,
            format!("no node named `{name}` in this topology"),
        ))
    }

    /// HCA id by name, or an input error naming `key`.
    pub fn hca(&self, name: &str, key: &str) -> Result<NodeId> {
        let id = self.node(name, key)?;
        if self.nodes[id as usize].kind != NodeKind::Hca {
            return Err(Error::input(
                key,
                format!("`{name}` is a switch, not an HCA"),
            ));
        }
        Ok(id)
    }

    /// Checks structural invariants: HCAs have exactly one port to a switch; links symmetric.
    pub fn check(&self) -> Result<()> {
        for (i, n) in self.nodes.iter().enumerate() {
            if n.kind == NodeKind::Hca && n.ports.len() != 1 {
                return Err(Error::Input(format!(
                    "topology: HCA `{}` has {} links; an HCA has exactly one",
                    n.name,
                    n.ports.len()
                )));
            }
            if n.kind == NodeKind::Switch && n.ports.is_empty() {
                return Err(Error::Input(format!(
                    "topology: switch `{}` has no links",
                    n.name
                )));
            }
            for (p, port) in n.ports.iter().enumerate() {
                let back = self.nodes[port.peer as usize]
                    .ports
                    .get(port.peer_port as usize);
                match back {
                    Some(b) if b.peer as usize == i && b.peer_port as usize == p => {}
                    _ => {
                        return Err(Error::Internal(format!(
                            "asymmetric link at {} port {p}",
                            n.name
                        )))
                    }
                }
            }
        }
        if self.hcas.is_empty() {
            return Err(Error::Input("topology: the fabric has no HCAs".into()));
        }
        Ok(())
    }
}

/// How large a fabric is: what the memory estimate needs, known before building it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FabricSize {
    /// Switches (routers).
    pub switches: u64,
    /// HCAs (terminals).
    pub hcas: u64,
    /// Ports of all nodes together (twice the links).
    pub ports: u64,
    /// Ports of the largest switch.
    pub max_ports: u64,
    /// Typical length of a node name in bytes.
    pub name_bytes: u64,
    /// Coordinates stored per node.
    pub coords: u64,
}

impl FabricSize {
    /// The size of a built fabric.
    pub fn of(f: &Fabric) -> Self {
        let n = f.nodes.len().max(1) as u64;
        FabricSize {
            switches: f.switches.len() as u64,
            hcas: f.hcas.len() as u64,
            ports: f.nodes.iter().map(|n| n.ports.len() as u64).sum(),
            max_ports: f
                .switches
                .iter()
                .map(|&s| f.nodes[s as usize].ports.len() as u64)
                .max()
                .unwrap_or(0),
            name_bytes: f.nodes.iter().map(|n| n.name.len() as u64).sum::<u64>() / n,
            coords: f
                .nodes
                .iter()
                .map(|n| n.coords.len() as u64)
                .max()
                .unwrap_or(0),
        }
    }
}

/// The size of the fabric a scenario describes, computed from its parameters for the
/// structured topologies (meshes, tori, fat trees, Dragonflies) without building them; the
/// test bed and edge-list files, whose size is that of their description, are built.
pub fn size(s: &Scenario, base_dir: &Path) -> Result<FabricSize> {
    match &s.topology {
        t @ (TopologyConfig::Mesh(_) | TopologyConfig::Torus(_)) => mesh_torus::size(t),
        TopologyConfig::FatTree(t) => fat_tree::size(t),
        TopologyConfig::Dragonfly(t) => dragonfly::size(t),
        TopologyConfig::GranTestbed(_)
        | TopologyConfig::File(_)
        | TopologyConfig::Ibnetdiscover(_) => Ok(FabricSize::of(&build(s, base_dir)?)),
    }
}

/// Builds the fabric a scenario describes (spec §4); `base_dir` resolves `topology.file`.
pub fn build(s: &Scenario, base_dir: &Path) -> Result<Fabric> {
    let host = LinkParams::from_config(&s.links.host, "links.host")?;
    let fabric_link = LinkParams::from_config(&s.links.fabric, "links.fabric")?;
    let f = match &s.topology {
        t @ (TopologyConfig::Mesh(_) | TopologyConfig::Torus(_)) => {
            mesh_torus::build(t, host, fabric_link)?
        }
        TopologyConfig::FatTree(t) => fat_tree::build(t, host, fabric_link)?,
        TopologyConfig::GranTestbed(_) => testbed::build(host, fabric_link)?,
        TopologyConfig::File(t) => file::build(t, base_dir, host, fabric_link)?,
        TopologyConfig::Ibnetdiscover(t) => ibnetdiscover::build(t, base_dir, host, fabric_link)?,
        TopologyConfig::Dragonfly(t) => dragonfly::build(t, host, fabric_link)?,
    };
    f.check()?;
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infiniband_rates() {
        // 4x SDR: 8 Gbit/s data: 64 B in 64 ns, 2176 B in 2.176 us (spec §3.2 table)
        let sdr = LinkRate::infiniband(4, LinkSpeed::Sdr);
        assert_eq!(sdr.ser_ps(64), 64_000);
        assert_eq!(sdr.ser_ps(2176), 2_176_000);
        assert_eq!(LinkRate::infiniband(4, LinkSpeed::Ddr).ser_ps(64), 32_000);
        assert_eq!(LinkRate::infiniband(4, LinkSpeed::Qdr).ser_ps(64), 16_000);
        // 4x EDR: 100 Gbit/s: 64 B in 5.12 ns
        assert_eq!(LinkRate::infiniband(4, LinkSpeed::Edr).ser_ps(64), 5_120);
        // 4x FDR: 54.5454 Gbit/s: 64 B in 9.3867 ns (non-integer ns)
        assert_eq!(LinkRate::infiniband(4, LinkSpeed::Fdr).ser_ps(64), 9_387);
        assert_eq!(LinkRate::infiniband(12, LinkSpeed::Qdr).ser_ps(96), 8_000);
        // FDR10: 10 Gbit/s of data per lane, 4x 40 Gbit/s: 64 B in 12.8 ns
        assert_eq!(LinkRate::infiniband(4, LinkSpeed::Fdr10).ser_ps(64), 12_800);
        assert_eq!(LinkRate::infiniband(4, LinkSpeed::Fdr10).bits_per_s(), 40e9);
        // NDR and XDR double HDR's lane rate, each (64b/66b as lnsim's HDR)
        let hdr = LinkRate::infiniband(4, LinkSpeed::Hdr).bits_per_s();
        assert_eq!(
            LinkRate::infiniband(4, LinkSpeed::Ndr).bits_per_s(),
            2.0 * hdr
        );
        assert_eq!(
            LinkRate::infiniband(2, LinkSpeed::Xdr).bits_per_s(),
            2.0 * hdr
        );
    }
}
