//! The sender driven directly with scripted ACKs: each test checks one ns-2 behaviour
//! against numbers worked out by hand from tcp.cc / tcp-reno.cc / tcp-newreno.cc /
//! tcp-sack1.cc.

use super::*;
use crate::net::Packet;
use crate::sim::StreamKind;
use crate::transport::tcp::agent_rig::{seqs, AgentRig};

const MS: Time = 1_000_000;
const SEC: Time = 1_000_000_000;

struct H {
    rig: AgentRig,
    s: TcpSender,
}

impl H {
    fn new(cfg: TcpConfig, limit: Option<u64>) -> H {
        H::with_seed(cfg, limit, 1)
    }

    /// A sender whose own random stream (the `overhead` delays) comes from `seed`.
    fn with_seed(cfg: TcpConfig, limit: Option<u64>, seed: u64) -> H {
        let ep = AgentRig::SENDER;
        H {
            rig: AgentRig::new(ep),
            s: TcpSender::new(cfg, ep, limit, RngStream::new(seed, StreamKind::Agent, 0)),
        }
    }

    fn start(&mut self) -> Vec<Packet> {
        self.s.start(&mut self.rig.cx(0));
        self.rig.take_sent()
    }

    /// Fires the sender's timers up to `t`; returns what they sent.
    fn run_until(&mut self, t: Time) -> Vec<Packet> {
        self.rig
            .run_timers_until(t, |cx, timer| self.s.timer(cx, timer))
    }

    fn ack_full(&mut self, t: Time, ack: i64, ece: bool, sack: &[(i64, i64)]) -> Vec<Packet> {
        let mut out = self.run_until(t);
        let mut p = AgentRig::ack_packet(ack, sack);
        p.ecn.ece = ece;
        let s = &mut self.s;
        out.extend(self.rig.deliver(t, p, |cx, id| s.receive(cx, id)));
        out
    }

    fn ack(&mut self, t: Time, ack: i64) -> Vec<Packet> {
        self.ack_full(t, ack, false, &[])
    }
}

fn cfg(variant: TcpVariant) -> TcpConfig {
    TcpConfig {
        variant,
        window: 64,
        ..TcpConfig::default()
    }
}

/// [`cfg`] with cwnd 10 and ssthresh 2: congestion avoidance from the first packet.
fn cfg_avoiding(variant: TcpVariant) -> TcpConfig {
    TcpConfig {
        window_init: 10,
        ssthresh_init: Some(2),
        ..cfg(variant)
    }
}

/// A lossless path: every packet of a round is acked one RTT after the round started.
/// Returns the number of packets sent in each round.
fn lossless_rounds(h: &mut H, rounds: usize) -> Vec<usize> {
    let rtt = 100 * MS;
    let mut flight = seqs(&h.start());
    let mut sizes = vec![flight.len()];
    for r in 1..rounds {
        let t = r as Time * rtt;
        let mut next = vec![];
        for s in flight {
            next.extend(seqs(&h.ack(t, s)));
        }
        sizes.push(next.len());
        flight = next;
    }
    sizes
}

#[test]
fn slow_start_doubles_per_rtt_up_to_the_window() {
    let mut h = H::new(cfg(TcpVariant::Reno), None);
    let sizes = lossless_rounds(&mut h, 8);
    // ssthresh = window = 64: doubling until the advertised window caps the flight.
    assert_eq!(sizes, vec![2, 4, 8, 16, 32, 64, 64, 64]);
    assert_eq!(h.rig.stats.rtt_samples, 7, "one timed packet per window");
    assert_eq!(h.rig.stats.retransmissions, 0);
}

#[test]
fn congestion_avoidance_adds_one_packet_per_rtt() {
    let mut h = H::new(cfg_avoiding(TcpVariant::Reno), None);
    let sizes = lossless_rounds(&mut h, 12);
    // cwnd += 1/cwnd per ACK: exactly +1 per round once cwnd is whole, sometimes a round
    // late because of the fractional part.
    for w in sizes.windows(2) {
        assert!(w[1] == w[0] || w[1] == w[0] + 1, "{sizes:?}");
    }
    assert!((19..=21).contains(&sizes[11]), "{sizes:?}");
    assert!(h.s.cwnd > 20.0 && h.s.cwnd < 22.0, "cwnd {}", h.s.cwnd);
}

/// Window of 10 in congestion avoidance; ACK 0 arrives (cwnd 10.1, packet 10 goes out),
/// then packet 1 is lost and packets 2.. produce duplicate ACKs of 0. Limited transmit is
/// off here (ns-2 before 2001, `singledup_ 0`) so that these sequences show recovery alone;
/// `limited_transmit_*` tests below repeat them with it on.
fn reno_loss_setup(variant: TcpVariant) -> H {
    reno_loss_setup_lt(variant, false)
}

fn reno_loss_setup_lt(variant: TcpVariant, limited_transmit: bool) -> H {
    let mut c = cfg_avoiding(variant);
    c.limited_transmit = limited_transmit;
    let mut h = H::new(c, None);
    assert_eq!(seqs(&h.start()), (0..10).collect::<Vec<_>>());
    assert_eq!(seqs(&h.ack(100 * MS, 0)), vec![10]);
    h
}

#[test]
fn reno_fast_retransmit_inflates_and_deflates() {
    let mut h = reno_loss_setup(TcpVariant::Reno);
    assert!(h.ack(110 * MS, 0).is_empty());
    assert!(h.ack(111 * MS, 0).is_empty());
    let fr = h.ack(112 * MS, 0);
    assert_eq!(seqs(&fr), vec![1]);
    assert!(fr[0].retransmission);
    assert_eq!(h.s.ssthresh, 5); // floor(10.1) / 2
    assert_eq!(h.rig.stats.fast_recoveries, 1);
    // Window = cwnd 5 + 3 inflation = 8 < 11 outstanding; each further dup ACK adds one:
    // the 6th dup ACK opens the window to 11 and sends packet 11.
    assert!(h.ack(113 * MS, 0).is_empty());
    assert!(h.ack(114 * MS, 0).is_empty());
    assert_eq!(seqs(&h.ack(115 * MS, 0)), vec![11]);
    assert_eq!(seqs(&h.ack(116 * MS, 0)), vec![12]);
    // The retransmission is acked with everything up to 12: deflate to ssthresh, add 1/5.
    let after = h.ack(200 * MS, 12);
    assert_eq!(h.s.dupwnd, 0);
    assert!((h.s.cwnd - 5.2).abs() < 1e-9);
    assert_eq!(seqs(&after), (13..18).collect::<Vec<_>>());
    assert_eq!(h.rig.stats.retransmissions, 1);
}

/// Packets 1 and 4 lost: duplicate ACKs of 0 from packets 2, 3, 5..10.
fn two_losses(h: &mut H) -> Vec<Packet> {
    let mut out = vec![];
    for (i, _) in [2, 3, 5, 6, 7, 8, 9, 10].iter().enumerate() {
        out.extend(h.ack(110 * MS + i as Time * MS, 0));
    }
    out
}

#[test]
fn newreno_partial_ack_retransmits_the_next_hole_and_stays_in_recovery() {
    let mut h = reno_loss_setup(TcpVariant::NewReno);
    let out = two_losses(&mut h);
    assert_eq!(seqs(&out)[0], 1);
    // The retransmitted 1 arrives: ACK 3 is partial (recover = 10).
    let p = h.ack(200 * MS, 3);
    let re: Vec<i64> = p
        .iter()
        .filter(|p| p.retransmission)
        .map(|p| p.seq)
        .collect();
    assert_eq!(re, vec![4]);
    assert_eq!(h.s.last_cwnd_action, CwndAction::DupAck);
    assert_eq!(h.rig.stats.fast_recoveries, 1);
    // Deflated by the 3 packets acked, plus one.
    assert_eq!(h.s.cwnd, 5.0);
    assert_eq!(h.s.dupwnd, 8 - 3 + 1);
    // The full ACK ends recovery with cwnd at ssthresh (+1/cwnd).
    let recover = h.s.recover;
    let _ = h.ack(300 * MS, recover);
    assert_eq!(h.s.dupwnd, 0);
    assert_eq!(h.s.last_cwnd_action, CwndAction::Exited);
    assert_eq!(h.rig.stats.timeouts, 0);
}

#[test]
fn reno_leaves_recovery_on_a_partial_ack_and_needs_a_timeout() {
    let mut h = reno_loss_setup(TcpVariant::Reno);
    two_losses(&mut h);
    let p = h.ack(200 * MS, 3);
    assert!(
        p.iter().all(|p| !p.retransmission),
        "Reno does not act on partial ACKs"
    );
    assert_eq!(h.s.last_cwnd_action, CwndAction::Exited);
    // Three more dup ACKs of 3 do not start a second fast retransmit in this window.
    for i in 0..3 {
        let p = h.ack(210 * MS + i * MS, 3);
        assert!(p.iter().all(|p| !p.retransmission));
    }
    assert_eq!(h.rig.stats.fast_recoveries, 1);
    // The retransmission timer recovers packet 4.
    let rto_at = h.s.rtx.deadline().unwrap();
    let p = h.run_until(rto_at);
    assert_eq!(seqs(&p)[..1], [4]);
    assert_eq!(h.rig.stats.timeouts, 1);
}

#[test]
fn sack_retransmits_two_holes_in_one_recovery() {
    let mut h = reno_loss_setup(TcpVariant::Sack);
    // SACK blocks as the sink would send them for arrivals 2, 3, 5, 6, ..., 10.
    let arrivals: [(i64, &[(i64, i64)]); 8] = [
        (2, &[(2, 3)]),
        (3, &[(2, 4)]),
        (5, &[(5, 6), (2, 4)]),
        (6, &[(5, 7), (2, 4)]),
        (7, &[(5, 8), (2, 4)]),
        (8, &[(5, 9), (2, 4)]),
        (9, &[(5, 10), (2, 4)]),
        (10, &[(5, 11), (2, 4)]),
    ];
    let mut sent = vec![];
    for (i, (_, blocks)) in arrivals.iter().enumerate() {
        sent.extend(h.ack_full(110 * MS + i as Time * MS, 0, false, blocks));
    }
    let re: Vec<i64> = sent
        .iter()
        .filter(|p| p.retransmission)
        .map(|p| p.seq)
        .collect();
    assert_eq!(re, vec![1, 4], "both holes before any cumulative progress");
    // Hole 4 is retransmitted before any new data.
    assert_eq!(seqs(&sent)[..2], [1, 4]);
    assert_eq!(h.rig.stats.fast_recoveries, 1);
    assert_eq!(h.s.ssthresh, 5);
    // Both retransmissions arrive: ACK 10 covers recover = 10 and ends recovery.
    h.ack(200 * MS, 3);
    assert!(h.s.fastrecov);
    h.ack(201 * MS, 10);
    assert!(!h.s.fastrecov);
    assert_eq!(h.rig.stats.timeouts, 0);
    assert_eq!(h.rig.stats.retransmissions, 2);
}

#[test]
fn rto_backs_off_exponentially_and_karn_skips_retransmitted_samples() {
    let mut h = H::new(cfg(TcpVariant::Reno), None);
    assert_eq!(seqs(&h.start()), vec![0, 1]);
    // Initial RTO 3 s, then 6 s, then 12 s: retransmissions of 0 at 3, 9 and 21 s.
    assert!(h.run_until(3 * SEC - 1).is_empty());
    let p = h.run_until(3 * SEC);
    assert_eq!(seqs(&p), vec![0]);
    assert!(p[0].retransmission);
    assert_eq!((h.s.cwnd, h.s.ssthresh), (1.0, 2));
    assert!(h.run_until(9 * SEC - 1).is_empty());
    assert_eq!(seqs(&h.run_until(9 * SEC)), vec![0]);
    assert_eq!(seqs(&h.run_until(21 * SEC)), vec![0]);
    assert_eq!(h.rig.stats.timeouts, 3);
    // ACK of the retransmitted 0: no RTT sample (Karn), the backoff (8x) stays.
    let p = h.ack(21 * SEC + 100 * MS, 0);
    assert_eq!(h.rig.stats.rtt_samples, 0);
    assert_eq!(seqs(&p), vec![1, 2]);
    assert_eq!(h.s.rtx.deadline(), Some(21 * SEC + 100 * MS + 24 * SEC));
    // Packet 2 was sent once and is timed: its ACK gives a sample and clears the backoff.
    h.ack(21 * SEC + 200 * MS, 2);
    assert_eq!(h.rig.stats.rtt_samples, 1);
    assert_eq!(h.s.rtt.backoff(), 1);
    assert_eq!(h.rig.stats.retransmissions, 4);
}

#[test]
fn ecn_halves_once_per_window_and_sets_cwr_on_the_next_new_packet() {
    let mut c = cfg_avoiding(TcpVariant::NewReno);
    c.ecn = true;
    let mut h = H::new(c, None);
    let first = h.start();
    assert!(first.iter().all(|p| p.ecn.ect && !p.ecn.cwr));
    // ECE on ACK 0: cwnd 10 -> 5, no window growth from this ACK.
    assert!(h.ack_full(100 * MS, 0, true, &[]).is_empty());
    assert_eq!((h.s.cwnd, h.s.ssthresh), (5.0, 5));
    assert_eq!(h.rig.stats.ecn_reductions, 1);
    // More ECEs from the same window (up to packet 9): no further cut.
    assert!(h.ack_full(101 * MS, 1, true, &[]).is_empty());
    assert!(h.ack_full(102 * MS, 2, true, &[]).is_empty());
    assert_eq!(h.rig.stats.ecn_reductions, 1);
    assert_eq!(h.s.cwnd, 5.0);
    // ACKs without ECE open the window again; the first new packet carries CWR.
    let mut sent = vec![];
    for a in 3..=9 {
        sent.extend(h.ack(110 * MS + a as Time * MS, a));
    }
    assert!(!sent.is_empty());
    assert!(sent[0].ecn.cwr && sent[0].seq == 10);
    assert!(sent[1..].iter().all(|p| !p.ecn.cwr));
    // An ECE for data sent after the cut is a new congestion signal.
    let c1 = h.s.cwnd;
    h.ack_full(300 * MS, 10, true, &[]);
    assert_eq!(h.rig.stats.ecn_reductions, 2);
    assert_eq!(h.s.cwnd, (c1.floor() / 2.0).floor());
}

#[test]
fn finite_transfer_completes_and_stops() {
    let mut h = H::new(cfg(TcpVariant::Reno), Some(5));
    let mut all = seqs(&h.start());
    for a in 0..5 {
        all.extend(seqs(&h.ack(100 * MS + a as Time * MS, a)));
    }
    assert_eq!(all, (0..5).collect::<Vec<_>>());
    assert_eq!(h.rig.stats.completed_at, Some(104 * MS));
    assert!(!h.s.rtx.is_armed());
    assert!(h.run_until(100 * SEC).is_empty());
}

#[test]
fn weird_acks_are_ignored() {
    // Limited transmit off: a SACK block claiming everything would count as a dup ACK and
    // send one packet, which is not what this test is about.
    let mut c = cfg(TcpVariant::Sack);
    c.limited_transmit = false;
    let mut h = H::new(c, None);
    h.start();
    // ACK of data never sent, and nonsense SACK blocks: no panic, no state change.
    assert!(h.ack_full(MS, 1000, false, &[(5, 3)]).is_empty());
    assert!(h.ack_full(MS, -7, false, &[]).is_empty());
    assert_eq!(h.s.highest_ack, -1);
    let p = h.ack_full(2 * MS, -1, false, &[(i64::MIN, i64::MAX), (1, 0)]);
    assert!(p.is_empty());
    h.ack(3 * MS, 0);
    assert_eq!(h.s.highest_ack, 0);
}

// ---- Limited transmit (RFC 3042; ns-2 `singledup_ 1`, tcp.cc `send_one`) ----

#[test]
fn limited_transmit_sends_one_new_packet_on_each_of_the_first_two_dup_acks() {
    for variant in [TcpVariant::Reno, TcpVariant::NewReno] {
        // 0..=10 sent, ACK 0 in: highest_ack 0, t_seqno 11, cwnd 10.1.
        let mut h = reno_loss_setup_lt(variant, true);
        // Dup ACK 1: 11 <= highest_ack 0 + cwnd 10.1 + dupacks 1 -> packet 11.
        assert_eq!(seqs(&h.ack(110 * MS, 0)), vec![11], "{variant:?}");
        assert_eq!(h.s.cwnd, 10.1, "limited transmit leaves cwnd alone");
        // Dup ACK 2: 12 <= 0 + 10.1 + 2 -> packet 12.
        assert_eq!(seqs(&h.ack(111 * MS, 0)), vec![12], "{variant:?}");
        assert_eq!(h.s.cwnd, 10.1);
        assert_eq!(h.s.dupwnd, 0);
        // Dup ACK 3: fast retransmit of 1 only; cwnd 5 + 3 = 8 < 13 outstanding.
        assert_eq!(seqs(&h.ack(112 * MS, 0)), vec![1], "{variant:?}");
        assert_eq!((h.s.cwnd, h.s.ssthresh), (5.0, 5));
        assert_eq!(h.rig.stats.retransmissions, 1);
        assert_eq!(h.rig.stats.packets_sent, 11 + 2 + 1);
    }
}

#[test]
fn without_limited_transmit_the_first_two_dup_acks_send_nothing() {
    let mut h = reno_loss_setup_lt(TcpVariant::Reno, false);
    assert!(h.ack(110 * MS, 0).is_empty());
    assert!(h.ack(111 * MS, 0).is_empty());
    assert_eq!(seqs(&h.ack(112 * MS, 0)), vec![1]);
}

#[test]
fn limited_transmit_respects_the_advertised_window() {
    let mut c = cfg_avoiding(TcpVariant::Reno);
    c.window = 11;
    let mut h = H::new(c, None);
    assert_eq!(seqs(&h.start()), (0..10).collect::<Vec<_>>());
    assert_eq!(seqs(&h.ack(100 * MS, 0)), vec![10]);
    // 11 <= highest_ack 0 + wnd 11: packet 11 may go; 12 > 0 + 11: the second may not.
    assert_eq!(seqs(&h.ack(110 * MS, 0)), vec![11]);
    assert!(h.ack(111 * MS, 0).is_empty());
}

#[test]
fn sack_limited_transmit_needs_new_sack_information() {
    let mut h = reno_loss_setup_lt(TcpVariant::Sack, true);
    // Packet 2 arrives: a dup ACK SACKing 2 -> packet 11.
    assert_eq!(seqs(&h.ack_full(110 * MS, 0, false, &[(2, 3)])), vec![11]);
    // The same block again reports nothing new (ns-2 CheckUpdate): not a dup ACK.
    assert!(h.ack_full(111 * MS, 0, false, &[(2, 3)]).is_empty());
    assert_eq!(h.s.dupacks, 1);
    // Packet 3 arrives: second dup ACK -> packet 12; cwnd unchanged.
    assert_eq!(seqs(&h.ack_full(112 * MS, 0, false, &[(2, 4)])), vec![12]);
    assert_eq!(h.s.cwnd, 10.1);
    assert!(!h.s.fastrecov);
}

// ---- Partial ACKs and the retransmission timer (ns-2 tcp-newreno.cc `newreno_changes1_`) ----

/// NewReno, limited transmit off, packets 1, 4 and 7 of 1..=10 lost. ACK 0 at 100 ms gave
/// one 100 ms RTT sample: srtt 10 ticks, rttvar 5 ticks, RTO (10 + 4 * 5) ticks = 300 ms.
/// Dup ACKs of 0 from 2, 3, 5, 6, 8, 9, 10 at 110..116 ms: fast retransmit of 1 at 112 ms
/// (timer 412 ms, cwnd 5, dupwnd 3), dup ACKs 6 and 7 open the window for 11 and 12.
/// Then ACK 3 at 200 ms and ACK 6 at 300 ms are partial (recover = 10). Returns the packets
/// sent on the two partial ACKs.
fn three_losses_two_partial_acks(h: &mut H) -> (Vec<i64>, Vec<i64>) {
    let mut out = vec![];
    for i in 0..7 {
        out.extend(seqs(&h.ack(110 * MS + i * MS, 0)));
    }
    assert_eq!(out, vec![1, 11, 12]);
    assert_eq!(h.s.rtx.deadline(), Some(412 * MS));
    assert_eq!(h.s.recover, 10);
    // ACK 3: deflate 5 + 7 - 3 + 1 = 10 -> dupwnd 5; retransmit 4; window 10 lets 13 go.
    let p1 = seqs(&h.ack(200 * MS, 3));
    // ACK 6: deflate 5 + 5 - 3 + 1 = 8 -> dupwnd 3; retransmit 7; window 8 lets 14 go.
    let p2 = seqs(&h.ack(300 * MS, 6));
    (p1, p2)
}

#[test]
fn newreno_restarts_the_timer_on_the_first_partial_ack_only_by_default() {
    let mut h = reno_loss_setup(TcpVariant::NewReno);
    assert_eq!(h.s.cfg.partial_ack_timer(), PartialAckTimer::First);
    let (p1, p2) = three_losses_two_partial_acks(&mut h);
    assert_eq!((p1, p2), (vec![4, 13], vec![7, 14]));
    // First partial ACK (200 ms): restarted to 200 + 300 ms. Second (300 ms): left alone.
    assert_eq!(h.s.rtx.deadline(), Some(500 * MS));
    // Nothing more arrives: the timer expires at 500 ms and goes back to packet 7.
    let p = h.run_until(500 * MS);
    assert_eq!(seqs(&p)[..1], [7]);
    assert_eq!(h.rig.stats.timeouts, 1);
}

#[test]
fn newreno_every_restarts_the_timer_on_every_partial_ack() {
    let mut c = cfg_avoiding(TcpVariant::NewReno);
    c.limited_transmit = false;
    c.partial_ack_timer = Some(PartialAckTimer::Every);
    let mut h = H::new(c, None);
    h.start();
    assert_eq!(seqs(&h.ack(100 * MS, 0)), vec![10]);
    let (p1, p2) = three_losses_two_partial_acks(&mut h);
    assert_eq!((p1, p2), (vec![4, 13], vec![7, 14]));
    // Restarted at 300 ms too: 300 + 300 ms.
    assert_eq!(h.s.rtx.deadline(), Some(600 * MS));
    assert!(h.run_until(599 * MS).is_empty());
    assert_eq!(h.rig.stats.timeouts, 0);
}

#[test]
fn the_first_partial_ack_rule_rearms_with_each_recovery() {
    let mut h = reno_loss_setup(TcpVariant::NewReno);
    three_losses_two_partial_acks(&mut h);
    assert!(h.s.first_partial);
    // ACK 10 covers recover: recovery ends and the next recovery starts afresh.
    h.ack(310 * MS, 10);
    assert!(!h.s.first_partial);
    assert_eq!(h.s.last_cwnd_action, CwndAction::Exited);
}

#[test]
fn partial_ack_timer_defaults_follow_ns2_per_variant() {
    assert_eq!(
        cfg(TcpVariant::NewReno).partial_ack_timer(),
        PartialAckTimer::First
    );
    assert_eq!(
        cfg(TcpVariant::Sack).partial_ack_timer(),
        PartialAckTimer::Every
    );
    let mut c = cfg(TcpVariant::Reno);
    assert!(c.validate("tcp").is_ok());
    c.partial_ack_timer = Some(PartialAckTimer::Every);
    let e = c.validate("tcp").unwrap_err();
    assert!(e.to_string().contains("tcp.partial_ack_timer"), "{e}");
}

// ---- Send jitter (ns-2 `overhead_`, tcp.cc `send_much` with `delsnd_timer_`) ----

fn jitter_cfg(overhead: Time) -> TcpConfig {
    let mut c = cfg(TcpVariant::Reno);
    c.overhead = crate::units::Duration(overhead);
    c
}

#[test]
fn overhead_delays_each_send_by_a_uniform_draw_from_the_agent_stream() {
    let o = 10 * MS;
    let mut h = H::new(jitter_cfg(o), None);
    // The same stream the harness gives the sender: the delays are these draws.
    let mut r = RngStream::new(1, StreamKind::Agent, 0);
    let d0 = (r.uniform() * o as f64) as Time;
    let d1 = (r.uniform() * o as f64) as Time;
    // start: the window allows 0 and 1, but only the delayed-send timer is armed.
    assert!(h.start().is_empty());
    assert_eq!(h.s.delsnd.deadline(), Some(d0));
    assert!(h.run_until(d0.saturating_sub(1)).is_empty() || d0 == 0);
    assert_eq!(seqs(&h.run_until(d0)), vec![0, 1]);
    // ACK 0 and ACK 1 at 100 ms: the first arms the timer at 100 ms + d1, the second finds
    // it pending and sends nothing; at the deadline everything the window (4) allows goes.
    assert!(h.ack(100 * MS, 0).is_empty());
    assert_eq!(h.s.delsnd.deadline(), Some(100 * MS + d1));
    assert!(h.ack(100 * MS, 1).is_empty());
    assert_eq!(seqs(&h.run_until(100 * MS + d1)), vec![2, 3, 4, 5]);
    assert!(d0 < o && d1 < o);
}

#[test]
fn overhead_draws_stay_in_bounds_and_repeat_for_the_same_seed() {
    let o = 5 * MS;
    let run = |seed: u64| {
        let mut h = H::with_seed(jitter_cfg(o), None, seed);
        let mut delays = vec![];
        let mut now = 0;
        h.start();
        for next_ack in 0..200 {
            let at =
                h.s.delsnd
                    .deadline()
                    .expect("a send is always pending here");
            assert!(
                at >= now && at < now + o,
                "delay {} not in [0, {o})",
                at - now
            );
            delays.push(at - now);
            let sent = seqs(&h.run_until(at));
            assert!(!sent.is_empty());
            // Each round: ACK the oldest outstanding packet 50 ms later.
            now = at + 50 * MS;
            assert!(h.ack(now, next_ack).is_empty(), "sends wait for the timer");
        }
        delays
    };
    let a = run(7);
    assert_eq!(a, run(7), "same seed, same delays");
    assert_ne!(a, run(8), "another seed, other delays");
    let mean = a.iter().sum::<Time>() as f64 / a.len() as f64;
    // Uniform [0, 5 ms): mean 2.5 ms, sd of the mean 1.44 ms / sqrt(200) = 0.1 ms.
    assert!((mean - 2.5e6).abs() < 0.5e6, "mean {mean}");
}
