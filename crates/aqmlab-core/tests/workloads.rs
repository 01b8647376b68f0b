//! Workloads, flow completion times and latency probes (issue 27, item 3).

use aqmlab_core::{run, RunResult, Scenario};

/// A dumbbell of 10 senders through a `rate`, 10 ms bottleneck holding `limit` packets
/// under `aqm`, 1 Gb/s access links of 1 ms; `flows` is the `[[flows]]` text.
fn dumbbell(duration: &str, rate: &str, limit: u32, aqm: &str, flows: &str) -> Scenario {
    Scenario::from_toml(&format!(
        r#"
        duration = "{duration}"
        [topology]
        kind = "dumbbell"
        senders = 10
        bottleneck = {{ rate = "{rate}", delay = "10ms", queue = {{ limit = {limit}, aqm = "{aqm}" }} }}
        access = {{ rate = "1Gbps", delay = "1ms" }}
        [tcp]
        variant = "sack"
        window = 1000
        {flows}
        "#
    ))
    .unwrap()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    assert!(n > 0);
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// 10,000 Pareto transfers at 40 % load: the sizes drawn average the distribution's mean,
/// every transfer completes, and each completed row is consistent with the flow table.
/// Shape 2.5: a Pareto with finite variance (shape > 2), so the mean of 10,000 draws has a
/// standard deviation of 0.89 % (sd/mean = 1/sqrt(shape (shape - 2))) and 5 % is 5.6 sd;
/// at shape <= 2 the sample mean converges too slowly for any such bound.
#[test]
fn ten_thousand_pareto_transfers_deliver_the_distributions_mean() {
    let s = dumbbell(
        "200s",
        "100Mbps",
        200,
        "droptail",
        r#"
        [[flows]]
        kind = "workload"
        from = "senders"
        to = "receivers"
        load = 0.4
        flows = 10000
        sizes = { dist = "pareto", shape = 2.5, mean = "20KB" }
        "#,
    );
    let t0 = std::time::Instant::now();
    let r = run(&s, 1).unwrap();
    eprintln!(
        "10,000 transfers: {:.2} s wall, {} events, peak RSS {:?}",
        t0.elapsed().as_secs_f64(),
        r.events,
        r.peak_rss_bytes
    );
    assert_eq!(r.fct.len(), 10_000);
    assert_eq!(r.flows.len(), 10_000);
    let done: Vec<_> = r.fct.iter().filter(|f| f.completed).collect();
    assert_eq!(
        done.len(),
        10_000,
        "every transfer completes in 200 s at 40 % load"
    );
    let mean = done.iter().map(|f| f.size_bytes as f64).sum::<f64>() / done.len() as f64;
    assert!(
        (mean / 20_000.0 - 1.0).abs() < 0.05,
        "mean delivered size {mean} vs 20000"
    );
    for f in &r.fct {
        let row = &r.flows[f.flow as usize];
        // Whole packets of 1000 payload bytes carry the transfer.
        assert!(row.packets_received * 1000 >= f.size_bytes);
        assert!((row.completion_time_s - f.fct_s).abs() < 1e-12);
        assert!(
            f.slowdown >= 1.0 - 1e-9,
            "slower than an empty network: {f:?}"
        );
    }
    let all = r.fct_summary.iter().find(|b| b.bin == "all").unwrap();
    assert_eq!((all.started, all.completed), (10_000, 10_000));
    let binned: u64 = r
        .fct_summary
        .iter()
        .filter(|b| b.bin != "all")
        .map(|b| b.started)
        .sum();
    assert_eq!(binned, 10_000);
    // Same seed, same arrivals and sizes.
    let again = run(&s, 1).unwrap();
    assert_eq!(again.fct, r.fct);
}

/// Web-search transfers beside long-lived bulk flows that keep the buffer full: a short
/// flow's median FCT is lower under FQ-CoDel than under DropTail, whose 1000-packet buffer
/// the bulk flows fill (about 800 ms of queue at 10 Mb/s) and whose queue every short
/// flow waits behind.
#[test]
fn short_flows_finish_sooner_under_fq_codel_than_droptail() {
    let flows = r#"
        [[flows]]
        kind = "tcp"
        from = ["s0", "s1"]
        to = ["d0", "d1"]
        [[flows]]
        kind = "workload"
        group = "web"
        from = ["s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9"]
        to = ["d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9"]
        start = "5s"
        rate = 5
        sizes = { dist = "cdf", name = "websearch" }
        max_size = "1MB"
        "#;
    let short_median = |aqm: &str| -> (f64, usize) {
        let r = run(&dumbbell("60s", "10Mbps", 1000, aqm, flows), 3).unwrap();
        let short: Vec<f64> = r
            .fct
            .iter()
            .filter(|f| f.completed && f.size_bytes <= 100_000)
            .map(|f| f.fct_s)
            .collect();
        (median(short.clone()), short.len())
    };
    let (droptail, n_dt) = short_median("droptail");
    let (fq_codel, n_fq) = short_median("fq_codel");
    eprintln!("short-flow median FCT: droptail {droptail:.3} s ({n_dt}), fq_codel {fq_codel:.3} s ({n_fq})");
    assert!(n_dt > 50 && n_fq > 50);
    assert!(fq_codel < droptail, "{fq_codel} vs {droptail}");
}

/// A ping's RTT under load rises by about the queueing delay: with two bulk flows holding a
/// DropTail buffer of 100 packets of 1040 B at 10 Mb/s nearly full, a ping waits up to
/// 100 x 0.832 ms = 83 ms behind it. Idle, the ping's RTT is the path's: 2 x (1 + 10 + 1) ms
/// of propagation plus the transmission of its 84 B on each hop.
#[test]
fn ping_rtt_rises_by_the_queueing_delay_under_load() {
    let ping = r#"
        [[flows]]
        kind = "ping"
        group = "ping"
        from = "s9"
        to = "d9"
        "#;
    let idle = run(&dumbbell("20s", "10Mbps", 100, "droptail", ping), 1).unwrap();
    let bulk = format!(
        r#"{ping}
        [[flows]]
        kind = "tcp"
        from = ["s0", "s1"]
        to = ["d0", "d1"]
        "#
    );
    let loaded = run(&dumbbell("20s", "10Mbps", 100, "droptail", &bulk), 1).unwrap();
    let p50 = |r: &RunResult| {
        let s = r
            .latency_summary
            .iter()
            .find(|s| s.group == "ping")
            .unwrap();
        (s.rtt_p50_ms, s.samples)
    };
    let (idle_ms, n) = p50(&idle);
    // 20 s at one request per 200 ms: 100 requests, the last reply back before the end.
    assert_eq!(n, 100);
    let propagation_ms = 2.0 * 12.0;
    let tx_ms = 2.0 * 84.0 * 8.0 * (2.0 / 1e6 + 1.0 / 1e4);
    assert!((idle_ms - propagation_ms - tx_ms).abs() < 1e-3, "{idle_ms}");
    let (loaded_ms, _) = p50(&loaded);
    let queue_ms = 100.0 * 1040.0 * 8.0 / 1e7 * 1e3;
    let rise = loaded_ms - idle_ms;
    eprintln!("ping p50: idle {idle_ms:.2} ms, loaded {loaded_ms:.2} ms, rise {rise:.2} ms, full buffer {queue_ms:.2} ms");
    // The median queue of two Reno-style flows sawing in a full buffer: between half and
    // all of it.
    assert!(
        rise > 0.5 * queue_ms && rise < 1.05 * queue_ms,
        "{rise} vs {queue_ms}"
    );
}

/// A tcp_rr probe: idle, a transaction takes the path's round trip plus one request and one
/// response packet's transmission on each hop (whole packets of `tcp.packet_size`, ns-2's
/// fixed-size segments), plus at most the few tens of microseconds the request's ACK, sent
/// just before the response on the same links, holds it up. Behind two bulk flows in a
/// full DropTail buffer it rises by about the queueing delay, like the ping.
#[test]
fn tcp_rr_transactions_time_the_round_trip_and_queue() {
    let rr = r#"
        [[flows]]
        kind = "tcp_rr"
        group = "rr"
        from = "s9"
        to = "d9"
        "#;
    let idle = run(&dumbbell("20s", "10Mbps", 100, "droptail", rr), 1).unwrap();
    let s = idle
        .latency_summary
        .iter()
        .find(|s| s.group == "rr")
        .unwrap();
    let tx_ms = 2.0 * 1040.0 * 8.0 * (2.0 / 1e9 + 1.0 / 1e7) * 1e3;
    let expected_ms = 24.0 + tx_ms;
    assert!(
        s.rtt_p50_ms >= expected_ms - 1e-6 && s.rtt_p50_ms < expected_ms + 0.1,
        "{} vs {expected_ms}",
        s.rtt_p50_ms
    );
    // Back to back: 20 s of transactions of about 25.7 ms each.
    assert!(
        (s.samples as f64 - 20_000.0 / s.rtt_mean_ms).abs() <= 1.0,
        "{}",
        s.samples
    );
    // Two flows per probe, requests and responses, in the flow table.
    assert_eq!(idle.flows.len(), 2);
    let bulk = format!(
        r#"{rr}
        [[flows]]
        kind = "tcp"
        from = ["s0", "s1"]
        to = ["d0", "d1"]
        "#
    );
    let loaded = run(&dumbbell("20s", "10Mbps", 100, "droptail", &bulk), 1).unwrap();
    let l = loaded
        .latency_summary
        .iter()
        .find(|s| s.group == "rr")
        .unwrap();
    let rise = l.rtt_p50_ms - s.rtt_p50_ms;
    let queue_ms = 100.0 * 1040.0 * 8.0 / 1e7 * 1e3;
    eprintln!(
        "tcp_rr p50: idle {:.3} ms, loaded {:.3} ms ({} samples)",
        s.rtt_p50_ms, l.rtt_p50_ms, l.samples
    );
    assert!(
        rise > 0.5 * queue_ms && rise < 1.05 * queue_ms,
        "{rise} vs {queue_ms}"
    );
}
