"""Issue 14, docs that cannot rot: every `aqmlab ...` command shown in README.md and docs/
is run. The quick ones run as written; the long ones (sweeps, reproductions, the league:
minutes each, and CI runs `aqmlab reproduce all --quick` itself) run with `--help` appended,
which still fails on a subcommand or an option that no longer exists, since the options are
parsed before the help is shown."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: Subcommands quick enough to run as written (seconds).
RUN_AS_WRITTEN = {"aqms", "compare"}


def shown_commands() -> list[tuple[str, str]]:
    """(document, command) for every line of a fenced block that starts with `aqmlab `."""
    out = []
    for doc in DOCS:
        for block in re.findall(r"```[a-z]*\n(.*?)```", doc.read_text(), re.S):
            for line in block.splitlines():
                command = line.split("  #")[0].strip()
                if command.startswith("aqmlab "):
                    out.append((str(doc.relative_to(ROOT)), command))
    return out


COMMANDS = shown_commands()


def _argv(command: str) -> list[str]:
    args = command.split()[1:]
    if any("[" in a or "|" in a for a in args):  # a synopsis: check the subcommand exists
        return [args[0], "--help"]
    as_written = args[0] in RUN_AS_WRITTEN or (args[0] == "run" and "--out" not in args)
    return args if as_written else [*args, "--help"]


def test_the_docs_show_commands() -> None:
    assert len(COMMANDS) >= 8, COMMANDS
    assert {c.split()[1] for _, c in COMMANDS} >= {"run", "compare", "aqms", "sweep", "reproduce", "league"}


@pytest.mark.parametrize(("doc", "command"), COMMANDS, ids=[c for _, c in COMMANDS])
def test_a_command_shown_in_the_docs_runs(doc: str, command: str) -> None:
    argv = _argv(command)
    proc = subprocess.run(
        [sys.executable, "-m", "aqmlab.cli", *argv], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, f"{doc}: `{command}` ({' '.join(argv)}) failed:\n{proc.stdout}\n{proc.stderr}"
    if argv[-1] == "--help":
        # Every option the docs show is one the command has.
        for option in re.findall(r"--[a-z][a-z-]*", command):
            assert option in proc.stdout, f"{doc}: `{command}` shows {option}, which `{argv[0]}` does not have"
