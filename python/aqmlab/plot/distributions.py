"""Distributions over the measurement window: the queue delay CDF (from each monitored queue's
delay histogram, ``Result.queue_delays``) and flow completion time against flow size
(``Result.fct``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._common import LEGEND_LINES, PlotError, RunTables, capped_legend, figure_and_axes, title

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Columns of the FCT table a plot reads (the contract of issue 27: the workloads' table).
FCT_COLUMNS = ("flow", "size_bytes", "fct_s", "completed")


def delay_cdf(
    tables: RunTables, ax: Axes | None = None, *, queues: list[str] | None = None, log_x: bool = False
) -> Figure:
    """The CDF of the delay at each monitored queue (from arrival to the end of the packet's
    transmission, as the queue table's mean_delay_ms and p99_delay_ms) of the packets that
    arrived in the measurement window (``queues``: default every one), with its median and 99th
    percentile marked. Read from the engine's histogram: each step is a bucket, within 1/64 of
    its delay."""
    h = tables.queue_delays
    if h.empty:
        raise PlotError(
            "no queue delays recorded: monitored queues record them (a dumbbell's bottleneck is monitored;"
            " set monitor = true on a link of another topology) and need packets to leave them"
        )
    names = [str(q) for q in h["queue"].unique()]
    if queues is not None:
        unknown = [q for q in queues if q not in names]
        if unknown:
            raise PlotError(f"no delay histogram for {', '.join(unknown)}; queues with one: {', '.join(names)}")
        names = list(queues)
    fig, ax = figure_and_axes(ax)
    for i, q in enumerate(names):
        rows = h[h["queue"] == q].sort_values("delay_low_ms")
        hi = rows["delay_high_ms"].to_numpy(dtype=float)
        lo = rows["delay_low_ms"].to_numpy(dtype=float)
        n = rows["packets"].to_numpy(dtype=float)
        cdf = np.cumsum(n) / n.sum()
        # each bucket's packets are counted as reached at its upper edge
        x = np.concatenate([[lo[0]], hi])
        y = np.concatenate([[0.0], cdf])
        color = f"C{i % 10}"
        ax.plot(x, y, color=color, drawstyle="steps-post", lw=1.2, label=f"{q} ({int(n.sum()):,} packets)")
        for qq, ls in ((0.5, "--"), (0.99, ":")):
            k = int(np.searchsorted(cdf, qq))
            ax.axvline(hi[min(k, len(hi) - 1)], color=color, ls=ls, lw=0.8)
    from matplotlib.lines import Line2D

    ax.set_xlabel("delay at the queue, waiting + transmission (ms)")
    ax.set_ylabel("fraction of packets (CDF)")
    ax.set_ylim(0, 1.02)
    if log_x:
        ax.set_xscale("symlog", linthresh=0.01)
    ax.grid(alpha=0.3)
    # the percentile lines in the legend once, in grey
    ax.add_artist(
        ax.legend(
            [Line2D([], [], color="0.4", ls="--", lw=0.8), Line2D([], [], color="0.4", ls=":", lw=0.8)],
            ["median", "99th percentile"],
            fontsize="small",
            loc="center right",
        )
    )
    capped_legend(ax, LEGEND_LINES, loc="lower right")
    ax.set_title(title(tables, "queue delay distribution"))
    return fig


def fct_table(tables: Any) -> pd.DataFrame:
    """The run's FCT table, or PlotError saying what records one."""
    fct = getattr(tables, "fct", None)
    if fct is None or len(fct) == 0:
        raise PlotError(
            "no flow completion times: the FCT table has one row per finite-size TCP transfer"
            " (TCP flows with a size, e.g. a workload's arrivals); this run has none"
        )
    missing = [c for c in FCT_COLUMNS if c not in fct.columns]
    if missing:
        raise PlotError(f"the FCT table lacks column(s) {', '.join(missing)}")
    return fct  # type: ignore[no-any-return]


def _size_bins(sizes: Any, per_decade: int = 4) -> Any:
    lo, hi = float(np.min(sizes)), float(np.max(sizes))
    if lo <= 0 or lo == hi:
        return np.array([lo, hi if hi > lo else lo + 1])
    n = max(1, int(np.ceil(np.log10(hi / lo) * per_decade)))
    return np.logspace(np.log10(lo), np.log10(hi), n + 1)


def fct(tables: Any, ax: Axes | None = None, *, slowdown: bool = False) -> Figure:
    """Flow completion time (or ``slowdown``: FCT over the ideal) against flow size, one dot
    per completed transfer, with the median and 99th percentile per size bin (each size when
    there are at most 20 distinct ones, else 4 bins per decade);
    the transfers that did not complete are counted in the legend."""
    df = fct_table(tables)
    done = df[df["completed"].astype(bool)]
    y_col = "slowdown" if slowdown else "fct_s"
    if slowdown and "slowdown" not in df.columns:
        raise PlotError("the FCT table has no slowdown column")
    fig, ax = figure_and_axes(ax)
    n_open = int(len(df) - len(done))
    sizes = done["size_bytes"].to_numpy(dtype=float)
    ys = done[y_col].to_numpy(dtype=float)
    ok = np.isfinite(ys) & (sizes > 0) & (ys > 0)
    sizes, ys = sizes[ok], ys[ok]
    ax.scatter(sizes, ys, s=4, alpha=0.35, color="C0", lw=0, label=f"completed ({len(sizes):,})", rasterized=True)
    if len(sizes):
        # a few distinct sizes (a fixed set) are their own bins; a distribution is cut into 4
        # bins per decade, each drawn at its median size
        distinct = np.unique(sizes)
        if len(distinct) <= 20:
            idx = np.searchsorted(distinct, sizes)
            n_bins = len(distinct)
        else:
            edges = _size_bins(sizes)
            idx = np.clip(np.searchsorted(edges, sizes, side="right") - 1, 0, len(edges) - 2)
            n_bins = len(edges) - 1
        mids, med, p99 = [], [], []
        for b in range(n_bins):
            sel = idx == b
            if sel.any():
                mids.append(float(np.median(sizes[sel])))
                med.append(float(np.median(ys[sel])))
                p99.append(float(np.quantile(ys[sel], 0.99)))
        ax.plot(mids, med, "o-", color="C1", lw=1.4, ms=3, label="median per size bin")
        ax.plot(mids, p99, "s--", color="C3", lw=1.0, ms=3, label="99th percentile per size bin")
    if n_open:
        ax.plot([], [], " ", label=f"not completed: {n_open:,}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("flow size (bytes)")
    ax.set_ylabel("slowdown (FCT / ideal FCT)" if slowdown else "flow completion time (s)")
    ax.grid(alpha=0.3, which="both")
    capped_legend(ax, loc="upper left")
    ax.set_title(
        title(tables, f"{'slowdown' if slowdown else 'flow completion time'} against size, {len(df):,} transfers")
    )
    return fig
