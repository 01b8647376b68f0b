//! The network: packets, one-way links with their queues, nodes and static routing.

pub mod delivery_trace;
pub mod link_schedule;
pub mod packet;
pub mod pcap;
pub mod routing;
pub mod wire_headers;

pub use packet::{AccEcnOption, Ecn, Packet, PacketArena, PacketId, PacketKind, SackBlock};
pub use routing::RoutingTable;

/// Index of a node in the simulator's node list.
pub type NodeId = u32;
/// Index of a one-way link in the simulator's link list.
pub type LinkId = u32;
/// Index of an agent (TCP sender or sink, UDP source or sink).
pub type AgentId = u32;
/// Index of a flow: a sender and its receiver share one.
pub type FlowId = u32;
