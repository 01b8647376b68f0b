//! The one-way TCP sender in ns-2 semantics: Agent/TCP/Reno (tcp/tcp-reno.cc),
//! Agent/TCP/Newreno (tcp/tcp-newreno.cc, RFC 6582) and Agent/TCP/Sack1 (tcp/tcp-sack1.cc,
//! RFC 6675-like), on the common TcpAgent machinery of tcp/tcp.cc (RFC 5681 windows, RFC 6298
//! timer via [`RttEstimator`], RFC 3168 ECN).
//!
//! Parameters read (TcpConfig): variant, ecn, packet_size, header_size, window (`wnd_`),
//! window_init (`windowInit_`), ssthresh_init, dupack_threshold (`numdupacks_`), max_burst
//! (`maxburst_`), limited_transmit (`singledup_`), partial_ack_timer (`newreno_changes1_`,
//! Sack1 `partial_ack_`), overhead (`overhead_`), and through the estimator tick, min_rto,
//! max_rto, initial_rto, max_backoff.
//!
//! Sequence numbers count packets from 0. Names follow ns-2: `t_seqno` is the next packet to
//! send, `maxseq` the highest sent, `highest_ack` the highest cumulative ACK, `last_ack` the
//! cumulative ACK that ended the last window of dup-ACK bookkeeping (it lags `highest_ack`
//! only during SACK recovery), `recover` the highest packet outstanding at the last window
//! reduction: no further reduction until it is acknowledged (ns-2 `bug_fix_`).
//!
//! ns-2 defaults that are fixed here: `bug_fix_` on, `exitFastRetrans_` on, `timerfix_` on,
//! `restart_bugfix_` on, `rfc2988_` on, `ts_option_` off, `precision_reduce_` off,
//! `LimTransmitFix_` off, Sack1 `partial_ack_action` off (Sack1 `partial_ack_ true` also
//! sends a packet on each partial ACK; only its timer rule is offered, as `first`).
//!
//! ns-2 defaults that are options (read in ns-2.35, github hbatmit/ns2.35,
//! tcl/lib/ns-default.tcl and tcp/*.cc):
//! - `limited_transmit` [`singledup_`, `Agent/TCP set singledup_ 1`, "default changed on
//!   2001/11/28"] (on; RFC 3042 2): on the 1st and 2nd duplicate ACK, tcp.cc
//!   `TcpAgent::send_one` sends one new packet if `t_seqno_ <= highest_ack_ + wnd_`,
//!   `t_seqno_ < curseq_` and `t_seqno_ <= highest_ack_ + cwnd_ + dupacks_`; cwnd is not
//!   changed. Called from `recv` in tcp-reno.cc (Reno), tcp-newreno.cc (Newreno) and
//!   tcp-sack1.cc (Sack1, only for a dup ACK whose SACK blocks report new data, `CheckUpdate`)
//!   in the branch `dupacks_ < numdupacks_ && singledup_`. `false` is the pre-2001 ns-2.
//! - `partial_ack_timer` (`first` for newreno, `every` for sack): tcp-newreno.cc
//!   `partialnewack_helper` calls `newtimer` only `if (!newreno_changes1_ || firstpartial_ ==
//!   0)`, with `Agent/TCP/Newreno set newreno_changes1_ 1` ("Default changed to 1 on 5/5/03,
//!   to reflect RFC 2582"); `firstpartial_` is cleared by the ACK that ends the recovery.
//!   `partialnewack` clears the backoff (`t_backoff_ = 1`) only when the timed packet is
//!   acked. tcp-sack1.cc `recv`, in fast recovery, with `partial_ack_ false` (default) calls
//!   `newtimer` and `t_backoff_ = 1` on every partial ACK; with `partial_ack_ true` on the
//!   first only.
//! - `overhead` [`overhead_`, `Agent/TCP set overhead_ 0`] (0 = off): tcp.cc
//!   `TcpAgent::send_much` (and Sack1's) returns at once while `delsnd_timer_` is pending
//!   unless forced; when the window is open and `overhead_ != 0` it arms `delsnd_timer_` to
//!   `Random::uniform(overhead_)` and returns; `timeout_nonrtx(TCP_TIMER_DELSND)` then calls
//!   `send_much(1, ...)`, which sends all the window allows. `send_one` and retransmissions
//!   in `dupack_action`/`partialnewack_helper` call `output` directly, undelayed.

use super::congestion::{
    Acked, CongestionControl, CongestionOps, ControllerConfig, HystartParams, Signal, Window,
};
use super::rtt::RttEstimator;
use super::sack_scoreboard::SackScoreboard;
use super::transmissions::Transmissions;
use super::{PartialAckTimer, TcpConfig, TcpVariant};
use crate::net::packet::MAX_SACK_BLOCKS;
use crate::net::{PacketId, PacketKind, SackBlock};
use crate::sim::StateSink;
use crate::sim::{LazyTimer, RngStream, Time};
use crate::transport::{AgentCtx, Endpoint};

/// Timer number of the retransmission timer.
pub const RTX_TIMER: u8 = 0;
/// Timer number of the delayed-send timer (ns-2 `delsnd_timer_`, used with `overhead`).
pub const DELSND_TIMER: u8 = 1;

/// Recover point before any window reduction: every ACK is above it.
const NO_RECOVER: i64 = -2;

/// The last window reduction (ns-2 `last_cwnd_action_`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CwndAction {
    None,
    DupAck,
    Exited,
    Timeout,
    Ecn,
}

pub struct TcpSender {
    cfg: TcpConfig,
    ep: Endpoint,
    /// Packets to send in all (ns-2 `curseq_`); i64::MAX for an infinite FTP source.
    curseq: i64,
    running: bool,
    completed: bool,

    t_seqno: i64,
    maxseq: i64,
    highest_ack: i64,
    last_ack: i64,
    recover: i64,
    last_cwnd_action: CwndAction,

    cwnd: f64,
    ssthresh: i64,
    /// Reno/NewReno window inflation by duplicate ACKs (ns-2 `dupwnd_`), kept apart from
    /// cwnd so that deflation is exact.
    dupwnd: i64,
    dupacks: u32,
    /// A window reduction happened; the next new data packet carries CWR (ns-2
    /// `cong_action_`).
    cong_action: bool,

    /// How the window grows and shrinks (Reno: ns-2's `opencwnd` and `slowdown`).
    cc: CongestionControl,
    rtt: RttEstimator,
    /// A packet is being timed (ns-2 `rtt_active_`, `rtt_seq_`, `rtt_ts_`).
    rtt_active: bool,
    rtt_seq: i64,
    rtt_ts: Time,
    rtx: LazyTimer,
    /// A send delayed by `overhead` is pending (ns-2 `delsnd_timer_`).
    delsnd: LazyTimer,
    /// The sender's own random stream: only `overhead` draws from it.
    rng: RngStream,
    /// A partial ACK of the current recovery has been seen (ns-2 `firstpartial_`).
    first_partial: bool,

    // Sack1 only.
    fastrecov: bool,
    /// Estimate of packets in the network during SACK recovery (ns-2 `pipe_`).
    pipe: i64,
    /// Set by a timeout until the next new ACK: dup ACKs then do not start a recovery.
    after_timeout: bool,
    scb: SackScoreboard,

    // Measures only (they change nothing ns-2 does).
    /// Sends per outstanding packet (`max_transmissions_of_a_segment`).
    transmissions: Transmissions,
    /// The cumulative ACK at the last timeout: one more timeout there is a repeated one
    /// (`rto_backoffs`).
    timed_out_at_ack: Option<i64>,
}

impl TcpSender {
    pub fn new(cfg: TcpConfig, ep: Endpoint, limit_packets: Option<u64>, rng: RngStream) -> Self {
        let curseq = limit_packets.map_or(i64::MAX, |n| n.min(i64::MAX as u64) as i64);
        let rtt = RttEstimator::new(&cfg);
        let ssthresh = cfg.ssthresh_init.unwrap_or(cfg.window) as i64;
        let cwnd = cfg.window_init as f64;
        // ns-2 has no HyStart++: its slow start stays ns-2's whatever the configuration.
        let cc = CongestionControl::build(
            &ControllerConfig {
                hystart: HystartParams::default(),
                ..cfg.controller()
            },
            &rng,
        );
        TcpSender {
            cfg,
            ep,
            curseq,
            running: false,
            completed: false,
            t_seqno: 0,
            maxseq: -1,
            highest_ack: -1,
            last_ack: -1,
            recover: NO_RECOVER,
            last_cwnd_action: CwndAction::None,
            cwnd,
            ssthresh,
            dupwnd: 0,
            dupacks: 0,
            cong_action: false,
            cc,
            rtt,
            rtt_active: false,
            rtt_seq: -1,
            rtt_ts: 0,
            rtx: LazyTimer::new(),
            delsnd: LazyTimer::new(),
            rng,
            first_partial: false,
            fastrecov: false,
            pipe: 0,
            after_timeout: false,
            scb: SackScoreboard::new(),
            transmissions: Transmissions::default(),
            timed_out_at_ack: None,
        }
    }

    pub fn start(&mut self, cx: &mut AgentCtx) {
        if self.completed {
            return;
        }
        self.running = true;
        self.send_much(cx, self.cfg.max_burst, false);
    }

    /// The application writes `packets` more (ns-2's `advanceby`, tcp.cc: curseq_ += n, then
    /// send_much): a tcp_rr probe's next request or response (`transport/probe.rs`).
    pub fn write_more(&mut self, cx: &mut AgentCtx, packets: u64) {
        self.curseq = self
            .curseq
            .saturating_add(packets.min(i64::MAX as u64) as i64);
        self.completed = false;
        self.send_much(cx, self.cfg.max_burst, false);
    }

    /// The application stops: nothing more is sent, ACKs are ignored.
    pub fn stop(&mut self, _cx: &mut AgentCtx) {
        self.running = false;
        self.rtx.cancel();
        self.delsnd.cancel();
    }

    pub fn receive(&mut self, cx: &mut AgentCtx, pkt: PacketId) {
        let p = cx.packets.get(pkt);
        let is_ack = p.kind == PacketKind::TcpAck;
        let ack = p.ack;
        let ece = p.ecn.ece && self.cfg.ecn;
        let mut blocks = [SackBlock::default(); MAX_SACK_BLOCKS];
        let n = p.sack_blocks().len();
        blocks[..n].copy_from_slice(p.sack_blocks());
        cx.free(pkt);
        // An ACK for data never sent is corrupt; one below -1 is meaningless.
        if !is_ack || !self.running || ack > self.maxseq || ack < -1 {
            return;
        }
        match self.cfg.variant {
            TcpVariant::Reno | TcpVariant::NewReno => self.recv_reno(cx, ack, ece),
            TcpVariant::Sack => self.recv_sack(cx, ack, ece, &blocks[..n]),
        }
    }

    pub fn timer(&mut self, cx: &mut AgentCtx, which: u8) {
        match which {
            RTX_TIMER if cx.timer_expired(&mut self.rtx, RTX_TIMER) && self.running => {
                self.timeout(cx);
            }
            // ns-2 `timeout_nonrtx`: the delayed send goes out, forced past the delay.
            DELSND_TIMER if cx.timer_expired(&mut self.delsnd, DELSND_TIMER) => {
                self.send_much(cx, self.cfg.max_burst, true);
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
        out(
            "in_flight",
            (self.t_seqno - 1 - self.highest_ack).max(0) as f64,
        );
        self.cc.state(out);
    }

    // ---- Reno and NewReno (tcp-reno.cc, tcp-newreno.cc) ----

    fn recv_reno(&mut self, cx: &mut AgentCtx, ack: i64, ece: bool) {
        if ece {
            self.ecn(cx, ack);
        }
        let thresh = self.cfg.dupack_threshold;
        if ack > self.last_ack {
            let partial = self.cfg.variant == TcpVariant::NewReno
                && self.last_cwnd_action == CwndAction::DupAck
                && ack < self.recover;
            if partial {
                self.partial_ack(cx, ack);
            } else {
                // Reno leaves recovery on any new ACK; NewReno on one covering `recover`.
                if self.dupwnd > 0 || self.last_cwnd_action == CwndAction::DupAck {
                    self.dupwnd = 0;
                    if self.last_cwnd_action == CwndAction::DupAck {
                        self.last_cwnd_action = CwndAction::Exited;
                    }
                }
                self.first_partial = false;
                self.recv_newack(cx, ack, ece);
            }
        } else if ack == self.last_ack {
            self.dupacks += 1;
            if self.dupacks == thresh {
                self.dupack_action(cx);
            } else if self.dupacks > thresh && self.last_cwnd_action == CwndAction::DupAck {
                self.dupwnd += 1;
            } else if self.dupacks < thresh && self.cfg.limited_transmit {
                self.send_one(cx);
            }
        } else {
            return; // an old ACK, reordered: nothing to learn
        }
        if self.dupacks == 0 {
            self.send_much(cx, self.cfg.max_burst, false);
        } else if self.dupacks >= thresh {
            // ns-2 sends at most two packets per dup ACK during recovery.
            self.send_much(cx, 2, false);
        }
    }

    /// Three dup ACKs: fast retransmit, unless this window was already reduced.
    fn dupack_action(&mut self, cx: &mut AgentCtx) {
        if !self.start_fast_retransmit(cx) {
            return;
        }
        self.reset_rtx_timer(cx, false);
        self.output(cx, self.last_ack + 1);
        self.dupwnd = self.cfg.dupack_threshold as i64;
    }

    /// NewReno partial ACK (ns-2 `partialnewack_helper`, `partialnewack`): restart the
    /// retransmission timer if `partial_ack_timer` says so (the first partial ACK of the
    /// recovery by default), deflate the window by what was acked and add one back (RFC 6582
    /// 3.2 step 5), retransmit the next hole, stay in recovery. As in ns-2 the timer is
    /// restarted with the current backoff, which is cleared only when the timed packet is
    /// acked.
    fn partial_ack(&mut self, cx: &mut AgentCtx, ack: i64) {
        if self.restart_on_partial_ack() {
            self.newtimer(cx);
        }
        let acked = ack - self.last_ack;
        let total = self.cwnd.floor() as i64 + self.dupwnd - acked + 1;
        if total >= self.cwnd.floor() as i64 {
            self.dupwnd = total - self.cwnd.floor() as i64;
        } else {
            self.cwnd = (total as f64).max(1.0);
            self.dupwnd = 0;
        }
        self.last_ack = ack;
        self.highest_ack = ack;
        if self.t_seqno < ack + 1 {
            self.t_seqno = ack + 1;
        }
        if self.rtt_active && ack >= self.rtt_seq {
            self.rtt_active = false;
            self.rtt.reset_backoff();
        }
        self.output(cx, ack + 1);
    }

    /// Whether this partial ACK restarts the retransmission timer; marks the recovery as
    /// having seen one (ns-2 `firstpartial_`, cleared by the ACK that ends the recovery).
    fn restart_on_partial_ack(&mut self) -> bool {
        let first = !self.first_partial;
        self.first_partial = true;
        first || self.cfg.partial_ack_timer() == PartialAckTimer::Every
    }

    // ---- Sack1 (tcp-sack1.cc) ----

    fn recv_sack(&mut self, cx: &mut AgentCtx, ack: i64, ece: bool, blocks: &[SackBlock]) {
        if ece {
            self.ecn(cx, ack);
        }
        if ack < self.last_ack {
            return;
        }
        let thresh = self.cfg.dupack_threshold;
        if !self.fastrecov {
            if ack > self.last_ack {
                self.first_partial = false;
                self.recv_newack(cx, ack, ece);
                self.after_timeout = false;
                self.scb.clear();
            } else if !self.after_timeout && self.scb.update(ack, blocks, self.maxseq) {
                // Only a dup ACK that SACKs new data counts (ns-2 CheckUpdate).
                self.dupacks += 1;
                if self.dupacks == thresh {
                    self.sack_dupack_action(cx);
                } else if self.dupacks < thresh && self.cfg.limited_transmit {
                    self.send_one(cx);
                }
            }
            if self.dupacks == 0 || self.fastrecov {
                self.send_much(cx, self.cfg.max_burst, false);
            }
        } else {
            self.pipe -= 1;
            if ack >= self.recover {
                self.fastrecov = false;
                self.recover = NO_RECOVER;
                self.after_timeout = false;
                self.scb.clear();
                self.newack(cx, ack, ece);
                self.check_completion(cx);
            } else if ack > self.highest_ack {
                // Partial ACK: the retransmission arrived, so two packets left the network.
                self.pipe -= 1;
                self.highest_ack = ack;
                self.scb.update(ack, blocks, self.maxseq);
                if self.restart_on_partial_ack() {
                    self.newtimer(cx);
                    self.rtt.reset_backoff();
                }
            } else if !self.after_timeout && self.scb.update(ack, blocks, self.maxseq) {
                self.dupacks += 1;
            }
            self.send_much(cx, self.cfg.max_burst, false);
        }
    }

    fn sack_dupack_action(&mut self, cx: &mut AgentCtx) {
        if !self.start_fast_retransmit(cx) {
            return;
        }
        // `thresh` packets are known to have left the network (ns-2's pipe estimate).
        self.pipe = self.maxseq - self.highest_ack - self.cfg.dupack_threshold as i64;
        self.reset_rtx_timer(cx, false);
        self.fastrecov = true;
        let seq = self.last_ack + 1;
        self.scb.mark_retransmitted(seq);
        self.output(cx, seq);
    }

    // ---- Common machinery (tcp.cc) ----

    /// The start of a fast retransmit, the same in Reno, NewReno and Sack1: false (nothing
    /// done) for a loss in a window already cut, where the sender waits (ns-2 `bug_fix_`);
    /// otherwise halves the window unless an ECN echo already cut this one, and counts the
    /// recovery. After an ECN cut in this window the sender retransmits without cutting again
    /// (RFC 3168 6.1.2; ns-2 Sack1 does this, ns-2 Reno would halve twice).
    fn start_fast_retransmit(&mut self, cx: &mut AgentCtx) -> bool {
        let recovered = self.highest_ack > self.recover;
        if !recovered && self.last_cwnd_action != CwndAction::Ecn {
            return false;
        }
        if recovered {
            self.recover = self.maxseq;
            self.halve();
        }
        self.last_cwnd_action = CwndAction::DupAck;
        cx.stats.fast_recoveries += 1;
        true
    }

    /// A new cumulative ACK outside recovery (ns-2 `recv_newack_helper`).
    fn recv_newack(&mut self, cx: &mut AgentCtx, ack: i64, ece: bool) {
        let acked = ack - self.last_ack;
        self.newack(cx, ack, ece);
        // An ACK echoing congestion does not open the window.
        if !ece {
            let mut w = self.window_state();
            self.cc
                .cong_avoid(&mut w, Acked::both(acked), cx.now, self.rtt.srtt());
            (self.cwnd, self.ssthresh) = (w.cwnd, w.ssthresh);
        }
        self.check_completion(cx);
    }

    /// ns-2 `newack`: advance, take the RTT sample of the timed packet (Karn: only packets
    /// sent once are timed), restart or stop the timer.
    fn newack(&mut self, cx: &mut AgentCtx, ack: i64, ece: bool) {
        self.dupacks = 0;
        self.last_ack = ack;
        self.highest_ack = ack;
        if self.t_seqno < ack + 1 {
            self.t_seqno = ack + 1;
        }
        if self.rtt_active && ack >= self.rtt_seq {
            // ns-2 keeps backing off while ECN holds cwnd at one packet.
            if !ece || self.cwnd > 1.0 {
                self.rtt.reset_backoff();
            }
            self.rtt_active = false;
            self.rtt.sample(self.rtt_ts, cx.now);
            cx.stats.on_rtt_sample(cx.now - self.rtt_ts);
        }
        self.newtimer(cx);
    }

    fn check_completion(&mut self, cx: &mut AgentCtx) {
        if !self.completed && self.curseq != i64::MAX && self.highest_ack >= self.curseq - 1 {
            self.completed = true;
            cx.stats.completed_at = Some(cx.now);
            self.rtx.cancel();
        }
    }

    /// ns-2 `ecn()`: one reduction per window of data.
    fn ecn(&mut self, cx: &mut AgentCtx, ack: i64) {
        if ack > self.recover || self.last_cwnd_action == CwndAction::Timeout {
            self.recover = self.maxseq;
            self.last_cwnd_action = CwndAction::Ecn;
            self.halve();
            cx.stats.ecn_reductions += 1;
        }
    }

    /// The usable window in packets (ns-2 `window()`); Reno's inflation counts.
    fn window(&self) -> i64 {
        let w = (self.cwnd + self.dupwnd as f64).floor() as i64;
        w.min(self.cfg.window as i64)
    }

    fn window_state(&self) -> Window {
        Window {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
        }
    }

    /// The controller's share of `window` (ns-2's congestion signals are all one kind).
    fn reduce(&mut self, window: i64) -> i64 {
        let w = self.window_state();
        self.cc
            .ssthresh(&w, window, Signal::Loss, 0)
            .expect("the ns-2 agents' controllers always cut")
    }

    /// ns-2 `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)`, to the controller's share of
    /// the window (half for Reno). cwnd is kept at one packet at least: ns-2 lets an ECN cut
    /// reach 0 and then waits for the timer.
    fn halve(&mut self) {
        let half = self.reduce(self.window());
        self.ssthresh = half.max(2);
        self.cwnd = (half as f64).max(1.0);
        self.cong_action = true;
    }

    fn timeout(&mut self, cx: &mut AgentCtx) {
        if self.completed {
            return;
        }
        self.dupwnd = 0;
        self.dupacks = 0;
        if self.cfg.variant == TcpVariant::Sack {
            self.fastrecov = false;
            self.after_timeout = true;
            if self.highest_ack > self.last_ack {
                self.last_ack = self.highest_ack;
            }
            self.scb.clear();
        }
        if self.cwnd < 1.0 {
            self.cwnd = 1.0;
        }
        let outstanding = self.highest_ack < self.maxseq;
        if outstanding {
            self.recover = self.maxseq;
            if self.last_cwnd_action != CwndAction::Ecn {
                let half = self.reduce(self.window());
                self.ssthresh = half.max(2);
            }
            // After an ECN cut in this window only cwnd collapses, not ssthresh again.
            self.cwnd = 1.0;
            self.cong_action = true;
            cx.stats.timeouts += 1;
            if self.timed_out_at_ack == Some(self.highest_ack) {
                cx.stats.rto_backoffs += 1;
            }
            self.timed_out_at_ack = Some(self.highest_ack);
            self.rtt.back_off();
        } else {
            // Idle: nothing was lost, restart from one packet without backoff.
            self.cwnd = 1.0;
        }
        self.last_cwnd_action = CwndAction::Timeout;
        self.reset_rtx_timer(cx, true);
        self.send_much(cx, self.cfg.max_burst, false);
    }

    /// ns-2 `reset_rtx_timer`: rearm; go back to the first unacked packet unless `mild`
    /// is false; stop timing (a retransmitted packet's ACK must not be sampled).
    fn reset_rtx_timer(&mut self, cx: &mut AgentCtx, go_back: bool) {
        self.set_rtx_timer(cx);
        if go_back {
            self.t_seqno = self.highest_ack + 1;
        }
        self.rtt_active = false;
    }

    fn set_rtx_timer(&mut self, cx: &mut AgentCtx) {
        let at = cx.now + self.rtt.rto();
        cx.set_timer(&mut self.rtx, RTX_TIMER, at);
    }

    /// Restart the timer while packets sent before `t_seqno` are unacked (ns-2 `newtimer`).
    fn newtimer(&mut self, cx: &mut AgentCtx) {
        if self.t_seqno > self.highest_ack + 1 {
            self.set_rtx_timer(cx);
        } else {
            self.rtx.cancel();
        }
    }

    /// Limited transmit (RFC 3042 2; ns-2 `send_one`, called on the first and second
    /// duplicate ACK with `singledup_`): one new packet if the advertised window allows and
    /// no more than cwnd + dupacks packets would be outstanding. cwnd is not changed.
    fn send_one(&mut self, cx: &mut AgentCtx) {
        if !self.running || self.completed {
            return;
        }
        let t = self.t_seqno;
        // ns-2 compares with the real cwnd; t, highest_ack and dupacks are whole, so the
        // floor is the same test.
        let cwnd = self.cwnd.floor() as i64;
        if t <= self.highest_ack + self.cfg.window as i64
            && t < self.curseq
            && t <= self.highest_ack + cwnd + self.dupacks as i64
        {
            self.output(cx, t);
            self.t_seqno += 1;
        }
    }

    /// Whether `send_much` would send anything now (its loop condition).
    fn window_open(&self) -> bool {
        if self.cfg.variant != TcpVariant::Sack {
            return self.t_seqno <= self.highest_ack + self.window() && self.t_seqno < self.curseq;
        }
        let open = if self.fastrecov {
            self.pipe < self.cwnd.floor() as i64
        } else {
            self.t_seqno <= self.last_ack + self.window()
        };
        open && self.last_ack + 1 < self.curseq
    }

    /// Sends what the window allows (ns-2 `send_much`; Sack1's version in recovery). With
    /// `overhead`, an unforced call that finds the window open only arms the delayed-send
    /// timer, uniform in [0, overhead), and calls while it is pending send nothing; when it
    /// fires, `force` sends what the window then allows (ns-2 `delsnd_timer_`).
    fn send_much(&mut self, cx: &mut AgentCtx, max_burst: u32, force: bool) {
        if !self.running || self.completed {
            return;
        }
        let overhead = self.cfg.overhead.0;
        if overhead > 0 && !force {
            if !self.delsnd.is_armed() && self.window_open() {
                let delay = (self.rng.uniform() * overhead as f64) as Time;
                cx.set_timer(&mut self.delsnd, DELSND_TIMER, cx.now + delay);
            }
            return;
        }
        let wnd = self.cfg.window as i64;
        let mut sent = 0u32;
        if self.cfg.variant != TcpVariant::Sack {
            while self.t_seqno <= self.highest_ack + self.window() && self.t_seqno < self.curseq {
                self.output(cx, self.t_seqno);
                self.t_seqno += 1;
                sent += 1;
                if max_burst > 0 && sent == max_burst {
                    break;
                }
            }
            return;
        }
        loop {
            let win = self.window();
            let open = if self.fastrecov {
                self.pipe < self.cwnd.floor() as i64
            } else {
                self.t_seqno <= self.last_ack + win
            };
            if !open || self.last_ack + 1 >= self.curseq {
                break;
            }
            let seq = match self.scb.next_retransmission(self.cfg.dupack_threshold) {
                Some(s) if s <= self.highest_ack + wnd => {
                    self.scb.mark_retransmitted(s);
                    s
                }
                Some(_) => break,
                None => {
                    let limit = if self.fastrecov { wnd } else { win };
                    if self.t_seqno <= self.highest_ack + limit && self.t_seqno < self.curseq {
                        self.t_seqno += 1;
                        self.t_seqno - 1
                    } else {
                        break;
                    }
                }
            };
            self.output(cx, seq);
            if self.t_seqno <= seq {
                self.t_seqno = seq + 1;
            }
            sent += 1;
            self.pipe += 1;
            if max_burst > 0 && sent == max_burst {
                break;
            }
        }
    }

    /// Emits data packet `seq` (ns-2 `output`).
    fn output(&mut self, cx: &mut AgentCtx, seq: i64) {
        let mut p = self.ep.packet(PacketKind::TcpData, self.cfg.data_size());
        p.seq = seq;
        // ECT on every data packet, retransmissions included (ns-2 default).
        p.ecn.ect = self.cfg.ecn;
        p.ecn.ect1 = self.cfg.sends_ect1();
        let new_data = seq > self.maxseq;
        if self.cong_action && new_data {
            p.ecn.cwr = self.cfg.ecn;
            self.cong_action = false;
        }
        p.retransmission = !new_data;
        if new_data {
            self.maxseq = seq;
            if !self.rtt_active {
                self.rtt_active = true;
                if seq > self.rtt_seq {
                    self.rtt_seq = seq;
                    self.rtt_ts = cx.now;
                }
            }
        } else {
            cx.stats.retransmissions += 1;
        }
        self.transmissions.on_cum_ack(self.highest_ack);
        let sends = u64::from(self.transmissions.on_sent(seq));
        cx.stats.max_transmissions = cx.stats.max_transmissions.max(sends);
        cx.stats.packets_sent += 1;
        cx.send(p);
        if !self.rtx.is_armed() {
            self.set_rtx_timer(cx);
        }
    }
}

#[cfg(test)]
#[path = "sender_tests.rs"]
mod tests;
