//! The parametric input-buffered switch (spec §3.4–§3.5).
//!
//! One model, three replaceable parts:
//! - **queue mapping** ([`queue_mapping`]): which queue of the input buffer a packet joins
//!   (VOQ per output, or one FIFO per input);
//! - **credit policy**: per input port and VL one credit pool shared by all its queues — a
//!   congested queue can fill the whole pool and stop credit return, which is the HOL-blocking /
//!   congestion-spreading mechanism the studies show (spec §3.4);
//! - **arbiter** ([`arbiter`]): per output, IBA high/low VL arbitration
//!   ([`vl_arbitration`]) then round robin over *input ports* at packet granularity, which
//!   produces the parking-lot effect (spec §3.5).
//!
//! Timing is virtual cut-through at packet level: a packet can be forwarded once its first
//! credit is in, it needs downstream credits for the whole packet, and every time derived from
//! the packet's tail (when it leaves the input, when the output wire finishes) respects the
//! arrival of its last credit. `max_being_sent` limits the packets an input feeds through the
//! crossbar at once; the crossbar moves `2 × width` bytes per core cycle.

pub mod arbiter;
pub mod input;
pub mod queue_mapping;
pub mod vl_arbitration;
