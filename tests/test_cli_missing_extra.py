"""Issue 11, item 6: ``--backend dask`` without the dask extra is one line naming the extra to
install (it was a 58-line traceback), and a MissingExtraError (an ImportError) from Python."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))

from aqmlab.cli import app  # noqa: E402
from aqmlab.errors import MissingExtraError  # noqa: E402
from aqmlab.sweep.execute import _open_dask  # noqa: E402

MESSAGE = "backend='dask' needs dask[distributed]: pip install 'aqmlab[dask]'"
SWEEP = """
name = "no-dask"
run_fn = "sweep_fake_engine:run"
replications = 1
metrics = ["events"]

[base]
duration_s = 1.0
topology = { senders = 2 }
bottleneck = { rate_mbps = 10.0, queue = { aqm = { type = "red", max_th = 5 } } }
flows = [{ kind = "tcp", count = 1 }]
"""


@pytest.fixture
def no_dask(monkeypatch):
    # A None entry makes `import distributed` raise ImportError, as on a machine without it.
    monkeypatch.setitem(sys.modules, "distributed", None)


def test_python_raises_missing_extra_error_naming_the_extra(no_dask):
    with pytest.raises(MissingExtraError) as e:
        _open_dask(1, None, None)
    assert str(e.value) == MESSAGE
    assert isinstance(e.value, ImportError)


def test_cli_prints_one_line_and_no_traceback(no_dask, tmp_path):
    f = tmp_path / "sweep.toml"
    f.write_text(SWEEP)
    r = CliRunner().invoke(app, ["sweep", str(f), "--backend", "dask", "--out", str(tmp_path / "store")])
    assert r.exit_code == 2, r.output
    lines = [line.strip() for line in r.output.strip().splitlines()]
    # the sweep's header, its store and progress lines, then the one-line error
    assert f"error: {MESSAGE}" in lines and len(lines) <= 5, r.output
    assert "Traceback" not in r.output
