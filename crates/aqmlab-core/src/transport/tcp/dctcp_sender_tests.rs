//! DCTCP in the `rfc6675` sender, driven with scripted ACKs: alpha's windows, the reduction
//! by alpha / 2 at most once per window, halving on a loss, and the scenario's checks (RFC
//! 8257 sections 3.3 and 3.4; Linux net/ipv4/tcp_dctcp.c).

use super::congestion::dctcp::DctcpLossResponse;
use super::congestion::CongestionControlKind;
use super::rfc6675_sender_rig::{seqs, SenderRig as H};
use super::{Recovery, SsthreshBase, TcpConfig, TcpVariant};
use crate::net::Packet;
use crate::sim::Time;
use crate::units::Duration;

const MS: Time = 1_000_000;

/// DCTCP over SACK recovery, Reno growth per ACK, IW 10 in congestion avoidance from the
/// start (ssthresh 10), reductions from cwnd (Linux's base), ECN on.
fn dctcp() -> TcpConfig {
    TcpConfig {
        variant: TcpVariant::Sack,
        recovery: Recovery::Rfc6675,
        congestion_control: CongestionControlKind::Dctcp,
        ecn: true,
        window: 64,
        window_init: 10,
        ssthresh_init: Some(10),
        ssthresh_base: SsthreshBase::Cwnd,
        tick: Duration(MS),
        initial_rto: Duration(1_000 * MS),
        ..TcpConfig::default()
    }
}

/// An ACK of everything up to `cum` at `t`, with ECE or not.
fn ack(h: &mut H, t: Time, cum: i64, sack: &[(i64, i64)], ece: bool) -> Vec<Packet> {
    let mut out = h.run_until(t);
    let mut p = super::agent_rig::AgentRig::ack_packet(cum, sack);
    p.ecn.ece = ece;
    let id = h.rig.packets.alloc(p);
    h.s.receive(&mut h.rig.cx(t), id);
    out.extend(h.rig.take_sent());
    out
}

/// By hand, g = 1/16, alpha starting at 1:
/// - 0 ms: 0..=9 sent (snd_nxt 10).
/// - ACK 0: the first window ends at once (Linux `dctcp_init`: next_seq = snd_nxt = 0):
///   F = 0, alpha = 15/16 = 0.9375; the next window ends at snd_nxt = 10. cwnd 10 -> 10.1.
/// - ACKs 1, 2: cwnd 10.1 + 1/10.1 + 1/10.199 = 10.297..; 11, 12 go out.
/// - ACK 3 with ECE: no growth; ssthresh = 10 - floor(10 x 0.9375 / 2) = 10 - 4 = 6 (Linux
///   `dctcp_ssthresh`), cwnd = 6, no more reductions until the ACK passes 12 (high_data).
/// - ACK 4 with ECE: no second cut (same window), no growth.
/// - ACKs 5..=9 without ECE: the ACK of 9 (snd_una 10) ends alpha's window: 9 packets
///   delivered since ACK 0, 2 with ECE: alpha = 0.9375 x 15/16 + (2/9) / 16 = 0.892795..
#[test]
fn alpha_per_window_and_one_reduction_per_window() {
    let mut h = H::validated(dctcp());
    assert_eq!(seqs(&h.start()), (0..10).collect::<Vec<_>>());
    assert_eq!(h.state("dctcp_alpha"), 1.0);
    ack(&mut h, 10 * MS, 0, &[], false);
    assert_eq!(h.state("dctcp_alpha"), 0.9375);
    assert!((h.state("cwnd") - 10.1).abs() < 1e-12);
    ack(&mut h, 11 * MS, 1, &[], false);
    let sent = ack(&mut h, 12 * MS, 2, &[], false);
    assert_eq!(seqs(&sent), vec![12]);
    ack(&mut h, 13 * MS, 3, &[], true);
    assert_eq!((h.state("cwnd"), h.state("ssthresh")), (6.0, 6.0));
    ack(&mut h, 14 * MS, 4, &[], true);
    assert_eq!((h.state("cwnd"), h.state("ssthresh")), (6.0, 6.0));
    for cum in 5..=8 {
        ack(&mut h, (10 + cum as u64) * MS, cum, &[], false);
    }
    assert_eq!(h.state("dctcp_alpha"), 0.9375, "the window has not ended");
    ack(&mut h, 19 * MS, 9, &[], false);
    let want = 0.9375 * 15.0 / 16.0 + (2.0 / 9.0) / 16.0;
    assert!((h.state("dctcp_alpha") - want).abs() < 1e-15);
    assert!((h.state("dctcp_alpha") - 0.892_795).abs() < 1e-6);
    // ACKs 7, 8, 9 released 13, 14, 15. An ECE on the ACK of 12 is still in the window of
    // the first cut (high_data was 12 then); the ACK of 13 passes it and cuts again, by the
    // new alpha: cwnd is 6 + 1/6 + ... (five ACKs of new data), floor 6: 6 - floor(6 x
    // 0.8928 / 2) = 6 - 2 = 4.
    let w = h.state("cwnd");
    assert!(w > 6.0 && w < 7.0, "{w}");
    ack(&mut h, 20 * MS, 12, &[], true);
    assert_eq!(h.state("ssthresh"), 6.0);
    ack(&mut h, 21 * MS, 13, &[], true);
    assert_eq!(h.state("ssthresh"), 4.0);
    assert_eq!(h.state("cwnd"), 4.0);
}

/// A loss (three SACKed packets above a hole) halves the window (RFC 8257 3.4, Linux
/// `dctcp_react_to_loss`) whatever alpha is; `loss_response = "alpha"` cuts by alpha / 2
/// (Linux < 5.1). alpha = 0.9375 after the first ACK: 20 -> 10 (halve) or 20 - floor(9.375)
/// = 11.
#[test]
fn a_loss_halves_by_default_and_cuts_by_alpha_with_the_old_linux_rule() {
    for (rule, want) in [
        (DctcpLossResponse::Halve, 10.0),
        (DctcpLossResponse::Alpha, 11.0),
    ] {
        let mut cfg = dctcp();
        cfg.window_init = 20;
        cfg.ssthresh_init = Some(20);
        cfg.dctcp.loss_response = rule;
        let mut h = H::validated(cfg);
        h.start();
        ack(&mut h, 10 * MS, 0, &[], false);
        assert_eq!(h.state("dctcp_alpha"), 0.9375);
        let w = h.state("cwnd").floor();
        assert_eq!(w, 20.0);
        // 1 lost; 2, 3, 4 SACKed: the third duplicate ACK starts the recovery.
        ack(&mut h, 11 * MS, 0, &[(2, 3)], false);
        ack(&mut h, 12 * MS, 0, &[(2, 4)], false);
        ack(&mut h, 13 * MS, 0, &[(2, 5)], false);
        assert_eq!(h.state("ssthresh"), want, "{rule:?}");
    }
}

#[test]
fn dctcp_needs_the_rfc6675_sender_and_ecn() {
    let mut cfg = dctcp();
    cfg.recovery = Recovery::Ns2;
    let e = cfg.validate("tcp").unwrap_err();
    assert_eq!(e.path, "tcp.congestion_control");
    assert!(e.message.contains("rfc6675"), "{e}");
    let mut cfg = dctcp();
    cfg.ecn = false;
    let e = cfg.validate("tcp").unwrap_err();
    assert_eq!(e.path, "tcp.ecn");
    let mut cfg = dctcp();
    cfg.dctcp.g = 2.0;
    assert_eq!(cfg.validate("tcp").unwrap_err().path, "tcp.dctcp.g");
    // ECT(0) by default (RFC 8257 section 3.1, Linux `INET_ECN_xmit`).
    let mut h = H::validated(dctcp());
    let sent = h.start();
    assert!(sent.iter().all(|p| p.ecn.ect && !p.ecn.ect1));
    // The name as a scenario writes it.
    let parsed: TcpConfig =
        toml::from_str("congestion_control = \"dctcp\"\nrecovery = \"rfc6675\"\necn = true")
            .unwrap();
    assert_eq!(parsed.congestion_control, CongestionControlKind::Dctcp);
    assert!(parsed.exact_ce_echo());
}

/// TCP Prague in the sender, by hand (tcp_prague.c 0.7; draft-briscoe-iccrg-prague):
/// - every data packet ECT(1), whatever `ecn_codepoint` says; the first 10 unpaced;
/// - ACK 0 at 10 ms: the first RTT sample (10 ms); the first round ends (snd_una 1 >= 0) with
///   no CE seen: alpha stays 0 and is not updated; cwnd 10 -> 10.1 (ai = 1 before the RTT
///   independence); pacing at 1040 B (1000 + 40) x max(10, 9) / 10 ms = 1.04 MB/s = 8.32
///   Mb/s (100 %, not Linux's 120 %);
/// - ACK 1 with ECE: the first mark halves the window: 10.1 / 2 = 5.05 (fractional);
/// - ACKs 2..=9 without ECE: each adds 1 / cwnd; the ACK of 9 ends the round (snd_una 10):
///   F = 1/9, alpha = 1/16 x 1/9 = 1/144;
/// - the next ECE past the first cut's window cuts by alpha / 2: cwnd x (1 - 1/288).
#[test]
fn prague_marks_ect1_paces_halves_at_the_first_mark_then_cuts_by_alpha() {
    let cfg = TcpConfig {
        congestion_control: CongestionControlKind::Prague,
        ..dctcp()
    };
    let mut h = H::validated(cfg);
    let sent = h.start();
    assert_eq!(sent.len(), 10);
    assert!(sent.iter().all(|p| p.ecn.ect && p.ecn.ect1));
    assert!(h.state("pacing_rate_bps").is_nan() || h.state("pacing_rate_bps") == 0.0);
    let mut high = 9;
    let track = |ps: Vec<Packet>, high: &mut i64| {
        for p in ps {
            assert!(p.ecn.ect1, "ECT(1) on every data packet");
            *high = (*high).max(p.seq);
        }
    };
    let ps = ack(&mut h, 10 * MS, 0, &[], false);
    track(ps, &mut high);
    assert_eq!(h.state("dctcp_alpha"), 0.0);
    assert!((h.state("cwnd") - 10.1).abs() < 1e-12);
    assert_eq!(h.state("pacing_rate_bps"), 8.32e6);
    let ps = ack(&mut h, 11 * MS, 1, &[], true);
    track(ps, &mut high);
    assert!(
        (h.state("cwnd") - 5.05).abs() < 1e-12,
        "{}",
        h.state("cwnd")
    );
    assert_eq!(h.state("ssthresh"), 5.0);
    let mut w = 5.05;
    for cum in 2..=9 {
        let ps = ack(&mut h, (10 + cum as u64) * MS, cum, &[], false);
        track(ps, &mut high);
        w += 1.0 / w;
    }
    assert!(
        (h.state("cwnd") - w).abs() < 1e-9,
        "{} {w}",
        h.state("cwnd")
    );
    assert!((h.state("dctcp_alpha") - 1.0 / 144.0).abs() < 1e-15);
    // Send what the pacer holds, then an ECE on the ACK of everything sent: past the first
    // cut's window, so it cuts by alpha / 2 on the fractional window.
    let ps = h.run_until(100 * MS);
    track(ps, &mut high);
    assert!(high > 10, "the window kept sending: {high}");
    let before = h.state("cwnd");
    ack(&mut h, 101 * MS, high, &[], true);
    let after = h.state("cwnd");
    assert!(
        (after - before * (1.0 - 1.0 / 288.0)).abs() < 1e-9,
        "{before} -> {after}"
    );
}

#[test]
fn prague_needs_rfc6675_and_ecn_and_validates_its_parameters() {
    let mut cfg = TcpConfig {
        congestion_control: CongestionControlKind::Prague,
        ..dctcp()
    };
    cfg.ecn = false;
    assert_eq!(cfg.validate("tcp").unwrap_err().path, "tcp.ecn");
    cfg.ecn = true;
    cfg.recovery = Recovery::Ns2;
    assert_eq!(
        cfg.validate("tcp").unwrap_err().path,
        "tcp.congestion_control"
    );
    cfg.recovery = Recovery::Rfc6675;
    cfg.prague.rtt_target = Duration(0);
    assert_eq!(
        cfg.validate("tcp").unwrap_err().path,
        "tcp.prague.rtt_target"
    );
    let parsed: TcpConfig = toml::from_str(
        "congestion_control = \"prague\"\nrecovery = \"rfc6675\"\necn = true\nprague = { rtt_target = \"15ms\" }",
    )
    .unwrap();
    assert!(parsed.sends_ect1() && parsed.exact_ce_echo());
    assert_eq!(parsed.prague.rtt_target, Duration(15 * MS));
}
