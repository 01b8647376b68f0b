"""Issue 13: matplotlib is the optional extra ``aqmlab[plot]``. Without it, what draws figures
raises MissingExtraError (an ImportError) naming the extra, before any run, and the CLI says so
in one line. As in test_cli_missing_extra.py, a None entry in sys.modules stands for a machine
without the package; it runs in a fresh interpreter because this one has already imported the
figures module (pytest's filterwarnings names its FigureWarning)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from aqmlab.errors import MissingExtraError, import_extra

PLOT_MESSAGE = "drawing figures needs matplotlib: pip install 'aqmlab[plot]'"


def without_matplotlib(code: str) -> subprocess.CompletedProcess[str]:
    prelude = "import sys\nsys.modules['matplotlib'] = None\n"
    return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True)


def assert_missing_plot_extra(setup: str, statement: str) -> None:
    """Without matplotlib, ``statement`` (after ``setup``) raises MissingExtraError naming the
    plot extra."""
    r = without_matplotlib(
        "from aqmlab.errors import MissingExtraError\n"
        + setup
        + f"try:\n    {statement}\nexcept MissingExtraError as e:\n    print(e)\n"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == PLOT_MESSAGE


def test_import_extra_names_the_extra_and_keeps_the_cause(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingExtraError) as e:
        import_extra("matplotlib", "plot", "drawing figures")
    assert str(e.value) == PLOT_MESSAGE
    assert isinstance(e.value.__cause__, ImportError)


def test_import_extra_returns_an_installed_module():
    assert import_extra("json", "none", "reading").dumps([1]) == "[1]"


def test_figures_module_raises_missing_extra_error():
    assert_missing_plot_extra("", "import aqmlab.reproduce.figures")


def test_league_fails_before_running_anything(tmp_path):
    out = tmp_path / "league"
    assert_missing_plot_extra(
        "from aqmlab.league import run_league\n", f"run_league({str(out)!r}, quick=True, workers=1)"
    )
    assert not out.exists()


@pytest.mark.parametrize("command", [["reproduce", "orange", "--quick"], ["league", "--quick"]])
def test_cli_prints_one_line_naming_the_extra(command, tmp_path):
    out = tmp_path / "out"
    args = [*command, "--out", str(out)]
    r = without_matplotlib(f"from aqmlab.cli import main\nsys.argv = ['aqmlab', *{args!r}]\nmain()\n")
    assert r.returncode == 2, r.stderr
    assert r.stderr == f"error: {PLOT_MESSAGE}\n"
    assert not out.exists()


def test_result_plot_raises_missing_extra_error():
    assert_missing_plot_extra(
        "import aqmlab\n"
        "s = aqmlab.load_scenario('default-dumbbell')\n"
        "s.update(duration='1s', warmup='0s', sample_interval='100ms')\n"
        "r = aqmlab.run(s)\n",
        "r.plot('queue')",
    )
