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
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import import_extra

# matplotlib is the optional extra aqmlab[plot]; without it, reproducing fails here, before any
# run, with one line naming the extra.
matplotlib = import_extra("matplotlib", "plot", "drawing figures")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from .spec import Experiment  # noqa: E402

#: Most legend entries one panel may carry.
MAX_LEGEND = 8
#: ``scenario_file`` is treated as an axis (named so in labels) when it varies on its own.
SCENARIO_AXIS = "scenario_file"
UNIT_RE = re.compile(r"\([^()]*\S[^()]*\)\s*$")


class FigureWarning(UserWarning):
    """A saved figure breaks one of the rules of :func:`audit`."""


# --------------------------------------------------------------------------- saving and checking
def save(fig: Any, out_dir: Path, stem: str) -> list[Path]:
    """Writes ``stem.png`` and ``stem.svg``; warns (:class:`FigureWarning`) with every problem
    :func:`audit` finds, then closes the figure."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{stem}.png", out_dir / f"{stem}.svg"]
    fig.savefig(paths[0], dpi=120, bbox_inches="tight")
    # The PNG's draw laid out the tick labels the audit reads: it needs no draw of its own
    # (a fifth of the figures' time, which is half of a reproduction's tables and figures).
    for problem in audit(fig, drawn=True):
        warnings.warn(FigureWarning(f"{out_dir / stem}: {problem}"), stacklevel=2)
    fig.savefig(paths[1], bbox_inches="tight")
    plt.close(fig)
    return paths


def _finite_xy(line: Line2D) -> bool:
    x = np.asarray(line.get_xdata(), dtype=float)
    y = np.asarray(line.get_ydata(), dtype=float)
    return bool(np.any(np.isfinite(x) & np.isfinite(y))) if len(x) and len(y) else False


def _has_data(ax: Any) -> bool:
    return bool(ax.lines or ax.collections or ax.patches or ax.images)


def _categorical(axis: Any) -> bool:
    """True if the axis' tick labels name things (words) rather than numbers."""
    labels = [t.get_text() for t in axis.get_ticklabels() if t.get_text()]
    if not labels:
        return False
    words = [re.sub(r"\\(mathdefault|times)", "", s) for s in labels]
    return all(re.search(r"[A-DF-Za-df-z_]", w) for w in words)  # "1e-05" is a number


def _label_ok(ax: Any, which: str) -> bool:
    get = ax.get_xlabel if which == "x" else ax.get_ylabel
    if UNIT_RE.search(get() or ""):
        return True
    shared = ax.get_shared_x_axes() if which == "x" else ax.get_shared_y_axes()
    for sib in shared.get_siblings(ax):
        if sib is not ax and UNIT_RE.search((sib.get_xlabel() if which == "x" else sib.get_ylabel()) or ""):
            return True
    axis = ax.xaxis if which == "x" else ax.yaxis
    # a categorical axis (configurations, K = 10, ...) is labelled by its ticks
    return _categorical(axis) and bool(get())


def audit(fig: Any, *, drawn: bool = False) -> list[str]:
    """What makes ``fig`` hard to use: a panel with more than :data:`MAX_LEGEND` legend
    entries, a plotted axis without a label ending in "(unit)" (a categorical axis needs a
    label, its ticks name the categories), a drawn line without a finite point, a legend entry
    for a line that shows nothing. ``drawn``: the figure was drawn (saved) since it last
    changed, so its tick labels exist and it is not drawn again."""
    problems = []
    if not drawn:
        fig.canvas.draw()  # tick labels exist only after a draw
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible() or not _has_data(ax):
            continue
        name = f"panel {i} ({ax.get_title() or 'untitled'})"
        leg = ax.get_legend()
        if leg is not None and len(leg.get_texts()) > MAX_LEGEND:
            problems.append(f"{name}: legend has {len(leg.get_texts())} entries (> {MAX_LEGEND})")
        for which in ("x", "y"):
            if which == "x" and not ax.xaxis.get_visible():
                continue
            if not _label_ok(ax, which):
                lab = ax.get_xlabel() if which == "x" else ax.get_ylabel()
                problems.append(f"{name}: {which} axis label {lab!r} has no unit")
        for line in ax.lines:
            if not _finite_xy(line):
                problems.append(f"{name}: line {line.get_label()!r} has no finite point")
        for a, b in overlapping_texts(ax):
            problems.append(f"{name}: labels {a!r} and {b!r} overlap")
    for leg in fig.legends:
        if len(leg.get_texts()) > MAX_LEGEND:
            problems.append(f"figure legend has {len(leg.get_texts())} entries (> {MAX_LEGEND})")
    return problems


def overlapping_texts(ax: Any) -> list[tuple[str, str]]:
    """The pairs of an axes' texts (labels put on points) whose drawn extents overlap: one
    label hides part of the other (issue 35: the league's figures). Needs a drawn figure."""
    renderer = ax.figure.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in ax.texts if t.get_visible() and t.get_text()]
    return [(a, b) for i, (a, box_a) in enumerate(boxes) for b, box_b in boxes[i + 1 :] if box_a.overlaps(box_b)]


#: Where a point's label may go, in points from the point, tried in this order: beside it
#: first, then further out (with a leader line).
_LABEL_OFFSETS = [
    (dx * r, dy * r)
    for r in (1, 2, 3, 4, 6)
    for dx, dy in ((5, 3), (5, -9), (-5, 3), (-5, -9), (0, 8), (0, -14), (9, -3), (-9, -3))
]


def place_labels(ax: Any, points: Sequence[tuple[float, float, str]], fontsize: float = 8) -> None:
    """Labels each point (x, y, text) of ``ax`` where it overlaps no label placed before and
    stays inside the axes: the first free place of :data:`_LABEL_OFFSETS`, with a leader line
    when away from its point; the least-overlapping place if none is free."""
    fig = ax.figure
    fig.canvas.draw()  # the axes' limits and the renderer, to measure each label
    renderer = fig.canvas.get_renderer()
    inside = ax.get_window_extent(renderer)
    placed: list[Any] = []
    for x, y, text in points:
        best: tuple[float, Any] | None = None
        for dx, dy in _LABEL_OFFSETS:
            far = abs(dx) > 9 or abs(dy) > 14
            t = ax.annotate(
                text,
                (x, y),
                textcoords="offset points",
                xytext=(dx, dy),
                fontsize=fontsize,
                ha="left" if dx > 0 else "right" if dx < 0 else "center",
                arrowprops={"arrowstyle": "-", "lw": 0.5, "color": "0.5"} if far else None,
            )
            box = t.get_window_extent(renderer)
            clash = sum(_overlap_area(box, p) for p in placed)
            if not (inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0 and box.y1 <= inside.y1):
                clash += box.width * box.height  # outside the axes: as bad as hiding a label
            if best is None or clash < best[0]:
                if best is not None:
                    best[1].remove()
                best = (clash, t)
            else:
                t.remove()
            if clash == 0:
                break
        assert best is not None
        placed.append(best[1].get_window_extent(renderer))


def _overlap_area(a: Any, b: Any) -> float:
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w * h if w > 0 and h > 0 else 0.0


# --------------------------------------------------------------------------- names and units
def _fmt(v: Any) -> str:
    if isinstance(v, (float, np.floating)):
        return f"{float(v):g}"
    return str(v)


#: Name suffixes that repeat the unit (``delay_ms`` -> "delay (ms)").
UNIT_SUFFIXES = ("_ms", "_s", "_pct", "_pkts", "_kbps", "_mbps", "_bps", "_pps")


def pretty(name: str, has_unit: bool = True) -> str:
    """``queueing_delay_ms`` -> "queueing delay": underscores become spaces and a suffix that
    only repeats the unit is dropped (when the unit is printed next to it)."""
    if has_unit:
        for suf in UNIT_SUFFIXES:
            if name.endswith(suf) and len(name) > len(suf):
                name = name[: -len(suf)]
                break
    return name.replace("_", " ")


def axis_label(
    exp: Experiment, name: str, kind: str = "axis", categorical: bool = False, display: dict[str, str] | None = None
) -> str:
    """``"<name> (<unit>)"`` from the paper file's ``metrics`` (kind "metric") or ``axes``
    table; "dimensionless" when a numeric quantity has no unit, "named level" for a
    categorical axis. ``display`` maps names to the words to print instead."""
    items = exp.metrics if kind == "metric" else exp.axes
    unit = ""
    for m in items:
        if m.get("name") == name:
            unit = str(m.get("unit") or "")
    if name == SCENARIO_AXIS:
        return "scenario (file)"
    shown = (display or {}).get(name) or pretty(name, bool(unit))
    if not unit:
        unit = "named level" if categorical else "dimensionless"
    return f"{shown} ({unit})"


# --------------------------------------------------------------------------- the figure model
@dataclass
class PaperMark:
    x: Any  # None: the paper gives no x (a dotted line)
    y: float
    approximate: bool = False
    source: str = ""


@dataclass
class Series:
    """One configuration at one combination of the independent axes' values."""

    key: dict[str, Any]  # "config" and the independent axes' values (absent = not set)
    parts: dict[str, str] = field(default_factory=dict)  # independent axis -> "K=10"
    notes: list[str] = field(default_factory=list)  # dependent axes: "max_th=30", "min_th follows buffer"
    xs: list[Any] = field(default_factory=list)
    ys: list[float] = field(default_factory=list)
    errs: list[float] = field(default_factory=list)
    reference: bool = False  # run without the x axis: a horizontal line
    paper: list[PaperMark] = field(default_factory=list)
    color: str = "C0"
    style: str = "-"

    def label(self, omit: str | None = None) -> str:
        """The legend text; ``omit``: the panel's axis (its value is in the panel title)."""
        parts = [t for a, t in self.parts.items() if a != omit]
        text = str(self.key["config"]) + (", " + ", ".join(parts) if parts else "")
        return text + (f" ({'; '.join(self.notes)})" if self.notes else "")


@dataclass
class Panel:
    title: str
    series: list[Series]
    axis: str | None = None  # the axis the figure was split along (omitted from labels)

    def proxies(self) -> list[str]:
        """Legend entries that explain the marks rather than name a series."""
        out = []
        marks = [m for s in self.series for m in s.paper]
        if any(s.reference for s in self.series):
            out.append("reference")
        if any(m.x is not None and not m.approximate for m in marks):
            out.append("printed")
        if any(m.x is not None and m.approximate for m in marks):
            out.append("approximate")
        if any(m.x is None for m in marks):
            out.append("no_x")
        return out

    def legend_entries(self) -> int:
        return len(self.series) + len(self.proxies())


def _nunique(s: pd.Series) -> int:
    return int(s.dropna().nunique())


def pick_x(agg: pd.DataFrame, axes: list[str]) -> str | None:
    """The axis with the most distinct values (the first one on ties), None if none varies."""
    best, nbest = None, 1
    for a in axes:
        if a in agg.columns:
            n = _nunique(agg[a])
            if n > nbest:
                best, nbest = a, n
    return best


def _determined(g: pd.DataFrame, a: str, by: str) -> bool:
    sub = g[g[a].notna()]
    if sub.empty or _nunique(sub[a]) <= 1:
        return True
    if by not in sub.columns or sub[by].isna().any():
        return False
    return bool((sub.groupby(by)[a].nunique(dropna=True) <= 1).all())


def split_axes(agg: pd.DataFrame, x: str | None, others: list[str]) -> tuple[list[str], list[str]]:
    """(independent, dependent) among ``others``. An axis is dependent when, inside every
    configuration, it is constant or a function of the x axis or of one of the axes kept as
    independent (checked from the last axis to the first, so of two axes that determine each
    other the first stays)."""
    indep = list(others)
    dep: list[str] = []
    for a in reversed(others):
        cands = ([x] if x else []) + [b for b in indep if b != a]
        if all(
            _nunique(g[a]) <= 1 or any(_determined(g, a, b) for b in cands)
            for _, g in agg.groupby("config", sort=False)
        ):
            indep.remove(a)
            dep.append(a)
    return indep, list(reversed(dep))


def comparable(pv: dict[str, Any], metric: str) -> bool:
    """A paper row's value of ``metric`` can be set against our whole-run mean: numeric, not
    an analytic model's, and not a running average at a time before the end of the run (the
    rule of :func:`.tables.comparison`)."""
    v = pv.get(metric)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or pv.get("analytic"):
        return False
    return not (pv.get("running_average") and pv.get("time_s") not in (None, 100))


def same_value(a: Any, b: Any) -> bool:
    """Whether two values of a parameter name the same point: numbers within a relative 1e-9
    (what survives a round trip through a data file), anything else equal."""
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    except (TypeError, ValueError):
        same: bool = a == b
        return same


def _finite(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) and math.isfinite(float(v))


@dataclass
class Plan:
    """What one metric figure shows: the x axis (None: nothing varies), the series, the labels
    of series not drawn (no finite value), the categories of a categorical x axis, and the
    independent and dependent other axes."""

    x: str | None
    series: list[Series]
    empty: list[str]
    cats: list[Any]
    indep: list[str]
    dep: list[str]
    categorical: bool


def build_series(
    exp: Experiment,
    agg: pd.DataFrame,
    axes: list[str],
    metric: str,
    x: str | None = None,
    display: dict[str, str] | None = None,
) -> Plan:
    """The series of one metric figure (see :class:`Plan`)."""
    x = x if x is not None and x in agg.columns else pick_x(agg, axes)
    cand = [a for a in axes if a != x and a in agg.columns and _nunique(agg[a]) > 1]
    if SCENARIO_AXIS in agg.columns and _nunique(agg[SCENARIO_AXIS]) > 1 and SCENARIO_AXIS != x:
        cand.append(SCENARIO_AXIS)
    indep, dep = split_axes(agg, x, cand)
    categorical = x is not None and not pd.api.types.is_numeric_dtype(agg[x].dropna())
    cats: list[Any] = []
    if categorical:
        present = list(agg[x].dropna().unique())
        for a in exp.axes:
            if a["name"] == x:
                cats = [v for v in a.get("values", []) if v in present]
        cats += [v for v in present if v not in cats]
    disp = display or {}

    def name(a: str) -> str:
        return "scenario" if a == SCENARIO_AXIS else disp.get(a, a)

    series: list[Series] = []
    empty: list[str] = []
    keys = ["config"] + indep
    ci_col = metric + "_ci95"
    for key, g in agg.groupby(keys, dropna=False, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        kd = {k: v for k, v in zip(keys, key, strict=True) if not (isinstance(v, float) and math.isnan(v))}
        s = Series(key=kd, parts={a: f"{name(a)}={_fmt(kd[a])}" for a in indep if a in kd})
        for d in dep:
            if d == SCENARIO_AXIS:
                continue  # which scenario file a point ran on is bookkeeping, not a series' property
            vals = g[d].dropna().unique()
            if len(vals) == 1:
                s.notes.append(f"{name(d)}={_fmt(vals[0])}")
            elif len(vals) > 1:
                s.notes.append(f"{name(d)} follows {name(x) if x else 'the point'}")
        has_x = x is not None and g[x].notna().any()
        s.reference = x is not None and not has_x
        gg = g[g[x].notna()] if has_x else g
        if x is not None and has_x and not categorical:
            gg = gg.sort_values(x)
        for _, r in gg.iterrows():
            y = r.get(metric, math.nan)
            if not _finite(y):
                continue
            e = r.get(ci_col, 0.0)
            s.xs.append(r[x] if x is not None and has_x else None)
            s.ys.append(float(y))
            s.errs.append(float(e) if _finite(e) else 0.0)
        if not s.ys:
            empty.append(s.label())
            continue
        if s.reference and len(s.ys) > 1:
            # several rows without x (e.g. different scenario files): one value, the mean
            s.notes.append(f"mean of {len(s.ys)} points")
            s.ys, s.errs, s.xs = [float(np.mean(s.ys))], [0.0], [None]
        for pv in exp.paper_values:
            if pv.get("config") != kd["config"] or not comparable(pv, metric):
                continue
            if any(a in kd and a != SCENARIO_AXIS and (a not in pv or not same_value(pv[a], kd[a])) for a in indep):
                continue
            if any(a in pv and a not in kd for a in indep):
                continue
            if any(
                d in pv and g[d].notna().any() and not any(same_value(pv[d], v) for v in g[d].dropna().unique())
                for d in dep
            ):
                continue
            px = pv.get(x) if (has_x and x in pv) else None
            if px is not None and categorical and px not in cats:
                cats.append(px)
            s.paper.append(
                PaperMark(
                    x=px, y=float(pv[metric]), approximate=bool(pv.get("approximate")), source=str(pv.get("source", ""))
                )
            )
        series.append(s)
    return Plan(x, series, empty, cats, indep, dep, categorical)


def _colors(series: list[Series], omit: str | None = None) -> None:
    """One colour (and line style) per configuration and independent-axis values, ``omit`` (the
    panel axis) and the notes (``max_th=45``) left out, so a configuration keeps its colour in
    every panel."""
    cyc = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    styles = ["-", "--", "-.", ":"]
    seen: dict[str, int] = {}
    for s in series:
        name = str(s.key["config"]) + "|" + ",".join(t for a, t in s.parts.items() if a != omit)  # notes left out
        i = seen.setdefault(name, len(seen))
        s.color = cyc[i % len(cyc)]
        s.style = styles[(i // len(cyc)) % len(styles)]


def panels_for(series: list[Series], indep: list[str], max_legend: int = MAX_LEGEND) -> list[Panel]:
    """One panel if the legend fits, else panels along the independent axis with the fewest
    entries per panel (series without that axis in every panel), else chunks of series."""
    whole = Panel("", series)
    if whole.legend_entries() <= max_legend:
        return [whole]
    best: list[Panel] | None = None
    for a in indep:
        vals: list[Any] = []
        for s in series:
            if a in s.key and not any(same_value(s.key[a], v) for v in vals):
                vals.append(s.key[a])
        if len(vals) < 2:
            continue
        try:
            vals = sorted(vals)
        except TypeError:
            pass
        common = [s for s in series if a not in s.key]
        shown = "scenario" if a == SCENARIO_AXIS else a
        ps = [
            Panel(
                f"{shown} = {_fmt(v)}", [s for s in series if a in s.key and same_value(s.key[a], v)] + common, axis=a
            )
            for v in vals
        ]
        if best is None or max(p.legend_entries() for p in ps) < max(p.legend_entries() for p in best):
            best = ps
    out: list[Panel] = []
    for p in best or [whole]:
        if p.legend_entries() <= max_legend:
            out.append(p)
            continue
        # The series without the panel axis (baselines) stay in every chunk, so that no chunk
        # is left with only a baseline to compare against; if they leave no room, plain chunks.
        common = [s for s in p.series if p.axis is not None and p.axis not in s.key]
        own = [s for s in p.series if not any(s is c for c in common)]
        size = max_legend - len(p.proxies()) - len(common)
        if not common or size < 1:
            common, own, size = [], p.series, max(1, max_legend - len(p.proxies()))
        chunks = [own[i : i + size] for i in range(0, len(own), size)]
        for j, c in enumerate(chunks):
            title = ((p.title + ", ") if p.title else "") + f"series {j * size + 1}-{j * size + len(c)} of {len(own)}"
            out.append(Panel(title, c + common, axis=p.axis))
    return out


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
