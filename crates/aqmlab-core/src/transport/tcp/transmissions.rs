//! How many times each outstanding packet has been sent, for the flow table's
//! `max_transmissions_of_a_segment` (issue 25: a loop that resent one packet 233 times went
//! unnoticed). One byte per packet between the cumulative ACK and the highest packet sent,
//! dropped as the cumulative ACK passes: memory follows the window, not the run. A count
//! stops at 255 ("255 or more").

use std::collections::VecDeque;

#[derive(Debug, Clone, Default)]
pub struct Transmissions {
    /// The first packet counted (the first not cumulatively acknowledged).
    base: i64,
    /// `counts[i]`: transmissions of packet `base + i`.
    counts: VecDeque<u8>,
}

impl Transmissions {
    /// Packet `seq` was sent (again); returns how many times it has been sent in all.
    /// Packets below the cumulative ACK are not counted (0 is returned).
    pub fn on_sent(&mut self, seq: i64) -> u8 {
        if seq < self.base {
            return 0;
        }
        let i = (seq - self.base) as usize;
        while self.counts.len() <= i {
            self.counts.push_back(0);
        }
        let c = &mut self.counts[i];
        *c = c.saturating_add(1);
        *c
    }

    /// Every packet up to `cum` is acknowledged.
    pub fn on_cum_ack(&mut self, cum: i64) {
        if cum < self.base {
            return;
        }
        let n = ((cum - self.base + 1) as usize).min(self.counts.len());
        self.counts.drain(..n);
        self.base = cum + 1;
    }

    /// Packets counted (for memory checks).
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.counts.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_the_outstanding_packets() {
        let mut t = Transmissions::default();
        for seq in 0..5 {
            assert_eq!(t.on_sent(seq), 1);
        }
        assert_eq!(t.on_sent(2), 2);
        assert_eq!(t.on_sent(2), 3);
        t.on_cum_ack(1);
        assert_eq!(t.len(), 3);
        assert_eq!(
            t.on_sent(2),
            4,
            "the count survives the ACK of the packets below"
        );
        assert_eq!(t.on_sent(0), 0, "acknowledged packets are not counted");
        t.on_cum_ack(4);
        assert_eq!(t.len(), 0);
        assert_eq!(t.on_sent(5), 1);
        for _ in 0..300 {
            t.on_sent(5);
        }
        assert_eq!(t.on_sent(5), 255, "saturates");
        // An ACK past everything sent (a go-back-N that sent beyond): nothing left.
        t.on_cum_ack(10);
        assert_eq!(t.on_sent(11), 1);
    }
}
