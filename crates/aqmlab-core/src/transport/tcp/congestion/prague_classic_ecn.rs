//! TCP Prague's detection of a Classic ECN bottleneck (RFC 3168 marking in a deep queue) and
//! its fall-back to a classic-like response: RFC 9331 section 4.3 asks an L4S sender to
//! detect such a queue; draft-ietf-tsvwg-l4sops section 4 describes the delay-based detection.
//!
//! Source: `net/ipv4/tcp_prague.c`, MODULE_VERSION "0.6" (the L4S team's Prague as in
//! google/bbr 23cbf7e1bc8b; v0.5 of L4STeam/linux b256daedc767 has the same code; the current
//! v0.7, L4STeam/linux 893e1479793e, has removed it): `prague_rtt_estimator`,
//! `prague_update_rtt_scaling`, `prague_classic_ecn_detection`, `prague_classic_ecn_fallback`,
//! module parameter `prague_ecn_fallback` (0 none, 1 detection and fall-back, 2 detection
//! only; 0 by default in every version). Facts taken, code not; the integer steps are kept
//! because the detection's dithered logarithms are part of what it does.
//!
//! What it measures (delay, not marks):
//! - A slow smoothed RTT and mean deviation of every RTT sample (`pkts_acked`), kept upscaled
//!   by 2^g_srtt and 2^g_mdev (gains 2^-g): g_srtt starts at 18 (`PRAGUE_MAX_SRTT_BITS`) and,
//!   at each window reduction (`.ssthresh`), becomes min(L + L/2 + 1, 18) with L =
//!   ilog2(ssthresh before the reduction), g_mdev = g_srtt + 1, the stored values rescaled.
//!   Initialised from the handshake's srtt (`prague_init`), the deviation at 1 us.
//! - Once per alpha round after the first CE (`prague_update_alpha`): classic_ecn (in alpha's
//!   units, 1.0 = 2^20) += 0.5 x log2(mdev / 750 us) and, when the queue (srtt - min_rtt) is
//!   above 2 ms, += 0.5 x log2(queue / 2 ms); integer logarithms whose mantissas carry from
//!   round to round (`rest_mdev_us`, `rest_depth_us`); clamped to [0, 17].
//! - Fall-back (`prague_enter_cwr`, mode 1 only): above 8 (`L_STICKY`), the alpha a CE cut
//!   uses is at least 0.625 x (min(classic_ecn, 9) - 8): every cut in the full-classic state
//!   removes at least 31 % of the window. Back to L4S as low-variation rounds pull it down.
//!
//! min_rtt is `tcp_min_rtt` (a running minimum over `tcp_min_rtt_wlen`, 300 s): here the
//! minimum of the samples, the same for runs shorter than 300 s.

use serde::{Deserialize, Serialize};

/// `prague_ecn_fallback` (`tcp.prague.classic_ecn`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClassicEcnMode {
    /// 0: nothing computed (every version's default).
    #[default]
    Off,
    /// 1: detection, and the alpha floor at each ECN cut.
    Fallback,
    /// 2: detection only (the state is kept and shown, the response unchanged).
    Detect,
}

/// `PRAGUE_ALPHA_BITS` in v0.5 and v0.6: alpha and classic_ecn in units of 2^-20.
const ALPHA_BITS: u32 = 20;
const ONE: i64 = 1 << ALPHA_BITS;
/// `L_STICKY`: at or below, pure L4S (8.0).
const L_STICKY: i64 = 16 << (ALPHA_BITS - 1);
/// `CLASSIC_ECN`: at or above, fully classic (9.0).
const CLASSIC_ECN: i64 = L_STICKY + ONE;
/// `C_STICKY`: the ceiling (17.0).
const C_STICKY: i64 = CLASSIC_ECN + L_STICKY;
/// `V0_LG`: 0.5 x log2(750 us) x 2^20.
const V0_LG: i64 = 10_014_683 >> 1;
/// `D0_LG`: 0.5 x log2(2000 us) x 2^20.
const D0_LG: i64 = 11_498_458 >> 1;
const MAX_SRTT_BITS: u32 = 18;
const MAX_MDEV_BITS: u32 = MAX_SRTT_BITS + 1;
/// `PRAGUE_INIT_MDEV_CARRY`: 2^19.5, a mantissa of sqrt(2) at the initial shift.
const INIT_MDEV_CARRY: u64 = 741_455;
/// `PRAGUE_INIT_ADJ_US`: 2^18.
const INIT_ADJ_US: u64 = 262_144;

/// The detector's state (tcp_sock's `srtt_pace_us`, `mdev_pace_us`, `g_srtt_shift`,
/// `g_mdev_shift`, `classic_ecn`; struct prague's `rest_mdev_us`, `rest_depth_us`).
#[derive(Debug, Clone)]
pub struct ClassicEcnDetector {
    srtt_pace: u64,
    mdev_pace: u64,
    g_srtt: u32,
    g_mdev: u32,
    rest_mdev: u64,
    rest_depth: u64,
    min_rtt_us: Option<u64>,
    /// In alpha's units (2^-20).
    classic_ecn: i64,
}

impl Default for ClassicEcnDetector {
    fn default() -> Self {
        Self::new(0)
    }
}

impl ClassicEcnDetector {
    /// `prague_init`, with the handshake's smoothed RTT in microseconds (0 if none).
    pub fn new(srtt_us: u64) -> Self {
        ClassicEcnDetector {
            srtt_pace: srtt_us << MAX_SRTT_BITS,
            mdev_pace: 1 << MAX_MDEV_BITS,
            g_srtt: MAX_SRTT_BITS,
            g_mdev: MAX_MDEV_BITS,
            rest_mdev: INIT_MDEV_CARRY,
            rest_depth: INIT_MDEV_CARRY >> 1,
            min_rtt_us: None,
            classic_ecn: 0,
        }
    }

    /// classic_ecn as a number (8 and below: L4S; 9 and above: classic).
    pub fn classic_ecn(&self) -> f64 {
        self.classic_ecn as f64 / ONE as f64
    }

    /// A sample toward `tcp_min_rtt` only (the handshake's).
    pub fn note_min_rtt(&mut self, rtt_us: u64) {
        self.min_rtt_us = Some(self.min_rtt_us.map_or(rtt_us, |m| m.min(rtt_us)));
    }

    /// `prague_rtt_estimator`: one RTT sample in microseconds.
    pub fn on_rtt_sample(&mut self, rtt_us: u64) {
        self.note_min_rtt(rtt_us);
        if self.srtt_pace != 0 {
            let mut m = rtt_us as i64 - (self.srtt_pace >> self.g_srtt) as i64;
            self.srtt_pace = (self.srtt_pace as i64 + m) as u64;
            m = m.abs() - (self.mdev_pace >> self.g_mdev) as i64;
            self.mdev_pace = (self.mdev_pace as i64 + m) as u64;
        } else {
            self.srtt_pace = rtt_us << self.g_srtt;
            self.mdev_pace = 1 << self.g_mdev;
        }
        self.srtt_pace = self.srtt_pace.max(1);
    }

    /// `prague_update_rtt_scaling`, at a window reduction, with the ssthresh it replaces.
    pub fn on_reduction(&mut self, ssthresh: i64) {
        let l = ilog2(ssthresh.max(1) as u64);
        let g = (l + (l >> 1) + 1).min(MAX_SRTT_BITS);
        let delta = g as i32 - self.g_srtt as i32;
        self.g_srtt = g;
        self.g_mdev = g + 1;
        let shift = |v: &mut u64| *v = if delta > 0 { *v << delta } else { *v >> -delta };
        if delta != 0 {
            shift(&mut self.srtt_pace);
            shift(&mut self.mdev_pace);
            shift(&mut self.rest_depth);
            shift(&mut self.rest_mdev);
        }
    }

    /// `prague_classic_ecn_detection`, once per alpha round after the first CE.
    pub fn detect(&mut self) {
        let srtt = self.srtt_pace >> self.g_srtt;
        let mdev = self.mdev_pace >> self.g_mdev;
        let Some(min_rtt) = self.min_rtt_us.filter(|_| srtt != 0) else {
            return;
        };
        let adj = INIT_ADJ_US >> (MAX_MDEV_BITS - self.g_mdev);
        let x = mdev * self.rest_mdev + adj;
        let mdev_lg = ilog2(x).max(self.g_mdev) - self.g_mdev;
        self.rest_mdev = x >> mdev_lg;
        let mut next = self.classic_ecn + ((mdev_lg as i64) << (ALPHA_BITS - 1)) - V0_LG;
        if srtt > min_rtt {
            let y = (srtt - min_rtt) * self.rest_depth + (adj >> 1);
            let depth_lg = ilog2(y).max(self.g_srtt) - self.g_srtt;
            self.rest_depth = y >> depth_lg;
            let d = (depth_lg as i64) << (ALPHA_BITS - 1);
            if d > D0_LG {
                next += d - D0_LG;
            }
        }
        self.classic_ecn = next.clamp(0, C_STICKY);
    }

    /// `prague_classic_ecn_fallback`: the alpha an ECN cut uses, given Prague's.
    pub fn fallback_alpha(&self, alpha: f64) -> f64 {
        if self.classic_ecn <= L_STICKY {
            return alpha;
        }
        let c = self.classic_ecn.min(CLASSIC_ECN) - L_STICKY;
        let c = (c >> 1) + (c >> 3);
        alpha.max(c as f64 / ONE as f64)
    }
}

/// The kernel's `ilog2` (of a nonzero value; 0 for 0).
fn ilog2(v: u64) -> u32 {
    v.checked_ilog2().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds constant srtt, mdev and min_rtt: the first sample sets min_rtt, then samples
    /// alternate srtt +- mdev (mean srtt, mean absolute deviation mdev) until the slow
    /// estimator has converged; returns classic_ecn after each of `rounds` detections.
    fn rounds(srtt: u64, mdev: u64, min_rtt: u64, rounds: usize) -> Vec<f64> {
        let mut d = ClassicEcnDetector::new(srtt);
        d.on_rtt_sample(min_rtt);
        d.on_reduction(10); // g_srtt = 3 + 1 + 1 = 5: gains of 1/32 and 1/64
        (0..rounds)
            .map(|_| {
                for i in 0..2000 {
                    d.on_rtt_sample(if i % 2 == 0 { srtt + mdev } else { srtt - mdev });
                }
                d.detect();
                d.classic_ecn()
            })
            .collect()
    }

    /// By hand, per round: + 0.5 x (log2 mdev - log2 750) with mdev's integer log dithered
    /// by its carried mantissa, + 0.5 x (log2 queue - log2 2000) with the queue's. At a 10 ms
    /// queue with 3 ms of deviation (log2 3000 = 11.55, log2 10000 = 13.29): about
    /// 0.5 x 2.0 + 0.5 x 2.32 = 2.16 per round, so classic after the fourth round and at
    /// the ceiling, 17, by the eighth.
    #[test]
    fn a_deep_jittery_queue_is_found_classic_in_four_rounds() {
        let c = rounds(30_000, 3_000, 20_000, 9);
        assert!(c[0] > 1.5 && c[0] < 3.0, "{c:?}");
        assert!(c[2] < 8.0 && c[3] > 8.0 && c[4] > 9.0, "{c:?}");
        assert_eq!(c[8], 17.0);
        let mut d = ClassicEcnDetector::new(30_000);
        d.classic_ecn = (8.5 * ONE as f64) as i64;
        // Halfway through the transition: floor 0.625 x 0.5 = 0.3125.
        assert_eq!(d.fallback_alpha(0.1), 0.3125);
        assert_eq!(d.fallback_alpha(0.5), 0.5);
        d.classic_ecn = C_STICKY;
        assert_eq!(d.fallback_alpha(0.0), 0.625);
    }

    /// An L4S queue (1 ms, 0.2 ms of deviation): log2(200 / 750) < 0 every round, the queue
    /// below 2 ms adds nothing: classic_ecn stays at 0, and the fall-back never acts.
    #[test]
    fn a_shallow_queue_stays_l4s() {
        let c = rounds(21_000, 200, 20_000, 20);
        assert!(c.iter().all(|&x| x == 0.0), "{c:?}");
        let d = ClassicEcnDetector::new(21_000);
        assert_eq!(d.fallback_alpha(0.05), 0.05);
    }

    /// The estimator's gain follows the window (`prague_update_rtt_scaling`): ssthresh 10
    /// gives 3 + 1 + 1 = 5, 100 gives 6 + 3 + 1 = 10, 5000 the cap 18; the stored srtt is
    /// rescaled so that the estimate is unchanged.
    #[test]
    fn the_gain_follows_the_window() {
        let mut d = ClassicEcnDetector::new(20_000);
        for (ssthresh, g) in [(10, 5), (100, 10), (5000, 18), (2, 2)] {
            d.on_reduction(ssthresh);
            assert_eq!((d.g_srtt, d.g_mdev), (g, g + 1));
            assert_eq!(d.srtt_pace >> d.g_srtt, 20_000);
        }
        // At gain 1/4, a sample 4 ms above moves srtt by 1 ms.
        d.on_rtt_sample(24_000);
        assert_eq!(d.srtt_pace >> d.g_srtt, 21_000);
    }
}
