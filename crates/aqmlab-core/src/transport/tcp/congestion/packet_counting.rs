//! Window growth by the packets an ACK covers, as Linux grows every congestion controller
//! (`tcp.cwnd_growth = "packets_acked"`; net/ipv4/tcp_cong.c, v6.1):
//!
//! - `tcp_slow_start`: `cwnd = min(cwnd + acked, ssthresh)`; the packets that did not fit
//!   below ssthresh are returned and go on to congestion avoidance on the same ACK
//!   (`tcp_reno_cong_avoid` and `cubictcp_cong_avoid` call `tcp_cong_avoid_ai` with them).
//!   There is no per-ACK limit (RFC 3465's L): Linux has none.
//! - `tcp_cong_avoid_ai(tp, w, acked)`: a counter (`snd_cwnd_cnt`) accumulates the packets
//!   acked; each time it holds `w` of them the window grows by one packet and the counter
//!   loses `w`. Credits left from a smaller `w` are first turned into one packet ("apply them
//!   gently"). Reno passes `w = cwnd` (one packet per window acked), CUBIC its `ca->cnt`.
//! - The counter is zeroed by every reduction (`tcp_init_cwnd_reduction`, `tcp_enter_loss`
//!   in net/ipv4/tcp_input.c): the controller's owner calls [`AckedCount::clear`].
//!
//! With delayed ACKs (two packets per ACK) the window grows as fast as with an ACK per packet,
//! where the per-ACK rule (ns-2's `opencwnd`, `per_ack`) grows half as fast.
//!
//! cwnd is a whole number of packets in Linux (`snd_cwnd`); here it is the sender's `f64`,
//! whole as long as the sender sets whole values, and `w` is its floor. The counter is an
//! `f64` too: exact for whole numbers below 2^53.

/// Linux's `snd_cwnd_cnt`: packets acked towards the next one-packet increase.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AckedCount(f64);

impl AckedCount {
    /// Any reduction starts the count again (`snd_cwnd_cnt = 0`).
    pub fn clear(&mut self) {
        self.0 = 0.0;
    }

    pub fn value(&self) -> f64 {
        self.0
    }
}

/// `tcp_slow_start`: grows `cwnd` by the `acked` packets, up to `ssthresh`, and returns the
/// packets left over for congestion avoidance.
pub fn slow_start(cwnd: &mut f64, ssthresh: i64, acked: f64) -> f64 {
    let grown = (*cwnd + acked).min(ssthresh as f64).max(*cwnd);
    let left = acked - (grown - *cwnd);
    *cwnd = grown;
    left
}

/// `tcp_cong_avoid_ai`: one packet more per `w` packets acked (`w` at least 1).
pub fn cong_avoid_ai(cwnd: &mut f64, count: &mut AckedCount, w: f64, acked: f64) {
    let w = w.max(1.0);
    if count.0 >= w {
        count.0 = 0.0;
        *cwnd += 1.0;
    }
    count.0 += acked;
    if count.0 >= w {
        let delta = (count.0 / w).floor();
        count.0 -= delta * w;
        *cwnd += delta;
    }
}

/// The window as Linux holds it: whole packets, at least one.
pub fn whole(cwnd: f64) -> f64 {
    cwnd.floor().max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_slow_start_adds_every_packet_acked_up_to_ssthresh_and_returns_the_rest() {
        // net/ipv4/tcp_cong.c, tcp_slow_start: cwnd = min(cwnd + acked, ssthresh);
        // acked -= cwnd - old cwnd.
        let mut cwnd = 10.0;
        assert_eq!(slow_start(&mut cwnd, 100, 2.0), 0.0);
        assert_eq!(cwnd, 12.0);
        assert_eq!(slow_start(&mut cwnd, 100, 5.0), 0.0);
        assert_eq!(cwnd, 17.0);
        // 17 + 5 passes ssthresh 20: 3 packets grow the window, 2 are left for CA.
        assert_eq!(slow_start(&mut cwnd, 20, 5.0), 2.0);
        assert_eq!(cwnd, 20.0);
        // No limit per ACK (RFC 3465's L is not Linux's): 64 packets at once.
        let mut cwnd = 10.0;
        assert_eq!(slow_start(&mut cwnd, 1 << 20, 64.0), 0.0);
        assert_eq!(cwnd, 74.0);
    }

    #[test]
    fn tcp_cong_avoid_ai_adds_one_packet_per_w_packets_acked() {
        // net/ipv4/tcp_cong.c, tcp_cong_avoid_ai with Reno's w = cwnd = 10 and delayed ACKs
        // of two packets: the counter reads 2, 4, 6, 8, then 10 >= w makes cwnd 11 with the
        // counter at 0; at w = 11 the next increase needs 11 packets: 2, 4, 6, 8, 10, 12 -> 1.
        let mut cwnd = 10.0;
        let mut n = AckedCount::default();
        let mut seq = vec![];
        for _ in 0..11 {
            let w = whole(cwnd);
            cong_avoid_ai(&mut cwnd, &mut n, w, 2.0);
            seq.push((cwnd, n.value()));
        }
        assert_eq!(
            seq,
            vec![
                (10.0, 2.0),
                (10.0, 4.0),
                (10.0, 6.0),
                (10.0, 8.0),
                (11.0, 0.0),
                (11.0, 2.0),
                (11.0, 4.0),
                (11.0, 6.0),
                (11.0, 8.0),
                (11.0, 10.0),
                (12.0, 1.0),
            ]
        );
        // A large ACK gives several packets at once: 25 acked at w = 10 -> +2, 5 left.
        let (mut cwnd, mut n) = (10.0, AckedCount::default());
        cong_avoid_ai(&mut cwnd, &mut n, 10.0, 25.0);
        assert_eq!((cwnd, n.value()), (12.0, 5.0));
        // Credits gathered at a larger w are spent first when w has fallen (CUBIC's cnt
        // moves): 7 credits at w = 5 give one packet and are cleared before the ACK counts.
        let (mut cwnd, mut n) = (20.0, AckedCount(7.0));
        cong_avoid_ai(&mut cwnd, &mut n, 5.0, 1.0);
        assert_eq!((cwnd, n.value()), (21.0, 1.0));
        n.clear();
        assert_eq!(n.value(), 0.0);
    }
}
