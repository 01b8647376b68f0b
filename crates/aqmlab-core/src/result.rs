//! What a run returns: the queue and flow tables, time series and run-level figures.

use crate::metrics::flow_stats::FlowSummary;
use crate::metrics::queue_stats::QueueSummary;
use crate::sim::time;
use crate::simulator::Simulator;
use serde::Serialize;

#[derive(Debug, Clone, Serialize, Default)]
pub struct SeriesColumns {
    pub time_s: Vec<f64>,
    pub source: Vec<String>,
    pub variable: Vec<String>,
    pub value: Vec<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunResult {
    pub name: String,
    pub seed: u64,
    pub duration_s: f64,
    pub warmup_s: f64,
    /// Events processed and wall-clock time: the engine's speed on this run.
    pub events: u64,
    pub wall_time_s: f64,
    pub events_per_second: f64,
    /// Queues that saw traffic, plus every monitored one.
    pub queues: Vec<QueueSummary>,
    pub flows: Vec<FlowSummary>,
    pub jain_index: f64,
    /// arrivals + backlog at start = departures + drops + backlog at end, on every queue.
    pub conserved: bool,
    pub timeseries: SeriesColumns,
}

impl RunResult {
    pub(crate) fn collect(sim: &Simulator, events: u64, wall: f64) -> RunResult {
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
        let s = &sim.series;
        let timeseries = SeriesColumns {
            time_s: s.time.iter().map(|&t| time::to_secs_f64(t)).collect(),
            source: s
                .source
                .iter()
                .map(|&i| s.sources[i as usize].clone())
                .collect(),
            variable: s
                .variable
                .iter()
                .map(|&i| s.variables[i as usize].clone())
                .collect(),
            value: s.value.clone(),
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
