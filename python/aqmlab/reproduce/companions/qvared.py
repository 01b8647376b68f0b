"""QVARED (Seol & Lee 2008): the text's drop-rate reductions (Figs 6-7), the avg traces of ARED
and QVARED (Fig. 8, traced runs) and the bias against bursty traffic (Fig. 9).

The bias needs per-flow data, which the sweep store does not keep: :func:`run_with_bias` is the
bias experiment's run function (``run_fn`` in papers/qvared.toml). It is module-level so it
pickles into the sweep's worker processes, and adds ``x.bias`` (and its parts) to the summary.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import pandas as pd

from .. import figures as F
from ..runfn import run as _base_run
from ..tables import df_markdown
from . import CompanionOutput, Context, hook
from .hybrid_red import stats

BURSTY_GROUP = "bursty"
TRACE_INTERVAL = "100ms"


# --------------------------------------------------------------------------- bias (Fig. 9)
def bias_from_flows(flows: pd.DataFrame, bursty_group: str = BURSTY_GROUP) -> dict[str, float]:
    """Floyd & Jacobson's bias against bursty traffic from a per-flow table (columns group,
    drops, marks_received, packets_received): the bursty group's share of the congestion
    signals (drops + ECN marks) divided by its share of the delivered packets. 1 = unbiased,
    > 1 = the bursty flow gets more than its share of the signals. NaN without signals."""
    if flows is None or len(flows) == 0 or "group" not in flows.columns:
        return {"x.bias": math.nan}
    sig = flows["drops"].astype(float) + flows.get("marks_received", 0 * flows["drops"]).astype(float)
    thr = flows["packets_received"].astype(float)
    b = flows["group"] == bursty_group
    tot_sig, tot_thr = float(sig.sum()), float(thr.sum())
    share_sig = float(sig[b].sum()) / tot_sig if tot_sig > 0 else math.nan
    share_thr = float(thr[b].sum()) / tot_thr if tot_thr > 0 else math.nan
    bias = share_sig / share_thr if share_thr and math.isfinite(share_sig) and share_thr > 0 else math.nan
    return {"x.bias": bias, "x.bias.signal_share": share_sig, "x.bias.throughput_share": share_thr,
            "x.bias.signals": tot_sig, "x.bias.bursty_signals": float(sig[b].sum())}


def run_with_bias(scenario: dict, seed: int) -> dict[str, Any]:
    """The default run function's summary plus :func:`bias_from_flows` (run function of the
    bias experiment)."""
    import aqmlab

    from ..runfn import extras

    r = aqmlab.run(scenario, seed=seed)
    s = dict(r.summary)
    s.update(extras(r))
    s.update(bias_from_flows(r.flows))
    return s


assert _base_run  # the default run function this one extends


# --------------------------------------------------------------------------- Figs 6-7 text values
def reductions(ctx: Context) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Drop (and drop + mark) reductions of QVARED vs RED and ARED: per number of sources, and
    over the whole axis (1 - sum of QVARED's mean drops / sum of the other's)."""
    runs = ctx.runs
    if runs.empty:
        return pd.DataFrame(), pd.DataFrame()
    runs = runs.assign(signals=runs["dropped_packets"] + runs["marked_packets"])
    means = runs.groupby(["config", "sources"])[["dropped_packets", "marked_packets", "signals"]].mean()
    per = []
    for n in sorted(runs["sources"].unique()):
        row = {"sources": n}
        for cfg in ("red", "ared", "qvared"):
            for m in ("dropped_packets", "marked_packets"):
                row[f"{cfg} {m}"] = means.loc[(cfg, n), m] if (cfg, n) in means.index else math.nan
        for other in ("red", "ared"):
            d_o, d_q = row[f"{other} dropped_packets"], row["qvared dropped_packets"]
            row[f"drop reduction vs {other} %"] = 100 * (1 - d_q / d_o) if d_o > 0 else math.nan
        per.append(row)
    per_df = pd.DataFrame(per)
    tot = {}
    for cfg in ("red", "ared", "qvared"):
        sel = means.loc[cfg] if cfg in means.index.get_level_values(0) else None
        tot[cfg] = {m: float(sel[m].sum()) if sel is not None else math.nan for m in ("dropped_packets", "signals")}
    rows = []
    for pv in ctx.exp.paper_values:
        other = "red" if pv.get("claim", "").endswith("RED") and "ARED" not in pv.get("claim", "") else "ared"
        ours = 100 * (1 - tot["qvared"]["dropped_packets"] / tot[other]["dropped_packets"]) if tot[other]["dropped_packets"] > 0 else math.nan
        ours_sig = 100 * (1 - tot["qvared"]["signals"] / tot[other]["signals"]) if tot[other]["signals"] > 0 else math.nan
        rows.append({"source": pv.get("source"), "claim": pv.get("claim"), "paper %": pv.get("value_pct"),
                     "ours % (dropped packets, summed over the sources axis)": ours,
                     "ours % (dropped + marked)": ours_sig, "diff (drops)": ours - pv.get("value_pct", math.nan)})
    return pd.DataFrame(rows), per_df


@hook("qvared", "sources")
def sources(ctx: Context) -> CompanionOutput:
    table, per = reductions(ctx)
    md = ["## The text's drop-rate reductions (Fig. 7b), paper vs ours", "",
          ("The paper gives no number for a single point; we compare 1 - (QVARED's drops summed over the sources axis) / "
          "(RED's or ARED's). With ECN most congestion signals are marks, so the drop + mark reduction is given too."), ""]
    if not table.empty:
        md += [df_markdown(table), "", "### Per number of sources (means over replications)", "", df_markdown(per)]
        per.to_csv(ctx.out_dir / "per_sources.csv", index=False)
    if not ctx.agg.empty:
        ctx.agg.to_csv(ctx.out_dir / "series.csv", index=False)
    return CompanionOutput(markdown="\n".join(md), table=table if not table.empty else None,
                           table_md=df_markdown(table) + "\n" if not table.empty else None,
                           values={"reductions": table, "per_sources": per})


# --------------------------------------------------------------------------- Fig. 8
@hook("qvared", "avg_trace")
def avg_trace(ctx: Context) -> CompanionOutput:
    """Re-runs each configuration once (seed 1) with avg sampled every 100 ms."""
    import matplotlib.pyplot as plt

    import aqmlab

    link = ctx.exp.report_links[0]
    specs = ctx.specs
    fig, axs = plt.subplots(len(specs), 1, figsize=(7, 2.6 * max(len(specs), 1)), sharex=True, squeeze=False)
    rows = []
    for ax, s in zip(axs[:, 0], specs, strict=True):
        scen = copy.deepcopy(s.scenario)
        scen["sample_interval"] = TRACE_INTERVAL
        scen["sample_flows"] = False
        r = aqmlab.run(scen, seed=1)
        ts = r.timeseries
        ts = ts[ts["source"] == link]
        avg = ts[ts["variable"] == "avg"].sort_values("time_s")
        q = ts[ts["variable"] == "queue_packets"].sort_values("time_s")
        ax.plot(q["time_s"], q["value"], color="0.75", lw=0.6, label="queue")
        ax.plot(avg["time_s"], avg["value"], color="C0", lw=1.2, label="avg")
        for y in (20, 50, 80):
            ax.axhline(y, color="k", ls=":", lw=0.7)
        ax.set_title(f"Fig. 8: {s.config}" + (" [quick]" if ctx.quick else ""), fontsize=9)
        ax.set_ylabel("avg queue (packets)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper right")
        a = avg["value"].to_numpy(dtype=float)
        t = avg["time_s"].to_numpy(dtype=float)
        late = t >= 10.0
        mp = ts[ts["variable"] == "max_p"]["value"].to_numpy(dtype=float)
        rows.append({"config": s.config, "avg mean (t >= 10 s)": float(a[late].mean()) if late.any() else math.nan,
                     "avg std (t >= 10 s)": float(a[late].std()) if late.any() else math.nan,
                     "avg mean |change| per 100 ms": float(np.abs(np.diff(a[late])).mean()) if late.sum() > 1 else math.nan,
                     "max_p final": float(mp[-1]) if len(mp) else math.nan})
    axs[-1, 0].set_xlabel("time (s)")
    figs = F.save(fig, ctx.out_dir / "figures", "fig8_avg_ared_qvared")
    t = pd.DataFrame(rows)
    md = ["## Fig. 8: avg of ARED and QVARED (one traced run each, seed 1)", "", df_markdown(t) if len(t) else "(no runs)"]
    return CompanionOutput(markdown="\n".join(md), figures=figs, table=t, table_md=df_markdown(t) + "\n",
                           replaces_table=True, values={"trace_stats": t})


# --------------------------------------------------------------------------- Fig. 9
@hook("qvared", "bias")
def bias_hook(ctx: Context) -> CompanionOutput:
    runs = ctx.runs
    if runs.empty:
        return CompanionOutput(markdown="(no runs)")
    per_cfg = {c: stats(g.groupby("buffer")["bias"].mean().to_numpy(dtype=float)) for c, g in runs.groupby("config")}
    rows = []
    for c in ("droptail", "red", "ared", "qvared"):
        if c in per_cfg:
            run_stats = stats(runs[runs["config"] == c]["bias"].to_numpy(dtype=float))
            rows.append({"row": f"{c}: bias averaged over the buffer axis", "paper": 0.871 if c == "qvared" else None,
                         "ours": per_cfg[c]["mean"], "ci95 (over runs)": run_stats["ci95"],
                         "spread over buffers (std)": per_cfg[c]["std"]})
    dt, qv = per_cfg.get("droptail", {}).get("mean", math.nan), per_cfg.get("qvared", {}).get("mean", math.nan)
    red_pct = 100 * (1 - qv / dt) if dt and math.isfinite(dt) and dt != 0 else math.nan
    rows.append({"row": "QVARED's bias reduction vs DropTail (%)", "paper": ">= 18", "ours": red_pct,
                 "ci95 (over runs)": math.nan, "spread over buffers (std)": math.nan})
    table = pd.DataFrame(rows)
    md = ["## Fig. 9: bias against bursty traffic (Floyd & Jacobson's measure, 1 = unbiased)", "",
          ("bias = (bursty flow's share of drops + ECN marks) / (its share of delivered packets), per run; the table "
          "averages over the buffer axis (paper: 'QVARED's average bias is about 0.871'). Closer to 1 = less biased."), "",
          df_markdown(table)]
    if "x.bias.signals" in runs.columns:
        lo = runs.groupby("config")["x.bias.signals"].min()
        md += ["", "Fewest congestion signals in one run per configuration (bias is noisy when this is small): "
               + ", ".join(f"{c} {int(v)}" for c, v in lo.items())]
    return CompanionOutput(markdown="\n".join(md), table=table, table_md=df_markdown(table) + "\n",
                           values={"bias_table": table, "reduction_pct": red_pct})
