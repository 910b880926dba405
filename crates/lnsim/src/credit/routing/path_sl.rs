//! A service level per (source HCA, destination LID) pair, assigned by the routing engine
//! (OpenSM's `dfsssp`: the pair's VL layer; docs/opensm-routing.md): the table the subnet
//! manager would hand out in path records. With SL→VL 1:1 it is the VL every packet of the pair
//! travels on — the source lane choice `LaneChoice::PathSl` (`credit/lanes.rs`) reads it per
//! packet, and the channel-dependency check sees each pair on its own VL.
//!
//! Flat, one byte per (source HCA, destination LID) — `hcas × lids` bytes, counted in the
//! memory estimate ([`PathSl::bytes`]) — keyed by the LID as the forwarding tables are; the
//! LIDs of a destination come from [`dest_lids`] alone.

use crate::topology::{Fabric, NodeId};

/// The LIDs that address HCA node `hca` (one per HCA today: its base LID; with an LMC the range
/// `base .. base + 2^LMC`). Every per-LID loop over destinations goes through this function.
pub fn dest_lids(fabric: &Fabric, hca: NodeId) -> std::ops::Range<u32> {
    let base = fabric.nodes[hca as usize].lid;
    base..base + 1
}

/// SL per (source HCA, destination LID) pair, and how many pairs each SL carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathSl {
    /// LID slots per source (the forwarding tables' `lids`).
    lids: usize,
    /// `sl[src * lids + dlid]`.
    sl: Vec<u8>,
    /// Pairs per SL (layer), SL 0 first; as many entries as SLs in use.
    pairs: Vec<u64>,
}

impl PathSl {
    /// Bytes of the table of `hcas` sources and `lids` LID slots (for the memory estimate).
    pub fn bytes(hcas: u64, lids: u64) -> u64 {
        hcas.saturating_mul(lids)
    }

    /// A table of `hcas` sources over `lids` LID slots, every pair on SL 0.
    pub fn new(hcas: usize, lids: usize) -> Self {
        PathSl {
            lids,
            sl: vec![0; hcas * lids],
            pairs: Vec::new(),
        }
    }

    /// Sets the SL of (source HCA `src`, destination LID `dlid`).
    pub fn set(&mut self, src: u32, dlid: u32, sl: u8) {
        self.sl[src as usize * self.lids + dlid as usize] = sl;
    }

    /// The SL of (source HCA `src`, destination LID `dlid`).
    #[inline(always)]
    pub fn get(&self, src: u32, dlid: u32) -> u8 {
        self.sl[src as usize * self.lids + dlid as usize]
    }

    /// The SL of the packets from HCA index `src` to HCA index `dst` (addressed by its base LID,
    /// `dst + 1`, as the forwarding tables address HCAs). Hot path.
    #[inline(always)]
    pub fn of_hcas(&self, src: u32, dst: u32) -> u8 {
        self.get(src, dst + 1)
    }

    /// Records the pairs per SL (the engine's layer counts).
    pub fn set_pairs_per_sl(&mut self, pairs: Vec<u64>) {
        self.pairs = pairs;
    }

    /// Pairs per SL (layer), SL 0 first.
    pub fn pairs_per_sl(&self) -> &[u64] {
        &self.pairs
    }

    /// SLs in use (the layers).
    pub fn sls(&self) -> usize {
        self.pairs.len().max(1)
    }
}
