//! The two simulation models a scenario can run on (`sim.model`), one name each, used in the
//! folders of the code (`credit/`, `cycle/`), in `summary.json` (`"model"`), in
//! `RunResult.model`, in `lnsim keys`, `lnsim list` and the docs: `"credit"` for the
//! credit-level model and `"cycle"` for the cycle-level model.
//!
//! `"infiniband"`, the credit-level model's former name, is still accepted in scenarios
//! ([`Model::ALIASES`]); `lnsim validate` says which model it ran.

use super::choice::unknown_value;

/// The simulation model a scenario runs on (`sim.model`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Model {
    /// The credit-level model: event-driven, picosecond time, 64-B credits, seconds of
    /// simulated time (IB CC spec §3); InfiniBand fabrics and their congestion management.
    Credit,
    /// The cycle-level model: phits and cycles, CIOQ routers with allocators (Dragonfly spec
    /// §2).
    Cycle,
}

impl Model {
    /// Every model, in the order the documentation lists them.
    pub const ALL: &'static [Model] = &[Model::Credit, Model::Cycle];
    /// The names scenarios write, in the order of [`Self::ALL`].
    pub const NAMES: &'static [&'static str] = &["credit", "cycle"];
    /// Former names still accepted for a model: `"infiniband"` for the credit-level model.
    pub const ALIASES: &'static [(&'static str, Model)] = &[("infiniband", Model::Credit)];
    /// Every value `sim.model` accepts: [`Self::NAMES`], then the [`Self::ALIASES`] (what the
    /// JSON Schema and `lnsim keys` allow).
    pub const ACCEPTED: &'static [&'static str] = &["credit", "cycle", "infiniband"];

    /// The name scenarios write for this model.
    pub fn name(self) -> &'static str {
        match self {
            Model::Credit => "credit",
            Model::Cycle => "cycle",
        }
    }

    /// The model in words (`"credit-level model"`, `"cycle-level model"`).
    pub fn text(self) -> &'static str {
        match self {
            Model::Credit => "credit-level model",
            Model::Cycle => "cycle-level model",
        }
    }

    /// The model a name stands for (its own name or a former one), or `None`.
    pub fn from_name(name: &str) -> Option<Model> {
        Self::ALL
            .iter()
            .copied()
            .find(|m| m.name() == name)
            .or_else(|| {
                Self::ALIASES
                    .iter()
                    .find(|(a, _)| *a == name)
                    .map(|&(_, m)| m)
            })
    }

    /// `Some(name)` when `name` is a former name of a model ([`Self::ALIASES`]).
    pub fn alias(name: &str) -> Option<&'static str> {
        Self::ALIASES
            .iter()
            .find(|(a, _)| *a == name)
            .map(|&(a, _)| a)
    }
}

impl<'de> serde::Deserialize<'de> for Model {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <String as serde::Deserialize>::deserialize(d)?;
        Model::from_name(&s).ok_or_else(|| {
            <D::Error as serde::de::Error>::custom(format!(
                "{} (\"infiniband\", the credit-level model's former name, is accepted too)",
                unknown_value(&s, Self::NAMES)
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str) -> Result<Model, String> {
        <Model as serde::Deserialize>::deserialize(toml::Value::String(name.into()))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn each_model_has_one_name_and_the_credit_level_one_keeps_its_former_name() {
        for (m, n) in Model::ALL.iter().zip(Model::NAMES) {
            assert_eq!(m.name(), *n);
            assert_eq!(read(n), Ok(*m));
        }
        assert_eq!(read("credit"), Ok(Model::Credit));
        assert_eq!(read("infiniband"), Ok(Model::Credit));
        assert_eq!(Model::alias("infiniband"), Some("infiniband"));
        assert_eq!(Model::alias("credit"), None);
        let accepted: Vec<&str> = Model::NAMES
            .iter()
            .copied()
            .chain(Model::ALIASES.iter().map(|a| a.0))
            .collect();
        assert_eq!(Model::ACCEPTED, accepted.as_slice());
        let e = read("ib").unwrap_err();
        assert!(
            e.contains("unknown value \"ib\"; allowed: \"credit\", \"cycle\"")
                && e.contains("\"infiniband\""),
            "{e}"
        );
    }
}
