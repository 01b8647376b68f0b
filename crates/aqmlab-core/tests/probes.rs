//! Issue 35: what a probe's numbers mean. Class P, one `loss_rate` for every flow kind (the
//! packets the flow's sender sent that were dropped, over those it sent: a ping's requests,
//! not the echo's replies); and the friction that every run with a ping reported a lost ping
//! (a request sent at the instant the run ends, which could not have been answered).

use aqmlab_core::testing::Dumbbell;
use aqmlab_core::{run, RunResult, Scenario};

fn dumbbell(bottleneck: &str, flows: &str) -> Scenario {
    Dumbbell {
        duration: "60s",
        bottleneck: &format!(
            r#"rate = "10Mbps", delay = "10ms", {bottleneck} queue = {{ limit = 100, aqm = "droptail" }}"#
        ),
        rest: &format!("[tcp]\nvariant = \"sack\"\n{flows}"),
        ..Default::default()
    }
    .scenario()
}

const PING: &str = r#"
    [[flows]]
    kind = "ping"
    group = "ping"
    from = "s0"
    to = "d0"
    "#;

fn lost(r: &RunResult, group: &str) -> (u64, u64) {
    let s = r.latency_summary.iter().find(|s| s.group == group).unwrap();
    (s.samples, s.lost)
}

/// Every reply lost on the reverse direction: the ping's own loss rate (its requests) is 0,
/// where it was 0.993 (299 replies dropped over 301 requests); the round trips are all lost.
/// Every request lost on the forward direction: a loss rate of 1.
#[test]
fn a_pings_loss_rate_is_of_its_requests() {
    let r = run(
        &dumbbell("loss = 1.0, loss_direction = \"reverse\",", PING),
        1,
    )
    .unwrap();
    let f = &r.flows[0];
    assert_eq!(f.kind, "ping");
    assert_eq!(
        f.packets_sent, 301,
        "a request every 200 ms, at 0 s to 60 s"
    );
    // The last, sent as the run ends, is on its way: neither delivered nor lost.
    assert_eq!(
        f.packets_received, 300,
        "every other request reached the echo"
    );
    assert_eq!(f.loss_rate, 0.0);
    assert_eq!(f.drops, 300, "the replies, dropped on the way back");
    assert_eq!(lost(&r, "ping"), (0, 300));

    let r = run(&dumbbell("loss = 1.0,", PING), 1).unwrap();
    assert_eq!(r.flows[0].loss_rate, 300.0 / 301.0);
    assert_eq!(lost(&r, "ping"), (0, 300));
}

/// The same definition for TCP (data, not ACKs: unchanged) and for each tcp_rr flow: a 5 %
/// loss on the reverse direction only drops ACKs of the bulk flow and the tcp_rr flow whose
/// data go forward, and the data of the response flow, whose data go the other way.
#[test]
fn loss_rate_counts_the_senders_packets_for_every_kind() {
    let flows = r#"
        [[flows]]
        kind = "tcp"
        from = "s0"
        to = "d0"
        [[flows]]
        kind = "tcp_rr"
        group = "rr"
        from = "s1"
        to = "d1"
        "#;
    let r = run(
        &dumbbell("loss = 0.05, loss_direction = \"reverse\",", flows),
        1,
    )
    .unwrap();
    let (bulk, requests, responses) = (&r.flows[0], &r.flows[1], &r.flows[2]);
    assert!(bulk.drops > 0 && requests.drops > 0, "ACKs were dropped");
    assert_eq!(bulk.loss_rate, 0.0, "ACK drops are not the flow's loss");
    assert_eq!(requests.loss_rate, 0.0);
    assert!(
        (responses.loss_rate - 0.05).abs() < 0.02,
        "responses cross the lossy direction: {}",
        responses.loss_rate
    );
    for f in &r.flows {
        assert!(f.loss_rate * f.packets_sent as f64 <= f.drops as f64 + 1e-9);
    }
}

/// On an idle path no ping is lost: the request sent at the instant the run ends (60 s) has
/// not been answered, and could not have been, and is no longer counted as lost (it was, in
/// every run with a ping). Nor is a tcp_rr's transaction under way at the end.
#[test]
fn requests_still_on_their_way_at_the_end_are_not_lost() {
    let flows = format!(
        r#"{PING}
        [[flows]]
        kind = "tcp_rr"
        group = "rr"
        from = "s1"
        to = "d1"
        "#
    );
    let r = run(&dumbbell("", &flows), 1).unwrap();
    let (samples, lost_pings) = lost(&r, "ping");
    assert_eq!(r.flows[0].packets_sent, 301);
    assert_eq!(samples, 300, "the last request was sent as the run ended");
    assert_eq!(lost_pings, 0);
    assert_eq!(lost(&r, "rr").1, 0);
}

/// Behind a full buffer, pings are lost to drops and counted exactly: lost requests plus
/// answered ones plus those on their way at the end make up what was sent.
#[test]
fn lost_pings_are_the_dropped_ones() {
    let flows = format!(
        r#"{PING}
        interval = "10ms"
        [[flows]]
        kind = "cbr"
        from = "s1"
        to = "d1"
        rate = "12Mbps"
        "#
    );
    let r = run(&dumbbell("", &flows), 1).unwrap();
    let (samples, lost_pings) = lost(&r, "ping");
    let f = &r.flows[0];
    assert!(lost_pings > 0, "an overloaded DropTail drops some pings");
    assert_eq!(
        lost_pings, f.drops,
        "no warm-up: the flow's drops are the run's"
    );
    let in_flight = f.packets_sent - samples - lost_pings;
    // At most a round trip of requests (with a full 100-packet buffer, ~100 ms) at 10 ms.
    assert!(in_flight <= 12, "{in_flight} on their way at the end");
    assert!(f.loss_rate > 0.0 && f.loss_rate <= 1.0);
}
