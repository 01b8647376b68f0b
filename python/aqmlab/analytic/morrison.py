"""Morrison's two-server threshold queue, as adapted by the Orange paper.

Source: the Orange paper (aqmlab seed 000), section 3, eqs. 1-12, citing
J. Morrison, "Two Server Queue with One Server Idle below a Threshold",
Queueing Systems 7 (1990) 325-336. Section 4 applies eq. 12 to
lam = 1200, mu1 = 1250, mu2 = 200 packets/s and reports W = 0.006989 s and a mean
queue of 8.38 packets.

Model (paper eq. 2): a birth-death chain on n = number in system with an
**infinite buffer**, birth rate lam, death rate mu1 while n <= c and
mu1 + mu2 while n > c (server 2, the Orange "drop server", is engaged above the
threshold). The paper's adaptation substitutes mu -> mu1, 2mu -> mu1 + mu2 in
Morrison's homogeneous formulas, and c -> K + 1 for an Orange threshold K
(eqs. 7-10). Nothing is lost: server 2 *serves* packets. In Orange those
services are the early drops, so ``drop_server_fraction`` = mu2 P(n > c) / lam
is the model's early-drop fraction.

Equations implemented (rho = lam/mu1, s = lam/(mu1 + mu2)):

* P0, eq. 1. Its body is missing from the paper's text; it is the
  normalisation of eq. 2 over n = 0..inf:
  P0 = 1 / [sum_{i=0}^{c} rho^i + rho^c s/(1 - s)].
* P_n, eq. 2.
* W (mean wait in queue, s), eq. 3 with the substitution (= eq. 12; eq. 7 is the
  same with c = K + 1), for lam != mu1.
* T (mean sojourn, s), eq. 5 with the substitution (eq. 9 with c = K + 1), for
  lam != mu1.
* lam == mu1: eqs. 4/6 are Morrison's limits for mu2 == mu1; the printed eqs. 6,
  8 and 10 put the polynomial in the denominator, which is a typesetting slip
  (the limit of eq. 3/5 has it as a factor). We use the limit of eqs. 3/5 for
  general mu2, which reduces to W = P0 c(c+1)/(2 lam) (eq. 4) and
  T = P0 (c^2 + 3c + 4)/(2 lam) when mu2 == mu1. The closed forms 3/5 lose
  precision for lam within ~1e-6 relative of mu1 (cancelling 1/(mu1-lam)^2 terms).

Reproducing section 4 (the reading we had to choose): with the paper's own
substitution c = K + 1 and K = 10, eq. 12 gives W = 0.005572 s (lam W = 6.69
packets), not 0.006989. We tried c = 7..16 with P0 taken at c-2..c+2, infinite or
finite (N = 20..100) buffers, homogeneous (2 mu1) or heterogeneous (mu1 + mu2)
upper rates and the exponent / coefficient variants of eqs. 3, 7 and 12; eq. 12
taken literally for c = 1..24; and solved for the mu1, mu2 or lam that would give
0.006989 with c = 10 or 11 (none is a value the paper mentions). The printed
W = 0.006989 s is reproduced to all its digits only by eq. 12 taken literally with
**c = 16** (W = 0.00698905 s) and P0 from the infinite-buffer normalisation above.
The "8.38" is then lam W = 8.3869 *truncated* (not rounded) to two decimals: no W
that rounds to 0.006989 gives lam W in [8.375, 8.385) at lam = 1200. c = 16 would
be K = 15 under c = K + 1, matching neither the text's K = 10 nor Table 1's
MinTh = 14. ``SECTION4_C`` records it.

Parameters and units:
    lam   Poisson arrival rate, packets/s (> 0, < mu1 + mu2 for stability)
    mu1   rate of server 1 (the link), packets/s (> 0)
    mu2   rate of server 2 (the drop server, 1/T for Orange timer mean T), packets/s (> 0)
    c     Morrison threshold: server 2 is used when n > c, integer >= 1
    threshold  Orange threshold K (packets), integer >= 0, mapped to c = K + 1
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import integer, positive

SECTION4_LAM = 1200.0
SECTION4_MU1 = 1250.0
SECTION4_MU2 = 200.0
SECTION4_C = 16  # the c that reproduces the printed W = 0.006989 s (see module doc)


@dataclass(frozen=True)
class MorrisonResult:
    lam: float
    mu1: float
    mu2: float
    c: int
    p0: float
    waiting_time: float  # W, s, time in queue before service
    sojourn_time: float  # T, s, waiting + service
    mean_waiting: float  # lam W, packets in queue
    mean_in_system: float  # lam T, packets in system
    drop_server_fraction: float  # mu2 P(n > c) / lam


def _check(lam: float, mu1: float, mu2: float, c: int) -> tuple[float, float, float, int]:
    lam = positive("lam", lam)
    mu1 = positive("mu1", mu1)
    mu2 = positive("mu2", mu2)
    c = integer("c", c, minimum=1)
    if lam >= mu1 + mu2:
        raise ValueError(f"lam must be < mu1 + mu2 = {mu1 + mu2} (infinite buffer needs stability), got {lam}")
    return lam, mu1, mu2, c


def morrison_p0(lam: float, mu1: float, mu2: float, c: int) -> float:
    """P0, eq. 1 (normalisation of eq. 2 with an infinite buffer)."""
    lam, mu1, mu2, c = _check(lam, mu1, mu2, c)
    rho, s = lam / mu1, lam / (mu1 + mu2)
    head = float(np.sum(rho ** np.arange(c + 1)))
    return 1.0 / (head + rho**c * s / (1.0 - s))


def morrison_probabilities(lam: float, mu1: float, mu2: float, c: int, n_max: int) -> np.ndarray:
    """P_n for n = 0..n_max (eq. 2). The tail beyond n_max holds 1 - sum."""
    lam, mu1, mu2, c = _check(lam, mu1, mu2, c)
    n_max = integer("n_max", n_max, minimum=0)
    n = np.arange(n_max + 1)
    rho, s = lam / mu1, lam / (mu1 + mu2)
    below = rho ** np.minimum(n, c)
    above = s ** np.maximum(n - c, 0)
    return morrison_p0(lam, mu1, mu2, c) * below * above


def morrison_waiting_time(lam: float, mu1: float, mu2: float, c: int) -> float:
    """W, mean time in queue (s): eq. 3 / eq. 12 (lam != mu1), eq. 4 generalised (lam == mu1)."""
    lam, mu1, mu2, c = _check(lam, mu1, mu2, c)
    p0 = morrison_p0(lam, mu1, mu2, c)
    m2 = mu1 + mu2  # the paper's "2 mu"
    if lam == mu1:
        s = lam / m2
        lq = c * (c - 1) / 2 + (c - 2) * s / (1 - s) + s / (1 - s) ** 2
        return p0 * lq / lam
    bracket = (
        mu1 / (mu1 - lam) ** 2 * ((mu1 / lam) ** (c - 1) - 1)
        + (c - 1) * (1 / (m2 - lam) - 1 / (mu1 - lam))
        + lam / (m2 - lam) ** 2
    )
    return p0 * (lam / mu1) ** c * bracket


def morrison_sojourn_time(lam: float, mu1: float, mu2: float, c: int) -> float:
    """T, mean time in system (s): eq. 5 / eq. 9 (lam != mu1), eq. 6 generalised (lam == mu1)."""
    lam, mu1, mu2, c = _check(lam, mu1, mu2, c)
    p0 = morrison_p0(lam, mu1, mu2, c)
    m2 = mu1 + mu2
    if lam == mu1:
        s = lam / m2
        ls = c * (c + 1) / 2 + c * s / (1 - s) + s / (1 - s) ** 2
        return p0 * ls / lam
    bracket = (
        mu1 / (mu1 - lam) ** 2 * ((mu1 / lam) ** c - 1) + c * (1 / (m2 - lam) - 1 / (mu1 - lam)) + m2 / (m2 - lam) ** 2
    )
    return p0 * (lam / mu1) ** c * bracket


def morrison(lam: float, mu1: float, mu2: float, c: int) -> MorrisonResult:
    """All of Morrison's metrics for threshold ``c`` (server 2 on when n > c)."""
    lam, mu1, mu2, c = _check(lam, mu1, mu2, c)
    p0 = morrison_p0(lam, mu1, mu2, c)
    w = morrison_waiting_time(lam, mu1, mu2, c)
    t = morrison_sojourn_time(lam, mu1, mu2, c)
    s = lam / (mu1 + mu2)
    p_above = p0 * (lam / mu1) ** c * s / (1 - s)  # P(n > c) from eq. 2
    return MorrisonResult(
        lam=lam,
        mu1=mu1,
        mu2=mu2,
        c=c,
        p0=p0,
        waiting_time=w,
        sojourn_time=t,
        mean_waiting=lam * w,
        mean_in_system=lam * t,
        drop_server_fraction=mu2 * p_above / lam,
    )


def orange_morrison(lam: float, mu1: float, mu2: float, threshold: int) -> MorrisonResult:
    """Morrison's model for an Orange threshold K, with the paper's c = K + 1 (eqs. 7-10)."""
    k = integer("threshold", threshold, minimum=0)
    return morrison(lam, mu1, mu2, k + 1)
