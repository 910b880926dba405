//! Generic edge-list topology files (`kind = "file"`, `topology.file`; spec §4: "topology is
//! data").
//!
//! # Format
//! One directive per line; `#` starts a comment (to the end of the line); blank lines are
//! ignored; tokens are separated by white space.
//! ```text
//! # two switches, three hosts
//! switch S1
//! switch S2
//! hca H1                       # HCAs get LIDs 1, 2, … in declaration order
//! hca H2
//! hca H3
//! link H1 S1                   # next free port of each end: H1 port 0 ↔ S1 port 0
//! link H2 S1
//! link H3 S2
//! link S1 S2 rate=40Gbps delay=10ns
//! link S1 S2 speed=QDR width=4x
//! ```
//! - `switch NAME [ports=N]`, `hca NAME` declare a node; names are unique, any text without
//!   white space or `#`. Nodes must be declared before they are linked. `ports=N` is the
//!   switch's radix (1–254): a `link` line that would give it an (N+1)-th port is an error.
//!   Without it a switch takes at most [`MAX_SWITCH_PORTS`] (254) links, the InfiniBand limit
//!   (IBA switch ports 1–254; lnsim numbers them 0–253, so `.fdbs` tables can always write them).
//! - `link A B [key=value …]` connects the next free port of A to the next free port of B, so
//!   port numbers follow the order of the `link` lines. A and B must differ (no self-loops);
//!   several links between the same two switches are parallel cables on distinct ports (two
//!   links can never share a port). A link with an HCA end is of class Host
//!   (`[links.host]` parameters), else Fabric (`[links.fabric]`). Per-link overrides, as in a
//!   `[links.<class>]` table: `delay=5ns` (a duration); `rate=40Gbps` (a data rate) or
//!   `speed=QDR` (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR) with an optional `width=4x` (1x, 4x, 8x, 12x;
//!   default 4x). Without `rate`/`speed` the class's rate and width are kept.
//! - Every HCA needs exactly one link; a switch at least one.
//!
//! Every error is an input error `"{path}:{line}: {message}"`.

use crate::config::{BitRate, Duration, FileTopologyConfig, LinkSpeed};
use crate::error::{Error, Result};
use crate::topology::{Fabric, LinkClass, LinkParams, LinkRate, NodeKind, Shape, MAX_SWITCH_PORTS};
use std::collections::HashMap;
use std::path::Path;

/// Builds the fabric described by the edge-list file `base_dir/topology.file` (format in the
/// module documentation).
pub fn build(
    t: &FileTopologyConfig,
    base_dir: &Path,
    host: LinkParams,
    fabric: LinkParams,
) -> Result<Fabric> {
    let rel = &t.file;
    let path = base_dir.join(rel);
    let text = crate::config::input_files::read_text(&path)
        .map_err(|why| Error::input("topology.file", format!("`{}` {why}", path.display())))?;
    parse(&text, &path.display().to_string(), host, fabric)
}

/// Parses edge-list text; `origin` names it in error messages.
fn parse(text: &str, origin: &str, host: LinkParams, fabric: LinkParams) -> Result<Fabric> {
    let mut f = Fabric::new(Shape::Generic);
    let mut declared: HashMap<String, usize> = HashMap::new(); // name → line
    let mut radix_of: HashMap<u32, (usize, usize)> = HashMap::new(); // switch → (ports=N, line)
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let err = |msg: String| Error::Input(format!("{origin}:{line}: {msg}"));
        let content = raw.split('#').next().unwrap_or("");
        let toks: Vec<&str> = content.split_whitespace().collect();
        let Some(&directive) = toks.first() else {
            continue;
        };
        match directive {
            "switch" | "hca" => {
                let usage = if directive == "switch" {
                    "expected `switch NAME [ports=N]`"
                } else {
                    "expected `hca NAME`"
                };
                if toks.len() < 2 || toks.len() > 2 + usize::from(directive == "switch") {
                    return Err(err(usage.into()));
                }
                let name = toks[1];
                if let Some(prev) = declared.get(name) {
                    return Err(err(format!(
                        "node `{name}` is already declared (line {prev})"
                    )));
                }
                let kind = if directive == "switch" {
                    NodeKind::Switch
                } else {
                    NodeKind::Hca
                };
                let limit = match toks.get(2) {
                    None => None,
                    Some(opt) => Some(radix(opt).map_err(|m| err(format!("{m} ({usage})")))?),
                };
                let id = f
                    .add_node(name.to_string(), kind, Vec::new(), 0)
                    .map_err(|e| err(e.to_string()))?;
                declared.insert(name.to_string(), line);
                if let Some(n) = limit {
                    radix_of.insert(id, (n, line));
                }
            }
            "link" => {
                if toks.len() < 3 {
                    return Err(err(
                        "expected `link A B [rate=…] [speed=…] [width=…] [delay=…]`".into(),
                    ));
                }
                let mut ends = [0; 2];
                for (j, name) in toks[1..3].iter().enumerate() {
                    ends[j] = *f.by_name.get(*name).ok_or_else(|| {
                        err(format!(
                            "unknown node `{name}` (declare it with `switch` or `hca` first)"
                        ))
                    })?;
                }
                let [a, b] = ends;
                let hca_end = [a, b]
                    .iter()
                    .any(|&n| f.nodes[n as usize].kind == NodeKind::Hca);
                if a == b {
                    return Err(err(format!(
                        "`link {0} {0}` links `{0}` to itself; a link joins two different nodes",
                        toks[1]
                    )));
                }
                for n in [a, b] {
                    let node = &f.nodes[n as usize];
                    if node.kind == NodeKind::Hca && !node.ports.is_empty() {
                        return Err(err(format!(
                            "HCA `{}` already has a link; an HCA has exactly one",
                            node.name
                        )));
                    }
                    if node.kind == NodeKind::Switch {
                        let used = node.ports.len();
                        if let Some(&(n, decl)) = radix_of.get(&n) {
                            if used >= n {
                                return Err(err(format!(
                                    "switch `{}` already has {used} links, all the ports it declares (`ports={n}`, line {decl})",
                                    node.name
                                )));
                            }
                        } else if used >= MAX_SWITCH_PORTS {
                            return Err(err(format!(
                                "switch `{}` already has {used} links; a switch has at most {MAX_SWITCH_PORTS} ports (the InfiniBand limit: switch ports 1-254)",
                                node.name
                            )));
                        }
                    }
                }
                let (class, base) = if hca_end {
                    (LinkClass::Host, host)
                } else {
                    (LinkClass::Fabric, fabric)
                };
                let params = overrides(&toks[3..], base).map_err(err)?;
                f.connect(a, b, class, params);
            }
            other => {
                return Err(err(format!(
                    "unknown directive `{other}`; expected `switch`, `hca` or `link`"
                )))
            }
        }
    }
    for &h in &f.hcas {
        let n = &f.nodes[h as usize];
        if n.ports.is_empty() {
            return Err(Error::Input(format!(
                "{origin}:{}: HCA `{}` has no link",
                declared[&n.name], n.name
            )));
        }
    }
    for &s in &f.switches {
        let n = &f.nodes[s as usize];
        if n.ports.is_empty() {
            return Err(Error::Input(format!(
                "{origin}:{}: switch `{}` has no link",
                declared[&n.name], n.name
            )));
        }
    }
    if f.hcas.is_empty() {
        return Err(Error::Input(format!(
            "{origin}: declares no HCA (`hca NAME`)"
        )));
    }
    Ok(f)
}

/// Parses the `ports=N` option of a `switch` line: the switch's radix, 1..=[`MAX_SWITCH_PORTS`].
fn radix(opt: &str) -> std::result::Result<usize, String> {
    let v = opt
        .strip_prefix("ports=")
        .ok_or_else(|| format!("unknown switch option `{opt}`; allowed: ports=N"))?;
    match v.parse::<usize>() {
        Ok(n) if (1..=MAX_SWITCH_PORTS).contains(&n) => Ok(n),
        _ => Err(format!(
            "`ports={v}`: the number of ports must be an integer from 1 to {MAX_SWITCH_PORTS}"
        )),
    }
}

/// Applies `key=value` link overrides to the class parameters `base`.
fn overrides(opts: &[&str], base: LinkParams) -> std::result::Result<LinkParams, String> {
    let mut seen: Vec<&str> = Vec::new();
    let (mut rate, mut speed, mut lanes, mut delay) = (None, None, None, None);
    for opt in opts {
        let (k, v) = opt
            .split_once('=')
            .ok_or_else(|| format!("expected `key=value`, found `{opt}`"))?;
        if seen.contains(&k) {
            return Err(format!("`{k}` given twice"));
        }
        seen.push(k);
        match k {
            "rate" => rate = Some(BitRate::parse(v)?),
            "delay" => delay = Some(Duration::parse(v)?),
            "speed" => {
                // every speed the configuration's `links.<class>.speed` takes (SDR … XDR)
                let up = v.to_ascii_uppercase();
                speed = Some(
                    match LinkSpeed::ALL.iter().find(|s| s.name() == up.as_str()) {
                        Some(&s) => s,
                        None => {
                            return Err(format!(
                                "unknown speed `{v}`; allowed: {}",
                                LinkSpeed::NAMES.join(", ")
                            ))
                        }
                    },
                )
            }
            "width" => {
                lanes = Some(match v.to_ascii_lowercase().as_str() {
                    "1x" => 1,
                    "4x" => 4,
                    "8x" => 8,
                    "12x" => 12,
                    _ => return Err(format!("unknown width `{v}`; allowed: 1x, 4x, 8x, 12x")),
                })
            }
            _ => {
                return Err(format!(
                    "unknown link option `{k}`; allowed: rate, speed, width, delay"
                ))
            }
        }
    }
    let mut p = base;
    match (rate, speed) {
        (Some(_), Some(_)) => {
            return Err("give either `rate` or `speed` (with `width`), not both".into())
        }
        (Some(r), None) => {
            p.rate = LinkRate::bps(r.0);
            p.lanes = lanes.unwrap_or(4);
        }
        (None, Some(s)) => {
            p.lanes = lanes.unwrap_or(4);
            p.rate = LinkRate::infiniband(p.lanes, s);
        }
        (None, None) if lanes.is_some() => return Err("`width` needs `speed` (or `rate`)".into()),
        (None, None) => {}
    }
    if let Some(d) = delay {
        p.delay_ps = d.0;
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::mesh_torus::tests::link;
    use std::io::Write;

    const EXAMPLE: &str = "\
# two switches, three hosts
switch S1
switch S2
hca H1                       # comment
hca H2

hca H3
link H1 S1
link H2 S1
link H3 S2
link S1 S2 rate=40Gbps delay=10ns
link S1 S2 speed=QDR width=4x
";

    fn fabric_link() -> LinkParams {
        LinkParams {
            rate: LinkRate::bps(8_000_000_000),
            delay_ps: 7_000,
            lanes: 4,
        }
    }

    fn parse_err(text: &str) -> String {
        parse(text, "t.topo", link(), fabric_link())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn parses_example() {
        let f = parse(EXAMPLE, "t.topo", link(), fabric_link()).unwrap();
        f.check().unwrap();
        assert_eq!(f.shape, Shape::Generic);
        assert_eq!(f.hcas.len(), 3);
        assert_eq!(f.nodes[f.by_name["H3"] as usize].lid, 3);
        let s1 = &f.nodes[f.by_name["S1"] as usize];
        assert_eq!(s1.ports.len(), 4);
        assert_eq!(s1.ports[0].class, LinkClass::Host);
        assert_eq!(s1.ports[0].link, link());
        assert_eq!(s1.ports[2].class, LinkClass::Fabric);
        assert_eq!(s1.ports[2].peer_port, 1);
        assert_eq!(s1.ports[2].link.rate, LinkRate::bps(40_000_000_000));
        assert_eq!(s1.ports[2].link.delay_ps, 10_000);
        assert_eq!(
            s1.ports[3].link.rate,
            LinkRate::infiniband(4, LinkSpeed::Qdr)
        );
        assert_eq!(s1.ports[3].link.delay_ps, 7_000);
    }

    #[test]
    fn every_speed_of_the_configuration_is_a_link_speed() {
        // the speeds `links.<class>.speed` takes, FDR10 and NDR/XDR included, any case
        for (token, speed) in [
            ("fdr10", LinkSpeed::Fdr10),
            ("NDR", LinkSpeed::Ndr),
            ("xdr", LinkSpeed::Xdr),
        ] {
            let text = format!("switch S1\nhca H1\nlink H1 S1 speed={token} width=4x\n");
            let f = parse(&text, "t.topo", link(), fabric_link()).unwrap();
            let h = &f.nodes[f.by_name["H1"] as usize];
            assert_eq!(
                h.ports[0].link.rate,
                LinkRate::infiniband(4, speed),
                "{token}"
            );
        }
    }

    #[test]
    fn build_reads_relative_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::File::create(dir.path().join("x.topo"))
            .unwrap()
            .write_all(EXAMPLE.as_bytes())
            .unwrap();
        let mut t = FileTopologyConfig {
            file: "x.topo".into(),
        };
        let f = build(&t, dir.path(), link(), link()).unwrap();
        assert_eq!(f.nodes.len(), 5);
        t.file = "missing.topo".into();
        let e = build(&t, dir.path(), link(), link())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("topology.file: `") && e.ends_with("missing.topo` does not exist"),
            "{e}"
        );
        // a FIFO is refused before it is opened (opening it would wait for a writer)
        let made = std::process::Command::new("mkfifo")
            .arg(dir.path().join("fifo.topo"))
            .status()
            .is_ok_and(|s| s.success());
        if made {
            t.file = "fifo.topo".into();
            let e = build(&t, dir.path(), link(), link())
                .unwrap_err()
                .to_string();
            assert!(
                e.ends_with("fifo.topo` is a FIFO (named pipe), not a regular file; give a file"),
                "{e}"
            );
        }
    }

    #[test]
    fn errors_name_file_and_line() {
        let cases = [
            (
                "switch S1\nrouter R\n",
                "t.topo:2: unknown directive `router`",
            ),
            (
                "switch S1\nswitch S1\n",
                "t.topo:2: node `S1` is already declared (line 1)",
            ),
            (
                "switch S1\nhca S1\n",
                "t.topo:2: node `S1` is already declared",
            ),
            (
                "switch S1\nhca H1\nlink H1 S2\n",
                "t.topo:3: unknown node `S2`",
            ),
            (
                "switch S1\nhca H1\nlink H1\n",
                "t.topo:3: expected `link A B",
            ),
            ("switch\n", "t.topo:1: expected `switch NAME [ports=N]`"),
            (
                "switch S1\nhca H1\nlink H1 S1 rate=fast\n",
                "t.topo:3: \"fast\" is not a rate",
            ),
            (
                "switch S1\nhca H1\nlink H1 S1 delay=5\n",
                "t.topo:3: duration \"5\" has no unit",
            ),
            (
                "switch S1\nhca H1\nlink H1 S1 speed=ZDR\n",
                "t.topo:3: unknown speed `ZDR`; allowed: SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR",
            ),
            (
                "switch S1\nhca H1\nlink H1 S1 width=3x speed=SDR\n",
                "t.topo:3: unknown width `3x`",
            ),
            (
                "switch S1\nhca H1\nlink H1 S1 width=4x\n",
                "t.topo:3: `width` needs `speed`",
            ),
            (
                "switch S1\nhca H1\nlink H1 S1 rate=1Gbps speed=SDR\n",
                "t.topo:3: give either",
            ),
            (
                "switch S1\nhca H1\nlink H1 S1 color=red\n",
                "t.topo:3: unknown link option `color`",
            ),
            (
                "switch S1\nhca H1\nlink H1 S1 delay=1ns delay=2ns\n",
                "t.topo:3: `delay` given twice",
            ),
            (
                "switch S1\nhca H1\nlink H1 S1 fast\n",
                "t.topo:3: expected `key=value`",
            ),
            (
                "switch S1\nhca H1\nlink H1 S1\nlink S1 H1\n",
                "t.topo:4: HCA `H1` already has a link",
            ),
            (
                "switch S1\nhca H1\nlink H1 H1\n",
                "t.topo:3: `link H1 H1` links `H1` to itself",
            ),
            (
                "switch S1\nhca H1\nlink H1 S1\nlink S1 S1\n",
                "t.topo:4: `link S1 S1` links `S1` to itself; a link joins two different nodes",
            ),
            (
                "switch S1 ports=1\nswitch S2\nhca H1\nlink H1 S1\nlink S1 S2\n",
                "t.topo:5: switch `S1` already has 1 links, all the ports it declares (`ports=1`, line 1)",
            ),
            ("switch S1 ports=0\n", "t.topo:1: `ports=0`: the number of ports must be an integer from 1 to 254 (expected `switch NAME [ports=N]`)"),
            ("switch S1 ports=255\n", "t.topo:1: `ports=255`: the number of ports must be"),
            ("switch S1 ports=x\n", "t.topo:1: `ports=x`: the number of ports must be"),
            ("switch S1 radix=4\n", "t.topo:1: unknown switch option `radix=4`; allowed: ports=N"),
            ("switch S1 ports=4 ports=5\n", "t.topo:1: expected `switch NAME [ports=N]`"),
            ("hca H1 ports=1\n", "t.topo:1: expected `hca NAME`"),
            (
                "switch S1\nhca H1\nhca H2\nlink H1 S1\n",
                "t.topo:3: HCA `H2` has no link",
            ),
            (
                "switch S1\nswitch S2\nhca H1\nlink H1 S1\n",
                "t.topo:2: switch `S2` has no link",
            ),
            (
                "switch S1\nswitch S2\nlink S1 S2\n",
                "t.topo: declares no HCA",
            ),
        ];
        for (text, want) in cases {
            let e = parse_err(text);
            assert!(e.starts_with(want), "{text:?}: got {e}, want {want}");
        }
    }

    #[test]
    fn parallel_links_use_distinct_ports() {
        let f = parse(
            "switch S\nswitch T\nhca H\nlink H S\nlink S T\nlink T S\nlink S T\n",
            "x",
            link(),
            link(),
        )
        .unwrap();
        f.check().unwrap();
        let s = &f.nodes[f.by_name["S"] as usize];
        assert_eq!(s.ports.len(), 4);
        // three parallel cables S–T on S ports 1, 2, 3 and T ports 0, 1, 2
        let t = f.by_name["T"];
        let ends: Vec<(u32, u16)> = s.ports[1..].iter().map(|p| (p.peer, p.peer_port)).collect();
        assert_eq!(ends, vec![(t, 0), (t, 1), (t, 2)]);
    }

    /// A switch with `n` HCAs linked to it (and nothing else), as edge-list text.
    fn star(n: usize, decl: &str) -> String {
        let mut text = format!("switch S{decl}\n");
        for i in 0..n {
            text.push_str(&format!("hca H{i}\nlink H{i} S\n"));
        }
        text
    }

    #[test]
    fn switch_ports_are_bounded_by_the_radix() {
        // the InfiniBand limit without a declaration: 254 links fit, the 255th does not
        let f = parse(&star(MAX_SWITCH_PORTS, ""), "t.topo", link(), link()).unwrap();
        assert_eq!(f.nodes[f.by_name["S"] as usize].ports.len(), 254);
        let e = parse_err(&star(MAX_SWITCH_PORTS + 1, ""));
        assert!(
            e.starts_with(
                "t.topo:511: switch `S` already has 254 links; a switch has at most 254 ports"
            ),
            "{e}"
        );
        // a declared radix: exactly that many links
        let f = parse(&star(36, " ports=36"), "t.topo", link(), link()).unwrap();
        assert_eq!(f.nodes[f.by_name["S"] as usize].ports.len(), 36);
        let e = parse_err(&star(37, " ports=36"));
        assert!(
            e.starts_with("t.topo:75: switch `S` already has 36 links, all the ports it declares (`ports=36`, line 1)"),
            "{e}"
        );
        // fewer links than declared ports is fine (unused ports are not modelled)
        assert!(parse(&star(3, " ports=8"), "t.topo", link(), link()).is_ok());
    }
}
