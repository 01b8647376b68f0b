"""A sweep's metric against one of its parameters, with the 95 % confidence interval over the
replications as a band (the tidy table of :func:`aqmlab.sweep.aggregate.aggregate_runs`: one
row per point and metric with mean, ci95_low, ci95_high); one line per value of the sweep's
other parameters."""

from __future__ import annotations

import difflib
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..tidy_table import STAT_COLUMNS
from ._common import PlotError, capped_legend, figure_and_axes

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def _suggest(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _axis_column(tidy: pd.DataFrame, x: str) -> str:
    axes = [c for c in tidy.columns if c not in ("metric", *STAT_COLUMNS)]
    for c in (x, f"axis:{x}"):
        if c in axes:
            return c
    raise PlotError(
        f"{x!r} is not a parameter of the sweep{_suggest(x, axes)}; parameters: {', '.join(axes) or 'none'}"
    )


def _unit_label(metric: str) -> str:
    """An axis label with the metric's unit from its name (the summary's keys carry it)."""
    for suffix, unit in (("_bps", "bit/s"), ("_ms", "ms"), ("_s", "s"), ("_packets", "packets"), ("_bytes", "bytes")):
        if suffix in metric:
            return f"{metric} ({unit})"
    if "rate" in metric or "utilization" in metric or "jain" in metric:
        return f"{metric} (fraction)"
    return metric


def _param_label(path: str) -> str:
    """A parameter's axis label: its path, with the unit the AQM registry documents for an
    AQM parameter (``...aqm.max_p`` -> probability)."""
    name = path.removeprefix("axis:")
    parts = name.split(".")
    if len(parts) >= 2 and parts[-2] == "aqm":
        from .. import _core

        units = {p["name"]: p["unit"] for a in _core.aqms() for p in a["params"] if p["unit"]}
        if parts[-1] in units:
            return f"{name} ({units[parts[-1]]})"
    return _unit_label(name) if any(u in name for u in ("_bps", "_ms", "_s", "_packets", "_bytes")) else name


def sweep_figure(tidy: pd.DataFrame, x: str, y: str, ax: Axes | None = None, *, legend: int = 10) -> Figure:
    """Metric ``y`` (a summary key, e.g. ``queue.bottleneck.mean_delay_ms``) against
    parameter ``x`` (a dotted scenario path of the sweep): the mean over replications, and
    its 95 % t-interval as a band where there are at least two replications."""
    if tidy.empty:
        raise PlotError("the sweep has no successful runs to plot")
    xcol = _axis_column(tidy, x)
    metrics = sorted(str(m) for m in tidy["metric"].unique())
    if y not in metrics:
        raise PlotError(f"{y!r} is not a metric of the sweep{_suggest(y, metrics)}; e.g. {', '.join(metrics[:8])}")
    rows = tidy[tidy["metric"] == y]
    others = [c for c in tidy.columns if c not in ("metric", xcol, *STAT_COLUMNS) and rows[c].nunique(dropna=False) > 1]
    fig, ax = figure_and_axes(ax)
    groups: list[tuple[Any, pd.DataFrame]] = (
        list(rows.groupby(others, sort=False, dropna=False)) if others else [((), rows)]
    )
    numeric_x = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in rows[xcol])
    for i, (key, g) in enumerate(groups):
        key_t = key if isinstance(key, tuple) else (key,)
        label = ", ".join(f"{c.removeprefix('axis:')} = {v}" for c, v in zip(others, key_t, strict=True)) or y
        g = g.sort_values(xcol) if numeric_x else g
        xs = g[xcol].to_numpy(dtype=float) if numeric_x else np.arange(len(g))
        mean = g["mean"].to_numpy(dtype=float)
        color = f"C{i % 10}"
        ax.plot(xs, mean, "o-", color=color, lw=1.2, ms=3, label=label)
        lo, hi = g["ci95_low"].to_numpy(dtype=float), g["ci95_high"].to_numpy(dtype=float)
        if np.isfinite(lo).any():
            ax.fill_between(xs, lo, hi, color=color, alpha=0.2, lw=0)
        if not numeric_x:
            ax.set_xticks(xs, [str(v) for v in g[xcol]])
    n = rows["n"]
    reps = f"{int(n.min())}" if n.min() == n.max() else f"{int(n.min())}-{int(n.max())}"
    ax.set_xlabel(_param_label(xcol))
    ax.set_ylabel(_unit_label(y))
    ax.grid(alpha=0.3)
    capped_legend(ax, legend)
    band = (
        "mean and 95 % CI" if not math.isnan(float(rows["ci95_half_width"].max())) else "mean (one replication: no CI)"
    )
    ax.set_title(f"{y}\n{band}, {reps} replications per point", fontsize="medium")
    return fig
