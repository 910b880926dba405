//! A real fabric's forwarding tables (`routing.algorithm = "lft_dump"`, `routing.file`;
//! docs/fabrics.md): the linear forwarding tables (LFTs) that `ibroute`, `dump_lfts.sh` /
//! `dump_fts` or OpenSM (`opensm-lfts.dump`) print, matched to the fabric that
//! `topology.kind = "ibnetdiscover"` imported ([`crate::topology::ib_identity`]); and the
//! writer of lnsim's own tables in OpenSM's format ([`write_opensm`], for `lnsim export`).
//!
//! # What is read
//! One loose grammar for all of them, as OpenSM's own loader (`-U`) reads them: a block per
//! switch, opened by `Unicast lids [<first>-<last>] of switch <…> guid 0x<node GUID> (<desc>):`
//! (ibroute's hexadecimal range or OpenSM's decimal one), then one line per LID
//! `0x<LID> <port> [<info>]`; an `<info>` holding `portguid 0x<GUID>` names the port that
//! answers the LID. The switch is found by its node GUID; a LID whose port GUID is known but
//! which lies outside that port's LIDs is moved into them (`base + (LID mod 2^LMC)`, OpenSM's
//! rule: a dump taken before the LIDs changed still applies). Column headings, footers
//! (`12 valid lids dumped`), comments, `dump_lfts.sh`'s deprecation trailer and multicast
//! blocks (`Multicast mlids …`, up to the next unicast block) are skipped.
//!
//! # What is checked
//! Every switch of the fabric has a table; for every LID of every HCA (each LID of its LMC
//! range), every switch has an entry, to a connected port, and following the entries from any
//! switch reaches that HCA without a loop. An error names the switch (name and GUID), the LID
//! and, where one line is at fault, `file:line`. Every LID of a range keeps its own entries
//! (lnsim's LID layout: [`ForwardingTables::lids_of`]); which of them the traffic uses is
//! `routing.lmc_path`, and the channel-dependency check of the credit build says whether the
//! routes it takes can deadlock.

use crate::error::{Error, Result};
use crate::topology::ib_identity::{IbIdentity, MAX_UNICAST_LID};
use crate::topology::{Fabric, NodeId, NodeKind};
use std::collections::HashMap;
use std::path::Path;

use super::ForwardingTables;

/// Loads the LFT dump at `path` for `fabric` (which must carry its InfiniBand identity).
pub fn load(path: &Path, fabric: &Fabric) -> Result<ForwardingTables> {
    let text = crate::config::input_files::read_text(path)
        .map_err(|why| Error::input("routing.file", format!("`{}` {why}", path.display())))?;
    parse(&text, &path.display().to_string(), fabric)
}

/// The entries of one switch's block: LID → (IB port, line).
type Entries = HashMap<u32, (u8, usize)>;

/// Where the reader is.
enum Block {
    /// Before the first unicast header.
    None,
    /// In a multicast block (skipped).
    Skip,
    /// In the unicast block of switch index `i`.
    Switch(usize),
}

/// The hexadecimal number at the start of `s` (digits up to the first other character).
fn hex_prefix(s: &str) -> Option<u64> {
    let n = s.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(s.len());
    if n == 0 || n > 16 {
        return None;
    }
    u64::from_str_radix(&s[..n], 16).ok()
}

/// Parses an LFT dump for `fabric`; `origin` names it in messages.
pub fn parse(text: &str, origin: &str, fabric: &Fabric) -> Result<ForwardingTables> {
    let ib: &IbIdentity = fabric.ib.as_deref().ok_or_else(|| {
        Error::input(
            "routing.algorithm",
            "\"lft_dump\" matches the dump to the fabric by switch GUID: it needs topology.kind = \"ibnetdiscover\"",
        )
    })?;
    let err = |line: usize, msg: String| Error::Input(format!("{origin}:{line}: {msg}"));
    let sw_of: HashMap<NodeId, usize> = fabric
        .switches
        .iter()
        .enumerate()
        .map(|(i, &s)| (s, i))
        .collect();
    let by_guid = ib.switches_by_guid();
    let by_port_guid = ib.by_port_guid();
    let mut tables: Vec<Option<(usize, Entries)>> = vec![None; fabric.switches.len()];
    let mut block = Block::None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let t = raw.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with("*** WARNING ***") {
            continue;
        }
        if t.starts_with("Unicast lids") {
            let Some(g) = t.find(" guid 0x").and_then(|k| hex_prefix(&t[k + 8..])) else {
                return Err(err(
                    line,
                    "expected ` guid 0x<switch node GUID>` in the `Unicast lids …` header".into(),
                ));
            };
            let Some(&sw) = by_guid.get(&g) else {
                return Err(err(
                    line,
                    format!(
                        "switch GUID 0x{g:016x} is not a switch of the fabric (topology.file): is the dump from another fabric?"
                    ),
                ));
            };
            let k = sw_of[&sw];
            if let Some((first, _)) = &tables[k] {
                return Err(err(
                    line,
                    format!(
                        "a second table for {} (the first is on line {first})",
                        ib.describe(fabric, sw)
                    ),
                ));
            }
            tables[k] = Some((line, Entries::new()));
            block = Block::Switch(k);
            continue;
        }
        if t.starts_with("Multicast mlids") {
            block = Block::Skip;
            continue;
        }
        if let Some(rest) = t.strip_prefix("0x") {
            let k = match block {
                Block::None => {
                    return Err(err(
                        line,
                        "a forwarding entry before any `Unicast lids … guid 0x…` header".into(),
                    ))
                }
                Block::Skip => continue,
                Block::Switch(k) => k,
            };
            let sw = fabric.switches[k];
            let mut words = rest.split_whitespace();
            let lid_text = words.next().unwrap_or("");
            let lid = match u32::from_str_radix(lid_text, 16) {
                Ok(l) if (1..=MAX_UNICAST_LID).contains(&l) => l,
                _ => {
                    return Err(err(
                        line,
                        format!("`0x{lid_text}` is not a unicast LID (0x0001-0xbfff)"),
                    ))
                }
            };
            let port_text = words.next().unwrap_or("");
            let Ok(port) = port_text.parse::<u8>() else {
                return Err(err(
                    line,
                    format!("expected the output port (a number 0-254) after the LID, found `{port_text}`"),
                ));
            };
            let dev = ib.device_of(sw);
            if port > dev.num_ports {
                return Err(err(
                    line,
                    format!(
                        "{} forwards LID {lid} to port {port}, which does not exist (it has {} ports)",
                        ib.describe(fabric, sw),
                        dev.num_ports
                    ),
                ));
            }
            // OpenSM's remapping: a known port GUID whose LIDs moved
            let mut lid = lid;
            if let Some(g) = t
                .find(" portguid 0x")
                .and_then(|k| hex_prefix(&t[k + 12..]))
            {
                if let Some(&n) = by_port_guid.get(&g) {
                    let e = &ib.ends[n as usize];
                    let size = 1u32 << e.lmc;
                    if e.lid != 0 && !(e.lid..e.lid + size).contains(&lid) {
                        lid = e.lid + (lid & (size - 1));
                    }
                }
            }
            let entries = &mut tables[k].as_mut().expect("open block").1;
            match entries.get(&lid) {
                Some(&(p, first)) if p != port => {
                    return Err(err(
                        line,
                        format!(
                            "LID {lid} is given twice for {}: port {p} on line {first}, port {port} here",
                            ib.describe(fabric, sw)
                        ),
                    ))
                }
                _ => {
                    entries.insert(lid, (port, line));
                }
            }
            continue;
        }
        let footer = t.ends_with("lids dumped") && t.starts_with(|c: char| c.is_ascii_digit());
        let heading = t.starts_with("Lid") && t.contains("Out")
            || t.starts_with("Port") && t.contains("Info");
        if footer || heading {
            continue;
        }
        return Err(err(
            line,
            "unrecognised line; expected a `Unicast lids [...] of switch ... guid 0x...:` header, a `0x<LID> <port> ...` entry, a heading, a footer or a comment (the output of ibroute, dump_lfts.sh, dump_fts or OpenSM's opensm-lfts.dump)".into(),
        ));
    }
    let mut lft: Vec<(usize, Entries)> = Vec::with_capacity(tables.len());
    for (k, t) in tables.into_iter().enumerate() {
        match t {
            Some(t) => lft.push(t),
            None => {
                return Err(Error::Input(format!(
                "{origin}: {} has no table in the dump (no `Unicast lids … guid 0x{:016x}` block)",
                ib.describe(fabric, fabric.switches[k]),
                ib.device_of(fabric.switches[k]).guid
            )))
            }
        }
    }
    check_walks(fabric, ib, &sw_of, &lft, origin)?;
    // every LID of every HCA's range, each its own entry (the layout's LMC is the largest)
    let lmc = fabric
        .hcas
        .iter()
        .map(|&h| ib.ends[h as usize].lmc)
        .max()
        .unwrap_or(0);
    let mut ft = ForwardingTables::with_lmc(fabric, lmc)?;
    for (i, &h) in fabric.hcas.iter().enumerate() {
        ft.hca_lmc[i] = ib.ends[h as usize].lmc;
    }
    for (k, &sw) in fabric.switches.iter().enumerate() {
        for (i, &h) in fabric.hcas.iter().enumerate() {
            let e = &ib.ends[h as usize];
            for (offset, lid) in (e.lid..e.lid + (1u32 << e.lmc)).enumerate() {
                let (port, _) = lft[k].1[&lid];
                let dense = ib.dense_port(sw, port).expect("checked: a connected port");
                ft.set(sw, ft.dlid(i as u32, offset as u8), dense);
            }
        }
    }
    Ok(ft)
}

/// For every LID of every HCA: from every switch, the entries lead to that HCA (an entry on
/// every switch passed, each to a connected port, no loop).
fn check_walks(
    fabric: &Fabric,
    ib: &IbIdentity,
    sw_of: &HashMap<NodeId, usize>,
    lft: &[(usize, Entries)],
    origin: &str,
) -> Result<()> {
    const UNKNOWN: u8 = 0;
    const WALKING: u8 = 1;
    const REACHES: u8 = 2;
    let mut state = vec![UNKNOWN; fabric.switches.len()];
    let mut path: Vec<usize> = Vec::new();
    for &h in &fabric.hcas {
        let e = &ib.ends[h as usize];
        let dname = &fabric.nodes[h as usize].name;
        if e.lid == 0 {
            return Err(Error::Input(format!(
                "{origin}: HCA \"{dname}\" has no LID in topology.file (LID 0: the subnet manager assigned none); routing by LID needs the fabric's LIDs"
            )));
        }
        for lid in e.lid..e.lid + (1u32 << e.lmc) {
            state.fill(UNKNOWN);
            for start in 0..fabric.switches.len() {
                path.clear();
                let mut k = start;
                let ok = loop {
                    match state[k] {
                        REACHES => break true,
                        WALKING => {
                            let from = path.iter().position(|&x| x == k).unwrap_or(0);
                            let mut names: Vec<String> = path[from..]
                                .iter()
                                .map(|&x| ib.describe(fabric, fabric.switches[x]))
                                .collect();
                            names.push(ib.describe(fabric, fabric.switches[k]));
                            return Err(Error::Input(format!(
                                "{origin}: the routes to LID {lid} (HCA \"{dname}\") loop: {}",
                                names.join(" → ")
                            )));
                        }
                        _ => {}
                    }
                    state[k] = WALKING;
                    path.push(k);
                    let sw = fabric.switches[k];
                    let (hdr, entries) = &lft[k];
                    let Some(&(port, line)) = entries.get(&lid) else {
                        return Err(Error::Input(format!(
                            "{origin}:{hdr}: {} has no route to LID {lid} (HCA \"{dname}\"): its table has no entry for it",
                            ib.describe(fabric, sw)
                        )));
                    };
                    let at = |msg: String| {
                        Error::Input(format!(
                            "{origin}:{line}: {} forwards LID {lid} (HCA \"{dname}\") {msg}",
                            ib.describe(fabric, sw)
                        ))
                    };
                    if port == 0 {
                        return Err(at("to port 0, the switch itself".into()));
                    }
                    let Some(d) = ib.dense_port(sw, port) else {
                        return Err(at(format!("to port {port}, which is not connected")));
                    };
                    let next = fabric.nodes[sw as usize].ports[d as usize].peer;
                    if fabric.nodes[next as usize].kind == NodeKind::Hca {
                        if next == h {
                            break true;
                        }
                        return Err(at(format!(
                            "to port {port}, which leads to HCA \"{}\" instead",
                            fabric.nodes[next as usize].name
                        )));
                    }
                    k = sw_of[&next];
                };
                debug_assert!(ok);
                for &x in &path {
                    state[x] = REACHES;
                }
            }
        }
    }
    Ok(())
}

/// The forwarding tables `lft` of `fabric` in OpenSM's `opensm-lfts.dump` format (loadable by
/// `opensm -R file -U <file>` and by [`parse`]): one block per switch, in [`Fabric::switches`]
/// order, with an entry for the switch's own LID (port 0) and for every LID of every HCA: the
/// LID at offset k of an HCA's LMC range takes the tables' entry for the LID at offset k of
/// its range in lnsim's layout ([`ForwardingTables::lids_of`]; tables with fewer LIDs per HCA
/// than the identity's LMC repeat theirs); routes to other switches' LIDs are not written
/// (lnsim sends nothing to a switch). Ports are IB port numbers ([`IbIdentity`]).
pub fn write_opensm(fabric: &Fabric, lft: &ForwardingTables, ib: &IbIdentity) -> String {
    let owners = ib.lid_owners();
    let max_lid = owners.keys().copied().max().unwrap_or(0);
    let mut lids: Vec<(u32, NodeId, u32)> = owners.iter().map(|(&l, &(n, k))| (l, n, k)).collect();
    lids.sort_unstable();
    let mut out = String::new();
    for &sw in &fabric.switches {
        let e = &ib.ends[sw as usize];
        let d = ib.device_of(sw);
        out.push_str(&format!(
            "Unicast lids [0-{max_lid}] of switch Lid {} guid 0x{:016x} ('{}'):\n",
            e.lid, d.guid, d.desc
        ));
        for &(lid, n, k) in &lids {
            let port = if n == sw {
                0
            } else if fabric.nodes[n as usize].kind == NodeKind::Hca {
                let own = lft.lids_of(fabric.nodes[n as usize].lid - 1);
                let p = lft.out_port(sw, own.start + k % own.len() as u32);
                match e.ib_ports.get(p as usize) {
                    Some(&ib_port) => ib_port,
                    None => continue,
                }
            } else {
                continue;
            };
            let owner = &ib.ends[n as usize];
            let od = ib.device_of(n);
            out.push_str(&format!(
                "0x{lid:04x} {port:03} # {} portguid 0x{:016x}: '{}'\n",
                if od.switch {
                    "Switch"
                } else {
                    "Channel Adapter"
                },
                owner.port_guid.unwrap_or(0),
                od.desc
            ));
        }
        out.push_str(&format!("{max_lid} lids dumped\n"));
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::topology::ibnetdiscover::tests::{parse_ok, A1};

    /// OpenSM's minhop tables for example A1 (LMC 1), as the research note derives them, in
    /// ibroute's format for leaf-a and OpenSM's for leaf-b.
    const A1_LFTS: &str = "Unicast lids [0x0-0xd] of switch Lid 1 guid 0x0002c90300001000 (leaf-a):
  Lid  Out   Destination
       Port     Info 
0x0001 000 : (Switch portguid 0x0002c90300001000: 'leaf-a')
0x0002 036 : (Switch portguid 0x0002c90300002000: 'leaf-b')
0x0004 001 : (Channel Adapter portguid 0x0002c90300a00011: 'node01 mlx5_0')
0x0005 001 : (path #2 out of 2: portguid 0x0002c90300a00011)
0x0006 002 : (Channel Adapter portguid 0x0002c90300a00021: 'node02 mlx5_0')
0x0007 002 : (path #2 out of 2: portguid 0x0002c90300a00021)
0x0008 035 : (Channel Adapter portguid 0x0002c90300a00022: 'node02 mlx5_0')
0x0009 036 : (path #2 out of 2: portguid 0x0002c90300a00022)
0x000a 036 : (Channel Adapter portguid 0x0002c90300a00031: 'node03 mlx5_0')
0x000b 035 : (path #2 out of 2: portguid 0x0002c90300a00031)
0x000c 035 : (Channel Adapter portguid 0x0002c90300a00041: 'storage01 mlx5_0')
0x000d 036 : (path #2 out of 2: portguid 0x0002c90300a00041)
12 valid lids dumped 
Multicast mlids [0xc000-0xc001] of switch Lid 1 guid 0x0002c90300001000 (leaf-a):
0xc000 0x0000000000000003
Unicast lids [0-13] of switch Lid 2 guid 0x0002c90300002000 ('leaf-b'):
0x0001 035 # Switch portguid 0x0002c90300001000: 'leaf-a'
0x0002 000 # Switch portguid 0x0002c90300002000: 'leaf-b'
0x0004 035 # Channel Adapter portguid 0x0002c90300a00011: 'node01 mlx5_0'
0x0005 036 # Channel Adapter portguid 0x0002c90300a00011: 'node01 mlx5_0'
0x0006 036 # Channel Adapter portguid 0x0002c90300a00021: 'node02 mlx5_0'
0x0007 035 # Channel Adapter portguid 0x0002c90300a00021: 'node02 mlx5_0'
0x0008 001 # Channel Adapter portguid 0x0002c90300a00022: 'node02 mlx5_0'
0x0009 001 # Channel Adapter portguid 0x0002c90300a00022: 'node02 mlx5_0'
0x000a 002 # Channel Adapter portguid 0x0002c90300a00031: 'node03 mlx5_0'
0x000b 002 # Channel Adapter portguid 0x0002c90300a00031: 'node03 mlx5_0'
0x000c 003 # Channel Adapter portguid 0x0002c90300a00041: 'storage01 mlx5_0'
0x000d 003 # Channel Adapter portguid 0x0002c90300a00041: 'storage01 mlx5_0'
13 lids dumped

*** WARNING ***: this command has been replaced by dump_fts
";

    /// The tables of [`A1_LFTS`] on example A1 (for the engines' tests).
    pub(crate) fn a1_tables(f: &Fabric) -> ForwardingTables {
        parse(A1_LFTS, "a1.lfts", f).unwrap()
    }

    #[test]
    fn every_lid_of_an_lmc_range_keeps_its_own_entry() {
        let f = parse_ok(A1);
        let ft = parse(A1_LFTS, "t.lfts", &f).unwrap();
        assert_eq!((ft.lmc, ft.lids), (1, 12));
        let a = f.by_name["leaf-a"];
        let lids = |n: &str| ft.lids_of(f.nodes[f.by_name[n] as usize].lid - 1);
        // leaf-a: LID 8 → IB port 35 (dense 2), LID 9 → 36 (dense 3); LIDs 4, 5 → port 1
        let p2: Vec<u16> = lids("node02 mlx5_0/P2")
            .map(|l| ft.out_port(a, l))
            .collect();
        assert_eq!(p2, [2, 3]);
        let n1: Vec<u16> = lids("node01 mlx5_0").map(|l| ft.out_port(a, l)).collect();
        assert_eq!(n1, [0, 0]);
    }

    fn err(text: &str) -> String {
        let f = parse_ok(A1);
        parse(text, "t.lfts", &f).unwrap_err().to_string()
    }

    #[test]
    fn reads_ibroute_and_opensm_blocks_by_guid() {
        let f = parse_ok(A1);
        let ft = parse(A1_LFTS, "t.lfts", &f).unwrap();
        let (a, b) = (f.by_name["leaf-a"], f.by_name["leaf-b"]);
        // each HCA's base LID in lnsim's layout (LMC 1)
        let lid = |n: &str| ft.lids_of(f.nodes[f.by_name[n] as usize].lid - 1).start;
        // dense ports: leaf-a [1, 2, 35, 36] → 0..3; leaf-b [1, 2, 3, 35, 36] → 0..4
        assert_eq!(ft.out_port(a, lid("node01 mlx5_0")), 0);
        assert_eq!(ft.out_port(a, lid("node02 mlx5_0/P2")), 2); // IB port 35
        assert_eq!(ft.out_port(a, lid("node03 mlx5_0")), 3); // IB port 36
        assert_eq!(ft.out_port(b, lid("node01 mlx5_0")), 3); // IB port 35
        assert_eq!(ft.out_port(b, lid("storage01 mlx5_0")), 2); // IB port 3
        let pairs: Vec<(u32, u32)> = (0..5)
            .flat_map(|s| (0..5).map(move |d| (s, d)))
            .filter(|(s, d)| s != d)
            .collect();
        assert_eq!(ft.check_routes(&f, &pairs).unwrap(), 2);
        // the written tables read back alike
        let ib = f.ib.as_deref().unwrap();
        let text = write_opensm(&f, &ft, ib);
        let again = parse(&text, "w.lfts", &f).unwrap();
        assert_eq!(again.port, ft.port);
    }

    #[test]
    fn moved_lids_are_remapped_by_port_guid() {
        // a dump taken when storage01 had LIDs 20-21 (OpenSM's remapping: base + LID mod 2^LMC)
        let moved = A1_LFTS
            .replace("0x000c 035 : (Channel", "0x0014 035 : (Channel")
            .replace("0x000d 036 : (path", "0x0015 036 : (path")
            .replace("0x000c 003 #", "0x0014 003 #")
            .replace("0x000d 003 #", "0x0015 003 #");
        let f = parse_ok(A1);
        let ft = parse(&moved, "t.lfts", &f).unwrap();
        let lid = ft.lids_of(f.nodes[f.by_name["storage01 mlx5_0"] as usize].lid - 1);
        assert_eq!(ft.out_port(f.by_name["leaf-b"], lid.start), 2);
        assert_eq!(ft.out_port(f.by_name["leaf-b"], lid.start + 1), 2);
    }

    #[test]
    fn errors_name_switch_guid_and_lid() {
        let cases: Vec<(String, &str)> = vec![
            (A1_LFTS.replace("0x000c 035 : (Channel", "0x000c 040 : (Channel"),
                "t.lfts:14: switch \"leaf-a\" (GUID 0x0002c90300001000) forwards LID 12 to port 40, which does not exist (it has 36 ports)"),
            (A1_LFTS.replace("0x000c 035 : (Channel", "0x000c 030 : (Channel"),
                "t.lfts:14: switch \"leaf-a\" (GUID 0x0002c90300001000) forwards LID 12 (HCA \"storage01 mlx5_0\") to port 30, which is not connected"),
            (A1_LFTS.replace("0x000c 003 #", "0x000c 035 #"),
                "t.lfts: the routes to LID 12 (HCA \"storage01 mlx5_0\") loop: switch \"leaf-a\" (GUID 0x0002c90300001000) → switch \"leaf-b\" (GUID 0x0002c90300002000) → switch \"leaf-a\""),
            (A1_LFTS.replace("0x000d 003 # Channel Adapter portguid 0x0002c90300a00041: 'storage01 mlx5_0'\n", ""),
                "t.lfts:19: switch \"leaf-b\" (GUID 0x0002c90300002000) has no route to LID 13 (HCA \"storage01 mlx5_0\")"),
            (A1_LFTS.replace("0x000a 036 : (Channel", "0x000a 001 : (Channel"),
                "t.lfts:12: switch \"leaf-a\" (GUID 0x0002c90300001000) forwards LID 10 (HCA \"node03 mlx5_0\") to port 1, which leads to HCA \"node01 mlx5_0\" instead"),
            (A1_LFTS.replace("0x000a 036 : (Channel", "0x000a 000 : (Channel"),
                "t.lfts:12: switch \"leaf-a\" (GUID 0x0002c90300001000) forwards LID 10 (HCA \"node03 mlx5_0\") to port 0, the switch itself"),
            (A1_LFTS.replace("guid 0x0002c90300002000 ('leaf-b')", "guid 0x0002c90300009000 ('leaf-b')"),
                "t.lfts:19: switch GUID 0x0002c90300009000 is not a switch of the fabric"),
            (A1_LFTS.replace("guid 0x0002c90300002000 ('leaf-b')", "guid 0x0002c90300001000 ('leaf-b')"),
                "t.lfts:19: a second table for switch \"leaf-a\" (GUID 0x0002c90300001000) (the first is on line 1)"),
            (A1_LFTS.replace("0x0005 001 : (path", "0x0005 00x : (path"),
                "t.lfts:7: expected the output port (a number 0-254) after the LID, found `00x`"),
            (A1_LFTS.replace("0x0005 001 : (path", "0xc005 001 : (path"),
                "t.lfts:7: `0xc005` is not a unicast LID (0x0001-0xbfff)"),
            (A1_LFTS.replace("0x0005 001 : (path #2 out of 2: portguid 0x0002c90300a00011)", "0x0004 002"),
                "t.lfts:7: LID 4 is given twice for switch \"leaf-a\" (GUID 0x0002c90300001000): port 1 on line 6, port 2 here"),
            (format!("0x0001 000\n{A1_LFTS}"), "t.lfts:1: a forwarding entry before any `Unicast lids"),
            (A1_LFTS.replace("12 valid lids dumped", "twelve valid lids"), "t.lfts:16: unrecognised line"),
            (A1_LFTS.split("Unicast lids [0-13]").next().unwrap().to_string(),
                "t.lfts: switch \"leaf-b\" (GUID 0x0002c90300002000) has no table in the dump"),
        ];
        let mut wrong = Vec::new();
        for (text, want) in cases {
            let e = err(&text);
            if !e.starts_with(want) {
                wrong.push(format!("got  {e}\nwant {want}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        // a fabric without identity is refused
        let tb = crate::topology::testbed::tests::testbed();
        let e = parse(A1_LFTS, "t.lfts", &tb).unwrap_err().to_string();
        assert!(e.contains("needs topology.kind = \"ibnetdiscover\""), "{e}");
    }
}
