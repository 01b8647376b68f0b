"""aqmlab's exceptions (defined by the engine binding, re-exported here)."""

from __future__ import annotations

import importlib
from types import ModuleType

from ._core import ScenarioError, SimulationError

__all__ = ["MissingExtraError", "ScenarioError", "SimulationError", "import_extra", "scenario_error"]


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
