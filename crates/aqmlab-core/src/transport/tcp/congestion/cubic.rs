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
use super::ControllerConfig;
use super::{CwndGrowth, HystartParams};
use crate::sim::{time, Time};
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

    pub fn from_config(cfg: &ControllerConfig) -> Self {
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
mod tests;
