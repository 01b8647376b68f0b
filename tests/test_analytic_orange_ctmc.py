"""Exact CTMC of the Orange queue: limits, balance, a simulation, random parameters."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from aqmlab.analytic import mm1k, mm1k_from_queue_limit, orange_ctmc
from hypothesis import given, settings
from hypothesis import strategies as st


def _generator(lam: float, mu: float, k: int, t: float, b: int, mode: str) -> np.ndarray:
    """Dense generator written out from the algorithm, independently of the package."""
    size = 2 * (b + 2)
    q = np.zeros((size, size))
    for n in range(b + 2):
        for s in (0, 1):
            i = 2 * n + s
            waiting = max(n - 1, 0)
            x = waiting if mode == "waiting" else n
            if waiting >= b and n >= 1:
                pass  # full: forced drop
            elif x > k and s == 0:
                q[i, 2 * n + 1] += lam
            else:
                q[i, 2 * (n + 1) + s] += lam
            if n >= 1:
                q[i, 2 * (n - 1) + s] += mu
            if s == 1:
                q[i, 2 * n] += 1.0 / t
    q -= np.diag(q.sum(axis=1))
    return q


@pytest.mark.parametrize("mode", ["waiting", "system"])
def test_balance_equations_hold(mode: str) -> None:
    r = orange_ctmc(1200.0, 1250.0, 10, 0.005, 30, mode)
    pi = r.stationary.ravel()
    q = _generator(1200.0, 1250.0, 10, 0.005, 30, mode)
    assert pi.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(pi @ q, 0.0, atol=1e-9 * 1250.0)


def test_infinite_timer_is_droptail_exactly() -> None:
    # Once the first early drop starts a timer that never expires, Orange never
    # drops early again: the queue is DropTail with B waiting places, M/M/1/(B+1).
    b = 50
    r = orange_ctmc(1200.0, 1250.0, 10, math.inf, b)
    d = mm1k_from_queue_limit(1200.0, 1250.0, b)
    np.testing.assert_allclose(r.stationary[:, 1], d.probabilities, rtol=1e-10, atol=1e-15)
    assert r.early_drop_probability == 0.0
    assert r.forced_drop_probability == pytest.approx(d.loss_probability, rel=1e-10)
    assert r.mean_waiting == pytest.approx(d.mean_waiting, rel=1e-10)
    assert r.mean_sojourn_time == pytest.approx(d.mean_sojourn_time, rel=1e-10)


def test_very_long_timer_tends_to_droptail() -> None:
    r = orange_ctmc(1200.0, 1250.0, 10, 1e9, 50)
    d = mm1k_from_queue_limit(1200.0, 1250.0, 50)
    assert r.mean_in_system == pytest.approx(d.mean_in_system, rel=1e-6)
    assert r.loss_probability == pytest.approx(d.loss_probability, rel=1e-5)


@pytest.mark.parametrize(
    "mode, k, b, capacity",
    [
        # A timer that expires at once is always idle: every arrival with x > K is
        # dropped. "waiting": q <= K is enqueued, so q reaches K + 1, n reaches K + 2.
        ("waiting", 10, 50, 12),
        # "system": n <= K is enqueued, so n reaches K + 1.
        ("system", 10, 50, 11),
        # The buffer cuts first when it is smaller than the threshold cut.
        ("waiting", 10, 8, 9),
    ],
)
def test_instant_timer_cuts_the_queue_at_the_threshold(mode: str, k: int, b: int, capacity: int) -> None:
    r = orange_ctmc(1200.0, 1250.0, k, 1e-10, b, mode)
    d = mm1k(1200.0, 1250.0, capacity)
    p_n = r.stationary.sum(axis=1)
    np.testing.assert_allclose(p_n[: capacity + 1], d.probabilities, atol=1e-5)
    assert r.loss_probability == pytest.approx(d.loss_probability, rel=1e-4)
    assert r.mean_in_system == pytest.approx(d.mean_in_system, rel=1e-4)


def test_agrees_with_a_direct_simulation_of_the_algorithm() -> None:
    # Event-driven simulation of the Orange pseudo-code (paper Fig. 2).
    lam, mu, k, t, b = 0.96, 1.0, 3, 4.0, 8
    rng = random.Random(12345)
    n, busy, now = 0, False, 0.0
    area_n = arrivals = early = forced = 0.0
    while arrivals < 300_000:
        rates = (lam, mu if n else 0.0, 1.0 / t if busy else 0.0)
        total = sum(rates)
        dt = rng.expovariate(total)
        area_n += n * dt
        now += dt
        u = rng.random() * total
        if u < rates[0]:
            arrivals += 1
            q = max(n - 1, 0)
            if n >= 1 and q >= b:
                forced += 1
            elif q > k and not busy:
                early += 1
                busy = True
            else:
                n += 1
        elif u < rates[0] + rates[1]:
            n -= 1
        else:
            busy = False
    r = orange_ctmc(lam, mu, k, t, b)
    assert area_n / now == pytest.approx(r.mean_in_system, rel=0.03)
    assert early / arrivals == pytest.approx(r.early_drop_probability, rel=0.05)
    assert forced / arrivals == pytest.approx(r.forced_drop_probability, rel=0.15)


@settings(max_examples=60, deadline=None)
@given(
    lam=st.floats(0.05, 20.0),
    mu=st.floats(0.05, 20.0),
    k=st.integers(0, 30),
    t=st.floats(1e-3, 1e3),
    b=st.integers(1, 40),
    mode=st.sampled_from(["waiting", "system"]),
)
def test_random_parameters_give_a_consistent_distribution(
    lam: float, mu: float, k: int, t: float, b: int, mode: str
) -> None:
    r = orange_ctmc(lam, mu, k, t, b, mode)
    pi = r.stationary
    assert np.all(pi >= 0) and np.all(pi <= 1)
    assert pi.sum() == pytest.approx(1.0, abs=1e-9)
    for p in (r.forced_drop_probability, r.early_drop_probability, r.loss_probability):
        assert -1e-12 <= p <= 1 + 1e-12
    assert r.loss_probability == pytest.approx(r.forced_drop_probability + r.early_drop_probability)
    p_n = pi.sum(axis=1)
    # Flow balance: accepted rate = departure rate.
    assert r.throughput == pytest.approx(mu * (1 - p_n[0]), rel=1e-7, abs=1e-12)
    # FIFO with exponential service: sojourn = waiting + one mean service time.
    assert r.mean_sojourn_time - r.mean_waiting_time == pytest.approx(1 / mu, rel=1e-6)
    assert 0 <= r.mean_waiting <= b


def test_section4_case_is_between_its_limits() -> None:
    r = orange_ctmc(1200.0, 1250.0, 10, 0.005, 50)
    cut = mm1k(1200.0, 1250.0, 12)  # instant timer
    droptail = mm1k_from_queue_limit(1200.0, 1250.0, 50)  # infinite timer
    assert cut.mean_waiting < r.mean_waiting < droptail.mean_waiting
    assert droptail.loss_probability < r.loss_probability < cut.loss_probability


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(lam=-1.0), "lam must be > 0"),
        (dict(mu=0.0), "mu must be > 0"),
        (dict(threshold=-1), "threshold must be >= 0"),
        (dict(timer_mean=0.0), "timer_mean must be > 0"),
        (dict(buffer=0), "buffer must be >= 1"),
        (dict(threshold_counts="bytes"), "threshold_counts must be 'waiting' or 'system'"),
        (dict(timer_mean=math.inf, threshold=49), "timer_mean=inf needs a reachable"),
    ],
)
def test_invalid_inputs(kwargs: dict, message: str) -> None:
    args = dict(lam=1200.0, mu=1250.0, threshold=10, timer_mean=0.005, buffer=50) | kwargs
    with pytest.raises(ValueError, match=message):
        orange_ctmc(**args)
