//! `EmulationRouter`: the emulator's router for Python (issue 26). It owns the TUN devices and
//! runs the router loop on its own thread, out of Python's way; the orchestration around it
//! (namespaces, the hosts' traffic, merging what they measured) is `aqmlab.emulation`'s.

use crate::conversion::{json_to_py, result_to_py};
use crate::errors::{scenario_error, SimulationError};
use crate::run::guarded;
use aqmlab_core::emulation::{EmulatedNetwork, FlowReport, SeriesSample};
use aqmlab_core::Error;
use aqmlab_emulator::{run_router, RouterOptions, RouterOutcome, TunDevice};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

enum State {
    /// Built; no device yet.
    Built(EmulatedNetwork),
    Ready(EmulatedNetwork, Vec<TunDevice>),
    Running(JoinHandle<(RouterOutcome, Vec<TunDevice>)>),
    Stopped(RouterOutcome),
    Finished,
}

/// The scenario's network between real hosts: `EmulationRouter(scenario_json, seed,
/// device_prefix)` builds it and creates one TUN device per host of `plan()["hosts"]`, named
/// `device_prefix` + the host's index (`devices()`), in the calling process's network namespace (the caller moves each
/// into its host's namespace). The devices vanish when the router is dropped or the process
/// ends. `start(t0_ns)` runs it on its own thread from CLOCK_MONOTONIC `t0_ns` (scenario
/// time 0) to the scenario's end; `stop()` ends it early or waits for its end; `finish(...)`
/// merges the hosts' measurements and returns the result dict of `run`.
#[pyclass(module = "aqmlab._core")]
pub(crate) struct EmulationRouter {
    /// A mutex only to make the class Sync for Python; one caller drives a router.
    state: Mutex<Option<State>>,
    plan_json: serde_json::Value,
    devices: Vec<String>,
    stop: Arc<AtomicBool>,
}

impl EmulationRouter {
    fn state(&self) -> MutexGuard<'_, Option<State>> {
        // A panic while holding the lock leaves nothing half-done worth refusing.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[pymethods]
impl EmulationRouter {
    #[new]
    fn new(py: Python<'_>, scenario_json: &str, seed: u64, device_prefix: &str) -> PyResult<Self> {
        let scenario = crate::run::parse_scenario(py, scenario_json)?;
        let network = match EmulatedNetwork::new(&scenario, seed, None) {
            Ok(n) => n,
            Err(Error::Scenario(e)) => return Err(scenario_error(py, &e)),
            Err(e) => return Err(SimulationError::new_err(e.to_string())),
        };
        let devices: Vec<String> = (0..network.hosts())
            .map(|i| format!("{device_prefix}{i}"))
            .collect();
        if let Some(long) = devices.last().filter(|d| d.len() > 15) {
            return Err(PyValueError::new_err(format!(
                "device_prefix: {long:?} is longer than an interface name may be (15 bytes) \
                 for {} hosts",
                network.hosts()
            )));
        }
        let plan_json = serde_json::to_value(network.plan())
            .map_err(|e| SimulationError::new_err(e.to_string()))?;
        Ok(EmulationRouter {
            devices,
            state: Mutex::new(Some(State::Built(network))),
            plan_json,
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// Creates the TUN devices (OSError naming the device if one cannot be created).
    fn create_devices(&self) -> PyResult<()> {
        let mut state = self.state();
        let Some(State::Built(network)) = state.take() else {
            return Err(PyRuntimeError::new_err("the devices were already created"));
        };
        let tuns = self
            .devices
            .iter()
            .map(|d| TunDevice::create(d))
            .collect::<Result<Vec<_>, _>>();
        match tuns {
            Ok(tuns) => {
                *state = Some(State::Ready(network, tuns));
                Ok(())
            }
            Err(e) => {
                *state = Some(State::Built(network));
                Err(PyOSError::new_err(e.to_string()))
            }
        }
    }

    /// The TUN devices' names, host by host.
    fn devices(&self) -> Vec<String> {
        self.devices.clone()
    }

    /// The hosts (node, address), the interfaces' MTU and each flow as the hosts must run it.
    fn plan<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &self.plan_json)
    }

    /// Starts the router thread; scenario time 0 is CLOCK_MONOTONIC `t0_ns`. `spin_us`: the
    /// last part of each wait spent polling; `cpu`: the CPU to pin the router's thread to, if
    /// any.
    #[pyo3(signature = (t0_ns, spin_us=0.0, cpu=None))]
    fn start(&mut self, t0_ns: u64, spin_us: f64, cpu: Option<usize>) -> PyResult<()> {
        let Some(State::Ready(network, tuns)) = self.state().take() else {
            return Err(PyRuntimeError::new_err(
                "start() needs a router with its devices created and not yet started",
            ));
        };
        if !(0.0..=1e6).contains(&spin_us) {
            return Err(PyValueError::new_err(format!(
                "spin_us: {spin_us}, expected 0 to 1e6"
            )));
        }
        let opts = RouterOptions {
            t0_ns,
            spin_ns: (spin_us * 1e3) as u64,
            cpu,
        };
        let stop = self.stop.clone();
        let handle = std::thread::Builder::new()
            .name("aqmlab-router".into())
            .spawn(move || {
                let outcome = run_router(network, &tuns, opts, &stop);
                (outcome, tuns)
            })
            .map_err(|e| PyOSError::new_err(format!("router thread: {e}")))?;
        *self.state() = Some(State::Running(handle));
        Ok(())
    }

    /// Is the router thread still running?
    fn is_running(&self) -> bool {
        matches!(&*self.state(), Some(State::Running(h)) if !h.is_finished())
    }

    /// Stops the router (at once with `now`, else at the scenario's end) and waits for it; the
    /// TUN devices are closed, and so removed. Returns the router's own figures.
    #[pyo3(signature = (now=true))]
    fn stop<'py>(&mut self, py: Python<'py>, now: bool) -> PyResult<Bound<'py, PyAny>> {
        let taken = self.state().take();
        match taken {
            Some(State::Running(handle)) => {
                if now {
                    self.stop.store(true, Ordering::SeqCst);
                }
                let (outcome, tuns) = guarded(py, move || handle.join())?.map_err(|_| {
                    SimulationError::new_err(
                        "internal error (please report): the router thread panicked",
                    )
                })?;
                drop(tuns);
                *self.state() = Some(State::Stopped(outcome));
            }
            Some(State::Ready(..)) | Some(State::Built(_)) => *self.state() = Some(State::Finished),
            other => *self.state() = other,
        }
        let state = self.state();
        let figures = match &*state {
            Some(State::Stopped(o)) => serde_json::json!({
                "stopped_early": o.stopped_early,
                "host_write_errors": o.host_write_errors,
                "wall_time_s": o.wall_time_s,
                "error": o.error,
            }),
            _ => serde_json::json!({}),
        };
        json_to_py(py, &figures)
    }

    /// The result (the dict `run` returns, with an `emulation` entry: the lag and validity)
    /// with the hosts' measurements merged: `reports_json`, a JSON list of per-flow reports
    /// (flow, goodput_bytes, completed_at_s, srtt_sum_ms, srtt_samples, timeouts, ...);
    /// `series_json`, a JSON list of samples (time_s, flow, variable, value). A run whose
    /// departure lag's 99th percentile exceeds `max_lag_us` is marked not valid.
    fn finish(
        &mut self,
        py: Python<'_>,
        reports_json: &str,
        series_json: &str,
        max_lag_us: f64,
    ) -> PyResult<Py<PyAny>> {
        let Some(State::Stopped(outcome)) = self.state().take() else {
            return Err(PyRuntimeError::new_err(
                "finish() needs a router that was started and stopped",
            ));
        };
        *self.state() = Some(State::Finished);
        if let Some(e) = &outcome.error {
            return Err(PyOSError::new_err(format!("the router failed: {e}")));
        }
        let reports: Vec<FlowReport> = serde_json::from_str(reports_json)
            .map_err(|e| PyValueError::new_err(format!("reports_json: {e}")))?;
        let series: Vec<SeriesSample> = serde_json::from_str(series_json)
            .map_err(|e| PyValueError::new_err(format!("series_json: {e}")))?;
        if !(max_lag_us > 0.0 && max_lag_us.is_finite()) {
            return Err(PyValueError::new_err(format!(
                "max_lag_us: {max_lag_us}, expected a positive number"
            )));
        }
        let wall = outcome.wall_time_s;
        let result = outcome
            .network
            .finish(&reports, &series, (max_lag_us * 1e3) as u64, wall)
            .map_err(|e| SimulationError::new_err(e.to_string()))?;
        result_to_py(py, result)
    }
}
