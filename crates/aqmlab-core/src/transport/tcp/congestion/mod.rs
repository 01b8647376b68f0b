//! Congestion control: how the window grows on a new ACK and how far it shrinks on a
//! congestion signal, apart from how a sender detects and repairs losses. Each controller is
//! a small state machine in its own file; a sender holds one [`CongestionControl`] and calls
//! [`CongestionControl::on_ack`] and [`CongestionControl::reduce`] where ns-2's `tcp.cc`
//! calls `opencwnd` and `slowdown`.
//!
//! HyStart++ (RFC 9406, `hystart.rs`), when enabled, runs the first slow start of either
//! controller; it needs [`CongestionControl::on_rtt_sample`] on each ACK with an RTT sample.
//! Off (always, for the ns-2 agents) the controllers are exactly as without it.
//!
//! Windows are in packets: cwnd fractional, ssthresh whole, as in ns-2.

pub mod cubic;
pub mod hystart;
pub mod reno;

pub use cubic::{Cubic, CubicParams};
pub use hystart::{HyStart, HystartParams};
pub use reno::Reno;

use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// The controller a scenario asks for (`tcp.congestion_control`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CongestionControlKind {
    /// RFC 5681 slow start and congestion avoidance as ns-2's `opencwnd`/`slowdown` do them
    /// (the papers' TCP; the default).
    #[default]
    Reno,
    /// RFC 9438 CUBIC.
    Cubic,
}

/// One sender's congestion controller, with HyStart++ if enabled.
#[derive(Debug, Clone)]
pub struct CongestionControl {
    law: Law,
    /// None when HyStart++ is off: on_ack is then the controller's alone.
    hystart: Option<HyStart>,
}

/// An enum, not a trait object: no allocation per flow.
#[derive(Debug, Clone)]
enum Law {
    Reno(Reno),
    Cubic(Cubic),
}

impl CongestionControl {
    pub fn new(kind: CongestionControlKind, cubic: CubicParams, hystart: HystartParams) -> Self {
        let law = match kind {
            CongestionControlKind::Reno => Law::Reno(Reno),
            CongestionControlKind::Cubic => Law::Cubic(Cubic::new(cubic)),
        };
        CongestionControl {
            law,
            hystart: hystart.enabled.then(HyStart::new),
        }
    }

    /// A new cumulative ACK of `acked` packets outside recovery, at `now`, with the current
    /// smoothed RTT `srtt` (0 before the first sample): grows `cwnd`. Only HyStart++ writes
    /// `ssthresh` (= cwnd when it leaves Conservative Slow Start); without it, it is read only.
    #[inline]
    pub fn on_ack(
        &mut self,
        cwnd: &mut f64,
        ssthresh: &mut i64,
        acked: i64,
        now: Time,
        srtt: Time,
    ) {
        if let Some(h) = &mut self.hystart {
            if h.on_ack(cwnd, ssthresh, acked) {
                return;
            }
        }
        match &mut self.law {
            Law::Reno(r) => r.on_ack(cwnd, *ssthresh),
            Law::Cubic(c) => c.on_ack(cwnd, *ssthresh, acked, now, srtt),
        }
    }

    /// An ACK that advanced the cumulative point carried the RTT sample `rtt`: `snd_una` is
    /// the first packet not yet acknowledged after it, `snd_nxt` the next new packet to send
    /// (highest sent + 1). HyStart++'s rounds and delay test; nothing without HyStart++. Call
    /// it before [`Self::on_ack`] for the same ACK, also on ACKs that do not reach `on_ack`.
    #[inline]
    pub fn on_rtt_sample(&mut self, rtt: Time, snd_una: i64, snd_nxt: i64) {
        if let Some(h) = &mut self.hystart {
            h.on_rtt_sample(rtt, snd_una, snd_nxt);
        }
    }

    /// A congestion signal (fast retransmit, ECN echo, timeout) when `window` packets were
    /// usable: the window to fall back to, before ns-2's floors (ssthresh at least 2, cwnd at
    /// least 1) are applied by the sender. It ends HyStart++.
    #[inline]
    pub fn reduce(&mut self, window: i64) -> i64 {
        if let Some(h) = &mut self.hystart {
            h.on_congestion();
        }
        match &mut self.law {
            Law::Reno(_) => Reno::reduce(window),
            Law::Cubic(c) => c.reduce(window),
        }
    }

    /// HyStart++'s state, if enabled.
    pub fn hystart(&self) -> Option<&HyStart> {
        self.hystart.as_ref()
    }

    /// Variables for the time series (none for Reno: cwnd and ssthresh say it all).
    pub fn state(&self, out: &mut crate::aqm::StateSink) {
        if let Law::Cubic(c) = &self.law {
            c.state(out);
        }
        if let Some(h) = &self.hystart {
            h.state(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::hystart::Phase;
    use super::*;

    const MS: Time = 1_000_000;

    fn fnv(h: u64, x: u64) -> u64 {
        x.to_le_bytes().iter().fold(h, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }

    /// A fixed sequence of ACKs (1 or 2 packets, varying gaps and srtt), fast retransmits and
    /// one timeout, as a sender applies them; returns a hash of every (cwnd, ssthresh) and
    /// the cwnd sequence.
    fn drive(
        on_ack: &mut dyn FnMut(&mut f64, &mut i64, i64, Time, Time),
        reduce: &mut dyn FnMut(i64) -> i64,
    ) -> (u64, Vec<f64>) {
        let mut cwnd = 2.0f64;
        let mut ssthresh: i64 = 40;
        let mut now: Time = 0;
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        let mut seq = vec![];
        for i in 0..6000u64 {
            now += 1_000_000 + (i * 7919 % 13) * 100_000;
            let srtt = if i < 3 {
                0
            } else {
                50_000_000 + (i % 17) * 1_000_000
            };
            let acked = 1 + (i % 3 == 0) as i64;
            if i % 997 == 500 || i % 1499 == 1000 {
                ssthresh = reduce(cwnd as i64).max(2);
                cwnd = ssthresh as f64;
            } else if i == 3001 {
                ssthresh = reduce(cwnd as i64).max(2);
                cwnd = 1.0;
            } else {
                on_ack(&mut cwnd, &mut ssthresh, acked, now, srtt);
            }
            h = fnv(h, cwnd.to_bits());
            h = fnv(h, ssthresh as u64);
            seq.push(cwnd);
        }
        (h, seq)
    }

    #[test]
    fn without_hystart_the_window_sequence_is_unchanged() {
        // RFC 9406 is an option: off, on_ack and reduce are the controllers' own, bit for
        // bit. The hashes were recorded with the API before HyStart++ (on_ack taking
        // ssthresh by value), on the same sequence.
        for (kind, recorded) in [
            (CongestionControlKind::Reno, 0x3d47_3a2b_c388_d583),
            (CongestionControlKind::Cubic, 0x00de_b448_6493_fba8),
        ] {
            let cc = std::cell::RefCell::new(CongestionControl::new(
                kind,
                CubicParams::default(),
                HystartParams::default(),
            ));
            let (hash, got) = drive(
                &mut |w, s, a, n, r| {
                    // RTT samples must change nothing when HyStart++ is off.
                    cc.borrow_mut().on_rtt_sample(300 * MS, 0, 1);
                    cc.borrow_mut().on_ack(w, s, a, n, r)
                },
                &mut |w| cc.borrow_mut().reduce(w),
            );
            assert_eq!(hash, recorded, "{kind:?}: got {hash:#018x}");
            assert!(cc.borrow().hystart().is_none());
            // The same as the controller alone.
            let want = match kind {
                CongestionControlKind::Reno => {
                    let mut r = Reno;
                    drive(&mut |w, s, _, _, _| r.on_ack(w, *s), &mut Reno::reduce).1
                }
                CongestionControlKind::Cubic => {
                    let c = std::cell::RefCell::new(Cubic::new(CubicParams::default()));
                    drive(
                        &mut |w, s, a, n, r| c.borrow_mut().on_ack(w, *s, a, n, r),
                        &mut |w| c.borrow_mut().reduce(w),
                    )
                    .1
                }
            };
            assert!(
                got.iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "{kind:?}"
            );
            // The sequence covers slow start, congestion avoidance and reductions.
            assert!(got.iter().any(|&w| w > 40.0) && got.contains(&1.0));
        }
    }

    #[test]
    fn cubic_after_a_hystart_exit_starts_its_first_epoch_at_cwnd() {
        // RFC 9406 section 4.2 (CSS ends after CSS_ROUNDS rounds with ssthresh = cwnd) with
        // RFC 9438 section 4.10: no W_max yet, so W_max = cwnd and K = 0.
        let mut cc = CongestionControl::new(
            CongestionControlKind::Cubic,
            CubicParams::default(),
            HystartParams { enabled: true },
        );
        let (mut cwnd, mut ssthresh) = (10.0, 1_i64 << 20);
        let (mut una, mut nxt, mut now) = (0_i64, 10_i64, 0);
        let mut round = 0;
        let mut window_end = 0;
        while cc.hystart().unwrap().phase() != Phase::Over {
            una += 1;
            if una > window_end {
                round += 1;
                window_end = nxt;
            }
            now += MS;
            // 50 ms for two rounds, then 60 ms: CSS from the third round's 8th sample.
            let rtt = if round <= 2 { 50 * MS } else { 60 * MS };
            cc.on_rtt_sample(rtt, una, nxt);
            cc.on_ack(&mut cwnd, &mut ssthresh, 1, now, rtt);
            nxt = nxt.max(una + cwnd as i64);
            assert!(round < 20, "CSS must end");
        }
        assert_eq!(round, 3 + 5, "entered in round 3, five round ends later");
        assert!(ssthresh < 1 << 20 && cwnd >= ssthresh as f64);
        let mut out = vec![];
        cc.state(&mut |k, v| out.push((k.to_string(), v)));
        let get = |name: &str| out.iter().find(|(k, _)| k == name).unwrap().1;
        // The epoch began on the exiting ACK, at the window before that ACK's growth.
        assert!(get("cubic_w_max") >= ssthresh as f64 && get("cubic_w_max") <= cwnd);
        assert_eq!(get("cubic_k_s"), 0.0);
        assert_eq!(get("hystart_phase"), 2.0);
        // A loss now is CUBIC's plain reduction.
        assert_eq!(cc.reduce(100), 70);
    }
}
