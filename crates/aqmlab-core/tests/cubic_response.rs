//! CUBIC against its response function (RFC 9438 section 5.1): one flow on a 100 ms path
//! with Bernoulli loss p has an average window of
//! `W = (C (3 + beta) / (4 (1 - beta)))^(1/4) RTT^(3/4) / p^(3/4)` packets in the cubic
//! region, and `sqrt(3 / (2 p))` (Reno's, which CUBIC's Reno-friendly region matches) where
//! that is larger. The model assumes one loss per cycle and no timeouts; the test asks for
//! agreement within 20% at a point of each region. The full curve is in docs/validation.md.

mod common;

use aqmlab_core::{run, Scenario};
use common::validation;

const C: f64 = 0.4;
const BETA: f64 = 0.7;

fn response_function(p: f64, rtt: f64) -> f64 {
    let cubic =
        (C * (3.0 + BETA) / (4.0 * (1.0 - BETA))).powf(0.25) * rtt.powf(0.75) / p.powf(0.75);
    let reno_friendly = (3.0 / (2.0 * p)).sqrt();
    cubic.max(reno_friendly)
}

/// Mean cwnd (packets) of one CUBIC flow with SACK recovery under Bernoulli data loss `p`,
/// sampled every 10 ms after the warm-up.
pub fn mean_window(p: f64, duration_s: f64) -> f64 {
    mean_window_with(p, duration_s, "")
}

/// [`mean_window`] with `extra` lines in the `[tcp]` table.
pub fn mean_window_with(p: f64, duration_s: f64, extra: &str) -> f64 {
    let s = Scenario::from_toml(&validation::cubic_response(p, duration_s, extra)).unwrap();
    let r = run(&s, 1).unwrap();
    let ts = &r.timeseries;
    let warm = duration_s / 5.0;
    let cwnd: Vec<f64> = (0..ts.time_s.len())
        .filter(|&i| {
            ts.source_name(i) == "flow0" && ts.variable_name(i) == "cwnd" && ts.time_s[i] >= warm
        })
        .map(|i| ts.value[i])
        .collect();
    assert!(cwnd.len() > 100);
    // The model has no timeouts; at most a few percent of the loss events may end in one.
    let f = &r.flows[0];
    let losses = (f.packets_sent as f64 * p).max(1.0);
    assert!(
        (f.timeouts as f64) < 0.03 * losses,
        "{} timeouts for about {losses:.0} losses",
        f.timeouts
    );
    cwnd.iter().sum::<f64>() / cwnd.len() as f64
}

/// Ten minutes under loss `p` give a mean window within 20% of the response function's.
fn assert_follows_response_function(p: f64) {
    let (sim, model) = (mean_window(p, 600.0), response_function(p, 0.1));
    assert!(
        (sim / model - 1.0).abs() < 0.2,
        "p {p}: simulated {sim:.1}, model {model:.1}"
    );
}

#[test]
fn mean_window_follows_the_response_function_in_the_cubic_region() {
    // p = 1e-4: the cubic term (187 packets) dominates Reno's (122).
    assert_follows_response_function(1e-4);
}

#[test]
fn mean_window_follows_the_response_function_in_the_reno_friendly_region() {
    // p = 1e-2: Reno's term (12.2 packets) dominates the cubic one (5.9).
    assert_follows_response_function(1e-2);
}

/// The curve of docs/validation.md: `cargo test -p aqmlab-core --release --test
/// cubic_response -- --ignored --nocapture` (about a minute).
#[test]
#[ignore]
fn full_curve() {
    println!("| p | simulated mean cwnd | RFC 9438 response | ratio |");
    println!("|---|---|---|---|");
    for p in [1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2] {
        let duration = if p < 5e-5 { 3000.0 } else { 600.0 };
        let (sim, model) = (mean_window(p, duration), response_function(p, 0.1));
        println!("| {p:e} | {sim:.1} | {model:.1} | {:.3} |", sim / model);
    }
}

/// The same curve with the `linux` profile's congestion control (`validation::LINUX_CUBIC`), for the
/// labelled rows of docs/validation.md: `cargo test -p aqmlab-core --release --test
/// cubic_response -- --ignored --nocapture full_curve_linux`.
#[test]
#[ignore]
fn full_curve_linux_cubic() {
    println!("| p | simulated mean cwnd (linux CUBIC) | RFC 9438 response | ratio |");
    println!("|---|---|---|---|");
    for p in [1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2] {
        let duration = if p < 5e-5 { 3000.0 } else { 600.0 };
        let sim = mean_window_with(p, duration, validation::LINUX_CUBIC);
        let model = response_function(p, 0.1);
        println!("| {p:e} | {sim:.1} | {model:.1} | {:.3} |", sim / model);
    }
}
