//! TCP end to end on a dumbbell: link utilization with one BDP of buffer, fairness among
//! equal-RTT flows, the Padhye et al. Reno throughput model under Bernoulli loss, ECN
//! through RED, determinism and packet conservation.

use aqmlab_core::testing::{Dumbbell, TCP_TO_RECEIVERS};
use aqmlab_core::{run, RunResult, Scenario};

/// Payload bits of one data packet (1000 B; 1040 B on the wire).
const PAYLOAD_BITS: f64 = 8000.0;

// Eight knobs read better at the call sites than a builder for six tests.
#[allow(clippy::too_many_arguments)]
fn dumbbell(
    n: u32,
    variant: &str,
    bottleneck_delay_ms: u32,
    queue: &str,
    tcp_extra: &str,
    duration_s: u32,
    warmup_s: u32,
    start: &str,
) -> Scenario {
    Dumbbell {
        duration: &format!("{duration_s}s"),
        head: &format!("warmup = \"{warmup_s}s\""),
        senders: n,
        bottleneck: &format!(
            r#"rate = "10Mbps", delay = "{bottleneck_delay_ms}ms", queue = {queue}"#
        ),
        rest: &format!(
            "[tcp]\nvariant = \"{variant}\"\n{tcp_extra}\n{TCP_TO_RECEIVERS}start = {start}\n"
        ),
        ..Dumbbell::default()
    }
    .scenario()
}

fn report(label: &str, r: &RunResult) {
    let q = r.queue("bottleneck").unwrap();
    let total: f64 = r.flows.iter().map(|f| f.goodput_bps).sum();
    eprintln!(
        "{label}: util {:.4} goodput {:.0} kb/s jain {:.4} drops {} (early {} forced {}) \
         marks {} mean q {:.1} timeouts {} fr {} ecn {}",
        q.utilization,
        total / 1e3,
        r.jain_index,
        q.drops,
        q.early_drops,
        q.forced_drops,
        q.marks,
        q.mean_queue_packets,
        r.flows.iter().map(|f| f.timeouts).sum::<u64>(),
        r.flows.iter().map(|f| f.fast_recoveries).sum::<u64>(),
        r.flows.iter().map(|f| f.ecn_reductions).sum::<u64>(),
    );
}

#[test]
fn one_flow_keeps_the_bottleneck_busy_with_one_bdp_of_buffer() {
    // RTT = 2 * (1 + 5 + 1) ms + serialization (0.83 ms at 10 Mb/s, 2 * 0.08 ms on the
    // access links, ACKs ~0.04 ms) = 15.0 ms; one BDP = 15.0 / 0.832 = 18 packets.
    // The window cap (64) exceeds BDP + buffer (36), so the flow must lose packets and
    // recover; halving a window of ~37 leaves ~18 = BDP in flight, which keeps the link busy.
    for variant in ["reno", "newreno", "sack"] {
        let s = dumbbell(
            1,
            variant,
            5,
            r#"{ limit = 18, aqm = "droptail" }"#,
            "window = 64",
            100,
            10,
            r#""0s""#,
        );
        let r = run(&s, 1).unwrap();
        report(variant, &r);
        assert!(r.conserved);
        let q = r.queue("bottleneck").unwrap();
        assert!(
            q.drops > 0,
            "{variant}: the window must reach the buffer limit"
        );
        assert!(
            r.flows[0].fast_recoveries > 0,
            "{variant}: losses are repaired by fast recovery"
        );
        assert!(
            q.utilization > 0.99,
            "{variant}: utilization {}",
            q.utilization
        );
        // Goodput at most the payload share of the link (9615 kb/s), and close to it.
        let g = r.flows[0].goodput_bps;
        assert!(
            g <= 10e6 * 1000.0 / 1040.0 * 1.001 && g > 0.98 * 9.615e6,
            "goodput {g}"
        );
    }
}

#[test]
fn equal_rtt_flows_share_the_bottleneck_fairly() {
    // RTT ~ 2 * (1 + 20 + 1) ms + 1 ms = 45 ms, BDP ~ 54 packets. The buffer holds one BDP
    // plus two packets per flow, so that even with 100 flows each has a window of a few
    // packets (otherwise timeouts, not TCP's AIMD, decide the shares). Starts are spread
    // over the first second; runs are long so that the shares converge.
    //
    // The window cap is set out of reach (1000). With a binding cap (64) and DropTail, a flow
    // that reached the cap in slow start sends exactly one packet per ACK and, at equal
    // RTTs in a deterministic simulation, its packets always find the slot its previous
    // packet freed: only the second packet of other flows' window increases is dropped, and
    // the capped flow keeps ~half the link forever (measured Jain 0.30 for N = 10). That is
    // the DropTail phase effect of Floyd and Jacobson (1992), which ns-2 shows too, not a
    // property of TCP's AIMD that this test is about.
    for n in [2u32, 10, 50, 100] {
        let limit = 54 + 2 * n;
        let s = dumbbell(
            n,
            "reno",
            20,
            &format!(r#"{{ limit = {limit}, aqm = "droptail" }}"#),
            "window = 1000",
            300,
            50,
            r#"{ uniform = ["0s", "1s"] }"#,
        );
        let r = run(&s, 3).unwrap();
        report(&format!("N={n}"), &r);
        assert!(r.conserved);
        assert_eq!(r.flows.len(), n as usize);
        assert!(r.jain_index > 0.9, "N={n}: Jain {}", r.jain_index);
        let q = r.queue("bottleneck").unwrap();
        assert!(q.utilization > 0.95, "N={n}: utilization {}", q.utilization);
    }
}

/// Padhye, Firoiu, Towsley, Kurose (1998), the full model (eqs. 31-32): send rate in
/// packets per second of a Reno flow with loss probability p, round-trip time `rtt`, first
/// timeout `t0`, `b` packets per ACK and window cap `wmax`.
fn padhye_full(p: f64, rtt: f64, t0: f64, b: f64, wmax: f64) -> f64 {
    let q = |w: f64| -> f64 {
        let a = (1.0 - p).powi(3);
        let num = (1.0 - a) * (1.0 + a * (1.0 - (1.0 - p).powf(w - 3.0)));
        let den = 1.0 - (1.0 - p).powf(w);
        (num / den).min(1.0)
    };
    let f = 1.0
        + p
        + 2.0 * p.powi(2)
        + 4.0 * p.powi(3)
        + 8.0 * p.powi(4)
        + 16.0 * p.powi(5)
        + 32.0 * p.powi(6);
    let c = (2.0 + b) / (3.0 * b);
    let ew = c + (8.0 * (1.0 - p) / (3.0 * b * p) + c * c).sqrt();
    if ew < wmax {
        ((1.0 - p) / p + ew + q(ew) / (1.0 - p))
            / (rtt * (b / 2.0 * ew + 1.0) + q(ew) * t0 * f / (1.0 - p))
    } else {
        ((1.0 - p) / p + wmax + q(wmax) / (1.0 - p))
            / (rtt * (b / 8.0 * wmax + (1.0 - p) / (p * wmax) + 2.0) + q(wmax) * t0 * f / (1.0 - p))
    }
}

#[test]
fn reno_under_bernoulli_loss_matches_padhye() {
    // A 1 Gb/s path with 50 ms each way: the RTT is fixed at 100 ms (plus 17 us of
    // serialization), the queue never builds, and only the forward link loses packets.
    // Window cap 1000 packets: never binding. T0 = 0.2 s: with a constant RTT of 10 ticks,
    // srtt + 4 rttvar is ~0.13 s, below min_rto.
    let rtt = 0.100_017;
    let t0 = 0.2;
    for (p, duration) in [(0.001, 4000u32), (0.01, 2000), (0.05, 2000)] {
        let s = Scenario::from_toml(&format!(
            r#"
            duration = "{duration}s"
            warmup = "20s"
            [topology]
            kind = "graph"
            nodes = ["src", "dst"]
            [[topology.links]]
            from = "src"
            to = "dst"
            rate = "1Gbps"
            delay = "50ms"
            loss = {p}
            duplex = false
            queue = {{ limit = 10000 }}
            [[topology.links]]
            from = "dst"
            to = "src"
            rate = "1Gbps"
            delay = "50ms"
            duplex = false
            queue = {{ limit = 10000 }}
            [tcp]
            variant = "reno"
            window = 1000
            [[flows]]
            kind = "tcp"
            from = "src"
            to = "dst"
            "#
        ))
        .unwrap();
        let r = run(&s, 11).unwrap();
        assert!(r.conserved);
        let f = &r.flows[0];
        let span = duration as f64 - 20.0;
        let measured = f.packets_sent as f64 / span;
        let model = padhye_full(p, rtt, t0, 1.0, 1000.0);
        let ratio = measured / model;
        eprintln!(
            "p={p}: measured {measured:.1} pkt/s, Padhye {model:.1} pkt/s, ratio {ratio:.3}, \
             loss {:.4}, timeouts {}, fast recoveries {}, goodput {:.1} pkt/s",
            f.loss_rate,
            f.timeouts,
            f.fast_recoveries,
            f.goodput_bps / PAYLOAD_BITS
        );
        // Measured (seed 11): ratio 1.008 at p = 0.001, 0.907 at 0.01, 0.828 at 0.05. The
        // model assumes that once a packet is lost the rest of its round is lost too (one
        // loss event per window); Bernoulli losses are independent, so at larger p a window
        // more often loses two packets, which Reno repairs only by a timeout: measured
        // throughput falls below the model as p grows. 25% covers that bias with margin
        // while still catching a wrong window rule (a missing halving or inflation moves
        // the rate by a factor ~sqrt(2) or more).
        assert!(
            (ratio - 1.0).abs() < 0.25,
            "p={p}: measured {measured:.1} vs model {model:.1}"
        );
    }
}

#[test]
fn ecn_through_red_marks_instead_of_dropping() {
    // RED thresholds well above the operating point of 10 ECN flows: marking alone must
    // hold the average below max_th, so RED never drops (it drops ECT packets only when
    // p_b >= mark_p = max_p, i.e. avg >= max_th) and the buffer never overflows.
    let red = r#"{ limit = 200, aqm = { kind = "red", min_th = 5, max_th = 40, ecn = true } }"#;
    let droptail = r#"{ limit = 200, aqm = { kind = "red", min_th = 5, max_th = 40 } }"#;
    let start = r#"{ uniform = ["0s", "1s"] }"#;
    let with_ecn = dumbbell(
        10,
        "newreno",
        20,
        red,
        "window = 64\necn = true",
        200,
        20,
        start,
    );
    let without = dumbbell(10, "newreno", 20, droptail, "window = 64", 200, 20, start);
    let a = run(&with_ecn, 5).unwrap();
    let b = run(&without, 5).unwrap();
    report("red+ecn", &a);
    report("red, no ecn", &b);
    assert!(a.conserved && b.conserved);
    let qa = a.queue("bottleneck").unwrap();
    assert!(qa.marks > 0);
    assert_eq!(qa.early_drops, 0, "avg stayed below max_th: no early drops");
    assert_eq!(qa.forced_drops, 0);
    assert!(qa.mean_queue_packets < 40.0);
    assert!(a
        .flows
        .iter()
        .all(|f| f.ecn_reductions > 0 && f.retransmissions == 0));
    let ga: f64 = a.flows.iter().map(|f| f.goodput_bps).sum();
    let gb: f64 = b.flows.iter().map(|f| f.goodput_bps).sum();
    assert!(ga > 0.97 * gb, "ECN goodput {ga} vs drops {gb}");
    // Without ECN the same RED drops instead.
    let qb = b.queue("bottleneck").unwrap();
    assert!(qb.early_drops > 0 && qb.marks == 0);
}

#[test]
fn same_seed_same_flow_table_different_seed_different() {
    let s = dumbbell(
        10,
        "sack",
        5,
        r#"{ limit = 30, aqm = "droptail" }"#,
        "window = 64",
        30,
        5,
        r#"{ uniform = ["0s", "2s"] }"#,
    );
    let a = serde_json::to_string(&run(&s, 7).unwrap().flows).unwrap();
    let b = serde_json::to_string(&run(&s, 7).unwrap().flows).unwrap();
    let c = serde_json::to_string(&run(&s, 8).unwrap().flows).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn finite_transfers_complete_and_packets_are_conserved() {
    let s = Dumbbell {
        duration: "60s",
        senders: 5,
        bottleneck: r#"rate = "10Mbps", delay = "5ms", queue = { limit = 20, aqm = "droptail" }"#,
        rest: r#"
        [tcp]
        variant = "sack"
        window = 64
        [[flows]]
        kind = "tcp"
        from = "senders"
        to = "receivers"
        size = "1MB"
        "#,
        ..Default::default()
    }
    .scenario();
    let r = run(&s, 2).unwrap();
    assert!(r.conserved);
    for f in &r.flows {
        assert!(
            f.completion_time_s > 0.0 && f.completion_time_s < 60.0,
            "{f:?}"
        );
        // 1 MB = 1000 packets of 1000 B, delivered exactly once.
        assert!(
            (f.goodput_bps * r.duration_s / 8.0 - 1e6).abs() < 1.0,
            "{f:?}"
        );
    }
}
