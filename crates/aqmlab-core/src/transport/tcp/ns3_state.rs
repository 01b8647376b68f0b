//! What the `rfc6675` sender keeps for three of ns-3's options only (`rtt_sampling =
//! "oldest_unacked"`, `partial_ack_timer = "first"`, `handshake = "syn"`; docs/readings.md,
//! "The ns3 TCP profile"), on the heap and absent without them: every agent's slot is as
//! large as the largest sender, and most senders do without it.

use super::{Handshake, PartialAckTimer, RttSampling, TcpConfig};
use crate::sim::Time;

#[derive(Debug, Default)]
pub struct Ns3State {
    /// The first packet whose sending is on record: the first new packet after the last
    /// timeout (ns-3's `ReTxTimeout` empties `m_history`).
    rtt_record_from: i64,
    /// A partial ACK of this recovery has restarted the RTO (ns-3's `m_isFirstPartialAck`
    /// cleared).
    partial_ack_restarted: bool,
    /// While the SYN-ACK is awaited: when the first SYN left and how many were sent.
    syn_sent: Option<(Time, u32)>,
    /// Data may flow (at once without a handshake).
    established: bool,
}

impl Ns3State {
    /// The state `cfg`'s options need, if any.
    pub fn for_config(cfg: &TcpConfig) -> Option<Box<Ns3State>> {
        let needed = cfg.rtt_sampling == RttSampling::OldestUnacked
            || cfg.partial_ack_timer == Some(PartialAckTimer::First)
            || cfg.handshake != Handshake::None;
        needed.then(|| {
            Box::new(Ns3State {
                established: cfg.handshake == Handshake::None,
                ..Ns3State::default()
            })
        })
    }

    pub fn awaiting_syn_ack(&self) -> bool {
        !self.established
    }

    pub fn syn_due(&self) -> bool {
        !self.established && self.syn_sent.is_none()
    }

    /// A SYN leaves at `now`; whether it is a retransmission.
    pub fn on_syn_sent(&mut self, now: Time) -> bool {
        let (first, count) = self.syn_sent.unwrap_or((now, 0));
        self.syn_sent = Some((first, count + 1));
        count > 0
    }

    /// The SYN-ACK arrived: the connection is open. Returns when the first SYN left and how
    /// many were sent, unless one was answered already.
    pub fn on_syn_ack(&mut self) -> Option<(Time, u32)> {
        let sent = self.syn_sent.take()?;
        self.established = true;
        Some(sent)
    }

    /// A partial ACK of the current recovery: whether it is the first.
    pub fn first_partial_ack(&mut self) -> bool {
        !std::mem::replace(&mut self.partial_ack_restarted, true)
    }

    pub fn on_recovery_entry(&mut self) {
        self.partial_ack_restarted = false;
    }

    /// A timeout while packets up to `high_data` were out: their sendings leave the record.
    pub fn on_timeout(&mut self, high_data: i64) {
        self.rtt_record_from = high_data + 1;
    }

    pub fn rtt_record_from(&self) -> i64 {
        self.rtt_record_from
    }
}

/// The handshake's RTT sample, from the first SYN sent at `first` (of `count`) or the
/// SYN-ACK's echo: the echo with timestamps (RFC 7323); without, ns-3 times the first SYN
/// however often it was sent (`SendEmptyPacket` records it with length 0, which
/// `UpdateRttHistory` cannot mark as retransmitted), Karn's rule takes none from a resent SYN.
pub fn handshake_sample(cfg: &TcpConfig, first: Time, count: u32, echo: Time) -> Option<Time> {
    if cfg.timestamps {
        Some(echo)
    } else if cfg.rtt_sampling == RttSampling::OldestUnacked || count == 1 {
        Some(first)
    } else {
        None
    }
}
