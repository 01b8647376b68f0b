//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson; draft-cardwell-iccrg-bbr-
//! congestion-control-00, and Linux net/ipv4/tcp_bbr.c, the version this machine's kernel
//! runs; facts taken from both, each cited where it is used). A model-based controller: on
//! every ACK it updates a model of the path from the delivery-rate sample (`delivery_rate.rs`,
//! Linux tcp_rate.c), then sets the pacing rate and cwnd from it; a loss does not cut the
//! window (only packet conservation in the first round of a recovery).
//!
//! - BtlBw: the windowed maximum of delivery-rate samples over 10 packet-timed round trips
//!   (`bbr_bw_rtts` = CYCLE_LEN + 2, Linux's lib/win_minmax.c, `minmax.rs`); app-limited
//!   samples only when they raise it (`bbr_update_bw`).
//! - RTprop: the minimum RTT over 10 s (`bbr_min_rtt_win_sec`); when it has not been renewed
//!   for 10 s, ProbeRTT: cwnd 4 packets (`bbr_cwnd_min_target`) for max(200 ms, one round)
//!   (`bbr_update_min_rtt`, `bbr_check_probe_rtt_done`).
//! - Startup at pacing and cwnd gain `bbr_high_gain` = 256 x 2885 / 1000 + 1 = 739 / 256 =
//!   2.887 (2/ln 2 rounded up in Linux's 1/256 units); full bandwidth when three rounds in a
//!   row raise BtlBw by less than 25 % (`bbr_check_full_bw_reached`); Drain at `bbr_drain_gain`
//!   = 88 / 256 until the packets in the network at the next departure fall to one BDP
//!   (`bbr_check_drain`, `bbr_packets_in_net_at_edt`); ProbeBW cycling the pacing gain over
//!   [1.25, 0.75, 1, 1, 1, 1, 1, 1], a phase lasting min RTT (the 1.25 phase until the
//!   packets in flight reach 1.25 BDP or a loss, the 0.75 phase until they fall to one BDP),
//!   starting at a random phase other than 0.75 (`bbr_reset_probe_bw_mode`: `cycle_idx =
//!   CYCLE_LEN - 1 - prandom_u32_max(bbr_cycle_rand)` then one advance), drawn from the
//!   sender's own seeded stream.
//! - Pacing rate = pacing_gain x BtlBw x (100 - `bbr_pacing_margin_percent` = 1) % (Linux
//!   `bbr_rate_bytes_per_sec`), raised only, until full bandwidth is reached, from the initial
//!   high_gain x cwnd / RTT (`bbr_init_pacing_rate_from_rtt`: a 1 ms nominal RTT before a
//!   sample; `bbr_set_pacing_rate`).
//! - cwnd = cwnd_gain (2 in ProbeBW) x BDP + the ACK-aggregation allowance
//!   (`bbr_ack_aggregation_cwnd`, Linux 4.20+) + `bbr_quantization_budget` (3 TSO segments'
//!   worth, rounded up to even, + 2 in the 1.25 phase); reached by adding the packets acked
//!   (`bbr_set_cwnd`). In the first round of a recovery, packet conservation: cwnd = in
//!   flight plus acked; at its end the cwnd saved at its start comes back
//!   (`bbr_set_cwnd_to_recover_or_restore`, `bbr_save_cwnd`).
//! - Long-term (policer) mode, "lt_bw" (`bbr_lt_bw_sampling`, `bbr_lt_bw_interval_done`): two
//!   intervals of 4 to 16 rounds that each end on a loss, with loss rate >= 50/256 and
//!   delivery rates within 1/8 (or 4 kbit/s) of each other, mean a token-bucket policer: BBR
//!   then uses their average as BtlBw at gain 1 for 48 rounds.
//!
//! The model and its arithmetic (units, BDP, TSO budget, BtlBw's update, ACK aggregation, the
//! long-term sampling) are in `bbr/model.rs`; this file holds the modes that read it, the
//! window and pacing it sets, and the hooks (`ops.rs`) through which the sender drives it.
//!
//! Where aqmlab differs, knowingly:
//! - Rates are f64 packets per second, not Linux's 2^-24 packets/us fixed point; the gains
//!   are Linux's 1/256 values.
//! - TSO: the cwnd keeps Linux's TSO budget (`bbr_tso_segs_goal`: pacing rate >>
//!   `sk_pacing_shift` 10, at least `bbr_min_tso_segs`, 2 at and above 1.2 Mbit/s, capped by
//!   64 KB - 1 - 320 B of headers and 127 segments) whatever the sender does; the sender sends
//!   skbs of that many segments back to back only with `tcp.segmentation_offload =
//!   "linux_autosize"` (`tso.rs`; the linux profile's), else one packet per pacing slot.
//! - Start: built with the sender, with no RTT (`bbr_init` at time 0: the 1 ms nominal RTT's
//!   pacing rate); with `tcp.handshake = "syn"` (the linux profile's) started again once the
//!   SYN-ACK arrives (`tcp_init_transfer`), with the handshake's srtt and min RTT
//!   (`init_at`). The min-RTT filter takes a sample only if strictly lower
//!   (`bbr_update_min_rtt`), so on a path whose samples tie ProbeRTT comes every 10 s.
//! - `rs->is_ack_delayed` (an RTT sample from a possibly delayed ACK does not renew an
//!   expired RTprop) is not modelled: every sample may renew it.
//! - Restart from idle (`bbr_cwnd_event`, CA_EVENT_TX_START) is not modelled: aqmlab's
//!   sources are greedy or finite, and a tcp_rr probe's idle restarts start from the window.
//! - The undo of a spurious recovery is `bbr_undo_cwnd`: the window BBR set stays, full-pipe
//!   detection and the long-term sampling start again.

use super::minmax::WindowedMax;
pub use super::ops::{AckInfo, CaState};
use super::ops::{CongestionOps, Signal, StateCtx, Window};
use super::ControllerConfig;
use crate::sim::{RngStream, StreamKind, Time};
use crate::transport::tcp::delivery_rate::DeliveryRate;
use crate::transport::tcp::pacing::PacingInputs;

mod model;
#[cfg(test)]
mod tests;

const MS: Time = 1_000_000;

/// `bbr_high_gain` = BBR_UNIT * 2885 / 1000 + 1, in 1/256 (2/ln 2, rounded up).
pub const HIGH_GAIN: f64 = (256 * 2885 / 1000 + 1) as f64 / 256.0;
/// `bbr_drain_gain` = BBR_UNIT * 1000 / 2885.
pub const DRAIN_GAIN: f64 = (256 * 1000 / 2885) as f64 / 256.0;
/// `bbr_cwnd_gain`.
pub const CWND_GAIN: f64 = 2.0;
/// `bbr_pacing_gain[]`: the ProbeBW cycle.
pub const PACING_GAIN: [f64; CYCLE_LEN] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
const CYCLE_LEN: usize = 8;
/// `bbr_cycle_rand`: the starting phase is drawn over 7 phases.
const CYCLE_RAND: f64 = 7.0;
/// `bbr_bw_rtts`: the BtlBw filter's window, round trips.
pub const BW_RTTS: u64 = CYCLE_LEN as u64 + 2;
/// `bbr_min_rtt_win_sec`.
pub const MIN_RTT_WIN: Time = 10_000 * MS;
/// `bbr_probe_rtt_mode_ms`.
pub const PROBE_RTT_MODE: Time = 200 * MS;
/// `bbr_min_tso_rate`, bit/s.
const MIN_TSO_RATE_BPS: f64 = 1_200_000.0;
/// `bbr_pacing_margin_percent`.
const PACING_MARGIN_PERCENT: f64 = 1.0;
/// `bbr_cwnd_min_target`, packets.
pub const CWND_MIN_TARGET: f64 = 4.0;
/// `bbr_full_bw_thresh` (5/4) and `bbr_full_bw_cnt`.
const FULL_BW_THRESH: f64 = 1.25;
const FULL_BW_CNT: u32 = 3;
/// Long-term sampling: `bbr_lt_intvl_min_rtts`, `bbr_lt_loss_thresh` (/256),
/// `bbr_lt_bw_ratio` (1/8), `bbr_lt_bw_diff` (bytes/s), `bbr_lt_bw_max_rtts`.
const LT_INTVL_MIN_RTTS: u32 = 4;
const LT_LOSS_THRESH: u64 = 50;
const LT_BW_RATIO: f64 = 1.0 / 8.0;
const LT_BW_DIFF: f64 = 4000.0 / 8.0;
const LT_BW_MAX_RTTS: u32 = 48;
/// ACK aggregation: `bbr_extra_acked_gain` (1), `bbr_extra_acked_win_rtts`,
/// `bbr_ack_epoch_acked_reset_thresh`, `bbr_extra_acked_max_us`.
const EXTRA_ACKED_GAIN: f64 = 1.0;
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const ACK_EPOCH_ACKED_RESET_THRESH: u64 = 1 << 20;
const EXTRA_ACKED_MAX: Time = 100 * MS;
/// `TCP_INIT_CWND`: the window before any RTT sample.
const TCP_INIT_CWND: f64 = 10.0;
/// `sk_pacing_shift` (10: about 1 ms of data per TSO burst), and the GSO cap
/// (`GSO_MAX_SIZE - 1 - MAX_TCP_HEADER`, the header taken as 320 B).
const PACING_SHIFT: f64 = 1024.0;
const GSO_MAX_BYTES: f64 = 65_536.0 - 1.0 - 320.0;

/// BBR's modes (`enum bbr_mode`), with their codes in the time series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Startup = 0,
    Drain = 1,
    ProbeBw = 2,
    ProbeRtt = 3,
}

#[derive(Debug, Clone)]
pub struct Bbr {
    mode: Mode,
    bw: WindowedMax,
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    cycle_mstamp: Time,
    cycle_idx: usize,
    prev_ca_state: CaState,
    packet_conservation: bool,
    round_start: bool,
    probe_rtt_done_stamp: Option<Time>,
    probe_rtt_round_done: bool,
    /// ProbeRTT just ended: cwnd = max(cwnd, prior_cwnd) before this ACK's window update.
    restore_after_probe_rtt: bool,
    min_rtt: Option<Time>,
    min_rtt_stamp: Time,
    pacing_gain: f64,
    cwnd_gain: f64,
    full_bw_reached: bool,
    full_bw_cnt: u32,
    full_bw: f64,
    prior_cwnd: f64,
    has_seen_rtt: bool,
    /// Bytes (of wire size) per second.
    pacing_rate: f64,
    lt_is_sampling: bool,
    lt_rtt_cnt: u32,
    lt_use_bw: bool,
    lt_bw: f64,
    lt_last_delivered: u64,
    lt_last_stamp: Time,
    lt_last_lost: u64,
    ack_epoch_mstamp: Time,
    ack_epoch_acked: u64,
    extra_acked: [f64; 2],
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    /// Bytes of a data packet on the wire (Linux's `mss_cache`).
    packet_bytes: f64,
    /// Linux `snd_ssthresh` as BBR sets it (infinite until Drain).
    ssthresh: Option<f64>,
    rng: RngStream,
}

impl Bbr {
    /// `bbr_init` at `now` for packets of `packet_bytes`, with the initial window `cwnd`,
    /// drawing from `rng` (the sender's stream).
    pub fn from_config(cfg: &ControllerConfig, rng: &RngStream) -> Self {
        // The random draws (the ProbeBW start phase) come from a stream seeded by the
        // sender's own, which is cloned, not drawn from: `overhead`'s delays stay as they were.
        let seed = rng.clone().next_u64();
        Bbr::new(
            RngStream::new(seed, StreamKind::Agent, 28),
            cfg.packet_bytes,
            cfg.window_init,
            0,
        )
    }

    pub fn new(rng: RngStream, packet_bytes: u32, cwnd: f64, now: Time) -> Self {
        let mut b = Bbr {
            mode: Mode::Startup,
            bw: WindowedMax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_mstamp: 0,
            cycle_idx: 0,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            round_start: false,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            restore_after_probe_rtt: false,
            min_rtt: None,
            min_rtt_stamp: now,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            full_bw_reached: false,
            full_bw_cnt: 0,
            full_bw: 0.0,
            prior_cwnd: 0.0,
            has_seen_rtt: false,
            pacing_rate: 0.0,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0.0,
            lt_last_delivered: 0,
            lt_last_stamp: 0,
            lt_last_lost: 0,
            ack_epoch_mstamp: now,
            ack_epoch_acked: 0,
            extra_acked: [0.0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            packet_bytes: f64::from(packet_bytes),
            ssthresh: None,
            rng,
        };
        b.init_pacing_rate_from_rtt(cwnd, 0);
        b
    }

    /// `bbr_init` run again once a SYN handshake has completed at `now` (`tcp_init_transfer`):
    /// min RTT = `tcp_min_rtt`, the handshake's sample, stamped now; the pacing rate from
    /// the handshake's srtt (`bbr_init_pacing_rate_from_rtt`); the ACK-aggregation epoch
    /// from now. Nothing else has moved since `new`.
    pub fn init_at(&mut self, now: Time, srtt: Time, min_rtt: Option<Time>, cwnd: f64) {
        self.min_rtt = min_rtt;
        self.min_rtt_stamp = now;
        self.ack_epoch_mstamp = now;
        self.has_seen_rtt = false;
        self.init_pacing_rate_from_rtt(cwnd, srtt);
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// BtlBw, packets per second (the long-term rate while it is used).
    pub fn bw(&self) -> f64 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.bw.get()
        }
    }

    pub fn max_bw(&self) -> f64 {
        self.bw.get()
    }

    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }

    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }

    pub fn cwnd_gain(&self) -> f64 {
        self.cwnd_gain
    }

    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    pub fn cycle_idx(&self) -> usize {
        self.cycle_idx
    }

    pub fn lt_use_bw(&self) -> bool {
        self.lt_use_bw
    }

    pub fn rtt_cnt(&self) -> u64 {
        self.rtt_cnt
    }

    /// The pacing rate, bytes of wire size per second.
    pub fn pacing_rate(&self) -> f64 {
        self.pacing_rate
    }

    /// The slow-start threshold BBR set (at Drain), if any.
    pub fn ssthresh(&self) -> Option<f64> {
        self.ssthresh
    }

    /// `bbr_save_cwnd`.
    fn save_cwnd(&mut self, cwnd: f64) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    /// `bbr_ssthresh`: entering a recovery (or a timeout, or an ECN reduction): the window is
    /// saved to come back at its end; ssthresh is not cut.
    pub fn on_congestion(&mut self, cwnd: f64) {
        self.save_cwnd(cwnd);
    }

    /// `bbr_set_state(TCP_CA_Loss)`: a retransmission timeout, with the connection's
    /// delivery counts in `rate`.
    pub fn on_timeout(&mut self, rate: &DeliveryRate, now: Time) {
        self.prev_ca_state = CaState::Loss;
        self.full_bw = 0.0;
        // "treat RTO like end of a round"
        self.round_start = true;
        self.lt_bw_sampling(rate, 1, false, now);
    }

    /// `bbr_main` on an ACK whose rate sample `rate` has just generated: updates the model,
    /// the pacing rate and `cwnd`.
    pub fn on_ack(&mut self, rate: &mut DeliveryRate, a: &AckInfo, cwnd: &mut f64) {
        self.update_model(rate, a, *cwnd);
        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain, *cwnd, a.srtt);
        self.set_cwnd(rate, a, bw, cwnd);
    }

    fn update_model(&mut self, rate: &mut DeliveryRate, a: &AckInfo, cwnd: f64) {
        self.update_bw(rate, a.now);
        self.update_ack_aggregation(rate, a.now, cwnd);
        self.update_cycle_phase(rate, a);
        self.check_full_bw_reached(rate);
        self.check_drain(rate, a);
        self.update_min_rtt(rate, a, cwnd);
        self.update_gains();
    }

    /// `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(&self, rate: &DeliveryRate, a: &AckInfo) -> bool {
        let delivered_mstamp = rate.delivered_mstamp().unwrap_or(a.now);
        let is_full_length = self.min_rtt.is_some_and(|m| {
            delivered_mstamp.saturating_sub(self.cycle_mstamp) / 1_000 * 1_000 > m
        });
        if self.pacing_gain == 1.0 {
            return is_full_length;
        }
        let rs = rate.sample();
        let inflight =
            self.packets_in_net_at_edt(rs.prior_in_flight as f64, a.now, a.next_departure);
        let bw = self.max_bw();
        if self.pacing_gain > 1.0 {
            return is_full_length
                && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain));
        }
        is_full_length || inflight <= self.inflight(bw, 1.0)
    }

    fn advance_cycle_phase(&mut self, rate: &DeliveryRate, now: Time) {
        self.cycle_idx = (self.cycle_idx + 1) & (CYCLE_LEN - 1);
        self.cycle_mstamp = rate.delivered_mstamp().unwrap_or(now);
    }

    fn update_cycle_phase(&mut self, rate: &DeliveryRate, a: &AckInfo) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rate, a) {
            self.advance_cycle_phase(rate, a.now);
        }
    }

    /// `bbr_reset_probe_bw_mode`: a random phase of the cycle, never the 0.75 one.
    fn reset_probe_bw_mode(&mut self, rate: &DeliveryRate, now: Time) {
        self.mode = Mode::ProbeBw;
        let r = ((self.rng.uniform() * CYCLE_RAND) as usize).min(CYCLE_RAND as usize - 1);
        self.cycle_idx = CYCLE_LEN - 1 - r;
        self.advance_cycle_phase(rate, now);
    }

    fn reset_mode(&mut self, rate: &DeliveryRate, now: Time) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(rate, now);
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_check_full_bw_reached`.
    fn check_full_bw_reached(&mut self, rate: &DeliveryRate) {
        if self.full_bw_reached || !self.round_start || rate.sample().is_app_limited {
            return;
        }
        if self.max_bw() >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// `bbr_check_drain`.
    fn check_drain(&mut self, rate: &DeliveryRate, a: &AckInfo) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.ssthresh = Some(self.inflight(self.max_bw(), 1.0));
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(a.in_flight as f64, a.now, a.next_departure)
                <= self.inflight(self.max_bw(), 1.0)
        {
            // The queue Startup built is estimated drained.
            self.reset_probe_bw_mode(rate, a.now);
        }
    }

    /// `bbr_update_min_rtt`, with the ProbeRTT mode it drives.
    fn update_min_rtt(&mut self, rate: &mut DeliveryRate, a: &AckInfo, cwnd: f64) {
        let now = a.now;
        let filter_expired = now > self.min_rtt_stamp + MIN_RTT_WIN;
        let rs = *rate.sample();
        if let Some(rtt) = rs.rtt {
            // Strictly lower (`rs->rtt_us < bbr->min_rtt_us`): a tie does not renew the
            // stamp, so on a path whose samples tie ProbeRTT still comes every 10 s.
            if self.min_rtt.is_none_or(|m| rtt < m) || filter_expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = now;
            }
        }
        if filter_expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(cwnd);
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == Mode::ProbeRtt {
            // Ignore the low-rate samples of this mode.
            rate.mark_app_limited(a.in_flight);
            if self.probe_rtt_done_stamp.is_none() && a.in_flight as f64 <= CWND_MIN_TARGET {
                self.probe_rtt_done_stamp = Some(now + PROBE_RTT_MODE);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = rate.delivered();
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(rate, now);
                }
            }
        }
    }

    /// `bbr_check_probe_rtt_done`; the window comes back in `set_cwnd`.
    fn check_probe_rtt_done(&mut self, rate: &DeliveryRate, now: Time) {
        if self.probe_rtt_done_stamp.is_none_or(|t| now <= t) {
            return;
        }
        self.min_rtt_stamp = now;
        self.restore_after_probe_rtt = true;
        self.reset_mode(rate, now);
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw => (
                if self.lt_use_bw {
                    1.0
                } else {
                    PACING_GAIN[self.cycle_idx]
                },
                CWND_GAIN,
            ),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// `bbr_set_cwnd` with `bbr_set_cwnd_to_recover_or_restore`.
    fn set_cwnd(&mut self, rate: &DeliveryRate, a: &AckInfo, bw: f64, cwnd_out: &mut f64) {
        let rs = rate.sample();
        let acked = rs.acked_sacked as f64;
        let mut cwnd = *cwnd_out;
        if self.restore_after_probe_rtt {
            // `bbr_check_probe_rtt_done`: snd_cwnd = max(snd_cwnd, prior_cwnd).
            self.restore_after_probe_rtt = false;
            cwnd = cwnd.max(self.prior_cwnd);
        }
        'done: {
            if acked <= 0.0 {
                break 'done;
            }
            // Recovery and restore.
            if rs.losses > 0 {
                cwnd = (cwnd - rs.losses as f64).max(1.0);
            }
            let (prev, state) = (self.prev_ca_state, a.ca_state);
            if state == CaState::Recovery && prev != CaState::Recovery {
                // The first round of a recovery: packet conservation.
                self.packet_conservation = true;
                self.next_rtt_delivered = rate.delivered();
                cwnd = a.in_flight as f64 + acked;
            } else if prev >= CaState::Recovery && state < CaState::Recovery {
                cwnd = cwnd.max(self.prior_cwnd);
                self.packet_conservation = false;
            }
            self.prev_ca_state = state;
            if self.packet_conservation {
                cwnd = cwnd.max(a.in_flight as f64 + acked);
                break 'done;
            }
            let target = self
                .quantization_budget(self.bdp(bw, self.cwnd_gain) + self.ack_aggregation_cwnd());
            if self.full_bw_reached {
                cwnd = (cwnd + acked).min(target);
            } else if cwnd < target || rate.delivered() < TCP_INIT_CWND as u64 {
                cwnd += acked;
            }
            cwnd = cwnd.max(CWND_MIN_TARGET);
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(CWND_MIN_TARGET);
        }
        *cwnd_out = cwnd;
    }

    /// Variables for the time series.
    pub fn state(&self, out: &mut crate::sim::StateSink) {
        out("bbr_mode", self.mode as u8 as f64);
        out("bbr_btl_bw_bps", self.bw() * self.packet_bytes * 8.0);
        out(
            "bbr_rt_prop_ms",
            self.min_rtt.map_or(f64::NAN, |m| m as f64 / 1e6),
        );
        out("bbr_pacing_gain", self.pacing_gain);
        out("bbr_cwnd_gain", self.cwnd_gain);
        out("bbr_lt_use_bw", f64::from(u8::from(self.lt_use_bw)));
    }
}

/// BBR sets cwnd and the pacing rate itself on every ACK (`cong_control = bbr_main`), from
/// the rate sample it asks for; `bbr_ssthresh` saves the window instead of cutting it;
/// `bbr_set_state(TCP_CA_Loss)`; always paced (`SK_PACING_NEEDED`).
impl CongestionOps for Bbr {
    fn ssthresh(&mut self, w: &Window, _: i64, _: Signal, _: Time) -> Option<i64> {
        self.on_congestion(w.cwnd);
        None
    }

    fn has_cong_control(&self) -> bool {
        true
    }

    fn cong_control(&mut self, rate: &mut DeliveryRate, ack: &AckInfo, w: &mut Window) {
        self.on_ack(rate, ack, &mut w.cwnd);
        if let Some(s) = self.ssthresh {
            w.ssthresh = s as i64;
        }
    }

    fn wants_rate_sample(&self) -> bool {
        true
    }

    fn set_state(&mut self, state: CaState, _: &mut Window, cx: &StateCtx) {
        if let (CaState::Loss, Some(rate)) = (state, cx.rate) {
            self.on_timeout(rate, cx.now);
        }
    }

    fn always_paces(&self) -> bool {
        true
    }

    fn initial_pacing_rate(&self) -> Option<f64> {
        Some(self.pacing_rate)
    }

    fn pacing_rate(&self, _: &PacingInputs) -> Option<f64> {
        Some(self.pacing_rate)
    }

    fn min_tso_segs(&self) -> Option<u32> {
        Some(self.min_tso_segs())
    }

    fn init_after_handshake(&mut self, now: Time, srtt: Time, min_rtt: Option<Time>, cwnd: f64) {
        self.init_at(now, srtt, min_rtt, cwnd);
    }

    /// `bbr_undo_cwnd`: a spurious slow-down; full-pipe detection and the long-term sampling
    /// start again, and the window stays what BBR set (Linux returns `snd_cwnd`).
    fn undo_cwnd(&mut self, w: &Window, _prior_cwnd: f64) -> f64 {
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        self.lt_bw = 0.0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        // `bbr_reset_lt_bw_sampling_interval` would take the delivery counts now; the next
        // interval starts at the next loss (`lt_is_sampling` cleared), which resets them.
        self.lt_rtt_cnt = 0;
        w.cwnd
    }

    fn state(&self, out: &mut crate::sim::StateSink) {
        Bbr::state(self, out);
    }
}
