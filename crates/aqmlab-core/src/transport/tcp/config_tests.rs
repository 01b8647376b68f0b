//! Tests of `config.rs`: the defaults of the TCP parameters and the checks of `validate`.

use super::*;
use crate::transport::tcp::congestion::HystartKind;

fn parse(text: &str) -> TcpConfig {
    toml::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn issue_25_fields_default_to_the_rfcs_and_need_the_modern_sender() {
    let d = TcpConfig::default();
    assert_eq!(
        (d.rto_estimator, d.timeout_response, d.frto, d.rto_restart),
        (
            RtoEstimatorKind::Rfc6298,
            TimeoutResponse::Rfc5681,
            false,
            RtoRestart::NewAck
        )
    );
    assert_eq!(d.prr_bound, PrrBound::Ssrb);
    for (text, field) in [
        ("rto_estimator = \"linux\"", "tcp.rto_estimator"),
        ("timeout_response = \"linux\"", "tcp.timeout_response"),
        ("frto = true", "tcp.frto"),
        ("rto_restart = \"linux\"", "tcp.rto_restart"),
    ] {
        let ns2: TcpConfig = toml::from_str(text).unwrap();
        assert_eq!(ns2.validate("tcp").unwrap_err().path, field, "{text}");
        let modern: TcpConfig = toml::from_str(&format!("recovery = \"rfc6675\"\n{text}")).unwrap();
        assert!(modern.validate("tcp").is_ok(), "{text}");
    }
    // Misspelt values are errors, not defaults.
    assert!(toml::from_str::<TcpConfig>("rto_estimator = \"linx\"").is_err());
    assert!(toml::from_str::<TcpConfig>("prr_bound = \"safe\"").is_err());
    assert!(toml::from_str::<TcpConfig>("rack_tlp = { pto = \"rfc\" }").is_err());
}

#[test]
fn hystart_is_off_by_default_and_for_the_modern_sender_only() {
    let off = TcpConfig::default();
    assert_eq!(off.hystart.active(), None);
    let on = parse("recovery = \"rfc6675\"\nhystart = { enabled = true }");
    assert_eq!(on.hystart.active(), Some(HystartKind::Rfc9406));
    assert!(on.validate("tcp").is_ok());
    let ns2 = TcpConfig {
        recovery: Recovery::Ns2,
        ..on
    };
    assert_eq!(ns2.validate("tcp").unwrap_err().path, "tcp.hystart.enabled");
    assert!(toml::from_str::<TcpConfig>("hystart = { enabled = true, l = 4 }").is_err());
}

/// The ns-3 options are the modern sender's; the ns-2 agents refuse them, naming the
/// field, and their defaults are the RFC readings.
#[test]
fn the_ns3_options_need_rfc6675_and_default_to_the_rfcs() {
    let d = TcpConfig::default();
    assert_eq!(d.ssthresh_base, SsthreshBase::FlightSize);
    assert_eq!(d.rtt_sampling, RttSampling::TimedPacket);
    assert_eq!(d.rto_estimator, RtoEstimatorKind::Rfc6298);
    assert_eq!(d.dupacks_after_timeout, DupacksAfterTimeout::Counted);
    assert_eq!(d.handshake, Handshake::None);
    for (field, text) in [
        ("ssthresh_base", "ssthresh_base = \"pipe\""),
        ("rtt_sampling", "rtt_sampling = \"oldest_unacked\""),
        ("rto_estimator", "rto_estimator = \"ns3\""),
        (
            "dupacks_after_timeout",
            "dupacks_after_timeout = \"ignored\"",
        ),
        ("handshake", "handshake = \"syn\""),
    ] {
        let ns2: TcpConfig = toml::from_str(text).unwrap();
        assert_eq!(
            ns2.validate("tcp").unwrap_err().path,
            format!("tcp.{field}")
        );
        let modern: TcpConfig = toml::from_str(&format!("recovery = \"rfc6675\"\n{text}")).unwrap();
        assert!(modern.validate("tcp").is_ok(), "{text}");
    }
    assert!(toml::from_str::<TcpConfig>("ssthresh_base = \"pipes\"").is_err());
}

#[test]
fn hystart_kind_chooses_linux_or_rfc9406_and_enabled_keeps_its_meaning() {
    let rfc6675 = "recovery = \"rfc6675\"\n";
    for (table, want) in [
        ("hystart = { kind = \"linux\" }", Some(HystartKind::Linux)),
        (
            "hystart = { kind = \"rfc9406\" }",
            Some(HystartKind::Rfc9406),
        ),
        ("hystart = { enabled = true }", Some(HystartKind::Rfc9406)),
        (
            "hystart = { enabled = true, kind = \"linux\" }",
            Some(HystartKind::Linux),
        ),
        ("hystart = { enabled = false }", None),
        ("hystart = {}", None),
    ] {
        let cfg = parse(&format!("{rfc6675}{table}"));
        assert_eq!(cfg.hystart.active(), want, "{table}");
        cfg.validate("tcp").unwrap();
        // Written out and read back, the same HyStart.
        let back: TcpConfig = serde_json::from_value(serde_json::to_value(&cfg).unwrap()).unwrap();
        assert_eq!(back.hystart.active(), want, "{table}");
    }
    let both = parse(&format!(
        "{rfc6675}hystart = {{ enabled = false, kind = \"linux\" }}"
    ));
    let e = both.validate("tcp").unwrap_err();
    assert_eq!(e.path, "tcp.hystart.enabled");
    assert!(e.to_string().contains("contradicts"), "{e}");
    let ns2 = parse("hystart = { kind = \"linux\" }");
    assert_eq!(ns2.validate("tcp").unwrap_err().path, "tcp.hystart.kind");
    assert!(toml::from_str::<TcpConfig>("hystart = { kind = \"hystart\" }").is_err());
}

#[test]
fn linux_mechanisms_default_off_and_name_their_field_when_misused() {
    let d = TcpConfig::default();
    assert_eq!(d.cwnd_growth, CwndGrowth::PerAck);
    assert_eq!(d.ssthresh_base, SsthreshBase::FlightSize);
    assert!(!d.quick_ack);
    assert_eq!(d.delayed_ack_ato, DelayedAckAto::Fixed);
    assert_eq!(d.cubic, CubicParams::default());
    let on = parse(
        "recovery = \"rfc6675\"\ncwnd_growth = \"packets_acked\"\nssthresh_base = \"cwnd\"\n\
         quick_ack = true\ndelayed_ack = true\ndelayed_ack_ato = \"adaptive\"\n\
         cubic = { target_rtt = \"min_rtt\", reno_friendly = \"linux\", \
         growth_without_w_max = \"linux\", state_on_rto = \"reset\" }",
    );
    on.validate("tcp").unwrap();
    // With the ns-2 agents: growth and the sink's options apply; the rest are refused.
    for (field, text) in [
        ("tcp.ssthresh_base", "ssthresh_base = \"cwnd\""),
        (
            "tcp.cubic.target_rtt",
            "cubic = { target_rtt = \"min_rtt\" }",
        ),
        (
            "tcp.cubic.state_on_rto",
            "cubic = { state_on_rto = \"reset\" }",
        ),
    ] {
        let e = parse(text).validate("tcp").unwrap_err();
        assert_eq!(e.path, field);
        assert!(e.to_string().contains("needs recovery"), "{e}");
    }
    parse(
        "cwnd_growth = \"packets_acked\"\nquick_ack = true\ndelayed_ack_ato = \"adaptive\"\n\
           cubic = { reno_friendly = \"linux\", growth_without_w_max = \"linux\" }",
    )
    .validate("tcp")
    .unwrap();
    for bad in [
        "cwnd_growth = \"per_packet\"",
        "ssthresh_base = \"pipe_size\"",
        "delayed_ack_ato = \"linux\"",
        "cubic = { target_rtt = \"rtt\" }",
    ] {
        assert!(toml::from_str::<TcpConfig>(bad).is_err(), "{bad}");
    }
}
