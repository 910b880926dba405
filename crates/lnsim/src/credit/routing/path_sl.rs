//! A service level per (source HCA, destination LID) pair, assigned by the routing engine
//! (OpenSM's `dfsssp`: the pair's VL layer; docs/opensm-routing.md): the table the subnet
//! manager would hand out in path records. With SL→VL 1:1 it is the VL every packet of the pair
//! travels on — the source lane choice `LaneChoice::PathSl` (`credit/lanes.rs`) reads it per
//! packet, and the channel-dependency check sees each pair on its own VL.
//!
//! Flat, one byte per (source HCA, destination LID) — `hcas × lids` bytes, counted in the
//! memory estimate ([`PathSl::bytes`]) — keyed by the LID as the forwarding tables are (with
//! an LMC, each of a destination's `2^lmc` LIDs has its own entry: OpenSM routes and layers
//! every LID of a port separately, so one pair's LIDs may travel on different SLs). A source's
//! own LIDs all share one entry: they share the route to a destination LID (the tables route by
//! DLID), so OpenSM's layering, which moves every pair making a dependency, keeps them together.

/// SL per (source HCA, destination LID) pair, and how many pairs each SL carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathSl {
    /// LID slots per source (the forwarding tables' `lids`).
    lids: usize,
    /// The LID layout's LMC (the forwarding tables' `lmc`): HCA index `h` has the LID slots
    /// `(h + 1)·2^lmc ..`.
    lmc: u8,
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

    /// A table of `hcas` sources over `lids` LID slots laid out with LMC `lmc` (the forwarding
    /// tables' `lids` and `lmc`), every pair on SL 0.
    pub fn new(hcas: usize, lids: usize, lmc: u8) -> Self {
        PathSl {
            lids,
            lmc,
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

    /// The SL of the packets from HCA index `src` to HCA index `dst` addressed by its LID of
    /// offset `offset` in its LMC range (`ForwardingTables::dlid`; 0: the base LID, which
    /// congestion notifications use). Hot path.
    #[inline(always)]
    pub fn of_hcas(&self, src: u32, dst: u32, offset: u8) -> u8 {
        let dlid = ((dst + 1) << self.lmc) + (offset as u32 & ((1u32 << self.lmc) - 1));
        self.get(src, dlid)
    }

    /// The LID offsets a destination can have in this layout (`2^lmc`).
    pub fn offsets(&self) -> std::ops::Range<u8> {
        0..(1u16 << self.lmc) as u8
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
