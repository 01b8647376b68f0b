//! Prints the queue and flow tables of a run as JSON, for checking that an engine change
//! leaves every result byte-identical.
//!
//! `cargo run --release -p aqmlab-core --example dump_results -- FILE SEED`

use aqmlab_core::{run, Scenario};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = &args[1];
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let text = std::fs::read_to_string(path).expect("read scenario");
    let scenario = Scenario::from_toml(&text).expect("parse scenario");
    let r = run(&scenario, seed).expect("run");
    println!("events {}", r.events);
    println!("{}", serde_json::to_string(&r.queues).unwrap());
    println!("{}", serde_json::to_string(&r.flows).unwrap());
    println!("{}", serde_json::to_string(&r.timeseries).unwrap());
    println!(
        "jain {:?} conserved {}",
        r.jain_index_all_flows, r.conserved
    );
    // After the lines above, which read as they always did (the all-flows index was the
    // only one before issue 24), so that dumps from before and after compare line by line.
    println!(
        "jain headline {:?} over {} tcp {:?} groups {}",
        r.jain_index,
        r.jain_index_over,
        r.jain_index_tcp,
        serde_json::to_string(&r.groups).unwrap()
    );
    // Issue 25's run warnings, after the rest.
    println!("warnings {}", serde_json::to_string(&r.warnings).unwrap());
}
