"""The data-driven reproduction runner: paper + experiment -> runs -> table, figures, notes.

API (everything a new paper needs is data, plus optionally a companion hook):

    from aqmlab.reproduce.runner import reproduce_experiment, reproduce_paper
    out = reproduce_experiment("orange", "sec4_mm2", quick=True, workers=2)
    out.table      # the paper-layout comparison (DataFrame), also out.dir/"table.csv"/"table.md"
    out.runs       # one row per run with the paper metrics
    out.agg        # one row per (config, point): mean, CI95 half width, n per metric

Steps: :mod:`.spec` loads the paper file, :mod:`.jobs` builds the scenarios (placeholders,
overrides, AQM on every ``aqm_links`` link, quick mode), :mod:`.execute` runs them through
:mod:`aqmlab.sweep` into ``<out>/store`` (resumable, parallel), :mod:`.metrics` computes the
paper's metrics per run, :mod:`.tables` and :mod:`.figures` write the outputs, and a hook in
:mod:`.companions` (keyed by paper and experiment) adds analytic models and derived tables.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from . import companions, execute, figures, jobs, tables
from .errors import ReproduceError
from .spec import Experiment, Paper, known_papers, load_paper

DEFAULT_OUT = Path("results/reproduce")
ProgressFn = Callable[[str, int, int], None]


@dataclass
class ExperimentOutput:
    paper: str
    experiment: str
    dir: Path
    quick: bool
    replications: int
    runs: pd.DataFrame = field(default_factory=pd.DataFrame)
    agg: pd.DataFrame = field(default_factory=pd.DataFrame)
    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    figures: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    n_runs: int = 0


def default_replications(exp: Experiment) -> int:
    """The paper's count, or the data file's suggested count when that is larger (the
    papers that ran one replication get a confidence interval)."""
    return max(exp.replications_paper, exp.replications_suggested, 1)


def experiment_axes(runs: list[jobs.RunSpec], exp: Experiment) -> list[str]:
    axes: list[str] = []
    for a in exp.axis_names:
        if any(a in r.point for r in runs):
            axes.append(a)
    for r in runs:
        for a in r.point:
            if a not in axes:
                axes.append(a)
    return axes


@dataclass(frozen=True)
class SweepDone:
    """An experiment's sweep, finished: what the rest of its reproduction (tables, figures,
    companions) needs from it when that rest runs in another process (see the CLI)."""

    n_runs: int
    failed: list[str]
    wall_s: float


def _sweep(
    exp: Experiment, out_dir: Path, replications: int, quick: bool, workers: int | None, progress: ProgressFn | None
) -> tuple[list[jobs.RunSpec], dict[str, Any], jobs.QuickPlan | None]:
    """Runs whatever of the experiment's runs is not yet in ``out_dir/store``."""
    plan = jobs.quick_plan(exp, replications) if quick else None
    reps = plan.replications if plan else replications
    specs = jobs.build_jobs(exp, quick=plan)
    if not specs:
        return specs, {"total": 0, "failed": []}, plan
    cb = (lambda d, t: progress(f"{exp.paper}/{exp.id}", d, t)) if progress else None
    info = execute.run_all(
        specs, reps, out_dir / "store", f"{exp.paper}-{exp.id}", workers=workers, progress=cb, run_fn=exp.get("run_fn")
    )
    info["replications"] = reps
    return specs, info, plan


def simulate(
    exp: Experiment, out_dir: Path, replications: int, quick: bool, workers: int | None, progress: ProgressFn | None
) -> tuple[list[jobs.RunSpec], pd.DataFrame, dict[str, Any], jobs.QuickPlan | None]:
    specs, info, plan = _sweep(exp, out_dir, replications, quick, workers, progress)
    if not specs:
        return specs, pd.DataFrame(), info, plan
    runs = execute.read_runs(out_dir / "store", info["keys"], specs)
    if not runs.empty:
        runs = tables.per_run_metrics(runs, exp)
    return specs, runs, info, plan


def _resolve(
    paper: str | Paper, experiment: str, replications: int | None, out: str | Path | None
) -> tuple[Paper, Experiment, Experiment, Path, int]:
    """The paper, the experiment, the experiment whose runs it uses (itself, or the one it is
    derived from), the output root and the replications per point."""
    p = paper if isinstance(paper, Paper) else load_paper(paper)
    exp = p.experiment(experiment)
    root = Path(out) if out is not None else DEFAULT_OUT / p.id
    source = p.experiment(exp.derived_from) if exp.derived_from else exp
    reps = replications if replications is not None else default_replications(source)
    return p, exp, source, root, reps


def run_experiment_sweep(
    paper: str | Paper,
    experiment: str,
    *,
    replications: int | None = None,
    quick: bool = False,
    out: str | Path | None = None,
    workers: int | None = None,
    progress: ProgressFn | None = None,
) -> SweepDone:
    """The first part of :func:`reproduce_experiment`: its runs, into the store."""
    t0 = time.monotonic()
    _, _, source, root, reps = _resolve(paper, experiment, replications, out)
    if not (source.scenarios and source.configurations):
        return SweepDone(0, [], time.monotonic() - t0)
    _, info, _ = _sweep(source, root / source.id, reps, quick, workers, progress)
    return SweepDone(int(info["total"]), list(info["failed"]), time.monotonic() - t0)


def finish_experiment(
    paper: str, experiment: str, replications: int | None, quick: bool, out: Path, swept: SweepDone
) -> ExperimentOutput:
    """The rest of :func:`reproduce_experiment` after :func:`run_experiment_sweep`, for a process
    of its own: reads the stored runs (running serially any the store lacks) and writes the
    table, figures and notes. Returned without its frames (they stay in the files)."""
    res = reproduce_experiment(
        paper, experiment, replications=replications, quick=quick, out=out, workers=1, swept=swept
    )
    empty = pd.DataFrame()
    return replace(res, runs=empty, agg=empty, extra={})


def reproduce_experiment(
    paper: str | Paper,
    experiment: str,
    *,
    replications: int | None = None,
    quick: bool = False,
    out: str | Path | None = None,
    workers: int | None = None,
    progress: ProgressFn | None = None,
    swept: SweepDone | None = None,
) -> ExperimentOutput:
    """``swept``: the experiment's sweep already ran (:func:`run_experiment_sweep`); its
    failures and its wall time count here."""
    t0 = time.monotonic()
    p, exp, source, root, reps = _resolve(paper, experiment, replications, out)
    out_dir = root / exp.id
    out_dir.mkdir(parents=True, exist_ok=True)
    res = ExperimentOutput(paper=p.id, experiment=exp.id, dir=out_dir, quick=quick, replications=reps)

    plan = None
    specs: list[jobs.RunSpec] = []
    if source.scenarios and source.configurations:
        # A derived experiment reuses its source's store (same runs, same keys).
        sim_dir = root / source.id
        specs, runs, info, plan = simulate(source, sim_dir, reps, quick, workers, progress)
        res.runs, res.failed, res.n_runs = runs, info["failed"], info["total"]
        res.replications = info.get("replications", reps)
        axes = experiment_axes(specs, source)
        res.agg = tables.aggregate(runs, source, axes) if not runs.empty else pd.DataFrame()
    else:
        axes = exp.axis_names
    if swept is not None:
        res.failed = swept.failed + res.failed

    hook = companions.get(p.id, exp.id)
    ctx = companions.Context(
        paper=p,
        exp=exp,
        source=source,
        runs=res.runs,
        agg=res.agg,
        axes=axes,
        out_dir=out_dir,
        quick=quick,
        specs=specs,
    )
    comp = hook(ctx) if hook else companions.CompanionOutput()

    if exp is source and not res.agg.empty and not comp.replaces_table:
        res.table = tables.comparison(exp, res.agg, axes, scenario_pref=comp.scenario_pref)
        md = tables.to_markdown(res.table, exp, axes)
        tables.write(res.table, md, out_dir)
        res.figures += figures.metric_figures(exp, res.agg, axes, out_dir / "figures", quick, comp.scenario_pref)
    if comp.table is not None:
        res.table = comp.table
        tables.write(comp.table, comp.table_md or tables.df_markdown(comp.table), out_dir)
    res.figures += comp.figures
    res.extra = comp.values
    if not res.runs.empty:
        keep = [
            c
            for c in res.runs.columns
            if c in ("config", "label", "scenario_file", "replication", "seed", "run_time_s")
            or c in axes
            or c in [m["name"] for m in source.metrics]
        ]
        res.runs[keep].to_csv(out_dir / "runs.csv", index=False)
    res.wall_s = time.monotonic() - t0 + (swept.wall_s if swept is not None else 0.0)
    res.notes = notes(p, exp, source, res, plan, comp)
    (out_dir / "notes.md").write_text("\n".join(res.notes) + "\n", encoding="utf-8")
    return res


def notes(
    p: Paper,
    exp: Experiment,
    source: Experiment,
    res: ExperimentOutput,
    plan: jobs.QuickPlan | None,
    comp: companions.CompanionOutput,
) -> list[str]:
    L = [f"# {p.id} / {exp.id}: {exp.title}", "", f"Source: {exp.get('source', '')}.", ""]
    mode = "QUICK (reduced; not the paper's protocol)" if res.quick else "full"
    L += [
        f"Mode: {mode}. Replications per point: {res.replications} (paper: {source.replications_paper}). "
        f"Runs: {res.n_runs}. Wall time: {res.wall_s:.1f} s.",
        "",
    ]
    if plan is not None:
        L += (
            ["## What --quick changed", ""]
            + [f"- {x}" for x in plan.describe(default_replications(source), source)]
            + [""]
        )
    if res.failed:
        L += ["## Failed runs", ""] + [f"- {x}" for x in res.failed[:50]] + [""]
    if comp.markdown:
        L += [comp.markdown, ""]
    L += ["## Metrics (how we compute them)", ""]
    from . import metrics as M

    for m in source.metrics:
        how = M.DESCRIPTIONS.get(m["name"], "not computed by the generic runner (see companion section)")
        L.append(f"- `{m['name']}` ({m.get('unit', '')}): paper: {m.get('definition', '')}. Ours: {how}.")
    L.append("")
    for title, items in (
        ("Claims (paper)", exp.get("claims", [])),
        ("Gaps (paper-wide)", p.info.get("gaps", [])),
        ("Gaps (this experiment)", exp.get("gaps", [])),
        ("Doubts (paper-wide)", p.info.get("doubts", [])),
        ("Doubts (this experiment)", exp.get("doubts", [])),
    ):
        if items:
            L += [f"## {title}", ""] + [f"- {x}" for x in items] + [""]
    return L


def reproduce_paper(paper: str, experiment: str | None = None, **kw: Any) -> list[ExperimentOutput]:
    p = load_paper(paper)
    ids = [experiment] if experiment else list(p.experiments)
    outs = [reproduce_experiment(p, e, **kw) for e in ids]
    if experiment is None:
        write_index(p, outs, Path(kw.get("out") or DEFAULT_OUT / p.id))
    return outs


def write_index(p: Paper, outs: list[ExperimentOutput], root: Path) -> Path:
    info = p.info
    L = [
        f"# {info.get('title', p.id)}",
        "",
        f"{', '.join(info.get('authors', []))} ({info.get('year', '')}). Simulator: {info.get('simulator', '')}.",
        "",
        "| experiment | mode | replications | runs | wall (s) | table | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    for o in outs:
        tbl = f"[table]({o.experiment}/table.md)" if (o.dir / "table.md").exists() else ""
        L.append(
            f"| {o.experiment} | {'quick' if o.quick else 'full'} | {o.replications} | {o.n_runs} | {o.wall_s:.1f} | {tbl} | [notes]({o.experiment}/notes.md) |"
        )
    path = root / "README.md"
    root.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(L) + "\n", encoding="utf-8")
    return path


def resolve_papers(name: str) -> list[str]:
    if name.strip().lower() == "all":
        return known_papers()
    p = load_paper(name)  # raises ReproduceError listing the known ones
    return [p.id]


__all__ = [
    "ExperimentOutput",
    "ReproduceError",
    "SweepDone",
    "finish_experiment",
    "reproduce_experiment",
    "reproduce_paper",
    "resolve_papers",
    "run_experiment_sweep",
]
