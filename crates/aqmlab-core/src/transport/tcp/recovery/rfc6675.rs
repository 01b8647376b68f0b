//! The SACK scoreboard and loss recovery of RFC 6675 (Blanton, Allman, Wang, Jarvinen, Kojo,
//! Nishida 2012), in packets (one SMSS each):
//! - `IsLost(S)` (section 4): S is lost when at least DupThresh SACKed packets lie above it
//!   (for whole packets the RFC's two conditions, DupThresh discontiguous SACKed sequences or
//!   more than (DupThresh - 1) SMSS SACKed above, coincide).
//! - `SetPipe` (section 4): each packet between HighACK and HighData that is not SACKed
//!   counts once if not lost, and once more if it has been retransmitted.
//! - `NextSeg` (section 4): (1) the first unSACKed packet above HighRxt, below the highest
//!   SACKed packet, that is lost; else (2) new data; else (3) the first unSACKed packet above
//!   HighRxt below the highest SACKed one; else (4) once per recovery, a rescue retransmission
//!   of the highest unSACKed packet, which does not move HighRxt.
//! - Recovery (section 5) starts on the DupThresh-th duplicate ACK or when the packet after
//!   the cumulative ACK is lost, sets RecoveryPoint = HighData, and ends when the cumulative
//!   ACK covers RecoveryPoint. After a timeout (5.1) RecoveryPoint = HighData, and no new
//!   recovery starts until the cumulative ACK covers it.
//!
//! Parameter: DupThresh (3, `tcp.dupack_threshold`).
//!
//! Reading taken where the RFC leaves a choice: after a timeout the SACKed marks are kept (RFC
//! 6675 5.1 allows using them; Linux keeps them unless the receiver reneges) and HighRxt goes
//! back to HighACK, since every hole is sent again.
//!
//! With RACK-TLP (`LossRule::Marked`, RFC 8985 section 4: RACK "replaces" the DupThresh
//! rule), IsLost(S) is a mark that RACK sets (`rack_tlp.rs`) and a retransmission clears
//! until RACK marks it again, as Linux's `TCPCB_LOST`/`TCPCB_SACKED_RETRANS` bits
//! (net/ipv4/tcp_recovery.c): SetPipe counts each unSACKed packet once if not marked lost and
//! once more if retransmitted since it was marked (Linux `tcp_packets_in_flight`), and
//! NextSeg's rule 1 sends any marked packet not yet retransmitted, wherever it lies, so a
//! lost retransmission is sent again without a timeout. Rules 2 and 3 are unchanged; rule 4,
//! the rescue retransmission, is left out: the tail loss probe does its job (Linux, whose
//! recovery is RACK-TLP's reference, has no rescue retransmission).

use crate::net::SackBlock;
use crate::sim::Time;
use std::collections::VecDeque;

const SACKED: u8 = 1;
/// RACK deemed the packet lost (Linux TCPCB_LOST); only with `LossRule::Marked`.
const LOST: u8 = 2;
/// Sent again since it was last deemed lost (Linux TCPCB_SACKED_RETRANS); RACK's
/// Segment.retransmitted.
const RETRANSMITTED: u8 = 4;
/// Sent more than once, ever (Linux TCPCB_EVER_RETRANS): its ACK gives no trusted RTT.
const EVER_RETRANSMITTED: u8 = 8;

/// What IsLost means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossRule {
    /// RFC 6675 section 4: DupThresh SACKed packets above.
    DupThresh,
    /// RFC 8985: RACK's marks (`mark_lost_by_time`, `mark_losses_on_rto`).
    Marked,
}

/// What NextSeg chose, by the rule that chose it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextSeg {
    /// Rule 1: a lost packet.
    Lost(i64),
    /// Rule 2: the next new packet.
    New(i64),
    /// Rule 3: an unSACKed packet not yet deemed lost.
    Unsacked(i64),
    /// Rule 4: the rescue retransmission.
    Rescue(i64),
}

impl NextSeg {
    pub fn seq(self) -> i64 {
        match self {
            NextSeg::Lost(s) | NextSeg::New(s) | NextSeg::Unsacked(s) | NextSeg::Rescue(s) => s,
        }
    }
}

/// What an ACK changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AckUpdate {
    /// Packets the cumulative ACK newly covers.
    pub newly_acked: i64,
    /// Packets newly SACKed.
    pub newly_sacked: i64,
    /// RFC 6937 DeliveredData: newly acknowledged packets that were not SACKed before, plus
    /// newly SACKed ones.
    pub delivered: i64,
}

#[derive(Debug, Clone)]
pub struct Scoreboard {
    dup_thresh: usize,
    rule: LossRule,
    /// The first packet not cumulatively acknowledged (the RFC's HighACK + 1); `flags[0]`.
    base: i64,
    flags: VecDeque<u8>,
    /// When each packet from `base` on was last sent (RACK's Segment.xmit_ts).
    sent_at: VecDeque<SendStamp>,
    /// Transmissions so far: orders sends made at the same instant.
    sends: u64,
    sacked: usize,
    /// The highest packet sent (HighData); `base - 1` when nothing is outstanding.
    high_data: i64,
    /// The highest packet retransmitted in this recovery (HighRxt).
    high_rxt: i64,
    rescue_rxt: Option<i64>,
    /// RecoveryPoint while recovering or after a timeout, until the cumulative ACK covers it.
    recovery_point: Option<i64>,
    recovering: bool,
}

impl Scoreboard {
    pub fn new(dup_thresh: u32, rule: LossRule) -> Self {
        Scoreboard {
            dup_thresh: dup_thresh as usize,
            rule,
            base: 0,
            flags: VecDeque::new(),
            sent_at: VecDeque::new(),
            sends: 0,
            sacked: 0,
            high_data: -1,
            high_rxt: -1,
            rescue_rxt: None,
            recovery_point: None,
            recovering: false,
        }
    }

    pub fn high_data(&self) -> i64 {
        self.high_data
    }

    /// The first packet not cumulatively acknowledged.
    pub fn snd_una(&self) -> i64 {
        self.base
    }

    pub fn in_recovery(&self) -> bool {
        self.recovering
    }

    fn flag(&self, seq: i64) -> u8 {
        if seq < self.base {
            return SACKED; // cumulatively acknowledged: as good as SACKed
        }
        self.flags
            .get((seq - self.base) as usize)
            .copied()
            .unwrap_or(0)
    }

    pub fn is_sacked(&self, seq: i64) -> bool {
        self.flag(seq) & SACKED != 0
    }

    /// SACKed packets above the cumulative ACK (RACK.segs_sacked).
    pub fn sacked_count(&self) -> usize {
        self.sacked
    }

    /// Records the sending of `seq` at `now`: new data extends HighData; a retransmission
    /// moves HighRxt, unless it is the rescue retransmission.
    pub fn on_sent(&mut self, seg: NextSeg, now: Time) {
        let seq = seg.seq();
        let stamp = SendStamp {
            at: now,
            order: self.sends,
        };
        self.sends += 1;
        if seq > self.high_data {
            let len = (seq - self.base + 1) as usize;
            self.flags.resize(len, 0);
            self.sent_at.resize(len, stamp);
            self.high_data = seq;
            return;
        }
        if seq >= self.base {
            let i = (seq - self.base) as usize;
            self.flags[i] |= RETRANSMITTED | EVER_RETRANSMITTED;
            self.sent_at[i] = stamp;
        }
        match seg {
            NextSeg::Rescue(_) => self.rescue_rxt = self.recovery_point,
            _ => self.high_rxt = self.high_rxt.max(seq),
        }
    }

    /// Records an ACK: `cum` is the highest packet received in order (-1 for none), `blocks`
    /// its SACK blocks (end exclusive); blocks beyond HighData are clipped.
    pub fn on_ack(&mut self, cum: i64, blocks: &[SackBlock]) -> AckUpdate {
        self.on_ack_visit(cum, blocks, |_| {})
    }

    /// `on_ack`, calling `delivered` for each packet this ACK newly delivers (cumulatively
    /// acknowledged and not SACKed before, or newly SACKed): what RACK learns from (RFC 8985
    /// section 6.2 steps 2 and 3).
    pub fn on_ack_visit(
        &mut self,
        cum: i64,
        blocks: &[SackBlock],
        mut delivered: impl FnMut(Delivered),
    ) -> AckUpdate {
        let mut u = AckUpdate::default();
        while self.base <= cum.min(self.high_data) {
            let f = self.flags.pop_front().unwrap_or(0);
            let sent = self.sent_at.pop_front().unwrap_or_default();
            if f & SACKED != 0 {
                self.sacked -= 1;
            } else {
                u.delivered += 1;
                delivered(Delivered {
                    seq: self.base,
                    sent,
                    retransmitted: f & EVER_RETRANSMITTED != 0,
                });
            }
            u.newly_acked += 1;
            self.base += 1;
        }
        for b in blocks {
            for seq in b.start.max(self.base)..b.end.min(self.high_data + 1) {
                let i = (seq - self.base) as usize;
                let f = &mut self.flags[i];
                if *f & SACKED == 0 {
                    *f |= SACKED;
                    self.sacked += 1;
                    u.newly_sacked += 1;
                    u.delivered += 1;
                    delivered(Delivered {
                        seq,
                        sent: self.sent_at[i],
                        retransmitted: *f & EVER_RETRANSMITTED != 0,
                    });
                }
            }
        }
        if self.recovery_point.is_some_and(|rp| cum >= rp) {
            self.recovery_point = None;
            self.recovering = false;
        }
        u
    }

    /// Whether recovery may start: not recovering, and no RecoveryPoint of an earlier
    /// recovery or timeout is outstanding.
    pub fn may_enter_recovery(&self) -> bool {
        self.recovery_point.is_none()
    }

    /// Section 5 trigger besides the DupThresh-th duplicate ACK: the next expected packet is
    /// already deemed lost.
    pub fn first_unacked_is_lost(&self) -> bool {
        self.base <= self.high_data && self.is_lost(self.base)
    }

    pub fn enter_recovery(&mut self) {
        self.recovery_point = Some(self.high_data);
        self.recovering = true;
        self.high_rxt = self.base - 1;
        self.rescue_rxt = None;
    }

    /// Section 5.1: a timeout ends any recovery; none starts again until the cumulative ACK
    /// covers what was outstanding.
    pub fn on_timeout(&mut self) {
        self.recovery_point = Some(self.high_data);
        self.recovering = false;
        self.high_rxt = self.base - 1;
        self.rescue_rxt = None;
    }

    /// IsLost: DupThresh SACKed packets above `seq`, or RACK's mark.
    pub fn is_lost(&self, seq: i64) -> bool {
        if seq < self.base {
            return false;
        }
        if self.rule == LossRule::Marked {
            return self.flag(seq) & (LOST | SACKED) == LOST;
        }
        let from = (seq - self.base + 1) as usize;
        self.flags
            .iter()
            .skip(from)
            .filter(|&&f| f & SACKED != 0)
            .take(self.dup_thresh)
            .count()
            >= self.dup_thresh
    }

    /// SetPipe: the RFC's estimate of the packets in the network.
    pub fn pipe(&self) -> i64 {
        if self.rule == LossRule::Marked {
            return self
                .flags
                .iter()
                .filter(|&&f| f & SACKED == 0)
                .map(|&f| i64::from(f & LOST == 0) + i64::from(f & RETRANSMITTED != 0))
                .sum();
        }
        let mut pipe = 0;
        let mut sacked_above = self.sacked;
        for (i, &f) in self.flags.iter().enumerate() {
            if f & SACKED != 0 {
                sacked_above -= 1;
                continue;
            }
            let seq = self.base + i as i64;
            if sacked_above < self.dup_thresh {
                pipe += 1; // not lost
            }
            // The RFC's rule, by HighRxt, not by packet: a rescue retransmission (which does
            // not move HighRxt) is not counted.
            if seq <= self.high_rxt {
                pipe += 1;
            }
        }
        pipe
    }

    /// NextSeg: the packet to send next, if any. `new_data` says whether the application
    /// and the receiver's window allow a new packet.
    pub fn next_seg(&self, new_data: bool) -> Option<NextSeg> {
        if self.rule == LossRule::Marked {
            return self.next_seg_marked(new_data);
        }
        let highest_sacked = self
            .flags
            .iter()
            .rposition(|&f| f & SACKED != 0)
            .map(|i| self.base + i as i64);
        let mut first_unsacked = None;
        if let Some(top) = highest_sacked {
            // Walk up from HighRxt + 1 counting SACKed packets above each candidate.
            let start = (self.high_rxt + 1).max(self.base);
            let mut sacked_above = self
                .flags
                .iter()
                .skip((start - self.base) as usize)
                .filter(|&&f| f & SACKED != 0)
                .count();
            for seq in start..top {
                let f = self.flag(seq);
                if f & SACKED != 0 {
                    sacked_above -= 1;
                    continue;
                }
                if sacked_above >= self.dup_thresh {
                    return Some(NextSeg::Lost(seq));
                }
                first_unsacked.get_or_insert(seq);
            }
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
        if self.recovering && self.rescue_rxt.is_none_or(|r| self.base - 1 > r) {
            let highest_unsacked = (self.base..=self.high_data)
                .rev()
                .find(|&s| self.flag(s) & SACKED == 0);
            return highest_unsacked.map(NextSeg::Rescue);
        }
        None
    }

    /// NextSeg with RACK's marks: rule 1 takes any marked packet not sent since it was
    /// marked; rule 3 the first unmarked unSACKed packet above HighRxt below the highest
    /// SACK; no rule 4.
    fn next_seg_marked(&self, new_data: bool) -> Option<NextSeg> {
        let mut first_unsacked = None;
        let top = self.flags.iter().rposition(|&f| f & SACKED != 0);
        for (i, &f) in self.flags.iter().enumerate() {
            if f & SACKED != 0 {
                continue;
            }
            let seq = self.base + i as i64;
            if f & (LOST | RETRANSMITTED) == LOST {
                return Some(NextSeg::Lost(seq));
            }
            if f & LOST == 0 && seq > self.high_rxt && top.is_some_and(|t| i < t) {
                first_unsacked.get_or_insert(seq);
            }
        }
        if new_data {
            return Some(NextSeg::New(self.high_data + 1));
        }
        first_unsacked.map(NextSeg::Unsacked)
    }

    /// RACK_detect_loss (RFC 8985 section 6.2 step 5): marks lost each unSACKed packet sent
    /// before `newest` (the sending of RACK.xmit_ts / RACK.end_seq) whose time `threshold`
    /// (RACK.rtt + RACK.reo_wnd) after its sending has passed; packets already marked and not
    /// resent are skipped. Returns the packets newly marked and, if some are not yet due, the
    /// time left until the last of them is (the RACK reordering timer).
    pub fn mark_lost_by_time(
        &mut self,
        newest: SendStamp,
        threshold: Time,
        now: Time,
    ) -> (i64, Option<Time>) {
        let mut marked = 0;
        let mut wait: Option<Time> = None;
        for (i, f) in self.flags.iter_mut().enumerate() {
            let sent = self.sent_at[i];
            // RFC 8985 walks packets in sending order and stops at the first sent after
            // RACK's; in sequence order (retransmissions are out of sending order) the same
            // packets are found by skipping those sent after.
            if *f & SACKED != 0 || sent > newest || *f & (LOST | RETRANSMITTED) == LOST {
                continue;
            }
            let due = sent.at.saturating_add(threshold);
            if due <= now {
                *f = (*f | LOST) & !RETRANSMITTED;
                marked += 1;
            } else {
                wait = Some(wait.map_or(due - now, |w| w.max(due - now)));
            }
        }
        (marked, wait)
    }

    /// RACK_mark_losses_on_RTO (RFC 8985 section 6.3): the first unacknowledged packet, and
    /// each one whose time `threshold` after sending has passed, are marked lost.
    pub fn mark_losses_on_rto(&mut self, threshold: Time, now: Time) {
        for (i, f) in self.flags.iter_mut().enumerate() {
            if *f & SACKED == 0 && (i == 0 || self.sent_at[i].at.saturating_add(threshold) <= now) {
                *f = (*f | LOST) & !RETRANSMITTED;
            }
        }
    }
}

/// When a packet was sent, ordered as the sends were made. RFC 8985 orders sends by
/// (xmit_ts, end_seq), assuming a clock fine enough that sends rarely share a timestamp; in a
/// simulator a burst leaves at one instant, and by sequence number a retransmission would
/// seem sent after new data sent just before it. The sender's own count of transmissions
/// orders them as they were made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct SendStamp {
    pub at: Time,
    pub order: u64,
}

/// A packet newly delivered by an ACK, as RACK sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivered {
    pub seq: i64,
    /// When it was last sent.
    pub sent: SendStamp,
    /// Sent more than once.
    pub retransmitted: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blk(start: i64, end: i64) -> SackBlock {
        SackBlock { start, end }
    }

    /// Sends packets 0..n.
    fn sent(n: i64) -> Scoreboard {
        let mut s = Scoreboard::new(3, LossRule::DupThresh);
        for seq in 0..n {
            s.on_sent(NextSeg::New(seq), 0);
        }
        s
    }

    #[test]
    fn is_lost_needs_dupthresh_sacked_packets_above() {
        // 0..10 sent; 2 and 5 lost; 3, 4, 6, 7 SACKed.
        let mut s = sent(10);
        s.on_ack(1, &[blk(3, 5), blk(6, 8)]);
        assert!(s.is_lost(2)); // 3, 4, 6, 7 above: four
        assert!(!s.is_lost(5)); // 6, 7 above: two
        assert!(!s.is_lost(8));
        s.on_ack(1, &[blk(6, 9)]);
        assert!(s.is_lost(5)); // 6, 7, 8
        assert!(!s.is_lost(0), "acknowledged packets are not lost");
    }

    #[test]
    fn pipe_counts_unsacked_not_lost_and_retransmitted_packets() {
        // 0..10 outstanding, SACKed 3, 4, 6, 7, 8: lost 2 and 5 (three or more above them);
        // 9 not lost. Pipe = 9 -> 1.
        let mut s = sent(10);
        let u = s.on_ack(-1, &[blk(3, 5), blk(6, 9)]);
        assert_eq!((u.newly_acked, u.newly_sacked, u.delivered), (0, 5, 5));
        // UnSACKed: 0, 1, 2 (five SACKed above each: lost), 5 (three above: lost), 9 (none
        // above: in flight). Pipe = 1.
        assert_eq!(s.pipe(), 1);
        s.enter_recovery();
        s.on_sent(s.next_seg(false).unwrap(), 0);
        // Rule 1 retransmits 0; at or below HighRxt it counts again: pipe = 2.
        assert_eq!(s.pipe(), 2);
    }

    #[test]
    fn next_seg_follows_rules_one_to_four() {
        // Three losses in one window: 0..10 sent, 1, 4, 7 lost, the rest SACKed.
        let mut s = sent(10);
        s.on_ack(0, &[blk(2, 4), blk(5, 7), blk(8, 10)]);
        assert!(s.first_unacked_is_lost());
        assert!(s.may_enter_recovery());
        s.enter_recovery();
        assert_eq!(
            s.pipe(),
            1,
            "7 has only two SACKed above it: not lost yet, in flight"
        );
        // Rule 1: lost packets in order, whatever new data there is.
        assert_eq!(s.next_seg(true), Some(NextSeg::Lost(1)));
        s.on_sent(NextSeg::Lost(1), 0);
        assert_eq!(s.next_seg(true), Some(NextSeg::Lost(4)));
        s.on_sent(NextSeg::Lost(4), 0);
        // 7 is not lost (8, 9 above): rule 2 sends new data when there is some ...
        assert_eq!(s.next_seg(true), Some(NextSeg::New(10)));
        // ... else rule 3 retransmits it as the first unSACKed packet above HighRxt.
        assert_eq!(s.next_seg(false), Some(NextSeg::Unsacked(7)));
        s.on_sent(NextSeg::Unsacked(7), 0);
        // Nothing left below the highest SACK: rule 4, one rescue of the highest unSACKed
        // packet (7 again, the only unSACKed one above HighACK besides those retransmitted).
        let rescue = s.next_seg(false);
        assert_eq!(rescue, Some(NextSeg::Rescue(7)));
        s.on_sent(rescue.unwrap(), 0);
        assert_eq!(s.next_seg(false), None, "one rescue per recovery");
        // The cumulative ACK covering RecoveryPoint (9) ends the recovery.
        s.on_ack(9, &[]);
        assert!(!s.in_recovery() && s.may_enter_recovery());
    }

    #[test]
    fn delivered_data_counts_each_packet_once() {
        let mut s = sent(6);
        // SACK of 2..4, then the cumulative ACK covers 0..4: 0, 1 newly delivered, 2, 3 were
        // delivered by the SACK already (RFC 6937 DeliveredData).
        assert_eq!(s.on_ack(-1, &[blk(2, 4)]).delivered, 2);
        let u = s.on_ack(3, &[]);
        assert_eq!((u.newly_acked, u.delivered), (4, 2));
        // A repeated SACK delivers nothing; blocks beyond HighData are clipped.
        assert_eq!(s.on_ack(3, &[blk(5, 100)]).delivered, 1);
        assert_eq!(s.on_ack(3, &[blk(5, 100)]).delivered, 0);
    }

    #[test]
    fn after_a_timeout_no_recovery_starts_until_recovery_point_is_acked() {
        let mut s = sent(8);
        s.on_ack(0, &[blk(2, 8)]);
        s.enter_recovery();
        s.on_sent(NextSeg::Lost(1), 0);
        s.on_timeout();
        assert!(!s.in_recovery() && !s.may_enter_recovery());
        assert!(s.is_sacked(5), "SACKed marks are kept");
        assert_eq!(s.pipe(), 0, "HighRxt is reset: 1 is lost, not in flight");
        s.on_ack(7, &[]);
        assert!(s.may_enter_recovery());
    }
}
