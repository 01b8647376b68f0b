"""``aqmlab compare --plot``: the AQMs of one comparison side by side, one bar chart per
measure (goodput, delay, loss, fairness)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ._common import PlotError, pyplot

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: (column of ``aqmlab compare``'s rows, axis label, second column drawn beside it or None).
PANELS: tuple[tuple[str, str, str | None], ...] = (
    ("goodput Mb/s", "goodput, all flows (Mb/s)", None),
    ("mean delay ms", "queue delay (ms): mean, p99", "p99 delay ms"),
    ("loss %", "loss (% of arrivals)", None),
    ("Jain", "Jain's fairness index", None),
)


def compare_figure(rows: Sequence[Mapping[str, Any]], title: str = "") -> Figure:
    """One figure of bar charts over the rows of ``aqmlab compare`` (one per AQM)."""
    if not rows:
        raise PlotError("nothing to plot: no AQM ran")
    pyplot()  # the plot extra, or its error
    from matplotlib.figure import Figure

    names = [str(r["AQM"]) for r in rows]
    fig = Figure(figsize=(min(14.0, max(7.0, 0.5 * len(names) + 3)), 5.6), layout="constrained")
    axs = fig.subplots(2, 2, sharex=True)
    x = list(range(len(names)))
    for ax, (col, label, second) in zip(axs.flat, PANELS, strict=True):
        if col not in rows[0]:
            raise PlotError(f"the comparison rows have no {col!r} column")
        values = [float(r[col]) for r in rows]
        if second is None:
            ax.bar(x, values, color="C0", width=0.7)
        else:
            w = 0.38
            ax.bar([i - w / 2 for i in x], values, width=w, color="C0", label=col.replace(" ms", ""))
            ax.bar(
                [i + w / 2 for i in x],
                [float(r[second]) for r in rows],
                width=w,
                color="C1",
                label=second.replace(" ms", ""),
            )
            ax.legend(fontsize="small")
        ax.set_ylabel(label, fontsize="small")
        ax.grid(axis="y", alpha=0.3)
        if col == "Jain":
            ax.set_ylim(0, 1.05)
    for ax in axs[-1]:
        ax.set_xticks(x, names, rotation=45, ha="right", fontsize="small")
    fig.suptitle(title or "AQMs compared at the bottleneck")
    return fig
