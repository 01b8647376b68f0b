//! The upstream against hand-computed request-grant sequences (DocsisLink's timers, worked
//! MAP by MAP) and the closed forms of a lone packet's delay and of the throughput the
//! grants allow.

use super::*;
use crate::sim::StreamKind;

const MS: Time = 1_000_000;
const US: Time = 1_000;

fn params(max_grant: u64) -> DocsisParams {
    DocsisParams {
        max_grant: Bytes(max_grant),
        map_interval: Duration(2 * MS),
        map_advance: None,
        max_grant_variation: 0,
    }
}

fn upstream(p: DocsisParams, random: bool) -> DocsisUpstream {
    DocsisUpstream::with_offsets(p, RngStream::new(5, StreamKind::LinkDocsis, 0), random)
}

/// The modem's queue: packets (id, size) in order.
#[derive(Default)]
struct Fifo(VecDeque<(PacketId, u32)>);

impl UpstreamQueue for Fifo {
    fn bytes(&self) -> u64 {
        self.0.iter().map(|p| p.1 as u64).sum()
    }
    fn take(&mut self) -> Option<(PacketId, u32)> {
        self.0.pop_front()
    }
}

/// Runs until `until`: packets (arrival, size) join the queue (before anything due at the
/// same instant); `top_up`: the queue is kept at 10 packets of that size. Returns what was
/// sent: (id, size, start, end).
fn run(
    u: &mut DocsisUpstream,
    rate: u64,
    arrivals: &[(Time, u32)],
    top_up: Option<u32>,
    until: Time,
) -> Vec<(PacketId, u32, Time, Time)> {
    let mut q = Fifo::default();
    let mut next = 0;
    let mut id = arrivals.len() as u32;
    loop {
        if let Some(size) = top_up {
            while q.0.len() < 10 {
                q.0.push_back((PacketId(id), size));
                id += 1;
            }
        }
        let wake = u.next_wake();
        match arrivals.get(next) {
            Some(&(at, size)) if at <= wake => {
                q.0.push_back((PacketId(next as u32), size));
                next += 1;
            }
            _ if wake >= until => break,
            _ => u.wake(wake, rate, &mut q),
        }
    }
    std::mem::take(&mut u.sent)
}

/// By hand, T = 2 ms, the MAP message 650 us before each interval ends, 10 Mb/s, a 1000-byte
/// packet arriving at 0.5 ms: at the 2 ms boundary the modem has no grant and requests 1000
/// bytes; the MAP message at 3.35 ms grants the (empty) oldest stage and moves the request
/// up; at 4 ms nothing new to request; the message at 5.35 ms grants the 1000 bytes; at
/// 6 ms the modem has them and (offset 0) sends at once: 6 ms to 6.8 ms. Added delay: 1.5
/// ms to the boundary, two whole intervals, the 0.8 ms transmission.
#[test]
fn a_lone_packet_is_requested_granted_and_sent_two_intervals_later() {
    let mut u = upstream(params(2500), false);
    let out = run(&mut u, 10_000_000, &[(MS / 2, 1000)], None, 20 * MS);
    assert_eq!(out, vec![(PacketId(0), 1000, 6 * MS, 6 * MS + 800 * US)]);
    assert!(u.is_empty());
}

/// With map_advance = 2T the pipeline has three stages: one more interval, sent at 8 ms.
#[test]
fn a_longer_map_advance_adds_its_intervals() {
    let p = DocsisParams {
        map_advance: Some(Duration(4 * MS)),
        ..params(2500)
    };
    let mut u = upstream(p, false);
    let out = run(&mut u, 10_000_000, &[(MS / 2, 1000)], None, 20 * MS);
    assert_eq!(out, vec![(PacketId(0), 1000, 8 * MS, 8 * MS + 800 * US)]);
}

/// Saturated, grants of 3000 bytes carry two 1500-byte packets per interval (0.6 ms each at
/// 20 Mb/s): 3000 x 8 bits / 2 ms = 12 Mb/s, whatever the channel's 20. From the first
/// granted interval on, every interval sends exactly two, back to back from its start.
#[test]
fn saturated_grants_carry_max_grant_per_interval() {
    let mut u = upstream(params(3000), false);
    let out = run(&mut u, 20_000_000, &[], Some(1500), 2 * MS * 1000);
    let starts: Vec<Time> = out.iter().map(|o| o.2).collect();
    // The first request (at 2 ms) is granted at 5.35 ms for the interval from 6 ms.
    assert_eq!(
        &starts[..4],
        &[6 * MS, 6 * MS + 600 * US, 8 * MS, 8 * MS + 600 * US]
    );
    let in_window = |a: Time, b: Time| starts.iter().filter(|&&s| s >= a && s < b).count();
    assert_eq!(in_window(100 * MS, 1100 * MS), 1000);
}

/// Grants of 2000 bytes and 1500-byte packets: the packet the tokens do not cover is held,
/// its bytes covered by the next grants. Tokens by interval: 2000 sends one, holds the next
/// with 500 covered; 2500 sends it (its last 1000 bytes, 0.4 ms at 20 Mb/s) and holds one
/// with 1000; 3000 sends it (500 bytes, 0.2 ms) and one more, tokens 0. Four packets per three
/// intervals: 2000 bytes per interval, the grant.
#[test]
fn a_packet_larger_than_the_grant_left_is_sent_in_the_next() {
    let mut u = upstream(params(2000), false);
    let out = run(&mut u, 20_000_000, &[], Some(1500), 2 * MS * 300);
    let t = |x: &(PacketId, u32, Time, Time)| (x.2, x.3 - x.2);
    let first: Vec<_> = out.iter().take(4).map(t).collect();
    assert_eq!(
        first,
        vec![
            (6 * MS, 600 * US),
            (8 * MS, 400 * US),
            (10 * MS, 200 * US),
            (10 * MS + 200 * US, 600 * US)
        ]
    );
    let sent = out
        .iter()
        .filter(|o| o.2 >= 6 * MS && o.2 < 6 * MS + 297 * 2 * MS)
        .count();
    assert_eq!(sent, 99 * 4);
}

/// DocsisLink's offset: uniform within the interval, leaving room for the grant's bytes. Lone
/// 1000-byte packets 20 ms apart, each arriving 0.5 ms into an interval, are sent 5.5 ms
/// later plus an offset in [0, 1.2 ms) (2 ms less 0.8 ms of transmission): mean 0.6 ms.
#[test]
fn a_grants_offset_is_uniform_within_its_interval() {
    let mut u = upstream(params(2500), true);
    let arrivals: Vec<_> = (0..2000).map(|i| (MS / 2 + i * 20 * MS, 1000)).collect();
    let out = run(
        &mut u,
        10_000_000,
        &arrivals,
        None,
        2000 * 20 * MS + 20 * MS,
    );
    assert_eq!(out.len(), 2000);
    let offsets: Vec<Time> = out
        .iter()
        .map(|o| o.2 - arrivals[o.0 .0 as usize].0 - 5_500 * US)
        .collect();
    assert!(
        offsets.iter().all(|&o| o < 1_200 * US),
        "{:?}",
        offsets.iter().max()
    );
    let mean = offsets.iter().sum::<Time>() as f64 / offsets.len() as f64;
    assert!((mean / 1e3 - 600.0).abs() < 15.0, "mean offset {mean} ns");
}

#[test]
fn bad_parameters_name_the_field() {
    let bad = |p: DocsisParams| {
        p.check("topology.access.docsis", 10_000_000)
            .unwrap_err()
            .path
    };
    assert_eq!(bad(params(0)), "topology.access.docsis.max_grant");
    // 10 Mb/s carry 2500 bytes in 2 ms.
    assert_eq!(bad(params(2501)), "topology.access.docsis.max_grant");
    assert!(params(2500).check("x", 10_000_000).is_ok());
    let p = DocsisParams {
        map_interval: Duration(600 * US),
        ..params(100)
    };
    assert_eq!(bad(p), "topology.access.docsis.map_interval");
    let p = DocsisParams {
        map_advance: Some(Duration(MS)),
        ..params(100)
    };
    assert_eq!(bad(p), "topology.access.docsis.map_advance");
    let p = DocsisParams {
        max_grant_variation: 101,
        ..params(100)
    };
    assert_eq!(bad(p), "topology.access.docsis.max_grant_variation");
}
