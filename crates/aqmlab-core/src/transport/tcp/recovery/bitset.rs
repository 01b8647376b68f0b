//! A set of integers that lie in a window sliding upward (sequence numbers above the
//! cumulative ACK, transmissions since the oldest one still watched), answering "the first
//! member at or after x" and "the last member at or before x" in a few word reads whatever
//! the window's size: the scoreboard's incremental indices (`rfc6675.rs`) are built on it.
//!
//! A bit per possible member, in 64-bit words, with summary levels above: bit w of level
//! k + 1 is set when word w of level k is not zero (a 64-ary tree of bitmaps, as a van Emde
//! Boas layout flattened to fixed levels). The top level is scanned linearly, and a level is
//! added above it when it passes `TOP_WORDS` words, so a small set (a window of a few hundred
//! packets) is a single deque of words and a window of 2^20 packets has four levels. Each
//! level keeps only the words between its lowest and highest in use (a deque with the
//! absolute index of its first word), so memory follows the window, about one bit per member
//! of the span.

use std::collections::VecDeque;

use super::work;

/// Words of the top level beyond which a level is added above it.
const TOP_WORDS: usize = 16;
/// Levels at most: 64^6 = 2^36 members per word of the top level.
const MAX_LEVELS: usize = 6;

#[derive(Debug, Clone, Default)]
struct Level {
    /// Absolute index of `words[0]`.
    first: u64,
    words: VecDeque<u64>,
}

impl Level {
    fn get(&self, w: u64) -> u64 {
        match w.checked_sub(self.first) {
            Some(i) => self.words.get(i as usize).copied().unwrap_or(0),
            None => 0,
        }
    }

    /// The word `w`, created (zero) if it lies outside those kept.
    fn word_mut(&mut self, w: u64) -> &mut u64 {
        let i = w.wrapping_sub(self.first);
        if i < self.words.len() as u64 {
            return &mut self.words[i as usize];
        }
        self.extend_to(w)
    }

    #[cold]
    fn extend_to(&mut self, w: u64) -> &mut u64 {
        if self.words.is_empty() {
            self.first = w;
        }
        while w < self.first {
            self.words.push_front(0);
            self.first -= 1;
        }
        let i = (w - self.first) as usize;
        if i >= self.words.len() {
            self.words.resize(i + 1, 0);
        }
        &mut self.words[i]
    }

    /// Index of the last word kept (meaningful when some are).
    fn last(&self) -> u64 {
        self.first + self.words.len() as u64 - 1
    }
}

#[derive(Debug, Clone, Default)]
pub struct SlidingBitSet {
    /// Level 0: the members.
    bits: Level,
    /// Levels 1 and up: which words of the level below are not zero.
    summaries: Vec<Level>,
}

impl SlidingBitSet {
    fn levels(&self) -> usize {
        1 + self.summaries.len()
    }

    fn level(&self, k: usize) -> &Level {
        if k == 0 {
            &self.bits
        } else {
            &self.summaries[k - 1]
        }
    }

    fn level_mut(&mut self, k: usize) -> &mut Level {
        if k == 0 {
            &mut self.bits
        } else {
            &mut self.summaries[k - 1]
        }
    }

    pub fn contains(&self, i: u64) -> bool {
        self.bits.get(i >> 6) & (1 << (i & 63)) != 0
    }

    #[inline]
    pub fn insert(&mut self, i: u64) {
        work::step(1);
        let word = self.bits.word_mut(i >> 6);
        let was_empty = *word == 0;
        *word |= 1 << (i & 63);
        if was_empty {
            self.insert_above(i >> 6);
        }
    }

    /// Word `w` of level 0 is no longer empty: so the levels above say.
    fn insert_above(&mut self, w: u64) {
        let mut p = w;
        for k in 1..self.levels() {
            work::step(1);
            let word = self.level_mut(k).word_mut(p >> 6);
            let was_empty = *word == 0;
            *word |= 1 << (p & 63);
            if !was_empty {
                return;
            }
            p >>= 6;
        }
        self.grow();
    }

    /// Adds levels while the top one is long to scan.
    fn grow(&mut self) {
        while self.level(self.levels() - 1).words.len() > TOP_WORDS && self.levels() < MAX_LEVELS {
            let top = self.level(self.levels() - 1);
            let mut summary = Level::default();
            for (i, &w) in top.words.iter().enumerate() {
                work::step(1);
                if w != 0 {
                    let p = top.first + i as u64;
                    *summary.word_mut(p >> 6) |= 1 << (p & 63);
                }
            }
            self.summaries.push(summary);
        }
    }

    #[inline]
    pub fn remove(&mut self, i: u64) {
        work::step(1);
        let j = (i >> 6).wrapping_sub(self.bits.first);
        let Some(word) = self.bits.words.get_mut(j as usize) else {
            return;
        };
        *word &= !(1 << (i & 63));
        if *word == 0 {
            self.remove_above(i >> 6);
        }
    }

    /// Word `w` of level 0 is now empty: so the levels above say.
    fn remove_above(&mut self, w: u64) {
        let mut p = w;
        for k in 1..self.levels() {
            work::step(1);
            let level = self.level_mut(k);
            let Some(j) = (p >> 6).checked_sub(level.first) else {
                return;
            };
            let Some(word) = level.words.get_mut(j as usize) else {
                return;
            };
            *word &= !(1 << (p & 63));
            if *word != 0 {
                return;
            }
            p >>= 6;
        }
    }

    /// The least member `>= from`.
    pub fn next_from(&self, from: u64) -> Option<u64> {
        self.next_at(0, from)
    }

    /// The greatest member `<= upto`.
    pub fn prev_from(&self, upto: u64) -> Option<u64> {
        self.prev_at(0, upto)
    }

    fn next_at(&self, k: usize, p: u64) -> Option<u64> {
        let level = self.level(k);
        if level.words.is_empty() {
            return None;
        }
        let (mut w, mut p) = (p >> 6, p);
        if w < level.first {
            w = level.first;
            p = w << 6;
        } else if w > level.last() {
            return None;
        }
        work::step(1);
        let here = level.get(w) & (!0u64 << (p & 63));
        if here != 0 {
            return Some((w << 6) | u64::from(here.trailing_zeros()));
        }
        // The next non-empty word: from the level above, or by scanning the top level.
        let next = if k + 1 < self.levels() {
            self.next_at(k + 1, w + 1)?
        } else {
            (w + 1..=level.last()).find(|&v| {
                work::step(1);
                level.get(v) != 0
            })?
        };
        Some((next << 6) | u64::from(level.get(next).trailing_zeros()))
    }

    fn prev_at(&self, k: usize, p: u64) -> Option<u64> {
        let level = self.level(k);
        if level.words.is_empty() {
            return None;
        }
        let (mut w, mut mask) = (p >> 6, !0u64 >> (63 - (p & 63)));
        if w > level.last() {
            w = level.last();
            mask = !0;
        } else if w < level.first {
            return None;
        }
        work::step(1);
        let here = level.get(w) & mask;
        if here != 0 {
            return Some((w << 6) | u64::from(63 - here.leading_zeros()));
        }
        if w == level.first {
            return None;
        }
        let prev = if k + 1 < self.levels() {
            self.prev_at(k + 1, w - 1)?
        } else {
            (level.first..w).rev().find(|&v| {
                work::step(1);
                level.get(v) != 0
            })?
        };
        Some((prev << 6) | u64::from(63 - level.get(prev).leading_zeros()))
    }

    /// Forgets the words wholly below `lo`, which must hold no member (the window has slid
    /// past them): memory follows the window.
    #[inline]
    pub fn trim_below(&mut self, lo: u64) {
        if !self.bits.words.is_empty() && (self.bits.first + 1) << 6 <= lo {
            self.trim_levels(lo);
        }
    }

    fn trim_levels(&mut self, lo: u64) {
        let mut span_shift = 6; // log2 of the members one word of this level covers
        for k in 0..self.levels() {
            let level = self.level_mut(k);
            let mut popped = false;
            while !level.words.is_empty() && ((level.first + 1) << span_shift) <= lo {
                work::step(1);
                debug_assert_eq!(level.words[0], 0, "a member below the window");
                level.words.pop_front();
                level.first += 1;
                popped = true;
            }
            if !popped {
                // The first word of each level above covers this one's: none to drop.
                return;
            }
            span_shift += 6;
        }
    }

    /// Words kept.
    #[cfg(test)]
    pub fn words_kept(&self) -> usize {
        self.bits.words.len() + self.summaries.iter().map(|l| l.words.len()).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    #[test]
    fn finds_members_across_words_and_levels() {
        let mut s = SlidingBitSet::default();
        assert_eq!(s.next_from(0), None);
        assert_eq!(s.prev_from(u64::MAX), None);
        for i in [5, 64, 4_100, 300_000, 20_000_000] {
            s.insert(i);
        }
        assert_eq!(s.next_from(0), Some(5));
        assert_eq!(s.next_from(6), Some(64));
        assert_eq!(s.next_from(65), Some(4_100));
        assert_eq!(s.next_from(4_101), Some(300_000));
        assert_eq!(s.next_from(300_001), Some(20_000_000));
        assert_eq!(s.next_from(20_000_001), None);
        assert_eq!(s.prev_from(20_000_000), Some(20_000_000));
        assert_eq!(s.prev_from(19_999_999), Some(300_000));
        assert_eq!(s.prev_from(4_099), Some(64));
        assert_eq!(s.prev_from(4), None);
        s.remove(300_000);
        assert_eq!(s.next_from(4_101), Some(20_000_000));
        assert_eq!(s.prev_from(19_999_999), Some(4_100));
        for i in [5, 64, 4_100] {
            s.remove(i);
        }
        s.trim_below(20_000_000);
        assert_eq!(s.prev_from(u64::MAX), Some(20_000_000));
        assert_eq!(s.next_from(0), Some(20_000_000));
        s.remove(20_000_000);
        assert_eq!(s.next_from(0), None);
    }

    #[test]
    fn memory_follows_the_window() {
        // A window of 1,000 members sliding over 10 million: the words kept stay those of
        // the window, not of all that passed.
        let mut s = SlidingBitSet::default();
        for i in 0..10_000_000u64 {
            s.insert(i);
            if i >= 1_000 {
                s.remove(i - 1_000);
                s.trim_below(i - 999);
            }
        }
        assert!(
            s.words_kept() <= 1_000 / 64 + 2 + 3 * 2,
            "{}",
            s.words_kept()
        );
        assert_eq!(s.next_from(0), Some(10_000_000 - 1_000));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Against a BTreeSet: the same members, the same answers, over a sliding window.
        #[test]
        fn agrees_with_an_ordered_set(
            ops in prop::collection::vec((0u8..4, 0u64..300_000), 1..400),
        ) {
            let mut s = SlidingBitSet::default();
            let mut r = BTreeSet::new();
            let mut lo = 0u64;
            for (op, x) in ops {
                let i = lo + x;
                match op {
                    0 => { s.insert(i); r.insert(i); }
                    1 => { s.remove(i); r.remove(&i); }
                    2 => {
                        // Slide the window up to the least member or i, whichever is lower.
                        let to = r.iter().next().copied().unwrap_or(i).min(i);
                        s.trim_below(to);
                        lo = lo.max(to);
                    }
                    _ => {}
                }
                prop_assert_eq!(s.next_from(i), r.range(i..).next().copied());
                prop_assert_eq!(s.prev_from(i), r.range(..=i).next_back().copied());
                prop_assert_eq!(s.contains(i), r.contains(&i));
                let below = i.saturating_sub(70_000);
                prop_assert_eq!(s.next_from(below), r.range(below..).next().copied());
                prop_assert_eq!(s.prev_from(below), r.range(..=below).next_back().copied());
            }
        }
    }
}
