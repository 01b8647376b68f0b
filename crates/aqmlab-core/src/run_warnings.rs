//! Warnings about a finished run: what it measured that most likely is not what was meant to
//! be studied (issue 25, item 1). They travel with the result (`RunResult::warnings`) and the
//! callers show them as they show the scenario's warnings (`scenario/warnings.rs`: the Python
//! API as `aqmlab.ScenarioWarning`, the command line as `warning: ...`).
//!
//! - A flow stalled in recovery: more than half of the measurement period spent in fast
//!   recovery with its first unacknowledged packet still unacknowledged more than an RTO
//!   after its first retransmission, where RFC 6298's timer, started by that retransmission,
//!   would have expired and only a re-armed timer kept the flow from timing out. The loop of
//!   issue 25 (one packet sent 233 times in 50 s while the RTO kept being re-armed) looks
//!   like this: 70 of the 100 flows of the identical dumbbell were so for most of the period
//!   when the loop is brought back (`prr_bound = "ssrb"`, tests/recovery_loops.rs).

use crate::metrics::flow_stats::FlowStats;
// A run's warning is the same remark as a scenario's (a field, and what is likely wrong), and
// the callers show both alike: one type.
use crate::scenario::warnings::ScenarioWarning;
use crate::sim::Time;

/// The share of the measurement period above which a flow stalled in recovery is reported.
pub const STALLED_SHARE: f64 = 0.5;

/// The warnings about flows' statistics over a measurement period of `span` ns.
pub fn of(stats: &[FlowStats], span: Time) -> Vec<ScenarioWarning> {
    let stalled: Vec<(usize, &FlowStats)> = stats
        .iter()
        .enumerate()
        .filter(|(_, s)| span > 0 && s.stalled_recovery_ns as f64 > STALLED_SHARE * span as f64)
        .collect();
    if stalled.is_empty() {
        return Vec::new();
    }
    const LISTED: usize = 10;
    let mut names: Vec<String> = stalled
        .iter()
        .take(LISTED)
        .map(|(i, s)| {
            format!(
                "{i} ({:.0} % stalled, a packet sent {} times)",
                100.0 * s.stalled_recovery_ns as f64 / span as f64,
                s.max_transmissions
            )
        })
        .collect();
    if stalled.len() > LISTED {
        names.push(format!("and {} more", stalled.len() - LISTED));
    }
    vec![ScenarioWarning {
        path: "tcp".into(),
        message: format!(
            "{} flow(s) spent more than half of the measurement period in fast recovery \
             without progress (the first unacknowledged packet still unacknowledged more than \
             an RTO after its retransmission, the timer re-armed): flow {}; either their \
             recovery loops instead of repairing (see the flow table's \
             max_transmissions_of_a_segment, spurious_retransmissions and rto_backoffs; with \
             the `rfc6675` sender, prr_bound = \"safe_ack\" and a send jitter, `overhead`, \
             break such loops), or the network drops their retransmissions again and again \
             (a high loss_rate with no spurious retransmission: a sender that does not back \
             off on loss, BBR v1, through an overloaded AQM)",
            stalled.len(),
            names.join(", ")
        ),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Time = 1_000_000_000;

    #[test]
    fn flows_stalled_over_half_the_period_are_named() {
        let mut stats = vec![FlowStats::default(); 3];
        stats[1].stalled_recovery_ns = 6 * S;
        stats[1].max_transmissions = 40;
        stats[2].stalled_recovery_ns = 5 * S;
        let w = of(&stats, 10 * S);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].path, "tcp");
        assert!(
            w[0].message.starts_with("1 flow(s)")
                && w[0]
                    .message
                    .contains("flow 1 (60 % stalled, a packet sent 40 times)"),
            "{}",
            w[0].message
        );
        assert!(of(&stats, 0).is_empty());
        stats[1].stalled_recovery_ns = 5 * S;
        assert!(
            of(&stats, 10 * S).is_empty(),
            "exactly half is not more than half"
        );
    }
}
