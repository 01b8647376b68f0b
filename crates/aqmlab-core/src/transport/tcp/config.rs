//! TCP parameters, with ns-2's names in the docs and its defaults (tcl/lib/ns-default.tcl).

use super::congestion::cubic::{StateOnRto, TargetRtt};
use super::congestion::{
    CongestionControlKind, ControllerConfig, CubicParams, CwndGrowth, DctcpParams, HystartParams,
    PragueParams,
};
pub use super::pacing::Pacing;
use super::recovery::prr::PrrBound;
use super::recovery::rack_tlp::RackTlpParams;
pub use super::tso::SegmentationOffload;
use crate::units::Duration;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

pub use super::config_choices::*;

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    pub variant: TcpVariant,
    /// ECN-capable (ns-2 `ecn_`): data packets carry ECT, the sender reacts to ECE.
    pub ecn: bool,
    /// The codepoint of ECT data packets: `ect0` (RFC 3168, the default) | `ect1` (L4S,
    /// RFC 9331). Nothing without `ecn`.
    pub ecn_codepoint: EcnCodepoint,
    /// Payload bytes per data packet (ns-2 `packetSize_`, 1000).
    pub packet_size: u32,
    /// TCP/IP header bytes added to each data packet (40).
    pub header_size: u32,
    /// Bytes of an ACK on the wire (40).
    pub ack_size: u32,
    /// Receiver's advertised window cap in packets (ns-2 `window_`, 20).
    pub window: u32,
    /// Initial congestion window in packets (ns-2 `windowInit_`, 2).
    pub window_init: u32,
    /// Initial slow-start threshold in packets; unset = `window`.
    pub ssthresh_init: Option<u32>,
    /// Lower bound of the RTO (ns-2 `minrto_`: 0.2 s; 1 s in the 2001-2004 versions).
    pub min_rto: Duration,
    /// Upper bound of the RTO (ns-2 `maxrto_`, 60 s).
    pub max_rto: Duration,
    /// RTO before any RTT sample (ns-2 `rtxcur_init_`, 3 s).
    pub initial_rto: Duration,
    /// Granularity of RTT measurement (ns-2 `tcpTick_`, 10 ms).
    pub tick: Duration,
    /// Largest exponential backoff multiplier (ns-2 `maxbackoff_` behaviour, 64).
    pub max_backoff: u32,
    /// Duplicate ACKs that trigger fast retransmit (ns-2 `numdupacks_`, 3).
    pub dupack_threshold: u32,
    /// Receiver ACKs every second packet, or after `delayed_ack_timeout` (ns-2 DelAck sink).
    pub delayed_ack: bool,
    pub delayed_ack_timeout: Duration,
    /// Linux's immediate ACKs beside delayed ACKs (`linux_delack.rs`): 16 quick ACKs at the
    /// start, after an idle gap and after a duplicate arrival, 2 after a CE mark, and an
    /// immediate ACK of a CWR packet (`tcp_incr_quickack`, `tcp_enter_quickack_mode`,
    /// `tcp_ecn_accept_cwr`, net/ipv4/tcp_input.c). Off by default (ns-2's DelAck); nothing
    /// without `delayed_ack`.
    pub quick_ack: bool,
    /// How long a delayed ACK waits: `fixed` (`delayed_ack_timeout`, ns-2 DelAck, the
    /// default) | `adaptive` (Linux's ATO from the arrivals, `delayed_ack_timeout` its
    /// minimum, at most 200 ms; `tcp_event_data_recv`, `tcp_send_delayed_ack`,
    /// `tcp_delack_timer_handler`). Nothing without `delayed_ack`.
    pub delayed_ack_ato: DelayedAckAto,
    /// Most packets sent in reply to one ACK; 0 = unlimited (ns-2 `maxburst_`).
    pub max_burst: u32,
    /// Limited transmit (RFC 3042; ns-2 `singledup_`, on by default since 2001/11/28): each
    /// of the first two duplicate ACKs sends one new packet if the advertised window allows
    /// and no more than cwnd + dupacks packets are outstanding; cwnd is not changed.
    pub limited_transmit: bool,
    /// Which partial ACKs restart the retransmission timer: `first` | `every` (NewReno and
    /// SACK only). Unset = ns-2's default for the variant: `first` for newreno
    /// (`newreno_changes1_ 1`), `every` for sack (Sack1 `partial_ack_ false`). With
    /// `recovery = "rfc6675"` unset means `every` (RFC 6298 5.3: every ACK of new data),
    /// whatever the variant; `first` restarts it on the first partial ACK of each fast
    /// recovery only (ns-3: tcp-socket-base.cc, `TcpSocketBase::ProcessAck` calls
    /// `NewAck(ackNumber, m_isFirstPartialAck)`).
    pub partial_ack_timer: Option<PartialAckTimer>,
    /// Random send delay (ns-2 `overhead_`, default 0 = off): when the window allows a send,
    /// the sender waits uniform [0, overhead) (ns-2 `delsnd_timer_`) and then sends all the
    /// window allows, to break phase effects. Drawn from the sender's own random stream
    /// (seeded from the run seed and the agent), so a run stays deterministic. Every sender
    /// honours it: the `rfc6675` sender delays its window sends and its sends during a
    /// recovery (then what PRR allows when the delay ends), not the fast retransmit, limited
    /// transmit or a probe, as ns-2 sends those at once.
    pub overhead: Duration,
    /// How the window grows and shrinks: `reno` (RFC 5681 as ns-2 does it, the default) or
    /// `cubic` (RFC 9438), with any `variant`'s loss recovery; or `bbr` (BBR v1 as Linux
    /// tcp_bbr.c, `congestion/bbr.rs`: model-based, always paced), with `recovery =
    /// "rfc6675"` only.
    pub congestion_control: CongestionControlKind,
    /// What an ACK is worth to the window: `per_ack` (one increase per ACK, ns-2's
    /// `opencwnd`, the default) | `packets_acked` (every packet it covers, Linux's
    /// `tcp_slow_start` and `tcp_cong_avoid_ai`), with either controller.
    pub cwnd_growth: CwndGrowth,
    /// CUBIC's parameters (used with `congestion_control = "cubic"`).
    pub cubic: CubicParams,
    /// DCTCP's parameters (used with `congestion_control = "dctcp"`): `g` (1/16), `alpha_init`
    /// (1.0, Linux), `loss_response` (`halve`, RFC 8257 3.4 and Linux >= 5.1 | `alpha`).
    pub dctcp: DctcpParams,
    /// TCP Prague's parameters (used with `congestion_control = "prague"`): `rtt_target`
    /// (25 ms, the reference RTT of its RTT independence), `rtt_transition` (4 rounds out of
    /// slow start before it applies), `ai_unit` (`packet` | `mtu_sys`, tcp_prague.c v0.7's
    /// 1500 bytes per round trip), `window_rounding` (`floor` | `ceil`, tcp_prague.c v0.7),
    /// `rtt_scaling` (`rate` | `none` | `scalable` | `additive`, v0.5/v0.6's modes),
    /// `alpha_start` (`half_at_first_mark` | `one`), `classic_ecn` (`off` | `fallback` |
    /// `detect`, v0.5/v0.6's classic ECN bottleneck detection), `window_update` (`at_once` |
    /// `step_to_ceiling`, v0.6/v0.7 | `carry`, v0.5), `window_mode` (`window` | `rate` |
    /// `switch`, v0.7's rate mode at small windows), `rate_mode_transit` (4),
    /// `rtt_unit` (`exact` | `128us`, v0.5/v0.6).
    pub prague: PragueParams,
    /// A hybrid slow start: `hystart = { kind = "rfc9406" }` (or `{ enabled = true }`) is
    /// HyStart++ (RFC 9406) in the first slow start, with either controller: slow start then
    /// grows by min(packets acked, 8) per ACK and, when a round's minimum RTT exceeds the
    /// last round's by max(4 ms, min(RTT / 8, 16 ms)), turns into Conservative Slow Start (a
    /// quarter of that growth) for at most 5 rounds before congestion avoidance (ssthresh =
    /// cwnd); the delay test needs 8 RTT samples per round. `kind = "linux"` is Linux
    /// CUBIC's HyStart (ACK train and delay, `hystart_update`; nothing with Reno). Off by
    /// default (ns-2 has neither); `rfc6675` only.
    pub hystart: HystartParams,
    /// Loss recovery: `ns2` (the agent of `variant`, the default) or `rfc6675`.
    pub recovery: Recovery,
    /// RACK-TLP loss detection (RFC 8985; `rfc6675` only): `rack_tlp = { enabled = true }`.
    /// A packet is deemed lost when one sent after it is delivered and RACK.rtt plus a
    /// reordering window (min RTT / 4, 0 in recovery or with DupThresh packets SACKed) has
    /// passed since its sending, instead of by counting DupThresh SACKed packets above it;
    /// a tail loss probe 2 SRTT after the last ACK (plus `max_ack_delay`, 200 ms, with one
    /// packet in flight) draws the ACK that repairs a tail loss without a timeout. Off by
    /// default (ns-2 has no RACK-TLP); the `linux` profile turns it on.
    pub rack_tlp: RackTlpParams,
    /// What restarts the RTO: `new_ack` (RFC 6298, the default), `head_retransmission`
    /// (also resending the first unacknowledged packet, RFC 6675 section 6's option) or
    /// `linux` (that, and the RTO re-armed from the head's last transmission after a probe or
    /// reordering timer, `tcp_rearm_rto`). `rfc6675` only.
    pub rto_restart: RtoRestart,
    /// ssthresh and cwnd after a timeout: `rfc5681` (reduce every time, cwnd 1, the default)
    /// or `linux` (reduce once per window, cwnd = in flight + 1, `tcp_enter_loss`).
    /// `rfc6675` only.
    pub timeout_response: TimeoutResponse,
    /// F-RTO (RFC 5682 section 3's SACK-enhanced version, as Linux `tcp_process_loss`): after
    /// a timeout, the first ACK that advances sends new data instead of more repairs, and an
    /// ACK of data never retransmitted before RecoveryPoint undoes the timeout's reduction
    /// as spurious. Off by default. `rfc6675` only.
    pub frto: bool,
    /// Grow cwnd only while the flow is cwnd-limited (Linux `tcp_is_cwnd_limited` with
    /// `tcp_cwnd_validate`, `cwnd_use.rs`): a flow held back by the receiver's window keeps
    /// its cwnd. Off by default (RFC 5681 and ns-2 grow on every new ACK). `rfc6675` only.
    pub grow_only_when_cwnd_limited: bool,
    /// The window a congestion signal reduces from (`rfc6675` only): `flight_size` (RFC 5681
    /// eq. 4, the default) | `cwnd` (Linux) | `pipe` (ns-3). CUBIC's W_max and cwnd_prior
    /// come from the same window, and PRR's RecoverFS with `cwnd` (FlightSize otherwise).
    pub ssthresh_base: SsthreshBase,
    /// PRR's bound when the pipe falls below ssthresh (`rfc6675` only): `ssrb` (RFC 6937's
    /// recommended Slow Start Reduction Bound, the default), `crb` (Conservative), or
    /// `safe_ack` (RFC 9937 and Linux: the CRB, plus one packet on an ACK that advances the
    /// cumulative point without revealing a new loss).
    pub prr_bound: PrrBound,
    /// The receiver reports duplicate packets with a D-SACK block (RFC 2883), from which the
    /// `rfc6675` sender counts spurious retransmissions. Off by default: ns-2's sinks do not.
    pub dsack: bool,
    /// RTT samples from the timestamps option (RFC 7323 section 4.1): every ACK that
    /// advances the cumulative point gives one, from the echoed send time, retransmissions
    /// included; otherwise one packet per RTT is timed and retransmissions are not (Karn).
    /// `rfc6675` only; the ns-2 agents time as ns-2 does with `timestamps_ 0`.
    pub timestamps: bool,
    /// Which ACKs give RTT samples: `timed_packet` (RFC 6298, the default) or
    /// `oldest_unacked` (ns-3). `rfc6675` only.
    pub rtt_sampling: RttSampling,
    /// How the RTO is computed: `rfc6298` (max(min_rto, SRTT + 4 RTTVAR) in whole ticks, as
    /// ns-2; the default), `linux` (SRTT + RTTVAR with RTTVAR >= min_rto,
    /// `tcp_rtt_estimator`) or `ns3` (nanoseconds, RTO = srtt + max(tick, 4 rttvar)).
    /// `rfc6675` only.
    pub rto_estimator: RtoEstimatorKind,
    /// Duplicate ACKs during the repair after a timeout: `counted` (RFC 6675, the default) or
    /// `ignored` (ns-3). `rfc6675` only.
    pub dupacks_after_timeout: DupacksAfterTimeout,
    /// How a connection opens: `none` (data at once, the default) or `syn` (a SYN handshake
    /// first, timed by `initial_rto`). `rfc6675` only.
    pub handshake: Handshake,
    /// Pacing (`transport/tcp/pacing.rs`): `off` (the default: the window alone clocks the
    /// sends) | `on` (a per-flow pacing timer spaces the packets at Linux's
    /// `tcp_update_pacing_rate`: 200 % of cwnd / srtt while cwnd < ssthresh / 2, else
    /// 120 %, of max(cwnd, packets in flight); no pacing before an RTT sample). A controller
    /// with its own rate (bbr) paces whatever this says. `rfc6675` only.
    pub pacing: Pacing,
    /// How an ECN echo's reduction is reached (`rfc6675` only): `immediate` (cwnd = ssthresh
    /// at once, growth again from the next ACK without ECE; the default) | `prr` (Linux's CWR
    /// state: PRR over the round, no growth until it ends; `tcp_enter_cwr`,
    /// `tcp_cwnd_reduction`).
    pub ecn_reduction: EcnReduction,
    /// How a paced sender's packets leave (`transport/tcp/tso.rs`): `none` (one packet per
    /// pacing slot, the default) | `linux_autosize` (Linux's TSO/GSO skbs of
    /// `tcp_tso_autosize` segments, about 1 ms of the pacing rate and at least the
    /// controller's `min_tso_segs` or 2, sent back to back, the pacing timer waiting for the
    /// whole skb: `tcp_write_xmit`, `tcp_update_skb_after_send`). Nothing changes for an
    /// unpaced sender. `rfc6675` only.
    pub segmentation_offload: SegmentationOffload,
    /// The receiver's window growth (`linux_delack.rs`): `fixed` (the default: ns-2's sink,
    /// no growth phase) | `linux` (`tcp_grow_window`: `rcv_ssthresh` from 64 KB less a
    /// segment (`tcp_select_initial_window`, `tcp_init_buffer_space` with tcp_rmem[1] =
    /// 128 KB) grows by two segments per data segment within the room min(window_clamp,
    /// tcp_space()) that receive-buffer autotuning (`tcp_rcv_space_adjust`, `rcv_space.rs`)
    /// raises once per receiver RTT, tcp_rmem[2] being twice `window`; each segment that
    /// grows it is ACKed at once: the near ACK-per-segment slow start of a Linux receiver) |
    /// `linux_no_autotuning` (the growth up to half the window without autotuning's room).
    /// Nothing without `delayed_ack`.
    pub rcv_window_growth: RcvWindowGrowth,
    /// What a timeout resends (`rfc6675` only): `all_unsacked` (the go-back-N over every
    /// unSACKed packet, the default) | `linux` (`tcp_timeout_mark_lost`: with RACK, only the
    /// head and the packets sent at least RACK.rtt ago, then those RACK marks later).
    pub timeout_marks: TimeoutMarks,
    /// RFC 3168 6.1.1.1's fallback, Linux's `net.ipv4.tcp_ecn_fallback` (1 by default): a
    /// retransmitted SYN goes without ECE and CWR (`tcp_ecn_clear_syn`, from
    /// `__tcp_retransmit_skb`), so the SYN-ACK does not agree to ECN (`tcp_ecn_rcv_synack`
    /// clears TCP_ECN_OK) and the connection runs without it: its data Not-ECT, its
    /// controller told (`ecn_not_negotiated`; DCTCP falls back to Reno, `dctcp_init`'s
    /// `dctcp_reno`). False (the default): ECN whatever the handshake. Only with `handshake =
    /// "syn"` and `ecn`.
    pub ecn_fallback: bool,
    /// The ECN field of a SYN: `rfc3168` (Not-ECT, the default) | `linux` (ECT for a control
    /// that needs ECN, DCTCP and Prague: `tcp_ecn_send_syn`). Only with `handshake = "syn"` and
    /// `ecn`.
    pub syn_ect: SynEct,
    /// The ECN feedback the sender asks for: `classic` (RFC 3168) | `exact_echo` (DCTCP's,
    /// RFC 8257 section 3.2) | `accecn` (RFC 9768, `accecn.rs`; rfc6675 only). Unset (the
    /// default): `exact_echo` for DCTCP and Prague, `classic` for the others. Needs `ecn`.
    pub ecn_feedback: Option<EcnFeedback>,
    /// Whether the receiver supports AccECN (true, the default). False: a receiver that
    /// knows only classic ECN, as Linux 7.3 with its default `net.ipv4.tcp_ecn = 2`
    /// (`tcp_conn_request` accepts an AccECN SYN only with `tcp_ecn >= 3` or a controller
    /// that needs AccECN): the handshake then falls back to classic ECN feedback (RFC 9768
    /// section 3.1.2; `tcp_ecn_rcv_synack` with ACE = 0b001). Nothing unless `ecn_feedback =
    /// "accecn"`.
    pub receiver_accecn: bool,
    /// When an AccECN receiver sends the AccECN option: `full` (on every ACK, Linux's default
    /// `net.ipv4.tcp_ecn_option = 2`) | `minimum` (1: after CE marks and codepoint changes,
    /// and every third of the receiver's RTT) | `disabled` (never: ACE alone). Nothing without
    /// AccECN.
    pub accecn_option: AccEcnOptionSending,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            variant: TcpVariant::NewReno,
            ecn: false,
            ecn_codepoint: EcnCodepoint::Ect0,
            packet_size: 1000,
            header_size: 40,
            ack_size: 40,
            window: 20,
            window_init: 2,
            ssthresh_init: None,
            min_rto: Duration(200_000_000),
            max_rto: Duration(60_000_000_000),
            initial_rto: Duration(3_000_000_000),
            tick: Duration(10_000_000),
            max_backoff: 64,
            dupack_threshold: 3,
            delayed_ack: false,
            delayed_ack_timeout: Duration(100_000_000),
            quick_ack: false,
            delayed_ack_ato: DelayedAckAto::Fixed,
            max_burst: 0,
            limited_transmit: true,
            partial_ack_timer: None,
            overhead: Duration(0),
            congestion_control: CongestionControlKind::Reno,
            cwnd_growth: CwndGrowth::PerAck,
            cubic: CubicParams::default(),
            dctcp: DctcpParams::default(),
            prague: PragueParams::default(),
            hystart: HystartParams::default(),
            rack_tlp: RackTlpParams::default(),
            rto_restart: RtoRestart::NewAck,
            timeout_response: TimeoutResponse::Rfc5681,
            frto: false,
            grow_only_when_cwnd_limited: false,
            recovery: Recovery::Ns2,
            ssthresh_base: SsthreshBase::FlightSize,
            prr_bound: PrrBound::Ssrb,
            dsack: false,
            timestamps: false,
            rtt_sampling: RttSampling::TimedPacket,
            rto_estimator: RtoEstimatorKind::Rfc6298,
            dupacks_after_timeout: DupacksAfterTimeout::Counted,
            handshake: Handshake::None,
            pacing: Pacing::Off,
            ecn_reduction: EcnReduction::Immediate,
            segmentation_offload: SegmentationOffload::None,
            rcv_window_growth: RcvWindowGrowth::Fixed,
            timeout_marks: TimeoutMarks::AllUnsacked,
            ecn_fallback: false,
            syn_ect: SynEct::Rfc3168,
            ecn_feedback: None,
            receiver_accecn: true,
            accecn_option: AccEcnOptionSending::Full,
        }
    }
}

/// The largest packet, in bytes: an IPv4 packet's total length is a 16-bit field (RFC 791).
pub const MAX_PACKET_BYTES: u32 = 65_535;
/// The largest window (and initial window, ssthresh, dup-ACK threshold), in packets: the sink
/// buffers at most this many out-of-order packets.
pub const MAX_WINDOW_PACKETS: u32 = 1 << 20;
/// The largest RTO backoff factor (ns-2's default is 64); the doubling is done in u32.
pub const MAX_BACKOFF: u32 = 1 << 16;

impl TcpConfig {
    /// Data packets carry ECT(1) rather than ECT(0).
    #[inline]
    pub fn sends_ect1(&self) -> bool {
        self.ecn
            && (self.ecn_codepoint == EcnCodepoint::Ect1 || self.congestion_control.wants_ect1())
    }

    /// The partial-ACK timer rule in force: the configured one, else ns-2's default for the
    /// variant (Newreno `newreno_changes1_ 1`; Sack1 `partial_ack_ 0`).
    pub fn partial_ack_timer(&self) -> PartialAckTimer {
        self.partial_ack_timer.unwrap_or(match self.variant {
            TcpVariant::Sack => PartialAckTimer::Every,
            TcpVariant::Reno | TcpVariant::NewReno => PartialAckTimer::First,
        })
    }

    /// Whether the receiver sends SACK blocks.
    pub fn sack(&self) -> bool {
        self.variant == TcpVariant::Sack || self.recovery == Recovery::Rfc6675
    }

    /// The ECN feedback both ends use after the handshake: `ecn_feedback`, else the
    /// controller's; AccECN asked of a receiver without it falls back to classic (RFC 9768
    /// section 3.1.2). The outcome is fixed by the configuration, so the ends read it here
    /// whether or not the connection opens with a handshake.
    pub fn ecn_feedback_in_use(&self) -> EcnFeedback {
        let asked = self
            .ecn_feedback
            .unwrap_or(if self.congestion_control.needs_exact_ce_echo() {
                EcnFeedback::ExactEcho
            } else {
                EcnFeedback::Classic
            });
        if asked == EcnFeedback::Accecn && !self.receiver_accecn {
            EcnFeedback::Classic
        } else {
            asked
        }
    }

    /// The receiver echoes CE exactly, ACK by ACK (RFC 8257 section 3.2), instead of RFC
    /// 3168's latched ECE.
    pub fn exact_ce_echo(&self) -> bool {
        self.ecn_feedback_in_use() == EcnFeedback::ExactEcho
    }

    /// Both ends use Accurate ECN feedback (RFC 9768).
    pub fn accecn(&self) -> bool {
        self.ecn && self.ecn_feedback_in_use() == EcnFeedback::Accecn
    }

    /// Bytes of a data packet on the wire.
    pub fn data_size(&self) -> u32 {
        self.packet_size + self.header_size
    }

    /// What the congestion controller is built from.
    pub fn controller(&self) -> ControllerConfig {
        ControllerConfig {
            kind: self.congestion_control,
            cwnd_growth: self.cwnd_growth,
            hystart: self.hystart,
            cubic: self.cubic,
            dctcp: self.dctcp,
            prague: self.prague,
            packet_bytes: self.data_size(),
            window_init: self.window_init as f64,
        }
    }

    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        let err = |f: &str, m: String| Err(ScenarioError::new(format!("{path}.{f}"), m));
        if self.packet_size == 0 {
            return err("packet_size", "must be > 0".into());
        }
        if let Some(feedback) = self.ecn_feedback {
            if !self.ecn {
                return err(
                    "ecn_feedback",
                    "needs ecn = true (the feedback of ECN marks on a connection without ECN)"
                        .into(),
                );
            }
            if feedback == EcnFeedback::Accecn && self.recovery != Recovery::Rfc6675 {
                return err(
                    "ecn_feedback",
                    "\"accecn\" needs recovery = \"rfc6675\" (the ns-2 agents read ECE as \
                     RFC 3168's)"
                        .into(),
                );
            }
        }
        if self.congestion_control.needs_exact_ce_echo() {
            let name = serde_json::to_value(self.congestion_control)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            if self.recovery != Recovery::Rfc6675 {
                return err(
                    "congestion_control",
                    format!(
                        "\"{name}\" needs recovery = \"rfc6675\" (the ns-2 agents have no \
                         per-ACK ECN accounting)"
                    ),
                );
            }
            if !self.ecn {
                return err(
                    "ecn",
                    format!(
                        "congestion_control = \"{name}\" reads ECN marks: set ecn = true \
                         (RFC 8257 section 3)"
                    ),
                );
            }
        }
        self.dctcp.validate(&format!("{path}.dctcp"))?;
        if self.congestion_control.needs_rate_samples() && self.recovery != Recovery::Rfc6675 {
            return err(
                "congestion_control",
                "\"bbr\" needs recovery = \"rfc6675\" (it runs on the delivery-rate samples and pacing of the modern sender)".into(),
            );
        }
        self.prague.validate(&format!("{path}.prague"))?;
        if self.congestion_control.steps_its_window(&self.prague)
            && self.ecn_reduction != EcnReduction::Immediate
        {
            return err(
                "prague.window_update",
                "a stepping window (tcp_prague.c's own per-ACK steps) needs ecn_reduction = \"immediate\" (the prague profile's)".into(),
            );
        }
        if self.timestamps && self.recovery != Recovery::Rfc6675 {
            return err(
                "timestamps",
                "needs recovery = \"rfc6675\" (the ns-2 agents time as ns-2 does)".into(),
            );
        }
        self.hystart.validate(&format!("{path}.hystart"))?;
        if self.hystart.active().is_some() && self.recovery != Recovery::Rfc6675 {
            return err(
                if self.hystart.kind.is_some() {
                    "hystart.kind"
                } else {
                    "hystart.enabled"
                },
                "needs recovery = \"rfc6675\" (the ns-2 agents slow start as ns-2 does)".into(),
            );
        }
        if self.ssthresh_base != SsthreshBase::FlightSize && self.recovery != Recovery::Rfc6675 {
            return err(
                "ssthresh_base",
                "needs recovery = \"rfc6675\" (the ns-2 agents reduce from ns-2's window)".into(),
            );
        }
        // These need the RTT samples and the timeout hook only the modern sender gives the
        // controller; with the ns-2 agents they would be silently ignored.
        if self.cubic.target_rtt != TargetRtt::Srtt && self.recovery != Recovery::Rfc6675 {
            return err(
                "cubic.target_rtt",
                "needs recovery = \"rfc6675\" (the ns-2 agents give CUBIC no RTT samples)".into(),
            );
        }
        if self.cubic.state_on_rto != StateOnRto::Kept && self.recovery != Recovery::Rfc6675 {
            return err(
                "cubic.state_on_rto",
                "needs recovery = \"rfc6675\" (the ns-2 agents' timeout is ns-2's)".into(),
            );
        }
        if self.rack_tlp.enabled && self.recovery != Recovery::Rfc6675 {
            return err(
                "rack_tlp.enabled",
                "needs recovery = \"rfc6675\" (the ns-2 agents detect losses as ns-2 does)".into(),
            );
        }
        self.rack_tlp.validate(&format!("{path}.rack_tlp"))?;
        if self.rto_restart != RtoRestart::NewAck && self.recovery != Recovery::Rfc6675 {
            return err(
                "rto_restart",
                "needs recovery = \"rfc6675\" (the ns-2 agents restart the RTO as ns-2 does)"
                    .into(),
            );
        }
        // The ns-2 agents time, count duplicate ACKs and open as ns-2's.
        for (field, modern) in [
            (
                "rtt_sampling",
                self.rtt_sampling != RttSampling::TimedPacket,
            ),
            (
                "rto_estimator",
                self.rto_estimator != RtoEstimatorKind::Rfc6298,
            ),
            (
                "dupacks_after_timeout",
                self.dupacks_after_timeout != DupacksAfterTimeout::Counted,
            ),
            ("handshake", self.handshake != Handshake::None),
            ("ecn_fallback", self.ecn_fallback),
            ("syn_ect", self.syn_ect != SynEct::Rfc3168),
            ("pacing", self.pacing != Pacing::Off),
            (
                "segmentation_offload",
                self.segmentation_offload != SegmentationOffload::None,
            ),
            (
                "timeout_response",
                self.timeout_response != TimeoutResponse::Rfc5681,
            ),
            ("frto", self.frto),
            (
                "ecn_reduction",
                self.ecn_reduction != EcnReduction::Immediate,
            ),
            (
                "timeout_marks",
                self.timeout_marks != TimeoutMarks::AllUnsacked,
            ),
            (
                "grow_only_when_cwnd_limited",
                self.grow_only_when_cwnd_limited,
            ),
        ] {
            if modern && self.recovery != Recovery::Rfc6675 {
                return err(
                    field,
                    "needs recovery = \"rfc6675\" (the ns-2 agents behave as ns-2's)".into(),
                );
            }
        }
        if self.dsack && self.recovery != Recovery::Rfc6675 {
            // ns-2's Sack1 would read a D-SACK block as new SACK information.
            return err(
                "dsack",
                "needs recovery = \"rfc6675\" (the ns-2 agents do not read D-SACK blocks)".into(),
            );
        }
        // Upper bounds (issue 11, item 3): beyond them the engine's u32 arithmetic would wrap
        // (packet_size 4294967290 gave a goodput of 6.75e13 b/s) or a run would need more
        // memory than any machine has.
        for (field, v, max) in [
            ("packet_size", self.packet_size, MAX_PACKET_BYTES),
            ("header_size", self.header_size, MAX_PACKET_BYTES),
            ("ack_size", self.ack_size, MAX_PACKET_BYTES),
            ("window", self.window, MAX_WINDOW_PACKETS),
            ("window_init", self.window_init, MAX_WINDOW_PACKETS),
            (
                "ssthresh_init",
                self.ssthresh_init.unwrap_or(1),
                MAX_WINDOW_PACKETS,
            ),
            (
                "dupack_threshold",
                self.dupack_threshold,
                MAX_WINDOW_PACKETS,
            ),
            ("max_backoff", self.max_backoff, MAX_BACKOFF),
        ] {
            if v > max {
                return err(field, format!("must be at most {max}, got {v}"));
            }
        }
        if self.packet_size + self.header_size > MAX_PACKET_BYTES {
            return err(
                "packet_size",
                format!(
                    "packet_size + header_size must be at most {MAX_PACKET_BYTES} bytes (an IP \
                     packet, RFC 791), got {} + {}",
                    self.packet_size, self.header_size
                ),
            );
        }
        if self.window == 0 {
            return err("window", "must be at least 1 packet".into());
        }
        if self.window_init == 0 {
            return err("window_init", "must be at least 1 packet".into());
        }
        if self.ssthresh_init == Some(0) {
            return err("ssthresh_init", "must be at least 1 packet".into());
        }
        if self.tick.0 == 0 {
            return err("tick", "must be > 0".into());
        }
        if self.min_rto.0 > self.max_rto.0 {
            return err(
                "min_rto",
                format!("must not exceed max_rto ({}s)", self.max_rto.secs()),
            );
        }
        if self.initial_rto.0 == 0 {
            return err("initial_rto", "must be > 0".into());
        }
        if self.max_backoff == 0 {
            return err("max_backoff", "must be at least 1".into());
        }
        if self.dupack_threshold == 0 {
            return err("dupack_threshold", "must be at least 1".into());
        }
        if self.partial_ack_timer.is_some() && self.variant == TcpVariant::Reno {
            return err(
                "partial_ack_timer",
                "reno has no partial ACKs (it leaves recovery on the first new ACK): \
                 set it for newreno or sack flows only"
                    .into(),
            );
        }
        self.cubic.validate(&format!("{path}.cubic"))
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
