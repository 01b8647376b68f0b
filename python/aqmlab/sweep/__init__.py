"""Parameter sweeps: define, run anywhere, store every run, aggregate.

>>> from aqmlab.sweep import Sweep, run_sweep, ResultStore
>>> sweep = Sweep.from_toml("orange-table2.toml")
>>> report = run_sweep(sweep, "results/orange")          # all local cores
>>> report.table()                                        # mean/std/CI per point

Modules: :mod:`.definition` (Sweep, seeds via :mod:`.keys`, dotted paths via
:mod:`.paths`), :mod:`.execute` (run_sweep, executors), :mod:`.runfn`
(worker side), :mod:`.store` (ResultStore), :mod:`.aggregate` (statistics,
export), :mod:`.cli` (the ``aqmlab sweep`` / ``aqmlab results`` commands).
See README.md in this directory for the sweep file format and store layout.
"""

from .aggregate import aggregate_runs, summarize, to_wide
from .definition import Job, Sweep, SweepDefinitionError
from .execute import (
    FailedRun,
    SerialExecutor,
    SweepInterrupted,
    SweepProgress,
    SweepReport,
    run_sweep,
)
from .keys import canonical_json, derive_seed, run_key
from .paths import PathError, get_path, set_path
from .runfn import engine_version
from .store import ResultStore, RunRecord

__all__ = [
    "FailedRun",
    "Job",
    "PathError",
    "ResultStore",
    "RunRecord",
    "SerialExecutor",
    "Sweep",
    "SweepDefinitionError",
    "SweepInterrupted",
    "SweepProgress",
    "SweepReport",
    "aggregate_runs",
    "canonical_json",
    "derive_seed",
    "engine_version",
    "get_path",
    "run_key",
    "run_sweep",
    "set_path",
    "summarize",
    "to_wide",
]
