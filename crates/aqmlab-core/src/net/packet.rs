//! Packets and the arena that recycles them.
//!
//! Packets live in one `Vec` and are named by index; freed slots are reused, so the steady
//! state allocates nothing however many packets a run sends.

use super::{AgentId, FlowId, NodeId};
use crate::sim::Time;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketKind {
    TcpData,
    TcpAck,
    Udp,
}

/// ECN bits of RFC 3168 as ns-2 models them: ECT and CE in the IP header, ECE and CWR in TCP.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ecn {
    /// ECN-capable transport: a router may mark instead of dropping.
    pub ect: bool,
    /// With `ect`: the codepoint is ECT(1) (0b01), RFC 9331's L4S identifier, not ECT(0)
    /// (0b10). A dual queue (RFC 9332) classifies ECT(1) and CE into its L queue.
    pub ect1: bool,
    /// Congestion experienced: set by a router.
    pub ce: bool,
    /// ECN-echo: receiver tells the sender it saw CE.
    pub ece: bool,
    /// Congestion window reduced: sender tells the receiver it reacted.
    pub cwr: bool,
    /// The AE flag (RFC 9768 section 2.2, the bit RFC 3540 had for the nonce): with AccECN
    /// feedback an ACK's `ae`, `cwr` and `ece` are the 3-bit ACE field, AE its top bit
    /// (`transport/tcp/accecn.rs`).
    pub ae: bool,
}

impl Ecn {
    /// The IP header's ECN field (RFC 3168 section 5): CE 0b11, ECT(1) 0b01, ECT(0) 0b10,
    /// Not-ECT 0b00.
    pub fn field(&self) -> u8 {
        match (self.ce, self.ect, self.ect1) {
            (true, _, _) => 0b11,
            (false, true, true) => 0b01,
            (false, true, false) => 0b10,
            (false, false, _) => 0b00,
        }
    }
}

/// A SACK block: packets [start, end) received out of order (ns-2 counts packets, not bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub start: i64,
    pub end: i64,
}

pub const MAX_SACK_BLOCKS: usize = 3;

#[derive(Debug, Clone)]
pub struct Packet {
    /// Unique over the run, for tracing and as a tie-breaker nobody relies on.
    pub uid: u64,
    pub kind: PacketKind,
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    /// The agent at `dst` that receives this packet.
    pub dst_agent: AgentId,
    /// Size on the wire in bytes (payload plus headers).
    pub size: u32,
    /// Data: sequence number of this packet (ns-2 numbers packets from 0).
    pub seq: i64,
    /// ACK: highest in-order sequence number received (cumulative).
    pub ack: i64,
    pub ecn: Ecn,
    /// When the sending agent emitted it (end-to-end delay).
    pub sent_at: Time,
    /// When it arrived at the queue it is in now (queueing delay).
    pub enqueued_at: Time,
    /// ACK: the `sent_at` of the data packet that triggered it (RTT samples, ns-2 timestamps).
    pub echo_sent_at: Time,
    pub retransmission: bool,
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    pub sack_len: u8,
    /// ACK: how many fields of the AccECN option it carries (0..=3), or `NO_ACCECN_OPTION`.
    /// The fields' values live in the option space a third SACK block would take
    /// ([`Packet::set_accecn_option`]).
    accecn_fields: u8,
    /// The IP header's DSCP (RFC 2474 section 3: the upper six bits of the former TOS
    /// byte), 0..=63; 0 (default forwarding) unless the sending endpoint sets one. It sits in
    /// the padding after `sack_len`: a packet is still 128 bytes.
    pub dscp: u8,
}

/// `Packet::accecn_fields` of a packet without the AccECN option.
const NO_ACCECN_OPTION: u8 = u8::MAX;

/// The AccECN option of an ACK (RFC 9768 section 3.2.3), in the AccECN1 order Linux writes
/// (kind 174: EE1B, ECEB, EE0B; `tcp_options_write`, net/ipv4/tcp_output.c): the receiver's
/// byte counters of ECT(1), CE and ECT(0) payload, each as its 24-bit field on the wire (the
/// initial offsets included, RFC 9768 section 3.2.1). Only the first `fields` are sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AccEcnOption {
    pub fields: u8,
    pub e1b: u32,
    pub ceb: u32,
    pub e0b: u32,
}

impl Packet {
    /// The IP header's TOS byte (RFC 2474 / RFC 3168): the DSCP above the ECN field.
    pub fn tos(&self) -> u8 {
        (self.dscp << 2) | self.ecn.field()
    }

    pub fn new(
        kind: PacketKind,
        flow: FlowId,
        src: NodeId,
        dst: NodeId,
        dst_agent: AgentId,
        size: u32,
    ) -> Self {
        Packet {
            uid: 0,
            kind,
            flow,
            src,
            dst,
            dst_agent,
            size,
            seq: 0,
            ack: -1,
            ecn: Ecn::default(),
            sent_at: 0,
            enqueued_at: 0,
            echo_sent_at: 0,
            retransmission: false,
            sack: [SackBlock::default(); MAX_SACK_BLOCKS],
            sack_len: 0,
            accecn_fields: NO_ACCECN_OPTION,
            dscp: 0,
        }
    }

    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..self.sack_len as usize]
    }

    /// Puts the AccECN option on this ACK. With any field the ACK has at most two SACK
    /// blocks: the option space (40 bytes, 12 of them the timestamps) holds three blocks
    /// and no field, or two and the option (`accecn::fit_option`, Linux
    /// `tcp_options_fit_accecn`), so the fields are kept where the third block would be and
    /// the packet stays 128 bytes.
    pub fn set_accecn_option(&mut self, opt: AccEcnOption) {
        debug_assert!(opt.fields <= 3);
        debug_assert!(opt.fields == 0 || (self.sack_len as usize) < MAX_SACK_BLOCKS);
        const MASK: u32 = 0xff_ffff;
        self.accecn_fields = opt.fields;
        self.sack[MAX_SACK_BLOCKS - 1] = SackBlock {
            start: i64::from(opt.e1b & MASK) | (i64::from(opt.ceb & MASK) << 24),
            end: i64::from(opt.e0b & MASK),
        };
    }

    /// The AccECN option, if the ACK carries one.
    pub fn accecn_option(&self) -> Option<AccEcnOption> {
        if self.accecn_fields == NO_ACCECN_OPTION {
            return None;
        }
        let slot = self.sack[MAX_SACK_BLOCKS - 1];
        Some(AccEcnOption {
            fields: self.accecn_fields,
            e1b: (slot.start & 0xff_ffff) as u32,
            ceb: ((slot.start >> 24) & 0xff_ffff) as u32,
            e0b: (slot.end & 0xff_ffff) as u32,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PacketId(pub u32);

#[derive(Debug, Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<u32>,
    next_uid: u64,
    live: usize,
}

impl PacketArena {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores a packet and returns its id; assigns its uid.
    #[inline]
    pub fn alloc(&mut self, mut p: Packet) -> PacketId {
        p.uid = self.next_uid;
        self.next_uid += 1;
        self.live += 1;
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = p;
                PacketId(i)
            }
            None => {
                let capacity = self.slots.capacity();
                self.slots.push(p);
                if self.slots.capacity() != capacity {
                    // Packets are touched in no particular order: the part of a large arena
                    // not yet used faults in on huge pages (not collapsed: a collapse would
                    // make the spare capacity resident).
                    crate::sim::advise_huge_pages(&self.slots, false);
                }
                PacketId((self.slots.len() - 1) as u32)
            }
        }
    }

    #[inline]
    pub fn free(&mut self, id: PacketId) {
        debug_assert!(!self.free.contains(&id.0), "double free of packet {}", id.0);
        self.live -= 1;
        self.free.push(id.0);
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id.0 as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id.0 as usize]
    }

    /// Packets allocated and not yet freed.
    pub fn live(&self) -> usize {
        self.live
    }

    /// Slots ever allocated (the arena's high-water mark).
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two cache lines: the AccECN option's counters share the third SACK block's place, and
    /// `dscp` took padding.
    #[test]
    fn a_packet_is_128_bytes() {
        assert_eq!(std::mem::size_of::<Packet>(), 128);
    }

    #[test]
    fn the_accecn_option_round_trips_beside_two_sack_blocks() {
        let mut p = Packet::new(PacketKind::TcpAck, 0, 0, 1, 0, 40);
        assert_eq!(p.accecn_option(), None);
        p.sack[0] = SackBlock { start: 5, end: 7 };
        p.sack[1] = SackBlock { start: 9, end: 10 };
        p.sack_len = 2;
        let opt = AccEcnOption {
            fields: 3,
            e1b: 0xff_ffff,
            ceb: 0x12_3456,
            e0b: 1,
        };
        p.set_accecn_option(opt);
        assert_eq!(p.accecn_option(), Some(opt));
        assert_eq!(
            p.sack_blocks(),
            &[
                SackBlock { start: 5, end: 7 },
                SackBlock { start: 9, end: 10 }
            ]
        );
    }

    #[test]
    fn freed_slots_are_reused() {
        let mut a = PacketArena::new();
        let p = Packet::new(PacketKind::Udp, 0, 0, 1, 0, 100);
        let x = a.alloc(p.clone());
        let _y = a.alloc(p.clone());
        a.free(x);
        let z = a.alloc(p);
        assert_eq!(z, x);
        assert_eq!(a.capacity_used(), 2);
        assert_eq!(a.live(), 2);
        assert_eq!(a.get(z).uid, 2);
    }
}
