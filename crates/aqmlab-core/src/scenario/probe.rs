//! Latency probes under load (issue 27, item 3), as Flent's RRUL test measures latency
//! beside its bulk flows: `kind = "ping"`, a UDP echo every `interval` (Flent pings every
//! `STEP_SIZE`, flent/tests/ping.inc `find_ping(IP_VERSION, STEP_SIZE, ...)`, whose default
//! is 0.2 s: flent/settings.py `--step-size`), and `kind = "tcp_rr"`, TCP request/response
//! transactions back to back as netperf's TCP_RR runs them in Flent's tcp_rr tests (a
//! 1-byte request, a 1-byte response by default, the next request when the response has
//! arrived). Each echo or transaction is one RTT sample (`transport/probe.rs`).

use super::flow_common::{Endpoints, StartSpec};
use crate::units::error::{from_value, ScenarioError};
use crate::units::{Bytes, Duration};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A `kind = "ping"` or `kind = "tcp_rr"` table as written.
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
    /// The DSCP of the requests (`FlowCommon::dscp`).
    #[serde(default, skip_serializing_if = "super::flow_common::is_zero")]
    pub dscp: u8,
    /// ping: time between requests (default 200 ms, Flent's).
    pub interval: Option<Duration>,
    /// ping: bytes of each request and reply on the wire (default 84: a default `ping`'s
    /// 56 data bytes + 8 ICMP + 20 IP).
    pub packet_size: Option<Bytes>,
    /// tcp_rr: payload bytes of a request and of a response (default 1 each, netperf's).
    pub request_size: Option<Bytes>,
    pub response_size: Option<Bytes>,
    /// tcp_rr: merged over the scenario's `[tcp]`, as for `kind = "tcp"`.
    #[serde(default)]
    pub tcp: serde_json::Map<String, Value>,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Clone, PartialEq)]
pub enum ProbeSpec {
    Ping {
        interval: Duration,
        packet_size: u32,
    },
    TcpRr {
        request_bytes: u64,
        response_bytes: u64,
    },
}

impl ProbeSpec {
    pub fn kind_name(&self) -> &'static str {
        match self {
            ProbeSpec::Ping { .. } => "ping",
            ProbeSpec::TcpRr { .. } => "tcp_rr",
        }
    }

    pub fn parse(
        v: &Value,
        kind: &str,
        path: &str,
    ) -> Result<(ProbeSpec, ProbeFile), ScenarioError> {
        let f: ProbeFile = from_value(v, path)?;
        let at = |field: &str| format!("{path}.{field}");
        if f.count == 0 {
            return Err(ScenarioError::new(at("count"), "must be at least 1"));
        }
        let given = [
            ("interval", f.interval.is_some()),
            ("packet_size", f.packet_size.is_some()),
            ("request_size", f.request_size.is_some()),
            ("response_size", f.response_size.is_some()),
            ("tcp", !f.tcp.is_empty()),
        ];
        let own: &[&str] = if kind == "ping" {
            &["interval", "packet_size"]
        } else {
            &["request_size", "response_size", "tcp"]
        };
        if let Some((name, _)) = given.iter().find(|(n, g)| *g && !own.contains(n)) {
            return Err(ScenarioError::new(
                at(name),
                format!("not a parameter of kind = \"{kind}\""),
            ));
        }
        if kind == "tcp_rr" {
            let size = |field: &str, b: Option<Bytes>| -> Result<u64, ScenarioError> {
                match b.map_or(1, |b| b.0) {
                    0 => Err(ScenarioError::new(at(field), "must be > 0 bytes")),
                    n => Ok(n),
                }
            };
            let spec = ProbeSpec::TcpRr {
                request_bytes: size("request_size", f.request_size)?,
                response_bytes: size("response_size", f.response_size)?,
            };
            return Ok((spec, f));
        }
        let max = crate::transport::tcp::config::MAX_PACKET_BYTES as u64;
        let interval = f.interval.unwrap_or(Duration(200_000_000));
        crate::units::check_period(&at("interval"), interval.0)?;
        let size = f.packet_size.map_or(84, |b| b.0);
        if size == 0 || size > max {
            return Err(ScenarioError::new(
                at("packet_size"),
                format!("must be between 1 and {max} bytes (an IP packet), got {size}"),
            ));
        }
        let spec = ProbeSpec::Ping {
            interval,
            packet_size: size as u32,
        };
        Ok((spec, f))
    }
}
