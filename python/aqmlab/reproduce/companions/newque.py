"""NEWQUE (Santhi & Natarajan ~2010): the paper prints no numbers, only Figs 3-16, so the
comparison is a check of its claims: per point of the axis, NEWQUE's rank among NEWQUE,
BLUE, RED, PI and REM for each metric (1 = lowest), and the stated thresholds (loss < 0.5 %,
utilization > 99 %). Checked for each reading of NEWQUE's steps 4-5 that was run, each ranked
against the four other AQMs only: `newque` (alpha and beta as printed) and `newque_swapped`
(step_reading = "swapped"; see aqm/newque.rs and docs/readings.md). The generic runner draws
the figures (metric vs flows / buffer, one line per AQM, CI95 bars) and the per-point table."""

from __future__ import annotations

import math
from typing import cast

import pandas as pd

from ..tables import df_markdown
from .base import CompanionOutput, Context, hook

FIGURES = {
    "dumbbell_flows": {
        "mean_queue_pkts": "Fig. 3",
        "queueing_delay_s": "Fig. 4",
        "loss_pct": "Fig. 6",
        "utilization_pct": "Fig. 8",
    },
    "dumbbell_buffer": {"queueing_delay_s": "Fig. 5", "loss_pct": "Fig. 7", "utilization_pct": "Fig. 9"},
    "parking_lot_flows": {"queueing_delay_s": "Fig. 11", "loss_pct": "Fig. 13", "utilization_pct": "Fig. 15"},
    "parking_lot_buffer": {"queueing_delay_s": "Fig. 12", "loss_pct": "Fig. 14", "utilization_pct": "Fig. 16"},
}
# what the paper claims for NEWQUE per metric: "lowest" or a threshold
CLAIMS = {"mean_queue_pkts": "lowest", "queueing_delay_s": "lowest", "loss_pct": "lowest"}


READINGS = ("newque", "newque_swapped")


def claim_table(ctx: Context) -> pd.DataFrame:
    agg = ctx.agg
    if agg.empty:
        return pd.DataFrame()
    x = "flows" if "flows" in agg.columns and agg["flows"].nunique() > 1 else "buffer"
    rows = []
    for reading in READINGS:
        for xv, g in agg.groupby(x, sort=True):
            for m in [mm["name"] for mm in ctx.exp.metrics]:
                if m not in g.columns:
                    continue
                vals = g.set_index("config")[m]
                if reading not in vals.index:
                    continue
                nq = float(vals[reading])
                others = vals.drop([r for r in READINGS if r in vals.index])
                rank = int((others < nq).sum()) + 1
                row = {
                    "reading": reading,
                    x: xv,
                    "metric": m,
                    "figure": FIGURES.get(ctx.exp.id, {}).get(m, ""),
                    "newque": nq,
                    "best other": f"{others.idxmin()} {others.min():.4g}" if len(others) else "",
                    f"newque rank (1 = lowest of {len(others) + 1})": rank,
                }
                if m in CLAIMS:
                    row["paper"] = "NEWQUE lowest"
                    row["holds"] = rank == 1
                elif m == "utilization_pct":
                    row["paper"] = "> 99 %" + (" from 150 flows" if x == "flows" else "")
                    row["holds"] = (nq > 99.0) if (x != "flows" or cast(int, xv) >= 150) else None  # a flow count
                if m == "loss_pct":
                    row["paper"] = "NEWQUE lowest, < 0.5 %" if x == "flows" else "NEWQUE lowest"
                    row["holds"] = rank == 1 and (nq < 0.5 if x == "flows" else True)
                rows.append(row)
    return pd.DataFrame(rows)


def _hook(ctx: Context) -> CompanionOutput:
    t = claim_table(ctx)
    md = ["## The paper's claims, checked point by point (the paper prints no numbers)", ""]
    if t.empty:
        md.append("(no runs)")
    else:
        t.to_csv(ctx.out_dir / "claims.csv", index=False)
        for reading, g in t.groupby("reading", sort=False):
            held = g["holds"].dropna()
            md.append(f"- {reading}: claims holding in {int(held.sum())} of {len(held)} checked cells.")
        md += ["", df_markdown(t)]
        for reading in READINGS:
            if not ctx.agg.empty and reading in set(ctx.agg["config"]):
                nq = ctx.agg[ctx.agg["config"] == reading]
                if "mean_queue_pkts" in nq.columns and nq["mean_queue_pkts"].notna().any():
                    md += [
                        "",
                        f"{reading}: mean queue per point: "
                        + ", ".join(f"{v:.0f}" for v in nq["mean_queue_pkts"])
                        + " packets.",
                    ]
        md += [
            "",
            "Paper figures: "
            + ", ".join(f"{m} = {f}" for m, f in FIGURES.get(ctx.exp.id, {}).items())
            + " (figures/<metric>.png|svg).",
        ]
    return CompanionOutput(markdown="\n".join(md), values={"claims": t}, scenario_pref=None, table=None)


for _e in FIGURES:
    hook("newque", _e)(_hook)


def finite(v: object) -> bool:
    return isinstance(v, (int, float)) and math.isfinite(v)
