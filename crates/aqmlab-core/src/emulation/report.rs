//! What the hosts measured, merged into the flow table: the part of a flow only its ends see
//! (a transfer's completion, the kernel's RTT estimate and recovery counters). The goodput is
//! the router's (`reassembly.rs`), counted on the same packets as the throughput.

use crate::metrics::FlowStats;
use crate::sim::{time, Time};
use serde::Deserialize;

/// One flow's measurements at its hosts, over the measurement window (warm-up to end).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FlowReport {
    pub flow: u32,
    /// A finite transfer: when its last byte was read, scenario seconds.
    pub completed_at_s: Option<f64>,
    /// The sender's smoothed RTT (TCP_INFO `tcpi_rtt`), summed over samples inside the window.
    pub srtt_sum_ms: f64,
    pub srtt_samples: u64,
    /// Counters of the sender's kernel, when they are the flow's own (its host sends no other
    /// flow): retransmission timeouts, fast recoveries, tail loss probes.
    pub timeouts: Option<u64>,
    pub fast_recoveries: Option<u64>,
    pub tail_loss_probes: Option<u64>,
    pub spurious_retransmissions: Option<u64>,
}

impl FlowReport {
    /// Writes these measurements over the router's own counters of the flow; `start` is when
    /// the flow began (its completion time counts from there).
    pub fn merge_into(&self, s: &mut FlowStats, start: Time) {
        if let Some(t) = self.completed_at_s {
            s.completed_at = Some(time::from_secs_f64(t).max(start));
        }
        s.rtt_sum_ns = self.srtt_sum_ms * 1e6;
        s.rtt_samples = self.srtt_samples;
        s.timeouts = self.timeouts.unwrap_or(0);
        s.fast_recoveries = self.fast_recoveries.unwrap_or(0);
        s.tail_loss_probes = self.tail_loss_probes.unwrap_or(0);
        s.spurious_retransmissions = self
            .spurious_retransmissions
            .unwrap_or(0)
            .min(s.retransmissions);
    }
}

/// One sample of a flow's sender state (the simulator's names: `cwnd`, `srtt_ms`, ...).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeriesSample {
    pub time_s: f64,
    pub flow: u32,
    pub variable: String,
    pub value: f64,
}
