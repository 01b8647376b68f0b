//! Errors across the boundary: the two Python exceptions, a core ScenarioError as one of
//! them (with `path` and `message`), a panic's message, and the first Python error raised
//! inside a run (kept to re-raise when the run returns).

use aqmlab_core::ScenarioError as CoreScenarioError;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

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

pub(crate) fn scenario_error(py: Python<'_>, e: &CoreScenarioError) -> PyErr {
    let text = e.to_string();
    let make = || -> PyResult<PyErr> {
        let value = py.get_type::<ScenarioError>().call1((text.clone(),))?;
        value.setattr("path", e.path.as_str())?;
        value.setattr("message", e.message.as_str())?;
        Ok(PyErr::from_value(value))
    };
    make().unwrap_or_else(|err| err)
}

pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
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
pub(crate) struct Failure {
    failed: AtomicBool,
    error: Mutex<Option<PyErr>>,
}

impl Failure {
    pub(crate) fn record(&self, e: PyErr) {
        let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
        self.failed.store(true, Ordering::Relaxed);
    }
    #[inline]
    pub(crate) fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }
    pub(crate) fn take(&self) -> Option<PyErr> {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}
