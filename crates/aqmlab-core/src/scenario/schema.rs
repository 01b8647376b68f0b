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

use crate::units::error::{from_value, ScenarioError};
use crate::units::limits::{MAX_GRAPH_LINKS, MAX_NODES, MAX_SAMPLES};
use crate::units::{Bytes, Duration, Rate};
use serde::de::{DeserializeOwned, Deserializer, Error as _};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::flow_common::{one, one_or_list};
pub use super::flow_common::{Endpoints, FlowCommon, StartSpec};

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
    #[serde(default = "yes")]
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
    #[serde(default = "super::capture::default_snaplen")]
    pub capture_snaplen: u32,
    #[serde(default)]
    pub capture_format: crate::net::pcap::CaptureFormat,
    #[serde(default)]
    pub trace: Vec<String>,
    #[serde(default = "super::capture::default_trace_max_rows")]
    pub trace_max_rows: u64,
    /// What changes during the run (`events.rs`).
    #[serde(default)]
    pub events: Vec<Value>,
    /// The FCT summary's size bins (`metrics::fct`; default small, medium, large split at
    /// 100 KB and 10 MB).
    pub fct_bins: Option<super::workload::FctBinsSpec>,
}

fn yes() -> bool {
    true
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
    pub capture: super::capture::CaptureSpec,
    /// What changes during the run, in the order written.
    pub events: Vec<super::events::EventSpec>,
    /// The FCT summary's bins: (name, upper bound in bytes), the last `u64::MAX`.
    pub fct_bins: Vec<(String, u64)>,
    /// What the scenario says that is valid but most likely not what was meant
    /// (`warnings.rs`), for the caller to show.
    pub warnings: Vec<super::warnings::ScenarioWarning>,
}

// A scenario holds one topology, read once; boxing the larger variant would save nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Topology {
    Dumbbell(DumbbellSpec),
    Graph(GraphSpec),
}

/// How many packets or bytes a queue may hold waiting: a number of packets, or a string with
/// a unit ("50p", "64KB", "60000B").
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LimitSpec {
    Packets(u32),
    Bytes(u64),
}

/// A number of packets, or bytes with their unit ("64KB"), as written.
impl Serialize for LimitSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            LimitSpec::Packets(n) => s.serialize_u32(*n),
            LimitSpec::Bytes(b) => Bytes(*b).serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for LimitSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let v = Value::deserialize(d)?;
        let bad = || {
            D::Error::custom(format!(
                "expected a number of packets (e.g. 50) or a size such as \"64KB\", got {v}"
            ))
        };
        match &v {
            Value::Number(n) => {
                let k = n.as_u64().ok_or_else(bad)?;
                if k == 0 || k > u32::MAX as u64 {
                    return Err(D::Error::custom(format!(
                        "must be between 1 and {} packets, got {k}",
                        u32::MAX
                    )));
                }
                Ok(LimitSpec::Packets(k as u32))
            }
            Value::String(s) => {
                let t = s.trim();
                for suffix in ["packets", "pkts", "p"] {
                    if let Some(num) = t.strip_suffix(suffix) {
                        let k: u32 = num.trim().parse().map_err(|_| bad())?;
                        if k == 0 {
                            return Err(D::Error::custom("must be at least 1 packet"));
                        }
                        return Ok(LimitSpec::Packets(k));
                    }
                }
                let b = crate::units::parse_bytes(t).map_err(D::Error::custom)?;
                if b == 0 {
                    return Err(D::Error::custom("must be at least 1 byte"));
                }
                Ok(LimitSpec::Bytes(b))
            }
            _ => Err(bad()),
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    /// Waiting packets (or bytes) the buffer holds, excluding the packet in service.
    #[serde(default = "default_limit")]
    pub limit: LimitSpec,
    /// The algorithm: a name ("red") or a table with `kind` and its parameters.
    #[serde(default = "default_aqm")]
    pub aqm: Value,
}

fn default_limit() -> LimitSpec {
    LimitSpec::Packets(50)
}

fn default_aqm() -> Value {
    Value::String("droptail".into())
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec {
            limit: default_limit(),
            aqm: default_aqm(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub rate: Rate,
    #[serde(default)]
    pub delay: Duration,
    /// Bernoulli loss probability of each transmitted packet.
    #[serde(default)]
    pub loss: f64,
    /// Which direction(s) `loss` applies to (default: forward only).
    #[serde(default)]
    pub loss_direction: LossDirection,
    #[serde(default)]
    pub queue: QueueSpec,
    /// Queue of the opposite direction (default: DropTail with `queue`'s limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reverse_queue: Option<QueueSpec>,
}

/// The direction(s) of a duplex link that its random `loss` applies to. Forward is the
/// link's from -> to direction (the dumbbell's bottleneck: senders to receivers, where the
/// data goes); reverse carries the ACKs. Before issue 10 the loss applied to both, so a
/// "1 % loss" bottleneck also lost 1 % of the ACKs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LossDirection {
    #[default]
    Forward,
    Reverse,
    Both,
}

impl LossDirection {
    /// The loss probabilities of the forward and the reverse direction.
    pub fn split(self, loss: f64) -> (f64, f64) {
        match self {
            LossDirection::Forward => (loss, 0.0),
            LossDirection::Reverse => (0.0, loss),
            LossDirection::Both => (loss, loss),
        }
    }
}

/// One value for all, or one per item (cycled if shorter).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(
            match one_or_list(Value::deserialize(d)?).map_err(D::Error::custom)? {
                Ok(one) => OneOrMany::One(one),
                Err(many) => OneOrMany::Many(many),
            },
        )
    }
}

impl<T: Clone> OneOrMany<T> {
    pub fn get(&self, i: usize) -> T {
        match self {
            OneOrMany::One(v) => v.clone(),
            OneOrMany::Many(vs) => vs[i % vs.len()].clone(),
        }
    }
    pub fn len(&self) -> usize {
        match self {
            OneOrMany::One(_) => 1,
            OneOrMany::Many(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AccessSpec {
    /// Rate of each access link (one for all, or a list per host).
    pub rate: OneOrMany<Rate>,
    /// One-way delay of each access link (one for all, or a list per host).
    #[serde(default = "zero_delay")]
    pub delay: OneOrMany<Duration>,
    /// Queue of each access link, both directions (default DropTail, 1000 packets, so that
    /// access links do not drop in a bottleneck study).
    #[serde(default = "access_queue")]
    pub queue: QueueSpec,
}

fn zero_delay() -> OneOrMany<Duration> {
    OneOrMany::One(Duration(0))
}

fn access_queue() -> QueueSpec {
    QueueSpec {
        limit: LimitSpec::Packets(1000),
        aqm: default_aqm(),
    }
}

/// Senders s0..s(N-1) attached to router r0, receivers d0..d(M-1) attached to router r1,
/// and the bottleneck r0 -> r1 (link name "bottleneck"; the reverse is "bottleneck_reverse").
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    pub senders: u32,
    /// Number of receivers (default: one per sender).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receivers: Option<u32>,
    pub bottleneck: LinkSpec,
    pub access: AccessSpec,
    /// Links between r1 and the receivers (default: the same as `access`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receiver_access: Option<AccessSpec>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GraphLinkSpec {
    pub from: String,
    pub to: String,
    pub rate: Rate,
    #[serde(default)]
    pub delay: Duration,
    #[serde(default)]
    pub loss: f64,
    /// Which direction(s) `loss` applies to (default: forward only).
    #[serde(default)]
    pub loss_direction: LossDirection,
    #[serde(default)]
    pub queue: QueueSpec,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reverse_queue: Option<QueueSpec>,
    /// Create the opposite direction too (default true, as ns-2's duplex-link).
    #[serde(default = "yes")]
    pub duplex: bool,
    /// Name of the forward direction (default "from->to").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Record this link's queue in the time series.
    #[serde(default)]
    pub monitor: bool,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GraphSpec {
    pub nodes: Vec<String>,
    pub links: Vec<GraphLinkSpec>,
}

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
        workload: Box<super::workload::Workload>,
    },
    /// A latency probe under load (`probe.rs`): a ping-like UDP echo or TCP
    /// request/response transactions (`tcp` is used by tcp_rr only).
    /// Written by `resolved.rs` (`probe_document`): its `kind` is the probe's, not "probe".
    #[serde(skip_serializing)]
    Probe {
        common: FlowCommon,
        probe: super::probe::ProbeSpec,
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
    rate: Option<Rate>,
    packets_per_second: Option<f64>,
    packet_size: Option<Bytes>,
    /// Poisson only: "constant" (default) or "exponential" packet sizes.
    sizes: Option<String>,
    on_time: Option<Duration>,
    off_time: Option<Duration>,
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
        let events = super::events::parse_events(&file.events, file.duration, &groups)?;
        let s = Scenario {
            name: file.name,
            duration: file.duration,
            warmup: file.warmup,
            seed: file.seed,
            sample_interval: file.sample_interval,
            sample_flows: file.sample_flows,
            topology,
            flows,
            capture: super::capture::CaptureSpec {
                capture: file.capture,
                capture_snaplen: file.capture_snaplen,
                capture_format: file.capture_format,
                trace: file.trace,
                trace_max_rows: file.trace_max_rows,
            },
            events,
            fct_bins: super::workload::fct_bins(file.fct_bins.as_ref())?,
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

/// Reads a TCP table (the shared `[tcp]`, or a flow's merged with it).
fn tcp_config(
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
fn merged_tcp(
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

fn check_link(l: &LinkSpec, path: &str) -> Result<(), ScenarioError> {
    check_loss(l.loss, &format!("{path}.loss"))
}

fn check_loss(p: f64, path: &str) -> Result<(), ScenarioError> {
    if !(0.0..=1.0).contains(&p) || !p.is_finite() {
        return Err(ScenarioError::new(
            path,
            format!("must be a probability in [0, 1], got {p}"),
        ));
    }
    Ok(())
}

fn parse_topology(v: &Value) -> Result<Topology, ScenarioError> {
    match kind_of(v, "topology")? {
        "dumbbell" => {
            let mut obj = v.as_object().cloned().unwrap_or_default();
            obj.remove("kind");
            let d: DumbbellSpec = from_value(&Value::Object(obj), "topology")?;
            if d.senders == 0 {
                return Err(ScenarioError::new("topology.senders", "must be at least 1"));
            }
            for (field, n) in [("senders", Some(d.senders)), ("receivers", d.receivers)] {
                if n.is_some_and(|n| n > MAX_NODES) {
                    return Err(ScenarioError::new(
                        format!("topology.{field}"),
                        format!("must be at most {MAX_NODES}, got {}", n.unwrap_or(0)),
                    ));
                }
            }
            if d.receivers == Some(0) {
                return Err(ScenarioError::new(
                    "topology.receivers",
                    "must be at least 1",
                ));
            }
            check_link(&d.bottleneck, "topology.bottleneck")?;
            for (name, a) in [
                ("access", Some(&d.access)),
                ("receiver_access", d.receiver_access.as_ref()),
            ] {
                if let Some(a) = a {
                    if a.rate.is_empty() {
                        return Err(ScenarioError::new(
                            format!("topology.{name}.rate"),
                            "must not be an empty list",
                        ));
                    }
                    if a.delay.is_empty() {
                        return Err(ScenarioError::new(
                            format!("topology.{name}.delay"),
                            "must not be an empty list",
                        ));
                    }
                }
            }
            Ok(Topology::Dumbbell(d))
        }
        "graph" => {
            let mut obj = v.as_object().cloned().unwrap_or_default();
            obj.remove("kind");
            let g: GraphSpec = from_value(&Value::Object(obj), "topology")?;
            if g.nodes.len() > MAX_NODES as usize {
                return Err(ScenarioError::new(
                    "topology.nodes",
                    format!("must list at most {MAX_NODES} nodes, got {}", g.nodes.len()),
                ));
            }
            if g.links.len() > MAX_GRAPH_LINKS {
                return Err(ScenarioError::new(
                    "topology.links",
                    format!(
                        "must list at most {MAX_GRAPH_LINKS} links, got {}",
                        g.links.len()
                    ),
                ));
            }
            let mut names = std::collections::HashSet::with_capacity(g.nodes.len());
            for (i, n) in g.nodes.iter().enumerate() {
                if !names.insert(n.as_str()) {
                    return Err(ScenarioError::new(
                        format!("topology.nodes[{i}]"),
                        format!("duplicate node name '{n}'"),
                    ));
                }
            }
            for (i, l) in g.links.iter().enumerate() {
                let p = format!("topology.links[{i}]");
                for (f, n) in [("from", &l.from), ("to", &l.to)] {
                    if !names.contains(n.as_str()) {
                        return Err(ScenarioError::new(
                            format!("{p}.{f}"),
                            format!("unknown node '{n}'"),
                        ));
                    }
                }
                if l.from == l.to {
                    return Err(ScenarioError::new(
                        format!("{p}.to"),
                        "a link must join two different nodes",
                    ));
                }
                check_loss(l.loss, &format!("{p}.loss"))?;
                if !l.duplex && l.loss_direction != LossDirection::Forward {
                    return Err(ScenarioError::new(
                        format!("{p}.loss_direction"),
                        "a link with duplex = false has no reverse direction; use \"forward\"",
                    ));
                }
            }
            Ok(Topology::Graph(g))
        }
        other => Err(ScenarioError::new(
            "topology.kind",
            crate::units::suggest::with_suggestion(
                format!("unknown topology '{other}'; known: dumbbell, graph"),
                other,
                ["dumbbell", "graph"],
            ),
        )),
    }
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
        }
    };
}

fn parse_flow(
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
            let (workload, f) = super::workload::Workload::parse(v, path)?;
            let tcp = merged_tcp(tcp_defaults, &f.tcp, path)?;
            FlowSpec::Workload {
                common: FlowCommon {
                    from: f.from,
                    to: f.to,
                    count: 1,
                    start: f.start,
                    stop: f.stop,
                    group: f.group,
                },
                tcp,
                workload: Box::new(workload),
            }
        }
        "ping" | "tcp_rr" => {
            let (probe, f) = super::probe::ProbeSpec::parse(v, kind, path)?;
            let tcp = merged_tcp(tcp_defaults, &f.tcp, path)?;
            FlowSpec::Probe {
                common: FlowCommon {
                    from: f.from,
                    to: f.to,
                    count: f.count,
                    start: f.start,
                    stop: f.stop,
                    group: f.group,
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
