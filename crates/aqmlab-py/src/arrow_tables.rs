//! A run's tables as Arrow record batches: the queue, flow and group tables from their row structs
//! (serde_arrow, columns typed from the struct), the time series from its columns as they are
//! (the value and time vectors become Arrow buffers without a copy; the names a dictionary).

use aqmlab_core::metrics::column_units;
use aqmlab_core::result::SeriesColumns;
use arrow_array::types::{Int16Type, Int32Type, Int8Type};
use arrow_array::{
    Array, ArrayRef, DictionaryArray, Float64Array, Int16Array, Int32Array, Int8Array, RecordBatch,
    StringArray,
};
use arrow_schema::{DataType, Field, FieldRef, Schema};
use pyo3::exceptions::PyRuntimeError;
use pyo3::PyResult;
use serde::{Deserialize, Serialize};
use serde_arrow::schema::{SchemaLike, TracingOptions};
use std::collections::HashMap;
use std::sync::Arc;

pub(crate) fn arrow_error(e: impl std::fmt::Display) -> pyo3::PyErr {
    PyRuntimeError::new_err(format!("building a result table: {e}"))
}

/// Rows of `T` as a record batch, one column per field. Unsigned integers become Int64, the
/// type pandas gave them when results crossed as JSON, so frames keep their dtypes.
pub fn rows_batch<T: Serialize + for<'de> Deserialize<'de>>(rows: &[T]) -> PyResult<RecordBatch> {
    let traced = Vec::<FieldRef>::from_type::<T>(TracingOptions::default()).map_err(arrow_error)?;
    let fields: Vec<FieldRef> = traced
        .into_iter()
        .map(|f| match f.data_type() {
            DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => {
                Arc::new(Field::new(f.name(), DataType::Int64, f.is_nullable()))
            }
            _ => f,
        })
        .collect();
    let batch = serde_arrow::to_record_batch(&fields, &rows).map_err(arrow_error)?;
    with_units(batch)
}

/// The queue table: the rows' columns after a first column `queue`, the queue's name, as the
/// other tables name a queue (issue 35). `name`, the same text, stays for one release
/// (deprecated, docs/metrics.md): scripts and saved results read it. Here and not in
/// `QueueSummary`, whose JSON the ns-2 fingerprints hash.
pub fn queues_batch<T: Serialize + for<'de> Deserialize<'de>>(rows: &[T]) -> PyResult<RecordBatch> {
    let batch = rows_batch(rows)?;
    let schema = batch.schema();
    let (index, field) = schema
        .column_with_name("name")
        .ok_or_else(|| arrow_error("the queue table has no name column"))?;
    let mut fields: Vec<FieldRef> = vec![Arc::new(field.as_ref().clone().with_name("queue"))];
    fields.extend(schema.fields().iter().cloned());
    let mut columns: Vec<ArrayRef> = vec![batch.column(index).clone()];
    columns.extend(batch.columns().iter().cloned());
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).map_err(arrow_error)
}

/// `batch` with each column's unit in its field's metadata, `{"unit": ...}`
/// (aqmlab_core::metrics::column_units; text columns have none).
fn with_units(batch: RecordBatch) -> PyResult<RecordBatch> {
    let fields: Vec<FieldRef> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| match column_units::unit(f.name()) {
            Some(u) => Arc::new(
                f.as_ref()
                    .clone()
                    .with_metadata(HashMap::from([("unit".to_string(), u.to_string())])),
            ),
            None => f.clone(),
        })
        .collect();
    batch
        .with_schema(Arc::new(Schema::new(fields)))
        .map_err(arrow_error)
}

/// The series in long form: time_s, source, variable, value; source and variable are
/// dictionary columns over the run's names, with the narrowest signed keys that hold them
/// (what pandas takes as Categorical codes).
pub fn series_batch(s: SeriesColumns) -> PyResult<RecordBatch> {
    let source = dictionary(s.source, s.source_names)?;
    let variable = dictionary(s.variable, s.variable_names)?;
    let schema = Schema::new(vec![
        Field::new("time_s", DataType::Float64, false),
        Field::new("source", source.data_type().clone(), false),
        Field::new("variable", variable.data_type().clone(), false),
        Field::new("value", DataType::Float64, false),
    ]);
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Float64Array::from(s.time_s)),
        source,
        variable,
        Arc::new(Float64Array::from(s.value)),
    ];
    with_units(RecordBatch::try_new(Arc::new(schema), columns).map_err(arrow_error)?)
}

pub(crate) fn dictionary(codes: Vec<u32>, names: Vec<String>) -> PyResult<ArrayRef> {
    let values: ArrayRef = Arc::new(StringArray::from(names));
    let n = values.len();
    // Codes index `names`, so each is below n and fits the narrowest type that holds n - 1.
    let array: ArrayRef = if n <= i8::MAX as usize + 1 {
        let keys = Int8Array::from_iter_values(codes.into_iter().map(|c| c as i8));
        Arc::new(DictionaryArray::<Int8Type>::try_new(keys, values).map_err(arrow_error)?)
    } else if n <= i16::MAX as usize + 1 {
        let keys = Int16Array::from_iter_values(codes.into_iter().map(|c| c as i16));
        Arc::new(DictionaryArray::<Int16Type>::try_new(keys, values).map_err(arrow_error)?)
    } else {
        let keys = Int32Array::from_iter_values(codes.into_iter().map(|c| c as i32));
        Arc::new(DictionaryArray::<Int32Type>::try_new(keys, values).map_err(arrow_error)?)
    };
    Ok(array)
}
