//! What every flow entry of a scenario has (`FlowCommon`: endpoints, count, start, stop,
//! group), read by the schema and by the flow kinds with files of their own (`probe.rs`,
//! `workload.rs`), which the schema reads in turn.

use crate::units::Duration;
use serde::de::{DeserializeOwned, Deserializer, Error as _};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// When flows start: a time, a list cycled over the flows of the entry, or uniform at random.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum StartSpec {
    At(Duration),
    Each(Vec<Duration>),
    Random { uniform: [Duration; 2] },
}

impl<'de> Deserialize<'de> for StartSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Random {
            uniform: [Duration; 2],
        }
        match Value::deserialize(d)? {
            Value::Object(m) => Random::deserialize(Value::Object(m))
                .map(|r| StartSpec::Random { uniform: r.uniform })
                .map_err(D::Error::custom),
            v => Ok(
                match one_or_list(v).map_err(|e| {
                    D::Error::custom(format!(
                        "expected a time, a list of times or {{ uniform = [lo, hi] }}: {e}"
                    ))
                })? {
                    Ok(t) => StartSpec::At(t),
                    Err(ts) => StartSpec::Each(ts),
                },
            ),
        }
    }
}

impl Default for StartSpec {
    fn default() -> Self {
        StartSpec::At(Duration(0))
    }
}

/// Node names: one, a list, or the dumbbell's "senders" / "receivers".
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Endpoints {
    One(String),
    Many(Vec<String>),
}

impl<'de> Deserialize<'de> for Endpoints {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(
            match one_or_list(Value::deserialize(d)?).map_err(|e| {
                D::Error::custom(format!("expected a node name or a list of them: {e}"))
            })? {
                Ok(one) => Endpoints::One(one),
                Err(many) => Endpoints::Many(many),
            },
        )
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FlowCommon {
    pub from: Endpoints,
    pub to: Endpoints,
    /// Flows per (from, to) pair.
    #[serde(default = "one")]
    pub count: u32,
    #[serde(default)]
    pub start: StartSpec,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
    /// Label in the flow table (default "flows[i]").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The DSCP its data packets carry (0..=63, RFC 2474 section 3; 0: default forwarding).
    /// Its ACKs carry the receiver's, 0: Linux gives an accepted connection its listener's
    /// TOS unless `net.ipv4.tcp_reflect_tos` (default 0) copies the SYN's
    /// (`tcp_v4_syn_recv_sock`, net/ipv4/tcp_ipv4.c).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dscp: u8,
}

pub(crate) fn is_zero(v: &u8) -> bool {
    *v == 0
}

/// The largest DSCP (six bits).
pub const MAX_DSCP: u8 = 63;

pub(super) fn one() -> u32 {
    1
}

/// Reads one value or a list of them, with errors in the user's terms: serde's untagged enums
/// said only "data did not match any variant of untagged enum OneOrMany" (found by
/// tests/test_scenario_fuzz.py). An element's error names its index.
pub(super) fn one_or_list<T: DeserializeOwned>(v: Value) -> Result<Result<T, Vec<T>>, String> {
    match v {
        Value::Array(items) => items
            .into_iter()
            .enumerate()
            .map(|(i, x)| T::deserialize(x).map_err(|e| format!("item {i}: {e}")))
            .collect::<Result<Vec<T>, String>>()
            .map(Err),
        other => T::deserialize(other).map(Ok).map_err(|e| {
            let e = e.to_string();
            if e.starts_with("invalid type") {
                format!("{e}, or a list of them")
            } else {
                e
            }
        }),
    }
}
