"""Ctrl-C stops simulations on every thread, not only the main one.

Python runs signal handlers on the main thread only, so a simulation on a worker
thread (a thread-pool sweep, a notebook's background run) never sees Ctrl-C
through ``PyErr_CheckSignals``; the main thread raises KeyboardInterrupt while
the worker keeps simulating and the process cannot exit until it ends.

On import, aqmlab therefore wraps Python's default SIGINT handler (only if it is
still the default: a handler installed by the application or a framework is left
alone) so that a Ctrl-C also calls :func:`interrupt`, which makes every run in
progress raise KeyboardInterrupt at its next poll. The event loop polls by wall-clock
time, not by a count of events: every 20 ms, or after the event under way when one
event takes longer (a Python AQM, a huge window), so a run stops well within a second
whatever its events cost (issue 24; it used to poll every 65,536 events, 40 s with
expensive ones).
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

from . import _core


def interrupt() -> None:
    """Stops every :func:`aqmlab.run` in progress in this process, on any thread.

    Each raises KeyboardInterrupt ("run interrupted") at its next poll (every 20 ms of
    wall-clock time, or after the event under way); runs started afterwards are
    unaffected. Safe to call from a signal handler or another thread."""
    _core.interrupt_runs()


def _sigint(signum: int, frame: FrameType | None) -> None:
    interrupt()
    signal.default_int_handler(signum, frame)


def install_sigint_handler() -> bool:
    """Wraps the default SIGINT handler as described above; True if it is now installed.

    Does nothing off the main thread (where handlers cannot be set) or when the
    application has installed a SIGINT handler of its own."""
    if threading.current_thread() is not threading.main_thread():
        return False
    current = signal.getsignal(signal.SIGINT)
    if current is _sigint:
        return True
    if current is not signal.default_int_handler:
        return False
    signal.signal(signal.SIGINT, _sigint)
    return True
