//! The RED family and Orange end to end: each algorithm at the bottleneck of a 50-sender
//! dumbbell (10 Mb/s, 5 ms, limit 100 packets, 100 Mb/s access links), with TCP Reno flows
//! and with bursty UDP on/off traffic; plus parameter errors through `build_queue`.

mod common;

use aqmlab_core::aqm::registry::build_queue;
use aqmlab_core::aqm::QueueDiscipline;
use aqmlab_core::metrics::queue_stats::QueueSummary;
use aqmlab_core::testing::TCP_IN_FIRST_SECOND;
use common::{aqm_dumbbell, aqm_env as env, bottleneck_row, error_path};

/// (name, aqm table) for every algorithm of this family, at its defaults.
const ALGORITHMS: &[(&str, &str)] = &[
    ("ared", r#"{ kind = "ared" }"#),
    ("lpf_oda", r#"{ kind = "lpf_oda" }"#),
    ("hybrid_red", r#"{ kind = "hybrid_red" }"#),
    ("qvared", r#"{ kind = "qvared" }"#),
    ("dsred", r#"{ kind = "dsred" }"#),
    ("orange", r#"{ kind = "orange" }"#),
];

/// 50 on/off sources of 0.4 Mb/s, on and off for 1 s on average: a mean offered load of
/// 10 Mb/s (the link rate) with bursts of up to twice it.
const ONOFF_FLOWS: &str = r#"
    [[flows]]
    kind = "onoff"
    from = "senders"
    to = "receivers"
    rate = "400kbps"
    packet_size = "1000B"
    on_time = "1s"
    off_time = "1s"
    start = { uniform = ["0s", "1s"] }
"#;

/// Every algorithm's bottleneck row on the shared AQM dumbbell (limit 100, access delays
/// 1-9 ms, Reno) under `flows`.
fn run_all(flows: &str) -> Vec<(&'static str, QueueSummary)> {
    ALGORITHMS
        .iter()
        .map(|&(name, aqm)| {
            let s = aqm_dumbbell(
                aqm,
                100,
                r#"["1ms", "3ms", "5ms", "7ms", "9ms"]"#,
                "reno",
                flows,
            );
            (name, bottleneck_row(name, &s))
        })
        .collect()
}

/// The algorithm held a queue, and held it below the 100-packet buffer.
fn assert_queue_inside_buffer(name: &str, q: &QueueSummary) {
    assert!(
        q.mean_queue_packets > 1.0 && q.mean_queue_packets < 100.0,
        "{name}: mean queue {}",
        q.mean_queue_packets
    );
}

#[test]
fn every_algorithm_handles_bursty_udp() {
    for (name, q) in run_all(ONOFF_FLOWS) {
        assert_queue_inside_buffer(name, &q);
        // Offered load 1.0 in bursts: a queue that empties between bursts still sends most
        // of it.
        assert!(
            q.utilization > 0.75,
            "{name}: utilization {}",
            q.utilization
        );
        assert!(q.utilization <= 1.0 + 1e-9);
        // UDP does not back off: every algorithm must act, and early (not only forced).
        assert!(q.early_drops > 0, "{name}: no early drop");
        assert!(q.loss_rate < 0.5, "{name}: loss {}", q.loss_rate);
    }
}

#[test]
fn every_algorithm_in_a_50_flow_tcp_dumbbell() {
    for (name, q) in run_all(TCP_IN_FIRST_SECOND) {
        assert_queue_inside_buffer(name, &q);
        // Hybrid RED and LPF/ODA at the paper's w_q = 0.002 keep cutting avg whenever the
        // queue dips to min_th (theta = 1: at every such arrival, by 20%), so avg swings
        // between ~0 and 2 max_th and drops come in synchronised bursts: measured (TCP from
        // main, seed 1) utilization 0.856 and 0.854, mean queue 34
        // packets, against >= 0.997 for the others. Both floors leave a margin.
        let floor = match name {
            "hybrid_red" | "lpf_oda" => 0.8,
            _ => 0.95,
        };
        assert!(
            q.utilization > floor,
            "{name}: utilization {}",
            q.utilization
        );
        assert!(q.early_drops > 0, "{name}: no early drop");
    }
}

#[test]
fn invalid_parameters_are_rejected_with_their_name() {
    use serde_json::json;
    let cases = [
        (json!({"kind": "dsred", "K_l": 20, "K_h": 10}), "q.aqm.k_h"),
        (json!({"kind": "dsred", "k_m": 3}), "q.aqm.k_m"),
        (json!({"kind": "dsred", "gamma": 2}), "q.aqm.gamma"),
        (json!({"kind": "orange", "timer": "0ms"}), "q.aqm.timer"),
        (json!({"kind": "orange", "timer": "-1ms"}), "q.aqm.timer"),
        (
            json!({"kind": "orange", "threshold": -3}),
            "q.aqm.threshold",
        ),
        (json!({"kind": "hybrid_red", "xi": 0.5}), "q.aqm.xi"),
        (json!({"kind": "hybrid_red", "theta": 0}), "q.aqm.theta"),
        (json!({"kind": "qvared", "med_th": 90}), "q.aqm.max_th"),
        (json!({"kind": "qvared", "med_th": 10}), "q.aqm.med_th"),
        (json!({"kind": "ared", "beta": 2}), "q.aqm.beta"),
        (
            json!({"kind": "lpf_oda", "min_th": 30, "max_th": 20}),
            "q.aqm.max_th",
        ),
    ];
    for (aqm, path) in cases {
        assert_eq!(error_path(&aqm), path, "{aqm}");
    }
    // unknown keys name themselves
    for kind in ["ared", "lpf_oda", "hybrid_red", "qvared", "dsred", "orange"] {
        let aqm = json!({"kind": kind, "no_such_param": 1});
        match build_queue(&aqm, &env(), None, "q.aqm") {
            Ok(_) => panic!("{kind}: unknown key accepted"),
            Err(e) => assert!(e.to_string().contains("no_such_param"), "{kind}: {e}"),
        }
        // and the defaults build
        assert!(
            build_queue(&json!(kind), &env(), None, "q.aqm").is_ok(),
            "{kind}"
        );
    }
}

#[test]
fn registry_documents_every_parameter_each_algorithm_accepts() {
    use aqmlab_core::aqm::registry::lookup;
    for kind in ["ared", "lpf_oda", "hybrid_red", "qvared", "dsred", "orange"] {
        let info = lookup(kind).unwrap();
        assert!(!info.params.is_empty(), "{kind}");
        let mut names: Vec<&str> = info.params.iter().map(|p| p.name).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "{kind}: a parameter is documented twice");
        // every documented parameter is accepted, each with its own default value spelled out
        for p in info.params {
            assert!(!p.default.is_empty() && !p.unit.is_empty() && !p.meaning.is_empty());
            let value = match p.unit {
                "bool" => serde_json::json!(false),
                _ => continue,
            };
            let aqm = serde_json::json!({"kind": kind, p.name: value});
            assert!(
                build_queue(&aqm, &env(), None, "q.aqm").is_ok(),
                "{kind}: documented bool {} rejected",
                p.name
            );
        }
    }
}

#[test]
fn each_algorithm_reports_its_state() {
    let expected: &[(&str, &[&str])] = &[
        (
            "ared",
            &[
                "avg_packets",
                "p_b",
                "p",
                "since_signal_packets",
                "max_p",
                "max_p_changes",
            ],
        ),
        (
            "lpf_oda",
            &["avg_packets", "p_b", "p", "since_signal_packets", "low_run"],
        ),
        (
            "hybrid_red",
            &[
                "avg_packets",
                "p_b",
                "p",
                "since_signal_packets",
                "low_run",
                "reductions",
                "rule_enqueues",
            ],
        ),
        (
            "qvared",
            &[
                "avg_packets",
                "p_b",
                "p",
                "since_signal_packets",
                "max_p",
                "q_t_packets_per_s",
                "q_tmax_packets_per_s",
            ],
        ),
        (
            "dsred",
            &["avg_packets", "p_b", "p", "since_signal_packets"],
        ),
        (
            "orange",
            &[
                "timer_busy",
                "timer_busy_until_s",
                "timer_last_draw_s",
                "signals",
            ],
        ),
    ];
    for (kind, names) in expected {
        let q = build_queue(&serde_json::json!(kind), &env(), None, "q.aqm").unwrap();
        let mut seen = Vec::new();
        q.state(&mut |name, v| {
            assert!(v.is_finite(), "{kind}.{name} = {v}");
            seen.push(name.to_string());
        });
        for n in *names {
            assert!(
                seen.iter().any(|s| s == n),
                "{kind} does not report {n}: {seen:?}"
            );
        }
    }
}
