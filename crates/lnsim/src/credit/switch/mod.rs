//! The parametric input-buffered switch (spec §3.4–§3.5).
//!
//! One model, three replaceable parts:
//! - **buffer organisation** ([`buffer`]): which queue of the input buffer a packet joins
//!   (one FIFO per VL, a VOQ per output, a queue per destination) and how the link's credits
//!   are kept for those queues (one pool per VL shared by its queues — a congested queue can
//!   fill the whole pool and stop credit return, which is the HOL-blocking /
//!   congestion-spreading mechanism the studies show, spec §3.4 — or space partitioned per
//!   queue);
//! - **input** ([`input`]): a head arrives, the forwarding table picks the output, the buffer
//!   organisation the queue; the tail leaves and the credits go back upstream;
//! - **arbiter** ([`arbiter`]): per output, IBA high/low VL arbitration
//!   ([`vl_arbitration`]) then round robin over *input ports* at packet granularity, which
//!   produces the parking-lot effect (spec §3.5).
//!
//! Timing is virtual cut-through at packet level: a packet can be forwarded once its first
//! credit is in, it needs downstream credits for the whole packet, and every time derived from
//! the packet's tail (when it leaves the input, when the output wire finishes) respects the
//! arrival of its last credit. `max_being_sent` limits the packets an input feeds through the
//! crossbar at once; the crossbar moves `2 × width` bytes per core cycle.
//!
//! Optionally ([`output_buffer`], `switch.output_buffer_credits`, spec B.5) every switch
//! output has a buffer too: the arbiter then moves a packet across the crossbar into the
//! output queue kept for its downstream credit counter when that queue has room, and the
//! output link serves its queues round robin.
//!
//! Congestion management sees the switch through its hooks (`credit/cc/mod.rs`): a packet
//! enqueued at an input, its tail dequeued, a packet forwarded by an output, credits returned
//! to an output.

pub mod arbiter;
pub mod buffer;
pub mod input;
pub mod output_buffer;
pub mod output_queue;
pub mod vl_arbitration;
