"""Plots of a run, a comparison and a sweep, with matplotlib (``pip install 'aqmlab[plot]'``).

``Result.plot(kind)`` and ``aqmlab plot RESULT_DIR --kind KIND`` draw one of :data:`KINDS`
and return the matplotlib Figure; ``aqmlab compare --plot FILE`` draws
:func:`compare_figure`, ``aqmlab plot SWEEP_DIR --x PARAM --y METRIC`` :func:`sweep_figure`.
Nothing here is imported by ``import aqmlab``; matplotlib is imported when a plot is drawn.
docs/gallery.md shows each view.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._common import PlotError, RunTables

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Every view of one run: kind -> (what it shows, what the run must record).
KINDS: dict[str, tuple[str, str]] = {
    "queue": ("queue length and the AQM's average (or delay) over time", "sample_interval"),
    "probability": ("the AQM's drop/mark probability and the measured drop and mark fractions", "sample_interval"),
    "cwnd": ("each TCP flow's congestion window over time", "sample_interval and sample_flows = true"),
    "throughput": ("each flow's throughput over time", "sample_interval and sample_flows = true"),
    "delay_cdf": ("the CDF of the queue delay at each monitored queue", "a monitored queue"),
    "fct": ("flow completion time against flow size", "finite-size TCP transfers (the FCT table)"),
}


def _drawer(kind: str) -> Callable[..., Figure]:
    from . import distributions, timeseries

    drawers: dict[str, Callable[..., Figure]] = {
        "queue": timeseries.queue,
        "probability": timeseries.probability,
        "cwnd": timeseries.cwnd,
        "throughput": timeseries.throughput,
        "delay_cdf": distributions.delay_cdf,
        "fct": distributions.fct,
    }
    return drawers[kind]


def check_kind(kind: str) -> None:
    """PlotError listing the valid kinds unless ``kind`` is one."""
    if kind not in KINDS:
        import difflib

        close = difflib.get_close_matches(kind, list(KINDS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise PlotError(f"no plot kind {kind!r}{hint}; kinds: {', '.join(KINDS)}")


def plot_result(tables: RunTables, kind: str, ax: Axes | None = None, **options: Any) -> Figure:
    """Draws view ``kind`` of a run (:class:`aqmlab.Result` or a saved run) and returns the
    Figure; ``ax`` draws into the caller's Axes. ``options`` go to the view: ``queue=`` (queue
    and probability), ``flows=`` and ``legend=`` (cwnd, throughput), ``queues=`` and ``log_x=``
    (delay_cdf), ``slowdown=`` (fct). PlotError for an unknown kind or data the run lacks."""
    check_kind(kind)
    return _drawer(kind)(tables, ax, **options)


def compare_figure(rows: Any, title: str = "") -> Figure:
    """See :func:`aqmlab.plot.compare.compare_figure`."""
    from .compare import compare_figure as draw

    return draw(rows, title)


def sweep_figure(tidy: Any, x: str, y: str, ax: Axes | None = None, **options: Any) -> Figure:
    """See :func:`aqmlab.plot.sweep.sweep_figure`."""
    from .sweep import sweep_figure as draw

    return draw(tidy, x, y, ax, **options)


__all__ = ["KINDS", "PlotError", "check_kind", "compare_figure", "plot_result", "sweep_figure"]
