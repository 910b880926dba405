//! (being written)
use crate::config::TopologyConfig;
use crate::error::{Error, Result};
use crate::topology::{Fabric, LinkParams};
/// Builds this topology.
pub fn build(_t: &TopologyConfig, _b: &std::path::Path, _h: LinkParams, _f: LinkParams) -> Result<Fabric> {
    Err(Error::Internal("not yet".into()))
}
