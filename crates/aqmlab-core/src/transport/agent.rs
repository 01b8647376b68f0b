//! The closed set of agent kinds, dispatched by `match` (no virtual call per packet).

use super::probe::{PingEcho, PingSource};
use super::tcp::{Rfc6675Sender, TcpSender, TcpSink};
use super::udp::{UdpSink, UdpSource};
use super::AgentCtx;
use crate::net::PacketId;
use crate::sim::StateSink;

// Senders are half the agents and every packet event dispatches through this enum: boxing
// the largest sender to shrink the sinks' slots would add a pointer chase per packet. The
// modern sender keeps what only some options need on the heap (`tcp/ns3_state.rs`).
#[allow(clippy::large_enum_variant)]
pub enum Agent {
    TcpSender(TcpSender),
    Rfc6675Sender(Rfc6675Sender),
    TcpSink(TcpSink),
    UdpSource(UdpSource),
    UdpSink(UdpSink),
    PingSource(PingSource),
    PingEcho(PingEcho),
}

impl Agent {
    pub fn start(&mut self, cx: &mut AgentCtx) {
        match self {
            Agent::TcpSender(a) => a.start(cx),
            Agent::Rfc6675Sender(a) => a.start(cx),
            Agent::UdpSource(a) => a.start(cx),
            Agent::PingSource(a) => a.start(cx),
            Agent::TcpSink(_) | Agent::UdpSink(_) | Agent::PingEcho(_) => {}
        }
    }

    pub fn stop(&mut self, cx: &mut AgentCtx) {
        match self {
            Agent::TcpSender(a) => a.stop(cx),
            Agent::Rfc6675Sender(a) => a.stop(cx),
            Agent::UdpSource(a) => a.stop(cx),
            Agent::PingSource(a) => a.stop(cx),
            Agent::TcpSink(_) | Agent::UdpSink(_) | Agent::PingEcho(_) => {}
        }
    }

    /// The run is over: a sender closes what it measures over spans still open. Nothing is
    /// sent.
    pub fn finish(&mut self, cx: &mut AgentCtx) {
        if let Agent::Rfc6675Sender(a) = self {
            a.finish(cx);
        }
    }

    /// A packet addressed to this agent arrived; the agent owns it and must free it.
    // Always: the simulator's two event loops (with and without taps, events and probes,
    // issue 36 item 4) both call it, and inlined once it was, when there was one loop.
    #[inline(always)]
    pub fn receive(&mut self, cx: &mut AgentCtx, pkt: PacketId) {
        match self {
            Agent::TcpSender(a) => a.receive(cx, pkt),
            Agent::Rfc6675Sender(a) => a.receive(cx, pkt),
            Agent::TcpSink(a) => a.receive(cx, pkt),
            Agent::UdpSource(_) => cx.free(pkt),
            Agent::UdpSink(a) => a.receive(cx, pkt),
            Agent::PingSource(a) => a.receive(cx, pkt),
            Agent::PingEcho(a) => a.receive(cx, pkt),
        }
    }

    // Always: the simulator's two event loops (with and without taps, events and probes,
    // issue 36 item 4) both call it, and inlined once it was, when there was one loop.
    #[inline(always)]
    pub fn timer(&mut self, cx: &mut AgentCtx, which: u8) {
        match self {
            Agent::TcpSender(a) => a.timer(cx, which),
            Agent::Rfc6675Sender(a) => a.timer(cx, which),
            Agent::TcpSink(a) => a.timer(cx, which),
            Agent::UdpSource(a) => a.timer(cx, which),
            Agent::PingSource(a) => a.timer(cx, which),
            Agent::UdpSink(_) | Agent::PingEcho(_) => {}
        }
    }

    /// A TCP sender's application writes `packets` more; nothing for other agents.
    pub fn write_more(&mut self, cx: &mut AgentCtx, packets: u64) {
        match self {
            Agent::TcpSender(a) => a.write_more(cx, packets),
            Agent::Rfc6675Sender(a) => a.write_more(cx, packets),
            _ => {}
        }
    }

    /// A TCP receiver's packets received in order; 0 for other agents.
    pub fn delivered_packets(&self) -> u64 {
        match self {
            Agent::TcpSink(a) => a.delivered_packets(),
            _ => 0,
        }
    }

    /// Reports the agent's state (cwnd, ssthresh, srtt ...) for the time series.
    pub fn state(&self, out: &mut StateSink) {
        match self {
            Agent::TcpSender(a) => a.state(out),
            Agent::Rfc6675Sender(a) => a.state(out),
            _ => {}
        }
    }

    /// Whether this agent originates a flow (and so owns the flow's row).
    pub fn is_sender(&self) -> bool {
        matches!(
            self,
            Agent::TcpSender(_)
                | Agent::Rfc6675Sender(_)
                | Agent::UdpSource(_)
                | Agent::PingSource(_)
        )
    }

    /// Whether this agent is a TCP sender (its state is sampled with `sample_flows`).
    pub fn is_tcp_sender(&self) -> bool {
        matches!(self, Agent::TcpSender(_) | Agent::Rfc6675Sender(_))
    }
}
