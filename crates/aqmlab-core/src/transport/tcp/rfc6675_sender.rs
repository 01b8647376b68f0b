//! A one-way TCP sender with today's loss recovery: RFC 6675 SACK-based recovery driven by the
//! scoreboard of `recovery/rfc6675.rs`, with PRR (RFC 6937, `recovery/prr.rs`) deciding how
//! much to send on each ACK of the recovery, and any congestion controller
//! (`congestion/`). It shares the ns-2 agents' packets, sink, RTT estimator and timers, so the
//! two can be compared on the same network.
//!
//! - Duplicate ACK (RFC 6675 section 2): an ACK that does not advance the cumulative point
//!   and SACKs new data. Recovery starts on the DupThresh-th, or as soon as the first
//!   unacknowledged packet is deemed lost (section 5), unless a RecoveryPoint is outstanding.
//! - On entry: ssthresh = the controller's reduction of FlightSize (its `ssthresh` hook,
//!   `congestion/ops.rs`; at least 2), PRR starts with RecoverFS = FlightSize (both cwnd with
//!   `ssthresh_base = "cwnd"`, as Linux), the first lost packet is retransmitted at once
//!   (the fast retransmit), then each ACK sends what PRR allows, chosen by NextSeg. At the
//!   end of recovery cwnd = ssthresh (RFC 6937).
//! - Limited transmit (RFC 3042) on the first DupThresh - 1 duplicate ACKs, as the ns-2 agents.
//! - Retransmission timer (RFC 6298): armed when data is outstanding, restarted by an ACK of
//!   new data, which also clears the backoff (as Linux does: `icsk_backoff = 0` on forward
//!   progress; ns-2 waits for the timed packet). On expiry: ssthresh from the controller,
//!   cwnd = 1 (RFC 5681 loss window), backoff doubled, go-back-N from the cumulative point
//!   over the packets not SACKed. SACK marks are kept, as Linux keeps them unless the
//!   receiver reneges (net/ipv4/tcp_input.c, `tcp_timeout_mark_lost`); RFC 2018 section 8's
//!   advice to clear them guards against reneging, which aqmlab's sink never does.
//! - ECN (RFC 3168): one reduction per window of data, none during recovery.
//! - With `rack_tlp` (RFC 8985, `recovery/rack_tlp.rs`): RACK marks losses on each ACK and on
//!   its reordering timer, and recovery starts when it marks one (Linux `tcp_time_to_recover`
//!   with RACK: "the loss is proven"), not on the DupThresh-th duplicate ACK. One timer slot
//!   serves the RTO, the reordering timer and the probe timeout, as Linux's
//!   `icsk_retransmit_timer`; `rto_at` keeps the RTO's expiry while the slot waits for one of
//!   the others, and neither may run past it.
//!
//! - Issue 25's loop, and what ends it. With RACK, PRR's SSRB and a full FIFO or an AQM at a
//!   high drop rate, each ACK of a recovery released a [repair, new packet] pair: one more
//!   than it delivered, though it also revealed a new loss, so pipe stayed below ssthresh and
//!   the flow sent at twice its delivery rate for as long as the recovery lasted; the AQM
//!   settled at dropping every other packet, the repair always in the dropped slot; RACK
//!   re-marked it (rightly: a packet sent after it was delivered), and resending the head
//!   re-armed the RTO, so the flow neither timed out nor left recovery (30 flows, 20 Mb/s,
//!   RED: 50 % loss, Jain 0.04). `prr_bound = "safe_ack"` (RFC 9937, Linux) releases the extra
//!   packet only on an ACK that reveals no loss; `overhead` jitters the sends, as ns-2's agents
//!   do, against phase effects; `max_transmissions_of_a_segment` and a run warning (a flow
//!   stalled in recovery) make a loop visible. The order of sends in a recovery is RFC 6675's
//!   NextSeg (repairs, then new data) and Linux's (`tcp_xmit_recovery` sends the lost
//!   packets, `tcp_data_snd_check` new data after), unchanged.
//! - Linux's timer rules, each a named option (`rto_restart = "linux"`, `rto_estimator`,
//!   `timeout_response`, `frto`, `rack_tlp.pto`; `linux_rtt.rs`, `rack_tlp.rs`, and
//!   `timeout`/`frto_on_ack` below).
//!
//! - ns-3's readings, each a named option whose default is the RFC's (the `ns3` profile turns
//!   them on; docs/readings.md, "The ns3 TCP profile"): `ssthresh_base = "pipe"`,
//!   `rtt_sampling = "oldest_unacked"`, `dupacks_after_timeout = "ignored"`,
//!   `partial_ack_timer = "first"`, `handshake = "syn"` (a SYN exchange before the data;
//!   its timeouts are not counted as RTOs).
//!
//! The controller is reached only through its hooks (`congestion/ops.rs`, Linux's `struct
//! tcp_congestion_ops`); ARCHITECTURE.md, "The congestion-control hooks", says where each is
//! called. The sender's jobs, one file each:
//! - this file: the state, the public API, the handshake, RTT samples;
//! - `rfc6675_sender/ack.rs`: the ACK, in the order of Linux's `tcp_ack` (hooks included);
//! - `rfc6675_sender/recovery.rs`: reductions, recovery entry and end, F-RTO and its undo,
//!   the `cong_control` step;
//! - `rfc6675_sender/timers.rs`: the RTO, RACK's reordering timer, TLP's probe;
//! - `rfc6675_sender/send.rs`: the send loops, `overhead`'s delays, pacing, `output`.
//!
//! Parameters read (TcpConfig): dupack_threshold, window, window_init, ssthresh_init,
//! limited_transmit, ecn, packet sizes, the controller's (`congestion/`: congestion_control and
//! its parameters, cwnd_growth, hystart),
//! ssthresh_base, prr_bound, rack_tlp, dsack, timestamps, overhead, rto_restart,
//! timeout_response, frto, ecn_reduction, rtt_sampling, dupacks_after_timeout, partial_ack_timer, handshake,
//! and the RTT estimator's rto_estimator, min_rto, max_rto, initial_rto, tick, max_backoff.

use super::accecn::AccEcnSender;
use super::congestion::{
    AckEvent, AckInfo, Acked, CaEvent, CaState, CongestionControl, CongestionOps, Signal, StateCtx,
    Window,
};
use super::cwnd_use::CwndUse;
use super::delivery_rate::DeliveryRate;
use super::ns3_state::{handshake_sample, Ns3State};
use super::pacing::{linux_pacing_rate, Pacer, Pacing, PacingInputs, PACING_TIMER};
use super::recovery::prr::Prr;
use super::recovery::rack_tlp::{
    linux_probe_timeout, probe_timeout, ProbeOutcome, PtoRule, Rack, TailLossProbe,
};
use super::recovery::rfc6675::{AckUpdate, Delivered, LossRule, NextSeg, Scoreboard, SendStamp};
use super::rto::RtoEstimator;
use super::transmissions::Transmissions;
use super::tso::autosize_segs;
use super::{
    DupacksAfterTimeout, EcnReduction, PartialAckTimer, RtoRestart, RttSampling,
    SegmentationOffload, SsthreshBase, SynEct, TcpConfig, TimeoutMarks, TimeoutResponse,
};
use crate::net::packet::MAX_SACK_BLOCKS;
use crate::net::wire_headers::SYN_SEQ;
use crate::net::{PacketId, PacketKind, SackBlock};
use crate::sim::StateSink;
use crate::sim::{LazyTimer, RngStream, Time};
use crate::transport::{AgentCtx, Endpoint};

mod ack;
mod recovery;
mod send;
mod timers;

/// Timer number of the retransmission timer.
pub const RTX_TIMER: u8 = 0;
/// Timer number of the delayed-send timer (`overhead`, as ns-2's `delsnd_timer_`).
pub const DELSND_TIMER: u8 = 1;

/// `overhead`'s delayed sends (ns-2 `delsnd_timer_`).
#[derive(Debug)]
struct DelayedSends {
    timer: LazyTimer,
    /// The sender's own random stream: only `overhead` draws from it.
    rng: RngStream,
}

/// F-RTO's state after a timeout (RFC 5682 section 3.1, Linux `tp->frto`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Frto {
    /// Step 2.b sent new data; the next ACK decides (step 3).
    new_data_sent: bool,
}

/// What the retransmission timer slot is waiting for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum XmitTimer {
    Rto,
    /// RACK's reordering timer (RFC 8985 section 6.2 step 5).
    Reorder,
    /// TLP's probe timeout (section 7.2).
    Probe,
}

pub struct Rfc6675Sender {
    cfg: TcpConfig,
    ep: Endpoint,
    /// Packets to send in all; i64::MAX for an infinite source.
    curseq: i64,
    running: bool,
    completed: bool,
    /// Next packet to send outside recovery (below HighData + 1 after a timeout: go-back-N).
    t_seqno: i64,
    /// The end of the go-back-N after the last timeout: HighData + 1 then. New data F-RTO
    /// sends above it is not part of the go-back-N.
    go_back_end: i64,
    cwnd: f64,
    ssthresh: i64,
    cc: CongestionControl,
    scb: Scoreboard,
    prr: Prr,
    dupacks: u32,
    /// No ECN reduction until the cumulative ACK passes this (one per window of data).
    ecn_recover: i64,
    /// A reduction happened; the next new data packet carries CWR.
    cong_action: bool,
    rtt: RtoEstimator,
    /// One packet at a time is timed (Karn: never a retransmission).
    timed: Option<(i64, Time)>,
    rtx: LazyTimer,
    rtx_mode: XmitTimer,
    /// When the RTO expires (the slot may be set earlier, for RACK or TLP).
    rto_at: Time,
    /// RACK-TLP's state, when enabled (on the heap, as the rest of the rarely used state
    /// below: a sender is one variant of the agents' enum, which every agent's slot is as
    /// large as).
    rack: Option<Box<Rack>>,
    tlp: TailLossProbe,
    /// When the current fast recovery began (for the time-in-recovery metric).
    recovery_since: Option<Time>,
    /// In a fast recovery, the head (first unacknowledged packet) and when the RTO started by
    /// its first retransmission expires (RFC 6298 5.1: the timer runs from a send when it is
    /// not running): time in the recovery past it, while the head is the same, is a stall,
    /// where only a re-armed timer kept the flow from timing out (the run warning's measure).
    stall_deadline: Option<(i64, Time)>,
    /// Timeouts since the cumulative ACK last moved (Linux `icsk_retransmits`).
    timeouts_in_a_row: u32,
    /// cwnd and ssthresh before a timeout's reduction, for F-RTO's undo (Linux
    /// `prior_cwnd`, `prior_ssthresh`).
    before_timeout: Option<Box<(f64, i64)>>,
    frto: Option<Frto>,
    /// With `overhead`: the sends it holds back.
    delayed: Option<Box<DelayedSends>>,
    transmissions: Transmissions,
    /// What only some of ns-3's options keep (`ns3_state.rs`); None without them.
    ns3: Option<Box<Ns3State>>,
    /// With `grow_only_when_cwnd_limited`: how much of cwnd the flow uses (`cwnd_use.rs`).
    cwnd_use: Option<Box<CwndUse>>,
    /// With `pacing = "on"` or a controller that always paces: the departure times and the
    /// pacing timer (`pacing.rs`). None: sends are clocked by the window alone, as before.
    pacer: Option<Box<Pacer>>,
    /// Delivery-rate sampling (Linux tcp_rate.c, `delivery_rate.rs`), only for a controller
    /// that wants rate samples.
    rate: Option<Box<DeliveryRate>>,
    /// The ACK being processed still owes its rate sample and `cong_control` step
    /// (`run_cong_control`), with the packets it newly marked lost.
    cong_control_pending: bool,
    ack_losses: i64,
    /// With `ecn_reduction = "prr"`: in Linux's CWR state, PRR bringing cwnd down to the
    /// ECN echo's ssthresh until an ACK passes `ecn_recover` (`tcp_in_cwnd_reduction`).
    in_cwr: bool,
    /// With `timestamps`: the TSval of the latest ACK received, which each data packet echoes
    /// as its TSecr (`tp->rx_opt.ts_recent`, `tcp_store_ts_recent`; `echo_sent_at`). The
    /// receiver times its RTT from it (`tcp_rcv_rtt_measure_ts`, `rcv_space.rs`).
    ts_recent: Time,
    /// Accurate ECN's decoding of ACE and the AccECN option, when it is the feedback in use
    /// (`accecn.rs`).
    accecn: Option<Box<AccEcnSender>>,
}

/// RFC 2883 section 4: the first SACK block is a D-SACK if it lies at or below the cumulative
/// ACK, or inside the second block.
fn is_dsack(cum: i64, blocks: &[SackBlock]) -> bool {
    match blocks {
        [first, rest @ ..] => {
            first.end <= cum + 1
                || rest
                    .first()
                    .is_some_and(|b| b.start <= first.start && first.end <= b.end)
        }
        [] => false,
    }
}

/// `tcp_tso_segs` for the pacer's rate and minimum RTT: the controller's `min_tso_segs`, or
/// `sysctl_tcp_min_tso_segs`.
fn tso_segs(cc: &CongestionControl, p: &Pacer, packet_bytes: u32) -> u32 {
    let min = cc.min_tso_segs().unwrap_or(super::tso::MIN_TSO_SEGS);
    autosize_segs(p.rate(), p.min_rtt(), packet_bytes, min)
}

impl Rfc6675Sender {
    pub fn new(cfg: TcpConfig, ep: Endpoint, limit_packets: Option<u64>, rng: RngStream) -> Self {
        let curseq = limit_packets.map_or(i64::MAX, |n| n.min(i64::MAX as u64) as i64);
        let cfg_overhead = cfg.overhead.0;
        // The controller may draw from a stream seeded by the sender's, which is cloned, not
        // drawn from: `overhead`'s delays stay as they were.
        let cc = CongestionControl::build(&cfg.controller(), &rng);
        let accecn = cfg
            .accecn()
            .then(|| Box::new(AccEcnSender::new(cfg.packet_size, cfg.sack())));
        let paced = cfg.pacing == Pacing::On || cc.always_paces();
        let mut pacer = paced.then(Box::<Pacer>::default);
        if let Some(p) = &mut pacer {
            // A controller's init may set `sk_pacing_rate` (`bbr_init_pacing_rate_from_rtt`).
            p.set_rate(cc.initial_pacing_rate());
            if cfg.segmentation_offload == SegmentationOffload::LinuxAutosize {
                p.set_tso_segs(tso_segs(&cc, p, cfg.data_size()));
            }
        }
        Rfc6675Sender {
            rate: cc.wants_rate_sample().then(Box::<DeliveryRate>::default),
            cong_control_pending: false,
            ack_losses: 0,
            pacer,
            ns3: Ns3State::for_config(&cfg),
            cwnd_use: cfg
                .grow_only_when_cwnd_limited
                .then(Box::<CwndUse>::default),
            rtt: RtoEstimator::new(&cfg),
            cc,
            scb: Scoreboard::new(
                cfg.dupack_threshold,
                if cfg.rack_tlp.enabled {
                    LossRule::Marked
                } else {
                    LossRule::DupThresh
                },
            ),
            rack: cfg.rack_tlp.enabled.then(Box::<Rack>::default),
            tlp: TailLossProbe::default(),
            prr: Prr::new(cfg.prr_bound),
            ssthresh: cfg.ssthresh_init.unwrap_or(cfg.window) as i64,
            cwnd: cfg.window_init as f64,
            cfg,
            ep,
            curseq,
            running: false,
            completed: false,
            t_seqno: 0,
            go_back_end: 0,
            dupacks: 0,
            ecn_recover: -1,
            in_cwr: false,
            ts_recent: 0,
            accecn,
            cong_action: false,
            timed: None,
            rtx: LazyTimer::new(),
            rtx_mode: XmitTimer::Rto,
            rto_at: 0,
            recovery_since: None,
            stall_deadline: None,
            timeouts_in_a_row: 0,
            before_timeout: None,
            frto: None,
            delayed: (cfg_overhead > 0).then(|| {
                Box::new(DelayedSends {
                    timer: LazyTimer::new(),
                    rng,
                })
            }),
            transmissions: Transmissions::default(),
        }
    }

    pub fn start(&mut self, cx: &mut AgentCtx) {
        if !self.completed {
            self.running = true;
            if self.awaiting_syn_ack() {
                if self.ns3.as_ref().is_some_and(|n| n.syn_due()) {
                    self.send_syn(cx);
                }
                return;
            }
            if self.send_window_or_delay(cx) {
                self.schedule_probe(cx, false);
            }
        }
    }

    /// The application writes `packets` more: a tcp_rr probe's next request or response
    /// (`transport/probe.rs`); sent as the window allows, as at the start.
    pub fn write_more(&mut self, cx: &mut AgentCtx, packets: u64) {
        self.curseq = self
            .curseq
            .saturating_add(packets.min(i64::MAX as u64) as i64);
        self.completed = false;
        if self.running && !self.awaiting_syn_ack() && self.send_window_or_delay(cx) {
            self.schedule_probe(cx, false);
        }
    }

    pub fn stop(&mut self, _cx: &mut AgentCtx) {
        self.running = false;
        self.rtx.cancel();
        if let Some(p) = &mut self.pacer {
            p.timer.cancel();
        }
        if let Some(d) = &mut self.delayed {
            d.timer.cancel();
        }
    }

    /// The run ends: a recovery still stalled counts its spell (the others were counted as
    /// they ended). Nothing is sent.
    pub fn finish(&mut self, cx: &mut AgentCtx) {
        if self.recovery_since.is_some() {
            self.count_stall(cx);
        }
    }

    pub fn timer(&mut self, cx: &mut AgentCtx, which: u8) {
        match which {
            RTX_TIMER if cx.timer_expired(&mut self.rtx, RTX_TIMER) && self.running => {
                if self.awaiting_syn_ack() {
                    // The SYN timed out (not an RTO of data: ns-3 resends it from
                    // SendEmptyPacket's own event, outside ReTxTimeout).
                    self.rtt.back_off();
                    self.send_syn(cx);
                    return;
                }
                match self.rtx_mode {
                    XmitTimer::Rto => self.timeout(cx),
                    XmitTimer::Reorder => self.reorder_timeout(cx),
                    XmitTimer::Probe => self.send_probe(cx),
                }
            }
            PACING_TIMER if self.running => {
                let expired = self
                    .pacer
                    .as_mut()
                    .is_some_and(|p| cx.timer_expired(&mut p.timer, PACING_TIMER));
                if expired {
                    // `tcp_pace_kick`: send what the window (in a recovery, its cwnd) allows.
                    self.send_delayed(cx);
                }
            }
            DELSND_TIMER if self.running => {
                let expired = self
                    .delayed
                    .as_mut()
                    .is_some_and(|d| cx.timer_expired(&mut d.timer, DELSND_TIMER));
                if expired {
                    self.send_delayed(cx);
                }
            }
            _ => {}
        }
    }

    pub fn state(&self, out: &mut StateSink) {
        super::window_and_timer_state(
            out,
            self.cwnd,
            self.ssthresh,
            self.rtt.srtt(),
            self.rtt.rto(),
        );
        out("in_flight", self.flight_size() as f64);
        out("pipe", self.scb.pipe() as f64);
        if let Some(rate) = self.pacer.as_ref().and_then(|p| p.rate()) {
            out("pacing_rate_bps", rate * 8.0);
        }
        if let Some(r) = &self.rate {
            let bytes = f64::from(self.cfg.data_size());
            out(
                "delivery_rate_bps",
                r.delivery_rate().map_or(f64::NAN, |pps| pps * bytes * 8.0),
            );
        }
        self.cc.state(out);
    }

    /// Packets sent and not cumulatively acknowledged (FlightSize).
    fn flight_size(&self) -> i64 {
        self.scb.high_data() - self.scb.snd_una() + 1
    }

    fn new_data_allowed(&self, next: i64) -> bool {
        next < self.curseq && next - self.scb.snd_una() < self.cfg.window as i64
    }

    /// cwnd and ssthresh, as the controller's hooks take them.
    fn window(&self) -> Window {
        Window {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
        }
    }

    fn set_window(&mut self, w: Window) {
        (self.cwnd, self.ssthresh) = (w.cwnd, w.ssthresh);
    }

    /// The ACK being processed as the controller's accounting hooks see it, the scoreboard
    /// and RTT estimator as they stand now.
    fn ack_event(&self, now: Time, delivered: i64, ece: bool, delivered_ce: i64) -> AckEvent {
        AckEvent {
            now,
            delivered,
            ece,
            delivered_ce,
            snd_una: self.scb.snd_una(),
            snd_nxt: self.scb.high_data() + 1,
            srtt: self.rtt.srtt(),
        }
    }

    /// An RTT sample of a packet sent at `sent_at`, for the RTO estimator and the flow's
    /// RTT statistics.
    fn rtt_sample(&mut self, cx: &mut AgentCtx, sent_at: Time) {
        self.rtt.sample(
            sent_at,
            cx.now,
            self.scb.snd_una(),
            self.scb.high_data() + 1,
        );
        cx.stats.on_rtt_sample(cx.now - sent_at);
        if let Some(p) = &mut self.pacer {
            p.on_rtt_sample(cx.now - sent_at);
        }
    }

    /// `handshake = "syn"` and no SYN-ACK yet.
    fn awaiting_syn_ack(&self) -> bool {
        self.ns3.as_ref().is_some_and(|n| n.awaiting_syn_ack())
    }

    /// A SYN (`handshake = "syn"`), the RTO armed for it.
    fn send_syn(&mut self, cx: &mut AgentCtx) {
        let n = self.ns3.as_mut().expect("a handshake keeps its state");
        let retransmission = n.on_syn_sent(cx.now);
        let mut p = self.ep.packet(PacketKind::TcpData, self.cfg.ack_size);
        p.seq = SYN_SEQ;
        p.retransmission = retransmission;
        if self.cfg.syn_ect == SynEct::Linux && self.cfg.congestion_control.needs_ecn() {
            // `tcp_ecn_send_syn`: INET_ECN_xmit on the socket; a retransmitted SYN keeps it.
            p.ecn.ect = self.cfg.ecn;
            p.ecn.ect1 = self.cfg.sends_ect1();
        }
        // A SYN's drop counts in the flow's loss rate, so its sending counts too.
        cx.stats.packets_sent += 1;
        cx.send(p);
        self.set_rtx_timer(cx);
    }

    /// The SYN-ACK: the handshake's RTT sample, then the data.
    fn on_syn_ack(&mut self, cx: &mut AgentCtx, echo: Time) {
        let n = self.ns3.as_mut().expect("a handshake keeps its state");
        let Some((first, count)) = n.on_syn_ack() else {
            return;
        };
        if count > 1 && self.cfg.ecn_fallback && self.cfg.ecn {
            // RFC 3168 6.1.1.1 (`tcp_ecn_clear_syn`, `tcp_ecn_rcv_synack`): the SYN that was
            // answered went without ECE and CWR, so the connection has no ECN.
            self.cfg.ecn = false;
            self.cc.ecn_not_negotiated();
            // A controller that paced because it needs to no longer does (tcp_prague.c's
            // `prague_release` resets SK_PACING_NEEDED): the sender paces as `tcp.pacing` says.
            if self.cfg.pacing != Pacing::On && !self.cc.always_paces() {
                self.pacer = None;
            }
        }
        let sample = handshake_sample(&self.cfg, first, count, echo);
        if let Some(sent_at) = sample {
            self.rtt_sample(cx, sent_at);
        }
        self.rtt.on_new_ack();
        self.rtx.cancel();
        // `tcp_init_transfer`: the controller starts now, with the handshake's RTT
        // (`tcp_init_congestion_control`), and sets the first pacing rate from it.
        let min_rtt = sample.map(|sent_at| cx.now - sent_at);
        self.cc
            .init_after_handshake(cx.now, self.rtt.srtt(), min_rtt, self.cwnd);
        self.refresh_pacing_rate();
        if self.send_window_or_delay(cx) {
            self.schedule_probe(cx, false);
        }
    }

    /// With `rtt_sampling = "oldest_unacked"`, before an ACK whose cumulative point is `cum`
    /// is applied: the sending of the oldest packet on record if the ACK covers it and it was
    /// sent only once (ns-3 `TcpSocketBase::EstimateRtt`, the front of `m_history`).
    fn oldest_unacked_sending(&self, cum: i64) -> Option<Time> {
        if self.cfg.rtt_sampling != RttSampling::OldestUnacked {
            return None;
        }
        let record_from = self.ns3.as_ref().map_or(0, |n| n.rtt_record_from());
        let oldest = self.scb.snd_una().max(record_from);
        if cum < oldest {
            return None;
        }
        match self.scb.last_sending(oldest) {
            Some((at, false)) => Some(at),
            _ => None,
        }
    }

    fn check_completion(&mut self, cx: &mut AgentCtx) {
        if !self.completed && self.curseq != i64::MAX && self.scb.snd_una() >= self.curseq {
            self.completed = true;
            cx.stats.completed_at = Some(cx.now);
            self.rtx.cancel();
        }
    }
}

#[cfg(test)]
mod cwr_tests;
#[cfg(test)]
mod hook_tests;
#[cfg(test)]
#[path = "rfc6675_sender_tests.rs"]
mod tests;
