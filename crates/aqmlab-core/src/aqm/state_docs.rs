//! The names of the sampled time series (issue 27, item 6): one name for one quantity across
//! every AQM, its unit and meaning, documented once here and rendered into docs/aqms.md.
//!
//! The rules: a quantity with a physical unit carries it as the name's suffix (`_packets`,
//! `_bytes`, `_ms`, `_s`, `_bps`, `_packets_per_s`), as the queue and flow tables' columns do;
//! probabilities, counts and 0/1 flags have none. A quantity several AQMs share has one name:
//! `avg_packets` (the averaged queue), `p` (the probability with which the arriving or departing
//! packet is dropped or marked), `q_ref_packets` / `target_delay_ms` (the reference the
//! controller steers to), `qdelay_ms` (the queue delay the AQM acts on).

/// One sampled variable: its name in the time series, unit ("" when dimensionless) and
/// meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateDoc {
    pub name: &'static str,
    pub unit: &'static str,
    pub meaning: &'static str,
}

const fn doc(name: &'static str, unit: &'static str, meaning: &'static str) -> StateDoc {
    StateDoc {
        name,
        unit,
        meaning,
    }
}

// Shared by several AQMs: defined once so that one name cannot mean two things.
const AVG: StateDoc = doc(
    "avg_packets",
    "packets",
    "the averaged queue the AQM acts on (RED's EWMA; in byte mode the byte count over mean_pkt_size)",
);
const P: StateDoc = doc(
    "p",
    "probability",
    "the drop/mark probability applied to the next packet (RED family: the final p_a, after the count correction; PI2, DualPI2: the base probability p', from which p_c and p_cl follow)",
);
const P_B: StateDoc = doc(
    "p_b",
    "probability",
    "RED family: the probability read off the drop curve from avg_packets, before the count correction (DSRED's p_d)",
);
const SINCE_SIGNAL: StateDoc = doc(
    "since_signal_packets",
    "packets",
    "RED family: packets since the last early drop or mark (ns-2's count; -1 while avg_packets < min_th)",
);
const MAX_P: StateDoc = doc(
    "max_p",
    "probability",
    "the drop curve's probability at max_th (adapted over time by ARED and QVARED)",
);
const LOW_RUN: StateDoc = doc(
    "low_run",
    "count",
    "consecutive arrivals that found the queue at or below min_th",
);
const QDELAY: StateDoc = doc(
    "qdelay_ms",
    "ms",
    "the queue delay the AQM acts on (CoDel: the last dequeued packet's sojourn; PIE: its estimate; PI2, DualPI2: the head packet's age at the last update)",
);
const TARGET_DELAY: StateDoc = doc(
    "target_delay_ms",
    "ms",
    "the reference queue delay the AQM steers to (its target parameter)",
);
const Q_REF: StateDoc = doc(
    "q_ref_packets",
    "packets",
    "the reference queue the controller steers to (PI's q_ref, REM's b0)",
);
const SIGNALS: StateDoc = doc(
    "signals",
    "count",
    "early drops and marks so far (cumulative from the start of the run)",
);

pub const RED: &[StateDoc] = &[AVG, P_B, P, SINCE_SIGNAL, MAX_P];
pub const ARED: &[StateDoc] = &[
    AVG,
    P_B,
    P,
    SINCE_SIGNAL,
    MAX_P,
    doc(
        "max_p_changes",
        "count",
        "times the adaptation changed max_p so far",
    ),
];
pub const HYBRID_RED: &[StateDoc] = &[
    AVG,
    P_B,
    P,
    SINCE_SIGNAL,
    MAX_P,
    LOW_RUN,
    doc(
        "reductions",
        "count",
        "reductions of avg_packets (eq. 10) so far",
    ),
    doc(
        "rule_enqueues",
        "count",
        "arrivals let in by the enqueue rule so far",
    ),
];
pub const QVARED: &[StateDoc] = &[
    AVG,
    P_B,
    P,
    SINCE_SIGNAL,
    MAX_P,
    doc(
        "q_t_packets_per_s",
        "packets/s",
        "the rate of change of avg_packets between the last two arrivals",
    ),
    doc(
        "q_tmax_packets_per_s",
        "packets/s",
        "the largest q_t_packets_per_s seen so far",
    ),
];
pub const DSRED: &[StateDoc] = &[AVG, P_B, P, SINCE_SIGNAL];
pub const ORANGE: &[StateDoc] = &[
    doc(
        "timer_busy",
        "0/1",
        "1 if the drop server was busy when the last packet arrived",
    ),
    doc(
        "timer_busy_until_s",
        "s",
        "the time (since the start of the run) the drop server's current service ends",
    ),
    doc(
        "timer_last_draw_s",
        "s",
        "the last service time drawn for the drop server",
    ),
    SIGNALS,
];
pub const NEWQUE: &[StateDoc] = &[
    P,
    doc(
        "r_bps",
        "bit/s",
        "the estimated arrival rate (time-weighted EWMA)",
    ),
];
pub const BLUE: &[StateDoc] = &[P];
pub const PI: &[StateDoc] = &[
    P,
    doc(
        "q_old_packets",
        "packets",
        "the queue at the previous update",
    ),
    Q_REF,
];
pub const REM: &[StateDoc] = &[
    P,
    doc("price", "", "the link price (p = 1 - phi^-price)"),
    doc(
        "in_avg_packets",
        "packets",
        "the averaged arrivals per update interval",
    ),
    Q_REF,
];
const DROPPING: StateDoc = doc("dropping", "0/1", "1 while CoDel is in its dropping state");
const DROPPING_SIGNALS: StateDoc = doc(
    "dropping_signals",
    "count",
    "drops or marks since the dropping state was entered (RFC 8289's count)",
);
const DROP_NEXT: StateDoc = doc(
    "drop_next_s",
    "s",
    "the time (since the start of the run) of the next drop in the dropping state",
);
pub const CODEL: &[StateDoc] = &[QDELAY, DROPPING, DROPPING_SIGNALS, DROP_NEXT, TARGET_DELAY];
pub const PIE: &[StateDoc] = &[
    P,
    QDELAY,
    doc(
        "burst_allowance_ms",
        "ms",
        "what remains of the burst allowance",
    ),
    doc(
        "accu_prob",
        "probability",
        "the accumulated probability of the de-randomization (RFC 8033 sec. 5.1)",
    ),
    TARGET_DELAY,
];
const ACTIVE_FLOWS: StateDoc = doc("active_flows", "count", "flow queues holding packets");
const NEW_FLOWS: StateDoc = doc("new_flows", "count", "flow queues on the new list");
const OLD_FLOWS: StateDoc = doc("old_flows", "count", "flow queues on the old list");
pub const FQ_CODEL: &[StateDoc] = &[
    ACTIVE_FLOWS,
    NEW_FLOWS,
    OLD_FLOWS,
    doc(
        "dropping_flows",
        "count",
        "flow queues whose CoDel is in its dropping state",
    ),
    TARGET_DELAY,
];
pub const STEP_MARKING: &[StateDoc] = &[
    doc(
        "above_k",
        "0/1",
        "1 if the last packet decided on (at enqueue, or at dequeue with k_sojourn) found the queue above K",
    ),
    SIGNALS,
];

const P_C: StateDoc = doc(
    "p_c",
    "probability",
    "PI2, DualPI2: the Classic drop/mark probability p_C = p^2 (p being the base probability p')",
);
pub const PI2: &[StateDoc] = &[P, P_C, QDELAY, TARGET_DELAY];
pub const DUALPI2: &[StateDoc] = &[
    P,
    P_C,
    doc(
        "p_cl",
        "probability",
        "the coupled L4S marking probability p_CL = min(k p, 1)",
    ),
    doc(
        "p_l",
        "probability",
        "the L4S probability applied to the last L packet dequeued: max(p_cl, 1 if the step marked it)",
    ),
    QDELAY,
    doc(
        "l_queue_packets",
        "packets",
        "packets waiting in the L (L4S) queue",
    ),
    doc(
        "c_queue_packets",
        "packets",
        "packets waiting in the C (Classic) queue",
    ),
    doc(
        "l_sojourn_ms",
        "ms",
        "the sojourn of the last packet dequeued from the L queue",
    ),
    doc(
        "c_sojourn_ms",
        "ms",
        "the sojourn of the last packet dequeued from the C queue",
    ),
    TARGET_DELAY,
];
pub const FQ_PIE: &[StateDoc] = &[
    ACTIVE_FLOWS,
    NEW_FLOWS,
    OLD_FLOWS,
    doc(
        "p_max",
        "probability",
        "FQ-PIE: the largest per-queue PIE probability (each queue's p applies to its own arrivals)",
    ),
    doc(
        "qdelay_max_ms",
        "ms",
        "FQ-PIE: the largest per-queue PIE delay estimate",
    ),
    TARGET_DELAY,
];
pub const FQ: &[StateDoc] = &[
    ACTIVE_FLOWS,
    NEW_FLOWS,
    OLD_FLOWS,
    doc(
        "flow_limit_drops",
        "count",
        "FQ: arrivals dropped because their flow held flow_limit packets (Linux stat_flows_plimit)",
    ),
];
pub const CAKE: &[StateDoc] = &[
    ACTIVE_FLOWS,
    doc(
        "sparse_flows",
        "count",
        "CAKE: flow queues counted sparse (new, or waiting with a spent deficit), over all tins",
    ),
    doc(
        "bulk_flows",
        "count",
        "CAKE: flow queues counted bulk (in the old rotation with packets), over all tins",
    ),
    doc(
        "decaying_flows",
        "count",
        "CAKE: empty flow queues kept until their COBALT state is at rest",
    ),
    doc(
        "ack_drops",
        "count",
        "CAKE: pure ACKs dropped by the ACK filter since the start",
    ),
    doc(
        "memory_drops",
        "count",
        "CAKE: packets dropped from the fattest flow over the memory limit since the start",
    ),
    doc(
        "buffer_used_bytes",
        "bytes",
        "CAKE: bytes held, against the memory limit",
    ),
];
/// COBALT's `p` is BLUE's, applied to every dequeued packet.
pub const COBALT: &[StateDoc] = &[
    P,
    QDELAY,
    DROPPING,
    DROPPING_SIGNALS,
    DROP_NEXT,
    TARGET_DELAY,
];

/// What the simulator records for every monitored queue, whatever its AQM (source: the
/// link's name).
pub const QUEUE: &[StateDoc] = &[
    doc(
        "queue_packets",
        "packets",
        "packets waiting in the queue (not the one being sent)",
    ),
    doc("queue_bytes", "bytes", "bytes waiting in the queue"),
    doc(
        "arrivals",
        "packets",
        "arrivals since the measurement start (the end of the warm-up), cumulative",
    ),
    doc(
        "drops",
        "packets",
        "drops (early and forced) since the measurement start, cumulative",
    ),
    doc(
        "marks",
        "packets",
        "ECN marks since the measurement start, cumulative",
    ),
    doc(
        "mean_queue_packets",
        "packets",
        "the time-average queue since the measurement start",
    ),
    doc(
        "mean_delay_ms",
        "ms",
        "the mean queue delay of the packets that left since the measurement start",
    ),
];

/// What the simulator records for all flows together (source "flows").
pub const FLOWS: &[StateDoc] = &[
    doc(
        "packets_sent",
        "packets",
        "packets all flows sent since the measurement start, cumulative",
    ),
    doc(
        "packets_received",
        "packets",
        "packets all flows delivered since the measurement start, cumulative",
    ),
];

/// What each flow records with `sample_flows = true` (source "flow<i>", i the flow's id in the
/// flows table), TCP senders adding [`TCP`].
pub const FLOW: &[StateDoc] = &[doc(
    "bytes_received",
    "bytes",
    "bytes of the flow's packets sent since the measurement start and received, cumulative (headers and duplicates included, as the flows table's throughput_bps)",
)];

/// What each TCP sender records with `sample_flows = true` besides [`FLOW`].
pub const TCP: &[StateDoc] = &[
    doc("cwnd", "packets", "the congestion window (segments)"),
    doc("ssthresh", "packets", "the slow-start threshold (segments)"),
    doc("srtt_ms", "ms", "the smoothed round-trip time"),
    doc("rto_ms", "ms", "the retransmission timeout"),
    doc(
        "in_flight",
        "packets",
        "segments sent and not cumulatively acknowledged",
    ),
    doc("pipe", "packets", "RFC 6675's pipe (the SACK sender only)"),
    doc(
        "cubic_w_max",
        "packets",
        "CUBIC's window before the last reduction (CUBIC only)",
    ),
    doc(
        "cubic_k_s",
        "s",
        "CUBIC's K, the time to reach cubic_w_max again (CUBIC only)",
    ),
    doc(
        "delivery_rate_bps",
        "bit/s",
        "the delivery rate estimate: the kernel's in emulation (Linux TCP_INFO); the rfc6675 sender's with bbr (tcp_rate.c)",
    ),
    doc(
        "pacing_rate_bps",
        "bit/s",
        "the pacing rate: the kernel's in emulation (Linux TCP_INFO); the rfc6675 sender's when it paces (tcp.pacing = \"on\" or bbr)",
    ),
    doc(
        "min_rtt_ms",
        "ms",
        "the kernel's minimum RTT (emulation only: Linux TCP_INFO)",
    ),
    doc(
        "dctcp_alpha",
        "fraction",
        "DCTCP's alpha, the smoothed fraction of data acknowledged with ECE (dctcp and prague only)",
    ),
    doc(
        "prague_rate_bps",
        "bit/s",
        "TCP Prague's internal rate rate_bytes (with tcp.prague.window_mode = \"rate\" or \"switch\"; prague only)",
    ),
    doc(
        "prague_rate_mode",
        "0/1",
        "1 while TCP Prague runs on its rate, not its window (tcp_prague.c v0.7 cwnd_mode; prague with window_mode \"rate\" or \"switch\" only)",
    ),
    doc(
        "bbr_mode",
        "code",
        "BBR's mode: 0 Startup, 1 Drain, 2 ProbeBW, 3 ProbeRTT (bbr only)",
    ),
    doc(
        "bbr_btl_bw_bps",
        "bit/s",
        "BBR's bottleneck bandwidth estimate BtlBw (its long-term rate while in policer mode; bbr only)",
    ),
    doc(
        "bbr_rt_prop_ms",
        "ms",
        "BBR's minimum RTT estimate RTprop (bbr only)",
    ),
    doc("bbr_pacing_gain", "", "BBR's pacing gain (bbr only)"),
    doc("bbr_cwnd_gain", "", "BBR's cwnd gain (bbr only)"),
    doc(
        "bbr_lt_use_bw",
        "0/1",
        "1 while BBR paces at its long-term (policer) rate (bbr only)",
    ),
    doc(
        "hystart_phase",
        "code",
        "HyStart's phase: 0 slow start, 1 CSS or leaving it (HyStart++), 2 over",
    ),
];
