//! The one timer slot and what it waits for (Linux's `icsk_retransmit_timer`): the RTO
//! (RFC 6298; `rto_restart`, `tcp_rearm_rto`) and its expiry (`timeout`, Linux
//! `tcp_enter_loss`: ssthresh, `CA_EVENT_LOSS`, `set_state(Loss)`), RACK's loss detection and
//! reordering timer (RFC 8985 section 6.2, `tcp_rack_reo_timeout`), and TLP's probe timeout
//! (section 7, `tcp_schedule_loss_probe`, `tcp_send_loss_probe`).

use super::*;

impl Rfc6675Sender {
    /// RACK's loss detection (RFC 8985 section 6.2 steps 4 and 5): marks the packets now
    /// deemed lost and arms the reordering timer for those not yet due. Returns the count.
    pub(super) fn rack_detect_loss(&mut self, cx: &mut AgentCtx) -> i64 {
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
    pub(super) fn rack_threshold(&self) -> Option<(SendStamp, Time)> {
        let rack = self.rack.as_ref()?;
        rack.loss_threshold(self.rack_reo_wnd(rack))
    }

    pub(super) fn rack_reo_wnd(&self, rack: &Rack) -> Time {
        rack.reo_wnd(
            !self.scb.may_enter_recovery(),
            self.scb.sacked_count(),
            self.cfg.dupack_threshold as usize,
            self.rtt.srtt(),
        )
    }

    /// The reordering timer fired: look again, start a recovery if a packet is now lost, and
    /// send what the recovery allows (Linux tcp_rack_reo_timeout).
    pub(super) fn reorder_timeout(&mut self, cx: &mut AgentCtx) {
        self.rtx_mode = XmitTimer::Rto;
        let marked = self.rack_detect_loss(cx);
        if marked > 0 {
            if self.scb.in_recovery() {
                let sndcnt = if self.cc.has_cong_control() {
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
    pub(super) fn rearm_rto(&mut self, cx: &mut AgentCtx) {
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
    pub(super) fn schedule_probe(&mut self, cx: &mut AgentCtx, ack_advanced: bool) {
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
    pub(super) fn send_probe(&mut self, cx: &mut AgentCtx) {
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

    /// The RTO expired. With `timeout_response = "linux"` (`tcp_enter_loss`): ssthresh is
    /// cut only if no cut was made for this window (no RecoveryPoint of a fast recovery or an
    /// earlier timeout outstanding; Linux's "state <= Disorder, or high_seq acknowledged"),
    /// and cwnd = what is still in flight after the timeout's loss marks + 1. F-RTO starts
    /// unless a recovery was under way, except on a repeated timeout (RFC 5682 3.2; Linux
    /// `new_recovery || icsk_retransmits`).
    pub(super) fn timeout(&mut self, cx: &mut AgentCtx) {
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
        // Linux `tcp_enter_loss` keeps ssthresh in CWR before high_seq is acknowledged too.
        let cwr_open = self.in_cwr && self.scb.snd_una() <= self.ecn_recover;
        self.in_cwr = false;
        let cut = (self.cfg.timeout_response == TimeoutResponse::Rfc5681
            || (!episode_open && !cwr_open))
            && !head_already_resent;
        if cut {
            self.before_timeout = Some(Box::new((self.cwnd, self.current_ssthresh())));
            self.reduce(cx, Signal::Timeout, false);
            let mut w = self.window();
            self.cc.cwnd_event(CaEvent::Loss, &mut w);
            self.set_window(w);
        }
        // Linux tcp_enter_loss sets TCP_CA_Loss whether or not it cuts.
        self.enter_state(cx, CaState::Loss);
        self.dupacks = 0;
        self.scb.on_timeout();
        if self.rack.is_some() {
            self.tlp.reset();
            // RFC 8985 6.3, in RTO recovery now (on_timeout set the RecoveryPoint): due is a
            // packet sent RACK.rtt + RACK.reo_wnd ago, RACK.rtt being 0 before any delivery
            // (every packet then; Linux `tcp_timeout_mark_lost`, `tcp_rack_skb_timeout` with
            // `rack.rtt_us` 0).
            // `tcp_timeout_mark_lost` passes no reordering window (`tcp_rack_skb_timeout(tp,
            // skb, 0)`); the go-back-N keeps RFC 8985's RACK.rtt + RACK.reo_wnd, which only
            // sizes the pipe it starts from.
            let threshold = self
                .rack
                .as_ref()
                .map_or(0, |rack| match self.cfg.timeout_marks {
                    TimeoutMarks::Linux => rack.rtt(),
                    TimeoutMarks::AllUnsacked => rack.rtt() + self.rack_reo_wnd(rack),
                });
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

    pub(super) fn set_rtx_timer(&mut self, cx: &mut AgentCtx) {
        self.rto_at = cx.now + self.rtt.rto();
        self.rtx_mode = XmitTimer::Rto;
        cx.set_timer(&mut self.rtx, RTX_TIMER, self.rto_at);
    }
}
