//! The ACK: what the sender does on each, in the order of Linux's `tcp_ack`
//! (net/ipv4/tcp_input.c): the scoreboard (SACK, D-SACK, RACK's delivery marks), the
//! controller's `in_ack_event`, the rate sample's cumulative point, TLP's check, the RTT sample
//! and `pkts_acked` on an advance, the ECN response (`tcp_enter_cwr`) and the controller's
//! accounting after it, RACK's loss detection, the pacing rate, then F-RTO, the recovery's
//! sends, a recovery's entry, limited transmit, or growth (`cong_avoid`) and the window's
//! sends. The order is the one every golden table was recorded with.

use super::*;
use crate::transport::tcp::accecn::{self, AckDelivery};

impl Rfc6675Sender {
    pub fn receive(&mut self, cx: &mut AgentCtx, pkt: PacketId) {
        let p = cx.packets.get(pkt);
        let (is_ack, cum, mut ece) = (
            p.kind == PacketKind::TcpAck,
            p.ack,
            p.ecn.ece && self.cfg.ecn && self.accecn.is_none(),
        );
        // AccECN's ACE and option, read only when it is the feedback in use.
        let accecn_in = self
            .accecn
            .is_some()
            .then(|| (accecn::ace_of(&p.ecn), p.accecn_option()));
        let echo = p.echo_sent_at;
        // `tcp_replace_ts_recent`: a pure ACK of a one-way transfer always passes its test;
        // TSvals never go back.
        self.ts_recent = self.ts_recent.max(p.sent_at);
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
        // The CE packets this ACK reports: with RFC 3168's ECE or the exact echo every packet
        // it delivers (Linux `tcp_count_delivered`); with AccECN what its ACE and option say
        // (`tcp_accecn_process`, after `tcp_clean_rtx_queue` and before `tcp_in_ack_event`),
        // a delta above 0 being the ACK's ECE.
        let delivered_ce = match self.accecn.as_mut().zip(accecn_in) {
            Some((acc, (ace, accecn_option))) => {
                let delivered = u.delivered.max(0) as u32;
                let d = AckDelivery {
                    packets: delivered,
                    bytes: delivered.wrapping_mul(self.cfg.packet_size),
                    progress: advanced || u.newly_sacked > 0,
                };
                let open_or_cwr = !was_recovering && !was_after_loss;
                let delta = acc.on_ack(ace, accecn_option, d, open_or_cwr);
                ece = delta > 0;
                i64::from(delta)
            }
            None if ece => u.delivered.max(0),
            None => 0,
        };
        // Every ACK's delivered packets, with ECE or not, in a recovery too (Linux
        // `tcp_count_delivered`, then `tcp_in_ack_event`), before the ECN response.
        let event = self.ack_event(now, u.delivered, ece, delivered_ce);
        self.cc.in_ack_event(&event);
        if let Some(r) = &mut self.rate {
            r.on_cum_ack(cum);
            self.cong_control_pending = true;
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
            // reduces as for any loss (Linux tcp_process_tlp_ack: tcp_init_cwnd_reduction,
            // CWR, tcp_end_cwnd_reduction: cwnd = ssthresh).
            self.reduce(cx, Signal::Loss, false);
            self.enter_state(cx, CaState::Cwr);
            self.end_cwnd_reduction();
            self.in_cwr = false;
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
            // `pkts_acked` times every advancing ACK, timestamps or not, as Linux's does from
            // each packet's send time (tcp_clean_rtx_queue's ca_rtt_us); the echo is that send
            // time (see hystart.rs).
            let event = self.ack_event(cx.now, u.delivered, ece, delivered_ce);
            let mut w = self.window();
            self.cc.pkts_acked(cx.now - echo, &event, &mut w);
            self.set_window(w);
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
        if self.in_cwr && cum > self.ecn_recover {
            // Linux `tcp_fastretrans_alert` step D: CWR ends on the ACK of data above its
            // entry's snd_nxt ("for CWR bit to reach receiver"), before this ACK's ECE is
            // looked at (`tcp_try_to_open` may enter CWR again at once).
            self.in_cwr = false;
            self.end_cwnd_reduction();
            self.enter_state(cx, CaState::Open);
        }
        if ece && cum > self.ecn_recover && !self.scb.in_recovery() && !self.in_cwr {
            self.ecn_response(cx);
        }
        let event = self.ack_event(cx.now, u.delivered, ece, delivered_ce);
        let mut w = self.window();
        self.cc.after_ecn_response(&event, &mut w);
        self.set_window(w);

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
            self.run_cong_control(cx);
        }

        if self.frto.is_some() && self.frto_on_ack(cx, &u, original_delivered) {
            return;
        }

        if was_recovering {
            if self.scb.in_recovery() {
                let sndcnt = if self.cc.has_cong_control() {
                    // The controller sets cwnd itself (Linux: with `cong_control`, no PRR), and
                    // the recovery sends what it allows over the pipe
                    // (`tcp_xmit_retransmit_queue`).
                    self.run_cong_control(cx);
                    self.cwnd_allowance()
                } else {
                    self.prr.on_ack(u.delivered, self.scb.pipe(), safe_ack)
                };
                self.recovery_send_or_delay(cx, sndcnt);
                return;
            }
            // This ACK ended the recovery (RFC 6937: cwnd = ssthresh; a controller with
            // `cong_control` restores its own).
            self.end_cwnd_reduction();
            self.enter_state(cx, CaState::Open);
            self.end_recovery_clock(cx);
        }
        if self.scb.may_enter_recovery()
            && !ignore_dupacks
            && match self.rack {
                // Linux `tcp_time_to_recover`: any packet marked lost, by this ACK or before.
                // On an ACK that ends a recovery too: `tcp_fastretrans_alert` sets Open in its
                // section D and tests `lost_out` in section E's default case, so packets above
                // the old RecoveryPoint marked and not yet resent start the next recovery on
                // that ACK rather than wait for a timeout.
                Some(_) => newly_lost > 0 || self.scb.lost_awaiting_retransmission(),
                None => {
                    !was_recovering
                        && (self.dupacks >= self.cfg.dupack_threshold
                            || self.scb.first_unacked_is_lost())
                }
            }
        {
            self.enter_recovery(cx, u.delivered);
            return;
        } else if !was_recovering
            && !advanced
            && u.newly_sacked > 0
            && self.cfg.limited_transmit
            && !ignore_dupacks
            && !self.in_cwr
            && !self.resends_marked_only()
        {
            // RFC 3042: one new packet per early duplicate ACK, cwnd unchanged.
            self.run_cong_control(cx);
            self.send_limited(cx);
            return;
        }
        if self.in_cwr {
            // `tcp_cong_control`: in CWR the window follows PRR, never `cong_avoid`.
            self.cwr_reduction(u.delivered, safe_ack);
            self.refresh_pacing_rate();
        } else if advanced && !ece {
            self.grow(cx, &u);
            self.refresh_pacing_rate();
        }
        self.run_cong_control(cx);
        let sent = self.send_window_or_delay(cx);
        if advanced || sent {
            self.schedule_probe(cx, advanced);
        }
    }

    /// The controller's growth for the ACK `u`, unless `grow_only_when_cwnd_limited` finds the
    /// window unused (Linux `tcp_is_cwnd_limited`, the first test of `tcp_reno_cong_avoid`
    /// and `cubictcp_cong_avoid`). What the ACK is worth: with `cwnd_growth = "per_ack"` the
    /// packets it newly acknowledges cumulatively (ns-2); with `"packets_acked"` the packets
    /// it newly delivers (Linux's `acked_sacked`: `tcp_ack` passes `tcp_newly_delivered` to
    /// `tcp_cong_control` and on to `tcp_cong_avoid`, net/ipv4/tcp_input.c), so that a packet
    /// SACKed earlier is not counted again when the cumulative ACK covers it. Counting it
    /// again grew the window by up to a window's worth of SACKed packets at the end of each
    /// recovery: at 10 flows of about 6 packets through PIE (the linux profile), 36 % more recoveries and
    /// drops than the kernel through the same PIE (issue 26, docs/validation.md).
    pub(super) fn grow(&mut self, cx: &mut AgentCtx, u: &AckUpdate) {
        // `tcp_cong_control`: a controller with `cong_control` grows in it.
        if self.cc.has_cong_control()
            || self
                .cwnd_use
                .as_ref()
                .is_some_and(|u| !u.allows_growth(self.cwnd, self.ssthresh))
        {
            return;
        }
        let acked = Acked {
            newly_acked: u.newly_acked,
            delivered: u.delivered,
        };
        let mut w = self.window();
        self.cc.cong_avoid(&mut w, acked, cx.now, self.rtt.srtt());
        self.set_window(w);
    }
}
