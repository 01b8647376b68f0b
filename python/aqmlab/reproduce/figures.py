"""Figures re-drawn from our runs (PNG and SVG, matplotlib Agg).

One job. :func:`metric_figures` draws, per paper metric, the metric against the experiment's
most varied axis: one line per configuration (and value of the other varied axes) with CI95
error bars, the paper's printed values as open markers of the same colour, and configurations
run at a single point as horizontal dashed lines. Experiment-specific figures (analytic
curves, time series) live in :mod:`.companions`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from .spec import Experiment  # noqa: E402


def save(fig: Any, out_dir: Path, stem: str) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{stem}.png", out_dir / f"{stem}.svg"]
    fig.savefig(paths[0], dpi=120, bbox_inches="tight")
    fig.savefig(paths[1], bbox_inches="tight")
    plt.close(fig)
    return paths


def _unit(exp: Experiment, name: str, kind: str) -> str:
    items = exp.metrics if kind == "metric" else exp.axes
    for m in items:
        if m["name"] == name and m.get("unit"):
            return f"{name} ({m['unit']})"
    return name


def _pick_x(agg: pd.DataFrame, axes: list[str]) -> str | None:
    best, nbest = None, 1
    for a in axes:
        if a in agg.columns:
            n = agg[a].dropna().nunique()
            if n > nbest:
                best, nbest = a, n
    return best


def metric_figures(exp: Experiment, agg: pd.DataFrame, axes: list[str], out_dir: Path, quick: bool,
                   scenario_pref: str | None = None) -> list[Path]:
    if agg.empty:
        return []
    if scenario_pref and agg["scenario_file"].nunique() > 1:
        pref = agg[agg["scenario_file"].str.contains(scenario_pref, regex=False)]
        agg = pref if not pref.empty else agg
    x = _pick_x(agg, axes)
    paths: list[Path] = []
    others = [a for a in axes if a != x and a in agg.columns and agg[a].dropna().nunique() > 1]
    categorical = x is not None and not pd.api.types.is_numeric_dtype(agg[x].dropna())
    cats: list[Any] = []
    if categorical:
        for a in exp.axes:
            if a["name"] == x:
                cats = list(a.get("values", []))
        for v in agg[x].dropna():
            if v not in cats:
                cats.append(v)
    pos = (lambda v: cats.index(v)) if categorical else (lambda v: v)
    for m in exp.metrics:
        name = m["name"]
        if name not in agg.columns or agg[name].isna().all():
            continue
        fig, ax = plt.subplots(figsize=(7, 4.5))
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        ci = 0
        group_keys = ["config"] + [o for o in others if o in agg.columns]
        for key, g in agg.groupby(group_keys, dropna=False, sort=False):
            key = key if isinstance(key, tuple) else (key,)
            lab = ", ".join([str(key[0])] + [f"{o}={v}" for o, v in zip(group_keys[1:], key[1:]) if v == v])
            color = colors[ci % len(colors)]
            ci += 1
            has_x = x is not None and x in g.columns and g[x].notna().any()
            if has_x:
                g = g[g[x].notna()]
                if not categorical:
                    g = g.sort_values(x)
                xs = [pos(v) for v in g[x]]
                ax.errorbar(xs, g[name], yerr=g[name + "_ci95"].fillna(0), marker="o", ms=3, capsize=2,
                            color=color, label=f"{lab} (ours)")
            else:
                ax.axhline(float(g[name].iloc[0]), color=color, ls="--", lw=1, label=f"{lab} (ours)")
            # paper values of this series
            px, py = [], []
            for pv in exp.paper_values:
                if pv.get("config") != key[0] or not isinstance(pv.get(name), (int, float)) or pv.get("analytic"):
                    continue
                if any(o in pv and pv[o] != v for o, v in zip(group_keys[1:], key[1:])):
                    continue
                if pv.get("running_average") and pv.get("time_s") not in (None, 100):
                    continue
                if has_x and x in pv:
                    px.append(pos(pv[x]))
                    py.append(pv[name])
                elif not has_x:
                    ax.axhline(float(pv[name]), color=color, ls=":", lw=1, label=f"{lab} (paper)")
            if px:
                ax.plot(px, py, ls="none", marker="s", mfc="none", color=color, label=f"{lab} (paper)")
        if x is not None:
            ax.set_xlabel(_unit(exp, x, "axis"))
            if categorical:
                ax.set_xticks(range(len(cats)), [str(c) for c in cats])
            else:
                vals = [v for v in agg[x].dropna() if isinstance(v, (int, float)) and v > 0]
                if vals and max(vals) / min(vals) > 20:
                    ax.set_xscale("log")
        else:
            ax.set_xticks([])
        ax.set_ylabel(_unit(exp, name, "metric"))
        ax.set_title(f"{exp.paper} {exp.id}: {name}" + (" [quick]" if quick else ""), fontsize=10)
        ax.grid(alpha=0.3)
        handles, labels = ax.get_legend_handles_labels()
        if len(labels) <= 24:
            ax.legend(fontsize=6, ncol=2 if len(labels) > 8 else 1)
        paths += save(fig, out_dir, name)
    return paths


def finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and math.isfinite(v)
