//! The SACK sender's scoreboard, as ns-2 `ScoreBoard` (tcp/scoreboard.cc) used by
//! Agent/TCP/Sack1 (tcp/tcp-sack1.cc), with RFC 6675's `IsLost` rule deciding which holes
//! may be retransmitted.
//!
//! Parameters read: `dupack_threshold` (ns-2 `numdupacks_`), passed in by the sender.
//!
//! One byte of flags per packet above the cumulative ACK, in a ring buffer that grows to the
//! largest window seen and is then reused: no allocation per ACK in steady state.

use crate::net::SackBlock;
use std::collections::VecDeque;

const SACKED: u8 = 1;
const RETRANSMITTED: u8 = 2;

#[derive(Debug, Clone, Default)]
pub struct SackScoreboard {
    /// Sequence number of `flags[0]`: the first packet not cumulatively acknowledged.
    base: i64,
    flags: VecDeque<u8>,
    /// Packets marked SACKed in `flags`.
    sacked: usize,
}

impl SackScoreboard {
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets everything (new cumulative ACK outside recovery, or a timeout: ns-2 clears
    /// the scoreboard then, since after go-back-N the old SACK state may be stale).
    pub fn clear(&mut self) {
        self.flags.clear();
        self.sacked = 0;
    }

    pub fn is_empty(&self) -> bool {
        self.flags.is_empty()
    }

    /// Drops what the cumulative ACK `highest_ack` covers.
    fn advance(&mut self, highest_ack: i64) {
        let new_base = highest_ack + 1;
        if self.flags.is_empty() {
            self.base = new_base;
            return;
        }
        while self.base < new_base {
            match self.flags.pop_front() {
                Some(f) => {
                    if f & SACKED != 0 {
                        self.sacked -= 1;
                    }
                    self.base += 1;
                }
                None => {
                    self.base = new_base;
                    break;
                }
            }
        }
    }

    /// Grows the board to cover `seq` (callers bound `seq` by the highest packet sent).
    fn slot(&mut self, seq: i64) -> Option<&mut u8> {
        if seq < self.base {
            return None;
        }
        let idx = (seq - self.base) as usize;
        if idx >= self.flags.len() {
            self.flags.resize(idx + 1, 0);
        }
        self.flags.get_mut(idx)
    }

    /// Records an ACK's cumulative point and SACK blocks; blocks reaching past `maxseq`
    /// (data never sent) are clipped. Returns whether any packet became newly SACKed (ns-2
    /// `CheckUpdate`: only such ACKs count as duplicate ACKs for SACK).
    pub fn update(&mut self, highest_ack: i64, blocks: &[SackBlock], maxseq: i64) -> bool {
        self.advance(highest_ack);
        let mut changed = false;
        for b in blocks {
            let start = b.start.max(self.base);
            let end = b.end.min(maxseq + 1);
            let mut s = start;
            while s < end {
                if let Some(f) = self.slot(s) {
                    if *f & SACKED == 0 {
                        *f |= SACKED;
                        self.sacked += 1;
                        changed = true;
                    }
                }
                s += 1;
            }
        }
        changed
    }

    pub fn mark_retransmitted(&mut self, seq: i64) {
        if let Some(f) = self.slot(seq) {
            *f |= RETRANSMITTED;
        }
    }

    pub fn is_sacked(&self, seq: i64) -> bool {
        seq >= self.base
            && self
                .flags
                .get((seq - self.base) as usize)
                .is_some_and(|f| f & SACKED != 0)
    }

    /// The first hole not yet retransmitted that is deemed lost: at least `dupthresh`
    /// packets above it are SACKed (RFC 6675 IsLost; ns-2 counts SACKs above the hole).
    pub fn next_retransmission(&self, dupthresh: u32) -> Option<i64> {
        let mut above = self.sacked;
        for (i, &f) in self.flags.iter().enumerate() {
            if above < dupthresh as usize {
                return None;
            }
            if f & SACKED != 0 {
                above -= 1;
            } else if f & RETRANSMITTED == 0 {
                return Some(self.base + i as i64);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blk(start: i64, end: i64) -> SackBlock {
        SackBlock { start, end }
    }

    #[test]
    fn holes_below_three_sacked_packets_are_lost() {
        let mut s = SackScoreboard::new();
        // Packets 0..10 sent, 0 and 1 acked; 2 and 5 lost.
        assert!(s.update(1, &[blk(3, 5)], 9));
        assert_eq!(s.next_retransmission(3), None);
        assert!(s.update(1, &[blk(6, 8), blk(3, 5)], 9));
        // 2 has four SACKed packets above it, 5 only two.
        assert_eq!(s.next_retransmission(3), Some(2));
        s.mark_retransmitted(2);
        assert_eq!(s.next_retransmission(3), None);
        assert!(s.update(1, &[blk(6, 9)], 9));
        assert_eq!(s.next_retransmission(3), Some(5));
        s.mark_retransmitted(5);
        assert_eq!(s.next_retransmission(3), None);
        // The same SACK again is not new information.
        assert!(!s.update(1, &[blk(6, 9)], 9));
        // Cumulative ACK moves past the first hole.
        s.update(4, &[blk(6, 8)], 9);
        assert!(s.is_sacked(6) && !s.is_sacked(5));
    }

    #[test]
    fn blocks_beyond_the_highest_sent_packet_are_clipped() {
        let mut s = SackScoreboard::new();
        assert!(s.update(-1, &[blk(5, 1_000_000_000)], 9));
        assert!(s.is_sacked(9) && !s.is_sacked(10));
        assert!(!s.update(-1, &[blk(100, 200)], 9));
    }
}
