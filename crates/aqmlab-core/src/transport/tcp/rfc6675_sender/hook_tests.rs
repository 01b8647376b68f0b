//! The controller's hooks as the sender calls them: their order on an ACK (Linux `tcp_ack`:
//! `tcp_in_ack_event` before the CWR entry, `tcp_cong_control` after it), and what a
//! controller with `cong_control` takes over from the core (growth, PRR, cwnd = ssthresh at a
//! reduction's end, the ECN cut), recorded by `congestion/recorder.rs` on hand-made ACKs.

use super::*;
use crate::net::Packet;
use crate::transport::tcp::congestion::recorder::Recorder;
use crate::transport::tcp::congestion::{CongestionControlKind, DctcpParams};
use crate::transport::tcp::rfc6675_sender_rig::{self, SenderRig as H};
use std::sync::{Arc, Mutex};

const MS: Time = 1_000_000;

type Log = Arc<Mutex<Vec<String>>>;

/// The rig's SACK sender (`rfc6675_sender_rig::base`) with ECN on.
fn cfg() -> TcpConfig {
    TcpConfig {
        ecn: true,
        ..rfc6675_sender_rig::base()
    }
}

/// A sender whose controller is the recorder (with `cong_control` when `sets_cwnd`).
fn recorded(sets_cwnd: Option<f64>) -> (H, Log) {
    let mut h = H::new(cfg());
    let rec = Recorder {
        sets_cwnd,
        ..Recorder::default()
    };
    let log = rec.log.clone();
    h.s.rate = rec.wants_rate_sample().then(Box::<DeliveryRate>::default);
    h.s.cc = CongestionControl::Test(Box::new(rec));
    (h, log)
}

/// An ACK of everything up to `cum` at `t`, with SACK blocks and ECE or not.
fn ack(h: &mut H, t: Time, cum: i64, sack: &[(i64, i64)], ece: bool) -> Vec<Packet> {
    h.ack_with(t, cum, sack, |p| p.ecn.ece = ece)
}

fn take(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock().unwrap())
}

#[test]
fn hooks_run_in_linuxs_order_on_each_ack() {
    let (mut h, log) = recorded(None);
    h.start();
    // An ACK of new data without ECE: accounting, RTT sample, then growth.
    ack(&mut h, 100 * MS, 0, &[], false);
    assert_eq!(
        take(&log),
        [
            "in_ack_event ece=false",
            "pkts_acked",
            "after_ecn_response",
            "cong_avoid"
        ]
    );
    // ECE: `in_ack_event` sees the ACK before the cut (DCTCP's alpha counts it), the cut is
    // `ssthresh` then `set_state(CWR)`, and the accounting after the response (Prague's
    // rounds) sees the cut window; no growth on an ECE ACK.
    ack(&mut h, 110 * MS, 1, &[], true);
    assert_eq!(
        take(&log),
        [
            "in_ack_event ece=true",
            "pkts_acked",
            "ssthresh Ecn",
            "set_state Cwr",
            "after_ecn_response"
        ]
    );
    assert_eq!(h.s.cwnd, h.s.ssthresh as f64);
    assert_eq!(h.rig.stats.ecn_reductions, 1);
    // A second echo in the same window of data: no second cut.
    ack(&mut h, 120 * MS, 2, &[], true);
    assert_eq!(
        take(&log),
        ["in_ack_event ece=true", "pkts_acked", "after_ecn_response"]
    );
}

/// The same ACKs (one of new data, one with ECE, a SACK that starts a recovery, the ACK that
/// ends it) with and without `cong_control`.
fn episode(sets_cwnd: Option<f64>) -> (H, Vec<String>, f64) {
    let (mut h, log) = recorded(sets_cwnd);
    h.start();
    ack(&mut h, 100 * MS, 0, &[], false);
    ack(&mut h, 110 * MS, 1, &[], true);
    // Packets 3..=9 SACKed, 2 missing: DupThresh SACKed above it, a fast recovery.
    ack(&mut h, 200 * MS, 1, &[(3, 10)], false);
    assert!(h.s.scb.in_recovery());
    let cwnd_in_recovery = h.s.cwnd;
    let top = h.s.scb.high_data();
    ack(&mut h, 300 * MS, top, &[], false);
    assert!(!h.s.scb.in_recovery());
    let log = take(&log);
    (h, log, cwnd_in_recovery)
}

#[test]
fn a_controller_with_cong_control_replaces_growth_prr_and_the_ecn_cut() {
    let has = |log: &[String], s: &str| log.iter().any(|x| x == s);
    // The core's own rules, for contrast.
    let (h, log, in_recovery) = episode(None);
    for call in [
        "cong_avoid",
        "ssthresh Ecn",
        "set_state Cwr",
        "ssthresh Loss",
        "set_state Recovery",
        "cwnd_event CompleteCwr",
        "set_state Open",
    ] {
        assert!(has(&log, call), "{call} missing: {log:?}");
    }
    assert!(!log.iter().any(|x| x.starts_with("cong_control")));
    assert_ne!(in_recovery, 7.0);
    // RFC 6937: cwnd = ssthresh at the end, then the ending ACK's growth (the recorder's +1).
    assert_eq!(h.s.cwnd, h.s.ssthresh as f64 + 1.0);
    assert_eq!(
        log[log.len() - 3..],
        ["cwnd_event CompleteCwr", "set_state Open", "cong_avoid"]
    );
    assert_eq!(h.rig.stats.ecn_reductions, 1);

    // `cong_control` (as BBR): no growth, no ECN cut, PRR's cwnd never written, no cwnd =
    // ssthresh at the end; the loss still asks `ssthresh` (`bbr_ssthresh` saves the window)
    // and the states still change.
    let (h, log, in_recovery) = episode(Some(7.0));
    for call in [
        "cong_avoid",
        "ssthresh Ecn",
        "set_state Cwr",
        "cwnd_event CompleteCwr",
    ] {
        assert!(!has(&log, call), "{call} called: {log:?}");
    }
    for call in [
        "cong_control Open",
        "ssthresh Loss",
        "set_state Recovery",
        "cong_control Recovery",
        "set_state Open",
    ] {
        assert!(has(&log, call), "{call} missing: {log:?}");
    }
    // Linux `tcp_enter_recovery` (ssthresh, set_state) before `cong_control` on that ACK.
    let at = |s: &str| log.iter().position(|x| x == s).unwrap();
    assert!(at("set_state Recovery") < at("cong_control Recovery"));
    assert_eq!((in_recovery, h.s.cwnd), (7.0, 7.0));
    assert_eq!(h.rig.stats.ecn_reductions, 0);
}

/// Linux's order with DCTCP itself: `tcp_in_ack_event` (`dctcp_update_alpha`) before
/// `tcp_enter_cwr` (`dctcp_ssthresh`). With g = 1 and alpha starting at 0, the first ACK
/// (which ends alpha's first window, Linux `dctcp_init`'s next_seq = 0) carries ECE: alpha =
/// F = 1 before the cut, so ssthresh = 10 - floor(10 x 1 / 2) = 5; the other order would cut
/// by alpha 0, to 10.
#[test]
fn dctcp_counts_an_ack_before_its_echo_cuts() {
    let mut c = cfg();
    c.congestion_control = CongestionControlKind::Dctcp;
    c.ssthresh_base = super::SsthreshBase::Cwnd;
    c.dctcp = DctcpParams {
        g: 1.0,
        alpha_init: 0.0,
        ..DctcpParams::default()
    };
    let mut h = H::validated(c);
    h.start();
    ack(&mut h, 10 * MS, 0, &[], true);
    assert_eq!(h.state("dctcp_alpha"), 1.0);
    assert_eq!((h.s.ssthresh, h.s.cwnd), (5, 5.0));
}
