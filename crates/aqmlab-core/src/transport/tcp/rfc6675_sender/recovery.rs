//! Reductions and their episodes: the ECN response (`tcp_enter_cwr`), a fast recovery's
//! entry (RFC 6675 section 5, PRR's start, RFC 6937) and end, the controller's `ssthresh`,
//! `set_state` and `cwnd_event` at the points Linux calls them (tcp_input.c
//! `tcp_init_cwnd_reduction`, `tcp_set_ca_state`, `tcp_end_cwnd_reduction`), the
//! `cong_control` step with its rate sample (`tcp_rate_gen`, `tcp_cong_control`), and F-RTO
//! after a timeout with its undo (RFC 5682, `tcp_process_loss`, `tcp_try_undo_loss`).

use super::*;

impl Rfc6675Sender {
    pub(super) fn enter_recovery(&mut self, cx: &mut AgentCtx, delivered: i64) {
        // PRR's RecoverFS: FlightSize (RFC 6937; ns-3's TcpPrrRecovery is given
        // UnAckDataCount()), or Linux's prior_cwnd.
        let recover_fs = match self.cfg.ssthresh_base {
            SsthreshBase::Cwnd => self.reduction_base(true),
            SsthreshBase::FlightSize | SsthreshBase::Pipe => self.flight_size(),
        };
        // Linux `tcp_enter_recovery`: from CWR (`tcp_in_cwnd_reduction`) the reduction under
        // way goes on, no second ssthresh and PRR's counters kept.
        let continuing = std::mem::take(&mut self.in_cwr);
        if !continuing {
            self.reduce(cx, Signal::Loss, true);
        }
        self.enter_state(cx, CaState::Recovery);
        if let Some(n) = &mut self.ns3 {
            n.on_recovery_entry();
        }
        self.scb.enter_recovery();
        self.tlp.reset();
        if !continuing {
            self.prr.enter(self.ssthresh, recover_fs);
        }
        cx.stats.fast_recoveries += 1;
        self.recovery_since = Some(cx.now);
        let sndcnt = if self.cc.has_cong_control() {
            // Linux: `tcp_enter_recovery` (`ssthresh`, `set_state`) comes before
            // `cong_control`, which sees the Recovery state.
            self.run_cong_control(cx);
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

    /// The window a reduction starts from (`tcp.ssthresh_base`): FlightSize (RFC 5681 eq.
    /// 4), cwnd (Linux `tcp_init_cwnd_reduction`, `tcp_enter_loss`) or the pipe (ns-3);
    /// `entering_recovery` counts the first unacknowledged packet as lost in the pipe.
    pub(super) fn reduction_base(&self, entering_recovery: bool) -> i64 {
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

    /// ssthresh from the controller's reduction of the base window (at least 2), unless it
    /// keeps ssthresh (`tcp_init_cwnd_reduction`, `tcp_enter_loss`).
    pub(super) fn reduce(&mut self, cx: &mut AgentCtx, signal: Signal, entering_recovery: bool) {
        let w = self.window();
        let base = self.reduction_base(entering_recovery);
        if let Some(s) = self.cc.ssthresh(&w, base, signal, cx.now) {
            self.ssthresh = s.max(2);
        }
        self.cong_action = true;
    }

    /// An ECN echo acted on (RFC 3168, one per window of data; Linux `tcp_enter_cwr`):
    /// ssthresh from the controller, then `set_state(CWR)`, which may set a window of its own.
    /// With `ecn_reduction = "immediate"` cwnd = ssthresh at once (RFC 3168 6.1.2); with
    /// `"prr"` PRR starts from prior_cwnd (`tcp_init_cwnd_reduction`) and the sender stays in
    /// CWR until the cumulative ACK passes HighData (`high_seq = snd_nxt`), each ACK setting
    /// cwnd by `cwr_reduction`. A controller with `cong_control` is not cut (Linux: no PRR
    /// reduction follows its `ssthresh`).
    pub(super) fn ecn_response(&mut self, cx: &mut AgentCtx) {
        if !self.cc.has_cong_control() {
            let w = self.window();
            let base = self.reduction_base(false);
            // PRR's RecoverFS, as at a recovery's entry (Linux `prior_cwnd`).
            let recover_fs = match self.cfg.ssthresh_base {
                SsthreshBase::Cwnd => base,
                SsthreshBase::FlightSize | SsthreshBase::Pipe => self.flight_size(),
            };
            if let Some(s) = self.cc.ssthresh(&w, base, Signal::Ecn, cx.now) {
                self.ssthresh = s.max(2);
                match self.cfg.ecn_reduction {
                    EcnReduction::Immediate => self.cwnd = self.ssthresh as f64,
                    EcnReduction::Prr => {
                        self.prr.enter(self.ssthresh, recover_fs);
                        self.in_cwr = true;
                    }
                }
                self.enter_state(cx, CaState::Cwr);
                cx.stats.ecn_reductions += 1;
            }
            self.cong_action = true;
            self.ecn_recover = self.scb.high_data();
        }
    }

    /// Linux `tcp_cwnd_reduction` in CWR (from `tcp_cong_control`): an ACK that delivers
    /// nothing leaves cwnd; otherwise cwnd = in flight + PRR's sndcnt, at least one packet
    /// before PRR has sent any ("Force a fast retransmit", which in CWR releases one new
    /// packet on the entry's ACK). PRR's negative sndcnt is taken as 0 (`Prr::on_ack`), where
    /// Linux would set cwnd below the flight; either way nothing is sent.
    pub(super) fn cwr_reduction(&mut self, delivered: i64, safe_ack: bool) {
        if delivered <= 0 {
            return;
        }
        let pipe = self.scb.pipe();
        let mut sndcnt = self.prr.on_ack(delivered, pipe, safe_ack);
        if self.prr.prr_out() == 0 {
            sndcnt = sndcnt.max(1);
        }
        self.cwnd = (pipe + sndcnt) as f64;
    }

    /// `tcp_set_ca_state`: the controller's `set_state`.
    pub(super) fn enter_state(&mut self, cx: &AgentCtx, state: CaState) {
        let mut w = self.window();
        let sx = StateCtx {
            now: cx.now,
            snd_nxt: self.scb.high_data() + 1,
            rate: self.rate.as_deref(),
        };
        self.cc.set_state(state, &mut w, &sx);
        self.set_window(w);
    }

    /// `tcp_end_cwnd_reduction`: cwnd = ssthresh and `CA_EVENT_COMPLETE_CWR`, unless the
    /// controller has `cong_control` (it restores its own window).
    pub(super) fn end_cwnd_reduction(&mut self) {
        if self.cc.has_cong_control() {
            return;
        }
        self.cwnd = self.ssthresh as f64;
        let mut w = self.window();
        self.cc.cwnd_event(CaEvent::CompleteCwr, &mut w);
        self.set_window(w);
    }

    /// Linux `tcp_current_ssthresh` outside a reduction: max(ssthresh, 3/4 cwnd), what an
    /// undo restores.
    pub(super) fn current_ssthresh(&self) -> i64 {
        let cwnd = self.cwnd.floor() as i64;
        self.ssthresh.max((cwnd >> 1) + (cwnd >> 2))
    }

    pub(super) fn end_recovery_clock(&mut self, cx: &mut AgentCtx) {
        if self.recovery_since.is_some() {
            self.count_stall(cx);
        }
        if let Some(since) = self.recovery_since.take() {
            cx.stats.time_in_recovery_ns += cx.now - since.max(cx.stats.start);
        }
    }

    /// The head changed, or the recovery ended: the time since the head's deadline, inside
    /// the measurement period, was a stall.
    pub(super) fn count_stall(&mut self, cx: &mut AgentCtx) {
        if let Some((_, deadline)) = self.stall_deadline.take() {
            if cx.now > deadline {
                cx.stats.stalled_recovery_ns += cx.now - deadline.max(cx.stats.start).min(cx.now);
            }
        }
    }

    /// Whether an ACK of new data restarts the RTO: always (RFC 6298 5.3), except with
    /// `partial_ack_timer = "first"` the partial ACKs of a fast recovery after its first
    /// (ns-3 `TcpSocketBase::ProcessAck`: `NewAck(ackNumber, m_isFirstPartialAck)`).
    pub(super) fn new_ack_restarts_timer(&mut self, was_recovering: bool) -> bool {
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
    pub(super) fn frto_on_ack(
        &mut self,
        cx: &mut AgentCtx,
        u: &AckUpdate,
        original_delivered: bool,
    ) -> bool {
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
            self.undo_timeout(cx);
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
    /// The loss marks are undone (`tcp_try_undo_loss`: `tcp_undo_cwnd_reduction` with
    /// `unmark_loss`), and RACK looks again on this ACK (`tcp_fastretrans_alert` goes on to
    /// `tcp_identify_packet_loss`): what it marks now starts a fast recovery on this ACK.
    pub(super) fn undo_timeout(&mut self, cx: &mut AgentCtx) {
        if let Some(before) = self.before_timeout.take() {
            let (cwnd, ssthresh) = *before;
            // `tcp_undo_cwnd_reduction`: the controller's `undo_cwnd`, ssthresh back if larger.
            let w = self.window();
            self.cwnd = self.cc.undo_cwnd(&w, cwnd);
            self.ssthresh = self.ssthresh.max(ssthresh);
        }
        self.scb.undo_timeout();
        self.t_seqno = self.scb.high_data() + 1;
        if self.rack.is_some() {
            self.scb.unmark_losses();
            // Counted in the next ACK's rate sample: this ACK's was taken before F-RTO ran.
            self.ack_losses += self.rack_detect_loss(cx);
        }
    }

    /// The ACK's rate sample (Linux `tcp_rate_gen`, with the packets it newly marked lost)
    /// and the controller's `cong_control` (`tcp_cong_control`), once, after the ACK's loss
    /// marks and recovery state are known and before anything is sent on it; then the pacing
    /// rate the controller set.
    pub(super) fn run_cong_control(&mut self, cx: &mut AgentCtx) {
        if !self.cong_control_pending {
            return;
        }
        self.cong_control_pending = false;
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
        let mut w = self.window();
        let Some(rate) = self.rate.as_mut() else {
            return;
        };
        rate.generate(cx.now, self.ack_losses);
        self.ack_losses = 0;
        if self.cc.has_cong_control() {
            self.cc.cong_control(rate, &info, &mut w);
            self.set_window(w);
            self.refresh_pacing_rate();
        }
    }

    /// The packets cwnd allows over the pipe now (a recovery's sends under PRR's cwnd or the
    /// controller's own).
    pub(super) fn cwnd_allowance(&self) -> i64 {
        (self.cwnd.floor() as i64 - self.scb.pipe()).max(0)
    }
}
