"""Running an experiment's runs through :mod:`aqmlab.sweep` and reading them back.

One job. The concrete scenarios of :mod:`.jobs` become sweep points: runs whose scenarios
have the same top-level keys form one :class:`~aqmlab.sweep.Sweep` whose base holds those
keys and whose single ``zip`` axis group sets every top-level key of each scenario. So the
sweep's store gives resumability (only missing runs execute), longest-first parallel
scheduling and per-run seeds (derived from the master seed, the point and the replication).
The scenario's ``name`` carries the run's identity (paper/experiment/config|point|file).
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from ..sweep import ResultStore, Sweep, SweepProgress, run_sweep
from .jobs import RunSpec, _secs

RUN_FN = "aqmlab.reproduce.runfn:run"
MASTER_SEED = 20240605
#: Part of every store key: bump when runfn's extra keys change.
RUNFN_VERSION = "reproduce-2"


def run_cost(scenario: dict[str, Any]) -> float:
    """Relative run time for longest-first scheduling: simulated seconds x flow count."""
    try:
        dur = _secs(scenario.get("duration", "1s"))
    except ValueError:
        dur = 1.0
    n = 0
    for f in scenario.get("flows", []):
        c = f.get("count", 1)
        src = f.get("from")
        n += int(c) * (len(src) if isinstance(src, list) else 1)
    topo = scenario.get("topology", {})
    if topo.get("kind") == "dumbbell":
        n = max(n, int(topo.get("senders", 1)))
    return dur * max(n, 1)


def engine_version() -> str:
    import aqmlab

    return f"{getattr(aqmlab, '__version__', 'dev')}+{RUNFN_VERSION}"


def _diff_paths(values: list[Any], prefix: str, out: list[str]) -> None:
    """Minimal dotted paths (list indices as digits) where ``values`` differ."""
    first = values[0]
    if all(v == first for v in values[1:]):
        return
    if all(isinstance(v, dict) for v in values) and all(set(v) == set(first) for v in values):
        for k in first:
            _diff_paths([v[k] for v in values], f"{prefix}.{k}" if prefix else k, out)
        return
    if all(isinstance(v, list) for v in values) and all(len(v) == len(first) for v in values) and prefix:
        for i in range(len(first)):
            _diff_paths([v[i] for v in values], f"{prefix}.{i}", out)
        return
    out.append(prefix)


def _get(obj: Any, path: str) -> Any:
    for seg in path.split("."):
        obj = obj[int(seg)] if isinstance(obj, list) else obj[seg]
    return obj


def make_sweeps(runs: list[RunSpec], replications: int, name: str, run_fn: str | None = None) -> list[Sweep]:
    """One sweep per group of runs with the same top-level keys: the base is the group's first
    scenario; one zip group sets, for every run, the (minimal) paths where the runs differ
    (always including ``name``), so stored points stay small. ``run_fn`` ("module:function",
    module-level so it pickles): an experiment's own run function (its ``run_fn`` key in the
    paper file), e.g. one that adds per-flow scalars; default :data:`RUN_FN`."""
    groups: dict[tuple[str, ...], list[RunSpec]] = {}
    for r in runs:
        groups.setdefault(tuple(sorted(r.scenario)), []).append(r)
    sweeps = []
    for gi, (keys, members) in enumerate(groups.items()):
        scen = [m.scenario for m in members]
        paths: list[str] = []
        for k in keys:
            _diff_paths([s[k] for s in scen], k, paths)
        if "name" not in paths:
            paths.insert(0, "name")
        zipped = {p: [_get(s, p) for s in scen] for p in paths}
        sweeps.append(
            Sweep(
                base=copy.deepcopy(scen[0]),
                zip=zipped,
                replications=replications,
                master_seed=MASTER_SEED,
                name=f"{name}#{gi}" if len(groups) > 1 else name,
                run_fn=run_fn or RUN_FN,
                cost=run_cost,
            )
        )
    return sweeps


def run_all(
    runs: list[RunSpec],
    replications: int,
    store_dir: Path,
    name: str,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    run_fn: str | None = None,
) -> dict[str, Any]:
    """Run every missing (run, replication) into ``store_dir``; returns counts and keys.

    ``progress(done, total)`` is called as runs finish (done counts stored ones too)."""
    store = ResultStore(store_dir)
    sweeps = make_sweeps(runs, replications, name, run_fn=run_fn)
    total = sum(len(s) for s in sweeps)
    keys: list[str] = []
    failed: list[str] = []
    done_before = 0
    version = engine_version()
    for sw in sweeps:

        def cb(p: SweepProgress, _offset: int = done_before) -> None:
            if progress is not None:
                progress(_offset + p.skipped + p.done, total)

        backend = "serial" if workers == 1 else "process"
        report = run_sweep(sw, store, workers=workers, backend=backend, progress=cb, engine_version=version)
        keys.extend(report.keys)
        failed.extend(f"{json.loads(json.dumps(f.point)).get('name', '?')}: {f.error}" for f in report.failures)
        done_before += len(sw)
    if progress is not None:
        progress(total, total)
    return {"keys": keys, "total": total, "failed": failed}


def read_runs(store_dir: Path, keys: list[str], runs: list[RunSpec]) -> pd.DataFrame:
    """One row per successful run: config, the point's axes, replication, seed, run time and
    every stored summary key."""
    store = ResultStore(store_dir)
    df = store.read_runs(keys=keys, status="ok")
    if df.empty:
        return pd.DataFrame()
    by_name = {r.scenario["name"]: r for r in runs}
    rows = []
    for _, row in df.iterrows():
        scen = json.loads(row["scenario"]) if isinstance(row.get("scenario"), str) else {}
        spec = by_name.get(scen.get("name"))
        if spec is None:
            continue
        d = {"config": spec.config, "scenario_file": spec.scenario_file, "label": spec.label, **spec.point}
        for c in df.columns:
            if c in ("scenario", "traceback", "point", "error"):
                continue
            d[c] = row[c]
        rows.append(d)
    return pd.DataFrame(rows)


def nan_to_none(v: Any) -> Any:
    return None if isinstance(v, float) and not math.isfinite(v) else v
