//! A real InfiniBand fabric from `ibnetdiscover` output (`topology.kind = "ibnetdiscover"`,
//! `topology.file`; docs/fabrics.md).
//!
//! # What is read
//! The topology file `ibnetdiscover` prints (infiniband-diags, every version since 2007): node
//! blocks of `vendid=`/`devid=`/`sysimgguid=`/`switchguid=`/`caguid=` lines, a header
//! `Switch\t<ports> "S-<guid>"\t\t# "<desc>" (base|enhanced) port 0 lid <L> lmc <M>` or
//! `Ca\t<ports> "H-<guid>"\t\t# "<desc>"`, then one line per *connected* port:
//! `[<p>]\t"<T>-<peer guid>"[<q>](<peer port guid>) \t\t# "<peer desc>" lid <L> <width><speed>`
//! on a switch, `[<p>](<port guid>) \t"S-<peer guid>"[<q>]\t\t# lid <L> lmc <M> "<peer desc>"
//! lid <L> <width><speed>` on a CA. The radix is the header's port count: the ports without a
//! line are unconnected. Widths 1x 2x 4x 8x 12x, speeds SDR DDR QDR FDR10 FDR EDR HDR NDR XDR.
//!
//! # What lnsim builds from it
//! One lnsim switch per `Switch` block; one lnsim HCA per connected CA port (a dual-port HCA
//! cabled twice is two HCAs, `<name>/P1` and `<name>/P2`). Nodes are numbered in LID order
//! (switches and HCAs alike; LID 0, unassigned, last, in file order), so the HCAs' lnsim LIDs
//! 1, 2, … follow the fabric's own LIDs. Each link gets the rate of its width × speed token
//! and the delay of its class (`[links.host]` with a CA end, else `[links.fabric]`); a link
//! without a token (files before infiniband-diags 1.2.3) or with an unknown one (`4x???`) keeps
//! its class's rate, with a warning. Names follow [`super::ib_identity::node_names`]; the
//! GUIDs, IB port numbers, LIDs and LMC are kept in [`Fabric::ib`].
//!
//! # What is refused
//! Every error is `file:line: message` (an input error, exit 2): a malformed line, a port out
//! of the header's range or listed twice, a GUID declared twice, a node named by a peer but
//! without a block of its own, a link seen from one end only or with different tokens at its
//! ends, LIDs outside 1–0xBFFF or overlapping, an LMC above 7, a back-to-back CA–CA cable, and
//! routers (`Rt` blocks: lnsim models switches and channel adapters only). Other outputs
//! (`ibnetdiscover -l/-p`) are refused as such. Decorations lnsim has no use for (`-s`
//! progress lines, `-g` chassis lines and `[ext N]`, Xsigo suffixes, unknown `key=value` lines
//! or trailing words) are skipped with one warning per kind ([`super::ib_identity::IbIdentity::warnings`]).

use crate::config::{IbnetdiscoverConfig, LinkSpeed};
use crate::error::{Error, Result};
use crate::topology::ib_identity::{
    guid_id, node_names, IbDevice, IbEnd, IbIdentity, MAX_LMC, MAX_UNICAST_LID,
};
use crate::topology::{
    Fabric, LinkClass, LinkParams, LinkRate, NodeKind, Port, Shape, MAX_SWITCH_PORTS,
};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Builds the fabric described by the `ibnetdiscover` output `base_dir/topology.file`.
pub fn build(
    t: &IbnetdiscoverConfig,
    base_dir: &Path,
    host: LinkParams,
    fabric: LinkParams,
) -> Result<Fabric> {
    let path = base_dir.join(&t.file);
    let text = crate::config::input_files::read_text(&path)
        .map_err(|why| Error::input("topology.file", format!("`{}` {why}", path.display())))?;
    parse(&text, &path.display().to_string(), host, fabric)
}

/// A width × speed token: lanes and speed (`None`: `??`/`???`, unknown).
type Token = Option<(u64, LinkSpeed)>;

/// One port line as read.
#[derive(Debug, Clone)]
struct PortLine {
    line: usize,
    port: u8,
    own_guid: Option<u64>,
    lid: u32,
    lmc: u8,
    peer_switch: bool,
    peer_guid: u64,
    peer_port: u8,
    peer_port_guid: Option<u64>,
    peer_lid: u32,
    /// `None`: no token on the line; `Some(None)`: an unknown one.
    token: Option<Token>,
}

/// One node block as read.
#[derive(Debug, Clone)]
struct Block {
    line: usize,
    dev: IbDevice,
    port0_guid: Option<u64>,
    lid: u32,
    lmc: u8,
    ports: Vec<PortLine>,
}

/// The `…guid=` and `vendid=`/`devid=` lines before a header.
#[derive(Debug, Default)]
struct Attrs {
    vendor_id: Option<u32>,
    device_id: Option<u32>,
    sysimg_guid: Option<u64>,
    /// (keyword, line, node GUID, port-0 GUID)
    guid: Option<(&'static str, usize, u64, Option<u64>)>,
}

/// Skipped decorations: kind → (first line, lines).
#[derive(Default)]
struct Skipped(BTreeMap<String, (usize, usize)>);

impl Skipped {
    fn add(&mut self, kind: impl Into<String>, line: usize) {
        self.0.entry(kind.into()).or_insert((line, 0)).1 += 1;
    }
    fn warnings(self, origin: &str) -> Vec<String> {
        let mut v: Vec<(usize, String)> = self
            .0
            .into_iter()
            .map(|(k, (line, n))| {
                (
                    line,
                    format!(
                        "{origin}:{line}: {k} skipped ({n} line{})",
                        if n == 1 { "" } else { "s" }
                    ),
                )
            })
            .collect();
        v.sort();
        v.into_iter().map(|(_, w)| w).collect()
    }
}

/// A cursor over one line.
struct Cur<'a> {
    s: &'a str,
    i: usize,
}

impl<'a> Cur<'a> {
    fn rest(&self) -> &'a str {
        &self.s[self.i..]
    }
    fn ws(&mut self) {
        while self.rest().starts_with([' ', '\t']) {
            self.i += 1;
        }
    }
    fn eat(&mut self, p: &str) -> bool {
        if self.rest().starts_with(p) {
            self.i += p.len();
            true
        } else {
            false
        }
    }
    fn digits(&mut self, radix: u32) -> &'a str {
        let n = self
            .rest()
            .find(|c: char| !c.is_digit(radix))
            .unwrap_or(self.rest().len());
        let d = &self.rest()[..n];
        self.i += n;
        d
    }
    /// A decimal number no larger than `max`; `what` names it in errors.
    fn uint(&mut self, what: &str, max: u64) -> std::result::Result<u64, String> {
        let d = self.digits(10);
        match d.parse::<u64>() {
            Ok(v) if v <= max => Ok(v),
            Ok(v) => Err(format!("{what} {v} is out of range (at most {max})")),
            Err(_) => Err(format!("expected {what} (a number) at `{}`", self.rest())),
        }
    }
    /// A hexadecimal GUID without `0x` (at most 16 digits).
    fn hex(&mut self, what: &str) -> std::result::Result<u64, String> {
        let d = self.digits(16);
        if d.is_empty() || d.len() > 16 {
            return Err(format!(
                "expected {what} (hexadecimal) at `{}`",
                self.rest()
            ));
        }
        Ok(u64::from_str_radix(d, 16).expect("hex digits"))
    }
    /// `[<n>]`: a port number 1..=254.
    fn bracket_port(&mut self, what: &str) -> std::result::Result<u8, String> {
        if !self.eat("[") {
            return Err(format!("expected `[<{what}>]` at `{}`", self.rest()));
        }
        let v = self.uint(what, MAX_SWITCH_PORTS as u64)?;
        if !self.eat("]") {
            return Err(format!(
                "expected `]` after the {what} at `{}`",
                self.rest()
            ));
        }
        if v == 0 {
            return Err(format!(
                "{what} 0 is a switch's management port; it has no link"
            ));
        }
        Ok(v as u8)
    }
    /// An optional `[ext N]` (chassis port mapping of `ibnetdiscover -g`).
    fn ext(&mut self, skipped: &mut Skipped, line: usize) -> std::result::Result<(), String> {
        if self.eat("[ext ") {
            self.uint("external port", u64::MAX)?;
            if !self.eat("]") {
                return Err(format!("expected `]` after `[ext N` at `{}`", self.rest()));
            }
            skipped.add("chassis port mappings `[ext N]` (ibnetdiscover -g)", line);
        }
        Ok(())
    }
    /// An optional `(<hex>)`.
    fn paren_guid(&mut self, what: &str) -> std::result::Result<Option<u64>, String> {
        if !self.eat("(") {
            return Ok(None);
        }
        let g = self.hex(what)?;
        if !self.eat(")") {
            return Err(format!(
                "expected `)` after the {what} at `{}`",
                self.rest()
            ));
        }
        Ok(Some(g))
    }
    /// `"S-<16 hex>"` (or `H-`, `R-`): the kind letter and the GUID.
    fn node_id(&mut self) -> std::result::Result<(char, u64), String> {
        let r = self.rest();
        let ok = r.len() >= 20
            && r.as_bytes()[0] == b'"'
            && matches!(r.as_bytes()[1], b'S' | b'H' | b'R')
            && r.as_bytes()[2] == b'-'
            && r[3..19].bytes().all(|b| b.is_ascii_hexdigit())
            && r.as_bytes()[19] == b'"';
        if !ok {
            return Err(format!(
                "expected a node id `\"S-<16 hex digits>\"` (or H-, R-) at `{r}`"
            ));
        }
        let kind = r.as_bytes()[1] as char;
        let guid = u64::from_str_radix(&r[3..19], 16).expect("hex digits");
        self.i += 20;
        Ok((kind, guid))
    }
}

/// A width × speed token (`4xEDR`), `Some(None)` for the unknown `??`/`???` forms, or
/// `None` when the word is not a token at all.
fn token(w: &str) -> Option<std::result::Result<Token, String>> {
    if !(w.starts_with("??") || w.starts_with(|c: char| c.is_ascii_digit()) && w.contains('x')) {
        return None;
    }
    let widths: [(&str, u64); 6] = [
        ("12x", 12),
        ("1x", 1),
        ("2x", 2),
        ("4x", 4),
        ("8x", 8),
        ("??", 0),
    ];
    let bad = || {
        Err(format!(
            "unknown link width/speed `{w}`; expected a width (1x, 2x, 4x, 8x, 12x) and a speed ({}) as in `4xEDR`",
            LinkSpeed::NAMES.join(", ")
        ))
    };
    let Some((rest, lanes)) = widths
        .iter()
        .find_map(|(p, l)| w.strip_prefix(p).map(|r| (r, *l)))
    else {
        return Some(bad());
    };
    let speed = if rest == "???" {
        None
    } else {
        match LinkSpeed::NAMES.iter().position(|n| *n == rest) {
            Some(i) => Some(LinkSpeed::ALL[i]),
            None => return Some(bad()),
        }
    };
    Some(Ok(match (lanes, speed) {
        (0, _) | (_, None) => None,
        (l, Some(s)) => Some((l, s)),
    }))
}

/// Reads what follows the peer's LID: the token, then decorations.
fn tail(
    words: &str,
    line: usize,
    skipped: &mut Skipped,
) -> std::result::Result<Option<Token>, String> {
    let mut it = words.split_whitespace().peekable();
    let tok = match it.peek().and_then(|w| token(w)) {
        Some(t) => {
            it.next();
            Some(t?)
        }
        None => None,
    };
    while let Some(w) = it.next() {
        match w {
            // `ibnetdiscover -f`: the raw speed, width and VL-capability codes
            _ if ["s=", "w=", "v="].iter().any(|p| w.starts_with(p)) => {}
            "slot" => {
                it.next();
                skipped.add("Xsigo `slot N` decorations", line);
            }
            "(scp)" => skipped.add("Xsigo `(scp)` decorations", line),
            _ => {
                let kind = w.split('=').next().unwrap_or(w);
                skipped.add(format!("unknown decoration `{kind}`"), line);
            }
        }
    }
    Ok(tok)
}

/// Reads a port line of a switch (`switch`) or CA node.
fn port_line(
    raw: &str,
    line: usize,
    switch: bool,
    skipped: &mut Skipped,
) -> std::result::Result<PortLine, String> {
    let mut c = Cur { s: raw, i: 0 };
    let port = c.bracket_port("port number")?;
    c.ext(skipped, line)?;
    c.ws();
    let own_guid = c.paren_guid("port GUID")?;
    if switch && own_guid.is_some() {
        return Err(
            "a switch's port line has no port GUID of its own (`(…)` before the peer)".into(),
        );
    }
    c.ws();
    let (kind, peer_guid) = c.node_id()?;
    let peer_port = c.bracket_port("peer port number")?;
    c.ext(skipped, line)?;
    c.ws();
    let peer_port_guid = c.paren_guid("peer port GUID")?;
    if kind == 'S' && peer_port_guid.is_some() {
        return Err(format!(
            "a port GUID after a switch peer (`{}`): ibnetdiscover prints one only for CA and router peers",
            guid_id(true, peer_guid)
        ));
    }
    c.ws();
    if !c.eat("#") {
        return Err(format!(
            "expected `# …` with the peer's description and LID at `{}`",
            c.rest()
        ));
    }
    c.ws();
    let (mut lid, mut lmc) = (0, 0);
    if !switch {
        if !c.eat("lid") {
            return Err(format!(
                "expected `lid <LID> lmc <LMC>` of this CA port at `{}`",
                c.rest()
            ));
        }
        c.ws();
        lid = c.uint("LID", u64::MAX)? as u32;
        c.ws();
        if !c.eat("lmc") {
            return Err(format!("expected `lmc <LMC>` at `{}`", c.rest()));
        }
        c.ws();
        lmc = c.uint("LMC", 255)? as u8;
        c.ws();
    }
    if !c.eat("\"") {
        return Err(format!(
            "expected the peer's description in quotes at `{}`",
            c.rest()
        ));
    }
    // the description is not escaped: it ends at the last `" lid `
    let Some(k) = c.rest().rfind("\" lid ") else {
        return Err("expected `\"<peer description>\" lid <LID>`".into());
    };
    c.i += k + "\" lid ".len();
    let peer_lid = c.uint("peer LID", u64::MAX)?;
    if peer_lid > u64::from(u32::MAX) || lid > MAX_UNICAST_LID || peer_lid > MAX_UNICAST_LID as u64
    {
        return Err(format!(
            "LID {} is out of range; unicast LIDs are 1-{MAX_UNICAST_LID} (0: unassigned)",
            lid.max(peer_lid.min(u64::from(u32::MAX)) as u32)
        ));
    }
    let token = tail(c.rest(), line, skipped)?;
    Ok(PortLine {
        line,
        port,
        own_guid,
        lid,
        lmc,
        peer_switch: kind == 'S',
        peer_guid,
        peer_port,
        peer_port_guid,
        peer_lid: peer_lid as u32,
        token,
    })
}

/// Reads a `Switch`/`Ca`/`Rt` header (the keyword already known).
fn header(
    raw: &str,
    keyword: &str,
    attrs: &Attrs,
    line: usize,
    skipped: &mut Skipped,
) -> std::result::Result<Block, String> {
    let switch = keyword == "Switch";
    let mut c = Cur {
        s: raw,
        i: keyword.len(),
    };
    c.ws();
    if c.rest().starts_with(':') {
        return Err(
            "this is a node list (`ibnetdiscover -l`, `-S`, `-H`): it has no links; give the output of plain `ibnetdiscover`"
                .into(),
        );
    }
    let num_ports = c.uint("number of ports", u64::MAX)?;
    if num_ports == 0 || num_ports > MAX_SWITCH_PORTS as u64 {
        return Err(format!(
            "{keyword} with {num_ports} ports: a node has 1 to {MAX_SWITCH_PORTS} ports"
        ));
    }
    c.ws();
    let (kind, guid) = c.node_id()?;
    let want = match keyword {
        "Switch" => 'S',
        "Ca" => 'H',
        _ => 'R',
    };
    let id = format!("{kind}-{guid:016x}");
    if kind != want {
        return Err(format!("node {id} is declared as a {keyword}"));
    }
    if let Some((kw, l, g, _)) = attrs.guid {
        let wanted = match keyword {
            "Switch" => "switchguid",
            "Ca" => "caguid",
            _ => "rtguid",
        };
        if kw != wanted {
            return Err(format!(
                "node {id} is declared as a {keyword}, but its block's line {l} says `{kw}=`"
            ));
        }
        if g != guid {
            return Err(format!(
                "node {id}: its block's `{kw}=0x{g:x}` (line {l}) is another GUID"
            ));
        }
    }
    c.ws();
    if !c.eat("#") {
        return Err(format!("expected `# \"<description>\"` at `{}`", c.rest()));
    }
    c.ws();
    if !c.eat("\"") {
        return Err(format!(
            "expected the description in quotes at `{}`",
            c.rest()
        ));
    }
    let (mut lid, mut lmc, mut enhanced) = (0u64, 0u64, false);
    let desc;
    if switch {
        let r = c.rest();
        let base = r.rfind("\" base port 0 lid ");
        let enh = r.rfind("\" enhanced port 0 lid ");
        let (k, len) = match (base, enh) {
            (Some(b), Some(e)) if e > b => (e, "\" enhanced port 0 lid ".len()),
            (Some(b), _) => (b, "\" base port 0 lid ".len()),
            (None, Some(e)) => (e, "\" enhanced port 0 lid ".len()),
            (None, None) => {
                return Err(
                    "expected `\"<description>\" (base|enhanced) port 0 lid <LID> lmc <LMC>`"
                        .into(),
                )
            }
        };
        desc = r[..k].to_string();
        enhanced = r[k..].starts_with("\" enhanced");
        c.i += k + len;
        lid = c.uint("LID", u64::MAX)?;
        c.ws();
        if !c.eat("lmc") {
            return Err(format!("expected `lmc <LMC>` at `{}`", c.rest()));
        }
        c.ws();
        lmc = c.uint("LMC", u64::MAX)?;
        tail(c.rest(), line, skipped)?;
    } else {
        let r = c.rest();
        let Some(k) = r.rfind('"') else {
            return Err("the description has no closing `\"`".into());
        };
        desc = r[..k].to_string();
        tail(&r[k + 1..], line, skipped)?;
    }
    if lid > MAX_UNICAST_LID as u64 {
        return Err(format!(
            "LID {lid} is out of range; unicast LIDs are 1-{MAX_UNICAST_LID} (0: unassigned)"
        ));
    }
    if lmc > MAX_LMC as u64 {
        return Err(format!("LMC {lmc} is out of range; allowed 0-{MAX_LMC}"));
    }
    if keyword == "Rt" {
        return Err(format!(
            "router {id} (\"{desc}\"): lnsim models switches and channel adapters only, not InfiniBand routers; remove the router's block and the port lines that lead to it"
        ));
    }
    Ok(Block {
        line,
        dev: IbDevice {
            guid,
            switch,
            desc,
            num_ports: num_ports as u8,
            vendor_id: attrs.vendor_id,
            device_id: attrs.device_id,
            sysimg_guid: attrs.sysimg_guid,
            enhanced_port0: enhanced,
        },
        port0_guid: attrs.guid.and_then(|g| g.3),
        lid: lid as u32,
        lmc: lmc as u8,
        ports: Vec::new(),
    })
}

/// Reads an attribute line (`vendid=0x2c9`, `switchguid=0x…(…)`) into `attrs`; false when the
/// line is no attribute lnsim knows.
fn attribute(
    raw: &str,
    attrs: &mut Attrs,
    line: usize,
    skipped: &mut Skipped,
) -> std::result::Result<bool, String> {
    let Some((key, value)) = raw.split_once('=') else {
        return Ok(false);
    };
    // a `-g` chassis decoration may follow after white space
    let (value, deco) = match value.find([' ', '\t']) {
        Some(k) => (&value[..k], value[k..].trim()),
        None => (value, ""),
    };
    let hex = |v: &str, what: &str| -> std::result::Result<u64, String> {
        let mut c = Cur {
            s: v.strip_prefix("0x").unwrap_or(""),
            i: 0,
        };
        let g = c
            .hex(what)
            .map_err(|_| format!("`{key}=`: expected 0x<hex>, found `{v}`"))?;
        Ok(g)
    };
    match key {
        "vendid" | "devid" => {
            let v = u32::try_from(hex(value, key)?)
                .map_err(|_| format!("`{key}=`: `{value}` is out of range"))?;
            if key == "vendid" {
                attrs.vendor_id = Some(v);
            } else {
                attrs.device_id = Some(v);
            }
        }
        "sysimgguid" => attrs.sysimg_guid = Some(hex(value, key)?),
        "switchguid" | "caguid" | "rtguid" => {
            let (g, port0) = match value.split_once('(') {
                Some((g, p)) => {
                    let p = p.strip_suffix(')').ok_or_else(|| {
                        format!("`{key}=`: expected 0x<node guid>(<port guid>), found `{value}`")
                    })?;
                    let port0 = u64::from_str_radix(p, 16).map_err(|_| {
                        format!("`{key}=`: expected 0x<node guid>(<port guid>), found `{value}`")
                    })?;
                    (g, Some(port0))
                }
                None => (value, None),
            };
            let kw = match key {
                "switchguid" => "switchguid",
                "caguid" => "caguid",
                _ => "rtguid",
            };
            attrs.guid = Some((kw, line, hex(g, key)?, port0));
        }
        _ if !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') => {
            skipped.add(format!("unknown attribute lines `{key}=`"), line);
            return Ok(true);
        }
        _ => return Ok(false),
    }
    if !deco.is_empty() {
        skipped.add(
            "chassis decorations after `…guid=` (ibnetdiscover -g)",
            line,
        );
    }
    Ok(true)
}

/// Parses `ibnetdiscover` output; `origin` names it in messages.
pub fn parse(text: &str, origin: &str, host: LinkParams, fabric: LinkParams) -> Result<Fabric> {
    let err = |line: usize, msg: String| Error::Input(format!("{origin}:{line}: {msg}"));
    let mut blocks: Vec<Block> = Vec::new();
    let mut attrs = Attrs::default();
    let mut skipped = Skipped::default();
    let mut tokens_missing: Option<usize> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw.trim().is_empty() {
            continue;
        }
        if raw.starts_with('#') {
            continue;
        }
        if raw.starts_with("DR path ") {
            skipped.add("progress lines `DR path …` (ibnetdiscover -s)", line);
            continue;
        }
        if raw.starts_with("Chassis ")
            || raw.starts_with("Hostname: ")
            || raw.starts_with("Non-Chassis Nodes")
        {
            skipped.add("chassis grouping lines (ibnetdiscover -g)", line);
            continue;
        }
        let keyword = ["Switch", "Ca", "Rt"].into_iter().find(|k| {
            raw.strip_prefix(k)
                .is_some_and(|r| r.starts_with([' ', '\t']))
        });
        if let Some(k) = keyword {
            let b = header(raw, k, &attrs, line, &mut skipped).map_err(|m| err(line, m))?;
            blocks.push(b);
            attrs = Attrs::default();
            continue;
        }
        if raw.starts_with('[') {
            let Some(b) = blocks.last_mut() else {
                return Err(err(
                    line,
                    "a port line before any `Switch` or `Ca` header".into(),
                ));
            };
            let p = port_line(raw, line, b.dev.switch, &mut skipped).map_err(|m| err(line, m))?;
            if p.port > b.dev.num_ports {
                return Err(err(
                    line,
                    format!(
                        "port {} of {} (\"{}\", line {}), which has {} ports",
                        p.port,
                        guid_id(b.dev.switch, b.dev.guid),
                        b.dev.desc,
                        b.line,
                        b.dev.num_ports
                    ),
                ));
            }
            if let Some(prev) = b.ports.iter().find(|q| q.port == p.port) {
                return Err(err(
                    line,
                    format!("port {} is already listed (line {})", p.port, prev.line),
                ));
            }
            if p.lmc > MAX_LMC {
                return Err(err(
                    line,
                    format!("LMC {} is out of range; allowed 0-{MAX_LMC}", p.lmc),
                ));
            }
            if p.token.is_none() {
                tokens_missing.get_or_insert(line);
            }
            b.ports.push(p);
            continue;
        }
        if attribute(raw, &mut attrs, line, &mut skipped).map_err(|m| err(line, m))? {
            continue;
        }
        return Err(err(
            line,
            "unrecognised line; expected a `Switch`/`Ca` header, a port line `[n] …`, a `vendid=`/`devid=`/`…guid=` line, a comment or an empty line (give the output of plain `ibnetdiscover`; `-l`, `-p` and `--diff` print other formats)"
                .into(),
        ));
    }
    if blocks.is_empty() {
        return Err(Error::Input(format!(
            "{origin}: no `Switch` or `Ca` block: is this `ibnetdiscover` output?"
        )));
    }
    assemble(blocks, skipped, tokens_missing, origin, host, fabric)
}

/// Checks the blocks against each other and builds the fabric.
fn assemble(
    blocks: Vec<Block>,
    mut skipped: Skipped,
    tokens_missing: Option<usize>,
    origin: &str,
    host: LinkParams,
    fabric_link: LinkParams,
) -> Result<Fabric> {
    let err = |line: usize, msg: String| Error::Input(format!("{origin}:{line}: {msg}"));
    let mut by_guid: HashMap<u64, usize> = HashMap::new();
    for (i, b) in blocks.iter().enumerate() {
        if let Some(&j) = by_guid.get(&b.dev.guid) {
            return Err(err(
                b.line,
                format!(
                    "node {} is declared twice (first on line {})",
                    guid_id(b.dev.switch, b.dev.guid),
                    blocks[j].line
                ),
            ));
        }
        by_guid.insert(b.dev.guid, i);
    }
    let name = |b: &Block| format!("{} (\"{}\")", guid_id(b.dev.switch, b.dev.guid), b.dev.desc);
    // every link seen from both ends, alike
    let mut links: Vec<(usize, usize, usize, usize)> = Vec::new(); // (block, line idx, peer block, peer line idx)
    for (bi, b) in blocks.iter().enumerate() {
        for (pi, p) in b.ports.iter().enumerate() {
            let id = guid_id(p.peer_switch, p.peer_guid);
            let Some(&pj) = by_guid.get(&p.peer_guid) else {
                return Err(err(
                    p.line,
                    format!(
                        "{id} is linked here but has no block of its own (a partial discovery?)"
                    ),
                ));
            };
            let peer = &blocks[pj];
            if peer.dev.switch != p.peer_switch {
                return Err(err(
                    p.line,
                    format!(
                        "{id} is named as a {} here, but its block (line {}) is a {}",
                        if p.peer_switch { "switch" } else { "CA" },
                        peer.line,
                        if peer.dev.switch { "switch" } else { "CA" }
                    ),
                ));
            }
            if pj == bi {
                return Err(err(
                    p.line,
                    format!("port {} of {} is linked to its own node", p.port, name(b)),
                ));
            }
            if !b.dev.switch && !peer.dev.switch {
                return Err(err(
                    p.line,
                    format!(
                        "a back-to-back cable between two CAs ({} and {}): lnsim's HCAs attach to switches",
                        name(b),
                        name(peer)
                    ),
                ));
            }
            let Some(qi) = peer.ports.iter().position(|q| q.port == p.peer_port) else {
                return Err(err(
                    p.line,
                    format!(
                        "the link from port {} to {}[{}] is seen from this end only: that node's block (line {}) has no line for its port {}",
                        p.port, name(peer), p.peer_port, peer.line, p.peer_port
                    ),
                ));
            };
            let q = &peer.ports[qi];
            if q.peer_guid != b.dev.guid || q.peer_port != p.port {
                return Err(err(
                    p.line,
                    format!(
                        "port {} leads to {}[{}], but that port's line {} leads to {}[{}]",
                        p.port,
                        name(peer),
                        p.peer_port,
                        q.line,
                        guid_id(q.peer_switch, q.peer_guid),
                        q.peer_port
                    ),
                ));
            }
            if p.token.is_some() && q.token.is_some() && p.token != q.token {
                return Err(err(
                    p.line,
                    format!(
                        "the two ends of this link give different widths/speeds (line {} gives another)",
                        q.line
                    ),
                ));
            }
            if let (Some(a), Some(b2)) = (p.peer_port_guid, q.own_guid) {
                if a != b2 {
                    return Err(err(
                        p.line,
                        format!(
                            "peer port GUID 0x{a:x} differs from the GUID 0x{b2:x} that port's own line {} gives",
                            q.line
                        ),
                    ));
                }
            }
            let real_lid = if peer.dev.switch { peer.lid } else { q.lid };
            if p.peer_lid != real_lid {
                return Err(err(
                    p.line,
                    format!(
                        "the peer {} has LID {} here, but {} on its own line {}",
                        name(peer),
                        p.peer_lid,
                        real_lid,
                        if peer.dev.switch { peer.line } else { q.line }
                    ),
                ));
            }
            if (bi, pi) < (pj, qi) {
                links.push((bi, pi, pj, qi));
            }
        }
    }
    if let Some(line) = tokens_missing {
        skipped.add(
            "width/speed tokens missing (infiniband-diags before 1.2.3?): the [links.host]/[links.fabric] rates apply to those links;",
            line,
        );
    }
    // the ends: one per switch, one per connected CA port
    let mut ends: Vec<(IbEnd, usize)> = Vec::new(); // (end, line)
    for (bi, b) in blocks.iter().enumerate() {
        let mut ports: Vec<&PortLine> = b.ports.iter().collect();
        ports.sort_by_key(|p| p.port);
        if b.dev.switch {
            ends.push((
                IbEnd {
                    device: bi as u32,
                    port_guid: Some(b.port0_guid.unwrap_or(b.dev.guid)),
                    lid: b.lid,
                    lmc: b.lmc,
                    ib_ports: ports.iter().map(|p| p.port).collect(),
                },
                b.line,
            ));
        } else {
            for p in ports {
                ends.push((
                    IbEnd {
                        device: bi as u32,
                        port_guid: p.own_guid,
                        lid: p.lid,
                        lmc: p.lmc,
                        ib_ports: vec![p.port],
                    },
                    p.line,
                ));
            }
        }
    }
    // LID ranges: inside the unicast space, not overlapping
    let mut ranges: Vec<(u32, u32, usize)> = Vec::new();
    for (e, line) in &ends {
        if e.lid == 0 {
            continue;
        }
        let last = e.lid + (1u32 << e.lmc) - 1;
        if last > MAX_UNICAST_LID {
            return Err(err(
                *line,
                format!(
                    "LIDs {}-{last} (LMC {}) pass the last unicast LID {MAX_UNICAST_LID}",
                    e.lid, e.lmc
                ),
            ));
        }
        ranges.push((e.lid, last, *line));
    }
    ranges.sort();
    for w in ranges.windows(2) {
        if w[1].0 <= w[0].1 {
            return Err(err(
                w[1].2,
                format!(
                    "LID {} is also answered by the port of line {} (LIDs {}-{})",
                    w[1].0, w[0].2, w[0].0, w[0].1
                ),
            ));
        }
    }
    // lnsim's node order: by LID (0, unassigned, last), then file order
    let mut order: Vec<usize> = (0..ends.len()).collect();
    order.sort_by_key(|&i| (ends[i].0.lid == 0, ends[i].0.lid, i));
    let ends: Vec<IbEnd> = order.iter().map(|&i| ends[i].0.clone()).collect();
    let devices: Vec<IbDevice> = blocks.iter().map(|b| b.dev.clone()).collect();
    let names = node_names(&devices, &ends).map_err(|m| Error::Input(format!("{origin}: {m}")))?;
    let mut f = Fabric::new(Shape::Generic);
    // (block, IB port) → (node, dense port)
    let mut at: HashMap<(usize, u8), (u32, u16)> = HashMap::new();
    for (e, name) in ends.iter().zip(names) {
        let kind = if devices[e.device as usize].switch {
            NodeKind::Switch
        } else {
            NodeKind::Hca
        };
        let id = f.add_node(name, kind, Vec::new(), 0)?;
        for (d, &p) in e.ib_ports.iter().enumerate() {
            at.insert((e.device as usize, p), (id, d as u16));
        }
    }
    let mut ports: Vec<Vec<Option<Port>>> =
        ends.iter().map(|e| vec![None; e.ib_ports.len()]).collect();
    for (bi, pi, pj, qi) in links {
        let (p, q) = (&blocks[bi].ports[pi], &blocks[pj].ports[qi]);
        let (a, da) = at[&(bi, p.port)];
        let (b, db) = at[&(pj, q.port)];
        let host_end = !blocks[bi].dev.switch || !blocks[pj].dev.switch;
        let (class, mut link) = if host_end {
            (LinkClass::Host, host)
        } else {
            (LinkClass::Fabric, fabric_link)
        };
        if let Some(Some((lanes, speed))) = p.token.or(q.token) {
            link.lanes = lanes;
            link.rate = LinkRate::infiniband(lanes, speed);
        } else if p.token.is_some() || q.token.is_some() {
            skipped.add(
                "unknown widths/speeds (`??`/`???`): the [links.host]/[links.fabric] rates apply to those links;",
                p.line,
            );
        }
        ports[a as usize][da as usize] = Some(Port {
            peer: b,
            peer_port: db,
            class,
            link,
        });
        ports[b as usize][db as usize] = Some(Port {
            peer: a,
            peer_port: da,
            class,
            link,
        });
    }
    for (n, ps) in ports.into_iter().enumerate() {
        f.nodes[n].ports = ps
            .into_iter()
            .map(|p| p.expect("every listed port is on a checked link"))
            .collect();
    }
    f.ib = Some(Box::new(IbIdentity {
        devices,
        ends,
        warnings: skipped.warnings(origin),
    }));
    Ok(f)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::topology::mesh_torus::tests::link;

    /// Example A1 of the research note: 2 switches, 4 CAs, mixed speeds, LMC 1, a dual-port CA
    /// with one port unconnected, one with both ports up on different switches, parallel ISLs.
    pub(crate) const A1: &str = "#
# Topology file: generated on Tue Mar  4 10:15:02 2025
#
# Initiated from node 0002c90300a00010 port 0002c90300a00011

vendid=0x2c9
devid=0xc738
sysimgguid=0x2c90300001003
switchguid=0x2c90300001000(2c90300001000)
Switch\t36 \"S-0002c90300001000\"\t\t# \"leaf-a\" enhanced port 0 lid 1 lmc 0
[1]\t\"H-0002c90300a00010\"[1](2c90300a00011) \t\t# \"node01 mlx5_0\" lid 4 4xEDR
[2]\t\"H-0002c90300a00020\"[1](2c90300a00021) \t\t# \"node02 mlx5_0\" lid 6 4xEDR
[35]\t\"S-0002c90300002000\"[35]\t\t# \"leaf-b\" lid 2 4xEDR
[36]\t\"S-0002c90300002000\"[36]\t\t# \"leaf-b\" lid 2 4xEDR

vendid=0x2c9
devid=0xc738
sysimgguid=0x2c90300002003
switchguid=0x2c90300002000(2c90300002000)
Switch\t36 \"S-0002c90300002000\"\t\t# \"leaf-b\" enhanced port 0 lid 2 lmc 0
[1]\t\"H-0002c90300a00020\"[2](2c90300a00022) \t\t# \"node02 mlx5_0\" lid 8 4xEDR
[2]\t\"H-0002c90300a00030\"[1](2c90300a00031) \t\t# \"node03 mlx5_0\" lid 10 2xHDR
[3]\t\"H-0002c90300a00040\"[1](2c90300a00041) \t\t# \"storage01 mlx5_0\" lid 12 4xFDR
[35]\t\"S-0002c90300001000\"[35]\t\t# \"leaf-a\" lid 1 4xEDR
[36]\t\"S-0002c90300001000\"[36]\t\t# \"leaf-a\" lid 1 4xEDR

vendid=0x2c9
devid=0x1017
sysimgguid=0x2c90300a00013
caguid=0x2c90300a00010
Ca\t2 \"H-0002c90300a00010\"\t\t# \"node01 mlx5_0\"
[1](2c90300a00011) \t\"S-0002c90300001000\"[1]\t\t# lid 4 lmc 1 \"leaf-a\" lid 1 4xEDR

vendid=0x2c9
devid=0x1017
sysimgguid=0x2c90300a00023
caguid=0x2c90300a00020
Ca\t2 \"H-0002c90300a00020\"\t\t# \"node02 mlx5_0\"
[1](2c90300a00021) \t\"S-0002c90300001000\"[2]\t\t# lid 6 lmc 1 \"leaf-a\" lid 1 4xEDR
[2](2c90300a00022) \t\"S-0002c90300002000\"[1]\t\t# lid 8 lmc 1 \"leaf-b\" lid 2 4xEDR

vendid=0x2c9
devid=0x101b
sysimgguid=0x2c90300a00033
caguid=0x2c90300a00030
Ca\t1 \"H-0002c90300a00030\"\t\t# \"node03 mlx5_0\"
[1](2c90300a00031) \t\"S-0002c90300002000\"[2]\t\t# lid 10 lmc 1 \"leaf-b\" lid 2 2xHDR

vendid=0x2c9
devid=0x1013
sysimgguid=0x2c90300a00043
caguid=0x2c90300a00040
Ca\t1 \"H-0002c90300a00040\"\t\t# \"storage01 mlx5_0\"
[1](2c90300a00041) \t\"S-0002c90300002000\"[3]\t\t# lid 12 lmc 1 \"leaf-b\" lid 2 4xFDR
";

    /// Example A2 without its router: decorations of `-s`, `-m`, `-f`, a base port 0, FDR10.
    const A2: &str = "DR path slid 0; dlid 0; 0 -> new Channel Adapter {0002c90300b00010} portnum 1 lid 3-3 \"hostA mlx4_0\"
DR path slid 0; dlid 0; 0,1 -> new Switch {0002c90300b01000} portnum 0 lid 1-1 \"sw1\"
#
# Topology file: generated on Wed Jan  8 09:00:00 2014
#
# Reported max hops discovered: 1
# Total MADs used: 14
# Initiated from node 0002c90300b00010 port 0002c90300b00011

vendid=0x2c9
devid=0xc738
switchguid=0x2c90300b01000(2c90300b01000)
Switch\t8 \"S-0002c90300b01000\"\t\t# \"sw1\" base port 0 lid 1 lmc 0
[1]\t\"H-0002c90300b00010\"[1](2c90300b00011) \t\t# \"hostA mlx4_0\" lid 3 4xFDR10 s=4 w=2 v=4
[2]\t\"H-0002c90300b00020\"[1](2c90300b00021) \t\t# \"hostB mlx4_0\" lid 4 4xFDR s=4 w=2 v=4 color=blue

vendid=0x2c9
devid=0x1003
sysimgguid=0x2c90300b00013
caguid=0x2c90300b00010
Ca\t2 \"H-0002c90300b00010\"\t\t# \"hostA mlx4_0\"
[1](2c90300b00011) \t\"S-0002c90300b01000\"[1]\t\t# lid 3 lmc 0 \"sw1\" lid 1 4xFDR10 s=4 w=2 v=4

vendid=0x2c9
devid=0x1003
sysimgguid=0x2c90300b00023
caguid=0x2c90300b00020
Ca\t2 \"H-0002c90300b00020\"\t\t# \"hostB mlx4_0\"
[1](2c90300b00021) \t\"S-0002c90300b01000\"[2]\t\t# lid 4 lmc 0 \"sw1\" lid 1 4xFDR s=4 w=2 v=4
";

    /// Example A3: the legacy format (no tokens, no port GUIDs), a description with `#`, ports
    /// listed out of order.
    const A3: &str = "#
# Topology file: generated on Mon Apr 16 11:02:33 2007
#
# Max of 1 hops discovered
# Initiated from node 0008f10400b00010 port 0008f10400b00011

vendid=0x8f1
devid=0x5a06
sysimgguid=0x8f10400a10003
switchguid=0x8f10400a10000
Switch\t24 \"S-0008f10400a10000\"\t\t# \"ISR9024 #3 rack 2\" base port 0 lid 6 lmc 0
[8]\t\"H-0008f10400b00010\"[2]\t\t# \"hca-a HCA-1\" lid 14
[12]\t\"H-0008f10400b00010\"[1]\t\t# \"hca-a HCA-1\" lid 10
[22]\t\"H-0008f10400b00020\"[1]\t\t# \"hca-b HCA-1\" lid 4

vendid=0x2c9
devid=0x5a44
caguid=0x8f10400b00010
Ca\t2 \"H-0008f10400b00010\"\t\t# \"hca-a HCA-1\"
[2]\t\"S-0008f10400a10000\"[8]\t\t# lid 14 lmc 0 \"ISR9024 #3 rack 2\" lid 6
[1]\t\"S-0008f10400a10000\"[12]\t\t# lid 10 lmc 0 \"ISR9024 #3 rack 2\" lid 6

vendid=0x2c9
devid=0x5a44
caguid=0x8f10400b00020
Ca\t2 \"H-0008f10400b00020\"\t\t# \"hca-b HCA-1\"
[1]\t\"S-0008f10400a10000\"[22]\t\t# lid 4 lmc 0 \"ISR9024 #3 rack 2\" lid 6
";

    pub(crate) fn parse_ok(text: &str) -> Fabric {
        let f = parse(text, "t.ibnd", link(), link()).unwrap();
        f.check().unwrap();
        f
    }

    fn parse_err(text: &str) -> String {
        parse(text, "t.ibnd", link(), link())
            .unwrap_err()
            .to_string()
    }

    fn node<'a>(f: &'a Fabric, name: &str) -> &'a crate::topology::Node {
        &f.nodes[f.by_name[name] as usize]
    }

    #[test]
    fn reads_switches_cas_lids_lmc_and_tokens() {
        let f = parse_ok(A1);
        let ib = f.ib.as_ref().unwrap();
        assert_eq!(f.switches.len(), 2);
        assert_eq!(ib.devices.len(), 6);
        assert_eq!(ib.devices[0].num_ports, 36);
        assert!(ib.devices[0].enhanced_port0);
        // node01's port 2 is unconnected, node02 has two endpoints
        let hcas: Vec<&str> = f
            .hcas
            .iter()
            .map(|&h| f.nodes[h as usize].name.as_str())
            .collect();
        assert_eq!(
            hcas,
            [
                "node01 mlx5_0",
                "node02 mlx5_0/P1",
                "node02 mlx5_0/P2",
                "node03 mlx5_0",
                "storage01 mlx5_0"
            ]
        );
        // nodes in LID order: leaf-a 1, leaf-b 2, then the CA ports 4, 6, 8, 10, 12 (LMC 1)
        let lids: Vec<(u32, u8)> = ib.ends.iter().map(|e| (e.lid, e.lmc)).collect();
        assert_eq!(
            lids,
            [(1, 0), (2, 0), (4, 1), (6, 1), (8, 1), (10, 1), (12, 1)]
        );
        assert_eq!(ib.lid_owners()[&9], (f.by_name["node02 mlx5_0/P2"], 1));
        // 4 + 5 connected switch ports, 7 links: 5 host links and 2 parallel ISLs
        let a = node(&f, "leaf-a");
        let b = node(&f, "leaf-b");
        assert_eq!((a.ports.len(), b.ports.len()), (4, 5));
        assert_eq!(
            ib.ends[f.by_name["leaf-a"] as usize].ib_ports,
            [1, 2, 35, 36]
        );
        assert_eq!(ib.dense_port(f.by_name["leaf-b"], 3), Some(2));
        assert_eq!(ib.dense_port(f.by_name["leaf-b"], 4), None);
        let links: usize = f.nodes.iter().map(|n| n.ports.len()).sum::<usize>() / 2;
        assert_eq!(links, 7);
        assert_eq!(a.ports[2].class, LinkClass::Fabric);
        assert_eq!(a.ports[2].peer, f.by_name["leaf-b"]);
        assert_eq!((a.ports[2].peer_port, a.ports[3].peer_port), (3, 4));
        assert_eq!(
            a.ports[2].link.rate,
            LinkRate::infiniband(4, LinkSpeed::Edr)
        );
        let n3 = node(&f, "node03 mlx5_0");
        assert_eq!(n3.ports[0].class, LinkClass::Host);
        assert_eq!(n3.ports[0].link.lanes, 2);
        assert_eq!(
            n3.ports[0].link.rate,
            LinkRate::infiniband(2, LinkSpeed::Hdr)
        );
        assert_eq!(n3.ports[0].link.delay_ps, link().delay_ps);
        assert_eq!(
            node(&f, "storage01 mlx5_0").ports[0].link.rate,
            LinkRate::infiniband(4, LinkSpeed::Fdr)
        );
        let e = &ib.ends[f.by_name["node02 mlx5_0/P2"] as usize];
        assert_eq!(e.port_guid, Some(0x2c90300a00022));
        assert_eq!(
            ib.devices[e.device as usize].sysimg_guid,
            Some(0x2c90300a00023)
        );
        assert_eq!(ib.devices[e.device as usize].device_id, Some(0x1017));
        assert!(ib.warnings.is_empty(), "{:?}", ib.warnings);
    }

    #[test]
    fn nodes_are_found_by_port_guid_node_guid_or_ibnetdiscover_id() {
        let f = parse_ok(A1);
        let name = |g: &str| {
            f.node(g, "k")
                .map(|n| f.nodes[n as usize].name.clone())
                .map_err(|e| e.to_string())
        };
        // a CA port GUID, with or without 0x and padding; a single-port CA's node GUID
        assert_eq!(name("0x2c90300a00022").unwrap(), "node02 mlx5_0/P2");
        assert_eq!(name("0002c90300a00041").unwrap(), "storage01 mlx5_0");
        assert_eq!(name("0x0002c90300a00010").unwrap(), "node01 mlx5_0");
        assert_eq!(name("H-0002c90300a00030").unwrap(), "node03 mlx5_0");
        // a switch by node GUID or its ibnetdiscover id
        assert_eq!(name("S-0002c90300002000").unwrap(), "leaf-b");
        assert_eq!(
            f.hca("0x2c90300a00031", "k").unwrap(),
            f.by_name["node03 mlx5_0"]
        );
        // a two-port CA's node GUID is ambiguous; an unknown GUID and short bare hex are not found
        let e = name("0x2c90300a00020").unwrap_err();
        assert!(e.contains("k:") && e.contains("2 connected ports"), "{e}");
        let e = name("0xdead").unwrap_err();
        assert!(e.contains("nor one with that GUID"), "{e}");
        assert!(name("12").unwrap_err().contains("no node named `12`"));
        // a switch GUID where an HCA is wanted
        let e = f.hca("0x2c90300001000", "k").unwrap_err().to_string();
        assert!(e.contains("is a switch"), "{e}");
    }

    #[test]
    fn decorations_are_skipped_with_one_warning_per_kind() {
        let f = parse_ok(A2);
        let ib = f.ib.as_ref().unwrap();
        assert_eq!(
            node(&f, "hostA mlx4_0").ports[0].link.rate.bits_per_s(),
            40e9
        );
        assert!(!ib.devices[0].enhanced_port0);
        assert_eq!(
            ib.warnings,
            [
                "t.ibnd:1: progress lines `DR path …` (ibnetdiscover -s) skipped (2 lines)",
                "t.ibnd:15: unknown decoration `color` skipped (1 line)",
            ]
        );
    }

    #[test]
    fn legacy_files_without_tokens_keep_the_class_rates() {
        let f = parse_ok(A3);
        let ib = f.ib.as_ref().unwrap();
        let s = node(&f, "ISR9024 #3 rack 2");
        assert_eq!(s.ports.len(), 3);
        assert_eq!(s.ports[0].link, link());
        // in LID order: hca-b (4), hca-a port 1 (10), hca-a port 2 (14)
        let hcas: Vec<&str> = f
            .hcas
            .iter()
            .map(|&h| f.nodes[h as usize].name.as_str())
            .collect();
        assert_eq!(hcas, ["hca-b HCA-1", "hca-a HCA-1/P1", "hca-a HCA-1/P2"]);
        assert_eq!(
            ib.ends[f.by_name["hca-a HCA-1/P1"] as usize].port_guid,
            None
        );
        assert_eq!(ib.warnings.len(), 1);
        assert!(
            ib.warnings[0].starts_with("t.ibnd:12: width/speed tokens missing"),
            "{:?}",
            ib.warnings
        );
    }

    #[test]
    fn unknown_tokens_keep_the_class_rate_with_a_warning() {
        let t = A2
            .replace("4xFDR s=4 w=2 v=4 color=blue", "4x??? s=4 w=2 v=4")
            .replace("lid 1 4xFDR s=4 w=2 v=4\n", "lid 1 4x??? s=4 w=2 v=4\n");
        let f = parse_ok(&t);
        assert_eq!(node(&f, "hostB mlx4_0").ports[0].link, link());
        let w = &f.ib.as_ref().unwrap().warnings;
        assert!(
            w.iter().any(|w| w.contains("unknown widths/speeds")),
            "{w:?}"
        );
    }

    #[test]
    fn errors_name_file_and_line() {
        let rt_block =
            "\nvendid=0x2c9\nrtguid=0x2c90300b00030\nRt\t1 \"R-0002c90300b00030\"\t\t# \"gw1\"\n";
        let cases: Vec<(String, &str)> = vec![
            (A1.replace("[36]\t\"S-0002c90300002000\"[36]", "[37]\t\"S-0002c90300002000\"[36]"),
                "t.ibnd:14: port 37 of S-0002c90300001000 (\"leaf-a\", line 10), which has 36 ports"),
            (A1.replace("[35]\t\"S-0002c90300002000\"[35]\t", "[35]\t\"S-0002c90300002000\"[35](2c90300002000) \t"),
                "t.ibnd:13: a port GUID after a switch peer"),
            (A1.replace("[3]\t\"H-0002c90300a00040\"[1](2c90300a00041) \t\t# \"storage01 mlx5_0\" lid 12 4xFDR\n", ""),
                "t.ibnd:53: the link from port 1 to S-0002c90300002000 (\"leaf-b\")[3] is seen from this end only"),
            (A1.replace("lid 10 2xHDR", "lid 10 4xHDR"),
                "t.ibnd:22: the two ends of this link give different widths/speeds (line 47 gives another)"),
            (A1.replace("Switch\t36 \"S-0002c90300001000\"", "Switch\t36 \"H-0002c90300001000\""),
                "t.ibnd:10: node H-0002c90300001000 is declared as a Switch"),
            (A1.replace("lid 4 lmc 1", "lid 4 lmc 9"), "t.ibnd:32: LMC 9 is out of range; allowed 0-7"),
            (A1.replace("lid 12 4xFDR", "lid 12 4xQQR"), "t.ibnd:23: unknown link width/speed `4xQQR`"),
            (A1.replace("Switch\t36 \"S-0002c90300002000\"", "Switch\t300 \"S-0002c90300002000\""),
                "t.ibnd:20: Switch with 300 ports: a node has 1 to 254 ports"),
            (A1.replace("\"node03 mlx5_0\" lid 10 2xHDR", "\"node03 mlx5_0\" lid 11 2xHDR"),
                "t.ibnd:22: the peer H-0002c90300a00030 (\"node03 mlx5_0\") has LID 11 here, but 10 on its own line 47"),
            (A1.replace("lid 12 lmc 1", "lid 10 lmc 1").replace("storage01 mlx5_0\" lid 12", "storage01 mlx5_0\" lid 10"),
                "t.ibnd:54: LID 10 is also answered by the port of line 47 (LIDs 10-11)"),
            (A1.replace("lid 12 lmc 1", "lid 49151 lmc 1").replace("storage01 mlx5_0\" lid 12", "storage01 mlx5_0\" lid 49151"),
                "t.ibnd:54: LIDs 49151-49152 (LMC 1) pass the last unicast LID 49151"),
            (A1.replace("caguid=0x2c90300a00040", "caguid=0x2c90300a00041"),
                "t.ibnd:53: node H-0002c90300a00040: its block's `caguid=0x2c90300a00041` (line 52) is another GUID"),
            (A1.replace("caguid=0x2c90300a00040", "switchguid=0x2c90300a00040"),
                "t.ibnd:53: node H-0002c90300a00040 is declared as a Ca, but its block's line 52 says `switchguid=`"),
            (A1.replace("[2](2c90300a00022) \t", "[1](2c90300a00022) \t"), "t.ibnd:40: port 1 is already listed (line 39)"),
            (A1.replace("\"leaf-b\" lid 2 4xEDR\n[36]", "\"leaf-b\" lid 2 4xEDR junk\n[36]").replace("lid 1 lmc 0\n[1]", "lid 1 lmc 0\nbogus line\n[1]"),
                "t.ibnd:11: unrecognised line; expected a `Switch`/`Ca` header"),
            (A1.replace("# \"node01 mlx5_0\" lid 4 4xEDR", "\"node01 mlx5_0\" lid 4 4xEDR"),
                "t.ibnd:11: expected `# …` with the peer's description and LID"),
            (format!("{A2}{rt_block}"), "t.ibnd:33: router R-0002c90300b00030 (\"gw1\"): lnsim models switches and channel adapters only"),
            (A2.replace("\nvendid=0x2c9\ndevid=0x1003\nsysimgguid=0x2c90300b00023", "\nvendid=0x2c9\ndevid=0x1003\nsysimgguid=0x2c90300b00024").replace("Ca\t2 \"H-0002c90300b00020\"\t\t# \"hostB mlx4_0\"\n[1](2c90300b00021) \t\"S-0002c90300b01000\"[2]\t\t# lid 4 lmc 0 \"sw1\" lid 1 4xFDR s=4 w=2 v=4\n", ""),
                "t.ibnd:15: H-0002c90300b00020 is linked here but has no block of its own"),
            ("Switch\t: 0x0002c90300001000 ports 36 devid 0xc738 vendid 0x2c9 \"leaf-a\"\n".to_string(),
                "t.ibnd:1: this is a node list"),
            ("[1]\t\"S-0002c90300001000\"[1]\t\t# \"x\" lid 1 4xEDR\n".to_string(),
                "t.ibnd:1: a port line before any `Switch` or `Ca` header"),
            ("# nothing\n".to_string(), "t.ibnd: no `Switch` or `Ca` block"),
            (A1.replace("Ca\t1 \"H-0002c90300a00030\"\t\t# \"node03 mlx5_0\"\n[1](2c90300a00031) \t\"S-0002c90300002000\"[2]", "Ca\t1 \"H-0002c90300a00030\"\t\t# \"node03 mlx5_0\"\n[1](2c90300a00031) \t\"H-0002c90300a00040\"[1]"),
                "t.ibnd:22: port 2 leads to H-0002c90300a00030 (\"node03 mlx5_0\")[1], but that port's line 47 leads to H-0002c90300a00040[1]"),
        ];
        let mut wrong = Vec::new();
        for (text, want) in cases {
            let e = parse_err(&text);
            if !e.starts_with(want) {
                wrong.push(format!("got  {e}\nwant {want}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn a_description_may_hold_quotes_and_lid_words() {
        let t = A1.replace("\"leaf-a\"", "\"leaf \"a\" lid 3 base port 0 lid 7\"");
        let f = parse_ok(&t);
        assert!(f.by_name.contains_key("leaf \"a\" lid 3 base port 0 lid 7"));
    }
}
