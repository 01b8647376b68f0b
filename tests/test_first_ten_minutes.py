"""Issue 24, item 12 (a, b): the first ten minutes. `make compare` printed nothing for about 12
minutes while pip built the engine (--quiet); the README did not say to make a virtual
environment first (PEP 668 systems refuse a system-wide install) nor that `make test` needs
rustfmt and clippy."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def recipe(target: str) -> list[str]:
    """The command lines of a Makefile target."""
    text = (ROOT / "Makefile").read_text()
    match = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", text, re.M)
    assert match, f"no target {target}"
    return [line.strip() for line in match.group(1).splitlines()]


def test_the_install_shows_the_builds_progress_and_says_how_long_it_takes() -> None:
    lines = recipe("install")
    pip = [line for line in lines if "pip install" in line]
    assert len(pip) == 1
    assert "--quiet" not in pip[0] and " -q" not in pip[0]
    assert " -v " in pip[0]  # pip passes the backend's (cargo's) output through only when verbose
    said = [line for line in lines if line.startswith(("@echo", "echo"))]
    assert said and lines.index(said[0]) < lines.index(pip[0])
    assert re.search(r"about \d+ minutes", said[0])


def test_the_readme_says_to_make_a_virtual_environment_first() -> None:
    readme = (ROOT / "README.md").read_text()
    setup = readme[readme.index("## Set-up") : readme.index("make compare")]
    assert "python3 -m venv .venv" in setup and ". .venv/bin/activate" in setup
    assert "PEP 668" in setup


def test_the_readme_says_make_test_needs_rustfmt_and_clippy() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "rustup component add rustfmt clippy" in readme
