//! RFC 6675's questions, answered from the scoreboard's indices: IsLost, SetPipe and NextSeg
//! (section 4), and the recovery episodes (section 5: when one may start, enter, the
//! timeout's of 5.1 and its undoing).

use super::super::bitset::SlidingBitSet;
use super::{ix, NextSeg, RuleIndex, Scoreboard, LOST, SACKED};
use crate::sim::Time;

impl Scoreboard {
    /// Whether recovery may start: not recovering, and no RecoveryPoint of an earlier
    /// recovery or timeout is outstanding.
    pub fn may_enter_recovery(&self) -> bool {
        self.recovery_point.is_none()
    }

    /// Under the DupThresh rule, the packet below which every unSACKed packet IsLost (the
    /// DupThresh-th highest SACKed one); None with fewer SACKed packets, or with RACK's marks.
    pub fn lost_edge(&self) -> Option<i64> {
        match &self.index.by_rule {
            RuleIndex::DupThresh { lost_edge, .. } => *lost_edge,
            RuleIndex::Marked { .. } => None,
        }
    }

    /// Under the DupThresh rule, whether some unSACKed packet is deemed lost now that was not
    /// when the lost edge stood at `before` (`lost_edge` taken before an ACK): an unSACKed
    /// packet lies between the two edges. The edge only rises, one SACKed packet at a time.
    pub fn loss_revealed_since(&self, before: Option<i64>) -> bool {
        let Some(edge) = self.lost_edge() else {
            return false;
        };
        let from = before.unwrap_or(self.base).max(self.base);
        self.index
            .unsacked_set
            .next_from(ix(from))
            .is_some_and(|s| (s as i64) < edge)
    }

    /// Under the DupThresh rule, the unSACKed packets deemed lost now that were not when the
    /// lost edge stood at `before` (for a sender's count of losses, Linux `tp->lost`): those
    /// between the two edges. Steps once per such packet.
    pub fn newly_lost_since(&self, before: Option<i64>) -> i64 {
        let Some(edge) = self.lost_edge() else {
            return 0;
        };
        let mut from = before.unwrap_or(self.base).max(self.base);
        let mut n = 0;
        while let Some(s) = self.index.unsacked_set.next_from(ix(from)) {
            if s as i64 >= edge {
                break;
            }
            n += 1;
            from = s as i64 + 1;
        }
        n
    }

    /// Under RACK's marks, whether a packet marked lost awaits its retransmission (Linux
    /// `tp->lost_out`, less the marked packets resent since, which a recovery's end leaves
    /// none of). False under the DupThresh rule.
    pub fn lost_awaiting_retransmission(&self) -> bool {
        match &self.index.by_rule {
            RuleIndex::Marked { lost, .. } => lost.next_from(ix(self.base)).is_some(),
            RuleIndex::DupThresh { .. } => false,
        }
    }

    /// Section 5 trigger besides the DupThresh-th duplicate ACK: the next expected packet is
    /// already deemed lost.
    pub fn first_unacked_is_lost(&self) -> bool {
        self.base <= self.high_data && self.is_lost(self.base)
    }

    /// HighRxt back to HighACK: no SACKed packet lies at or below it.
    fn reset_high_rxt(&mut self) {
        self.high_rxt = self.base - 1;
        if let RuleIndex::DupThresh { sacked_to_rxt, .. } = &mut self.index.by_rule {
            *sacked_to_rxt = 0;
        }
    }

    pub fn enter_recovery(&mut self) {
        self.recovery_point = Some(self.high_data);
        self.recovering = true;
        self.reset_high_rxt();
        self.rescue_rxt = None;
    }

    /// Section 5.1: a timeout ends any recovery; none starts again until the cumulative ACK
    /// covers what was outstanding.
    pub fn on_timeout(&mut self) {
        self.recovery_point = Some(self.high_data);
        self.recovering = false;
        self.reset_high_rxt();
        self.rescue_rxt = None;
    }

    /// RecoveryPoint (Linux's `high_seq`), while a recovery or a timeout's episode lasts.
    pub fn recovery_point(&self) -> Option<i64> {
        self.recovery_point
    }

    /// After a timeout, the episode lasts until what is outstanding now is acknowledged
    /// (F-RTO step 2.b, Linux `tcp_process_loss`: `high_seq = snd_nxt`).
    pub fn extend_timeout_episode(&mut self) {
        if self.recovery_point.is_some() && !self.recovering {
            self.recovery_point = Some(self.high_data);
        }
    }

    /// The timeout was spurious (F-RTO step 3.b): its episode ends, so a new recovery may
    /// start. Reading: Linux also clears every loss mark (`tcp_undo_cwnd_reduction` with
    /// `unmark_loss`); here the marks stay until the packets' ACKs, which a spurious timeout
    /// means are on their way: outside a recovery nothing sends by them (the sender goes on
    /// with new data), and RACK no longer watches them.
    pub fn undo_timeout(&mut self) {
        debug_assert!(!self.recovering);
        self.recovery_point = None;
    }

    /// When the first packet not cumulatively acknowledged was last sent.
    pub fn head_sent_at(&self) -> Option<Time> {
        self.sent_at.front().map(|s| s.at)
    }

    /// IsLost: DupThresh SACKed packets above `seq`, or RACK's mark.
    pub fn is_lost(&self, seq: i64) -> bool {
        if seq < self.base {
            return false;
        }
        match &self.index.by_rule {
            RuleIndex::Marked { .. } => self.flag(seq) & (LOST | SACKED) == LOST,
            RuleIndex::DupThresh { lost_edge, .. } => lost_edge.is_some_and(|e| seq < e),
        }
    }

    /// SetPipe: the RFC's estimate of the packets in the network.
    pub fn pipe(&self) -> i64 {
        match &self.index.by_rule {
            RuleIndex::Marked { pipe, .. } => *pipe,
            RuleIndex::DupThresh {
                lost_edge,
                sacked_to_rxt,
            } => {
                // Each unSACKed packet counts once if not lost: those above the edge, which
                // has DupThresh - 1 SACKed packets above it (all of them without an edge) ...
                let not_lost = match lost_edge {
                    Some(edge) => (self.high_data - edge) - (self.dup_thresh as i64 - 1),
                    None => (self.high_data - self.base + 1) - self.sacked as i64,
                };
                // ... and once more at or below HighRxt (the RFC's rule, by HighRxt, not by
                // packet: a rescue retransmission, which does not move HighRxt, is not
                // counted).
                let retransmitted = if self.high_rxt >= self.base {
                    (self.high_rxt - self.base + 1) - sacked_to_rxt
                } else {
                    0
                };
                not_lost + retransmitted
            }
        }
    }

    /// NextSeg: the packet to send next, if any. `new_data` says whether the application
    /// and the receiver's window allow a new packet.
    pub fn next_seg(&self, new_data: bool) -> Option<NextSeg> {
        let lost_edge = match &self.index.by_rule {
            RuleIndex::Marked { lost, unmarked, .. } => {
                return self.next_seg_marked(lost, unmarked, new_data)
            }
            RuleIndex::DupThresh { lost_edge, .. } => *lost_edge,
        };
        // Rules 1 and 3 look at the first unSACKed packet above HighRxt, below the highest
        // SACKed one: lost if below the edge (and then the first lost one, since IsLost holds
        // for every packet below the edge).
        let first_unsacked = self.highest_sacked().and_then(|top| {
            let start = (self.high_rxt + 1).max(self.base);
            self.index
                .unsacked_set
                .next_from(ix(start))
                .map(|s| s as i64)
                .filter(|&s| s < top)
        });
        if let Some(seq) = first_unsacked.filter(|&s| lost_edge.is_some_and(|e| s < e)) {
            return Some(NextSeg::Lost(seq));
        }
        if new_data {
            return Some(NextSeg::New(self.high_data + 1));
        }
        if let Some(seq) = first_unsacked {
            return Some(NextSeg::Unsacked(seq));
        }
        self.rescue()
    }

    /// Rule 4: one rescue per recovery, of the highest outstanding unSACKed packet.
    fn rescue(&self) -> Option<NextSeg> {
        if self.recovering
            && self.rescue_rxt.is_none_or(|r| self.base - 1 > r)
            && self.high_data >= self.base
        {
            let highest_unsacked = self.index.unsacked_set.prev_from(ix(self.high_data));
            return highest_unsacked.map(|s| NextSeg::Rescue(s as i64));
        }
        None
    }

    /// NextSeg with RACK's marks: rule 1 takes any marked packet not sent since it was
    /// marked; rule 3 the first unmarked unSACKed packet above HighRxt below the highest
    /// SACK; no rule 4.
    fn next_seg_marked(
        &self,
        lost: &SlidingBitSet,
        unmarked: &SlidingBitSet,
        new_data: bool,
    ) -> Option<NextSeg> {
        if let Some(seq) = lost.next_from(ix(self.base)) {
            return Some(NextSeg::Lost(seq as i64));
        }
        if new_data {
            return Some(NextSeg::New(self.high_data + 1));
        }
        let top = self.highest_sacked()?;
        let start = (self.high_rxt + 1).max(self.base);
        unmarked
            .next_from(ix(start))
            .map(|s| s as i64)
            .filter(|&s| s < top)
            .map(NextSeg::Unsacked)
    }
}
