//! The scenario's top-level table: `ScenarioFile` as written, and the parsed, validated
//! `Scenario` it becomes (each section read by its own file: `topology.rs`, `flows.rs`).

use crate::units::error::{from_value, ScenarioError};
use crate::units::limits::MAX_SAMPLES;
use crate::units::Duration;
use serde::Deserialize;
use serde_json::Value;

use super::flows::{parse_flow, FlowSpec};
use super::tcp_table::tcp_config;
use super::topology::{parse_topology, Topology};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    #[serde(default)]
    pub name: String,
    pub duration: Duration,
    #[serde(default)]
    pub warmup: Duration,
    /// Master seed; the `seed` argument of a run overrides it.
    pub seed: Option<u64>,
    /// Interval of the sampled time series; none are recorded when unset.
    pub sample_interval: Option<Duration>,
    /// Sample the flows too, not just queues: every flow's bytes received, and TCP senders'
    /// state (cwnd, ssthresh, srtt, ...).
    #[serde(default = "super::yes")]
    pub sample_flows: bool,
    pub topology: Value,
    /// Defaults for every TCP flow's `tcp` table.
    #[serde(default)]
    pub tcp: serde_json::Map<String, Value>,
    #[serde(default)]
    pub flows: Vec<Value>,
    /// Packet capture and trace (`capture.rs`).
    #[serde(default)]
    pub capture: Vec<String>,
    #[serde(default = "crate::scenario::capture::default_snaplen")]
    pub capture_snaplen: u32,
    #[serde(default)]
    pub capture_format: crate::net::pcap::CaptureFormat,
    #[serde(default)]
    pub trace: Vec<String>,
    #[serde(default = "crate::scenario::capture::default_trace_max_rows")]
    pub trace_max_rows: u64,
    /// What changes during the run (`events.rs`).
    #[serde(default)]
    pub events: Vec<Value>,
    /// The FCT summary's size bins (`metrics::fct`; default small, medium, large split at
    /// 100 KB and 10 MB).
    pub fct_bins: Option<crate::scenario::workload::FctBinsSpec>,
}

/// A parsed, validated scenario.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: String,
    pub duration: Duration,
    pub warmup: Duration,
    pub seed: Option<u64>,
    pub sample_interval: Option<Duration>,
    pub sample_flows: bool,
    pub topology: Topology,
    pub flows: Vec<FlowSpec>,
    /// Links captured and traced (`capture.rs`).
    pub capture: crate::scenario::capture::CaptureSpec,
    /// What changes during the run, in the order written.
    pub events: Vec<crate::scenario::events::EventSpec>,
    /// The FCT summary's bins: (name, upper bound in bytes), the last `u64::MAX`.
    pub fct_bins: Vec<(String, u64)>,
    /// What the scenario says that is valid but most likely not what was meant
    /// (`warnings.rs`), for the caller to show.
    pub warnings: Vec<crate::scenario::warnings::ScenarioWarning>,
}

impl Scenario {
    /// A scenario from a parsed document, with every check that does not need the scenario
    /// expanded (those are in `load.rs`, which is what callers use).
    pub(crate) fn parse_value(value: &Value) -> Result<Scenario, ScenarioError> {
        if !value.is_object() {
            return Err(ScenarioError::new("", "a scenario must be a table/dict"));
        }
        let file: ScenarioFile = from_value(value, "")?;
        // The shared [tcp] table is checked where the user wrote it, before it is merged into
        // each TCP flow (a typo there was reported as `flows[0].tcp.windw`, or not at all
        // without TCP flows). Combinations (variant with partial_ack_timer) are checked per flow.
        let tcp_defaults = crate::transport::tcp::profile::expand(&file.tcp, "tcp")?;
        tcp_config(&Value::Object(tcp_defaults), "tcp")?;
        let topology = parse_topology(&file.topology)?;
        let flows = file
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| parse_flow(f, &file.tcp, &format!("flows[{i}]")))
            .collect::<Result<Vec<_>, _>>()?;
        let groups: Vec<String> = flows
            .iter()
            .enumerate()
            .map(|(i, f)| f.common().group.clone().unwrap_or(format!("flows[{i}]")))
            .collect();
        let events = crate::scenario::events::parse_events(&file.events, file.duration, &groups)?;
        let s = Scenario {
            name: file.name,
            duration: file.duration,
            warmup: file.warmup,
            seed: file.seed,
            sample_interval: file.sample_interval,
            sample_flows: file.sample_flows,
            topology,
            flows,
            capture: crate::scenario::capture::CaptureSpec {
                capture: file.capture,
                capture_snaplen: file.capture_snaplen,
                capture_format: file.capture_format,
                trace: file.trace,
                trace_max_rows: file.trace_max_rows,
            },
            events,
            fct_bins: crate::scenario::workload::fct_bins(file.fct_bins.as_ref())?,
            warnings: Vec::new(),
        };
        s.validate()?;
        Ok(s)
    }

    fn validate(&self) -> Result<(), ScenarioError> {
        if self.duration.0 == 0 {
            return Err(ScenarioError::new("duration", "must be > 0"));
        }
        if self.warmup.0 >= self.duration.0 {
            return Err(ScenarioError::new(
                "warmup",
                format!(
                    "must be shorter than duration ({}s), got {}s",
                    self.duration.secs(),
                    self.warmup.secs()
                ),
            ));
        }
        if let Some(iv) = self.sample_interval {
            crate::units::check_period("sample_interval", iv.0)?;
            let samples = self.duration.0 / iv.0;
            if samples > MAX_SAMPLES {
                return Err(ScenarioError::new(
                    "sample_interval",
                    format!(
                        "would record {samples} samples per series, above the maximum of \
                         {MAX_SAMPLES}; use a longer interval"
                    ),
                ));
            }
        }
        if self.flows.is_empty() {
            return Err(ScenarioError::new(
                "flows",
                "a scenario needs at least one flow",
            ));
        }
        self.capture.validate()?;
        Ok(())
    }
}
