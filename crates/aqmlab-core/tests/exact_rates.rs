//! Issue 24, item 13 ("silent wrong rates at high speed"): a packet's time on the wire and a
//! CBR source's gap were rounded up to whole nanoseconds, so a 6 Gb/s CBR of 1-byte packets
//! (4/3 ns apart) sent every 2 ns, 4 Gb/s, and its link reported a utilization of 0.999 (of a
//! 6 Gb/s link) or 0.50 (of a 1 Tb/s link, where it carried 0.004 of the rate). Time is now
//! kept exact (`sim::time::RateClock`) and utilization counts the bits carried.

use aqmlab_core::{run, RunResult, Scenario};

/// A CBR of `size`-byte packets at `cbr` from "src" to "sink" over one link of `link` (the
/// monitored "wire", 1 us), 1 ms with a 0.1 ms warm-up.
fn cbr_over_one_link(cbr: &str, size: u32, link: &str) -> RunResult {
    let s = Scenario::from_toml(&format!(
        r#"
        duration = "1ms"
        warmup = "100us"
        [topology]
        kind = "graph"
        nodes = ["src", "sink"]
        [[topology.links]]
        from = "src"
        to = "sink"
        rate = "{link}"
        delay = "1us"
        name = "wire"
        monitor = true
        queue = {{ limit = 100000 }}
        [[flows]]
        kind = "cbr"
        from = "src"
        to = "sink"
        rate = "{cbr}"
        packet_size = {size}
        "#
    ))
    .unwrap();
    run(&s, 1).unwrap()
}

fn close(got: f64, want: f64, rel: f64) -> bool {
    (got - want).abs() <= rel * want
}

#[test]
fn a_6_gbps_cbr_of_1_byte_packets_sends_6_gbps_and_its_link_says_so() {
    for (link, link_bps) in [("6Gbps", 6e9), ("1000Gbps", 1e12)] {
        let r = cbr_over_one_link("6Gbps", 1, link);
        let q = r.queue("wire").unwrap();
        let f = &r.flows[0];
        // 0.9 ms at 6 Gb/s: 675,000 one-byte packets (the queue holds a few at most); the
        // flow's count misses those of the last microsecond, still on the wire (0.11 %).
        assert!(
            close(f.throughput_bps, 6e9, 2e-3),
            "{link}: flow {}",
            f.throughput_bps
        );
        assert!(
            close(q.throughput_bps, 6e9, 1e-4),
            "{link}: link {}",
            q.throughput_bps
        );
        assert!(
            close(q.utilization, 6e9 / link_bps, 1e-4),
            "{link}: utilization {} for {} b/s carried",
            q.utilization,
            q.throughput_bps
        );
        assert_eq!(q.drops, 0);
    }
}

#[test]
fn utilization_is_the_bits_carried_over_the_rate() {
    // Rates that divide nothing evenly: 1,000-byte packets at 7 Gb/s on a 9 Gb/s link.
    let r = cbr_over_one_link("7Gbps", 1000, "9Gbps");
    let q = r.queue("wire").unwrap();
    assert!(close(q.throughput_bps, 7e9, 1e-3), "{}", q.throughput_bps);
    assert!(
        close(q.utilization * 9e9, q.throughput_bps, 1e-9),
        "utilization {} x rate vs {} carried",
        q.utilization,
        q.throughput_bps
    );
}

#[test]
fn a_link_never_sends_faster_than_its_rate() {
    // Offered 8 Gb/s of 1-byte packets to a 6 Gb/s link: it carries 6 Gb/s, not more, the
    // queue grows by the difference and overflows.
    let r = cbr_over_one_link("8Gbps", 1, "6Gbps");
    let q = r.queue("wire").unwrap();
    assert!(
        q.throughput_bps <= 6e9 * (1.0 + 1e-9),
        "{}",
        q.throughput_bps
    );
    assert!(close(q.throughput_bps, 6e9, 1e-4), "{}", q.throughput_bps);
    assert!(
        q.utilization <= 1.0 && q.utilization > 0.9999,
        "{}",
        q.utilization
    );
    assert!(q.drops > 0);
}
