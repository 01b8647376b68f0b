"""``aqmlab run`` without the command-line framework, and what the typer app shares with it.

A run of a small scenario takes milliseconds, and the process around it used to take 0.35-0.5 s
(issue 24, item 12): typer (with pydantic), rich, pyarrow and numpy were imported to print one
line of JSON, and pandas too for the table. The ``aqmlab`` script's entry point (entry.py)
reads a plain ``aqmlab run`` command line itself and calls :func:`run_command`, which imports
none of them (``--json``) or rich alone (the table, run_report.py); the typer app's ``run``
calls the same function, so a command line gives the same output and exit code either way.
Also here, shared with that app: the exit codes, the one-line errors (:func:`user_errors`) and
the progress bar (:class:`LazyProgress`), none of which imports anything heavy until it is
needed. BENCHMARKS.md, "aqmlab run cold start, whole process".
"""

from __future__ import annotations

import errno
import json
import math
import os
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
#: A run that finished, its result written and printed, but is not valid: an emulation whose
#: router lagged beyond its bound (issue 35). Not 1: nothing failed, the numbers are there to
#: read; not 0: a script must not take them for a valid measurement.
EXIT_NOT_VALID = 3


def die(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """One line ``error: ...`` on stderr (the message's first line), then exit ``code``."""
    first = message.strip().splitlines()[0] if message.strip() else "failed"
    # Plain write: one line, never wrapped or styled.
    sys.stderr.write(f"error: {first}\n")
    sys.stderr.flush()
    raise SystemExit(code)


@contextmanager
def user_errors() -> Iterator[None]:
    """What every command runs in: the scenario's warnings and its errors as lines on stderr."""
    with warnings_as_lines(), errors_as_lines():
        yield


@contextmanager
def warnings_as_lines() -> Iterator[None]:
    """Shows each :class:`aqmlab.ScenarioWarning` as one plain line on stderr, ``warning: path:
    message`` (issue 24, item 8), and any other warning as Python would."""
    import warnings

    from .errors import ScenarioWarning

    with warnings.catch_warnings():
        python_show = warnings.showwarning

        def show(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
            if issubclass(category, ScenarioWarning):
                sys.stderr.write(f"warning: {message}\n")
                sys.stderr.flush()
            else:
                python_show(message, category, *args, **kwargs)

        warnings.showwarning = show
        yield


@contextmanager
def errors_as_lines() -> Iterator[None]:
    """Turns bad input and Ctrl-C into a one-line message and an exit code, no traceback."""
    from .errors import MissingExtraError, ScenarioError, SimulationError
    from .memory_limit import MemoryLimitError

    try:
        yield
    except ScenarioError as e:
        die(str(e), EXIT_USAGE)
    except MissingExtraError as e:
        die(str(e), EXIT_USAGE)
    except MemoryLimitError as e:
        die(str(e), EXIT_USAGE)
    except FileNotFoundError as e:
        # An error raised with a message of its own (a scenario path that names no file, with
        # its hint) says it; one from the OS (no strerror otherwise) names the file.
        die(str(e) if e.strerror is None or e.filename is None else f"no such file: {e.filename}", EXIT_USAGE)
    except IsADirectoryError as e:
        die(f"is a directory, not a scenario file: {e.filename}", EXIT_USAGE)
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EDQUOT):
            # A results store refuses to leave partial files, so the same command resumes.
            die(f"disk full: {e.strerror or e}", EXIT_FAILED)
        if e.filename is None:
            raise
        # A file the command could not read or write, found while it worked (its output paths
        # were checked before): the file and the reason, not a traceback.
        die(f"{e.filename}: {e.strerror or e}", EXIT_FAILED)
    except OutputPathError as e:
        die(str(e), EXIT_USAGE)
    except UnicodeDecodeError as e:
        die(f"scenario file is not UTF-8 text: {e}", EXIT_USAGE)
    except SimulationError as e:
        die(str(e), EXIT_FAILED)
    except KeyboardInterrupt:
        interrupted()


class OutputPathError(ValueError):
    """An output path a command cannot write, found before any work: ``str(e)`` is ``"OPTION:
    reason"``, one line (:func:`errors_as_lines` prints it and exits 2)."""


def _nearest_existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists (the current directory's for a relative path
    whose ancestors are all missing)."""
    for p in (path, *path.parents):
        if p.exists() or p.is_symlink():
            return p
    return Path(".")


def _not_a_dir(p: Path) -> str:
    """What ``p``, which is in the way of a directory, is instead."""
    if p.is_symlink() and not p.exists():
        return "a broken symbolic link"
    return "a file, not a directory"


def _check_parent(path: Path, option: str) -> None:
    """The directories above ``path`` exist or can be made: the nearest one that exists is a
    directory this process may create entries in."""
    above = _nearest_existing(path.parent)
    if not above.is_dir():
        raise OutputPathError(f"{option}: cannot write {path}: {above} is {_not_a_dir(above)}")
    if not os.access(above, os.W_OK | os.X_OK):
        raise OutputPathError(f"{option}: cannot write {path}: {above} is not writable")


def check_output_dir(path: Path | str, option: str) -> Path:
    """Refuses, before any work, a directory a command would write into (made if missing)
    that it cannot: a file in its place or above it, an ancestor without write permission.
    Raises :class:`OutputPathError` naming ``option``; returns ``path`` as a Path."""
    path = Path(path)
    if (path.exists() or path.is_symlink()) and not path.is_dir():
        raise OutputPathError(f"{option}: {path} is {_not_a_dir(path)}")
    if path.is_dir():
        if not os.access(path, os.W_OK | os.X_OK):
            raise OutputPathError(f"{option}: {path} is not writable")
        return path
    _check_parent(path, option)
    return path


def check_output_file(path: Path | str, option: str, suffixes: Sequence[str] = ()) -> Path:
    """Refuses, before any work, a file a command would write (its directory made if
    missing) that it cannot: a directory in its place, a file above it, no write permission;
    and, when ``suffixes`` are given, a name ending in none of them (``suffixes`` without
    their dot). Raises :class:`OutputPathError` naming ``option``; returns ``path``."""
    path = Path(path)
    if path.is_dir():
        raise OutputPathError(f"{option}: {path} is a directory, not a file")
    if path.is_symlink() and not path.exists():
        raise OutputPathError(f"{option}: {path} is a broken symbolic link")
    if suffixes and path.suffix.lower().lstrip(".") not in suffixes:
        raise OutputPathError(
            f"{option}: {path}: unknown file type {path.suffix or '(no suffix)'!r}; use one of "
            + ", ".join(f".{s}" for s in suffixes)
        )
    if path.exists() and not os.access(path, os.W_OK):
        raise OutputPathError(f"{option}: {path} is not writable")
    _check_parent(path, option)
    return path


def image_formats() -> list[str]:
    """The image file types matplotlib writes (``savefig``'s formats, e.g. png, pdf, svg):
    imported only by commands that draw, which import matplotlib anyway."""
    from .errors import import_extra

    backend_bases = import_extra("matplotlib.backend_bases", "plot", "plotting", "matplotlib")
    return sorted(backend_bases.FigureCanvasBase.get_supported_filetypes())


def check_image_file(path: Path | str, option: str) -> Path:
    """:func:`check_output_file` for an image: its suffix one matplotlib writes; a name
    without one gets ``.png`` (returned)."""
    path = Path(path)
    if not path.suffix:
        path = path.with_name(path.name + ".png")
    return check_output_file(path, option, image_formats())


@contextmanager
def written_after_work(option: str, path: Path | str, kept: str) -> Iterator[None]:
    """A write that fails after the work was done (disk full, permission changed meanwhile):
    one line saying what was not written and where the work's result is (``kept``), exit 1,
    never a traceback nor a silent loss."""
    try:
        yield
    except OSError as e:
        what = e.filename if e.filename is not None else path
        why = e.strerror or str(e)
        die(f"{option}: could not write {what}: {why}; {kept}", EXIT_FAILED)


def interrupted() -> NoReturn:
    """Ctrl-C's one line and exit code."""
    sys.stderr.write("interrupted\n")
    sys.stderr.flush()
    raise SystemExit(EXIT_INTERRUPTED)


@contextmanager
def interrupted_anywhere() -> Iterator[None]:
    """The whole command line's guard: a Ctrl-C that comes before a command's body (while the
    framework imports or reads the command line, or while this module imports) is also one
    line and exit 130, not a traceback (KeyboardInterrupt out of the app) nor a silent 130
    (typer turns a KeyboardInterrupt out of a command into ``Exit(130)`` and prints nothing).
    A command that handled its Ctrl-C itself (:func:`errors_as_lines`, a sweep's summary)
    has said so already: its SystemExit(130) was not raised from a KeyboardInterrupt."""
    try:
        yield
    except KeyboardInterrupt:
        interrupted()
    except SystemExit as e:
        framework_exit = e.__context__
        if (
            e.code == EXIT_INTERRUPTED
            and framework_exit is not None
            and isinstance(framework_exit.__cause__, KeyboardInterrupt)
        ):
            interrupted()
        raise


def apply_max_memory(value: str | None) -> None:
    """Checks --max-memory and hands it to every run this command starts, on threads or in
    worker processes, through the environment variable the runs read."""
    from .memory_limit import ENV_VAR, MemoryLimitError, parse_memory

    if value is None:
        return
    try:
        parse_memory(value, "--max-memory")
    except MemoryLimitError as e:
        die(str(e))
    os.environ[ENV_VAR] = value


def jsonable(x: Any) -> Any:
    """``x`` with every non-finite float, at any depth of its dicts, lists and tuples, as None
    (JSON has no NaN). Nested ones matter: a comparison's relative difference to a zero sits
    in its rows (``validate-emulation --json`` failed on one with ``allow_nan=False``)."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    return x


class LazyProgress:
    """A progress callback that shows a rich bar on stderr, with the elapsed time and an ETA,
    once a run lasts > ``delay`` s (and stderr is a terminal); rich is imported then, not
    before."""

    def __init__(self, label: str, delay: float = 0.5, enabled: bool = True):
        self.label = label
        self.delay = delay
        self.enabled = enabled
        self.t0 = time.monotonic()
        self.bar: Any = None
        self.task: Any = None

    def __call__(self, fraction: float) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            if time.monotonic() - self.t0 < self.delay:
                return
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            console = Console(stderr=True, highlight=False)
            if not console.is_terminal:
                self.enabled = False
                return
            # the columns of a sweep's bar (sweep/cli.py): elapsed time, then the ETA
            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.percentage:>5.1f}%"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=console,
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=1.0)
            # elapsed from the start of the run, not from when the bar appeared (same clock)
            for task in self.bar.tasks:
                task.start_time = self.t0
        self.bar.update(self.task, completed=fraction)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


#: A single run shows its progress bar (with an ETA) once it has lasted this long, seconds:
#: a shorter run is over before a bar would be read.
RUN_PROGRESS_DELAY_S = 2.0


def run_command(
    scenario: str,
    seed: int | None,
    out_dir: Path | None,
    as_json: bool,
    quiet: bool,
    max_memory: str | None,
    overrides: Sequence[str] = (),
    dry_run: bool = False,
    pcap: Sequence[str] = (),
) -> None:
    """``aqmlab run``: runs ``scenario`` with ``overrides`` (``--set PATH=VALUE``) applied,
    writes its tables to ``out_dir`` if given, prints the summary as JSON (``as_json``) or as
    tables (run_report.py); with ``dry_run``, prints the resolved scenario instead (TOML, or
    JSON with ``as_json``) without running it. ``pcap``: links captured besides the scenario's
    ``capture``; capture files go to ``out_dir``, else the current directory. The progress bar
    is on stderr, for a run that lasts more than :data:`RUN_PROGRESS_DELAY_S` on a terminal,
    never with ``as_json`` or ``quiet``."""
    from . import api
    from .scenario import load_scenario

    apply_max_memory(max_memory)
    with user_errors():
        if out_dir is not None:
            check_output_dir(out_dir, "--out")
        target: Any = scenario
        if overrides:
            from .scenario import apply_overrides

            target = apply_overrides(scenario, overrides)
        if pcap:
            target = load_scenario(target)
            target["capture"] = list(dict.fromkeys([*target.get("capture", []), *pcap]))
        if dry_run:
            print_resolved(target, seed, as_json)
            return
        progress = LazyProgress("simulating", delay=RUN_PROGRESS_DELAY_S, enabled=not (quiet or as_json))
        try:
            r = api.run(target, seed=seed, progress=progress, capture_dir=out_dir)
        finally:
            progress.close()
        report_result(r, out_dir, as_json)


def print_resolved(scenario: Any, seed: int | None, as_json: bool) -> None:
    """``--dry-run``: the scenario put through every check a run makes before it starts
    (:func:`aqmlab.api.check`: the schema, its warnings on stderr, the memory limit, the
    network built and dropped) and printed with every default filled in; with ``seed``
    (``--seed``) it is the scenario's seed, so that the printed scenario runs as ``aqmlab run
    --seed`` would."""
    from .api import check
    from .scenario import load_scenario, resolve_scenario

    checked = load_scenario(scenario)
    check(checked, seed=seed)
    resolved = resolve_scenario(checked)
    if seed is not None:
        resolved["seed"] = seed
    if as_json:
        sys.stdout.write(json.dumps(resolved, allow_nan=False) + "\n")
    else:
        from .toml_writer import dumps

        sys.stdout.write(dumps(resolved))


def report_result(r: Any, out_dir: Path | None, as_json: bool) -> None:
    """A run's tables to ``out_dir`` if given, and its summary as JSON (``as_json``) or as
    tables (run_report.py): what ``aqmlab run`` and ``aqmlab emulate`` print."""
    unwritten: OSError | None = None
    if out_dir is not None:
        try:
            r.to_parquet(out_dir)
            r.to_csv(out_dir)
        except OSError as e:
            # The run is done: its summary is still shown, then what could not be written.
            unwritten = e
    if as_json:
        # the same document as summary.json (Result.summary_document), on one line
        sys.stdout.write(json.dumps(r.summary_document(), allow_nan=False) + "\n")
    else:
        from .run_report import show_run

        show_run(r, None if unwritten is not None else out_dir)
    if unwritten is not None:
        sys.stdout.flush()
        with written_after_work("--out", out_dir or ".", "the run's summary above is all that was kept"):
            raise unwritten
