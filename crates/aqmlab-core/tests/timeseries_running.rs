//! The running summaries in the sampled time series (a monitored link's arrivals, drops,
//! time-average queue and mean sojourn so far; all flows' packets sent and received so far):
//! hand-computed on a constant-rate stream, and equal to the final summary at the last sample.
//! A sample at `t` sees the events at exactly `t` that were scheduled before it (the queue is
//! FIFO among equal times), so the sample times here avoid packet events at whole seconds.

mod common;

use aqmlab_core::{run, Scenario};
use common::{sample_at as at, source_behind_1mbps_bottleneck};

/// src -> router: 100 Mb/s, no delay (1000 B take 80 us); router -> sink: 1 Mb/s (8 ms per
/// packet), DropTail `limit`. One CBR flow of 1000 B packets at `rate`.
fn scenario(rate: &str, limit: u32, duration: &str) -> Scenario {
    source_behind_1mbps_bottleneck(
        &format!(
            r#"
            duration = "{duration}"
            sample_interval = "1s"
            "#
        ),
        "100Mbps",
        limit,
        &format!(
            r#"
            [[flows]]
            kind = "cbr"
            from = "src"
            to = "sink"
            rate = "{rate}"
            packet_size = "1000B"
            "#
        ),
    )
}

#[test]
fn running_summaries_of_an_uncongested_constant_rate_stream() {
    // 0.5 Mb/s: packet k leaves the source at 16k ms, reaches the router 0.08 ms later, waits
    // for nothing, and its last bit leaves the bottleneck at 16k + 8.08 ms.
    let r = run(&scenario("0.5Mbps", 50, "3s"), 1).unwrap();
    for t in [1.0f64, 3.0] {
        let ms = t * 1000.0;
        // arrivals at the router by t: 16k + 0.08 <= t  ->  k = 0 .. floor((t - 0.08) / 16)
        let arrived = ((ms - 0.08) / 16.0).floor() + 1.0;
        // transmissions finished by t: 16k + 8.08 <= t
        let done = ((ms - 8.08) / 16.0).floor() + 1.0;
        // sent by the source by t: 16k <= t
        let sent = (ms / 16.0).floor() + 1.0;
        assert_eq!(at(&r, "bottleneck", "arrivals", t), arrived, "t = {t}");
        assert_eq!(at(&r, "bottleneck", "drops", t), 0.0);
        assert_eq!(
            at(&r, "bottleneck", "mean_queue_packets", t),
            0.0,
            "nothing ever waits"
        );
        assert!(
            (at(&r, "bottleneck", "mean_delay_ms", t) - 8.0).abs() < 1e-9,
            "sojourn = transmission = 8 ms"
        );
        assert_eq!(at(&r, "flows", "packets_sent", t), sent, "t = {t}");
        assert_eq!(at(&r, "flows", "packets_received", t), done, "t = {t}");
    }
    // t = 1 s by hand: arrivals k = 0..62 (63), finished k = 0..61 (62), sent k = 0..62 (63).
    assert_eq!(at(&r, "bottleneck", "arrivals", 1.0), 63.0);
    assert_eq!(at(&r, "flows", "packets_received", 1.0), 62.0);
    assert_eq!(at(&r, "flows", "packets_sent", 1.0), 63.0);
    // t = 3 s: arrivals k <= 187 (188), finished k <= 186 (187).
    assert_eq!(at(&r, "bottleneck", "arrivals", 3.0), 188.0);
    assert_eq!(at(&r, "flows", "packets_received", 3.0), 187.0);
}

#[test]
fn last_sample_equals_the_final_summary_under_overload() {
    // 2.1 Mb/s into 1 Mb/s with room for 5: about half the packets are dropped. (2.1 Mb/s and
    // 9 s: no packet is sent at exactly the end, where the last sample would precede it.)
    let r = run(&scenario("2.1Mbps", 5, "9s"), 1).unwrap();
    let q = r.queue("bottleneck").unwrap();
    assert!(q.drops > 500, "overloaded: {} drops", q.drops);
    let end = 9.0;
    assert_eq!(at(&r, "bottleneck", "drops", end), q.drops as f64);
    assert_eq!(at(&r, "bottleneck", "arrivals", end), q.arrivals as f64);
    assert!((at(&r, "bottleneck", "mean_queue_packets", end) - q.mean_queue_packets).abs() < 1e-9);
    assert!((at(&r, "bottleneck", "mean_delay_ms", end) - q.mean_delay_ms).abs() < 1e-9);
    let sent: u64 = r.flows.iter().map(|f| f.packets_sent).sum();
    let recv: u64 = r.flows.iter().map(|f| f.packets_received).sum();
    assert_eq!(at(&r, "flows", "packets_sent", end), sent as f64);
    assert_eq!(at(&r, "flows", "packets_received", end), recv as f64);
    // Cumulative counters never decrease.
    let mut last = -1.0;
    for t in 0..=9 {
        let d = at(&r, "bottleneck", "drops", t as f64);
        assert!(d >= last);
        last = d;
    }
}
