//! A table's columns as Python lists, read from any Arrow record batch (the engine's own, or
//! a pyarrow one) through the Arrow C data interface. A run's summary needs a few values of
//! the queue and flow tables; reading them here spares `aqmlab run` importing pyarrow and
//! numpy (about 0.2 s of a 0.5 s process, issue 24 item 12). The values are those pyarrow's
//! `to_pydict` gives: ints, floats, str, bool, None for a null.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::Array;
use arrow_schema::DataType;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3_arrow::PyRecordBatch;

/// Column name -> the column's values as a list, in the batch's column order.
#[pyfunction]
pub(crate) fn table_columns(py: Python<'_>, batch: PyRecordBatch) -> PyResult<Py<PyDict>> {
    let batch = batch.as_ref();
    let out = PyDict::new(py);
    for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
        let values = column_values(py, field.name(), column.as_ref())?;
        out.set_item(field.name(), values)?;
    }
    Ok(out.unbind())
}

fn column_values<'py>(py: Python<'py>, name: &str, a: &dyn Array) -> PyResult<Bound<'py, PyList>> {
    macro_rules! values {
        ($iter:expr) => {
            PyList::new(py, $iter.collect::<Vec<_>>())
        };
    }
    match a.data_type() {
        DataType::Int8 => values!(a.as_primitive::<Int8Type>().iter()),
        DataType::Int16 => values!(a.as_primitive::<Int16Type>().iter()),
        DataType::Int32 => values!(a.as_primitive::<Int32Type>().iter()),
        DataType::Int64 => values!(a.as_primitive::<Int64Type>().iter()),
        DataType::UInt8 => values!(a.as_primitive::<UInt8Type>().iter()),
        DataType::UInt16 => values!(a.as_primitive::<UInt16Type>().iter()),
        DataType::UInt32 => values!(a.as_primitive::<UInt32Type>().iter()),
        DataType::UInt64 => values!(a.as_primitive::<UInt64Type>().iter()),
        DataType::Float32 => values!(a.as_primitive::<Float32Type>().iter()),
        DataType::Float64 => values!(a.as_primitive::<Float64Type>().iter()),
        DataType::Boolean => values!(a.as_boolean().iter()),
        DataType::Utf8 => values!(a.as_string::<i32>().iter()),
        DataType::LargeUtf8 => values!(a.as_string::<i64>().iter()),
        other => Err(PyTypeError::new_err(format!(
            "column {name:?}: type {other} is not read without pyarrow (use Result.to_arrow)"
        ))),
    }
}
