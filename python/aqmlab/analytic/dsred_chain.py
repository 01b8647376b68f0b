"""DSRED's birth-death drop model (and RED's, for the paper's comparison).

Source: B. Zheng, M. Atiquzzaman, "DSRED: A New Queue Management Scheme for the
Next Generation Internet", IEICE Trans. Commun. E89-B(3), 2006 (aqmlab seed 004):
sec. 3.2 eqs. 1-3 (drop function), sec. 3.3 eqs. 5-10 (chain), Fig. 5 (P_D vs rho).

Drop function (eq. 1), K_m = (K_l + K_h)/2, alpha = 2(1-gamma)/(K_h-K_l) (eq. 2),
beta = 2 gamma/(K_h-K_l) (eq. 3):
    p_d(avg) = 0                          avg < K_l
             = alpha (avg - K_l)           K_l <= avg < K_m
             = 1 - gamma + beta (avg - K_m)   K_m <= avg < K_h
             = 1                          K_h <= avg
It is continuous (both pieces equal 1 - gamma at K_m), reaches 1 at K_h, and is
RED's straight line from 0 to 1 when gamma = 0.5. RED (the paper's Fig. 1):
p_d = max_p (avg - min_th)/(max_th - min_th) on [min_th, max_th), 1 above.

Chain (sec. 3.3, Fig. 4), exactly as the paper defines it: state i = "avg = i",
i = 0..N; the paper models avg by the queue length itself (no EWMA in the chain).
p_a(i) = 1 - p_d(i) (eq. 7); birth rate lam_i = lam p_a(i), i.e. the **accepted**
rate (eq. 8, and the notation list: "lam_i ... is given by lam p_a(i)");
death rate mu in every state.
    V(i) = V(0) prod_{j<i} lam_j/mu        (eq. 5), V(0) from sum V = 1 (eq. 6)
    P_D  = 1 - sum_i V(i) p_a(i)           (eq. 9)
    D    = sum_i (i + 1) V(i) p_a(i) / mu  (eq. 10, "from Little's formula")
Eq. 10 as printed is not conditioned on acceptance: it averages over all arrivals
with a dropped packet counting 0 s. We return it as ``delay_eq10`` and also
``delay_accepted`` = D / (1 - P_D), the mean sojourn of an accepted packet, which
equals mean_queue / (lam (1 - P_D)) by Little's law.
eq. 7 gives p_a = 0 from K_h on, which is what closes the chain; the paper has
N = 200 >= K_h = 20. We require buffer >= K_h (max_th for RED) so this holds.

What we checked against Fig. 5 (the figure itself is not in our copy; the text
says "a high offered load factor results in high packet drop" and "drop
performance can be varied by changing gamma"): P_D rises with rho for each gamma;
at every rho a larger gamma gives a lower P_D (p_d is pointwise non-increasing
in gamma, so the chain is stochastically larger and V(0) smaller); P_D >= 1 - 1/rho
(the link serves at most mu). DSRED vs RED is only compared by simulation in the
paper (DSRED drops fewer under TCP). This Poisson chain, with K_l = min_th = 6,
K_h = max_th = 20, N = 200, does *not* say that at every load: DSRED drops less than
RED only below rho ~ 0.60 (gamma 0.96 vs max_p 0.1) and ~ 0.64 (0.91 vs 0.2), more
above (RED's curve stays <= max_p up to max_th while DSRED climbs to 1), and both
tend to 1 - 1/rho once the link saturates. DSRED with gamma = 0.5 equals RED with
max_p = 1.

Parameters and units:
    lam     Poisson arrival rate, packets/s (> 0)
    mu      service rate, packets/s (> 0)
    rho     offered load lam/mu (> 0), used by the Fig. 5 helpers
    buffer  N, buffer size, packets, integer >= K_h
    k_l, k_h  thresholds, packets, 0 <= k_l < k_h
    gamma   DSRED mode selector, in [0, 1]
    min_th, max_th, max_p  RED thresholds (packets) and max drop probability in [0, 1]
Paper settings: K_l = 6, K_h = 20, N = 200, gamma 0.96 vs RED max_p 0.1 and gamma 0.91
vs max_p 0.2 (sec. 4); these are exported as PAPER_* constants.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ._validation import integer, non_negative, positive, unit_interval

PAPER_K_L = 6
PAPER_K_H = 20
PAPER_BUFFER = 200
PAPER_GAMMAS = (0.96, 0.91)
PAPER_RED_MAX_P = (0.1, 0.2)


@dataclass(frozen=True)
class DropChainResult:
    v: np.ndarray = field(repr=False)  # V(i), i = 0..N
    accept: np.ndarray = field(repr=False)  # p_a(i)
    drop_probability: float  # P_D, eq. 9
    delay_eq10: float  # D as printed in eq. 10, s
    delay_accepted: float  # mean sojourn of accepted packets, s
    mean_queue: float  # sum i V(i), packets


def _thresholds(lo_name: str, lo: float, hi_name: str, hi: float) -> tuple[float, float]:
    lo = non_negative(lo_name, lo)
    hi = non_negative(hi_name, hi)
    if hi <= lo:
        raise ValueError(f"{hi_name} must be > {lo_name} = {lo}, got {hi}")
    return lo, hi


def _avg_array(avg: ArrayLike) -> np.ndarray:
    x = np.asarray(avg, dtype=float)
    if np.any(np.isnan(x)) or np.any(x < 0):
        raise ValueError("avg must be >= 0 and not NaN")
    return x


def dsred_drop_probability(avg: ArrayLike, k_l: float, k_h: float, gamma: float) -> np.ndarray:
    """p_d(avg), DSRED eq. 1 with K_m = (K_l + K_h)/2."""
    k_l, k_h = _thresholds("k_l", k_l, "k_h", k_h)
    gamma = unit_interval("gamma", gamma)
    x = _avg_array(avg)
    k_m = 0.5 * (k_l + k_h)
    alpha = 2 * (1 - gamma) / (k_h - k_l)
    beta = 2 * gamma / (k_h - k_l)
    return np.select(
        [x < k_l, x < k_m, x < k_h],
        [0.0, alpha * (x - k_l), 1 - gamma + beta * (x - k_m)],
        default=1.0,
    )


def red_drop_probability(avg: ArrayLike, min_th: float, max_th: float, max_p: float) -> np.ndarray:
    """p_d(avg) of original (non-gentle) RED, the paper's Fig. 1."""
    min_th, max_th = _thresholds("min_th", min_th, "max_th", max_th)
    max_p = unit_interval("max_p", max_p)
    x = _avg_array(avg)
    return np.select([x < min_th, x < max_th], [0.0, max_p * (x - min_th) / (max_th - min_th)], default=1.0)


def drop_chain(lam: float, mu: float, accept: ArrayLike) -> DropChainResult:
    """Solve the sec. 3.3 chain for any acceptance vector p_a(0..N) (eqs. 5, 6, 9, 10)."""
    lam = positive("lam", lam)
    mu = positive("mu", mu)
    p_a = np.asarray(accept, dtype=float)
    if p_a.ndim != 1 or p_a.size < 2:
        raise ValueError("accept must be a 1-D array with at least 2 states")
    if np.any(np.isnan(p_a)) or np.any((p_a < 0) | (p_a > 1)):
        raise ValueError("accept must hold probabilities in [0, 1]")
    # Products of lam_j/mu overflow for rho > 1 and long buffers; sum logs instead.
    with np.errstate(divide="ignore"):
        log_step = np.log(lam * p_a[:-1] / mu)
    log_v = np.concatenate(([0.0], np.cumsum(log_step)))
    v = np.exp(log_v - log_v.max())
    v /= v.sum()
    i = np.arange(p_a.size)
    accepted = float(v @ p_a)
    d_eq10 = float(((i + 1) * v * p_a).sum() / mu)
    return DropChainResult(
        v=v,
        accept=p_a,
        drop_probability=1.0 - accepted,
        delay_eq10=d_eq10,
        delay_accepted=d_eq10 / accepted,
        mean_queue=float(i @ v),
    )


def _buffer(buffer: int, top_name: str, top: float) -> int:
    n = integer("buffer", buffer, minimum=1)
    if n < top:
        raise ValueError(f"buffer must be >= {top_name} = {top} so that p_a(N) = 0, got {n}")
    return n


def dsred_chain(lam: float, mu: float, buffer: int, k_l: float, k_h: float, gamma: float) -> DropChainResult:
    """DSRED's chain (sec. 3.3) with p_a(i) = 1 - p_d(i) from eq. 1 / eq. 7."""
    k_l, k_h = _thresholds("k_l", k_l, "k_h", k_h)
    n = _buffer(buffer, "k_h", k_h)
    return drop_chain(lam, mu, 1.0 - dsred_drop_probability(np.arange(n + 1), k_l, k_h, gamma))


def red_chain(lam: float, mu: float, buffer: int, min_th: float, max_th: float, max_p: float) -> DropChainResult:
    """The same chain with RED's linear drop function."""
    min_th, max_th = _thresholds("min_th", min_th, "max_th", max_th)
    n = _buffer(buffer, "max_th", max_th)
    return drop_chain(lam, mu, 1.0 - red_drop_probability(np.arange(n + 1), min_th, max_th, max_p))


def _rhos(rhos: ArrayLike) -> np.ndarray:
    r = np.asarray(rhos, dtype=float).ravel()
    if r.size == 0 or np.any(np.isnan(r)) or np.any(r <= 0):
        raise ValueError("rhos must be a non-empty array of loads > 0")
    return r


def dsred_drop_vs_load(
    rhos: ArrayLike, gammas: Iterable[float], k_l: float, k_h: float, buffer: int
) -> dict[float, np.ndarray]:
    """Fig. 5 data: P_D(rho) for each gamma (mu = 1; P_D depends on rho only)."""
    r = _rhos(rhos)
    return {float(g): np.array([dsred_chain(x, 1.0, buffer, k_l, k_h, g).drop_probability for x in r]) for g in gammas}


def red_drop_vs_load(
    rhos: ArrayLike, max_ps: Iterable[float], min_th: float, max_th: float, buffer: int
) -> dict[float, np.ndarray]:
    """RED's counterpart of Fig. 5: P_D(rho) for each max_p."""
    r = _rhos(rhos)
    return {
        float(m): np.array([red_chain(x, 1.0, buffer, min_th, max_th, m).drop_probability for x in r]) for m in max_ps
    }
