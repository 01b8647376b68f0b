//! Real IPv4, TCP and UDP headers for a simulated packet, for packet captures (`pcap.rs`).
//!
//! The simulator's packets carry what the headers need but count in packets, as ns-2 does;
//! this module writes them as bytes on the wire would be. The readings (docs/capture.md,
//! docs/readings.md "Packet capture"):
//! - IPv4 header (RFC 791 section 3.1): version 4, IHL 5 (no options), total length, TTL 64,
//!   DF set (no fragmentation in the simulator), the header checksum (the 16-bit one's
//!   complement of the one's complement sum of the header's 16-bit words, RFC 791 section
//!   3.1 "Header Checksum", computed as RFC 1071 section 4.1 describes).
//! - The DSCP, the upper six bits of the former TOS byte (RFC 2474 section 3), the packet's
//!   `dscp`.
//! - The ECN field, the two low bits of the former TOS byte (RFC 3168 section 5): Not-ECT 00,
//!   ECT(0) 10, CE 11; ECT(1) 01 for a packet with `ect1`, the L4S identifier (RFC 9331
//!   section 4.1) that TCP Prague's data carry.
//! - TCP header (RFC 793 section 3.1, RFC 9293 section 3.1): ports, sequence and
//!   acknowledgment numbers, data offset, flags (CWR and ECE from RFC 3168 section 6.1),
//!   window, checksum over the pseudo-header (RFC 793 section 3.1 "Checksum").
//! - Options: MSS (RFC 793 section 3.1), window scale (RFC 7323 section 2), SACK-permitted and
//!   SACK blocks (RFC 2018 sections 2 and 3), timestamps (RFC 7323 section 3), each aligned
//!   with NOPs as Linux writes them (`tcp_options_write`, net/ipv4/tcp_output.c).
//! - Accurate ECN (RFC 9768, `transport/tcp/accecn.rs`; issue 38): every segment's AE
//!   (the data offset byte's low bit, RFC 9768 section 2.2), CWR and ECE carry the 3-bit ACE
//!   field, an ACK's its count of CE packets, a data packet's the sender's own, 5 (0b101:
//!   it receives no data; `tcp_accecn_set_ace`); an AccECN SYN sets AE, CWR and ECE, and
//!   its SYN-ACK the code of the SYN's ECN field (RFC 9768 Table 2; `tcp_accecn_echo_syn_ect`,
//!   for the field the SYN was sent with: a CE-marked SYN is not reflected). The AccECN
//!   option (kind 174, AccECN1 order, 24-bit fields) is written after the timestamps and
//!   before the SACK blocks, its last bytes taking the SACK option's NOPs, as Linux's
//!   `tcp_options_write` does.
//! - UDP header (RFC 768): ports, length, checksum over the same pseudo-header.
//!
//! Payload is never written (the simulator has none): the checksums are those of a payload of
//! zeros, which adds nothing to a one's complement sum, so they are right for the packet as
//! the captured length says it was.

use super::{AgentId, NodeId, Packet, PacketKind, SackBlock};

/// The sequence number a SYN carries (data packets count from 0).
pub const SYN_SEQ: i64 = -1;

/// IPv4 header bytes (no options).
pub const IPV4_HEADER: usize = 20;
/// TCP header bytes without options.
pub const TCP_HEADER: usize = 20;
/// UDP header bytes.
pub const UDP_HEADER: usize = 8;
/// The largest IPv4 + TCP header (20 + 60 bytes), the most one packet's headers take.
pub const MAX_HEADERS: usize = IPV4_HEADER + 60;

const PROTO_TCP: u8 = 6;
const PROTO_UDP: u8 = 17;

const SYN: u8 = 0x02;
const PSH: u8 = 0x08;
const ACK: u8 = 0x10;
const ECE: u8 = 0x40;
const CWR: u8 = 0x80;
/// The AE flag: the low bit of the data offset byte (RFC 9768 section 2.2).
const AE: u8 = 0x01;
/// A data packet's ACE under AccECN: the sender's receiver counters at their start, r.cep = 5
/// (RFC 9768 section 3.2.1).
const DATA_ACE: u8 = 0b101;

/// The address plan: node `i` is 10.0.0.0 + i + 1 (a 24-bit host number inside 10/8), so
/// node 0 is 10.0.0.1 and node 255 is 10.0.1.0. Deterministic and one per node.
pub fn node_address(node: NodeId) -> [u8; 4] {
    let h = (node as u64 + 1) & 0x00ff_ffff;
    [10, (h >> 16) as u8, (h >> 8) as u8, h as u8]
}

/// The ports of flow `f`: the sender's 1024 + f mod 64512, the receiver's 5001 + f div
/// 64512, so that every flow's 4-tuple differs even between the same two nodes.
pub fn flow_ports(flow: u32) -> (u16, u16) {
    (
        (1024 + flow % 64512) as u16,
        (5001 + (flow / 64512).min(60534)) as u16,
    )
}

/// What a flow's packets look like on the wire, fixed for the whole flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowWire {
    Tcp(TcpWire),
    /// `sender`: the flow's sending agent; a packet addressed to it (a ping's reply) goes the
    /// other way, from dport to sport, as an echo answers from the port it was asked on.
    Udp {
        sport: u16,
        dport: u16,
        sender: AgentId,
    },
}

/// A TCP flow's constants: how its packet-counted sequence numbers become bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpWire {
    pub sport: u16,
    pub dport: u16,
    /// Initial sequence numbers of the sender and of the receiver.
    pub isn_sender: u32,
    pub isn_receiver: u32,
    /// Payload bytes of a data packet (`tcp.packet_size`): data packet n starts at byte
    /// `isn_sender + 1 + n * mss`.
    pub mss: u32,
    /// TCP/IP header bytes the simulator counts in a data packet (`tcp.header_size`).
    pub header_size: u32,
    /// The receiver's window in bytes (`tcp.window` packets of `mss`).
    pub window_bytes: u64,
    pub sack: bool,
    pub ecn: bool,
    pub timestamps: bool,
    /// `handshake = "syn"`: an ACK acknowledging nothing is the SYN-ACK.
    pub handshake: bool,
    /// Accurate ECN feedback: the SYN-ACK's ACE (RFC 9768 Table 2) for the ECN field of the
    /// SYN: Not-ECT 0b010, ECT(1) 0b011, ECT(0) 0b100. None: RFC 3168 flags.
    pub accecn_syn_ack: Option<u8>,
}

impl TcpWire {
    /// A deterministic ISN per flow and direction (Knuth's multiplicative hash): far from 0,
    /// so a reader that mishandles wrap-around or relative numbers shows it.
    pub fn isn(flow: u32, receiver: bool) -> u32 {
        (flow.wrapping_mul(2) + receiver as u32 + 1).wrapping_mul(0x9e37_79b9)
    }

    /// The byte where packet `n` starts: data starts at ISN + 1 (the SYN takes one sequence
    /// number, RFC 793 section 3.3) and packet n at n whole segments after it.
    fn byte_of(&self, n: i64) -> u32 {
        self.isn_sender
            .wrapping_add(1)
            .wrapping_add((n as i128 * self.mss as i128) as u32)
    }

    /// Window scale shift: the smallest that lets the window fit 16 bits (RFC 7323 2.3).
    fn window_shift(&self) -> u8 {
        let mut s = 0u8;
        while (self.window_bytes >> s) > 0xffff && s < 14 {
            s += 1;
        }
        s
    }
}

/// RFC 1071's one's complement sum of 16-bit big-endian words (odd length padded with 0),
/// folded to 16 bits.
pub fn ones_complement_sum(mut acc: u32, bytes: &[u8]) -> u32 {
    let mut chunks = bytes.chunks_exact(2);
    for c in &mut chunks {
        acc += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [last] = chunks.remainder() {
        acc += (*last as u32) << 8;
    }
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc
}

fn checksum(acc: u32, bytes: &[u8]) -> u16 {
    !(ones_complement_sum(acc, bytes) as u16)
}

/// The pseudo-header's sum (RFC 793 section 3.1): addresses, protocol, transport length.
fn pseudo_header_sum(src: [u8; 4], dst: [u8; 4], proto: u8, len: u32) -> u32 {
    let mut ph = [0u8; 12];
    ph[0..4].copy_from_slice(&src);
    ph[4..8].copy_from_slice(&dst);
    ph[9] = proto;
    ph[10..12].copy_from_slice(&(len as u16).to_be_bytes());
    ones_complement_sum(0, &ph)
}

/// One packet's headers as bytes, and the packet's length on the wire.
#[derive(Debug, Clone)]
pub struct Headers {
    pub bytes: [u8; MAX_HEADERS],
    /// Header bytes written at the start of `bytes`.
    pub len: usize,
    /// The IP total length: the headers plus the payload the packet carries.
    pub wire_len: u32,
}

impl Headers {
    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// Writes the headers of `p`, a packet of a flow that looks like `wire`.
pub fn encode(p: &Packet, wire: &FlowWire) -> Headers {
    let mut h = Headers {
        bytes: [0; MAX_HEADERS],
        len: 0,
        wire_len: 0,
    };
    let (src, dst) = (node_address(p.src), node_address(p.dst));
    let (proto, transport_len, payload) = match wire {
        FlowWire::Tcp(t) => {
            let (tcp_len, payload) = encode_tcp(p, t, &mut h.bytes[IPV4_HEADER..]);
            (PROTO_TCP, tcp_len, payload)
        }
        &FlowWire::Udp {
            sport,
            dport,
            sender,
        } => {
            let (sport, dport) = if p.dst_agent == sender {
                (dport, sport)
            } else {
                (sport, dport)
            };
            // The simulator's UDP size is the whole IP packet (ns-2's packetSize_).
            let payload = p.size.saturating_sub((IPV4_HEADER + UDP_HEADER) as u32);
            let u = &mut h.bytes[IPV4_HEADER..IPV4_HEADER + UDP_HEADER];
            u[0..2].copy_from_slice(&sport.to_be_bytes());
            u[2..4].copy_from_slice(&dport.to_be_bytes());
            u[4..6].copy_from_slice(&((UDP_HEADER as u32 + payload) as u16).to_be_bytes());
            (PROTO_UDP, UDP_HEADER, payload)
        }
    };
    let total = (IPV4_HEADER + transport_len) as u32 + payload;
    let ip = &mut h.bytes[..IPV4_HEADER];
    ip[0] = 0x45;
    // The former TOS byte: the DSCP in its upper six bits (RFC 2474 section 3), ECN below.
    ip[1] = p.tos();
    ip[2..4].copy_from_slice(&(total.min(0xffff) as u16).to_be_bytes());
    // Identification: the packet's uid, so every packet of a capture is told apart.
    ip[4..6].copy_from_slice(&(p.uid as u16).to_be_bytes());
    ip[6] = 0x40; // DF
    ip[8] = 64;
    ip[9] = proto;
    ip[12..16].copy_from_slice(&src);
    ip[16..20].copy_from_slice(&dst);
    let c = checksum(0, ip);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    let l4 = &mut h.bytes[IPV4_HEADER..IPV4_HEADER + transport_len];
    let l4_len = transport_len as u32 + payload;
    let c = checksum(pseudo_header_sum(src, dst, proto, l4_len), l4);
    // RFC 768: a computed UDP checksum of zero is sent as all ones (zero means "none").
    let c = if proto == PROTO_UDP && c == 0 {
        0xffff
    } else {
        c
    };
    let at = if proto == PROTO_TCP { 16 } else { 6 };
    l4[at..at + 2].copy_from_slice(&c.to_be_bytes());
    h.len = IPV4_HEADER + transport_len;
    h.wire_len = total;
    h
}

/// The ports in the packet's direction: the sender's data go sport -> dport.
fn sport_dport(p: &Packet, sport: u16, dport: u16) -> (u16, u16) {
    match p.kind {
        PacketKind::TcpAck => (dport, sport),
        _ => (sport, dport),
    }
}

/// Appends option bytes to `opt`, returning the new length.
fn put(opt: &mut [u8], at: usize, bytes: &[u8]) -> usize {
    opt[at..at + bytes.len()].copy_from_slice(bytes);
    at + bytes.len()
}

/// Timestamps option, NOP-aligned (RFC 7323 section 3.2, Linux's layout): a 1 ms clock.
fn put_timestamps(opt: &mut [u8], at: usize, tsval: u64, tsecr: u64) -> usize {
    let at = put(opt, at, &[1, 1, 8, 10]);
    let at = put(opt, at, &((tsval / 1_000_000) as u32).to_be_bytes());
    put(opt, at, &((tsecr / 1_000_000) as u32).to_be_bytes())
}

/// Writes the TCP header of `p` into `out`; returns its length and the payload bytes.
fn encode_tcp(p: &Packet, t: &TcpWire, out: &mut [u8]) -> (usize, u32) {
    let syn_seq = SYN_SEQ;
    let mut opt = [0u8; 40];
    let mut n = 0;
    let (sport, dport) = sport_dport(p, t.sport, t.dport);
    let shift = t.window_shift();
    let (seq, ack, mut flags, payload);
    let mut ae = false;
    let is_syn = p.kind == PacketKind::TcpData && p.seq == syn_seq;
    let is_syn_ack =
        p.kind == PacketKind::TcpAck && t.handshake && p.ack == syn_seq && p.sack_len == 0;
    if is_syn || is_syn_ack {
        // RFC 3168 section 6.1.1: an ECN-setup SYN carries ECE and CWR, its SYN-ACK ECE.
        (seq, ack, flags) = if is_syn {
            (t.isn_sender, 0, SYN | if t.ecn { ECE | CWR } else { 0 })
        } else {
            (
                t.isn_receiver,
                t.isn_sender.wrapping_add(1),
                SYN | ACK | if t.ecn { ECE } else { 0 },
            )
        };
        if let Some(syn_ack_ace) = t.accecn_syn_ack {
            // RFC 9768 section 3.1.1: an AccECN SYN sets all three; the SYN-ACK says which
            // ECN field the SYN arrived with.
            (flags, ae) = if is_syn {
                (SYN | ECE | CWR, true)
            } else {
                ace_flags(SYN | ACK, syn_ack_ace)
            };
        }
        payload = 0;
        n = put(&mut opt, n, &[2, 4]);
        n = put(&mut opt, n, &(t.mss.min(0xffff) as u16).to_be_bytes());
        if t.sack {
            n = put(&mut opt, n, &[1, 1, 4, 2]);
        }
        if t.timestamps {
            n = put_timestamps(
                &mut opt,
                n,
                p.sent_at,
                if is_syn { 0 } else { p.echo_sent_at },
            );
        }
        if shift > 0 {
            n = put(&mut opt, n, &[1, 3, 3, shift]);
        }
    } else if p.kind == PacketKind::TcpAck {
        seq = t.isn_receiver.wrapping_add(1);
        ack = t.byte_of(p.ack + 1);
        // With AccECN, CWR and AE are ACE's other bits; a classic ACK has neither.
        flags = ACK | if p.ecn.ece { ECE } else { 0 } | if p.ecn.cwr { CWR } else { 0 };
        ae = p.ecn.ae;
        payload = 0;
        if t.timestamps {
            n = put_timestamps(&mut opt, n, p.sent_at, p.echo_sent_at);
        }
        let mut lead = [NOP, NOP];
        if let Some(o) = p.accecn_option() {
            (n, lead) = put_accecn(&mut opt, n, o);
        }
        if p.sack_len > 0 {
            n = put_sack(&mut opt, n, p.sack_blocks(), t, lead);
        } else if lead != [NOP, NOP] {
            n = put(&mut opt, n, &[lead[0], lead[1], NOP, NOP]);
        }
    } else {
        seq = t.byte_of(p.seq);
        ack = t.isn_receiver.wrapping_add(1);
        flags = ACK | PSH | if p.ecn.cwr { CWR } else { 0 };
        if t.accecn_syn_ack.is_some() {
            (flags, ae) = ace_flags(ACK | PSH, DATA_ACE);
        }
        payload = p.size.saturating_sub(t.header_size);
        if t.timestamps {
            // The data's TSecr would echo the receiver's latest ACK, which the simulator's
            // data packets do not carry: written as 0.
            n = put_timestamps(&mut opt, n, p.sent_at, 0);
        }
    }
    if payload == 0 && p.kind == PacketKind::TcpData && !is_syn {
        flags &= !PSH;
    }
    let hl = TCP_HEADER + n.div_ceil(4) * 4;
    let o = &mut out[..hl];
    o[0..2].copy_from_slice(&sport.to_be_bytes());
    o[2..4].copy_from_slice(&dport.to_be_bytes());
    o[4..8].copy_from_slice(&seq.to_be_bytes());
    o[8..12].copy_from_slice(&ack.to_be_bytes());
    o[12] = (((hl / 4) as u8) << 4) | if ae { AE } else { 0 };
    o[13] = flags;
    // SYNs carry the unscaled window (RFC 7323 section 2.2).
    let win = if flags & SYN != 0 {
        t.window_bytes.min(0xffff)
    } else {
        (t.window_bytes >> shift).min(0xffff)
    };
    o[14..16].copy_from_slice(&(win as u16).to_be_bytes());
    o[TCP_HEADER..TCP_HEADER + n].copy_from_slice(&opt[..n]);
    (hl, payload)
}

const NOP: u8 = 1;
/// The AccECN1 option's kind (RFC 9768 section 6; AccECN0, 172, orders its fields EE0B,
/// ECEB, EE1B: Linux writes only AccECN1).
const KIND_ACCECN1: u8 = 174;

/// `base` with ACE's three bits in CWR, ECE and (the returned) AE.
fn ace_flags(base: u8, ace: u8) -> (u8, bool) {
    let flags = base | if ace & 2 != 0 { CWR } else { 0 } | if ace & 1 != 0 { ECE } else { 0 };
    (flags, ace & 4 != 0)
}

/// The AccECN option in AccECN1 order (RFC 9768 section 3.2.3: kind 174, length, then EE1B,
/// ECEB, EE0B, 24 bits each), laid out as Linux's `tcp_options_write`: 3 fields and a NOP
/// (12 bytes); 2 fields (8); 1 field, its last byte and a NOP left for the next option's two
/// NOPs; no field, kind and length left for them. Returns the new length and those two
/// bytes (NOP, NOP when nothing is left).
fn put_accecn(opt: &mut [u8], at: usize, o: crate::net::AccEcnOption) -> (usize, [u8; 2]) {
    let b24 = |v: u32| [(v >> 16) as u8, (v >> 8) as u8, v as u8];
    let len = 2 + 3 * o.fields;
    let (e1, ce, e0) = (b24(o.e1b), b24(o.ceb), b24(o.e0b));
    match o.fields {
        0 => (at, [KIND_ACCECN1, len]),
        1 => (
            put(opt, at, &[KIND_ACCECN1, len, e1[0], e1[1]]),
            [e1[2], NOP],
        ),
        2 => {
            let at = put(opt, at, &[KIND_ACCECN1, len]);
            let at = put(opt, at, &e1);
            (put(opt, at, &ce), [NOP, NOP])
        }
        _ => {
            let at = put(opt, at, &[KIND_ACCECN1, len]);
            let at = put(opt, at, &e1);
            let at = put(opt, at, &ce);
            let at = put(opt, at, &e0);
            (put(opt, at, &[NOP]), [NOP, NOP])
        }
    }
}

/// SACK blocks in bytes (RFC 2018 section 3): two leading bytes (NOP, NOP, or what the
/// AccECN option left in them), kind 5, length, then left and right edges; the simulator's
/// blocks name packets [start, end).
fn put_sack(opt: &mut [u8], at: usize, blocks: &[SackBlock], t: &TcpWire, lead: [u8; 2]) -> usize {
    let room = (opt.len() - at).saturating_sub(4) / 8;
    let k = blocks.len().min(room);
    if k == 0 {
        return at;
    }
    let mut at = put(opt, at, &[lead[0], lead[1], 5, (2 + 8 * k) as u8]);
    for b in &blocks[..k] {
        at = put(opt, at, &t.byte_of(b.start).to_be_bytes());
        at = put(opt, at, &t.byte_of(b.end).to_be_bytes());
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Ecn, Packet};

    fn tcp_wire() -> TcpWire {
        TcpWire {
            sport: 1024,
            dport: 5001,
            isn_sender: 1000,
            isn_receiver: 77,
            mss: 1000,
            header_size: 40,
            window_bytes: 20_000,
            sack: true,
            ecn: true,
            timestamps: false,
            handshake: false,
            accecn_syn_ack: None,
        }
    }

    fn u16_at(b: &[u8], i: usize) -> u16 {
        u16::from_be_bytes([b[i], b[i + 1]])
    }

    fn u32_at(b: &[u8], i: usize) -> u32 {
        u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
    }

    /// Verifies a checksum the way a receiver does (RFC 1071 section 1: the sum over the
    /// data including the checksum is all ones), a different computation from the sender's,
    /// written out here word by word with no helper of the module.
    fn verifies(words_of: &[&[u8]]) -> bool {
        let mut sum: u64 = 0;
        for bytes in words_of {
            for i in (0..bytes.len()).step_by(2) {
                let hi = bytes[i] as u64;
                let lo = if i + 1 < bytes.len() {
                    bytes[i + 1] as u64
                } else {
                    0
                };
                sum += (hi << 8) | lo;
            }
        }
        while sum >> 16 != 0 {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        sum == 0xffff
    }

    fn pseudo(h: &[u8], l4_len: u32) -> Vec<u8> {
        let mut v = h[12..20].to_vec();
        v.extend_from_slice(&[0, h[9]]);
        v.extend_from_slice(&(l4_len as u16).to_be_bytes());
        v
    }

    /// The worked example of the IPv4 header checksum on Wikipedia ("Internet checksum"):
    /// 4500 0073 0000 4000 4011 .... c0a8 0001 c0a8 00c7 has checksum 0xb861.
    #[test]
    fn ipv4_checksum_matches_a_published_example() {
        let mut h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0, 0, 0xc0, 0xa8, 0x00,
            0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(checksum(0, &h), 0xb861);
        h[10..12].copy_from_slice(&0xb861u16.to_be_bytes());
        assert!(verifies(&[&h]));
    }

    #[test]
    fn data_segment_headers() {
        let mut p = Packet::new(PacketKind::TcpData, 3, 0, 5, 1, 1040);
        p.seq = 7;
        p.uid = 42;
        p.ecn = Ecn {
            ect: true,
            ect1: false,
            ce: true,
            ece: false,
            cwr: true,
            ae: false,
        };
        let h = encode(&p, &FlowWire::Tcp(tcp_wire()));
        let b = h.as_slice();
        assert_eq!(h.len, 40);
        assert_eq!(h.wire_len, 1040, "total length = the simulator's size");
        assert_eq!(b[0], 0x45);
        assert_eq!(b[1] & 3, 3, "CE");
        assert_eq!(u16_at(b, 2), 1040);
        assert_eq!(&b[12..16], &[10, 0, 0, 1]);
        assert_eq!(&b[16..20], &[10, 0, 0, 6]);
        assert!(verifies(&[&b[..20]]), "IPv4 header checksum");
        let tcp = &b[20..];
        assert_eq!(u16_at(tcp, 0), 1024);
        assert_eq!(u16_at(tcp, 2), 5001);
        assert_eq!(u32_at(tcp, 4), 1000 + 1 + 7 * 1000);
        assert_eq!(u32_at(tcp, 8), 78);
        assert_eq!(tcp[12] >> 4, 5);
        assert_eq!(tcp[13], ACK | PSH | CWR);
        // The payload is zeros: the pseudo-header counts its length, its bytes add nothing.
        assert!(verifies(&[&pseudo(b, 1020), tcp]), "TCP checksum");
    }

    /// EF (46) with ECT(0): TOS 46 << 2 | 0b10 = 0xBA, the checksum over it.
    #[test]
    fn the_dscp_is_the_tos_bytes_upper_six_bits() {
        let mut p = Packet::new(PacketKind::Udp, 0, 0, 1, 1, 100);
        p.ecn.ect = true;
        p.dscp = 46;
        let w = FlowWire::Udp {
            sport: 1024,
            dport: 5001,
            sender: 1,
        };
        let h = encode(&p, &w);
        assert_eq!(h.bytes[1], 0xBA);
        assert!(verifies(&[&h.bytes[..20]]), "IPv4 header checksum");
    }

    #[test]
    fn ect0_and_not_ect() {
        let mut p = Packet::new(PacketKind::TcpData, 0, 0, 1, 1, 1040);
        p.ecn.ect = true;
        let w = FlowWire::Tcp(tcp_wire());
        assert_eq!(encode(&p, &w).bytes[1] & 3, 0b10);
        p.ecn.ect = false;
        assert_eq!(encode(&p, &w).bytes[1] & 3, 0b00);
        p.ecn.ect = true;
        p.ecn.ect1 = true;
        assert_eq!(encode(&p, &w).bytes[1] & 3, 0b01, "ECT(1)");
    }

    #[test]
    fn ack_with_sack_blocks_and_ece() {
        let mut p = Packet::new(PacketKind::TcpAck, 3, 5, 0, 0, 40);
        p.ack = 9;
        p.ecn.ece = true;
        p.sack[0] = SackBlock { start: 11, end: 13 };
        p.sack[1] = SackBlock { start: 15, end: 16 };
        p.sack_len = 2;
        let h = encode(&p, &FlowWire::Tcp(tcp_wire()));
        let b = h.as_slice();
        let tcp = &b[20..];
        assert_eq!(u16_at(tcp, 0), 5001, "ACKs flow back");
        assert_eq!(u32_at(tcp, 4), 78);
        assert_eq!(u32_at(tcp, 8), 1001 + 10 * 1000, "next byte expected");
        assert_eq!(tcp[13], ACK | ECE);
        let hl = (tcp[12] >> 4) as usize * 4;
        assert_eq!(hl, 20 + 20);
        assert_eq!(&tcp[20..24], &[1, 1, 5, 18]);
        assert_eq!(u32_at(tcp, 24), 1001 + 11 * 1000);
        assert_eq!(u32_at(tcp, 28), 1001 + 13 * 1000);
        assert_eq!(u32_at(tcp, 32), 1001 + 15 * 1000);
        assert_eq!(u32_at(tcp, 36), 1001 + 16 * 1000);
        assert_eq!(h.wire_len, 60, "the options lengthen the ACK on the wire");
        assert_eq!(u16_at(b, 2), 60);
        assert!(verifies(&[&b[..20]]));
        assert!(verifies(&[&pseudo(b, 40), tcp]));
    }

    /// RFC 9768 sections 2.2 and 3.2.3 as Linux's `tcp_options_write` lays them out: ACE in
    /// AE (the data offset byte's low bit), CWR and ECE; the option, kind 174.
    #[test]
    fn accecn_ace_and_option() {
        use crate::net::AccEcnOption;
        let mut w = tcp_wire();
        w.accecn_syn_ack = Some(0b010);
        // ACE 6 = 0b110: AE and CWR. All three fields, no SACK: 174, 11, EE1B, ECEB, EE0B,
        // NOP (12 bytes).
        let mut p = Packet::new(PacketKind::TcpAck, 3, 5, 0, 0, 40);
        p.ack = 9;
        p.ecn.ae = true;
        p.ecn.cwr = true;
        p.set_accecn_option(AccEcnOption {
            fields: 3,
            e1b: 0x01_0203,
            ceb: 0x00_0bb8,
            e0b: 1,
        });
        let h = encode(&p, &FlowWire::Tcp(w));
        let tcp = &h.as_slice()[20..];
        assert_eq!((tcp[12] >> 4, tcp[12] & 1), (8, 1), "32 bytes, AE");
        assert_eq!(tcp[13], ACK | CWR);
        assert_eq!(&tcp[20..32], &[174, 11, 1, 2, 3, 0, 0x0b, 0xb8, 0, 0, 1, 1]);
        assert!(verifies(&[&pseudo(h.as_slice(), 32), tcp]));
        // Timestamps and three SACK blocks fill the 40 bytes: the option without a field,
        // its kind and length in the SACK option's NOPs.
        w.timestamps = true;
        for (i, b) in [(11, 13), (15, 16), (18, 19)].into_iter().enumerate() {
            p.sack[i] = SackBlock {
                start: b.0,
                end: b.1,
            };
        }
        p.sack_len = 3;
        p.set_accecn_option(AccEcnOption {
            fields: 0,
            ..AccEcnOption::default()
        });
        let h = encode(&p, &FlowWire::Tcp(w));
        let tcp = &h.as_slice()[20..];
        assert_eq!(tcp[12] >> 4, 15);
        assert_eq!(&tcp[32..36], &[174, 2, 5, 26]);
        // Data under AccECN carry the sender's own ACE, 5: AE and ECE, no CWR.
        let mut d = Packet::new(PacketKind::TcpData, 3, 0, 5, 1, 1040);
        d.seq = 1;
        let tcp = encode(&d, &FlowWire::Tcp(w)).as_slice()[20..].to_vec();
        assert_eq!((tcp[13], tcp[12] & 1), (ACK | PSH | ECE, 1));
    }

    #[test]
    fn syn_and_syn_ack_with_options() {
        let mut w = tcp_wire();
        w.handshake = true;
        w.timestamps = true;
        w.window_bytes = 10_000_000;
        let mut syn = Packet::new(PacketKind::TcpData, 3, 0, 5, 1, 40);
        syn.seq = SYN_SEQ;
        syn.sent_at = 5_000_000;
        let h = encode(&syn, &FlowWire::Tcp(w));
        let tcp = &h.as_slice()[20..];
        assert_eq!(tcp[13], SYN | ECE | CWR);
        assert_eq!(u32_at(tcp, 4), 1000);
        assert_eq!(&tcp[20..24], &[2, 4, 0x03, 0xe8], "MSS 1000");
        assert_eq!(&tcp[24..28], &[1, 1, 4, 2], "SACK permitted");
        assert_eq!(&tcp[28..32], &[1, 1, 8, 10]);
        assert_eq!(u32_at(tcp, 32), 5, "TSval in ms");
        assert_eq!(&tcp[40..44], &[1, 3, 3, 8], "10 MB needs a shift of 8");
        assert!(verifies(&[&pseudo(h.as_slice(), tcp.len() as u32), tcp]));
        let mut sa = Packet::new(PacketKind::TcpAck, 3, 5, 0, 0, 40);
        sa.ack = SYN_SEQ;
        let h = encode(&sa, &FlowWire::Tcp(w));
        let tcp = &h.as_slice()[20..];
        assert_eq!(tcp[13], SYN | ACK | ECE);
        assert_eq!(u32_at(tcp, 4), 77);
        assert_eq!(u32_at(tcp, 8), 1001);
    }

    #[test]
    fn udp_headers() {
        let mut p = Packet::new(PacketKind::Udp, 70_000, 2, 3, 1, 500);
        p.uid = 1;
        let h = encode(
            &p,
            &FlowWire::Udp {
                sport: flow_ports(70_000).0,
                dport: flow_ports(70_000).1,
                sender: 0,
            },
        );
        let b = h.as_slice();
        assert_eq!(h.len, 28);
        assert_eq!(b[9], 17);
        assert_eq!(u16_at(b, 2), 500);
        assert_eq!(u16_at(b, 20), (1024 + 70_000 - 64512) as u16);
        assert_eq!(u16_at(b, 22), 5002);
        assert_eq!(u16_at(b, 24), 480);
        assert!(verifies(&[&b[..20]]));
        assert!(verifies(&[&pseudo(b, 480), &b[20..]]));
        // A reply (addressed to the sender, agent 1 here) answers from the asked port.
        let h = encode(
            &p,
            &FlowWire::Udp {
                sport: 1024,
                dport: 5001,
                sender: 1,
            },
        );
        let b = h.as_slice();
        assert_eq!((u16_at(b, 20), u16_at(b, 22)), (5001, 1024));
        assert!(verifies(&[&pseudo(b, 480), &b[20..]]));
    }

    #[test]
    fn addresses_are_one_per_node() {
        assert_eq!(node_address(0), [10, 0, 0, 1]);
        assert_eq!(node_address(255), [10, 0, 1, 0]);
        assert_eq!(node_address(70_000), [10, 1, 17, 113]);
    }

    #[test]
    fn sequence_numbers_wrap_modulo_2_32() {
        let mut w = tcp_wire();
        w.isn_sender = u32::MAX - 10;
        let mut p = Packet::new(PacketKind::TcpData, 0, 0, 1, 1, 1040);
        p.seq = 5_000_000; // 5 GB into the flow
        let h = encode(&p, &FlowWire::Tcp(w));
        let want = ((u32::MAX - 10) as u64 + 1 + 5_000_000_000u64) % (1u64 << 32);
        assert_eq!(u32_at(&h.as_slice()[20..], 4) as u64, want);
    }
}
