//! A transfer's completion time on an empty network, the denominator of its slowdown
//! (issue 27, item 3), with the rates and delays in force when it runs (issue 35, C: a rate
//! set by an event at 0 s gave slowdowns of 0.23, the ideal read the configured rate).

use crate::net::delivery_trace::OPPORTUNITY_BYTES;
use crate::net::link_schedule::{LinkSchedule, Regime};
use crate::sim::{time, Time};

/// What the ideal needs of a transfer.
#[derive(Debug, Clone, Copy)]
pub struct Transfer {
    pub start: Time,
    pub packets: u64,
    pub data_bytes: u32,
    pub ack_bytes: u32,
    pub handshake: bool,
}

/// The ideal FCT of `t` on the path whose hops are `forward` (data) and `reverse` (ACKs),
/// each with the rates and delays the events give it.
///
/// While nothing on the path changes from the start to the end of the ideal transfer, it is
/// [`ideal_fct`] with the rates and delays in force at the start (the same number as without
/// events). Otherwise the packets cross each hop at the rate in force when each starts its
/// transmission (what a link does, `link/mod.rs`: a change applies from the next packet),
/// and the ideal is a lower bound on the FCT a run can give, exact while rates are constant:
/// the last ACK's earliest return after the last data packet's earliest arrival, which is
/// at least, for every hop h, the time hop h needs to send all n packets from the first
/// one's earliest arrival there, then the last one's earliest way on. Each packet may start
/// later to meet a faster rate (a packet that starts just before a rise to 100x finishes
/// later than one that waits for it); a hop that follows a trace gives the packets its
/// delivery opportunities (`net/delivery_trace.rs`), 1500 bytes each, shared by packets sent
/// back to back. Outages are not in it: a transfer held up by a link that is down spends
/// that time in its FCT, and in its slowdown.
pub fn ideal_fct_in_force(
    forward: &[&LinkSchedule],
    reverse: &[&LinkSchedule],
    t: &Transfer,
) -> Time {
    let fixed = |path: &[&LinkSchedule]| -> Option<Vec<(u64, Time)>> {
        path.iter().map(|h| h.fixed_at(t.start)).collect()
    };
    if let (Some(f), Some(r)) = (fixed(forward), fixed(reverse)) {
        let closed = ideal_fct(&f, &r, t.packets, t.data_bytes, t.ack_bytes, t.handshake);
        let end = t.start.saturating_add(closed);
        if forward
            .iter()
            .chain(reverse)
            .all(|h| !h.changes_within(t.start, end))
        {
            return closed;
        }
    }
    let start = t.start as f64;
    let mut first = start;
    if t.handshake {
        first = through(reverse, through(forward, first, t.ack_bytes), t.ack_bytes);
    }
    let mut last = first;
    for (h, hop) in forward.iter().enumerate() {
        let all_sent = train(hop, first, t.packets, t.data_bytes);
        let on = &forward[h + 1..];
        last = last.max(through(on, arrival(hop, all_sent), t.data_bytes));
        first = arrival(hop, single(hop, first, t.data_bytes));
    }
    let end = through(reverse, last, t.ack_bytes);
    // Down to the nanosecond: a lower bound stays one.
    (end - start).floor().max(0.0) as Time
}

/// Times in this file are f64 nanoseconds (exact to 2^53 ns, 104 days); a change's time is
/// in force from that nanosecond on.
fn ns(t: f64) -> Time {
    t.floor().max(0.0) as Time
}

/// When a packet of `bytes` that may start at `s` under `regime` (in force since `from`)
/// ends its transmission on an idle link.
fn end_on(regime: &Regime, from: Time, s: f64, bytes: u32) -> f64 {
    match regime {
        Regime::Fixed(rate) => s + bytes as f64 * 8e9 / *rate as f64,
        Regime::Trace(trace) => {
            // From the first opportunity at or after s (an opportunity at s is burnt for a
            // packet arriving at an idle link; counting it keeps a lower bound).
            let k = trace.first_opportunity_after(from, ns(s).saturating_sub(1));
            let need = (bytes as u64).div_ceil(OPPORTUNITY_BYTES as u64).max(1);
            trace.opportunity_time(from, k + need - 1) as f64
        }
    }
}

/// The earliest end of one packet's transmission on `hop`, ready at `r` on an idle link: now,
/// or at a later change of rate that makes it end sooner.
fn single(hop: &LinkSchedule, r: f64, bytes: u32) -> f64 {
    let at = ns(r);
    let (from, regime) = hop.regime_at(at);
    let mut best = end_on(regime, from, r, bytes);
    if r == at as f64 {
        if let Some((from, before)) = hop.regime_before(at) {
            best = best.min(end_on(before, from, r, bytes));
        }
    }
    let mut next = hop.next_rate_change(at);
    while let Some(c) = next.filter(|&c| (c as f64) < best) {
        let (from, regime) = hop.regime_at(c);
        best = best.min(end_on(regime, from, c as f64, bytes));
        next = hop.next_rate_change(c);
    }
    best
}

/// The earliest end of the last of `n` packets of `bytes` all ready at `a` on `hop`: each
/// starts when the one before has ended, at the rate then in force, except that the packet
/// a change finds in transmission may instead wait for it.
fn train(hop: &LinkSchedule, a: f64, n: u64, bytes: u32) -> f64 {
    let (mut t, mut left) = (a, n);
    loop {
        let at = ns(t);
        let (from, regime) = hop.regime_at(at);
        let change = hop.next_rate_change(at).map(|c| c as f64);
        // How many start before the change, and when the j-th of them ends.
        let (starting, end_of): (u64, Box<dyn Fn(u64) -> f64>) = match regime {
            Regime::Fixed(rate) => {
                let tx = bytes as f64 * 8e9 / *rate as f64;
                let starting = change.map_or(left, |c| ((c - t) / tx).ceil().max(1.0) as u64);
                (starting, Box::new(move |j| t + j as f64 * tx))
            }
            Regime::Trace(trace) => {
                let first = trace.first_opportunity_after(from, at.saturating_sub(1));
                let per = OPPORTUNITY_BYTES as u128;
                let starting = change.map_or(left, |c| {
                    let before = trace.first_opportunity_after(from, ns(c) - 1) - first;
                    (before as u128 * per / bytes as u128 + 1).min(u64::MAX as u128) as u64
                });
                let trace = trace.clone();
                (
                    starting,
                    Box::new(move |j| {
                        let k = (j as u128 * bytes as u128).div_ceil(per) as u64;
                        trace.opportunity_time(from, first + k.max(1) - 1) as f64
                    }),
                )
            }
        };
        let m = starting.min(left);
        let mut end = end_of(m);
        if let Some(c) = change.filter(|&c| end > c) {
            end = end.min(single(hop, c, bytes));
        }
        left -= m;
        if left == 0 {
            return end;
        }
        t = end;
    }
}

/// When a packet that ends its transmission on `hop` at `d` arrives at the next node, at the
/// earliest: with the delay in force then, or a smaller one it could meet by ending later.
fn arrival(hop: &LinkSchedule, d: f64) -> f64 {
    let delays = hop.delays();
    let mut best = d + hop.min_delay_at(ns(d)) as f64;
    for &(c, delay) in delays.iter().filter(|e| e.0 as f64 > d) {
        if c as f64 >= best {
            break;
        }
        best = best.min(c as f64 + delay as f64);
    }
    best
}

/// One packet of `bytes` sent at `t` through `hops`: its earliest arrival at their end.
fn through(hops: &[&LinkSchedule], t: f64, bytes: u32) -> f64 {
    hops.iter()
        .fold(t, |t, hop| arrival(hop, single(hop, t, bytes)))
}

/// The transfer's completion time on an empty network, the denominator of its slowdown:
/// the data leave back to back at the path's slowest rate and the last ACK comes back, with
/// no slow start, no queueing and no handshake (the HPCC simulator's `standalone_fct`,
/// base RTT + size / bottleneck rate, third.cc `qp_finish`; pFabric, SIGCOMM 2013, section
/// 5, normalizes by the same line-rate FCT). Store-and-forward makes it exact for such a
/// train: n packets over hops of per-packet times T_i finish after n T_max + sum of the
/// other T_i plus the propagation delays, and the last ACK adds its own transmission and
/// propagation on each reverse hop. A handshake (`tcp.handshake = "syn"`) adds the SYN's
/// round trip, which the measured FCT includes too.
pub fn ideal_fct(
    forward: &[(u64, Time)],
    reverse: &[(u64, Time)],
    packets: u64,
    data_bytes: u32,
    ack_bytes: u32,
    handshake: bool,
) -> Time {
    let tx = |bytes: u32, rate: u64| -> f64 { bytes as f64 * 8.0 / rate as f64 };
    let slowest = forward.iter().map(|h| h.0).min().unwrap_or(u64::MAX);
    let others: f64 =
        forward.iter().map(|h| tx(data_bytes, h.0)).sum::<f64>() - tx(data_bytes, slowest);
    let acks: f64 = reverse.iter().map(|h| tx(ack_bytes, h.0)).sum();
    let propagation: Time = forward.iter().chain(reverse).map(|h| h.1).sum();
    let train = packets as f64 * tx(data_bytes, slowest) + others;
    let syn_round_trip = if handshake {
        forward.iter().map(|h| tx(ack_bytes, h.0)).sum::<f64>() + acks
    } else {
        0.0
    };
    let s = train + acks + syn_round_trip;
    propagation * (1 + handshake as Time) + time::from_secs_f64(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::delivery_trace::DeliveryTrace;
    use std::sync::Arc;

    #[test]
    fn ideal_fct_of_one_hop_is_rtt_plus_transmission() {
        // 10 packets of 1040 B at 10 Mb/s (832 us each), 20 ms of propagation, a 40 B ACK.
        let t = ideal_fct(
            &[(10_000_000, 10_000_000)],
            &[(10_000_000, 10_000_000)],
            10,
            1040,
            40,
            false,
        );
        let expected = 0.020 + 10.0 * 1040.0 * 8.0 / 1e7 + 40.0 * 8.0 / 1e7;
        assert!((time::to_secs_f64(t) - expected).abs() < 1e-9);
        // A fast access hop adds one packet's time there, not n.
        let t2 = ideal_fct(
            &[(100_000_000, 0), (10_000_000, 10_000_000)],
            &[(10_000_000, 10_000_000), (100_000_000, 0)],
            10,
            1040,
            40,
            false,
        );
        let extra = 1040.0 * 8.0 / 1e8 + 40.0 * 8.0 / 1e8;
        assert!((time::to_secs_f64(t2) - expected - extra).abs() < 1e-9);
    }

    fn transfer(start: Time, packets: u64) -> Transfer {
        Transfer {
            start,
            packets,
            data_bytes: 1040,
            ack_bytes: 40,
            handshake: false,
        }
    }

    const MS: Time = 1_000_000;

    #[test]
    fn without_changes_the_ideal_is_the_closed_form() {
        let fwd = [
            LinkSchedule::new(100_000_000, MS),
            LinkSchedule::new(10_000_000, 10 * MS),
        ];
        let rev = [
            LinkSchedule::new(10_000_000, 10 * MS),
            LinkSchedule::new(100_000_000, MS),
        ];
        let (f, r): (Vec<_>, Vec<_>) = (fwd.iter().collect(), rev.iter().collect());
        let t = transfer(3 * MS, 25);
        let closed = ideal_fct(
            &[(100_000_000, MS), (10_000_000, 10 * MS)],
            &[(10_000_000, 10 * MS), (100_000_000, MS)],
            25,
            1040,
            40,
            false,
        );
        assert_eq!(ideal_fct_in_force(&f, &r, &t), closed);
        // The general walk gives the same, to the nanosecond, when a change comes after.
        let mut late = fwd.clone();
        late[1].set_rate(10_000 * MS, Regime::Fixed(1_000_000));
        let f2: Vec<_> = late.iter().collect();
        assert_eq!(ideal_fct_in_force(&f2, &r, &t), closed);
        let mut early = fwd.clone();
        early[0].set_delay(3 * MS + 1, MS);
        let f3: Vec<_> = early.iter().collect();
        let general = ideal_fct_in_force(&f3, &r, &t);
        assert!(general.abs_diff(closed) <= 1, "{general} vs {closed}");
    }

    /// 100 packets of 1040 B over one hop of 1 Mb/s (8.32 ms each) that becomes 100 Mb/s at
    /// 50 ms: six packets start before it (the sixth ends at 49.92 ms), the seventh waits
    /// for nothing (it starts at 49.92 and would end at 58.24 ms at the old rate; waiting
    /// for 50 ms ends it at 50.0832), then 93 more at 83.2 us.
    #[test]
    fn a_rate_rise_mid_transfer_is_followed() {
        let mut hop = LinkSchedule::new(1_000_000, 0);
        hop.set_rate(50 * MS, Regime::Fixed(100_000_000));
        let ack = LinkSchedule::new(1_000_000_000, 0);
        let t = transfer(0, 100);
        let got = ideal_fct_in_force(&[&hop], &[&ack], &t);
        let expected = 50e6 + 94.0 * 83_200.0 + 320.0;
        assert!((got as f64 - expected).abs() <= 1.0, "{got} vs {expected}");
        // At the old rate it would be 832 ms; at the new one from 0, 8.32 ms.
        let at_new = LinkSchedule::new(100_000_000, 0);
        assert!(got > ideal_fct_in_force(&[&at_new], &[&ack], &t));
    }

    /// A fall: the packets that start before it keep the old rate.
    #[test]
    fn a_rate_fall_mid_transfer_is_followed() {
        let mut hop = LinkSchedule::new(100_000_000, 0);
        hop.set_rate(MS, Regime::Fixed(1_000_000));
        let ack = LinkSchedule::new(1_000_000_000, 0);
        let got = ideal_fct_in_force(&[&hop], &[&ack], &transfer(0, 100));
        // 13 packets start before 1 ms (the 13th at 0.9984 ms, ending at 1.0816 ms), then 87
        // at 8.32 ms.
        let expected = 13.0 * 83_200.0 + 87.0 * 8_320_000.0 + 320.0;
        assert!((got as f64 - expected).abs() <= 1.0, "{got} vs {expected}");
    }

    /// On a trace of one opportunity per ms (12 Mb/s), 1500-byte packets leave one per ms from
    /// the first opportunity after the start; 750-byte ones two per opportunity.
    #[test]
    fn a_trace_gives_its_opportunities() {
        let mut hop = LinkSchedule::new(1, 0);
        hop.set_rate(
            0,
            Regime::Trace(Arc::new(DeliveryTrace::parse("1\n").unwrap())),
        );
        let ack = LinkSchedule::new(1_000_000_000, 0);
        let mut t = transfer(MS / 2, 10);
        t.data_bytes = 1500;
        let ack_ns = 320.0;
        let got = ideal_fct_in_force(&[&hop], &[&ack], &t) as f64;
        assert!((got - (10.0 * 1e6 - 0.5e6 + ack_ns)).abs() <= 1.0, "{got}");
        t.data_bytes = 750;
        let got = ideal_fct_in_force(&[&hop], &[&ack], &t) as f64;
        assert!((got - (5.0 * 1e6 - 0.5e6 + ack_ns)).abs() <= 1.0, "{got}");
    }

    /// A delay that falls mid-transfer: the last packet gets the smaller one.
    #[test]
    fn a_delay_change_is_followed() {
        let mut hop = LinkSchedule::new(1_000_000_000, 100 * MS);
        hop.set_delay(10 * MS, MS);
        let ack = LinkSchedule::new(1_000_000_000, 0);
        let got = ideal_fct_in_force(&[&hop], &[&ack], &transfer(0, 1));
        // Sent at 8.32 us, it could arrive at 100 ms; ending later (at 10 ms) it arrives at
        // 11 ms: the earliest a run could see.
        assert!((got as f64 - (11e6 + 320.0)).abs() <= 1.0, "{got}");
    }
}
