//! HyStart as Linux's CUBIC does it (`tcp.hystart = { kind = "linux" }`; Ha and Rhee's
//! hybrid slow start, net/ipv4/tcp_cubic.c v6.1, `hystart_update`, unchanged in 6.x
//! mainline), not HyStart++ (RFC 9406, `hystart.rs`): slow start ends, with `ssthresh = cwnd`
//! and no cut, at the first of two signs that the pipe is full.
//!
//! - Where it runs (`cubictcp_acked`, on every ACK with an RTT sample): while the window is
//!   below ssthresh and no exit has been found; a sample CUBIC discards for its minimum (less
//!   than a second into an epoch) is skipped here too. It is not limited to the first slow
//!   start: `found` is cleared only by an RTO (`cubictcp_state` on `TCP_CA_Loss`), and the
//!   test also runs in a fast recovery whose PRR window is below ssthresh.
//! - Rounds (`bictcp_hystart_reset`): a round ends when the cumulative ACK passes the
//!   `end_seq` recorded at its start (`after(snd_una, end_seq)`); the next starts with
//!   `round_start = last_ack = now`, `end_seq = snd_nxt`, `curr_rtt = infinity`,
//!   `sample_cnt = 0`. The round is reset before the window test below.
//! - Nothing is tested while cwnd is below `hystart_low_window` (16).
//! - ACK train (`HYSTART_ACK_TRAIN`): an ACK at most `hystart_ack_delta_us` (2 ms) after the
//!   train's last one extends it (`last_ack = now`); when the train has lasted more than
//!   `(delay_min + hystart_ack_delay) / 2` since the round began, the exit is found. A longer
//!   gap ends the train for the rest of the round (`last_ack` is not moved).
//! - Delay (`HYSTART_DELAY`): `curr_rtt` is the round's least sample; after
//!   `HYSTART_MIN_SAMPLES` (8) samples, each further one tests `curr_rtt > delay_min +
//!   clamp(delay_min / 8, 4 ms, 16 ms)`. `delay_min` is CUBIC's all-time least RTT, not the
//!   last round's minimum as in HyStart++.
//!
//! Readings:
//! - `hystart_ack_delay` is min(1 ms, 4 x 64 KB / pacing rate): with the rate Linux computes
//!   even when not pacing (2 or 1.2 times cwnd x MSS / srtt, `tcp_update_pacing_rate`) it is
//!   1 ms below about 2 Gb/s; aqmlab takes 1 ms. The halving applies when the socket is not
//!   paced (`SK_PACING_NONE`, the default qdisc), which aqmlab's senders never are.
//! - The RTT sample is the one HyStart++ uses (`rfc6675_sender.rs`): one per advancing ACK,
//!   from the send time the sink echoes; Linux also takes one from an ACK that only SACKs
//!   (`tcp_clean_rtx_queue`'s `ca_rtt_us` of the last packet (S)ACKed).
//! - `ssthresh = cwnd` is `floor(cwnd)`, whole packets.
//! - Only with CUBIC: Linux's Reno has no HyStart.

use crate::sim::Time;

/// `hystart_low_window`: no exit is sought below this window (packets).
pub const LOW_WINDOW: f64 = 16.0;
/// `hystart_ack_delta_us`: the largest gap between ACKs of one train.
pub const ACK_DELTA: Time = 2_000_000;
/// `HYSTART_MIN_SAMPLES`: samples of a round before its minimum is tested.
pub const MIN_SAMPLES: u32 = 8;
/// `HYSTART_DELAY_MIN` and `HYSTART_DELAY_MAX`: the bounds of the delay threshold.
pub const DELAY_THRESH_MIN: Time = 4_000_000;
pub const DELAY_THRESH_MAX: Time = 16_000_000;
/// `hystart_ack_delay` below about 2 Gb/s (module docs).
pub const ACK_DELAY: Time = 1_000_000;

/// The delay test's threshold above `delay_min` (`HYSTART_DELAY_THRESH(delay_min >> 3)`).
pub fn delay_thresh(delay_min: Time) -> Time {
    (delay_min / 8).clamp(DELAY_THRESH_MIN, DELAY_THRESH_MAX)
}

#[derive(Debug, Clone, Default)]
pub struct LinuxHyStart {
    /// The exit was found (`ca->found`): no more tests until an RTO.
    found: bool,
    round_start: Time,
    /// The time of the train's last ACK (`ca->last_ack`).
    last_ack: Time,
    /// The round ends when the cumulative ACK passes this packet (`ca->end_seq`).
    end_seq: i64,
    /// The round's least RTT sample (`ca->curr_rtt`); None is Linux's ~0U.
    curr_rtt: Option<Time>,
    sample_cnt: u32,
}

impl LinuxHyStart {
    pub fn found(&self) -> bool {
        self.found
    }

    /// `bictcp_hystart_reset`.
    fn start_round(&mut self, now: Time, snd_nxt: i64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_nxt;
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }

    /// An ACK at `now` with RTT sample `delay`, after CUBIC kept it and its minimum is
    /// `delay_min`: `snd_una` is the first packet not acknowledged after it, `snd_nxt` the
    /// next new one. Sets `ssthresh = cwnd` when the exit is found (`hystart_update`).
    #[allow(clippy::too_many_arguments)]
    pub fn on_rtt_sample(
        &mut self,
        delay: Time,
        delay_min: Time,
        now: Time,
        snd_una: i64,
        snd_nxt: i64,
        cwnd: f64,
        ssthresh: &mut i64,
    ) {
        // cubictcp_acked: "if (!ca->found && tcp_in_slow_start(tp) && hystart)".
        if self.found || cwnd >= *ssthresh as f64 {
            return;
        }
        if snd_una > self.end_seq {
            self.start_round(now, snd_nxt);
        }
        if cwnd < LOW_WINDOW {
            return;
        }
        if now.saturating_sub(self.last_ack) <= ACK_DELTA {
            self.last_ack = now;
            let threshold = (delay_min + ACK_DELAY) / 2;
            if now.saturating_sub(self.round_start) > threshold {
                self.exit(cwnd, ssthresh);
            }
        }
        let curr = self.curr_rtt.map_or(delay, |c| c.min(delay));
        self.curr_rtt = Some(curr);
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else if curr > delay_min + delay_thresh(delay_min) {
            self.exit(cwnd, ssthresh);
        }
    }

    fn exit(&mut self, cwnd: f64, ssthresh: &mut i64) {
        self.found = true;
        *ssthresh = cwnd.floor() as i64;
    }

    /// An RTO (`cubictcp_state` on `TCP_CA_Loss`: `bictcp_reset` clears `found`, then
    /// `bictcp_hystart_reset`): the next slow start looks for its exit again.
    pub fn on_timeout(&mut self, now: Time, snd_nxt: i64) {
        self.found = false;
        self.start_round(now, snd_nxt);
    }

    pub fn state(&self, out: &mut crate::sim::StateSink) {
        // The same variable as HyStart++'s: 0 in slow start, 2 once the exit is found.
        out("hystart_phase", if self.found { 2.0 } else { 0.0 });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;
    const US: Time = 1_000;

    /// Feeds HyStart the samples `(rtt, now, snd_una)` (delay_min 40 ms) in a round ending at
    /// `snd_nxt`, with `cwnd`; returns the index of the sample on which it first found its exit.
    fn feed(
        h: &mut LinuxHyStart,
        samples: impl IntoIterator<Item = (Time, Time, i64)>,
        snd_nxt: i64,
        cwnd: f64,
        ssthresh: &mut i64,
    ) -> Option<usize> {
        let mut found_on = None;
        for (i, (rtt, now, snd_una)) in samples.into_iter().enumerate() {
            h.on_rtt_sample(rtt, 40 * MS, now, snd_una, snd_nxt, cwnd, ssthresh);
            if h.found() && found_on.is_none() {
                found_on = Some(i);
            }
        }
        found_on
    }

    /// [`feed`]s `n` samples of `rtt_ms` 10 ms apart from time 0, the i-th acknowledging
    /// `first_una + i`, in a round ending at 100; returns the (1-based) sample of the exit.
    fn feed_10ms_apart(
        h: &mut LinuxHyStart,
        rtt_ms: Time,
        n: Time,
        first_una: i64,
        cwnd: f64,
        ssthresh: &mut i64,
    ) -> Option<usize> {
        let samples = (0..n).map(|i| (rtt_ms * MS, i * 10 * MS, first_una + i as i64));
        feed(h, samples, 100, cwnd, ssthresh).map(|i| i + 1)
    }

    #[test]
    fn hystart_delay_thresh_is_an_eighth_of_delay_min_within_4_and_16_ms() {
        // net/ipv4/tcp_cubic.c, HYSTART_DELAY_THRESH(ca->delay_min >> 3).
        assert_eq!(delay_thresh(20 * MS), 4 * MS);
        assert_eq!(delay_thresh(80 * MS), 10 * MS);
        assert_eq!(delay_thresh(200 * MS), 16 * MS);
    }

    #[test]
    fn hystart_update_ack_train_exits_when_the_train_outlasts_half_the_min_rtt() {
        // net/ipv4/tcp_cubic.c, hystart_update, HYSTART_ACK_TRAIN: delay_min 40 ms, so the
        // threshold is (40 + 1) / 2 = 20.5 ms; ACKs 1.5 ms apart (each within 2 ms of the
        // last). The round starts on the first ACK at t0; the train passes 20.5 ms on the
        // ACK at t0 + 21 ms (the 15th, 14 gaps of 1.5 ms).
        let mut h = LinuxHyStart::default();
        let mut ssthresh = 1 << 20;
        let t0 = 1000 * MS;
        let samples = (0..20).map(|i| (40 * MS, t0 + i * 1500 * US, 1 + i as i64));
        let exit_at = feed(&mut h, samples, 100, 32.0, &mut ssthresh);
        assert_eq!(exit_at, Some(14));
        assert_eq!(ssthresh, 32, "ssthresh = cwnd, no cut");
        // A gap over 2 ms ends the train for the round: ACKs at 0, 1.5 and then 4 ms; the
        // ones after it never extend the train however close together.
        let mut h = LinuxHyStart::default();
        let mut ssthresh = 1 << 20;
        let samples = [0, 1500, 4000, 5000, 6000, 7000]
            .iter()
            .zip(1..)
            .map(|(at, una)| (40 * MS, t0 + at * US, una));
        feed(&mut h, samples, 100, 32.0, &mut ssthresh);
        assert_eq!(h.last_ack, t0 + 1500 * US);
        // ... and the rest of the round (up to packet 100) never exits by the train.
        let samples = (6..99).map(|i| (40 * MS, t0 + 7 * MS + i * 500 * US, 1 + i as i64));
        feed(&mut h, samples, 100, 32.0, &mut ssthresh);
        assert!(!h.found());
    }

    #[test]
    fn hystart_update_delay_exits_on_the_ninth_sample_of_a_round_above_the_threshold() {
        // net/ipv4/tcp_cubic.c, hystart_update, HYSTART_DELAY: delay_min 40 ms, threshold
        // 40 + 5 = 45 ms. Samples 10 ms apart (no train). A round of samples at 46 ms: the
        // first 8 are only counted (sample_cnt < HYSTART_MIN_SAMPLES), the 9th tests 46 > 45.
        let mut h = LinuxHyStart::default();
        let mut ssthresh = 1 << 20;
        let found_on = feed_10ms_apart(&mut h, 46, 12, 1, 20.0, &mut ssthresh);
        assert_eq!(found_on, Some(9));
        assert_eq!(ssthresh, 20);
        // At 45 ms exactly ("> threshold"), no exit.
        let mut h = LinuxHyStart::default();
        let mut ssthresh = 1 << 20;
        feed_10ms_apart(&mut h, 45, 12, 1, 20.0, &mut ssthresh);
        assert!(!h.found());
        // One low sample in the round keeps its minimum low: 8 at 46 ms, one at 44 ms, more
        // at 46: curr_rtt = 44, no exit in the round; the next round starts afresh.
        let mut h = LinuxHyStart::default();
        let mut ssthresh = 1 << 20;
        let rtts = [46, 46, 46, 46, 46, 46, 46, 46, 44, 46, 46];
        let samples = rtts
            .iter()
            .zip(1..)
            .map(|(rtt, una)| (rtt * MS, una as Time * 10 * MS, una));
        feed(&mut h, samples, 100, 20.0, &mut ssthresh);
        assert!(!h.found());
        let samples = (0..9).map(|i| (46 * MS, (12 + i as Time) * 10 * MS, 101 + i));
        feed(&mut h, samples, 200, 20.0, &mut ssthresh);
        assert!(
            h.found(),
            "the 9th sample of the new round (from packet 101)"
        );
    }

    #[test]
    fn hystart_update_waits_for_hystart_low_window_and_stops_at_ssthresh() {
        // net/ipv4/tcp_cubic.c: no test below hystart_low_window (16), none once cwnd >=
        // ssthresh (cubictcp_acked's tcp_in_slow_start).
        let mut h = LinuxHyStart::default();
        let mut ssthresh = 1 << 20;
        feed_10ms_apart(&mut h, 90, 20, 1, 15.0, &mut ssthresh);
        assert!(!h.found());
        let mut ssthresh = 30;
        feed_10ms_apart(&mut h, 90, 20, 21, 30.0, &mut ssthresh);
        assert!(!h.found());
        assert_eq!(ssthresh, 30);
    }

    #[test]
    fn cubictcp_state_after_an_rto_lets_hystart_search_again() {
        // net/ipv4/tcp_cubic.c, cubictcp_state(TCP_CA_Loss): bictcp_reset clears found,
        // bictcp_hystart_reset starts a round ending past snd_nxt.
        let mut h = LinuxHyStart::default();
        let mut ssthresh = 1 << 20;
        feed_10ms_apart(&mut h, 60, 9, 1, 20.0, &mut ssthresh);
        assert!(h.found());
        h.on_timeout(5_000 * MS, 500);
        assert!(!h.found());
        assert_eq!(
            (h.end_seq, h.round_start, h.sample_cnt),
            (500, 5_000 * MS, 0)
        );
    }
}
