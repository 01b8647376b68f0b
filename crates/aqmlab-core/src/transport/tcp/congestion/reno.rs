//! Reno congestion control as ns-2 implements RFC 5681 (tcp/tcp.cc `opencwnd` with
//! `wnd_option_ 1`, `increase_num_ 1`, and `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)`):
//! one packet per new ACK in slow start, 1/cwnd per new ACK in congestion avoidance (per ACK,
//! not per packet acked: with delayed ACKs the window grows half as fast, as in ns-2), and
//! half the usable window on a congestion signal.
//!
//! No parameters. The arithmetic is ns-2's to the bit: `tests/ns2_tcp_fingerprint.rs` checks it.
//!
//! With `tcp.cwnd_growth = "packets_acked"` the growth is Linux's `tcp_reno_cong_avoid`
//! (net/ipv4/tcp_cong.c) instead: slow start by every packet acked, then one packet per
//! window of packets acked (`packet_counting.rs`). The reduction is the same half
//! (`tcp_reno_ssthresh`: max(cwnd / 2, 2), the floor of 2 applied by the sender).

use super::growth::Growth;
use super::ops::{Acked, CongestionOps, Signal, Window};
use super::packet_counting::{self, AckedCount};
use super::ControllerConfig;
use super::{CwndGrowth, HystartParams};
use crate::sim::Time;

#[derive(Debug, Clone, Copy, Default)]
pub struct Reno;

impl Reno {
    #[inline]
    pub fn on_ack(&mut self, cwnd: &mut f64, ssthresh: i64) {
        if *cwnd < ssthresh as f64 {
            *cwnd += 1.0;
        } else {
            *cwnd += 1.0 / *cwnd;
        }
    }

    /// `tcp_reno_cong_avoid` (net/ipv4/tcp_cong.c): `tcp_slow_start` with the `acked`
    /// packets, then `tcp_cong_avoid_ai(tp, cwnd, acked)` with what slow start left.
    pub fn on_ack_counted(cwnd: &mut f64, ssthresh: i64, acked: i64, count: &mut AckedCount) {
        let mut acked = acked.max(0) as f64;
        if *cwnd < ssthresh as f64 {
            acked = packet_counting::slow_start(cwnd, ssthresh, acked);
            if acked <= 0.0 {
                return;
            }
        }
        let w = packet_counting::whole(*cwnd);
        packet_counting::cong_avoid_ai(cwnd, count, w, acked);
    }

    #[inline]
    pub fn reduce(window: i64) -> i64 {
        window / 2
    }
}

/// `tcp_reno_cong_avoid` (or ns-2's `opencwnd`) with the HyStart++ that may run its slow
/// start: Reno's growth, DCTCP's too (Linux: `.cong_avoid = tcp_reno_cong_avoid`).
#[inline]
pub fn reno_cong_avoid(g: &mut Growth, w: &mut Window, acked: Acked) {
    let acked = g.acked(acked);
    if g.hystart_on_ack(w, acked) {
        return;
    }
    match g.rule() {
        CwndGrowth::PerAck => Reno.on_ack(&mut w.cwnd, w.ssthresh),
        CwndGrowth::PacketsAcked => {
            Reno::on_ack_counted(&mut w.cwnd, w.ssthresh, acked, &mut g.acked_count)
        }
    }
}

/// Reno as a controller (`tcp_reno_ssthresh`, `tcp_reno_cong_avoid`; the other hooks are
/// Linux's defaults).
#[derive(Debug, Clone)]
pub struct RenoOps {
    g: Growth,
}

impl RenoOps {
    pub fn new(growth: CwndGrowth, hystart: HystartParams) -> Self {
        RenoOps {
            g: Growth::new(growth, hystart, false),
        }
    }

    pub fn from_config(cfg: &ControllerConfig) -> Self {
        Self::new(cfg.cwnd_growth, cfg.hystart)
    }

    pub fn growth(&self) -> &Growth {
        &self.g
    }
}

impl CongestionOps for RenoOps {
    #[inline]
    fn ssthresh(&mut self, _: &Window, base: i64, _: Signal, _: Time) -> Option<i64> {
        self.g.on_reduction();
        Some(Reno::reduce(base))
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, acked: Acked, _: Time, _: Time) {
        reno_cong_avoid(&mut self.g, w, acked);
    }

    #[inline]
    fn pkts_acked(&mut self, rtt: Time, ack: &super::ops::AckEvent, _: &mut Window) {
        self.g.on_rtt_sample(rtt, ack.snd_una, ack.snd_nxt);
    }

    fn state(&self, out: &mut crate::sim::StateSink) {
        // cwnd and ssthresh say it all, but for HyStart++.
        self.g.state(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_reno_cong_avoid_counts_the_packets_each_ack_covers() {
        // net/ipv4/tcp_cong.c, tcp_reno_cong_avoid, with delayed ACKs (two packets each)
        // from cwnd 6, ssthresh 8: slow start 6 -> 8 on the first ACK; the second ACK is in
        // congestion avoidance (w = 8): counter 2, 4, 6, then 8 -> cwnd 9, counter 0.
        let (mut cwnd, mut n) = (6.0, AckedCount::default());
        let mut seq = vec![];
        for _ in 0..5 {
            Reno::on_ack_counted(&mut cwnd, 8, 2, &mut n);
            seq.push((cwnd, n.value()));
        }
        assert_eq!(
            seq,
            vec![(8.0, 0.0), (8.0, 2.0), (8.0, 4.0), (8.0, 6.0), (9.0, 0.0)]
        );
        // An ACK across ssthresh: 7 + 3 -> 8 in slow start, the 2 left start the count.
        let (mut cwnd, mut n) = (7.0, AckedCount::default());
        Reno::on_ack_counted(&mut cwnd, 8, 3, &mut n);
        assert_eq!((cwnd, n.value()), (8.0, 2.0));
        // ns-2's per-ACK rule grows half as fast under the same ACKs: 4 ACKs at cwnd 8 give
        // 8 + 1/8 + ... (about 8.48), not 9.
        let mut per_ack = 8.0;
        for _ in 0..4 {
            Reno.on_ack(&mut per_ack, 8);
        }
        assert!(per_ack > 8.47 && per_ack < 8.49, "{per_ack}");
    }
}
