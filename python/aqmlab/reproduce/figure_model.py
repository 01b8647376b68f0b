"""What a figure of :mod:`.figures` shows, before anything is drawn: names and units of the
metrics and axes (:func:`pretty`, :func:`axis_label`), the x axis and the axes that split
the series (:func:`pick_x`, :func:`split_axes`), the series of our means and the paper's
values (:class:`Series`, :class:`PaperMark`, :func:`build_series`), and the panels the
legends fit in (:class:`Panel`, :func:`panels_for`)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import import_extra

# matplotlib is the optional extra aqmlab[plot]; without it, reproducing fails here, before any
# run, with one line naming the extra.
matplotlib = import_extra("matplotlib", "plot", "drawing figures")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from .spec import Experiment  # noqa: E402

#: Most legend entries one panel may carry.
MAX_LEGEND = 8
#: ``scenario_file`` is treated as an axis (named so in labels) when it varies on its own.
SCENARIO_AXIS = "scenario_file"
UNIT_RE = re.compile(r"\([^()]*\S[^()]*\)\s*$")


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
