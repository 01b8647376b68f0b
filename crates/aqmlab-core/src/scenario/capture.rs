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

use super::error::ScenarioError;
use super::schema::FlowSpec;
use crate::net::pcap::CaptureFormat;
use crate::net::tap::TapPlan;
use crate::net::wire_headers::{flow_ports, FlowWire, TcpWire};
use crate::transport::tcp::config::Handshake;
use serde::{Deserialize, Serialize};

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
            super::suggest::with_suggestion(
                format!("unknown link '{name}'; links: {listed}"),
                name,
                links.iter().copied(),
            ),
        )
    })
}

/// How flow `flow` of `spec` looks on the wire (`net/wire_headers.rs`).
pub(crate) fn flow_wire(spec: &FlowSpec, flow: u32) -> FlowWire {
    let (sport, dport) = flow_ports(flow);
    match spec {
        FlowSpec::Tcp { tcp, .. } => FlowWire::Tcp(TcpWire {
            sport,
            dport,
            isn_sender: TcpWire::isn(flow, false),
            isn_receiver: TcpWire::isn(flow, true),
            mss: tcp.packet_size,
            header_size: tcp.header_size,
            window_bytes: tcp.window as u64 * tcp.packet_size as u64,
            sack: tcp.sack(),
            ecn: tcp.ecn,
            timestamps: tcp.timestamps,
            handshake: tcp.handshake == Handshake::Syn,
        }),
        _ => FlowWire::Udp { sport, dport },
    }
}

/// The taps of a run: links resolved against the network's `links` (names by index).
pub(crate) fn plan(
    spec: &CaptureSpec,
    links: &[&str],
    flows: Vec<FlowWire>,
) -> Result<Option<TapPlan>, ScenarioError> {
    if spec.capture.is_empty() && spec.trace.is_empty() {
        return Ok(None);
    }
    Ok(Some(TapPlan {
        captured: check_link_names("capture", &spec.capture, links)?,
        traced: check_link_names("trace", &spec.trace, links)?,
        flows,
        format: spec.capture_format,
        snaplen: spec.capture_snaplen,
        trace_max_rows: spec.trace_max_rows as usize,
    }))
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
