//! Linear forwarding tables (LFT): DLID → output port per switch, and the `.fdbs` file format
//! of spec §3.6 (`<switch>: 255 p1 p2 …`, entry 0 is the non-existent LID 0).

use crate::error::{Error, Result};
use crate::topology::{Fabric, NodeId, NodeKind};

/// "No route" marker in a table (255 in `.fdbs` files).
pub const NO_PORT: u16 = u16::MAX;

/// Forwarding tables of every switch, flat: `port[switch_index * lids + dlid]`.
#[derive(Debug, Clone)]
pub struct ForwardingTables {
    /// Number of LID slots per switch (max LID + 1; slot 0 unused).
    pub lids: usize,
    /// Node id → switch index (u32::MAX for HCAs).
    pub switch_index: Vec<u32>,
    /// Output ports, [`NO_PORT`] where no route is set.
    pub port: Vec<u16>,
}

impl ForwardingTables {
    /// Empty tables (every entry [`NO_PORT`]) for a fabric.
    pub fn empty(fabric: &Fabric) -> Self {
        let lids = fabric.hcas.len() + 1;
        let mut switch_index = vec![u32::MAX; fabric.nodes.len()];
        for (i, &s) in fabric.switches.iter().enumerate() {
            switch_index[s as usize] = i as u32;
        }
        ForwardingTables { lids, switch_index, port: vec![NO_PORT; fabric.switches.len() * lids] }
    }

    /// Sets the output port of switch `sw` for `dlid`.
    pub fn set(&mut self, sw: NodeId, dlid: u32, port: u16) {
        let i = self.switch_index[sw as usize] as usize * self.lids + dlid as usize;
        self.port[i] = port;
    }

    /// Output port of switch `sw` for `dlid` ([`NO_PORT`] if none). Hot path.
    #[inline]
    pub fn out_port(&self, sw: NodeId, dlid: u32) -> u16 {
        self.port[self.switch_index[sw as usize] as usize * self.lids + dlid as usize]
    }

    /// Follows the tables from HCA `src` to HCA `dst`; returns the (switch, output port) hops.
    /// Errors name the switch where the route is missing, leaves the fabric, or loops.
    pub fn route(&self, fabric: &Fabric, src: NodeId, dst: NodeId) -> Result<Vec<(NodeId, u16)>> {
        let dlid = fabric.nodes[dst as usize].lid;
        let (sname, dname) = (&fabric.nodes[src as usize].name, &fabric.nodes[dst as usize].name);
        let mut hops = Vec::new();
        let mut cur = fabric.nodes[src as usize].ports[0].peer;
        loop {
            let node = &fabric.nodes[cur as usize];
            if node.kind == NodeKind::Hca {
                if cur == dst {
                    return Ok(hops);
                }
                return Err(Error::Input(format!(
                    "routing: route {sname} → {dname} ends at the wrong HCA `{}`",
                    node.name
                )));
            }
            let p = self.out_port(cur, dlid);
            if p == NO_PORT {
                return Err(Error::Input(format!(
                    "routing: destination {dname} (LID {dlid}) is unreachable from {sname}: switch `{}` has no forwarding entry for it",
                    node.name
                )));
            }
            if p as usize >= node.ports.len() {
                return Err(Error::Input(format!(
                    "routing: switch `{}` forwards LID {dlid} to port {p}, which does not exist (it has {} ports)",
                    node.name,
                    node.ports.len()
                )));
            }
            hops.push((cur, p));
            if hops.len() > fabric.nodes.len() {
                return Err(Error::Input(format!("routing: route {sname} → {dname} loops (through switch `{}`)", node.name)));
            }
            cur = node.ports[p as usize].peer;
        }
    }
}

/// Loads tables from a `.fdbs` file (spec §3.6). Implemented in this module's second half.
pub fn load_fdbs(path: &std::path::Path, fabric: &Fabric) -> Result<ForwardingTables> {
    let _ = (path, fabric);
    Err(Error::Internal("load_fdbs: not implemented yet".into()))
}
