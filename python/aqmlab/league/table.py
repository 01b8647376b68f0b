"""The league table: the sweeps' aggregates as league rows (tidy and wide), the ranking, the
plain-words summary written from the numbers, the Markdown report, the figures, and the files
in ``OUT/``.

Sort criterion of a scenario table: AQMs with mean utilization >= 95% first, by mean delay
(lowest first); then the others by utilization (highest first). The rank in that order is the
AQM's rank in the scenario; the overall table averages the ranks. Two AQMs are statistically
tied on a metric when their 95% CIs overlap.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import pandas as pd

from .grid import METRIC_BOUNDS, METRIC_COLUMNS, METRICS, SCENARIOS, LeaguePlan, LeagueScenario, plan, sender_name

#: Utilization (%) an AQM must reach to compete for "lowest delay".
UTILIZATION_FLOOR_PCT = 95.0


# ---------------------------------------------------------------------------- tables
def tidy_rows(p: LeaguePlan, table: pd.DataFrame) -> pd.DataFrame:
    """The sweep's aggregate (one row per point x summary key) -> league rows with units."""
    names = {f"league-{p.spec.id}-{a}": a for a in p.configs}
    by_key = {m[2]: m for m in METRICS}
    rows = []
    for _, r in table.iterrows():
        key = r["metric"]
        if key not in by_key:
            continue
        col, label, _, scale = by_key[key]
        aqm = names[r["name"]]
        table_, note = p.configs[aqm]
        row: dict[str, Any] = {
            "scenario": p.spec.id,
            "paper": p.spec.paper,
            "aqm": aqm,
            "metric": col,
            "label": label,
            "params": json.dumps(table_, sort_keys=True),
            "adjustment": note,
        }
        for stat in ("mean", "std", "ci95_low", "ci95_high", "ci95_half_width"):
            row[stat] = float(r[stat]) * scale if pd.notna(r[stat]) else math.nan
        lowest, highest = METRIC_BOUNDS[col]
        row["ci95_low"] = max(lowest, row["ci95_low"]) if math.isfinite(row["ci95_low"]) else math.nan
        row["ci95_high"] = min(highest, row["ci95_high"]) if math.isfinite(row["ci95_high"]) else math.nan
        row["n"] = int(r["n"])
        rows.append(row)
    return pd.DataFrame(rows)


def to_wide(tidy: pd.DataFrame) -> pd.DataFrame:
    """One row per (scenario, aqm): ``<metric>``, ``<metric>_lo``, ``<metric>_hi``,
    ``<metric>_hw`` (the CI half width) and ``n``."""
    rows = []
    for (sc, aqm), g in tidy.groupby(["scenario", "aqm"], sort=False):
        row: dict[str, Any] = {
            "scenario": sc,
            "aqm": aqm,
            "adjustment": g["adjustment"].iloc[0],
            "n": int(g["n"].min()),
        }
        for _, r in g.iterrows():
            m = r["metric"]
            row[m] = r["mean"]
            row[m + "_lo"] = r["ci95_low"]
            row[m + "_hi"] = r["ci95_high"]
            row[m + "_hw"] = r["ci95_half_width"]
        rows.append(row)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- ranking & words
def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of ``df`` as dicts (the league's tables have string column names)."""
    return cast("list[dict[str, Any]]", df.to_dict("records"))


def _interval(row: Mapping[str, Any], metric: str) -> tuple[float, float]:
    lo, hi, m = row.get(metric + "_lo", math.nan), row.get(metric + "_hi", math.nan), row[metric]
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return (m, m)
    return (lo, hi)


def overlaps(a: Mapping[str, Any], b: Mapping[str, Any], metric: str) -> bool:
    """True when the 95% CIs of ``metric`` of rows a and b overlap (statistically tied)."""
    (a0, a1), (b0, b1) = _interval(a, metric), _interval(b, metric)
    return a0 <= b1 and b0 <= a1


def rank_scenario(df: pd.DataFrame, floor_pct: float = UTILIZATION_FLOOR_PCT) -> pd.DataFrame:
    """Rows of one scenario in league order: utilization >= floor by delay ascending, then the
    rest by utilization descending. Adds ``qualified`` and ``rank`` (1 = best)."""
    d = df.copy()
    d["qualified"] = d["utilization_pct"] >= floor_pct
    q = d[d["qualified"]].sort_values(["delay_ms", "aqm"])
    nq = d[~d["qualified"]].sort_values(["utilization_pct", "aqm"], ascending=[False, True])
    d = pd.concat([q, nq])
    d["rank"] = range(1, len(d) + 1)
    return d.reset_index(drop=True)


def _fmt(x: float, digits: int = 2) -> str:
    if not math.isfinite(x):
        return "n/a"
    return f"{x:.{digits}f}"


def _ci(row: Mapping[str, Any], metric: str, digits: int) -> str:
    lo, hi = row.get(metric + "_lo", math.nan), row.get(metric + "_hi", math.nan)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return ""
    return f" [{lo:.{digits}f}, {hi:.{digits}f}]"


def _names(xs: Sequence[str]) -> str:
    xs = list(xs)
    if len(xs) <= 1:
        return "".join(xs)
    return ", ".join(xs[:-1]) + " and " + xs[-1]


def scenario_sentences(df: pd.DataFrame, floor_pct: float = UTILIZATION_FLOOR_PCT) -> list[str]:
    """Plain-words findings for one scenario's rows (from the numbers only)."""
    d = rank_scenario(df, floor_pct)
    recs = _records(d)
    out: list[str] = []
    qual = [r for r in recs if r["qualified"]]
    if qual:
        w = qual[0]
        tied = [r["aqm"] for r in qual[1:] if overlaps(w, r, "delay_ms")]
        s = (
            f"Lowest delay at >= {floor_pct:g}% utilization: **{w['aqm']}**, {_fmt(w['delay_ms'])} ms"
            f"{_ci(w, 'delay_ms', 2)} at {_fmt(w['utilization_pct'], 1)}% utilization"
        )
        s += (
            f"; statistically tied with it (overlapping delay CIs): {_names(tied)}."
            if tied
            else "; no other AQM's delay CI overlaps its own."
        )
        out.append(s)
        n_out = len(recs) - len(qual)
        if n_out:
            out.append(
                f"{n_out} of {len(recs)} AQMs stay below {floor_pct:g}% utilization: "
                f"{_names([r['aqm'] for r in recs if not r['qualified']])}."
            )
    else:
        best = max(recs, key=lambda r: r["utilization_pct"])
        low = min(recs, key=lambda r: r["delay_ms"])
        out.append(
            f"No AQM reaches {floor_pct:g}% utilization; the highest is **{best['aqm']}** "
            f"({_fmt(best['utilization_pct'], 1)}%, delay {_fmt(best['delay_ms'])} ms); the lowest delay overall is "
            f"{low['aqm']} ({_fmt(low['delay_ms'])} ms at {_fmt(low['utilization_pct'], 1)}%)."
        )
    fair = [r for r in recs if math.isfinite(r["jain"])]
    if fair:
        f = max(fair, key=lambda r: r["jain"])
        tied = [r["aqm"] for r in fair if r is not f and overlaps(f, r, "jain")]
        s = f"Best fairness: **{f['aqm']}** (Jain {_fmt(f['jain'], 3)}{_ci(f, 'jain', 3)})"
        s += f", tied with {_names(tied)}." if tied else ", ahead of every other AQM beyond the CIs."
        out.append(s)
    lossy = max(recs, key=lambda r: r["loss_pct"] if math.isfinite(r["loss_pct"]) else -1)
    least = min(recs, key=lambda r: r["loss_pct"] if math.isfinite(r["loss_pct"]) else math.inf)
    slow = min(recs, key=lambda r: r["goodput_mbps"] if math.isfinite(r["goodput_mbps"]) else math.inf)
    out.append(
        f"Loses most: **{lossy['aqm']}** ({_fmt(lossy['loss_pct'])}% of arrivals dropped; least: {least['aqm']}, "
        f"{_fmt(least['loss_pct'])}%). Lowest goodput: {slow['aqm']} ({_fmt(slow['goodput_mbps'])} Mb/s)."
    )
    return out


def overall_ranks(wide: pd.DataFrame, floor_pct: float = UTILIZATION_FLOOR_PCT) -> pd.DataFrame:
    """One row per AQM: its rank in each scenario, the mean rank, and in how many scenarios it
    is the delay winner or tied with it."""
    ranks: dict[str, dict[str, Any]] = {}
    scen = list(dict.fromkeys(wide["scenario"]))
    for sc in scen:
        d = rank_scenario(wide[wide["scenario"] == sc], floor_pct)
        recs = _records(d)
        qual = [r for r in recs if r["qualified"]]
        top = {qual[0]["aqm"]} | {r["aqm"] for r in qual[1:] if overlaps(qual[0], r, "delay_ms")} if qual else set()
        for r in recs:
            e = ranks.setdefault(r["aqm"], {"aqm": r["aqm"], "top": 0, "qualified": 0})
            e[sc] = int(r["rank"])
            e["top"] += r["aqm"] in top
            e["qualified"] += bool(r["qualified"])
    df = pd.DataFrame(list(ranks.values()))
    df["mean_rank"] = df[scen].mean(axis=1)
    df["worst_rank"] = df[scen].max(axis=1)
    df = df.sort_values(["mean_rank", "worst_rank", "top", "aqm"], ascending=[True, True, False, True]).reset_index(
        drop=True
    )
    df["position"] = range(1, len(df) + 1)
    return df[["position", "aqm", *scen, "mean_rank", "worst_rank", "qualified", "top"]]


def overall_sentences(wide: pd.DataFrame, floor_pct: float = UTILIZATION_FLOOR_PCT) -> list[str]:
    o = overall_ranks(wide, floor_pct)
    scen = [c for c in o.columns if c not in ("position", "aqm", "mean_rank", "worst_rank", "qualified", "top")]
    n_sc, n_aqm = len(scen), len(o)
    third = max(1, math.ceil(n_aqm / 3))
    out = []
    best = o.iloc[0]
    out.append(
        f"Best mean rank: **{best['aqm']}** ({best['mean_rank']:.1f} over {n_sc} scenarios; worst rank {int(best['worst_rank'])})."
    )
    always = o[o["worst_rank"] <= third]["aqm"].tolist()
    if always:
        out.append(f"Consistently good (in the top third, rank <= {third}, in every scenario): {_names(always)}.")
    else:
        o2 = o.assign(k=(o[scen] <= third).sum(axis=1)).sort_values(["k", "mean_rank"], ascending=[False, True])
        k = int(o2["k"].iloc[0])
        names = o2[o2["k"] == k]["aqm"].tolist()
        out.append(
            f"No AQM is in the top third (rank <= {third}) of every scenario; the most consistent are "
            f"{_names(names)} (top third in {k} of {n_sc})."
        )
    tops = o[o["top"] > 0].sort_values(["top", "mean_rank"], ascending=[False, True])
    if len(tops):
        out.append(
            "Lowest delay at full utilization, or statistically tied with it: "
            + "; ".join(f"{r.aqm} in {r.top} of {n_sc}" for r in tops.itertuples())
            + "."
        )
    low_util = o[o["qualified"] < n_sc // 2 + 1]
    if len(low_util):
        out.append(
            f"Reach {floor_pct:g}% utilization in fewer than half of the scenarios: "
            + _names([f"{r.aqm} ({r.qualified} of {n_sc})" for r in low_util.itertuples()])
            + "."
        )
    worst = o.iloc[-1]
    out.append(f"Worst mean rank: {worst['aqm']} ({worst['mean_rank']:.1f}).")
    return out


# ---------------------------------------------------------------------------- report
def _cell(row: Mapping[str, Any], metric: str, digits: int) -> str:
    """mean ± half width; mean [low, high] where the interval was clipped to the metric's
    range (mean ± half width would reach past it)."""
    m, hw = row[metric], row.get(metric + "_hw", math.nan)
    if not math.isfinite(m):
        return "n/a"
    if not math.isfinite(hw):
        return f"{m:.{digits}f}"
    lo, hi = row.get(metric + "_lo", math.nan), row.get(metric + "_hi", math.nan)
    clipped = (math.isfinite(lo) and lo > m - hw + 1e-9 * max(1.0, abs(m))) or (
        math.isfinite(hi) and hi < m + hw - 1e-9 * max(1.0, abs(m))
    )
    if clipped:
        return f"{m:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"
    return f"{m:.{digits}f} ± {hw:.{digits}f}"


_DIGITS = {
    "utilization_pct": 1,
    "goodput_mbps": 2,
    "delay_ms": 2,
    "p99_delay_ms": 1,
    "loss_pct": 2,
    "marks": 0,
    "jain": 3,
}


def scenario_table_md(df: pd.DataFrame, floor_pct: float = UTILIZATION_FLOOR_PCT, ranked: bool = True) -> str:
    """One scenario's table: in league order with each AQM's rank, or (not ``ranked``: quick
    mode) in the order the AQMs ran, without ranks."""
    d = rank_scenario(df, floor_pct) if ranked else df
    head = (["#"] if ranked else []) + ["AQM"] + [m[1] for m in METRICS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in _records(d):
        below = ranked and not r["qualified"]
        name = r["aqm"] + (" ⁻" if below else "") + (" *" if r.get("adjustment") else "")
        cells = ([str(r["rank"])] if ranked else []) + [name] + [_cell(r, m, _DIGITS[m]) for m in METRIC_COLUMNS]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


#: What a quick league's summary says instead of a ranking.
QUICK_NOTE = (
    "QUICK mode: shortened runs and {n} replications check that every (scenario, AQM) runs; they do not "
    "rank the AQMs (30 s runs are dominated by the start-up, and {n}-replication intervals are wide): the "
    "tables below are in the order the AQMs ran, without ranks. Run without --quick for the ranking."
)


def render_markdown(wide: pd.DataFrame, plans: Sequence[LeaguePlan], meta: Mapping[str, Any]) -> str:
    floor = UTILIZATION_FLOOR_PCT
    n = int(wide["n"].min()) if len(wide) else 0
    ranked = not meta.get("quick")
    tcp = meta.get("tcp_profile")
    lines = [
        "# AQM league",
        "",
        f"- command: `{meta['command']}`",
        f"- TCP: {f'every flow with the {tcp} profile ({sender_name(tcp)})' if tcp else 'each paper' + chr(39) + 's own (ns-2 Reno)'}",
        (
            f"- date: {meta['date']}; run time {meta['run_time_s']:.0f} s (workers: {meta['workers']}; "
            "runs already in the stores are reused, so a resumed league reports less)"
        ),
        (
            f"- {meta['replications']} replications per (scenario, AQM) (n = {n} successful for the scarcest); "
            f"{'QUICK mode: shortened runs (see docs/league.md)' if meta['quick'] else 'full-length runs'}"
        ),
        (
            "- every cell: mean ± half width of the 95% Student-t confidence interval over the replications "
            "(± 0 when every seed gives the same run: an AQM without a random element in a scenario with fixed start times)"
        ),
        (
            f"- order: AQMs with mean utilization >= {floor:g}% first, by mean delay (lowest first); then the "
            f"others (marked ⁻) by utilization (highest first). * = a parameter scaled to the buffer (notes below each table)"
            if ranked
            else "- order: as the AQMs ran (quick mode does not rank). * = a parameter scaled to the buffer (notes below each table)"
        ),
        (
            "- an interval that would reach past its metric's range (utilization and loss 0-100 %, Jain 0-1, the others "
            ">= 0) is clipped to it, and its cell shows mean [low, high] instead of mean ± half width"
        ),
        (
            "- Util: bottleneck busy fraction; Goodput: sum over the counted flows; Delay / p99: sojourn time in the "
            "bottleneck queue (wait + transmission); Loss: drops / (arrivals + backlog at the start) at the bottleneck; Marks: ECN marks there; "
            "Jain: over per-flow rates while active (see docs/league.md)"
        ),
    ]
    if meta.get("failures"):
        lines += ["", "**Failed runs:**", ""] + [f"- {f}" for f in meta["failures"]]
    lines += ["", "## Summary (generated from the numbers)", ""]
    if not ranked:
        lines += [QUICK_NOTE.format(n=n), ""]
    for p in plans:
        df = wide[wide["scenario"] == p.spec.id]
        if not len(df):
            continue
        lines.append(f"**{p.spec.paper}** ({p.spec.id}):")
        if ranked:
            lines += [f"- {s}" for s in scenario_sentences(df, floor)]
        else:
            lines.append(f"- {len(df)} AQMs ran, {int(df['n'].min())} replications each.")
        lines.append("")
    if ranked and wide["scenario"].nunique() > 1:
        lines.append("**Across scenarios:**")
        lines += [f"- {s}" for s in overall_sentences(wide, floor)]
        lines.append("")
    lines += ["## Scenarios", ""]
    for p in plans:
        df = wide[wide["scenario"] == p.spec.id]
        if not len(df):
            continue
        lines += [f"### {p.spec.id}: {p.spec.heading(tcp)}", "", p.spec.choice, ""]
        lines.append(scenario_table_md(df, floor, ranked))
        notes = sorted({(a, note) for a, (_, note) in p.configs.items() if note})
        if notes:
            lines.append("")
            lines += [f"\\* {a}: {note}" for a, note in notes]
        fig = f"league_{p.spec.id}.png"
        if fig in meta.get("figures", []):
            lines += ["", f"![{p.spec.id}: delay vs goodput]({fig})"]
        lines.append("")
    if ranked and wide["scenario"].nunique() > 1:
        o = overall_ranks(wide, floor)
        scen = [c for c in o.columns if c not in ("position", "aqm", "mean_rank", "worst_rank", "qualified", "top")]
        lines += [
            "## Overall ranks",
            "",
            (
                "Rank of each AQM in each scenario's table; sorted by the mean rank "
                f"(ties: worst rank, then the best-delay count). `>= {floor:g}%`: scenarios where it reaches that utilization; `best-delay`: "
                "scenarios where it has the lowest delay there or is tied with it."
            ),
            "",
        ]
        head = ["#", "AQM", *scen, "mean rank", "worst", f">= {floor:g}%", "best-delay"]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in _records(o):
            cells = [
                str(r["position"]),
                r["aqm"],
                *[str(r[s]) for s in scen],
                f"{r['mean_rank']:.1f}",
                str(r["worst_rank"]),
                str(r["qualified"]),
                str(r["top"]),
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def write_figures(wide: pd.DataFrame, out: Path) -> list[Path]:
    """A delay-vs-goodput scatter (with 95% CIs) per scenario, PNG and SVG, saved through the
    reproduction's figure audit; each AQM's name placed where it hides no other (issue 35:
    fifteen names at one offset from points a few pixels apart overlapped)."""
    from ..reproduce import figures

    # isort: split
    import matplotlib.pyplot as plt

    paths = []
    for sc, df in wide.groupby("scenario", sort=False):
        fig, ax = plt.subplots(figsize=(7, 5))
        recs = _records(df)
        for r in recs:
            xerr = (
                [[r["delay_ms"] - r["delay_ms_lo"]], [r["delay_ms_hi"] - r["delay_ms"]]]
                if math.isfinite(r["delay_ms_hw"])
                else None
            )
            yerr = (
                [[r["goodput_mbps"] - r["goodput_mbps_lo"]], [r["goodput_mbps_hi"] - r["goodput_mbps"]]]
                if math.isfinite(r["goodput_mbps_hw"])
                else None
            )
            marker = "o" if r["utilization_pct"] >= UTILIZATION_FLOOR_PCT else "x"
            ax.errorbar(r["delay_ms"], r["goodput_mbps"], xerr=xerr, yerr=yerr, fmt=marker, capsize=2, ms=5)
        ax.set_xscale("log")
        ax.set_xlabel("mean sojourn delay at the bottleneck (ms, log scale)")
        ax.set_ylabel("total goodput (Mb/s)")
        ax.set_title(f"{sc}: delay vs goodput (o: util >= {UTILIZATION_FLOOR_PCT:g}%, x: below)")
        ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        figures.place_labels(ax, [(r["delay_ms"], r["goodput_mbps"], r["aqm"]) for r in recs])
        paths += figures.save(fig, out, f"league_{sc}")
    return paths


# ---------------------------------------------------------------------------- files
def write(
    out: Path, tidy: pd.DataFrame, plans: Sequence[LeaguePlan], meta: Mapping[str, Any], figures: bool = True
) -> None:
    """Writes the league to ``out``: league.csv and league.parquet (the tidy table), the figures
    (unless ``figures`` is false), league.md (the report) and league.json (``meta`` and the
    figures' file names)."""
    tidy.to_csv(out / "league.csv", index=False)
    tidy.to_parquet(out / "league.parquet", index=False)
    wide = to_wide(tidy)
    figs = write_figures(wide, out) if figures else []
    meta = {**meta, "figures": [f.name for f in figs]}
    (out / "league.md").write_text(render_markdown(wide, plans, meta), encoding="utf-8")
    (out / "league.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def summary_section(md: str) -> str:
    """The summary of a league.md (what ``aqmlab league`` prints)."""
    start = md.find("## Summary")
    end = md.find("## Scenarios")
    return md[start:end].strip()


def rerender(out: str | Path, scenarios: Sequence[LeagueScenario] | None = None) -> Path:
    """Rewrites ``out/league.md`` from ``league.parquet`` and ``league.json`` (no runs), keeping
    the command, date and run time of the run that produced them."""
    out = Path(out)
    tidy = pd.read_parquet(out / "league.parquet")
    meta = json.loads((out / "league.json").read_text(encoding="utf-8"))
    ids = list(dict.fromkeys(tidy["scenario"]))
    specs = [s for s in (scenarios or SCENARIOS) if s.id in ids]
    plans = plan(specs, list(dict.fromkeys(tidy["aqm"])), bool(meta.get("quick")), meta.get("tcp_profile"))
    path = out / "league.md"
    path.write_text(render_markdown(to_wide(tidy), plans, meta), encoding="utf-8")
    return path
