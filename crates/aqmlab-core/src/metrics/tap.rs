//! Where captures and the packet trace attach to links: the links a scenario names in
//! `capture` write a capture file of the packets leaving them, those in `trace` add rows to the
//! packet trace.
//!
//! The simulator holds no taps at all unless a link is captured or traced (`Taps` is then
//! absent): a run without either tests a null pointer once per link step (docs/capture.md,
//! "Cost", for what that measured).
//!
//! Where a capture sees a packet: when its transmission starts, the moment it goes onto the
//! wire, as ns-3's point-to-point device feeds its pcap trace (`PointToPointNetDevice::
//! TransmitStart` fires `m_promiscSnifferTrace`; src/point-to-point/model/
//! point-to-point-net-device.cc) and as tcpdump sees a packet the kernel hands to a driver.
//! A packet the link then loses on the wire is in the capture (it did leave).

use crate::metrics::packet_trace::{DropReason, PacketTrace, TraceEvent};
use crate::net::pcap::{CaptureFormat, PcapWriter};
use crate::net::wire_headers::{self, FlowWire};
use crate::net::{LinkId, Packet, PacketArena, PacketId};
use crate::sim::Time;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// Drops (with their reason) and marks of one link step, in order.
pub type QueueLog = Vec<(TraceEvent, DropReason, PacketId)>;

/// Every tap of a run. Links reach it through a pointer that is null without taps, and its
/// hooks are kept out of line (`#[cold]`), so that the code of an untapped step grows by little
/// more than a test of that pointer (issue 27: a per-link context passed by value instead
/// cost 5.5 % more instructions on the default dumbbell).
pub struct Taps {
    flows: Vec<FlowWire>,
    /// Per link: its capture, if it is captured.
    pcaps: Vec<Option<PcapWriter<BufWriter<File>>>>,
    /// Per link: whether it is traced.
    traced: Vec<bool>,
    /// The drops and marks of the link step under way, in order (any link's: every step
    /// ends with a hook that empties it).
    pub(crate) step_log: QueueLog,
    pub trace: PacketTrace,
    /// The first write error; the run reports it at its end.
    pub error: Option<String>,
    pub files: Vec<PathBuf>,
    /// Per link: the index of its capture's file in `files` (for captured links only).
    files_by_link: Vec<usize>,
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
    /// Opens a capture file in `dir` (created if missing) for each captured link.
    pub fn open(plan: TapPlan, link_names: &[&str], dir: &Path) -> std::io::Result<Taps> {
        let n = link_names.len();
        let mut pcaps: Vec<Option<PcapWriter<BufWriter<File>>>> = (0..n).map(|_| None).collect();
        let mut files = vec![];
        let mut files_by_link = vec![usize::MAX; n];
        if !plan.captured.is_empty() {
            std::fs::create_dir_all(dir).map_err(|e| {
                std::io::Error::new(e.kind(), format!("cannot create '{}': {e}", dir.display()))
            })?;
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
                std::io::Error::new(
                    e.kind(),
                    format!("cannot create the capture file '{}': {e}", path.display()),
                )
            })?;
            pcaps[l as usize] = Some(w);
            files_by_link[l as usize] = files.len();
            files.push(path);
        }
        let mut traced = vec![false; n];
        for &l in &plan.traced {
            traced[l as usize] = true;
        }
        Ok(Taps {
            flows: plan.flows,
            pcaps,
            step_log: QueueLog::new(),
            traced,
            trace: PacketTrace::new(plan.trace_max_rows),
            error: None,
            files,
            files_by_link,
        })
    }

    /// Whether any link is traced (else the run has no trace table).
    pub fn traced_any(&self) -> bool {
        self.traced.iter().any(|&t| t)
    }

    /// Flushes every capture file; the first error of the run, if any.
    pub fn finish(&mut self) -> Result<(), String> {
        for (l, w) in self.pcaps.iter_mut().enumerate() {
            let Some(w) = w else { continue };
            if let Err(e) = w.flush() {
                let path = &self.files[self.files_by_link[l]];
                self.error.get_or_insert(format!(
                    "writing the capture file '{}': {e}",
                    path.display()
                ));
            }
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Taps {
    /// Link `link`'s discipline has taken or dropped `pkt`, arrived at `now`; its queue
    /// holds `len` (packets, bytes).
    #[cold]
    #[inline(never)]
    pub fn after_arrival(
        &mut self,
        link: LinkId,
        now: Time,
        pkt: PacketId,
        packets: &PacketArena,
        len: (u32, u64),
    ) {
        if self.traced[link as usize] {
            let p = packets.get(pkt);
            self.trace
                .push(now, link, TraceEvent::Enqueue, DropReason::None, p);
            self.end_step(link, now, None, packets, len);
        } else {
            self.step_log.clear();
        }
    }

    /// Link `link` looked for its next packet at `now` and starts sending `next` (none: it
    /// goes idle); its queue holds `len`.
    #[cold]
    #[inline(never)]
    pub fn after_dequeue(
        &mut self,
        link: LinkId,
        now: Time,
        next: Option<PacketId>,
        packets: &PacketArena,
        len: (u32, u64),
    ) {
        if let (Some(id), Some(w)) = (next, &mut self.pcaps[link as usize]) {
            let p = packets.get(id);
            let h = wire_headers::encode(p, &self.flows[p.flow as usize]);
            if let Err(e) = w.record(now, h.as_slice(), h.wire_len) {
                let path = self.files_by_link[link as usize];
                self.error.get_or_insert(format!(
                    "writing the capture file '{}': {e}",
                    self.files[path].display()
                ));
            }
        }
        if self.traced[link as usize] {
            self.end_step(link, now, next, packets, len);
        } else {
            self.step_log.clear();
        }
    }

    /// Link `link`'s discipline ran its timer at `now`.
    #[cold]
    #[inline(never)]
    pub fn after_timer(&mut self, link: LinkId, now: Time, packets: &PacketArena, len: (u32, u64)) {
        if self.traced[link as usize] {
            self.end_step(link, now, None, packets, len);
        } else {
            self.step_log.clear();
        }
    }

    /// The rows of a step's drops and marks (the discipline's log), then of the packet it
    /// sends, all with the queue's length at the step's end.
    fn end_step(
        &mut self,
        link: LinkId,
        now: Time,
        sent: Option<PacketId>,
        packets: &PacketArena,
        (len, bytes): (u32, u64),
    ) {
        for &(ev, why, id) in &self.step_log {
            self.trace.push(now, link, ev, why, packets.get(id));
        }
        self.step_log.clear();
        if let Some(id) = sent {
            self.trace.push(
                now,
                link,
                TraceEvent::Dequeue,
                DropReason::None,
                packets.get(id),
            );
        }
        self.trace.settle(len, bytes);
    }

    /// An event of the packet trace on link `link`, if it is traced.
    #[cold]
    #[inline(never)]
    pub fn trace_event(
        &mut self,
        link: LinkId,
        now: Time,
        ev: TraceEvent,
        why: DropReason,
        p: &Packet,
    ) {
        if self.traced[link as usize] {
            self.trace.push(now, link, ev, why, p);
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
