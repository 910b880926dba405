//! (being written)
use crate::error::{Error, Result};
use crate::routing::ForwardingTables;
use crate::topology::Fabric;
/// Builds the tables.
pub fn build(_f: &Fabric) -> Result<ForwardingTables> {
    Err(Error::Internal("not yet".into()))
}
