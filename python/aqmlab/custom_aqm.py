"""AQMs prototyped in Python, run by the Rust engine in place of a built-in algorithm.

A Python AQM is a class. A scenario names it like a built-in (``aqm = "my_red"`` or
``aqm = { kind = "my_red", max_p = 0.1 }``); the engine instantiates it once per queue with
the table's other keys as keyword arguments (values as written: ``"5ms"`` stays a string) and
then calls its methods::

    class MyDropTail:
        def on_arrival(self, view, packet) -> str:
            return "drop_forced" if view.is_full_for(packet.size) else "enqueue"

Required: ``on_arrival(view, packet)`` returning one of ``"enqueue"``, ``"mark"``, ``"drop"``
(early drop), ``"drop_forced"``, ``"drop_front"``, ``"mark_front"``. Optional:
``on_departure(view, packet)`` returning ``"send"``, ``"mark"`` or ``"drop"``;
``on_link_idle(now)``; ``timer_interval`` (seconds) with ``on_timer(view)``; ``state()``
returning ``dict[str, float]`` for the sampled time series. Before the first call the engine
sets ``self.rng``, the queue's own random stream (``uniform()``, ``bernoulli(p)``,
``exponential(mean)``): use it, not :mod:`random`, so runs stay deterministic.

``view`` has ``now`` (s), ``len_packets``, ``len_bytes``, ``limit``, ``limit_unit``
("packets"/"bytes"), ``link_rate_bps``, ``idle_since`` (s or None) and ``is_full_for(size)``;
``packet`` has ``size`` (bytes), ``flow``, ``ect``, ``ce``, ``kind`` ("tcp_data", "tcp_ack",
"udp"). A ``"mark"`` verdict for a packet that is not ECN-capable is an early drop, as in the
core. An exception raised by any method stops the run and is re-raised by :func:`aqmlab.run`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from . import _core

if TYPE_CHECKING:
    from ._core import PacketView, QueueView, Rng

ArrivalVerdictName = Literal["enqueue", "mark", "drop", "drop_forced", "drop_front", "mark_front"]
DepartureVerdictName = Literal["send", "mark", "drop"]


@runtime_checkable
class PythonAqm(Protocol):
    """The interface of a Python AQM (only ``on_arrival`` is required)."""

    rng: Rng

    def on_arrival(self, view: QueueView, packet: PacketView) -> ArrivalVerdictName: ...


_lock = threading.Lock()
_registry: dict[str, type] = {}


def _builtin_names() -> set[str]:
    return {a["name"] for a in _core.aqms()}


def _check(name: str, cls: object) -> None:
    if not isinstance(name, str) or not name:
        raise ValueError("an AQM name must be a non-empty string")
    if name in _builtin_names():
        raise ValueError(f"'{name}' is a built-in AQM; give the Python AQM another name")
    if not callable(cls):
        raise TypeError(f"AQM '{name}': expected a class, got {type(cls).__name__}")
    if not callable(getattr(cls, "on_arrival", None)):
        raise TypeError(f"AQM '{name}': {getattr(cls, '__name__', cls)!s} has no on_arrival(view, packet) method")


def register_aqm(name: str, cls: type) -> type:
    """Registers a Python AQM class under ``name`` for every later :func:`aqmlab.run`.

    Returns ``cls``. Names of built-in AQMs are refused.
    """
    _check(name, cls)
    with _lock:
        _registry[name] = cls
    return cls


def unregister_aqm(name: str) -> None:
    """Removes a registered Python AQM (no error if absent)."""
    with _lock:
        _registry.pop(name, None)


def registered_aqms() -> dict[str, type]:
    """A copy of the registered Python AQMs, by name."""
    with _lock:
        return dict(_registry)


def merged(custom_aqms: Mapping[str, type] | None) -> dict[str, type]:
    """Registered AQMs overridden by the ``custom_aqms`` given to one run."""
    out = registered_aqms()
    if custom_aqms:
        for name, cls in custom_aqms.items():
            _check(name, cls)
            out[name] = cls
    return out


# ---------------------------------------------------------------------------------------------
# Templates: copy and edit.


class DropTail:
    """Tail drop in Python; gives exactly the results of the built-in ``droptail``."""

    def on_arrival(self, view: QueueView, packet: PacketView) -> str:
        return "drop_forced" if view.is_full_for(packet.size) else "enqueue"


class SimpleRed:
    """A compact RED (Floyd & Jacobson 1993, gentle, packet mode) for prototyping.

    Not bit-identical to the built-in ``red`` (no ns-2 idle-time details, fixed thresholds),
    but the same algorithm: an EWMA of the queue length on each arrival, a drop probability
    rising linearly between ``min_th`` and ``max_th`` and spread by the count since the last
    drop.
    """

    rng: Rng  # set by the engine before the first call

    def __init__(
        self, min_th: float = 5, max_th: float = 15, max_p: float = 0.1, w_q: float = 0.002, ecn: bool = False
    ):
        if not 0 < min_th < max_th:
            raise ValueError(f"need 0 < min_th < max_th, got min_th={min_th}, max_th={max_th}")
        self.min_th, self.max_th, self.max_p, self.w_q, self.ecn = (
            float(min_th),
            float(max_th),
            float(max_p),
            float(w_q),
            ecn,
        )
        self.avg = 0.0
        self.count = -1
        self.p_a = 0.0

    def on_arrival(self, view: QueueView, packet: PacketView) -> str:
        if view.idle_since is not None and view.len_packets == 0:
            # Decay the average as if small packets had left during the idle time.
            idle_pkts = (view.now - view.idle_since) * view.link_rate_bps / (8 * 1000)
            self.avg *= (1 - self.w_q) ** idle_pkts
        self.avg += self.w_q * (view.len_packets - self.avg)
        if view.is_full_for(packet.size):
            self.count = 0
            return "drop_forced"
        if self.avg < self.min_th:
            self.count = -1
            return "enqueue"
        if self.avg >= 2 * self.max_th:
            self.count = 0
            return "drop_forced"
        if self.avg < self.max_th:
            p_b = self.max_p * (self.avg - self.min_th) / (self.max_th - self.min_th)
        else:
            p_b = self.max_p + (1 - self.max_p) * (self.avg - self.max_th) / self.max_th
        self.count += 1
        denom = 1 - self.count * p_b
        self.p_a = 1.0 if denom <= 0 else p_b / denom
        if self.rng.uniform() < self.p_a:
            self.count = 0
            return "mark" if self.ecn and packet.ect else "drop"
        return "enqueue"

    def state(self) -> dict[str, float]:
        # the built-in RED's names (docs/aqms.md, "State variables"), so that plots and scripts read both alike
        return {"avg_packets": self.avg, "p": self.p_a}
