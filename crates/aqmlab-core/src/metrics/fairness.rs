//! Jain's fairness index of the flows' goodputs: for the run (its headline, over the TCP
//! flows), over every flow, over the TCP flows alone, and per flow group.
//!
//! Issue 24: the index was taken over every flow, so one unresponsive UDP flow beside TCP
//! flows that share fairly made the run look unfair (a 2 Mb/s CBR among 30 TCP flows of
//! 0.3 Mb/s each: 0.58 over all 31, 1 over the TCP flows; `tests/test_fairness.py` runs six
//! TCP flows and a 4 Mb/s CBR: 0.994 and 0.656). The fairness studied with AQMs is that of
//! the responsive flows among themselves, so the run's headline `jain_index` is over the TCP
//! flows when the run has any (`jain_index_over` = "tcp_flows") and over every flow only
//! when it has none ("all_flows"); the all-flows value stays as `jain_index_all_flows`.
//! A group is a `[[flows]]` entry, named by its `group` (default "flows[i]"); entries that
//! share a name are one group.

use super::flow_stats::FlowSummary;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Jain's fairness index (sum x)^2 / (n sum x^2): 1 when all equal, 1/n when one takes all;
/// NaN for no values or all zero.
pub fn jain_index(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if n == 0.0 || s2 == 0.0 {
        return f64::NAN;
    }
    s * s / (n * s2)
}

/// The flow kind whose flows the headline index is over.
pub const TCP_KIND: &str = "tcp";

/// One row of the group table.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GroupSummary {
    pub group: String,
    /// The flows' kind ("tcp", "cbr", "poisson", "onoff"), or "mixed" when entries of
    /// different kinds share the group's name.
    pub kind: String,
    pub flows: u64,
    /// Sum over the group's flows.
    pub goodput_bps: f64,
    /// Over the group's flows' goodputs.
    pub jain_index: f64,
}

/// The run's fairness figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Fairness {
    /// Over the TCP flows if any, else over every flow.
    pub jain_index: f64,
    /// "tcp_flows" or "all_flows": what `jain_index` is over.
    pub jain_index_over: &'static str,
    /// Over the TCP flows alone (NaN without TCP flows).
    pub jain_index_tcp: f64,
    /// Over every flow.
    pub jain_index_all_flows: f64,
    pub groups: Vec<GroupSummary>,
}

impl Fairness {
    pub fn of(flows: &[FlowSummary]) -> Self {
        let goodputs = |keep: &dyn Fn(&FlowSummary) -> bool| -> Vec<f64> {
            flows
                .iter()
                .filter(|f| keep(f))
                .map(|f| f.goodput_bps)
                .collect()
        };
        let all = jain_index(&goodputs(&|_| true));
        let tcp = jain_index(&goodputs(&|f| f.kind == TCP_KIND));
        let has_tcp = flows.iter().any(|f| f.kind == TCP_KIND);
        // Groups in the order of their first flow (the map only finds a name's index).
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut members: Vec<(&FlowSummary, Vec<f64>, bool)> = vec![];
        for f in flows {
            let i = *index.entry(f.group.as_str()).or_insert_with(|| {
                members.push((f, vec![], false));
                members.len() - 1
            });
            let (first, xs, mixed) = &mut members[i];
            *mixed |= first.kind != f.kind;
            xs.push(f.goodput_bps);
        }
        let groups = members
            .into_iter()
            .map(|(first, xs, mixed)| GroupSummary {
                group: first.group.clone(),
                kind: if mixed {
                    "mixed".into()
                } else {
                    first.kind.clone()
                },
                flows: xs.len() as u64,
                goodput_bps: xs.iter().sum(),
                jain_index: jain_index(&xs),
            })
            .collect();
        Fairness {
            jain_index: if has_tcp { tcp } else { all },
            jain_index_over: if has_tcp { "tcp_flows" } else { "all_flows" },
            jain_index_tcp: tcp,
            jain_index_all_flows: all,
            groups,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_extremes() {
        assert_eq!(jain_index(&[3.0, 3.0, 3.0]), 1.0);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        assert!(jain_index(&[]).is_nan());
    }

    fn flow(group: &str, kind: &str, goodput_bps: f64) -> FlowSummary {
        FlowSummary {
            group: group.into(),
            kind: kind.into(),
            goodput_bps,
            ..FlowSummary::default()
        }
    }

    /// Issue 24, item 11: 30 TCP flows sharing fairly and one UDP flow taking more were
    /// reported as unfair (0.58): the headline is now over the TCP flows.
    #[test]
    fn one_udp_flow_does_not_make_fair_tcp_flows_look_unfair() {
        let mut flows: Vec<FlowSummary> = (0..30).map(|_| flow("tcp", "tcp", 0.3e6)).collect();
        flows.push(flow("udp", "cbr", 2e6));
        let f = Fairness::of(&flows);
        assert_eq!(f.jain_index, 1.0);
        assert_eq!(f.jain_index_over, "tcp_flows");
        assert_eq!(f.jain_index_tcp, 1.0);
        assert!(
            (f.jain_index_all_flows - 0.5826).abs() < 1e-3,
            "{}",
            f.jain_index_all_flows
        );
        assert_eq!(f.groups.len(), 2);
        assert_eq!((f.groups[0].flows, f.groups[0].jain_index), (30, 1.0));
        assert_eq!((f.groups[1].kind.as_str(), f.groups[1].flows), ("cbr", 1));
        assert!((f.groups[0].goodput_bps - 9e6).abs() < 1e-3);
    }

    #[test]
    fn without_tcp_flows_the_headline_is_over_every_flow() {
        let flows = vec![flow("a", "cbr", 1.0), flow("b", "poisson", 3.0)];
        let f = Fairness::of(&flows);
        assert_eq!(f.jain_index_over, "all_flows");
        assert_eq!(f.jain_index, f.jain_index_all_flows);
        assert!(f.jain_index_tcp.is_nan());
        assert_eq!(f.jain_index, 0.8);
    }

    #[test]
    fn entries_sharing_a_name_are_one_group() {
        let flows = vec![
            flow("x", "tcp", 1.0),
            flow("y", "tcp", 1.0),
            flow("x", "cbr", 3.0),
        ];
        let f = Fairness::of(&flows);
        let names: Vec<_> = f.groups.iter().map(|g| g.group.as_str()).collect();
        assert_eq!(names, ["x", "y"]);
        assert_eq!((f.groups[0].kind.as_str(), f.groups[0].flows), ("mixed", 2));
        assert_eq!(f.groups[0].jain_index, 0.8);
    }
}
