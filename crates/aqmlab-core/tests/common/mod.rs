//! What several integration tests share: their test networks (scenario templates with the
//! values each test varies as arguments), the traffic they put on them, running a scenario to
//! its bottleneck's row, and building a queue for its parameter errors. `mod common;` in a
//! test file; each file uses only part of it.
#![allow(dead_code)]

use aqmlab_core::aqm::params::QueueEnv;
use aqmlab_core::aqm::registry::build_queue;
use aqmlab_core::aqm::QueueLimit;
use aqmlab_core::metrics::queue_stats::QueueSummary;
use aqmlab_core::testing::Dumbbell;
use aqmlab_core::{run, RunResult, Scenario};

pub mod validation;

/// The AQM tests' network: 50 senders through a 10 Mb/s, 5 ms bottleneck holding `limit`
/// packets under `aqm` (a TOML value), 100 Mb/s access links of `access_delay` (a TOML value:
/// one delay or a list cycled over the hosts), TCP `variant` with a 64-packet window; 30 s
/// with a 10 s warm-up. `flows` is the `[[flows]]` text.
pub fn aqm_dumbbell(
    aqm: &str,
    limit: u32,
    access_delay: &str,
    variant: &str,
    flows: &str,
) -> Scenario {
    Dumbbell {
        duration: "30s",
        head: r#"warmup = "10s""#,
        senders: 50,
        bottleneck: &format!(
            r#"rate = "10Mbps", delay = "5ms", queue = {{ limit = {limit}, aqm = {aqm} }}"#
        ),
        access: &format!(r#"rate = "100Mbps", delay = {access_delay}"#),
        rest: &format!("[tcp]\nvariant = \"{variant}\"\nwindow = 64\n{flows}"),
    }
    .scenario()
}

/// One source behind a 1 Mb/s DropTail bottleneck: src -> router at `access_rate` (a buffer
/// that never drops), router -> sink the monitored link "bottleneck" holding `limit` packets,
/// no propagation delay. `head` goes before the topology (duration, warm-up, sampling),
/// `flows` (from "src" to "sink") after it.
pub fn source_behind_1mbps_bottleneck(
    head: &str,
    access_rate: &str,
    limit: u32,
    flows: &str,
) -> Scenario {
    Scenario::from_toml(&format!(
        r#"
        {head}
        [topology]
        kind = "graph"
        nodes = ["src", "router", "sink"]
        [[topology.links]]
        from = "src"
        to = "router"
        rate = "{access_rate}"
        queue = {{ limit = 100000 }}
        [[topology.links]]
        from = "router"
        to = "sink"
        rate = "1Mbps"
        name = "bottleneck"
        monitor = true
        queue = {{ limit = {limit}, aqm = "droptail" }}
        {flows}
        "#
    ))
    .unwrap()
}

/// Runs `s` with seed 1 and returns the bottleneck's row, after checking that packets were
/// conserved; prints the row's main figures under `name`.
pub fn bottleneck_row(name: &str, s: &Scenario) -> QueueSummary {
    let r = run(s, 1).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(r.conserved, "{name}: packets not conserved");
    let q = r.queue("bottleneck").unwrap().clone();
    eprintln!(
        "{name:>10}: queue {:6.2} pkts, delay {:6.2} ms (p99 {:6.2}), util {:.4}, loss {:.4}, early {} forced {} marks {}",
        q.mean_queue_packets,
        q.mean_delay_ms,
        q.p99_delay_ms,
        q.utilization,
        q.loss_rate,
        q.early_drops,
        q.forced_drops,
        q.marks
    );
    q
}

/// The value of `source`.`variable` in `r`'s time series at `t` seconds; panics if it has no
/// such sample.
pub fn sample_at(r: &RunResult, source: &str, variable: &str, t: f64) -> f64 {
    let ts = &r.timeseries;
    (0..ts.len())
        .find(|&i| {
            ts.source_name(i) == source
                && ts.variable_name(i) == variable
                && (ts.time_s[i] - t).abs() < 1e-9
        })
        .map(|i| ts.value[i])
        .unwrap_or_else(|| panic!("no sample of {source}.{variable} at {t} s"))
}

/// The link the AQM tests build queues for outside a scenario: 10 Mb/s, 5 ms, 100 packets.
pub fn aqm_env() -> QueueEnv {
    QueueEnv {
        link_rate_bps: 10_000_000,
        link_delay: 5_000_000,
        limit: QueueLimit::Packets(100),
    }
}

/// The field path of the error building the queue `aqm` (at "q.aqm") gives; panics if it
/// builds.
pub fn error_path(aqm: &serde_json::Value) -> String {
    match build_queue(aqm, &aqm_env(), None, "q.aqm") {
        Ok(_) => panic!("{aqm} must be rejected"),
        Err(e) => {
            eprintln!("{aqm}: {e}");
            e.path
        }
    }
}
