//! TCP Prague's rate-based mode for small windows (tcp_prague.c v0.7).
//!
//! Source: the L4S team's `net/ipv4/tcp_prague.c` v0.7, L4STeam/linux 893e1479793e (header
//! items 6 and 7; facts taken, code not): `prague_cwnd_mode` (0 "FracWin", 1 "Rate-base", 2
//! "Switch", the default), `prague_cwnd_transit` (4, in `MTU_SYS` 1500-byte packets),
//! `rate_bytes`, `hsrtt_us`, and the functions named at each step below.
//!
//! - The switch (end of `prague_cong_control`, every ACK, in mode 2): with CE seen and
//!   `snd_cwnd` x packet size at most `prague_cwnd_transit` x 1500 bytes (6000 B: 4 packets
//!   of 1500 B, 5 of 1040 B) the flow is in rate mode and its fractional window is re-derived
//!   from its rate (`prague_pacing_rate_to_frac_cwnd`); otherwise window mode, the rate
//!   re-derived from the window (`prague_frac_cwnd_to_pacing_rate`). There is no hysteresis
//!   beyond `snd_cwnd` being whole packets that move one per ACK: the same test decides both
//!   ways, every ACK.
//! - The rate-mode branches act only once RTT independent (`prague_is_rtt_indep && cwnd_mode
//!   == 1`): additive increase in the rate (`prague_update_cwnd`): the rate grows by
//!   acked x 1500 B per virtual RTT (`prague_virtual_rtt` = max(target, srtt)) spread over
//!   the packets of a virtual RTT at the current rate (rounded up), so one `MTU_SYS` per
//!   virtual RTT per virtual RTT; the cut on CE (`prague_enter_cwr`) rate x alpha / 2, at
//!   least `MINIMUM_RATE` (12500 B/s, 100 kb/s); the loss (`prague_enter_loss`) half the rate;
//!   the fractional window then re-derived from the rate.
//! - Pacing in rate mode (`prague_update_pacing_rate`): the rate plus 4/128 (`RATE_OFFSET`,
//!   `OFFSET_UNIT`, 3.125 %) in the first half of a virtual RTT since the last alpha update,
//!   minus it in the second (`prague_half_virtual_rtt_elapsed`): "a stable amount of marks
//!   every RTT on a STEP marking AQM". Out of rate mode the pacing is the window's (`prague.rs`)
//!   and `rate_bytes` follows it: packet size x max(window's whole part, in flight) / srtt, at
//!   least `MINIMUM_RATE`. Both double while `snd_cwnd` < ssthresh / 2.
//! - The window from the rate (`prague_pacing_rate_to_frac_cwnd`): rate x rtt / packet size,
//!   rtt the slow srtt `hsrtt_us` (gain 1/128 per alpha round, `HSRTT_SHIFT` 7, updated in
//!   `prague_update_alpha` whether or not CE was seen; srtt until it has a value), and the
//!   kernel's seconds taken as 2^23 eighth-microseconds (`RTT2SEC_SHIFT` 23) where a second
//!   has 8 x 10^6 of them: the window comes out 8e6 / 2^23 = 0.954 of rate x rtt (modelled).
//!   The rate from the window (`prague_frac_cwnd_to_pacing_rate`): packet size x window / srtt.
//!
//! Parameters: `tcp.prague.window_mode` = `window` (default, mode 0: aqmlab's Prague before
//! issue 38) | `rate` (mode 1, once RTT independent) | `switch` (mode 2, tcp_prague.c v0.7's
//! default); `tcp.prague.rate_mode_transit` = 4 (1500-byte packets).
//! Not modelled: the MTU reduction below 2 packets of a virtual RTT (`prague_update_alpha`,
//! `prague_valid_mtu`: aqmlab's sender keeps one packet size per flow) and `prague_cwnd_undo`.

use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// The lowest rate, bytes per second (tcp_prague.c `MINIMUM_RATE`, 100 kb/s).
pub const MINIMUM_RATE: f64 = 12_500.0;
/// tcp_prague.c `MTU_SYS`: the bytes the rate-mode increase adds per virtual RTT.
const MTU_SYS: f64 = 1500.0;
/// The pacing offset in rate mode (`RATE_OFFSET` 4 in 1/2^`OFFSET_UNIT` 7 units).
const RATE_OFFSET: f64 = 4.0 / 128.0;
/// `hsrtt_us`'s gain (1/2^`HSRTT_SHIFT`).
const HSRTT_GAIN: f64 = 1.0 / 128.0;
/// The kernel's window-rate conversions count a second as 2^23 eighth-microseconds
/// (`RTT2SEC_SHIFT` 23) where it has 8 x 10^6: windows from rates come out this much smaller.
pub const RTT2SEC_APPROX: f64 = 8_000_000.0 / 8_388_608.0;

fn secs(t: Time) -> f64 {
    crate::sim::time::to_secs_f64(t)
}

/// How Prague runs at small windows (`tcp.prague.window_mode`; tcp_prague.c v0.7
/// `prague_cwnd_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowMode {
    /// Mode 0 ("FracWin"): the fractional window always (aqmlab's Prague before issue 38).
    #[default]
    Window,
    /// Mode 1 ("Rate-base"): the rate, once RTT independent, whatever the window.
    Rate,
    /// Mode 2 ("Switch", v0.7's default): the rate while the window is at most
    /// `rate_mode_transit` 1500-byte packets and CE has been seen, the window above.
    Switch,
}

/// The rate-mode state (`rate_bytes`, `hsrtt_us`, `cwnd_mode`).
#[derive(Debug, Clone)]
pub struct RateMode {
    switches: bool,
    /// `prague_cwnd_transit` x `MTU_SYS`, bytes.
    transit_bytes: f64,
    /// Bytes of a packet on the wire (`tcp_mss_to_mtu(mss_cache)`).
    packet_bytes: f64,
    /// `cwnd_mode == 1`.
    on: bool,
    /// `rate_bytes`, bytes per second.
    rate: f64,
    /// `hsrtt_us >> HSRTT_SHIFT`, ns; 0 until the first srtt.
    hsrtt: f64,
    /// In the second half of the virtual RTT since the last alpha update, at the last ACK.
    second_half: bool,
}

impl RateMode {
    /// None for `window` (mode 0: nothing of this runs).
    pub fn new(mode: WindowMode, transit_packets: u32, packet_bytes: u32) -> Option<Self> {
        (mode != WindowMode::Window).then(|| RateMode {
            switches: mode == WindowMode::Switch,
            transit_bytes: transit_packets as f64 * MTU_SYS,
            packet_bytes: packet_bytes.max(1) as f64,
            on: mode == WindowMode::Rate,
            rate: MINIMUM_RATE,
            hsrtt: 0.0,
            second_half: false,
        })
    }

    /// `prague_init`: the rate from the window over the handshake's srtt, and the slow srtt
    /// from it.
    pub fn init(&mut self, cwnd: f64, srtt: Time) {
        if srtt > 0 {
            self.rate = self.rate_from_window(cwnd, srtt);
            self.hsrtt = srtt as f64;
        }
    }

    pub fn rate(&self) -> f64 {
        self.rate
    }

    pub fn in_rate_mode(&self) -> bool {
        self.on
    }

    /// Whether the rate branches act (`prague_is_rtt_indep(sk) && ca->cwnd_mode == 1`).
    pub fn active(&self, rtt_independent: bool) -> bool {
        rtt_independent && self.on
    }

    /// `prague_frac_cwnd_to_pacing_rate`: packet size x window / srtt, at least
    /// `MINIMUM_RATE`.
    pub fn rate_from_window(&self, frac: f64, srtt: Time) -> f64 {
        (self.packet_bytes * frac / secs(srtt)).max(MINIMUM_RATE)
    }

    /// `prague_pacing_rate_to_frac_cwnd`: rate x hsrtt (srtt before it has one) / packet
    /// size, with the kernel's 2^23 for 8 x 10^6.
    pub fn window_from_rate(&self, srtt: Time) -> f64 {
        let rtt = if self.hsrtt > 0.0 {
            self.hsrtt / 1e9
        } else {
            secs(srtt)
        };
        self.rate * rtt * RTT2SEC_APPROX / self.packet_bytes
    }

    /// `prague_update_alpha`'s tail, each alpha round: hsrtt += (srtt - hsrtt) / 128.
    pub fn on_alpha_round(&mut self, srtt: Time) {
        if self.hsrtt == 0.0 {
            // `prague_init` had the SYN's srtt; a flow without a handshake starts it here.
            self.hsrtt = srtt as f64;
        } else {
            self.hsrtt += (srtt as f64 - self.hsrtt) * HSRTT_GAIN;
        }
    }

    /// The per-ACK part of `prague_update_pacing_rate` and the switch that ends
    /// `prague_cong_control`: out of the rate branches `rate_bytes` follows the window's
    /// pacing (packet size x max(whole window, `in_flight`) / srtt); then, in `switch`, the
    /// mode for the next ACK from `snd_cwnd` (the window re-derived from the rate entering or
    /// staying in rate mode, the rate from the window otherwise). `since_alpha` is the time
    /// since the last alpha update and `virtual_rtt` max(target, srtt), for the pacing offset.
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack(
        &mut self,
        frac: &mut f64,
        snd_cwnd: f64,
        in_flight: i64,
        srtt: Time,
        rtt_independent: bool,
        saw_ce: bool,
        (since_alpha, virtual_rtt): (Time, Time),
    ) {
        if srtt == 0 {
            return;
        }
        self.second_half = since_alpha >= virtual_rtt / 2;
        if !self.active(rtt_independent) {
            let w = frac.floor().max(in_flight as f64);
            self.rate = (self.packet_bytes / secs(srtt) * w).max(MINIMUM_RATE);
        }
        if self.switches {
            if saw_ce && snd_cwnd.floor() * self.packet_bytes <= self.transit_bytes {
                self.on = true;
                *frac = self.window_from_rate(srtt);
            } else {
                self.on = false;
                self.rate = self.rate_from_window(*frac, srtt);
            }
        }
    }

    /// The rate-mode increase for `acked` unmarked packets (`prague_update_cwnd`): acked x
    /// 1500 B per virtual RTT over the packets a virtual RTT holds at this rate (rounded up).
    /// Returns the new fractional window: the old plus `acked` units of 2^-20 packets, or the
    /// rate's window if larger.
    pub fn grow(&mut self, frac: f64, acked: f64, srtt: Time, virtual_rtt: Time) -> f64 {
        let v = secs(virtual_rtt);
        let increase = acked * MTU_SYS / (v * RTT2SEC_APPROX);
        let per_vrtt = (self.rate * v * RTT2SEC_APPROX / self.packet_bytes).ceil();
        if per_vrtt > 0.0 {
            self.rate += increase / per_vrtt;
        }
        (frac + acked / 1_048_576.0).max(self.window_from_rate(srtt))
    }

    /// The cut on CE in rate mode (`prague_enter_cwr`): rate x alpha / 2, at least
    /// `MINIMUM_RATE`; the new fractional window.
    pub fn cut(&mut self, alpha: f64, srtt: Time) -> f64 {
        self.rate = (self.rate - self.rate * alpha / 2.0).max(MINIMUM_RATE);
        self.window_from_rate(srtt)
    }

    /// A loss in rate mode (`prague_enter_loss`): half the rate.
    pub fn on_loss(&mut self) {
        self.rate -= self.rate / 2.0;
    }

    /// `prague_update_pacing_rate` in rate mode: the rate +- 3.125 % by the half of the
    /// virtual RTT (before the doubling in slow start, which the caller applies).
    pub fn pacing_rate(&self) -> f64 {
        let offset = self.rate * RATE_OFFSET;
        if self.second_half {
            self.rate - offset
        } else {
            self.rate + offset
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    fn switching() -> RateMode {
        RateMode::new(WindowMode::Switch, 4, 1500).unwrap()
    }

    /// The switch at 1500-byte packets: 4 x 1500 = 6000 B is the transit. A window of 4 with
    /// CE seen enters rate mode (window re-derived from the rate); 5 leaves it (rate from the
    /// window); without CE it never enters. The same test both ways: no hysteresis band.
    /// Entering from the window's pacing at srtt 10 ms, window 4.0, 3 in flight: rate = 1500 /
    /// 0.01 x max(4, 3) = 600 000 B/s; the window from it over hsrtt 10 ms: 600 000 x 0.01 x
    /// 0.953 674 / 1500 = 3.814 697.
    #[test]
    fn the_switch_is_at_four_mtu_sys_both_ways() {
        let mut r = switching();
        r.init(4.0, 10 * MS);
        let mut frac = 4.0;
        r.on_ack(&mut frac, 4.0, 3, 10 * MS, true, false, (0, 25 * MS));
        assert!(!r.in_rate_mode(), "no CE seen yet");
        r.on_ack(&mut frac, 4.0, 3, 10 * MS, true, true, (0, 25 * MS));
        assert!(r.in_rate_mode());
        assert_eq!(r.rate(), 600_000.0);
        assert!((frac - 3.814_697).abs() < 1e-6, "{frac}");
        // Still 4 whole packets: stays in rate mode, the window from the rate again.
        let mut frac2 = 3.9;
        r.on_ack(&mut frac2, 4.0, 3, 10 * MS, true, true, (0, 25 * MS));
        assert!(r.in_rate_mode());
        assert!((frac2 - 3.814_697).abs() < 1e-6);
        // 5 packets: 7500 B > 6000: window mode, the rate from the window 5.0 / 10 ms.
        let mut frac3 = 5.0;
        r.on_ack(&mut frac3, 5.0, 5, 10 * MS, true, true, (0, 25 * MS));
        assert!(!r.in_rate_mode());
        assert_eq!(r.rate(), 750_000.0);
        // At 1040-byte packets the transit is 5 packets (5200 B <= 6000 < 6240).
        let mut s = RateMode::new(WindowMode::Switch, 4, 1040).unwrap();
        let mut f = 5.0;
        s.on_ack(&mut f, 5.0, 5, 10 * MS, true, true, (0, 25 * MS));
        assert!(s.in_rate_mode());
        s.on_ack(&mut f, 6.0, 5, 10 * MS, true, true, (0, 25 * MS));
        assert!(!s.in_rate_mode());
    }

    /// The rate-domain increase at 1500-byte packets, virtual RTT 25 ms (srtt 1 ms below the
    /// target): rate 120 000 B/s holds ceil(120 000 x 0.025 x 0.953 674 / 1500) = ceil(1.907)
    /// = 2 packets per virtual RTT; an ACK of one packet adds 1500 / (0.025 x 0.953 674) / 2 =
    /// 31 457.28 B/s. Over a virtual RTT's packets the rate so grows by one MTU_SYS per virtual
    /// RTT (/0.954). The cut on CE with alpha 0.5: -25 %; at MINIMUM_RATE it stays there. A
    /// loss halves.
    #[test]
    fn the_rate_grows_one_mtu_sys_per_virtual_rtt_and_cuts_by_alpha() {
        let mut r = RateMode::new(WindowMode::Rate, 4, 1500).unwrap();
        r.rate = 120_000.0;
        r.hsrtt = MS as f64;
        let frac = r.grow(0.05, 1.0, MS, 25 * MS);
        assert!((r.rate() - 151_457.28).abs() < 1e-6, "{}", r.rate());
        // The window: the larger of 0.05 + 2^-20 and the rate's over hsrtt 1 ms, 151 457.28 x
        // 0.001 x 0.953 674 / 1500 = 0.096 29.
        assert!((frac - 151_457.28 * 0.001 * RTT2SEC_APPROX / 1500.0).abs() < 1e-12);
        // With a larger window kept (a packet's 2^-20 more: `frac_cwnd + acked`).
        let kept = r.grow(0.5, 1.0, MS, 25 * MS);
        assert_eq!(kept, 0.5 + 1.0 / 1_048_576.0);
        let before = r.rate();
        let w = r.cut(0.5, MS);
        assert!((r.rate() - before * 0.75).abs() < 1e-6);
        assert!((w - r.rate() * 0.001 * RTT2SEC_APPROX / 1500.0).abs() < 1e-12);
        r.rate = 13_000.0;
        r.cut(1.0, MS);
        assert_eq!(r.rate(), MINIMUM_RATE);
        r.on_loss();
        assert_eq!(r.rate(), MINIMUM_RATE / 2.0);
    }

    /// A virtual RTT's worth of ACKs (25 ms, 1500 B): from 600 000 B/s the count of packets
    /// per virtual RTT is ceil(600 000 x 0.025 x 0.953 674 / 1500) = ceil(9.54) = 10, so each
    /// one-packet ACK adds 62 914.56 / 10 = 6 291.456 B/s; after 5 the rate is 631 457.28,
    /// above 10 packets' worth (629 145.6), so the next 5 add 62 914.56 / 11 = 5 719.505 each:
    /// 660 054.81 after 10 ACKs, about the one MTU_SYS per virtual RTT (62 914.56 B/s) the
    /// mode is built for, a little less as the count rose.
    #[test]
    fn a_virtual_rtt_of_acks_adds_about_one_mtu_sys_per_virtual_rtt() {
        let mut r = RateMode::new(WindowMode::Rate, 4, 1500).unwrap();
        r.rate = 600_000.0;
        r.hsrtt = MS as f64;
        let per = 1500.0 / (0.025 * RTT2SEC_APPROX);
        let mut seen = vec![];
        for _ in 0..10 {
            r.grow(0.0, 1.0, MS, 25 * MS);
            seen.push(r.rate());
        }
        assert!(
            (seen[4] - (600_000.0 + 5.0 * per / 10.0)).abs() < 1e-6,
            "{seen:?}"
        );
        let want = 600_000.0 + 5.0 * per / 10.0 + 5.0 * per / 11.0;
        assert!((seen[9] - want).abs() < 1e-6, "{seen:?}");
        assert!((want - 660_054.81).abs() < 0.01);
    }

    /// Pacing +- 4/128 of the rate: first half of the virtual RTT since alpha's update up,
    /// second half down (25 ms virtual RTT: the turn at 12.5 ms).
    #[test]
    fn pacing_is_three_percent_up_then_down_each_virtual_rtt() {
        let mut r = RateMode::new(WindowMode::Rate, 4, 1500).unwrap();
        r.init(2.0, 10 * MS);
        assert_eq!(r.rate(), 300_000.0);
        let mut frac = 2.0;
        r.on_ack(&mut frac, 2.0, 2, 10 * MS, true, true, (12 * MS, 25 * MS));
        assert_eq!(r.pacing_rate(), 300_000.0 * 1.031_25);
        r.on_ack(
            &mut frac,
            2.0,
            2,
            10 * MS,
            true,
            true,
            (12_500_000, 25 * MS),
        );
        assert_eq!(r.pacing_rate(), 300_000.0 * 0.968_75);
    }

    /// Mode 1 (`rate`) is in rate mode from the start but acts only once RTT independent:
    /// before, `rate_bytes` follows the window's pacing (1500 / 10 ms x max(7, 9 in flight) =
    /// 1 350 000 B/s), and the window is left alone; after, the rate is the flow's own.
    #[test]
    fn mode_rate_acts_once_rtt_independent() {
        let mut r = RateMode::new(WindowMode::Rate, 4, 1500).unwrap();
        assert!(r.in_rate_mode());
        let mut frac = 7.5;
        r.on_ack(&mut frac, 8.0, 9, 10 * MS, false, true, (0, 25 * MS));
        assert_eq!((r.rate(), frac), (1_350_000.0, 7.5));
        r.rate = 500_000.0;
        r.on_ack(&mut frac, 8.0, 9, 10 * MS, true, true, (0, 25 * MS));
        assert_eq!((r.rate(), frac), (500_000.0, 7.5));
        assert!(RateMode::new(WindowMode::Window, 4, 1500).is_none());
    }

    /// hsrtt: 1/128 of the way to srtt per alpha round, from the first srtt.
    #[test]
    fn the_slow_srtt_moves_by_one_128th_per_round() {
        let mut r = switching();
        r.on_alpha_round(10 * MS);
        assert_eq!(r.hsrtt, 10e6);
        r.on_alpha_round(138 * MS);
        assert_eq!(r.hsrtt, 11e6);
    }
}
