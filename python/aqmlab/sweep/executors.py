"""Where a sweep's jobs run: the backends (``process``, ``thread``, ``serial``, ``dask``) and
the care they take of signals. Worker processes ignore SIGINT (the driver stops them) and,
on Linux, are killed by the kernel when the driver dies, even by SIGKILL
(``PR_SET_PDEATHSIG``); a pool is forked with SIGINT and SIGTERM deferred."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import (
    Executor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
)
from concurrent.futures.process import BrokenProcessPool
from concurrent.futures.thread import BrokenThreadPool
from dataclasses import dataclass
from types import FrameType
from typing import Any

BACKENDS = ("process", "thread", "serial", "dask")
WORKER_DIED = "worker died"
_BROKEN = (BrokenProcessPool, BrokenThreadPool)


def _broke_pool(fut: Future[Any]) -> bool:
    """A finished future that reports a broken pool."""
    return not fut.cancelled() and isinstance(fut.exception(), _BROKEN)


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
