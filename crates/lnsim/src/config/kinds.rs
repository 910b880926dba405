//! Tables typed per kind: a table whose keys depend on the value of one of its keys (the
//! selector), e.g. `[topology]` by `kind`. Each kind is a variant of a tagged serde enum with
//! its own struct and `deny_unknown_fields`, so a key of another kind is refused by the type;
//! this module reads the keys each kind takes from the variant's own `Deserialize` (never from a
//! hand-kept list) and turns serde's refusals into messages that name the key, the kind and the
//! keys that kind takes.

use super::schema::TopologyKind;
use super::schema::{CcKeys, CcMechanism, RoutingAlgorithm, RoutingConfig, TopologyConfig};

/// A table typed per kind: where it is, its selector key, and the keys of each kind.
pub struct KindTable {
    /// The table's key path (`"topology"`).
    pub table: &'static str,
    /// The key whose value selects the kind (`"kind"`).
    pub selector: &'static str,
    /// The kind of a table that does not name one (`None`: the selector is required, or its
    /// default depends on other tables and the loader names it).
    pub default_kind: Option<&'static str>,
    /// Keys every kind takes, outside the kinds' structs (`cc.enabled`).
    pub common: &'static [&'static str],
    /// The kinds, as scenarios write them.
    pub kinds: fn() -> &'static [&'static str],
    /// The keys a kind takes besides the selector (`None`: not a kind of this table).
    pub keys_of: fn(&str) -> Option<&'static [&'static str]>,
    /// Deserialises the table (without its selector) as the kind's own struct and returns
    /// serde's refusal with the path inside the table (`port_numbering`, or `.` for the table
    /// itself), which the tagged enum loses; `None` when it is accepted or not a kind.
    pub locate: fn(&str, toml::Table) -> Option<(String, String)>,
}

/// Every table typed per kind.
pub const KIND_TABLES: &[KindTable] = &[
    KindTable {
        table: "topology",
        selector: "kind",
        default_kind: None,
        common: &[],
        kinds: || TopologyKind::NAMES,
        keys_of: TopologyConfig::keys_of,
        locate: TopologyConfig::locate,
    },
    KindTable {
        table: "routing",
        selector: "algorithm",
        default_kind: None,
        common: &[],
        kinds: || RoutingAlgorithm::NAMES,
        keys_of: RoutingConfig::keys_of,
        locate: RoutingConfig::locate,
    },
    KindTable {
        table: "cc",
        selector: "mechanism",
        default_kind: Some("ib"),
        common: &["enabled"],
        kinds: || CcMechanism::NAMES,
        keys_of: CcKeys::keys_of,
        locate: CcKeys::locate,
    },
];

/// The kind table at `path`, if any.
pub fn kind_table(path: &str) -> Option<&'static KindTable> {
    KIND_TABLES.iter().find(|k| k.table == path)
}

/// For a key inside a table typed per kind (`topology.dims`, `routing.lian.w`), the table and
/// the kinds that take it (the kinds whose struct has the key's first segment below the
/// table); `None` for any other key and for the selector itself.
pub fn kinds_taking(path: &str) -> Option<(&'static KindTable, Vec<&'static str>)> {
    let kt = KIND_TABLES
        .iter()
        .find(|kt| path.starts_with(kt.table) && path[kt.table.len()..].starts_with('.'))?;
    let rest = &path[kt.table.len() + 1..];
    let first = rest.split('.').next().unwrap_or(rest);
    if first == kt.selector || kt.common.contains(&first) || rest.contains(['[', '<']) {
        return None;
    }
    let kinds = (kt.kinds)()
        .iter()
        .copied()
        .filter(|k| takes(kt, k, rest))
        .collect();
    Some((kt, kinds))
}

/// Does `kind` of `kt` take the key at `rest` (`dims`, `lian.w`)? Its struct is given that key
/// alone, with a value of no key's type: only a key it does not have is refused as unknown.
fn takes(kt: &KindTable, kind: &str, rest: &str) -> bool {
    let mut segs: Vec<&str> = rest.split('.').collect();
    let Some(last) = segs.pop() else { return false };
    let mut v = toml::Value::Datetime("1979-05-27T07:32:00Z".parse().expect("a TOML datetime"));
    let mut leaf = toml::Table::new();
    leaf.insert(last.to_string(), v);
    v = toml::Value::Table(leaf);
    for seg in segs.iter().rev() {
        let mut t = toml::Table::new();
        t.insert(seg.to_string(), v);
        v = toml::Value::Table(t);
    }
    let toml::Value::Table(table) = v else {
        return false;
    };
    match (kt.locate)(kind, table) {
        Some((_, why)) => !why.starts_with("unknown field"),
        None => true,
    }
}

/// Explains serde's refusal of the table at `path` of `merged` when that table is typed per
/// kind: the key inside it that was refused (which the tagged enum's error loses) and why — a
/// key of another kind, a key its kind requires, or a value of the wrong type or set. Returns the
/// key path to blame and the message, or `None` when `path` is not such a table.
pub fn explain(path: &str, merged: &toml::Table) -> Option<(String, String)> {
    let kt = kind_table(path)?;
    let table = path
        .split('.')
        .try_fold(merged, |t, seg| t.get(seg)?.as_table())?;
    let kind = match table.get(kt.selector) {
        Some(k) => k.as_str()?,
        None => kt.default_kind?,
    };
    let Some(keys) = (kt.keys_of)(kind) else {
        let why = super::choice::unknown_value(kind, (kt.kinds)());
        return Some((format!("{path}.{}", kt.selector), why));
    };
    let mut rest = table.clone();
    rest.remove(kt.selector);
    for c in kt.common {
        rest.remove(*c);
    }
    let (at, inner) = (kt.locate)(kind, rest)?;
    let inner = inner.trim().trim_end_matches('.').replace('\n', " ");
    let field = |prefix: &str| {
        let rest = inner.strip_prefix(prefix)?;
        rest.split_once('`').map(|(f, _)| f.to_string())
    };
    let its_keys = if keys.is_empty() {
        let mut all: Vec<String> = kt.common.iter().map(|c| format!("`{c}`")).collect();
        all.push(format!("`{}`", kt.selector));
        format!("it takes no key besides {}", all.join(" and "))
    } else {
        let mut all: Vec<&str> = kt.common.to_vec();
        all.push(kt.selector);
        all.extend(keys.iter().copied());
        format!("its keys: {}", all.join(", "))
    };
    let selected = format!("{path}.{} = \"{kind}\"", kt.selector);
    let inside = at != "." && !at.is_empty();
    if let Some(f) = field("unknown field `") {
        // serde's path ends with the refused key itself
        let parent = at
            .strip_suffix(f.as_str())
            .map(|p| p.trim_end_matches('.'))
            .filter(|p| !p.is_empty());
        let key = match parent {
            Some(parent) => format!("{path}.{parent}.{f}"),
            None => format!("{path}.{f}"),
        };
        let owners = kinds_taking(&key).map(|(_, k)| k).unwrap_or_default();
        let whose = match owners.split_last() {
            None => String::new(),
            Some((one, [])) => format!(" (it applies to {one})"),
            Some((last, rest)) => format!(" (it applies to {} and {last})", rest.join(", ")),
        };
        return Some(match parent {
            // a key of a table inside the kind's table (`[routing.lian]`): serde's own list
            Some(parent) => {
                let here = inner
                    .split_once(", expected ")
                    .map(|(_, list)| format!("; there it takes {list}"))
                    .unwrap_or_default();
                let why =
                    format!("is not a key of [{path}.{parent}] under {selected}{whose}{here}");
                (key, why)
            }
            None => (
                key,
                format!("is not a key of {selected}{whose}; {its_keys}"),
            ),
        });
    }
    if let Some(f) = field("missing field `") {
        return Some((
            format!("{path}.{f}"),
            format!("missing: {selected} requires it"),
        ));
    }
    let key = if inside {
        format!("{path}.{at}")
    } else {
        path.to_string()
    };
    Some((key, inner))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_of_a_kind_are_its_structs_fields() {
        assert_eq!(
            TopologyConfig::keys_of("mesh"),
            Some(&["dims", "hcas_per_switch", "port_numbering"][..])
        );
        assert_eq!(
            TopologyConfig::keys_of("gran_testbed"),
            Some(&[] as &[&str])
        );
        assert_eq!(
            TopologyConfig::keys_of("dragonfly"),
            Some(&["p", "a", "h", "arrangement"][..])
        );
        assert_eq!(TopologyConfig::keys_of("ring"), None);
    }

    #[test]
    fn every_kind_of_a_kind_table_is_known() {
        for kt in KIND_TABLES {
            for name in (kt.kinds)() {
                assert!((kt.keys_of)(name).is_some(), "{} {name}", kt.table);
            }
            assert!((kt.keys_of)("no such kind").is_none());
        }
        assert_eq!(
            RoutingConfig::keys_of("dmodk"),
            Some(&["dmodk_digits", "dmodk_key"][..])
        );
    }
}
