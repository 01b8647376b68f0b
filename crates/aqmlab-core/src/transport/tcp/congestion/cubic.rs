//! CUBIC congestion control, RFC 9438 (Xu, Ha, Rhee, Goel, Eggert 2023).
//!
//! - Window growth in congestion avoidance follows the cubic function of the time `t` (s)
//!   since the current epoch began (eq. 1): `W_cubic(t) = C (t - K)^3 + W_max`, with
//!   `K = cbrt((W_max - cwnd_epoch) / C)` (eq. 2), `cwnd_epoch` the window when the epoch
//!   began. On each new ACK the window moves towards `target = W_cubic(t + RTT)`, clamped to
//!   `[cwnd, 1.5 cwnd]`, by `(target - cwnd) / cwnd` (section 4.4); RTT is the smoothed RTT.
//! - Reno-friendly region (4.3): `W_est` grows by `alpha_cubic * acked / cwnd` per ACK, with
//!   `alpha_cubic = 3 (1 - beta) / (1 + beta)` (eq. 4) until `W_est >= cwnd_prior`, then 1;
//!   when `W_cubic(t) < W_est`, cwnd is set to `W_est`.
//! - Multiplicative decrease (4.6): the window falls to `beta` times the window at the
//!   congestion signal; fast convergence (4.7): when that window is below the previous
//!   `W_max`, `W_max` becomes `window (1 + beta) / 2`, else the window itself.
//! - A timeout (4.8) reduces `W_max` and ssthresh the same way; the sender then restarts
//!   from one packet in slow start and a new epoch begins when it reaches ssthresh.
//! - Slow start is one packet per ACK, as ns-2, unless HyStart++ (RFC 9406, `hystart.rs`)
//!   runs the first one (section 4.10 allows it), or `cwnd_growth = "packets_acked"` counts
//!   the packets acked (below).
//! - Before any congestion signal there is no `W_max`: the first epoch takes the window at
//!   its start as `W_max` (K = 0, convex growth from there) and as `cwnd_prior`, as 4.10 asks
//!   after a HyStart++ exit without loss.
//!
//! Parameters (`tcp.cubic`): `c` (0.4, packets/s^3), `beta` (0.7), `fast_convergence` (true),
//! the RFC's values; and four readings where Linux's CUBIC (net/ipv4/tcp_cubic.c, v6.1, the
//! same in 6.x mainline) differs from the RFC, each the RFC's by default:
//! - `target_rtt`: `srtt` (RFC 9438 4.2: the target is `W_cubic(t + RTT)`, RTT smoothed) |
//!   `min_rtt` (`bictcp_update`: `t += delay_min`, the least RTT sample `cubictcp_acked` has
//!   kept: all of them except those less than a second after an epoch began, "right after
//!   fast recovery"; before any sample the look-ahead is 0, as in both).
//! - `reno_friendly`: `rfc9438` (4.3, above) | `linux` (`bictcp_update`'s `tcp_friendliness`
//!   block): the Reno estimate `tcp_cwnd` starts at cwnd with the epoch and gains one packet
//!   per `(cwnd * beta_scale) >> 3` packets acked, `beta_scale = 8 (1024 + b) / 3 / (1024 -
//!   b)` with b = 1024 beta (15 for 717: alpha = 8/15, for the whole epoch: the RFC's switch
//!   to alpha = 1 past `cwnd_prior` is not made); when it exceeds cwnd the window grows by
//!   one packet per `cwnd / (tcp_cwnd - cwnd)` packets acked if that is faster than the
//!   cubic's rate. cwnd is never set to the estimate, and it is compared with cwnd, not with
//!   `W_cubic(t)`.
//! - `growth_without_w_max`: `rfc9438` | `linux`: while no congestion signal has set W_max
//!   (`last_max_cwnd == 0`) the window grows by at least one packet per 20 acked ("increase
//!   cwnd 5% per RTT", `bictcp_update`).
//! - `state_on_rto`: `kept` (RFC 9438 4.8: W_max as for any signal) | `reset`
//!   (`cubictcp_state` on `TCP_CA_Loss` calls `bictcp_reset`: after an RTO, W_max, the minimum
//!   RTT and the epoch are forgotten, after ssthresh was computed from them).
//!
//! Fast convergence is the same in both (`cubictcp_recalc_ssthresh`: W_max = cwnd (1 + beta) /
//! 2 below the last W_max); Linux takes the window it reduces from cwnd, which
//! `tcp.ssthresh_base = "cwnd"` selects. Linux's beta is 717/1024 and C 410/1024 (the `linux`
//! profile sets both).
//!
//! Growth per ACK or per packet acked (`tcp.cwnd_growth`, `packet_counting.rs`): `per_ack`
//! is the RFC's `cwnd += (target - cwnd) / cwnd` per new ACK. `packets_acked` is Linux's
//! `cubictcp_cong_avoid`: `tcp_slow_start` with the packets acked, then `bictcp_update`'s
//! count `cnt = cwnd / (target - cwnd)` (whole, `100 cwnd` when the target is not above cwnd,
//! at least 2: at most 1.5x per RTT) given to `tcp_cong_avoid_ai` with the packets acked.
//! Not modelled: the fixed-point arithmetic (time in 1/1024 s, the cube truncated, K by a
//! table and one Newton step), `cnt` recomputed at most once per jiffy, or every 1/32 s while
//! cwnd has not changed, and the epoch moved on by an idle period (`cubictcp_cwnd_event`).

use super::growth::Growth;
use super::ops::{AckEvent, Acked, CaState, CongestionOps, Signal, StateCtx, Window};
use super::packet_counting::{self, AckedCount};
use super::{CwndGrowth, HystartParams};
use crate::sim::{time, Time};
use crate::transport::tcp::TcpConfig;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

/// The RTT the target looks ahead by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetRtt {
    /// The smoothed RTT (RFC 9438 4.2).
    #[default]
    Srtt,
    /// The least RTT sample (Linux `delay_min`, `bictcp_update`).
    MinRtt,
}

/// How the Reno-friendly region is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RenoFriendly {
    /// RFC 9438 4.3: W_est, alpha_cubic until W_est reaches cwnd_prior, then 1; cwnd = W_est
    /// while W_cubic(t) < W_est.
    #[default]
    Rfc9438,
    /// Linux `bictcp_update`'s `tcp_friendliness`: alpha = 8 / beta_scale throughout, the
    /// estimate compared with cwnd and reached through the growth rate.
    Linux,
}

/// How the window grows while no congestion signal has set W_max.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GrowthWithoutWmax {
    /// The cubic from W_max = cwnd, K = 0 (RFC 9438 4.2, 4.10).
    #[default]
    Rfc9438,
    /// The same, but at least one packet per 20 acked (Linux `bictcp_update`: `cnt <= 20`).
    Linux,
}

/// What a retransmission timeout leaves of CUBIC's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StateOnRto {
    /// W_max is set as for any congestion signal (RFC 9438 4.8).
    #[default]
    Kept,
    /// W_max, the minimum RTT and the epoch are cleared (Linux `cubictcp_state` on
    /// `TCP_CA_Loss`: `bictcp_reset`).
    Reset,
}

/// Linux's count of packets acked per one-packet increase before any W_max (`bictcp_update`).
pub const CNT_WITHOUT_W_MAX: f64 = 20.0;
/// Linux's least count: one packet per two acked, 1.5x per RTT (`bictcp_update`).
pub const MIN_CNT: f64 = 2.0;
/// RTT samples this soon after an epoch began are not used for the minimum (Linux
/// `cubictcp_acked`: "Discard delay samples right after fast recovery", HZ jiffies).
pub const MIN_RTT_SETTLE: Time = 1_000_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct CubicParams {
    /// C, the cubic's scaling constant (packets/s^3).
    pub c: f64,
    /// beta_cubic, the multiplicative decrease factor.
    pub beta: f64,
    pub fast_convergence: bool,
    /// `srtt` (RFC 9438) | `min_rtt` (Linux).
    pub target_rtt: TargetRtt,
    /// `rfc9438` | `linux`.
    pub reno_friendly: RenoFriendly,
    /// `rfc9438` | `linux`.
    pub growth_without_w_max: GrowthWithoutWmax,
    /// `kept` (RFC 9438) | `reset` (Linux).
    pub state_on_rto: StateOnRto,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            target_rtt: TargetRtt::Srtt,
            reno_friendly: RenoFriendly::Rfc9438,
            growth_without_w_max: GrowthWithoutWmax::Rfc9438,
            state_on_rto: StateOnRto::Kept,
        }
    }
}

impl CubicParams {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        if !(self.c.is_finite() && self.c > 0.0) {
            return Err(ScenarioError::new(
                format!("{path}.c"),
                format!("must be a positive number, got {}", self.c),
            ));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(ScenarioError::new(
                format!("{path}.beta"),
                format!("must be in (0, 1), got {}", self.beta),
            ));
        }
        Ok(())
    }

    /// alpha_cubic of eq. 4: the Reno-friendly additive increase per RTT.
    pub fn alpha(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }

    /// Linux's `beta_scale` (`cubictcp_register`), from beta in 1/1024ths: the Reno estimate
    /// gains a packet per `(cwnd * beta_scale) >> 3` packets acked. 15 for beta = 717/1024.
    pub fn linux_beta_scale(&self) -> u64 {
        let b = (self.beta * 1024.0).round() as u64;
        8 * (1024 + b) / 3 / (1024 - b.min(1023))
    }
}

#[derive(Debug, Clone, Copy)]
struct Epoch {
    start: Time,
    /// K of eq. 2, seconds.
    k: f64,
    /// W_est of the Reno-friendly region, packets (`reno_friendly = "rfc9438"`).
    w_est: f64,
    /// Linux's Reno estimate `tcp_cwnd` and the packets acked towards its next packet
    /// `ack_cnt` (`reno_friendly = "linux"`).
    tcp_cwnd: f64,
    ack_cnt: f64,
}

#[derive(Debug, Clone)]
pub struct Cubic {
    p: CubicParams,
    /// W_max, packets; 0 before the first congestion signal.
    w_max: f64,
    /// cwnd_prior: the window at the last congestion signal, packets.
    cwnd_prior: f64,
    /// A congestion signal has set W_max (Linux `last_max_cwnd != 0`); the first epoch's
    /// W_max = cwnd does not count.
    w_max_known: bool,
    /// The current congestion-avoidance epoch; None until the first ACK in congestion
    /// avoidance after a reduction or slow start.
    epoch: Option<Epoch>,
    /// Linux `delay_min`: the least RTT sample kept (see `on_rtt_sample`).
    delay_min: Option<Time>,
}

impl Cubic {
    pub fn new(p: CubicParams) -> Self {
        Cubic {
            p,
            w_max: 0.0,
            cwnd_prior: 0.0,
            w_max_known: false,
            epoch: None,
            delay_min: None,
        }
    }

    /// W_cubic(t) of eq. 1 for the current W_max and a given K.
    pub fn w_cubic(&self, t: f64, k: f64) -> f64 {
        self.p.c * (t - k).powi(3) + self.w_max
    }

    /// K of eq. 2: the time the cubic takes to climb from `cwnd_epoch` back to W_max.
    pub fn k(&self, cwnd_epoch: f64) -> f64 {
        ((self.w_max - cwnd_epoch).max(0.0) / self.p.c).cbrt()
    }

    /// The least RTT kept, Linux's `delay_min` (None before the first sample).
    pub fn delay_min(&self) -> Option<Time> {
        self.delay_min
    }

    /// An RTT sample at `now` (Linux `cubictcp_acked`): kept for the minimum unless an epoch
    /// began less than a second ago. Returns the minimum when the sample was kept, for Linux's
    /// HyStart, which `cubictcp_acked` skips with the sample.
    pub fn on_rtt_sample(&mut self, rtt: Time, now: Time) -> Option<Time> {
        if self
            .epoch
            .is_some_and(|e| now.saturating_sub(e.start) < MIN_RTT_SETTLE)
        {
            return None;
        }
        let rtt = rtt.max(1);
        let min = self.delay_min.map_or(rtt, |m| m.min(rtt));
        self.delay_min = Some(min);
        Some(min)
    }

    /// The look-ahead of the target (`target_rtt`), given the smoothed RTT.
    fn target_rtt(&self, srtt: Time) -> f64 {
        time::to_secs_f64(match self.p.target_rtt {
            TargetRtt::Srtt => srtt,
            TargetRtt::MinRtt => self.delay_min.unwrap_or(0),
        })
    }

    /// The current epoch, or a new one starting at `now` with the window `cwnd`.
    fn epoch_at(&mut self, cwnd: f64, now: Time) -> Epoch {
        if let Some(e) = self.epoch {
            return e;
        }
        if self.w_max < cwnd {
            // No congestion signal yet, or the window has passed W_max already.
            self.w_max = cwnd;
            self.cwnd_prior = self.cwnd_prior.max(cwnd);
        }
        let e = Epoch {
            start: now,
            k: self.k(cwnd),
            w_est: cwnd,
            tcp_cwnd: packet_counting::whole(cwnd),
            ack_cnt: 0.0,
        };
        self.epoch = Some(e);
        e
    }

    /// RFC 9438 4.3: W_est after an ACK of `acked` packets; whether cwnd is to be set to it.
    fn rfc_w_est(&mut self, epoch: Epoch, cwnd: f64, acked: f64, t: f64) -> Option<f64> {
        let alpha = if epoch.w_est >= self.cwnd_prior {
            1.0
        } else {
            self.p.alpha()
        };
        let w_est = epoch.w_est + alpha * acked / cwnd;
        self.epoch = Some(Epoch { w_est, ..epoch });
        (self.w_cubic(t, epoch.k) < w_est).then_some(w_est)
    }

    /// Linux's Reno estimate after `acked` more packets at the whole window `w`
    /// (`bictcp_update`, `tcp_friendliness`): `tcp_cwnd`.
    fn linux_tcp_cwnd(&mut self, w: f64, acked: f64) -> f64 {
        let scale = self.p.linux_beta_scale() as f64;
        let e = self.epoch.as_mut().expect("an epoch is running");
        e.ack_cnt += acked;
        // "while (ca->ack_cnt > delta) { ack_cnt -= delta; tcp_cwnd++; }", in one step.
        let delta = (w * scale / 8.0).floor().max(1.0);
        if e.ack_cnt > delta {
            let n = ((e.ack_cnt - delta) / delta).ceil();
            e.ack_cnt -= n * delta;
            e.tcp_cwnd += n;
        }
        e.tcp_cwnd
    }

    /// `growth_without_w_max = "linux"` is in force (no W_max from a congestion signal).
    fn linux_floor_without_w_max(&self) -> bool {
        self.p.growth_without_w_max == GrowthWithoutWmax::Linux && !self.w_max_known
    }

    /// Growth on a new ACK of `acked` packets, one ACK counting as one increase
    /// (`cwnd_growth = "per_ack"`, RFC 9438 4.4).
    pub fn on_ack(&mut self, cwnd: &mut f64, ssthresh: i64, acked: i64, now: Time, srtt: Time) {
        if *cwnd < ssthresh as f64 {
            *cwnd += 1.0;
            return;
        }
        let epoch = self.epoch_at(*cwnd, now);
        let t = time::to_secs_f64(now - epoch.start);
        let acked = acked.max(0) as f64;
        let linux_tcp_cwnd = match self.p.reno_friendly {
            RenoFriendly::Rfc9438 => {
                if let Some(w_est) = self.rfc_w_est(epoch, *cwnd, acked, t) {
                    *cwnd = w_est;
                    return;
                }
                None
            }
            RenoFriendly::Linux => Some(self.linux_tcp_cwnd(packet_counting::whole(*cwnd), acked)),
        };
        let target = self
            .w_cubic(t + self.target_rtt(srtt), epoch.k)
            .clamp(*cwnd, 1.5 * *cwnd);
        let mut increase = (target - *cwnd) / *cwnd;
        if self.linux_floor_without_w_max() || linux_tcp_cwnd.is_some() {
            // Linux's bounds on ca->cnt, as an increase per ACK: at least 1/20 without W_max,
            // at least the Reno estimate's rate, at most 1/2.
            if self.linux_floor_without_w_max() {
                increase = increase.max(1.0 / CNT_WITHOUT_W_MAX);
            }
            if let Some(tcp_cwnd) = linux_tcp_cwnd {
                let w = packet_counting::whole(*cwnd);
                if tcp_cwnd > w {
                    increase = increase.max((tcp_cwnd - w) / w);
                }
            }
            increase = increase.min(1.0 / MIN_CNT);
        }
        *cwnd += increase;
    }

    /// Growth on a new ACK of `acked` packets, every packet counting (`cwnd_growth =
    /// "packets_acked"`): Linux `cubictcp_cong_avoid`.
    pub fn on_ack_counted(
        &mut self,
        cwnd: &mut f64,
        ssthresh: i64,
        acked: i64,
        now: Time,
        srtt: Time,
        count: &mut AckedCount,
    ) {
        let mut acked = acked.max(0) as f64;
        if *cwnd < ssthresh as f64 {
            acked = packet_counting::slow_start(cwnd, ssthresh, acked);
            if acked <= 0.0 {
                return;
            }
        }
        let epoch = self.epoch_at(*cwnd, now);
        let t = time::to_secs_f64(now - epoch.start);
        let w = packet_counting::whole(*cwnd);
        let target = self.w_cubic(t + self.target_rtt(srtt), epoch.k);
        let mut cnt = if target > w {
            (w / (target - w)).floor()
        } else {
            100.0 * w
        };
        if self.linux_floor_without_w_max() {
            cnt = cnt.min(CNT_WITHOUT_W_MAX);
        }
        match self.p.reno_friendly {
            RenoFriendly::Rfc9438 => {
                if let Some(w_est) = self.rfc_w_est(epoch, *cwnd, acked, t) {
                    *cwnd = w_est;
                    return;
                }
            }
            RenoFriendly::Linux => {
                let tcp_cwnd = self.linux_tcp_cwnd(w, acked);
                if tcp_cwnd > w {
                    cnt = cnt.min((w / (tcp_cwnd - w)).floor());
                }
            }
        }
        packet_counting::cong_avoid_ai(cwnd, count, cnt.max(MIN_CNT), acked);
    }

    /// A congestion signal with `window` packets usable: returns `floor(beta * window)`.
    pub fn reduce(&mut self, window: i64) -> i64 {
        let w = window as f64;
        self.cwnd_prior = w;
        self.w_max = if self.p.fast_convergence && w < self.w_max {
            w * (1.0 + self.p.beta) / 2.0
        } else {
            w
        };
        self.w_max_known = true;
        self.epoch = None;
        (w * self.p.beta).floor() as i64
    }

    /// A retransmission timeout, after its `reduce`: with `state_on_rto = "reset"`, Linux's
    /// `bictcp_reset` (W_max, the minimum RTT, the epoch).
    pub fn on_timeout(&mut self) {
        if self.p.state_on_rto == StateOnRto::Reset {
            *self = Cubic::new(self.p);
        }
    }

    pub fn state(&self, out: &mut crate::sim::StateSink) {
        out("cubic_w_max", self.w_max);
        out("cubic_k_s", self.epoch.map_or(0.0, |e| e.k));
    }
}

/// CUBIC as a controller (net/ipv4/tcp_cubic.c: `cubictcp_recalc_ssthresh`,
/// `cubictcp_cong_avoid`, `cubictcp_acked`, `cubictcp_state`), with the HyStart (either
/// kind) that runs its slow start.
#[derive(Debug, Clone)]
pub struct CubicOps {
    c: Cubic,
    g: Growth,
}

impl CubicOps {
    pub fn new(p: CubicParams, growth: CwndGrowth, hystart: HystartParams) -> Self {
        CubicOps {
            c: Cubic::new(p),
            g: Growth::new(growth, hystart, true),
        }
    }

    pub fn from_config(cfg: &TcpConfig) -> Self {
        Self::new(cfg.cubic, cfg.cwnd_growth, cfg.hystart)
    }

    pub fn growth(&self) -> &Growth {
        &self.g
    }
}

impl CongestionOps for CubicOps {
    #[inline]
    fn ssthresh(&mut self, _: &Window, base: i64, _: Signal, _: Time) -> Option<i64> {
        self.g.on_reduction();
        Some(self.c.reduce(base))
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, acked: Acked, now: Time, srtt: Time) {
        let acked = self.g.acked(acked);
        if self.g.hystart_on_ack(w, acked) {
            return;
        }
        match self.g.rule() {
            CwndGrowth::PerAck => self.c.on_ack(&mut w.cwnd, w.ssthresh, acked, now, srtt),
            CwndGrowth::PacketsAcked => self.c.on_ack_counted(
                &mut w.cwnd,
                w.ssthresh,
                acked,
                now,
                srtt,
                &mut self.g.acked_count,
            ),
        }
    }

    /// `cubictcp_acked`: HyStart++'s sample, then delay_min and Linux's HyStart on it (which
    /// may set `ssthresh = cwnd`), also on ACKs that do not reach `cong_avoid`.
    #[inline]
    fn pkts_acked(&mut self, rtt: Time, ack: &AckEvent, w: &mut Window) {
        self.g.on_rtt_sample(rtt, ack.snd_una, ack.snd_nxt);
        if let Some(delay_min) = self.c.on_rtt_sample(rtt, ack.now) {
            if let Some(h) = self.g.linux_mut() {
                let edges = (ack.snd_una, ack.snd_nxt);
                h.on_rtt_sample(
                    rtt,
                    delay_min,
                    ack.now,
                    edges.0,
                    edges.1,
                    w.cwnd,
                    &mut w.ssthresh,
                );
            }
        }
    }

    /// `cubictcp_state(TCP_CA_Loss)`: `state_on_rto`, and Linux's HyStart searching again.
    fn set_state(&mut self, state: CaState, _: &mut Window, cx: &StateCtx) {
        if state == CaState::Loss {
            self.c.on_timeout();
            if let Some(h) = self.g.linux_mut() {
                h.on_timeout(cx.now, cx.snd_nxt);
            }
        }
    }

    fn state(&self, out: &mut crate::sim::StateSink) {
        self.c.state(out);
        self.g.state(out);
    }
}

#[cfg(test)]
mod tests {
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
}
