//! Host lists: the node names a scenario's node sets accept, written as cluster administrators
//! write them (Slurm / pdsh "hostlist" syntax). Every entry of a node-set list
//! (`traffic.generators[].sources`, `destinations`, `idle`, `hotspot`, `stats.fairness_sources`)
//! is one of:
//!
//! - a node name (`node007`);
//! - a name with bracketed ranges (`node[001-128]`, `hca[0-7,12]`, `rack[1-2]-n[01-04]`:
//!   several brackets give every combination, the leftmost varying slowest); a range keeps the
//!   zero padding of its lower bound (`[08-10]` → `08 09 10`); entries may be separated by
//!   commas outside the brackets (`a[1-2],b3`);
//! - `@file`: a file of such entries (path relative to the scenario file), one or more per
//!   line separated by blanks or commas, `#` starting a comment.
//!
//! [`expand`] is the one pure function that turns such a list into names, in the order given;
//! [`expand_scenario`] applies it to every node set of a scenario once it is parsed, so
//! `lnsim validate` and `lnsim run` see the same names. Whether a name exists is checked where
//! the fabric is known (`credit/traffic/flows.rs`), naming the key and the name.

use super::input_files::read_text;
use super::schema::{HcaNames, NodeSet, Scenario};
use crate::error::{Error, Result};
use std::path::Path;

/// The most names one key may expand to (a guard against `n[0-999999999]`).
pub const MAX_EXPANDED_NAMES: usize = 1_000_000;

/// The names of host-list `entries` (at `key`; files relative to `base_dir`), in the order
/// given, duplicates kept. Errors name `key`, the entry and what is wrong with it.
pub fn expand(entries: &[String], key: &str, base_dir: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let k = format!("{key}[{i}]");
        if let Some(file) = e.strip_prefix('@') {
            let path = base_dir.join(file);
            let text = read_text(&path)
                .map_err(|why| Error::input(&k, format!("host file `{}` {why}", path.display())))?;
            for (ln, line) in text.lines().enumerate() {
                let body = line.split('#').next().unwrap_or("");
                for tok in split_outside_brackets(body, |c| c.is_whitespace() || c == ',') {
                    if tok.starts_with('@') {
                        return Err(Error::input(
                            &k,
                            format!(
                                "{}:{}: `{tok}`: a host file cannot include another",
                                path.display(),
                                ln + 1
                            ),
                        ));
                    }
                    expand_one(tok, &mut out).map_err(|why| {
                        Error::input(&k, format!("{}:{}: {why}", path.display(), ln + 1))
                    })?;
                    check_size(&out, &k)?;
                }
            }
        } else {
            let mut any = false;
            for tok in split_outside_brackets(e, |c| c == ',') {
                any = true;
                expand_one(tok.trim(), &mut out).map_err(|why| Error::input(&k, why))?;
                check_size(&out, &k)?;
            }
            if !any {
                return Err(Error::input(&k, "is empty; give a node name"));
            }
        }
    }
    Ok(out)
}

/// Refuses more than [`MAX_EXPANDED_NAMES`] names at `key`.
fn check_size(out: &[String], key: &str) -> Result<()> {
    if out.len() > MAX_EXPANDED_NAMES {
        return Err(Error::input(
            key,
            format!("expands to more than {MAX_EXPANDED_NAMES} names"),
        ));
    }
    Ok(())
}

/// The non-empty pieces of `s` split at the characters `sep` accepts outside brackets.
fn split_outside_brackets(s: &str, sep: impl Fn(char) -> bool) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            c if depth == 0 && sep(c) => {
                parts.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// Appends the names of one host expression (`node[001-004]`) to `out`; `Err` says why the
/// expression is malformed, quoting it.
fn expand_one(expr: &str, out: &mut Vec<String>) -> std::result::Result<(), String> {
    let bad = |why: &str| format!("`{expr}`: {why}");
    // split into literal pieces and bracket bodies
    let mut pieces: Vec<Vec<String>> = Vec::new();
    let mut rest = expr;
    while let Some(open) = rest.find('[') {
        let lit = &rest[..open];
        if lit.contains(']') {
            return Err(bad("`]` without `[`"));
        }
        pieces.push(vec![lit.to_string()]);
        let after = &rest[open + 1..];
        let close = after.find(']').ok_or_else(|| bad("`[` without its `]`"))?;
        let body = &after[..close];
        if body.contains('[') {
            return Err(bad("brackets cannot nest"));
        }
        pieces.push(range_values(body).map_err(|why| bad(&why))?);
        rest = &after[close + 1..];
    }
    if rest.contains(']') {
        return Err(bad("`]` without `[`"));
    }
    pieces.push(vec![rest.to_string()]);
    if expr.chars().any(char::is_whitespace) {
        return Err(bad("a node name has no blanks"));
    }
    let total = pieces
        .iter()
        .try_fold(1usize, |n, p| n.checked_mul(p.len()))
        .filter(|&n| n <= MAX_EXPANDED_NAMES)
        .ok_or_else(|| bad(&format!("expands to more than {MAX_EXPANDED_NAMES} names")))?;
    for k in 0..total {
        // mixed radix, the last piece varying fastest
        let (mut rem, mut idx) = (k, vec![0; pieces.len()]);
        for (j, p) in pieces.iter().enumerate().rev() {
            idx[j] = rem % p.len();
            rem /= p.len();
        }
        let name: String = pieces
            .iter()
            .zip(&idx)
            .map(|(p, &i)| p[i].as_str())
            .collect();
        if name.is_empty() {
            return Err(bad("gives an empty name"));
        }
        out.push(name);
    }
    Ok(())
}

/// The values of a bracket body: comma-separated numbers and `lo-hi` ranges (`001-128`), each
/// range padded to the width of its lower bound when that has a leading zero.
fn range_values(body: &str) -> std::result::Result<Vec<String>, String> {
    let mut v = Vec::new();
    if body.trim().is_empty() {
        return Err("empty brackets; give numbers or ranges like [1-4,7]".into());
    }
    for item in body.split(',') {
        let item = item.trim();
        let num = |s: &str| -> std::result::Result<u64, String> {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) || s.len() > 18 {
                Err(format!(
                    "`{item}` is not a number or a range like 1-4 (digits only)"
                ))
            } else {
                Ok(s.parse().expect("digits"))
            }
        };
        let (lo_s, hi_s) = item.split_once('-').unwrap_or((item, item));
        let (lo, hi) = (num(lo_s)?, num(hi_s)?);
        if lo > hi {
            return Err(format!("range `{item}` runs backwards ({lo} > {hi})"));
        }
        if hi - lo >= MAX_EXPANDED_NAMES as u64 {
            return Err(format!(
                "range `{item}` has more than {MAX_EXPANDED_NAMES} values"
            ));
        }
        let width = if lo_s.len() > 1 && lo_s.starts_with('0') {
            lo_s.len()
        } else {
            0
        };
        v.extend((lo..=hi).map(|x| format!("{x:0width$}")));
    }
    Ok(v)
}

/// Expands every node set of `s` in place (files relative to `base_dir`): the generators'
/// `sources`, `destinations`, `idle` and `hotspot`, and `stats.fairness_sources`. The keywords
/// (`"all"`, …) are left as they are.
pub fn expand_scenario(s: &mut Scenario, base_dir: &Path) -> Result<()> {
    for (i, g) in s.traffic.generators.iter_mut().enumerate() {
        let key = format!("traffic.generators[{i}]");
        for (set, name) in [
            (&mut g.sources, "sources"),
            (&mut g.destinations, "destinations"),
        ] {
            if let NodeSet::List(l) = set {
                *l = expand(l, &format!("{key}.{name}"), base_dir)?;
            }
        }
        g.idle = expand(&g.idle, &format!("{key}.idle"), base_dir)?;
        if let Some(h) = &mut g.hotspot {
            let hk = format!("{key}.hotspot");
            *h = match h {
                HcaNames::One(n) => {
                    let v = expand(std::slice::from_ref(n), &hk, base_dir)?;
                    if v.len() == 1 {
                        HcaNames::One(v.into_iter().next().expect("one"))
                    } else {
                        HcaNames::List(v)
                    }
                }
                HcaNames::List(l) => HcaNames::List(expand(l, &hk, base_dir)?),
            };
        }
    }
    if let Some(f) = &mut s.stats.fairness_sources {
        *f = expand(f, "stats.fairness_sources", base_dir)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(entries: &[&str]) -> Result<Vec<String>> {
        let v: Vec<String> = entries.iter().map(|s| s.to_string()).collect();
        expand(&v, "k", Path::new("."))
    }

    #[test]
    fn ranges_lists_and_padding_expand_in_order() {
        assert_eq!(
            ex(&["node[001-003]"]).unwrap(),
            ["node001", "node002", "node003"]
        );
        assert_eq!(
            ex(&["hca[0-2,12]"]).unwrap(),
            ["hca0", "hca1", "hca2", "hca12"]
        );
        assert_eq!(ex(&["n[08-10]x"]).unwrap(), ["n08x", "n09x", "n10x"]);
        assert_eq!(
            ex(&["r[1-2]-n[1-2]"]).unwrap(),
            ["r1-n1", "r1-n2", "r2-n1", "r2-n2"]
        );
        assert_eq!(ex(&["a[1-2],b3", "c"]).unwrap(), ["a1", "a2", "b3", "c"]);
        assert_eq!(ex(&["plain"]).unwrap(), ["plain"]);
    }

    #[test]
    fn malformed_ranges_name_the_key_and_the_entry() {
        for (e, want) in [
            ("n[5-3]", "runs backwards"),
            ("n[1-x]", "not a number"),
            ("n[]", "empty brackets"),
            ("n[1-2", "without its `]`"),
            ("n1-2]", "`]` without `[`"),
            ("n[[1]]", "cannot nest"),
            ("n[0-99999999]", "more than"),
            ("", "is empty"),
        ] {
            let msg = ex(&["ok", e]).unwrap_err().to_string();
            assert!(msg.starts_with("k[1]: "), "{e}: {msg}");
            assert!(msg.contains(want), "{e}: {msg}");
        }
    }

    #[test]
    fn a_host_file_is_read_relative_to_the_scenario() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("hosts.txt"),
            "# storage\nsto[1-2], sto9\n\nc1 c2 # two\n",
        )
        .unwrap();
        let v = expand(&["@hosts.txt".to_string()], "k", dir.path()).unwrap();
        assert_eq!(v, ["sto1", "sto2", "sto9", "c1", "c2"]);
        let e = expand(&["@none.txt".to_string()], "k", dir.path())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("k[0]: host file") && e.contains("does not exist"),
            "{e}"
        );
        std::fs::write(dir.path().join("bad.txt"), "a\nb[2-1]\n").unwrap();
        let e = expand(&["@bad.txt".to_string()], "k", dir.path())
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.txt:2: `b[2-1]`"), "{e}");
    }
}
