//! Validation against a closed form no one here wrote: Poisson arrivals with exponential
//! packet sizes into a DropTail queue form an M/M/1/K system, with K = limit + 1 (the limit
//! counts waiting packets; one more is in service).

mod common;

use aqmlab_core::{run, Scenario};
use common::source_behind_1mbps_bottleneck;

/// M/M/1/K: (mean number waiting, blocking probability) for load rho and capacity K.
fn mm1k(rho: f64, k: u32) -> (f64, f64) {
    let norm: f64 = (0..=k).map(|n| rho.powi(n as i32)).sum();
    let p = |n: u32| rho.powi(n as i32) / norm;
    let l: f64 = (0..=k).map(|n| n as f64 * p(n)).sum();
    let lq = l - (1.0 - p(0));
    (lq, p(k))
}

fn scenario(pps: f64, limit: u32, duration_s: u32) -> Scenario {
    // 1 Mb/s bottleneck, mean size 1000 B: mu = 125 packets/s. The access link is so fast
    // that it does not reshape the Poisson stream.
    source_behind_1mbps_bottleneck(
        &format!(
            r#"
            duration = "{duration_s}s"
            warmup = "100s"
            "#
        ),
        "100Gbps",
        limit,
        &format!(
            r#"
            [[flows]]
            kind = "poisson"
            from = "src"
            to = "sink"
            packets_per_second = {pps}
            packet_size = "1000B"
            sizes = "exponential"
            "#
        ),
    )
}

#[test]
fn droptail_under_poisson_matches_mm1k_within_two_percent() {
    for (pps, limit) in [(100.0, 10), (150.0, 5)] {
        let rho = pps / 125.0;
        let (lq, loss) = mm1k(rho, limit + 1);
        let r = run(&scenario(pps, limit, 40_000), 42).unwrap();
        let q = r.queue("bottleneck").unwrap();
        assert!(r.conserved);
        let rel_q = (q.mean_queue_packets - lq).abs() / lq;
        let rel_loss = (q.loss_rate - loss).abs() / loss;
        eprintln!(
            "rho {rho}: mean waiting {:.4} vs {lq:.4} ({:.2}%), loss {:.5} vs {loss:.5} ({:.2}%)",
            q.mean_queue_packets,
            rel_q * 100.0,
            q.loss_rate,
            rel_loss * 100.0
        );
        assert!(rel_q < 0.02, "mean queue off by {:.2}%", rel_q * 100.0);
        assert!(rel_loss < 0.02, "loss off by {:.2}%", rel_loss * 100.0);
    }
}

#[test]
fn same_seed_same_result_different_seed_different_result() {
    let s = scenario(100.0, 10, 500);
    let a = serde_json::to_string(&run(&s, 7).unwrap().queues).unwrap();
    let b = serde_json::to_string(&run(&s, 7).unwrap().queues).unwrap();
    let c = serde_json::to_string(&run(&s, 8).unwrap().queues).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
}
