//! The transmissions RACK still watches, in the order they were made: Linux's
//! `tsorted_sent_queue` (a packet goes to its tail when sent or sent again,
//! `tcp_update_skb_after_send` in net/ipv4/tcp_output.c, and leaves it when SACKed,
//! `tcp_sacktag_walk` in net/ipv4/tcp_input.c, acknowledged, or marked lost). Linux's
//! `tcp_rack_detect_loss` (net/ipv4/tcp_recovery.c) walks it from the head up to the first
//! packet sent after the newest one delivered (RFC 8985 section 6.2 step 5 looks only at
//! those), marking the packets due and keeping the longest wait of the others. Every packet is
//! due the same time after its sending, so in sending order those due come first and the
//! longest wait is the last packet's: the scoreboard marks the first ones and stops at the
//! first not yet due, and takes the wait from the last one watched sent before the newest
//! delivered, which gives the same marks and the same timer without visiting the rest.
//!
//! Transmissions are numbered by the scoreboard (`SendStamp::order`, one per packet sent,
//! new or again). A transmission is watched from its sending until its packet is SACKed,
//! cumulatively acknowledged, marked lost or sent again (then the new transmission is the one
//! watched). Each number maps to its packet; numbers below the oldest watched one are
//! forgotten, so memory follows the transmissions of about the last round trip. A packet is
//! kept as the low 32 bits of its sequence number (4 bytes per transmission, not 8): a watched
//! packet lies in the flight, less than 2^32 packets above the cumulative ACK (a window is at
//! most 2^20), which gives back the rest.

use std::collections::VecDeque;

use super::bitset::SlidingBitSet;
use super::work;

#[derive(Debug, Clone, Default)]
pub struct SendOrder {
    /// Transmission numbers still watched.
    watched: SlidingBitSet,
    /// `seqs[n - first]`: the low 32 bits of the packet that transmission n sent.
    seqs: VecDeque<u32>,
    /// The first transmission number kept.
    first: u64,
}

impl SendOrder {
    /// Transmission `order` (the next number: each is recorded once, in order) sent `seq`.
    pub fn record(&mut self, order: u64, seq: i64) {
        if self.seqs.is_empty() {
            self.first = order;
        }
        debug_assert_eq!(order, self.first + self.seqs.len() as u64, "out of order");
        self.seqs.push_back(seq as u32);
    }

    pub fn watch(&mut self, order: u64) {
        debug_assert!(order >= self.first && order < self.first + self.seqs.len() as u64);
        self.watched.insert(order);
    }

    pub fn unwatch(&mut self, order: u64) {
        self.watched.remove(order);
    }

    /// Transmission `order` and its packet, which lies at or above `snd_una` and less than
    /// 2^32 packets above it.
    fn entry(&self, order: u64, snd_una: i64) -> (u64, i64) {
        let low = self.seqs[(order - self.first) as usize];
        (order, snd_una + i64::from(low.wrapping_sub(snd_una as u32)))
    }

    /// The earliest transmission watched: (its number, its packet); `snd_una` is the first
    /// packet not cumulatively acknowledged.
    pub fn first(&self, snd_una: i64) -> Option<(u64, i64)> {
        self.watched
            .next_from(self.first)
            .map(|o| self.entry(o, snd_una))
    }

    /// The latest transmission watched among those numbered `order` or less.
    pub fn last_up_to(&self, order: u64, snd_una: i64) -> Option<(u64, i64)> {
        self.watched
            .prev_from(order)
            .map(|o| self.entry(o, snd_una))
    }

    /// Forgets the transmissions before the earliest one watched.
    #[inline]
    pub fn trim(&mut self) {
        // The usual case: the first kept is still watched.
        if !self.seqs.is_empty() && !self.watched.contains(self.first) {
            self.drop_unwatched_front();
        }
    }

    fn drop_unwatched_front(&mut self) {
        let end = self.first + self.seqs.len() as u64;
        let keep_from = self.watched.next_from(self.first).unwrap_or(end);
        let drop = (keep_from - self.first) as usize;
        if drop > 0 {
            work::step(drop as u64);
            self.seqs.drain(..drop);
            self.first = keep_from;
            self.watched.trim_below(keep_from);
        }
    }

    /// Transmission numbers kept (for the memory figures).
    #[cfg(test)]
    pub fn kept(&self) -> usize {
        self.seqs.len()
    }

    /// Words of the set of watched numbers kept (for the memory figures).
    #[cfg(test)]
    pub fn watched_words(&self) -> usize {
        self.watched.words_kept()
    }
}
