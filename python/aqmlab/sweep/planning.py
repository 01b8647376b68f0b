"""A sweep's jobs with their store identity (:class:`PlannedJob`, computed once on the
driver), and the order they run in: longest first, by stored run times or the sweep's
cost values."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .definition import Job, Sweep
from .keys import canonical_json, point_id, run_key_of_json, scenario_id_of_json


@dataclass
class PlannedJob:
    """A job with its store identity, computed once on the driver."""

    job: Job
    key: str
    scenario_id: str
    point_id: str
    scenario_json: str
    cost: float | None = None


def plan_jobs(sweep: Sweep, version: str) -> list[PlannedJob]:
    """All jobs of ``sweep`` with their store keys for engine ``version``."""
    out = []
    # The replications of a point share its scenario: serialize it once per point.
    last_point: dict[str, Any] | None = None
    sj = sid = pid = ""
    cost: float | None = None
    for job in sweep.jobs():
        if job.point != last_point:
            last_point = job.point
            sj = canonical_json(job.scenario)
            sid = scenario_id_of_json(sj)
            pid = point_id(job.point)
            cost = sweep.cost_of(job.scenario)
        out.append(
            PlannedJob(
                job=job,
                key=run_key_of_json(sj, job.seed, version),
                scenario_id=sid,
                point_id=pid,
                scenario_json=sj,
                cost=cost,
            )
        )
    return out


def order_longest_first(jobs: Sequence[PlannedJob], known_times: Mapping[str, float]) -> list[PlannedJob]:
    """Sort jobs by estimated run time, longest first (stable for ties).

    Estimates, in order of preference: the mean stored run time of the same
    scenario at other seeds; the user's cost value scaled to seconds by the
    jobs that have both; the raw cost value; the median of the other
    estimates.  With no information at all the definition order is kept.
    """
    est: list[float | None] = []
    pairs = [(known_times[j.scenario_id], j.cost) for j in jobs if j.scenario_id in known_times and j.cost]
    scale = sum(t for t, _ in pairs) / sum(c for _, c in pairs) if pairs else 1.0
    for j in jobs:
        if j.scenario_id in known_times:
            est.append(known_times[j.scenario_id])
        elif j.cost is not None:
            est.append(j.cost * scale)
        else:
            est.append(None)
    known = [e for e in est if e is not None]
    if not known:
        return list(jobs)
    fill = statistics.median(known)
    filled = [e if e is not None else fill for e in est]
    ranked = sorted(range(len(jobs)), key=lambda i: -filled[i])
    return [jobs[i] for i in ranked]
