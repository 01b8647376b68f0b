"""Figures re-drawn from our runs (PNG and SVG, matplotlib Agg).

One job: turn the aggregated runs of an experiment (one row per configuration and point, see
:func:`.tables.aggregate`) into figures a reader can use. Everything is driven by the data, so
a configuration, an axis value or a paper row added to a paper file shows up without code:

* :func:`metric_figure` draws one paper metric against the experiment's most varied axis (or
  the axis the caller names): one series per configuration and per value of each other axis
  that varies *independently* (an axis that only follows another one inside each
  configuration, e.g. RED's ``max_th = 3K`` or ``min_th = 20 %`` of the buffer, labels the
  series instead of splitting it). CI95 error bars on our means; a configuration run without
  the x axis is a dashed horizontal line with its CI band.
* The paper's printed numbers (``paper_values`` rows tied to a configuration and the axis
  values) are open markers in the series' colour: squares for printed values, diamonds for
  values read off a figure (``approximate = true``); a printed value that gives no x (e.g. an
  average over the x axis, or a baseline's single number) is a dotted line in the series'
  colour. Rows marked ``analytic`` and running averages at a time other than the end of the
  run are left out (they are not comparable with our whole-run means; :mod:`.tables` uses
  the same rule).
* Legends that fit: at most :data:`MAX_LEGEND` entries a panel. Above that the figure is split
  into panels along the independent axis that gives the fewest entries per panel (Orange's
  4 K values x 16 timers: one panel per K; Hybrid RED's theta x xi grid: one panel per
  theta), else into chunks of series; panels share the y axis. Series present in every panel
  (a configuration without the panel axis, e.g. DropTail or a baseline) are repeated.
* No empty series: a series without a single finite value is not drawn; the figure says so in
  a note under the axes (e.g. a bias that is undefined because a queue never dropped).
* Every axis is labelled with its unit (``metrics[].unit`` and ``axes[].unit`` of the paper
  file; "dimensionless" for a numeric axis without one, "named level" for a categorical one).
* An experiment without any varied axis is drawn as a dot plot: one position per
  configuration, our mean with its CI95, the paper's value next to it.

:func:`audit` checks a Figure object against these rules (used by :func:`save`, which warns
with :class:`FigureWarning`, and by the tests). Experiment-specific figures (analytic curves,
time series) live in :mod:`.companions` and go through :func:`save` too.

By job: :mod:`.figure_model` (names, units, series and panels), :mod:`.figure_audit` (saving,
the checks and label placement), and here the drawing; every name stays importable from here.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ..errors import import_extra

# matplotlib is the optional extra aqmlab[plot]; without it, reproducing fails here, before any
# run, with one line naming the extra.
matplotlib = import_extra("matplotlib", "plot", "drawing figures")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from .figure_audit import _LABEL_OFFSETS as _LABEL_OFFSETS  # noqa: E402
from .figure_audit import FigureWarning as FigureWarning  # noqa: E402
from .figure_audit import _categorical as _categorical  # noqa: E402
from .figure_audit import _finite_xy as _finite_xy  # noqa: E402
from .figure_audit import _has_data as _has_data  # noqa: E402
from .figure_audit import _label_ok as _label_ok  # noqa: E402
from .figure_audit import _overlap_area as _overlap_area  # noqa: E402
from .figure_audit import audit as audit  # noqa: E402
from .figure_audit import overlapping_texts as overlapping_texts  # noqa: E402
from .figure_audit import place_labels as place_labels  # noqa: E402
from .figure_audit import save as save  # noqa: E402
from .figure_model import MAX_LEGEND as MAX_LEGEND  # noqa: E402
from .figure_model import SCENARIO_AXIS as SCENARIO_AXIS  # noqa: E402
from .figure_model import UNIT_RE as UNIT_RE  # noqa: E402
from .figure_model import UNIT_SUFFIXES as UNIT_SUFFIXES  # noqa: E402
from .figure_model import Panel as Panel  # noqa: E402
from .figure_model import PaperMark as PaperMark  # noqa: E402
from .figure_model import Plan as Plan  # noqa: E402
from .figure_model import Series as Series  # noqa: E402
from .figure_model import _colors as _colors  # noqa: E402
from .figure_model import _determined as _determined  # noqa: E402
from .figure_model import _finite as _finite  # noqa: E402
from .figure_model import _fmt as _fmt  # noqa: E402
from .figure_model import _nunique as _nunique  # noqa: E402
from .figure_model import axis_label as axis_label  # noqa: E402
from .figure_model import build_series as build_series  # noqa: E402
from .figure_model import comparable as comparable  # noqa: E402
from .figure_model import panels_for as panels_for  # noqa: E402
from .figure_model import pick_x as pick_x  # noqa: E402
from .figure_model import pretty as pretty  # noqa: E402
from .figure_model import same_value as same_value  # noqa: E402
from .figure_model import split_axes as split_axes  # noqa: E402
from .spec import Experiment  # noqa: E402


def _legend(ax: Any, panel: Panel, x: str | None, xname: str) -> None:
    handles, labels = [], []
    for s in panel.series:
        if s.reference:
            handles.append(Line2D([], [], color=s.color, ls="--", lw=1.2))
        else:
            handles.append(Line2D([], [], color=s.color, ls=s.style, lw=1.4, marker="o", ms=3.5))
        labels.append(s.label(omit=panel.axis))
    extra = {
        "reference": (Line2D([], [], color="0.3", ls="--", lw=1.2), f"dashed: run without {xname} (band: CI95)"),
        "printed": (Line2D([], [], ls="none", marker="s", mfc="none", color="0.3"), "paper, printed value"),
        "approximate": (Line2D([], [], ls="none", marker="D", mfc="none", color="0.3"), "paper, read off its figure"),
        "no_x": (Line2D([], [], ls=":", lw=1.4, color="0.3"), f"dotted: paper value without {xname}"),
    }
    for k in panel.proxies():
        handles.append(extra[k][0])
        labels.append(extra[k][1])
    ax.legend(
        handles,
        labels,
        fontsize=7,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        borderaxespad=0.0,
        framealpha=0.9,
        title="open marks: paper (series colour)" if panel.proxies() else None,
        title_fontsize=7,
    )


def _draw_panel(ax: Any, panel: Panel, pos: Any) -> None:
    for s in panel.series:
        if s.reference:
            y, e = s.ys[0], s.errs[0]
            ax.axhline(y, color=s.color, ls="--", lw=1.2, label=s.label(panel.axis))
            if e > 0:
                ax.axhspan(y - e, y + e, color=s.color, alpha=0.08, lw=0)
        else:
            ax.errorbar(
                [pos(v) for v in s.xs],
                s.ys,
                yerr=s.errs,
                marker="o",
                ms=3.5,
                capsize=2,
                color=s.color,
                ls=s.style,
                lw=1.4,
                label=s.label(panel.axis),
            )
        pts = [m for m in s.paper if m.x is not None]
        for approx, mk in ((False, "s"), (True, "D")):
            sel = [m for m in pts if m.approximate == approx]
            if sel:
                ax.plot(
                    [pos(m.x) for m in sel],
                    [m.y for m in sel],
                    ls="none",
                    marker=mk,
                    ms=7,
                    mfc="none",
                    mew=1.4,
                    color=s.color,
                    label=f"{s.label(panel.axis)}: paper",
                )
        for m in s.paper:
            if m.x is None:
                ax.axhline(m.y, color=s.color, ls=":", lw=1.4, label=f"{s.label(panel.axis)}: paper")


#: Our values and the paper's this many times apart (all positive): a log y axis, so both show.
LOG_Y_RATIO = 30.0


def needs_log_y(series: list[Series]) -> bool:
    """True when the paper's marks and our means are all positive and span more than
    :data:`LOG_Y_RATIO` (e.g. DSRED's drop rates: the paper's 3 packets/s against our 250):
    on a linear axis one of them would sit flat on the floor."""
    ys = [y for s in series for y in s.ys] + [m.y for s in series for m in s.paper]
    if not ys or not any(s.paper for s in series) or min(ys) <= 0:
        return False
    return max(ys) / min(ys) > LOG_Y_RATIO


def metric_figure(
    exp: Experiment,
    agg: pd.DataFrame,
    axes: list[str],
    metric: str,
    quick: bool = False,
    scenario_pref: str | None = None,
    *,
    x: str | None = None,
    title: str | None = None,
    display: dict[str, str] | None = None,
    max_legend: int = MAX_LEGEND,
) -> Any | None:
    """The Figure of one metric (None if no configuration has a finite value of it). See the
    module docstring for the rules; ``x`` forces the x axis, ``display`` renames metrics and
    axes in labels (units still come from the paper file), ``title`` replaces the title."""
    if agg.empty or metric not in agg.columns:
        return None
    if scenario_pref and SCENARIO_AXIS in agg.columns and agg[SCENARIO_AXIS].nunique() > 1:
        pref = agg[agg[SCENARIO_AXIS].str.contains(scenario_pref, regex=False)]
        agg = pref if not pref.empty else agg
    plan = build_series(exp, agg, axes, metric, x=x, display=display)
    x, series, cats, categorical = plan.x, plan.series, plan.cats, plan.categorical
    if not series:
        return None
    _colors(series)  # the dot plot; panels are recoloured below with the panel axis left out
    head = title or f"{exp.paper} {exp.id}: {(display or {}).get(metric) or pretty(metric)}"
    head += " [quick]" if quick else ""
    ylabel = axis_label(exp, metric, "metric", display=display)
    if x is None:
        return _dot_plot(series, plan.empty, head, ylabel)
    pos = (lambda v: cats.index(v)) if categorical else (lambda v: v)
    panels = panels_for(series, plan.indep, max_legend)
    _colors(series, panels[0].axis)
    n = len(panels)
    ncols = 1 if n == 1 else 2
    nrows = math.ceil(n / ncols)
    fig, axs = plt.subplots(
        nrows,
        ncols,
        figsize=(9.5 if n == 1 else 15.0, 4.6 if n == 1 else 3.8 * nrows),
        squeeze=False,
        sharey=True,
        layout="constrained",
    )
    xs_all = [v for s in series for v in s.xs if v is not None] + [
        m.x for s in series for m in s.paper if m.x is not None
    ]
    num = [float(v) for v in xs_all if _finite(v) and float(v) > 0]
    logx = not categorical and bool(num) and max(num) / min(num) > 20
    logy = needs_log_y(series)
    xlabel = axis_label(exp, x, "axis", categorical=categorical, display=display)
    xname = (display or {}).get(x) or x
    for i, panel in enumerate(panels):
        ax = axs[i // ncols][i % ncols]
        _draw_panel(ax, panel, pos)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.yaxis.set_tick_params(labelleft=True)
        if categorical:
            ax.set_xticks(range(len(cats)), [str(c) for c in cats])
            ax.set_xlim(-0.4, len(cats) - 0.6)
        elif logx:
            ax.set_xscale("log")
            ticks = sorted({float(v) for v in num})
            if len(ticks) <= 12:  # few values: ticks at the values run (1, 20, 50, 80), not at 1, 10, 100
                ax.set_xticks(ticks, [f"{v:g}" for v in ticks])
                ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
            else:
                ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _p: f"{v:g}"))
        if panel.title:
            ax.set_title(panel.title, fontsize=9)
        if logy:
            ax.set_yscale("log", nonpositive="clip")
        ax.grid(alpha=0.3)
        _legend(ax, panel, x, xname)
    for j in range(n, nrows * ncols):
        axs[j // ncols][j % ncols].set_visible(False)
    fig.suptitle(head, fontsize=10)
    _empty_note(fig, plan.empty)
    return fig


def _empty_note(fig: Any, empty: list[str]) -> None:
    if empty:
        fig.text(
            0.01,
            0.0,
            "Not drawn (no finite value in any run): " + "; ".join(empty),
            fontsize=7,
            ha="left",
            va="top",
            wrap=True,
        )


def _dot_plot(series: list[Series], empty: list[str], head: str, ylabel: str) -> Any:
    """No varied axis: one position per configuration, our mean ± CI95 and the paper's value."""
    fig, ax = plt.subplots(figsize=(max(5.0, 1.3 * len(series) + 2.5), 4.4), layout="constrained")
    for i, s in enumerate(series):
        ax.errorbar(
            [i],
            s.ys[:1],
            yerr=s.errs[:1],
            marker="o",
            ms=6,
            capsize=4,
            color=s.color,
            ls="none",
            label=f"{s.label()}: ours",
        )
        for m in s.paper:
            ax.plot(
                [i + 0.18],
                [m.y],
                ls="none",
                marker="D" if m.approximate else "s",
                ms=7,
                mfc="none",
                mew=1.4,
                color=s.color,
                label=f"{s.label()}: paper",
            )
    rot = len(series) > 3
    ax.set_xticks(
        range(len(series)), [s.label() for s in series], rotation=20 if rot else 0, ha="right" if rot else "center"
    )
    ax.set_xlim(-0.6, len(series) - 0.4)
    ax.set_xlabel("configuration")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3, axis="y")
    handles = [Line2D([], [], ls="none", marker="o", color="0.3")]
    labels = ["ours: mean ± CI95"]
    marks = [m for s in series for m in s.paper]
    if any(not m.approximate for m in marks):
        handles.append(Line2D([], [], ls="none", marker="s", mfc="none", color="0.3"))
        labels.append("paper, printed value")
    if any(m.approximate for m in marks):
        handles.append(Line2D([], [], ls="none", marker="D", mfc="none", color="0.3"))
        labels.append("paper, read off its figure")
    ax.legend(handles, labels, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    ax.set_title(head, fontsize=10)
    _empty_note(fig, empty)
    return fig


def metric_figures(
    exp: Experiment,
    agg: pd.DataFrame,
    axes: list[str],
    out_dir: Path,
    quick: bool,
    scenario_pref: str | None = None,
    *,
    metrics: list[str] | None = None,
    x: str | None = None,
    stems: dict[str, str] | None = None,
    titles: dict[str, str] | None = None,
    display: dict[str, str] | None = None,
) -> list[Path]:
    """:func:`metric_figure` for each paper metric (or ``metrics``), saved as
    ``<stem>.png|svg`` in ``out_dir`` (stem: ``stems[metric]``, default the metric name)."""
    if agg.empty:
        return []
    paths: list[Path] = []
    names = metrics if metrics is not None else [m["name"] for m in exp.metrics]
    for name in names:
        if name not in agg.columns or agg[name].isna().all():
            continue
        fig = metric_figure(
            exp, agg, axes, name, quick, scenario_pref, x=x, title=(titles or {}).get(name), display=display
        )
        if fig is not None:
            paths += save(fig, out_dir, (stems or {}).get(name, name))
    return paths


def plot_queue_and_avg(
    ax: Any, result: Any, link: str, queue_lw: float, avg_lw: float
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Draws a traced run's instantaneous queue (grey) and RED's avg (C0) at ``link``; returns
    the link's samples and its avg samples in time order."""
    ts = result.timeseries
    ts = ts[ts["source"] == link]
    avg = ts[ts["variable"] == "avg_packets"].sort_values("time_s")
    q = ts[ts["variable"] == "queue_packets"].sort_values("time_s")
    ax.plot(q["time_s"], q["value"], color="0.75", lw=queue_lw, label="queue")
    ax.plot(avg["time_s"], avg["value"], color="C0", lw=avg_lw, label="avg")
    return ts, avg


def finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and math.isfinite(v)
