//! The `rfc6675` sender's ns-3 options (the `ns3` profile), each driven with scripted ACKs and
//! checked against a sequence worked out by hand from ns-3.37's src/internet/model/
//! tcp-socket-base.cc (the function named in each test), beside the RFC default.

use super::*;
use crate::sim::Time;
use crate::transport::tcp::rfc6675_sender_rig::{seqs, SenderRig as H};

const MS: Time = 1_000_000;
const SEC: Time = 1_000_000_000;

/// RFC 6675 recovery with RFC defaults, an initial window of `iw` and no limit from
/// ssthresh or the receiver, limited transmit off, RTO 1 s before any sample.
fn base(iw: u32) -> TcpConfig {
    TcpConfig {
        variant: TcpVariant::Sack,
        recovery: Recovery::Rfc6675,
        window: 1000,
        window_init: iw,
        ssthresh_init: Some(1000),
        limited_transmit: false,
        min_rto: crate::units::Duration(SEC),
        initial_rto: crate::units::Duration(SEC),
        ..TcpConfig::default()
    }
}

/// `TcpSocketBase::EnterRecovery`: ssthresh = BytesInFlight / 2 (TcpNewReno::GetSsThresh),
/// BytesInFlight = sent - SACKed - lost + retransmitted (TcpTxBuffer::BytesInFlight). Ten
/// packets out, packet 0 lost, 1, 2 and 3 SACKed by three duplicate ACKs: 0 is lost (three
/// SACKed above it), so the pipe is 10 - 3 - 1 = 6 and ssthresh 3, where FlightSize (10)
/// gives 5.
#[test]
fn ssthresh_from_the_pipe_at_recovery_entry() {
    for (ssthresh_base, expected) in [(SsthreshBase::FlightSize, 5.0), (SsthreshBase::Pipe, 3.0)] {
        let mut h = H::validated(TcpConfig {
            ssthresh_base,
            ..base(10)
        });
        assert_eq!(seqs(&h.start()), (0..10).collect::<Vec<_>>());
        h.ack(100 * MS, -1, &[(1, 2)]);
        h.ack(101 * MS, -1, &[(1, 3)]);
        let sent = h.ack(102 * MS, -1, &[(1, 4)]);
        assert_eq!(seqs(&sent)[0], 0, "the fast retransmit");
        assert_eq!(h.s_ssthresh(), expected, "{ssthresh_base:?}");
    }
}

impl H {
    fn s_ssthresh(&self) -> f64 {
        self.state("ssthresh")
    }
}

/// `TcpSocketBase::ReTxTimeout` reduces ssthresh only `if (m_tcb->m_congState != CA_LOSS ||
/// !m_txBuffer->IsHeadRetransmitted())`: ten packets out, none acknowledged; the first
/// timeout takes ssthresh from the pipe (10 / 2 = 5) and resends packet 0; an ACK SACKing
/// 1-9 leaves packet 0 (lost, resent) the whole pipe; a second timeout keeps 5, where the
/// pipe would give max(1 / 2, 2) = 2.
#[test]
fn a_second_timeout_of_the_resent_head_keeps_ssthresh() {
    let mut h = H::validated(TcpConfig {
        ssthresh_base: SsthreshBase::Pipe,
        ..base(10)
    });
    h.start();
    assert_eq!(seqs(&h.run_until(SEC)), [0]);
    assert_eq!(h.s_ssthresh(), 5.0);
    h.ack(SEC + 100 * MS, -1, &[(1, 10)]);
    assert_eq!(h.state("pipe"), 1.0);
    // The timer, restarted by the resend at 1 s, doubled: 2 s.
    assert_eq!(seqs(&h.run_until(3 * SEC)), [0]);
    assert_eq!(h.rig.stats.timeouts, 2);
    assert_eq!(h.s_ssthresh(), 5.0);
}

/// `TcpSocketBase::EstimateRtt`: every ACK that covers the front of `m_history` (the oldest
/// segment sent once) gives a sample, not one timed packet per round trip.
#[test]
fn every_ack_covering_the_oldest_packet_gives_a_sample() {
    for (sampling, samples) in [
        (RttSampling::TimedPacket, 1),
        (RttSampling::OldestUnacked, 4),
    ] {
        let mut h = H::validated(TcpConfig {
            rtt_sampling: sampling,
            ..base(4)
        });
        h.start();
        for (i, seq) in (0..4).enumerate() {
            h.ack(100 * MS + i as Time * MS, seq, &[]);
        }
        assert_eq!(h.rig.stats.rtt_samples, samples, "{sampling:?}");
    }
}

/// `ReTxTimeout` empties `m_history`, and a retransmission is never on it: after a timeout no
/// sample comes until the first packet sent after it is acknowledged, and that one times
/// from its own sending.
#[test]
fn after_a_timeout_the_samples_resume_with_new_data() {
    let mut h = H::validated(TcpConfig {
        rtt_sampling: RttSampling::OldestUnacked,
        rto_estimator: RtoEstimatorKind::Ns3,
        tick: crate::units::Duration(MS),
        ..base(2)
    });
    h.start();
    assert_eq!(
        seqs(&h.run_until(SEC)),
        [0],
        "0 and 1 lost: timeout, 0 resent"
    );
    // 0 and 1 arrive (1's first sending among them): no sample, packet 2 goes out.
    let sent = h.ack(SEC + 100 * MS, 0, &[]);
    assert_eq!(seqs(&sent), [1, 2]);
    assert_eq!(seqs(&h.ack(SEC + 150 * MS, 1, &[])), [3]);
    assert_eq!(h.rig.stats.rtt_samples, 0);
    // 2 was sent at 1.1 s, after the timeout: its ACK at 1.3 s is a 200 ms sample.
    h.ack(SEC + 300 * MS, 2, &[]);
    assert_eq!(h.rig.stats.rtt_samples, 1);
    assert_eq!(h.state("srtt_ms"), 200.0);
}

/// `TcpSocketBase::DupAck` returns at once in `CA_LOSS`: after a timeout, a duplicate ACK
/// sends nothing, where RFC 6675 (with limited transmit) sends a new packet on it. Two
/// packets out and lost; the timeout resends 0; its ACK (cwnd 2) resends 1 and sends 2; a
/// duplicate ACK SACKing 2 (1 lost again) then finds 2 packets out, fewer than cwnd + 1.
#[test]
fn duplicate_acks_after_a_timeout_send_nothing_when_ignored() {
    for (rule, expected) in [
        (DupacksAfterTimeout::Counted, vec![3]),
        (DupacksAfterTimeout::Ignored, vec![]),
    ] {
        let mut h = H::validated(TcpConfig {
            dupacks_after_timeout: rule,
            limited_transmit: true,
            ..base(2)
        });
        h.start();
        assert_eq!(seqs(&h.run_until(SEC)), [0]);
        assert_eq!(seqs(&h.ack(SEC + 100 * MS, 0, &[])), [1, 2]);
        let sent = h.ack(SEC + 200 * MS, 0, &[(2, 3)]);
        assert_eq!(seqs(&sent), expected, "{rule:?}");
    }
}

/// `TcpSocketBase::ProcessAck` restarts the timer on a partial ACK only if it is the
/// recovery's first (`NewAck(ackNumber, m_isFirstPartialAck)`). Ten packets out, 0, 5 and 7
/// lost; recovery at 0.1 s; partial ACKs at 0.2 s (cum 4) and 0.3 s (cum 6); then silence.
/// RTO 1 s: `first` times out at 1.2 s, `every` (RFC 6298 5.3) at 1.3 s.
#[test]
fn only_the_first_partial_ack_restarts_the_timer() {
    for (rule, fires_at) in [
        (PartialAckTimer::First, 1200 * MS),
        (PartialAckTimer::Every, 1300 * MS),
    ] {
        let mut h = H::validated(TcpConfig {
            partial_ack_timer: Some(rule),
            ..base(10)
        });
        h.start();
        h.ack(100 * MS, -1, &[(1, 2)]);
        h.ack(100 * MS, -1, &[(1, 3)]);
        h.ack(100 * MS, -1, &[(1, 4)]);
        assert_eq!(h.rig.stats.fast_recoveries, 1);
        h.ack(200 * MS, 4, &[(6, 7), (8, 10)]);
        h.ack(300 * MS, 6, &[(8, 10)]);
        h.run_until(fires_at - 1);
        assert_eq!(h.rig.stats.timeouts, 0, "{rule:?}");
        h.run_until(fires_at);
        assert_eq!(h.rig.stats.timeouts, 1, "{rule:?}");
    }
}

/// `handshake = "syn"`: a SYN (sequence -1, `ack_size` bytes) and nothing else until the
/// SYN-ACK; SYN timeouts of 3 and 6 s (`initial_rto`, doubled) are not RTOs of data. ns-3
/// times the handshake from the first SYN however often it was sent (`SendEmptyPacket`
/// records it with length 0, which `UpdateRttHistory` cannot mark retransmitted): SYNs at 0,
/// 3 and 9 s, SYN-ACK at 9.2 s, a first sample of 9.2 s, srtt 9.2 s, rttvar 4.6 s, RTO 27.6 s
/// (`EstimateRtt`). Karn's rule (`timed_packet`) takes no sample from it: RTO 3 s.
#[test]
fn a_syn_handshake_precedes_the_data_and_ns3_times_the_first_syn() {
    for (sampling, srtt_ms, rto_ms) in [
        (RttSampling::OldestUnacked, 9200.0, 27_600.0),
        (RttSampling::TimedPacket, 0.0, 3000.0),
    ] {
        let mut h = H::validated(TcpConfig {
            handshake: Handshake::Syn,
            rtt_sampling: sampling,
            rto_estimator: RtoEstimatorKind::Ns3,
            tick: crate::units::Duration(MS),
            initial_rto: crate::units::Duration(3 * SEC),
            ..base(2)
        });
        let syn = h.start();
        assert_eq!(seqs(&syn), [-1]);
        assert_eq!(syn[0].size, 40, "ack_size");
        assert!(h.run_until(3 * SEC - 1).is_empty());
        let again = h.run_until(3 * SEC);
        assert_eq!((seqs(&again), again[0].retransmission), (vec![-1], true));
        assert!(h.run_until(9 * SEC - 1).is_empty());
        assert_eq!(seqs(&h.run_until(9 * SEC)), [-1]);
        let data = h.ack_echo(9200 * MS, -1, &[], 9 * SEC);
        assert_eq!(seqs(&data), [0, 1], "{sampling:?}");
        assert_eq!(h.rig.stats.timeouts, 0);
        assert_eq!(h.rig.stats.packets_sent, 3 + 2);
        assert_eq!(h.state("srtt_ms"), srtt_ms, "{sampling:?}");
        assert_eq!(h.state("rto_ms"), rto_ms, "{sampling:?}");
    }
}
