"""Exact continuous-time Markov chain of the Orange queue (the algorithm itself).

Source: the Orange paper (aqmlab seed 000), section 3, Fig. 2 pseudo-code, and
aqmlab's docs (shared/specs/seed-algorithms.md, "Orange"). Morrison's model
(:mod:`.morrison`) only approximates Orange: it lets server 2 work whenever the
queue is above the threshold and never blocks. The chain below is what a
Poisson experiment with exponential packet sizes (paper section 4) measures.

State (n, s): n = packets in the system (waiting + the one in transmission),
n = 0..buffer+1; s = 0 if the drop timer is idle, 1 if busy.
q = max(n - 1, 0) is the number of **waiting packets, excluding the one in
service** -- the quantity Orange compares with its thresholds by default.

Transitions:
* arrival, rate lam, in state (n, s):
  - q >= buffer (n = buffer + 1): forced drop, no change;
  - else if x > threshold and s = idle: early drop, timer starts: (n, 1);
    x = q for ``threshold_counts="waiting"`` (default), x = n for ``"system"``;
  - else enqueue: (n + 1, s). An arrival to an empty system goes straight into
    service, so buffer >= 1 gives capacity buffer + 1 like M/M/1/(B+1).
* service completion, rate mu, n >= 1: (n - 1, s);
* timer expiry, rate 1/timer_mean, s = busy: (n, 0).

Limits (used by the tests): timer_mean -> inf gives DropTail, i.e. the
M/M/1/(buffer+1) queue, once the first early drop has happened (the timer never
goes idle again); ``timer_mean=math.inf`` is accepted and then returns that
limiting distribution on the closed busy class. timer_mean -> 0 keeps the timer
idle, so every arrival with q > K is dropped: with "waiting" the system never
holds more than K + 2 packets (K + 1 waiting + 1 in service) and the chain
tends to M/M/1/min(K + 2, buffer + 1); with "system" to M/M/1/min(K + 1, buffer + 1).

Section-4 case (lam 1200, mu 1250 packets/s, T 5 ms, buffer 50 -- ns-2's default
limit; the paper does not give one), "waiting": K = 10 gives 6.78 packets waiting,
7.70 in system, 4.15 % early drops, sojourn 6.70 ms; K = 14 (the MinTh of the paper's
Table 1) gives 8.08 waiting, 9.01 in system (paper's simulation: 9.04), 3.06 %.

Outputs by PASTA and Little's law (accepted packets only): mean number waiting
and in system (packets), forced / early / total drop probabilities per
arrival, throughput (packets/s), mean waiting and sojourn times (s).

Parameters and units:
    lam         Poisson arrival rate, packets/s (> 0)
    mu          exponential service rate of the link, packets/s (> 0)
    threshold   Orange threshold K, packets, integer >= 0
    timer_mean  mean T of the exponential drop timer, s (> 0, may be math.inf)
    buffer      B, max waiting packets excluding the one in service, integer >= 1
    threshold_counts  "waiting" (x = q, default) or "system" (x = n)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ._validation import integer, positive
from .mm1k import carried, single_server_means

ThresholdCounts = Literal["waiting", "system"]


@dataclass(frozen=True)
class OrangeCTMCResult:
    stationary: np.ndarray = field(repr=False)  # (buffer + 2, 2): P(n, s), s = 0 idle, 1 busy
    mean_waiting: float  # packets, excluding the one in service
    mean_in_system: float  # packets
    forced_drop_probability: float  # per arrival
    early_drop_probability: float  # per arrival
    loss_probability: float  # forced + early
    throughput: float  # packets/s accepted (= mu P(n >= 1))
    mean_waiting_time: float  # s, accepted packets
    mean_sojourn_time: float  # s, accepted packets


def _check(
    lam: float,
    mu: float,
    threshold: int,
    timer_mean: float,
    buffer: int,
    threshold_counts: ThresholdCounts,
) -> tuple[float, float, int, float, int, ThresholdCounts]:
    lam = positive("lam", lam)
    mu = positive("mu", mu)
    k = integer("threshold", threshold, minimum=0)
    t = positive("timer_mean", timer_mean, allow_inf=True)
    b = integer("buffer", buffer, minimum=1)
    if threshold_counts not in ("waiting", "system"):
        raise ValueError(f"threshold_counts must be 'waiting' or 'system', got {threshold_counts!r}")
    return lam, mu, k, t, b, threshold_counts


def _early_drop_states(buffer: int, threshold: int, threshold_counts: str) -> np.ndarray:
    """Boolean mask over n = 0..buffer+1: an arrival here with the timer idle is dropped early."""
    n = np.arange(buffer + 2)
    x = np.maximum(n - 1, 0) if threshold_counts == "waiting" else n
    return (x > threshold) & (n <= buffer)


def orange_generator(
    lam: float,
    mu: float,
    threshold: int,
    timer_mean: float,
    buffer: int,
    threshold_counts: ThresholdCounts = "waiting",
) -> sp.csr_matrix:
    """Infinitesimal generator Q; state (n, s) has index 2 n + s."""
    lam, mu, k, t, b, mode = _check(lam, mu, threshold, timer_mean, buffer, threshold_counts)
    early = _early_drop_states(b, k, mode)
    expiry = 0.0 if math.isinf(t) else 1.0 / t
    rows: list[int] = []
    cols: list[int] = []
    rates: list[float] = []

    def add(src: int, dst: int, rate: float) -> None:
        if rate > 0.0:
            rows.append(src)
            cols.append(dst)
            rates.append(rate)

    for n in range(b + 2):
        for s in (0, 1):
            i = 2 * n + s
            if n <= b:
                if early[n] and s == 0:
                    add(i, 2 * n + 1, lam)
                else:
                    add(i, 2 * (n + 1) + s, lam)
            if n >= 1:
                add(i, 2 * (n - 1) + s, mu)
            if s == 1:
                add(i, 2 * n, expiry)
    size = 2 * (b + 2)
    off = sp.coo_matrix((np.asarray(rates), (np.asarray(rows), np.asarray(cols))), shape=(size, size)).tocsr()
    return (off - sp.diags(np.asarray(off.sum(axis=1)).ravel())).tocsr()


def orange_ctmc(
    lam: float,
    mu: float,
    threshold: int,
    timer_mean: float,
    buffer: int,
    threshold_counts: ThresholdCounts = "waiting",
) -> OrangeCTMCResult:
    """Stationary solution of the Orange queue's CTMC (see module docstring)."""
    lam, mu, k, t, b, mode = _check(lam, mu, threshold, timer_mean, buffer, threshold_counts)
    early = _early_drop_states(b, k, mode)
    if math.isinf(t) and not early.any():
        # Both timer classes would be closed: the stationary law is not unique.
        raise ValueError(
            f"timer_mean=inf needs a reachable early-drop region, but threshold={k} "
            f"({mode}) is never exceeded below buffer={b}"
        )
    q = orange_generator(lam, mu, k, t, b, mode)
    size = q.shape[0]
    # pi Q = 0 has rank size - 1; one balance equation is swapped for sum(pi) = 1.
    a = q.T.tolil()
    a[size - 1, :] = np.ones(size)
    rhs = np.zeros(size)
    rhs[-1] = 1.0
    pi = spla.spsolve(a.tocsc(), rhs)
    # Round-off can leave ~1e-17 negatives on states that are (nearly) never visited.
    pi = np.clip(pi, 0.0, None)
    pi /= pi.sum()
    grid = pi.reshape(b + 2, 2)

    p_n = grid.sum(axis=1)
    mean_in_system, mean_waiting = single_server_means(p_n)
    forced = float(p_n[-1])
    early_p = float(grid[early, 0].sum())
    loss = forced + early_p
    throughput, sojourn, waiting = carried(lam, loss, mean_in_system, mean_waiting)
    return OrangeCTMCResult(
        stationary=grid,
        mean_waiting=mean_waiting,
        mean_in_system=mean_in_system,
        forced_drop_probability=forced,
        early_drop_probability=early_p,
        loss_probability=loss,
        throughput=throughput,
        mean_waiting_time=waiting,
        mean_sojourn_time=sojourn,
    )
