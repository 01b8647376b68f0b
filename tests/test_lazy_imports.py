"""Issue 13: ``import aqmlab`` (and the ``aqmlab`` command's module) loads none of the heavy
libraries; pandas, numpy and pyarrow come in when a table is first built, matplotlib and scipy
only where a figure or a statistic needs them. Import time itself is measured in BENCHMARKS.md,
not asserted here: this checks what makes it fast."""

from __future__ import annotations

import json
import subprocess
import sys

import aqmlab
import pytest
from _aqmlab_scenarios import UDP_TOML
from aqmlab.scenario import to_json

MODULES = ("aqmlab", "aqmlab.cli")


def loaded_after_import(module: str, candidates: tuple[str, ...]) -> list[str]:
    """Which of ``candidates`` a fresh interpreter has loaded after ``import module``."""
    code = f"import json, sys, {module}; print(json.dumps(sorted(m for m in {candidates!r} if m in sys.modules)))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


@pytest.mark.parametrize("module", MODULES)
def test_import_loads_neither_matplotlib_nor_scipy(module):
    assert loaded_after_import(module, ("matplotlib", "scipy")) == []


@pytest.mark.parametrize("module", MODULES)
def test_import_loads_no_table_library(module):
    assert loaded_after_import(module, ("pandas", "numpy", "pyarrow")) == []


def test_tables_still_arrive_as_dataframes():
    pd = pytest.importorskip("pandas")
    table = aqmlab.aqms()
    assert isinstance(table, pd.DataFrame) and "red" in set(table["name"])


def test_numpy_values_in_a_scenario_are_still_plain_numbers():
    # scenario.py no longer imports numpy to recognise numpy values; it looks for a loaded numpy
    np = pytest.importorskip("numpy")
    text = to_json({"count": np.int64(3), "rates": np.array([1.5, 2.0]), "flag": np.bool_(True)})
    assert text == '{"count": 3, "rates": [1.5, 2.0], "flag": true}'


# Issue 24, item 12: `aqmlab run` of a small scenario took 0.35-0.5 s as a whole process while
# the simulation took milliseconds: typer (and pydantic under it), rich, pyarrow and numpy were
# imported to print one line of JSON. BENCHMARKS.md, "aqmlab run cold start, whole process".
FRAMEWORK = ("typer", "click", "rich", "pydantic")
TABLES = ("pandas", "pyarrow", "numpy", "scipy", "matplotlib")

# A TCP and a UDP flow group: the flow table has values and nulls (UDP flows have no RTT).
SMALL = UDP_TOML + '[[flows]]\nkind = "tcp"\nfrom = "senders"\nto = "receivers"\n'


def loaded_by_command(args: list[str], candidates: tuple[str, ...], tmp_path) -> tuple[list[str], str]:
    """Which of ``candidates`` ``python -m aqmlab ARGS`` (the ``aqmlab`` command) had loaded when
    it exited, and what it printed."""
    code = (
        "import atexit, json, runpy, sys\n"
        f"atexit.register(lambda: sys.stderr.write('\\n' + json.dumps(sorted(m for m in {candidates!r} "
        "if m in sys.modules))))\n"
        f"sys.argv = ['aqmlab', *{args!r}]\n"
        "runpy.run_module('aqmlab', run_name='__main__')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stderr.strip().splitlines()[-1]), r.stdout


def test_run_json_imports_no_framework_and_no_table_library(tmp_path):
    (tmp_path / "small.toml").write_text(SMALL)
    loaded, stdout = loaded_by_command(["run", "small.toml", "--json", "--seed", "2"], FRAMEWORK + TABLES, tmp_path)
    assert loaded == []
    summary = json.loads(stdout)["summary"]
    assert (
        summary["queue.bottleneck.arrivals"]
        == aqmlab.run(tmp_path / "small.toml", seed=2).summary["queue.bottleneck.arrivals"]
    )


def test_run_with_a_table_imports_rich_alone(tmp_path):
    (tmp_path / "small.toml").write_text(SMALL)
    loaded, stdout = loaded_by_command(["run", "small.toml"], FRAMEWORK + TABLES, tmp_path)
    assert loaded == ["rich"] and "bottleneck" in stdout and "Jain index" in stdout


def test_a_command_line_the_fast_path_does_not_read_goes_to_the_app(tmp_path):
    """--help, an unknown option, a seed that is no integer: typer's own answers."""
    from aqmlab.entry import parse_fast_run

    assert parse_fast_run(["run", "x.toml", "--json", "--seed=3", "-q"]) is not None
    for argv in (["run", "--help"], ["run", "x.toml", "--colour"], ["run", "x.toml", "--seed", "two"], ["aqms"]):
        assert parse_fast_run(argv) is None, argv
    r = subprocess.run(
        [sys.executable, "-m", "aqmlab", "run", "x.toml", "--seed", "two"], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 2 and "Invalid value for '--seed'" in r.stderr


def test_the_aqmlab_script_starts_at_the_fast_entry_point():
    from pathlib import Path

    import tomllib

    pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    assert pyproject["project"]["scripts"]["aqmlab"] == "aqmlab.entry:main"


def test_the_summary_read_without_pyarrow_equals_pyarrows():
    """The engine's own reader of the queue and flow tables gives what pyarrow's gives."""
    pytest.importorskip("pyarrow")
    from aqmlab import _core

    r = aqmlab.run(SMALL, seed=3)
    for table in ("queues", "flows"):
        ours = _core.table_columns(r.raw[table])
        theirs = r.to_arrow(table).to_pydict()
        assert list(ours) == list(theirs)
        for name in ours:
            assert [repr(v) for v in ours[name]] == [repr(v) for v in theirs[name]], name
    with pytest.raises(TypeError, match='column "source": type Dictionary'):  # dictionary-coded: pyarrow's job
        _core.table_columns(r.raw["timeseries"])
