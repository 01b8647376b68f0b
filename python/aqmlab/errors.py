"""aqmlab's exceptions (defined by the engine binding, re-exported here)."""

from __future__ import annotations

from ._core import ScenarioError, SimulationError

__all__ = ["MissingExtraError", "ScenarioError", "SimulationError", "scenario_error"]


class MissingExtraError(ImportError):
    """A feature needs an optional extra that is not installed; the message names the extra and
    the command that installs it (the CLI prints it as one line)."""


def scenario_error(path: str, message: str) -> ScenarioError:
    """A ScenarioError raised from Python, shaped like the engine's: ``str(e)`` is
    ``"path: message"``, with attributes ``path`` and ``message``."""
    e = ScenarioError(f"{path}: {message}" if path else message)
    e.path = path  # type: ignore[attr-defined]
    e.message = message  # type: ignore[attr-defined]
    return e
