//! Issue 11, item 3: values the engine would wrap, clamp or round are errors naming the field
//! and the allowed range (before: packet_size 4294967290 gave a goodput of 6.75e13 b/s,
//! max_backoff 2^31 + 1 wrapped, "1e30bps" was clamped, "0.4ns" became 0).

use aqmlab_core::testing::Dumbbell;
use aqmlab_core::Scenario;

fn scenario(tcp: &str, bottleneck_rate: &str, flow: &str) -> Result<Scenario, String> {
    let toml = Dumbbell {
        duration: "1s",
        senders: 1,
        bottleneck: &format!(r#"rate = "{bottleneck_rate}", delay = "1ms""#),
        access: r#"rate = "100Mbps""#,
        rest: &format!("[tcp]\n{tcp}\n[[flows]]\nfrom = \"senders\"\nto = \"receivers\"\n{flow}"),
        ..Default::default()
    }
    .toml();
    Scenario::from_toml(&toml).map_err(|e| e.to_string())
}

fn tcp_error(tcp: &str) -> String {
    scenario(tcp, "10Mbps", "kind = \"tcp\"").unwrap_err()
}

#[test]
fn tcp_fields_above_their_maximum_name_field_and_range() {
    for (tcp, expected) in [
        (
            "packet_size = 4294967290",
            "tcp.packet_size: must be at most 65535, got 4294967290",
        ),
        (
            "max_backoff = 2147483649",
            "tcp.max_backoff: must be at most 65536, got 2147483649",
        ),
        (
            "window = 4294967295",
            "tcp.window: must be at most 1048576, got 4294967295",
        ),
        (
            "window_init = 2000000",
            "tcp.window_init: must be at most 1048576, got 2000000",
        ),
        (
            "ack_size = 70000",
            "tcp.ack_size: must be at most 65535, got 70000",
        ),
    ] {
        let e = tcp_error(tcp);
        assert!(e.ends_with(expected), "{tcp}: {e}");
        assert!(e.starts_with("flows[0]."), "{tcp}: {e}");
    }
    let e = tcp_error("packet_size = 65000\nheader_size = 1000");
    assert!(
        e.contains("packet_size + header_size must be at most 65535"),
        "{e}"
    );
    // the largest allowed values are accepted
    scenario(
        "packet_size = 65495\nmax_backoff = 65536\nwindow = 1048576",
        "10Mbps",
        "kind = \"tcp\"",
    )
    .unwrap();
}

#[test]
fn udp_packet_size_and_rates_and_durations_out_of_range() {
    let e = scenario(
        "",
        "10Mbps",
        "kind = \"cbr\"\nrate = \"1Mbps\"\npacket_size = 70000",
    )
    .unwrap_err();
    assert!(
        e.ends_with("packet_size: must be between 1 and 65535 bytes (an IP packet), got 70000"),
        "{e}"
    );
    let e = scenario("", "1e30bps", "kind = \"tcp\"").unwrap_err();
    assert!(
        e.contains("topology.bottleneck.rate") && e.contains("at most 1Tbps"),
        "{e}"
    );
    let e = scenario("min_rto = \"0.4ns\"", "10Mbps", "kind = \"tcp\"").unwrap_err();
    assert!(e.contains("min_rto") && e.contains("at least 1 ns"), "{e}");
}
