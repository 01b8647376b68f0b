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

Two sweeps sharing a store: each claims a job in the store index before
running it (:mod:`.store_index`); a job claimed by another live sweep is
waited for and its result reused, and one whose claimant has died is run.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import socket
import statistics
import threading
import time
import uuid
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    CancelledError,
    Executor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from concurrent.futures.process import BrokenProcessPool
from concurrent.futures.thread import BrokenThreadPool
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from types import FrameType
from typing import Any

import pandas as pd

from ..fingerprint import engine_fingerprint
from . import runfn
from .atomic_file import DiskFullError
from .definition import Job, RunFnSpec, Sweep
from .keys import canonical_json, point_id, run_key_of_json, scenario_id_of_json
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

BACKENDS = ("process", "thread", "serial", "dask")
WORKER_DIED = "worker died"
_BROKEN = (BrokenProcessPool, BrokenThreadPool)


def _broke_pool(fut: Future[Any]) -> bool:
    """A finished future that reports a broken pool."""
    return not fut.cancelled() and isinstance(fut.exception(), _BROKEN)


# --------------------------------------------------------------------- planning
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


# ---------------------------------------------------------------------- reports
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
        from ..html_summary import sweep_html

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


# -------------------------------------------------------------------- executors
class SerialExecutor(Executor):
    """Runs each job in the calling process at submit time (``workers=1``).

    No pickling and no subprocesses: the easiest mode to debug a run function in.
    """

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        fut: Future[Any] = Future()
        fut.set_running_or_notify_cancel()
        try:
            fut.set_result(fn(*args, **kwargs))
        except Exception as exc:
            fut.set_exception(exc)
        return fut


@dataclass
class _Backend:
    executor: Executor
    capacity: Callable[[], int]
    restart: Callable[[], Executor] | None = None  # only for pools we own
    close: Callable[[bool], None] = lambda interrupted: None


_PR_SET_PDEATHSIG = 1


def _init_worker(driver_pid: int | None) -> None:
    """Worker process set-up: die with the driver, leave Ctrl-C to it."""
    # The driver handles Ctrl-C for everyone (it terminates the pool); a worker
    # reacting too would print its own traceback. SIGTERM (how the driver stops a worker)
    # must kill it outright, not run a handler the driver installed before forking. The
    # worker was forked with both blocked (`_SignalDeferredPool`): one that came before
    # these lines is pending, and on unblocking is discarded (SIGINT) or kills (SIGTERM).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _DEFERRED_SIGNALS)
    if hasattr(os, "sched_getaffinity"):  # Linux: ask the kernel to SIGKILL us when the driver dies
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if driver_pid is not None and os.getppid() != driver_pid:  # the driver died before the prctl
        os._exit(1)


_DEFERRED_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM held back (not lost) on this thread: delivered when the block
    ends."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """SIGINT and SIGTERM (Ctrl-C, a scheduler's stop) recorded during the block and handed to
    their handlers when it ends, so the block is not cut in two. Python runs a signal's
    handler on the main thread whichever thread received it, so masking the main thread alone
    (:func:`_signals_deferred`) would not do while the pool's threads run: the handlers are
    swapped instead. Off the main thread (where handlers cannot be set) the block runs as is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[tuple[int, FrameType | None]] = []
    previous: dict[int, Any] = {
        sig: signal.signal(sig, lambda signum, frame: got.append((signum, frame))) for sig in _DEFERRED_SIGNALS
    }
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for signum, frame in got:
            handler = previous[signum]
            if callable(handler):
                handler(signum, frame)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(signum)


class _SignalDeferredPool(ProcessPoolExecutor):
    """A process pool whose workers are forked with SIGINT and SIGTERM blocked. A Ctrl-C
    (to the whole process group) or the driver's SIGTERM arriving while a worker starts would
    otherwise meet the driver's handlers before the worker's initializer replaces them, and
    the worker would print a KeyboardInterrupt traceback. The pool forks inside ``submit``."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        with _signals_deferred():
            return super().submit(fn, *args, **kwargs)


def _terminate_pool(pool: ProcessPoolExecutor) -> None:
    """Kill a pool's workers so Ctrl-C does not wait for in-flight runs."""
    procs = getattr(pool, "_processes", None) or {}
    for proc in list(procs.values()):
        try:
            proc.terminate()
        except Exception:
            pass


def _close_executor(ex: Executor, interrupted: bool) -> None:
    if interrupted:
        if isinstance(ex, ProcessPoolExecutor):
            _terminate_pool(ex)
            # Wait for the pool's manager thread, which notices the killed workers at once:
            # left running, it races the interpreter's exit hook for the pool's wake-up pipe
            # ("OSError: Bad file descriptor" printed at exit, CPython 3.11).
            ex.shutdown(wait=True, cancel_futures=True)
        else:
            ex.shutdown(wait=False, cancel_futures=True)
    else:
        ex.shutdown(wait=True)


def _dask_capacity(client: Any) -> Callable[[], int]:
    """2x the cluster's thread count, re-read every 2 s (clusters scale)."""
    last_read = -1e9
    cap = 1

    def capacity() -> int:
        nonlocal last_read, cap
        now = time.monotonic()
        if now - last_read > 2.0:
            try:
                cap = max(1, 2 * sum(client.nthreads().values()))
            except Exception:
                pass
            last_read = now
        return cap

    return capacity


def _open_dask(workers: int | None, scheduler: Any, cluster_kwargs: Mapping[str, Any] | None) -> _Backend:
    from ..errors import import_extra

    distributed = import_extra("distributed", "dask", "backend='dask'", package="dask[distributed]")
    Client, LocalCluster = distributed.Client, distributed.LocalCluster
    owned_client = owned_cluster = None
    if scheduler is None:
        kw = {"n_workers": workers or os.cpu_count() or 1, "threads_per_worker": 1, "dashboard_address": ":0"}
        kw.update(cluster_kwargs or {})
        owned_cluster = LocalCluster(**kw)
        client = owned_client = Client(owned_cluster)
    elif isinstance(scheduler, str):
        client = owned_client = Client(scheduler)
    else:
        client = scheduler  # a distributed.Client supplied by the caller
    executor = client.get_executor(pure=False)

    def close(interrupted: bool) -> None:
        if owned_client is not None:
            owned_client.close()
        if owned_cluster is not None:
            owned_cluster.close()

    return _Backend(executor, _dask_capacity(client), None, close)


def _open_backend(
    backend: str,
    executor: Executor | None,
    workers: int | None,
    scheduler: Any,
    max_in_flight: int | None,
    cluster_kwargs: Mapping[str, Any] | None,
    mp_context: Any,
) -> _Backend:
    if executor is not None:
        client = getattr(executor, "_client", None)
        if max_in_flight:
            cap = int(max_in_flight)
            return _Backend(executor, lambda: cap)
        if client is not None and hasattr(client, "nthreads"):
            return _Backend(executor, _dask_capacity(client))
        cap = int(getattr(executor, "_max_workers", 0) or os.cpu_count() or 1)
        return _Backend(executor, lambda: cap)
    if scheduler is not None:
        backend = "dask"
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r} (choose from {', '.join(BACKENDS)})")
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if backend == "dask":
        b = _open_dask(workers, scheduler, cluster_kwargs)
        if max_in_flight:
            b.capacity = lambda: int(max_in_flight)
        return b
    n = workers or os.cpu_count() or 1
    if backend == "serial" or n == 1:
        return _Backend(SerialExecutor(), lambda: 1)
    cap = int(max_in_flight or n)
    if backend == "thread":
        pool: Executor = ThreadPoolExecutor(max_workers=n)
        return _Backend(pool, lambda: cap, close=lambda i: _close_executor(pool, i))

    def make_pool() -> Executor:
        import multiprocessing

        method = (mp_context or multiprocessing).get_start_method()
        # Under forkserver the workers' parent is the server, not the driver.
        parent = os.getpid() if method in ("fork", "spawn") else None
        return _SignalDeferredPool(max_workers=n, mp_context=mp_context, initializer=_init_worker, initargs=(parent,))

    holder = {"pool": make_pool()}

    def restart() -> Executor:
        _close_executor(holder["pool"], True)
        holder["pool"] = make_pool()
        return holder["pool"]

    return _Backend(holder["pool"], lambda: cap, restart, lambda i: _close_executor(holder["pool"], i))


# ------------------------------------------------------------------------ driver
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
