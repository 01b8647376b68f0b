//! A workload's arrivals, drawn at build time from the seed (issue 27, item 3): a Poisson
//! process of finite TCP transfers, each with a size and a (sender, receiver) pair. The
//! specification is read in `scenario/workload.rs`; each arrival becomes a flow of its own
//! (a TCP sender with a `size`, as a `kind = "tcp"` flow with `size`).

use crate::scenario::workload::{PairChoice, Workload};
use crate::sim::{time, RngStream, StreamKind, Time};

/// One transfer of a workload.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Arrival {
    pub at: Time,
    /// Payload bytes, a whole number, at least 1.
    pub size_bytes: u64,
    /// Index into the entry's (sender, receiver) pairs.
    pub pair: usize,
}

/// The arrivals of workload entry `entry` in [start, end), at most `max_flows` of them:
/// exponential gaps of mean 1 / `per_second` from `start`, sizes drawn by inversion of the
/// size distribution (one uniform each), clipped at `max_size` and rounded up to whole bytes.
pub fn arrivals(
    w: &Workload,
    seed: u64,
    entry: usize,
    start: Time,
    end: Time,
    per_second: f64,
    n_pairs: usize,
) -> Vec<Arrival> {
    let mut gaps = RngStream::new(seed, StreamKind::WorkloadArrivals, entry as u64);
    let mut sizes = RngStream::new(seed, StreamKind::WorkloadSizes, entry as u64);
    let mut pairs = RngStream::new(seed, StreamKind::WorkloadPairs, entry as u64);
    let cap = w.max_size.map(|m| m as f64).unwrap_or(f64::INFINITY);
    let max_flows = w.max_flows.unwrap_or(u64::MAX);
    let mean_gap_s = 1.0 / per_second;
    let mut out = vec![];
    // Time is kept in float seconds and rounded once per arrival, so rounding does not
    // accumulate over thousands of gaps.
    let mut t_s = time::to_secs_f64(start);
    while (out.len() as u64) < max_flows {
        t_s += gaps.exponential(mean_gap_s);
        let at = time::from_secs_f64(t_s);
        if at >= end {
            break;
        }
        let size = w.sizes.quantile(sizes.uniform()).min(cap);
        let pair = match w.file.pairs {
            PairChoice::RoundRobin => out.len() % n_pairs,
            PairChoice::Random => ((pairs.uniform() * n_pairs as f64) as usize).min(n_pairs - 1),
        };
        out.push(Arrival {
            at,
            size_bytes: (size.ceil() as u64).max(1),
            pair,
        });
    }
    out
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
    use crate::scenario::workload::Workload;
    use serde_json::json;

    fn workload(sizes: serde_json::Value, extra: serde_json::Value) -> Workload {
        let mut v = json!({"kind": "workload", "from": "s0", "to": "d0", "rate": 1000.0,
                           "sizes": sizes});
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        Workload::parse(&v, "flows[0]").unwrap().0
    }

    #[test]
    fn arrivals_are_poisson_at_the_rate_and_deterministic() {
        let w = workload(json!({"dist": "constant", "size": "10KB"}), json!({}));
        let a = arrivals(&w, 7, 0, 0, time::from_secs_f64(20.0), 1000.0, 3);
        // 20,000 expected; a Poisson count's sd is sqrt(20000) = 141.
        assert!(
            (a.len() as f64 - 20_000.0).abs() < 5.0 * 141.0,
            "{}",
            a.len()
        );
        let gaps: Vec<f64> = a
            .windows(2)
            .map(|w| time::to_secs_f64(w[1].at - w[0].at))
            .collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
        // Exponential gaps: mean 1 ms and coefficient of variation 1.
        assert!((mean / 1e-3 - 1.0).abs() < 0.03, "{mean}");
        assert!((var.sqrt() / mean - 1.0).abs() < 0.03);
        assert_eq!(a[..3].iter().map(|x| x.pair).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(
            a,
            arrivals(&w, 7, 0, 0, time::from_secs_f64(20.0), 1000.0, 3)
        );
        assert_ne!(
            a,
            arrivals(&w, 8, 0, 0, time::from_secs_f64(20.0), 1000.0, 3)
        );
    }

    #[test]
    fn sizes_follow_the_distribution_and_the_cap() {
        let w = workload(
            json!({"dist": "pareto", "shape": 2.5, "mean": "100KB"}),
            json!({"flows": 200000, "pairs": "random"}),
        );
        let a = arrivals(&w, 1, 0, 0, Time::MAX, 1000.0, 4);
        assert_eq!(a.len(), 200_000);
        let mean = a.iter().map(|x| x.size_bytes as f64).sum::<f64>() / a.len() as f64;
        // Pareto 2.5: sd/mean = 1/sqrt(2.5 * 0.5) = 0.89, so the mean of 2e5 draws is
        // within 0.2 % (1 sd); allow 1 % (5 sd) plus the half byte of rounding up.
        assert!((mean / 100_000.0 - 1.0).abs() < 0.01, "{mean}");
        assert!(a.iter().all(|x| x.size_bytes >= 60_000));
        let per_pair = (0..4).map(|p| a.iter().filter(|x| x.pair == p).count());
        assert!(per_pair
            .into_iter()
            .all(|n| (n as f64 / 50_000.0 - 1.0).abs() < 0.02));

        let capped = workload(
            json!({"dist": "pareto", "shape": 1.2, "scale": "1KB"}),
            json!({"flows": 200000, "max_size": "1MB"}),
        );
        let a = arrivals(&capped, 1, 0, 0, Time::MAX, 1000.0, 1);
        assert!(a.iter().all(|x| x.size_bytes <= 1_000_000));
        let mean = a.iter().map(|x| x.size_bytes as f64).sum::<f64>() / a.len() as f64;
        let expected = capped.mean_size();
        assert!((mean / expected - 1.0).abs() < 0.02, "{mean} vs {expected}");
    }

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
}
