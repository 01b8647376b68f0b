"""Input checks shared by the analytic models.

Every check raises ``ValueError`` naming the parameter and the reason, so a bad
scenario file fails loudly instead of producing a plausible-looking number.
"""

from __future__ import annotations

import math
from numbers import Integral, Real


def _real(name: str, value: object) -> float:
    # bool is an Integral: reject it so that `mu=True` is not read as 1.
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    x = float(value)
    if math.isnan(x):
        raise ValueError(f"{name} must not be NaN")
    return x


def positive(name: str, value: object, *, allow_inf: bool = False) -> float:
    x = _real(name, value)
    if math.isinf(x) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {x}")
    if x <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return x


def non_negative(name: str, value: object) -> float:
    x = _real(name, value)
    if math.isinf(x):
        raise ValueError(f"{name} must be finite, got {x}")
    if x < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return x


def probability_open(name: str, value: object) -> float:
    x = _real(name, value)
    if not 0.0 < x < 1.0:
        raise ValueError(f"{name} must be in (0, 1), got {value!r}")
    return x


def unit_interval(name: str, value: object) -> float:
    x = _real(name, value)
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return x


def integer(name: str, value: object, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    n = int(value)
    if n < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {n}")
    return n
