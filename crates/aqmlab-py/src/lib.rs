//! `aqmlab._core`: the thin PyO3 layer over aqmlab-core.
//!
//! Nothing here simulates or computes: it converts scenarios in, results out, errors across,
//! and adapts AQMs written in Python to the core's [`Aqm`] trait. Runs release the GIL; the
//! progress callback re-acquires it briefly to call Python and to check for Ctrl-C.

mod arrow_tables;

use aqmlab_core::aqm::params::AqmParams;
use aqmlab_core::aqm::params::QueueEnv;
use aqmlab_core::aqm::registry::{build_queue, Builder, CustomAqmFactory, REGISTRY};
use aqmlab_core::aqm::{
    Aqm, ArrivalVerdict, DepartureVerdict, DropKind, QueueLimit, QueueView, StateSink,
};
use aqmlab_core::net::{Packet, PacketKind};
use aqmlab_core::scenario::memory;
use aqmlab_core::sim::time::{from_secs_f64, to_secs_f64};
use aqmlab_core::sim::{RngStream, StreamKind, Time};
use aqmlab_core::{Error, RunError, RunResult, Scenario, ScenarioError as CoreScenarioError};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3_arrow::PyRecordBatch;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

pyo3::create_exception!(
    aqmlab,
    ScenarioError,
    PyValueError,
    "A scenario is invalid. `path` names the field (e.g. `topology.bottleneck.rate`), `message` says why."
);
pyo3::create_exception!(
    aqmlab,
    SimulationError,
    PyRuntimeError,
    "The engine failed while running a valid scenario (a bug in aqmlab)."
);

// ---------------------------------------------------------------------------------------------
// Errors

fn scenario_error(py: Python<'_>, e: &CoreScenarioError) -> PyErr {
    let text = e.to_string();
    let make = || -> PyResult<PyErr> {
        let value = py.get_type::<ScenarioError>().call1((text.clone(),))?;
        value.setattr("path", e.path.as_str())?;
        value.setattr("message", e.message.as_str())?;
        Ok(PyErr::from_value(value))
    };
    make().unwrap_or_else(|err| err)
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// The first Python exception raised by a callback during a run (progress or a Python AQM).
/// It aborts the run and is re-raised by `run`.
#[derive(Default)]
struct Failure {
    failed: AtomicBool,
    error: Mutex<Option<PyErr>>,
}

impl Failure {
    fn record(&self, e: PyErr) {
        let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
        self.failed.store(true, Ordering::Relaxed);
    }
    #[inline]
    fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }
    fn take(&self) -> Option<PyErr> {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

// ---------------------------------------------------------------------------------------------
// JSON <-> Python

/// Converts JSON text to Python objects with the standard `json` module (keeps key order).
fn json_text_to_py<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

fn json_to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(v).map_err(|e| PyValueError::new_err(e.to_string()))?;
    json_text_to_py(py, &text)
}

/// A run's result as Python objects: a dict of the `RunResult` fields, in order, the scalars
/// as Python values (non-finite floats become None) and the three tables (`queues`, `flows`,
/// `timeseries`) as Arrow record batches, handed over through the Arrow C data interface
/// without a copy of the series. `timings.collect_s` grows by this conversion's own time.
fn result_to_py(py: Python<'_>, mut r: RunResult) -> PyResult<Py<PyAny>> {
    let converting = Instant::now();
    let queues = arrow_tables::rows_batch(&std::mem::take(&mut r.queues))?;
    let flows = arrow_tables::rows_batch(&std::mem::take(&mut r.flows))?;
    let series = arrow_tables::series_batch(std::mem::take(&mut r.timeseries))?;
    let text = serde_json::to_string(&r).map_err(|e| SimulationError::new_err(e.to_string()))?;
    let out = json_text_to_py(py, &text)?;
    out.set_item("queues", PyRecordBatch::new(queues).into_pyobject(py)?)?;
    out.set_item("flows", PyRecordBatch::new(flows).into_pyobject(py)?)?;
    out.set_item("timeseries", PyRecordBatch::new(series).into_pyobject(py)?)?;
    let timings = out.get_item("timings")?;
    let collect_s: f64 = timings.get_item("collect_s")?.extract()?;
    timings.set_item("collect_s", collect_s + converting.elapsed().as_secs_f64())?;
    out.set_item("peak_rss_bytes", aqmlab_core::result::peak_rss_bytes())?;
    Ok(out.unbind())
}

// ---------------------------------------------------------------------------------------------
// Python AQMs

/// The queue as a Python AQM sees it (valid at the moment of the call).
#[pyclass(frozen, module = "aqmlab._core", name = "QueueView")]
struct PyQueueView {
    /// Simulated time, seconds.
    #[pyo3(get)]
    now: f64,
    /// Packets waiting (excluding the one in service and the arriving one).
    #[pyo3(get)]
    len_packets: u32,
    #[pyo3(get)]
    len_bytes: u64,
    limit: QueueLimit,
    #[pyo3(get)]
    link_rate_bps: u64,
    /// Since when (seconds) the link has been idle, or None if it is busy.
    #[pyo3(get)]
    idle_since: Option<f64>,
}

#[pymethods]
impl PyQueueView {
    /// The buffer limit, in `limit_unit`s.
    #[getter]
    fn limit(&self) -> u64 {
        match self.limit {
            QueueLimit::Packets(n) => n as u64,
            QueueLimit::Bytes(b) => b,
        }
    }
    /// "packets" or "bytes".
    #[getter]
    fn limit_unit(&self) -> &'static str {
        match self.limit {
            QueueLimit::Packets(_) => "packets",
            QueueLimit::Bytes(_) => "bytes",
        }
    }
    /// Would a packet of `size` bytes overflow the buffer?
    fn is_full_for(&self, size: u32) -> bool {
        self.limit.overflows(self.len_packets, self.len_bytes, size)
    }
    fn __repr__(&self) -> String {
        format!(
            "QueueView(now={}, len_packets={}, len_bytes={}, limit={} {}, link_rate_bps={}, idle_since={:?})",
            self.now,
            self.len_packets,
            self.len_bytes,
            self.limit(),
            self.limit_unit(),
            self.link_rate_bps,
            self.idle_since
        )
    }
}

impl PyQueueView {
    fn new(q: &QueueView) -> Self {
        PyQueueView {
            now: to_secs_f64(q.now),
            len_packets: q.len_packets,
            len_bytes: q.len_bytes,
            limit: q.limit,
            link_rate_bps: q.link_rate_bps,
            idle_since: q.idle_since.map(to_secs_f64),
        }
    }
}

/// The packet a Python AQM decides about (a read-only copy).
#[pyclass(frozen, module = "aqmlab._core", name = "PacketView")]
struct PyPacket {
    /// Bytes on the wire.
    #[pyo3(get)]
    size: u32,
    #[pyo3(get)]
    flow: u32,
    /// ECN-capable transport.
    #[pyo3(get)]
    ect: bool,
    /// Already CE-marked.
    #[pyo3(get)]
    ce: bool,
    kind: PacketKind,
}

#[pymethods]
impl PyPacket {
    /// "tcp_data", "tcp_ack" or "udp".
    #[getter]
    fn kind(&self) -> &'static str {
        match self.kind {
            PacketKind::TcpData => "tcp_data",
            PacketKind::TcpAck => "tcp_ack",
            PacketKind::Udp => "udp",
        }
    }
    fn __repr__(&self) -> String {
        format!(
            "PacketView(size={}, flow={}, ect={}, ce={}, kind={:?})",
            self.size,
            self.flow,
            self.ect,
            self.ce,
            self.kind()
        )
    }
}

impl PyPacket {
    fn new(p: &Packet) -> Self {
        PyPacket {
            size: p.size,
            flow: p.flow,
            ect: p.ecn.ect,
            ce: p.ecn.ce,
            kind: p.kind,
        }
    }
}

/// The queue's own random stream, as `self.rng` of a Python AQM: draws are deterministic for a
/// given seed and shared with nothing else.
#[pyclass(module = "aqmlab._core", name = "Rng")]
struct PyRng {
    inner: RngStream,
}

#[pymethods]
impl PyRng {
    /// Uniform in [0, 1).
    fn uniform(&mut self) -> f64 {
        self.inner.uniform()
    }
    /// Alias of `uniform`, as `random.random`.
    fn random(&mut self) -> f64 {
        self.inner.uniform()
    }
    /// True with probability `p`.
    fn bernoulli(&mut self, p: f64) -> bool {
        self.inner.bernoulli(p)
    }
    /// Exponential with the given mean.
    fn exponential(&mut self, mean: f64) -> f64 {
        self.inner.exponential(mean)
    }
}

struct PyAqm {
    name: String,
    _obj: Py<PyAny>,
    rng: Py<PyRng>,
    on_arrival: Py<PyAny>,
    on_departure: Option<Py<PyAny>>,
    on_link_idle: Option<Py<PyAny>>,
    on_timer: Option<Py<PyAny>>,
    state: Option<Py<PyAny>>,
    timer_interval: Option<Time>,
    failure: Arc<Failure>,
}

impl PyAqm {
    fn fail(&self, py: Python<'_>, method: &str, e: PyErr) {
        // Python >= 3.11 shows notes under the traceback; older versions have no add_note.
        let note = format!("in Python AQM '{}', method {method}", self.name);
        let _ = e.value(py).call_method1("add_note", (note,));
        self.failure.record(e);
    }

    /// Calls `f` with the queue's random stream lent to `self.rng`.
    fn with_rng<R>(
        &self,
        py: Python<'_>,
        rng: &mut RngStream,
        f: impl FnOnce() -> PyResult<R>,
    ) -> PyResult<R> {
        self.rng.borrow_mut(py).inner = rng.clone();
        let r = f();
        *rng = self.rng.borrow(py).inner.clone();
        r
    }
}

fn arrival_verdict(s: &str, pkt: &Packet) -> PyResult<ArrivalVerdict> {
    Ok(match s {
        "enqueue" => ArrivalVerdict::Enqueue,
        // A mark on a packet that is not ECN-capable is an early drop, as in the core.
        "mark" if pkt.ecn.ect => ArrivalVerdict::Mark,
        "mark" => ArrivalVerdict::Drop(DropKind::Early),
        "drop" => ArrivalVerdict::Drop(DropKind::Early),
        "drop_forced" => ArrivalVerdict::Drop(DropKind::Forced),
        "drop_front" => ArrivalVerdict::DropFront(DropKind::Early),
        "mark_front" => ArrivalVerdict::MarkFront,
        other => {
            return Err(PyValueError::new_err(format!(
                "on_arrival returned {other:?}; expected one of \"enqueue\", \"mark\", \"drop\", \"drop_forced\", \"drop_front\", \"mark_front\""
            )))
        }
    })
}

fn departure_verdict(s: &str) -> PyResult<DepartureVerdict> {
    Ok(match s {
        "send" => DepartureVerdict::Send,
        "mark" => DepartureVerdict::Mark,
        "drop" => DepartureVerdict::Drop,
        other => {
            return Err(PyValueError::new_err(format!(
                "on_departure returned {other:?}; expected one of \"send\", \"mark\", \"drop\""
            )))
        }
    })
}

/// What a failed run's AQM answers until the run stops: plain tail drop.
fn fallback(q: &QueueView, pkt: &Packet) -> ArrivalVerdict {
    if q.is_full_for(pkt.size) {
        ArrivalVerdict::Drop(DropKind::Forced)
    } else {
        ArrivalVerdict::Enqueue
    }
}

impl Aqm for PyAqm {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, rng: &mut RngStream) -> ArrivalVerdict {
        if self.failure.failed() {
            return fallback(q, pkt);
        }
        Python::attach(|py| {
            let r = self.with_rng(py, rng, || {
                let v = self
                    .on_arrival
                    .call1(py, (PyQueueView::new(q), PyPacket::new(pkt)))?;
                let s: std::borrow::Cow<'_, str> = v.bind(py).extract().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "on_arrival must return a str, got {}",
                        v.bind(py).repr().map(|r| r.to_string()).unwrap_or_default()
                    ))
                })?;
                arrival_verdict(&s, pkt)
            });
            r.unwrap_or_else(|e| {
                self.fail(py, "on_arrival", e);
                fallback(q, pkt)
            })
        })
    }

    fn on_departure(
        &mut self,
        q: &QueueView,
        pkt: &Packet,
        rng: &mut RngStream,
    ) -> DepartureVerdict {
        let Some(f) = &self.on_departure else {
            return DepartureVerdict::Send;
        };
        if self.failure.failed() {
            return DepartureVerdict::Send;
        }
        Python::attach(|py| {
            let r = self.with_rng(py, rng, || {
                let v = f.call1(py, (PyQueueView::new(q), PyPacket::new(pkt)))?;
                let s: std::borrow::Cow<'_, str> = v
                    .bind(py)
                    .extract()
                    .map_err(|_| PyTypeError::new_err("on_departure must return a str"))?;
                departure_verdict(&s)
            });
            r.unwrap_or_else(|e| {
                self.fail(py, "on_departure", e);
                DepartureVerdict::Send
            })
        })
    }

    fn on_link_idle(&mut self, now: Time) {
        let Some(f) = &self.on_link_idle else { return };
        if self.failure.failed() {
            return;
        }
        Python::attach(|py| {
            if let Err(e) = f.call1(py, (to_secs_f64(now),)) {
                self.fail(py, "on_link_idle", e);
            }
        })
    }

    fn timer_interval(&self) -> Option<Time> {
        self.timer_interval
    }

    fn on_timer(&mut self, q: &QueueView, rng: &mut RngStream) {
        let Some(f) = &self.on_timer else { return };
        if self.failure.failed() {
            return;
        }
        Python::attach(|py| {
            let r = self.with_rng(py, rng, || f.call1(py, (PyQueueView::new(q),)).map(|_| ()));
            if let Err(e) = r {
                self.fail(py, "on_timer", e);
            }
        })
    }

    fn state(&self, out: &mut StateSink) {
        let Some(f) = &self.state else { return };
        if self.failure.failed() {
            return;
        }
        Python::attach(|py| {
            let r = (|| -> PyResult<()> {
                let v = f.call0(py)?;
                let d = v
                    .bind(py)
                    .cast::<PyDict>()
                    .map_err(|_| PyTypeError::new_err("state() must return a dict[str, float]"))?;
                for (k, v) in d.iter() {
                    let k: String = k.extract()?;
                    let v: f64 = v.extract()?;
                    out(&k, v);
                }
                Ok(())
            })();
            if let Err(e) = r {
                self.fail(py, "state", e);
            }
        })
    }
}

/// Builds the Python AQM classes given to `run` by name.
struct PyAqmFactory {
    classes: Vec<(String, Py<PyAny>)>,
    failure: Arc<Failure>,
}

fn describe(py: Python<'_>, e: &PyErr) -> String {
    let ty = e
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "Exception".into());
    format!("{ty}: {}", e.value(py))
}

impl PyAqmFactory {
    fn build_py(
        &self,
        py: Python<'_>,
        name: &str,
        cls: &Py<PyAny>,
        params: &AqmParams,
    ) -> Result<Box<dyn Aqm>, CoreScenarioError> {
        let err = |msg: String| CoreScenarioError::new(params.path.clone(), msg);
        let kwargs = json_to_py(py, &params.values)
            .and_then(|v| v.cast_into::<PyDict>().map_err(PyErr::from))
            .map_err(|e| err(format!("parameters of '{name}': {}", describe(py, &e))))?;
        let obj = cls.bind(py).call((), Some(&kwargs)).map_err(|e| {
            err(format!(
                "building Python AQM '{name}' failed: {}",
                describe(py, &e)
            ))
        })?;
        let rng = Py::new(
            py,
            PyRng {
                inner: RngStream::new(0, StreamKind::Queue, 0),
            },
        )
        .map_err(|e| err(describe(py, &e)))?;
        obj.setattr("rng", rng.clone_ref(py)).map_err(|e| {
            err(format!(
                "Python AQM '{name}': cannot set attribute `rng`: {}",
                describe(py, &e)
            ))
        })?;
        let method = |m: &str| -> Option<Py<PyAny>> {
            obj.getattr(m)
                .ok()
                .filter(|f| f.is_callable())
                .map(|f| f.unbind())
        };
        let on_arrival = method("on_arrival").ok_or_else(|| {
            err(format!(
                "Python AQM '{name}' has no method on_arrival(view, packet)"
            ))
        })?;
        let timer_interval = match obj.getattr("timer_interval") {
            Ok(v) if !v.is_none() => {
                let secs: f64 = v.extract().map_err(|_| {
                    err(format!(
                        "Python AQM '{name}': timer_interval must be a number of seconds"
                    ))
                })?;
                if !(secs.is_finite() && secs > 0.0) {
                    return Err(err(format!(
                        "Python AQM '{name}': timer_interval must be > 0 seconds, got {secs}"
                    )));
                }
                Some(from_secs_f64(secs).max(1))
            }
            _ => None,
        };
        let on_timer = method("on_timer");
        if timer_interval.is_some() && on_timer.is_none() {
            return Err(err(format!(
                "Python AQM '{name}' sets timer_interval but has no on_timer(view)"
            )));
        }
        Ok(Box::new(PyAqm {
            name: name.to_string(),
            rng,
            on_arrival,
            on_departure: method("on_departure"),
            on_link_idle: method("on_link_idle"),
            on_timer: if timer_interval.is_some() {
                on_timer
            } else {
                None
            },
            state: method("state"),
            timer_interval,
            failure: self.failure.clone(),
            _obj: obj.unbind(),
        }))
    }
}

impl CustomAqmFactory for PyAqmFactory {
    fn build(
        &self,
        name: &str,
        params: &AqmParams,
        _env: &QueueEnv,
    ) -> Option<Result<Box<dyn Aqm>, CoreScenarioError>> {
        let (_, cls) = self.classes.iter().find(|(n, _)| n == name)?;
        Some(Python::attach(|py| self.build_py(py, name, cls, params)))
    }
}

// ---------------------------------------------------------------------------------------------
// Module functions

/// Runs `f` with the GIL released, turning a Rust panic into SimulationError.
fn guarded<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.detach(|| catch_unwind(AssertUnwindSafe(f)))
        .map_err(|payload| {
            SimulationError::new_err(format!(
                "internal error (please report): the engine panicked: {}",
                panic_message(payload.as_ref())
            ))
        })
}

/// Bumped by `interrupt_runs`: a run that sees it differ from its value at the run's start
/// stops. Python runs signal handlers on the main thread only, so a run on another thread
/// cannot see Ctrl-C through `check_signals`; aqmlab's SIGINT handler bumps this instead.
static CANCEL_EPOCH: AtomicU64 = AtomicU64::new(0);

/// Stops every run in progress in this process, on any thread (each raises KeyboardInterrupt
/// within about a millisecond of simulated work). Runs started afterwards are unaffected.
#[pyfunction]
fn interrupt_runs() {
    CANCEL_EPOCH.fetch_add(1, Ordering::SeqCst);
}

/// Runs a scenario given as JSON text with master seed `seed`; returns the result as a dict.
/// With `max_memory` (bytes), a scenario whose memory estimate exceeds it is refused with a
/// ScenarioError before anything is built.
#[pyfunction]
#[pyo3(signature = (scenario_json, seed, progress=None, custom_aqms=None, max_memory=None))]
fn run(
    py: Python<'_>,
    scenario_json: &str,
    seed: u64,
    progress: Option<Py<PyAny>>,
    custom_aqms: Option<Bound<'_, PyDict>>,
    max_memory: Option<u64>,
) -> PyResult<Py<PyAny>> {
    let scenario = Scenario::from_json(scenario_json).map_err(|e| scenario_error(py, &e))?;
    if let Some(limit) = max_memory {
        memory::estimate(&scenario)
            .check(limit)
            .map_err(|e| scenario_error(py, &e))?;
    }
    let failure = Arc::new(Failure::default());
    let factory = match custom_aqms {
        Some(d) if !d.is_empty() => {
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
            Some(PyAqmFactory {
                classes,
                failure: failure.clone(),
            })
        }
        _ => None,
    };
    let progress = progress.filter(|p| !p.is_none(py));
    let epoch = CANCEL_EPOCH.load(Ordering::SeqCst);
    let outcome = guarded(py, || {
        let mut cb = |frac: f64| -> bool {
            if failure.failed() || CANCEL_EPOCH.load(Ordering::SeqCst) != epoch {
                return false;
            }
            Python::attach(|py| {
                if let Err(e) = py.check_signals() {
                    failure.record(e);
                    return false;
                }
                if let Some(p) = &progress {
                    match p.call1(py, (frac,)) {
                        // Returning False (not None) asks to stop.
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
        };
        aqmlab_core::run_with(
            &scenario,
            seed,
            factory.as_ref().map(|f| f as &dyn CustomAqmFactory),
            &mut cb,
        )
    });
    if let Some(e) = failure.take() {
        return Err(e);
    }
    match outcome? {
        Ok(r) => result_to_py(py, r),
        Err(Error::Scenario(e)) => Err(scenario_error(py, &e)),
        Err(Error::Run(RunError::Interrupted)) => {
            Err(PyKeyboardInterrupt::new_err("run interrupted"))
        }
        Err(e @ Error::Run(_)) => Err(SimulationError::new_err(e.to_string())),
    }
}

/// Parses and validates a scenario (JSON text) without running it; raises ScenarioError.
/// AQM names and parameters are checked when the run builds the queues.
#[pyfunction]
fn validate(py: Python<'_>, scenario_json: &str) -> PyResult<()> {
    Scenario::from_json(scenario_json)
        .map(|_| ())
        .map_err(|e| scenario_error(py, &e))
}

/// The memory a scenario (JSON text) would need: `{"total": bytes, "parts": [{"what", "field",
/// "bytes"}]}` (see `aqmlab_core::scenario::memory`).
#[pyfunction]
fn estimate_memory(py: Python<'_>, scenario_json: &str) -> PyResult<Py<PyAny>> {
    let scenario = Scenario::from_json(scenario_json).map_err(|e| scenario_error(py, &e))?;
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
fn load_toml(py: Python<'_>, text: &str) -> PyResult<Py<PyAny>> {
    let value =
        aqmlab_core::scenario::toml_text::parse_toml(text).map_err(|e| scenario_error(py, &e))?;
    Ok(json_to_py(py, &value)?.unbind())
}

/// The registry of built-in AQMs: name, title, source, ecn, kind, params, implemented.
#[pyfunction]
fn aqms(py: Python<'_>) -> PyResult<Py<PyList>> {
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
            params.append(pd)?;
        }
        d.set_item("params", params)?;
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

/// The engine's version.
#[pyfunction]
fn version() -> &'static str {
    aqmlab_core::VERSION
}

/// Test hook: panics inside the same guard as `run`; must raise SimulationError.
#[pyfunction]
fn _panic_for_test(py: Python<'_>, message: String) -> PyResult<()> {
    guarded(py, move || -> () { panic!("{message}") })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add_class::<PyQueueView>()?;
    m.add_class::<PyPacket>()?;
    m.add_class::<PyRng>()?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(interrupt_runs, m)?)?;
    m.add_function(wrap_pyfunction!(estimate_memory, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(load_toml, m)?)?;
    m.add_function(wrap_pyfunction!(aqms, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    m.add("__version__", aqmlab_core::VERSION)?;
    Ok(())
}
