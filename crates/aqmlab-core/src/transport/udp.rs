//! UDP sources and their sink.
//!
//! Sources (ns-2 Application/Traffic/CBR, Exponential; a Poisson source is an exponential
//! on/off source with no off time and exponential sizes):
//! - CBR: `rate` (bits/s), `packet_size` (bytes): one packet every size*8/rate seconds,
//!   exactly over the long run: each is sent at the first whole nanosecond at or after its
//!   exact time, the fraction carried to the next (`sim::time::RateClock`; rounding each gap
//!   up sent 4 Gb/s of a 6 Gb/s source of 1-byte packets, issue 24).
//! - Poisson: `packets_per_second`, packet sizes constant or exponential with mean
//!   `packet_size` (an M/M/1 arrival stream when sizes are exponential).
//! - On/off: exponential on and off periods of means `on_time`, `off_time`; during on
//!   periods, CBR at `rate` with `packet_size`.

use super::{AgentCtx, Endpoint};
use crate::net::{PacketId, PacketKind};
use crate::sim::{time, LazyTimer, RateClock, RngStream};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SizeDistribution {
    Constant,
    /// Exponential with the given mean, rounded to whole bytes, at least 1.
    Exponential,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UdpPattern {
    Cbr {
        rate_bps: u64,
    },
    Poisson {
        mean_interval_s: f64,
        sizes: SizeDistribution,
    },
    OnOff {
        rate_bps: u64,
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
    /// The exact time of the next packet at a constant rate (CBR, on/off).
    clock: RateClock,
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
            clock: RateClock::default(),
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
                self.emit(cx, false);
            }
            _ => self.emit(cx, false),
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
                self.emit(cx, true);
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
                    self.emit(cx, false);
                } else {
                    self.next.cancel();
                }
            }
        }
    }

    /// Sends one packet now and schedules the next. `chained`: this packet's exact time was
    /// the previous one's plus a gap (its timer fired), not the start of a period.
    fn emit(&mut self, cx: &mut AgentCtx, chained: bool) {
        let (size, next) = match self.pattern {
            UdpPattern::Cbr { rate_bps } | UdpPattern::OnOff { rate_bps, .. } => {
                let size = self.packet_size;
                (size, self.clock.next_end(cx.now, size, rate_bps, chained))
            }
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
                let gap = time::from_secs_f64(self.rng.exponential(mean_interval_s));
                (size, cx.now + gap.max(1))
            }
        };
        cx.stats.packets_sent += 1;
        cx.send(self.ep.packet(PacketKind::Udp, size));
        cx.set_timer(&mut self.next, NEXT_PACKET, next);
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
