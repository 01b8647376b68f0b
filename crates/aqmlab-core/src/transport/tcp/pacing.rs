//! Pacing: a sender's own timer that spaces its packets at a rate, as Linux's earliest
//! departure time (EDT) model does (net/ipv4/tcp_output.c, read for Linux 5.x/6.x):
//!
//! - `tcp_update_skb_after_send`: after each transmission the next departure time
//!   `tcp_wstamp_ns` moves on by `len / sk_pacing_rate`, from `max(tcp_wstamp_ns, now)`
//!   (`__tcp_transmit_skb` first raises it to the clock). If the send was late (the clock had
//!   passed the departure time: the flow was idle or window-limited), up to half of that
//!   packet's time is credited back ("take into account OS jitter": `len_ns -= min(len_ns /
//!   2, credit)`). The first 10 data packets of a connection are not paced ("Original sch_fq
//!   does not pace first 10 MSS", `data_segs_out >= 10`).
//! - `tcp_pacing_check`: a send is held while the departure time lies in the future, and
//!   the pacing timer (`tp->pacing_timer`, an hrtimer) is armed for it; when it fires
//!   (`tcp_pace_kick`) the sender sends what its window allows, one packet per departure
//!   time. `tcp_write_xmit` (new data) and `tcp_xmit_retransmit_queue` (repairs) both check;
//!   the RTO's retransmission and the loss probe do not (they go out at once), but move the
//!   departure time like any send.
//!
//! aqmlab models this with the departure time kept in the sender (Linux's TCP-internal pacing,
//! which is what it does without the fq qdisc; with fq the qdisc holds each packet until the
//! same time stamp, so the packets leave the host at the same times). Sizes are the packets'
//! wire sizes (`TcpConfig::data_size`) and rates bytes of wire size per second; Linux counts
//! payload in both (`skb->len` of a headerless skb, `mss_cache`), so the gap in packets, size
//! / rate, is the same.
//!
//! With `tcp.segmentation_offload = "linux_autosize"` (`tso.rs`) the unit of pacing is Linux's
//! skb of several segments: its packets leave back to back, the departure time moves by the
//! whole skb's length, and the "first 10" test counts the skb's segments first, as
//! `__tcp_transmit_skb` does (`none`, the default, keeps one packet per slot and counts before).
//!
//! The rate (`tcp.pacing = "on"`): Linux's `tcp_update_pacing_rate` (net/ipv4/tcp_input.c),
//! recomputed on each ACK: ratio x size x max(cwnd, packets_out) / srtt, with ratio
//! `tcp_pacing_ss_ratio` (200 %) while cwnd < ssthresh / 2 and `tcp_pacing_ca_ratio` (120 %)
//! otherwise; before the first RTT sample Linux does not divide by srtt (an unbounded rate):
//! no pacing. A controller may set its own rate instead ([`super::congestion::CongestionOps::pacing_rate`]).

use crate::sim::{LazyTimer, Time};

/// Timer number of the pacing timer (the RTO is 0, `overhead`'s delayed send 1).
pub const PACING_TIMER: u8 = 2;

/// Linux `sysctl_tcp_pacing_ss_ratio` (net/ipv4/tcp_ipv4.c default, percent).
pub const PACING_SS_RATIO: f64 = 2.0;
/// Linux `sysctl_tcp_pacing_ca_ratio` (percent 120).
pub const PACING_CA_RATIO: f64 = 1.2;
/// Data packets sent unpaced at the start of a connection (`data_segs_out >= 10`).
pub const UNPACED_FIRST_PACKETS: u64 = 10;

/// Whether the `rfc6675` sender paces (`tcp.pacing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pacing {
    /// No pacing unless the controller always paces (bbr): the window alone clocks the sends.
    #[default]
    Off,
    /// Pace at Linux's `tcp_update_pacing_rate` (or the controller's own rate).
    On,
}

/// What a pacing rate is computed from, at one ACK.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PacingInputs {
    pub cwnd: f64,
    pub ssthresh: i64,
    /// Packets sent and not cumulatively acknowledged (Linux `packets_out`).
    pub packets_out: i64,
    /// Smoothed RTT, 0 before the first sample.
    pub srtt: Time,
    /// Bytes of a data packet on the wire.
    pub packet_bytes: u32,
}

/// Linux's `tcp_update_pacing_rate`, in bytes per second; None before an RTT sample (no
/// pacing: Linux leaves the rate undivided, far above any link).
pub fn linux_pacing_rate(i: &PacingInputs) -> Option<f64> {
    if i.srtt == 0 {
        return None;
    }
    // `snd_cwnd < snd_ssthresh / 2` in integers, as Linux compares them.
    let cwnd = i.cwnd.floor() as i64;
    let ratio = if cwnd < i.ssthresh / 2 {
        PACING_SS_RATIO
    } else {
        PACING_CA_RATIO
    };
    let packets = (cwnd.max(i.packets_out).max(1)) as f64;
    Some(ratio * f64::from(i.packet_bytes) * packets / (i.srtt as f64 / 1e9))
}

/// A sender's pacing state: the next departure time and its timer. No allocation per
/// packet or event.
#[derive(Debug, Clone, Default)]
pub struct Pacer {
    /// Bytes per second; None = unpaced.
    rate: Option<f64>,
    /// Linux `tcp_wstamp_ns`: the earliest time the next packet may leave.
    next_departure: Time,
    /// Data packets sent so far (Linux `data_segs_out`).
    sent: u64,
    pub timer: LazyTimer,
    /// With `segmentation_offload = "linux_autosize"` (`tso.rs`): segments per skb
    /// (`tcp_tso_segs`); 0 = one packet per pacing slot, as before.
    tso_segs: u32,
    /// A send loop is running: its packets may join the open skb (Linux builds an skb
    /// within one `tcp_write_xmit` or `tcp_xmit_retransmit_queue`).
    in_burst: bool,
    /// The skb being built, if one is open.
    skb: Option<Skb>,
    min_rtt: Option<Time>,
}

/// An skb of several segments (`segmentation_offload = "linux_autosize"`).
#[derive(Debug, Clone, Copy)]
struct Skb {
    /// `tcp_wstamp_ns` after `__tcp_transmit_skb` raised it to the clock.
    start: Time,
    /// That raise (`tcp_update_skb_after_send`'s credit).
    credit: Time,
    segs: u32,
    bytes: u64,
}

impl Pacer {
    pub fn set_rate(&mut self, rate: Option<f64>) {
        self.rate = rate.filter(|r| r.is_finite() && *r > 0.0);
    }

    pub fn rate(&self) -> Option<f64> {
        self.rate
    }

    /// An RTT sample, for `tcp_min_rtt` (`tso.rs`'s RTT allowance).
    pub fn on_rtt_sample(&mut self, rtt: Time) {
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
    }

    /// The least RTT sampled (Linux `tcp_min_rtt`, whose 5-minute window outlasts a run).
    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }

    /// Linux `tcp_pacing_check`: whether a send at `now` must wait; then the time to wait
    /// for.
    /// A segment that joins the skb being built is not held: the pacing check comes before
    /// the skb (`tcp_write_xmit`).
    pub fn hold_until(&self, now: Time) -> Option<Time> {
        if self.joins_skb() {
            return None;
        }
        (self.next_departure > now).then_some(self.next_departure)
    }

    /// With `segmentation_offload = "linux_autosize"`: the skb size for the sends to come
    /// (`tcp_tso_segs`, `tso.rs`).
    pub fn set_tso_segs(&mut self, segs: u32) {
        self.tso_segs = segs.max(1);
    }

    pub fn tso_segs(&self) -> u32 {
        self.tso_segs
    }

    /// A send loop starts: its sends build skbs of `tso_segs` segments.
    pub fn begin_burst(&mut self) {
        self.in_burst = true;
        self.skb = None;
    }

    /// The send loop ended: the skb it built is complete.
    pub fn end_burst(&mut self) {
        self.in_burst = false;
        self.skb = None;
    }

    fn joins_skb(&self) -> bool {
        self.in_burst && self.skb.is_some_and(|k| k.segs < self.tso_segs)
    }

    /// A packet of `bytes` left at `now` (Linux `tcp_update_skb_after_send` with
    /// `__tcp_transmit_skb`'s raise of the departure time to the clock).
    pub fn on_sent(&mut self, now: Time, bytes: u32) {
        if self.tso_segs > 0 {
            self.on_segment_sent(now, bytes);
            return;
        }
        let prior = self.next_departure;
        self.next_departure = prior.max(now);
        let counted = self.sent;
        self.sent = self.sent.saturating_add(1);
        let Some(rate) = self.rate else {
            return;
        };
        if counted < UNPACED_FIRST_PACKETS {
            return;
        }
        let len_ns = (f64::from(bytes) * 1e9 / rate) as Time;
        let credit = self.next_departure - prior;
        self.next_departure += len_ns - (len_ns / 2).min(credit);
    }

    /// A segment of an skb left at `now` (`segmentation_offload = "linux_autosize"`): the
    /// departure time is the skb's start plus the whole skb's length at the rate, less the
    /// credit (`tcp_update_skb_after_send`), paced once `data_segs_out`, this skb's segments
    /// counted, reaches 10.
    fn on_segment_sent(&mut self, now: Time, bytes: u32) {
        self.sent = self.sent.saturating_add(1);
        let skb = match &mut self.skb {
            Some(k) if self.in_burst && k.segs < self.tso_segs => {
                k.segs += 1;
                k.bytes += u64::from(bytes);
                *k
            }
            _ => {
                let start = self.next_departure.max(now);
                let k = Skb {
                    start,
                    credit: start - self.next_departure,
                    segs: 1,
                    bytes: u64::from(bytes),
                };
                self.skb = Some(k);
                k
            }
        };
        self.next_departure = skb.start;
        let Some(rate) = self.rate else {
            return;
        };
        if self.sent < UNPACED_FIRST_PACKETS {
            return;
        }
        let len_ns = (skb.bytes as f64 * 1e9 / rate) as Time;
        self.next_departure += len_ns - (len_ns / 2).min(skb.credit);
    }

    /// The next departure time (for tests and the time series).
    pub fn next_departure(&self) -> Time {
        self.next_departure
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    #[test]
    fn linux_rule_is_200_percent_in_early_slow_start_then_120() {
        let mut i = PacingInputs {
            cwnd: 10.0,
            ssthresh: 100,
            packets_out: 4,
            srtt: 100 * MS,
            packet_bytes: 1500,
        };
        // 2 x 1500 x 10 / 0.1 s
        assert_eq!(linux_pacing_rate(&i), Some(300_000.0));
        i.cwnd = 50.0; // 50 < 100 / 2 is false: 120 %
        assert_eq!(linux_pacing_rate(&i), Some(1.2 * 1500.0 * 50.0 / 0.1));
        i.packets_out = 60; // max(cwnd, packets_out)
        assert!((linux_pacing_rate(&i).unwrap() - 1.2 * 1500.0 * 60.0 / 0.1).abs() < 1e-6);
        i.srtt = 0;
        assert_eq!(linux_pacing_rate(&i), None, "no RTT sample: no pacing");
    }

    #[test]
    fn departures_are_spaced_by_size_over_rate_after_the_first_ten() {
        let mut p = Pacer::default();
        p.set_rate(Some(1500.0 * 1000.0)); // 1000 packets/s: 1 ms each
        for _ in 0..10 {
            assert_eq!(p.hold_until(0), None);
            p.on_sent(0, 1500);
        }
        assert_eq!(p.next_departure(), 0, "the first 10 are not paced");
        let mut now = 0;
        for k in 0..5 {
            assert_eq!(p.hold_until(now), None);
            p.on_sent(now, 1500);
            assert_eq!(p.next_departure(), (k + 1) * MS);
            assert_eq!(p.hold_until(now), Some((k + 1) * MS));
            now = p.next_departure();
        }
    }

    #[test]
    fn a_late_send_is_credited_at_most_half_a_packet() {
        let mut p = Pacer {
            sent: 10,
            ..Pacer::default()
        };
        p.set_rate(Some(1_000_000.0)); // 1000 B: 1 ms
        p.on_sent(0, 1000);
        assert_eq!(p.next_departure(), MS);
        // Sent 0.2 ms late: 0.2 ms credited.
        p.on_sent(MS + MS / 5, 1000);
        assert_eq!(p.next_departure(), 2 * MS);
        // Sent 5 ms late: at most half the packet's time is credited.
        p.on_sent(7 * MS, 1000);
        assert_eq!(p.next_departure(), 7 * MS + MS / 2);
    }

    #[test]
    fn unpaced_sends_only_track_the_clock() {
        let mut p = Pacer::default();
        p.set_rate(None);
        for t in 0..20 {
            p.on_sent(t * MS, 1500);
            assert_eq!(p.hold_until(t * MS), None);
        }
        p.set_rate(Some(f64::INFINITY));
        assert_eq!(p.rate(), None);
    }
}
