//! The one-way TCP receiver, as ns-2 Agent/TCPSink (tcp/tcp-sink.cc: `Acker`), its
//! Agent/TCPSink/DelAck (delayed ACKs, RFC 5681 4.2) and Agent/TCPSink/Sack1 (SACK blocks,
//! RFC 2018), with the ECN echo of RFC 3168 6.1.3, or DCTCP's exact echo.
//!
//! DCTCP's echo (RFC 8257 section 3.2; Alizadeh et al., SIGCOMM 2010, section 3.1 and Fig. 10;
//! Linux `dctcp_ece_ack_update`, include/net/tcp_dctcp.h, called through
//! `tcp_ca_event(CA_EVENT_ECN_IS_CE / _NO_CE)` from `__tcp_ecn_check_ce`, net/ipv4/tcp_input.c),
//! on whenever the sender's controller reads the echo as a fraction (`TcpConfig::
//! exact_ce_echo`): a two-state machine, the state being the CE bit of the last data packet
//! received. Every ACK carries ECE = the state, so that each ACK's ECE is the CE state of the
//! packets it covers. When a packet's CE differs from the state: an ACK being held by the
//! delayed-ACK timer is sent first, for the packets received so far and with the old state
//! (Linux: `__tcp_send_ack(sk, prior_rcv_nxt)` with DEMAND_CWR set to the old state), then
//! the state changes and this packet is ACKed at once (`ICSK_ACK_NOW`). No latching and no
//! CWR: a CWR bit changes nothing in the echo (Linux `tcp_ecn_accept_cwr` clears DEMAND_CWR,
//! and `dctcp_ece_ack_update` sets it again from the packet's own CE). Linux runs the check
//! on new data, in order (`tcp_event_data_recv`) or not (`tcp_data_queue_ofo`), not on a
//! duplicate of delivered data (`tcp_data_queue`'s out-of-window path), and only for ECT or
//! CE packets: so does this sink. Linux's 2 quick ACKs on a CE mark (`tcp_enter_quickack_mode`
//! when DEMAND_CWR was not set) never happen under DCTCP, whose event has just set
//! DEMAND_CWR; they are not given here either.
//!
//! Accurate ECN (`tcp.ecn_feedback = "accecn"`, RFC 9768; `accecn.rs`) replaces both: the
//! receiver counts CE packets and ECN bytes, every ACK carries the count's ACE field and, as
//! `tcp.accecn_option` says, the AccECN option; a change of codepoint ACKs at once; CWR is not
//! read and a CE mark gives no quick ACKs (Linux's are for RFC 3168 only: `tcp_ecn_accept_cwr`,
//! `tcp_data_ecn_check` test `tcp_ecn_mode_rfc3168`).
//!
//! Parameters read (TcpConfig): variant (SACK blocks only for `sack`), packet_size (payload
//! counted as goodput), ack_size, delayed_ack, delayed_ack_timeout, and Linux's ACK timing
//! (`quick_ack`, `delayed_ack_ato`, `rcv_window_growth`, `linux_delack.rs`; with them window,
//! min_rto, max_rto).
//!
//! The ACK carries the highest in-order sequence number received (ns-2 style: next expected
//! minus one) and echoes the `sent_at` of the packet that triggered it. Out-of-order packets
//! are held in a ring relative to the next expected packet, which grows to the largest
//! window seen and is then reused; the runs they form, the SACK blocks, are kept as they
//! arrive and leave (`held_runs.rs`), so an arrival costs the same whatever the block's
//! length.
//!
//! Measurement window (issue 10, item 11): a data packet counts in the flow's received
//! packets, bytes, delay and goodput only if it was sent at or after the start of the
//! measurement (the end of the warm-up). A packet held out of order since before the window
//! and handed to the application inside it is not goodput of the window; without this rule
//! a short window after a warm-up credited a whole held window at once (goodput 1.15 x the
//! payload capacity). Every counted bit then crossed each link inside the window, so no flow
//! or sum of flows can exceed a link's rate (docs/readings.md, "Measurement window").

use super::accecn::{set_ace, AccEcnReceiver};
use super::held_runs::HeldRuns;
use super::linux_delack::LinuxDelayedAck;
use super::TcpConfig;
use crate::net::packet::MAX_SACK_BLOCKS;
use crate::net::wire_headers::SYN_SEQ;
use crate::net::{PacketId, PacketKind, SackBlock};
use crate::sim::{LazyTimer, Time};
use crate::transport::{AgentCtx, Endpoint};
use std::collections::VecDeque;

/// Timer number of the delayed-ACK timer.
pub const DELACK_TIMER: u8 = 0;

/// Out-of-order packets further than this above the next expected one are not buffered (no
/// sender window is this large; it only bounds memory against corrupt input).
const MAX_REORDER: i64 = super::config::MAX_WINDOW_PACKETS as i64;

pub struct TcpSink {
    ep: Endpoint,
    ack_size: u32,
    payload: u32,
    sack: bool,
    /// Report a duplicate arrival in the first SACK block (RFC 2883).
    dsack: bool,
    /// The duplicate packet the next ACK reports as a D-SACK, and when it was sent.
    duplicate: Option<(i64, Time)>,
    delayed_ack: bool,
    delack_timeout: Time,
    /// Linux's quick ACKs and adaptive timeout, when asked for.
    linux_delack: Option<LinuxDelayedAck>,
    /// Next packet expected in order.
    next: i64,
    /// `ooo[i]`: packet `next + 1 + i` has arrived, sent at this time.
    ooo: VecDeque<Option<Time>>,
    /// The runs of packets `ooo` holds.
    runs: HeldRuns,
    /// How many packets `ooo` holds.
    ooo_count: u64,
    max_seen: i64,
    /// Out-of-order arrivals, most recent first: each names one SACK block to report.
    recent: [i64; MAX_SACK_BLOCKS],
    recent_len: usize,
    /// CE seen and not yet answered by CWR: ACKs carry ECE (ns-2 `ecn_unacked_`).
    ecn_unacked: bool,
    /// DCTCP's exact echo instead of RFC 3168's latch.
    exact_echo: bool,
    /// The exact echo's state: the CE bit of the last new data packet (Linux `ce_state`).
    ce_state: bool,
    /// Accurate ECN's counters, when it is the feedback in use.
    accecn: Option<Box<AccEcnReceiver>>,
    /// When the SYN-ACK left, until the packet after it gives the receiver its RTT sample
    /// (`tcp_synack_rtt_meas`; AccECN's option beacon).
    syn_ack_sent_at: Option<Time>,
    delack: LazyTimer,
    /// An ACK is being held by the delayed-ACK timer, echoing this send time.
    held: Option<Time>,
}

impl TcpSink {
    pub fn new(cfg: &TcpConfig, ep: Endpoint) -> Self {
        TcpSink {
            ep,
            ack_size: cfg.ack_size,
            payload: cfg.packet_size,
            sack: cfg.sack(),
            dsack: cfg.sack() && cfg.dsack,
            duplicate: None,
            delayed_ack: cfg.delayed_ack,
            delack_timeout: cfg.delayed_ack_timeout.0,
            linux_delack: LinuxDelayedAck::new(cfg),
            next: 0,
            ooo: VecDeque::new(),
            runs: HeldRuns::default(),
            ooo_count: 0,
            max_seen: -1,
            recent: [0; MAX_SACK_BLOCKS],
            recent_len: 0,
            ecn_unacked: false,
            exact_echo: cfg.exact_ce_echo(),
            ce_state: false,
            accecn: cfg
                .accecn()
                .then(|| Box::new(AccEcnReceiver::new(cfg.accecn_option))),
            syn_ack_sent_at: None,
            delack: LazyTimer::new(),
            held: None,
        }
    }

    /// Packets received in order so far (the next one expected): what the application has
    /// read (a tcp_rr probe's end of a request or response).
    pub fn delivered_packets(&self) -> u64 {
        self.next.max(0) as u64
    }

    pub fn receive(&mut self, cx: &mut AgentCtx, pkt: PacketId) {
        let next = self.next;
        self.receive_packet(cx, pkt);
        if self.next > next {
            if let Some(l) = &mut self.linux_delack {
                // The application reads at once, after the ACK has gone (or been held).
                l.on_copied(cx.now, (self.next - next) as u64 * u64::from(self.payload));
            }
        }
    }

    fn receive_packet(&mut self, cx: &mut AgentCtx, pkt: PacketId) {
        let p = cx.packets.get(pkt);
        let (kind, seq, size, sent_at, ecn, tsecr) =
            (p.kind, p.seq, p.size, p.sent_at, p.ecn, p.echo_sent_at);
        let payload = u64::from(self.payload);
        cx.free(pkt);
        if kind != PacketKind::TcpData {
            return;
        }
        if seq == SYN_SEQ {
            // The SYN-ACK: at once, acknowledging nothing yet (`handshake = "syn"`).
            self.send_ack(cx, sent_at);
            self.syn_ack_sent_at = Some(cx.now);
            return;
        }
        if let Some(t) = self.syn_ack_sent_at.take() {
            if let Some(a) = &mut self.accecn {
                a.set_srtt(cx.now - t);
            }
        }
        if sent_at >= cx.stats.start {
            cx.stats
                .on_data_received(size, cx.now.saturating_sub(sent_at), ecn.ce);
        }
        if let Some(l) = &mut self.linux_delack {
            l.on_data(cx.now, tsecr, payload);
        }
        let idx = seq - self.next - 1;
        let already_held = idx >= 0 && self.ooo.get(idx as usize).is_some_and(|h| h.is_some());
        let mut ack_now = false;
        if let Some(a) = &mut self.accecn {
            ack_now = a.on_data(&ecn, self.payload);
        } else if self.exact_echo {
            if seq >= self.next && !already_held && (ecn.ect || ecn.ce) && ecn.ce != self.ce_state {
                if let Some(echo) = self.held.take() {
                    self.delack.cancel();
                    self.send_ack(cx, echo);
                }
                self.ce_state = ecn.ce;
                ack_now = true;
            }
        } else if ecn.cwr {
            // CWR ends the echo of earlier marks; a CE on this very packet starts a new one.
            self.ecn_unacked = false;
        }
        if ecn.ce && !self.exact_echo && self.accecn.is_none() {
            if !self.ecn_unacked {
                if let Some(l) = &mut self.linux_delack {
                    l.on_new_ce();
                }
            }
            self.ecn_unacked = true;
        }
        let gap_filling = seq < self.max_seen;
        if seq < self.next || already_held {
            // A duplicate (RFC 2883 section 4); never delayed below, so reported at once.
            self.duplicate = Some((seq, sent_at));
        }
        if seq < self.next {
            if let Some(l) = &mut self.linux_delack {
                l.on_old_data();
            }
        }
        if seq == self.next {
            let held = self.ooo_count;
            self.deliver(cx, sent_at);
            if let Some(l) = &mut self.linux_delack {
                let end = (seq + 1) as u64 * payload;
                l.on_in_order_data(cx.now, cx.now.saturating_sub(sent_at), payload, end, held);
            }
        } else if seq > self.next && seq - self.next <= MAX_REORDER {
            let idx = (seq - self.next - 1) as usize;
            if idx >= self.ooo.len() {
                self.ooo.resize(idx + 1, None);
            }
            if self.ooo[idx].is_none() {
                self.runs.insert(seq);
                if let Some(l) = &mut self.linux_delack {
                    l.on_out_of_order_data(payload, self.ooo_count);
                }
                self.ooo_count += 1;
            }
            self.ooo[idx] = Some(sent_at);
            self.remember(seq);
        }
        self.max_seen = self.max_seen.max(seq);

        // Delay the ACK of an in-order packet that fills no gap, if none is held already
        // (ns-2 DelAckSink with RFC2581_immediate_ack_) and no quick ACK is due; anything else
        // is acked now.
        if self.delayed_ack
            && seq == self.next - 1
            && !gap_filling
            && !ack_now
            && self.held.is_none()
            && !self
                .linux_delack
                .as_ref()
                .is_some_and(|l| l.ack_now(ecn.cwr && self.accecn.is_none()))
        {
            self.held = Some(sent_at);
            let wait = self
                .linux_delack
                .as_ref()
                .map_or(self.delack_timeout, |l| l.delay());
            cx.set_timer(&mut self.delack, DELACK_TIMER, cx.now + wait);
            return;
        }
        self.held = None;
        self.delack.cancel();
        self.send_ack(cx, sent_at);
    }

    pub fn timer(&mut self, cx: &mut AgentCtx, which: u8) {
        if which == DELACK_TIMER && cx.timer_expired(&mut self.delack, DELACK_TIMER) {
            if let Some(echo) = self.held.take() {
                if let Some(l) = &mut self.linux_delack {
                    l.on_delack_timeout();
                }
                self.send_ack(cx, echo);
            }
        }
    }

    /// The next expected packet arrived: hand it and any buffered successors to the
    /// application. Only packets sent inside the measurement window count as its goodput.
    fn deliver(&mut self, cx: &mut AgentCtx, sent_at: Time) {
        let start = cx.stats.start;
        // The run just above this packet, if any, is delivered with it.
        self.runs.remove_starting_at(self.next + 1);
        self.next += 1;
        if sent_at >= start {
            cx.stats.goodput_bytes += self.payload as u64;
        }
        while let Some(Some(held_sent_at)) = self.ooo.front().copied() {
            self.ooo.pop_front();
            self.next += 1;
            self.ooo_count -= 1;
            if held_sent_at >= start {
                cx.stats.goodput_bytes += self.payload as u64;
            }
        }
        // the gap that stopped the loop (if any) is now the next expected packet
        if self.ooo.front() == Some(&None) {
            self.ooo.pop_front();
        }
    }

    /// Makes `seq` the most recent SACK anchor, dropping anchors in the same block.
    fn remember(&mut self, seq: i64) {
        let (start, end) = self.block_of(seq);
        let mut kept = [seq; MAX_SACK_BLOCKS];
        let mut n = 1;
        for &r in &self.recent[..self.recent_len] {
            if n < MAX_SACK_BLOCKS && !(start <= r && r < end) {
                kept[n] = r;
                n += 1;
            }
        }
        self.recent = kept;
        self.recent_len = n;
    }

    /// The run of received out-of-order packets containing `seq` (a packet held), as
    /// [start, end).
    fn block_of(&self, seq: i64) -> (i64, i64) {
        let run = self.runs.containing(seq);
        debug_assert!(run.is_some(), "{seq} is not held");
        run.unwrap_or((seq, seq + 1))
    }

    fn send_ack(&mut self, cx: &mut AgentCtx, echo: Time) {
        if let Some(l) = &mut self.linux_delack {
            l.on_ack_sent();
        }
        let mut a = self.ep.packet(PacketKind::TcpAck, self.ack_size);
        a.ack = self.next - 1;
        a.echo_sent_at = echo;
        let reported = self.duplicate.filter(|_| self.sack && self.dsack);
        if let Some((_, dup_sent_at)) = reported {
            // The ACK that reports a duplicate echoes its sending (it is the packet that
            // triggered the ACK, unless a delayed ACK held it and the next packet sent the
            // ACK): the sender counts the spurious retransmission in the measurement period
            // the retransmission was sent in.
            a.echo_sent_at = dup_sent_at;
        }
        a.ecn.ece = if self.exact_echo {
            self.ce_state
        } else {
            self.ecn_unacked
        };
        if self.sack {
            let mut n = 0;
            if let Some((dup, _)) = self.duplicate.take().filter(|_| self.dsack) {
                // RFC 2883 section 4: the first block names the duplicate; the blocks that
                // follow are the usual ones, one fewer of them fitting.
                a.sack[0] = SackBlock {
                    start: dup,
                    end: dup + 1,
                };
                n = 1;
            }
            for i in 0..self.recent_len {
                if n == MAX_SACK_BLOCKS {
                    break;
                }
                let r = self.recent[i];
                if r <= self.next
                    || !self
                        .ooo
                        .get((r - self.next - 1) as usize)
                        .is_some_and(|h| h.is_some())
                {
                    continue; // now covered by the cumulative ACK
                }
                let (start, end) = self.block_of(r);
                let b = SackBlock { start, end };
                if !a.sack[..n].contains(&b) {
                    a.sack[n] = b;
                    n += 1;
                }
            }
            a.sack_len = n as u8;
        }
        if let Some(acc) = &mut self.accecn {
            set_ace(&mut a.ecn, acc.ace());
            let (option, kept) = acc.option(cx.now, a.sack_len as usize);
            // A SACK block given up for the option's fields is the last (oldest) one.
            a.sack_len = kept as u8;
            if let Some(o) = option {
                a.set_accecn_option(o);
            }
        }
        cx.send(a);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Packet;
    use crate::transport::tcp::agent_rig::AgentRig;
    use crate::transport::tcp::TcpVariant;

    const MS: Time = 1_000_000;

    struct H {
        rig: AgentRig,
        sink: TcpSink,
    }

    impl H {
        fn new(cfg: TcpConfig) -> H {
            let ep = Endpoint {
                flow: 0,
                agent: 1,
                node: 1,
                peer_node: 0,
                peer_agent: 0,
                dscp: 0,
            };
            H {
                rig: AgentRig::new(ep),
                sink: TcpSink::new(&cfg, ep),
            }
        }

        fn data(&mut self, at: Time, seq: i64, ce: bool, cwr: bool) -> Vec<Packet> {
            self.run_until(at);
            let mut p = Packet::new(PacketKind::TcpData, 0, 0, 1, 1, 1040);
            p.seq = seq;
            p.sent_at = at.saturating_sub(10 * MS);
            p.ecn.ect = true;
            p.ecn.ce = ce;
            p.ecn.cwr = cwr;
            let id = self.rig.packets.alloc(p);
            self.sink.receive(&mut self.rig.cx(at), id);
            self.rig.take_sent()
        }

        fn run_until(&mut self, t: Time) -> Vec<Packet> {
            self.rig
                .run_timers_until(t, |cx, timer| self.sink.timer(cx, timer))
        }
    }

    fn acks(ps: &[Packet]) -> Vec<i64> {
        ps.iter().map(|p| p.ack).collect()
    }

    /// The SACK blocks of an ACK as (start, end) pairs.
    fn blocks(ack: &Packet) -> Vec<(i64, i64)> {
        ack.sack_blocks().iter().map(|b| (b.start, b.end)).collect()
    }

    #[test]
    fn cumulative_acks_and_goodput_count_new_in_order_data_only() {
        let mut h = H::new(TcpConfig::default());
        assert_eq!(acks(&h.data(MS, 0, false, false)), vec![0]);
        assert_eq!(acks(&h.data(2 * MS, 2, false, false)), vec![0]);
        assert_eq!(acks(&h.data(3 * MS, 3, false, false)), vec![0]);
        assert_eq!(acks(&h.data(4 * MS, 1, false, false)), vec![3]);
        assert_eq!(acks(&h.data(5 * MS, 1, false, false)), vec![3]);
        assert_eq!(h.rig.stats.goodput_bytes, 4 * 1000);
        assert_eq!(h.rig.stats.packets_received, 5);
    }

    #[test]
    fn sack_blocks_most_recent_first() {
        let cfg = TcpConfig {
            variant: TcpVariant::Sack,
            ..TcpConfig::default()
        };
        let mut h = H::new(cfg);
        h.data(MS, 0, false, false);
        h.data(MS, 2, false, false);
        h.data(MS, 3, false, false);
        h.data(MS, 6, false, false);
        let a = h.data(MS, 8, false, false);
        assert_eq!(blocks(&a[0]), vec![(8, 9), (6, 7), (2, 4)]);
        // Filling packet 1 acks through 3; the first block disappears.
        let a = h.data(MS, 1, false, false);
        assert_eq!(a[0].ack, 3);
        assert_eq!(blocks(&a[0]), vec![(8, 9), (6, 7)]);
        // Packet 7 merges the two blocks into one.
        let a = h.data(MS, 7, false, false);
        assert_eq!(blocks(&a[0]), vec![(6, 9)]);
    }

    /// Issue 24, item 13: the SACK block around an arrival was found by walking along it,
    /// so with the first packet of a window lost each later arrival cost a step per packet
    /// held (half the window on average). The steps per arrival must not grow with the run.
    #[test]
    fn sack_block_work_per_arrival_does_not_grow_with_the_block() {
        use crate::transport::tcp::recovery::work;
        let per_arrival = |n: i64| {
            let cfg = TcpConfig {
                variant: TcpVariant::Sack,
                ..TcpConfig::default()
            };
            let mut h = H::new(cfg);
            let (steps0, _) = work::counts();
            // Packet 0 lost: 1..=n arrive and are held in one run.
            for seq in 1..=n {
                let a = h.data(MS, seq, false, false);
                assert_eq!(blocks(&a[0]), vec![(1, seq + 1)]);
            }
            let (steps, _) = work::counts();
            (steps - steps0) as f64 / n as f64
        };
        let (short, long) = (per_arrival(1 << 8), per_arrival(1 << 13));
        assert!(
            short < 10.0 && long < 10.0,
            "{short:.1} steps per arrival in a run of 2^8, {long:.1} in one of 2^13"
        );
    }

    #[test]
    fn ece_is_echoed_from_ce_until_cwr() {
        let mut h = H::new(TcpConfig::default());
        assert!(!h.data(MS, 0, false, false)[0].ecn.ece);
        assert!(h.data(MS, 1, true, false)[0].ecn.ece);
        assert!(h.data(MS, 2, false, false)[0].ecn.ece);
        assert!(!h.data(MS, 3, false, true)[0].ecn.ece);
        assert!(!h.data(MS, 4, false, false)[0].ecn.ece);
        assert_eq!(h.rig.stats.marks_received, 1);
    }

    fn dctcp_cfg(delayed_ack: bool) -> TcpConfig {
        TcpConfig {
            delayed_ack,
            ecn: true,
            recovery: crate::transport::tcp::Recovery::Rfc6675,
            congestion_control: crate::transport::tcp::congestion::CongestionControlKind::Dctcp,
            ..TcpConfig::default()
        }
    }

    /// (ack, ece) of each ACK sent.
    fn echoed(ps: &[Packet]) -> Vec<(i64, bool)> {
        ps.iter().map(|p| (p.ack, p.ecn.ece)).collect()
    }

    /// RFC 8257 section 3.2 / Alizadeh et al. Fig. 10 with delayed ACKs (one ACK per two
    /// packets, 100 ms timer): ECE on each ACK is the CE state of the packets it covers, and a
    /// change of state sends the held ACK with the old state, then an ACK at once.
    #[test]
    fn dctcp_echo_follows_the_ce_state_with_delayed_acks() {
        let mut h = H::new(dctcp_cfg(true));
        let at = std::cell::Cell::new(10 * MS);
        let next = |h: &mut H, seq: i64, ce: bool, cwr: bool| {
            at.set(at.get() + MS);
            echoed(&h.data(at.get(), seq, ce, cwr))
        };
        assert_eq!(next(&mut h, 0, false, false), vec![]);
        assert_eq!(next(&mut h, 1, false, false), vec![(1, false)]);
        // 0 -> 1 with nothing held: ACK 2 at once, ECE set.
        assert_eq!(next(&mut h, 2, true, false), vec![(2, true)]);
        assert_eq!(next(&mut h, 3, true, false), vec![]);
        assert_eq!(next(&mut h, 4, true, false), vec![(4, true)]);
        assert_eq!(next(&mut h, 5, true, false), vec![]);
        // 1 -> 0 with 5 held: ACK 5 with ECE (its state), then ACK 6 without.
        assert_eq!(next(&mut h, 6, false, false), vec![(5, true), (6, false)]);
        assert_eq!(next(&mut h, 7, false, false), vec![]);
        // The held ACK of 7 leaves at the timeout, ECE clear.
        assert_eq!(echoed(&h.run_until(200 * MS)), vec![(7, false)]);
        at.set(300 * MS);
        // CWR changes nothing: the state stays 1 on 9 (held), and no RFC 3168 latch keeps
        // ECE after the state returns to 0.
        assert_eq!(next(&mut h, 8, true, true), vec![(8, true)]);
        assert_eq!(next(&mut h, 9, true, true), vec![]);
        assert_eq!(next(&mut h, 10, false, false), vec![(9, true), (10, false)]);
        // A duplicate of delivered data with CE does not change the state.
        assert_eq!(next(&mut h, 3, true, false), vec![(10, false)]);
        assert_eq!(next(&mut h, 11, false, false), vec![]);
        assert_eq!(h.rig.stats.marks_received, 7);
    }

    /// Without delayed ACKs every ACK echoes exactly its own packet's CE; RFC 3168's sink
    /// latches ECE until CWR on the same arrivals.
    #[test]
    fn dctcp_echo_without_delayed_acks_is_per_packet() {
        let ce = [false, true, false, false, true, true, false];
        let mut exact = H::new(dctcp_cfg(false));
        let mut latched = H::new(TcpConfig {
            ecn: true,
            ..TcpConfig::default()
        });
        let (mut e, mut l) = (vec![], vec![]);
        for (seq, &c) in ce.iter().enumerate() {
            e.extend(echoed(&exact.data(MS, seq as i64, c, false)));
            l.extend(echoed(&latched.data(MS, seq as i64, c, false)));
        }
        let eces: Vec<bool> = e.iter().map(|&(_, x)| x).collect();
        assert_eq!(eces, ce);
        assert!(l[1..].iter().all(|&(_, x)| x), "RFC 3168 latches: {l:?}");
    }

    fn accecn_cfg(option: bool) -> TcpConfig {
        TcpConfig {
            ecn: true,
            delayed_ack: true,
            recovery: crate::transport::tcp::Recovery::Rfc6675,
            ecn_feedback: Some(crate::transport::tcp::EcnFeedback::Accecn),
            accecn_option: if option {
                crate::transport::tcp::AccEcnOptionSending::Full
            } else {
                crate::transport::tcp::AccEcnOptionSending::Disabled
            },
            ..TcpConfig::default()
        }
    }

    /// The ACKs an AccECN receiver with delayed ACKs (one per two packets) sends for `ce`
    /// (ECT(0) packets 0, 1, ..., CE where true), as (ack, ACE, option).
    fn accecn_acks(ce: &[bool], option: bool) -> Vec<Packet> {
        let mut h = H::new(accecn_cfg(option));
        let mut acks = vec![];
        for (seq, &c) in ce.iter().enumerate() {
            acks.extend(h.data((10 + seq as u64) * MS, seq as i64, c, false));
        }
        acks
    }

    /// The sender's decoding (`accecn.rs`, `__tcp_accecn_process`) of the ACKs that are not
    /// lost: the CE delta of each, the packets it delivers being its advance.
    fn decoded(acks: &[Packet], lost: &[i64]) -> Vec<(i64, u32)> {
        use crate::transport::tcp::accecn::{ace_of, AccEcnSender, AckDelivery};
        let mut s = AccEcnSender::new(1000, true);
        let mut last = -1;
        let mut out = vec![];
        for a in acks.iter().filter(|a| !lost.contains(&a.ack)) {
            let n = (a.ack - last) as u32;
            last = a.ack;
            let d = AckDelivery {
                packets: n,
                bytes: n * 1000,
                progress: n > 0,
            };
            out.push((a.ack, s.on_ack(ace_of(&a.ecn), a.accecn_option(), d, true)));
        }
        out
    }

    /// RFC 9768 3.2.2.2 and 3.2.2.5 through the receiver, by hand. ECT(0) packets 0-2, CE
    /// 3-13. ACKs (ns-2's delayed ACK, at once on a change of codepoint): 0 (the first
    /// packet changes it from none), 2 (second packet), 3 (ECT(0) -> CE), 5, 7, 9, 11, 13.
    /// ACE = (5 + CE packets so far) mod 8: 5, 5, 6, (5+3) mod 8 = 0, 2, 4, 6, (5+11) mod 8
    /// = 0. The ACKs of 7, 9 and 11 are lost: the ACK of 13 delivers 8 packets and its ACE is
    /// back where the ACK of 5 left it. Delta (0 - 5 - 3) mod 8 = 0 could be 0 or 8 marks;
    /// after ACKs of 1 or 2 packets (EWMA 71 < 256) the safety rule takes 8 - (8 mod 8) = 8,
    /// right; with the option, ECEB moved alone by 8000 > 0 x MSS: 8 again.
    #[test]
    fn accecn_acks_and_a_wrap_resolved_by_the_safety_rule() {
        let ce: Vec<bool> = (0..14).map(|s| s >= 3).collect();
        let acks = accecn_acks(&ce, false);
        let ace: Vec<(i64, u32)> = acks
            .iter()
            .map(|a| (a.ack, crate::transport::tcp::accecn::ace_of(&a.ecn)))
            .collect();
        assert_eq!(
            ace,
            [
                (0, 5),
                (2, 5),
                (3, 6),
                (5, 0),
                (7, 2),
                (9, 4),
                (11, 6),
                (13, 0)
            ]
        );
        assert!(acks.iter().all(|a| a.accecn_option().is_none()));
        let want = [(0, 0), (2, 0), (3, 1), (5, 2), (13, 8)];
        assert_eq!(decoded(&acks, &[7, 9, 11]), want);
        let with_option = accecn_acks(&ce, true);
        assert_eq!(decoded(&with_option, &[7, 9, 11]), want);
    }

    /// ECT(0) 0-2, CE 3-5, ECT(0) 6-14: ACKs 0, 2, 3, 5 as above, then 6 (CE -> ECT(0), at
    /// once), 8, 10, 12, 14, ACE 0 from the ACK of 5 on (r.cep stays 8). The ACKs of 6-12
    /// are lost: the ACK of 14 delivers 9 packets, none CE, with ACE unchanged. Delta 0; the
    /// safety rule alone takes 9 - ((9 - 0) mod 8) = 8 phantom marks; the option's ECEB did
    /// not move (its EE0B moved alone), so the delta, 0, stands (`d_ceb == 0`).
    #[test]
    fn accecn_a_wrap_the_option_resolves() {
        let ce: Vec<bool> = (0..15).map(|s| (3..6).contains(&s)).collect();
        let lost = [6, 8, 10, 12];
        let acks = accecn_acks(&ce, false);
        let ace: Vec<(i64, u32)> = acks
            .iter()
            .map(|a| (a.ack, crate::transport::tcp::accecn::ace_of(&a.ecn)))
            .collect();
        assert_eq!(
            ace,
            [
                (0, 5),
                (2, 5),
                (3, 6),
                (5, 0),
                (6, 0),
                (8, 0),
                (10, 0),
                (12, 0),
                (14, 0)
            ]
        );
        let head = [(0, 0), (2, 0), (3, 1), (5, 2)];
        assert_eq!(decoded(&acks, &lost), [&head[..], &[(14, 8)]].concat());
        let with_option = accecn_acks(&ce, true);
        // Every ACK carries the option: all 3 fields (no SACK block; ECT(0) requires 3).
        let last = with_option.last().unwrap().accecn_option().unwrap();
        // EE1B 0 + 1, ECEB 3 x 1000, EE0B 12 x 1000 + 1.
        assert_eq!(
            (last.fields, last.e1b, last.ceb, last.e0b),
            (3, 1, 3000, 12_001)
        );
        assert_eq!(
            decoded(&with_option, &lost),
            [&head[..], &[(14, 0)]].concat()
        );
    }

    /// `accecn_option = "minimum"` after a handshake: the SYN-ACK leaves at 10 ms and the
    /// first packet arrives at 40 ms, the receiver's RTT 30 ms (`tcp_synack_rtt_meas`), so a
    /// beacon every 10 ms. The SYN-ACK carries the option (no RTT yet: the beacon passes);
    /// packet 0 changes the codepoint (demand 2): the ACKs of 0 and 2 carry it; those of 4 to
    /// 10 (44 to 50 ms, under 10 ms after 42) do not; that of 12 (52 ms) does.
    #[test]
    fn accecn_minimum_option_beacons_at_the_handshake_rtt() {
        let mut cfg = accecn_cfg(true);
        cfg.accecn_option = crate::transport::tcp::AccEcnOptionSending::Minimum;
        let mut h = H::new(cfg);
        let syn_ack = h.data(10 * MS, SYN_SEQ, false, false);
        let mut with_option = vec![(syn_ack[0].ack, syn_ack[0].accecn_option().is_some())];
        for seq in 0..13 {
            for a in h.data((40 + seq as u64) * MS, seq, false, false) {
                with_option.push((a.ack, a.accecn_option().is_some()));
            }
        }
        assert_eq!(
            with_option,
            [
                (SYN_SEQ, true),
                (0, true),
                (2, true),
                (4, false),
                (6, false),
                (8, false),
                (10, false),
                (12, true)
            ]
        );
    }

    /// AccECN has no CWR to wait for: CWR is not read, and ACE stays the count.
    #[test]
    fn accecn_ignores_cwr() {
        let mut h = H::new(accecn_cfg(true));
        let a = h.data(MS, 0, true, false);
        assert_eq!(crate::transport::tcp::accecn::ace_of(&a[0].ecn), 6);
        let a = h.data(2 * MS, 1, false, true);
        assert_eq!(crate::transport::tcp::accecn::ace_of(&a[0].ecn), 6);
    }

    #[test]
    fn delayed_ack_every_second_packet_or_after_the_timeout() {
        let cfg = TcpConfig {
            delayed_ack: true,
            ..TcpConfig::default()
        };
        let mut h = H::new(cfg);
        assert!(h.data(10 * MS, 0, false, false).is_empty());
        assert_eq!(acks(&h.data(11 * MS, 1, false, false)), vec![1]);
        assert!(h.data(12 * MS, 2, false, false).is_empty());
        // Nothing before the 100 ms timer; then the held ACK goes out.
        assert!(h.run_until(111 * MS).is_empty());
        let late = h.run_until(112 * MS);
        assert_eq!(acks(&late), vec![2]);
        assert_eq!(late[0].echo_sent_at, 2 * MS);
        // Out of order: acked at once, and so is the packet that fills the gap.
        assert_eq!(acks(&h.data(200 * MS, 4, false, false)), vec![2]);
        assert_eq!(acks(&h.data(201 * MS, 3, false, false)), vec![4]);
        // Back in order: delayed again.
        assert!(h.data(202 * MS, 5, false, false).is_empty());
    }

    /// The `linux` profile's receiver: quick ACKs (tcp_incr_quickack, tcp_dec_quickack_mode)
    /// and the adaptive ATO (tcp_event_data_recv, tcp_send_delayed_ack,
    /// tcp_delack_timer_handler), net/ipv4/tcp_input.c, tcp_output.c, tcp_timer.c.
    #[test]
    fn linux_quick_acks_then_delayed_acks_with_the_adaptive_ato() {
        use crate::transport::tcp::linux_delack::DelayedAckAto;
        let cfg = TcpConfig {
            delayed_ack: true,
            delayed_ack_timeout: crate::units::Duration(40 * MS),
            quick_ack: true,
            delayed_ack_ato: DelayedAckAto::Adaptive,
            window: 2048,
            ..TcpConfig::default()
        };
        let mut h = H::new(cfg);
        // Packets 1 ms apart (sent 10 ms before they arrive: the receiver's SRTT is 20 ms,
        // its RTO 20 + max(40, 200) = 220 ms): the first 16 are each ACKed at once.
        for seq in 0..16 {
            assert_eq!(
                acks(&h.data((10 + seq as u64) * MS, seq, false, false)),
                vec![seq]
            );
        }
        // Then every second packet (__tcp_ack_snd_check): 16 is held, 17 sends the ACK.
        assert!(h.data(26 * MS, 16, false, false).is_empty());
        assert_eq!(acks(&h.data(27 * MS, 17, false, false)), vec![17]);
        // ATO: 40 ms at the first packet, then m = 1 ms <= 20 each time: 40 / 2 + 20 = 40
        // (the last quick ACK also reset it to 40). A held ACK waits ATO = 40 ms.
        assert!(h.data(28 * MS, 18, false, false).is_empty());
        assert!(h.run_until(67 * MS).is_empty());
        assert_eq!(acks(&h.run_until(68 * MS)), vec![18]);
        // The timer fired: ATO doubles to 80 ms (tcp_delack_timer_handler); the next arrival
        // 100 ms later is above it: ATO stays 80, and the wait is min(ATO, max(SRTT, 40 ms))
        // = 40 ms.
        assert!(h.data(128 * MS, 19, false, false).is_empty());
        assert!(h.run_until(167 * MS).is_empty());
        assert_eq!(acks(&h.run_until(168 * MS)), vec![19]);
        // A duplicate of delivered data (a retransmission our late ACK caused) is ACKed at
        // once and starts 16 quick ACKs (tcp_enter_quickack_mode): the next in-order
        // packets are ACKed one by one.
        assert_eq!(acks(&h.data(200 * MS, 5, false, false)), vec![19]);
        assert_eq!(acks(&h.data(201 * MS, 20, false, false)), vec![20]);
        assert_eq!(acks(&h.data(202 * MS, 21, false, false)), vec![21]);
        // Without the options the same arrivals are ns-2's DelAck: packet 1 is the first ACK.
        let mut ns2 = H::new(TcpConfig {
            delayed_ack: true,
            ..TcpConfig::default()
        });
        assert!(ns2.data(10 * MS, 0, false, false).is_empty());
        assert_eq!(acks(&ns2.data(11 * MS, 1, false, false)), vec![1]);
    }

    /// `rcv_window_growth = "linux_no_autotuning"` (tcp_grow_window, __tcp_grow_window,
    /// tcp_select_initial_window, tcp_dec_quickack_mode; net/ipv4/tcp_input.c, tcp_output.c)
    /// by hand, MSS 1000, window 180 packets: rcv_ssthresh starts at 65536 rounded down to
    /// whole segments, 65,000 bytes; the clamp is 180,000, the bound half of it, 90,000. Each
    /// segment adds 2 x 1000 while rcv_ssthresh <= 90,000: after k segments 65,000 + 2,000 k,
    /// so segments 0..=12 (k = 0..12, 65,000 + 24,000 = 89,000 <= 90,000) grow it, to 91,000,
    /// and segment 13 finds 91,000 > 90,000.
    #[test]
    fn linux_receiver_acks_each_segment_while_its_window_grows() {
        use crate::transport::tcp::config::RcvWindowGrowth;
        use crate::transport::tcp::linux_delack::DelayedAckAto;
        let growing = |quick_ack| TcpConfig {
            delayed_ack: true,
            delayed_ack_timeout: crate::units::Duration(40 * MS),
            quick_ack,
            delayed_ack_ato: DelayedAckAto::Adaptive,
            window: 180,
            rcv_window_growth: RcvWindowGrowth::LinuxNoAutotuning,
            ..TcpConfig::default()
        };
        // Growth alone (no quick-ACK mode): quick |= 1 makes each growing segment's ACK
        // immediate (0..=12), then every second segment: 13 held, 14 ACKs.
        let mut h = H::new(growing(false));
        for seq in 0..13 {
            let at = (10 + seq as u64) * MS;
            assert_eq!(
                acks(&h.data(at, seq, false, false)),
                vec![seq],
                "segment {seq}"
            );
        }
        let g = h
            .sink
            .linux_delack
            .as_ref()
            .unwrap()
            .rcv_ssthresh()
            .unwrap();
        assert_eq!(
            (g.rcv_ssthresh, g.bound, g.clamp),
            (91_000, 90_000, 180_000)
        );
        assert!(h.data(23 * MS, 13, false, false).is_empty());
        assert_eq!(acks(&h.data(24 * MS, 14, false, false)), vec![14]);
        // With the quick-ACK mode of the start (16 = min(180 / 2, 16)): the first segment sets
        // quick = 16, its growth 16 | 1 = 17, its ACK 16; each growing segment does the same,
        // so the 16 are still whole after segment 12 and last 13..=28: 29 ACKs one by one,
        // then 29 held and 30 ACKed. Without the growth: 16 (0..=15), 16 held, 17 ACKed.
        let mut h = H::new(growing(true));
        for seq in 0..29 {
            let at = (10 + seq as u64) * MS;
            assert_eq!(
                acks(&h.data(at, seq, false, false)),
                vec![seq],
                "segment {seq}"
            );
        }
        assert!(h.data(39 * MS, 29, false, false).is_empty());
        assert_eq!(acks(&h.data(40 * MS, 30, false, false)), vec![30]);
        let mut fixed = H::new(TcpConfig {
            rcv_window_growth: RcvWindowGrowth::Fixed,
            ..growing(true)
        });
        for seq in 0..16 {
            assert_eq!(
                acks(&fixed.data((10 + seq as u64) * MS, seq, false, false)),
                vec![seq]
            );
        }
        assert!(fixed.data(26 * MS, 16, false, false).is_empty());
        assert_eq!(acks(&fixed.data(27 * MS, 17, false, false)), vec![17]);
    }

    #[test]
    fn linux_quick_acks_after_ce_and_for_cwr() {
        // __tcp_ecn_check_ce: a CE mark with no CWR awaited gives 2 quick ACKs;
        // tcp_ecn_accept_cwr: a CWR packet is ACKed at once.
        let cfg = TcpConfig {
            delayed_ack: true,
            quick_ack: true,
            window: 2048,
            ..TcpConfig::default()
        };
        let mut h = H::new(cfg);
        for seq in 0..16 {
            h.data(MS, seq, false, false);
        }
        assert!(
            h.data(2 * MS, 16, false, false).is_empty(),
            "quick ACKs used up"
        );
        h.run_until(105 * MS);
        // CE on 17: ACKed at once (ECE), and so is 18; 19 is held again. (The gaps stay
        // below the receiver's RTO, 220 ms, after which an idle gap gives 16 quick ACKs.)
        assert_eq!(acks(&h.data(110 * MS, 17, true, false)), vec![17]);
        assert_eq!(acks(&h.data(111 * MS, 18, false, false)), vec![18]);
        assert!(h.data(112 * MS, 19, false, false).is_empty());
        assert_eq!(acks(&h.data(113 * MS, 20, false, false)), vec![20]);
        // A second CE before CWR adds no quick ACK ("if !(DEMAND_CWR)").
        assert!(h.data(114 * MS, 21, true, false).is_empty());
        assert_eq!(acks(&h.data(115 * MS, 22, false, false)), vec![22]);
        // An idle gap above the receiver's RTO: quick ACKs again (tcp_event_data_recv).
        assert_eq!(acks(&h.data(400 * MS, 23, false, false)), vec![23]);
        for seq in 24..39 {
            assert_eq!(acks(&h.data(401 * MS, seq, false, false)), vec![seq]);
        }
        assert!(h.data(402 * MS, 39, false, false).is_empty());
        h.run_until(600 * MS);
        // CWR: ACKed at once.
        assert_eq!(acks(&h.data(610 * MS, 40, false, true)), vec![40]);
    }
}
