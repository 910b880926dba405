//! The InfiniBand identity of a fabric's nodes: what the subnet manager and the diagnostics
//! know a node by (node and port GUIDs, the node description, IB port numbers, LIDs and LMC),
//! beside lnsim's own graph ([`Fabric`], whose ports are dense and 0-based and whose HCAs are
//! numbered 1, 2, …). An imported fabric (`topology/ibnetdiscover.rs`) carries the identity it
//! read; a built one gets one assigned for export ([`IbIdentity::assign`]: GUIDs from a fixed
//! prefix and the node index, LIDs in node order as OpenSM would hand them out). The naming
//! rule that turns descriptions into lnsim node names ([`node_names`]) lives here too.
//!
//! One lnsim node is one *end*: a switch, or one connected port of a channel adapter (a
//! dual-port HCA cabled twice is two lnsim HCAs). [`IbEnd::ib_ports`] gives the IB port number
//! of each of its dense ports.

use crate::error::{Error, Result};
use crate::topology::{Fabric, NodeId, NodeKind, MAX_SWITCH_PORTS};
use std::collections::{HashMap, HashSet};

/// Highest unicast LID (IBA: unicast LIDs are 1–0xBFFF; 0 is reserved).
pub const MAX_UNICAST_LID: u32 = 0xBFFF;

/// Highest LID mask control value (a port answers 2^LMC LIDs).
pub const MAX_LMC: u8 = 7;

/// The fixed prefix of the node GUIDs [`IbIdentity::assign`] gives a built fabric ("lns" in
/// ASCII, then zeros): node `i` gets `GUID_PREFIX | (i + 1) << 8`, a CA's port `p` that GUID
/// `| p`.
pub const GUID_PREFIX: u64 = 0x6c6e_7300_0000_0000;

/// One InfiniBand node, a switch or a channel adapter, as the subnet manager knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IbDevice {
    /// Node GUID.
    pub guid: u64,
    /// A switch (else a channel adapter).
    pub switch: bool,
    /// Node description (NodeDescription, as `ibnetdiscover` prints it).
    pub desc: String,
    /// Number of external ports (NodeInfo.NumPorts): the radix, connected or not.
    pub num_ports: u8,
    /// `vendid=` of the node block, when given.
    pub vendor_id: Option<u32>,
    /// `devid=` of the node block, when given.
    pub device_id: Option<u32>,
    /// `sysimgguid=` of the node block, when given.
    pub sysimg_guid: Option<u64>,
    /// A switch's port 0 is "enhanced" (else "base").
    pub enhanced_port0: bool,
}

/// The InfiniBand side of one lnsim node: a switch, or one connected port of a CA.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IbEnd {
    /// Index of its device in [`IbIdentity::devices`].
    pub device: u32,
    /// Port GUID: a CA port's own, a switch's port 0 (`switchguid=0x…(<port guid>)`); `None`
    /// where the file gives none (old `ibnetdiscover` versions).
    pub port_guid: Option<u64>,
    /// Base LID (a switch: port 0's); 0 when the subnet manager assigned none.
    pub lid: u32,
    /// LID mask control: the port answers LIDs `lid .. lid + 2^lmc − 1`.
    pub lmc: u8,
    /// IB port number of each dense lnsim port, ascending (a CA end: its one port).
    pub ib_ports: Vec<u8>,
}

/// The InfiniBand identity of every node of a [`Fabric`], indexed like [`Fabric::nodes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IbIdentity {
    /// The InfiniBand nodes (switches and CAs), in the order they were read or built.
    pub devices: Vec<IbDevice>,
    /// Per lnsim node: its device, port GUID, LIDs and IB port numbers.
    pub ends: Vec<IbEnd>,
    /// What the import skipped, one line per kind (`file:line: … skipped`).
    pub warnings: Vec<String>,
}

/// `S-<16 hex digits>` (switch) or `H-…` (CA): how `ibnetdiscover` names a node by its GUID.
pub fn guid_id(switch: bool, guid: u64) -> String {
    format!("{}-{guid:016x}", if switch { 'S' } else { 'H' })
}

/// The lnsim names of the ends of `devices`, by the naming rule (docs/fabrics.md): a device's
/// name is its description when no other device has the same one, `<description>
/// (0x<guid>)` when several share it, `S-<guid>`/`H-<guid>` when it is empty; a CA with more
/// than one connected port adds `/P<port>` to each of its ends. Should a name still clash with
/// another (a description that spells another node's name), the GUID form is used for it.
pub fn node_names(
    devices: &[IbDevice],
    ends: &[IbEnd],
) -> std::result::Result<Vec<String>, String> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for d in devices {
        *count.entry(d.desc.trim()).or_default() += 1;
    }
    let mut ends_of = vec![0usize; devices.len()];
    for e in ends {
        ends_of[e.device as usize] += 1;
    }
    let mut used: HashSet<String> = HashSet::new();
    let mut names = Vec::with_capacity(ends.len());
    for e in ends {
        let d = &devices[e.device as usize];
        let desc = d.desc.trim();
        let port = |base: String| {
            if !d.switch && ends_of[e.device as usize] > 1 {
                format!("{base}/P{}", e.ib_ports[0])
            } else {
                base
            }
        };
        let base = if desc.is_empty() {
            guid_id(d.switch, d.guid)
        } else if count[desc] > 1 {
            format!("{desc} (0x{:016x})", d.guid)
        } else {
            desc.to_string()
        };
        let mut name = port(base);
        if used.contains(&name) {
            name = port(guid_id(d.switch, d.guid));
            if used.contains(&name) {
                return Err(format!(
                    "two nodes would both be named `{name}`; give them distinct node descriptions"
                ));
            }
        }
        used.insert(name.clone());
        names.push(name);
    }
    Ok(names)
}

impl IbIdentity {
    /// The ends that answer each LID: LID → (node, offset in its LMC range).
    pub fn lid_owners(&self) -> HashMap<u32, (NodeId, u32)> {
        let mut m = HashMap::new();
        for (n, e) in self.ends.iter().enumerate() {
            if e.lid == 0 {
                continue;
            }
            for k in 0..(1u32 << e.lmc) {
                m.insert(e.lid + k, (n as NodeId, k));
            }
        }
        m
    }

    /// Port GUID → the node it belongs to (ends with a known port GUID).
    pub fn by_port_guid(&self) -> HashMap<u64, NodeId> {
        self.ends
            .iter()
            .enumerate()
            .filter_map(|(n, e)| e.port_guid.map(|g| (g, n as NodeId)))
            .collect()
    }

    /// Node GUID of a switch → its node.
    pub fn switches_by_guid(&self) -> HashMap<u64, NodeId> {
        self.ends
            .iter()
            .enumerate()
            .filter(|(_, e)| self.devices[e.device as usize].switch)
            .map(|(n, e)| (self.devices[e.device as usize].guid, n as NodeId))
            .collect()
    }

    /// The node a GUID written as users copy it names (`0x0002c90300001000`, bare hex, or
    /// `ibnetdiscover`'s `S-…`/`H-…` form): a CA port GUID, a switch's node or port GUID, or
    /// the node GUID of a CA with one connected port. `Ok(None)`: not a GUID, or no node has
    /// it; `Err`: the node GUID of a CA with several connected ports (which port is meant?).
    pub fn by_guid(&self, text: &str) -> std::result::Result<Option<NodeId>, String> {
        let t = text.trim();
        let hex = t
            .strip_prefix("0x")
            .or_else(|| t.strip_prefix("0X"))
            .or_else(|| t.strip_prefix("S-"))
            .or_else(|| t.strip_prefix("H-"))
            .unwrap_or(t);
        if hex.is_empty() || hex.len() > 16 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(None);
        }
        if hex.len() != 16 && !t.starts_with("0x") && !t.starts_with("0X") {
            return Ok(None); // bare hex must be the full 16 digits, so `12` is not a GUID
        }
        let Ok(g) = u64::from_str_radix(hex, 16) else {
            return Ok(None);
        };
        if let Some(n) = self.ends.iter().position(|e| e.port_guid == Some(g)) {
            return Ok(Some(n as NodeId));
        }
        let ports: Vec<NodeId> = (0..self.ends.len() as NodeId)
            .filter(|&n| self.device_of(n).guid == g)
            .collect();
        match ports.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(*one)),
            many => Err(format!(
                "`{text}` is the node GUID of a CA with {} connected ports; name one port by its port GUID or its name",
                many.len()
            )),
        }
    }

    /// The device of node `n`.
    pub fn device_of(&self, n: NodeId) -> &IbDevice {
        &self.devices[self.ends[n as usize].device as usize]
    }

    /// The dense lnsim port of node `n` that is its IB port `ib_port`; `None` when that port
    /// is not connected (or does not exist).
    pub fn dense_port(&self, n: NodeId, ib_port: u8) -> Option<u16> {
        self.ends[n as usize]
            .ib_ports
            .binary_search(&ib_port)
            .ok()
            .map(|i| i as u16)
    }

    /// How messages name node `n`: `switch "leaf-a" (GUID 0x0002c90300001000)`.
    pub fn describe(&self, fabric: &Fabric, n: NodeId) -> String {
        let d = self.device_of(n);
        format!(
            "{} \"{}\" (GUID 0x{:016x})",
            if d.switch { "switch" } else { "HCA" },
            fabric.nodes[n as usize].name,
            d.guid
        )
    }

    /// An identity for a built fabric, for export: node `i` (in [`Fabric::nodes`] order) gets
    /// the node GUID `GUID_PREFIX | (i + 1) << 8` and the description of its name; a CA port
    /// GUID is its node GUID `| 1` (an lnsim HCA is a single-port CA); IB port numbers are the
    /// dense ports + 1 (every port connected); LIDs are handed out in node order from 1, a
    /// switch one (base port 0, LMC 0), an HCA `2^lmc` aligned to `2^lmc`, as OpenSM's LID
    /// manager does. Errors when the LIDs would pass [`MAX_UNICAST_LID`].
    pub fn assign(fabric: &Fabric, lmc: u8) -> Result<IbIdentity> {
        if lmc > MAX_LMC {
            return Err(Error::Input(format!(
                "export: LMC {lmc} is out of range; allowed 0-{MAX_LMC}"
            )));
        }
        let mut devices = Vec::with_capacity(fabric.nodes.len());
        let mut ends = Vec::with_capacity(fabric.nodes.len());
        let mut next: u32 = 1;
        for (i, n) in fabric.nodes.iter().enumerate() {
            let switch = n.kind == NodeKind::Switch;
            let guid = GUID_PREFIX | ((i as u64 + 1) << 8);
            let l = if switch { 0 } else { lmc };
            let size = 1u32 << l;
            let lid = next.div_ceil(size) * size;
            if lid + size - 1 > MAX_UNICAST_LID {
                return Err(Error::Input(format!(
                    "export: the fabric needs more than {MAX_UNICAST_LID} LIDs (the unicast LID space) at LMC {lmc}"
                )));
            }
            next = lid + size;
            if n.ports.len() > MAX_SWITCH_PORTS {
                return Err(Error::Input(format!(
                    "export: node `{}` has {} ports; an InfiniBand node has at most {MAX_SWITCH_PORTS}",
                    n.name,
                    n.ports.len()
                )));
            }
            devices.push(IbDevice {
                guid,
                switch,
                desc: n.name.clone(),
                num_ports: n.ports.len() as u8,
                vendor_id: None,
                device_id: None,
                sysimg_guid: None,
                enhanced_port0: false,
            });
            ends.push(IbEnd {
                device: i as u32,
                port_guid: Some(if switch { guid } else { guid | 1 }),
                lid,
                lmc: l,
                ib_ports: (1..=n.ports.len() as u8).collect(),
            });
        }
        Ok(IbIdentity {
            devices,
            ends,
            warnings: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(guid: u64, switch: bool, desc: &str) -> IbDevice {
        IbDevice {
            guid,
            switch,
            desc: desc.into(),
            num_ports: 2,
            vendor_id: None,
            device_id: None,
            sysimg_guid: None,
            enhanced_port0: false,
        }
    }

    fn end(device: u32, port: u8) -> IbEnd {
        IbEnd {
            device,
            port_guid: None,
            lid: 0,
            lmc: 0,
            ib_ports: vec![port],
        }
    }

    #[test]
    fn names_follow_the_description_rule() {
        let devices = vec![
            dev(0x10, true, "MF0;sw:MQM8700/U1"),
            dev(0x20, true, "MF0;sw:MQM8700/U1"),
            dev(0x30, false, "node01 mlx5_0"),
            dev(0x40, false, ""),
            dev(0x50, false, "node02 mlx5_0"),
            // a description that spells another node's generated name
            dev(0x60, false, "node02 mlx5_0/P1"),
        ];
        let ends = vec![
            end(0, 0),
            end(1, 0),
            end(2, 1),
            end(3, 1),
            end(4, 1),
            end(4, 2),
            end(5, 1),
        ];
        let names = node_names(&devices, &ends).unwrap();
        assert_eq!(
            names,
            [
                "MF0;sw:MQM8700/U1 (0x0000000000000010)",
                "MF0;sw:MQM8700/U1 (0x0000000000000020)",
                "node01 mlx5_0",
                "H-0000000000000040",
                "node02 mlx5_0/P1",
                "node02 mlx5_0/P2",
                "H-0000000000000060",
            ]
        );
    }

    #[test]
    fn assigned_lids_are_aligned_and_in_node_order() {
        let f = crate::topology::testbed::tests::testbed();
        let id = IbIdentity::assign(&f, 2).unwrap();
        let lids: Vec<(u32, u8)> = id.ends.iter().map(|e| (e.lid, e.lmc)).collect();
        // S1, S2 one LID each (LMC 0), then H1… at 4, 8, …
        assert_eq!(&lids[..4], &[(1, 0), (2, 0), (4, 2), (8, 2)]);
        assert_eq!(id.lid_owners()[&10], (3, 2));
        assert_eq!(id.devices[2].guid, GUID_PREFIX | 0x300);
        assert_eq!(id.ends[2].port_guid, Some(GUID_PREFIX | 0x301));
        assert!(IbIdentity::assign(&f, 8).is_err());
    }
}
