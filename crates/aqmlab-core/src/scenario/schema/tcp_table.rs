//! A TCP table: the shared `[tcp]`, or a flow's merged with it, profiles expanded.

use crate::units::error::{from_value, ScenarioError};
use serde::Deserialize;
use serde_json::Value;

/// Reads a TCP table (the shared `[tcp]`, or a flow's merged with it).
pub(super) fn tcp_config(
    value: &Value,
    path: &str,
) -> Result<crate::transport::tcp::TcpConfig, ScenarioError> {
    from_value(value, path).map_err(tcp_field_hint)
}

/// `variant` picks the ns-2 agent, whose loss recovery it is, and `congestion_control` how
/// the window grows; they combine freely. A name of one given to the other (`variant =
/// "cubic"`, issue 24 item 10) is pointed to the field that takes it.
fn tcp_field_hint(mut e: ScenarioError) -> ScenarioError {
    use crate::transport::tcp::congestion::CongestionControlKind;
    use crate::transport::tcp::TcpVariant;
    let Some(word) = e
        .message
        .strip_prefix("unknown variant `")
        .and_then(|rest| rest.split_once('`'))
        .map(|(word, _)| word.to_string())
    else {
        return e;
    };
    let name = Value::String(word.clone());
    if e.path.ends_with(".variant") && CongestionControlKind::deserialize(&name).is_ok() {
        e.message += &format!(
            "; `{word}` is a congestion control: set congestion_control = \"{word}\" \
             (`variant` is the ns-2 agent, reno | newreno | sack, whose loss recovery runs \
             with either congestion control)"
        );
    } else if e.path.ends_with(".congestion_control") && TcpVariant::deserialize(&name).is_ok() {
        e.message += &format!(
            "; `{word}` is a variant: set variant = \"{word}\" (`congestion_control` is how \
             the window grows: reno | cubic)"
        );
    }
    e
}

/// A flow's `tcp` table over the scenario's `[tcp]`, profiles expanded, read and checked.
pub(super) fn merged_tcp(
    defaults: &serde_json::Map<String, Value>,
    own: &serde_json::Map<String, Value>,
    path: &str,
) -> Result<crate::transport::tcp::TcpConfig, ScenarioError> {
    let mut merged = defaults.clone();
    merged.extend(own.clone());
    let merged = crate::transport::tcp::profile::expand(&merged, &format!("{path}.tcp"))?;
    let tcp = tcp_config(&Value::Object(merged), &format!("{path}.tcp"))?;
    tcp.validate(&format!("{path}.tcp"))?;
    Ok(tcp)
}
