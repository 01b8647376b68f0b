"""DSRED drop function (eqs. 1-3) and the sec. 3.3 chain behind Fig. 5."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from aqmlab.analytic import (
    drop_chain,
    dsred_chain,
    dsred_drop_probability,
    dsred_drop_vs_load,
    red_chain,
    red_drop_probability,
    red_drop_vs_load,
)
from aqmlab.analytic.dsred_chain import PAPER_BUFFER, PAPER_K_H, PAPER_K_L

KL, KH, N = PAPER_K_L, PAPER_K_H, PAPER_BUFFER  # 6, 20, 200 (paper sec. 4)


@pytest.mark.parametrize("gamma", [0.0, 0.3, 0.5, 0.91, 0.96, 1.0])
def test_curve_is_continuous_and_reaches_one(gamma: float) -> None:
    km, eps = (KL + KH) / 2, 1e-9
    left, at = dsred_drop_probability([km - eps, km], KL, KH, gamma)
    assert left == pytest.approx(at, abs=1e-8)
    assert at == pytest.approx(1 - gamma)
    assert dsred_drop_probability(KL, KL, KH, gamma) == 0.0
    assert dsred_drop_probability(KH - eps, KL, KH, gamma) == pytest.approx(1.0, abs=1e-8)
    assert dsred_drop_probability(KH, KL, KH, gamma) == 1.0
    assert dsred_drop_probability(N, KL, KH, gamma) == 1.0


def test_gamma_half_is_a_straight_line() -> None:
    x = np.linspace(0, 30, 301)
    line = np.clip((x - KL) / (KH - KL), 0, None)
    line[x >= KH] = 1.0
    np.testing.assert_allclose(dsred_drop_probability(x, KL, KH, 0.5), line, atol=1e-12)
    np.testing.assert_allclose(red_drop_probability(x, KL, KH, 1.0), line, atol=1e-12)


def test_slopes_are_eqs_2_and_3() -> None:
    g = 0.96
    p = dsred_drop_probability([7.0, 8.0, 14.0, 15.0], KL, KH, g)
    assert p[1] - p[0] == pytest.approx(2 * (1 - g) / (KH - KL))  # alpha
    assert p[3] - p[2] == pytest.approx(2 * g / (KH - KL))  # beta


def test_red_curve() -> None:
    p = red_drop_probability([5.0, 6.0, 13.0, 19.999, 20.0], 6, 20, 0.1)
    np.testing.assert_allclose(p, [0.0, 0.0, 0.05, 0.1 * 13.999 / 14, 1.0])


def test_hand_computed_chain() -> None:
    # K_l = 1, K_h = 3, N = 3, gamma = 0.5, rho = 1: p_a = 1, 1, 1/2, 0, so
    # V ~ 1, 1, 1, 1/2 -> V = 2/7, 2/7, 2/7, 1/7; P_D = 1 - (2+2+1)/7 = 2/7;
    # eq. 10 with mu = 1: D = 1*2/7 + 2*2/7 + 3*(2/7)(1/2) = 9/7;
    # per accepted packet: (9/7)/(5/7) = 9/5 = mean queue 9/7 over lam (1 - P_D) 5/7.
    r = dsred_chain(1.0, 1.0, 3, 1, 3, 0.5)
    np.testing.assert_allclose(r.v, [2 / 7, 2 / 7, 2 / 7, 1 / 7], rtol=1e-12)
    assert r.drop_probability == pytest.approx(2 / 7)
    assert r.delay_eq10 == pytest.approx(9 / 7)
    assert r.delay_accepted == pytest.approx(9 / 5)
    assert r.mean_queue == pytest.approx(9 / 7)


@pytest.mark.parametrize("rho", [0.3, 1.0, 2.5])
def test_chain_properties(rho: float) -> None:
    mu = 1000.0
    r = dsred_chain(rho * mu, mu, N, KL, KH, 0.91)
    assert r.v.sum() == pytest.approx(1.0)
    assert np.all(r.v[KH + 1 :] == 0.0)  # p_a(K_h) = 0 closes the chain
    # eq. 5 is detailed balance: V(i) lam p_a(i) = V(i+1) mu.
    np.testing.assert_allclose(r.v[:-1] * rho * mu * r.accept[:-1], r.v[1:] * mu, atol=1e-15)
    # Little: mean queue = accepted rate x mean sojourn of an accepted packet.
    assert r.mean_queue == pytest.approx(rho * mu * (1 - r.drop_probability) * r.delay_accepted)
    # The link serves at most mu: lam (1 - P_D) = mu (1 - V(0)).
    assert rho * (1 - r.drop_probability) == pytest.approx(1 - r.v[0])


RHOS = np.linspace(0.1, 3.0, 59)
GAMMAS = [0.5, 0.7, 0.91, 0.96, 1.0]


def test_fig5_shape() -> None:
    curves = dsred_drop_vs_load(RHOS, GAMMAS, KL, KH, N)
    for g, pd in curves.items():
        # "a high offered load factor results in high packet drop"
        assert np.all(np.diff(pd) > 0), g
        assert pd[0] < 1e-6
        assert np.all(pd >= 1 - 1 / RHOS - 1e-12)  # can't serve more than mu
        assert pd[-1] == pytest.approx(1 - 1 / 3.0, abs=1e-3)
    # "drop performance can be varied by changing gamma": larger gamma, lower P_D.
    stacked = np.array([curves[g] for g in GAMMAS])
    assert np.all(np.diff(stacked, axis=0) <= 1e-15)
    mid = (RHOS > 0.4) & (RHOS < 1.3)
    assert np.all(np.diff(stacked[:, mid], axis=0) < 0)


def test_dsred_vs_red_in_the_chain() -> None:
    # Paper's pairs: gamma 0.96 vs max_p 0.1, gamma 0.91 vs max_p 0.2.
    rhos = np.array([0.3, 0.5, 1.0, 1.5, 4.0])
    d = dsred_drop_vs_load(rhos, [0.96, 0.91], KL, KH, N)
    r = red_drop_vs_load(rhos, [0.1, 0.2], KL, KH, N)
    for g, m in ((0.96, 0.1), (0.91, 0.2)):
        assert np.all(d[g][:2] < r[m][:2])  # light load: DSRED drops less
        assert d[g][2] > r[m][2]  # at rho = 1 RED's low max_p lets the queue absorb more
        assert d[g][-1] == pytest.approx(r[m][-1], abs=1e-6)  # saturated: both 1 - 1/rho
    np.testing.assert_allclose(
        dsred_drop_vs_load(rhos, [0.5], KL, KH, N)[0.5],
        red_drop_vs_load(rhos, [1.0], KL, KH, N)[1.0],
        rtol=1e-12,
    )


def test_red_chain_matches_generic_chain() -> None:
    p_a = 1 - red_drop_probability(np.arange(N + 1), KL, KH, 0.1)
    a = red_chain(800.0, 1000.0, N, KL, KH, 0.1)
    b = drop_chain(800.0, 1000.0, p_a)
    assert a.drop_probability == b.drop_probability


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: dsred_drop_probability(5, 6, 20, 1.5), "gamma must be in \\[0, 1\\]"),
        (lambda: dsred_drop_probability(5, 20, 6, 0.9), "k_h must be > k_l"),
        (lambda: dsred_drop_probability(-1, 6, 20, 0.9), "avg must be >= 0"),
        (lambda: dsred_chain(1.0, 1.0, 10, 6, 20, 0.9), "buffer must be >= k_h"),
        (lambda: dsred_chain(-1.0, 1.0, 200, 6, 20, 0.9), "lam must be > 0"),
        (lambda: red_chain(1.0, 0.0, 200, 6, 20, 0.1), "mu must be > 0"),
        (lambda: red_drop_probability(5, 6, 20, -0.1), "max_p must be in \\[0, 1\\]"),
        (lambda: dsred_drop_vs_load([0.0, 1.0], [0.9], 6, 20, 200), "rhos must be"),
        (lambda: drop_chain(1.0, 1.0, [1.0, 1.2]), "accept must hold probabilities"),
    ],
)
def test_invalid_inputs(call: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()
