//! The `rfc6675` sender driven directly with scripted ACKs (issue 25): each test checks one
//! rule against a sequence worked out by hand from its source (the Linux kernel function or
//! the RFC named in the test).

use super::*;
use crate::net::Packet;
use crate::sim::StreamKind;
use crate::transport::tcp::congestion::CongestionControlKind;
use crate::transport::tcp::rfc6675_sender_rig::{base, seqs, SenderRig as H};
use crate::transport::tcp::Handshake;
use crate::units::Duration;

const MS: Time = 1_000_000;

fn rack(mut c: TcpConfig) -> TcpConfig {
    c.rack_tlp.enabled = true;
    c
}

/// Linux `tcp_enter_loss` (net/ipv4/tcp_input.c) against RFC 5681 3.1, on a timeout in the
/// middle of a fast recovery. By hand (RACK, Reno, PRR's SSRB, RTO from the initial 1 s
/// since no ACK advances):
/// - 0 ms: packets 0..=9.
/// - 100 ms: SACK 1..=9. RACK: packet 9 (sent at 0) is the newest delivered, RTT 100 ms,
///   reordering window 0 (DupThresh packets SACKed): 0 is lost. Recovery: ssthresh = 10 / 2 =
///   5, RecoverFS 10; pipe 0, so sndcnt = MIN(5 - 0, MAX(9, 9) + 1) = 5: 0 again, then new
///   10..=13.
/// - 200 ms: SACK 10, 11 (sent at 100 ms): RACK marks the retransmission of 0, sent before
///   them 100 ms ago, lost again; pipe 2 (12, 13): sndcnt = MIN(5 - 2, MAX(11 - 5, 2) + 1) =
///   3: 0 a third time, new 14, 15.
/// - 950 ms: SACK 12, 13: RACK.rtt = 850 ms (13's); nothing due; pipe 3: sndcnt = MIN(5 - 3,
///   MAX(13 - 8, 2) + 1) = 2: new 16, 17 (pipe 5).
/// - 1000 ms, the RTO: with Linux's response ssthresh stays 5 (the recovery made its cut
///   for this window: RecoveryPoint 9 unacknowledged), and the loss marks (RFC 8985 6.3:
///   sent more than RACK.rtt + 0 = 850 ms ago, or the head) take only 0: 14, 15 (200 ms) and
///   16, 17 (950 ms) stay in flight, cwnd = 4 + 1 = 5. RFC 5681: ssthresh = FlightSize 18 /
///   2 = 9, cwnd 1. Either way the go-back-N sends 0 now.
#[test]
fn tcp_enter_loss_cuts_once_per_window_and_keeps_what_is_in_flight() {
    for (response, ssthresh, cwnd) in [
        (TimeoutResponse::Linux, 5, 5.0),
        (TimeoutResponse::Rfc5681, 9, 1.0),
    ] {
        let mut c = rack(base());
        c.timeout_response = response;
        let mut h = H::new(c);
        assert_eq!(seqs(&h.start()), (0..10).collect::<Vec<_>>());
        assert_eq!(
            seqs(&h.ack_echo(100 * MS, -1, &[(1, 10)], 0)),
            [0, 10, 11, 12, 13]
        );
        assert_eq!((h.s.ssthresh, h.s.scb.in_recovery()), (5, true));
        let at_200 = h.ack_echo(200 * MS, -1, &[(10, 12), (1, 10)], 100 * MS);
        assert_eq!(seqs(&at_200), [0, 14, 15]);
        let at_950 = h.ack_echo(950 * MS, -1, &[(12, 14), (10, 12), (1, 10)], 100 * MS);
        assert_eq!(seqs(&at_950), [16, 17]);
        assert_eq!(seqs(&h.run_until(1_000 * MS)), [0], "{response:?}");
        assert_eq!((h.s.ssthresh, h.s.cwnd), (ssthresh, cwnd), "{response:?}");
        assert_eq!(h.rig.stats.timeouts, 1);
        assert_eq!(h.rig.stats.max_transmissions, 4, "0 sent four times");
    }
}

/// Linux `tcp_fastretrans_alert` (net/ipv4/tcp_input.c) on the ACK that ends a recovery
/// while RACK deems a later packet lost: section D ends the recovery (Open, cwnd = ssthresh),
/// section E's default case asks `tcp_time_to_recover`, which `lost_out` answers, and a new
/// recovery starts on that ACK. By hand (RACK, Reno, PRR):
/// - 0 ms: 0..=9. 100 ms: SACK 1..=9: 0 is lost (as in the test above); recovery with
///   RecoveryPoint 9, ssthresh 5; 0 again and new 10..=13 (sent at 100 ms).
/// - 200 ms: ACK of 0..=9 (0's resend, echo 100 ms) with SACK 11..=13: RecoveryPoint is
///   acknowledged, the recovery ends with cwnd = ssthresh = 5. RACK: 13, sent at 100 ms after
///   10, is delivered; three packets are SACKed, so no reordering window: 10 (sent 100 ms
///   ago, RACK.rtt 100 ms) is lost. `tcp_time_to_recover`: a new recovery, ssthresh =
///   max(5 / 2, 2) = 2; in flight 0 (10 lost; 11..=13 SACKed), so PRR (`tcp_cwnd_reduction`,
///   not the slow-start bound, a packet newly lost) sends min(ssthresh - 0, 4 delivered) = 2:
///   10 again and new 14; cwnd 2.
///
/// Before, the ACK ending a recovery could not start one, and no later ACK marked 10 again:
/// it sent new 14 only (cwnd 5, 4 outstanding from 10), and 10 waited for the timeout.
#[test]
fn a_recovery_that_ends_with_a_packet_marked_lost_starts_the_next_on_that_ack() {
    let mut h = H::new(rack(base()));
    h.start();
    assert_eq!(
        seqs(&h.ack_echo(100 * MS, -1, &[(1, 10)], 0)),
        [0, 10, 11, 12, 13]
    );
    assert_eq!((h.s.ssthresh, h.s.scb.recovery_point()), (5, Some(9)));
    let sent = h.ack_echo(200 * MS, 9, &[(11, 14)], 100 * MS);
    assert_eq!(seqs(&sent), [10, 14]);
    assert_eq!(h.s.scb.recovery_point(), Some(13), "a new recovery");
    assert_eq!((h.s.ssthresh, h.s.cwnd), (2, 2.0));
}

/// F-RTO (RFC 5682 section 3.1, SACK-enhanced; Linux `tcp_process_loss`) on a spurious
/// timeout. By hand (RACK-TLP, Reno, initial RTO 500 ms, no RTT sample):
/// - 0 ms: 0..=9. 500 ms: the probe (PTO 1 s without a sample, capped at the RTO's 500 ms)
///   sends new 10; the RTO is re-armed to 1000 ms.
/// - 1000 ms, the RTO: ssthresh = 11 / 2 = 5 (cwnd 10 and max(ssthresh 100, 3/4 x 10)
///   remembered); every packet is marked lost (RACK.rtt is 0 before any delivery), cwnd =
///   0 + 1; 0 is resent. F-RTO starts (no recovery was under way).
/// - 1050 ms: the ACK of the original 0, delayed. Step 2.b: RecoveryPoint = 10 (all that is
///   out); slow start makes cwnd 2 and pipe is 0, so new 11, 12 go out instead of repairs.
/// - 1100 ms: the ACK of 1..=5, sent once, before the timeout: step 3.b, the timeout was
///   spurious: cwnd = max(2, 10) = 10, ssthresh = max(5, 100) = 100, the episode ends; slow
///   start (11) sends new 13..=16 (from 6 up to 6 + 11 - 1). The timeout's marks on 6..=10
///   are undone (`tcp_undo_cwnd_reduction` with `unmark_loss`) and RACK marks none again (5,
///   the newest delivered, was sent before them): left marked they would start a recovery on
///   this ACK (`tcp_time_to_recover`).
///
/// Without F-RTO the go-back-N resends 1, 2 at 1050 ms (cwnd 2) and 6, 7, 8 at 1100 ms
/// (cwnd 3, ssthresh 5): spurious retransmissions at half the rate.
#[test]
fn frto_undoes_a_spurious_timeout_as_tcp_process_loss() {
    for (frto, at_1050, at_1100, cwnd, ssthresh) in [
        (true, vec![11, 12], vec![13, 14, 15, 16], 11.0, 100),
        (false, vec![1, 2], vec![6, 7, 8], 3.0, 5),
    ] {
        let mut c = rack(base());
        c.timeout_response = TimeoutResponse::Linux;
        c.frto = frto;
        c.initial_rto = Duration(500 * MS);
        let mut h = H::new(c);
        h.start();
        assert_eq!(seqs(&h.run_until(500 * MS)), [10], "the probe");
        assert_eq!(seqs(&h.run_until(1_000 * MS)), [0], "the RTO");
        assert_eq!((h.s.cwnd, h.s.ssthresh), (1.0, 5));
        assert_eq!(
            seqs(&h.ack_echo(1_050 * MS, 0, &[], 0)),
            at_1050,
            "F-RTO {frto}"
        );
        assert_eq!(
            seqs(&h.ack_echo(1_100 * MS, 5, &[], 0)),
            at_1100,
            "F-RTO {frto}"
        );
        assert_eq!((h.s.cwnd, h.s.ssthresh), (cwnd, ssthresh), "F-RTO {frto}");
        assert_eq!(
            h.s.scb.may_enter_recovery(),
            frto,
            "the episode ends on the undo"
        );
    }
}

/// F-RTO step 3.a: after the new data of step 2.b, a SACK of it (the holes below are real
/// losses) resumes the repairs on that ACK, where the go-back-N stood (1), not at the next
/// advance of the cumulative ACK. Same start as above; at 1100 ms the SACK of 11: cwnd 2,
/// so 1 and 2 go again; the new data 11, 12 is not part of the go-back-N.
#[test]
fn frto_resumes_the_repairs_when_the_loss_is_real() {
    let mut c = rack(base());
    c.timeout_response = TimeoutResponse::Linux;
    c.frto = true;
    c.initial_rto = Duration(500 * MS);
    let mut h = H::new(c);
    h.start();
    h.run_until(1_000 * MS);
    assert_eq!(seqs(&h.ack_echo(1_050 * MS, 0, &[], 0)), [11, 12]);
    assert_eq!(
        seqs(&h.ack_echo(1_100 * MS, 0, &[(11, 12)], 1_050 * MS)),
        [1, 2]
    );
    assert_eq!(h.s.frto, None);
    // The next advance goes on from 3: 1..=4 acknowledged, cwnd 3, packets 5, 6, 7; 11 and
    // 12 are skipped.
    let next = seqs(&h.ack_echo(1_200 * MS, 4, &[(11, 12)], 1_100 * MS));
    assert_eq!(next, [5, 6, 7]);
}

/// Linux `tcp_rearm_rto` with `tcp_rto_delta_us` (net/ipv4/tcp_input.c, include/net/tcp.h):
/// when the timer slot goes back to the RTO from a pending reordering (or probe) timer, the
/// RTO counts from the head's last transmission, not from now. By hand (RACK-TLP, RFC 6298
/// estimator, 1 ms ticks):
/// - 0 ms: 0..=9, the probe pending since. 100 ms: ACK of 0..=4: RTT 100 ms, RTO = 100 +
///   4 x 50 = 300 ms; its expiry is 400 ms by RFC 6298's restart, and 0 + 300 = 300 ms by
///   Linux's (the probe was pending: from the head, 5, sent at 0); slow start sends
///   10..=15; the probe waits 2 SRTT = 200 ms (until 300 ms).
/// - 120 ms: SACK of 6 (sent at 0): limited transmit sends new 16; RACK waits min_RTT / 4 =
///   25 ms for 5 (until 145 ms); the slot holds the reordering timer.
/// - 130 ms: 5 and 6 acknowledged. The slot goes back to the RTO: with RFC 6298's restart,
///   130 + 300 = 430 ms; with Linux's, from the new head (7, sent at 0): 0 + 300 = 300 ms.
///   (A probe is then scheduled at min(130 + 200, expiry) for both.)
#[test]
fn tcp_rearm_rto_counts_from_the_heads_last_transmission() {
    for (restart, expiry_100, expiry) in [
        (RtoRestart::HeadRetransmission, 400 * MS, 430 * MS),
        (RtoRestart::Linux, 300 * MS, 300 * MS),
    ] {
        let mut c = rack(base());
        c.rto_restart = restart;
        let mut h = H::new(c);
        h.start();
        assert_eq!(
            seqs(&h.ack_echo(100 * MS, 4, &[], 0)),
            [10, 11, 12, 13, 14, 15]
        );
        assert_eq!(h.s.rtt.rto(), 300 * MS);
        assert_eq!((h.s.rto_at, h.s.rtx_mode), (expiry_100, XmitTimer::Probe));
        assert_eq!(
            seqs(&h.ack_echo(120 * MS, 4, &[(6, 7)], 0)),
            [16],
            "limited transmit"
        );
        assert_eq!(h.s.rtx_mode, XmitTimer::Reorder);
        assert_eq!(h.s.rtx.deadline(), Some(145 * MS));
        h.ack_echo(130 * MS, 6, &[], 0);
        assert_eq!(h.s.rto_at, expiry, "{restart:?}");
        assert_eq!(
            h.s.rtx.deadline(),
            Some((330 * MS).min(expiry)),
            "{restart:?}"
        );
    }
}

/// Linux 6.x's `tcp_ack` resets the timers only for an ACK that acknowledges or SACKs data
/// (`FLAG_SET_XMIT_TIMER`): a bare duplicate ACK leaves a pending probe as it is; the RFC 8985
/// reading here takes the slot back to the RTO on any ACK.
#[test]
fn a_bare_duplicate_ack_leaves_linuxs_probe_pending() {
    for (restart, mode) in [
        (RtoRestart::HeadRetransmission, XmitTimer::Rto),
        (RtoRestart::Linux, XmitTimer::Probe),
    ] {
        let mut c = rack(base());
        c.rto_restart = restart;
        let mut h = H::new(c);
        h.start();
        h.ack_echo(100 * MS, 4, &[], 0);
        assert_eq!(h.s.rtx_mode, XmitTimer::Probe);
        h.ack_echo(150 * MS, 4, &[], 0);
        assert_eq!(h.s.rtx_mode, mode, "{restart:?}");
    }
}

/// Linux `tcp_time_to_recover` with `net.ipv4.tcp_recovery = 1`: "the loss is proven"
/// (`lost_out`) starts a recovery, the DupThresh count no longer does (RFC 8985 section 4:
/// RACK replaces it). Once reordering was seen, RACK waits min_RTT / 4 even with three
/// packets SACKed above a hole, where RFC 6675's IsLost starts the recovery at once:
/// - 0 ms: 0..=9. 100 ms: SACK of 1; 101 ms: 0 arrives late (never sent again, below RACK's
///   highest delivered): reordering; RTT samples 100 and 101 ms.
/// - 110 ms: SACK of 3..=5, hole at 2: RFC 6675 (three SACKed above it) resends 2 now; RACK
///   waits RACK.rtt (110 ms, 5's) + 100 / 4 = 135 ms after 2's sending: at 135 ms.
#[test]
fn rack_alone_decides_when_a_recovery_starts() {
    for (rack_on, at_110, at_135) in [(false, vec![2], vec![]), (true, vec![], vec![2])] {
        let mut c = base();
        c.rack_tlp.enabled = rack_on;
        let mut h = H::new(c);
        h.start();
        h.ack_echo(100 * MS, -1, &[(1, 2)], 0);
        h.ack_echo(101 * MS, 1, &[], 0);
        let sent_110 = h.ack_echo(110 * MS, 1, &[(3, 6)], 0);
        let retransmitted = |ps: &[Packet]| -> Vec<i64> {
            ps.iter()
                .filter(|p| p.retransmission)
                .map(|p| p.seq)
                .collect()
        };
        assert_eq!(retransmitted(&sent_110), at_110, "RACK {rack_on}");
        assert_eq!(
            retransmitted(&h.run_until(135 * MS)),
            at_135,
            "RACK {rack_on}"
        );
        assert!(h.s.scb.in_recovery());
    }
}

/// `tcp.overhead` (ns-2's `overhead_` and `delsnd_timer_`) in the `rfc6675` sender: window
/// sends wait a uniform draw in [0, overhead) from the sender's own stream, then go out all
/// at once; so do a recovery's sends, except the fast retransmit, which goes at once. By hand
/// (IW 2, DupThresh rule, no RACK), with draws d0..d3 of the stream:
/// - start: nothing; at d0: 0, 1.
/// - 100 ms, ACK of 0: cwnd 3; at 100 ms + d1: 2, 3.
/// - 200 ms, ACK of 1: cwnd 4; at 200 ms + d2: 4, 5.
/// - 300, 301 ms: SACK of 3, then 3..=4: limited transmit, at once: 6, 7.
/// - 302 ms: SACK of 3..=5: 2 is lost (three SACKed above); recovery: ssthresh = 6 / 2 = 3,
///   pipe 2 (6, 7): sndcnt = MIN(3 - 2, MAX(1, 1) + 1) = 1: the fast retransmit of 2, at once.
/// - 303 ms: SACK of 3..=6: pipe 2 (7, and 2 resent): sndcnt = MIN(1, MAX(2 - 1, 1) + 1) = 1,
///   held: cwnd = pipe + 1 = 3 until 303 ms + d3, when new 8 goes.
#[test]
fn overhead_delays_the_rfc6675_senders_sends_but_not_the_fast_retransmit() {
    let o = 10 * MS;
    let mut c = base();
    c.window_init = 2;
    c.overhead = Duration(o);
    let mut h = H::new(c);
    let mut r = RngStream::new(1, StreamKind::Agent, 0);
    let d: Vec<Time> = (0..4).map(|_| (r.uniform() * o as f64) as Time).collect();
    assert!(h.start().is_empty());
    assert_eq!(h.s.delayed.as_ref().unwrap().timer.deadline(), Some(d[0]));
    assert_eq!(seqs(&h.run_until(d[0])), [0, 1]);
    assert!(h.ack_echo(100 * MS, 0, &[], 0).is_empty());
    assert_eq!(seqs(&h.run_until(100 * MS + d[1])), [2, 3]);
    assert!(h.ack_echo(200 * MS, 1, &[], 0).is_empty());
    assert_eq!(seqs(&h.run_until(200 * MS + d[2])), [4, 5]);
    assert_eq!(seqs(&h.ack_echo(300 * MS, 1, &[(3, 4)], 0)), [6]);
    assert_eq!(seqs(&h.ack_echo(301 * MS, 1, &[(3, 5)], 0)), [7]);
    assert_eq!(
        seqs(&h.ack_echo(302 * MS, 1, &[(3, 6)], 0)),
        [2],
        "the fast retransmit"
    );
    assert!(h.s.scb.in_recovery());
    assert!(h.ack_echo(303 * MS, 1, &[(3, 7)], 0).is_empty());
    assert_eq!(
        h.s.delayed.as_ref().unwrap().timer.deadline(),
        Some(303 * MS + d[3])
    );
    assert_eq!(seqs(&h.run_until(303 * MS + d[3])), [8]);
    assert!(d.iter().all(|&x| x < o));
}

/// Linux `tcp_is_cwnd_limited` (include/net/tcp.h) with `tcp_cwnd_validate`
/// (net/ipv4/tcp_output.c) against RFC 5681, for a flow the receiver's window holds to 4
/// packets. By hand: cwnd 6 (IW), slow start, Linux's per-packet growth; 0..=3 leave at 0 ms
/// (the window allows 4; 4 of 6 in flight: not cwnd-limited, 4 packets out). Each ACK of one
/// packet releases one more. RFC 5681 grows cwnd by one per ACK: 7, 8, 9, 10. Linux grows only
/// while cwnd < 2 x 4 packets out in slow start: 7, 8, 8, 8.
#[test]
fn tcp_is_cwnd_limited_keeps_a_receiver_limited_cwnd() {
    use crate::transport::tcp::congestion::CwndGrowth;
    for (gated, expected) in [(false, [7.0, 8.0, 9.0, 10.0]), (true, [7.0, 8.0, 8.0, 8.0])] {
        let cfg = TcpConfig {
            window: 4,
            window_init: 6,
            cwnd_growth: CwndGrowth::PacketsAcked,
            grow_only_when_cwnd_limited: gated,
            ..base()
        };
        cfg.validate("tcp").unwrap();
        let mut h = H::new(cfg);
        assert_eq!(seqs(&h.start()), [0, 1, 2, 3]);
        let mut cwnds = vec![];
        for k in 0..4 {
            let sent = h.ack_echo((100 + k) * MS, k as i64, &[], 0);
            assert_eq!(
                seqs(&sent),
                [k as i64 + 4],
                "the receiver's window releases one"
            );
            cwnds.push(h.state("cwnd"));
        }
        assert_eq!(cwnds, expected, "grow_only_when_cwnd_limited = {gated}");
    }
}

/// Pacing (`tcp.pacing = "on"`, `pacing.rs`), by hand (Reno, IW 10, timestamps, 1040-byte
/// packets):
/// - 0 ms: packets 0..=9 at once (no RTT sample yet, and Linux leaves the first 10 unpaced).
/// - 100 ms: the ACK of all ten: srtt 100 ms, cwnd 11 (slow start), 11 < ssthresh 100 / 2:
///   rate = 200 % x 1040 x 11 / 0.1 s = 228 800 B/s, 1040 / rate = 4 545 454 ns. Packet 10
///   leaves at once; the departure time had last moved at 0, so the send is late and half a
///   packet's time is credited (`tcp_update_skb_after_send`): 11 follows 2 272 727 ns later,
///   then each of 12..=20 one full gap after the one before.
#[test]
fn a_paced_sender_spaces_its_packets_by_size_over_rate() {
    let mut c = base();
    c.pacing = Pacing::On;
    c.timestamps = true;
    let mut h = H::validated(c);
    let first = h.start();
    assert_eq!(seqs(&first), (0..10).collect::<Vec<_>>());
    assert!(first.iter().all(|p| p.sent_at == 0));
    let at_ack = h.ack_echo(100 * MS, 9, &[], 0);
    assert_eq!(seqs(&at_ack), [10]);
    assert_eq!(h.state("pacing_rate_bps"), 228_800.0 * 8.0);
    let gap: Time = 4_545_454;
    let rest = h.run_until(200 * MS);
    assert_eq!(seqs(&rest), (11..=20).collect::<Vec<_>>(), "cwnd 11");
    let times: Vec<Time> = rest.iter().map(|p| p.sent_at).collect();
    let want: Vec<Time> = (0..10).map(|k| 100 * MS + gap / 2 + k * gap).collect();
    assert_eq!(times, want);
}

/// Pacing off (the default) leaves the sends exactly as before: the same ACKs give the
/// same packets at the same times, and no pacing series.
#[test]
fn pacing_off_sends_the_window_at_once() {
    let mut c = base();
    c.timestamps = true;
    let mut h = H::validated(c);
    h.start();
    let at_ack = h.ack_echo(100 * MS, 9, &[], 0);
    assert_eq!(seqs(&at_ack), (10..=20).collect::<Vec<_>>());
    assert!(at_ack.iter().all(|p| p.sent_at == 100 * MS));
    assert!(h.state("pacing_rate_bps").is_nan());
}

/// `segmentation_offload = "linux_autosize"` with a SYN handshake, by hand (Reno, pacing on,
/// IW 10, 1040-byte packets, ssthresh 100; net/ipv4/tcp_output.c):
/// - SYN at 0, SYN-ACK at 100 ms: srtt 100 ms; `tcp_update_pacing_rate`: 10 < 100 / 2, so
///   200 % x 1040 x 10 / 0.1 s = 208 000 B/s; `tcp_tso_autosize`: 208 000 >> 10 = 203 B, no
///   whole packet, so `sysctl_tcp_min_tso_segs` 2 (min RTT 100 000 us >> 9 = 195: no RTT
///   allowance).
/// - 100 ms: the first window, packets 0..=9 at once, as five skbs of 2; `data_segs_out`
///   after each is 2, 4, 6, 8, 10 (`__tcp_transmit_skb` counts before
///   `tcp_update_skb_after_send` tests >= 10): only the fifth is paced, 2080 B / 208 000 B/s
///   = 10 ms: the next departure is 110 ms. (Linux does not pace a first window of 10.)
/// - 200 ms: the ACK of 0 and 1 (timed packet 0: RTT 100 ms, srtt 100 ms), cwnd 11: rate
///   228 800 B/s, skbs of 2 (223 B). Packets 10 and 11 leave together as one skb; it starts
///   at max(110, 200) ms, 90 ms late, so half its 2080 / 228 800 s = 9 090 909 ns is credited:
///   next departure 200 ms + 4 545 455 ns. Packet 12 (cwnd-limited: an skb of 1) then, and
///   nothing more (11 out).
///
/// With `none` (before): the 11th packet is the first paced: 10 at 200 ms, then 11 half a
/// packet later (credited), 12 a packet after: 202 272 727 and 206 818 181 ns.
#[test]
fn linux_autosize_sends_skbs_of_tso_segs_paced_as_one() {
    for (offload, next_after_first, times) in [
        (
            SegmentationOffload::LinuxAutosize,
            110 * MS,
            [200 * MS, 200 * MS, 204_545_455],
        ),
        (
            SegmentationOffload::None,
            100 * MS,
            [200 * MS, 202_272_727, 206_818_181],
        ),
    ] {
        let mut c = base();
        c.pacing = Pacing::On;
        c.handshake = Handshake::Syn;
        c.segmentation_offload = offload;
        let mut h = H::validated(c);
        assert_eq!(seqs(&h.start()), [-1]);
        let first = h.ack_echo(100 * MS, -1, &[], 0);
        assert_eq!(seqs(&first), (0..10).collect::<Vec<_>>());
        assert!(first.iter().all(|p| p.sent_at == 100 * MS), "{offload:?}");
        assert_eq!(h.state("pacing_rate_bps"), 208_000.0 * 8.0);
        let pacer = h.s.pacer.as_ref().unwrap();
        assert_eq!(pacer.next_departure(), next_after_first, "{offload:?}");
        let mut sent = h.ack(200 * MS, 1, &[]);
        sent.extend(h.run_until(300 * MS));
        assert_eq!(seqs(&sent), [10, 11, 12], "{offload:?}");
        let at: Vec<Time> = sent.iter().map(|p| p.sent_at).collect();
        assert_eq!(at, times, "{offload:?}");
    }
}

/// BBR after a SYN handshake (`bbr_init` from `tcp_init_transfer`): the first pacing rate
/// is `bbr_init_pacing_rate_from_rtt` with the handshake's srtt, not the nominal 1 ms: SYN-ACK
/// at 100 ms: 2.887 (739 / 256) x 10 packets / 0.1 s x 1040 B x 99 % = 297 216.5625 B/s
/// (before the handshake, 1 ms: 100 times that); `bbr_min_tso_segs` 2 (above 150 000 B/s),
/// 297 216 >> 10 = 290 B: skbs of 2.
#[test]
fn bbr_starts_from_the_handshake() {
    let mut c = base();
    c.congestion_control = CongestionControlKind::Bbr;
    c.handshake = Handshake::Syn;
    c.segmentation_offload = SegmentationOffload::LinuxAutosize;
    let mut h = H::validated(c);
    h.start();
    assert_eq!(h.state("pacing_rate_bps"), 29_721_656.25 * 8.0);
    assert!(h.state("bbr_rt_prop_ms").is_nan());
    h.ack_echo(100 * MS, -1, &[], 0);
    assert_eq!(h.state("pacing_rate_bps"), 297_216.562_5 * 8.0);
    assert_eq!(
        h.state("bbr_rt_prop_ms"),
        100.0,
        "tcp_min_rtt: the SYN's RTT"
    );
    assert_eq!(h.s.pacer.as_ref().unwrap().tso_segs(), 2);
}
/// `ecn_fallback` (Linux `net.ipv4.tcp_ecn_fallback`, RFC 3168 6.1.1.1): DCTCP with ECN, a SYN
/// at 0 ms lost, its retransmission at the 1 s initial RTO answered at 1100 ms. Linux sends
/// the second SYN without ECE and CWR (`tcp_ecn_clear_syn`), the SYN-ACK agrees to no ECN
/// (`tcp_ecn_rcv_synack`) and DCTCP runs as `dctcp_reno` (`dctcp_init`): the first window,
/// 0..=9, leaves Not-ECT and no alpha is kept (TCP_CC_INFO has none). Without the fallback:
/// ECT(0) and alpha, 1.0 at the start.
#[test]
fn a_retransmitted_syn_leaves_the_connection_without_ecn() {
    for (fallback, ect) in [(true, false), (false, true)] {
        let mut c = rack(base());
        c.congestion_control = CongestionControlKind::Dctcp;
        c.ecn = true;
        c.handshake = Handshake::Syn;
        c.ecn_fallback = fallback;
        let mut h = H::validated(c);
        assert_eq!(seqs(&h.start()), [-1]);
        assert_eq!(seqs(&h.run_until(1_000 * MS)), [-1], "the SYN again");
        let first = h.ack_echo(1_100 * MS, -1, &[], 1_000 * MS);
        assert_eq!(seqs(&first), (0..10).collect::<Vec<_>>());
        assert!(
            first.iter().all(|p| p.ecn.ect == ect),
            "fallback {fallback}"
        );
        assert_eq!(
            h.state("dctcp_alpha").is_nan(),
            fallback,
            "fallback {fallback}"
        );
    }
}

/// The same for TCP Prague (tcp_prague.c `prague_init`: without ECN, `prague_release` drops
/// ECT and the pacing need, and the socket runs `prague_reno`): after a retransmitted SYN the
/// first window leaves Not-ECT, unpaced, with no alpha; without the fallback ECT(1), paced.
#[test]
fn a_prague_connection_without_ecn_is_reno_unpaced() {
    for (fallback, ect) in [(true, false), (false, true)] {
        let mut c = rack(base());
        c.congestion_control = CongestionControlKind::Prague;
        c.ecn = true;
        c.handshake = Handshake::Syn;
        c.ecn_fallback = fallback;
        let mut h = H::validated(c);
        h.start();
        h.run_until(1_000 * MS);
        let first = h.ack_echo(1_100 * MS, -1, &[], 1_000 * MS);
        assert!(!first.is_empty());
        assert!(
            first.iter().all(|p| p.ecn.ect == ect && p.ecn.ect1 == ect),
            "fallback {fallback}"
        );
        assert_eq!(h.s.pacer.is_some(), !fallback, "fallback {fallback}");
        assert_eq!(
            h.state("dctcp_alpha").is_nan(),
            fallback,
            "fallback {fallback}"
        );
    }
}

/// `syn_ect` (Linux `tcp_ecn_send_syn`, net/ipv4/tcp_output.c): with ECN, DCTCP (which
/// needs it, `TCP_CONG_NEEDS_ECN`) sends its SYN, and its retransmission, ECT(0) under
/// `"linux"`; Reno's SYN stays Not-ECT (it only asks for ECN); under `"rfc3168"` no SYN is
/// ECT (RFC 3168 6.1.1).
#[test]
fn syn_ect_as_tcp_ecn_send_syn() {
    for (syn_ect, cc, ect) in [
        (SynEct::Linux, CongestionControlKind::Dctcp, true),
        (SynEct::Linux, CongestionControlKind::Reno, false),
        (SynEct::Rfc3168, CongestionControlKind::Dctcp, false),
    ] {
        let mut c = rack(base());
        c.congestion_control = cc;
        c.ecn = true;
        c.handshake = Handshake::Syn;
        c.syn_ect = syn_ect;
        let mut h = H::validated(c);
        let first = h.start();
        let again = h.run_until(1_000 * MS);
        assert_eq!((seqs(&first), seqs(&again)), (vec![-1], vec![-1]));
        for syn in first.iter().chain(&again) {
            assert_eq!(syn.ecn.ect, ect, "{syn_ect:?} {cc:?}");
        }
    }
}

/// `timeout_marks = "linux"` (Linux `tcp_timeout_mark_lost` from `tcp_enter_loss`, then
/// `tcp_xmit_retransmit_queue` and `tcp_write_xmit` in the Loss state; net/ipv4/tcp_input.c,
/// tcp_output.c, tcp_recovery.c) against the go-back-N. The start is
/// `tcp_enter_loss_cuts_once_per_window_and_keeps_what_is_in_flight`'s: at the RTO (1000 ms)
/// 1..=13 are SACKed, 0 (the head, last sent at 200 ms) is old, 14, 15 (sent at 200 ms) and
/// 16, 17 (950 ms) are recent; RACK.rtt = 850 ms (13, sent at 100, SACKed at 950).
/// By hand:
/// - 1000 ms: marked lost: the head 0, and each unSACKed packet with
///   `tcp_rack_skb_timeout(tp, skb, 0)` = 850 - (1000 - sent) <= 0: none (14, 15: 850 - 800;
///   16, 17: 850 - 50). pipe 4, cwnd = 4 + 1 = 5; 0 is resent (pipe 5). Both alike.
/// - 1100 ms: SACK of 14, 15 (echo 200 ms): pipe 3 (0, 16, 17). RACK marks nothing (the newest
///   delivered, 15, was sent at 200 ms, before nothing unSACKed but 0, resent at 1000). Linux
///   (`tcp_write_xmit`, in flight 3 < cwnd 5): new 18, 19. The go-back-N's limited transmit
///   allows nothing (20 outstanding >= cwnd 5 + 1 duplicate ACK).
/// - 1150 ms: ACK of 0..=15 (echo 1000 ms, 0's resend): Reno's avoidance, cwnd 5 + 1/5 = 5.2.
///   RACK: RACK.rtt = 150 ms, no reordering window in the Loss state: 16, 17 (sent 200 ms
///   ago) are marked and resent, then new 20 while pipe < 5 (18, 19, 16, 17, 20). The
///   go-back-N resends from 16 on by its count of packets from snd_una: 16, 17, then new
///   18, 19, 20.
///
/// Resent after the RTO: Linux {0} at once and {16, 17} when RACK marks them; the go-back-N
/// the same packets, with the new data held back a round trip.
#[test]
fn tcp_timeout_mark_lost_resends_only_the_marked_packets() {
    for (marks, at_1100, at_1150) in [
        (TimeoutMarks::Linux, vec![18, 19], vec![16, 17, 20]),
        (TimeoutMarks::AllUnsacked, vec![], vec![16, 17, 18, 19, 20]),
    ] {
        let mut c = rack(base());
        c.timeout_response = TimeoutResponse::Linux;
        c.timeout_marks = marks;
        let mut h = H::validated(c);
        h.start();
        h.ack_echo(100 * MS, -1, &[(1, 10)], 0);
        h.ack_echo(200 * MS, -1, &[(10, 12), (1, 10)], 100 * MS);
        h.ack_echo(950 * MS, -1, &[(12, 14), (10, 12), (1, 10)], 100 * MS);
        assert_eq!(seqs(&h.run_until(1_000 * MS)), [0], "{marks:?}");
        let lost: Vec<i64> = (0..18).filter(|&q| h.s.scb.is_lost(q)).collect();
        assert_eq!(lost, [0], "{marks:?}");
        assert_eq!((h.s.cwnd, h.s.scb.pipe()), (5.0, 5), "{marks:?}");
        let sent = h.ack_echo(1_100 * MS, -1, &[(14, 16), (1, 14)], 200 * MS);
        assert_eq!(seqs(&sent), at_1100, "{marks:?}");
        let sent = h.ack_echo(1_150 * MS, 15, &[], 1_000 * MS);
        assert_eq!(seqs(&sent), at_1150, "{marks:?}");
        assert_eq!(h.s.cwnd, 5.2, "{marks:?}");
    }
}
