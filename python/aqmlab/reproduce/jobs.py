"""From an experiment to concrete scenarios: placeholders, overrides, AQM placement, quick mode.

One job: ``build_jobs(experiment, quick=...)`` returns one :class:`RunSpec` per
configuration x point, each with a complete scenario dict (no placeholders left). Running
them is :mod:`.execute`'s job.
"""

from __future__ import annotations

import copy
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomllib

from .errors import ReproduceError
from .placeholders import fmt as _fmt
from .placeholders import substitute
from .spec import Configuration, Experiment

_SEGMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)((?:\[[^\]]+\])*)$")
_INDEX = re.compile(r"\[([^\]]+)\]")


# --------------------------------------------------------------------------- override paths
def _parse_path(path: str) -> list[tuple[str, list[str]]]:
    out = []
    for seg in path.split("."):
        m = _SEGMENT.match(seg)
        if not m:
            raise ReproduceError(f"bad override path {path!r} at {seg!r}")
        out.append((m.group(1), _INDEX.findall(m.group(2))))
    return out


def _select(node: Any, sel: str, path: str) -> tuple[Any, Any]:
    """Apply one [..] selector to a list: returns (list, index)."""
    if not isinstance(node, list):
        raise ReproduceError(f"override path {path!r}: [{sel}] applied to a non-list")
    if "=" in sel:
        k, _, v = sel.partition("=")
        for i, item in enumerate(node):
            if isinstance(item, dict) and str(item.get(k.strip())) == v.strip():
                return node, i
        names = [item.get(k.strip()) for item in node if isinstance(item, dict) and k.strip() in item]
        raise ReproduceError(f"override path {path!r}: no element with {sel} (have {names})")
    try:
        i = int(sel)
    except ValueError as exc:
        raise ReproduceError(f"override path {path!r}: bad selector [{sel}]") from exc
    if not -len(node) <= i < len(node):
        raise ReproduceError(f"override path {path!r}: index {i} out of range ({len(node)} elements)")
    return node, i


def set_override(scenario: dict[str, Any], path: str, value: Any) -> None:
    """Set ``path`` (dotted; ``flows[0]``, ``links[name=q3]``) in ``scenario``; missing final
    keys and intermediate tables are created."""
    segs = _parse_path(path)
    node: Any = scenario
    for si, (key, sels) in enumerate(segs):
        last_seg = si == len(segs) - 1
        if not isinstance(node, dict):
            raise ReproduceError(f"override path {path!r}: {key!r} is not inside a table")
        if not sels:
            if last_seg:
                node[key] = copy.deepcopy(value)
                return
            if not isinstance(node.get(key), dict):
                if key in node and node[key] is not None and not isinstance(node[key], dict):
                    raise ReproduceError(f"override path {path!r}: {key!r} is not a table")
                node[key] = {}
            node = node[key]
            continue
        if key not in node:
            raise ReproduceError(f"override path {path!r}: no field {key!r}")
        cur = node[key]
        for j, sel in enumerate(sels):
            lst, idx = _select(cur, sel, path)
            if last_seg and j == len(sels) - 1:
                lst[idx] = copy.deepcopy(value)
                return
            cur = lst[idx]
        node = cur


def get_override(scenario: dict[str, Any], path: str) -> Any:
    node: Any = scenario
    for key, sels in _parse_path(path):
        node = node[key]
        for sel in sels:
            lst, idx = _select(node, sel, path)
            node = lst[idx]
    return node


def aqm_path(scenario: dict[str, Any], link: str) -> str:
    """Where the AQM of ``link`` lives: a graph link by name, or a dumbbell's bottleneck."""
    topo = scenario.get("topology", {})
    if topo.get("kind") == "graph":
        names = [lk.get("name") for lk in topo.get("links", [])]
        if link not in names:
            raise ReproduceError(f"scenario {scenario.get('name')!r} has no link named {link!r} (links: {names})")
        return f"topology.links[name={link}].queue.aqm"
    if link != "bottleneck":
        raise ReproduceError(f"a {topo.get('kind')!r} topology only has the 'bottleneck' link, not {link!r}")
    return "topology.bottleneck.queue.aqm"


# --------------------------------------------------------------------------- quick mode
@dataclass
class QuickPlan:
    """What --quick changes for one experiment (also printed in notes.md)."""

    replications: int
    duration_s: float | None = None  # cap, None = unchanged
    warmup_s: float | None = None
    axes: dict[str, list[Any]] = field(default_factory=dict)  # axis -> kept values
    max_points: int | None = 4  # per configuration with >max_points points (explicit points lists)

    def describe(self, full_reps: int, exp: Experiment) -> list[str]:
        out = [f"replications {full_reps} -> {self.replications}"]
        if self.duration_s is not None:
            out.append(f"duration capped at {self.duration_s:g} s (warm-up {self.warmup_s:g} s)")
        for a, vals in self.axes.items():
            out.append(f"axis {a}: only {vals}")
        if self.max_points:
            out.append(
                f"configurations with more than {self.max_points} points keep {self.max_points} evenly spaced ones (axes without an explicit subset)"
            )
        return out


def _secs(v: Any) -> float:
    if isinstance(v, (int, float)):
        return float(v)
    s = str(v).strip()
    for unit, f in (("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9), ("min", 60.0), ("h", 3600.0), ("s", 1.0)):
        if s.endswith(unit):
            return float(s[: -len(unit)]) * f
    return float(s)


def _evenly(values: list[Any], n: int) -> list[Any]:
    if len(values) <= n:
        return list(values)
    idx = sorted({round(i * (len(values) - 1) / (n - 1)) for i in range(n)})
    return [values[i] for i in idx]


def quick_plan(exp: Experiment, full_reps: int) -> QuickPlan:
    """Defaults: 2 replications, durations capped at 200 s (warm-up 10 %), axes with more
    than 4 values thinned to 4 evenly spaced ones; an experiment's ``quick`` table in the
    paper file overrides any of these (keys replications, duration, warmup, axes, max_points)."""
    q = dict(exp.get("quick", {}) or {})
    plan = QuickPlan(replications=min(full_reps, int(q.get("replications", 2))))
    if "duration" in q:
        plan.duration_s = _secs(q["duration"])
        plan.warmup_s = _secs(q.get("warmup", 0.1 * plan.duration_s))
    else:
        plan.duration_s = 200.0
        plan.warmup_s = 20.0
    plan.axes = {k: list(v) for k, v in dict(q.get("axes", {})).items()}
    plan.max_points = q.get("max_points", 4)
    return plan


def _apply_quick_points(
    points: list[dict[str, Any]], conf: Configuration, exp: Experiment, plan: QuickPlan
) -> list[dict[str, Any]]:
    sa = exp.get("scenario_axis")
    out = [p for p in points if all(p.get(a) in vals for a, vals in plan.axes.items() if a in p)]
    if not plan.max_points:
        return out
    # thin every axis that has no explicit subset and more than max_points values
    axes_vals: dict[str, list[Any]] = {}
    for p in out:
        for a, v in p.items():
            axes_vals.setdefault(a, [])
            if v not in axes_vals[a]:
                axes_vals[a].append(v)
    keep: dict[str, list[Any]] = {}
    for a, vals in axes_vals.items():
        if a == sa or a in plan.axes or len(vals) <= plan.max_points:
            continue
        keep[a] = _evenly(vals, plan.max_points)
    return [p for p in out if all(p[a] in vals for a, vals in keep.items())]


def _apply_quick_scenario(s: dict[str, Any], plan: QuickPlan) -> None:
    if plan.duration_s is None:
        return
    dur = _secs(s.get("duration", "0s"))
    if dur <= plan.duration_s:
        return
    s["duration"] = f"{plan.duration_s:g}s"
    warm = _secs(s.get("warmup", "0s"))
    s["warmup"] = f"{min(warm, plan.warmup_s or 0.0):g}s"


# --------------------------------------------------------------------------- jobs
@dataclass
class RunSpec:
    """One configuration at one point: the concrete scenario and how to label it."""

    config: str
    point: dict[str, Any]
    scenario_file: str
    scenario: dict[str, Any]

    @property
    def label(self) -> str:
        pt = ",".join(f"{k}={_fmt(v)}" for k, v in self.point.items())
        return f"{self.config}|{pt}|{Path(self.scenario_file).stem}"


def load_scenario_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise ReproduceError(f"scenario file not found: {path}")
    return tomllib.loads(path.read_text(encoding="utf-8"))


def build_run(exp: Experiment, conf: Configuration, point: dict[str, Any], quick: QuickPlan | None = None) -> RunSpec:
    path = exp.scenario_file(point)
    scen = load_scenario_file(path)
    for p, v in exp.overrides.items():
        set_override(scen, p, substitute(v, point))
    for axis, by_value in exp.axis_settings.items():
        if axis not in point:
            continue
        key = _fmt(point[axis])
        if key not in by_value:
            raise ReproduceError(f"{exp.paper}/{exp.id}: axis {axis!r} has no settings for {key!r}")
        for p, v in by_value[key].items():
            set_override(scen, p, substitute(v, point))
    aqm = substitute(conf.aqm, point)
    for link in exp.aqm_links:
        set_override(scen, aqm_path(scen, link), aqm)
    if quick is not None:
        _apply_quick_scenario(scen, quick)
    spec = RunSpec(
        config=conf.name, point=dict(point), scenario_file=str(path.relative_to(path.parents[1])), scenario=scen
    )
    # The scenario name carries the run's identity (it is the sweep point's "name" axis).
    scen["name"] = f"{exp.paper}/{exp.id}/{spec.label}"
    return spec


def build_jobs(
    exp: Experiment,
    quick: QuickPlan | None = None,
    configs: list[str] | None = None,
    include_optional: bool = True,
) -> list[RunSpec]:
    runs: list[RunSpec] = []
    for conf in exp.configurations:
        if configs is not None and conf.name not in configs:
            continue
        if conf.optional and not include_optional:
            continue
        points = exp.points(conf)
        if quick is not None:
            points = _apply_quick_points(points, conf, exp, quick)
        for pt in points:
            if exp.scenarios and len(exp.scenarios) > 1 and not exp.get("scenario_axis"):
                # several scenario files without an axis selecting one: run each
                for sf in exp.scenarios:
                    runs.append(_build_with_file(exp, conf, pt, sf, quick))
            else:
                runs.append(build_run(exp, conf, pt, quick))
    labels = [r.label for r in runs]
    dup = {x for x in labels if labels.count(x) > 1}
    if dup:
        raise ReproduceError(f"{exp.paper}/{exp.id}: duplicate runs {sorted(dup)}")
    return runs


def _build_with_file(
    exp: Experiment, conf: Configuration, point: dict[str, Any], sf: str, quick: QuickPlan | None
) -> RunSpec:
    sub = copy.copy(exp)
    sub.data = {**exp.data, "scenarios": [sf]}
    return build_run(sub, conf, point, quick)


def canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def is_finite_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
