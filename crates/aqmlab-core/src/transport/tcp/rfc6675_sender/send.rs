//! Sending: a recovery's sends chosen by NextSeg (RFC 6675) under PRR's or the controller's
//! cwnd, limited transmit (RFC 3042), the window's sends with the go-back-N after a timeout,
//! `overhead`'s delayed sends (ns-2 `delsnd_timer_`), pacing (Linux `tcp_pacing_check`,
//! `tcp_update_pacing_rate` or the controller's own rate) and `output`, which stamps each
//! packet for the scoreboard, the rate sample and the RTO.

use super::*;

impl Rfc6675Sender {
    /// Sends up to `count` packets chosen by NextSeg.
    pub(super) fn send_recovery(&mut self, cx: &mut AgentCtx, count: i64) {
        self.begin_burst();
        self.send_recovery_burst(cx, count);
        self.end_burst();
    }

    /// `tcp_xmit_retransmit_queue`'s loop: one skb after another.
    fn send_recovery_burst(&mut self, cx: &mut AgentCtx, count: i64) {
        let mut new_data = false;
        for sent in 0..count {
            if self.pacing_holds(cx) {
                // cwnd keeps what is still allowed, for the pacing timer's send (as Linux's
                // PRR leaves it in snd_cwnd for `tcp_xmit_retransmit_queue`); a controller
                // with `cong_control` keeps its own.
                if !self.cc.has_cong_control() {
                    self.cwnd = (self.scb.pipe() + count - sent).max(1) as f64;
                }
                self.record_cwnd_use(new_data);
                return;
            }
            let next_new = self.scb.high_data() + 1;
            let Some(seg) = self.scb.next_seg(self.new_data_allowed(next_new)) else {
                break;
            };
            new_data |= matches!(seg, NextSeg::New(_));
            self.output(cx, seg);
            self.prr.on_send(1);
        }
        if !self.cc.has_cong_control() {
            self.cwnd = (self.scb.pipe() as f64).max(1.0);
        }
        self.record_cwnd_use(new_data);
    }

    pub(super) fn send_limited(&mut self, cx: &mut AgentCtx) {
        let next = self.scb.high_data() + 1;
        let allowed = self.flight_size() < self.cwnd.floor() as i64 + self.dupacks as i64;
        let send = allowed && self.new_data_allowed(next) && !self.pacing_holds(cx);
        if send {
            self.output(cx, NextSeg::New(next));
            self.t_seqno = next + 1;
        }
        self.record_cwnd_use(send);
    }

    /// Recovery sends, after `overhead`'s delay if there is one: then cwnd holds what PRR
    /// allows (RFC 9937 6.2: cwnd = pipe + sndcnt) until the delayed send.
    pub(super) fn recovery_send_or_delay(&mut self, cx: &mut AgentCtx, sndcnt: i64) {
        if self.cfg.overhead.0 == 0 {
            self.send_recovery(cx, sndcnt);
            return;
        }
        if !self.cc.has_cong_control() {
            self.cwnd = (self.scb.pipe() + sndcnt.max(0)) as f64;
        }
        if sndcnt > 0 {
            self.arm_delayed_send(cx);
        }
    }

    /// Window sends, after `overhead`'s delay if there is one. Returns whether new data left
    /// now.
    pub(super) fn send_window_or_delay(&mut self, cx: &mut AgentCtx) -> bool {
        if self.cfg.overhead.0 == 0 {
            return self.send_window(cx);
        }
        if self.window_open() {
            self.arm_delayed_send(cx);
        }
        false
    }

    /// ns-2's `delsnd_timer_`: one delayed send at a time, uniform in [0, overhead).
    pub(super) fn arm_delayed_send(&mut self, cx: &mut AgentCtx) {
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
    pub(super) fn send_delayed(&mut self, cx: &mut AgentCtx) {
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
    pub(super) fn window_open(&self) -> bool {
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
    pub(super) fn send_window(&mut self, cx: &mut AgentCtx) -> bool {
        if !self.running || self.completed {
            return false;
        }
        self.begin_burst();
        let sent = self.send_window_burst(cx);
        self.end_burst();
        sent
    }

    /// `tcp_write_xmit`'s loop: one skb after another (with `segmentation_offload =
    /// "linux_autosize"` the packets of an skb leave together, the pacing check before each
    /// skb).
    fn send_window_burst(&mut self, cx: &mut AgentCtx) -> bool {
        if self.resends_marked_only() {
            return self.send_marked(cx);
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
        self.record_cwnd_use(sent);
        sent
    }

    /// `tcp_cwnd_validate` at the end of `tcp_write_xmit`, which Linux runs after every ACK's
    /// sends, a recovery's and limited transmit's included (`tcp_data_snd_check`): `sent`
    /// whether new data left.
    pub(super) fn record_cwnd_use(&mut self, sent: bool) {
        if let Some(u) = &mut self.cwnd_use {
            let cwnd = (self.cwnd.floor() as i64).max(1);
            u.after_send(
                sent,
                (self.scb.pipe(), cwnd),
                self.scb.high_data() - self.scb.snd_una() + 1,
                (self.scb.snd_una(), self.scb.high_data() + 1),
            );
        }
    }

    /// With `timeout_marks = "linux"` and RACK, in a timeout's episode (its RecoveryPoint
    /// outstanding, no fast recovery): only what is marked lost is resent, and a duplicate
    /// ACK sends what the pipe allows (Linux's Loss state), not RFC 3042's one packet.
    pub(super) fn resends_marked_only(&self) -> bool {
        self.cfg.timeout_marks == TimeoutMarks::Linux
            && self.rack.is_some()
            && !self.scb.may_enter_recovery()
            && !self.scb.in_recovery()
    }

    /// Linux in the Loss state, after every ACK (`tcp_xmit_recovery`, `tcp_data_snd_check`):
    /// `tcp_xmit_retransmit_queue` resends the packets marked lost and not resent since, in
    /// order, then `tcp_write_xmit` sends new data, each while the packets in flight
    /// (`tcp_packets_in_flight`, the pipe) are below cwnd. An unSACKed packet not marked waits
    /// for RACK's mark or the next timeout. Returns whether new data left.
    fn send_marked(&mut self, cx: &mut AgentCtx) -> bool {
        let cwnd = (self.cwnd.floor() as i64).max(1);
        let mut sent = false;
        while self.scb.pipe() < cwnd && !self.pacing_holds(cx) {
            let next_new = self.scb.high_data() + 1;
            match self.scb.next_seg(self.new_data_allowed(next_new)) {
                Some(seg @ NextSeg::Lost(_)) => self.output(cx, seg),
                Some(seg @ NextSeg::New(seq)) => {
                    self.output(cx, seg);
                    self.t_seqno = seq + 1;
                    sent = true;
                }
                _ => break,
            }
        }
        self.record_cwnd_use(sent);
        sent
    }

    fn begin_burst(&mut self) {
        if let Some(p) = &mut self.pacer {
            p.begin_burst();
        }
    }

    fn end_burst(&mut self) {
        if let Some(p) = &mut self.pacer {
            p.end_burst();
        }
    }

    /// Linux `tcp_pacing_check`: whether the next send must wait for its departure time; if
    /// so the pacing timer is armed for it.
    pub(super) fn pacing_holds(&mut self, cx: &mut AgentCtx) -> bool {
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
    pub(super) fn refresh_pacing_rate(&mut self) {
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
        let autosize = self.cfg.segmentation_offload == SegmentationOffload::LinuxAutosize;
        if let Some(p) = &mut self.pacer {
            p.set_rate(rate);
            if autosize {
                p.set_tso_segs(tso_segs(&self.cc, p, self.cfg.data_size()));
            }
        }
    }

    pub(super) fn output(&mut self, cx: &mut AgentCtx, seg: NextSeg) {
        let seq = seg.seq();
        let new_data = seq > self.scb.high_data();
        let mut p = self.ep.packet(PacketKind::TcpData, self.cfg.data_size());
        p.seq = seq;
        if self.cfg.timestamps {
            p.echo_sent_at = self.ts_recent;
        }
        p.ecn.ect = self.cfg.ecn;
        p.ecn.ect1 = self.cfg.sends_ect1();
        if self.in_cwr {
            // `tcp_write_xmit`: what leaves in CWR counts as PRR's prr_out.
            self.prr.on_send(1);
        }
        if self.cong_action && new_data {
            // AccECN has no CWR: ACE's counter needs no acknowledgement
            // (`tcp_ecn_queue_cwr` sets it for RFC 3168 only).
            p.ecn.cwr = self.cfg.ecn && self.accecn.is_none();
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
