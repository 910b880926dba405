//! Keys whose value is one name of a fixed list (`cc.level = "qp"`, `routing.vlb_policy = "lgl"`):
//! one enum per key, declared with [`choice!`](crate::choice), whose names are written once and
//! are at the same time what scenarios write, what `lnsim keys` and `lnsim schema` list as
//! allowed ([`super::keys`] takes them from the enum's `NAMES`) and what the error of a wrong
//! value names.

/// The message of a value that is not one of `allowed` (the key is added by the loader):
/// `unknown value "foo"; allowed: "qp", "sl"`.
pub fn unknown_value(value: &str, allowed: &[&str]) -> String {
    let list = allowed
        .iter()
        .map(|s| format!("\"{s}\""))
        .collect::<Vec<_>>()
        .join(", ");
    format!("unknown value \"{value}\"; allowed: {list}")
}

/// Declares a scenario enum: `Variant = "name"` pairs, each variant with its doc comment; an
/// optional `#[default]` variant (with `#[derive(Default)]` on the enum) is the key's default.
/// Generates `ALL`, `NAMES`, `name()` and a `Deserialize` that reads a string and names the
/// allowed values when it is none of them.
#[macro_export]
macro_rules! choice {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every value, in the order the documentation lists them.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The names scenarios write, in the order of [`Self::ALL`].
            pub const NAMES: &'static [&'static str] = &[$($text),+];
            /// The name scenarios write for this value.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <String as serde::Deserialize>::deserialize(d)?;
                match s.as_str() {
                    $($text => Ok($name::$variant),)+
                    other => Err(<D::Error as serde::de::Error>::custom(
                        $crate::config::choice::unknown_value(other, Self::NAMES),
                    )),
                }
            }
        }
    };
}

#[cfg(test)]
mod tests {
    crate::choice! {
        /// A test choice.
        #[derive(Default)]
        pub enum Level {
            /// Per flow.
            #[default]
            Qp = "qp",
            /// Per service level.
            Sl = "sl",
        }
    }

    #[test]
    fn names_round_trip_and_a_wrong_one_names_the_allowed_values() {
        for (v, n) in Level::ALL.iter().zip(Level::NAMES) {
            assert_eq!(v.name(), *n);
            let back: Level =
                serde::Deserialize::deserialize(toml::Value::String(n.to_string())).unwrap();
            assert_eq!(back, *v);
        }
        assert_eq!(Level::default(), Level::Qp);
        let e = <Level as serde::Deserialize>::deserialize(toml::Value::String("x".into()))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("unknown value \"x\"; allowed: \"qp\", \"sl\""),
            "{e}"
        );
        let e = <Level as serde::Deserialize>::deserialize(toml::Value::Integer(3))
            .unwrap_err()
            .to_string();
        assert!(e.contains("invalid type"), "{e}");
    }
}
