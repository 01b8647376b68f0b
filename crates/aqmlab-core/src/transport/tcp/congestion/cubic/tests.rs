//! CUBIC's unit tests: RFC 9438's and Linux's (tcp_cubic.c) growth and reductions, each
//! checked against values computed by hand or recorded from the kernel's arithmetic.

use super::*;

impl Cubic {
    /// K after a loss at a window of 100 with the default parameters.
    fn tap_k(mut self) -> f64 {
        self.reduce(100);
        self.k(70.0)
    }
}

fn secs(s: f64) -> Time {
    time::from_secs_f64(s)
}

#[test]
fn k_and_the_cubic_match_hand_computed_values() {
    // W_max = 100, beta = 0.7: cwnd_epoch = 70, K = cbrt(30 / 0.4) = cbrt(75) = 4.2172 s.
    let mut c = Cubic::new(CubicParams::default());
    assert_eq!(c.reduce(100), 70);
    let k = c.k(70.0);
    assert!((k - 4.217_163_326_508_746).abs() < 1e-12, "{k}");
    // W(0) = 0.4 (0 - K)^3 + 100 = 100 - 30 = 70; W(K) = 100; W(K + 2) = 100 + 0.4 * 8.
    assert!((c.w_cubic(0.0, k) - 70.0).abs() < 1e-9);
    assert!((c.w_cubic(k, k) - 100.0).abs() < 1e-12);
    assert!((c.w_cubic(k + 2.0, k) - 103.2).abs() < 1e-9);
    // alpha_cubic = 3 * 0.3 / 1.7.
    assert!((CubicParams::default().alpha() - 0.529_411_764_705_882_4).abs() < 1e-15);
}

#[test]
fn fast_convergence_releases_bandwidth_when_the_window_shrinks() {
    let mut c = Cubic::new(CubicParams::default());
    c.reduce(100);
    assert_eq!(c.w_max, 100.0);
    // The next loss comes at 80 < W_max: W_max = 80 * 1.7 / 2 = 68.
    assert_eq!(c.reduce(80), 56);
    assert!((c.w_max - 68.0).abs() < 1e-12);
    // At or above W_max, W_max is the window itself.
    c.reduce(90);
    assert_eq!(c.w_max, 90.0);
    let mut plain = Cubic::new(CubicParams {
        fast_convergence: false,
        ..CubicParams::default()
    });
    plain.reduce(100);
    plain.reduce(80);
    assert_eq!(plain.w_max, 80.0);
}

#[test]
fn growth_is_concave_then_flat_at_w_max_then_convex() {
    // ACK-clocked on a 100 ms RTT (one ACK per packet: cwnd ACKs per RTT), from a loss at
    // W_max = 100: the window follows the cubic, one RTT ahead at most.
    let mut c = Cubic::new(CubicParams::default());
    let mut cwnd = c.reduce(100) as f64;
    let rtt = 0.1;
    let mut t = 0.0;
    let mut window_at = |until: f64, cwnd: &mut f64| {
        while t < until {
            t += rtt / *cwnd;
            c.on_ack(cwnd, 70, 1, secs(t), secs(rtt));
        }
        (*cwnd, c.clone())
    };
    let samples: Vec<(f64, f64, Cubic)> = [1.0, 4.2, 6.0, 8.0]
        .into_iter()
        .map(|at| {
            let (w, snapshot) = window_at(at, &mut cwnd);
            (at, w, snapshot)
        })
        .collect();
    let k = Cubic::new(CubicParams::default()).tap_k();
    for (at, w, snap) in &samples {
        let (lo, hi) = (snap.w_cubic(*at, k), snap.w_cubic(at + rtt, k));
        assert!(
            *w >= lo - 1.0 && *w <= hi + 1.0,
            "t {at}: {w} not in [{lo}, {hi}]"
        );
    }
    let w: Vec<f64> = samples.iter().map(|s| s.1).collect();
    assert!(
        w[0] - 70.0 > w[2] - w[1],
        "concave: fast away from the loss"
    );
    assert!(
        (w[1] - 100.0).abs() < 1.0,
        "flat near W_max at t = K: {}",
        w[1]
    );
    assert!(w[3] - w[2] > w[2] - w[1], "convex beyond W_max");
}

#[test]
fn reno_friendly_region_takes_over_on_short_rtts_with_a_small_window() {
    // With a small W_max the cubic barely grows in an RTT, while W_est grows by
    // alpha_cubic per window of ACKs: cwnd follows W_est, which passes W_cubic.
    let mut c = Cubic::new(CubicParams::default());
    let mut cwnd = c.reduce(10) as f64; // 7
    let rtt = secs(0.001);
    let mut t = 0.0;
    for _ in 0..2000 {
        t += 0.0001;
        c.on_ack(&mut cwnd, 7, 1, secs(t), rtt);
    }
    let e = c.epoch.unwrap();
    assert_eq!(
        cwnd, e.w_est,
        "cwnd follows W_est in the Reno-friendly region"
    );
    assert!(c.w_cubic(t, e.k) < e.w_est);
    // 2000 ACKs: W_est grew past cwnd_prior = 10 (alpha 0.53 first, then 1 per window).
    assert!(cwnd > 10.0, "{cwnd}");
}

#[test]
fn slow_start_below_ssthresh_adds_one_per_ack() {
    let mut c = Cubic::new(CubicParams::default());
    let mut cwnd = 2.0;
    c.on_ack(&mut cwnd, 10, 1, 0, 0);
    assert_eq!(cwnd, 3.0);
    assert!(c.epoch.is_none());
}

fn linux(p: CubicParams) -> CubicParams {
    CubicParams {
        reno_friendly: RenoFriendly::Linux,
        ..p
    }
}

/// Delayed ACKs of two packets at a frozen instant (so the target does not move): the
/// (cwnd, count) after each, in packet-counting mode.
fn counted(c: &mut Cubic, cwnd: &mut f64, ssthresh: i64, acks: usize, rtt: f64) -> Vec<f64> {
    let mut n = AckedCount::default();
    (0..acks)
        .map(|_| {
            c.on_ack_counted(cwnd, ssthresh, 2, 0, secs(rtt), &mut n);
            *cwnd
        })
        .collect()
}

#[test]
fn cubictcp_cong_avoid_grows_by_one_packet_per_bictcp_update_cnt_packets_acked() {
    // net/ipv4/tcp_cubic.c, cubictcp_cong_avoid -> bictcp_update -> tcp_cong_avoid_ai.
    // After a loss at 100 (cwnd 70, K = cbrt(75) = 4.2172 s), 0.1 s ahead the target is
    // 100 + 0.4 (0.1 - K)^3 = 72.084: cnt = floor(70 / 2.084) = 33. Two packets per ACK:
    // the count reaches 34 >= 33 on the 17th ACK (cwnd 71, 1 left over); at 71, cnt =
    // floor(71 / 1.084) = 65, reached on the 49th ACK (1 + 2 * 32 = 65: cwnd 72, 0 left);
    // at 72, cnt = floor(72 / 0.084) = 857.
    let mut c = Cubic::new(linux(CubicParams::default()));
    let mut cwnd = c.reduce(100) as f64;
    let seq = counted(&mut c, &mut cwnd, 70, 60, 0.1);
    let first = |w: f64| seq.iter().position(|&x| x == w).map(|i| i + 1);
    assert_eq!(first(71.0), Some(17));
    assert_eq!(first(72.0), Some(49));
    assert_eq!(seq[59], 72.0);
    assert!(
        seq.iter().all(|w| w.fract() == 0.0),
        "whole packets, as snd_cwnd"
    );
    // The RFC's per-ACK rule under the same ACKs: (target - cwnd) / cwnd per ACK, half
    // the growth (17 ACKs: about 70.5).
    let mut c = Cubic::new(linux(CubicParams::default()));
    let mut per_ack = c.reduce(100) as f64;
    for _ in 0..17 {
        c.on_ack(&mut per_ack, 70, 2, 0, secs(0.1));
    }
    assert!(per_ack > 70.4 && per_ack < 70.6, "{per_ack}");
}

#[test]
fn bictcp_update_tcp_friendliness_grows_towards_the_reno_estimate() {
    // net/ipv4/tcp_cubic.c, bictcp_update's tcp_friendliness block, beta 0.7: beta_scale
    // = 8 * 1741 / 3 / 307 = 15. A loss at 10 (cwnd 7), the target 0 s ahead is W(0) =
    // 7: the cubic gives no growth (cnt = 100 cwnd). ACKs of one packet:
    // - tcp_cwnd starts at 7 and gains one when ack_cnt > (7 * 15) >> 3 = 13: on the
    //   14th ACK (ack_cnt 1 left). Then tcp_cwnd 8 > 7: cnt = 7 / (8 - 7) = 7; the count
    //   holds 13 >= 7: cwnd 8 at once ("apply them gently"), the count 0 + 1.
    // - At 8: delta = (8 * 15) >> 3 = 15; ack_cnt passes it on the 29th ACK (1 + 15 = 16
    //   > 15): tcp_cwnd 9 > 8, cnt 8, the count 1 + 15 = 16 >= 8: cwnd 9.
    assert_eq!(CubicParams::default().linux_beta_scale(), 15);
    let mut c = Cubic::new(linux(CubicParams::default()));
    let mut cwnd = c.reduce(10) as f64;
    assert_eq!(cwnd, 7.0);
    let mut n = AckedCount::default();
    let mut seq = vec![];
    for _ in 0..29 {
        c.on_ack_counted(&mut cwnd, 7, 1, 0, 0, &mut n);
        seq.push(cwnd);
    }
    assert_eq!(&seq[..13], &[7.0; 13]);
    assert_eq!(&seq[13..28], &[8.0; 15]);
    assert_eq!(seq[28], 9.0);
    // The RFC's reading instead sets cwnd to W_est on the first ACK (W(0) = 7 < W_est).
    let mut c = Cubic::new(CubicParams::default());
    let mut cwnd = c.reduce(10) as f64;
    c.on_ack_counted(&mut cwnd, 7, 1, 0, 0, &mut n);
    assert!(cwnd > 7.0 && cwnd < 7.1, "{cwnd}");
    // Linux keeps alpha = 8/15 past cwnd_prior (no switch to 1): from 7, tcp_cwnd gains
    // a packet per 15 * w / 8 acked at every w, where the RFC's W_est gains one per w.
    let mut c = Cubic::new(linux(CubicParams::default()));
    let mut cwnd = c.reduce(10) as f64;
    let mut n = AckedCount::default();
    let mut acked = 0;
    while cwnd < 12.0 {
        c.on_ack_counted(&mut cwnd, 7, 1, 0, 0, &mut n);
        acked += 1;
    }
    // delta = (w * 15) >> 3 is 13, 15, 16, 18, 20 at w = 7..11; ack_cnt must pass it
    // (">"): 14 packets from 0, then delta more from the 1 left each time.
    assert_eq!(acked, 14 + 15 + 16 + 18 + 20, "{acked}");
}

#[test]
fn bictcp_update_grows_at_least_5_percent_per_rtt_without_w_max() {
    // net/ipv4/tcp_cubic.c, bictcp_update: "if (ca->last_max_cwnd == 0 && ca->cnt > 20)
    // ca->cnt = 20". No loss yet, cwnd 100 at ssthresh: W_max = 100, K = 0, the target
    // 0 s ahead is 100 (cnt = 100 * 100); capped at 20: one packet per 20 acked.
    let p = linux(CubicParams {
        growth_without_w_max: GrowthWithoutWmax::Linux,
        ..CubicParams::default()
    });
    let mut c = Cubic::new(p);
    let mut cwnd = 100.0;
    let seq = counted(&mut c, &mut cwnd, 100, 20, 0.0);
    assert_eq!(seq.iter().position(|&w| w == 101.0), Some(9), "20 packets");
    assert_eq!(seq[19], 102.0, "40 packets");
    // The RFC's reading: no growth at t = 0 (the cubic is flat at W_max).
    let mut c = Cubic::new(linux(CubicParams::default()));
    let mut cwnd = 100.0;
    assert_eq!(counted(&mut c, &mut cwnd, 100, 20, 0.0)[19], 100.0);
    // After a congestion signal W_max is known: no floor.
    let mut c = Cubic::new(p);
    let mut cwnd = c.reduce(100) as f64;
    cwnd += 30.0; // back at W_max, where the cubic is flat
    assert_eq!(counted(&mut c, &mut cwnd, 70, 20, 0.0)[19], 100.0);
}

#[test]
fn cubictcp_acked_keeps_the_least_rtt_except_just_after_an_epoch_began() {
    // net/ipv4/tcp_cubic.c, cubictcp_acked: delay_min is the least sample, samples less
    // than HZ (1 s) after epoch_start are discarded; bictcp_update looks delay_min ahead.
    let ms = |x: u64| x * 1_000_000;
    let p = CubicParams {
        target_rtt: TargetRtt::MinRtt,
        ..CubicParams::default()
    };
    let mut c = Cubic::new(p);
    assert_eq!(c.on_rtt_sample(ms(50), 0), Some(ms(50)));
    assert_eq!(c.on_rtt_sample(ms(60), ms(10)), Some(ms(50)));
    let mut cwnd = c.reduce(100) as f64;
    c.on_ack(&mut cwnd, 70, 1, secs(10.0), secs(0.2)); // the epoch begins at 10 s
    assert_eq!(c.on_rtt_sample(ms(40), secs(10.5)), None, "within a second");
    assert_eq!(c.delay_min(), Some(ms(50)));
    assert_eq!(c.on_rtt_sample(ms(40), secs(11.0)), Some(ms(40)));
    // The target is W(t + 40 ms), not W(t + srtt): at t = 1 s with srtt 200 ms the
    // increase is (W(1.04) - cwnd) / cwnd.
    let before = cwnd;
    let k = c.epoch.unwrap().k;
    c.on_ack(&mut cwnd, 70, 1, secs(11.0), secs(0.2));
    let want = before + (c.w_cubic(1.04, k) - before) / before;
    assert!((cwnd - want).abs() < 1e-12, "{cwnd} {want}");
}

#[test]
fn cubictcp_state_on_rto_resets_w_max_and_the_minimum_rtt() {
    // net/ipv4/tcp_cubic.c, cubictcp_state(TCP_CA_Loss) -> bictcp_reset, after
    // tcp_enter_loss took ssthresh from cubictcp_recalc_ssthresh.
    let p = CubicParams {
        state_on_rto: StateOnRto::Reset,
        ..CubicParams::default()
    };
    let mut c = Cubic::new(p);
    c.on_rtt_sample(30_000_000, 0);
    assert_eq!(c.reduce(100), 70);
    c.on_timeout();
    assert_eq!((c.w_max, c.w_max_known, c.delay_min()), (0.0, false, None));
    // RFC 9438 4.8 (the default): W_max stays.
    let mut kept = Cubic::new(CubicParams::default());
    kept.on_rtt_sample(30_000_000, 0);
    kept.reduce(100);
    kept.on_timeout();
    assert_eq!((kept.w_max, kept.w_max_known), (100.0, true));
    assert_eq!(kept.delay_min(), Some(30_000_000));
}

#[test]
fn cubictcp_recalc_ssthresh_fast_convergence_with_linux_beta() {
    // net/ipv4/tcp_cubic.c, cubictcp_recalc_ssthresh with beta 717: ssthresh = cwnd *
    // 717 / 1024, W_max = cwnd * 1741 / 2048 below the last W_max, else cwnd. The model
    // keeps W_max fractional (68.0078 where Linux's integer division gives 68).
    let p = CubicParams {
        beta: 717.0 / 1024.0,
        c: 410.0 / 1024.0,
        ..CubicParams::default()
    };
    assert_eq!(p.linux_beta_scale(), 15);
    let mut c = Cubic::new(p);
    assert_eq!(c.reduce(100), 70);
    assert_eq!(c.w_max, 100.0);
    assert_eq!(c.reduce(80), 56);
    assert_eq!(c.w_max, 80.0 * 1741.0 / 2048.0);
    assert_eq!(c.reduce(1000), 700);
    assert_eq!(c.w_max, 1000.0);
}

#[test]
fn parameters_are_checked() {
    let bad = CubicParams {
        beta: 1.0,
        ..CubicParams::default()
    };
    assert_eq!(
        bad.validate("tcp.cubic").unwrap_err().to_string(),
        "tcp.cubic.beta: must be in (0, 1), got 1"
    );
    let bad = CubicParams {
        c: f64::NAN,
        ..CubicParams::default()
    };
    assert!(bad.validate("tcp.cubic").unwrap_err().path == "tcp.cubic.c");
}
