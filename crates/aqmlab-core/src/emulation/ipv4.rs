//! The few fields of a real IPv4 packet the emulated network reads, and the one it writes
//! (the ECN field, when an AQM marks).
//!
//! Sources: RFC 791 section 3.1 (the IPv4 header), RFC 3168 section 5 (the ECN field: the
//! two low bits of the former TOS octet; 01 and 10 are ECT, 11 is CE), RFC 9293 section 3.1
//! (the TCP header: ports, sequence number, data offset, flags), RFC 768 (UDP ports) and
//! RFC 1624 (updating the header checksum for a changed field without summing it again).

/// IP protocol numbers (IANA).
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;

const ECN_CE: u8 = 0b11;

/// What the emulated network needs of one packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv4Summary {
    /// Total length from the header (the packet's size on the wire, less the link header).
    pub total_len: u16,
    pub protocol: u8,
    pub src: u32,
    pub dst: u32,
    /// The ECN field (RFC 3168): 0 not ECT, 1 ECT(1), 2 ECT(0), 3 CE.
    pub ecn: u8,
    /// The DSCP, the TOS byte's upper six bits (RFC 2474 section 3).
    pub dscp: u8,
    /// TCP or UDP ports; 0 for other protocols or a fragment without them.
    pub src_port: u16,
    pub dst_port: u16,
    /// TCP only: the sequence number, the payload length and whether SYN or FIN is set (each
    /// takes one sequence number, RFC 9293 3.4).
    pub tcp_seq: u32,
    pub tcp_payload: u32,
    pub tcp_syn_or_fin: bool,
    pub tcp_syn: bool,
    /// The transport header's end: where the payload starts.
    pub payload_offset: u16,
}

/// Why a packet read from a host cannot be carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotCarried {
    /// Not IPv4 (IPv6 router solicitations, for instance: the namespaces turn IPv6 off).
    NotIpv4,
    /// Shorter than its own header says.
    Truncated,
    /// Not between two hosts of one of the scenario's flows, by its addresses and ports.
    NotAFlow,
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Reads the header of the IPv4 packet `b` (as a TUN device without packet information hands
/// it over: the IP header first).
pub fn parse(b: &[u8]) -> Result<Ipv4Summary, NotCarried> {
    if b.is_empty() || b[0] >> 4 != 4 {
        return Err(NotCarried::NotIpv4);
    }
    if b.len() < 20 {
        return Err(NotCarried::Truncated);
    }
    let ihl = (b[0] & 0x0f) as usize * 4;
    let total_len = be16(b, 2);
    if ihl < 20 || (total_len as usize) < ihl || b.len() < total_len as usize {
        return Err(NotCarried::Truncated);
    }
    let mut s = Ipv4Summary {
        total_len,
        protocol: b[9],
        src: be32(b, 12),
        dst: be32(b, 16),
        ecn: b[1] & 0b11,
        dscp: b[1] >> 2,
        src_port: 0,
        dst_port: 0,
        tcp_seq: 0,
        tcp_payload: 0,
        tcp_syn_or_fin: false,
        tcp_syn: false,
        payload_offset: ihl as u16,
    };
    // A fragment other than the first carries no transport header.
    let fragment_offset = be16(b, 6) & 0x1fff;
    let l4 = &b[ihl..total_len as usize];
    if fragment_offset != 0 {
        return Ok(s);
    }
    match s.protocol {
        PROTO_TCP if l4.len() >= 20 => {
            let doff = (l4[12] >> 4) as usize * 4;
            if doff < 20 || doff > l4.len() {
                return Err(NotCarried::Truncated);
            }
            s.src_port = be16(l4, 0);
            s.dst_port = be16(l4, 2);
            s.tcp_seq = be32(l4, 4);
            s.tcp_payload = (l4.len() - doff) as u32;
            s.tcp_syn_or_fin = l4[13] & 0b11 != 0;
            s.tcp_syn = l4[13] & 0b10 != 0;
            s.payload_offset = (ihl + doff) as u16;
        }
        PROTO_UDP if l4.len() >= 8 => {
            s.src_port = be16(l4, 0);
            s.dst_port = be16(l4, 2);
            s.payload_offset = (ihl + 8) as u16;
        }
        PROTO_TCP | PROTO_UDP => return Err(NotCarried::Truncated),
        _ => {}
    }
    Ok(s)
}

/// Sets the ECN field of the IPv4 packet `b` to CE and updates the header checksum
/// incrementally (RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m')), as a router that marks does.
pub fn mark_ce(b: &mut [u8]) {
    let old = be16(b, 0);
    b[1] |= ECN_CE;
    let new = be16(b, 0);
    let hc = be16(b, 10);
    let mut sum = (!hc as u32) + (!old as u32 & 0xffff) + new as u32;
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    let hc = !(sum as u16);
    b[10..12].copy_from_slice(&hc.to_be_bytes());
}

/// The RFC 791 header checksum of `header` (its checksum field included: 0 when it is right).
#[cfg(test)]
fn header_checksum(header: &[u8]) -> u16 {
    let mut sum: u32 = header.chunks(2).map(|c| be16(c, 0) as u32).sum();
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An IPv4 + TCP packet with `payload` bytes, ECN field `ecn`, a correct header checksum.
    pub(crate) fn tcp_packet(
        src: u32,
        dst: u32,
        sport: u16,
        dport: u16,
        seq: u32,
        payload: usize,
        ecn: u8,
    ) -> Vec<u8> {
        let total = 20 + 20 + payload;
        let mut b = vec![0u8; total];
        b[0] = 0x45;
        b[1] = ecn;
        b[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        b[6] = 0x40; // don't fragment
        b[8] = 64;
        b[9] = PROTO_TCP;
        b[12..16].copy_from_slice(&src.to_be_bytes());
        b[16..20].copy_from_slice(&dst.to_be_bytes());
        let c = header_checksum(&b[..20]);
        b[10..12].copy_from_slice(&c.to_be_bytes());
        b[20..22].copy_from_slice(&sport.to_be_bytes());
        b[22..24].copy_from_slice(&dport.to_be_bytes());
        b[24..28].copy_from_slice(&seq.to_be_bytes());
        b[32] = 5 << 4;
        b[33] = 0x10; // ACK
        b
    }

    #[test]
    fn reads_a_tcp_segment() {
        let b = tcp_packet(0x0a000001, 0x0a000002, 40000, 5001, 123456, 1448, 2);
        let s = parse(&b).unwrap();
        assert_eq!(s.total_len, 1488);
        assert_eq!((s.src, s.dst), (0x0a000001, 0x0a000002));
        assert_eq!((s.src_port, s.dst_port), (40000, 5001));
        assert_eq!(
            (s.tcp_seq, s.tcp_payload, s.tcp_syn_or_fin),
            (123456, 1448, false)
        );
        assert_eq!((s.ecn, s.dscp), (2, 0));
    }

    /// TOS 0xBA: DSCP 46 (EF) with ECT(0).
    #[test]
    fn reads_the_dscp_beside_the_ecn_field() {
        let b = tcp_packet(0x0a000001, 0x0a000002, 40000, 5001, 1, 0, 0xBA);
        let s = parse(&b).unwrap();
        assert_eq!((s.dscp, s.ecn), (46, 0b10));
    }

    #[test]
    fn refuses_ipv6_and_truncated_packets() {
        assert_eq!(parse(&[0x60; 48]), Err(NotCarried::NotIpv4));
        let b = tcp_packet(1, 2, 3, 4, 5, 100, 0);
        assert_eq!(parse(&b[..60]), Err(NotCarried::Truncated));
    }

    /// The incremental update gives the checksum a full recomputation gives, from every ECT
    /// codepoint (RFC 1624's worked concern: no -0 result).
    #[test]
    fn marking_keeps_the_header_checksum_right() {
        for ecn in [1u8, 2, 3] {
            for ttl in [1u8, 64, 255] {
                let mut b = tcp_packet(0xc0a80001, 0x0a0000ff, 1, 2, 3, 10, ecn);
                b[8] = ttl;
                b[10] = 0;
                b[11] = 0;
                let c = header_checksum(&b[..20]);
                b[10..12].copy_from_slice(&c.to_be_bytes());
                mark_ce(&mut b);
                assert_eq!(b[1] & 3, 3);
                assert_eq!(header_checksum(&b[..20]), 0, "ecn {ecn} ttl {ttl}");
            }
        }
    }
}
