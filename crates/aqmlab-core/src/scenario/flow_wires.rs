//! How each flow of a run looks on the wire, for its packet captures (issue 27): the
//! scenario's flow entries read against the engine's flows. Apart from `capture.rs`, which
//! the schema reads, since this reads the schema.

use super::probe::ProbeSpec;
use super::schema::FlowSpec;
use crate::metrics::flow_stats::FlowInfo;
use crate::net::wire_headers::{flow_ports, FlowWire, TcpWire};
use crate::net::AgentId;
use crate::transport::tcp::config::Handshake;

/// How each flow of the run looks on the wire (`net/wire_headers.rs`), by flow id: from the
/// engine's flows, not the scenario's entries, since an entry may make many flows (`count`,
/// a workload's arrivals) and one instance of it more than one (a tcp_rr probe is two).
pub(crate) fn flow_wires(specs: &[FlowSpec], flows: &[FlowInfo]) -> Vec<FlowWire> {
    flows
        .iter()
        .enumerate()
        .map(|(i, f)| flow_wire(&specs[f.spec], i as u32, f.sender))
        .collect()
}

/// How flow `flow`, made from `spec` with sending agent `sender`, looks on the wire.
fn flow_wire(spec: &FlowSpec, flow: u32, sender: AgentId) -> FlowWire {
    let (sport, dport) = flow_ports(flow);
    let tcp = match spec {
        FlowSpec::Tcp { tcp, .. }
        | FlowSpec::Workload { tcp, .. }
        | FlowSpec::Probe {
            probe: ProbeSpec::TcpRr { .. },
            tcp,
            ..
        } => tcp,
        FlowSpec::Cbr { .. }
        | FlowSpec::Poisson { .. }
        | FlowSpec::OnOff { .. }
        | FlowSpec::Probe {
            probe: ProbeSpec::Ping { .. },
            ..
        } => {
            return FlowWire::Udp {
                sport,
                dport,
                sender,
            }
        }
    };
    FlowWire::Tcp(TcpWire {
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
        accecn_syn_ack: tcp.accecn().then(|| syn_ack_ace(tcp)),
    })
}

/// The ACE of an AccECN SYN-ACK (RFC 9768 section 3.1.1, Table 2; Linux
/// `tcp_accecn_echo_syn_ect`): the ECN field the SYN was sent with, ECT with `syn_ect =
/// "linux"` for a control that needs ECN (`Rfc6675Sender`'s SYN), else Not-ECT.
fn syn_ack_ace(tcp: &crate::transport::tcp::TcpConfig) -> u8 {
    use crate::transport::tcp::SynEct;
    let ect = tcp.syn_ect == SynEct::Linux && tcp.congestion_control.needs_ecn();
    match (ect, tcp.sends_ect1()) {
        (false, _) => 0b010,
        (true, true) => 0b011,
        (true, false) => 0b100,
    }
}
