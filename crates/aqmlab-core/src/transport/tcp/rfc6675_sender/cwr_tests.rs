//! `ecn_reduction = "prr"`: Linux's CWR state after an ECN echo (net/ipv4/tcp_input.c
//! `tcp_enter_cwr`, `tcp_init_cwnd_reduction`, `tcp_cong_control` -> `tcp_cwnd_reduction`,
//! `tcp_fastretrans_alert` -> `tcp_end_cwnd_reduction`), on scripted ACKs, against the values
//! worked out by hand from those functions; `"immediate"` (the default) for contrast.

use super::*;
use crate::transport::tcp::recovery::prr::PrrBound;
use crate::transport::tcp::rfc6675_sender_rig::{self, seqs, SenderRig as H};

const MS: Time = 1_000_000;

/// Reno over SACK recovery with ECN, IW 10 in congestion avoidance (ssthresh 10), reductions
/// from cwnd and PRR's bound as Linux's.
fn cfg(ecn_reduction: EcnReduction) -> TcpConfig {
    TcpConfig {
        ecn: true,
        ssthresh_init: Some(10),
        ssthresh_base: SsthreshBase::Cwnd,
        prr_bound: PrrBound::SafeAck,
        ecn_reduction,
        ..rfc6675_sender_rig::base()
    }
}

fn ack(h: &mut H, t: Time, cum: i64, ece: bool) -> Vec<i64> {
    seqs(&h.ack_with(t, cum, &[], |p| p.ecn.ece = ece))
}

/// By hand (Reno: ssthresh = cwnd / 2; one packet delivered per ACK; pipe = the packets
/// between snd_una and the highest sent, none SACKed or lost):
/// - start: 0..=9 out. ACK 0: cwnd 10 + 1/10 = 10.1, 10 goes out (outstanding 1..=10).
/// - ACK 1 with ECE: `tcp_enter_cwr`: ssthresh = 10 / 2 = 5, prior_cwnd 10, high_seq = 11
///   (HighData 10). `tcp_cwnd_reduction` on the same ACK: pipe 2..=10 = 9 > 5, so sndcnt =
///   (5 x 1 + 10 - 1) / 10 - 0 = 1 (the ceiling), at least 1 as prr_out = 0; cwnd = 9 + 1 =
///   10; 11 goes out (prr_out 1).
/// - ACK k (k = 2..=8) while pipe > 5: sndcnt = ceil(5 k / 10) - prr_out, cwnd = pipe +
///   sndcnt; one packet out on each odd k:
///   k=2: pipe 9 (3..=11), 1 - 1 = 0, cwnd 9;      k=3: pipe 8, 2 - 1 = 1, cwnd 9, 12 out;
///   k=4: pipe 8, 2 - 2 = 0, cwnd 8;               k=5 (ECE, no second cut): pipe 7, 3 - 2 =
///   1, cwnd 8, 13 out;  k=6: pipe 7, 0, cwnd 7;   k=7: pipe 6, 4 - 3 = 1, cwnd 7, 14 out;
///   k=8: pipe 6, 4 - 4 = 0, cwnd 6.
/// - ACK 9: pipe 10..=14 = 5, not > 5: sndcnt = min(5 - 5, max(9 - 4, 1) + 1) = 0, cwnd 5.
/// - ACK 10 (snd_una 11 = high_seq: CWR holds, "something *above* high_seq"): pipe 4,
///   sndcnt = min(5 - 4, max(10 - 4, 1) + 1) = 1, cwnd 5, 15 out.
/// - ACK 11 (snd_una 12 > high_seq): CWR ends, cwnd = ssthresh = 5
///   (`tcp_end_cwnd_reduction`), state Open, and this ACK grows it (`tcp_cong_avoid`):
///   5 + 1/5 = 5.2; pipe 12..=15 = 4, 16 goes out.
#[test]
fn prr_brings_cwnd_down_over_the_round_and_nothing_grows_until_high_seq_is_passed() {
    let mut h = H::validated(cfg(EcnReduction::Prr));
    assert_eq!(seqs(&h.start()), (0..10).collect::<Vec<_>>());
    assert_eq!(ack(&mut h, 10 * MS, 0, false), [10]);
    assert!((h.s.cwnd - 10.1).abs() < 1e-12);
    assert_eq!(ack(&mut h, 20 * MS, 1, true), [11]);
    assert_eq!((h.s.cwnd, h.s.ssthresh), (10.0, 5));
    assert!(h.s.in_cwr);
    // (cum, ECE, sent, cwnd after)
    let rows: [(i64, bool, &[i64], f64); 10] = [
        (2, false, &[], 9.0),
        (3, false, &[12], 9.0),
        (4, false, &[], 8.0),
        (5, true, &[13], 8.0),
        (6, false, &[], 7.0),
        (7, false, &[14], 7.0),
        (8, false, &[], 6.0),
        (9, false, &[], 5.0),
        (10, false, &[15], 5.0),
        (11, false, &[16], 5.2),
    ];
    for (i, (cum, ece, sent, cwnd)) in rows.into_iter().enumerate() {
        let t = (30 + 10 * i as Time) * MS;
        assert_eq!(ack(&mut h, t, cum, ece), sent, "ACK {cum}");
        assert!(
            (h.s.cwnd - cwnd).abs() < 1e-12,
            "ACK {cum}: cwnd {}",
            h.s.cwnd
        );
        assert_eq!(h.s.ssthresh, 5, "ACK {cum}");
        assert_eq!(h.s.in_cwr, cum <= 10, "ACK {cum}");
    }
    assert_eq!(h.rig.stats.ecn_reductions, 1);
    assert_eq!(h.s.prr.prr_out(), 5);
}

/// The same ACKs with `"immediate"`: cwnd = 5 on the echo and Reno's growth from the next
/// ACK without ECE (5 + 1/5 = 5.2 on ACK 2), which the CWR state forbids.
#[test]
fn immediate_cuts_at_once_and_grows_on_the_next_ack() {
    let mut h = H::validated(cfg(EcnReduction::Immediate));
    h.start();
    ack(&mut h, 10 * MS, 0, false);
    ack(&mut h, 20 * MS, 1, true);
    assert_eq!(h.s.cwnd, 5.0);
    ack(&mut h, 30 * MS, 2, false);
    assert!((h.s.cwnd - 5.2).abs() < 1e-12);
    assert!(!h.s.in_cwr);
}

/// An echo on the ACK that ends CWR starts the next reduction at once (`tcp_try_to_open` ->
/// `tcp_enter_cwr` after step D ended the last): from the same ACKs to ACK 10, ACK 11 with
/// ECE ends CWR (cwnd = 5) and enters it again: ssthresh = 5 / 2 = 2, prior_cwnd 5, pipe 4
/// (12..=15) > 2: sndcnt = (2 x 1 + 5 - 1) / 5 = 1, cwnd 5; no growth.
#[test]
fn an_echo_on_the_ack_that_ends_cwr_starts_the_next() {
    let mut h = H::validated(cfg(EcnReduction::Prr));
    h.start();
    for cum in 0..=10 {
        ack(&mut h, (10 + 10 * cum as Time) * MS, cum, cum == 1);
    }
    assert_eq!(h.s.cwnd, 5.0);
    assert_eq!(ack(&mut h, 200 * MS, 11, true), [16]);
    assert_eq!((h.s.cwnd, h.s.ssthresh), (5.0, 2));
    assert!(h.s.in_cwr);
    assert_eq!(h.rig.stats.ecn_reductions, 2);
}

#[test]
fn a_bad_value_names_the_field() {
    let e = toml::from_str::<TcpConfig>("ecn_reduction = \"slow\"").unwrap_err();
    assert!(e.to_string().contains("ecn_reduction"), "{e}");
    let ns2 = TcpConfig {
        ecn_reduction: EcnReduction::Prr,
        ..TcpConfig::default()
    };
    assert_eq!(ns2.validate("tcp").unwrap_err().path, "tcp.ecn_reduction");
}
