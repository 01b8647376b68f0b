//! The `flows` entries: `FlowSpec`, and the per-kind tables it is read from (`tcp`, the UDP
//! kinds `cbr`, `poisson`, `onoff`; `workload` and the probes are read by `workload.rs` and
//! `probe.rs`).

use crate::units::error::{from_value, ScenarioError};
use crate::units::{Bytes, Duration, Rate};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::kind_of;
use super::tcp_table::{merged_tcp, tcp_config};
use crate::scenario::flow_common::{one, Endpoints, FlowCommon, StartSpec};

/// Written back (`Serialize`) as the flow table it was read from, `kind` first.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum FlowSpec {
    Tcp {
        #[serde(flatten)]
        common: FlowCommon,
        tcp: crate::transport::tcp::TcpConfig,
        #[serde(skip_serializing_if = "Option::is_none")]
        size: Option<Bytes>,
    },
    Cbr {
        #[serde(flatten)]
        common: FlowCommon,
        rate: Rate,
        packet_size: Bytes,
    },
    Poisson {
        #[serde(flatten)]
        common: FlowCommon,
        packets_per_second: f64,
        packet_size: Bytes,
        #[serde(rename = "sizes", serialize_with = "packet_sizes")]
        exponential_sizes: bool,
    },
    OnOff {
        #[serde(flatten)]
        common: FlowCommon,
        rate: Rate,
        packet_size: Bytes,
        on_time: Duration,
        off_time: Duration,
    },
    /// Finite TCP transfers arriving as a Poisson process (`workload.rs`); `common.count`
    /// is 1, the number of arrivals is drawn at build time.
    /// Written by `resolved.rs` (`workload_document`): its table is not the parsed form.
    #[serde(skip_serializing)]
    Workload {
        common: FlowCommon,
        tcp: crate::transport::tcp::TcpConfig,
        workload: Box<crate::scenario::workload::Workload>,
        /// Its table as written (`resolved.rs` writes it back).
        file: Box<crate::scenario::workload::WorkloadFile>,
    },
    /// A latency probe under load (`probe.rs`): a ping-like UDP echo or TCP
    /// request/response transactions (`tcp` is used by tcp_rr only).
    /// Written by `resolved.rs` (`probe_document`): its `kind` is the probe's, not "probe".
    #[serde(skip_serializing)]
    Probe {
        common: FlowCommon,
        probe: crate::scenario::probe::ProbeSpec,
        tcp: crate::transport::tcp::TcpConfig,
    },
}

/// A Poisson flow's `sizes`, as written.
fn packet_sizes<S: serde::Serializer>(exponential: &bool, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(if *exponential {
        "exponential"
    } else {
        "constant"
    })
}

impl FlowSpec {
    pub fn common(&self) -> &FlowCommon {
        match self {
            FlowSpec::Tcp { common, .. }
            | FlowSpec::Cbr { common, .. }
            | FlowSpec::Poisson { common, .. }
            | FlowSpec::OnOff { common, .. }
            | FlowSpec::Workload { common, .. }
            | FlowSpec::Probe { common, .. } => common,
        }
    }
    pub fn kind_name(&self) -> &'static str {
        match self {
            FlowSpec::Tcp { .. } => "tcp",
            FlowSpec::Cbr { .. } => "cbr",
            FlowSpec::Poisson { .. } => "poisson",
            FlowSpec::OnOff { .. } => "onoff",
            FlowSpec::Workload { .. } => "workload",
            FlowSpec::Probe { probe, .. } => probe.kind_name(),
        }
    }
}

// The per-kind flow tables, read after `kind`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TcpFlowFile {
    #[serde(rename = "kind")]
    _kind: String,
    from: Endpoints,
    to: Endpoints,
    #[serde(default = "one")]
    count: u32,
    #[serde(default)]
    start: StartSpec,
    stop: Option<Duration>,
    group: Option<String>,
    #[serde(default)]
    dscp: u8,
    /// Payload bytes to transfer (a finite transfer); unset: an infinite FTP source.
    size: Option<Bytes>,
    #[serde(default)]
    tcp: serde_json::Map<String, Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UdpFlowFile {
    #[serde(rename = "kind")]
    _kind: String,
    from: Endpoints,
    to: Endpoints,
    #[serde(default = "one")]
    count: u32,
    #[serde(default)]
    start: StartSpec,
    stop: Option<Duration>,
    group: Option<String>,
    #[serde(default)]
    dscp: u8,
    rate: Option<Rate>,
    packets_per_second: Option<f64>,
    packet_size: Option<Bytes>,
    /// Poisson only: "constant" (default) or "exponential" packet sizes.
    sizes: Option<String>,
    on_time: Option<Duration>,
    off_time: Option<Duration>,
}

/// The fields every flow table has, moved out of a parsed `TcpFlowFile` or `UdpFlowFile`.
/// Each table declares them itself: serde's `flatten` cannot be combined with
/// `deny_unknown_fields`, which is what names a misspelt key.
macro_rules! flow_common {
    ($f:ident) => {
        FlowCommon {
            from: $f.from,
            to: $f.to,
            count: $f.count,
            start: $f.start,
            stop: $f.stop,
            group: $f.group,
            dscp: $f.dscp,
        }
    };
}

pub(super) fn parse_flow(
    v: &Value,
    tcp_defaults: &serde_json::Map<String, Value>,
    path: &str,
) -> Result<FlowSpec, ScenarioError> {
    let kind = kind_of(v, path)?;
    let flow = match kind {
        "tcp" => {
            let f: TcpFlowFile = from_value(v, path)?;
            // A profile named by the flow's table or else the shared one, under both tables.
            let mut merged = tcp_defaults.clone();
            merged.extend(f.tcp);
            let merged = crate::transport::tcp::profile::expand(&merged, &format!("{path}.tcp"))?;
            // Errors in the merged table may come from the scenario's [tcp] defaults too.
            let tcp = tcp_config(&Value::Object(merged), &format!("{path}.tcp"))?;
            tcp.validate(&format!("{path}.tcp"))?;
            if f.size.is_some_and(|s| s.0 == 0) {
                return Err(ScenarioError::new(
                    format!("{path}.size"),
                    "must be > 0 bytes",
                ));
            }
            let max = crate::units::limits::MAX_TRANSFER_BYTES;
            if let Some(size) = f.size.filter(|s| s.0 > max) {
                return Err(ScenarioError::new(
                    format!("{path}.size"),
                    format!(
                        "{} bytes is beyond the largest transfer a run represents ({max} bytes, \
                         2^53)",
                        size.0
                    ),
                ));
            }
            FlowSpec::Tcp {
                common: flow_common!(f),
                tcp,
                size: f.size,
            }
        }
        "cbr" | "poisson" | "onoff" => {
            let f: UdpFlowFile = from_value(v, path)?;
            let common = flow_common!(f);
            let need = |field: &str| {
                ScenarioError::new(
                    format!("{path}.{field}"),
                    format!("required for kind = \"{kind}\""),
                )
            };
            let not_for = |field: &str| {
                ScenarioError::new(
                    format!("{path}.{field}"),
                    format!("not a parameter of kind = \"{kind}\""),
                )
            };
            let packet_size = f.packet_size.unwrap_or(Bytes(1000));
            let max = crate::transport::tcp::config::MAX_PACKET_BYTES as u64;
            if packet_size.0 == 0 || packet_size.0 > max {
                return Err(ScenarioError::new(
                    format!("{path}.packet_size"),
                    format!(
                        "must be between 1 and {max} bytes (an IP packet), got {}",
                        packet_size.0
                    ),
                ));
            }
            // The parameters of one UDP kind that the others' tables may not carry.
            let own: &[&str] = match kind {
                "cbr" => &["rate"],
                "poisson" => &["packets_per_second", "sizes"],
                _ => &["rate", "on_time", "off_time"],
            };
            for (name, given) in [
                ("rate", f.rate.is_some()),
                ("packets_per_second", f.packets_per_second.is_some()),
                ("sizes", f.sizes.is_some()),
                ("on_time", f.on_time.is_some()),
                ("off_time", f.off_time.is_some()),
            ] {
                if given && !own.contains(&name) {
                    return Err(not_for(name));
                }
            }
            match kind {
                "cbr" => FlowSpec::Cbr {
                    common,
                    rate: f.rate.ok_or_else(|| need("rate"))?,
                    packet_size,
                },
                "poisson" => {
                    let pps = f
                        .packets_per_second
                        .ok_or_else(|| need("packets_per_second"))?;
                    if !(pps.is_finite() && pps > 0.0) {
                        return Err(ScenarioError::new(
                            format!("{path}.packets_per_second"),
                            format!("must be > 0, got {pps}"),
                        ));
                    }
                    let exponential_sizes = match f.sizes.as_deref() {
                        None | Some("constant") => false,
                        Some("exponential") => true,
                        Some(o) => {
                            return Err(ScenarioError::new(
                                format!("{path}.sizes"),
                                format!("expected \"constant\" or \"exponential\", got \"{o}\""),
                            ))
                        }
                    };
                    FlowSpec::Poisson {
                        common,
                        packets_per_second: pps,
                        packet_size,
                        exponential_sizes,
                    }
                }
                _ => {
                    let on = f.on_time.ok_or_else(|| need("on_time"))?;
                    let off = f.off_time.ok_or_else(|| need("off_time"))?;
                    if on.0 == 0 {
                        return Err(ScenarioError::new(format!("{path}.on_time"), "must be > 0"));
                    }
                    FlowSpec::OnOff {
                        common,
                        rate: f.rate.ok_or_else(|| need("rate"))?,
                        packet_size,
                        on_time: on,
                        off_time: off,
                    }
                }
            }
        }
        "workload" => {
            let (workload, f) = crate::scenario::workload::Workload::parse(v, path)?;
            let tcp = merged_tcp(tcp_defaults, &f.tcp, path)?;
            let file = Box::new(f.clone());
            FlowSpec::Workload {
                common: FlowCommon {
                    from: f.from,
                    to: f.to,
                    count: 1,
                    start: f.start,
                    stop: f.stop,
                    group: f.group,
                    dscp: f.dscp,
                },
                tcp,
                workload: Box::new(workload),
                file,
            }
        }
        "ping" | "tcp_rr" => {
            let (probe, f) = crate::scenario::probe::ProbeSpec::parse(v, kind, path)?;
            let tcp = merged_tcp(tcp_defaults, &f.tcp, path)?;
            FlowSpec::Probe {
                common: FlowCommon {
                    from: f.from,
                    to: f.to,
                    count: f.count,
                    start: f.start,
                    stop: f.stop,
                    group: f.group,
                    dscp: f.dscp,
                },
                probe,
                tcp,
            }
        }
        other => {
            const KINDS: [&str; 7] = [
                "tcp", "cbr", "poisson", "onoff", "workload", "ping", "tcp_rr",
            ];
            return Err(ScenarioError::new(
                format!("{path}.kind"),
                crate::units::suggest::with_suggestion(
                    format!("unknown flow kind '{other}'; known: {}", KINDS.join(", ")),
                    other,
                    KINDS,
                ),
            ));
        }
    };
    if flow.common().dscp > crate::scenario::flow_common::MAX_DSCP {
        return Err(ScenarioError::new(
            format!("{path}.dscp"),
            format!(
                "must be in 0..=63 (the six bits of a DSCP), got {}",
                flow.common().dscp
            ),
        ));
    }
    if flow.common().count == 0 {
        return Err(ScenarioError::new(
            format!("{path}.count"),
            "must be at least 1",
        ));
    }
    if let StartSpec::Each(v) = &flow.common().start {
        if v.is_empty() {
            return Err(ScenarioError::new(
                format!("{path}.start"),
                "must not be an empty list",
            ));
        }
    }
    if let StartSpec::Random { uniform: [a, b] } = &flow.common().start {
        if a.0 > b.0 {
            return Err(ScenarioError::new(
                format!("{path}.start.uniform"),
                "the lower bound exceeds the upper bound",
            ));
        }
    }
    Ok(flow)
}
