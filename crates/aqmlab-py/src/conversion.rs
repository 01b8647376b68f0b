//! Values into Python: JSON-shaped data (scenario tables, the AQM registry, a result's
//! scalars) through the `json` module, a run's tables as Arrow (`arrow_tables.rs`).

use crate::arrow_tables;
use crate::errors::SimulationError;
use aqmlab_core::RunResult;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3_arrow::PyRecordBatch;
use std::time::Instant;

/// Converts JSON text to Python objects with the standard `json` module (keeps key order).
pub(crate) fn json_text_to_py<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

pub(crate) fn json_to_py<'py>(
    py: Python<'py>,
    v: &serde_json::Value,
) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(v).map_err(|e| PyValueError::new_err(e.to_string()))?;
    json_text_to_py(py, &text)
}

/// A run's result as Python objects: a dict of the `RunResult` fields, in order, the scalars
/// as Python values (non-finite floats become None) and the tables (`queues`, `flows`,
/// `groups`, `timeseries`, `queue_delays`) as Arrow record batches, handed over through the Arrow C data interface
/// without a copy of the series. `timings.collect_s` grows by this conversion's own time.
pub(crate) fn result_to_py(py: Python<'_>, mut r: RunResult) -> PyResult<Py<PyAny>> {
    let converting = Instant::now();
    let queues = arrow_tables::queues_batch(&std::mem::take(&mut r.queues))?;
    let flows = arrow_tables::rows_batch(&std::mem::take(&mut r.flows))?;
    let groups = arrow_tables::rows_batch(&std::mem::take(&mut r.groups))?;
    let series = arrow_tables::series_batch(std::mem::take(&mut r.timeseries))?;
    let fct = arrow_tables::rows_batch(&std::mem::take(&mut r.fct))?;
    let fct_summary = arrow_tables::rows_batch(&std::mem::take(&mut r.fct_summary))?;
    let latency = arrow_tables::rows_batch(&std::mem::take(&mut r.latency))?;
    let latency_summary = arrow_tables::rows_batch(&std::mem::take(&mut r.latency_summary))?;
    let queue_delays = arrow_tables::rows_batch(&std::mem::take(&mut r.queue_delays))?;
    let trace = r
        .trace
        .take()
        .map(crate::trace_table::trace_batch)
        .transpose()?;
    let text = serde_json::to_string(&r).map_err(|e| SimulationError::new_err(e.to_string()))?;
    let out = json_text_to_py(py, &text)?;
    out.set_item("queues", PyRecordBatch::new(queues).into_pyobject(py)?)?;
    out.set_item("flows", PyRecordBatch::new(flows).into_pyobject(py)?)?;
    out.set_item("groups", PyRecordBatch::new(groups).into_pyobject(py)?)?;
    out.set_item("timeseries", PyRecordBatch::new(series).into_pyobject(py)?)?;
    for (name, batch) in [
        ("fct", fct),
        ("fct_summary", fct_summary),
        ("latency", latency),
        ("latency_summary", latency_summary),
        ("queue_delays", queue_delays),
    ] {
        out.set_item(name, PyRecordBatch::new(batch).into_pyobject(py)?)?;
    }
    if let Some(trace) = trace {
        out.set_item("trace", PyRecordBatch::new(trace).into_pyobject(py)?)?;
    }
    let timings = out.get_item("timings")?;
    let collect_s: f64 = timings.get_item("collect_s")?.extract()?;
    timings.set_item("collect_s", collect_s + converting.elapsed().as_secs_f64())?;
    // Read again: the conversion itself may have raised the peak the engine recorded.
    out.set_item("peak_rss_bytes", aqmlab_core::result::peak_rss_bytes())?;
    Ok(out.unbind())
}
