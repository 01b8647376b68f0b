//! aqmlab-core: a packet-level network simulator for active queue management research.
//!
//! Pure Rust, no Python. A run is a pure function of (scenario, seed): time is integer
//! nanoseconds, events are ordered by (time, insertion sequence), and every component draws
//! from its own random stream.
//!
//! ```no_run
//! let scenario = aqmlab_core::Scenario::from_toml(&std::fs::read_to_string("s.toml").unwrap()).unwrap();
//! let result = aqmlab_core::run(&scenario, 1).unwrap();
//! println!("{:?}", result.queue("bottleneck"));
//! ```

pub mod aqm;
pub mod build;
pub mod emulation;
pub mod link;
pub mod metrics;
pub mod net;
pub mod result;
pub mod run_warnings;
pub mod scenario;
#[cfg(test)]
mod scoreboard_work_tests;
pub mod sim;
pub mod simulator;
#[doc(hidden)]
pub mod testing;
pub mod timeline;
pub mod transport;
pub mod units;

pub use result::RunResult;
pub use scenario::Scenario;
pub use simulator::{Error, RunError, Simulator};
pub use units::ScenarioError;

/// The engine's version, part of every result's identity in a results store.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Builds and runs `scenario` with master seed `seed`.
pub fn run(scenario: &Scenario, seed: u64) -> Result<RunResult, Error> {
    run_with(scenario, seed, None, &mut |_| true)
}

/// Builds and runs `scenario`, with algorithms the core does not know built by `custom`
/// (e.g. AQMs prototyped in Python), and `progress(fraction done)` called now and then; the
/// run stops with [`RunError::Interrupted`] when it returns false. While the scenario is
/// being built (which can take a while for a large one) it is called with fraction 0.
pub fn run_with(
    scenario: &Scenario,
    seed: u64,
    custom: Option<&dyn aqm::registry::CustomAqmFactory>,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<RunResult, Error> {
    run_writing(scenario, seed, custom, progress, std::path::Path::new("."))
}

/// [`run_with`], writing the scenario's capture files (`capture`) into `capture_dir`
/// (created if missing); `run_with` writes them into the current directory, as ns-3's
/// `EnablePcap` does.
pub fn run_writing(
    scenario: &Scenario,
    seed: u64,
    custom: Option<&dyn aqm::registry::CustomAqmFactory>,
    progress: &mut dyn FnMut(f64) -> bool,
    capture_dir: &std::path::Path,
) -> Result<RunResult, Error> {
    let building = std::time::Instant::now();
    scenario::capture::check_capture_dir(&scenario.capture, capture_dir)?;
    let mut simulator = build::build(scenario, seed, custom, &mut || progress(0.0))?;
    simulator.open_taps(capture_dir)?;
    let setup_s = building.elapsed().as_secs_f64();
    let mut result = simulator.run_with_progress(progress)?;
    result.timings.setup_s = setup_s;
    Ok(result)
}
