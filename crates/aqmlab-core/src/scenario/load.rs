//! Reading a scenario from TOML, JSON or a parsed value: the schema's own checks
//! (`schema.rs`), then the limits that need the scenario expanded into flows, counted by
//! `memory.rs`. Kept apart so that the schema knows nothing of the counting. A scenario read
//! here carries the warnings about it (`warnings.rs`, `tcp_warnings.rs`).

use super::memory::ScenarioSize;
use super::schema::{FlowSpec, Scenario};
use super::workload::ArrivalRate;
use crate::units::error::ScenarioError;
use crate::units::limits::MAX_FLOWS;
use serde_json::Value;

impl Scenario {
    /// Parses a TOML document.
    pub fn from_toml(text: &str) -> Result<Scenario, ScenarioError> {
        Scenario::from_value(&super::toml_text::parse_toml(text)?)
    }

    /// Parses a JSON document (what the Python bindings send).
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| ScenarioError::new("", format!("invalid JSON: {e}")))?;
        Scenario::from_value(&value)
    }

    /// A scenario from a parsed document, with the warnings about it (`warnings.rs`).
    pub fn from_value(value: &Value) -> Result<Scenario, ScenarioError> {
        let mut s = Scenario::parse_value(value)?;
        check_flow_count(&s)?;
        s.warnings = super::warnings::of(value);
        s.warnings.extend(super::tcp_warnings::of(&s.flows));
        Ok(s)
    }
}

/// The flows after expanding `count` and node lists stay within [`MAX_FLOWS`]; the error names
/// the field of the `flows` entry where the total passes it: `count`, or for a workload the
/// field that sets its number of arrivals (`flows`, `rate` or `load`), never one the entry
/// does not have.
fn check_flow_count(s: &Scenario) -> Result<(), ScenarioError> {
    let size = ScenarioSize::of(s);
    if size.flows > MAX_FLOWS {
        let mut total = 0u64;
        for (i, n) in size.flows_per_entry.iter().enumerate() {
            total += n;
            if total > MAX_FLOWS {
                let (field, what) = match &s.flows[i] {
                    FlowSpec::Workload { workload, .. } => {
                        let field = match workload.rate {
                            _ if workload.max_flows.is_some_and(|m| m <= *n) => "flows",
                            ArrivalRate::PerSecond(_) => "rate",
                            ArrivalRate::Load { .. } => "load",
                        };
                        (
                            field,
                            "a workload's expected arrivals plus six standard deviations",
                        )
                    }
                    _ => ("count", "count x nodes"),
                };
                return Err(ScenarioError::new(
                    format!("flows[{i}].{field}"),
                    format!(
                        "the scenario would have {} flows ({what}, over all entries), above \
                         the maximum of {MAX_FLOWS}",
                        size.flows
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// Issue 24, item 13: `senders = 10**30` said "must be a whole number" (the message
    /// itself is `units/error.rs`'s, tested there).
    #[test]
    fn an_integer_too_large_for_any_integer_type_is_called_too_large() {
        let e = crate::Scenario::from_json(
            r#"{"duration": 1, "topology": {"kind": "dumbbell", "senders": 1000000000000000000000000000000,
                "bottleneck": {"rate": "1Mbps"}, "access": {"rate": "1Mbps"}},
                "flows": [{"kind": "tcp", "from": "senders", "to": "receivers"}]}"#,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "topology.senders: too large: must be a whole number from 0 to 4294967295, got 1e30"
        );
    }
}
