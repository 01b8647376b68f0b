"""The ``aqmlab`` script's entry point: ``aqmlab run`` without typer, everything else with it.

:func:`main` reads ``aqmlab run SCENARIO [--json] [--seed N] [--out DIR] [--quiet]
[--max-memory SIZE] [--set PATH=VALUE ...] [--dry-run]`` itself and runs it through :func:`aqmlab.cli_run.run_command` without
importing typer (issue 24, item 12: typer and pydantic under it were a third of a small run's
process). Any other command line (every other command, ``--help``, an option it does not know,
a value it cannot read) goes to the typer app in :mod:`aqmlab.cli`, which says what is wrong
with it; its ``run`` calls the same function.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import cli_options
from .cli_run import EXIT_OK, interrupted_anywhere, run_command


@dataclass
class FastRun:
    """An ``aqmlab run`` command line, read without the framework."""

    scenario: str
    as_json: bool = False
    seed: int | None = None
    out_dir: Path | None = None
    quiet: bool = False
    max_memory: str | None = None
    overrides: list[str] = field(default_factory=list)
    dry_run: bool = False


_VALUED = ("--seed", "--out", "--max-memory")
_FLAGS = ("--json", "--quiet", "-q", "--dry-run")


def parse_fast_run(argv: Sequence[str]) -> FastRun | None:
    """The run that ``argv`` (without the program name) asks for, if it is ``run SCENARIO``
    with only options this reader knows and values it can read; else None (the typer app then
    reads it, and says what is wrong with it)."""
    if len(argv) < 2 or argv[0] != "run":
        return None
    positional: list[str] = []
    values: dict[str, str] = {}
    flags: set[str] = set()
    overrides: list[str] = []
    args = list(argv[1:])
    while args:
        a = args.pop(0)
        if a == "--":
            positional.extend(args)
            break
        name, eq, value = a.partition("=")
        if name == "--set":  # repeatable; its value has a `=` of its own
            if not eq:
                if not args:
                    return None
                value = args.pop(0)
            overrides.append(value)
        elif name in _VALUED:
            if not eq:
                if not args:
                    return None
                value = args.pop(0)
            if name in values:
                return None
            values[name] = value
        elif a in _FLAGS:
            flags.add(a)
        elif a.startswith("-") and a != "-":
            return None  # --help, a misspelt option: the app's usage error
        else:
            positional.append(a)
    if len(positional) != 1:
        return None
    seed: int | None = None
    if "--seed" in values:
        try:
            seed = cli_options.seed(values["--seed"])
        except ValueError:
            return None
    out = values.get("--out")
    return FastRun(
        scenario=positional[0],
        as_json="--json" in flags,
        seed=seed,
        out_dir=Path(out) if out is not None else None,
        quiet=bool(flags & {"--quiet", "-q"}),
        max_memory=values.get("--max-memory"),
        overrides=overrides,
        dry_run="--dry-run" in flags,
    )


def main() -> None:
    """Entry point of the ``aqmlab`` script."""
    fast = parse_fast_run(sys.argv[1:])
    if fast is None:
        from .cli import main as full

        full()
        return
    with interrupted_anywhere():
        run_command(
            fast.scenario,
            fast.seed,
            fast.out_dir,
            fast.as_json,
            fast.quiet,
            fast.max_memory,
            fast.overrides,
            fast.dry_run,
        )
    raise SystemExit(EXIT_OK)
