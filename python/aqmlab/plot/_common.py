"""What every plot shares: matplotlib loaded on first use (the ``plot`` extra), the error for
a view the data cannot give, a figure or the caller's Axes, a legend that fits, and the long
time series cut into one source's variables."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

from ..errors import import_extra

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Lines a legend names before it says "N more".
LEGEND_LINES = 10


class PlotError(ValueError):
    """A view that cannot be drawn: an unknown kind (the message lists the valid ones) or
    data the run did not record (the message names the scenario setting that records it)."""


class RunTables(Protocol):
    """What a plot reads from a run: :class:`aqmlab.Result` or a result saved by
    ``aqmlab run --out`` (:class:`aqmlab.plot.saved.SavedResult`)."""

    @property
    def name(self) -> str: ...
    @property
    def warmup_s(self) -> float: ...
    @property
    def timeseries(self) -> pd.DataFrame: ...
    @property
    def flows(self) -> pd.DataFrame: ...
    @property
    def queue_delays(self) -> pd.DataFrame: ...


def pyplot() -> Any:
    """matplotlib.pyplot, or MissingExtraError naming the ``plot`` extra."""
    return import_extra("matplotlib.pyplot", "plot", "drawing figures")


def figure_and_axes(ax: Axes | None, figsize: tuple[float, float] = (7.0, 3.6)) -> tuple[Figure, Axes]:
    """``ax``'s figure and ``ax``, or a new figure (not shown, not kept by pyplot's state:
    a script drawing hundreds of plots does not hold hundreds of figures)."""
    if ax is not None:
        return cast("Figure", ax.figure), ax
    import_extra("matplotlib", "plot", "drawing figures")
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    return fig, fig.add_subplot()


def capped_legend(ax: Axes, limit: int = LEGEND_LINES, **kwargs: Any) -> None:
    """A legend of the first ``limit`` labelled lines and, if there are more, an entry "N more"
    (a plot of 100 flows keeps a legend that fits)."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    if len(handles) > limit:
        from matplotlib.lines import Line2D

        more = len(handles) - limit
        handles = [*handles[:limit], Line2D([], [], color="none")]
        labels = [*labels[:limit], f"... {more} more"]
    kwargs.setdefault("fontsize", "small")
    kwargs.setdefault("loc", "best")
    ax.legend(handles, labels, **kwargs)


def legend_outside(ax: Axes, limit: int = LEGEND_LINES) -> None:
    """A capped legend right of the plot, where it hides no line (per-flow views)."""
    capped_legend(ax, limit, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


def series(ts: pd.DataFrame, source: str, variable: str) -> tuple[Any, Any]:
    """(times, values) of one variable of one source, in time order (numpy arrays)."""
    rows = ts[(ts["source"] == source) & (ts["variable"] == variable)].sort_values("time_s")
    return rows["time_s"].to_numpy(dtype=float), rows["value"].to_numpy(dtype=float)


def per_source(ts: pd.DataFrame, variable: str) -> dict[str, tuple[Any, Any]]:
    """(times, values) of ``variable`` for every source recording it, in one pass over the
    series (a 1000-flow run is not filtered 1000 times)."""
    rows = ts[ts["variable"] == variable].sort_values("time_s", kind="stable")
    return {
        str(src): (g["time_s"].to_numpy(dtype=float), g["value"].to_numpy(dtype=float))
        for src, g in rows.groupby("source", observed=True, sort=False)
    }


def variables_of(ts: pd.DataFrame, source: str) -> set[str]:
    return {str(v) for v in ts.loc[ts["source"] == source, "variable"].unique()}


def sources_with(ts: pd.DataFrame, variable: str) -> list[str]:
    """Sources recording ``variable``, in the order they first appear."""
    return [str(s) for s in ts.loc[ts["variable"] == variable, "source"].unique()]


def flow_id(source: str) -> int | None:
    """The flows table's id of a flow's series source ("flow12" -> 12), else None."""
    if source.startswith("flow") and source[4:].isdigit():
        return int(source[4:])
    return None


def flow_labels(flows: pd.DataFrame) -> dict[int, str]:
    """Legend label per flow id: "flow 3 (group)"."""
    if "flow" not in flows.columns:
        return {}
    groups = list(flows["group"]) if "group" in flows.columns else [""] * len(flows)
    # the group says something only when there are several
    if len(set(groups)) < 2:
        groups = [""] * len(groups)
    return {int(f): f"flow {int(f)}" + (f" ({g})" if g else "") for f, g in zip(flows["flow"], groups, strict=True)}


def pick_queue(ts: pd.DataFrame, queue: str | None, variable: str = "queue_packets") -> str:
    """The queue to draw: ``queue`` if given, else "bottleneck" if sampled, else the first
    queue sampled; PlotError naming the sampled queues or ``sample_interval``."""
    queues = sources_with(ts, variable)
    if not queues:
        raise PlotError('the run has no sampled queue: set sample_interval in the scenario (e.g. "100ms")')
    if queue is None:
        return "bottleneck" if "bottleneck" in queues else queues[0]
    if queue not in queues:
        raise PlotError(f"no sampled queue {queue!r}; sampled queues: {', '.join(queues)}")
    return queue


def title(tables: RunTables, what: str) -> str:
    return f"{tables.name}: {what}" if tables.name else what


def mark_warmup(ax: Axes, warmup_s: float) -> None:
    """A dotted line where the measurement window starts (counters restart there)."""
    if warmup_s > 0:
        ax.axvline(warmup_s, color="0.5", ls=":", lw=0.8, label="end of warm-up")
