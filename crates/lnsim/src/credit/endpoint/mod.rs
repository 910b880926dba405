//! Host channel adapters (spec §3.7): per-flow (queue-pair) injection queues served round
//! robin, control packets (CNPs) first, the congestion-control injection delay as a gate per
//! flow ([`hca`]); traffic generators feeding the queues ([`generator`]); the sink draining the
//! receive buffer at a PCIe-like rate with ON/OFF hiccups ([`sink`]); what happens to a packet
//! that reaches its destination ([`delivery`]); with `hca.injection_queues = "scheme"`, the
//! Input Adapter of drb-and-ddbbm spec B.5 between the flows and the link ([`adapter`]).

pub mod adapter;
pub mod delivery;
pub mod generator;
pub mod hca;
pub mod sink;
