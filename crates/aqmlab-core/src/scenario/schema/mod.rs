//! The scenario schema. A scenario is data (a TOML file or a Python dict, the same fields):
//!
//! ```toml
//! name = "dumbbell-red"
//! duration = "100s"
//! warmup = "20s"
//! sample_interval = "100ms"     # optional: record time series
//!
//! [topology]
//! kind = "dumbbell"             # or "graph"
//! senders = 10
//! bottleneck = { rate = "10Mbps", delay = "5ms", queue = { limit = 50, aqm = "red" } }
//! access = { rate = "100Mbps", delay = "1ms" }
//!
//! [tcp]                         # defaults for every TCP flow
//! variant = "reno"
//!
//! [[flows]]
//! kind = "tcp"                  # or "cbr", "poisson", "onoff"
//! from = "senders"              # node names, lists, or the dumbbell's "senders"/"receivers"
//! to = "receivers"
//! ```
//!
//! Polymorphic parts (`topology`, `flows`, `aqm`) are read in two steps: the `kind` first,
//! then the matching struct, so every error names the full field path.
//!
//! By section of the scenario:
//! - `document.rs`: the top-level table (`ScenarioFile`, as written) and the parsed
//!   `Scenario` with its checks;
//! - `topology.rs`: the topology, its links and their queues (`Topology`, `LinkSpec`,
//!   `QueueSpec`, `LimitSpec`, ...);
//! - `flows.rs`: the `flows` entries (`FlowSpec`) and their per-kind tables;
//! - `tcp_table.rs`: a TCP table (the shared `[tcp]`, or a flow's merged with it).

mod document;
mod flows;
mod tcp_table;
mod topology;

pub use super::flow_common::{Endpoints, FlowCommon, StartSpec};
pub use document::{Scenario, ScenarioFile};
pub use flows::FlowSpec;
pub use topology::{
    AccessSpec, DumbbellSpec, GraphLinkSpec, GraphSpec, LimitSpec, LinkSpec, LossDirection,
    OneOrMany, QueueSpec, Topology,
};

use crate::units::error::ScenarioError;
use serde_json::Value;

fn yes() -> bool {
    true
}

fn kind_of<'a>(v: &'a Value, path: &str) -> Result<&'a str, ScenarioError> {
    let obj = v
        .as_object()
        .ok_or_else(|| ScenarioError::new(path, "expected a table"))?;
    let k = obj
        .get("kind")
        .ok_or_else(|| ScenarioError::new(format!("{path}.kind"), "missing"))?;
    k.as_str()
        .ok_or_else(|| ScenarioError::new(format!("{path}.kind"), "must be a string"))
}
