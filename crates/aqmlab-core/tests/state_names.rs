//! The time series' names (issue 27, item 6): every AQM reports exactly the variables its
//! registry entry documents, one name never stands for two quantities, and a real run records
//! no variable that is not documented.

mod common;

use aqmlab_core::aqm::registry::{build_queue, REGISTRY};
use aqmlab_core::aqm::state_docs::{self, StateDoc};
use aqmlab_core::aqm::QueueDiscipline;
use aqmlab_core::run;
use aqmlab_core::testing::{Dumbbell, TCP_TO_RECEIVERS};
use common::aqm_env as env;
use std::collections::BTreeMap;

#[test]
fn every_aqm_reports_exactly_its_documented_state() {
    for info in REGISTRY {
        let q = build_queue(&serde_json::json!(info.name), &env(), None, "q.aqm").unwrap();
        let mut seen = Vec::new();
        q.state(&mut |name, v| {
            assert!(v.is_finite(), "{}.{name} = {v}", info.name);
            seen.push(name.to_string());
        });
        let documented: Vec<&str> = info.state.iter().map(|d| d.name).collect();
        assert_eq!(seen, documented, "{}: reported vs documented", info.name);
    }
}

#[test]
fn one_name_means_one_quantity() {
    let mut all: Vec<(&str, &StateDoc)> = Vec::new();
    for info in REGISTRY {
        all.extend(info.state.iter().map(|d| (info.name, d)));
    }
    for (what, docs) in [
        ("queue", state_docs::QUEUE),
        ("flows", state_docs::FLOWS),
        ("flow", state_docs::FLOW),
        ("tcp", state_docs::TCP),
    ] {
        all.extend(docs.iter().map(|d| (what, d)));
    }
    let mut by_name: BTreeMap<&str, (&str, &StateDoc)> = BTreeMap::new();
    for (owner, d) in all {
        assert!(!d.name.is_empty() && !d.meaning.is_empty());
        if let Some((first, prev)) = by_name.insert(d.name, (owner, d)) {
            assert_eq!(
                prev, d,
                "{} documented differently by {first} and {owner}",
                d.name
            );
        }
    }
    // An AQM's own variable must not shadow one the simulator records for every queue.
    for info in REGISTRY {
        for d in info.state {
            assert!(
                !state_docs::QUEUE.iter().any(|q| q.name == d.name),
                "{} reports {}, which every queue already records",
                info.name,
                d.name
            );
        }
    }
}

/// Every variable a sampled run records, per source, is documented for that source.
#[test]
fn a_sampled_run_records_only_documented_names() {
    for aqm in ["red", "pie", "fq_codel"] {
        let bottleneck =
            format!(r#"rate = "10Mbps", delay = "10ms", queue = {{ limit = 100, aqm = "{aqm}" }}"#);
        let s = Dumbbell {
            duration: "3s",
            head: "warmup = \"1s\"\nsample_interval = \"100ms\"\nsample_flows = true",
            senders: 3,
            bottleneck: &bottleneck,
            rest: &format!(
                r#"
                [tcp]
                variant = "sack"
                congestion_control = "cubic"
                {TCP_TO_RECEIVERS}
                [[flows]]
                kind = "cbr"
                from = "s0"
                to = "d0"
                rate = "1Mbps"
                packet_size = "1000B"
                "#
            ),
            ..Default::default()
        }
        .scenario();
        let r = run(&s, 1).unwrap();
        let ts = &r.timeseries;
        assert!(!ts.is_empty());
        let info = REGISTRY.iter().find(|i| i.name == aqm).unwrap();
        let mut seen_aqm_var = false;
        for i in 0..ts.len() {
            let src = &ts.source_names[ts.source[i] as usize];
            let var = &ts.variable_names[ts.variable[i] as usize];
            let docs: Vec<&[StateDoc]> = if src == "flows" {
                vec![state_docs::FLOWS]
            } else if src.starts_with("flow") {
                vec![state_docs::FLOW, state_docs::TCP]
            } else {
                vec![state_docs::QUEUE, info.state]
            };
            assert!(
                docs.iter().any(|d| d.iter().any(|x| x.name == var)),
                "{aqm}: {src}.{var} is not documented in aqm/state_docs.rs"
            );
            seen_aqm_var |= info.state.iter().any(|x| x.name == var);
        }
        assert!(seen_aqm_var, "{aqm}: no AQM state recorded");
        // Flow sources are the flows table's ids: flow<i> for every flow i, cwnd for the TCP
        // ones alone.
        let sources: Vec<&str> = ts.source_names.iter().map(|s| s.as_str()).collect();
        for f in &r.flows {
            let src = format!("flow{}", f.flow);
            assert!(
                sources.contains(&src.as_str()),
                "{aqm}: no series for {src}"
            );
            let has_cwnd = (0..ts.len()).any(|i| {
                ts.source_names[ts.source[i] as usize] == src
                    && ts.variable_names[ts.variable[i] as usize] == "cwnd"
            });
            assert_eq!(has_cwnd, f.kind == "tcp", "{aqm}: {src} ({})", f.kind);
        }
    }
}
