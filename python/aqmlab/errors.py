"""aqmlab's exceptions (defined by the engine binding, re-exported here) and its warning."""

from __future__ import annotations

import importlib
import warnings
from types import ModuleType

from ._core import ScenarioError, SimulationError

__all__ = [
    "MissingExtraError",
    "ScenarioError",
    "ScenarioWarning",
    "SimulationError",
    "import_extra",
    "scenario_error",
    "warn_scenario",
]


class MissingExtraError(ImportError):
    """A feature needs an optional extra that is not installed; the message names the extra and
    the command that installs it (the CLI prints it as one line)."""


def import_extra(module: str, extra: str, feature: str, package: str | None = None) -> ModuleType:
    """Imports ``module``, which comes with the optional extra ``aqmlab[extra]``, or raises
    :class:`MissingExtraError` saying that ``feature`` needs ``package`` (default: the module's
    top-level package) and how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        package = package or module.partition(".")[0]
        raise MissingExtraError(f"{feature} needs {package}: pip install 'aqmlab[{extra}]'") from exc


def scenario_error(path: str, message: str) -> ScenarioError:
    """A ScenarioError raised from Python, shaped like the engine's: ``str(e)`` is
    ``"path: message"``, with attributes ``path`` and ``message``."""
    e = ScenarioError(f"{path}: {message}" if path else message)
    e.path = path
    e.message = message
    return e


class ScenarioWarning(UserWarning):
    """A scenario is valid but says something most likely not meant, and runs as written: an
    AQM time far outside its plausible range (``target = 15`` is 15 s: "did you mean
    \"15ms\"?"), a rate in bytes per second (``"2MBps"`` is 16 Mbps). ``path`` names the
    field, ``message`` says what was read and the likely intent; ``str(w)`` is
    ``"path: message"``. The engine finds them (crates/aqmlab-core/src/scenario/warnings.rs);
    :func:`aqmlab.run` and :func:`aqmlab.validate_scenario` issue them with
    :func:`warnings.warn`, and the command line prints them as ``warning: ...`` on stderr.
    Turn them into errors with ``warnings.simplefilter("error", aqmlab.ScenarioWarning)``."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


def warn_scenario(path: str, message: str, stacklevel: int) -> None:
    """Issues a :class:`ScenarioWarning`; ``stacklevel`` counts from the caller of this function
    (1: that caller's line)."""
    warnings.warn(ScenarioWarning(path, message), stacklevel=stacklevel + 1)
