//! Scenarios: the configuration schema (one schema for TOML files and Python dicts), unit
//! parsing, validation with field paths, and building a runnable network from a scenario.

pub mod capture;
pub mod events;
pub mod flow_common;
pub mod flow_wires;
pub mod input_file;
pub mod load;
pub mod memory;
pub mod probe;
pub mod resolved;
pub mod schema;
mod tcp_warnings;
pub mod toml_text;
pub mod warnings;
pub mod workload;

pub use schema::Scenario;
pub use warnings::ScenarioWarning;
