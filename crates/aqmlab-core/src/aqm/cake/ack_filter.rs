//! CAKE's ACK filter: when a pure ACK joins a flow queue, an older pure ACK of the same
//! connection that it makes redundant is dropped.
//!
//! Source: Linux 6.1 `net/sched/sch_cake.c`, `cake_ack_filter`, `cake_tcph_may_drop`,
//! `cake_tcph_sack_compare`, `cake_tcph_get_tstamp`; facts only. On the model's packets:
//! - The triggering packet, just appended at the queue's tail, must be TCP with ACK set and
//!   SYN clear: any TCP packet but a SYN, a SYN-ACK (the ACK acknowledging nothing,
//!   `ack = SYN_SEQ`) or a UDP packet.
//! - Candidates, from the head to the packet before the tail: pure ACKs of the same
//!   connection (same `flow` id, `src` and `dst`: the 5-tuple's stand-in) with no flag but ACK
//!   besides ECE/CWR (`cake_tcph_may_drop`: PSH, SYN, FIN, RST rule it out; a model data
//!   packet carries PSH, `wire_headers.rs`), no payload, a timestamp pair not after the
//!   trigger's (TSval = `sent_at`, TSecr = `echo_sent_at`: the model's ns-2 timestamps, on
//!   every packet), a cumulative ACK not after the trigger's, and SACK information the
//!   trigger covers (`cake_tcph_sack_compare` < 0 keeps it: a candidate with SACK blocks where
//!   the trigger has none, a block the trigger's blocks do not cover, or a D-SACK, a block
//!   starting at or below its cumulative ACK). With the same cumulative ACK, the trigger
//!   must SACK strictly more (compare 1); equal SACKs keep it.
//! - ECN: a candidate whose ECE/CWR differ from the first eligible one found cancels it (its
//!   flags would be lost), and the count goes back by one.
//! - The oldest eligible ACK is dropped once a second one is found; with `aggressive`, a
//!   single eligible ACK is dropped too if it is the packet just before the trigger and has
//!   the trigger's ECE/CWR.
//!
//! Model units: a cumulative ACK is the last packet received in order (ns-2), so Linux's
//! ack_seq, the next byte expected, is `ack + 1`; SACK blocks are [start, end) in packets.
//! Sequence numbers do not wrap here, so `before`/`after` are plain comparisons.

use crate::net::wire_headers::SYN_SEQ;
use crate::net::{Packet, PacketArena, PacketId, PacketKind};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// `ack_filter` (`CAKE_ACK_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AckFilter {
    Off,
    On,
    Aggressive,
}

fn is_tcp(p: &Packet) -> bool {
    matches!(p.kind, PacketKind::TcpData | PacketKind::TcpAck)
}

fn is_syn(p: &Packet) -> bool {
    match p.kind {
        PacketKind::TcpData => p.seq == SYN_SEQ,
        PacketKind::TcpAck => p.ack == SYN_SEQ,
        PacketKind::Udp => false,
    }
}

fn ecn_flags(p: &Packet) -> (bool, bool) {
    (p.ecn.ece, p.ecn.cwr)
}

/// `cake_tcph_sack_compare(a, b)`: -1 if `a` SACKs something `b` does not (or has a D-SACK),
/// 1 if `b` covers `a` and SACKs more, 0 if they SACK the same.
fn sack_compare(a: &Packet, b: &Packet) -> i8 {
    let (sa, sb) = (a.sack_blocks(), b.sack_blocks());
    match (sa.is_empty(), sb.is_empty()) {
        (false, true) => return -1,
        (true, false) => return 1,
        (true, true) => return 0,
        (false, false) => {}
    }
    let bytes_b: i64 = sb.iter().map(|s| s.end - s.start).sum();
    let mut bytes_a = 0;
    for blk in sa {
        // A D-SACK: a block below the next packet expected, ack + 1.
        if blk.start <= a.ack {
            return -1;
        }
        bytes_a += blk.end - blk.start;
        if !sb.iter().any(|s| s.start <= blk.start && s.end >= blk.end) {
            return -1;
        }
    }
    (bytes_b > bytes_a) as i8
}

/// `cake_tcph_may_drop` and the payload test: a pure ACK whose timestamps are not after the
/// trigger's.
fn may_drop(check: &Packet, trigger: &Packet) -> bool {
    check.kind == PacketKind::TcpAck
        && !is_syn(check)
        && check.sent_at <= trigger.sent_at
        && check.echo_sent_at <= trigger.echo_sent_at
}

/// The position in `queue` of the ACK that the packet at its tail makes redundant, if any.
pub fn redundant_ack(
    queue: &VecDeque<PacketId>,
    packets: &PacketArena,
    aggressive: bool,
) -> Option<usize> {
    if queue.len() < 2 {
        return None;
    }
    let trigger = packets.get(*queue.back()?);
    if !is_tcp(trigger) || is_syn(trigger) {
        return None;
    }
    let mut elig: Option<(usize, (bool, bool))> = None;
    let mut num_found = 0;
    for (i, &id) in queue.iter().enumerate().take(queue.len() - 1) {
        let check = packets.get(id);
        if !is_tcp(check)
            || check.flow != trigger.flow
            || check.src != trigger.src
            || check.dst != trigger.dst
        {
            continue;
        }
        if let Some((_, flags)) = elig {
            if ecn_flags(check) != flags {
                elig = None;
                num_found -= 1;
            }
        }
        if !may_drop(check, trigger) || check.ack > trigger.ack {
            continue;
        }
        let sack = sack_compare(check, trigger);
        if sack < 0 || (check.ack == trigger.ack && sack == 0) {
            continue;
        }
        if elig.is_none() {
            elig = Some((i, ecn_flags(check)));
        }
        num_found += 1;
        if num_found > 1 {
            return elig.map(|(i, _)| i);
        }
    }
    match elig {
        Some((i, flags)) if aggressive && i + 2 == queue.len() && flags == ecn_flags(trigger) => {
            Some(i)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::SackBlock;

    struct Q {
        arena: PacketArena,
        q: VecDeque<PacketId>,
    }

    impl Q {
        fn new() -> Self {
            Q {
                arena: PacketArena::new(),
                q: VecDeque::new(),
            }
        }

        /// A pure ACK of flow 7 (node 1 to 0) acking `ack`, sent at `at`, with `sack` blocks.
        fn ack(&mut self, ack: i64, at: u64, sack: &[(i64, i64)]) -> &mut Packet {
            let mut p = Packet::new(PacketKind::TcpAck, 7, 1, 0, 0, 40);
            p.ack = ack;
            p.sent_at = at;
            for (k, &(start, end)) in sack.iter().enumerate() {
                p.sack[k] = SackBlock { start, end };
            }
            p.sack_len = sack.len() as u8;
            let id = self.arena.alloc(p);
            self.q.push_back(id);
            self.arena.get_mut(id)
        }

        fn filter(&self, aggressive: bool) -> Option<usize> {
            redundant_ack(&self.q, &self.arena, aggressive)
        }
    }

    /// Cumulative ACKs 10, 11, 12 queued: the arrival of 12 finds 10 eligible (first) and 11
    /// (second): the oldest, 10, at the head, is dropped. With only 10 before it, one
    /// eligible ACK: kept, unless aggressive (it is just before the trigger, same flags).
    #[test]
    fn drops_the_oldest_of_two_redundant_acks() {
        let mut q = Q::new();
        q.ack(10, 1, &[]);
        q.ack(11, 2, &[]);
        q.ack(12, 3, &[]);
        assert_eq!(q.filter(false), Some(0));
        let mut q = Q::new();
        q.ack(10, 1, &[]);
        q.ack(12, 2, &[]);
        assert_eq!(q.filter(false), None);
        assert_eq!(q.filter(true), Some(0));
    }

    /// A crafted queue, head first (packets 11 and 12 lost, 13 on received out of order):
    /// [UDP, ACK 10 with ECE, ACK 10 SACK 13-15, data of the flow, ACK of another flow,
    /// ACK 10 SACK 13-16] + trigger ACK 10 SACK 13-16.
    /// - UDP, data (PSH), the other flow: not candidates.
    /// - ACK 10 ECE: eligible (no SACK where the trigger has some: compare 1), first found.
    /// - ACK 10 SACK 13-15: its flags (no ECE) differ from the first eligible's: that one is
    ///   cancelled (count back to 0); it is eligible itself (13-15 inside 13-16, 2 < 3
    ///   packets): now the first, count 1.
    /// - ACK 10 SACK 13-16: same cumulative ACK and the same SACK as the trigger (compare 0):
    ///   kept. So one eligible ACK, not next to the trigger: nothing dropped even aggressive.
    ///
    /// A new trigger SACKing one packet more (13-17) makes the last one eligible too: two
    /// found, the first eligible (position 2) is dropped.
    #[test]
    fn ecn_flags_sack_and_other_packets_on_a_crafted_queue() {
        let mut q = Q::new();
        let udp = q.arena.alloc(Packet::new(PacketKind::Udp, 7, 1, 0, 0, 100));
        q.q.push_back(udp);
        q.ack(10, 1, &[]).ecn.ece = true;
        q.ack(10, 2, &[(13, 15)]);
        let mut data = Packet::new(PacketKind::TcpData, 7, 1, 0, 0, 1040);
        data.seq = 3;
        let d = q.arena.alloc(data);
        q.q.push_back(d);
        q.ack(9, 3, &[]).flow = 8;
        q.ack(10, 4, &[(13, 16)]);
        q.ack(10, 5, &[(13, 16)]);
        assert_eq!(q.filter(false), None);
        assert_eq!(q.filter(true), None);
        q.ack(10, 6, &[(13, 17)]);
        assert_eq!(q.filter(false), Some(2));
    }

    /// SACK rules: a block the trigger does not cover keeps the ACK; a D-SACK (a block at or
    /// below the ACK's own cumulative ACK) keeps it; a later timestamp echo keeps it; a
    /// cumulative ACK above the trigger's keeps it; a SYN-ACK trigger filters nothing.
    #[test]
    fn what_keeps_an_ack() {
        let kept = |build: &dyn Fn(&mut Q)| {
            let mut q = Q::new();
            build(&mut q);
            q.filter(true)
        };
        assert_eq!(
            kept(&|q| {
                q.ack(10, 1, &[(20, 22)]);
                q.ack(10, 2, &[(12, 14)]);
            }),
            None
        );
        assert_eq!(
            kept(&|q| {
                q.ack(10, 1, &[(8, 9)]);
                q.ack(12, 2, &[(14, 16)]);
            }),
            None
        );
        assert_eq!(
            kept(&|q| {
                q.ack(10, 1, &[]).echo_sent_at = 9;
                q.ack(12, 2, &[]).echo_sent_at = 5;
            }),
            None
        );
        assert_eq!(
            kept(&|q| {
                q.ack(13, 1, &[]);
                q.ack(12, 2, &[]);
            }),
            None
        );
        assert_eq!(
            kept(&|q| {
                q.ack(10, 1, &[]);
                q.ack(SYN_SEQ, 2, &[]);
            }),
            None
        );
        // The control: the same pair with nothing to keep it is filtered.
        assert_eq!(
            kept(&|q| {
                q.ack(10, 1, &[(12, 14)]);
                q.ack(10, 2, &[(12, 16)]);
            }),
            Some(0)
        );
    }
}
