//! Counters of one flow (a sender and its receiver).

use crate::net::AgentId;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// What the flow table says about a flow besides its counters.
#[derive(Debug, Clone)]
pub struct FlowInfo {
    pub group: String,
    pub kind: &'static str,
    pub src: String,
    pub dst: String,
    /// The sending agent; the receiver is `sender + 1`.
    pub sender: AgentId,
    pub start: Time,
    /// When the flow stops, if the scenario says so.
    pub stop: Option<Time>,
    /// The `flows` entry of the scenario this flow comes from.
    pub spec: usize,
    /// A finite TCP transfer's payload bytes and its completion time on an empty network
    /// (`transport::workload::ideal_fct`): a row of the FCT table.
    pub transfer: Option<(u64, Time)>,
}

#[derive(Debug, Clone, Default)]
pub struct FlowStats {
    /// Data packets the sender emitted (first transmissions and retransmissions).
    pub packets_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    /// Fast retransmits / recoveries entered.
    pub fast_recoveries: u64,
    /// Window reductions caused by ECN echoes.
    pub ecn_reductions: u64,
    /// Retransmissions the receiver reported as duplicates with a D-SACK (RFC 2883): sent
    /// again although the first copy arrived. Only counted with `tcp.dsack` on.
    pub spurious_retransmissions: u64,
    /// Tail loss probes sent (RACK-TLP, RFC 8985 section 7).
    pub tail_loss_probes: u64,
    /// The most times one packet was sent (first transmission included), over the packets
    /// sent inside the measurement period (`transport/tcp/transmissions.rs`; 255 means 255
    /// or more).
    pub max_transmissions: u64,
    /// Timeouts that came with no advance of the cumulative ACK since the previous one:
    /// each doubled an RTO already backed off.
    pub rto_backoffs: u64,
    /// Fast-recovery time inside the measurement period during which the first unacknowledged
    /// packet had been retransmitted more than an RTO before and was still unacknowledged:
    /// where RFC 6298's timer, started by that retransmission, would have expired, and only a
    /// re-armed timer kept the flow in recovery (the `rfc6675` sender; the run warning about
    /// flows stalled in recovery reads it).
    pub stalled_recovery_ns: Time,
    /// Time spent in fast recovery (entry to the ACK that ends it, or the RTO that aborts it),
    /// of the part inside the measurement period, ns.
    pub time_in_recovery_ns: Time,
    /// Packets of this flow dropped anywhere (data and ACKs) inside the window.
    pub drops: u64,
    /// Drops of the packets the sender sent (not those sent back to it: ACKs, echo
    /// replies) inside the window: the loss rate's numerator.
    pub data_drops: u64,
    /// Data packets sent inside the window that arrived at the receiver marked CE.
    pub marks_received: u64,
    /// Data packets / bytes sent inside the window and arriving at the receiver inside it,
    /// duplicates included.
    pub packets_received: u64,
    pub bytes_received: u64,
    /// New in-order payload bytes delivered to the application, of packets sent inside the
    /// window.
    pub goodput_bytes: u64,
    pub rtt_sum_ns: f64,
    pub rtt_samples: u64,
    pub delay_sum_ns: f64,
    pub delay_samples: u64,
    pub start: Time,
    /// When a finite transfer completed, if it did.
    pub completed_at: Option<Time>,
}

impl FlowStats {
    #[inline]
    pub fn on_rtt_sample(&mut self, rtt: Time) {
        self.rtt_sum_ns += rtt as f64;
        self.rtt_samples += 1;
    }

    /// A data packet reached the receiver; `delay` is its end-to-end delay.
    #[inline]
    pub fn on_data_received(&mut self, bytes: u32, delay: Time, ce: bool) {
        self.packets_received += 1;
        self.bytes_received += bytes as u64;
        self.delay_sum_ns += delay as f64;
        self.delay_samples += 1;
        if ce {
            self.marks_received += 1;
        }
    }

    pub fn restart(&mut self, now: Time) {
        *self = FlowStats {
            start: now,
            completed_at: self.completed_at,
            ..Default::default()
        };
    }
}

/// One row of the flow table.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct FlowSummary {
    pub flow: u32,
    pub group: String,
    pub kind: String,
    pub src: String,
    pub dst: String,
    pub packets_sent: u64,
    pub packets_received: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub ecn_reductions: u64,
    /// Retransmissions reported by D-SACK as unnecessary (RFC 2883; needs `tcp.dsack`).
    pub spurious_retransmissions: u64,
    /// Tail loss probes sent (RACK-TLP).
    pub tail_loss_probes: u64,
    /// The most times one packet (segment) was sent, first transmission included, among the
    /// packets sent inside the measurement period: 1 when nothing was resent, 2 when each loss
    /// was repaired by one retransmission; a large value is a loop (255 means 255 or more).
    /// 0 for UDP flows.
    pub max_transmissions_of_a_segment: u64,
    /// Timeouts that followed a timeout with no advance of the cumulative ACK in between:
    /// each doubled an already backed-off RTO (a run of k timeouts on one packet counts k - 1).
    pub rto_backoffs: u64,
    /// Seconds spent in fast recovery inside the measurement period.
    pub time_in_recovery_s: f64,
    pub drops: u64,
    pub marks_received: u64,
    /// New in-order payload delivered, bits per second over the measurement period; only
    /// packets sent and received inside it count.
    pub goodput_bps: f64,
    /// Bits per second of data packets sent and received inside the measurement period
    /// (headers, duplicates included).
    pub throughput_bps: f64,
    /// Drops of the packets this flow's sender sent inside the period / the packets it sent
    /// inside it (`packets_sent`; in [0, 1]), for every kind: TCP's data (not its ACKs), a
    /// UDP source's packets, a ping's requests (not the echo's replies: a lost reply is in
    /// `drops` and the latency table's `lost`), each tcp_rr flow's requests or responses.
    pub loss_rate: f64,
    pub mean_rtt_ms: f64,
    pub mean_delay_ms: f64,
    pub completion_time_s: f64,
}
