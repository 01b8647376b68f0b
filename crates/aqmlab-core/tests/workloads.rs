//! Workloads, flow completion times and latency probes (issue 27, item 3).

use aqmlab_core::metrics::latency::LatencySummary;
use aqmlab_core::testing::Dumbbell;
use aqmlab_core::{run, RunResult, Scenario};

/// The access links of this file's dumbbells: 1 Gb/s, 1 ms.
const GIGABIT_ACCESS: &str = r#"rate = "1Gbps", delay = "1ms""#;

/// A dumbbell of 10 senders through a `rate`, 10 ms bottleneck holding `limit` packets
/// under `aqm`, 1 Gb/s access links of 1 ms; `flows` is the `[[flows]]` text.
fn dumbbell(duration: &str, rate: &str, limit: u32, aqm: &str, flows: &str) -> Scenario {
    let bottleneck =
        format!(r#"rate = "{rate}", delay = "10ms", queue = {{ limit = {limit}, aqm = "{aqm}" }}"#);
    Dumbbell {
        duration,
        senders: 10,
        bottleneck: &bottleneck,
        access: GIGABIT_ACCESS,
        rest: &format!("[tcp]\nvariant = \"sack\"\nwindow = 1000\n{flows}"),
        ..Default::default()
    }
    .scenario()
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

/// A latency probe of `kind` (its group `group`) from s9 to d9 through a 10 Mb/s DropTail buffer of
/// 100 packets for 20 s, seed 1: idle, and beside two bulk TCP flows (s0, s1).
fn probe_idle_and_loaded(kind: &str, group: &str) -> (RunResult, RunResult) {
    let probe = format!(
        r#"
        [[flows]]
        kind = "{kind}"
        group = "{group}"
        from = "s9"
        to = "d9"
        "#
    );
    let idle = run(&dumbbell("20s", "10Mbps", 100, "droptail", &probe), 1).unwrap();
    let bulk = format!(
        r#"{probe}
        [[flows]]
        kind = "tcp"
        from = ["s0", "s1"]
        to = ["d0", "d1"]
        "#
    );
    let loaded = run(&dumbbell("20s", "10Mbps", 100, "droptail", &bulk), 1).unwrap();
    (idle, loaded)
}

/// The latency summary of `group`.
fn latency<'a>(r: &'a RunResult, group: &str) -> &'a LatencySummary {
    r.latency_summary.iter().find(|s| s.group == group).unwrap()
}

/// A ping's RTT under load rises by about the queueing delay: with two bulk flows holding a
/// DropTail buffer of 100 packets of 1040 B at 10 Mb/s nearly full, a ping waits up to
/// 100 x 0.832 ms = 83 ms behind it. Idle, the ping's RTT is the path's: 2 x (1 + 10 + 1) ms
/// of propagation plus the transmission of its 84 B on each hop.
#[test]
fn ping_rtt_rises_by_the_queueing_delay_under_load() {
    let (idle, loaded) = probe_idle_and_loaded("ping", "ping");
    let p50 = |r: &RunResult| {
        let s = latency(r, "ping");
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
    let (idle, loaded) = probe_idle_and_loaded("tcp_rr", "rr");
    let s = latency(&idle, "rr");
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
    let l = latency(&loaded, "rr");
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

// ---- Issue 35: the workload surface under events, traces and odd distributions. ----

/// A CDF file in the temporary directory, its path.
fn cdf_file(name: &str, text: &str) -> String {
    let p = std::env::temp_dir().join(format!("aqmlab-i35-{}-{name}.txt", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

/// One workload entry from every sender to every receiver, `fields` its own lines.
fn workload(fields: &str) -> String {
    format!(
        r#"
        [[flows]]
        kind = "workload"
        group = "web"
        from = "senders"
        to = "receivers"
        {fields}
        "#
    )
}

/// The error a workload's scenario is refused with.
fn refused(fields: &str) -> aqmlab_core::ScenarioError {
    let text = Dumbbell {
        duration: "10s",
        access: GIGABIT_ACCESS,
        rest: &workload(fields),
        ..Default::default()
    }
    .toml();
    match Scenario::from_toml(&text) {
        Err(e) => e,
        Ok(s) => match run(&s, 1) {
            Err(aqmlab_core::Error::Scenario(e)) => e,
            other => panic!("not refused: {fields}: {:?}", other.map(|r| r.fct.len())),
        },
    }
}

/// Payload bits of the transfers that arrived in [a, b), over b - a and `rate_bps`.
fn offered(r: &RunResult, a: f64, b: f64, rate_bps: f64) -> f64 {
    let bytes: f64 = r
        .fct
        .iter()
        .filter(|f| f.start_s >= a && f.start_s < b)
        .map(|f| f.size_bytes as f64)
        .sum();
    bytes * 8.0 / (b - a) / rate_bps
}

/// A workload of load 0.3 with its sizes from the CDF file `name` holding `cdf`, through a
/// 10 Mb/s FQ-CoDel bottleneck for `duration`, seed 1.
fn run_cdf_at_30_percent(name: &str, cdf: &str, duration: &str) -> RunResult {
    let path = cdf_file(name, cdf);
    let sizes = format!(
        r#"load = 0.3
        sizes = {{ dist = "cdf", file = "{path}" }}"#
    );
    let s = dumbbell(duration, "10Mbps", 1000, "fq_codel", &workload(&sizes));
    run(&s, 1).unwrap()
}

/// A: `10000 0.9` / `20000 1` has mean 0.9 x 10,000 + 0.1 x 15,000 = 10,500 B; read as
/// 1,500 B (the first point's mass left out) `load = 0.3` offered 2.1 times the link.
#[test]
fn an_empirical_cdf_offers_its_load_with_the_first_points_mass() {
    let r = run_cdf_at_30_percent("atom", "10000 0.9\n20000 1\n", "60s");
    // 0.3 x 10 Mb/s / (8 x 10,500 B) = 35.7 arrivals/s: 2,143 in 60 s (sd 46, 2.2 %).
    let n = r.fct.len() as f64;
    assert!((n - 2142.9).abs() < 5.0 * 46.3, "{n} arrivals");
    let load = offered(&r, 0.0, 60.0, 1e7);
    assert!((load / 0.3 - 1.0).abs() < 0.11, "offered {load}");
}

/// A: a one-point CDF is a constant size (it was refused, at a `count` the entry has not).
#[test]
fn a_one_point_cdf_is_a_constant_size() {
    let r = run_cdf_at_30_percent("one", "1000 1\n", "10s");
    assert!(r.fct.iter().all(|f| f.size_bytes == 1000));
    // 0.3 x 10 Mb/s / 8 kbit = 375 arrivals/s: 3,750 in 10 s (sd 61).
    assert!(
        (r.fct.len() as f64 - 3750.0).abs() < 5.0 * 61.2,
        "{}",
        r.fct.len()
    );
    // A point of size 0 carrying mass is a share of empty transfers: refused at the file.
    let zero = cdf_file("zero", "0 0.5\n1000 1\n");
    let e = refused(&format!(
        r#"load = 0.3
        sizes = {{ dist = "cdf", file = "{zero}" }}"#
    ));
    assert_eq!(e.path, "flows[0].sizes.file", "{e}");
    assert!(e.message.contains("line 1"), "{e}");
}

/// A: too many arrivals are refused at the field that sets them, never at `count`.
#[test]
fn too_many_arrivals_are_refused_at_the_workload_field() {
    let sizes = r#"sizes = { dist = "constant", size = "1KB" }"#;
    let e = refused(&format!("rate = 1e9\n{sizes}"));
    assert_eq!(e.path, "flows[0].rate", "{e}");
    let e = refused(&format!("load = 1e6\n{sizes}"));
    assert_eq!(e.path, "flows[0].load", "{e}");
    let e = refused(&format!("rate = 1e9\nflows = 5000000\n{sizes}"));
    assert_eq!(e.path, "flows[0].flows", "{e}");
}

/// B: a size distribution whose mean is infinite, or comes from sizes no run represents,
/// cannot give `load` an arrival rate: refused at the parameter (it ran with no arrivals).
/// With `rate` the same distributions run (their draws are finite).
#[test]
fn load_needs_a_mean_and_is_refused_at_the_parameter_without_one() {
    for (sizes, field) in [
        (
            r#"{ dist = "pareto", shape = 1.0, scale = "1KB" }"#,
            "shape",
        ),
        (
            r#"{ dist = "pareto", shape = 0.9, scale = "1KB" }"#,
            "shape",
        ),
        (
            r#"{ dist = "pareto", shape = 1.05, scale = "1KB" }"#,
            "shape",
        ),
        (
            r#"{ dist = "lognormal", mean = "20KB", sigma = 30 }"#,
            "sigma",
        ),
        (
            r#"{ dist = "lognormal", median = "20KB", sigma = 30 }"#,
            "sigma",
        ),
        (r#"{ dist = "lognormal", mu = 100, sigma = 1 }"#, "mu"),
    ] {
        let e = refused(&format!("load = 0.5\nsizes = {sizes}"));
        assert_eq!(e.path, format!("flows[0].sizes.{field}"), "{sizes}: {e}");
    }
    // A cap gives the Pareto a mean, and `rate` needs none.
    for ok in [
        r#"load = 0.5
           max_size = "1MB"
           sizes = { dist = "pareto", shape = 1.0, scale = "1KB" }"#,
        r#"rate = 10
           sizes = { dist = "pareto", shape = 1.0, scale = "1KB" }"#,
    ] {
        let r = run(
            &dumbbell("10s", "10Mbps", 1000, "fq_codel", &workload(ok)),
            1,
        )
        .unwrap();
        assert!(r.fct.len() > 10, "{ok}: {} arrivals", r.fct.len());
    }
}

/// H: sizes beyond what a run represents (2^53 bytes) are refused at the field that makes
/// them, for every flow kind with a size (they saturated at u64::MAX).
#[test]
fn sizes_a_run_cannot_represent_are_refused_at_their_field() {
    for (fields, path) in [
        (
            r#"rate = 10
            sizes = { dist = "pareto", shape = 0.02, scale = "1KB" }"#,
            "flows[0].sizes.shape",
        ),
        (
            r#"rate = 10
            sizes = { dist = "lognormal", median = "20KB", sigma = 30 }"#,
            "flows[0].sizes.sigma",
        ),
        (
            r#"rate = 10
            sizes = { dist = "constant", size = 10000000000000000 }"#,
            "flows[0].sizes.size",
        ),
        (
            r#"rate = 10
            max_size = 10000000000000000
            sizes = { dist = "pareto", shape = 0.02, scale = "1KB" }"#,
            "flows[0].max_size",
        ),
    ] {
        let e = refused(fields);
        assert_eq!(e.path, path, "{fields}: {e}");
    }
    let huge = cdf_file("huge", "0 0\n1e17 1\n");
    let e = refused(&format!(
        r#"rate = 10
        sizes = {{ dist = "cdf", file = "{huge}" }}"#
    ));
    assert_eq!(e.path, "flows[0].sizes.file", "{e}");
    assert!(e.message.contains("line 2"), "{e}");
    let tcp = Dumbbell {
        duration: "10s",
        senders: 1,
        access: GIGABIT_ACCESS,
        rest: r#"
        [[flows]]
        kind = "tcp"
        from = "s0"
        to = "d0"
        size = 10000000000000000
        "#,
        ..Default::default()
    }
    .toml();
    let tcp = Scenario::from_toml(&tcp).unwrap_err();
    assert_eq!(tcp.path, "flows[0].size", "{tcp}");
    // A heavy tail whose share beyond the limit is negligible runs, with `max_size` clipping.
    let ok = workload(
        r#"rate = 50
           max_size = "100MB"
           sizes = { dist = "pareto", shape = 0.5, scale = "1KB" }"#,
    );
    let r = run(&dumbbell("10s", "10Mbps", 1000, "fq_codel", &ok), 1).unwrap();
    assert!(r.fct.iter().all(|f| f.size_bytes <= 100_000_000));
}

/// C: a bottleneck of 1 Mb/s set to 100 Mb/s at 0 s: the ideal FCT is at 100 Mb/s, so no
/// slowdown is below 1 (they were down to 0.23); and `load = 0.5` offers half of 100 Mb/s.
#[test]
fn an_event_at_0_s_sets_the_rate_the_workload_sees() {
    let flows = format!(
        "{}
        [[events]]
        at = \"0s\"
        link = \"bottleneck\"
        rate = \"100Mbps\"
        direction = \"both\"
        ",
        workload(
            r#"load = 0.5
               sizes = { dist = "constant", size = "20KB" }"#
        )
    );
    let r = run(&dumbbell("10s", "1Mbps", 1000, "droptail", &flows), 1).unwrap();
    let done: Vec<_> = r.fct.iter().filter(|f| f.completed).collect();
    assert!(done.len() > 2000, "{}", done.len());
    let low = done
        .iter()
        .map(|f| f.slowdown)
        .fold(f64::INFINITY, f64::min);
    assert!(low >= 1.0 - 1e-9, "slowdown {low}");
    // 0.5 x 100 Mb/s / 160 kbit = 312.5 arrivals/s: 3,125 in 10 s (sd 56).
    let n = r.fct.len() as f64;
    assert!((n - 3125.0).abs() < 5.0 * 55.9, "{n}");
}

/// C: a rate step mid-run: the arrivals follow the rate in force (load as a share of the
/// capacity at the time), and each transfer's ideal FCT the rates it meets.
#[test]
fn the_offered_load_follows_a_rate_step() {
    let flows = format!(
        "{}
        [[events]]
        at = \"30s\"
        link = \"bottleneck\"
        rate = \"2Mbps\"
        ",
        workload(
            r#"load = 0.5
               sizes = { dist = "constant", size = "10KB" }"#
        )
    );
    let r = run(&dumbbell("60s", "10Mbps", 1000, "droptail", &flows), 2).unwrap();
    // 0.5 x 10 Mb/s / 80 kbit = 62.5/s for 30 s (1,875, sd 43), then 12.5/s (375, sd 19).
    let before = r.fct.iter().filter(|f| f.start_s < 30.0).count() as f64;
    let after = r.fct.len() as f64 - before;
    assert!((before - 1875.0).abs() < 5.0 * 43.3, "{before}");
    assert!((after - 375.0).abs() < 5.0 * 19.4, "{after}");
    assert!((offered(&r, 0.0, 30.0, 1e7) - 0.5).abs() < 0.06);
    assert!((offered(&r, 30.0, 60.0, 2e6) - 0.5).abs() < 0.13);
    let done = r.fct.iter().filter(|f| f.completed);
    assert!(done.clone().all(|f| f.slowdown >= 1.0 - 1e-9));
    // A transfer of 10 packets alone at 2 Mb/s takes at least 10 x 4.16 ms.
    assert!(r
        .fct
        .iter()
        .filter(|f| f.start_s > 30.0)
        .all(|f| f.ideal_fct_s > 0.0416));
}

/// C: on a trace-driven bottleneck `load` is of the trace's mean rate (12 Mb/s for one
/// opportunity per ms) and the ideal FCT gives the transfer the trace's opportunities.
#[test]
fn a_trace_driven_bottleneck_is_loaded_at_its_mean_rate() {
    let trace = cdf_file("trace", "1\n");
    let flows = format!(
        "{}
        [[events]]
        at = \"0s\"
        link = \"bottleneck\"
        rate = {{ trace = \"{trace}\" }}
        ",
        workload(
            r#"load = 0.4
               sizes = { dist = "constant", size = "15KB" }"#
        )
    );
    let r = run(&dumbbell("30s", "1Mbps", 1000, "droptail", &flows), 3).unwrap();
    // 0.4 x 12 Mb/s / 120 kbit = 40/s: 1,200 in 30 s (sd 35).
    let n = r.fct.len() as f64;
    assert!((n - 1200.0).abs() < 5.0 * 34.6, "{n}");
    let done: Vec<_> = r.fct.iter().filter(|f| f.completed).collect();
    assert!(done.len() as f64 > 0.9 * n);
    assert!(done.iter().all(|f| f.slowdown >= 1.0 - 1e-9));
    // 15 packets of 1040 B are 10.4 opportunities: at least 10 ms on the trace.
    assert!(r.fct.iter().all(|f| f.ideal_fct_s > 0.010 + 0.024));
}

/// D: after `stop_flows`, no transfer arrives (those after it were counted with 0 packets
/// sent); the ones running stop. `start_flows` before a workload's own start begins its
/// arrivals then, as a Poisson process (it started every arrival at the event, one burst).
#[test]
fn flow_events_move_a_workloads_arrivals() {
    let web = workload(
        r#"rate = 50
           start = "2s"
           sizes = { dist = "constant", size = "5KB" }"#,
    );
    let stopped = format!("{web}\n[[events]]\nat = \"5s\"\nstop_flows = \"web\"\n");
    let r = run(&dumbbell("10s", "10Mbps", 1000, "fq_codel", &stopped), 1).unwrap();
    assert!(r.fct.iter().all(|f| f.start_s >= 2.0 && f.start_s < 5.0));
    // 50/s for 3 s: 150 (sd 12).
    assert!(
        (r.fct.len() as f64 - 150.0).abs() < 5.0 * 12.3,
        "{}",
        r.fct.len()
    );
    assert!(r.flows.iter().all(|f| f.packets_sent > 0));
    let started = format!("{web}\n[[events]]\nat = \"1s\"\nstart_flows = \"web\"\n");
    let r = run(&dumbbell("10s", "10Mbps", 1000, "fq_codel", &started), 1).unwrap();
    let mut starts: Vec<f64> = r.fct.iter().map(|f| f.start_s).collect();
    starts.sort_by(f64::total_cmp);
    assert!(starts[0] > 1.0);
    starts.dedup();
    assert_eq!(starts.len(), r.fct.len(), "arrivals at one instant");
    // 50/s for 9 s: 450 (sd 21), 50 of them in the first second.
    assert!(
        (r.fct.len() as f64 - 450.0).abs() < 5.0 * 21.2,
        "{}",
        r.fct.len()
    );
    assert!(r.fct.iter().filter(|f| f.start_s < 2.0).count() > 20);
    // The workload's own `stop` ends its arrivals; transfers running then go on.
    let own_stop = workload(
        r#"rate = 20
           stop = "3s"
           sizes = { dist = "constant", size = "200KB" }"#,
    );
    let r = run(&dumbbell("20s", "10Mbps", 1000, "fq_codel", &own_stop), 1).unwrap();
    assert!(r.fct.iter().all(|f| f.start_s < 3.0 && f.completed));
    assert!(r.fct.iter().any(|f| f.start_s + f.fct_s > 3.5));
    // Arrivals meant to begin after the end of the run, with no event to start them sooner.
    let late = refused(
        r#"rate = 5
           start = "20s"
           sizes = { dist = "constant", size = "5KB" }"#,
    );
    assert_eq!(late.path, "flows[0].start", "{late}");
}

/// A rate the bottleneck is set to by a random event: fixed, or a bundled trace (12 Mb/s,
/// or 12 then 6 Mb/s for 10 s each: mean 9).
#[derive(Debug, Clone)]
enum RateChange {
    Fixed(u64),
    Trace(&'static str, u64),
}

fn rate_change() -> impl Strategy<Value = RateChange> {
    prop_oneof![
        4 => (1u64..=60).prop_map(|m| RateChange::Fixed(m * 1_000_000)),
        1 => Just(RateChange::Trace("const_12mbps.mahimahi", 12_000_000)),
        1 => Just(RateChange::Trace("step_12_to_6mbps.mahimahi", 9_000_000)),
    ]
}

fn sizes() -> impl Strategy<Value = String> {
    prop_oneof![
        (1u32..40).prop_map(|k| format!(r#"{{ dist = "constant", size = "{k}KB" }}"#)),
        (11u32..40).prop_map(|s| format!(
            r#"{{ dist = "pareto", shape = {}, mean = "10KB" }}"#,
            s as f64 / 10.0
        )),
        (1u32..20).prop_map(|s| format!(
            r#"{{ dist = "lognormal", median = "5KB", sigma = {} }}"#,
            s as f64 / 10.0
        )),
        Just(r#"{ dist = "cdf", name = "websearch" }"#.to_string()),
    ]
}

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Issue 35, C and D: random workloads (`load` or `rate`, any size distribution, capped)
    /// under random rate and delay events, traces, and flow starts and stops. No completed
    /// transfer is faster than its ideal (slowdown >= 1, to the nanosecond the ideal is
    /// rounded down to), every transfer counted arrived inside the window the events leave
    /// and sent something, and the number of arrivals is the integral of the rate in force
    /// (load x rate in force / (8 x mean size)) within six standard deviations.
    #[test]
    fn workloads_under_events_keep_their_load_and_slowdown(
        base_mbps in 2u64..=40,
        changes in proptest::collection::vec((0u64..10_000, rate_change()), 0..4),
        delay_change in proptest::option::of((0u64..10_000, 1u64..40)),
        load in 1u32..=6,
        per_second in proptest::option::of(5u32..80),
        sizes in sizes(),
        start_ms in 0u64..4000,
        start_event in proptest::option::of(0u64..4000),
        stop_event in proptest::option::of(1000u64..10_000),
        seed in 0u64..1000,
    ) {
        let traces = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/traces");
        let mut events = String::new();
        for (at, c) in &changes {
            let rate = match c {
                RateChange::Fixed(r) => format!("\"{r}bps\""),
                RateChange::Trace(f, _) => format!("{{ trace = \"{traces}/{f}\" }}"),
            };
            events += &format!("[[events]]\nat = \"{at}ms\"\nlink = \"bottleneck\"\nrate = {rate}\n");
        }
        if let Some((at, d)) = delay_change {
            events += &format!("[[events]]\nat = \"{at}ms\"\nlink = \"bottleneck\"\ndelay = \"{d}ms\"\ndirection = \"both\"\n");
        }
        for (at, what) in [(start_event, "start_flows"), (stop_event, "stop_flows")] {
            if let Some(at) = at {
                events += &format!("[[events]]\nat = \"{at}ms\"\n{what} = \"web\"\n");
            }
        }
        let arrival = match per_second {
            Some(r) => format!("rate = {r}"),
            None => format!("load = {}", load as f64 / 10.0),
        };
        let flows = format!(
            "{}\n{events}",
            workload(&format!(
                "{arrival}\nstart = \"{start_ms}ms\"\nmax_size = \"300KB\"\nsizes = {sizes}"
            ))
        );
        let s = dumbbell("10s", &format!("{base_mbps}Mbps"), 200, "fq_codel", &flows);
        let mean = match &s.flows[0] {
            aqmlab_core::scenario::schema::FlowSpec::Workload { workload, .. } => workload.mean_size(),
            _ => unreachable!(),
        };
        let r = run(&s, seed).unwrap();
        prop_assert!(r.conserved);

        // The window of arrivals the events leave, and the rate in force over it.
        let begin = start_event.map_or(start_ms, |e| e.min(start_ms)) as f64 / 1e3;
        let end = stop_event.map_or(10.0, |e| e as f64 / 1e3);
        let mut in_force: Vec<(f64, f64)> = vec![(0.0, (base_mbps * 1_000_000) as f64)];
        let mut sorted = changes.clone();
        sorted.sort_by_key(|c| c.0);
        for (at, c) in &sorted {
            let bps = match c { RateChange::Fixed(r) => *r, RateChange::Trace(_, m) => *m };
            in_force.push((*at as f64 / 1e3, bps as f64));
        }
        let mut expected = 0.0;
        for (i, &(from, bps)) in in_force.iter().enumerate() {
            let to = in_force.get(i + 1).map_or(10.0, |n| n.0);
            let (a, b) = (from.max(begin), to.min(end));
            if b > a {
                let per_s = per_second.map_or(load as f64 / 10.0 * bps / (8.0 * mean), |r| r as f64);
                expected += per_s * (b - a);
            }
        }
        let n = r.fct.len() as f64;
        prop_assert!(
            (n - expected).abs() <= 6.0 * expected.sqrt() + 3.0,
            "{n} arrivals, {expected} expected"
        );
        for f in &r.fct {
            prop_assert!(f.start_s >= begin && f.start_s < end, "{f:?} outside [{begin}, {end})");
            prop_assert!(r.flows[f.flow as usize].packets_sent > 0, "{f:?} sent nothing");
            if f.completed {
                prop_assert!(f.slowdown >= 1.0 - 1e-9, "{f:?}");
            }
        }
    }
}
