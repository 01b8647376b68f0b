"""Morrison's threshold queue (Orange paper eqs. 1-12) and its section-4 numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from aqmlab.analytic import (
    morrison,
    morrison_p0,
    morrison_probabilities,
    morrison_sojourn_time,
    morrison_waiting_time,
    orange_morrison,
)
from aqmlab.analytic.morrison import SECTION4_C


def test_section4_numbers_printed_in_the_paper() -> None:
    # Paper sec. 4: "waiting time is computed as 0.006989, and correspondingly
    # using the Little's formula, the average queue size is computed as 8.38".
    r = morrison(1200.0, 1250.0, 200.0, SECTION4_C)
    assert round(r.waiting_time, 6) == 0.006989
    # lam W = 8.3869: the paper's 8.38 is this truncated, not rounded.
    assert math.floor(r.mean_waiting * 100) / 100 == 8.38
    assert r.mean_waiting == pytest.approx(1200.0 * r.waiting_time)


def test_section4_with_the_papers_own_substitution_does_not_give_its_number() -> None:
    # c = K + 1 with K = 10 (eq. 7): documents that the printed W needs c = 16.
    r = orange_morrison(1200.0, 1250.0, 200.0, 10)
    assert r.c == 11
    assert r.waiting_time == pytest.approx(0.0055717, rel=1e-4)
    matches = [c for c in range(1, 40) if round(morrison_waiting_time(1200, 1250, 200, c), 6) == 0.006989]
    assert matches == [16]


def _direct_sums(lam: float, mu1: float, mu2: float, c: int) -> tuple[float, float]:
    """Mean wait and sojourn by summing eq. 2 term by term (no closed form)."""
    p = morrison_probabilities(lam, mu1, mu2, c, 20000)
    assert p.sum() == pytest.approx(1.0, abs=1e-10)
    n = np.arange(p.size)
    in_service = np.minimum(n, 1) + (n > c)  # server 2 busy above c
    return float((n - in_service) @ p) / lam, float(n @ p) / lam


@pytest.mark.parametrize(
    "lam, mu1, mu2, c",
    [
        (1200.0, 1250.0, 200.0, 11),
        (1200.0, 1250.0, 200.0, 16),
        (3.0, 5.0, 1.0, 4),
        (5.5, 5.0, 1.0, 3),  # lam > mu1, stable thanks to server 2
        (2.0, 2.0, 0.5, 6),  # lam == mu1: generalised eqs. 4/6
        (2.0, 2.0, 2.0, 5),  # lam == mu1 == mu2: Morrison's own eqs. 4/6
    ],
)
def test_closed_forms_match_direct_summation(lam: float, mu1: float, mu2: float, c: int) -> None:
    w, t = _direct_sums(lam, mu1, mu2, c)
    assert morrison_waiting_time(lam, mu1, mu2, c) == pytest.approx(w, rel=1e-9)
    assert morrison_sojourn_time(lam, mu1, mu2, c) == pytest.approx(t, rel=1e-9)


def test_equal_rates_limit_is_printed_eq4() -> None:
    lam, c = 2.0, 5
    p0 = morrison_p0(lam, lam, lam, c)
    assert p0 == pytest.approx(1 / (c + 2))  # c + 1 states at P0, tail P0 (1/2 + 1/4 + ...)
    assert morrison_waiting_time(lam, lam, lam, c) == pytest.approx(p0 * c * (c + 1) / (2 * lam))
    assert morrison_sojourn_time(lam, lam, lam, c) == pytest.approx(p0 * (c * c + 3 * c + 4) / (2 * lam))


def test_c1_equal_servers_is_mm2() -> None:
    # Paper: "This system reduces to the generic M/M/2 case when c is one."
    lam, mu = 1.5, 1.0
    r2 = lam / (2 * mu)
    mm2_lq = 2 * r2**3 / (1 - r2**2)  # textbook M/M/2
    assert morrison_waiting_time(lam, mu, mu, 1) == pytest.approx(mm2_lq / lam)
    assert morrison_sojourn_time(lam, mu, mu, 1) == pytest.approx(mm2_lq / lam + 1 / mu)


def test_drop_server_fraction_balances_flow() -> None:
    r = morrison(1200.0, 1250.0, 200.0, 11)
    p = morrison_probabilities(1200.0, 1250.0, 200.0, 11, 5000)
    # Everything that arrives leaves through server 1 or server 2.
    served_by_1 = 1250.0 * (1 - p[0])
    assert served_by_1 + 1200.0 * r.drop_server_fraction == pytest.approx(1200.0, rel=1e-9)


@pytest.mark.parametrize(
    "args, message",
    [
        ((1200.0, -3, 200.0, 10), "mu1 must be > 0, got -3"),
        ((1200.0, 1250.0, 0.0, 10), "mu2 must be > 0"),
        ((0.0, 1250.0, 200.0, 10), "lam must be > 0"),
        ((1500.0, 1250.0, 200.0, 10), "lam must be < mu1 \\+ mu2"),
        ((1200.0, 1250.0, 200.0, 0), "c must be >= 1"),
    ],
)
def test_invalid_inputs(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        morrison(*args)


def test_invalid_threshold() -> None:
    with pytest.raises(ValueError, match="threshold must be >= 0"):
        orange_morrison(1200.0, 1250.0, 200.0, -1)
