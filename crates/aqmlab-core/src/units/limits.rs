//! The largest value each size field of a scenario accepts. They sit well above any study in
//! the five papers or the scale issue (100,000 flows) and well below what would exhaust the
//! engine's integer types; the memory estimate ([`crate::scenario::memory`]) is what guards a given
//! machine.

/// `topology.senders`, `topology.receivers`, and the nodes of a graph.
pub const MAX_NODES: u32 = 1_000_000;
/// Links of a graph (`topology.links`).
pub const MAX_GRAPH_LINKS: usize = 4_000_000;
/// Flows after expanding `count` and node lists, over all `flows` entries.
pub const MAX_FLOWS: u64 = 1_000_000;
/// Samples per time series (`duration / sample_interval`).
pub const MAX_SAMPLES: u64 = 10_000_000;
/// The largest transfer a run represents, payload bytes: 2^53, the largest integer an f64
/// (in which sizes are drawn) holds exactly, and well within the int64 of the result tables;
/// 9 PB, more than a 1 Tb/s link carries in a day. Draws beyond it are clipped to it; a size
/// distribution that would put more than [`MAX_TRANSFER_TAIL`] of its draws there is refused.
pub const MAX_TRANSFER_BYTES: u64 = 1 << 53;
/// The largest share of a workload's draws allowed beyond [`MAX_TRANSFER_BYTES`] (before
/// `max_size`): with [`MAX_FLOWS`] transfers, a run clips one with probability below 0.1 %.
pub const MAX_TRANSFER_TAIL: f64 = 1e-9;
