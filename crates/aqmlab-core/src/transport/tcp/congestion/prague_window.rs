//! How TCP Prague's own window becomes the sender's `snd_cwnd`, version by version.
//!
//! Sources (the L4S team's `net/ipv4/tcp_prague.c`; facts taken, code not):
//! - v0.5, L4STeam/linux b256daedc767 (and v0.6 of google/bbr 23cbf7e1bc8b, the same code):
//!   `prague_update_cwnd` (its `adjust` label), `prague_enter_cwr`, `prague_enter_loss`. The
//!   window is `snd_cwnd` itself, whole packets, and a signed carry `cwnd_cnt` (in 2^-20
//!   packets, `CWND_UNIT` 20, `ONE_CWND` 2^20) collects the increases (acked x
//!   `ai_ack_increase` / `snd_cwnd`, rounded, at least `acked` units) and the cuts (alpha x
//!   `snd_cwnd` / 2). Each ACK moves `snd_cwnd` by at most one packet: down when the carry is
//!   at most -1 packet (the carry +1, `snd_ssthresh = snd_cwnd`; at `MIN_CWND` 2 the carry is
//!   zeroed, "No point in applying further reductions"), up when it is at least +1.
//! - v0.6, L4STeam/linux 02573a215581 and v0.7, L4STeam/linux 893e1479793e:
//!   `prague_frac_cwnd_to_snd_cwnd` (the fractional window `frac_cwnd` rounded up, at least
//!   `MIN_CWND_RTT` 2 in v0.7; at least 1 with the decrement guarded at `MIN_CWND` 2 in v0.6,
//!   the same windows) and `prague_update_cwnd`'s `adjust`: each ACK moves `snd_cwnd` one
//!   packet toward that target, and a step down sets `snd_ssthresh = snd_cwnd` (so the first
//!   step down after a mark ends slow start: Prague's `ssthresh` op keeps `snd_ssthresh`).
//!
//! Parameter: `tcp.prague.window_update` = `at_once` (default: aqmlab's reading before issue
//! 38, the sender's window set to the fractional window, floored or rounded up by
//! `window_rounding`, at every change) | `step_to_ceiling` (v0.6 `frac_cwnd`, v0.7) | `carry`
//! (v0.5 and v0.6 `cwnd_cnt`). The smallest window is 2 packets (`MIN_CWND`, `MIN_CWND_RTT`).
//! Here the carry is kept in packets as an f64 (2^-20 is below anything a run resolves).

use super::ops::Window;
use serde::{Deserialize, Serialize};

/// The smallest `snd_cwnd` (tcp_prague.c `MIN_CWND`, `MIN_CWND_RTT`), packets.
const MIN_SND_CWND: f64 = 2.0;

/// tcp_prague.c's carry resolution (`CWND_UNIT` 20): an ACK's increase is at least `acked`
/// units of 2^-20 packets (`max_t(u64, increase, acked)`).
const CARRY_UNIT: f64 = 1.0 / 1_048_576.0;

/// How the sender's window follows Prague's (`tcp.prague.window_update`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowUpdate {
    /// The sender's window is set to the fractional window (through `window_rounding`) at
    /// every change, a cut included (aqmlab's reading before issue 38).
    #[default]
    AtOnce,
    /// v0.6 (`frac_cwnd`) and v0.7: `snd_cwnd` moves one packet per ACK toward the fractional
    /// window rounded up (at least 2); a step down sets ssthresh to the new window.
    StepToCeiling,
    /// v0.5 and v0.6 (`cwnd_cnt`): whole-packet `snd_cwnd` and a carry; one packet per ACK
    /// when the carry reaches +-1 packet.
    Carry,
}

impl WindowUpdate {
    /// Whether the sender's window moves by single packets, ACK by ACK (the cut is kept in
    /// Prague's own window, `snd_cwnd` and `snd_ssthresh` left to the steps).
    pub fn steps(self) -> bool {
        self != WindowUpdate::AtOnce
    }
}

/// The window `step_to_ceiling` walks `snd_cwnd` toward (`prague_frac_cwnd_to_snd_cwnd`).
pub fn ceiling_target(frac: f64) -> f64 {
    frac.ceil().max(MIN_SND_CWND)
}

/// One ACK's step of `snd_cwnd` toward `target` (`prague_update_cwnd`, `adjust`): one packet
/// down (ssthresh following it) or up, or none. Returns whether it moved.
pub fn step_toward(w: &mut Window, target: f64) -> bool {
    if w.cwnd > target && w.cwnd > MIN_SND_CWND {
        w.cwnd -= 1.0;
        w.ssthresh = w.cwnd as i64;
        true
    } else if w.cwnd < target {
        w.cwnd += 1.0;
        true
    } else {
        false
    }
}

/// v0.5's `cwnd_cnt`: what the whole-packet `snd_cwnd` still owes or is owed, in packets.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Carry {
    cnt: f64,
}

impl Carry {
    pub fn value(&self) -> f64 {
        self.cnt
    }

    /// The sender's window was set from outside (a loss's reduction, a timeout): the carry
    /// starts again from it.
    pub fn reset(&mut self) {
        self.cnt = 0.0;
    }

    /// Congestion avoidance's increase for `acked` unmarked packets, `increase` being the
    /// increase per packet over `snd_cwnd` (`acked x ai_ack_increase / snd_cwnd`, at least
    /// `acked` carry units).
    pub fn grow(&mut self, acked: f64, increase: f64) {
        self.cnt += increase.max(acked * CARRY_UNIT);
    }

    /// A cut of `reduction` packets (`prague_enter_cwr`: alpha x snd_cwnd / 2; the first
    /// mark's halving, `prague_enter_loss`'s half window).
    pub fn cut(&mut self, reduction: f64) {
        self.cnt -= reduction;
    }

    /// One ACK's step (`adjust`): the carry pays for at most one packet of `snd_cwnd`.
    pub fn step(&mut self, w: &mut Window) {
        if self.cnt <= -1.0 {
            self.cnt += 1.0;
            w.cwnd -= 1.0;
            if w.cwnd < MIN_SND_CWND {
                w.cwnd = MIN_SND_CWND;
                self.cnt = 0.0;
            }
            w.ssthresh = w.cwnd as i64;
        } else if self.cnt >= 1.0 {
            self.cnt -= 1.0;
            w.cwnd += 1.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(cwnd: f64, ssthresh: i64) -> Window {
        Window { cwnd, ssthresh }
    }

    /// v0.7 `prague_frac_cwnd_to_snd_cwnd`: 7.2 rounds up to 8, 7.0 stays 7, 0.4 and 1.0 give
    /// the floor 2. From snd_cwnd 15 after a cut to 7.2, seven ACKs step it down one packet
    /// each (ssthresh following: 14, 13, ..., 8), then it stays at 8.
    #[test]
    fn the_window_steps_one_packet_per_ack_to_the_ceiling() {
        assert_eq!(ceiling_target(7.2), 8.0);
        assert_eq!(ceiling_target(7.0), 7.0);
        assert_eq!(ceiling_target(0.4), 2.0);
        assert_eq!(ceiling_target(1.0), 2.0);
        let mut win = w(15.0, 1000);
        let mut seen = vec![];
        for _ in 0..7 {
            assert!(step_toward(&mut win, ceiling_target(7.2)));
            seen.push((win.cwnd, win.ssthresh));
        }
        let want: Vec<(f64, i64)> = (8..=14).rev().map(|c| (c as f64, c)).collect();
        assert_eq!(seen, want);
        assert!(!step_toward(&mut win, ceiling_target(7.2)));
        // Up: one packet per ACK, ssthresh untouched.
        assert!(step_toward(&mut win, ceiling_target(9.5)));
        assert_eq!((win.cwnd, win.ssthresh), (9.0, 8));
        // Never below 2.
        let mut low = w(2.0, 2);
        assert!(!step_toward(&mut low, 1.0));
        assert_eq!(low.cwnd, 2.0);
    }

    /// v0.5's carry over several ACKs at snd_cwnd 10, ai 1: each unmarked packet adds 1/10.
    /// - 4 ACKs of 2 packets: +0.2 each, carry 0.2, 0.4, 0.6, 0.8: no step;
    /// - the 5th: carry 1.0 >= 1: snd_cwnd 11, carry 0.0 (up to float error);
    /// - a cut with alpha 0.5: 0.5 x 11 / 2 = 2.75, carry -2.75; the next ACKs (nothing
    ///   acked unmarked) step down 11 -> 10 (carry -1.75), 10 -> 9 (-0.75), then stop: -0.75
    ///   is above -1, so the quarter packet stays owed. ssthresh follows each step.
    #[test]
    fn the_carry_pays_whole_packets_one_per_ack() {
        let mut c = Carry::default();
        let mut win = w(10.0, 5);
        for _ in 0..4 {
            c.grow(2.0, 2.0 / win.cwnd);
            c.step(&mut win);
            assert_eq!(win.cwnd, 10.0);
        }
        assert!((c.value() - 0.8).abs() < 1e-12);
        c.grow(2.0, 2.0 / win.cwnd);
        c.step(&mut win);
        assert_eq!(win.cwnd, 11.0);
        assert!(c.value().abs() < 1e-12);
        c.cut(0.5 * 11.0 / 2.0);
        let mut seen = vec![];
        for _ in 0..3 {
            c.step(&mut win);
            seen.push((win.cwnd, win.ssthresh));
        }
        assert_eq!(seen, vec![(10.0, 10), (9.0, 9), (9.0, 9)]);
        assert!((c.value() + 0.75).abs() < 1e-12, "{}", c.value());
        // At the floor the carry is dropped: from 2 with -1.5 owed, snd_cwnd stays 2, carry 0.
        let mut c = Carry::default();
        let mut win = w(2.0, 2);
        c.cut(1.5);
        c.step(&mut win);
        assert_eq!((win.cwnd, c.value()), (2.0, 0.0));
        // The smallest increase is one carry unit per packet (`max_t(u64, increase, acked)`).
        let mut c = Carry::default();
        c.grow(3.0, 0.0);
        assert_eq!(c.value(), 3.0 / 1_048_576.0);
    }
}
