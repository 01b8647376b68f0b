//! What a run returns: the queue and flow tables, time series and run-level figures.

use crate::metrics::flow_stats::FlowSummary;
use crate::metrics::queue_stats::QueueSummary;
use crate::sim::time;
use crate::simulator::Simulator;
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
    pub jain_index: f64,
    /// arrivals + backlog at start = departures + drops + backlog at end, on every queue.
    pub conserved: bool,
    pub timeseries: SeriesColumns,
}

impl RunResult {
    /// Gathers the result; the series move out of the simulator rather than being copied.
    pub(crate) fn collect(sim: &mut Simulator, events: u64, wall: f64) -> RunResult {
        let now = sim.now();
        let queues: Vec<QueueSummary> = sim
            .links
            .iter()
            .filter(|l| l.monitor || l.stats.arrivals > 0 || l.stats.backlog_at_start > 0)
            .map(|l| l.summary(now, &sim.packets))
            .collect();
        let conserved = sim
            .links
            .iter()
            .all(|l| l.summary(now, &sim.packets).is_conserved());
        let flows = sim.flow_summaries();
        let jain = sim.jain(&flows);
        let s = std::mem::take(&mut sim.series);
        let timeseries = SeriesColumns {
            // In place: a Vec<u64> collected into a Vec<f64> keeps its allocation, so a long
            // series is not held twice.
            time_s: s.time.into_iter().map(time::to_secs_f64).collect(),
            source: s.source,
            variable: s.variable,
            value: s.value,
            source_names: s.sources,
            variable_names: s.variables,
        };
        RunResult {
            name: sim.name.clone(),
            seed: sim.seed,
            duration_s: time::to_secs_f64(sim.duration),
            warmup_s: time::to_secs_f64(sim.warmup),
            events,
            wall_time_s: wall,
            events_per_second: if wall > 0.0 {
                events as f64 / wall
            } else {
                f64::NAN
            },
            timings: Timings {
                setup_s: 0.0,
                loop_s: wall,
                collect_s: 0.0,
            },
            peak_rss_bytes: None,
            queues,
            flows,
            jain_index: jain,
            conserved,
            timeseries,
        }
    }

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
