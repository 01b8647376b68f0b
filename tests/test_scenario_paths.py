"""Issue 24, item 9: a path-like scenario argument that names no file is "file not found",
naming the path (and a close packaged scenario or sibling file), in the API and the CLI; before,
``aqmlab run e3.tml`` and ``aqmlab.run("pie30")`` said ``line 1: invalid TOML``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import aqmlab
import pytest
from _aqmlab_scenarios import UDP_TOML
from aqmlab.cli import app
from typer.testing import CliRunner

runner = CliRunner()


@pytest.mark.parametrize("arg", ["e3.tml", "pie30", "runs/missing", "missing.json", "runs/max_p=0.1.toml"])
def test_a_path_like_argument_that_names_no_file_is_file_not_found(arg: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match=f"^scenario file not found: {arg}") as info:
        aqmlab.run(arg)
    assert info.value.filename == arg
    assert not isinstance(info.value, aqmlab.ScenarioError)


def test_a_close_packaged_name_is_suggested() -> None:
    with pytest.raises(FileNotFoundError, match="did you mean 'default-dumbbell'"):
        aqmlab.load_scenario("default-dumbell")


def test_a_close_file_beside_the_missing_one_is_suggested(tmp_path: Path) -> None:
    (tmp_path / "e3.toml").write_text(UDP_TOML)
    with pytest.raises(FileNotFoundError, match=r"did you mean '.*e3\.toml'"):
        aqmlab.load_scenario(str(tmp_path / "e3.tml"))


def test_a_bare_word_lists_the_packaged_scenarios(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match="packaged scenario: default-dumbbell, identical-dumbbell"):
        aqmlab.load_scenario("pie30")


def test_text_names_and_files_still_resolve_as_before(tmp_path: Path, monkeypatch) -> None:
    assert aqmlab.load_scenario("identical-dumbbell")["topology"]["kind"] == "dumbbell"
    assert aqmlab.load_scenario('duration = "1s"') == {"duration": "1s"}
    assert aqmlab.load_scenario("[topology]") == {"topology": {}}
    assert aqmlab.load_scenario('{"duration": 1}') == {"duration": 1}
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pie30").write_text(UDP_TOML)  # a file without a suffix is still read
    assert aqmlab.load_scenario("pie30")["duration"] == aqmlab.load_scenario(UDP_TOML)["duration"]
    with pytest.raises(aqmlab.ScenarioError, match="^line 1: invalid TOML"):
        aqmlab.load_scenario("duration = ")  # TOML text with an error is still a TOML error


def test_a_directory_is_not_a_scenario_file(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        aqmlab.load_scenario(tmp_path)


@pytest.mark.parametrize("arg", ["e3.tml", "pie30"])
def test_cli_says_file_not_found_in_one_line(arg: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, ["run", arg])
    assert r.exit_code == 2
    assert r.stderr.startswith(f"error: scenario file not found: {arg}")
    assert len(r.stderr.strip().splitlines()) == 1 and "invalid TOML" not in r.stderr


def test_cli_in_a_subprocess_names_the_path_and_the_hint(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "aqmlab.cli", "compare", "default-dumbell"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("error: scenario file not found: default-dumbell (did you mean 'default-dumbbell'?)")
