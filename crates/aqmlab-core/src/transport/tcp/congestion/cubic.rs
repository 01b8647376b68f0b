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
//!   runs the first one (section 4.10 allows it).
//! - Before any congestion signal there is no `W_max`: the first epoch takes the window at
//!   its start as `W_max` (K = 0, convex growth from there) and as `cwnd_prior`, as 4.10 asks
//!   after a HyStart++ exit without loss.
//!
//! Parameters (`tcp.cubic`): `c` (0.4, packets/s^3), `beta` (0.7), `fast_convergence` (true),
//! the RFC's values.

use crate::scenario::ScenarioError;
use crate::sim::{time, Time};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct CubicParams {
    /// C, the cubic's scaling constant (packets/s^3).
    pub c: f64,
    /// beta_cubic, the multiplicative decrease factor.
    pub beta: f64,
    pub fast_convergence: bool,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
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
}

#[derive(Debug, Clone, Copy)]
struct Epoch {
    start: Time,
    /// K of eq. 2, seconds.
    k: f64,
    /// W_est of the Reno-friendly region, packets.
    w_est: f64,
}

#[derive(Debug, Clone)]
pub struct Cubic {
    p: CubicParams,
    /// W_max, packets; 0 before the first congestion signal.
    w_max: f64,
    /// cwnd_prior: the window at the last congestion signal, packets.
    cwnd_prior: f64,
    /// The current congestion-avoidance epoch; None until the first ACK in congestion
    /// avoidance after a reduction or slow start.
    epoch: Option<Epoch>,
}

impl Cubic {
    pub fn new(p: CubicParams) -> Self {
        Cubic {
            p,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
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

    pub fn on_ack(&mut self, cwnd: &mut f64, ssthresh: i64, acked: i64, now: Time, srtt: Time) {
        if *cwnd < ssthresh as f64 {
            *cwnd += 1.0;
            return;
        }
        let epoch = match self.epoch {
            Some(e) => e,
            None => {
                if self.w_max < *cwnd {
                    // No congestion signal yet, or the window has passed W_max already.
                    self.w_max = *cwnd;
                    self.cwnd_prior = self.cwnd_prior.max(*cwnd);
                }
                let e = Epoch {
                    start: now,
                    k: self.k(*cwnd),
                    w_est: *cwnd,
                };
                self.epoch = Some(e);
                e
            }
        };
        let t = time::to_secs_f64(now - epoch.start);
        let alpha = if epoch.w_est >= self.cwnd_prior {
            1.0
        } else {
            self.p.alpha()
        };
        let w_est = epoch.w_est + alpha * acked.max(0) as f64 / *cwnd;
        self.epoch = Some(Epoch { w_est, ..epoch });
        if self.w_cubic(t, epoch.k) < w_est {
            *cwnd = w_est;
        } else {
            let target = self
                .w_cubic(t + time::to_secs_f64(srtt), epoch.k)
                .clamp(*cwnd, 1.5 * *cwnd);
            *cwnd += (target - *cwnd) / *cwnd;
        }
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
        self.epoch = None;
        (w * self.p.beta).floor() as i64
    }

    pub fn state(&self, out: &mut crate::aqm::StateSink) {
        out("cubic_w_max", self.w_max);
        out("cubic_k_s", self.epoch.map_or(0.0, |e| e.k));
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
