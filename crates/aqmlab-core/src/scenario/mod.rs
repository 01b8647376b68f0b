//! Scenarios: the configuration schema (one schema for TOML files and Python dicts), unit
//! parsing, validation with field paths, and building a runnable network from a scenario.

pub mod build;
pub mod capture;
pub mod error;
pub mod events;
pub mod input_file;
pub mod limits;
pub mod load;
pub mod memory;
pub mod probe;
pub mod resolved;
pub mod schema;
pub mod suggest;
mod tcp_warnings;
pub mod toml_text;
pub mod units;
pub mod warnings;
pub mod workload;

pub use error::ScenarioError;
pub use schema::Scenario;
pub use warnings::ScenarioWarning;
