"""Running the league: one :mod:`aqmlab.sweep` per scenario of :mod:`.grid`, one point per
AQM, a resumable store per scenario under ``OUT/store/`` (a re-run runs only the missing jobs).

:func:`league_run` is the sweeps' run function (``aqmlab.run``'s summary plus the league's
metrics); :func:`run_league` runs the grid and hands the aggregates to :mod:`.table`, which
writes the files; :func:`league_command` is ``aqmlab league``.
"""

from __future__ import annotations

import datetime as _dt
import functools
import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..cli_options import seconds
from .grid import SCENARIO_IDS, SUMMARY_KEYS, LeagueScenario, plan, resolve_scenarios
from .table import summary_section, tidy_rows, write

#: Part of every store key: bump it when league_run's output changes.
LEAGUE_VERSION = "league2"


# ---------------------------------------------------------------------------- run function
def _jain(xs: Sequence[float]) -> float:
    xs = [x for x in xs if math.isfinite(x)]
    if not xs:
        return math.nan
    s, s2 = sum(xs), sum(x * x for x in xs)
    return (s * s) / (len(xs) * s2) if s2 > 0 else math.nan


def fair_rates(scenario: Mapping[str, Any], flows: pd.DataFrame, exclude_groups: Sequence[str] = ()) -> list[float]:
    """Per-flow rates (bit/s) for the fairness index.

    Long-lived flows: goodput over the time the flow was active in the measurement window (a
    flow that starts at 25 s of a 50 s run is not "unfair" for having half the bytes); the
    start of each flow is its entry's ``start`` (cycled over the entry's flows in flow-table
    order); a random ``uniform`` start counts as the window's beginning. Finite transfers:
    delivered bits / completion time, completed transfers only.
    """
    duration = seconds(scenario.get("duration", 0))
    warmup = seconds(scenario.get("warmup", 0))
    span = max(duration - warmup, 1e-12)
    entries = scenario.get("flows", [])
    groups = [e.get("group") for e in entries]
    keep = flows[~flows["group"].isin(list(exclude_groups))] if "group" in flows else flows
    if any(g is None for g in groups) or len(set(groups)) != len(groups):
        # Flow rows cannot be matched to entries: plain goodputs.
        return [float(x) for x in keep["goodput_bps"]]
    rates: list[float] = []
    for entry in entries:
        g = entry["group"]
        if g in exclude_groups:
            continue
        rows = flows[flows["group"] == g]
        start = entry.get("start", 0)
        stop = seconds(entry["stop"]) if "stop" in entry else duration
        finite = "size" in entry
        for k, (goodput, done) in enumerate(zip(rows["goodput_bps"], rows["completion_time_s"], strict=True)):
            bits = float(goodput) * span
            if finite:
                if math.isfinite(done) and done > 0:
                    rates.append(bits / float(done))
                continue
            if isinstance(start, list):
                t0 = seconds(start[k % len(start)])
            elif isinstance(start, Mapping):
                t0 = 0.0
            else:
                t0 = seconds(start)
            active = min(stop, duration) - max(t0, warmup)
            if active > 0:
                rates.append(bits / active)
    return rates


def league_run(scenario: dict[str, Any], seed: int, exclude_groups: Sequence[str] = ()) -> dict[str, Any]:
    """The sweep's run function: ``aqmlab.run(...).summary`` plus the league's metrics
    (``league.*``: bottleneck utilization, delay, p99, loss, marks; goodput and Jain index of
    the counted flows)."""
    import aqmlab
    from aqmlab.scenario import bottleneck_name

    r = aqmlab.run(scenario, seed=seed)
    qname = bottleneck_name(scenario)
    # The run's summary without the other queues (400 access queues in NEWQUE: 8000 columns
    # per stored run that the league never reads).
    out: dict[str, Any] = {
        k: v for k, v in r.summary.items() if not k.startswith("queue.") or k.startswith(f"queue.{qname}.")
    }
    q = r.queue(qname)
    flows = r.flows
    counted = flows[~flows["group"].isin(list(exclude_groups))] if len(flows) else flows
    rates = fair_rates(scenario, flows, exclude_groups) if len(flows) else []
    out.update(
        {
            "league.utilization": float(q["utilization"]),
            "league.delay_ms": float(q["mean_delay_ms"]),
            "league.p99_delay_ms": float(q["p99_delay_ms"]),
            "league.loss_rate": float(q["loss_rate"]),
            "league.marks": float(q["marks"]),
            "league.goodput_bps": float(counted["goodput_bps"].sum()) if len(counted) else math.nan,
            "league.jain": _jain(rates),
            "league.fair_flows": len(rates),
        }
    )
    return out


# ---------------------------------------------------------------------------- the league
def run_league(
    out: str | Path,
    *,
    replications: int | None = None,
    quick: bool = False,
    workers: int | None = 2,
    aqms: Sequence[str] | None = None,
    scenarios: Sequence[LeagueScenario] | Sequence[str] | None = None,
    master_seed: int = 20240601,
    progress: Callable[[str], None] | None = None,
    figures: bool = True,
    tcp: str | None = None,
) -> pd.DataFrame:
    """Runs the league (only missing runs: the stores under ``out/store`` are resumable) and
    writes league.md, league.csv, league.parquet and the figures to ``out``. Returns the tidy
    table. ``tcp`` names a TCP profile for every flow (default: each paper's own TCP)."""
    from aqmlab.sweep import engine_version, run_sweep

    if figures:
        from ..reproduce import figures as _  # noqa: F401  (without matplotlib: fail now, not after the runs)

    specs = resolve_scenarios(scenarios)
    reps = replications if replications is not None else (2 if quick else 5)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    plans = plan(specs, aqms, quick, tcp)
    frames = []
    failures: list[str] = []
    for p in plans:
        sweep = p.sweep(reps, master_seed)
        store = out / "store" / (p.spec.id + ("-quick" if quick else ""))
        t_s = time.perf_counter()
        report = run_sweep(
            sweep,
            store,
            workers=workers,
            backend="serial" if workers == 1 else "process",
            run_fn=functools.partial(league_run, exclude_groups=p.spec.exclude_groups),
            engine_version=f"{engine_version()}+{LEAGUE_VERSION}",
        )
        for f in report.failures:
            failures.append(f"{p.spec.id}: {f}")
        if progress:
            progress(
                f"{p.spec.id}: {report.ok} runs, {report.skipped_ok} reused, {report.failed} failed, "
                f"{time.perf_counter() - t_s:.1f} s"
            )
        frames.append(tidy_rows(p, report.table(list(SUMMARY_KEYS))))
    tidy = pd.concat(frames, ignore_index=True)
    elapsed = time.perf_counter() - t0
    meta = {
        "command": _command_line(out, reps, quick, workers, aqms, specs, tcp),
        "date": _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "run_time_s": elapsed,
        "replications": reps,
        "quick": quick,
        "tcp": tcp or "each paper's own (ns-2)",
        "tcp_profile": tcp,
        "workers": workers,
        "failures": failures,
    }
    write(out, tidy, plans, meta, figures=figures)
    return tidy


def _command_line(
    out: Path,
    reps: int,
    quick: bool,
    workers: int | None,
    aqms: Sequence[str] | None,
    specs: Sequence[LeagueScenario],
    tcp: str | None = None,
) -> str:
    parts = ["aqmlab league", f"--out {out}"]
    if tcp:
        parts.append(f"--tcp {tcp}")
    if quick:
        parts.append("--quick")
    parts.append(f"--replications {reps}")
    parts.append(f"--workers {workers}")
    for a in aqms or []:
        parts.append(f"--aqm {a}")
    if [s.id for s in specs] != list(SCENARIO_IDS):
        parts += [f"--scenario {s.id}" for s in specs]
    return " ".join(parts)


# ---------------------------------------------------------------------------- aqmlab league
def league_command(
    out: str | Path = "results/league",
    replications: int | None = None,
    quick: bool = False,
    workers: int | None = 2,
    aqms: Sequence[str] | None = None,
    scenarios: Sequence[str] | None = None,
    tcp: str | None = None,
) -> int:
    """``aqmlab league``: runs the league, writes OUT/league.md (+ csv, parquet, figures),
    prints the summary. Returns an exit code: 0 ok, 1 some run failed, 2 bad input, 130 Ctrl-C."""
    import sys

    from aqmlab.cli_run import check_output_dir, written_after_work
    from aqmlab.errors import ScenarioError

    def say(msg: str) -> None:
        sys.stderr.write(msg + "\n")
        sys.stderr.flush()

    try:
        if replications is not None and replications < 1:
            raise ValueError(f"--replications must be >= 1, got {replications}")
        if workers is not None and workers < 1:
            raise ValueError(f"--workers must be >= 1, got {workers}")
        check_output_dir(out, "--out")
        kept = f"the runs done are stored in {Path(out) / 'store'}: the same command resumes"
        with written_after_work("--out", out, kept):
            tidy = run_league(
                out,
                replications=replications,
                quick=quick,
                workers=workers,
                aqms=aqms,
                scenarios=scenarios,
                progress=say,
                tcp=tcp,
            )
    except KeyboardInterrupt:
        say("interrupted")
        return 130
    except (ScenarioError, ValueError) as e:
        say(f"error: {str(e).strip().splitlines()[0] if str(e).strip() else 'invalid input'}")
        return 2
    meta = json.loads((Path(out) / "league.json").read_text(encoding="utf-8"))
    print(summary_section((Path(out) / "league.md").read_text(encoding="utf-8")))
    print(f"\nwrote {Path(out) / 'league.md'} ({len(tidy)} rows; {meta['run_time_s']:.0f} s)")
    return 1 if meta["failures"] else 0
