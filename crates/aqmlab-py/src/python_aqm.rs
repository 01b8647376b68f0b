//! AQMs written in Python: the views a Python AQM sees (queue, packet, random stream), the
//! adapter that drives it as a core [`Aqm`], and the factory the core builds them with.

use crate::conversion::json_to_py;
use crate::errors::Failure;
use aqmlab_core::aqm::params::AqmParams;
use aqmlab_core::aqm::params::QueueEnv;
use aqmlab_core::aqm::registry::CustomAqmFactory;
use aqmlab_core::aqm::{
    Aqm, ArrivalVerdict, DepartureVerdict, DropKind, QueueLimit, QueueView, StateSink,
};
use aqmlab_core::net::{Packet, PacketKind};
use aqmlab_core::sim::time::{from_secs_f64, to_secs_f64};
use aqmlab_core::sim::{RngStream, StreamKind, Time};
use aqmlab_core::ScenarioError as CoreScenarioError;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

/// The queue as a Python AQM sees it (valid at the moment of the call).
#[pyclass(frozen, module = "aqmlab._core", name = "QueueView")]
pub(crate) struct PyQueueView {
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
pub(crate) struct PyPacket {
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
pub(crate) struct PyRng {
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
    /// True with probability `p`, a number in [0, 1].
    fn bernoulli(&mut self, p: f64) -> PyResult<bool> {
        // The core's bernoulli reads p <= 0 as never and p >= 1 as always: a NaN or 5 from a
        // slip in the AQM's arithmetic would pass silently as "never" or "always" (issue 24).
        if !(0.0..=1.0).contains(&p) {
            return Err(PyValueError::new_err(format!(
                "rng.bernoulli(p): p must be a probability in [0, 1], got {p}"
            )));
        }
        Ok(self.inner.bernoulli(p))
    }
    /// Exponential with the given mean, a finite number > 0.
    fn exponential(&mut self, mean: f64) -> PyResult<f64> {
        // A negative mean gives negative "durations", NaN or infinity poisons every sum that
        // uses it, and 0 is no distribution (issue 24).
        if !(mean.is_finite() && mean > 0.0) {
            return Err(PyValueError::new_err(format!(
                "rng.exponential(mean): mean must be a finite number > 0, got {mean}"
            )));
        }
        Ok(self.inner.exponential(mean))
    }
}

/// Bounds of a Python AQM's `timer_interval`, seconds. Below 1 us a run spends its time in
/// Python calls and barely advances: each tick is one call, about 0.6 us of wall time (a 1 us
/// timer ran 0.5 simulated seconds in 0.31 s), so a 1 us interval already costs about 0.6 s
/// of wall time per simulated second, and the 1e-12 of issue 24 (silently rounded up to the
/// engine's 1 ns) a thousand times that: 10 minutes per simulated second. The fastest periodic
/// update among the built-in AQMs, PI's 170 Hz (5.9 ms), is far above the bound. Above 1e9 s
/// (the longest duration a scenario may have, `units/mod.rs`) the timer could never fire,
/// and an AQM whose timer silently never runs is a mistake to name, not a run to return.
pub(crate) const MIN_TIMER_INTERVAL_S: f64 = 1e-6;
pub(crate) const MAX_TIMER_INTERVAL_S: f64 = 1e9;

/// `timer_interval` in engine time, or why it is refused.
pub(crate) fn timer_interval_of(secs: f64) -> Result<Time, String> {
    if !(secs.is_finite() && (MIN_TIMER_INTERVAL_S..=MAX_TIMER_INTERVAL_S).contains(&secs)) {
        return Err(format!(
            "timer_interval must be between {MIN_TIMER_INTERVAL_S:e} and {MAX_TIMER_INTERVAL_S:e} seconds, got {secs}"
        ));
    }
    Ok(from_secs_f64(secs))
}

pub(crate) struct PyAqm {
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

pub(crate) fn arrival_verdict(s: &str, pkt: &Packet) -> PyResult<ArrivalVerdict> {
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

pub(crate) fn departure_verdict(s: &str) -> PyResult<DepartureVerdict> {
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
pub(crate) fn fallback(q: &QueueView, pkt: &Packet) -> ArrivalVerdict {
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
pub(crate) struct PyAqmFactory {
    pub(crate) classes: Vec<(String, Py<PyAny>)>,
    pub(crate) failure: Arc<Failure>,
}

pub(crate) fn describe(py: Python<'_>, e: &PyErr) -> String {
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
                Some(
                    timer_interval_of(secs)
                        .map_err(|why| err(format!("Python AQM '{name}': {why}")))?,
                )
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
