//! The ping probe's agents (`scenario/probe.rs`): a source that sends a request every
//! `interval` and an echo that returns each request at once, as ICMP echo does. The reply
//! carries the request's send time (`echo_sent_at`), so each reply is one RTT sample:
//! now - that time, recorded by the source with the time the reply arrived. A lost request
//! or reply is a missing sample. `lost` counts the requests that were lost, the request or
//! its reply dropped (the simulator knows each drop): a request still on its way when the run
//! ends, which could not have been answered yet, is not lost (`ping` itself would count it
//! as lost if interrupted then: issue 35, every run reported at least one lost ping).

use super::{AgentCtx, Endpoint};
use crate::net::{AgentId, PacketId, PacketKind};
use crate::sim::{LazyTimer, Time};

const NEXT_REQUEST: u8 = 0;

pub struct PingSource {
    ep: Endpoint,
    interval: Time,
    packet_size: u32,
    next: LazyTimer,
    running: bool,
    sent: u64,
    /// Requests or replies dropped, over the whole run.
    dropped: u64,
    /// (arrival time of the reply, RTT), in order of arrival.
    pub samples: Vec<(Time, Time)>,
}

impl PingSource {
    pub fn new(ep: Endpoint, interval: Time, packet_size: u32) -> Self {
        PingSource {
            ep,
            interval,
            packet_size,
            next: LazyTimer::new(),
            running: false,
            sent: 0,
            dropped: 0,
            samples: vec![],
        }
    }

    pub fn start(&mut self, cx: &mut AgentCtx) {
        self.running = true;
        self.request(cx);
    }

    pub fn stop(&mut self, _cx: &mut AgentCtx) {
        self.running = false;
        self.next.cancel();
    }

    pub fn timer(&mut self, cx: &mut AgentCtx, which: u8) {
        if cx.timer_expired(&mut self.next, which) && self.running {
            self.request(cx);
        }
    }

    fn request(&mut self, cx: &mut AgentCtx) {
        let mut p = self.ep.packet(PacketKind::Udp, self.packet_size);
        p.seq = self.sent as i64;
        self.sent += 1;
        cx.stats.packets_sent += 1;
        cx.send(p);
        cx.set_timer(&mut self.next, NEXT_REQUEST, cx.now + self.interval);
    }

    pub fn receive(&mut self, cx: &mut AgentCtx, id: PacketId) {
        let echo = cx.packets.get(id).echo_sent_at;
        cx.free(id);
        self.samples.push((cx.now, cx.now - echo));
        cx.stats.on_rtt_sample(cx.now - echo);
    }

    /// A request of this probe, or its reply, was dropped: one request lost (a dropped
    /// request has no reply to drop).
    pub fn on_drop(&mut self) {
        self.dropped += 1;
    }

    /// Requests lost: dropped, or whose reply was. Those still on their way at the end
    /// (sent - replies - lost) are not.
    pub fn lost(&self) -> u64 {
        self.dropped
    }
}

pub struct PingEcho {
    ep: Endpoint,
}

impl PingEcho {
    pub fn new(ep: Endpoint) -> Self {
        PingEcho { ep }
    }

    pub fn receive(&mut self, cx: &mut AgentCtx, id: PacketId) {
        let p = cx.packets.get(id);
        let (size, seq, sent_at, ce, dscp) = (p.size, p.seq, p.sent_at, p.ecn.ce, p.dscp);
        cx.free(id);
        if sent_at >= cx.stats.start {
            cx.stats.on_data_received(size, cx.now - sent_at, ce);
        }
        let mut reply = self.ep.packet(PacketKind::Udp, size);
        reply.seq = seq;
        reply.echo_sent_at = sent_at;
        // An echo reply carries the request's TOS (`icmp_reply`, net/ipv4/icmp.c:
        // inet->tos = ip_hdr(skb)->tos).
        reply.dscp = dscp;
        cx.send(reply);
    }
}

/// A tcp_rr probe (`kind = "tcp_rr"`): netperf's TCP_RR over two one-way TCP connections of
/// this simulator, a request flow (client to server) and a response flow (server to client).
/// The client writes a request; when the server's receiver has read all of it, the server
/// writes a response; when the client's receiver has read all of that, the transaction is
/// one RTT sample (from the request's write to the response's last packet read) and the
/// client writes the next request at once. A real TCP_RR runs both directions on one
/// connection, whose ACKs ride on the data; here each direction has its own ACKs, which
/// travel separately (the same count of packets on the path for 1-packet transactions with
/// delayed ACKs off: request, its ACK, response, its ACK).
#[derive(Debug, Clone)]
pub struct RrProbe {
    pub client_sender: AgentId,
    pub server_sink: AgentId,
    pub server_sender: AgentId,
    pub client_sink: AgentId,
    request_packets: u64,
    response_packets: u64,
    requests_read: u64,
    responses_read: u64,
    request_written_at: Time,
    /// (time the response was read, RTT).
    pub samples: Vec<(Time, Time)>,
}

impl RrProbe {
    /// The client writes its first request at `start`.
    pub fn new(
        request_flow_sender: AgentId,
        response_flow_sender: AgentId,
        request_packets: u64,
        response_packets: u64,
        start: Time,
    ) -> Self {
        RrProbe {
            client_sender: request_flow_sender,
            server_sink: request_flow_sender + 1,
            server_sender: response_flow_sender,
            client_sink: response_flow_sender + 1,
            request_packets,
            response_packets,
            requests_read: 0,
            responses_read: 0,
            request_written_at: start,
            samples: vec![],
        }
    }

    /// `agent` (one of the probe's receivers) has read `delivered` packets in order by
    /// `now`; returns the sender that must write more, and how many packets.
    pub fn on_delivery(
        &mut self,
        agent: AgentId,
        delivered: u64,
        now: Time,
    ) -> Option<(AgentId, u64)> {
        if agent == self.server_sink && delivered >= (self.requests_read + 1) * self.request_packets
        {
            self.requests_read += 1;
            return Some((self.server_sender, self.response_packets));
        }
        if agent == self.client_sink
            && delivered >= (self.responses_read + 1) * self.response_packets
        {
            self.responses_read += 1;
            self.samples.push((now, now - self.request_written_at));
            self.request_written_at = now;
            return Some((self.client_sender, self.request_packets));
        }
        None
    }

    /// Transactions lost: none, as TCP repairs every loss (a loss makes a transaction
    /// late, not lost). The one under way at the end (the client writes the next request as
    /// it reads a response) could not have been answered yet, and is not lost either.
    pub fn lost(&self) -> u64 {
        0
    }
}
