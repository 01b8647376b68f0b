//! Runs a scenario file and reports the engine's speed: events, wall time, events/s.
//!
//! `cargo run --release -p aqmlab-core --example run_scenario -- FILE [SEED] [REPEATS]`
//!
//! Used for the whole-scenario figures in BENCHMARKS.md; prints one line per repeat and the
//! median, so a figure is not a single lucky run. "ns/pkt" is loop time over the packets the
//! link named "bottleneck" sent in the measurement window (the scaling benchmark's measure).

use aqmlab_core::{run, Scenario};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: run_scenario FILE [SEED] [REPEATS]");
        std::process::exit(2);
    };
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let repeats: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(3);
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let scenario = Scenario::from_toml(&text).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let mut rates = vec![];
    for i in 0..repeats {
        let r = run(&scenario, seed).unwrap_or_else(|e| {
            eprintln!("{path}: {e}");
            std::process::exit(1)
        });
        let q = r.queue("bottleneck");
        let ns_per_packet = q
            .filter(|q| q.departures > 0)
            .map(|q| r.wall_time_s * 1e9 / q.departures as f64)
            .unwrap_or(f64::NAN);
        println!(
            "run {i}: events {} wall {:.3}s events/s {:.3e} ns/pkt {ns_per_packet:.0} | bottleneck util {:.4} mean queue {:.1} drops {} | jain {:.3}",
            r.events,
            r.wall_time_s,
            r.events_per_second,
            q.map(|q| q.utilization).unwrap_or(f64::NAN),
            q.map(|q| q.mean_queue_packets).unwrap_or(f64::NAN),
            q.map(|q| q.drops).unwrap_or(0),
            r.jain_index
        );
        rates.push((r.events_per_second, r.wall_time_s, r.events, ns_per_packet));
    }
    rates.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (eps, wall, events, ns) = rates[rates.len() / 2];
    println!("median: {events} events in {wall:.3}s = {eps:.3e} events/s, {ns:.0} ns/pkt");
}
