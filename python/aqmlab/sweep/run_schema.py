"""The columns of a stored run: its metadata (with their Arrow types) and how a summary key
becomes a column. Shared by the store, which writes runs, and the aggregation, which must
tell metrics from metadata."""

from __future__ import annotations

import pyarrow as pa

#: Per-run metadata columns, in display order, with their Arrow types.
_META_COLUMNS: list[tuple[str, pa.DataType]] = [
    ("key", pa.string()),
    ("point_id", pa.string()),
    ("replication", pa.int64()),
    ("seed", pa.int64()),
    ("status", pa.string()),
    ("error", pa.string()),
    ("run_time_s", pa.float64()),
    ("engine_version", pa.string()),
    ("fingerprint", pa.string()),
    ("host", pa.string()),
    ("pid", pa.int64()),
    ("finished_at", pa.string()),
    ("scenario_id", pa.string()),
    ("point", pa.string()),
    ("traceback", pa.string()),
    ("scenario", pa.string()),
]
META_SCHEMA = pa.schema(_META_COLUMNS)
RESERVED_COLUMNS = frozenset(META_SCHEMA.names)
#: Summary keys that clash with a metadata column are stored with this prefix.
CLASH_PREFIX = "metric."


def metric_column(name: str) -> str:
    """Column name under which a summary key is stored."""
    return CLASH_PREFIX + name if name in RESERVED_COLUMNS else name
