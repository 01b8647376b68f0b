"""M/M/1/K closed form checked against hand computations and the M/M/1 limit."""

from __future__ import annotations

import math

import numpy as np
import pytest
from aqmlab.analytic import mm1k, mm1k_from_queue_limit, mm1k_probabilities


def test_hand_computed_k2_rho_half() -> None:
    # K = 2, lam = 1, mu = 2: weights 1, 1/2, 1/4 sum to 7/4, so p = 4/7, 2/7, 1/7.
    r = mm1k(1.0, 2.0, 2)
    np.testing.assert_allclose(r.probabilities, [4 / 7, 2 / 7, 1 / 7], rtol=1e-14)
    assert r.mean_in_system == pytest.approx(4 / 7)  # 2/7 + 2*1/7
    assert r.mean_waiting == pytest.approx(1 / 7)  # only state 2 has one waiting
    assert r.loss_probability == pytest.approx(1 / 7)
    assert r.throughput == pytest.approx(6 / 7)  # = mu (1 - p0) = 2 * 3/7
    assert r.mean_sojourn_time == pytest.approx(2 / 3)  # (4/7) / (6/7)
    assert r.mean_waiting_time == pytest.approx(1 / 6)  # (1/7) / (6/7)


@pytest.mark.parametrize("rho", [0.3, 0.9, 1.0, 1.7])
@pytest.mark.parametrize("k", [1, 5, 40])
def test_probabilities_sum_to_one_and_match_closed_form(rho: float, k: int) -> None:
    p = mm1k_probabilities(rho * 100.0, 100.0, k)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    n = np.arange(k + 1)
    expected = np.full(k + 1, 1 / (k + 1)) if rho == 1.0 else (1 - rho) * rho**n / (1 - rho ** (k + 1))
    np.testing.assert_allclose(p, expected, rtol=1e-10)


@pytest.mark.parametrize("rho", [0.3, 0.9, 1.7])
def test_textbook_mean_and_flow_balance(rho: float) -> None:
    k = 12
    r = mm1k(rho * 10.0, 10.0, k)
    textbook_l = rho / (1 - rho) - (k + 1) * rho ** (k + 1) / (1 - rho ** (k + 1))
    assert r.mean_in_system == pytest.approx(textbook_l, rel=1e-10)
    # What gets in must get out: lam (1 - p_K) = mu (1 - p_0).
    assert r.throughput == pytest.approx(10.0 * (1 - r.probabilities[0]), rel=1e-12)
    assert r.mean_in_system - r.mean_waiting == pytest.approx(1 - r.probabilities[0])


def test_large_k_tends_to_mm1() -> None:
    rho = 0.8
    r = mm1k(rho, 1.0, 400)
    assert r.mean_in_system == pytest.approx(rho / (1 - rho), rel=1e-9)
    assert r.mean_waiting == pytest.approx(rho**2 / (1 - rho), rel=1e-9)
    assert r.mean_sojourn_time == pytest.approx(1 / (1 - rho), rel=1e-9)


def test_overload_with_large_k_does_not_overflow() -> None:
    r = mm1k(10.0, 1.0, 2000)
    assert r.loss_probability == pytest.approx(0.9, rel=1e-12)
    assert math.isfinite(r.mean_in_system)


def test_queue_limit_counts_waiting_only() -> None:
    a = mm1k_from_queue_limit(3.0, 4.0, 7)
    b = mm1k(3.0, 4.0, 8)
    assert a.capacity == 8
    np.testing.assert_array_equal(a.probabilities, b.probabilities)
    # limit 0: only the packet on the wire, i.e. M/M/1/1 with loss rho/(1+rho).
    assert mm1k_from_queue_limit(1.0, 1.0, 0).loss_probability == pytest.approx(0.5)


@pytest.mark.parametrize(
    "args, message",
    [
        ((-3.0, 1.0, 2), "lam must be > 0"),
        ((1.0, 0.0, 2), "mu must be > 0"),
        ((1.0, 1.0, 0), "capacity must be >= 1"),
        ((1.0, 1.0, 2.5), "capacity must be an integer"),
        ((float("nan"), 1.0, 2), "lam must not be NaN"),
    ],
)
def test_invalid_inputs(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        mm1k(*args)


def test_invalid_queue_limit() -> None:
    with pytest.raises(ValueError, match="queue_limit must be >= 0"):
        mm1k_from_queue_limit(1.0, 1.0, -1)
