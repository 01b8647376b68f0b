//! The hooks a congestion controller offers the sender, after Linux's `struct
//! tcp_congestion_ops` (include/net/tcp.h) and the points of net/ipv4/tcp_input.c and
//! tcp_cong.c that call them (`tcp_in_ack_event`, `tcp_clean_rtx_queue`'s `pkts_acked`,
//! `tcp_init_cwnd_reduction`, `tcp_enter_loss`, `tcp_set_ca_state`, `tcp_ca_event`,
//! `tcp_cong_control`, `tcp_undo_cwnd_reduction`). The sender core (`rfc6675_sender/`) calls
//! them and names no controller; each controller (`reno.rs`, `cubic.rs`, `dctcp.rs`,
//! `prague.rs`, `bbr.rs`) implements the ones it needs. A default method does what Linux's core
//! does when the op is absent (`tcp_reno_ssthresh`, `tcp_reno_undo_cwnd`, nothing).
//!
//! Windows are in packets: cwnd fractional, ssthresh whole (ns-2's units, kept by every
//! controller). The hooks that change the window get it as [`Window`], as Linux's get the
//! socket: Linux's ops write `snd_cwnd` and `snd_ssthresh` themselves.
//!
//! ARCHITECTURE.md, "The congestion-control hooks", lists when the core calls each hook and
//! which controller uses which.

use crate::sim::Time;
use crate::transport::tcp::delivery_rate::DeliveryRate;
use crate::transport::tcp::pacing::PacingInputs;

/// The sender's window (Linux `snd_cwnd`, `snd_ssthresh`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub cwnd: f64,
    pub ssthresh: i64,
}

impl Window {
    /// Linux `tcp_in_slow_start`, on the fractional window.
    pub fn slow_start(&self) -> bool {
        self.cwnd < self.ssthresh as f64
    }
}

/// The sender's loss-recovery state (Linux `enum tcp_ca_state`, with its values: a
/// controller may compare them, as `bbr_save_cwnd` does). The core reports Open, CWR,
/// Recovery and Loss; Disorder (duplicate ACKs or SACKs before a recovery) is not
/// distinguished from Open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    Open = 0,
    Disorder = 1,
    Cwr = 2,
    Recovery = 3,
    Loss = 4,
}

/// Why the core asks for a new ssthresh ([`CongestionOps::ssthresh`]). Linux's op has no
/// argument: the controller learns the reason from the state change that follows
/// (`dctcp_react_to_loss` from `dctcp_state(TCP_CA_Recovery)` and `CA_EVENT_LOSS`); here it is
/// told at once, as DCTCP's ECN and loss reductions differ and both start from the core's
/// reduction base (`tcp.ssthresh_base`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// A fast recovery starts, or a tail-loss probe repaired a loss
    /// (`tcp_enter_recovery`, `tcp_process_tlp_ack`).
    Loss,
    /// A retransmission timeout (`tcp_enter_loss`).
    Timeout,
    /// An ECN echo acted on (`tcp_enter_cwr`).
    Ecn,
}

/// Events outside the state changes (Linux `enum tcp_ca_event`, the ones aqmlab raises).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaEvent {
    /// A timeout's reduction (`tcp_enter_loss`: `CA_EVENT_LOSS` after `ssthresh`).
    Loss,
    /// A reduction ended, cwnd = ssthresh (`tcp_end_cwnd_reduction`:
    /// `CA_EVENT_COMPLETE_CWR`); not raised for a controller with `cong_control`, as Linux.
    CompleteCwr,
}

/// One ACK as the accounting hooks see it.
#[derive(Debug, Clone, Copy)]
pub struct AckEvent {
    pub now: Time,
    /// Packets the ACK newly delivers, cumulatively or by SACK (Linux `acked_sacked`,
    /// `tcp_newly_delivered`).
    pub delivered: i64,
    /// Whether it carries ECE (`FLAG_ECE`; with AccECN, whether it reports a CE packet).
    pub ece: bool,
    /// The CE-marked packets it reports (Linux's increase of `tp->delivered_ce`): all it
    /// delivers when it carries ECE under RFC 3168 or the exact echo (`tcp_count_delivered`),
    /// the ACE field's decoded delta under AccECN (`tcp_accecn_process`).
    pub delivered_ce: i64,
    /// The first unacknowledged packet after it, and the next new one (highest sent + 1).
    pub snd_una: i64,
    pub snd_nxt: i64,
    /// Smoothed RTT (0 before a sample).
    pub srtt: Time,
}

/// What a growth step is worth (`tcp.cwnd_growth` picks one; a controller may insist on
/// the other, as Prague on `delivered`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Acked {
    /// Packets the ACK newly acknowledges cumulatively (ns-2's `opencwnd` count).
    pub newly_acked: i64,
    /// Packets it newly delivers (Linux's `acked_sacked`).
    pub delivered: i64,
}

impl Acked {
    /// The same count both ways (the ns-2 agents, which know no SACK in their growth).
    pub fn both(n: i64) -> Self {
        Acked {
            newly_acked: n,
            delivered: n,
        }
    }
}

/// What a `cong_control` controller is told on an ACK besides the rate sample.
#[derive(Debug, Clone, Copy)]
pub struct AckInfo {
    pub now: Time,
    /// Packets in flight after the ACK (`tcp_packets_in_flight`: the pipe).
    pub in_flight: i64,
    pub ca_state: CaState,
    /// Smoothed RTT (0 before a sample).
    pub srtt: Time,
    /// The pacer's next departure time (`tcp_wstamp_ns`).
    pub next_departure: Time,
}

/// What [`CongestionOps::set_state`] may read.
#[derive(Debug, Clone, Copy)]
pub struct StateCtx<'a> {
    pub now: Time,
    pub snd_nxt: i64,
    /// The connection's delivery counts, kept only for a controller that wants rate samples.
    pub rate: Option<&'a DeliveryRate>,
}

/// A congestion controller's hooks (Linux `struct tcp_congestion_ops`).
pub trait CongestionOps {
    /// `ssthresh`: the slow-start threshold on entering a reduction, from the core's
    /// reduction base `base` (before the core's floor of 2). None keeps `snd_ssthresh` as it
    /// is: no cut (BBR's `bbr_ssthresh`; Prague within its reference RTT of its last cut, for
    /// which the core counts no ECN reduction). Default: half (`tcp_reno_ssthresh`).
    fn ssthresh(&mut self, w: &Window, base: i64, signal: Signal, now: Time) -> Option<i64> {
        let _ = (w, signal, now);
        Some(base / 2)
    }

    /// `cong_avoid`: growth on an ACK of new data outside any reduction (`tcp_cong_avoid`,
    /// from `tcp_cong_control`). Never called for a controller with `cong_control`.
    fn cong_avoid(&mut self, w: &mut Window, acked: Acked, now: Time, srtt: Time) {
        let _ = (w, acked, now, srtt);
    }

    /// Whether the controller sets cwnd (and pacing) itself on every ACK, through
    /// [`Self::cong_control`] (Linux: `cong_control` is set). The core then skips its own
    /// growth, PRR's sends count (the recovery sends what cwnd allows over the pipe), cwnd =
    /// ssthresh at a reduction's end, and the ECN cut (`tcp_cong_control`,
    /// `tcp_end_cwnd_reduction`).
    fn has_cong_control(&self) -> bool {
        false
    }

    /// `cong_control`: the ACK's update, after its loss marks and recovery state are known
    /// and before anything is sent on it, with the rate sample the core has just generated
    /// (`tcp_rate_gen`). Called only when [`Self::has_cong_control`].
    fn cong_control(&mut self, rate: &mut DeliveryRate, ack: &AckInfo, w: &mut Window) {
        let _ = (rate, ack, w);
    }

    /// Whether the core keeps delivery-rate samples (`struct rate_sample`, tcp_rate.c) for
    /// this controller.
    fn wants_rate_sample(&self) -> bool {
        false
    }

    /// `in_ack_event`: every ACK, in or out of a reduction, after the scoreboard took it and
    /// before the ECN response (`tcp_in_ack_event`).
    fn in_ack_event(&mut self, ack: &AckEvent) {
        let _ = ack;
    }

    /// The same ACK after the core's ECN response (a CWR entry on this ACK included) and
    /// before its loss detection: the per-ACK accounting Linux runs at the start of a
    /// `cong_control` op (`prague_cong_control`), for a controller whose growth is the core's.
    /// It may move `w` (Prague's one-packet step per ACK toward its own window).
    fn after_ecn_response(&mut self, ack: &AckEvent, w: &mut Window) {
        let _ = (ack, w);
    }

    /// `pkts_acked`: an ACK of new data with its RTT sample `rtt` (from the echoed send
    /// time; `tcp_clean_rtx_queue`), before that ACK's growth. `w` is the window before it; a
    /// controller may set `w.ssthresh` (Linux HyStart's exit).
    fn pkts_acked(&mut self, rtt: Time, ack: &AckEvent, w: &mut Window) {
        let _ = (rtt, ack, w);
    }

    /// `set_state`: the core enters `state` (`tcp_set_ca_state`), after its reduction for it
    /// (ssthresh and, for CWR with `ecn_reduction = "immediate"`, cwnd = ssthresh; with
    /// `"prr"` cwnd comes down by PRR afterwards, as Linux's) is applied to `w`.
    fn set_state(&mut self, state: CaState, w: &mut Window, cx: &StateCtx) {
        let _ = (state, w, cx);
    }

    /// `cwnd_event` (`tcp_ca_event`).
    fn cwnd_event(&mut self, event: CaEvent, w: &mut Window) {
        let _ = (event, w);
    }

    /// `undo_cwnd`: the window after an undo (F-RTO found a timeout spurious), given the
    /// window before the reduction (`prior_cwnd`). Default: the larger (`tcp_reno_undo_cwnd`).
    fn undo_cwnd(&mut self, w: &Window, prior_cwnd: f64) -> f64 {
        w.cwnd.max(prior_cwnd)
    }

    /// Whether the controller paces whatever `tcp.pacing` says (Linux `sk_pacing_status =
    /// SK_PACING_NEEDED`).
    fn always_paces(&self) -> bool {
        false
    }

    /// The pacing rate at the start, bytes (of wire size) per second, if the controller sets
    /// one (`bbr_init_pacing_rate_from_rtt`).
    fn initial_pacing_rate(&self) -> Option<f64> {
        None
    }

    /// The controller's own pacing rate after an ACK, bytes per second; None = the core's
    /// rule (`tcp_update_pacing_rate`, `pacing.rs`).
    fn pacing_rate(&self, inputs: &PacingInputs) -> Option<f64> {
        let _ = inputs;
        None
    }

    /// `min_tso_segs`: the fewest segments per skb (`tcp_tso_segs`, with
    /// `segmentation_offload = "linux_autosize"`); None = `sysctl_tcp_min_tso_segs` (2).
    fn min_tso_segs(&self) -> Option<u32> {
        None
    }

    /// `init`, when the controller starts after a SYN handshake (`tcp_init_transfer` calls
    /// `tcp_init_congestion_control` once the connection is established), at `now` with the
    /// handshake's smoothed and minimum RTT (0 and None without a sample). Without a
    /// handshake the controller starts when it is built, with no RTT.
    fn init_after_handshake(&mut self, now: Time, srtt: Time, min_rtt: Option<Time>, cwnd: f64) {
        let _ = (now, srtt, min_rtt, cwnd);
    }

    /// The handshake did not agree to ECN though the sender asked for it (`tcp.ecn_fallback`
    /// after a retransmitted SYN): called before `init_after_handshake`, as Linux's `init`
    /// finds TCP_ECN_OK clear (`dctcp_init` then runs as `dctcp_reno`).
    fn ecn_not_negotiated(&mut self) {}

    /// Variables for the time series.
    fn state(&self, out: &mut crate::sim::StateSink) {
        let _ = out;
    }
}
