//! Capture files: classic libpcap with nanosecond timestamps, or pcapng, written as the run
//! goes (a buffered writer; nothing held for the whole run).
//!
//! Readings (docs/readings.md "Packet capture"):
//! - Classic pcap, draft-ietf-opsawg-pcap section 4 (File Header) and 5 (Packet Record), and
//!   tcpdump.org's pcap-savefile(5): magic 0xA1B23C4D means the fractions of a second are
//!   nanoseconds; version 2.4; SnapLen; LinkType in the low 16 bits of the last word. Written
//!   little-endian: a reader learns the byte order from how the magic reads.
//! - pcapng, draft-ietf-opsawg-pcapng sections 4.1 (Section Header Block), 4.2 (Interface
//!   Description Block, with `if_tsresol` = 9 for nanoseconds, section 4.2 option code 9)
//!   and 4.3 (Enhanced Packet Block).
//! - LINKTYPE_RAW (101), tcpdump.org's link-layer header types: each packet starts with its
//!   IPv4 header, no link-layer header is invented.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::sim::Time;

/// tcpdump.org's LINKTYPE_RAW: the packet begins with an IPv4 or IPv6 header.
pub const LINKTYPE_RAW: u16 = 101;

const PCAP_MAGIC_NANOS: u32 = 0xa1b2_3c4d;
const PCAPNG_SHB: u32 = 0x0a0d_0d0a;
const PCAPNG_BYTE_ORDER_MAGIC: u32 = 0x1a2b_3c4d;
const PCAPNG_IDB: u32 = 1;
const PCAPNG_EPB: u32 = 6;

/// The file format of a capture.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaptureFormat {
    /// Classic libpcap, nanosecond timestamps (what every tool reads, tcptrace included).
    #[default]
    Pcap,
    /// pcapng, one section and one interface, nanosecond timestamps.
    Pcapng,
}

impl CaptureFormat {
    pub fn extension(&self) -> &'static str {
        match self {
            CaptureFormat::Pcap => "pcap",
            CaptureFormat::Pcapng => "pcapng",
        }
    }
}

/// Writes packet records to a capture file.
pub struct PcapWriter<W: Write> {
    out: W,
    format: CaptureFormat,
    snaplen: u32,
    pub records: u64,
}

impl PcapWriter<BufWriter<File>> {
    /// Creates (or truncates) the file at `path` and writes its header.
    pub fn create(
        path: &Path,
        format: CaptureFormat,
        snaplen: u32,
        interface: &str,
    ) -> std::io::Result<Self> {
        let f = File::create(path)?;
        PcapWriter::new(
            BufWriter::with_capacity(1 << 16, f),
            format,
            snaplen,
            interface,
        )
    }
}

impl<W: Write> PcapWriter<W> {
    /// Writes the file header (pcap) or the section and interface blocks (pcapng, the
    /// interface named `interface`).
    pub fn new(
        mut out: W,
        format: CaptureFormat,
        snaplen: u32,
        interface: &str,
    ) -> std::io::Result<Self> {
        match format {
            CaptureFormat::Pcap => {
                let mut h = Vec::with_capacity(24);
                h.extend_from_slice(&PCAP_MAGIC_NANOS.to_le_bytes());
                h.extend_from_slice(&2u16.to_le_bytes());
                h.extend_from_slice(&4u16.to_le_bytes());
                h.extend_from_slice(&0u32.to_le_bytes()); // reserved (thiszone)
                h.extend_from_slice(&0u32.to_le_bytes()); // reserved (sigfigs)
                h.extend_from_slice(&snaplen.to_le_bytes());
                h.extend_from_slice(&(LINKTYPE_RAW as u32).to_le_bytes());
                out.write_all(&h)?;
            }
            CaptureFormat::Pcapng => {
                let mut shb = Vec::with_capacity(16);
                shb.extend_from_slice(&PCAPNG_BYTE_ORDER_MAGIC.to_le_bytes());
                shb.extend_from_slice(&1u16.to_le_bytes());
                shb.extend_from_slice(&0u16.to_le_bytes());
                shb.extend_from_slice(&u64::MAX.to_le_bytes()); // section length unknown
                write_block(&mut out, PCAPNG_SHB, &shb)?;
                let mut idb = Vec::with_capacity(64);
                idb.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
                idb.extend_from_slice(&0u16.to_le_bytes());
                idb.extend_from_slice(&snaplen.to_le_bytes());
                push_option(&mut idb, 2, interface.as_bytes()); // if_name
                push_option(&mut idb, 9, &[9]); // if_tsresol: 10^-9 s
                push_option(&mut idb, 0, &[]); // opt_endofopt
                write_block(&mut out, PCAPNG_IDB, &idb)?;
            }
        }
        Ok(PcapWriter {
            out,
            format,
            snaplen,
            records: 0,
        })
    }

    /// One packet seen at `at` (ns): its first bytes `data`, cut at the snap length, of a
    /// packet `orig_len` bytes long.
    pub fn record(&mut self, at: Time, data: &[u8], orig_len: u32) -> std::io::Result<()> {
        let incl = data.len().min(self.snaplen as usize).min(orig_len as usize);
        let data = &data[..incl];
        self.records += 1;
        match self.format {
            CaptureFormat::Pcap => {
                let mut h = [0u8; 16];
                h[0..4].copy_from_slice(&((at / 1_000_000_000) as u32).to_le_bytes());
                h[4..8].copy_from_slice(&((at % 1_000_000_000) as u32).to_le_bytes());
                h[8..12].copy_from_slice(&(incl as u32).to_le_bytes());
                h[12..16].copy_from_slice(&orig_len.to_le_bytes());
                self.out.write_all(&h)?;
                self.out.write_all(data)
            }
            CaptureFormat::Pcapng => {
                let mut b = Vec::with_capacity(20 + incl + 3);
                b.extend_from_slice(&0u32.to_le_bytes()); // interface 0
                b.extend_from_slice(&((at >> 32) as u32).to_le_bytes());
                b.extend_from_slice(&(at as u32).to_le_bytes());
                b.extend_from_slice(&(incl as u32).to_le_bytes());
                b.extend_from_slice(&orig_len.to_le_bytes());
                b.extend_from_slice(data);
                pad4(&mut b);
                write_block(&mut self.out, PCAPNG_EPB, &b)
            }
        }
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }

    #[cfg(test)]
    fn into_inner(self) -> W {
        self.out
    }
}

fn pad4(b: &mut Vec<u8>) {
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
}

/// A pcapng option: code, length, value padded to 32 bits.
fn push_option(b: &mut Vec<u8>, code: u16, value: &[u8]) {
    b.extend_from_slice(&code.to_le_bytes());
    b.extend_from_slice(&(value.len() as u16).to_le_bytes());
    b.extend_from_slice(value);
    pad4(b);
}

/// A pcapng block: type, total length, body, total length again.
fn write_block<W: Write>(out: &mut W, kind: u32, body: &[u8]) -> std::io::Result<()> {
    let total = (12 + body.len()) as u32;
    out.write_all(&kind.to_le_bytes())?;
    out.write_all(&total.to_le_bytes())?;
    out.write_all(body)?;
    out.write_all(&total.to_le_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn le32(b: &[u8], i: usize) -> u32 {
        u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
    }

    #[test]
    fn classic_pcap_header_and_record() {
        let mut w = PcapWriter::new(Vec::new(), CaptureFormat::Pcap, 64, "x").unwrap();
        let data = [7u8; 80];
        w.record(3_000_000_123, &data, 1040).unwrap();
        let b = w.into_inner();
        assert_eq!(
            &b[0..4],
            &[0x4d, 0x3c, 0xb2, 0xa1],
            "nanosecond magic, little-endian"
        );
        assert_eq!(&b[4..8], &[2, 0, 4, 0]);
        assert_eq!(le32(&b, 16), 64, "snaplen");
        assert_eq!(le32(&b, 20), 101, "LINKTYPE_RAW");
        assert_eq!(le32(&b, 24), 3);
        assert_eq!(le32(&b, 28), 123);
        assert_eq!(le32(&b, 32), 64, "cut at the snap length");
        assert_eq!(le32(&b, 36), 1040);
        assert_eq!(b.len(), 24 + 16 + 64);
    }

    #[test]
    fn pcapng_blocks_are_well_formed() {
        let mut w = PcapWriter::new(Vec::new(), CaptureFormat::Pcapng, 128, "bottleneck").unwrap();
        w.record(5_000_000_001, &[1u8; 41], 1040).unwrap();
        let b = w.into_inner();
        // Walk the blocks: each length is a multiple of 4 and repeated at its end.
        let mut at = 0;
        let mut kinds = vec![];
        while at < b.len() {
            let (kind, len) = (le32(&b, at), le32(&b, at + 4) as usize);
            assert_eq!(len % 4, 0);
            assert_eq!(le32(&b, at + len - 4) as usize, len);
            kinds.push(kind);
            if kind == PCAPNG_EPB {
                let ts = ((le32(&b, at + 12) as u64) << 32) | le32(&b, at + 16) as u64;
                assert_eq!(ts, 5_000_000_001);
                assert_eq!(le32(&b, at + 20), 41);
                assert_eq!(le32(&b, at + 24), 1040);
            }
            at += len;
        }
        assert_eq!(kinds, vec![PCAPNG_SHB, PCAPNG_IDB, PCAPNG_EPB]);
        assert_eq!(le32(&b, 8), PCAPNG_BYTE_ORDER_MAGIC);
    }
}
