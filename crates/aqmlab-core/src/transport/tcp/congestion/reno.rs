//! Reno congestion control as ns-2 implements RFC 5681 (tcp/tcp.cc `opencwnd` with
//! `wnd_option_ 1`, `increase_num_ 1`, and `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)`):
//! one packet per new ACK in slow start, 1/cwnd per new ACK in congestion avoidance (per ACK,
//! not per packet acked: with delayed ACKs the window grows half as fast, as in ns-2), and
//! half the usable window on a congestion signal.
//!
//! No parameters. The arithmetic is ns-2's to the bit: `tests/ns2_tcp_fingerprint.rs` checks it.

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

    #[inline]
    pub fn reduce(window: i64) -> i64 {
        window / 2
    }
}
