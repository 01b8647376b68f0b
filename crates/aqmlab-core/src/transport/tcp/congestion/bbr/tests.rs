//! BBR's unit tests: Linux's constants, and its mode changes computed by hand on one-packet
//! rounds (tcp_bbr.c, the function named in each test).

use super::*;
use crate::sim::StreamKind;

/// A path of one packet per round trip: each round sends one packet when nothing is
/// outstanding and its ACK returns `rtt` later, so every ACK is a round start and every
/// sample is 1 packet over `rtt` (10 packets/s at 100 ms).
struct OnePacketRounds {
    rate: DeliveryRate,
    bbr: Bbr,
    cwnd: f64,
    now: Time,
    seq: i64,
}

impl OnePacketRounds {
    fn new(seed: u64) -> Self {
        OnePacketRounds {
            rate: DeliveryRate::default(),
            bbr: Bbr::new(RngStream::new(seed, StreamKind::Agent, 0), 1500, 10.0, 0),
            cwnd: 10.0,
            now: 0,
            seq: 0,
        }
    }

    fn round(&mut self, rtt: Time, losses: i64) {
        self.rate.on_sent(self.seq, self.now, 0, false);
        self.now += rtt;
        self.rate.begin_ack(1);
        self.rate.on_delivered(self.seq, false);
        self.rate.on_cum_ack(self.seq);
        self.rate.generate(self.now, losses);
        let info = AckInfo {
            now: self.now,
            in_flight: 0,
            ca_state: CaState::Open,
            srtt: rtt,
            next_departure: self.now,
        };
        self.bbr.on_ack(&mut self.rate, &info, &mut self.cwnd);
        self.seq += 1;
    }
}

#[test]
fn gains_are_linux_fixed_point_values() {
    assert_eq!(HIGH_GAIN, 739.0 / 256.0);
    assert_eq!(DRAIN_GAIN, 88.0 / 256.0);
    assert!((HIGH_GAIN - 2.0 / std::f64::consts::LN_2).abs() < 0.002);
}

/// `bbr_check_full_bw_reached` by hand: round 1's 10 packets/s sets full_bw (>= 0 x 1.25);
/// rounds 2, 3, 4 bring no 25 % growth: full_bw_cnt 1, 2, 3, and on round 4 the pipe is
/// full. The same ACK enters Drain with ssthresh = inflight(bw, 1): BDP ceil(10 x 0.1) = 1,
/// plus 3 TSO segments of 2 (the pacing rate, which only rises in Startup, is still the
/// first RTT's 2.887 x 10 packets / 100 ms x 1500 B x 0.99 = 428.7 kB/s, above 1.2 Mbit/s:
/// `bbr_min_tso_segs` 2): 7, rounded up to even: 8. With nothing in flight (0 + 2 TSO
/// segments at the high gain <= 8), ProbeBW at once, in a phase other than 0.75.
#[test]
fn three_rounds_without_growth_end_startup() {
    for seed in 1..=40 {
        let mut p = OnePacketRounds::new(seed);
        for round in 1..=3 {
            p.round(100 * MS, 0);
            assert_eq!(p.bbr.mode(), Mode::Startup, "round {round}");
            assert_eq!(p.bbr.pacing_gain(), HIGH_GAIN);
        }
        assert_eq!(p.bbr.rtt_cnt(), 3);
        assert_eq!(p.bbr.max_bw(), 10.0);
        assert_eq!(p.bbr.min_rtt(), Some(100 * MS));
        p.round(100 * MS, 0);
        assert!(p.bbr.full_bw_reached());
        assert_eq!(p.bbr.ssthresh(), Some(8.0));
        assert_eq!(p.bbr.mode(), Mode::ProbeBw, "seed {seed}");
        assert_ne!(
            p.bbr.cycle_idx(),
            1,
            "never the 0.75 phase first (seed {seed})"
        );
        assert_eq!(p.bbr.pacing_gain(), PACING_GAIN[p.bbr.cycle_idx()]);
        assert_eq!(p.bbr.cwnd_gain(), CWND_GAIN);
    }
}

/// The starting phase is drawn over the 7 phases other than 0.75 (`CYCLE_LEN - 1 -
/// prandom_u32_max(7)`, then one advance): each of {2, ..., 7, 0} comes up over seeds, and
/// the same seed gives the same phase.
#[test]
fn the_start_phase_is_random_but_seeded() {
    let mut seen = [false; CYCLE_LEN];
    for seed in 0..200 {
        let mut p = OnePacketRounds::new(seed);
        let mut q = OnePacketRounds::new(seed);
        for _ in 0..4 {
            p.round(100 * MS, 0);
            q.round(100 * MS, 0);
        }
        assert_eq!(p.bbr.cycle_idx(), q.bbr.cycle_idx());
        seen[p.bbr.cycle_idx()] = true;
    }
    assert_eq!(seen, [true, false, true, true, true, true, true, true]);
}

/// `bbr_is_next_cycle_phase` by hand, one packet per 100 ms round: a gain-1 phase ends when
/// more than min_rtt has passed since it began (delivered_mstamp - cycle_mstamp > 100 ms:
/// the second ACK after it); the 1.25 phase waits for 1.25 BDP in flight (never, with one
/// packet) or a loss; the 0.75 phase ends as soon as what is in flight is at most one BDP.
#[test]
fn the_gain_cycle_by_hand() {
    // A seed whose first phase is 1.0 (the search is deterministic).
    let seed = (1..)
        .find(|&s| {
            let mut p = OnePacketRounds::new(s);
            (0..4).for_each(|_| p.round(100 * MS, 0));
            p.bbr.cycle_idx() == 7
        })
        .unwrap();
    let mut p = OnePacketRounds::new(seed);
    (0..4).for_each(|_| p.round(100 * MS, 0));
    assert_eq!(p.bbr.cycle_idx(), 7);
    // 100 ms after the phase began: not more than min_rtt yet.
    p.round(100 * MS, 0);
    assert_eq!(p.bbr.cycle_idx(), 7);
    // 200 ms: next phase, 0 (1.25).
    p.round(100 * MS, 0);
    assert_eq!((p.bbr.cycle_idx(), p.bbr.pacing_gain()), (0, 1.25));
    for _ in 0..5 {
        p.round(100 * MS, 0);
        assert_eq!(
            p.bbr.cycle_idx(),
            0,
            "1.25 waits for 1.25 BDP in flight or a loss"
        );
    }
    // A loss, the phase being full length: on to 0.75.
    p.round(100 * MS, 1);
    assert_eq!((p.bbr.cycle_idx(), p.bbr.pacing_gain()), (1, 0.75));
    // In flight 1 <= one BDP: 0.75 ends on the next ACK.
    p.round(100 * MS, 0);
    assert_eq!((p.bbr.cycle_idx(), p.bbr.pacing_gain()), (2, 1.0));
}

/// `bbr_update_min_rtt` by hand. Round k's RTT is 100 ms + k us, so no sample after the
/// first equals or undercuts the minimum (an equal one renews it, `rtt_us <= min_rtt_us`),
/// and ACK k comes at T_k = 100 ms + sum of the RTTs. ProbeRTT starts on the first ACK
/// more than 10 s after the minimum's stamp (T_0 = 100 ms): T_100 (sum 10.00505 s);
/// there the expired filter takes that RTT, the window is saved and capped at 4, the
/// pacing gain is 1, and with nothing in flight (<= 4) the 200 ms start and the round
/// restarts. ACK 101 ends that round (100.1 ms: not past 200 ms), ACK 102 is 200.2 ms
/// after entry: back to ProbeBW with the saved window (then the ProbeBW target),
/// min_rtt_stamp = T_102. The next
/// ProbeRTT: the first ACK more than 10 s after T_102: T_202 (RTTs 103..=202 sum to
/// 10.01525 s; to 201, 9.91424 s).
#[test]
fn probe_rtt_every_10_s_for_200_ms_and_a_round() {
    let mut p = OnePacketRounds::new(3);
    p.round(100 * MS, 0);
    let mut t = vec![p.now];
    let mut entries = vec![];
    let mut exits = vec![];
    let mut last = p.bbr.mode();
    let mut cwnd_before = 0.0;
    for k in 1..=250u64 {
        let before = p.cwnd;
        p.round(100 * MS + k * 1_000, 0);
        t.push(p.now);
        let mode = p.bbr.mode();
        if mode == Mode::ProbeRtt && last != Mode::ProbeRtt {
            entries.push(k);
            cwnd_before = before;
            assert_eq!(p.cwnd, 4.0);
            assert_eq!(p.bbr.pacing_gain(), 1.0);
        }
        if mode != Mode::ProbeRtt && last == Mode::ProbeRtt {
            exits.push(k);
            // The saved window comes back (`bbr_check_probe_rtt_done`), then this ACK's
            // update holds it at the ProbeBW target (full bandwidth reached).
            assert!(
                p.cwnd > 4.0 && p.cwnd <= cwnd_before,
                "{} vs {cwnd_before}",
                p.cwnd
            );
            assert_eq!(p.bbr.mode(), Mode::ProbeBw);
        }
        last = mode;
    }
    assert_eq!(entries, [100, 202]);
    assert_eq!(exits, [102, 204]);
    assert!(t[100] - t[0] > MIN_RTT_WIN && t[99] - t[0] <= MIN_RTT_WIN);
    assert!(t[202] - t[102] > MIN_RTT_WIN && t[201] - t[102] <= MIN_RTT_WIN);
    assert_eq!(p.bbr.min_rtt(), Some(100 * MS + 202 * 1_000));
}

/// The BtlBw filter keeps the maximum of 10 rounds: a rate that halves is seen after the
/// window (`bbr_bw_rtts` = 10), not before.
#[test]
fn btl_bw_forgets_a_rate_after_ten_rounds() {
    let mut p = OnePacketRounds::new(5);
    for _ in 0..20 {
        p.round(100 * MS, 0);
    }
    assert_eq!(p.bbr.max_bw(), 10.0);
    let mut rounds = 0;
    while p.bbr.max_bw() == 10.0 {
        p.round(200 * MS, 0);
        rounds += 1;
        assert!(rounds < 20);
    }
    assert_eq!(p.bbr.max_bw(), 5.0);
    assert!((10..=11).contains(&rounds), "{rounds}");
}

/// ProbeRTT 10 s after the handshake on a deterministic path (`bbr_init`: `min_rtt_us =
/// tcp_min_rtt(tp)`, `min_rtt_stamp = tcp_jiffies32`; `bbr_update_min_rtt`: a sample
/// replaces it only if strictly lower, or once `after(now, stamp + 10 s)`). By hand: the
/// handshake completes at 50 ms with a 100 ms RTT; every data sample is 100 ms too (a tie),
/// ACKs at 150 ms, 250 ms, ... The ACK at 10 050 ms is not after 50 + 10 000 ms; the one at
/// 10 150 ms is: ProbeRTT, and min RTT the sample of that ACK. With `<=` (before) each tie
/// renewed the stamp and ProbeRTT never came.
#[test]
fn probe_rtt_comes_10_s_after_the_handshake_when_samples_tie() {
    let mut p = OnePacketRounds::new(3);
    p.now = 50 * MS;
    p.bbr.init_at(p.now, 100 * MS, Some(100 * MS), p.cwnd);
    while p.now + 100 * MS <= 10_050 * MS {
        p.round(100 * MS, 0);
        assert_ne!(p.bbr.mode(), Mode::ProbeRtt, "at {} ms", p.now / MS);
    }
    assert_eq!(p.now, 10_050 * MS);
    p.round(100 * MS, 0);
    assert_eq!(p.bbr.mode(), Mode::ProbeRtt);
    assert_eq!(p.bbr.min_rtt(), Some(100 * MS));
}

/// `bbr_undo_cwnd`: the window stays what BBR set (not the one before the reduction), and
/// full-pipe detection starts again.
#[test]
fn undo_keeps_bbrs_window_and_restarts_full_pipe_detection() {
    let mut p = OnePacketRounds::new(4);
    for _ in 0..5 {
        p.round(100 * MS, 0);
    }
    assert!(p.bbr.full_bw_reached());
    p.bbr.full_bw = 10.0;
    p.bbr.full_bw_cnt = 2;
    let w = Window {
        cwnd: 7.0,
        ssthresh: 100,
    };
    assert_eq!(CongestionOps::undo_cwnd(&mut p.bbr, &w, 40.0), 7.0);
    assert_eq!((p.bbr.full_bw, p.bbr.full_bw_cnt), (0.0, 0));
}
