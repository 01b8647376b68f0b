"""PFTK 1998 throughput: limits and properties the paper derives."""

from __future__ import annotations

import math

import pytest
from aqmlab.analytic import (
    expected_window,
    padhye_approx,
    padhye_full,
    timeout_backoff_factor,
    timeout_probability,
)

INF = math.inf


@pytest.mark.parametrize("b", [1.0, 2.0])
def test_small_p_limit_is_square_root_law(b: float) -> None:
    p, rtt = 1e-7, 0.1
    sqrt_law = 1 / (rtt * math.sqrt(2 * b * p / 3))
    assert padhye_full(p, rtt, 1.0, b, INF) == pytest.approx(sqrt_law, rel=2e-3)
    assert padhye_approx(p, rtt, 1.0, b, INF) == pytest.approx(sqrt_law, rel=2e-3)


def test_window_limited_branch_gives_wmax_over_rtt() -> None:
    # E[W] ~ sqrt(8/(3p)) ~ 1633 >> Wmax = 20, so the window cap binds.
    assert padhye_full(1e-6, 0.2, 1.0, 1.0, 20.0) == pytest.approx(20 / 0.2, rel=1e-3)
    assert padhye_approx(1e-6, 0.2, 1.0, 1.0, 20.0) == pytest.approx(100.0)


def test_expected_window_closed_form() -> None:
    # b = 2: E[W] = 2/3 + sqrt(4(1-p)/(3p) + 4/9) -- eq. 13 by hand.
    p = 0.01
    assert expected_window(p, 2.0) == pytest.approx(2 / 3 + math.sqrt(4 * 0.99 / 0.03 + 4 / 9))
    assert expected_window(p, 1.0) == pytest.approx(1 + math.sqrt(8 * 0.99 / 0.03 + 1))


def test_timeout_probability_limits() -> None:
    # Q^(w) -> 3/w for small p (paper, sec. 2.2), and is capped at 1.
    assert timeout_probability(1e-8, 30.0) == pytest.approx(0.1, rel=1e-5)
    assert timeout_probability(0.5, 2.0) == 1.0
    assert timeout_backoff_factor(0.5) == pytest.approx(1 + 0.5 + 0.5 + 0.5 + 0.5 + 0.5 + 0.5)


def test_known_values() -> None:
    # Hand evaluation of eq. 31, b = 1, p = 0.01, RTT = 0.1 s, T0 = 1 s, no cap:
    # E[W] = 1 + sqrt(265) = 17.27882
    # Q^(E[W]) = (1 - .99^3)(1 + .99^3 (1 - .99^14.27882)) / (1 - .99^17.27882)
    #          = 0.029701 * 1.129715 / 0.159415 = 0.21048
    # G(0.01) = 1.010204
    # B = (99 + 17.27882 + 0.21048/0.99) / (0.1 (17.27882/2 + 1) + 0.21048*1.010204/0.99)
    #   = 116.4914 / 1.178717 = 98.829 packets/s.
    assert timeout_probability(0.01, 1 + math.sqrt(265)) == pytest.approx(0.21048, rel=1e-4)
    assert padhye_full(0.01, 0.1, 1.0, 1.0, INF) == pytest.approx(98.829, rel=1e-4)
    # Approximate model: 1/(0.1*sqrt(0.02/3) + 1*min(1, 3 sqrt(0.00375))*0.01*1.0032)
    #   = 1/(0.00816497 + 0.00184300) = 99.920 packets/s.
    assert padhye_approx(0.01, 0.1, 1.0, 1.0, INF) == pytest.approx(99.920, rel=1e-4)


def test_throughput_decreases_with_loss_and_rtt() -> None:
    ps = [1e-4, 1e-3, 1e-2, 0.05, 0.1, 0.3]
    full = [padhye_full(p, 0.1, 0.5, 1.0, 64.0) for p in ps]
    assert all(a > b for a, b in zip(full, full[1:], strict=False))
    assert padhye_full(0.01, 0.2, 0.5, 1.0, 64.0) < padhye_full(0.01, 0.1, 0.5, 1.0, 64.0)


def test_full_and_approx_agree_roughly_for_moderate_p() -> None:
    for p in (1e-3, 1e-2, 0.05):
        full = padhye_full(p, 0.1, 1.0, 1.0, INF)
        approx = padhye_approx(p, 0.1, 1.0, 1.0, INF)
        assert approx == pytest.approx(full, rel=0.25)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(p=0.0), "p must be in \\(0, 1\\)"),
        (dict(p=1.0), "p must be in \\(0, 1\\)"),
        (dict(rtt=-0.1), "rtt must be > 0"),
        (dict(t0=0.0), "t0 must be > 0"),
        (dict(b=0.0), "b must be > 0"),
        (dict(wmax=-1.0), "wmax must be > 0"),
    ],
)
def test_invalid_inputs(kwargs: dict, message: str) -> None:
    args = dict(p=0.01, rtt=0.1, t0=1.0, b=1.0, wmax=INF) | kwargs
    for f in (padhye_full, padhye_approx):
        with pytest.raises(ValueError, match=message):
            f(**args)
