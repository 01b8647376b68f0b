//! Senders over a path that drops chosen packets: a sender and a real sink joined by a fixed
//! one-way delay, with no queue, so a recovery can be followed packet by packet. Each data
//! packet whose sequence number is listed is dropped on its first transmission only.

use super::*;
use crate::metrics::FlowStats;
use crate::net::{PacketArena, PacketId};
use crate::sim::{EventKind, EventQueue, RngStream, StreamKind, Time};
use crate::transport::{Agent, AgentCtx, Endpoint};
use std::collections::{BTreeMap, HashSet};

const MS: Time = 1_000_000;

struct LossyPath {
    events: EventQueue,
    packets: PacketArena,
    stats: [FlowStats; 2],
    outbox: Vec<PacketId>,
    agents: [Agent; 2],
    /// (arrival time, order sent) -> (packet, to agent).
    in_flight: BTreeMap<(Time, u64), (PacketId, usize)>,
    sent: u64,
    delay: Time,
    drop_first: HashSet<i64>,
    dropped: HashSet<i64>,
    /// (time, seq) of every retransmission, in order.
    retransmitted: Vec<(Time, i64)>,
}

impl LossyPath {
    fn new(cfg: TcpConfig, packets: u64, drop_first: &[i64]) -> Self {
        let ep = |agent: u32, peer: u32| Endpoint {
            flow: 0,
            agent,
            node: agent,
            peer_node: peer,
            peer_agent: peer,
            dscp: 0,
        };
        let sender = match cfg.recovery {
            Recovery::Ns2 => Agent::TcpSender(TcpSender::new(
                cfg.clone(),
                ep(0, 1),
                Some(packets),
                RngStream::new(1, StreamKind::Agent, 0),
            )),
            Recovery::Rfc6675 => Agent::Rfc6675Sender(Rfc6675Sender::new(
                cfg.clone(),
                ep(0, 1),
                Some(packets),
                RngStream::new(1, StreamKind::Agent, 0),
            )),
        };
        LossyPath {
            events: EventQueue::new(),
            packets: PacketArena::new(),
            stats: [FlowStats::default(), FlowStats::default()],
            outbox: vec![],
            agents: [sender, Agent::TcpSink(TcpSink::new(&cfg, ep(1, 0)))],
            in_flight: BTreeMap::new(),
            sent: 0,
            delay: 50 * MS,
            drop_first: drop_first.iter().copied().collect(),
            dropped: HashSet::new(),
            retransmitted: vec![],
        }
    }

    fn with<R>(
        &mut self,
        agent: usize,
        now: Time,
        f: impl FnOnce(&mut Agent, &mut AgentCtx) -> R,
    ) -> R {
        let mut cx = AgentCtx {
            now,
            agent: agent as u32,
            events: &mut self.events,
            packets: &mut self.packets,
            stats: &mut self.stats[agent],
            outbox: &mut self.outbox,
        };
        let r = f(&mut self.agents[agent], &mut cx);
        for id in std::mem::take(&mut self.outbox) {
            let p = self.packets.get(id);
            let data = p.kind == crate::net::PacketKind::TcpData;
            if data && p.retransmission {
                self.retransmitted.push((now, p.seq));
            }
            if data && self.drop_first.contains(&p.seq) && self.dropped.insert(p.seq) {
                self.packets.free(id);
                continue;
            }
            self.sent += 1;
            self.in_flight.insert(
                (now + self.delay, self.sent),
                (id, if data { 1 } else { 0 }),
            );
        }
        r
    }

    /// Runs until `end`, or until nothing is left to happen.
    fn run(&mut self, end: Time) {
        self.with(0, 0, |a, cx| a.start(cx));
        loop {
            let next_packet = self
                .in_flight
                .keys()
                .next()
                .map(|k| k.0)
                .unwrap_or(Time::MAX);
            let next = next_packet.min(end);
            // Timers due before the next packet arrives fire first.
            if let Some(e) = self.events.pop_until(next) {
                if let EventKind::AgentTimer { agent, timer } = e.kind {
                    self.with(agent as usize, e.time, |a, cx| a.timer(cx, timer));
                }
                continue;
            }
            if next_packet > end {
                break;
            }
            let ((t, _), (id, to)) = self.in_flight.pop_first().expect("a packet is due");
            self.events.advance_to(t);
            self.with(to, t, |a, cx| a.receive(cx, id));
        }
    }
}

/// A window of `w` packets sent at once (cwnd = ssthresh = w, no receiver limit), the
/// receiver's delayed ACKs on or off, a 60-packet transfer.
fn cfg(recovery: Recovery, w: u32, delayed_ack: bool) -> TcpConfig {
    TcpConfig {
        variant: TcpVariant::Sack,
        recovery,
        window: 64,
        window_init: w,
        ssthresh_init: Some(w as _),
        delayed_ack,
        ..TcpConfig::default()
    }
}

fn run(recovery: Recovery, w: u32, delayed_ack: bool, drop_first: &[i64]) -> LossyPath {
    let mut path = LossyPath::new(cfg(recovery, w, delayed_ack), 60, drop_first);
    path.run(30_000 * MS);
    assert!(
        path.stats[0].completed_at.is_some(),
        "the transfer completes"
    );
    assert_eq!(path.dropped.len(), drop_first.len());
    path
}

fn seqs(path: &LossyPath) -> Vec<i64> {
    path.retransmitted.iter().map(|&(_, s)| s).collect()
}

/// The case: three losses in one window of 20, the receiver delaying ACKs as in the
/// identical dumbbell. RFC 6675 repairs the three holes in one fast recovery. ns-2's Sack1
/// also enters fast recovery, but its pipe (sender.rs, ns-2 `pipe_`) falls by one per
/// duplicate ACK and two per partial ACK however many packets an ACK covers; with delayed
/// ACKs it overestimates the flight, stops sending, and waits for the timeout.
#[test]
fn three_losses_in_one_window_rfc6675_recovers_where_sack1_times_out() {
    let modern = run(Recovery::Rfc6675, 20, true, &[11, 12, 13]);
    let s = &modern.stats[0];
    assert_eq!((s.timeouts, s.fast_recoveries), (0, 1));
    assert_eq!(
        seqs(&modern),
        [11, 12, 13],
        "each lost packet once, nothing else"
    );

    let sack1 = run(Recovery::Ns2, 20, true, &[11, 12, 13]);
    let s = &sack1.stats[0];
    assert_eq!((s.timeouts, s.fast_recoveries), (1, 1));
}

/// Every placement of three losses in a window of 20 (1140 cases): RFC 6675 never needs a
/// timeout and retransmits exactly the lost packets; Sack1 needs one in some (28 when this
/// was written) with delayed ACKs, none with an ACK per packet.
#[test]
fn any_three_losses_in_a_window_of_20() {
    for delayed_ack in [false, true] {
        let mut sack1_timeouts = 0;
        for a in 0..20 {
            for b in a + 1..20 {
                for c in b + 1..20 {
                    let modern = run(Recovery::Rfc6675, 20, delayed_ack, &[a, b, c]);
                    let s = &modern.stats[0];
                    assert_eq!(
                        (s.timeouts, s.fast_recoveries),
                        (0, 1),
                        "losses {a} {b} {c}"
                    );
                    assert_eq!(seqs(&modern), [a, b, c]);
                    sack1_timeouts +=
                        run(Recovery::Ns2, 20, delayed_ack, &[a, b, c]).stats[0].timeouts;
                }
            }
        }
        if delayed_ack {
            assert!(sack1_timeouts > 0);
        } else {
            assert_eq!(sack1_timeouts, 0);
        }
    }
}

/// With the receiver's window (20) filled, NextSeg's rule 4 sends a rescue retransmission of
/// the highest outstanding packet (RFC 6675 section 4), which had arrived: the receiver's
/// D-SACK (RFC 2883) reports it, and the sender counts it as spurious.
#[test]
fn dsack_reports_the_spurious_rescue_retransmission() {
    let mut c = cfg(Recovery::Rfc6675, 20, false);
    c.window = 20;
    c.dsack = true;
    let mut path = LossyPath::new(c, 60, &[3, 5, 7]);
    path.run(30_000 * MS);
    let s = &path.stats[0];
    assert_eq!(seqs(&path), [3, 5, 7, 22]);
    assert_eq!(s.spurious_retransmissions, 1);
    assert!(s.time_in_recovery_ns > 0);

    c = cfg(Recovery::Rfc6675, 20, false);
    c.window = 20;
    let mut path = LossyPath::new(c, 60, &[3, 5, 7]);
    path.run(30_000 * MS);
    assert_eq!(
        path.stats[0].spurious_retransmissions, 0,
        "not counted without D-SACK"
    );
}

/// With timestamps every ACK that advances gives an RTT sample (RFC 7323); without, one
/// timed packet per round trip does (Karn). On a fixed 100 ms round trip, each sample is
/// 100 ms, plus up to the delayed-ACK timeout.
#[test]
fn timestamps_give_an_rtt_sample_per_advancing_ack() {
    let mut samples = vec![];
    for timestamps in [false, true] {
        let mut c = cfg(Recovery::Rfc6675, 4, false);
        c.timestamps = timestamps;
        let mut path = LossyPath::new(c, 60, &[]);
        path.run(30_000 * MS);
        let s = &path.stats[0];
        assert!(s.completed_at.is_some());
        assert!((s.rtt_sum_ns / s.rtt_samples as f64 - 100e6).abs() < 1.0);
        samples.push(s.rtt_samples);
    }
    assert_eq!(
        samples[1], 60,
        "one per ACK: the sink acknowledges every packet"
    );
    assert!(samples[0] < 20, "one per window of data: {}", samples[0]);
}

/// RACK-TLP with the RTO restarted by the head's retransmission, as the `linux` profile.
fn rack_tlp(mut c: TcpConfig) -> TcpConfig {
    c.rack_tlp.enabled = true;
    c.rto_restart = RtoRestart::HeadRetransmission;
    c
}

/// RACK-TLP (RFC 8985) against the DupThresh rule on losses at the tail of a 60-packet
/// transfer, where fewer than DupThresh packets follow the loss: (timeouts, fast recoveries,
/// tail loss probes, packets retransmitted, completion time).
fn tail(c: TcpConfig, drop_first: &[i64]) -> (u64, u64, u64, Vec<i64>, Time) {
    let mut path = LossyPath::new(c, 60, drop_first);
    path.run(30_000 * MS);
    let s = &path.stats[0];
    let done = s.completed_at.expect("the transfer completes");
    (
        s.timeouts,
        s.fast_recoveries,
        s.tail_loss_probes,
        seqs(&path),
        done,
    )
}

/// The case: the last packet is lost. Nothing follows it, so no ACK can reveal the
/// loss; the probe (a retransmission of the highest packet, as there is no new data) repairs
/// it where the DupThresh sender waits for its RTO.
#[test]
fn a_lost_last_packet_is_recovered_by_a_probe_not_an_rto() {
    let base = cfg(Recovery::Rfc6675, 10, false);
    let (rto, fr, tlp, rtx, done_rto) = tail(base.clone(), &[59]);
    assert_eq!((rto, fr, tlp, rtx), (1, 0, 0, vec![59]));
    let (rto, fr, tlp, rtx, done_tlp) = tail(rack_tlp(base), &[59]);
    assert_eq!((rto, fr, tlp, rtx), (0, 0, 1, vec![59]));
    assert!(done_tlp <= done_rto, "{done_tlp} > {done_rto}");
}

/// The last three packets are lost: the probe's SACK shows that 57 and 58, sent before it,
/// are lost, and RACK starts a fast recovery that repairs them.
#[test]
fn a_probe_turns_a_lost_tail_into_a_fast_recovery() {
    let base = cfg(Recovery::Rfc6675, 10, false);
    let (rto, _, tlp, _, done_rto) = tail(base.clone(), &[57, 58, 59]);
    assert_eq!((rto, tlp), (1, 0));
    let (rto, fr, tlp, rtx, done_tlp) = tail(rack_tlp(base), &[57, 58, 59]);
    assert_eq!((rto, fr, tlp, rtx), (0, 1, 1, vec![59, 57, 58]));
    // Here the PTO (2 SRTT) and the RTO (200 ms minimum) fall at the same time and both
    // repairs take two round trips; the probe's spares the window its collapse to 1.
    assert!(done_tlp <= done_rto, "{done_tlp} > {done_rto}");
}

/// One loss followed by only two packets: two duplicate ACKs never reach DupThresh, so the
/// DupThresh sender times out; RACK's reordering timer (min RTT / 4 after the SACK) marks the
/// packet lost and a fast recovery repairs it, before any probe.
#[test]
fn rack_reordering_timer_detects_a_loss_dupthresh_cannot() {
    let base = cfg(Recovery::Rfc6675, 10, false);
    let (rto, fr, ..) = tail(base.clone(), &[57]);
    assert_eq!((rto, fr), (1, 0));
    let (rto, fr, tlp, rtx, _) = tail(rack_tlp(base), &[57]);
    assert_eq!((rto, fr, tlp, rtx), (0, 1, 0, vec![57]));
}

/// Away from the tail RACK-TLP repairs what RFC 6675 repairs: three losses in a window of 20
/// at every placement, each packet sent again once, no timeout and no probe.
#[test]
fn rack_tlp_repairs_any_three_losses_in_a_window_of_20() {
    for delayed_ack in [false, true] {
        for a in 0..20 {
            for b in a + 1..20 {
                for c in b + 1..20 {
                    let mut path = LossyPath::new(
                        rack_tlp(cfg(Recovery::Rfc6675, 20, delayed_ack)),
                        60,
                        &[a, b, c],
                    );
                    path.run(30_000 * MS);
                    let s = &path.stats[0];
                    assert!(s.completed_at.is_some());
                    assert_eq!(
                        (s.timeouts, s.fast_recoveries, s.tail_loss_probes),
                        (0, 1, 0),
                        "losses {a} {b} {c}, delayed ACK {delayed_ack}"
                    );
                    assert_eq!(seqs(&path), [a, b, c]);
                }
            }
        }
    }
}

/// `handshake = "syn"` through the real sink: the first SYN is lost, the second (3 s later,
/// `initial_rto`) is answered at once with a SYN-ACK, and the 60 packets follow. The sink
/// counts no SYN as data; under ns-3's sampling the first RTT sample spans both SYNs.
#[test]
fn a_lost_syn_delays_the_transfer_by_the_syn_timeout() {
    let mut c = cfg(Recovery::Rfc6675, 10, true);
    c.handshake = Handshake::Syn;
    c.initial_rto = crate::units::Duration(3000 * MS);
    c.rtt_sampling = RttSampling::OldestUnacked;
    let mut path = LossyPath::new(c, 60, &[-1]);
    path.run(30_000 * MS);
    let done = path.stats[0].completed_at.expect("the transfer completes");
    assert!(done > 3100 * MS, "{done}");
    assert_eq!(seqs(&path), [-1], "the SYN, sent again; no data");
    assert_eq!(path.stats[1].packets_received, 60);
    assert_eq!(path.stats[0].timeouts, 0);
    let first = path.stats[0].rtt_sum_ns / path.stats[0].rtt_samples as f64;
    assert!(first > 100e6, "the 3.1 s sample weighs in: {first}");
}

/// The sender's state variable `name` at the end of a run.
fn sender_state(path: &LossyPath, name: &str) -> f64 {
    let mut found = None;
    path.agents[0].state(&mut |k, v| {
        if k == name {
            found = Some(v);
        }
    });
    found.unwrap_or_else(|| panic!("no state {name}"))
}

/// `tcp.ssthresh_base`: a flow the receiver holds to 10 packets while its cwnd is 30 loses
/// packet 15. Reducing from FlightSize (RFC 5681 eq. 4) gives ssthresh 10 / 2 = 5 (Reno) or
/// floor(0.7 x 10) = 7 (CUBIC, with W_max 10 x 1.7 / 2 = 8.5: fast convergence, 10 being below
/// the first epoch's W_max, the cwnd of 30 it began at); Linux reduces from cwnd
/// (`tcp_init_cwnd_reduction` -> `tcp_reno_ssthresh` / `cubictcp_recalc_ssthresh`, which read
/// snd_cwnd): 30 / 2 = 15, or floor(0.7 x 30) = 21 with W_max 30. One fast recovery, no
/// other reduction: ssthresh keeps the entry's value to the end.
#[test]
fn tcp_init_cwnd_reduction_reduces_from_cwnd_not_flight_size() {
    use crate::transport::tcp::congestion::CongestionControlKind;
    for (cc, base, want_ssthresh) in [
        (CongestionControlKind::Reno, SsthreshBase::FlightSize, 5.0),
        (CongestionControlKind::Reno, SsthreshBase::Cwnd, 15.0),
        (CongestionControlKind::Cubic, SsthreshBase::FlightSize, 7.0),
        (CongestionControlKind::Cubic, SsthreshBase::Cwnd, 21.0),
    ] {
        let c = TcpConfig {
            window: 10,
            window_init: 30,
            ssthresh_init: Some(30),
            congestion_control: cc,
            ssthresh_base: base,
            ..cfg(Recovery::Rfc6675, 30, false)
        };
        let mut path = LossyPath::new(c, 60, &[15]);
        path.run(30_000 * MS);
        let s = &path.stats[0];
        assert_eq!((s.timeouts, s.fast_recoveries), (0, 1), "{cc:?} {base:?}");
        assert_eq!(
            sender_state(&path, "ssthresh"),
            want_ssthresh,
            "{cc:?} {base:?}"
        );
        if cc == CongestionControlKind::Cubic {
            let w_max = if base == SsthreshBase::Cwnd {
                30.0
            } else {
                8.5
            };
            assert_eq!(sender_state(&path, "cubic_w_max"), w_max, "{base:?}");
        }
    }
}
