//! What a scenario table's struct takes, read from its own derived `Deserialize`: its field
//! names ([`fields_of`]) and serde's refusal of a table with the path inside it ([`refusal`]).
//! The tables typed per kind ([`super::kinds`]) use these, so that no key list is kept by hand.

use serde::de::{self, Deserialize, Deserializer, Visitor};

/// The field names of the struct `T` as its derived `Deserialize` declares them (the keys of
/// its table, in declaration order).
pub fn fields_of<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    let mut found = None;
    // the probe stops at `deserialize_struct`; the error it returns is expected
    let _ = T::deserialize(Probe(&mut found));
    found.unwrap_or(&[])
}

/// A deserializer that records the field list a derived struct asks for and stops.
struct Probe<'a>(&'a mut Option<&'static [&'static str]>);

impl<'de> Deserializer<'de> for Probe<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = Some(fields);
        Err(de::Error::custom("fields recorded"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// serde's refusal of `table` as a `T`, with its path inside the table.
pub fn refusal<T: for<'de> Deserialize<'de>>(table: toml::Table) -> Option<(String, String)> {
    serde_path_to_error::deserialize::<_, T>(toml::Value::Table(table))
        .err()
        .map(|e| (e.path().to_string(), e.into_inner().to_string()))
}
