//! DCTCP (RFC 8257; M. Alizadeh et al., "Data Center TCP", SIGCOMM 2010; Linux
//! net/ipv4/tcp_dctcp.c): the fraction of data acknowledged with ECE over each window of
//! data, smoothed into alpha, sets how far the window shrinks on a congestion echo.
//!
//! - Observation window (RFC 8257 section 3.3 steps 1-5; Linux `dctcp_update_alpha`): every
//!   ACK adds the packets it newly delivers to `acked`, and to `acked_ece` if it carries ECE
//!   (Linux `tcp_count_delivered` counts `delivered` and `delivered_ce` before
//!   `tcp_in_ack_event` calls `dctcp_update_alpha`). When snd_una reaches the window's end
//!   (`!before(snd_una, next_seq)`), alpha = (1 - g) alpha + g F with F = acked_ece / acked,
//!   and the next window ends at snd_nxt (`dctcp_reset`). Counted in packets, as Linux
//!   (`tp->delivered`); RFC 8257 counts bytes, the same with aqmlab's fixed-size packets.
//! - g = 1/16 (RFC 8257 section 4.2 and Linux `dctcp_shift_g = 4`).
//! - alpha's initial value: RFC 8257 (section 3.3) leaves it to the implementation; Linux
//!   starts at `dctcp_alpha_on_init = DCTCP_MAX_ALPHA` = 1024/1024 = 1.0 (a first mark halves
//!   the window, as classic ECN would), and so does FreeBSD's cc_dctcp (`alpha` = 1024): the
//!   default here (`tcp.dctcp.alpha_init`).
//! - Arithmetic (`tcp.dctcp.alpha_arithmetic`): `real` (the default) exact in f64, as RFC
//!   8257's formulas; `linux` as `dctcp_update_alpha`, in whole 1/1024 units (DCTCP_MAX_ALPHA
//!   = 1024): `alpha -= min_not_zero(alpha, alpha >> dctcp_shift_g)`, then, if any packet was
//!   marked, `alpha += (delivered_ce << (10 - dctcp_shift_g)) / delivered` (rounded down),
//!   clamped to 1024. An alpha below 16/1024 (alpha >> 4 = 0) is sent to 0 by the first step
//!   (min_not_zero picks alpha itself), so below 16/1024 each update makes alpha g F of the
//!   last window alone, rounded down to whole 1/1024 (0 after a window with fewer than one
//!   mark in 64 packets: an absorbing 0 while marks stay that rare); the ECE cut, `(cwnd x
//!   alpha) >> 11`, is then 0 packets for any cwnd below 2048 / alpha. The real arithmetic
//!   decays alpha by 15/16 per window and never reaches 0.
//! - Reduction on ECE (RFC 8257 section 3.3: cwnd = cwnd x (1 - alpha / 2), once per window of
//!   data as RFC 3168's; Linux `dctcp_ssthresh`: max(cwnd - cwnd x alpha / 2, 2) in whole
//!   packets, cwnd x alpha / 2 rounded down). The sender applies it at most once per window
//!   (its `ecn_recover`, as for RFC 3168) and sets cwnd = ssthresh.
//! - Loss (`tcp.dctcp.loss_response`): `halve` (the default): ssthresh = window / 2, RFC 8257
//!   section 3.4 ("DCTCP SHOULD react to loss episodes in the same way as conventional TCP")
//!   and Linux since 5.1 (`dctcp_react_to_loss`, from `dctcp_state` on entering
//!   TCP_CA_Recovery and from `dctcp_cwnd_event(CA_EVENT_LOSS)` on an RTO, overriding the
//!   `dctcp_ssthresh` that `tcp_init_cwnd_reduction` / `tcp_enter_loss` computed first);
//!   `alpha`: the alpha reduction on a loss too, Linux before 5.1 (`dctcp_ssthresh` was the
//!   controller's only `ssthresh`).
//! - Growth: Reno's (`tcp_reno_cong_avoid` is DCTCP's `cong_avoid` in Linux), per ACK or by
//!   packets acked as `tcp.cwnd_growth` says.
//!
//! - Undo (`dctcp_cwnd_undo`: max(cwnd, loss_cwnd)): the core's default `undo_cwnd`, max(cwnd,
//!   the cwnd before the timeout's cut). The same value: Linux sets loss_cwnd in
//!   `dctcp_ssthresh` and `dctcp_react_to_loss` from the cwnd of that cut, and only a timeout
//!   that cut (`tcp_enter_loss`'s `tcp_init_undo`) can be undone; in TCP_CA_Loss no ECN cut
//!   intervenes (`tcp_enter_cwr` acts below TCP_CA_CWR only).
//!
//! - Without ECN (`tcp.ecn_fallback`: a retransmitted SYN, and the handshake did not agree to
//!   ECN): Linux's `dctcp_init` swaps in `dctcp_reno` (ssthresh `tcp_reno_ssthresh`, Reno's
//!   growth, no alpha); here `ecn_not_negotiated`.
//!
//! Not modelled: Linux's `dctcp_clamp_alpha_on_loss` (off by default), PLB; with
//! `ecn_reduction = "prr"`, a loss found in CWR continues the reduction (`tcp_enter_recovery`
//! calls no `ssthresh` in CWR) without `dctcp_state`'s `dctcp_react_to_loss` (ssthresh =
//! cwnd / 2 of the PRR-reduced cwnd).

use super::growth::Growth;
use super::ops::{AckEvent, Acked, CongestionOps, Signal, Window};
use super::reno::reno_cong_avoid;
use super::ControllerConfig;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// What a loss does to a DCTCP window (`tcp.dctcp.loss_response`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DctcpLossResponse {
    /// Half the window, as conventional TCP (RFC 8257 section 3.4; Linux >= 5.1
    /// `dctcp_react_to_loss`).
    #[default]
    Halve,
    /// The ECE reduction, window x (1 - alpha / 2) (Linux < 5.1: `dctcp_ssthresh` on loss).
    Alpha,
}

/// How alpha is computed (`tcp.dctcp.alpha_arithmetic`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DctcpAlphaArithmetic {
    /// Exact, in f64 (RFC 8257 section 3.3's formulas).
    #[default]
    Real,
    /// Linux's fixed point in 1/1024 units (net/ipv4/tcp_dctcp.c `dctcp_update_alpha`,
    /// `dctcp_ssthresh`); `g` must then be 1/2^k with k in 0..=10 (`dctcp_shift_g`).
    Linux,
}

/// DCTCP's parameters (`tcp.dctcp`).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpParams {
    /// The EWMA gain of alpha (RFC 8257 section 4.2, Linux `dctcp_shift_g = 4`: 1/16).
    pub g: f64,
    /// alpha before the first window ends (Linux `dctcp_alpha_on_init`: 1024/1024 = 1.0;
    /// RFC 8257 leaves it open).
    pub alpha_init: f64,
    /// `halve` (RFC 8257 3.4, Linux >= 5.1; the default) | `alpha` (Linux < 5.1).
    pub loss_response: DctcpLossResponse,
    /// `real` (f64, the default) | `linux` (1/1024 units, `dctcp_update_alpha`).
    pub alpha_arithmetic: DctcpAlphaArithmetic,
}

impl Default for DctcpParams {
    fn default() -> Self {
        DctcpParams {
            g: 1.0 / 16.0,
            alpha_init: 1.0,
            loss_response: DctcpLossResponse::Halve,
            alpha_arithmetic: DctcpAlphaArithmetic::Real,
        }
    }
}

impl DctcpParams {
    pub fn validate(&self, path: &str) -> Result<(), crate::units::ScenarioError> {
        use crate::units::ScenarioError;
        if !(self.g.is_finite() && self.g > 0.0 && self.g <= 1.0) {
            return Err(ScenarioError::new(
                format!("{path}.g"),
                format!("must be in (0, 1], got {}", self.g),
            ));
        }
        if !(self.alpha_init.is_finite() && (0.0..=1.0).contains(&self.alpha_init)) {
            return Err(ScenarioError::new(
                format!("{path}.alpha_init"),
                format!("must be in [0, 1], got {}", self.alpha_init),
            ));
        }
        if self.alpha_arithmetic == DctcpAlphaArithmetic::Linux && shift_g(self.g).is_none() {
            return Err(ScenarioError::new(
                format!("{path}.g"),
                format!(
                    "must be 1/2^k with k in 0..=10 (Linux dctcp_shift_g) with \
                     alpha_arithmetic = \"linux\", got {}",
                    self.g
                ),
            ));
        }
        Ok(())
    }
}

/// k with g = 1/2^k, 0 <= k <= 10 (Linux's range of `dctcp_shift_g`), if g is one.
fn shift_g(g: f64) -> Option<u32> {
    (0..=10u32).find(|&k| g == 1.0 / f64::from(1u32 << k))
}

/// Linux's DCTCP_MAX_ALPHA: alpha = 1 in fixed point.
const MAX_ALPHA: u32 = 1024;

/// The congestion estimate alpha over windows of data (shared with Prague).
#[derive(Debug, Clone)]
pub struct DctcpAlpha {
    alpha: f64,
    g: f64,
    /// With `alpha_arithmetic = "linux"`: `dctcp_shift_g` and alpha in 1/1024 units (then
    /// `alpha` is this / 1024).
    fixed: Option<(u32, u32)>,
    /// The window ends when snd_una reaches this (snd_nxt when it began; Linux `next_seq`).
    window_end: i64,
    acked: i64,
    acked_ece: i64,
}

impl DctcpAlpha {
    pub fn new(p: &DctcpParams) -> Self {
        // `dctcp_alpha_on_init` is a whole number of 1/1024; alpha_init is rounded to one.
        let fixed = match p.alpha_arithmetic {
            DctcpAlphaArithmetic::Real => None,
            DctcpAlphaArithmetic::Linux => Some((
                shift_g(p.g).expect("validated: g = 1/2^k"),
                ((p.alpha_init * f64::from(MAX_ALPHA)).round() as u32).min(MAX_ALPHA),
            )),
        };
        DctcpAlpha {
            alpha: fixed.map_or(p.alpha_init, |(_, a)| f64::from(a) / f64::from(MAX_ALPHA)),
            g: p.g,
            fixed,
            // Linux `dctcp_init`: next_seq = snd_nxt, 0 before anything is sent; the first
            // ACK ends the first window.
            window_end: 0,
            acked: 0,
            acked_ece: 0,
        }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// An ACK that newly delivers `delivered` packets, `delivered_ce` of them reported
    /// CE-marked (all of them with ECE under RFC 3168 or the exact echo; AccECN's count,
    /// Linux 7.3 `dctcp_update_alpha` reading `tp->delivered_ce`), after which the first
    /// unacknowledged packet is `snd_una` and the next new one `snd_nxt`. Returns whether a
    /// window ended (alpha updated).
    pub fn on_ack(
        &mut self,
        delivered: i64,
        delivered_ce: i64,
        snd_una: i64,
        snd_nxt: i64,
    ) -> bool {
        self.acked += delivered.max(0);
        self.acked_ece += delivered_ce.max(0);
        if snd_una < self.window_end {
            return false;
        }
        if let Some((shift, a)) = &mut self.fixed {
            let decay = *a >> *shift;
            // min_not_zero(alpha, alpha >> g): alpha itself when the shift gives 0.
            *a -= if decay == 0 { *a } else { decay.min(*a) };
            if self.acked_ece > 0 {
                let f = ((self.acked_ece as u64) << (10 - *shift)) / self.acked.max(1) as u64;
                *a = (u64::from(*a) + f).min(u64::from(MAX_ALPHA)) as u32;
            }
            self.alpha = f64::from(*a) / f64::from(MAX_ALPHA);
        } else {
            let f = if self.acked > 0 {
                self.acked_ece as f64 / self.acked as f64
            } else {
                0.0
            };
            self.alpha = ((1.0 - self.g) * self.alpha + self.g * f).clamp(0.0, 1.0);
        }
        self.window_end = snd_nxt;
        self.acked = 0;
        self.acked_ece = 0;
        true
    }

    /// window x (1 - alpha / 2) in whole packets, the cut rounded down (Linux
    /// `dctcp_ssthresh`: cwnd - ((cwnd x alpha) >> 11) with alpha in 1/1024 units).
    pub fn reduced(&self, window: i64) -> i64 {
        if let Some((_, a)) = self.fixed {
            return window - ((window * i64::from(a)) >> 11);
        }
        window - (window as f64 * self.alpha / 2.0).floor() as i64
    }
}

#[derive(Debug, Clone)]
pub struct Dctcp {
    pub est: DctcpAlpha,
    loss: DctcpLossResponse,
}

impl Dctcp {
    pub fn new(p: &DctcpParams) -> Self {
        Dctcp {
            est: DctcpAlpha::new(p),
            loss: p.loss_response,
        }
    }

    /// ssthresh after an ECN echo from `window` (before the sender's floor of 2).
    pub fn reduce_on_ecn(&self, window: i64) -> i64 {
        self.est.reduced(window)
    }

    /// ssthresh after a loss from `window`.
    pub fn reduce_on_loss(&self, window: i64) -> i64 {
        match self.loss {
            DctcpLossResponse::Halve => window / 2,
            DctcpLossResponse::Alpha => self.est.reduced(window),
        }
    }
}

/// DCTCP as a controller (net/ipv4/tcp_dctcp.c): alpha counted in `in_ack_event`
/// (`dctcp_update_alpha`, before the ECN response), `ssthresh` by alpha on an ECN echo and
/// by `loss_response` on a loss, Reno's growth.
#[derive(Debug, Clone)]
pub struct DctcpOps {
    d: Dctcp,
    g: Growth,
    /// The handshake did not agree to ECN: Linux's `dctcp_reno` (`dctcp_init`), Reno's halving
    /// on loss, no alpha (it is not kept, and TCP_CC_INFO has none to give).
    without_ecn: bool,
}

impl DctcpOps {
    pub fn from_config(cfg: &ControllerConfig) -> Self {
        DctcpOps {
            d: Dctcp::new(&cfg.dctcp),
            g: Growth::new(cfg.cwnd_growth, cfg.hystart, false),
            without_ecn: false,
        }
    }

    pub fn alpha(&self) -> f64 {
        self.d.est.alpha()
    }

    pub fn growth(&self) -> &Growth {
        &self.g
    }
}

impl CongestionOps for DctcpOps {
    #[inline]
    fn ssthresh(&mut self, _: &Window, base: i64, signal: Signal, _: Time) -> Option<i64> {
        let s = match signal {
            Signal::Ecn => self.d.reduce_on_ecn(base),
            // `tcp_reno_ssthresh`, whichever `loss_response`.
            Signal::Loss | Signal::Timeout if self.without_ecn => base / 2,
            Signal::Loss | Signal::Timeout => self.d.reduce_on_loss(base),
        };
        self.g.on_reduction();
        Some(s)
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, acked: Acked, _: Time, _: Time) {
        reno_cong_avoid(&mut self.g, w, acked);
    }

    /// Every ACK's delivered packets, with ECE or not, in a recovery too (Linux
    /// `tcp_count_delivered`, then `tcp_in_ack_event`).
    #[inline]
    fn in_ack_event(&mut self, ack: &AckEvent) {
        if self.without_ecn {
            return;
        }
        self.d
            .est
            .on_ack(ack.delivered, ack.delivered_ce, ack.snd_una, ack.snd_nxt);
    }

    fn ecn_not_negotiated(&mut self) {
        self.without_ecn = true;
    }

    #[inline]
    fn pkts_acked(&mut self, rtt: Time, ack: &AckEvent, _: &mut Window) {
        self.g.on_rtt_sample(rtt, ack.snd_una, ack.snd_nxt);
    }

    fn state(&self, out: &mut crate::sim::StateSink) {
        if !self.without_ecn {
            out("dctcp_alpha", self.d.est.alpha());
        }
        self.g.state(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-computed windows with g = 1/16 from alpha = 1:
    /// - ACK 1 (snd_una 1 >= 0, the first window's end): F = 0 -> alpha = 15/16 = 0.9375;
    ///   the next window ends at snd_nxt = 10.
    /// - ACKs of packets 1..=9 (snd_una 2..=10), ECE on 3 of them (packets 2, 3, 4): the
    ///   window ends on the ACK with snd_una = 10: F = 3/9, alpha = 0.9375 x 15/16 + 1/48 =
    ///   0.87890625 + 0.0208333.. = 0.8997395833...
    /// - An empty window (no ACK delivered anything new, e.g. only duplicate ACKs after snd_una
    ///   passed): F = 0.
    #[test]
    fn alpha_is_updated_once_per_window_of_data() {
        let mut a = DctcpAlpha::new(&DctcpParams::default());
        assert_eq!(a.alpha(), 1.0);
        assert!(a.on_ack(1, 0, 1, 10));
        assert_eq!(a.alpha(), 0.9375);
        let mut ends = vec![];
        for una in 2..=10 {
            let ece = (3..=5).contains(&una);
            ends.push(a.on_ack(1, i64::from(ece), una, 20));
        }
        assert_eq!(ends.iter().filter(|&&e| e).count(), 1);
        assert!(ends[8], "the window ends when snd_una reaches 10");
        let want = 0.9375 * 15.0 / 16.0 + (1.0 / 16.0) * (3.0 / 9.0);
        assert!((a.alpha() - want).abs() < 1e-15, "{}", a.alpha());
        assert!((a.alpha() - 0.899_739_583_333).abs() < 1e-9);
        // A delayed ACK of two marked packets counts both.
        let mut b = DctcpAlpha::new(&DctcpParams {
            alpha_init: 0.0,
            ..Default::default()
        });
        b.on_ack(0, 0, 0, 4); // ends the initial window with nothing delivered: F = 0
        assert_eq!(b.alpha(), 0.0);
        b.on_ack(2, 2, 2, 6);
        b.on_ack(2, 0, 4, 6);
        assert_eq!(b.alpha(), 0.0625 * 0.5);
    }

    /// Every packet marked, window after window: alpha -> 1; none marked: alpha x (15/16)^n.
    #[test]
    fn alpha_converges_to_the_marked_fraction() {
        let mut a = DctcpAlpha::new(&DctcpParams {
            alpha_init: 0.0,
            ..Default::default()
        });
        let mut una = 0;
        for _ in 0..200 {
            una += 10;
            a.on_ack(10, 10, una, una + 10);
        }
        assert!((a.alpha() - 1.0).abs() < 1e-5);
        for _ in 0..16 {
            una += 10;
            a.on_ack(10, 0, una, una + 10);
        }
        let want = (15.0f64 / 16.0).powi(16);
        assert!((a.alpha() - want).abs() < 1e-5, "{}", a.alpha());
    }

    /// Linux `dctcp_ssthresh`: cwnd - floor(cwnd x alpha / 2); halving on loss by default.
    #[test]
    fn reductions_follow_alpha_on_ecn_and_halve_on_loss() {
        let mut d = Dctcp::new(&DctcpParams::default());
        assert_eq!(d.reduce_on_ecn(20), 10, "alpha = 1: half");
        d.est.alpha = 0.25;
        // 20 x 0.25 / 2 = 2.5 -> 2 packets less.
        assert_eq!(d.reduce_on_ecn(20), 18);
        // 7 x 0.25 / 2 = 0.875: rounded down, no cut at all.
        assert_eq!(d.reduce_on_ecn(7), 7);
        assert_eq!(d.reduce_on_loss(20), 10);
        let old = Dctcp {
            loss: DctcpLossResponse::Alpha,
            ..d.clone()
        };
        assert_eq!(old.reduce_on_loss(20), 18);
    }

    fn linux() -> DctcpParams {
        DctcpParams {
            alpha_arithmetic: DctcpAlphaArithmetic::Linux,
            ..Default::default()
        }
    }

    /// `dctcp_update_alpha` by hand, g = 1/16 (shift 4), alpha from 1024/1024; each window
    /// 10 packets, `m` of them marked; one window per call (snd_una reaches next_seq):
    /// - m=0: 1024 - (1024 >> 4 = 64) = 960; nothing marked, no F term.
    /// - m=3: 960 - 60 = 900; + (3 << 6) / 10 = 192 / 10 = 19 -> 919 (real: 0.9 + 0.01875).
    /// - m=10: 919 - 57 = 862; + 640 / 10 = 64 -> 926.
    /// - windows with m=0: alpha -= alpha >> 4 each (a decay of 1/1024 per window from 31
    ///   down to 16), down to 15, which min_not_zero(15, 15 >> 4 = 0) = 15 sends to 0.
    /// - at 0 (the absorbing state), m=1 in 100 packets: 0 + (1 << 6) / 100 = 0: stays 0;
    ///   m=2 in 100: 128 / 100 = 1 -> 1/1024; next window, m=1 in 10: 1 -> 0 (min_not_zero),
    ///   + 64 / 10 = 6 -> 6/1024, i.e. alpha is g F of the last window alone, rounded down.
    /// - `dctcp_ssthresh` at alpha 6/1024: cwnd 100 - ((100 x 6) >> 11 = 0) = 100, no cut;
    ///   cwnd 400: (2400 >> 11) = 1 -> 399. At 926/1024, cwnd 20: (18520 >> 11) = 9 -> 11.
    #[test]
    fn linux_alpha_in_1024ths_with_its_absorbing_state() {
        let mut a = DctcpAlpha::new(&linux());
        let q = |a: &DctcpAlpha| (a.alpha() * 1024.0) as u32;
        assert_eq!(q(&a), 1024);
        let mut una = 0;
        let mut window = |a: &mut DctcpAlpha, n: i64, m: i64| {
            una += n;
            // An ACK with ECE of the marked packets (snd_una still at the window's start),
            // then one of the rest, which ends the window; the next ends one packet later.
            if m > 0 {
                assert!(!a.on_ack(m, m, una - n, una + 1));
            }
            assert!(a.on_ack(n - m, 0, una, una + 1));
        };
        // The first ACK ends the initial window (next_seq 0) with nothing delivered.
        a.on_ack(0, 0, 0, 10);
        assert_eq!(q(&a), 960);
        window(&mut a, 10, 3);
        assert_eq!(q(&a), 900 + 19);
        window(&mut a, 10, 10);
        assert_eq!(q(&a), 862 + 64);
        assert_eq!(a.reduced(20), 11);
        let mut want = 926u32;
        let mut last = want;
        while want > 0 {
            last = want;
            want -= if want >> 4 == 0 { want } else { want >> 4 };
            window(&mut a, 10, 0);
            assert_eq!(q(&a), want);
        }
        // Between 16 and 31 the decay is 1/1024 a window, down to 15; 15 >> 4 = 0, so the
        // next window takes it to 0, where the exact (15/16) decay would leave 14.06/1024.
        assert_eq!(last, 15);
        window(&mut a, 100, 1);
        assert_eq!(q(&a), 0, "64 / 100 rounds down to 0");
        window(&mut a, 100, 2);
        assert_eq!(q(&a), 1);
        window(&mut a, 10, 1);
        assert_eq!(q(&a), 6, "1 -> 0 by min_not_zero, + 64 / 10");
        assert_eq!(a.reduced(100), 100);
        assert_eq!(a.reduced(400), 399);
        // The real arithmetic from the same 6/1024 decays by 15/16 and keeps a fraction.
        let mut r = DctcpAlpha::new(&DctcpParams {
            alpha_init: 6.0 / 1024.0,
            ..Default::default()
        });
        r.on_ack(0, 0, 0, 10);
        assert!((r.alpha() - 6.0 / 1024.0 * 15.0 / 16.0).abs() < 1e-15);
    }

    #[test]
    fn linux_arithmetic_needs_a_power_of_two_gain() {
        assert!(linux().validate("tcp.dctcp").is_ok());
        let bad = DctcpParams { g: 0.05, ..linux() };
        assert_eq!(bad.validate("tcp.dctcp").unwrap_err().path, "tcp.dctcp.g");
        let ok = DctcpParams {
            g: 1.0 / 1024.0,
            ..linux()
        };
        assert!(ok.validate("tcp.dctcp").is_ok());
        assert!(toml::from_str::<DctcpParams>("alpha_arithmetic = \"fixed\"").is_err());
        let p: DctcpParams = toml::from_str("alpha_arithmetic = \"linux\"").unwrap();
        assert_eq!(p, linux());
    }

    #[test]
    fn parameters_are_checked_with_their_path() {
        let bad = DctcpParams {
            g: 0.0,
            ..Default::default()
        };
        assert_eq!(bad.validate("tcp.dctcp").unwrap_err().path, "tcp.dctcp.g");
        let bad = DctcpParams {
            alpha_init: 1.5,
            ..Default::default()
        };
        assert_eq!(
            bad.validate("tcp.dctcp").unwrap_err().path,
            "tcp.dctcp.alpha_init"
        );
        assert!(toml::from_str::<DctcpParams>("loss_response = \"third\"").is_err());
    }
}
