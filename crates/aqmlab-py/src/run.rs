//! The module's functions: run (GIL released, Ctrl-C and progress through a callback, the
//! scenario's warnings through another), check (a run's checks, built and not run), interrupt,
//! validate, resolve_scenario,
//! estimate_memory, load_toml, the AQM registry and the version.

use crate::conversion::{json_to_py, result_to_py};
use crate::errors::{panic_message, scenario_error, Failure, SimulationError};
use crate::python_aqm::PyAqmFactory;
use aqmlab_core::aqm::params::QueueEnv;
use aqmlab_core::aqm::registry::{build_queue, Builder, CustomAqmFactory, REGISTRY};
use aqmlab_core::aqm::QueueLimit;
use aqmlab_core::scenario::memory;
use aqmlab_core::scenario::schema::FlowSpec;
use aqmlab_core::sim::work_budget::with_interrupt_check;
use aqmlab_core::{Error, RunError, Scenario};
use pyo3::exceptions::{PyKeyboardInterrupt, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Runs `f` with the GIL released, turning a Rust panic into SimulationError.
pub(crate) fn guarded<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.detach(|| catch_unwind(AssertUnwindSafe(f)))
        .map_err(|payload| {
            SimulationError::new_err(format!(
                "internal error (please report): the engine panicked: {}",
                panic_message(payload.as_ref())
            ))
        })
}

/// Parses a scenario (JSON text) as the engine reads it, with the GIL released and Ctrl-C
/// heard: the trace files it names are read while it is parsed (`scenario::input_file`),
/// which may take a while for a large one. Raises ScenarioError, or KeyboardInterrupt.
pub(crate) fn parse_scenario(py: Python<'_>, scenario_json: &str) -> PyResult<Scenario> {
    let failure = Arc::new(Failure::default());
    let epoch = CANCEL_EPOCH.load(Ordering::SeqCst);
    let seen = Arc::clone(&failure);
    let parsed = guarded(py, move || {
        let check = Box::new(move || keep_going(&seen, epoch, None, 0.0));
        with_interrupt_check(check, || Scenario::from_json(scenario_json))
    })?;
    if let Some(e) = failure.take() {
        return Err(e);
    }
    if CANCEL_EPOCH.load(Ordering::SeqCst) != epoch {
        return Err(PyKeyboardInterrupt::new_err("interrupted"));
    }
    parsed.map_err(|e| scenario_error(py, &e))
}

/// Bumped by `interrupt_runs`: a run that sees it differ from its value at the run's start
/// stops. Python runs signal handlers on the main thread only, so a run on another thread
/// cannot see Ctrl-C through `check_signals`; aqmlab's SIGINT handler bumps this instead.
pub(crate) static CANCEL_EPOCH: AtomicU64 = AtomicU64::new(0);

/// Stops every run in progress in this process, on any thread (each raises KeyboardInterrupt
/// at its next poll: the event loop polls every 20 ms of wall-clock time, or after the event
/// under way if one takes longer; `PollPacer`). Runs started afterwards are unaffected.
#[pyfunction]
pub(crate) fn interrupt_runs() {
    CANCEL_EPOCH.fetch_add(1, Ordering::SeqCst);
}

/// The Python AQM classes of `custom_aqms` (name -> class) as a factory for the core.
fn custom_factory(
    custom_aqms: Option<Bound<'_, PyDict>>,
    failure: &Arc<Failure>,
) -> PyResult<Option<PyAqmFactory>> {
    let Some(d) = custom_aqms.filter(|d| !d.is_empty()) else {
        return Ok(None);
    };
    let mut classes = Vec::with_capacity(d.len());
    for (k, v) in d.iter() {
        let name: String = k
            .extract()
            .map_err(|_| PyTypeError::new_err("custom_aqms keys must be str"))?;
        if !v.is_callable() {
            return Err(PyTypeError::new_err(format!(
                "custom_aqms[{name:?}] must be a class (callable), got {}",
                v.get_type().name()?
            )));
        }
        classes.push((name, v.unbind()));
    }
    Ok(Some(PyAqmFactory {
        classes,
        failure: failure.clone(),
    }))
}

/// Hands each of the scenario's warnings to `warn(path, message)` (issue 24, items 8 and 10),
/// before anything is built, so that a long run is not waited out to learn that `target = 15`
/// was read as 15 s. An exception from `warn` (warnings turned into errors) stops the run.
fn report_warnings(py: Python<'_>, scenario: &Scenario, warn: Option<&Py<PyAny>>) -> PyResult<()> {
    if let Some(warn) = warn.filter(|w| !w.is_none(py)) {
        for w in &scenario.warnings {
            warn.call1(py, (w.path.as_str(), w.message.as_str()))?;
        }
    }
    Ok(())
}

/// What a run does before it builds anything, shared by `run` and `check`: the scenario
/// parsed, refused if its memory estimate exceeds `max_memory` (bytes), its warnings handed
/// to `warn(path, message)`, and the factory of its Python AQMs.
fn prepare(
    py: Python<'_>,
    scenario_json: &str,
    custom_aqms: Option<Bound<'_, PyDict>>,
    max_memory: Option<u64>,
    warn: Option<&Py<PyAny>>,
) -> PyResult<(Scenario, Arc<Failure>, Option<PyAqmFactory>)> {
    let scenario = parse_scenario(py, scenario_json)?;
    if let Some(limit) = max_memory {
        memory::estimate(&scenario)
            .check(limit)
            .map_err(|e| scenario_error(py, &e))?;
    }
    report_warnings(py, &scenario, warn)?;
    let failure = Arc::new(Failure::default());
    let factory = custom_factory(custom_aqms, &failure)?;
    Ok((scenario, failure, factory))
}

/// The poll of a build and a run (`keep_going`): false, to stop, after a Python AQM failed,
/// on `interrupt_runs` (the epoch moved since `epoch`), on Ctrl-C, or when `progress(frac)`
/// raised or returned False (not None).
fn keep_going(failure: &Failure, epoch: u64, progress: Option<&Py<PyAny>>, frac: f64) -> bool {
    if failure.failed() || CANCEL_EPOCH.load(Ordering::SeqCst) != epoch {
        return false;
    }
    Python::attach(|py| {
        if let Err(e) = py.check_signals() {
            failure.record(e);
            return false;
        }
        if let Some(p) = progress {
            match p.call1(py, (frac,)) {
                Ok(v) => {
                    if let Ok(false) = v.bind(py).extract::<bool>() {
                        if !v.is_none(py) {
                            return false;
                        }
                    }
                }
                Err(e) => {
                    failure.record(e);
                    return false;
                }
            }
        }
        true
    })
}

/// An engine error as the Python exception a caller expects.
fn engine_error(py: Python<'_>, e: Error) -> PyErr {
    match e {
        Error::Scenario(e) => scenario_error(py, &e),
        Error::Run(RunError::Interrupted) => PyKeyboardInterrupt::new_err("run interrupted"),
        e @ Error::Run(_) => SimulationError::new_err(e.to_string()),
    }
}

/// Runs a scenario given as JSON text with master seed `seed`; returns the result as a dict.
/// With `max_memory` (bytes), a scenario whose memory estimate exceeds it is refused with a
/// ScenarioError before anything is built. `warn(path, message)` is called with each warning
/// about the scenario before the run. The scenario's capture files (`capture`) are written
/// into `capture_dir` (default: the current directory, as ns-3's EnablePcap writes them).
#[pyfunction]
#[pyo3(signature = (scenario_json, seed, progress=None, custom_aqms=None, max_memory=None, warn=None, capture_dir=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    py: Python<'_>,
    scenario_json: &str,
    seed: u64,
    progress: Option<Py<PyAny>>,
    custom_aqms: Option<Bound<'_, PyDict>>,
    max_memory: Option<u64>,
    warn: Option<Py<PyAny>>,
    capture_dir: Option<std::path::PathBuf>,
) -> PyResult<Py<PyAny>> {
    let capture_dir = capture_dir.unwrap_or_else(|| ".".into());
    let (scenario, failure, factory) =
        prepare(py, scenario_json, custom_aqms, max_memory, warn.as_ref())?;
    let progress = progress.filter(|p| !p.is_none(py));
    let epoch = CANCEL_EPOCH.load(Ordering::SeqCst);
    let outcome = guarded(py, || {
        aqmlab_core::run_writing(
            &scenario,
            seed,
            factory.as_ref().map(|f| f as &dyn CustomAqmFactory),
            &mut |frac| keep_going(&failure, epoch, progress.as_ref(), frac),
            &capture_dir,
        )
    });
    if let Some(e) = failure.take() {
        return Err(e);
    }
    match outcome? {
        Ok(r) => result_to_py(py, r),
        Err(e) => Err(engine_error(py, e)),
    }
}

/// Everything `run` does before its first event, and nothing after (`aqmlab run --dry-run`):
/// the scenario parsed, the memory limit, its warnings to `warn`, and the simulator built
/// with seed `seed` (flows, AQM parameters, events checked against the network) and dropped.
/// Writes nothing (the capture files are opened by a run). Raises as `run` would.
#[pyfunction]
#[pyo3(signature = (scenario_json, seed, custom_aqms=None, max_memory=None, warn=None))]
pub(crate) fn check(
    py: Python<'_>,
    scenario_json: &str,
    seed: u64,
    custom_aqms: Option<Bound<'_, PyDict>>,
    max_memory: Option<u64>,
    warn: Option<Py<PyAny>>,
) -> PyResult<()> {
    let (scenario, failure, factory) =
        prepare(py, scenario_json, custom_aqms, max_memory, warn.as_ref())?;
    let epoch = CANCEL_EPOCH.load(Ordering::SeqCst);
    let built = guarded(py, || {
        aqmlab_core::build::build(
            &scenario,
            seed,
            factory.as_ref().map(|f| f as &dyn CustomAqmFactory),
            &mut || keep_going(&failure, epoch, None, 0.0),
        )
        .map(drop)
    })?;
    if let Some(e) = failure.take() {
        return Err(e);
    }
    built.map_err(|e| engine_error(py, e))
}

/// Parses and validates a scenario (JSON text) without running it; raises ScenarioError.
/// Returns the warnings about it as (path, message) pairs. AQM names and parameters are
/// checked when the queues are built: by a run, or here with `build` (the whole network is
/// built, with the Python AQMs of `custom_aqms`, and dropped).
#[pyfunction]
#[pyo3(signature = (scenario_json, custom_aqms=None, build=false))]
pub(crate) fn validate(
    py: Python<'_>,
    scenario_json: &str,
    custom_aqms: Option<Bound<'_, PyDict>>,
    build: bool,
) -> PyResult<Vec<(String, String)>> {
    let scenario = parse_scenario(py, scenario_json)?;
    if build {
        let failure = Arc::new(Failure::default());
        let factory = custom_factory(custom_aqms, &failure)?;
        let built = guarded(py, || {
            aqmlab_core::build::build(
                &scenario,
                1,
                factory.as_ref().map(|f| f as &dyn CustomAqmFactory),
                &mut || true,
            )
            .map(drop)
        })?;
        if let Some(e) = failure.take() {
            return Err(e);
        }
        match built {
            Ok(()) => {}
            Err(Error::Scenario(e)) => return Err(scenario_error(py, &e)),
            Err(e) => return Err(SimulationError::new_err(e.to_string())),
        }
    }
    Ok(scenario
        .warnings
        .into_iter()
        .map(|w| (w.path, w.message))
        .collect())
}

/// The TCP settings of each `flows` entry of a scenario (JSON text) as the engine reads them:
/// the shared `[tcp]` table under the flow's own, the profile they name expanded, every
/// default filled in; None for a UDP flow. What a user of `profile = "ns3"` actually got.
#[pyfunction]
pub(crate) fn resolved_tcp(py: Python<'_>, scenario_json: &str) -> PyResult<Py<PyList>> {
    let scenario = parse_scenario(py, scenario_json)?;
    let out = PyList::empty(py);
    for flow in &scenario.flows {
        match flow {
            FlowSpec::Tcp { tcp, .. } => {
                let value = serde_json::to_value(tcp).expect("a TcpConfig serializes");
                out.append(json_to_py(py, &value)?)?;
            }
            _ => out.append(py.None())?,
        }
    }
    Ok(out.unbind())
}

/// The scenario (JSON text) as the engine reads it, every default filled in
/// (`Scenario::resolved`): a dict that, run as a scenario, runs as the original does.
/// Raises ScenarioError naming the field, AQM parameters included.
#[pyfunction]
pub(crate) fn resolve_scenario(py: Python<'_>, scenario_json: &str) -> PyResult<Py<PyAny>> {
    let scenario = parse_scenario(py, scenario_json)?;
    let value = scenario.resolved().map_err(|e| scenario_error(py, &e))?;
    Ok(json_to_py(py, &value)?.unbind())
}

/// The memory a scenario (JSON text) would need: `{"total": bytes, "parts": [{"what", "field",
/// "bytes"}]}` (see `aqmlab_core::scenario::memory`).
#[pyfunction]
pub(crate) fn estimate_memory(py: Python<'_>, scenario_json: &str) -> PyResult<Py<PyAny>> {
    let scenario = parse_scenario(py, scenario_json)?;
    let estimate = memory::estimate(&scenario);
    let out = PyDict::new(py);
    out.set_item("total", estimate.total())?;
    let parts = PyList::empty(py);
    for p in &estimate.parts {
        let d = PyDict::new(py);
        d.set_item("what", &p.what)?;
        d.set_item("field", &p.field)?;
        d.set_item("bytes", p.bytes)?;
        parts.append(d)?;
    }
    out.set_item("parts", parts)?;
    Ok(out.into_any().unbind())
}

/// Parses TOML text into Python objects (the scenario as a dict), with the core's TOML rules.
#[pyfunction]
pub(crate) fn load_toml(py: Python<'_>, text: &str) -> PyResult<Py<PyAny>> {
    let value =
        aqmlab_core::scenario::toml_text::parse_toml(text).map_err(|e| scenario_error(py, &e))?;
    Ok(json_to_py(py, &value)?.unbind())
}

/// The registry of built-in AQMs: name, title, source, ecn, kind, params, implemented.
#[pyfunction]
pub(crate) fn aqms(py: Python<'_>) -> PyResult<Py<PyList>> {
    let env = QueueEnv {
        link_rate_bps: 10_000_000,
        link_delay: 20_000_000,
        limit: QueueLimit::Packets(100),
    };
    let out = PyList::empty(py);
    for info in REGISTRY {
        let d = PyDict::new(py);
        d.set_item("name", info.name)?;
        d.set_item("title", info.title)?;
        d.set_item("source", info.source)?;
        d.set_item("ecn", info.ecn)?;
        d.set_item(
            "kind",
            match info.builder {
                Builder::Fifo(_) => "fifo",
                Builder::Discipline(_) => "discipline",
            },
        )?;
        let params = PyList::empty(py);
        for p in info.params {
            let pd = PyDict::new(py);
            pd.set_item("name", p.name)?;
            pd.set_item("default", p.default)?;
            pd.set_item("unit", p.unit)?;
            pd.set_item("meaning", p.meaning)?;
            pd.set_item("plausible", p.plausible.map(|r| (r.lo, r.hi)))?;
            params.append(pd)?;
        }
        d.set_item("params", params)?;
        d.set_item("state", crate::series_docs::state_list(py, info.state)?)?;
        // Whether it builds with its defaults on a 10 Mb/s, 100-packet queue.
        let built = catch_unwind(|| {
            build_queue(
                &serde_json::Value::String(info.name.to_string()),
                &env,
                None,
                "aqm",
            )
            .map(|_| ())
        });
        let error = match built {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(e.message),
            Err(p) => Some(format!("panicked: {}", panic_message(p.as_ref()))),
        };
        d.set_item("implemented", error.is_none())?;
        d.set_item("build_error", error)?;
        out.append(d)?;
    }
    Ok(out.unbind())
}

/// The TCP profiles the engine carries (`tcp.profile`), by name: name -> the profile's fields
/// (a profile built on another has the other's fields under its own).
#[pyfunction]
pub(crate) fn tcp_profiles(py: Python<'_>) -> PyResult<Py<PyAny>> {
    use aqmlab_core::transport::tcp::profile::{profile_fields, PROFILES};
    let out = serde_json::Map::from_iter(PROFILES.iter().map(|(name, _)| {
        let fields = profile_fields(name).expect("a packaged profile");
        (name.to_string(), serde_json::Value::Object(fields))
    }));
    Ok(json_to_py(py, &serde_json::Value::Object(out))?.unbind())
}

/// The engine's version.
#[pyfunction]
pub(crate) fn version() -> &'static str {
    aqmlab_core::VERSION
}

/// Test hook: panics inside the same guard as `run`; must raise SimulationError.
#[pyfunction]
pub(crate) fn _panic_for_test(py: Python<'_>, message: String) -> PyResult<()> {
    guarded(py, move || -> () { panic!("{message}") })
}
