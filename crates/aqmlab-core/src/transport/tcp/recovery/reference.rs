//! Test-only: the scoreboard as it was before issue 24 item 13, which recomputed pipe,
//! NextSeg, IsLost and RACK's marks by walking every packet outstanding on each call. It is
//! kept unchanged (but for its name and this note) as the oracle the incremental scoreboard
//! of `rfc6675.rs` is checked against, operation by operation (`rfc6675.rs`, tests), and to
//! count the steps the walks took (`work.rs`).
//!
//! Its lines repeat those of `rfc6675/` (`mod.rs`, `rules.rs`, `rack_marks.rs`) on purpose,
//! and `duplicates` lists them: an oracle that called the code it checks would check nothing,
//! so nothing here is shared with the scoreboard it is compared against (ARCHITECTURE.md,
//! "Repeated blocks").

use super::rfc6675::{AckUpdate, Delivered, LossRule, NextSeg, SendStamp};
use super::work;
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

#[derive(Debug, Clone)]
pub struct ReferenceScoreboard {
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

impl ReferenceScoreboard {
    pub fn new(dup_thresh: u32, rule: LossRule) -> Self {
        ReferenceScoreboard {
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
        work::event();
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
    #[allow(dead_code)] // kept as it was; the tests call on_ack_visit
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
        work::event();
        let mut u = AckUpdate::default();
        while self.base <= cum.min(self.high_data) {
            work::step(1);
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
                work::step(1);
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
            .inspect(|_| work::step(1))
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
                .inspect(|_| work::step(1))
                .filter(|&&f| f & SACKED == 0)
                .map(|&f| i64::from(f & LOST == 0) + i64::from(f & RETRANSMITTED != 0))
                .sum();
        }
        let mut pipe = 0;
        let mut sacked_above = self.sacked;
        for (i, &f) in self.flags.iter().inspect(|_| work::step(1)).enumerate() {
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
            .inspect(|_| work::step(1))
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
                .inspect(|_| work::step(1))
                .filter(|&&f| f & SACKED != 0)
                .count();
            for seq in start..top {
                work::step(1);
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
                .inspect(|_| work::step(1))
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
        let top = self
            .flags
            .iter()
            .inspect(|_| work::step(1))
            .rposition(|&f| f & SACKED != 0);
        for (i, &f) in self.flags.iter().inspect(|_| work::step(1)).enumerate() {
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
        work::event();
        let mut marked = 0;
        let mut wait: Option<Time> = None;
        for (i, f) in self.flags.iter_mut().inspect(|_| work::step(1)).enumerate() {
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
        work::event();
        for (i, f) in self.flags.iter_mut().inspect(|_| work::step(1)).enumerate() {
            if *f & SACKED == 0 && (i == 0 || self.sent_at[i].at.saturating_add(threshold) <= now) {
                *f = (*f | LOST) & !RETRANSMITTED;
            }
        }
    }
}
