//! A receiving kernel's in-order delivery, followed from the packets handed to it: the
//! goodput of an emulated flow with the simulator's own definition (new in-order payload bytes,
//! counted for the packets sent inside the measurement window; `transport/tcp/sink.rs`), so
//! that it is measured on the same packets as the flow's throughput.
//!
//! Sequence numbers are RFC 9293's: the SYN takes the initial sequence number, data starts one
//! after it, comparisons are modular (3.4).

use crate::sim::Time;

/// `a` is before `b` in sequence space.
fn before(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

#[derive(Debug, Clone, Default)]
pub struct InOrderDelivery {
    /// The next byte expected; None until the SYN was delivered.
    next: Option<u32>,
    /// Segments above `next` waiting for a hole to fill: (start, end, sent at), by start.
    /// Whether a segment counts is decided when it is delivered in order, against the window's
    /// start then (a segment held across the end of the warm-up is judged by the new start).
    held: Vec<(u32, u32, Time)>,
}

impl InOrderDelivery {
    /// The SYN with initial sequence number `isn` reached the receiver.
    pub fn syn(&mut self, isn: u32) {
        if self.next.is_none() {
            self.next = Some(isn.wrapping_add(1));
        }
    }

    /// Payload `[seq, seq + len)`, sent at `sent_at`, reached the receiver. Returns the
    /// payload bytes this makes deliverable in order of the segments sent at or after
    /// `window_start`.
    pub fn segment(&mut self, seq: u32, len: u32, sent_at: Time, window_start: Time) -> u64 {
        let Some(next) = self.next else { return 0 };
        let end = seq.wrapping_add(len);
        if len == 0 || !before(next, end) {
            return 0; // nothing new: a duplicate, or no payload
        }
        if before(next, seq) {
            // A hole before it: held, in order of start.
            // Everything held is ahead of `next`: offsets from it order the segments.
            let offset = seq.wrapping_sub(next);
            let at = self
                .held
                .partition_point(|&(s, _, _)| s.wrapping_sub(next) <= offset);
            self.held.insert(at, (seq, end, sent_at));
            return 0;
        }
        let mut gained = if sent_at >= window_start {
            end.wrapping_sub(next) as u64
        } else {
            0
        };
        let mut next = end;
        // Held segments the new data reaches.
        let mut used = 0;
        for &(s, e, c) in &self.held {
            if before(next, s) {
                break;
            }
            used += 1;
            if before(next, e) {
                if c >= window_start {
                    gained += e.wrapping_sub(next) as u64;
                }
                next = e;
            }
        }
        self.held.drain(..used);
        self.next = Some(next);
        gained
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_segments_count_their_payload() {
        let mut d = InOrderDelivery::default();
        let start = 10;
        assert_eq!(
            d.segment(1, 100, 20, start),
            0,
            "before the SYN nothing is known"
        );
        d.syn(1000);
        assert_eq!(d.segment(1001, 100, 20, start), 100);
        assert_eq!(d.segment(1101, 100, 5, start), 0, "sent before the window");
        assert_eq!(d.segment(1001, 100, 20, start), 0, "a duplicate");
        assert_eq!(d.segment(1201, 100, 20, start), 100);
    }

    /// A hole filled late releases what was held, each held segment counted by its own
    /// sending time; overlapping retransmissions count once.
    #[test]
    fn a_filled_hole_releases_the_held_segments() {
        let mut d = InOrderDelivery::default();
        d.syn(u32::MAX - 150); // sequence numbers wrap inside the test
        let first = u32::MAX - 149;
        let start = 10;
        assert_eq!(d.segment(first.wrapping_add(200), 100, 20, start), 0);
        assert_eq!(d.segment(first.wrapping_add(100), 100, 5, start), 0);
        assert_eq!(d.segment(first.wrapping_add(250), 100, 20, start), 0);
        // The hole [0, 100): 100 + (held 100..200 not counted) + 200..300 + 300..350.
        assert_eq!(d.segment(first, 100, 20, start), 100 + 100 + 50);
        assert_eq!(
            d.segment(first.wrapping_add(340), 60, 20, start),
            50,
            "350..400"
        );
    }

    /// A segment held across the end of the warm-up is judged by the window it is released
    /// in: sent before the new start, it does not count (its bytes were counted as received
    /// before the counters restarted).
    #[test]
    fn a_segment_held_across_the_warm_up_is_judged_when_released() {
        let mut d = InOrderDelivery::default();
        d.syn(0);
        assert_eq!(
            d.segment(101, 100, 50, 0),
            0,
            "held while the window starts at 0"
        );
        assert_eq!(
            d.segment(1, 100, 150, 100),
            100,
            "only the filler, sent after 100"
        );
    }
}
