"""Hybrid RED (Haider & Harris 2008): Tables I-II in the paper's layout (mean and "error" over
the replications), Figs 15-18 (loss and utilization vs xi, one curve per theta), and the avg
traces of Figs 7-14 from separately traced runs (the table runs are not sampled: 7600 runs).
The three readings of how often eq. 10 reduces avg are shown: the default (`hybrid_red`,
`lpf_oda`: once per low period) and, where run, the variants (`hybrid_red_every_theta`,
`lpf_oda_every_theta`: at every theta-th low arrival; `hybrid_red_while_above_min_th`: at every
low arrival from the theta-th on while avg > min_th), in Figs 15-18 and side by side in a table.

The paper's "error" (Delta eta, Delta delta) is not defined; we print the standard deviation
over the replications (what its sizes suggest, see papers/hybrid_red.toml) and, separately,
the 95 % CI half width of the mean.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from ...sweep.aggregate import summarize
from .. import figures as F
from ..tables import df_markdown, fmt
from .base import CompanionOutput, Context, hook

FIGS = {"topology1": ("Fig. 15", "Fig. 16"), "topology2": ("Fig. 17", "Fig. 18")}
BASELINES = ("red", "ared", "lpf_oda")
# (configuration, title, LPF/ODA of the same reading, if run)
READINGS: tuple[tuple[str, str, str | None], ...] = (
    ("hybrid_red", "avg reduced once per low period (default)", "lpf_oda"),
    ("hybrid_red_every_theta", "variant: avg reduced at every theta-th low arrival", "lpf_oda_every_theta"),
    (
        "hybrid_red_while_above_min_th",
        "variant: avg reduced at every low arrival from the theta-th on while avg > min_th",
        None,
    ),
)
METRICS = (("utilization_pct", "utilization_err_pct", "eta (%)"), ("loss_pct", "loss_err_pct", "delta (%)"))
TRACE_INTERVAL = "10ms"


def _select(runs: pd.DataFrame, config: str, point: dict[str, Any]) -> pd.DataFrame:
    sel = runs["config"] == config
    for k, v in point.items():
        if k in runs.columns:
            sel &= runs[k].apply(lambda x, v=v: F.same_value(x, v))
    return runs[sel]


def stats(values: np.ndarray) -> dict[str, float]:
    """mean, std (ddof 1), CI95 half width (t), n of the finite values: the sweep's
    :func:`~aqmlab.sweep.aggregate.summarize` (order-independent), under the names the
    companions use."""
    s = summarize(values)
    return {"mean": s["mean"], "std": s["std"], "ci95": s["ci95_half_width"], "n": s["n"]}


def _table_row(head: Mapping[str, Any], sel: pd.DataFrame, pv: Mapping[str, Any]) -> dict[str, Any]:
    """A table row: ``head`` (table, algorithm, theta, xi), then per metric the paper's value
    from ``pv`` (empty for a row the paper did not print), ours over the runs ``sel`` and the
    difference, and the runs counted."""
    row = dict(head)
    for m, err, _ in METRICS:
        s = stats(sel[m].to_numpy(dtype=float)) if len(sel) else stats(np.array([]))
        row[f"{m}:paper"] = pv.get(m)
        row[f"{m}:ours"] = s["mean"]
        row[f"{m}:ci95"] = s["ci95"]
        row[f"{m}:diff"] = s["mean"] - pv[m] if pv.get(m) is not None else math.nan
        row[f"{err}:paper"] = pv.get(err)
        row[f"{err}:ours_std"] = s["std"]
    row["n"] = len(sel)
    return row


def paper_table(ctx: Context) -> pd.DataFrame:
    """One row per printed paper row (Table I: RED, ARED, LPF/ODA; Table II: theta 1, xi 1.1..1.5)
    with paper and ours side by side, then our Hybrid RED rows the paper did not print."""
    rows = []
    runs = ctx.runs
    done: set[tuple[object, ...]] = set()
    for pv in ctx.exp.paper_values:
        point: dict[str, Any] = {k: pv[k] for k in ("theta", "xi") if k in pv}
        sel = _select(runs, pv["config"], point) if not runs.empty else runs
        head = {
            "table": pv.get("source", ""),
            "algorithm": pv.get("label") or "Hybrid RED",
            "theta": point.get("theta"),
            "xi": point.get("xi"),
        }
        rows.append(_table_row(head, sel, pv))
        done.add((pv["config"], point.get("theta"), point.get("xi")))
    if not runs.empty:
        hr = runs[runs["config"] == "hybrid_red"]
        for (th, xi), g in hr.groupby(["theta", "xi"], sort=True):
            if ("hybrid_red", th, xi) in done or any(
                c == "hybrid_red" and F.same_value(t, th) and F.same_value(x, xi) for c, t, x in done
            ):
                continue
            head = {"table": "(not printed: Figs 15-18)", "algorithm": "Hybrid RED", "theta": th, "xi": xi}
            rows.append(_table_row(head, g, {}))
        for conf, label, grouped in (
            ("lpf_oda_every_theta", "LPF/ODA (every 3rd low arrival)", False),
            ("hybrid_red_every_theta", "Hybrid RED (every theta-th low arrival)", True),
            ("hybrid_red_while_above_min_th", "Hybrid RED (every low arrival while avg > min_th)", True),
        ):
            sub = runs[runs["config"] == conf]
            if sub.empty:
                continue
            groups = sub.groupby(["theta", "xi"], sort=True) if grouped else [((None, None), sub)]
            for (th, xi), g in groups:
                head = {"table": "(variant reading, not the paper's)", "algorithm": label, "theta": th, "xi": xi}
                rows.append(_table_row(head, g, {}))
    return pd.DataFrame(rows)


def table_markdown(t: pd.DataFrame) -> str:
    head = [
        "table",
        "algorithm",
        "(theta, xi)",
        "eta % paper",
        "eta % ours ± CI95",
        "Delta eta paper",
        "Delta eta ours (std)",
        "delta % paper",
        "delta % ours ± CI95",
        "Delta delta paper",
        "Delta delta ours (std)",
        "n",
    ]
    L = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def f(v: Any, d: int = 4) -> str:
        return "" if v is None or (isinstance(v, float) and not math.isfinite(v)) else fmt(v, d)

    for _, r in t.iterrows():
        tx = (
            ""
            if r["theta"] is None or (isinstance(r["theta"], float) and math.isnan(r["theta"]))
            else f"({int(r['theta'])}, {r['xi']:g})"
        )
        cells = [str(r["table"]), str(r["algorithm"]), tx]
        for m, err, _ in METRICS:
            ours = f(r[f"{m}:ours"])
            if ours and f(r[f"{m}:ci95"]):
                ours += f" ± {f(r[f'{m}:ci95'], 2)}"
            cells += [f(r[f"{m}:paper"]), ours, f(r[f"{err}:paper"]), f(r[f"{err}:ours_std"], 3)]
        cells.append(str(int(r["n"])))
        L.append("| " + " | ".join(cells) + " |")
    return "\n".join(L) + "\n"


def xi_figures(ctx: Context) -> list[Path]:
    """Figs 15-18: loss and utilization vs xi, one curve per theta (CI95 bars), the baselines as
    dashed horizontal lines, the paper's printed values as open squares (Table II, at their
    theta and xi) and dotted lines (Table I baselines). Drawn by the generic, data-driven
    :func:`..figures.metric_figure` (a theta or a baseline added to the paper file shows up;
    more series than a legend holds are split into panels)."""
    if ctx.runs.empty or ctx.agg.empty or "xi" not in ctx.agg.columns:
        return []
    figs = []
    fig_ids = FIGS.get(ctx.exp.id, ("", ""))
    for (m, _, ylabel), fig_id in zip(((METRICS[1]), (METRICS[0])), fig_ids, strict=True):
        word = "loss rate" if m == "loss_pct" else "utilization"
        fig = F.metric_figure(
            ctx.exp,
            ctx.agg,
            ctx.axes,
            m,
            ctx.quick,
            x="xi",
            title=f"{fig_id} ({ctx.exp.id}): {word} vs xi",
            display={m: ("loss rate " if m == "loss_pct" else "link utilization ") + ylabel.split(" ")[0]},
        )
        if fig is None:
            continue
        stem = f"{fig_id.replace('. ', '').lower()}_{'loss' if m == 'loss_pct' else 'utilization'}_vs_xi"
        figs += F.save(fig, ctx.out_dir / "figures", stem)
    return figs


def traced_scenario(ctx: Context, config: str, point: dict[str, Any]) -> dict[str, Any] | None:
    for s in ctx.specs:
        if s.config == config and all(F.same_value(s.point.get(k), v) for k, v in point.items()):
            scen = copy.deepcopy(s.scenario)
            scen["sample_interval"] = TRACE_INTERVAL
            scen["sample_flows"] = False
            scen["name"] = scen["name"] + "|traced"
            return scen
    return None


def run_traces(ctx: Context, seed: int = 1) -> tuple[list[Path], list[dict[str, Any]]]:
    """Figs 7-14: one traced run (seed 1) per trace entry of the paper file; avg (EWMA) and the
    instantaneous queue at the bottleneck, sampled every 10 ms."""
    import matplotlib.pyplot as plt

    import aqmlab

    traces = ctx.exp.get("traces", []) or []
    if not traces:
        return [], []
    link = ctx.exp.report_links[0]
    summary = []
    fig, axs = plt.subplots(len(traces), 1, figsize=(7, 2.2 * len(traces)), sharex=True, squeeze=False)
    for ax, tr in zip(axs[:, 0], traces, strict=True):
        point = {k: v for k, v in tr.items() if k not in ("figure", "config")}
        scen = traced_scenario(ctx, tr["config"], point)
        if scen is None:
            ax.set_title(f"{tr['figure']}: {tr['config']} {point} not run", fontsize=8)
            continue
        _, avg = F.plot_queue_and_avg(ax, aqmlab.run(scen, seed=seed), link, queue_lw=0.5, avg_lw=1)
        th = {c.name: c for c in ctx.exp.configurations}[tr["config"]].aqm
        if isinstance(th, dict):
            for k in ("min_th", "max_th"):
                if k in th:
                    ax.axhline(
                        float(th[k]), color="k", ls=":", lw=0.8, label="min_th, max_th" if k == "min_th" else None
                    )
        lab = tr["config"] + "".join(f", {k} = {v:g}" for k, v in point.items())
        ax.set_title(f"{tr['figure']}: {lab}" + (" [quick]" if ctx.quick else ""), fontsize=8)
        ax.set_ylabel("queue size (packets)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6, loc="upper right")
        a = avg["value"].to_numpy(dtype=float)
        t = avg["time_s"].to_numpy(dtype=float)
        half = t >= 0.2 * (t.max() if len(t) else 0)
        summary.append(
            {
                "figure": tr["figure"],
                "config": lab,
                "avg_mean": float(a[half].mean()) if half.any() else math.nan,
                "avg_min": float(a[half].min()) if half.any() else math.nan,
                "avg_max": float(a[half].max()) if half.any() else math.nan,
                "avg_std": float(a[half].std()) if half.any() else math.nan,
            }
        )
    axs[-1, 0].set_xlabel("time (s)")
    return F.save(fig, ctx.out_dir / "figures", "avg_traces"), summary


def claim_checks(ctx: Context, t: pd.DataFrame) -> list[str]:
    """The paper's orderings, checked on our means (with CI95 of each mean)."""
    runs = ctx.runs
    out: list[str] = []
    if runs.empty:
        return out

    def mean(cfg: str, m: str, **pt: float) -> dict[str, float]:
        return stats(_select(runs, cfg, pt)[m].to_numpy(dtype=float))

    base = {b: {m: mean(b, m) for m, _, _ in METRICS} for b in BASELINES}
    for m, _, _ in METRICS:
        order = sorted(BASELINES, key=lambda b: base[b][m]["mean"])
        out.append(
            f"- {m}: ours ascending "
            + " < ".join(f"{b} {base[b][m]['mean']:.3f} ± {base[b][m]['ci95']:.3f}" for b in order)
        )
    for conf, title, lpf in READINGS:
        hr = runs[runs["config"] == conf]
        if hr.empty:
            continue
        line = f"- {conf} ({title})"
        if lpf is not None and (runs["config"] == lpf).any():
            lp = {m: stats(runs[runs["config"] == lpf][m].to_numpy(dtype=float)) for m, _, _ in METRICS}
            line += (
                f"; {lpf}: loss % {lp['loss_pct']['mean']:.3f} ± {lp['loss_pct']['ci95']:.3f}, "
                f"utilization % {lp['utilization_pct']['mean']:.2f} ± {lp['utilization_pct']['ci95']:.2f}"
            )
        out.append(line)
        for th, g in hr.groupby("theta", sort=True):
            xs = sorted(g["xi"].unique())
            lo = [stats(g[g["xi"] == x]["loss_pct"].to_numpy(dtype=float)) for x in xs]
            ut = [stats(g[g["xi"] == x]["utilization_pct"].to_numpy(dtype=float)) for x in xs]
            apart = (
                (
                    lo[0]["mean"] - lo[0]["ci95"] > lo[-1]["mean"] + lo[-1]["ci95"]
                    or lo[-1]["mean"] - lo[-1]["ci95"] > lo[0]["mean"] + lo[0]["ci95"]
                )
                if len(xs) > 1
                else False
            )
            out.append(
                f"  - theta = {int(cast(float, th))}: loss % over xi {', '.join(f'{x:g}' for x in xs)}: "
                + ", ".join(f"{v['mean']:.3f} ± {v['ci95']:.3f}" for v in lo)
                + "; utilization %: "
                + ", ".join(f"{v['mean']:.2f} ± {v['ci95']:.2f}" for v in ut)
                + f" (loss at the smallest and largest xi: CI95s {'apart' if apart else 'overlap'})"
            )
    return out


def readings_side_by_side(ctx: Context) -> pd.DataFrame:
    """The readings of ``READINGS`` that ran, side by side: one row per (metric, theta, reading)
    at the thetas every one of them ran, one column per xi, "mean ± CI95" (issue 24, item 3)."""
    runs = ctx.runs
    if runs.empty or "theta" not in runs.columns:
        return pd.DataFrame()
    ran = [(c, title) for c, title, _ in READINGS if (runs["config"] == c).any()]
    if len(ran) < 2:
        return pd.DataFrame()
    thetas = sorted(set.intersection(*(set(runs[runs["config"] == c]["theta"].dropna()) for c, _ in ran)))
    xis = sorted(runs[runs["config"] == ran[0][0]]["xi"].dropna().unique())
    rows = []
    for m, _, label in METRICS[::-1]:
        for th in thetas:
            for c, title in ran:
                row: dict[str, Any] = {"metric": label, "theta": int(th), "reading": f"{c}: {title}"}
                for x in xis:
                    st = stats(_select(runs, c, {"theta": th, "xi": x})[m].to_numpy(dtype=float))
                    row[f"xi {x:g}"] = f"{fmt(st['mean'])} ± {fmt(st['ci95'], 2)}" if st["n"] else ""
                rows.append(row)
    return pd.DataFrame(rows)


def _hook(ctx: Context) -> CompanionOutput:
    t = paper_table(ctx)
    side = readings_side_by_side(ctx)
    if not side.empty:
        side.to_csv(ctx.out_dir / "readings.csv", index=False)
    md_table = table_markdown(t) if not t.empty else "(no runs)\n"
    figs = xi_figures(ctx)
    tfigs, tsum = run_traces(ctx)
    md = [
        "## Tables I-II in the paper's layout",
        "",
        (
            "eta = utilization of the bottleneck, delta = loss rate at the bottleneck (drops / arrivals). "
            "'Delta' = the paper's undefined 'error': ours is the standard deviation over the replications; "
            "'± CI95' is the 95 % confidence half width of our mean."
        ),
        "",
        md_table,
        "",
        "## Orderings and trends (ours)",
        "",
    ] + claim_checks(ctx, t)
    if not side.empty:
        md += [
            "",
            "## The readings of eq. 10 side by side (mean ± CI95 over the replications)",
            "",
            df_markdown(side),
        ]
    if tsum:
        md += [
            "",
            "## avg traces (one traced run each, seed 1; statistics after the first 20 % of the run)",
            "",
            df_markdown(pd.DataFrame(tsum)),
        ]
    return CompanionOutput(
        markdown="\n".join(md),
        figures=figs + tfigs,
        table=t,
        table_md=md_table,
        replaces_table=True,
        values={"table": t, "traces": tsum},
    )


for _e in ("topology1", "topology2"):
    hook("hybrid_red", _e)(_hook)
