"""Aggregation per (configuration, point) and the paper-layout comparison table.

One job: from per-run metric values to ``table.csv`` / ``table.md``. Rows follow the
paper's own rows (``paper_values`` in file order) with our mean ± CI95 and the difference
next to each printed number; the configurations/points the paper did not print follow.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from pathlib import Path
from typing import Any, cast

import pandas as pd

from ..sweep.aggregate import summarize
from . import metrics as M
from .spec import Experiment

ROW_META = ("config", "label", "source", "note", "analytic", "approximate", "time_s", "running_average")


def per_run_metrics(runs: pd.DataFrame, exp: Experiment) -> pd.DataFrame:
    """Adds one column per paper metric (computed by the registry) to the runs table."""
    link = exp.report_links[0]
    df = runs.copy()
    for m in exp.metrics:
        name = m["name"]
        df[name] = [M.compute(name, r, link) for r in _records(df)] if len(df) else []
    return df


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of ``df`` as dicts (a runs table has string column names)."""
    return cast("list[dict[str, Any]]", df.to_dict("records"))


def aggregate(df: pd.DataFrame, exp: Experiment, axes: list[str]) -> pd.DataFrame:
    """One row per (config, point): <metric>, <metric>_ci95, <metric>_n."""
    if df.empty:
        return pd.DataFrame()
    keys = ["config", "scenario_file"] + [a for a in axes if a in df.columns]
    rows = []
    for k, g in df.groupby(keys, dropna=False, sort=False):
        row = dict(zip(keys, k if isinstance(k, tuple) else (k,), strict=True))
        for m in exp.metrics:
            s = summarize(g[m["name"]].to_numpy(dtype=float))
            row[m["name"]] = s["mean"]
            row[m["name"] + "_ci95"] = s["ci95_half_width"]
            row[m["name"] + "_n"] = s["n"]
        rows.append(row)
    return pd.DataFrame(rows)


def fmt(v: Any, digits: int = 4) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        if not math.isfinite(v):
            return "n/a"
        if abs(v) >= 1e5:
            return f"{v:.0f}"
        if v != 0 and abs(v) < 1e-3:
            return f"{v:.3g}"
        return f"{v:.{digits}g}" if abs(v) < 10 else f"{v:.{max(digits - 2, 1)}f}" if abs(v) < 1000 else f"{v:.1f}"
    return str(v)


def _match(agg: pd.DataFrame, pv: dict[str, Any], axes: list[str], scenario_pref: str | None) -> pd.Series | None:
    if agg.empty or "config" not in pv:
        return None
    sel = agg["config"] == pv["config"]
    for a in axes:
        if a in pv and a in agg.columns:
            sel &= agg[a] == pv[a]
    hit = agg[sel]
    if hit.empty:
        return None
    if len(hit) > 1 and scenario_pref:
        pref = hit[hit["scenario_file"].str.contains(scenario_pref, regex=False)]
        if not pref.empty:
            hit = pref
    first: pd.Series = hit.iloc[0]
    return first


def comparison(
    exp: Experiment,
    agg: pd.DataFrame,
    axes: list[str],
    scenario_pref: str | None = None,
    extra_rows: list[dict[str, Any]] | None = None,
) -> pd.DataFrame:
    """The paper-layout table: for each paper row, the axes, and per metric: paper, ours
    (mean), ci95 (half width), n, diff (ours - paper)."""
    metric_names = [m["name"] for m in exp.metrics]
    out = []
    used: set[Hashable] = set()  # index labels of the rows of agg matched to a paper row
    for pv in exp.paper_values:
        row: dict[str, Any] = {
            "row": pv.get("label") or pv.get("config", ""),
            "config": pv.get("config", ""),
            "source": pv.get("source", ""),
        }
        for a in axes:
            row[a] = pv.get(a)
        if pv.get("time_s") is not None:
            row["at_time_s"] = pv.get("time_s")
        hit = None if pv.get("analytic") else _match(agg, pv, axes, scenario_pref)
        if hit is not None:
            used.add(hit.name)
        # A value "at time t" is only comparable with our whole-run average when t is the
        # end of the run.
        comparable = hit is not None and (pv.get("time_s") in (None, 100) or not pv.get("running_average"))
        for m in metric_names:
            pval = pv.get(m)
            row[f"{m}:paper"] = pval
            ours = hit[m] if comparable and hit is not None and m in hit else math.nan
            ci = hit[m + "_ci95"] if comparable and hit is not None and m + "_ci95" in hit else math.nan
            row[f"{m}:ours"] = ours
            row[f"{m}:ci95"] = ci
            row[f"{m}:diff"] = (
                (ours - pval)
                if isinstance(pval, (int, float)) and not isinstance(pval, bool) and math.isfinite(ours)
                else math.nan
            )
        out.append(row)
    # Our rows the paper did not print.
    if not agg.empty:
        for i, r in agg.iterrows():
            if i in used:
                continue
            row = {"row": "(not in paper)", "config": r["config"], "source": r.get("scenario_file", "")}
            for a in axes:
                row[a] = r.get(a)
            for m in metric_names:
                row[f"{m}:paper"] = None
                row[f"{m}:ours"] = r.get(m, math.nan)
                row[f"{m}:ci95"] = r.get(m + "_ci95", math.nan)
                row[f"{m}:diff"] = math.nan
            out.append(row)
    for extra in extra_rows or []:
        out.append(extra)
    return pd.DataFrame(out)


def to_markdown(table: pd.DataFrame, exp: Experiment, axes: list[str]) -> str:
    """Markdown with one column per metric: "paper | ours ± ci | diff"."""
    metric_names = [m["name"] for m in exp.metrics]
    present_axes = [a for a in axes if a in table.columns and table[a].notna().any()]
    head = ["row", "config", "source"] + present_axes
    if "at_time_s" in table.columns:
        head.append("at_time_s")
    cols = head + [f"{m} paper" for m in metric_names for _ in (0,)]
    lines = []
    header = head[:]
    for m in metric_names:
        header += [f"{m} (paper)", f"{m} (ours ± CI95)", "diff"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for _, r in table.iterrows():
        cells = ["" if isinstance(v, float) and math.isnan(v) else fmt(v) for v in (r.get(h) for h in head)]
        for m in metric_names:
            p = r.get(f"{m}:paper")
            o = r.get(f"{m}:ours")
            c = r.get(f"{m}:ci95")
            d = r.get(f"{m}:diff")
            ptxt = "" if p is None or (isinstance(p, float) and math.isnan(p)) else fmt(p)
            if isinstance(o, float) and math.isnan(o):
                otxt = "" if ptxt == "" else "n/a"
            else:
                otxt = fmt(o) + (f" ± {fmt(c, 2)}" if isinstance(c, float) and math.isfinite(c) else "")
            dtxt = fmt(d) if isinstance(d, float) and math.isfinite(d) else ""
            cells += [ptxt, otxt, dtxt]
        lines.append("| " + " | ".join(cells) + " |")
    del cols
    return "\n".join(lines) + "\n"


def write(table: pd.DataFrame, md: str, out: Path, stem: str = "table") -> None:
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / f"{stem}.csv", index=False)
    (out / f"{stem}.md").write_text(md, encoding="utf-8")


def df_markdown(df: pd.DataFrame, digits: int = 4) -> str:
    """A DataFrame as a Markdown table (no tabulate dependency)."""
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, r in df.iterrows():
        lines.append(
            "| " + " | ".join(fmt(v, digits) if not isinstance(v, bool) else str(v) for v in r.tolist()) + " |"
        )
    return "\n".join(lines)
