//! TCP Prague: DCTCP's scalable response made fit for the Internet, the L4S sender of RFC 9331.
//!
//! Sources: draft-briscoe-iccrg-prague-congestion-control (the algorithm and its defaults);
//! RFC 9331 section 4.3 (the "Prague requirements" an L4S sender must meet: ECT(1), accurate
//! ECN feedback, a scalable response, fall-back to classic on loss, RTT independence down to a
//! reference RTT, no large bursts); and the L4S team's Linux module `net/ipv4/tcp_prague.c`
//! (version 0.7, L4STeam/linux commit 893e1479793e, read for the choices the draft leaves
//! open). Facts taken, code not.
//!
//! What is modelled, and from where:
//! - ECT(1) on every data packet (RFC 9331 section 4.1; tcp_prague.c `TCP_CONG_WANTS_ECT_1`):
//!   `TcpConfig::sends_ect1` is true for prague whatever `ecn_codepoint` says.
//! - Feedback: by default the receiver's exact per-ACK CE echo (`sink.rs`, as for DCTCP)
//!   stands in for Accurate ECN (RFC 9768), which Prague requires (`TCP_CONG_NEEDS_ACCECN`):
//!   each ACK tells which of the packets it covers were marked; `tcp.ecn_feedback =
//!   "accecn"` runs AccECN itself (`accecn.rs`), its decoded CE count the `delivered_ce`
//!   `on_ack` adds up (tcp_prague.c reads `tp->delivered_ce`).
//! - alpha (`prague_update_alpha`): the DCTCP EWMA with g = 1/16 (`PRAGUE_SHIFT_G`) over a
//!   round (snd_una past the snd_nxt of the round's start, `prague_e2e_rtt_elapsed`); once RTT
//!   independent, a round also lasts at least `rtt_target` since the last update
//!   (`prague_should_update_ewma`), the counts accumulating. alpha starts at 0 and is not
//!   updated before the first CE (`saw_ce`); the first CE halves the window instead
//!   (`prague_alpha_mode = 0`, "Half cwnd at 1st mark": `frac_cwnd = (frac_cwnd + 1) >> 1`).
//! - Reduction on ECE (`prague_enter_cwr`, on entering CWR: at most once per round trip, the
//!   sender's `ecn_recover`): cwnd -= alpha x cwnd / 2 on a fractional window (no rounding to
//!   whole packets: tcp_prague.c keeps `frac_cwnd` in 2^-20 packets, so a small alpha still
//!   reduces); once RTT independent, not again within `rtt_target` of the last cut.
//! - Additive increase (`prague_update_cwnd`, `prague_ai_ack_increase`): only for the packets
//!   an ACK delivers unmarked (`acked -= ece_delta`; with the exact echo an ACK's packets are
//!   all marked or all not), each adding `ai / cwnd`; also during the round after a cut
//!   (Prague grows in CWR, DCTCP does not), never in loss recovery. RTT independence, the
//!   mode tcp_prague.c calls "rate-scaled" (`prague_rate_scaled_ai_ack_increase`, its only
//!   mode in 0.7, the draft's section on RTT independence): after `rtt_transition` (4) rounds
//!   out of slow start (`prague_is_rtt_indep`), with srtt below `rtt_target` (25 ms), ai =
//!   (srtt / rtt_target)^2 instead of 1, so that the rate (cwnd / srtt) grows by one packet per
//!   rtt_target per rtt_target, as a flow of RTT rtt_target would; srtt above 100 ms
//!   (`MAX_SCALED_RTT`) or before the transition: ai = 1. Slow start: Linux `tcp_slow_start`
//!   by the packets acked.
//! - Loss (`prague_enter_loss`, from `prague_state(TCP_CA_Recovery)` and `CA_EVENT_LOSS`):
//!   half the window, as classic TCP (RFC 9331 section 4.3's fall-back).
//! - Without ECN (the handshake did not agree to it): `prague_reno`, Reno's ssthresh and
//!   growth, Not-ECT, no pacing need (`prague_init`, `prague_release`).
//! - Pacing: Prague always paces (`SK_PACING_NEEDED`), at `prague_update_pacing_rate`'s rate:
//!   packet size x max(cwnd, packets in flight) / srtt, doubled while cwnd < ssthresh / 2, at
//!   least 12500 B/s (`MINIMUM_RATE`); 100 % in congestion avoidance, where Linux's default
//!   rule (`tcp_update_pacing_rate`) uses 120 %.
//!
//! Earlier versions, each choice a named parameter (docs/readings.md, "TCP Prague's versions"):
//! `rtt_scaling` (v0.5 and v0.6 `prague_rtt_scaling`: `rate`, the default and v0.7's only
//! mode, `none`, v0.5's default, `scalable`, `additive`), `alpha_start` (v0.5/v0.6 start
//! alpha at 1, v0.7's `prague_alpha_mode` 0 at 0 with the first mark halving), `classic_ecn`
//! (v0.5/v0.6 `prague_ecn_fallback`, `prague_classic_ecn.rs`). v0.5 and v0.6 measure srtt in
//! 128 us units for the scaling (`RTT_UNIT 7`); here it is exact, as v0.7's.
//!
//! Not modelled (named so that nobody takes them for present): tcp_prague.c's rate-based
//! window mode below 4 packets (`prague_cwnd_mode`, `cwnd_mode = 1`) with its +/- 3 % pacing
//! variation per round, the MTU reduction below 2 packets, the GSO burst limit (aqmlab sends
//! single packets), `prague_cwnd_undo`, and the step-wise (one packet per ACK) walk of
//! `snd_cwnd` toward the fractional window: here the sender's window is set at once, to the
//! fractional window (`window_rounding = "floor"`, default) or to its ceiling ("ceil",
//! `prague_frac_cwnd_to_snd_cwnd`). The additive increase is one packet per round trip
//! (`ai_unit = "packet"`, default) or 1500 bytes' worth ("mtu_sys", `prague_update_cwnd`'s
//! `MTU_SYS / mtu`). v0.7 is a `cong_control` module (no PRR for it in Linux); here it is a
//! `cong_avoid` controller whose ECN cut is applied in `set_state(CWR)` and whose loss cut is
//! the core's (docs/readings.md, "TCP Prague's increase unit and window rounding").

use super::growth::Growth;
use super::ops::{AckEvent, Acked, CaState, CongestionOps, Signal, StateCtx, Window};
use super::prague_classic_ecn::ClassicEcnDetector;
pub use super::prague_classic_ecn::ClassicEcnMode;
use super::reno::reno_cong_avoid;
use super::ControllerConfig;
use crate::sim::Time;
use crate::transport::tcp::pacing::PacingInputs;
use crate::units::Duration;
use serde::{Deserialize, Serialize};

/// What one round trip's additive increase is worth (`tcp.prague.ai_unit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AiUnit {
    /// One packet per round trip, whatever its size (draft-briscoe-iccrg-prague-congestion-
    /// control's "1 segment"; aqmlab's reading before issue 37).
    #[default]
    Packet,
    /// 1500 bytes per round trip: tcp_prague.c v0.7 `prague_update_cwnd` scales the increase
    /// by `MTU_SYS / tcp_mss_to_mtu(mss_cache)` (MTU_SYS = 1500), so a flow of smaller
    /// packets grows by more packets: 1500 / 1040 = 1.44 at aqmlab's default packet size.
    MtuSys,
}

/// How the fractional window becomes the sender's window (`tcp.prague.window_rounding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowRounding {
    /// The sender's window is the fractional window, which it floors when it sends (aqmlab's
    /// reading before issue 37).
    #[default]
    Floor,
    /// The sender's window is the fractional window rounded up, at least 2: tcp_prague.c v0.7
    /// `prague_frac_cwnd_to_snd_cwnd` (`(frac_cwnd + ONE_CWND - 1) >> CWND_UNIT`, at least
    /// `MIN_CWND_RTT`); the fractional window stays Prague's own (`frac_cwnd`).
    Ceil,
}

/// How Prague makes its increase RTT independent (`tcp.prague.rtt_scaling`; tcp_prague.c
/// v0.5 and v0.6 `prague_rtt_scaling`, `RTT_CONTROL_*`, `rtt_scaling_heuristics`; v0.7 keeps
/// only `rate`, built in). Each applies after `rtt_transition` rounds out of slow start, with
/// srtt at most 100 ms (`MAX_SCALED_RTT`); then alpha is updated and the window cut at most
/// once per target (`prague_target_rtt_elapsed`, `prague_enter_cwr`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RttScaling {
    /// `RTT_CONTROL_RATE` (`prague_rate_scaled_ai_ack_increase`): ai = (srtt / target)^2
    /// below the target, 1 above: a flow's rate grows as a flow of RTT `rtt_target` would
    /// (v0.6's default, v0.7's only mode).
    #[default]
    Rate,
    /// `RTT_CONTROL_NONE`: ai = 1, alpha updated every round, a cut per round trip (v0.5's
    /// default, the Prague heistp/l4s-tests ran).
    None,
    /// `RTT_CONTROL_SCALABLE` (`prague_scalable_ai_ack_increase`): ai = (R0 / 8 +
    /// clamp(srtt - R1, 0, R0)) x srtt / R0^2 with R0 = 16.384 ms, R1 = 1.536 ms: "one mark
    /// every 8 RTT" at least; not capped at 1 above R0.
    Scalable,
    /// `RTT_CONTROL_ADDITIVE` (`prague_dynamic_rtt_target`): the rate scaling toward a
    /// target of `rtt_target` + srtt, as if the path had `rtt_target` more delay; the alpha
    /// and cut spacing use that target too.
    Additive,
}

/// Where alpha starts (`tcp.prague.alpha_start`; v0.7 `prague_alpha_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AlphaStart {
    /// v0.7 `prague_alpha_mode = 0`, "Half cwnd at 1st mark": alpha 0, the first CE halves.
    #[default]
    HalfAtFirstMark,
    /// v0.5 and v0.6 (`upscaled_alpha = PRAGUE_MAX_ALPHA << PRAGUE_SHIFT_G` in
    /// `prague_init`), v0.7 `prague_alpha_mode = 1`: alpha 1, so the first CE halves and the
    /// EWMA then decays from 1 (g = 1/16), several large cuts before it settles.
    One,
    /// The 2019 module (L4STeam/linux, dboru/linux 696e94e354ac: alpha 0 in `prague_init`, no
    /// first-mark rule): the first marks cut by alpha / 2 = 0 until the EWMA has grown.
    Zero,
}

/// Prague's parameters (`tcp.prague`).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct PragueParams {
    /// The reference RTT down to which Prague is RTT independent (draft's default and
    /// tcp_prague.c `RTT_TARGET`: 25 ms).
    pub rtt_target: Duration,
    /// Rounds out of slow start before the RTT independence starts (tcp_prague.c
    /// `DEFAULT_RTT_TRANSITION`: 4).
    pub rtt_transition: u32,
    /// The additive increase's unit: `packet` (default) | `mtu_sys` (tcp_prague.c v0.7).
    pub ai_unit: AiUnit,
    /// The sender's window from the fractional one: `floor` (default) | `ceil` (tcp_prague.c
    /// v0.7).
    pub window_rounding: WindowRounding,
    /// RTT independence: `rate` (default) | `none` | `scalable` | `additive`.
    pub rtt_scaling: RttScaling,
    /// alpha's start: `half_at_first_mark` (default, v0.7) | `one` (v0.5, v0.6) | `zero` (2019).
    pub alpha_start: AlphaStart,
    /// Classic ECN bottleneck detection (`prague_classic_ecn.rs`): `off` (default) |
    /// `fallback` | `detect` (v0.5 and v0.6 `prague_ecn_fallback` 0 | 1 | 2).
    pub classic_ecn: ClassicEcnMode,
}

impl Default for PragueParams {
    fn default() -> Self {
        PragueParams {
            rtt_target: Duration(25_000_000),
            rtt_transition: 4,
            ai_unit: AiUnit::Packet,
            window_rounding: WindowRounding::Floor,
            rtt_scaling: RttScaling::Rate,
            alpha_start: AlphaStart::HalfAtFirstMark,
            classic_ecn: ClassicEcnMode::Off,
        }
    }
}

impl PragueParams {
    pub fn validate(&self, path: &str) -> Result<(), crate::units::ScenarioError> {
        if self.rtt_target.0 == 0 {
            return Err(crate::units::ScenarioError::new(
                format!("{path}.rtt_target"),
                "must be > 0",
            ));
        }
        Ok(())
    }
}

/// tcp_prague.c `MTU_SYS`: the packet size the additive increase is scaled to.
pub const MTU_SYS: f64 = 1500.0;

/// Above this srtt the increase is not scaled (tcp_prague.c `MAX_SCALED_RTT`, 100 ms).
const MAX_SCALED_RTT: Time = 100_000_000;
/// `prague_scalable_ai_ack_increase`'s R0 (2^14 us) and R1 (1536 us).
const SCALABLE_R0: f64 = 16_384_000.0;
const SCALABLE_R1: f64 = 1_536_000.0;
/// tcp_prague.c `PRAGUE_SHIFT_G`: g = 1/16.
const G: f64 = 1.0 / 16.0;
/// The smallest window (tcp_prague.c `MIN_CWND_RTT`).
pub const MIN_CWND: f64 = 2.0;
/// The lowest pacing rate, bytes per second (tcp_prague.c `MINIMUM_RATE`, 100 kb/s).
pub const MINIMUM_RATE: f64 = 12_500.0;

#[derive(Debug, Clone)]
pub struct Prague {
    p: PragueParams,
    alpha: f64,
    saw_ce: bool,
    /// The round ends when snd_una reaches this (`next_seq`).
    round_end: i64,
    acked: i64,
    acked_ce: i64,
    /// Rounds since slow start ended (`round`).
    round: u32,
    alpha_stamp: Time,
    cwr_stamp: Option<Time>,
    /// The additive increase per unmarked packet acked, times cwnd (`ai_ack_increase`).
    ai: f64,
    /// `ai_unit`'s factor: 1, or MTU_SYS over the packet size.
    ai_scale: f64,
    /// Classic ECN detection, unless `classic_ecn = "off"`.
    detector: Option<ClassicEcnDetector>,
}

impl Prague {
    /// Prague for packets of `packet_bytes` on the wire (`tcp_mss_to_mtu(mss_cache)`).
    pub fn with_packet_bytes(p: &PragueParams, packet_bytes: u32) -> Self {
        let ai_scale = match p.ai_unit {
            AiUnit::Packet => 1.0,
            AiUnit::MtuSys => MTU_SYS / packet_bytes.max(1) as f64,
        };
        Prague {
            ai_scale,
            ..Prague::new(p)
        }
    }

    pub fn new(p: &PragueParams) -> Self {
        Prague {
            p: *p,
            alpha: match p.alpha_start {
                AlphaStart::HalfAtFirstMark | AlphaStart::Zero => 0.0,
                AlphaStart::One => 1.0,
            },
            saw_ce: false,
            round_end: 0,
            acked: 0,
            acked_ce: 0,
            round: 0,
            alpha_stamp: 0,
            cwr_stamp: None,
            ai: 1.0,
            ai_scale: 1.0,
            detector: (p.classic_ecn != ClassicEcnMode::Off).then(ClassicEcnDetector::default),
        }
    }

    /// The classic ECN detector's state (None when `classic_ecn = "off"`).
    pub fn classic_ecn(&self) -> Option<f64> {
        self.detector.as_ref().map(|d| d.classic_ecn())
    }

    /// `prague_init` after the handshake: the detector starts from its srtt.
    fn init(&mut self, srtt: Time, min_rtt: Option<Time>) {
        if let Some(d) = self.detector.as_mut() {
            *d = ClassicEcnDetector::new(srtt / 1000);
            if let Some(m) = min_rtt {
                d.note_min_rtt(m / 1000);
            }
        }
    }

    /// `prague_pkts_acked`: an RTT sample.
    fn on_rtt_sample(&mut self, rtt: Time) {
        if let Some(d) = self.detector.as_mut() {
            d.on_rtt_sample(rtt / 1000);
        }
    }

    /// `prague_ssthresh` (`prague_update_rtt_scaling`), with the ssthresh being replaced.
    fn on_reduction(&mut self, ssthresh: i64) {
        if let Some(d) = self.detector.as_mut() {
            d.on_reduction(ssthresh);
        }
    }

    /// The target the spacing of alpha updates and cuts uses (`prague_target_rtt`).
    fn target(&self, srtt: Time) -> Time {
        match self.p.rtt_scaling {
            RttScaling::Additive => self.p.rtt_target.0 + srtt,
            _ => self.p.rtt_target.0,
        }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// RTT independent: out of slow start for `rtt_transition` rounds (`prague_is_rtt_indep`).
    pub fn rtt_independent(&self, slow_start: bool) -> bool {
        self.p.rtt_scaling != RttScaling::None && !slow_start && self.round >= self.p.rtt_transition
    }

    /// `prague_ai_ack_increase`, at the start of each round.
    fn update_ai(&mut self, srtt: Time) {
        let unscaled = self.p.rtt_scaling == RttScaling::None
            || self.round < self.p.rtt_transition
            || srtt == 0
            || srtt > MAX_SCALED_RTT;
        let r = srtt as f64;
        self.ai = match self.p.rtt_scaling {
            _ if unscaled => 1.0,
            RttScaling::Rate | RttScaling::Additive => {
                let t = self.target(srtt) as f64;
                if r >= t {
                    1.0
                } else {
                    (r / t) * (r / t)
                }
            }
            RttScaling::Scalable => {
                let lift = (r - SCALABLE_R1).clamp(0.0, SCALABLE_R0);
                (SCALABLE_R0 / 8.0 + lift) * r / (SCALABLE_R0 * SCALABLE_R0)
            }
            RttScaling::None => 1.0,
        };
    }

    /// Every ACK: the packets it newly delivers and `ce` (the CE-marked ones it reports,
    /// Linux's increase of `tp->delivered_ce`, and whether it carries ECE), snd_una and snd_nxt after
    /// it, the time, srtt, and whether the sender is in slow start. Ends rounds and updates
    /// alpha (`prague_cong_control`: `prague_should_update_ewma`, `prague_update_alpha`,
    /// `prague_new_round`).
    pub fn on_ack(
        &mut self,
        delivered: i64,
        (delivered_ce, ece): (i64, bool),
        (snd_una, snd_nxt): (i64, i64),
        now: Time,
        srtt: Time,
        slow_start: bool,
    ) {
        let delivered = delivered.max(0);
        self.acked += delivered;
        self.acked_ce += delivered_ce.max(0);
        if ece {
            self.saw_ce = true;
        }
        let round_over = snd_una >= self.round_end;
        let target_elapsed = now.saturating_sub(self.alpha_stamp) >= self.target(srtt);
        if !round_over || (self.rtt_independent(slow_start) && !target_elapsed) {
            return;
        }
        if self.saw_ce {
            if let Some(d) = self.detector.as_mut() {
                d.detect();
            }
            let f = if self.acked_ce > 0 {
                self.acked_ce as f64 / self.acked.max(1) as f64
            } else {
                0.0
            };
            self.alpha = ((1.0 - G) * self.alpha + G * f).clamp(0.0, 1.0);
            self.alpha_stamp = now;
        }
        // `prague_new_round`
        self.round_end = snd_nxt;
        self.acked = 0;
        self.acked_ce = 0;
        if !slow_start {
            self.round = self.round.saturating_add(1);
        }
        self.update_ai(srtt);
    }

    /// Growth for `acked` packets delivered unmarked: slow start by the packets acked
    /// (`tcp_slow_start`), then `ai / cwnd` each, times `ai_unit`'s factor
    /// (`prague_update_cwnd`: `increase * MTU_SYS / mtu`; slow start is not scaled).
    pub fn grow(&mut self, cwnd: &mut f64, ssthresh: i64, acked: i64) {
        let mut acked = acked.max(0) as f64;
        if *cwnd < ssthresh as f64 {
            let room = ssthresh as f64 - *cwnd;
            let step = acked.min(room);
            *cwnd += step;
            acked -= step;
            if acked <= 0.0 {
                return;
            }
        }
        *cwnd += acked * self.ai / *cwnd * self.ai_scale;
    }

    /// The window after an ECN echo from `cwnd` at `now` (at most once per round, the sender
    /// decides), or None when an RTT-independent flow cut less than its target ago.
    /// With `alpha_start = "half_at_first_mark"` the first echo halves the window (alpha is
    /// still 0). With `classic_ecn = "fallback"` the cut's alpha has the detector's floor.
    pub fn on_ecn(&mut self, cwnd: f64, now: Time, srtt: Time, slow_start: bool) -> Option<f64> {
        self.saw_ce = true;
        if self.cwr_stamp.is_none() && self.p.alpha_start == AlphaStart::HalfAtFirstMark {
            // `prague_update_cwnd` on the first ECE: frac_cwnd halved (alpha_mode 0); the
            // CWR that follows cuts by alpha = 0.
            self.cwr_stamp = Some(now);
            return Some((cwnd / 2.0).max(MIN_CWND));
        }
        if self.rtt_independent(slow_start)
            && self
                .cwr_stamp
                .is_some_and(|t| now.saturating_sub(t) < self.target(srtt))
        {
            return None;
        }
        self.cwr_stamp = Some(now);
        let alpha = match &self.detector {
            Some(d) if self.p.classic_ecn == ClassicEcnMode::Fallback => {
                d.fallback_alpha(self.alpha)
            }
            _ => self.alpha,
        };
        Some((cwnd - alpha * cwnd / 2.0).max(MIN_CWND))
    }

    /// `prague_update_pacing_rate` in bytes per second, from the fractional window `cwnd`
    /// (`frac_cwnd >> CWND_UNIT`) and the sender's `snd_cwnd` (the doubling test); None
    /// before an RTT sample.
    pub fn pacing_rate(
        cwnd: f64,
        snd_cwnd: f64,
        ssthresh: i64,
        packets_out: i64,
        srtt: Time,
        packet_bytes: u32,
    ) -> Option<f64> {
        if srtt == 0 {
            return None;
        }
        let w = cwnd.floor().max(packets_out as f64).max(1.0);
        let mut rate = packet_bytes as f64 * w / crate::sim::time::to_secs_f64(srtt);
        if (snd_cwnd.floor() as i64) < ssthresh / 2 {
            rate *= 2.0;
        }
        Some(rate.max(MINIMUM_RATE))
    }
}

/// Prague as a controller (tcp_prague.c): the loss response of classic TCP
/// (`prague_enter_loss`), its own cut on entering CWR (`prague_enter_cwr`), its rounds and
/// alpha after the ECN response (`prague_cong_control`), growth by every packet delivered,
/// and its pacing (`SK_PACING_NEEDED`, `prague_update_pacing_rate`).
#[derive(Debug, Clone)]
pub struct PragueOps {
    p: Prague,
    g: Growth,
    /// The fractional window of the CWR entry under way, from `ssthresh` to `set_state`.
    cwr_cut: Option<f64>,
    rounding: WindowRounding,
    /// tcp_prague.c `frac_cwnd`, and the sender's window Prague last set from it: when the
    /// sender's window is no longer that (the core's loss reduction, a timeout, an undo,
    /// HyStart++), the fractional window restarts from the sender's.
    frac: f64,
    shown: f64,
    /// The sender's smoothed RTT at the last sample (the cut's spacing for `additive`).
    srtt: Time,
    /// The handshake did not agree to ECN: tcp_prague.c's `prague_reno` (`prague_init` calls
    /// `prague_release`, which drops ECT and the pacing need): Reno's ssthresh and growth.
    without_ecn: bool,
}

impl PragueOps {
    pub fn from_config(cfg: &ControllerConfig) -> Self {
        PragueOps {
            p: Prague::with_packet_bytes(&cfg.prague, cfg.packet_bytes),
            g: Growth::new(cfg.cwnd_growth, cfg.hystart, false),
            cwr_cut: None,
            rounding: cfg.prague.window_rounding,
            frac: f64::NAN,
            shown: f64::NAN,
            srtt: 0,
            without_ecn: false,
        }
    }

    /// The fractional window behind the sender's `cwnd`.
    fn frac(&self, cwnd: f64) -> f64 {
        if cwnd == self.shown {
            self.frac
        } else {
            cwnd
        }
    }

    /// Sets the fractional window and the sender's window from it (`window_rounding`).
    fn set_frac(&mut self, w: &mut Window, frac: f64) {
        self.frac = frac;
        w.cwnd = match self.rounding {
            WindowRounding::Floor => frac,
            WindowRounding::Ceil => frac.ceil().max(MIN_CWND),
        };
        self.shown = w.cwnd;
    }

    pub fn prague(&self) -> &Prague {
        &self.p
    }

    pub fn growth(&self) -> &Growth {
        &self.g
    }
}

impl CongestionOps for PragueOps {
    /// On a loss half, as classic TCP; on an ECN echo the cut on the fractional window,
    /// applied in `set_state(CWR)` (ssthresh its whole part), or None within `rtt_target` of
    /// the last cut.
    #[inline]
    fn ssthresh(&mut self, w: &Window, base: i64, signal: Signal, now: Time) -> Option<i64> {
        if self.without_ecn {
            // `tcp_reno_ssthresh`
            self.g.on_reduction();
            return Some((base / 2).max(2));
        }
        match signal {
            Signal::Loss | Signal::Timeout => {
                self.p.on_reduction(w.ssthresh);
                self.g.on_reduction();
                Some(base / 2)
            }
            Signal::Ecn => {
                self.p.on_reduction(w.ssthresh);
                let cut = self
                    .p
                    .on_ecn(self.frac(w.cwnd), now, self.srtt, w.slow_start())?;
                self.g.on_reduction();
                self.cwr_cut = Some(cut);
                Some(cut.floor() as i64)
            }
        }
    }

    fn set_state(&mut self, state: CaState, w: &mut Window, _: &StateCtx) {
        if state == CaState::Cwr {
            if let Some(cut) = self.cwr_cut.take() {
                self.set_frac(w, cut);
            }
        }
    }

    /// Every packet delivered counts (tcp_prague.c `rs->acked_sacked`), whatever
    /// `cwnd_growth` says.
    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, acked: Acked, _: Time, _: Time) {
        if self.without_ecn {
            reno_cong_avoid(&mut self.g, w, acked);
            return;
        }
        if self.g.hystart_on_ack(w, acked.delivered) {
            return;
        }
        let mut frac = self.frac(w.cwnd);
        self.p.grow(&mut frac, w.ssthresh, acked.delivered);
        self.set_frac(w, frac);
    }

    /// Rounds and alpha after a cut on this ACK (Linux: `tcp_fastretrans_alert` enters CWR,
    /// `prague_enter_cwr`, before `tcp_cong_control` calls `prague_cong_control`).
    #[inline]
    fn after_ecn_response(&mut self, ack: &AckEvent, w: &Window) {
        if self.without_ecn {
            return;
        }
        self.p.on_ack(
            ack.delivered,
            (ack.delivered_ce, ack.ece),
            (ack.snd_una, ack.snd_nxt),
            ack.now,
            ack.srtt,
            w.slow_start(),
        );
    }

    #[inline]
    fn pkts_acked(&mut self, rtt: Time, ack: &AckEvent, _: &mut Window) {
        self.srtt = ack.srtt;
        self.p.on_rtt_sample(rtt);
        self.g.on_rtt_sample(rtt, ack.snd_una, ack.snd_nxt);
    }

    fn init_after_handshake(&mut self, _: Time, srtt: Time, min_rtt: Option<Time>, _: f64) {
        self.srtt = srtt;
        self.p.init(srtt, min_rtt);
    }

    fn always_paces(&self) -> bool {
        !self.without_ecn
    }

    fn ecn_not_negotiated(&mut self) {
        self.without_ecn = true;
    }

    fn pacing_rate(&self, i: &PacingInputs) -> Option<f64> {
        if self.without_ecn {
            return None;
        }
        Prague::pacing_rate(
            self.frac(i.cwnd),
            i.cwnd,
            i.ssthresh,
            i.packets_out,
            i.srtt,
            i.packet_bytes,
        )
    }

    fn state(&self, out: &mut crate::sim::StateSink) {
        if self.without_ecn {
            self.g.state(out);
            return;
        }
        out("dctcp_alpha", self.p.alpha());
        if let Some(c) = self.p.classic_ecn() {
            out("prague_classic_ecn", c);
        }
        self.g.state(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    #[test]
    fn the_first_mark_halves_then_alpha_cuts() {
        let mut p = Prague::new(&PragueParams::default());
        // No CE yet: rounds end, alpha stays 0 (not updated before an AQM is seen).
        p.on_ack(10, (0, false), (10, 20), 10 * MS, 10 * MS, false);
        assert_eq!(p.alpha(), 0.0);
        assert_eq!(p.on_ecn(20.0, 11 * MS, 10 * MS, false), Some(10.0));
        // Round 2 (ends at 20): 10 packets, 4 marked: alpha = 0 + (4/10) / 16 = 0.025.
        p.on_ack(4, (4, true), (14, 24), 12 * MS, 10 * MS, false);
        p.on_ack(6, (0, false), (20, 30), 13 * MS, 10 * MS, false);
        assert!((p.alpha() - 0.025).abs() < 1e-15);
        // A cut now: 10 - 0.025 x 10 / 2 = 9.875 (fractional: Linux's frac_cwnd).
        assert_eq!(p.on_ecn(10.0, 14 * MS, 10 * MS, false), Some(9.875));
    }

    /// After `rtt_transition` rounds out of slow start, with srtt 5 ms below the 25 ms
    /// target: ai = (5 / 25)^2 = 0.04 per packet over cwnd, so 100 unmarked packets at cwnd
    /// 100 add 0.04, where Reno (and Prague before the transition) adds 1. Cuts are then at
    /// most one per 25 ms.
    #[test]
    fn rtt_independence_scales_the_increase_and_spaces_the_cuts() {
        let mut p = Prague::new(&PragueParams::default());
        let srtt = 5 * MS;
        let mut cwnd = 100.0;
        for _ in 0..100 {
            p.grow(&mut cwnd, 10, 1);
        }
        assert!((cwnd - 101.0).abs() < 0.01, "{cwnd}");
        let mut now = 0;
        for r in 1..=4 {
            now += srtt;
            p.on_ack(1, (0, false), (r * 100, (r + 1) * 100), now, srtt, false);
        }
        assert!(p.rtt_independent(false));
        assert!((p.ai - 0.04).abs() < 1e-12, "{}", p.ai);
        let mut cwnd = 100.0;
        for _ in 0..100 {
            p.grow(&mut cwnd, 10, 1);
        }
        assert!((cwnd - 100.04).abs() < 1e-4, "{cwnd}");
        // First mark halves; a second within 25 ms is ignored; after 25 ms it cuts by alpha.
        assert_eq!(p.on_ecn(100.0, now, srtt, false), Some(50.0));
        assert_eq!(p.on_ecn(50.0, now + 24 * MS, srtt, false), None);
        assert!(p.on_ecn(50.0, now + 25 * MS, srtt, false).is_some());
        // In slow start ai does not apply: growth by the packets acked up to ssthresh.
        let mut w = 10.0;
        p.grow(&mut w, 12, 4);
        assert!((w - 12.0 - 2.0 * 0.04 / 12.0).abs() < 1e-12, "{w}");
    }

    /// A flow out of slow start for `rtt_transition` rounds at `srtt`.
    fn independent(params: PragueParams, srtt: Time) -> (Prague, Time) {
        let mut p = Prague::new(&params);
        let mut now = 0;
        for r in 1..=params.rtt_transition as i64 {
            now += 30 * MS;
            p.on_ack(1, (0, false), (r * 100, (r + 1) * 100), now, srtt, false);
        }
        (p, now)
    }

    /// tcp_prague.c v0.6's other modes, by hand at srtt 5 ms and 30 ms (target 25 ms):
    /// - none: ai = 1, and no spacing: two cuts 1 ms apart both happen;
    /// - scalable: (16.384 / 8 + (5 - 1.536)) x 5 / 16.384^2 = 0.102 669; at 30 ms, not
    ///   capped: (2.048 + 16.384) x 30 / 16.384^2 = 2.059 937;
    /// - additive: (5 / (25 + 5))^2 = 1/36, and cuts spaced by 30 ms, not 25.
    #[test]
    fn the_other_rtt_scalings_by_hand() {
        let with = |rtt_scaling| PragueParams {
            rtt_scaling,
            ..PragueParams::default()
        };
        let (mut p, now) = independent(with(RttScaling::None), 5 * MS);
        assert!(!p.rtt_independent(false));
        assert_eq!(p.ai, 1.0);
        assert!(p.on_ecn(100.0, now, 5 * MS, false).is_some());
        assert!(p.on_ecn(50.0, now + MS, 5 * MS, false).is_some());

        let (p, _) = independent(with(RttScaling::Scalable), 5 * MS);
        assert!((p.ai - 0.102_669).abs() < 1e-6, "{}", p.ai);
        let (p, _) = independent(with(RttScaling::Scalable), 30 * MS);
        assert!((p.ai - 2.059_937).abs() < 1e-6, "{}", p.ai);

        let (mut p, now) = independent(with(RttScaling::Additive), 5 * MS);
        assert!((p.ai - 1.0 / 36.0).abs() < 1e-12, "{}", p.ai);
        assert!(p.on_ecn(100.0, now, 5 * MS, false).is_some());
        assert_eq!(p.on_ecn(50.0, now + 29 * MS, 5 * MS, false), None);
        assert!(p.on_ecn(50.0, now + 30 * MS, 5 * MS, false).is_some());
    }

    /// v0.5 and v0.6 start alpha at 1: the first echo halves (20 -> 10) through alpha, and a
    /// round with 4 of 10 marked leaves alpha = 15/16 + 0.4/16 = 0.9625, so the next cut
    /// takes 10 to 10 - 0.9625 x 5 = 5.1875 (v0.7's start: 9.875, above).
    #[test]
    fn alpha_starting_at_one_cuts_hard_until_it_decays() {
        let mut p = Prague::new(&PragueParams {
            alpha_start: AlphaStart::One,
            ..PragueParams::default()
        });
        // A round without CE: alpha is not updated before an AQM is seen.
        p.on_ack(10, (0, false), (10, 20), 10 * MS, 10 * MS, false);
        assert_eq!(p.alpha(), 1.0);
        assert_eq!(p.on_ecn(20.0, 11 * MS, 10 * MS, false), Some(10.0));
        p.on_ack(4, (4, true), (14, 24), 12 * MS, 10 * MS, false);
        p.on_ack(6, (0, false), (20, 30), 13 * MS, 10 * MS, false);
        assert!((p.alpha() - 0.9625).abs() < 1e-15);
        assert_eq!(p.on_ecn(10.0, 14 * MS, 10 * MS, false), Some(5.1875));
    }

    /// The 2019 module's alpha starts at 0 with no first-mark rule: the first echo cuts by
    /// 0 x 20 / 2 (the window stays 20); a round with 4 of 10 marked then gives alpha 0.025
    /// and the next cut 10 - 0.125 = 9.875.
    #[test]
    fn alpha_starting_at_zero_does_not_cut_at_the_first_mark() {
        let mut p = Prague::new(&PragueParams {
            alpha_start: AlphaStart::Zero,
            ..PragueParams::default()
        });
        p.on_ack(10, (0, false), (10, 20), 10 * MS, 10 * MS, false);
        assert_eq!(p.on_ecn(20.0, 11 * MS, 10 * MS, false), Some(20.0));
        p.on_ack(4, (4, true), (14, 24), 12 * MS, 10 * MS, false);
        p.on_ack(6, (0, false), (20, 30), 13 * MS, 10 * MS, false);
        assert!((p.alpha() - 0.025).abs() < 1e-15);
        assert_eq!(p.on_ecn(10.0, 14 * MS, 10 * MS, false), Some(9.875));
    }

    /// With `classic_ecn = "fallback"`, a 10 ms queue with 3 ms of jitter turns the detector
    /// classic within five rounds (prague_classic_ecn.rs); a cut then uses alpha = 0.625
    /// however few packets were marked: 100 -> 100 - 0.625 x 50 = 68.75. "detect" computes
    /// the same state and cuts by alpha.
    #[test]
    fn a_classic_ecn_queue_found_raises_the_cut() {
        for (mode, want) in [
            (ClassicEcnMode::Fallback, 68.75),
            (ClassicEcnMode::Detect, 0.0),
        ] {
            let mut p = Prague::new(&PragueParams {
                classic_ecn: mode,
                rtt_scaling: RttScaling::None,
                ..PragueParams::default()
            });
            p.init(30 * MS, Some(20 * MS));
            p.on_reduction(10);
            let mut now = 0;
            p.on_ack(0, (0, false), (0, 100), now, 30 * MS, false);
            for r in 0..6 {
                for i in 0..2000 {
                    p.on_rtt_sample(if i % 2 == 0 { 33 * MS } else { 27 * MS });
                }
                now += 30 * MS;
                // 1 of 100 marked per round: alpha stays small
                let (end, next) = ((r + 1) * 100, (r + 2) * 100);
                p.on_ack(99, (0, false), (end - 1, end), now, 30 * MS, false);
                p.on_ack(1, (1, true), (end, next), now, 30 * MS, false);
            }
            assert!(p.classic_ecn().unwrap() > 9.0, "{:?}", p.classic_ecn());
            assert!(p.alpha() < 0.01);
            assert_eq!(
                p.on_ecn(100.0, now, 30 * MS, false),
                Some(50.0),
                "first mark halves"
            );
            let cut = p.on_ecn(100.0, now + MS, 30 * MS, false).unwrap();
            if want > 0.0 {
                assert_eq!(cut, want);
            } else {
                assert!((cut - (100.0 - p.alpha() * 50.0)).abs() < 1e-12);
            }
        }
        assert_eq!(Prague::new(&PragueParams::default()).classic_ecn(), None);
    }

    fn ops(ai_unit: AiUnit, window_rounding: WindowRounding) -> PragueOps {
        use super::super::hystart::HystartParams;
        use super::super::{CongestionControlKind, CubicParams, CwndGrowth, DctcpParams};
        PragueOps::from_config(&ControllerConfig {
            kind: CongestionControlKind::Prague,
            cwnd_growth: CwndGrowth::PacketsAcked,
            hystart: HystartParams::default(),
            cubic: CubicParams::default(),
            dctcp: DctcpParams::default(),
            prague: PragueParams {
                ai_unit,
                window_rounding,
                ..PragueParams::default()
            },
            packet_bytes: 1040,
            window_init: 10.0,
        })
    }

    /// Three rounds of congestion avoidance at 1040-byte packets, each one ACK delivering the
    /// sender's whole window unmarked (ai = 1: fewer than `rtt_transition` rounds), then a
    /// first ECN echo. tcp_prague.c v0.7 (`prague_update_cwnd`): frac += acked x ai / frac x
    /// 1500 / 1040, snd_cwnd = ceil(frac) (`prague_frac_cwnd_to_snd_cwnd`):
    /// - round 1, 10 acked at frac 10: + 10 / 10 x 1.442308 = 1.442308 -> 11.442308, cwnd 12;
    /// - round 2, 12 acked: + 12 / 11.442308 x 1.442308 = 1.512605 -> 12.954913, cwnd 13;
    /// - round 3, 13 acked: + 13 / 12.954913 x 1.442308 = 1.447327 -> 14.402240, cwnd 15;
    /// - the first echo halves frac: 7.201120; ssthresh its floor, 7; cwnd ceil, 8.
    ///
    /// The old reading (one packet per round trip, the window floored when sent): 10 + 10/10
    /// = 11, + 11/11 = 12, + 12/12 = 13, then halved to 6.5, 6 sent.
    #[test]
    fn linux_prague_grows_1500_bytes_per_round_trip_and_rounds_its_window_up() {
        let acked = |n: i64| Acked {
            newly_acked: n,
            delivered: n,
        };
        let mut o = ops(AiUnit::MtuSys, WindowRounding::Ceil);
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: 10,
        };
        let mut fracs = vec![];
        let mut cwnds = vec![];
        for _ in 0..3 {
            let n = w.cwnd as i64;
            o.cong_avoid(&mut w, acked(n), 0, 10 * MS);
            fracs.push(o.frac);
            cwnds.push(w.cwnd);
        }
        assert_eq!(cwnds, vec![12.0, 13.0, 15.0]);
        for (got, want) in fracs
            .iter()
            .zip([11.442_307_692, 12.954_912_734, 14.402_240_122])
        {
            assert!((got - want).abs() < 1e-8, "{fracs:?}");
        }
        let s = o.ssthresh(&w, 15, Signal::Ecn, 0).unwrap();
        assert_eq!(s, 7);
        w.ssthresh = s;
        w.cwnd = s as f64;
        o.set_state(CaState::Cwr, &mut w, &ctx());
        assert_eq!(w.cwnd, 8.0);
        assert!((o.frac - 7.201_120_061).abs() < 1e-8, "{}", o.frac);
        // Pacing reads the fractional window (`frac_cwnd >> CWND_UNIT` = 7 packets of 1040 B
        // per 10 ms), not the rounded one.
        let i = PacingInputs {
            cwnd: w.cwnd,
            ssthresh: w.ssthresh,
            packets_out: 0,
            srtt: 10 * MS,
            packet_bytes: 1040,
        };
        assert_eq!(o.pacing_rate(&i), Some(7.0 * 1040.0 / 0.01));

        let mut o = ops(AiUnit::Packet, WindowRounding::Floor);
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: 10,
        };
        for want in [11.0, 12.0, 13.0] {
            let n = w.cwnd as i64;
            o.cong_avoid(&mut w, acked(n), 0, 10 * MS);
            assert_eq!(w.cwnd, want);
        }
        assert_eq!(o.ssthresh(&w, 13, Signal::Ecn, 0), Some(6));
        w.cwnd = 6.0;
        o.set_state(CaState::Cwr, &mut w, &ctx());
        assert_eq!(w.cwnd, 6.5);
    }

    /// A window the core set (a loss's reduction) is where the fractional window restarts.
    #[test]
    fn the_fractional_window_follows_a_window_the_core_set() {
        let mut o = ops(AiUnit::MtuSys, WindowRounding::Ceil);
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: 10,
        };
        o.cong_avoid(&mut w, Acked::both(10), 0, 10 * MS);
        assert_eq!(w.cwnd, 12.0);
        w.cwnd = 6.0;
        w.ssthresh = 6;
        // 6 acked at frac 6: + 6 / 6 x 1.442308 -> 7.442308, cwnd 8.
        o.cong_avoid(&mut w, Acked::both(6), 0, 10 * MS);
        assert!((o.frac - 7.442_307_692).abs() < 1e-8, "{}", o.frac);
        assert_eq!(w.cwnd, 8.0);
    }

    fn ctx() -> StateCtx<'static> {
        StateCtx {
            now: 0,
            snd_nxt: 0,
            rate: None,
        }
    }

    #[test]
    fn pacing_is_cwnd_over_srtt_doubled_in_slow_start() {
        // 10 packets of 1500 B per 10 ms: 1.5 MB/s; x2 while cwnd < ssthresh / 2.
        assert_eq!(
            Prague::pacing_rate(10.0, 10.0, 10, 4, 10 * MS, 1500),
            Some(1_500_000.0)
        );
        assert_eq!(
            Prague::pacing_rate(10.0, 10.0, 100, 4, 10 * MS, 1500),
            Some(3_000_000.0)
        );
        assert_eq!(Prague::pacing_rate(10.0, 10.0, 10, 4, 0, 1500), None);
        assert_eq!(
            Prague::pacing_rate(2.0, 2.0, 2, 0, 1_000 * MS, 1500),
            Some(MINIMUM_RATE)
        );
    }
}
