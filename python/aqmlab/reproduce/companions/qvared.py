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
from ..tables import df_markdown
from .base import CompanionOutput, Context, hook
from .hybrid_red import stats

BURSTY_GROUP = "bursty"
TRACE_INTERVAL = "100ms"


# --------------------------------------------------------------------------- bias (Fig. 9)
def bias_from_flows(flows: pd.DataFrame, bursty_group: str = BURSTY_GROUP) -> dict[str, float]:
    """Bias against bursty traffic from a per-flow table (columns group, goodput_bps, drops,
    marks_received, packets_received).

    ``x.bias``, the paper's measure (Section IV, Fig. 9 text: "marking rate (actual rate) and
    idle rate (fair rate) ... the proportion of them. The more this ratio increase, the more
    stable"): the bursty flow's goodput over its fair rate, the total goodput divided equally
    among the flows. 1 = an equal share, below 1 = less; higher is better, as the paper says.

    ``x.bias_fj``, Floyd & Jacobson 1993's measure, for reference: the bursty flow's share of
    the congestion signals (drops + ECN marks) over its share of the delivered packets. 1 =
    unbiased, above 1 = biased against it (lower is better); NaN without any signal."""
    nan = {"x.bias": math.nan, "x.bias_fj": math.nan}
    if flows is None or len(flows) == 0 or "group" not in flows.columns:
        return nan
    b = flows["group"] == bursty_group
    good = flows["goodput_bps"].astype(float)
    fair = float(good.sum()) / len(flows)
    actual = float(good[b].sum()) / max(int(b.sum()), 1)
    bias = actual / fair if fair > 0 and b.any() else math.nan
    sig = flows["drops"].astype(float) + flows.get("marks_received", 0 * flows["drops"]).astype(float)
    thr = flows["packets_received"].astype(float)
    tot_sig, tot_thr = float(sig.sum()), float(thr.sum())
    share_sig = float(sig[b].sum()) / tot_sig if tot_sig > 0 else math.nan
    share_thr = float(thr[b].sum()) / tot_thr if tot_thr > 0 else math.nan
    fj = share_sig / share_thr if share_thr and math.isfinite(share_sig) and share_thr > 0 else math.nan
    return {
        "x.bias": bias,
        "x.bias_fj": fj,
        "x.bias.actual_bps": actual,
        "x.bias.fair_bps": fair,
        "x.bias.signal_share": share_sig,
        "x.bias.throughput_share": share_thr,
        "x.bias.signals": tot_sig,
        "x.bias.bursty_signals": float(sig[b].sum()),
    }


def run_with_bias(scenario: dict[str, Any], seed: int) -> dict[str, Any]:
    """The summary and extras of the default run function (:func:`aqmlab.reproduce.runfn.run`)
    plus :func:`bias_from_flows` (run function of the bias experiment)."""
    import aqmlab

    from ..runfn import extras

    r = aqmlab.run(scenario, seed=seed)
    s = dict(r.summary)
    s.update(extras(r))
    s.update(bias_from_flows(r.flows))
    return s


# --------------------------------------------------------------------------- Figs 6-7 text values
SETTINGS = (("", "with ECN (one rule: ns-2's mark_p)"), ("_noecn", "without ECN"))
# Issue 24: the paper's RED and ARED are non-gentle (Fig. 1, sec. II-A/B): the configurations
# red / ared; the gentle ones (ns-2's default, the only baseline before issue 24) are
# red_gentle / ared_gentle. The reductions are given against both.
BASELINES = (
    ("", "non-gentle RED / ARED (the paper's, Fig. 1)"),
    ("_gentle", "gentle RED / ARED (ns-2's default; before issue 24)"),
)


def reductions(ctx: Context) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Drop (and drop + mark) reductions of QVARED vs RED and ARED, with ECN (configurations
    red, ared, qvared) and without (red_noecn, ...), against each baseline of ``BASELINES``
    (red / ared, the paper's non-gentle ones, and red_gentle / ared_gentle): per number of
    sources, and over the whole axis (1 - sum of QVARED's mean drops / sum of the other's),
    with a 95 % interval from the replications (each replication's sums; the axis points
    share the replication index). A baseline that did not run is left out."""
    runs = ctx.runs
    if runs.empty:
        return pd.DataFrame(), pd.DataFrame()
    runs = runs.assign(signals=runs["dropped_packets"] + runs["marked_packets"])
    means = runs.groupby(["config", "sources"])[["dropped_packets", "marked_packets", "signals"]].mean()
    ran = set(runs["config"])
    baselines = [(v, label) for v, label in BASELINES if f"red{v}" in ran or f"ared{v}" in ran]
    per = []
    for suffix, setting in SETTINGS:
        for n in sorted(runs["sources"].unique()):
            row: dict[str, Any] = {"setting": setting, "sources": n}
            others = [f"{o}{v}" for v, _ in baselines for o in ("red", "ared")]
            for cfg in (*others, "qvared"):
                for m in ("dropped_packets", "marked_packets"):
                    key = (cfg + suffix, n)
                    row[f"{cfg} {m}"] = means.loc[key, m] if key in means.index else math.nan
            for other in others:
                d_o, d_q = row[f"{other} dropped_packets"], row["qvared dropped_packets"]
                row[f"drop reduction vs {other} %"] = 100 * (1 - d_q / d_o) if d_o > 0 else math.nan
            if not all(math.isnan(row[f"{c} dropped_packets"]) for c in (*others, "qvared")):
                per.append(row)
    per_df = pd.DataFrame(per)

    def summed(cfg: str, m: str) -> tuple[float, np.ndarray]:
        sel = runs[runs["config"] == cfg]
        if sel.empty:
            return math.nan, np.array([])
        by_rep = sel.groupby("replication")[m].sum().to_numpy(dtype=float) if "replication" in sel else np.array([])
        return float(sel.groupby("sources")[m].mean().sum()), by_rep

    rows = []
    for variant, baseline in baselines:
        for suffix, setting in SETTINGS:
            for pv in ctx.exp.paper_values:
                claim = pv.get("claim", "")
                other = ("red" if claim.endswith("RED") and "ARED" not in claim else "ared") + variant
                row = {
                    "baseline": baseline,
                    "setting": setting,
                    "source": pv.get("source"),
                    "claim": claim,
                    "paper %": pv.get("value_pct"),
                }
                for m, col in (
                    ("dropped_packets", "ours % (dropped packets, summed over the sources axis)"),
                    ("signals", "ours % (dropped + marked)"),
                ):
                    tq, rq = summed("qvared" + suffix, m)
                    to, ro = summed(other + suffix, m)
                    row[col] = 100 * (1 - tq / to) if to > 0 else math.nan
                    if len(rq) > 1 and len(rq) == len(ro) and (ro > 0).all():
                        st = stats(100 * (1 - rq / ro))
                        row[col + " CI95"] = st["ci95"]
                row["diff (drops)"] = row["ours % (dropped packets, summed over the sources axis)"] - pv.get(
                    "value_pct", math.nan
                )
                if not math.isnan(row["ours % (dropped packets, summed over the sources axis)"]):
                    rows.append(row)
    return pd.DataFrame(rows), per_df


@hook("qvared", "sources")
def sources(ctx: Context) -> CompanionOutput:
    table, per = reductions(ctx)
    md = [
        "## The text's drop-rate reductions (Fig. 7b), paper vs ours",
        "",
        (
            "The paper gives no number for a single point; we compare 1 - (QVARED's drops summed over the sources axis) / "
            "(RED's or ARED's), with ECN (one rule for all three: ns-2's, an early decision marks only while p_b < mark_p "
            "= 0.1, the forced region drops) and without ECN. With ECN most congestion signals can be marks, so the "
            "drop + mark reduction is given too. CI95 over replications (each replication's sums over the axis). "
            "Two baselines: the paper's RED and ARED, non-gentle (Fig. 1: every packet marked once avg passes max_th = "
            "80, where QVARED's forced region starts too), and the gentle ones of ns-2's default (forced from 2 max_th "
            "= 160 = the buffer), the reproduction's only baseline before issue 24. QVARED's count correction is the "
            "paper's p_a = p_b / (1 - count p_b), without ns-2's wait; RED and ARED keep ns-2's wait."
        ),
        "",
    ]
    if not table.empty:
        md += [df_markdown(table), "", "### Per number of sources (means over replications)", "", df_markdown(per)]
        per.to_csv(ctx.out_dir / "per_sources.csv", index=False)
    if not ctx.agg.empty:
        ctx.agg.to_csv(ctx.out_dir / "series.csv", index=False)
    return CompanionOutput(
        markdown="\n".join(md),
        table=table if not table.empty else None,
        table_md=df_markdown(table) + "\n" if not table.empty else None,
        values={"reductions": table, "per_sources": per},
    )


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
        ts, avg = F.plot_queue_and_avg(ax, aqmlab.run(scen, seed=1), link, queue_lw=0.6, avg_lw=1.2)
        for y in (20, 50, 80):
            ax.axhline(y, color="k", ls=":", lw=0.7)
        ax.set_title(f"Fig. 8: {s.config}" + (" [quick]" if ctx.quick else ""), fontsize=9)
        ax.set_ylabel("avg queue (packets)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper right")
        a = avg["value"].to_numpy(dtype=float)
        times = avg["time_s"].to_numpy(dtype=float)
        late = times >= 10.0
        mp = ts[ts["variable"] == "max_p"]["value"].to_numpy(dtype=float)
        rows.append(
            {
                "config": s.config,
                "avg mean (t >= 10 s)": float(a[late].mean()) if late.any() else math.nan,
                "avg std (t >= 10 s)": float(a[late].std()) if late.any() else math.nan,
                "avg mean |change| per 100 ms": float(np.abs(np.diff(a[late])).mean()) if late.sum() > 1 else math.nan,
                "max_p final": float(mp[-1]) if len(mp) else math.nan,
            }
        )
    axs[-1, 0].set_xlabel("time (s)")
    figs = F.save(fig, ctx.out_dir / "figures", "fig8_avg_ared_qvared")
    t = pd.DataFrame(rows)
    md = [
        "## Fig. 8: avg of ARED and QVARED (one traced run each, seed 1)",
        "",
        df_markdown(t) if len(t) else "(no runs)",
    ]
    return CompanionOutput(
        markdown="\n".join(md),
        figures=figs,
        table=t,
        table_md=df_markdown(t) + "\n",
        replaces_table=True,
        values={"trace_stats": t},
    )


# --------------------------------------------------------------------------- Fig. 9
@hook("qvared", "bias")
@hook("qvared", "bias_many_flows")
def bias_hook(ctx: Context) -> CompanionOutput:
    runs = ctx.runs
    if runs.empty:
        return CompanionOutput(markdown="(no runs)")
    rows = []
    means: dict[str, float] = {}
    for c in ("droptail", "red", "ared", "red_gentle", "ared_gentle", "qvared"):
        g = runs[runs["config"] == c]
        if g.empty:
            continue
        per_buffer = g.groupby("buffer")["bias"].mean().to_numpy(dtype=float)
        st = stats(g["bias"].to_numpy(dtype=float))
        fj = g["bias_fj"].to_numpy(dtype=float) if "bias_fj" in g else np.array([math.nan])
        fj = fj[np.isfinite(fj)]
        means[c] = float(per_buffer.mean())
        rows.append(
            {
                "row": f"{c}: bias averaged over the buffer axis",
                "paper": 0.871 if c == "qvared" else None,
                "ours": means[c],
                "ci95 (over runs)": st["ci95"],
                "spread over buffers (std)": float(per_buffer.std()),
                "F&J measure (mean of defined runs)": float(fj.mean()) if len(fj) else math.nan,
            }
        )
    dt, qv = means.get("droptail", math.nan), means.get("qvared", math.nan)
    gain = 100 * (qv / dt - 1) if dt and math.isfinite(dt) and dt > 0 else math.nan
    rows.append(
        {
            "row": "QVARED's bias ratio above DropTail's (%), the paper's 'reduces a bias effect over 18 %'",
            "paper": ">= 18",
            "ours": gain,
            "ci95 (over runs)": math.nan,
            "spread over buffers (std)": math.nan,
            "F&J measure (mean of defined runs)": math.nan,
        }
    )
    table = pd.DataFrame(rows)
    md = [
        "## Fig. 9: bias against bursty traffic (the paper's ratio: actual rate / fair rate; higher is better)",
        "",
        (
            "bias = the bursty flow's goodput / (total goodput / number of flows), per run; 1 = an equal share. The "
            "paper: 'the more this ratio increase, the more stable'. The table averages over the buffer axis (paper: "
            "'QVARED's average bias is about 0.871'). Floyd & Jacobson's measure (share of drops + marks / share of "
            "packets; 1 = unbiased, lower is better) is given for reference; it is undefined where a queue never "
            "signals (DropTail with a buffer that never fills)."
        ),
        "",
        df_markdown(table),
    ]
    if "x.bias.signals" in runs.columns:
        lo = runs.groupby("config")["x.bias.signals"].min()
        md += [
            "",
            "Fewest congestion signals in one run per configuration: "
            + ", ".join(f"{c} {int(v)}" for c, v in lo.items()),
        ]
    return CompanionOutput(
        markdown="\n".join(md),
        table=table,
        table_md=df_markdown(table) + "\n",
        values={"bias_table": table, "gain_vs_droptail_pct": gain},
    )
