//! The RTT samples of latency probes (`transport/probe.rs`): one row per sample, and per
//! probe group the median, mean and 99th percentile (type-7 quantiles, `fct::quantile`).
//! Samples over the whole run are kept, warm-up included, with their time: the probe
//! measures what the network did when, and the time says when.

use super::fct::{mean, quantile};
use serde::{Deserialize, Serialize};

/// One RTT sample.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct LatencySample {
    pub flow: u32,
    pub group: String,
    pub kind: String,
    /// When the reply arrived.
    pub time_s: f64,
    pub rtt_ms: f64,
}

/// The samples of one probe group.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct LatencySummary {
    pub group: String,
    pub kind: String,
    pub samples: u64,
    /// Requests lost: dropped, or their reply dropped (0 for tcp_rr, whose TCP repairs
    /// every loss). A request still on its way at the end of the run is not lost.
    pub lost: u64,
    pub rtt_p50_ms: f64,
    pub rtt_mean_ms: f64,
    pub rtt_p99_ms: f64,
}

/// One row per group, in order of first appearance; `lost` gives each probe's (group, kind,
/// lost requests).
pub fn summarize(samples: &[LatencySample], lost: &[(String, String, u64)]) -> Vec<LatencySummary> {
    let mut groups: Vec<(String, String)> = vec![];
    for s in samples {
        if !groups.iter().any(|(g, _)| *g == s.group) {
            groups.push((s.group.clone(), s.kind.clone()));
        }
    }
    for (g, kind, _) in lost {
        if !groups.iter().any(|(h, _)| h == g) {
            groups.push((g.clone(), kind.clone()));
        }
    }
    groups
        .into_iter()
        .map(|(group, kind)| {
            let mut rtt: Vec<f64> = samples
                .iter()
                .filter(|s| s.group == group)
                .map(|s| s.rtt_ms)
                .collect();
            rtt.sort_by(f64::total_cmp);
            LatencySummary {
                samples: rtt.len() as u64,
                lost: lost
                    .iter()
                    .filter(|(g, _, _)| *g == group)
                    .map(|(_, _, n)| n)
                    .sum(),
                rtt_p50_ms: quantile(&rtt, 0.5),
                rtt_mean_ms: mean(&rtt),
                rtt_p99_ms: quantile(&rtt, 0.99),
                group,
                kind,
            }
        })
        .collect()
}
