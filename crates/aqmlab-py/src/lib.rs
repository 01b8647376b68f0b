//! `aqmlab._core`: the thin PyO3 layer over aqmlab-core.
//!
//! Nothing here simulates or computes: it converts scenarios in, results out, errors across,
//! and adapts AQMs written in Python to the core's `Aqm` trait. Runs release the GIL; the
//! progress callback re-acquires it briefly to call Python and to check for Ctrl-C. One module
//! per job: `errors`, `conversion` (and `arrow_tables`), `python_aqm`, `run`, `table_values`
//! (a table's values for Python without pyarrow).

mod arrow_tables;
mod conversion;
#[cfg(target_os = "linux")]
mod emulation;
mod errors;
mod python_aqm;
mod run;
mod series_docs;
mod table_values;
mod trace_table;

use errors::{ScenarioError, SimulationError};
use pyo3::prelude::*;
use python_aqm::{PyPacket, PyQueueView, PyRng};

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add_class::<PyQueueView>()?;
    m.add_class::<PyPacket>()?;
    m.add_class::<PyRng>()?;
    #[cfg(target_os = "linux")]
    m.add_class::<emulation::EmulationRouter>()?;
    m.add_function(wrap_pyfunction!(run::run, m)?)?;
    m.add_function(wrap_pyfunction!(run::check, m)?)?;
    m.add_function(wrap_pyfunction!(run::interrupt_runs, m)?)?;
    m.add_function(wrap_pyfunction!(run::estimate_memory, m)?)?;
    m.add_function(wrap_pyfunction!(run::resolved_tcp, m)?)?;
    m.add_function(wrap_pyfunction!(run::resolve_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(run::validate, m)?)?;
    m.add_function(wrap_pyfunction!(run::load_toml, m)?)?;
    m.add_function(wrap_pyfunction!(run::aqms, m)?)?;
    m.add_function(wrap_pyfunction!(series_docs::series_docs, m)?)?;
    m.add_function(wrap_pyfunction!(run::tcp_profiles, m)?)?;
    m.add_function(wrap_pyfunction!(run::version, m)?)?;
    m.add_function(wrap_pyfunction!(run::_panic_for_test, m)?)?;
    m.add_function(wrap_pyfunction!(table_values::table_columns, m)?)?;
    m.add("__version__", aqmlab_core::VERSION)?;
    Ok(())
}
