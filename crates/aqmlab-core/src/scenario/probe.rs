//! Latency probes under load (issue 27, item 3), as Flent's RRUL test measures latency
//! beside its bulk flows: `kind = "ping"`, a UDP echo every `interval` (Flent pings every
//! `STEP_SIZE`, flent/tests/ping.inc `find_ping(IP_VERSION, STEP_SIZE, ...)`, whose default
//! is 0.2 s: flent/settings.py `--step-size`). Each echo is one RTT sample
//! (`transport/probe.rs`). A TCP request/response probe (netperf TCP_RR) is not built yet:
//! it needs a sender that is given data by its peer's receiver (docs/workloads.md).

use super::error::{from_value, ScenarioError};
use super::schema::{Endpoints, StartSpec};
use super::units::{Bytes, Duration};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A `kind = "ping"` table as written.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeFile {
    pub kind: String,
    pub from: Endpoints,
    pub to: Endpoints,
    #[serde(default = "one")]
    pub count: u32,
    #[serde(default)]
    pub start: StartSpec,
    pub stop: Option<Duration>,
    pub group: Option<String>,
    /// ping: time between requests (default 200 ms, Flent's).
    pub interval: Option<Duration>,
    /// ping: bytes of each request and reply on the wire (default 84: a default `ping`'s
    /// 56 data bytes + 8 ICMP + 20 IP).
    pub packet_size: Option<Bytes>,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Clone, PartialEq)]
pub enum ProbeSpec {
    Ping { interval: Duration, packet_size: u32 },
}

impl ProbeSpec {
    pub fn kind_name(&self) -> &'static str {
        match self {
            ProbeSpec::Ping { .. } => "ping",
        }
    }

    pub fn parse(v: &Value, path: &str) -> Result<(ProbeSpec, ProbeFile), ScenarioError> {
        let f: ProbeFile = from_value(v, path)?;
        let at = |field: &str| format!("{path}.{field}");
        let max = crate::transport::tcp::config::MAX_PACKET_BYTES as u64;
        let interval = f.interval.unwrap_or(Duration(200_000_000));
        if interval.0 == 0 {
            return Err(ScenarioError::new(at("interval"), "must be > 0"));
        }
        let size = f.packet_size.map_or(84, |b| b.0);
        if size == 0 || size > max {
            return Err(ScenarioError::new(
                at("packet_size"),
                format!("must be between 1 and {max} bytes (an IP packet), got {size}"),
            ));
        }
        if f.count == 0 {
            return Err(ScenarioError::new(at("count"), "must be at least 1"));
        }
        let spec = ProbeSpec::Ping {
            interval,
            packet_size: size as u32,
        };
        Ok((spec, f))
    }
}
