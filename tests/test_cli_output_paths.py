"""Issue 35, class I: every command that writes checks its output paths before any work, and
answers a path it cannot write (a file where its directory goes, a directory where its file
goes, an image suffix matplotlib does not write, an export format it does not know) with one
line naming the option, exit 2, no traceback, and no run started. A write that fails after the
work says what was not written and what was kept, one line. The checks themselves
(:func:`aqmlab.cli_run.check_output_dir`, :func:`~aqmlab.cli_run.check_output_file`) are
checked against what writing there actually does, over generated file trees."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _aqmlab_scenarios import LONG_TOML, UDP_TOML
from aqmlab.cli_run import OutputPathError, check_output_dir, check_output_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

#: Every command that writes, with where its output goes: ("dir", a directory it fills),
#: ("file", one file), ("image", an image file), ("export", a Parquet or CSV file). ``{P}`` is
#: the output path, ``{S}`` a scenario whose run would last hours, ``{W}`` a sweep file over
#: it, ``{D}`` an existing directory (a saved run or a store: read, never reached here).
COMMANDS: dict[str, tuple[str, list[str]]] = {
    "run --out": ("dir", ["run", "{S}", "--out", "{P}"]),
    "run --dry-run --out": ("dir", ["run", "{S}", "--dry-run", "--out", "{P}"]),
    "run --json --out (typer)": ("dir", ["run", "{S}", "--json", "--out", "{P}", "--pcap", "bottleneck"]),
    "compare --plot": ("image", ["compare", "{S}", "--aqm", "red", "--plot", "{P}"]),
    "sweep --out": ("dir", ["sweep", "{W}", "--out", "{P}"]),
    "results --export": ("export", ["results", "{D}", "--export", "{P}"]),
    "plot --out": ("image", ["plot", "{D}", "--out", "{P}"]),
    "league --out": ("dir", ["league", "--quick", "--aqm", "red", "--out", "{P}"]),
    "reproduce --out": ("dir", ["reproduce", "orange", "--quick", "--out", "{P}"]),
    "emulate --out": ("dir", ["emulate", "{S}", "--out", "{P}"]),
    "validate-emulation --out": ("file", ["validate-emulation", "{S}", "--out", "{P}"]),
}


def bad_paths(kind: str, tmp: Path) -> dict[str, Path]:
    """Output paths a command of ``kind`` cannot write, by what is wrong with them."""
    blocker = tmp / "a_file.txt"
    blocker.write_text("not a directory\n")
    suffix = {"dir": "", "file": ".json", "image": ".png", "export": ".csv"}[kind]
    bad = {"under a file": blocker / "sub" / f"out{suffix}"}
    if kind == "dir":
        bad["a file"] = blocker
    else:
        bad["a directory"] = tmp / f"a_dir{suffix}"
        bad["a directory"].mkdir()
    if kind == "image":
        bad["unknown image type"] = tmp / "figure.notanimage"
    if kind == "export":
        bad["unknown export type"] = tmp / "table.xlsx"
    return bad


#: What is wrong with an output path, for each kind of output (the keys of bad_paths).
WRONG = {
    "dir": ["under a file", "a file"],
    "file": ["under a file", "a directory"],
    "image": ["under a file", "a directory", "unknown image type"],
    "export": ["under a file", "a directory", "unknown export type"],
}
CASES = [(name, why) for name, (kind, _) in COMMANDS.items() for why in WRONG[kind]]


def aqmlab_cli(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "aqmlab", *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    return r, time.monotonic() - t0


@pytest.mark.parametrize(("command", "why"), CASES, ids=[f"{c}: {w}" for c, w in CASES])
def test_an_output_path_that_cannot_be_written_is_one_line_before_any_work(command: str, why: str, tmp_path: Path):
    kind, template = COMMANDS[command]
    scenario = tmp_path / "long.toml"
    scenario.write_text(LONG_TOML)
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('name = "long-sweep"\nbase = "long.toml"\n[grid]\n"topology.bottleneck.queue.limit" = [50, 100]\n')
    existing = tmp_path / "existing"
    existing.mkdir()
    out = bad_paths(kind, tmp_path)[why]
    args = [
        a.replace("{S}", str(scenario))
        .replace("{W}", str(sweep))
        .replace("{D}", str(existing))
        .replace("{P}", str(out))
        for a in template
    ]
    r, elapsed = aqmlab_cli(args, tmp_path)
    option = next(a for a in template if a.startswith("--") and template[template.index(a) + 1] == "{P}")
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert option in lines[0] and "Traceback" not in r.stderr
    # The scenario's run would last hours (league's and reproduce's minutes): the answer came
    # before any of it, and nothing was written.
    assert elapsed < 60
    assert not (tmp_path / "results").exists()
    assert sorted(p.name for p in existing.iterdir()) == []


def test_plot_refuses_its_default_directory_when_a_file_is_in_its_place(tmp_path: Path):
    saved = tmp_path / "saved"
    saved.mkdir()
    (saved / "plots").write_text("a file where the figures go\n")
    r, _ = aqmlab_cli(["plot", str(saved)], tmp_path)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "--out" in r.stderr and "plots" in r.stderr


def test_a_write_that_fails_after_the_run_keeps_the_summary_and_says_so(tmp_path: Path):
    # The directory passes the check; one of the files the run writes cannot be (a directory
    # sits in its place), as when the disk fills during the write.
    scenario = tmp_path / "udp.toml"
    scenario.write_text(UDP_TOML)
    out = tmp_path / "out"
    (out / "queues.parquet").mkdir(parents=True)
    r, _ = aqmlab_cli(["run", str(scenario), "--json", "--out", str(out)], tmp_path)
    assert r.returncode == 1, r.stderr
    assert '"summary"' in r.stdout  # the result was not lost
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --out: could not write"), r.stderr
    assert "summary" in lines[0] and "Traceback" not in r.stderr


# ------------------------------------------------------------------ the checks themselves

#: A small file tree: each name a file, a broken symbolic link or a directory, nested.
names = st.sampled_from(["a", "b", "c.png"])
trees = st.recursive(
    st.sampled_from(["file", "broken link"]),
    lambda children: st.dictionaries(names, children, max_size=3),
    max_leaves=6,
).filter(lambda t: isinstance(t, dict))


def make_tree(root: Path, tree: dict[str, object]) -> None:
    for name, sub in tree.items():
        if sub == "file":
            (root / name).write_text("x")
        elif sub == "broken link":
            (root / name).symlink_to("/nonexistent-aqmlab-dir/target")
        else:
            (root / name).mkdir()
            make_tree(root / name, sub)  # type: ignore[arg-type]


def can_write(path: Path, as_dir: bool) -> bool:
    """What the commands do with an output path: its directories made, then written."""
    try:
        if as_dir:
            path.mkdir(parents=True, exist_ok=True)
            (path / "summary.json").write_text("{}")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("{}")
    except OSError:
        return False
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tree=trees, segments=st.lists(names, min_size=1, max_size=4), as_dir=st.booleans())
def test_the_check_refuses_exactly_the_paths_a_write_fails_on(tmp_path_factory, tree, segments, as_dir):
    root = tmp_path_factory.mktemp("tree")
    make_tree(root, tree)
    path = root.joinpath(*segments)
    check = check_output_dir if as_dir else check_output_file
    try:
        check(path, "--out")
        refused = None
    except OutputPathError as e:
        refused = str(e)
    assert (refused is None) == can_write(path, as_dir), (tree, segments, as_dir, refused)
    if refused is not None:
        assert refused.startswith("--out: ") and "\n" not in refused


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_a_directory_without_write_permission_is_refused(tmp_path: Path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        with pytest.raises(OutputPathError, match="--out: .*not writable"):
            check_output_dir(locked / "run", "--out")
        with pytest.raises(OutputPathError, match="--export: .*not writable"):
            check_output_file(locked / "t.csv", "--export")
    finally:
        locked.chmod(0o755)
