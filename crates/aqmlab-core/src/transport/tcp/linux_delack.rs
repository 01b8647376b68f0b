//! Linux's receiver-side ACK timing, as options of the sink's delayed ACK (net/ipv4/
//! tcp_input.c, tcp_output.c, tcp_timer.c and include/net/tcp.h, v6.1; the same in 6.x
//! mainline). Both are off by default: the sink is then ns-2's DelAck (every second packet,
//! or after a fixed `delayed_ack_timeout`).
//!
//! `tcp.quick_ack = true`: the ACKs Linux sends at once where RFC 5681 would delay them.
//! - Quick-ACK mode (`tcp_incr_quickack`, `tcp_enter_quickack_mode`): the next
//!   `min(max(rcv_wnd / (2 MSS), 2), max)` ACKs of received data go out at once
//!   (`__tcp_ack_snd_check`: `tcp_in_quickack_mode`); each ACK sent uses one up and the last
//!   one resets the ATO to its minimum (`tcp_dec_quickack_mode`, from `tcp_event_ack_sent`).
//!   It is entered with max = `TCP_MAX_QUICKACKS` (16) on the first data packet and after an
//!   idle gap longer than the receiver's RTO (`tcp_event_data_recv`), and on a duplicate of
//!   data already received, a sign that an ACK was lost or late (`tcp_data_queue`'s old-data
//!   branch, `tcp_send_dupack`: "DELAYEDACKLOST"); with max = 2 on a CE mark when no CE is
//!   awaiting the sender's CWR (`__tcp_ecn_check_ce`: "sender can have a very low cwnd").
//!   rcv_wnd is the advertised `window`.
//! - A data packet carrying CWR is ACKed at once (`tcp_ecn_accept_cwr`: ICSK_ACK_NOW).
//!
//! `tcp.rcv_window_growth = "linux"`: the quick ACK `tcp_grow_window` (net/ipv4/tcp_input.c,
//! from `tcp_event_data_recv` for an in-order segment of 128 bytes or more, and from
//! `tcp_data_queue_ofo` for an out-of-order one) adds, `icsk_ack.quick |= 1`, for each segment
//! that raises the receiver's `rcv_ssthresh`: a Linux receiver ACKs segment by segment while
//! its window still grows, which is most of a transfer's slow start.
//! - The start (`tcp_select_initial_window`, `tcp_init_buffer_space`; `rcv_space.rs`):
//!   `rcv_ssthresh` = `window_clamp` = 64 KB less one segment (64,088 bytes for a 1448-byte
//!   MSS, the reference kernel's value), so there is no room at first.
//! - Each data segment adds max(2 advmss, 2 len), at most the room min(window_clamp,
//!   tcp_space()) - rcv_ssthresh. Receive-buffer autotuning (`tcp_rcv_space_adjust`,
//!   `rcv_space.rs`) raises both once per receiver RTT from the bytes the application read in
//!   the last: the room opens a round trip at a time, the segments that use it are ACKed one
//!   by one and the rest in pairs (measured in the reference kernel, docs/readings.md).
//! - `__tcp_grow_window`'s bound (growth only while `rcv_ssthresh` <= tcp_win_from_space(
//!   tcp_rmem[2]) / 2) applies only to a segment whose truesize is above about twice its
//!   length: an in-order skb counts only its page fragments (`truesize_adjust`), so only an
//!   out-of-order segment shorter than the skb's head meets it (`rcv_space.rs`).
//! - The advertised window stays `window`: Linux advertises at most `rcv_ssthresh`
//!   (`__tcp_select_window`), which is not modelled; in slow start `rcv_ssthresh` (+2 per
//!   segment while there is room) mostly stays ahead of cwnd (+1 per segment). Nor is
//!   `__tcp_select_window`'s reset of the quick ACKs when less than half the buffer is free.
//!
//! `tcp.rcv_window_growth = "linux_no_autotuning"`: the growth above from the initial window
//! (64 KB rounded down to whole segments) with no room but `window` and the bound at half of
//! it: every segment of a slow start is ACKed singly (the first model, kept for comparison).
//!
//! Out-of-order packets and the packet that fills a hole are ACKed at once with or without
//!   this option (the sink's RFC 5681 4.2 rule; Linux: the out-of-order queue in
//!   `__tcp_ack_snd_check` and ICSK_ACK_NOW in `tcp_data_queue`). Linux's SACK compression
//!   (`tcp_comp_sack_nr`: after three immediate duplicate ACKs, up to 44 held for min(1 ms,
//!   RTT / 20)) is not modelled.
//!
//! `tcp.delayed_ack_ato = "adaptive"`: the delayed-ACK timeout follows the arrivals (the ATO,
//! `icsk_ack.ato`), with `delayed_ack_timeout` as its minimum (`TCP_ATO_MIN`, 40 ms).
//! - On each in-order data packet (`tcp_event_data_recv`), with m the time since the last:
//!   the first sets ATO = minimum; m <= minimum / 2 gives ATO = ATO / 2 + minimum / 2; m <
//!   ATO gives ATO = min(ATO / 2 + m, RTO).
//! - A delayed ACK waits ATO, or, when ATO is above the minimum, min(ATO, max(SRTT, minimum))
//!   (`tcp_send_delayed_ack`; its 500 ms bound is above both), and never more than
//!   `TCP_DELACK_MAX` (200 ms, `icsk_delack_max`).
//! - When the timer fires the ATO doubles, up to the RTO (`tcp_delack_timer_handler`).
//!
//! The receiver's SRTT and RTO are those of the handshake (a receiver that sends no data
//! takes no other RTT sample): the handshake is not simulated, so the SRTT is taken as twice
//! the first data packet's transit time (a symmetric path, no queue yet), and the RTO as
//! Linux computes it from one sample (`tcp_rtt_estimator`, `__tcp_set_rto`): SRTT + max(2
//! SRTT, min RTO), at most the max RTO. Time is continuous, not in jiffies.

pub use super::config::{DelayedAckAto, RcvWindowGrowth};
use super::rcv_space::{skb_truesize, win_from_space, RcvSpace};
use super::TcpConfig;
use crate::sim::Time;

/// `TCP_MAX_QUICKACKS` (include/net/tcp.h).
pub const MAX_QUICKACKS: u32 = 16;
/// Quick ACKs after a CE mark (`__tcp_ecn_check_ce`).
pub const CE_QUICKACKS: u32 = 2;
/// `TCP_DELACK_MAX` (include/net/tcp.h): the longest delayed-ACK timeout.
pub const DELACK_MAX: Time = 200_000_000;
/// `tcp_send_delayed_ack`'s bound on a slow receiver's ATO (HZ / 2).
pub const SLOW_ATO_MAX: Time = 500_000_000;

#[derive(Debug, Clone)]
pub struct LinuxDelayedAck {
    quick_acks: bool,
    adaptive: bool,
    /// `TCP_ATO_MIN` (= `TCP_DELACK_MIN`): `delayed_ack_timeout`.
    ato_min: Time,
    /// `rcv_wnd / (2 MSS)`, in packets.
    half_window: u32,
    min_rto: Time,
    max_rto: Time,
    /// ACKs still to send at once (`icsk_ack.quick`).
    quick: u32,
    /// `icsk_ack.ato`; None before the first data packet.
    ato: Option<Time>,
    /// The last in-order data arrival (`icsk_ack.lrcvtime`).
    last_arrival: Time,
    /// The receiver's SRTT and RTO (module docs).
    srtt: Time,
    rto: Time,
    /// With `rcv_window_growth = "linux"`: `rcv_ssthresh` and its bound, in bytes.
    growth: Option<RcvSsthresh>,
}

/// `tcp_sock.rcv_ssthresh` and where `tcp_grow_window` stops (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RcvSsthresh {
    pub rcv_ssthresh: u64,
    /// `__tcp_grow_window`'s: growth while `rcv_ssthresh` <= this (`linux_no_autotuning`).
    pub bound: u64,
    /// `tcp_grow_window`'s room: `rcv_ssthresh` never above this (`window`;
    /// `linux_no_autotuning`).
    pub clamp: u64,
    pub mss: u64,
    /// `rcv_window_growth = "linux"`: the buffer, clamp and receiver RTT that autotuning
    /// keeps, which give the room.
    pub space: Option<RcvSpace>,
}

use super::rcv_space::TCP_RMEM_DEFAULT;
/// `tcp_grow_window` skips segments shorter than this (`tcp_event_data_recv`).
const GROW_MIN_LEN: u64 = 128;

impl RcvSsthresh {
    fn new(cfg: &TcpConfig) -> Self {
        let mss = u64::from(cfg.packet_size);
        let clamp = u64::from(cfg.window) * mss;
        if cfg.rcv_window_growth == RcvWindowGrowth::Linux {
            // The window stands for tcp_win_from_space(tcp_rmem[2]).
            let (space, rcv_ssthresh) = RcvSpace::new(mss, 2 * clamp);
            return RcvSsthresh {
                rcv_ssthresh,
                bound: clamp / 2,
                clamp,
                mss,
                space: Some(space),
            };
        }
        // tcp_win_from_space with tcp_adv_win_scale 1: half the space is window.
        let space = TCP_RMEM_DEFAULT / 2;
        let initial = if space > mss {
            space / mss * mss
        } else {
            space
        };
        RcvSsthresh {
            rcv_ssthresh: initial.min(clamp),
            bound: clamp / 2,
            clamp,
            mss,
            space: None,
        }
    }

    /// `tcp_grow_window` for a data segment of `len` payload bytes, with `queued` skbs
    /// unread (`tcp_space`), in order or not (`truesize_adjust`): whether it grew.
    fn grow(&mut self, len: u64, queued: u64, in_order: bool) -> bool {
        if len < GROW_MIN_LEN {
            return false;
        }
        let Some(space) = &self.space else {
            let room = self.clamp.saturating_sub(self.rcv_ssthresh);
            if room == 0 || self.rcv_ssthresh > self.bound {
                return false;
            }
            // __tcp_grow_window's test is <= bound, so the last step passes it by up to one
            // increment, as in the kernel.
            self.rcv_ssthresh += room.min((2 * self.mss).max(2 * len));
            return true;
        };
        let room = space
            .window_clamp
            .min(space.tcp_space(queued, len))
            .saturating_sub(self.rcv_ssthresh);
        if room == 0 {
            return false;
        }
        // truesize_adjust: an in-order skb whose payload is all in page fragments (headlen 0
        // once the headers are pulled) counts only its fragments, its length; an out-of-order
        // one (adjust = false) its whole truesize.
        let truesize = if in_order { len } else { skb_truesize(len) };
        let incr = if win_from_space(truesize) <= len {
            2 * self.mss
        } else {
            // __tcp_grow_window: halve both until the segment fits or rcv_ssthresh passes.
            let (mut t, mut w) = (
                win_from_space(truesize) >> 1,
                win_from_space(space.rmem_max) >> 1,
            );
            let mut incr = 0;
            while self.rcv_ssthresh <= w {
                if t <= len {
                    incr = 2 * self.mss;
                    break;
                }
                t >>= 1;
                w >>= 1;
            }
            incr
        };
        if incr == 0 {
            return false;
        }
        self.rcv_ssthresh += room.min(incr.max(2 * len));
        true
    }
}

impl LinuxDelayedAck {
    /// None when neither option is on: the sink is ns-2's.
    pub fn new(cfg: &TcpConfig) -> Option<Self> {
        let adaptive = cfg.delayed_ack_ato == DelayedAckAto::Adaptive;
        let growth =
            (cfg.rcv_window_growth != RcvWindowGrowth::Fixed).then(|| RcvSsthresh::new(cfg));
        (cfg.quick_ack || adaptive || growth.is_some()).then_some(LinuxDelayedAck {
            quick_acks: cfg.quick_ack,
            adaptive,
            ato_min: cfg.delayed_ack_timeout.0,
            half_window: cfg.window / 2,
            min_rto: cfg.min_rto.0,
            max_rto: cfg.max_rto.0,
            quick: 0,
            ato: None,
            last_arrival: 0,
            srtt: 0,
            rto: cfg.initial_rto.0,
            growth,
        })
    }

    /// `tcp_incr_quickack`.
    fn incr_quickack(&mut self, max: u32) {
        if !self.quick_acks {
            return;
        }
        let n = if self.half_window == 0 {
            2
        } else {
            self.half_window
        };
        self.quick = self.quick.max(n.min(max));
    }

    /// `tcp_enter_quickack_mode`.
    fn enter_quickack_mode(&mut self, max: u32) {
        self.incr_quickack(max);
        if self.ato.is_some() {
            self.ato = Some(self.ato_min);
        }
    }

    /// A data packet (new, old or out of order) of `len` payload bytes arrived at `now`
    /// echoing `tsecr` (`tcp_rcv_rtt_measure_ts`, from `tcp_rcv_established` before the data
    /// is queued).
    pub fn on_data(&mut self, now: Time, tsecr: Time, len: u64) {
        if let Some(s) = self.growth.as_mut().and_then(|g| g.space.as_mut()) {
            s.measure_ts(now, tsecr, len);
        }
    }

    /// An in-order data packet of `len` payload bytes, ending at byte `end`, arrived at
    /// `now`, `transit` after it was sent, with `held` packets waiting out of order before
    /// it came (`tcp_event_data_recv`: the receiver's window RTT measure, the ATO, then
    /// `tcp_grow_window`).
    pub fn on_in_order_data(&mut self, now: Time, transit: Time, len: u64, end: u64, held: u64) {
        if let Some(g) = self.growth.as_mut() {
            let wnd = g.rcv_ssthresh;
            if let Some(s) = g.space.as_mut() {
                s.measure_window(now, end, wnd);
            }
        }
        self.update_ato(now, transit);
        if self
            .growth
            .as_mut()
            .is_some_and(|g| g.grow(len, held + 1, true))
        {
            // `icsk_ack.quick |= 1`: this segment's ACK goes out at once.
            self.quick |= 1;
        }
    }

    /// A new out-of-order packet of `len` payload bytes arrived with `held` others waiting
    /// (`tcp_data_queue_ofo`'s `tcp_grow_window`, before the packet is charged; its ACK goes
    /// out at once anyway, and consumes the quick ACK).
    pub fn on_out_of_order_data(&mut self, len: u64, held: u64) {
        if self
            .growth
            .as_mut()
            .is_some_and(|g| g.grow(len, held, false))
        {
            self.quick |= 1;
        }
    }

    /// The application read `bytes` more at `now` (`tcp_recvmsg` -> `tcp_rcv_space_adjust`).
    pub fn on_copied(&mut self, now: Time, bytes: u64) {
        if let Some(s) = self.growth.as_mut().and_then(|g| g.space.as_mut()) {
            s.on_copied(now, bytes);
        }
    }

    /// `rcv_ssthresh`, with `rcv_window_growth = "linux"`.
    pub fn rcv_ssthresh(&self) -> Option<RcvSsthresh> {
        self.growth
    }

    fn update_ato(&mut self, now: Time, transit: Time) {
        match self.ato {
            None => {
                self.srtt = 2 * transit;
                self.rto = (self.srtt + (2 * self.srtt).max(self.min_rto)).min(self.max_rto);
                self.incr_quickack(MAX_QUICKACKS);
                self.ato = Some(self.ato_min);
            }
            Some(ato) => {
                let m = now.saturating_sub(self.last_arrival);
                if m <= self.ato_min / 2 {
                    self.ato = Some(ato / 2 + self.ato_min / 2);
                } else if m < ato {
                    self.ato = Some((ato / 2 + m).min(self.rto));
                } else if m > self.rto {
                    // "Too long gap. Apparently sender failed to restart window."
                    self.incr_quickack(MAX_QUICKACKS);
                }
            }
        }
        self.last_arrival = now;
    }

    /// A packet wholly below the next expected one arrived again.
    pub fn on_old_data(&mut self) {
        self.enter_quickack_mode(MAX_QUICKACKS);
    }

    /// A CE mark arrived while none was awaiting the sender's CWR.
    pub fn on_new_ce(&mut self) {
        self.enter_quickack_mode(CE_QUICKACKS);
    }

    /// Whether the ACK of an in-order packet goes out at once: in quick-ACK mode, or for a
    /// packet carrying CWR.
    pub fn ack_now(&self, cwr: bool) -> bool {
        // `quick` is raised only by the quick-ACK mode (`quick_ack`) and by the window's
        // growth (`rcv_window_growth`).
        self.quick > 0 || (self.quick_acks && cwr)
    }

    /// An ACK of received data was sent (`tcp_dec_quickack_mode`).
    pub fn on_ack_sent(&mut self) {
        if self.quick > 0 {
            self.quick -= 1;
            if self.quick == 0 && self.ato.is_some() {
                self.ato = Some(self.ato_min);
            }
        }
    }

    /// How long an ACK now held may wait (`tcp_send_delayed_ack`).
    pub fn delay(&self) -> Time {
        let Some(mut ato) = self.ato.filter(|_| self.adaptive) else {
            return self.ato_min;
        };
        if ato > self.ato_min {
            let rtt = self.srtt.max(self.ato_min);
            ato = ato.min(rtt.min(SLOW_ATO_MAX));
        }
        ato.min(DELACK_MAX)
    }

    /// The delayed-ACK timer fired with an ACK held (`tcp_delack_timer_handler`).
    pub fn on_delack_timeout(&mut self) {
        if let Some(ato) = self.ato.filter(|_| self.adaptive) {
            self.ato = Some((2 * ato).min(self.rto));
        }
    }

    /// The ATO and the quick ACKs left, for tests.
    #[cfg(test)]
    pub fn ato_and_quick(&self) -> (Option<Time>, u32) {
        (self.ato, self.quick)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Duration;

    const MS: Time = 1_000_000;

    fn cfg(quick_ack: bool, ato: DelayedAckAto) -> TcpConfig {
        TcpConfig {
            delayed_ack: true,
            delayed_ack_timeout: Duration(40 * MS),
            quick_ack,
            delayed_ack_ato: ato,
            window: 2048,
            ..TcpConfig::default()
        }
    }

    #[test]
    fn off_is_none() {
        assert!(LinuxDelayedAck::new(&cfg(false, DelayedAckAto::Fixed)).is_none());
    }

    #[test]
    fn tcp_incr_quickack_gives_16_quick_acks_at_the_start_and_after_a_duplicate() {
        // net/ipv4/tcp_input.c, tcp_event_data_recv (first packet) -> tcp_incr_quickack(16):
        // min(rcv_wnd / (2 MSS), 16) = min(1024, 16); tcp_dec_quickack_mode per ACK sent.
        let mut d = LinuxDelayedAck::new(&cfg(true, DelayedAckAto::Fixed)).unwrap();
        d.on_in_order_data(100 * MS, 22 * MS, 1000, 1000, 0);
        for i in 0..16 {
            assert!(d.ack_now(false), "ACK {i} is quick");
            d.on_ack_sent();
        }
        assert!(!d.ack_now(false), "the 17th may be delayed");
        // tcp_data_queue's old-data branch -> tcp_enter_quickack_mode(16).
        d.on_old_data();
        assert_eq!(d.ato_and_quick().1, 16);
        // __tcp_ecn_check_ce -> tcp_enter_quickack_mode(2) does not lower a larger count.
        d.on_new_ce();
        assert_eq!(d.ato_and_quick().1, 16);
        // tcp_ecn_accept_cwr: a CWR packet is ACKed at once.
        let mut e = LinuxDelayedAck::new(&cfg(true, DelayedAckAto::Fixed)).unwrap();
        e.on_in_order_data(0, 22 * MS, 1000, 1000, 0);
        for _ in 0..16 {
            e.on_ack_sent();
        }
        assert!(!e.ack_now(false) && e.ack_now(true));
        e.on_new_ce();
        assert_eq!(e.ato_and_quick().1, 2);
        // A small window: rcv_wnd / (2 MSS) quick ACKs (10 / 2 = 5); 0 gives 2.
        let small = LinuxDelayedAck::new(&TcpConfig {
            window: 10,
            ..cfg(true, DelayedAckAto::Fixed)
        });
        let mut small = small.unwrap();
        small.on_in_order_data(0, MS, 1000, 1000, 0);
        assert_eq!(small.ato_and_quick().1, 5);
        let mut one = LinuxDelayedAck::new(&TcpConfig {
            window: 1,
            ..cfg(true, DelayedAckAto::Fixed)
        })
        .unwrap();
        one.on_in_order_data(0, MS, 1000, 1000, 0);
        assert_eq!(one.ato_and_quick().1, 2);
    }

    #[test]
    fn tcp_event_data_recv_adapts_the_ato_to_the_arrivals() {
        // net/ipv4/tcp_input.c, tcp_event_data_recv with TCP_ATO_MIN = 40 ms; the receiver's
        // SRTT from the first packet's 22 ms transit is 44 ms, its RTO 44 + max(88, 200) =
        // 244 ms.
        let mut d = LinuxDelayedAck::new(&cfg(false, DelayedAckAto::Adaptive)).unwrap();
        let mut now = 0;
        let mut arrive = |d: &mut LinuxDelayedAck, gap: Time| {
            now += gap;
            d.on_in_order_data(now, 22 * MS, 1000, 1000, 0);
            d.ato_and_quick().0.unwrap()
        };
        assert_eq!(arrive(&mut d, 0), 40 * MS, "the first packet: TCP_ATO_MIN");
        assert_eq!(d.rto, 244 * MS);
        // m = 30 ms < ATO: ATO / 2 + m = 20 + 30 = 50 ms; then m = 45 < 50: 25 + 45 = 70 ms.
        assert_eq!(arrive(&mut d, 30 * MS), 50 * MS);
        assert_eq!(arrive(&mut d, 45 * MS), 70 * MS);
        // m = 1 ms <= 20 ms: ATO / 2 + 20 = 35 + 20 = 55, then 27.5 + 20 = 47.5 ms.
        assert_eq!(arrive(&mut d, MS), 55 * MS);
        assert_eq!(arrive(&mut d, MS), 47_500_000);
        // m = 240 ms: neither below the ATO nor above the RTO (244 ms): unchanged.
        assert_eq!(arrive(&mut d, 240 * MS), 47_500_000);
        // The wait: ATO 47.5 > 40 ms: min(ATO, max(SRTT 44, 40)) = 44 ms.
        assert_eq!(d.delay(), 44 * MS);
        // tcp_delack_timer_handler: the timer fired, ATO doubles to 95, then 190, then the
        // RTO 244; the wait stays min(ATO, SRTT) = 44 ms (TCP_DELACK_MAX 200 ms above it).
        d.on_delack_timeout();
        assert_eq!(d.ato_and_quick().0, Some(95 * MS));
        d.on_delack_timeout();
        d.on_delack_timeout();
        assert_eq!(d.ato_and_quick().0, Some(244 * MS));
        assert_eq!(d.delay(), 44 * MS);
        // m = 100 ms < ATO 244: ATO = 122 + 100 = 222 ms, capped at the RTO (it is below).
        assert_eq!(arrive(&mut d, 100 * MS), 222 * MS);
        // A long path: SRTT 400 ms (200 ms transit): the wait is capped at 200 ms.
        let mut far = LinuxDelayedAck::new(&cfg(false, DelayedAckAto::Adaptive)).unwrap();
        far.on_in_order_data(0, 200 * MS, 1000, 1000, 0);
        assert_eq!(far.rto, 1200 * MS);
        far.on_delack_timeout();
        far.on_delack_timeout();
        far.on_delack_timeout();
        assert_eq!(far.ato_and_quick().0, Some(320 * MS));
        assert_eq!(far.delay(), DELACK_MAX);
        // Fixed: always delayed_ack_timeout, and the timer changes nothing.
        let mut fixed = LinuxDelayedAck::new(&cfg(true, DelayedAckAto::Fixed)).unwrap();
        fixed.on_in_order_data(0, 22 * MS, 1000, 1000, 0);
        fixed.on_delack_timeout();
        assert_eq!(fixed.delay(), 40 * MS);
    }

    #[test]
    fn tcp_dec_quickack_mode_resets_the_ato_when_the_quick_acks_run_out() {
        // include/net/tcp.h, tcp_dec_quickack_mode: "Leaving quickack mode we deflate ATO".
        let mut d = LinuxDelayedAck::new(&cfg(true, DelayedAckAto::Adaptive)).unwrap();
        d.on_in_order_data(0, 22 * MS, 1000, 1000, 0);
        d.on_in_order_data(30 * MS, 22 * MS, 1000, 1000, 0);
        assert_eq!(d.ato_and_quick(), (Some(50 * MS), 16));
        for _ in 0..15 {
            d.on_ack_sent();
        }
        assert_eq!(d.ato_and_quick(), (Some(50 * MS), 1));
        d.on_ack_sent();
        assert_eq!(d.ato_and_quick(), (Some(40 * MS), 0));
        // An idle gap longer than the RTO (244 ms) starts 16 quick ACKs again.
        d.on_in_order_data(300 * MS, 22 * MS, 1000, 1000, 0);
        assert_eq!(d.ato_and_quick().1, 16);
    }

    #[test]
    fn autotuning_opens_the_room_a_round_trip_at_a_time() {
        // rcv_window_growth = "linux", MSS 1448, window 687 (tcp_rmem[2] = 2 x 687 x 1448),
        // no quick-ACK mode, so that only tcp_grow_window's quick |= 1 makes an ACK immediate.
        // The arithmetic of the buffer is in rcv_space.rs's tests; here its effect on the
        // ACKs. Segment k arrives at 100 + k ms (k < 10), 130 + k ms (10 <= k < 30), then
        // every 0.5 ms from 180 ms (all within the third round trip); round 1 echoes an ACK of 60 ms, round 2 one of 101 ms: the receiver's
        // RTT is 40 ms throughout.
        let c = TcpConfig {
            packet_size: 1448,
            window: 687,
            rcv_window_growth: RcvWindowGrowth::Linux,
            ..cfg(false, DelayedAckAto::Fixed)
        };
        let mut d = LinuxDelayedAck::new(&c).unwrap();
        let segment = |d: &mut LinuxDelayedAck, k: u64| {
            let at = match k {
                0..=9 => (100 + k) * MS,
                10..=29 => (130 + k) * MS,
                _ => 180 * MS + (k - 30) * MS / 2,
            };
            let tsecr = if k < 10 { 60 * MS } else { 101 * MS };
            d.on_data(at, tsecr, 1448);
            d.on_in_order_data(at, 20 * MS, 1448, (k + 1) * 1448, 0);
            let quick = d.ack_now(false);
            if quick {
                d.on_ack_sent();
            }
            d.on_copied(at, 1448);
            (quick, d.rcv_ssthresh().unwrap().rcv_ssthresh)
        };
        // Round 1: rcv_ssthresh 64,088 = window_clamp; tcp_space = 64,172: no room, no quick
        // ACK (the old model, without the room, grew and ACKed each of these at once).
        for k in 0..10 {
            assert_eq!(segment(&mut d, k), (false, 64_088), "segment {k}");
        }
        // Segment 10 (140 ms) still finds no room; its copy raises the buffer to 131,400
        // (11 segments in 40 ms): tcp_space 64,336.
        assert_eq!(segment(&mut d, 10), (false, 64_088));
        // Segment 11 grows rcv_ssthresh by the 248 bytes of room: ACKed at once; 12 finds
        // none.
        assert_eq!(segment(&mut d, 11), (true, 64_336));
        assert_eq!(segment(&mut d, 12), (false, 64_336));
        for k in 13..30 {
            assert_eq!(segment(&mut d, k), (false, 64_336), "segment {k}");
        }
        // Segment 30 (180 ms): its copy completes 20 segments in 40 ms: rcvbuf 429,240,
        // tcp_space 213,256: a room of 148,920, 51 segments of 2 x 1448 and 1224 bytes, each
        // ACKed at once; then none until the next round trip's copies raise the buffer.
        assert_eq!(segment(&mut d, 30), (false, 64_336));
        for k in 31..82 {
            let grown = 64_336 + (k - 30) * 2896;
            assert_eq!(segment(&mut d, k), (true, grown), "segment {k}");
        }
        assert_eq!(segment(&mut d, 82), (true, 213_256));
        assert_eq!(segment(&mut d, 83), (false, 213_256));
    }
}
