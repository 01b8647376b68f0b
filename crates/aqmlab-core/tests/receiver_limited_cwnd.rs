//! A flow held back by the receiver's window keeps its cwnd under the `linux` profile (issue
//! 37, item 4): Linux's CUBIC grows only while `tcp_is_cwnd_limited` (include/net/tcp.h, with
//! `tcp_cwnd_validate`, net/ipv4/tcp_output.c), the profile's `grow_only_when_cwnd_limited`.
//!
//! By hand: one flow, a receiver's window of 20 packets, a 100 Mb/s path with a 1,000-packet
//! buffer (no loss, no queue to speak of: 20 packets per 40 ms round trip is 5 Mb/s). The
//! initial ssthresh is the window (aqmlab's convention, `ssthresh_init`), so slow start takes
//! cwnd from 10 to min(cwnd + acked, ssthresh) = 20 (`tcp_slow_start`). With cwnd 20 the 20
//! packets out fill it: cwnd-limited, and congestion avoidance adds one in the next round
//! trip: 21. From then on at most 20 packets are out, below cwnd 21: `tcp_cwnd_validate`
//! records not cwnd-limited, and `tcp_is_cwnd_limited` allows no growth outside slow start;
//! cwnd stays 21. RFC 5681's growth (the option off) adds to cwnd on every ACK for the whole
//! run, CUBIC's growth with time never checked against use: 354 packets at 10 s, and on.

use aqmlab_core::run;
use aqmlab_core::testing::{Dumbbell, TCP_TO_RECEIVERS};

fn max_cwnd(extra: &str) -> f64 {
    let rest = format!("[tcp]\nprofile = \"linux\"\nwindow = 20\n{extra}\n{TCP_TO_RECEIVERS}");
    let d = Dumbbell {
        duration: "10s",
        head: "sample_interval = \"10ms\"\nsample_flows = true",
        senders: 1,
        bottleneck: r#"rate = "100Mbps", delay = "10ms", queue = { limit = 1000 }"#,
        access: r#"rate = "1Gbps", delay = "5ms""#,
        rest: &rest,
    };
    let r = run(&d.scenario(), 1).unwrap();
    let ts = &r.timeseries;
    (0..ts.time_s.len())
        .filter(|&i| ts.source_name(i) == "flow0" && ts.variable_name(i) == "cwnd")
        .map(|i| ts.value[i])
        .fold(0.0, f64::max)
}

#[test]
fn a_receiver_limited_linux_flow_keeps_its_cwnd() {
    let linux = max_cwnd("");
    assert_eq!(linux, 21.0);
    let rfc5681 = max_cwnd("grow_only_when_cwnd_limited = false");
    assert!(rfc5681 > 300.0, "max cwnd {rfc5681}");
}
