//! What the hosts of an emulation must do: which nodes are real hosts, their addresses, and
//! each flow as the kernel will run it (its ports, start, stop, congestion control, ECN,
//! size, or its UDP pattern). The orchestrator (Python, `aqmlab.emulation`) reads it; the
//! router classifies packets by the same ports.

use crate::metrics::flow_stats::FlowInfo;
use crate::scenario::probe::ProbeSpec;
use crate::scenario::schema::FlowSpec;
use crate::sim::time;
use crate::transport::tcp::congestion::CongestionControlKind;
use crate::Scenario;
use serde::Serialize;

/// Hosts are numbered from 10.200.0.1 up (a /16 of RFC 1918 space that the emulation's
/// namespaces alone use), so at most this many.
pub const MAX_HOSTS: usize = 65_534;
const FIRST_HOST_ADDRESS: u32 = 0x0ac8_0001; // 10.200.0.1
/// Flow i listens on port FIRST_PORT + i at its destination (TCP and UDP alike).
pub const FIRST_PORT: u32 = 20_000;
pub const MAX_FLOWS: usize = (u16::MAX as u32 - FIRST_PORT) as usize;

/// The address of host `index` as a host-order u32.
pub fn host_address(index: usize) -> u32 {
    FIRST_HOST_ADDRESS + index as u32
}

pub fn dotted(a: u32) -> String {
    std::net::Ipv4Addr::from(a).to_string()
}

#[derive(Debug, Clone, Serialize)]
pub struct PlannedHost {
    pub node: String,
    pub address: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct PlannedFlow {
    pub flow: u32,
    pub kind: &'static str,
    pub group: String,
    pub src: String,
    pub dst: String,
    pub src_address: String,
    pub dst_address: String,
    pub port: u16,
    pub start_s: f64,
    pub stop_s: Option<f64>,
    /// TCP: the kernel's congestion control named by `tcp.congestion_control`.
    pub congestion_control: Option<&'static str>,
    pub ecn: Option<bool>,
    /// TCP: payload bytes of a finite transfer; None for a bulk flow.
    pub size_bytes: Option<u64>,
    /// UDP: payload bytes per datagram, and the pattern's parameters.
    pub packet_size: Option<u64>,
    pub rate_bps: Option<u64>,
    pub packets_per_second: Option<f64>,
    pub exponential_sizes: Option<bool>,
    pub on_time_s: Option<f64>,
    pub off_time_s: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct EmulationPlan {
    pub duration_s: f64,
    pub warmup_s: f64,
    pub sample_interval_s: Option<f64>,
    /// The MTU of every host's interface: the largest TCP packet of the scenario on the wire
    /// (`tcp.packet_size + tcp.header_size`), so that the kernel's segments have the
    /// scenario's size; 1500 without TCP flows.
    pub mtu: u32,
    pub hosts: Vec<PlannedHost>,
    pub flows: Vec<PlannedFlow>,
}

/// The plan of `scenario`, whose flows were expanded into `flows`; `host_of` gives a node
/// name's host index.
pub(crate) fn plan(
    scenario: &Scenario,
    flows: &[FlowInfo],
    hosts: &[String],
    host_of: &dyn Fn(&str) -> usize,
) -> EmulationPlan {
    let mut mtu = 0;
    let planned = flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (src, dst) = (host_of(&f.src), host_of(&f.dst));
            let mut p = PlannedFlow {
                flow: i as u32,
                // A workload's transfers are TCP flows with a size to the hosts' kernels.
                kind: if f.kind == "workload" { "tcp" } else { f.kind },
                group: f.group.clone(),
                src: f.src.clone(),
                dst: f.dst.clone(),
                src_address: dotted(host_address(src)),
                dst_address: dotted(host_address(dst)),
                port: (FIRST_PORT + i as u32) as u16,
                start_s: time::to_secs_f64(f.start),
                stop_s: f.stop.map(time::to_secs_f64),
                congestion_control: None,
                ecn: None,
                size_bytes: None,
                packet_size: None,
                rate_bps: None,
                packets_per_second: None,
                exponential_sizes: None,
                on_time_s: None,
                off_time_s: None,
            };
            match &scenario.flows[f.spec] {
                FlowSpec::Tcp { tcp, .. } | FlowSpec::Workload { tcp, .. } => {
                    p.congestion_control = Some(match tcp.congestion_control {
                        CongestionControlKind::Reno => "reno",
                        CongestionControlKind::Cubic => "cubic",
                        // The kernel's own (net/ipv4/tcp_dctcp.c).
                        CongestionControlKind::Dctcp => "dctcp",
                        CongestionControlKind::Bbr => "bbr",
                        // The L4S team's module (net/ipv4/tcp_prague.c), where installed.
                        CongestionControlKind::Prague => "prague",
                    });
                    p.ecn = Some(tcp.ecn);
                    p.size_bytes = f.transfer.map(|t| t.0);
                    mtu = mtu.max(tcp.packet_size + tcp.header_size);
                }
                FlowSpec::Cbr {
                    rate, packet_size, ..
                } => {
                    p.rate_bps = Some(rate.0);
                    p.packet_size = Some(packet_size.0);
                }
                FlowSpec::Poisson {
                    packets_per_second,
                    packet_size,
                    exponential_sizes,
                    ..
                } => {
                    p.packets_per_second = Some(*packets_per_second);
                    p.packet_size = Some(packet_size.0);
                    p.exponential_sizes = Some(*exponential_sizes);
                }
                FlowSpec::OnOff {
                    rate,
                    packet_size,
                    on_time,
                    off_time,
                    ..
                } => {
                    p.rate_bps = Some(rate.0);
                    p.packet_size = Some(packet_size.0);
                    p.on_time_s = Some(on_time.secs());
                    p.off_time_s = Some(off_time.secs());
                }
                // The hosts have no ping agent: they refuse the kind (host_agent.py KINDS).
                FlowSpec::Probe { probe, .. } => {
                    if let ProbeSpec::Ping { packet_size, .. } = probe {
                        p.packet_size = Some(*packet_size as u64);
                    }
                }
            }
            p
        })
        .collect();
    EmulationPlan {
        duration_s: scenario.duration.secs(),
        warmup_s: scenario.warmup.secs(),
        sample_interval_s: scenario.sample_interval.map(|d| d.secs()),
        mtu: if mtu == 0 { 1500 } else { mtu },
        hosts: hosts
            .iter()
            .enumerate()
            .map(|(i, n)| PlannedHost {
                node: n.clone(),
                address: dotted(host_address(i)),
            })
            .collect(),
        flows: planned,
    }
}
