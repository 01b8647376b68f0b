"""What a sweep invocation tells its caller: the progress snapshots passed to the
``progress`` callback, the :class:`SweepReport` of what it did (and access to its results),
and the two ways it stops early, :class:`SweepInterrupted` (Ctrl-C) and
:class:`SweepDiskFull`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .atomic_file import DiskFullError
from .store import ResultStore, RunRecord


@dataclass
class SweepProgress:
    """Snapshot passed to the ``progress`` callback after every finished run."""

    total: int  # jobs to execute in this invocation
    done: int
    ok: int
    failed: int
    skipped: int  # jobs already in the store
    running: int
    elapsed_s: float
    eta_s: float | None
    last: RunRecord | None = None


@dataclass
class FailedRun:
    key: str
    point: dict[str, Any]
    replication: int
    seed: int
    error: str | None


@dataclass
class SweepReport:
    """What one :func:`run_sweep` invocation did, and access to its results."""

    name: str
    store: ResultStore
    engine_version: str
    total: int
    skipped_ok: int = 0
    skipped_failed: int = 0
    executed_keys: list[str] = field(default_factory=list, repr=False)
    ok: int = 0
    failed: int = 0
    failures: list[FailedRun] = field(default_factory=list)
    not_run: int = 0
    stopped_reason: str | None = None
    elapsed_s: float = 0.0
    fingerprint: str = ""
    stale_rerun: int = 0  # stored by another engine fingerprint, run again
    stale_kept: int = 0  # stored by another engine fingerprint, kept (reuse_stale)
    corrupt_rerun: int = 0  # stored file failed its checksum, run again
    from_other_sweep: int = 0  # claimed by a concurrent sweep, waited for and reused
    keys: list[str] = field(default_factory=list, repr=False)
    axes: list[str] = field(default_factory=list)
    metrics: list[str] | None = None
    point_order: list[str] = field(default_factory=list, repr=False)

    @property
    def executed(self) -> int:
        return len(self.executed_keys)

    @property
    def complete(self) -> bool:
        """True when every job of the sweep is stored as successful."""
        return self.not_run == 0 and self.failed == 0 and self.skipped_failed == 0 and not self.stopped_reason

    def table(self, metrics: Sequence[str] | None = None, confidence: float = 0.95) -> pd.DataFrame:
        """Tidy aggregate of this sweep's successful runs (see :mod:`.aggregate`)."""
        return self.store.aggregate(
            metrics if metrics is not None else self.metrics,
            keys=self.keys,
            axes=self.axes,
            point_order=self.point_order,
            confidence=confidence,
        )

    def runs(self, status: str | None = None) -> pd.DataFrame:
        """Stored runs of this sweep (all statuses by default)."""
        return self.store.runs(status=status, keys=self.keys)

    def _repr_html_(self) -> str:
        """Jupyter's view: counts, axes, failures and the aggregate table (first rows)."""
        from .report_html import sweep_html

        return sweep_html(self)

    def summary_line(self) -> str:
        """One line: what this invocation did and what is left."""
        r = self
        pending = r.not_run
        line = f"{r.executed} run(s) done ({r.ok} ok, {r.failed} failed), {pending} not run"
        if r.skipped_ok + r.skipped_failed:
            line += f", {r.skipped_ok + r.skipped_failed} reused from {r.store.path}"
        return line


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C during a sweep; ``report`` describes what was stored before it."""

    def __init__(self, report: SweepReport) -> None:
        super().__init__("sweep interrupted")
        self.report = report


class SweepDiskFull(DiskFullError):
    """The store's disk filled during a sweep; ``report`` describes what was stored."""

    def __init__(self, report: SweepReport, cause: BaseException) -> None:
        super().__init__(
            28,
            f"the disk holding {report.store.path} is full ({cause}); {report.summary_line()}. "
            "Nothing partial was written: free some space and run the same command to resume.",
        )
        self.report = report
