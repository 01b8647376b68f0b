//! BBR's model of the path and the arithmetic on it (Linux net/ipv4/tcp_bbr.c): the rate
//! and window units (`bbr_rate_bytes_per_sec`, `bbr_bdp`, `bbr_quantization_budget`, the TSO
//! budget), the bandwidth filter's update (`bbr_update_bw`), the ACK-aggregation estimate
//! (`bbr_update_ack_aggregation`) and the long-term (policer) sampling (`bbr_lt_bw_*`). The
//! modes that read the model are `bbr.rs`'s; the sources and deviations are listed there.

use super::*;

impl Bbr {
    /// `bbr_rate_bytes_per_sec`: packets/s x gain, less the 1 % margin, in bytes/s.
    pub(super) fn rate_bytes_per_sec(&self, bw: f64, gain: f64) -> f64 {
        bw * self.packet_bytes * gain * (100.0 - PACING_MARGIN_PERCENT) / 100.0
    }

    /// `bbr_init_pacing_rate_from_rtt`: high_gain x cwnd / RTT (1 ms before a sample).
    pub(super) fn init_pacing_rate_from_rtt(&mut self, cwnd: f64, srtt: Time) {
        let rtt = if srtt > 0 {
            self.has_seen_rtt = true;
            srtt.max(1_000)
        } else {
            MS
        };
        let bw = cwnd / (rtt as f64 / 1e9);
        self.pacing_rate = self.rate_bytes_per_sec(bw, HIGH_GAIN);
    }

    /// `bbr_set_pacing_rate`.
    pub(super) fn set_pacing_rate(&mut self, bw: f64, gain: f64, cwnd: f64, srtt: Time) {
        let rate = self.rate_bytes_per_sec(bw, gain);
        if !self.has_seen_rtt && srtt > 0 {
            self.init_pacing_rate_from_rtt(cwnd, srtt);
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// `bbr_min_tso_segs`: 1 below `bbr_min_tso_rate` (1.2 Mbit/s), else 2.
    pub(super) fn min_tso_segs(&self) -> u32 {
        if self.pacing_rate < MIN_TSO_RATE_BPS / 8.0 {
            1
        } else {
            2
        }
    }

    /// `bbr_tso_segs_goal` with `bbr_min_tso_segs`.
    pub(super) fn tso_segs_goal(&self) -> f64 {
        let bytes = (self.pacing_rate / PACING_SHIFT).floor().min(GSO_MAX_BYTES);
        let min_segs = f64::from(self.min_tso_segs());
        (bytes / self.packet_bytes).floor().max(min_segs).min(127.0)
    }

    /// `bbr_bdp`: ceil(bw x min_rtt x gain); `TCP_INIT_CWND` before an RTT sample.
    pub(super) fn bdp(&self, bw: f64, gain: f64) -> f64 {
        let Some(min_rtt) = self.min_rtt else {
            return TCP_INIT_CWND;
        };
        (bw * (min_rtt as f64 / 1e9) * gain).ceil()
    }

    /// `bbr_quantization_budget`.
    pub(super) fn quantization_budget(&self, cwnd: f64) -> f64 {
        let mut cwnd = cwnd + 3.0 * self.tso_segs_goal();
        // Round up to an even number (fewer delayed ACKs).
        cwnd = 2.0 * (cwnd / 2.0).ceil();
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2.0;
        }
        cwnd
    }

    /// `bbr_inflight`.
    pub fn inflight(&self, bw: f64, gain: f64) -> f64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `bbr_packets_in_net_at_edt`: what will still be in the network when the next
    /// scheduled packet leaves.
    pub(super) fn packets_in_net_at_edt(
        &self,
        inflight_now: f64,
        now: Time,
        next_departure: Time,
    ) -> f64 {
        let edt = next_departure.max(now);
        let interval_delivered = (self.bw() * ((edt - now) / 1_000 * 1_000) as f64 / 1e9).floor();
        let mut inflight_at_edt = inflight_now;
        if self.pacing_gain > 1.0 {
            inflight_at_edt += self.tso_segs_goal();
        }
        (inflight_at_edt - interval_delivered).max(0.0)
    }

    /// `bbr_ack_aggregation_cwnd`.
    pub(super) fn ack_aggregation_cwnd(&self) -> f64 {
        if EXTRA_ACKED_GAIN > 0.0 && self.full_bw_reached {
            let max_aggr = (self.bw() * EXTRA_ACKED_MAX as f64 / 1e9).floor();
            let aggr = (EXTRA_ACKED_GAIN * self.extra_acked[0].max(self.extra_acked[1])).floor();
            return aggr.min(max_aggr);
        }
        0.0
    }
    /// `bbr_update_bw`.
    pub(super) fn update_bw(&mut self, rate: &DeliveryRate, now: Time) {
        self.round_start = false;
        let rs = *rate.sample();
        if rs.delivered < 0 || rs.interval <= 0 {
            return;
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = rate.delivered();
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(rate, rs.losses, rs.is_app_limited, now);
        let bw = rs.delivered as f64 * 1e9 / rs.interval as f64;
        if !rs.is_app_limited || bw >= self.bw.get() {
            self.bw.update(BW_RTTS, self.rtt_cnt, bw);
        }
    }

    /// `bbr_update_ack_aggregation`.
    pub(super) fn update_ack_aggregation(&mut self, rate: &DeliveryRate, now: Time, cwnd: f64) {
        let rs = rate.sample();
        if EXTRA_ACKED_GAIN <= 0.0 || rs.acked_sacked <= 0 || rs.delivered < 0 || rs.interval <= 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx = 1 - self.extra_acked_win_idx;
                self.extra_acked[self.extra_acked_win_idx] = 0.0;
            }
        }
        let delivered_mstamp = rate.delivered_mstamp().unwrap_or(now);
        let epoch = delivered_mstamp.saturating_sub(self.ack_epoch_mstamp) / 1_000 * 1_000;
        let mut expected = (self.bw() * epoch as f64 / 1e9).floor();
        if self.ack_epoch_acked as f64 <= expected
            || self.ack_epoch_acked + rs.acked_sacked as u64 >= ACK_EPOCH_ACKED_RESET_THRESH
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = delivered_mstamp;
            expected = 0.0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked as u64).min(0xfffff);
        let extra = (self.ack_epoch_acked as f64 - expected).min(cwnd);
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        if extra > *slot {
            *slot = extra;
        }
    }
    pub(super) fn reset_lt_bw_sampling_interval(&mut self, rate: &DeliveryRate, now: Time) {
        self.lt_last_stamp = rate.delivered_mstamp().unwrap_or(now) / MS;
        self.lt_last_delivered = rate.delivered();
        self.lt_last_lost = rate.lost();
        self.lt_rtt_cnt = 0;
    }

    pub(super) fn reset_lt_bw_sampling(&mut self, rate: &DeliveryRate, now: Time) {
        self.lt_bw = 0.0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_bw_sampling_interval(rate, now);
    }

    /// `bbr_lt_bw_interval_done`.
    pub(super) fn lt_bw_interval_done(&mut self, bw: f64, rate: &DeliveryRate, now: Time) {
        if self.lt_bw > 0.0 {
            let diff = (bw - self.lt_bw).abs();
            if diff <= LT_BW_RATIO * self.lt_bw || self.rate_bytes_per_sec(diff, 1.0) <= LT_BW_DIFF
            {
                // Policed: the average of the two intervals, at gain 1.
                self.lt_bw = (bw + self.lt_bw) / 2.0;
                self.lt_use_bw = true;
                self.pacing_gain = 1.0;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval(rate, now);
    }

    /// `bbr_lt_bw_sampling` with the sample's `losses` and app-limited flag.
    pub(super) fn lt_bw_sampling(
        &mut self,
        rate: &DeliveryRate,
        losses: i64,
        app_limited: bool,
        now: Time,
    ) {
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt_bw_sampling(rate, now);
                    self.reset_probe_bw_mode(rate, now);
                }
            }
            return;
        }
        // Wait for the first loss: the policer's tokens are exhausted then.
        if !self.lt_is_sampling {
            if losses <= 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval(rate, now);
            self.lt_is_sampling = true;
        }
        if app_limited {
            self.reset_lt_bw_sampling(rate, now);
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt_bw_sampling(rate, now);
            return;
        }
        if losses <= 0 {
            return;
        }
        let lost = rate.lost() - self.lt_last_lost;
        let delivered = rate.delivered() - self.lt_last_delivered;
        if delivered == 0 || (lost << 8) < LT_LOSS_THRESH * delivered {
            return;
        }
        let t_ms = (rate.delivered_mstamp().unwrap_or(now) / MS) as i64 - self.lt_last_stamp as i64;
        if t_ms < 1 {
            return;
        }
        let bw = delivered as f64 / (t_ms as f64 / 1e3);
        self.lt_bw_interval_done(bw, rate, now);
    }
}
