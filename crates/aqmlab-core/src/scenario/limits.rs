//! The largest value each size field of a scenario accepts. They sit well above any study in
//! the five papers or the scale issue (100,000 flows) and well below what would exhaust the
//! engine's integer types; the memory estimate ([`super::memory`]) is what guards a given
//! machine.

/// `topology.senders`, `topology.receivers`, and the nodes of a graph.
pub const MAX_NODES: u32 = 1_000_000;
/// Links of a graph (`topology.links`).
pub const MAX_GRAPH_LINKS: usize = 4_000_000;
/// Flows after expanding `count` and node lists, over all `flows` entries.
pub const MAX_FLOWS: u64 = 1_000_000;
/// Samples per time series (`duration / sample_interval`).
pub const MAX_SAMPLES: u64 = 10_000_000;
