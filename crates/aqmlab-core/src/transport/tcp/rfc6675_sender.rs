//! A one-way TCP sender with today's loss recovery: RFC 6675 SACK-based recovery driven by the
//! scoreboard of `recovery/rfc6675.rs`, with PRR (RFC 6937, `recovery/prr.rs`) deciding how
//! much to send on each ACK of the recovery, and any congestion controller
//! (`congestion/`). It shares the ns-2 agents' packets, sink, RTT estimator and timers, so the
//! two can be compared on the same network.
//!
//! - Duplicate ACK (RFC 6675 section 2): an ACK that does not advance the cumulative point
//!   and SACKs new data. Recovery starts on the DupThresh-th, or as soon as the first
//!   unacknowledged packet is deemed lost (section 5), unless a RecoveryPoint is outstanding.
//! - On entry: ssthresh = the controller's reduction of FlightSize (half for Reno, 0.7 for
//!   CUBIC; at least 2), PRR starts with RecoverFS = FlightSize (both cwnd with
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
//! Parameters read (TcpConfig): dupack_threshold, window, window_init, ssthresh_init,
//! limited_transmit, ecn, packet sizes, congestion_control, cwnd_growth and cubic, hystart,
//! ssthresh_base, prr_bound, rack_tlp, dsack, timestamps, overhead, rto_restart,
//! timeout_response, frto, rtt_sampling, dupacks_after_timeout, partial_ack_timer, handshake,
//! and the RTT estimator's rto_estimator, min_rto, max_rto, initial_rto, tick, max_backoff.

use super::congestion::bbr::{AckInfo, Bbr, CaState};
use super::congestion::{CongestionControl, CongestionControlKind, CwndGrowth, EcnCut};
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
use super::{
    DupacksAfterTimeout, PartialAckTimer, RtoRestart, RttSampling, SsthreshBase, TcpConfig,
    TimeoutResponse,
};
use crate::net::packet::MAX_SACK_BLOCKS;
use crate::net::wire_headers::SYN_SEQ;
use crate::net::{PacketId, PacketKind, SackBlock};
use crate::sim::StateSink;
use crate::sim::{LazyTimer, RngStream, StreamKind, Time};
use crate::transport::{AgentCtx, Endpoint};

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
    /// Delivery-rate sampling (Linux tcp_rate.c, `delivery_rate.rs`), for BBR only.
    rate: Option<Box<DeliveryRate>>,
    /// BBR's update for the ACK being processed is still to run (`bbr_update`), with the
    /// packets the ACK newly marked lost.
    bbr_pending: bool,
    ack_losses: i64,
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

impl Rfc6675Sender {
    pub fn new(cfg: TcpConfig, ep: Endpoint, limit_packets: Option<u64>, rng: RngStream) -> Self {
        let curseq = limit_packets.map_or(i64::MAX, |n| n.min(i64::MAX as u64) as i64);
        let cfg_overhead = cfg.overhead.0;
        let cc = if cfg.congestion_control == CongestionControlKind::Bbr {
            // BBR's random draws (the ProbeBW start phase) come from a stream seeded by the
            // sender's own, which is cloned, not drawn from: `overhead`'s delays stay as
            // they were.
            let seed = rng.clone().next_u64();
            CongestionControl::bbr(Bbr::new(
                RngStream::new(seed, StreamKind::Agent, 28),
                cfg.data_size(),
                cfg.window_init as f64,
                0,
            ))
        } else {
            CongestionControl::new(
                cfg.congestion_control,
                cfg.cubic,
                cfg.hystart,
                cfg.cwnd_growth,
            )
            .with_dctcp(&cfg.dctcp)
            .with_prague(&cfg.prague)
        };
        let paced = cfg.pacing == Pacing::On || cc.always_paces();
        let mut pacer = paced.then(Box::<Pacer>::default);
        if let (Some(p), Some(b)) = (&mut pacer, cc.as_bbr()) {
            // `bbr_init_pacing_rate_from_rtt`.
            p.set_rate(Some(b.pacing_rate()));
        }
        Rfc6675Sender {
            rate: cc.as_bbr().map(|_| Box::<DeliveryRate>::default()),
            bbr_pending: false,
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
        out("cwnd", self.cwnd);
        out("ssthresh", self.ssthresh as f64);
        out("srtt_ms", self.rtt.srtt() as f64 / 1e6);
        out("rto_ms", self.rtt.rto() as f64 / 1e6);
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

    pub fn receive(&mut self, cx: &mut AgentCtx, pkt: PacketId) {
        let p = cx.packets.get(pkt);
        let (is_ack, cum, ece) = (
            p.kind == PacketKind::TcpAck,
            p.ack,
            p.ecn.ece && self.cfg.ecn,
        );
        let echo = p.echo_sent_at;
        let mut blocks = [SackBlock::default(); MAX_SACK_BLOCKS];
        let n = p.sack_blocks().len();
        blocks[..n].copy_from_slice(p.sack_blocks());
        cx.free(pkt);
        if self.awaiting_syn_ack() {
            if is_ack && self.running && cum == SYN_SEQ {
                self.on_syn_ack(cx, echo);
            }
            return;
        }
        let una = self.scb.snd_una();
        if !is_ack || !self.running || cum > self.scb.high_data() || cum < una - 1 {
            return;
        }
        // Linux re-arms the RTO from the head's last transmission when the slot held a probe
        // or the reordering timer (`tcp_rearm_rto`).
        let slot_held_other = self.rtx_mode != XmitTimer::Rto;
        // Linux 6.x resets the timers only for an ACK that acknowledges or SACKs data
        // (`tcp_ack`: `FLAG_SET_XMIT_TIMER`): a bare duplicate ACK leaves a probe pending.
        let bare_dupack = cum < una && n == 0;
        if self.rtx_mode == XmitTimer::Probe
            && !(self.cfg.rto_restart == RtoRestart::Linux && bare_dupack)
        {
            // Any ACK takes the slot back to the RTO; the probe is scheduled again below if
            // the ACK advances and the conditions still hold (Linux tcp_ack: tcp_rearm_rto,
            // then tcp_set_xmit_timer).
            self.rearm_rto(cx);
        }
        let mut sack = &blocks[..n];
        let mut dsack_end = None;
        if is_dsack(cum, sack) {
            // aqmlab's network never duplicates a packet, so each D-SACK is one packet sent
            // twice with both copies delivered: a spurious retransmission. Counted if the
            // duplicate, whose sending the ACK echoes, was sent inside the measurement period,
            // as the retransmissions are (else a D-SACK just after the warm-up of a
            // retransmission sent before it counted one spurious retransmission more than
            // there were retransmissions).
            if echo >= cx.stats.start {
                cx.stats.spurious_retransmissions += 1;
            }
            dsack_end = Some(sack[0].end);
            sack = &sack[1..];
        }
        let was_recovering = self.scb.in_recovery();
        let was_after_loss = !self.scb.may_enter_recovery();
        let oldest_sent = self.oldest_unacked_sending(cum);
        // ns-3 ignores duplicate ACKs in CA_LOSS, the repair after a timeout.
        let ignore_dupacks = was_after_loss
            && !was_recovering
            && self.cfg.dupacks_after_timeout == DupacksAfterTimeout::Ignored;
        let lost_edge_before = self.scb.lost_edge();
        // F-RTO step 3.b: data never retransmitted, at or below RecoveryPoint, delivered.
        let frto_point = self.frto.and(self.scb.recovery_point());
        let mut original_delivered = false;
        // The earliest sending of a packet never retransmitted that this ACK SACKs (Linux
        // `first_sackt`, the SACK RTT sample's).
        let mut first_sackt: Option<Time> = None;
        let ts_echo = self.cfg.timestamps.then_some(echo);
        let now = cx.now;
        let rack = &mut self.rack;
        if let Some(rack) = rack.as_mut() {
            rack.begin_ack();
        }
        let rate = &mut self.rate;
        if let Some(r) = rate.as_mut() {
            // Linux `rs->prior_in_flight`: tcp_packets_in_flight before the ACK.
            r.begin_ack(self.scb.pipe());
        }
        let u = self.scb.on_ack_visit(cum, sack, |d: Delivered| {
            if let Some(rack) = rack.as_mut() {
                rack.on_delivered(d, now, ts_echo);
            }
            if let Some(r) = rate.as_mut() {
                r.on_delivered(d.seq, d.seq > cum);
            }
            original_delivered |= !d.retransmitted && frto_point.is_some_and(|p| d.seq <= p);
            if d.seq > cum && !d.retransmitted {
                first_sackt = Some(first_sackt.map_or(d.sent.at, |t| t.min(d.sent.at)));
            }
        });
        let advanced = u.newly_acked > 0;
        // DCTCP's alpha counts every ACK's delivered packets, with ECE or not, in recovery too
        // (Linux `tcp_count_delivered`, then `tcp_in_ack_event`); Prague's after the ECN
        // response below.
        self.cc.on_ack_ecn(
            u.delivered,
            ece,
            (self.scb.snd_una(), self.scb.high_data() + 1),
        );
        if let Some(r) = &mut self.rate {
            r.on_cum_ack(cum);
            self.bbr_pending = true;
        }
        if let Some(rack) = &mut self.rack {
            if dsack_end.is_some() {
                rack.on_dsack(self.scb.snd_una(), self.scb.high_data() + 1);
            }
            if was_after_loss && self.scb.may_enter_recovery() {
                rack.on_recovery_end();
            }
        }
        if self.tlp.on_ack(cum + 1, dsack_end, !advanced && n == 0) == ProbeOutcome::RepairedLoss {
            // RFC 8985 7.4: the probe repaired a loss the controller has not seen; it
            // reduces as for any loss (Linux tcp_process_tlp_ack: cwnd = ssthresh).
            self.reduce(cx, false);
            if !self.bbr_sets_cwnd() {
                self.cwnd = self.ssthresh as f64;
            }
        }
        if advanced {
            self.dupacks = 0;
            let sent_at = if self.cfg.rtt_sampling == RttSampling::OldestUnacked {
                oldest_sent.map(|sent| if self.cfg.timestamps { echo } else { sent })
            } else if self.cfg.timestamps {
                // The sink echoes the send time of the packet it acknowledges (of the first
                // one held, for a delayed ACK), as TSecr echoes TS.Recent.
                Some(echo)
            } else if self.timed.is_some_and(|(seq, _)| cum >= seq) {
                self.timed.take().map(|(_, t)| t)
            } else {
                None
            };
            if let Some(sent_at) = sent_at {
                self.rtt_sample(cx, sent_at);
            }
            // HyStart (either kind) and CUBIC's minimum RTT time every advancing ACK,
            // timestamps or not, as Linux's do from each packet's send time
            // (tcp_clean_rtx_queue's ca_rtt_us); the echo is that send time (see hystart.rs).
            self.cc.on_rtt_sample(
                cx.now - echo,
                cx.now,
                (self.scb.snd_una(), self.scb.high_data() + 1),
                self.cwnd,
                &mut self.ssthresh,
            );
            self.rtt.on_new_ack();
            self.timeouts_in_a_row = 0;
            self.transmissions.on_cum_ack(cum);
            if self.t_seqno < self.scb.snd_una() {
                self.t_seqno = self.scb.snd_una();
            }
            if was_recovering {
                self.count_stall(cx);
            }
            if self.flight_size() <= 0 {
                self.rtx.cancel();
            } else if self.cfg.rto_restart == RtoRestart::Linux && slot_held_other {
                // `tcp_rearm_rto` with a probe or reordering timer pending.
                self.rearm_rto(cx);
            } else if self.new_ack_restarts_timer(was_recovering) {
                self.set_rtx_timer(cx);
            }
            self.check_completion(cx);
        } else if u.newly_sacked > 0 && !ignore_dupacks {
            self.dupacks += 1;
            // Linux `tcp_clean_rtx_queue`: a SACK re-arms the timer only if its RTT sample is
            // of data sent before the head's last (re)transmission ("Otherwise the timeout may
            // continue to extend in loss recovery").
            if self.cfg.rto_restart == RtoRestart::Linux
                && first_sackt.is_some_and(|t| self.scb.head_sent_at().is_some_and(|h| t < h))
            {
                if slot_held_other || self.rtx_mode != XmitTimer::Rto {
                    self.rearm_rto(cx);
                } else {
                    self.set_rtx_timer(cx);
                }
            }
        }
        // BBR v1 does not react to ECN (Linux: `tcp_enter_cwr` calls `bbr_ssthresh`, which
        // does not cut, and with `cong_control` no PRR reduction follows).
        if ece && cum > self.ecn_recover && !self.scb.in_recovery() && !self.bbr_sets_cwnd() {
            // The controller's ECN response (DCTCP's alpha / 2, Prague's on a fractional
            // window; a loss's for the others).
            let slow_start = self.cwnd < self.ssthresh as f64;
            match self
                .cc
                .on_ecn(self.reduction_base(false), self.cwnd, cx.now, slow_start)
            {
                EcnCut::Ssthresh(s) => {
                    self.ssthresh = s.max(2);
                    self.cwnd = self.ssthresh as f64;
                    cx.stats.ecn_reductions += 1;
                }
                EcnCut::Window(w) => {
                    self.cwnd = w;
                    self.ssthresh = (w.floor() as i64).max(2);
                    cx.stats.ecn_reductions += 1;
                }
                EcnCut::None => {}
            }
            self.cong_action = true;
            self.ecn_recover = self.scb.high_data();
        }
        self.cc.after_ecn_response(
            u.delivered,
            ece,
            (self.scb.snd_una(), self.scb.high_data() + 1),
            cx.now,
            self.rtt.srtt(),
            self.cwnd < self.ssthresh as f64,
        );

        let newly_lost = self.rack_detect_loss(cx);
        // RFC 9937's SafeACK: the cumulative point advanced and no packet is newly deemed lost.
        let loss_revealed = match self.rack {
            Some(_) => newly_lost > 0,
            None => self.scb.loss_revealed_since(lost_edge_before),
        };
        let safe_ack = advanced && !loss_revealed;
        if self.rate.is_some() {
            // Linux `tp->lost`: the packets this ACK newly marked lost.
            self.ack_losses = match self.rack {
                Some(_) => newly_lost,
                None => self.scb.newly_lost_since(lost_edge_before),
            };
        }
        self.refresh_pacing_rate();
        if self.frto.is_some() {
            self.bbr_update(cx);
        }

        if self.frto.is_some() && self.frto_on_ack(cx, &u, original_delivered) {
            return;
        }

        if was_recovering {
            if self.scb.in_recovery() {
                let sndcnt = if self.bbr_sets_cwnd() {
                    // BBR sets cwnd itself (Linux: with `cong_control`, no PRR), and the
                    // recovery sends what it allows over the pipe (`tcp_xmit_retransmit_queue`).
                    self.bbr_update(cx);
                    self.cwnd_allowance()
                } else {
                    self.prr.on_ack(u.delivered, self.scb.pipe(), safe_ack)
                };
                self.recovery_send_or_delay(cx, sndcnt);
                return;
            }
            // This ACK ended the recovery (RFC 6937: cwnd = ssthresh; BBR restores its own).
            if !self.bbr_sets_cwnd() {
                self.cwnd = self.ssthresh as f64;
            }
            self.end_recovery_clock(cx);
        } else if self.scb.may_enter_recovery()
            && !ignore_dupacks
            && match self.rack {
                Some(_) => newly_lost > 0,
                None => {
                    self.dupacks >= self.cfg.dupack_threshold || self.scb.first_unacked_is_lost()
                }
            }
        {
            self.enter_recovery(cx, u.delivered);
            return;
        } else if !advanced && u.newly_sacked > 0 && self.cfg.limited_transmit && !ignore_dupacks {
            // RFC 3042: one new packet per early duplicate ACK, cwnd unchanged.
            self.bbr_update(cx);
            self.send_limited(cx);
            return;
        }
        if advanced && !ece {
            self.grow(cx, &u);
            self.refresh_pacing_rate();
        }
        self.bbr_update(cx);
        let sent = self.send_window_or_delay(cx);
        if advanced || sent {
            self.schedule_probe(cx, advanced);
        }
    }

    /// F-RTO on an ACK after a timeout (RFC 5682 section 3.1, SACK-enhanced, as Linux
    /// `tcp_process_loss`); returns true when it has sent what this ACK releases.
    /// - Step 3.b: the ACK delivers data never retransmitted that was outstanding at the
    ///   timeout (Linux `FLAG_ORIG_SACK_ACKED`): the timeout was spurious; undo it
    ///   (`tcp_try_undo_loss`: cwnd = max(cwnd, prior cwnd), ssthresh back if it was larger)
    ///   and go on with new data.
    /// - Step 3.a: after new data was sent, a duplicate ACK or a SACK: the loss was real;
    ///   conventional recovery (the go-back-N of the timeout) goes on, from this ACK.
    /// - Step 2.b: the first ACK that advances, before RecoveryPoint: the episode now lasts
    ///   until what is outstanding is acknowledged (`high_seq = snd_nxt`) and new data goes
    ///   out instead of repairs, as much as cwnd allows over pipe (`tcp_write_xmit`) if the
    ///   receiver's window has room; otherwise conventional recovery.
    fn frto_on_ack(&mut self, cx: &mut AgentCtx, u: &AckUpdate, original_delivered: bool) -> bool {
        let (newly_acked, newly_sacked) = (u.newly_acked, u.newly_sacked);
        let advanced = newly_acked > 0;
        let Some(f) = self.frto else {
            return false;
        };
        if self.scb.may_enter_recovery() {
            // RecoveryPoint acknowledged: the episode is over (step 2.a).
            self.frto = None;
            return false;
        }
        if original_delivered {
            self.frto = None;
            self.undo_timeout();
            return false;
        }
        if f.new_data_sent {
            if newly_sacked > 0 || !advanced {
                // The repairs resume on this ACK (Linux: REXMIT_LOST), not at the next
                // advance of the cumulative ACK, which the losses hold back.
                self.frto = None;
                self.send_window_or_delay(cx);
                return true;
            }
            return false;
        }
        if !advanced {
            return false;
        }
        let next = self.scb.high_data() + 1;
        if !self.new_data_allowed(next) {
            self.frto = None;
            return false;
        }
        self.scb.extend_timeout_episode();
        self.grow(cx, u);
        let cwnd = (self.cwnd.floor() as i64).max(1);
        let mut sent = false;
        let go_back = self.t_seqno;
        while self.scb.pipe() < cwnd && self.new_data_allowed(self.scb.high_data() + 1) {
            let seq = self.scb.high_data() + 1;
            self.output(cx, NextSeg::New(seq));
            sent = true;
        }
        // If the loss proves real (step 3.a), the go-back-N resumes where it stood.
        self.t_seqno = go_back;
        if !sent {
            // Nothing fits over what is in flight (without RACK's marks, the timeout leaves
            // the packets above the DupThresh edge in pipe): conventional recovery, on the
            // window this ACK opened.
            self.frto = None;
            self.send_window_or_delay(cx);
            return true;
        }
        self.frto = Some(Frto {
            new_data_sent: true,
        });
        true
    }

    /// F-RTO found the timeout spurious: restore what it cut and send new data from here.
    fn undo_timeout(&mut self) {
        if let Some(before) = self.before_timeout.take() {
            let (cwnd, ssthresh) = *before;
            self.cwnd = self.cwnd.max(cwnd);
            self.ssthresh = self.ssthresh.max(ssthresh);
        }
        self.scb.undo_timeout();
        self.t_seqno = self.scb.high_data() + 1;
    }

    /// RACK's loss detection (RFC 8985 section 6.2 steps 4 and 5): marks the packets now
    /// deemed lost and arms the reordering timer for those not yet due. Returns the count.
    fn rack_detect_loss(&mut self, cx: &mut AgentCtx) -> i64 {
        let Some((newest, threshold)) = self.rack_threshold() else {
            return 0;
        };
        let (marked, wait) = self.scb.mark_lost_by_time(newest, threshold, cx.now);
        if let Some(wait) = wait {
            let at = cx.now + wait;
            if at < self.rto_at {
                self.rtx_mode = XmitTimer::Reorder;
                cx.set_timer(&mut self.rtx, RTX_TIMER, at);
            }
        } else if self.rtx_mode == XmitTimer::Reorder {
            self.rearm_rto(cx);
        }
        marked
    }

    /// RACK's reference (the newest delivered packet's sending) and RACK.rtt + reo_wnd, the
    /// reordering window taken in fast or RTO recovery when a RecoveryPoint is outstanding;
    /// None without RACK or before any delivery.
    fn rack_threshold(&self) -> Option<(SendStamp, Time)> {
        let rack = self.rack.as_ref()?;
        rack.loss_threshold(self.rack_reo_wnd(rack))
    }

    fn rack_reo_wnd(&self, rack: &Rack) -> Time {
        rack.reo_wnd(
            !self.scb.may_enter_recovery(),
            self.scb.sacked_count(),
            self.cfg.dupack_threshold as usize,
            self.rtt.srtt(),
        )
    }

    /// The reordering timer fired: look again, start a recovery if a packet is now lost, and
    /// send what the recovery allows (Linux tcp_rack_reo_timeout).
    fn reorder_timeout(&mut self, cx: &mut AgentCtx) {
        self.rtx_mode = XmitTimer::Rto;
        let marked = self.rack_detect_loss(cx);
        if marked > 0 {
            if self.scb.in_recovery() {
                let sndcnt = if self.bbr_sets_cwnd() {
                    self.cwnd_allowance()
                } else {
                    self.prr.on_ack(0, self.scb.pipe(), false)
                };
                self.recovery_send_or_delay(cx, sndcnt);
            } else if self.scb.may_enter_recovery() {
                self.enter_recovery(cx, 0);
            }
        }
        if !self.rtx.is_armed() && self.flight_size() > 0 {
            self.rearm_rto(cx);
        }
    }

    /// The slot goes back to the RTO, at its expiry (at once if that has passed). With
    /// `rto_restart = "linux"` the expiry is the RTO after the head's last transmission
    /// (`tcp_rearm_rto`, `tcp_rto_delta_us`: a delta that is not positive fires at once).
    fn rearm_rto(&mut self, cx: &mut AgentCtx) {
        if self.cfg.rto_restart == RtoRestart::Linux {
            if let Some(head_sent) = self.scb.head_sent_at() {
                self.rto_at = head_sent.saturating_add(self.rtt.rto());
            }
        }
        self.rtx_mode = XmitTimer::Rto;
        let at = self.rto_at.max(cx.now);
        cx.set_timer(&mut self.rtx, RTX_TIMER, at);
    }

    /// RFC 8985 section 7.2: after new data is sent or an ACK advances, outside any recovery
    /// and with nothing SACKed, the slot waits for the probe timeout instead of the RTO.
    /// `ack_advanced`: an ACK of new data schedules it (Linux caps the PTO by the RTO then,
    /// by the time left until the RTO from the head otherwise).
    fn schedule_probe(&mut self, cx: &mut AgentCtx, ack_advanced: bool) {
        let flight = self.flight_size();
        if self.rack.is_none()
            || !self.running
            || self.completed
            || flight <= 0
            || !self.scb.may_enter_recovery()
            || self.scb.sacked_count() > 0
            || self.tlp.outstanding()
            || self.rtx_mode == XmitTimer::Reorder
        {
            return;
        }
        if !self.rtx.is_armed() {
            self.set_rtx_timer(cx);
        }
        let at = match self.cfg.rack_tlp.pto {
            PtoRule::Rfc8985 => {
                let pto = probe_timeout(self.rtt.srtt(), flight, self.cfg.rack_tlp.max_ack_delay.0);
                (cx.now + pto).min(self.rto_at)
            }
            PtoRule::Linux => {
                let rto = self.rtt.rto();
                let cap = if ack_advanced {
                    rto as i64
                } else {
                    let head = self.scb.head_sent_at().unwrap_or(cx.now);
                    head.saturating_add(rto) as i64 - cx.now as i64
                };
                cx.now + linux_probe_timeout(self.rtt.srtt(), flight, self.cfg.min_rto.0, cap)
            }
        };
        self.rtx_mode = XmitTimer::Probe;
        cx.set_timer(&mut self.rtx, RTX_TIMER, at);
    }

    /// TLP_send_probe (RFC 8985 section 7.3): one packet whatever the window, new data if
    /// there is some the receiver allows, else the highest packet sent; then the RTO.
    fn send_probe(&mut self, cx: &mut AgentCtx) {
        self.rtx_mode = XmitTimer::Rto;
        if self.completed || self.flight_size() <= 0 {
            return;
        }
        if !self.tlp.outstanding() {
            let next = self.scb.high_data() + 1;
            let is_retrans = !self.new_data_allowed(next);
            let seg = if is_retrans {
                NextSeg::Unsacked(self.scb.high_data())
            } else {
                NextSeg::New(next)
            };
            self.output(cx, seg);
            self.tlp.on_probe_sent(self.scb.high_data() + 1, is_retrans);
            cx.stats.tail_loss_probes += 1;
        }
        self.set_rtx_timer(cx);
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
        if let Some(sent_at) = handshake_sample(&self.cfg, first, count, echo) {
            self.rtt_sample(cx, sent_at);
        }
        self.rtt.on_new_ack();
        self.rtx.cancel();
        if self.send_window_or_delay(cx) {
            self.schedule_probe(cx, false);
        }
    }

    fn end_recovery_clock(&mut self, cx: &mut AgentCtx) {
        if self.recovery_since.is_some() {
            self.count_stall(cx);
        }
        if let Some(since) = self.recovery_since.take() {
            cx.stats.time_in_recovery_ns += cx.now - since.max(cx.stats.start);
        }
    }

    /// The head changed, or the recovery ended: the time since the head's deadline, inside
    /// the measurement period, was a stall.
    fn count_stall(&mut self, cx: &mut AgentCtx) {
        if let Some((_, deadline)) = self.stall_deadline.take() {
            if cx.now > deadline {
                cx.stats.stalled_recovery_ns += cx.now - deadline.max(cx.stats.start).min(cx.now);
            }
        }
    }

    /// The window a reduction starts from (`tcp.ssthresh_base`): FlightSize (RFC 5681 eq.
    /// 4), cwnd (Linux `tcp_init_cwnd_reduction`, `tcp_enter_loss`) or the pipe (ns-3);
    /// `entering_recovery` counts the first unacknowledged packet as lost in the pipe.
    fn reduction_base(&self, entering_recovery: bool) -> i64 {
        match self.cfg.ssthresh_base {
            SsthreshBase::FlightSize => self.flight_size(),
            SsthreshBase::Cwnd => (self.cwnd.floor() as i64).max(1),
            SsthreshBase::Pipe => {
                // ns-3's EnterRecovery marks the head lost before it asks BytesInFlight (its
                // other callers take BytesInFlight as it stands).
                let una = self.scb.snd_una();
                let head_uncounted = entering_recovery
                    && una <= self.scb.high_data()
                    && !self.scb.is_lost(una)
                    && !self.scb.is_sacked(una);
                self.scb.pipe() - i64::from(head_uncounted)
            }
        }
    }

    /// ssthresh from the controller's reduction of the base window (at least 2).
    fn reduce(&mut self, _cx: &mut AgentCtx, entering_recovery: bool) {
        if let Some(b) = self.cc.bbr_mut() {
            // `bbr_ssthresh`: the window is saved for the end of the episode, not cut.
            b.on_congestion(self.cwnd);
            self.cong_action = true;
            return;
        }
        self.ssthresh = self
            .cc
            .reduce(self.reduction_base(entering_recovery))
            .max(2);
        self.cong_action = true;
    }

    /// Whether an ACK of new data restarts the RTO: always (RFC 6298 5.3), except with
    /// `partial_ack_timer = "first"` the partial ACKs of a fast recovery after its first
    /// (ns-3 `TcpSocketBase::ProcessAck`: `NewAck(ackNumber, m_isFirstPartialAck)`).
    fn new_ack_restarts_timer(&mut self, was_recovering: bool) -> bool {
        let partial = was_recovering && self.scb.in_recovery();
        if !partial || self.cfg.partial_ack_timer != Some(PartialAckTimer::First) {
            return true;
        }
        let n = self
            .ns3
            .as_mut()
            .expect("partial_ack_timer = \"first\" keeps its state");
        n.first_partial_ack()
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

    fn enter_recovery(&mut self, cx: &mut AgentCtx, delivered: i64) {
        // PRR's RecoverFS: FlightSize (RFC 6937; ns-3's TcpPrrRecovery is given
        // UnAckDataCount()), or Linux's prior_cwnd.
        let recover_fs = match self.cfg.ssthresh_base {
            SsthreshBase::Cwnd => self.reduction_base(true),
            SsthreshBase::FlightSize | SsthreshBase::Pipe => self.flight_size(),
        };
        self.reduce(cx, true);
        if let Some(n) = &mut self.ns3 {
            n.on_recovery_entry();
        }
        self.scb.enter_recovery();
        self.tlp.reset();
        self.prr.enter(self.ssthresh, recover_fs);
        cx.stats.fast_recoveries += 1;
        self.recovery_since = Some(cx.now);
        let sndcnt = if self.bbr_sets_cwnd() {
            // Linux: `tcp_enter_recovery` (bbr_ssthresh saved the window) comes before
            // `bbr_main`, which sees the Recovery state: packet conservation.
            self.bbr_update(cx);
            self.cwnd_allowance()
        } else {
            self.prr.on_ack(delivered, self.scb.pipe(), false)
        };
        if self.pacer.is_some() {
            // Paced, the fast retransmit waits for its departure time like the rest (Linux
            // `tcp_xmit_retransmit_queue` checks `tcp_pacing_check`; PRR gives it at least
            // one packet, `tcp_cwnd_reduction`), so all go out as one allowance.
            self.send_recovery(cx, sndcnt.max(1));
            return;
        }
        // The fast retransmit goes out whatever PRR allows on this first ACK, at once (ns-2's
        // `dupack_action` outputs it undelayed by `overhead`); the rest as any recovery send.
        self.send_recovery(cx, 1);
        self.recovery_send_or_delay(cx, sndcnt - 1);
    }

    /// Sends up to `count` packets chosen by NextSeg.
    fn send_recovery(&mut self, cx: &mut AgentCtx, count: i64) {
        for sent in 0..count {
            if self.pacing_holds(cx) {
                // cwnd keeps what is still allowed, for the pacing timer's send (as Linux's
                // PRR leaves it in snd_cwnd for `tcp_xmit_retransmit_queue`); BBR's cwnd is
                // its own.
                if !self.bbr_sets_cwnd() {
                    self.cwnd = (self.scb.pipe() + count - sent).max(1) as f64;
                }
                return;
            }
            let next_new = self.scb.high_data() + 1;
            let Some(seg) = self.scb.next_seg(self.new_data_allowed(next_new)) else {
                break;
            };
            self.output(cx, seg);
            self.prr.on_send(1);
        }
        if !self.bbr_sets_cwnd() {
            self.cwnd = (self.scb.pipe() as f64).max(1.0);
        }
    }

    fn send_limited(&mut self, cx: &mut AgentCtx) {
        let next = self.scb.high_data() + 1;
        let allowed = self.flight_size() < self.cwnd.floor() as i64 + self.dupacks as i64;
        if allowed && self.new_data_allowed(next) && !self.pacing_holds(cx) {
            self.output(cx, NextSeg::New(next));
            self.t_seqno = next + 1;
        }
    }

    /// Recovery sends, after `overhead`'s delay if there is one: then cwnd holds what PRR
    /// allows (RFC 9937 6.2: cwnd = pipe + sndcnt) until the delayed send.
    fn recovery_send_or_delay(&mut self, cx: &mut AgentCtx, sndcnt: i64) {
        if self.cfg.overhead.0 == 0 {
            self.send_recovery(cx, sndcnt);
            return;
        }
        if !self.bbr_sets_cwnd() {
            self.cwnd = (self.scb.pipe() + sndcnt.max(0)) as f64;
        }
        if sndcnt > 0 {
            self.arm_delayed_send(cx);
        }
    }

    /// Window sends, after `overhead`'s delay if there is one. Returns whether new data left
    /// now.
    fn send_window_or_delay(&mut self, cx: &mut AgentCtx) -> bool {
        if self.cfg.overhead.0 == 0 {
            return self.send_window(cx);
        }
        if self.window_open() {
            self.arm_delayed_send(cx);
        }
        false
    }

    /// ns-2's `delsnd_timer_`: one delayed send at a time, uniform in [0, overhead).
    fn arm_delayed_send(&mut self, cx: &mut AgentCtx) {
        let overhead = self.cfg.overhead.0;
        let d = self
            .delayed
            .as_mut()
            .expect("delayed sends exist with an overhead");
        if !d.timer.is_armed() {
            let delay = (d.rng.uniform() * overhead as f64) as Time;
            cx.set_timer(&mut d.timer, DELSND_TIMER, cx.now + delay);
        }
    }

    /// The delay is over: send what the window (in a recovery, PRR's cwnd) allows now.
    fn send_delayed(&mut self, cx: &mut AgentCtx) {
        if self.completed {
            return;
        }
        if self.scb.in_recovery() {
            let count = self.cwnd_allowance();
            self.send_recovery(cx, count);
        } else if self.send_window(cx) {
            self.schedule_probe(cx, false);
        }
    }

    /// Whether `send_window` would send something now.
    fn window_open(&self) -> bool {
        if !self.running || self.completed {
            return false;
        }
        let seq = self.scb.next_unsacked(self.t_seqno);
        let outstanding = seq - self.scb.snd_una();
        let cwnd = (self.cwnd.floor() as i64).max(1);
        outstanding < cwnd
            && outstanding < self.cfg.window as i64
            && (seq <= self.scb.high_data() || self.new_data_allowed(seq))
    }

    /// Outside recovery: send while fewer than cwnd packets are outstanding, going back over
    /// unSACKed packets after a timeout before new data.
    fn send_window(&mut self, cx: &mut AgentCtx) -> bool {
        if !self.running || self.completed {
            return false;
        }
        let mut sent = false;
        let cwnd = (self.cwnd.floor() as i64).max(1);
        loop {
            // Past the SACKed packets (a jump over each run of them, not a step per packet),
            // and past the new data F-RTO sent after the timeout.
            self.t_seqno = self.scb.next_unsacked(self.t_seqno);
            if self.t_seqno >= self.go_back_end && self.t_seqno <= self.scb.high_data() {
                self.t_seqno = self.scb.high_data() + 1;
            }
            let seq = self.t_seqno;
            let outstanding = seq - self.scb.snd_una();
            if outstanding >= cwnd || outstanding >= self.cfg.window as i64 {
                break;
            }
            if seq > self.scb.high_data() && !self.new_data_allowed(seq) {
                break;
            }
            if self.pacing_holds(cx) {
                break;
            }
            if seq > self.scb.high_data() {
                self.output(cx, NextSeg::New(seq));
                sent = true;
            } else {
                self.output(cx, NextSeg::Unsacked(seq));
            }
            self.t_seqno = seq + 1;
        }
        if let Some(r) = &mut self.rate {
            // `tcp_rate_check_app_limited`: no data left to send, the window not full, every
            // loss repaired (outside a recovery, approximated).
            let nothing_to_send = self.t_seqno >= self.curseq;
            let pipe = self.scb.pipe();
            r.check_app_limited(nothing_to_send, pipe, cwnd, !self.scb.in_recovery());
        }
        if let Some(u) = &mut self.cwnd_use {
            u.after_send(
                sent,
                (self.scb.pipe(), cwnd),
                self.scb.high_data() - self.scb.snd_una() + 1,
                (self.scb.snd_una(), self.scb.high_data() + 1),
            );
        }
        sent
    }

    /// The controller's growth for the ACK `u`, unless `grow_only_when_cwnd_limited` finds the
    /// window unused (Linux `tcp_is_cwnd_limited`, the first test of `tcp_reno_cong_avoid`
    /// and `cubictcp_cong_avoid`). What the ACK is worth: with `cwnd_growth = "per_ack"` the
    /// packets it newly acknowledges cumulatively (ns-2); with `"packets_acked"` the packets
    /// it newly delivers (Linux's `acked_sacked`: `tcp_ack` passes `tcp_newly_delivered` to
    /// `tcp_cong_control` and on to `tcp_cong_avoid`, net/ipv4/tcp_input.c), so that a packet
    /// SACKed earlier is not counted again when the cumulative ACK covers it. Counting it
    /// again grew the window by up to a window's worth of SACKed packets at the end of each
    /// recovery: at 10 CUBIC flows of about 6 packets through PIE, 36 % more recoveries and
    /// drops than the kernel through the same PIE (issue 26, docs/validation.md).
    fn grow(&mut self, cx: &mut AgentCtx, u: &AckUpdate) {
        let acked = match self.cfg.cwnd_growth {
            // Prague counts every packet delivered (tcp_prague.c `rs->acked_sacked`).
            _ if self.cc.counts_delivered() => u.delivered,
            CwndGrowth::PerAck => u.newly_acked,
            CwndGrowth::PacketsAcked => u.delivered,
        };
        if self
            .cwnd_use
            .as_ref()
            .is_some_and(|u| !u.allows_growth(self.cwnd, self.ssthresh))
        {
            return;
        }
        self.cc.on_ack(
            &mut self.cwnd,
            &mut self.ssthresh,
            acked,
            cx.now,
            self.rtt.srtt(),
        );
    }

    /// The RTO expired. With `timeout_response = "linux"` (`tcp_enter_loss`): ssthresh is
    /// cut only if no cut was made for this window (no RecoveryPoint of a fast recovery or an
    /// earlier timeout outstanding; Linux's "state <= Disorder, or high_seq acknowledged"),
    /// and cwnd = what is still in flight after the timeout's loss marks + 1. F-RTO starts
    /// unless a recovery was under way, except on a repeated timeout (RFC 5682 3.2; Linux
    /// `new_recovery || icsk_retransmits`).
    fn timeout(&mut self, cx: &mut AgentCtx) {
        if self.completed || self.flight_size() <= 0 {
            return;
        }
        let repeated = self.timeouts_in_a_row > 0;
        let episode_open = !self.scb.may_enter_recovery();
        self.end_recovery_clock(cx);
        // With `ssthresh_base = "pipe"`, a timeout of a head the last timeout already resent
        // keeps ssthresh (ns-3 ReTxTimeout: in CA_LOSS with the head retransmitted); the
        // go-back-N resends from the head, so it did when it has gone past it.
        let head_already_resent = self.cfg.ssthresh_base == SsthreshBase::Pipe
            && !self.scb.may_enter_recovery()
            && !self.scb.in_recovery()
            && self.t_seqno > self.scb.snd_una();
        let cut = (self.cfg.timeout_response == TimeoutResponse::Rfc5681 || !episode_open)
            && !head_already_resent;
        if cut {
            self.before_timeout = Some(Box::new((self.cwnd, self.current_ssthresh())));
            self.reduce(cx, false);
        }
        // Linux tcp_enter_loss sets TCP_CA_Loss whether or not it cuts: cubictcp_state.
        self.cc.on_timeout(cx.now, self.scb.high_data() + 1);
        if let (Some(b), Some(r)) = (self.cc.bbr_mut(), &self.rate) {
            b.on_timeout(r, cx.now);
        }
        self.dupacks = 0;
        self.scb.on_timeout();
        if self.rack.is_some() {
            self.tlp.reset();
            // RFC 8985 6.3, in RTO recovery now (on_timeout set the RecoveryPoint): due is a
            // packet sent RACK.rtt + RACK.reo_wnd ago, RACK.rtt being 0 before any delivery
            // (every packet then; Linux `tcp_timeout_mark_lost`, `tcp_rack_skb_timeout` with
            // `rack.rtt_us` 0).
            let threshold = self
                .rack
                .as_ref()
                .map_or(0, |rack| rack.rtt() + self.rack_reo_wnd(rack));
            self.scb.mark_losses_on_rto(threshold, cx.now);
        }
        self.cwnd = match self.cfg.timeout_response {
            TimeoutResponse::Rfc5681 => 1.0,
            TimeoutResponse::Linux => (self.scb.pipe() + 1) as f64,
        };
        self.frto = (self.cfg.frto && (!episode_open || repeated)).then_some(Frto {
            new_data_sent: false,
        });
        self.t_seqno = self.scb.snd_una();
        self.go_back_end = self.scb.high_data() + 1;
        self.timed = None;
        if repeated {
            cx.stats.rto_backoffs += 1;
        }
        self.timeouts_in_a_row = self.timeouts_in_a_row.saturating_add(1);
        if let Some(n) = &mut self.ns3 {
            n.on_timeout(self.scb.high_data());
        }
        self.rtt.back_off();
        cx.stats.timeouts += 1;
        self.set_rtx_timer(cx);
        self.send_window_or_delay(cx);
    }

    /// Linux `tcp_current_ssthresh` outside a reduction: max(ssthresh, 3/4 cwnd), what an
    /// undo restores.
    fn current_ssthresh(&self) -> i64 {
        let cwnd = self.cwnd.floor() as i64;
        self.ssthresh.max((cwnd >> 1) + (cwnd >> 2))
    }

    fn set_rtx_timer(&mut self, cx: &mut AgentCtx) {
        self.rto_at = cx.now + self.rtt.rto();
        self.rtx_mode = XmitTimer::Rto;
        cx.set_timer(&mut self.rtx, RTX_TIMER, self.rto_at);
    }

    /// BBR's update for this ACK (Linux `tcp_rate_gen`, then `tcp_cong_control` ->
    /// `bbr_main`), once, after the ACK's loss marks and recovery state are known and before
    /// anything is sent on it.
    fn bbr_update(&mut self, cx: &mut AgentCtx) {
        if !self.bbr_pending {
            return;
        }
        self.bbr_pending = false;
        let ca_state = if self.scb.in_recovery() {
            CaState::Recovery
        } else if !self.scb.may_enter_recovery() {
            CaState::Loss
        } else {
            CaState::Open
        };
        let info = AckInfo {
            now: cx.now,
            in_flight: self.scb.pipe(),
            ca_state,
            srtt: self.rtt.srtt(),
            next_departure: self.pacer.as_ref().map_or(0, |p| p.next_departure()),
        };
        let (Some(rate), Some(bbr)) = (self.rate.as_mut(), self.cc.bbr_mut()) else {
            return;
        };
        rate.generate(cx.now, self.ack_losses);
        self.ack_losses = 0;
        bbr.on_ack(rate, &info, &mut self.cwnd);
        if let Some(s) = bbr.ssthresh() {
            self.ssthresh = s as i64;
        }
        let pacing = bbr.pacing_rate();
        if let Some(p) = &mut self.pacer {
            p.set_rate(Some(pacing));
        }
    }

    /// BBR sets cwnd itself on every ACK (Linux: a `cong_control` module, `bbr_main`), so the
    /// sender's own window rules stand aside: no PRR, no cwnd = ssthresh after an episode, no
    /// cut on ECE.
    fn bbr_sets_cwnd(&self) -> bool {
        self.cc.as_bbr().is_some()
    }

    /// The packets cwnd allows over the pipe now (a recovery's sends under PRR's or BBR's cwnd).
    fn cwnd_allowance(&self) -> i64 {
        (self.cwnd.floor() as i64 - self.scb.pipe()).max(0)
    }

    /// Linux `tcp_pacing_check`: whether the next send must wait for its departure time; if
    /// so the pacing timer is armed for it.
    fn pacing_holds(&mut self, cx: &mut AgentCtx) -> bool {
        let Some(pacer) = &mut self.pacer else {
            return false;
        };
        let Some(at) = pacer.hold_until(cx.now) else {
            return false;
        };
        if pacer.timer.deadline() != Some(at) {
            cx.set_timer(&mut pacer.timer, PACING_TIMER, at);
        }
        true
    }

    /// The pacing rate after an ACK's window update (Linux `tcp_cong_control`, then
    /// `tcp_update_pacing_rate`): the controller's own, else Linux's rule.
    fn refresh_pacing_rate(&mut self) {
        if self.pacer.is_none() {
            return;
        }
        let inputs = PacingInputs {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            packets_out: self.flight_size(),
            srtt: self.rtt.srtt(),
            packet_bytes: self.cfg.data_size(),
        };
        let rate = self
            .cc
            .pacing_rate(&inputs)
            .or_else(|| linux_pacing_rate(&inputs));
        if let Some(p) = &mut self.pacer {
            p.set_rate(rate);
        }
    }

    fn check_completion(&mut self, cx: &mut AgentCtx) {
        if !self.completed && self.curseq != i64::MAX && self.scb.snd_una() >= self.curseq {
            self.completed = true;
            cx.stats.completed_at = Some(cx.now);
            self.rtx.cancel();
        }
    }

    fn output(&mut self, cx: &mut AgentCtx, seg: NextSeg) {
        let seq = seg.seq();
        let new_data = seq > self.scb.high_data();
        let mut p = self.ep.packet(PacketKind::TcpData, self.cfg.data_size());
        p.seq = seq;
        p.ecn.ect = self.cfg.ecn;
        p.ecn.ect1 = self.cfg.sends_ect1();
        if self.cong_action && new_data {
            p.ecn.cwr = self.cfg.ecn;
            self.cong_action = false;
        }
        p.retransmission = !new_data;
        if new_data {
            // Recovery sends new data through NextSeg: the window must not go back over it.
            self.t_seqno = self.t_seqno.max(seq + 1);
            if self.timed.is_none() {
                self.timed = Some((seq, cx.now));
            }
        } else {
            cx.stats.retransmissions += 1;

            // Karn: a retransmitted packet's ACK is ambiguous.
            if self.timed.is_some_and(|(t, _)| t == seq) {
                self.timed = None;
            }
        }
        let packets_out = self.flight_size();
        if let Some(r) = &mut self.rate {
            r.on_sent(seq, cx.now, packets_out, !new_data);
        }
        self.scb.on_sent(seg, cx.now);
        let sends = u64::from(self.transmissions.on_sent(seq));
        cx.stats.max_transmissions = cx.stats.max_transmissions.max(sends);
        cx.stats.packets_sent += 1;
        if let Some(pacer) = &mut self.pacer {
            pacer.on_sent(cx.now, p.size);
        }
        cx.send(p);
        let head_resent = !new_data && seq == self.scb.snd_una();
        if head_resent
            && self.scb.in_recovery()
            && self.stall_deadline.is_none_or(|(head, _)| head != seq)
        {
            self.stall_deadline = Some((seq, cx.now + self.rtt.rto()));
        }
        let restart = head_resent
            && match self.cfg.rto_restart {
                RtoRestart::NewAck => false,
                RtoRestart::HeadRetransmission => true,
                // Not while the reordering timer is pending (`tcp_xmit_retransmit_queue`).
                RtoRestart::Linux => self.rtx_mode != XmitTimer::Reorder,
            };
        if !self.rtx.is_armed() || restart {
            self.set_rtx_timer(cx);
        }
    }
}

#[cfg(test)]
#[path = "rfc6675_sender_tests.rs"]
mod tests;
