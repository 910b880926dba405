//! Linear forwarding tables (LFT): DLID → output port per switch, and the `.fdbs` file format
//! of spec §3.6 (`<switch>: 255 p1 p2 …`, entry 0 is the non-existent LID 0): [`load_fdbs`]
//! reads it, [`ForwardingTables::to_fdbs`] writes it.

use crate::config::LmcPath;
use crate::error::{Error, Result};
use crate::topology::{Fabric, NodeId, NodeKind};

/// "No route" marker in a table (255 in `.fdbs` files).
pub const NO_PORT: u16 = u16::MAX;

/// The "no route" entry of a `.fdbs` file; ports 0–254 are expressible.
pub const FDBS_NO_ROUTE: u16 = 255;

/// Forwarding tables of every switch, flat: `port[switch_index * lids + dlid]`.
///
/// The LID space is lnsim's own: HCA index `h` answers the `2^lmc` LIDs
/// `(h + 1)·2^lmc ..` ([`ForwardingTables::lids_of`]), aligned to `2^lmc` as OpenSM assigns
/// them; with LMC 0 that is LID `h + 1`. Imported LIDs are mapped onto it (`lft_dump.rs`),
/// and the exporter maps it back onto the LIDs it writes.
#[derive(Debug, Clone)]
pub struct ForwardingTables {
    /// Number of LID slots per switch (max LID + 1; slot 0 unused).
    pub lids: usize,
    /// The LID layout's LMC: every HCA has `2^lmc` LID slots.
    pub lmc: u8,
    /// Per HCA index: its own LMC (at most `lmc`; an imported port may have a smaller one, and
    /// then only the first `2^hca_lmc` of its slots are LIDs).
    pub hca_lmc: Vec<u8>,
    /// Which of a destination's LIDs the sources use (`routing.lmc_path`).
    pub lmc_path: LmcPath,
    /// Node id → switch index (u32::MAX for HCAs).
    pub switch_index: Vec<u32>,
    /// Output ports, [`NO_PORT`] where no route is set.
    pub port: Vec<u16>,
}

impl ForwardingTables {
    /// Empty tables (every entry [`NO_PORT`]) for a fabric, one LID per HCA (LMC 0).
    pub fn empty(fabric: &Fabric) -> Self {
        Self::with_lmc(fabric, 0).expect("LMC 0 tables are sized like the fabric")
    }

    /// Empty tables with `2^lmc` LIDs per HCA: the allocation (switches × LIDs entries) is
    /// refused with an error naming `routing.lmc` when it cannot be made, rather than aborting.
    pub fn with_lmc(fabric: &Fabric, lmc: u8) -> Result<Self> {
        let lids = (fabric.hcas.len() + 1) << lmc;
        let mut switch_index = vec![u32::MAX; fabric.nodes.len()];
        for (i, &s) in fabric.switches.iter().enumerate() {
            switch_index[s as usize] = i as u32;
        }
        let entries = fabric.switches.len().checked_mul(lids);
        let mut port: Vec<u16> = Vec::new();
        if entries.is_none_or(|n| port.try_reserve_exact(n).is_err()) {
            return Err(Error::input(
                "routing.lmc",
                format!(
                    "LMC {lmc} needs forwarding tables of {} switches × {lids} LIDs, which cannot be allocated; use a smaller LMC",
                    fabric.switches.len()
                ),
            ));
        }
        port.resize(entries.unwrap_or(0), NO_PORT);
        Ok(ForwardingTables {
            lids,
            lmc,
            hca_lmc: vec![lmc; fabric.hcas.len()],
            lmc_path: LmcPath::Base,
            switch_index,
            port,
        })
    }

    /// The LIDs of HCA index `hca`: its base LID and the following ones of its LMC range. The
    /// one place that says which LIDs an HCA answers (routing engines route each of them).
    #[inline]
    pub fn lids_of(&self, hca: u32) -> std::ops::Range<u32> {
        let base = (hca + 1) << self.lmc;
        base..base + (1u32 << self.hca_lmc[hca as usize])
    }

    /// The DLID of HCA index `hca` at `offset` in its LMC range (`offset` is taken modulo the
    /// layout's `2^lmc`: with LMC 0 every offset is the base LID). Hot path.
    #[inline(always)]
    pub fn dlid(&self, hca: u32, offset: u8) -> u32 {
        ((hca + 1) << self.lmc) + (offset as u32 & ((1u32 << self.lmc) - 1))
    }

    /// The offsets in `dst`'s LMC range that packets from `src` can carry under
    /// [`ForwardingTables::lmc_path`]: `base` only 0, `source` the source's fixed one, `message`
    /// every one.
    pub fn offsets_used(&self, src: u32, dst: u32) -> std::ops::Range<u8> {
        let n = 1u32 << self.hca_lmc[dst as usize];
        match self.lmc_path {
            LmcPath::Base => 0..1,
            LmcPath::Source => {
                let k = (src % n) as u8;
                k..k + 1
            }
            LmcPath::Message => 0..n as u8,
        }
    }

    /// How many of the `hcas` HCAs other than `dst` send to `dst`'s LID at `offset`
    /// ([`ForwardingTables::offsets_used`] counted without visiting them).
    pub fn sources_using(&self, hcas: u32, dst: u32, offset: u8) -> u64 {
        let n = 1u32 << self.hca_lmc[dst as usize];
        let k = offset as u32;
        if k >= n {
            return 0;
        }
        let others = hcas.saturating_sub(1) as u64;
        match self.lmc_path {
            LmcPath::Base if k == 0 => others,
            LmcPath::Base => 0,
            LmcPath::Message => others,
            LmcPath::Source => {
                // sources i < hcas with i mod n = k, but not dst itself
                let all = if hcas > k { (hcas - k).div_ceil(n) } else { 0 } as u64;
                all - u64::from(dst % n == k)
            }
        }
    }

    /// The offset the next packet of flow `fl` carries: `base` 0, `source` the source index
    /// mod the destination's LID count, `message` the flow's round-robin turn mod that count
    /// (see [`ForwardingTables::offsets_used`]).
    #[inline]
    pub fn next_offset(&self, fl: &crate::credit::traffic::Flow) -> u8 {
        let n = 1u32 << self.hca_lmc[fl.dst as usize];
        match self.lmc_path {
            LmcPath::Base => 0,
            LmcPath::Source => (fl.src % n) as u8,
            LmcPath::Message => (fl.lid_turn as u32 % n) as u8,
        }
    }

    /// Prefetch hint for the entry of switch `sw` for `dlid` (`credit/prefetch.rs`).
    #[inline(always)]
    pub fn prefetch(&self, sw: NodeId, dlid: u32) {
        let i = self.switch_index[sw as usize] as usize * self.lids + dlid as usize;
        crate::credit::prefetch::prefetch(&self.port, i);
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

    /// Follows the tables from HCA `src` to HCA `dst`'s base LID; returns the (switch, output
    /// port) hops. Errors name the switch where the route is missing, leaves the fabric, or
    /// loops.
    pub fn route(&self, fabric: &Fabric, src: NodeId, dst: NodeId) -> Result<Vec<(NodeId, u16)>> {
        self.route_to_lid(fabric, src, dst, 0)
    }

    /// [`ForwardingTables::route`] to the LID at `offset` in `dst`'s LMC range.
    pub fn route_to_lid(
        &self,
        fabric: &Fabric,
        src: NodeId,
        dst: NodeId,
        offset: u8,
    ) -> Result<Vec<(NodeId, u16)>> {
        let dlid = self.dlid(fabric.nodes[dst as usize].lid - 1, offset);
        let (sname, dname) = (
            &fabric.nodes[src as usize].name,
            &fabric.nodes[dst as usize].name,
        );
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
                return Err(Error::Input(format!(
                    "routing: route {sname} → {dname} loops (through switch `{}`)",
                    node.name
                )));
            }
            cur = node.ports[p as usize].peer;
        }
    }
}

impl ForwardingTables {
    /// Checks the routes of the (source, destination) HCA index pairs `pairs`, in their order,
    /// as [`ForwardingTables::route`] on each would: returns the longest route (switch hops), or
    /// the error `route` gives for the first pair whose route fails. Instead of walking every
    /// route (O(pairs × hops)) it follows the tables once per destination from every node a
    /// source reaches, remembering each node's outcome (O(destinations × nodes + pairs)); the
    /// first failing pair is then walked by `route` for its exact error.
    ///
    /// With LMC > 0 each pair is checked at every DLID its packets can carry
    /// ([`ForwardingTables::offsets_used`]), offset by offset.
    pub fn check_routes(&self, fabric: &Fabric, pairs: &[(u32, u32)]) -> Result<usize> {
        if self.lmc == 0 {
            return self.check_routes_at(fabric, pairs, 0);
        }
        let mut longest = 0;
        let mut at: Vec<(u32, u32)> = Vec::with_capacity(pairs.len());
        for k in 0..1u8 << self.lmc {
            at.clear();
            at.extend(
                pairs
                    .iter()
                    .copied()
                    .filter(|&(a, b)| self.offsets_used(a, b).contains(&k)),
            );
            longest = longest.max(self.check_routes_at(fabric, &at, k)?);
        }
        Ok(longest)
    }

    /// [`ForwardingTables::check_routes`] of `pairs` at the LID at `offset` of each
    /// destination's range.
    fn check_routes_at(&self, fabric: &Fabric, pairs: &[(u32, u32)], offset: u8) -> Result<usize> {
        /// Outcome of a node for the current destination: unknown, on the walk under way,
        /// failing, or reaching the destination in `n` switch hops (`OK + n`).
        const UNKNOWN: u32 = u32::MAX;
        const WALKING: u32 = u32::MAX - 1;
        const FAILS: u32 = u32::MAX - 2;
        let nn = fabric.nodes.len();
        // pair indices grouped by destination (counting sort)
        let mut start_of = vec![0usize; fabric.hcas.len() + 1];
        for &(_, b) in pairs {
            start_of[b as usize + 1] += 1;
        }
        for i in 0..fabric.hcas.len() {
            start_of[i + 1] += start_of[i];
        }
        let mut order = vec![0u32; pairs.len()];
        for (i, &(_, b)) in pairs.iter().enumerate() {
            order[start_of[b as usize]] = i as u32;
            start_of[b as usize] += 1;
        }
        // the fabric in flat arrays: the far end of every port, the first port of every node
        // (HCAs: u32::MAX) and its number of ports
        let mut first_port = vec![u32::MAX; nn];
        let mut n_ports = vec![0u32; nn];
        let mut peer: Vec<NodeId> = Vec::new();
        for (i, node) in fabric.nodes.iter().enumerate() {
            if node.kind != NodeKind::Hca {
                first_port[i] = peer.len() as u32;
                n_ports[i] = node.ports.len() as u32;
                peer.extend(node.ports.iter().map(|p| p.peer));
            }
        }
        let mut outcome = vec![UNKNOWN; nn];
        let mut stamp = vec![u32::MAX; nn];
        let mut walk: Vec<NodeId> = Vec::new();
        let mut first_bad: Option<u32> = None;
        let mut longest = 0usize;
        // the table entries of BLOCK destinations at a time, copied switch by switch (reading
        // one destination's entries of every switch directly would touch a memory page per
        // switch)
        const BLOCK: usize = 32;
        let ns = fabric.switches.len();
        let mut blk = vec![NO_PORT; ns * BLOCK];
        let mut blk_base = u32::MAX;
        let mut k = 0;
        while k < order.len() {
            let b = pairs[order[k] as usize].1;
            let dst = fabric.hcas[b as usize];
            let base = b - b % BLOCK as u32;
            if base != blk_base {
                blk_base = base;
                let hi = (base as usize + BLOCK).min(fabric.hcas.len());
                let dl: Vec<usize> = (base as usize..hi)
                    .map(|h| self.dlid(h as u32, offset) as usize)
                    .collect();
                for swi in 0..ns {
                    let row = &self.port[swi * self.lids..(swi + 1) * self.lids];
                    for (j, &d) in dl.iter().enumerate() {
                        blk[swi * BLOCK + j] = row[d];
                    }
                }
            }
            let col = (b - base) as usize;
            let epoch = b;
            // the outcome of `start` (its hops to dst), filling the nodes of its walk
            let mut eval = |start: NodeId, outcome: &mut Vec<u32>, stamp: &mut Vec<u32>| -> u32 {
                walk.clear();
                let mut cur = start;
                let end = loop {
                    let c = cur as usize;
                    if stamp[c] != epoch {
                        stamp[c] = epoch;
                        outcome[c] = UNKNOWN;
                    }
                    match outcome[c] {
                        UNKNOWN => {}
                        WALKING => break FAILS, // a loop
                        v => break v,
                    }
                    if first_port[c] == u32::MAX {
                        break if cur == dst { 0 } else { FAILS };
                    }
                    let p = blk[self.switch_index[c] as usize * BLOCK + col];
                    if p == NO_PORT || p as u32 >= n_ports[c] {
                        outcome[c] = FAILS;
                        break FAILS;
                    }
                    outcome[c] = WALKING;
                    walk.push(cur);
                    cur = peer[(first_port[c] + p as u32) as usize];
                };
                // unwind: each switch of the walk is one hop further than its successor
                let mut v = end;
                for &n in walk.iter().rev() {
                    if v < FAILS {
                        v += 1;
                    }
                    outcome[n as usize] = v;
                }
                v
            };
            while k < order.len() && pairs[order[k] as usize].1 == b {
                let i = order[k];
                let a = pairs[i as usize].0;
                let start = fabric.nodes[fabric.hcas[a as usize] as usize].ports[0].peer;
                let h = eval(start, &mut outcome, &mut stamp);
                if h >= FAILS {
                    first_bad = Some(first_bad.map_or(i, |f| f.min(i)));
                } else {
                    longest = longest.max(h as usize);
                }
                k += 1;
            }
        }
        if let Some(i) = first_bad {
            let (a, b) = pairs[i as usize];
            self.route_to_lid(
                fabric,
                fabric.hcas[a as usize],
                fabric.hcas[b as usize],
                offset,
            )?;
            return Err(Error::Internal(format!(
                "route check: the route from HCA {a} to HCA {b} failed once and not again"
            )));
        }
        Ok(longest)
    }

    /// Writes the tables in the `.fdbs` format of spec §3.6 (Z-Tab 3.4), which [`load_fdbs`]
    /// reads back: one line per switch in [`Fabric::switches`] order, `ID: 255 p1 … pN` with
    /// one entry per LID 1..N (255 = no route). ID is the switch name without a leading `SW`
    /// (`SW11` → `11`, as in the spec), unless that would clash with another node's name or be
    /// empty; other names (`S1`, `L1_3`) are written as they are. A port number of 255 or more
    /// cannot be written (255 means "no route"): that is an input error naming the switch
    /// (the credit-level model's switches have at most 254 ports, 0–253, so it never happens there).
    pub fn to_fdbs(&self, fabric: &Fabric) -> Result<String> {
        use std::fmt::Write;
        let mut out = String::new();
        for &sw in &fabric.switches {
            let name = &fabric.nodes[sw as usize].name;
            let id = match name.strip_prefix("SW") {
                Some(rest) if !rest.is_empty() && !fabric.by_name.contains_key(rest) => rest,
                _ => name.as_str(),
            };
            out.push_str(id);
            out.push_str(": 255");
            for lid in 1..self.lids as u32 {
                match self.out_port(sw, lid) {
                    NO_PORT => out.push_str(" 255"),
                    p if p >= FDBS_NO_ROUTE => {
                        return Err(Error::Input(format!(
                            "routing: switch `{name}` forwards LID {lid} to port {p}, which a .fdbs table cannot hold (ports 0-254; 255 means no route)"
                        )))
                    }
                    p => {
                        let _ = write!(out, " {p}");
                    }
                }
            }
            out.push('\n');
        }
        Ok(out)
    }
}

/// Loads linear forwarding tables from a `.fdbs` file (spec §3.6, Z-Tab 3.4;
/// `routing.algorithm = "lft_file"`).
///
/// Format: one line per switch, `ID: 255 p1 p2 …`. ID is the switch name (`SW11`, `S1`) or the
/// name without its `SW` prefix (`11`). Entry i is the output port for LID i; entry 0 (the
/// non-existent LID 0) must be 255; 255 means "no route". A line may have fewer entries than
/// max LID + 1 (missing trailing entries: no route, like the spec's printed table), not more.
/// Switches without a line get no routes. Blank lines and `#` comments are ignored. Port
/// numbers are 0–254 (255 always means "no route"); the credit-level model's switches have at
/// most 254 ports, so every port is expressible.
/// Errors are input errors `"{path}:{line}: …"` (unknown switch, port that does not exist on
/// that switch, non-numeric value, duplicate switch line).
pub fn load_fdbs(path: &std::path::Path, fabric: &Fabric) -> Result<ForwardingTables> {
    let text = crate::config::input_files::read_text(path)
        .map_err(|why| Error::input("routing.file", format!("`{}` {why}", path.display())))?;
    parse_fdbs(&text, &path.display().to_string(), fabric)
}

/// Parses `.fdbs` text (see [`load_fdbs`]); `origin` names it in error messages.
fn parse_fdbs(text: &str, origin: &str, fabric: &Fabric) -> Result<ForwardingTables> {
    let mut tables = ForwardingTables::empty(fabric);
    let mut seen: std::collections::HashMap<NodeId, usize> = std::collections::HashMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let err = |msg: String| Error::Input(format!("{origin}:{line}: {msg}"));
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let (id, vals) = content.split_once(':').ok_or_else(|| {
            err("expected `SWITCH: 255 p1 p2 …` (switch name, colon, ports per LID)".into())
        })?;
        let id = id.trim();
        let sw = match fabric.by_name.get(id) {
            Some(&n) if fabric.nodes[n as usize].kind == NodeKind::Hca => {
                return Err(err(format!("`{id}` is an HCA, not a switch")))
            }
            Some(&n) => n,
            None => *fabric
                .by_name
                .get(&format!("SW{id}"))
                .filter(|&&n| fabric.nodes[n as usize].kind == NodeKind::Switch)
                .ok_or_else(|| err(format!("unknown switch `{id}`")))?,
        };
        let node = &fabric.nodes[sw as usize];
        if let Some(prev) = seen.insert(sw, line) {
            return Err(err(format!(
                "second line for switch `{}` (first on line {prev})",
                node.name
            )));
        }
        let toks: Vec<&str> = vals.split_whitespace().collect();
        if toks.is_empty() {
            return Err(err(format!(
                "no entries for switch `{}`; a line starts with 255 (LID 0)",
                node.name
            )));
        }
        if toks.len() > tables.lids {
            return Err(err(format!(
                "{} entries, but the fabric's largest LID is {} (at most {} entries: 255 for LID 0, then LIDs 1..{})",
                toks.len(),
                tables.lids - 1,
                tables.lids,
                tables.lids - 1
            )));
        }
        for (lid, tok) in toks.iter().enumerate() {
            let v: u32 = tok.parse().map_err(|_| {
                err(format!(
                    "entry {lid} (LID {lid}): `{tok}` is not a port number"
                ))
            })?;
            if lid == 0 {
                if v != 255 {
                    return Err(err(format!(
                        "entry 0 (LID 0, no HCA) must be 255, found {v}"
                    )));
                }
                continue;
            }
            if v == FDBS_NO_ROUTE as u32 {
                continue;
            }
            if v > FDBS_NO_ROUTE as u32 {
                return Err(err(format!(
                    "LID {lid}: port {v} is outside the .fdbs range (ports 0-254; 255 = no route)"
                )));
            }
            let n = node.ports.len();
            if v as usize >= n {
                return Err(err(format!(
                    "LID {lid}: port {v} does not exist on switch `{}` (it has {n} ports, 0..{})",
                    node.name,
                    n.saturating_sub(1)
                )));
            }
            tables.set(sw, lid as u32, v as u16);
        }
    }
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TopologyKind;
    use crate::credit::routing::dor_tables as dor;
    use crate::topology::mesh_torus::tests::mesh;
    use crate::topology::testbed::tests::testbed;

    fn mesh33() -> Fabric {
        mesh(TopologyKind::Mesh, &[3, 3], 2, None)
    }

    fn load_err(text: &str, f: &Fabric) -> String {
        parse_fdbs(text, "t.fdbs", f).unwrap_err().to_string()
    }

    #[test]
    fn round_trip_dor_tables() {
        let f = mesh33();
        let t = dor::build(&f).unwrap();
        let text = t.to_fdbs(&f).unwrap();
        assert!(
            text.starts_with("11: 255 0 1 3 3 3 3 2 2 3 3 3 3 2 2 3 3 3 3\n12: 255 2 2 0 1"),
            "{text}"
        );
        assert_eq!(text.lines().count(), 9);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mesh.fdbs");
        std::fs::write(&path, &text).unwrap();
        let back = load_fdbs(&path, &f).unwrap();
        assert_eq!(back.port, t.port);
        assert_eq!(back.lids, t.lids);
        // names without the SW prefix round-trip as they are
        let g = testbed();
        let mut tg = ForwardingTables::empty(&g);
        tg.set(g.by_name["S1"], 4, 3);
        let text = tg.to_fdbs(&g).unwrap();
        assert!(text.starts_with("S1: 255 255 255 255 3 255"), "{text}");
        assert_eq!(parse_fdbs(&text, "x", &g).unwrap().port, tg.port);
    }

    #[test]
    fn loads_printed_z_tab() {
        // Z-Tab 3.4 as printed: 17 entries per row (LID 18 cut off), `SW` prefix optional
        let text = "\
# Z-Tab 3.4
SW12: 255 2 2 0 1 3 3 2 2 4 4 3 3 2 2 4 4 3
13: 255 2 2 2 2 0 1 2 2 2 2 3 3 2 2 2 2 3

22: 255 2 2 4 4 3 3 2 2 0 1 3 3 2 2 5 5 3
";
        let f = mesh33();
        let t = parse_fdbs(text, "z.fdbs", &f).unwrap();
        let dor = dor::build(&f).unwrap();
        for sw in ["SW12", "SW13", "SW22"] {
            let s = f.by_name[sw];
            for lid in 1..=17 {
                assert_eq!(t.out_port(s, lid), dor.out_port(s, lid), "{sw} LID {lid}");
            }
            assert_eq!(t.out_port(s, 18), NO_PORT);
        }
        for lid in 1..=18 {
            assert_eq!(t.out_port(f.by_name["SW11"], lid), NO_PORT);
        }
        let e = t
            .route(&f, f.by_name["H111"], f.by_name["H221"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("switch `SW11` has no forwarding entry"), "{e}");
    }

    #[test]
    fn load_errors() {
        let f = mesh33();
        let cases = [
            ("44: 255 0\n", "t.fdbs:1: unknown switch `44`"),
            ("SW44: 255 0\n", "t.fdbs:1: unknown switch `SW44`"),
            ("H111: 255 0\n", "t.fdbs:1: `H111` is an HCA, not a switch"),
            (
                "\n11: 255 0 1 4\n",
                "t.fdbs:2: LID 3: port 4 does not exist on switch `SW11` (it has 4 ports, 0..3)",
            ),
            (
                "11: 255 0 x\n",
                "t.fdbs:1: entry 2 (LID 2): `x` is not a port number",
            ),
            (
                "11: 255 0 -1\n",
                "t.fdbs:1: entry 2 (LID 2): `-1` is not a port number",
            ),
            (
                "11: 255 0\n12: 255\nSW11: 255\n",
                "t.fdbs:3: second line for switch `SW11` (first on line 1)",
            ),
            (
                "11: 0 0 1\n",
                "t.fdbs:1: entry 0 (LID 0, no HCA) must be 255, found 0",
            ),
            ("11:\n", "t.fdbs:1: no entries for switch `SW11`"),
            ("11 255 0 1\n", "t.fdbs:1: expected `SWITCH: 255"),
            (
                "11: 255 0 256\n",
                "t.fdbs:1: LID 2: port 256 is outside the .fdbs range (ports 0-254; 255 = no route)",
            ),
            (
                "11: 255 0 70000\n",
                "t.fdbs:1: LID 2: port 70000 is outside the .fdbs range",
            ),
        ];
        for (text, want) in cases {
            let e = load_err(text, &f);
            assert!(e.starts_with(want), "{text:?}: got {e}, want {want}");
        }
        let long = format!("11: 255{}\n", " 0".repeat(19));
        let e = load_err(&long, &f);
        assert!(
            e.starts_with("t.fdbs:1: 20 entries, but the fabric's largest LID is 18"),
            "{e}"
        );
        let e = load_fdbs(std::path::Path::new("/nonexistent/x.fdbs"), &f)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "routing.file: `/nonexistent/x.fdbs` does not exist");
        // a device is refused, not read until memory runs out
        let e = load_fdbs(std::path::Path::new("/dev/zero"), &f)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "routing.file: `/dev/zero` is a character device, not a regular file; give a file"
        );
    }

    #[test]
    fn the_largest_switch_round_trips_and_port_255_is_refused() {
        // a switch with the most ports the credit-level model allows: 254 HCAs, ports 0..=253
        let mut text = String::from("switch S\n");
        for i in 0..crate::topology::MAX_SWITCH_PORTS {
            text.push_str(&format!("hca H{i}\nlink H{i} S\n"));
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("big.topo"), &text).unwrap();
        let cfg = crate::config::FileTopologyConfig {
            file: "big.topo".into(),
        };
        let l = crate::topology::mesh_torus::tests::link();
        let f = crate::topology::file::build(&cfg, dir.path(), l, l).unwrap();
        let s = f.by_name["S"];
        let mut t = ForwardingTables::empty(&f);
        for lid in 1..=254u32 {
            t.set(s, lid, (lid - 1) as u16);
        }
        let fdbs = t.to_fdbs(&f).unwrap();
        assert!(fdbs.ends_with(" 252 253\n"), "{fdbs}");
        let back = parse_fdbs(&fdbs, "x", &f).unwrap();
        assert_eq!(back.port, t.port);
        // port 255 would read back as "no route": writing it is refused, not corrupted
        let mut wide = f.clone();
        let n = &mut wide.nodes[s as usize];
        let extra = n.ports[0];
        n.ports.push(extra);
        n.ports.push(extra);
        t.set(s, 7, 255);
        let e = t.to_fdbs(&wide).unwrap_err().to_string();
        assert!(
            e.starts_with(
                "routing: switch `S` forwards LID 7 to port 255, which a .fdbs table cannot hold"
            ),
            "{e}"
        );
    }

    #[test]
    fn route_reports_loops_and_bad_ports() {
        let f = testbed();
        let (s1, s2) = (f.by_name["S1"], f.by_name["S2"]);
        let mut t = ForwardingTables::empty(&f);
        // H1 → H5 bounces between S1 and S2
        t.set(s1, 5, 3);
        t.set(s2, 5, 4);
        let e = t
            .route(&f, f.by_name["H1"], f.by_name["H5"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("loops"), "{e}");
        t.set(s2, 5, 9);
        let e = t
            .route(&f, f.by_name["H1"], f.by_name["H5"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("port 9, which does not exist"), "{e}");
        t.set(s2, 5, 0);
        let e = t
            .route(&f, f.by_name["H1"], f.by_name["H5"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("wrong HCA `H4`"), "{e}");
        t.set(s2, 5, 1);
        let hops = t.route(&f, f.by_name["H1"], f.by_name["H5"]).unwrap();
        assert_eq!(hops, vec![(s1, 3), (s2, 1)]);
    }
}

/// LMC > 0: the LID layout and the DLID a source picks (`routing.lmc_path`).
#[cfg(test)]
mod lmc_tests {
    use super::*;
    use crate::topology::testbed::tests::testbed;

    #[test]
    fn the_lids_of_an_hca_are_aligned_and_the_dlid_choice_picks_what_it_says() {
        let f = testbed();
        let n = f.hcas.len() as u32;
        let mut t = ForwardingTables::with_lmc(&f, 2).unwrap();
        assert_eq!(t.lids, (n as usize + 1) * 4);
        for h in 0..n {
            let l = t.lids_of(h);
            assert_eq!((l.start % 4, l.len()), (0, 4), "HCA {h}");
            assert_eq!(t.dlid(h, 3), l.start + 3);
            // no two HCAs share a LID
            assert!(h == 0 || t.lids_of(h - 1).end <= l.start);
        }
        let mut flow = crate::credit::traffic::flows::new_flow(5, 2, 0, 0, true);
        // base: the base LID only
        assert_eq!(t.offsets_used(5, 2), 0..1);
        assert_eq!(t.next_offset(&flow), 0);
        // source: the source index mod the LID count, whatever the message
        t.lmc_path = LmcPath::Source;
        assert_eq!(t.offsets_used(5, 2), 1..2);
        flow.lid_turn = 3;
        assert_eq!(t.next_offset(&flow), 1);
        // message: every LID, the flow's turn mod 4
        t.lmc_path = LmcPath::Message;
        assert_eq!(t.offsets_used(5, 2), 0..4);
        assert_eq!(t.next_offset(&flow), 3);
        flow.lid_turn = 6;
        assert_eq!(t.next_offset(&flow), 2);
        // the sources counted per offset are those `offsets_used` names
        for path in [LmcPath::Base, LmcPath::Source, LmcPath::Message] {
            t.lmc_path = path;
            for d in 0..n {
                for k in 0..4u8 {
                    let walk = (0..n)
                        .filter(|&a| a != d && t.offsets_used(a, d).contains(&k))
                        .count() as u64;
                    assert_eq!(t.sources_using(n, d, k), walk, "{path:?} {d} {k}");
                }
            }
        }
        // LMC 0: every offset is the base LID
        let t0 = ForwardingTables::empty(&f);
        assert_eq!(t0.dlid(4, 3), 5);
    }
}

#[cfg(test)]
mod check_routes_tests {
    use super::*;
    use crate::config::TopologyKind;
    use crate::credit::routing::dor_tables as dor;
    use crate::topology::mesh_torus::tests::mesh;

    /// What checking every route one by one with [`ForwardingTables::route`] gives.
    fn one_by_one(t: &ForwardingTables, f: &Fabric, pairs: &[(u32, u32)]) -> Result<usize> {
        let mut longest = 0;
        for &(a, b) in pairs {
            let r = t.route(f, f.hcas[a as usize], f.hcas[b as usize])?;
            longest = longest.max(r.len());
        }
        Ok(longest)
    }

    /// The per-destination check agrees with the route-by-route one (longest route, or the
    /// same error for the same first pair) on intact DOR tables of meshes and tori and on
    /// tables with missing entries, ports that do not exist, wrong HCAs and loops.
    #[test]
    fn check_routes_matches_checking_each_route() {
        let mut seed = 12345u64;
        let mut rnd = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let (mut ok, mut bad) = (0, 0);
        for (kind, dims, hcas) in [
            (TopologyKind::Mesh, vec![3, 3], 2),
            (TopologyKind::Mesh, vec![4, 5], 1),
            (TopologyKind::Torus, vec![4, 4], 1),
            (TopologyKind::Torus, vec![3, 2, 3], 2),
        ] {
            let f = mesh(kind, &dims, hcas, None);
            let good = dor::build(&f).unwrap();
            let n = f.hcas.len() as u32;
            let all: Vec<(u32, u32)> = (0..n)
                .flat_map(|a| (0..n).filter(move |&b| b != a).map(move |b| (a, b)))
                .collect();
            for trial in 0..60 {
                let mut t = good.clone();
                // break a few entries: none, a missing one, a bad port, any port (wrong HCAs,
                // loops)
                for _ in 0..trial % 4 {
                    let sw = f.switches[rnd(f.switches.len() as u64) as usize];
                    let lid = 1 + rnd(n as u64) as u32;
                    let ports = f.nodes[sw as usize].ports.len() as u64;
                    let p = match rnd(4) {
                        0 => NO_PORT,
                        1 => ports as u16 + rnd(3) as u16,
                        _ => rnd(ports) as u16,
                    };
                    t.set(sw, lid, p);
                }
                let pairs: Vec<(u32, u32)> = if trial % 3 == 0 {
                    all.clone()
                } else {
                    all.iter().copied().filter(|_| rnd(3) == 0).collect()
                };
                let want = one_by_one(&t, &f, &pairs).map_err(|e| e.to_string());
                let got = t.check_routes(&f, &pairs).map_err(|e| e.to_string());
                assert_eq!(got, want, "{kind:?} {dims:?} trial {trial}");
                if want.is_ok() {
                    ok += 1;
                } else {
                    bad += 1;
                }
            }
        }
        assert!(ok >= 60 && bad >= 60, "{ok} intact, {bad} failing");
    }
}
