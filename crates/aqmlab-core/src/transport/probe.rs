//! The ping probe's agents (`scenario/probe.rs`): a source that sends a request every
//! `interval` and an echo that returns each request at once, as ICMP echo does. The reply
//! carries the request's send time (`echo_sent_at`), so each reply is one RTT sample:
//! now - that time, recorded by the source with the time the reply arrived. A lost request
//! or reply is a missing sample (counted in `lost` at the end: sent - received), as `ping`
//! reports it.

use super::{AgentCtx, Endpoint};
use crate::net::{PacketId, PacketKind};
use crate::sim::{LazyTimer, Time};

const NEXT_REQUEST: u8 = 0;

pub struct PingSource {
    ep: Endpoint,
    interval: Time,
    packet_size: u32,
    next: LazyTimer,
    running: bool,
    sent: u64,
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

    /// Requests sent whose reply never came (lost, or still on its way at the end).
    pub fn lost(&self) -> u64 {
        self.sent - self.samples.len() as u64
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
        let (size, seq, sent_at, ce) = (p.size, p.seq, p.sent_at, p.ecn.ce);
        cx.free(id);
        if sent_at >= cx.stats.start {
            cx.stats.on_data_received(size, cx.now - sent_at, ce);
        }
        let mut reply = self.ep.packet(PacketKind::Udp, size);
        reply.seq = seq;
        reply.echo_sent_at = sent_at;
        cx.send(reply);
    }
}
