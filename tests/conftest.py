"""Hypothesis profiles: ``ci`` (the default, bounded) and ``fuzz`` (``make fuzz``), chosen with
HYPOTHESIS_PROFILE. A test's own ``@settings`` still overrides them."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("fuzz", max_examples=20_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
