//! The packet trace (`aqmlab_core::metrics::packet_trace`) as an Arrow record batch: one row per
//! queue event; link, event, reason and packet kind as dictionary columns over their names.

use crate::arrow_tables::{arrow_error, dictionary};
use aqmlab_core::metrics::packet_trace::{DROP_REASONS, PACKET_KINDS, TRACE_EVENTS};
use aqmlab_core::result::TraceTable;
use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch};
use arrow_schema::{Field, Schema};
use pyo3::PyResult;
use std::sync::Arc;

fn names(n: &[&str]) -> Vec<String> {
    n.iter().map(|s| s.to_string()).collect()
}

fn codes(v: Vec<u8>) -> Vec<u32> {
    v.into_iter().map(u32::from).collect()
}

fn int64<T: Into<i64>>(v: Vec<T>) -> ArrayRef {
    Arc::new(Int64Array::from_iter_values(v.into_iter().map(Into::into)))
}

/// Columns: time_s, link, event, reason ("" unless a drop), flow (the flows table's id), kind,
/// seq (packets; an ACK's cumulative ACK), size_bytes, queue_packets, queue_bytes.
pub fn trace_batch(t: TraceTable) -> PyResult<RecordBatch> {
    let r = t.rows;
    let columns: Vec<(&str, ArrayRef)> = vec![
        (
            "time_s",
            Arc::new(Float64Array::from_iter_values(
                r.time.iter().map(|&ns| ns as f64 / 1e9),
            )),
        ),
        ("link", dictionary(r.link, t.link_names)?),
        ("event", dictionary(codes(r.event), names(&TRACE_EVENTS))?),
        ("reason", dictionary(codes(r.reason), names(&DROP_REASONS))?),
        ("flow", int64(r.flow)),
        ("kind", dictionary(codes(r.kind), names(&PACKET_KINDS))?),
        ("seq", int64(r.seq)),
        ("size_bytes", int64(r.size)),
        ("queue_packets", int64(r.queue_packets)),
        (
            "queue_bytes",
            Arc::new(Int64Array::from_iter_values(
                r.queue_bytes.into_iter().map(|b| b as i64),
            )),
        ),
    ];
    let schema = Schema::new(
        columns
            .iter()
            .map(|(n, a)| Field::new(*n, a.data_type().clone(), false))
            .collect::<Vec<_>>(),
    );
    let arrays = columns.into_iter().map(|(_, a)| a).collect();
    RecordBatch::try_new(Arc::new(schema), arrays).map_err(arrow_error)
}
