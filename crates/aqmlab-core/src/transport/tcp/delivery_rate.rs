//! Delivery-rate sampling as Linux does it (net/ipv4/tcp_rate.c), for model-based
//! controllers (BBR): per ACK, how many packets were delivered over how long.
//!
//! - `tcp_rate_skb_sent`: each transmission (a retransmission too) records the connection's
//!   `delivered` count, the time of the last delivery `delivered_mstamp`, the send time of the
//!   first packet of the current send phase `first_tx_mstamp`, and whether the connection
//!   was application-limited. When nothing is outstanding (`packets_out` 0) both times are
//!   reset to the send time: the network was idle, so an interval starts now.
//! - `tcp_rate_skb_delivered`: for each packet an ACK newly delivers (cumulatively or by
//!   SACK), the packet with the highest recorded `delivered` (the most recently sent) gives
//!   the sample's prior values; the send phase's length is that packet's send time minus its
//!   `first_tx_mstamp`, and `first_tx_mstamp` moves to its send time.
//! - `tcp_rate_gen`: once per ACK, `delivered_mstamp` = now if the ACK delivered anything;
//!   the sample: delivered = `delivered - prior_delivered`, interval = max(send phase, now -
//!   prior `delivered_mstamp`) (the ACK phase); invalid without a prior record, or when the
//!   interval is below the minimum RTT ("Normally we expect interval_us >= min-rtt"). An
//!   application-limited mark clears once the packets in flight at its setting are delivered.
//! - `tcp_rate_check_app_limited`: when the sender has less than a packet to send, is not
//!   cwnd-limited and has retransmitted every lost packet, the connection is app-limited until
//!   `delivered + in_flight` packets are delivered (at least 1).
//!
//! The records live in a ring indexed by sequence number from the first unacknowledged
//! packet, beside the scoreboard's own (`recovery/rfc6675.rs` keeps one send stamp per packet
//! the same way): no allocation per packet once the ring has grown to the window. Times are
//! `Option` where Linux uses 0 as "none" (0 is a valid time in a simulation); the minimum RTT
//! is the least RTT sample seen (Linux's `tcp_min_rtt` is windowed over 300 s,
//! `sysctl_tcp_min_rtt_wlen`, longer than most runs).

use crate::sim::Time;
use std::collections::VecDeque;

/// What one transmission recorded (Linux `tcp_skb_cb.tx`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct TxRecord {
    delivered: u64,
    /// None once the packet has been counted by a SACK (`tx.delivered_mstamp = 0`).
    delivered_mstamp: Option<Time>,
    first_tx_mstamp: Time,
    is_app_limited: bool,
    sent_at: Time,
    retransmitted: bool,
}

/// One ACK's rate sample (Linux `struct rate_sample`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateSample {
    /// `tp->delivered` when the packet giving the sample was sent; 0 = none yet (Linux).
    pub prior_delivered: u64,
    prior_mstamp: Option<Time>,
    /// Packets delivered over the interval; -1 = invalid sample.
    pub delivered: i64,
    /// ns; -1 = invalid.
    pub interval: i64,
    pub snd_interval: i64,
    pub rcv_interval: i64,
    /// RTT of the most recently sent packet this ACK delivered that was never retransmitted
    /// (Linux `rs->rtt_us`, the `ca_rtt_us` of `tcp_clean_rtx_queue`); None without one.
    pub rtt: Option<Time>,
    /// Packets this ACK newly delivered (cumulatively or by SACK).
    pub acked_sacked: i64,
    /// Packets newly deemed lost on this ACK.
    pub losses: i64,
    pub is_app_limited: bool,
    pub is_retrans: bool,
    /// Packets in flight before this ACK (Linux `rs->prior_in_flight`).
    pub prior_in_flight: i64,
    newest_sent: Option<Time>,
}

impl Default for RateSample {
    fn default() -> Self {
        RateSample {
            prior_delivered: 0,
            prior_mstamp: None,
            delivered: -1,
            interval: -1,
            snd_interval: -1,
            rcv_interval: -1,
            rtt: None,
            acked_sacked: 0,
            losses: 0,
            is_app_limited: false,
            is_retrans: false,
            prior_in_flight: 0,
            newest_sent: None,
        }
    }
}

impl RateSample {
    /// Packets per second, if the sample is valid.
    pub fn rate(&self) -> Option<f64> {
        (self.delivered >= 0 && self.interval > 0)
            .then(|| self.delivered as f64 * 1e9 / self.interval as f64)
    }
}

/// The connection's delivery accounting (the `tcp_sock` fields tcp_rate.c reads and writes).
#[derive(Debug, Clone, Default)]
pub struct DeliveryRate {
    base: i64,
    records: VecDeque<TxRecord>,
    /// Packets delivered so far (Linux `tp->delivered`).
    delivered: u64,
    delivered_mstamp: Option<Time>,
    first_tx_mstamp: Time,
    /// Linux `tp->app_limited`: 0 = not app-limited, else the `delivered` count at which the
    /// mark ends.
    app_limited: u64,
    /// Packets deemed lost so far (Linux `tp->lost`).
    lost: u64,
    min_rtt: Option<Time>,
    /// The last sample not app-limited, or the fastest app-limited one (Linux
    /// `rate_delivered`, `rate_interval_us`: TCP_INFO's delivery rate).
    rate_delivered: i64,
    rate_interval: i64,
    rs: RateSample,
}

impl DeliveryRate {
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    pub fn lost(&self) -> u64 {
        self.lost
    }

    pub fn delivered_mstamp(&self) -> Option<Time> {
        self.delivered_mstamp
    }

    pub fn is_app_limited(&self) -> bool {
        self.app_limited != 0
    }

    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }

    /// TCP_INFO's delivery rate, packets per second.
    pub fn delivery_rate(&self) -> Option<f64> {
        (self.rate_interval > 0)
            .then(|| self.rate_delivered as f64 * 1e9 / self.rate_interval as f64)
    }

    /// `tcp_rate_skb_sent`: packet `seq` leaves at `now` with `packets_out` packets sent and
    /// not cumulatively acknowledged before it.
    pub fn on_sent(&mut self, seq: i64, now: Time, packets_out: i64, retransmission: bool) {
        if packets_out <= 0 {
            self.first_tx_mstamp = now;
            self.delivered_mstamp = Some(now);
        }
        if seq < self.base {
            return;
        }
        let i = (seq - self.base) as usize;
        while self.records.len() <= i {
            self.records.push_back(TxRecord::default());
        }
        self.records[i] = TxRecord {
            delivered: self.delivered,
            delivered_mstamp: self.delivered_mstamp,
            first_tx_mstamp: self.first_tx_mstamp,
            is_app_limited: self.app_limited != 0,
            sent_at: now,
            retransmitted: retransmission || self.records[i].retransmitted,
        };
    }

    /// A new ACK arrives with `in_flight` packets in flight before it.
    pub fn begin_ack(&mut self, in_flight: i64) {
        self.rs = RateSample {
            prior_in_flight: in_flight,
            ..RateSample::default()
        };
    }

    /// `tcp_rate_skb_delivered` (and `tp->delivered += 1`): the ACK newly delivers `seq`,
    /// `sacked` if by a SACK block.
    pub fn on_delivered(&mut self, seq: i64, sacked: bool) {
        self.delivered += 1;
        self.rs.acked_sacked += 1;
        if seq < self.base {
            return;
        }
        let Some(r) = self.records.get_mut((seq - self.base) as usize) else {
            return;
        };
        if !r.retransmitted {
            // `ca_rtt_us`: from the most recently sent packet never retransmitted.
            self.rs.newest_sent = Some(self.rs.newest_sent.map_or(r.sent_at, |t| t.max(r.sent_at)));
        }
        let Some(stamp) = r.delivered_mstamp else {
            return;
        };
        if self.rs.prior_delivered == 0 || r.delivered > self.rs.prior_delivered {
            self.rs.prior_delivered = r.delivered;
            self.rs.prior_mstamp = Some(stamp);
            self.rs.is_app_limited = r.is_app_limited;
            self.rs.is_retrans = r.retransmitted;
            self.first_tx_mstamp = r.sent_at;
            self.rs.interval = r.sent_at as i64 - r.first_tx_mstamp as i64;
        }
        if sacked {
            r.delivered_mstamp = None;
        }
    }

    /// Every packet up to `cum` is acknowledged: their records go.
    pub fn on_cum_ack(&mut self, cum: i64) {
        if cum < self.base {
            return;
        }
        let n = ((cum - self.base + 1) as usize).min(self.records.len());
        self.records.drain(..n);
        self.base = cum + 1;
    }

    /// `tcp_rate_gen` at `now`, with `losses` packets newly deemed lost by this ACK.
    pub fn generate(&mut self, now: Time, losses: i64) -> &RateSample {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        if self.rs.acked_sacked > 0 {
            self.delivered_mstamp = Some(now);
        }
        self.lost += losses.max(0) as u64;
        self.rs.losses = losses;
        if let Some(sent) = self.rs.newest_sent {
            let rtt = now - sent;
            self.rs.rtt = Some(rtt);
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
        let Some(prior_mstamp) = self.rs.prior_mstamp else {
            self.rs.delivered = -1;
            self.rs.interval = -1;
            return &self.rs;
        };
        self.rs.delivered = (self.delivered - self.rs.prior_delivered) as i64;
        let snd = self.rs.interval;
        let ack = now as i64 - prior_mstamp as i64;
        self.rs.interval = snd.max(ack);
        self.rs.snd_interval = snd;
        self.rs.rcv_interval = ack;
        if self.rs.interval < self.min_rtt.map_or(0, |m| m as i64) {
            self.rs.interval = -1;
            return &self.rs;
        }
        if !self.rs.is_app_limited
            || self.rs.delivered as i128 * self.rate_interval as i128
                >= self.rate_delivered as i128 * self.rs.interval as i128
        {
            self.rate_delivered = self.rs.delivered;
            self.rate_interval = self.rs.interval;
        }
        &self.rs
    }

    /// The sample of the last ACK.
    pub fn sample(&self) -> &RateSample {
        &self.rs
    }

    /// `tcp_rate_check_app_limited`, with the sender's view: whether it has less than a
    /// packet left to send, `in_flight` (pipe), `cwnd`, and whether every lost packet has been
    /// retransmitted.
    pub fn check_app_limited(
        &mut self,
        nothing_to_send: bool,
        in_flight: i64,
        cwnd: i64,
        losses_repaired: bool,
    ) {
        if nothing_to_send && in_flight < cwnd && losses_repaired {
            self.mark_app_limited(in_flight);
        }
    }

    /// `tp->app_limited = (delivered + in_flight) ?: 1` (also BBR's ProbeRTT).
    pub fn mark_app_limited(&mut self, in_flight: i64) {
        self.app_limited = (self.delivered + in_flight.max(0) as u64).max(1);
    }

    /// Records kept (for memory checks).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.records.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    /// By hand: packets 0..=3 leave at 0, 1, 2, 3 ms (nothing outstanding at 0: the phase
    /// starts at 0; each records delivered 0, delivered_mstamp 0, first_tx 0).
    /// - ACK of 0 and 1 at 50 ms: all records say delivered 0, and Linux's
    ///   `!rs->prior_delivered` lets each replace the last while it is 0: packet 1's. Send
    ///   phase 1 - 0 = 1 ms, ACK phase 50 - 0 = 50 ms: 2 packets over 50 ms; RTT 50 - 1 = 49
    ///   ms; first_tx moves to 1 ms.
    /// - Packet 4 leaves at 50 ms (2 outstanding): delivered 2, delivered_mstamp 50 ms,
    ///   first_tx 1 ms.
    /// - SACK of 3 at 53 ms, one loss marked: packet 3's record (delivered 0): send phase 3
    ///   ms, ACK phase 53 ms, 3 - 0 = 3 packets.
    /// - ACK of 2..=4 at 100 ms (3 was SACKed: not delivered again): packet 4 has the highest
    ///   recorded delivered (2): send phase 50 - 1 = 49 ms, ACK phase 100 - 50 = 50 ms, 5 - 2
    ///   = 3 packets: 60 packets/s.
    #[test]
    fn samples_follow_tcp_rate_c_by_hand() {
        let mut d = DeliveryRate::default();
        for seq in 0..4 {
            d.on_sent(seq, seq as Time * MS, seq, false);
        }
        d.begin_ack(4);
        d.on_delivered(0, false);
        d.on_delivered(1, false);
        d.on_cum_ack(1);
        let rs = *d.generate(50 * MS, 0);
        assert_eq!((rs.delivered, rs.interval), (2, 50 * MS as i64));
        assert_eq!(
            (rs.snd_interval, rs.rcv_interval),
            (MS as i64, 50 * MS as i64)
        );
        assert_eq!(rs.rtt, Some(49 * MS));
        assert_eq!(d.delivered_mstamp(), Some(50 * MS));
        assert_eq!(d.len(), 2);

        // Packet 4 leaves at 50 ms with 2 outstanding: delivered 2, delivered_mstamp 50 ms,
        // first_tx 1 ms (packet 1's send, set by its delivery).
        d.on_sent(4, 50 * MS, 2, false);
        d.begin_ack(3);
        d.on_delivered(3, true);
        let rs = *d.generate(53 * MS, 1);
        assert_eq!((rs.delivered, rs.interval), (3, 53 * MS as i64));
        assert_eq!(rs.losses, 1);
        assert_eq!(d.lost(), 1);

        // The ACK of 2, 3 and 4 at 100 ms: 4 has the highest delivered (2): prior_mstamp 50
        // ms; send phase 50 - 3 ms (first_tx when 4 was sent: packet 1's delivery set it to 1
        // ms... no: packet 3's delivery at 53 ms moved it to 3 ms, after 4's send at 50 ms;
        // 4 recorded 1 ms): 49 ms; ACK phase 100 - 50 = 50 ms. 3 was SACKed: not counted
        // again. delivered 5 - 2 = 3.
        d.begin_ack(2);
        d.on_delivered(2, false);
        d.on_delivered(4, false);
        d.on_cum_ack(4);
        let rs = *d.generate(100 * MS, 0);
        assert_eq!(rs.prior_delivered, 2);
        assert_eq!(
            (rs.snd_interval, rs.rcv_interval),
            (49 * MS as i64, 50 * MS as i64)
        );
        assert_eq!((rs.delivered, rs.interval), (3, 50 * MS as i64));
        assert_eq!(d.delivered(), 5);
        assert_eq!(d.len(), 0);
        assert_eq!(rs.rate(), Some(60.0));
    }

    #[test]
    fn an_interval_below_the_minimum_rtt_is_invalid() {
        let mut d = DeliveryRate::default();
        d.on_sent(0, 0, 0, false);
        d.begin_ack(1);
        d.on_delivered(0, false);
        d.on_cum_ack(0);
        assert_eq!(d.generate(40 * MS, 0).interval, 40 * MS as i64);
        assert_eq!(d.min_rtt(), Some(40 * MS));
        // A retransmission's ACK 15 ms after the first sending's phase began: below the
        // 40 ms minimum RTT, invalid.
        d.on_sent(1, 45 * MS, 0, false);
        d.on_sent(1, 50 * MS, 1, true);
        d.begin_ack(1);
        d.on_delivered(1, false);
        let rs = *d.generate(60 * MS, 0);
        assert_eq!(rs.rtt, None, "a retransmission gives no RTT");
        assert_eq!(rs.interval, -1);
        assert!(rs.is_retrans);
        assert_eq!(rs.rate(), None);
    }

    #[test]
    fn app_limited_marks_samples_until_the_bubble_is_delivered() {
        let mut d = DeliveryRate::default();
        d.on_sent(0, 0, 0, false);
        d.on_sent(1, 0, 1, false);
        // Nothing more to send, pipe 2 < cwnd 10, no loss: app_limited = 0 + 2.
        d.check_app_limited(true, 2, 10, true);
        assert!(d.is_app_limited());
        d.on_sent(2, MS, 2, false); // sent while app-limited
        d.begin_ack(3);
        d.on_delivered(0, false);
        d.on_delivered(1, false);
        d.on_cum_ack(1);
        let rs = *d.generate(40 * MS, 0);
        assert!(!rs.is_app_limited, "0 and 1 were sent before the mark");
        assert!(d.is_app_limited(), "delivered 2 is not past the mark 2");
        d.begin_ack(1);
        d.on_delivered(2, false);
        d.on_cum_ack(2);
        let rs = *d.generate(41 * MS, 0);
        assert!(rs.is_app_limited, "2 was sent while app-limited");
        assert!(!d.is_app_limited(), "delivered 3 > 2: the mark clears");
        // cwnd-limited: no mark.
        d.check_app_limited(true, 10, 10, true);
        assert!(!d.is_app_limited());
    }
}
