//! What the window-based controllers (reno, cubic, dctcp, prague) share about growth: the
//! `tcp.cwnd_growth` rule, Linux's count of packets acked (`snd_cwnd_cnt`,
//! `packet_counting.rs`), and the HyStart that runs their slow start when one is asked for:
//! RFC 9406's HyStart++ (`hystart.rs`) beside any of them, Linux's HyStart
//! (`hystart_linux.rs`, net/ipv4/tcp_cubic.c) beside CUBIC only. Off, a controller's growth
//! is exactly as without them.

use super::hystart::{HyStart, HystartKind, HystartParams};
use super::hystart_linux::LinuxHyStart;
use super::ops::{Acked, Window};
use super::packet_counting::AckedCount;
use super::CwndGrowth;
use crate::sim::Time;

#[derive(Debug, Clone)]
enum Hystart {
    Rfc9406(HyStart),
    /// Only beside CUBIC, whose minimum RTT it reads.
    Linux(LinuxHyStart),
}

#[derive(Debug, Clone)]
pub struct Growth {
    rule: CwndGrowth,
    /// Linux's `snd_cwnd_cnt` (`packets_acked` only).
    pub acked_count: AckedCount,
    /// None when no HyStart runs.
    hystart: Option<Hystart>,
}

impl Growth {
    /// `linux_hystart_ok`: the controller is CUBIC (Linux's HyStart is tcp_cubic.c's).
    pub fn new(rule: CwndGrowth, hystart: HystartParams, linux_hystart_ok: bool) -> Self {
        let hystart = match hystart.active() {
            Some(HystartKind::Rfc9406) => Some(Hystart::Rfc9406(HyStart::new())),
            Some(HystartKind::Linux) if linux_hystart_ok => {
                Some(Hystart::Linux(LinuxHyStart::default()))
            }
            Some(HystartKind::Linux) | None => None,
        };
        Growth {
            rule,
            acked_count: AckedCount::default(),
            hystart,
        }
    }

    pub fn rule(&self) -> CwndGrowth {
        self.rule
    }

    /// What the ACK is worth under `tcp.cwnd_growth`: the packets it newly acknowledges
    /// cumulatively (`per_ack`, ns-2) or newly delivers (`packets_acked`, Linux's
    /// `acked_sacked`).
    pub fn acked(&self, a: Acked) -> i64 {
        match self.rule {
            CwndGrowth::PerAck => a.newly_acked,
            CwndGrowth::PacketsAcked => a.delivered,
        }
    }

    /// HyStart++'s growth in Conservative Slow Start; true when it took the ACK (the
    /// controller's own growth is then skipped).
    #[inline]
    pub fn hystart_on_ack(&mut self, w: &mut Window, acked: i64) -> bool {
        match &mut self.hystart {
            Some(Hystart::Rfc9406(h)) => h.on_ack(&mut w.cwnd, &mut w.ssthresh, acked),
            _ => false,
        }
    }

    /// HyStart++'s rounds and delay test on an RTT sample.
    #[inline]
    pub fn on_rtt_sample(&mut self, rtt: Time, snd_una: i64, snd_nxt: i64) {
        if let Some(Hystart::Rfc9406(h)) = &mut self.hystart {
            h.on_rtt_sample(rtt, snd_una, snd_nxt);
        }
    }

    /// Linux's HyStart, when it runs.
    pub fn linux_mut(&mut self) -> Option<&mut LinuxHyStart> {
        match &mut self.hystart {
            Some(Hystart::Linux(h)) => Some(h),
            _ => None,
        }
    }

    /// A reduction: it ends HyStart++ and clears Linux's count of packets acked
    /// (`tcp_init_cwnd_reduction`, `tcp_enter_loss`).
    #[inline]
    pub fn on_reduction(&mut self) {
        if let Some(Hystart::Rfc9406(h)) = &mut self.hystart {
            h.on_congestion();
        }
        self.acked_count.clear();
    }

    /// HyStart++'s state, if it runs.
    pub fn hystart(&self) -> Option<&HyStart> {
        match &self.hystart {
            Some(Hystart::Rfc9406(h)) => Some(h),
            _ => None,
        }
    }

    /// Linux HyStart's state, if it runs.
    pub fn linux_hystart(&self) -> Option<&LinuxHyStart> {
        match &self.hystart {
            Some(Hystart::Linux(h)) => Some(h),
            _ => None,
        }
    }

    pub fn state(&self, out: &mut crate::sim::StateSink) {
        match &self.hystart {
            Some(Hystart::Rfc9406(h)) => h.state(out),
            Some(Hystart::Linux(h)) => h.state(out),
            None => {}
        }
    }
}
