//! The resolved scenario: a scenario as the engine reads it, written back as a document with
//! every default filled in (issue 27, item 5; `Result.scenario`, `aqmlab run --dry-run`).
//! Fed back as a scenario it runs bit-identically to the original (the test
//! `tests/resolved_scenario.rs`): quantities are written in exact units ("5ms", "10Mbps"),
//! the TCP profile a flow names is expanded into its `tcp` table, and each queue's AQM
//! table carries all of its parameters (`aqm::resolved`).
//!
//! A field that names a file (`FILE_FIELDS`: a trace, a CDF) is written as an absolute
//! path: the engine reads a relative one from the current directory, so that the resolved
//! scenario, saved in another folder or run from another one, names the same file (issue 35).
//!
//! What stays out: the shared `[tcp]` table (merged into every TCP flow's own), and a field
//! whose default is computed from other fields or from the link (RED's thresholds, a TCP's
//! `ssthresh_init`, `partial_ack_timer` and `ecn_feedback`, a flow's `group` label), so that it is still
//! computed the same way by a run.

use super::capture::CaptureSpec;
use super::events::EventSpec;
use super::probe::ProbeSpec;
use super::schema::{FlowCommon, FlowSpec, Scenario, Topology};
use super::workload::WorkloadFile;
use crate::transport::tcp::TcpConfig;
use crate::units::error::{join_path, ScenarioError};
use crate::units::{Bytes, Duration};
use serde::Serialize;
use serde_json::{Map, Value};

#[derive(Serialize)]
struct Document<'a> {
    name: &'a str,
    duration: Duration,
    warmup: Duration,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sample_interval: Option<Duration>,
    sample_flows: bool,
    topology: &'a Topology,
    flows: Vec<Value>,
    #[serde(flatten)]
    capture: &'a CaptureSpec,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    events: &'a [EventSpec],
    fct_bins: Value,
}

impl Scenario {
    /// This scenario as a document (a JSON object, TOML-serializable: no nulls) with every
    /// default filled in. Errors in an AQM's parameters name them, as a run's would.
    pub fn resolved(&self) -> Result<Value, ScenarioError> {
        let doc = Document {
            name: &self.name,
            duration: self.duration,
            warmup: self.warmup,
            seed: self.seed,
            sample_interval: self.sample_interval,
            sample_flows: self.sample_flows,
            topology: &self.topology,
            flows: self.flows.iter().map(flow_document).collect(),
            capture: &self.capture,
            events: &self.events,
            fct_bins: fct_bins_document(&self.fct_bins),
        };
        let mut value = without_nulls(serde_json::to_value(doc).expect("a scenario serializes"));
        if let Some(topology) = value.get_mut("topology").and_then(Value::as_object_mut) {
            fill_topology(topology)?;
        }
        for field in FILE_FIELDS {
            absolute_files(&mut value, field);
        }
        Ok(value)
    }
}

/// A `flows` entry as written: serde's form of the plain kinds; a workload's and a probe's
/// own tables, since their parsed forms are not what a user writes.
fn flow_document(flow: &FlowSpec) -> Value {
    match flow {
        FlowSpec::Workload {
            common, tcp, file, ..
        } => workload_document(common, tcp, file),
        FlowSpec::Probe { common, probe, tcp } => probe_document(common, probe, tcp),
        plain => serde_json::to_value(plain).expect("a flow serializes"),
    }
}

/// A workload's table: as written (`WorkloadFile`; its sizes as given, the distribution's
/// defaults being the parser's), with the `tcp` table resolved as a TCP flow's. `count` is
/// not one of its fields (the arrivals are drawn), so `common` is written without it.
fn workload_document(common: &FlowCommon, tcp: &TcpConfig, file: &WorkloadFile) -> Value {
    let mut doc = serde_json::to_value(file).expect("a workload serializes");
    let m = doc.as_object_mut().expect("a workload is a table");
    let common = serde_json::to_value(common).expect("a flow serializes");
    for (k, v) in common.as_object().expect("a table") {
        if k != "count" {
            m.insert(k.clone(), v.clone());
        }
    }
    m.insert(
        "tcp".into(),
        serde_json::to_value(tcp).expect("tcp serializes"),
    );
    doc
}

/// A probe's table, `kind` "ping" or "tcp_rr", its defaults filled in.
fn probe_document(common: &FlowCommon, probe: &ProbeSpec, tcp: &TcpConfig) -> Value {
    let mut doc = serde_json::to_value(common).expect("a flow serializes");
    let m = doc.as_object_mut().expect("a flow is a table");
    m.insert("kind".into(), Value::from(probe.kind_name()));
    let mut put = |k: &str, v: Value| {
        m.insert(k.into(), v);
    };
    match probe {
        ProbeSpec::Ping {
            interval,
            packet_size,
        } => {
            put(
                "interval",
                serde_json::to_value(interval).expect("serializes"),
            );
            put("packet_size", bytes(*packet_size as u64));
        }
        ProbeSpec::TcpRr {
            request_bytes,
            response_bytes,
        } => {
            put("request_size", bytes(*request_bytes));
            put("response_size", bytes(*response_bytes));
            put("tcp", serde_json::to_value(tcp).expect("tcp serializes"));
        }
    }
    doc
}

/// The FCT summary's bins as `fct_bins = { edges, names }` (the last bin is unbounded).
fn fct_bins_document(bins: &[(String, u64)]) -> Value {
    let edges: Vec<Value> = bins
        .iter()
        .filter(|(_, upper)| *upper != u64::MAX)
        .map(|(_, upper)| bytes(*upper))
        .collect();
    let names: Vec<&str> = bins.iter().map(|(n, _)| n.as_str()).collect();
    serde_json::json!({ "edges": edges, "names": names })
}

fn bytes(b: u64) -> Value {
    serde_json::to_value(Bytes(b)).expect("bytes serialize")
}

/// The defaults of the topology that the build fills in from other fields, written out, and
/// every queue's AQM resolved.
fn fill_topology(t: &mut Map<String, Value>) -> Result<(), ScenarioError> {
    match t.get("kind").and_then(Value::as_str) {
        Some("dumbbell") => {
            if !t.contains_key("receivers") {
                let senders = t["senders"].clone();
                t.insert("receivers".into(), senders);
            }
            if !t.contains_key("receiver_access") {
                let access = t["access"].clone();
                t.insert("receiver_access".into(), access);
            }
            if let Some(link) = t.get_mut("bottleneck").and_then(Value::as_object_mut) {
                fill_link(link, "topology.bottleneck")?;
            }
            for name in ["access", "receiver_access"] {
                if let Some(queue) = t.get_mut(name).and_then(|a| a.get_mut("queue")) {
                    resolve_queue(queue, &format!("topology.{name}.queue"))?;
                }
            }
        }
        Some("graph") => {
            if let Some(links) = t.get_mut("links").and_then(Value::as_array_mut) {
                for (i, link) in links.iter_mut().enumerate() {
                    let Some(link) = link.as_object_mut() else {
                        continue;
                    };
                    if !link.contains_key("name") {
                        let name = format!(
                            "{}->{}",
                            link["from"].as_str().unwrap_or_default(),
                            link["to"].as_str().unwrap_or_default()
                        );
                        link.insert("name".into(), Value::String(name));
                    }
                    let duplex = link.get("duplex").and_then(Value::as_bool) != Some(false);
                    if duplex {
                        fill_link(link, &format!("topology.links[{i}]"))?;
                    } else if let Some(queue) = link.get_mut("queue") {
                        resolve_queue(queue, &format!("topology.links[{i}].queue"))?;
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// A duplex link's queues: the reverse one written out (DropTail with the forward queue's
/// limit when unset, as `build.rs` makes it), both AQMs resolved.
fn fill_link(link: &mut Map<String, Value>, path: &str) -> Result<(), ScenarioError> {
    if !link.contains_key("reverse_queue") {
        let mut reverse = Map::new();
        reverse.insert("limit".into(), link["queue"]["limit"].clone());
        reverse.insert("aqm".into(), Value::String("droptail".into()));
        link.insert("reverse_queue".into(), Value::Object(reverse));
    }
    for name in ["queue", "reverse_queue"] {
        if let Some(queue) = link.get_mut(name) {
            resolve_queue(queue, &join_path(path, name))?;
        }
    }
    Ok(())
}

fn resolve_queue(queue: &mut Value, path: &str) -> Result<(), ScenarioError> {
    if let Some(aqm) = queue.get_mut("aqm") {
        *aqm = crate::aqm::resolved::resolve(aqm, &join_path(path, "aqm"))?;
    }
    Ok(())
}

/// Every field of the schema whose value names a file, as its path in the document (`*`: each
/// element of a list). A new file-valued field is added here, or its resolved scenario runs
/// only from the folder it was written in (`tests/resolved_scenario.rs` checks each).
pub const FILE_FIELDS: &[&[&str]] = &[
    &["events", "*", "rate", "trace"],
    &["flows", "*", "sizes", "file"],
];

/// The files named at `field` (a path of `FILE_FIELDS`) under `v` made absolute from the
/// current directory, from which the engine reads them. Not canonicalized: a symbolic link
/// stays the link the user named. A path that cannot be made absolute (empty, or no current
/// directory) is left as written, for the parser to name.
fn absolute_files(v: &mut Value, field: &[&str]) {
    match field.split_first() {
        None => {
            if let Value::String(path) = v {
                if let Some(abs) = std::path::absolute(path.as_str())
                    .ok()
                    .and_then(|p| p.to_str().map(str::to_owned))
                {
                    *path = abs;
                }
            }
        }
        Some((&"*", rest)) => {
            if let Some(items) = v.as_array_mut() {
                for item in items {
                    absolute_files(item, rest);
                }
            }
        }
        Some((key, rest)) => {
            if let Some(child) = v.get_mut(*key) {
                absolute_files(child, rest);
            }
        }
    }
}

/// Unset options (null) removed: TOML has no null, and an absent field reads as unset.
fn without_nulls(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_nulls).collect()),
        other => other,
    }
}
