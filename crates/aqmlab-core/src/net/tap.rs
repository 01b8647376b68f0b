//! Where captures and the packet trace attach to links: the links a scenario names in
//! `capture` write a capture file of the packets leaving them, those in `trace` add rows to the
//! packet trace.
//!
//! The simulator holds no taps at all unless a link is captured or traced (`Taps` is then
//! absent), so a run without either pays one branch on a field it already reads per link
//! event.
//!
//! Where a capture sees a packet: when its transmission starts, the moment it goes onto the
//! wire, as ns-3's point-to-point device feeds its pcap trace (`PointToPointNetDevice::
//! TransmitStart` fires `m_promiscSnifferTrace`; src/point-to-point/model/
//! point-to-point-net-device.cc) and as tcpdump sees a packet the kernel hands to a driver.
//! A packet the link then loses on the wire is in the capture (it did leave).

use super::pcap::{CaptureFormat, PcapWriter};
use super::wire_headers::{self, FlowWire};
use super::{LinkId, Packet};
use crate::metrics::packet_trace::{DropReason, PacketTrace, TraceEvent};
use crate::sim::Time;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// Every tap of a run.
pub struct Taps {
    flows: Vec<FlowWire>,
    /// Per link: its capture, if it is captured.
    pcaps: Vec<Option<PcapWriter<BufWriter<File>>>>,
    /// Per link: whether it is traced.
    traced: Vec<bool>,
    pub trace: PacketTrace,
    /// The first write error; the run reports it at its end.
    pub error: Option<String>,
    pub files: Vec<PathBuf>,
}

/// What one link's tap touches while the link handles an event.
pub struct TapCtx<'a> {
    link: LinkId,
    flows: &'a [FlowWire],
    pcap: Option<&'a mut PcapWriter<BufWriter<File>>>,
    pub trace: Option<LinkTrace<'a>>,
    error: &'a mut Option<String>,
}

/// The packet trace as one link writes to it.
pub struct LinkTrace<'a> {
    link: LinkId,
    rows: &'a mut PacketTrace,
}

impl LinkTrace<'_> {
    /// The same trace for a shorter borrow (what a queue discipline is handed).
    #[inline]
    pub fn reborrow(&mut self) -> LinkTrace<'_> {
        LinkTrace {
            link: self.link,
            rows: &mut *self.rows,
        }
    }

    #[inline]
    pub fn event(&mut self, now: Time, ev: TraceEvent, why: DropReason, p: &Packet) {
        self.rows.push(now, self.link, ev, why, p);
    }

    #[inline]
    pub fn settle(&mut self, packets: u32, bytes: u64) {
        self.rows.settle(packets, bytes);
    }
}

/// A capture's file name: the link's name with what a file name should not hold replaced
/// ("s0->r0" gives "s0-r0"), like ns-3's prefix-node-device.pcap names a device.
pub fn file_name(link: &str, format: CaptureFormat) -> String {
    let stem: String = link
        .replace("->", "-")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{stem}.{}", format.extension())
}

/// What the taps of a run are: links by index, and how each flow looks on the wire.
#[derive(Debug, Clone)]
pub struct TapPlan {
    pub captured: Vec<LinkId>,
    pub traced: Vec<LinkId>,
    pub flows: Vec<FlowWire>,
    pub format: CaptureFormat,
    pub snaplen: u32,
    pub trace_max_rows: usize,
}

impl Taps {
    /// Opens a capture file in `dir` for each captured link. `None` when nothing is tapped.
    pub fn open(plan: TapPlan, link_names: &[&str], dir: &Path) -> std::io::Result<Taps> {
        let n = link_names.len();
        let mut pcaps: Vec<Option<PcapWriter<BufWriter<File>>>> = (0..n).map(|_| None).collect();
        let mut files = vec![];
        if !plan.captured.is_empty() {
            std::fs::create_dir_all(dir)?;
        }
        for &l in &plan.captured {
            let name = link_names[l as usize];
            let path = dir.join(file_name(name, plan.format));
            if files.contains(&path) {
                return Err(std::io::Error::other(format!(
                    "two captured links would write {}",
                    path.display()
                )));
            }
            let w = PcapWriter::create(&path, plan.format, plan.snaplen, name).map_err(|e| {
                std::io::Error::new(e.kind(), format!("capture file {}: {e}", path.display()))
            })?;
            pcaps[l as usize] = Some(w);
            files.push(path);
        }
        let mut traced = vec![false; n];
        for &l in &plan.traced {
            traced[l as usize] = true;
        }
        Ok(Taps {
            flows: plan.flows,
            pcaps,
            traced,
            trace: PacketTrace::new(plan.trace_max_rows),
            error: None,
            files,
        })
    }

    /// Link `l`'s tap, if it has one.
    #[inline]
    pub fn tap(&mut self, l: LinkId) -> Option<TapCtx<'_>> {
        let pcap = self.pcaps[l as usize].as_mut();
        let traced = self.traced[l as usize];
        if pcap.is_none() && !traced {
            return None;
        }
        Some(TapCtx {
            link: l,
            flows: &self.flows,
            pcap,
            trace: traced.then_some(LinkTrace {
                link: l,
                rows: &mut self.trace,
            }),
            error: &mut self.error,
        })
    }

    /// Whether any link is traced (else the run has no trace table).
    pub fn traced_any(&self) -> bool {
        self.traced.iter().any(|&t| t)
    }

    /// Flushes every capture file; the first error of the run, if any.
    pub fn finish(&mut self) -> Result<(), String> {
        for w in self.pcaps.iter_mut().flatten() {
            if let Err(e) = w.flush() {
                self.error.get_or_insert(format!("writing a capture: {e}"));
            }
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl TapCtx<'_> {
    /// `p` starts its transmission at `now`.
    #[inline]
    pub fn on_departure(&mut self, now: Time, p: &Packet) {
        if let Some(w) = &mut self.pcap {
            let h = wire_headers::encode(p, &self.flows[p.flow as usize]);
            if let Err(e) = w.record(now, h.as_slice(), h.wire_len) {
                self.error
                    .get_or_insert(format!("writing the capture of link {}: {e}", self.link));
            }
        }
        if let Some(t) = &mut self.trace {
            t.event(now, TraceEvent::Dequeue, DropReason::None, p);
        }
    }

    #[inline]
    pub fn trace(&mut self, now: Time, ev: TraceEvent, why: DropReason, p: &Packet) {
        if let Some(t) = &mut self.trace {
            t.event(now, ev, why, p);
        }
    }

    #[inline]
    pub fn settle(&mut self, packets: u32, bytes: u64) {
        if let Some(t) = &mut self.trace {
            t.settle(packets, bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_safe() {
        assert_eq!(
            file_name("bottleneck", CaptureFormat::Pcap),
            "bottleneck.pcap"
        );
        assert_eq!(file_name("s0->r0", CaptureFormat::Pcapng), "s0-r0.pcapng");
        assert_eq!(file_name("a/b c", CaptureFormat::Pcap), "a_b_c.pcap");
    }
}
