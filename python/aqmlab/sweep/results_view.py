"""``aqmlab results`` for people (issue 27, item 7): the aggregate over replications as a table
that reads in an 80-column terminal. The tidy table (:mod:`.aggregate`) has a column per axis
named by its whole dotted path and a table-valued axis (an AQM) as canonical JSON text, so
every row read ``{"kind":…`` and wrapped over several lines. Here an axis is headed by the
shortest tail of its path that tells it from the others (the whole path is said once, above
the table), a table value is written ``red max_p=0.1``, the mean and its 95 % half-width
share a column, and a point's axis values are written on its first row only. ``--json``
gives the machine-readable whole (:func:`results_json`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
from rich import box
from rich.table import Table

from ..tidy_table import STAT_COLUMNS


def short_names(paths: Sequence[str]) -> dict[str, str]:
    """Each dotted path's shortest tail of segments that no other path ends with."""
    out: dict[str, str] = {}
    for p in paths:
        parts = p.split(".")
        for k in range(1, len(parts) + 1):
            tail = ".".join(parts[-k:])
            if not any(q != p and (q == tail or q.endswith("." + tail)) for q in paths):
                out[p] = tail
                break
        else:
            out[p] = p
    return out


def axis_text(value: Any) -> str:
    """An axis value as a person writes it: a table as ``kind k=v ...``, a list comma-separated."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, str) and value.startswith(("{", "[", '"')):  # JSON text of a mixed axis
        text: str = value
        try:
            value = json.loads(text)
        except ValueError:
            return text
    if isinstance(value, Mapping):
        words = [str(value["kind"])] if "kind" in value else []
        words += [f"{k}={axis_text(v)}" for k, v in value.items() if k != "kind"]
        return " ".join(words) or "{}"
    if isinstance(value, list):
        return ",".join(axis_text(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _number(v: Any) -> str:
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{float(v):.4g}"


def axis_columns(table: pd.DataFrame) -> list[str]:
    """The tidy table's axis columns (every column before ``metric``)."""
    cols = list(table.columns)
    return cols[: cols.index("metric")] if "metric" in cols else []


def results_table(table: pd.DataFrame, title: str, max_rows: int) -> tuple[list[str], Table]:
    """The lines that name the axes, and the table of at most ``max_rows`` rows."""
    axes = axis_columns(table)
    names = short_names([a.removeprefix("axis:") for a in axes])
    notes = [f"{names[a.removeprefix('axis:')]} = {a.removeprefix('axis:')}" for a in axes]
    # one space between columns (the box's divider; rich pads two): a metric name then fits 80 columns
    t = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, padding=0, show_edge=False)
    for a in axes:
        t.add_column(names[a.removeprefix("axis:")], overflow="fold")
    t.add_column("metric", overflow="fold")
    t.add_column("mean", justify="right", no_wrap=True)
    t.add_column("±95%", justify="right", no_wrap=True)
    t.add_column("n", justify="right", no_wrap=True)
    previous: tuple[str, ...] | None = None
    for row in table.head(max_rows).itertuples(index=False):
        values = dict(zip(table.columns, row, strict=True))
        point = tuple(axis_text(values[a]) for a in axes)
        if previous is not None and point != previous:
            t.add_section()
        shown = point if point != previous else tuple("" for _ in point)
        previous = point
        t.add_row(
            *shown,
            str(values["metric"]),
            _number(values["mean"]),
            _number(values["ci95_half_width"]),
            str(values["n"]),
        )
    if len(table) > max_rows:
        t.caption = f"{max_rows} of {len(table)} rows shown (--export for all)"
    return notes, t


def _plain(v: Any) -> Any:
    if v is None or v is pd.NA:
        return None
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if hasattr(v, "item"):  # numpy scalars
        return _plain(v.item())
    return v


def results_json(
    store_path: str, manifest: pd.DataFrame, table: pd.DataFrame, meta: Mapping[str, Any]
) -> dict[str, Any]:
    """``aqmlab results --json``: the store's counts, its runs (one per stored run: key,
    point, replication, seed, status, error) and the aggregate (one record per point and
    metric, the tidy table's columns); non-finite numbers as null."""
    counts = manifest["status"].value_counts().to_dict() if len(manifest) else {}
    run_columns = [c for c in ("key", "point", "replication", "seed", "status", "error") if c in manifest.columns]
    runs = [
        {
            c: (json.loads(v) if c == "point" and isinstance(v, str) else _plain(v))
            for c, v in zip(run_columns, r, strict=True)
        }
        for r in manifest[run_columns].itertuples(index=False)
    ]
    aggregate = [
        {str(c): _plain(v) for c, v in zip(table.columns, r, strict=True)} for r in table.itertuples(index=False)
    ]
    return {
        "store": store_path,
        "runs_stored": len(manifest),
        "ok": int(counts.get("ok", 0)),
        "failed": int(counts.get("failed", 0)),
        "sweep": meta.get("name"),
        "axes": axis_columns(table),
        "stats": list(STAT_COLUMNS),
        "runs": runs,
        "aggregate": aggregate,
    }
