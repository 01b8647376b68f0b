"""Loading scenarios (TOML/JSON files, TOML text, dicts) and small scenario edits."""

from __future__ import annotations

import copy
import errno
import json
import math
import os
import sys
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Union

from . import _core
from .errors import scenario_error, warn_scenario

ScenarioLike = Union[Mapping[str, Any], str, "os.PathLike[str]"]

#: The seed used when neither the caller nor the scenario's ``seed`` field gives one.
DEFAULT_SEED = 1


def default_scenario_path() -> Path:
    """Path of the packaged default dumbbell (``aqmlab compare`` without arguments)."""
    return Path(str(resources.files("aqmlab") / "scenarios" / "default_dumbbell.toml"))


def packaged_scenarios() -> dict[str, Path]:
    """The named scenarios shipped with aqmlab: name (the file's ``name`` field, e.g.
    ``identical-dumbbell``) -> path of its TOML file."""
    folder = resources.files("aqmlab") / "scenarios"
    return {
        p.name.removesuffix(".toml").replace("_", "-"): Path(str(p))
        for p in sorted(folder.iterdir(), key=lambda p: p.name)
        if p.name.endswith(".toml")
    }


def packaged_scenario_path(name: str) -> Path:
    """Path of the packaged scenario ``name``; KeyError listing the names if there is none."""
    known = packaged_scenarios()
    if name not in known:
        raise KeyError(f"no packaged scenario named {name!r}; known: {', '.join(known)}")
    return known[name]


#: The TCP fields a scenario keeps under :func:`with_tcp_profile`: its packet sizes and its
#: receiver's window describe the scenario; how TCP behaves is the profile's.
SCENARIO_TCP_FIELDS = ("packet_size", "header_size", "ack_size", "window")

#: TCP profiles known to the engine (crates/aqmlab-core/src/transport/tcp/profiles/).
TCP_PROFILES: tuple[str, ...] = tuple(_core.tcp_profiles())


def tcp_profile_sends_ecn(profile: str) -> bool:
    """Whether the TCP profile ``profile`` is ECN-capable (``ecn = true``: DCTCP, Prague)."""
    return bool(_core.tcp_profiles()[profile].get("ecn", False))


def with_tcp_profile(scenario: ScenarioLike, profile: str) -> dict[str, Any]:
    """A copy of ``scenario`` whose TCP flows all use the TCP profile ``profile`` (``"ns2"``:
    the papers' TCP; ``"linux"``: a Linux 6.x host's; ``"ns3"``: ns-3.37's). The scenario's
    own TCP fields are
    dropped from ``[tcp]`` and from every flow's ``tcp`` table except
    :data:`SCENARIO_TCP_FIELDS`, so the comparison is of the profile, not of a mixture."""
    if profile not in TCP_PROFILES:
        raise scenario_error("tcp.profile", f"unknown TCP profile {profile!r}; known: {', '.join(TCP_PROFILES)}")
    s = load_scenario(scenario)
    tables = [s.setdefault("tcp", {})]
    tables += [f["tcp"] for f in s.get("flows", []) if isinstance(f, dict) and isinstance(f.get("tcp"), dict)]
    for table in tables:
        for key in [k for k in table if k not in SCENARIO_TCP_FIELDS]:
            del table[key]
    s["tcp"]["profile"] = profile
    return s


#: Suffixes that make a string a path even if it could otherwise be read as text.
PATH_SUFFIXES = (".toml", ".tml", ".json")


def _is_path_like(text: str) -> bool:
    """Whether a one-line string that names no file is meant as a path (issue 24, item 9).

    TOML text of one line is a key/value pair (``=``), a table header (``[``), a comment
    (``#``) or nothing; JSON text starts with ``{``. Any other single line is not valid
    TOML, so it is read as a path (``e3.tml``, ``pie30``, ``runs/a``) and a missing one is
    "file not found", not "line 1: invalid TOML". A line ending in a scenario suffix is a path
    even with a ``=`` in it (``runs/max_p=0.1.toml``)."""
    t = text.strip()
    if not t or "\n" in t:
        return False
    if t.lower().endswith(PATH_SUFFIXES):
        return True
    if os.sep in t and "=" not in t:
        return True
    return "=" not in t and not t.startswith(("[", "{", "#"))


class ScenarioFileNotFoundError(FileNotFoundError):
    """A path-like scenario argument names no file: the message names the path and, when one
    is close, the packaged scenario or sibling file meant. ``filename`` is the path."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.filename = path

    def __str__(self) -> str:
        return str(self.args[0])


def _close_names(missing: Path) -> list[str]:
    """Packaged scenario names and files beside ``missing`` whose names are close to it."""
    import difflib

    stem = missing.name.removesuffix(missing.suffix) if missing.suffix else missing.name
    names = list(packaged_scenarios())
    found = difflib.get_close_matches(stem, names, n=2, cutoff=0.75)
    if missing.name in names:
        found.insert(0, missing.name)
    parent = missing.parent
    try:
        with os.scandir(parent) as entries:
            # Bounded: a huge directory is not listed for a hint.
            siblings = [e.name for _, e in zip(range(2000), entries, strict=False) if e.is_file()]
    except OSError:
        siblings = []
    for name in difflib.get_close_matches(missing.name, siblings, n=2, cutoff=0.75):
        found.append(str(parent / name) if str(parent) != "." else name)
    return list(dict.fromkeys(found))


def scenario_not_found(path: str) -> ScenarioFileNotFoundError:
    """The error for a path-like scenario argument that names no file."""
    missing = Path(path)
    message = f"scenario file not found: {path}"
    close = _close_names(missing)
    if close:
        message += f" (did you mean {' or '.join(repr(c) for c in close)}?)"
    elif os.sep not in path and not path.lower().endswith(PATH_SUFFIXES):
        message += f" (not a file, TOML text or packaged scenario: {', '.join(packaged_scenarios())})"
    return ScenarioFileNotFoundError(path, message)


def _parse_text(text: str, origin: str | None = None) -> dict[str, Any]:
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as e:
            raise scenario_error(f"line {e.lineno}", f"invalid JSON: {e.msg}") from None
    else:
        value = _core.load_toml(text)
    if not isinstance(value, dict):
        raise TypeError(f"{origin or 'scenario'}: a scenario must be a table/dict")
    return value


def load_scenario(scenario: ScenarioLike) -> dict[str, Any]:
    """Returns a scenario as a plain dict (a copy made of plain JSON data when given a dict:
    tuples become lists, numpy scalars numbers; a value that is not data, not finite or nested
    deeper than :data:`MAX_DEPTH` raises ScenarioError naming the field).

    ``scenario`` is a dict; a path (``str`` or ``Path``) to a ``.toml`` or ``.json`` file; the
    name of a packaged scenario (:func:`packaged_scenarios`, e.g. ``"identical-dumbbell"``); or
    TOML (or JSON) text. A string is a path if it names an existing file, or if it is one line
    that is not TOML text (no ``=``, not a ``[table]`` header, comment or JSON object) or ends
    in ``.toml``/``.tml``/``.json``; a path that names no file raises
    :class:`ScenarioFileNotFoundError` (a FileNotFoundError) naming it, and a packaged name or
    a file beside it when one is close.
    Syntax errors raise :class:`aqmlab.ScenarioError` naming the line. The schema itself is
    checked when the scenario is run (or by :func:`validate_scenario`).
    """
    if isinstance(scenario, Mapping):
        # Not copy.deepcopy: it recursed without limit on a deeply nested value
        # (RecursionError, found by tests/test_scenario_fuzz.py).
        plain: dict[str, Any] = _plain(scenario, "")
        return plain
    if isinstance(scenario, os.PathLike):
        path = Path(scenario)
    elif isinstance(scenario, str):
        if scenario in packaged_scenarios() and not Path(scenario).exists():
            path = packaged_scenarios()[scenario]
        elif len(scenario) < 4096 and "\n" not in scenario and Path(scenario).is_file():
            path = Path(scenario)
        elif _is_path_like(scenario):
            path = Path(scenario.strip())
        else:
            return _parse_text(scenario)
    else:
        raise TypeError(f"a scenario is a dict, a path or TOML text, not {type(scenario).__name__}")
    if not path.exists():
        raise scenario_not_found(str(path))
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a scenario file", str(path))
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        try:
            value = json.loads(text)
        except json.JSONDecodeError as e:
            raise scenario_error(f"line {e.lineno}", f"invalid JSON: {e.msg}") from None
        if not isinstance(value, dict):
            raise TypeError(f"{path}: a scenario must be a table/dict")
        return _resolve_trace_paths(value, path.parent)
    return _resolve_trace_paths(_parse_text(text, str(path)), path.parent)


def _resolve_trace_paths(value: dict[str, Any], base: Path) -> dict[str, Any]:
    """A trace file an event names (``rate = { trace = "..." }``) by a relative path is
    relative to the scenario file's directory, as a reader of the file expects; the engine,
    which sees only the scenario's data, reads it from the current directory (as it does for
    a dict or TOML text). Entries that are not well formed are left for the engine to name."""
    events = value.get("events")
    if not isinstance(events, list):
        return value
    for event in events:
        rate = event.get("rate") if isinstance(event, dict) else None
        if not isinstance(rate, dict):
            continue
        trace = rate.get("trace")
        if isinstance(trace, str) and trace and not Path(trace).is_absolute():
            rate["trace"] = str(base / trace)
    return value


#: Deepest nesting a scenario may have (the schema needs 6; this only guards against runaway
#: or self-referencing structures, which json would report without a field path).
MAX_DEPTH = 32


def _plain(value: Any, path: str, depth: int = 0) -> Any:
    """``value`` as plain JSON data, or a ScenarioError naming the field: non-finite numbers
    (JSON has none, and the engine must not guess), and types that are not data (bytes,
    Decimal, sets, objects) are refused here rather than deep inside ``json`` without a path."""
    if depth > MAX_DEPTH:
        raise scenario_error(path, f"nested deeper than {MAX_DEPTH} levels")
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise scenario_error(path, f"must be finite, got {value}")
        return value
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise scenario_error(path, f"keys must be strings, got {type(k).__name__} {k!r}")
            out[k] = _plain(v, f"{path}.{k}" if path else k, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    # A value can only be a numpy object if numpy is already imported; importing it here would
    # cost more than the whole scenario check.
    np = sys.modules.get("numpy")
    if np is not None:
        if isinstance(value, np.generic):
            return _plain(value.item(), path, depth)
        if isinstance(value, np.ndarray):
            return _plain(value.tolist(), path, depth)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise scenario_error(path, f"must be a number, string, bool, list or table, got {type(value).__name__}")


def to_json(scenario: Mapping[str, Any]) -> str:
    """The scenario as the JSON text the engine reads."""
    return json.dumps(_plain(scenario, ""), allow_nan=False)


def validate_scenario(scenario: ScenarioLike) -> dict[str, Any]:
    """Loads and checks a scenario against the schema; raises ScenarioError naming the field,
    and issues an :class:`aqmlab.ScenarioWarning` for each warning about it (as
    :func:`aqmlab.run` does).

    AQM names and parameters are only checked when a run builds the queues.
    """
    s = load_scenario(scenario)
    for path, message in _core.validate(to_json(s)):
        warn_scenario(path, message, stacklevel=2)
    return s


def resolved_tcp(scenario: ScenarioLike) -> list[dict[str, Any] | None]:
    """The TCP settings each ``flows`` entry of ``scenario`` runs with, as the engine reads
    them: the shared ``[tcp]`` table under the flow's own, the ``profile`` they name expanded,
    every default filled in (durations as ``"200ms"``); None for a UDP flow. Raises
    ScenarioError naming the field for an invalid scenario."""
    return _core.resolved_tcp(to_json(load_scenario(scenario)))


def resolve_scenario(scenario: ScenarioLike) -> dict[str, Any]:
    """``scenario`` as the engine reads it, every default filled in (what
    :attr:`aqmlab.Result.scenario` holds and ``aqmlab run --dry-run`` prints): quantities in
    exact units (``"5ms"``, ``"10Mbps"``), each TCP flow's settings in full (its profile
    expanded), each built-in AQM's parameters in full. Run as a scenario, it runs
    bit-identically to ``scenario``. Raises ScenarioError naming the field, AQM parameters
    included."""
    resolved: dict[str, Any] = _core.resolve_scenario(to_json(load_scenario(scenario)))
    return resolved


def apply_overrides(scenario: ScenarioLike, overrides: Iterable[str]) -> dict[str, Any]:
    """A copy of ``scenario`` with each ``"PATH=VALUE"`` of ``overrides`` applied in order
    (``"topology.bottleneck.queue.aqm.max_p=0.2"``, ``"flows[0].count=50"``): what ``--set``
    does on the command line; paths and values in :mod:`aqmlab.overrides`. Raises
    ScenarioError naming the path when the document's shape refuses one; the schema checks
    the result as it checks a file."""
    from .overrides import apply_in_place

    s = load_scenario(scenario)
    apply_in_place(s, overrides)
    return s


def resolve_seed(scenario: Mapping[str, Any], seed: int | None) -> int:
    """``seed`` if given, else the scenario's ``seed`` field, else :data:`DEFAULT_SEED`."""
    if seed is None:
        seed = scenario.get("seed", DEFAULT_SEED)
        if seed is None:
            seed = DEFAULT_SEED
    if isinstance(seed, bool) or not isinstance(seed, int):
        try:
            import numpy as np

            if isinstance(seed, np.integer):
                seed = int(seed)
        except ImportError:  # pragma: no cover
            pass
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise scenario_error("seed", f"must be an integer, got {seed!r}")
    if not 0 <= seed < 2**64:
        raise scenario_error("seed", f"must be between 0 and 2**64-1, got {seed}")
    return seed


def bottleneck_queue(scenario: dict[str, Any]) -> dict[str, Any]:
    """The queue table of the scenario's bottleneck, created if absent.

    The bottleneck is the dumbbell's ``topology.bottleneck``, or in a graph the link named
    ``bottleneck`` (else the only monitored link).
    """
    topo = scenario.get("topology")
    if not isinstance(topo, dict):
        raise scenario_error("topology", "missing or not a table")
    if topo.get("kind") == "dumbbell":
        link = topo.get("bottleneck")
        if not isinstance(link, dict):
            raise scenario_error("topology.bottleneck", "missing or not a table")
    elif topo.get("kind") == "graph":
        links = [lk for lk in topo.get("links", []) if isinstance(lk, dict)]
        named = [lk for lk in links if lk.get("name") == "bottleneck"]
        monitored = [lk for lk in links if lk.get("monitor")]
        if named:
            link = named[0]
        elif len(monitored) == 1:
            link = monitored[0]
        else:
            raise scenario_error(
                "topology.links", 'name one link "bottleneck" (or monitor exactly one) to compare AQMs on it'
            )
    else:
        raise scenario_error("topology.kind", f"unknown topology {topo.get('kind')!r}; known: dumbbell, graph")
    queue = link.setdefault("queue", {})
    if not isinstance(queue, dict):
        raise scenario_error("topology.bottleneck.queue", "must be a table")
    return queue


def bottleneck_name(scenario: Mapping[str, Any]) -> str:
    """Name of the bottleneck queue in the result's queue table."""
    topo = scenario.get("topology", {})
    if topo.get("kind") == "graph":
        for lk in topo.get("links", []):
            if lk.get("name") == "bottleneck":
                return "bottleneck"
        for lk in topo.get("links", []):
            if lk.get("monitor"):
                return str(lk.get("name") or f"{lk['from']}->{lk['to']}")
    return "bottleneck"


def with_bottleneck_aqm(scenario: Mapping[str, Any], aqm: str | Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``scenario`` whose bottleneck queue runs ``aqm`` (a name or a table)."""
    s = load_scenario(scenario)
    bottleneck_queue(s)["aqm"] = copy.deepcopy(aqm) if isinstance(aqm, Mapping) else aqm
    return s


def with_duration(scenario: Mapping[str, Any], duration_s: float, warmup_s: float | None = None) -> dict[str, Any]:
    """A copy of ``scenario`` lasting ``duration_s`` seconds; warm-up ``warmup_s`` (default:
    a sixth of the duration)."""
    s = load_scenario(scenario)
    s["duration"] = float(duration_s)
    s["warmup"] = float(duration_s) / 6.0 if warmup_s is None else float(warmup_s)
    return s
