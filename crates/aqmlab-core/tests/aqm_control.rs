//! The control-theoretic and delay-based AQMs end to end (NEWQUE, BLUE, PI, REM, CoDel, PIE,
//! FQ-CoDel, FQ-PIE, COBALT): each at the bottleneck of a 50-sender dumbbell (10 Mb/s, 5 ms;
//! 100 Mb/s, 1 ms access links), limit 300 packets for NEWQUE/BLUE/PI/REM (as in the NEWQUE
//! paper) and 100 for CoDel/PIE/FQ-CoDel/FQ-PIE/COBALT; 30 s, 10 s warm-up. Traffic: TCP
//! NewReno (window 64) and an unresponsive Poisson overload; plus parameter errors through
//! `build_queue`.

mod common;

use aqmlab_core::aqm::registry::build_queue;
use aqmlab_core::metrics::queue_stats::QueueSummary;
use aqmlab_core::run;
use aqmlab_core::testing::TCP_IN_FIRST_SECOND;
use aqmlab_core::Scenario;
use common::{aqm_dumbbell, aqm_env, bottleneck_row, error_path};

/// (name, aqm table, buffer limit)
const ALGORITHMS: &[(&str, &str, u32)] = &[
    ("newque", r#"{ kind = "newque" }"#, 300),
    ("blue", r#"{ kind = "blue" }"#, 300),
    ("pi", r#"{ kind = "pi" }"#, 300),
    ("rem", r#"{ kind = "rem" }"#, 300),
    ("codel", r#"{ kind = "codel" }"#, 100),
    ("pie", r#"{ kind = "pie" }"#, 100),
    ("fq_codel", r#"{ kind = "fq_codel" }"#, 100),
    ("fq_pie", r#"{ kind = "fq_pie" }"#, 100),
    ("cobalt", r#"{ kind = "cobalt" }"#, 100),
];

/// The shared AQM dumbbell with 1 ms access links and NewReno.
fn dumbbell(aqm: &str, limit: u32, flows: &str) -> Scenario {
    aqm_dumbbell(aqm, limit, r#""1ms""#, "newreno", flows)
}

/// 50 Poisson sources of 30 packets/s of 1000 B: 1500 packets/s against a link that sends
/// 1250: a steady overload of 20% that no algorithm can push back, so each must drop about
/// 1/6 of the arrivals and shows where its controller holds the queue.
const POISSON_FLOWS: &str = r#"
    [[flows]]
    kind = "poisson"
    from = "senders"
    to = "receivers"
    packets_per_second = 30
    packet_size = "1000B"
    start = { uniform = ["0s", "1s"] }
"#;

fn run_one(name: &str, aqm: &str, limit: u32, flows: &str) -> QueueSummary {
    bottleneck_row(name, &dumbbell(aqm, limit, flows))
}

#[test]
fn poisson_overload_each_controller_holds_its_own_operating_point() {
    for &(name, aqm, limit) in ALGORITHMS {
        let q = run_one(name, aqm, limit, POISSON_FLOWS);
        assert!(
            q.utilization > 0.95,
            "{name}: utilization {}",
            q.utilization
        );
        assert!(q.early_drops > 0, "{name}: no early drops");
        // 1 - 1250/1500 = 0.167 of the arrivals must go, whoever drops them.
        assert!(
            q.loss_rate > 0.15 && q.loss_rate < 0.25,
            "{name}: loss {}",
            q.loss_rate
        );
        match name {
            // PI's gains are designed for TCP (p of a few percent): p grows by only
            // (a - b)(q - q_ref) = 6e-8 * 250 per 1/170 s tick, 2.6e-3/s, so against an
            // unresponsive 20% overload it needs ~65 s to reach p = 1/6. Within 30 s it must
            // have started dropping early, but the buffer still overflows.
            "pi" => assert!(q.early_drops > 0 && q.forced_drops > 0, "pi: {q:?}"),
            // REM's price must reach ln(6/5)/ln(1.001) = 182 for p = 1/6; it climbs at most
            // 0.001 * (3 + 0.1 * 280 - 2.5) per 2 ms, i.e. in about 13 s, then early drops
            // take over from overflow (it oscillates around b0 = 20 afterwards).
            "rem" => assert!(q.early_drops > 5 * q.forced_drops, "rem: {q:?}"),
            // BLUE's p learns from overflow and then drops early.
            "blue" => assert!(q.early_drops > 5 * q.forced_drops, "blue: {q:?}"),
            // CoDel and PIE drop mostly early and keep the delay below the 80 ms of a full
            // 100-packet buffer. (Against unresponsive overload CoDel cannot hold 5 ms: each
            // time the sojourn dips below target it leaves the dropping state and re-enters
            // with count = the previous cycle's drops, so the queue swings.)
            "codel" | "pie" => {
                assert!(
                    q.mean_delay_ms < 64.0,
                    "{name}: mean delay {} ms",
                    q.mean_delay_ms
                );
                assert!(q.early_drops > 3 * q.forced_drops, "{name}: {q:?}");
                if name == "pie" {
                    // PIE's integral term does hold its 15 ms target (measured 16.6 ms).
                    assert!(
                        q.mean_delay_ms > 10.0 && q.mean_delay_ms < 25.0,
                        "pie: mean delay {} ms",
                        q.mean_delay_ms
                    );
                }
            }
            // FQ-PIE's per-queue "fewer than 2 MTU" exemption (sch_fq_pie passes each flow's
            // backlog to pie_drop_early): 50 queues x 3028 B is ~150 packets of 1000 B, more
            // than the 100-packet buffer, so most queues are never long enough for their PIE
            // to act and overflow drops dominate (measured 1806 early, 3716 forced, 77.5 ms).
            "fq_pie" => assert!(q.forced_drops > q.early_drops, "fq_pie: {q:?}"),
            // COBALT: BLUE, raised by overflow, and CoDel together hold the queue near target
            // where CoDel alone overflows (measured 6.6 ms, no overflow in the window).
            "cobalt" => {
                assert!(q.mean_delay_ms < 15.0, "cobalt: {q:?}");
                assert!(q.early_drops > 10 * q.forced_drops, "cobalt: {q:?}");
            }
            // NEWQUE sees r >= C all the time; P climbs by alpha = 1e-4 per 100 ms, so
            // after 30 s it is at most 0.03 and front overflow drops dominate.
            "newque" => assert!(q.forced_drops > q.early_drops, "newque: {q:?}"),
            // FQ-CoDel: 50 flows of 30 packets/s against a fair share of 25 each; one DRR
            // round of 50 packets takes 40 ms, so per-flow CoDel cannot reach 5 ms, but the
            // delay stays below the 80 ms of a full buffer.
            _ => assert!(q.mean_delay_ms < 80.0, "{name}: {q:?}"),
        }
    }
}

/// Measured (seed 1, on the `tcp` branch): queue pkts / mean delay ms / loss
///   newque 296.7 / 240.5 / 0.029   blue 255.8 / 213.7 / 0.032   pi 208.1 / 174.2 / 0.044
///   rem 76.9 / 64.8 / 0.110        codel 41.6 / 31.2 / 0.124    pie 17.9 / 15.7 / 0.135
///   fq_codel 53.8 / 36.0 / 0.128; utilization >= 0.996 for all. Issue 28 (seed 1):
///   fq_pie 94.7 / 79.6 / 0.078, cobalt 7.8 / 6.1 / 0.171.
/// 50 flows over a path whose bandwidth-delay product is about 17 packets need p of 10-15%;
/// PI and REM integrate towards that slowly (see the 200 s test below), NEWQUE's P rises by
/// 1e-4 per 100 ms but falls by 0.02 whenever the rate estimate dips below C, so with the
/// paper's parameters it stays near 0 and the buffer works as drop-front tail drop.
#[test]
fn tcp_dumbbell_50_flows() {
    let rows: Vec<_> = ALGORITHMS
        .iter()
        .map(|&(name, aqm, limit)| (name, limit, run_one(name, aqm, limit, TCP_IN_FIRST_SECOND)))
        .collect();
    for (name, limit, q) in rows {
        // 20 s at 10 Mb/s of 1040 B packets is 24000 departures.
        assert!(
            q.arrivals > 20_000,
            "{name}: TCP sent {} packets",
            q.arrivals
        );
        assert!(
            q.utilization > 0.99,
            "{name}: utilization {}",
            q.utilization
        );
        assert!(q.mean_queue_packets <= limit as f64);
        match name {
            // NEWQUE with the paper's alpha/beta: P ~ 0, overflow front drops only.
            "newque" => assert!(q.forced_drops > 10 * q.early_drops, "newque: {q:?}"),
            // BLUE's p, PI's and REM's integrators: early drops only (or nearly), the queue
            // below the limit (they are still converging, as said above).
            "blue" | "pi" | "rem" => {
                assert!(q.early_drops > 10 * q.forced_drops, "{name}: {q:?}");
                assert!(q.mean_queue_packets < 0.9 * limit as f64, "{name}: {q:?}");
            }
            // CoDel: 31 ms, not 5: 50 flows with a window of at least 2 packets keep ~80
            // packets in flight over a 17-packet pipe; still well below a full buffer (80 ms).
            "codel" => assert!(q.mean_delay_ms < 45.0, "codel: {q:?}"),
            "pie" => assert!(
                q.mean_delay_ms > 10.0 && q.mean_delay_ms < 25.0,
                "pie: delay {} ms (target 15)",
                q.mean_delay_ms
            ),
            // FQ-PIE: as under the Poisson overload, 50 queues' 2-MTU exemptions exceed the
            // 100-packet buffer: tail drops dominate and the buffer stays nearly full
            // (measured 99 early, 1946 forced, 94.7 packets).
            "fq_pie" => {
                assert!(q.forced_drops > 10 * q.early_drops, "fq_pie: {q:?}");
                assert!(q.mean_queue_packets > 0.8 * limit as f64, "fq_pie: {q:?}");
            }
            // COBALT: CoDel's control with CAKE's count decay, 6.1 ms measured.
            "cobalt" => assert!(q.mean_delay_ms < 15.0, "cobalt: {q:?}"),
            _ => assert!(q.mean_delay_ms < 60.0, "{name}: {q:?}"),
        }
    }
}

/// PI and REM given time to converge (200 s, measuring the last 50 s): PI's queue settles at
/// q_ref = 50 (measured 62.9: its integrator is still closing in), REM's at b0 = 20
/// (measured 19.4).
#[test]
fn pi_and_rem_settle_at_their_reference_queues() {
    for (name, reference, tolerance) in [("pi", 50.0, 20.0), ("rem", 20.0, 8.0)] {
        let mut s = dumbbell(
            &format!(r#"{{ kind = "{name}" }}"#),
            300,
            TCP_IN_FIRST_SECOND,
        );
        s.duration = aqmlab_core::units::Duration(200_000_000_000);
        s.warmup = aqmlab_core::units::Duration(150_000_000_000);
        let r = run(&s, 1).unwrap();
        assert!(r.conserved);
        let q = r.queue("bottleneck").unwrap();
        eprintln!(
            "{name}: queue {:.1} (reference {reference})",
            q.mean_queue_packets
        );
        assert!(
            (q.mean_queue_packets - reference).abs() < tolerance,
            "{name}: mean queue {} vs {reference}",
            q.mean_queue_packets
        );
        assert!(q.utilization > 0.95);
    }
}

#[test]
fn invalid_parameters_name_the_parameter() {
    let cases = [
        (
            serde_json::json!({"kind": "pi", "q_ref": -3}),
            "q.aqm.q_ref",
        ),
        (
            serde_json::json!({"kind": "newque", "alpha": 1.5}),
            "q.aqm.alpha",
        ),
        (serde_json::json!({"kind": "blue", "d2": -1}), "q.aqm.d2"),
        (serde_json::json!({"kind": "rem", "phi": 1.0}), "q.aqm.phi"),
        (serde_json::json!({"kind": "codel", "mtu": 0}), "q.aqm.mtu"),
        (
            serde_json::json!({"kind": "pie", "ecn_prob": 2}),
            "q.aqm.ecn_prob",
        ),
        (
            serde_json::json!({"kind": "fq_codel", "flows": 0}),
            "q.aqm.flows",
        ),
    ];
    for (aqm, path) in cases {
        assert_eq!(error_path(&aqm), path, "{aqm}");
    }
    let e = build_queue(
        &serde_json::json!({"kind": "pie", "tupdate": "15ms"}),
        &aqm_env(),
        None,
        "q.aqm",
    )
    .err()
    .unwrap();
    assert!(e.to_string().contains("tupdate"), "{e}");
    for &(name, _, _) in ALGORITHMS {
        assert!(build_queue(&serde_json::json!(name), &aqm_env(), None, "q.aqm").is_ok());
    }
}
