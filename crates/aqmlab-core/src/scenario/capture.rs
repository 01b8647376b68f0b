//! The scenario's packet capture and packet trace: which links, in what format, how much.
//!
//! ```toml
//! capture = ["bottleneck"]      # a capture file of the packets leaving each named link
//! capture_snaplen = 128         # bytes kept of each packet (its headers: no payload is stored)
//! capture_format = "pcap"       # or "pcapng"
//! trace = ["bottleneck"]        # per-packet events (enqueue, dequeue, drop, mark)
//! trace_max_rows = 1000000      # the trace stops recording past this many rows
//! ```
//!
//! Links are named as the scenario names them (the dumbbell's "bottleneck" and
//! "bottleneck_reverse", its access links "s0->r0", "r0->s0", ...; a graph's by `name`, or
//! "from->to"); each is one direction. Names are checked when the network is built, where the
//! links are known (`check_link_names`).

use crate::metrics::tap::{file_name, TapPlan};
use crate::net::pcap::CaptureFormat;
use crate::net::wire_headers::FlowWire;
use crate::units::error::ScenarioError;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Bytes kept of a packet by default: every IPv4 + TCP header whole (at most 20 + 60), as
/// `tcpdump -s 128` would keep them.
pub const DEFAULT_SNAPLEN: u32 = 128;
/// Rows of the packet trace kept by default (40 bytes each: 40 MB).
pub const DEFAULT_TRACE_MAX_ROWS: u64 = 1_000_000;
/// The most rows a trace may be allowed (4 GB of memory).
pub const MAX_TRACE_ROWS: u64 = 100_000_000;

pub(crate) fn default_snaplen() -> u32 {
    DEFAULT_SNAPLEN
}

pub(crate) fn default_trace_max_rows() -> u64 {
    DEFAULT_TRACE_MAX_ROWS
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaptureSpec {
    /// Links whose departing packets are captured, one file each.
    pub capture: Vec<String>,
    /// Bytes kept of each packet (the pcap SnapLen); headers only, as no payload is stored.
    pub capture_snaplen: u32,
    pub capture_format: CaptureFormat,
    /// Links whose queue events are traced.
    pub trace: Vec<String>,
    pub trace_max_rows: u64,
}

impl Default for CaptureSpec {
    fn default() -> Self {
        CaptureSpec {
            capture: vec![],
            capture_snaplen: DEFAULT_SNAPLEN,
            capture_format: CaptureFormat::Pcap,
            trace: vec![],
            trace_max_rows: DEFAULT_TRACE_MAX_ROWS,
        }
    }
}

impl CaptureSpec {
    /// The checks that need no network.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        // 20 bytes keep an IPv4 header; 262144 is libpcap's largest snapshot length
        // (MAXIMUM_SNAPLEN, pcap-int.h).
        if !(20..=262_144).contains(&self.capture_snaplen) {
            return Err(ScenarioError::new(
                "capture_snaplen",
                format!(
                    "must be between 20 and 262144 bytes, got {}",
                    self.capture_snaplen
                ),
            ));
        }
        if !(1..=MAX_TRACE_ROWS).contains(&self.trace_max_rows) {
            return Err(ScenarioError::new(
                "trace_max_rows",
                format!(
                    "must be between 1 and {MAX_TRACE_ROWS}, got {}",
                    self.trace_max_rows
                ),
            ));
        }
        Ok(())
    }
}

/// The index of each link named in `names` (the field `field`), or an error naming the entry
/// (`link_index`).
pub fn check_link_names(
    field: &str,
    names: &[String],
    links: &[&str],
) -> Result<Vec<u32>, ScenarioError> {
    let mut out: Vec<u32> = Vec::with_capacity(names.len());
    for (i, n) in names.iter().enumerate() {
        let l = link_index(links, n, &format!("{field}[{i}]"))? as u32;
        if !out.contains(&l) {
            out.push(l);
        }
    }
    Ok(out)
}

/// The index of the link called `name` among `links` (their names), or an error at `path`
/// with the valid names (the first 12) and the nearest one: how the scenario's fields that
/// name a link (`capture`, `trace`, an event's `link` and `queue`, a workload's `load_link`)
/// are read.
pub fn link_index(links: &[&str], name: &str, path: &str) -> Result<usize, ScenarioError> {
    links.iter().position(|l| *l == name).ok_or_else(|| {
        let listed = if links.len() > 12 {
            format!("{}, ... ({} links)", links[..12].join(", "), links.len())
        } else {
            links.join(", ")
        };
        ScenarioError::new(
            path,
            crate::units::suggest::with_suggestion(
                format!("unknown link '{name}'; links: {listed}"),
                name,
                links.iter().copied(),
            ),
        )
    })
}

/// The taps of a run: links resolved against the network's `links` (names by index), and
/// `wires` (how each flow looks on the wire) asked for only when a link is captured.
pub(crate) fn plan(
    spec: &CaptureSpec,
    links: &[&str],
    wires: impl FnOnce() -> Vec<FlowWire>,
) -> Result<Option<TapPlan>, ScenarioError> {
    if spec.capture.is_empty() && spec.trace.is_empty() {
        return Ok(None);
    }
    let captured = check_link_names("capture", &spec.capture, links)?;
    check_file_names(spec)?;
    Ok(Some(TapPlan {
        captured,
        traced: check_link_names("trace", &spec.trace, links)?,
        flows: if spec.capture.is_empty() {
            vec![]
        } else {
            wires()
        },
        format: spec.capture_format,
        snaplen: spec.capture_snaplen,
        trace_max_rows: spec.trace_max_rows as usize,
    }))
}

/// The longest file name most file systems take (POSIX NAME_MAX on Linux and macOS, 255
/// UTF-16 units on NTFS); a capture's name is ASCII, so its bytes are its characters.
pub const MAX_FILE_NAME_BYTES: usize = 255;

/// Each captured link must have a file of its own, with a name a file system takes: checked
/// with the scenario, where an entry can be named, rather than when the files are opened.
fn check_file_names(spec: &CaptureSpec) -> Result<(), ScenarioError> {
    let mut seen: Vec<(String, usize)> = Vec::with_capacity(spec.capture.len());
    for (i, link) in spec.capture.iter().enumerate() {
        let name = file_name(link, spec.capture_format);
        let at = format!("capture[{i}]");
        if name.len() > MAX_FILE_NAME_BYTES {
            return Err(ScenarioError::new(
                at,
                format!(
                    "link '{}...' would be captured to a file name of {} bytes, longer than \
                     the {MAX_FILE_NAME_BYTES} a file system takes; give the link a shorter name",
                    link.chars().take(40).collect::<String>(),
                    name.len()
                ),
            ));
        }
        match seen.iter().find(|(n, _)| *n == name) {
            // The same link named twice is captured once (`check_link_names`).
            Some((_, j)) if spec.capture[*j] == *link => {}
            Some((_, j)) => {
                return Err(ScenarioError::new(
                    at,
                    format!(
                        "link '{link}' would be captured to '{name}', the file of capture[{j}] \
                         ('{}'); rename one of the links",
                        spec.capture[*j]
                    ),
                ))
            }
            None => seen.push((name, i)),
        }
    }
    Ok(())
}

/// Checks, before anything is built, that the capture files can go into `dir`: it is a
/// directory, or can be created as one (its nearest existing ancestor is a directory), and no
/// capture's file is a directory. Errors are the scenario's (bad input, named with the
/// path), not the run's.
pub fn check_capture_dir(spec: &CaptureSpec, dir: &Path) -> Result<(), ScenarioError> {
    if spec.capture.is_empty() {
        return Ok(());
    }
    let shown = dir.display();
    let mut at = dir;
    loop {
        match std::fs::metadata(at) {
            Ok(m) if m.is_dir() => break,
            Ok(_) if at == dir => {
                return Err(ScenarioError::new(
                    "capture_dir",
                    format!("'{shown}' is a file, not a directory for the capture files"),
                ))
            }
            Ok(_) => {
                return Err(ScenarioError::new(
                    "capture_dir",
                    format!(
                        "'{shown}' cannot be created: '{}' is a file, not a directory",
                        at.display()
                    ),
                ))
            }
            Err(_) => match at.parent() {
                Some(p) if !p.as_os_str().is_empty() => at = p,
                // A relative path whose first component does not exist: under the
                // current directory.
                _ => break,
            },
        }
    }
    for (i, link) in spec.capture.iter().enumerate() {
        let path = dir.join(file_name(link, spec.capture_format));
        if path.is_dir() {
            return Err(ScenarioError::new(
                format!("capture[{i}]"),
                format!(
                    "the capture file of link '{link}', '{}', is a directory",
                    path.display()
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_link_names_the_entry_and_suggests() {
        let links = ["bottleneck", "bottleneck_reverse", "s0->r0"];
        let e = check_link_names(
            "capture",
            &["bottleneck".into(), "botleneck".into()],
            &links,
        )
        .unwrap_err();
        assert_eq!(e.path, "capture[1]");
        assert!(e
            .message
            .contains("links: bottleneck, bottleneck_reverse, s0->r0"));
        assert!(
            e.message.contains("did you mean `bottleneck`?"),
            "{}",
            e.message
        );
        assert_eq!(
            check_link_names("trace", &["s0->r0".into(), "s0->r0".into()], &links).unwrap(),
            vec![2]
        );
    }

    #[test]
    fn snaplen_and_rows_are_bounded() {
        let s = CaptureSpec {
            capture_snaplen: 10,
            ..Default::default()
        };
        assert_eq!(s.validate().unwrap_err().path, "capture_snaplen");
        let s = CaptureSpec {
            trace_max_rows: 0,
            ..Default::default()
        };
        assert_eq!(s.validate().unwrap_err().path, "trace_max_rows");
    }
}
