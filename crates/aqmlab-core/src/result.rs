//! What a run returns: the queue and flow tables, time series and run-level figures. Plain
//! data: the simulator gathers it (`Simulator::collect_result`), nothing here reads the
//! simulator.

use crate::metrics::fairness::GroupSummary;
use crate::metrics::flow_stats::FlowSummary;
use crate::metrics::queue_stats::QueueSummary;
use crate::scenario::warnings::ScenarioWarning;
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

/// The sampled series in long form, the names dictionary-coded: row i is `source_names
/// [source[i]]`, `variable_names[variable[i]]` at `time_s[i]`. A million samples would
/// otherwise carry two million strings; the codes cross to Python as they are (an Arrow
/// dictionary column, a pandas Categorical).
#[derive(Debug, Clone, Default)]
pub struct SeriesColumns {
    pub time_s: Vec<f64>,
    pub source: Vec<u32>,
    pub variable: Vec<u32>,
    pub value: Vec<f64>,
    pub source_names: Vec<String>,
    pub variable_names: Vec<String>,
}

impl SeriesColumns {
    pub fn len(&self) -> usize {
        self.time_s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }

    /// Row `i`'s source name.
    pub fn source_name(&self, i: usize) -> &str {
        &self.source_names[self.source[i] as usize]
    }

    /// Row `i`'s variable name.
    pub fn variable_name(&self, i: usize) -> &str {
        &self.variable_names[self.variable[i] as usize]
    }
}

/// Written with the names spelled out per row (time_s, source, variable, value), as JSON
/// readers of results have always seen it.
impl Serialize for SeriesColumns {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let names = |codes: &[u32], names: &[String]| -> Vec<String> {
            codes.iter().map(|&c| names[c as usize].clone()).collect()
        };
        let mut st = serializer.serialize_struct("SeriesColumns", 4)?;
        st.serialize_field("time_s", &self.time_s)?;
        st.serialize_field("source", &names(&self.source, &self.source_names))?;
        st.serialize_field("variable", &names(&self.variable, &self.variable_names))?;
        st.serialize_field("value", &self.value)?;
        st.end()
    }
}

/// Where a run's time went, seconds: building the scenario, the event loop, and gathering
/// the result (in the engine; a binding adds its conversion).
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct Timings {
    pub setup_s: f64,
    pub loop_s: f64,
    pub collect_s: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunResult {
    pub name: String,
    pub seed: u64,
    pub duration_s: f64,
    pub warmup_s: f64,
    /// Events processed and wall-clock time of the event loop: the engine's speed on this run.
    pub events: u64,
    pub wall_time_s: f64,
    pub events_per_second: f64,
    /// Wall-clock time of each stage (`timings.loop_s` is `wall_time_s`).
    pub timings: Timings,
    /// The process's peak resident memory when the result was gathered, bytes (Linux's
    /// VmHWM; None where the OS does not say).
    pub peak_rss_bytes: Option<u64>,
    /// Queues that saw traffic, plus every monitored one.
    pub queues: Vec<QueueSummary>,
    pub flows: Vec<FlowSummary>,
    /// One row per flow group (a `[[flows]]` entry, or entries sharing a `group` name): its
    /// flows' kind, count, summed goodput and Jain index.
    pub groups: Vec<GroupSummary>,
    /// Jain's fairness index of the flows' goodputs, the run's headline: over the TCP flows
    /// when the run has any, else over every flow; `jain_index_over` says which
    /// (`metrics::fairness`: one UDP flow must not make fair TCP flows look unfair).
    pub jain_index: f64,
    /// "tcp_flows" or "all_flows": the flows `jain_index` is over.
    pub jain_index_over: &'static str,
    /// Over the TCP flows alone (NaN without TCP flows).
    pub jain_index_tcp: f64,
    /// Over every flow, whatever its kind (what `jain_index` was before issue 24).
    pub jain_index_all_flows: f64,
    /// arrivals + backlog at start = departures + drops + backlog at end, on every queue.
    pub conserved: bool,
    /// What the run measured that most likely was not meant (`run_warnings.rs`): a flow
    /// stalled in recovery.
    pub warnings: Vec<ScenarioWarning>,
    /// How faithfully an emulation kept its schedule (`crate::emulation`, measured by `metrics::emulation_fidelity`); absent from a
    /// simulation's result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub emulation: Option<crate::metrics::emulation_fidelity::EmulationFidelity>,
    pub timeseries: SeriesColumns,
    /// One row per finite TCP transfer (`metrics::fct`), and their summary by size bin
    /// (empty without transfers). Left out of the JSON when empty, so that a run without
    /// them reads as before issue 27 (the ns-2 fingerprint hashes that text).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fct: Vec<crate::metrics::fct::FctRow>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fct_summary: Vec<crate::metrics::fct::FctBinSummary>,
    /// The RTT samples of latency probes (`metrics::latency`), and their summary per group.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub latency: Vec<crate::metrics::latency::LatencySample>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub latency_summary: Vec<crate::metrics::latency::LatencySummary>,
    /// The packet trace of the links the scenario traces (`metrics/packet_trace.rs`); not
    /// serialized (a binding hands it over as a table).
    #[serde(skip)]
    pub trace: Option<TraceTable>,
    /// The capture files written, one per captured link.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub capture_files: Vec<String>,
    /// Each monitored queue's queue-delay histogram over the measurement window.
    pub queue_delays: Vec<crate::metrics::queue_delays::QueueDelayBucket>,
}

/// The packet trace and the names of the links its `link` column indexes.
#[derive(Debug, Clone, Default)]
pub struct TraceTable {
    pub rows: crate::metrics::packet_trace::PacketTrace,
    pub link_names: Vec<String>,
}

impl RunResult {
    pub fn queue(&self, name: &str) -> Option<&QueueSummary> {
        self.queues.iter().find(|q| q.name == name)
    }
}

/// The process's peak resident set size (VmHWM in /proc/self/status), bytes.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
