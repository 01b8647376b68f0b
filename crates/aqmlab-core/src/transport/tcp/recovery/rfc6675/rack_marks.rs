//! RACK's marks on the scoreboard (RFC 8985, `LossRule::Marked`): which packets a time
//! threshold since their sending deems lost, in sending order.

use super::super::work;
use super::{LossRule, RuleIndex, Scoreboard, SendStamp, LOST, RETRANSMITTED, UNWATCHED};
use crate::sim::Time;

impl Scoreboard {
    fn rack_first(&self) -> Option<(i64, SendStamp)> {
        let RuleIndex::Marked { send_order, .. } = &self.index.by_rule else {
            return None;
        };
        let (_, seq) = send_order.first(self.base)?;
        Some((seq, self.sent_at[(seq - self.base) as usize]))
    }

    /// The packet (and its last sending) of the latest transmission RACK watches among
    /// those numbered `order` or less.
    fn rack_last_up_to(&self, order: u64) -> Option<(i64, SendStamp)> {
        let RuleIndex::Marked { send_order, .. } = &self.index.by_rule else {
            return None;
        };
        let (_, seq) = send_order.last_up_to(order, self.base)?;
        Some((seq, self.sent_at[(seq - self.base) as usize]))
    }

    /// Marks `seq` lost (and not sent since), as RACK does.
    fn mark_lost(&mut self, seq: i64) {
        let f = self.flag(seq);
        self.change(seq, (f | LOST) & !RETRANSMITTED, None);
    }

    /// RACK_detect_loss (RFC 8985 section 6.2 step 5): marks lost each unSACKed packet sent
    /// before `newest` (the sending of RACK.xmit_ts / RACK.end_seq) whose time `threshold`
    /// (RACK.rtt + RACK.reo_wnd) after its sending has passed; packets already marked and not
    /// resent are skipped. Returns the packets newly marked and, if some are not yet due, the
    /// time left until the last of them is (the RACK reordering timer). `LossRule::Marked`
    /// only.
    ///
    /// In sending order, as the RFC and Linux walk: all packets are due the same time after
    /// their sending, so those due come first; the walk marks them and stops at the first
    /// that is not, and the last one not yet due is the last one watched sent before
    /// `newest`.
    pub fn mark_lost_by_time(
        &mut self,
        newest: SendStamp,
        threshold: Time,
        now: Time,
    ) -> (i64, Option<Time>) {
        work::event();
        debug_assert_eq!(self.rule, LossRule::Marked);
        let mut marked = 0;
        let mut wait = None;
        while let Some((seq, sent)) = self.rack_first() {
            if sent > newest {
                break;
            }
            if sent.at.saturating_add(threshold) > now {
                // (Sending times follow transmission numbers, so "sent before `newest`" is
                // "numbered up to newest.order", and the first one watched is among them.)
                wait = self
                    .rack_last_up_to(newest.order)
                    .map(|(_, last_sent)| last_sent.at.saturating_add(threshold) - now);
                break;
            }
            self.mark_lost(seq);
            marked += 1;
        }
        self.trim_send_order();
        (marked, wait)
    }

    /// Undoes every loss mark, as Linux does when it undoes a timeout
    /// (`tcp_undo_cwnd_reduction` with `unmark_loss`, from `tcp_try_undo_loss`): each marked
    /// packet counts in flight again. One marked and not resent since stays out of RACK's
    /// watch until it is sent again (it left Linux's `tsorted_sent_queue` when RACK marked it;
    /// the head and the packets `tcp_timeout_mark_lost` marked stayed there in Linux, and are
    /// unwatched here too: the scoreboard keeps no record of which rule marked a packet); one
    /// resent since keeps its watched sending. Steps once per outstanding packet; a timeout's
    /// undo is rare.
    pub fn unmark_losses(&mut self) {
        if self.rule != LossRule::Marked {
            return;
        }
        for i in 0..self.flags.len() {
            let f = self.flags[i];
            if f & LOST != 0 {
                let unwatched = if f & RETRANSMITTED == 0 { UNWATCHED } else { 0 };
                self.change(self.base + i as i64, (f & !LOST) | unwatched, None);
            }
        }
        self.trim_send_order();
    }

    /// RACK_mark_losses_on_RTO (RFC 8985 section 6.3): the first unacknowledged packet, and
    /// each one whose time `threshold` after sending has passed, are marked lost.
    /// `LossRule::Marked` only.
    pub fn mark_losses_on_rto(&mut self, threshold: Time, now: Time) {
        work::event();
        debug_assert_eq!(self.rule, LossRule::Marked);
        // Those due come first in sending order; the others are already marked and not
        // resent, or SACKed.
        while let Some((seq, sent)) = self.rack_first() {
            if sent.at.saturating_add(threshold) > now {
                break;
            }
            self.mark_lost(seq);
        }
        if self.base <= self.high_data && !self.is_sacked(self.base) {
            self.mark_lost(self.base);
        }
        self.trim_send_order();
    }
}
