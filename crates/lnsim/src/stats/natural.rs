//! The order in which lnsim lists named things — end nodes, switches, routers — wherever it
//! prints or writes them: natural order, in which the runs of digits inside a name compare as
//! numbers (`H2` before `H10`, `H1_2` before `H1_10`, `G3R9` before `G3R10`, `SW9` before
//! `SW12`), the other characters as text. [`natural_cmp`] is the one comparison (the Python
//! layer sorts with it too, through `lnsim._core.natural_cmp`); [`to_json_pretty`] writes a
//! `summary.json` whose objects keyed by name (`nodes`, `fairness.per_destination`) list
//! their entries in that order.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;
use std::cmp::Ordering;

/// Compares two names in natural order: split into runs of ASCII digits and runs of other
/// characters, runs compared in turn — two digit runs by their value (of any length: leading
/// zeros aside, the longer number is larger), anything else as text. Names equal so
/// (`H01`, `H1`) fall back to plain text order, so the order is total and deterministic.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    loop {
        match (x.is_empty(), y.is_empty()) {
            (true, true) => return a.cmp(b),
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        let (dx, dy) = (x[0].is_ascii_digit(), y[0].is_ascii_digit());
        let (rx, tx) = split_run(x, dx);
        let (ry, ty) = split_run(y, dy);
        let ord = match (dx, dy) {
            (true, true) => {
                let (nx, ny) = (trim_zeros(rx), trim_zeros(ry));
                nx.len().cmp(&ny.len()).then_with(|| nx.cmp(ny))
            }
            _ => rx.cmp(ry),
        };
        if ord != Ordering::Equal {
            return ord;
        }
        (x, y) = (tx, ty);
    }
}

/// The leading run of digits (`digits`) or of other bytes of `s`, and the rest.
fn split_run(s: &[u8], digits: bool) -> (&[u8], &[u8]) {
    let n = s
        .iter()
        .position(|c| c.is_ascii_digit() != digits)
        .unwrap_or(s.len());
    s.split_at(n)
}

/// A run of digits without its leading zeros.
fn trim_zeros(s: &[u8]) -> &[u8] {
    let n = s.iter().position(|&c| c != b'0').unwrap_or(s.len());
    &s[n..]
}

/// `v` as pretty-printed JSON text (as `serde_json::to_string_pretty`), every object's keys in
/// [`natural_cmp`] order: keys without digits keep their text order, names come as nodes are
/// counted (`H1`, `H2`, …, `H10`).
pub fn to_json_pretty(v: &Value) -> serde_json::Result<String> {
    serde_json::to_string_pretty(&Natural(v))
}

/// A JSON value that serializes its objects in natural key order.
struct Natural<'a>(&'a Value);

impl Serialize for Natural<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Object(m) => {
                let mut entries: Vec<(&String, &Value)> = m.iter().collect();
                entries.sort_by(|p, q| natural_cmp(p.0, q.0));
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, &Natural(v))?;
                }
                map.end()
            }
            Value::Array(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for v in a {
                    seq.serialize_element(&Natural(v))?;
                }
                seq.end()
            }
            other => other.serialize(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sorted(names: &[&'static str]) -> Vec<&'static str> {
        let mut v = names.to_vec();
        v.sort_by(|a, b| natural_cmp(a, b));
        v
    }

    #[test]
    fn digit_runs_compare_as_numbers() {
        assert_eq!(
            sorted(&["H10", "H2", "H1", "H11"]),
            ["H1", "H2", "H10", "H11"]
        );
        assert_eq!(
            sorted(&["H1_10_1", "H1_2_1", "H10_1_1", "H2_1_1"]),
            ["H1_2_1", "H1_10_1", "H2_1_1", "H10_1_1"]
        );
        assert_eq!(
            sorted(&["G3R10", "G10R1", "G3R9", "G2R12"]),
            ["G2R12", "G3R9", "G3R10", "G10R1"]
        );
        assert_eq!(
            sorted(&["SW12", "N100", "SW9", "N20", "L2_3", "L1_10"]),
            ["L1_10", "L2_3", "N20", "N100", "SW9", "SW12"]
        );
    }

    #[test]
    fn the_order_is_total() {
        // equal as numbers, told apart as text; a prefix first; numbers beyond u128
        assert_eq!(sorted(&["H1", "H01", "H001"]), ["H001", "H01", "H1"]);
        assert_eq!(sorted(&["H1a", "H1", "H"]), ["H", "H1", "H1a"]);
        let big = "N123456789012345678901234567890123456789012";
        assert_eq!(sorted(&[big, "N99"]), ["N99", big]);
        assert_eq!(natural_cmp("x", "x"), Ordering::Equal);
    }

    #[test]
    fn json_objects_list_names_in_natural_order_and_the_rest_as_before() {
        let v = json!({"nodes": {"H10": 1, "H2": {"b": 1, "a": [{"z": 0, "y": 1}]}, "H1": 3},
                       "p99": 1, "p50": 2, "complete": true});
        let text = to_json_pretty(&v).unwrap();
        let at = |s: &str| text.find(s).unwrap();
        assert!(
            at("\"H1\"") < at("\"H2\"") && at("\"H2\"") < at("\"H10\""),
            "{text}"
        );
        assert!(
            at("\"a\"") < at("\"b\"") && at("\"y\"") < at("\"z\""),
            "{text}"
        );
        assert!(at("\"complete\"") < at("\"nodes\"") && at("\"p50\"") < at("\"p99\""));
        // the same value, only the order of object keys differs
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v);
        // without digits in the keys, exactly serde_json's text
        let plain = json!({"b": [1, 2.5, "x"], "a": {"d": null, "c": false}});
        assert_eq!(
            to_json_pretty(&plain).unwrap(),
            serde_json::to_string_pretty(&plain).unwrap()
        );
    }
}
