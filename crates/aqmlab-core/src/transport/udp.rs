//! UDP sources and their sink.
//!
//! Sources (ns-2 Application/Traffic/CBR, Exponential; a Poisson source is an exponential
//! on/off source with no off time and exponential sizes):
//! - CBR: `rate` (bits/s), `packet_size` (bytes): one packet every size*8/rate seconds.
//! - Poisson: `packets_per_second`, packet sizes constant or exponential with mean
//!   `packet_size` (an M/M/1 arrival stream when sizes are exponential).
//! - On/off: exponential on and off periods of means `on_time`, `off_time`; during on
//!   periods, CBR at `rate` with `packet_size`.

use super::{AgentCtx, Endpoint};
use crate::net::{PacketId, PacketKind};
use crate::sim::{time, LazyTimer, RngStream, Time};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SizeDistribution {
    Constant,
    /// Exponential with the given mean, rounded to whole bytes, at least 1.
    Exponential,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UdpPattern {
    Cbr {
        interval: Time,
    },
    Poisson {
        mean_interval_s: f64,
        sizes: SizeDistribution,
    },
    OnOff {
        interval: Time,
        on_mean_s: f64,
        off_mean_s: f64,
    },
}

const NEXT_PACKET: u8 = 0;
const TOGGLE: u8 = 1;

pub struct UdpSource {
    ep: Endpoint,
    pattern: UdpPattern,
    packet_size: u32,
    rng: RngStream,
    next: LazyTimer,
    toggle: LazyTimer,
    on: bool,
    running: bool,
}

impl UdpSource {
    pub fn new(ep: Endpoint, pattern: UdpPattern, packet_size: u32, rng: RngStream) -> Self {
        UdpSource {
            ep,
            pattern,
            packet_size,
            rng,
            next: LazyTimer::new(),
            toggle: LazyTimer::new(),
            on: false,
            running: false,
        }
    }

    pub fn start(&mut self, cx: &mut AgentCtx) {
        self.running = true;
        match self.pattern {
            UdpPattern::OnOff { on_mean_s, .. } => {
                self.on = true;
                let d = time::from_secs_f64(self.rng.exponential(on_mean_s));
                cx.set_timer(&mut self.toggle, TOGGLE, cx.now + d);
                self.emit(cx);
            }
            _ => self.emit(cx),
        }
    }

    pub fn stop(&mut self, _cx: &mut AgentCtx) {
        self.running = false;
        self.next.cancel();
        self.toggle.cancel();
    }

    pub fn timer(&mut self, cx: &mut AgentCtx, which: u8) {
        if which == NEXT_PACKET {
            if cx.timer_expired(&mut self.next, NEXT_PACKET) && self.running {
                self.emit(cx);
            }
        } else if cx.timer_expired(&mut self.toggle, TOGGLE) && self.running {
            if let UdpPattern::OnOff {
                on_mean_s,
                off_mean_s,
                ..
            } = self.pattern
            {
                self.on = !self.on;
                let mean = if self.on { on_mean_s } else { off_mean_s };
                let d = time::from_secs_f64(self.rng.exponential(mean));
                cx.set_timer(&mut self.toggle, TOGGLE, cx.now + d);
                if self.on {
                    self.emit(cx);
                } else {
                    self.next.cancel();
                }
            }
        }
    }

    /// Sends one packet now and schedules the next.
    fn emit(&mut self, cx: &mut AgentCtx) {
        let (size, gap) = match self.pattern {
            UdpPattern::Cbr { interval } => (self.packet_size, interval),
            UdpPattern::OnOff { interval, .. } => (self.packet_size, interval),
            UdpPattern::Poisson {
                mean_interval_s,
                sizes,
            } => {
                let size = match sizes {
                    SizeDistribution::Constant => self.packet_size,
                    SizeDistribution::Exponential => {
                        (self.rng.exponential(self.packet_size as f64).round() as u32).max(1)
                    }
                };
                (
                    size,
                    time::from_secs_f64(self.rng.exponential(mean_interval_s)),
                )
            }
        };
        cx.stats.packets_sent += 1;
        cx.send(self.ep.packet(PacketKind::Udp, size));
        cx.set_timer(&mut self.next, NEXT_PACKET, cx.now + gap.max(1));
    }
}

pub struct UdpSink;

impl UdpSink {
    pub fn receive(&mut self, cx: &mut AgentCtx, id: PacketId) {
        let p = cx.packets.get(id);
        let (size, sent_at, ce) = (p.size, p.sent_at, p.ecn.ce);
        cx.free(id);
        // Only packets sent inside the measurement window count (as in the TCP sink).
        if sent_at >= cx.stats.start {
            cx.stats.on_data_received(size, cx.now - sent_at, ce);
            cx.stats.goodput_bytes += size as u64;
        }
    }
}
