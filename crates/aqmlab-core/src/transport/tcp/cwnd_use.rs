//! Whether the congestion window is in use, as Linux tracks it, for
//! `tcp.grow_only_when_cwnd_limited` (the `linux` profile): Linux's Reno and CUBIC grow cwnd
//! only while the flow is cwnd-limited (`tcp_is_cwnd_limited`, include/net/tcp.h, checked first
//! in `tcp_reno_cong_avoid` and `cubictcp_cong_avoid`), so a flow held back by the receiver's
//! window or the application keeps its cwnd, and a later reduction starts from a window the
//! flow actually used. RFC 5681 grows cwnd on every new ACK whatever limits the sender (ns-2
//! does the same), the default; RFC 7661 (New CWV) is a related, different rule.
//!
//! The state is `tcp_cwnd_validate`'s (net/ipv4/tcp_output.c, Linux 6.1): after a send
//! attempt that sent something or found the window full, it records whether the flight
//! filled cwnd (`is_cwnd_limited`), the packets out (`max_packets_out`) and snd_nxt
//! (`cwnd_usage_seq`), replacing the last record once snd_una has passed that point, at once
//! if this attempt was cwnd-limited, and when more packets are out than the record says.
//! `tcp_is_cwnd_limited`: cwnd-limited in the current window, or in slow start with cwnd below
//! twice the most packets out ("ensure cwnd grows to twice what was ACKed").

/// Linux's `is_cwnd_limited`, `max_packets_out` and `cwnd_usage_seq`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CwndUse {
    is_cwnd_limited: bool,
    max_packets_out: i64,
    usage_seq: i64,
}

impl CwndUse {
    /// After a send attempt (`tcp_write_xmit` calling `tcp_cwnd_validate`): `sent` whether it
    /// sent anything; `in_flight` the pipe (`tcp_packets_in_flight`); `packets_out` the packets
    /// sent and not cumulatively acknowledged; `snd_nxt` the next new packet.
    pub fn after_send(
        &mut self,
        sent: bool,
        (in_flight, cwnd): (i64, i64),
        packets_out: i64,
        (snd_una, snd_nxt): (i64, i64),
    ) {
        let limited = in_flight >= cwnd;
        if !(sent || limited) {
            return;
        }
        if snd_una >= self.usage_seq
            || limited
            || (!self.is_cwnd_limited && packets_out > self.max_packets_out)
        {
            self.is_cwnd_limited = limited;
            self.max_packets_out = packets_out;
            self.usage_seq = snd_nxt;
        }
    }

    /// `tcp_is_cwnd_limited`: may an ACK grow cwnd?
    pub fn allows_growth(&self, cwnd: f64, ssthresh: i64) -> bool {
        if self.is_cwnd_limited {
            return true;
        }
        let cwnd = cwnd.floor() as i64;
        // tcp_in_slow_start: snd_cwnd < snd_ssthresh.
        cwnd < ssthresh && cwnd < 2 * self.max_packets_out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// tcp_cwnd_validate and tcp_is_cwnd_limited by hand: cwnd 6 in slow start, the
    /// receiver's window 4 packets. The first flight (0-3) fills 4 of 6: not cwnd-limited,
    /// max_packets_out 4, usage_seq 4. Slow start may still grow while cwnd < 2 x 4: 6 -> 7 -> 8,
    /// then no more. In congestion avoidance only a cwnd-limited window grows.
    #[test]
    fn tcp_is_cwnd_limited_lets_slow_start_reach_twice_the_packets_out_and_no_further() {
        let mut u = CwndUse::default();
        u.after_send(true, (4, 6), 4, (0, 4));
        assert_eq!(
            u,
            CwndUse {
                is_cwnd_limited: false,
                max_packets_out: 4,
                usage_seq: 4
            }
        );
        let ssthresh = 1000;
        assert!(u.allows_growth(6.0, ssthresh));
        assert!(u.allows_growth(7.0, ssthresh));
        assert!(!u.allows_growth(8.0, ssthresh));
        // Each ACK of one packet releases one more (still 4 out, snd_una below usage_seq):
        // the record stands.
        u.after_send(true, (4, 8), 4, (1, 5));
        assert_eq!(u.max_packets_out, 4);
        assert_eq!(u.usage_seq, 4);
        // Congestion avoidance (cwnd >= ssthresh): not cwnd-limited, no growth at any cwnd.
        assert!(!u.allows_growth(8.0, 8));
        // A flight that fills cwnd is recorded at once, whatever usage_seq says.
        u.after_send(true, (8, 8), 8, (2, 10));
        assert_eq!(
            u,
            CwndUse {
                is_cwnd_limited: true,
                max_packets_out: 8,
                usage_seq: 10
            }
        );
        assert!(u.allows_growth(8.0, 8));
        // A send attempt that sent nothing and found room changes nothing.
        u.after_send(false, (3, 8), 3, (12, 12));
        assert!(u.is_cwnd_limited);
        // Once snd_una passes usage_seq, the next attempt's own state replaces the record.
        u.after_send(true, (3, 8), 3, (12, 13));
        assert_eq!(
            u,
            CwndUse {
                is_cwnd_limited: false,
                max_packets_out: 3,
                usage_seq: 13
            }
        );
        assert!(!u.allows_growth(8.0, 8));
    }
}
