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
//!
//! How it is kept (issue 24, item 13). Each of these used to be a walk over every packet
//! outstanding on every ACK, so a window of 2^20 packets made each ACK cost a million steps.
//! Now every change of a packet's state (sent, sent again, SACKed, marked lost, cumulatively
//! acknowledged) goes through one place (`Scoreboard::change`, `push`, `pop`) that updates
//! the indices below, and each question is answered from them in a few steps whatever the
//! window:
//! - SetPipe with RACK's marks: a running sum of each packet's share (Linux keeps pipe the
//!   same way, as counters: `tcp_packets_in_flight` = packets_out - sacked_out - lost_out +
//!   retrans_out).
//! - SetPipe with the DupThresh rule: IsLost(S) holds exactly for the packets below the
//!   DupThresh-th highest SACKed packet (`lost_edge`), and as SACKs are only added that edge
//!   only rises (one SACKed packet up for each packet newly SACKed above it), so pipe =
//!   (unSACKed packets above the edge) + (unSACKed packets up to HighRxt), two differences of
//!   counts kept as packets are SACKed and HighRxt moves.
//! - NextSeg: ordered sets (`bitset.rs`) of the unSACKed packets, of the marked packets not
//!   yet sent again (rule 1 with RACK) and of those neither SACKed nor marked (rule 3): each
//!   rule is the first member above HighRxt (or above HighACK), the highest SACKed packet the
//!   last member of the SACKed set, the rescue retransmission the last unSACKed packet.
//! - SACK blocks: only the packets of a block not yet SACKed are visited (the block repeats,
//!   ACK after ACK, what the scoreboard has already recorded).
//! - RACK's marks: the transmissions in sending order (`send_order.rs`).
//!
//! The answers are those of the walks, packet for packet (`reference.rs` keeps the walks as a
//! test oracle; the property test below compares the two over random runs).
//!
//! Here: the state and its indices, and how a sending and an ACK change them; the RFC's
//! questions (IsLost, SetPipe, NextSeg) and its recovery episodes in `rules.rs`; RACK's
//! marks in `rack_marks.rs`.

use super::bitset::SlidingBitSet;
use super::send_order::SendOrder;
use super::work;
use crate::net::SackBlock;
use crate::sim::Time;
use std::collections::VecDeque;

mod rack_marks;
mod rules;

const SACKED: u8 = 1;
/// RACK deemed the packet lost (Linux TCPCB_LOST); only with `LossRule::Marked`.
const LOST: u8 = 2;
/// Sent again since it was last deemed lost (Linux TCPCB_SACKED_RETRANS); RACK's
/// Segment.retransmitted.
const RETRANSMITTED: u8 = 4;
/// Sent more than once, ever (Linux TCPCB_EVER_RETRANS): its ACK gives no trusted RTT.
const EVER_RETRANSMITTED: u8 = 8;
/// RACK no longer watches the packet's last sending, though it is not marked lost: its mark
/// was undone with a timeout (Linux `tcp_undo_cwnd_reduction` clears TCPCB_LOST, but a packet
/// RACK marked left `tsorted_sent_queue` then and returns to it only when sent again,
/// `tcp_update_skb_after_send`). Cleared when the packet is sent again.
const UNWATCHED: u8 = 16;

/// A packet's share of SetPipe under RACK's marks: once if not SACKed and not marked lost,
/// once more if sent again since it was marked.
fn pipe_share(f: u8) -> i64 {
    if f & SACKED != 0 {
        return 0;
    }
    i64::from(f & LOST == 0) + i64::from(f & RETRANSMITTED != 0)
}

/// NextSeg rule 1 under RACK's marks: marked lost, not SACKed, not sent since the mark.
fn awaits_retransmission(f: u8) -> bool {
    f & (SACKED | LOST | RETRANSMITTED) == LOST
}

/// NextSeg rule 3's candidates under RACK's marks: neither SACKed nor marked lost.
fn is_unmarked(f: u8) -> bool {
    f & (SACKED | LOST) == 0
}

/// RACK may still mark the packet lost: not SACKed, and not already marked and waiting for
/// its retransmission (RFC 8985 6.2 step 5 skips those; Linux takes them off its list).
fn rack_watches(f: u8) -> bool {
    f & (SACKED | UNWATCHED) == 0 && !awaits_retransmission(f)
}

/// Sequence numbers as indices of the ordered sets (never negative: packets count from 0).
fn ix(seq: i64) -> u64 {
    debug_assert!(seq >= 0);
    seq as u64
}

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
    /// When the last one was made.
    last_send_at: Time,
    sacked: usize,
    /// The highest packet sent (HighData); `base - 1` when nothing is outstanding.
    high_data: i64,
    /// The highest packet retransmitted in this recovery (HighRxt).
    high_rxt: i64,
    rescue_rxt: Option<i64>,
    /// RecoveryPoint while recovering or after a timeout, until the cumulative ACK covers it.
    recovery_point: Option<i64>,
    recovering: bool,
    /// On the heap: a sender is one variant of the agents' enum, which every agent's slot
    /// is as large as.
    index: Box<Index>,
}

/// What the questions are answered from.
#[derive(Debug, Clone)]
struct Index {
    /// The packets SACKed, and those outstanding and not SACKed, from `base` to HighData.
    sacked_set: SlidingBitSet,
    unsacked_set: SlidingBitSet,
    /// What each rule needs.
    by_rule: RuleIndex,
}

/// The indices only one loss rule reads.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // one per sender, boxed with the rest of `Index`
enum RuleIndex {
    DupThresh {
        /// The DupThresh-th highest SACKed packet, while at least DupThresh are SACKed: the
        /// packets below it are lost (IsLost), the others not.
        lost_edge: Option<i64>,
        /// SACKed packets from `base` to HighRxt.
        sacked_to_rxt: i64,
    },
    Marked {
        /// SetPipe: the sum of `pipe_share` over the packets outstanding.
        pipe: i64,
        /// Rule 1's candidates (`awaits_retransmission`).
        lost: SlidingBitSet,
        /// Rule 3's candidates (`is_unmarked`).
        unmarked: SlidingBitSet,
        /// The transmissions RACK watches (`rack_watches`), in sending order.
        send_order: SendOrder,
    },
}

impl Scoreboard {
    pub fn new(dup_thresh: u32, rule: LossRule) -> Self {
        debug_assert!(
            dup_thresh >= 1,
            "DupThresh is at least 1 (TcpConfig::validate)"
        );
        Scoreboard {
            dup_thresh: dup_thresh as usize,
            rule,
            base: 0,
            flags: VecDeque::new(),
            sent_at: VecDeque::new(),
            sends: 0,
            last_send_at: 0,
            sacked: 0,
            high_data: -1,
            high_rxt: -1,
            rescue_rxt: None,
            recovery_point: None,
            recovering: false,
            index: Box::new(Index {
                sacked_set: SlidingBitSet::default(),
                unsacked_set: SlidingBitSet::default(),
                by_rule: match rule {
                    LossRule::DupThresh => RuleIndex::DupThresh {
                        lost_edge: None,
                        sacked_to_rxt: 0,
                    },
                    LossRule::Marked => RuleIndex::Marked {
                        pipe: 0,
                        lost: SlidingBitSet::default(),
                        unmarked: SlidingBitSet::default(),
                        send_order: SendOrder::default(),
                    },
                },
            }),
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

    /// The first packet from `from` on that is neither cumulatively acknowledged nor
    /// SACKed, or HighData + 1 if there is none up to HighData; `from` itself when it lies
    /// above HighData. (Where a go-back-N after a timeout resumes.)
    pub fn next_unsacked(&self, from: i64) -> i64 {
        if from > self.high_data {
            return from;
        }
        self.index
            .unsacked_set
            .next_from(ix(from.max(self.base)))
            .map_or(self.high_data + 1, |s| s as i64)
    }

    /// When outstanding packet `seq` was last sent, and whether it has been sent more than
    /// once; None if it is not outstanding.
    pub fn last_sending(&self, seq: i64) -> Option<(Time, bool)> {
        if seq < self.base || seq > self.high_data {
            return None;
        }
        let i = (seq - self.base) as usize;
        Some((self.sent_at[i].at, self.flags[i] & EVER_RETRANSMITTED != 0))
    }

    /// SACKed packets above the cumulative ACK (RACK.segs_sacked).
    pub fn sacked_count(&self) -> usize {
        self.sacked
    }

    /// The highest SACKed packet.
    fn highest_sacked(&self) -> Option<i64> {
        if self.sacked == 0 {
            return None;
        }
        self.index
            .sacked_set
            .prev_from(ix(self.high_data))
            .map(|s| s as i64)
    }

    /// Records the sending of `seq` at `now`: new data extends HighData; a retransmission
    /// moves HighRxt, unless it is the rescue retransmission. New data is the packet after
    /// HighData (as every caller sends it), and `now` never goes back.
    pub fn on_sent(&mut self, seg: NextSeg, now: Time) {
        work::event();
        let seq = seg.seq();
        // RACK's walk in sending order relies on sending times that never go back.
        debug_assert!(now >= self.last_send_at, "time went back");
        self.last_send_at = now;
        let stamp = SendStamp {
            at: now,
            order: self.sends,
        };
        self.sends += 1;
        if let RuleIndex::Marked { send_order, .. } = &mut self.index.by_rule {
            send_order.record(stamp.order, seq);
        }
        if seq > self.high_data {
            // One transmission stamp per packet: RACK's order of sendings needs it.
            assert_eq!(
                seq,
                self.high_data + 1,
                "new data must follow HighData without a gap"
            );
            self.push(stamp);
            return;
        }
        if seq >= self.base {
            let f = self.flag(seq);
            let again = (f | RETRANSMITTED | EVER_RETRANSMITTED) & !UNWATCHED;
            self.change(seq, again, Some(stamp));
        }
        match seg {
            NextSeg::Rescue(_) => self.rescue_rxt = self.recovery_point,
            _ => self.raise_high_rxt(seq),
        }
        self.trim_send_order();
    }

    /// HighRxt = max(HighRxt, `seq`), counting the SACKed packets it passes.
    fn raise_high_rxt(&mut self, seq: i64) {
        if seq <= self.high_rxt {
            return;
        }
        let from = (self.high_rxt + 1).max(self.base);
        self.high_rxt = seq;
        let RuleIndex::DupThresh { sacked_to_rxt, .. } = &mut self.index.by_rule else {
            return; // RACK's pipe does not use HighRxt
        };
        if from > seq {
            return;
        }
        // NextSeg and the go-back-N after a timeout resend the first unSACKed packet above
        // HighRxt, so every packet passed is SACKed; count one by one only otherwise.
        let first_unsacked = self
            .index
            .unsacked_set
            .next_from(ix(from))
            .map(|s| s as i64);
        *sacked_to_rxt += if first_unsacked.is_none_or(|u| u >= seq) {
            seq - from + i64::from(self.index.sacked_set.contains(ix(seq)))
        } else {
            let mut n = 0;
            let mut at = from;
            while let Some(s) = self.index.sacked_set.next_from(ix(at)).map(|s| s as i64) {
                if s > seq {
                    break;
                }
                n += 1;
                at = s + 1;
            }
            n
        };
    }

    /// A new packet, HighData + 1, sent with `stamp`.
    fn push(&mut self, stamp: SendStamp) {
        work::step(1);
        let seq = self.high_data + 1;
        self.flags.push_back(0);
        self.sent_at.push_back(stamp);
        self.high_data = seq;
        self.index.unsacked_set.insert(ix(seq));
        if let RuleIndex::Marked {
            pipe,
            unmarked,
            send_order,
            ..
        } = &mut self.index.by_rule
        {
            *pipe += pipe_share(0);
            unmarked.insert(ix(seq));
            send_order.watch(stamp.order);
        }
    }

    /// Forgets the first outstanding packet, now cumulatively acknowledged; returns its state.
    fn pop(&mut self) -> (u8, SendStamp) {
        work::step(1);
        let seq = self.base;
        let f = self.flags.pop_front().unwrap_or(0);
        let sent = self.sent_at.pop_front().unwrap_or_default();
        self.base += 1;
        if f & SACKED != 0 {
            self.sacked -= 1;
            self.index.sacked_set.remove(ix(seq));
        } else {
            self.index.unsacked_set.remove(ix(seq));
        }
        match &mut self.index.by_rule {
            RuleIndex::DupThresh {
                lost_edge,
                sacked_to_rxt,
            } => {
                if f & SACKED != 0 {
                    if seq <= self.high_rxt {
                        *sacked_to_rxt -= 1;
                    }
                    // Only the lowest SACKed packets leave: the edge stays until fewer than
                    // DupThresh remain.
                    if self.sacked < self.dup_thresh {
                        *lost_edge = None;
                    }
                }
            }
            RuleIndex::Marked {
                pipe,
                lost,
                unmarked,
                send_order,
            } => {
                *pipe -= pipe_share(f);
                lost.remove(ix(seq));
                unmarked.remove(ix(seq));
                if rack_watches(f) {
                    send_order.unwatch(sent.order);
                }
            }
        }
        (f, sent)
    }

    /// Sets the state of outstanding packet `seq` to `new` (and its last sending to `stamp`,
    /// if given), keeping every index in step. SACKED is never cleared.
    fn change(&mut self, seq: i64, new: u8, stamp: Option<SendStamp>) {
        work::step(1);
        let i = (seq - self.base) as usize;
        let old = self.flags[i];
        if old == new && stamp.is_none() {
            return;
        }
        let old_order = self.sent_at[i].order;
        self.flags[i] = new;
        if let Some(stamp) = stamp {
            self.sent_at[i] = stamp;
        }
        let new_order = self.sent_at[i].order;
        let newly_sacked = old & SACKED == 0 && new & SACKED != 0;
        debug_assert!(
            old & SACKED == 0 || new & SACKED != 0,
            "a SACK is never undone"
        );
        if newly_sacked {
            self.sacked += 1;
            self.index.sacked_set.insert(ix(seq));
            self.index.unsacked_set.remove(ix(seq));
        }
        match &mut self.index.by_rule {
            RuleIndex::DupThresh {
                lost_edge,
                sacked_to_rxt,
            } => {
                if newly_sacked {
                    if seq <= self.high_rxt {
                        *sacked_to_rxt += 1;
                    }
                    // The DupThresh-th highest SACKed packet: with exactly DupThresh, the
                    // lowest; a packet SACKed above the edge moves it to the next SACKed one.
                    if self.sacked == self.dup_thresh {
                        *lost_edge = self
                            .index
                            .sacked_set
                            .next_from(ix(self.base))
                            .map(|s| s as i64);
                    } else if let Some(edge) = lost_edge.filter(|&e| seq > e) {
                        *lost_edge = self
                            .index
                            .sacked_set
                            .next_from(ix(edge + 1))
                            .map(|s| s as i64);
                    }
                }
            }
            RuleIndex::Marked {
                pipe,
                lost,
                unmarked,
                send_order,
            } => {
                *pipe += pipe_share(new) - pipe_share(old);
                match (awaits_retransmission(old), awaits_retransmission(new)) {
                    (false, true) => lost.insert(ix(seq)),
                    (true, false) => lost.remove(ix(seq)),
                    _ => {}
                }
                match (is_unmarked(old), is_unmarked(new)) {
                    (false, true) => unmarked.insert(ix(seq)),
                    (true, false) => unmarked.remove(ix(seq)),
                    _ => {}
                }
                let (was, is) = (rack_watches(old), rack_watches(new));
                if was && (!is || new_order != old_order) {
                    send_order.unwatch(old_order);
                }
                if is && (!was || new_order != old_order) {
                    send_order.watch(new_order);
                }
            }
        }
    }

    /// Forgets what lies below the cumulative ACK.
    fn trim(&mut self) {
        let base = ix(self.base);
        self.index.sacked_set.trim_below(base);
        self.index.unsacked_set.trim_below(base);
        if let RuleIndex::Marked { lost, unmarked, .. } = &mut self.index.by_rule {
            lost.trim_below(base);
            unmarked.trim_below(base);
        }
        self.trim_send_order();
    }

    #[inline]
    fn trim_send_order(&mut self) {
        if let RuleIndex::Marked { send_order, .. } = &mut self.index.by_rule {
            send_order.trim();
        }
    }

    /// Records an ACK: `cum` is the highest packet received in order (-1 for none), `blocks`
    /// its SACK blocks (end exclusive); blocks beyond HighData are clipped.
    pub fn on_ack(&mut self, cum: i64, blocks: &[SackBlock]) -> AckUpdate {
        self.on_ack_visit(cum, blocks, |_| {})
    }

    /// `on_ack`, calling `delivered` for each packet this ACK newly delivers (cumulatively
    /// acknowledged and not SACKed before, or newly SACKed): what RACK learns from (RFC 8985
    /// section 6.2 steps 2 and 3). In the order of the walk it replaces: the cumulatively
    /// acknowledged packets upward, then each block's packets upward, block by block.
    pub fn on_ack_visit(
        &mut self,
        cum: i64,
        blocks: &[SackBlock],
        mut delivered: impl FnMut(Delivered),
    ) -> AckUpdate {
        work::event();
        let mut u = AckUpdate::default();
        while self.base <= cum.min(self.high_data) {
            let seq = self.base;
            let (f, sent) = self.pop();
            if f & SACKED == 0 {
                u.delivered += 1;
                delivered(Delivered {
                    seq,
                    sent,
                    retransmitted: f & EVER_RETRANSMITTED != 0,
                });
            }
            u.newly_acked += 1;
        }
        for b in blocks {
            let end = b.end.min(self.high_data + 1);
            let mut from = b.start.max(self.base);
            // Only the block's packets not SACKed yet.
            while from < end {
                let Some(seq) = self
                    .index
                    .unsacked_set
                    .next_from(ix(from))
                    .map(|s| s as i64)
                    .filter(|&s| s < end)
                else {
                    break;
                };
                let i = (seq - self.base) as usize;
                let (f, sent) = (self.flags[i], self.sent_at[i]);
                self.change(seq, f | SACKED, None);
                u.newly_sacked += 1;
                u.delivered += 1;
                delivered(Delivered {
                    seq,
                    sent,
                    retransmitted: f & EVER_RETRANSMITTED != 0,
                });
                from = seq + 1;
            }
        }
        if self.recovery_point.is_some_and(|rp| cum >= rp) {
            self.recovery_point = None;
            self.recovering = false;
        }
        self.trim();
        u
    }

    /// Bytes the indices keep beyond the 17 per packet outstanding of `flags` and `sent_at`
    /// (without the deques' spare capacity): for the memory figures.
    #[cfg(test)]
    pub(super) fn index_bytes(&self) -> usize {
        let mut words = self.index.sacked_set.words_kept() + self.index.unsacked_set.words_kept();
        let mut numbers = 0;
        if let RuleIndex::Marked {
            lost,
            unmarked,
            send_order,
            ..
        } = &self.index.by_rule
        {
            words += lost.words_kept() + unmarked.words_kept() + send_order.watched_words();
            numbers = send_order.kept();
        }
        words * 8 + numbers * 4
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
