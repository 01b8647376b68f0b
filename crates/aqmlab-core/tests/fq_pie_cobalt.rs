//! FQ-PIE and COBALT end to end (issue 28), each against an unresponsive flow on a 10 Mb/s,
//! 20 ms dumbbell (100 Mb/s, 1 ms access links), SACK TCP, 30 s with a 10 s warm-up.
//!
//! - FQ-PIE: four TCP flows beside one 6 Mb/s CBR flow (fair share 2 Mb/s each). Flow
//!   queueing keeps the TCP flows' share (Jain index over them, each near 2 Mb/s, the CBR flow
//!   held to about its share) and each flow's PIE holds that flow's queue delay near its
//!   15 ms target; the single-queue PIE in the same place lets the CBR flow take ~6 Mb/s.
//! - COBALT: two TCP flows beside one 15 Mb/s CBR flow (150 % of the link): CoDel alone
//!   cannot drop fast enough (its rate grows only with sqrt(count)) and the buffer fills;
//!   COBALT's BLUE, raised by the overflows, takes over and holds the queue near target.
//!
//! The numbers are in docs/validation.md ("FQ-PIE", "COBALT").

mod common;

use aqmlab_core::{run, RunResult, Scenario};
use common::validation;

fn dumbbell(aqm: &str, senders: u32, tcp: &str, cbr_rate: &str) -> Scenario {
    let toml = validation::unresponsive(aqm, senders, tcp, cbr_rate);
    Scenario::from_toml(&format!("name = \"unresponsive\"\n{toml}")).unwrap()
}

fn run_once(name: &str, s: &Scenario) -> RunResult {
    let r = run(s, 1).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(r.conserved, "{name}: packets not conserved");
    let q = r.queue("bottleneck").unwrap();
    eprintln!(
        "{name}: util {:.4} delay {:.1} ms (p99 {:.1}) early {} forced {}",
        q.utilization, q.mean_delay_ms, q.p99_delay_ms, q.early_drops, q.forced_drops
    );
    for f in &r.flows {
        eprintln!(
            "  {} {:.3} Mb/s, one-way delay {:.2} ms",
            f.kind,
            f.goodput_bps / 1e6,
            f.mean_delay_ms
        );
    }
    r
}

/// One-way delay without queueing of a packet of `bytes` on the dumbbell: 1 + 20 + 1 ms of
/// propagation and its transmission on the 100, 10 and 100 Mb/s links.
fn base_delay_ms(bytes: f64) -> f64 {
    22.0 + bytes * 8.0 * (1.0 / 100e6 + 1.0 / 10e6 + 1.0 / 100e6) * 1e3
}

const FOUR_TCP: &str = r#"["s0", "s1", "s2", "s3"]"#;

#[test]
fn fq_pie_keeps_the_tcp_share_and_each_flows_delay_near_target() {
    let r = run_once("fq_pie", &dumbbell(r#""fq_pie""#, 5, FOUR_TCP, "6Mbps"));
    let q = r.queue("bottleneck").unwrap();
    assert!(q.utilization > 0.98, "utilization {}", q.utilization);
    assert!(r.jain_index_tcp > 0.95, "TCP Jain {}", r.jain_index_tcp);
    for f in &r.flows {
        let mbps = f.goodput_bps / 1e6;
        // TCP data packets are 1040 B, the CBR's 1000 B.
        let (bytes, lo, hi) = if f.kind == "cbr" {
            (1000.0, 1.6, 2.4)
        } else {
            (1040.0, 1.6, 2.4)
        };
        assert!((lo..hi).contains(&mbps), "{} at {mbps} Mb/s", f.kind);
        let qdelay = f.mean_delay_ms - base_delay_ms(bytes);
        assert!(
            (10.0..25.0).contains(&qdelay),
            "{}: queue delay {qdelay:.2} ms, target 15 ms",
            f.kind
        );
    }
    // The same place without flow queueing: the CBR flow takes most of the link.
    let r = run_once("pie", &dumbbell(r#""pie""#, 5, FOUR_TCP, "6Mbps"));
    let cbr = r.flows.iter().find(|f| f.kind == "cbr").unwrap();
    assert!(cbr.goodput_bps > 5e6, "pie: cbr {}", cbr.goodput_bps);
}

#[test]
fn cobalt_holds_the_queue_against_an_unresponsive_overload_where_codel_does_not() {
    let tcp = r#"["s0", "s1"]"#;
    let cobalt = run_once("cobalt", &dumbbell(r#""cobalt""#, 3, tcp, "15Mbps"));
    let codel = run_once("codel", &dumbbell(r#""codel""#, 3, tcp, "15Mbps"));
    let (qc, qd) = (
        cobalt.queue("bottleneck").unwrap(),
        codel.queue("bottleneck").unwrap(),
    );
    assert!(qc.utilization > 0.98 && qd.utilization > 0.98);
    // CoDel alone: the buffer overflows and the delay stays hundreds of ms.
    assert!(qd.forced_drops > 0, "codel never overflowed");
    assert!(qd.mean_delay_ms > 200.0, "codel delay {}", qd.mean_delay_ms);
    // COBALT: BLUE's drops at dequeue keep the queue near the 5 ms target, without overflow
    // in the measurement window.
    assert!(qc.mean_delay_ms < 10.0, "cobalt delay {}", qc.mean_delay_ms);
    assert!(qc.p99_delay_ms < 20.0, "cobalt p99 {}", qc.p99_delay_ms);
    assert_eq!(qc.forced_drops, 0);
}
