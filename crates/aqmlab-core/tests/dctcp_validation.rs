//! DCTCP with step marking against the analysis of Alizadeh et al., "Data Center TCP",
//! SIGCOMM 2010, section 3.3: N long-lived DCTCP flows through one bottleneck of capacity C
//! (packets/s) and round-trip time RTT, marked at K packets, settle into a sawtooth in which
//! every flow's window peaks at W* = (C x RTT + K) / N, and
//! - alpha ~ sqrt(2 / W*) (eq. 8, for small alpha),
//! - the queue's oscillation amplitude A = (1/2) sqrt(2 N (C x RTT + K)) packets (eq. 11),
//! - its period T_C = (1/2) sqrt(2 (C x RTT + K) / N) round trips (eq. 12),
//! - Q_max = K + N, Q_min = Q_max - A = K + N - A (eq. 13).
//!
//! The path (1 Gb/s, 100 us, 1500-byte packets, as the paper's section 3.3 example): C x RTT
//! = 1e9 x 100e-6 / (8 x 1500) = 8.33 packets; K = 20 packets, the paper's 1 Gb/s setting
//! and above its guideline K > C x RTT / 7 = 1.19. docs/validation.md ("DCTCP") has the
//! numbers for N = 2 and 10; the N = 2 point is the test here.

mod common;

use aqmlab_core::{run, Scenario};
use common::validation;

const RATE_BPS: f64 = 1e9;
const RTT_S: f64 = 100e-6;
const PACKET_BYTES: f64 = 1500.0;
const K: f64 = 20.0;

/// C x RTT in packets.
fn bdp() -> f64 {
    RATE_BPS * RTT_S / (8.0 * PACKET_BYTES)
}

/// The analysis' predictions for N flows: (alpha, A, T_C in RTTs, Q_min, Q_max).
pub fn analysis(n: f64) -> (f64, f64, f64, f64, f64) {
    let w_star = (bdp() + K) / n;
    let alpha = (2.0 / w_star).sqrt();
    let a = 0.5 * (2.0 * n * (bdp() + K)).sqrt();
    let t_c = 0.5 * (2.0 * (bdp() + K) / n).sqrt();
    (alpha, a, t_c, K + n - a, K + n)
}

#[derive(Debug)]
pub struct Measured {
    /// Time-average of alpha over the flows.
    pub alpha: f64,
    /// Mean over windows of 2 T_C of (max - min) of the queue.
    pub amplitude: f64,
    pub q_min: f64,
    pub q_max: f64,
    pub mean_queue: f64,
    pub utilization: f64,
    pub drops: u64,
    pub timeouts: u64,
    /// Marks per arrival at the bottleneck.
    pub marked_fraction: f64,
}

/// N DCTCP flows for `duration_s` after a `warmup_s`, the queue and alpha sampled every 5 us.
pub fn measure(n: usize, warmup_s: f64, duration_s: f64) -> Measured {
    let delayed_ack = std::env::var("DCTCP_DELACK").unwrap_or("true".into());
    let s = Scenario::from_toml(&validation::dctcp_step(
        n,
        K,
        (warmup_s, warmup_s + duration_s),
        "5us",
        &delayed_ack,
    ))
    .unwrap();
    let r = run(&s, 1).unwrap();
    let ts = &r.timeseries;
    let (alpha_sum, mut alpha_n) = (std::cell::Cell::new(0.0), 0usize);
    let mut queue: Vec<(f64, f64)> = vec![];
    for i in 0..ts.time_s.len() {
        if ts.time_s[i] < warmup_s {
            continue;
        }
        let (src, var) = (ts.source_name(i), ts.variable_name(i));
        if src.starts_with("flow") && var == "dctcp_alpha" {
            alpha_sum.set(alpha_sum.get() + ts.value[i]);
            alpha_n += 1;
        } else if src == "bottleneck" && var == "queue_packets" {
            queue.push((ts.time_s[i], ts.value[i]));
        }
    }
    assert!(
        alpha_n > 1000 && queue.len() > 1000,
        "{alpha_n} {}",
        queue.len()
    );
    let (_, _, t_c, _, _) = analysis(n as f64);
    let window = 2.0 * t_c * RTT_S;
    let (mut maxes, mut mins) = (vec![], vec![]);
    let mut start = queue[0].0;
    let (mut lo, mut hi) = (f64::MAX, f64::MIN);
    for &(t, q) in &queue {
        if t >= start + window {
            maxes.push(hi);
            mins.push(lo);
            start = t;
            lo = f64::MAX;
            hi = f64::MIN;
        }
        lo = lo.min(q);
        hi = hi.max(q);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let q = r.queues.iter().find(|q| q.name == "bottleneck").unwrap();
    Measured {
        alpha: alpha_sum.get() / alpha_n as f64,
        amplitude: mean(&maxes) - mean(&mins),
        q_min: mean(&mins),
        q_max: mean(&maxes),
        mean_queue: q.mean_queue_packets,
        utilization: q.utilization,
        drops: q.drops,
        timeouts: r.flows.iter().map(|f| f.timeouts).sum(),
        marked_fraction: q.marks as f64 / q.arrivals as f64,
    }
}

/// N = 2 (W* = 14.2 packets): alpha within 35 % of sqrt(2 / W*) = 0.376, the amplitude within
/// 35 % of A = 5.3 packets, Q_min within 3 packets of 16.7, utilization >= 99 %, and no
/// drops (the buffer of 1000 packets is never reached). Measured: alpha 0.267 (-29 %), A 4.7
/// (-12 %), Q_min 17.8. The analysis lets every window grow through the marked round trip;
/// this sender, as RFC 3168 and Linux, does not grow on an ACK with ECE, which lengthens each
/// cycle by about a round trip and lowers the marked fraction (docs/validation.md, "DCTCP",
/// where the tolerance and this difference are discussed).
#[test]
fn two_flows_follow_the_dctcp_analysis() {
    let (alpha, a, _, q_min, _) = analysis(2.0);
    let m = measure(2, 0.1, 0.2);
    eprintln!("N = 2: {m:?}; analysis alpha {alpha:.3} A {a:.2} Q_min {q_min:.2}");
    assert!((m.alpha / alpha - 1.0).abs() < 0.35, "{m:?}");
    assert!((m.amplitude / a - 1.0).abs() < 0.35, "{m:?}");
    assert!((m.q_min - q_min).abs() < 3.0, "{m:?}");
    assert!(m.utilization >= 0.99, "{m:?}");
    assert_eq!((m.drops, m.timeouts), (0, 0), "{m:?}");
}

/// The table of docs/validation.md: `cargo test --release -p aqmlab-core --test
/// dctcp_validation -- --ignored --nocapture`.
#[test]
#[ignore]
fn table() {
    println!("| N | W* | alpha (sim / analysis) | A packets (sim / analysis) | Q_min (sim / analysis) | Q_max (sim / K + N) | mean queue | utilization |");
    println!("|---|---|---|---|---|---|---|---|");
    for n in [2usize, 10] {
        let (alpha, a, _, q_min, q_max) = analysis(n as f64);
        let m = measure(n, 0.2, 0.5);
        println!(
            "| {n} | {:.2} | {:.3} / {alpha:.3} | {:.2} / {a:.2} | {:.2} / {q_min:.2} | {:.2} / {q_max:.0} | {:.2} | {:.4} |",
            (bdp() + K) / n as f64,
            m.alpha,
            m.amplitude,
            m.q_min,
            m.q_max,
            m.mean_queue,
            m.utilization
        );
        eprintln!("{m:?}");
    }
}
