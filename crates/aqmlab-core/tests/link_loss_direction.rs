//! `loss_direction` (issue 10, item 12): a link's random loss applies to the forward
//! direction only by default (the data of a dumbbell), to the reverse one (its ACKs), or both.

use aqmlab_core::{run, RunResult, Scenario};

/// One flow over a dumbbell whose bottleneck loses every packet in `direction` (None: the
/// key is left out, i.e. the default).
fn one_flow(kind: &str, direction: Option<&str>) -> RunResult {
    let dir = direction
        .map(|d| format!(", loss_direction = \"{d}\""))
        .unwrap_or_default();
    let flow = if kind == "tcp" {
        "kind = \"tcp\"".to_string()
    } else {
        "kind = \"cbr\"\nrate = \"1Mbps\"\npacket_size = 1000".to_string()
    };
    let s = Scenario::from_toml(&format!(
        r#"
        duration = "2s"
        [topology]
        kind = "dumbbell"
        senders = 1
        bottleneck = {{ rate = "10Mbps", delay = "10ms", loss = 1.0{dir} }}
        access = {{ rate = "100Mbps", delay = "1ms" }}
        [[flows]]
        {flow}
        from = "senders"
        to = "receivers"
        "#
    ))
    .unwrap();
    run(&s, 1).unwrap()
}

#[test]
fn default_and_forward_lose_the_data() {
    for dir in [None, Some("forward")] {
        // CBR at 1 Mb/s of 1000 B packets: one every 8 ms from 0 to 2000 ms, 251 sent. A
        // packet sent at t leaves the bottleneck's transmitter at t + 1.88 ms (80 us + 1 ms
        // access, 0.8 ms bottleneck), so the 250 sent up to 1992 ms are lost there by 2 s.
        let r = one_flow("cbr", dir);
        let f = &r.flows[0];
        assert_eq!((f.packets_sent, f.packets_received), (251, 0), "{dir:?}");
        assert_eq!(r.queue("bottleneck").unwrap().link_losses, 250);
        assert_eq!(
            f.loss_rate,
            250.0 / 251.0,
            "the last one is still in flight"
        );
    }
}

#[test]
fn reverse_loses_only_the_acks() {
    // CBR has no ACKs: everything arrives that can by 2 s: one way takes 12.96 ms (1.08 +
    // 10.8 + 1.08), so the 249 sent up to 1984 ms.
    let r = one_flow("cbr", Some("reverse"));
    let f = &r.flows[0];
    assert_eq!((f.packets_sent, f.packets_received), (251, 249));
    assert_eq!(r.queue("bottleneck").unwrap().link_losses, 0);
    // TCP: the initial window (2 packets) reaches the receiver and is delivered; both ACKs
    // are lost on the way back (the flow's 2 drops, none of them data: loss rate 0), and the
    // initial 3 s retransmission timeout has not fired by 2 s, so nothing else is sent.
    let r = one_flow("tcp", Some("reverse"));
    let f = &r.flows[0];
    assert_eq!(
        (f.packets_sent, f.packets_received, f.drops),
        (2, 2, 2),
        "{f:?}"
    );
    assert_eq!((f.loss_rate, f.timeouts), (0.0, 0), "{f:?}");
    assert_eq!(f.goodput_bps, 2.0 * 1000.0 * 8.0 / 2.0, "{f:?}");
}

#[test]
fn both_lose_data_and_acks() {
    let r = one_flow("cbr", Some("both"));
    assert_eq!(r.flows[0].packets_received, 0);
}

#[test]
fn a_bad_direction_names_the_field() {
    let e = Scenario::from_toml(
        r#"
        duration = "1s"
        [topology]
        kind = "dumbbell"
        senders = 1
        bottleneck = { rate = "10Mbps", loss = 0.1, loss_direction = "sideways" }
        access = { rate = "100Mbps" }
        "#,
    )
    .unwrap_err();
    assert!(e.to_string().contains("loss_direction"), "{e}");
}
