"""Run a sweep's missing jobs on an executor, storing each result as it lands.

The driver keeps at most ``capacity`` jobs in flight (the worker count for
local pools, twice the thread count of a Dask cluster, re-read as the
cluster grows) and submits the longest jobs first.  Bounding the queue keeps
three properties cheap: longest-first ordering is honoured exactly, the
jobs "in flight" when a worker process dies are known precisely, and Ctrl-C
has little to cancel.

Failure policy:

* the run function raises -> the run is stored with ``status="failed"``,
  message and traceback; the sweep continues; ``retry_failed=True`` re-runs
  only those;
* a local worker process dies (``BrokenProcessPool``) -> every job in flight
  at that moment is stored as failed with an error starting ``"worker
  died"`` (any of them may have been the culprit), runs that had already
  finished are kept, a fresh pool is started and the sweep continues.  After
  ``max_pool_restarts`` breakages the sweep stops cleanly, leaving the
  remaining jobs missing for the next invocation;
* a Dask worker dies -> Dask reschedules its tasks itself; a task that kills
  several workers ends in ``KilledWorker`` and is stored as failed;
* Ctrl-C -> in-flight jobs are abandoned (not recorded, so they run next
  time), worker processes are terminated, and :class:`SweepInterrupted` (a
  ``KeyboardInterrupt`` carrying the partial report) is raised;
* the store's disk fills -> the sweep stops as for Ctrl-C and raises
  :class:`SweepDiskFull` (nothing partial is written: run it again to resume).

Worker processes ignore SIGINT (the driver stops them) and, on Linux, are
killed by the kernel when the driver dies, even by SIGKILL
(``PR_SET_PDEATHSIG``).

Which stored runs are reused: a run stored as ``ok`` (or ``failed``, unless
``retry_failed``) under the same key -- same scenario, seed and
``engine_version`` -- whose file passes its SHA-256 check and which was
computed by the same engine *fingerprint* (:mod:`aqmlab.fingerprint`).  A run
from another fingerprint is *stale*: it is re-run, or, with
``reuse_stale=True``, kept with a warning.  Corrupt runs are re-run.

By job: :mod:`.planning` (the jobs, their keys and their order), :mod:`.executors` (the
backends and their signals), :mod:`.report` (what an invocation returns or raises), and
here the driver and :func:`run_sweep`; every name stays importable from here.

Two sweeps sharing a store: each claims a job in the store index before
running it (:mod:`.store_index`); a job claimed by another live sweep is
waited for and its result reused, and one whose claimant has died is run.
"""

from __future__ import annotations

import os
import pickle
import socket
import time
import uuid
import warnings
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    CancelledError,
    Executor,
    Future,
    ThreadPoolExecutor,
    wait,
)
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..fingerprint import engine_fingerprint
from . import runfn
from .atomic_file import DiskFullError
from .definition import RunFnSpec, Sweep
from .executors import _BROKEN as _BROKEN
from .executors import _DEFERRED_SIGNALS as _DEFERRED_SIGNALS
from .executors import _PR_SET_PDEATHSIG as _PR_SET_PDEATHSIG
from .executors import BACKENDS as BACKENDS
from .executors import WORKER_DIED as WORKER_DIED
from .executors import SerialExecutor as SerialExecutor
from .executors import _Backend as _Backend
from .executors import _broke_pool as _broke_pool
from .executors import _close_executor as _close_executor
from .executors import _dask_capacity as _dask_capacity
from .executors import _init_worker as _init_worker
from .executors import _interrupts_held as _interrupts_held
from .executors import _open_backend as _open_backend
from .executors import _open_dask as _open_dask
from .executors import _SignalDeferredPool as _SignalDeferredPool
from .executors import _signals_deferred as _signals_deferred
from .executors import _terminate_pool as _terminate_pool
from .keys import canonical_json
from .planning import PlannedJob as PlannedJob
from .planning import order_longest_first as order_longest_first
from .planning import plan_jobs as plan_jobs
from .report import FailedRun as FailedRun
from .report import SweepDiskFull as SweepDiskFull
from .report import SweepInterrupted as SweepInterrupted
from .report import SweepProgress as SweepProgress
from .report import SweepReport as SweepReport
from .runfn import _default_run_fn, engine_version, execute_job
from .store import ResultStore, RunRecord

__all__ = [
    "BACKENDS",
    "FailedRun",
    "PlannedJob",
    "SweepDiskFull",
    "SweepInterrupted",
    "SweepProgress",
    "SweepReport",
    "SerialExecutor",
    "_default_run_fn",
    "engine_version",
    "order_longest_first",
    "plan_jobs",
    "run_sweep",
]


class _Driver:
    """The submit/collect loop of one invocation."""

    def __init__(
        self,
        store: ResultStore,
        report: SweepReport,
        todo: Sequence[PlannedJob],
        backend: _Backend,
        run_fn: RunFnSpec,
        search_path: Sequence[str],
        progress: Callable[[SweepProgress], None] | None,
        max_pool_restarts: int,
        seen_sha256: Mapping[str, str | None],
    ) -> None:
        self.store = store
        self.report = report
        self.pending: deque[PlannedJob] = deque(todo)
        self.total = len(todo)
        self.inflight: dict[Future[dict[str, Any]], PlannedJob] = {}
        self.backend = backend
        self.run_fn = run_fn
        self.search_path = list(search_path)
        self.progress = progress
        self.restarts_left = max_pool_restarts
        self.start = time.monotonic()
        self.done = 0
        self.counted: set[str] = set()  # keys stored and counted by this invocation
        # Claims in the store index keep a concurrent sweep from running our jobs (and us theirs).
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.waiting: dict[str, PlannedJob] = {}  # claimed by another live sweep
        # The checksum of each job's stored run when planned (None: none stored); a
        # different one at claim time means another sweep has stored it since.
        self.seen_sha256 = seen_sha256
        self.last_beat = self.last_poll = time.monotonic()

    def _notify(self, last: RunRecord | None) -> None:
        if self.progress is None:
            return
        elapsed = time.monotonic() - self.start
        eta = elapsed / self.done * (self.total - self.done) if self.done else None
        r = self.report
        self.progress(
            SweepProgress(
                self.total,
                self.done,
                r.ok,
                r.failed,
                r.skipped_ok + r.skipped_failed,
                len(self.inflight),
                elapsed,
                eta,
                last,
            )
        )

    def _record(self, p: PlannedJob, outcome: Mapping[str, Any]) -> None:
        rec = RunRecord(
            key=p.key,
            point_id=p.point_id,
            point=p.job.point,
            replication=p.job.replication,
            seed=p.job.seed,
            status=str(outcome.get("status", "failed")),
            engine_version=self.report.engine_version,
            scenario_id=p.scenario_id,
            scenario_json=p.scenario_json,
            run_time_s=outcome.get("run_time_s"),
            error=outcome.get("error"),
            traceback=outcome.get("traceback"),
            host=outcome.get("host"),
            pid=outcome.get("pid"),
            finished_at=datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
            metrics=dict(outcome.get("metrics") or {}),
            fingerprint=self.report.fingerprint,
        )
        # Storing a run and counting it go together: a Ctrl-C between the two counted a stored
        # run as not run, and a full disk after the run file, in the index, counted it nowhere.
        with _interrupts_held():
            try:
                self.store.write_run(rec, release_owner=self.owner)
            except DiskFullError as exc:
                if getattr(exc, "run_stored", False):  # its file is whole: readers index it from there
                    self._count(p, rec)
                raise
            self._count(p, rec)
        self._notify(rec)

    def _count(self, p: PlannedJob, rec: RunRecord) -> None:
        r = self.report
        self.counted.add(p.key)
        r.executed_keys.append(p.key)
        if rec.status == "ok":
            r.ok += 1
        else:
            r.failed += 1
            r.failures.append(FailedRun(p.key, dict(p.job.point), p.job.replication, p.job.seed, rec.error))
        self.done += 1

    @staticmethod
    def _lost(exc: BaseException) -> dict[str, Any]:
        if isinstance(exc, _BROKEN):
            msg = (
                f"{WORKER_DIED}: {type(exc).__name__}: {exc} -- this run was in flight when a worker "
                "process terminated abruptly (it may or may not be the cause); retry with retry_failed"
            )
        elif type(exc).__name__ == "KilledWorker":
            msg = f"{WORKER_DIED}: {type(exc).__name__}: {exc}"
        else:
            msg = f"run lost: {type(exc).__name__}: {exc}"
        return {"status": "failed", "error": msg, "traceback": None, "metrics": {}}

    def _collect(self, fut: Future[dict[str, Any]], p: PlannedJob) -> bool:
        """Record a finished future; False if it reports a broken pool."""
        try:
            outcome = fut.result()
        except _BROKEN:
            return False
        except CancelledError:
            self.report.not_run += 1  # cancelled by someone else: leave it missing
            return True
        except Exception as exc:  # KilledWorker, unpicklable result, ...
            outcome = self._lost(exc)
        self._record(p, outcome)
        return True

    def _handle_broken(self) -> bool:
        """Record in-flight jobs of a broken pool as failed; True to continue."""
        for fut, p in list(self.inflight.items()):
            try:
                outcome = fut.result(timeout=60)
            except Exception as exc:
                outcome = self._lost(exc)
            try:
                self._record(p, outcome)  # a full disk leaves the unrecorded ones in flight, not run
            finally:
                if p.key in self.counted:
                    del self.inflight[fut]
        if self.backend.restart is None or self.restarts_left <= 0:
            self.report.stopped_reason = "a worker process died and the pool could not be restarted"
            if self.backend.restart is not None:
                self.report.stopped_reason = "worker processes died too often; stopped"
            self.report.not_run += len(self.pending)
            self.pending.clear()
            return False
        self.restarts_left -= 1
        self.backend.executor = self.backend.restart()
        return True

    def _next_claimed(self) -> PlannedJob | None:
        """The next pending job this sweep could claim; others' jobs move to ``waiting``
        (or are reused at once if another sweep stored them since we planned)."""
        while self.pending:
            p = self.pending.popleft()
            try:
                refused = self.store.db.claim(
                    p.key, self.owner, seen_sha256=self.seen_sha256.get(p.key), fingerprint=self.report.fingerprint
                )
            except BaseException:  # a full disk or Ctrl-C while claiming: the job is still to run
                self.pending.appendleft(p)
                raise
            if refused is None:
                return p
            if "stored" in refused:
                self._reuse_from_other(refused["stored"])
            else:
                self.waiting[p.key] = p
        return None

    def _reuse_from_other(self, status: str) -> None:
        self.report.from_other_sweep += 1
        if status == "ok":
            self.report.skipped_ok += 1
        else:
            self.report.skipped_failed += 1
        self.total -= 1

    def _poll_others(self) -> None:
        """Reuse what concurrent sweeps finished; take back jobs whose claimant is gone."""
        now = time.monotonic()
        if now - self.last_beat > 5.0:
            self.store.db.heartbeat(self.owner)
            self.last_beat = now
        if not self.waiting or now - self.last_poll < 0.5:
            return
        self.last_poll = now
        stored = self.store.db.runs()
        for key in list(self.waiting):
            status = stored.get(key, {}).get("status")
            if status is not None:
                del self.waiting[key]
                self._reuse_from_other(status)
            elif self.store.db.holder(key) is None:  # its sweep stopped without storing it
                self.pending.append(self.waiting.pop(key))
        self._notify(None)

    def _fill(self) -> bool:
        """Submits pending jobs up to the backend's capacity; True if the pool is broken."""
        capacity = max(1, self.backend.capacity())
        while self.pending and len(self.inflight) < capacity:
            p = self._next_claimed()
            if p is None:
                break
            try:
                fut = self.backend.executor.submit(
                    execute_job, p.job.scenario, p.job.seed, self.run_fn, self.search_path
                )
            except _BROKEN:
                self.pending.appendleft(p)
                return True
            except KeyboardInterrupt:  # the serial executor runs the job inside submit()
                self.pending.appendleft(p)
                raise
            self.inflight[fut] = p
        return False

    def run(self) -> None:
        self._notify(None)
        while self.pending or self.inflight or self.waiting:
            self._poll_others()
            if not self.inflight and not self.pending:
                time.sleep(0.2)  # only jobs of another sweep are left: wait for them
                continue
            broken = self._fill()
            if not broken and self.inflight:
                done, _ = wait(list(self.inflight), timeout=1.0, return_when=FIRST_COMPLETED)
                finished = [(fut, self.inflight.pop(fut)) for fut in done]
                # The workers get their next jobs before these are recorded (a run file's write
                # and fsync, an index transaction): a worker that finished a short run would
                # otherwise idle through them (a sweep of 1,060 Hybrid RED runs on 2 workers:
                # 20% of the cores idle). Not into a broken pool (its futures are recorded
                # below), nor with the serial executor, which runs a job inside submit().
                serial = isinstance(self.backend.executor, SerialExecutor)
                if not serial and not any(_broke_pool(fut) for fut, _ in finished):
                    broken = self._fill()
                for i, (fut, p) in enumerate(finished):
                    try:
                        collected = self._collect(fut, p)
                    except (KeyboardInterrupt, DiskFullError):
                        # A worker's Ctrl-C, or no room to store the run: this job (unless it was
                        # stored all the same) and the other finished ones not yet recorded go
                        # back in flight, so the stop counts them as not run (a full disk lost one
                        # from the counts, issue 24).
                        for f, q in finished[i:]:
                            if q.key not in self.counted:
                                self.inflight[f] = q
                        raise
                    if not collected:
                        # Recorded with the other in-flight jobs below.
                        for f, q in finished[i:]:
                            self.inflight[f] = q
                        broken = True
                        break
            if broken and not self._handle_broken():
                return


def run_sweep(
    sweep: Sweep,
    store_dir: str | Path | ResultStore,
    *,
    executor: Executor | None = None,
    workers: int | None = None,
    backend: str = "process",
    scheduler: Any = None,
    progress: Callable[[SweepProgress], None] | None = None,
    retry_failed: bool = False,
    run_fn: RunFnSpec = None,
    engine_version: str | None = None,
    max_in_flight: int | None = None,
    cluster_kwargs: Mapping[str, Any] | None = None,
    max_pool_restarts: int = 3,
    mp_context: Any = None,
    reuse_stale: bool = False,
    fingerprint: str | None = None,
) -> SweepReport:
    """Run every job of ``sweep`` that is not yet stored in ``store_dir``.

    Parameters
    ----------
    executor:
        Any ``concurrent.futures.Executor`` (including a Dask
        ``client.get_executor()``); it is used as is and not shut down.
    workers:
        Pool size for the built-in backends (default ``os.cpu_count()``);
        ``workers=1`` runs in-process without a pool.
    backend:
        ``"process"`` (default), ``"thread"``, ``"serial"`` or ``"dask"``
        (an embedded ``LocalCluster`` with ``workers`` single-threaded worker
        processes, customisable with ``cluster_kwargs``).
    scheduler:
        ``"tcp://host:8786"`` or a ``distributed.Client`` to run on an
        existing Dask cluster (implies ``backend="dask"``).
    progress:
        Called with a :class:`SweepProgress` at the start and after each run.
    retry_failed:
        Also re-run jobs stored as failed (successful ones never re-run).
    run_fn:
        Overrides ``sweep.run_fn``; default ``aqmlab.run(...).summary``.
        A callable must be picklable for process/Dask backends; a
        ``"module:function"`` string is imported in the worker.
    engine_version:
        Part of every store key (default ``aqmlab.__version__`` or
        ``"dev"``); pass a distinct value when injecting a different run
        function into a shared store.
    reuse_stale:
        Keep stored runs computed by another engine fingerprint (with a
        warning) instead of re-running them.
    fingerprint:
        The engine fingerprint recorded with each run (default
        :func:`aqmlab.fingerprint.engine_fingerprint`).
    """
    t0 = time.monotonic()
    store = store_dir if isinstance(store_dir, ResultStore) else ResultStore(store_dir)
    store.require_writable()  # an archived, read-only store can be read, not swept into
    fn_spec = run_fn if run_fn is not None else sweep.run_fn
    version = str(engine_version) if engine_version is not None else runfn.engine_version()
    planned = plan_jobs(sweep, version)
    index = store.index()
    # Each stored run's checksum now; a different one at claim time means another
    # sweep stored that job since (corrupt runs set aside below count as none).
    seen_sha256 = {key: row.get("sha256") for key, row in store.db.runs().items()}
    fp = str(fingerprint) if fingerprint is not None else engine_fingerprint()

    report = SweepReport(
        name=sweep.name,
        store=store,
        engine_version=version,
        total=len(planned),
        keys=[p.key for p in planned],
        axes=list(sweep.axes),
        metrics=list(sweep.metrics) if sweep.metrics else None,
        point_order=[canonical_json(pt) for pt in sweep.expand_points()],
        fingerprint=fp,
    )
    # A stored run is reused only if its file still matches its checksum.
    corrupt = set(store.verify([p.key for p in planned if p.key in index]))
    report.corrupt_rerun = len(corrupt)
    todo, stale_kept = [], 0
    for p in planned:
        entry = index.get(p.key, {}) if p.key not in corrupt else {}
        status = entry.get("status")
        reuse = status == "ok" or (status == "failed" and not retry_failed)
        if reuse and entry.get("fingerprint") != fp:
            if not reuse_stale:
                report.stale_rerun += 1
                reuse = False
            else:
                stale_kept += 1
        if not reuse:
            todo.append(p)
        elif status == "ok":
            report.skipped_ok += 1
        else:
            report.skipped_failed += 1
    report.stale_kept = stale_kept
    if stale_kept:
        warnings.warn(
            f"{stale_kept} stored run(s) in {store.path} were computed by another engine build "
            f"(fingerprint differs from {fp}); kept because reuse_stale=True",
            stacklevel=2,
        )
    store.save_sweep_meta(
        {
            "name": sweep.name,
            "engine_version": version,
            "axes": report.axes,
            "metrics": report.metrics,
            "point_order": report.point_order,
            "keys": report.keys,
            "definition": sweep.to_dict(),
            "saved_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
    )
    todo = order_longest_first(todo, store.cost_estimates(index))
    search_path = [str(sweep.base_dir.resolve())] if sweep.base_dir is not None else []

    if not todo:
        if progress is not None:
            progress(SweepProgress(0, 0, 0, 0, report.skipped_ok + report.skipped_failed, 0, 0.0, 0.0))
        report.elapsed_s = time.monotonic() - t0
        return report

    back = _open_backend(backend, executor, workers, scheduler, max_in_flight, cluster_kwargs, mp_context)
    if callable(fn_spec) and not isinstance(back.executor, (SerialExecutor, ThreadPoolExecutor)):
        try:
            pickle.dumps(fn_spec)
        except Exception as exc:
            back.close(False)
            raise TypeError(
                f"run_fn {fn_spec!r} cannot be sent to worker processes ({exc}); define it at module level, "
                "pass it as 'module:function', or run with workers=1 / backend='thread'"
            ) from exc
    seen = {p.key: None if p.key in corrupt else seen_sha256.get(p.key) for p in todo}
    driver = _Driver(store, report, todo, back, fn_spec, search_path, progress, max_pool_restarts, seen)
    interrupted = False

    def stop(reason: str) -> None:
        nonlocal interrupted
        interrupted = True
        for fut in driver.inflight:
            fut.cancel()
        report.not_run += len(driver.pending) + len(driver.inflight) + len(driver.waiting)
        report.stopped_reason = reason
        report.elapsed_s = time.monotonic() - t0

    try:
        driver.run()
    except KeyboardInterrupt as exc:
        stop("interrupted")
        raise SweepInterrupted(report) from exc
    except DiskFullError as exc:
        stop("disk full")
        raise SweepDiskFull(report, exc) from exc
    finally:
        back.close(interrupted)
        try:
            store.db.release(driver.owner)
        except Exception:  # noqa: BLE001 - a claim of a dead process is taken over anyway
            pass
        # Closing merges the index's WAL into it: a store archived after the sweep is one
        # file, read completely even read-only (the next use of the store reopens it).
        store.db.close()
    report.elapsed_s = time.monotonic() - t0
    return report
