//! `[[events]]` (issue 27, item 2): a rate step halves what the bottleneck delivers, an
//! outage delivers nothing and the flows recover, flows start and stop when told, an AQM
//! parameter change shows in its drops, a mahimahi trace gives its rate; packets are
//! conserved across every change, and random events never break a run.

mod common;

use aqmlab_core::testing::{Dumbbell, TCP_TO_RECEIVERS};
use aqmlab_core::{run, RunResult, Scenario};
use common::sample_at as at;
use proptest::prelude::*;

const DEFAULT_DUMBBELL: &str =
    include_str!("../../../python/aqmlab/scenarios/default_dumbbell.toml");

/// The packaged default dumbbell (20 NewReno flows, 10 Mb/s bottleneck, 100-packet
/// DropTail) run for `duration`, sampled every second, with `extra` appended.
fn default_dumbbell(duration: &str, extra: &str) -> Scenario {
    let text = DEFAULT_DUMBBELL
        .replace("duration = \"60s\"", &format!("duration = \"{duration}\""))
        .replace("seed = 1\n", "seed = 1\nsample_interval = \"1s\"\n");
    assert!(text.contains(duration) && text.contains("sample_interval"));
    Scenario::from_toml(&format!("{text}\n{extra}")).unwrap()
}

/// Data packets the receivers got per second between samples `t0` and `t1`.
fn delivered_per_s(r: &RunResult, t0: f64, t1: f64) -> f64 {
    (at(r, "flows", "packets_received", t1) - at(r, "flows", "packets_received", t0)) / (t1 - t0)
}

/// Every queue conserves packets: arrivals (and the backlog at the start) are departures,
/// drops and the backlog at the end.
fn assert_conserved(r: &RunResult) {
    assert!(r.conserved);
    for q in &r.queues {
        assert_eq!(
            q.arrivals + q.backlog_at_start,
            q.departures + q.drops + q.backlog_at_end,
            "queue {}",
            q.name
        );
    }
}

#[test]
fn a_rate_step_from_10_to_5_mbps_halves_the_delivered_rate() {
    let s = default_dumbbell(
        "100s",
        r#"
        [[events]]
        at = "50s"
        link = "bottleneck"
        rate = "5Mbps"
        "#,
    );
    let r = run(&s, 1).unwrap();
    // 1000-byte data packets (plus 40 bytes of headers, ns-2 style): what 10 Mb/s carries.
    let before = delivered_per_s(&r, 20.0, 50.0);
    let after = delivered_per_s(&r, 55.0, 100.0);
    let ratio = after / before;
    eprintln!("delivered before {before:.1} pkt/s, after {after:.1} pkt/s, ratio {ratio:.4}");
    assert!((ratio - 0.5).abs() < 0.02, "ratio {ratio}");
    assert_conserved(&r);
    // The bottleneck's utilization over the window stays a fraction of its busy time
    // across the step (the carried bits are rescaled with the rate).
    let q = r.queue("bottleneck").unwrap();
    assert!(
        q.utilization > 0.95 && q.utilization <= 1.0,
        "{}",
        q.utilization
    );
}

#[test]
fn a_link_down_delivers_nothing_and_the_flows_recover() {
    let s = default_dumbbell(
        "60s",
        r#"
        [[events]]
        at = "20s"
        link = "bottleneck"
        state = "down"

        [[events]]
        at = "25s"
        link = "bottleneck"
        state = "up"
        "#,
    );
    let r = run(&s, 1).unwrap();
    // The packet in service and those on the wire (20 ms) arrive after 20 s; nothing more.
    assert_eq!(delivered_per_s(&r, 21.0, 25.0), 0.0);
    let before = delivered_per_s(&r, 12.0, 20.0);
    let recovered = delivered_per_s(&r, 35.0, 60.0);
    eprintln!("before {before:.1} pkt/s, after recovery {recovered:.1} pkt/s");
    assert!(recovered > 0.95 * before, "{recovered} vs {before}");
    let q = r.queue("bottleneck").unwrap();
    assert!(q.down_drops.unwrap() > 0);
    assert_conserved(&r);
}

#[test]
fn flows_start_and_stop_when_events_say() {
    let base = r#"
        [[flows]]
        kind = "tcp"
        group = "crowd"
        from = "s0"
        to = "d0"
        count = 10
        start = "59s"
        "#;
    let with =
        |events: &str| run(&default_dumbbell("60s", &format!("{base}\n{events}")), 1).unwrap();
    let sent = |r: &RunResult, group: &str| -> u64 {
        r.flows
            .iter()
            .filter(|f| f.group == group)
            .map(|f| f.packets_sent)
            .sum()
    };
    let alone = with("");
    let crowd = with(
        r#"
        [[events]]
        at = "30s"
        start_flows = "crowd"
        "#,
    );
    // Started at 30 s instead of 59 s: the crowd sends for 30 s rather than 1.
    assert!(sent(&crowd, "crowd") > 10 * sent(&alone, "crowd"));
    // And takes its share of the bottleneck from the 20 flows already there.
    assert!(sent(&crowd, "flows[0]") < sent(&alone, "flows[0]"));
    // Stopped at 30 s: nothing sent in the window after 31 s (what was sent is counted from
    // the warm-up's end, here moved to 31 s).
    let stopped = run(
        &default_dumbbell(
            "60s",
            r#"
            [[events]]
            at = "30s"
            stop_flows = "flows[0]"
            "#,
        )
        .with_warmup("31s"),
        1,
    )
    .unwrap();
    assert_eq!(sent(&stopped, "flows[0]"), 0);
    assert_conserved(&stopped);
}

/// A scenario with another warm-up.
trait WithWarmup {
    fn with_warmup(self, w: &str) -> Scenario;
}

impl WithWarmup for Scenario {
    fn with_warmup(mut self, w: &str) -> Scenario {
        self.warmup = aqmlab_core::units::parse_duration(w)
            .map(aqmlab_core::units::Duration)
            .unwrap();
        self
    }
}

/// RED's max_p raised mid-run: RED reports the new max_p from the event on, and its queue
/// falls. (Its early drops do not rise with 20 TCP flows: the flows' loss rate is set by what
/// they need to share the link, and a steeper curve gives it at a shorter queue; measured
/// over the 30 s after 30 s, 2197 early drops without the change and 1943 with it (the
/// average reset, as Linux's red_change), mean queue 19.1 -> 9.4 packets.)
#[test]
fn raising_red_max_p_shortens_its_queue() {
    let red = |events: &str| {
        let mut s = default_dumbbell("60s", events).with_warmup("30s");
        if let aqmlab_core::scenario::schema::Topology::Dumbbell(d) = &mut s.topology {
            d.bottleneck.queue.aqm = serde_json::json!({"kind": "red", "max_p": 0.02});
        }
        run(&s, 1).unwrap()
    };
    let plain = red("");
    let stepped = red(r#"
        [[events]]
        at = "30s"
        queue = "bottleneck"
        set = { max_p = 0.5 }
        "#);
    let (a, b) = (
        plain.queue("bottleneck").unwrap(),
        stepped.queue("bottleneck").unwrap(),
    );
    eprintln!(
        "early drops {} -> {}, mean queue {:.1} -> {:.1}",
        a.early_drops, b.early_drops, a.mean_queue_packets, b.mean_queue_packets
    );
    assert!(b.mean_queue_packets < 0.7 * a.mean_queue_packets);
    // RED reports the max_p it uses: the event's from 30 s on.
    assert_eq!(at(&stepped, "bottleneck", "max_p", 29.0), 0.02);
    assert_eq!(at(&stepped, "bottleneck", "max_p", 31.0), 0.5);
    // As Linux's red_change, the average starts again from 0 (the sample at 30 s follows the
    // event at 30 s); with aqm_state = "keep" it carries on.
    assert!(at(&stepped, "bottleneck", "avg_packets", 29.0) > 1.0);
    assert_eq!(at(&stepped, "bottleneck", "avg_packets", 30.0), 0.0);
    let kept = red(r#"
        [[events]]
        at = "30s"
        queue = "bottleneck"
        set = { max_p = 0.5 }
        aqm_state = "keep"
        "#);
    assert!(at(&kept, "bottleneck", "avg_packets", 30.0) > 1.0);
    assert_eq!(at(&kept, "bottleneck", "max_p", 31.0), 0.5);
    assert_conserved(&stepped);
}

#[test]
fn aqm_changes_are_checked_like_the_scenario() {
    let build = |aqm: &str, set: &str| {
        let mut s = default_dumbbell(
            "60s",
            &format!("[[events]]\nat = \"30s\"\nqueue = \"bottleneck\"\nset = {set}\n"),
        );
        if let aqmlab_core::scenario::schema::Topology::Dumbbell(d) = &mut s.topology {
            d.bottleneck.queue.aqm = serde_json::json!(aqm);
        }
        run(&s, 1).map(drop).unwrap_err().to_string()
    };
    let e = build("red", "{ max_pp = 0.2 }");
    assert!(
        e.contains("events[0].set.max_pp") && e.contains("`max_p`"),
        "{e}"
    );
    let e = build("red", "{ max_p = 2.0 }");
    assert!(e.starts_with("events[0].set.max_p"), "{e}");
    let e = build("fq_codel", "{ target = \"1ms\" }");
    assert!(
        e.starts_with("events[0].queue: the parameters of 'fq_codel' cannot change"),
        "{e}"
    );
    let e = run(
        &default_dumbbell(
            "60s",
            "[[events]]\nat = \"1s\"\nlink = \"botleneck\"\nrate = \"1Mbps\"\n",
        ),
        1,
    )
    .map(drop)
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("events[0].link: unknown link 'botleneck'") && e.contains("`bottleneck`"),
        "{e}"
    );
}

/// A constant trace of `n` opportunities per millisecond carries n x 12 Mb/s.
#[test]
fn a_mahimahi_trace_of_n_opportunities_per_ms_gives_n_times_12_mbps() {
    let dir = std::env::temp_dir().join(format!("aqmlab-events-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for n in [1usize, 2] {
        let file = dir.join(format!("const{n}.mahimahi"));
        std::fs::write(&file, "1\n".repeat(n)).unwrap();
        let rest = format!(
            r#"
            [[flows]]
            kind = "cbr"
            from = "s0"
            to = "d0"
            rate = "40Mbps"
            packet_size = "1000B"
            [[events]]
            at = "0s"
            link = "bottleneck"
            rate = {{ trace = "{}" }}
            "#,
            file.display()
        );
        let s = Dumbbell {
            duration: "20s",
            head: r#"warmup = "2s""#,
            senders: 1,
            bottleneck: r#"rate = "100Mbps", delay = "5ms", queue = { limit = 100 }"#,
            access: r#"rate = "1Gbps""#,
            rest: &rest,
        }
        .scenario();
        let r = run(&s, 1).unwrap();
        let q = r.queue("bottleneck").unwrap();
        let expect = n as f64 * 12e6;
        eprintln!("trace {n}/ms: throughput {} b/s", q.throughput_bps);
        assert!(
            (q.throughput_bps / expect - 1.0).abs() < 0.001,
            "{}",
            q.throughput_bps
        );
        assert_conserved(&r);
    }
}

/// Same scenario and seed, same result, events and all.
#[test]
fn events_are_deterministic() {
    let s = default_dumbbell(
        "30s",
        r#"
        [[events]]
        at = "12s"
        link = "bottleneck"
        rate = "3Mbps"
        direction = "both"
        [[events]]
        at = "15s"
        link = "bottleneck"
        delay = "5ms"
        loss = 0.01
        "#,
    );
    let (a, b) = (run(&s, 3).unwrap(), run(&s, 3).unwrap());
    assert_eq!(a.queues, b.queues);
    let bits =
        |r: &RunResult| -> Vec<u64> { r.timeseries.value.iter().map(|v| v.to_bits()).collect() };
    assert_eq!(bits(&a), bits(&b));
}

fn random_event() -> impl Strategy<Value = String> {
    let at = 0u32..4000;
    let link = prop_oneof![
        Just("bottleneck"),
        Just("bottleneck_reverse"),
        Just("s0->r0"),
        Just("r1->d1")
    ];
    let what = prop_oneof![
        (1u32..200).prop_map(|m| format!("rate = \"{}kbps\"", m * 100)),
        (0u32..100).prop_map(|d| format!("delay = \"{d}ms\"")),
        (0u32..30).prop_map(|p| format!("loss = {}", p as f64 / 100.0)),
        Just("state = \"down\"".to_string()),
        Just("state = \"up\"".to_string()),
        Just("rate = { trace = \"TRACE\" }".to_string()),
    ];
    let dir = prop_oneof![
        Just(""),
        Just("direction = \"both\""),
        Just("direction = \"reverse\"")
    ];
    (at, link, what, dir).prop_map(|(at, link, what, dir)| {
        format!("[[events]]\nat = \"{at}ms\"\nlink = \"{link}\"\n{what}\n{dir}\n")
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random link events on a small dumbbell: the run finishes (no invariant fails, no
    /// panic) and every queue conserves packets.
    #[test]
    fn random_events_conserve_packets(events in proptest::collection::vec(random_event(), 0..8)) {
        let dir = std::env::temp_dir().join(format!("aqmlab-events-prop-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let trace = dir.join("t.mahimahi");
        std::fs::write(&trace, "1\n1\n3\n7\n7\n7\n10\n").unwrap();
        let events = events.join("\n").replace("TRACE", &trace.display().to_string());
        let rest = format!(
            r#"{TCP_TO_RECEIVERS}
            [[flows]]
            kind = "cbr"
            from = "d1"
            to = "s1"
            rate = "1Mbps"
            {events}
            "#
        );
        let s = Dumbbell {
            duration: "4s",
            head: r#"warmup = "1s""#,
            bottleneck: r#"rate = "5Mbps", delay = "10ms", queue = { limit = 20, aqm = "red" }"#,
            access: r#"rate = "50Mbps", delay = "1ms""#,
            rest: &rest,
            ..Default::default()
        }
        .scenario();
        let r = run(&s, 7).unwrap();
        prop_assert!(r.conserved);
        for q in &r.queues {
            prop_assert_eq!(
                q.arrivals + q.backlog_at_start,
                q.departures + q.drops + q.backlog_at_end
            );
        }
    }
}

/// PIE's target lowered mid-run from 15 ms to 5 ms: the queueing delay of the packets
/// after the change follows the new target.
#[test]
fn lowering_pie_target_lowers_the_delay() {
    let pie = |events: &str| {
        let mut s = default_dumbbell("60s", events).with_warmup("35s");
        if let aqmlab_core::scenario::schema::Topology::Dumbbell(d) = &mut s.topology {
            d.bottleneck.queue.aqm = serde_json::json!({"kind": "pie", "target": "15ms"});
            d.bottleneck.queue.limit = aqmlab_core::scenario::schema::LimitSpec::Packets(1000);
        }
        run(&s, 1).unwrap()
    };
    let plain = pie("");
    let lowered =
        pie("[[events]]\nat = \"30s\"\nqueue = \"bottleneck\"\nset = { target = \"5ms\" }\n");
    let (a, b) = (
        plain.queue("bottleneck").unwrap(),
        lowered.queue("bottleneck").unwrap(),
    );
    eprintln!(
        "PIE mean delay {:.1} ms -> {:.1} ms",
        a.mean_delay_ms, b.mean_delay_ms
    );
    assert!(a.mean_delay_ms > 10.0 && b.mean_delay_ms < 10.0);
    assert_conserved(&lowered);
}
