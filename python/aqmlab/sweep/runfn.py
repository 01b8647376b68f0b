"""The worker side of a sweep: resolve the run function, run one job, report.

Everything here executes inside worker processes (or Dask workers), so it
must stay importable without the compiled engine and must never raise for
an ordinary run failure: a failure is *data* (status, message, traceback)
that the driver records, not a reason to lose the worker.
"""

from __future__ import annotations

import functools
import importlib
import json
import math
import os
import socket
import sys
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

RunFn = Callable[[dict[str, Any], int], Mapping[str, Any]]

_INT64_MAX = 2**63 - 1


def _default_run_fn(scenario: dict[str, Any], seed: int) -> Mapping[str, Any]:
    """The real engine; imported lazily so sweeps work without a built engine."""
    import aqmlab

    return aqmlab.run(scenario, seed=seed).summary


def engine_version() -> str:
    """``aqmlab.__version__`` if the package provides one, else ``"dev"``."""
    try:
        import aqmlab

        version = getattr(aqmlab, "__version__", None)
    except Exception:
        return "dev"
    return str(version) if version else "dev"


@functools.lru_cache(maxsize=64)
def _import_run_fn(spec: str, search_path: tuple[str, ...]) -> RunFn:
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = [p for p in search_path if p not in sys.path]
        if not missing or exc.name != module_name.split(".")[0]:
            raise
        # A run function living next to the sweep file: make its directory importable.
        sys.path[:0] = missing
        module = importlib.import_module(module_name)
    obj: Any = module
    for part in attr.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise TypeError(f"run function {spec!r} is not callable")
    fn: RunFn = obj  # imported by name: its signature is the caller's promise
    return fn


def resolve_run_fn(spec: str | RunFn | None, search_path: Sequence[str] = ()) -> RunFn:
    """Turn a run-function spec (None, callable or ``"module:function"``) into a callable."""
    if spec is None:
        return _default_run_fn
    if callable(spec):
        return spec
    return _import_run_fn(spec, tuple(search_path))


def sanitize_value(value: Any) -> bool | int | float | str | None:
    """Coerce one summary value to a Parquet-friendly scalar."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, float, str)):
        return value
    if isinstance(value, int):
        return value if -_INT64_MAX - 1 <= value <= _INT64_MAX else float(value)
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, sort_keys=True, default=str)
    try:
        f = float(value)
    except (TypeError, ValueError):
        return str(value)
    return f if not math.isnan(f) else math.nan


def sanitize_summary(summary: Any) -> dict[str, Any]:
    """Validate a run function's return value as a flat mapping of scalars.

    Objects with a ``summary`` attribute (e.g. a result object returned by
    ``aqmlab.run``) are accepted for convenience.
    """
    if not isinstance(summary, Mapping) and hasattr(summary, "summary"):
        summary = summary.summary
    if not isinstance(summary, Mapping):
        raise TypeError(f"run function must return a mapping of metrics, got {type(summary).__name__}")
    return {str(k): sanitize_value(v) for k, v in summary.items()}


def execute_job(
    scenario: dict[str, Any], seed: int, run_fn: str | RunFn | None = None, search_path: Sequence[str] = ()
) -> dict[str, Any]:
    """Run one job and describe the outcome; runs in the worker.

    Exceptions from the run function (and ``SystemExit``) become a
    ``status="failed"`` outcome with message and traceback.  Only
    ``KeyboardInterrupt`` propagates, so Ctrl-C stops the sweep instead of
    being recorded as a failed run.
    """
    start = time.perf_counter()
    outcome: dict[str, Any] = {"host": socket.gethostname(), "pid": os.getpid()}
    try:
        fn = resolve_run_fn(run_fn, search_path)
        metrics = sanitize_summary(fn(scenario, seed))
        outcome.update(status="ok", metrics=metrics, error=None, traceback=None)
    except (Exception, SystemExit) as exc:
        message = f"{type(exc).__name__}: {exc}"
        outcome.update(status="failed", metrics={}, error=message, traceback=traceback.format_exc())
    outcome["run_time_s"] = time.perf_counter() - start
    return outcome
