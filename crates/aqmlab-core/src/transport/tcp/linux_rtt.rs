//! Linux's RTT estimator and RTO (net/ipv4/tcp_input.c `tcp_rtt_estimator` and `tcp_set_rto`,
//! include/net/tcp.h `__tcp_set_rto` and `tcp_bound_rto`; net/ipv4/tcp_timer.c
//! `tcp_retransmit_timer` for the backoff), for `tcp.rto_estimator = "linux"`.
//!
//! Where RFC 6298 takes RTO = max(min_rto, SRTT + 4 RTTVAR), Linux keeps, in microseconds:
//! - srtt (scaled by 8) with gain 1/8, as RFC 6298;
//! - mdev (scaled by 4) with gain 1/4, except that a sample below srtt moves it with a gain of
//!   1/32 (the error is divided by 8 more: "similar to one of Eifel findings");
//! - mdev_max, the largest mdev of the current round trip (reset to min_rto each time the
//!   cumulative ACK passes `rtt_seq`, the SND.NXT of the previous reset);
//! - rttvar, which rises at once to mdev_max and, once per round trip, falls by a quarter of
//!   its distance to mdev_max; never below min_rto, as mdev_max is never below it.
//!
//! RTO = srtt + rttvar, so RTO >= srtt + min_rto: srtt + max(4 mdev, 200 ms) with the defaults.
//! The first sample m gives srtt = m, mdev = m / 2 (mdev_us = 2m), rttvar = max(2m, min_rto):
//! RTO = m + max(2m, min_rto). Each timeout doubles the RTO up to `max_rto`
//! (`tcp_retransmit_timer`: `icsk_rto = min(icsk_rto << 1, TCP_RTO_MAX)`); a valid RTT sample
//! recomputes it and clears the backoff (`tcp_ack_update_rtt`: `icsk_backoff = 0`).
//!
//! Readings: samples are taken in whole microseconds (Linux's `tcp_stamp_us_delta`), at least
//! 1; the RTO is rounded up to `tick` (Linux converts it to jiffies rounding up,
//! `usecs_to_jiffies`; the `linux` profile's 1 ms tick is HZ = 1000).

use crate::sim::Time;

const NS_PER_US: Time = 1_000;

#[derive(Debug, Clone)]
pub struct LinuxRttEstimator {
    tick: Time,
    /// min_rto in microseconds (`tcp_rto_min_us`).
    rto_min_us: i64,
    max_rto: Time,
    initial_rto: Time,
    /// srtt << 3, microseconds; 0 before the first sample (`srtt_us`).
    srtt_us: i64,
    /// mdev << 2, microseconds (`mdev_us`).
    mdev_us: i64,
    /// The largest mdev_us of this round trip (`mdev_max_us`).
    mdev_max_us: i64,
    /// `rttvar_us`.
    rttvar_us: i64,
    /// The SND.NXT at the last round-trip reset (`rtt_seq`): a packet number.
    rtt_seq: i64,
    /// Timeouts since the last valid sample (`icsk_backoff`).
    backoff: u32,
}

impl LinuxRttEstimator {
    pub fn new(tick: Time, min_rto: Time, max_rto: Time, initial_rto: Time) -> Self {
        LinuxRttEstimator {
            tick: tick.max(1),
            rto_min_us: (min_rto / NS_PER_US) as i64,
            max_rto,
            initial_rto,
            srtt_us: 0,
            mdev_us: 0,
            mdev_max_us: 0,
            rttvar_us: 0,
            rtt_seq: 0,
            backoff: 0,
        }
    }

    /// `tcp_rtt_estimator` for a packet sent at `sent` and acknowledged at `now`; `snd_una` is
    /// the first packet not yet acknowledged after this ACK, `snd_nxt` the next new packet.
    /// Clears the backoff (`tcp_ack_update_rtt`).
    pub fn sample(&mut self, sent: Time, now: Time, snd_una: i64, snd_nxt: i64) {
        let mut m = (now.saturating_sub(sent) / NS_PER_US).max(1) as i64;
        let mut srtt = self.srtt_us;
        if srtt != 0 {
            m -= srtt >> 3;
            srtt += m;
            if m < 0 {
                m = -m;
                m -= self.mdev_us >> 2;
                if m > 0 {
                    m >>= 3;
                }
            } else {
                m -= self.mdev_us >> 2;
            }
            self.mdev_us += m;
            if self.mdev_us > self.mdev_max_us {
                self.mdev_max_us = self.mdev_us;
                if self.mdev_max_us > self.rttvar_us {
                    self.rttvar_us = self.mdev_max_us;
                }
            }
            // `after(snd_una, rtt_seq)`: the cumulative ACK has passed the previous reset's
            // SND.NXT (sequence numbers are bytes there; here a packet number, so the ACK
            // of packet rtt_seq - 1 leaves snd_una at rtt_seq, not after it).
            if snd_una > self.rtt_seq {
                if self.mdev_max_us < self.rttvar_us {
                    self.rttvar_us -= (self.rttvar_us - self.mdev_max_us) >> 2;
                }
                self.rtt_seq = snd_nxt;
                self.mdev_max_us = self.rto_min_us;
            }
        } else {
            srtt = m << 3;
            self.mdev_us = m << 1;
            self.rttvar_us = self.mdev_us.max(self.rto_min_us);
            self.mdev_max_us = self.rttvar_us;
            self.rtt_seq = snd_nxt;
        }
        self.srtt_us = srtt.max(1);
        self.backoff = 0;
    }

    /// The un-backed-off RTO, `__tcp_set_rto`: srtt + rttvar, rounded up to the tick; the
    /// initial RTO before any sample.
    fn base_rto(&self) -> Time {
        if self.srtt_us == 0 {
            return self.initial_rto;
        }
        let us = (self.srtt_us >> 3) + self.rttvar_us;
        (us.max(0) as Time * NS_PER_US).div_ceil(self.tick) * self.tick
    }

    /// The timeout to arm now: the RTO doubled once per timeout since the last sample, at
    /// most `max_rto` (`tcp_bound_rto`, `tcp_retransmit_timer`).
    pub fn rto(&self) -> Time {
        let base = self.base_rto().min(self.max_rto);
        base.checked_shl(self.backoff)
            .filter(|r| r >> self.backoff == base)
            .map_or(self.max_rto, |r| r.min(self.max_rto))
    }

    /// A timeout (`icsk_backoff++`).
    pub fn back_off(&mut self) {
        self.backoff = self.backoff.saturating_add(1).min(63);
    }

    /// The backoff multiplier, 2^(timeouts since the last sample), as the ns-2 estimator's.
    pub fn backoff(&self) -> u32 {
        1u32.checked_shl(self.backoff).unwrap_or(u32::MAX)
    }

    /// Smoothed RTT in nanoseconds (0 before the first sample).
    pub fn srtt(&self) -> Time {
        (self.srtt_us >> 3).max(0) as Time * NS_PER_US
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    fn linux() -> LinuxRttEstimator {
        LinuxRttEstimator::new(MS, 200 * MS, 120_000 * MS, 1_000 * MS)
    }

    /// `tcp_rtt_estimator` and `__tcp_set_rto` by hand, in microseconds (srtt_us = 8 srtt,
    /// mdev_us = 4 mdev).
    #[test]
    fn tcp_rtt_estimator_and_tcp_set_rto_by_hand() {
        let mut r = linux();
        assert_eq!(r.rto(), 1_000 * MS, "TCP_TIMEOUT_INIT before a sample");
        // First sample 100 ms, SND.NXT 10: srtt_us = 800000, mdev_us = 200000, rttvar =
        // max(200000, 200000) = 200000, mdev_max = 200000, rtt_seq = 10.
        // RTO = 100000 + 200000 us = 300 ms (m + max(2m, 200 ms)).
        r.sample(0, 100 * MS, 0, 10);
        assert_eq!(
            (r.srtt_us, r.mdev_us, r.rttvar_us),
            (800_000, 200_000, 200_000)
        );
        assert_eq!(r.rto(), 300 * MS);
        // 140 ms, snd_una 5 (not past rtt_seq 10): m = 140000 - 100000 = 40000; srtt_us =
        // 840000; m = 40000 - 200000/4 = -10000; mdev_us = 190000 (not above mdev_max 200000).
        // RTO = 105000 + 200000 us = 305 ms.
        r.sample(0, 140 * MS, 5, 20);
        assert_eq!(
            (r.srtt_us, r.mdev_us, r.rttvar_us),
            (840_000, 190_000, 200_000)
        );
        assert_eq!(r.rto(), 305 * MS);
        // 300 ms, snd_una 11 (past rtt_seq 10): m = 300000 - 105000 = 195000; srtt_us =
        // 1035000; m = 195000 - 190000/4 = 147500; mdev_us = 337500 > mdev_max: mdev_max =
        // rttvar = 337500. Then the round-trip reset: mdev_max (337500) is not below rttvar,
        // so rttvar stays; rtt_seq = 30; mdev_max = 200000.
        // RTO = 129375 + 337500 us = 466.875 ms, rounded up to the 1 ms tick: 467 ms.
        r.sample(0, 300 * MS, 11, 30);
        assert_eq!(
            (r.srtt_us, r.mdev_us, r.rttvar_us),
            (1_035_000, 337_500, 337_500)
        );
        assert_eq!(r.mdev_max_us, 200_000);
        assert_eq!(r.rto(), 467 * MS);
        // 50 ms, snd_una 31 (past 30): m = 50000 - 129375 = -79375; srtt_us = 955625; m =
        // 79375 - 337500/4 = -5000 (not > 0: no division by 8); mdev_us = 332500, above
        // mdev_max 200000: mdev_max = 332500 (not above rttvar). Reset: mdev_max 332500 <
        // rttvar 337500: rttvar -= 5000/4 = 1250 -> 336250; mdev_max = 200000.
        // RTO = 119453 + 336250 us = 455.703 ms -> 456 ms.
        r.sample(0, 50 * MS, 31, 40);
        assert_eq!(
            (r.srtt_us, r.mdev_us, r.rttvar_us),
            (955_625, 332_500, 336_250)
        );
        assert_eq!(r.mdev_max_us, 200_000);
        assert_eq!(r.rto(), 456 * MS);
        // 100 ms, snd_una 35 (not past 40): m = 100000 - 119453 = -19453; srtt_us = 936172;
        // m = 19453 - 83125 < 0: mdev_us = 268828, the round trip's mdev_max (below rttvar).
        r.sample(0, 100 * MS, 35, 50);
        assert_eq!(
            (r.srtt_us, r.mdev_us, r.mdev_max_us),
            (936_172, 268_828, 268_828)
        );
        // 100 ms, snd_una 41 (past 40): m = 100000 - 117021 = -17021; m = 17021 - 67207 < 0:
        // mdev_us = 218642. Reset: rttvar 336250 - (336250 - 268828) / 4 = 336250 - 16855 =
        // 319395: a quarter of the way down to the round trip's largest mdev.
        r.sample(0, 100 * MS, 41, 60);
        assert_eq!((r.mdev_us, r.rttvar_us), (218_642, 319_395));
    }

    #[test]
    fn a_sample_below_srtt_moves_mdev_with_an_eighth_of_the_gain() {
        // After 100 ms: srtt_us 800000, mdev_us 200000. A 96 ms sample: m = -4000, |m| =
        // 4000 - 50000 < 0: mdev_us = 200000 - 46000 = 154000 (the Eifel-like case applies
        // only to a positive remainder). A 20 ms sample from srtt 99.5 ms: |m| = 79500,
        // - 154000/4 = 41000 > 0, / 8 = 5125: mdev_us = 159125 (RFC 6298's gain would give
        // 154000 + 41000).
        let mut r = linux();
        r.sample(0, 100 * MS, 0, 10);
        r.sample(0, 96 * MS, 0, 10);
        assert_eq!((r.srtt_us, r.mdev_us), (796_000, 154_000));
        r.sample(0, 20 * MS, 0, 10);
        assert_eq!(r.srtt_us, 796_000 - 79_500);
        assert_eq!(r.mdev_us, 159_125);
    }

    #[test]
    fn the_rto_never_falls_below_srtt_plus_min_rto() {
        // Steady 30 ms samples, one per round trip: mdev decays to 0, rttvar to mdev_max =
        // min_rto. RFC 6298 would give max(200 ms, 30 + 4 * ~0) = 200 ms; Linux 230 ms.
        let mut r = linux();
        for i in 0..200 {
            r.sample(i * MS, i * MS + 30 * MS, i as i64 + 1, i as i64 + 2);
        }
        assert_eq!(r.srtt(), 30 * MS);
        assert_eq!(r.rttvar_us, 200_000);
        assert_eq!(r.rto(), 230 * MS);
    }

    #[test]
    fn timeouts_double_the_rto_up_to_max_rto_and_a_sample_clears_them() {
        let mut r = linux();
        r.sample(0, 100 * MS, 0, 10);
        assert_eq!(r.rto(), 300 * MS);
        r.back_off();
        assert_eq!((r.rto(), r.backoff()), (600 * MS, 2));
        for _ in 0..20 {
            r.back_off();
        }
        assert_eq!(r.rto(), 120_000 * MS);
        r.sample(0, 100 * MS, 1, 10);
        assert_eq!(r.backoff(), 1);
        assert!(r.rto() < 1_000 * MS);
    }
}
