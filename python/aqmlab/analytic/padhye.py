"""TCP Reno steady-state throughput (Padhye, Firoiu, Towsley, Kurose 1998).

Source: J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput:
A Simple Model and its Empirical Validation", ACM SIGCOMM 1998.

* :func:`expected_window` -- E[W_u], the unconstrained window at a loss
  indication (paper eq. 13).
* :func:`timeout_probability` -- Q^(w), probability that a loss indication in a
  window of w packets is a timeout (paper sec. 2.2, min(1, ...) form).
* :func:`timeout_backoff_factor` -- G(p) = 1 + p + 2p^2 + 4p^3 + 8p^4 + 16p^5 + 32p^6
  (paper eq. 28; exponential back-off capped at 64 T0).
* :func:`padhye_full` -- the full model (paper eq. 31):

      E[W] < Wmax:  B = [(1-p)/p + E[W] + Q^(E[W])/(1-p)]
                        / [RTT (b/2 E[W] + 1) + Q^(E[W]) G(p) T0/(1-p)]
      otherwise:    B = [(1-p)/p + Wmax + Q^(Wmax)/(1-p)]
                        / [RTT (b/8 Wmax + (1-p)/(p Wmax) + 2) + Q^(Wmax) G(p) T0/(1-p)]

  The rounds per TD period are E[X] = b E[W]/2 (paper eq. 16), hence the
  ``b/2 E[W] + 1`` term; it is often quoted as ``E[W] + 1``, which is the same
  thing only for b = 2 (delayed ACKs). With b = 1 only the ``b/2`` form has the
  small-p limit 1/(RTT sqrt(2bp/3)) that the paper derives.
* :func:`padhye_approx` -- the approximate model (as in aqmlab's baselines.md):
  B = min(Wmax/RTT, 1/(RTT sqrt(2bp/3) + T0 min(1, 3 sqrt(3bp/8)) p (1 + 32p^2))).

Parameters and units (all functions):
    p     loss-indication probability per packet, in (0, 1)
    rtt   round-trip time, s (> 0)
    t0    retransmission timeout T0, s (> 0)
    b     packets acknowledged per ACK (> 0): 1 for ns-2's default sink, 2 with
          delayed ACKs
    wmax  receiver window cap, packets (> 0; ``math.inf`` means no cap)
Results are in packets/s.
"""

from __future__ import annotations

import math

from ._validation import positive, probability_open


def expected_window(p: float, b: float) -> float:
    """E[W_u] in packets (paper eq. 13)."""
    p = probability_open("p", p)
    b = positive("b", b)
    a = (2.0 + b) / (3.0 * b)
    return a + math.sqrt(8.0 * (1.0 - p) / (3.0 * b * p) + a * a)


def timeout_probability(p: float, w: float) -> float:
    """Q^(w): probability that a loss in a window of ``w`` packets ends in a timeout."""
    p = probability_open("p", p)
    w = positive("w", w)
    q = 1.0 - p
    # q in (0, 1): the float powers are real (typeshed types float ** float as possibly complex)
    q_w3: float = q ** (w - 3.0)
    q_w: float = q**w
    num = (1.0 - q**3) * (1.0 + q**3 * (1.0 - q_w3))
    return min(1.0, num / (1.0 - q_w))


def timeout_backoff_factor(p: float) -> float:
    """G(p) (paper eq. 28): mean total timeout length in units of T0."""
    p = probability_open("p", p)
    return 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6


def _check_common(p: float, rtt: float, t0: float, b: float, wmax: float) -> tuple[float, ...]:
    return (
        probability_open("p", p),
        positive("rtt", rtt),
        positive("t0", t0),
        positive("b", b),
        positive("wmax", wmax, allow_inf=True),
    )


def padhye_full(p: float, rtt: float, t0: float, b: float, wmax: float) -> float:
    """Full PFTK model (paper eq. 31), packets/s."""
    p, rtt, t0, b, wmax = _check_common(p, rtt, t0, b, wmax)
    ew = expected_window(p, b)
    g = timeout_backoff_factor(p)
    if ew < wmax:
        qw = timeout_probability(p, ew)
        num = (1 - p) / p + ew + qw / (1 - p)
        den = rtt * (b / 2 * ew + 1) + qw * g * t0 / (1 - p)
    else:
        qw = timeout_probability(p, wmax)
        num = (1 - p) / p + wmax + qw / (1 - p)
        den = rtt * (b / 8 * wmax + (1 - p) / (p * wmax) + 2) + qw * g * t0 / (1 - p)
    return num / den


def padhye_approx(p: float, rtt: float, t0: float, b: float, wmax: float) -> float:
    """Approximate PFTK model, packets/s."""
    p, rtt, t0, b, wmax = _check_common(p, rtt, t0, b, wmax)
    den = rtt * math.sqrt(2 * b * p / 3) + t0 * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (1 + 32 * p**2)
    return min(wmax / rtt, 1.0 / den)
