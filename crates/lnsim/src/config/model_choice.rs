//! Which model a scenario runs on: `sim.model`, or, when a scenario does not say, the model
//! inferred as before the key existed; and the check that a scenario sets no key, table or
//! value of the other model, from the key metadata of [`super::keys`] (each key names the model
//! that reads it) and the catalog of [`super::catalog`], not from a list kept by hand.

use super::catalog::CATALOG;
use super::keys::{self, table_model, ValueKind};
use super::model::Model;
use super::schema::TopologyKind;
use crate::error::{Error, Result};

/// The model of a scenario and how it was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelChoice {
    /// The model.
    pub model: Model,
    /// `None` when the scenario names it (`sim.model`); otherwise what it was inferred from
    /// (`"sim.measure_cycles"`), for messages that say so.
    pub inferred_from: Option<&'static str>,
    /// The former name the scenario wrote (`sim.model = "infiniband"`), for messages that say
    /// which model it stands for; `None` for the model's own name or an inferred model.
    pub alias: Option<&'static str>,
}

impl ModelChoice {
    /// The model of the merged scenario `table` (read before the typed parse, so that a key
    /// of the other model is refused as such, not as a missing sibling): `sim.model` when
    /// given; otherwise inferred as before the key existed, so that scenario files without it
    /// keep working: the cycle-level model when the scenario gives `sim.measure_cycles` or
    /// builds a Dragonfly, the credit-level model otherwise. A bad `sim.model` is an error
    /// naming the allowed values; a former name (`"infiniband"`) is accepted and recorded.
    pub fn of(table: &toml::Table) -> Result<ModelChoice> {
        let sim = table.get("sim").and_then(toml::Value::as_table);
        let given = sim.and_then(|t| t.get("model"));
        let named = match given {
            Some(v) => Some(
                <Model as serde::Deserialize>::deserialize(v.clone())
                    .map_err(|e| Error::Input(format!("key `sim.model`: {e}")))?,
            ),
            None => None,
        };
        let alias = given.and_then(toml::Value::as_str).and_then(Model::alias);
        let dragonfly = table
            .get("topology")
            .and_then(|t| t.get("kind"))
            .and_then(toml::Value::as_str)
            == Some(TopologyKind::Dragonfly.name());
        let (model, inferred_from) = match named {
            Some(m) => (m, None),
            None if sim.is_some_and(|t| t.contains_key("measure_cycles")) => {
                (Model::Cycle, Some("sim.measure_cycles"))
            }
            None if dragonfly => (Model::Cycle, Some("topology.kind = \"dragonfly\"")),
            None => (
                Model::Credit,
                Some("the absence of sim.measure_cycles and of a Dragonfly"),
            ),
        };
        Ok(ModelChoice {
            model,
            inferred_from,
            alias,
        })
    }

    /// How the model was chosen, in words: `sim.model = "cycle"`, `sim.model = "infiniband",
    /// the former name of "credit"`, or `sim.model not given: inferred cycle from
    /// sim.measure_cycles`.
    pub fn how(&self) -> String {
        match (self.inferred_from, self.alias) {
            (None, None) => format!("sim.model = \"{}\"", self.model.name()),
            (None, Some(a)) => format!(
                "sim.model = \"{a}\", the former name of \"{}\"",
                self.model.name()
            ),
            (Some(r), _) => format!(
                "sim.model not given: inferred {} from {r}",
                self.model.name()
            ),
        }
    }

    /// The note `lnsim validate` prints when the model was inferred: `sim.model not given:
    /// inferred cycle from sim.measure_cycles; add sim.model = "cycle"`.
    pub fn note(&self) -> Option<String> {
        self.inferred_from
            .map(|_| format!("{}; add sim.model = \"{}\"", self.how(), self.model.name()))
    }
}

/// Refuses a key, a table or a value of the other model in the merged scenario `table`
/// (`[sweep]` is left to each point): the message names it, the model it belongs to and the
/// model this scenario runs on.
pub fn check_keys(table: &toml::Table, choice: ModelChoice) -> Result<()> {
    // a value first: a Dragonfly's own keys are not the point when the model has no Dragonfly
    check_values(table, choice)?;
    walk(table, "", choice)
}

fn refuse(what: &str, owner: Model, choice: ModelChoice) -> Error {
    Error::Input(format!(
        "{what}: belongs to the {} (sim.model = \"{}\"), but this scenario runs the {} ({})",
        owner.text(),
        owner.name(),
        choice.model.text(),
        choice.how()
    ))
}

fn walk(table: &toml::Table, prefix: &str, choice: ModelChoice) -> Result<()> {
    for (k, v) in table {
        if prefix.is_empty() && k == "sweep" {
            continue;
        }
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        let pattern = keys::pattern_of(&path);
        if let Some(info) = keys::lookup(&pattern) {
            match info.model {
                Some(m) if m != choice.model => {
                    return Err(refuse(&format!("key `{path}`"), m, choice))
                }
                _ => continue,
            }
        }
        // a table (or array of tables) whose keys all belong to the other model is refused as
        // a whole, even when empty
        let owner = match v {
            toml::Value::Array(_) => table_model(&format!("{pattern}[]")),
            _ => table_model(&pattern),
        };
        if let Some(m) = owner.filter(|m| *m != choice.model) {
            return Err(refuse(&format!("table `{path}`"), m, choice));
        }
        match v {
            toml::Value::Table(t) => walk(t, &path, choice)?,
            toml::Value::Array(a) => {
                for (i, e) in a.iter().enumerate() {
                    if let toml::Value::Table(t) = e {
                        walk(t, &format!("{path}[{i}]"), choice)?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Values that only one model has (`topology.kind = "dragonfly"`, `routing.algorithm =
/// "dmodk"`), from the catalog of `lnsim list`: each item's key and value
/// ([`super::catalog::Item::selector`]).
fn check_values(table: &toml::Table, choice: ModelChoice) -> Result<()> {
    for item in CATALOG {
        let Some(m) = item.model.filter(|m| *m != choice.model) else {
            continue;
        };
        let (key, value) = item.selector();
        if !matches!(
            keys::lookup(key).map(|k| k.kind),
            Some(ValueKind::Choice(_))
        ) {
            continue;
        }
        let Some((t, name)) = key.split_once('.') else {
            continue;
        };
        let given = table
            .get(t)
            .and_then(|t| t.get(name))
            .and_then(|v| v.as_str());
        if given == Some(value) {
            return Err(refuse(&format!("key `{key}` = \"{value}\""), m, choice));
        }
    }
    Ok(())
}
