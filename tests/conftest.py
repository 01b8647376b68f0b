"""Hypothesis profiles: ``ci`` (the default, bounded) and ``fuzz`` (``make fuzz``), chosen with
HYPOTHESIS_PROFILE. A test's own ``@settings`` still overrides them.

Every test also gets back the memory limit's environment variable as it found it: a command
run in-process (typer's CliRunner) with ``--max-memory`` hands its limit to its runs through
that variable (``cli_run.apply_max_memory``), and one such test once left a 1 KB limit for
every test after it (issue 35)."""

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("fuzz", max_examples=20_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# aqmlab.memory_limit.ENV_VAR, spelled out: conftest loads before any test imports aqmlab
_MEMORY_LIMIT_VAR = "AQMLAB_MAX_MEMORY"


@pytest.fixture(autouse=True)
def _memory_limit_variable_restored() -> Iterator[None]:
    before = os.environ.get(_MEMORY_LIMIT_VAR)
    yield
    if before is None:
        os.environ.pop(_MEMORY_LIMIT_VAR, None)
    else:
        os.environ[_MEMORY_LIMIT_VAR] = before
