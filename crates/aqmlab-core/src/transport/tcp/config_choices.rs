//! The named choices of `TcpConfig`'s fields (`config.rs`): each the value a scenario writes
//! (serde, snake or lower case), with the source of every reading it names.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TcpVariant {
    /// ns-2 Agent/TCP/Reno.
    Reno,
    /// ns-2 Agent/TCP/Newreno (RFC 6582 partial ACKs).
    NewReno,
    /// ns-2 Agent/TCP/Sack1 (RFC 6675-style pipe, with the receiver's SACK blocks).
    Sack,
}

/// How losses are detected and repaired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    /// The ns-2 agent of `variant` (Reno, NewReno, Sack1), unchanged: the papers' TCP.
    #[default]
    Ns2,
    /// RFC 6675 SACK recovery with PRR (RFC 6937); the sink sends SACK blocks.
    Rfc6675,
}

/// Which partial ACKs of a fast recovery restart the retransmission timer (NewReno and
/// SACK; Reno leaves recovery on the first new ACK and has no partial ACKs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PartialAckTimer {
    /// Only the first partial ACK of a recovery restarts the timer, so a window with many
    /// losses ends in a timeout instead of one repair per RTT (RFC 6582 3.2 step 5, the
    /// "Impatient" variant of RFC 2582 4; ns-2 Agent/TCP/Newreno `newreno_changes1_ 1`, its
    /// default since 2003/05/05; Agent/TCP/Sack1 with `partial_ack_ true`).
    First,
    /// Every partial ACK restarts the timer: one hole repaired per RTT for as long as it
    /// takes (the "Slow-but-Steady" variant of RFC 2582 4; ns-2 Newreno with
    /// `newreno_changes1_ 0`; ns-2 Sack1's default, `partial_ack_ false`).
    Every,
}

/// What restarts the retransmission timer besides its first arming (`rfc6675` only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoRestart {
    /// An ACK of new data (RFC 6298 5.3).
    #[default]
    NewAck,
    /// Also a retransmission of the first unacknowledged packet, so that a long recovery
    /// does not time out while it still repairs (Linux `tcp_xmit_retransmit_queue` re-arms
    /// the RTO when it resends the head; RFC 6675 section 6 allows re-arming on
    /// retransmissions during recovery).
    HeadRetransmission,
    /// Linux's rules in full: a resent head restarts the timer unless the reordering timer
    /// is pending (`tcp_xmit_retransmit_queue`), and when the timer slot goes back to the RTO
    /// from a pending probe or reordering timer, the RTO counts from the head's last
    /// transmission, not from now (`tcp_rearm_rto` with `tcp_rto_delta_us`,
    /// include/net/tcp.h), as after a new ACK that schedules no probe.
    Linux,
}

/// What a retransmission timeout does to ssthresh and cwnd (`rfc6675` only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutResponse {
    /// RFC 5681 section 3.1 with RFC 6298 5.5: ssthresh from the controller's reduction of
    /// FlightSize at every timeout, cwnd = 1 (the loss window).
    #[default]
    Rfc5681,
    /// Linux `tcp_enter_loss` (net/ipv4/tcp_input.c): ssthresh is reduced only if no
    /// reduction was made for this window (no fast recovery or earlier timeout whose
    /// RecoveryPoint is still unacknowledged), and cwnd = the packets still in flight after
    /// the timeout's loss marks + 1.
    Linux,
}

/// How the `rfc6675` sender reaches the window an ECN echo asks for (`tcp.ecn_reduction`).
/// Not used by a controller with `cong_control` (it sets its own window).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnReduction {
    /// cwnd = ssthresh on the ECE ACK (RFC 3168 section 6.1.2), growth on the next ACK
    /// without ECE (the default, ns-2's reading).
    #[default]
    Immediate,
    /// Linux's CWR state (net/ipv4/tcp_input.c `tcp_enter_cwr`, `tcp_init_cwnd_reduction`):
    /// ssthresh from the controller, PRR's counters from prior_cwnd; every ACK until one
    /// acknowledges data above the snd_nxt of the entry sets cwnd = in flight + PRR's sndcnt
    /// (`tcp_cong_control` -> `tcp_cwnd_reduction`, never `tcp_cong_avoid`); that ACK ends it
    /// with cwnd = ssthresh (`tcp_fastretrans_alert` -> `tcp_end_cwnd_reduction`).
    Prr,
}

/// What a retransmission timeout resends (`tcp.timeout_marks`, `rfc6675` only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutMarks {
    /// Every unSACKed packet from the head up, in order (go-back-N, RFC 6675 section 5.1).
    #[default]
    AllUnsacked,
    /// Linux `tcp_timeout_mark_lost` (net/ipv4/tcp_input.c, from `tcp_enter_loss`): with
    /// RACK, the head and each unSACKed packet sent at least RACK.rtt ago
    /// (`tcp_rack_skb_timeout(tp, skb, 0) <= 0`: no reordering window) are marked lost; in
    /// the Loss state only marked packets are resent (`tcp_xmit_retransmit_queue`), then new
    /// data (`tcp_write_xmit`), each while the pipe is below cwnd, after every ACK; later
    /// ACKs' RACK marks add to them. Without RACK Linux marks every unSACKed packet, as
    /// `all_unsacked`.
    Linux,
}

/// The ECN field of a SYN (`tcp.syn_ect`; with `handshake = "syn"` and `ecn`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SynEct {
    /// Not-ECT, always: RFC 3168 section 6.1.1 ("a host MUST NOT set ECT on SYN or SYN-ACK
    /// packets").
    #[default]
    Rfc3168,
    /// As Linux's `tcp_ecn_send_syn` (net/ipv4/tcp_output.c): a congestion control that needs
    /// ECN (`TCP_CONG_NEEDS_ECN`: DCTCP, Prague) sets ECT on the socket before the SYN
    /// (`INET_ECN_xmit`), so its SYNs, a retransmitted one too, are ECN-capable (ECT(1) for
    /// Prague) and an AQM marks rather than drops them; other controls send Not-ECT SYNs.
    Linux,
}

/// The window a congestion signal reduces from: CUBIC's W_max and cwnd_prior, ssthresh, and
/// PRR's RecoverFS (`rfc6675` only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshBase {
    /// FlightSize, the packets sent and not cumulatively acknowledged (RFC 5681 eq. 4;
    /// RFC 9438 4.6; RFC 6937's RecoverFS).
    #[default]
    FlightSize,
    /// cwnd (Linux: `tcp_init_cwnd_reduction` sets `prior_cwnd = snd_cwnd`, PRR's RecoverFS,
    /// and calls the controller's `ssthresh`, which reads `snd_cwnd`: `tcp_reno_ssthresh`,
    /// `cubictcp_recalc_ssthresh`; `tcp_enter_loss` the same for an RTO; net/ipv4/
    /// tcp_input.c, tcp_cong.c, tcp_cubic.c).
    Cwnd,
    /// RFC 6675's pipe, the packets deemed in the network, after this ACK's SACK information,
    /// with the first unacknowledged packet counted as lost at the entry to fast recovery:
    /// what ns-3 hands the controller (src/internet/model/tcp-socket-base.cc,
    /// `TcpSocketBase::EnterRecovery`: `MarkHeadAsLost`, then `BytesInFlight()`, which is
    /// `TcpTxBuffer::BytesInFlight`: sent - SACKed - lost + retransmitted; `ReTxTimeout` and
    /// `EnterCwr` take `BytesInFlight()` as it stands). PRR's RecoverFS stays FlightSize
    /// (`TcpPrrRecovery::EnterRecovery` is given `UnAckDataCount()`). A timeout while the
    /// first unacknowledged packet has already been sent again by an earlier timeout keeps
    /// ssthresh (`ReTxTimeout` reduces only outside `CA_LOSS` or when the head is not yet
    /// retransmitted; RFC 5681 section 3.1 holds ssthresh then too): the pipe is then that
    /// one packet.
    Pipe,
}

/// Which ACKs give an RTT sample when timestamps are off (`rfc6675` only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RttSampling {
    /// One packet at a time is timed, never a retransmission (RFC 6298 section 3, Karn; ns-2
    /// with `timestamps_` off); with timestamps, every ACK that advances the cumulative point
    /// (RFC 7323 section 4.1).
    #[default]
    TimedPacket,
    /// Every ACK that cumulatively acknowledges the oldest packet whose first sending is on
    /// record gives a sample, from that sending (from the echoed timestamp with timestamps
    /// on), unless the packet was sent again; a timeout clears the record, so the samples
    /// resume with the first new packet sent after it (ns-3, tcp-socket-base.cc:
    /// `TcpSocketBase::EstimateRtt` reads the front of `m_history`, which
    /// `UpdateRttHistory` fills with each new segment and marks on a retransmission, and which
    /// `ReTxTimeout` empties). With `handshake = "syn"` the first sample is the SYN's.
    OldestUnacked,
}

/// How the RTO is computed from RTT samples (`rfc6675` only; both readings of RFC 6298's
/// estimator, gains 1/8 and 1/4, K = 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoEstimatorKind {
    /// RFC 6298 as ns-2 computes it (tcp/tcp.cc `rtt_update`, `rtt_timeout`,
    /// `rtt_backoff`; `rtt.rs`): samples in whole ticks of `tick`, RTO = max(min_rto, srtt +
    /// 4 rttvar) truncated to ticks, and past the 8th backoff srtt is dropped so that the next
    /// sample starts the estimate again.
    #[default]
    Rfc6298,
    /// Linux: RTO = SRTT + RTTVAR with RTTVAR the round trip's largest mean deviation, never
    /// below min_rto (net/ipv4/tcp_input.c `tcp_rtt_estimator`, `tcp_set_rto`;
    /// `linux_rtt.rs`).
    Linux,
    /// RFC 6298 as ns-3 computes it: in nanoseconds, RTO = max(min_rto, srtt + max(G, 4
    /// rttvar)) with G = `tick` (RFC 6298 (2.3)), the estimate kept across backoffs
    /// (src/internet/model/rtt-estimator.cc, `RttMeanDeviation::Measurement` and
    /// `IntegerUpdate`; tcp-socket-base.cc `EstimateRtt` and `NewAck`, `ClockGranularity`
    /// as G).
    Ns3,
}

/// Whether duplicate ACKs count while the sender repairs after a timeout, until the
/// cumulative ACK covers what was outstanding at the timeout (`rfc6675` only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DupacksAfterTimeout {
    /// They count as at any time (RFC 6675 sections 5 and 5.1): limited transmit sends on
    /// them, and fast recovery may start on the ACK that ends the repair.
    #[default]
    Counted,
    /// They are ignored: no count, no limited transmit, no fast recovery from an ACK
    /// received during the repair, the one that ends it included (ns-3: tcp-socket-base.cc,
    /// `TcpSocketBase::DupAck` returns at once in `CA_LOSS`, and `ProcessAck` calls it before
    /// leaving `CA_LOSS`).
    Ignored,
}

/// How a connection opens (`rfc6675` only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Handshake {
    /// Data flows from the flow's start, as from ns-2's agents.
    #[default]
    None,
    /// A SYN first (an `ack_size` packet through the network, lost like any other), sent
    /// again after `initial_rto`, doubled each time, until the receiver's SYN-ACK (an
    /// immediate ACK) arrives; data then starts, and the SYN's round trip is the first RTT
    /// sample (RFC 9293 section 3.5's three-way handshake, the third segment being the first
    /// data packet). Under `rtt_sampling = "oldest_unacked"` the sample spans every SYN sent,
    /// as in ns-3: `TcpSocketBase::SendEmptyPacket` records the first SYN in `m_history` with
    /// length 0, and `UpdateRttHistory` cannot mark a zero-length entry as retransmitted
    /// (`seq < i->seq + i->count` never holds), so after SYN timeouts of 3 and 6 s the first
    /// sample is about 9 s.
    Syn,
}

/// How long a delayed ACK waits (`tcp.delayed_ack_ato`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DelayedAckAto {
    /// Always `delayed_ack_timeout` (ns-2 DelAck's `interval_`).
    #[default]
    Fixed,
    /// Linux's ATO, from `delayed_ack_timeout` up (module docs).
    Adaptive,
}

/// Whether the receiver's window grows during a transfer, with a quick ACK for each segment
/// that grows it (`tcp.rcv_window_growth`, `linux_delack.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RcvWindowGrowth {
    /// The advertised window is `window` from the start; no ACK is sent for its growth.
    #[default]
    Fixed,
    /// Linux's `rcv_ssthresh` (`tcp_grow_window`, net/ipv4/tcp_input.c): from the initial
    /// window of the default `tcp_rmem` up, two segments per data segment, each segment
    /// that grows it ACKed at once, within the room that receive-buffer autotuning
    /// (`tcp_rcv_space_adjust`, `rcv_space.rs`) gives it once per receiver RTT.
    Linux,
    /// The growth without autotuning's room: from the initial window up to half the window
    /// (`__tcp_grow_window`'s bound for skbs of truesize above twice their length), every
    /// segment on the way ACKed at once (the first model, kept for comparison).
    LinuxNoAutotuning,
}

/// Which ECT codepoint an ECN-capable sender's data carries (`tcp.ecn_codepoint`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnCodepoint {
    /// ECT(0), 0b10: classic ECN (RFC 3168), and DCTCP (RFC 8257 section 3.2).
    #[default]
    Ect0,
    /// ECT(1), 0b01: the L4S identifier (RFC 9331 section 4.1), which a dual queue (RFC 9332)
    /// classifies into its low-latency queue.
    Ect1,
}

/// How the receiver feeds ECN marks back (`tcp.ecn_feedback`; with `ecn`). Unset: the
/// controller's, `exact_echo` for the ones that read the echo as a fraction (DCTCP, Prague),
/// `classic` for the others: what every scenario ran with before the option.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnFeedback {
    /// RFC 3168 section 6.1.3: ECE from the first CE until a CWR arrives.
    Classic,
    /// DCTCP's receiver (RFC 8257 section 3.2, Linux `dctcp_ece_ack_update`): every ACK's
    /// ECE is the CE state of the packets it covers.
    ExactEcho,
    /// Accurate ECN (RFC 9768, Linux 7.3): the 3-bit ACE counter of CE packets on every ACK
    /// and the AccECN option's byte counters (`accecn.rs`), if the receiver supports it
    /// (`tcp.receiver_accecn`); otherwise the handshake falls back to `classic` (RFC 9768
    /// section 3.1.2).
    Accecn,
}

/// When an AccECN receiver sends the AccECN option (`tcp.accecn_option`), Linux's
/// `net.ipv4.tcp_ecn_option` (net/ipv4/tcp_output.c `tcp_established_options`; default
/// `TCP_ACCECN_OPTION_FULL`, net/ipv4/tcp_ipv4.c).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AccEcnOptionSending {
    /// On every ACK, with as many fields as fit beside the SACK blocks (2, the default).
    #[default]
    Full,
    /// On the two ACKs after a CE mark or a change of codepoint, once a byte counter crosses
    /// a multiple of 2^22, and as a beacon at least every third of the receiver's smoothed
    /// RTT (1; `tcp_ecn_received_counters`' `accecn_opt_demand`,
    /// `tcp_accecn_option_beacon_check` with `tcp_ecn_option_beacon = 3`). The receiver's
    /// RTT is the handshake's (`tcp_synack_rtt_meas`: the SYN-ACK to the first packet after
    /// it); without a handshake it has no sample and, as Linux's check with `srtt_us = 0`,
    /// beacons on every ACK.
    Minimum,
    /// Never (0): ACE alone (RFC 9768 section 3.2.3.3 allows a receiver not to send it).
    Disabled,
}
