"""The Python API: run a scenario, list the AQMs."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from . import _core
from .custom_aqm import merged, registered_aqms
from .errors import warn_scenario
from .memory_limit import resolve_max_memory
from .result import Result
from .scenario import ScenarioLike, load_scenario, resolve_seed, to_json

if TYPE_CHECKING:
    import pandas as pd

ProgressFn = Callable[[float], "bool | None"]


def run(
    scenario: ScenarioLike,
    seed: int | None = None,
    progress: ProgressFn | None = None,
    custom_aqms: Mapping[str, type] | None = None,
    max_memory: int | float | str | None = None,
    capture_dir: str | os.PathLike[str] | None = None,
) -> Result:
    """Runs one simulation and returns its :class:`Result`.

    ``scenario``: a dict, a path to a ``.toml``/``.json`` file, or TOML text (see
    :func:`aqmlab.load_scenario`). ``seed``: the master seed; None means the scenario's
    ``seed`` field, or 1 if it has none. ``progress(fraction)`` is called now and then (from
    the thread running the simulation) with the fraction of simulated time done; returning
    ``False`` stops the run with KeyboardInterrupt. ``custom_aqms`` maps names to Python AQM
    classes (see :mod:`aqmlab.custom_aqm`), in addition to those registered with
    :func:`aqmlab.register_aqm`. ``max_memory`` (bytes, ``"8GB"`` or ``"none"``) refuses a
    scenario whose estimated memory exceeds it with a ScenarioError before anything is built;
    None means ``AQMLAB_MAX_MEMORY`` or half this machine's memory (see
    :mod:`aqmlab.memory_limit`). ``capture_dir``: where the capture files of the links the
    scenario names in ``capture`` are written, one per link (``bottleneck.pcap``; created if
    missing); None means the current directory, as ns-3's ``EnablePcap`` writes its files
    (docs/capture.md). A scenario's ``trace`` comes back as :attr:`Result.trace`.

    A scenario that is valid but most likely mistaken (an AQM time far outside its plausible
    range, such as ``target = 15`` read as 15 s; a rate in bytes per second) runs as written,
    with an :class:`aqmlab.ScenarioWarning` issued before the run. A run whose result is most
    likely not what was meant to be studied (a TCP flow that spent more than half of the
    measured time in a fast recovery without progress: a recovery that loops) gives a
    :class:`aqmlab.ScenarioWarning` after it (also in :attr:`Result.warnings`).

    The GIL is released while the engine runs, so runs on several threads proceed in parallel
    (unless they call Python AQMs). Raises :class:`aqmlab.ScenarioError` (a ValueError naming
    the field) for invalid input, KeyboardInterrupt on Ctrl-C, and
    :class:`aqmlab.SimulationError` for engine failures; an exception raised by a Python AQM or
    by ``progress`` propagates unchanged.
    """
    text, seed, customs, limit = _prepared(scenario, seed, custom_aqms, max_memory)
    where = None if capture_dir is None else os.fspath(capture_dir)
    raw = _core.run(text, seed, progress, customs or None, limit, _warn_at_caller, where)
    # What the run measured that most likely was not meant (issue 25: a flow stalled in a
    # recovery that loops), issued after it as the scenario's warnings are before it.
    for w in raw.get("warnings", []):
        warn_scenario(w["path"], w["message"], stacklevel=2)
    return Result(raw, scenario_json=text)


def check(
    scenario: ScenarioLike,
    seed: int | None = None,
    custom_aqms: Mapping[str, type] | None = None,
    max_memory: int | float | str | None = None,
) -> None:
    """Makes every check :func:`run` makes before the run starts, and runs nothing (``aqmlab
    run --dry-run``): the schema, the memory limit, the scenario's warnings (issued as
    :func:`run` issues them), and the simulator built and dropped, so that what only the
    network can say (an AQM parameter out of range, a flow starting after the end, an event
    naming a link that does not exist) is refused here as a run would refuse it. Writes
    nothing. The arguments are :func:`run`'s; raises what it would raise before its first
    event."""
    text, seed, customs, limit = _prepared(scenario, seed, custom_aqms, max_memory)
    _core.check(text, seed, customs or None, limit, _warn_at_caller)


def _prepared(
    scenario: ScenarioLike,
    seed: int | None,
    custom_aqms: Mapping[str, type] | None,
    max_memory: int | float | str | None,
) -> tuple[str, int, dict[str, type], int | None]:
    """What :func:`run` and :func:`check` hand the engine: the scenario as JSON text, the
    seed, the Python AQMs, the memory limit in bytes."""
    s = load_scenario(scenario)
    return to_json(s), resolve_seed(s, seed), merged(custom_aqms), resolve_max_memory(max_memory)


def _warn_at_caller(path: str, message: str) -> None:
    """The engine's warnings about the scenario, issued before the run: attributed to the line
    that called :func:`run` (this function is called from ``_core.run``, called by ``run``)."""
    warn_scenario(path, message, stacklevel=3)


def aqms() -> pd.DataFrame:
    """The AQM registry as a DataFrame: name, title, source, ecn, kind ("fifo" or
    "discipline"), implemented, build_error, params (a list of dicts: name, default, unit,
    meaning), builtin. Registered Python AQMs are listed last with ``builtin=False``."""
    import pandas as pd  # here, not at the top: pandas takes longer to import than aqmlab itself

    rows: list[dict[str, Any]] = [{**a, "builtin": True} for a in _core.aqms()]
    for name, cls in registered_aqms().items():
        rows.append(
            {
                "name": name,
                "title": (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else cls.__name__,
                "source": f"Python: {cls.__module__}.{cls.__qualname__}",
                "ecn": True,
                "kind": "python",
                "params": [],
                "state": [],
                "implemented": True,
                "build_error": None,
                "builtin": False,
            }
        )
    return pd.DataFrame.from_records(rows)
