//! The time series' variable names, units and meanings (aqmlab_core::aqm::state_docs) for
//! Python: the docs page is rendered from them, and the plots read units from them.

use aqmlab_core::aqm::state_docs::{self, StateDoc};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// `docs` as a list of {name, unit, meaning} dicts.
pub(crate) fn state_list<'py>(py: Python<'py>, docs: &[StateDoc]) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for d in docs {
        let e = PyDict::new(py);
        e.set_item("name", d.name)?;
        e.set_item("unit", d.unit)?;
        e.set_item("meaning", d.meaning)?;
        out.append(e)?;
    }
    Ok(out)
}

/// The series every run records whatever its AQMs: "queue" (each monitored queue), "flows"
/// (all flows together), "flow" (each flow with `sample_flows`), "tcp" (each TCP sender with
/// `sample_flows`, besides "flow").
#[pyfunction]
pub(crate) fn series_docs(py: Python<'_>) -> PyResult<Py<PyDict>> {
    let out = PyDict::new(py);
    out.set_item("queue", state_list(py, state_docs::QUEUE)?)?;
    out.set_item("flows", state_list(py, state_docs::FLOWS)?)?;
    out.set_item("flow", state_list(py, state_docs::FLOW)?)?;
    out.set_item("tcp", state_list(py, state_docs::TCP)?)?;
    Ok(out.unbind())
}
