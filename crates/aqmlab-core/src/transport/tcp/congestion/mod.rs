//! Congestion control: how the window grows on a new ACK and how far it shrinks on a
//! congestion signal, apart from how a sender detects and repairs losses. Each controller is
//! a small state machine in its own file; a sender holds one [`CongestionControl`] and calls
//! [`CongestionControl::on_ack`] and [`CongestionControl::reduce`] where ns-2's `tcp.cc`
//! calls `opencwnd` and `slowdown`.
//!
//! HyStart++ (RFC 9406, `hystart.rs`), when enabled, runs the first slow start of either
//! controller; it needs [`CongestionControl::on_rtt_sample`] on each ACK with an RTT sample.
//! Linux's HyStart (`hystart_linux.rs`) runs CUBIC's slow starts instead when asked for.
//! Off (always, for the ns-2 agents) the controllers are exactly as without them.
//!
//! How an ACK grows the window (`tcp.cwnd_growth`): once per ACK, as ns-2's `opencwnd`
//! (`per_ack`, the default), or by the packets it covers, as Linux (`packets_acked`,
//! `packet_counting.rs`).
//!
//! Windows are in packets: cwnd fractional, ssthresh whole, as in ns-2.

pub mod bbr;
pub mod cubic;
pub mod dctcp;
pub mod hystart;
pub mod hystart_linux;
pub mod minmax;
pub mod packet_counting;
pub mod prague;
pub mod reno;

pub use bbr::Bbr;
pub use cubic::{Cubic, CubicParams};
pub use dctcp::{Dctcp, DctcpParams};
pub use hystart::{HyStart, HystartKind, HystartParams};
pub use hystart_linux::LinuxHyStart;
pub use prague::{Prague, PragueParams};
pub use reno::Reno;

use crate::sim::Time;
use packet_counting::AckedCount;
use serde::{Deserialize, Serialize};

/// The controller a scenario asks for (`tcp.congestion_control`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CongestionControlKind {
    /// RFC 5681 slow start and congestion avoidance as ns-2's `opencwnd`/`slowdown` do them
    /// (the papers' TCP; the default).
    #[default]
    Reno,
    /// RFC 9438 CUBIC.
    Cubic,
    /// DCTCP (RFC 8257, Linux tcp_dctcp.c; `dctcp.rs`): Reno's growth, reductions by alpha / 2
    /// on the receiver's exact CE echo. Needs `recovery = "rfc6675"` and `ecn = true`.
    Dctcp,
    /// BBR v1 (draft-cardwell-iccrg-bbr-congestion-control-00, Linux tcp_bbr.c; `bbr.rs`):
    /// model-based, always paced; `recovery = "rfc6675"` only.
    Bbr,
    /// TCP Prague (draft-briscoe-iccrg-prague-congestion-control, RFC 9331 section 4.3,
    /// tcp_prague.c; `prague.rs`): ECT(1), DCTCP's alpha on the exact echo, RTT independence
    /// down to 25 ms, always paced. Needs `recovery = "rfc6675"` and `ecn = true`.
    Prague,
}

/// What an ECN echo does to the window ([`CongestionControl::on_ecn`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EcnCut {
    /// ssthresh = this (before the floor of 2), cwnd = ssthresh.
    Ssthresh(i64),
    /// cwnd = this fractional window (Prague), ssthresh its whole part.
    Window(f64),
    /// No cut this time (Prague within its reference RTT of the last cut).
    None,
}

/// What one new ACK is worth to the window (`tcp.cwnd_growth`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CwndGrowth {
    /// One increase per ACK however many packets it covers: one packet in slow start, 1/cwnd
    /// (Reno) or (target - cwnd) / cwnd (CUBIC, RFC 9438 4.4) in congestion avoidance, as
    /// ns-2's `opencwnd`; with delayed ACKs the window grows half as fast.
    #[default]
    PerAck,
    /// Every packet the ACK covers counts (Linux `tcp_slow_start`, `tcp_cong_avoid_ai`,
    /// net/ipv4/tcp_cong.c): slow start by the packets acked, congestion avoidance one packet
    /// per `w` packets acked (Reno w = cwnd, CUBIC `bictcp_update`'s `cnt`).
    PacketsAcked,
}

/// One sender's congestion controller, with HyStart if enabled.
#[derive(Debug, Clone)]
pub struct CongestionControl {
    law: Law,
    growth: CwndGrowth,
    /// Linux's `snd_cwnd_cnt` (`packets_acked` only).
    acked_count: AckedCount,
    /// None when no HyStart runs: on_ack is then the controller's alone.
    hystart: Option<Hystart>,
}

/// An enum, not a trait object: no allocation per flow.
#[derive(Debug, Clone)]
enum Law {
    Reno(Reno),
    Cubic(Cubic),
    Dctcp(Dctcp),
    /// Boxed: BBR's state is several times CUBIC's, and every sender would carry it.
    Bbr(Box<Bbr>),
    Prague(Prague),
}

#[derive(Debug, Clone)]
enum Hystart {
    Rfc9406(HyStart),
    /// Only beside CUBIC, whose minimum RTT it reads.
    Linux(LinuxHyStart),
}

impl CongestionControl {
    pub fn new(
        kind: CongestionControlKind,
        cubic: CubicParams,
        hystart: HystartParams,
        growth: CwndGrowth,
    ) -> Self {
        let law = match kind {
            CongestionControlKind::Reno => Law::Reno(Reno),
            CongestionControlKind::Cubic => Law::Cubic(Cubic::new(cubic)),
            CongestionControlKind::Dctcp => Law::Dctcp(Dctcp::new(&DctcpParams::default())),
            // The sender builds BBR with its packet size, window and random stream
            // (`CongestionControl::bbr`); this one is only a placeholder for a caller that
            // has none (the ns-2 agents refuse bbr in `TcpConfig::validate`).
            CongestionControlKind::Bbr => Law::Bbr(Box::new(Bbr::new(
                crate::sim::RngStream::new(0, crate::sim::StreamKind::Agent, 0),
                1040,
                10.0,
                0,
            ))),
            CongestionControlKind::Prague => Law::Prague(Prague::new(&PragueParams::default())),
        };
        if let Law::Bbr(_) = law {
            return CongestionControl {
                law,
                growth,
                acked_count: AckedCount::default(),
                hystart: None,
            };
        }
        let hystart = match (hystart.active(), &law) {
            (Some(HystartKind::Rfc9406), _) => Some(Hystart::Rfc9406(HyStart::new())),
            (Some(HystartKind::Linux), Law::Cubic(_)) => {
                Some(Hystart::Linux(LinuxHyStart::default()))
            }
            (
                Some(HystartKind::Linux),
                Law::Reno(_) | Law::Dctcp(_) | Law::Bbr(_) | Law::Prague(_),
            )
            | (None, _) => None,
        };
        CongestionControl {
            law,
            growth,
            acked_count: AckedCount::default(),
            hystart,
        }
    }

    /// The same controller with DCTCP's parameters (`tcp.dctcp`), for a DCTCP law.
    pub fn with_dctcp(mut self, p: &DctcpParams) -> Self {
        if let Law::Dctcp(d) = &mut self.law {
            *d = Dctcp::new(p);
        }
        self
    }

    /// BBR, which sets the window and the pacing rate on each ACK itself (no HyStart).
    pub fn bbr(bbr: Bbr) -> Self {
        CongestionControl {
            law: Law::Bbr(Box::new(bbr)),
            growth: CwndGrowth::PacketsAcked,
            acked_count: AckedCount::default(),
            hystart: None,
        }
    }

    /// BBR's state, when the controller is BBR (the sender drives it through this).
    pub fn bbr_mut(&mut self) -> Option<&mut Bbr> {
        match &mut self.law {
            Law::Bbr(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_bbr(&self) -> Option<&Bbr> {
        match &self.law {
            Law::Bbr(b) => Some(b),
            _ => None,
        }
    }

    /// The same controller with Prague's parameters (`tcp.prague`), for a Prague law.
    pub fn with_prague(mut self, p: &PragueParams) -> Self {
        if let Law::Prague(x) = &mut self.law {
            *x = Prague::new(p);
        }
        self
    }

    /// Whether an ACK's worth is every packet it delivers, whatever `cwnd_growth` says
    /// (Prague).
    pub fn counts_delivered(&self) -> bool {
        matches!(self.law, Law::Prague(_))
    }

    /// A new cumulative ACK of `acked` packets outside recovery, at `now`, with the current
    /// smoothed RTT `srtt` (0 before the first sample): grows `cwnd`. Only HyStart++ writes
    /// `ssthresh` here (= cwnd when it leaves Conservative Slow Start).
    #[inline]
    pub fn on_ack(
        &mut self,
        cwnd: &mut f64,
        ssthresh: &mut i64,
        acked: i64,
        now: Time,
        srtt: Time,
    ) {
        if let Some(Hystart::Rfc9406(h)) = &mut self.hystart {
            if h.on_ack(cwnd, ssthresh, acked) {
                return;
            }
        }
        match (&mut self.law, self.growth) {
            // DCTCP grows as Reno (Linux: `.cong_avoid = tcp_reno_cong_avoid`).
            (Law::Reno(_) | Law::Dctcp(_), CwndGrowth::PerAck) => Reno.on_ack(cwnd, *ssthresh),
            (Law::Cubic(c), CwndGrowth::PerAck) => c.on_ack(cwnd, *ssthresh, acked, now, srtt),
            (Law::Reno(_) | Law::Dctcp(_), CwndGrowth::PacketsAcked) => {
                Reno::on_ack_counted(cwnd, *ssthresh, acked, &mut self.acked_count)
            }
            (Law::Prague(p), _) => p.grow(cwnd, *ssthresh, acked),
            (Law::Cubic(c), CwndGrowth::PacketsAcked) => {
                c.on_ack_counted(cwnd, *ssthresh, acked, now, srtt, &mut self.acked_count)
            }
            // BBR sets cwnd in `Bbr::on_ack` (Linux's `cong_control` replaces cong_avoid).
            (Law::Bbr(_), _) => {}
        }
    }

    /// An ACK carried the RTT sample `rtt` at `now`: `snd_una` is the first packet not yet
    /// acknowledged after it, `snd_nxt` the next new packet to send (highest sent + 1), `cwnd`
    /// and `ssthresh` the sender's before this ACK grows the window. HyStart's rounds and
    /// delay tests, and CUBIC's minimum RTT (Linux `cubictcp_acked`); Linux's HyStart may set
    /// `ssthresh = cwnd`. Call it before [`Self::on_ack`] for the same ACK, also on ACKs that
    /// do not reach `on_ack` (in recovery, as Linux runs `cubictcp_acked` on every ACK).
    #[inline]
    pub fn on_rtt_sample(
        &mut self,
        rtt: Time,
        now: Time,
        (snd_una, snd_nxt): (i64, i64),
        cwnd: f64,
        ssthresh: &mut i64,
    ) {
        if let Some(Hystart::Rfc9406(h)) = &mut self.hystart {
            h.on_rtt_sample(rtt, snd_una, snd_nxt);
        }
        if let Law::Cubic(c) = &mut self.law {
            if let Some(delay_min) = c.on_rtt_sample(rtt, now) {
                if let Some(Hystart::Linux(h)) = &mut self.hystart {
                    h.on_rtt_sample(rtt, delay_min, now, snd_una, snd_nxt, cwnd, ssthresh);
                }
            }
        }
    }

    /// A congestion signal (fast retransmit, ECN echo, timeout) when `window` packets were
    /// usable: the window to fall back to, before ns-2's floors (ssthresh at least 2, cwnd at
    /// least 1) are applied by the sender. It ends HyStart++ and clears Linux's count of
    /// packets acked (`tcp_init_cwnd_reduction`, `tcp_enter_loss`).
    #[inline]
    pub fn reduce(&mut self, window: i64) -> i64 {
        if let Some(Hystart::Rfc9406(h)) = &mut self.hystart {
            h.on_congestion();
        }
        self.acked_count.clear();
        match &mut self.law {
            Law::Reno(_) => Reno::reduce(window),
            Law::Cubic(c) => c.reduce(window),
            Law::Dctcp(d) => d.reduce_on_loss(window),
            // `bbr_ssthresh` does not cut (the sender saves the window through `Bbr`).
            Law::Bbr(_) => window,
            // tcp_prague.c `prague_enter_loss`: half, as classic TCP.
            Law::Prague(_) => window / 2,
        }
    }

    /// Every ACK, in or out of recovery: the packets it newly delivers (cumulatively or by
    /// SACK), whether it carries ECE, and snd_una / snd_nxt after it. DCTCP's alpha counts
    /// them (`dctcp.rs`); nothing for the other laws.
    #[inline]
    pub fn on_ack_ecn(&mut self, delivered: i64, ece: bool, (snd_una, snd_nxt): (i64, i64)) {
        match &mut self.law {
            Law::Dctcp(d) => {
                d.est.on_ack(delivered, ece, snd_una, snd_nxt);
            }
            Law::Reno(_) | Law::Cubic(_) | Law::Bbr(_) | Law::Prague(_) => {}
        }
    }

    /// The same ACK, after the sender's ECN response: Prague ends its rounds and updates
    /// alpha here, after a cut on this ACK (Linux: `tcp_fastretrans_alert` enters CWR,
    /// `prague_enter_cwr`, before `tcp_cong_control` calls `prague_cong_control`, which updates
    /// alpha); DCTCP's alpha is updated before the cut (`tcp_in_ack_event` comes first).
    #[inline]
    pub fn after_ecn_response(
        &mut self,
        delivered: i64,
        ece: bool,
        (snd_una, snd_nxt): (i64, i64),
        now: Time,
        srtt: Time,
        slow_start: bool,
    ) {
        if let Law::Prague(p) = &mut self.law {
            p.on_ack(delivered, ece, (snd_una, snd_nxt), now, srtt, slow_start);
        }
    }

    /// An ECN echo the sender acts on (at most once per window of data): `window` is the
    /// sender's reduction base, `cwnd` its window, `slow_start` whether cwnd < ssthresh.
    pub fn on_ecn(&mut self, window: i64, cwnd: f64, now: Time, slow_start: bool) -> EcnCut {
        if let Law::Prague(p) = &mut self.law {
            let cut = p.on_ecn(cwnd, now, slow_start);
            if cut.is_some() {
                self.acked_count.clear();
                if let Some(Hystart::Rfc9406(h)) = &mut self.hystart {
                    h.on_congestion();
                }
            }
            return cut.map_or(EcnCut::None, EcnCut::Window);
        }
        EcnCut::Ssthresh(self.reduce_on_ecn(window))
    }

    /// An ECN echo (at most once per window, the sender decides) when `window` packets were
    /// usable: DCTCP's window x (1 - alpha / 2); the other laws reduce as for a loss
    /// ([`Self::reduce`], RFC 3168 section 6.1.2).
    #[inline]
    pub fn reduce_on_ecn(&mut self, window: i64) -> i64 {
        if let Law::Dctcp(d) = &self.law {
            let w = d.reduce_on_ecn(window);
            if let Some(Hystart::Rfc9406(h)) = &mut self.hystart {
                h.on_congestion();
            }
            self.acked_count.clear();
            return w;
        }
        self.reduce(window)
    }

    /// A retransmission timeout at `now`, after its [`Self::reduce`], with `snd_nxt` the next
    /// new packet: Linux CUBIC's `cubictcp_state(TCP_CA_Loss)` (`cubic.state_on_rto`, and
    /// Linux's HyStart searching again); nothing otherwise.
    pub fn on_timeout(&mut self, now: Time, snd_nxt: i64) {
        if let Law::Cubic(c) = &mut self.law {
            c.on_timeout();
        }
        if let Some(Hystart::Linux(h)) = &mut self.hystart {
            h.on_timeout(now, snd_nxt);
        }
    }

    /// Whether the controller paces whatever `tcp.pacing` says (bbr).
    pub fn always_paces(&self) -> bool {
        // tcp_bbr.c and tcp_prague.c `prague_init`: `SK_PACING_NEEDED`.
        matches!(self.law, Law::Bbr(_) | Law::Prague(_))
    }

    /// The controller's own pacing rate in bytes (of wire size) per second, if it sets one;
    /// None = the sender's rule (Linux `tcp_update_pacing_rate`, `pacing.rs`).
    pub fn pacing_rate(&self, inputs: &super::pacing::PacingInputs) -> Option<f64> {
        match &self.law {
            Law::Bbr(b) => Some(b.pacing_rate()),
            Law::Prague(_) => Prague::pacing_rate(
                inputs.cwnd,
                inputs.ssthresh,
                inputs.packets_out,
                inputs.srtt,
                inputs.packet_bytes,
            ),
            _ => None,
        }
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

    /// Variables for the time series (none for Reno: cwnd and ssthresh say it all).
    pub fn state(&self, out: &mut crate::sim::StateSink) {
        match &self.law {
            Law::Cubic(c) => c.state(out),
            Law::Dctcp(d) => out("dctcp_alpha", d.est.alpha()),
            Law::Bbr(b) => b.state(out),
            Law::Prague(p) => out("dctcp_alpha", p.alpha()),
            Law::Reno(_) => {}
        }
        match &self.hystart {
            Some(Hystart::Rfc9406(h)) => h.state(out),
            Some(Hystart::Linux(h)) => h.state(out),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::hystart::Phase;
    use super::*;

    const MS: Time = 1_000_000;

    fn fnv(h: u64, x: u64) -> u64 {
        x.to_le_bytes().iter().fold(h, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }

    /// A fixed sequence of ACKs (1 or 2 packets, varying gaps and srtt), fast retransmits and
    /// one timeout, as a sender applies them; returns a hash of every (cwnd, ssthresh) and
    /// the cwnd sequence.
    fn drive(
        on_ack: &mut dyn FnMut(&mut f64, &mut i64, i64, Time, Time),
        reduce: &mut dyn FnMut(i64) -> i64,
    ) -> (u64, Vec<f64>) {
        let mut cwnd = 2.0f64;
        let mut ssthresh: i64 = 40;
        let mut now: Time = 0;
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        let mut seq = vec![];
        for i in 0..6000u64 {
            now += 1_000_000 + (i * 7919 % 13) * 100_000;
            let srtt = if i < 3 {
                0
            } else {
                50_000_000 + (i % 17) * 1_000_000
            };
            let acked = 1 + (i % 3 == 0) as i64;
            if i % 997 == 500 || i % 1499 == 1000 {
                ssthresh = reduce(cwnd as i64).max(2);
                cwnd = ssthresh as f64;
            } else if i == 3001 {
                ssthresh = reduce(cwnd as i64).max(2);
                cwnd = 1.0;
            } else {
                on_ack(&mut cwnd, &mut ssthresh, acked, now, srtt);
            }
            h = fnv(h, cwnd.to_bits());
            h = fnv(h, ssthresh as u64);
            seq.push(cwnd);
        }
        (h, seq)
    }

    #[test]
    fn without_hystart_the_window_sequence_is_unchanged() {
        // RFC 9406 is an option: off, on_ack and reduce are the controllers' own, bit for
        // bit. The hashes were recorded with the API before HyStart++ (on_ack taking
        // ssthresh by value), on the same sequence.
        for (kind, recorded) in [
            (CongestionControlKind::Reno, 0x3d47_3a2b_c388_d583),
            (CongestionControlKind::Cubic, 0x00de_b448_6493_fba8),
        ] {
            let cc = std::cell::RefCell::new(CongestionControl::new(
                kind,
                CubicParams::default(),
                HystartParams::default(),
                CwndGrowth::PerAck,
            ));
            let (hash, got) = drive(
                &mut |w, s, a, n, r| {
                    // RTT samples must change nothing when HyStart++ is off.
                    cc.borrow_mut().on_rtt_sample(300 * MS, n, (0, 1), *w, s);
                    cc.borrow_mut().on_ack(w, s, a, n, r)
                },
                &mut |w| cc.borrow_mut().reduce(w),
            );
            assert_eq!(hash, recorded, "{kind:?}: got {hash:#018x}");
            assert!(cc.borrow().hystart().is_none());
            // The same as the controller alone.
            let want = match kind {
                CongestionControlKind::Reno => {
                    let mut r = Reno;
                    drive(&mut |w, s, _, _, _| r.on_ack(w, *s), &mut Reno::reduce).1
                }
                CongestionControlKind::Cubic => {
                    let c = std::cell::RefCell::new(Cubic::new(CubicParams::default()));
                    drive(
                        &mut |w, s, a, n, r| c.borrow_mut().on_ack(w, *s, a, n, r),
                        &mut |w| c.borrow_mut().reduce(w),
                    )
                    .1
                }
                CongestionControlKind::Dctcp
                | CongestionControlKind::Bbr
                | CongestionControlKind::Prague => {
                    unreachable!("not in this test")
                }
            };
            assert!(
                got.iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "{kind:?}"
            );
            // The sequence covers slow start, congestion avoidance and reductions.
            assert!(got.iter().any(|&w| w > 40.0) && got.contains(&1.0));
        }
    }

    #[test]
    fn cubic_after_a_hystart_exit_starts_its_first_epoch_at_cwnd() {
        // RFC 9406 section 4.2 (CSS ends after CSS_ROUNDS rounds with ssthresh = cwnd) with
        // RFC 9438 section 4.10: no W_max yet, so W_max = cwnd and K = 0.
        let mut cc = CongestionControl::new(
            CongestionControlKind::Cubic,
            CubicParams::default(),
            HystartParams::RFC9406,
            CwndGrowth::PerAck,
        );
        let (mut cwnd, mut ssthresh) = (10.0, 1_i64 << 20);
        let (mut una, mut nxt, mut now) = (0_i64, 10_i64, 0);
        let mut round = 0;
        let mut window_end = 0;
        while cc.hystart().unwrap().phase() != Phase::Over {
            una += 1;
            if una > window_end {
                round += 1;
                window_end = nxt;
            }
            now += MS;
            // 50 ms for two rounds, then 60 ms: CSS from the third round's 8th sample.
            let rtt = if round <= 2 { 50 * MS } else { 60 * MS };
            cc.on_rtt_sample(rtt, now, (una, nxt), cwnd, &mut ssthresh);
            cc.on_ack(&mut cwnd, &mut ssthresh, 1, now, rtt);
            nxt = nxt.max(una + cwnd as i64);
            assert!(round < 20, "CSS must end");
        }
        assert_eq!(round, 3 + 5, "entered in round 3, five round ends later");
        assert!(ssthresh < 1 << 20 && cwnd >= ssthresh as f64);
        let mut out = vec![];
        cc.state(&mut |k, v| out.push((k.to_string(), v)));
        let get = |name: &str| out.iter().find(|(k, _)| k == name).unwrap().1;
        // The epoch began on the exiting ACK, at the window before that ACK's growth.
        assert!(get("cubic_w_max") >= ssthresh as f64 && get("cubic_w_max") <= cwnd);
        assert_eq!(get("cubic_k_s"), 0.0);
        assert_eq!(get("hystart_phase"), 2.0);
        // A loss now is CUBIC's plain reduction.
        assert_eq!(cc.reduce(100), 70);
    }

    #[test]
    fn linux_hystart_runs_beside_cubic_on_its_delay_min_and_not_with_reno() {
        // net/ipv4/tcp_cubic.c: cubictcp_acked updates delay_min, then hystart_update; Linux's
        // Reno (tcp_cong.c) has no HyStart.
        let linux = HystartParams {
            enabled: None,
            kind: Some(HystartKind::Linux),
        };
        let reno = CongestionControl::new(
            CongestionControlKind::Reno,
            CubicParams::default(),
            linux,
            CwndGrowth::PacketsAcked,
        );
        assert!(reno.linux_hystart().is_none() && reno.hystart().is_none());
        let mut cc = CongestionControl::new(
            CongestionControlKind::Cubic,
            CubicParams::default(),
            linux,
            CwndGrowth::PacketsAcked,
        );
        let (mut cwnd, mut ssthresh) = (20.0, 1_i64 << 20);
        // Samples 10 ms apart (no ACK train). The first, at 40 ms, sets delay_min and is a
        // round of its own (end_seq 2); the next ACK (snd_una 5 > 2) starts a round whose
        // samples are 46 ms > 40 + 5: found on its 9th sample, the 10th ACK, after 9 ACKs of
        // two packets: ssthresh = cwnd = 20 + 18 = 38, no cut.
        let mut now = 0;
        for i in 0..10 {
            now += 10 * MS;
            let (rtt, edges) = if i == 0 {
                (40 * MS, (1, 2))
            } else {
                (46 * MS, (3 + 2 * i, 1000))
            };
            cc.on_rtt_sample(rtt, now, edges, cwnd, &mut ssthresh);
            if ssthresh < 1 << 20 {
                assert_eq!(i, 9);
                break;
            }
            cc.on_ack(&mut cwnd, &mut ssthresh, 2, now, rtt);
        }
        assert!(cc.linux_hystart().unwrap().found());
        assert_eq!((cwnd, ssthresh), (38.0, 38));
        // The next ACK is congestion avoidance: CUBIC's first epoch (no W_max) from 38.
        cc.on_ack(&mut cwnd, &mut ssthresh, 2, now, 46 * MS);
        let mut out = vec![];
        cc.state(&mut |k, v| out.push((k.to_string(), v)));
        assert!(out.contains(&("cubic_w_max".to_string(), 38.0)));
        assert!(out.contains(&("hystart_phase".to_string(), 2.0)));
        // An RTO (cubictcp_state, TCP_CA_Loss): HyStart searches again.
        cc.reduce(38);
        cc.on_timeout(now, 2000);
        assert!(!cc.linux_hystart().unwrap().found());
    }

    #[test]
    fn packets_acked_slow_start_doubles_per_round_under_delayed_acks() {
        // net/ipv4/tcp_cong.c, tcp_slow_start: 10 packets acked two at a time give 10 more,
        // where ns-2's one per ACK gives 5.
        for (growth, want) in [(CwndGrowth::PacketsAcked, 20.0), (CwndGrowth::PerAck, 15.0)] {
            for kind in [CongestionControlKind::Reno, CongestionControlKind::Cubic] {
                let mut cc = CongestionControl::new(
                    kind,
                    CubicParams::default(),
                    HystartParams::default(),
                    growth,
                );
                let (mut cwnd, mut ssthresh) = (10.0, 1_i64 << 20);
                for _ in 0..5 {
                    cc.on_ack(&mut cwnd, &mut ssthresh, 2, 0, 0);
                }
                assert_eq!(cwnd, want, "{kind:?} {growth:?}");
            }
        }
    }
}
