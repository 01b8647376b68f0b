//! HyStart++ (RFC 9406) on a path where slow start overshoots: one flow through a 10 Mb/s,
//! 100 ms bottleneck with a DropTail buffer of 1000 packets. The path holds about 120 + 1000
//! packets; slow start without HyStart++ doubles past that and loses hundreds of packets in
//! one window. With HyStart++ the queueing delay of a round sends the flow into Conservative
//! Slow Start, and after CSS_ROUNDS rounds into congestion avoidance with ssthresh = cwnd,
//! before the buffer fills: the first 10 s see no loss at all.

use aqmlab_core::testing::{Dumbbell, TCP_TO_RECEIVERS};
use aqmlab_core::{run, Scenario};

fn scenario(hystart: bool) -> Scenario {
    Scenario::from_toml(
        &Dumbbell {
            duration: "10s",
            head: r#"sample_interval = "10ms""#,
            senders: 1,
            bottleneck: r#"rate = "10Mbps", delay = "50ms", queue = { limit = 1000 }"#,
            access: r#"rate = "100Mbps", delay = "1ms", queue = { limit = 10000 }"#,
            rest: &format!(
                r#"
                [tcp]
                recovery = "rfc6675"
                window = 100000
                window_init = 10
                hystart = {{ enabled = {hystart} }}
                {TCP_TO_RECEIVERS}
                "#
            ),
        }
        .toml(),
    )
    .unwrap()
}

/// (time, value) of one variable of flow 0's time series.
fn series(r: &aqmlab_core::RunResult, variable: &str) -> Vec<(f64, f64)> {
    let ts = &r.timeseries;
    (0..ts.time_s.len())
        .filter(|&i| ts.source_name(i) == "flow0" && ts.variable_name(i) == variable)
        .map(|i| (ts.time_s[i], ts.value[i]))
        .collect()
}

#[test]
fn without_hystart_slow_start_overshoots_into_loss() {
    let r = run(&scenario(false), 1).unwrap();
    let f = &r.flows[0];
    assert!(f.fast_recoveries >= 1);
    assert!(
        f.retransmissions > 100,
        "{} retransmissions",
        f.retransmissions
    );
}

#[test]
fn hystart_leaves_slow_start_through_css_before_the_buffer_fills() {
    let r = run(&scenario(true), 1).unwrap();
    let f = &r.flows[0];
    assert_eq!(
        (f.fast_recoveries, f.timeouts, f.retransmissions),
        (0, 0, 0),
        "no loss"
    );
    let phase = series(&r, "hystart_phase");
    let first = |v: f64| phase.iter().find(|p| p.1 == v).map(|p| p.0);
    let (css, over) = (first(1.0).unwrap(), first(2.0).unwrap());
    assert!(css < over, "slow start -> CSS ({css} s) -> over ({over} s)");
    // Leaving CSS set ssthresh to the window of that moment: a finite ssthresh without any
    // loss, below the 1120 packets the path holds.
    let ssthresh = series(&r, "ssthresh");
    let after = ssthresh.iter().find(|p| p.0 >= over).unwrap().1;
    let cwnd_at_exit = series(&r, "cwnd").iter().find(|p| p.0 >= over).unwrap().1;
    assert_eq!(after, cwnd_at_exit.floor());
    assert!(after < 1120.0, "ssthresh {after}");
    assert!(ssthresh
        .iter()
        .filter(|p| p.0 < over)
        .all(|p| p.1 == 100_000.0));
}
