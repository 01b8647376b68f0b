//! What a run asserts about itself before it reports: every live packet accounted for, and no
//! metric beyond its physical bound (issue 10, item 11: a run that breaks one fails instead of
//! printing an impossible number).

use super::{RunError, Simulator};
use crate::result::RunResult;

impl Simulator {
    /// Every live packet must be somewhere: in a queue, on a transmitter or in a pipe.
    pub(crate) fn check_packet_accounting(&self) -> Result<(), RunError> {
        let held: usize = self.links.iter().map(|l| l.packets_held()).sum();
        if held != self.packets.live() {
            return Err(RunError::Invariant(format!(
                "{} packets allocated but {} held by links",
                self.packets.live(),
                held
            )));
        }
        Ok(())
    }

    /// No reported metric may exceed its physical bound (issue 10, item 11): a run that
    /// breaks one fails instead of printing an impossible number.
    pub(crate) fn check_bounds(&self, r: &RunResult) -> Result<(), RunError> {
        // Relative slack for float division; the counters themselves are integers.
        const SLACK: f64 = 1e-9;
        let fail = |m: String| Err(RunError::Invariant(format!("metric out of bounds: {m}")));
        let frac = |x: f64| (0.0..=1.0 + SLACK).contains(&x);
        // A link's highest rate over the run, and whether its utilization is bounded by 1
        // (`Timeline::bounds`: events may change a rate, a trace may drive it).
        let rates: std::collections::HashMap<&str, (f64, bool)> = self
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let (rate, bounded) = self.timeline.bounds(i, l.rate_bps);
                (l.name.as_str(), (rate as f64, bounded))
            })
            .collect();
        for q in &r.queues {
            let (rate, bounded) = rates
                .get(q.name.as_str())
                .copied()
                .unwrap_or((f64::INFINITY, true));
            if !frac(q.loss_rate) || (bounded && !frac(q.utilization)) {
                return fail(format!(
                    "queue {}: loss rate {}, utilization {}",
                    q.name, q.loss_rate, q.utilization
                ));
            }
            if q.throughput_bps > rate * (1.0 + SLACK) {
                return fail(format!(
                    "queue {}: throughput {} b/s above its link rate {rate} b/s",
                    q.name, q.throughput_bps
                ));
            }
        }
        let span_s = (r.duration_s - r.warmup_s).max(0.0);
        for f in &r.flows {
            if !frac(f.loss_rate) || f.goodput_bps > f.throughput_bps * (1.0 + SLACK) {
                return fail(format!(
                    "flow {}: loss rate {}, goodput {} b/s, throughput {} b/s",
                    f.flow, f.loss_rate, f.goodput_bps, f.throughput_bps
                ));
            }
            if f.spurious_retransmissions > f.retransmissions
                || !(0.0..=span_s * (1.0 + SLACK)).contains(&f.time_in_recovery_s)
            {
                return fail(format!(
                    "flow {}: {} spurious of {} retransmissions, {} s in recovery of {span_s} s",
                    f.flow, f.spurious_retransmissions, f.retransmissions, f.time_in_recovery_s
                ));
            }
        }
        let jains = [r.jain_index, r.jain_index_tcp, r.jain_index_all_flows]
            .into_iter()
            .chain(r.groups.iter().map(|g| g.jain_index));
        for j in jains {
            if !frac(j) && !j.is_nan() {
                return fail(format!("Jain index {j}"));
            }
        }
        Ok(())
    }
}
