"""Per-point statistics over replications, and table export.

The tidy table has one row per (point, metric)::

    <axis columns...> | metric | mean | std | n | ci95_low | ci95_high | ci95_half_width

Axis columns are named by their dotted scenario path.  ``std`` is the sample
standard deviation (ddof=1) and the confidence interval is Student's t:
``mean +/- t.ppf(0.975, n-1) * std / sqrt(n)``.  With n=1 the std and the
interval are NaN (one replication says nothing about spread); with n=0 (the
metric is missing or non-numeric in every run of the point) the mean is NaN
too.  A tidy table is what pandas/polars/DuckDB group and plot most easily;
:func:`to_wide` gives one row per point instead.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from ..tidy_table import STAT_COLUMNS
from .run_schema import RESERVED_COLUMNS


def t_quantile(confidence: float, dof: int) -> float:
    """Two-sided Student-t critical value (e.g. 4.303 for 95% and 2 dof)."""
    from scipy.stats import t  # deferred: scipy is slow to import and only needed here

    return float(t.ppf(0.5 + confidence / 2.0, dof))


def summarize(values: Sequence[float] | np.ndarray, confidence: float = 0.95) -> dict[str, float | int]:
    """Mean, sample std, n and t confidence interval of finite values.

    The values are sorted before they are reduced: floating-point sums depend on the order of
    their terms, and runs arrive in the order they finish, so without this the last bits of a
    table depended on the backend and the number of workers (issue 11, item 12)."""
    arr = np.asarray(values, dtype=float)
    arr = np.sort(arr[np.isfinite(arr)])
    n = int(arr.size)
    mean = float(arr.mean()) if n else math.nan
    std = float(arr.std(ddof=1)) if n > 1 else math.nan
    half = t_quantile(confidence, n - 1) * std / math.sqrt(n) if n > 1 else math.nan
    return {
        "mean": mean,
        "std": std,
        "n": n,
        "ci95_low": mean - half,
        "ci95_high": mean + half,
        "ci95_half_width": half,
    }


def axis_series(values: Sequence[Any], name: str | None = None) -> pd.Series:
    """A column of axis values with one consistent type, so Parquet can store it.

    Booleans, integers, floats and strings keep their type (nullable where a
    point does not set the axis); anything else (tables, lists, or a mix of
    types) becomes canonical JSON text.
    """
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return pd.Series(values, dtype="boolean", name=name)
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pd.Series(values, dtype="Int64", name=name)
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return pd.Series([math.nan if v is None else float(v) for v in values], dtype="float64", name=name)
    if present and all(isinstance(v, str) for v in present):
        return pd.Series(values, dtype="string", name=name)
    return pd.Series(
        [None if v is None else json.dumps(v, sort_keys=True, separators=(",", ":")) for v in values],
        dtype="string",
        name=name,
    )


def _numeric_metric_columns(df: pd.DataFrame, exclude: set[str]) -> list[str]:
    cols = []
    for c in df.columns:
        if c in exclude:
            continue
        s = df[c]
        if pd.api.types.is_bool_dtype(s) or pd.api.types.is_numeric_dtype(s):
            cols.append(c)
    return cols


def aggregate_runs(
    runs: pd.DataFrame,
    axes: Sequence[str],
    metrics: Sequence[str] | None = None,
    *,
    point_order: Sequence[str] | None = None,
    confidence: float = 0.95,
    point_column: str = "point",
) -> pd.DataFrame:
    """Tidy statistics per point and metric from raw successful runs.

    ``runs`` needs a ``point`` column with each run's axis values as JSON
    (as stored by :class:`~aqmlab.sweep.store.ResultStore`) and one column
    per metric.  ``metrics=None`` aggregates every numeric non-metadata
    column; a requested metric that is absent yields NaN with n=0 rather than
    an error, so one engine build lacking a metric does not sink the table.
    ``point_order`` (canonical point JSON strings) fixes the row order;
    points not listed follow in sorted order.
    """

    axes = list(axes)
    clash = {"metric", *STAT_COLUMNS}
    out_axes = [f"axis:{a}" if a in clash else a for a in axes]
    columns = [*out_axes, "metric", *STAT_COLUMNS]
    if metrics is None:
        metrics = _numeric_metric_columns(runs, set(RESERVED_COLUMNS))
    metrics = list(metrics)
    if runs.empty or point_column not in runs.columns:
        return _typed_empty(out_axes)

    # keyed by the point column's canonical JSON strings
    groups = {cast(str, k): g for k, g in runs.groupby(point_column, sort=False)}
    order = [p for p in (point_order or []) if p in groups]
    order += sorted(k for k in groups if k not in set(order))

    rows: list[dict[str, Any]] = []
    axis_values: dict[str, list[Any]] = {a: [] for a in axes}
    for pkey in order:
        g = groups[pkey]
        point = json.loads(pkey)
        for m in metrics:
            vals = _as_float(g[m]) if m in g.columns else np.array([], dtype=float)
            rows.append({"metric": m, **summarize(vals, confidence)})
            for a in axes:
                axis_values[a].append(point.get(a))
    table = pd.DataFrame(rows, columns=["metric", *STAT_COLUMNS])
    if table.empty:
        return _typed_empty(out_axes)
    table["metric"] = table["metric"].astype("string")
    table["n"] = table["n"].astype("int64")
    for a, name in zip(axes, out_axes, strict=True):
        table[name] = axis_series(axis_values[a])
    return table[columns].reset_index(drop=True)


def _as_float(series: pd.Series) -> np.ndarray:
    """Numeric view of a metric column; non-numeric entries become NaN."""
    if pd.api.types.is_bool_dtype(series):
        series = series.astype("Int64")
    numeric = pd.to_numeric(series, errors="coerce")
    return numeric.to_numpy(dtype=float, na_value=np.nan)


def _typed_empty(axes: Sequence[str]) -> pd.DataFrame:
    data: dict[str, pd.Series] = {a: pd.Series([], dtype="string") for a in axes}
    data["metric"] = pd.Series([], dtype="string")
    for s in STAT_COLUMNS:
        data[s] = pd.Series([], dtype="int64" if s == "n" else "float64")
    return pd.DataFrame(data)


def _row_key(row: Sequence[Any]) -> str:
    return json.dumps(
        [None if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else v for v in row], default=str
    )


def to_wide(tidy: pd.DataFrame, axes: Sequence[str]) -> pd.DataFrame:
    """One row per point, columns ``<metric>:<stat>`` (e.g. ``jain_index:mean``)."""
    axes = [a for a in axes if a in tidy.columns]
    if tidy.empty:
        return tidy[axes].copy()
    key = "__point__"
    t = tidy.copy()
    # Group by a JSON rendering of the axis values so NA/dict values group reliably.
    t[key] = [_row_key(row) for row in t[axes].itertuples(index=False)] if axes else ""
    pieces = []
    points = t.drop_duplicates(key)[[key, *axes]].reset_index(drop=True)
    for m in dict.fromkeys(t["metric"]):
        sub = t[t["metric"] == m][[key, *STAT_COLUMNS]].rename(columns={s: f"{m}:{s}" for s in STAT_COLUMNS})
        pieces.append(sub.set_index(key))
    wide = points.set_index(key).join(pieces, how="left") if pieces else points.set_index(key)
    return wide.reset_index(drop=True)


def export_target(path: str | Path, format: str | None = None) -> tuple[Path, str]:  # noqa: A002
    """The file :func:`export_table` writes for ``path`` and ``format`` and its format
    (``"parquet"`` or ``"csv"``), known before anything is read; ValueError for another
    format. A path without a recognised suffix gets the format's."""
    path = Path(path)
    fmt = (format or path.suffix.lstrip(".") or "parquet").lower()
    if fmt in ("pq",):
        fmt = "parquet"
    if fmt not in ("parquet", "csv"):
        raise ValueError(f"unknown export format {fmt!r} (use 'parquet' or 'csv')")
    if path.suffix.lower() not in (".parquet", ".pq", ".csv"):
        path = path.with_name(path.name + "." + fmt)
    return path, fmt


def export_table(table: pd.DataFrame, path: str | Path, format: str | None = None) -> Path:  # noqa: A002
    """Write ``table`` as Parquet or CSV, inferring the format from the suffix.

    A path without a recognised suffix gets ``.parquet``.
    """
    path, fmt = export_target(path, format)
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "parquet":
        table.to_parquet(path, index=False)
    else:
        table.to_csv(path, index=False)
    return path
