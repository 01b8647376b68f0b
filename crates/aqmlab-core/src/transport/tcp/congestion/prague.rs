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
//! (v0.5/v0.6 `prague_ecn_fallback`, `prague_classic_ecn.rs`), `rtt_unit` (v0.5 and v0.6
//! measure srtt and the target in 128 us units for the scaling, `RTT_UNIT 7`; `exact`, the
//! default, is v0.7's), `window_update` (`prague_window.rs`: the sender's window set at once,
//! the default; v0.6/v0.7's one-packet steps to the ceiling of `frac_cwnd`; v0.5's `cwnd_cnt`
//! carry), `window_mode` (`prague_rate_mode.rs`: v0.7's rate mode below 4 x 1500 bytes,
//! `prague_cwnd_mode`, with its +-3.125 % pacing; `window`, the default, never uses it).
//! docs/readings.md, "TCP Prague at small windows".
//!
//! Not modelled (named so that nobody takes them for present): the MTU reduction below 2
//! packets of a virtual RTT (aqmlab's sender has one packet size per flow), the GSO burst limit
//! (aqmlab sends single packets), `prague_cwnd_undo`. With `window_update = "at_once"` (the
//! default) the sender's window is set at once, to the fractional window
//! (`window_rounding = "floor"`, default) or to its ceiling ("ceil",
//! `prague_frac_cwnd_to_snd_cwnd`). The additive increase is one packet per round trip
//! (`ai_unit = "packet"`, default) or 1500 bytes' worth ("mtu_sys", `prague_update_cwnd`'s
//! `MTU_SYS / mtu`). v0.7 is a `cong_control` module (no PRR for it in Linux); here it is a
//! `cong_avoid` controller whose ECN cut is applied in `set_state(CWR)` and whose loss cut is
//! the core's (docs/readings.md, "TCP Prague's increase unit and window rounding").
//!
//! Parameters (`tcp.prague`, defaults): `rtt_target` 25 ms, `rtt_transition` 4 rounds,
//! `ai_unit` packet, `window_rounding` floor, `rtt_scaling` rate, `alpha_start`
//! half_at_first_mark, `classic_ecn` off, `window_update` at_once, `window_mode` window,
//! `rate_mode_transit` 4 (1500-byte packets), `rtt_unit` exact.

use super::growth::Growth;
use super::ops::{AckEvent, Acked, CaState, CongestionOps, Signal, StateCtx, Window};
use super::prague_classic_ecn::ClassicEcnDetector;
pub use super::prague_classic_ecn::ClassicEcnMode;
use super::prague_rate_mode::RateMode;
pub use super::prague_rate_mode::WindowMode;
pub use super::prague_window::WindowUpdate;
use super::prague_window::{ceiling_target, step_toward, Carry};
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

/// The unit Prague's RTT independence measures srtt and its target in (`tcp.prague.rtt_unit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
pub enum RttUnit {
    /// srtt as the sender has it (v0.7: `srtt_us`, eighths of a microsecond).
    #[default]
    #[serde(rename = "exact")]
    Exact,
    /// v0.5 and v0.6: 128 us units (`RTT_UNIT 7`, `US2RTT`): srtt and the target truncated
    /// to whole 128 us in the increase's scaling (`prague_ai_ack_increase`), the spacing of
    /// alpha updates and cuts at the truncated target (`RTT2US(prague_target_rtt)`), and
    /// `MAX_SCALED_RTT` (100 000) compared in those units, so the cap is 12.8 s.
    #[serde(rename = "128us")]
    Us128,
}

/// tcp_prague.c v0.5/v0.6 `RTT_UNIT`: 2^7 us, in ns.
const RTT_UNIT_NS: Time = 128_000;

impl RttUnit {
    /// A duration as the RTT scaling sees it, in its unit's count (ns for `exact`).
    fn count(self, t: Time) -> Time {
        match self {
            RttUnit::Exact => t,
            RttUnit::Us128 => t / RTT_UNIT_NS,
        }
    }

    /// A count back to ns (`RTT2US`).
    fn to_ns(self, n: Time) -> Time {
        match self {
            RttUnit::Exact => n,
            RttUnit::Us128 => n * RTT_UNIT_NS,
        }
    }

    /// `MAX_SCALED_RTT` (100 000) as the unit compares it: 100 ms in v0.7 (`<< 3` against
    /// `srtt_us`), 100 000 x 128 us in v0.5/v0.6 (the constant left in microseconds).
    fn max_scaled(self) -> Time {
        match self {
            RttUnit::Exact => MAX_SCALED_RTT,
            RttUnit::Us128 => 100_000,
        }
    }
}

/// What a cut on CE is, before it is applied to a window or a rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EcnCut {
    /// The first mark with `alpha_start = "half_at_first_mark"`: the window halves.
    Halve,
    /// By alpha / 2 (the detector's floor applied).
    Alpha(f64),
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
    /// How the sender's window follows Prague's: `at_once` (default) | `step_to_ceiling`
    /// (v0.6 `frac_cwnd`, v0.7) | `carry` (v0.5, v0.6 `cwnd_cnt`); `prague_window.rs`.
    pub window_update: WindowUpdate,
    /// Small windows: `window` (default) | `rate` | `switch` (v0.7 `prague_cwnd_mode`);
    /// `prague_rate_mode.rs`.
    pub window_mode: WindowMode,
    /// The window at or below which `switch` runs on the rate, in 1500-byte packets (v0.7
    /// `prague_cwnd_transit`: 4).
    pub rate_mode_transit: u32,
    /// srtt in the RTT scaling: `exact` (default, v0.7) | `128us` (v0.5, v0.6 `RTT_UNIT`).
    pub rtt_unit: RttUnit,
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
            window_update: WindowUpdate::AtOnce,
            window_mode: WindowMode::Window,
            rate_mode_transit: 4,
            rtt_unit: RttUnit::Exact,
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
        let err = |field: &str, why: &str| {
            Err(crate::units::ScenarioError::new(
                format!("{path}.{field}"),
                why,
            ))
        };
        if self.window_mode != WindowMode::Window {
            if self.rtt_scaling != RttScaling::Rate {
                return err(
                    "window_mode",
                    "the rate mode is tcp_prague.c v0.7's, which acts once RTT independent by its \
                     only scaling: needs rtt_scaling = \"rate\"",
                );
            }
            if self.window_update == WindowUpdate::Carry {
                return err(
                    "window_mode",
                    "the rate mode re-derives v0.7's fractional window; window_update = \"carry\" \
                     is v0.5's integer window, which had no rate mode",
                );
            }
            if self.rate_mode_transit == 0 {
                return err("rate_mode_transit", "must be >= 1 (packets of 1500 bytes)");
            }
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
        let u = self.p.rtt_unit;
        u.to_ns(self.target_count(srtt))
    }

    /// The target in `rtt_unit`'s counts (`prague_target_rtt`; v0.5's `ca->rtt_target` is
    /// `US2RTT(prague_rtt_target)`, and `prague_dynamic_rtt_target` adds `US2RTT(srtt)`).
    fn target_count(&self, srtt: Time) -> Time {
        let u = self.p.rtt_unit;
        match self.p.rtt_scaling {
            RttScaling::Additive => u.count(self.p.rtt_target.0) + u.count(srtt),
            _ => u.count(self.p.rtt_target.0),
        }
    }

    /// The time since the last alpha update, and the virtual RTT (v0.7
    /// `prague_virtual_rtt`: max(target, srtt)), for the rate mode's pacing offset.
    pub fn alpha_clock(&self, now: Time, srtt: Time) -> (Time, Time) {
        (now.saturating_sub(self.alpha_stamp), self.virtual_rtt(srtt))
    }

    /// v0.7 `prague_virtual_rtt`: max(target, srtt).
    pub fn virtual_rtt(&self, srtt: Time) -> Time {
        self.target(srtt).max(srtt)
    }

    pub fn saw_ce(&self) -> bool {
        self.saw_ce
    }

    /// The increase per packet acked over `divisor` (the fractional window, or v0.5's
    /// `snd_cwnd`) in congestion avoidance, times `ai_unit`'s factor.
    pub fn increase_per_packet(&self, divisor: f64) -> f64 {
        self.ai / divisor * self.ai_scale
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
        let u = self.p.rtt_unit;
        let rtt = u.count(srtt);
        let unscaled = self.p.rtt_scaling == RttScaling::None
            || self.round < self.p.rtt_transition
            || rtt == 0
            || rtt > u.max_scaled();
        let r = rtt as f64;
        // R0 and R1 in the same unit (`US2RTT(1 << 14)`, `US2RTT(1536)` in v0.5/v0.6).
        let (r0, r1) = match u {
            RttUnit::Exact => (SCALABLE_R0, SCALABLE_R1),
            RttUnit::Us128 => (
                u.count(SCALABLE_R0 as Time) as f64,
                u.count(SCALABLE_R1 as Time) as f64,
            ),
        };
        self.ai = match self.p.rtt_scaling {
            _ if unscaled => 1.0,
            RttScaling::Rate | RttScaling::Additive => {
                let t = self.target_count(srtt) as f64;
                if r >= t {
                    1.0
                } else {
                    (r / t) * (r / t)
                }
            }
            RttScaling::Scalable => {
                let lift = (r - r1).clamp(0.0, r0);
                (r0 / 8.0 + lift) * r / (r0 * r0)
            }
            RttScaling::None => 1.0,
        };
    }

    /// Every ACK: the packets it newly delivers and `ce` (the CE-marked ones it reports,
    /// Linux's increase of `tp->delivered_ce`, and whether it carries ECE), snd_una and snd_nxt after
    /// it, the time, srtt, and whether the sender is in slow start. Ends rounds and updates
    /// alpha (`prague_cong_control`: `prague_should_update_ewma`, `prague_update_alpha`,
    /// `prague_new_round`); true when a round ended (alpha updated if CE was seen).
    pub fn on_ack(
        &mut self,
        delivered: i64,
        (delivered_ce, ece): (i64, bool),
        (snd_una, snd_nxt): (i64, i64),
        now: Time,
        srtt: Time,
        slow_start: bool,
    ) -> bool {
        let delivered = delivered.max(0);
        self.acked += delivered;
        self.acked_ce += delivered_ce.max(0);
        if ece {
            self.saw_ce = true;
        }
        let round_over = snd_una >= self.round_end;
        let target_elapsed = now.saturating_sub(self.alpha_stamp) >= self.target(srtt);
        if !round_over || (self.rtt_independent(slow_start) && !target_elapsed) {
            return false;
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
        true
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

    /// Congestion avoidance's growth alone, `ai / frac` per packet (the slow start decided
    /// on the sender's window, as Linux's `tcp_in_slow_start` on `snd_cwnd`).
    pub fn grow_avoiding(&self, frac: &mut f64, acked: i64) {
        let acked = acked.max(0) as f64;
        *frac += acked * self.ai / *frac * self.ai_scale;
    }

    /// The window after an ECN echo from `cwnd` at `now` (at most once per round, the sender
    /// decides), or None when an RTT-independent flow cut less than its target ago.
    /// With `alpha_start = "half_at_first_mark"` the first echo halves the window (alpha is
    /// still 0). With `classic_ecn = "fallback"` the cut's alpha has the detector's floor.
    pub fn on_ecn(&mut self, cwnd: f64, now: Time, srtt: Time, slow_start: bool) -> Option<f64> {
        Some(match self.ecn_cut(now, srtt, slow_start)? {
            EcnCut::Halve => (cwnd / 2.0).max(MIN_CWND),
            EcnCut::Alpha(alpha) => (cwnd - alpha * cwnd / 2.0).max(MIN_CWND),
        })
    }

    /// The cut an ECN echo at `now` makes ([`Self::on_ecn`]), not yet applied: to a window,
    /// to v0.5's carry, or to the rate mode's rate.
    pub fn ecn_cut(&mut self, now: Time, srtt: Time, slow_start: bool) -> Option<EcnCut> {
        self.saw_ce = true;
        if self.cwr_stamp.is_none() && self.p.alpha_start == AlphaStart::HalfAtFirstMark {
            // `prague_update_cwnd` on the first ECE: frac_cwnd halved (alpha_mode 0); the
            // CWR that follows cuts by alpha = 0.
            self.cwr_stamp = Some(now);
            return Some(EcnCut::Halve);
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
        Some(EcnCut::Alpha(alpha))
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
/// and its pacing (`SK_PACING_NEEDED`, `prague_update_pacing_rate`). How the sender's window
/// follows Prague's is `window_update` (`prague_window.rs`); the rate mode at small windows is
/// `window_mode` (`prague_rate_mode.rs`).
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
    update: WindowUpdate,
    /// v0.5's `cwnd_cnt` (`window_update = "carry"`).
    carry: Carry,
    /// The sender's window before the core applied an ECN cut: with a stepping
    /// `window_update` Prague's `ssthresh` op keeps `snd_ssthresh` and `snd_cwnd` is not cut
    /// (`prague_ssthresh`; tcp_prague.c is a `cong_control` module, so Linux runs no PRR).
    kept: Option<Window>,
    /// This ACK has moved the sender's window already (one step per ACK, `adjust`).
    stepped: bool,
    /// The rate mode (None with `window_mode = "window"`).
    rate: Option<RateMode>,
}

/// Linux `tcp_slow_start`: the window grows by the packets acked up to ssthresh; the rest
/// is returned for congestion avoidance.
fn slow_start(w: &mut Window, acked: i64) -> i64 {
    let room = (w.ssthresh as f64 - w.cwnd).max(0.0);
    let step = (acked.max(0) as f64).min(room);
    w.cwnd += step;
    acked.max(0) - step.ceil() as i64
}

impl PragueOps {
    pub fn from_config(cfg: &ControllerConfig) -> Self {
        let pp = &cfg.prague;
        PragueOps {
            p: Prague::with_packet_bytes(pp, cfg.packet_bytes),
            g: Growth::new(cfg.cwnd_growth, cfg.hystart, false),
            cwr_cut: None,
            rounding: pp.window_rounding,
            frac: f64::NAN,
            shown: f64::NAN,
            srtt: 0,
            without_ecn: false,
            update: pp.window_update,
            carry: Carry::default(),
            kept: None,
            stepped: false,
            rate: RateMode::new(pp.window_mode, pp.rate_mode_transit, cfg.packet_bytes),
        }
    }

    /// The fractional window behind the sender's `cwnd` (with `carry` the sender's window
    /// itself: v0.5 has no other, its pacing reads `snd_cwnd`).
    fn frac(&self, cwnd: f64) -> f64 {
        if cwnd == self.shown && self.update != WindowUpdate::Carry {
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

    /// A new fractional window: the sender's at once (`at_once`), or kept for the steps.
    fn apply_frac(&mut self, w: &mut Window, frac: f64) {
        if self.update.steps() {
            self.frac = frac;
            self.shown = w.cwnd;
        } else {
            self.set_frac(w, frac);
        }
    }

    /// This ACK's step of the sender's window, unless it has had one (`adjust`).
    fn step(&mut self, w: &mut Window) {
        if self.stepped {
            return;
        }
        match self.update {
            WindowUpdate::AtOnce => return,
            WindowUpdate::StepToCeiling => {
                let frac = self.frac(w.cwnd);
                self.frac = frac;
                self.stepped = step_toward(w, ceiling_target(frac));
            }
            WindowUpdate::Carry => {
                if w.cwnd != self.shown {
                    self.carry.reset();
                }
                let before = w.cwnd;
                self.carry.step(w);
                self.stepped = w.cwnd != before;
            }
        }
        self.shown = w.cwnd;
    }

    /// v0.5's growth: slow start on `snd_cwnd`, then the carry by acked x ai / `snd_cwnd`.
    fn grow_carry(&mut self, w: &mut Window, acked: i64) {
        if w.cwnd != self.shown {
            self.carry.reset();
        }
        let left = if w.slow_start() {
            slow_start(w, acked)
        } else {
            acked
        };
        if left > 0 {
            let left = left as f64;
            let inc = left * self.p.increase_per_packet(w.cwnd);
            self.carry.grow(left, inc);
        }
        self.shown = w.cwnd;
        self.step(w);
    }

    /// v0.6/v0.7's growth with the window stepping: slow start on `snd_cwnd` and the
    /// fractional window set to it (`frac_cwnd = snd_cwnd << CWND_UNIT`), congestion avoidance
    /// on the fractional window (or the rate), then the step.
    fn grow_stepping(&mut self, w: &mut Window, acked: i64) {
        let mut frac = self.frac(w.cwnd);
        if w.slow_start() {
            let left = slow_start(w, acked);
            frac = w.cwnd;
            if left > 0 {
                self.p.grow_avoiding(&mut frac, left);
            }
        } else {
            frac = self.grow_frac(frac, w, acked, false);
        }
        self.apply_frac(w, frac);
        self.step(w);
    }

    /// Growth of the fractional window (`at_once`: slow start on it too, as before; stepping:
    /// congestion avoidance only, slow start having been on `snd_cwnd`), or of the rate in
    /// rate mode.
    fn grow_frac(&mut self, mut frac: f64, w: &Window, acked: i64, at_once: bool) -> f64 {
        let indep = self.p.rtt_independent(w.slow_start());
        let vrtt = self.p.virtual_rtt(self.srtt);
        match self.rate.as_mut() {
            Some(r) if r.active(indep) => r.grow(frac, acked.max(0) as f64, self.srtt, vrtt),
            _ if at_once => {
                self.p.grow(&mut frac, w.ssthresh, acked);
                frac
            }
            _ => {
                self.p.grow_avoiding(&mut frac, acked);
                frac
            }
        }
    }

    pub fn prague(&self) -> &Prague {
        &self.p
    }

    pub fn growth(&self) -> &Growth {
        &self.g
    }

    /// The rate mode's state (None with `window_mode = "window"`).
    pub fn rate_mode(&self) -> Option<&RateMode> {
        self.rate.as_ref()
    }

    /// v0.5's carry, packets.
    pub fn carry(&self) -> f64 {
        self.carry.value()
    }
}

impl CongestionOps for PragueOps {
    /// On a loss half, as classic TCP; on an ECN echo the cut on the fractional window (in
    /// rate mode on the rate, with `carry` on `snd_cwnd`), applied in `set_state(CWR)`
    /// (ssthresh its whole part, or kept when the window steps), or None within `rtt_target`
    /// of the last cut.
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
                let indep = self.p.rtt_independent(w.slow_start());
                if let Some(r) = self.rate.as_mut().filter(|r| r.active(indep)) {
                    r.on_loss();
                }
                Some(base / 2)
            }
            Signal::Ecn => {
                self.p.on_reduction(w.ssthresh);
                let slow = w.slow_start();
                // The carry cuts `snd_cwnd` x alpha / 2 (v0.5 `prague_enter_cwr`).
                let from = match self.update {
                    WindowUpdate::Carry => w.cwnd,
                    _ => self.frac(w.cwnd),
                };
                let cut = self.p.ecn_cut(now, self.srtt, slow)?;
                self.g.on_reduction();
                let indep = self.p.rtt_independent(slow);
                let srtt = self.srtt;
                let to = match (self.rate.as_mut(), cut) {
                    (Some(r), EcnCut::Alpha(alpha)) if r.active(indep) => r.cut(alpha, srtt),
                    (_, EcnCut::Halve) => (from / 2.0).max(MIN_CWND),
                    (_, EcnCut::Alpha(alpha)) => (from - alpha * from / 2.0).max(MIN_CWND),
                };
                self.cwr_cut = Some(to);
                if self.update.steps() {
                    self.kept = Some(*w);
                    return Some(w.ssthresh);
                }
                Some(to.floor() as i64)
            }
        }
    }

    fn set_state(&mut self, state: CaState, w: &mut Window, _: &StateCtx) {
        if state == CaState::Cwr {
            if let Some(cut) = self.cwr_cut.take() {
                match (self.update, self.kept.take()) {
                    (WindowUpdate::StepToCeiling, Some(k)) => {
                        *w = k;
                        self.frac = cut;
                        self.shown = w.cwnd;
                    }
                    (WindowUpdate::Carry, Some(k)) => {
                        *w = k;
                        if w.cwnd != self.shown {
                            self.carry.reset();
                        }
                        self.carry.cut(w.cwnd - cut);
                        self.shown = w.cwnd;
                    }
                    _ => self.set_frac(w, cut),
                }
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
        match self.update {
            WindowUpdate::Carry => self.grow_carry(w, acked.delivered),
            WindowUpdate::StepToCeiling => self.grow_stepping(w, acked.delivered),
            WindowUpdate::AtOnce if self.rate.is_some() => {
                let frac = self.frac(w.cwnd);
                let frac = self.grow_frac(frac, w, acked.delivered, true);
                self.set_frac(w, frac);
            }
            WindowUpdate::AtOnce => {
                let mut frac = self.frac(w.cwnd);
                self.p.grow(&mut frac, w.ssthresh, acked.delivered);
                self.set_frac(w, frac);
            }
        }
    }

    /// Rounds and alpha after a cut on this ACK (Linux: `tcp_fastretrans_alert` enters CWR,
    /// `prague_enter_cwr`, before `tcp_cong_control` calls `prague_cong_control`); then the
    /// rate mode's per-ACK part and switch, and the window's step (`adjust`). Linux steps
    /// after the ACK's growth; here growth follows (`cong_avoid`, on ACKs without ECE that
    /// advance), and steps only if this step did not move the window: one step per ACK
    /// either way.
    #[inline]
    fn after_ecn_response(&mut self, ack: &AckEvent, w: &mut Window) {
        if self.without_ecn {
            return;
        }
        let slow = w.slow_start();
        let round = self.p.on_ack(
            ack.delivered,
            (ack.delivered_ce, ack.ece),
            (ack.snd_una, ack.snd_nxt),
            ack.now,
            ack.srtt,
            slow,
        );
        self.stepped = false;
        if let Some(r) = self.rate.as_mut() {
            if round && ack.srtt > 0 {
                r.on_alpha_round(ack.srtt);
            }
            let mut frac = if w.cwnd == self.shown {
                self.frac
            } else {
                w.cwnd
            };
            let indep = self.p.rtt_independent(slow);
            let in_flight = ack.snd_nxt - ack.snd_una;
            let clock = self.p.alpha_clock(ack.now, ack.srtt);
            let saw_ce = self.p.saw_ce();
            r.on_ack(&mut frac, w.cwnd, in_flight, ack.srtt, indep, saw_ce, clock);
            self.apply_frac(w, frac);
        }
        self.step(w);
    }

    #[inline]
    fn pkts_acked(&mut self, rtt: Time, ack: &AckEvent, _: &mut Window) {
        self.srtt = ack.srtt;
        self.p.on_rtt_sample(rtt);
        self.g.on_rtt_sample(rtt, ack.snd_una, ack.snd_nxt);
    }

    fn init_after_handshake(&mut self, _: Time, srtt: Time, min_rtt: Option<Time>, cwnd: f64) {
        self.srtt = srtt;
        self.p.init(srtt, min_rtt);
        if let Some(r) = self.rate.as_mut() {
            r.init(cwnd, srtt);
        }
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
        let indep = self.p.rtt_independent(i.cwnd < i.ssthresh as f64);
        if let Some(r) = self.rate.as_ref().filter(|r| r.active(indep) && i.srtt > 0) {
            // `prague_update_pacing_rate`'s rate branch, doubled as the window's while
            // snd_cwnd < ssthresh / 2.
            let rate = r.pacing_rate();
            return Some(if (i.cwnd.floor() as i64) < i.ssthresh / 2 {
                rate * 2.0
            } else {
                rate
            });
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
        if let Some(r) = &self.rate {
            out("prague_rate_bps", r.rate() * 8.0);
            out("prague_rate_mode", f64::from(u8::from(r.in_rate_mode())));
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

    fn ops_with(prague: PragueParams, packet_bytes: u32) -> PragueOps {
        use super::super::hystart::HystartParams;
        use super::super::{CongestionControlKind, CubicParams, CwndGrowth, DctcpParams};
        PragueOps::from_config(&ControllerConfig {
            kind: CongestionControlKind::Prague,
            cwnd_growth: CwndGrowth::PacketsAcked,
            hystart: HystartParams::default(),
            cubic: CubicParams::default(),
            dctcp: DctcpParams::default(),
            prague,
            packet_bytes,
            window_init: 10.0,
        })
    }

    fn ack(delivered: i64, ece: bool, (snd_una, snd_nxt): (i64, i64), now: Time) -> AckEvent {
        AckEvent {
            now,
            delivered,
            ece,
            // RFC 3168 or the exact echo: an ACK with ECE reports all it delivers as CE
            delivered_ce: if ece { delivered } else { 0 },
            snd_una,
            snd_nxt,
            srtt: MS,
        }
    }

    /// The core's ECN response as the sender runs it (`ecn_reduction = "immediate"`):
    /// ssthresh, cwnd = ssthresh, then `set_state(CWR)`.
    fn ecn(o: &mut PragueOps, w: &mut Window, now: Time) {
        let s = o.ssthresh(w, w.cwnd as i64, Signal::Ecn, now).unwrap();
        w.ssthresh = s.max(2);
        w.cwnd = w.ssthresh as f64;
        o.set_state(CaState::Cwr, w, &ctx());
    }

    /// v0.5's carry through the controller (alpha 1, no RTT scaling, 1-packet unit):
    /// - at snd_cwnd 10 an ACK of 10 unmarked packets adds 10 x 1 / 10 = 1.0 to the carry:
    ///   snd_cwnd 11, carry 0;
    /// - an ACK of 5 adds 5 / 11 = 0.4545: no step;
    /// - an ECN echo cuts the carry by alpha x snd_cwnd / 2 = 5.5 (carry -5.0455): ssthresh
    ///   kept (10) and snd_cwnd kept (11), as `prague_ssthresh` and `prague_enter_cwr` leave
    ///   them; then each ACK steps snd_cwnd down one packet while the carry is at most -1, and
    ///   ssthresh follows: 10, 9, 8, 7, 6, then it stops with -0.0455 owed.
    #[test]
    fn the_carry_cuts_and_walks_the_window_one_packet_per_ack() {
        let mut o = ops_with(
            PragueParams {
                window_update: WindowUpdate::Carry,
                alpha_start: AlphaStart::One,
                rtt_scaling: RttScaling::None,
                ..PragueParams::default()
            },
            1500,
        );
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: 10,
        };
        o.after_ecn_response(&ack(10, false, (10, 20), MS), &mut w);
        o.cong_avoid(&mut w, Acked::both(10), 0, MS);
        assert_eq!(w.cwnd, 11.0);
        assert!(o.carry().abs() < 1e-9);
        o.after_ecn_response(&ack(5, false, (15, 25), 2 * MS), &mut w);
        o.cong_avoid(&mut w, Acked::both(5), 0, MS);
        assert_eq!(w.cwnd, 11.0);
        assert!((o.carry() - 5.0 / 11.0).abs() < 1e-9);
        ecn(&mut o, &mut w, 3 * MS);
        assert_eq!((w.cwnd, w.ssthresh), (11.0, 10));
        assert!((o.carry() - (5.0 / 11.0 - 5.5)).abs() < 1e-9);
        let mut seen = vec![];
        for i in 0..6 {
            o.after_ecn_response(&ack(1, true, (16 + i, 26), 4 * MS), &mut w);
            seen.push((w.cwnd, w.ssthresh));
        }
        let want = [(10.0, 10), (9.0, 9), (8.0, 8), (7.0, 7), (6.0, 6), (6.0, 6)];
        assert_eq!(seen, want);
        assert!((o.carry() - (5.0 / 11.0 - 0.5)).abs() < 1e-9);
    }

    /// v0.7's window: the fractional window rounded up, reached one packet per ACK.
    /// - 10 unmarked at frac 10: frac 11, snd_cwnd 11; 11 more: frac 12, snd_cwnd 12;
    /// - the first echo halves frac to 6 (`prague_alpha_mode` 0); snd_cwnd stays 12 and
    ///   ssthresh 10;
    /// - three ECE ACKs step 12 -> 11 -> 10 -> 9 (ssthresh following);
    /// - an unmarked ACK of 2: it steps 9 -> 8 first, then its growth, 2 / 6: frac 6.333,
    ///   does not step again (one step per ACK);
    /// - two more ECE ACKs: 8 -> 7, then 7 = ceil(6.333): no step.
    #[test]
    fn the_window_steps_to_the_ceiling_of_the_fractional_window() {
        let mut o = ops_with(
            PragueParams {
                window_update: WindowUpdate::StepToCeiling,
                rtt_scaling: RttScaling::None,
                ..PragueParams::default()
            },
            1500,
        );
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: 10,
        };
        for (n, want) in [(10, 11.0), (11, 12.0)] {
            o.after_ecn_response(&ack(n, false, (n, 40), MS), &mut w);
            o.cong_avoid(&mut w, Acked::both(n), 0, MS);
            assert_eq!(w.cwnd, want);
        }
        ecn(&mut o, &mut w, 2 * MS);
        assert_eq!((w.cwnd, w.ssthresh), (12.0, 10));
        assert_eq!(o.frac, 6.0);
        let mut seen = vec![];
        for _ in 0..3 {
            o.after_ecn_response(&ack(1, true, (22, 40), 3 * MS), &mut w);
            seen.push(w.cwnd);
        }
        assert_eq!(seen, vec![11.0, 10.0, 9.0]);
        assert_eq!(w.ssthresh, 9);
        o.after_ecn_response(&ack(2, false, (24, 40), 3 * MS), &mut w);
        o.cong_avoid(&mut w, Acked::both(2), 0, MS);
        assert_eq!(w.cwnd, 8.0);
        assert!((o.frac - (6.0 + 2.0 / 6.0)).abs() < 1e-12, "{}", o.frac);
        for want in [7.0, 7.0] {
            o.after_ecn_response(&ack(1, true, (25, 40), 3 * MS), &mut w);
            assert_eq!(w.cwnd, want);
        }
    }

    /// The rate mode through the controller (v0.7 `switch`, 1500-byte packets, srtt 1 ms,
    /// RTT independent at once: `rtt_transition = 0`; alpha 1 so a cut halves):
    /// - the handshake: rate_bytes = 1500 x 4 / 1 ms = 6 MB/s, hsrtt 1 ms;
    /// - an echo at snd_cwnd 4: window mode still, frac 4 -> 2, snd_cwnd kept;
    /// - the next ACK (3 in flight): rate_bytes = 1500 / 1 ms x max(2, 3) = 4.5 MB/s; CE seen
    ///   and 4 x 1500 <= 6000: rate mode, frac = 4.5e6 x 0.001 x 0.953 674 / 1500 = 2.861;
    ///   snd_cwnd steps to 3;
    /// - pacing 1 ms after alpha's stamp (before half the 25 ms virtual RTT): +3.125 %,
    ///   4 640 625 B/s;
    /// - an echo 30 ms on (past the 25 ms spacing): the rate halves, 2.25 MB/s, frac 1.431;
    /// - an unmarked packet: + 1500 / (25 ms x 0.953 674) / ceil(2.25e6 x 0.025 x 0.953 674 /
    ///   1500 = 35.76) = 62 914.56 / 36 = 1 747.627 B/s.
    #[test]
    fn the_switch_enters_rate_mode_cuts_and_grows_the_rate() {
        let mut o = ops_with(
            PragueParams {
                window_update: WindowUpdate::StepToCeiling,
                window_mode: WindowMode::Switch,
                alpha_start: AlphaStart::One,
                rtt_transition: 0,
                ..PragueParams::default()
            },
            1500,
        );
        o.init_after_handshake(0, MS, None, 4.0);
        assert_eq!(o.rate_mode().unwrap().rate(), 6_000_000.0);
        let mut w = Window {
            cwnd: 4.0,
            ssthresh: 4,
        };
        o.pkts_acked(MS, &ack(0, false, (0, 4), 0), &mut w);
        ecn(&mut o, &mut w, 0);
        assert_eq!((w.cwnd, o.frac), (4.0, 2.0));
        assert!(!o.rate_mode().unwrap().in_rate_mode());
        o.after_ecn_response(&ack(1, true, (1, 4), MS), &mut w);
        let r = o.rate_mode().unwrap();
        assert!(r.in_rate_mode());
        assert_eq!(r.rate(), 4_500_000.0);
        assert!((o.frac - 4.5e6 * 0.001 * 0.953_674_316_406_25 / 1500.0).abs() < 1e-12);
        assert_eq!(w.cwnd, 3.0);
        let i = PacingInputs {
            cwnd: w.cwnd,
            ssthresh: w.ssthresh,
            packets_out: 3,
            srtt: MS,
            packet_bytes: 1500,
        };
        assert_eq!(o.pacing_rate(&i), Some(4_640_625.0));
        ecn(&mut o, &mut w, 30 * MS);
        assert_eq!(o.rate_mode().unwrap().rate(), 2_250_000.0);
        assert!((o.frac - 2.25e6 * 0.001 * 0.953_674_316_406_25 / 1500.0).abs() < 1e-12);
        o.cong_avoid(&mut w, Acked::both(1), 0, MS);
        let want = 2_250_000.0 + 1500.0 / (0.025 * 0.953_674_316_406_25) / 36.0;
        assert!((o.rate_mode().unwrap().rate() - want).abs() < 1e-6);
    }

    /// v0.5/v0.6's 128 us units (`RTT_UNIT 7`): target 15 ms = 117 units (14.976 ms), srtt
    /// 1 ms = 7 units (1000 / 128 = 7.8, truncated), so ai = (7 / 117)^2 = 0.003 579 5
    /// where exact times give (1 / 15)^2 = 0.004 444; 0.5 ms = 3 units: (3 / 117)^2; below
    /// 128 us srtt is 0 units and the increase unscaled (ai = 1); cuts spaced by 14.976 ms.
    #[test]
    fn rtt_in_128us_units_truncates() {
        let with = |rtt_unit| PragueParams {
            rtt_unit,
            rtt_target: Duration(15 * MS),
            rtt_transition: 1,
            ..PragueParams::default()
        };
        let (p, _) = independent(with(RttUnit::Exact), MS);
        assert!((p.ai - 1.0 / 225.0).abs() < 1e-15, "{}", p.ai);
        let (p, _) = independent(with(RttUnit::Us128), MS);
        assert_eq!(p.ai, (7.0 / 117.0) * (7.0 / 117.0));
        let (p, _) = independent(with(RttUnit::Us128), 500_000);
        assert_eq!(p.ai, (3.0 / 117.0) * (3.0 / 117.0));
        let (p, _) = independent(with(RttUnit::Us128), 100_000);
        assert_eq!(p.ai, 1.0);
        let (mut p, now) = independent(with(RttUnit::Us128), MS);
        assert!(p.on_ecn(100.0, now, MS, false).is_some());
        assert!(p.on_ecn(100.0, now + MS, MS, false).is_none());
        assert_eq!(p.on_ecn(50.0, now + 14_975_999, MS, false), None);
        assert!(p.on_ecn(50.0, now + 14_976_000, MS, false).is_some());
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
